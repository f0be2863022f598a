//! A browser's or host's upload as the server reads it: JSON into
//! `Upload`, then `Upload::check`, the bounds the server holds it to. No
//! input may panic either, and an upload they accept must be one the store
//! can hold and the dashboard can draw: every derived figure finite and not
//! negative, every count within the store's signed 64 bits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pqbench_api::Upload;
use pqbench_types::BenchResult;

fuzz_target!(|data: &[u8]| {
    let Ok(upload) = serde_json::from_slice::<Upload>(data) else { return };
    let Ok(clock) = upload.check() else { return };
    for m in &upload.measurements {
        let result = BenchResult::from_measurement(m, &clock);
        assert_eq!(result.unsound_figure(), None, "{m:?} at {clock:?} gives {result:?}");
        let counts = [m.total_ticks, m.min_ticks, m.median_ticks, m.max_ticks].into_iter().chain(
            [result.iterations, result.heap_bytes, result.heap_allocs, result.stack_bytes]
                .into_iter()
                .flatten(),
        );
        for count in counts {
            assert!(i64::try_from(count).is_ok(), "{count} does not fit the store: {m:?}");
        }
    }
    // What is stored is what was sent: the upload reads back from its JSON.
    let text = serde_json::to_string(&upload).expect("an Upload is always JSON");
    assert_eq!(serde_json::from_str::<Upload>(&text).ok(), Some(upload), "{text}");
});

//! Both log parsers on arbitrary text: an import must never panic, whatever
//! a user uploads (overflow and debug assertions are on in this build).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pqbench_adapters::{Format, digest, parse};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the clock, so that the derived figures (cycles
    // from ms, ms from cycles) are exercised with odd clocks too.
    let (clock, text) = match data.split_first() {
        Some((&selector, rest)) => {
            let clock = match selector % 4 {
                0 => None,
                1 => Some(0),
                2 => Some(160_000_000),
                _ => Some(u64::MAX),
            };
            (clock, rest)
        }
        None => (None, data),
    };
    let text = String::from_utf8_lossy(text);
    for format in [Format::Wolfcrypt, Format::Pqm4] {
        if let Ok(log) = parse(format, &text, clock) {
            // What a parser returns is consistent: no result without a
            // group, and unread lines in file order with 1-based numbers.
            assert!(log.groups.iter().all(|g| !g.results.is_empty()));
            assert!(log.unread.windows(2).all(|w| w[0].line < w[1].line));
            assert!(log.unread.iter().all(|u| u.line >= 1));
        }
    }
    let _ = digest(&text);
});

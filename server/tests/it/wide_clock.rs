//! The emulated MPS2 boards' wide clock (`firmware/src/boards/cmsdk_timer.rs`):
//! a fine counter that wraps every 2^24 ticks joined with a coarse one, so
//! that a call of any length is timed exactly. SysTick's 24 bits read alone
//! lost every wrap inside a call: with them, SLH-DSA-SHAKE-128s's signature
//! read as 1.2 G ticks, not 5.5 G.
//!
//! Needs the firmware image: `cargo xtask test` builds it and sets PQBENCH_DIST.

use std::time::Duration;

use pqbench_types::{Algorithm, BenchResult, Operation, RunStatus, Status};
use serde_json::json;

use crate::common;

/// Ticks of the fine counter's wrap, and instructions per tick on the
/// mps2-an386 (its 25 MHz timers under `-icount shift=0`).
const FINE_WRAP_TICKS: f64 = (1u64 << 24) as f64;
const INSTRUCTIONS_PER_TICK: f64 = 40.0;

fn instructions(r: &BenchResult) -> f64 {
    pqbench_view::WorkPerOp::of(r).unwrap_or_else(|| panic!("no count: {r:?}")).value()
}

/// SLH-DSA-SHAKE-128f and -SHA2-128s once each, with the Cortex-M4 timing
/// model. The model counts every instruction QEMU runs, by its own means,
/// so its cycles per counted instruction are one figure across a set's
/// operations, whose code is the same hashing: a key generation of 0.5 to 1
/// G instructions, a signature of 7 to 11 G (crossing the fine counter's
/// wraps 10 to 16 times), a verification inside one wrap. One wrap lost or
/// counted twice would put the signature 6 to 9 % away from the others.
#[tokio::test]
async fn the_long_slh_dsa_sets_are_timed_across_the_fine_counter_s_wraps() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let sets = [Algorithm::SlhDsaShake128f, Algorithm::SlhDsaSha2_128s];
    let request = json!({"board": "qemu-mps2-an386", "algorithms": sets.map(Algorithm::as_str),
                         "min_iterations": 1, "min_time_ms": 0});
    let (run, results) = server.run_to_end_within(request, Duration::from_secs(1200)).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(results.len(), 6, "{results:?}");
    for set in sets {
        let of_set: Vec<&BenchResult> = results.iter().filter(|r| r.algorithm == set).collect();
        assert!(of_set.iter().all(|r| r.status == Status::Ok), "{of_set:?}");
        let sign = of_set.iter().find(|r| r.operation == Operation::Sign).unwrap();
        let wraps = instructions(sign) / INSTRUCTIONS_PER_TICK / FINE_WRAP_TICKS;
        assert!(wraps > 10.0, "{set}: its signature crosses the fine counter's wraps ({wraps:.1} of them)");
        let per_instruction: Vec<f64> = of_set
            .iter()
            .map(|r| {
                r.model.as_ref().unwrap_or_else(|| panic!("no estimate: {r:?}")).cycles_per_op
                    / instructions(r)
            })
            .collect();
        let (low, high) = per_instruction.iter().fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        eprintln!(
            "{set}: {wraps:.1} fine wraps a signature; model cycles per instruction {per_instruction:?}"
        );
        assert!(high / low < 1.01, "{set}: cycles per instruction {per_instruction:?}");
    }
}

/// SLH-DSA-SHAKE-128s's signature is read past 2^32 ticks, which no 32-bit
/// count can hold: the count's top bits are the coarse counter's.
#[tokio::test]
#[ignore = "some four minutes: a key generation of 29 G instructions and two signatures of 220 G"]
async fn slh_dsa_shake_128s_s_signature_is_timed_past_two_to_the_32_ticks() {
    pqbench_test_needs::require!(common::firmware_dist());
    let dist = Some(common::dist_without_the_model());
    let server = common::start_server_with(common::ServerOptions { dist, ..Default::default() }).await;
    let request = json!({"board": "qemu-mps2-an386", "algorithms": ["SLH-DSA-SHAKE-128s"],
                         "min_iterations": 1, "min_time_ms": 0});
    let (run, results) = server.run_to_end_within(request, Duration::from_secs(1800)).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert!(results.iter().all(|r| r.status == Status::Ok), "{results:?}");
    let sign = results.iter().find(|r| r.operation == Operation::Sign).unwrap();
    let ticks = instructions(sign) / INSTRUCTIONS_PER_TICK;
    assert!(ticks > (1u64 << 32) as f64, "{sign:?}");
}

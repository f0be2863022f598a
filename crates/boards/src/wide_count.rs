//! Joining two counters of one clock into one exact, wide count: a fine
//! counter that ticks every tick but wraps often, and a coarse one that
//! ticks every so many ticks and all but never wraps.
//!
//! A polled counter's wraps are seen only between readings, so a call that
//! lasts longer than a wrap loses whole wraps. The coarse counter says
//! roughly where the count is; the fine one says exactly where within its
//! wrap. The firmware of the emulated MPS2 boards times with this
//! (`firmware/src/boards/cmsdk_timer.rs`); it lives here, beside the
//! catalogue the firmware already reads, so that it has host tests.

/// The count whose low `bits` bits are `fine` and which lies nearest to
/// `estimate`.
///
/// Exact when the true count is less than half a wrap (`2^(bits-1)`) from
/// `estimate`; past that it is off by whole wraps. Counts are never below
/// zero, so near zero the one candidate that is not gets taken.
pub const fn widen(fine: u64, bits: u32, estimate: u64) -> u64 {
    let wrap = 1u64 << bits;
    // How far above the estimate the next count with these low bits is, in
    // [0, wrap).
    let above = fine.wrapping_sub(estimate) & (wrap - 1);
    if above < wrap / 2 || estimate < wrap - above { estimate + above } else { estimate - (wrap - above) }
}

#[cfg(test)]
mod tests {
    use super::widen;

    const BITS: u32 = 24;
    const WRAP: u64 = 1 << BITS;

    fn fine(count: u64) -> u64 {
        count % WRAP
    }

    #[test]
    fn an_estimate_less_than_half_a_wrap_either_side_gives_the_exact_count() {
        // Counts many wraps in, the way a long signature's end is read.
        for count in [0, 1, 255, WRAP - 1, WRAP, 5_491_022_674, 327 * WRAP + 12_345, u64::MAX / 4] {
            for error in [0i64, 1, -1, 256, -256, (WRAP / 2 - 1) as i64, -((WRAP / 2 - 1) as i64)] {
                let Some(estimate) = count.checked_add_signed(error) else { continue };
                assert_eq!(
                    widen(fine(count), BITS, estimate),
                    count,
                    "count {count}, estimate off by {error}"
                );
            }
        }
    }

    #[test]
    fn near_zero_the_count_is_never_taken_below_zero() {
        // An estimate a little ahead of a count just past zero, and one
        // behind a count just short of a wrap, as right after a restart.
        assert_eq!(widen(10, BITS, 200), 10);
        assert_eq!(widen(WRAP - 10, BITS, 0), WRAP - 10);
    }

    #[test]
    fn an_estimate_more_than_half_a_wrap_off_is_off_by_whole_wraps() {
        // Where the join stops being exact: so the coarse counter must
        // never drift half a fine wrap from the fine one.
        let count = 40 * WRAP + 777;
        let joined = widen(fine(count), BITS, count + WRAP / 2 + 1);
        assert_eq!(joined, count + WRAP);
        let joined = widen(fine(count), BITS, count - (WRAP / 2 + 1));
        assert_eq!(joined, count - WRAP);
    }
}

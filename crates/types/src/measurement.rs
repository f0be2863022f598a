use core::fmt;

use crate::{Algorithm, Failure, KeyFormat, Operation, Status, UnknownName};

/// What one tick of a board's clock is. Only `Cycles` may ever be shown as
/// cycles: an emulator's instruction count is not a Cortex-M cycle count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TickUnit {
    /// CPU cycles from a hardware counter (DWT CYCCNT).
    Cycles,
    /// Nanoseconds of a wall clock (host, browser).
    Nanoseconds,
    /// QEMU under `-icount`: one tick is this many emulated instructions.
    QemuInstructions { per_tick: u32 },
    /// SysTick ticks of an emulated chip's core clock under QEMU's
    /// `-icount shift=0` (one instruction per emulated nanosecond), where a
    /// tick is not a whole number of instructions. Neither cycles nor real time.
    QemuTicks,
}

impl TickUnit {
    const QEMU_PREFIX: &'static str = "qemu-instructions/";

    pub fn parse(text: &str) -> Result<Self, UnknownName> {
        match text {
            "cycles" => Ok(TickUnit::Cycles),
            "ns" => Ok(TickUnit::Nanoseconds),
            "qemu-ticks" => Ok(TickUnit::QemuTicks),
            _ => {
                let per_tick = text
                    .strip_prefix(Self::QEMU_PREFIX)
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|&n| n > 0)
                    .ok_or(UnknownName)?;
                Ok(TickUnit::QemuInstructions { per_tick })
            }
        }
    }
}

impl fmt::Display for TickUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TickUnit::Cycles => f.write_str("cycles"),
            TickUnit::Nanoseconds => f.write_str("ns"),
            TickUnit::QemuTicks => f.write_str("qemu-ticks"),
            TickUnit::QemuInstructions { per_tick } => write!(f, "{}{per_tick}", Self::QEMU_PREFIX),
        }
    }
}

/// As its one spelling (`cycles`, `ns`, ...), read back checked: an upload
/// with a tick unit pqbench does not know is refused as it is read.
#[cfg(feature = "alloc")]
impl serde::Serialize for TickUnit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "alloc")]
impl<'de> serde::Deserialize<'de> for TickUnit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <alloc::borrow::Cow<'de, str>>::deserialize(d)?;
        TickUnit::parse(&text)
            .map_err(|_| serde::de::Error::custom(alloc::format!("unknown tick_unit {:?}", text.as_ref())))
    }
}

/// The clock a board timed with: how many ticks make a second, and what a tick is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub ticks_per_second: u64,
    pub unit: TickUnit,
}

/// One operation as a board measured it: integers only, exactly as counted.
///
/// Timing fields are meaningful only when `status` is [`Status::Ok`];
/// `needed_bytes` says what an operation that does not fit would need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "alloc", derive(serde::Serialize, serde::Deserialize))]
pub struct Measurement {
    pub algorithm: Algorithm,
    pub operation: Operation,
    pub status: Status,
    pub iterations: u32,
    pub total_ticks: u64,
    pub min_ticks: u64,
    pub median_ticks: u64,
    pub max_ticks: u64,
    /// Peak bytes the allocator held during the operation, above what was
    /// held before it started.
    pub heap_bytes: Option<u32>,
    pub heap_allocs: Option<u32>,
    /// Peak stack below the caller's frame, by stack painting: the
    /// operation's own, as pqm4 counts it.
    pub stack_bytes: Option<u32>,
    /// How far below the suite's run loop the stack had reached by the end
    /// of this operation, since its algorithm began: the operation's own
    /// stack, the benchmark's frame holding its keys, messages and outputs,
    /// and the self-test before it. What a board must have free to get
    /// through the operation; `None` where the target does not measure it.
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub stack_depth_bytes: Option<u32>,
    /// Bytes processed by one operation, for throughput (hashes, ciphers).
    pub bytes_per_op: Option<u32>,
    /// For `DoesNotFit`: the RAM the operation is known to need.
    pub needed_bytes: Option<u32>,
    /// Calls timed together in each sample, where one call is quicker than
    /// the clock's resolution (a browser's `performance.now()`): min,
    /// median and max are then per-call means of one batch, rounded down.
    /// `None`: every call was timed on its own.
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub batch: Option<u32>,
    /// The samples' standard deviation (with Bessel's correction), rounded
    /// to whole ticks: with the sample count (`iterations / batch`) and the
    /// mean (`total / iterations`) what a statistical test of two runs
    /// needs, as pqbench keeps no per-call samples. Of batch means where
    /// calls are batched. `None` for fewer than two samples, and from a
    /// board or file that predates it; 0 where every sample was the same
    /// (an emulator counting instructions).
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub stdev_ticks: Option<u64>,
    /// For `Failed`: which self-test failed. `None` from a board or file
    /// that predates it.
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub failure: Option<Failure>,
    /// The samples' 10th, 90th and 99th percentiles by nearest rank (the
    /// ⌈p·n/100⌉-th smallest), each one of the samples as measured. Said
    /// only where it is a sample other than the least and the greatest
    /// (p90 from 10 samples on, p10 from 11, p99 from 100), so that it never
    /// repeats min or max under another name; `None` from fewer, and from a
    /// board or file that predates them.
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub p10_ticks: Option<u64>,
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub p90_ticks: Option<u64>,
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub p99_ticks: Option<u64>,
    /// The form of the key the timed calls were given ([`KeyFormat`]);
    /// `None` where the operation takes no key (a hash) or the producer
    /// does not say.
    #[cfg_attr(feature = "alloc", serde(default, skip_serializing_if = "Option::is_none"))]
    pub key_format: Option<KeyFormat>,
}

impl Measurement {
    /// A measurement that carries no timing: failed, skipped or too large.
    pub const fn untimed(algorithm: Algorithm, operation: Operation, status: Status) -> Self {
        Measurement {
            algorithm,
            operation,
            status,
            iterations: 0,
            total_ticks: 0,
            min_ticks: 0,
            median_ticks: 0,
            max_ticks: 0,
            heap_bytes: None,
            heap_allocs: None,
            stack_bytes: None,
            stack_depth_bytes: None,
            bytes_per_op: None,
            needed_bytes: None,
            batch: None,
            stdev_ticks: None,
            failure: None,
            p10_ticks: None,
            p90_ticks: None,
            p99_ticks: None,
            key_format: None,
        }
    }

    /// Whether the figures can be true: a timed result has iterations and
    /// `min <= p10 <= median <= p90 <= p99 <= max` (of those said),
    /// `total >= iterations * min`; an untimed one has no timing at all.
    pub fn is_consistent(&self) -> bool {
        if self.failure.is_some() && self.status != Status::Failed {
            return false;
        }
        let percentiles = [self.p10_ticks, self.p90_ticks, self.p99_ticks];
        if self.status != Status::Ok {
            return self.iterations == 0 && self.total_ticks == 0 && percentiles.iter().all(Option::is_none);
        }
        // Every sum here saturates: the figures come from a board or a
        // client, and any u64 is one they can send (a debug build would
        // otherwise panic on `u64::MAX + 1` and leave the run unfinished).
        // A batch's mean is rounded down, so a batched total may exceed
        // `iterations * max` by less than a tick per call.
        let rounding = u64::from(self.batch.is_some());
        // No sample lies further than max - min from the mean, so neither
        // can the standard deviation (up to rounding).
        let spread_fits = self
            .stdev_ticks
            .is_none_or(|sd| sd <= self.max_ticks.saturating_sub(self.min_ticks).saturating_add(1));
        // Every percentile said lies in order between min and max, around
        // the median.
        let [p10, p90, p99] = percentiles;
        let ranked = [Some(self.min_ticks), p10, Some(self.median_ticks), p90, p99, Some(self.max_ticks)];
        let said = || ranked.iter().flatten();
        let in_order = said().zip(said().skip(1)).all(|(lower, higher)| lower <= higher);
        self.iterations > 0
            && spread_fits
            && in_order
            && self.batch.is_none_or(|calls| calls > 0 && self.iterations.is_multiple_of(calls))
            && self.total_ticks >= self.min_ticks.saturating_mul(u64::from(self.iterations))
            && self.total_ticks
                <= self.max_ticks.saturating_add(rounding).saturating_mul(u64::from(self.iterations))
    }
}

/// An operation while a board measures it: what the board says between
/// calls, so that a host waiting on a long measurement can tell a board
/// that is busy from one that has died (`measuring` records, see
/// `docs/record-format.md`).
///
/// Times are in the board's own clock: `elapsed_ticks` and `slowest_ticks`
/// in its ticks, `min_time_ms` and `beat_ms` in its milliseconds. A host
/// converts them to its own time only through the pace it sees the board
/// keep, since an emulated board's second is not the host's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measuring {
    pub algorithm: Algorithm,
    pub operation: Operation,
    /// The least time the operation is measured for (the run's
    /// `min_time_ms`); it runs longer where `min_iterations` calls take longer.
    pub min_time_ms: u32,
    /// The most timed board time between two of these records: another
    /// comes once this much more has been timed, at the end of the call
    /// (or batch) that crosses it.
    pub beat_ms: u32,
    /// Calls timed so far; 0 in the record sent before the first.
    pub calls: u32,
    /// Ticks timed so far: the sum of the samples, nothing else.
    pub elapsed_ticks: u64,
    /// The longest sample so far (one call, or one batch of calls timed
    /// together): the longest the board has gone without a chance to speak.
    pub slowest_ticks: u64,
}

impl Measuring {
    /// Whether the figures can be true: nothing timed before the first
    /// call, no sample longer than all of them together, and a beat.
    pub fn is_consistent(&self) -> bool {
        self.beat_ms > 0
            && self.slowest_ticks <= self.elapsed_ticks
            && (self.calls > 0 || self.elapsed_ticks == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(min: u64, median: u64, max: u64, iterations: u32, total: u64) -> Measurement {
        Measurement {
            status: Status::Ok,
            iterations,
            total_ticks: total,
            min_ticks: min,
            median_ticks: median,
            max_ticks: max,
            ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
        }
    }

    #[test]
    fn consistency_is_judged_without_overflow_for_every_size() {
        // Near u64::MAX, batched and with a spread, in a debug build (this
        // test's): each is a judgement, never a panic.
        let edges = [0, 1, u64::MAX / 2, u64::MAX - 1, u64::MAX];
        for &min in &edges {
            for &max in &edges {
                for &total in &edges {
                    for batch in [None, Some(1)] {
                        for stdev in [None, Some(0), Some(u64::MAX)] {
                            let m =
                                Measurement { batch, stdev_ticks: stdev, ..timed(min, min, max, 1, total) };
                            let _ = m.is_consistent();
                        }
                    }
                }
            }
        }
        let huge =
            Measurement { batch: Some(1), stdev_ticks: Some(u64::MAX), ..timed(0, 0, u64::MAX, 1, u64::MAX) };
        assert!(huge.is_consistent(), "one call of u64::MAX ticks with the widest spread is possible");
        let too_long = timed(5, 5, 5, 2, 11);
        assert!(!too_long.is_consistent(), "a total above iterations x max is refused");
        let batched = Measurement { batch: Some(2), ..timed(5, 5, 5, 2, 11) };
        assert!(batched.is_consistent(), "a batch's rounding allows under a tick a call");
    }

    #[test]
    fn percentiles_must_lie_in_order_between_min_and_max() {
        let spread = timed(10, 20, 40, 4, 90);
        let with = |p10, p90, p99| Measurement { p10_ticks: p10, p90_ticks: p90, p99_ticks: p99, ..spread };
        assert!(with(Some(12), Some(30), Some(39)).is_consistent());
        assert!(with(None, Some(30), None).is_consistent(), "each percentile is optional");
        assert!(with(Some(10), Some(20), Some(40)).is_consistent(), "ties are orders too");
        assert!(!with(Some(9), None, None).is_consistent(), "p10 below min");
        assert!(!with(Some(21), None, None).is_consistent(), "p10 above the median");
        assert!(!with(None, Some(19), None).is_consistent(), "p90 below the median");
        assert!(!with(None, Some(35), Some(30)).is_consistent(), "p99 below p90");
        assert!(!with(None, None, Some(41)).is_consistent(), "p99 above max");
        let skipped = Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Skipped);
        assert!(!Measurement { p90_ticks: Some(1), ..skipped }.is_consistent(), "no timing without a run");
    }
}

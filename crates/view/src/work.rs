//! What one operation costs in a board's own count, named for what it is:
//! cycles from a chip's cycle counter, instructions from an emulator, and
//! nothing from a clock that counts time (a browser's, a host's), whose
//! figure is already the time columns'.

use pqbench_types::{BenchResult, TickUnit};

/// One operation's count, in its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorkPerOp {
    /// Core cycles from a hardware counter.
    Cycles(f64),
    /// Instructions an emulator executed (QEMU's `-icount`): not cycles.
    Instructions(f64),
    /// Ticks of an emulated chip's SysTick, not a whole number of
    /// instructions: neither cycles nor time.
    EmulatedTicks(f64),
}

impl WorkPerOp {
    pub fn of(r: &BenchResult) -> Option<WorkPerOp> {
        if let Some(cycles) = r.cycles_per_op {
            return Some(WorkPerOp::Cycles(cycles));
        }
        let ticks = r.ticks_per_op?;
        match TickUnit::parse(r.tick_unit.as_deref()?).ok()? {
            TickUnit::QemuInstructions { per_tick } => {
                Some(WorkPerOp::Instructions(ticks * f64::from(per_tick)))
            }
            TickUnit::QemuTicks => Some(WorkPerOp::EmulatedTicks(ticks)),
            // A cycle counter's count is `cycles_per_op`; a clock of time
            // has no count of work to show.
            TickUnit::Cycles | TickUnit::Nanoseconds => None,
        }
    }

    pub fn value(self) -> f64 {
        match self {
            WorkPerOp::Cycles(v) | WorkPerOp::Instructions(v) | WorkPerOp::EmulatedTicks(v) => v,
        }
    }

    /// The unit as the table shows it after the number.
    pub fn unit(self) -> &'static str {
        match self {
            WorkPerOp::Cycles(_) => "cycles",
            WorkPerOp::Instructions(_) => "instructions",
            WorkPerOp::EmulatedTicks(_) => "emulated ticks",
        }
    }
}

#[cfg(test)]
mod tests {
    use pqbench_types::{Algorithm, Clock, Measurement, Operation, Status};

    use super::*;

    fn measured(clock: Clock) -> BenchResult {
        let m = Measurement {
            iterations: 40,
            total_ticks: 40 * 34_430,
            min_ticks: 34_430,
            median_ticks: 34_430,
            max_ticks: 34_430,
            ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
        };
        BenchResult::from_measurement(&m, &clock)
    }

    #[test]
    fn each_clock_shows_what_it_counts() {
        // The emulator's 34,430 ticks of 40 instructions: 1.38 M instructions.
        let qemu = measured(Clock {
            ticks_per_second: 25_000_000,
            unit: TickUnit::QemuInstructions { per_tick: 40 },
        });
        assert_eq!(WorkPerOp::of(&qemu), Some(WorkPerOp::Instructions(1_377_200.0)));
        let chip = measured(Clock { ticks_per_second: 180_000_000, unit: TickUnit::Cycles });
        assert_eq!(WorkPerOp::of(&chip), Some(WorkPerOp::Cycles(34_430.0)));
        let netduino = measured(Clock { ticks_per_second: 168_000_000, unit: TickUnit::QemuTicks });
        assert_eq!(WorkPerOp::of(&netduino).map(WorkPerOp::unit), Some("emulated ticks"));
        let browser = measured(Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds });
        assert_eq!(WorkPerOp::of(&browser), None, "nanoseconds are time, not work");
    }
}

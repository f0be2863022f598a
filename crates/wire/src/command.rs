//! Host-to-board commands: one line each, `\n`-terminated.
//!
//! ```text
//! hello
//! run min_iterations=10 min_time_ms=1000 algorithms=ML-KEM-768,ML-KEM-512
//! calibrate
//! ```
//!
//! A board answers `hello` with its `hello` record, `run` with a whole run
//! (`hello`, `begin`, ..., `end`; `algorithms` absent means all of them),
//! and `calibrate` with a `calibration` record: its memory probes measuring
//! buffers of known size.

use core::fmt;

use pqbench_types::Algorithm;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Hello,
    Run(RunCommand),
    Calibrate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunCommand {
    pub min_iterations: u32,
    pub min_time_ms: u32,
    /// One bit per entry of [`Algorithm::ALL`] up to [`RUNNABLE_PLACES`]:
    /// a board runs only the suite's algorithms, which are all among the
    /// first places, so the names appended for published logs need none.
    algorithms: u64,
}

/// How many of [`Algorithm::ALL`]'s first entries a run command can name:
/// one bit each of its `u64`. A name past them is still a name (an import
/// stores it) but never one a board is asked to run.
pub const RUNNABLE_PLACES: usize = u64::BITS as usize;

impl RunCommand {
    pub const fn new(min_iterations: u32, min_time_ms: u32) -> Self {
        RunCommand { min_iterations, min_time_ms, algorithms: 0 }
    }

    /// Restricts the run to these algorithms (added to any named before).
    /// An algorithm past the first [`RUNNABLE_PLACES`] is refused, not
    /// dropped: dropping the only one named would run them all.
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Result<Self, CommandError> {
        let bit = Self::bit(algorithm).ok_or(CommandError::NotRunnable)?;
        self.algorithms |= 1 << bit;
        Ok(self)
    }

    /// The algorithm's bit: its place in `ALL` (appending keeps every
    /// existing name's bit), if within the first 64.
    fn bit(algorithm: Algorithm) -> Option<u32> {
        let place = Algorithm::ALL.iter().position(|&a| a == algorithm)?;
        u32::try_from(place).ok().filter(|&bit| bit < u64::BITS)
    }

    /// Whether the run includes `algorithm`; with none named, all are.
    /// An algorithm with no bit is included only then (a board has no
    /// code for one anyway).
    pub fn includes(&self, algorithm: Algorithm) -> bool {
        self.algorithms == 0 || Self::bit(algorithm).is_some_and(|bit| self.algorithms & (1 << bit) != 0)
    }

    pub fn names_algorithms(&self) -> bool {
        self.algorithms != 0
    }
}

/// Why a command line was refused; the board says this back in an `error` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandError {
    UnknownCommand,
    UnknownAlgorithm,
    BadNumber,
    UnknownField,
    /// A name of the vocabulary that no board runs (one appended for
    /// published logs, past a run command's places).
    NotRunnable,
}

impl CommandError {
    pub const fn as_str(self) -> &'static str {
        match self {
            CommandError::UnknownCommand => "unknown command",
            CommandError::UnknownAlgorithm => "unknown algorithm",
            CommandError::BadNumber => "bad number",
            CommandError::UnknownField => "unknown field",
            CommandError::NotRunnable => "algorithm not run on a board",
        }
    }
}

impl Command {
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("hello") => Ok(Command::Hello),
            Some("calibrate") => Ok(Command::Calibrate),
            Some("run") => {
                let mut run = RunCommand::new(1, 0);
                for word in words {
                    let (key, value) = word.split_once('=').ok_or(CommandError::UnknownField)?;
                    let number = || value.parse::<u32>().map_err(|_| CommandError::BadNumber);
                    match key {
                        "min_iterations" => run.min_iterations = number()?,
                        "min_time_ms" => run.min_time_ms = number()?,
                        "algorithms" => {
                            for name in value.split(',').filter(|n| !n.is_empty()) {
                                let algorithm =
                                    Algorithm::from_name(name).map_err(|_| CommandError::UnknownAlgorithm)?;
                                run = run.with_algorithm(algorithm)?;
                            }
                        }
                        _ => return Err(CommandError::UnknownField),
                    }
                }
                Ok(Command::Run(run))
            }
            _ => Err(CommandError::UnknownCommand),
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Hello => f.write_str("hello\n"),
            Command::Calibrate => f.write_str("calibrate\n"),
            Command::Run(run) => {
                write!(f, "run min_iterations={} min_time_ms={}", run.min_iterations, run.min_time_ms)?;
                if run.names_algorithms() {
                    f.write_str(" algorithms=")?;
                    let mut first = true;
                    for &algorithm in Algorithm::ALL.iter().filter(|&&a| run.includes(a)) {
                        if !first {
                            f.write_str(",")?;
                        }
                        first = false;
                        f.write_str(algorithm.as_str())?;
                    }
                }
                f.write_str("\n")
            }
        }
    }
}

#[cfg(all(test, feature = "decode"))]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn run_commands_round_trip() {
        let run = RunCommand::new(5, 250)
            .with_algorithm(Algorithm::MlKem768)
            .and_then(|r| r.with_algorithm(Algorithm::Sha256))
            .unwrap();
        let line = format!("{}", Command::Run(run));
        assert_eq!(line, "run min_iterations=5 min_time_ms=250 algorithms=ML-KEM-768,SHA-256\n");
        assert_eq!(Command::parse(&line), Ok(Command::Run(run)));
        assert!(run.includes(Algorithm::Sha256));
        assert!(!run.includes(Algorithm::MlKem512));
    }

    #[test]
    fn no_algorithms_means_all() {
        let Ok(Command::Run(run)) = Command::parse("run") else { panic!() };
        assert!(Algorithm::ALL.iter().all(|&a| run.includes(a)));
    }

    #[test]
    fn bad_commands_say_why() {
        assert_eq!(Command::parse("reboot"), Err(CommandError::UnknownCommand));
        assert_eq!(Command::parse("run algorithms=Kyber768"), Err(CommandError::UnknownAlgorithm));
        assert_eq!(Command::parse("run min_iterations=-1"), Err(CommandError::BadNumber));
        assert_eq!(Command::parse("run speed=11"), Err(CommandError::UnknownField));
    }

    #[test]
    fn the_first_64_names_keep_their_bits_and_later_ones_have_none() {
        // A bit is a place in `ALL`; names are appended, so the first 64
        // places (the suite's algorithms among them) keep their bits.
        for (place, &algorithm) in Algorithm::ALL.iter().enumerate().take(RUNNABLE_PLACES) {
            assert_eq!(RunCommand::bit(algorithm), u32::try_from(place).ok(), "{algorithm}");
        }
        assert_eq!(RunCommand::bit(Algorithm::MlKem512), Some(0));
        assert_eq!(RunCommand::bit(Algorithm::HmacSha256), Some(22));
        assert_eq!(RunCommand::bit(Algorithm::Falcon1024), Some(62));
        for &algorithm in Algorithm::ALL.iter().skip(RUNNABLE_PLACES) {
            assert_eq!(RunCommand::bit(algorithm), None, "{algorithm}");
        }
    }

    #[test]
    fn a_name_no_board_runs_is_refused_not_dropped() {
        let Some(&past) = Algorithm::ALL.get(RUNNABLE_PLACES) else {
            panic!("the vocabulary has names past a run command's places")
        };
        assert_eq!(RunCommand::new(1, 0).with_algorithm(past), Err(CommandError::NotRunnable));
        let line = format!("run algorithms=ML-KEM-512,{past}");
        assert_eq!(Command::parse(&line), Err(CommandError::NotRunnable));
        assert_eq!(CommandError::NotRunnable.as_str(), "algorithm not run on a board");
        // A run naming others leaves it out; a run naming none has no
        // bit to test, and a board has no code for it anyway.
        let Ok(run) = RunCommand::new(1, 0).with_algorithm(Algorithm::MlKem512) else { panic!() };
        assert!(!run.includes(past));
        assert!(RunCommand::new(1, 0).includes(past));
    }
}

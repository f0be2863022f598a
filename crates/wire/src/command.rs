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
    /// One bit per entry of [`Algorithm::ALL`].
    algorithms: u64,
}

const _: () = assert!(Algorithm::ALL.len() <= 64);

impl RunCommand {
    pub const fn new(min_iterations: u32, min_time_ms: u32) -> Self {
        RunCommand { min_iterations, min_time_ms, algorithms: 0 }
    }

    /// Restricts the run to these algorithms (added to any named before).
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithms |= 1 << Self::bit(algorithm);
        self
    }

    fn bit(algorithm: Algorithm) -> usize {
        Algorithm::ALL.iter().position(|&a| a == algorithm).unwrap_or(0)
    }

    /// Whether the run includes `algorithm`; with none named, all are.
    pub fn includes(&self, algorithm: Algorithm) -> bool {
        self.algorithms == 0 || self.algorithms & (1 << Self::bit(algorithm)) != 0
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
}

impl CommandError {
    pub const fn as_str(self) -> &'static str {
        match self {
            CommandError::UnknownCommand => "unknown command",
            CommandError::UnknownAlgorithm => "unknown algorithm",
            CommandError::BadNumber => "bad number",
            CommandError::UnknownField => "unknown field",
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
                                run = run.with_algorithm(algorithm);
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
        let run =
            RunCommand::new(5, 250).with_algorithm(Algorithm::MlKem768).with_algorithm(Algorithm::Sha256);
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
}

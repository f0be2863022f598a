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
//!
//! A line is at most [`MAX_COMMAND_LINE`] bytes, which a board's buffer
//! holds. A run naming more algorithms than fit by name (the whole
//! catalogue's names are over 400 bytes) names them by their bits instead:
//! `bits=` and each 64-bit word of [`RunCommand`]'s set in hex, lowest
//! first (`run min_iterations=1 min_time_ms=0 bits=3f,0`).

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
    /// One bit per entry of [`Algorithm::ALL`], by its place: names are
    /// appended, so every name keeps its bit as the vocabulary grows.
    algorithms: [u64; RUN_COMMAND_WORDS],
}

/// How many `u64`s hold a bit for every name of [`Algorithm::ALL`].
const RUN_COMMAND_WORDS: usize = Algorithm::ALL.len().div_ceil(u64::BITS as usize);

/// The longest command line a board takes, its newline not counted: the
/// firmware's line buffer and the probe's mailbox. A longer line would be
/// cut, and a cut list of names read as fewer algorithms.
pub const MAX_COMMAND_LINE: usize = 252;

impl RunCommand {
    pub const fn new(min_iterations: u32, min_time_ms: u32) -> Self {
        RunCommand { min_iterations, min_time_ms, algorithms: [0; RUN_COMMAND_WORDS] }
    }

    /// Restricts the run to these algorithms (added to any named before).
    /// Every name has a bit; whether a board has code for it is the
    /// board's to say (`CommandError::NotRunnable`), not the command's.
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Result<Self, CommandError> {
        let (word, bit) = Self::bit(algorithm).ok_or(CommandError::UnknownAlgorithm)?;
        self.algorithms[word] |= 1 << bit;
        Ok(self)
    }

    /// The algorithm's word and bit: its place in `ALL`, so appending a
    /// name keeps every existing name's bit. Only a value outside `ALL`
    /// (none can be made) has none.
    fn bit(algorithm: Algorithm) -> Option<(usize, u32)> {
        let place = Algorithm::ALL.iter().position(|&a| a == algorithm)?;
        let bits = u64::BITS as usize;
        Some((place / bits, (place % bits) as u32))
    }

    /// Whether the run includes `algorithm`; with none named, all are.
    pub fn includes(&self, algorithm: Algorithm) -> bool {
        !self.names_algorithms()
            || Self::bit(algorithm).is_some_and(|(word, bit)| self.algorithms[word] & (1 << bit) != 0)
    }

    pub fn names_algorithms(&self) -> bool {
        self.algorithms.iter().any(|&word| word != 0)
    }

    /// Adds the algorithms of a `bits=` value: a word per 64 names, in hex,
    /// lowest first. A bit past the vocabulary's last name, or a word past
    /// its last word, is an unknown algorithm.
    fn add_bits(&mut self, value: &str) -> Result<(), CommandError> {
        for (index, word) in value.split(',').enumerate() {
            let word = u64::from_str_radix(word, 16).map_err(|_| CommandError::BadNumber)?;
            let Some(slot) = self.algorithms.get_mut(index) else {
                return if word == 0 { Ok(()) } else { Err(CommandError::UnknownAlgorithm) };
            };
            let names = Algorithm::ALL.len().saturating_sub(index * u64::BITS as usize);
            if names < u64::BITS as usize && word >> names != 0 {
                return Err(CommandError::UnknownAlgorithm);
            }
            *slot |= word;
        }
        Ok(())
    }

    /// The `algorithms=` list's length in bytes.
    fn names_len(&self) -> usize {
        let names: usize = self.named().map(|a| a.as_str().len()).sum();
        names + self.named().count().saturating_sub(1)
    }

    /// The algorithms the command names, in the vocabulary's order; none
    /// when it names none (a run of all of them).
    pub fn named(&self) -> impl Iterator<Item = Algorithm> + '_ {
        let named = self.names_algorithms();
        Algorithm::ALL.iter().copied().filter(move |&a| named && self.includes(a))
    }
}

/// Why a command line was refused; the board says this back in an `error` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandError {
    UnknownCommand,
    UnknownAlgorithm,
    BadNumber,
    UnknownField,
    /// A name of the vocabulary this board's suite does not run (one
    /// kept for published logs, or one a newer suite added).
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
                        "bits" => run.add_bits(value)?,
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
                let head_len = "run min_iterations= min_time_ms=".len()
                    + decimal_len(run.min_iterations)
                    + decimal_len(run.min_time_ms);
                write!(f, "run min_iterations={} min_time_ms={}", run.min_iterations, run.min_time_ms)?;
                if run.names_algorithms()
                    && head_len + " algorithms=".len() + run.names_len() > MAX_COMMAND_LINE
                {
                    // Too many names for a board's line: their bits, at
                    // most 17 bytes a word.
                    f.write_str(" bits=")?;
                    for (index, word) in run.algorithms.iter().enumerate() {
                        if index > 0 {
                            f.write_str(",")?;
                        }
                        write!(f, "{word:x}")?;
                    }
                } else if run.names_algorithms() {
                    f.write_str(" algorithms=")?;
                    let mut first = true;
                    for algorithm in run.named() {
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

/// How many digits `n` has in decimal.
fn decimal_len(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |digits| digits as usize + 1)
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
    fn every_name_has_a_bit_and_the_first_64_keep_theirs() {
        // A bit is a place in `ALL`; names are appended, so the first 64
        // (the only ones an older board's one-word command had) keep
        // their bits, and the line a command prints is the same.
        for (place, &algorithm) in Algorithm::ALL.iter().enumerate() {
            let bits = u64::BITS as usize;
            assert_eq!(
                RunCommand::bit(algorithm),
                Some((place / bits, (place % bits) as u32)),
                "{algorithm}"
            );
        }
        assert_eq!(RunCommand::bit(Algorithm::MlKem512), Some((0, 0)));
        assert_eq!(RunCommand::bit(Algorithm::HmacSha256), Some((0, 22)));
        assert_eq!(RunCommand::bit(Algorithm::Falcon1024), Some((0, 62)));
        assert_eq!(RunCommand::bit(Algorithm::SphincsPlus128s), Some((1, 0)));
    }

    #[test]
    fn a_run_of_more_names_than_a_line_holds_is_sent_by_its_bits() {
        // Every name: over 1,000 bytes by name.
        let every =
            Algorithm::ALL.iter().try_fold(RunCommand::new(10, 1000), |r, &a| r.with_algorithm(a)).unwrap();
        let line = format!("{}", Command::Run(every));
        assert!(line.len() <= MAX_COMMAND_LINE + 1, "{line}");
        assert!(line.starts_with("run min_iterations=10 min_time_ms=1000 bits="), "{line}");
        assert_eq!(Command::parse(&line), Ok(Command::Run(every)));
        assert_eq!(every.named().count(), Algorithm::ALL.len());
        // The longest list that still fits goes by name, one more by bits.
        let mut run = RunCommand::new(u32::MAX, u32::MAX);
        let mut by_name = None;
        for &algorithm in Algorithm::ALL {
            run = run.with_algorithm(algorithm).unwrap();
            let line = format!("{}", Command::Run(run));
            assert!(line.len() <= MAX_COMMAND_LINE + 1, "{line}");
            assert_eq!(Command::parse(&line), Ok(Command::Run(run)), "{line}");
            if line.contains(" algorithms=") {
                by_name = Some(line.len());
            }
        }
        assert!(by_name.is_some_and(|len| len > MAX_COMMAND_LINE - 24), "{by_name:?}");
        // A bit for no name, a word too many, or no hex: refused.
        let words = RUN_COMMAND_WORDS;
        let past = Algorithm::ALL.len() % 64;
        assert!(past != 0, "the last word has a bit for no name to test");
        let mut bits = alloc::vec![alloc::string::String::from("0"); words];
        bits[words - 1] = format!("{:x}", 1u64 << past);
        let line = format!("run bits={}", bits.join(","));
        assert_eq!(Command::parse(&line), Err(CommandError::UnknownAlgorithm));
        assert_eq!(
            Command::parse(&format!("run bits={}", ["1"; 8].join(","))),
            Err(CommandError::UnknownAlgorithm)
        );
        assert_eq!(Command::parse("run bits=xyz"), Err(CommandError::BadNumber));
    }

    #[test]
    fn a_name_past_the_first_64_is_named_and_round_trips() {
        let Some(&last) = Algorithm::ALL.last() else { panic!("the vocabulary has names") };
        let run = RunCommand::new(1, 0)
            .with_algorithm(Algorithm::MlKem512)
            .and_then(|r| r.with_algorithm(last))
            .unwrap();
        assert!(run.includes(last) && run.includes(Algorithm::MlKem512));
        assert!(!run.includes(Algorithm::MlKem768));
        assert_eq!(run.named().collect::<alloc::vec::Vec<_>>(), [Algorithm::MlKem512, last]);
        let line = format!("{}", Command::Run(run));
        assert_eq!(line, format!("run min_iterations=1 min_time_ms=0 algorithms=ML-KEM-512,{last}\n"));
        assert_eq!(Command::parse(&line), Ok(Command::Run(run)));
        assert_eq!(RunCommand::new(1, 0).named().count(), 0, "a run of all names none");
        assert_eq!(CommandError::NotRunnable.as_str(), "algorithm not run on a board");
    }
}

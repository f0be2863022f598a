//! The plugin's options, as QEMU passes them (`-plugin LIB,KEY=VALUE,...`),
//! and the hashing code's address ranges one of them names.

use std::path::PathBuf;

use pqbench_m4_model::Config;

/// The plugin's options: `-plugin LIB,KEY=VALUE,...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub config: Config,
    /// Where the counts are written at exit; QEMU's log without it.
    pub out: Option<PathBuf>,
    /// A file of the hashing code's address ranges, a line each (`start
    /// end`, hexadecimal, end exclusive): each sample then says its cycles
    /// there.
    pub hashing: Option<PathBuf>,
}

/// Why the plugin's options were refused (QEMU prints it and stops).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("{0:?} is not KEY=VALUE")]
    NotKeyValue(String),
    #[error("{key}={value:?}: not a whole number")]
    NotANumber { key: String, value: String },
    #[error("no option {0:?} (out, refill, divide, wait_states, hashing)")]
    Unknown(String),
    #[error("reading the hashing ranges {path}: {why}")]
    Ranges { path: String, why: String },
}

/// Address ranges, sorted, each `start..end`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranges(Vec<(u32, u32)>);

impl Ranges {
    /// Lines of `start end` in hexadecimal; blank lines are skipped.
    pub fn parse(text: &str) -> Result<Ranges, String> {
        let mut ranges = Vec::new();
        for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let hex = |w: Option<&str>| w.and_then(|w| u32::from_str_radix(w, 16).ok());
            let mut words = line.split_whitespace();
            match (hex(words.next()), hex(words.next()), words.next()) {
                (Some(start), Some(end), None) if start < end => ranges.push((start, end)),
                _ => return Err(format!("line {}: {line:?} is not `start end` in hexadecimal", number + 1)),
            }
        }
        ranges.sort_unstable();
        Ok(Ranges(ranges))
    }

    pub fn contains(&self, address: u32) -> bool {
        let index = self.0.partition_point(|(start, _)| *start <= address);
        index.checked_sub(1).is_some_and(|i| address < self.0[i].1)
    }
}

impl Options {
    pub fn parse<'a>(args: impl IntoIterator<Item = &'a str>) -> Result<Options, OptionsError> {
        let mut options = Options { config: Config::default(), out: None, hashing: None };
        for arg in args {
            let (key, value) = arg.split_once('=').ok_or_else(|| OptionsError::NotKeyValue(arg.into()))?;
            let number = || {
                value
                    .parse::<u32>()
                    .map_err(|_| OptionsError::NotANumber { key: key.into(), value: value.into() })
            };
            match key {
                "out" => options.out = Some(PathBuf::from(value)),
                "refill" => options.config.refill = number()?,
                "divide" => options.config.divide = number()?,
                "wait_states" => options.config.flash_wait_states = number()?,
                "hashing" => options.hashing = Some(PathBuf::from(value)),
                _ => return Err(OptionsError::Unknown(key.into())),
            }
        }
        Ok(options)
    }
}

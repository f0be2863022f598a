//! The counts file the QEMU plugin writes as the emulated board runs, and
//! its reader: for each operation the suite measures (the marks of
//! `pqbench_suite::Mark`), the estimated cycles and instructions of each of
//! its samples and the cycles spent at each instruction address during
//! them; at exit, the run's totals.
//!
//! ```text
//! operation
//! sample 28101 15733 9120
//! sample 28101 15733 9120
//! at 00004a10 120
//! at 00004a12 60
//! end
//! m4-model-cycles 981245
//! instructions 611093
//! ```
//!
//! A sample's third figure, where the plugin was given the hashing code's
//! addresses (`hashing=FILE`), is the cycles of the sample spent there: a
//! share per call, as pqm4's profiling build measures it, rather than only
//! over the whole operation.
//!
//! A block is written whole and flushed at the operation's end mark, which
//! the board executes before it sends the operation's record, so the
//! record's host finds the block complete when the record arrives.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// One measured operation, as the model saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationCounts {
    /// Each sample's (estimated cycles, instructions), in the order run.
    pub samples: Vec<Sample>,
    /// Estimated cycles by instruction address, over the samples alone;
    /// ascending addresses.
    pub at: Vec<(u32, u64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub cycles: u64,
    pub instructions: u64,
    /// Of `cycles`, those spent in the hashing code, where it was named.
    pub hashing: Option<u64>,
}

impl OperationCounts {
    /// The block as the plugin writes it.
    pub fn render(&self) -> String {
        let mut text = String::from("operation\n");
        for sample in &self.samples {
            let _ = write!(text, "sample {} {}", sample.cycles, sample.instructions);
            if let Some(hashing) = sample.hashing {
                let _ = write!(text, " {hashing}");
            }
            text.push('\n');
        }
        for (address, cycles) in &self.at {
            let _ = writeln!(text, "at {address:08x} {cycles}");
        }
        text.push_str("end\n");
        text
    }
}

/// What is wrong with a counts file, by line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    pub line: usize,
    pub text: String,
}

impl core::fmt::Display for Malformed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "the timing model's counts, line {}: {:?} is not a line of its format",
            self.line, self.text
        )
    }
}

impl core::error::Error for Malformed {}

/// Reads the blocks of a counts file as it grows: feed it what was
/// appended, take the blocks completed so far.
#[derive(Debug, Default)]
pub struct Reader {
    pending: String,
    line: usize,
    open: Option<OperationCounts>,
    /// The totals line (`m4-model-cycles N`) at exit, once read.
    pub total_cycles: Option<u64>,
    pub total_instructions: Option<u64>,
}

impl Reader {
    pub fn new() -> Reader {
        Reader::default()
    }

    /// Takes `text` (the file's next bytes, any split) and returns the
    /// operations it completed.
    pub fn feed(&mut self, text: &str) -> Result<Vec<OperationCounts>, Malformed> {
        self.pending.push_str(text);
        let mut done = Vec::new();
        let Some(last_newline) = self.pending.rfind('\n') else { return Ok(done) };
        let complete: String = self.pending.drain(..=last_newline).collect();
        for line in complete.lines() {
            self.line += 1;
            self.read_line(line, &mut done)?;
        }
        Ok(done)
    }

    fn read_line(&mut self, line: &str, done: &mut Vec<OperationCounts>) -> Result<(), Malformed> {
        let malformed = || Malformed { line: self.line, text: String::from(line) };
        let mut words = line.split(' ');
        let number = |word: Option<&str>| word.and_then(|w| w.parse::<u64>().ok());
        match (words.next(), &mut self.open) {
            (Some("operation"), _) => self.open = Some(OperationCounts::default()),
            (Some("sample"), Some(open)) => {
                let (cycles, instructions) = (number(words.next()), number(words.next()));
                let (Some(cycles), Some(instructions)) = (cycles, instructions) else {
                    return Err(malformed());
                };
                let hashing = match words.next() {
                    None => None,
                    Some(word) => Some(number(Some(word)).filter(|h| *h <= cycles).ok_or_else(malformed)?),
                };
                open.samples.push(Sample { cycles, instructions, hashing });
            }
            (Some("at"), Some(open)) => {
                let address = words.next().and_then(|w| u32::from_str_radix(w, 16).ok());
                let (Some(address), Some(cycles)) = (address, number(words.next())) else {
                    return Err(malformed());
                };
                open.at.push((address, cycles));
            }
            (Some("end"), Some(_)) => done.extend(self.open.take()),
            (Some("m4-model-cycles"), None) => {
                self.total_cycles = Some(number(words.next()).ok_or_else(malformed)?)
            }
            (Some("instructions"), None) => {
                self.total_instructions = Some(number(words.next()).ok_or_else(malformed)?)
            }
            _ => return Err(malformed()),
        }
        if words.next().is_some() {
            return Err(malformed());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;

    #[test]
    fn blocks_are_read_back_whole_however_the_file_is_split() {
        let block = OperationCounts {
            samples: vec![
                Sample { cycles: 28101, instructions: 15733, hashing: Some(9120) },
                Sample { cycles: 28099, instructions: 15731, hashing: None },
            ],
            at: vec![(0x4a10, 120), (0x0800_0000, 60)],
        };
        let text = alloc::format!("{}{}m4-model-cycles 9\ninstructions 5\n", block.render(), block.render());
        for split in 0..text.len() {
            let mut reader = Reader::new();
            let mut blocks = reader.feed(&text[..split]).unwrap();
            blocks.extend(reader.feed(&text[split..]).unwrap());
            assert_eq!(blocks, vec![block.clone(), block.clone()], "split at {split}");
            assert_eq!((reader.total_cycles, reader.total_instructions), (Some(9), Some(5)));
        }
    }

    #[test]
    fn a_block_still_open_is_not_returned() {
        let mut reader = Reader::new();
        assert_eq!(reader.feed("operation\nsample 1 1\n").unwrap(), vec![]);
        assert_eq!(reader.feed("end\n").unwrap().len(), 1);
    }

    #[test]
    fn a_wrong_line_is_an_error_that_names_it() {
        for bad in [
            "sample 1\n",
            "operation\nsample x 1\n",
            "operation\nat zz 1\n",
            "end\n",
            "sample 1 2 3\n",
            "operation\nsample 10 2 11\n",
            "operation\nsample 10 2 3 4\n",
            "hello\n",
        ] {
            assert!(Reader::new().feed(bad).is_err(), "{bad:?}");
        }
        let error = Reader::new().feed("operation\nsample 1 2\nat 12 x\n").unwrap_err();
        assert_eq!(error.line, 3);
    }
}

//! Where a build's words go, when several builds run at once.

use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::run;

/// Where a build's words go: straight to the terminal, or kept and printed
/// whole when its image is done, as lanes building at once would otherwise
/// interleave their lines.
pub enum Log {
    Live,
    Kept(String),
}

impl Log {
    pub fn say(&mut self, words: &str) {
        match self {
            Log::Live => eprintln!("{words}"),
            Log::Kept(kept) => {
                kept.push_str(words);
                kept.push('\n');
            }
        }
    }

    pub fn run(&mut self, command: &mut Command) -> Result<()> {
        let Log::Kept(kept) = self else { return run(command) };
        let output = command.output().with_context(|| format!("starting {command:?}"))?;
        kept.push_str(&String::from_utf8_lossy(&output.stdout));
        kept.push_str(&String::from_utf8_lossy(&output.stderr));
        if !output.status.success() {
            bail!("{command:?} failed: {}", output.status);
        }
        Ok(())
    }
}

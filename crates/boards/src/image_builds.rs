//! The firmware images a build is still making, so that a server started
//! before them can say so. `cargo xtask dev` serves the dashboard as soon as
//! the emulated board's default image is built and builds every other image
//! afterwards, one at a time; it keeps [`FILE`] beside the images up to date,
//! and the board side reads it to list a board as "building" (with how far
//! the build is) rather than as missing its image.
//!
//! The file is text, one line per image, in build order:
//!
//! ```text
//! pid 41230
//! built mps2-an386.elf
//! building mps2-an386-opt-z.elf
//! waiting nucleo-f446ze.elf
//! ```
//!
//! `pid` is the builder's process: a reader treats the file as stale when
//! that process is gone (a build stopped with Ctrl-C leaves the file
//! behind). An image is moved into place whole once built, so a reader
//! never sees half an image.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// The file's name, in the firmware directory.
pub const FILE: &str = "building.txt";

/// Where one image is in the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageState {
    /// Queued behind others.
    Waiting,
    /// Being compiled now.
    Building,
    Built,
    /// An optional variant that does not fit its chip: built, and left out.
    NotOffered,
    /// The build failed; its output says why.
    Failed,
}

impl ImageState {
    const ALL: [ImageState; 5] = [
        ImageState::Waiting,
        ImageState::Building,
        ImageState::Built,
        ImageState::NotOffered,
        ImageState::Failed,
    ];

    pub const fn word(self) -> &'static str {
        match self {
            ImageState::Waiting => "waiting",
            ImageState::Building => "building",
            ImageState::Built => "built",
            ImageState::NotOffered => "not-offered",
            ImageState::Failed => "failed",
        }
    }

    /// Whether the build has not yet reached its end for this image.
    pub const fn pending(self) -> bool {
        matches!(self, ImageState::Waiting | ImageState::Building)
    }
}

/// One image and its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageBuild {
    /// Its file name in the firmware directory ([`crate::Board::image_file`]).
    pub file: String,
    pub state: ImageState,
}

/// The whole build, as [`FILE`] holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageBuilds {
    /// The builder's process id.
    pub pid: Option<u32>,
    /// In build order.
    pub images: Vec<ImageBuild>,
}

/// A line of [`FILE`] that is not one of its forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based.
    pub line: usize,
    pub text: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} line {}: {:?} is neither `pid N` nor `STATE IMAGE.elf`", FILE, self.line, self.text)
    }
}

impl core::error::Error for ParseError {}

impl ImageBuilds {
    /// A build of `files`, in that order, all waiting.
    pub fn queue<'f>(pid: u32, files: impl IntoIterator<Item = &'f str>) -> ImageBuilds {
        let images = files
            .into_iter()
            .map(|file| ImageBuild { file: file.to_string(), state: ImageState::Waiting })
            .collect();
        ImageBuilds { pid: Some(pid), images }
    }

    pub fn parse(text: &str) -> Result<ImageBuilds, ParseError> {
        let mut builds = ImageBuilds::default();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || ParseError { line: index + 1, text: line.to_string() };
            let (word, rest) = line.split_once(' ').ok_or_else(bad)?;
            let rest = rest.trim();
            if word == "pid" {
                builds.pid = Some(rest.parse().map_err(|_| bad())?);
                continue;
            }
            let state = ImageState::ALL.into_iter().find(|s| s.word() == word).ok_or_else(bad)?;
            // A file name of the firmware directory, nothing that leaves it.
            if !rest.ends_with(".elf") || rest.contains(['/', '\\', ' ']) {
                return Err(bad());
            }
            builds.images.push(ImageBuild { file: rest.to_string(), state });
        }
        Ok(builds)
    }

    pub fn render(&self) -> String {
        let mut text = String::new();
        if let Some(pid) = self.pid {
            let _ = writeln!(text, "pid {pid}");
        }
        for image in &self.images {
            let _ = writeln!(text, "{} {}", image.state.word(), image.file);
        }
        text
    }

    pub fn state_of(&self, file: &str) -> Option<ImageState> {
        self.images.iter().find(|image| image.file == file).map(|image| image.state)
    }

    pub fn set(&mut self, file: &str, state: ImageState) {
        if let Some(image) = self.images.iter_mut().find(|image| image.file == file) {
            image.state = state;
        }
    }

    /// Images whose build has ended, whatever its end.
    pub fn done(&self) -> usize {
        self.images.iter().filter(|image| !image.state.pending()).count()
    }

    /// The image being compiled now.
    pub fn current(&self) -> Option<&str> {
        self.images.iter().find(|image| image.state == ImageState::Building).map(|image| image.file.as_str())
    }

    /// Whether every image's build has ended.
    pub fn finished(&self) -> bool {
        self.images.iter().all(|image| !image.state.pending())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_rendered_parses_back() {
        let mut builds = ImageBuilds::queue(7, ["a.elf", "b-opt-z.elf", "c.elf", "d.elf", "e.elf"]);
        builds.set("a.elf", ImageState::Built);
        builds.set("b-opt-z.elf", ImageState::Building);
        builds.set("d.elf", ImageState::NotOffered);
        builds.set("e.elf", ImageState::Failed);
        let parsed = ImageBuilds::parse(&builds.render()).unwrap();
        assert_eq!(parsed, builds);
        assert_eq!(parsed.done(), 3);
        assert_eq!(parsed.current(), Some("b-opt-z.elf"));
        assert_eq!(parsed.state_of("c.elf"), Some(ImageState::Waiting));
        assert_eq!(parsed.state_of("z.elf"), None);
        assert!(!parsed.finished());
    }

    #[test]
    fn a_line_of_another_form_is_refused_with_its_number() {
        for bad in ["pid x", "done a.elf", "built ../a.elf", "built a.bin", "built", "waiting a b.elf"] {
            let text = alloc::format!("pid 1\n\n{bad}\n");
            let error = ImageBuilds::parse(&text).unwrap_err();
            assert_eq!(error.line, 3, "{bad}");
        }
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let builds = ImageBuilds::parse("# made by cargo xtask dev\n\nbuilt a.elf\n").unwrap();
        assert_eq!(builds.pid, None);
        assert!(builds.finished());
    }
}

//! Checked names, in one place: a value of these types is valid by
//! construction, so a function that takes one never checks it again, and
//! JSON that holds an invalid one is refused as it is deserialised, with
//! the reason.
//!
//! - [`BoardId`]: a board's id as the API, the store and the agents carry
//!   it, at most [`MAX_BOARD_ID_LEN`] bytes of label text.
//! - [`HostName`]: an agent's host name, the first part of its boards' ids.
//! - [`check_label`] (`text.rs`): what any label may hold (board ids, build
//!   texts, notes, report titles, board names an import reads): no
//!   controls, bidirectional overrides or invisible characters.
//!
//! `no_std` with `alloc`, as the dashboard and the browser benchmark use
//! them too.

#![no_std]

extern crate alloc;

use alloc::string::String;
use core::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod text;

pub use text::{Forbidden, LabelError, check_characters, check_label, forbidden};

/// The longest board id: an agent's host name, a slash and a serial port's
/// stable path (`/dev/serial/by-id/usb-STMicroelectronics_STLINK-V3_...`)
/// fit well within it.
pub const MAX_BOARD_ID_LEN: usize = 256;

/// The longest host name an agent may give: it is shown on the dashboard
/// and is the first part of its boards' ids.
pub const MAX_HOST_LEN: usize = 64;

/// Why a board id was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardIdError {
    #[error("a board id is 1 to {MAX_BOARD_ID_LEN} bytes, not {0}")]
    Length(usize),
    #[error("a board id {0}")]
    Characters(LabelError),
}

/// A board's id: 1 to [`MAX_BOARD_ID_LEN`] bytes of label text (no
/// controls, bidirectional overrides or invisible characters: two ids that
/// look alike are alike).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoardId(String);

impl BoardId {
    pub fn new(id: impl Into<String>) -> Result<BoardId, BoardIdError> {
        let id = id.into();
        if id.is_empty() || id.len() > MAX_BOARD_ID_LEN {
            return Err(BoardIdError::Length(id.len()));
        }
        check_characters(&id).map_err(BoardIdError::Characters)?;
        Ok(BoardId(id))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Why a host name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostNameError {
    #[error("a host name is 1 to {MAX_HOST_LEN} characters")]
    Length,
    #[error("host name {0:?}: only letters, digits, '-', '_' and '.'")]
    Characters(String),
}

/// An agent's host name: 1 to [`MAX_HOST_LEN`] ASCII letters, digits, `-`,
/// `_` and `.`, so that it reads the same in a URL, a board id and a log.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostName(String);

impl HostName {
    pub fn new(host: impl Into<String>) -> Result<HostName, HostNameError> {
        let host = host.into();
        if host.is_empty() || host.len() > MAX_HOST_LEN {
            return Err(HostNameError::Length);
        }
        if !host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')) {
            return Err(HostNameError::Characters(host));
        }
        Ok(HostName(host))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Display, `AsRef<str>`, and serde as a string checked on the way in.
macro_rules! text_type {
    ($name:ident) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::new(text).map_err(serde::de::Error::custom)
            }
        }
    };
}

text_type!(BoardId);
text_type!(HostName);

#[cfg(test)]
mod tests;

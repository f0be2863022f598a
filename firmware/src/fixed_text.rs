//! Text formatted into a fixed buffer, without the heap: for fault messages
//! (the heap may be what failed) and for values a defmt message carries as
//! `str` but that exist only as `Display`.

use core::fmt;

pub struct FixedText<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> FixedText<N> {
    pub const fn new() -> Self {
        FixedText { bytes: [0; N], len: 0 }
    }

    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("unprintable text")
    }
}

impl<const N: usize> fmt::Write for FixedText<N> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        // Cut at a character boundary when full rather than fail.
        for c in text.chars() {
            let mut utf8 = [0; 4];
            let encoded = c.encode_utf8(&mut utf8).as_bytes();
            if self.len + encoded.len() > N {
                break;
            }
            self.bytes[self.len..self.len + encoded.len()].copy_from_slice(encoded);
            self.len += encoded.len();
        }
        Ok(())
    }
}

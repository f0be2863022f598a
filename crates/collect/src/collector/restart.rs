//! A board that booted again mid-run, seen by its boot banner.

/// The start of the line the bundled firmware writes when it boots
/// (`firmware/src/report/text.rs`, and `frames.rs` for defmt). Once the
/// board has answered `hello`, seeing it again means the board restarted.
pub const BOOT_BANNER: &str = "pqbench firmware on ";

/// Finds [`BOOT_BANNER`] in a byte stream, across the chunks it comes in.
#[derive(Default)]
pub(super) struct BannerScan {
    /// The end of the previous chunk, which may hold the banner's start.
    tail: Vec<u8>,
}

impl BannerScan {
    /// Whether the banner ends in these bytes.
    pub(super) fn scan(&mut self, bytes: &[u8]) -> bool {
        let banner = BOOT_BANNER.as_bytes();
        self.tail.extend_from_slice(bytes);
        let found = self.tail.windows(banner.len()).any(|w| w == banner);
        let keep = self.tail.len().min(banner.len() - 1);
        self.tail.drain(..self.tail.len() - keep);
        found
    }
}

//! The GNU build-id the linker wrote into this image (`--build-id=sha1`,
//! kept in flash by build.rs's linker script). The board sends it in
//! `hello` so the host can refuse to decode defmt frames with the ELF of
//! another build, whose string tables would misread them.

use core::fmt::Write as _;

use crate::fixed_text::FixedText;

unsafe extern "C" {
    /// Bounds of the `.note.gnu.build-id` section (build.rs).
    static __build_id_note_start: u8;
    static __build_id_note_end: u8;
}

const NT_GNU_BUILD_ID: u32 = 3;
const NOTE_NAME: &[u8] = b"GNU\0";

/// The id in lowercase hex, as `readelf -n` shows it; empty if the image
/// has no such note, which the host then cannot match with any ELF.
pub fn hex() -> FixedText<64> {
    let mut text = FixedText::new();
    for byte in id() {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

fn id() -> &'static [u8] {
    let start = &raw const __build_id_note_start;
    let end = &raw const __build_id_note_end;
    let len = (end as usize).saturating_sub(start as usize);
    // SAFETY: the linker script puts the two symbols around the note, in
    // flash, which nothing writes while the image runs.
    let note = unsafe { core::slice::from_raw_parts(start, len) };
    descriptor(note).unwrap_or(&[])
}

/// An ELF note is its name's size, its descriptor's size and its type (one
/// little-endian u32 each), then the name and the descriptor, each padded
/// to 4 bytes. A build-id note's name is "GNU\0" and its descriptor the id.
fn descriptor(note: &[u8]) -> Option<&[u8]> {
    let word =
        |at: usize| -> Option<u32> { Some(u32::from_le_bytes(note.get(at..at + 4)?.try_into().ok()?)) };
    let (name_len, id_len, kind) = (word(0)? as usize, word(4)? as usize, word(8)?);
    if kind != NT_GNU_BUILD_ID || note.get(12..12 + name_len)? != NOTE_NAME {
        return None;
    }
    note.get(12 + name_len.next_multiple_of(4)..)?.get(..id_len)
}

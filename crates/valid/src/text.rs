//! What a label may hold: text a person reads in a table cell, a chart, a
//! badge or a log line, written by someone who may not be friendly.
//!
//! A label (a board's id, a build's texts, a note, a report's title, a
//! board name an import reads) is refused when it holds a character that
//! would make it read other than it is:
//! - C0 and C1 controls (`char::is_control`): they break lines and logs,
//!   and most of them are not XML 1.0, so an SVG holding one is ill-formed;
//! - bidirectional controls (U+202A..U+202E, U+2066..U+2069, U+200E,
//!   U+200F, U+061C): they reorder what follows them, so `board-1\u{202E}`
//!   shows as another name (CVE-2021-42574's "Trojan Source");
//! - invisible characters (zero-width space, joiners, word joiner,
//!   invisible operators, the byte-order mark, soft hyphen, Mongolian vowel
//!   separator, tag characters): two labels that look the same would differ;
//! - line and paragraph separators (U+2028, U+2029): a label is one line;
//! - noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF): not for interchange,
//!   and U+FFFE and U+FFFF are not XML 1.0.
//!
//! Everything else is taken, in any script, emoji included (those that
//! need a zero-width joiner show as their parts).

/// Why a character may not stand in a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbidden {
    Control,
    Bidi,
    Invisible,
    LineBreak,
    Noncharacter,
}

impl Forbidden {
    /// What a character of this kind is, for an error message.
    pub const fn describe(self) -> &'static str {
        match self {
            Forbidden::Control => "a control character",
            Forbidden::Bidi => "a bidirectional control",
            Forbidden::Invisible => "an invisible character",
            Forbidden::LineBreak => "a line break",
            Forbidden::Noncharacter => "a Unicode noncharacter",
        }
    }
}

/// Why `c` may not stand in a label, or `None` where it may.
pub fn forbidden(c: char) -> Option<Forbidden> {
    if c.is_control() {
        return Some(Forbidden::Control);
    }
    match c {
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            Some(Forbidden::Bidi)
        }
        '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' => {
            Some(Forbidden::Invisible)
        }
        '\u{E0000}'..='\u{E007F}' => Some(Forbidden::Invisible),
        '\u{2028}' | '\u{2029}' => Some(Forbidden::LineBreak),
        '\u{FDD0}'..='\u{FDEF}' => Some(Forbidden::Noncharacter),
        c if (c as u32) & 0xFFFE == 0xFFFE => Some(Forbidden::Noncharacter),
        _ => None,
    }
}

/// Why a label was refused: its length, or the first character it may not
/// hold (by code point, as the character itself may not show).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    #[error("is empty")]
    Empty,
    #[error("is {len} bytes, more than {max}")]
    TooLong { max: usize, len: usize },
    #[error("holds {} (U+{code:04X}) at byte {at}", kind.describe())]
    Holds { kind: Forbidden, at: usize, code: u32 },
}

/// Checks that `text` is a label of 1 to `max` bytes (see the module's
/// documentation for what it may not hold).
pub fn check_label(text: &str, max: usize) -> Result<(), LabelError> {
    if text.is_empty() {
        return Err(LabelError::Empty);
    }
    if text.len() > max {
        return Err(LabelError::TooLong { max, len: text.len() });
    }
    check_characters(text)
}

/// Checks only what `text` holds, for a text that may be empty and is
/// bounded elsewhere (a build's optional fields).
pub fn check_characters(text: &str) -> Result<(), LabelError> {
    match text.char_indices().find_map(|(at, c)| forbidden(c).map(|kind| (at, c, kind))) {
        Some((at, c, kind)) => Err(LabelError::Holds { kind, at, code: c as u32 }),
        None => Ok(()),
    }
}

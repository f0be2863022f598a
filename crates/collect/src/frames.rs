//! A board's bytes into checked records, whichever way the board frames
//! them: `@pqb1` text lines, or defmt frames decoded with the firmware's ELF.
//!
//! Both end in the same [`Event`]s and the same check: a defmt record is
//! rendered to text and its line rebuilt and checksummed
//! ([`pqbench_wire::parse_rendered`]), so the collector cannot tell, and
//! need not care, which transport a record came by.

use pqbench_wire::{DecodeError, Decoder, Event, MARKER_FAMILY};

use crate::image::{FirmwareImage, ImageError};

pub trait FrameDecoder: Send {
    /// Takes the next bytes and returns what they completed.
    fn push(&mut self, bytes: &[u8]) -> Vec<Event>;
}

impl FrameDecoder for Decoder {
    fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        Decoder::push(self, bytes)
    }
}

/// No record comes near this; past it, bytes without a frame end are noise.
const MAX_FRAME: usize = 4096;

/// defmt frames (rzCOBS, each ended by a zero byte) into events.
///
/// Frame indices are addresses in one build's ELF, so a frame decoded with
/// another build's table reads as another message or none: the table is
/// always the one of the image the board runs, and the collector checks the
/// build id the board says against it.
pub struct DefmtDecoder {
    table: defmt_decoder::Table,
    pending: Vec<u8>,
    /// Dropping the rest of an over-long frame, up to its end.
    skipping: bool,
}

impl DefmtDecoder {
    pub fn new(image: &FirmwareImage) -> Result<DefmtDecoder, ImageError> {
        let table = image.defmt_table()?;
        if table.encoding() != defmt_decoder::Encoding::Rzcobs {
            return Err(ImageError::DefmtTable {
                path: image.path.clone(),
                why: "the firmware uses raw defmt encoding; pqbench needs rzcobs to find frame ends".into(),
            });
        }
        Ok(DefmtDecoder { table, pending: Vec::new(), skipping: false })
    }

    fn decode_frame(&self, frame: &[u8]) -> Event {
        // A fresh stream decoder per frame: frames are split here, so no
        // state crosses a frame end, and this decoder owns its table.
        let mut stream = self.table.new_stream_decoder();
        stream.received(frame);
        stream.received(&[0]);
        match stream.decode() {
            Ok(frame) => {
                let text = frame.display_message().to_string();
                if text.starts_with(MARKER_FAMILY) {
                    match pqbench_wire::parse_rendered(&text) {
                        Ok(record) => Event::Record(record),
                        Err(error) => Event::Rejected(error),
                    }
                } else {
                    Event::Text(text)
                }
            }
            Err(_) => Event::Rejected(DecodeError::Malformed(format!(
                "a defmt frame of {} bytes that this ELF's table cannot decode",
                frame.len()
            ))),
        }
    }
}

impl FrameDecoder for DefmtDecoder {
    fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte != 0 {
                if self.skipping {
                    continue;
                }
                if self.pending.len() < MAX_FRAME {
                    self.pending.push(byte);
                } else {
                    self.pending.clear();
                    self.skipping = true;
                    events.push(Event::Rejected(DecodeError::TooLong(MAX_FRAME)));
                }
                continue;
            }
            self.skipping = false;
            if !self.pending.is_empty() {
                let frame = std::mem::take(&mut self.pending);
                events.push(self.decode_frame(&frame));
            }
        }
        events
    }
}

//! SEGGER RTT's up channel 0, read through any [`DebugTarget`].
//!
//! probe-rs has an RTT reader, but it reads through probe-rs's own `Core`,
//! which a GDB server cannot be; the part a run needs is this small: find
//! the control block, set the channel to block when full, and drain its
//! ring. The layout is defmt-rtt's on a 32-bit target: a 16-byte id, the up
//! and down channel counts, then up channel 0 as six words (name, buffer,
//! size, write offset, read offset, flags).

use super::target::{DebugTarget, TargetError};

pub const RTT_ID: &[u8; 16] = b"SEGGER RTT\0\0\0\0\0\0";
/// The id as the firmware writes it: the bytes after its NUL are unused.
const ID_LEN: usize = 11;
const UP0: u64 = 24;
const UP0_BUFFER: u64 = UP0 + 4;
const UP0_READ: u64 = UP0 + 16;
const UP0_FLAGS: u64 = UP0 + 20;
const MODE_MASK: u32 = 0b11;
/// The board waits for room rather than drop a frame.
pub const MODE_BLOCK_IF_FULL: u32 = 2;
/// More than any firmware's ring; a larger size is a corrupt block.
const MAX_RING: u32 = 1 << 20;

/// Whether the control block is at `address` yet: the firmware's start-up
/// copies it into RAM with the rest of `.data`.
pub fn is_ready(target: &mut impl DebugTarget, address: u64) -> Result<bool, TargetError> {
    let mut id = [0u8; ID_LEN];
    target.read(address, &mut id)?;
    Ok(id == RTT_ID[..ID_LEN])
}

/// Up channel 0 of the control block at `address`.
pub struct UpChannel {
    control: u64,
    buffer: u64,
    size: u32,
}

impl UpChannel {
    pub fn attach(target: &mut impl DebugTarget, control: u64) -> Result<UpChannel, TargetError> {
        let mut header = [0u8; 8];
        target.read(control + 16, &mut header)?;
        if word(&header, 0) == 0 {
            return Err(TargetError("the firmware's RTT block has no up channel".into()));
        }
        let mut ring = [0u8; 8];
        target.read(control + UP0_BUFFER, &mut ring)?;
        let (buffer, size) = (u64::from(word(&ring, 0)), word(&ring, 1));
        if buffer == 0 || !(2..=MAX_RING).contains(&size) {
            return Err(TargetError(format!("RTT up channel 0 reads as {size} bytes at {buffer:#x}")));
        }
        Ok(UpChannel { control, buffer, size })
    }

    /// Sets the channel's mode, keeping its other flags.
    pub fn set_mode(&self, target: &mut impl DebugTarget, mode: u32) -> Result<(), TargetError> {
        let mut flags = [0u8; 4];
        target.read(self.control + UP0_FLAGS, &mut flags)?;
        let flags = (u32::from_le_bytes(flags) & !MODE_MASK) | mode;
        target.write(self.control + UP0_FLAGS, &flags.to_le_bytes())
    }

    /// What the ring holds, its room freed; empty when it holds nothing.
    ///
    /// The bytes are returned only once the new read offset is written: a
    /// failed write is retried by the caller with the same value, so no byte
    /// is given twice or lost.
    pub fn read(&self, target: &mut impl DebugTarget) -> Result<Vec<u8>, TargetError> {
        let mut offsets = [0u8; 8];
        target.read(self.control + UP0 + 12, &mut offsets)?;
        let (write, read) = (word(&offsets, 0), word(&offsets, 1));
        if write >= self.size || read >= self.size {
            return Err(TargetError(format!(
                "RTT up channel 0's offsets {write} and {read} are outside its {} bytes",
                self.size
            )));
        }
        if write == read {
            return Ok(Vec::new());
        }
        let mut bytes;
        if write > read {
            bytes = vec![0; (write - read) as usize];
            target.read(self.buffer + u64::from(read), &mut bytes)?;
        } else {
            // Wrapped: the ring's end, then its start.
            bytes = vec![0; (self.size - read + write) as usize];
            let (end, start) = bytes.split_at_mut((self.size - read) as usize);
            target.read(self.buffer + u64::from(read), end)?;
            if !start.is_empty() {
                target.read(self.buffer, start)?;
            }
        }
        target.write(self.control + UP0_READ, &write.to_le_bytes())?;
        Ok(bytes)
    }
}

fn word(bytes: &[u8], index: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[4 * index..4 * index + 4]);
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{Retrying, SessionStats};

    /// RAM from address 0, and a write of the read offset that fails once
    /// after it landed, as a probe's USB reply can be lost.
    struct Ram {
        bytes: Vec<u8>,
        lose_reply_to_write_at: Option<u64>,
    }

    impl DebugTarget for Ram {
        fn read(&mut self, address: u64, bytes: &mut [u8]) -> Result<(), TargetError> {
            let at = address as usize;
            bytes.copy_from_slice(&self.bytes[at..at + bytes.len()]);
            Ok(())
        }
        fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), TargetError> {
            let at = address as usize;
            self.bytes[at..at + bytes.len()].copy_from_slice(bytes);
            if self.lose_reply_to_write_at.take_if(|lost| *lost == address).is_some() {
                return Err(TargetError("the reply was lost".into()));
            }
            Ok(())
        }
        fn run(&mut self) -> Result<(), TargetError> {
            Ok(())
        }
        fn halt(&mut self) -> Result<(), TargetError> {
            Ok(())
        }
        fn pc(&mut self) -> Result<u64, TargetError> {
            Ok(0)
        }
    }

    const BUFFER: usize = 0x100;
    const SIZE: u32 = 16;

    /// A control block at 0 whose 16-byte ring at 0x100 holds `data` from
    /// offset `read`, wrapping.
    fn ram_with(data: &[u8], read: u32) -> Ram {
        let mut bytes = vec![0u8; 0x200];
        bytes[..16].copy_from_slice(RTT_ID);
        let mut put = |at: usize, value: u32| bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        put(16, 1); // one up channel
        put(20, 0);
        put(UP0 as usize + 4, BUFFER as u32);
        put(UP0 as usize + 8, SIZE);
        put(UP0 as usize + 12, (read + data.len() as u32) % SIZE);
        put(UP0 as usize + 16, read);
        for (i, byte) in data.iter().enumerate() {
            bytes[BUFFER + (read as usize + i) % SIZE as usize] = *byte;
        }
        Ram { bytes, lose_reply_to_write_at: None }
    }

    #[test]
    fn a_wrapped_ring_is_read_in_order_and_freed() {
        let mut ram = ram_with(b"0123456789", 12);
        assert!(is_ready(&mut ram, 0).unwrap());
        let channel = UpChannel::attach(&mut ram, 0).unwrap();
        assert_eq!(channel.read(&mut ram).unwrap(), b"0123456789");
        assert_eq!(channel.read(&mut ram).unwrap(), b"", "the room is freed");
        channel.set_mode(&mut ram, MODE_BLOCK_IF_FULL).unwrap();
        assert_eq!(ram.bytes[UP0 as usize + 20] & 0b11, 2);
    }

    #[test]
    fn a_lost_reply_to_freeing_the_ring_neither_loses_nor_repeats_a_byte() {
        let mut ram = ram_with(b"abc", 3);
        ram.lose_reply_to_write_at = Some(UP0_READ);
        let stats = SessionStats::default();
        let mut target = Retrying::new(&mut ram, &stats);
        let channel = UpChannel::attach(&mut target, 0).unwrap();
        assert_eq!(channel.read(&mut target).unwrap(), b"abc");
        assert_eq!(channel.read(&mut target).unwrap(), b"");
        assert_eq!(stats.recovered_errors.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    #[test]
    fn a_corrupt_block_is_refused_rather_than_read_out_of_bounds() {
        let mut ram = ram_with(b"", 0);
        ram.bytes[UP0 as usize + 8..UP0 as usize + 12].copy_from_slice(&(1u32 << 30).to_le_bytes());
        assert!(UpChannel::attach(&mut ram, 0).is_err());
        let mut ram = ram_with(b"", 0);
        let channel = UpChannel::attach(&mut ram, 0).unwrap();
        ram.bytes[UP0 as usize + 12..UP0 as usize + 16].copy_from_slice(&SIZE.to_le_bytes());
        assert!(channel.read(&mut ram).is_err(), "a write offset past the ring");
    }
}

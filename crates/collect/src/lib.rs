//! pqbench's board side: everything between a board and the place its
//! results are kept, usable without any server.
//!
//! - [`boards`]: the boards this host can reach and how (QEMU behind a
//!   pseudo-terminal, or a debug probe wired to a board), and reserving one
//!   for a run; an emulated board's QEMU is `emulator`'s, and the images
//!   a build is still making are `building`'s.
//! - [`image`]: a firmware ELF and what the host reads from it.
//! - [`frames`]: bytes to checked records, as text lines or defmt frames.
//! - [`collector`]: a board's records to results, over a serial port or any
//!   [`collector::Link`].
//! - [`probe`] (feature `probe-rs`): flash, reset, RTT and the mailbox;
//!   `probe_wiring`: which board a probe is wired to, and how to connect.
//! - [`ports`]: serial ports, which to try and what answers on them;
//!   [`watch`]: the ports watched for boards plugged in and out;
//!   [`flash`]: this host's image written through the probe on the same
//!   ST-LINK, and confirmed over the port.
//! - [`runner`]: a run from start to end; [`runner::prepare`] is the one way
//!   a run starts.
//! - [`record`]: where results go, as a trait: the server's store and an
//!   agent's connection implement it, and this crate depends on neither.
//! - [`timing_model`]: an emulated board's estimated Cortex-M4 cycles,
//!   from the counts of the QEMU plugin it runs under.

pub mod boards;
mod building;
pub mod collector;
mod emulator;
pub mod flash;
pub mod frames;
pub mod image;
pub mod ports;
#[cfg(feature = "probe-rs")]
pub mod probe;
mod probe_wiring;
pub mod qemu;
pub mod record;
pub mod runner;
pub mod timing_model;
pub mod watch;

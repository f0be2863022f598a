//! The board's side of the conversation with the host, over the transport
//! the cargo features choose:
//!
//! | features | records out | commands in |
//! | --- | --- | --- |
//! | neither | text lines on the UART (`text`) | text lines on the UART (`uart_lines`) |
//! | `defmt-serial` | defmt frames on the UART (`frames`, `uart_logger`) | text lines on the UART (`uart_lines`) |
//! | `defmt-rtt` | defmt frames through RTT (`frames`, the `defmt-rtt` crate) | a RAM mailbox (`mailbox`) |
//!
//! Every transport offers the same names: `Records` (records out, and the
//! suite's `Reporter`), `fault` (an error record from a fault handler),
//! `next_line` and `MAX_LINE` (the next command line). The board layer only
//! lends its serial port; what goes over it is decided here.

mod fields;

#[cfg(not(any(feature = "defmt-rtt", feature = "defmt-serial")))]
mod text;
#[cfg(not(any(feature = "defmt-rtt", feature = "defmt-serial")))]
pub use text::{Records, fault};

#[cfg(any(feature = "defmt-rtt", feature = "defmt-serial"))]
mod frames;
#[cfg(any(feature = "defmt-rtt", feature = "defmt-serial"))]
pub use frames::{Records, fault};

#[cfg(feature = "defmt-serial")]
mod uart_logger;
// Links defmt-rtt's global logger and its RTT control block.
#[cfg(feature = "defmt-rtt")]
use defmt_rtt as _;

#[cfg(not(feature = "defmt-rtt"))]
mod uart_lines;
#[cfg(not(feature = "defmt-rtt"))]
pub use uart_lines::{MAX_LINE, next_line};

#[cfg(feature = "defmt-rtt")]
mod mailbox;
#[cfg(feature = "defmt-rtt")]
pub use mailbox::{MAX_LINE, next_line};

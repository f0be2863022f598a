//! Where a board's bytes come from once its run has started: any link,
//! and a serial port as one.

use tokio::io::{AsyncRead, AsyncReadExt};

/// Where a board's bytes come from once its run has started.
#[allow(async_fn_in_trait)]
pub trait Link {
    /// Why no more bytes will come, as the run's error says it.
    type Error: std::fmt::Display;

    /// The next bytes, or why no more will come. Cancel safe: a silence
    /// limit drops an unfinished call and may call again (an emulated
    /// board that computes is waited for), so no byte may be lost in a
    /// call that never returned.
    async fn receive(&mut self) -> Result<Vec<u8>, Self::Error>;
}

/// A serial port (or a pseudo-terminal) as a link.
pub struct SerialLink<'p, P>(pub &'p mut P);

impl<P: AsyncRead + Unpin> Link for SerialLink<'_, P> {
    type Error = PortError;

    async fn receive(&mut self) -> Result<Vec<u8>, PortError> {
        let mut buf = [0u8; 1024];
        match self.0.read(&mut buf).await {
            Ok(0) => Err(PortError::Closed),
            Ok(n) => Ok(buf[..n].to_vec()),
            Err(e) => Err(PortError::reading(e)),
        }
    }
}

/// Why a serial port gives no more bytes, for a person.
#[derive(Debug, thiserror::Error)]
pub enum PortError {
    /// A port whose far end went away: a USB board unplugged, or the
    /// emulator behind a pseudo-terminal stopped.
    #[error("the serial port closed: the board is gone (unplugged, or its emulator stopped)")]
    Closed,
    /// A pseudo-terminal whose emulator died, or a USB port whose board was
    /// unplugged, fails reads with EIO, whose own text ("Input/output
    /// error") says nothing of what happened.
    #[error("{closed} ({0})", closed = PortError::Closed)]
    Gone(std::io::Error),
    #[error("reading the serial port: {0}")]
    Read(std::io::Error),
}

impl PortError {
    pub(super) fn reading(e: std::io::Error) -> PortError {
        if e.raw_os_error() == Some(libc::EIO) { PortError::Gone(e) } else { PortError::Read(e) }
    }
}

//! A board on a serial port before its run: shown to listen by the `hello`
//! it answers, then sent its command.

use std::time::Duration;

use pqbench_wire::{Command, Event, Record};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::link::PortError;
use crate::frames::FrameDecoder;

pub(super) async fn send<P: AsyncWrite + Unpin>(port: &mut P, line: &str) -> std::io::Result<()> {
    port.write_all(line.as_bytes()).await?;
    port.flush().await
}

/// How often, and for how long, the host says `hello` before giving up.
const HANDSHAKE_ATTEMPTS: u32 = 20;
const HANDSHAKE_WAIT: Duration = Duration::from_millis(500);

/// Says `hello` until the board answers with its `hello` record. A board
/// may still be booting when the port opens (a chip's UART drops what
/// arrives before it is enabled), so a run command sent at once can be
/// lost without a trace; an answered `hello` shows the board is listening.
pub(super) async fn handshake<P: AsyncRead + AsyncWrite + Unpin>(
    port: &mut P,
    decoder: &mut dyn FrameDecoder,
) -> Result<(), HandshakeError> {
    let mut buf = [0u8; 1024];
    let mut refused = 0;
    for _ in 0..HANDSHAKE_ATTEMPTS {
        send(port, &Command::Hello.to_string()).await.map_err(HandshakeError::Write)?;
        let deadline = tokio::time::Instant::now() + HANDSHAKE_WAIT;
        while let Ok(read) = tokio::time::timeout_at(deadline, port.read(&mut buf)).await {
            match read {
                Ok(0) => return Err(PortError::Closed.into()),
                Ok(n) => {
                    for event in decoder.push(&buf[..n]) {
                        match event {
                            Event::Record(Record::Hello(_)) => return Ok(()),
                            Event::Rejected(_) => refused += 1,
                            _ => {}
                        }
                    }
                }
                Err(e) => return Err(PortError::reading(e).into()),
            }
        }
    }
    let waited_s = (HANDSHAKE_WAIT * HANDSHAKE_ATTEMPTS).as_secs();
    if refused > 0 {
        return Err(HandshakeError::Unreadable { waited_s, refused });
    }
    Err(HandshakeError::NoAnswer { waited_s })
}

/// Why the board was not shown to listen, for the run's error.
#[derive(Debug, thiserror::Error)]
pub(super) enum HandshakeError {
    #[error("writing to the board: {0}")]
    Write(std::io::Error),
    #[error(transparent)]
    Port(#[from] PortError),
    #[error(
        "the board answers, but none of its records could be read in {waited_s} s ({refused} refused): \
         is the image the host decodes with the one the board runs?"
    )]
    Unreadable { waited_s: u64, refused: u32 },
    #[error("the board did not answer hello within {waited_s} s")]
    NoAnswer { waited_s: u64 },
}

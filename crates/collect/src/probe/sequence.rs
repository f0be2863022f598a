//! A run on a core held at reset, through any [`DebugTarget`]: the part of
//! a probe run after flashing, which the tests run against QEMU's gdbstub.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::rtt::{self, UpChannel};
use super::target::{DebugTarget, StoppedAt, TargetError};
use super::{MAILBOX_CAPACITY, MAILBOX_SYMBOL, ProbeError, RTT_SYMBOL, SessionError};
use crate::image::FirmwareImage;

/// How long the firmware may take from reset to an initialised RTT block.
pub const RTT_WAIT: Duration = Duration::from_secs(2);
/// How long the firmware may take, from the command's writing, to take it
/// from the mailbox. A board reaches its command loop within a few hundred
/// milliseconds of reset even when every clock wait times out (the longest,
/// the U585's, gives up after about 0.35 s); one that has not by then is
/// stuck, and waiting for silence (minutes) would only hide where.
pub const ANSWER_WAIT: Duration = Duration::from_secs(2);
/// How often an idle up channel is polled.
const POLL: Duration = Duration::from_millis(5);
/// Failed requests in a row before the run gives up, and the wait before
/// the first retry, doubled at each: 10 + 20 + 40 + 80 + 160 ms, long
/// enough for a USB hiccup or an SWD WAIT storm to pass, short enough
/// that an unplugged probe fails the run within a second.
pub const MAX_ERRORS_IN_A_ROW: u32 = 5;
const FIRST_BACKOFF: Duration = Duration::from_millis(10);

/// Where a session sends the board's bytes, and at the end why it
/// stopped if it stopped before the run did.
pub type BoardBytes = mpsc::Sender<Result<Vec<u8>, SessionError>>;

/// What a session counts as it goes, readable while it runs and after it
/// failed: the runner writes it into the run's notes.
#[derive(Debug, Default)]
pub struct SessionStats {
    /// Requests that failed and succeeded when tried again.
    pub recovered_errors: AtomicU32,
}

/// A target whose failed requests are tried again, up to
/// [`MAX_ERRORS_IN_A_ROW`] in a row. Every request a run makes is one a
/// second try may repeat: reads, and writes of the same bytes.
pub struct Retrying<'s, T> {
    target: T,
    stats: &'s SessionStats,
    /// Failures since the last success, not yet counted as recovered.
    pending: u32,
    /// Why the last request failed for good, for [`Retrying::failed`].
    gave_up: Option<ProbeError>,
}

impl<'s, T: DebugTarget> Retrying<'s, T> {
    pub fn new(target: T, stats: &'s SessionStats) -> Self {
        Retrying { target, stats, pending: 0, gave_up: None }
    }

    fn retry<R>(
        &mut self,
        mut request: impl FnMut(&mut T) -> Result<R, TargetError>,
    ) -> Result<R, ProbeError> {
        let mut backoff = FIRST_BACKOFF;
        loop {
            match request(&mut self.target) {
                Ok(value) => {
                    self.stats.recovered_errors.fetch_add(self.pending, Ordering::Relaxed);
                    self.pending = 0;
                    return Ok(value);
                }
                Err(error) if self.pending + 1 >= MAX_ERRORS_IN_A_ROW => {
                    let errors = self.pending + 1;
                    self.pending = 0;
                    return Err(ProbeError::GaveUp { errors, last: error.0, at: None });
                }
                Err(error) => {
                    self.pending += 1;
                    tracing::debug!(
                        "probe request failed ({} in a row), trying again: {error}",
                        self.pending
                    );
                    std::thread::sleep(backoff);
                    backoff *= 2;
                }
            }
        }
    }

    /// A request as a [`DebugTarget`] makes it: retried, and when retries
    /// run out, the reason kept for [`Retrying::failed`].
    fn carry<R>(&mut self, request: impl FnMut(&mut T) -> Result<R, TargetError>) -> Result<R, TargetError> {
        self.retry(request).map_err(|e| {
            let said = TargetError(e.to_string());
            self.gave_up = Some(e);
            said
        })
    }

    /// Why a step made of several requests failed: the probe's, if it gave
    /// up, or else the step's own `error`.
    fn failed(&mut self, error: TargetError, step: impl FnOnce(String) -> ProbeError) -> ProbeError {
        self.gave_up.take().unwrap_or_else(|| step(error.0))
    }

    /// Halts the core and says where it stood, as well as the target still
    /// can: it is asked once each, as the run is ending anyway.
    fn stop_and_locate(&mut self, image: &FirmwareImage) -> Option<StoppedAt> {
        self.target.halt().ok()?;
        let pc = self.target.pc().ok()?;
        Some(StoppedAt {
            pc,
            function: image.function_at(pc),
            waiting_for: waiting_for(&mut self.target, image),
        })
    }
}

impl<T: DebugTarget> DebugTarget for Retrying<'_, T> {
    fn read(&mut self, address: u64, bytes: &mut [u8]) -> Result<(), TargetError> {
        self.carry(|t| t.read(address, bytes))
    }
    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), TargetError> {
        self.carry(|t| t.write(address, bytes))
    }
    fn run(&mut self) -> Result<(), TargetError> {
        self.carry(|t| t.run())
    }
    fn halt(&mut self) -> Result<(), TargetError> {
        self.carry(|t| t.halt())
    }
    fn pc(&mut self) -> Result<u64, TargetError> {
        self.carry(|t| t.pc())
    }
}

/// Runs the command on a core held at reset (a probe's reset-and-halt, or
/// QEMU started with `-S`), and sends what the board's up channel carries
/// to `bytes` until `stop` is set or the receiver goes away.
///
/// A board that does not take the command within [`ANSWER_WAIT`] is
/// halted and the run fails saying where it stood; so is one whose probe
/// fails [`MAX_ERRORS_IN_A_ROW`] requests in a row. Fewer failures are
/// retried and counted in `stats`.
pub fn execute<T: DebugTarget>(
    target: T,
    image: &FirmwareImage,
    command: &str,
    bytes: &BoardBytes,
    stop: &AtomicBool,
    stats: &SessionStats,
) -> Result<(), ProbeError> {
    let rtt_address = image.symbol(RTT_SYMBOL, "RTT (a defmt-rtt image)")?;
    let mailbox = image.symbol(MAILBOX_SYMBOL, "runs through a probe")?;
    let command = command.as_bytes();
    if command.len() > MAILBOX_CAPACITY {
        return Err(ProbeError::Mailbox(format!("the command is over {MAILBOX_CAPACITY} bytes")));
    }
    let mut target = Retrying::new(target, stats);
    match stream(&mut target, rtt_address, mailbox, command, bytes, stop) {
        Ok(()) => Ok(()),
        // The core is halted where it stood, for the person to see and for
        // the board not to sit blocked on a full channel until the next
        // reset.
        Err(ProbeError::GaveUp { errors, last, .. }) => {
            Err(ProbeError::GaveUp { errors, last, at: target.stop_and_locate(image) })
        }
        Err(ProbeError::Stuck { waited_ms, .. }) => {
            Err(ProbeError::Stuck { waited_ms, at: target.stop_and_locate(image) })
        }
        Err(ProbeError::RttNotFound { address, waited_ms, .. }) => {
            Err(ProbeError::RttNotFound { address, waited_ms, at: target.stop_and_locate(image) })
        }
        Err(other) => Err(other),
    }
}

fn stream<T: DebugTarget>(
    target: &mut Retrying<'_, T>,
    rtt_address: u64,
    mailbox: u64,
    command: &[u8],
    bytes: &BoardBytes,
    stop: &AtomicBool,
) -> Result<(), ProbeError> {
    // RAM outlives a reset: a control block and a command left by the last
    // run would be found before this boot sets them up, and the boot would
    // then wipe the mode and the command the host wrote. Clear both first.
    target.retry(|t| t.write(rtt_address, &[0; 4]))?;
    target.retry(|t| t.write(mailbox, &[0; 4]))?;
    target.retry(|t| t.run())?;

    let started = Instant::now();
    while !target.retry(|t| rtt::is_ready(t, rtt_address))? {
        if started.elapsed() >= RTT_WAIT {
            return Err(ProbeError::RttNotFound {
                address: rtt_address,
                waited_ms: started.elapsed().as_millis(),
                at: None,
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let channel = match UpChannel::attach(target, rtt_address) {
        Ok(channel) => channel,
        Err(e) => return Err(target.failed(e, ProbeError::Rtt)),
    };
    if let Err(e) = channel.set_mode(target, rtt::MODE_BLOCK_IF_FULL) {
        return Err(target.failed(e, ProbeError::Rtt));
    }

    // The bytes first, the length last: a non-zero length is the board's
    // sign that a whole command is there. Whole words, as every probe
    // writes them fastest.
    let mut words = command.to_vec();
    words.resize(command.len().next_multiple_of(4), 0);
    target.retry(|t| t.write(mailbox + 4, &words))?;
    target.retry(|t| t.write(mailbox, &(command.len() as u32).to_le_bytes()))?;
    let written = Instant::now();
    tracing::info!("run command written: {}", String::from_utf8_lossy(command));

    let mut taken = false;
    while !stop.load(Ordering::Relaxed) {
        if !taken {
            let mut length = [0u8; 4];
            target.retry(|t| t.read(mailbox, &mut length))?;
            taken = length == [0; 4];
            if !taken && written.elapsed() >= ANSWER_WAIT {
                return Err(ProbeError::Stuck { waited_ms: written.elapsed().as_millis(), at: None });
            }
        }
        let read = match channel.read(target) {
            Ok(read) => read,
            Err(e) => return Err(target.failed(e, ProbeError::Read)),
        };
        if read.is_empty() {
            std::thread::sleep(POLL);
            continue;
        }
        if bytes.blocking_send(Ok(read)).is_err() {
            break;
        }
    }
    Ok(())
}

/// What the firmware said it waits for (`PQBENCH_WAITING_FOR`, set around
/// each wait of its bring-up), read from the halted core: a pointer and a
/// length of a string in its flash. None for an image without it, or when
/// the board waits for nothing.
fn waiting_for(target: &mut impl DebugTarget, image: &FirmwareImage) -> Option<String> {
    let address = image.symbol(WAITING_FOR_SYMBOL, "").ok()?;
    let mut slot = [0u8; 8];
    target.read(address, &mut slot).ok()?;
    let (pointer, length) = (
        u32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]]),
        u32::from_le_bytes([slot[4], slot[5], slot[6], slot[7]]),
    );
    if pointer == 0 || length == 0 || length > 64 {
        return None;
    }
    let mut text = vec![0u8; length as usize];
    target.read(u64::from(pointer), &mut text).ok()?;
    String::from_utf8(text).ok()
}

/// The firmware's note of what its bring-up waits for.
pub const WAITING_FOR_SYMBOL: &str = "PQBENCH_WAITING_FOR";

#[cfg(test)]
mod tests {
    use super::*;

    /// A target whose reads fail as many times in a row as told, then work.
    struct Flaky(Vec<u32>);

    impl DebugTarget for Flaky {
        fn read(&mut self, _: u64, _: &mut [u8]) -> Result<(), TargetError> {
            match self.0.first_mut() {
                Some(0) => {
                    self.0.remove(0);
                    Ok(())
                }
                Some(left) => {
                    *left -= 1;
                    Err(TargetError(format!("fault, {left} more")))
                }
                None => Ok(()),
            }
        }
        fn write(&mut self, _: u64, _: &[u8]) -> Result<(), TargetError> {
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

    #[test]
    fn failures_short_of_the_limit_are_recovered_and_counted_and_the_limit_gives_up() {
        let stats = SessionStats::default();
        let limit = MAX_ERRORS_IN_A_ROW;
        let mut target = Retrying::new(Flaky(vec![2, limit - 1, limit]), &stats);
        assert_eq!(target.read(0, &mut []), Ok(()));
        assert_eq!(target.read(0, &mut []), Ok(()));
        assert_eq!(stats.recovered_errors.load(Ordering::Relaxed), 2 + limit - 1);
        let said = target.read(0, &mut []).unwrap_err();
        assert_eq!(
            said.0,
            format!("the probe failed {limit} requests in a row, the last with: fault, 0 more")
        );
        match target.failed(said, ProbeError::Read) {
            ProbeError::GaveUp { errors, .. } => assert_eq!(errors, limit),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            stats.recovered_errors.load(Ordering::Relaxed),
            2 + limit - 1,
            "a give-up recovers nothing"
        );
    }
}

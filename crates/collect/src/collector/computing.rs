//! Whether a silent emulated board is still computing: its QEMU's CPU time.
//!
//! A board says it is measuring between calls (`measuring` records), and
//! after the first calls of an operation the host waits as long as its
//! slowest call needs ([`Collector::wait_after`](super::Collector)). What
//! comes before has no pace to go by: the known-answer checks before an
//! operation's first record and its first call, which for a slow signature
//! under the timing model can outlast any fixed limit on a busy host. A
//! core that computes keeps its QEMU busy; one that halted (asleep in a
//! fault handler's `wfi`, or QEMU stopped) leaves it idle, and a lockup
//! ends QEMU itself, which closes the console. So past the silence limit
//! an emulated board is given another limit's length while its QEMU used
//! at least [`COMPUTING_SHARE`] of a core over the last one, for at most
//! [`LONGEST_COMPUTING_SILENCE`] since its last record.
//!
//! Busy is not proof of progress: a board spinning on its UART without
//! speaking, or computing behind a broken console, looks the same, and is
//! given up only at that bound.

use std::time::Duration;

/// The least share of one host core an emulator must have used over a
/// silent stretch to be taken for computing. A computing QEMU uses a whole
/// core when it has one, and keeps a good part of one on a host busy with
/// other work; a halted core's QEMU uses almost none.
pub const COMPUTING_SHARE: f64 = 0.2;

/// The longest an emulated board that computes may stay silent: the
/// slowest single call the suite makes (an SLH-DSA `s` signature, some 25
/// billion instructions, under the timing model) with room for a busy host.
pub const LONGEST_COMPUTING_SILENCE: Duration = Duration::from_secs(20 * 60);

/// CPU time a process (all its threads) has used so far.
pub trait CpuClock: Send + Sync {
    /// `None` where it cannot be read (the process is gone).
    fn used(&self) -> Option<Duration>;
}

/// A process's CPU time as Linux counts it: `utime + stime` of
/// `/proc/<pid>/stat`, which sums every thread (QEMU emulates the core on
/// a thread of its own).
#[derive(Debug, Clone, Copy)]
pub struct ProcessCpu {
    pid: u32,
    ticks_per_second: u64,
}

impl ProcessCpu {
    /// The clock of process `pid`; `None` where the system does not say
    /// its clock ticks (not Linux).
    pub fn of(pid: u32) -> Option<ProcessCpu> {
        // SAFETY: sysconf reads a system constant; it has no preconditions.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let ticks_per_second = u64::try_from(ticks).ok().filter(|&t| t > 0)?;
        Some(ProcessCpu { pid, ticks_per_second })
    }
}

impl CpuClock for ProcessCpu {
    fn used(&self) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).ok()?;
        let ticks = cpu_ticks(&stat)?;
        Some(Duration::from_secs_f64(ticks as f64 / self.ticks_per_second as f64))
    }
}

/// `utime + stime` of a `/proc/<pid>/stat` line: the 14th and 15th fields,
/// counted after the command name, which is in parentheses and may itself
/// hold spaces and parentheses (so after the last `)`).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let (_, after_name) = stat.rsplit_once(')')?;
    // After the name: state (field 3) first, so utime (14) is the 12th.
    let mut fields = after_name.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    utime.checked_add(stime)
}

/// A silent stretch: when it began, and the emulator's CPU time then.
pub(super) struct Stretch {
    began: tokio::time::Instant,
    used: Option<Duration>,
}

impl Stretch {
    pub(super) fn begin(clock: Option<&dyn CpuClock>) -> Stretch {
        Stretch { began: tokio::time::Instant::now(), used: clock.and_then(CpuClock::used) }
    }

    /// Whether the emulator computed through this stretch, by `now`.
    pub(super) fn computed(&self, clock: Option<&dyn CpuClock>, now: tokio::time::Instant) -> bool {
        let (Some(clock), Some(before)) = (clock, self.used) else { return false };
        let Some(after) = clock.used() else { return false };
        let wall = now.duration_since(self.began).as_secs_f64();
        wall > 0.0 && after.saturating_sub(before).as_secs_f64() >= COMPUTING_SHARE * wall
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_read_after_the_command_name_whatever_it_holds() {
        let stat = "4242 (qemu-system-arm) R 1 4242 4242 0 -1 4194560 1500 0 0 0 731 52 0 0 20 0 5 0 99 1 2";
        assert_eq!(cpu_ticks(stat), Some(731 + 52));
        // A name with spaces and a parenthesis of its own.
        let odd = "7 (a (b) c) S 1 7 7 0 -1 0 0 0 0 0 10 20 0 0 20 0 1 0 5 1 2";
        assert_eq!(cpu_ticks(odd), Some(30));
        assert_eq!(cpu_ticks("7 (cut) S 1 7"), None);
        assert_eq!(cpu_ticks("no name at all"), None);
    }

    #[test]
    fn this_process_cpu_time_is_read_and_grows_as_it_computes() {
        let clock = ProcessCpu::of(std::process::id()).expect("Linux says its clock ticks");
        let before = clock.used().expect("this process's stat");
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while started.elapsed() < Duration::from_millis(300) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        assert!(clock.used().unwrap() > before, "300 ms of computing counted no CPU time");
        assert!(ProcessCpu::of(u32::MAX).unwrap().used().is_none(), "no such process");
    }
}

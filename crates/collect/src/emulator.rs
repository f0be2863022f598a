//! An emulated board's QEMU: started with a deterministic clock, its
//! console UART on a pseudo-terminal, killed with the server.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::boards::{BoardError, QemuMachine};
use crate::timing_model::TimingModelPlugin;

/// A running QEMU and the pseudo-terminal of its console UART.
pub struct Emulator {
    child: Child,
    pub console: String,
}

/// How an emulator is started beyond its board's own arguments. The
/// default is what production uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmulatorOptions {
    /// A QEMU human monitor listening on this Unix socket; `None`: no
    /// monitor. See [`Boards::with_qemu_monitors`].
    pub monitor: Option<PathBuf>,
    /// The Cortex-M4 timing model's plugin, where it is built.
    pub timing_model: Option<TimingModelPlugin>,
}

impl Emulator {
    /// Starts the board under QEMU with a deterministic clock: `-icount
    /// shift=0` makes every run of one image count the same ticks.
    pub async fn start(machine: &QemuMachine, image: &Path) -> Result<Emulator, BoardError> {
        Emulator::start_with(machine, image, &EmulatorOptions::default()).await
    }

    /// [`Emulator::start`], with `options`.
    pub async fn start_with(
        machine: &QemuMachine,
        image: &Path,
        options: &EmulatorOptions,
    ) -> Result<Emulator, BoardError> {
        let mut command = Command::new(crate::qemu::program().ok_or(BoardError::NoQemu)?);
        command.args(["-machine", machine.machine]);
        if let Some(cpu) = machine.cpu {
            command.args(["-cpu", cpu]);
        }
        command.args(["-nographic", "-icount", "shift=0", "-monitor"]);
        match &options.monitor {
            // QEMU removes a stale socket of that name before listening.
            Some(socket) => command.arg(format!("unix:{},server=on,wait=off", socket.display())),
            None => command.arg("none"),
        };
        for serial in machine.serials {
            command.args(["-serial", serial]);
        }
        if let Some(model) = &options.timing_model {
            model
                .write_ranges()
                .map_err(|e| BoardError::Qemu(format!("writing the timing model's ranges: {e}")))?;
            command.arg("-plugin").arg(model.argument());
        }
        command
            .arg("-kernel")
            .arg(image)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|e| BoardError::Qemu(e.to_string()))?;
        let stdout = child.stdout.take().ok_or_else(|| BoardError::Qemu("no stdout".into()))?;
        let stderr = child.stderr.take().ok_or_else(|| BoardError::Qemu("no stderr".into()))?;
        let mut lines = BufReader::new(stdout).lines();

        // QEMU names the pty of each `-serial pty`; only the console UART is
        // given as a pty, so the first named is the console.
        let console = tokio::time::timeout(Duration::from_secs(10), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(path) = line.split_whitespace().find(|w| w.starts_with("/dev/pts/")) {
                    return Some(path.to_string());
                }
            }
            None
        })
        .await
        .ok()
        .flatten();
        let Some(console) = console else {
            let _ = child.start_kill();
            let mut message = String::new();
            let mut errors = BufReader::new(stderr).lines();
            while let Ok(Ok(Some(line))) =
                tokio::time::timeout(Duration::from_secs(1), errors.next_line()).await
            {
                message.push_str(&line);
                message.push(' ');
            }
            return Err(BoardError::Qemu(format!("QEMU gave no serial pty: {}", message.trim())));
        };
        // Keep draining QEMU's output so it never blocks on a full pipe.
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!("qemu: {line}");
            }
        });
        tokio::spawn(async move {
            let mut errors = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = errors.next_line().await {
                tracing::warn!("qemu: {line}");
            }
        });
        Ok(Emulator { child, console })
    }

    pub fn open_console(&self) -> Result<tokio_serial::SerialStream, BoardError> {
        use tokio_serial::SerialPortBuilderExt;
        tokio_serial::new(&self.console, 115_200)
            .open_native_async()
            .map_err(|source| BoardError::Serial { path: self.console.clone(), source })
    }

    /// QEMU's CPU time, for a collector to tell a board computing a long
    /// call from one whose core halted (`Collector::emulator_cpu`).
    pub fn cpu_clock(&self) -> Option<crate::collector::ProcessCpu> {
        crate::collector::ProcessCpu::of(self.child.id()?)
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// Makes the kernel kill QEMU when the server dies. `kill_on_drop` covers
/// every end of the server that runs its drops, but not SIGKILL, the OOM
/// killer or an abort: an orphaned QEMU would keep its CPU busy with a run
/// nobody reads, and a restarted server would start a second one.
///
/// The death signal follows the *thread* that spawned QEMU, not the
/// process: emulators are started from the async runtime's worker threads
/// (or the command line's main thread), which live as long as the server.
/// Never start one from `spawn_blocking`, whose threads end when idle.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    let parent = std::process::id();
    // SAFETY: the hook runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: prctl and getppid are, and the
    // hook allocates nothing (an OS error code needs no allocation).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The server died between fork and prctl: no signal will come,
            // so QEMU is not started (ESRCH: the parent is no more).
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

//! A GDB remote-serial-protocol client, as much of it as a probe run needs,
//! over QEMU's gdbstub: memory, run control and the program counter, as a
//! [`DebugTarget`] so the server's own `probe::execute` drives it.
//!
//! QEMU's gdbstub works in all-stop mode: it answers only while the guest
//! is halted. A probe reads memory with the core running; here, a request
//! made while the guest runs halts it, is answered, and lets it run on.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pqbench_collect::probe::{DebugTarget, TargetError};

/// How long any one reply may take.
const REPLY_WAIT: Duration = Duration::from_secs(10);
/// The most bytes one `m` request asks for: QEMU refuses reads whose hex
/// would not fit its 4 KiB packet.
const CHUNK: usize = 1024;

pub struct GdbRemote {
    stream: TcpStream,
    received: Vec<u8>,
    running: bool,
}

impl GdbRemote {
    /// Connects to a gdbstub on loopback, which QEMU opens a moment after it
    /// starts. The guest is taken as halted (QEMU's `-S`).
    pub fn connect(port: u16) -> GdbRemote {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match TcpStream::connect(("127.0.0.1", port)) {
                Ok(stream) => {
                    // Without it, the `+` acknowledging a reply holds back a
                    // `c` after it (Nagle) until the host's delayed ACK.
                    stream.set_nodelay(true).expect("TCP_NODELAY");
                    stream.set_read_timeout(Some(REPLY_WAIT)).expect("a read timeout");
                    return GdbRemote { stream, received: Vec::new(), running: false };
                }
                Err(e) if Instant::now() > deadline => panic!("QEMU's gdbstub on port {port}: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    fn send(&mut self, data: &str) -> Result<(), TargetError> {
        let checksum = data.bytes().fold(0u8, u8::wrapping_add);
        self.stream.write_all(format!("${data}#{checksum:02x}").as_bytes()).map_err(io)
    }

    /// The next packet, acknowledged. QEMU's own `+`s are skipped: TCP
    /// loses nothing, so nothing is ever sent again.
    fn reply(&mut self) -> Result<String, TargetError> {
        loop {
            if let Some(start) = self.received.iter().position(|&b| b == b'$')
                && let Some(hash) = self.received[start..].iter().position(|&b| b == b'#')
                && self.received.len() >= start + hash + 3
            {
                let end = start + hash;
                let data = String::from_utf8_lossy(&self.received[start + 1..end]).into_owned();
                self.received.drain(..end + 3);
                self.stream.write_all(b"+").map_err(io)?;
                return Ok(data);
            }
            let mut buf = [0u8; 4096];
            match self.stream.read(&mut buf) {
                Ok(0) => return Err(TargetError("QEMU closed the gdbstub connection".into())),
                Ok(n) => self.received.extend_from_slice(&buf[..n]),
                Err(e) => return Err(io(e)),
            }
        }
    }

    fn request(&mut self, data: &str) -> Result<String, TargetError> {
        self.send(data)?;
        let reply = self.reply()?;
        if reply.starts_with('E') {
            return Err(TargetError(format!("the gdbstub answered {data:?} with {reply}")));
        }
        Ok(reply)
    }

    /// Runs `request` halted, leaving the guest as it found it.
    fn halted<R>(
        &mut self,
        request: impl FnOnce(&mut Self) -> Result<R, TargetError>,
    ) -> Result<R, TargetError> {
        let was_running = self.running;
        if was_running {
            self.halt()?;
        }
        let answer = request(self);
        if was_running {
            self.run()?;
        }
        answer
    }
}

impl DebugTarget for GdbRemote {
    fn read(&mut self, address: u64, bytes: &mut [u8]) -> Result<(), TargetError> {
        self.halted(|gdb| {
            for (index, chunk) in bytes.chunks_mut(CHUNK).enumerate() {
                let at = address + (index * CHUNK) as u64;
                let hex = gdb.request(&format!("m{at:x},{:x}", chunk.len()))?;
                if hex.len() != 2 * chunk.len() {
                    return Err(TargetError(format!("reading {} bytes at {at:#x}: {hex}", chunk.len())));
                }
                for (i, byte) in chunk.iter_mut().enumerate() {
                    *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
                        .map_err(|_| TargetError(format!("not hex: {hex}")))?;
                }
            }
            Ok(())
        })
    }

    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), TargetError> {
        self.halted(|gdb| {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            match gdb.request(&format!("M{address:x},{:x}:{hex}", bytes.len()))?.as_str() {
                "OK" => Ok(()),
                other => Err(TargetError(format!("writing {} bytes at {address:#x}: {other}", bytes.len()))),
            }
        })
    }

    fn run(&mut self) -> Result<(), TargetError> {
        if !self.running {
            // No reply comes until the guest stops again.
            self.send("c")?;
            self.running = true;
        }
        Ok(())
    }

    fn halt(&mut self) -> Result<(), TargetError> {
        if self.running {
            // A bare 0x03, not a packet; the stop reply follows.
            self.stream.write_all(&[0x03]).map_err(io)?;
            let stop = self.reply()?;
            if !(stop.starts_with('T') || stop.starts_with('S')) {
                return Err(TargetError(format!("expected a stop reply, got {stop:?}")));
            }
            self.running = false;
        }
        Ok(())
    }

    fn pc(&mut self) -> Result<u64, TargetError> {
        // All the general registers (QEMU has no single-register `p`): r0
        // to r12, sp, lr, pc, each a little-endian word in hex.
        let hex = self.halted(|gdb| gdb.request("g"))?;
        let pc = hex.get(15 * 8..16 * 8).ok_or_else(|| TargetError(format!("the registers as {hex:?}")))?;
        let mut word = [0u8; 4];
        for (i, byte) in word.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&pc[2 * i..2 * i + 2], 16)
                .map_err(|_| TargetError(format!("the pc as {pc:?}")))?;
        }
        Ok(u64::from(u32::from_le_bytes(word)))
    }
}

fn io(error: std::io::Error) -> TargetError {
    TargetError(format!("the gdbstub connection: {error}"))
}

/// QEMU held at reset (`-S`) with its gdbstub on a free port, killed when
/// dropped however the test ends.
pub struct HeldQemu {
    child: Child,
    pub port: u16,
}

impl HeldQemu {
    /// `machine` as QEMU names it, with the image loaded and the core held
    /// at reset, as a probe's reset-and-halt leaves a chip. `-icount`: as
    /// the emulated boards run.
    pub fn start(machine: &[&str], image: &std::path::Path) -> HeldQemu {
        let port = crate::common::free_port();
        let child = Command::new("qemu-system-arm")
            .args(machine)
            .args(["-nographic", "-monitor", "none", "-icount", "shift=0", "-serial", "null", "-S"])
            .args(["-gdb", &format!("tcp:127.0.0.1:{port}"), "-kernel"])
            .arg(image)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("starting qemu-system-arm");
        HeldQemu { child, port }
    }
}

impl Drop for HeldQemu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! What a probe run needs of the board's core, whatever carries the
//! requests: probe-rs's session on a real probe ([`super::ProbeRsCore`]),
//! or a GDB server such as QEMU's gdbstub, which the tests drive the very
//! same [`super::execute`] through.

/// A debug connection to one core: memory, run control and the program
/// counter. Memory may be read and written while the core runs (a probe's
/// access port does it without stopping the core; a GDB server that cannot
/// is free to stop and resume it around each access).
pub trait DebugTarget {
    fn read(&mut self, address: u64, bytes: &mut [u8]) -> Result<(), TargetError>;
    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), TargetError>;
    /// Lets the core run from where it is.
    fn run(&mut self) -> Result<(), TargetError>;
    /// Stops the core, and returns once it has stopped.
    fn halt(&mut self) -> Result<(), TargetError>;
    /// The program counter of the halted core.
    fn pc(&mut self) -> Result<u64, TargetError>;
}

/// A request the connection could not carry out, whole as its carrier said
/// it (probe-rs's chain of causes, a GDB server's reply).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TargetError(pub String);

impl<T: DebugTarget + ?Sized> DebugTarget for &mut T {
    fn read(&mut self, address: u64, bytes: &mut [u8]) -> Result<(), TargetError> {
        (**self).read(address, bytes)
    }
    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), TargetError> {
        (**self).write(address, bytes)
    }
    fn run(&mut self) -> Result<(), TargetError> {
        (**self).run()
    }
    fn halt(&mut self) -> Result<(), TargetError> {
        (**self).halt()
    }
    fn pc(&mut self) -> Result<u64, TargetError> {
        (**self).pc()
    }
}

/// Where a halted core stood: what a person needs to tell a hung clock
/// from a crash from a slow benchmark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoppedAt {
    pub pc: u64,
    /// The function the image's symbols place `pc` in, demangled.
    pub function: Option<String>,
    /// What the firmware said it was waiting for, if anything (a clock's
    /// ready bit, in its bring-up).
    pub waiting_for: Option<String>,
}

impl std::fmt::Display for StoppedAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(what) = &self.waiting_for {
            write!(f, "waiting for {what}, ")?;
        }
        match &self.function {
            Some(function) => write!(f, "in {function} (pc {:#010x})", self.pc),
            None => write!(f, "at pc {:#010x}, in no function of the image", self.pc),
        }
    }
}

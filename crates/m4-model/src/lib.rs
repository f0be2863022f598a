//! A Cortex-M4 timing model: estimated cycles for a stream of executed
//! Thumb-2 instructions, from the costs in the Cortex-M4 Technical
//! Reference Manual (ARM 100166, table 3-1 and section 3.3.2, "Load/store
//! timings"). It is what pqbench's QEMU plugin charges each instruction the
//! emulated board executes, so that an emulated run can be set beside
//! published Cortex-M4 cycle counts. It is an estimate, and says so in its
//! unit (`m4-model-cycles`): a real M4 also stalls on its bus, its flash
//! accelerator and interrupts, which no instruction stream shows.
//!
//! What it charges, at zero wait states:
//! - one cycle for a data operation, a multiply (the M4's MAC is single
//!   cycle, long forms included) or a hint;
//! - two for a single load, one for a load or store that follows a load it
//!   can pipeline with (not when it addresses with that load's result);
//!   one for a store with an immediate offset, whatever precedes it;
//! - three for LDRD/STRD, 1+N for LDM/STM/PUSH/POP of N registers;
//! - 1+P for a taken branch (P the pipeline refill, [`Config::refill`]),
//!   known from the next executed address; 1 for one not taken; 2+P for
//!   TBB/TBH and for a load to the PC (table 3-1; 3.3.2's prose narrates
//!   the same with a refill of three); a data operation that writes the
//!   PC adds the refill, as POP and LDM with the PC do;
//! - SDIV/UDIV by their operands where the caller sees them
//!   ([`divide_cycles`], through [`Core::divide_seen`]); else
//!   [`Config::divide`];
//! - for the FPU, 2 for VLDR/VSTR, 1+N for VLDM/VSTM, 14 for VDIV/VSQRT, 3
//!   for the multiply-accumulates, 2 for a VMOV of two core registers, 1
//!   for the rest.
//!
//! Not modelled, each a known gap: an instruction an IT block skips is
//! charged as if it ran (the TRM charges it one cycle, but which are
//! skipped depends on the flags, which the block-level charging does not
//! read); P is one figure for every branch, though silicon takes 1 to 3 by
//! the target's alignment and width.
//!
//! Flash wait states ([`Config::flash_wait_states`]) are added to every
//! refill and to every literal load, the two fetches a flash accelerator's
//! prefetch does not hide. pqm4 measures at 24 MHz with none.
#![no_std]

extern crate alloc;

pub mod counts;
pub mod decode;

pub use decode::{Insn, Kind, Reg, decode};

/// The model's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// P, the cycles a taken branch spends refilling the pipeline: 1 to 3
    /// on silicon, by the target's alignment and width.
    pub refill: u32,
    /// SDIV and UDIV where their operands are not seen: 2 to 12 on silicon.
    pub divide: u32,
    /// Wait states of the memory code runs from.
    pub flash_wait_states: u32,
}

impl Default for Config {
    /// The manual's typical figures: a refill of 2 (a taken branch costs 3,
    /// within its 2 to 4), a divide of 7 (the middle of its range), no
    /// wait states (as pqm4 measures).
    fn default() -> Self {
        Config { refill: 2, divide: 7, flash_wait_states: 0 }
    }
}

/// What one executed instruction costs: its own cycles, and the refill
/// the instruction before it turned out to need (a branch is known to
/// have been taken only when the next instruction's address is seen).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Charge {
    pub this: u32,
    pub previous_refill: u32,
}

/// The timing state of one core, fed the instructions it executes in order.
#[derive(Debug, Clone, Default)]
pub struct Core {
    config: Config,
    previous: Previous,
    cycles: u64,
}

/// What the next instruction's cost depends on, as a caller may keep it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct State(Previous);

/// A straight run of instructions (executed in order, no branch taken
/// before the last), charged from its second instruction on: each one's
/// cost depends only on the one before it, which is in the run. Returns
/// the cycles of `run[1..]` and the state after the last; the first is
/// left to charge when the run executes, as it depends on what ran before.
pub fn straight_run(config: Config, run: &[(Insn, u32)]) -> (u64, State) {
    let mut core = Core::new(config);
    if let Some((insn, address)) = run.first() {
        core.execute(insn, *address);
    }
    let first = core.cycles();
    for (insn, address) in run.iter().skip(1) {
        core.execute(insn, *address);
    }
    (core.cycles() - first, core.state())
}

/// The fewest and most cycles SDIV/UDIV take on a Cortex-M4 (TRM table
/// 3-1: "2 to 12").
pub const DIVIDE_CYCLES: core::ops::RangeInclusive<u32> = 2..=12;

/// The cycles of SDIV/UDIV of `dividend` by `divisor` (as the registers
/// hold them; `signed` for SDIV), from their values.
///
/// The TRM says only that the divide takes 2 to 12 cycles and ends early
/// "depending on the number of leading ones and zeroes in the input
/// operands"; ARM publishes no formula for the M4 (the Cortex-R4's manual
/// gives `3 + (clz(B) - clz(A) + 1) / 2` for its divider). The model counts
/// the divider's steps the same way, `clz(divisor) - clz(dividend)` (the
/// quotient's width less one, at least 0; magnitudes for SDIV), and spreads
/// the M4's range over them: `2 + ceil(10 steps / 31)`, so 2 for a quotient
/// of one bit or none (and a division by zero, which returns 0 at once) and
/// 12 for 32 bits. What it is sure of is the shape: more cycles for wider
/// quotients, so that a division of a secret by a constant (KyberSlash)
/// shows its dependence on the secret, as silicon does; the figures in
/// between are an interpolation.
pub fn divide_cycles(dividend: u32, divisor: u32, signed: bool) -> u32 {
    let magnitude = |v: u32| if signed { (v as i32).unsigned_abs() } else { v };
    let (a, b) = (magnitude(dividend), magnitude(divisor));
    if b == 0 {
        return *DIVIDE_CYCLES.start();
    }
    let steps = b.leading_zeros().saturating_sub(a.leading_zeros());
    DIVIDE_CYCLES.start() + (10 * steps).div_ceil(31)
}

/// What the next instruction's cost depends on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Previous {
    /// A load the next load or store can pipeline behind: its destination.
    load_dest: Option<Reg>,
    /// A branch that may or may not be taken: its fall-through address.
    fall_through: Option<u32>,
}

impl Core {
    pub fn new(config: Config) -> Core {
        Core { config, ..Core::default() }
    }

    pub fn config(&self) -> Config {
        self.config
    }

    /// Every cycle charged so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// What the next instruction's cost depends on, after the last one.
    pub fn state(&self) -> State {
        State(self.previous)
    }

    /// Charges `cycles` worked out ahead for a run of instructions, and
    /// leaves the core as the last of them did (`state`): a straight run
    /// of code costs the same each time once its first instruction is
    /// charged, so a caller can charge the rest at once (see
    /// [`straight_run`]).
    pub fn advance(&mut self, cycles: u64, state: State) {
        self.cycles += cycles;
        self.previous = state.0;
    }

    /// Corrects the charge of a divide whose operands have been seen (an
    /// emulator that reads registers): it was charged [`Config::divide`]
    /// ahead, and costs [`divide_cycles`]. Returns the correction, which
    /// may be negative.
    pub fn divide_seen(&mut self, dividend: u32, divisor: u32, signed: bool) -> i64 {
        let correction = i64::from(divide_cycles(dividend, divisor, signed)) - i64::from(self.config.divide);
        self.cycles = self.cycles.saturating_add_signed(correction);
        correction
    }

    /// Charges `insn`, executed at `address`.
    pub fn execute(&mut self, insn: &Insn, address: u32) -> Charge {
        let refill = self.config.refill + self.config.flash_wait_states;
        let previous_refill = match self.previous.fall_through {
            Some(next) if next != address => refill,
            _ => 0,
        };
        let pipelined = |base: Reg, offset: Option<Reg>| {
            self.previous.load_dest.is_some_and(|dest| dest != base && Some(dest) != offset)
        };
        let mut next = Previous::default();
        let this = match insn.kind {
            Kind::Data { writes_pc } => 1 + if writes_pc { refill } else { 0 },
            Kind::Multiply => 1,
            Kind::Divide { .. } => self.config.divide,
            Kind::Load { dest, base, offset } => {
                let mut cycles = if pipelined(base, offset) { 1 } else { 2 };
                if base == decode::PC {
                    cycles += self.config.flash_wait_states;
                }
                if dest == decode::PC {
                    // The load, then the refill (table 3-1: 2+P).
                    2 + refill
                } else {
                    next.load_dest = Some(dest);
                    cycles
                }
            }
            Kind::StoreExclusive { base } => {
                // Pipelined as a load is; it writes a status register the
                // next instruction may address with, which the model does
                // not follow: it lets the next pipeline.
                next.load_dest = Some(decode::PC);
                if pipelined(base, None) { 1 } else { 2 }
            }
            // "STR Rx,[Ry,#imm] is always one cycle"; with a register
            // offset, two unless it follows a load, and nothing pipelines
            // behind it.
            Kind::Store { register_offset: false } => 1,
            Kind::Store { register_offset: true } => {
                if self.previous.load_dest.is_some() {
                    1
                } else {
                    2
                }
            }
            Kind::Dual => 3,
            Kind::Multiple { registers, writes_pc } => {
                1 + u32::from(registers) + if writes_pc { refill } else { 0 }
            }
            Kind::Branch => {
                next.fall_through = Some(address.wrapping_add(u32::from(insn.size)));
                1
            }
            Kind::TableBranch => 2 + refill,
            Kind::FloatLoadStore => 2,
            Kind::FloatMultiple { words } => 1 + u32::from(words),
            Kind::FloatDivide => 14,
            Kind::FloatMultiplyAccumulate => 3,
            Kind::InstructionBarrier => 1 + refill,
            Kind::FloatTransferPair => 2,
        };
        self.previous = next;
        self.cycles += u64::from(this) + u64::from(previous_refill);
        Charge { this, previous_refill }
    }
}

#[cfg(test)]
mod tests;

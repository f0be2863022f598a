//! Thumb-2 (ARMv7E-M) instructions, decoded as far as their timing needs:
//! what kind of operation, which registers a load writes and addresses
//! with, how many registers a multiple transfer moves, whether it may write
//! the PC. Encodings as in the ARMv7-M Architecture Reference Manual,
//! sections A5.2 (16-bit) and A5.3 (32-bit); anything not named here is
//! timed as a data operation.

/// A register number, 0 to 15 (13 SP, 14 LR, 15 PC).
pub type Reg = u8;

pub const PC: Reg = 15;

/// What an instruction is, for its timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ALU, shifts, moves, compares, bit-field, extend, saturate, reverse,
    /// single-cycle multiplies and DSP, IT, NOP, hints.
    Data { writes_pc: bool },
    /// MUL, MLA, MLS, the long multiplies and their accumulating forms: one
    /// cycle on the M4 (its single-cycle 32x32 MAC).
    Multiply,
    /// SDIV, UDIV of `dividend` by `divisor` (registers): 2 to 12 cycles,
    /// ending early on small quotients (see [`crate::divide_cycles`]).
    Divide { dividend: Reg, divisor: Reg, signed: bool },
    /// LDR, LDRB, LDRH, LDRSB, LDRSH (and their T forms), LDREX*.
    Load { dest: Reg, base: Reg, offset: Option<Reg> },
    /// STR, STRB, STRH: `register_offset` for the `[Rn, Rm]` forms.
    Store { register_offset: bool },
    /// STREX*: timed as a load (TRM 3.3.2).
    StoreExclusive { base: Reg },
    /// LDRD, STRD: three cycles, never pipelined with their neighbours.
    Dual,
    /// LDM, STM, PUSH, POP: one cycle plus one per register.
    Multiple { registers: u8, writes_pc: bool },
    /// B, B<cond>, BL, BX, BLX, CBZ, CBNZ.
    Branch,
    /// TBB, TBH: a load, an add and a refill.
    TableBranch,
    /// VLDR, VSTR.
    FloatLoadStore,
    /// VLDM, VSTM, VPUSH, VPOP, of `words` words.
    FloatMultiple { words: u8 },
    /// VDIV, VSQRT.
    FloatDivide,
    /// VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS.
    FloatMultiplyAccumulate,
    /// ISB: a barrier that refills the pipeline.
    InstructionBarrier,
    /// VMOV between two core registers and a double or two singles: two
    /// cycles, one per word.
    FloatTransferPair,
}

/// A decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub kind: Kind,
    /// 2 or 4 bytes.
    pub size: u8,
}

/// Whether `first` (the lower-addressed halfword) starts a 32-bit
/// instruction.
pub fn is_wide(first: u16) -> bool {
    matches!(first >> 11, 0b11101..=0b11111)
}

/// Decodes the instruction in `bytes` (little-endian halfwords, as in
/// memory): two bytes for a 16-bit one, four for a 32-bit one. `None`
/// when `bytes` is shorter than the instruction.
pub fn decode(bytes: &[u8]) -> Option<Insn> {
    let first = u16::from_le_bytes([*bytes.first()?, *bytes.get(1)?]);
    if is_wide(first) {
        let second = u16::from_le_bytes([*bytes.get(2)?, *bytes.get(3)?]);
        Some(Insn { kind: wide(first, second), size: 4 })
    } else {
        Some(Insn { kind: narrow(first), size: 2 })
    }
}

fn bits(value: u16, high: u32, low: u32) -> u16 {
    (value >> low) & ((1 << (high - low + 1)) - 1)
}

fn reg(value: u16, high: u32, low: u32) -> Reg {
    bits(value, high, low) as Reg
}

const DATA: Kind = Kind::Data { writes_pc: false };

/// A5.2: 16-bit encodings.
fn narrow(hw: u16) -> Kind {
    let load = |dest, base, offset| Kind::Load { dest, base, offset };
    match bits(hw, 15, 10) {
        // Shift, add, subtract, move, compare; data processing.
        0b000000..=0b010000 => {
            if bits(hw, 15, 6) == 0b0100001101 {
                Kind::Multiply
            } else {
                DATA
            }
        }
        // Special data instructions and branch and exchange.
        0b010001 => match bits(hw, 9, 8) {
            0b11 => Kind::Branch,
            // ADD, CMP, MOV of high registers: to the PC, a branch.
            op => {
                let rd = (bits(hw, 7, 7) << 3 | bits(hw, 2, 0)) as Reg;
                Kind::Data { writes_pc: op != 0b01 && rd == PC }
            }
        },
        // LDR (literal).
        0b010010 | 0b010011 => load(reg(hw, 10, 8), PC, None),
        // Load/store single data item.
        0b010100..=0b100111 => {
            let op_a = bits(hw, 15, 12);
            let op_b = bits(hw, 11, 9);
            let (rt, rn) = (reg(hw, 2, 0), reg(hw, 5, 3));
            match (op_a, op_b) {
                // Register offset: STR, STRH, STRB, then the loads.
                (0b0101, 0b000..=0b010) => Kind::Store { register_offset: true },
                (0b0101, _) => load(rt, rn, Some(reg(hw, 8, 6))),
                // Immediate offset (word, byte, halfword, SP-relative):
                // bit 11 is L.
                (_, _) if bits(hw, 11, 11) == 0 => Kind::Store { register_offset: false },
                (0b1001, _) => load(reg(hw, 10, 8), 13, None),
                _ => load(rt, rn, None),
            }
        }
        // ADR, ADD (SP plus immediate).
        0b101000..=0b101011 => DATA,
        // Miscellaneous.
        0b101100..=0b101111 => miscellaneous(hw),
        // STM, LDM: never the PC in their 16-bit forms.
        0b110000..=0b110011 => Kind::Multiple { registers: (hw & 0xff).count_ones() as u8, writes_pc: false },
        // Conditional branch, UDF, SVC.
        0b110100..=0b110111 => match bits(hw, 11, 8) {
            0b1110 | 0b1111 => DATA,
            _ => Kind::Branch,
        },
        // Unconditional branch.
        0b111000 | 0b111001 => Kind::Branch,
        _ => DATA,
    }
}

/// A5.2.5: miscellaneous 16-bit instructions.
fn miscellaneous(hw: u16) -> Kind {
    match bits(hw, 11, 5) {
        // CBZ, CBNZ.
        op if op & 0b0101000 == 0b0001000 => Kind::Branch,
        // PUSH: the list, and LR if M.
        0b0100000..=0b0101111 => Kind::Multiple {
            registers: ((hw & 0xff).count_ones() + u32::from(bits(hw, 8, 8))) as u8,
            writes_pc: false,
        },
        // POP: the list, and the PC if P.
        0b1100000..=0b1101111 => Kind::Multiple {
            registers: ((hw & 0xff).count_ones() + u32::from(bits(hw, 8, 8))) as u8,
            writes_pc: bits(hw, 8, 8) == 1,
        },
        // Everything else here (SP adjustments, extends, REV, CPS, BKPT,
        // IT, hints) is one cycle.
        _ => DATA,
    }
}

/// A5.3: 32-bit encodings.
fn wide(hw1: u16, hw2: u16) -> Kind {
    let op1 = bits(hw1, 12, 11);
    let op2 = bits(hw1, 10, 4);
    match op1 {
        0b01 if op2 & 0b1100100 == 0b0000000 => load_store_multiple(hw1, hw2),
        0b01 if op2 & 0b1100100 == 0b0000100 => dual_exclusive_table(hw1, hw2),
        0b01 if op2 & 0b1100000 == 0b0100000 => DATA,
        0b01 | 0b11 if op2 & 0b1000000 != 0 => coprocessor(hw1, hw2),
        0b10 if bits(hw2, 15, 15) == 1 => branch_or_control(hw1, hw2),
        0b10 => DATA,
        0b11 => match op2 {
            op2 if op2 & 0b1110001 == 0b0000000 => {
                // Store single: register offset when hw1[7] is 0 and
                // hw2[11:6] is 0.
                Kind::Store { register_offset: bits(hw1, 7, 7) == 0 && bits(hw2, 11, 6) == 0 }
            }
            op2 if op2 & 0b1100001 == 0b0000001 => load_single(hw1, hw2),
            op2 if op2 & 0b1111000 == 0b0110000 => Kind::Multiply,
            op2 if op2 & 0b1111000 == 0b0111000 => match bits(hw1, 6, 4) {
                // SDIV (001), UDIV (011): Rn by Rm.
                op @ (0b001 | 0b011) => {
                    Kind::Divide { dividend: reg(hw1, 3, 0), divisor: reg(hw2, 3, 0), signed: op == 0b001 }
                }
                _ => Kind::Multiply,
            },
            _ => DATA,
        },
        _ => DATA,
    }
}

/// A5.3.5: LDM, STM (and PUSH, POP in their 32-bit forms).
fn load_store_multiple(hw1: u16, hw2: u16) -> Kind {
    let load = bits(hw1, 4, 4) == 1;
    match bits(hw1, 8, 7) {
        // SRS, RFE: not in ARMv7-M.
        0b00 | 0b11 => DATA,
        _ => Kind::Multiple { registers: hw2.count_ones() as u8, writes_pc: load && bits(hw2, 15, 15) == 1 },
    }
}

/// A5.3.6: load/store dual or exclusive, table branch.
fn dual_exclusive_table(hw1: u16, hw2: u16) -> Kind {
    let (op1, op2) = (bits(hw1, 8, 7), bits(hw1, 5, 4));
    let (rn, rt) = (reg(hw1, 3, 0), reg(hw2, 15, 12));
    match (op1, op2) {
        // STREX.
        (0b00, 0b00) => Kind::StoreExclusive { base: rn },
        // LDREX.
        (0b00, 0b01) => Kind::Load { dest: rt, base: rn, offset: None },
        (0b01, 0b00) => Kind::StoreExclusive { base: rn },
        (0b01, 0b01) => match bits(hw2, 7, 4) {
            0b0000 | 0b0001 => Kind::TableBranch,
            _ => Kind::Load { dest: rt, base: rn, offset: None },
        },
        // LDRD, STRD.
        _ => Kind::Dual,
    }
}

/// A5.3.4: branches and miscellaneous control.
fn branch_or_control(hw1: u16, hw2: u16) -> Kind {
    let op = bits(hw1, 10, 4);
    match bits(hw2, 14, 12) {
        // B<cond>.W when op is not 111xxxx; otherwise MSR, MRS, hints,
        // barriers.
        0b000 | 0b010 if op & 0b0111000 != 0b0111000 => Kind::Branch,
        0b000 | 0b010 if op == 0b0111011 && bits(hw2, 7, 4) == 0b0110 => Kind::InstructionBarrier,
        0b000 | 0b010 => DATA,
        // B.W, BL.
        _ => Kind::Branch,
    }
}

/// A5.3.7 to A5.3.10: load byte, halfword, word.
fn load_single(hw1: u16, hw2: u16) -> Kind {
    let (rn, rt) = (reg(hw1, 3, 0), reg(hw2, 15, 12));
    // PLD, PLI: hints with Rt = PC, one cycle. A word load to the PC is
    // a load, then a refill.
    let word = bits(hw1, 6, 5) == 0b10;
    if rt == PC && !word {
        return DATA;
    }
    let register_offset = rn != PC && bits(hw1, 7, 7) == 0 && bits(hw2, 11, 6) == 0;
    Kind::Load { dest: rt, base: rn, offset: register_offset.then(|| reg(hw2, 3, 0)) }
}

/// A6: the floating-point extension (coprocessors 10 and 11). Other
/// coprocessors do not exist on the M4; they are timed as data operations.
fn coprocessor(hw1: u16, hw2: u16) -> Kind {
    if bits(hw2, 11, 9) != 0b101 {
        return DATA;
    }
    match bits(hw1, 11, 8) {
        // Extension register load/store (A6.5): VLDR/VSTR when P=1 and
        // W=0, multiples otherwise; the 64-bit moves to and from two core
        // registers (A6.8, op 0b0010x) fall here too.
        0b1100 | 0b1101 => {
            let (p, w) = (bits(hw1, 8, 8), bits(hw1, 5, 5));
            if bits(hw1, 8, 5) == 0b0010 {
                Kind::FloatTransferPair
            } else if p == 1 && w == 0 {
                Kind::FloatLoadStore
            } else {
                Kind::FloatMultiple { words: (hw2 & 0xff) as u8 }
            }
        }
        // Data processing (A6.4), when hw2[4] is 0; transfers otherwise.
        0b1110 if bits(hw2, 4, 4) == 0 => {
            let opc1 = bits(hw1, 7, 4) & 0b1011;
            let opc2 = bits(hw1, 3, 0);
            let opc3 = bits(hw2, 7, 6);
            match opc1 {
                0b0000 | 0b0001 | 0b1001 | 0b1010 => Kind::FloatMultiplyAccumulate,
                0b1000 => Kind::FloatDivide,
                0b1011 if opc2 == 0b0001 && opc3 == 0b11 => Kind::FloatDivide,
                _ => DATA,
            }
        }
        _ => DATA,
    }
}

//! The model on short sequences whose cycles the Cortex-M4 TRM gives
//! (table 3-1 and the examples of 3.3.2), each instruction hand-encoded
//! with its assembly beside it.

use super::*;

/// An instruction's halfwords, in order.
enum Op {
    N(u16),
    W(u16, u16),
}

fn bytes(op: &Op) -> ([u8; 4], usize) {
    match *op {
        Op::N(hw) => {
            let [a, b] = hw.to_le_bytes();
            ([a, b, 0, 0], 2)
        }
        Op::W(hw1, hw2) => {
            let ([a, b], [c, d]) = (hw1.to_le_bytes(), hw2.to_le_bytes());
            ([a, b, c, d], 4)
        }
    }
}

fn insn(op: &Op) -> Insn {
    let (bytes, len) = bytes(op);
    let insn = decode(&bytes[..len]).unwrap();
    assert_eq!(usize::from(insn.size), len);
    insn
}

/// The cycles of `ops` executed one after another from 0x1000, each at the
/// address after the one before, then an instruction at `then` (where the
/// last one went), whose own cycle is not counted.
fn cycles_with(config: Config, ops: &[Op], then: Option<u32>) -> u64 {
    let mut core = Core::new(config);
    let mut address = 0x1000;
    for op in ops {
        let insn = insn(op);
        core.execute(&insn, address);
        address += u32::from(insn.size);
    }
    let after = core.cycles();
    let landed = core.execute(&insn(&Op::N(0xbf00)), then.unwrap_or(address));
    after + u64::from(landed.previous_refill)
}

fn cycles(ops: &[Op]) -> u64 {
    cycles_with(Config::default(), ops, None)
}

const LDR_R0_R1: Op = Op::N(0x6808); // ldr r0, [r1]
const LDR_R1_R2: Op = Op::N(0x6811); // ldr r1, [r2]
const LDR_R2_R0: Op = Op::N(0x6802); // ldr r2, [r0]
const P: u64 = 2;

#[test]
fn a_load_takes_two_cycles_and_one_behind_a_load_it_pipelines_with() {
    assert_eq!(cycles(&[LDR_R0_R1]), 2);
    // TRM 3.3.2: "LDR R0,[R1]; LDR R1,[R2] - normally three cycles total".
    assert_eq!(cycles(&[LDR_R0_R1, LDR_R1_R2]), 3);
    // "LDR R0,[R1,R5]; LDR R1,[R2]; LDR R2,[R3,#4] - normally four cycles".
    assert_eq!(cycles(&[Op::N(0x5948), LDR_R1_R2, Op::N(0x685a)]), 4);
    // "LDR R0,[R1,R2]; STR R0,[R3,#20]" and "LDR R0,[R1,R2]; STR R1,[R3,R2]":
    // three cycles each.
    assert_eq!(cycles(&[Op::N(0x5888), Op::N(0x6158)]), 3);
    assert_eq!(cycles(&[Op::N(0x5888), Op::N(0x5099)]), 3);
    // A load that addresses with the one before's result waits for it.
    assert_eq!(cycles(&[LDR_R0_R1, LDR_R2_R0]), 4);
    // ldr.w r0, [r1, #4]; ldr.w r2, [r3, r4]: the wide forms alike.
    assert_eq!(cycles(&[Op::W(0xf8d1, 0x0004), Op::W(0xf853, 0x2004)]), 3);
    assert_eq!(cycles(&[Op::W(0xf8d1, 0x0004), Op::W(0xf850, 0x2004)]), 4, "ldr.w r2, [r0, r4]");
}

#[test]
fn stores_with_an_immediate_offset_take_one_cycle_and_nothing_pipelines_behind_a_store() {
    // str r0, [r3, #20]; str r1, [r3, r2]; ldr r1, [r2]
    assert_eq!(cycles(&[Op::N(0x6158)]), 1);
    assert_eq!(cycles(&[Op::N(0x5099)]), 2);
    assert_eq!(cycles(&[Op::N(0x6158), LDR_R1_R2]), 3);
    // str.w r0, [r1, r2]: a register offset.
    assert_eq!(cycles(&[Op::W(0xf841, 0x0002)]), 2);
}

#[test]
fn a_taken_branch_costs_one_and_the_refill_and_one_not_taken_one() {
    // b . (taken: the next instruction is not the one after it)
    assert_eq!(cycles_with(Config::default(), &[Op::N(0xe7fe)], Some(0x1000)), 1 + P);
    // beq: not taken, then taken.
    assert_eq!(cycles(&[Op::N(0xd001)]), 1);
    assert_eq!(cycles_with(Config::default(), &[Op::N(0xd001)], Some(0x1006)), 1 + P);
    // cbz r0; bx lr; bl; beq.w: all branches.
    for op in [Op::N(0xb100), Op::N(0x4770), Op::W(0xf000, 0xf800), Op::W(0xf000, 0x8000)] {
        assert_eq!(cycles_with(Config::default(), &[op], Some(0x2000)), 1 + P);
    }
    // The refill grows with the flash's wait states; a refill of 1 is
    // the fastest silicon gives.
    let slow = Config { flash_wait_states: 5, ..Config::default() };
    assert_eq!(cycles_with(slow, &[Op::N(0xe7fe)], Some(0x1000)), 1 + P + 5);
    let fast = Config { refill: 1, ..Config::default() };
    assert_eq!(cycles_with(fast, &[Op::N(0xe7fe)], Some(0x1000)), 2);
}

#[test]
fn writing_the_pc_refills_the_pipeline() {
    // mov pc, lr: 1 + P.
    assert_eq!(cycles(&[Op::N(0x46f7)]), 1 + P);
    // pop {r4, pc}: 1 + N + P.
    assert_eq!(cycles(&[Op::N(0xbd10)]), 1 + 2 + P);
    // ldr pc, [sp], #4 and tbb [r0, r1]: 2 + P (table 3-1). 3.3.2's prose
    // narrates them with a refill of three: "at least two cycles for the
    // load, and three cycles for the pipeline reload"; POP with the PC was
    // already 1 + N + P, so all three refill alike.
    assert_eq!(cycles(&[Op::W(0xf85d, 0xfb04)]), 2 + P);
    assert_eq!(cycles(&[Op::W(0xe8d0, 0xf001)]), 2 + P);
    let slow = Config { refill: 3, flash_wait_states: 1, ..Config::default() };
    assert_eq!(cycles_with(slow, &[Op::W(0xf85d, 0xfb04)], None), 2 + 3 + 1);
    assert_eq!(cycles_with(slow, &[Op::W(0xe8d0, 0xf001)], None), 2 + 3 + 1);
    // isb: 1 + P.
    assert_eq!(cycles(&[Op::W(0xf3bf, 0x8f6f)]), 1 + P);
    // dmb: a barrier with nothing to wait for.
    assert_eq!(cycles(&[Op::W(0xf3bf, 0x8f5f)]), 1);
}

#[test]
fn multiple_transfers_take_one_cycle_and_one_per_register() {
    // ldmia r0!, {r1-r4}
    assert_eq!(cycles(&[Op::N(0xc81e)]), 1 + 4);
    // ldmia.w r0, {r1-r8}: "an eight element store takes nine cycles".
    assert_eq!(cycles(&[Op::W(0xe890, 0x01fe)]), 1 + 8);
    // stmia.w r0, {r1-r8}
    assert_eq!(cycles(&[Op::W(0xe880, 0x01fe)]), 1 + 8);
    // push {r4-r7, lr}
    assert_eq!(cycles(&[Op::N(0xb5f0)]), 1 + 5);
    // A load behind a multiple is not pipelined.
    assert_eq!(cycles(&[Op::N(0xc81e), LDR_R1_R2]), 1 + 4 + 2);
    // ldrd r0, r1, [r2]: three, and no pipelining either side.
    assert_eq!(cycles(&[LDR_R2_R0, Op::W(0xe9d2, 0x0100), LDR_R1_R2]), 2 + 3 + 2);
}

#[test]
fn multiplies_take_one_cycle_and_divides_what_the_configuration_says() {
    // muls r0, r1; mla r0, r1, r2, r3; umull r0, r1, r2, r3; smlal r0, r1, r2, r3
    for op in [Op::N(0x4348), Op::W(0xfb01, 0x3002), Op::W(0xfba2, 0x0103), Op::W(0xfbc2, 0x0103)] {
        assert_eq!(insn(&op).kind, Kind::Multiply);
        assert_eq!(cycles(&[op]), 1);
    }
    // udiv r0, r1, r2; sdiv r3, r4, r5: unseen operands, the configured 7.
    for (op, signed) in [(Op::W(0xfbb1, 0xf0f2), false), (Op::W(0xfb94, 0xf3f5), true)] {
        let (dividend, divisor) = if signed { (4, 5) } else { (1, 2) };
        assert_eq!(insn(&op).kind, Kind::Divide { dividend, divisor, signed });
        assert_eq!(cycles(&[op]), 7);
    }
    let fast = Config { divide: 2, ..Config::default() };
    assert_eq!(cycles_with(fast, &[Op::W(0xfbb1, 0xf0f2)], None), 2);
}

#[test]
fn a_divide_whose_operands_are_seen_costs_by_its_quotient_s_width() {
    // The ends of the TRM's 2 to 12: a quotient of at most one bit, and
    // of 32; a division by zero returns at once.
    assert_eq!(divide_cycles(5, 7, false), 2);
    assert_eq!(divide_cycles(7, 5, false), 2);
    assert_eq!(divide_cycles(1 << 4, 1, false), 2 + 2);
    assert_eq!(divide_cycles(u32::MAX, 1, false), 12);
    assert_eq!(divide_cycles(123, 0, false), 2);
    // KyberSlash's division: a coefficient times 2^d plus q/2, by q = 3329
    // (12 bits). A small one ends sooner than a large one.
    let kyberslash = |coefficient: u32| divide_cycles((coefficient << 4) + 1664, 3329, false);
    assert!(kyberslash(1) < kyberslash(3328), "{} {}", kyberslash(1), kyberslash(3328));
    assert_eq!((kyberslash(1), kyberslash(3328)), (2, 4));
    // SDIV by magnitudes: -2^31 / 1 is as wide as 2^31 / 1.
    assert_eq!(divide_cycles(i32::MIN as u32, 1, true), divide_cycles(1 << 31, 1, false));
    assert_eq!(divide_cycles((-7i32) as u32, 5, true), divide_cycles(7, 5, false));
    // Every width lands in the range, rising with it.
    let mut last = 0;
    for shift in 0..32 {
        let cycles = divide_cycles(1 << shift, 1, false);
        assert!(DIVIDE_CYCLES.contains(&cycles) && cycles >= last, "{shift}: {cycles}");
        last = cycles;
    }
    // Seen after it was charged the configured 7: corrected to its own.
    let mut core = Core::new(Config::default());
    core.execute(&insn(&Op::W(0xfbb1, 0xf0f2)), 0x1000);
    assert_eq!(core.divide_seen(u32::MAX, 1, false), 12 - 7);
    assert_eq!(core.cycles(), 12);
    assert_eq!(core.divide_seen(1, 3, false), 2 - 7);
    assert_eq!(core.cycles(), 7);
}

#[test]
fn the_fpu_s_loads_divides_and_accumulates() {
    // vldr s0, [r0]; vpush {s16-s31}; vdiv.f32 s0, s1, s2; vadd.f32; vmla.f32
    assert_eq!(cycles(&[Op::W(0xed90, 0x0a00)]), 2);
    assert_eq!(cycles(&[Op::W(0xed2d, 0x8a10)]), 1 + 16);
    assert_eq!(cycles(&[Op::W(0xee80, 0x0a81)]), 14);
    assert_eq!(cycles(&[Op::W(0xee30, 0x0a81)]), 1);
    assert_eq!(cycles(&[Op::W(0xee00, 0x0a81)]), 3);
    // vmov r0, r1, d0 and vmov d0, r0, r1: two words, two cycles; vmov
    // r0, s0 one.
    assert_eq!(insn(&Op::W(0xec51, 0x0b10)).kind, Kind::FloatTransferPair);
    assert_eq!(cycles(&[Op::W(0xec51, 0x0b10)]), 2);
    assert_eq!(cycles(&[Op::W(0xec41, 0x0b10)]), 2);
    assert_eq!(cycles(&[Op::W(0xee10, 0x0a10)]), 1);
}

#[test]
fn literal_loads_pay_the_flash_s_wait_states() {
    // ldr r0, [pc, #4]
    assert_eq!(insn(&Op::N(0x4801)).kind, Kind::Load { dest: 0, base: decode::PC, offset: None });
    assert_eq!(cycles(&[Op::N(0x4801)]), 2);
    let slow = Config { flash_wait_states: 5, ..Config::default() };
    assert_eq!(cycles_with(slow, &[Op::N(0x4801)], None), 7);
    // A data load does not.
    assert_eq!(cycles_with(slow, &[LDR_R0_R1], None), 2);
}

#[test]
fn hints_and_everything_else_take_one_cycle() {
    // it eq; nop; pld [r0]; adds r0, r1, r2; add.w r0, r1, #1; bfi; rev
    for op in [
        Op::N(0xbf08),
        Op::N(0xbf00),
        Op::W(0xf890, 0xf000),
        Op::N(0x1888),
        Op::W(0xf101, 0x0001),
        Op::W(0xf361, 0x0007),
        Op::N(0xba08),
    ] {
        assert_eq!(insn(&op).kind, Kind::Data { writes_pc: false });
        assert_eq!(cycles(&[op]), 1);
    }
}

#[test]
fn a_halfword_short_of_a_wide_instruction_is_no_instruction() {
    assert_eq!(decode(&[0x00, 0xf0]), None);
    assert_eq!(decode(&[0x08]), None);
    assert!(decode(&[0x08, 0x68]).is_some());
}

/// A run charged as a block (its first instruction as it executes, the
/// rest worked out ahead) costs what the instructions charged one by one
/// do, across the loads that pipeline inside it and behind the run before
/// it, and the taken branch that ends it.
#[test]
fn a_straight_run_charged_at_once_costs_what_its_instructions_do() {
    // ldr r0,[r1]; ldr r1,[r2]; adds; ldr r2,[r0]; str r0,[r1,#4]; beq
    let first = [LDR_R0_R1, LDR_R1_R2, Op::N(0x1888), LDR_R2_R0, Op::N(0x6048), Op::N(0xd001)];
    // ldr r0,[r1] at the branch's target; mul; bx lr
    let second = [LDR_R0_R1, Op::W(0xfb01, 0xf002), Op::N(0x4770)];
    let placed = |ops: &[Op], mut address: u32| -> alloc::vec::Vec<(Insn, u32)> {
        ops.iter()
            .map(|op| {
                let insn = insn(op);
                let at = (insn, address);
                address += u32::from(insn.size);
                at
            })
            .collect()
    };
    let runs = [placed(&first, 0x1000), placed(&second, 0x1100), placed(&first, 0x1000)];
    let config = Config::default();

    let mut one_by_one = Core::new(config);
    let mut by_runs = Core::new(config);
    for run in &runs {
        for (insn, address) in run {
            one_by_one.execute(insn, *address);
        }
        let (rest, state) = straight_run(config, run);
        by_runs.execute(&run[0].0, run[0].1);
        by_runs.advance(rest, state);
        assert_eq!(by_runs.cycles(), one_by_one.cycles());
        assert_eq!(by_runs.state(), one_by_one.state());
    }
    // The taken branch's refill is charged when the next run begins.
    assert!(one_by_one.cycles() > 0);
}

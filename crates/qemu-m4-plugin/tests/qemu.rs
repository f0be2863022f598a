//! The plugin in the real QEMU (`qemu-system-arm`, mps2-an386): a
//! hand-assembled image runs a counted loop and ends through semihosting,
//! and the plugin's cycles are the TRM's for that instruction stream. Both
//! builds: plugin API 1 in Debian 12's QEMU 7.2, API 2 in QEMU 10.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A QEMU and the plugin build it loads.
#[derive(Clone)]
struct Emulator {
    qemu: PathBuf,
    plugin: PathBuf,
}

/// Debian 12's QEMU 7.2 on PATH, with the API 1 plugin cargo built for
/// this test.
fn qemu_7() -> Result<Emulator, pqbench_test_needs::Missing> {
    Ok(Emulator { qemu: qemu()?, plugin: plugin() })
}

/// QEMU 10 with the API 2 plugin, built here by cargo into a target folder
/// of its own (`<target>/plugin-api-2`, where `cargo xtask` builds it too),
/// so the test runs the code as it is.
fn qemu_10() -> Result<Emulator, pqbench_test_needs::Missing> {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let qemu = pqbench_test_needs::qemu_10()?;
    let plugin = BUILT.get_or_init(|| {
        let target = pqbench_test_needs::dist().parent().unwrap().join("plugin-api-2");
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--package", "pqbench-qemu-m4-plugin", "--features", "api-v2"])
            .arg("--target-dir")
            .arg(&target)
            .status()
            .unwrap();
        assert!(status.success(), "building the API 2 plugin");
        target.join("release/libpqbench_qemu_m4_plugin.so")
    });
    Ok(Emulator { qemu, plugin: plugin.clone() })
}

/// The plugin cargo built for this test: beside it in `deps/` (or, built
/// by `cargo build`, one folder up).
fn plugin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let file = "libpqbench_qemu_m4_plugin.so";
    let plugin = [deps.join(file), deps.parent().unwrap().join(file)].into_iter().find(|p| p.is_file());
    plugin.unwrap_or_else(|| panic!("no {file} beside {}", exe.display()))
}

/// The image: a vector table (stack at the top of the first 4 KiB of
/// SSRAM2, reset at 0x40), then at 0x40:
///
/// ```text
///        movs  r0, #10            @ 1
///        mov.w r2, #0x20000000    @ 1
/// loop:  ldr   r1, [r2]           @ 2
///        subs  r0, #1             @ 1
///        bne   loop               @ 1 + P taken (9 times), 1 not taken
///        movs  r0, #0x18          @ 1  SYS_EXIT
///        movw  r1, #0x26          @ 1  ADP_Stopped_ApplicationExit
///        movt  r1, #2             @ 1
///        bkpt  #0xab              @ 1  semihosting
/// ```
///
/// (encodings from `llvm-mc -show-encoding`).
fn counted_loop() -> Vec<u8> {
    image(&[
        0x0a, 0x20, // movs r0, #10
        0x4f, 0xf0, 0x00, 0x52, // mov.w r2, #0x20000000
        0x11, 0x68, // loop: ldr r1, [r2]
        0x01, 0x38, // subs r0, #1
        0xfc, 0xd1, // bne loop
        0x18, 0x20, // movs r0, #0x18
        0x40, 0xf2, 0x26, 0x01, // movw r1, #0x26
        0xc0, 0xf2, 0x02, 0x01, // movt r1, #2
        0xab, 0xbe, // bkpt #0xab
    ])
}

/// The same loop measured twice as the suite marks a measurement
/// (`pqbench_suite::Mark`: DBG #1 operation start, #2/#3 around each
/// sample, #4 operation end):
///
/// ```text
/// 0x40        dbg   #1
/// 0x44        movs  r3, #2
/// 0x46 outer: dbg   #2
/// 0x4a        movs  r0, #10
/// 0x4c        mov.w r2, #0x20000000
/// 0x50 loop:  ldr   r1, [r2]
/// 0x52        subs  r0, #1
/// 0x54        bne   loop
/// 0x56        dbg   #3
/// 0x5a        subs  r3, #1
/// 0x5c        bne   outer
/// 0x5e        dbg   #4
///             (the semihosting exit as above)
/// ```
fn marked_loop() -> Vec<u8> {
    image(&[
        0xaf, 0xf3, 0xf1, 0x80, // dbg #1
        0x02, 0x23, // movs r3, #2
        0xaf, 0xf3, 0xf2, 0x80, // outer: dbg #2
        0x0a, 0x20, // movs r0, #10
        0x4f, 0xf0, 0x00, 0x52, // mov.w r2, #0x20000000
        0x11, 0x68, // loop: ldr r1, [r2]
        0x01, 0x38, // subs r0, #1
        0xfc, 0xd1, // bne loop
        0xaf, 0xf3, 0xf3, 0x80, // dbg #3
        0x01, 0x3b, // subs r3, #1
        0xf3, 0xd1, // bne outer
        0xaf, 0xf3, 0xf4, 0x80, // dbg #4
        0x18, 0x20, // movs r0, #0x18
        0x40, 0xf2, 0x26, 0x01, // movw r1, #0x26
        0xc0, 0xf2, 0x02, 0x01, // movt r1, #2
        0xab, 0xbe, // bkpt #0xab
    ])
}

/// A vector table (stack at the top of the first 4 KiB of SSRAM2, reset
/// at 0x40), then `code` at 0x40.
fn image(code: &[u8]) -> Vec<u8> {
    let mut image = vec![0u8; 0x40];
    image[0..4].copy_from_slice(&0x2000_1000u32.to_le_bytes());
    image[4..8].copy_from_slice(&0x41u32.to_le_bytes());
    image.extend_from_slice(code);
    image
}

/// QEMU itself, which `cargo xtask setup` installs.
fn qemu() -> Result<PathBuf, pqbench_test_needs::Missing> {
    pqbench_test_needs::program(&["qemu-system-arm"], "`cargo xtask setup` installs qemu-system-arm")
}

fn run(dir: &Path, options: &str) -> Output {
    run_image(&qemu_7().unwrap(), dir, &counted_loop(), options)
}

fn run_image(emulator: &Emulator, dir: &Path, image: &[u8], options: &str) -> Output {
    let kernel = dir.join("loop.bin");
    std::fs::write(&kernel, image).unwrap();
    let mut plugin = format!("{}", emulator.plugin.display());
    if !options.is_empty() {
        plugin = format!("{plugin},{options}");
    }
    Command::new("timeout")
        .arg("30")
        .arg(&emulator.qemu)
        .args(["-M", "mps2-an386", "-nographic", "-monitor", "none", "-serial", "none"])
        // The plugin speaks through QEMU's log, which `-d plugin` shows.
        .args([
            "-d",
            "plugin",
            "-icount",
            "shift=0",
            "-semihosting-config",
            "enable=on,target=native",
            "-kernel",
        ])
        .arg(&kernel)
        .args(["-plugin", &plugin])
        .output()
        .unwrap()
}

fn counts(dir: &Path, options: &str) -> (u64, u64) {
    counts_of(&qemu_7().unwrap(), dir, &counted_loop(), options)
}

fn counts_of(emulator: &Emulator, dir: &Path, image: &[u8], options: &str) -> (u64, u64) {
    let out = dir.join("counts.txt");
    let output = run_image(emulator, dir, image, &format!("out={}{options}", out.display()));
    assert!(output.status.success(), "qemu: {output:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    let value = |key: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(key)?.trim().parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no {key} in {text:?}"))
    };
    (value("m4-model-cycles "), value("instructions "))
}

#[test]
fn a_counted_loop_costs_what_the_trm_says_and_the_same_every_run() {
    pqbench_test_needs::require!(qemu());
    let dir = tempfile_dir();
    let (cycles, instructions) = counts(&dir, "");
    // 2 before the loop, 3 per pass, 4 after.
    assert_eq!(instructions, 2 + 10 * 3 + 4);
    // 1 + 1; nine passes of 2 + 1 + (1 + P); the last of 2 + 1 + 1; 4 x 1.
    let p = 2;
    assert_eq!(cycles, 2 + 9 * (2 + 1 + 1 + p) + (2 + 1 + 1) + 4);
    assert_eq!(counts(&dir, "").0, cycles, "a second run counts the same");
    // The refill is the model's parameter, and so are the wait states.
    assert_eq!(counts(&dir, ",refill=1").0, cycles - 9);
    assert_eq!(counts(&dir, ",wait_states=5").0, cycles + 9 * 5);
}

#[test]
fn each_marked_sample_is_counted_and_its_cycles_placed_by_address() {
    pqbench_test_needs::require!(qemu());
    use pqbench_m4_model::counts::Sample;

    let dir = tempfile_dir();
    let operations = marked_counts(&qemu_7().unwrap(), &dir);
    assert_eq!(operations.len(), 1);
    // After DBG #2: movs, mov.w (1 + 1), the loop (10 x (2 + 1 + 1) and
    // 9 refills of 2), DBG #3 (1); 2 + 30 + 1 instructions.
    let sample = Sample { cycles: 1 + 1 + 10 * 4 + 9 * 2 + 1, instructions: 33, hashing: None };
    assert_eq!(operations[0].samples, vec![sample, sample]);
    // Every cycle of the samples is placed, by the block it was spent in,
    // and only those. QEMU's blocks end at branches: 0x40 (first pass) and
    // 0x46 (second) run from the start to `bne loop`, of which the sample
    // holds movs, mov.w and one pass (6) and the taken branch's refill (2);
    // the loop's block at 0x50 runs 9 times (4 each, 8 refills of 2); the
    // block at 0x56 gives DBG #3 alone (1), the rest is after the sample.
    let at: std::collections::BTreeMap<u32, u64> = operations[0].at.iter().copied().collect();
    assert_eq!(at.values().sum::<u64>(), 2 * sample.cycles);
    let expected = [(0x40, 6 + 2), (0x46, 6 + 2), (0x50, 2 * (9 * 4 + 8 * 2)), (0x56, 2)];
    assert_eq!(at, expected.into_iter().collect());
}

#[test]
fn a_sample_says_its_cycles_in_the_code_named_hashing() {
    pqbench_test_needs::require!(qemu());
    let dir = tempfile_dir();
    // The loop's block, 0x50 to 0x56, stands for a hash function: in each
    // sample it runs 9 times (4 each) and refills 8 times (2 each) after
    // the pass that entered it from 0x46; the rest is not hashing.
    let ranges = dir.join("hashing.txt");
    std::fs::write(&ranges, "50 56\n\n").unwrap();
    let out = dir.join("hashing-counts.txt");
    let options = format!("out={},hashing={}", out.display(), ranges.display());
    let output = run_image(&qemu_7().unwrap(), &dir, &marked_loop(), &options);
    assert!(output.status.success(), "qemu: {output:?}");
    let operations =
        pqbench_m4_model::counts::Reader::new().feed(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let hashing: Vec<_> = operations[0].samples.iter().map(|s| s.hashing).collect();
    assert_eq!(hashing, [Some(9 * 4 + 8 * 2); 2]);
    // A ranges file that is not one stops QEMU with why.
    std::fs::write(&ranges, "50 zz\n").unwrap();
    let output = run_image(&qemu_7().unwrap(), &dir, &marked_loop(), &options);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("is not `start end` in hexadecimal"),
        "{output:?}"
    );
}

/// The marked loop's blocks of counts, read back.
fn marked_counts(emulator: &Emulator, dir: &Path) -> Vec<pqbench_m4_model::counts::OperationCounts> {
    let out = dir.join("marked.txt");
    let output = run_image(emulator, dir, &marked_loop(), &format!("out={}", out.display()));
    assert!(output.status.success(), "qemu: {output:?}");
    let mut reader = pqbench_m4_model::counts::Reader::new();
    let operations = reader.feed(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(reader.total_cycles.is_some());
    operations
}

#[test]
fn both_plugin_builds_count_alike_on_their_qemus_where_nothing_divides() {
    let old = pqbench_test_needs::require!(qemu_7());
    let new = pqbench_test_needs::require!(qemu_10());
    let dir = tempfile_dir();
    for options in ["", ",refill=1", ",wait_states=5"] {
        let on_7 = counts_of(&old, &dir, &counted_loop(), options);
        assert_eq!(counts_of(&new, &dir, &counted_loop(), options), on_7, "{options}");
    }
    assert_eq!(marked_counts(&new, &dir), marked_counts(&old, &dir));
}

/// A loop of ten `udiv r0, r4, r5` with r4 = `dividend`, r5 = `divisor`:
///
/// ```text
///        movw  r4, #lo(dividend)
///        movt  r4, #hi(dividend)
///        movs  r5, #divisor       @ divisor < 256
///        movs  r3, #10
/// loop:  udiv  r0, r4, r5
///        subs  r3, #1
///        bne   loop
///        (the semihosting exit)
/// ```
fn divide_loop(dividend: u32, divisor: u8) -> Vec<u8> {
    let [movw, movt] = [dividend as u16, (dividend >> 16) as u16].map(|half| {
        let (i, imm4, imm3, imm8) = (half >> 11 & 1, half >> 12, half >> 8 & 7, half & 0xff);
        (i << 10 | imm4, imm3 << 12 | 4 << 8 | imm8)
    });
    let halfwords = [
        0xf240 | movw.0,
        movw.1,
        0xf2c0 | movt.0,
        movt.1,
        0x2500 | u16::from(divisor), // movs r5, #divisor
        0x230a,                      // movs r3, #10
        0xfbb4,
        0xf0f5, // loop: udiv r0, r4, r5
        0x3b01, // subs r3, #1
        0xd1fb, // bne loop
        0x2018, // movs r0, #0x18
        0xf240,
        0x0126, // movw r1, #0x26
        0xf2c0,
        0x0102, // movt r1, #2
        0xbeab, // bkpt #0xab
    ];
    image(&halfwords.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>())
}

#[test]
fn on_qemu_10_a_divide_costs_by_its_operands_and_on_7_2_what_the_option_says() {
    let old = pqbench_test_needs::require!(qemu_7());
    let new = pqbench_test_needs::require!(qemu_10());
    let dir = tempfile_dir();
    // A 32-bit quotient (12 cycles) against one of no bits (2 cycles),
    // each ten times, in the same instructions.
    let wide = counts_of(&new, &dir, &divide_loop(u32::MAX, 1), "");
    let narrow = counts_of(&new, &dir, &divide_loop(5, 7), "");
    assert_eq!(wide.1, narrow.1, "the same instructions");
    assert_eq!(wide.0 - narrow.0, 10 * (12 - 2), "{wide:?} {narrow:?}");
    // QEMU 7.2 lets no plugin read registers: each divide is the option's.
    let unseen = counts_of(&old, &dir, &divide_loop(u32::MAX, 1), "");
    assert_eq!(unseen, counts_of(&old, &dir, &divide_loop(5, 7), ""));
    assert_eq!(unseen.0 - narrow.0, 10 * (7 - 2), "{unseen:?} {narrow:?}");
    assert_eq!(counts_of(&old, &dir, &divide_loop(5, 7), ",divide=2"), narrow);
}

#[test]
fn a_wrong_option_stops_qemu_with_why() {
    pqbench_test_needs::require!(qemu());
    let dir = tempfile_dir();
    let output = run(&dir, "speed=3");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("no option \"speed\""), "{said}");
}

/// A folder of this test's own under the system's temporary one.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "pqbench-m4-plugin-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

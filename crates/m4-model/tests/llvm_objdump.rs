//! The decoder against LLVM's disassembler on real firmware: every
//! instruction of the emulated boards' images (Rust, libcrux and
//! RustCrypto) is decoded here and by `llvm-objdump`, and the kind this
//! crate times it as must be the kind LLVM's mnemonic names, with the same
//! size, load registers and register counts.

use std::path::PathBuf;
use std::process::Command;

use pqbench_m4_model::{Kind, decode};
use pqbench_test_needs::Missing;

const IMAGES: [&str; 2] = ["mps2-an386.elf", "netduinoplus2.elf"];

fn objdump() -> Result<PathBuf, Missing> {
    pqbench_test_needs::program(
        &["llvm-objdump-22", "llvm-objdump"],
        "`cargo xtask setup --tests` installs llvm-22",
    )
}

const CONDITIONS: [&str; 17] =
    ["eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"];

/// Whether `mnemonic` is `stem`, with a condition or not.
fn is(mnemonic: &str, stem: &str) -> bool {
    mnemonic == stem || mnemonic.strip_prefix(stem).is_some_and(|rest| CONDITIONS.contains(&rest))
}

fn register(text: &str) -> Option<u8> {
    match text.trim() {
        "sp" => Some(13),
        "lr" => Some(14),
        "pc" => Some(15),
        r => r.strip_prefix('r')?.parse().ok(),
    }
}

/// The registers in a `{...}` list, as LLVM prints it (every one named;
/// a D register counts two words).
fn list_words(operands: &str) -> Option<u8> {
    let inside = operands.split_once('{')?.1.split_once('}')?.0;
    Some(inside.split(',').map(|r| if r.trim().starts_with('d') { 2 } else { 1 }).sum())
}

/// What LLVM's mnemonic and operands say the instruction is, in this
/// crate's terms.
fn expected(mnemonic: &str, operands: &str) -> Kind {
    let m = mnemonic.split('.').next().unwrap_or(mnemonic);
    let float = mnemonic.contains(".f") || m.starts_with('v');
    if ["b", "bl", "bx", "blx"].iter().any(|stem| is(m, stem)) || m == "cbz" || m == "cbnz" {
        return Kind::Branch;
    }
    if is(m, "tbb") || is(m, "tbh") {
        return Kind::TableBranch;
    }
    if is(m, "isb") {
        return Kind::InstructionBarrier;
    }
    if is(m, "ldrd") || is(m, "strd") {
        return Kind::Dual;
    }
    if m.starts_with("ldm") || m.starts_with("stm") || is(m, "push") || is(m, "pop") {
        let registers = list_words(operands).unwrap_or(0);
        let writes_pc = !m.starts_with("stm") && !is(m, "push") && operands.contains("pc}");
        return Kind::Multiple { registers, writes_pc };
    }
    if float {
        return match m {
            _ if m.starts_with("vpush")
                || m.starts_with("vpop")
                || m.starts_with("vldm")
                || m.starts_with("vstm") =>
            {
                Kind::FloatMultiple { words: list_words(operands).unwrap_or(0) }
            }
            _ if is(m, "vldr") || is(m, "vstr") => Kind::FloatLoadStore,
            // `vmov r0, r1, d0`, `vmov s0, s1, r0, r1`: two core registers.
            _ if is(m, "vmov") && operands.split(',').filter(|o| register(o).is_some()).count() == 2 => {
                Kind::FloatTransferPair
            }
            _ if is(m, "vdiv") || is(m, "vsqrt") => Kind::FloatDivide,
            _ if ["vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms", "vfnma", "vfnms"]
                .iter()
                .any(|s| is(m, s)) =>
            {
                Kind::FloatMultiplyAccumulate
            }
            _ => Kind::Data { writes_pc: false },
        };
    }
    if m.starts_with("strex") {
        let base = operands.split_once('[').and_then(|(_, rest)| register(rest.split([',', ']']).next()?));
        return Kind::StoreExclusive { base: base.unwrap_or(255) };
    }
    if m.starts_with("pld") || m.starts_with("pli") {
        return Kind::Data { writes_pc: false };
    }
    if m.starts_with("ldr") {
        let (dest, address) = operands.split_once(',').unwrap_or((operands, ""));
        let inside = address.split_once('[').map(|(_, rest)| rest).unwrap_or("");
        let mut parts = inside.split([',', ']']);
        let base = parts.next().and_then(register);
        let offset =
            parts.next().map(str::trim).filter(|p| p.starts_with('r') || *p == "lr").and_then(register);
        // A literal load prints its target, not `[pc, ...]`, in some forms.
        let base = base.or_else(|| (!address.contains('[')).then_some(15)).unwrap_or(255);
        return Kind::Load { dest: register(dest).unwrap_or(255), base, offset };
    }
    if m.starts_with("str") {
        let inside = operands.split_once('[').map(|(_, rest)| rest).unwrap_or("");
        let register_offset = inside.split([',', ']']).nth(1).is_some_and(|p| register(p).is_some());
        return Kind::Store { register_offset };
    }
    if is(m, "sdiv") || is(m, "udiv") {
        // `udiv r0, r1, r2`, or `udiv r0, r2` for `r0 = r0 / r2`.
        let registers: Vec<u8> = operands.split(',').map(|o| register(o).unwrap_or(255)).collect();
        let (dividend, divisor) = match registers[..] {
            [_, n, m] => (n, m),
            [d, m] => (d, m),
            _ => (255, 255),
        };
        return Kind::Divide { dividend, divisor, signed: m.starts_with('s') };
    }
    const MULTIPLIES: [&str; 13] = [
        "mul", "mla", "mls", "umull", "smull", "umlal", "smlal", "umaal", "smul", "smla", "smls", "smm",
        "usad",
    ];
    if MULTIPLIES.iter().any(|stem| m.starts_with(stem)) || m.starts_with("smuad") || m.starts_with("smusd") {
        return Kind::Multiply;
    }
    Kind::Data { writes_pc: operands.trim_start().starts_with("pc,") }
}

#[test]
fn every_instruction_of_the_firmware_is_the_kind_llvm_names() {
    let tool = pqbench_test_needs::require!(objdump());
    let images: Result<Vec<PathBuf>, Missing> =
        IMAGES.iter().map(|image| pqbench_test_needs::firmware_image(image)).collect();
    let images = pqbench_test_needs::require!(images);
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (image, path) in IMAGES.iter().zip(&images) {
        let output = Command::new(&tool)
            .args(["-d", "--no-leading-addr", "--triple=thumbv7em-none-eabihf", "--mattr=+vfp4,+dsp"])
            .arg(path)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            // `f8d1 0004    \tldr.w\tr0, [r1, #0x4]`: halfwords, a tab, the
            // mnemonic, a tab, the operands. Data (`.word`) prints bytes.
            let Some((hex, rest)) = line.trim_start().split_once('\t') else { continue };
            let halfwords: Vec<u16> = hex
                .split_whitespace()
                .map_while(|h| (h.len() == 4).then(|| u16::from_str_radix(h, 16).ok()).flatten())
                .collect();
            if halfwords.is_empty()
                || halfwords.len() != hex.split_whitespace().count()
                || rest.starts_with('.')
            {
                continue;
            }
            let (mnemonic, operands) = rest.split_once('\t').unwrap_or((rest, ""));
            let operands = operands.split('@').next().unwrap_or("").trim();
            if mnemonic.starts_with("<unknown>") {
                continue;
            }
            let bytes: Vec<u8> = halfwords.iter().flat_map(|h| h.to_le_bytes()).collect();
            let decoded = decode(&bytes).unwrap();
            let mut expected = expected(mnemonic, operands);
            // LLVM prints `str rX, [rY, #0]` as `[rY]`: no register offset
            // either way; `strex`'s base is all this crate keeps.
            if let (Kind::StoreExclusive { .. }, Kind::StoreExclusive { .. }) = (decoded.kind, expected) {
                expected = decoded.kind;
            }
            checked += 1;
            if decoded.kind != expected || usize::from(decoded.size) != bytes.len() {
                wrong.push(format!("{image}: {line}\n    decoded {decoded:?}, LLVM says {expected:?}"));
            }
        }
    }
    assert!(checked > 50_000, "only {checked} instructions disassembled");
    assert!(
        wrong.is_empty(),
        "{} of {checked} instructions decoded otherwise than LLVM:\n{}",
        wrong.len(),
        wrong.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

//! A QEMU TCG plugin that charges every instruction an emulated Cortex-M4
//! executes its cost in pqbench's Cortex-M4 timing model
//! (`pqbench-m4-model`). Built twice: for plugin API 1 (QEMU 7.2 to 8.2),
//! and with the `api-v2` feature for API 2 and later (QEMU 9.0 on, which
//! refuses API 1), where it also reads each SDIV/UDIV's operands and
//! charges it by them (`pqbench_m4_model::divide_cycles`):
//!
//! ```text
//! qemu-system-arm -M mps2-an386 -kernel image.elf \
//!     -plugin libpqbench_qemu_m4_plugin.so,out=cycles.txt[,refill=2][,divide=7][,wait_states=0][,hashing=RANGES]
//! ```
//!
//! Each block is decoded and costed once, when QEMU translates it, and
//! charged with one callback each time it executes (its first
//! instruction's cost depends on the block before, the rest's do not: see
//! `Block`). The board marks each operation it
//! measures and each of its samples with `DBG #n` hints
//! (`pqbench_suite::Mark`); at each operation's end the plugin appends to
//! `out` the estimated cycles of every sample and where in the program they
//! were spent, and at exit the run's totals (the format:
//! `pqbench_m4_model::counts`; QEMU's log gets the totals without `out`).
//! The counts follow the executed instructions alone, so one image run
//! twice gives the same figures.

#[cfg(feature = "api-v2")]
mod divides;
mod ffi;
mod options;

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Mutex, PoisonError};

use pqbench_m4_model::counts::{OperationCounts, Sample};
use pqbench_m4_model::{Config, Core, Insn, Kind, Reg, State, decode, straight_run};

pub use options::{Options, OptionsError, Ranges};

/// The plugin API version this plugin is written against: QEMU checks it
/// against the range it accepts (QEMU 7.2: 0 to 1; QEMU 10: 2 to 4).
#[unsafe(no_mangle)]
pub static qemu_plugin_version: c_int = if cfg!(feature = "api-v2") { 2 } else { 1 };

/// Whether this QEMU's `qemu_plugin_insn_data` copies (API 3 and later).
static INSN_DATA_COPIED: AtomicBool = AtomicBool::new(false);

/// A translated block as its execution callback sees it: QEMU executes a
/// block from its first instruction to its last (it ends at a branch), so
/// all but the first are charged ahead, at translation
/// (`pqbench_m4_model::straight_run`). One callback a block, not one an
/// instruction, keeps the plugin's cost a fraction of QEMU's own.
struct Block {
    address: u32,
    first: Insn,
    rest_cycles: u64,
    end: State,
    instructions: u64,
    /// It starts in the hashing code (`hashing=`): a block ends at a
    /// branch, so it lies in one function.
    hashing: bool,
    /// Cycles charged to it inside the current operation's samples; a
    /// sample's end subtracts what follows its mark in the block.
    cycles: AtomicI64,
}

/// A `DBG #n` hint, one of the suite's marks, inside its block.
struct Marker {
    mark: u8,
    block: &'static Block,
    /// What the block charged ahead for the instructions after the mark.
    tail_cycles: u64,
    tail_instructions: u64,
}

/// A divide inside a block, whose operands the plugin reads as it
/// executes where QEMU allows (`divides.rs`).
#[cfg_attr(not(feature = "api-v2"), expect(dead_code, reason = "operands are read from API 2 on"))]
struct DivideSite {
    dividend: Reg,
    divisor: Reg,
    signed: bool,
    block: &'static Block,
}

/// A translated block as worked out once: its charges, its marks, its
/// divides.
#[derive(Clone)]
struct WorkedOut {
    block: &'static Block,
    markers: Vec<&'static Marker>,
    #[cfg_attr(not(feature = "api-v2"), expect(dead_code, reason = "operands are read from API 2 on"))]
    divides: Vec<&'static DivideSite>,
}

/// The suite's marks (`pqbench_suite::Mark`), by their `DBG` number.
const OPERATION_START: u8 = 1;
const SAMPLE_START: u8 = 2;
const SAMPLE_END: u8 = 3;
const OPERATION_END: u8 = 4;

/// `DBG #n` (T1), as it sits in memory: 0xf3af 0x80fn.
fn dbg_hint(bytes: &[u8]) -> Option<u8> {
    match bytes {
        [0xaf, 0xf3, low, 0x80] if low & 0xf0 == 0xf0 => Some(low & 0x0f),
        _ => None,
    }
}

struct Plugin {
    core: Core,
    instructions: u64,
    out: Option<File>,
    /// Each block worked out once, by its address and bytes: QEMU
    /// translates a block again after a flush, or cut short for `-icount`.
    blocks: HashMap<(u32, u64), WorkedOut>,
    /// The block executed last, which a taken branch's refill is charged
    /// to once the next block's address shows it was taken.
    previous: Option<&'static Block>,
    /// Inside an operation, its samples so far; the open sample's start.
    samples: Option<Vec<Sample>>,
    sample_start: Option<(u64, u64)>,
    /// The hashing code, if named; the open sample's cycles in it.
    hashing: Option<Ranges>,
    sample_hashing: i64,
}

impl Plugin {
    fn block(&mut self, block: &'static Block) {
        let charge = self.core.execute(&block.first, block.address);
        self.core.advance(block.rest_cycles, block.end);
        self.instructions += block.instructions;
        if self.sample_start.is_some() {
            self.charge(block, signed(u64::from(charge.this) + block.rest_cycles));
            if let Some(previous) = self.previous {
                self.charge(previous, i64::from(charge.previous_refill));
            }
        }
        self.previous = Some(block);
    }

    /// Places `cycles` of the open sample at `block`.
    fn charge(&mut self, block: &Block, cycles: i64) {
        block.cycles.fetch_add(cycles, Ordering::Relaxed);
        if block.hashing {
            self.sample_hashing += cycles;
        }
    }

    /// A divide at `site` is about to run on these operands: its charge,
    /// made ahead with the block, corrected to what they cost.
    #[cfg_attr(not(feature = "api-v2"), expect(dead_code, reason = "operands are read from API 2 on"))]
    fn divide(&mut self, site: &DivideSite, dividend: u32, divisor: u32) {
        let correction = self.core.divide_seen(dividend, divisor, site.signed);
        if self.sample_start.is_some() {
            self.charge(site.block, correction);
        }
    }

    fn marker(&mut self, marker: &Marker) {
        // The block charged the instructions after the mark already.
        let cycles = self.core.cycles() - marker.tail_cycles;
        let instructions = self.instructions - marker.tail_instructions;
        let tail = signed(marker.tail_cycles);
        match marker.mark {
            OPERATION_START => {
                self.clear_blocks();
                self.samples = Some(Vec::new());
                self.sample_start = None;
            }
            SAMPLE_START if self.samples.is_some() => {
                self.sample_start = Some((cycles, instructions));
                self.sample_hashing = 0;
                self.charge(marker.block, tail);
            }
            SAMPLE_END if self.sample_start.is_some() => {
                self.charge(marker.block, -tail);
                let hashing = self.hashing.is_some().then(|| self.sample_hashing.max(0) as u64);
                if let (Some(samples), Some((start_cycles, start_instructions))) =
                    (&mut self.samples, self.sample_start.take())
                {
                    samples.push(Sample {
                        cycles: cycles - start_cycles,
                        instructions: instructions - start_instructions,
                        hashing,
                    });
                }
            }
            OPERATION_END => {
                if let Some(samples) = self.samples.take() {
                    let counts = OperationCounts { samples, at: self.take_blocks() };
                    self.write(&counts.render());
                }
            }
            _ => {}
        }
    }

    /// The cycles charged by block address since the operation began,
    /// cleared.
    fn take_blocks(&mut self) -> Vec<(u32, u64)> {
        let mut at = BTreeMap::new();
        for WorkedOut { block, .. } in self.blocks.values() {
            let cycles = block.cycles.swap(0, Ordering::Relaxed);
            if cycles > 0 {
                *at.entry(block.address).or_insert(0) += cycles as u64;
            }
        }
        at.into_iter().collect()
    }

    fn clear_blocks(&mut self) {
        for WorkedOut { block, .. } in self.blocks.values() {
            block.cycles.store(0, Ordering::Relaxed);
        }
    }

    fn write(&mut self, text: &str) {
        match &mut self.out {
            Some(file) => {
                if let Err(error) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                    say(&format!("cannot write the counts: {error}"));
                    self.out = None;
                }
            }
            None => say(text.trim_end()),
        }
    }
}

/// Cycles as the signed attribution counters hold them (a block's count
/// is at most what the run charged, far below `i64::MAX`).
fn signed(cycles: u64) -> i64 {
    i64::try_from(cycles).unwrap_or(i64::MAX)
}

static PLUGIN: Mutex<Option<Plugin>> = Mutex::new(None);

fn plugin() -> std::sync::MutexGuard<'static, Option<Plugin>> {
    PLUGIN.lock().unwrap_or_else(PoisonError::into_inner)
}

fn say(text: &str) {
    if let Ok(text) = CString::new(format!("pqbench-m4: {text}\n")) {
        // SAFETY: a NUL-terminated string QEMU copies before returning.
        unsafe { ffi::qemu_plugin_outs(text.as_ptr()) };
    }
}

/// QEMU calls this once, as it loads the plugin.
///
/// # Safety
///
/// QEMU passes `argc` valid C strings in `argv`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn qemu_plugin_install(
    id: ffi::PluginId,
    info: *const ffi::Info,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    // SAFETY: QEMU's description of itself, valid for this call.
    if let Some(info) = unsafe { info.as_ref() } {
        INSN_DATA_COPIED.store(info.version_cur >= 3, Ordering::Relaxed);
    }
    let count = usize::try_from(argc).unwrap_or(0);
    let args: Vec<String> = (0..count)
        // SAFETY: QEMU's `argc` strings, alive for this call.
        .map(|i| unsafe { CStr::from_ptr(*argv.add(i)) }.to_string_lossy().into_owned())
        .collect();
    let options = match Options::parse(args.iter().map(String::as_str)) {
        Ok(options) => options,
        Err(why) => {
            say(&why.to_string());
            return -1;
        }
    };
    let hashing = match options.hashing.as_deref().map(|path| {
        std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Ranges::parse(&text))
            .map_err(|why| OptionsError::Ranges { path: path.display().to_string(), why })
    }) {
        None => None,
        Some(Ok(ranges)) => Some(ranges),
        Some(Err(why)) => {
            say(&why.to_string());
            return -1;
        }
    };
    let out = match options.out.as_deref().map(File::create).transpose() {
        Ok(out) => out,
        Err(error) => {
            say(&format!("cannot create {}: {error}", options.out.unwrap_or_default().display()));
            return -1;
        }
    };
    *plugin() = Some(Plugin {
        core: Core::new(options.config),
        instructions: 0,
        out,
        blocks: HashMap::new(),
        previous: None,
        samples: None,
        sample_start: None,
        hashing,
        sample_hashing: 0,
    });
    // SAFETY: callbacks of the signatures QEMU's API declares.
    unsafe {
        ffi::qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
        ffi::qemu_plugin_register_atexit_cb(id, exited, std::ptr::null_mut());
    }
    #[cfg(feature = "api-v2")]
    divides::install(id);
    0
}

/// An instruction's bytes (at most 4: a Thumb instruction's), by whichever
/// form of `qemu_plugin_insn_data` this QEMU has.
///
/// # Safety
///
/// `insn` is QEMU's, inside the translation callback.
unsafe fn insn_bytes(insn: *mut ffi::Insn) -> Option<([u8; 4], usize)> {
    let size = unsafe { ffi::qemu_plugin_insn_size(insn) }.min(4);
    let mut bytes = [0u8; 4];
    if INSN_DATA_COPIED.load(Ordering::Relaxed) {
        let copied = unsafe { ffi::insn_data_copied(insn, bytes.as_mut_ptr().cast::<c_void>(), size) };
        (copied == size).then_some((bytes, size))
    } else {
        let data = unsafe { ffi::insn_data_pointer(insn) }.cast::<u8>();
        if data.is_null() {
            return None;
        }
        bytes[..size].copy_from_slice(unsafe { std::slice::from_raw_parts(data, size) });
        Some((bytes, size))
    }
}

/// A block is translated: it is worked out (or found, if it was before)
/// and gets the callback that charges it, and each mark in it its own.
extern "C" fn translated(_id: ffi::PluginId, tb: *mut ffi::Tb) {
    // SAFETY: `tb` is QEMU's block, valid during this callback, and so are
    // its instructions and their bytes.
    let count = unsafe { ffi::qemu_plugin_tb_n_insns(tb) };
    let mut run: Vec<(Insn, u32)> = Vec::with_capacity(count);
    let mut marks: Vec<(usize, u8, *mut ffi::Insn)> = Vec::new();
    let mut divides: Vec<(usize, *mut ffi::Insn)> = Vec::new();
    let mut key = std::hash::DefaultHasher::new();
    for index in 0..count {
        let insn = unsafe { ffi::qemu_plugin_tb_get_insn(tb, index) };
        let Some((bytes, size)) = (unsafe { insn_bytes(insn) }) else { continue };
        let bytes = &bytes[..size];
        // The M-profile's addresses are 32 bits.
        let address = unsafe { ffi::qemu_plugin_insn_vaddr(insn) } as u32;
        let Some(decoded) = decode(bytes) else { continue };
        bytes.hash(&mut key);
        if let Some(mark) = dbg_hint(bytes) {
            marks.push((run.len(), mark, insn));
        }
        if let Kind::Divide { .. } = decoded.kind {
            divides.push((run.len(), insn));
        }
        run.push((decoded, address));
    }
    let Some(&(first, address)) = run.first() else { return };
    let key = (address, key.finish());
    let worked = {
        let mut plugin = plugin();
        let Some(plugin) = plugin.as_mut() else { return };
        let config = plugin.core.config();
        let hashing = plugin.hashing.as_ref().is_some_and(|ranges| ranges.contains(address));
        plugin
            .blocks
            .entry(key)
            .or_insert_with(|| worked_out(config, hashing, first, &run, &marks, &divides))
            .clone()
    };
    // SAFETY: the block and its markers live as long as the process.
    unsafe {
        ffi::qemu_plugin_register_vcpu_tb_exec_cb(
            tb,
            block_executed,
            ffi::CB_NO_REGS,
            (worked.block as *const Block).cast_mut().cast::<c_void>(),
        );
        for (marker, (_, _, insn)) in worked.markers.iter().zip(&marks) {
            ffi::qemu_plugin_register_vcpu_insn_exec_cb(
                *insn,
                marker_executed,
                ffi::CB_NO_REGS,
                (*marker as *const Marker).cast_mut().cast::<c_void>(),
            );
        }
    }
    #[cfg(feature = "api-v2")]
    for (site, (_, insn)) in worked.divides.iter().zip(&divides) {
        divides::watch(*insn, site);
    }
}

/// A block's charges worked out ahead, its marks with what follows each in
/// the block, and its divides; kept for the rest of the run.
fn worked_out(
    config: Config,
    hashing: bool,
    first: Insn,
    run: &[(Insn, u32)],
    marks: &[(usize, u8, *mut ffi::Insn)],
    divides: &[(usize, *mut ffi::Insn)],
) -> WorkedOut {
    let (rest_cycles, end) = straight_run(config, run);
    let block: &'static Block = Box::leak(Box::new(Block {
        address: run[0].1,
        first,
        rest_cycles,
        end,
        instructions: run.len() as u64,
        hashing,
        cycles: AtomicI64::new(0),
    }));
    let markers = marks
        .iter()
        .map(|&(index, mark, _)| {
            let (tail_cycles, _) = straight_run(config, &run[index..]);
            let tail_instructions = (run.len() - index - 1) as u64;
            &*Box::leak(Box::new(Marker { mark, block, tail_cycles, tail_instructions }))
        })
        .collect();
    let divides = divides
        .iter()
        .filter_map(|&(index, _)| match run[index].0.kind {
            Kind::Divide { dividend, divisor, signed } => {
                Some(&*Box::leak(Box::new(DivideSite { dividend, divisor, signed, block })))
            }
            _ => None,
        })
        .collect();
    WorkedOut { block, markers, divides }
}

extern "C" fn block_executed(_vcpu: c_uint, data: *mut c_void) {
    // SAFETY: the `Block` registered with this callback, never freed.
    let block = unsafe { &*data.cast::<Block>() };
    if let Some(plugin) = plugin().as_mut() {
        plugin.block(block);
    }
}

extern "C" fn marker_executed(_vcpu: c_uint, data: *mut c_void) {
    // SAFETY: the `Marker` registered with this callback, never freed.
    let marker = unsafe { &*data.cast::<Marker>() };
    if let Some(plugin) = plugin().as_mut() {
        plugin.marker(marker);
    }
}

extern "C" fn exited(_id: ffi::PluginId, _data: *mut c_void) {
    let Some(mut plugin) = plugin().take() else { return };
    let totals = format!("m4-model-cycles {}\ninstructions {}\n", plugin.core.cycles(), plugin.instructions);
    plugin.write(&totals);
}

//! A QEMU TCG plugin that charges every instruction an emulated Cortex-M4
//! executes its cost in pqbench's Cortex-M4 timing model
//! (`pqbench-m4-model`), for QEMU 7.2's plugin API (version 1):
//!
//! ```text
//! qemu-system-arm -M mps2-an386 -kernel image.elf \
//!     -plugin libpqbench_qemu_m4_plugin.so,out=cycles.txt[,refill=2][,divide=7][,wait_states=0]
//! ```
//!
//! Each instruction is decoded once, when QEMU translates its block; its
//! execution then runs the model on it. At exit the plugin writes what it
//! counted to `out` (or QEMU's log): `m4-model-cycles N` and `instructions
//! N`, one a line. The counts follow the executed instructions alone, so
//! one image run twice gives the same figures.

mod ffi;

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use pqbench_m4_model::{Config, Core, Insn, decode};

/// The plugin API version this plugin is written against: QEMU checks it.
#[unsafe(no_mangle)]
pub static qemu_plugin_version: c_int = 1;

/// The plugin's options: `-plugin LIB,KEY=VALUE,...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub config: Config,
    /// Where the counts are written at exit; QEMU's log without it.
    pub out: Option<PathBuf>,
}

impl Options {
    pub fn parse<'a>(args: impl IntoIterator<Item = &'a str>) -> Result<Options, String> {
        let mut options = Options { config: Config::default(), out: None };
        for arg in args {
            let (key, value) = arg.split_once('=').ok_or_else(|| format!("{arg:?} is not KEY=VALUE"))?;
            let number = || value.parse::<u32>().map_err(|_| format!("{key}={value:?}: not a whole number"));
            match key {
                "out" => options.out = Some(PathBuf::from(value)),
                "refill" => options.config.refill = number()?,
                "divide" => options.config.divide = number()?,
                "wait_states" => options.config.flash_wait_states = number()?,
                _ => return Err(format!("no option {key:?} (out, refill, divide, wait_states)")),
            }
        }
        Ok(options)
    }
}

/// An instruction as its execution callback sees it.
struct Executed {
    insn: Insn,
    address: u32,
}

struct Plugin {
    core: Core,
    instructions: u64,
    out: Option<PathBuf>,
    /// Each instruction decoded once, by address and encoding: a block
    /// QEMU translates again reuses it.
    decoded: HashMap<(u32, [u8; 4]), &'static Executed>,
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
    _info: *const ffi::Info,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    let count = usize::try_from(argc).unwrap_or(0);
    let args: Vec<String> = (0..count)
        // SAFETY: QEMU's `argc` strings, alive for this call.
        .map(|i| unsafe { CStr::from_ptr(*argv.add(i)) }.to_string_lossy().into_owned())
        .collect();
    let options = match Options::parse(args.iter().map(String::as_str)) {
        Ok(options) => options,
        Err(why) => {
            say(&why);
            return -1;
        }
    };
    *plugin() = Some(Plugin {
        core: Core::new(options.config),
        instructions: 0,
        out: options.out,
        decoded: HashMap::new(),
    });
    // SAFETY: callbacks of the signatures QEMU's API declares.
    unsafe {
        ffi::qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
        ffi::qemu_plugin_register_atexit_cb(id, exited, std::ptr::null_mut());
    }
    0
}

/// A block is translated: each of its instructions gets the callback that
/// charges it when it runs.
extern "C" fn translated(_id: ffi::PluginId, tb: *mut ffi::Tb) {
    // SAFETY: `tb` is QEMU's block, valid during this callback, and so are
    // its instructions and their bytes.
    let count = unsafe { ffi::qemu_plugin_tb_n_insns(tb) };
    for index in 0..count {
        let insn = unsafe { ffi::qemu_plugin_tb_get_insn(tb, index) };
        let size = unsafe { ffi::qemu_plugin_insn_size(insn) }.min(4);
        let data = unsafe { ffi::qemu_plugin_insn_data(insn) }.cast::<u8>();
        if data.is_null() {
            continue;
        }
        let bytes = unsafe { std::slice::from_raw_parts(data, size) };
        // The M-profile's addresses are 32 bits.
        let address = unsafe { ffi::qemu_plugin_insn_vaddr(insn) } as u32;
        let Some(decoded) = decode(bytes) else { continue };
        let mut encoding = [0; 4];
        encoding[..size].copy_from_slice(bytes);
        let executed: &'static Executed = {
            let mut plugin = plugin();
            let Some(plugin) = plugin.as_mut() else { return };
            plugin
                .decoded
                .entry((address, encoding))
                .or_insert_with(|| Box::leak(Box::new(Executed { insn: decoded, address })))
        };
        // SAFETY: `executed` lives as long as the process.
        unsafe {
            ffi::qemu_plugin_register_vcpu_insn_exec_cb(
                insn,
                executed_cb,
                ffi::CB_NO_REGS,
                (executed as *const Executed).cast_mut().cast::<c_void>(),
            );
        }
    }
}

extern "C" fn executed_cb(_vcpu: c_uint, data: *mut c_void) {
    // SAFETY: the `Executed` registered with this callback, never freed.
    let executed = unsafe { &*data.cast::<Executed>() };
    if let Some(plugin) = plugin().as_mut() {
        plugin.core.execute(&executed.insn, executed.address);
        plugin.instructions += 1;
    }
}

extern "C" fn exited(_id: ffi::PluginId, _data: *mut c_void) {
    let Some(plugin) = plugin().take() else { return };
    let counts = format!("m4-model-cycles {}\ninstructions {}\n", plugin.core.cycles(), plugin.instructions);
    match &plugin.out {
        Some(path) => {
            if let Err(error) = std::fs::write(path, &counts) {
                say(&format!("cannot write {}: {error}", path.display()));
            }
        }
        None => say(counts.trim_end()),
    }
}

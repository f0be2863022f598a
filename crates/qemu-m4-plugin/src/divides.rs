//! SDIV/UDIV charged by their operands, read from the guest's registers as
//! each divide executes: QEMU 9.0 and later (plugin API 2) let a callback
//! read registers. Built only with the `api-v2` feature; the API 1 build
//! charges every divide the configured `divide`.

use std::ffi::{CStr, c_uint, c_void};
use std::sync::OnceLock;

use crate::ffi::registers::{self as api, Descriptor, GByteArray, Register};
use crate::{DivideSite, ffi, plugin, say};

/// r0 to r14 by number: QEMU's handles, found by name once the vCPU
/// exists. A divide's operands are never the PC.
struct Handles([Option<usize>; 15]);

static HANDLES: OnceLock<Handles> = OnceLock::new();

/// Asks to be told when the vCPU is created: registers can be listed only
/// from inside a vCPU's callback.
pub(crate) fn install(id: ffi::PluginId) {
    // SAFETY: a callback of the signature QEMU's API declares.
    unsafe { api::qemu_plugin_register_vcpu_init_cb(id, vcpu_created) };
}

extern "C" fn vcpu_created(_id: ffi::PluginId, _vcpu: c_uint) {
    HANDLES.get_or_init(|| {
        let mut handles = [None; 15];
        // SAFETY: QEMU's array of descriptors, ours to free; their names
        // are C strings that live as long as QEMU.
        unsafe {
            let list = api::qemu_plugin_get_registers();
            if list.is_null() {
                return Handles(handles);
            }
            let descriptors =
                std::slice::from_raw_parts((*list).data.cast::<Descriptor>(), (*list).len as usize);
            for descriptor in descriptors {
                let name = CStr::from_ptr(descriptor.name).to_string_lossy();
                if let Some(number) = register_number(&name) {
                    handles[usize::from(number)] = Some(descriptor.handle as usize);
                }
            }
            api::g_array_free(list, 1);
        }
        if handles[..13].iter().any(Option::is_none) {
            say("this QEMU names no r0-r12: divides are charged the configured `divide`");
        }
        Handles(handles)
    });
}

/// `r0`..`r12`, `sp`, `lr` as the M-profile's GDB description names them.
fn register_number(name: &str) -> Option<u8> {
    match name {
        "sp" => Some(13),
        "lr" => Some(14),
        _ => name.strip_prefix('r')?.parse().ok().filter(|n| *n <= 12),
    }
}

/// Has `insn`, a divide, read its operands each time it executes, if this
/// QEMU lets the plugin read them; else it keeps the configured charge.
pub(crate) fn watch(insn: *mut ffi::Insn, site: &'static DivideSite) {
    let Some(handles) = HANDLES.get() else { return };
    let readable = |r: u8| handles.0.get(usize::from(r)).copied().flatten().is_some();
    if !(readable(site.dividend) && readable(site.divisor)) {
        return;
    }
    // SAFETY: `insn` is QEMU's, valid during translation; `site` lives as
    // long as the process.
    unsafe {
        ffi::qemu_plugin_register_vcpu_insn_exec_cb(
            insn,
            divide_executed,
            api::CB_R_REGS,
            (site as *const DivideSite).cast_mut().cast::<c_void>(),
        );
    }
}

extern "C" fn divide_executed(_vcpu: c_uint, data: *mut c_void) {
    // SAFETY: the `DivideSite` registered with this callback, never freed.
    let site = unsafe { &*data.cast::<DivideSite>() };
    let (Some(dividend), Some(divisor)) = (read(site.dividend), read(site.divisor)) else { return };
    if let Some(plugin) = plugin().as_mut() {
        plugin.divide(site, dividend, divisor);
    }
}

/// Register `number`'s value now, before the divide executes.
fn read(number: u8) -> Option<u32> {
    // One buffer for every read: callbacks of the one vCPU run in turn.
    struct Buffer(*mut GByteArray);
    // SAFETY: only the vCPU thread touches it, one callback at a time.
    unsafe impl Send for Buffer {}
    unsafe impl Sync for Buffer {}
    static BUFFER: OnceLock<Buffer> = OnceLock::new();
    let handle = HANDLES.get()?.0.get(usize::from(number)).copied().flatten()?;
    // SAFETY: GLib's array, grown by QEMU; a register handle QEMU gave.
    unsafe {
        let buffer = BUFFER.get_or_init(|| Buffer(api::g_byte_array_new())).0;
        api::g_byte_array_set_size(buffer, 0);
        let size = api::qemu_plugin_read_register(handle as *mut Register, buffer);
        if size != 4 || (*buffer).len < 4 {
            return None;
        }
        let bytes = std::slice::from_raw_parts((*buffer).data, 4);
        // The M-profile is little-endian: target byte order.
        Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
}

//! The part of QEMU's TCG plugin API this plugin calls, as QEMU's
//! `include/qemu/qemu-plugin.h` declares it: version 1 (QEMU 7.2 to 8.2),
//! and with the `api-v2` feature what versions 2 and later (QEMU 9.0 on)
//! add. QEMU resolves these symbols from its own executable (and GLib's,
//! which it links) when it loads the plugin, so a symbol declared here
//! that a QEMU lacks stops the plugin loading: the register functions are
//! compiled only into the `api-v2` build.

use core::ffi::{c_char, c_int, c_uint, c_void};

pub type PluginId = u64;

/// `qemu_info_t`: only its first fields are read (the same in every
/// version).
#[repr(C)]
pub struct Info {
    pub target_name: *const c_char,
    /// The plugin API versions this QEMU accepts, and its own.
    pub version_min: c_int,
    pub version_cur: c_int,
}

#[repr(C)]
pub struct Tb {
    _opaque: [u8; 0],
}

#[repr(C)]
pub struct Insn {
    _opaque: [u8; 0],
}

/// `QEMU_PLUGIN_CB_NO_REGS`: the callback reads no guest register.
pub const CB_NO_REGS: c_int = 0;

pub type TbTranslated = extern "C" fn(id: PluginId, tb: *mut Tb);
pub type InsnExecuted = extern "C" fn(vcpu: c_uint, data: *mut c_void);
pub type AtExit = extern "C" fn(id: PluginId, data: *mut c_void);

unsafe extern "C" {
    pub fn qemu_plugin_register_vcpu_tb_trans_cb(id: PluginId, cb: TbTranslated);
    pub fn qemu_plugin_tb_n_insns(tb: *const Tb) -> usize;
    pub fn qemu_plugin_tb_get_insn(tb: *const Tb, index: usize) -> *mut Insn;
    pub fn qemu_plugin_insn_size(insn: *const Insn) -> usize;
    pub fn qemu_plugin_insn_vaddr(insn: *const Insn) -> u64;
    pub fn qemu_plugin_register_vcpu_tb_exec_cb(
        tb: *mut Tb,
        cb: InsnExecuted,
        flags: c_int,
        data: *mut c_void,
    );
    pub fn qemu_plugin_register_vcpu_insn_exec_cb(
        insn: *mut Insn,
        cb: InsnExecuted,
        flags: c_int,
        data: *mut c_void,
    );
    pub fn qemu_plugin_register_atexit_cb(id: PluginId, cb: AtExit, data: *mut c_void);
    pub fn qemu_plugin_outs(text: *const c_char);
}

/// `qemu_plugin_insn_data` has two forms under one name: up to API 2 (QEMU
/// 9.0) it returns a pointer to the instruction's bytes; from API 3 (QEMU
/// 9.1) it copies them into the caller's buffer. Which one this QEMU has is
/// its `version_cur`, read at install.
#[allow(clashing_extern_declarations, reason = "one symbol, two forms by QEMU version; see above")]
mod insn_data {
    use super::{Insn, c_void};

    unsafe extern "C" {
        #[link_name = "qemu_plugin_insn_data"]
        pub fn pointer(insn: *const Insn) -> *const c_void;
        #[link_name = "qemu_plugin_insn_data"]
        pub fn copied(insn: *const Insn, dest: *mut c_void, len: usize) -> usize;
    }
}

pub use insn_data::{copied as insn_data_copied, pointer as insn_data_pointer};

/// The register reads of API 2 and later (QEMU 9.0 on).
#[cfg(feature = "api-v2")]
pub mod registers {
    use core::ffi::{c_char, c_int, c_uint, c_void};

    use super::PluginId;

    /// `QEMU_PLUGIN_CB_R_REGS`: the callback reads guest registers.
    pub const CB_R_REGS: c_int = 1;

    #[repr(C)]
    pub struct Register {
        _opaque: [u8; 0],
    }

    /// `qemu_plugin_reg_descriptor`.
    #[repr(C)]
    pub struct Descriptor {
        pub handle: *mut Register,
        pub name: *const c_char,
        pub feature: *const c_char,
    }

    /// GLib's `GArray` and `GByteArray`: their public fields.
    #[repr(C)]
    pub struct GArray {
        pub data: *mut c_char,
        pub len: c_uint,
    }

    #[repr(C)]
    pub struct GByteArray {
        pub data: *mut u8,
        pub len: c_uint,
    }

    pub type VcpuInit = extern "C" fn(id: PluginId, vcpu: c_uint);

    unsafe extern "C" {
        pub fn qemu_plugin_register_vcpu_init_cb(id: PluginId, cb: VcpuInit);
        pub fn qemu_plugin_get_registers() -> *mut GArray;
        pub fn qemu_plugin_read_register(handle: *mut Register, buf: *mut GByteArray) -> c_int;
        pub fn g_array_free(array: *mut GArray, free_segment: c_int) -> *mut c_void;
        pub fn g_byte_array_new() -> *mut GByteArray;
        pub fn g_byte_array_set_size(array: *mut GByteArray, length: c_uint) -> *mut GByteArray;
    }
}

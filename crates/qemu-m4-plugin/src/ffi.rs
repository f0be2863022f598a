//! The part of QEMU's TCG plugin API (version 1, as QEMU 7.2 ships it,
//! `include/qemu/qemu-plugin.h`) this plugin calls. QEMU resolves these
//! symbols from its own executable when it loads the plugin.

use core::ffi::{c_char, c_int, c_uint, c_void};

pub type PluginId = u64;

/// `qemu_info_t`: only its first field is read.
#[repr(C)]
pub struct Info {
    pub target_name: *const c_char,
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
    pub fn qemu_plugin_insn_data(insn: *const Insn) -> *const c_void;
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

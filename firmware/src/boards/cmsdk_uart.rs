//! Arm's CMSDK APB UART, the console of QEMU's MPS2 machines (mps2-an386,
//! mps2-an505): a data register, a state register with the full flags, and
//! a control register that enables each direction.

use core::ptr::{read_volatile, write_volatile};

const DATA: usize = 0x0;
const STATE: usize = 0x4;
const CTRL: usize = 0x8;
const BAUDDIV: usize = 0x10;
const STATE_TX_FULL: u32 = 1 << 0;
const STATE_RX_FULL: u32 = 1 << 1;
const CTRL_TX_ENABLE: u32 = 1 << 0;
const CTRL_RX_ENABLE: u32 = 1 << 1;

pub struct Uart {
    base: usize,
}

impl Uart {
    /// Enables the UART at `base`. Idempotent: a fault handler may take
    /// the console this way too.
    pub fn init(base: usize) -> Self {
        // SAFETY: the UART's documented registers. The divider must be set
        // before TX is enabled, or QEMU keeps TX full and drops every
        // later byte.
        unsafe {
            write_volatile((base + BAUDDIV) as *mut u32, 16);
            write_volatile((base + CTRL) as *mut u32, CTRL_TX_ENABLE | CTRL_RX_ENABLE);
        }
        Uart { base }
    }

    /// The UART at `base`, as it was left.
    pub fn steal(base: usize) -> Self {
        Uart { base }
    }
}

impl super::Uart for Uart {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: reads and writes of the UART's own registers.
        unsafe {
            while read_volatile((self.base + STATE) as *const u32) & STATE_TX_FULL != 0 {}
            write_volatile((self.base + DATA) as *mut u32, u32::from(byte));
        }
    }

    fn read_byte(&mut self) -> Option<u8> {
        // SAFETY: reads of the UART's own registers.
        unsafe {
            (read_volatile((self.base + STATE) as *const u32) & STATE_RX_FULL != 0)
                .then(|| read_volatile((self.base + DATA) as *const u32) as u8)
        }
    }
}

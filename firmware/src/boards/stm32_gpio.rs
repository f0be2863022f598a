//! STM32 GPIO, the same on the F4 and U5 families (MODER at +0x00, AFRL
//! and AFRH at +0x20 and +0x24).

use super::mmio::modify;

/// Puts `pin` of the port at `base` in alternate function `af`.
pub fn alternate_function(base: usize, pin: u32, af: u32) {
    let afr = base + if pin < 8 { 0x20 } else { 0x24 };
    let shift = (pin % 8) * 4;
    // SAFETY: the port's MODER and AFR registers; the pin is the board's.
    unsafe {
        modify(afr, 0xF << shift, af << shift);
        modify(base, 0b11 << (pin * 2), 0b10 << (pin * 2));
    }
}

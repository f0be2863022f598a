//! What a firmware image takes of its chip: flash for code and initial
//! data, RAM for data, zeroed statics (heap arena included) and the stack
//! region the memory map reserves. The linker already refuses an image that
//! overflows the memory map; this checks the map against the chip itself.

use std::path::Path;

use anyhow::{Context, Result, bail};
use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SectionKind, elf};

use pqbench_boards::Board;

pub struct ImageSize {
    pub flash: u64,
    pub static_ram: u64,
    pub stack: u64,
}

pub fn measure(image: &Path) -> Result<ImageSize> {
    let bytes = std::fs::read(image).with_context(|| format!("reading {}", image.display()))?;
    let file =
        object::File::parse(&*bytes).with_context(|| format!("{} is not an ELF image", image.display()))?;
    let (mut flash, mut static_ram) = (0, 0);
    for section in file.sections() {
        let SectionFlags::Elf { sh_flags } = section.flags() else { continue };
        if sh_flags & u64::from(elf::SHF_ALLOC) == 0 {
            continue;
        }
        match section.kind() {
            // Zero-filled at start: RAM only.
            SectionKind::UninitializedData | SectionKind::UninitializedTls => static_ram += section.size(),
            // Initialised data: its image in flash, its copy in RAM.
            SectionKind::Data | SectionKind::Tls => {
                flash += section.size();
                static_ram += section.size();
            }
            _ => flash += section.size(),
        }
    }
    let symbol = |name: &str| {
        file.symbols()
            .find(|s| s.name() == Ok(name))
            .map(|s| s.address())
            .with_context(|| format!("no {name} in the image"))
    };
    let stack = symbol("_stack_start")? - symbol("_stack_end")?;
    Ok(ImageSize { flash, static_ram, stack })
}

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

impl ImageSize {
    pub fn report(&self, board: &Board) -> String {
        format!(
            "{}: flash {} of {} ({:.0}%), RAM {} static + {} stack of {} ({:.0}%)",
            board.firmware,
            kib(self.flash),
            kib(board.chip.flash_bytes),
            100.0 * self.flash as f64 / board.chip.flash_bytes as f64,
            kib(self.static_ram),
            kib(self.stack),
            kib(board.chip.ram_bytes),
            100.0 * (self.static_ram + self.stack) as f64 / board.chip.ram_bytes as f64,
        )
    }

    pub fn check(&self, board: &Board) -> Result<()> {
        if self.flash > board.chip.flash_bytes {
            bail!(
                "{} needs {} of flash; the chip has {}",
                board.firmware,
                kib(self.flash),
                kib(board.chip.flash_bytes)
            );
        }
        if self.static_ram + self.stack > board.chip.ram_bytes {
            bail!(
                "{} needs {} of RAM (static and stack); the chip has {}",
                board.firmware,
                kib(self.static_ram + self.stack),
                kib(board.chip.ram_bytes)
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f446() -> &'static Board {
        Board::by_firmware("nucleo-f446ze").unwrap()
    }

    #[test]
    fn an_image_must_fit_the_chips_flash_and_ram() {
        let fits = ImageSize { flash: 370 << 10, static_ram: 48 << 10, stack: 64 << 10 };
        assert!(fits.check(f446()).is_ok());
        assert!(fits.report(f446()).contains("flash 370.0 KiB of 512.0 KiB"));
        let too_much_code = ImageSize { flash: 735 << 10, ..fits };
        assert!(too_much_code.check(f446()).unwrap_err().to_string().contains("flash"));
        let too_much_stack = ImageSize { stack: 96 << 10, ..fits };
        assert!(too_much_stack.check(f446()).unwrap_err().to_string().contains("RAM"));
    }

    #[test]
    fn a_built_image_is_measured_from_its_sections() {
        let image = pqbench_test_needs::require!(pqbench_test_needs::firmware_image("nucleo-f446ze.elf"));
        let size = measure(&image).unwrap();
        assert_eq!(size.stack, 64 << 10, "the memory map's stack region");
        assert!(size.flash > 100 << 10 && size.static_ram > 40 << 10);
        assert!(size.check(f446()).is_ok());
    }
}

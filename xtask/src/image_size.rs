//! What a firmware image takes of its chip: flash for code and initial
//! data, RAM for data, zeroed statics (heap arena included) and the stack
//! region the memory map reserves. The linker already refuses an image that
//! overflows the memory map; this checks the map against the chip itself.

use std::path::Path;

use anyhow::{Context, Result, bail};
use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SectionKind, elf};

use crate::Firmware;

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
    pub fn report(&self, chip: &Firmware) -> String {
        format!(
            "{}: flash {} of {} ({:.0}%), RAM {} static + {} stack of {} ({:.0}%)",
            chip.board,
            kib(self.flash),
            kib(chip.flash_bytes),
            100.0 * self.flash as f64 / chip.flash_bytes as f64,
            kib(self.static_ram),
            kib(self.stack),
            kib(chip.ram_bytes),
            100.0 * (self.static_ram + self.stack) as f64 / chip.ram_bytes as f64,
        )
    }

    pub fn check(&self, chip: &Firmware) -> Result<()> {
        if self.flash > chip.flash_bytes {
            bail!(
                "{} needs {} of flash; the chip has {}",
                chip.board,
                kib(self.flash),
                kib(chip.flash_bytes)
            );
        }
        if self.static_ram + self.stack > chip.ram_bytes {
            bail!(
                "{} needs {} of RAM (static and stack); the chip has {}",
                chip.board,
                kib(self.static_ram + self.stack),
                kib(chip.ram_bytes)
            );
        }
        Ok(())
    }
}

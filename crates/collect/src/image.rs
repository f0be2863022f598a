//! A firmware image on disk: the ELF a board runs, and what the host reads
//! from it to talk to the board (build id, symbols, the defmt table).

use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol};
use sha2::{Digest, Sha256};

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("reading the firmware image {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not an ELF file: {why}")]
    NotElf { path: PathBuf, why: String },
    #[error("{path} has no defmt table: it is not a defmt build of the firmware")]
    NoDefmtTable { path: PathBuf },
    #[error("reading the defmt table of {path}: {why}")]
    DefmtTable { path: PathBuf, why: String },
    #[error("{path} has no symbol {symbol}: it is not a build of the pqbench firmware for {purpose}")]
    MissingSymbol { path: PathBuf, symbol: &'static str, purpose: &'static str },
}

/// The image, read once: its bytes, their SHA-256, and its build id.
pub struct FirmwareImage {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// Hex SHA-256 of the file, recorded on the run.
    pub sha256: String,
    /// Hex GNU build id, which the firmware also says in its `hello`.
    pub build_id: Option<String>,
}

impl FirmwareImage {
    pub fn load(path: &Path) -> Result<FirmwareImage, ImageError> {
        let bytes = std::fs::read(path).map_err(|source| ImageError::Read { path: path.into(), source })?;
        let file = object::File::parse(&*bytes)
            .map_err(|e| ImageError::NotElf { path: path.into(), why: e.to_string() })?;
        let build_id = file.build_id().ok().flatten().map(hex);
        let sha256 = hex(&Sha256::digest(&bytes));
        Ok(FirmwareImage { path: path.into(), bytes, sha256, build_id })
    }

    /// Only the build id of the image at `path`, without hashing it: an
    /// image with its debug info is tens of megabytes, and the watcher asks
    /// this while a board just plugged in waits to be shown.
    pub fn build_id_of(path: &Path) -> Result<Option<String>, ImageError> {
        let bytes = std::fs::read(path).map_err(|source| ImageError::Read { path: path.into(), source })?;
        let file = object::File::parse(&*bytes)
            .map_err(|e| ImageError::NotElf { path: path.into(), why: e.to_string() })?;
        Ok(file.build_id().ok().flatten().map(hex))
    }

    /// The address of a symbol the host needs, such as the command mailbox.
    pub fn symbol(&self, name: &'static str, purpose: &'static str) -> Result<u64, ImageError> {
        let missing = || ImageError::MissingSymbol { path: self.path.clone(), symbol: name, purpose };
        let file = object::File::parse(&*self.bytes).map_err(|_| missing())?;
        file.symbols().find(|s| s.name() == Ok(name)).map(|s| s.address()).ok_or_else(missing)
    }

    /// The function whose code holds `address`, its name demangled: where a
    /// halted core stands.
    pub fn function_at(&self, address: u64) -> Option<String> {
        use object::{ObjectSymbol, SymbolKind};
        let file = object::File::parse(&*self.bytes).ok()?;
        // Thumb functions' symbols have the low bit set.
        let address = address & !1;
        file.symbols()
            .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
            .find(|s| (s.address() & !1) <= address && address < (s.address() & !1) + s.size())
            .and_then(|s| s.name().ok().map(crate::timing_model::demangled))
    }

    /// The defmt table the firmware's frames are decoded with.
    pub fn defmt_table(&self) -> Result<defmt_decoder::Table, ImageError> {
        match defmt_decoder::Table::parse(&self.bytes) {
            Ok(Some(table)) => Ok(table),
            Ok(None) => Err(ImageError::NoDefmtTable { path: self.path.clone() }),
            Err(e) => Err(ImageError::DefmtTable { path: self.path.clone(), why: format!("{e:#}") }),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The watcher's cheap read and the full load say the same id: the
    /// test binary itself is an ELF with a GNU build id.
    #[test]
    fn the_build_id_alone_is_the_one_a_full_load_reads() {
        let me = std::env::current_exe().expect("the test binary's path");
        let alone = FirmwareImage::build_id_of(&me).expect("an ELF");
        let loaded = FirmwareImage::load(&me).expect("an ELF").build_id;
        assert!(alone.is_some(), "the test binary has a GNU build id");
        assert_eq!(alone, loaded);
    }

    #[test]
    fn a_file_that_is_not_elf_is_said_to_be_not_elf() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("image.elf");
        std::fs::write(&path, b"@pqb1 hello\n").expect("written");
        assert!(matches!(FirmwareImage::build_id_of(&path), Err(ImageError::NotElf { .. })));
    }
}

//! The images this host's build is still making (the catalogue's
//! [`image_builds`](pqbench_boards::image_builds) file, kept by `cargo xtask
//! dev` beside the images), as the board list and a refused run say them.

use std::path::Path;

use pqbench_api::ImageBuildProgress;
use pqbench_boards::image_builds::{FILE, ImageBuilds, ImageState};
use pqbench_boards::{Board as CatalogueBoard, Variant};

/// The build in progress in `firmware_dir`, if there is one: none when the
/// file is absent, unreadable or malformed (logged), when every image's build
/// has ended, or when its builder is gone (a build stopped half-way).
pub fn in_progress(firmware_dir: &Path) -> Option<ImageBuilds> {
    let path = firmware_dir.join(FILE);
    let text = std::fs::read_to_string(&path).ok()?;
    let builds = match ImageBuilds::parse(&text) {
        Ok(builds) => builds,
        Err(error) => {
            tracing::warn!(file = %path.display(), "ignoring the image build's progress: {error}");
            return None;
        }
    };
    let alive = builds.pid.is_none_or(process_alive);
    (alive && !builds.finished()).then_some(builds)
}

/// Whether process `pid` runs. Where there is no `/proc` (not Linux), a
/// builder is taken to run: its file is removed when it ends.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// What the build still owes `board`, if anything.
pub fn progress(builds: &ImageBuilds, board: &CatalogueBoard) -> Option<ImageBuildProgress> {
    let images: Vec<String> = board
        .variants()
        .map(|variant| board.image_file(variant))
        .filter(|file| builds.state_of(file).is_some_and(ImageState::pending))
        .collect();
    (!images.is_empty()).then(|| ImageBuildProgress {
        images,
        done: count(builds.done()),
        total: count(builds.images.len()),
        current: builds.current().map(String::from),
    })
}

/// Why a run cannot have `variant`'s image yet, if it is being built.
pub fn pending(builds: &ImageBuilds, board: &CatalogueBoard, variant: &Variant) -> Option<String> {
    let file = board.image_file(variant);
    let state = builds.state_of(&file).filter(|state| state.pending())?;
    let place = match state {
        ImageState::Building => "it is being compiled now".to_string(),
        _ => format!("it is queued; {} of {} images are built so far", builds.done(), builds.images.len()),
    };
    Some(format!("the firmware image {file} is not built yet ({place}): the board can run once it is"))
}

/// The note of a board whose default image is still to come.
pub fn note(progress: &ImageBuildProgress) -> String {
    let now = progress.current.as_deref().map(|file| format!("; now {file}")).unwrap_or_default();
    format!("firmware being built: {} of {} images done{now}", progress.done, progress.total)
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(firmware: &str) -> &'static CatalogueBoard {
        CatalogueBoard::by_firmware(firmware).unwrap()
    }

    #[test]
    fn a_board_owes_only_its_own_pending_images() {
        let an386 = board("mps2-an386");
        let variants: Vec<String> = an386.variants().map(|v| an386.image_file(v)).collect();
        let mut files: Vec<&str> = variants.iter().map(String::as_str).collect();
        files.push("nucleo-f446ze.elf");
        let mut builds = ImageBuilds::queue(1, files.iter().copied());
        builds.set(&variants[0], ImageState::Built);
        builds.set(&variants[1], ImageState::Building);
        let owed = progress(&builds, an386).unwrap();
        assert_eq!(owed.images, variants[1..].to_vec());
        assert_eq!((owed.done, owed.total), (1, u32::try_from(files.len()).unwrap()));
        assert_eq!(owed.current.as_deref(), Some(variants[1].as_str()));
        assert!(note(&owed).contains("1 of"), "{}", note(&owed));

        for file in &variants[1..] {
            builds.set(file, ImageState::Failed);
        }
        assert_eq!(progress(&builds, an386), None, "a failed image is owed no more");
        assert!(progress(&builds, board("nucleo-f446ze")).is_some());
    }

    #[test]
    fn a_file_left_by_a_builder_that_is_gone_is_no_build() {
        let dir = tempfile::tempdir().unwrap();
        let queued = |pid| ImageBuilds::queue(pid, ["mps2-an386.elf"]).render();
        std::fs::write(dir.path().join(FILE), queued(std::process::id())).unwrap();
        assert!(in_progress(dir.path()).is_some());
        // Past the kernel's largest pid (2^22).
        std::fs::write(dir.path().join(FILE), queued(u32::MAX - 1)).unwrap();
        assert!(in_progress(dir.path()).is_none());
        std::fs::write(dir.path().join(FILE), "waiting mps2-an386.elf\nlater x.elf\n").unwrap();
        assert!(in_progress(dir.path()).is_none(), "a malformed file is ignored");
    }
}

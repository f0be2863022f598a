//! Firmware images: each board of the catalogue in each of its variants
//! (`<dist>/firmware/<Board::image_file>`), and the images tests alone use
//! (`<dist>/test/`), several built at once.
//!
//! A firmware build spends nearly all its time in one rustc (fat LTO into
//! one codegen unit): its CPU time is its wall time, so one build leaves a
//! second core idle. [`build_in_lanes`] builds one image per core at once,
//! each lane in its own cross target directory, as cargo locks a target
//! directory for a whole build. Images are dealt to lanes in a fixed order,
//! so each lane's directory keeps, from one run to the next, the
//! dependencies its own images need; a cold machine compiles the shared
//! ones once per lane.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use pqbench_boards::{BOARDS, Board, Transport, Variant};

use crate::toolchain::{CrossBuild, CrossToolchain};
use crate::{Project, image_size, run};

/// Every record is a defmt info message, and defmt compiles out messages
/// below the level this names.
const DEFMT_LOG: (&str, &str) = ("DEFMT_LOG", "info");

/// Lanes at most, however many cores: each holds a fat-LTO link of the
/// suite in memory and a target directory of its own on disk.
const MOST_LANES: usize = 4;

/// An image built for tests alone, into `<dist>/test/`.
pub struct TestImage {
    /// The catalogue's board, by its firmware name.
    board: &'static str,
    file: &'static str,
    /// Features beside the board's own.
    features: &'static str,
    /// Sends defmt frames, so it needs `DEFMT_LOG`.
    defmt: bool,
    what: &'static str,
}

const TEST_IMAGES: &[TestImage] = &[
    TestImage {
        board: "mps2-an386",
        file: "mps2-an386-self-test-fault.elf",
        features: "inject-self-test-fault",
        defmt: false,
        what: "mps2-an386 with a failing self-test",
    },
    TestImage {
        board: "mps2-an386",
        file: "mps2-an386-pqc-fault.elf",
        features: "inject-pqc-fault",
        defmt: false,
        what: "mps2-an386 with ML-KEM and ML-DSA wrong but consistent",
    },
    TestImage {
        board: "mps2-an386",
        file: "mps2-an386-defmt-text-mirror.elf",
        features: "text-mirror",
        defmt: true,
        what: "mps2-an386 sending each record as a defmt frame and as a text line",
    },
    TestImage {
        board: "mps2-an386",
        file: "mps2-an386-defmt-rtt.elf",
        features: "defmt-rtt",
        defmt: true,
        what: "mps2-an386 on defmt-rtt, its RTT and mailbox reached through QEMU's gdbstub",
    },
    TestImage {
        board: "nucleo-f446ze",
        file: "nucleo-f446ze-defmt-rtt-clock-hang.elf",
        features: "defmt-rtt,test-clock-waits-forever",
        defmt: true,
        what: "NUCLEO-F446ZE on defmt-rtt whose clock waits never give up (hangs on QEMU's STM32F405)",
    },
];

/// One image to build: a board of the catalogue in one of its variants, or
/// a test's.
#[derive(Clone, Copy)]
pub enum Image<'a> {
    Offered { board: &'a Board, variant: &'a Variant },
    Test(&'static TestImage),
}

impl Image<'static> {
    /// Every image the catalogue offers, board by board.
    pub fn offered() -> impl Iterator<Item = Image<'static>> {
        BOARDS.iter().flat_map(|board| board.variants().map(move |variant| Image::Offered { board, variant }))
    }

    /// The images tests alone use.
    pub fn for_tests() -> impl Iterator<Item = Image<'static>> {
        TEST_IMAGES.iter().map(Image::Test)
    }
}

impl Image<'_> {
    pub fn what(&self) -> String {
        match self {
            Image::Offered { board, variant } => {
                format!("firmware for {} ({})", board.firmware, variant.name)
            }
            Image::Test(image) => format!("test image: {}", image.what),
        }
    }
}

/// Where a build's words go: straight to the terminal, or kept and printed
/// whole when its image is done, as lanes building at once would otherwise
/// interleave their lines.
pub enum Log {
    Live,
    Kept(String),
}

impl Log {
    fn say(&mut self, words: &str) {
        match self {
            Log::Live => eprintln!("{words}"),
            Log::Kept(kept) => {
                kept.push_str(words);
                kept.push('\n');
            }
        }
    }

    fn run(&mut self, command: &mut Command) -> Result<()> {
        let Log::Kept(kept) = self else { return run(command) };
        let output = command.output().with_context(|| format!("starting {command:?}"))?;
        kept.push_str(&String::from_utf8_lossy(&output.stdout));
        kept.push_str(&String::from_utf8_lossy(&output.stderr));
        if !output.status.success() {
            bail!("{command:?} failed: {}", output.status);
        }
        Ok(())
    }
}

/// Builds `images` one per core at once (see the module's comment), each
/// image's output printed whole as it is done. After a failure no lane
/// starts another image; the first failure of each lane is returned.
pub fn build_in_lanes(project: &Project, cross: CrossToolchain, images: &[Image]) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let lanes = cores.clamp(1, MOST_LANES).min(images.len()).max(1);
    let failed = AtomicBool::new(false);
    let failures: Vec<anyhow::Error> = std::thread::scope(|scope| {
        let lanes: Vec<_> = (0..lanes)
            .map(|lane| {
                let failed = &failed;
                scope.spawn(move || -> Result<()> {
                    let target_dir = lane_target_dir(project, lane);
                    for image in images.iter().skip(lane).step_by(lanes) {
                        if failed.load(Ordering::Relaxed) {
                            break;
                        }
                        let started = Instant::now();
                        let mut log = Log::Kept(String::new());
                        let built = project.build_image_in(cross, *image, &target_dir, &mut log);
                        let Log::Kept(kept) = log else { unreachable!("a lane keeps its log") };
                        // One write, so another lane's block cannot cut into it.
                        eprint!(
                            "\n==> {} (lane {lane}, {} s)\n{kept}",
                            image.what(),
                            started.elapsed().as_secs()
                        );
                        if let Err(error) = built {
                            failed.store(true, Ordering::Relaxed);
                            return Err(error.context(image.what()));
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        lanes
            .into_iter()
            .filter_map(|lane| lane.join().unwrap_or_else(|_| Err(anyhow!("a build lane panicked"))).err())
            .collect()
    });
    match failures.len() {
        0 => Ok(()),
        1 => Err(failures.into_iter().next().expect("one failure")),
        n => {
            let all: Vec<String> = failures.iter().map(|e| format!("{e:#}")).collect();
            bail!("{n} images did not build:\n{}", all.join("\n"))
        }
    }
}

/// Lane 0 builds where every other cross build does; each further lane in a
/// directory of its own beside it.
fn lane_target_dir(project: &Project, lane: usize) -> PathBuf {
    match lane {
        0 => project.cross_target(),
        n => project.target.join(format!("cross-lane-{n}")),
    }
}

impl Project {
    /// `variant` of `board` into `<dist>/firmware/<Board::image_file>`,
    /// checked against the chip, its output straight to the terminal.
    pub fn build_image(&self, cross: &CrossToolchain, board: &Board, variant: &Variant) -> Result<()> {
        crate::step(&Image::Offered { board, variant }.what());
        self.build_image_in(*cross, Image::Offered { board, variant }, &self.cross_target(), &mut Log::Live)
    }

    /// `image` into its place in `<dist>`, built in `target_dir`. An
    /// optional variant that does not fit is left out with the reason.
    fn build_image_in(
        &self,
        cross: CrossToolchain,
        image: Image,
        target_dir: &Path,
        log: &mut Log,
    ) -> Result<()> {
        match image {
            Image::Offered { board, variant } => self.build_offered(cross, board, variant, target_dir, log),
            Image::Test(test) => {
                let board =
                    Board::by_firmware(test.board).context("a test image's board is the catalogue's")?;
                let default =
                    Variant::named(pqbench_boards::DEFAULT_VARIANT).context("the default variant")?;
                let features = format!("{},{}", board.features(default), test.features);
                let extra = ["--features", features.as_str()];
                let env: &[(&str, &str)] = if test.defmt { &[DEFMT_LOG] } else { &[] };
                let build = CrossBuild {
                    package: "pqbench-firmware",
                    target: board.target,
                    profile: "firmware",
                    extra: &extra,
                    env,
                };
                log.run(&mut cross.command(self, target_dir, &build))?;
                place(
                    &build.outputs(target_dir).join("pqbench-firmware"),
                    &self.dist().join("test").join(test.file),
                )
            }
        }
    }

    fn build_offered(
        &self,
        cross: CrossToolchain,
        board: &Board,
        variant: &Variant,
        target_dir: &Path,
        log: &mut Log,
    ) -> Result<()> {
        let image = self.dist().join("firmware").join(board.image_file(variant));
        let features = board.features(variant);
        let extra = ["--features", features.as_str()];
        let env: &[(&str, &str)] = if variant.transport == Transport::Text { &[] } else { &[DEFMT_LOG] };
        let build = CrossBuild {
            package: "pqbench-firmware",
            target: board.target,
            profile: variant.profile,
            extra: &extra,
            env,
        };
        let out = match log.run(&mut cross.command(self, target_dir, &build)) {
            Ok(()) => build.outputs(target_dir).join("pqbench-firmware"),
            // The default variant of the same code linked, so what fails
            // here is the memory map: the image outgrew it.
            Err(_) if variant.optional => {
                log.say(&format!(
                    "not offered: {} does not link at {} (see the linker above)",
                    board.firmware, variant.profile
                ));
                let _ = std::fs::remove_file(&image);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let size = image_size::measure(&out)?;
        log.say(&size.report(board));
        match size.check(board) {
            Ok(()) => place(&out, &image),
            Err(too_big) if variant.optional => {
                log.say(&format!("not offered: {too_big}"));
                let _ = std::fs::remove_file(&image);
                Ok(())
            }
            Err(too_big) => Err(too_big),
        }
    }
}

/// Into place whole: a server watching the folder (`cargo xtask dev` serves
/// while images are built) never reads half an image.
fn place(built: &Path, image: &Path) -> Result<()> {
    let part = image.with_extension("elf.part");
    crate::copy(built, &part)?;
    std::fs::rename(&part, image).with_context(|| format!("moving {} into place", image.display()))
}

//! Firmware images: each board of the catalogue in each of its variants
//! (`<dist>/firmware/<Board::image_file>`), and the images tests alone use
//! (`<dist>/test/`): what each is, how it is built, and which the test tier
//! builds. They are built several at once, by `lanes.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use pqbench_boards::{BOARDS, Board, Transport, Variant};

use crate::build_keys::{self, Done, Inputs, Keys};
use crate::lanes::{Job, run_in_lanes};
use crate::log::Log;
use crate::toolchain::{CrossBuild, CrossToolchain};
use crate::{Project, image_size};

/// Every record is a defmt info message, and defmt compiles out messages
/// below the level this names.
pub const DEFMT_LOG: (&str, &str) = ("DEFMT_LOG", "info");

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

/// The offered images the tests run or read, by board and variant (beside
/// every test image). The test tier builds these; the others it compiles
/// (`cargo check`) without linking, as no test reads them. A tidy test
/// holds this list to the image names the tests' sources say.
pub const TESTED: &[(&str, &str)] = &[
    ("mps2-an386", "opt-s"),
    // One other optimisation level stands for both: `opt-3`, run by the
    // tests of build variants and of flashing. `opt-z` differs from it in
    // its profile's opt-level alone, and compiling its dependencies at that
    // level for a link of its own took 243 s of a clean lane: it is
    // compile-checked like the other untested images.
    ("mps2-an386", "opt-3"),
    ("mps2-an386", "opt-s-defmt"),
    ("mps2-an386", "opt-s-rustcrypto"),
    ("mps2-an386", "opt-s-pqclean"),
    ("netduinoplus2", "opt-s"),
    ("mps2-an505", "opt-s"),
    // The probe sequence's dry run, against each real chip in probe-rs's
    // registry: each probe board's serial and probe images.
    ("nucleo-f446ze", "opt-s"),
    ("nucleo-f446ze", "opt-s-defmt-rtt"),
    ("nucleo-f439zi", "opt-s"),
    ("nucleo-f439zi", "opt-s-defmt-rtt"),
    ("b-u585i-iot02a", "opt-s"),
    ("b-u585i-iot02a", "opt-s-defmt-rtt"),
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

    /// Whether a test runs or reads this image (see [`TESTED`]).
    pub fn tested(&self) -> bool {
        match self {
            Image::Offered { board, variant } => TESTED.contains(&(board.firmware, variant.name)),
            Image::Test(_) => true,
        }
    }
}

/// How an image is built: the cargo build's own settings.
pub struct Spec {
    pub target: &'static str,
    pub profile: &'static str,
    pub features: String,
    pub env: &'static [(&'static str, &'static str)],
}

impl Spec {
    /// `then` given the firmware's cargo build of this spec, at `profile`
    /// (its own, or another for a check).
    fn build_at<R>(&self, profile: &str, then: impl FnOnce(&CrossBuild) -> R) -> R {
        let extra = ["--features", self.features.as_str()];
        then(&CrossBuild {
            package: "pqbench-firmware",
            target: self.target,
            profile,
            extra: &extra,
            env: self.env,
        })
    }

    /// `then` given the firmware's cargo build of this spec.
    fn build<R>(&self, then: impl FnOnce(&CrossBuild) -> R) -> R {
        self.build_at(self.profile, then)
    }
}

impl Image<'_> {
    /// Its path in `<dist>`: `firmware/<Board::image_file>` or `test/<file>`.
    pub fn file(&self) -> String {
        match self {
            Image::Offered { board, variant } => format!("firmware/{}", board.image_file(variant)),
            Image::Test(test) => format!("test/{}", test.file),
        }
    }

    pub fn spec(&self) -> Result<Spec> {
        match self {
            Image::Offered { board, variant } => Ok(Spec {
                target: board.target,
                profile: variant.profile,
                features: board.features(variant),
                env: if variant.transport == Transport::Text { &[] } else { &[DEFMT_LOG] },
            }),
            Image::Test(test) => {
                let board =
                    Board::by_firmware(test.board).context("a test image's board is the catalogue's")?;
                let default =
                    Variant::named(pqbench_boards::DEFAULT_VARIANT).context("the default variant")?;
                Ok(Spec {
                    target: board.target,
                    profile: "firmware",
                    features: format!("{},{}", board.features(default), test.features),
                    env: if test.defmt { &[DEFMT_LOG] } else { &[] },
                })
            }
        }
    }

    pub fn what(&self) -> String {
        match self {
            Image::Offered { board, variant } => {
                format!("firmware for {} ({})", board.firmware, variant.name)
            }
            Image::Test(image) => format!("test image: {}", image.what),
        }
    }
}

impl Project {
    /// `variant` of `board` into `<dist>/firmware/<Board::image_file>`,
    /// checked against the chip, its output straight to the terminal.
    pub fn build_image(&self, cross: &CrossToolchain, board: &Board, variant: &Variant) -> Result<()> {
        crate::step(&Image::Offered { board, variant }.what());
        self.build_image_in(*cross, Image::Offered { board, variant }, &self.cross_target(), &mut Log::Live)
            .map(drop)
    }

    /// The test tier's images: every image a test uses built, every other
    /// offered image compiled, each only if its inputs changed since it was
    /// last built or checked (`build_keys.rs`). An image not built from
    /// today's inputs is taken out of `dist`, so no test or server meets a
    /// stale one.
    pub fn images_for_tests(&self, cross: &CrossToolchain) -> Result<()> {
        for folder in ["firmware", "test"] {
            std::fs::create_dir_all(self.dist().join(folder))?;
        }
        crate::step("firmware images: what changed since the last test run");
        let inputs = Inputs::gather(self, *cross, &build_keys::FIRMWARE)?;
        let keys = Keys::new(self);
        let mut jobs = Vec::new();
        let mut checks: Vec<Job> = Vec::new();
        let (mut reused, mut compiled) = (0, BTreeSet::new());
        let all: Vec<Image> = Image::offered().chain(Image::for_tests()).collect();
        let key_of = |image: &Image| -> Result<String> { Ok(image.spec()?.build(|build| inputs.key(build))) };
        for image in &all {
            let key = key_of(image)?;
            let placed = self.dist().join(image.file()).is_file();
            let flat = flat_name(&image.file());
            match (image.tested(), keys.done(&flat, &key)) {
                (_, Some(Done::Built)) if placed => reused += 1,
                (_, Some(Done::NotOffered)) if !placed => reused += 1,
                (false, Some(Done::Checked)) => {
                    // Compiled from these inputs; the image, if any, is older.
                    let _ = std::fs::remove_file(self.dist().join(image.file()));
                    reused += 1;
                }
                (true, _) => {
                    keys.forget(&flat);
                    let _ = std::fs::remove_file(self.dist().join(image.file()));
                    jobs.push(Job::Build(*image));
                }
                (false, _) => {
                    keys.forget(&flat);
                    let _ = std::fs::remove_file(self.dist().join(image.file()));
                    checks.push(Job::Check(*image));
                }
            }
            if image.tested() {
                let spec = image.spec()?;
                compiled.insert((spec.target, spec.features));
            }
        }
        // A check compiles what a build of the same features compiles: one
        // check for each set of features that no build covers.
        let mut checked = BTreeSet::new();
        let mut covered = Vec::new();
        for job in checks {
            let Job::Check(image) = job else { continue };
            let spec = image.spec()?;
            let class = (spec.target, spec.features);
            if compiled.contains(&class) || !checked.insert(class) {
                covered.push(image);
            } else {
                jobs.push(job);
            }
        }
        eprintln!(
            "{} to build, {} to compile-check, {} compiled by another's build or check, {reused} unchanged",
            jobs.iter().filter(|j| matches!(j, Job::Build(_))).count(),
            jobs.iter().filter(|j| matches!(j, Job::Check(_))).count(),
            covered.len()
        );
        let record = |job: &Job, outcome: Option<Done>| -> Result<()> {
            let (image, done) = match job {
                Job::Build(image) => (image, outcome.unwrap_or(Done::Built)),
                Job::Check(image) => (image, Done::Checked),
            };
            keys.record(&flat_name(&image.file()), &key_of(image)?, done)
        };
        run_in_lanes(self, *cross, &jobs, &record)?;
        // Only once every job passed: a covered image's compile is vouched
        // for by the build or check of its features.
        for image in covered {
            keys.record(&flat_name(&image.file()), &key_of(&image)?, Done::Checked)?;
        }
        Ok(())
    }

    /// `image` into its place in `<dist>`, built in `target_dir`. An
    /// optional variant that does not fit is left out with the reason.
    /// Whether it was placed or left out.
    pub(crate) fn build_image_in(
        &self,
        cross: CrossToolchain,
        image: Image,
        target_dir: &Path,
        log: &mut Log,
    ) -> Result<Option<Done>> {
        match image {
            Image::Offered { board, variant } => self.build_offered(cross, board, variant, target_dir, log),
            Image::Test(_) => {
                let out = image.spec()?.build(|build| -> Result<PathBuf> {
                    log.run(&mut cross.command(self, target_dir, build))?;
                    Ok(build.outputs(target_dir).join("pqbench-firmware"))
                })?;
                place(&out, &self.dist().join(image.file()))?;
                Ok(Some(Done::Built))
            }
        }
    }

    /// `image` compiled (`cargo check`) in `target_dir`, at the default
    /// profile: a profile's optimisation level changes no compile error.
    pub(crate) fn check_image_in(
        &self,
        cross: CrossToolchain,
        image: Image,
        target_dir: &Path,
        log: &mut Log,
    ) -> Result<()> {
        image
            .spec()?
            .build_at("firmware", |build| log.run(&mut cross.command_for("check", self, target_dir, build)))
    }

    fn build_offered(
        &self,
        cross: CrossToolchain,
        board: &Board,
        variant: &Variant,
        target_dir: &Path,
        log: &mut Log,
    ) -> Result<Option<Done>> {
        let image = self.dist().join("firmware").join(board.image_file(variant));
        let built = Image::Offered { board, variant }.spec()?.build(|build| {
            log.run(&mut cross.command(self, target_dir, build))
                .map(|()| build.outputs(target_dir).join("pqbench-firmware"))
        });
        let out = match built {
            Ok(out) => out,
            // The default variant of the same code linked, so what fails
            // here is the memory map: the image outgrew it.
            Err(_) if variant.optional => {
                log.say(&format!(
                    "not offered: {} does not link at {} (see the linker above)",
                    board.firmware, variant.profile
                ));
                let _ = std::fs::remove_file(&image);
                return Ok(Some(Done::NotOffered));
            }
            Err(e) => return Err(e),
        };
        let size = image_size::measure(&out)?;
        log.say(&size.report(board));
        match size.check(board) {
            Ok(()) => place(&out, &image).map(|()| Some(Done::Built)),
            Err(too_big) if variant.optional => {
                log.say(&format!("not offered: {too_big}"));
                let _ = std::fs::remove_file(&image);
                Ok(Some(Done::NotOffered))
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

/// An image's path in `dist` as one file name (`firmware/x.elf` is
/// `firmware-x.elf`), for its key.
fn flat_name(file: &str) -> String {
    file.replace('/', "-")
}

//! Builds one per core at once: firmware images (and their compile
//! checks) dealt to lanes, each lane a thread with a cross target directory
//! of its own.
//!
//! A firmware build spends nearly all its time in one rustc (fat LTO into
//! one codegen unit): its CPU time is its wall time, so one build leaves a
//! second core idle. [`build_in_lanes`] builds one image per core at once,
//! each lane in its own cross target directory, as cargo locks a target
//! directory for a whole build. The jobs wait in one queue, in a fixed
//! order, and a lane takes the next as soon as it is free: dealt in turn
//! instead, the lanes of a clean run took 689 and 822 s, one core idle for
//! the last 133 (BENCHMARKS.md, "The test tiers"). Which lane builds an
//! image can change from one run to the next; a lane new to an image's
//! target and profile compiles their dependencies once.
//!
//! Dealing each set of images that share their dependencies (one target and
//! profile) whole to one lane, so each set's dependencies compile once, was
//! measured slower on a cold machine: the 14 images of the largest set then
//! link one after another in one lane (BENCHMARKS.md, "The test tiers").

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Result, anyhow, bail};

use crate::Project;
use crate::build_keys::Done;
use crate::images::Image;
use crate::log::Log;
use crate::toolchain::CrossToolchain;

/// Lanes at most, however many cores: each holds a fat-LTO link of the
/// suite in memory and a target directory of its own on disk.
const MOST_LANES: usize = 4;

/// What to do with an image.
#[derive(Clone, Copy)]
pub enum Job<'a> {
    /// Build it into `dist`.
    Build(Image<'a>),
    /// Compile it without making it (`cargo check`), as no test reads it.
    Check(Image<'a>),
}

impl Job<'_> {
    fn what(&self) -> String {
        match self {
            Job::Build(image) => image.what(),
            Job::Check(image) => format!("compile check: {}", image.what()),
        }
    }
}

/// Builds `images` one per core at once (see the module's comment), each
/// image's output printed whole as it is done. After a failure no lane
/// starts another image; the first failure of each lane is returned.
pub fn build_in_lanes(project: &Project, cross: CrossToolchain, images: &[Image]) -> Result<()> {
    let jobs: Vec<Job> = images.iter().copied().map(Job::Build).collect();
    run_in_lanes(project, cross, &jobs, &|_, _| Ok(()))
}

/// Does `jobs` one per core at once, calling `done` after each that passed.
pub fn run_in_lanes(
    project: &Project,
    cross: CrossToolchain,
    jobs: &[Job],
    done: &(dyn Fn(&Job, Option<Done>) -> Result<()> + Sync),
) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let lanes = cores.clamp(1, MOST_LANES).min(jobs.len()).max(1);
    // The next job of the queue any free lane takes.
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let failures: Vec<anyhow::Error> = std::thread::scope(|scope| {
        let lanes: Vec<_> = (0..lanes)
            .map(|lane| {
                let (failed, next) = (&failed, &next);
                scope.spawn(move || -> Result<()> {
                    let target_dir = lane_target_dir(project, lane);
                    while let Some(image) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if failed.load(Ordering::Relaxed) {
                            break;
                        }
                        let started = Instant::now();
                        let mut log = Log::Kept(String::new());
                        let built = match image {
                            Job::Build(build) => project.build_image_in(cross, *build, &target_dir, &mut log),
                            Job::Check(check) => {
                                project.check_image_in(cross, *check, &target_dir, &mut log).map(|()| None)
                            }
                        }
                        .and_then(|outcome| done(image, outcome));
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
pub fn lane_target_dir(project: &Project, lane: usize) -> PathBuf {
    match lane {
        0 => project.cross_target(),
        n => project.target.join(format!("cross-lane-{n}")),
    }
}

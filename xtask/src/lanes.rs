//! Builds one per core at once: firmware images (and their compile
//! checks) dealt to lanes, each lane a thread with a cross target directory
//! of its own.
//!
//! A firmware build spends nearly all its time in one rustc (fat LTO into
//! one codegen unit): its CPU time is its wall time, so one build leaves a
//! second core idle. [`build_in_lanes`] builds one image per core at once,
//! each lane in its own cross target directory, as cargo locks a target
//! directory for a whole build. The images of one target and profile share
//! their dependencies, so each such set is dealt whole to one lane
//! ([`lanes_of_sets`]), by the same rule every run, and a lane's directory
//! keeps, from one run to the next, the dependencies of its own sets.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};

use crate::image_keys::Done;
use crate::images::Image;
use crate::toolchain::CrossToolchain;
use crate::{Project, run};

/// Lanes at most, however many cores: each holds a fat-LTO link of the
/// suite in memory and a target directory of its own on disk.
const MOST_LANES: usize = 4;

/// Where a build's words go: straight to the terminal, or kept and printed
/// whole when its image is done, as lanes building at once would otherwise
/// interleave their lines.
pub enum Log {
    Live,
    Kept(String),
}

impl Log {
    pub fn say(&mut self, words: &str) {
        match self {
            Log::Live => eprintln!("{words}"),
            Log::Kept(kept) => {
                kept.push_str(words);
                kept.push('\n');
            }
        }
    }

    pub fn run(&mut self, command: &mut Command) -> Result<()> {
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
    run_in_lanes(project, cross, &jobs, &jobs, &|_, _| Ok(()))
}

/// Does `jobs` one per core at once, calling `done` after each that passed.
/// Lanes are dealt by `universe`, every job this command could have had to
/// do (see [`lanes_of_sets`]).
pub fn run_in_lanes(
    project: &Project,
    cross: CrossToolchain,
    jobs: &[Job],
    universe: &[Job],
    done: &(dyn Fn(&Job, Option<Done>) -> Result<()> + Sync),
) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let lanes = cores.clamp(1, MOST_LANES).min(universe.len()).max(1);
    let lane_of = lanes_of_sets(universe, lanes)?;
    let mut dealt: Vec<Vec<&Job>> = vec![Vec::new(); lanes];
    for job in jobs {
        let set = dependency_set(job)?;
        dealt[lane_of.get(&set).copied().unwrap_or(0)].push(job);
    }
    let failed = AtomicBool::new(false);
    let failures: Vec<anyhow::Error> = std::thread::scope(|scope| {
        let lanes: Vec<_> = (0..lanes)
            .map(|lane| {
                let (failed, dealt) = (&failed, &dealt);
                scope.spawn(move || -> Result<()> {
                    let target_dir = lane_target_dir(project, lane);
                    for image in dealt[lane].iter().copied() {
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

/// The dependencies a firmware build compiles (core and alloc through
/// `-Zbuild-std`, the crypto crates, the suite) depend on its target and
/// profile alone, nearly: every image of one target and profile shares
/// them. A check compiles them at the default profile.
fn dependency_set(job: &Job) -> Result<(&'static str, &'static str)> {
    Ok(match job {
        Job::Build(image) => {
            let spec = image.spec()?;
            (spec.target, spec.profile)
        }
        Job::Check(image) => (image.spec()?.target, "firmware"),
    })
}

/// Which lane does each dependency set's jobs. A set is dealt whole, so its
/// dependencies compile in one lane's directory once, rather than once per
/// lane: sets by their work (their dependencies about two images' worth,
/// a check half an image), largest first, each to the lane with the least
/// work so far. The sets and their weights are those of `jobs` before any
/// were found unchanged (the command's universe), so a set keeps its lane
/// (and its lane's warm directory) from one run to the next.
fn lanes_of_sets(jobs: &[Job], lanes: usize) -> Result<BTreeMap<(&'static str, &'static str), usize>> {
    let mut work: BTreeMap<(&str, &str), u32> = BTreeMap::new();
    for job in jobs {
        let weight = match job {
            Job::Build(_) => 2,
            Job::Check(_) => 1,
        };
        *work.entry(dependency_set(job)?).or_insert(4) += weight;
    }
    let mut sets: Vec<_> = work.into_iter().collect();
    // Largest first; equal ones in the order of their names, so the
    // dealing is the same every run.
    sets.sort_by(|(a, wa), (b, wb)| wb.cmp(wa).then(a.cmp(b)));
    let mut load = vec![0u32; lanes];
    let mut lane_of = BTreeMap::new();
    for (set, weight) in sets {
        let lane = (0..lanes).min_by_key(|&lane| (load[lane], lane)).unwrap_or(0);
        load[lane] += weight;
        lane_of.insert(set, lane);
    }
    Ok(lane_of)
}

/// Lane 0 builds where every other cross build does; each further lane in a
/// directory of its own beside it.
pub fn lane_target_dir(project: &Project, lane: usize) -> PathBuf {
    match lane {
        0 => project.cross_target(),
        n => project.target.join(format!("cross-lane-{n}")),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use pqbench_boards::{Board, Variant};

    use super::*;

    /// The test tier's universe on two lanes: each set of dependencies is
    /// compiled in one lane, and no lane carries more than the other plus
    /// the largest set (greedy dealing, largest first).
    #[test]
    fn each_set_of_dependencies_is_dealt_whole_and_the_lanes_share_the_work() {
        let universe: Vec<Job> = Image::offered()
            .chain(Image::for_tests())
            .map(|image| if image.tested() { Job::Build(image) } else { Job::Check(image) })
            .collect();
        let lane_of = lanes_of_sets(&universe, 2).unwrap();
        let mut load = [0usize; 2];
        for job in &universe {
            load[lane_of[&dependency_set(job).unwrap()]] += 1;
        }
        assert!(load.iter().all(|&jobs| jobs > 0), "both lanes work: {load:?}");
        let sets: BTreeSet<_> = universe.iter().map(|job| dependency_set(job).unwrap()).collect();
        assert_eq!(sets.len(), lane_of.len(), "every set has one lane");
        // The same dealing whichever jobs are left to do.
        assert_eq!(lanes_of_sets(&universe, 2).unwrap(), lane_of);
    }

    #[test]
    fn a_check_compiles_at_the_default_profile_and_a_build_at_its_own() {
        let board = Board::by_firmware("mps2-an386").unwrap();
        let opt_z = Image::Offered { board, variant: Variant::named("opt-z").unwrap() };
        assert_eq!(dependency_set(&Job::Build(opt_z)).unwrap(), ("thumbv7em-none-eabihf", "firmware-z"));
        assert_eq!(dependency_set(&Job::Check(opt_z)).unwrap(), ("thumbv7em-none-eabihf", "firmware"));
        assert_eq!(opt_z.file(), "firmware/mps2-an386-opt-z.elf");
    }
}

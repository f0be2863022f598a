//! A throwaway PostgreSQL server for the tests: a fresh cluster per run, on
//! a free port of 127.0.0.1, with trust authentication and a superuser, so
//! the store's tests can create their own databases. Dropping it stops the
//! server and deletes the cluster.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::{Project, setup, step};

/// Where Debian installs each major version's server programs, as
/// `<major>/bin`; they are not on PATH.
const DEBIAN_SERVERS: &str = "/usr/lib/postgresql";

/// The superuser `initdb` creates, and the tests connect as.
const SUPERUSER: &str = "pqbench";

/// initdb refuses to run as root, so root runs the server programs as this
/// user, which the Debian package creates.
const SERVER_USER: &str = "postgres";

/// The longest Unix socket path the server accepts; its socket is
/// `<cluster>/.s.PGSQL.<port>`.
const MAX_SOCKET_PATH: usize = 107;

pub struct TestPostgres {
    url: String,
    data_dir: PathBuf,
    bin_dir: PathBuf,
    /// The user the server programs run as, when we are root.
    run_as: Option<String>,
}

impl TestPostgres {
    /// Installs PostgreSQL if it is missing, then creates and starts a
    /// fresh cluster for the tests: without fsync, as it is thrown away.
    pub fn start(project: &Project) -> Result<TestPostgres> {
        TestPostgres::start_with(project, false)
    }

    /// As [`TestPostgres::start`], but syncing every commit as a server in
    /// use does (PostgreSQL's default), for a benchmark to measure.
    pub fn start_durable(project: &Project) -> Result<TestPostgres> {
        TestPostgres::start_with(project, true)
    }

    fn start_with(project: &Project, durable: bool) -> Result<TestPostgres> {
        let bin_dir = match server_bin_dir() {
            Some(dir) => dir,
            None => {
                setup::apt_install(&["postgresql"])?;
                server_bin_dir().with_context(|| {
                    format!(
                        "no PostgreSQL server after installing the postgresql package: \
                         no {DEBIAN_SERVERS}/<major>/bin with initdb, pg_ctl and postgres"
                    )
                })?
            }
        };
        let run_as = setup::running_as_root().then(|| SERVER_USER.to_string());
        let data_dir = cluster_dir(project, run_as.is_some());
        let data_dir_text = data_dir
            .to_str()
            .with_context(|| format!("the cluster's path {} is not UTF-8", data_dir.display()))?
            .to_string();
        let port = free_port()?;
        let postgres = TestPostgres {
            url: format!("postgres://{SUPERUSER}@127.0.0.1:{port}/postgres"),
            data_dir,
            bin_dir,
            run_as,
        };
        // From here on, a failure drops `postgres`, which deletes the cluster.

        // A run killed before its cleanup may have left a cluster under our
        // pid; a running server notices its directory is gone and stops.
        if postgres.data_dir.exists() {
            std::fs::remove_dir_all(&postgres.data_dir)
                .with_context(|| format!("removing the old cluster {}", postgres.data_dir.display()))?;
        }
        std::fs::create_dir_all(&postgres.data_dir)
            .with_context(|| format!("creating {}", postgres.data_dir.display()))?;
        if let Some(user) = &postgres.run_as {
            std::os::unix::fs::chown(&postgres.data_dir, Some(user_id(user)?), None)
                .with_context(|| format!("giving {} to the user {user}", postgres.data_dir.display()))?;
        }

        let initdb = postgres
            .server_program("initdb")
            .arg("-D")
            .arg(&postgres.data_dir)
            .args(["-A", "trust", "-U", SUPERUSER, "--no-sync", "-E", "UTF8", "--locale=C"])
            .output()
            .context("starting initdb")?;
        if !initdb.status.success() {
            bail!(
                "initdb failed ({}):\n{}{}",
                initdb.status,
                String::from_utf8_lossy(&initdb.stdout),
                String::from_utf8_lossy(&initdb.stderr)
            );
        }

        // pg_ctl hands `-o` to a shell, hence the quotes. The socket lives in
        // the cluster: the default directory, /run/postgresql, may not exist
        // or be writable. fsync is off for the tests: the cluster is thrown
        // away.
        let quoted_dir = format!("'{}'", data_dir_text.replace('\'', r"'\''"));
        let log = postgres.data_dir.join("server.log");
        let started = postgres
            .server_program("pg_ctl")
            .arg("-D")
            .arg(&postgres.data_dir)
            .args(["-w", "-t", "60", "-s", "-l"])
            .arg(&log)
            .arg("-o")
            .arg(format!(
                "-c listen_addresses=127.0.0.1 -p {port} -k {quoted_dir} -c fsync={} -c max_connections=200",
                if durable { "on" } else { "off" }
            ))
            .arg("start")
            .status()
            .context("starting pg_ctl")?;
        if !started.success() {
            bail!("PostgreSQL did not start ({started}); the end of {}:\n{}", log.display(), tail(&log, 30));
        }
        step(&format!(
            "PostgreSQL listens at {} (its cluster and server.log: {})",
            postgres.url,
            postgres.data_dir.display()
        ));
        Ok(postgres)
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// A server program, run as the server's user when we are root.
    fn server_program(&self, name: &str) -> Command {
        let program = self.bin_dir.join(name);
        let mut command = match &self.run_as {
            Some(user) => {
                // /usr/sbin may be missing from PATH, as after a plain `su`.
                let runuser = Path::new("/usr/sbin/runuser");
                let mut command =
                    Command::new(if runuser.is_file() { runuser } else { Path::new("runuser") });
                command.args(["-u", user, "--"]).arg(program);
                command
            }
            None => Command::new(program),
        };
        // The server's user may not be allowed into our working directory.
        command.current_dir("/");
        command
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        // No postmaster.pid: initdb or the start failed, nothing runs.
        if self.data_dir.join("postmaster.pid").exists() {
            let stopped = self
                .server_program("pg_ctl")
                .arg("-D")
                .arg(&self.data_dir)
                .args(["stop", "-m", "fast", "-w", "-s"])
                .status();
            match stopped {
                Ok(status) if status.success() => {}
                Ok(status) => eprintln!("warning: pg_ctl stop for the test PostgreSQL failed: {status}"),
                Err(e) => eprintln!("warning: could not run pg_ctl to stop the test PostgreSQL: {e}"),
            }
        }
        if let Err(e) = std::fs::remove_dir_all(&self.data_dir) {
            eprintln!(
                "warning: could not remove the test PostgreSQL cluster {}: {e}",
                self.data_dir.display()
            );
        }
    }
}

/// The bin directory of the newest PostgreSQL server Debian installed.
pub(crate) fn server_bin_dir() -> Option<PathBuf> {
    std::fs::read_dir(DEBIAN_SERVERS)
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let major: u32 = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            ["initdb", "pg_ctl", "postgres"].iter().all(|p| bin.join(p).is_file()).then_some((major, bin))
        })
        .max_by_key(|(major, _)| *major)
        .map(|(_, bin)| bin)
}

/// The cluster's directory, fresh per run (named by our pid, so runs of
/// several checkouts do not collide): `<target>/postgres/cluster-<pid>`,
/// unless the server cannot use that path; then
/// `<temp>/pqbench-postgres-<pid>`. The server cannot when its user (root
/// runs it as another) cannot traverse to the target directory, which
/// CARGO_TARGET_DIR may put anywhere; when the path makes the socket's
/// longer than the system allows; or when it has characters the shell (pg_ctl
/// passes `-o` through one) or the server's list of socket directories
/// (split at commas) would take apart.
fn cluster_dir(project: &Project, as_server_user: bool) -> PathBuf {
    let pid = std::process::id();
    let parent = project.target.join("postgres");
    let in_target = parent.join(format!("cluster-{pid}"));
    let plain = in_target
        .to_str()
        .is_some_and(|path| path.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b)));
    let short = in_target.as_os_str().len() + "/.s.PGSQL.65535".len() <= MAX_SOCKET_PATH;
    let reachable = || {
        // Our umask decided the mode of `parent` if we made it; the server's
        // user must pass through it, and through every directory above.
        let opened = std::fs::create_dir_all(&parent)
            .and_then(|()| std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o755)));
        opened.is_ok() && project.target.ancestors().all(others_may_traverse)
    };
    if plain && short && (!as_server_user || reachable()) {
        in_target
    } else {
        std::env::temp_dir().join(format!("pqbench-postgres-{pid}"))
    }
}

fn others_may_traverse(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o001 != 0)
}

fn user_id(user: &str) -> Result<u32> {
    let output = Command::new("id").args(["-u", user]).output().context("running id")?;
    if !output.status.success() {
        bail!(
            "no user {user}, which runs PostgreSQL when we are root (the postgresql package creates it): {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    String::from_utf8_lossy(&output.stdout).trim().parse().with_context(|| format!("the uid of {user}"))
}

/// A port nothing listens on now. Another process could take it before the
/// server does; that is unlikely enough on a test machine.
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?.port())
}

/// The last `lines` lines of a file, or why there are none.
fn tail(path: &Path, lines: usize) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let all: Vec<&str> = text.lines().collect();
            all[all.len().saturating_sub(lines)..].join("\n")
        }
        Err(e) => format!("(could not read it: {e})"),
    }
}

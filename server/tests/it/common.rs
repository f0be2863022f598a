//! Starts the real `pqbench serve` on a temporary SQLite file (or a
//! PostgreSQL database) for a test.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pqbench_collect::boards::QemuMachine;
use pqbench_test_needs::Missing;
use pqbench_types::{Algorithm, BenchResult, Run};
use serde_json::Value;

pub struct Server {
    child: Child,
    pub base: String,
    db: OsString,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How to start a server: its database, the address it listens on, and
/// any further arguments.
pub struct ServerOptions<'a> {
    /// None: a fresh database in a temporary folder.
    pub db: Option<PathBuf>,
    /// A PostgreSQL database's URL, used instead of an SQLite file.
    pub postgres: Option<String>,
    /// The address given to `--listen`; requests go to 127.0.0.1 on its port.
    pub listen_ip: &'a str,
    /// The port to listen on; a free one when None. A server started again
    /// on its port is the same server to the store (its runs' leases).
    pub port: Option<u16>,
    pub extra: &'a [&'a str],
    /// Variables set in the server's environment.
    pub env: &'a [(&'a str, &'a std::ffi::OsStr)],
    /// The server's `--dist`; None: [`dist`].
    pub dist: Option<PathBuf>,
}

impl Default for ServerOptions<'_> {
    fn default() -> Self {
        ServerOptions {
            db: None,
            postgres: None,
            listen_ip: "127.0.0.1",
            port: None,
            extra: &[],
            env: &[],
            dist: None,
        }
    }
}

/// Runs the `pqbench` command with `args` on the store `db` (a path or a
/// PostgreSQL URL), whatever PQBENCH_DB says.
pub fn pqbench(args: &[&str], db: impl AsRef<std::ffi::OsStr>) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(args)
        .arg("--db")
        .arg(db)
        .env_remove("PQBENCH_DB")
        .output()
        .unwrap()
}

/// Built dashboard and firmware: `cargo xtask test` builds them and says where.
pub fn dist() -> PathBuf {
    pqbench_test_needs::dist()
}

/// The dist folder without the Cortex-M4 timing model: its every entry but
/// `qemu/` (where the model's plugin is), linked from a folder of this test
/// process's own. For the tests that check what the board measures and
/// not the model's estimates: QEMU runs some three times faster without
/// the plugin.
pub fn dist_without_the_model() -> PathBuf {
    static FOLDER: OnceLock<tempfile::TempDir> = OnceLock::new();
    let folder = FOLDER.get_or_init(|| {
        let folder = tempfile::Builder::new().prefix("pqbench-dist-without-the-model").tempdir().unwrap();
        for entry in std::fs::read_dir(dist()).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name() != "qemu" {
                std::os::unix::fs::symlink(entry.path(), folder.path().join(entry.file_name())).unwrap();
            }
        }
        folder
    });
    folder.path().to_path_buf()
}

/// The SLH-DSA sets whose signatures take billions of instructions: at one
/// call each, SHAKE-128f's and SHA2-128s's take tens of seconds on the
/// emulated board and SHAKE-128s's minutes, and at the default ten calls
/// more. The tests of the whole suite leave them out; `wide_clock.rs` times
/// them.
pub const LONG_ON_THE_EMULATOR: [Algorithm; 3] =
    [Algorithm::SlhDsaShake128f, Algorithm::SlhDsaSha2_128s, Algorithm::SlhDsaShake128s];

/// The suite's algorithms but `left_out`, in the catalogue's order, as a run
/// request names them.
pub fn suite_but(left_out: &[Algorithm]) -> Vec<&'static str> {
    let mut algorithms: Vec<Algorithm> = pqbench_suite::CATALOGUE.iter().map(|&(a, _)| a).collect();
    algorithms.dedup();
    algorithms.into_iter().filter(|a| !left_out.contains(a)).map(|a| a.as_str()).collect()
}

/// The catalogue's (algorithm, operation) rows of `algorithms`, in its order.
pub fn catalogue_of(algorithms: &[&str]) -> Vec<(String, String)> {
    pqbench_suite::CATALOGUE
        .iter()
        .filter(|(a, _)| algorithms.contains(&a.as_str()))
        .map(|(a, o)| (a.to_string(), o.to_string()))
        .collect()
}

/// The dist folder, with the emulated board's default image in it: what a
/// test that runs the emulated board through the server needs.
pub fn firmware_dist() -> Result<PathBuf, Missing> {
    pqbench_test_needs::firmware_image("mps2-an386.elf").map(|_| dist())
}

/// An image in the dist folder by its path there (`firmware/x.elf`,
/// `test/y.elf`).
pub fn image_path(relative: &str) -> Result<PathBuf, Missing> {
    match relative.split_once('/') {
        Some(("firmware", file)) => pqbench_test_needs::firmware_image(file),
        Some(("test", file)) => pqbench_test_needs::test_image(file),
        _ => panic!("an image's path in dist is firmware/<file> or test/<file>, not {relative}"),
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub async fn start_server(extra: &[&str]) -> Server {
    start_server_with(ServerOptions { extra, ..ServerOptions::default() }).await
}

pub async fn start_server_with(options: ServerOptions<'_>) -> Server {
    let (db, dir) = match (options.postgres, options.db) {
        (Some(url), _) => (OsString::from(url), None),
        (None, Some(db)) => (db.into_os_string(), None),
        (None, None) => {
            let dir = tempfile::tempdir().unwrap();
            (dir.path().join("pqbench.db").into_os_string(), Some(dir))
        }
    };
    let port = options.port.unwrap_or_else(free_port);
    let child = Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(["serve", "--listen", &format!("{}:{port}", options.listen_ip)])
        .arg("--db")
        .arg(&db)
        .arg("--dist")
        .arg(options.dist.unwrap_or_else(dist))
        .args(options.extra)
        .envs(options.env.iter().copied())
        .env_remove("PQBENCH_TOKEN")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server { child, base: format!("http://127.0.0.1:{port}"), db, _dir: dir };
    let deadline = Instant::now() + Duration::from_secs(30);
    while reqwest::get(format!("{}/api/health", server.base)).await.is_err() {
        assert!(Instant::now() < deadline, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server
}

impl Server {
    /// The server's process, whose children are the emulators it runs.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's database (its `--db`), for a second pqbench process
    /// to share.
    pub fn db(&self) -> OsString {
        self.db.clone()
    }

    /// Ends the server at once, as a crash would (SIGKILL): nothing of it
    /// runs after, not even its drop handlers.
    pub fn kill_hard(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let response =
            reqwest::Client::new().post(format!("{}{path}", self.base)).json(body).send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    /// Starts a run and waits (300 s at most) for it to end.
    pub async fn run_to_end(&self, request: Value) -> (Run, Vec<BenchResult>) {
        self.run_to_end_within(request, Duration::from_secs(300)).await
    }

    /// Starts a run and waits (`limit` at most) for it to end.
    pub async fn run_to_end_within(&self, request: Value, limit: Duration) -> (Run, Vec<BenchResult>) {
        let id = self.start_run(&request).await;
        self.wait_for_end_within(id, limit).await
    }

    /// Starts a run; its id.
    pub async fn start_run(&self, request: &Value) -> i64 {
        let (status, body) = self.post("/api/runs", request).await;
        assert_eq!(status, 202, "{body}");
        body["id"].as_i64().unwrap()
    }

    /// Waits (300 s at most) for run `id` to end.
    pub async fn wait_for_end(&self, id: i64) -> (Run, Vec<BenchResult>) {
        self.wait_for_end_within(id, Duration::from_secs(300)).await
    }

    /// Waits (`limit` at most) for run `id` to end.
    pub async fn wait_for_end_within(&self, id: i64, limit: Duration) -> (Run, Vec<BenchResult>) {
        let deadline = Instant::now() + limit;
        loop {
            let run: Run = self.get(&format!("/api/runs/{id}")).await;
            if run.status.is_finished() {
                let results = self.get(&format!("/api/runs/{id}/results")).await;
                return (run, results);
            }
            assert!(Instant::now() < deadline, "run {id} still {:?} after {limit:?}", run.status);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let response = reqwest::get(format!("{}{path}", self.base)).await.unwrap();
        assert!(response.status().is_success(), "GET {path}: {}", response.status());
        response.json().await.unwrap()
    }
}

/// The processes whose parent is `pid` (the emulators a server started), as
/// `pid (name) state`.
pub fn children_of(pid: u32) -> Vec<String> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid ...`; comm may hold spaces, so read after its `)`.
        let Some((head, rest)) = stat.rsplit_once(") ") else { continue };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("?");
        if fields.next().and_then(|ppid| ppid.parse::<u32>().ok()) == Some(pid) {
            children.push(format!("{head}) {state}"));
        }
    }
    children
}

/// The emulated Cortex-M4 (mps2-an386) the tests run most on.
pub fn mps2() -> &'static QemuMachine {
    let board = pqbench_boards::Board::by_firmware("mps2-an386").expect("the catalogue's mps2-an386");
    board.qemu().expect("the mps2-an386 is emulated")
}

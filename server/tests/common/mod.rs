//! Starts the real `pqbench serve` on a temporary SQLite file for a test.
#![allow(dead_code)] // each test file uses its own part of this

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pqbench_types::{BenchResult, Run};
use serde_json::Value;

pub struct Server {
    child: Child,
    pub base: String,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Built dashboard and firmware: `cargo xtask test` builds them and says where.
pub fn dist() -> PathBuf {
    std::env::var_os("PQBENCH_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/dist")))
}

pub fn firmware_dist() -> PathBuf {
    let dist = dist();
    let image = dist.join("firmware/mps2-an386.elf");
    assert!(
        image.is_file(),
        "no firmware image at {}: run the tests with `cargo xtask test`",
        image.display()
    );
    dist
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub async fn start_server(extra: &[&str]) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .arg("--db")
        .arg(dir.path().join("pqbench.db"))
        .arg("--dist")
        .arg(dist())
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server { child, base: format!("http://127.0.0.1:{port}"), _dir: dir };
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

    /// The server's database, for a second pqbench process to share.
    pub fn db(&self) -> PathBuf {
        self._dir.path().join("pqbench.db")
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let response =
            reqwest::Client::new().post(format!("{}{path}", self.base)).json(body).send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    /// Starts a run and waits (300 s at most) for it to end.
    pub async fn run_to_end(&self, request: Value) -> (Run, Vec<BenchResult>) {
        let (status, body) = self.post("/api/runs", &request).await;
        assert_eq!(status, 202, "{body}");
        let id = body["id"].as_i64().unwrap();
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let run: Run = self.get(&format!("/api/runs/{id}")).await;
            if run.status.is_finished() {
                let results = self.get(&format!("/api/runs/{id}/results")).await;
                return (run, results);
            }
            assert!(Instant::now() < deadline, "run {id} still {:?} after 300 s", run.status);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let response = reqwest::get(format!("{}{path}", self.base)).await.unwrap();
        assert!(response.status().is_success(), "GET {path}: {}", response.status());
        response.json().await.unwrap()
    }
}

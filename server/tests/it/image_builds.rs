//! A server started while its firmware images are still being built (as
//! `cargo xtask dev` starts it): a board whose image is still to come is
//! listed as building, with how far the build is, refuses a run with why,
//! and runs once its image lands.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pqbench_boards::image_builds::{FILE, ImageBuilds, ImageState};
use serde_json::{Value, json};

use crate::common;

/// The images the build owes, in its order.
const QUEUE: [&str; 3] = ["mps2-an386-opt-3.elf", "netduinoplus2.elf", "nucleo-f446ze.elf"];

struct Served {
    child: std::process::Child,
    base: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `pqbench serve` on a dist folder of its own: the real one's dashboard,
/// and a firmware folder holding the emulated Cortex-M4's default image only.
async fn serve_dist(dist: &Path, db: &Path) -> Served {
    let port = common::free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .arg("--db")
        .arg(db)
        .arg("--dist")
        .arg(dist)
        .env_remove("PQBENCH_TOKEN")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let served = Served { child, base: format!("http://127.0.0.1:{port}") };
    let deadline = Instant::now() + Duration::from_secs(30);
    while reqwest::get(format!("{}/api/health", served.base)).await.is_err() {
        assert!(Instant::now() < deadline, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    served
}

async fn board(base: &str, id: &str) -> Option<Value> {
    let boards: Vec<Value> = reqwest::get(format!("{base}/api/boards")).await.unwrap().json().await.unwrap();
    boards.into_iter().find(|board| board["id"] == id)
}

async fn post_run(base: &str, request: Value) -> (u16, Value) {
    let response =
        reqwest::Client::new().post(format!("{base}/api/runs")).json(&request).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn write_progress(firmware: &Path, builds: &ImageBuilds) {
    std::fs::write(firmware.join(FILE), builds.render()).unwrap();
}

#[tokio::test]
async fn a_board_whose_image_is_being_built_says_so_and_runs_once_it_lands() {
    let built = pqbench_test_needs::require!(common::firmware_dist()).join("firmware");
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    let firmware = dist.join("firmware");
    std::fs::create_dir_all(&firmware).unwrap();
    for entry in std::fs::read_dir(common::dist()).unwrap().flatten() {
        if entry.file_name() != "firmware" {
            std::os::unix::fs::symlink(entry.path(), dist.join(entry.file_name())).unwrap();
        }
    }
    std::fs::copy(built.join("mps2-an386.elf"), firmware.join("mps2-an386.elf")).unwrap();
    // This test's process stands for the builder: alive while it runs.
    let mut builds = ImageBuilds::queue(std::process::id(), QUEUE);
    builds.set(QUEUE[0], ImageState::Building);
    write_progress(&firmware, &builds);
    let server = serve_dist(&dist, &dir.path().join("pqbench.db")).await;

    let an386 = board(&server.base, "qemu-mps2-an386").await.expect("the emulated Cortex-M4 is listed");
    assert_eq!(an386["available"], true, "{an386}");
    assert_eq!(an386["variants"], json!(["opt-s"]), "only what is built can be chosen");
    assert_eq!(an386["building"]["images"], json!([QUEUE[0]]), "{an386}");
    assert_eq!(an386["building"]["current"], QUEUE[0]);

    let netduino = board(&server.base, "qemu-netduinoplus2").await.expect("a board still to come is listed");
    assert_eq!(netduino["available"], false, "{netduino}");
    assert_eq!(netduino["building"]["images"], json!([QUEUE[1]]), "{netduino}");
    assert_eq!(
        (netduino["building"]["done"].as_u64(), netduino["building"]["total"].as_u64()),
        (Some(0), Some(3))
    );
    let note = netduino["note"].as_str().unwrap_or_default();
    assert!(note.contains("firmware being built: 0 of 3 images done; now mps2-an386-opt-3.elf"), "{note}");

    let (status, refused) = post_run(&server.base, json!({"board": "qemu-netduinoplus2"})).await;
    assert_eq!(status, 409, "{refused}");
    let said = refused["error"].as_str().unwrap_or_default();
    assert!(said.contains("netduinoplus2.elf is not built yet (it is queued; 0 of 3"), "{said}");
    let (status, refused) =
        post_run(&server.base, json!({"board": "qemu-mps2-an386", "variant": "opt-3"})).await;
    assert_eq!(status, 409, "{refused}");
    assert!(refused["error"].as_str().unwrap_or_default().contains("being compiled now"), "{refused}");

    // The netduinoplus2's image lands, as the builder moves it into place.
    std::fs::copy(built.join("netduinoplus2.elf"), firmware.join("netduinoplus2.elf.part")).unwrap();
    std::fs::rename(firmware.join("netduinoplus2.elf.part"), firmware.join("netduinoplus2.elf")).unwrap();
    builds.set(QUEUE[0], ImageState::Failed);
    builds.set(QUEUE[1], ImageState::Built);
    builds.set(QUEUE[2], ImageState::Building);
    write_progress(&firmware, &builds);
    let netduino = board(&server.base, "qemu-netduinoplus2").await.unwrap();
    assert_eq!(netduino["available"], true, "{netduino}");
    assert_eq!(netduino["note"], Value::Null);
    assert!(netduino.get("building").is_none(), "{netduino}");
    let (status, started) =
        post_run(&server.base, json!({"board": "qemu-netduinoplus2", "algorithms": ["SHA-256"], "min_iterations": 1, "min_time_ms": 1})).await;
    assert_eq!(status, 202, "{started}");
    let id = started["id"].as_i64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let run = loop {
        let run: Value =
            reqwest::get(format!("{}/api/runs/{id}", server.base)).await.unwrap().json().await.unwrap();
        if run["status"] != "running" && run["status"] != "queued" {
            break run;
        }
        assert!(Instant::now() < deadline, "the run on the landed image did not end: {run}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(run["status"], "complete", "{run}");

    // A failed image is owed no more; a builder that is gone builds nothing.
    let an386 = board(&server.base, "qemu-mps2-an386").await.unwrap();
    assert!(an386.get("building").is_none(), "{an386}");
    let mut gone = builds.clone();
    gone.pid = Some(u32::MAX - 1);
    write_progress(&firmware, &gone);
    let boards: Vec<Value> =
        reqwest::get(format!("{}/api/boards", server.base)).await.unwrap().json().await.unwrap();
    assert!(boards.iter().all(|board| board.get("building").is_none()), "{boards:?}");
}

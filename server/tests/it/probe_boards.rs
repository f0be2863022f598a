//! Boards on a debug probe, on a host with none attached: the real server
//! and command line list no probes, refuse a run on one with a reason a
//! person can act on, and keep serving.

use std::process::Command;

use pqbench_api::{Board, BoardKind};
use serde_json::{Value, json};

use crate::common;

#[tokio::test]
async fn with_no_probe_attached_none_is_listed_and_a_probe_run_is_refused_clearly() {
    let server = common::start_server(&["--probe", "066DFF555185754867044030=nucleo-f446ze"]).await;
    let boards: Vec<Board> = server.get("/api/boards").await;
    assert!(boards.iter().all(|b| b.kind != BoardKind::Probe), "{boards:?}");

    let (status, body) = server.post("/api/runs", &json!({"board": "probe:066DFF555185754867044030"})).await;
    assert_eq!(status, 404, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("no probe 066DFF555185754867044030 is attached"), "{error}");

    let (status, body) = server.post("/api/runs", &json!({"board": "probe:066DFF"})).await;
    assert_eq!(status, 404, "{body}");

    let health: Value = server.get("/api/health").await;
    assert_eq!(health["status"], "ok", "{health}");
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "a refused run leaves no row: {runs:?}");
}

fn pqbench(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(args)
        .arg("--db")
        .arg(dir.path().join("cli.db"))
        .arg("--dist")
        .arg(common::dist())
        .output()
        .unwrap()
}

#[test]
fn the_command_line_says_there_is_no_probe_and_refuses_a_run_on_one() {
    let boards = pqbench(&["boards"]);
    assert!(boards.status.success());
    let listed = String::from_utf8_lossy(&boards.stdout);
    assert!(!listed.contains("probe:"), "{listed}");
    assert!(String::from_utf8_lossy(&boards.stderr).contains("no debug probe attached"));

    let run = pqbench(&["run", "--board", "probe:066DFF", "--algorithms", "SHA-256"]);
    assert!(!run.status.success());
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(said.contains("no probe 066DFF is attached"), "{said}");

    let wiring = pqbench(&["boards", "--probe", "066DFF=nucleo-f999"]);
    assert!(!wiring.status.success());
    let said = String::from_utf8_lossy(&wiring.stderr);
    assert!(said.contains("expected SERIAL=BOARD") && said.contains("nucleo-f446ze"), "{said}");

    // How to connect: for every probe, or for one.
    let connecting = pqbench(&[
        "boards",
        "--probe-speed",
        "1800",
        "--probe-speed",
        "066DFF=480",
        "--connect-under-reset",
        "--connect-under-reset=066DFF",
    ]);
    assert!(connecting.status.success(), "{}", String::from_utf8_lossy(&connecting.stderr));
    let speed = pqbench(&["boards", "--probe-speed", "066DFF=fast"]);
    assert!(!speed.status.success());
    let said = String::from_utf8_lossy(&speed.stderr);
    assert!(said.contains("--probe-speed \"066DFF=fast\": expected KHZ or SERIAL=KHZ"), "{said}");
}

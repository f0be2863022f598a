//! A central server on PostgreSQL and two board agents, each its own
//! `pqbench agent` process on loopback with an emulated board: runs started
//! through the central API land in the central database with their host;
//! an agent killed mid-run ends its run `interrupted` while the other's
//! completes; an agent that comes back brings its boards back.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Server, ServerOptions};
use pqbench_api::Board;
use pqbench_store::test_support::fresh_postgres_database;
use pqbench_store::{Location, Store};
use pqbench_types::{BenchResult, Run, RunStatus};
use serde_json::{Value, json};

const AGENT_TOKEN: &str = "agents-may-connect-0451";
const BOARD: &str = "qemu-mps2-an386";

/// A `pqbench agent` process, its log in a file (shown when a test fails).
pub(crate) struct Agent {
    child: Child,
    log: std::path::PathBuf,
}

impl Agent {
    pub(crate) fn start(server: &Server, host: &str, token: &str, logs: &Path) -> Agent {
        Agent::start_at(&server.base, host, token, &[], logs)
    }

    /// An agent of the server at `url`, with `extra` arguments.
    pub(crate) fn start_at(url: &str, host: &str, token: &str, extra: &[&str], logs: &Path) -> Agent {
        static STARTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let nth = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let log = logs.join(format!("agent-{host}-{nth}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_pqbench"))
            .args(["agent", "--server", url, "--token", token, "--host", host, "--dist"])
            .arg(common::dist())
            .args(extra)
            .env_remove("PQBENCH_AGENT_TOKEN")
            .env("RUST_LOG", "pqbench=info")
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .unwrap();
        Agent { child, log }
    }

    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits (30 s at most) for the agent to end by itself; its exit code.
    pub(crate) async fn ended(&mut self) -> Option<i32> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the agent still runs: {}", self.log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn kill_hard(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.kill_hard();
    }
}

async fn boards(server: &Server) -> Vec<Board> {
    server.get("/api/boards").await
}

/// Waits (60 s at most) until `check` holds of the central server's boards.
pub(crate) async fn wait_for_boards(
    server: &Server,
    what: &str,
    check: impl Fn(&[Board]) -> bool,
) -> Vec<Board> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let listed = boards(server).await;
        if check(&listed) {
            return listed;
        }
        assert!(Instant::now() < deadline, "{what}: the boards are {listed:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) fn board<'a>(boards: &'a [Board], id: &str) -> Option<&'a Board> {
    boards.iter().find(|b| b.id == id)
}

pub(crate) fn ready(boards: &[Board], id: &str) -> bool {
    board(boards, id).is_some_and(|b| b.connected && b.available)
}

/// Waits (120 s at most) until run `id` has stored at least `n` results.
async fn wait_for_results(server: &Server, id: i64, n: usize) -> Vec<BenchResult> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let results: Vec<BenchResult> = server.get(&format!("/api/runs/{id}/results")).await;
        if results.len() >= n {
            return results;
        }
        let run: Run = server.get(&format!("/api/runs/{id}")).await;
        assert!(!run.status.is_finished(), "run {id} ended before {n} results: {run:?}");
        assert!(Instant::now() < deadline, "run {id} stored under {n} results in 120 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn run_on(host: &str, algorithms: &[&str], min_time_ms: u32) -> Value {
    json!({
        "board": format!("{host}/{BOARD}"),
        "algorithms": algorithms,
        "min_iterations": 1,
        "min_time_ms": min_time_ms,
    })
}

/// The QEMU processes an agent runs its board in.
fn emulators_of(pid: u32) -> Vec<u32> {
    common::children_of(pid)
        .iter()
        .filter(|child| child.contains("qemu"))
        .filter_map(|child| child.split_whitespace().next()?.parse().ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_serve_their_boards_to_a_central_server_on_postgresql() {
    let Some(admin) = pqbench_test_needs::or_skip(pqbench_test_needs::postgres()) else { return };
    let url = fresh_postgres_database(&admin, "agents").await;
    let logs = tempfile::tempdir().unwrap();
    let server = common::start_server_with(ServerOptions {
        postgres: Some(url.clone()),
        extra: &["--agent-token", AGENT_TOKEN],
        ..ServerOptions::default()
    })
    .await;

    // Without the agents' token, no agent gets in.
    let client = reqwest::Client::new();
    for authorization in [None, Some("Bearer not-the-token"), Some(&*format!("Basic {AGENT_TOKEN}"))] {
        let mut request = client
            .get(format!("{}/api/agents/connect", server.base))
            .header("connection", "upgrade")
            .header("upgrade", "websocket")
            .header("sec-websocket-version", "13")
            .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==");
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{authorization:?}");
        let body: Value = response.json().await.unwrap();
        assert!(body["error"].as_str().unwrap().contains("token"), "{body}");
    }
    let mut intruder = Agent::start(&server, "intruder", "not-the-token", logs.path());
    let exited = tokio::task::spawn_blocking(move || {
        let status = intruder.child.wait().unwrap();
        (status, intruder)
    });
    let (status, intruder) = tokio::time::timeout(Duration::from_secs(30), exited).await.unwrap().unwrap();
    assert!(!status.success(), "an agent with a wrong token gives up");
    assert!(intruder.log().contains("not this server's agent token"), "{}", intruder.log());
    assert!(boards(&server).await.iter().all(|b| b.host.as_deref() != Some("intruder")));

    let lab_a = Agent::start(&server, "lab-a", AGENT_TOKEN, logs.path());
    let lab_b = Agent::start(&server, "lab-b", AGENT_TOKEN, logs.path());
    let listed = wait_for_boards(&server, "both agents' boards", |b| {
        ready(b, &format!("lab-a/{BOARD}")) && ready(b, &format!("lab-b/{BOARD}"))
    })
    .await;
    let a_board = board(&listed, &format!("lab-a/{BOARD}")).unwrap();
    assert_eq!(a_board.host.as_deref(), Some("lab-a"));
    // The server's own boards are there too, as before, with no host.
    assert!(listed.iter().any(|b| b.id == BOARD && b.host.is_none() && b.connected));

    // One run on each host at once, through the central API.
    let on_a = server.start_run(&run_on("lab-a", &["ML-KEM-512"], 0)).await;
    let on_b = server.start_run(&run_on("lab-b", &["ML-KEM-768"], 0)).await;
    let central = Store::connect(&Location::Postgres(url.clone())).await.unwrap();
    for (id, host) in [(on_a, "lab-a"), (on_b, "lab-b")] {
        let (run, results) = server.wait_for_end(id).await;
        assert_eq!(run.status, RunStatus::Complete, "{run:?}\n{}\n{}", lab_a.log(), lab_b.log());
        assert_eq!((run.board.as_str(), run.host.as_deref()), (BOARD, Some(host)));
        assert_eq!(results.len(), 3, "keygen, encaps and decaps");
        assert!(run.build.profile.is_some(), "the board's build reached the central store: {run:?}");
        // In the central database itself, as the API said.
        let stored = central.run(id).await.unwrap().unwrap();
        assert_eq!(stored.host.as_deref(), Some(host));
        assert_eq!(central.results(id).await.unwrap(), results);
    }

    // A run cancelled from the dashboard stops on the agent's board.
    let cancelled = server.start_run(&run_on("lab-b", &["ML-DSA-87"], 3000)).await;
    // Two operations of 3 s: the agent has listed the board busy meanwhile.
    wait_for_results(&server, cancelled, 2).await;
    let (status, body) = server.post(&format!("/api/runs/{cancelled}/cancel"), &json!({})).await;
    assert_eq!(status, 202, "{body}");
    let (run, kept) = server.wait_for_end(cancelled).await;
    assert_eq!(run.status, RunStatus::Interrupted);
    assert_eq!(run.error.as_deref(), Some(pqbench_collect::runner::CANCELLED));
    assert!(!kept.is_empty(), "what was measured before the cancel is kept");
    // Free once its run has ended, though the agent listed it busy during
    // a run longer than its listings' interval.
    assert!(ready(&boards(&server).await, &format!("lab-b/{BOARD}")), "{:#?}", boards(&server).await);

    // Kill lab-a's agent mid-run, while lab-b runs too.
    let mut lab_a = lab_a;
    let doomed = server.start_run(&run_on("lab-a", &["ML-DSA-87", "ML-KEM-1024"], 3000)).await;
    let survivor = server.start_run(&run_on("lab-b", &["ML-KEM-768", "ML-DSA-44"], 1000)).await;
    wait_for_results(&server, doomed, 1).await;
    let emulators = emulators_of(lab_a.child.id());
    assert_eq!(
        emulators.len(),
        1,
        "lab-a runs its board in QEMU: {:?}",
        common::children_of(lab_a.child.id())
    );
    lab_a.kill_hard();

    let (run, kept) = server.wait_for_end(doomed).await;
    assert_eq!(run.status, RunStatus::Interrupted, "{run:?}");
    let error = run.error.unwrap_or_default();
    assert!(error.contains("the agent on lab-a disconnected mid-run"), "{error}");
    assert!(
        error.contains(&format!(
            "{} kept",
            if kept.len() == 1 { "1 result".into() } else { format!("{} results", kept.len()) }
        )),
        "{error}"
    );
    assert!(!kept.is_empty());
    assert_eq!(central.run(doomed).await.unwrap().unwrap().status, RunStatus::Interrupted);

    let (run, results) = server.wait_for_end(survivor).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}\n{}", lab_b.log());
    assert_eq!(results.len(), 6);

    // lab-a's board stays listed, not connected, and takes no run.
    let listed = wait_for_boards(&server, "lab-a shown disconnected", |b| {
        board(b, &format!("lab-a/{BOARD}")).is_some_and(|b| !b.connected)
    })
    .await;
    let gone = board(&listed, &format!("lab-a/{BOARD}")).unwrap();
    assert!(!gone.available);
    assert!(gone.note.as_deref().unwrap_or_default().contains("lab-a is not connected"), "{gone:?}");
    let (status, body) = server.post("/api/runs", &run_on("lab-a", &["ML-KEM-512"], 0)).await;
    assert_eq!(status, 503, "{body}");
    // Its emulator went with it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while emulators.iter().any(|pid| Path::new(&format!("/proc/{pid}")).exists()) {
        assert!(Instant::now() < deadline, "QEMU {emulators:?} outlived its killed agent");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Back again: its boards return, and run.
    let lab_a = Agent::start(&server, "lab-a", AGENT_TOKEN, logs.path());
    wait_for_boards(&server, "lab-a back", |b| ready(b, &format!("lab-a/{BOARD}"))).await;
    let (run, results) = server.run_to_end(run_on("lab-a", &["ML-KEM-512"], 0)).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}\n{}", lab_a.log());
    assert_eq!((run.host.as_deref(), results.len()), (Some("lab-a"), 3));
}

/// A second agent under a connected host's name is turned away (and
/// retries, as a host whose old connection the server has not yet seen
/// drop would), and a server started without an agent token takes none.
#[tokio::test]
async fn host_names_are_unique_and_agents_need_a_server_that_takes_them() {
    pqbench_test_needs::require!(common::firmware_dist());
    let logs = tempfile::tempdir().unwrap();
    let closed = common::start_server(&[]).await;
    let mut refused = Agent::start(&closed, "lab-x", AGENT_TOKEN, logs.path());
    let status = tokio::task::spawn_blocking(move || (refused.child.wait().unwrap(), refused)).await.unwrap();
    assert!(!status.0.success());
    assert!(status.1.log().contains("takes no agents"), "{}", status.1.log());

    let server = common::start_server(&["--agent-token", AGENT_TOKEN]).await;
    let first = Agent::start(&server, "lab-x", AGENT_TOKEN, logs.path());
    wait_for_boards(&server, "lab-x", |b| ready(b, &format!("lab-x/{BOARD}"))).await;
    let second = Agent::start(&server, "lab-x", AGENT_TOKEN, logs.path());
    let deadline = Instant::now() + Duration::from_secs(30);
    while !second.log().contains("connected already") {
        assert!(Instant::now() < deadline, "{}", second.log());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(first.log().contains("connected to"), "{}", first.log());
    let (run, _) = server.run_to_end(run_on("lab-x", &["ML-KEM-512"], 0)).await;
    assert_eq!(run.status, RunStatus::Complete, "the first agent still serves lab-x");
}

/// The protocol's rules, held by the real server against a hand-driven
/// agent: a result before the board's clock or under a number already used
/// is counted refused, the figures stored are the server's own from the counts, and
/// records of a run the agent was not given end its connection.
#[tokio::test]
async fn the_server_holds_an_agent_to_the_protocol() {
    use futures_util::{SinkExt, StreamExt};
    use pqbench_api::BoardKind;
    use pqbench_api::agents::{FromAgent, PROTOCOL_VERSION, ToAgent};
    use pqbench_types::{Algorithm, Clock, Measurement, Operation, Status, TickUnit};
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    let server = common::start_server(&["--agent-token", AGENT_TOKEN]).await;
    let mut request = format!("{}/api/agents/connect", server.base.replace("http://", "ws://"))
        .into_client_request()
        .unwrap();
    request.headers_mut().insert("authorization", format!("Bearer {AGENT_TOKEN}").parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let say = async |socket: &mut _, message: FromAgent| {
        let socket: &mut tokio_tungstenite::WebSocketStream<_> = socket;
        socket.send(Message::text(serde_json::to_string(&message).unwrap())).await.unwrap();
    };
    let hear = async |socket: &mut tokio_tungstenite::WebSocketStream<_>| loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) => return Some(serde_json::from_str::<ToAgent>(&text).unwrap()),
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            _ => return None,
        }
    };
    let listed = Board {
        id: "bench-board".into(),
        name: "a board on the bench".into(),
        kind: BoardKind::Serial,
        available: true,
        variants: vec!["opt-s".into()],
        chip: None,
        note: None,
        host: None,
        connected: true,
        port: None,
        probe: None,
        can_flash: false,
        building: None,
    };
    let hello = FromAgent::Hello {
        protocol: PROTOCOL_VERSION,
        host: "bench".into(),
        version: "test".into(),
        boards: vec![listed],
    };
    say(&mut socket, hello).await;
    assert_eq!(hear(&mut socket).await, Some(ToAgent::Welcome));
    wait_for_boards(&server, "the bench's board", |b| ready(b, "bench/bench-board")).await;

    let id = server.start_run(&json!({ "board": "bench/bench-board", "min_iterations": 1 })).await;
    match hear(&mut socket).await {
        Some(ToAgent::Run { run, request }) => assert_eq!((run, request.board.as_str()), (id, "bench-board")),
        other => panic!("expected the run, got {other:?}"),
    }
    let counted = Measurement {
        iterations: 4,
        total_ticks: 4_000_003,
        min_ticks: 999_999,
        median_ticks: 1_000_000,
        max_ticks: 1_000_002,
        stack_bytes: Some(1096),
        ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
    };
    let result = |seq| FromAgent::Result { run: id, seq, measurement: counted };
    // Before the board's clock: refused.
    say(&mut socket, result(1)).await;
    let build = Box::new(pqbench_types::Build { profile: Some("firmware".into()), ..Default::default() });
    let described = FromAgent::Described {
        run: id,
        build,
        clock_hz: Some(180_000_000),
        ticks_per_second: 180_000_000,
        tick_unit: "cycles".into(),
    };
    say(&mut socket, described).await;
    // In order: stored. A number already used: refused.
    say(&mut socket, result(1)).await;
    say(&mut socket, result(1)).await;
    // Figures an upload could not carry are refused from an agent too: min
    // above max, and ticks no store column holds.
    let impossible = Measurement { min_ticks: 2_000_000, ..counted };
    let endless = Measurement { total_ticks: u64::MAX, max_ticks: u64::MAX, ..counted };
    for (seq, measurement) in [(2, impossible), (3, endless)] {
        say(&mut socket, FromAgent::Result { run: id, seq, measurement }).await;
    }
    // Notes, kept in the order they came; one that would reorder its
    // line (U+202E) is refused.
    for note in ["the probe failed 2 requests on the way", "evil\u{202E}", "and then 1"] {
        say(&mut socket, FromAgent::Noted { run: id, note: note.into() }).await;
    }
    let finished =
        FromAgent::Finished { run: id, status: RunStatus::Complete, error: None, results: Some(1) };
    say(&mut socket, finished).await;
    let (run, results) = server.wait_for_end(id).await;
    // The agent said complete; the server, having refused five of its
    // records, stores the run incomplete, as a board's refused record would.
    assert_eq!(
        (run.status, run.rejected_records, run.host.as_deref()),
        (RunStatus::Incomplete, 5, Some("bench"))
    );
    assert_eq!(run.error.as_deref(), Some("the server refused 5 of the agent's records"));
    assert_eq!(run.notes.as_deref(), Some("the probe failed 2 requests on the way\nand then 1"));
    let clock = Clock { ticks_per_second: 180_000_000, unit: TickUnit::Cycles };
    assert_eq!(results, [BenchResult::from_measurement(&counted, &clock)]);
    assert_eq!(results[0].cycles_per_op, Some(1_000_000.75));

    // Another run's records: the connection ends, the board shows it.
    say(&mut socket, FromAgent::Result { run: id + 1000, seq: 1, measurement: counted }).await;
    assert_eq!(hear(&mut socket).await, None, "the server closed the connection");
    wait_for_boards(&server, "the bench gone", |b| {
        board(b, "bench/bench-board").is_some_and(|b| !b.connected)
    })
    .await;
}

/// An idle agent stays connected: the server's pings keep both ends
/// hearing each other past the 35 s either takes for a dead connection.
#[tokio::test]
async fn an_idle_agent_stays_connected() {
    pqbench_test_needs::require!(common::firmware_dist());
    let logs = tempfile::tempdir().unwrap();
    let server = common::start_server(&["--agent-token", AGENT_TOKEN]).await;
    let agent = Agent::start(&server, "quiet", AGENT_TOKEN, logs.path());
    wait_for_boards(&server, "the quiet host", |b| ready(b, &format!("quiet/{BOARD}"))).await;
    tokio::time::sleep(Duration::from_secs(45)).await;
    assert!(ready(&boards(&server).await, &format!("quiet/{BOARD}")));
    let log = agent.log();
    assert_eq!(log.matches("connected to").count(), 1, "one connection, never lost: {log}");
    assert!(!log.contains("connecting again"), "{log}");
}

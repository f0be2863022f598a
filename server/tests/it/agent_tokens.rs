//! One token per agent host: `pqbench agent-token add HOST` makes a token
//! that registers that host alone, beside the shared --agent-token;
//! `revoke` drops the host's connected agent within a second, and it
//! cannot connect again.

use std::time::Instant;

use crate::agents::{Agent, board, ready, wait_for_boards};
use crate::common;

const BOARD: &str = "qemu-mps2-an386";

fn agent_token(args: &[&str], db: &std::ffi::OsStr) -> (i32, String, String) {
    let mut all = vec!["agent-token"];
    all.extend(args);
    let output = common::pqbench(&all, db);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_own_token_registers_that_host_alone_and_revoking_it_drops_the_agent_at_once() {
    pqbench_test_needs::require!(common::firmware_dist());
    let logs = tempfile::tempdir().unwrap();
    let server = common::start_server(&["--agent-token", "shared-token-0451"]).await;
    let db = server.db();

    let (code, token, err) = agent_token(&["add", "lab-a"], &db);
    assert_eq!(code, 0, "{err}");
    let token = token.trim().to_string();
    assert_eq!(token.len(), 43, "{token}");
    let (code, _, err) = agent_token(&["add", "lab-a"], &db);
    assert_ne!(code, 0);
    assert!(err.contains("lab-a has a token already"), "{err}");
    let (code, _, err) = agent_token(&["add", "no such/host"], &db);
    assert_ne!(code, 0);
    assert!(err.contains("only letters, digits"), "{err}");

    // lab-a's token cannot register lab-b.
    let mut impostor = Agent::start(&server, "lab-b", &token, logs.path());
    assert_eq!(impostor.ended().await, Some(1));
    assert!(
        impostor.log().contains("this token is lab-a's own: it cannot register lab-b"),
        "{}",
        impostor.log()
    );
    let listed: Vec<pqbench_api::Board> = server.get("/api/boards").await;
    assert!(board(&listed, &format!("lab-b/{BOARD}")).is_none(), "{listed:?}");

    // The shared token cannot claim lab-a's name, and so cannot hold it
    // to lock lab-a's own agent out.
    let mut squatter = Agent::start(&server, "lab-a", "shared-token-0451", logs.path());
    assert_eq!(squatter.ended().await, Some(1));
    assert!(
        squatter.log().contains("lab-a has a token of its own: an agent for it connects with that token"),
        "{}",
        squatter.log()
    );

    // It registers lab-a, and the shared token any host, side by side.
    let mut own = Agent::start(&server, "lab-a", &token, logs.path());
    let _shared = Agent::start(&server, "lab-c", "shared-token-0451", logs.path());
    wait_for_boards(&server, "both hosts' boards", |b| {
        ready(b, &format!("lab-a/{BOARD}")) && ready(b, &format!("lab-c/{BOARD}"))
    })
    .await;
    let (code, listed, _) = agent_token(&["list"], &db);
    assert_eq!(code, 0);
    assert!(listed.starts_with("lab-a\t"), "{listed}");

    // Revoked: dropped within a second or two, and not let back in.
    let (code, _, err) = agent_token(&["revoke", "lab-a"], &db);
    assert_eq!(code, 0, "{err}");
    let revoked = Instant::now();
    wait_for_boards(&server, "lab-a dropped", |b| {
        board(b, &format!("lab-a/{BOARD}")).is_some_and(|b| !b.connected)
    })
    .await;
    let dropped = revoked.elapsed();
    assert!(dropped.as_millis() < 2500, "dropped after {dropped:?}");
    assert_eq!(own.ended().await, Some(1), "{}", own.log());
    assert!(own.log().contains("lab-a's token was revoked"), "{}", own.log());
    assert!(own.log().contains("not this server's agent token, nor a host's own"), "{}", own.log());
    let listed: Vec<pqbench_api::Board> = server.get("/api/boards").await;
    assert!(ready(&listed, &format!("lab-c/{BOARD}")), "the shared token's host stays: {listed:?}");
    let (code, _, err) = agent_token(&["revoke", "lab-a"], &db);
    assert_ne!(code, 0);
    assert!(err.contains("lab-a has no token of its own"), "{err}");
}

#[tokio::test]
async fn a_server_with_host_tokens_alone_takes_those_agents() {
    pqbench_test_needs::require!(common::firmware_dist());
    let logs = tempfile::tempdir().unwrap();
    let server = common::start_server(&[]).await;
    let (code, token, err) = agent_token(&["add", "bench-1"], &server.db());
    assert_eq!(code, 0, "{err}");
    let _agent = Agent::start(&server, "bench-1", token.trim(), logs.path());
    wait_for_boards(&server, "bench-1's board", |b| ready(b, &format!("bench-1/{BOARD}"))).await;
    let mut stranger = Agent::start(&server, "bench-2", "not-a-token", logs.path());
    assert_eq!(stranger.ended().await, Some(1));
    assert!(stranger.log().contains("not this server's agent token, nor a host's own"), "{}", stranger.log());
}

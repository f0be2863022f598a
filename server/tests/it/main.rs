//! The server's integration tests, one binary (linking axum, sqlx and
//! probe-rs once rather than once per file), one module per subject. They
//! run the real `pqbench` binary against real SQLite files, a real
//! PostgreSQL server, QEMU behind real pseudo-terminals and, for the
//! probe path, probe-rs's test double and QEMU's gdbstub.

// Each module uses its own part of the shared helpers.
#[allow(dead_code)]
mod common;

mod access;
mod agent_tokens;
mod agents;
mod api_input;
mod api_writes;
mod backup;
mod clock_bringup;
mod crash;
mod dashboard_api;
mod defmt_path;
mod emulated_board;
mod emulated_faults;
#[cfg(feature = "probe-rs")]
mod gdb_remote;
mod hostile;
mod image_builds;
mod images;
mod import;
mod long_operations;
mod migrate;
mod probe_boards;
mod probe_execute;
mod rebinding;
mod regressions;
mod rtt_mailbox;
mod serial_faults;
mod serial_ports;
mod sessions;
mod tls;
mod uart_flood;
mod wide_clock;

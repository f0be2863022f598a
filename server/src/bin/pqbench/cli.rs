//! The command line's arguments: every command and its options, as clap
//! reads them (`pqbench --help` is this file). What each command does is
//! in `commands/`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};
use pqbench_collect::boards::{Boards, ProbeWiring};
use pqbench_collect::ports::{NamedPort, PortOptions};
use pqbench_collect::runner;
use pqbench_store::Location;

/// Post-quantum and classical cryptography, measured on boards, in browsers
/// and on hosts, side by side.
#[derive(Parser)]
#[command(name = "pqbench", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Commands,
}

#[derive(clap::Args, Clone)]
pub struct Paths {
    /// The database: an SQLite file (created when missing), or a
    /// PostgreSQL URL (postgres://user:password@host/database). Migrated
    /// when opened.
    #[arg(long, env = "PQBENCH_DB", default_value = "pqbench.db")]
    pub db: Location,
    /// Built dashboard and firmware images (`cargo xtask build` writes them).
    #[arg(long, env = "PQBENCH_DIST", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/dist"))]
    pub dist: PathBuf,
}

/// How this host's real boards are reached: debug probes, serial ports.
#[derive(clap::Args, Clone)]
pub struct Wiring {
    /// SERIAL=BOARD: the probe with that USB serial is wired to BOARD
    /// (nucleo-f446ze, nucleo-f439zi or b-u585i-iot02a). Repeat for more.
    /// A probe whose ST-LINK also has a serial port with pqbench firmware
    /// on it needs none: the firmware says which board it is.
    #[arg(long = "probe", env = "PQBENCH_PROBES", value_delimiter = ',')]
    probes: Vec<String>,
    /// KHZ or SERIAL=KHZ: the SWD clock of every probe, or of that one
    /// (the probe's own default otherwise). A lower one helps long or
    /// noisy wires. Repeat for more.
    #[arg(long = "probe-speed", env = "PQBENCH_PROBE_SPEED", value_delimiter = ',', value_name = "KHZ")]
    probe_speed: Vec<String>,
    /// Attach with the chip held in reset: alone for every probe,
    /// `--connect-under-reset=SERIAL` for one. For firmware that turns off
    /// the debug pins or sleeps at once.
    #[arg(
        long = "connect-under-reset",
        env = "PQBENCH_CONNECT_UNDER_RESET",
        value_delimiter = ',',
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = pqbench_collect::boards::EVERY_PROBE,
        value_name = "SERIAL"
    )]
    connect_under_reset: Vec<String>,
    /// PATH or PATH=BOARD: a serial port to try besides the ST-LINK virtual
    /// COM ports, which are tried on their own. Repeat for more.
    #[arg(long = "serial", env = "PQBENCH_SERIAL", value_delimiter = ',')]
    serial: Vec<String>,
    /// Where udev's stable names of USB serial ports are.
    #[arg(long, env = "PQBENCH_SERIAL_BY_ID", default_value = pqbench_collect::ports::BY_ID, hide = true)]
    serial_by_id: PathBuf,
    /// Look only at --serial ports and --serial-by-id, not the system's
    /// own list of serial devices (for tests on pseudo-terminals).
    #[arg(long, env = "PQBENCH_NO_SYSTEM_PORTS", hide = true)]
    no_system_ports: bool,
}

impl Wiring {
    pub fn boards(&self, dist: &Path) -> anyhow::Result<Boards> {
        let wiring = ProbeWiring::parse(self.probes.iter().map(String::as_str))?
            .with_speeds(self.probe_speed.iter().map(String::as_str))?
            .with_under_reset(self.connect_under_reset.iter().map(String::as_str));
        let named = self.serial.iter().map(|text| NamedPort::parse(text)).collect::<Result<Vec<_>, _>>();
        let ports = PortOptions {
            by_id: self.serial_by_id.clone(),
            system_ports: !self.no_system_ports,
            named: named.map_err(|e| anyhow::anyhow!(e))?,
        };
        Ok(Boards::new(dist.join("firmware"), wiring).with_serial_ports(ports))
    }
}

#[derive(Subcommand)]
pub enum Commands {
    /// Serve the dashboard and the JSON API.
    Serve(ServeArgs),
    /// Serve this host's boards to a central server: connect to it, run
    /// what it asks, and stream the results back. Reconnects when the
    /// connection drops.
    Agent(AgentArgs),
    /// List the boards a run can start on now: emulated, and on probes.
    Boards {
        #[command(flatten)]
        paths: Paths,
        #[command(flatten)]
        wiring: Wiring,
    },
    /// Run the suite on a board, store the run and print its id.
    Run(RunArgs),
    /// Write this host's image to a board on a serial port through the
    /// debug probe on the same ST-LINK, restart it, and confirm over the
    /// port that it runs the new build.
    Flash {
        /// The board's id, as `pqbench boards` lists it (serial:...).
        #[arg(long)]
        board: String,
        /// The build to write: opt-s (the default), opt-z or opt-3.
        #[arg(long, default_value = pqbench_boards::DEFAULT_VARIANT)]
        variant: String,
        #[arg(long, env = "PQBENCH_DIST", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/dist"))]
        dist: PathBuf,
        #[command(flatten)]
        wiring: Wiring,
    },
    /// Run the suite on this host's CPU and store the run.
    Bench {
        /// The host's CPU (the only kind of bench there is for now).
        #[arg(long, required = true)]
        native: bool,
        /// Comma-separated, e.g. ML-KEM-768,ML-KEM-512; all when left out.
        #[arg(long, value_delimiter = ',')]
        algorithms: Option<Vec<String>>,
        #[arg(long, default_value_t = runner::DEFAULT_MIN_ITERATIONS)]
        min_iterations: u32,
        #[arg(long, default_value_t = runner::DEFAULT_MIN_TIME_MS)]
        min_time_ms: u32,
        #[command(flatten)]
        paths: Paths,
    },
    /// Store a published log (wolfCrypt's benchmark output, pqm4's
    /// benchmarks.md) as runs; print their ids. Lines it does not understand
    /// are listed on stderr with their numbers.
    Import {
        #[arg(value_enum)]
        format: ImportFormat,
        /// The log; `-` reads standard input.
        file: PathBuf,
        /// The board the log was measured on, e.g. nucleo-f439zi.
        #[arg(long)]
        board: Option<String>,
        /// The board's CPU clock: cycles are derived from times with it
        /// (wolfCrypt), times from cycles (pqm4).
        #[arg(long)]
        clock_hz: Option<u64>,
        /// Show what would be stored, and store nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        paths: Paths,
    },
    /// Copy every run, result, import and report of an SQLite store into
    /// an empty PostgreSQL database, ids and all, in one transaction.
    Migrate {
        /// The SQLite file.
        #[arg(long)]
        from: PathBuf,
        /// The PostgreSQL database's URL: postgres://user:password@host/database.
        #[arg(long)]
        to: String,
    },
    /// Copy the whole store (--db) into a new SQLite file, safely while a
    /// server writes to it (SQLite's VACUUM INTO; PostgreSQL's one
    /// snapshot). The copy is checked, opens as a store of its own
    /// (`serve --db FILE`), and restores with `pqbench restore`.
    Backup {
        /// The new file; an existing one is never overwritten.
        #[arg(long)]
        to: PathBuf,
        /// The store to copy: an SQLite file or a PostgreSQL URL.
        #[arg(long, env = "PQBENCH_DB", default_value = "pqbench.db")]
        db: Location,
    },
    /// Put a backup into an empty store (--db): a new SQLite file, or a
    /// PostgreSQL database that holds nothing yet.
    Restore {
        /// The backup (`pqbench backup --to` wrote it).
        #[arg(long)]
        from: PathBuf,
        /// The store to fill.
        #[arg(long, env = "PQBENCH_DB", default_value = "pqbench.db")]
        db: Location,
    },
    /// Tokens of agent hosts' own: each lets an agent register that one
    /// host name (`pqbench agent --token`), beside the server's shared
    /// --agent-token. Kept in the store as digests; a running server reads
    /// them there, and drops a host's agent within a second of its revoke.
    AgentToken {
        #[command(subcommand)]
        action: AgentTokenAction,
        /// The server's store: an SQLite file or a PostgreSQL URL.
        #[arg(long, global = true, env = "PQBENCH_DB", default_value = "pqbench.db")]
        db: Location,
    },
    /// Print a stored run with its results.
    Export {
        #[arg(long)]
        run: i64,
        #[arg(long, value_enum)]
        format: ExportFormat,
        #[command(flatten)]
        paths: Paths,
    },
}

#[derive(Subcommand)]
pub enum AgentTokenAction {
    /// Make HOST's token and print it (it is shown this once).
    Add { host: String },
    /// End HOST's token: its agent is dropped, and cannot connect again.
    Revoke { host: String },
    /// The hosts with a token of their own, and when each was made.
    List,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ImportFormat {
    Wolfcrypt,
    Pqm4,
}

impl From<ImportFormat> for pqbench_api::LogFormat {
    fn from(format: ImportFormat) -> Self {
        match format {
            ImportFormat::Wolfcrypt => pqbench_api::LogFormat::Wolfcrypt,
            ImportFormat::Pqm4 => pqbench_api::LogFormat::Pqm4,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    Json,
    Csv,
}

// `pqbench serve`'s options (its help is the variant's doc comment).
#[derive(clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub paths: Paths,
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Required to write (runs, uploads) when set; required to listen
    /// on anything but loopback. At least 16 characters, 8 of them
    /// different. Visible in `ps` on argv: --token-file or PQBENCH_TOKEN
    /// keep it out of sight.
    #[arg(long, env = "PQBENCH_TOKEN", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// Reads --token from this file (its first line).
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Takes board agents (`pqbench agent`) that send this token; without
    /// it, no agent may connect.
    #[arg(long, env = "PQBENCH_AGENT_TOKEN", conflicts_with = "agent_token_file")]
    pub agent_token: Option<String>,
    /// Reads --agent-token from this file (its first line).
    #[arg(long, value_name = "PATH")]
    pub agent_token_file: Option<PathBuf>,
    /// Also answer requests for this host name (repeat for more), as a
    /// lab server reached by name must: by default only addresses and
    /// localhost are served, so that no other site's page can reach the
    /// server by pointing its own name at it (DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// Serve HTTPS with this certificate chain (PEM, the server's
    /// certificate first); agents then connect with `https://` (and
    /// `--ca` for a private CA).
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The most connections open at once; one more is answered 503.
    #[arg(long, default_value_t = pqbench::listen::Limits::default().max_connections)]
    pub max_connections: usize,
    /// The most connections one address may hold open at once (each live
    /// run's page and each agent holds one).
    #[arg(long, default_value_t = pqbench::listen::Limits::default().max_per_peer)]
    pub max_connections_per_peer: usize,
    #[command(flatten)]
    pub wiring: Wiring,
}

// `pqbench agent`'s options (its help is the variant's doc comment).
#[derive(clap::Args)]
pub struct AgentArgs {
    /// The central server: http://host:port, or https://host:port for
    /// one serving TLS.
    #[arg(long, env = "PQBENCH_SERVER")]
    pub server: String,
    /// The CA that signed an https:// server's certificate (PEM), for
    /// a lab's private CA; the Mozilla roots when left out.
    #[arg(long)]
    pub ca: Option<PathBuf>,
    /// The server's agent token (its --agent-token).
    #[arg(long, env = "PQBENCH_AGENT_TOKEN")]
    pub token: String,
    /// This host's name on the dashboard: letters, digits, '-', '_', '.'.
    /// The system's host name when left out.
    #[arg(long)]
    pub host: Option<String>,
    /// Built firmware images (`cargo xtask build` writes them).
    #[arg(long, env = "PQBENCH_DIST", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/dist"))]
    pub dist: PathBuf,
    #[command(flatten)]
    pub wiring: Wiring,
}

// `pqbench run`'s options (its help is the variant's doc comment).
#[derive(clap::Args)]
pub struct RunArgs {
    #[arg(long)]
    pub board: String,
    /// Comma-separated, e.g. ML-KEM-768,ML-KEM-512; all when left out.
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Option<Vec<String>>,
    #[arg(long)]
    pub min_iterations: Option<u32>,
    #[arg(long)]
    pub min_time_ms: Option<u32>,
    /// The firmware build: opt-s (the default), opt-z, opt-3, or
    /// opt-s-defmt (defmt frames instead of text, on an emulated board).
    #[arg(long)]
    pub variant: Option<String>,
    /// First write this host's image to the board (a board on a serial
    /// port with the probe of its ST-LINK attached), as `pqbench flash` does.
    #[arg(long)]
    pub flash: bool,
    /// Then judge the run against the earlier complete runs of its
    /// lineage (same board, build variant and implementation), print a
    /// Markdown summary on stdout instead of the run's id (for a CI job
    /// to post as a pull-request comment), and exit with status 1 if a
    /// model finds it slower. MODELS: comma-separated `percent[:P]`
    /// (the mean rose by more than P%, 10 by default) and
    /// `welch[:ALPHA]` (a t-test of the run's mean against the earlier
    /// runs' means at level ALPHA, 0.01 by default; `unknown` with one
    /// earlier run); both when left out.
    #[arg(long, value_name = "MODELS", num_args = 0..=1, default_missing_value = "")]
    pub fail_on_regression: Option<String>,
    /// Store the run on this central server (http://host:port or
    /// https://host:port) instead of --db: this host serves the board to
    /// it as its agent for the one run, as `pqbench agent` does.
    #[arg(long, requires = "token")]
    pub server: Option<String>,
    /// PEM certificates of the CA that signed an https:// server's
    /// certificate (a lab's private CA); the Mozilla roots when left out.
    #[arg(long, requires = "server")]
    pub ca: Option<PathBuf>,
    /// The central server's token for writes (its --token).
    #[arg(long, env = "PQBENCH_TOKEN")]
    pub token: Option<String>,
    /// The central server's agent token (its --agent-token); --token
    /// when left out.
    #[arg(long, env = "PQBENCH_AGENT_TOKEN")]
    pub agent_token: Option<String>,
    /// This host's name on the central server; the system's host name
    /// when left out.
    #[arg(long)]
    pub host: Option<String>,
    #[command(flatten)]
    pub paths: Paths,
    #[command(flatten)]
    pub wiring: Wiring,
}

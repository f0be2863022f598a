use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use pqbench::AppState;
use pqbench::record::StoreRecorder;
use pqbench_api::{BoardKind, ImportRequest, LogFormat, RunRequest};
use pqbench_collect::boards::{Boards, ProbeWiring};
use pqbench_collect::collector::Progress;
use pqbench_collect::runner;
use pqbench_store::{Location, Store};
use pqbench_suite::Settings;
use pqbench_types::{Algorithm, RunStatus, Source};

/// Counts what a native benchmark allocates (only on its own thread).
#[global_allocator]
static ALLOCATOR: pqbench_collect::native::CountingAllocator = pqbench_collect::native::CountingAllocator;

/// Post-quantum and classical cryptography, measured on boards, in browsers
/// and on hosts, side by side.
#[derive(Parser)]
#[command(name = "pqbench", version)]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(clap::Args, Clone)]
struct Paths {
    /// The database: an SQLite file (created when missing), or a
    /// PostgreSQL URL (postgres://user:password@host/database). Migrated
    /// when opened.
    #[arg(long, env = "PQBENCH_DB", default_value = "pqbench.db")]
    db: Location,
    /// Built dashboard and firmware images (`cargo xtask build` writes them).
    #[arg(long, env = "PQBENCH_DIST", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/dist"))]
    dist: PathBuf,
}

/// Which board each debug probe is wired to.
#[derive(clap::Args, Clone)]
struct Wiring {
    /// SERIAL=BOARD: the probe with that USB serial is wired to BOARD
    /// (nucleo-f446ze, nucleo-f439zi or b-u585i-iot02a). Repeat for more.
    #[arg(long = "probe", env = "PQBENCH_PROBES", value_delimiter = ',')]
    probes: Vec<String>,
}

impl Wiring {
    fn boards(&self, dist: &Path) -> anyhow::Result<Boards> {
        let wiring = ProbeWiring::parse(self.probes.iter().map(String::as_str))?;
        Ok(Boards::new(dist.join("firmware"), wiring))
    }
}

#[derive(Subcommand)]
enum Commands {
    /// Serve the dashboard and the JSON API.
    Serve {
        #[command(flatten)]
        paths: Paths,
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// Required to write (runs, uploads) when set; required to listen
        /// on anything but loopback.
        #[arg(long, env = "PQBENCH_TOKEN")]
        token: Option<String>,
        /// Takes board agents (`pqbench agent`) that send this token; without
        /// it, no agent may connect.
        #[arg(long, env = "PQBENCH_AGENT_TOKEN")]
        agent_token: Option<String>,
        #[command(flatten)]
        wiring: Wiring,
    },
    /// Serve this host's boards to a central server: connect to it, run
    /// what it asks, and stream the results back. Reconnects when the
    /// connection drops.
    Agent {
        /// The central server: http://host:port.
        #[arg(long, env = "PQBENCH_SERVER")]
        server: String,
        /// The server's agent token (its --agent-token).
        #[arg(long, env = "PQBENCH_AGENT_TOKEN")]
        token: String,
        /// This host's name on the dashboard: letters, digits, '-', '_', '.'.
        /// The system's host name when left out.
        #[arg(long)]
        host: Option<String>,
        /// Built firmware images (`cargo xtask build` writes them).
        #[arg(long, env = "PQBENCH_DIST", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/dist"))]
        dist: PathBuf,
        #[command(flatten)]
        wiring: Wiring,
    },
    /// List the boards a run can start on now: emulated, and on probes.
    Boards {
        #[command(flatten)]
        paths: Paths,
        #[command(flatten)]
        wiring: Wiring,
    },
    /// Run the suite on a board, store the run and print its id.
    Run {
        #[arg(long)]
        board: String,
        /// Comma-separated, e.g. ML-KEM-768,ML-KEM-512; all when left out.
        #[arg(long, value_delimiter = ',')]
        algorithms: Option<Vec<String>>,
        #[arg(long)]
        min_iterations: Option<u32>,
        #[arg(long)]
        min_time_ms: Option<u32>,
        /// The firmware build: opt-s (the default), opt-z, opt-3, or
        /// opt-s-defmt (defmt frames instead of text, on an emulated board).
        #[arg(long)]
        variant: Option<String>,
        #[command(flatten)]
        paths: Paths,
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

#[derive(Clone, Copy, ValueEnum)]
enum ImportFormat {
    Wolfcrypt,
    Pqm4,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    Json,
    Csv,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "pqbench=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match Cli::parse().command {
        Commands::Serve { paths, listen, token, agent_token, wiring } => {
            let boards = wiring.boards(&paths.dist)?;
            serve(paths, boards, listen, token, agent_token).await
        }
        Commands::Agent { server, token, host, dist, wiring } => {
            check_token(&token).context("the agent token")?;
            let host = match host {
                Some(host) => host,
                None => system_host_name()?,
            };
            let boards = Arc::new(wiring.boards(&dist)?);
            let options = pqbench_agent::AgentOptions { server, token, host };
            tokio::select! {
                ended = pqbench_agent::run(&options, boards) => Ok(ended?),
                () = shutdown() => Ok(()),
            }
        }
        Commands::Boards { paths, wiring } => {
            let boards = wiring.boards(&paths.dist)?;
            let listed = boards.list();
            for board in &listed {
                let chip = board.chip.as_deref().unwrap_or("-");
                println!("{}\t{}\t{chip}\t{}", board.id, board.variants.join(","), board.name);
                if let Some(note) = &board.note {
                    eprintln!("  {}: {note}", board.id);
                }
            }
            if cfg!(feature = "probe-rs") && !listed.iter().any(|b| b.kind == BoardKind::Probe) {
                eprintln!("no debug probe attached");
            }
            for missing in boards.missing() {
                eprintln!("not available: {missing}");
            }
            Ok(())
        }
        Commands::Run { board, algorithms, min_iterations, min_time_ms, variant, paths, wiring } => {
            let algorithms = parse_algorithms(algorithms)?;
            let request = RunRequest { board, algorithms, min_iterations, min_time_ms, variant };
            let boards = wiring.boards(&paths.dist)?;
            run(paths, boards, request).await
        }
        Commands::Bench { native: _, algorithms, min_iterations, min_time_ms, paths } => {
            let algorithms = parse_algorithms(algorithms)?;
            bench_native(&paths.db, algorithms, Settings { min_iterations, min_time_ms }).await
        }
        Commands::Import { format, file, board, clock_hz, dry_run, paths } => {
            let format = match format {
                ImportFormat::Wolfcrypt => LogFormat::Wolfcrypt,
                ImportFormat::Pqm4 => LogFormat::Pqm4,
            };
            import(&paths.db, format, &file, board, clock_hz, dry_run).await
        }
        Commands::Export { run, format, paths } => export(&paths.db, run, format).await,
        Commands::Migrate { from, to } => {
            let target = match to.parse::<Location>() {
                Ok(Location::Postgres(_)) => Location::Postgres(to.clone()),
                _ => bail!("--to must be a postgres:// or postgresql:// URL"),
            };
            let migrated = pqbench_store::migrate(&from, &to)
                .await
                .with_context(|| format!("migrating {} into {target}", from.display()))?;
            for (table, rows) in &migrated.tables {
                eprintln!("{table}: {rows} rows copied");
            }
            eprintln!("{} is now in {target}", from.display());
            Ok(())
        }
    }
}

fn parse_algorithms(names: Option<Vec<String>>) -> anyhow::Result<Option<Vec<Algorithm>>> {
    let Some(names) = names else { return Ok(None) };
    let algorithms = names
        .iter()
        .map(|n| Algorithm::from_name(n).map_err(|_| anyhow::anyhow!("unknown algorithm {n:?}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(a) = algorithms.iter().find(|&&a| !pqbench_suite::supports(a)) {
        bail!("the suite does not measure {a} yet");
    }
    Ok(Some(algorithms))
}

async fn bench_native(
    db: &Location,
    algorithms: Option<Vec<Algorithm>>,
    settings: Settings,
) -> anyhow::Result<()> {
    if env!("PQBENCH_OPT_LEVEL") == "0" {
        eprintln!(
            "note: this pqbench is built without optimisation, and its figures will show it; \
             `cargo build --release -p pqbench` makes one worth comparing"
        );
    }
    let store = open_store(db).await?;
    let bar = progress_bar("native");
    let upload = tokio::task::block_in_place(|| {
        pqbench_collect::native::run(settings, algorithms, true, |algorithm, operation, index, total| {
            bar.set_length(u64::from(total));
            bar.set_position(u64::from(index - 1));
            bar.set_message(format!("{algorithm} {operation}"));
        })
    })?;
    bar.finish_and_clear();
    let (run, clock) = pqbench_store::upload::validate(&upload).map_err(|e| anyhow::anyhow!("{e}"))?;
    let id = store.insert_finished_run(&run, &clock, &upload.measurements).await?;
    eprintln!("run {id} complete: {} results on {}", upload.measurements.len(), upload.board);
    println!("{id}");
    Ok(())
}

fn progress_bar(what: &str) -> ProgressBar {
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("starting {what}"));
    bar
}

async fn open_store(db: &Location) -> anyhow::Result<Store> {
    Store::connect(db).await.with_context(|| format!("opening the database {db}"))
}

async fn serve(
    paths: Paths,
    boards: Boards,
    listen: SocketAddr,
    token: Option<String>,
    agent_token: Option<String>,
) -> anyhow::Result<()> {
    if let Some(token) = &token {
        check_token(token)?;
    }
    if let Some(token) = &agent_token {
        check_token(token).context("the agent token (--agent-token or PQBENCH_AGENT_TOKEN)")?;
    }
    if !listen.ip().is_loopback() && token.is_none() {
        bail!(
            "listening on {listen} lets other machines reach this server, and anyone who can reach it \
             could write: give a token with --token (or PQBENCH_TOKEN) that writes must send, or listen \
             on 127.0.0.1"
        );
    }
    let store = open_store(&paths.db).await?;
    let interrupted = store.interrupt_unfinished().await?;
    if interrupted > 0 {
        tracing::warn!("{interrupted} runs left unfinished by an earlier server are marked interrupted");
    }
    if !paths.dist.join("index.html").is_file() {
        tracing::warn!("no dashboard in {}: build it with `cargo xtask build`", paths.dist.display());
    }
    let boards = Arc::new(boards);
    let mut state = AppState::new(store, boards);
    if let Some(token) = &agent_token {
        state = state.accepting_agents(token);
    }
    let app = pqbench::router(state, &paths.dist, token);
    let listener =
        tokio::net::TcpListener::bind(listen).await.with_context(|| format!("listening on {listen}"))?;
    tracing::info!("pqbench serving http://{}", listener.local_addr()?);
    axum::serve(listener, app).with_graceful_shutdown(shutdown()).await?;
    Ok(())
}

/// The system's name for this host, as an agent's name: what
/// `gethostname` gives, up to its first dot.
fn system_host_name() -> anyhow::Result<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length, and gethostname writes
    // at most that many bytes.
    let failed = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } != 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]);
    let name = name.split('.').next().unwrap_or_default().to_string();
    if failed || pqbench_api::agents::check_host_name(&name).is_err() {
        bail!("this host's name ({name:?}) cannot name an agent: give one with --host");
    }
    Ok(name)
}

/// A token that protects something and that a client can send: an empty
/// one (`--token ""`) would let anyone write, and a client sends it in an
/// `Authorization` header, which holds printable ASCII only and loses the
/// spaces around a value.
fn check_token(token: &str) -> anyhow::Result<()> {
    if token.trim().is_empty() {
        bail!("the token (--token or PQBENCH_TOKEN) is empty: give one that writes must send");
    }
    if token.trim() != token || !token.chars().all(|c| c == ' ' || c.is_ascii_graphic()) {
        bail!(
            "the token (--token or PQBENCH_TOKEN) must be printable ASCII without spaces at its ends: \
             a client sends it in an `Authorization: Bearer` header, which can hold nothing else"
        );
    }
    Ok(())
}

/// Ctrl-C or SIGTERM (a service manager's stop) ends the server gracefully.
async fn shutdown() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
}

async fn run(paths: Paths, boards: Boards, request: RunRequest) -> anyhow::Result<()> {
    let store = open_store(&paths.db).await?;
    let open = |run| async { StoreRecorder::open(&store, run, None).await };
    let prepared = runner::prepare(&boards, &request, open).await?;
    let id = prepared.id;
    let bar = progress_bar(&request.board);
    let outcome = prepared
        .execute(|progress| match progress {
            Progress::Operation { algorithm, operation, index, total } => {
                bar.set_length(u64::from(total));
                bar.set_position(u64::from(index - 1));
                bar.set_message(format!("{algorithm} {operation}"));
            }
            Progress::Result(_) => bar.inc(1),
            Progress::Rejected(why) => bar.println(format!("refused a record: {why}")),
            Progress::Text(_) => {}
        })
        .await?;
    bar.finish_and_clear();
    match outcome.status {
        RunStatus::Complete => {
            eprintln!("run {id} complete: {} results", outcome.results);
            println!("{id}");
            Ok(())
        }
        status => {
            println!("{id}");
            bail!(
                "run {id} {}: {}",
                status.as_str(),
                outcome.error.unwrap_or_else(|| "no reason given".into())
            )
        }
    }
}

async fn import(
    db: &Location,
    format: LogFormat,
    file: &Path,
    board: Option<String>,
    clock_hz: Option<u64>,
    dry_run: bool,
) -> anyhow::Result<()> {
    let bytes = if file == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).context("reading standard input")?;
        bytes
    } else {
        std::fs::read(file).with_context(|| format!("reading {}", file.display()))?
    };
    let text = String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8 text", file.display()))?;
    let file_name = (file != Path::new("-")).then(|| file.display().to_string());
    let request = ImportRequest { format, text, file_name, board, clock_hz };
    let plan = pqbench_store::import::plan(&request)?;
    let preview = plan.preview.clone();
    for unread in &preview.unread {
        eprintln!("line {}: {} ({})", unread.line, unread.text.trim(), unread.reason);
    }
    let results: usize = preview.runs.iter().map(|run| run.results.len()).sum();
    eprintln!(
        "{}: {results} results in {} run(s) for board {}; {} line(s) not imported",
        format.title(),
        preview.runs.len(),
        preview.board,
        preview.unread.len()
    );
    if dry_run {
        for run in &preview.runs {
            println!("# {}", run.build.label(Source::Import));
            print!("{}", pqbench_view::csv::csv(&run.results));
        }
        return Ok(());
    }
    let store = open_store(db).await?;
    let stored = pqbench_store::import::store(&store, plan).await?;
    for id in stored.runs {
        println!("{id}");
    }
    Ok(())
}

async fn export(db: &Location, id: i64, format: ExportFormat) -> anyhow::Result<()> {
    if let Location::Sqlite(path) = db
        && !path.is_file()
    {
        bail!("no database at {}", path.display());
    }
    let store = open_store(db).await?;
    let run = store.run(id).await?.with_context(|| format!("no run {id} in {db}"))?;
    let results = store.results(id).await?;
    match format {
        ExportFormat::Json => {
            let document = serde_json::json!({ "run": run, "results": results });
            println!("{}", serde_json::to_string_pretty(&document)?);
        }
        ExportFormat::Csv => {
            // The dashboard's downloads are written by the same function.
            print!("{}", pqbench_view::csv::csv(&results));
        }
    }
    Ok(())
}

//! `pqbench`, the command line over every crate: the server, a run on a
//! board, the suite on this host, imports and exports, an agent. The
//! arguments are `cli.rs`; each command's work is a module of `commands/`;
//! this file starts the logging and sends each command to its module.

use clap::Parser;

mod cli;
mod commands;

use cli::{Cli, Commands};
use commands::{agent, boards, logs, run, serve, store};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "pqbench=info".into()),
        )
        .with_writer(std::io::stderr)
        // Colours for a person at a terminal, not into a log file.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match Cli::parse().command {
        Commands::Serve(args) => serve::serve(args).await,
        Commands::Agent(args) => agent::agent(args).await,
        Commands::Boards { paths, wiring } => boards::list(&paths, &wiring).await,
        Commands::Run(args) => run::run(args).await,
        Commands::Flash { board, variant, dist, wiring } => {
            boards::flash(&board, &variant, &dist, &wiring).await
        }
        Commands::Bench { native: _, algorithms, min_iterations, min_time_ms, paths } => {
            run::bench_native(&paths, algorithms, min_iterations, min_time_ms).await
        }
        Commands::Import { format, file, board, clock_hz, dry_run, paths } => {
            logs::import(&paths.db, format.into(), &file, board, clock_hz, dry_run).await
        }
        Commands::Export { run, format, paths } => logs::export(&paths.db, run, format).await,
        Commands::AgentToken { action, db } => store::agent_token(action, &db).await,
        Commands::Backup { to, db } => store::backup(&db, &to).await,
        Commands::Restore { from, db } => store::restore(&from, &db).await,
        Commands::Migrate { from, to } => store::migrate(&from, &to).await,
    }
}

//! `pqbench run` and `pqbench bench`: the suite on a board, stored here or
//! on a central server and judged if asked, and the suite on this host.

use anyhow::{Context, bail};
use pqbench_api::NewRun;
use pqbench_suite::Settings;
use pqbench_types::Algorithm;

use super::store::open_store;
use super::{board_side, central, serve};
use crate::cli::{Paths, RunArgs};

pub async fn run(args: RunArgs) -> anyhow::Result<()> {
    let RunArgs {
        board,
        algorithms,
        min_iterations,
        min_time_ms,
        variant,
        flash,
        fail_on_regression,
        server,
        ca,
        token,
        agent_token,
        host,
        paths,
        wiring,
    } = args;
    // Refused before anything runs: a bad model name found after a long
    // run would lose its verdict.
    let models = fail_on_regression
        .as_deref()
        .map(|m| pqbench_view::regressions::parse_models((!m.is_empty()).then_some(m)))
        .transpose()
        .map_err(|e| anyhow::anyhow!("--fail-on-regression: {e}"))?;
    let algorithms = parse_algorithms(algorithms)?;
    let boards = wiring.boards(&paths.dist)?;
    if board.starts_with(pqbench_collect::ports::SERIAL_PREFIX) {
        board_side::ask_ports(&boards).await;
    }
    let variant = if flash {
        let written = variant.as_deref().unwrap_or(pqbench_boards::DEFAULT_VARIANT);
        board_side::flash_board(&boards, &board, written).await?;
        // The board now runs that build: a run names what it has.
        None
    } else {
        variant
    };
    let request = NewRun { board, algorithms, min_iterations, min_time_ms, variant };
    // Watched during the run too, so an unplugged board ends it.
    board_side::watch_ports(&boards);
    let judged = match server {
        Some(server) => {
            let token = token.context("--server needs --token")?;
            let agent_token = agent_token.unwrap_or_else(|| token.clone());
            let host = match host {
                Some(host) => host,
                None => serve::system_host_name()?,
            };
            let central = central::Central::new(&server, &token, ca)?;
            let id = central.run(boards, &agent_token, &host, request).await?;
            match &models {
                Some(models) => Some(central.regressions(id, models).await?),
                None => {
                    println!("{id}");
                    None
                }
            }
        }
        None => {
            let id = board_side::run(&paths, boards, request, models.is_none()).await?;
            match &models {
                Some(models) => {
                    let store = open_store(&paths.db).await?;
                    let run = store.run(id).await?.with_context(|| format!("run {id} is not stored"))?;
                    Some(pqbench::routes::regressions::judge_run(&store, &run, models).await?)
                }
                None => None,
            }
        }
    };
    match judged {
        Some(judged) => {
            print!("{}", judged.markdown());
            if judged.has_regression() {
                std::process::exit(1);
            }
            Ok(())
        }
        None => Ok(()),
    }
}

pub async fn bench_native(
    paths: &Paths,
    algorithms: Option<Vec<String>>,
    min_iterations: u32,
    min_time_ms: u32,
) -> anyhow::Result<()> {
    let algorithms = parse_algorithms(algorithms)?;
    board_side::bench_native(&paths.db, algorithms, Settings { min_iterations, min_time_ms }).await
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

//! Runs in and out of a store as files: `pqbench import` of a published
//! log and `pqbench export` of a run.

use std::path::Path;

use anyhow::{Context, bail};
use pqbench_api::{LogFormat, NewImport};
use pqbench_store::Location;
use pqbench_types::Source;

use super::store::open_store;
use crate::cli::ExportFormat;

pub async fn import(
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
    let request = NewImport { format, text, file_name, board, clock_hz };
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

pub async fn export(db: &Location, id: i64, format: ExportFormat) -> anyhow::Result<()> {
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

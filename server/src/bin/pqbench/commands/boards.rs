//! `pqbench boards` and `pqbench flash`: this host's boards, listed or
//! written to.

use std::path::Path;
use std::sync::Arc;

use pqbench_api::BoardKind;

use super::board_side;
use crate::cli::{Paths, Wiring};

/// Every board a run can start on now, one a line on stdout, and what is
/// not available on stderr.
pub async fn list(paths: &Paths, wiring: &Wiring) -> anyhow::Result<()> {
    let boards = Arc::new(wiring.boards(&paths.dist)?);
    // Every port asked once, to the end, before the list is shown.
    board_side::ask_ports(&boards).await;
    let listed = tokio::task::spawn_blocking({
        let boards = boards.clone();
        move || boards.list()
    })
    .await?;
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

pub async fn flash(board: &str, variant: &str, dist: &Path, wiring: &Wiring) -> anyhow::Result<()> {
    let boards = wiring.boards(dist)?;
    board_side::ask_ports(&boards).await;
    board_side::flash_board(&boards, board, variant).await
}

//! The commands on the store itself: agent hosts' tokens, backup and
//! restore, and a migration from SQLite to PostgreSQL.

use std::path::Path;

use anyhow::{Context, bail};
use pqbench_store::{Location, Store};

use crate::cli::AgentTokenAction;

pub async fn open_store(db: &Location) -> anyhow::Result<Store> {
    Store::connect(db).await.with_context(|| format!("opening the database {db}"))
}

pub async fn agent_token(action: AgentTokenAction, db: &Location) -> anyhow::Result<()> {
    let store = open_store(db).await?;
    match action {
        AgentTokenAction::Add { host } => {
            pqbench_api::agents::HostName::new(host.as_str())?;
            let token = pqbench_store::secrets::new_agent_token().context("the OS random generator")?;
            let digest = pqbench::security::TokenDigest::of(&token).hex();
            if !store.add_agent_token(&host, &digest).await? {
                bail!("{host} has a token already: `pqbench agent-token revoke {host}` first");
            }
            eprintln!(
                "{host}'s token (shown this once; its agent runs `pqbench agent --host {host} --token ...`):"
            );
            println!("{token}");
        }
        AgentTokenAction::Revoke { host } => {
            if !store.revoke_agent_token(&host).await? {
                bail!("{host} has no token of its own");
            }
            eprintln!("{host}'s token is revoked; a server on {db} drops its agent within a second");
        }
        AgentTokenAction::List => {
            for (host, created_at) in store.agent_token_hosts().await? {
                println!("{host}\t{created_at}");
            }
        }
    }
    Ok(())
}

pub async fn backup(db: &Location, to: &Path) -> anyhow::Result<()> {
    let copied = pqbench_store::backup::backup(db, to)
        .await
        .with_context(|| format!("backing up {db} into {}", to.display()))?;
    print_tables(&copied, "in the backup");
    println!("{} is a backup of {db}; integrity check: ok", to.display());
    Ok(())
}

pub async fn restore(from: &Path, db: &Location) -> anyhow::Result<()> {
    let copied = pqbench_store::backup::restore(from, db)
        .await
        .with_context(|| format!("restoring {} into {db}", from.display()))?;
    print_tables(&copied, "restored");
    println!("{} is restored into {db}", from.display());
    Ok(())
}

/// `pqbench migrate`: an SQLite file's every table copied into PostgreSQL.
pub async fn migrate(from: &Path, to: &str) -> anyhow::Result<()> {
    let target = match to.parse::<Location>() {
        Ok(Location::Postgres(_)) => Location::Postgres(to.to_string()),
        _ => bail!("--to must be a postgres:// or postgresql:// URL"),
    };
    let migrated = pqbench_store::migrate(from, to)
        .await
        .with_context(|| format!("migrating {} into {target}", from.display()))?;
    for (table, rows) in &migrated.tables {
        eprintln!("{table}: {rows} rows copied");
    }
    eprintln!("{} is now in {target}", from.display());
    Ok(())
}

/// What a copy holds, table by table, on stderr.
fn print_tables(copied: &pqbench_store::Migrated, what: &str) {
    for (table, rows) in &copied.tables {
        eprintln!("{table}: {rows} rows {what}");
    }
}

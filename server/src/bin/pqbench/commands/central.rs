//! `pqbench run --server`: a run on this host's board, stored on a central
//! server. This host serves its boards to the server as its agent for the
//! one run (the path `pqbench agent` takes), and asks the server to run on
//! its board through the API, as the dashboard would: the central server
//! records the run as it records any agent's, and judges it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use pqbench_api::{Board, NewRun, RunCreated, RunRegressions};
use pqbench_collect::boards::Boards;
use pqbench_types::{Run, RunStatus};
use pqbench_view::regressions::Model;

/// How long the server is given to list this host's board once the agent
/// is up.
const BOARD_LISTED_WITHIN: Duration = Duration::from_secs(60);
/// How often the run is looked at while it runs.
const POLL: Duration = Duration::from_millis(500);

type AgentTask = tokio::task::JoinHandle<Result<(), pqbench_agent::AgentError>>;

/// What ended an agent task that has finished.
async fn why_ended(agent: &mut AgentTask) -> String {
    match agent.await {
        Ok(Ok(())) => "the server closed it".into(),
        Ok(Err(e)) => e.to_string(),
        Err(e) => format!("it failed: {e}"),
    }
}

pub struct Central {
    base: String,
    token: String,
    /// The lab's CA, for an `https://` server.
    ca: Option<PathBuf>,
    http: reqwest::Client,
}

impl Central {
    /// The server at `server` (`http://` or `https://host:port`), trusting
    /// `ca` for HTTPS as the agent does (the Mozilla roots without it).
    pub fn new(server: &str, token: &str, ca: Option<PathBuf>) -> anyhow::Result<Central> {
        let base = server.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            bail!("--server must be http://host:port or https://host:port, not {server:?}");
        }
        let http = match pqbench_agent::client_config(&base, ca.as_deref())? {
            Some(tls) => reqwest::Client::builder().use_preconfigured_tls(tls).build()?,
            None => reqwest::Client::new(),
        };
        Ok(Central { base, token: token.into(), ca, http })
    }

    async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> anyhow::Result<T> {
        let url = format!("{}{path}", self.base);
        let response = self.http.get(&url).send().await.with_context(|| format!("GET {url}"))?;
        let status = response.status();
        if !status.is_success() {
            bail!("GET {url}: {status}: {}", response.text().await.unwrap_or_default());
        }
        response.json().await.with_context(|| format!("GET {url}: not the answer expected"))
    }

    /// Runs `request` on this host's board, served to the server as `host`
    /// with `agent_token`; the id of the run the server stored. A run that
    /// does not complete is an error.
    pub async fn run(
        &self,
        boards: Boards,
        agent_token: &str,
        host: &str,
        mut request: NewRun,
    ) -> anyhow::Result<i64> {
        let options = pqbench_agent::AgentOptions {
            server: self.base.clone(),
            token: agent_token.into(),
            host: host.into(),
            ca: self.ca.clone(),
        };
        let mut agent = tokio::spawn(async move { pqbench_agent::run(&options, Arc::new(boards)).await });
        let outcome = self.run_as_agent(&mut agent, host, &mut request).await;
        agent.abort();
        outcome
    }

    async fn run_as_agent(
        &self,
        agent: &mut AgentTask,
        host: &str,
        request: &mut NewRun,
    ) -> anyhow::Result<i64> {
        let board = format!("{host}/{}", request.board);
        let deadline = Instant::now() + BOARD_LISTED_WITHIN;
        loop {
            if agent.is_finished() {
                let why = why_ended(agent).await;
                bail!("the agent connection to {} ended before the board was listed: {why}", self.base);
            }
            let listed: Vec<Board> = self.get("/api/boards").await?;
            if listed.iter().any(|b| b.id == board && b.connected && b.available) {
                break;
            }
            if Instant::now() > deadline {
                bail!("{} did not list {board} as ready within {BOARD_LISTED_WITHIN:?}", self.base);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        request.board = board.clone();
        let url = format!("{}/api/runs", self.base);
        let response = self
            .http
            .post(&url)
            .bearer_auth(&self.token)
            .json(&request)
            .send()
            .await
            .with_context(|| format!("POST {url}"))?;
        let status = response.status();
        if !status.is_success() {
            bail!("POST {url}: {status}: {}", response.text().await.unwrap_or_default());
        }
        let created: RunCreated = response.json().await.context("the server's answer to the run")?;
        let id = created.id;
        eprintln!("run {id} on {board}, stored on {}", self.base);
        loop {
            let run: Run = self.get(&format!("/api/runs/{id}")).await?;
            match run.status {
                RunStatus::Complete => {
                    eprintln!("run {id} complete");
                    return Ok(id);
                }
                status if status.is_finished() => {
                    bail!(
                        "run {id} {}: {}",
                        status.as_str(),
                        run.error.unwrap_or_else(|| "no reason given".into())
                    )
                }
                _ => {}
            }
            if agent.is_finished() {
                let why = why_ended(agent).await;
                bail!("the agent connection to {} ended during run {id}: {why}", self.base);
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Run `id` as the central server judges it by `models`.
    pub async fn regressions(&self, id: i64, models: &[Model]) -> anyhow::Result<RunRegressions> {
        let names: Vec<String> = models.iter().map(Model::name).collect();
        let judged: Vec<RunRegressions> =
            self.get(&format!("/api/regressions?run={id}&models={}", names.join(","))).await?;
        judged.into_iter().next().with_context(|| format!("the server judged no run {id}"))
    }
}

//! A run's life: started by its collector, described by its board, ended
//! and vouched for; or stored whole, as an upload arrives.

use pqbench_api::UploadNote;
use pqbench_types::{BenchResult, Build, Clock, Measurement, Run, RunStatus};
use sqlx::Row;

use super::{RUN_COLUMNS, Statements, insert_result, insert_run, run_from_row, source_of};
use crate::{NewRun, StoreError, StoreResult, corrupt, text, to_json};

impl Statements {
    pub async fn create_run(&self, run: &NewRun, now: &str, lease: Option<(&str, &str)>) -> StoreResult<i64> {
        insert_run(&self.pool, run, now, None, None, lease).await
    }

    /// Extends to `until` the lease of every unfinished run `owner` makes.
    pub async fn renew_leases(&self, owner: &str, until: &str) -> StoreResult<u64> {
        let done = sqlx::query("UPDATE runs SET lease_until = $1 WHERE owner = $2 AND status IN ($3, $4)")
            .bind(until)
            .bind(owner)
            .bind(RunStatus::Queued.as_str())
            .bind(RunStatus::Running.as_str())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }

    pub async fn describe_run(
        &self,
        run_id: i64,
        build: &Build,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: &str,
    ) -> StoreResult<()> {
        // The label depends on the run's source, read back by the write
        // itself: a transaction that writes first holds SQLite's write
        // lock from its first statement (see `finish_run_expecting`).
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "UPDATE runs SET build = $1, clock_hz = $2, ticks_per_second = $3, tick_unit = $4 WHERE id = $5
             RETURNING source",
        )
        .bind(to_json(build)?)
        .bind(clock_hz.map(|hz| hz as i64))
        .bind(ticks_per_second as i64)
        .bind(tick_unit)
        .bind(run_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(row) = row {
            let source = source_of(&row, "source")?;
            sqlx::query("UPDATE runs SET build_label = $1 WHERE id = $2")
                .bind(text(&build.label(source)))
                .bind(run_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Labels the runs stored before builds were labelled (migration
    /// 0007): each build's label is made in Rust, from its JSON and the
    /// run's source. 500 runs a transaction, each committed, so a store
    /// of many runs is never held in one long write; a run whose label a
    /// writer set meanwhile (from a newer build) is left as it is.
    /// Returns how many runs were labelled.
    pub async fn label_builds(&self) -> StoreResult<u64> {
        let mut labelled = 0;
        let mut after = 0i64;
        loop {
            let rows = sqlx::query(
                "SELECT id, source, build FROM runs WHERE build_label IS NULL AND id > $1 ORDER BY id LIMIT 500",
            )
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
            let Some(last) = rows.last() else { return Ok(labelled) };
            after = last.try_get("id")?;
            let mut tx = self.pool.begin().await?;
            for row in &rows {
                let id: i64 = row.try_get("id")?;
                let build: String = row.try_get("build")?;
                let build: Build =
                    serde_json::from_str(&build).map_err(|e| corrupt(format!("run {id}'s build: {e}")))?;
                let done =
                    sqlx::query("UPDATE runs SET build_label = $1 WHERE id = $2 AND build_label IS NULL")
                        .bind(text(&build.label(source_of(row, "source")?)))
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                labelled += done.rows_affected();
            }
            tx.commit().await?;
        }
    }

    pub async fn insert_finished_run(
        &self,
        run: &NewRun,
        clock: &Clock,
        measurements: &[Measurement],
        notes: &[UploadNote],
        digest: Option<&str>,
        now: &str,
    ) -> StoreResult<i64> {
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO runs (status, source, board, clock_hz, ticks_per_second, tick_unit, build,
                build_label, settings, started_at, finished_at, host, upload_digest)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
        )
        .bind(run.status.as_str())
        .bind(run.source.as_str())
        .bind(text(&run.board))
        .bind(run.clock_hz.map(|hz| hz as i64))
        .bind(clock.ticks_per_second as i64)
        .bind(clock.unit.to_string())
        .bind(to_json(&run.build)?)
        .bind(text(&run.build.label(run.source)))
        .bind(run.settings.as_ref().map(|s| s.to_string()))
        .bind(now)
        .bind(now)
        .bind(run.host.as_deref())
        .bind(digest)
        .fetch_one(&mut *tx)
        .await;
        let id: i64 = match inserted {
            Ok(row) => row.try_get("id")?,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() && digest.is_some() => {
                drop(tx);
                let row = sqlx::query("SELECT id FROM runs WHERE upload_digest = $1")
                    .bind(digest)
                    .fetch_one(&self.pool)
                    .await?;
                return Err(StoreError::AlreadyUploaded { run: row.try_get("id")? });
            }
            Err(e) => return Err(e.into()),
        };
        for (seq, m) in (1..).zip(measurements) {
            let mut result = BenchResult::from_measurement(m, clock);
            let given = notes.iter().find(|n| (n.algorithm, n.operation) == (m.algorithm, m.operation));
            if let Some(given) = given {
                result.note = Some(crate::upload::with_note(result.note.take(), &given.note));
            }
            insert_result(&mut *tx, id, seq, &result, Some(m)).await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    pub async fn count_rejected(&self, run_id: i64) -> StoreResult<()> {
        sqlx::query("UPDATE runs SET rejected_records = rejected_records + 1 WHERE id = $1")
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Appends a line to the run's notes.
    pub async fn note_run(&self, run_id: i64, note: &str) -> StoreResult<()> {
        // One statement, so two notes never lose each other.
        sqlx::query(
            "UPDATE runs SET notes = CASE WHEN notes IS NULL THEN $1 ELSE notes || '\n' || $1 END \
             WHERE id = $2",
        )
        .bind(text(note))
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn finish_run_expecting(
        &self,
        run_id: i64,
        status: RunStatus,
        error: Option<&str>,
        expected: Option<u32>,
        now: &str,
    ) -> StoreResult<RunStatus> {
        let mut tx = self.pool.begin().await?;
        // Written first, so that the transaction holds the write lock from
        // its first statement: in SQLite, a read first would have to
        // upgrade its snapshot to write, which fails outright (not after a
        // wait) when another connection committed in between.
        sqlx::query("UPDATE runs SET status = $1, error = $2, finished_at = $3 WHERE id = $4")
            .bind(status.as_str())
            .bind(error.map(text))
            .bind(now)
            .bind(run_id)
            .execute(&mut *tx)
            .await?;
        let mut written = status;
        if status == RunStatus::Complete {
            let row = sqlx::query(
                "SELECT COUNT(*) AS stored, COALESCE(MAX(seq), 0) AS last FROM results WHERE run_id = $1",
            )
            .bind(run_id)
            .fetch_one(&mut *tx)
            .await?;
            let stored: i64 = row.try_get("stored")?;
            let last: i64 = row.try_get("last")?;
            let missing = match expected {
                Some(expected) if i64::from(expected) != stored => {
                    Some(format!("the board reported {expected} results, but {stored} are stored"))
                }
                _ if stored != last => Some(format!(
                    "results are missing from the store: {stored} stored, numbered up to {last}"
                )),
                _ => None,
            };
            if let Some(why) = missing {
                tracing::warn!(run = run_id, "a run that ended complete is stored incomplete: {why}");
                written = RunStatus::Incomplete;
                sqlx::query("UPDATE runs SET status = $1, error = $2 WHERE id = $3")
                    .bind(written.as_str())
                    .bind(why)
                    .bind(run_id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(written)
    }

    /// Marks `interrupted`, with `reason`, every run not yet finished
    /// whose lease lapsed before `now`; and at a server's start (`Some`
    /// starting owner), also those with no lease and those that owner made
    /// before: a server of that name is the one starting, anew.
    pub async fn interrupt_abandoned(
        &self,
        starting: Option<Option<&str>>,
        reason: &str,
        now: &str,
    ) -> StoreResult<u64> {
        let abandoned = match starting {
            Some(_) => "(lease_until IS NULL OR lease_until < $3 OR owner = $6)",
            None => "lease_until < $3",
        };
        let query = format!(
            "UPDATE runs SET status = $1, error = $2, finished_at = $3 WHERE status IN ($4, $5) AND {abandoned}"
        );
        let mut query = sqlx::query(&query)
            .bind(RunStatus::Interrupted.as_str())
            .bind(reason)
            .bind(now)
            .bind(RunStatus::Queued.as_str())
            .bind(RunStatus::Running.as_str());
        if let Some(owner) = starting {
            query = query.bind(owner);
        }
        Ok(query.execute(&self.pool).await?.rows_affected())
    }

    pub async fn run(&self, run_id: i64) -> StoreResult<Option<Run>> {
        let row = sqlx::query(&format!("{RUN_COLUMNS} WHERE id = $1"))
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| run_from_row(&r)).transpose()
    }

    pub async fn runs(&self, board: Option<&str>, limit: u32) -> StoreResult<Vec<Run>> {
        let rows =
            sqlx::query(&format!("{RUN_COLUMNS} WHERE ($1 IS NULL OR board = $1) ORDER BY id DESC LIMIT $2"))
                .bind(board)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(run_from_row).collect()
    }

    pub async fn complete_runs_before(&self, board: &str, before: i64, limit: u32) -> StoreResult<Vec<Run>> {
        let rows = sqlx::query(&format!(
            "{RUN_COLUMNS} WHERE status = 'complete' AND board = $1 AND id < $2 ORDER BY id DESC LIMIT $3"
        ))
        .bind(board)
        .bind(before)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_from_row).collect()
    }
}

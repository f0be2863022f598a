//! Reports: a view stored under an id to share.

use pqbench_api::Report;
use pqbench_view::View;
use sqlx::Row;

use super::Statements;
use crate::{StoreResult, corrupt, to_json};

impl Statements {
    /// `None` when the id is taken.
    pub async fn insert_report(&self, id: &str, view: &View, now: &str) -> StoreResult<Option<Report>> {
        let inserted = sqlx::query("INSERT INTO reports (id, view, created_at) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(to_json(view)?)
            .bind(now)
            .execute(&self.pool)
            .await;
        match inserted {
            Ok(_) => Ok(Some(Report { id: id.into(), view: view.clone(), created_at: now.into() })),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn report(&self, id: &str) -> StoreResult<Option<Report>> {
        let row = sqlx::query("SELECT id, view, created_at FROM reports WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            let view: String = row.try_get("view")?;
            Ok(Report {
                id: row.try_get("id")?,
                view: serde_json::from_str(&view).map_err(corrupt)?,
                created_at: row.try_get("created_at")?,
            })
        })
        .transpose()
    }
}

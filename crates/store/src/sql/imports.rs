//! Imported logs: their runs, stored together, and what identifies their
//! content so that it is imported once.

use sqlx::Row;

use super::{Statements, insert_result, insert_run};
use crate::{NewImport, StoreError, StoreResult, text, to_json};

impl Statements {
    pub async fn insert_import(&self, import: &NewImport, now: &str) -> StoreResult<Vec<i64>> {
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO imports (digest, format, file_name, version, unread, imported_at)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(&import.digest)
        .bind(import.format.as_str())
        .bind(import.file_name.as_deref().map(text))
        .bind(import.version.as_deref().map(text))
        .bind(to_json(&import.unread)?)
        .bind(now)
        .fetch_one(&mut *tx)
        .await;
        let import_id: i64 = match inserted {
            Ok(row) => row.try_get("id")?,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                drop(tx);
                return Err(StoreError::AlreadyImported { runs: self.runs_of_import(&import.digest).await? });
            }
            Err(e) => return Err(e.into()),
        };
        let mut ids = Vec::with_capacity(import.runs.len());
        for (run, results) in &import.runs {
            let id = insert_run(&mut *tx, run, now, Some(now), Some(import_id), None).await?;
            for (seq, result) in (1..).zip(results) {
                insert_result(&mut *tx, id, seq, result, None).await?;
            }
            ids.push(id);
        }
        tx.commit().await?;
        Ok(ids)
    }

    pub async fn runs_of_import(&self, digest: &str) -> StoreResult<Vec<i64>> {
        let rows = sqlx::query(
            "SELECT runs.id FROM runs JOIN imports ON imports.id = runs.import_id
             WHERE imports.digest = $1 ORDER BY runs.id",
        )
        .bind(digest)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|row| Ok(row.try_get("id")?)).collect()
    }
}

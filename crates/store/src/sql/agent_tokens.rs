//! One token per agent host: the digests `pqbench agent-token add` stored.

use sqlx::Row;

use super::Statements;
use crate::StoreResult;

impl Statements {
    /// Stores `digest` as `host`'s token; false where the host has one
    /// already (revoke it first) or the digest is another host's.
    pub async fn add_agent_token(&self, host: &str, digest: &str, now: &str) -> StoreResult<bool> {
        let inserted = sqlx::query("INSERT INTO agent_tokens (host, digest, created_at) VALUES ($1, $2, $3)")
            .bind(host)
            .bind(digest)
            .bind(now)
            .execute(&self.pool)
            .await;
        match inserted {
            Ok(_) => Ok(true),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Ends `host`'s token; whether it had one.
    pub async fn revoke_agent_token(&self, host: &str) -> StoreResult<bool> {
        let deleted =
            sqlx::query("DELETE FROM agent_tokens WHERE host = $1").bind(host).execute(&self.pool).await?;
        Ok(deleted.rows_affected() > 0)
    }

    /// The host whose token has this digest, if any.
    pub async fn agent_token_host(&self, digest: &str) -> StoreResult<Option<String>> {
        let row = sqlx::query("SELECT host FROM agent_tokens WHERE digest = $1")
            .bind(digest)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| Ok(row.try_get("host")?)).transpose()
    }

    /// Every host with a token, and when it was made, by host name.
    pub async fn agent_token_hosts(&self) -> StoreResult<Vec<(String, String)>> {
        let rows = sqlx::query("SELECT host, created_at FROM agent_tokens ORDER BY host")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|row| Ok((row.try_get("host")?, row.try_get("created_at")?))).collect()
    }
}

//! Fresh databases for tests, on the PostgreSQL server the test command
//! starts (`cargo xtask test` sets `PQBENCH_TEST_POSTGRES` to its URL; the
//! tests find it with `pqbench_test_needs::postgres`).

use sqlx::Connection;

/// A new, empty database on the server at `admin` (a URL whose user may
/// create databases: `pqbench_test_needs::postgres()`, which skips or fails
/// the test when there is none), as a URL.
pub async fn fresh_postgres_database(admin: &str, prefix: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let name = format!(
        "{prefix}_{}_{}_{}",
        std::process::id(),
        stamp.as_micros(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut connection =
        sqlx::PgConnection::connect(admin).await.unwrap_or_else(|e| panic!("connecting to {admin}: {e}"));
    sqlx::query(&format!("CREATE DATABASE \"{name}\""))
        .execute(&mut connection)
        .await
        .unwrap_or_else(|e| panic!("creating database {name}: {e}"));
    let (base, query) = admin.split_once('?').map_or((admin, None), |(b, q)| (b, Some(q)));
    let server = base.rsplit_once('/').map_or(base, |(server, _)| server);
    match query {
        Some(query) => format!("{server}/{name}?{query}"),
        None => format!("{server}/{name}"),
    }
}

//! Fresh databases for tests, on the PostgreSQL server the test command
//! starts (`cargo xtask test` sets `PQBENCH_TEST_POSTGRES` to its URL).

use sqlx::Connection;

/// The variable naming the server: a URL whose user may create databases,
/// or `skip` to leave out the PostgreSQL half of the tests.
pub const POSTGRES_URL_VAR: &str = "PQBENCH_TEST_POSTGRES";

/// The URL of a new, empty database, or None when the tests were told to
/// skip PostgreSQL. Unset is a failure, not a skip: a test command that
/// forgot the server must not pass with half its tests left out.
pub async fn fresh_postgres_database(prefix: &str) -> Option<String> {
    let admin = std::env::var(POSTGRES_URL_VAR).unwrap_or_else(|_| {
        panic!(
            "{POSTGRES_URL_VAR} is not set: set it to a PostgreSQL URL whose user may create \
             databases (`cargo xtask test` starts a server and sets it), or to `skip`"
        )
    });
    if admin == "skip" {
        eprintln!("{POSTGRES_URL_VAR}=skip: the PostgreSQL half of this test is left out");
        return None;
    }
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let name = format!(
        "{prefix}_{}_{}_{}",
        std::process::id(),
        stamp.as_micros(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut connection =
        sqlx::PgConnection::connect(&admin).await.unwrap_or_else(|e| panic!("connecting to {admin}: {e}"));
    sqlx::query(&format!("CREATE DATABASE \"{name}\""))
        .execute(&mut connection)
        .await
        .unwrap_or_else(|e| panic!("creating database {name}: {e}"));
    let (base, query) = admin.split_once('?').map_or((admin.as_str(), None), |(b, q)| (b, Some(q)));
    let server = base.rsplit_once('/').map_or(base, |(server, _)| server);
    Some(match query {
        Some(query) => format!("{server}/{name}?{query}"),
        None => format!("{server}/{name}"),
    })
}

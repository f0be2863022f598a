// The boards x builds matrix: which runs are its columns, and their
// results. Part of `sql.rs` (included there, so it is compiled once per
// database with the same `Db`, helpers and statements).

impl Statements {
    pub async fn matrix(&self, query: &ResultQuery) -> StoreResult<Matrix> {
        let available = self.available().await?;
        let kept = |board: &str, source: Source, label: &str| {
            (query.boards.is_empty() || query.boards.iter().any(|b| b == board))
                && (query.sources.is_empty() || query.sources.contains(&source))
                && (query.builds.is_empty() || query.builds.iter().any(|b| b == label))
        };
        let (columns, truncated) = if query.runs.is_empty() {
            let mut latest: Vec<i64> = available
                .iter()
                .filter(|key| kept(&key.board, key.source, &key.build_label))
                .map(|key| key.latest_run)
                .collect();
            latest.sort_unstable_by(|a, b| b.cmp(a));
            let truncated = latest.len() > MAX_MATRIX_COLUMNS;
            latest.truncate(MAX_MATRIX_COLUMNS);
            let mut columns = self.columns(&latest).await?;
            columns.sort_by(|a, b| (&a.run.board, &a.build_label).cmp(&(&b.run.board, &b.build_label)));
            (columns, truncated)
        } else {
            // In the order asked, each run once.
            let mut asked = std::collections::HashMap::new();
            for &id in &query.runs {
                let next = asked.len();
                asked.entry(id).or_insert(next);
            }
            let ids: Vec<i64> = asked.keys().copied().collect();
            let mut columns = self.columns(&ids).await?;
            columns.retain(|column| kept(&column.run.board, column.run.source, &column.build_label));
            columns.sort_by_key(|column| asked[&column.run.id]);
            let truncated = columns.len() > MAX_MATRIX_COLUMNS;
            columns.truncate(MAX_MATRIX_COLUMNS);
            (columns, truncated)
        };
        let results = if columns.is_empty() {
            Vec::new()
        } else {
            self.result_rows(&ResultQuery {
                runs: columns.iter().map(|column| column.run.id).collect(),
                algorithms: query.algorithms.clone(),
                operations: query.operations.clone(),
                limit: query.limit,
                ..ResultQuery::default()
            })
            .await?
        };
        Ok(Matrix { columns, results, available, truncated })
    }

    /// Every (board, build label) with a complete run, and its latest
    /// complete run, by board then label: grouped in `runs_by_build`'s
    /// order from the index alone (migration 0007), then each group's
    /// latest run read by its id for its source.
    async fn available(&self) -> StoreResult<Vec<MatrixKey>> {
        let rows = sqlx::query(AVAILABLE).bind(RunStatus::Complete.as_str()).fetch_all(&self.pool).await?;
        let mut keys = rows
            .iter()
            .map(|row| {
                Ok(MatrixKey {
                    board: row.try_get("board")?,
                    source: source_of(row, "source")?,
                    build_label: row.try_get("build_label")?,
                    latest_run: row.try_get("id")?,
                })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        // Sorted here, not by the database: PostgreSQL's order of text is
        // its collation's, SQLite's is the bytes'.
        keys.sort_by(|a, b| (&a.board, &a.build_label).cmp(&(&b.board, &b.build_label)));
        Ok(keys)
    }

    /// These runs as matrix columns, in no particular order; an unknown id
    /// is left out.
    async fn columns(&self, ids: &[i64]) -> StoreResult<Vec<MatrixColumn>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = QueryBuilder::<Db>::new(format!("{RUN_COLUMNS} WHERE 1 = 1"));
        any_of(&mut query, "id", ids.iter().copied());
        let rows = query.build().fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| Ok(MatrixColumn { run: run_from_row(row)?, build_label: row.try_get("build_label")? }))
            .collect()
    }
}

-- Portable SQL: no SQLite-only types or functions, so the same schema can
-- be written for PostgreSQL. Times are RFC 3339 text in UTC.

CREATE TABLE runs (
    id               INTEGER PRIMARY KEY,
    status           TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    board            TEXT    NOT NULL,
    clock_hz         BIGINT,
    ticks_per_second BIGINT,
    tick_unit        TEXT,
    -- The producer's build identity as JSON (pqbench_types::Build).
    build            TEXT    NOT NULL,
    settings         TEXT,
    started_at       TEXT    NOT NULL,
    finished_at      TEXT,
    error            TEXT,
    -- Records refused on the way in (bad checksum, cut off, contradictory).
    rejected_records INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX runs_by_board ON runs (board, id);

CREATE TABLE results (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    algorithm     TEXT    NOT NULL,
    operation     TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    iterations    BIGINT,
    total_seconds DOUBLE PRECISION,
    avg_ms        DOUBLE PRECISION,
    ops_per_sec   DOUBLE PRECISION,
    min_ms        DOUBLE PRECISION,
    median_ms     DOUBLE PRECISION,
    max_ms        DOUBLE PRECISION,
    cycles_per_op DOUBLE PRECISION,
    ticks_per_op  DOUBLE PRECISION,
    tick_unit     TEXT,
    bytes_per_sec DOUBLE PRECISION,
    heap_bytes    BIGINT,
    heap_allocs   BIGINT,
    stack_bytes   BIGINT,
    note          TEXT,
    -- What the board counted, kept so every derived figure can be checked.
    total_ticks   BIGINT,
    min_ticks     BIGINT,
    median_ticks  BIGINT,
    max_ticks     BIGINT,
    UNIQUE (run_id, seq)
);

CREATE INDEX results_by_name ON results (algorithm, operation);

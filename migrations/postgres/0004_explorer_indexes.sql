-- As ../sqlite/0004_explorer_indexes.sql, which says why.

DROP INDEX results_by_name;
CREATE INDEX results_by_name_newest ON results (algorithm, operation, run_id DESC, seq);

CREATE INDEX runs_by_source ON runs (source, id);

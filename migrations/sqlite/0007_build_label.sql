-- The label of each run's build (`Build::label`, e.g. `firmware opt-s,
-- libcrux-ml-kem 0.0.11`), as the dashboard heads a column with it: the
-- matrix's columns are the latest complete run of each (board, build
-- label), and results are filtered by it. It is computed in Rust from the
-- build's JSON and the run's source, so the store writes it with every
-- build; the runs stored before this migration are labelled when the
-- store opens (`Statements::label_builds`). Portable SQL.

ALTER TABLE runs ADD COLUMN build_label TEXT;

-- "The latest complete run of each (board, build label)" read from the
-- index alone, in the order it groups them, without a sort.
CREATE INDEX runs_by_build ON runs (status, board, build_label, id);

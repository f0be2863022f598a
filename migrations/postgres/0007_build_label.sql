-- As ../sqlite/0007_build_label.sql, which says why.

ALTER TABLE runs ADD COLUMN build_label TEXT;

CREATE INDEX runs_by_build ON runs (status, board, build_label, id);

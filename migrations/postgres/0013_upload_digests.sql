-- As ../sqlite/0013_upload_digests.sql.

ALTER TABLE runs ADD COLUMN upload_digest TEXT;
CREATE UNIQUE INDEX runs_by_upload_digest ON runs (upload_digest);

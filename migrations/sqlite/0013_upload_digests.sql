-- An upload's identity: the SHA-256 of its content (`pqbench_store::upload::
-- digest`), so that the same upload sent twice (a client's retry, a
-- replayed request) is stored once. Null for runs not uploaded and for
-- uploads stored before; a unique index lets any number of nulls in, on
-- SQLite and PostgreSQL alike. Portable SQL, as 0001.

ALTER TABLE runs ADD COLUMN upload_digest TEXT;
CREATE UNIQUE INDEX runs_by_upload_digest ON runs (upload_digest);

-- Imported logs (wolfCrypt, pqm4). Portable SQL, as 0001.

-- A log's code size per scheme and implementation (pqm4); null elsewhere.
ALTER TABLE results ADD COLUMN code_bytes BIGINT;

-- One row per imported file. `digest` identifies its content (line endings
-- and trailing blanks aside), so the same log is stored once however often
-- it is imported. `unread` keeps the lines the importer did not
-- understand, as JSON, so what was left out can be read again later.
CREATE TABLE imports (
    id          INTEGER PRIMARY KEY,
    digest      TEXT    NOT NULL UNIQUE,
    format      TEXT    NOT NULL,
    file_name   TEXT,
    version     TEXT,
    unread      TEXT    NOT NULL,
    imported_at TEXT    NOT NULL
);

-- The import a run came from (a pqm4 log gives one run per implementation).
ALTER TABLE runs ADD COLUMN import_id INTEGER REFERENCES imports (id);

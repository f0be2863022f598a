-- Shared dashboard views. Portable SQL, as 0001: times are RFC 3339 text
-- in UTC, and the view is the dashboard's JSON as text. A report never
-- changes once written.

CREATE TABLE reports (
    id         TEXT PRIMARY KEY,
    view       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- One token per agent host (`pqbench agent-token add HOST`): the SHA-256
-- of the token, never the token itself, bound to the one host name an
-- agent holding it may register. Revoking deletes the row; the server
-- drops that host's connected agent when its token is gone. The shared
-- `--agent-token` is not stored. Portable SQL.

CREATE TABLE agent_tokens (
    host       TEXT PRIMARY KEY,
    digest     TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);

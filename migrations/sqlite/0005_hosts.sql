-- The host a run was made on, when a board agent made it (`pqbench
-- agent`): the name the agent gave when it connected. Null for runs of the
-- server's own boards, uploads and imports. Portable SQL.

ALTER TABLE runs ADD COLUMN host TEXT;

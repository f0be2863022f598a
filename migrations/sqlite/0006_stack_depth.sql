-- How far below the suite's run loop a board's stack had reached by the end
-- of an operation (its own stack, the benchmark's frame holding its inputs
-- and outputs, and the self-test before it): what the board's "does not
-- fit" check compares with its free stack. Null where a target does not
-- measure it (browsers, hosts, imports, older firmware). Portable SQL.

ALTER TABLE results ADD COLUMN stack_depth_bytes BIGINT;

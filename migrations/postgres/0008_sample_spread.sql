-- What a statistical test between two runs needs of each result, as no
-- per-call sample is kept: how many samples were timed (one per call, or
-- per batch of calls) and their standard deviation, in the board's ticks
-- as counted and in milliseconds per call. With the mean (`avg_ms`), a
-- Welch's t-test of two runs. Null for results stored before, imported
-- logs, and fewer than two samples. Portable SQL.

ALTER TABLE results ADD COLUMN samples BIGINT;
ALTER TABLE results ADD COLUMN stdev_ticks BIGINT;
ALTER TABLE results ADD COLUMN stdev_ms DOUBLE PRECISION;

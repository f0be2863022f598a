-- Two things a result says beside its min, median and max (issue 37's
-- item 8): the samples' 10th, 90th and 99th percentiles by nearest rank,
-- in the board's ticks as counted and in milliseconds per call (null where
-- too few samples were timed for one to be neither min nor max, for
-- imports, and for results stored before); and the form of the key the
-- timed calls were given (`seed`, `encoded`, `decoded`, `opaque`; null
-- where the operation takes no key or its producer did not say). Portable
-- SQL, as 0001.

ALTER TABLE results ADD COLUMN p10_ticks BIGINT;
ALTER TABLE results ADD COLUMN p90_ticks BIGINT;
ALTER TABLE results ADD COLUMN p99_ticks BIGINT;
ALTER TABLE results ADD COLUMN p10_ms DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN p90_ms DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN p99_ms DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN key_format TEXT;

-- Which process is making a run, and until when it has said so, so that a
-- server starting beside others on one database interrupts only the runs
-- no live process is making: the one making a run renews its lease while
-- it lives. A run whose lease has lapsed, or that has none (runs stored
-- before, or made by a process that takes no lease), can no longer finish.
-- Portable SQL, as 0001; `lease_until` is RFC 3339 text in UTC like every
-- time here, so it compares as text.

ALTER TABLE runs ADD COLUMN owner TEXT;
ALTER TABLE runs ADD COLUMN lease_until TEXT;

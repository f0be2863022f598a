-- What happened on the way to a run's results that the results do not say
-- (a probe's transient errors it recovered from, ...): lines of text for a
-- person, appended as the run goes. Null for a run with nothing to say and
-- for runs stored before. Portable SQL.

ALTER TABLE runs ADD COLUMN notes TEXT;

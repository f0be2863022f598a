-- As ../sqlite/0012_run_leases.sql.

ALTER TABLE runs ADD COLUMN owner TEXT;
ALTER TABLE runs ADD COLUMN lease_until TEXT;

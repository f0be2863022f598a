-- The emulator's Cortex-M4 timing model's estimate of each result of an
-- emulated run (unit m4-model-cycles, never measured cycles): the mean per
-- call as a number to sort and compare by, and the whole estimate (spread,
-- hashing share, functions, the model's parameters) as JSON. Null for
-- every other result and for results stored before. Portable SQL.

ALTER TABLE results ADD COLUMN model_cycles_per_op DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN model_estimate TEXT;

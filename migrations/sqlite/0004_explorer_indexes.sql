-- Indexes for the results explorer (`Store::result_rows`) on a large
-- store. Portable SQL, as 0001.
--
-- Its rows come newest run first, then in the order they were measured
-- (`ORDER BY results.run_id DESC, results.seq`), most often narrowed to one
-- algorithm and operation (a history, the explorer's filters). With the
-- order in the index after the names, such a query walks the index in the
-- order it returns rows and stops at its LIMIT, instead of reading every
-- matching row into a temporary sort first.
--
-- It starts with the columns of `results_by_name`, so it serves every query
-- that one did; keeping both would only cost each insert a second update.
DROP INDEX results_by_name;
CREATE INDEX results_by_name_newest ON results (algorithm, operation, run_id DESC, seq);

-- Runs of one source (browser, native, import, ...), newest first: the
-- runs a source filter keeps, found without reading every run.
CREATE INDEX runs_by_source ON runs (source, id);

-- Migration 0003: schema version 2 to 3. The back-to-back loop metric (issue 19,
-- docs/tuning.md "The loop metric"): collsel-bench times every candidate under two metrics,
-- the synchronised maximum (the existing columns) and a back-to-back loop like the standard
-- micro-benchmark suites'. measurement gets the loop metric's statistics and samples, run the
-- metric policy its rules were decided under, validation the loop metric's medians. Rows
-- measured before this migration keep their values and have NULL loop columns; their runs were
-- decided under the synchronised metric alone, so they get metric 'sync'.
ALTER TABLE run ADD COLUMN metric TEXT NOT NULL DEFAULT 'sync'
    CHECK (metric IN ('sync', 'loop', 'both'));
ALTER TABLE measurement ADD COLUMN loop_reps INTEGER CHECK (loop_reps IS NULL OR loop_reps >= 1);
ALTER TABLE measurement ADD COLUMN loop_min_us REAL;
ALTER TABLE measurement ADD COLUMN loop_q1_us REAL;
ALTER TABLE measurement ADD COLUMN loop_median_us REAL;
ALTER TABLE measurement ADD COLUMN loop_q3_us REAL;
ALTER TABLE measurement ADD COLUMN loop_max_us REAL;
ALTER TABLE measurement ADD COLUMN loop_outliers INTEGER
    CHECK (loop_outliers IS NULL OR (loop_outliers >= 0 AND loop_outliers < loop_reps));
ALTER TABLE measurement ADD COLUMN loop_rankmax_median_us REAL;
ALTER TABLE measurement ADD COLUMN loop_samples_us BLOB;
ALTER TABLE validation ADD COLUMN native_loop_us REAL;
ALTER TABLE validation ADD COLUMN selected_loop_us REAL;
ALTER TABLE validation ADD COLUMN oracle_loop_us REAL;

-- Migration 0007: schema version 6 to 7. The confirmation pass of a tuning run
-- (docs/tuning.md "Confirmation"): the points where a candidate beat native are measured again,
-- later in the run, with native and the best candidates only; a candidate replaces native only
-- if it wins both times. Those measurements go to a table of their own with the columns of
-- measurement, so everything that reads measurement (rules, reports) stays as it is.

CREATE TABLE confirmation (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    coll       TEXT NOT NULL,                  -- 'allreduce'
    pattern    TEXT NOT NULL DEFAULT '',     -- neighbourhood pattern tuned on (table pattern);
                                               -- '' for the other collectives
    algorithm  TEXT NOT NULL                   -- key '<coll>/<alg>', never renamed
               CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params     TEXT NOT NULL DEFAULT '',
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    bytes      INTEGER NOT NULL CHECK (bytes >= 0),   -- the selection key of the call
    reps       INTEGER NOT NULL CHECK (reps >= 1),    -- repetitions timed
    min_us     REAL NOT NULL,
    q1_us      REAL NOT NULL,
    median_us  REAL NOT NULL,
    q3_us      REAL NOT NULL,
    max_us     REAL NOT NULL,
    outliers   INTEGER NOT NULL DEFAULT 0 CHECK (outliers >= 0 AND outliers < reps),
    verified   INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),
    samples_us BLOB,                           -- every repetition, float64 little-endian, in
                                               -- the order timed; NULL when not kept
    -- The back-to-back loop metric (docs/tuning.md): one sample per repetition, the mean over
    -- ranks of each rank's mean call time in a short loop. Statistics after Tukey outlier
    -- removal, like the synchronised metric's above. All NULL for a measurement made before
    -- the loop metric existed.
    loop_reps       INTEGER CHECK (loop_reps IS NULL OR loop_reps >= 1),
    loop_min_us     REAL,
    loop_q1_us      REAL,
    loop_median_us  REAL,
    loop_q3_us      REAL,
    loop_max_us     REAL,
    loop_outliers   INTEGER
                    CHECK (loop_outliers IS NULL OR (loop_outliers >= 0 AND loop_outliers < loop_reps)),
    loop_rankmax_median_us REAL,               -- median over repetitions of the slowest rank's
                                               -- mean (no outlier removal)
    loop_samples_us BLOB,                      -- every repetition's sample, as samples_us
    UNIQUE (run_id, coll, pattern, algorithm, params, comm_size, ppn, bytes)
);

-- Migration 0006: schema version 5 to 6. Neighbourhood collectives (issue 12,
-- docs/neighbor.md) are tuned per communication pattern: measurement, failure, rule and
-- validation get a column `pattern` ('' for the other collectives, which every existing row
-- is) that is part of each table's key, and table pattern holds each tuned pattern's
-- signature. SQLite cannot change a table's UNIQUE constraint, so the four tables are rebuilt:
-- renamed, created anew, their rows copied, the old ones dropped.

ALTER TABLE measurement RENAME TO measurement_v5;
CREATE TABLE measurement (
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
INSERT INTO measurement (run_id, coll, algorithm, params, comm_size, ppn, bytes, reps, min_us, q1_us, median_us, q3_us, max_us, outliers, verified, samples_us, loop_reps, loop_min_us, loop_q1_us, loop_median_us, loop_q3_us, loop_max_us, loop_outliers, loop_rankmax_median_us, loop_samples_us)
    SELECT run_id, coll, algorithm, params, comm_size, ppn, bytes, reps, min_us, q1_us, median_us, q3_us, max_us, outliers, verified, samples_us, loop_reps, loop_min_us, loop_q1_us, loop_median_us, loop_q3_us, loop_max_us, loop_outliers, loop_rankmax_median_us, loop_samples_us FROM measurement_v5;
DROP TABLE measurement_v5;

ALTER TABLE failure RENAME TO failure_v5;
CREATE TABLE failure (
    run_id    INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    coll      TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',     -- neighbourhood pattern tuned on (table pattern);
                                               -- '' for the other collectives
    algorithm TEXT NOT NULL CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params    TEXT NOT NULL DEFAULT '',
    comm_size INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn       INTEGER NOT NULL CHECK (ppn >= 1),
    bytes     INTEGER NOT NULL CHECK (bytes >= 0),
    message   TEXT NOT NULL,                   -- what differed, e.g. the first wrong element
    UNIQUE (run_id, coll, pattern, algorithm, params, comm_size, ppn, bytes)
);
INSERT INTO failure (run_id, coll, algorithm, params, comm_size, ppn, bytes, message)
    SELECT run_id, coll, algorithm, params, comm_size, ppn, bytes, message FROM failure_v5;
DROP TABLE failure_v5;

ALTER TABLE rule RENAME TO rule_v5;
CREATE TABLE rule (
    machine_id INTEGER NOT NULL REFERENCES machine (id) ON DELETE CASCADE,
    coll       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',     -- neighbourhood pattern tuned on (table pattern);
                                               -- '' for the other collectives
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    lo_bytes   INTEGER NOT NULL CHECK (lo_bytes >= 0),      -- inclusive
    hi_bytes   INTEGER CHECK (hi_bytes IS NULL OR hi_bytes > lo_bytes),   -- exclusive
    rank       INTEGER NOT NULL CHECK (rank >= 1),
    algorithm  TEXT NOT NULL CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params     TEXT NOT NULL DEFAULT '',
    median_us  REAL,                           -- this candidate, at the interval's first size
    native_us  REAL,                           -- the native collective, same size
    p_value    REAL,                           -- rank-sum test against native; NULL for native
    run_id     INTEGER REFERENCES run (id) ON DELETE SET NULL,   -- the run that decided it
    UNIQUE (machine_id, coll, pattern, comm_size, ppn, lo_bytes, rank)
);
INSERT INTO rule (machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank, algorithm, params, median_us, native_us, p_value, run_id)
    SELECT machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank, algorithm, params, median_us, native_us, p_value, run_id FROM rule_v5;
DROP TABLE rule_v5;

ALTER TABLE validation RENAME TO validation_v5;
CREATE TABLE validation (
    run_id             INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    coll               TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',     -- neighbourhood pattern tuned on (table pattern);
                                               -- '' for the other collectives
    comm_size          INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn                INTEGER NOT NULL CHECK (ppn >= 1),
    bytes              INTEGER NOT NULL CHECK (bytes >= 0),
    native_us          REAL NOT NULL,
    selected_us        REAL NOT NULL,
    oracle_us          REAL NOT NULL,
    selected_algorithm TEXT,                   -- what the selector ran
    selected_params    TEXT,
    oracle_algorithm   TEXT,                   -- the fastest candidate
    oracle_params      TEXT,
    native_loop_us     REAL,                   -- the same three under the loop metric; NULL
    selected_loop_us   REAL,                   -- for a validation made before it existed
    oracle_loop_us     REAL,
    native2_us         REAL,                   -- native timed a second time (native B), as a
    native2_loop_us    REAL,                   -- separate candidate in the same interleaving,
                                               -- under each metric: native_us / native2_us is
                                               -- native's run-to-run spread; NULL for a
                                               -- validation made before it existed
    UNIQUE (run_id, coll, pattern, comm_size, ppn, bytes)
);
INSERT INTO validation (run_id, coll, comm_size, ppn, bytes, native_us, selected_us, oracle_us, selected_algorithm, selected_params, oracle_algorithm, oracle_params, native_loop_us, selected_loop_us, oracle_loop_us, native2_us, native2_loop_us)
    SELECT run_id, coll, comm_size, ppn, bytes, native_us, selected_us, oracle_us, selected_algorithm, selected_params, oracle_algorithm, oracle_params, native_loop_us, selected_loop_us, oracle_loop_us, native2_us, native2_loop_us FROM validation_v5;
DROP TABLE validation_v5;

CREATE TABLE pattern (
    machine_id INTEGER NOT NULL REFERENCES machine (id) ON DELETE CASCADE,
    name       TEXT NOT NULL CHECK (name <> ''),   -- 'cart2d', 'moore3d', 'random30', 'hotspot'
    p          INTEGER NOT NULL CHECK (p >= 1),    -- processes
    nedges     INTEGER NOT NULL CHECK (nedges >= 0),
    max_out    INTEGER NOT NULL CHECK (max_out >= 0),   -- largest out-degree
    max_in     INTEGER NOT NULL CHECK (max_in >= 0),    -- largest in-degree
    mean_out   REAL NOT NULL CHECK (mean_out >= 0),     -- nedges / p
    imbalance  REAL NOT NULL CHECK (imbalance >= 0),    -- max_in / mean_out (1 without edges)
    UNIQUE (machine_id, name, p)
);

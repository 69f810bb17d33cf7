-- Migration 0012: schema version 11 to 12. Confirmation in rounds (docs/tuning.md
-- "Confirmation"): the points where a candidate beat native are measured again in several
-- rounds, each in a process launch of its own when scripts/tune runs them, and a candidate
-- replaces native only if it wins in every round that measured the point. A round number joins
-- the table's key, so the table is rebuilt; the rows of earlier runs become round 1, the one
-- round those runs had.

CREATE TABLE confirmation_rounds (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    round      INTEGER NOT NULL DEFAULT 1 CHECK (round >= 1),   -- the confirmation round, 1..
    coll       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',
    algorithm  TEXT NOT NULL
               CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params     TEXT NOT NULL DEFAULT '',
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    bytes      INTEGER NOT NULL CHECK (bytes >= 0),
    reps       INTEGER NOT NULL CHECK (reps >= 1),
    min_us     REAL NOT NULL,
    q1_us      REAL NOT NULL,
    median_us  REAL NOT NULL,
    q3_us      REAL NOT NULL,
    max_us     REAL NOT NULL,
    outliers   INTEGER NOT NULL DEFAULT 0 CHECK (outliers >= 0 AND outliers < reps),
    verified   INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),
    samples_us BLOB,
    loop_reps       INTEGER CHECK (loop_reps IS NULL OR loop_reps >= 1),
    loop_min_us     REAL,
    loop_q1_us      REAL,
    loop_median_us  REAL,
    loop_q3_us      REAL,
    loop_max_us     REAL,
    loop_outliers   INTEGER
                    CHECK (loop_outliers IS NULL OR (loop_outliers >= 0 AND loop_outliers < loop_reps)),
    loop_rankmax_median_us REAL,
    loop_samples_us BLOB,
    UNIQUE (run_id, round, coll, pattern, algorithm, params, comm_size, ppn, bytes)
);

INSERT INTO confirmation_rounds
    (run_id, round, coll, pattern, algorithm, params, comm_size, ppn, bytes, reps, min_us, q1_us,
     median_us, q3_us, max_us, outliers, verified, samples_us, loop_reps, loop_min_us,
     loop_q1_us, loop_median_us, loop_q3_us, loop_max_us, loop_outliers, loop_rankmax_median_us,
     loop_samples_us)
SELECT run_id, 1, coll, pattern, algorithm, params, comm_size, ppn, bytes, reps, min_us, q1_us,
       median_us, q3_us, max_us, outliers, verified, samples_us, loop_reps, loop_min_us,
       loop_q1_us, loop_median_us, loop_q3_us, loop_max_us, loop_outliers,
       loop_rankmax_median_us, loop_samples_us
FROM confirmation;

DROP TABLE confirmation;
ALTER TABLE confirmation_rounds RENAME TO confirmation;

-- Migration 0011: schema version 10 to 11. Tuning for overlap (issue 14, docs/nonblocking.md):
-- collsel-bench measures each collective's candidates that can run as nonblocking operations,
-- and the MPI library's own MPI_I<coll> (Open MPI's libnbc), blocking, started then waited
-- (no overlap) and overlapped with a calibrated compute loop (table overlap), and derives
-- nonblocking rules from the time an overlapping application sees (table nb_rule, the same
-- columns and meaning as rule, read by the selector for collsel_i<coll> and <coll>_init).
-- Only new tables: the existing ones are unchanged.

CREATE TABLE overlap (
    run_id       INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    coll         TEXT NOT NULL,
    pattern      TEXT NOT NULL DEFAULT '',
    algorithm    TEXT NOT NULL CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params       TEXT NOT NULL DEFAULT '',
    comm_size    INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn          INTEGER NOT NULL CHECK (ppn >= 1),
    bytes        INTEGER NOT NULL CHECK (bytes >= 0),
    reps         INTEGER NOT NULL CHECK (reps >= 1),
    compute_us   REAL NOT NULL CHECK (compute_us >= 0),
    blocking_us  REAL NOT NULL,
    nooverlap_us REAL NOT NULL,
    overlap_us   REAL NOT NULL,
    overhead_us  REAL NOT NULL,
    overhead_q1_us REAL,
    overhead_q3_us REAL,
    freed        REAL NOT NULL CHECK (freed >= 0 AND freed <= 1),
    samples_us   BLOB,
    UNIQUE (run_id, coll, pattern, algorithm, params, comm_size, ppn, bytes)
);

CREATE TABLE nb_rule (
    machine_id INTEGER NOT NULL REFERENCES machine (id) ON DELETE CASCADE,
    coll       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    lo_bytes   INTEGER NOT NULL CHECK (lo_bytes >= 0),
    hi_bytes   INTEGER CHECK (hi_bytes IS NULL OR hi_bytes > lo_bytes),
    rank       INTEGER NOT NULL CHECK (rank >= 1),
    algorithm  TEXT NOT NULL CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params     TEXT NOT NULL DEFAULT '',
    median_us  REAL,
    native_us  REAL,
    p_value    REAL,
    run_id     INTEGER REFERENCES run (id) ON DELETE SET NULL,
    setup_us   REAL,
    UNIQUE (machine_id, coll, pattern, comm_size, ppn, lo_bytes, rank)
);

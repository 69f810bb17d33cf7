-- Migration 0008: schema version 7 to 8. Setup cost is part of the choice (docs/selector.md
-- "Setup cost"): collsel-bench measures the one-time per-communicator setup of every variant
-- that has one (sub-communicators, shared-memory windows) and stores it here; each rule row
-- carries its candidate's cost, so the selector can run such a candidate only on a
-- communicator that has made enough calls for its gain to repay it.

CREATE TABLE setup_cost (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    coll       TEXT NOT NULL,
    algorithm  TEXT NOT NULL CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params     TEXT NOT NULL DEFAULT '',
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    setup_us   REAL NOT NULL CHECK (setup_us >= 0),   -- median over a few fresh communicators,
                                                      -- each the slowest rank's time
    UNIQUE (run_id, algorithm, params, comm_size, ppn)
);

ALTER TABLE rule ADD COLUMN setup_us REAL;  -- the candidate's setup cost (setup_cost); NULL: none

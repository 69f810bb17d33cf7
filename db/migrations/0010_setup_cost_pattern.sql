-- Migration 0010: schema version 9 to 10. The one-time setup of the neighbourhood algorithms
-- (coloured, balanced: gathering the communication graph, colouring it, the LogGP parameters)
-- depends on the communication pattern, so collsel-bench measures it per pattern
-- (docs/neighbor.md): setup_cost records the pattern it was measured on ('' for the other
-- collectives), as part of its key, and a pattern's rules take their candidates' costs from it.
-- Existing rows were measured without a pattern.

ALTER TABLE setup_cost RENAME TO setup_cost_9;

CREATE TABLE setup_cost (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    coll       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',
    algorithm  TEXT NOT NULL CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params     TEXT NOT NULL DEFAULT '',
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    setup_us   REAL NOT NULL CHECK (setup_us >= 0),
    UNIQUE (run_id, pattern, algorithm, params, comm_size, ppn)
);

INSERT INTO setup_cost (run_id, coll, pattern, algorithm, params, comm_size, ppn, setup_us)
    SELECT run_id, coll, '', algorithm, params, comm_size, ppn, setup_us FROM setup_cost_9;

DROP TABLE setup_cost_9;

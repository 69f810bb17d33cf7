-- Migration 0005: schema version 4 to 5. The LogGP parameters of a machine (issue 12,
-- docs/neighbor.md): the neighbourhood collectives' tree balancing (Hoefler and Schneider,
-- section II-B1) weighs a message's latency L against its per-message overhead o, gap g and time
-- per byte G. collsel-bench measures them once per tuning run with ping-pong between two ranks
-- of one node and keeps the latest measurement per (machine, processes per node).
CREATE TABLE loggp (
    machine_id  INTEGER NOT NULL REFERENCES machine (id) ON DELETE CASCADE,
    ppn         INTEGER NOT NULL CHECK (ppn >= 1),
    run_id      INTEGER REFERENCES run (id) ON DELETE SET NULL,
    l_us        REAL NOT NULL CHECK (l_us >= 0),
    o_us        REAL NOT NULL CHECK (o_us > 0),
    g_us        REAL NOT NULL CHECK (g_us >= 0),
    g_per_byte_us REAL NOT NULL CHECK (g_per_byte_us >= 0),
    measured_at TEXT NOT NULL,
    UNIQUE (machine_id, ppn)
);

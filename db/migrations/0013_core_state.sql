-- Migration 0013: schema version 12 to 13. The core-to-core state of the machine at each
-- measured point (docs/tuning.md "The host moves the cores"): the cache-line round trip
-- between the cores of rank 0's node, measured just before the point. A virtual machine's
-- host can move its virtual CPUs between near and far physical cores for seconds to minutes,
-- and algorithms that hand data from core to core change speed with it; the rules use it so
-- that a candidate whose win depends on the near state does not become a rule from points
-- measured only in that state. Earlier runs have no rows.

CREATE TABLE core_state (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    round      INTEGER NOT NULL CHECK (round >= 0),
    coll       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    bytes      INTEGER NOT NULL CHECK (bytes >= 0),
    rtt_ns     REAL NOT NULL CHECK (rtt_ns > 0),
    UNIQUE (run_id, round, coll, pattern, comm_size, ppn, bytes)
);

-- collsel database schema. schema version: 13
--
-- This file is the truth: a new database is created from it, and docs/database.md describes it.
-- Databases made by an older collsel are brought here by db/migrations/NNNN_*.sql, applied in
-- order (migration N takes PRAGMA user_version from N-1 to N). Any change to this file is a new
-- migration plus the same change here, with the version above raised; the build checks that the
-- version equals the number of migrations, and tests/unit/test_db.c checks that the migrations
-- produce exactly these tables, columns and indexes.
--
-- The code (db/db.c) sets PRAGMA application_id = 0x43534C53 ('CSLS') and PRAGMA user_version;
-- this file holds schema statements only.
--
-- Units: times are microseconds (REAL, *_us), sizes are bytes (INTEGER). Timestamps are
-- ISO-8601 UTC text ('2026-11-21T23:47:00Z'). A variant's parameters are 'key=value,...' with
-- keys sorted, '' when the algorithm has none.

-- One machine (or cluster) a database was tuned on, identified by its fingerprint.
CREATE TABLE machine (
    id          INTEGER PRIMARY KEY,
    host        TEXT NOT NULL,                 -- host name of rank 0
    topology    TEXT NOT NULL,                 -- hwloc summary: packages, NUMA nodes, cores, PUs
    mpi_library TEXT NOT NULL,                 -- MPI_Get_library_version, first line
    UNIQUE (host, topology, mpi_library)
);

-- One tuning run (one collsel-bench job).
CREATE TABLE run (
    id             INTEGER PRIMARY KEY,
    machine_id     INTEGER NOT NULL REFERENCES machine (id),
    started_at     TEXT NOT NULL,              -- when the run was first started
    finished_at    TEXT,                       -- when it was marked done or aborted; NULL while
                                               -- running and for a run found killed
    nprocs         INTEGER NOT NULL CHECK (nprocs >= 1),
    nnodes         INTEGER NOT NULL CHECK (nnodes >= 1),
    ppn            INTEGER NOT NULL CHECK (ppn >= 1),   -- processes per node (largest node)
    args           TEXT NOT NULL DEFAULT '',   -- the options that define the plan; --resume
                                               -- continues a run only when they are equal
    status         TEXT NOT NULL DEFAULT 'running'
                   CHECK (status IN ('running', 'done', 'aborted')),
    oversubscribed INTEGER NOT NULL DEFAULT 0 CHECK (oversubscribed IN (0, 1)),
    version        TEXT,                       -- collsel version that ran it
    resumes        INTEGER NOT NULL DEFAULT 0 CHECK (resumes >= 0), -- times --resume continued it
    kind           TEXT NOT NULL DEFAULT 'tune'   -- 'tune': measured and decided rules;
                   CHECK (kind IN ('tune', 'validate')),  -- 'validate': collsel-bench --validate
    metric         TEXT NOT NULL DEFAULT 'sync'   -- the metric policy of --metric: a candidate
                   CHECK (metric IN ('sync', 'loop', 'both'))  -- replaces native when it wins
                                               -- under this metric (both: under each); 'sync'
                                               -- for runs made before the loop metric existed
);
CREATE INDEX run_by_machine ON run (machine_id, args);

-- One timed point: an algorithm variant at one size on one communicator size. Statistics are
-- over the repetitions left after Tukey outlier removal; samples_us holds every repetition.
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


-- The confirmation rounds (docs/tuning.md "Confirmation"): after every point of a run is
-- measured, the points where a candidate beat native are measured again, minutes later, with
-- only native and the best candidates (at most CS_BENCH_CONFIRM_CANDS of them), in rounds: a
-- round measures again the candidates that won in the measurement pass and in every round
-- before. A candidate replaces native only if it also beats native in every round that measured
-- the point. Same columns and meaning as measurement, and the round.
CREATE TABLE confirmation (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    round      INTEGER NOT NULL DEFAULT 1 CHECK (round >= 1),   -- the confirmation round, 1..
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
    UNIQUE (run_id, round, coll, pattern, algorithm, params, comm_size, ppn, bytes)
);

-- A variant whose result differed from the native collective: excluded from the winners.
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

-- The winners: for each size interval [lo_bytes, hi_bytes) a ranked list of candidates,
-- rank 1 first. hi_bytes NULL means unbounded.
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
    setup_us   REAL,                           -- the candidate's one-time setup per communicator
                                               -- (table setup_cost); NULL: it has none
    UNIQUE (machine_id, coll, pattern, comm_size, ppn, lo_bytes, rank)
);

-- The one-time per-communicator setup of the variants that have one (sub-communicators,
-- shared-memory windows, the neighbourhood algorithms' graph and colouring), measured by
-- collsel-bench on fresh communicators: the median over a few of them of the slowest rank's time
-- (docs/selector.md "Setup cost"), per neighbourhood pattern (docs/neighbor.md).
CREATE TABLE setup_cost (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    coll       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',       -- neighbourhood pattern measured on (table
                                               -- pattern); '' for the other collectives
    algorithm  TEXT NOT NULL CHECK (substr(algorithm, 1, length(coll) + 1) = coll || '/'),
    params     TEXT NOT NULL DEFAULT '',
    comm_size  INTEGER NOT NULL CHECK (comm_size >= 1),
    ppn        INTEGER NOT NULL CHECK (ppn >= 1),
    setup_us   REAL NOT NULL CHECK (setup_us >= 0),
    UNIQUE (run_id, pattern, algorithm, params, comm_size, ppn)
);

-- collsel-bench --validate: native vs the selector's choice vs the best measured candidate,
-- re-measured interleaved.
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

-- The LogGP parameters of a machine, measured by collsel-bench with ping-pong between two ranks
-- of one node (docs/neighbor.md): latency L, overhead per message o, gap between consecutive
-- sends g, time per byte G (all microseconds). The neighbourhood collectives' tree balancing
-- uses them. One row per (machine, processes per node): the latest measurement.
CREATE TABLE loggp (
    machine_id  INTEGER NOT NULL REFERENCES machine (id) ON DELETE CASCADE,
    ppn         INTEGER NOT NULL CHECK (ppn >= 1),
    run_id      INTEGER REFERENCES run (id) ON DELETE SET NULL,   -- the run that measured it
    l_us        REAL NOT NULL CHECK (l_us >= 0),
    o_us        REAL NOT NULL CHECK (o_us > 0),
    g_us        REAL NOT NULL CHECK (g_us >= 0),
    g_per_byte_us REAL NOT NULL CHECK (g_per_byte_us >= 0),   -- LogGP's G
    measured_at TEXT NOT NULL,
    UNIQUE (machine_id, ppn)
);

-- A communication pattern the neighbourhood collectives were tuned on (docs/neighbor.md): its
-- name (what measurement.pattern and rule.pattern say) and its signature, numbers that describe
-- it whatever built it, so that the selector can match a communicator's topology with the
-- nearest tuned pattern. One row per (machine, name, processes).
CREATE TABLE pattern (
    machine_id INTEGER NOT NULL REFERENCES machine (id) ON DELETE CASCADE,
    name       TEXT NOT NULL CHECK (name <> ''),   -- 'cart2d', 'moore3d', 'random30', 'hotspot'
    p          INTEGER NOT NULL CHECK (p >= 1),    -- processes
    nedges     INTEGER NOT NULL CHECK (nedges >= 0),
    max_out    INTEGER NOT NULL CHECK (max_out >= 0),   -- largest out-degree
    max_in     INTEGER NOT NULL CHECK (max_in >= 0),    -- largest in-degree
    mean_out   REAL NOT NULL CHECK (mean_out >= 0),     -- nedges / p
    imbalance  REAL NOT NULL CHECK (imbalance >= 0),    -- max_in / mean_out (1 without edges)
    offsets    TEXT,      -- isomorphic patterns only (collsel_iso.h): the relative offsets C^i
                          -- of the neighbours in order, vectors separated by ';', coordinates
                          -- by ',' ('-1,0;1,0;0,-1;0,1'); NULL: not isomorphic
    UNIQUE (machine_id, name, p)
);

-- Tuning for overlap (docs/nonblocking.md "Tuning for overlap"): per point, each candidate
-- that can run as a nonblocking operation, and native (the MPI library's MPI_I<coll>, Open
-- MPI's libnbc), measured interleaved as a blocking call, as a nonblocking one started then
-- waited (no overlap), and overlapped: started, then compute_us of a calibrated compute loop
-- with a test every few microseconds, then waited. Medians over reps repetitions of the
-- slowest rank. overhead_us is the overlapped run minus the compute done in it (the time the
-- process spent in MPI and collsel calls, LibNBC's "overhead"): the time an overlapping
-- application sees, by which nonblocking rules are chosen (samples_us: every repetition's,
-- float64 little-endian; q1/q3 its quartiles). freed = (nooverlap_us - overhead_us) /
-- nooverlap_us, clamped to [0, 1]: the share of the operation's time given back to the
-- application.
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

-- The nonblocking rules: the columns and meaning of rule, for collsel_i<coll> and
-- collsel_<coll>_init (MPI_I<coll>, MPI_<Coll>_init through libcollsel_pmpi), decided from
-- table overlap: median_us and native_us are overhead_us (the time an overlapping application
-- sees) of the candidate and of the MPI library's nonblocking collective, p_value the rank-sum
-- test of their samples. A collective without nonblocking rules uses its blocking rules.
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

-- The core-to-core state of the machine at each measured point (docs/tuning.md "The host moves
-- the cores"): rtt_ns is the cache-line round trip between the cores of rank 0's node, measured
-- just before the point (the largest over the pairs probed, each the fastest of its batches).
-- round: 0 the measurement pass, r >= 1 confirmation round r; in a validation run the pass
-- (1..). A point without a probe (one core, or its threads could not be pinned) has no row.
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

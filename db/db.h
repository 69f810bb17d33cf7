/* The collsel database: the only code that talks to SQLite.
 *
 * A tuning database holds machines, tuning runs, their measurements and verification failures,
 * the rules (winners per size interval) and validation results. db/schema.sql is the schema and
 * docs/database.md describes it; the SQL of schema.sql and db/migrations/ is compiled in.
 *
 * Handles. cs_db_open() gives a cs_db_t: read-write (creates the file, creates or migrates the
 * schema; collsel-bench) or read-only (the file must exist at the current schema version;
 * the selector and reports). A handle is used by one thread at a time. Statements are prepared
 * once per handle and reused; values are always bound, never pasted into SQL.
 *
 * Transactions. Without cs_db_begin() every call commits on its own. Between cs_db_begin() and
 * cs_db_commit() the calls form one batch that is stored completely or not at all: a process
 * killed (even with kill -9) in the middle loses only the open batch. The journal is SQLite's
 * rollback journal with synchronous=FULL, which also survives power loss, works on network
 * file systems and leaves one self-contained file that read-only users can open.
 *
 * Runs and resume. A run is 'running' from cs_db_start_run() until cs_db_finish_run() marks it
 * 'done' or 'aborted'. A process that dies leaves its run 'running'; the next cs_db_start_run()
 * for the same machine marks every such run 'aborted' (one tuning job per machine at a time).
 * With resume, cs_db_start_run() continues the newest run of the machine with the same job
 * layout, kind and args, unless that run is 'done'; the caller then skips the points that
 * cs_db_measurement_exists() reports (or cs_db_foreach_measurement() lists).
 *
 * Strings passed in are copied by SQLite; strings handed to callbacks are valid only during the
 * callback. A callback may call other functions on the same handle, but not the cs_db_foreach_*
 * function that called it. Sizes are bytes (uint64_t, at most INT64_MAX), times microseconds
 * (double). A NaN time or p-value is stored as SQL NULL and NULL reads back as NaN.
 *
 * Errors: CS_ERR_ARG for bad arguments (nothing written), CS_ERR_NOT_FOUND where a row is
 * looked up, CS_ERR_NOMEM, and CS_ERR_DB for anything SQLite reports; cs_db_errmsg() then has
 * SQLite's message, which is also logged at debug verbosity (COLLSEL_VERBOSE=3). */
#ifndef CS_DB_H
#define CS_DB_H

#include "core/rule.h"
#include "core/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PRAGMA application_id of a collsel database: 'CSLS'. */
#define CS_DB_APPLICATION_ID 0x43534C53

typedef struct cs_db cs_db_t;

typedef enum cs_db_mode { CS_DB_READ_ONLY, CS_DB_READ_WRITE } cs_db_mode_t;

typedef enum cs_db_run_status {
    CS_DB_RUN_RUNNING, /* 'running': started or resumed, not finished (or killed) */
    CS_DB_RUN_DONE,    /* 'done': the plan completed, or the budget ended it */
    CS_DB_RUN_ABORTED  /* 'aborted': interrupted; --resume can continue it */
} cs_db_run_status_t;

/* What a run does (run.kind). */
typedef enum cs_db_run_kind {
    CS_DB_RUN_TUNE,    /* 'tune': measures candidates and decides the rules */
    CS_DB_RUN_VALIDATE /* 'validate': collsel-bench --validate, re-measures the selector */
} cs_db_run_kind_t;

/* The metric policy of a tuning run (run.metric, collsel-bench --metric): under which of the
 * two metrics (docs/tuning.md) a candidate must beat native to replace it. Zero is 'sync', the
 * column's default, which runs made before the loop metric existed have. */
typedef enum cs_db_metric {
    CS_DB_METRIC_SYNC, /* 'sync': the synchronised maximum over ranks */
    CS_DB_METRIC_LOOP, /* 'loop': the back-to-back loop, mean over ranks */
    CS_DB_METRIC_BOTH  /* 'both': under each of them (collsel-bench's default) */
} cs_db_metric_t;

#define CS_DB_METRIC_COUNT 3

/* The name of metric policy `m` as stored ("sync", "loop", "both"); NULL when out of range. */
const char *cs_db_metric_name(cs_db_metric_t m);

/* Sets *m to the policy named `name`; CS_ERR_ARG (and *m untouched) for any other text. */
int cs_db_metric_from_name(const char *name, cs_db_metric_t *m) CS_MUST_CHECK;

/* A machine's fingerprint (all three required when inserting). */
typedef struct cs_db_machine {
    const char *host;        /* host name of rank 0 */
    const char *topology;    /* hwloc summary, "packages=1 numa=1 cores=2 pus=2" */
    const char *mpi_library; /* first line of MPI_Get_library_version */
} cs_db_machine_t;

/* A tuning run as the bench describes it. */
typedef struct cs_db_run {
    int64_t machine_id;
    cs_db_run_kind_t kind;   /* tune (0, the default) or validate */
    int nprocs, nnodes, ppn; /* job layout; ppn is the largest node's */
    int oversubscribed;      /* 1 when ranks exceed cores */
    const char *args;        /* the options that define the plan, in a canonical form (not
                                --db, --resume, --quiet); NULL = "" */
    const char *version;     /* collsel version; may be NULL */
    cs_db_metric_t metric;   /* the metric policy its rules are decided under */
} cs_db_run_t;

/* A run as stored: what cs_db_start_run() was given (run.args is "" when none, run.version
 * NULL when unknown) and what has happened to it since. */
typedef struct cs_db_run_row {
    int64_t id;
    cs_db_run_t run;
    cs_db_run_status_t status;
    const char *started_at;  /* ISO-8601 UTC, when the run was first started */
    const char *finished_at; /* when it was marked done or aborted; NULL while running and for a
                                run found killed */
    int resumes;             /* times --resume continued it */
} cs_db_run_row_t;

/* One point of a run's plan: the key of a measurement or a failure. */
typedef struct cs_db_point {
    const char *coll;      /* "allreduce" */
    const char *algorithm; /* "allreduce/recursive_doubling": must start with coll and '/' */
    const char *params;    /* "key=value,..." with sorted keys; NULL or "" when none */
    int comm_size;         /* processes in the communicator measured */
    int ppn;               /* its processes per node */
    uint64_t bytes;        /* the call's selection key (DESIGN.md "A call") */
    const char *pattern;   /* the neighbourhood pattern (docs/neighbor.md); NULL or "": none */
} cs_db_point_t;

/* A timed point. Statistics are over the reps - outliers repetitions kept after Tukey outlier
 * removal; samples_us[0..nsamples-1] (optional: NULL, 0) are every repetition as timed.
 * The loop_* fields are the same for the back-to-back loop metric (docs/tuning.md);
 * loop_reps = 0 means the point has no loop metric (stored as NULL columns; a measurement made
 * before the loop metric existed reads back so). */
typedef struct cs_db_measurement {
    int64_t run_id;
    cs_db_point_t point;
    int reps;     /* repetitions timed, >= 1 */
    int outliers; /* removed, 0 <= outliers < reps */
    double min_us, q1_us, median_us, q3_us, max_us;
    int verified; /* 1: checked against the native collective before timing */
    const double *samples_us;
    size_t nsamples;
    int loop_reps;     /* 0: no loop metric; else >= 1 */
    int loop_outliers; /* 0 <= loop_outliers < loop_reps */
    double loop_min_us, loop_q1_us, loop_median_us, loop_q3_us, loop_max_us;
    double loop_rankmax_median_us; /* median of the slowest rank's mean; NaN when unknown */
    const double *loop_samples_us; /* optional: NULL, 0 */
    size_t loop_nsamples;
    int round; /* table confirmation: the confirmation round, >= 1 (0 is stored as 1);
                * ignored for table measurement, and read back 0 from it */
} cs_db_measurement_t;

/* A verification failure: the point's result differed from the native collective's. */
typedef struct cs_db_failure {
    int64_t run_id;
    cs_db_point_t point;
    const char *message; /* what differed; required */
} cs_db_failure_t;

/* collsel-bench --validate at one point: native vs the selector's choice vs the best
 * candidate (the oracle), re-measured interleaved. The *_loop_us medians are the loop
 * metric's; NaN (SQL NULL) when not measured, as in validations made before it existed.
 * native2_us and native2_loop_us are native timed a second time as a separate candidate
 * (native B; native_us is native A), whose ratio to native A is native's run-to-run spread;
 * NaN when not measured (validations made before schema version 4). A positional initialiser
 * that stops before them leaves them 0, which is stored as 0: set them to NAN. */
typedef struct cs_db_validation {
    int64_t run_id;
    const char *coll;
    int comm_size, ppn;
    uint64_t bytes;
    double native_us, selected_us, oracle_us;
    const char *selected_algorithm, *selected_params;        /* may be NULL */
    const char *oracle_algorithm, *oracle_params;            /* may be NULL */
    double native_loop_us, selected_loop_us, oracle_loop_us; /* NaN: not measured */
    double native2_us, native2_loop_us;                      /* native B; NaN: not measured */
    const char *pattern; /* the neighbourhood pattern (docs/neighbor.md); NULL or "": none */
} cs_db_validation_t;

/* Row callbacks of the cs_db_foreach_* functions: CS_OK continues, a positive value stops the
 * iteration (which then returns CS_OK), a negative status stops it and is returned. */
typedef int (*cs_db_machine_fn)(int64_t id, const cs_db_machine_t *m, void *ctx);
typedef int (*cs_db_run_fn)(const cs_db_run_row_t *r, void *ctx);
typedef int (*cs_db_measurement_fn)(const cs_db_measurement_t *m, void *ctx);
typedef int (*cs_db_failure_fn)(const cs_db_failure_t *f, void *ctx);
typedef int (*cs_db_rule_fn)(const cs_rule_t *r, void *ctx);
typedef int (*cs_db_validation_fn)(const cs_db_validation_t *v, void *ctx);

/* --- opening ------------------------------------------------------------------------------- */

/* Opens the database at `path` (":memory:" for a private in-memory one) into *db.
 * CS_DB_READ_WRITE creates the file when missing and brings its schema to the current version
 * (creating it, or applying the missing migrations in one transaction); the file must be
 * writable. CS_DB_READ_ONLY needs an existing file at the current version and never writes.
 * On failure *db is NULL and, when why != NULL, why[0..why_len-1] holds a message for the user
 * that names the file and says what to do (also logged at debug verbosity):
 *   CS_ERR_NOT_FOUND  read-only and the file does not exist
 *   CS_ERR_DB         not openable, not a SQLite file, not a collsel database, a schema
 *                     version newer than this collsel supports (never touched), an older one
 *                     when read-only, or not writable when read-write
 *   CS_ERR_ARG, CS_ERR_NOMEM */
int cs_db_open(const char *path, cs_db_mode_t mode, cs_db_t **db, char *why,
               size_t why_len) CS_MUST_CHECK;

/* Checks the whole database for damage (SQLite's quick_check: every page, record and b-tree;
 * only reads). CS_OK when it is sound. CS_ERR_DB when it is damaged or cannot be read; then
 * why[0..why_len-1] (when why != NULL) says what is wrong, in SQLite's words on one line
 * ("file is not a database", "Page 6: btreeInitPage() returns error code 11; Page 16 is never
 * used"), for the caller to print with the file's name. Reads every page: milliseconds for
 * a tuning database. */
int cs_db_check(cs_db_t *db, char *why, size_t why_len) CS_MUST_CHECK;

/* Closes `db` (NULL is ignored) and frees it; an open batch is rolled back. */
void cs_db_close(cs_db_t *db);

/* SQLite's message for the last CS_ERR_DB of `db` ("" when none); owned by db. */
const char *cs_db_errmsg(const cs_db_t *db);

/* The schema version this build creates and reads (the number of migrations). */
int cs_db_schema_version(void);

/* The text of db/schema.sql, compiled in. */
const char *cs_db_schema_sql(void);

/* The text of migration `version` (1..cs_db_schema_version()), which takes user_version
 * version - 1 to version; NULL for other values. For tests and tools. */
const char *cs_db_migration_sql(int version);

/* --- batches ------------------------------------------------------------------------------- */

/* Starts a batch (BEGIN IMMEDIATE: takes the write lock now, waiting up to the busy timeout).
 * CS_ERR_DB when a batch is already open or the lock cannot be had. */
int cs_db_begin(cs_db_t *db) CS_MUST_CHECK;

/* Starts a read snapshot (BEGIN DEFERRED): the reads until cs_db_commit() or cs_db_rollback()
 * all see one committed state of the file, however a tuning run writes it meanwhile (its
 * batches commit whole, before or after the snapshot). Takes no lock until the first read.
 * Works on a read-only connection. CS_ERR_DB when a batch or snapshot is already open. */
int cs_db_begin_read(cs_db_t *db) CS_MUST_CHECK;

/* Stores the open batch durably. CS_ERR_DB when none is open or the commit fails (the batch
 * is then still open: retry or roll back). */
int cs_db_commit(cs_db_t *db) CS_MUST_CHECK;

/* Discards the open batch. CS_ERR_DB when none is open. */
int cs_db_rollback(cs_db_t *db) CS_MUST_CHECK;

/* --- machines ------------------------------------------------------------------------------ */

/* Sets *machine_id to the machine with exactly this fingerprint, inserting it when new. */
int cs_db_find_or_insert_machine(cs_db_t *db, const cs_db_machine_t *m,
                                 int64_t *machine_id) CS_MUST_CHECK;

/* Sets *machine_id to the machine whose rules a selector should use: among the machines that
 * have rules and match every non-NULL field of `want` (all NULL: any machine), the one with
 * the newest run. CS_ERR_NOT_FOUND when none matches. */
int cs_db_find_machine(cs_db_t *db, const cs_db_machine_t *want, int64_t *machine_id) CS_MUST_CHECK;

/* Calls fn for every machine, by id. */
int cs_db_foreach_machine(cs_db_t *db, cs_db_machine_fn fn, void *ctx) CS_MUST_CHECK;

/* --- runs ---------------------------------------------------------------------------------- */

/* Starts a run of run->machine_id in one transaction (or savepoint inside a batch): first
 * marks every 'running' run of that machine 'aborted' (their process is gone); then, when
 * `resume` is set and the newest run with the same machine, nprocs, nnodes, ppn, kind and args is
 * not 'done', makes it 'running' again (finished_at cleared, resumes + 1) and returns its id
 * with *resumed = true. Otherwise inserts a new 'running' run (started_at now) and sets
 * *resumed = false. `resumed` may be NULL. */
int cs_db_start_run(cs_db_t *db, const cs_db_run_t *run, bool resume, int64_t *run_id,
                    bool *resumed) CS_MUST_CHECK;

/* Marks the running run `run_id` CS_DB_RUN_DONE or CS_DB_RUN_ABORTED with finished_at now.
 * CS_ERR_NOT_FOUND when no such run is 'running'; CS_ERR_ARG for CS_DB_RUN_RUNNING. */
int cs_db_finish_run(cs_db_t *db, int64_t run_id, cs_db_run_status_t status) CS_MUST_CHECK;

/* Sets *status to the status of run `run_id`; CS_ERR_NOT_FOUND when there is no such run. */
int cs_db_run_status(cs_db_t *db, int64_t run_id, cs_db_run_status_t *status) CS_MUST_CHECK;

/* Sets *seconds to the time since run `run_id` was first started (its started_at; a resumed
 * run's includes the time between its launches). CS_ERR_NOT_FOUND when there is no such run. */
int cs_db_run_age(cs_db_t *db, int64_t run_id, double *seconds) CS_MUST_CHECK;

/* Calls fn for every run of machine `machine_id` (0: of every machine), by id. The strings of
 * the row are valid during the call only. */
int cs_db_foreach_run(cs_db_t *db, int64_t machine_id, cs_db_run_fn fn, void *ctx) CS_MUST_CHECK;

/* --- measurements and failures ------------------------------------------------------------- */

/* Stores one measurement. A point the run already has is left as it is (first write wins; no
 * duplicate rows) and CS_OK is returned. CS_ERR_ARG on a missing key field, reps < 1,
 * outliers outside [0, reps), or a NaN statistic; CS_ERR_DB for an unknown run. */
int cs_db_insert_measurement(cs_db_t *db, const cs_db_measurement_t *m) CS_MUST_CHECK;

/* Sets *exists to whether run `run_id` has a measurement of point `p`. */
int cs_db_measurement_exists(cs_db_t *db, int64_t run_id, const cs_db_point_t *p,
                             bool *exists) CS_MUST_CHECK;

/* Calls fn for every measurement of run `run_id`, ordered by coll, comm_size, ppn, bytes,
 * algorithm, params. The samples array is valid during the call only. */
int cs_db_foreach_measurement(cs_db_t *db, int64_t run_id, cs_db_measurement_fn fn,
                              void *ctx) CS_MUST_CHECK;

/* The confirmation rounds (docs/tuning.md "Confirmation"): measurements of the same points
 * again, later in the run, with native and the best candidates only; table confirmation, with
 * the same columns and rules as measurement and the round (cs_db_measurement_t.round), which
 * is part of the key: cs_db_confirmation_exists asks for round `round` (>= 1, else CS_ERR_ARG),
 * cs_db_foreach_confirmation lists every round's, by round and then as measurements. */
int cs_db_insert_confirmation(cs_db_t *db, const cs_db_measurement_t *m) CS_MUST_CHECK;
int cs_db_confirmation_exists(cs_db_t *db, int64_t run_id, const cs_db_point_t *p, int round,
                              bool *exists) CS_MUST_CHECK;
int cs_db_foreach_confirmation(cs_db_t *db, int64_t run_id, cs_db_measurement_fn fn,
                               void *ctx) CS_MUST_CHECK;

/* The core-to-core state at a measured point (table core_state; docs/tuning.md "The host moves
 * the cores"): the cache-line round trip between the cores of rank 0's node just before the
 * point, in round `round` (0 the measurement pass, r >= 1 confirmation round r; a validation's
 * pass 1..). cs_db_put_core_state keeps the first row of a point (as measurements do); CS_ERR_ARG
 * for a missing key field, round < 0 or rtt_ns not finite and positive.
 * cs_db_foreach_core_state calls fn for every row of run `run_id`, ordered by coll, pattern,
 * comm_size, ppn, bytes, round; the texts are valid during the call only. */
typedef struct cs_db_core_state {
    int round;
    const char *coll, *pattern; /* pattern: "" for the collectives without one */
    int comm_size, ppn;
    uint64_t bytes;
    double rtt_ns;
} cs_db_core_state_t;
typedef int (*cs_db_core_state_fn)(const cs_db_core_state_t *c, void *ctx);
int cs_db_put_core_state(cs_db_t *db, int64_t run_id, const cs_db_core_state_t *c) CS_MUST_CHECK;
int cs_db_foreach_core_state(cs_db_t *db, int64_t run_id, cs_db_core_state_fn fn,
                             void *ctx) CS_MUST_CHECK;

/* Stores one verification failure; one that the run already has is left as it is. */
int cs_db_insert_failure(cs_db_t *db, const cs_db_failure_t *f) CS_MUST_CHECK;

/* Calls fn for every failure of run `run_id`, in the order of cs_db_foreach_measurement. */
int cs_db_foreach_failure(cs_db_t *db, int64_t run_id, cs_db_failure_fn fn,
                          void *ctx) CS_MUST_CHECK;

/* --- rules --------------------------------------------------------------------------------- */

/* Rules are cs_rule_t (core/rule.h); the database stores the collective by name and an
 * unbounded hi_bytes (CS_RULE_UNBOUNDED) as NULL. */

/* Replaces, atomically, the rules of (machine_id, coll, comm_size, ppn) by rules[0..n-1]
 * (n = 0 deletes them). Every rule must carry that same key, an algorithm of that collective,
 * a non-empty interval and rank >= 1: CS_ERR_ARG otherwise (also for an invalid coll). Two
 * rules with the same lo_bytes and rank: CS_ERR_DB. On any failure the previous rules stay. */
int cs_db_replace_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll, int comm_size, int ppn,
                        const cs_rule_t *rules, size_t n) CS_MUST_CHECK;

/* cs_db_replace_rules for the rules of one neighbourhood pattern (table pattern): the key is
 * (machine_id, coll, pattern, comm_size, ppn) and every rule must carry that pattern;
 * cs_db_replace_rules is this with pattern "". CS_ERR_ARG also for a NULL pattern or one
 * longer than a cs_rule_t holds. */
int cs_db_replace_pattern_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll,
                                const char *pattern, int comm_size, int ppn, const cs_rule_t *rules,
                                size_t n) CS_MUST_CHECK;

/* Calls fn for every rule of machine `machine_id`, ordered by coll, comm_size, ppn, lo_bytes,
 * rank: each collective's intervals ascending, each interval's candidates best first. A row
 * this collsel cannot hold in a cs_rule_t (a collective it does not know, an algorithm or
 * params text too long) is skipped, logged at debug verbosity. */
int cs_db_foreach_rule(cs_db_t *db, int64_t machine_id, cs_db_rule_fn fn, void *ctx) CS_MUST_CHECK;

/* --- validation ---------------------------------------------------------------------------- */

/* Stores one validation result; a point the run already has is left as it is. */
int cs_db_insert_validation(cs_db_t *db, const cs_db_validation_t *v) CS_MUST_CHECK;

/* Calls fn for every validation row of run `run_id`, ordered by coll, comm_size, ppn, bytes. */
int cs_db_foreach_validation(cs_db_t *db, int64_t run_id, cs_db_validation_fn fn,
                             void *ctx) CS_MUST_CHECK;

/* --- LogGP --------------------------------------------------------------------------------- */

/* The LogGP parameters of a machine (table loggp, docs/neighbor.md), in microseconds. */
typedef struct cs_db_loggp {
    int64_t machine_id;
    int ppn;              /* processes per node of the run that measured them */
    int64_t run_id;       /* that run; 0: none (stored as NULL) */
    double l_us;          /* L: latency, >= 0 */
    double o_us;          /* o: overhead per message, > 0 */
    double g_us;          /* g: gap between consecutive sends of one process, >= 0 */
    double g_per_byte_us; /* G: time per byte, >= 0 */
} cs_db_loggp_t;

/* Stores `l` as the LogGP parameters of (l->machine_id, l->ppn), replacing earlier ones.
 * CS_ERR_ARG for a value out of range (negative, NaN, o not positive) or no machine. */
int cs_db_put_loggp(cs_db_t *db, const cs_db_loggp_t *l) CS_MUST_CHECK;

/* Reads the LogGP parameters of `machine_id` measured at the processes per node nearest `ppn`
 * (ties: the smaller) into *l; *found false (and *l untouched) when the machine has none. */
int cs_db_get_loggp(cs_db_t *db, int64_t machine_id, int ppn, cs_db_loggp_t *l,
                    bool *found) CS_MUST_CHECK;

/* --- patterns ------------------------------------------------------------------------------ */

/* A neighbourhood pattern tuned on a machine and its signature (table pattern,
 * docs/neighbor.md). */
typedef struct cs_db_pattern {
    int64_t machine_id;
    const char *name; /* non-empty, shorter than CS_RULE_PATTERN; read: lives until the next row */
    int p, nedges, max_out, max_in;
    double mean_out, imbalance;
    /* An isomorphic pattern's neighbourhood (column offsets): iso_s offsets of iso_d
     * coordinates, neighbour i's at iso_offsets[i * iso_d]; iso_d = 0 (iso_s 0, iso_offsets
     * NULL): not isomorphic. Read: lives until the next row. */
    int iso_d, iso_s;
    const int *iso_offsets;
} cs_db_pattern_t;

typedef int (*cs_db_pattern_fn)(const cs_db_pattern_t *t, void *ctx);

/* Stores pattern `t` of its machine, replacing the signature and offsets of the same (name,
 * p). CS_ERR_ARG for an empty or overlong name, a negative or non-finite number, p < 1, an
 * isomorphic neighbourhood with iso_s < 1 or iso_offsets NULL; CS_ERR_NOMEM. */
int cs_db_put_pattern(cs_db_t *db, const cs_db_pattern_t *t) CS_MUST_CHECK;

/* Calls fn for every pattern of machine `machine_id`, ordered by name and p (the callback
 * convention of the other cs_db_foreach_*). A row whose offsets cannot be read is handed over
 * as not isomorphic. A row cs_db_put_pattern would refuse otherwise (NULL or overlong name,
 * negative, non-finite or out-of-range numbers) is skipped, logged at debug verbosity.
 * CS_ERR_NOMEM. */
int cs_db_foreach_pattern(cs_db_t *db, int64_t machine_id, cs_db_pattern_fn fn,
                          void *ctx) CS_MUST_CHECK;

/* --- setup costs ---------------------------------------------------------------------------- */

/* Stores the measured one-time setup of variant (algorithm, params) of `coll` on a
 * communicator of comm_size processes, ppn per node, of neighbourhood pattern `pattern` (""
 * for the other collectives), in run `run_id` (table setup_cost), replacing that run's earlier
 * value. CS_ERR_ARG for a negative or non-finite cost. */
int cs_db_put_setup(cs_db_t *db, int64_t run_id, cs_coll_t coll, const char *pattern,
                    const char *algorithm, const char *params, int comm_size, int ppn,
                    double setup_us) CS_MUST_CHECK;

/* The newest measured setup of (algorithm, params) at (comm_size, ppn) on pattern `pattern`
 * ("": none) on machine `machine_id` into *setup_us; 0 when none was measured. */
int cs_db_get_setup(cs_db_t *db, int64_t machine_id, const char *pattern, const char *algorithm,
                    const char *params, int comm_size, int ppn, double *setup_us) CS_MUST_CHECK;

/* --- tuning for overlap (docs/nonblocking.md "Tuning for overlap") -------------------------- */

/* One candidate at one point, measured for overlap (table overlap): medians over `reps`
 * repetitions (each the slowest rank's) of the blocking call, the nonblocking one started then
 * waited, and started, overlapped with compute_us of computation, then waited; overhead_us
 * (quartiles q1, q3; NaN: unknown) is the overlapped run minus the computation done in it, the
 * time an overlapping application sees; freed = (nooverlap_us - overhead_us) / nooverlap_us in
 * [0, 1]. samples_us[0..nsamples-1] (optional: NULL, 0) are every repetition's overhead_us. */
typedef struct cs_db_overlap {
    cs_db_point_t point;
    int reps;
    double compute_us;
    double blocking_us, nooverlap_us, overlap_us, overhead_us;
    double overhead_q1_us, overhead_q3_us;
    double freed;
    const double *samples_us;
    size_t nsamples;
} cs_db_overlap_t;

typedef int (*cs_db_overlap_fn)(const cs_db_overlap_t *o, void *ctx);

/* Stores `o` for run `run_id`; a row the run already has for its point stays as it is.
 * CS_ERR_ARG for an invalid point, reps < 1, compute_us < 0 or freed outside [0, 1]. */
int cs_db_insert_overlap(cs_db_t *db, int64_t run_id, const cs_db_overlap_t *o) CS_MUST_CHECK;

/* Sets *exists to whether run `run_id` has an overlap row for point `p`. */
int cs_db_overlap_exists(cs_db_t *db, int64_t run_id, const cs_db_point_t *p,
                         bool *exists) CS_MUST_CHECK;

/* Calls fn for every overlap row of run `run_id` (0: of every run, oldest run last within a
 * point), ordered by coll, pattern, comm_size, ppn, bytes, algorithm, params. The strings and
 * samples are valid during the call only. */
int cs_db_foreach_overlap(cs_db_t *db, int64_t run_id, cs_db_overlap_fn fn,
                          void *ctx) CS_MUST_CHECK;

/* The nonblocking rules (table nb_rule: the columns, order and checks of rule):
 * cs_db_replace_rules, cs_db_replace_pattern_rules (the neighbourhood collectives' rules of one
 * pattern) and cs_db_foreach_rule for them. */
int cs_db_replace_nb_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll, int comm_size, int ppn,
                           const cs_rule_t *rules, size_t n) CS_MUST_CHECK;
int cs_db_replace_nb_pattern_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll,
                                   const char *pattern, int comm_size, int ppn,
                                   const cs_rule_t *rules, size_t n) CS_MUST_CHECK;
int cs_db_foreach_nb_rule(cs_db_t *db, int64_t machine_id, cs_db_rule_fn fn,
                          void *ctx) CS_MUST_CHECK;

/* --- counting ------------------------------------------------------------------------------ */

/* Sets *count to the rows of `table` ("machine", "run", "measurement", "failure", "rule",
 * "validation", "confirmation", "overlap", "nb_rule", "core_state") that belong to run `run_id`, or
 * to all its rows when run_id is 0. A run's machine is its one machine row; its rules are those it
 * decided (rule.run_id). CS_ERR_ARG for another table name. */
int cs_db_count_rows(cs_db_t *db, const char *table, int64_t run_id, int64_t *count) CS_MUST_CHECK;

#endif

/* The run row of a tuning (or validation) run and what it stores, on rank 0.
 *
 * cs_bench_run_open() opens the database (default results/<host>.db, its directory created),
 * records the machine (the row of the same hwloc topology and MPI library that has rules,
 * whatever its host name: every node of a partition tunes into one row, docs/cluster.md; else
 * this host's) and starts a 'running' run, or with --resume continues the newest
 * unfinished one with the same plan. cs_bench_run_store_point() stores one measured point in one
 * transaction, so a killed run loses at most the point in progress; cs_bench_run_has_point()
 * tells a resumed run which points it already has. Only rank 0 holds a cs_bench_run_t. */
#ifndef CS_BENCH_RUN_H
#define CS_BENCH_RUN_H

#include "core/machine.h"
#include "corestate.h"
#include "db.h"
#include "measure.h"
#include "options.h"
#include "patterns.h"

#include <stdint.h>

typedef struct cs_bench_run {
    cs_db_t *db;
    int64_t machine_id, run_id;
    int oversubscribed;     /* more processes per node than cores (rules.h: the metric policy) */
    double before_s;        /* a resumed run: seconds since it was first started (its earlier
                             * launches, and the time between them); 0 for a new run */
    int measured;           /* points this launch measured (not found stored), on every rank of
                             * the communicator that measured them */
    char path[4096];        /* the database file */
    cs_bench_cores_t cores; /* what the core-to-core probe pairs (corestate.h), on rank 0 */
} cs_bench_run_t;

/* Opens the database and starts (or resumes, *resumed = 1) the run of machine `m` with the
 * options `o`. r must be zeroed. On failure says why on stderr; r->db may be open (close it
 * with cs_bench_run_close). */
int cs_bench_run_open(const cs_bench_opts_t *o, const cs_machine_t *m, cs_bench_run_t *r,
                      int *resumed) CS_MUST_CHECK;

/* Sets *exists to whether the run already stored point (coll, pattern, comm_size, ppn, bytes):
 * its native candidate, which every measured point has, is there; with `round` > 0 among the
 * confirmations of that round (docs/tuning.md "Confirmation"), else among the measurements.
 * `pattern` is the neighbourhood pattern's name, "" for the other collectives. */
int cs_bench_run_has_point(cs_bench_run_t *r, cs_coll_t coll, const char *pattern, int comm_size,
                           int ppn, uint64_t bytes, int round, bool *exists) CS_MUST_CHECK;

/* Stores a measured point (a measurement for each applicable candidate, a failure for each one
 * that failed verification, and the core-to-core state `rtt_ns` probed before it unless NaN:
 * table core_state) in one transaction; on failure nothing of it is stored. With `round` > 0
 * the measurements go to the confirmations, of that round. */
int cs_bench_run_store_point(cs_bench_run_t *r, const cs_bench_cand_t *cands, int ncand,
                             cs_coll_t coll, const char *pattern, int comm_size, int ppn,
                             uint64_t bytes, int round, double rtt_ns) CS_MUST_CHECK;

/* Stores neighbourhood pattern `pat` on n processes, whose graph has signature *sig, for the
 * run's machine (table pattern: the signature the selector matches communicators against, and
 * the offsets of an isomorphic pattern), replacing the earlier row of (name, n). Errors as
 * cs_bench_pattern_iso and cs_db_put_pattern. */
int cs_bench_run_put_pattern(cs_bench_run_t *r, const cs_bench_pattern_t *pat, int n,
                             const cs_graph_sig_t *sig) CS_MUST_CHECK;

/* Closes the database (NULL is ignored). */
void cs_bench_run_close(cs_bench_run_t *r);

#endif

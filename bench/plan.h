/* The plan of a tuning run: which candidates are measured at which points.
 *
 * A plan lists, per collective, the algorithms to tune (the native collective first, then each
 * registered algorithm the --algorithms globs select, then any extra test-only ones), the
 * communicator sizes (default: the whole job) and, through cs_bench_plan_expand(), the
 * candidates (every variant of every planned algorithm) on one communicator. Its points are
 * collective x communicator size x message size. --list prints it (cs_bench_plan_list). */
#ifndef CS_BENCH_PLAN_H
#define CS_BENCH_PLAN_H

#include "core/algo.h"
#include "measure.h"
#include "options.h"

#define CS_BENCH_MAX_CANDS 512 /* per collective: every grid layout of p <= 1024 fits */

/* Seconds of timing per point when the run has no --budget, and the least a budget leaves. */
#define CS_BENCH_POINT_BUDGET_S     2.0
#define CS_BENCH_MIN_POINT_BUDGET_S 0.05

typedef struct cs_bench_plan {
    const cs_algo_t *algos[CS_COLL_COUNT][CS_BENCH_MAX_CANDS]; /* [0] native, then selected */
    int nalgos[CS_COLL_COUNT];
    cs_bench_cand_t cands[CS_COLL_COUNT][CS_BENCH_MAX_CANDS]; /* for the current comm size */
    int ncands[CS_COLL_COUNT];
    int comm_sizes[CS_BENCH_MAX_LIST];
    int ncomm_sizes;
    int npoints;
} cs_bench_plan_t;

/* Fills `plan` from the options for a job of `nprocs` processes; `extra` algorithms (may be
 * NULL) join the registered ones. The candidates are not expanded yet. CS_OK. */
int cs_bench_plan_make(const cs_bench_opts_t *o, const cs_algo_t *const *extra, int nextra,
                       int nprocs, cs_bench_plan_t *plan) CS_MUST_CHECK;

/* Sets plan->cands and plan->ncands to the candidates of every collective on a communicator
 * of nprocs processes, ppn per node: each planned algorithm's variants. CS_ERR_NOMEM, said
 * by `rank` 0, when one collective has more than CS_BENCH_MAX_CANDS. */
int cs_bench_plan_expand(cs_bench_plan_t *plan, int nprocs, int ppn, int rank) CS_MUST_CHECK;

/* --list (rank 0): prints every variant the plan would run (per communicator size when there
 * are several), the plan's size and its estimated duration. `ppn`: processes per node of the
 * job. Expands the candidates of each communicator size in turn. */
int cs_bench_plan_list(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int ppn,
                       int rank) CS_MUST_CHECK;

#endif

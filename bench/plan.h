/* The plan of a tuning run: which candidates are measured at which points.
 *
 * A plan lists, per collective, the algorithms to tune (the native collective first, then each
 * registered algorithm the --algorithms globs select, then any extra test-only ones), the
 * communicator sizes (default: the whole job) and, through cs_bench_plan_expand(), the
 * candidates (every variant of every planned algorithm) on one communicator. Its points are
 * collective x communicator size x message size. --list prints it (cs_bench_plan_list).
 *
 * The message sizes of each (collective, communicator size), its key, are the --sizes grid plus
 * the MPI library's protocol thresholds (thresholds.h): each threshold t inside the grid's range
 * adds t (rounded down to a multiple of 4) and the power of two above t, so that both sides of
 * a protocol switch are measured (cs_bench_plan_sizes). Then, inside the run, boundary
 * refinement: wherever the winner differs between two adjacent measured sizes with a power of
 * two between them, the power of two in the (geometric) middle is measured too, and again on
 * each half where the winner still changes, until the sizes on either side of every change are
 * neighbouring powers of two (cs_bench_refine_next). Refinement points take their share of
 * the budget: the plan reserves the most a key can add (cs_bench_refine_max) and gives back
 * what it did not use. --no-refine measures the grid only. A collective without data (barrier,
 * cs_coll_has_data) has one point per communicator size, at 0 bytes, and no refinement.
 *
 * The neighbourhood collectives are measured on the named patterns (patterns.h) valid at each
 * communicator size, at the --block-sizes grid (bytes per block, default 1 B to 64 KiB by
 * factors of 16), without threshold points or refinement: a key is (collective, pattern,
 * communicator size), each of its points one block size. */
#ifndef CS_BENCH_PLAN_H
#define CS_BENCH_PLAN_H

#include "core/algo.h"
#include "measure.h"
#include "options.h"

#include <stdint.h>

#define CS_BENCH_MAX_CANDS 512 /* per collective: every grid layout of p <= 1024 fits */
#define CS_BENCH_MAX_SIZES 256 /* of one key: grid, threshold and refinement points */

/* Seconds of timing per point when the run has no --budget, and the least a budget leaves. */
#define CS_BENCH_POINT_BUDGET_S     2.0
#define CS_BENCH_MIN_POINT_BUDGET_S 0.05
/* The confirmation pass (docs/tuning.md "Confirmation"): the share of --budget kept for it, and
 * its time per point without --budget (it measures 2 or 3 candidates, not all). */
#define CS_BENCH_CONFIRM_SHARE          0.2
#define CS_BENCH_CONFIRM_POINT_BUDGET_S 1.0

typedef struct cs_bench_plan {
    const cs_algo_t *algos[CS_COLL_COUNT][CS_BENCH_MAX_CANDS]; /* [0] native, then selected */
    int nalgos[CS_COLL_COUNT];
    cs_bench_cand_t cands[CS_COLL_COUNT][CS_BENCH_MAX_CANDS]; /* for the current comm size */
    int ncands[CS_COLL_COUNT];
    int comm_sizes[CS_BENCH_MAX_LIST];
    int ncomm_sizes;
    uint64_t sizes[CS_BENCH_MAX_SIZES]; /* of each key: the grid and the threshold points */
    int nsizes;
    uint64_t block_sizes[CS_BENCH_MAX_LIST]; /* of each neighbourhood key (--block-sizes) */
    int nblock_sizes;
    int refine_max; /* refinement points one key may add (0 with --no-refine) */
    /* Neighbourhood collectives: per communicator size (comm_sizes' order) the patterns
     * selected and valid there (cs_bench_pattern_valid), a bit per cs_bench_patterns index;
     * each (collective, pattern) is a key measured at every --block-sizes size, never
     * refined. */
    unsigned patterns_at[CS_BENCH_MAX_LIST];
    int nkeys;      /* (collective, communicator size) pairs planned */
    int ndata_keys; /* of them, those of collectives with data: measured at nsizes, refined */
    int npoints;    /* planned points: data keys x nsizes + the others' one point each +
                     * neighbourhood keys x block sizes (refinement points not included) */
} cs_bench_plan_t;

/* The sizes a key of collective c measures before refinement: plan->nsizes, or 1 for a
 * collective without data (barrier: its one point is 0 bytes, and it is never refined). */
static inline int cs_bench_plan_key_nsizes(const cs_bench_plan_t *plan, cs_coll_t c) {
    return cs_coll_is_neighbor(c) ? plan->nblock_sizes : cs_coll_has_data(c) ? plan->nsizes : 1;
}

/* Patterns planned on the communicator size of index ci (plan->patterns_at[ci]) on which
 * neighbourhood collective c is tuned (cs_bench_pattern_tunes). */
int cs_bench_plan_npatterns(const cs_bench_plan_t *plan, int ci, cs_coll_t c);

/* The sizes one key measures before refinement, ascending and unique, into out[0..cap-1]
 * (*nout): grid[0..ngrid-1] (ascending) and, for each threshold t (any order) with
 * grid[0] <= t < grid[ngrid-1], t rounded down to a multiple of 4 and the smallest power of two
 * above t (at most grid[ngrid-1]). CS_ERR_NOMEM when cap is too small. */
int cs_bench_plan_sizes(const size_t *grid, int ngrid, const uint64_t *thresholds, int nthresholds,
                        uint64_t *out, int cap, int *nout) CS_MUST_CHECK;

/* The refinement points one step adds (pure; rank 0 decides, the run broadcasts). sizes[0..n-1]
 * ascending, winner[i] an id of the winner at sizes[i] (equal ids: the same variant). For each
 * adjacent pair whose winners differ and that has powers of two strictly between it, the one
 * nearest the geometric middle, at most `cap` of them (smallest sizes first), into add[]
 * ascending; returns how many. None: every change of winner lies between neighbouring powers
 * of two (or between sizes with no power of two between them). */
int cs_bench_refine_next(const uint64_t *sizes, const int *winner, int n, int cap, uint64_t *add);

/* The most refinement points bisection can add to sizes[0..n-1] (ascending): the powers of two
 * strictly between adjacent sizes. */
int cs_bench_refine_max(const uint64_t *sizes, int n);

/* Sets plan->sizes from the options' grid and the thresholds, plan->refine_max (0 when
 * o->no_refine) and plan->npoints. CS_ERR_NOMEM when the sizes do not fit. */
int cs_bench_plan_set_sizes(cs_bench_plan_t *plan, const cs_bench_opts_t *o,
                            const uint64_t *thresholds, int nthresholds) CS_MUST_CHECK;

/* Fills `plan` from the options for a job of `nprocs` processes; `extra` algorithms (may be
 * NULL) join the registered ones. The candidates are not expanded yet. CS_OK. */
int cs_bench_plan_make(const cs_bench_opts_t *o, const cs_algo_t *const *extra, int nextra,
                       int nprocs, cs_bench_plan_t *plan) CS_MUST_CHECK;

/* Sets plan->cands and plan->ncands to the candidates of every collective on a communicator
 * of nprocs processes, ppn per node: each planned algorithm's variants. CS_ERR_NOMEM, said
 * by `rank` 0, when one collective has more than CS_BENCH_MAX_CANDS. */
int cs_bench_plan_expand(cs_bench_plan_t *plan, int nprocs, int ppn, int rank) CS_MUST_CHECK;

/* --list (rank 0): prints every variant the plan would run (per communicator size when there
 * are several), the sizes of each key, how many refinement points the run may add, the plan's
 * size and its estimated duration. `ppn`: processes per node of the job. Expands the
 * candidates of each communicator size in turn. */
int cs_bench_plan_list(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int ppn,
                       int rank) CS_MUST_CHECK;

#endif

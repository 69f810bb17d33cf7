/* The plan of a tuning run: which candidates are measured at which points.
 *
 * A plan lists, per collective, the algorithms to tune (the native collective first, then each
 * registered algorithm the --algorithms globs select, then any extra test-only ones), the
 * communicator sizes (--comm-sizes, or the default plan: cs_bench_plan_default_sizes) and,
 * through cs_bench_plan_expand(), the candidates (every variant of every planned algorithm) on
 * one communicator. Its points are collective x communicator size x message size. --list prints
 * it (cs_bench_plan_list).
 *
 * The default plan (no --comm-sizes) tunes the communicator sizes an application is likely to
 * create inside the job: 2, every power of two up to the job size and the job size; with
 * several nodes also one node, two nodes and all nodes (ppn and 2 ppn processes: the lowest
 * ranks, as for --comm-sizes). Under --budget each communicator size gets a share of the
 * measurement pass's time by its weight (cs_bench_plan_default_sizes), spread equally over its
 * points (refinement reserve included); with --comm-sizes the shares follow the point counts,
 * so that every point gets the same time, as before the default plan existed.
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
/* The confirmation rounds (docs/tuning.md "Confirmation"): the share of --budget kept for them
 * (at least), and their time per point without --budget (they measure 2 or 3 candidates, not
 * all). */
#define CS_BENCH_CONFIRM_SHARE          0.2
#define CS_BENCH_CONFIRM_POINT_BUDGET_S 1.0

typedef struct cs_bench_plan {
    const cs_algo_t *algos[CS_COLL_COUNT][CS_BENCH_MAX_CANDS]; /* [0] native, then selected */
    int nalgos[CS_COLL_COUNT];
    cs_bench_cand_t cands[CS_COLL_COUNT][CS_BENCH_MAX_CANDS]; /* for the current comm size */
    int ncands[CS_COLL_COUNT];
    int comm_sizes[CS_BENCH_MAX_LIST];
    int ncomm_sizes;
    int default_sizes; /* 1: comm_sizes is the default plan (no --comm-sizes) */
    /* Per communicator size (comm_sizes' order): its processes per node when the lowest ranks
     * fill the nodes in order (min(job ppn, size)), its weight (the default plan's, 0 with
     * --comm-sizes), its planned points and refinement reserve (cs_bench_plan_set_sizes), and
     * its share of the measurement pass's budget (shares sum to 1). */
    int ppn_at[CS_BENCH_MAX_LIST];
    double weight_at[CS_BENCH_MAX_LIST];
    int points_at[CS_BENCH_MAX_LIST], reserve_at[CS_BENCH_MAX_LIST];
    double share_at[CS_BENCH_MAX_LIST];
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
 * o->no_refine), plan->npoints, and per communicator size points_at, reserve_at and share_at.
 * CS_ERR_NOMEM when the sizes do not fit. */
int cs_bench_plan_set_sizes(cs_bench_plan_t *plan, const cs_bench_opts_t *o,
                            const uint64_t *thresholds, int nthresholds) CS_MUST_CHECK;

/* The default plan's communicator sizes for a job of nprocs processes with ppn per node (the
 * largest node; nodes = nprocs / ppn rounded up), ascending and unique, into sizes[0..cap-1],
 * and their weights into weight[] (pure, no MPI). Returns how many (at most cap).
 *   - sizes: 2, every power of two up to nprocs, and nprocs; with two nodes or more also ppn
 *     (one node), 2 ppn (two nodes, when at most nprocs) and nprocs (all nodes); sizes below 2
 *     are left out (a node of one process), except at np 1, whose plan is {1};
 *   - weights: log2(size) (1 at size 1), x2 for the job size, x1.5 for one node or two nodes
 *     (when not the job size): the job size gets the largest share, small sizes less. */
int cs_bench_plan_default_sizes(int nprocs, int ppn, int *sizes, double *weight, int cap);

/* Fills `plan` from the options for a job of `nprocs` processes, `ppn` per node (the largest
 * node; it decides the default plan's node sizes and ppn_at); `extra` algorithms (may be NULL)
 * join the registered ones. The candidates are not expanded yet. CS_OK. */
int cs_bench_plan_make(const cs_bench_opts_t *o, const cs_algo_t *const *extra, int nextra,
                       int nprocs, int ppn, cs_bench_plan_t *plan) CS_MUST_CHECK;

/* Sets plan->cands and plan->ncands to the candidates of every collective on a communicator
 * of nprocs processes, ppn per node: each planned algorithm's variants. CS_ERR_NOMEM, said
 * by `rank` 0, when one collective has more than CS_BENCH_MAX_CANDS. */
int cs_bench_plan_expand(cs_bench_plan_t *plan, int nprocs, int ppn, int rank) CS_MUST_CHECK;

/* --list (rank 0): prints every variant the plan would run (per communicator size when there
 * are several), the sizes of each key, how many refinement points the run may add, the
 * communicator sizes (processes per node, points, share of the budget, estimated time each:
 * cs_bench_plan_size_estimate), the plan's size and its estimated duration. Expands the
 * candidates of each communicator size in turn (with plan->ppn_at). */
int cs_bench_plan_list(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int rank) CS_MUST_CHECK;

/* The estimated time of communicator size index ci: under --budget its share of the
 * measurement pass (the budget less the confirmation share, unless --no-confirm, and the
 * overlap pass's share under --overlap on); without one
 * CS_BENCH_POINT_BUDGET_S per planned and reserved point (an upper bound of the timing, not
 * counting verification). */
double cs_bench_plan_size_estimate(const cs_bench_opts_t *o, const cs_bench_plan_t *plan, int ci);

#endif

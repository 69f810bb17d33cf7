/* Tuning for overlap (docs/nonblocking.md "Tuning for overlap", docs/tuning.md "Overlap"):
 * the nonblocking collectives' candidates measured as an overlapping application sees them,
 * and the nonblocking rules derived from that.
 *
 * The micro-benchmark is LibNBC's (papers/nonblocking-collectives-hoefler-et-al.txt, section
 * 4). At one point (collective, communicator size, bytes), every candidate that can run as a
 * nonblocking operation (core/nb.h cs_nb_issue) and native, the MPI library's own MPI_I<coll>
 * (Open MPI's libnbc), are timed interleaved (a fresh order per repetition, cs_bench_order),
 * each repetition after a barrier, three ways:
 *   - blocking: the blocking call (cs_algo_run_variant; native: PMPI_<Coll>);
 *   - no overlap: the nonblocking call started, then waited for at once (LibNBC's "NBC/BL");
 *   - overlapped: started, then a compute loop of compute_us with a test (cs_nb_test, what
 *     MPI_Test is through libcollsel_pmpi) every CS_BENCH_OVERLAP_TEST_US of computation until
 *     the request completes, then waited for ("NBC/NB", maximum overlap).
 * compute_us is each candidate's own: its no-overlap median (slowest rank) in a pilot of
 * CS_BENCH_OVERLAP_PILOT runs times CS_BENCH_OVERLAP_MARGIN, so that the computation is at least
 * as long as the candidate's no-overlap time, as the paper asks. The compute loop is calibrated
 * once per run (cs_bench_overlap_calibrate): a loop of a known number of iterations of dependent
 * floating-point operations is timed on every rank, and the slowest rank's
 * iterations per microsecond are taken, so that on every rank a loop of compute_us * rate
 * iterations lasts at least compute_us. Each value is the slowest rank's.
 *
 * From them (LibNBC's definitions):
 *   - overhead = overlapped total - the computation done in it (timed around each compute
 *     chunk): the time the process spent inside collsel's and MPI's calls (start, tests,
 *     wait), i.e. the time an overlapping application sees; it includes the part of the
 *     collective the computation did not hide;
 *   - freed CPU share = (no-overlap - overhead) / no-overlap, clamped to [0, 1]: the share of
 *     the operation's own time given back to the application (1: fully hidden, no overhead).
 * The nonblocking rules rank the candidates by overhead against native with the blocking
 * rules' significance (rank-sum p < 0.01 and at least 3 % less, bench/rules.h, metric 'sync'
 * on the overhead samples); adjacent sizes with the same ranking merge. */
#ifndef CS_BENCH_OVERLAP_H
#define CS_BENCH_OVERLAP_H

#include "db.h"
#include "measure.h"
#include "options.h"
#include "plan.h"
#include "progress.h"
#include "run.h"

#include <stdint.h>

/* Microseconds of computation between two tests of the overlapped run. */
#define CS_BENCH_OVERLAP_TEST_US 5.0
/* The overlapped run computes the pilot's largest no-overlap median times this. */
#define CS_BENCH_OVERLAP_MARGIN 1.2
/* Pilot repetitions (no overlap only) that set compute_us. */
#define CS_BENCH_OVERLAP_PILOT 2
/* Repetitions per point: at least MIN (unless the budget is spent first), at most MAX. */
#define CS_BENCH_OVERLAP_MIN_REPS 5
#define CS_BENCH_OVERLAP_MAX_REPS 20
/* Share of --budget the overlap pass may spend (--overlap on); its points without --budget. */
#define CS_BENCH_OVERLAP_SHARE   0.15
#define CS_BENCH_OVERLAP_POINT_S 1.0
/* --overlap on: the sizes of the --sizes grid (not the protocol threshold or refinement
 * points) at least CS_BENCH_OVERLAP_STEP apart (x16: 4, 64, 1K, 16K, 256K, 4M by default);
 * --overlap only: every --sizes size. */
#define CS_BENCH_OVERLAP_STEP 16

/* The collectives measured for overlap, a bit per cs_coll_t, of those in `colls`: every
 * collective whose nonblocking calls collsel serves as one operation (not gatherv, scatterv
 * and alltoallv, whose operations agree on their key first: docs/nonblocking.md). Barrier is
 * measured at one point, 0 bytes; the neighbourhood collectives on the plan's patterns (as the
 * blocking pass: bench/tune.c, plan.h), at the overlap sizes of the --block-sizes grid. */
unsigned cs_bench_overlap_colls(unsigned colls);

/* The sizes of the overlap pass from the plan's sizes[0..n-1] (ascending) into out (capacity
 * n): all of them when `all`, else the first and each next at least CS_BENCH_OVERLAP_STEP times
 * the last kept. Returns how many. */
int cs_bench_overlap_sizes(const uint64_t *sizes, int n, int all, uint64_t *out);

/* The points the overlap pass of options `o` measures with plan `plan` (pure): per
 * communicator size of the plan, each collective of cs_bench_overlap_colls(o->colls) that the
 * plan has algorithms of at each overlap size of the --sizes grid (cs_bench_overlap_sizes),
 * barrier at one point, each neighbourhood collective on each pattern planned at that size
 * (cs_bench_plan_npatterns) at each overlap size of the --block-sizes grid. */
int cs_bench_overlap_points(const cs_bench_opts_t *o, const cs_bench_plan_t *plan);

/* Calibrates the compute loop (collective over comm): *iters_per_us, the slowest rank's. */
int cs_bench_overlap_calibrate(MPI_Comm comm, double *iters_per_us) CS_MUST_CHECK;

/* The overlap pass (collective over `world`): for each communicator size of the plan, each
 * collective of cs_bench_overlap_colls(o->colls) and each size of cs_bench_overlap_sizes,
 * the candidates of the plan measured as above and stored by rank 0 (table overlap; a resumed
 * run skips the points it has). The neighbourhood collectives are measured as the blocking
 * pass measures them (bench/tune.c run_neighbor): on each pattern planned at the size, its
 * communicator made over the size's ranks (cs_bench_pattern_open; its signature stored, table
 * pattern, for the selector to match), `bytes` bytes per block, each point stored with the
 * pattern's name (overlap.pattern). `budget_s` > 0: the whole pass's time, shared over its points;
 * 0: CS_BENCH_OVERLAP_POINT_S per point. `print`: rank 0 prints a table per point on stdout
 * (--overlap only). CS_OK, or the failure, the same on every rank. */
int cs_bench_overlap_pass(const cs_bench_opts_t *o, cs_bench_plan_t *plan, cs_bench_run_t *r,
                          int rank, MPI_Comm world, double budget_s, int print) CS_MUST_CHECK;

/* The nonblocking rules of one key (collective, pattern, communicator size, ppn) from its
 * overlap rows rows[0..n-1] (any order; every size must have a native row, whose algorithm is
 * the collective's native; samples_us may be missing, then the candidate cannot win): at each
 * size the candidates ranked by overhead against native (rank-sum test of the samples, at least
 * 3 % less: cs_stats_is_winner), sizes merged and bounded as cs_bench_rules_at does with
 * thresholds[0..nthresholds-1]; a neighbourhood v or w collective gets one interval for every
 * size, as its blocking rules (cs_bench_rules_one). out[0..*nout-1], the key fields left 0.
 * Errors as cs_bench_rules; CS_ERR_ARG for an unknown collective; CS_ERR_NOMEM. */
int cs_bench_overlap_rules(const cs_db_overlap_t *rows, int n, const uint64_t *thresholds,
                           int nthresholds, cs_rule_t *out, int cap, int *nout) CS_MUST_CHECK;

/* Rank 0: derives the nonblocking rules of every key (collective, pattern, communicator size,
 * ppn) that run `run_id` has overlap rows of (cs_bench_overlap_rules) and stores them for
 * machine `machine_id` with their pattern (table nb_rule, replacing that key's), in one
 * transaction; *nrules rows. */
int cs_bench_overlap_derive(cs_db_t *db, int64_t machine_id, int64_t run_id,
                            const uint64_t *thresholds, int nthresholds, int *nrules) CS_MUST_CHECK;

/* Rank 0: one line for --list: what the overlap pass of options `o` and plan `plan` measures
 * and what it costs. */
void cs_bench_overlap_list(const cs_bench_opts_t *o, const cs_bench_plan_t *plan);

#endif

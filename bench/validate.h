/* collsel-bench --validate: how well the selector chooses, re-measured.
 *
 * The points: for each (collective, communicator size) of the plan, every size the tuning runs
 * measured (grid, threshold and refinement points) and every power of two from 4 B to the
 * largest of them (cs_bench_validate_sizes), so that sizes between tuned points, where a rule
 * interval only extrapolates, are checked too. At every point four candidates are measured
 * interleaved on the same communicator: the native collective (native A), the selector's
 * dispatch through the public API (`<coll>/selected`, what collsel_<coll>() runs), the native
 * collective again as a separate candidate (native B) and the best candidate the tuning runs
 * that made the machine's rules measured there, by the lowest cs_bench_score (rules.h) under
 * the validation's --metric policy (the oracle; skipped when it is native or no longer
 * registered). Native A and B differ only by noise: max(B/A, A/B) is native's
 * run-to-run spread at that point, measured in the same run as the ratios it judges. The whole
 * sweep runs --validate-passes times (default CS_BENCH_VALIDATE_PASSES), each pass with its own
 * interleaving order, and every time is the median of its passes (issue 19's suite: three
 * interleaved pairs, median per size), so that a mode of the machine that lasts seconds
 * decides no point alone. Rank 0 then stores a validation row per point (db.h) with what the
 * selector chose (cs_sel_choose, select.h), the oracle and native B, prints a line per point
 * unless --quiet, and at the end,
 * under each of the two metrics (measure.h: sync and loop; a row has both), the median and
 * worst ratios selected/native and selected/best, the median spread, and the points where
 * selected/native exceeds CS_BENCH_VALIDATE_MARGIN times that point's spread. The ratios are
 * against native A. The oracle travels from rank 0 to the other ranks as data (a registry
 * index and its parameters), never as text. */
#ifndef CS_BENCH_VALIDATE_H
#define CS_BENCH_VALIDATE_H

#include "core/call.h"
#include "measure.h"
#include "options.h"
#include "progress.h"
#include "run.h"

#include <mpi.h>
#include <stddef.h>

/* The best candidate a tuning run measured at one point (rank 0). */
typedef struct cs_bench_best {
    char coll[32], algorithm[128], params[128];
    char pattern[CS_RULE_PATTERN]; /* neighbourhood pattern; "" for the other collectives */
    int comm_size;
    uint64_t bytes;
    double score; /* cs_bench_score under the validation's policy: lowest is best */
} cs_bench_best_t;

/* How far selected/native may exceed native's run-to-run spread at a point before the summary
 * lists the point as slower than native beyond the noise (issue 19's acceptance: "no size
 * above 1.10 beyond the native run-to-run spread"). */
#define CS_BENCH_VALIDATE_MARGIN 1.10

/* One validated point as the summary judges it (rank 0). Index 0 is the sync metric, 1 the
 * loop metric; NaN where that metric, or native B, has no time. */
typedef struct cs_bench_valid_point {
    cs_coll_t coll;
    int comm_size;
    uint64_t bytes;
    double ratio_native[2]; /* selected / native A */
    double spread[2];       /* max(B/A, A/B) of native A and native B */
    double rtt_ns;          /* the core-to-core state (corestate.h): the largest over the passes
                             * of the probe before the point; NaN: not probed */
} cs_bench_valid_point_t;

/* The times of one point in one pass, as cs_bench_validate_point measured them: native A, the
 * selector's dispatch, the oracle (native A's when there is none), native B, under the sync
 * metric (0-3) and the loop metric (4-7); NaN where there is no time. */
enum { CS_VALID_NATIVE, CS_VALID_SELECTED, CS_VALID_ORACLE, CS_VALID_NATIVE_B, CS_VALID_TIMES = 8 };

/* One point over the passes (rank 0): kept until cs_bench_validate_finish stores it. */
typedef struct cs_bench_valid_acc {
    cs_coll_t coll;
    char pattern[CS_RULE_PATTERN];
    int comm_size, ppn;
    uint64_t bytes;
    char choice[256]; /* the selector's choice, for the point's line */
    char sel_algo[128], sel_params[CS_RULE_PARAMS]; /* the same, for the row */
    char oracle_algo[128], oracle_params[sizeof(((cs_bench_cand_t *)0)->params)];
    int failed; /* a pass's dispatch gave a wrong result */
    int n;      /* passes measured */
    double t[CS_BENCH_MAX_PASSES][CS_VALID_TIMES];
    double rtt_ns[CS_BENCH_MAX_PASSES]; /* each pass's core-to-core probe; NaN: none */
} cs_bench_valid_acc_t;

/* The state of a validation run; zero it before cs_bench_validate_start. */
typedef struct cs_bench_validation {
    int pass, passes;          /* the pass being measured (1..), of how many (set before start) */
    cs_bench_valid_acc_t *acc; /* rank 0: every point measured, in the order first measured */
    int nacc, acc_cap, cursor; /* cursor: where the next point is expected in a later pass */
    cs_db_metric_t metric;     /* the policy that picks the best candidate (set before start) */
    cs_bench_best_t *best;     /* rank 0: the tuned runs' best candidates */
    size_t nbest, best_cap;
    double *ratio_native, *ratio_best; /* rank 0: selected/native, selected/best per point */
    int nratios;
    double *loop_ratio_native, *loop_ratio_best; /* the same under the loop metric */
    int nloop_ratios;
    cs_bench_valid_point_t *points; /* rank 0: every stored point, in the order measured */
    int npoints;
} cs_bench_validation_t;

/* Collective over `world`. Rank 0 loads the best candidate of every point measured by the runs
 * that made the rules of run r's machine (room for `npoints` ratios, and one more for every
 * tuned point: the points --validate runs are at most the tuned points and the powers of
 * two up to the largest, which the caller counts into npoints); none: says that a tuning
 * run must come first. Then every rank points the selector at r's database (rank 0's path).
 * CS_ERR_DB on every rank when rank 0 failed. */
int cs_bench_validate_start(cs_bench_validation_t *v, const cs_bench_run_t *r, int npoints,
                            int rank, MPI_Comm world) CS_MUST_CHECK;

/* One validation point in pass v->pass (collective over `sub`, whose ranks call->comm has in
 * the same order): native A, the selector's choice for call->comm, native B and the tuned best
 * for `call`, measured interleaved; rank 0 keeps the times for cs_bench_validate_finish, with
 * `rtt_ns`, the core-to-core state it probed before the point (corestate.h; NaN: none).
 * `pattern` ("" for none) and `key` (the point's size: call->bytes, or a neighbourhood
 * collective's block size) name the point, as the tuning run stored it. A wrong result of the
 * selector's dispatch is reported on stderr at once, and the point is not stored. */
int cs_bench_validate_point(cs_bench_validation_t *v, const cs_bench_opts_t *o,
                            const cs_call_t *call, const char *pattern, uint64_t key,
                            cs_bench_bufs_t *bufs, cs_bench_sync_t *sync, unsigned seed, int ppn,
                            MPI_Comm sub, double rtt_ns,
                            cs_bench_progress_t *progress) CS_MUST_CHECK;

/* Rank 0, after the last pass: stores a row per point, each time the median of its passes
 * (db.h; a point whose dispatch failed in a pass is not stored) and its passes' core-to-core
 * states (table core_state, round = the pass), fills the ratios and points
 * the summary judges, and prints a line per point unless `quiet`. The ratios are of these
 * medians: the median per size over interleaved passes, as issue 19's standard suite takes
 * them. CS_ERR_DB when a row cannot be stored. */
int cs_bench_validate_finish(cs_bench_validation_t *v, cs_bench_run_t *r, int quiet) CS_MUST_CHECK;

/* The sizes --validate runs for one key: tuned[0..ntuned-1] (any order) and every power of
 * two from 4 to the largest of them, ascending and unique, into out[0..cap-1] (*nout).
 * CS_ERR_NOMEM when cap is too small. */
int cs_bench_validate_sizes(const uint64_t *tuned, int ntuned, uint64_t *out, int cap,
                            int *nout) CS_MUST_CHECK;

/* Rank 0: the sizes the tuning runs measured for (coll, comm_size), into out[0..cap-1];
 * returns how many. */
int cs_bench_validate_tuned(const cs_bench_validation_t *v, cs_coll_t coll, int comm_size,
                            uint64_t *out, int cap);

/* Rank 0: native's run-to-run spread under `metric` (0 sync, 1 loop) over the stored points
 * that have it and a ratio selected/native there: their median and worst spread
 * (*median_spread, *worst_spread; NaN when none) and their number (*nspread). Returns how
 * many of them have selected/native above CS_BENCH_VALIDATE_MARGIN times their spread, or
 * CS_ERR_NOMEM. */
int cs_bench_validate_noise(const cs_bench_validation_t *v, int metric, double *median_spread,
                            double *worst_spread, int *nspread);

/* Rank 0: prints the summary, per metric: a line with the median and worst ratios over the
 * points stored, then a line with the median native spread and how many points have
 * selected/native above CS_BENCH_VALIDATE_MARGIN times their spread, followed by one line per
 * such point (collective, communicator size, bytes, ratio, spread, core-to-core state); then
 * the range of the core-to-core states and how many points had a pass in the far one.
 * `oversubscribed` says so in the first lines. Sorts the ratios. */
void cs_bench_validate_summary(cs_bench_validation_t *v, int oversubscribed);

/* Frees what the validation holds. */
void cs_bench_validate_free(cs_bench_validation_t *v);

#endif

/* Verification and timing of the candidates of one plan point (collective, size, communicator).
 *
 * cs_bench_measure():
 *   1. verifies every candidate against the native collective on pseudo-random MPI_INT data,
 *      bit-exact, on all ranks; a candidate that differs or fails is marked `failed` with a
 *      message and never timed; one whose builder returns CS_ERR_NOT_APPLICABLE for this call
 *      on every rank (a requirement only the builder can check, such as a scratch limit) is
 *      marked not `applicable`, neither a failure nor timed;
 *   2. times the rest interleaved under two metrics (docs/tuning.md "Two metrics"). Each
 *      repetition, in its own order (cs_bench_order: a fresh permutation per repetition, so no
 *      candidate always follows the same one):
 *      - sync: every candidate once, each from a start time agreed on a common clock (sync.h);
 *        the sample is the maximum over ranks of end - start;
 *      - loop: then every candidate in the same order as a short back-to-back loop like the
 *        standard micro-benchmark suites' (OSU, IMB): PMPI_Barrier, CS_BENCH_LOOP_WARMUP
 *        untimed {call; PMPI_Barrier}, then CS_BENCH_LOOP_ITERS times {t0 = PMPI_Wtime(); call; t
 * += PMPI_Wtime() - t0; PMPI_Barrier}; the rank's time is t / CS_BENCH_LOOP_ITERS, the sample the
 * mean over ranks, and the maximum over ranks is kept too (rankmax); one reduction per repetition
 * carries every candidate's sync, loop-sum and loop-max values. A rank that learnt a start
 * time too late loses that candidate's synchronised sample of the repetition (the lead then
 * grows); the loop samples do not depend on start times and are all kept;
 *   3. racing (`race` a cs_db_metric_t policy; -1: none): a candidate is retired, no longer
 *      timed, with its samples so far as its measurement, when under a metric without which it
 *      cannot win under the policy (rules.h: under 'both' either metric, else the policy's) it
 *      is clearly slower than native: from CS_BENCH_RACE_MIN samples on, the one-sided
 *      rank-sum test finds native faster (p < CS_STATS_ALPHA) and its median is more than
 *      CS_BENCH_RACE_MARGIN above native's; from CS_BENCH_RACE_EARLY samples on, where
 *      native's median under that metric is CS_BENCH_RACE_EARLY_US or more, its fastest
 *      sample is more than CS_BENCH_RACE_EARLY_MARGIN above native's slowest. The time goes to
 *      the candidates still in the race;
 *   4. stops when every candidate still timed has a median under BOTH metrics with a 95 %
 *      confidence interval within 5 % of it (checked every few repetitions after a minimum),
 *      when only native is left, when `budget_s` is spent and every candidate has a sample of
 *      each metric and there were CS_BENCH_DECIDE_REPS repetitions (or CS_BENCH_OVERSPEND times
 *      `budget_s` is spent), or after `reps_max` repetitions; rank 0 decides and broadcasts
 *      after every repetition, so all ranks stop together;
 *   5. removes outliers (Tukey, 3 IQR) per metric, summarises, and tests each candidate
 *      against native under each metric (one-sided rank-sum; p_value, loop_p_value).
 * Candidate 0 must be the native collective. Collective over `comm`. `progress` (may be NULL)
 * hears which algorithm is being verified, then "timing". */
#ifndef CS_BENCH_MEASURE_H
#define CS_BENCH_MEASURE_H

#include "core/algo.h"
#include "progress.h"
#include "stats.h"
#include "sync.h"
#include "workload.h"

/* Timed calls per back-to-back loop of the loop metric, after CS_BENCH_LOOP_WARMUP untimed
 * ones (see above and docs/tuning.md). */
#define CS_BENCH_LOOP_ITERS  4
#define CS_BENCH_LOOP_WARMUP 1

/* Racing (above): samples of a candidate and of native, under a metric, before the candidate
 * can retire under it, and how much slower than native its median must then be. */
#define CS_BENCH_RACE_MIN    5
#define CS_BENCH_RACE_MARGIN 0.05
/* ... and earlier, from this many samples: the candidate's fastest is more than this margin
 * above native's slowest; only where native's median is at least CS_BENCH_RACE_EARLY_US, the
 * large sizes, whose points may not afford five repetitions of every candidate. Three
 * repetitions of a call of a microsecond take a millisecond and see one mode of an
 * oversubscribed machine: bcast of 8 B, np 4 on 2 cores, lost linear there (native 0.15 us in
 * the loop over 3 repetitions, then 0.6-1.0 us in every validation, where linear took 0.2). */
#define CS_BENCH_RACE_EARLY        3
#define CS_BENCH_RACE_EARLY_MARGIN 0.25
#define CS_BENCH_RACE_EARLY_US     100.0

/* A point's budget is spent: it still goes on until it has this many repetitions (with 6
 * against 6 samples the one-sided rank-sum test can reach p = 1/924; with 3 against 3 no
 * difference is ever significant at 0.01, and 1 MiB points used to stop at 1 to 3), but never
 * beyond CS_BENCH_OVERSPEND times its budget. */
#define CS_BENCH_DECIDE_REPS 6
#define CS_BENCH_OVERSPEND   4.0

typedef struct cs_bench_cand {
    cs_variant_t v;
    char params[128]; /* v's parameters as "key=value,..." (sorted keys; "" when none) */
    char name[192];   /* v's name, "<coll>/<alg>(key=value,...)" */
    int failed;       /* verification failed or the algorithm returned an error */
    char failure[200];
    int applicable; /* 0: CS_ERR_NOT_APPLICABLE for this call; neither verified nor timed */
    int retired;    /* 1: out of the race (step 3 above): timed no longer */
    double *raw;    /* microseconds, one per repetition (max over ranks), as timed */
    size_t nraw;
    double *samples; /* raw, then sorted and without outliers by cs_bench_summarise */
    size_t nsamples;
    cs_stats_summary_t summary; /* after outlier removal */
    size_t outliers;
    double p_value; /* candidate faster than native; 1 for native itself */
    /* The loop metric, as the sync metric above: raw per repetition (mean over ranks), then
     * sorted and without outliers; rankmax per repetition the slowest rank's mean. */
    double *loop_raw, *loop_samples, *loop_rankmax;
    size_t nloop_raw, nloop_samples;
    cs_stats_summary_t loop_summary;
    size_t loop_outliers;
    double loop_rankmax_median; /* median of loop_rankmax; NaN when none */
    double loop_p_value;        /* candidate faster than native under the loop metric */
} cs_bench_cand_t;

/* Sets candidate `c` to variant (a, params); params NULL: the defaults. Clears its results. */
void cs_bench_cand_set(cs_bench_cand_t *c, const cs_algo_t *a, const cs_params_t *params);

/* The order of the candidates in repetition `rep` of a point measured with `seed`: a
 * permutation of 0..n-1 into order[], uniformly drawn (Fisher-Yates over splitmix64), the same
 * on every rank and machine. */
void cs_bench_order(unsigned seed, int rep, int *order, int n);

/* Verifies, times and summarises cands[0..ncand-1] (cands[0] native) for `call`, whose
 * buffers are `b`. Allocates each candidate's raw and samples arrays (freed by
 * cs_bench_cands_free). Returns CS_ERR_MPI or CS_ERR_NOMEM on failure of the run itself; a wrong
 * candidate is not an error. */
int cs_bench_measure(cs_bench_cand_t *cands, int ncand, const cs_call_t *call, cs_bench_bufs_t *b,
                     double budget_s, int reps_max, int race, unsigned seed, cs_bench_sync_t *sync,
                     MPI_Comm comm, cs_bench_progress_t *progress) CS_MUST_CHECK;

/* Removes outliers (Tukey, 3 IQR) from each timed candidate's samples, summarises them and
 * tests each against cands[0] (native) with the one-sided rank-sum test; the same for the
 * loop metric where loop samples exist (nloop_samples > 0; loop_rankmax may be NULL). Reads
 * `samples` and `loop_samples`, which it sorts and compacts; the raw arrays stay as timed. */
int cs_bench_summarise(cs_bench_cand_t *cands, int ncand) CS_MUST_CHECK;

/* Frees the samples of the candidates and resets their results. */
void cs_bench_cands_free(cs_bench_cand_t *cands, int ncand);

#endif

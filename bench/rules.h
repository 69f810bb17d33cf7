/* From measurements to rules: who wins at each size, and size intervals with one ranking.
 *
 * At one size the ranking is: every candidate that beats native under the metric policy in
 * force (cs_db_metric_t, collsel-bench --metric), then native, which therefore always ends a
 * ranked list and is its winner when nothing beats it. "Beats" uses cs_stats_is_winner
 * (rank-sum p < 0.01 and at least 3 % faster):
 *   - 'sync': beats native under the synchronised metric;
 *   - 'loop': beats native under the loop metric;
 *   - 'both' (the default): beats native under one metric and is not slower under the other
 *     (its median at most 3 % above native's there), so a choice never loses under either
 *     metric and wins under at least one; a loop win also stands when the synchronised
 *     difference is not significant (rank-sum p for "faster" at most 1 - alpha), since the
 *     synchronised samples of small calls on a loaded machine spread too widely to say. A run with
 *     more processes per node than cores decides 'both' as 'loop' (cs_bench_policy): ranks
 *     that share a core cannot start together, and what the synchronised metric measures there
 *     changes from run to run (docs/tuning.md, "Synchronised starts on an oversubscribed
 *     node").
 * Wherever the loop metric counts ('loop', 'both'), a winner's loop upper quartile must also be
 * at most 3 % above native's: the suites users run report a mean over many calls, and a
 * candidate that is faster in its typical repetition but has a heavy slow mode (measured here:
 * binomial reduce of 1 MiB, median 0.82 x native, upper quartile 3.1 x) loses on that mean.
 * The winners are ordered by the policy's score (cs_bench_score), lowest first. An entry
 * without loop data (measured before the loop metric existed) cannot win under 'loop' and is
 * judged by the synchronised metric alone under 'both'. Adjacent sizes whose rankings
 * name the same algorithms in the same order merge into one interval. Interval boundaries lie
 * at the geometric mean of neighbouring measured sizes, unless a protocol threshold of the MPI
 * library (thresholds.h) lies between them: then at the threshold; the first interval starts at 0
 * bytes and the last is unbounded (hi = CS_RULE_UNBOUNDED), so the intervals of one (collective,
 * communicator size, processes per node) cover every size exactly once. The rows are cs_rule_t
 * (core/rule.h), the one rule type that the database, the selector and the report share. */
#ifndef CS_BENCH_RULES_H
#define CS_BENCH_RULES_H

#include "core/rule.h"
#include "core/status.h"
#include "db.h"

#include <stddef.h>
#include <stdint.h>

#define CS_BENCH_MAX_RANKED 64

/* Confirmation rounds a run can have (collsel-bench --confirm-rounds; docs/tuning.md). */
#define CS_BENCH_MAX_ROUNDS 4

/* One measured, verified candidate at one size. */
typedef struct cs_bench_entry {
    const char *algorithm; /* key, "<coll>/<alg>" */
    const char *params;    /* "key=value,..." or "" */
    double median_us;
    double p_value; /* faster than native; ignored for native */
    int native;
    int has_loop;          /* 1: the loop metric below was measured */
    double loop_median_us; /* the loop metric's median and rank-sum p-value against native */
    double loop_p_value;
    double loop_q3_us; /* the loop metric's upper quartile; 0 or NaN: unknown */
    /* The confirmation rounds (docs/tuning.md "Confirmation"): bit r set when this entry was
     * measured again in round r + 1, with its medians of that round in confirm_*[r] (loop NaN:
     * not measured). */
    unsigned has_confirm;
    double confirm_median_us[CS_BENCH_MAX_ROUNDS], confirm_loop_median_us[CS_BENCH_MAX_ROUNDS];
    /* 1: this candidate's result depends on the machine's core-to-core state and it was not
     * measured here in every state (cs_bench_core_unproven): it cannot win at this size. */
    int unproven;
} cs_bench_entry_t;

/* Everything measured at one size; exactly one entry must be native. */
typedef struct cs_bench_size {
    uint64_t bytes;
    const cs_bench_entry_t *entries;
    int n;
    cs_db_metric_t metric; /* the policy (0: sync) */
    /* Bit r set: confirmation round r + 1 measured this size; then a candidate replaces native
     * only if, in every such round, it was measured there too and beat native again under the
     * metric it won under (its median at least CS_STATS_MIN_GAIN below native's) or, under
     * 'both', in the loop; under 'both', a synchronised win that did not repeat in the loop
     * must also be at most CS_STATS_MIN_GAIN slower in the loop again (a loop win's
     * synchronised "not slower" is the first pass's: synchronised medians of short
     * confirmations are too noisy, docs/tuning.md). 0: no round measured it. */
    unsigned confirmed;
    /* The core-to-core state (corestate.h) of the launches that measured this size: bit r set
     * in `near` or `far` when launch r (0 the measurement pass, r >= 1 confirmation round r)
     * measured it in that state; both 0: not probed. */
    unsigned near, far;
} cs_bench_size_t;

/* The policy a run decides under: its --metric, except 'both' on a run with more processes per
 * node than cores, which decides as 'loop' (above). */
static inline cs_db_metric_t cs_bench_policy(cs_db_metric_t metric, int oversubscribed) {
    return metric == CS_DB_METRIC_BOTH && oversubscribed ? CS_DB_METRIC_LOOP : metric;
}

/* The score that orders winners under policy `m`: the synchronised median under 'sync', the
 * loop median under 'loop' (INFINITY without loop data), and their geometric mean under 'both'
 * (the synchronised median without loop data). --validate picks its "best" candidate by it. */
double cs_bench_score(double median_us, double loop_median_us, int has_loop, cs_db_metric_t m);

/* Ranks the entries of `s`: order[0..*n-1] are indices into s->entries, winner first, native
 * last. CS_ERR_ARG when s has no native entry or more than CS_BENCH_MAX_RANKED entries. */
int cs_bench_rank(const cs_bench_size_t *s, int *order, int *n) CS_MUST_CHECK;

/* cs_bench_core_unproven: two sizes at most this factor apart are neighbours; a launch in which
 * a candidate's score was more than CS_BENCH_CORE_LOSS times native's is a loss. */
#define CS_BENCH_CORE_NEIGHBOUR 4
#define CS_BENCH_CORE_LOSS      1.10

/* The core-to-core state (docs/tuning.md "The host moves the cores"), over the sizes of one key,
 * sizes[0..nsizes-1]. Every launch that measured a candidate at a size (the measurement pass; a
 * confirmation round that measured it) gives an outcome in that launch's state: won (its score
 * under the policy, cs_bench_score, at least CS_STATS_MIN_GAIN below native's in the same
 * launch) or lost (above CS_BENCH_CORE_LOSS times native's). A candidate that won in one state
 * and lost in the other at one size depends on the state there, and the rounds already keep it
 * from winning at that size (it must win in every launch); at the other sizes at most
 * CS_BENCH_CORE_NEIGHBOUR apart from it, where it was measured in one state only and would win,
 * its win is unproven: mark[i * CS_BENCH_MAX_RANKED + j] (entry j of size i) is set to 1, every
 * other mark to 0. Returns how many were set. */
int cs_bench_core_unproven(const cs_bench_size_t *sizes, int nsizes, unsigned char *mark);

/* Builds the rules of sizes[0..nsizes-1] (ascending bytes) into out[0..cap-1]; *nout rows.
 * Each row gets its interval, rank, variant, medians (its own and native's) and p-value: a
 * winner's of the metric it won under (under 'both' the synchronised one when it won under
 * each), native's (p-value NaN) of the policy's primary metric (loop under 'loop', else sync);
 * the key
 * (machine_id, run_id, coll, comm_size, ppn) is left 0 for the caller to set. Medians and
 * p-values of a merged interval are those of its first size. Where the first choice changes
 * between measured sizes a and b more than x2 apart (a gap refinement did not bisect), the
 * sizes between go native: a candidate's interval ends at its own measured size, and between
 * two candidates' intervals a native-only row is added for (a, b) with native's values at a
 * (docs/tuning.md, step 5). At most (entries of all sizes) + nsizes rows. CS_ERR_ARG on
 * unsorted sizes, a size without native, or an algorithm or params text longer than a
 * cs_rule_t holds (never truncated); CS_ERR_NOMEM when cap is too small. */
int cs_bench_rules(const cs_bench_size_t *sizes, int nsizes, cs_rule_t *out, int cap,
                   int *nout) CS_MUST_CHECK;

/* cs_bench_rules with the MPI library's protocol thresholds thresholds[0..nthresholds-1]
 * (ascending bytes; may be NULL when 0): a boundary between measured sizes a < b that has a
 * threshold t with a <= t < b is t + 1 (sizes up to t below it, larger ones above; the
 * threshold nearest the geometric mean when there are several), never the geometric mean. */
int cs_bench_rules_at(const cs_bench_size_t *sizes, int nsizes, const uint64_t *thresholds,
                      int nthresholds, cs_rule_t *out, int cap, int *nout) CS_MUST_CHECK;

/* One interval for every size, [0, unbounded): the rules of a neighbourhood v or w collective
 * (docs/neighbor.md, "Selection key of the v and w forms"), whose calls can have different keys
 * on different ranks, so that every rank of a pattern chooses alike whatever its own key. A
 * candidate is ranked only when it beats native (cs_bench_rank's winners) at every one of
 * sizes[0..nsizes-1]; those are ordered by the sum over the sizes of the logarithm of their
 * policy score (cs_bench_score: the geometric mean), then native ends the list. Medians and
 * p-values are those of the first size, of the metric the policy ranks by (loop under
 * 'loop', else sync). Errors as cs_bench_rules; *nout 0 when nsizes is 0. */
int cs_bench_rules_one(const cs_bench_size_t *sizes, int nsizes, cs_rule_t *out, int cap,
                       int *nout) CS_MUST_CHECK;

#endif

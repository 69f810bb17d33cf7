/* Statistics for the tuning run: sample summaries, outlier removal, the median's confidence
 * interval and the rank-sum test that decides whether a candidate replaces the native collective.
 * Pure C, no MPI, no allocation. Samples are repetition times in microseconds (any unit works).
 *
 * Methods (DESIGN.md "The tuning run"; ReproMPI, Hoefler & Belli SC'15):
 *
 *   Quantiles    Hyndman & Fan type 7 (R's default, NumPy's "linear"): for a sorted sample
 *                x[0..n-1] and probability p, h = (n - 1) p, i = floor(h), and
 *                Q(p) = x[i] + (h - i) (x[i+1] - x[i])  (Q(p) = x[n-1] when i = n - 1).
 *                Q(0) = min, Q(1) = max, Q(0.5) = the usual median.
 *
 *   Outliers     Tukey's fences with k = 3 ("far out"): values outside
 *                [q1 - k IQR, q3 + k IQR], IQR = q3 - q1, are removed, once (not iterated).
 *                Values on a fence are kept. When IQR = 0 every value that differs from q1
 *                is removed: that is Tukey's rule, and timing samples rarely tie.
 *
 *   Median CI    Distribution-free, from order statistics, computed exactly from the
 *                binomial distribution (no normal approximation). With B ~ Binomial(n, 1/2)
 *                and alpha = 1 - confidence, the interval is [x_(j), x_(k)] (1-based order
 *                statistics) with j the largest rank such that P(B <= j - 1) <= alpha / 2 and
 *                k = n + 1 - j; its coverage 1 - 2 P(B <= j - 1) is at least `confidence`.
 *                When even j = 1 fails (2^-n > alpha / 2, i.e. n <= 5 at 95 %) no interval
 *                exists and it is reported as unavailable. Examples at 95 %: n = 6 -> (1, 6),
 *                n = 20 -> (6, 15), n = 100 -> (40, 61).
 *                "Stable" means the whole interval lies within rel_precision of the median:
 *                lo >= (1 - r) median and hi <= (1 + r) median (which implies
 *                (hi - lo) / 2 <= r median); r = 0.05 in the tuning run.
 *
 *   Rank sum     Wilcoxon-Mann-Whitney, one-sided: H1 = the candidate `a` is stochastically
 *                smaller (faster) than the native `b`. Ties get mid-ranks. W = the rank sum of a
 *                in the combined sample, U = W - n_a (n_a + 1) / 2 = #{a_i > b_j} +
 *                #{a_i = b_j} / 2; small U favours H1 and p = P(U <= U_observed) under H0.
 *                - Exact when n_a <= CS_STATS_EXACT_MAX and n_b <= CS_STATS_EXACT_MAX and there
 *                  are no ties: the null distribution of W is counted by dynamic programming
 *                  over the rank sums of all C(n_a + n_b, n_a) subsets.
 *                - Otherwise the normal approximation with tie and continuity correction:
 *                  mean n_a n_b / 2, variance n_a n_b / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1)))
 *                  with N = n_a + n_b and t the size of each tie group,
 *                  z = (U - mean + 1/2) / sd, p = Phi(z). When every value is tied (sd = 0) the
 *                  test has no evidence and p = 1.
 *
 *   Winner       A candidate replaces native only if p < alpha (0.01) AND
 *                median(a) <= (1 - min_gain) median(b) (min_gain 0.03).
 *
 * Who sorts: cs_stats_summarize, cs_stats_remove_outliers and cs_stats_sort sort the caller's
 * array in place (ascending); every other function takes an already sorted sample and only
 * reads it. NaN is rejected (CS_ERR_ARG) everywhere. */
#ifndef CS_STATS_H
#define CS_STATS_H

#include "core/status.h"

#include <stddef.h>

/* The tuning run's parameters (DESIGN.md, issue 3). */
#define CS_STATS_TUKEY_K       3.0  /* outlier fences at k IQR beyond the quartiles */
#define CS_STATS_CONFIDENCE    0.95 /* confidence of the median's interval */
#define CS_STATS_REL_PRECISION 0.05 /* "stable": the interval within 5 % of the median */
#define CS_STATS_ALPHA         0.01 /* significance level of the rank-sum test */
#define CS_STATS_MIN_GAIN      0.03 /* a winner is at least 3 % faster than native */
#define CS_STATS_EXACT_MAX     10   /* exact rank-sum distribution up to this size per sample */

/* Five-number summary of a sample (type 7 quartiles). */
typedef struct cs_stats_summary {
    size_t n;
    double min, q1, median, q3, max;
} cs_stats_summary_t;

/* Confidence interval of the median: [lo, hi] = [x_(lo_rank), x_(hi_rank)], ranks 1-based. */
typedef struct cs_stats_ci {
    int available;   /* 0: the sample is too small for this confidence; ranks 0, lo = hi = NaN */
    size_t lo_rank;  /* j */
    size_t hi_rank;  /* k = n + 1 - j */
    double lo, hi;   /* the interval's ends */
    double coverage; /* exact coverage 1 - 2 P(B <= j - 1) >= confidence; NaN if unavailable */
} cs_stats_ci_t;

/* Result of the one-sided rank-sum test of "a is smaller than b". */
typedef struct cs_stats_rank_sum {
    double w;  /* rank sum of a (mid-ranks for ties) */
    double u;  /* Mann-Whitney U of a: W - n_a (n_a + 1) / 2, in [0, n_a n_b] */
    double z;  /* normal-approximation z with continuity correction; 0 when exact */
    double p;  /* one-sided p-value P(U <= u) under H0 */
    int exact; /* 1: exact distribution; 0: normal approximation */
    int ties;  /* 1 if the combined sample has tied values */
} cs_stats_rank_sum_t;

/* Sorts x[0..n-1] ascending in place. CS_ERR_ARG if x is NULL with n > 0 or holds a NaN
 * (x is left unchanged then). */
int cs_stats_sort(double *x, size_t n) CS_MUST_CHECK;

/* Type 7 quantile at probability `prob` (0 <= prob <= 1) of the sorted sample
 * sorted[0..n-1], stored in *out. Only reads the sample. CS_ERR_ARG if n = 0, prob is out of
 * range or a pointer is NULL (*out untouched). */
int cs_stats_quantile(const double *sorted, size_t n, double prob, double *out) CS_MUST_CHECK;

/* Sorts x[0..n-1] in place and stores its size, min, type 7 quartiles and max in *out.
 * CS_ERR_ARG if n = 0, a pointer is NULL or x holds a NaN (x and *out unchanged then). */
int cs_stats_summarize(double *x, size_t n, cs_stats_summary_t *out) CS_MUST_CHECK;

/* Tukey outlier removal with fences at k IQR (k >= 0; CS_STATS_TUKEY_K in the tuning run).
 * Sorts x[0..n-1] in place, removes the values outside [q1 - k IQR, q3 + k IQR] and moves the
 * kept ones to x[0..n-removed-1], still sorted; x[n-removed..n-1] is then unspecified.
 * *removed receives the number removed. At least one value is kept when n >= 3 or k >= 1/2
 * (for n >= 3, x[ceil((n - 1) / 4)] lies in [q1, q3]). n = 0 is allowed (nothing removed).
 * CS_ERR_ARG if a pointer is NULL, k is negative or not finite, or x holds a NaN (x unchanged
 * then). */
int cs_stats_remove_outliers(double *x, size_t n, double k, size_t *removed) CS_MUST_CHECK;

/* The 1-based ranks (j, k) of the exact distribution-free confidence interval of the median of
 * n values (see the header comment). Sets *lo_rank = *hi_rank = 0 when no interval exists for
 * this n (then *coverage is NaN). `coverage` may be NULL. CS_ERR_ARG unless
 * 0 < confidence < 1 and the rank pointers are non-NULL. */
int cs_stats_median_ci_ranks(size_t n, double confidence, size_t *lo_rank, size_t *hi_rank,
                             double *coverage) CS_MUST_CHECK;

/* Confidence interval of the median of the sorted sample sorted[0..n-1]; only reads it.
 * ci->available = 0 when n is too small for `confidence` (including n = 0); that is not an
 * error. CS_ERR_ARG unless 0 < confidence < 1, ci is non-NULL and sorted is non-NULL when
 * n > 0. */
int cs_stats_median_ci(const double *sorted, size_t n, double confidence,
                       cs_stats_ci_t *ci) CS_MUST_CHECK;

/* The adaptive-repetition stopping test: 1 if the interval is available and lies within
 * rel_precision of the median (ci->lo >= (1 - r) median and ci->hi <= (1 + r) median),
 * else 0. Never fails: a NULL ci, an unavailable interval, a negative r or a non-positive
 * median give 0. */
int cs_stats_is_stable(const cs_stats_ci_t *ci, double median, double rel_precision);

/* One-sided Wilcoxon-Mann-Whitney test that the candidate a[0..na-1] is stochastically
 * smaller than the native b[0..nb-1] (see the header comment for the variants). Both samples
 * must be sorted ascending (cs_stats_summarize and cs_stats_remove_outliers leave them so);
 * they are only read. CS_ERR_ARG if na or nb is 0, a pointer is NULL, or a sample is unsorted
 * or holds a NaN (*out untouched then). */
int cs_stats_rank_sum(const double *a, size_t na, const double *b, size_t nb,
                      cs_stats_rank_sum_t *out) CS_MUST_CHECK;

/* The winner rule: 1 if the candidate replaces native, i.e. p_value < alpha and
 * median_candidate <= (1 - min_gain) median_native; else 0. Never fails: NaN arguments give 0.
 * The tuning run uses alpha = CS_STATS_ALPHA and min_gain = CS_STATS_MIN_GAIN. */
int cs_stats_is_winner(double p_value, double median_candidate, double median_native, double alpha,
                       double min_gain);

#endif

/* Statistics for the tuning run (see stats.h for the methods). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest rank sum of CS_STATS_EXACT_MAX ranks out of 1..2 CS_STATS_EXACT_MAX. */
#define EXACT_MAXSUM                                                                               \
    (CS_STATS_EXACT_MAX * 2 * CS_STATS_EXACT_MAX -                                                 \
     CS_STATS_EXACT_MAX * (CS_STATS_EXACT_MAX - 1) / 2)

static int cmp_double(const void *pa, const void *pb) {
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

static int has_nan(const double *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i])) {
            return 1;
        }
    }
    return 0;
}

/* 1 if x[0..n-1] is ascending and NaN-free. */
static int is_sorted(const double *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]) || (i > 0 && x[i] < x[i - 1])) {
            return 0;
        }
    }
    return 1;
}

/* Type 7 quantile of a non-empty sorted sample; prob in [0, 1]. */
static double quantile7(const double *x, size_t n, double prob) {
    double h = (double)(n - 1) * prob;
    size_t i = (size_t)floor(h);
    if (i >= n - 1) {
        return x[n - 1];
    }
    return x[i] + (h - (double)i) * (x[i + 1] - x[i]);
}

int cs_stats_sort(double *x, size_t n) {
    if (n == 0) {
        return CS_OK;
    }
    if (x == NULL || has_nan(x, n)) {
        return CS_ERR_ARG;
    }
    qsort(x, n, sizeof(*x), cmp_double);
    return CS_OK;
}

int cs_stats_quantile(const double *sorted, size_t n, double prob, double *out) {
    if (sorted == NULL || out == NULL || n == 0 || !(prob >= 0.0 && prob <= 1.0)) {
        return CS_ERR_ARG;
    }
    *out = quantile7(sorted, n, prob);
    return CS_OK;
}

int cs_stats_summarize(double *x, size_t n, cs_stats_summary_t *out) {
    if (x == NULL || out == NULL || n == 0) {
        return CS_ERR_ARG;
    }
    int rc = cs_stats_sort(x, n);
    if (rc < 0) {
        return rc;
    }
    out->n = n;
    out->min = x[0];
    out->q1 = quantile7(x, n, 0.25);
    out->median = quantile7(x, n, 0.5);
    out->q3 = quantile7(x, n, 0.75);
    out->max = x[n - 1];
    return CS_OK;
}

int cs_stats_remove_outliers(double *x, size_t n, double k, size_t *removed) {
    if (removed == NULL || (x == NULL && n > 0) || !(k >= 0.0) || isinf(k)) {
        return CS_ERR_ARG;
    }
    if (n == 0) {
        *removed = 0;
        return CS_OK;
    }
    int rc = cs_stats_sort(x, n);
    if (rc < 0) {
        return rc;
    }
    double q1 = quantile7(x, n, 0.25), q3 = quantile7(x, n, 0.75);
    double lo = q1 - k * (q3 - q1), hi = q3 + k * (q3 - q1);
    /* Sorted, so the kept values are one run x[first..last). */
    size_t first = 0, last = n;
    while (first < n && x[first] < lo) {
        first++;
    }
    while (last > first && x[last - 1] > hi) {
        last--;
    }
    if (first > 0) {
        memmove(x, x + first, (last - first) * sizeof(*x));
    }
    *removed = n - (last - first);
    return CS_OK;
}

int cs_stats_median_ci_ranks(size_t n, double confidence, size_t *lo_rank, size_t *hi_rank,
                             double *coverage) {
    if (lo_rank == NULL || hi_rank == NULL || !(confidence > 0.0 && confidence < 1.0)) {
        return CS_ERR_ARG;
    }
    /* j = number of leading terms of the Binomial(n, 1/2) pmf whose sum stays <= alpha / 2.
     * The pmf is stepped in log space (pmf(i+1) = pmf(i) (n - i) / (i + 1)) because
     * pmf(0) = 2^-n underflows for large n. The sum reaches 1/2 by i = n/2 > alpha / 2, so
     * j <= n/2 and j < k = n + 1 - j. */
    double half_alpha = (1.0 - confidence) / 2.0;
    double logpmf = -(double)n * log(2.0), cdf = 0.0;
    size_t j = 0;
    while (j <= n / 2) {
        double pmf = exp(logpmf);
        if (cdf + pmf > half_alpha) {
            break;
        }
        cdf += pmf;
        logpmf += log((double)(n - j) / (double)(j + 1));
        j++;
    }
    if (j > n / 2) {
        j = n / 2;
    }
    if (j == 0) {
        *lo_rank = *hi_rank = 0;
        if (coverage != NULL) {
            *coverage = NAN;
        }
        return CS_OK;
    }
    *lo_rank = j;
    *hi_rank = n + 1 - j;
    if (coverage != NULL) {
        *coverage = 1.0 - 2.0 * cdf;
    }
    return CS_OK;
}

int cs_stats_median_ci(const double *sorted, size_t n, double confidence, cs_stats_ci_t *ci) {
    if (ci == NULL || (sorted == NULL && n > 0)) {
        return CS_ERR_ARG;
    }
    size_t j = 0, k = 0;
    double coverage = NAN;
    int rc = cs_stats_median_ci_ranks(n, confidence, &j, &k, &coverage);
    if (rc < 0) {
        return rc;
    }
    ci->available = j > 0;
    ci->lo_rank = j;
    ci->hi_rank = k;
    ci->lo = j > 0 ? sorted[j - 1] : NAN;
    ci->hi = j > 0 ? sorted[k - 1] : NAN;
    ci->coverage = coverage;
    return CS_OK;
}

int cs_stats_is_stable(const cs_stats_ci_t *ci, double median, double rel_precision) {
    if (ci == NULL || !ci->available || !(rel_precision >= 0.0) || !(median > 0.0)) {
        return 0;
    }
    return ci->lo >= (1.0 - rel_precision) * median && ci->hi <= (1.0 + rel_precision) * median;
}

/* Exact one-sided p-value P(W <= w) of the rank sum W of na values drawn without ties from
 * ranks 1..na+nb, both sizes <= CS_STATS_EXACT_MAX. count[m][s] = number of m-subsets of the
 * ranks seen so far whose sum is s; adding rank r: count[m][s] += count[m-1][s-r]. */
static double exact_p(size_t na, size_t nb, double w) {
    const size_t cols = EXACT_MAXSUM + 1;
    double count[CS_STATS_EXACT_MAX + 1][EXACT_MAXSUM + 1];
    size_t total = na + nb;
    memset(count, 0, sizeof(count));
    count[0][0] = 1.0;
    for (size_t r = 1; r <= total; r++) {
        for (size_t m = r < na ? r : na; m >= 1; m--) {
            for (size_t s = cols - 1; s >= r; s--) {
                count[m][s] += count[m - 1][s - r];
            }
        }
    }
    double below = 0.0, all = 0.0;
    for (size_t s = 0; s < cols; s++) {
        all += count[na][s];
        if ((double)s <= w) {
            below += count[na][s];
        }
    }
    return below / all;
}

int cs_stats_rank_sum(const double *a, size_t na, const double *b, size_t nb,
                      cs_stats_rank_sum_t *out) {
    if (a == NULL || b == NULL || out == NULL || na == 0 || nb == 0 || !is_sorted(a, na) ||
        !is_sorted(b, nb)) {
        return CS_ERR_ARG;
    }
    /* Merge walk over the two sorted samples, one tie group (equal values) at a time: the
     * group occupies ranks pos+1..pos+t and each member gets the mid-rank pos + (t + 1) / 2. */
    size_t i = 0, j = 0, pos = 0;
    double w = 0.0, tie_sum = 0.0;
    while (i < na || j < nb) {
        double v = (j == nb || (i < na && a[i] <= b[j])) ? a[i] : b[j];
        size_t ca = 0, cb = 0;
        while (i < na && a[i] == v) {
            i++;
            ca++;
        }
        while (j < nb && b[j] == v) {
            j++;
            cb++;
        }
        double t = (double)(ca + cb);
        w += (double)ca * ((double)pos + (t + 1.0) / 2.0);
        tie_sum += t * t * t - t;
        pos += ca + cb;
    }
    double dna = (double)na, dnb = (double)nb, dn = dna + dnb;
    out->w = w;
    out->u = w - dna * (dna + 1.0) / 2.0;
    out->ties = tie_sum > 0.0;
    out->exact = !out->ties && na <= CS_STATS_EXACT_MAX && nb <= CS_STATS_EXACT_MAX;
    if (out->exact) {
        out->z = 0.0;
        out->p = exact_p(na, nb, w);
        return CS_OK;
    }
    double mean = dna * dnb / 2.0;
    double var = dna * dnb / 12.0 * ((dn + 1.0) - tie_sum / (dn * (dn - 1.0)));
    if (!(var > 0.0)) {
        out->z = 0.0;
        out->p = 1.0;
        return CS_OK;
    }
    out->z = (out->u - mean + 0.5) / sqrt(var);
    out->p = 0.5 * erfc(-out->z / sqrt(2.0));
    if (out->p > 1.0) {
        out->p = 1.0;
    }
    return CS_OK;
}

int cs_stats_is_winner(double p_value, double median_candidate, double median_native, double alpha,
                       double min_gain) {
    return p_value < alpha && median_candidate <= (1.0 - min_gain) * median_native;
}

/* Unit tests of bench/stats.c against hand-computed cases (the arithmetic is in the comments).
 * No MPI. */
#include "stats.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#define TOL 1e-9

/* --- quantiles (type 7: h = (n - 1) p, x[i] + (h - i)(x[i+1] - x[i]), i = floor(h)) --------- */

static double q7(const double *x, size_t n, double p) {
    double v = NAN;
    ck_assert_int_eq(cs_stats_quantile(x, n, p, &v), CS_OK);
    return v;
}

START_TEST(quantile_five) {
    /* n = 5: h = 4p. p = .25 -> h = 1 -> 2; p = .5 -> 3; p = .75 -> 4;
     * p = .1 -> h = .4 -> 1 + .4 (2 - 1) = 1.4; p = .9 -> h = 3.6 -> 4.6. */
    const double x[] = {1, 2, 3, 4, 5};
    ck_assert_double_eq_tol(q7(x, 5, 0.0), 1.0, TOL);
    ck_assert_double_eq_tol(q7(x, 5, 0.1), 1.4, TOL);
    ck_assert_double_eq_tol(q7(x, 5, 0.25), 2.0, TOL);
    ck_assert_double_eq_tol(q7(x, 5, 0.5), 3.0, TOL);
    ck_assert_double_eq_tol(q7(x, 5, 0.75), 4.0, TOL);
    ck_assert_double_eq_tol(q7(x, 5, 0.9), 4.6, TOL);
    ck_assert_double_eq_tol(q7(x, 5, 1.0), 5.0, TOL);
}
END_TEST

START_TEST(quantile_four) {
    /* n = 4: h = 3p. p = .25 -> h = .75 -> 1 + .75 = 1.75; p = .5 -> h = 1.5 -> 2.5;
     * p = .75 -> h = 2.25 -> 3 + .25 = 3.25. */
    const double x[] = {1, 2, 3, 4};
    ck_assert_double_eq_tol(q7(x, 4, 0.25), 1.75, TOL);
    ck_assert_double_eq_tol(q7(x, 4, 0.5), 2.5, TOL);
    ck_assert_double_eq_tol(q7(x, 4, 0.75), 3.25, TOL);
    ck_assert_double_eq_tol(q7(x, 4, 1.0), 4.0, TOL);
}
END_TEST

START_TEST(quantile_one_and_two) {
    /* n = 1: h = 0 for every p -> the element. n = 2 {1, 3}: h = p -> 1 + 2p:
     * q1 = 1.5, median = 2, q3 = 2.5. */
    const double one[] = {7};
    const double two[] = {1, 3};
    ck_assert_double_eq_tol(q7(one, 1, 0.0), 7.0, TOL);
    ck_assert_double_eq_tol(q7(one, 1, 0.5), 7.0, TOL);
    ck_assert_double_eq_tol(q7(one, 1, 1.0), 7.0, TOL);
    ck_assert_double_eq_tol(q7(two, 2, 0.25), 1.5, TOL);
    ck_assert_double_eq_tol(q7(two, 2, 0.5), 2.0, TOL);
    ck_assert_double_eq_tol(q7(two, 2, 0.75), 2.5, TOL);
}
END_TEST

START_TEST(summarize_sorts_in_place) {
    double x[] = {5, 1, 4, 2, 3};
    cs_stats_summary_t s;
    ck_assert_int_eq(cs_stats_summarize(x, 5, &s), CS_OK);
    ck_assert_uint_eq(s.n, 5);
    ck_assert_double_eq_tol(s.min, 1.0, TOL);
    ck_assert_double_eq_tol(s.q1, 2.0, TOL);
    ck_assert_double_eq_tol(s.median, 3.0, TOL);
    ck_assert_double_eq_tol(s.q3, 4.0, TOL);
    ck_assert_double_eq_tol(s.max, 5.0, TOL);
    for (int i = 0; i < 5; i++) {
        ck_assert_double_eq(x[i], (double)(i + 1));
    }
}
END_TEST

START_TEST(bad_arguments) {
    double x[] = {1, 2, 3};
    double nan_x[] = {1, NAN, 3};
    double v = 0.0;
    size_t removed = 0;
    cs_stats_summary_t s;
    ck_assert_int_eq(cs_stats_quantile(x, 0, 0.5, &v), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_quantile(x, 3, -0.1, &v), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_quantile(x, 3, 1.1, &v), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_quantile(x, 3, NAN, &v), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_summarize(x, 0, &s), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_summarize(nan_x, 3, &s), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_sort(nan_x, 3), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_remove_outliers(nan_x, 3, 3.0, &removed), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_remove_outliers(x, 3, -1.0, &removed), CS_ERR_ARG);
    /* NaN input leaves the array as it was. */
    ck_assert_double_eq(nan_x[0], 1.0);
    ck_assert(isnan(nan_x[1]));
    ck_assert_double_eq(nan_x[2], 3.0);
}
END_TEST

/* --- Tukey 3 x IQR ----------------------------------------------------------------------- */

START_TEST(tukey_high_outlier) {
    /* Sorted {10..18, 100}, n = 10: q1: h = 9 * .25 = 2.25 -> 12 + .25 = 12.25;
     * q3: h = 6.75 -> 16 + .75 = 16.75; IQR = 4.5; fences 12.25 - 13.5 = -1.25 and
     * 16.75 + 13.5 = 30.25 -> 100 is removed, 10..18 kept (sorted). */
    double x[] = {13, 100, 10, 18, 11, 16, 12, 17, 14, 15};
    size_t removed = 0;
    ck_assert_int_eq(cs_stats_remove_outliers(x, 10, CS_STATS_TUKEY_K, &removed), CS_OK);
    ck_assert_uint_eq(removed, 1);
    for (int i = 0; i < 9; i++) {
        ck_assert_double_eq(x[i], (double)(10 + i));
    }
}
END_TEST

START_TEST(tukey_nothing_removed) {
    /* Same quartiles as above ({10..18} then a largest value): the upper fence is 30.25, so 30
     * (inside) is kept and 30.5 (outside) is removed. */
    double x[] = {30, 17, 16, 15, 14, 13, 12, 11, 10, 18};
    double y[] = {30.5, 17, 16, 15, 14, 13, 12, 11, 10, 18};
    size_t removed = 99;
    ck_assert_int_eq(cs_stats_remove_outliers(x, 10, 3.0, &removed), CS_OK);
    ck_assert_uint_eq(removed, 0);
    ck_assert_double_eq(x[0], 10.0);
    ck_assert_double_eq(x[9], 30.0);
    ck_assert_int_eq(cs_stats_remove_outliers(y, 10, 3.0, &removed), CS_OK);
    ck_assert_uint_eq(removed, 1);
    ck_assert_double_eq(y[8], 18.0);
    /* Two values {1, 100}: q1 = 25.75, q3 = 75.25, IQR = 49.5, fences -122.75 and 223.75:
     * both kept. An empty sample removes nothing. */
    double two[] = {100, 1};
    ck_assert_int_eq(cs_stats_remove_outliers(two, 2, 3.0, &removed), CS_OK);
    ck_assert_uint_eq(removed, 0);
    ck_assert_double_eq(two[0], 1.0);
    ck_assert_int_eq(cs_stats_remove_outliers(NULL, 0, 3.0, &removed), CS_OK);
    ck_assert_uint_eq(removed, 0);
}
END_TEST

START_TEST(tukey_low_outlier) {
    /* Sorted {1, 50..58}: q1: h = 2.25 -> 51 + .25 = 51.25; q3: h = 6.75 -> 55.75; IQR 4.5;
     * lower fence 51.25 - 13.5 = 37.75 -> 1 is removed and 50..58 move to the front. */
    double x[] = {55, 50, 1, 58, 51, 57, 52, 56, 53, 54};
    size_t removed = 0;
    ck_assert_int_eq(cs_stats_remove_outliers(x, 10, 3.0, &removed), CS_OK);
    ck_assert_uint_eq(removed, 1);
    for (int i = 0; i < 9; i++) {
        ck_assert_double_eq(x[i], (double)(50 + i));
    }
}
END_TEST

/* --- median confidence interval (exact binomial, B ~ Bin(n, 1/2), alpha / 2 = 0.025) ------ */

START_TEST(median_ci_small_n) {
    /* n = 5: P(B <= 0) = 1/32 = 0.03125 > 0.025 -> no interval.
     * n = 6: P(B <= 0) = 1/64 = 0.015625 <= 0.025 but P(B <= 1) = 7/64 > 0.025 -> j = 1,
     * k = 6, coverage 1 - 2/64 = 0.96875. */
    size_t j = 9, k = 9;
    double cov = 0.0;
    ck_assert_int_eq(cs_stats_median_ci_ranks(5, 0.95, &j, &k, &cov), CS_OK);
    ck_assert_uint_eq(j, 0);
    ck_assert_uint_eq(k, 0);
    ck_assert(isnan(cov));
    ck_assert_int_eq(cs_stats_median_ci_ranks(6, 0.95, &j, &k, &cov), CS_OK);
    ck_assert_uint_eq(j, 1);
    ck_assert_uint_eq(k, 6);
    ck_assert_double_eq_tol(cov, 0.96875, TOL);
    ck_assert_int_eq(cs_stats_median_ci_ranks(0, 0.95, &j, &k, NULL), CS_OK);
    ck_assert_uint_eq(j, 0);
    ck_assert_int_eq(cs_stats_median_ci_ranks(6, 1.0, &j, &k, NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_median_ci_ranks(6, 0.0, &j, &k, NULL), CS_ERR_ARG);

    const double x[] = {1, 2, 3, 4, 5};
    cs_stats_ci_t ci;
    ck_assert_int_eq(cs_stats_median_ci(x, 5, 0.95, &ci), CS_OK);
    ck_assert_int_eq(ci.available, 0);
    ck_assert(isnan(ci.lo) && isnan(ci.hi));
    ck_assert_int_eq(cs_stats_is_stable(&ci, 3.0, 1.0), 0);
}
END_TEST

START_TEST(median_ci_n20) {
    /* n = 20, 2^20 = 1048576. Cumulative counts C(20, i): 1, 21, 211, 1351, 6196, 21700
     * (i = 5), 60460 (i = 6). P(B <= 5) = 21700 / 1048576 = 0.0206947 <= 0.025 and
     * P(B <= 6) = 0.0576591 > 0.025 -> j = 6, k = 20 + 1 - 6 = 15, coverage
     * 1 - 2 * 0.0206947 = 0.9586105. (The normal-approximation formula
     * floor(n/2 - 0.98 sqrt n) = 5, ceil(1 + n/2 + 0.98 sqrt n) = 16 is more conservative.)
     * With x_i = i the interval is [6, 15]. */
    double x[20];
    for (int i = 0; i < 20; i++) {
        x[i] = i + 1;
    }
    cs_stats_ci_t ci;
    ck_assert_int_eq(cs_stats_median_ci(x, 20, 0.95, &ci), CS_OK);
    ck_assert_int_eq(ci.available, 1);
    ck_assert_uint_eq(ci.lo_rank, 6);
    ck_assert_uint_eq(ci.hi_rank, 15);
    ck_assert_double_eq(ci.lo, 6.0);
    ck_assert_double_eq(ci.hi, 15.0);
    ck_assert_double_eq_tol(ci.coverage, 1.0 - 2.0 * 21700.0 / 1048576.0, TOL);
}
END_TEST

START_TEST(median_ci_n100) {
    /* n = 100 (exact integer sums of C(100, i) / 2^100): P(B <= 39) = 0.0176001 <= 0.025,
     * P(B <= 40) = 0.0284440 > 0.025 -> j = 40, k = 61, coverage 1 - 2 * 0.0176001 =
     * 0.9647998. The normal formula agrees here: floor(50 - 9.8) = 40, ceil(51 + 9.8) = 61.
     * x_i = 1000 + i: median 1050.5, interval [1040, 1061] -> within 5 % (997.975, 1103.025):
     * stable; within 1 % (1040.0, 1061.0) it is not. x_i = i: median 50.5, interval [40, 61],
     * 40 < 0.95 * 50.5 = 47.975: not stable at 5 %; stable at 25 % (37.875, 63.125). */
    double x[100], y[100];
    for (int i = 0; i < 100; i++) {
        x[i] = 1000 + i + 1;
        y[i] = i + 1;
    }
    cs_stats_ci_t ci;
    ck_assert_int_eq(cs_stats_median_ci(x, 100, CS_STATS_CONFIDENCE, &ci), CS_OK);
    ck_assert_int_eq(ci.available, 1);
    ck_assert_uint_eq(ci.lo_rank, 40);
    ck_assert_uint_eq(ci.hi_rank, 61);
    ck_assert_double_eq(ci.lo, 1040.0);
    ck_assert_double_eq(ci.hi, 1061.0);
    ck_assert_double_eq_tol(ci.coverage, 0.9647998, 1e-7);
    ck_assert_int_eq(cs_stats_is_stable(&ci, 1050.5, CS_STATS_REL_PRECISION), 1);
    ck_assert_int_eq(cs_stats_is_stable(&ci, 1050.5, 0.009), 0);

    ck_assert_int_eq(cs_stats_median_ci(y, 100, 0.95, &ci), CS_OK);
    ck_assert_double_eq(ci.lo, 40.0);
    ck_assert_double_eq(ci.hi, 61.0);
    ck_assert_int_eq(cs_stats_is_stable(&ci, 50.5, 0.05), 0);
    ck_assert_int_eq(cs_stats_is_stable(&ci, 50.5, 0.25), 1);
}
END_TEST

START_TEST(median_ci_large_n) {
    /* n = 100000: 2^-n underflows, so the pmf is walked in log space. Exact big-integer sums
     * (Python) give j = 49690, k = 50311, coverage 0.9504442853 (the normal formula
     * n/2 -+ 0.98 sqrt(n) = 50000 -+ 309.9 gives 49690 and 50311 too). */
    size_t j = 0, k = 0;
    double cov = 0.0;
    ck_assert_int_eq(cs_stats_median_ci_ranks(100000, 0.95, &j, &k, &cov), CS_OK);
    ck_assert_uint_eq(j, 49690);
    ck_assert_uint_eq(k, 50311);
    ck_assert_double_eq_tol(cov, 0.9504442853, 1e-9);
}
END_TEST

/* --- Wilcoxon-Mann-Whitney, one-sided "a smaller than b" ---------------------------------- */

START_TEST(rank_sum_exact_5_6) {
    /* a = {12.1, 13.4, 14.0, 15.2, 17.9}, b = {14.6, 16.1, 18.3, 19.0, 20.5, 22.7}.
     * Combined order: 12.1a 13.4a 14.0a 14.6b 15.2a 16.1b 17.9a 18.3b 19.0b 20.5b 22.7b, so
     * W = 1 + 2 + 3 + 5 + 7 = 18 and U = 18 - 5 * 6 / 2 = 3 (pairs a_i > b_j: 15.2 > 14.6,
     * 17.9 > 14.6, 17.9 > 16.1). Enumerating the 5-subsets of ranks 1..11 with sum <= 18:
     * {1,2,3,4,5}=15, {1,2,3,4,6}=16, {1,2,3,4,7}, {1,2,3,5,6}=17, {1,2,3,4,8}, {1,2,3,5,7},
     * {1,2,4,5,6}=18: 7 of C(11, 5) = 462, so p = 7/462 = 0.0151515 (not < 0.01). */
    const double a[] = {12.1, 13.4, 14.0, 15.2, 17.9};
    const double b[] = {14.6, 16.1, 18.3, 19.0, 20.5, 22.7};
    cs_stats_rank_sum_t r;
    ck_assert_int_eq(cs_stats_rank_sum(a, 5, b, 6, &r), CS_OK);
    ck_assert_int_eq(r.exact, 1);
    ck_assert_int_eq(r.ties, 0);
    ck_assert_double_eq_tol(r.w, 18.0, TOL);
    ck_assert_double_eq_tol(r.u, 3.0, TOL);
    ck_assert_double_eq_tol(r.p, 7.0 / 462.0, 1e-12);
    ck_assert_int_eq(cs_stats_is_winner(r.p, 14.0, 19.0, CS_STATS_ALPHA, CS_STATS_MIN_GAIN), 0);

    /* All of a below all of b: W = 15, U = 0, only {1..5}: p = 1/462 = 0.0021645.
     * All of a above b: every subset has W <= 7 + ... + 11 = 45, p = 1. */
    const double lo[] = {1, 2, 3, 4, 5}, mid[] = {6, 7, 8, 9, 10, 11}, hi[] = {12, 13, 14, 15, 16};
    ck_assert_int_eq(cs_stats_rank_sum(lo, 5, mid, 6, &r), CS_OK);
    ck_assert_double_eq_tol(r.u, 0.0, TOL);
    ck_assert_double_eq_tol(r.p, 1.0 / 462.0, 1e-12);
    ck_assert_int_eq(cs_stats_rank_sum(hi, 5, mid, 6, &r), CS_OK);
    ck_assert_double_eq_tol(r.u, 30.0, TOL);
    ck_assert_double_eq_tol(r.p, 1.0, 1e-12);
}
END_TEST

/* Number of set bits among the low 10 bits of m. */
static int popcount10(int m) {
    int bits = 0;
    for (int r = 0; r < 10; r++) {
        bits += m >> r & 1;
    }
    return bits;
}

START_TEST(rank_sum_exact_matches_enumeration) {
    /* For every one of the C(10, 4) = 210 ways to give a (n = 4) its ranks among 1..10 (b gets
     * the other 6), the exact p must equal the share of 4-subsets with rank sum <= W. */
    int sums[210], nsub = 0;
    for (int m = 0; m < 1024; m++) {
        if (popcount10(m) != 4) {
            continue;
        }
        int s = 0;
        for (int r = 0; r < 10; r++) {
            s += (m >> r & 1) ? r + 1 : 0;
        }
        sums[nsub++] = s;
    }
    ck_assert_int_eq(nsub, 210);
    for (int m = 0; m < 1024; m++) {
        if (popcount10(m) != 4) {
            continue;
        }
        double a[4], b[6];
        int na = 0, nb = 0, w = 0;
        for (int r = 0; r < 10; r++) {
            if (m >> r & 1) {
                a[na++] = r + 1;
                w += r + 1;
            } else {
                b[nb++] = r + 1;
            }
        }
        int below = 0;
        for (int i = 0; i < 210; i++) {
            below += sums[i] <= w;
        }
        cs_stats_rank_sum_t res;
        ck_assert_int_eq(cs_stats_rank_sum(a, 4, b, 6, &res), CS_OK);
        ck_assert_int_eq(res.exact, 1);
        ck_assert_double_eq_tol(res.w, (double)w, TOL);
        ck_assert_double_eq_tol(res.p, below / 210.0, 1e-12);
    }
}
END_TEST

START_TEST(rank_sum_ties) {
    /* a = {1, 2, 2, 3}, b = {2, 3, 4, 5}. Combined: 1a | 2a 2a 2b (ranks 2,3,4 -> 3) |
     * 3a 3b (ranks 5,6 -> 5.5) | 4b (7) | 5b (8). W = 1 + 3 + 3 + 5.5 = 12.5,
     * U = 12.5 - 10 = 2.5. Ties -> normal approximation: mean 4 * 4 / 2 = 8; tie groups t = 3
     * and 2: sum(t^3 - t) = 24 + 6 = 30; var = 16/12 * (9 - 30 / 56) = 11.2857143;
     * z = (2.5 - 8 + 0.5) / sqrt(11.2857143) = -5 / 3.3594218 = -1.4883514;
     * p = Phi(-1.4883514) = 0.0683291. */
    const double a[] = {1, 2, 2, 3};
    const double b[] = {2, 3, 4, 5};
    cs_stats_rank_sum_t r;
    ck_assert_int_eq(cs_stats_rank_sum(a, 4, b, 4, &r), CS_OK);
    ck_assert_int_eq(r.exact, 0);
    ck_assert_int_eq(r.ties, 1);
    ck_assert_double_eq_tol(r.w, 12.5, TOL);
    ck_assert_double_eq_tol(r.u, 2.5, TOL);
    ck_assert_double_eq_tol(r.z, -1.4883514, 1e-6);
    ck_assert_double_eq_tol(r.p, 0.0683291, 1e-6);
}
END_TEST

START_TEST(rank_sum_identical) {
    /* a = b = {1..20}: every value is a tie pair with mid-rank 2v - 1/2, W = 2 * 210 - 10 = 410,
     * U = 410 - 210 = 200 = mean (20 * 20 / 2). Ties: 20 groups of t = 2, sum(t^3 - t) = 120;
     * var = 400/12 * (41 - 120 / 1560) = 1364.1026; z = 0.5 / 36.9338 = 0.0135378;
     * p = 0.5054006: not significant. All values equal: sd = 0, p = 1. */
    double x[20];
    for (int i = 0; i < 20; i++) {
        x[i] = i + 1;
    }
    cs_stats_rank_sum_t r;
    ck_assert_int_eq(cs_stats_rank_sum(x, 20, x, 20, &r), CS_OK);
    ck_assert_double_eq_tol(r.w, 410.0, TOL);
    ck_assert_double_eq_tol(r.u, 200.0, TOL);
    ck_assert_double_eq_tol(r.p, 0.5054006, 1e-6);
    ck_assert_int_eq(cs_stats_is_winner(r.p, 10.5, 10.5, CS_STATS_ALPHA, CS_STATS_MIN_GAIN), 0);

    const double same[] = {3, 3, 3};
    ck_assert_int_eq(cs_stats_rank_sum(same, 3, same, 3, &r), CS_OK);
    ck_assert_double_eq(r.p, 1.0);
}
END_TEST

START_TEST(rank_sum_separated_large) {
    /* a_i = 1 + i/100, b_i = 2 + i/100, i = 0..99: every a below every b, U = 0, no ties;
     * mean 5000, var = 10000 * 201 / 12 = 167500, z = (0 - 5000 + 0.5) / 409.268 = -12.2157,
     * p = 1.28e-34. Reversed (a slower) p is 1 - 1.28e-34. */
    double a[100], b[100];
    for (int i = 0; i < 100; i++) {
        a[i] = 1.0 + i / 100.0;
        b[i] = 2.0 + i / 100.0;
    }
    cs_stats_rank_sum_t r;
    ck_assert_int_eq(cs_stats_rank_sum(a, 100, b, 100, &r), CS_OK);
    ck_assert_int_eq(r.exact, 0);
    ck_assert_double_eq_tol(r.u, 0.0, TOL);
    ck_assert_double_eq_tol(r.z, -12.2157227, 1e-6);
    ck_assert(r.p < 1e-6);
    ck_assert(r.p > 0.0);
    ck_assert_int_eq(cs_stats_rank_sum(b, 100, a, 100, &r), CS_OK);
    ck_assert(r.p > 1.0 - 1e-6);
}
END_TEST

START_TEST(rank_sum_bad_arguments) {
    const double sorted[] = {1, 2, 3}, unsorted[] = {2, 1, 3}, with_nan[] = {1, NAN, 3};
    cs_stats_rank_sum_t r;
    ck_assert_int_eq(cs_stats_rank_sum(unsorted, 3, sorted, 3, &r), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_rank_sum(sorted, 3, with_nan, 3, &r), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_rank_sum(sorted, 0, sorted, 3, &r), CS_ERR_ARG);
    ck_assert_int_eq(cs_stats_rank_sum(sorted, 3, sorted, 3, NULL), CS_ERR_ARG);
}
END_TEST

/* --- the winner rule: p < 0.01 and median(a) <= 0.97 median(b) --------------------------- */

START_TEST(winner_rule) {
    const double alpha = CS_STATS_ALPHA, gain = CS_STATS_MIN_GAIN;
    ck_assert_int_eq(cs_stats_is_winner(1e-5, 98.0, 100.0, alpha, gain), 0); /* 2 % faster */
    ck_assert_int_eq(cs_stats_is_winner(1e-5, 90.0, 100.0, alpha, gain), 1); /* 10 % faster */
    ck_assert_int_eq(cs_stats_is_winner(0.02, 90.0, 100.0, alpha, gain), 0); /* p too large */
    ck_assert_int_eq(cs_stats_is_winner(0.01, 90.0, 100.0, alpha, gain), 0); /* p = alpha */
    ck_assert_int_eq(cs_stats_is_winner(NAN, 90.0, 100.0, alpha, gain), 0);

    /* End to end: b_i = 100 + i/100 (i = 0..99, median 100.495); a = 0.98 b and a = 0.90 b
     * lie entirely below b (U = 0, p = 1.28e-34 as above), but only the 10 % one clears the
     * 3 % margin: 0.98 * 100.495 = 98.485 > 0.97 * 100.495 = 97.480;
     * 0.90 * 100.495 = 90.446 <= 97.480. */
    double b[100], a2[100], a10[100];
    for (int i = 0; i < 100; i++) {
        b[i] = 100.0 + i / 100.0;
        a2[i] = 0.98 * b[i];
        a10[i] = 0.90 * b[i];
    }
    cs_stats_summary_t sb, s2, s10;
    ck_assert_int_eq(cs_stats_summarize(b, 100, &sb), CS_OK);
    ck_assert_int_eq(cs_stats_summarize(a2, 100, &s2), CS_OK);
    ck_assert_int_eq(cs_stats_summarize(a10, 100, &s10), CS_OK);
    ck_assert_double_eq_tol(sb.median, 100.495, TOL);
    cs_stats_rank_sum_t r2, r10;
    ck_assert_int_eq(cs_stats_rank_sum(a2, 100, b, 100, &r2), CS_OK);
    ck_assert_int_eq(cs_stats_rank_sum(a10, 100, b, 100, &r10), CS_OK);
    ck_assert(r2.p < 1e-6);
    ck_assert(r10.p < 1e-6);
    ck_assert_int_eq(cs_stats_is_winner(r2.p, s2.median, sb.median, alpha, gain), 0);
    ck_assert_int_eq(cs_stats_is_winner(r10.p, s10.median, sb.median, alpha, gain), 1);
}
END_TEST

static Suite *stats_suite(void) {
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("quantiles");
    tcase_add_test(tc, quantile_five);
    tcase_add_test(tc, quantile_four);
    tcase_add_test(tc, quantile_one_and_two);
    tcase_add_test(tc, summarize_sorts_in_place);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("tukey");
    tcase_add_test(tc, tukey_high_outlier);
    tcase_add_test(tc, tukey_nothing_removed);
    tcase_add_test(tc, tukey_low_outlier);
    suite_add_tcase(s, tc);

    tc = tcase_create("median_ci");
    tcase_add_test(tc, median_ci_small_n);
    tcase_add_test(tc, median_ci_n20);
    tcase_add_test(tc, median_ci_n100);
    tcase_add_test(tc, median_ci_large_n);
    suite_add_tcase(s, tc);

    tc = tcase_create("rank_sum");
    tcase_add_test(tc, rank_sum_exact_5_6);
    tcase_add_test(tc, rank_sum_exact_matches_enumeration);
    tcase_add_test(tc, rank_sum_ties);
    tcase_add_test(tc, rank_sum_identical);
    tcase_add_test(tc, rank_sum_separated_large);
    tcase_add_test(tc, rank_sum_bad_arguments);
    tcase_add_test(tc, winner_rule);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(stats_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

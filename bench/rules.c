/* Winner selection and interval merging (see rules.h). */
#include "rules.h"

#include "stats.h"

#include <math.h>
#include <string.h>

static const cs_bench_entry_t *native_of(const cs_bench_size_t *s) {
    for (int i = 0; i < s->n; i++) {
        if (s->entries[i].native) {
            return &s->entries[i];
        }
    }
    return NULL;
}

/* The median of `e` under the primary metric of policy `m` (what a rule stores). */
static double primary_median(const cs_bench_entry_t *e, cs_db_metric_t m) {
    return m == CS_DB_METRIC_LOOP ? e->loop_median_us : e->median_us;
}

double cs_bench_score(double median_us, double loop_median_us, int has_loop, cs_db_metric_t m) {
    switch (m) {
    case CS_DB_METRIC_LOOP:
        return has_loop ? loop_median_us : INFINITY;
    case CS_DB_METRIC_BOTH:
        return has_loop ? sqrt(median_us * loop_median_us) : median_us;
    case CS_DB_METRIC_SYNC:
    default:
        return median_us;
    }
}

/* What ranks `e` under policy `m`: the geometric mean of its scores in the first pass and in
 * every confirmation round that measured it, else the first pass's. The passes ran in
 * different process launches and malloc states (docs/tuning.md, step 6), and the winners at a
 * confirmed size have them all: one that was ahead in the first pass only by a launch's mode no
 * longer outranks one ahead over all (allreduce at 256 KiB, t20: linear 244.5 and 231.9 us in
 * the loop, dpml 257.6 and 204.7; linear, chosen, lost to native in two later launches).
 * Native's score is the same in every candidate's comparison, so a product of medians ranks as
 * the product of ratios to native would. */
static double score(const cs_bench_entry_t *e, cs_db_metric_t m) {
    double first = cs_bench_score(e->median_us, e->loop_median_us, e->has_loop, m);
    double log_sum = 0;
    int n = 0;
    if (!(isfinite(first) && first > 0)) {
        return first;
    }
    for (int r = 0; r < CS_BENCH_MAX_ROUNDS; r++) {
        if (e->has_confirm & (1u << r)) {
            double again = cs_bench_score(e->confirm_median_us[r], e->confirm_loop_median_us[r],
                                          !isnan(e->confirm_loop_median_us[r]), m);
            if (isfinite(again) && again > 0) {
                log_sum += log(again);
                n++;
            }
        }
    }
    return n > 0 ? exp((log(first) + log_sum) / (n + 1)) : first;
}

/* The metric under which `e` replaces `native` under policy `m` (see rules.h): CS_DB_METRIC_SYNC
 * or CS_DB_METRIC_LOOP (under 'both' the synchronised one when it wins under each); -1 when it
 * does not replace native. */
static int won_under(const cs_bench_entry_t *e, const cs_bench_entry_t *native, cs_db_metric_t m) {
    const double at_most = 1.0 + CS_STATS_MIN_GAIN; /* "not slower", with the gain's margin */
    int sync = cs_stats_is_winner(e->p_value, e->median_us, native->median_us, CS_STATS_ALPHA,
                                  CS_STATS_MIN_GAIN);
    int has_loop = e->has_loop && native->has_loop;
    int loop =
        has_loop && cs_stats_is_winner(e->loop_p_value, e->loop_median_us, native->loop_median_us,
                                       CS_STATS_ALPHA, CS_STATS_MIN_GAIN);
    /* No heavier slow tail in the loop (a NaN or unknown quartile does not count against). */
    int loop_tail =
        !has_loop || !(e->loop_q3_us > at_most * native->loop_q3_us && native->loop_q3_us > 0);
    switch (m) {
    case CS_DB_METRIC_LOOP:
        return loop && loop_tail ? CS_DB_METRIC_LOOP : -1;
    case CS_DB_METRIC_BOTH:
        if (!has_loop) {
            return sync ? CS_DB_METRIC_SYNC : -1;
        }
        if (!loop_tail) {
            return -1;
        }
        if (sync && e->loop_median_us <= at_most * native->loop_median_us) {
            return CS_DB_METRIC_SYNC;
        }
        /* A loop win needs the synchronised median within the margin, or a synchronised
         * difference the rank-sum test does not call significant (p is P(U <= u) for "e is
         * faster"; above 1 - alpha e is significantly slower): at small sizes on a loaded
         * machine the synchronised samples spread over several times their median, and a loop
         * win of 2x was lost to a synchronised median 1.4x native's that meant nothing (issue
         * 19, docs/tuning.md). The loop side of a synchronised win stays strict. */
        return loop && (e->median_us <= at_most * native->median_us ||
                        (!isnan(e->p_value) && e->p_value <= 1.0 - CS_STATS_ALPHA))
                   ? CS_DB_METRIC_LOOP
                   : -1;
    case CS_DB_METRIC_SYNC:
    default:
        return sync ? CS_DB_METRIC_SYNC : -1;
    }
}

/* Whether `e`, which won under `metric` (CS_DB_METRIC_SYNC or _LOOP) with policy `m`, beat
 * `native` again in confirmation round r + 1 (rules.h, cs_bench_size_t.confirmed). */
static int confirmed_in(const cs_bench_entry_t *e, const cs_bench_entry_t *native, int metric,
                        cs_db_metric_t m, int r) {
    const unsigned bit = 1u << r;
    double e_us = e->confirm_median_us[r], n_us = native->confirm_median_us[r];
    double e_loop = e->confirm_loop_median_us[r], n_loop = native->confirm_loop_median_us[r];
    int loop = !isnan(e_loop) && !isnan(n_loop);
    const double gain = 1.0 - CS_STATS_MIN_GAIN; /* the win's margin, again */
    int loop_again = loop && e_loop <= gain * n_loop;
    if (!(e->has_confirm & bit) || !(native->has_confirm & bit)) {
        return 0;
    }
    /* A loop win that repeats stands under 'loop' and 'both' (under 'both' whatever metric the
     * first pass saw it win under: its synchronised "not slower" is the first pass's). */
    if (metric == CS_DB_METRIC_LOOP || (m == CS_DB_METRIC_BOTH && loop_again)) {
        return loop_again;
    }
    return e_us <= gain * n_us &&
           (m != CS_DB_METRIC_BOTH || !loop || e_loop <= (1.0 + CS_STATS_MIN_GAIN) * n_loop);
}

static int wins(const cs_bench_size_t *s, const cs_bench_entry_t *e,
                const cs_bench_entry_t *native) {
    int metric = won_under(e, native, s->metric);
    if (metric < 0) {
        return 0;
    }
    for (int r = 0; r < CS_BENCH_MAX_ROUNDS; r++) { /* every round that measured this size */
        if ((s->confirmed & (1u << r)) && !confirmed_in(e, native, metric, s->metric, r)) {
            return 0;
        }
    }
    return 1;
}

int cs_bench_rank(const cs_bench_size_t *s, int *order, int *n) {
    const cs_bench_entry_t *native = native_of(s);
    int k = 0;
    if (native == NULL || s->n > CS_BENCH_MAX_RANKED) {
        return CS_ERR_ARG;
    }
    for (int i = 0; i < s->n; i++) {
        const cs_bench_entry_t *e = &s->entries[i];
        if (e->native || e->unproven || !wins(s, e, native)) {
            continue;
        }
        /* Insertion by the policy's score; ties keep registry order. */
        int j = k++;
        while (j > 0 && score(&s->entries[order[j - 1]], s->metric) > score(e, s->metric)) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    order[k++] = (int)(native - s->entries);
    *n = k;
    return CS_OK;
}

/* The entry of `s` with variant (algorithm, params), or NULL. */
static const cs_bench_entry_t *entry_of(const cs_bench_size_t *s, const char *algorithm,
                                        const char *params) {
    for (int i = 0; i < s->n; i++) {
        if (strcmp(s->entries[i].algorithm, algorithm) == 0 &&
            strcmp(s->entries[i].params, params) == 0) {
            return &s->entries[i];
        }
    }
    return NULL;
}

/* One outcome of a candidate in one launch: +1 won, -1 lost, 0 neither; the launch's state in
 * *far. Launch r: 0 the measurement pass, else confirmation round r. */
static int outcome(const cs_bench_size_t *s, const cs_bench_entry_t *e,
                   const cs_bench_entry_t *native, int r, int *far) {
    const unsigned bit = 1u << r;
    double e_score, n_score;
    if (!((s->near | s->far) & bit)) {
        return 0;
    }
    *far = (s->far & bit) != 0;
    if (r == 0) {
        e_score = cs_bench_score(e->median_us, e->loop_median_us, e->has_loop, s->metric);
        n_score =
            cs_bench_score(native->median_us, native->loop_median_us, native->has_loop, s->metric);
    } else {
        const unsigned cbit = 1u << (r - 1);
        if (!(e->has_confirm & cbit) || !(native->has_confirm & cbit)) {
            return 0;
        }
        e_score = cs_bench_score(e->confirm_median_us[r - 1], e->confirm_loop_median_us[r - 1],
                                 !isnan(e->confirm_loop_median_us[r - 1]), s->metric);
        n_score =
            cs_bench_score(native->confirm_median_us[r - 1], native->confirm_loop_median_us[r - 1],
                           !isnan(native->confirm_loop_median_us[r - 1]), s->metric);
    }
    if (!(e_score > 0) || !(n_score > 0) || !isfinite(e_score) || !isfinite(n_score)) {
        return 0;
    }
    return e_score <= (1.0 - CS_STATS_MIN_GAIN) * n_score ? 1
           : e_score > CS_BENCH_CORE_LOSS * n_score       ? -1
                                                          : 0;
}

/* Bits of the outcomes of variant v at size s: 1 won near, 2 won far, 4 lost near, 8 lost far;
 * *states: 1 measured near, 2 measured far. */
static unsigned outcomes(const cs_bench_size_t *s, const cs_bench_entry_t *v, unsigned *states) {
    const cs_bench_entry_t *e = entry_of(s, v->algorithm, v->params), *native = native_of(s);
    unsigned bits = 0;
    *states = 0;
    if (e == NULL || native == NULL || e->native) {
        return 0;
    }
    for (int r = 0; r <= CS_BENCH_MAX_ROUNDS; r++) {
        int far = 0, o = outcome(s, e, native, r, &far);
        if ((s->near | s->far) & (1u << r) && (r == 0 || (e->has_confirm & (1u << (r - 1))))) {
            *states |= far ? 2u : 1u;
        }
        bits |= o > 0 ? (far ? 2u : 1u) : o < 0 ? (far ? 8u : 4u) : 0u;
    }
    return bits;
}

/* Whether variant v won in one core-to-core state and lost in the other at size s itself. */
static int state_dependent_at(const cs_bench_size_t *s, const cs_bench_entry_t *v) {
    unsigned st, o = outcomes(s, v, &st);
    return ((o & 1u) && (o & 8u)) || ((o & 2u) && (o & 4u));
}

int cs_bench_core_unproven(const cs_bench_size_t *sizes, int nsizes, unsigned char *mark) {
    int count = 0;
    memset(mark, 0, (size_t)nsizes * CS_BENCH_MAX_RANKED);
    for (int i = 0; i < nsizes; i++) {
        for (int j = 0; j < sizes[i].n && j < CS_BENCH_MAX_RANKED; j++) {
            const cs_bench_entry_t *v = &sizes[i].entries[j];
            unsigned states = 0;
            if (v->native) {
                continue;
            }
            (void)outcomes(&sizes[i], v, &states);
            /* measured in both here: the rounds decide (a loss is a loss); a candidate that
             * does not win here anyway is not counted */
            if (states == 3u || !wins(&sizes[i], v, native_of(&sizes[i]))) {
                continue;
            }
            for (int k = 0; k < nsizes; k++) { /* dependent at a neighbouring size */
                uint64_t lo = sizes[k].bytes < sizes[i].bytes ? sizes[k].bytes : sizes[i].bytes;
                uint64_t hi = sizes[k].bytes < sizes[i].bytes ? sizes[i].bytes : sizes[k].bytes;
                if (k != i && hi <= (uint64_t)CS_BENCH_CORE_NEIGHBOUR * (lo > 0 ? lo : 1) &&
                    state_dependent_at(&sizes[k], v)) {
                    mark[i * CS_BENCH_MAX_RANKED + j] = 1;
                    count++;
                    break;
                }
            }
        }
    }
    return count;
}

static int same_ranking(const cs_bench_size_t *a, const int *oa, int na, const cs_bench_size_t *b,
                        const int *ob, int nb) {
    if (na != nb) {
        return 0;
    }
    for (int i = 0; i < na; i++) {
        const cs_bench_entry_t *x = &a->entries[oa[i]], *y = &b->entries[ob[i]];
        if (strcmp(x->algorithm, y->algorithm) != 0 || strcmp(x->params, y->params) != 0) {
            return 0;
        }
    }
    return 1;
}

/* A boundary strictly above a and at most b: the rounded geometric mean. */
static uint64_t boundary(uint64_t a, uint64_t b) {
    uint64_t m = (uint64_t)llround(sqrt((double)a * (double)b));
    if (m <= a) {
        m = a + 1;
    }
    return m > b ? b : m;
}

/* The boundary between measured sizes a < b: a known threshold t with a <= t < b (sizes up
 * to t on one side, above it on the other: lo = t + 1), the one nearest the geometric mean
 * when there are several; otherwise the geometric mean. thresholds[] is ascending. */
static uint64_t boundary_at(uint64_t a, uint64_t b, const uint64_t *thresholds, int nthresholds) {
    uint64_t best = 0;
    double mid = 0.5 * (log2((double)a) + log2((double)b)), dist = INFINITY;
    for (int i = 0; i < nthresholds; i++) {
        uint64_t t = thresholds[i];
        if (t >= a && t < b && fabs(log2((double)t + 1) - mid) < dist) {
            dist = fabs(log2((double)t + 1) - mid);
            best = t + 1;
        }
    }
    return best != 0 ? best : boundary(a, b);
}

/* Whether the sizes strictly between the last measured size `a` of one group of equal rankings
 * and the first, `b`, of the next form an unmeasured gap that goes to native: b is more than
 * twice a (refinement bisects every change it sees down to adjacent powers of two, so this one
 * was not refined: the confirmation pass changed the ranking afterwards, or the budget ran out)
 * and the groups' first choices differ (lo and hi: the groups' rank-1 entries). Neither first
 * choice was seen to win there; the sizes between were never measured. */
static int native_gap(uint64_t a, uint64_t b, const cs_bench_entry_t *lo,
                      const cs_bench_entry_t *hi) {
    return b / 2 > a &&
           (strcmp(lo->algorithm, hi->algorithm) != 0 || strcmp(lo->params, hi->params) != 0);
}

/* The boundary between the last measured size `a` of one group and the first, `b`, of the
 * next (lo, hi: their rank-1 entries). Across a native gap (above) each candidate's interval
 * ends at its own measured size: native alone on one side takes the gap, otherwise it is a
 * native interval of its own (cs_bench_rules_at); `upper` says which end of the gap is asked
 * for, the lower group's hi (0) or the upper group's lo (1). Otherwise boundary_at(). */
static uint64_t group_boundary(uint64_t a, uint64_t b, const cs_bench_entry_t *lo,
                               const cs_bench_entry_t *hi, int upper, const uint64_t *thresholds,
                               int nthresholds) {
    if (native_gap(a, b, lo, hi)) {
        if (lo->native) {
            return b;
        }
        return hi->native || !upper ? a + 1 : b;
    }
    return boundary_at(a, b, thresholds, nthresholds);
}

/* Writes rule row `row` for entry `e` of a size whose native entry is `native`, under policy
 * m, with the interval [lo, hi) and rank `rank`. A winner's values are those of the metric it
 * won under, native's the policy's primary metric's (rules.h). */
static int rule_row(cs_rule_t *row, const cs_bench_entry_t *e, const cs_bench_entry_t *native,
                    cs_db_metric_t m, uint64_t lo, uint64_t hi, int rank) {
    int w = e->native ? (m == CS_DB_METRIC_LOOP ? CS_DB_METRIC_LOOP : CS_DB_METRIC_SYNC)
                      : won_under(e, native, m);
    memset(row, 0, sizeof(*row));
    if (cs_rule_set_variant(row, e->algorithm, e->params) != CS_OK) {
        return CS_ERR_ARG;
    }
    row->lo_bytes = lo;
    row->hi_bytes = hi;
    row->rank = rank;
    row->median_us = primary_median(e, (cs_db_metric_t)w);
    row->native_us = primary_median(native, (cs_db_metric_t)w);
    row->p_value = e->native ? NAN : w == CS_DB_METRIC_LOOP ? e->loop_p_value : e->p_value;
    return CS_OK;
}

int cs_bench_rules(const cs_bench_size_t *sizes, int nsizes, cs_rule_t *out, int cap, int *nout) {
    return cs_bench_rules_at(sizes, nsizes, NULL, 0, out, cap, nout);
}

int cs_bench_rules_at(const cs_bench_size_t *sizes, int nsizes, const uint64_t *thresholds,
                      int nthresholds, cs_rule_t *out, int cap, int *nout) {
    int rc = CS_OK;
    int order[CS_BENCH_MAX_RANKED], next[CS_BENCH_MAX_RANKED];
    int n = 0, nnext = 0, rows = 0;
    const cs_bench_entry_t *prev_top = NULL; /* the previous group's rank-1 entry */
    *nout = 0;
    for (int i = 1; i < nsizes; i++) {
        CS_REQUIRE(sizes[i - 1].bytes < sizes[i].bytes, CS_ERR_ARG);
    }
    for (int start = 0; start < nsizes;) {
        int end = start + 1;
        const cs_bench_entry_t *native, *top;
        uint64_t lo, hi;
        CS_CHECK(cs_bench_rank(&sizes[start], order, &n));
        while (end < nsizes) {
            CS_CHECK(cs_bench_rank(&sizes[end], next, &nnext));
            if (!same_ranking(&sizes[start], order, n, &sizes[end], next, nnext)) {
                break;
            }
            end++;
        }
        native = native_of(&sizes[start]);
        top = &sizes[start].entries[order[0]];
        lo = start == 0 ? 0
                        : group_boundary(sizes[start - 1].bytes, sizes[start].bytes, prev_top, top,
                                         1, thresholds, nthresholds);
        hi = end == nsizes
                 ? CS_RULE_UNBOUNDED
                 : group_boundary(sizes[end - 1].bytes, sizes[end].bytes, top,
                                  &sizes[end].entries[next[0]], 0, thresholds, nthresholds);
        for (int r = 0; r < n; r++) {
            CS_REQUIRE(rows < cap, CS_ERR_NOMEM);
            CS_CHECK(rule_row(&out[rows], &sizes[start].entries[order[r]], native,
                              sizes[start].metric, lo, hi, r + 1));
            rows++;
        }
        /* Between two candidates' intervals across a native gap: native alone, with its values
         * at the last measured size below the gap. */
        if (end < nsizes && !top->native && !sizes[end].entries[next[0]].native &&
            native_gap(sizes[end - 1].bytes, sizes[end].bytes, top, &sizes[end].entries[next[0]])) {
            const cs_bench_size_t *below = &sizes[end - 1];
            CS_REQUIRE(rows < cap, CS_ERR_NOMEM);
            CS_CHECK(rule_row(&out[rows], native_of(below), native_of(below), below->metric, hi,
                              sizes[end].bytes, 1));
            rows++;
        }
        prev_top = top;
        start = end;
    }
    *nout = rows;
out:
    return rc;
}

/* 1 when `e` is among the winners (ahead of native) of size `s`. */
static int wins_at(const cs_bench_size_t *s, const cs_bench_entry_t *e) {
    int order[CS_BENCH_MAX_RANKED], n = 0;
    if (cs_bench_rank(s, order, &n) != CS_OK) {
        return 0;
    }
    for (int i = 0; i + 1 < n; i++) {
        if (&s->entries[order[i]] == e) {
            return 1;
        }
    }
    return 0;
}

int cs_bench_rules_one(const cs_bench_size_t *sizes, int nsizes, cs_rule_t *out, int cap,
                       int *nout) {
    int order[CS_BENCH_MAX_RANKED], k = 0;
    double total[CS_BENCH_MAX_RANKED];
    const cs_bench_size_t *first = &sizes[0];
    const cs_bench_entry_t *native;
    int loop;
    *nout = 0;
    if (nsizes == 0) {
        return CS_OK;
    }
    native = native_of(first);
    if (native == NULL || first->n > CS_BENCH_MAX_RANKED) {
        return CS_ERR_ARG;
    }
    loop = first->metric == CS_DB_METRIC_LOOP;
    for (int s = 0; s < nsizes; s++) {
        if (native_of(&sizes[s]) == NULL || (s > 0 && sizes[s].bytes <= sizes[s - 1].bytes)) {
            return CS_ERR_ARG;
        }
    }
    /* Candidates of the first size that win at every size, with their summed log score. */
    for (int i = 0; i < first->n; i++) {
        const cs_bench_entry_t *e = &first->entries[i];
        double sum = 0;
        int every = !e->native;
        for (int s = 0; s < nsizes && every; s++) {
            const cs_bench_entry_t *at = entry_of(&sizes[s], e->algorithm, e->params);
            every = at != NULL && wins_at(&sizes[s], at);
            if (every) {
                sum += log(score(at, sizes[s].metric));
            }
        }
        if (!every) {
            continue;
        }
        int j = k++;
        while (j > 0 && total[j - 1] > sum) {
            order[j] = order[j - 1];
            total[j] = total[j - 1];
            j--;
        }
        order[j] = i;
        total[j] = sum;
    }
    order[k++] = (int)(native - first->entries);
    if (k > cap) {
        return CS_ERR_NOMEM;
    }
    for (int i = 0; i < k; i++) {
        const cs_bench_entry_t *e = &first->entries[order[i]];
        cs_rule_t *r = &out[i];
        memset(r, 0, sizeof(*r));
        if (cs_rule_set_variant(r, e->algorithm, e->params) != CS_OK) {
            return CS_ERR_ARG;
        }
        r->lo_bytes = 0;
        r->hi_bytes = CS_RULE_UNBOUNDED;
        r->rank = i + 1;
        r->median_us = loop && e->has_loop ? e->loop_median_us : e->median_us;
        r->native_us = loop && native->has_loop ? native->loop_median_us : native->median_us;
        r->p_value = e->native ? NAN : loop ? e->loop_p_value : e->p_value;
    }
    *nout = k;
    return CS_OK;
}

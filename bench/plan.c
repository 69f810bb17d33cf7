/* The plan of a tuning run (see plan.h). */
#include "plan.h"

#include "derive.h"
#include "overlap.h"
#include "patterns.h"
#include "progress.h"
#include "registry.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int selected(const cs_bench_opts_t *o, const char *name) {
    if (o->nalgorithms == 0) {
        return 1;
    }
    for (int i = 0; i < o->nalgorithms; i++) {
        if (fnmatch(o->algorithms[i], name, 0) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Adds `size` with weight w to sizes[0..n-1] (a size already there keeps the larger weight);
 * returns the new count (n when full). */
static int add_size(int *sizes, double *weight, int n, int cap, int size, double w) {
    for (int i = 0; i < n; i++) {
        if (sizes[i] == size) {
            weight[i] = w > weight[i] ? w : weight[i];
            return n;
        }
    }
    if (n == cap) {
        return n;
    }
    sizes[n] = size;
    weight[n] = w;
    return n + 1;
}

int cs_bench_plan_default_sizes(int nprocs, int ppn, int *sizes, double *weight, int cap) {
    int n = 0;
    if (nprocs < 1 || cap < 1) {
        return 0;
    }
    if (nprocs == 1) {
        sizes[0] = 1;
        weight[0] = 1.0;
        return 1;
    }
    ppn = ppn < 1 ? 1 : ppn > nprocs ? nprocs : ppn;
    /* the job size first, so that a full list never lacks it */
    n = add_size(sizes, weight, n, cap, nprocs, 2.0 * log2((double)nprocs));
    if ((nprocs + ppn - 1) / ppn > 1) { /* one node and two nodes; all nodes is the job */
        if (ppn >= 2) {
            n = add_size(sizes, weight, n, cap, ppn, 1.5 * log2((double)ppn));
        }
        if (2 * ppn <= nprocs) {
            n = add_size(sizes, weight, n, cap, 2 * ppn, 1.5 * log2(2.0 * ppn));
        }
    }
    for (long p = 2; p <= nprocs; p *= 2) {
        n = add_size(sizes, weight, n, cap, (int)p, log2((double)p));
    }
    for (int i = 1; i < n; i++) { /* ascending */
        for (int j = i; j > 0 && sizes[j] < sizes[j - 1]; j--) {
            int s = sizes[j];
            double w = weight[j];
            sizes[j] = sizes[j - 1];
            weight[j] = weight[j - 1];
            sizes[j - 1] = s;
            weight[j - 1] = w;
        }
    }
    return n;
}

int cs_bench_plan_make(const cs_bench_opts_t *o, const cs_algo_t *const *extra, int nextra,
                       int nprocs, int ppn, cs_bench_plan_t *plan) {
    memset(plan, 0, sizeof(*plan));
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int n = 0;
        if (!(o->colls & (1u << c))) {
            continue;
        }
        plan->algos[c][n++] = cs_registry_native((cs_coll_t)c);
        for (int i = 0; i < cs_registry_count; i++) {
            const cs_algo_t *a = cs_registry[i];
            if (a->coll == (cs_coll_t)c && a->run == NULL && selected(o, a->name) &&
                n < CS_BENCH_MAX_CANDS) {
                plan->algos[c][n++] = a;
            }
        }
        for (int i = 0; i < nextra; i++) {
            if (extra[i]->coll == (cs_coll_t)c && n < CS_BENCH_MAX_CANDS) {
                plan->algos[c][n++] = extra[i];
            }
        }
        plan->nalgos[c] = n;
    }
    if (o->ncomm_sizes == 0) {
        plan->ncomm_sizes = cs_bench_plan_default_sizes(nprocs, ppn, plan->comm_sizes,
                                                        plan->weight_at, CS_BENCH_MAX_LIST);
        plan->default_sizes = 1;
    } else {
        memcpy(plan->comm_sizes, o->comm_sizes, sizeof(int) * (size_t)o->ncomm_sizes);
        plan->ncomm_sizes = o->ncomm_sizes;
    }
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci];
        plan->ppn_at[ci] = ppn < 1 ? 1 : ppn < n ? ppn : n;
    }
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        for (int k = 0; k < cs_bench_npatterns; k++) {
            if ((o->patterns & (1u << k)) &&
                cs_bench_pattern_valid(&cs_bench_patterns[k], plan->comm_sizes[ci])) {
                plan->patterns_at[ci] |= 1u << k;
            }
        }
    }
    for (int i = 0; i < o->nblock_sizes; i++) {
        plan->block_sizes[i] = o->block_sizes[i];
    }
    plan->nblock_sizes = o->nblock_sizes;
    return cs_bench_plan_set_sizes(plan, o, NULL, 0);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The smallest power of two above b. */
static uint64_t pof2_above(uint64_t b) {
    uint64_t p = 1;
    while (p <= b && p < ((uint64_t)1 << 63)) {
        p <<= 1;
    }
    return p;
}

int cs_bench_plan_sizes(const size_t *grid, int ngrid, const uint64_t *thresholds, int nthresholds,
                        uint64_t *out, int cap, int *nout) {
    int n = 0, k = 0;
    *nout = 0;
    if (ngrid <= 0) {
        return CS_OK;
    }
    for (int i = 0; i < ngrid; i++) {
        if (n == cap) {
            return CS_ERR_NOMEM;
        }
        out[n++] = grid[i];
    }
    for (int i = 0; i < nthresholds; i++) {
        uint64_t t = thresholds[i], extra[2] = {thresholds[i] / 4 * 4, pof2_above(thresholds[i])};
        if (t < grid[0] || t >= grid[ngrid - 1]) {
            continue;
        }
        for (int j = 0; j < 2; j++) {
            if (extra[j] >= grid[0] && extra[j] <= grid[ngrid - 1]) {
                if (n == cap) {
                    return CS_ERR_NOMEM;
                }
                out[n++] = extra[j];
            }
        }
    }
    qsort(out, (size_t)n, sizeof(*out), cmp_u64);
    for (int i = 0; i < n; i++) {
        if (k == 0 || out[k - 1] != out[i]) {
            out[k++] = out[i];
        }
    }
    *nout = k;
    return CS_OK;
}

/* The powers of two strictly between a and b: the smallest *lo and how many. */
static int pof2_between(uint64_t a, uint64_t b, uint64_t *lo) {
    int n = 0;
    *lo = pof2_above(a);
    for (uint64_t p = *lo; p < b && p > a; p <<= 1) {
        n++;
        if (p >= ((uint64_t)1 << 63)) {
            break;
        }
    }
    return n;
}

int cs_bench_refine_next(const uint64_t *sizes, const int *winner, int n, int cap, uint64_t *add) {
    int nadd = 0;
    for (int i = 1; i < n && nadd < cap; i++) {
        uint64_t lo;
        int k;
        if (winner[i - 1] == winner[i]) {
            continue;
        }
        k = pof2_between(sizes[i - 1], sizes[i], &lo);
        if (k == 0) {
            continue;
        }
        /* The k powers of two lo, 2 lo, ... 2^(k-1) lo: the middle one, nearest the geometric
         * mean of the pair (ties: the lower). */
        uint64_t best = lo;
        double mid = 0.5 * (log2((double)sizes[i - 1]) + log2((double)sizes[i]));
        for (int j = 1; j < k; j++) {
            uint64_t p = lo << j;
            if (fabs(log2((double)p) - mid) < fabs(log2((double)best) - mid)) {
                best = p;
            }
        }
        add[nadd++] = best;
    }
    return nadd;
}

int cs_bench_refine_max(const uint64_t *sizes, int n) {
    int total = 0;
    for (int i = 1; i < n; i++) {
        uint64_t lo;
        total += pof2_between(sizes[i - 1], sizes[i], &lo);
    }
    return total;
}

int cs_bench_plan_npatterns(const cs_bench_plan_t *plan, int ci, cs_coll_t c) {
    int n = 0;
    for (int k = 0; k < cs_bench_npatterns; k++) {
        if (((plan->patterns_at[ci] >> k) & 1u) &&
            cs_bench_pattern_tunes(&cs_bench_patterns[k], c)) {
            n++;
        }
    }
    return n;
}

/* share_at from weight_at (the default plan) or, when no size has a weight (--comm-sizes),
 * from the points and reserve of each size: every point then gets the same share. A size
 * without points gets none. */
static void set_shares(cs_bench_plan_t *plan) {
    double wsum = 0, psum = 0;
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int pts = plan->points_at[ci] + plan->reserve_at[ci];
        wsum += pts > 0 ? plan->weight_at[ci] : 0;
        psum += pts;
    }
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int pts = plan->points_at[ci] + plan->reserve_at[ci];
        plan->share_at[ci] = pts == 0     ? 0
                             : wsum > 0   ? plan->weight_at[ci] / wsum
                             : psum > 0.0 ? pts / psum
                                          : 0;
    }
}

int cs_bench_plan_set_sizes(cs_bench_plan_t *plan, const cs_bench_opts_t *o,
                            const uint64_t *thresholds, int nthresholds) {
    int rc = CS_OK, nkeys = 0;
    CS_CHECK(cs_bench_plan_sizes(o->sizes, o->nsizes, o->no_refine ? NULL : thresholds,
                                 o->no_refine ? 0 : nthresholds, plan->sizes, CS_BENCH_MAX_SIZES,
                                 &plan->nsizes));
    plan->refine_max = o->no_refine ? 0 : cs_bench_refine_max(plan->sizes, plan->nsizes);
    if (plan->nsizes + plan->refine_max > CS_BENCH_MAX_SIZES) {
        plan->refine_max = CS_BENCH_MAX_SIZES - plan->nsizes;
    }
    plan->npoints = 0;
    plan->ndata_keys = 0;
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        plan->points_at[ci] = 0;
        plan->reserve_at[ci] = 0;
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            int keys = cs_coll_is_neighbor((cs_coll_t)c)
                           ? cs_bench_plan_npatterns(plan, ci, (cs_coll_t)c)
                           : 1;
            int data = cs_coll_has_data((cs_coll_t)c) && !cs_coll_is_neighbor((cs_coll_t)c);
            if (plan->nalgos[c] == 0) {
                continue;
            }
            nkeys += keys;
            plan->ndata_keys += data;
            plan->points_at[ci] += keys * cs_bench_plan_key_nsizes(plan, (cs_coll_t)c);
            plan->reserve_at[ci] += data * plan->refine_max;
        }
        plan->npoints += plan->points_at[ci];
    }
    plan->nkeys = nkeys;
    set_shares(plan);
out:
    return rc;
}

int cs_bench_plan_expand(cs_bench_plan_t *plan, int nprocs, int ppn, int rank) {
    int rc = CS_OK;
    cs_variant_t *v = malloc(CS_BENCH_MAX_CANDS * sizeof(*v));
    CS_REQUIRE(v != NULL, CS_ERR_NOMEM);
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int n = 0;
        for (int i = 0; i < plan->nalgos[c]; i++) {
            int nv = 0;
            rc = cs_algo_variants(plan->algos[c][i], nprocs, ppn, v, CS_BENCH_MAX_CANDS - n, &nv);
            if (rc == CS_ERR_NOMEM) {
                cs_bench_say(rank,
                             "%s: more than %d candidates on %d processes (%s has too many "
                             "variants); narrow the plan with --algorithms",
                             cs_coll_name((cs_coll_t)c), CS_BENCH_MAX_CANDS, nprocs,
                             plan->algos[c][i]->name);
            }
            CS_CHECK(rc);
            for (int k = 0; k < nv; k++) {
                cs_bench_cand_set(&plan->cands[c][n++], v[k].algo, &v[k].params);
            }
        }
        plan->ncands[c] = n;
    }
out:
    free(v);
    return rc;
}

/* --list: the neighbourhood patterns of each communicator size with their signatures, and
 * the block sizes. */
static void list_patterns(const cs_bench_plan_t *plan) {
    char text[32];
    printf("block sizes (neighbourhood collectives, bytes per block; no threshold points, no "
           "refinement):");
    for (int i = 0; i < plan->nblock_sizes; i++) {
        cs_bench_format_bytes(plan->block_sizes[i], text, sizeof(text));
        printf(" %s", text);
    }
    printf("\n");
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int p = plan->comm_sizes[ci];
        printf("patterns at %d processes (signature: edges, largest out- and in-degree, mean "
               "out-degree, in-degree imbalance):\n",
               p);
        for (int k = 0; k < cs_bench_npatterns; k++) {
            const cs_bench_pattern_t *pat = &cs_bench_patterns[k];
            cs_graph_t g = {0};
            cs_graph_sig_t sig;
            if (!(plan->patterns_at[ci] & (1u << k))) {
                printf("  %-16s %s: not tuned here (not selected, or no edge between two "
                       "processes at %d)\n",
                       pat->name, pat->desc, p);
                continue;
            }
            if (cs_bench_pattern_graph(pat, p, &g) != CS_OK) {
                cs_graph_free(&g);
                continue;
            }
            cs_graph_sig(&g, &sig);
            printf("  %-16s %s: edges %d, out %d, in %d, mean %.2f, imbalance %.2f", pat->name,
                   pat->desc, sig.nedges, sig.max_out, sig.max_in, sig.mean_out, sig.imbalance);
            for (int c = 0, first = 1; pat->colls != 0 && c < CS_COLL_COUNT; c++) {
                if (cs_coll_is_neighbor((cs_coll_t)c) &&
                    cs_bench_pattern_tunes(pat, (cs_coll_t)c)) {
                    printf("%s%s", first ? "; tuned for " : ", ", cs_coll_name((cs_coll_t)c));
                    first = 0;
                }
            }
            printf("\n");
            cs_graph_free(&g);
        }
    }
}

double cs_bench_plan_size_estimate(const cs_bench_opts_t *o, const cs_bench_plan_t *plan, int ci) {
    if (o->budget_s > 0) { /* the measurement pass's part of the budget (tune.c) */
        double part = o->no_confirm || o->validate ? 1.0 : 1.0 - CS_BENCH_CONFIRM_SHARE;
        part -= !o->validate && o->overlap == CS_BENCH_OVERLAP_ON ? CS_BENCH_OVERLAP_SHARE : 0;
        return o->budget_s * part * plan->share_at[ci];
    }
    return CS_BENCH_POINT_BUDGET_S *
           (plan->points_at[ci] + (o->validate ? 0 : plan->reserve_at[ci]));
}

/* --list: the communicator sizes, where they come from, and what each costs. */
static void list_comm_sizes(const cs_bench_opts_t *o, const cs_bench_plan_t *plan) {
    if (plan->default_sizes) {
        printf("communicator sizes (default plan: 2, the powers of two up to the job size and the "
               "job size; with several nodes one node, two nodes and all nodes; sub-communicators "
               "are the lowest ranks; --comm-sizes overrides):\n");
    } else {
        printf("communicator sizes (--comm-sizes; sub-communicators are the lowest ranks):\n");
    }
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        char dur[32];
        cs_bench_format_duration(cs_bench_plan_size_estimate(o, plan, ci), dur, sizeof(dur));
        printf("  np=%-5d ppn=%-4d %6d points (+ up to %d refinement)  %5.1f %% of %s "
               "measurement pass%s  about %s%s\n",
               plan->comm_sizes[ci], plan->ppn_at[ci], plan->points_at[ci], plan->reserve_at[ci],
               100.0 * plan->share_at[ci], o->budget_s > 0 ? "the" : "a budgeted",
               plan->default_sizes ? "" : " (by points)", dur, o->budget_s > 0 ? "" : " at most");
    }
    if (plan->default_sizes && plan->ncomm_sizes > 1) {
        printf("  weights: log2(size), x2 for the job size, x1.5 for one node and two nodes; "
               "each size's share is spread equally over its points%s\n",
               o->budget_s > 0 ? ""
                               : " (under --budget; without one every point gets the same "
                                 "time)");
    }
}

int cs_bench_plan_list(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int rank) {
    int rc = CS_OK;
    int ncolls = 0, nmeasure = 0, nrefine = 0, nnbr_colls = 0, nnbr_points = 0;
    char dur[32], text[32];
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci];
        CS_CHECK(cs_bench_plan_expand(plan, n, plan->ppn_at[ci], rank));
        if (plan->ncomm_sizes > 1) {
            printf("# communicator size %d (%d per node)\n", n, plan->ppn_at[ci]);
        }
        ncolls = 0;
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            for (int i = 0; i < plan->ncands[c]; i++) {
                printf("%s\n", plan->cands[c][i].name);
            }
            int nbr = cs_coll_is_neighbor((cs_coll_t)c);
            int keys = nbr ? cs_bench_plan_npatterns(plan, ci, (cs_coll_t)c) : 1;
            ncolls += plan->ncands[c] > 0;
            nmeasure += plan->ncands[c] * keys * cs_bench_plan_key_nsizes(plan, (cs_coll_t)c);
            nrefine += plan->ncands[c] > 0 && cs_coll_has_data((cs_coll_t)c) && !nbr
                           ? plan->refine_max
                           : 0;
            if (nbr && plan->ncands[c] > 0) {
                nnbr_colls += ci == 0;
                nnbr_points += keys * plan->nblock_sizes;
            }
        }
    }
    printf("sizes (%d per collective and communicator size, %d from the grid):", plan->nsizes,
           o->nsizes);
    for (int i = 0; i < plan->nsizes; i++) {
        cs_bench_format_bytes(plan->sizes[i], text, sizeof(text));
        printf(" %s", text);
    }
    printf("\n");
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (plan->nalgos[c] > 0 && !cs_coll_has_data((cs_coll_t)c)) {
            printf("%s: no data, one point per communicator size (0 bytes), no refinement\n",
                   cs_coll_name((cs_coll_t)c));
        }
    }
    if (nnbr_colls > 0) {
        list_patterns(plan);
    }
    double per_point = o->budget_s > 0 ? o->budget_s / (plan->npoints > 0 ? plan->npoints : 1)
                                       : CS_BENCH_POINT_BUDGET_S;
    cs_bench_format_duration(per_point * plan->npoints, dur, sizeof(dur));
    printf("plan: %d collectives x %d sizes (1 without data; neighbourhood ones: patterns x block "
           "sizes) x %d communicator sizes = %d points, %d measurements\n",
           ncolls, plan->nsizes, plan->ncomm_sizes, plan->npoints, nmeasure);
    if (nnbr_colls > 0) {
        char ndur[32];
        cs_bench_format_duration(per_point * nnbr_points, ndur, sizeof(ndur));
        printf("neighbourhood collectives: %d collectives x their patterns x %d block sizes = %d "
               "of the %d points, about %s of the run (%.0f %%)\n",
               nnbr_colls, plan->nblock_sizes, nnbr_points, plan->npoints, ndur,
               plan->npoints > 0 ? 100.0 * nnbr_points / plan->npoints : 0.0);
    }
    if (o->no_refine) {
        printf("boundary refinement: off (--no-refine)\n");
    } else {
        printf("boundary refinement: the run may add up to %d points (%d per collective and "
               "communicator size) where the winner changes between measured sizes; they share "
               "the budget\n",
               nrefine, plan->refine_max);
    }
    if (o->no_confirm) {
        printf("confirmation: off (--no-confirm)\n");
    } else if (o->budget_s > 0) {
        printf("confirmation: %d round(s); the sizes where a candidate beats native (and in every "
               "round before) measured again at the end with native and the best %d, in %.0f %% "
               "of the budget at least\n",
               o->confirm_rounds, CS_BENCH_CONFIRM_CANDS, 100.0 * CS_BENCH_CONFIRM_SHARE);
    } else {
        printf("confirmation: %d round(s); the sizes where a candidate beats native (and in every "
               "round before) measured again at the end with native and the best %d, %.1f s "
               "each (at most %d points a round)\n",
               o->confirm_rounds, CS_BENCH_CONFIRM_CANDS, CS_BENCH_CONFIRM_POINT_BUDGET_S,
               plan->npoints + nrefine);
    }
    list_comm_sizes(o, plan);
    printf("estimated duration: at most %s (%.2f s timing per point, plus verification%s)\n", dur,
           per_point, o->budget_s > 0 ? "" : " and refinement points");
out:
    return rc;
}

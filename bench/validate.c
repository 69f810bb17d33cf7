/* collsel-bench --validate (see validate.h). */
#include "validate.h"

#include "collsel.h"
#include "core/log.h"
#include "core/rule.h"
#include "plan.h"
#include "registry.h"
#include "rules.h"
#include "select.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The oracle as rank 0 broadcasts it: a registered algorithm and its parameters. */
typedef struct oracle {
    int index; /* into cs_registry; -1: none (no best, native, or no longer registered) */
    cs_params_t params;
} oracle_t;

/* The selector's dispatch through the public API (cs_sel_fns: the collsel_* entry points), as a
 * candidate to time. */
static int run_selected(const cs_call_t *call) {
    return cs_call_invoke(call, &cs_sel_fns) == MPI_SUCCESS ? CS_OK : CS_ERR_MPI;
}

static cs_algo_t selected_algo[CS_COLL_COUNT];
static char selected_name[CS_COLL_COUNT][48];

static const cs_algo_t *selected_of(cs_coll_t coll) {
    cs_algo_t *a = &selected_algo[coll];
    snprintf(selected_name[coll], sizeof(selected_name[coll]), "%s/selected", cs_coll_name(coll));
    a->name = selected_name[coll];
    a->coll = coll;
    a->desc = "collsel's dispatch (collsel.h)";
    a->run = run_selected;
    return a;
}

static int collect_best(const cs_db_measurement_t *m, void *ctx) {
    cs_bench_validation_t *v = ctx;
    cs_bench_best_t *b = NULL;
    double score;
    for (size_t i = 0; i < v->nbest && b == NULL; i++) {
        if (strcmp(v->best[i].coll, m->point.coll) == 0 &&
            strcmp(v->best[i].pattern, m->point.pattern ? m->point.pattern : "") == 0 &&
            v->best[i].comm_size == m->point.comm_size && v->best[i].bytes == m->point.bytes) {
            b = &v->best[i];
        }
    }
    if (b == NULL) {
        if (v->nbest == v->best_cap) {
            size_t cap = v->best_cap ? 2 * v->best_cap : 128;
            cs_bench_best_t *nv = realloc(v->best, cap * sizeof(*nv));
            if (nv == NULL) {
                return CS_ERR_NOMEM;
            }
            v->best = nv;
            v->best_cap = cap;
        }
        b = &v->best[v->nbest++];
        snprintf(b->coll, sizeof(b->coll), "%s", m->point.coll);
        snprintf(b->pattern, sizeof(b->pattern), "%s", m->point.pattern ? m->point.pattern : "");
        b->comm_size = m->point.comm_size;
        b->bytes = m->point.bytes;
        b->score = INFINITY;
    }
    score = cs_bench_score(m->median_us, m->loop_median_us, m->loop_reps > 0, v->metric);
    if (score < b->score) {
        b->score = score;
        snprintf(b->algorithm, sizeof(b->algorithm), "%s", m->point.algorithm);
        snprintf(b->params, sizeof(b->params), "%s", m->point.params ? m->point.params : "");
    }
    return CS_OK;
}

typedef struct run_ids {
    int64_t v[64];
    int n;
} run_ids_t;

static int collect_run_id(const cs_rule_t *rule, void *ctx) {
    run_ids_t *ids = ctx;
    for (int i = 0; i < ids->n; i++) {
        if (ids->v[i] == rule->run_id) {
            return CS_OK;
        }
    }
    if (ids->n < 64 && rule->run_id > 0) {
        ids->v[ids->n++] = rule->run_id;
    }
    return CS_OK;
}

/* Rank 0: the best candidate of every point measured by the runs that made the rules. */
static int load_best(cs_bench_validation_t *v, const cs_bench_run_t *r) {
    int rc = CS_OK;
    run_ids_t ids = {{0}, 0};
    CS_CHECK(cs_db_foreach_rule(r->db, r->machine_id, collect_run_id, &ids));
    for (int i = 0; i < ids.n; i++) {
        CS_CHECK(cs_db_foreach_measurement(r->db, ids.v[i], collect_best, v));
    }
out:
    return rc;
}

int cs_bench_validate_start(cs_bench_validation_t *v, const cs_bench_run_t *r, int npoints,
                            int rank, MPI_Comm world) {
    int rc = CS_OK, status = 0;
    char path[4096];
    if (rank == 0) {
        status = load_best(v, r) != CS_OK;
        v->ratio_native = calloc((size_t)npoints + v->nbest + 1, sizeof(double));
        v->ratio_best = calloc((size_t)npoints + v->nbest + 1, sizeof(double));
        v->loop_ratio_native = calloc((size_t)npoints + v->nbest + 1, sizeof(double));
        v->loop_ratio_best = calloc((size_t)npoints + v->nbest + 1, sizeof(double));
        v->points = calloc((size_t)npoints + v->nbest + 1, sizeof(*v->points));
        status = status || v->ratio_native == NULL || v->ratio_best == NULL ||
                 v->loop_ratio_native == NULL || v->loop_ratio_best == NULL || v->points == NULL;
        if (!status && v->nbest == 0) {
            cs_bench_say(rank,
                         "--validate: %s has no rules for this machine yet: run a tuning run "
                         "first",
                         r->path);
            status = 1;
        }
    }
    CS_MPI_CHECK(PMPI_Bcast(&status, 1, MPI_INT, 0, world));
    CS_REQUIRE(status == 0, CS_ERR_DB);
    /* The selector reads the database just validated; rank 0 chose its path. */
    snprintf(path, sizeof(path), "%s", r->path);
    CS_MPI_CHECK(PMPI_Bcast(path, (int)sizeof(path), MPI_CHAR, 0, world));
    collsel_init(path);
out:
    return rc;
}

/* Rank 0: the oracle at the point of `call`: the best candidate measured there, unless there is
 * none, it is native, or it is not a registered algorithm with parameters it takes. */
static oracle_t oracle_for(const cs_bench_validation_t *v, const cs_call_t *call,
                           const char *pattern, uint64_t key) {
    oracle_t o = {-1, {0}};
    char why[256];
    for (size_t i = 0; i < v->nbest; i++) {
        const cs_bench_best_t *b = &v->best[i];
        if (strcmp(b->coll, cs_coll_name(call->coll)) != 0 || strcmp(b->pattern, pattern) != 0 ||
            b->comm_size != call->nprocs || b->bytes != key) {
            continue;
        }
        const cs_algo_t *a = cs_registry_find(b->algorithm);
        if (a == NULL || cs_algo_is_native(a) ||
            cs_params_parse(a->params, a->nparams, b->params, &o.params, why, sizeof(why)) !=
                CS_OK) {
            break;
        }
        for (int k = 0; k < cs_registry_count; k++) {
            if (cs_registry[k] == a) {
                o.index = k;
            }
        }
        break;
    }
    return o;
}

/* max(b/a, a/b): how far two timings of the same thing differ; NaN unless both are > 0. */
static double spread_of(double a, double b) {
    return a > 0 && b > 0 ? fmax(a / b, b / a) : NAN;
}

/* Rank 0: the point (coll, pattern, comm_size, key) among v->acc, added when new; NULL when
 * out of memory. A later pass measures the points in the first pass's order, so the one after
 * the last found is tried first. */
static cs_bench_valid_acc_t *acc_of(cs_bench_validation_t *v, cs_coll_t coll, const char *pattern,
                                    int comm_size, uint64_t key) {
    cs_bench_valid_acc_t *a;
    for (int k = 0; k < v->nacc; k++) {
        int i = (v->cursor + k) % v->nacc;
        a = &v->acc[i];
        if (a->coll == coll && a->comm_size == comm_size && a->bytes == key &&
            strcmp(a->pattern, pattern) == 0) {
            v->cursor = i + 1;
            return a;
        }
    }
    if (v->nacc == v->acc_cap) {
        int cap = v->acc_cap ? 2 * v->acc_cap : 256;
        cs_bench_valid_acc_t *na = realloc(v->acc, (size_t)cap * sizeof(*na));
        if (na == NULL) {
            return NULL;
        }
        v->acc = na;
        v->acc_cap = cap;
    }
    a = &v->acc[v->nacc++];
    memset(a, 0, sizeof(*a));
    a->coll = coll;
    snprintf(a->pattern, sizeof(a->pattern), "%s", pattern);
    a->comm_size = comm_size;
    a->bytes = key;
    v->cursor = v->nacc;
    return a;
}

int cs_bench_validate_point(cs_bench_validation_t *v, const cs_bench_opts_t *o,
                            const cs_call_t *call, const char *pattern, uint64_t key,
                            cs_bench_bufs_t *bufs, cs_bench_sync_t *sync, unsigned seed, int ppn,
                            MPI_Comm sub, double rtt_ns, cs_bench_progress_t *progress) {
    /* The candidates' slots: native A must be first (measure.h); the oracle is last, if any. */
    enum { NATIVE_A, SELECTED, NATIVE_B, ORACLE };
    int rc = CS_OK;
    cs_bench_cand_t cands[4];
    cs_sel_choice_t ch;
    oracle_t best = {-1, {0}};
    int ncand = 3;
    memset(cands, 0, sizeof(cands));
    if (call->rank == 0) {
        best = oracle_for(v, call, pattern, key);
    }
    CS_MPI_CHECK(PMPI_Bcast(&best, (int)sizeof(best), MPI_BYTE, 0, sub));
    /* the call's own communicator: a neighbourhood collective's rules follow its topology */
    CS_CHECK(cs_sel_choose(call->coll, key, call->comm, &ch));
    cs_bench_cand_set(&cands[NATIVE_A], cs_registry_native(call->coll), NULL);
    cs_bench_cand_set(&cands[SELECTED], selected_of(call->coll), NULL);
    cs_bench_cand_set(&cands[NATIVE_B], cs_registry_native(call->coll), NULL);
    if (best.index >= 0 && best.index < cs_registry_count) {
        cs_bench_cand_set(&cands[ncand++], cs_registry[best.index], &best.params);
    }
    /* each pass its own interleaving order */
    seed += (unsigned)(v->pass > 1 ? v->pass - 1 : 0) * 0x85ebca6bu;
    CS_CHECK(cs_bench_measure(cands, ncand, call, bufs, CS_BENCH_POINT_BUDGET_S, o->reps_max, -1,
                              seed, sync, sub, call->rank == 0 ? progress : NULL));
    if (call->rank == 0) {
        const cs_bench_cand_t *nb = &cands[NATIVE_B], *orc = &cands[ncand - 1]; /* or B */
        int has_oracle = ncand > ORACLE;
        int has_loop = cands[NATIVE_A].nloop_samples > 0 && cands[SELECTED].nloop_samples > 0 &&
                       orc->nloop_samples > 0;
        cs_bench_valid_acc_t *a = acc_of(v, call->coll, pattern, call->nprocs, key);
        CS_REQUIRE(a != NULL, CS_ERR_NOMEM);
        if (a->n == 0) {
            a->ppn = ppn;
            cs_variant_name(&ch.variant, a->choice, sizeof(a->choice));
            snprintf(a->sel_algo, sizeof(a->sel_algo), "%s", ch.variant.algo->name);
            cs_params_format(&ch.variant.params, a->sel_params, sizeof(a->sel_params));
            snprintf(a->oracle_algo, sizeof(a->oracle_algo), "%s", orc->v.algo->name);
            snprintf(a->oracle_params, sizeof(a->oracle_params), "%s",
                     has_oracle ? cands[ORACLE].params : "");
        }
        if (cands[SELECTED].failed) {
            fprintf(stderr, "collsel-bench: FAILED: the selector's %s%s%s of %llu bytes: %s\n",
                    cs_coll_name(call->coll), pattern[0] ? " on pattern " : "", pattern,
                    (unsigned long long)key, cands[SELECTED].failure);
            a->failed = 1;
        } else if (a->n < CS_BENCH_MAX_PASSES) {
            double *t = a->t[a->n];
            a->rtt_ns[a->n++] = rtt_ns;
            t[CS_VALID_NATIVE] = cands[NATIVE_A].summary.median;
            t[CS_VALID_SELECTED] = cands[SELECTED].summary.median;
            t[CS_VALID_ORACLE] = has_oracle ? orc->summary.median : t[CS_VALID_NATIVE];
            t[CS_VALID_NATIVE_B] = nb->failed ? NAN : nb->summary.median;
            t[4 + CS_VALID_NATIVE] = has_loop ? cands[NATIVE_A].loop_summary.median : NAN;
            t[4 + CS_VALID_SELECTED] = has_loop ? cands[SELECTED].loop_summary.median : NAN;
            t[4 + CS_VALID_ORACLE] = !has_loop    ? NAN
                                     : has_oracle ? orc->loop_summary.median
                                                  : t[4 + CS_VALID_NATIVE];
            t[4 + CS_VALID_NATIVE_B] =
                has_loop && !nb->failed && nb->nloop_samples > 0 ? nb->loop_summary.median : NAN;
        }
    }
out:
    cs_bench_cands_free(cands, ncand);
    return rc;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and worst of v[0..n-1] (sorts v). */
static void median_worst(double *v, int n, double *median, double *worst) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    *median = n == 0 ? NAN : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *worst = n == 0 ? NAN : v[n - 1];
}

/* The median of column k of a's passes that have a positive time there; NaN when none. */
static double pass_median(const cs_bench_valid_acc_t *a, int k) {
    double x[CS_BENCH_MAX_PASSES], median, worst;
    int n = 0;
    for (int p = 0; p < a->n; p++) {
        if (a->t[p][k] > 0) {
            x[n++] = a->t[p][k];
        }
    }
    median_worst(x, n, &median, &worst);
    return median;
}

int cs_bench_validate_finish(cs_bench_validation_t *v, cs_bench_run_t *r, int quiet) {
    int rc = CS_OK;
    for (int i = 0; i < v->nacc; i++) {
        const cs_bench_valid_acc_t *a = &v->acc[i];
        cs_db_validation_t row;
        double m[CS_VALID_TIMES];
        if (a->failed || a->n == 0) { /* a wrong dispatch has no time to store; it is reported */
            continue;
        }
        for (int k = 0; k < CS_VALID_TIMES; k++) {
            m[k] = pass_median(a, k);
        }
        double native = m[CS_VALID_NATIVE], sel = m[CS_VALID_SELECTED];
        double oracle = m[CS_VALID_ORACLE], native2 = m[CS_VALID_NATIVE_B];
        double lnative = m[4 + CS_VALID_NATIVE], lsel = m[4 + CS_VALID_SELECTED];
        double loracle = m[4 + CS_VALID_ORACLE], lnative2 = m[4 + CS_VALID_NATIVE_B];
        int has_loop = !isnan(lnative) && !isnan(lsel) && !isnan(loracle);
        double spread = spread_of(native, native2), lspread = spread_of(lnative, lnative2);
        memset(&row, 0, sizeof(row));
        row.run_id = r->run_id;
        row.coll = cs_coll_name(a->coll);
        row.comm_size = a->comm_size;
        row.ppn = a->ppn;
        row.bytes = a->bytes;
        row.pattern = a->pattern;
        row.native_us = native;
        row.selected_us = sel;
        row.oracle_us = oracle;
        row.native_loop_us = lnative;
        row.selected_loop_us = lsel;
        row.oracle_loop_us = loracle;
        row.native2_us = native2;
        row.native2_loop_us = lnative2;
        row.selected_algorithm = a->sel_algo;
        row.selected_params = a->sel_params;
        row.oracle_algorithm = a->oracle_algo;
        row.oracle_params = a->oracle_params;
        CS_CHECK(cs_db_insert_validation(r->db, &row));
        double rtt = NAN;
        for (int p = 0; p < a->n; p++) {
            const cs_db_core_state_t st = {p + 1,  row.coll, a->pattern,  a->comm_size,
                                           a->ppn, a->bytes, a->rtt_ns[p]};
            if (a->rtt_ns[p] > 0) { /* else not probed */
                CS_CHECK(cs_db_put_core_state(r->db, r->run_id, &st));
                rtt = !(a->rtt_ns[p] <= rtt) ? a->rtt_ns[p] : rtt;
            }
        }
        v->points[v->npoints++] = (cs_bench_valid_point_t){
            .rtt_ns = rtt,
            .coll = a->coll,
            .comm_size = a->comm_size,
            .bytes = a->bytes,
            .ratio_native = {native > 0 ? sel / native : NAN,
                             has_loop && lnative > 0 ? lsel / lnative : NAN},
            .spread = {spread, has_loop ? lspread : NAN},
        };
        if (native > 0 && oracle > 0) {
            v->ratio_native[v->nratios] = sel / native;
            v->ratio_best[v->nratios] = sel / oracle;
            v->nratios++;
        }
        if (has_loop && lnative > 0 && loracle > 0) {
            v->loop_ratio_native[v->nloop_ratios] = lsel / lnative;
            v->loop_ratio_best[v->nloop_ratios] = lsel / loracle;
            v->nloop_ratios++;
        }
        if (!quiet) {
            printf("  %-10s%s%s np=%-3d %8llu B  sync: native %9.2f us  selected %9.2f us (%s)  "
                   "best %9.2f us (%s)  sel/native %.2f  sel/best %.2f  native A/B %.2f\n",
                   cs_coll_name(a->coll), a->pattern[0] ? " " : "", a->pattern, a->comm_size,
                   (unsigned long long)a->bytes, native, sel, a->choice, oracle, a->oracle_algo,
                   sel / native, sel / oracle, spread);
            printf("  %-10s %-6s %8s    loop: native %9.2f us  selected %9.2f us  best %9.2f us  "
                   "sel/native %.2f  sel/best %.2f  native A/B %.2f\n",
                   "", "", "", lnative, lsel, loracle, lsel / lnative, lsel / loracle, lspread);
        }
    }
out:
    return rc;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int cs_bench_validate_sizes(const uint64_t *tuned, int ntuned, uint64_t *out, int cap, int *nout) {
    uint64_t largest = 0;
    int n = 0, k = 0;
    *nout = 0;
    for (int i = 0; i < ntuned; i++) {
        largest = tuned[i] > largest ? tuned[i] : largest;
        if (n == cap) {
            return CS_ERR_NOMEM;
        }
        out[n++] = tuned[i];
    }
    for (uint64_t p = 4; p <= largest && p != 0; p <<= 1) {
        if (n == cap) {
            return CS_ERR_NOMEM;
        }
        out[n++] = p;
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

int cs_bench_validate_tuned(const cs_bench_validation_t *v, cs_coll_t coll, int comm_size,
                            uint64_t *out, int cap) {
    int n = 0;
    for (size_t i = 0; i < v->nbest && n < cap; i++) {
        if (strcmp(v->best[i].coll, cs_coll_name(coll)) == 0 && v->best[i].comm_size == comm_size) {
            out[n++] = v->best[i].bytes;
        }
    }
    return n;
}

static bool beyond_noise(const cs_bench_valid_point_t *p, int m) {
    return p->ratio_native[m] > CS_BENCH_VALIDATE_MARGIN * p->spread[m];
}

int cs_bench_validate_noise(const cs_bench_validation_t *v, int metric, double *median_spread,
                            double *worst_spread, int *nspread) {
    double *spreads = calloc((size_t)v->npoints + 1, sizeof(double));
    int n = 0, nbeyond = 0;
    *median_spread = *worst_spread = NAN;
    *nspread = 0;
    if (spreads == NULL) {
        return CS_ERR_NOMEM;
    }
    for (int i = 0; i < v->npoints; i++) {
        const cs_bench_valid_point_t *p = &v->points[i];
        if (!isnan(p->spread[metric]) && !isnan(p->ratio_native[metric])) {
            spreads[n++] = p->spread[metric];
            nbeyond += beyond_noise(p, metric);
        }
    }
    median_worst(spreads, n, median_spread, worst_spread);
    *nspread = n;
    free(spreads);
    return nbeyond;
}

/* The near core-to-core state of the validation: its smallest probe (NaN: none). */
static double near_of(const cs_bench_validation_t *v) {
    double near = NAN;
    for (int i = 0; i < v->nacc; i++) {
        for (int p = 0; p < v->acc[i].n; p++) {
            double x = v->acc[i].rtt_ns[p];
            if (x > 0 && (isnan(near) || x < near)) {
                near = x;
            }
        }
    }
    return near;
}

/* Rank 0: the spread line of metric `m` (0 sync, 1 loop) and the points beyond the noise, each
 * with its core-to-core state against `near`, the validation's near state (near_of). */
static void summarise_spread(const cs_bench_validation_t *v, int m, const char *metric,
                             double near) {
    double median, worst;
    int nspread;
    int nbeyond = cs_bench_validate_noise(v, m, &median, &worst, &nspread);
    if (nbeyond < 0) {
        printf("  %s metric: native run-to-run spread: out of memory\n", metric);
        return;
    }
    printf("  %s metric: native run-to-run spread (native A/B) median %.3f worst %.3f over %d "
           "points; selected/native above %.2f x spread at %d of them%s\n",
           metric, median, worst, nspread, CS_BENCH_VALIDATE_MARGIN, nbeyond,
           nbeyond > 0 ? ":" : "");
    for (int i = 0; i < v->npoints; i++) {
        const cs_bench_valid_point_t *p = &v->points[i];
        if (!isnan(p->spread[m]) && !isnan(p->ratio_native[m]) && beyond_noise(p, m)) {
            printf("    %-10s np=%-3d %8" PRIu64
                   " B  selected/native %.3f  spread %.3f  cores %.0f ns%s\n",
                   cs_coll_name(p->coll), p->comm_size, p->bytes, p->ratio_native[m], p->spread[m],
                   p->rtt_ns, cs_bench_core_far(p->rtt_ns, near) ? " (far)" : "");
        }
    }
}

void cs_bench_validate_summary(cs_bench_validation_t *v, int oversubscribed) {
    double mn, wn, mb, wb, near = near_of(v), top = NAN;
    median_worst(v->ratio_native, v->nratios, &mn, &wn);
    median_worst(v->ratio_best, v->nratios, &mb, &wb);
    printf("validation over %d points%s, each the median of %d pass%s, sync metric: "
           "selected/native median %.3f worst %.3f; selected/best median %.3f worst %.3f\n",
           v->nratios, oversubscribed ? " (oversubscribed)" : "", v->passes,
           v->passes == 1 ? "" : "es", mn, wn, mb, wb);
    summarise_spread(v, 0, "sync", near);
    median_worst(v->loop_ratio_native, v->nloop_ratios, &mn, &wn);
    median_worst(v->loop_ratio_best, v->nloop_ratios, &mb, &wb);
    printf("validation over %d points%s, each the median of %d pass%s, loop metric: "
           "selected/native median %.3f worst %.3f; selected/best median %.3f worst %.3f\n",
           v->nloop_ratios, oversubscribed ? " (oversubscribed)" : "", v->passes,
           v->passes == 1 ? "" : "es", mn, wn, mb, wb);
    summarise_spread(v, 1, "loop", near);
    int nfar = 0, nprobed = 0;
    for (int i = 0; i < v->npoints; i++) {
        const cs_bench_valid_point_t *p = &v->points[i];
        if (!isnan(p->rtt_ns)) {
            nprobed++;
            nfar += cs_bench_core_far(p->rtt_ns, near);
            top = !(p->rtt_ns <= top) ? p->rtt_ns : top;
        }
    }
    if (nprobed > 0) {
        printf("  core-to-core round trip before each point: %.0f-%.0f ns; %d of %d points had a "
               "pass in the far state (above %.0f x the smallest; docs/tuning.md \"The host moves "
               "the cores\")\n",
               near, top, nfar, nprobed, CS_BENCH_CORE_FAR);
    }
}

void cs_bench_validate_free(cs_bench_validation_t *v) {
    free(v->best);
    free(v->ratio_native);
    free(v->ratio_best);
    free(v->loop_ratio_native);
    free(v->loop_ratio_best);
    free(v->points);
    free(v->acc);
    memset(v, 0, sizeof(*v));
}

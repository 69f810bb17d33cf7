/* The tuning run (see tune.h). */
#include "tune.h"

#include "collsel.h"
#include "core/log.h"
#include "core/machine.h"
#include "core/rule.h"
#include "db.h"
#include "measure.h"
#include "options.h"
#include "progress.h"
#include "registry.h"
#include "rules.h"
#include "select.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_CANDS              512 /* per collective: every grid layout of p <= 1024 fits */
#define DEFAULT_POINT_BUDGET_S 2.0
#define MIN_POINT_BUDGET_S     0.05

typedef struct plan {
    const cs_algo_t *algos[CS_COLL_COUNT][MAX_CANDS]; /* [0] native, then the selected ones */
    int nalgos[CS_COLL_COUNT];
    cs_bench_cand_t cands[CS_COLL_COUNT][MAX_CANDS]; /* variants for the current comm size */
    int ncands[CS_COLL_COUNT];
    int comm_sizes[CS_BENCH_MAX_LIST];
    int ncomm_sizes;
    int npoints;
} plan_t;

/* The best candidate the tuning run measured at one point (validation). */
typedef struct best {
    char coll[32], algorithm[128], params[128];
    int comm_size;
    uint64_t bytes;
    double median_us;
} best_t;

/* Rank-0 state of a run. */
typedef struct run {
    cs_db_t *db;
    int64_t machine_id, run_id;
    char path[4096];
    best_t *best; /* validation: the tuned runs' best candidates */
    size_t nbest, best_cap;
    double *ratio_native, *ratio_best; /* validation: selected/native, selected/best */
    int nratios;
} run_t;

static void say(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(int rank, const char *fmt, ...) {
    va_list ap;
    if (rank != 0) {
        return;
    }
    va_start(ap, fmt);
    fputs("collsel-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

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

/* Algorithms per collective: native first, then the selected registered algorithms, then the
 * extra ones. Their variants depend on the communicator (expand_cands). */
static int make_plan(const cs_bench_opts_t *o, const cs_algo_t *const *extra, int nextra,
                     int nprocs, plan_t *plan) {
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
                n < MAX_CANDS) {
                plan->algos[c][n++] = a;
            }
        }
        for (int i = 0; i < nextra; i++) {
            if (extra[i]->coll == (cs_coll_t)c && n < MAX_CANDS) {
                plan->algos[c][n++] = extra[i];
            }
        }
        plan->nalgos[c] = n;
    }
    if (o->ncomm_sizes == 0) {
        plan->comm_sizes[0] = nprocs;
        plan->ncomm_sizes = 1;
    } else {
        memcpy(plan->comm_sizes, o->comm_sizes, sizeof(int) * (size_t)o->ncomm_sizes);
        plan->ncomm_sizes = o->ncomm_sizes;
    }
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (plan->nalgos[c] > 0) {
            plan->npoints += plan->ncomm_sizes * o->nsizes;
        }
    }
    return CS_OK;
}

/* The candidates of every collective on a communicator of nprocs processes, ppn per node:
 * each planned algorithm's variants. CS_ERR_NOMEM, said by `rank` 0, when one collective has
 * more than MAX_CANDS. */
static int expand_cands(plan_t *plan, int nprocs, int ppn, int rank) {
    int rc = CS_OK;
    cs_variant_t *v = malloc(MAX_CANDS * sizeof(*v));
    CS_REQUIRE(v != NULL, CS_ERR_NOMEM);
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int n = 0;
        for (int i = 0; i < plan->nalgos[c]; i++) {
            int nv = 0;
            rc = cs_algo_variants(plan->algos[c][i], nprocs, ppn, v, MAX_CANDS - n, &nv);
            if (rc == CS_ERR_NOMEM) {
                say(rank,
                    "%s: more than %d candidates on %d processes (%s has too many variants); "
                    "narrow the plan with --algorithms",
                    cs_coll_name((cs_coll_t)c), MAX_CANDS, nprocs, plan->algos[c][i]->name);
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

/* --list: every variant the plan would run (per communicator size when there are several),
 * the plan's size and its estimated duration. `ppn`: processes per node of the job. */
static int print_list(const cs_bench_opts_t *o, plan_t *plan, int ppn, int rank) {
    int rc = CS_OK;
    int ncolls = 0, nmeasure = 0;
    char dur[32];
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci];
        CS_CHECK(expand_cands(plan, n, ppn < n ? ppn : n, rank));
        if (plan->ncomm_sizes > 1) {
            printf("# communicator size %d\n", n);
        }
        ncolls = 0;
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            for (int i = 0; i < plan->ncands[c]; i++) {
                printf("%s\n", plan->cands[c][i].name);
            }
            ncolls += plan->ncands[c] > 0;
            nmeasure += plan->ncands[c] * o->nsizes;
        }
    }
    double per_point = o->budget_s > 0 ? o->budget_s / (plan->npoints > 0 ? plan->npoints : 1)
                                       : DEFAULT_POINT_BUDGET_S;
    cs_bench_format_duration(per_point * plan->npoints, dur, sizeof(dur));
    printf("plan: %d collectives x %d sizes x %d communicator sizes = %d points, %d measurements\n",
           ncolls, o->nsizes, plan->ncomm_sizes, plan->npoints, nmeasure);
    printf("estimated duration: at most %s (%.2f s timing per point, plus verification)\n", dur,
           per_point);
out:
    return rc;
}

static int ensure_parent_dir(const char *path) {
    char dir[4096];
    char *slash;
    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) {
        return 0;
    }
    *slash = '\0';
    if (mkdir(dir, 0775) != 0 && errno != EEXIST) {
        return -1;
    }
    return 0;
}

/* Rank 0: opens the database and starts (or resumes) the run. */
static int open_run(const cs_bench_opts_t *o, const cs_machine_t *m, run_t *r, int *resumed) {
    int rc = CS_OK;
    char why[512] = "";
    bool was_resumed = false;
    cs_db_machine_t dm = {m->host, m->topology, m->mpi_library};
    cs_db_run_t dr = {0};
    if (o->db_path != NULL) {
        snprintf(r->path, sizeof(r->path), "%s", o->db_path);
    } else {
        snprintf(r->path, sizeof(r->path), "results/%s.db", m->host);
        if (ensure_parent_dir(r->path) != 0) {
            fprintf(stderr, "collsel-bench: cannot create directory for %s: %s\n", r->path,
                    strerror(errno));
            return CS_ERR_DB;
        }
    }
    rc = cs_db_open(r->path, CS_DB_READ_WRITE, &r->db, why, sizeof(why));
    if (rc != CS_OK) {
        fprintf(stderr, "collsel-bench: %s\n", why[0] ? why : cs_status_str(rc));
        return rc;
    }
    CS_CHECK(cs_db_find_or_insert_machine(r->db, &dm, &r->machine_id));
    dr.machine_id = r->machine_id;
    dr.nprocs = m->nprocs;
    dr.nnodes = m->nnodes;
    dr.ppn = m->ppn;
    dr.oversubscribed = m->cores > 0 && m->ppn > m->cores;
    dr.args = o->args;
    dr.version = CS_VERSION;
    CS_CHECK(cs_db_start_run(r->db, &dr, o->resume != 0, &r->run_id, &was_resumed));
    *resumed = was_resumed;
out:
    if (rc != CS_OK && r->db != NULL) {
        fprintf(stderr, "collsel-bench: %s: %s\n", r->path, cs_db_errmsg(r->db));
    }
    return rc;
}

/* Rank 0: stores a measured point (measurements and failures) in one batch. */
static int store_point(run_t *r, cs_bench_cand_t *cands, int ncand, cs_coll_t coll, int comm_size,
                       int ppn, uint64_t bytes) {
    int rc = CS_OK;
    int open = 0;
    CS_CHECK(cs_db_begin(r->db));
    open = 1;
    for (int i = 0; i < ncand; i++) {
        const cs_bench_cand_t *c = &cands[i];
        cs_db_point_t pt = {cs_coll_name(coll), c->v.algo->name, c->params, comm_size, ppn, bytes};
        if (!c->applicable) {
            continue;
        }
        if (c->failed) {
            cs_db_failure_t f = {r->run_id, pt, c->failure};
            CS_CHECK(cs_db_insert_failure(r->db, &f));
            continue;
        }
        cs_db_measurement_t m = {r->run_id,
                                 pt,
                                 (int)c->nraw,
                                 (int)c->outliers,
                                 c->summary.min,
                                 c->summary.q1,
                                 c->summary.median,
                                 c->summary.q3,
                                 c->summary.max,
                                 c->v.algo->run == NULL, /* native is the reference */
                                 c->raw,
                                 c->nraw};
        CS_CHECK(cs_db_insert_measurement(r->db, &m));
    }
    CS_CHECK(cs_db_commit(r->db));
    open = 0;
out:
    if (open && cs_db_rollback(r->db) != CS_OK) {
        cs_log(CS_LOG_WARN, "rollback failed: %s", cs_db_errmsg(r->db));
    }
    return rc;
}

/* --- rules from the run's measurements ------------------------------------------------------ */

typedef struct record {
    char coll[32], algorithm[128], params[128];
    int comm_size, ppn;
    uint64_t bytes;
    double *samples;
    size_t n;
} record_t;

typedef struct records {
    record_t *v;
    size_t n, cap;
} records_t;

static int collect(const cs_db_measurement_t *m, void *ctx) {
    records_t *rs = ctx;
    record_t *rec;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 256;
        record_t *v = realloc(rs->v, cap * sizeof(*v));
        if (v == NULL) {
            return CS_ERR_NOMEM;
        }
        rs->v = v;
        rs->cap = cap;
    }
    rec = &rs->v[rs->n];
    memset(rec, 0, sizeof(*rec));
    snprintf(rec->coll, sizeof(rec->coll), "%s", m->point.coll);
    snprintf(rec->algorithm, sizeof(rec->algorithm), "%s", m->point.algorithm);
    snprintf(rec->params, sizeof(rec->params), "%s", m->point.params ? m->point.params : "");
    rec->comm_size = m->point.comm_size;
    rec->ppn = m->point.ppn;
    rec->bytes = m->point.bytes;
    rec->n = m->nsamples;
    rec->samples = malloc((m->nsamples ? m->nsamples : 1) * sizeof(double));
    if (rec->samples == NULL) {
        return CS_ERR_NOMEM;
    }
    memcpy(rec->samples, m->samples_us, m->nsamples * sizeof(double));
    rs->n++;
    return CS_OK;
}

static int is_native_key(const char *name) {
    const cs_algo_t *a = cs_registry_find(name);
    return a != NULL && cs_algo_is_native(a);
}

static int same_group(const record_t *a, const record_t *b) {
    return strcmp(a->coll, b->coll) == 0 && a->comm_size == b->comm_size && a->ppn == b->ppn;
}

/* Rules of one (coll, comm_size, ppn): records [first, last), ordered by bytes. */
static int group_rules(run_t *r, records_t *rs, size_t first, size_t last, int *nrules) {
    int rc = CS_OK;
    size_t n = last - first;
    cs_bench_entry_t *entries = calloc(n, sizeof(*entries));
    cs_bench_size_t *sizes = calloc(n, sizeof(*sizes));
    cs_bench_rule_t *rules = calloc(n, sizeof(*rules));
    cs_db_rule_t *rows = calloc(n, sizeof(*rows));
    cs_bench_cand_t *cands = calloc(MAX_CANDS, sizeof(*cands));
    int nsizes = 0, nout = 0;
    CS_REQUIRE(entries && sizes && rules && rows && cands, CS_ERR_NOMEM);
    for (size_t s = first; s < last;) {
        size_t e = s;
        int k = 0, native = -1;
        while (e < last && rs->v[e].bytes == rs->v[s].bytes) {
            e++;
        }
        memset(cands, 0, MAX_CANDS * sizeof(*cands));
        for (size_t i = s; i < e && k < MAX_CANDS; i++, k++) {
            cands[k].applicable = 1;
            cands[k].samples = rs->v[i].samples;
            cands[k].nsamples = rs->v[i].n;
            if (is_native_key(rs->v[i].algorithm)) {
                native = k;
            }
        }
        if (native < 0) { /* no baseline at this size (a point cut short): no rule */
            s = e;
            continue;
        }
        /* cs_bench_summarise wants native first. */
        cs_bench_cand_t tmp = cands[0];
        cands[0] = cands[native];
        cands[native] = tmp;
        CS_CHECK(cs_bench_summarise(cands, k));
        for (int i = 0; i < k; i++) {
            size_t rec = s + (size_t)(i == 0 ? native : (i == native ? 0 : i));
            cs_bench_entry_t *en = &entries[s - first + (size_t)i];
            en->algorithm = rs->v[rec].algorithm;
            en->params = rs->v[rec].params;
            en->median_us = cands[i].summary.median;
            en->p_value = cands[i].p_value;
            en->native = i == 0;
        }
        sizes[nsizes].bytes = rs->v[s].bytes;
        sizes[nsizes].entries = &entries[s - first];
        sizes[nsizes].n = k;
        nsizes++;
        s = e;
    }
    CS_CHECK(cs_bench_rules(sizes, nsizes, rules, (int)n, &nout));
    for (int i = 0; i < nout; i++) {
        rows[i].machine_id = r->machine_id;
        rows[i].coll = rs->v[first].coll;
        rows[i].comm_size = rs->v[first].comm_size;
        rows[i].ppn = rs->v[first].ppn;
        rows[i].lo_bytes = rules[i].lo_bytes;
        rows[i].hi_bytes =
            rules[i].hi_bytes == CS_BENCH_UNBOUNDED ? CS_DB_UNBOUNDED : rules[i].hi_bytes;
        rows[i].rank = rules[i].rank;
        rows[i].algorithm = rules[i].algorithm;
        rows[i].params = rules[i].params;
        rows[i].median_us = rules[i].median_us;
        rows[i].native_us = rules[i].native_us;
        rows[i].p_value = is_native_key(rules[i].algorithm) ? NAN : rules[i].p_value;
        rows[i].run_id = r->run_id;
    }
    CS_CHECK(cs_db_replace_rules(r->db, r->machine_id, rs->v[first].coll, rs->v[first].comm_size,
                                 rs->v[first].ppn, rows, (size_t)nout));
    *nrules += nout;
out:
    free(entries);
    free(sizes);
    free(rules);
    free(rows);
    free(cands);
    return rc;
}

/* Rank 0: derives and stores the rules of every (coll, comm_size, ppn) the run measured. */
static int derive_rules(run_t *r, int *nrules) {
    int rc = CS_OK;
    records_t rs = {NULL, 0, 0};
    int open = 0;
    *nrules = 0;
    CS_CHECK(cs_db_foreach_measurement(r->db, r->run_id, collect, &rs));
    CS_CHECK(cs_db_begin(r->db));
    open = 1;
    for (size_t first = 0; first < rs.n;) {
        size_t last = first;
        while (last < rs.n && same_group(&rs.v[first], &rs.v[last])) {
            last++;
        }
        CS_CHECK(group_rules(r, &rs, first, last, nrules));
        first = last;
    }
    CS_CHECK(cs_db_commit(r->db));
    open = 0;
out:
    if (open && cs_db_rollback(r->db) != CS_OK) {
        cs_log(CS_LOG_WARN, "rollback failed: %s", cs_db_errmsg(r->db));
    }
    for (size_t i = 0; i < rs.n; i++) {
        free(rs.v[i].samples);
    }
    free(rs.v);
    return rc;
}

static int print_failure(const cs_db_failure_t *f, void *ctx) {
    (void)ctx;
    fprintf(
        stderr, "collsel-bench: FAILED verification: %s%s%s%s at %d processes, %llu bytes: %s\n",
        f->point.algorithm, f->point.params && f->point.params[0] ? "(" : "",
        f->point.params ? f->point.params : "", f->point.params && f->point.params[0] ? ")" : "",
        f->point.comm_size, (unsigned long long)f->point.bytes, f->message);
    return CS_OK;
}

static int print_rule(const cs_db_rule_t *rule, void *ctx) {
    char lo[32], hi[32];
    (void)ctx;
    if (rule->rank != 1) {
        return CS_OK;
    }
    cs_bench_format_bytes(rule->lo_bytes, lo, sizeof(lo));
    if (rule->hi_bytes == CS_DB_UNBOUNDED) {
        snprintf(hi, sizeof(hi), "inf");
    } else {
        cs_bench_format_bytes(rule->hi_bytes, hi, sizeof(hi));
    }
    printf("  %-10s np=%-3d [%6s, %6s) %-32s %10.2f us  native %10.2f us  x%.2f\n", rule->coll,
           rule->comm_size, lo, hi, rule->algorithm, rule->median_us, rule->native_us,
           rule->native_us / rule->median_us);
    return CS_OK;
}

/* --- validation ------------------------------------------------------------------------------ */

/* The selector's dispatch through the public API, as a candidate to time. */
static const cs_coll_fns_t collsel_fns = {collsel_bcast,     collsel_gather,    collsel_scatter,
                                          collsel_reduce,    collsel_allreduce, collsel_allgather,
                                          collsel_allgatherv};

static int run_selected(const cs_call_t *call) {
    return cs_call_invoke(call, &collsel_fns) == MPI_SUCCESS ? CS_OK : CS_ERR_MPI;
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
    run_t *r = ctx;
    best_t *b = NULL;
    for (size_t i = 0; i < r->nbest && b == NULL; i++) {
        if (strcmp(r->best[i].coll, m->point.coll) == 0 &&
            r->best[i].comm_size == m->point.comm_size && r->best[i].bytes == m->point.bytes) {
            b = &r->best[i];
        }
    }
    if (b == NULL) {
        if (r->nbest == r->best_cap) {
            size_t cap = r->best_cap ? 2 * r->best_cap : 128;
            best_t *v = realloc(r->best, cap * sizeof(*v));
            if (v == NULL) {
                return CS_ERR_NOMEM;
            }
            r->best = v;
            r->best_cap = cap;
        }
        b = &r->best[r->nbest++];
        snprintf(b->coll, sizeof(b->coll), "%s", m->point.coll);
        b->comm_size = m->point.comm_size;
        b->bytes = m->point.bytes;
        b->median_us = INFINITY;
    }
    if (m->median_us < b->median_us) {
        b->median_us = m->median_us;
        snprintf(b->algorithm, sizeof(b->algorithm), "%s", m->point.algorithm);
        snprintf(b->params, sizeof(b->params), "%s", m->point.params ? m->point.params : "");
    }
    return CS_OK;
}

typedef struct run_ids {
    int64_t v[64];
    int n;
} run_ids_t;

static int collect_run_id(const cs_db_rule_t *rule, void *ctx) {
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
static int load_best(run_t *r) {
    int rc = CS_OK;
    run_ids_t ids = {{0}, 0};
    CS_CHECK(cs_db_foreach_rule(r->db, r->machine_id, collect_run_id, &ids));
    for (int i = 0; i < ids.n; i++) {
        CS_CHECK(cs_db_foreach_measurement(r->db, ids.v[i], collect_best, r));
    }
out:
    return rc;
}

static const best_t *best_for(const run_t *r, cs_coll_t coll, int comm_size, uint64_t bytes) {
    for (size_t i = 0; i < r->nbest; i++) {
        if (strcmp(r->best[i].coll, cs_coll_name(coll)) == 0 && r->best[i].comm_size == comm_size &&
            r->best[i].bytes == bytes) {
            return &r->best[i];
        }
    }
    return NULL;
}

/* One validation point: native, the selector's choice and the tuned best, interleaved. */
static int validate_point(const cs_bench_opts_t *o, run_t *r, const cs_call_t *call,
                          cs_bench_bufs_t *bufs, cs_bench_sync_t *sync, unsigned seed, int ppn,
                          MPI_Comm sub, cs_bench_progress_t *progress) {
    int rc = CS_OK;
    cs_bench_cand_t cands[3];
    char best[320] = "", choice[256], sel_params[CS_RULE_PARAMS], err[256];
    cs_sel_choice_t ch;
    int ncand = 2;
    cs_variant_t bv;
    memset(cands, 0, sizeof(cands));
    if (call->rank == 0) {
        const best_t *b = best_for(r, call->coll, call->nprocs, call->bytes);
        if (b != NULL) {
            snprintf(best, sizeof(best), b->params[0] ? "%s(%s)" : "%s%s", b->algorithm, b->params);
        }
    }
    CS_MPI_CHECK(PMPI_Bcast(best, (int)sizeof(best), MPI_CHAR, 0, sub));
    CS_CHECK(cs_sel_choose(call->coll, call->bytes, sub, &ch));
    cs_variant_name(&ch.variant, choice, sizeof(choice));
    cs_params_format(&ch.variant.params, sel_params, sizeof(sel_params));
    cs_bench_cand_set(&cands[0], cs_registry_native(call->coll), NULL);
    cs_bench_cand_set(&cands[1], selected_of(call->coll), NULL);
    if (best[0] != '\0' && cs_variant_parse(best, &bv, err, sizeof(err)) == CS_OK &&
        !cs_algo_is_native(bv.algo)) {
        cs_bench_cand_set(&cands[ncand++], bv.algo, &bv.params);
    }
    CS_CHECK(cs_bench_measure(cands, ncand, call, bufs, DEFAULT_POINT_BUDGET_S, o->reps_max, seed,
                              sync, sub, call->rank == 0 ? progress : NULL));
    if (call->rank == 0) {
        cs_db_validation_t v;
        double native = cands[0].summary.median, sel = cands[1].summary.median;
        double oracle = ncand == 3 ? cands[2].summary.median : native;
        memset(&v, 0, sizeof(v));
        v.run_id = r->run_id;
        v.coll = cs_coll_name(call->coll);
        v.comm_size = call->nprocs;
        v.ppn = ppn;
        v.bytes = call->bytes;
        v.native_us = native;
        v.selected_us = sel;
        v.oracle_us = oracle;
        v.selected_algorithm = ch.variant.algo->name;
        v.selected_params = sel_params;
        v.oracle_algorithm = cands[ncand - 1].v.algo->name;
        v.oracle_params = cands[ncand - 1].params;
        if (ncand < 3) {
            v.oracle_algorithm = cands[0].v.algo->name;
            v.oracle_params = "";
        }
        if (cands[1].failed) {
            fprintf(stderr, "collsel-bench: FAILED: the selector's %s of %zu bytes: %s\n",
                    cs_coll_name(call->coll), call->bytes, cands[1].failure);
        }
        if (!cands[1].failed) { /* a wrong dispatch has no time to store; it is reported */
            CS_CHECK(cs_db_insert_validation(r->db, &v));
        }
        if (!cands[1].failed && native > 0 && oracle > 0) {
            r->ratio_native[r->nratios] = sel / native;
            r->ratio_best[r->nratios] = sel / oracle;
            r->nratios++;
        }
        if (!o->quiet) {
            cs_bench_progress_end(progress);
            printf("  %-10s np=%-3d %8zu B  native %9.2f us  selected %9.2f us (%s)  best %9.2f "
                   "us (%s)  sel/native %.2f  sel/best %.2f\n",
                   cs_coll_name(call->coll), call->nprocs, call->bytes, native, sel, choice, oracle,
                   v.oracle_algorithm, sel / native, sel / oracle);
        }
    }
    cs_bench_cands_free(cands, ncand);
out:
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

/* --- the run ------------------------------------------------------------------------------- */

static int run_points(const cs_bench_opts_t *o, plan_t *plan, run_t *r, int rank, MPI_Comm world,
                      cs_bench_progress_t *progress) {
    int rc = CS_OK;
    cs_bench_bufs_t bufs = {0};
    cs_bench_sync_t sync = {0, 0};
    MPI_Comm sub = MPI_COMM_NULL;
    double start = PMPI_Wtime();
    int done = 0;
    size_t max_count = o->sizes[o->nsizes - 1] / sizeof(int);
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci], ppn = 0;
        CS_MPI_CHECK(PMPI_Comm_split(world, rank < n ? 0 : MPI_UNDEFINED, rank, &sub));
        if (sub != MPI_COMM_NULL) {
            CS_CHECK(cs_machine_node_size(sub, &ppn));
            CS_CHECK(expand_cands(plan, n, ppn, rank));
            CS_CHECK(cs_bench_bufs_alloc(&bufs, max_count, n));
            CS_CHECK(cs_bench_sync_init(&sync, sub));
        }
        for (int c = 0; c < CS_COLL_COUNT && sub != MPI_COMM_NULL; c++) {
            cs_bench_cand_t *cands = plan->cands[c];
            int ncand = plan->ncands[c];
            for (int si = 0; si < o->nsizes && ncand > 0; si++) {
                cs_call_t call;
                int count = (int)(o->sizes[si] / sizeof(int));
                int skip = 0;
                double budget = DEFAULT_POINT_BUDGET_S;
                CS_CHECK(cs_bench_call(&call, (cs_coll_t)c, count, sub, &bufs));
                cs_bench_progress_point(progress, (cs_coll_t)c, n, call.bytes);
                if (o->validate) {
                    unsigned seed = (unsigned)(c * 1000003 + si * 7919 + n);
                    CS_CHECK(validate_point(o, r, &call, &bufs, &sync, seed, ppn, sub, progress));
                    done++;
                    cs_bench_progress_point_done(progress);
                    continue;
                }
                if (rank == 0) {
                    bool exists = false;
                    cs_db_point_t pt = {
                        cs_coll_name((cs_coll_t)c), cands[0].v.algo->name, "", n, ppn, call.bytes};
                    CS_CHECK(cs_db_measurement_exists(r->db, r->run_id, &pt, &exists));
                    skip = exists;
                    if (o->budget_s > 0) {
                        int left = plan->npoints - done;
                        budget = (o->budget_s - (PMPI_Wtime() - start)) / (left > 0 ? left : 1);
                        budget = budget < MIN_POINT_BUDGET_S ? MIN_POINT_BUDGET_S : budget;
                    }
                }
                CS_MPI_CHECK(PMPI_Bcast(&skip, 1, MPI_INT, 0, sub));
                if (!skip) {
                    unsigned seed = (unsigned)(c * 1000003 + si * 7919 + n);
                    CS_CHECK(cs_bench_measure(cands, ncand, &call, &bufs, budget, o->reps_max, seed,
                                              &sync, sub, rank == 0 ? progress : NULL));
                    if (rank == 0) {
                        CS_CHECK(store_point(r, cands, ncand, (cs_coll_t)c, n, ppn, call.bytes));
                    }
                    cs_bench_cands_free(cands, ncand);
                }
                done++;
                cs_bench_progress_point_done(progress);
            }
        }
        if (sub != MPI_COMM_NULL) {
            cs_bench_bufs_free(&bufs);
            CS_MPI_CHECK(PMPI_Comm_free(&sub));
        }
        CS_MPI_CHECK(PMPI_Bcast(&done, 1, MPI_INT, 0, world));
    }
out:
    cs_bench_bufs_free(&bufs);
    if (sub != MPI_COMM_NULL) {
        PMPI_Comm_free(&sub);
    }
    return rc;
}

int cs_bench_main(int argc, char **argv, const cs_algo_t *const *extra, int nextra,
                  MPI_Comm world) {
    int rank, nprocs, rc = CS_OK, status = 0, resumed = 0, nrules = 0;
    char err[512];
    cs_bench_opts_t opts;
    cs_machine_t machine;
    cs_bench_progress_t progress;
    run_t r;
    plan_t *plan = NULL;
    double t0 = PMPI_Wtime();
    memset(&r, 0, sizeof(r));
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &nprocs);
    if (cs_bench_parse(argc, argv, &opts, err, sizeof(err)) != CS_OK) {
        say(rank, "%s", err);
        return 2;
    }
    if (opts.help) {
        if (rank == 0) {
            fputs(cs_bench_usage, stdout);
        }
        return 0;
    }
    for (int i = 0; i < opts.ncomm_sizes; i++) {
        if (opts.comm_sizes[i] > nprocs) {
            say(rank,
                "--comm-sizes: %d is more than the %d process(es) of this job (start more "
                "with mpirun -np)",
                opts.comm_sizes[i], nprocs);
            return 2;
        }
    }
    plan = malloc(sizeof(*plan));
    if (plan == NULL || make_plan(&opts, extra, nextra, nprocs, plan) != CS_OK) {
        say(rank, "out of memory");
        free(plan);
        return 1;
    }
    if (opts.list) {
        int ppn = 1;
        status = cs_machine_node_size(world, &ppn) != CS_OK;
        if (rank == 0 && !status) {
            status = print_list(&opts, plan, ppn, rank) != CS_OK;
        }
        free(plan);
        return status;
    }
    if (opts.quiet) {
        cs_log_set_level(0);
    }
    CS_CHECK(cs_machine_query(&machine, world));
    if (rank == 0) {
        status = open_run(&opts, &machine, &r, &resumed) == CS_OK ? 0 : 1;
    }
    CS_MPI_CHECK(PMPI_Bcast(&status, 1, MPI_INT, 0, world));
    if (status != 0) {
        free(plan);
        return 1;
    }
    if (!opts.quiet) {
        say(rank, "%s run %lld: %d processes on %d node(s), %d per node; %s; %s",
            resumed ? "resuming" : "starting", (long long)r.run_id, machine.nprocs, machine.nnodes,
            machine.ppn, machine.topology, r.path);
    }
    if (machine.cores > 0 && machine.ppn > machine.cores) {
        say(rank,
            "warning: %d processes per node on %d cores: oversubscribed, timings are noisy "
            "(compare only within this run)",
            machine.ppn, machine.cores);
    }
    if (opts.validate) {
        status = 0;
        if (rank == 0) {
            r.ratio_native = calloc((size_t)plan->npoints + 1, sizeof(double));
            r.ratio_best = calloc((size_t)plan->npoints + 1, sizeof(double));
            status = r.ratio_native == NULL || r.ratio_best == NULL || load_best(&r) != CS_OK;
            if (!status && r.nbest == 0) {
                say(rank,
                    "--validate: %s has no rules for this machine yet: run a tuning run "
                    "first",
                    r.path);
                status = 1;
            }
        }
        CS_MPI_CHECK(PMPI_Bcast(&status, 1, MPI_INT, 0, world));
        CS_REQUIRE(status == 0, CS_ERR_DB);
        {
            /* The selector reads the database just validated; rank 0 chose its path. */
            char path[4096];
            snprintf(path, sizeof(path), "%s", r.path);
            CS_MPI_CHECK(PMPI_Bcast(path, (int)sizeof(path), MPI_CHAR, 0, world));
            collsel_init(path);
        }
    }
    cs_bench_progress_start(&progress, plan->npoints, rank == 0 && !opts.quiet);
    rc = run_points(&opts, plan, &r, rank, world, &progress);
    cs_bench_progress_close(&progress);
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, world));
    CS_CHECK(rc);
    if (rank == 0 && opts.validate) {
        double mn, wn, mb, wb;
        char dur[32];
        int n = r.nratios;
        median_worst(r.ratio_native, n, &mn, &wn);
        median_worst(r.ratio_best, n, &mb, &wb);
        CS_CHECK(cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_DONE));
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        printf("validation over %d points%s: selected/native median %.3f worst %.3f; "
               "selected/best median %.3f worst %.3f\n",
               n, machine.cores > 0 && machine.ppn > machine.cores ? " (oversubscribed)" : "", mn,
               wn, mb, wb);
        fprintf(stderr, "collsel-bench: validation run %lld done in %s -> %s\n",
                (long long)r.run_id, dur, r.path);
    } else if (rank == 0) {
        int64_t nmeas = 0, nfail = 0;
        char dur[32];
        CS_CHECK(derive_rules(&r, &nrules));
        CS_CHECK(cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_DONE));
        CS_CHECK(cs_db_count_rows(r.db, "measurement", r.run_id, &nmeas));
        CS_CHECK(cs_db_count_rows(r.db, "failure", r.run_id, &nfail));
        CS_CHECK(cs_db_foreach_failure(r.db, r.run_id, print_failure, NULL));
        if (!opts.quiet) {
            printf("winners (rank 1 of each size interval):\n");
            CS_CHECK(cs_db_foreach_rule(r.db, r.machine_id, print_rule, NULL));
        }
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        fprintf(stderr,
                "collsel-bench: run %lld done in %s: %d points, %lld measurements, %lld "
                "verification failures, %d rules -> %s\n",
                (long long)r.run_id, dur, plan->npoints, (long long)nmeas, (long long)nfail, nrules,
                r.path);
    }
out:
    if (rc != CS_OK) {
        say(rank, "run failed: %s", cs_status_str(rc));
        if (rank == 0 && r.db != NULL && r.run_id != 0 &&
            cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_ABORTED) != CS_OK) {
            say(rank, "could not mark run %lld aborted: %s", (long long)r.run_id,
                cs_db_errmsg(r.db));
        }
    }
    if (rank == 0) {
        cs_db_close(r.db);
    }
    free(r.best);
    free(r.ratio_native);
    free(r.ratio_best);
    free(plan);
    return rc == CS_OK ? 0 : 1;
}

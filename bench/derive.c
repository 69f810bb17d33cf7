/* Rule derivation (see derive.h): read the run's measurements, derive each key's rules, store
 * them. */
#include "derive.h"

#include "core/log.h"
#include "core/rule.h"
#include "corestate.h"
#include "measure.h"
#include "plan.h"
#include "registry.h"
#include "rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One stored measurement: a candidate at one point, with every repetition as timed. */
typedef struct point {
    cs_coll_t coll;
    char pattern[CS_RULE_PATTERN]; /* neighbourhood pattern; "" for the other collectives */
    char algorithm[CS_RULE_ALGORITHM], params[CS_RULE_PARAMS];
    int comm_size, ppn;
    uint64_t bytes;
    double *samples;
    size_t n;
    double *loop_samples; /* NULL: no loop metric (a run made before it existed) */
    size_t nloop;
    double median_us, loop_median_us; /* as stored (after outlier removal); loop NaN: none */
    int round;                        /* a confirmation's round (1..); 0 for a measurement */
} point_t;

/* A run's measurements in the order of cs_db_foreach_measurement: by coll, comm_size, ppn,
 * bytes, so each key's points, and each size's within them, are contiguous. */
typedef struct points {
    point_t *v;
    size_t n, cap;
} points_t;

static int collect(const cs_db_measurement_t *m, void *ctx) {
    points_t *ps = ctx;
    point_t *p;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 256;
        point_t *v = realloc(ps->v, cap * sizeof(*v));
        if (v == NULL) {
            return CS_ERR_NOMEM;
        }
        ps->v = v;
        ps->cap = cap;
    }
    p = &ps->v[ps->n];
    memset(p, 0, sizeof(*p));
    if (cs_coll_from_name(m->point.coll, &p->coll) != CS_OK ||
        snprintf(p->algorithm, sizeof(p->algorithm), "%s", m->point.algorithm) >=
            (int)sizeof(p->algorithm) ||
        snprintf(p->params, sizeof(p->params), "%s", m->point.params ? m->point.params : "") >=
            (int)sizeof(p->params) ||
        snprintf(p->pattern, sizeof(p->pattern), "%s", m->point.pattern ? m->point.pattern : "") >=
            (int)sizeof(p->pattern)) {
        return CS_ERR_ARG; /* not something this collsel measured */
    }
    p->median_us = m->median_us;
    p->round = m->round;
    p->loop_median_us = m->loop_reps > 0 ? m->loop_median_us : NAN;
    p->comm_size = m->point.comm_size;
    p->ppn = m->point.ppn;
    p->bytes = m->point.bytes;
    p->n = m->nsamples;
    p->samples = malloc((m->nsamples ? m->nsamples : 1) * sizeof(double));
    if (p->samples == NULL) {
        return CS_ERR_NOMEM;
    }
    memcpy(p->samples, m->samples_us, m->nsamples * sizeof(double));
    ps->n++; /* from here points_free frees what p holds */
    if (m->loop_reps > 0 && m->loop_nsamples > 0) {
        p->loop_samples = malloc(m->loop_nsamples * sizeof(double));
        if (p->loop_samples == NULL) {
            return CS_ERR_NOMEM;
        }
        memcpy(p->loop_samples, m->loop_samples_us, m->loop_nsamples * sizeof(double));
        p->nloop = m->loop_nsamples;
    }
    return CS_OK;
}

static void points_free(points_t *ps) {
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->v[i].samples);
        free(ps->v[i].loop_samples);
    }
    free(ps->v);
}

/* The run's core-to-core states (table core_state), the smallest (the near state) and the
 * largest. */
typedef struct state {
    cs_coll_t coll;
    char pattern[CS_RULE_PATTERN];
    int comm_size, ppn, round;
    uint64_t bytes;
    double rtt_ns;
} state_t;

typedef struct states {
    state_t *v;
    size_t n, cap;
    double near_ns, top_ns;
} states_t;

static int collect_state(const cs_db_core_state_t *c, void *ctx) {
    states_t *st = ctx;
    state_t *x;
    if (st->n == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 256;
        state_t *v = realloc(st->v, cap * sizeof(*v));
        if (v == NULL) {
            return CS_ERR_NOMEM;
        }
        st->v = v;
        st->cap = cap;
    }
    x = &st->v[st->n];
    if (cs_coll_from_name(c->coll, &x->coll) != CS_OK ||
        snprintf(x->pattern, sizeof(x->pattern), "%s", c->pattern) >= (int)sizeof(x->pattern)) {
        return CS_ERR_ARG;
    }
    x->comm_size = c->comm_size;
    x->ppn = c->ppn;
    x->round = c->round;
    x->bytes = c->bytes;
    x->rtt_ns = c->rtt_ns;
    if (st->n == 0 || c->rtt_ns < st->near_ns) {
        st->near_ns = c->rtt_ns;
    }
    if (st->n == 0 || c->rtt_ns > st->top_ns) {
        st->top_ns = c->rtt_ns;
    }
    st->n++;
    return CS_OK;
}

/* The launches that measured the size of point p in the near and in the far state (bits as
 * cs_bench_size_t.near and .far). */
static void size_states(const states_t *st, const point_t *p, unsigned *near, unsigned *far) {
    *near = *far = 0;
    for (size_t i = 0; i < st->n; i++) {
        const state_t *x = &st->v[i];
        if (x->coll != p->coll || x->comm_size != p->comm_size || x->ppn != p->ppn ||
            x->bytes != p->bytes || strcmp(x->pattern, p->pattern) != 0 || x->round < 0 ||
            x->round > CS_BENCH_MAX_ROUNDS) {
            continue;
        }
        *(cs_bench_core_far(x->rtt_ns, st->near_ns) ? far : near) |= 1u << x->round;
    }
}

static int is_native_key(const char *name) {
    const cs_algo_t *a = cs_registry_find(name);
    return a != NULL && cs_algo_is_native(a);
}

static int same_key(const point_t *a, const point_t *b) {
    return a->coll == b->coll && a->comm_size == b->comm_size && a->ppn == b->ppn &&
           strcmp(a->pattern, b->pattern) == 0;
}

/* The candidates measured at one size, p[0..n-1], summarised against native into
 * entries[0..*k-1] (native first; the entries point into p). *k = 0 when no native was
 * measured there. `cands` is scratch of CS_BENCH_MAX_CANDS. */
static int size_entries(const point_t *p, size_t n, cs_bench_cand_t *cands,
                        cs_bench_entry_t *entries, int *k) {
    int rc = CS_OK;
    int native = -1, m = 0;
    *k = 0;
    memset(cands, 0, CS_BENCH_MAX_CANDS * sizeof(*cands));
    for (size_t i = 0; i < n && m < CS_BENCH_MAX_CANDS; i++, m++) {
        cands[m].applicable = 1;
        cands[m].samples = p[i].samples;
        cands[m].nsamples = p[i].n;
        cands[m].loop_samples = p[i].loop_samples;
        cands[m].nloop_samples = p[i].nloop;
        cands[m].loop_p_value = 1.0;
        if (is_native_key(p[i].algorithm)) {
            native = m;
        }
    }
    if (native < 0) { /* no baseline at this size (a point cut short): no rule */
        goto out;
    }
    /* cs_bench_summarise wants native first. */
    cs_bench_cand_t tmp = cands[0];
    cands[0] = cands[native];
    cands[native] = tmp;
    CS_CHECK(cs_bench_summarise(cands, m));
    for (int i = 0; i < m; i++) {
        const point_t *src = &p[i == 0 ? native : (i == native ? 0 : i)];
        entries[i].algorithm = src->algorithm;
        entries[i].params = src->params;
        entries[i].median_us = cands[i].summary.median;
        entries[i].p_value = cands[i].p_value;
        entries[i].native = i == 0;
        entries[i].has_loop = cands[i].nloop_samples > 0 && cands[0].nloop_samples > 0;
        entries[i].loop_median_us = cands[i].loop_summary.median;
        entries[i].loop_q3_us = cands[i].loop_summary.q3;
        entries[i].loop_p_value = cands[i].loop_p_value;
    }
    *k = m;
out:
    return rc;
}

/* The confirmation rounds' measurements at the size of entries[0..k-1] (points p[0..k-1] of one
 * key and size, entries in the order size_entries made them) from conf[0..nconf-1], of rounds
 * 1..last only: each entry measured there gets its medians of each round. Returns the rounds
 * that measured this size, bit r for round r + 1 (cs_bench_size_t.confirmed). */
static unsigned attach_confirmations(const point_t *p, cs_bench_entry_t *entries, int k,
                                     const point_t *conf, size_t nconf, int last) {
    unsigned measured = 0;
    for (size_t j = 0; j < nconf; j++) {
        const point_t *c = &conf[j];
        int r = c->round - 1;
        if (!same_key(c, &p[0]) || c->bytes != p[0].bytes || r < 0 || r >= last ||
            r >= CS_BENCH_MAX_ROUNDS) {
            continue;
        }
        measured |= 1u << r;
        for (int i = 0; i < k; i++) {
            if (strcmp(entries[i].algorithm, c->algorithm) == 0 &&
                strcmp(entries[i].params, c->params) == 0) {
                entries[i].has_confirm |= 1u << r;
                entries[i].confirm_median_us[r] = c->median_us;
                entries[i].confirm_loop_median_us[r] = c->loop_median_us;
            }
        }
    }
    return measured;
}

/* The rules of one key from its points p[0..n-1] (ordered by bytes) into out[0..2n-1] (a row
 * per ranked entry, and one per native gap: rules.h), with the key, machine_id and run_id set;
 * *nout rows. No database access. */
static int key_rules(const point_t *p, size_t n, const points_t *conf, const states_t *st,
                     int64_t machine_id, int64_t run_id, cs_db_metric_t metric, int oversubscribed,
                     const uint64_t *thresholds, int nthresholds, cs_rule_t *out, int *nout,
                     int *nunproven) {
    int rc = CS_OK;
    cs_bench_entry_t *entries = calloc(n, sizeof(*entries));
    cs_bench_size_t *sizes = calloc(n, sizeof(*sizes));
    cs_bench_cand_t *cands = calloc(CS_BENCH_MAX_CANDS, sizeof(*cands));
    unsigned char *mark = calloc(n * CS_BENCH_MAX_RANKED, 1);
    int nsizes = 0;
    CS_REQUIRE(entries && sizes && cands && mark, CS_ERR_NOMEM);
    for (size_t s = 0; s < n;) {
        size_t e = s;
        int k = 0;
        while (e < n && p[e].bytes == p[s].bytes) {
            e++;
        }
        CS_CHECK(size_entries(&p[s], e - s, cands, &entries[s], &k));
        if (k > 0) {
            sizes[nsizes].bytes = p[s].bytes;
            sizes[nsizes].entries = &entries[s];
            sizes[nsizes].n = k;
            sizes[nsizes].metric = cs_bench_policy(metric, oversubscribed);
            sizes[nsizes].confirmed =
                attach_confirmations(&p[s], &entries[s], k, conf->v, conf->n, CS_BENCH_MAX_ROUNDS);
            size_states(st, &p[s], &sizes[nsizes].near, &sizes[nsizes].far);
            nsizes++;
        }
        s = e;
    }
    /* a win that depends on the core-to-core state needs both states (rules.h) */
    *nunproven += cs_bench_core_unproven(sizes, nsizes, mark);
    for (int i = 0; i < nsizes; i++) {
        for (int j = 0; j < sizes[i].n && j < CS_BENCH_MAX_RANKED; j++) {
            /* sizes[i].entries points into entries */
            entries[(sizes[i].entries - entries) + j].unproven = mark[i * CS_BENCH_MAX_RANKED + j];
        }
    }
    if ((cs_coll_is_neighbor(p[0].coll) && !cs_coll_is_cached(p[0].coll)) ||
        cs_coll_agrees(p[0].coll)) {
        /* Neighbourhood v and w: one interval, the same choice for every key (rules.h).
         * gatherv, scatterv, alltoallv: as soon as their rules change with the size, every call
         * pays the agreement on its key (comm.h cs_comm_agree), native calls too, and a native
         * scatterv of 4 B then took 64x as long in the loop (issue 15's validation): so one
         * interval, a candidate only where it beats native at every size, and all-native rules
         * cost nothing. */
        CS_CHECK(cs_bench_rules_one(sizes, nsizes, out, 2 * (int)n, nout));
    } else {
        CS_CHECK(cs_bench_rules_at(sizes, nsizes, thresholds, nthresholds, out, 2 * (int)n, nout));
    }
    for (int i = 0; i < *nout; i++) {
        out[i].machine_id = machine_id;
        out[i].run_id = run_id;
        out[i].coll = p[0].coll;
        out[i].comm_size = p[0].comm_size;
        out[i].ppn = p[0].ppn;
        snprintf(out[i].pattern, sizeof(out[i].pattern), "%s", p[0].pattern);
    }
out:
    free(entries);
    free(sizes);
    free(cands);
    free(mark);
    return rc;
}

/* The metric policy of one run and whether it was oversubscribed, found among its machine's
 * runs. */
typedef struct run_metric {
    int64_t run_id;
    cs_db_metric_t metric;
    int oversubscribed;
    int found;
} run_metric_t;

static int find_metric(const cs_db_run_row_t *r, void *ctx) {
    run_metric_t *rm = ctx;
    if (r->id != rm->run_id) {
        return CS_OK;
    }
    rm->metric = r->run.metric;
    rm->oversubscribed = r->run.oversubscribed;
    rm->found = 1;
    return 1; /* stop */
}

int cs_bench_derive_rules(cs_db_t *db, int64_t machine_id, int64_t run_id,
                          const uint64_t *thresholds, int nthresholds, int *nrules,
                          cs_bench_core_seen_t *cores) {
    int rc = CS_OK;
    points_t ps = {NULL, 0, 0}, conf = {NULL, 0, 0};
    states_t st = {NULL, 0, 0, 0, 0};
    cs_rule_t *rules = NULL;
    run_metric_t rm = {run_id, CS_DB_METRIC_SYNC, 0, 0};
    int open = 0;
    *nrules = 0;
    memset(cores, 0, sizeof(*cores));
    CS_CHECK(cs_db_foreach_run(db, machine_id, find_metric, &rm));
    CS_REQUIRE(rm.found, CS_ERR_NOT_FOUND);
    CS_CHECK(cs_db_foreach_measurement(db, run_id, collect, &ps));
    CS_CHECK(cs_db_foreach_confirmation(db, run_id, collect, &conf));
    CS_CHECK(cs_db_foreach_core_state(db, run_id, collect_state, &st));
    cores->points = (int)st.n;
    cores->near_ns = st.near_ns;
    cores->top_ns = st.top_ns;
    for (size_t i = 0; i < st.n; i++) {
        cores->far += cs_bench_core_far(st.v[i].rtt_ns, st.near_ns);
    }
    CS_CHECK(cs_db_begin(db));
    open = 1;
    for (size_t first = 0; first < ps.n;) {
        size_t last = first;
        int nout = 0;
        while (last < ps.n && same_key(&ps.v[first], &ps.v[last])) {
            last++;
        }
        rules = calloc(2 * (last - first), sizeof(*rules));
        CS_REQUIRE(rules != NULL, CS_ERR_NOMEM);
        CS_CHECK(key_rules(&ps.v[first], last - first, &conf, &st, machine_id, run_id, rm.metric,
                           rm.oversubscribed, thresholds, nthresholds, rules, &nout,
                           &cores->unproven));
        for (int i = 0; i < nout; i++) { /* each candidate's measured setup, if it has one */
            CS_CHECK(cs_db_get_setup(db, machine_id, rules[i].pattern, rules[i].algorithm,
                                     rules[i].params, rules[i].comm_size, rules[i].ppn,
                                     &rules[i].setup_us));
        }
        CS_CHECK(cs_db_replace_pattern_rules(db, machine_id, ps.v[first].coll, ps.v[first].pattern,
                                             ps.v[first].comm_size, ps.v[first].ppn, rules,
                                             (size_t)nout));
        *nrules += nout;
        free(rules);
        rules = NULL;
        first = last;
    }
    CS_CHECK(cs_db_commit(db));
    open = 0;
out:
    if (open && cs_db_rollback(db) != CS_OK) {
        cs_log(CS_LOG_WARN, "rollback failed: %s", cs_db_errmsg(db));
    }
    free(rules);
    free(st.v);
    points_free(&ps);
    points_free(&conf);
    return rc;
}

/* Calls fn for every size run `run_id` measured for key (coll, comm_size, ppn) (comm_size 0:
 * of every key), ascending, with that size's entries ranked by cs_bench_rank under `metric`
 * (order[0..nrank-1], native last; of the confirmation rounds only 1..rounds counted, none when
 * 0) and the neighbourhood pattern measured on ("" for the other collectives; pattern keys only
 * when `patterns`, else skipped). A non-zero return of fn other than CS_OK stops and is
 * returned. */
typedef int (*ranked_fn)(void *ctx, const char *pattern, uint64_t bytes,
                         const cs_bench_entry_t *entries, const int *order, int nrank);

static int each_ranked_size(cs_db_t *db, int64_t run_id, cs_db_metric_t metric, int oversubscribed,
                            cs_coll_t coll, int comm_size, int ppn, int patterns, int rounds,
                            ranked_fn fn, void *ctx) {
    int rc = CS_OK;
    points_t ps = {NULL, 0, 0}, conf = {NULL, 0, 0};
    cs_bench_entry_t *entries = NULL;
    cs_bench_cand_t *cands = calloc(CS_BENCH_MAX_CANDS, sizeof(*cands));
    int order[CS_BENCH_MAX_RANKED], nrank = 0;
    CS_REQUIRE(cands != NULL, CS_ERR_NOMEM);
    CS_CHECK(cs_db_foreach_measurement(db, run_id, collect, &ps));
    if (rounds > 0) {
        CS_CHECK(cs_db_foreach_confirmation(db, run_id, collect, &conf));
    }
    entries = calloc(ps.n + 1, sizeof(*entries));
    CS_REQUIRE(entries != NULL, CS_ERR_NOMEM);
    for (size_t s = 0; s < ps.n;) {
        size_t e = s;
        int k = 0;
        while (e < ps.n && same_key(&ps.v[s], &ps.v[e]) && ps.v[e].bytes == ps.v[s].bytes) {
            e++;
        }
        if ((!patterns && ps.v[s].pattern[0] != '\0') ||
            (comm_size != 0 &&
             (ps.v[s].coll != coll || ps.v[s].comm_size != comm_size || ps.v[s].ppn != ppn))) {
            s = e;
            continue;
        }
        CS_CHECK(size_entries(&ps.v[s], e - s, cands, &entries[s], &k));
        if (k > 0) {
            const cs_bench_size_t size = {.bytes = ps.v[s].bytes,
                                          .entries = &entries[s],
                                          .n = k,
                                          .metric = cs_bench_policy(metric, oversubscribed),
                                          .confirmed = attach_confirmations(
                                              &ps.v[s], &entries[s], k, conf.v, conf.n, rounds)};
            CS_CHECK(cs_bench_rank(&size, order, &nrank));
            CS_CHECK(fn(ctx, ps.v[s].pattern, ps.v[s].bytes, &entries[s], order, nrank));
        }
        s = e;
    }
out:
    free(entries);
    free(cands);
    points_free(&ps);
    points_free(&conf);
    return rc;
}

/* cs_bench_derive_winners' state: the winners seen so far, one id each. */
typedef struct winners {
    uint64_t *sizes;
    int *winner, cap, *n;
    char seen[CS_BENCH_MAX_SIZES][CS_RULE_ALGORITHM + CS_RULE_PARAMS + 1];
    int nseen;
} winners_t;

static int add_winner(void *ctx, const char *pattern, uint64_t bytes,
                      const cs_bench_entry_t *entries, const int *order, int nrank) {
    winners_t *w = ctx;
    const cs_bench_entry_t *best = &entries[order[0]];
    char name[sizeof(w->seen[0])];
    int id;
    (void)pattern;
    (void)nrank;
    if (*w->n >= w->cap) {
        return CS_OK;
    }
    snprintf(name, sizeof(name), "%s(%s", best->algorithm, best->params);
    for (id = 0; id < w->nseen && strcmp(w->seen[id], name) != 0; id++) {
    }
    if (id == w->nseen) {
        if (w->nseen == CS_BENCH_MAX_SIZES) {
            return CS_ERR_ARG;
        }
        memcpy(w->seen[w->nseen++], name, sizeof(name));
    }
    w->sizes[*w->n] = bytes;
    w->winner[*w->n] = id;
    (*w->n)++;
    return CS_OK;
}

int cs_bench_derive_winners(cs_db_t *db, int64_t run_id, cs_db_metric_t metric, int oversubscribed,
                            cs_coll_t coll, int comm_size, int ppn, uint64_t *sizes, int *winner,
                            int cap, int *n) {
    int rc;
    winners_t *w = calloc(1, sizeof(*w));
    *n = 0;
    if (w == NULL) {
        return CS_ERR_NOMEM;
    }
    w->sizes = sizes;
    w->winner = winner;
    w->cap = cap;
    w->n = n;
    /* refinement is planned for the keys without a pattern only (docs/neighbor.md) */
    rc = each_ranked_size(db, run_id, metric, oversubscribed, coll, comm_size, ppn, 0, 0,
                          add_winner, w);
    free(w);
    return rc;
}

/* cs_bench_derive_contenders' state. */
typedef struct contenders {
    cs_bench_contender_t *out;
    int cap, *n;
} contenders_t;

static int add_contenders(void *ctx, const char *pattern, uint64_t bytes,
                          const cs_bench_entry_t *entries, const int *order, int nrank) {
    contenders_t *c = ctx;
    cs_bench_contender_t *o;
    if (nrank < 2 || *c->n >= c->cap) { /* native alone: nothing to confirm */
        return CS_OK;
    }
    if (c->out == NULL) { /* counting */
        (*c->n)++;
        return CS_OK;
    }
    o = &c->out[(*c->n)++];
    memset(o, 0, sizeof(*o));
    o->bytes = bytes;
    snprintf(o->pattern, sizeof(o->pattern), "%s", pattern);
    for (int i = 0; i < nrank - 1 && o->k < CS_BENCH_CONFIRM_CANDS; i++) {
        const cs_bench_entry_t *e = &entries[order[i]];
        snprintf(o->algorithm[o->k], sizeof(o->algorithm[0]), "%s", e->algorithm);
        snprintf(o->params[o->k], sizeof(o->params[0]), "%s", e->params);
        o->k++;
    }
    return CS_OK;
}

int cs_bench_derive_contenders(cs_db_t *db, int64_t run_id, cs_db_metric_t metric,
                               int oversubscribed, int round, cs_coll_t coll, int comm_size,
                               int ppn, cs_bench_contender_t *out, int cap, int *n) {
    contenders_t c = {out, cap, n};
    *n = 0;
    if (round < 1 || round > CS_BENCH_MAX_ROUNDS) {
        return CS_ERR_ARG;
    }
    return each_ranked_size(db, run_id, metric, oversubscribed, coll, comm_size, ppn, 1, round - 1,
                            add_contenders, &c);
}

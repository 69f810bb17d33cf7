/* Rule derivation (see derive.h). */
#include "derive.h"

#include "core/log.h"
#include "measure.h"
#include "plan.h"
#include "registry.h"
#include "rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static int group_rules(cs_db_t *db, int64_t machine_id, int64_t run_id, records_t *rs, size_t first,
                       size_t last, int *nrules) {
    int rc = CS_OK;
    size_t n = last - first;
    cs_bench_entry_t *entries = calloc(n, sizeof(*entries));
    cs_bench_size_t *sizes = calloc(n, sizeof(*sizes));
    cs_rule_t *rules = calloc(n, sizeof(*rules));
    cs_bench_cand_t *cands = calloc(CS_BENCH_MAX_CANDS, sizeof(*cands));
    int nsizes = 0, nout = 0;
    cs_coll_t coll;
    CS_REQUIRE(entries && sizes && rules && cands, CS_ERR_NOMEM);
    CS_CHECK(cs_coll_from_name(rs->v[first].coll, &coll));
    for (size_t s = first; s < last;) {
        size_t e = s;
        int k = 0, native = -1;
        while (e < last && rs->v[e].bytes == rs->v[s].bytes) {
            e++;
        }
        memset(cands, 0, CS_BENCH_MAX_CANDS * sizeof(*cands));
        for (size_t i = s; i < e && k < CS_BENCH_MAX_CANDS; i++, k++) {
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
        rules[i].machine_id = machine_id;
        rules[i].run_id = run_id;
        rules[i].coll = coll;
        rules[i].comm_size = rs->v[first].comm_size;
        rules[i].ppn = rs->v[first].ppn;
    }
    CS_CHECK(cs_db_replace_rules(db, machine_id, coll, rs->v[first].comm_size, rs->v[first].ppn,
                                 rules, (size_t)nout));
    *nrules += nout;
out:
    free(entries);
    free(sizes);
    free(rules);
    free(cands);
    return rc;
}

int cs_bench_derive_rules(cs_db_t *db, int64_t machine_id, int64_t run_id, int *nrules) {
    int rc = CS_OK;
    records_t rs = {NULL, 0, 0};
    int open = 0;
    *nrules = 0;
    CS_CHECK(cs_db_foreach_measurement(db, run_id, collect, &rs));
    CS_CHECK(cs_db_begin(db));
    open = 1;
    for (size_t first = 0; first < rs.n;) {
        size_t last = first;
        while (last < rs.n && same_group(&rs.v[first], &rs.v[last])) {
            last++;
        }
        CS_CHECK(group_rules(db, machine_id, run_id, &rs, first, last, nrules));
        first = last;
    }
    CS_CHECK(cs_db_commit(db));
    open = 0;
out:
    if (open && cs_db_rollback(db) != CS_OK) {
        cs_log(CS_LOG_WARN, "rollback failed: %s", cs_db_errmsg(db));
    }
    for (size_t i = 0; i < rs.n; i++) {
        free(rs.v[i].samples);
    }
    free(rs.v);
    return rc;
}

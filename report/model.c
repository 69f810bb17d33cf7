/* Reading a tuning database for collsel-report (see model.h).
 *
 * Per machine, the rows are read into three flat arrays (measurements, rules, validation rows),
 * sorted by (coll, comm_size, ppn), and every key points at its slice of them. A key belongs
 * to the first run, in order of preference (done before not done, newer before older), that
 * has rows for it: rows of a later run for a key already taken are left out as they are read. */
#include "model.h"

#include "core/call.h"
#include "registry.h"
#include "text.h"
#include "topo/iso.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- memory: strings in an arena, arrays with realloc -------------------------------------- */

struct cs_report_arena {
    struct cs_report_arena *next;
    size_t used, cap;
    char data[];
};

/* A copy of `text` (NULL: "") that lives as long as the report; NULL when out of memory. */
static const char *keep(cs_report_t *r, const char *text) {
    if (text == NULL) {
        text = "";
    }
    size_t len = strlen(text) + 1;
    struct cs_report_arena *a = r->arena;
    if (a == NULL || a->cap - a->used < len) {
        size_t cap = len > 16384 ? len : 16384;
        a = malloc(sizeof(*a) + cap);
        if (a == NULL) {
            return NULL;
        }
        a->next = r->arena;
        a->used = 0;
        a->cap = cap;
        r->arena = a;
    }
    char *copy = a->data + a->used;
    memcpy(copy, text, len);
    a->used += len;
    return copy;
}

/* Makes room for element n of the array at *array (elements of `size` bytes, capacity *cap). */
static int reserve(void *array, size_t *cap, size_t n, size_t size) {
    void **p = array;
    if (n < *cap) {
        return CS_OK;
    }
    size_t grown = *cap < 8 ? 8 : *cap * 2;
    void *bigger = realloc(*p, grown * size);
    if (bigger == NULL) {
        return CS_ERR_NOMEM;
    }
    *p = bigger;
    *cap = grown;
    return CS_OK;
}

/* --- keys ---------------------------------------------------------------------------------- */

typedef struct key_id {
    const char *coll;
    int comm_size, ppn;
    const char *pattern; /* neighbourhood pattern, "" for the other collectives */
} key_id_t;

/* Order of collectives: coll.def's, then unknown names alphabetically. */
static int coll_order(const char *a, const char *b) {
    cs_coll_t ca = CS_COLL_COUNT, cb = CS_COLL_COUNT;
    if (cs_coll_from_name(a, &ca) != CS_OK) {
        ca = CS_COLL_COUNT;
    }
    if (cs_coll_from_name(b, &cb) != CS_OK) {
        cb = CS_COLL_COUNT;
    }
    if (ca != cb) {
        return ca < cb ? -1 : 1;
    }
    return strcmp(a, b);
}

static int key_order(key_id_t a, key_id_t b) {
    int c = coll_order(a.coll, b.coll);
    if (c == 0) {
        c = strcmp(a.pattern, b.pattern);
    }
    if (c != 0) {
        return c;
    }
    if (a.comm_size != b.comm_size) {
        return a.comm_size < b.comm_size ? -1 : 1;
    }
    return a.ppn < b.ppn ? -1 : a.ppn > b.ppn;
}

static bool same_key(key_id_t a, key_id_t b) {
    return a.comm_size == b.comm_size && a.ppn == b.ppn && strcmp(a.coll, b.coll) == 0 &&
           strcmp(a.pattern, b.pattern) == 0;
}

static int u64_order(uint64_t a, uint64_t b) {
    return a < b ? -1 : a > b;
}

static int meas_order(const void *pa, const void *pb) {
    const cs_report_meas_t *a = pa, *b = pb;
    int c = key_order((key_id_t){a->coll, a->comm_size, a->ppn, a->pattern},
                      (key_id_t){b->coll, b->comm_size, b->ppn, b->pattern});
    if (c == 0) {
        c = u64_order(a->bytes, b->bytes);
    }
    if (c == 0) {
        c = strcmp(a->algorithm, b->algorithm);
    }
    return c != 0 ? c : strcmp(a->params, b->params);
}

static int rule_order(const void *pa, const void *pb) {
    const cs_rule_t *a = pa, *b = pb;
    int c = key_order((key_id_t){cs_coll_name(a->coll), a->comm_size, a->ppn, a->pattern},
                      (key_id_t){cs_coll_name(b->coll), b->comm_size, b->ppn, b->pattern});
    if (c == 0) {
        c = u64_order(a->lo_bytes, b->lo_bytes);
    }
    return c != 0 ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

static int valid_order(const void *pa, const void *pb) {
    const cs_report_valid_t *a = pa, *b = pb;
    int c = key_order((key_id_t){a->coll, a->comm_size, a->ppn, a->pattern},
                      (key_id_t){b->coll, b->comm_size, b->ppn, b->pattern});
    return c != 0 ? c : u64_order(a->bytes, b->bytes);
}

/* --- reading ------------------------------------------------------------------------------- */

typedef struct load {
    cs_report_t *r;
    cs_report_machine_t *m;
    const cs_report_run_t *run; /* the run being read */
    key_id_t *taken;            /* keys that an earlier run already has */
    size_t ntaken, taken_cap;
    size_t cap; /* of the array being filled */
    size_t machines_cap;
} load_t;

static bool taken(const load_t *l, key_id_t k) {
    for (size_t i = 0; i < l->ntaken; i++) {
        if (same_key(l->taken[i], k)) {
            return true;
        }
    }
    return false;
}

static key_id_t meas_key(const cs_report_machine_t *m, size_t i) {
    return (key_id_t){m->meas[i].coll, m->meas[i].comm_size, m->meas[i].ppn, m->meas[i].pattern};
}

static key_id_t rule_key(const cs_report_machine_t *m, size_t i) {
    return (key_id_t){cs_coll_name(m->rules[i].coll), m->rules[i].comm_size, m->rules[i].ppn,
                      m->rules[i].pattern};
}

static key_id_t valid_key(const cs_report_machine_t *m, size_t i) {
    return (key_id_t){m->valid[i].coll, m->valid[i].comm_size, m->valid[i].ppn,
                      m->valid[i].pattern};
}

/* Marks the keys of rows first..n-1 of m (read from one run; `key` reads one) as taken. */
static int take_keys(load_t *l, key_id_t (*key)(const cs_report_machine_t *, size_t), size_t first,
                     size_t n) {
    int rc = CS_OK;
    for (size_t i = first; i < n; i++) {
        key_id_t k = key(l->m, i);
        if (!taken(l, k)) {
            CS_CHECK(reserve(&l->taken, &l->taken_cap, l->ntaken, sizeof(*l->taken)));
            l->taken[l->ntaken++] = k;
        }
    }
out:
    return rc;
}

static int add_machine(int64_t id, const cs_db_machine_t *m, void *ctx) {
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_t *r = l->r;
    CS_CHECK(reserve(&r->machines, &l->machines_cap, r->nmachines, sizeof(*r->machines)));
    cs_report_machine_t *mine = &r->machines[r->nmachines];
    *mine = (cs_report_machine_t){.id = id,
                                  .host = keep(r, m->host),
                                  .topology = keep(r, m->topology),
                                  .mpi_library = keep(r, m->mpi_library)};
    CS_REQUIRE(mine->host != NULL && mine->topology != NULL && mine->mpi_library != NULL,
               CS_ERR_NOMEM);
    r->nmachines++;
out:
    return rc;
}

static int add_run(const cs_db_run_row_t *row, void *ctx) {
    static const char *const names[] = {"running", "done", "aborted"};
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_t *r = l->r;
    cs_report_machine_t *m = l->m;
    CS_CHECK(reserve(&m->runs, &l->cap, m->nruns, sizeof(*m->runs)));
    cs_report_run_t *run = &m->runs[m->nruns];
    const char *args = row->run.args != NULL ? row->run.args : "";
    *run = (cs_report_run_t){
        .id = row->id,
        .nprocs = row->run.nprocs,
        .nnodes = row->run.nnodes,
        .ppn = row->run.ppn,
        .oversubscribed = row->run.oversubscribed != 0,
        .validate = row->run.kind == CS_DB_RUN_VALIDATE,
        .status = row->status,
        .status_name = names[row->status],
        .started_at = keep(r, row->started_at),
        .finished_at = row->finished_at != NULL ? keep(r, row->finished_at) : NULL,
        .args = keep(r, args),
        .version = row->run.version != NULL ? keep(r, row->run.version) : NULL,
        .resumes = row->resumes,
    };
    CS_REQUIRE(run->started_at != NULL && run->args != NULL, CS_ERR_NOMEM);
    CS_REQUIRE(row->finished_at == NULL || run->finished_at != NULL, CS_ERR_NOMEM);
    CS_REQUIRE(row->run.version == NULL || run->version != NULL, CS_ERR_NOMEM);
    m->nruns++;
    r->nruns++;
out:
    return rc;
}

static int add_meas(const cs_db_measurement_t *in, void *ctx) {
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_machine_t *m = l->m;
    const cs_db_point_t *p = &in->point;
    if (taken(l, (key_id_t){p->coll, p->comm_size, p->ppn, p->pattern ? p->pattern : ""})) {
        goto out;
    }
    CS_CHECK(reserve(&m->meas, &l->cap, m->nmeas, sizeof(*m->meas)));
    cs_report_meas_t *out = &m->meas[m->nmeas];
    *out = (cs_report_meas_t){
        .coll = keep(l->r, p->coll),
        .pattern = keep(l->r, p->pattern ? p->pattern : ""),
        .comm_size = p->comm_size,
        .ppn = p->ppn,
        .run = l->run,
        .algorithm = keep(l->r, p->algorithm),
        .params = keep(l->r, p->params),
        .bytes = p->bytes,
        .min_us = in->min_us,
        .q1_us = in->q1_us,
        .median_us = in->median_us,
        .q3_us = in->q3_us,
        .max_us = in->max_us,
        .reps = in->reps,
        .outliers = in->outliers,
        .loop_min_us = in->loop_min_us,
        .loop_q1_us = in->loop_q1_us,
        .loop_median_us = in->loop_median_us,
        .loop_q3_us = in->loop_q3_us,
        .loop_max_us = in->loop_max_us,
        .loop_reps = in->loop_reps,
    };
    CS_REQUIRE(out->coll != NULL && out->pattern != NULL && out->algorithm != NULL &&
                   out->params != NULL,
               CS_ERR_NOMEM);
    m->nmeas++;
out:
    return rc;
}

static key_id_t overlap_key(const cs_report_machine_t *m, size_t i) {
    return (key_id_t){m->overlap[i].coll, m->overlap[i].comm_size, m->overlap[i].ppn,
                      m->overlap[i].pattern};
}

static int add_overlap(const cs_db_overlap_t *in, void *ctx) {
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_machine_t *m = l->m;
    const cs_db_point_t *p = &in->point;
    if (taken(l, (key_id_t){p->coll, p->comm_size, p->ppn, p->pattern ? p->pattern : ""})) {
        goto out;
    }
    CS_CHECK(reserve(&m->overlap, &l->cap, m->noverlap, sizeof(*m->overlap)));
    cs_report_overlap_t *o = &m->overlap[m->noverlap];
    *o = (cs_report_overlap_t){
        .coll = keep(l->r, p->coll),
        .pattern = keep(l->r, p->pattern ? p->pattern : ""),
        .comm_size = p->comm_size,
        .ppn = p->ppn,
        .run = l->run,
        .algorithm = keep(l->r, p->algorithm),
        .params = keep(l->r, p->params ? p->params : ""),
        .bytes = p->bytes,
        .reps = in->reps,
        .compute_us = in->compute_us,
        .blocking_us = in->blocking_us,
        .nooverlap_us = in->nooverlap_us,
        .overlap_us = in->overlap_us,
        .overhead_us = in->overhead_us,
        .freed = in->freed,
    };
    CS_REQUIRE(o->coll != NULL && o->pattern != NULL && o->algorithm != NULL && o->params != NULL,
               CS_ERR_NOMEM);
    m->noverlap++;
out:
    return rc;
}

static int overlap_order(const void *pa, const void *pb) {
    const cs_report_overlap_t *a = pa, *b = pb;
    int c = key_order((key_id_t){a->coll, a->comm_size, a->ppn, a->pattern},
                      (key_id_t){b->coll, b->comm_size, b->ppn, b->pattern});
    if (c == 0) {
        c = u64_order(a->bytes, b->bytes);
    }
    if (c == 0) {
        c = strcmp(a->algorithm, b->algorithm);
    }
    return c != 0 ? c : strcmp(a->params, b->params);
}

/* The okeys of m from its sorted overlap rows. */
static int build_okeys(cs_report_machine_t *m) {
    int rc = CS_OK;
    size_t cap = 0;
    for (size_t i = 0; i < m->noverlap;) {
        size_t e = i;
        while (e < m->noverlap && same_key(overlap_key(m, e), overlap_key(m, i))) {
            e++;
        }
        CS_CHECK(reserve(&m->okeys, &cap, m->nokeys, sizeof(*m->okeys)));
        m->okeys[m->nokeys++] = (cs_report_okey_t){.coll = m->overlap[i].coll,
                                                   .pattern = m->overlap[i].pattern,
                                                   .comm_size = m->overlap[i].comm_size,
                                                   .ppn = m->overlap[i].ppn,
                                                   .run = m->overlap[i].run,
                                                   .rows = &m->overlap[i],
                                                   .nrows = e - i};
        i = e;
    }
out:
    return rc;
}

static int add_nb_rule(const cs_rule_t *in, void *ctx) {
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_machine_t *m = l->m;
    CS_CHECK(reserve(&m->nb_rules, &l->cap, m->nnb_rules, sizeof(*m->nb_rules)));
    m->nb_rules[m->nnb_rules++] = *in;
out:
    return rc;
}

static int add_rule(const cs_rule_t *in, void *ctx) {
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_machine_t *m = l->m;
    CS_CHECK(reserve(&m->rules, &l->cap, m->nrules, sizeof(*m->rules)));
    m->rules[m->nrules++] = *in;
out:
    return rc;
}

static int add_valid(const cs_db_validation_t *in, void *ctx) {
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_machine_t *m = l->m;
    if (taken(l, (key_id_t){in->coll, in->comm_size, in->ppn, in->pattern ? in->pattern : ""})) {
        goto out;
    }
    CS_CHECK(reserve(&m->valid, &l->cap, m->nvalid, sizeof(*m->valid)));
    cs_report_valid_t *out = &m->valid[m->nvalid];
    *out = (cs_report_valid_t){
        .coll = keep(l->r, in->coll),
        .pattern = keep(l->r, in->pattern ? in->pattern : ""),
        .comm_size = in->comm_size,
        .ppn = in->ppn,
        .run = l->run,
        .bytes = in->bytes,
        .native_us = in->native_us,
        .selected_us = in->selected_us,
        .oracle_us = in->oracle_us,
        .native_loop_us = in->native_loop_us,
        .selected_loop_us = in->selected_loop_us,
        .oracle_loop_us = in->oracle_loop_us,
        .native2_us = in->native2_us,
        .native2_loop_us = in->native2_loop_us,
        .selected_algorithm = keep(l->r, in->selected_algorithm),
        .selected_params = keep(l->r, in->selected_params),
        .oracle_algorithm = keep(l->r, in->oracle_algorithm),
        .oracle_params = keep(l->r, in->oracle_params),
    };
    CS_REQUIRE(out->coll != NULL && out->pattern != NULL && out->selected_algorithm != NULL &&
                   out->selected_params != NULL && out->oracle_algorithm != NULL &&
                   out->oracle_params != NULL,
               CS_ERR_NOMEM);
    m->nvalid++;
out:
    return rc;
}

static int add_failure(const cs_db_failure_t *in, void *ctx) {
    int rc = CS_OK;
    load_t *l = ctx;
    cs_report_machine_t *m = l->m;
    CS_CHECK(reserve(&m->failures, &l->cap, m->nfailures, sizeof(*m->failures)));
    cs_report_failure_t *out = &m->failures[m->nfailures];
    *out = (cs_report_failure_t){
        .run_id = in->run_id,
        .coll = keep(l->r, in->point.coll),
        .algorithm = keep(l->r, in->point.algorithm),
        .params = keep(l->r, in->point.params),
        .message = keep(l->r, in->message),
        .comm_size = in->point.comm_size,
        .bytes = in->point.bytes,
    };
    CS_REQUIRE(out->coll != NULL && out->algorithm != NULL && out->params != NULL &&
                   out->message != NULL,
               CS_ERR_NOMEM);
    m->nfailures++;
out:
    return rc;
}

/* The runs of `m` of one kind (validate or not) in order of preference: done first, then the
 * rest, newest first within each. */
static size_t preferred_runs(const cs_report_machine_t *m, bool validate,
                             const cs_report_run_t **order) {
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = m->nruns; i-- > 0;) {
            const cs_report_run_t *run = &m->runs[i];
            bool done = run->status == CS_DB_RUN_DONE;
            if (run->validate == validate && done == (pass == 0)) {
                order[n++] = run;
            }
        }
    }
    return n;
}

/* --- keys and families --------------------------------------------------------------------- */

/* Position of `algorithm` in the registry; unknown algorithms after every known one. */
static int registry_index(const char *algorithm) {
    for (int i = 0; i < cs_registry_count; i++) {
        if (strcmp(cs_registry[i]->name, algorithm) == 0) {
            return i;
        }
    }
    return cs_registry_count;
}

static bool is_native(const char *algorithm) {
    return strcmp(cs_text_family_name(algorithm), "native") == 0;
}

static int family_order(const void *pa, const void *pb) {
    const cs_report_family_t *a = pa, *b = pb;
    if (a->native != b->native) {
        return a->native ? -1 : 1;
    }
    int ia = registry_index(a->algorithm), ib = registry_index(b->algorithm);
    if (ia != ib) {
        return ia < ib ? -1 : 1;
    }
    return strcmp(a->algorithm, b->algorithm);
}

/* Groups the key's measurements into families and finds its measured sizes. */
static int build_families(cs_report_key_t *k) {
    int rc = CS_OK;
    cs_report_family_t *fams = NULL;
    size_t nfams = 0, cap = 0;
    uint64_t *sizes = NULL;
    size_t nsizes = 0, sizes_cap = 0;

    for (size_t i = 0; i < k->nmeas; i++) {
        const cs_report_meas_t *m = &k->meas[i];
        if (nsizes == 0 || sizes[nsizes - 1] != m->bytes) {
            CS_CHECK(reserve(&sizes, &sizes_cap, nsizes, sizeof(*sizes)));
            sizes[nsizes++] = m->bytes;
        }
        size_t f = 0;
        while (f < nfams && strcmp(fams[f].algorithm, m->algorithm) != 0) {
            f++;
        }
        if (f == nfams) {
            CS_CHECK(reserve(&fams, &cap, nfams, sizeof(*fams)));
            fams[nfams++] = (cs_report_family_t){.algorithm = m->algorithm,
                                                 .name = cs_text_family_name(m->algorithm),
                                                 .native = is_native(m->algorithm)};
        }
    }
    for (size_t f = 0; f < nfams; f++) {
        cs_report_family_t *fam = &fams[f];
        fam->best = calloc(nsizes > 0 ? nsizes : 1, sizeof(*fam->best));
        CS_REQUIRE(fam->best != NULL, CS_ERR_NOMEM);
        for (size_t i = 0; i < k->nmeas; i++) {
            const cs_report_meas_t *m = &k->meas[i];
            if (strcmp(m->algorithm, fam->algorithm) != 0) {
                continue;
            }
            bool new_params = true;
            for (size_t j = 0; j < i && new_params; j++) {
                new_params = strcmp(k->meas[j].algorithm, m->algorithm) != 0 ||
                             strcmp(k->meas[j].params, m->params) != 0;
            }
            fam->nvariants += new_params;
            /* Measurements are by bytes: the last best is at this size or a smaller one. */
            if (fam->nbest > 0 && fam->best[fam->nbest - 1]->bytes == m->bytes) {
                if (m->median_us < fam->best[fam->nbest - 1]->median_us) {
                    fam->best[fam->nbest - 1] = m;
                }
            } else {
                fam->best[fam->nbest++] = m;
            }
        }
    }
    if (nfams > 0) {
        qsort(fams, nfams, sizeof(*fams), family_order);
    }
    k->families = fams;
    k->nfamilies = nfams;
    k->sizes = sizes;
    k->nsizes = nsizes;
    fams = NULL;
    sizes = NULL;
out:
    if (fams != NULL) {
        for (size_t f = 0; f < nfams; f++) {
            free(fams[f].best);
        }
        free(fams);
    }
    free(sizes);
    return rc;
}

/* Sets *key to the key (coll, comm_size, ppn) of `m`, adding it (and its collective) when new.
 * Called in key order, so a new key is always the last one of the last collective. */
static int key_of(cs_report_machine_t *m, key_id_t id, cs_report_key_t **key) {
    int rc = CS_OK;
    cs_report_coll_t *c = m->ncolls > 0 ? &m->colls[m->ncolls - 1] : NULL;
    if (c == NULL || strcmp(c->name, id.coll) != 0) {
        cs_report_coll_t *colls = realloc(m->colls, (m->ncolls + 1) * sizeof(*colls));
        CS_REQUIRE(colls != NULL, CS_ERR_NOMEM);
        m->colls = colls;
        c = &m->colls[m->ncolls++];
        *c = (cs_report_coll_t){.name = id.coll};
    }
    cs_report_key_t *k = c->nkeys > 0 ? &c->keys[c->nkeys - 1] : NULL;
    if (k == NULL || k->comm_size != id.comm_size || k->ppn != id.ppn ||
        strcmp(k->pattern, id.pattern) != 0) {
        cs_report_key_t *keys = realloc(c->keys, (c->nkeys + 1) * sizeof(*keys));
        CS_REQUIRE(keys != NULL, CS_ERR_NOMEM);
        c->keys = keys;
        k = &c->keys[c->nkeys++];
        *k = (cs_report_key_t){
            .coll = id.coll, .pattern = id.pattern, .comm_size = id.comm_size, .ppn = id.ppn};
    }
    *key = k;
out:
    return rc;
}

/* Builds the collectives and keys of `m` from its sorted rows: a merge of the three arrays. */
static int build_keys(cs_report_machine_t *m) {
    int rc = CS_OK;
    size_t im = 0, ir = 0, iv = 0;
    while (im < m->nmeas || ir < m->nrules || iv < m->nvalid) {
        /* The smallest key among the three heads. */
        key_id_t id = {NULL, 0, 0, ""};
        if (im < m->nmeas) {
            id = meas_key(m, im);
        }
        if (ir < m->nrules && (id.coll == NULL || key_order(rule_key(m, ir), id) < 0)) {
            id = rule_key(m, ir);
        }
        if (iv < m->nvalid && (id.coll == NULL || key_order(valid_key(m, iv), id) < 0)) {
            id = valid_key(m, iv);
        }
        cs_report_key_t *k = NULL;
        CS_CHECK(key_of(m, id, &k));
        k->meas = im < m->nmeas ? &m->meas[im] : NULL;
        for (; im < m->nmeas && same_key(meas_key(m, im), id); im++) {
            k->run = m->meas[im].run;
            k->nmeas++;
        }
        k->rules = ir < m->nrules ? &m->rules[ir] : NULL;
        for (; ir < m->nrules && same_key(rule_key(m, ir), id); ir++) {
            k->nrules++;
        }
        k->valid = iv < m->nvalid ? &m->valid[iv] : NULL;
        for (; iv < m->nvalid && same_key(valid_key(m, iv), id); iv++) {
            k->vrun = m->valid[iv].run;
            k->nvalid++;
        }
        CS_CHECK(build_families(k));
    }
out:
    return rc;
}

/* Hands the offsets of an isomorphic pattern to the keys of that pattern and size. */
static int add_pattern(const cs_db_pattern_t *t, void *ctx) {
    load_t *l = ctx;
    cs_report_machine_t *m = l->m;
    if (t->iso_d == 0) {
        return CS_OK;
    }
    for (size_t c = 0; c < m->ncolls; c++) {
        for (size_t i = 0; i < m->colls[c].nkeys; i++) {
            cs_report_key_t *k = &m->colls[c].keys[i];
            size_t n = (size_t)t->iso_s * (size_t)t->iso_d;
            if (k->comm_size != t->p || strcmp(k->pattern, t->name) != 0 || k->iso_d != 0) {
                continue;
            }
            k->iso_offsets = malloc(n * sizeof(int));
            if (k->iso_offsets == NULL) {
                return CS_ERR_NOMEM;
            }
            memcpy(k->iso_offsets, t->iso_offsets, n * sizeof(int));
            k->iso_d = t->iso_d;
            k->iso_s = t->iso_s;
        }
    }
    return CS_OK;
}

/* Reads everything of machine `m`. */
static int load_machine(cs_db_t *db, load_t *l, cs_report_machine_t *m) {
    int rc = CS_OK;
    const cs_report_run_t **order = calloc(m->nruns > 0 ? m->nruns : 1, sizeof(*order));
    CS_REQUIRE(order != NULL, CS_ERR_NOMEM);
    l->m = m;

    /* Measurements: per key, of the most preferred tuning run that has it. */
    size_t n = preferred_runs(m, false, order);
    l->ntaken = 0;
    l->cap = 0;
    for (size_t i = 0; i < n; i++) {
        size_t first = m->nmeas;
        l->run = order[i];
        CS_CHECK(cs_db_foreach_measurement(db, order[i]->id, add_meas, l));
        CS_CHECK(take_keys(l, meas_key, first, m->nmeas));
    }
    /* Verification failures of the runs shown. */
    l->cap = 0;
    for (size_t i = 0; i < n; i++) {
        bool shown = false;
        for (size_t j = 0; j < m->nmeas && !shown; j++) {
            shown = m->meas[j].run == order[i];
        }
        if (shown) {
            l->run = order[i];
            CS_CHECK(cs_db_foreach_failure(db, order[i]->id, add_failure, l));
        }
    }
    /* Rules: the machine's current ones. */
    l->cap = 0;
    CS_CHECK(cs_db_foreach_rule(db, m->id, add_rule, l));
    /* Validation rows: per key, of the most preferred --validate run that has it. */
    n = preferred_runs(m, true, order);
    l->ntaken = 0;
    l->cap = 0;
    for (size_t i = 0; i < n; i++) {
        size_t first = m->nvalid;
        l->run = order[i];
        CS_CHECK(cs_db_foreach_validation(db, order[i]->id, add_valid, l));
        CS_CHECK(take_keys(l, valid_key, first, m->nvalid));
    }

    if (m->nmeas > 0) {
        qsort(m->meas, m->nmeas, sizeof(*m->meas), meas_order);
    }
    if (m->nrules > 0) {
        qsort(m->rules, m->nrules, sizeof(*m->rules), rule_order);
    }
    if (m->nvalid > 0) {
        qsort(m->valid, m->nvalid, sizeof(*m->valid), valid_order);
    }
    CS_CHECK(build_keys(m));
    CS_CHECK(cs_db_foreach_pattern(db, m->id, add_pattern, l));
    /* Overlap measurements: per key, of the most preferred tuning run that has it; the
     * nonblocking rules: the machine's current ones. */
    n = preferred_runs(m, false, order);
    l->ntaken = 0;
    l->cap = 0;
    for (size_t i = 0; i < n; i++) {
        size_t first = m->noverlap;
        l->run = order[i];
        CS_CHECK(cs_db_foreach_overlap(db, order[i]->id, add_overlap, l));
        CS_CHECK(take_keys(l, overlap_key, first, m->noverlap));
    }
    if (m->noverlap > 0) {
        qsort(m->overlap, m->noverlap, sizeof(*m->overlap), overlap_order);
    }
    CS_CHECK(build_okeys(m));
    l->cap = 0;
    CS_CHECK(cs_db_foreach_nb_rule(db, m->id, add_nb_rule, l));
out:
    free(order);
    return rc;
}

int cs_report_load(cs_db_t *db, cs_report_t **report) {
    int rc = CS_OK;
    load_t l = {0};
    cs_report_t *r = NULL;
    CS_REQUIRE(db != NULL && report != NULL, CS_ERR_ARG);
    *report = NULL;
    r = calloc(1, sizeof(*r));
    CS_REQUIRE(r != NULL, CS_ERR_NOMEM);
    l.r = r;

    CS_CHECK(cs_db_foreach_machine(db, add_machine, &l));
    /* Every run, per machine; run pointers are taken only once all are read. */
    for (size_t i = 0; i < r->nmachines; i++) {
        l.m = &r->machines[i];
        l.cap = 0;
        CS_CHECK(cs_db_foreach_run(db, l.m->id, add_run, &l));
    }

    /* Machines without runs have nothing to show. */
    size_t kept = 0;
    for (size_t i = 0; i < r->nmachines; i++) {
        if (r->machines[i].nruns > 0) {
            r->machines[kept++] = r->machines[i];
        } else {
            free(r->machines[i].runs);
        }
    }
    r->nmachines = kept;
    for (size_t i = 0; i < r->nmachines; i++) {
        cs_report_machine_t *m = &r->machines[i];
        CS_CHECK(load_machine(db, &l, m));
        if (r->nmachines > 1) {
            char prefix[32];
            snprintf(prefix, sizeof(prefix), "m%lld_", (long long)m->id);
            m->prefix = keep(r, prefix);
        } else {
            m->prefix = keep(r, "");
        }
        CS_REQUIRE(m->prefix != NULL, CS_ERR_NOMEM);
    }
    *report = r;
    r = NULL;
out:
    free(l.taken);
    cs_report_free(r);
    return rc;
}

void cs_report_free(cs_report_t *r) {
    if (r == NULL) {
        return;
    }
    for (size_t i = 0; i < r->nmachines; i++) {
        cs_report_machine_t *m = &r->machines[i];
        for (size_t c = 0; c < m->ncolls; c++) {
            for (size_t k = 0; k < m->colls[c].nkeys; k++) {
                cs_report_key_t *key = &m->colls[c].keys[k];
                for (size_t f = 0; f < key->nfamilies; f++) {
                    free(key->families[f].best);
                }
                free(key->families);
                free(key->sizes);
                free(key->iso_offsets);
            }
            free(m->colls[c].keys);
        }
        free(m->colls);
        free(m->runs);
        free(m->failures);
        free(m->meas);
        free(m->rules);
        free(m->valid);
        free(m->overlap);
        free(m->okeys);
        free(m->nb_rules);
    }
    free(r->machines);
    while (r->arena != NULL) {
        struct cs_report_arena *next = r->arena->next;
        free(r->arena);
        r->arena = next;
    }
    free(r);
}

/* --- looking things up --------------------------------------------------------------------- */

const cs_rule_t *cs_report_winner(const cs_report_key_t *key, uint64_t bytes) {
    for (size_t i = 0; i < key->nrules; i++) {
        const cs_rule_t *r = &key->rules[i];
        if (r->rank == 1 && r->lo_bytes <= bytes &&
            (r->hi_bytes == CS_RULE_UNBOUNDED || bytes < r->hi_bytes)) {
            return r;
        }
    }
    return NULL;
}

const cs_report_meas_t *cs_report_find(const cs_report_key_t *key, const char *algorithm,
                                       const char *params, uint64_t bytes) {
    for (size_t i = 0; i < key->nmeas; i++) {
        const cs_report_meas_t *m = &key->meas[i];
        if (m->bytes == bytes && strcmp(m->algorithm, algorithm) == 0 &&
            strcmp(m->params, params != NULL ? params : "") == 0) {
            return m;
        }
    }
    return NULL;
}

const cs_report_family_t *cs_report_family(const cs_report_key_t *key, const char *algorithm) {
    for (size_t f = 0; f < key->nfamilies; f++) {
        if (strcmp(key->families[f].algorithm, algorithm) == 0) {
            return &key->families[f];
        }
    }
    return NULL;
}

const cs_report_meas_t *cs_report_best_at(const cs_report_family_t *family, uint64_t bytes) {
    for (size_t i = 0; family != NULL && i < family->nbest; i++) {
        if (family->best[i]->bytes == bytes) {
            return family->best[i];
        }
    }
    return NULL;
}

const cs_report_meas_t *cs_report_native_at(const cs_report_key_t *key, uint64_t bytes) {
    for (size_t f = 0; f < key->nfamilies; f++) {
        if (key->families[f].native) {
            return cs_report_best_at(&key->families[f], bytes);
        }
    }
    return NULL;
}

const cs_report_meas_t *cs_report_tuned_at(const cs_report_key_t *key, uint64_t bytes) {
    const cs_rule_t *w = cs_report_winner(key, bytes);
    if (w == NULL) {
        return NULL;
    }
    const cs_report_meas_t *m = cs_report_find(key, w->algorithm, w->params, bytes);
    return m != NULL ? m : cs_report_best_at(cs_report_family(key, w->algorithm), bytes);
}

int cs_report_iso_cost(const cs_report_key_t *key, const char *algorithm, int *rounds,
                       long *volume) {
    static const struct {
        const char *name;
        cs_iso_kind_t kind;
    } kinds[] = {{"iso_straightforward", CS_ISO_STRAIGHTFORWARD},
                 {"iso_torus", CS_ISO_TORUS},
                 {"iso_direct", CS_ISO_DIRECT}};
    int rc = CS_OK, *ones = NULL, kind = -1;
    cs_iso_nbh_t n = {0};
    cs_iso_sched_t s = {0};
    cs_iso_coll_t coll;
    const char *slash = strchr(algorithm, '/');
    if (key->iso_d == 0 || slash == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if (strncmp(algorithm, "neighbor_alltoall/", (size_t)(slash - algorithm) + 1) == 0) {
        coll = CS_ISO_ALLTOALL;
    } else if (strncmp(algorithm, "neighbor_allgather/", (size_t)(slash - algorithm) + 1) == 0) {
        coll = CS_ISO_ALLGATHER;
    } else {
        return CS_ERR_NOT_APPLICABLE;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        kind = strcmp(slash + 1, kinds[i].name) == 0 ? (int)kinds[i].kind : kind;
    }
    if (kind < 0) {
        return CS_ERR_NOT_APPLICABLE;
    }
    /* The schedule depends on the offsets only (topo/iso.h): any torus will do. */
    ones = malloc((size_t)key->iso_d * sizeof(int));
    CS_REQUIRE(ones != NULL, CS_ERR_NOMEM);
    for (int j = 0; j < key->iso_d; j++) {
        ones[j] = 1;
    }
    CS_CHECK(cs_iso_nbh_init(&n, key->iso_d, ones, key->iso_s, key->iso_offsets));
    CS_CHECK(cs_iso_build(&n, coll, (cs_iso_kind_t)kind, &s));
    *rounds = cs_iso_rounds(&s);
    *volume = cs_iso_volume(&s);
out:
    cs_iso_sched_free(&s);
    cs_iso_nbh_free(&n);
    free(ones);
    return rc;
}

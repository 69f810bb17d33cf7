/* Per-communicator rules and the per-call lookup (see select.h). */
#include "select.h"

#include "registry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const cs_sel_interval_t *cs_sel_lookup(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes) {
    const cs_sel_interval_t *iv = sc->iv[coll];
    int lo = 0, hi = sc->niv[coll] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (bytes < iv[mid].lo) {
            hi = mid - 1;
        } else if (bytes >= iv[mid].hi) {
            lo = mid + 1;
        } else {
            return &iv[mid];
        }
    }
    return NULL;
}

void cs_sel_comm_clear(cs_sel_comm_t *sc) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        free(sc->iv[c]);
        sc->iv[c] = NULL;
        sc->niv[c] = 0;
        sc->tuned_size[c] = 0;
        sc->tuned_ppn[c] = 0;
    }
}

/* Distance of a tuned key from the communicator: communicator size first (by ratio), then
 * processes per node. */
static double distance(const cs_rule_t *r, int nprocs, int ppn) {
    double size = fabs(log((double)r->comm_size / (double)nprocs));
    double node = fabs(log((double)r->ppn / (double)(ppn > 0 ? ppn : 1)));
    return size * 1000.0 + node;
}

static int build_coll(const cs_rule_t *rules, int n, cs_coll_t coll, int nprocs, int ppn,
                      cs_sel_comm_t *sc) {
    int best = -1, count = 0;
    double best_d = 0;
    char err[256];
    cs_sel_interval_t *iv;
    for (int i = 0; i < n; i++) {
        double d;
        if (rules[i].coll != coll || rules[i].comm_size < 1) {
            continue;
        }
        d = distance(&rules[i], nprocs, ppn);
        if (best < 0 || d < best_d) {
            best = i;
            best_d = d;
        }
    }
    if (best < 0) {
        return CS_OK;
    }
    sc->tuned_size[coll] = rules[best].comm_size;
    sc->tuned_ppn[coll] = rules[best].ppn;
    for (int i = 0; i < n; i++) {
        if (rules[i].coll == coll && rules[i].comm_size == rules[best].comm_size &&
            rules[i].ppn == rules[best].ppn && rules[i].rank == 1) {
            count++;
        }
    }
    iv = calloc((size_t)count, sizeof(*iv));
    if (iv == NULL) {
        return CS_ERR_NOMEM;
    }
    count = 0;
    /* Rules arrive ordered by lo_bytes, then rank (cs_db_foreach_rule). */
    for (int i = 0; i < n; i++) {
        const cs_rule_t *r = &rules[i];
        const cs_algo_t *a;
        cs_sel_interval_t *cur;
        if (r->coll != coll || r->comm_size != rules[best].comm_size || r->ppn != rules[best].ppn) {
            continue;
        }
        if (r->rank == 1) {
            cur = &iv[count++];
            cur->lo = r->lo_bytes;
            cur->hi = r->hi_bytes;
            cur->native_us = r->native_us;
        } else if (count == 0 || iv[count - 1].lo != r->lo_bytes) {
            continue; /* a candidate without its interval's winner: ignore */
        } else {
            cur = &iv[count - 1];
        }
        a = cs_registry_find(r->algorithm);
        /* Unknown keys (a newer collsel tuned this database) and parameters the algorithm does
         * not take are skipped; native ends every list anyway. */
        if (a == NULL || a->coll != coll || cur->ncand == CS_SEL_MAX_CANDS - 1 ||
            cs_params_parse(a->params, a->nparams, r->params, &cur->cand[cur->ncand].params, err,
                            sizeof(err)) != CS_OK) {
            continue;
        }
        cur->median_us[cur->ncand] = r->median_us;
        cur->cand[cur->ncand++].algo = a;
    }
    /* Every list ends with native, whatever the database held. */
    for (int i = 0; i < count; i++) {
        const cs_algo_t *native = cs_registry_native(coll);
        if (iv[i].ncand == 0 || iv[i].cand[iv[i].ncand - 1].algo != native) {
            iv[i].median_us[iv[i].ncand] = iv[i].native_us;
            cs_params_defaults(NULL, 0, &iv[i].cand[iv[i].ncand].params);
            iv[i].cand[iv[i].ncand++].algo = native;
        }
    }
    sc->iv[coll] = iv;
    sc->niv[coll] = count;
    return CS_OK;
}

int cs_sel_prune(const cs_rule_t *rules, int n, int nprocs, int ppn, cs_sel_comm_t *sc) {
    int rc = CS_OK;
    cs_sel_comm_clear(sc);
    sc->ppn = ppn;
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        CS_CHECK(build_coll(rules, n, (cs_coll_t)c, nprocs, ppn, sc));
    }
out:
    if (rc != CS_OK) {
        cs_sel_comm_clear(sc);
    }
    return rc;
}

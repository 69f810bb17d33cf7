/* Per-communicator rules and the per-call lookup (see select.h). */
#include "select.h"

#include "registry.h"

#include <math.h>
#include <stdio.h>
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
        sc->tuned_pattern[c][0] = '\0';
        sc->pattern_distance[c] = 0;
    }
}

/* Distance of a tuned key from the communicator: communicator size first (by ratio), then
 * processes per node. */
static double distance(const cs_rule_t *r, int nprocs, int ppn) {
    double size = fabs(log((double)r->comm_size / (double)nprocs));
    double node = fabs(log((double)r->ppn / (double)(ppn > 0 ? ppn : 1)));
    return size * 1000.0 + node;
}

/* The intervals of the rules of `coll` tuned on (pattern, comm_size, ppn) into sc->iv[coll]. */
static int build_intervals(const cs_rule_t *rules, int n, cs_coll_t coll, const char *pattern,
                           int comm_size, int ppn, cs_sel_comm_t *sc) {
    int count = 0;
    char err[256];
    cs_sel_interval_t *iv;
#define SAME_GROUP(r)                                                                              \
    ((r)->coll == coll && (r)->comm_size == comm_size && (r)->ppn == ppn &&                        \
     strcmp((r)->pattern, pattern) == 0)
    sc->tuned_size[coll] = comm_size;
    sc->tuned_ppn[coll] = ppn;
    for (int i = 0; i < n; i++) {
        if (SAME_GROUP(&rules[i]) && rules[i].rank == 1) {
            count++;
        }
    }
    iv = calloc((size_t)(count > 0 ? count : 1), sizeof(*iv));
    if (iv == NULL) {
        return CS_ERR_NOMEM;
    }
    count = 0;
    /* Rules arrive ordered by pattern, lo_bytes, then rank (cs_db_foreach_rule). */
    for (int i = 0; i < n; i++) {
        const cs_rule_t *r = &rules[i];
        const cs_algo_t *a;
        cs_sel_interval_t *cur;
        if (!SAME_GROUP(r)) {
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
        cur->setup_us[cur->ncand] = a->setup != NULL ? r->setup_us : 0;
        cur->cand[cur->ncand++].algo = a;
    }
#undef SAME_GROUP
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

static int build_coll(const cs_rule_t *rules, int n, cs_coll_t coll, int nprocs, int ppn,
                      cs_sel_comm_t *sc) {
    int best = -1;
    double best_d = 0;
    for (int i = 0; i < n; i++) {
        double d;
        /* pattern rules (neighbourhood collectives) are chosen by cs_sel_prune_neighbors */
        if (rules[i].coll != coll || rules[i].comm_size < 1 || rules[i].pattern[0] != '\0') {
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
    return build_intervals(rules, n, coll, "", rules[best].comm_size, rules[best].ppn, sc);
}

int cs_sel_prune_neighbors(const cs_rule_t *rules, int n, const cs_sel_pattern_t *pats, int npats,
                           const cs_graph_sig_t *sig, int ppn, cs_sel_comm_t *sc) {
    int rc = CS_OK;
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int best = -1;
        double best_d = 0, best_sig = 0;
        if (!cs_coll_is_neighbor((cs_coll_t)c)) {
            continue;
        }
        free(sc->iv[c]);
        sc->iv[c] = NULL;
        sc->niv[c] = 0;
        sc->tuned_size[c] = sc->tuned_ppn[c] = 0;
        sc->tuned_pattern[c][0] = '\0';
        sc->pattern_distance[c] = 0;
        for (int i = 0; sig != NULL && i < n; i++) {
            const cs_rule_t *r = &rules[i];
            const cs_sel_pattern_t *pat = NULL;
            double dsig, d;
            if (r->coll != (cs_coll_t)c || r->pattern[0] == '\0' || r->rank != 1) {
                continue;
            }
            for (int k = 0; k < npats && pat == NULL; k++) {
                if (pats[k].sig.p == r->comm_size && strcmp(pats[k].name, r->pattern) == 0) {
                    pat = &pats[k];
                }
            }
            if (pat == NULL) { /* no signature stored: cannot be compared */
                continue;
            }
            dsig = cs_graph_sig_distance(sig, &pat->sig);
            /* the signature decides; between equal signatures the isomorphic flag, then the
             * processes per node (a log ratio, far below 1000) */
            d = dsig * 1e6 + (pat->isomorphic != sc->isomorphic ? 1000.0 : 0.0) +
                fabs(log((double)r->ppn / (double)(ppn > 0 ? ppn : 1)));
            if (best < 0 || d < best_d) {
                best = i;
                best_d = d;
                best_sig = dsig;
            }
        }
        if (best < 0) {
            continue;
        }
        CS_CHECK(build_intervals(rules, n, (cs_coll_t)c, rules[best].pattern, rules[best].comm_size,
                                 rules[best].ppn, sc));
        snprintf(sc->tuned_pattern[c], sizeof(sc->tuned_pattern[c]), "%s", rules[best].pattern);
        sc->pattern_distance[c] = best_sig;
    }
out:
    return rc;
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

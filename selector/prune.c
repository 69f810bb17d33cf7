/* Per-communicator rules and the per-call lookup (see select.h). */
#include "select.h"

#include "core/log.h"
#include "core/nb.h"
#include "registry.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The interval of iv[0..n-1] (sorted, disjoint) holding `bytes`, or NULL (binary search). */
static const cs_sel_interval_t *find(const cs_sel_interval_t *iv, int n, uint64_t bytes) {
    int lo = 0, hi = n - 1;
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

const cs_sel_interval_t *cs_sel_lookup(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes) {
    return find(sc->iv[coll], sc->niv[coll], bytes);
}

const cs_sel_interval_t *cs_sel_nb_lookup(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes) {
    return find(sc->nb_iv[coll], sc->nb_niv[coll], bytes);
}

/* Frees the nonblocking rules of sc. */
static void clear_nb(cs_sel_comm_t *sc) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        free(sc->nb_iv[c]);
        sc->nb_iv[c] = NULL;
        sc->nb_niv[c] = 0;
        sc->nb_tuned_size[c] = 0;
        sc->nb_tuned_ppn[c] = 0;
        sc->nb_tuned_pattern[c][0] = '\0';
        sc->nb_pattern_distance[c] = 0;
    }
}

int cs_sel_prune_nb(const cs_rule_t *rules, int n, int nprocs, int ppn,
                    const cs_sel_pattern_t *pats, int npats, const cs_graph_sig_t *sig,
                    cs_sel_comm_t *sc) {
    int rc = CS_OK;
    cs_sel_comm_t *tmp = calloc(1, sizeof(*tmp)); /* the blocking rules' builder, then moved */
    clear_nb(sc);
    CS_REQUIRE(tmp != NULL, CS_ERR_NOMEM);
    CS_CHECK(cs_sel_prune(rules, n, nprocs, ppn, tmp));
    tmp->isomorphic = sc->isomorphic;
    CS_CHECK(cs_sel_prune_neighbors(rules, n, pats, npats, sig, ppn, tmp));
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        sc->nb_iv[c] = tmp->iv[c];
        sc->nb_niv[c] = tmp->niv[c];
        sc->nb_tuned_size[c] = tmp->tuned_size[c];
        sc->nb_tuned_ppn[c] = tmp->tuned_ppn[c];
        memcpy(sc->nb_tuned_pattern[c], tmp->tuned_pattern[c], sizeof(sc->nb_tuned_pattern[c]));
        sc->nb_pattern_distance[c] = tmp->pattern_distance[c];
        tmp->iv[c] = NULL;
    }
out:
    if (tmp != NULL) {
        cs_sel_comm_clear(tmp); /* what a failure left in it */
    }
    free(tmp);
    return rc;
}

void cs_sel_comm_clear(cs_sel_comm_t *sc) {
    clear_nb(sc);
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

/* The nearest tuned shape (docs/selector.md, "Sizes and layouts without rules of their own").
 * Distances are |log2(tuned) - log2(actual)|, compared exactly as the ratios max/min of two
 * integers (no floating point, so equal distances are equal): -1 when tuned value a is nearer
 * to v than b is, 1 when farther, 0 when as near. A v below 1 (ppn unknown) counts as 1. */
static int cmp_log_distance(int a, int b, int v) {
    uint64_t x = (uint64_t)(v > 0 ? v : 1);
    uint64_t a_hi = (uint64_t)a > x ? (uint64_t)a : x, a_lo = (uint64_t)a > x ? x : (uint64_t)a;
    uint64_t b_hi = (uint64_t)b > x ? (uint64_t)b : x, b_lo = (uint64_t)b > x ? x : (uint64_t)b;
    /* a_hi / a_lo vs b_hi / b_lo; every value fits an int, so the products fit 62 bits */
    uint64_t l = a_hi * b_lo, r = b_hi * a_lo;
    return l < r ? -1 : l > r ? 1 : 0;
}

/* 1 when tuned shape (size, ppn) is nearer to a communicator of nprocs processes, ppn_now per
 * node, than (best_size, best_ppn): the communicator size decides first; between sizes as near
 * (one below, one above: nprocs^2 = size * best_size) the larger; then, at one size, the
 * processes per node; between ppn as near the smaller. */
static int nearer(int size, int ppn, int best_size, int best_ppn, int nprocs, int ppn_now) {
    int c = cmp_log_distance(size, best_size, nprocs);
    if (c != 0) {
        return c < 0;
    }
    if (size != best_size) {
        return size > best_size;
    }
    c = cmp_log_distance(ppn, best_ppn, ppn_now);
    if (c != 0) {
        return c < 0;
    }
    return ppn < best_ppn;
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
    for (int i = 0; i < n; i++) {
        const cs_rule_t *r = &rules[i];
        /* pattern rules (neighbourhood collectives) are chosen by cs_sel_prune_neighbors */
        if (r->coll != coll || r->comm_size < 1 || r->ppn < 1 || r->pattern[0] != '\0') {
            continue;
        }
        if (best < 0 ||
            nearer(r->comm_size, r->ppn, rules[best].comm_size, rules[best].ppn, nprocs, ppn)) {
            best = i;
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

/* 1 when rules[0..n-1] hold a rule of `coll`: a pattern rule when `patterns`, else a plain one. */
static int has_rules(const cs_rule_t *rules, int n, cs_coll_t coll, int patterns) {
    for (int i = 0; i < n; i++) {
        if (rules[i].coll == coll && (rules[i].pattern[0] != '\0') == patterns) {
            return 1;
        }
    }
    return 0;
}

/* 1 when rows a and b belong to one interval: collective, pattern, size, ppn and lower bound. */
static int same_interval(const cs_rule_t *a, const cs_rule_t *b) {
    return a->coll == b->coll && a->comm_size == b->comm_size && a->ppn == b->ppn &&
           a->lo_bytes == b->lo_bytes && strcmp(a->pattern, b->pattern) == 0;
}

/* cs_sel_rules_nb_served for one collective and one set of rules. */
static int coll_served(const cs_rule_t *rules, int n, cs_coll_t coll, int nprocs, int patterns) {
    const cs_rule_t *prev = NULL;
    int size = 0, native_seen = 0;
    for (int i = 0; i < n && !patterns; i++) { /* the nearest tuned size, as build_coll's */
        const cs_rule_t *r = &rules[i];
        int c;
        if (r->coll != coll || r->comm_size < 1 || r->pattern[0] != '\0') {
            continue;
        }
        c = size > 0 ? cmp_log_distance(r->comm_size, size, nprocs) : -1;
        if (c < 0 || (c == 0 && r->comm_size > size)) {
            size = r->comm_size;
        }
    }
    for (int i = 0; i < n; i++) {
        const cs_rule_t *r = &rules[i];
        const cs_algo_t *a;
        if (r->coll != coll || (r->pattern[0] != '\0') != patterns ||
            (!patterns && r->comm_size != size)) {
            continue;
        }
        if (prev == NULL || !same_interval(prev, r)) {
            native_seen = 0; /* the rows of an interval come together, by rank */
        }
        prev = r;
        a = cs_registry_find(r->algorithm);
        if (a == NULL || a->coll != coll) {
            continue;
        }
        if (cs_algo_is_native(a)) {
            native_seen = 1;
        } else if (!native_seen && cs_nb_may_run(a)) {
            return 1;
        }
    }
    return 0;
}

int cs_sel_rules_nb_served(const cs_rule_t *rules, int n, const cs_rule_t *nb, int n_nb, int nprocs,
                           int topo) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int patterns = cs_coll_is_neighbor((cs_coll_t)c);
        if (patterns && !topo) {
            continue;
        }
        if (has_rules(nb, n_nb, (cs_coll_t)c, patterns)
                ? coll_served(nb, n_nb, (cs_coll_t)c, nprocs, patterns)
                : coll_served(rules, n, (cs_coll_t)c, nprocs, patterns)) {
            return 1;
        }
    }
    return 0;
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

/* --- checking the rules read from a database (cs_sel_rules_check) ------------------------- */

_Static_assert((uint64_t)CS_SEL_MAX_RULES * sizeof(cs_rule_t) <= (uint64_t)INT32_MAX,
               "one broadcast of the rule table must fit an int count");

static int cmp_text(const char *a, const char *b, size_t len) {
    return strncmp(a, b, len);
}

/* The database's order (coll, pattern, comm_size, ppn, lo_bytes, rank), then the texts, so that
 * rows that agree on the key still sort one way. */
static int rule_order(const void *pa, const void *pb) {
    const cs_rule_t *a = pa, *b = pb;
    int c;
    if (a->coll != b->coll) {
        return (int)a->coll < (int)b->coll ? -1 : 1;
    }
    if ((c = cmp_text(a->pattern, b->pattern, sizeof(a->pattern))) != 0) {
        return c;
    }
    if (a->comm_size != b->comm_size) {
        return a->comm_size < b->comm_size ? -1 : 1;
    }
    if (a->ppn != b->ppn) {
        return a->ppn < b->ppn ? -1 : 1;
    }
    if (a->lo_bytes != b->lo_bytes) {
        return a->lo_bytes < b->lo_bytes ? -1 : 1;
    }
    if (a->rank != b->rank) {
        return a->rank < b->rank ? -1 : 1;
    }
    if ((c = cmp_text(a->algorithm, b->algorithm, sizeof(a->algorithm))) != 0) {
        return c;
    }
    return cmp_text(a->params, b->params, sizeof(a->params));
}

static int same_group(const cs_rule_t *a, const cs_rule_t *b) {
    return a->coll == b->coll && a->comm_size == b->comm_size && a->ppn == b->ppn &&
           cmp_text(a->pattern, b->pattern, sizeof(a->pattern)) == 0;
}

static int terminated(const char *text, size_t len) {
    return memchr(text, '\0', len) != NULL;
}

/* What makes row `r` no rule at all (NULL: nothing). */
static const char *row_fault(const cs_rule_t *r) {
    if ((unsigned)r->coll >= CS_COLL_COUNT) {
        return "unknown collective";
    }
    if (r->comm_size < 1 || r->ppn < 1) {
        return "communicator size or processes per node below 1";
    }
    if (r->rank < 1) {
        return "rank below 1";
    }
    if (r->lo_bytes > (uint64_t)INT64_MAX ||
        (r->hi_bytes > (uint64_t)INT64_MAX && r->hi_bytes != CS_RULE_UNBOUNDED)) {
        return "negative size";
    }
    if (r->hi_bytes <= r->lo_bytes) {
        return "empty interval (hi_bytes <= lo_bytes)";
    }
    if (!terminated(r->pattern, sizeof(r->pattern))) {
        return "unterminated pattern";
    }
    if (r->pattern[0] != '\0' && !cs_coll_is_neighbor(r->coll)) {
        return "a pattern on a collective that is not a neighbourhood collective";
    }
    return NULL;
}

static int time_ok(double us) {
    return isnan(us) || (isfinite(us) && us >= 0);
}

/* What makes row `r` (a sound row) no candidate (NULL: nothing); err holds the parameters'. */
static const char *cand_fault(const cs_rule_t *r, char *err, size_t errlen) {
    const cs_algo_t *a;
    cs_params_t params;
    if (!terminated(r->algorithm, sizeof(r->algorithm)) ||
        !terminated(r->params, sizeof(r->params))) {
        return "unterminated algorithm or parameters";
    }
    a = cs_registry_find(r->algorithm);
    if (a == NULL) {
        return "unknown algorithm";
    }
    if (a->coll != r->coll) {
        return "an algorithm of another collective";
    }
    if (cs_params_parse(a->params, a->nparams, r->params, &params, err, errlen) != CS_OK) {
        return err;
    }
    if (!time_ok(r->median_us) || !time_ok(r->native_us) ||
        !(isfinite(r->setup_us) && r->setup_us >= 0)) {
        return "median_us, native_us or setup_us negative or infinite";
    }
    return NULL;
}

/* Counts a skipped row: logged (debug), and described in why when it is the first. */
static void skip(const cs_rule_t *r, const char *fault, int *nbad, char *why, size_t len) {
    char text[512], hi[32];
    const char *coll = cs_coll_name(r->coll);
    if (r->hi_bytes == CS_RULE_UNBOUNDED) {
        snprintf(hi, sizeof(hi), "inf");
    } else {
        snprintf(hi, sizeof(hi), "%" PRId64, (int64_t)r->hi_bytes);
    }
    snprintf(text, sizeof(text),
             "rule %s%s%.*s %d procs %d per node [%" PRId64 ", %s) rank %d '%.*s(%.*s)': %s",
             coll != NULL ? coll : "?", r->pattern[0] != '\0' ? " pattern " : "",
             (int)sizeof(r->pattern) - 1, r->pattern, r->comm_size, r->ppn, (int64_t)r->lo_bytes,
             hi, r->rank, (int)sizeof(r->algorithm) - 1, r->algorithm, (int)sizeof(r->params) - 1,
             r->params, fault);
    cs_log(CS_LOG_DEBUG, "%s: skipped", text);
    if (*nbad == 0 && why != NULL && len > 0) {
        snprintf(why, len, "%s", text);
    }
    (*nbad)++;
}

int cs_sel_rules_check(cs_rule_t *rules, int n, int max, int *nbad, char *why, size_t len) {
    int sound = 0, kept = 0, bad = 0;
    int have_prev = 0;
    cs_rule_t prev; /* the last interval's rank-1 row */
    if (why != NULL && len > 0) {
        why[0] = '\0';
    }
    memset(&prev, 0, sizeof(prev));
    if (rules == NULL || n < 0) {
        n = 0;
    }
    /* rows that are no rule at all go first, so that they spoil no interval */
    for (int i = 0; i < n; i++) {
        const char *fault = row_fault(&rules[i]);
        if (fault != NULL) {
            skip(&rules[i], fault, &bad, why, len);
        } else if (sound++ != i) {
            rules[sound - 1] = rules[i];
        }
    }
    if (sound > 0) {
        qsort(rules, (size_t)sound, sizeof(*rules), rule_order);
    }
    for (int i = 0; i < sound;) {
        /* rows i..j-1: one interval, lowest rank first; kept <= i, so rows are copied down
         * only over rows already read */
        cs_rule_t win = rules[i];
        const char *fault = NULL;
        int j = i + 1, rank = 0, last_rank = 0;
        while (j < sound && same_group(&rules[j], &win) && rules[j].lo_bytes == win.lo_bytes) {
            j++;
        }
        if (win.rank != 1) {
            fault = "its interval has no rank-1 row";
        } else if (have_prev && same_group(&prev, &win) && win.lo_bytes < prev.hi_bytes) {
            fault = "its interval overlaps the one before";
        } else {
            prev = win;
            have_prev = 1;
        }
        for (int k = i; k < j; k++) {
            char err[256];
            const char *f = fault;
            if (f == NULL && rules[k].rank == last_rank) {
                f = "a rank its interval already has";
            }
            if (f == NULL && rules[k].hi_bytes != win.hi_bytes) {
                f = "hi_bytes other than its interval's";
            }
            last_rank = rules[k].rank;
            if (f == NULL) {
                f = cand_fault(&rules[k], err, sizeof(err));
            }
            if (f == NULL && kept >= max) {
                f = "more rules than the table holds";
            }
            if (f != NULL) {
                skip(&rules[k], f, &bad, why, len);
                continue;
            }
            if (kept != k) {
                rules[kept] = rules[k];
            }
            rules[kept++].rank = ++rank;
        }
        i = j;
    }
    if (nbad != NULL) {
        *nbad = bad;
    }
    return kept;
}

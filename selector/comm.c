/* Per-communicator set-up: the rules shared and pruned for the communicator, cached in its
 * context (select.h), and cs_sel_enter, which finds them for a call. */
#include "collsel.h"

#include "core/isocomm.h"
#include "core/log.h"
#include "core/machine.h"
#include "core/nb.h"
#include "select_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sel_free(void *p) {
    cs_sel_comm_t *sc = p;
    atomic_fetch_add(&cs_sel_hot.epoch, 1);
    if (sc != NULL) {
        cs_sel_comm_clear(sc);
        free(sc);
    }
}

/* The intervals iv[0..n-1] as " [lo, hi) winner ..." into line[0..len-1]. */
static void describe_intervals(const cs_sel_interval_t *ivs, int n, char *line, size_t len) {
    size_t used = 0;
    line[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        const cs_sel_interval_t *iv = &ivs[i];
        char name[256], hi[32] = "inf";
        cs_variant_name(&iv->cand[0], name, sizeof(name));
        if (iv->hi != CS_RULE_UNBOUNDED) {
            snprintf(hi, sizeof(hi), "%llu", (unsigned long long)iv->hi);
        }
        used += (size_t)snprintf(line + used, len - used, " [%llu, %s) %s",
                                 (unsigned long long)iv->lo, hi, name);
    }
}

static void describe_comm(const cs_sel_comm_t *sc, int nprocs) {
    char line[2048];
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        size_t used = 0;
        if (cs_sel_env.force[c].algo != NULL) {
            char name[256];
            cs_variant_name(&cs_sel_env.force[c], name, sizeof(name));
            cs_log(CS_LOG_INFO, "%d processes: %s: forced %s (COLLSEL_FORCE)", nprocs,
                   cs_coll_name((cs_coll_t)c), name);
            continue;
        }
        if (sc->nb_niv[c] > 0) { /* tuned for overlap (docs/nonblocking.md) */
            char pattern[128] = "";
            if (sc->nb_tuned_pattern[c][0] != '\0') {
                snprintf(pattern, sizeof(pattern), " on pattern %s (signature distance %.3f)",
                         sc->nb_tuned_pattern[c], sc->nb_pattern_distance[c]);
            }
            describe_intervals(sc->nb_iv[c], sc->nb_niv[c], line, sizeof(line));
            cs_log(CS_LOG_INFO,
                   "%d processes (%d per node): i%s, %s_init: nonblocking rules tuned%s at %d "
                   "processes, %d per node:%s",
                   nprocs, sc->ppn, cs_coll_name((cs_coll_t)c), cs_coll_name((cs_coll_t)c), pattern,
                   sc->nb_tuned_size[c], sc->nb_tuned_ppn[c], line);
        }
        if (sc->niv[c] == 0) {
            cs_log(CS_LOG_INFO, "%d processes: %s: no rules, native", nprocs,
                   cs_coll_name((cs_coll_t)c));
            continue;
        }
        line[0] = '\0';
        for (int i = 0; i < sc->niv[c] && used < sizeof(line); i++) {
            const cs_sel_interval_t *iv = &sc->iv[c][i];
            char name[256], hi[32] = "inf";
            char setup[64] = "";
            double need = cs_sel_setup_calls(iv, 0);
            cs_variant_name(&iv->cand[0], name, sizeof(name));
            if (iv->hi != CS_RULE_UNBOUNDED) {
                snprintf(hi, sizeof(hi), "%llu", (unsigned long long)iv->hi);
            }
            if (need != 0) { /* cs_sel_setup_calls: when its setup is repaid */
                snprintf(setup, sizeof(setup),
                         need < 0 ? " (setup %.0f us, never)" : " (setup %.0f us, from call %.0f)",
                         iv->setup_us[0], ceil(need));
            }
            used += (size_t)snprintf(line + used, sizeof(line) - used, " [%llu, %s) %s%s",
                                     (unsigned long long)iv->lo, hi, name, setup);
        }
        if (sc->tuned_pattern[c][0] != '\0') {
            cs_log(CS_LOG_INFO,
                   "%d processes (%d per node): %s: nearest tuned pattern %s at %d processes, %d "
                   "per node (signature distance %.3f; this communicator: %d edges, out %d, in "
                   "%d, mean %.2f, imbalance %.2f):%s",
                   nprocs, sc->ppn, cs_coll_name((cs_coll_t)c), sc->tuned_pattern[c],
                   sc->tuned_size[c], sc->tuned_ppn[c], sc->pattern_distance[c], sc->sig.nedges,
                   sc->sig.max_out, sc->sig.max_in, sc->sig.mean_out, sc->sig.imbalance, line);
            continue;
        }
        cs_log(
            CS_LOG_INFO, "%d processes (%d per node): %s: tuned at %d processes, %d per node%s:%s",
            nprocs, sc->ppn, cs_coll_name((cs_coll_t)c), sc->tuned_size[c], sc->tuned_ppn[c],
            sc->tuned_size[c] != nprocs || sc->tuned_ppn[c] != sc->ppn ? " (borrowed: the nearest)"
                                                                       : "",
            line);
    }
}

/* 1 when COLLSEL_FORCE names any collective. */
static int is_any_forced(void) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (cs_sel_env.force[c].algo != NULL) {
            return 1;
        }
    }
    return 0;
}

/* The pattern signature of the communicator's topology (topo/graph.h cs_graph_sig), computed
 * collectively over ctx->comm from every rank's degrees: edges are the neighbours that are not
 * MPI_PROC_NULL, so the numbers equal cs_graph_sig of the global graph without gathering it
 * (two reductions, O(log p); nothing is kept but the result). *has_sig 0 without a topology
 * (no communication then: every rank of a communicator sees the same topology). */
static int signature(cs_comm_t *ctx, cs_graph_sig_t *sig, int *has_sig) {
    int rc = CS_OK;
    const cs_neighbors_t *nbrs = NULL;
    int deg[3] = {0, 0, 0}; /* out, in, failed: reduced by MPI_MAX */
    long long edges = 0;
    int status;
    *has_sig = 0;
    memset(sig, 0, sizeof(*sig));
    status = cs_comm_neighbors(ctx, &nbrs);
    if (status == CS_ERR_NOT_APPLICABLE) {
        return CS_OK;
    }
    deg[2] = status != CS_OK; /* still reduce, so that no rank waits alone */
    for (int i = 0; status == CS_OK && i < nbrs->outdegree; i++) {
        deg[0] += nbrs->destinations[i] != MPI_PROC_NULL;
    }
    for (int i = 0; status == CS_OK && i < nbrs->indegree; i++) {
        deg[1] += nbrs->sources[i] != MPI_PROC_NULL;
    }
    edges = deg[0];
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &edges, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm));
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, deg, 3, MPI_INT, MPI_MAX, ctx->comm));
    if (deg[2]) { /* some rank could not read its neighbours: no signature, native */
        return CS_OK;
    }
    sig->p = ctx->nprocs;
    sig->nedges = edges > INT_MAX ? INT_MAX : (int)edges;
    sig->max_out = deg[0];
    sig->max_in = deg[1];
    sig->mean_out = (double)edges / ctx->nprocs;
    sig->imbalance = edges > 0 ? deg[1] / sig->mean_out : 1.0;
    *has_sig = 1;
out:
    return rc;
}

/* 1 when comm has an isomorphic neighbourhood (core/isocomm.h: attached, or periodic
 * Cartesian); local, the same on every rank. */
static int isomorphic(MPI_Comm comm) {
    cs_isocomm_t ic;
    int iso = cs_isocomm_get(comm, &ic) == CS_OK;
    cs_isocomm_free(&ic);
    return iso;
}

/* Makes what operations of variant `v` need on ctx (collective, cs_nb_ahead: its state for
 * operations and, for DPML, the operations' own node resources and a window for calls of up to
 * `max_bytes`) when it has a setup and could be an operation. A failure leaves the variant
 * without a state (its nonblocking calls then go to the next candidate); a refusal
 * (CS_ERR_NOT_APPLICABLE: the variant does not fit the communicator) is decided alike on every
 * rank before communicating. */
static void state_ahead(cs_comm_t *ctx, const cs_variant_t *v, uint64_t max_bytes) {
    int st = cs_nb_ahead(ctx, v, max_bytes);
    if (st != CS_OK && st != CS_ERR_NOT_APPLICABLE) {
        char name[256];
        cs_variant_name(v, name, sizeof(name));
        cs_log(CS_LOG_INFO, "%s: its state for nonblocking calls could not be made: %s", name,
               cs_status_str(st));
    }
}

/* The largest bytes of a call that the intervals ivs[0..niv-1] may give a candidate working on
 * the node layout (DPML) that can be an operation (ranked before native): the last byte of
 * the highest such interval, UINT64_MAX when it is unbounded; 0 when there is none. */
static uint64_t node_bytes(const cs_sel_interval_t *ivs, int niv) {
    uint64_t most = 0;
    for (int i = 0; i < niv; i++) {
        for (int k = 0; k < ivs[i].ncand && !cs_algo_is_native(ivs[i].cand[k].algo); k++) {
            const cs_algo_t *a = ivs[i].cand[k].algo;
            if ((a->reqs & CS_REQ_NODES) && cs_nb_may_run(a) && ivs[i].hi > 0) {
                uint64_t last = ivs[i].hi == CS_RULE_UNBOUNDED ? UINT64_MAX : ivs[i].hi - 1;
                most = last > most ? last : most;
            }
        }
    }
    return most;
}

/* States made ahead (docs/nonblocking.md): a nonblocking call or persistent init never
 * communicates, so it can use a variant with a per-communicator state only when the state
 * exists, and DPML only when its window is large enough (core/nb.h). Here, collectively,
 * every variant with a setup that such a call on this communicator could pick gets them: per
 * collective whose nonblocking calls collsel serves, the forced variant (DPML's window for any
 * size, up to CS_NB_WINDOW), else the ranked candidates (up to native) of every interval of
 * the nonblocking rules, or of the blocking rules when it has none (selector/nb.c nb_rules),
 * DPML's window for the largest size those rules give it. The rules and COLLSEL_FORCE are the
 * same on every rank, so every rank makes the same states in the same order. */
static void states_ahead(cs_comm_t *ctx, const cs_sel_comm_t *sc) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int nb = sc->nb_niv[c] > 0;
        const cs_sel_interval_t *ivs = nb ? sc->nb_iv[c] : sc->iv[c];
        int niv = nb ? sc->nb_niv[c] : sc->niv[c];
        uint64_t most;
        if (cs_sel_env.force[c].algo != NULL) {
            state_ahead(ctx, &cs_sel_env.force[c], UINT64_MAX);
            continue;
        }
        most = node_bytes(ivs, niv);
        for (int i = 0; i < niv; i++) {
            for (int k = 0; k < ivs[i].ncand && !cs_algo_is_native(ivs[i].cand[k].algo); k++) {
                state_ahead(ctx, &ivs[i].cand[k], most);
            }
        }
    }
}

/* Collective over ctx->comm: shares the rules and prunes them for this communicator. Every
 * rank ends with the same verdict (native only when any rank failed). */
static int setup(cs_comm_t *ctx, MPI_Comm user) {
    int rc = CS_OK;
    int inter = 0, ppn = 1, ok, has_sig = 0, need = 0;
    cs_graph_sig_t sig;
    cs_sel_comm_t *sc = calloc(1, sizeof(*sc));
    if (sc != NULL) {
        sc->epoch = atomic_load(&cs_sel_hot.epoch);
    }
    CS_MPI_CHECK(PMPI_Comm_test_inter(user, &inter));
    if (inter) { /* not handled: native, and nothing collective to agree on */
        CS_REQUIRE(sc != NULL, CS_ERR_NOMEM);
        sc->native_only = 1;
        goto done;
    }
    /* One gather tells every rank whether some rank lacks the rule table and lets the
     * communicator share node resources with others of its group (core/comm.h, "Sharing"),
     * which may then give the processes per node without communicating. */
    CS_CHECK(cs_comm_share_agree(ctx, 1, cs_sel_rules_missing(), &need));
    CS_CHECK(cs_comm_ppn(ctx, &ppn));
    CS_CHECK(cs_sel_rules_share(ctx->comm, ctx->rank, ppn, need));
    if (cs_sel_rules_have_patterns()) { /* the same answer on every rank: the table is shared */
        CS_CHECK(signature(ctx, &sig, &has_sig));
    }
    ok = sc != NULL;
    if (ok) {
        int usable = 0;
        sc->has_sig = has_sig;
        sc->sig = sig;
        sc->isomorphic = has_sig && isomorphic(ctx->comm);
        ok = cs_sel_rules_prune(ctx->nprocs, ppn, has_sig ? &sig : NULL, sc, &usable) == CS_OK;
        /* Without usable rules only COLLSEL_FORCE can make a call go anywhere but native. */
        sc->native_only = !usable && !is_any_forced();
    }
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx->comm));
    CS_REQUIRE(ok, CS_ERR_NOMEM);
    if (!sc->native_only) {
        states_ahead(ctx, sc);
    }
    if (ctx->rank == 0 && cs_log_level() >= CS_LOG_INFO && !sc->native_only) {
        describe_comm(sc, ctx->nprocs);
    }
done:
    /* COLLSEL_VERBOSE=3, every rank: what warm-up and collsel_prepare cost, countable */
    cs_log(CS_LOG_DEBUG, "a communicator of %d processes set up (context and selector state)",
           ctx->nprocs);
    ctx->selector = sc;
    ctx->selector_free = sel_free;
    sc = NULL;
out:
    if (sc != NULL) {
        cs_sel_comm_clear(sc);
        free(sc);
    }
    return rc;
}

/* Warm-up (select_int.h): the calls a communicator without a context has made, as an attribute
 * whose value is the count itself (no allocation; not copied to duplicates, gone with the
 * communicator). The keyval is made on first use under cs_sel_lock and freed at MPI_Finalize. */
static int warm_keyval = MPI_KEYVAL_INVALID;

/* The warm-up keyval, made on first use; MPI_KEYVAL_INVALID when MPI refuses. */
static int warm_key(void) {
    pthread_mutex_lock(&cs_sel_lock);
    if (warm_keyval == MPI_KEYVAL_INVALID &&
        cs_keyval_create(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &warm_keyval) != CS_OK) {
        warm_keyval = MPI_KEYVAL_INVALID;
    }
    pthread_mutex_unlock(&cs_sel_lock);
    return warm_keyval;
}

/* 1 when this call on `comm`, which has no context (the caller checked), goes to the MPI library as
 * one of the communicator's first COLLSEL_WARMUP - 1 calls (counted); 0 when it is the call that
 * makes the context, or warm-up does not apply (MPI_COMM_WORLD, COLLSEL_FORCE set, COLLSEL_WARMUP
 * 0 or 1). The same answer on every rank: it depends on the number of calls only. */
static int warming_up(MPI_Comm comm) {
    int key, found = 0;
    void *value = NULL;
    if (cs_sel_env.warmup <= 1 || comm == MPI_COMM_WORLD || is_any_forced() ||
        (key = warm_key()) == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, key, &value, &found) != MPI_SUCCESS) {
        return 0;
    }
    intptr_t calls = (found ? (intptr_t)value : 0) + 1;
    if (calls >= cs_sel_env.warmup) {
        if (found) {
            PMPI_Comm_delete_attr(comm, key);
        }
        return 0;
    }
    return PMPI_Comm_set_attr(comm, key, (void *)calls) == MPI_SUCCESS;
}

void cs_sel_warm_count(MPI_Comm comm) {
    int key, found = 0;
    void *value = NULL;
    cs_sel_env_once();
    if (cs_sel_env.warmup <= 1 || comm == MPI_COMM_WORLD || is_any_forced() ||
        (key = warm_key()) == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, key, &value, &found) != MPI_SUCCESS) {
        return;
    }
    /* up to COLLSEL_WARMUP - 1: the next blocking call is then the one that makes the context */
    intptr_t calls = (found ? (intptr_t)value : 0) + 1;
    if (calls < cs_sel_env.warmup) {
        PMPI_Comm_set_attr(comm, key, (void *)calls);
    }
}

int cs_sel_enter(MPI_Comm comm, int call, cs_comm_t **ctx_out, cs_sel_comm_t **sc_out) {
    int rc = CS_OK;
    cs_comm_t *ctx;
    if (!atomic_load_explicit(&cs_sel_hot.active, memory_order_relaxed)) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if (cs_sel_last.comm == comm &&
        cs_sel_last.epoch == atomic_load_explicit(&cs_sel_hot.epoch, memory_order_relaxed)) {
        ctx = cs_sel_last.ctx;
    } else {
        cs_sel_env_once();
        if (!atomic_load(&cs_sel_hot.active) || comm == MPI_COMM_NULL) {
            return CS_ERR_NOT_APPLICABLE;
        }
        ctx = cs_comm_find(comm); /* one attribute lookup when it has a context */
        if (ctx == NULL && call && warming_up(comm)) {
            return CS_ERR_NOT_APPLICABLE;
        }
        if (ctx == NULL) {
            CS_CHECK(cs_comm_get(comm, &ctx));
        }
        if (ctx->selector != NULL &&
            ((cs_sel_comm_t *)ctx->selector)->epoch < atomic_load(&cs_sel_rules_epoch)) {
            /* collsel_finalize ran since: set up again (collective, like the first time),
             * once no operation of the context is left to choose by the old rules */
            cs_nb_drain_context(ctx);
            ctx->selector_free(ctx->selector);
            ctx->selector = NULL;
            ctx->selector_free = NULL;
        }
        if (ctx->selector == NULL) {
            CS_CHECK(setup(ctx, comm));
        }
        cs_sel_last.comm = comm;
        cs_sel_last.ctx = ctx;
        cs_sel_last.epoch = atomic_load(&cs_sel_hot.epoch);
    }
    *ctx_out = ctx;
    *sc_out = ctx->selector;
out:
    return rc;
}

/* 1 when collsel could serve some call: a database is named (collsel_init, COLLSEL_DB) or
 * COLLSEL_FORCE names a collective. The same on every rank. */
static int anything_to_serve(void) {
    int named;
    pthread_mutex_lock(&cs_sel_lock);
    named = cs_sel_db_path()[0] != '\0';
    pthread_mutex_unlock(&cs_sel_lock);
    return named || is_any_forced();
}

/* 1 when COLLSEL_FORCE names, for some collective, a variant that can be an operation (core/nb.h
 * cs_nb_may_run). */
static int is_nb_forced(void) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        const cs_variant_t *v = &cs_sel_env.force[c];
        if (v->algo != NULL && cs_nb_may_run(v->algo)) {
            return 1;
        }
    }
    return 0;
}

/* The checks of collsel_prepare: 1 when comm may get a context now (collsel active, something to
 * serve, an intracommunicator). Local, the same on every rank. */
static int may_prepare(MPI_Comm comm) {
    int inter = 1;
    cs_sel_env_once();
    return atomic_load(&cs_sel_hot.active) && comm != MPI_COMM_NULL && anything_to_serve() &&
           PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

/* Makes comm's context and selector state (cs_sel_enter without warm-up: collective), with the
 * MPI errors of the set-up returned rather than raised through comm's handler (the private
 * duplicate is made with comm's): a failure leaves comm native, said at COLLSEL_VERBOSE=2. */
static void prepare(MPI_Comm comm) {
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS ||
        PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
        return;
    }
    if (cs_sel_enter(comm, 0, &ctx, &sc) != CS_OK) {
        cs_log(CS_LOG_INFO, "a communicator could not be prepared: its calls are native");
    }
    PMPI_Comm_set_errhandler(comm, eh);
    PMPI_Errhandler_free(&eh);
}

int collsel_prepare(MPI_Comm comm) {
    if (may_prepare(comm)) {
        prepare(comm);
    }
    return MPI_SUCCESS;
}

/* Children: the communicators made from a parent through libcollsel_pmpi's constructors
 * (collsel_prepare_new), counted in an attribute of the parent whose value is the count (no
 * allocation, not copied to duplicates, gone with the parent), like warm-up's. */
static int kids_keyval = MPI_KEYVAL_INVALID;

/* Counts a constructor call on `parent` (every rank of parent makes it, in one order: the count
 * is the same on every rank); 1 while it is one of parent's first COLLSEL_WARMUP. */
static int early_child(MPI_Comm parent) {
    int found = 0;
    void *value = NULL;
    intptr_t kids;
    pthread_mutex_lock(&cs_sel_lock);
    if (kids_keyval == MPI_KEYVAL_INVALID &&
        cs_keyval_create(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kids_keyval) != CS_OK) {
        kids_keyval = MPI_KEYVAL_INVALID;
    }
    pthread_mutex_unlock(&cs_sel_lock);
    if (kids_keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(parent, kids_keyval, &value, &found) != MPI_SUCCESS) {
        return 0; /* the same failure on every rank is not guaranteed: fall back to warm-up */
    }
    kids = (found ? (intptr_t)value : 0) + 1;
    if (kids > cs_sel_env.warmup) {
        return 0; /* no need to count further */
    }
    return PMPI_Comm_set_attr(parent, kids_keyval, (void *)kids) == MPI_SUCCESS;
}

/* 1 when MPI_COMM_WORLD has a current selector state: its set-up gave every process of the
 * world the rule table (cs_sel_rules_share), so every process decides by the same table. Local;
 * the same on every rank (that set-up and collsel_finalize come at one point everywhere). */
static int world_ready(void) {
    const cs_comm_t *ctx = cs_comm_find(MPI_COMM_WORLD);
    const cs_sel_comm_t *sc = ctx != NULL ? ctx->selector : NULL;
    return sc != NULL && sc->epoch >= atomic_load(&cs_sel_rules_epoch);
}

int collsel_prepare_new(MPI_Comm parent, MPI_Comm comm) {
    int nprocs = 0, topo = MPI_UNDEFINED, early = 1;
    cs_sel_env_once();
    if (!atomic_load(&cs_sel_hot.active) || !anything_to_serve()) {
        return MPI_SUCCESS;
    }
    /* Decided alike on every rank of parent, before anything that depends on comm (MPI_COMM_NULL
     * on some of them). */
    if (cs_sel_env.warmup > 1 && !is_nb_forced() && parent != MPI_COMM_NULL) {
        early = early_child(parent);
    }
    if (!may_prepare(comm) || !early) {
        return MPI_SUCCESS;
    }
    if (cs_sel_env.warmup > 1 && !is_nb_forced() &&
        (!world_ready() || PMPI_Comm_size(comm, &nprocs) != MPI_SUCCESS ||
         PMPI_Topo_test(comm, &topo) != MPI_SUCCESS ||
         !cs_sel_rules_serve_nb(nprocs, topo != MPI_UNDEFINED))) {
        return MPI_SUCCESS; /* warm-up, as for a communicator made outside libcollsel_pmpi */
    }
    prepare(comm);
    return MPI_SUCCESS;
}

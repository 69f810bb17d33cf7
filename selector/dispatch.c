/* Dispatch: the call cache, the native-repeat memo, running the chosen variant and the
 * fallback of a forced one (select.h, select_int.h). */
#include "core/log.h"
#include "registry.h"
#include "select_int.h"

#include <stdio.h>
#include <string.h>

static atomic_int forced_warned[CS_COLL_COUNT];

/* 1 when `t` is MPI_DATATYPE_NULL or a predefined datatype. */
static int is_predefined_type(MPI_Datatype t) {
    int ni, na, nt, combiner;
    return t == MPI_DATATYPE_NULL ||
           (PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) == MPI_SUCCESS &&
            combiner == MPI_COMBINER_NAMED);
}

/* 1 when `op` is MPI_OP_NULL or a predefined op. */
static int is_predefined_op(MPI_Op op) {
    static const MPI_Op ops[] = {MPI_OP_NULL, MPI_MAX,    MPI_MIN,    MPI_SUM,    MPI_PROD,
                                 MPI_LAND,    MPI_BAND,   MPI_LOR,    MPI_BOR,    MPI_LXOR,
                                 MPI_BXOR,    MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (ops[i] == op) {
            return 1;
        }
    }
    return 0;
}

/* 1 when calls with `key` may be remembered (the call cache, the native memo): predefined
 * types and ops only, as a freed derived handle may come back as another type. */
static int is_cacheable(const cs_call_key_t *key) {
    return is_predefined_type(key->sendtype) && is_predefined_type(key->recvtype) &&
           is_predefined_op(key->op);
}

/* --- the call cache (select.h) ------------------------------------------------------------ */

/* Where a normalised buffer `b` comes from: the other raw buffer when the caller passed
 * MPI_IN_PLACE on this side, nowhere when normalisation dropped it, else this raw buffer. */
static void origin(const void *b, int in_place, const void *own_raw, int own_from,
                   const void *other_raw, int other_from, int *from, ptrdiff_t *off) {
    if (in_place) {
        *from = other_from;
        *off = (const char *)b - (const char *)other_raw;
    } else if (b == NULL) {
        *from = CS_SEL_FROM_NONE;
        *off = 0;
    } else {
        *from = own_from;
        *off = (const char *)b - (const char *)own_raw;
    }
}

/* Remembers that `key` on this communicator runs `entry`, after a successful run. */
static void remember(cs_sel_comm_t *sc, const cs_call_key_t *key, cs_comm_sched_t *entry,
                     const cs_call_t *call, const void *raw_send, const void *raw_recv) {
    cs_sel_hit_t *h;
    if (key == NULL || !is_cacheable(key)) {
        return;
    }
    h = &sc->hits[sc->next_hit];
    sc->next_hit = (sc->next_hit + 1) % CS_SEL_HITS;
    if (sc->nhits < CS_SEL_HITS) {
        sc->nhits++;
    }
    h->valid = 1;
    h->key = *key;
    h->entry = entry;
    h->version = entry->version;
    origin(call->sendbuf, key->send_in_place, raw_send, CS_SEL_FROM_SEND, raw_recv,
           CS_SEL_FROM_RECV, &h->send_from, &h->send_off);
    origin(call->recvbuf, key->recv_in_place, raw_recv, CS_SEL_FROM_RECV, raw_send,
           CS_SEL_FROM_SEND, &h->recv_from, &h->recv_off);
}

static void *resolve(int from, ptrdiff_t off, const void *raw_send, const void *raw_recv) {
    if (from == CS_SEL_FROM_NONE) {
        return NULL;
    }
    return (char *)(uintptr_t)(from == CS_SEL_FROM_SEND ? raw_send : raw_recv) + off;
}

/* The cached call of `sc` with `key` whose schedule is still the one it remembered, or NULL. */
static const cs_sel_hit_t *find_hit(const cs_sel_comm_t *sc, const cs_call_key_t *key) {
    for (int i = 0; i < sc->nhits; i++) {
        const cs_sel_hit_t *h = &sc->hits[i];
        if (h->valid && cs_call_same_key(&h->key, key) && h->entry->version == h->version) {
            return h;
        }
    }
    return NULL;
}

/* --- the native-repeat memo (select_int.h) ------------------------------------------------- */

/* Remembers that `key`, on the communicator cs_sel_enter() just recorded in cs_sel_last, goes
 * native by the rules. */
static void remember_native(const cs_call_key_t *key) {
    if (!is_cacheable(key)) {
        return;
    }
    cs_sel_memo[key->coll].comm = cs_sel_last.comm;
    cs_sel_memo[key->coll].epoch = cs_sel_last.epoch;
    cs_sel_memo[key->coll].key = *key;
}

/* --- choosing and running ------------------------------------------------------------------- */

int cs_sel_goes_native(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes,
                       const cs_sel_interval_t **iv) {
    if (cs_sel_env.force[coll].algo != NULL) {
        *iv = NULL;
        return 0;
    }
    *iv = cs_sel_lookup(sc, coll, bytes);
    return *iv == NULL || cs_algo_is_native((*iv)->cand[0].algo);
}

void cs_sel_log_native(cs_coll_t coll, uint64_t bytes) {
    cs_log(CS_LOG_DEBUG, "%s %llu bytes: %s/native", cs_coll_name(coll), (unsigned long long)bytes,
           cs_coll_name(coll));
}

/* Runs variant `v` for `call`; a schedule that ran is remembered for calls with the same key
 * unless `key` is NULL. */
static int run_variant(cs_comm_t *ctx, cs_sel_comm_t *sc, const cs_variant_t *v,
                       const cs_call_t *call, const cs_call_key_t *key, const void *raw_send,
                       const void *raw_recv) {
    int rc = CS_OK;
    cs_comm_sched_t *entry = NULL;
    CS_CHECK(cs_algo_applicable(v->algo, call));
    if (cs_algo_is_native(v->algo)) {
        CS_CHECK(v->algo->run(call));
        goto out;
    }
    CS_CHECK(cs_algo_prepare(v->algo, &v->params, call, ctx, &entry));
    CS_CHECK(cs_algo_exec(ctx, &entry->sched, call->sendbuf, call->recvbuf));
    remember(sc, key, entry, call, raw_send, raw_recv);
out:
    if (rc != CS_ERR_NOT_APPLICABLE && cs_sel_env.verbose >= CS_LOG_DEBUG) {
        char name[256];
        cs_variant_name(v, name, sizeof(name));
        cs_log(CS_LOG_DEBUG, "%s %zu bytes: %s%s", cs_coll_name(call->coll), call->bytes, name,
               v == &cs_sel_env.force[call->coll] ? " (forced)" : "");
    }
    return rc;
}

int cs_sel_dispatch(const cs_sel_at_t *at, const cs_call_t *call, const cs_call_key_t *key,
                    const void *raw_send, const void *raw_recv) {
    const cs_variant_t *forced = &cs_sel_env.force[call->coll];
    const cs_sel_interval_t *iv = at->iv;
    cs_variant_t native;
    cs_call_t agreed;
    int rc;
    if (cs_coll_agrees(call->coll)) {
        /* Every rank got here (cs_sel_start_uncached decides alike on every rank): agree on
         * the key (and gatherv's and scatterv's counts), then look the rules up by it. */
        agreed = *call;
        rc = cs_comm_agree(at->ctx, &agreed);
        if (rc != CS_OK) {
            return rc;
        }
        call = &agreed;
        iv = forced->algo == NULL ? cs_sel_lookup(at->sc, call->coll, call->bytes) : NULL;
    }
    if (forced->algo != NULL) {
        rc = run_variant(at->ctx, at->sc, forced, call, key, raw_send, raw_recv);
        if (rc != CS_ERR_NOT_APPLICABLE) {
            return rc;
        }
        if (cs_sel_env.fallback != CS_FALLBACK_SILENT && call->rank == 0 &&
            atomic_exchange(&forced_warned[call->coll], 1) == 0) {
            char name[256];
            cs_variant_name(forced, name, sizeof(name));
            fprintf(stderr, "collsel: %s: forced %s cannot run a %s of %zu bytes%s\n",
                    cs_sel_env.fallback == CS_FALLBACK_ERROR ? "error" : "warning", name,
                    cs_coll_name(call->coll), call->bytes,
                    cs_sel_env.fallback == CS_FALLBACK_ERROR ? " (COLLSEL_FALLBACK=error)"
                                                             : "; native");
        }
        if (cs_sel_env.fallback == CS_FALLBACK_ERROR) {
            /* An MPI error like any other: the communicator's error handler decides (the
             * default, MPI_ERRORS_ARE_FATAL, ends the job; MPI_ERRORS_RETURN returns it). */
            PMPI_Comm_call_errhandler(call->comm, MPI_ERR_OTHER);
            cs_status_mpi(MPI_ERR_OTHER);
            return CS_ERR_MPI_RAISED; /* raised: the entry point returns the code */
        }
    }
    unsigned long calls = ++at->sc->calls[call->coll];
    for (int i = 0; forced->algo == NULL && iv != NULL && i < iv->ncand; i++) {
        double need = cs_sel_setup_calls(iv, i);
        if (need < 0 || (double)calls < need) {
            /* its setup is not repaid yet (or never): the next candidate, and nothing is
             * cached, so that later calls ask again */
            key = NULL;
            continue;
        }
        rc = run_variant(at->ctx, at->sc, &iv->cand[i], call, key, raw_send, raw_recv);
        if (rc != CS_ERR_NOT_APPLICABLE) {
            return rc;
        }
    }
    native.algo = cs_registry_native(call->coll);
    cs_params_defaults(NULL, 0, &native.params);
    return run_variant(at->ctx, at->sc, &native, call, key, raw_send, raw_recv);
}

cs_sel_route_t cs_sel_start_slow(int repeat, MPI_Comm comm, const cs_call_key_t *key,
                                 cs_sel_at_t *at, const void *raw_send, const void *raw_recv,
                                 int *rc) {
    if (!repeat) {
        const cs_sel_hit_t *h;
        if (cs_sel_enter(comm, 1, &at->ctx, &at->sc) != CS_OK || at->sc->native_only) {
            return CS_SEL_TO_PMPI;
        }
        h = find_hit(at->sc, key);
        if (h != NULL) {
            *rc = cs_algo_exec(at->ctx, &h->entry->sched,
                               resolve(h->send_from, h->send_off, raw_send, raw_recv),
                               resolve(h->recv_from, h->recv_off, raw_send, raw_recv));
            return CS_SEL_RAN;
        }
        if (!cs_sel_goes_native(at->sc, (cs_coll_t)key->coll, cs_call_key_bytes(key, NULL, 0, NULL),
                                &at->iv)) {
            return CS_SEL_TO_DISPATCH;
        }
        remember_native(key);
    }
    if (cs_sel_hot.log_calls) {
        cs_sel_log_native((cs_coll_t)key->coll, cs_call_key_bytes(key, NULL, 0, NULL));
    }
    return CS_SEL_TO_PMPI;
}

int cs_sel_native_everywhere(const cs_sel_interval_t *ivs, int n) {
    for (int i = 0; i < n; i++) {
        if (!cs_algo_is_native(ivs[i].cand[0].algo)) {
            return 0;
        }
    }
    return 1;
}

cs_sel_route_t cs_sel_start_uncached(MPI_Comm comm, const cs_call_key_t *key,
                                     const cs_call_arrays_t *arrays, cs_sel_at_t *at, int *rc) {
    uint64_t bytes;
    const cs_neighbors_t *nbrs = NULL;
    int native;
    *rc = CS_OK; /* never CS_SEL_RAN: nothing is cached */
    if (cs_sel_enter(comm, 1, &at->ctx, &at->sc) != CS_OK || at->sc->native_only) {
        return CS_SEL_TO_PMPI;
    }
    /* Native whatever the arguments: the rules say native at every size, nothing forces it. */
    native = cs_sel_env.force[key->coll].algo == NULL &&
             cs_sel_native_everywhere(at->sc->iv[key->coll], at->sc->niv[key->coll]);
    at->iv = NULL;
    if (native && !cs_sel_hot.log_calls) {
        /* remembered, so that the next calls on this communicator go to MPI from the entry
         * point (cs_sel_native_always), without entering here, reading neighbours or summing
         * counts */
        cs_sel_memo[key->coll].comm = cs_sel_last.comm;
        cs_sel_memo[key->coll].epoch = cs_sel_last.epoch;
        return CS_SEL_TO_PMPI;
    }
    if (cs_coll_agrees((cs_coll_t)key->coll)) {
        /* No rank knows the whole count arrays, so the key cannot be computed here alike on
         * every rank; what is decided here depends on the rules and the environment only. */
        if (!native) {
            return CS_SEL_TO_DISPATCH; /* cs_sel_dispatch agrees on the key */
        }
        cs_sel_log_native((cs_coll_t)key->coll, 0); /* every call is logged (log_calls) */
        return CS_SEL_TO_PMPI;
    }
    if (cs_coll_is_neighbor((cs_coll_t)key->coll) && cs_comm_neighbors(at->ctx, &nbrs) != CS_OK) {
        return CS_SEL_TO_PMPI; /* no topology: the MPI library's call, and its error */
    }
    bytes = cs_call_key_bytes(key, arrays, at->ctx->nprocs, nbrs);
    /* neighbourhood v and w: one interval looked up at 0, the same on every rank (select.h) */
    if (!cs_sel_goes_native(at->sc, (cs_coll_t)key->coll,
                            cs_sel_lookup_key((cs_coll_t)key->coll, bytes), &at->iv)) {
        return CS_SEL_TO_DISPATCH;
    }
    if (cs_sel_hot.log_calls) {
        cs_sel_log_native((cs_coll_t)key->coll, bytes);
    }
    return CS_SEL_TO_PMPI;
}

int cs_sel_raise(int rc, MPI_Comm comm) {
    int code = MPI_ERR_OTHER, cls = MPI_ERR_OTHER;
    if (rc == CS_ERR_MPI || rc == CS_ERR_MPI_RAISED) {
        code = cs_status_mpi_code();
        if (code == MPI_SUCCESS || PMPI_Error_class(code, &cls) != MPI_SUCCESS ||
            cls == MPI_ERR_IN_STATUS || cls == MPI_ERR_PENDING) {
            code = MPI_ERR_OTHER;
        }
    } else if (rc == CS_ERR_NOMEM) {
        code = MPI_ERR_NO_MEM;
    } else if (rc == CS_ERR_ARG) {
        code = MPI_ERR_ARG;
    }
    if (rc != CS_ERR_MPI_RAISED) {
        PMPI_Comm_call_errhandler(comm, code);
    }
    return code;
}

/* The nonblocking and persistent entry points (collsel_ibcast ..., collsel_bcast_init ...),
 * generated from algorithms/core/coll.def like entry.c's, and the completion functions
 * (collsel_wait ... collsel_startall) that libcollsel_pmpi's MPI_Wait ... MPI_Startall call.
 * The operations themselves are core/nb.h's; docs/nonblocking.md has the design.
 *
 * A nonblocking call or a persistent init never communicates (MPI does not let them wait for
 * other processes): it uses collsel only on a communicator that already has its context and
 * selector state (made collectively by an earlier blocking collective through collsel,
 * collsel_explain or collsel_prepare(_new), which libcollsel_pmpi calls in MPI_Init and
 * after the communicator constructors: comm.c), and decides from the environment and the rules
 * alone, the same way on every rank. On a communicator without a context it counts towards
 * warm-up, as a blocking call does (select_int.h cs_sel_warm_count). gatherv, scatterv and
 * alltoallv, whose key is agreed per call, become operations that agree first and choose in
 * progress (core/nb.h cs_nb_issue_agreeing; choose_agreed below). Everything else goes to the
 * MPI library's nonblocking collective (PMPI_I<coll>) or persistent init (PMPIX_<Coll>_init in
 * Open MPI 4.1, PMPI_<Coll>_init in MPI 4): a communicator without a context, a call that does
 * not normalise, and a chosen variant that cannot be an operation (core/nb.h: a state not made
 * yet, a call larger than the operations' shared-memory window, blocking COLL operations),
 * whose next ranked candidate is tried first. The states of the variants these calls could
 * pick, and DPML's node resources and window for operations, are made ahead with the selector
 * state (comm.c). */
#include "collsel.h"

#include "core/log.h"
#include "core/nb.h"
#include "registry.h"
#include "select_int.h"

#include <stdio.h>

#if defined(OMPI_HAVE_MPI_EXT) || defined(OPEN_MPI)
#include <mpi-ext.h>
#endif

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define NATIVE_INIT(Mpi) PMPIX_##Mpi##_init
#elif MPI_VERSION >= 4
#define NATIVE_INIT(Mpi) PMPI_##Mpi##_init
#else
#error "persistent collectives need MPI 4 (MPI_<Coll>_init) or Open MPI's MPIX_<Coll>_init"
#endif

/* The context and selector state of `comm` when it has them and they are current, without
 * communicating; CS_ERR_NOT_APPLICABLE (native) otherwise. A call on a communicator without a
 * context counts towards its warm-up (cs_sel_warm_count). Progresses outstanding operations
 * first (every collsel call does). */
static int nb_enter(MPI_Comm comm, const MPI_Request *request, cs_sel_at_t *at) {
    cs_comm_t *ctx;
    const cs_sel_comm_t *sc;
    cs_nb_progress();
    if (request == NULL || comm == MPI_COMM_NULL ||
        !atomic_load_explicit(&cs_sel_hot.active, memory_order_relaxed)) {
        return CS_ERR_NOT_APPLICABLE;
    }
    ctx = cs_comm_find(comm);
    if (ctx == NULL) {
        cs_sel_warm_count(comm);
        return CS_ERR_NOT_APPLICABLE;
    }
    if (ctx->selector == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    sc = ctx->selector;
    if (sc->native_only || sc->epoch < atomic_load(&cs_sel_rules_epoch)) {
        return CS_ERR_NOT_APPLICABLE; /* set up again by the next blocking call */
    }
    at->ctx = ctx;
    at->sc = ctx->selector;
    at->iv = NULL;
    return CS_OK;
}

/* The rule interval a nonblocking or persistent call of `coll` of `bytes` takes its ranked
 * candidates from: the nonblocking rules (tuned for overlap, docs/nonblocking.md) when the
 * collective has them on this communicator (*nb 1), else the blocking collective's rules. */
static const cs_sel_interval_t *nb_rules(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes,
                                         int *nb) {
    uint64_t key = cs_sel_lookup_key(coll, bytes);
    *nb = sc->nb_niv[coll] > 0;
    return *nb ? cs_sel_nb_lookup(sc, coll, key) : cs_sel_lookup(sc, coll, key);
}

/* COLLSEL_VERBOSE=3: which variant a nonblocking or persistent call runs, by which rules. */
static void nb_log(const cs_call_t *call, const cs_variant_t *v, int persistent, const char *why) {
    char name[256];
    if (v != NULL) {
        cs_variant_name(v, name, sizeof(name));
    }
    cs_log(CS_LOG_DEBUG, "%s%s%s %zu bytes: %s (%s)", persistent ? "" : "i",
           cs_coll_name(call->coll), persistent ? "_init" : "", call->bytes,
           v != NULL ? name : "native", why);
}

/* Tries the variants a nonblocking or persistent call may run, best first: the forced one,
 * else the ranked candidates of its interval (nb_rules) up to native; try(arg, v) on each until
 * one returns anything but CS_ERR_NOT_APPLICABLE, which is returned (CS_ERR_NOT_APPLICABLE when
 * none ran: native). COLLSEL_VERBOSE=3 logs what runs. */
static int nb_walk(const cs_sel_comm_t *sc, const cs_call_t *call, int persistent, cs_nb_try_t try,
                   void *arg, int log_none) {
    const cs_variant_t *forced = &cs_sel_env.force[call->coll];
    const cs_sel_interval_t *iv;
    int rc, nb = 0;
    if (forced->algo != NULL) {
        rc = try(arg, forced);
        if (cs_sel_hot.log_calls && (log_none || rc != CS_ERR_NOT_APPLICABLE)) {
            nb_log(call, rc == CS_ERR_NOT_APPLICABLE ? NULL : forced, persistent, "forced");
        }
        return rc;
    }
    iv = sc != NULL ? nb_rules(sc, call->coll, call->bytes, &nb) : NULL;
    for (int i = 0; iv != NULL && i < iv->ncand; i++) {
        if (cs_algo_is_native(iv->cand[i].algo)) {
            break;
        }
        rc = try(arg, &iv->cand[i]);
        if (rc != CS_ERR_NOT_APPLICABLE) {
            if (cs_sel_hot.log_calls) {
                nb_log(call, &iv->cand[i], persistent,
                       nb ? "nonblocking rule" : "blocking rule, no nonblocking rules");
            }
            return rc;
        }
    }
    if (cs_sel_hot.log_calls && log_none) {
        nb_log(call, NULL, persistent,
               nb ? "nonblocking rule" : "blocking rule, no nonblocking rules");
    }
    return CS_ERR_NOT_APPLICABLE;
}

/* nb_walk's try for a call whose key needs no agreement: makes the operation of v. */
typedef struct nb_make {
    cs_comm_t *ctx;
    const cs_call_t *call;
    int persistent;
    MPI_Request *request;
} nb_make_t;

static int try_make(void *arg, const cs_variant_t *v) {
    const nb_make_t *m = arg;
    return m->persistent ? cs_nb_init(m->ctx, v, m->call, m->request)
                         : cs_nb_issue(m->ctx, v, m->call, m->request);
}

/* cs_nb_choose_t of gatherv, scatterv and alltoallv (core/nb.h): once their key is agreed, the
 * forced variant or the ranked candidates for the agreed size, as nb_walk tries them; where
 * none can run (the rules say native at that size, or the forced variant refuses the call),
 * <coll>/linear, the algorithm of the MPI library's own (Open MPI's libnbc): the MPI library's
 * nonblocking collective cannot be started here, in progress, since every rank must start
 * collectives on a communicator in one order. */
static int choose_agreed(cs_comm_t *ctx, const cs_call_t *call, int persistent, cs_nb_try_t try,
                         void *arg) {
    char name[64];
    cs_variant_t linear = {0};
    int rc = nb_walk(ctx->selector, call, persistent, try, arg, 0);
    if (rc != CS_ERR_NOT_APPLICABLE) {
        return rc;
    }
    snprintf(name, sizeof(name), "%s/linear", cs_coll_name(call->coll));
    linear.algo = cs_registry_find(name);
    if (linear.algo == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    cs_params_defaults(NULL, 0, &linear.params);
    rc = try(arg, &linear);
    if (cs_sel_hot.log_calls && rc != CS_ERR_NOT_APPLICABLE) {
        nb_log(call, &linear, persistent, "agreed; no ranked or forced variant runs it");
    }
    return rc;
}

/* Normalises the filled `call` and makes it an operation (persistent: an inactive one) of the
 * forced variant, else of the first ranked candidate that can be one; CS_ERR_NOT_APPLICABLE
 * when none can (native: the caller's), a failure otherwise. gatherv, scatterv and alltoallv,
 * whose key is agreed per call, become operations that agree and then choose (core/nb.h
 * cs_nb_issue_agreeing), unless their rules are native at every size and nothing is forced. */
static int nb_choose(const cs_sel_at_t *at, MPI_Comm comm, cs_call_t *call, int neighbor,
                     int persistent, MPI_Request *request) {
    const cs_neighbors_t *nbrs = NULL;
    nb_make_t m = {at->ctx, call, persistent, request};
    if ((neighbor && cs_comm_neighbors(at->ctx, &nbrs) != CS_OK) ||
        cs_call_finish(call, comm, at->ctx->rank, at->ctx->nprocs, nbrs) != CS_OK) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if (cs_coll_agrees(call->coll)) {
        int nb = at->sc->nb_niv[call->coll] > 0;
        const cs_algo_t *forced = cs_sel_env.force[call->coll].algo;
        if (forced != NULL ? !cs_nb_may_run(forced)
                           : cs_sel_native_everywhere(
                                 nb ? at->sc->nb_iv[call->coll] : at->sc->iv[call->coll],
                                 nb ? at->sc->nb_niv[call->coll] : at->sc->niv[call->coll])) {
            if (cs_sel_hot.log_calls) {
                nb_log(call, NULL, persistent,
                       forced != NULL ? "forced" : "native at every size, no agreement");
            }
            return CS_ERR_NOT_APPLICABLE;
        }
        return persistent ? cs_nb_init_agreeing(at->ctx, call, choose_agreed, request)
                          : cs_nb_issue_agreeing(at->ctx, call, choose_agreed, request);
    }
    return nb_walk(at->sc, call, persistent, try_make, &m, 1);
}

#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ARGS, FILL, KEY, ARRAYS,       \
                CACHED, Impi)                                                                      \
    int collsel_i##name CS_PARAMS_REQ PARAMS {                                                     \
        cs_sel_at_t at;                                                                            \
        cs_call_t call;                                                                            \
        if (nb_enter(comm, request, &at) == CS_OK) {                                               \
            FILL(&call, CS_UNPAREN ARGS);                                                          \
            int rc = nb_choose(&at, comm, &call, neighbor, 0, request);                            \
            if (rc != CS_ERR_NOT_APPLICABLE) {                                                     \
                return cs_sel_mpi_status(rc, comm);                                                \
            }                                                                                      \
        }                                                                                          \
        return PMPI_##Impi CS_ARGS_REQ ARGS;                                                       \
    }                                                                                              \
    int collsel_##name##_init CS_PARAMS_INIT PARAMS {                                              \
        cs_sel_at_t at;                                                                            \
        cs_call_t call;                                                                            \
        if (nb_enter(comm, request, &at) == CS_OK) {                                               \
            FILL(&call, CS_UNPAREN ARGS);                                                          \
            int rc = nb_choose(&at, comm, &call, neighbor, 1, request);                            \
            if (rc != CS_ERR_NOT_APPLICABLE) {                                                     \
                return cs_sel_mpi_status(rc, comm);                                                \
            }                                                                                      \
        }                                                                                          \
        return NATIVE_INIT(Mpi) CS_ARGS_INIT ARGS;                                                 \
    }
#include "core/coll.def"
#undef CS_COLL

int collsel_progress(void) {
    cs_nb_progress();
    return MPI_SUCCESS;
}

int collsel_wait(MPI_Request *request, MPI_Status *status) {
    return cs_nb_wait(request, status);
}

int collsel_test(MPI_Request *request, int *flag, MPI_Status *status) {
    return cs_nb_test(request, flag, status);
}

int collsel_waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    return cs_nb_waitall(count, requests, statuses);
}

int collsel_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    return cs_nb_testall(count, requests, flag, statuses);
}

int collsel_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    return cs_nb_waitany(count, requests, index, status);
}

int collsel_testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    return cs_nb_testany(count, requests, index, flag, status);
}

int collsel_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[]) {
    return cs_nb_waitsome(incount, requests, outcount, indices, statuses);
}

int collsel_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[]) {
    return cs_nb_testsome(incount, requests, outcount, indices, statuses);
}

int collsel_request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    return cs_nb_request_get_status(request, flag, status);
}

int collsel_request_free(MPI_Request *request) {
    return cs_nb_request_free(request);
}

int collsel_start(MPI_Request *request) {
    return cs_nb_start(request);
}

int collsel_startall(int count, MPI_Request requests[]) {
    return cs_nb_startall(count, requests);
}

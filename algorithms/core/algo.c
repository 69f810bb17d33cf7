/* Applicability check, build and run of one algorithm (see algo.h). */
#include "algo.h"

#include "comm.h"
#include "exec.h"
#include "nb.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* The most elements one message or copy of a schedule for `call` may need: for the collectives
 * of one vector (bcast, reduce, allreduce, scan, exscan, and reduce_scatter(_block), whose send
 * side is the whole input vector, at most INT_MAX elements by normalisation) the vector, which
 * every builder cuts into pieces; for the others p blocks (a range of blocks moves as one
 * message). */
static MPI_Aint largest_run(const cs_call_t *call) {
    int n = call->sendcount > call->recvcount ? call->sendcount : call->recvcount;
    switch (call->coll) {
    case CS_COLL_BCAST:
    case CS_COLL_REDUCE:
    case CS_COLL_ALLREDUCE:
    case CS_COLL_SCAN:
    case CS_COLL_EXSCAN:
    case CS_COLL_REDUCE_SCATTER_BLOCK:
    case CS_COLL_REDUCE_SCATTER:
        return n;
    default:
        return (MPI_Aint)call->nprocs * n;
    }
}

int cs_algo_applicable(const cs_algo_t *a, const cs_call_t *call) {
    if (a->coll != call->coll) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if ((a->reqs & CS_REQ_COMMUTATIVE) && !call->commutative) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if ((a->reqs & CS_REQ_POW2) && (call->nprocs & (call->nprocs - 1)) != 0) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if ((a->reqs & CS_REQ_ALLCOUNTS) && call->allcounts == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if ((a->reqs & CS_REQ_TRUE_LB0) && (call->send.true_lb != 0 || call->recv.true_lb != 0)) {
        return CS_ERR_NOT_APPLICABLE;
    }
    /* Schedules move ranges of blocks as one int count. Decided here from what every rank
     * knows alike, so that no rank refuses a call the others run. The neighbourhood
     * collectives and gatherv, scatterv and alltoallv are exempt: their counts may differ
     * between ranks; their schedules move the caller's blocks as they are (one count per
     * block), and a builder that packs blocks checks the agreed counts (call.h: allcounts).
     * tests/sim/test_sim_huge.c builds every schedule past these sizes and checks it. */
    if (a->build != NULL && !cs_coll_is_neighbor(call->coll) && !cs_coll_agrees(call->coll) &&
        largest_run(call) > INT_MAX) {
        return CS_ERR_NOT_APPLICABLE;
    }
    return CS_OK;
}

int cs_algo_variants(const cs_algo_t *a, int nprocs, int ppn, cs_variant_t *out, int cap, int *n) {
    int rc = CS_OK;
    cs_params_t *sets = malloc(CS_MAX_VARIANTS * sizeof(*sets));
    int count = 1;
    *n = 0;
    CS_REQUIRE(sets != NULL, CS_ERR_NOMEM);
    if (a->variants != NULL) {
        CS_CHECK(a->variants(nprocs, ppn, sets, CS_MAX_VARIANTS, &count));
    } else {
        cs_params_defaults(a->params, a->nparams, &sets[0]);
    }
    CS_REQUIRE(count <= cap, CS_ERR_NOMEM);
    for (int i = 0; i < count; i++) {
        out[i].algo = a;
        out[i].params = sets[i];
    }
    *n = count;
out:
    free(sets);
    return rc;
}

void cs_variant_name(const cs_variant_t *v, char *buf, size_t len) {
    char params[CS_MAX_PARAMS * (CS_PARAM_KEY + CS_PARAM_VALUE + 2)];
    cs_params_format(&v->params, params, sizeof(params));
    snprintf(buf, len, params[0] ? "%s(%s)" : "%s%s", v->algo->name, params);
}

int cs_algo_build(const cs_algo_t *a, const cs_params_t *params, const cs_call_t *call,
                  cs_sched_t *s) {
    return cs_algo_build_state(a, params, call, NULL, s);
}

int cs_algo_build_state(const cs_algo_t *a, const cs_params_t *params, const cs_call_t *call,
                        const cs_state_t *state, cs_sched_t *s) {
    int rc = CS_OK;
    cs_params_t defaults;
    CS_REQUIRE(a->build != NULL, CS_ERR_NOT_APPLICABLE);
    if (params == NULL) {
        cs_params_defaults(a->params, a->nparams, &defaults);
        params = &defaults;
    }
    cs_sched_reset(s, call->op);
    s->state = state;
    CS_CHECK(a->build(s, call, params));
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

static int same_type(const cs_type_t *a, const cs_type_t *b) {
    return a->type == b->type && a->lb == b->lb && a->extent == b->extent &&
           a->true_lb == b->true_lb && a->true_extent == b->true_extent && a->size == b->size;
}

/* 1 when a schedule built for `a` builds the same for `b`: everything a builder reads except the
 * buffer addresses (in_place included: an in-place alltoall's schedule reads its data before
 * receiving over it). Calls with count arrays (allgatherv, the neighbourhood v and w
 * collectives: cs_coll_is_cached) are never cached. A neighbourhood call's neighbours are the
 * context's, the same for every call on it. */
static int same_shape(const cs_call_t *a, const cs_call_t *b) {
    return a->coll == b->coll && cs_coll_is_cached(a->coll) && a->rank == b->rank &&
           a->nprocs == b->nprocs && a->root == b->root && a->sendcount == b->sendcount &&
           a->recvcount == b->recvcount && a->op == b->op && a->commutative == b->commutative &&
           a->in_place == b->in_place && same_type(&a->send, &b->send) &&
           same_type(&a->recv, &b->recv);
}

/* Finds the schedule of `a` for `call` in the context's cache or builds it there. */
int cs_algo_prepare(const cs_algo_t *a, const cs_params_t *params, const cs_call_t *call,
                    cs_comm_t *ctx, cs_comm_sched_t **out) {
    int rc = CS_OK;
    cs_comm_sched_t *entry = NULL;
    const cs_state_t *state = NULL;
    cs_params_t defaults;
    CS_REQUIRE(a->build != NULL, CS_ERR_NOT_APPLICABLE);
    if (params == NULL) {
        cs_params_defaults(a->params, a->nparams, &defaults);
        params = &defaults;
    }
    for (int i = 0; i < CS_COMM_SCHEDS && entry == NULL; i++) {
        if (ctx->scheds[i].algo == a && same_shape(&ctx->scheds[i].shape, call) &&
            cs_params_equal(&ctx->scheds[i].params, params)) {
            entry = &ctx->scheds[i];
        }
    }
    if (entry == NULL) {
        /* The first use of a variant on a communicator misses on every rank (entries are keyed
         * by algorithm and parameters too), so the collective setup happens in step; later
         * misses find the state. */
        if (a->setup != NULL) {
            CS_CHECK(cs_comm_state(ctx, a, params, &state));
        }
        entry = &ctx->scheds[ctx->next_sched];
        ctx->next_sched = (ctx->next_sched + 1) % CS_COMM_SCHEDS;
        entry->algo = NULL;
        entry->version++;
        CS_CHECK(cs_algo_build_state(a, params, call, state, &entry->sched));
        entry->algo = a;
        entry->shape = *call;
        entry->params = *params;
    }
    CS_CHECK(cs_comm_reserve(ctx, (size_t)entry->sched.scratch_bytes, entry->sched.max_comm));
    if (entry->sched.window_bytes > 0) {
        if (atomic_load_explicit(&ctx->nb_win_runs, memory_order_relaxed) > 0 &&
            cs_comm_ops_node(ctx) == ctx->node) {
            /* growing frees the window operations use (core/nb.h; not when they have their
             * own, comm.h "Operations' node resources") */
            cs_nb_drain_window(ctx);
        }
        CS_CHECK(cs_comm_window(ctx->node, entry->sched.window_bytes));
    }
    *out = entry;
out:
    return rc;
}

int cs_algo_exec(cs_comm_t *ctx, const cs_sched_t *sched, const void *sendbuf, void *recvbuf) {
    cs_exec_t e;
    cs_mpi_transport_t tr;
    tr.comm = ctx->comm;
    tr.tag = CS_TAG;
    tr.reqs = ctx->reqs;
    tr.statuses = ctx->statuses;
    if (sched->state != NULL) {
        tr.comms = sched->state->comms;
        tr.ncomms = sched->state->ncomms;
        if (sched->ncolls > 0 &&
            atomic_load_explicit(&ctx->nb_coll_runs, memory_order_relaxed) > 0) {
            /* operations with COLLs to start on these sub-communicators first (core/nb.h) */
            cs_nb_drain_colls(ctx);
        }
        if (sched->window_bytes > 0 &&
            atomic_load_explicit(&ctx->nb_win_runs, memory_order_relaxed) > 0 &&
            cs_comm_ops_node(ctx) == ctx->node) {
            cs_nb_drain_window(ctx); /* operations using this window finish first */
        }
    } else {
        tr.comms = NULL;
        tr.ncomms = 0;
    }
    tr.win = ctx->node != NULL ? ctx->node->win : MPI_WIN_NULL;
    cs_exec_start(&e, sched, sendbuf, recvbuf, ctx->scratch, &cs_exec_mpi_transport, &tr);
    if (ctx->node != NULL) {
        cs_exec_set_window(&e, ctx->node->win_base);
    }
    return cs_exec_run(&e);
}

int cs_algo_prebuild(cs_comm_t *ctx, const cs_sched_t *sched, const void *sendbuf, void *recvbuf) {
    return sched->pcache == NULL
               ? CS_OK
               : cs_exec_mpi_prebuild(sched, sendbuf, recvbuf, ctx->scratch,
                                      ctx->node != NULL ? ctx->node->win_base : NULL);
}

/* Runs variant (a, params): checks applicability first (before a context is created for
 * nothing), then the native call or the cached schedule on the private communicator. */
static int run(const cs_algo_t *a, const cs_params_t *params, const cs_call_t *call) {
    int rc = CS_OK;
    cs_comm_t *ctx = NULL;
    cs_comm_sched_t *entry = NULL;
    CS_CHECK(cs_algo_applicable(a, call));
    if (a->run != NULL) {
        CS_CHECK(a->run(call));
        goto out;
    }
    CS_CHECK(cs_comm_get(call->comm, &ctx));
    CS_CHECK(cs_algo_prepare(a, params, call, ctx, &entry));
    CS_CHECK(cs_algo_exec(ctx, &entry->sched, call->sendbuf, call->recvbuf));
out:
    return rc;
}

int cs_algo_run(const cs_algo_t *a, const cs_call_t *call) {
    return run(a, NULL, call);
}

int cs_algo_run_variant(const cs_variant_t *v, const cs_call_t *call) {
    return run(v->algo, &v->params, call);
}

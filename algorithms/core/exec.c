/* Schedule executor and the MPI transport (see exec.h). */
#include "exec.h"

#include <stdint.h>
#include <string.h>

static int mpi_start(void *ctx, const cs_op_t *op, void *buf, int index) {
    cs_mpi_transport_t *t = ctx;
    int err;
    if (op->kind == CS_OP_SEND) {
        err = PMPI_Isend(buf, op->count, op->type, op->peer, t->tag, t->comm, &t->reqs[index]);
    } else {
        err = PMPI_Irecv(buf, op->count, op->type, op->peer, t->tag, t->comm, &t->reqs[index]);
    }
    return err == MPI_SUCCESS ? CS_OK : cs_status_mpi(err);
}

/* Builds multi-part op `op`'s struct type over the parts' addresses into its cache entry when
 * the executor said the cached one is stale (exec.h's cost rule); nothing otherwise. */
static int build_parts_type(const cs_op_t *op, const cs_part_t *parts, void *const *addrs,
                            cs_part_cache_t *pc) {
    cs_part_type_t *pt = &pc->types[op->ptype];
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int rc = CS_OK;
    if (pt->stale || pt->type == MPI_DATATYPE_NULL) {
        if (pt->type != MPI_DATATYPE_NULL) {
            CS_MPI_CHECK(PMPI_Type_free(&pt->type));
        }
        for (int i = 0; i < op->nparts; i++) {
            CS_MPI_CHECK(PMPI_Get_address(addrs[i], &pc->disps[i]));
            pc->lens[i] = parts[i].count;
            pc->dtypes[i] = parts[i].type;
        }
        CS_MPI_CHECK(PMPI_Type_create_struct(op->nparts, pc->lens, pc->disps, pc->dtypes, &type));
        CS_MPI_CHECK(PMPI_Type_commit(&type));
        pt->type = type;
        type = MPI_DATATYPE_NULL;
        pt->stale = 0;
        pc->builds++;
    }
out:
    if (type != MPI_DATATYPE_NULL) {
        PMPI_Type_free(&type);
    }
    return rc;
}

/* A multi-part op: one message of (MPI_BOTTOM, 1, struct type over the parts' addresses). */
static int mpi_startv(void *ctx, const cs_op_t *op, const cs_part_t *parts, void *const *addrs,
                      cs_part_cache_t *pc, int index) {
    cs_mpi_transport_t *t = ctx;
    cs_part_type_t *pt = &pc->types[op->ptype];
    int rc = CS_OK, err;
    CS_CHECK(build_parts_type(op, parts, addrs, pc));
    if (op->kind == CS_OP_SEND) {
        err = PMPI_Isend(MPI_BOTTOM, 1, pt->type, op->peer, t->tag, t->comm, &t->reqs[index]);
    } else {
        err = PMPI_Irecv(MPI_BOTTOM, 1, pt->type, op->peer, t->tag, t->comm, &t->reqs[index]);
    }
    CS_REQUIRE(err == MPI_SUCCESS, cs_status_mpi(err));
out:
    return rc;
}

/* CS_ERR_MPI for a failed Waitall/Testall of n requests, recording the first failed request's
 * own error when the statuses say it (MPI_ERR_IN_STATUS), else `err`. */
static int round_error(const cs_mpi_transport_t *t, int n, int err) {
    for (int i = 0; err == MPI_ERR_IN_STATUS && t->statuses != NULL && i < n; i++) {
        int e = t->statuses[i].MPI_ERROR;
        if (e != MPI_SUCCESS && e != MPI_ERR_PENDING) {
            return cs_status_mpi(e);
        }
    }
    return cs_status_mpi(err);
}

static int mpi_test(void *ctx, int n, int *done) {
    cs_mpi_transport_t *t = ctx;
    int err =
        PMPI_Testall(n, t->reqs, done, t->statuses != NULL ? t->statuses : MPI_STATUSES_IGNORE);
    return err == MPI_SUCCESS ? CS_OK : round_error(t, n, err);
}

static int mpi_wait(void *ctx, int n) {
    cs_mpi_transport_t *t = ctx;
    int err = PMPI_Waitall(n, t->reqs, t->statuses != NULL ? t->statuses : MPI_STATUSES_IGNORE);
    return err == MPI_SUCCESS ? CS_OK : round_error(t, n, err);
}

/* The MPI library's blocking collective of a COLL with `blocking` set (sched.h), on comm. */
static int blocking_coll(const cs_coll_op_t *c, const void *send, void *recv, const int *counts,
                         MPI_Comm comm) {
    const void *sb = c->in_place ? MPI_IN_PLACE : send;
    switch (c->coll) {
    case CS_COLL_BARRIER:
        return PMPI_Barrier(comm);
    case CS_COLL_BCAST:
        return PMPI_Bcast(recv, c->recvcount, c->recvtype, c->root, comm);
    case CS_COLL_GATHER:
        return PMPI_Gather(sb, c->sendcount, c->sendtype, recv, c->recvcount, c->recvtype, c->root,
                           comm);
    case CS_COLL_SCATTER:
        return PMPI_Scatter(send, c->sendcount, c->sendtype, c->in_place ? MPI_IN_PLACE : recv,
                            c->recvcount, c->recvtype, c->root, comm);
    case CS_COLL_REDUCE:
        return PMPI_Reduce(sb, recv, c->sendcount, c->sendtype, c->op, c->root, comm);
    case CS_COLL_ALLREDUCE:
        return PMPI_Allreduce(sb, recv, c->sendcount, c->sendtype, c->op, comm);
    case CS_COLL_ALLGATHER:
        return PMPI_Allgather(sb, c->sendcount, c->sendtype, recv, c->recvcount, c->recvtype, comm);
    case CS_COLL_ALLGATHERV:
        return PMPI_Allgatherv(sb, c->sendcount, c->sendtype, recv, counts, counts + c->group.size,
                               c->recvtype, comm);
    case CS_COLL_ALLTOALL:
        return PMPI_Alltoall(sb, c->sendcount, c->sendtype, recv, c->recvcount, c->recvtype, comm);
    default:
        return MPI_ERR_OTHER;
    }
}

static int mpi_coll(void *ctx, const cs_coll_op_t *c, const void *send, void *recv,
                    const int *counts, int index) {
    cs_mpi_transport_t *t = ctx;
    MPI_Request *req = &t->reqs[index];
    const void *sb = c->in_place ? MPI_IN_PLACE : send;
    MPI_Comm comm;
    int err = MPI_ERR_OTHER;
    if (c->comm < 0 || c->comm >= t->ncomms || t->comms[c->comm] == MPI_COMM_NULL) {
        return CS_ERR_INTERNAL; /* a COLL without the state it was built for */
    }
    comm = t->comms[c->comm];
    if (c->blocking) {
        *req = MPI_REQUEST_NULL; /* done when started */
        err = blocking_coll(c, send, recv, counts, comm);
        return err == MPI_SUCCESS ? CS_OK : cs_status_mpi(err);
    }
    switch (c->coll) {
    case CS_COLL_BARRIER:
        err = PMPI_Ibarrier(comm, req);
        break;
    case CS_COLL_BCAST:
        err = PMPI_Ibcast(recv, c->recvcount, c->recvtype, c->root, comm, req);
        break;
    case CS_COLL_GATHER:
        err = PMPI_Igather(sb, c->sendcount, c->sendtype, recv, c->recvcount, c->recvtype, c->root,
                           comm, req);
        break;
    case CS_COLL_SCATTER:
        err = PMPI_Iscatter(send, c->sendcount, c->sendtype, c->in_place ? MPI_IN_PLACE : recv,
                            c->recvcount, c->recvtype, c->root, comm, req);
        break;
    case CS_COLL_REDUCE:
        err = PMPI_Ireduce(sb, recv, c->sendcount, c->sendtype, c->op, c->root, comm, req);
        break;
    case CS_COLL_ALLREDUCE:
        err = PMPI_Iallreduce(sb, recv, c->sendcount, c->sendtype, c->op, comm, req);
        break;
    case CS_COLL_ALLGATHER:
        err = PMPI_Iallgather(sb, c->sendcount, c->sendtype, recv, c->recvcount, c->recvtype, comm,
                              req);
        break;
    case CS_COLL_ALLGATHERV:
        err = PMPI_Iallgatherv(sb, c->sendcount, c->sendtype, recv, counts, counts + c->group.size,
                               c->recvtype, comm, req);
        break;
    case CS_COLL_ALLTOALL:
        err = PMPI_Ialltoall(sb, c->sendcount, c->sendtype, recv, c->recvcount, c->recvtype, comm,
                             req);
        break;
    default:
        return CS_ERR_ARG;
    }
    return err == MPI_SUCCESS ? CS_OK : cs_status_mpi(err);
}

static int mpi_sync(void *ctx) {
    cs_mpi_transport_t *t = ctx;
    if (t->win == MPI_WIN_NULL) {
        return CS_ERR_INTERNAL; /* a SYNC without the window it was built for */
    }
    int err = PMPI_Win_sync(t->win);
    return err == MPI_SUCCESS ? CS_OK : cs_status_mpi(err);
}

int cs_exec_ireduce_safe(const cs_type_t *t, int commutative, int root) {
#if defined(OPEN_MPI) && OPEN_MPI
    (void)root;
    return !(commutative && t->true_lb != 0);
#else
    (void)t;
    (void)commutative;
    (void)root;
    return 1;
#endif
}

const cs_transport_t cs_exec_mpi_transport = {.start = mpi_start,
                                              .test = mpi_test,
                                              .wait = mpi_wait,
                                              .coll = mpi_coll,
                                              .sync = mpi_sync,
                                              .startv = mpi_startv};

void cs_exec_start(cs_exec_t *e, const cs_sched_t *s, const void *sendbuf, void *recvbuf,
                   void *scratch, const cs_transport_t *tr, void *tr_ctx) {
    e->sched = s;
    e->base[CS_SLOT_SEND] = (void *)(uintptr_t)sendbuf;
    e->base[CS_SLOT_RECV] = recvbuf;
    e->base[CS_SLOT_SCRATCH] = scratch;
    e->base[CS_SLOT_WINDOW] = NULL;
    e->tr = tr;
    e->tr_ctx = tr_ctx;
    e->round = 0;
    e->started = 0;
    e->ncomm = 0;
}

/* The address of `r`. In integers: a slot's base may be MPI_BOTTOM (NULL in Open MPI), with
 * the caller's absolute datatype, and its offsets then address the data all the same (a COLL
 * phase at offset k of such a buffer must get MPI_BOTTOM + k, not NULL). */
static inline void *addr(const cs_exec_t *e, cs_ref_t r) {
    return (void *)((uintptr_t)e->base[r.slot] + (uintptr_t)r.off);
}

static int start_coll(cs_exec_t *e, const cs_op_t *op) {
    const cs_sched_t *s = e->sched;
    const cs_coll_op_t *c = &s->colls[op->peer];
    if (e->tr->coll == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    return e->tr->coll(e->tr_ctx, c, addr(e, c->send), addr(e, c->recv),
                       c->counts >= 0 ? s->ints + c->counts : NULL, e->ncomm);
}

/* Starts multi-part op `op`: marks its cached datatype stale when a base of the slots its parts
 * lie in changed, resolves the parts' addresses into the cache's work array, hands it over.
 * Out of line, so that the loop over plain ops in start_round() stays as it was. */
/* Marks op's cached datatype stale when a base of the slots its parts lie in changed since it
 * was built, and resolves the parts' addresses into the cache's work array. */
static void resolve_parts(const cs_exec_t *e, const cs_op_t *op) {
    const cs_sched_t *s = e->sched;
    cs_part_cache_t *pc = s->pcache;
    cs_part_type_t *pt = &pc->types[op->ptype];
    const cs_part_t *parts = s->parts + op->part;
    for (int k = 0; k < CS_SLOT_COUNT; k++) {
        if ((pt->slots >> k & 1u) && pt->base[k] != e->base[k]) {
            pt->base[k] = e->base[k];
            pt->stale = 1;
        }
    }
    for (int i = 0; i < op->nparts; i++) {
        pc->addrs[i] = addr(e, parts[i].buf);
    }
}

__attribute__((noinline)) static int start_parts(cs_exec_t *e, const cs_op_t *op) {
    const cs_sched_t *s = e->sched;
    if (e->tr->startv == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    resolve_parts(e, op);
    return e->tr->startv(e->tr_ctx, op, s->parts + op->part, s->pcache->addrs, s->pcache, e->ncomm);
}

int cs_exec_mpi_prebuild(const cs_sched_t *s, const void *sendbuf, void *recvbuf, void *scratch,
                         void *window) {
    int rc = CS_OK;
    cs_exec_t e;
    cs_exec_start(&e, s, sendbuf, recvbuf, scratch, &cs_exec_mpi_transport, NULL);
    cs_exec_set_window(&e, window);
    for (int i = 0; i < s->nops; i++) {
        const cs_op_t *op = &s->ops[i];
        if ((op->kind == CS_OP_SEND || op->kind == CS_OP_RECV) && op->nparts > 0) {
            resolve_parts(&e, op);
            CS_CHECK(build_parts_type(op, s->parts + op->part, s->pcache->addrs, s->pcache));
        }
    }
out:
    return rc;
}

int cs_exec_local(const cs_op_t *op, MPI_Op mpi_op, const void *src, void *dst) {
    int rc = CS_OK;
    if (op->kind == CS_OP_REDUCE) {
        CS_MPI_CHECK(PMPI_Reduce_local(src, dst, op->count, op->type, mpi_op));
    } else if (op->copy_bytes > 0) {
        if (src != dst) {
            memcpy((char *)dst + op->copy_lb, (const char *)src + op->copy_lb,
                   (size_t)op->copy_bytes);
        }
    } else if (src != dst || op->type != op->dst_type || op->count != op->dst_count) {
        CS_MPI_CHECK(PMPI_Sendrecv(src, op->count, op->type, 0, 0, dst, op->dst_count, op->dst_type,
                                   0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    }
out:
    return rc;
}

static int start_round(cs_exec_t *e, int begin, int end) {
    int rc = CS_OK;
    e->ncomm = 0;
    for (int i = begin; i < end; i++) {
        const cs_op_t *op = &e->sched->ops[i];
        if (op->kind == CS_OP_SEND || op->kind == CS_OP_RECV) {
            if (op->nparts == 0) {
                CS_CHECK(e->tr->start(e->tr_ctx, op, addr(e, op->buf), e->ncomm));
            } else {
                CS_CHECK(start_parts(e, op));
            }
            e->ncomm++;
        } else if (op->kind == CS_OP_COLL) {
            CS_CHECK(start_coll(e, op));
            e->ncomm++;
        }
    }
    e->started = 1;
out:
    return rc;
}

static int finish_round(cs_exec_t *e, int begin, int end) {
    int rc = CS_OK;
    for (int i = begin; i < end; i++) {
        const cs_op_t *op = &e->sched->ops[i];
        if (op->kind == CS_OP_COPY || op->kind == CS_OP_REDUCE) {
            CS_CHECK(cs_exec_local(op, e->sched->op, addr(e, op->buf), addr(e, op->dst)));
        } else if (op->kind == CS_OP_SYNC && e->tr->sync != NULL) {
            CS_CHECK(e->tr->sync(e->tr_ctx));
        }
    }
    e->round++;
    e->started = 0;
out:
    return rc;
}

int cs_exec_progress_gated(cs_exec_t *e, cs_exec_gate_t gate, void *arg) {
    int rc = CS_OK;
    const cs_sched_t *s = e->sched;
    while (e->round < s->nrounds) {
        int begin = e->round > 0 ? s->round_end[e->round - 1] : 0;
        int end = s->round_end[e->round];
        int done = 1;
        if (!e->started) {
            if (gate != NULL && !gate(arg, e, begin, end)) {
                return CS_INPROGRESS;
            }
            CS_CHECK(start_round(e, begin, end));
        }
        if (e->ncomm > 0) {
            CS_CHECK(e->tr->test(e->tr_ctx, e->ncomm, &done));
        }
        if (!done) {
            return CS_INPROGRESS;
        }
        CS_CHECK(finish_round(e, begin, end));
    }
out:
    return rc;
}

int cs_exec_progress(cs_exec_t *e) {
    return cs_exec_progress_gated(e, NULL, NULL);
}

int cs_exec_run(cs_exec_t *e) {
    int rc = CS_OK;
    const cs_sched_t *s = e->sched;
    while (e->round < s->nrounds) {
        int begin = e->round > 0 ? s->round_end[e->round - 1] : 0;
        int end = s->round_end[e->round];
        if (!e->started) {
            CS_CHECK(start_round(e, begin, end));
        }
        if (e->ncomm > 0) {
            CS_CHECK(e->tr->wait(e->tr_ctx, e->ncomm));
        }
        CS_CHECK(finish_round(e, begin, end));
    }
out:
    return rc;
}

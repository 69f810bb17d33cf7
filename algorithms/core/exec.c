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
    return err == MPI_SUCCESS ? CS_OK : CS_ERR_MPI;
}

static int mpi_test(void *ctx, int n, int *done) {
    cs_mpi_transport_t *t = ctx;
    return PMPI_Testall(n, t->reqs, done, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? CS_OK : CS_ERR_MPI;
}

static int mpi_wait(void *ctx, int n) {
    cs_mpi_transport_t *t = ctx;
    return PMPI_Waitall(n, t->reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? CS_OK : CS_ERR_MPI;
}

const cs_transport_t cs_exec_mpi_transport = {mpi_start, mpi_test, mpi_wait};

void cs_exec_start(cs_exec_t *e, const cs_sched_t *s, const void *sendbuf, void *recvbuf,
                   void *scratch, const cs_transport_t *tr, void *tr_ctx) {
    e->sched = s;
    e->base[CS_SLOT_SEND] = (void *)(uintptr_t)sendbuf;
    e->base[CS_SLOT_RECV] = recvbuf;
    e->base[CS_SLOT_SCRATCH] = scratch;
    e->tr = tr;
    e->tr_ctx = tr_ctx;
    e->round = 0;
    e->started = 0;
    e->ncomm = 0;
}

static inline void *addr(const cs_exec_t *e, cs_ref_t r) {
    return (char *)e->base[r.slot] + r.off;
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
            CS_CHECK(e->tr->start(e->tr_ctx, op, addr(e, op->buf), e->ncomm));
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
        }
    }
    e->round++;
    e->started = 0;
out:
    return rc;
}

int cs_exec_progress(cs_exec_t *e) {
    int rc = CS_OK;
    const cs_sched_t *s = e->sched;
    while (e->round < s->nrounds) {
        int begin = e->round > 0 ? s->round_end[e->round - 1] : 0;
        int end = s->round_end[e->round];
        int done = 1;
        if (!e->started) {
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

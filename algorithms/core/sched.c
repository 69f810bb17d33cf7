/* Schedule builder (see sched.h). */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#define SCRATCH_ALIGN 16

void cs_sched_reset(cs_sched_t *s, MPI_Op op) {
    s->nops = 0;
    s->nrounds = 0;
    s->max_comm = 0;
    s->round_comm = 0;
    s->scratch_bytes = 0;
    s->window_bytes = 0;
    s->op = op;
    s->ncolls = 0;
    s->nints = 0;
    s->state = NULL;
}

void cs_sched_free(cs_sched_t *s) {
    free(s->ops);
    free(s->round_end);
    free(s->colls);
    free(s->ints);
    memset(s, 0, sizeof(*s));
    s->op = MPI_OP_NULL;
}

static int grow(void **arr, int *cap, int need, size_t elem) {
    if (need <= *cap) {
        return CS_OK;
    }
    int ncap = *cap > 0 ? *cap : 16;
    while (ncap < need) {
        ncap *= 2;
    }
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (p == NULL) {
        return CS_ERR_NOMEM;
    }
    *arr = p;
    *cap = ncap;
    return CS_OK;
}

static int append(cs_sched_t *s, const cs_op_t *op) {
    int rc = CS_OK;
    CS_CHECK(grow((void **)&s->ops, &s->ops_cap, s->nops + 1, sizeof(cs_op_t)));
    s->ops[s->nops++] = *op;
    if (op->kind == CS_OP_SEND || op->kind == CS_OP_RECV || op->kind == CS_OP_COLL) {
        s->round_comm++;
        if (s->round_comm > s->max_comm) {
            s->max_comm = s->round_comm;
        }
    }
out:
    return rc;
}

int cs_sched_scratch(cs_sched_t *s, MPI_Aint count, const cs_type_t *t, cs_ref_t *out) {
    MPI_Aint start = (s->scratch_bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
    MPI_Aint span = count > 0 ? t->true_extent + (count - 1) * t->extent : 0;
    if (count < 0) {
        return CS_ERR_ARG;
    }
    /* Element 0's data begins at base + off + true_lb, which must be `start`. */
    *out = cs_ref(CS_SLOT_SCRATCH, start - t->true_lb);
    s->scratch_bytes = start + span;
    return CS_OK;
}

static int comm_op(cs_sched_t *s, cs_op_kind_t kind, int peer, cs_ref_t buf, int count,
                   MPI_Datatype type) {
    cs_op_t op;
    if (peer < 0 || count < 0 || type == MPI_DATATYPE_NULL) {
        return CS_ERR_ARG;
    }
    memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.peer = peer;
    op.buf = buf;
    op.count = count;
    op.type = type;
    return append(s, &op);
}

int cs_sched_send(cs_sched_t *s, int peer, cs_ref_t buf, int count, const cs_type_t *t) {
    return comm_op(s, CS_OP_SEND, peer, buf, count, t->type);
}

int cs_sched_recv(cs_sched_t *s, int peer, cs_ref_t buf, int count, const cs_type_t *t) {
    return comm_op(s, CS_OP_RECV, peer, buf, count, t->type);
}

int cs_sched_send_raw(cs_sched_t *s, int peer, cs_ref_t buf, int count, MPI_Datatype type) {
    return comm_op(s, CS_OP_SEND, peer, buf, count, type);
}

int cs_sched_recv_raw(cs_sched_t *s, int peer, cs_ref_t buf, int count, MPI_Datatype type) {
    return comm_op(s, CS_OP_RECV, peer, buf, count, type);
}

int cs_sched_copy(cs_sched_t *s, cs_ref_t src, int scount, const cs_type_t *st, cs_ref_t dst,
                  int dcount, const cs_type_t *dt) {
    cs_op_t op;
    if (scount < 0 || dcount < 0 || (MPI_Aint)scount * st->size != (MPI_Aint)dcount * dt->size) {
        return CS_ERR_ARG;
    }
    if (scount == 0) {
        return CS_OK;
    }
    memset(&op, 0, sizeof(op));
    op.kind = CS_OP_COPY;
    op.buf = src;
    op.count = scount;
    op.type = st->type;
    op.dst = dst;
    op.dst_count = dcount;
    op.dst_type = dt->type;
    if (st->type == dt->type && scount == dcount && st->dense) {
        op.copy_bytes = (MPI_Aint)scount * st->size;
        op.copy_lb = st->true_lb;
    }
    return append(s, &op);
}

int cs_sched_reduce(cs_sched_t *s, cs_ref_t in, cs_ref_t inout, int count, const cs_type_t *t) {
    cs_op_t op;
    if (count < 0 || s->op == MPI_OP_NULL) {
        return CS_ERR_ARG;
    }
    if (count == 0) {
        return CS_OK;
    }
    memset(&op, 0, sizeof(op));
    op.kind = CS_OP_REDUCE;
    op.buf = in;
    op.count = count;
    op.type = t->type;
    op.dst = inout;
    op.dst_count = count;
    op.dst_type = t->type;
    return append(s, &op);
}

int cs_sched_reduce_ordered(cs_sched_t *s, cs_ref_t mine, cs_ref_t theirs, int theirs_is_lower,
                            int commutative, int count, const cs_type_t *t) {
    int rc = CS_OK;
    if (theirs_is_lower || commutative) {
        CS_CHECK(cs_sched_reduce(s, theirs, mine, count, t));
    } else {
        CS_CHECK(cs_sched_reduce(s, mine, theirs, count, t));
        CS_CHECK(cs_sched_copy(s, theirs, count, t, mine, count, t));
    }
out:
    return rc;
}

int cs_sched_coll(cs_sched_t *s, const cs_coll_op_t *c, const int *counts, const int *displs) {
    int rc = CS_OK;
    cs_op_t op;
    cs_coll_op_t *d;
    int n = c->group.size;
    CS_REQUIRE(n >= 1 && c->group.base >= 0 && c->group.stride >= 1, CS_ERR_ARG);
    CS_REQUIRE(c->coll >= 0 && c->coll < CS_COLL_COUNT, CS_ERR_ARG);
    CS_REQUIRE(c->comm >= 0 && c->comm < CS_STATE_COMMS, CS_ERR_ARG);
    CS_REQUIRE(!cs_coll_is_rooted(c->coll) || (c->root >= 0 && c->root < n), CS_ERR_ARG);
    CS_REQUIRE(c->sendcount >= 0 && c->recvcount >= 0, CS_ERR_ARG);
    CS_REQUIRE(!cs_coll_is_reduction(c->coll) || s->op != MPI_OP_NULL, CS_ERR_ARG);
    CS_REQUIRE(c->coll != CS_COLL_ALLGATHERV || (counts != NULL && displs != NULL), CS_ERR_ARG);
    CS_CHECK(grow((void **)&s->colls, &s->colls_cap, s->ncolls + 1, sizeof(cs_coll_op_t)));
    d = &s->colls[s->ncolls];
    *d = *c;
    d->op = s->op;
    d->counts = -1;
    if (c->coll == CS_COLL_ALLGATHERV) {
        for (int i = 0; i < n; i++) {
            CS_REQUIRE(counts[i] >= 0, CS_ERR_ARG);
        }
        CS_CHECK(grow((void **)&s->ints, &s->ints_cap, s->nints + 2 * n, sizeof(int)));
        memcpy(s->ints + s->nints, counts, (size_t)n * sizeof(int));
        memcpy(s->ints + s->nints + n, displs, (size_t)n * sizeof(int));
        d->counts = s->nints;
    }
    memset(&op, 0, sizeof(op));
    op.kind = CS_OP_COLL;
    op.peer = s->ncolls;
    CS_CHECK(append(s, &op));
    s->ncolls++;
    if (d->counts >= 0) {
        s->nints += 2 * n;
    }
out:
    return rc;
}

int cs_sched_sync(cs_sched_t *s) {
    cs_op_t op;
    memset(&op, 0, sizeof(op));
    op.kind = CS_OP_SYNC;
    op.buf = cs_ref(CS_SLOT_WINDOW, 0);
    op.dst = op.buf;
    op.type = MPI_DATATYPE_NULL;
    op.dst_type = MPI_DATATYPE_NULL;
    return append(s, &op);
}

void cs_sched_window_need(cs_sched_t *s, MPI_Aint bytes) {
    if (bytes > s->window_bytes) {
        s->window_bytes = bytes;
    }
}

static cs_ref_t translate(cs_ref_t r, cs_ref_t send, cs_ref_t recv, MPI_Aint scratch) {
    switch (r.slot) {
    case CS_SLOT_SEND:
        return cs_ref((cs_slot_t)send.slot, send.off + r.off);
    case CS_SLOT_RECV:
        return cs_ref((cs_slot_t)recv.slot, recv.off + r.off);
    default:
        return cs_ref(CS_SLOT_SCRATCH, scratch + r.off);
    }
}

int cs_sched_append(cs_sched_t *s, const cs_sched_t *sub, cs_group_t group, cs_ref_t send,
                    cs_ref_t recv) {
    int rc = CS_OK;
    MPI_Aint scratch = (s->scratch_bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
    CS_REQUIRE(sub->ncolls == 0 && sub->window_bytes == 0 &&
                   (sub->op == s->op || sub->op == MPI_OP_NULL),
               CS_ERR_ARG);
    CS_REQUIRE(group.size >= 1 && group.base >= 0 && group.stride >= 1, CS_ERR_ARG);
    CS_CHECK(cs_sched_round(s));
    if (sub->scratch_bytes > 0) {
        s->scratch_bytes = scratch + sub->scratch_bytes;
    }
    for (int r = 0; r < sub->nrounds; r++) {
        int begin = r > 0 ? sub->round_end[r - 1] : 0;
        for (int i = begin; i < sub->round_end[r]; i++) {
            cs_op_t op = sub->ops[i];
            if (op.kind == CS_OP_SEND || op.kind == CS_OP_RECV) {
                CS_REQUIRE(op.peer >= 0 && op.peer < group.size, CS_ERR_ARG);
                op.peer = group.base + op.peer * group.stride;
            } else {
                op.dst = translate(op.dst, send, recv, scratch);
            }
            op.buf = translate(op.buf, send, recv, scratch);
            CS_CHECK(append(s, &op));
        }
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

int cs_sched_round(cs_sched_t *s) {
    int rc = CS_OK;
    int start = s->nrounds > 0 ? s->round_end[s->nrounds - 1] : 0;
    if (s->nops == start) {
        return CS_OK;
    }
    CS_CHECK(grow((void **)&s->round_end, &s->rounds_cap, s->nrounds + 1, sizeof(int)));
    s->round_end[s->nrounds++] = s->nops;
    s->round_comm = 0;
out:
    return rc;
}

int cs_sched_comm_rounds(const cs_sched_t *s) {
    int n = 0;
    for (int r = 0; r < s->nrounds; r++) {
        int begin = r > 0 ? s->round_end[r - 1] : 0;
        for (int i = begin; i < s->round_end[r]; i++) {
            cs_op_kind_t k = s->ops[i].kind;
            if (k == CS_OP_SEND || k == CS_OP_RECV || k == CS_OP_COLL) {
                n++;
                break;
            }
        }
    }
    return n;
}

/* Schedule builder (see sched.h). */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#define SCRATCH_ALIGN 16

/* Frees the datatypes the transport built for the multi-part ops (exec.h) and empties the
 * cache, keeping its arrays. After MPI_Finalize they are gone already: only forgotten. */
static void free_part_types(cs_part_cache_t *pc) {
    int live = 0, finalized = 1;
    if (pc == NULL) {
        return;
    }
    for (int k = 0; k < pc->ntypes; k++) {
        if (pc->types[k].type == MPI_DATATYPE_NULL) {
            continue;
        }
        if (!live) {
            PMPI_Initialized(&live);
            PMPI_Finalized(&finalized);
            live = live && !finalized ? 1 : -1;
        }
        if (live > 0) {
            PMPI_Type_free(&pc->types[k].type);
        }
        pc->types[k].type = MPI_DATATYPE_NULL;
    }
    pc->ntypes = 0;
}

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
    s->nparts = 0;
    free_part_types(s->pcache);
    s->state = NULL;
}

void cs_sched_free(cs_sched_t *s) {
    free(s->ops);
    free(s->round_end);
    free(s->colls);
    free(s->ints);
    free(s->parts);
    if (s->pcache != NULL) {
        free_part_types(s->pcache);
        free(s->pcache->types);
        free(s->pcache->addrs);
        free(s->pcache->lens);
        free(s->pcache->disps);
        free(s->pcache->dtypes);
        free(s->pcache);
    }
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

/* Grows the work arrays of `pc` to `n` entries each (work_cap changes only when all did). */
static int grow_work(cs_part_cache_t *pc, int n) {
    void *p;
    if (n <= pc->work_cap) {
        return CS_OK;
    }
    if ((p = realloc(pc->addrs, (size_t)n * sizeof(*pc->addrs))) == NULL) {
        return CS_ERR_NOMEM;
    }
    pc->addrs = p;
    if ((p = realloc(pc->lens, (size_t)n * sizeof(*pc->lens))) == NULL) {
        return CS_ERR_NOMEM;
    }
    pc->lens = p;
    if ((p = realloc(pc->disps, (size_t)n * sizeof(*pc->disps))) == NULL) {
        return CS_ERR_NOMEM;
    }
    pc->disps = p;
    if ((p = realloc(pc->dtypes, (size_t)n * sizeof(*pc->dtypes))) == NULL) {
        return CS_ERR_NOMEM;
    }
    pc->dtypes = p;
    pc->work_cap = n;
    return CS_OK;
}

/* Appends a multi-part SEND or RECV to `peer` whose n parts the caller has put at
 * s->parts[s->nparts ..) (room reserved), and its entry in the part cache. */
static int commit_parts(cs_sched_t *s, cs_op_kind_t kind, int peer, int n) {
    int rc = CS_OK;
    const cs_part_t *parts = s->parts + s->nparts;
    cs_part_cache_t *pc;
    cs_part_type_t *pt;
    cs_op_t op;
    unsigned slots = 0;
    CS_REQUIRE(peer >= 0 && n >= 1, CS_ERR_ARG);
    for (int i = 0; i < n; i++) {
        CS_REQUIRE(parts[i].count >= 0 && parts[i].type != MPI_DATATYPE_NULL, CS_ERR_ARG);
        CS_REQUIRE(parts[i].buf.slot >= 0 && parts[i].buf.slot < CS_SLOT_COUNT, CS_ERR_ARG);
        slots |= 1u << parts[i].buf.slot;
    }
    if (s->pcache == NULL) {
        s->pcache = calloc(1, sizeof(*s->pcache));
        CS_REQUIRE(s->pcache != NULL, CS_ERR_NOMEM);
    }
    pc = s->pcache;
    CS_CHECK(grow((void **)&pc->types, &pc->types_cap, pc->ntypes + 1, sizeof(cs_part_type_t)));
    CS_CHECK(grow_work(pc, n));
    memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.peer = peer;
    op.part = s->nparts;
    op.nparts = n;
    op.ptype = pc->ntypes;
    op.type = MPI_DATATYPE_NULL;
    op.dst_type = MPI_DATATYPE_NULL;
    CS_CHECK(append(s, &op));
    pt = &pc->types[pc->ntypes++];
    memset(pt, 0, sizeof(*pt));
    pt->type = MPI_DATATYPE_NULL;
    pt->stale = 1;
    pt->slots = slots;
    s->nparts += n;
out:
    return rc;
}

static int parts_op(cs_sched_t *s, cs_op_kind_t kind, int peer, const cs_part_t *parts, int n) {
    int rc = CS_OK;
    CS_REQUIRE(n >= 1 && parts != NULL, CS_ERR_ARG);
    CS_CHECK(grow((void **)&s->parts, &s->parts_cap, s->nparts + n, sizeof(cs_part_t)));
    memcpy(s->parts + s->nparts, parts, (size_t)n * sizeof(cs_part_t));
    CS_CHECK(commit_parts(s, kind, peer, n));
out:
    return rc;
}

int cs_sched_sendv(cs_sched_t *s, int peer, const cs_part_t *parts, int nparts) {
    return parts_op(s, CS_OP_SEND, peer, parts, nparts);
}

int cs_sched_recvv(cs_sched_t *s, int peer, const cs_part_t *parts, int nparts) {
    return parts_op(s, CS_OP_RECV, peer, parts, nparts);
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
            }
            if (op.nparts > 0) {
                CS_REQUIRE(op.part >= 0 && op.part + op.nparts <= sub->nparts, CS_ERR_ARG);
                CS_CHECK(grow((void **)&s->parts, &s->parts_cap, s->nparts + op.nparts,
                              sizeof(cs_part_t)));
                for (int k = 0; k < op.nparts; k++) {
                    cs_part_t pt = sub->parts[op.part + k];
                    pt.buf = translate(pt.buf, send, recv, scratch);
                    s->parts[s->nparts + k] = pt;
                }
                CS_CHECK(commit_parts(s, op.kind, op.peer, op.nparts));
                continue;
            }
            if (op.kind != CS_OP_SEND && op.kind != CS_OP_RECV) {
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

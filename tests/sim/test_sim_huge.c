/* cs_sim_huge: every registered schedule builder on calls whose buffers are far past 2 GiB,
 * built for every virtual rank and checked without running them (no memory is touched, so the
 * sizes cost nothing).
 *
 * Calls (p = 2, 3, 4, 8; roots 0 and p-1; in place and not, where MPI allows it):
 *   - "big": 2^25 + 3 elements per block of a derived type with a negative lower bound and
 *     holes (two blocks of 8 ints at bytes 0 and 64, resized to lb -32, extent 160: 64 bytes
 *     of data per element), so one block holds 2 GiB + 192 bytes of data and spans 5 GiB;
 *   - "int_max": INT_MAX / p ints per block, the largest count whose p blocks an int counts;
 *   - "int_over": INT_MAX / p + 1 ints per block, past it.
 * Per (algorithm variant, p, call) every rank's call is normalised (cs_call_finish with a
 * fake, never dereferenced buffer address; CS_ERR_ARG there means the selector goes native)
 * and, where cs_algo_applicable() accepts it, built (cs_algo_build_state, node layout: one
 * node of p ranks for CS_REQ_NODES). Checked:
 *   - every rank decides alike: all build, or all decline with CS_ERR_NOT_APPLICABLE;
 *   - every buffer an operation touches (SEND, RECV and their parts, COPY and REDUCE source and
 *     destination, COLL send and receive sides, from the true lower bound of the first element
 *     to the true upper bound of the last) lies inside its slot: the call's send data, the
 *     receive buffer, [0, scratch_bytes) or [-window_bytes, window_bytes); an offset or count
 *     that overflowed an int lands outside (or is negative and refused when appended);
 *   - the k-th message from rank a to rank b carries as many bytes as the k-th receive of b
 *     from a, and every message is received (FIFO per pair, as the executor sends);
 *   - the receive buffer's significant part is written whole (RECV, COPY, REDUCE, COLL receive
 *     sides, the caller's own block where an in-place call already holds it): a message cut
 *     short by a truncated count leaves a hole.
 * gatherv, scatterv, alltoallv and the neighbourhood collectives are not built here (their
 * per-block counts are ints that MPI bounds itself; the MPI tests cover them). Prints one line
 * per algorithm and "N passed, N failed"; exit status 1 on any failure. */
#include "core/algo.h"
#include "registry.h"

#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG_COUNT ((1 << 25) + 3)
#define MAX_P     8

typedef struct span {
    MPI_Aint lo, hi; /* bytes [lo, hi) from the slot's base; empty when lo >= hi */
} span_t;

typedef struct ranges {
    span_t *v;
    int n, cap;
} ranges_t;

static MPI_Datatype big_type;
static char why[512];

/* [true_lb, (count - 1) * extent + true_lb + true_extent) of `count` elements of `type` at
 * offset `off`; empty for count <= 0. */
static span_t cover(MPI_Aint off, MPI_Aint count, MPI_Datatype type) {
    MPI_Aint lb, extent, tlb, textent;
    span_t s = {0, 0};
    if (count <= 0 || type == MPI_DATATYPE_NULL) {
        return s;
    }
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    s.lo = off + tlb;
    s.hi = off + (count - 1) * extent + tlb + textent;
    return s;
}

/* [lb, lb + count * extent) of `count` elements of `type` at offset `off`: what they occupy,
 * holes included, so that adjacent blocks meet (for the coverage of the receive buffer). */
static span_t occupied(MPI_Aint off, MPI_Aint count, MPI_Datatype type) {
    MPI_Aint lb, extent;
    span_t s = {0, 0};
    if (count <= 0 || type == MPI_DATATYPE_NULL) {
        return s;
    }
    PMPI_Type_get_extent(type, &lb, &extent);
    s.lo = off + lb;
    s.hi = off + lb + count * extent;
    return s;
}

static MPI_Aint type_size(MPI_Datatype type) {
    int size = 0;
    PMPI_Type_size(type, &size);
    return size;
}

static int push(ranges_t *r, span_t s) {
    if (s.lo >= s.hi) {
        return 0;
    }
    if (r->n == r->cap) {
        int cap = r->cap > 0 ? 2 * r->cap : 64;
        span_t *v = realloc(r->v, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            return -1;
        }
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = s;
    return 0;
}

static int by_lo(const void *a, const void *b) {
    const span_t *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* 1 when the union of r's spans covers `want`. */
static int covers(ranges_t *r, span_t want) {
    MPI_Aint at = want.lo;
    if (want.lo >= want.hi) {
        return 1;
    }
    qsort(r->v, (size_t)r->n, sizeof(*r->v), by_lo);
    for (int i = 0; i < r->n && at < want.hi; i++) {
        if (r->v[i].lo > at) {
            break;
        }
        if (r->v[i].hi > at) {
            at = r->v[i].hi;
        }
    }
    return at >= want.hi;
}

/* What one rank's slots hold: the valid bytes of the send and receive slots (from their base
 * addresses), and the part of the receive slot the call must write. */
typedef struct slots {
    span_t send, recv, own;
    span_t must[MAX_P]; /* allgatherv: one per block (the gaps between them are not written) */
    int nmust;
    int has_send, has_recv;
} slots_t;

static void call_slots(const cs_call_t *c, slots_t *sl) {
    int p = c->nprocs, root = c->rank == c->root;
    MPI_Aint sn = c->sendcount, rn = c->recvcount;
    const char *sb = c->sendbuf, *rb = c->recvbuf;
    span_t own = {0, 0};
    memset(sl, 0, sizeof(*sl));
    switch (c->coll) {
    case CS_COLL_SCATTER:
    case CS_COLL_ALLTOALL:
        sn *= p;
        break;
    default:
        break;
    }
    switch (c->coll) {
    case CS_COLL_GATHER:
    case CS_COLL_ALLGATHER:
    case CS_COLL_ALLTOALL:
        rn *= p;
        own =
            occupied((MPI_Aint)c->rank * c->recvcount * c->recv.extent, c->recvcount, c->recv.type);
        break;
    case CS_COLL_ALLGATHERV:
        rn = 0;
        for (int i = 0; i < p; i++) {
            MPI_Aint end = (MPI_Aint)c->displs[i] + c->recvcounts[i];
            rn = end > rn ? end : rn;
        }
        own = occupied((MPI_Aint)c->displs[c->rank] * c->recv.extent, c->recvcounts[c->rank],
                       c->recv.type);
        break;
    default:
        break;
    }
    sl->has_send = sb != NULL;
    sl->has_recv = rb != NULL;
    sl->send = cover(0, sn, c->send.type);
    sl->recv = cover(0, rn, c->recv.type);
    if (c->in_place && sb != NULL && rb != NULL) {
        /* the send data lies in the receive buffer: both slots address all of it */
        MPI_Aint d = sb - rb;
        span_t r = sl->recv, s = sl->send;
        sl->recv.lo = r.lo < s.lo + d ? r.lo : s.lo + d;
        sl->recv.hi = r.hi > s.hi + d ? r.hi : s.hi + d;
        sl->send.lo = sl->recv.lo - d;
        sl->send.hi = sl->recv.hi - d;
    }
    sl->nmust = 1;
    sl->must[0] = occupied(0, rn, c->recv.type);
    if (c->coll == CS_COLL_ALLGATHERV) {
        sl->nmust = p;
        for (int i = 0; i < p; i++) {
            sl->must[i] =
                occupied((MPI_Aint)c->displs[i] * c->recv.extent, c->recvcounts[i], c->recv.type);
        }
    }
    if ((c->coll == CS_COLL_BCAST && root) ||
        ((c->coll == CS_COLL_REDUCE || c->coll == CS_COLL_GATHER) && !root) ||
        (c->coll == CS_COLL_SCATTER && c->in_place) ||
        (c->coll == CS_COLL_EXSCAN && c->rank == 0)) {
        /* the root's own data, insignificant here, in place at the scatter root, or undefined
         * (exscan's rank 0) */
        sl->nmust = 0;
    }
    /* in place, the caller's own block is in the receive buffer already */
    sl->own = c->in_place ? own : (span_t){0, 0};
}

/* The pair bookkeeping: bytes of the messages from a to b, in order. */
typedef struct msgs {
    MPI_Aint *bytes;
    int n, cap, next;
} msgs_t;

static int msg_push(msgs_t *m, MPI_Aint bytes) {
    if (m->n == m->cap) {
        int cap = m->cap > 0 ? 2 * m->cap : 16;
        MPI_Aint *v = realloc(m->bytes, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            return -1;
        }
        m->bytes = v;
        m->cap = cap;
    }
    m->bytes[m->n++] = bytes;
    return 0;
}

/* 1 when `s` lies inside slot `slot` of rank r. */
static int inside(const cs_sched_t *sched, const slots_t *sl, int slot, span_t s) {
    if (s.lo >= s.hi) {
        return 1;
    }
    switch (slot) {
    case CS_SLOT_SEND:
        return sl->has_send && s.lo >= sl->send.lo && s.hi <= sl->send.hi;
    case CS_SLOT_RECV:
        return sl->has_recv && s.lo >= sl->recv.lo && s.hi <= sl->recv.hi;
    case CS_SLOT_SCRATCH:
        return s.lo >= 0 && s.hi <= sched->scratch_bytes;
    case CS_SLOT_WINDOW:
        return s.lo >= -sched->window_bytes && s.hi <= sched->window_bytes;
    default:
        return 0;
    }
}

/* Checks one access; a write into the receive slot is recorded in `written`. */
static int access_ok(const cs_sched_t *s, const slots_t *sl, cs_ref_t ref, MPI_Aint count,
                     MPI_Datatype type, int write, ranges_t *written, int r, int i) {
    span_t sp = cover(ref.off, count, type);
    if (count < 0 || !inside(s, sl, ref.slot, sp)) {
        snprintf(why, sizeof(why),
                 "rank %d op %d: %s of %lld elements at slot %d bytes [%lld, %lld) outside it", r,
                 i, write ? "write" : "read", (long long)count, ref.slot, (long long)sp.lo,
                 (long long)sp.hi);
        return 0;
    }
    if (write && ref.slot == CS_SLOT_RECV && push(written, occupied(ref.off, count, type)) != 0) {
        snprintf(why, sizeof(why), "out of memory");
        return 0;
    }
    return 1;
}

/* The accesses of COLL `c` for rank r (its send side read, its receive side written). */
static int coll_ok(const cs_sched_t *s, const slots_t *sl, const cs_coll_op_t *c, int r, int i,
                   ranges_t *written) {
    int member = (r - c->group.base) / c->group.stride, n = c->group.size;
    int root = member == c->root;
    MPI_Aint sc = c->sendcount, rc = c->recvcount;
    switch (c->coll) {
    case CS_COLL_BARRIER:
        return 1;
    case CS_COLL_BCAST:
        sc = 0;
        break;
    case CS_COLL_REDUCE:
        rc = root ? c->sendcount : 0;
        break;
    case CS_COLL_ALLREDUCE:
        rc = c->sendcount;
        break;
    case CS_COLL_GATHER:
        rc = root ? n * rc : 0;
        break;
    case CS_COLL_SCATTER:
        sc = root ? n * sc : 0;
        break;
    case CS_COLL_ALLGATHER:
        rc *= n;
        break;
    case CS_COLL_ALLTOALL:
        sc *= n;
        rc *= n;
        break;
    case CS_COLL_ALLGATHERV: {
        const int *counts = s->ints + c->counts, *displs = counts + n;
        rc = 0;
        for (int k = 0; k < n; k++) {
            MPI_Aint end = (MPI_Aint)displs[k] + counts[k];
            rc = end > rc ? end : rc;
        }
        break;
    }
    default:
        snprintf(why, sizeof(why), "rank %d op %d: COLL of an unexpected collective", r, i);
        return 0;
    }
    if (c->in_place && c->coll == CS_COLL_SCATTER) {
        rc = 0; /* the root's receive side is its block of the send side */
    } else if (c->in_place) {
        sc = 0;
    }
    return access_ok(s, sl, c->send, sc, c->sendtype, 0, written, r, i) &&
           access_ok(s, sl, c->recv, rc, c->recvtype, 1, written, r, i);
}

/* Checks rank r's schedule against its call; records the bytes of its messages in
 * sent[r * p + peer] and recvd[peer * p + r] (both indexed by sender * p + receiver). */
static int rank_ok(const cs_sched_t *s, const cs_call_t *c, msgs_t *sent, msgs_t *recvd, int r) {
    slots_t sl;
    ranges_t written = {NULL, 0, 0};
    int ok = 1;
    call_slots(c, &sl);
    if (push(&written, sl.own) != 0) {
        snprintf(why, sizeof(why), "out of memory");
        ok = 0;
    }
    for (int i = 0; i < s->nops && ok; i++) {
        const cs_op_t *op = &s->ops[i];
        int write = op->kind == CS_OP_RECV;
        MPI_Aint bytes = 0;
        switch (op->kind) {
        case CS_OP_SEND:
        case CS_OP_RECV:
            if (op->peer < 0 || op->peer >= c->nprocs) {
                snprintf(why, sizeof(why), "rank %d op %d: peer %d", r, i, op->peer);
                ok = 0;
                break;
            }
            if (op->nparts == 0) {
                ok = access_ok(s, &sl, op->buf, op->count, op->type, write, &written, r, i);
                bytes = op->count * type_size(op->type);
            }
            for (int k = 0; ok && k < op->nparts; k++) {
                const cs_part_t *pt = &s->parts[op->part + k];
                ok = access_ok(s, &sl, pt->buf, pt->count, pt->type, write, &written, r, i);
                bytes += pt->count * type_size(pt->type);
            }
            if (ok && msg_push(op->kind == CS_OP_SEND ? &sent[r * c->nprocs + op->peer]
                                                      : &recvd[op->peer * c->nprocs + r],
                               bytes) != 0) {
                snprintf(why, sizeof(why), "out of memory");
                ok = 0;
            }
            break;
        case CS_OP_COPY:
        case CS_OP_REDUCE:
            ok = access_ok(s, &sl, op->buf, op->count, op->type, 0, &written, r, i) &&
                 access_ok(s, &sl, op->dst, op->dst_count, op->dst_type, 1, &written, r, i);
            break;
        case CS_OP_COLL:
            ok = coll_ok(s, &sl, &s->colls[op->peer], r, i, &written);
            break;
        default:
            break;
        }
    }
    for (int k = 0; ok && k < sl.nmust; k++) {
        if (!covers(&written, sl.must[k])) {
            snprintf(why, sizeof(why), "rank %d: receive bytes [%lld, %lld) not all written", r,
                     (long long)sl.must[k].lo, (long long)sl.must[k].hi);
            ok = 0;
        }
    }
    free(written.v);
    return ok;
}

/* The MPI arguments of one case for rank r into *c (normalised). CS_ERR_ARG: the selector
 * would hand the call to the MPI library. */
static int make_call(cs_coll_t coll, int p, int r, int root, int in_place, int count,
                     MPI_Datatype type, int *counts, int *displs, cs_call_t *c) {
    /* fake addresses far apart; nothing is ever read or written there */
    void *sb = (void *)((uintptr_t)1 << 44), *rb = (void *)((uintptr_t)1 << 45);
    const void *send = in_place ? MPI_IN_PLACE : sb;
    int is_root = r == root;
    MPI_Aint at = 1;
    for (int i = 0; i < p; i++) { /* allgatherv: a gap before each block, in reverse order */
        int q = p - 1 - i;
        counts[q] = count;
        displs[q] = at + count > INT_MAX ? -1 : (int)at;
        at += count + (MPI_Aint)1;
    }
    switch (coll) {
    case CS_COLL_BCAST:
        cs_call_fill_bcast(c, rb, count, type, root, MPI_COMM_SELF);
        break;
    case CS_COLL_REDUCE:
        cs_call_fill_reduce(c, is_root ? send : sb, is_root ? rb : NULL, count, type, MPI_SUM, root,
                            MPI_COMM_SELF);
        break;
    case CS_COLL_ALLREDUCE:
        cs_call_fill_allreduce(c, send, rb, count, type, MPI_SUM, MPI_COMM_SELF);
        break;
    case CS_COLL_SCAN:
        cs_call_fill_scan(c, send, rb, count, type, MPI_SUM, MPI_COMM_SELF);
        break;
    case CS_COLL_EXSCAN:
        cs_call_fill_exscan(c, send, rb, count, type, MPI_SUM, MPI_COMM_SELF);
        break;
    case CS_COLL_GATHER:
        cs_call_fill_gather(c, is_root && in_place ? MPI_IN_PLACE : sb, count, type,
                            is_root ? rb : NULL, count, type, root, MPI_COMM_SELF);
        break;
    case CS_COLL_SCATTER:
        cs_call_fill_scatter(c, is_root ? sb : NULL, count, type,
                             is_root && in_place ? MPI_IN_PLACE : rb, count, type, root,
                             MPI_COMM_SELF);
        break;
    case CS_COLL_ALLGATHER:
        cs_call_fill_allgather(c, send, count, type, rb, count, type, MPI_COMM_SELF);
        break;
    case CS_COLL_ALLGATHERV:
        for (int i = 0; i < p; i++) {
            if (displs[i] < 0) {
                return CS_ERR_ARG; /* the layout does not fit int displacements */
            }
        }
        cs_call_fill_allgatherv(c, send, count, type, rb, counts, displs, type, MPI_COMM_SELF);
        break;
    case CS_COLL_ALLTOALL:
        cs_call_fill_alltoall(c, send, count, type, rb, count, type, MPI_COMM_SELF);
        break;
    case CS_COLL_REDUCE_SCATTER_BLOCK:
        cs_call_fill_reduce_scatter_block(c, send, rb, count, type, MPI_SUM, MPI_COMM_SELF);
        break;
    case CS_COLL_REDUCE_SCATTER:
        cs_call_fill_reduce_scatter(c, send, rb, counts, type, MPI_SUM, MPI_COMM_SELF);
        break;
    default:
        return CS_ERR_NOT_APPLICABLE;
    }
    return cs_call_finish(c, MPI_COMM_SELF, r, p, NULL);
}

/* 1 when MPI allows MPI_IN_PLACE for `coll` (at the root for rooted ones). */
static int in_place_allowed(cs_coll_t coll) {
    return coll != CS_COLL_BCAST;
}

typedef struct world {
    cs_call_t call[MAX_P];
    cs_sched_t sched[MAX_P];
    msgs_t sent[MAX_P * MAX_P], recvd[MAX_P * MAX_P];
    int counts[MAX_P * MAX_P], displs[MAX_P * MAX_P];
} world_t;

/* One case: 1 passed (built and checked), 0 failed, -1 declined or native. */
static int run_case(world_t *w, const cs_variant_t *v, int p, int root, int in_place, int count,
                    MPI_Datatype type) {
    const cs_algo_t *a = v->algo;
    cs_nodes_t nodes = {p, p, 1, NULL};
    cs_state_t state;
    int built = 0, declined = 0, argerr = 0, ok = 1;
    memset(&state, 0, sizeof(state));
    state.nodes = &nodes;
    for (int k = 0; k < p * p; k++) {
        w->sent[k].n = w->recvd[k].n = 0;
    }
    for (int r = 0; r < p; r++) {
        int st = make_call(a->coll, p, r, root, in_place, count, type, w->counts + r * MAX_P,
                           w->displs + r * MAX_P, &w->call[r]);
        if (st == CS_ERR_ARG) {
            argerr++;
            continue;
        }
        if (st != CS_OK) {
            snprintf(why, sizeof(why), "rank %d: cs_call_finish: %s", r, cs_status_name(st));
            return 0;
        }
        st = cs_algo_applicable(a, &w->call[r]);
        if (st == CS_OK) {
            st = cs_algo_build_state(a, &v->params, &w->call[r],
                                     (a->reqs & CS_REQ_NODES) ? &state : NULL, &w->sched[r]);
        }
        if (st == CS_ERR_NOT_APPLICABLE) {
            declined++;
        } else if (st != CS_OK) {
            snprintf(why, sizeof(why), "rank %d: build: %s", r, cs_status_name(st));
            return 0;
        } else {
            built++;
        }
    }
    if (argerr == p) {
        return -1; /* no correct call: the selector goes native */
    }
    if (argerr > 0 || (built > 0 && declined > 0)) {
        snprintf(why, sizeof(why), "ranks disagree: %d built, %d declined, %d invalid", built,
                 declined, argerr);
        return 0;
    }
    if (declined == p) {
        return -1;
    }
    for (int r = 0; r < p && ok; r++) {
        ok = rank_ok(&w->sched[r], &w->call[r], w->sent, w->recvd, r);
    }
    for (int k = 0; k < p * p && ok; k++) {
        const msgs_t *s = &w->sent[k], *rv = &w->recvd[k];
        if (s->n != rv->n) {
            snprintf(why, sizeof(why), "rank %d sends %d messages to rank %d, which receives %d",
                     k / p, s->n, k % p, rv->n);
            ok = 0;
        }
        for (int i = 0; ok && i < s->n; i++) {
            if (s->bytes[i] != rv->bytes[i]) {
                snprintf(why, sizeof(why),
                         "message %d from rank %d to %d: %lld bytes sent, %lld received", i, k / p,
                         k % p, (long long)s->bytes[i], (long long)rv->bytes[i]);
                ok = 0;
            }
        }
    }
    return ok;
}

int main(int argc, char **argv) {
    static const int ps[] = {2, 3, 4, 8};
    world_t *w = calloc(1, sizeof(*w));
    cs_variant_t *vs = malloc(CS_MAX_VARIANTS * sizeof(*vs));
    int passed = 0, failed = 0, declined = 0;
    MPI_Datatype hindexed;
    int blocklens[2] = {8, 8};
    MPI_Aint offs[2] = {0, 64};
    MPI_Init(&argc, &argv);
    MPI_Type_create_hindexed(2, blocklens, offs, MPI_INT, &hindexed);
    MPI_Type_create_resized(hindexed, -32, 160, &big_type);
    MPI_Type_free(&hindexed);
    MPI_Type_commit(&big_type);
    if (w == NULL || vs == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        int apass = 0, afail = 0, adecl = 0;
        if (a->build == NULL || cs_coll_is_neighbor(a->coll) || cs_coll_agrees(a->coll) ||
            a->coll == CS_COLL_BARRIER) {
            continue;
        }
        for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++) {
            int p = ps[pi], nv = 0;
            const struct {
                const char *name;
                int count;
                MPI_Datatype type;
            } calls[] = {{"big", BIG_COUNT, big_type},
                         {"int_max", INT_MAX / p, MPI_INT},
                         {"int_over", INT_MAX / p + 1, MPI_INT}};
            if (cs_algo_variants(a, p, p, vs, CS_MAX_VARIANTS, &nv) != CS_OK) {
                fprintf(stderr, "FAIL %s: cs_algo_variants at p=%d\n", a->name, p);
                afail++;
                continue;
            }
            for (int k = 0; k < nv; k++) {
                for (size_t ci = 0; ci < sizeof(calls) / sizeof(calls[0]); ci++) {
                    int nroots = cs_coll_is_rooted(a->coll) ? 2 : 1;
                    for (int ro = 0; ro < nroots; ro++) {
                        for (int ip = 0; ip <= in_place_allowed(a->coll); ip++) {
                            int res = run_case(w, &vs[k], p, ro ? p - 1 : 0, ip, calls[ci].count,
                                               calls[ci].type);
                            if (res > 0) {
                                apass++;
                            } else if (res < 0) {
                                adecl++;
                            } else {
                                char name[256];
                                cs_variant_name(&vs[k], name, sizeof(name));
                                fprintf(stderr, "FAIL %s p=%d %s root=%d%s: %s\n", name, p,
                                        calls[ci].name, ro ? p - 1 : 0, ip ? " in place" : "", why);
                                afail++;
                            }
                        }
                    }
                }
            }
        }
        printf("%-40s %4d passed, %d failed, %d declined\n", a->name, apass, afail, adecl);
        passed += apass;
        failed += afail;
        declined += adecl;
    }
    for (int r = 0; r < MAX_P; r++) {
        cs_sched_free(&w->sched[r]);
    }
    for (int k = 0; k < MAX_P * MAX_P; k++) {
        free(w->sent[k].bytes);
        free(w->recvd[k].bytes);
    }
    free(w);
    free(vs);
    MPI_Type_free(&big_type);
    printf("%d declined (not applicable or native)\n", declined);
    printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed > 0 ? 1 : 0;
}

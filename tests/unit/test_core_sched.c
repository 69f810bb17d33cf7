/* test_core: the schedule builder (core/sched.h). */
#include "test_core.h"

#include "core/exec.h"

#include <stdlib.h>
#include <string.h>

/* ---- schedule builder --------------------------------------------------------------------- */

START_TEST(test_sched_scratch) {
    cs_type_t ti = type_of(MPI_INT), td = type_of(odd_type), tf = type_of(MPI_DOUBLE);
    const struct {
        MPI_Aint count;
        const cs_type_t *t;
    } req[] = {{3, &td}, {1, &ti}, {0, &td}, {5, &tf}, {2, &td}, {1, &td}, {7, &ti}};
    enum { NREQ = sizeof(req) / sizeof(req[0]) };
    cs_ref_t refs[NREQ];
    MPI_Aint prev_end = 0;
    cs_sched_t s;
    char *base = NULL;
    sched_init(&s, MPI_OP_NULL);
    for (int k = 0; k < NREQ; k++) {
        const cs_type_t *t = req[k].t;
        MPI_Aint span = req[k].count > 0 ? t->true_extent + (req[k].count - 1) * t->extent : 0;
        MPI_Aint start;
        ck_assert_int_eq(cs_sched_scratch(&s, req[k].count, t, &refs[k]), CS_OK);
        ck_assert_int_eq(refs[k].slot, CS_SLOT_SCRATCH);
        start = refs[k].off + t->true_lb; /* where element 0's data begins */
        ck_assert_msg(start % 16 == 0, "reservation %d: data starts at %ld", k, (long)start);
        ck_assert_int_ge(start, prev_end);
        ck_assert_int_le(start + span, s.scratch_bytes);
        prev_end = start + span;
    }
    ck_assert_int_eq(s.nops, 0);
    {
        cs_ref_t r;
        MPI_Aint before = s.scratch_bytes;
        ck_assert_int_eq(cs_sched_scratch(&s, -1, &ti, &r), CS_ERR_ARG);
        ck_assert_int_eq(s.scratch_bytes, before);
    }

    /* Write every reservation through MPI with its own data and read it back: a reservation
     * that is too small or overlaps another shows up here (and under AddressSanitizer). */
    ck_assert_int_eq(posix_memalign((void **)&base, 16, (size_t)s.scratch_bytes), 0);
    for (int k = 0; k < NREQ; k++) {
        unsigned char in[256];
        int pos = 0, n = (int)(req[k].count * req[k].t->size);
        ck_assert_int_le(n, (int)sizeof(in));
        for (int i = 0; i < n; i++) {
            in[i] = (unsigned char)(k * 37 + i);
        }
        ck_assert_int_eq(MPI_Unpack(in, n, &pos, base + refs[k].off, (int)req[k].count,
                                    req[k].t->type, MPI_COMM_SELF),
                         MPI_SUCCESS);
    }
    for (int k = 0; k < NREQ; k++) {
        unsigned char out[256];
        int pos = 0, n = (int)(req[k].count * req[k].t->size);
        ck_assert_int_eq(MPI_Pack(base + refs[k].off, (int)req[k].count, req[k].t->type, out,
                                  (int)sizeof(out), &pos, MPI_COMM_SELF),
                         MPI_SUCCESS);
        ck_assert_int_eq(pos, n);
        for (int i = 0; i < n; i++) {
            ck_assert_msg(out[i] == (unsigned char)(k * 37 + i),
                          "reservation %d byte %d overwritten", k, i);
        }
    }
    free(base);

    cs_sched_reset(&s, MPI_OP_NULL);
    ck_assert_int_eq(s.scratch_bytes, 0);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_sched_rounds) {
    cs_type_t ti = type_of(MPI_INT);
    cs_ref_t a = cs_ref(CS_SLOT_SEND, 0), b = cs_ref(CS_SLOT_RECV, 8);
    cs_sched_t s;
    int cap;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_sched_round(&s), CS_OK); /* empty: ignored */
    ck_assert_int_eq(s.nrounds, 0);

    ck_assert_int_eq(cs_sched_send(&s, 1, a, 4, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_send(&s, 2, a, 4, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.nrounds, 1);
    ck_assert_int_eq(s.round_end[0], 2);
    ck_assert_int_eq(s.max_comm, 2);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK); /* empty: ignored */
    ck_assert_int_eq(s.nrounds, 1);

    ck_assert_int_eq(cs_sched_recv(&s, 3, b, 2, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_copy(&s, b, 2, &ti, a, 2, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.nrounds, 2);
    ck_assert_int_eq(s.round_end[1], 4);
    ck_assert_int_eq(s.max_comm, 2); /* this round had 1 */

    ck_assert_int_eq(cs_sched_copy(&s, a, 1, &ti, b, 1, &ti), CS_OK); /* local-only round */
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.nrounds, 3);

    ck_assert_int_eq(cs_sched_send(&s, 0, a, 1, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_recv(&s, 1, b, 1, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_send(&s, 2, a, 0, &ti), CS_OK); /* count 0 still communicates */
    ck_assert_int_eq(s.max_comm, 3);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.nrounds, 4);
    ck_assert_int_eq(s.nops, 8);
    ck_assert_int_eq(cs_sched_comm_rounds(&s), 3);

    ck_assert_int_eq(s.ops[0].kind, CS_OP_SEND);
    ck_assert_int_eq(s.ops[0].peer, 1);
    ck_assert_int_eq(s.ops[0].buf.slot, CS_SLOT_SEND);
    ck_assert_int_eq(s.ops[0].count, 4);
    ck_assert(s.ops[0].type == MPI_INT);
    ck_assert_int_eq(s.ops[2].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[2].peer, 3);
    ck_assert_int_eq(s.ops[2].buf.slot, CS_SLOT_RECV);
    ck_assert_int_eq(s.ops[2].buf.off, 8);
    ck_assert_int_eq(s.ops[3].kind, CS_OP_COPY);

    ck_assert_int_eq(cs_sched_send(&s, -1, a, 1, &ti), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_recv(&s, 0, a, -1, &ti), CS_ERR_ARG);
    ck_assert_int_eq(s.nops, 8);

    /* reset keeps capacity */
    cap = s.ops_cap;
    cs_sched_reset(&s, MPI_SUM);
    ck_assert_int_eq(s.nops, 0);
    ck_assert_int_eq(s.nrounds, 0);
    ck_assert_int_eq(s.max_comm, 0);
    ck_assert_int_eq(s.ops_cap, cap);
    ck_assert_ptr_nonnull(s.ops);
    ck_assert(s.op == MPI_SUM);
    ck_assert_int_eq(cs_sched_comm_rounds(&s), 0);

    /* many ops: the arrays grow */
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_eq(cs_sched_send(&s, i, a, 1, &ti), CS_OK);
        ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    }
    ck_assert_int_eq(s.nops, 1000);
    ck_assert_int_eq(s.nrounds, 1000);
    ck_assert_int_eq(s.round_end[999], 1000);
    ck_assert_int_eq(s.ops[999].peer, 999);
    ck_assert_int_eq(s.max_comm, 1);
    cs_sched_free(&s);
    ck_assert_ptr_null(s.ops);
    ck_assert_int_eq(s.nops, 0);
}
END_TEST

/* COLL operations: validation, the description kept, allgatherv counts in the pool, one
 * request per COLL in max_comm. */
START_TEST(test_sched_coll) {
    cs_sched_t s;
    cs_coll_op_t c;
    int counts[3] = {1, 0, 2}, displs[3] = {4, 0, 1};
    sched_init(&s, MPI_SUM);
    memset(&c, 0, sizeof(c));
    c.coll = CS_COLL_REDUCE;
    c.group = (cs_group_t){1, 2, 3};
    c.comm = 1;
    c.root = 2;
    c.in_place = 1;
    c.send = c.recv = cs_ref(CS_SLOT_RECV, 8);
    c.sendcount = c.recvcount = 5;
    c.sendtype = c.recvtype = MPI_INT;
    c.op = MPI_PROD; /* ignored: the schedule's op is used */
    c.counts = 7;    /* ignored */
    ck_assert_int_eq(
        cs_sched_send(&s, 0, cs_ref(CS_SLOT_SEND, 0), 1, &(cs_type_t){.type = MPI_INT}), CS_OK);
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.max_comm, 2);
    ck_assert_int_eq(s.nops, 2);
    ck_assert_int_eq(s.ops[1].kind, CS_OP_COLL);
    ck_assert_int_eq(s.ops[1].peer, 0);
    ck_assert_int_eq(s.ncolls, 1);
    ck_assert_int_eq(s.colls[0].group.base, 1);
    ck_assert_int_eq(s.colls[0].group.stride, 2);
    ck_assert_int_eq(s.colls[0].root, 2);
    ck_assert_int_eq(s.colls[0].comm, 1);
    ck_assert(s.colls[0].op == MPI_SUM);
    ck_assert_int_eq(s.colls[0].counts, -1);
    ck_assert_int_eq(cs_sched_comm_rounds(&s), 1);

    c.coll = CS_COLL_ALLGATHERV;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_coll(&s, &c, counts, displs), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.colls[1].counts, 0);
    ck_assert_int_eq(s.nints, 6);
    ck_assert_int_eq(s.ints[2], 2);
    ck_assert_int_eq(s.ints[3], 4);
    counts[1] = -1;
    ck_assert_int_eq(cs_sched_coll(&s, &c, counts, displs), CS_ERR_ARG);
    counts[1] = 0;

    /* Invalid descriptions change nothing. */
    c.coll = CS_COLL_BCAST;
    c.root = 3;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_ERR_ARG);
    c.root = 0;
    c.comm = CS_STATE_COMMS;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_ERR_ARG);
    c.comm = 0;
    c.group.size = 0;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_ERR_ARG);
    c.group.size = 3;
    c.recvcount = -1;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_ERR_ARG);
    ck_assert_int_eq(s.nops, 3);
    ck_assert_int_eq(s.ncolls, 2);

    cs_sched_reset(&s, MPI_OP_NULL);
    ck_assert_int_eq(s.ncolls, 0);
    ck_assert_int_eq(s.nints, 0);
    c.coll = CS_COLL_ALLREDUCE; /* a reduction needs the schedule's op */
    c.recvcount = 5;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_ERR_ARG);
    cs_sched_free(&s);
}
END_TEST

/* The window slot: SYNC is a local operation, the window need is the largest recorded, a
 * barrier COLL has no buffers, and a sub-schedule that uses the window cannot be appended. */
START_TEST(test_sched_window) {
    cs_sched_t s, sub;
    cs_coll_op_t c;
    cs_type_t ti = type_of(MPI_INT);
    sched_init(&s, MPI_SUM);
    sched_init(&sub, MPI_SUM);
    ck_assert_int_eq(s.window_bytes, 0);
    cs_sched_window_need(&s, 96);
    cs_sched_window_need(&s, 64);
    ck_assert_int_eq(s.window_bytes, 96);
    ck_assert_int_eq(
        cs_sched_copy(&s, cs_ref(CS_SLOT_SEND, 0), 2, &ti, cs_ref(CS_SLOT_WINDOW, 8), 2, &ti),
        CS_OK);
    ck_assert_int_eq(cs_sched_sync(&s), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.ops[1].kind, CS_OP_SYNC);
    ck_assert_int_eq(s.max_comm, 0);
    ck_assert_int_eq(cs_sched_comm_rounds(&s), 0);
    memset(&c, 0, sizeof(c));
    c.coll = CS_COLL_BARRIER;
    c.group = (cs_group_t){4, 1, 4};
    c.sendtype = c.recvtype = MPI_DATATYPE_NULL;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_OK);
    ck_assert_int_eq(cs_sched_sync(&s), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.max_comm, 1);
    ck_assert_int_eq(cs_sched_comm_rounds(&s), 1);
    c.coll = CS_COLL_COUNT;
    ck_assert_int_eq(cs_sched_coll(&s, &c, NULL, NULL), CS_ERR_ARG);
    cs_sched_window_need(&sub, 8);
    ck_assert_int_eq(cs_sched_append(&s, &sub, (cs_group_t){0, 1, 1}, cs_ref(CS_SLOT_SEND, 0),
                                     cs_ref(CS_SLOT_RECV, 0)),
                     CS_ERR_ARG);
    cs_sched_reset(&s, MPI_SUM);
    ck_assert_int_eq(s.window_bytes, 0);
    cs_sched_free(&sub);
    cs_sched_free(&s);
}
END_TEST

/* A sub-schedule built for the ranks of a group, appended: peers, slots and scratch translated,
 * rounds kept, the outer round closed first. */
START_TEST(test_sched_append) {
    cs_type_t ti = type_of(MPI_INT), td = type_of(odd_type);
    cs_sched_t s, sub;
    cs_ref_t tmp, outer_tmp;
    cs_group_t g = {3, 4, 3}; /* ranks 3, 7, 11 */
    MPI_Aint at;
    sched_init(&s, MPI_SUM);
    sched_init(&sub, MPI_SUM);
    ck_assert_int_eq(cs_sched_scratch(&s, 3, &ti, &outer_tmp), CS_OK);
    ck_assert_int_eq(cs_sched_copy(&s, cs_ref(CS_SLOT_SEND, 0), 1, &ti, outer_tmp, 1, &ti), CS_OK);

    ck_assert_int_eq(cs_sched_scratch(&sub, 2, &td, &tmp), CS_OK);
    ck_assert_int_eq(cs_sched_recv(&sub, 2, tmp, 2, &td), CS_OK);
    ck_assert_int_eq(cs_sched_send(&sub, 1, cs_ref(CS_SLOT_SEND, 4), 1, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_round(&sub), CS_OK);
    ck_assert_int_eq(cs_sched_reduce(&sub, tmp, cs_ref(CS_SLOT_RECV, 20), 2, &td), CS_OK);
    ck_assert_int_eq(cs_sched_round(&sub), CS_OK);

    ck_assert_int_eq(
        cs_sched_append(&s, &sub, g, cs_ref(CS_SLOT_SCRATCH, 100), cs_ref(CS_SLOT_RECV, 40)),
        CS_OK);
    ck_assert_int_eq(s.nrounds, 3); /* the outer copy's round, then the two of sub */
    ck_assert_int_eq(s.nops, 4);
    ck_assert_int_eq(s.max_comm, 2);
    at = s.scratch_bytes - sub.scratch_bytes; /* where sub's scratch went */
    ck_assert_int_eq(at % 16, 0);
    ck_assert_int_ge(at, outer_tmp.off + 3 * 4);
    ck_assert_int_eq(s.ops[1].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[1].peer, 11);
    ck_assert_int_eq(s.ops[1].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.ops[1].buf.off, at + tmp.off);
    ck_assert_int_eq(s.ops[2].peer, 7);
    ck_assert_int_eq(s.ops[2].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.ops[2].buf.off, 104);
    ck_assert_int_eq(s.ops[3].kind, CS_OP_REDUCE);
    ck_assert_int_eq(s.ops[3].buf.off, at + tmp.off);
    ck_assert_int_eq(s.ops[3].dst.slot, CS_SLOT_RECV);
    ck_assert_int_eq(s.ops[3].dst.off, 60);

    /* A peer outside the group, another op, a nested COLL: refused. */
    {
        cs_sched_t bad;
        cs_coll_op_t c;
        sched_init(&bad, MPI_SUM);
        ck_assert_int_eq(cs_sched_send(&bad, 3, cs_ref(CS_SLOT_SEND, 0), 1, &ti), CS_OK);
        ck_assert_int_eq(cs_sched_round(&bad), CS_OK);
        ck_assert_int_eq(
            cs_sched_append(&s, &bad, g, cs_ref(CS_SLOT_SEND, 0), cs_ref(CS_SLOT_RECV, 0)),
            CS_ERR_ARG);
        cs_sched_reset(&bad, MPI_PROD);
        ck_assert_int_eq(
            cs_sched_append(&s, &bad, g, cs_ref(CS_SLOT_SEND, 0), cs_ref(CS_SLOT_RECV, 0)),
            CS_ERR_ARG);
        cs_sched_reset(&bad, MPI_SUM);
        memset(&c, 0, sizeof(c));
        c.coll = CS_COLL_BCAST;
        c.group = (cs_group_t){0, 1, 2};
        c.recvtype = c.sendtype = MPI_INT;
        ck_assert_int_eq(cs_sched_coll(&bad, &c, NULL, NULL), CS_OK);
        ck_assert_int_eq(cs_sched_round(&bad), CS_OK);
        ck_assert_int_eq(
            cs_sched_append(&s, &bad, g, cs_ref(CS_SLOT_SEND, 0), cs_ref(CS_SLOT_RECV, 0)),
            CS_ERR_ARG);
        cs_sched_free(&bad);
    }
    cs_sched_free(&sub);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_sched_copy) {
    cs_type_t ti = type_of(MPI_INT), td = type_of(odd_type);
    cs_ref_t a = cs_ref(CS_SLOT_SEND, 4), b = cs_ref(CS_SLOT_SCRATCH, 12);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_sched_copy(&s, a, 3, &ti, b, 2, &ti), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_copy(&s, a, 1, &td, b, 1, &ti), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_copy(&s, a, -1, &ti, b, -1, &ti), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_copy(&s, a, 1, &ti, b, -1, &ti), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_copy(&s, a, 0, &td, b, 1, &ti), CS_ERR_ARG);
    ck_assert_int_eq(s.nops, 0);

    ck_assert_int_eq(cs_sched_copy(&s, a, 0, &ti, b, 0, &ti), CS_OK); /* skipped */
    ck_assert_int_eq(cs_sched_copy(&s, a, 0, &td, b, 0, &ti), CS_OK);
    ck_assert_int_eq(s.nops, 0);

    /* dense, same type: a plain memcpy */
    ck_assert_int_eq(cs_sched_copy(&s, a, 4, &ti, b, 4, &ti), CS_OK);
    ck_assert_int_eq(s.nops, 1);
    ck_assert_int_eq(s.ops[0].kind, CS_OP_COPY);
    ck_assert_int_eq(s.ops[0].buf.slot, CS_SLOT_SEND);
    ck_assert_int_eq(s.ops[0].buf.off, 4);
    ck_assert_int_eq(s.ops[0].dst.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.ops[0].dst.off, 12);
    ck_assert_int_eq(s.ops[0].count, 4);
    ck_assert_int_eq(s.ops[0].dst_count, 4);
    ck_assert_int_eq(s.ops[0].copy_bytes, 4 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(s.ops[0].copy_lb, 0);

    /* same size, different types: a typed copy */
    ck_assert_int_eq(cs_sched_copy(&s, a, 1, &td, b, 2, &ti), CS_OK);
    ck_assert_int_eq(s.nops, 2);
    ck_assert(s.ops[1].type == odd_type);
    ck_assert(s.ops[1].dst_type == MPI_INT);
    ck_assert_int_eq(s.ops[1].count, 1);
    ck_assert_int_eq(s.ops[1].dst_count, 2);
    ck_assert_int_eq(s.ops[1].copy_bytes, 0);

    /* same non-dense type: a typed copy */
    ck_assert_int_eq(cs_sched_copy(&s, a, 2, &td, b, 2, &td), CS_OK);
    ck_assert_int_eq(s.ops[2].copy_bytes, 0);
    ck_assert_int_eq(s.max_comm, 0);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_sched_reduce) {
    cs_type_t ti = type_of(MPI_INT);
    cs_ref_t a = cs_ref(CS_SLOT_RECV, 0), b = cs_ref(CS_SLOT_SCRATCH, 0);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);
    ck_assert_int_eq(cs_sched_reduce(&s, a, b, 2, &ti), CS_ERR_ARG); /* no op */
    cs_sched_reset(&s, MPI_SUM);
    ck_assert_int_eq(cs_sched_reduce(&s, a, b, -1, &ti), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_reduce(&s, a, b, 0, &ti), CS_OK); /* skipped */
    ck_assert_int_eq(s.nops, 0);
    ck_assert_int_eq(cs_sched_reduce(&s, a, b, 3, &ti), CS_OK);
    ck_assert_int_eq(s.nops, 1);
    ck_assert_int_eq(s.ops[0].kind, CS_OP_REDUCE);
    ck_assert_int_eq(s.ops[0].buf.slot, CS_SLOT_RECV);
    ck_assert_int_eq(s.ops[0].dst.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.ops[0].count, 3);
    ck_assert_int_eq(s.max_comm, 0);
    cs_sched_free(&s);
}
END_TEST

/* Runs the local operations of `s` on real buffers, as the executor would. */
static void run_local(const cs_sched_t *s, char *bases[CS_SLOT_COUNT]) {
    for (int i = 0; i < s->nops; i++) {
        const cs_op_t *op = &s->ops[i];
        char *in = bases[op->buf.slot] + op->buf.off;
        char *out = bases[op->dst.slot] + op->dst.off;
        if (op->kind == CS_OP_REDUCE) {
            ck_assert_int_eq(MPI_Reduce_local(in, out, op->count, op->type, s->op), MPI_SUCCESS);
        } else if (op->kind == CS_OP_COPY) {
            ck_assert_int_eq(MPI_Sendrecv(in, op->count, op->type, 0, 0, out, op->dst_count,
                                          op->dst_type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE),
                             MPI_SUCCESS);
        } else {
            ck_abort_msg("communication op in a local schedule");
        }
    }
}

/* mine = lower op higher. One REDUCE when the op commutes or theirs is lower; otherwise REDUCE
 * into theirs and COPY back. Checked by running the ops with a non-commutative op. */
START_TEST(test_sched_reduce_ordered) {
    cs_type_t ti = type_of(MPI_INT);
    cs_ref_t mine = cs_ref(CS_SLOT_RECV, 0), theirs = cs_ref(CS_SLOT_SCRATCH, 0);
    const struct {
        int theirs_is_lower, commutative, nops;
    } cases[] = {{1, 0, 1}, {1, 1, 1}, {0, 1, 1}, {0, 0, 2}};
    cs_sched_t s;
    sched_init(&s, hexcat_op);
    for (int k = 0; k < 4; k++) {
        int m[2] = {5, 7}, t[2] = {3, 9};
        char *bases[CS_SLOT_COUNT] = {NULL, (char *)m, (char *)t};
        cs_sched_reset(&s, hexcat_op);
        ck_assert_int_eq(cs_sched_reduce_ordered(&s, mine, theirs, cases[k].theirs_is_lower,
                                                 cases[k].commutative, 2, &ti),
                         CS_OK);
        ck_assert_int_eq(s.nops, cases[k].nops);
        ck_assert_int_eq(s.ops[0].kind, CS_OP_REDUCE);
        if (cases[k].nops == 1) {
            /* mine = theirs op mine */
            ck_assert_int_eq(s.ops[0].buf.slot, CS_SLOT_SCRATCH);
            ck_assert_int_eq(s.ops[0].dst.slot, CS_SLOT_RECV);
        } else {
            /* theirs = mine op theirs; mine = theirs */
            ck_assert_int_eq(s.ops[0].buf.slot, CS_SLOT_RECV);
            ck_assert_int_eq(s.ops[0].dst.slot, CS_SLOT_SCRATCH);
            ck_assert_int_eq(s.ops[1].kind, CS_OP_COPY);
            ck_assert_int_eq(s.ops[1].buf.slot, CS_SLOT_SCRATCH);
            ck_assert_int_eq(s.ops[1].dst.slot, CS_SLOT_RECV);
        }
        if (!cases[k].commutative) {
            run_local(&s, bases);
            if (cases[k].theirs_is_lower) {
                ck_assert_int_eq(m[0], 3 * 16 + 5);
                ck_assert_int_eq(m[1], 9 * 16 + 7);
            } else {
                ck_assert_int_eq(m[0], 5 * 16 + 3);
                ck_assert_int_eq(m[1], 7 * 16 + 9);
            }
        }
    }
    /* count 0: nothing */
    cs_sched_reset(&s, hexcat_op);
    ck_assert_int_eq(cs_sched_reduce_ordered(&s, mine, theirs, 0, 0, 0, &ti), CS_OK);
    ck_assert_int_eq(s.nops, 0);
    cs_sched_free(&s);
}
END_TEST

/* Multi-part SEND and RECV: the parts copied into the pool, one comm op each, a part cache entry
 * per op (stale, unbuilt, the slots its parts use), work arrays for the largest op; invalid
 * requests append nothing; reset keeps every capacity, free releases everything. */
START_TEST(test_sched_parts) {
    cs_type_t ti = type_of(MPI_INT);
    cs_part_t parts[3] = {{cs_ref(CS_SLOT_SEND, 4), 2, MPI_INT},
                          {cs_ref(CS_SLOT_SCRATCH, 32), 1, odd_type},
                          {cs_ref(CS_SLOT_RECV, 0), 0, MPI_DOUBLE}};
    cs_part_t bad[2];
    cs_part_cache_t *pc;
    cs_sched_t s;
    int parts_cap, types_cap, ops_cap;
    sched_init(&s, MPI_OP_NULL);
    ck_assert_ptr_null(s.pcache);
    ck_assert_int_eq(cs_sched_send(&s, 1, cs_ref(CS_SLOT_SEND, 0), 1, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_sendv(&s, 2, parts, 3), CS_OK);
    ck_assert_int_eq(cs_sched_recvv(&s, 3, parts + 1, 1), CS_OK);
    parts[0].count = 99; /* the schedule holds a copy */
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.nops, 3);
    ck_assert_int_eq(s.max_comm, 3);
    ck_assert_int_eq(cs_sched_comm_rounds(&s), 1);
    ck_assert_int_eq(s.ops[0].nparts, 0); /* a plain op has no parts */
    ck_assert_int_eq(s.ops[1].kind, CS_OP_SEND);
    ck_assert_int_eq(s.ops[1].peer, 2);
    ck_assert_int_eq(s.ops[1].part, 0);
    ck_assert_int_eq(s.ops[1].nparts, 3);
    ck_assert_int_eq(s.ops[1].ptype, 0);
    ck_assert_int_eq(s.ops[2].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[2].peer, 3);
    ck_assert_int_eq(s.ops[2].part, 3);
    ck_assert_int_eq(s.ops[2].nparts, 1);
    ck_assert_int_eq(s.ops[2].ptype, 1);
    ck_assert_int_eq(s.nparts, 4);
    ck_assert_int_eq(s.parts[0].count, 2);
    ck_assert_int_eq(s.parts[0].buf.off, 4);
    ck_assert(s.parts[1].type == odd_type);
    ck_assert_int_eq(s.parts[1].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.parts[2].count, 0);
    ck_assert_int_eq(s.parts[3].buf.off, 32);
    pc = s.pcache;
    ck_assert_ptr_nonnull(pc);
    ck_assert_int_eq(pc->ntypes, 2);
    ck_assert_int_ge(pc->work_cap, 3);
    ck_assert(pc->types[0].type == MPI_DATATYPE_NULL);
    ck_assert_int_eq(pc->types[0].stale, 1);
    ck_assert_uint_eq(pc->types[0].slots,
                      1u << CS_SLOT_SEND | 1u << CS_SLOT_SCRATCH | 1u << CS_SLOT_RECV);
    ck_assert_uint_eq(pc->types[1].slots, 1u << CS_SLOT_SCRATCH);

    /* Invalid: no parts, a negative count, no type, a bad slot, a negative peer, NULL. */
    bad[0] = parts[1];
    bad[1] = parts[1];
    ck_assert_int_eq(cs_sched_sendv(&s, 0, bad, 0), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_recvv(&s, 0, NULL, 1), CS_ERR_ARG);
    ck_assert_int_eq(cs_sched_sendv(&s, -1, bad, 2), CS_ERR_ARG);
    bad[1].count = -1;
    ck_assert_int_eq(cs_sched_sendv(&s, 0, bad, 2), CS_ERR_ARG);
    bad[1].count = 1;
    bad[1].type = MPI_DATATYPE_NULL;
    ck_assert_int_eq(cs_sched_recvv(&s, 0, bad, 2), CS_ERR_ARG);
    bad[1].type = MPI_INT;
    bad[1].buf.slot = CS_SLOT_COUNT;
    ck_assert_int_eq(cs_sched_recvv(&s, 0, bad, 2), CS_ERR_ARG);
    bad[1].buf.slot = -1;
    ck_assert_int_eq(cs_sched_sendv(&s, 0, bad, 2), CS_ERR_ARG);
    ck_assert_int_eq(s.nops, 3);
    ck_assert_int_eq(s.nparts, 4);
    ck_assert_int_eq(pc->ntypes, 2);
    ck_assert_int_eq(s.max_comm, 3);

    /* Many parts, many ops: the pool, the cache and the work arrays grow. */
    for (int i = 0; i < 200; i++) {
        cs_part_t many[40];
        for (int k = 0; k < 40; k++) {
            many[k] = (cs_part_t){cs_ref(CS_SLOT_RECV, 4 * (i + k)), k % 3, MPI_INT};
        }
        ck_assert_int_eq(cs_sched_recvv(&s, i, many, 1 + i % 40), CS_OK);
        ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    }
    ck_assert_int_eq(pc->ntypes, 202);
    ck_assert_int_ge(pc->work_cap, 40);
    ck_assert_int_eq(s.ops[202].nparts, 40);
    ck_assert_int_eq(s.parts[s.ops[202].part + 39].buf.off, 4 * (199 + 39));
    ck_assert_int_eq(s.parts[s.ops[202].part + 38].count, 2);
    ck_assert_int_eq(s.max_comm, 3);

    /* Reset keeps every capacity (and the cache), free releases everything. */
    parts_cap = s.parts_cap;
    types_cap = pc->types_cap;
    ops_cap = s.ops_cap;
    cs_sched_reset(&s, MPI_SUM);
    ck_assert_int_eq(s.nparts, 0);
    ck_assert_ptr_eq(s.pcache, pc);
    ck_assert_int_eq(pc->ntypes, 0);
    ck_assert_int_eq(s.parts_cap, parts_cap);
    ck_assert_int_eq(pc->types_cap, types_cap);
    ck_assert_int_ge(pc->work_cap, 40);
    ck_assert_int_eq(s.ops_cap, ops_cap);
    ck_assert_int_eq(cs_sched_sendv(&s, 5, parts + 1, 2), CS_OK);
    ck_assert_int_eq(s.ops[0].part, 0);
    ck_assert_int_eq(s.ops[0].ptype, 0);
    ck_assert_ptr_eq(s.pcache, pc);
    ck_assert_int_eq(s.parts_cap, parts_cap);
    cs_sched_free(&s);
    ck_assert_ptr_null(s.pcache);
    ck_assert_ptr_null(s.parts);
    ck_assert_int_eq(s.nparts, 0);
}
END_TEST

/* A sub-schedule with multi-part ops, appended: the parts' slots and offsets translated like
 * plain buffers, peers translated, new entries in the outer part cache. */
START_TEST(test_sched_append_parts) {
    cs_type_t ti = type_of(MPI_INT);
    cs_sched_t s, sub;
    cs_ref_t tmp, outer_tmp;
    cs_group_t g = {1, 2, 3}; /* ranks 1, 3, 5 */
    cs_part_t parts[3];
    MPI_Aint at;
    sched_init(&s, MPI_OP_NULL);
    sched_init(&sub, MPI_OP_NULL);
    ck_assert_int_eq(cs_sched_scratch(&s, 5, &ti, &outer_tmp), CS_OK);
    ck_assert_int_eq(cs_sched_sendv(&s, 0, (cs_part_t[]){{outer_tmp, 5, MPI_INT}}, 1), CS_OK);
    ck_assert_int_eq(cs_sched_scratch(&sub, 4, &ti, &tmp), CS_OK);
    parts[0] = (cs_part_t){cs_ref(CS_SLOT_SEND, 8), 1, MPI_INT};
    parts[1] = (cs_part_t){cs_ref(CS_SLOT_RECV, 12), 2, MPI_INT};
    parts[2] = (cs_part_t){tmp, 4, MPI_INT};
    ck_assert_int_eq(cs_sched_sendv(&sub, 2, parts, 3), CS_OK);
    ck_assert_int_eq(cs_sched_recv(&sub, 1, cs_ref(CS_SLOT_RECV, 40), 7, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_round(&sub), CS_OK);
    ck_assert_int_eq(cs_sched_recvv(&sub, 0, parts + 1, 2), CS_OK);
    ck_assert_int_eq(cs_sched_round(&sub), CS_OK);

    ck_assert_int_eq(
        cs_sched_append(&s, &sub, g, cs_ref(CS_SLOT_RECV, 100), cs_ref(CS_SLOT_SCRATCH, 200)),
        CS_OK);
    at = s.scratch_bytes - sub.scratch_bytes;
    ck_assert_int_eq(at % 16, 0);
    ck_assert_int_eq(s.nrounds, 3);
    ck_assert_int_eq(s.nops, 4);
    ck_assert_int_eq(s.nparts, 1 + 3 + 2);
    ck_assert_int_eq(s.pcache->ntypes, 3);
    ck_assert_int_eq(s.max_comm, 2);
    /* the sendv: peer 2 -> rank 5, send -> recv + 100, recv -> scratch + 200, scratch -> at */
    ck_assert_int_eq(s.ops[1].kind, CS_OP_SEND);
    ck_assert_int_eq(s.ops[1].peer, 5);
    ck_assert_int_eq(s.ops[1].nparts, 3);
    ck_assert_int_eq(s.ops[1].part, 1);
    ck_assert_int_eq(s.ops[1].ptype, 1);
    ck_assert_int_eq(s.parts[1].buf.slot, CS_SLOT_RECV);
    ck_assert_int_eq(s.parts[1].buf.off, 108);
    ck_assert_int_eq(s.parts[2].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.parts[2].buf.off, 212);
    ck_assert_int_eq(s.parts[2].count, 2);
    ck_assert_int_eq(s.parts[3].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.parts[3].buf.off, at + tmp.off);
    ck_assert_uint_eq(s.pcache->types[1].slots, 1u << CS_SLOT_RECV | 1u << CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.pcache->types[1].stale, 1);
    /* the plain recv in between, then the recvv: peer 0 -> rank 1 */
    ck_assert_int_eq(s.ops[2].nparts, 0);
    ck_assert_int_eq(s.ops[2].peer, 3);
    ck_assert_int_eq(s.ops[2].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.ops[2].buf.off, 240);
    ck_assert_int_eq(s.ops[3].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[3].peer, 1);
    ck_assert_int_eq(s.ops[3].part, 4);
    ck_assert_int_eq(s.ops[3].ptype, 2);
    ck_assert_int_eq(s.parts[4].buf.off, 212);
    ck_assert_int_eq(s.parts[5].buf.off, at + tmp.off);
    ck_assert_uint_eq(s.pcache->types[2].slots, 1u << CS_SLOT_SCRATCH);
    cs_sched_free(&sub);
    cs_sched_free(&s);
}
END_TEST

/* The executor over the MPI transport on MPI_COMM_SELF: a multi-part send to itself received by
 * a plain receive, and a plain send received by a multi-part receive, three times: the struct
 * datatypes are built on the first run, reused on the second (same buffers) and rebuilt on the
 * third (another receive buffer); reset frees them. */
START_TEST(test_sched_parts_exec) {
    cs_type_t ti = type_of(MPI_INT);
    int send[6], recv_a[16], recv_b[16], scratch[8] __attribute__((aligned(16)));
    MPI_Request reqs[2];
    cs_mpi_transport_t tr = {MPI_COMM_SELF, 5, reqs, NULL, 0, MPI_WIN_NULL, NULL};
    cs_exec_t e;
    cs_sched_t s;
    const cs_part_t out[3] = {{cs_ref(CS_SLOT_SEND, 4), 2, MPI_INT},
                              {cs_ref(CS_SLOT_SCRATCH, 0), 1, MPI_INT},
                              {cs_ref(CS_SLOT_RECV, 40), 1, odd_type}};
    const cs_part_t in[2] = {{cs_ref(CS_SLOT_RECV, 24), 1, MPI_INT},
                             {cs_ref(CS_SLOT_SCRATCH, 8), 2, MPI_INT}};
    sched_init(&s, MPI_OP_NULL);
    ck_assert_int_eq(cs_sched_sendv(&s, 0, out, 3), CS_OK);
    ck_assert_int_eq(cs_sched_recv(&s, 0, cs_ref(CS_SLOT_RECV, 0), 5, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(cs_sched_send(&s, 0, cs_ref(CS_SLOT_SEND, 0), 3, &ti), CS_OK);
    ck_assert_int_eq(cs_sched_recvv(&s, 0, in, 2), CS_OK);
    ck_assert_int_eq(cs_sched_round(&s), CS_OK);
    ck_assert_int_eq(s.max_comm, 2);
    for (int run = 0; run < 3; run++) {
        int *recv = run < 2 ? recv_a : recv_b;
        for (int i = 0; i < 6; i++) {
            send[i] = 10 * run + i;
        }
        for (int i = 0; i < 16; i++) {
            recv[i] = -1;
        }
        recv[12] = 100 + run; /* odd_type at byte 40: ints at bytes 48 and 56 */
        recv[14] = 200 + run;
        scratch[0] = 300 + run;
        cs_exec_start(&e, &s, send, recv, scratch, &cs_exec_mpi_transport, &tr);
        ck_assert_int_eq(cs_exec_run(&e), CS_OK);
        ck_assert_int_eq(recv[0], 10 * run + 1);
        ck_assert_int_eq(recv[1], 10 * run + 2);
        ck_assert_int_eq(recv[2], 300 + run);
        ck_assert_int_eq(recv[3], 100 + run);
        ck_assert_int_eq(recv[4], 200 + run);
        ck_assert_int_eq(recv[6], 10 * run); /* the second round: send 0 1 2 into parts */
        ck_assert_int_eq(scratch[2], 10 * run + 1);
        ck_assert_int_eq(scratch[3], 10 * run + 2);
        ck_assert_int_eq(recv[5], -1);
        ck_assert_int_eq(recv[7], -1);
        ck_assert_int_eq(s.pcache->builds, run < 2 ? 2 : 4);
        ck_assert(s.pcache->types[0].type != MPI_DATATYPE_NULL);
        ck_assert_int_eq(s.pcache->types[0].stale, 0);
    }
    cs_sched_reset(&s, MPI_OP_NULL);
    ck_assert_int_eq(s.pcache->ntypes, 0);
    ck_assert(s.pcache->types[0].type == MPI_DATATYPE_NULL);
    ck_assert(s.pcache->types[1].type == MPI_DATATYPE_NULL);
    cs_sched_free(&s);
}
END_TEST

TCase *core_tcase_sched(void) {
    TCase *tc = tcase_create("sched");
    tcase_add_test(tc, test_sched_scratch);
    tcase_add_test(tc, test_sched_rounds);
    tcase_add_test(tc, test_sched_coll);
    tcase_add_test(tc, test_sched_append);
    tcase_add_test(tc, test_sched_window);
    tcase_add_test(tc, test_sched_copy);
    tcase_add_test(tc, test_sched_reduce);
    tcase_add_test(tc, test_sched_reduce_ordered);
    tcase_add_test(tc, test_sched_parts);
    tcase_add_test(tc, test_sched_append_parts);
    tcase_add_test(tc, test_sched_parts_exec);
    return tc;
}

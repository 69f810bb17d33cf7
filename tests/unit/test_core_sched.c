/* test_core: the schedule builder (core/sched.h). */
#include "test_core.h"

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
    return tc;
}

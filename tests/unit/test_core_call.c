/* test_core: call normalisation (cs_call_normalize on hand-filled calls, any rank and size in
 * one process) per collective, its errors, and the constructors that query the communicator. */
#include "test_core.h"

#include <limits.h>
#include <string.h>

static char buf_a[4096], buf_b[4096];

/* A call with only the fields raw() in call.c sets for every collective, plus rank and size. */
static cs_call_t make_call(cs_coll_t coll, int rank, int nprocs, int root) {
    cs_call_t c;
    memset(&c, 0, sizeof(c));
    c.coll = coll;
    c.rank = rank;
    c.nprocs = nprocs;
    c.root = root;
    c.op = MPI_OP_NULL;
    c.comm = MPI_COMM_NULL;
    c.send.type = MPI_DATATYPE_NULL;
    c.recv.type = MPI_DATATYPE_NULL;
    return c;
}

static void set_send(cs_call_t *c, const void *buf, int count, MPI_Datatype type) {
    c->sendbuf = buf;
    c->sendcount = count;
    c->send.type = type;
}

static void set_recv(cs_call_t *c, void *buf, int count, MPI_Datatype type) {
    c->recvbuf = buf;
    c->recvcount = count;
    c->recv.type = type;
}

static void assert_type_eq(const cs_type_t *a, const cs_type_t *b) {
    ck_assert(a->type == b->type);
    ck_assert_int_eq(a->lb, b->lb);
    ck_assert_int_eq(a->extent, b->extent);
    ck_assert_int_eq(a->true_lb, b->true_lb);
    ck_assert_int_eq(a->true_extent, b->true_extent);
    ck_assert_int_eq(a->size, b->size);
    ck_assert_int_eq(a->dense, b->dense);
}

/* cs_type_t of `type` as cs_type_init computes it. */
static void assert_type_is(const cs_type_t *t, MPI_Datatype type) {
    cs_type_t expect = type_of(type);
    assert_type_eq(t, &expect);
}

/* ---- call normalisation: bcast ------------------------------------------------------------ */

START_TEST(test_call_bcast) {
    cs_call_t c = make_call(CS_COLL_BCAST, 1, 4, 3);
    set_send(&c, buf_a, 5, odd_type);
    set_recv(&c, buf_a, 5, odd_type);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_eq(c.recvbuf, buf_a);
    ck_assert_int_eq(c.sendcount, 5);
    ck_assert_int_eq(c.recvcount, 5);
    assert_type_is(&c.recv, odd_type);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_int_eq(c.commutative, 0);
    ck_assert_uint_eq(c.bytes, 5 * 8);
}
END_TEST

/* ---- gather ------------------------------------------------------------------------------- */

START_TEST(test_call_gather_root_in_place) {
    cs_call_t c = make_call(CS_COLL_GATHER, 2, 5, 2);
    set_send(&c, MPI_IN_PLACE, -7, MPI_DATATYPE_NULL); /* ignored at an in-place root */
    set_recv(&c, buf_b, 3, odd_type);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    ck_assert_ptr_eq(c.sendbuf, buf_b + 2 * 3 * 20);
    ck_assert_int_eq(c.sendcount, 3);
    ck_assert_int_eq(c.recvcount, 3);
    assert_type_is(&c.recv, odd_type);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, 3 * 8);
}
END_TEST

START_TEST(test_call_gather_root) {
    cs_call_t c = make_call(CS_COLL_GATHER, 0, 3, 0);
    set_send(&c, buf_a, 6, MPI_INT);
    set_recv(&c, buf_b, 3, odd_type);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    ck_assert_int_eq(c.sendcount, 6);
    ck_assert_int_eq(c.recvcount, 3);
    assert_type_is(&c.send, MPI_INT);
    assert_type_is(&c.recv, odd_type);
    ck_assert_uint_eq(c.bytes, 6 * sizeof(int));
}
END_TEST

START_TEST(test_call_gather_nonroot) {
    cs_call_t c = make_call(CS_COLL_GATHER, 1, 5, 2);
    set_send(&c, buf_a, 4, odd_type);
    set_recv(&c, buf_b, -1, MPI_DATATYPE_NULL); /* insignificant at a non-root */
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_null(c.recvbuf);
    ck_assert_int_eq(c.recvcount, 4);
    assert_type_is(&c.send, odd_type);
    assert_type_eq(&c.recv, &c.send);
    ck_assert_uint_eq(c.bytes, 4 * 8);
}
END_TEST

/* ---- scatter ------------------------------------------------------------------------------ */

START_TEST(test_call_scatter_root_in_place) {
    cs_call_t c = make_call(CS_COLL_SCATTER, 3, 5, 3);
    set_send(&c, buf_a, 2, odd_type);
    set_recv(&c, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL); /* ignored at an in-place root */
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_eq(c.recvbuf, buf_a + 3 * 2 * 20);
    ck_assert_int_eq(c.recvcount, 2);
    ck_assert_int_eq(c.sendcount, 2);
    assert_type_is(&c.send, odd_type);
    assert_type_eq(&c.recv, &c.send);
    ck_assert_uint_eq(c.bytes, 2 * 8);
}
END_TEST

START_TEST(test_call_scatter_root) {
    cs_call_t c = make_call(CS_COLL_SCATTER, 0, 2, 0);
    set_send(&c, buf_a, 2, odd_type);
    set_recv(&c, buf_b, 4, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    assert_type_is(&c.send, odd_type);
    assert_type_is(&c.recv, MPI_INT);
    ck_assert_uint_eq(c.bytes, 4 * sizeof(int));
}
END_TEST

START_TEST(test_call_scatter_nonroot) {
    cs_call_t c = make_call(CS_COLL_SCATTER, 0, 5, 3);
    set_send(&c, buf_a, -1, MPI_DATATYPE_NULL); /* insignificant at a non-root */
    set_recv(&c, buf_b, 2, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_null(c.sendbuf);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    ck_assert_int_eq(c.sendcount, 2);
    assert_type_is(&c.recv, MPI_INT);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, 2 * sizeof(int));
}
END_TEST

/* ---- reduce, allreduce -------------------------------------------------------------------- */

START_TEST(test_call_reduce_root_in_place) {
    cs_call_t c = make_call(CS_COLL_REDUCE, 1, 4, 1);
    set_send(&c, MPI_IN_PLACE, 6, MPI_INT);
    set_recv(&c, buf_b, 6, MPI_INT);
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    ck_assert_int_eq(c.commutative, 1);
    assert_type_is(&c.recv, MPI_INT);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, 6 * sizeof(int));
}
END_TEST

/* MPI_IN_PLACE means "in place" only at the root. At a non-root the send buffer is significant,
 * so passing MPI_IN_PLACE there is an erroneous call. collsel does not turn it into an in-place
 * call: in_place stays 0 and the argument is passed through unchanged. */
START_TEST(test_call_reduce_nonroot_in_place_arg) {
    cs_call_t c = make_call(CS_COLL_REDUCE, 0, 4, 1);
    set_send(&c, MPI_IN_PLACE, 6, MPI_INT);
    set_recv(&c, buf_b, 6, MPI_INT);
    c.op = MPI_SUM;
    /* MPI allows MPI_IN_PLACE only at the root; no algorithm may ever see it. */
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);

    c = make_call(CS_COLL_GATHER, 0, 4, 1);
    set_send(&c, MPI_IN_PLACE, 6, MPI_INT);
    set_recv(&c, NULL, 6, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);

    c = make_call(CS_COLL_SCATTER, 0, 4, 1);
    set_send(&c, NULL, 6, MPI_INT);
    set_recv(&c, MPI_IN_PLACE, 6, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);

    c = make_call(CS_COLL_BCAST, 0, 4, 1);
    set_send(&c, MPI_IN_PLACE, 6, MPI_INT);
    set_recv(&c, MPI_IN_PLACE, 6, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
}
END_TEST

START_TEST(test_call_reduce_nonroot) {
    cs_call_t c = make_call(CS_COLL_REDUCE, 3, 4, 0);
    set_send(&c, buf_a, 2, odd_type);
    set_recv(&c, NULL, 2, odd_type); /* recvbuf is insignificant at a non-root */
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_null(c.recvbuf);
    ck_assert_uint_eq(c.bytes, 2 * 8);
}
END_TEST

START_TEST(test_call_allreduce_in_place) {
    cs_call_t c = make_call(CS_COLL_ALLREDUCE, 2, 3, 0);
    set_send(&c, MPI_IN_PLACE, 7, MPI_DOUBLE);
    set_recv(&c, buf_b, 7, MPI_DOUBLE);
    c.op = MPI_MAX;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    ck_assert_int_eq(c.commutative, 1);
    ck_assert_uint_eq(c.bytes, 7 * sizeof(double));
}
END_TEST

START_TEST(test_call_allreduce) {
    cs_call_t c = make_call(CS_COLL_ALLREDUCE, 0, 3, 0);
    set_send(&c, buf_a, 7, MPI_INT);
    set_recv(&c, buf_b, 7, MPI_INT);
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    ck_assert_uint_eq(c.bytes, 7 * sizeof(int));
}
END_TEST

START_TEST(test_call_commutative) {
    cs_call_t c = make_call(CS_COLL_ALLREDUCE, 0, 2, 0);
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_INT);
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.commutative, 1);
    c.op = hexcat_op;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.commutative, 0);
    c.op = commuting_user_op;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.commutative, 1);
    c.coll = CS_COLL_REDUCE;
    c.op = hexcat_op;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.commutative, 0);
    /* Not a reduction: commutative is 0 whatever it held before. */
    c = make_call(CS_COLL_BCAST, 0, 2, 0);
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_a, 1, MPI_INT);
    c.commutative = 1;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.commutative, 0);
}
END_TEST

/* Scan and exscan: MPI_IN_PLACE as the send buffer on every rank (exscan's rank 0 too) takes the
 * input from the receive buffer; MPI_IN_PLACE as the receive buffer is refused; the key is the
 * vector's bytes; the op's commutativity is recorded. */
START_TEST(test_call_scan_exscan) {
    const cs_coll_t colls[2] = {CS_COLL_SCAN, CS_COLL_EXSCAN};
    for (int k = 0; k < 2; k++) {
        for (int rank = 0; rank < 3; rank++) {
            cs_call_t c = make_call(colls[k], rank, 3, 0);
            set_send(&c, MPI_IN_PLACE, 5, odd_type);
            set_recv(&c, buf_b, 5, odd_type);
            c.op = hexcat_op;
            ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
            ck_assert_int_eq(c.in_place, 1);
            ck_assert_ptr_eq(c.sendbuf, buf_b);
            ck_assert_ptr_eq(c.recvbuf, buf_b);
            ck_assert_int_eq(c.sendcount, 5);
            assert_type_eq(&c.send, &c.recv);
            ck_assert_int_eq(c.commutative, 0);
            ck_assert_uint_eq(c.bytes, 5 * 8);

            c = make_call(colls[k], rank, 3, 0);
            set_send(&c, buf_a, 4, MPI_INT);
            set_recv(&c, buf_b, 4, MPI_INT);
            c.op = MPI_SUM;
            ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
            ck_assert_int_eq(c.in_place, 0);
            ck_assert_ptr_eq(c.sendbuf, buf_a);
            ck_assert_int_eq(c.commutative, 1);
            ck_assert_uint_eq(c.bytes, 4 * sizeof(int));

            c = make_call(colls[k], rank, 3, 0);
            set_send(&c, buf_a, 4, MPI_INT);
            set_recv(&c, MPI_IN_PLACE, 4, MPI_INT);
            c.op = MPI_SUM;
            ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);

            c = make_call(colls[k], rank, 3, 0); /* a reduction needs an op */
            set_send(&c, buf_a, 4, MPI_INT);
            set_recv(&c, buf_b, 4, MPI_INT);
            ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
        }
    }
}
END_TEST

/* ---- allgather, allgatherv ---------------------------------------------------------------- */

START_TEST(test_call_allgather_in_place) {
    cs_call_t c = make_call(CS_COLL_ALLGATHER, 3, 5, 0);
    set_send(&c, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL); /* ignored when in place */
    set_recv(&c, buf_b, 2, odd_type);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b + 3 * 2 * 20);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    ck_assert_int_eq(c.sendcount, 2);
    assert_type_is(&c.recv, odd_type);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, 2 * 8);
}
END_TEST

START_TEST(test_call_allgather) {
    cs_call_t c = make_call(CS_COLL_ALLGATHER, 1, 5, 0);
    set_send(&c, buf_a, 4, MPI_INT);
    set_recv(&c, buf_b, 2, odd_type);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    assert_type_is(&c.send, MPI_INT);
    assert_type_is(&c.recv, odd_type);
    ck_assert_uint_eq(c.bytes, 2 * 8);
}
END_TEST

START_TEST(test_call_allgatherv_in_place) {
    static const int counts[4] = {1, 3, 2, 5};
    static const int displs[4] = {10, 0, 4, 6};
    cs_call_t c = make_call(CS_COLL_ALLGATHERV, 2, 4, 0);
    set_send(&c, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL); /* ignored when in place */
    set_recv(&c, buf_b, 0, odd_type);
    c.recvcounts = counts;
    c.displs = displs;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b + 4 * 20);
    ck_assert_int_eq(c.sendcount, 2);
    assert_type_is(&c.recv, odd_type);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, (1 + 3 + 2 + 5) * 8 / 4);
}
END_TEST

START_TEST(test_call_allgatherv) {
    static const int counts[3] = {1, 2, 2};
    static const int displs[3] = {0, 1, 3};
    cs_call_t c = make_call(CS_COLL_ALLGATHERV, 0, 3, 0);
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, 0, MPI_INT);
    c.recvcounts = counts;
    c.displs = displs;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_int_eq(c.sendcount, 1);
    /* mean bytes per block, rounded down: 5 ints over 3 ranks */
    ck_assert_uint_eq(c.bytes, 5 * sizeof(int) / 3);
}
END_TEST

START_TEST(test_call_reduce_scatter_block) {
    cs_call_t c = make_call(CS_COLL_REDUCE_SCATTER_BLOCK, 1, 4, 0);
    set_send(&c, buf_a, 3, odd_type); /* as coll.def's FILL passes it: recvcount both sides */
    set_recv(&c, buf_b, 3, odd_type);
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_int_eq(c.commutative, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_int_eq(c.sendcount, 4 * 3); /* the whole input vector */
    ck_assert_int_eq(c.recvcount, 3);
    assert_type_is(&c.recv, odd_type);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, 3 * 8); /* one block */
    c = make_call(CS_COLL_REDUCE_SCATTER_BLOCK, 3, 4, 0);
    set_send(&c, MPI_IN_PLACE, 3, odd_type);
    set_recv(&c, buf_b, 3, odd_type);
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b); /* the vector is in the receive buffer */
    ck_assert_int_eq(c.sendcount, 12);
    ck_assert_uint_eq(c.bytes, 3 * 8);
    /* MPI_IN_PLACE as the receive buffer, no op, a negative count, a vector past INT_MAX */
    c = make_call(CS_COLL_REDUCE_SCATTER_BLOCK, 0, 4, 0);
    set_send(&c, buf_a, 3, MPI_INT);
    set_recv(&c, MPI_IN_PLACE, 3, MPI_INT);
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    set_recv(&c, buf_b, 3, MPI_INT);
    c.op = MPI_OP_NULL;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.op = MPI_SUM;
    set_recv(&c, buf_b, -1, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    set_recv(&c, buf_b, INT_MAX / 2, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
}
END_TEST

/* gatherv: the root in place sends its block at displs[root]; a non-root's receive side becomes
 * its send side and its count arrays are dropped; MPI_IN_PLACE on a non-root is CS_ERR_ARG. */
START_TEST(test_call_gatherv) {
    static const int counts[4] = {1, 3, 0, 5};
    static const int displs[4] = {10, 0, 4, 6};
    cs_call_t c = make_call(CS_COLL_GATHERV, 1, 4, 1);
    set_send(&c, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL);
    set_recv(&c, buf_b, 0, odd_type);
    c.recvcounts = counts;
    c.displs = displs;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b + 0 * 20);
    ck_assert_int_eq(c.sendcount, 3);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, (1 + 3 + 0 + 5) * 8 / 4);
    c = make_call(CS_COLL_GATHERV, 2, 4, 1);
    set_send(&c, buf_a, 0, MPI_INT);
    set_recv(&c, buf_b, -7, MPI_DATATYPE_NULL); /* insignificant */
    c.recvcounts = (const int *)buf_b;          /* garbage: never read */
    c.displs = NULL;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_ptr_null(c.recvbuf);
    ck_assert_ptr_null(c.recvcounts);
    ck_assert_int_eq(c.recvcount, 0);
    assert_type_eq(&c.recv, &c.send);
    ck_assert_uint_eq(c.bytes, 0); /* its own block, until agreed */
    set_send(&c, MPI_IN_PLACE, 0, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
}
END_TEST

START_TEST(test_call_reduce_scatter) {
    static const int counts[4] = {1, 0, 4, 2};
    static const int bad[4] = {1, -1, 4, 2}, huge[4] = {INT_MAX, 1, 0, 0};
    cs_call_t c = make_call(CS_COLL_REDUCE_SCATTER, 2, 4, 0);
    set_send(&c, buf_a, 0, odd_type);
    set_recv(&c, buf_b, 0, odd_type);
    c.recvcounts = counts;
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_int_eq(c.sendcount, 7);
    ck_assert_int_eq(c.recvcount, 4); /* recvcounts[rank] */
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, 7 * 8 / 4); /* the mean block, as allgatherv's */
    c = make_call(CS_COLL_REDUCE_SCATTER, 1, 4, 0);
    set_send(&c, MPI_IN_PLACE, 0, odd_type);
    set_recv(&c, buf_b, 0, odd_type);
    c.recvcounts = counts;
    c.op = MPI_SUM;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b);
    ck_assert_int_eq(c.recvcount, 0);
    ck_assert_uint_eq(c.bytes, 7 * 8 / 4);
    c.sendbuf = buf_a; /* no counts, a negative count, a vector past INT_MAX */
    c.recvcounts = NULL;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.recvcounts = bad;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.recvcounts = huge;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
}
END_TEST

/* scatterv: the root in place keeps its block at displs[root] in the send buffer. */
START_TEST(test_call_scatterv) {
    static const int counts[3] = {2, 0, 4};
    static const int displs[3] = {5, 0, 0};
    cs_call_t c = make_call(CS_COLL_SCATTERV, 0, 3, 0);
    set_send(&c, buf_a, 0, MPI_INT);
    set_recv(&c, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL);
    c.sendcounts = counts;
    c.sdispls = displs;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.recvbuf, buf_a + 5 * sizeof(int));
    ck_assert_int_eq(c.recvcount, 2);
    assert_type_eq(&c.recv, &c.send);
    ck_assert_uint_eq(c.bytes, 6 * sizeof(int) / 3);
    c = make_call(CS_COLL_SCATTERV, 1, 3, 0);
    set_send(&c, NULL, 0, MPI_DATATYPE_NULL);
    set_recv(&c, MPI_IN_PLACE, 0, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    set_recv(&c, buf_b, 0, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_ptr_null(c.sendcounts);
    ck_assert_int_eq(c.sendcount, 0);
}
END_TEST

/* alltoallv: in place the receive side's arrays and type are the send side's; an in-place
 * receive buffer or a negative count is CS_ERR_ARG. */
START_TEST(test_call_alltoallv) {
    static const int counts[3] = {2, 0, 4}, bad[3] = {1, -1, 0};
    static const int displs[3] = {5, 0, 0};
    cs_call_t c = make_call(CS_COLL_ALLTOALLV, 2, 3, 0);
    set_send(&c, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL);
    set_recv(&c, buf_b, 0, odd_type);
    c.recvcounts = counts;
    c.displs = displs;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b);
    ck_assert_ptr_eq(c.sendcounts, counts);
    ck_assert_ptr_eq(c.sdispls, displs);
    assert_type_eq(&c.send, &c.recv);
    ck_assert_uint_eq(c.bytes, (6 + 6) * 8 / 6);
    set_send(&c, buf_a, 0, MPI_INT);
    c.sendcounts = bad;
    c.sdispls = displs;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.sendcounts = counts;
    set_recv(&c, MPI_IN_PLACE, 0, MPI_INT);
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
}
END_TEST

/* The selection key: every rank of one call computes the same bytes. */
START_TEST(test_call_bytes_same_on_every_rank) {
    static const int counts[5] = {3, 0, 7, 1, 4};
    static const int displs[5] = {0, 3, 3, 10, 11};
    const int p = 5, root = 2;
    for (int rank = 0; rank < p; rank++) {
        cs_call_t g = make_call(CS_COLL_GATHER, rank, p, root);
        cs_call_t s = make_call(CS_COLL_SCATTER, rank, p, root);
        cs_call_t v = make_call(CS_COLL_ALLGATHERV, rank, p, 0);
        set_send(&g, buf_a, 3, odd_type);
        set_recv(&g, buf_b, rank == root ? 6 : 0, MPI_INT); /* 3 odd = 24 bytes = 6 ints */
        set_send(&s, buf_a, rank == root ? 6 : 0, MPI_INT);
        set_recv(&s, buf_b, 3, odd_type);
        set_send(&v, buf_a, counts[rank], MPI_INT);
        set_recv(&v, buf_b, 0, MPI_INT);
        v.recvcounts = counts;
        v.displs = displs;
        ck_assert_int_eq(cs_call_normalize(&g), CS_OK);
        ck_assert_int_eq(cs_call_normalize(&s), CS_OK);
        ck_assert_int_eq(cs_call_normalize(&v), CS_OK);
        ck_assert_uint_eq(g.bytes, 24);
        ck_assert_uint_eq(s.bytes, 24);
        ck_assert_uint_eq(v.bytes, 15 * sizeof(int) / 5);
    }
}
END_TEST

/* ---- call errors -------------------------------------------------------------------------- */

static int normalize_rc(cs_call_t c) {
    return cs_call_normalize(&c);
}

START_TEST(test_call_negative_count) {
    static const int bad_counts[3] = {1, -1, 1};
    static const int displs[3] = {0, 1, 2};
    cs_call_t c;

    c = make_call(CS_COLL_BCAST, 0, 2, 0);
    set_send(&c, buf_a, -1, MPI_INT);
    set_recv(&c, buf_a, -1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_REDUCE, 0, 2, 0);
    set_send(&c, buf_a, -3, MPI_INT);
    set_recv(&c, buf_b, -3, MPI_INT);
    c.op = MPI_SUM;
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_ALLREDUCE, 0, 2, 0);
    set_send(&c, buf_a, -1, MPI_INT);
    set_recv(&c, buf_b, -1, MPI_INT);
    c.op = MPI_SUM;
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_GATHER, 0, 2, 0); /* root: recvcount */
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, -1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_GATHER, 0, 2, 0); /* root: sendcount */
    set_send(&c, buf_a, -1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_GATHER, 1, 2, 0); /* non-root: sendcount */
    set_send(&c, buf_a, -1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_SCATTER, 0, 2, 0); /* root: sendcount */
    set_send(&c, buf_a, -1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_SCATTER, 0, 2, 0); /* root: recvcount */
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, -1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_SCATTER, 1, 2, 0); /* non-root: recvcount */
    set_recv(&c, buf_b, -1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_ALLGATHER, 0, 2, 0);
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, -1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_ALLGATHER, 0, 2, 0);
    set_send(&c, buf_a, -1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_ALLGATHERV, 0, 3, 0);
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, 0, MPI_INT);
    c.recvcounts = bad_counts;
    c.displs = displs;
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_ALLGATHERV, 0, 3, 0);
    set_send(&c, buf_a, -1, MPI_INT);
    set_recv(&c, buf_b, 0, MPI_INT);
    c.recvcounts = displs;
    c.displs = displs;
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
}
END_TEST

START_TEST(test_call_root_out_of_range) {
    static const cs_coll_t rooted[] = {CS_COLL_BCAST, CS_COLL_GATHER, CS_COLL_SCATTER,
                                       CS_COLL_REDUCE};
    static const int roots[] = {-1, 4, 5, 1000};
    for (int i = 0; i < (int)(sizeof(rooted) / sizeof(rooted[0])); i++) {
        for (int j = 0; j < (int)(sizeof(roots) / sizeof(roots[0])); j++) {
            cs_call_t c = make_call(rooted[i], 0, 4, roots[j]);
            set_send(&c, buf_a, 1, MPI_INT);
            set_recv(&c, buf_b, 1, MPI_INT);
            c.op = MPI_SUM;
            ck_assert_msg(normalize_rc(c) == CS_ERR_ARG, "%s root %d accepted",
                          cs_coll_name(rooted[i]), roots[j]);
        }
    }
    /* The root of a non-rooted collective is ignored. */
    {
        cs_call_t c = make_call(CS_COLL_ALLGATHER, 0, 4, 17);
        set_send(&c, buf_a, 1, MPI_INT);
        set_recv(&c, buf_b, 1, MPI_INT);
        ck_assert_int_eq(normalize_rc(c), CS_OK);
    }
}
END_TEST

START_TEST(test_call_null_type) {
    cs_call_t c;
    c = make_call(CS_COLL_BCAST, 0, 2, 0);
    set_send(&c, buf_a, 1, MPI_DATATYPE_NULL);
    set_recv(&c, buf_a, 1, MPI_DATATYPE_NULL);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_ALLREDUCE, 0, 2, 0);
    set_send(&c, buf_a, 1, MPI_DATATYPE_NULL);
    set_recv(&c, buf_b, 1, MPI_DATATYPE_NULL);
    c.op = MPI_SUM;
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_GATHER, 1, 2, 0); /* non-root: sendtype */
    set_send(&c, buf_a, 1, MPI_DATATYPE_NULL);
    set_recv(&c, buf_b, 1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_GATHER, 0, 2, 0); /* root: recvtype */
    set_send(&c, MPI_IN_PLACE, 1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_DATATYPE_NULL);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_GATHER, 0, 2, 0); /* root, not in place: sendtype */
    set_send(&c, buf_a, 1, MPI_DATATYPE_NULL);
    set_recv(&c, buf_b, 1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_SCATTER, 0, 2, 0); /* root: sendtype */
    set_send(&c, buf_a, 1, MPI_DATATYPE_NULL);
    set_recv(&c, MPI_IN_PLACE, 1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c = make_call(CS_COLL_SCATTER, 1, 2, 0); /* non-root: recvtype */
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_DATATYPE_NULL);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_ALLGATHER, 0, 2, 0);
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_DATATYPE_NULL);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
}
END_TEST

START_TEST(test_call_other_errors) {
    cs_call_t c;
    c = make_call(CS_COLL_ALLREDUCE, 0, 2, 0); /* reduction without op */
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, 1, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c.op = MPI_SUM;
    ck_assert_int_eq(normalize_rc(c), CS_OK);
    c.rank = 2; /* rank out of range */
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c.rank = -1;
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c.rank = 0;
    c.nprocs = 0;
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
    c.nprocs = 2;
    c.coll = CS_COLL_COUNT; /* not a collective */
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);

    c = make_call(CS_COLL_ALLGATHERV, 0, 2, 0); /* allgatherv without counts */
    set_send(&c, buf_a, 1, MPI_INT);
    set_recv(&c, buf_b, 0, MPI_INT);
    ck_assert_int_eq(normalize_rc(c), CS_ERR_ARG);
}
END_TEST

/* ---- call normalisation: the neighbourhood collectives ----------------------------------- */

/* A rank with in-edges from 2, MPI_PROC_NULL, 2 and out-edges to 1, 3. */
static const int nb_src[3] = {2, MPI_PROC_NULL, 2}, nb_dst[2] = {1, 3};
static const cs_neighbors_t nb = {MPI_DIST_GRAPH, 3, 2, nb_src, nb_dst, 0, NULL, NULL};

START_TEST(test_call_neighbor_uniform) {
    cs_call_t c = make_call(CS_COLL_NEIGHBOR_ALLTOALL, 1, 4, 0);
    set_send(&c, buf_a, 3, odd_type);
    set_recv(&c, buf_b, 6, MPI_INT);
    c.nbrs = &nb;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_eq(c.recvbuf, buf_b);
    assert_type_is(&c.send, odd_type);
    assert_type_is(&c.recv, MPI_INT);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_uint_eq(c.bytes, 6 * sizeof(int)); /* bytes per block */
    /* no neighbourhood (no topology), MPI_IN_PLACE on either side, negative counts: refused */
    c.nbrs = NULL;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.nbrs = &nb;
    c.sendbuf = MPI_IN_PLACE;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.sendbuf = buf_a;
    c.recvbuf = MPI_IN_PLACE;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.recvbuf = buf_b;
    c.sendcount = -1;
    ck_assert_int_eq(cs_call_normalize(&c), CS_ERR_ARG);
    c.coll = CS_COLL_NEIGHBOR_ALLGATHER;
    c.sendcount = 3;
    ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
    ck_assert_uint_eq(c.bytes, 6 * sizeof(int));
}
END_TEST

/* On 2 processes MPI lets each rank's send block be the other's receive block, of another size
 * than its own send block: the key is the larger side, the same on both ranks (call.h). */
START_TEST(test_call_neighbor_key_larger_side) {
    static const int one[1] = {1};
    static const cs_neighbors_t pair = {MPI_DIST_GRAPH, 1, 1, one, one, 0, NULL, NULL};
    static const cs_coll_t colls[2] = {CS_COLL_NEIGHBOR_ALLGATHER, CS_COLL_NEIGHBOR_ALLTOALL};
    for (int i = 0; i < 2; i++) {
        cs_call_t c = make_call(colls[i], 0, 2, 0);
        c.nbrs = &pair;
        set_send(&c, buf_a, 1, MPI_INT); /* rank 0: sends 4 bytes, receives 8 */
        set_recv(&c, buf_b, 2, MPI_INT);
        ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
        ck_assert_uint_eq(c.bytes, 2 * sizeof(int));
        c.rank = 1; /* rank 1: the reverse */
        set_send(&c, buf_a, 2, MPI_INT);
        set_recv(&c, buf_b, 1, MPI_INT);
        ck_assert_int_eq(cs_call_normalize(&c), CS_OK);
        ck_assert_uint_eq(c.bytes, 2 * sizeof(int));
    }
}
END_TEST

START_TEST(test_call_neighbor_v_w) {
    const int scounts[2] = {2, 4}, sdispls[2] = {5, 0}, rcounts[3] = {1, 0, 5},
              rdispls[3] = {9, 0, 2}, bad_counts[3] = {1, -1, 5};
    const MPI_Aint sbytes[2] = {40, 0}, rbytes[3] = {100, 0, 20};
    const MPI_Datatype stypes[2] = {MPI_INT, MPI_INT}, rtypes[3] = {MPI_INT, odd_type, MPI_INT},
                       null_types[3] = {MPI_INT, MPI_DATATYPE_NULL, MPI_INT};
    cs_call_t c;
    /* alltoallv: (2 + 4 + 1 + 0 + 5) ints over 5 edges */
    cs_call_fill_neighbor_alltoallv(&c, buf_a, scounts, sdispls, MPI_INT, buf_b, rcounts, rdispls,
                                    MPI_INT, MPI_COMM_NULL);
    ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, 4, &nb), CS_OK);
    ck_assert_ptr_eq(c.sendcounts, scounts);
    ck_assert_ptr_eq(c.sdispls, sdispls);
    ck_assert_ptr_eq(c.recvcounts, rcounts);
    ck_assert_ptr_eq(c.displs, rdispls);
    ck_assert_uint_eq(c.bytes, 12 * sizeof(int) / 5);
    cs_call_fill_neighbor_alltoallv(&c, buf_a, scounts, sdispls, MPI_INT, buf_b, bad_counts,
                                    rdispls, MPI_INT, MPI_COMM_NULL);
    ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, 4, &nb), CS_ERR_ARG);
    cs_call_fill_neighbor_alltoallv(&c, buf_a, scounts, sdispls, MPI_INT, buf_b, rcounts, NULL,
                                    MPI_INT, MPI_COMM_NULL);
    ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, 4, &nb), CS_ERR_ARG);
    /* alltoallw: per-edge types are passed on, not queried; (8 + 16 + 4 + 0 + 20) bytes */
    cs_call_fill_neighbor_alltoallw(&c, buf_a, scounts, sbytes, stypes, buf_b, rcounts, rbytes,
                                    rtypes, MPI_COMM_NULL);
    ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, 4, &nb), CS_OK);
    ck_assert_ptr_eq(c.sendtypes, stypes);
    ck_assert_ptr_eq(c.rdispls_bytes, rbytes);
    ck_assert_uint_eq(c.bytes, 48 / 5);
    cs_call_fill_neighbor_alltoallw(&c, buf_a, scounts, sbytes, stypes, buf_b, rcounts, rbytes,
                                    null_types, MPI_COMM_NULL);
    ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, 4, &nb), CS_ERR_ARG);
    /* allgatherv: one block of 3 ints on 2 out-edges, 6 ints in, over 5 edges */
    cs_call_fill_neighbor_allgatherv(&c, buf_a, 3, MPI_INT, buf_b, rcounts, rdispls, MPI_INT,
                                     MPI_COMM_NULL);
    ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, 4, &nb), CS_OK);
    ck_assert_uint_eq(c.bytes, 12 * sizeof(int) / 5);
}
END_TEST

/* ---- constructors (query the communicator, then normalise) -------------------------------- */

START_TEST(test_call_constructors) {
    static const int counts[1] = {5};
    static const int displs[1] = {2};
    cs_call_t c;

    ck_assert_int_eq(cs_call_bcast(&c, buf_a, 4, MPI_INT, 0, MPI_COMM_SELF), CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_BCAST);
    ck_assert(c.comm == MPI_COMM_SELF);
    ck_assert_int_eq(c.rank, 0);
    ck_assert_int_eq(c.nprocs, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_a);
    ck_assert_ptr_eq(c.recvbuf, buf_a);
    ck_assert_uint_eq(c.bytes, 4 * sizeof(int));

    ck_assert_int_eq(
        cs_call_gather(&c, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf_b, 3, MPI_INT, 0, MPI_COMM_SELF),
        CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_GATHER);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b);

    ck_assert_int_eq(cs_call_scatter(&c, buf_a, 3, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 0,
                                     MPI_COMM_SELF),
                     CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_SCATTER);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.recvbuf, buf_a);

    ck_assert_int_eq(cs_call_reduce(&c, MPI_IN_PLACE, buf_b, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF),
                     CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_REDUCE);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b);
    ck_assert(c.op == MPI_SUM);
    ck_assert_int_eq(c.commutative, 1);

    ck_assert_int_eq(cs_call_allreduce(&c, buf_a, buf_b, 3, MPI_INT, hexcat_op, MPI_COMM_SELF),
                     CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_ALLREDUCE);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert(c.op == hexcat_op);
    ck_assert_int_eq(c.commutative, 0);

    ck_assert_int_eq(cs_call_allgather(&c, buf_a, 2, MPI_INT, buf_b, 2, MPI_INT, MPI_COMM_SELF),
                     CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_ALLGATHER);
    ck_assert_uint_eq(c.bytes, 2 * sizeof(int));

    ck_assert_int_eq(cs_call_allgatherv(&c, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf_b, counts,
                                        displs, MPI_INT, MPI_COMM_SELF),
                     CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_ALLGATHERV);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b + 2 * sizeof(int));
    ck_assert_int_eq(c.sendcount, 5);
    ck_assert_uint_eq(c.bytes, 5 * sizeof(int));

    ck_assert_int_eq(cs_call_scan(&c, MPI_IN_PLACE, buf_b, 3, MPI_INT, MPI_PROD, MPI_COMM_SELF),
                     CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_SCAN);
    ck_assert_int_eq(c.in_place, 1);
    ck_assert_ptr_eq(c.sendbuf, buf_b);
    ck_assert(c.op == MPI_PROD);
    ck_assert_uint_eq(c.bytes, 3 * sizeof(int));

    ck_assert_int_eq(cs_call_exscan(&c, buf_a, buf_b, 2, MPI_INT, hexcat_op, MPI_COMM_SELF), CS_OK);
    ck_assert_int_eq(c.coll, CS_COLL_EXSCAN);
    ck_assert_int_eq(c.in_place, 0);
    ck_assert_int_eq(c.commutative, 0);
    ck_assert_uint_eq(c.bytes, 2 * sizeof(int));

    /* MPI_COMM_SELF has no topology: the neighbourhood constructors refuse */
    ck_assert_int_eq(
        cs_call_neighbor_alltoall(&c, buf_a, 1, MPI_INT, buf_b, 1, MPI_INT, MPI_COMM_SELF),
        CS_ERR_ARG);

    ck_assert_int_eq(cs_call_bcast(&c, buf_a, 4, MPI_INT, 0, MPI_COMM_NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_call_bcast(&c, buf_a, 4, MPI_INT, 1, MPI_COMM_SELF), CS_ERR_ARG);
    ck_assert_int_eq(cs_call_bcast(&c, buf_a, -4, MPI_INT, 0, MPI_COMM_SELF), CS_ERR_ARG);
}
END_TEST

TCase *core_tcase_call(void) {
    TCase *tc = tcase_create("call");
    tcase_add_test(tc, test_call_bcast);
    tcase_add_test(tc, test_call_gather_root_in_place);
    tcase_add_test(tc, test_call_gather_root);
    tcase_add_test(tc, test_call_gather_nonroot);
    tcase_add_test(tc, test_call_scatter_root_in_place);
    tcase_add_test(tc, test_call_scatter_root);
    tcase_add_test(tc, test_call_scatter_nonroot);
    tcase_add_test(tc, test_call_gatherv);
    tcase_add_test(tc, test_call_scatterv);
    tcase_add_test(tc, test_call_alltoallv);
    tcase_add_test(tc, test_call_reduce_root_in_place);
    tcase_add_test(tc, test_call_reduce_nonroot_in_place_arg);
    tcase_add_test(tc, test_call_reduce_nonroot);
    tcase_add_test(tc, test_call_allreduce_in_place);
    tcase_add_test(tc, test_call_allreduce);
    tcase_add_test(tc, test_call_commutative);
    tcase_add_test(tc, test_call_scan_exscan);
    tcase_add_test(tc, test_call_allgather_in_place);
    tcase_add_test(tc, test_call_allgather);
    tcase_add_test(tc, test_call_allgatherv_in_place);
    tcase_add_test(tc, test_call_allgatherv);
    tcase_add_test(tc, test_call_reduce_scatter_block);
    tcase_add_test(tc, test_call_reduce_scatter);
    tcase_add_test(tc, test_call_bytes_same_on_every_rank);
    tcase_add_test(tc, test_call_negative_count);
    tcase_add_test(tc, test_call_root_out_of_range);
    tcase_add_test(tc, test_call_null_type);
    tcase_add_test(tc, test_call_other_errors);
    tcase_add_test(tc, test_call_neighbor_uniform);
    tcase_add_test(tc, test_call_neighbor_key_larger_side);
    tcase_add_test(tc, test_call_neighbor_v_w);
    tcase_add_test(tc, test_call_constructors);
    return tc;
}

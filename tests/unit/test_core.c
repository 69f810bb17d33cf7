/* Unit tests for algorithms/core: status codes, collectives, datatypes, call normalisation, the
 * schedule builder and block layouts.
 *
 * Runs as an MPI singleton (MPI_Init without mpirun) because datatypes and ops need MPI. Check
 * runs without fork: forking after MPI_Init is unsafe. Calls are normalised with
 * cs_call_normalize() on hand-filled calls, so any rank and size can be tested in one process. */
#include "core/blocks.h"
#include "core/call.h"
#include "core/sched.h"
#include "core/status.h"

#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 2 ints at byte displacements 8 and 16, resized to lb 4, extent 20: lb != true_lb, extent !=
 * true_extent != size. */
static MPI_Datatype odd_type = MPI_DATATYPE_NULL;
/* a op b = a * 16 + b: not commutative, so operand order shows. */
static MPI_Op hexcat_op = MPI_OP_NULL;
static MPI_Op commuting_user_op = MPI_OP_NULL;

static void hexcat(void *in, void *inout, int *len, MPI_Datatype *type) {
    const int *a = in;
    int *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        b[i] = a[i] * 16 + b[i];
    }
}

static void int_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    const int *a = in;
    int *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        b[i] += a[i];
    }
}

static char buf_a[4096], buf_b[4096];

static cs_type_t type_of(MPI_Datatype type) {
    cs_type_t t;
    ck_assert_int_eq(cs_type_init(&t, type), CS_OK);
    return t;
}

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

static void sched_init(cs_sched_t *s, MPI_Op op) {
    memset(s, 0, sizeof(*s));
    cs_sched_reset(s, op);
}

/* ---- status codes ------------------------------------------------------------------------- */

static const struct {
    int value;
    const char *name;
} statuses[] = {
#define CS_STATUS(name, value, message) {value, #name},
#include "core/status.def"
#undef CS_STATUS
};
#define NSTATUSES ((int)(sizeof(statuses) / sizeof(statuses[0])))

START_TEST(test_status_names) {
    ck_assert_int_eq(CS_OK, 0);
    ck_assert_int_gt(CS_INPROGRESS, 0);
    ck_assert_int_lt(CS_ERR_NOT_APPLICABLE, 0);
    ck_assert_int_lt(CS_ERR_MPI, 0);
    ck_assert_int_lt(CS_ERR_DB, 0);
    ck_assert_int_lt(CS_ERR_NOMEM, 0);
    ck_assert_int_lt(CS_ERR_ARG, 0);
    for (int i = 0; i < NSTATUSES; i++) {
        const char *name = cs_status_name(statuses[i].value);
        const char *msg = cs_status_str(statuses[i].value);
        ck_assert_ptr_nonnull(name);
        ck_assert_ptr_nonnull(msg);
        ck_assert_str_eq(name, statuses[i].name);
        ck_assert_int_gt((int)strlen(msg), 0);
        ck_assert_str_ne(msg, "unknown status");
        ck_assert_str_ne(name, "CS_UNKNOWN");
        for (int j = 0; j < i; j++) {
            ck_assert_int_ne(statuses[i].value, statuses[j].value);
            ck_assert_str_ne(name, cs_status_name(statuses[j].value));
            ck_assert_str_ne(msg, cs_status_str(statuses[j].value));
        }
    }
    ck_assert_str_eq(cs_status_name(CS_ERR_MPI), "CS_ERR_MPI");
    ck_assert_str_eq(cs_status_str(CS_OK), "success");
}
END_TEST

START_TEST(test_status_unknown) {
    const int unknown[] = {12345, -12345, 99, -99, INT32_MIN, INT32_MAX};
    for (int i = 0; i < (int)(sizeof(unknown) / sizeof(unknown[0])); i++) {
        ck_assert_str_eq(cs_status_str(unknown[i]), "unknown status");
        ck_assert_str_eq(cs_status_name(unknown[i]), "CS_UNKNOWN");
    }
    ck_assert_int_eq(cs_status_fail(__FILE__, __LINE__, "test", CS_ERR_ARG), CS_ERR_ARG);
}
END_TEST

/* ---- collectives -------------------------------------------------------------------------- */

START_TEST(test_coll_names) {
    cs_coll_t back_barrier = CS_COLL_BCAST;
    for (int i = 0; i < CS_COLL_COUNT; i++) {
        cs_coll_t back = CS_COLL_COUNT;
        const char *name = cs_coll_name((cs_coll_t)i);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(cs_coll_from_name(name, &back), CS_OK);
        ck_assert_int_eq(back, i);
        for (int j = 0; j < i; j++) {
            ck_assert_str_ne(name, cs_coll_name((cs_coll_t)j));
        }
    }
    ck_assert_ptr_null(cs_coll_name(CS_COLL_COUNT));
    ck_assert_str_eq(cs_coll_name(CS_COLL_BARRIER), "barrier"); /* schedules only */
    ck_assert_int_eq(cs_coll_from_name("barrier", &back_barrier), CS_ERR_NOT_FOUND);
    ck_assert_ptr_null(cs_coll_name((cs_coll_t)-1));
    {
        cs_coll_t out = CS_COLL_BCAST;
        ck_assert_int_eq(cs_coll_from_name("alltoall", &out), CS_ERR_NOT_FOUND);
        ck_assert_int_eq(cs_coll_from_name("", &out), CS_ERR_NOT_FOUND);
        ck_assert_int_eq(cs_coll_from_name("Bcast", &out), CS_ERR_NOT_FOUND);
        ck_assert_int_eq(cs_coll_from_name("allgather/ring", &out), CS_ERR_NOT_FOUND);
    }
    ck_assert_str_eq(cs_coll_name(CS_COLL_ALLREDUCE), "allreduce");
    ck_assert_str_eq(cs_coll_name(CS_COLL_ALLGATHERV), "allgatherv");
}
END_TEST

START_TEST(test_coll_flags) {
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_BCAST), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_GATHER), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_SCATTER), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_REDUCE), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_ALLREDUCE), 0);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_ALLGATHER), 0);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_ALLGATHERV), 0);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_REDUCE), 1);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_ALLREDUCE), 1);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_BCAST), 0);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_ALLGATHER), 0);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_COUNT), 0);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_COUNT), 0);
    ck_assert_int_eq(cs_coll_is_rooted((cs_coll_t)-1), 0);
    ck_assert_int_eq(cs_coll_is_reduction((cs_coll_t)-1), 0);
}
END_TEST

/* ---- datatypes ---------------------------------------------------------------------------- */

START_TEST(test_type_int) {
    cs_type_t t = type_of(MPI_INT);
    ck_assert(t.type == MPI_INT);
    ck_assert_int_eq(t.lb, 0);
    ck_assert_int_eq(t.extent, (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.true_lb, 0);
    ck_assert_int_eq(t.true_extent, (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.size, (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.dense, 1);
}
END_TEST

START_TEST(test_type_derived) {
    cs_type_t t = type_of(odd_type);
    ck_assert(t.type == odd_type);
    ck_assert_int_eq(t.lb, 4);
    ck_assert_int_eq(t.extent, 20);
    ck_assert_int_eq(t.true_lb, 8);
    ck_assert_int_eq(t.true_extent, 12);
    ck_assert_int_eq(t.size, 8);
    ck_assert_int_eq(t.dense, 0);
}
END_TEST

START_TEST(test_type_dense_and_not) {
    MPI_Datatype contig = MPI_DATATYPE_NULL, vec = MPI_DATATYPE_NULL;
    cs_type_t t;
    ck_assert_int_eq(MPI_Type_contiguous(3, MPI_INT, &contig), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&contig), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, &vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&vec), MPI_SUCCESS);
    t = type_of(contig);
    ck_assert_int_eq(t.size, 3 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.dense, 1);
    t = type_of(vec);
    ck_assert_int_eq(t.size, 2 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.extent, 3 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.dense, 0);
    t = type_of(MPI_DOUBLE);
    ck_assert_int_eq(t.size, (MPI_Aint)sizeof(double));
    ck_assert_int_eq(t.dense, 1);
    MPI_Type_free(&contig);
    MPI_Type_free(&vec);
}
END_TEST

START_TEST(test_type_null) {
    cs_type_t t;
    ck_assert_int_eq(cs_type_init(&t, MPI_DATATYPE_NULL), CS_ERR_ARG);
}
END_TEST

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

    ck_assert_int_eq(cs_call_bcast(&c, buf_a, 4, MPI_INT, 0, MPI_COMM_NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_call_bcast(&c, buf_a, 4, MPI_INT, 1, MPI_COMM_SELF), CS_ERR_ARG);
    ck_assert_int_eq(cs_call_bcast(&c, buf_a, -4, MPI_INT, 0, MPI_COMM_SELF), CS_ERR_ARG);
}
END_TEST

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
    c.coll = (cs_coll_t)(CS_COLL_BARRIER + 1);
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

/* ---- block layouts ------------------------------------------------------------------------ */

START_TEST(test_blocks_uniform_layout) {
    cs_type_t ti = type_of(MPI_INT);
    cs_blocks_t b = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &ti, 3, 10, 0);
    ck_assert_int_eq(cs_blocks_start(&b, 0), 0);
    ck_assert_int_eq(cs_blocks_start(&b, 1), 3);
    ck_assert_int_eq(cs_blocks_start(&b, 3), 9);
    ck_assert_int_eq(cs_blocks_start(&b, 4), 10); /* clamped */
    ck_assert_int_eq(cs_blocks_start(&b, 7), 10);
    ck_assert_int_eq(cs_blocks_count(&b, 0, 4), 10);
    ck_assert_int_eq(cs_blocks_count(&b, 1, 3), 6);
    ck_assert_int_eq(cs_blocks_count(&b, 3, 5), 1);
    ck_assert_int_eq(cs_blocks_count(&b, 4, 6), 0);
    ck_assert_int_eq(cs_blocks_count(&b, 2, 2), 0);
    /* unit 0 (count 0 calls): every block is empty */
    b = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &ti, 0, 0, 0);
    ck_assert_int_eq(cs_blocks_start(&b, 5), 0);
    ck_assert_int_eq(cs_blocks_count(&b, 0, 5), 0);
}
END_TEST

START_TEST(test_blocks_indexed_layout) {
    static const int counts[4] = {2, 0, 3, 1};
    static const int displs[4] = {5, 0, 8, 2};
    cs_type_t ti = type_of(MPI_INT);
    cs_blocks_t b = cs_blocks_indexed(cs_ref(CS_SLOT_RECV, 0), &ti, counts, displs);
    ck_assert_int_eq(cs_blocks_count(&b, 0, 4), 6);
    ck_assert_int_eq(cs_blocks_count(&b, 1, 3), 3);
    ck_assert_int_eq(cs_blocks_count(&b, 1, 2), 0);
}
END_TEST

START_TEST(test_blocks_send_uniform) {
    cs_type_t td = type_of(odd_type);
    cs_blocks_t b = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 40), &td, 3, 10, 0);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_blocks_send(&s, 4, &b, 0, 4), CS_OK); /* all blocks: one message */
    ck_assert_int_eq(s.nops, 1);
    ck_assert_int_eq(s.ops[0].kind, CS_OP_SEND);
    ck_assert_int_eq(s.ops[0].peer, 4);
    ck_assert_int_eq(s.ops[0].buf.slot, CS_SLOT_RECV);
    ck_assert_int_eq(s.ops[0].buf.off, 40);
    ck_assert_int_eq(s.ops[0].count, 10);
    ck_assert(s.ops[0].type == odd_type);

    ck_assert_int_eq(cs_blocks_send(&s, 2, &b, 2, 4), CS_OK); /* elements 6..9 */
    ck_assert_int_eq(s.nops, 2);
    ck_assert_int_eq(s.ops[1].buf.off, 40 + 6 * 20);
    ck_assert_int_eq(s.ops[1].count, 4);

    ck_assert_int_eq(cs_blocks_recv(&s, 1, &b, 1, 2), CS_OK);
    ck_assert_int_eq(s.nops, 3);
    ck_assert_int_eq(s.ops[2].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[2].peer, 1);
    ck_assert_int_eq(s.ops[2].buf.off, 40 + 3 * 20);
    ck_assert_int_eq(s.ops[2].count, 3);

    ck_assert_int_eq(cs_blocks_send(&s, 2, &b, 4, 6), CS_OK); /* past the end: 0 elements */
    ck_assert_int_eq(s.nops, 4);
    ck_assert_int_eq(s.ops[3].count, 0);

    ck_assert_int_eq(cs_blocks_send(&s, 2, &b, 2, 2), CS_OK); /* empty range: nothing */
    ck_assert_int_eq(cs_blocks_recv(&s, 2, &b, 3, 1), CS_OK);
    ck_assert_int_eq(s.nops, 4);

    /* A scratch buffer holding blocks [2, ...) only: base addresses block 2. */
    b = cs_blocks_uniform(cs_ref(CS_SLOT_SCRATCH, -8), &td, 3, 10, 2);
    ck_assert_int_eq(cs_blocks_send(&s, 0, &b, 2, 3), CS_OK);
    ck_assert_int_eq(s.ops[4].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.ops[4].buf.off, -8);
    ck_assert_int_eq(s.ops[4].count, 3);
    ck_assert_int_eq(cs_blocks_send(&s, 0, &b, 3, 4), CS_OK);
    ck_assert_int_eq(s.ops[5].buf.off, -8 + 3 * 20);
    ck_assert_int_eq(s.ops[5].count, 1);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_blocks_send_indexed) {
    static const int counts[4] = {2, 0, 3, 1};
    static const int displs[4] = {5, 0, 8, 2};
    cs_type_t td = type_of(odd_type);
    cs_blocks_t b = cs_blocks_indexed(cs_ref(CS_SLOT_RECV, 16), &td, counts, displs);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_blocks_send(&s, 3, &b, 0, 4), CS_OK); /* one message per block */
    ck_assert_int_eq(s.nops, 4);
    for (int j = 0; j < 4; j++) {
        ck_assert_int_eq(s.ops[j].kind, CS_OP_SEND);
        ck_assert_int_eq(s.ops[j].peer, 3);
        ck_assert_int_eq(s.ops[j].buf.slot, CS_SLOT_RECV);
        ck_assert_int_eq(s.ops[j].buf.off, 16 + displs[j] * 20);
        ck_assert_int_eq(s.ops[j].count, counts[j]);
    }
    ck_assert_int_eq(cs_blocks_recv(&s, 1, &b, 1, 3), CS_OK);
    ck_assert_int_eq(s.nops, 6);
    ck_assert_int_eq(s.ops[4].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[4].count, 0);
    ck_assert_int_eq(s.ops[5].buf.off, 16 + 8 * 20);
    ck_assert_int_eq(s.ops[5].count, 3);
    ck_assert_int_eq(cs_blocks_send(&s, 3, &b, 2, 2), CS_OK);
    ck_assert_int_eq(s.nops, 6);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_blocks_copy) {
    static const int counts[4] = {2, 0, 3, 1};
    static const int displs[4] = {5, 0, 8, 2};
    cs_type_t ti = type_of(MPI_INT);
    cs_blocks_t u = cs_blocks_uniform(cs_ref(CS_SLOT_SEND, 0), &ti, 2, 8, 0);
    cs_blocks_t v = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &ti, 2, 8, 0);
    cs_blocks_t x = cs_blocks_indexed(cs_ref(CS_SLOT_RECV, 0), &ti, counts, displs);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_blocks_copy(&s, &u, &v, 1, 4), CS_OK); /* uniform: one copy */
    ck_assert_int_eq(s.nops, 1);
    ck_assert_int_eq(s.ops[0].kind, CS_OP_COPY);
    ck_assert_int_eq(s.ops[0].buf.off, 2 * 4);
    ck_assert_int_eq(s.ops[0].dst.off, 2 * 4);
    ck_assert_int_eq(s.ops[0].count, 6);

    /* indexed: one copy per non-empty block (empty copies are skipped) */
    ck_assert_int_eq(cs_blocks_copy(&s, &x, &x, 0, 4), CS_OK);
    ck_assert_int_eq(s.nops, 4);
    ck_assert_int_eq(s.ops[1].count, 2);
    ck_assert_int_eq(s.ops[2].count, 3);
    ck_assert_int_eq(s.ops[3].count, 1);
    ck_assert_int_eq(s.ops[3].dst.off, 2 * 4);
    cs_sched_free(&s);
}
END_TEST

static Suite *core_suite(void) {
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("status");
    tcase_add_test(tc, test_status_names);
    tcase_add_test(tc, test_status_unknown);
    suite_add_tcase(s, tc);

    tc = tcase_create("coll");
    tcase_add_test(tc, test_coll_names);
    tcase_add_test(tc, test_coll_flags);
    suite_add_tcase(s, tc);

    tc = tcase_create("type");
    tcase_add_test(tc, test_type_int);
    tcase_add_test(tc, test_type_derived);
    tcase_add_test(tc, test_type_dense_and_not);
    tcase_add_test(tc, test_type_null);
    suite_add_tcase(s, tc);

    tc = tcase_create("call");
    tcase_add_test(tc, test_call_bcast);
    tcase_add_test(tc, test_call_gather_root_in_place);
    tcase_add_test(tc, test_call_gather_root);
    tcase_add_test(tc, test_call_gather_nonroot);
    tcase_add_test(tc, test_call_scatter_root_in_place);
    tcase_add_test(tc, test_call_scatter_root);
    tcase_add_test(tc, test_call_scatter_nonroot);
    tcase_add_test(tc, test_call_reduce_root_in_place);
    tcase_add_test(tc, test_call_reduce_nonroot_in_place_arg);
    tcase_add_test(tc, test_call_reduce_nonroot);
    tcase_add_test(tc, test_call_allreduce_in_place);
    tcase_add_test(tc, test_call_allreduce);
    tcase_add_test(tc, test_call_commutative);
    tcase_add_test(tc, test_call_allgather_in_place);
    tcase_add_test(tc, test_call_allgather);
    tcase_add_test(tc, test_call_allgatherv_in_place);
    tcase_add_test(tc, test_call_allgatherv);
    tcase_add_test(tc, test_call_bytes_same_on_every_rank);
    tcase_add_test(tc, test_call_negative_count);
    tcase_add_test(tc, test_call_root_out_of_range);
    tcase_add_test(tc, test_call_null_type);
    tcase_add_test(tc, test_call_other_errors);
    tcase_add_test(tc, test_call_constructors);
    suite_add_tcase(s, tc);

    tc = tcase_create("sched");
    tcase_add_test(tc, test_sched_scratch);
    tcase_add_test(tc, test_sched_rounds);
    tcase_add_test(tc, test_sched_coll);
    tcase_add_test(tc, test_sched_append);
    tcase_add_test(tc, test_sched_window);
    tcase_add_test(tc, test_sched_copy);
    tcase_add_test(tc, test_sched_reduce);
    tcase_add_test(tc, test_sched_reduce_ordered);
    suite_add_tcase(s, tc);

    tc = tcase_create("blocks");
    tcase_add_test(tc, test_blocks_uniform_layout);
    tcase_add_test(tc, test_blocks_indexed_layout);
    tcase_add_test(tc, test_blocks_send_uniform);
    tcase_add_test(tc, test_blocks_send_indexed);
    tcase_add_test(tc, test_blocks_copy);
    suite_add_tcase(s, tc);
    return s;
}

static void make_mpi_objects(void) {
    const int blocklens[2] = {1, 1};
    const MPI_Aint displs[2] = {8, 16};
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    MPI_Type_create_hindexed(2, blocklens, displs, MPI_INT, &inner);
    MPI_Type_create_resized(inner, 4, 20, &odd_type);
    MPI_Type_commit(&odd_type);
    MPI_Type_free(&inner);
    MPI_Op_create(hexcat, 0, &hexcat_op);
    MPI_Op_create(int_sum, 1, &commuting_user_op);
}

int main(int argc, char **argv) {
    SRunner *sr;
    int failed;
    MPI_Init(&argc, &argv);
    make_mpi_objects();
    sr = srunner_create(core_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Op_free(&hexcat_op);
    MPI_Op_free(&commuting_user_op);
    MPI_Type_free(&odd_type);
    MPI_Finalize();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

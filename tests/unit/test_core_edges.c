/* test_core: the blocks of the neighbourhood collectives per edge (core/edges.h) and the linear
 * schedule built from them, for every collective, on a neighbourhood with a repeated source, an
 * MPI_PROC_NULL source and empty blocks (no MPI communication: the schedule's operations are
 * inspected). */
#include "test_core.h"

#include "builders.h"
#include "core/edges.h"
#include "registry.h"

#include <string.h>

static char send_buf[256], recv_buf[256];

/* In-edges from 2, MPI_PROC_NULL, 2; out-edges to 1, 3. */
static const int src[3] = {2, MPI_PROC_NULL, 2}, dst[2] = {1, 3};
static const cs_neighbors_t nb = {MPI_DIST_GRAPH, 3, 2, src, dst, 0, NULL, NULL};
static const int scounts[2] = {2, 0}, sdispls[2] = {5, 1}, rcounts[3] = {1, 7, 3},
                 rdispls[3] = {9, 0, 2};
static const MPI_Aint sbytes[2] = {40, 4}, rbytes[3] = {100, 0, 20};

/* The call of `coll` on that neighbourhood, ints everywhere but alltoallw's second edges. */
static cs_call_t make(cs_coll_t coll, const MPI_Datatype *stypes, const MPI_Datatype *rtypes) {
    cs_call_t c;
    switch (coll) {
    case CS_COLL_NEIGHBOR_ALLGATHER:
        cs_call_fill_neighbor_allgather(&c, send_buf, 3, MPI_INT, recv_buf, 3, MPI_INT,
                                        MPI_COMM_NULL);
        break;
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        cs_call_fill_neighbor_allgatherv(&c, send_buf, 3, MPI_INT, recv_buf, rcounts, rdispls,
                                         MPI_INT, MPI_COMM_NULL);
        break;
    case CS_COLL_NEIGHBOR_ALLTOALL:
        cs_call_fill_neighbor_alltoall(&c, send_buf, 3, MPI_INT, recv_buf, 3, MPI_INT,
                                       MPI_COMM_NULL);
        break;
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        cs_call_fill_neighbor_alltoallv(&c, send_buf, scounts, sdispls, MPI_INT, recv_buf, rcounts,
                                        rdispls, MPI_INT, MPI_COMM_NULL);
        break;
    default:
        cs_call_fill_neighbor_alltoallw(&c, send_buf, scounts, sbytes, stypes, recv_buf, rcounts,
                                        rbytes, rtypes, MPI_COMM_NULL);
        break;
    }
    ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, 4, &nb), CS_OK);
    return c;
}

START_TEST(test_edges_blocks) {
    const MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE}, rtypes[3] = {MPI_INT, MPI_INT, odd_type};
    cs_call_t c = make(CS_COLL_NEIGHBOR_ALLTOALLV, NULL, NULL);
    cs_edge_t e = cs_edges_out(&c, 0);
    ck_assert_int_eq(e.peer, 1);
    ck_assert_int_eq(e.buf.slot, CS_SLOT_SEND);
    ck_assert_int_eq(e.buf.off, 5 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(e.count, 2);
    ck_assert(e.type == MPI_INT);
    e = cs_edges_in(&c, 2);
    ck_assert_int_eq(e.peer, 2);
    ck_assert_int_eq(e.buf.slot, CS_SLOT_RECV);
    ck_assert_int_eq(e.buf.off, 2 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(e.count, 3);
    c = make(CS_COLL_NEIGHBOR_ALLTOALL, NULL, NULL);
    ck_assert_int_eq(cs_edges_out(&c, 1).buf.off, 3 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(cs_edges_in(&c, 2).buf.off, 6 * (MPI_Aint)sizeof(int));
    c = make(CS_COLL_NEIGHBOR_ALLGATHER, NULL, NULL);
    ck_assert_int_eq(cs_edges_out(&c, 1).buf.off, 0); /* the whole send buffer, every edge */
    ck_assert_int_eq(cs_edges_in(&c, 1).peer, MPI_PROC_NULL);
    c = make(CS_COLL_NEIGHBOR_ALLTOALLW, stypes, rtypes);
    e = cs_edges_out(&c, 1);
    ck_assert_int_eq(e.buf.off, 4); /* bytes */
    ck_assert(e.type == MPI_DOUBLE);
    e = cs_edges_in(&c, 2);
    ck_assert_int_eq(e.buf.off, 20);
    ck_assert(e.type == odd_type);
    /* send order: destination order; Cartesian: +1 before -1 in every dimension */
    {
        const int cart_nbrs[4] = {1, 1, 0, 0}, order[4] = {1, 0, 3, 2};
        const cs_neighbors_t cart = {MPI_CART, 4, 4, cart_nbrs, cart_nbrs, 0, NULL, NULL};
        for (int k = 0; k < 4; k++) {
            ck_assert_int_eq(cs_edges_send_order(&nb, k % 2), k % 2);
            ck_assert_int_eq(cs_edges_send_order(&cart, k), order[k]);
        }
    }
}
END_TEST

/* <coll>/linear: one round, receives in source order then sends in destination order, nothing
 * for MPI_PROC_NULL, empty messages kept. */
START_TEST(test_edges_linear) {
    const MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE}, rtypes[3] = {MPI_INT, MPI_INT, odd_type};
    static const char *names[] = {"neighbor_allgather/linear", "neighbor_allgatherv/linear",
                                  "neighbor_alltoall/linear", "neighbor_alltoallv/linear",
                                  "neighbor_alltoallw/linear"};
    for (int k = 0; k < 5; k++) {
        const cs_algo_t *a = cs_registry_find(names[k]);
        cs_call_t c;
        cs_sched_t s;
        static const int peers[4] = {2, 2, 1, 3};
        ck_assert_ptr_nonnull(a);
        c = make(a->coll, stypes, rtypes);
        sched_init(&s, MPI_OP_NULL);
        ck_assert_int_eq(cs_algo_applicable(a, &c), CS_OK);
        ck_assert_int_eq(cs_algo_build(a, NULL, &c, &s), CS_OK);
        ck_assert_int_eq(s.nrounds, 1);
        ck_assert_int_eq(s.nops, 4);
        ck_assert_int_eq(s.max_comm, 4);
        ck_assert_int_eq(s.scratch_bytes, 0);
        for (int i = 0; i < 4; i++) {
            const cs_op_t *op = &s.ops[i];
            cs_edge_t e = i < 2 ? cs_edges_in(&c, 2 * i) : cs_edges_out(&c, i - 2);
            ck_assert_int_eq(op->kind, i < 2 ? CS_OP_RECV : CS_OP_SEND);
            ck_assert_int_eq(op->peer, peers[i]);
            ck_assert_int_eq(op->buf.slot, e.buf.slot);
            ck_assert_int_eq(op->buf.off, e.buf.off);
            ck_assert_int_eq(op->count, e.count);
            ck_assert(op->type == e.type);
        }
        cs_sched_free(&s);
    }
}
END_TEST

/* neighbor_alltoall/coloured on the paper's alltoall example (Hoefler and Schneider II-A3,
 * figure 3: the complete graph with self-loops, p = 5): rank r's round i sends to (r + i) mod p
 * and receives from (r - i) mod p, one message each way per round, into and from the blocks of
 * those neighbours. */
START_TEST(test_edges_coloured_paper) {
    enum { P = 5 };
    int start[P + 1], list[P * P];
    cs_graph_t g;
    void *priv = NULL;
    cs_state_t st;
    const cs_algo_t *a = cs_registry_find("neighbor_alltoall/coloured");
    static int sbuf[P], rbuf[P];
    const cs_neighbors_t all = {MPI_DIST_GRAPH, P, P, list, list, 0, NULL, NULL};
    ck_assert_ptr_nonnull(a);
    for (int r = 0; r <= P; r++) {
        start[r] = r * P;
    }
    for (int k = 0; k < P * P; k++) {
        list[k] = k % P; /* every rank: 0, 1, ..., P-1 */
    }
    ck_assert_int_eq(cs_graph_from_lists(&g, P, start, list, start, list), CS_OK);
    ck_assert_int_eq(cs_neighbor_coloured_init(&g, &priv), CS_OK);
    memset(&st, 0, sizeof(st));
    st.priv = priv;
    for (int r = 0; r < P; r++) {
        cs_call_t c;
        cs_sched_t s;
        cs_call_fill_neighbor_alltoall(&c, sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_NULL);
        ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, r, P, &all), CS_OK);
        sched_init(&s, MPI_OP_NULL);
        ck_assert_int_eq(cs_algo_build_state(a, NULL, &c, &st, &s), CS_OK);
        ck_assert_int_eq(s.nrounds, P);
        for (int i = 0; i < P; i++) {
            const cs_op_t *recv = &s.ops[2 * i], *send = &s.ops[2 * i + 1];
            int to = (r + i) % P, from = (r - i + P) % P;
            ck_assert_int_eq(s.round_end[i], 2 * i + 2);
            ck_assert_int_eq(recv->kind, CS_OP_RECV);
            ck_assert_int_eq(recv->peer, from);
            ck_assert_int_eq(recv->buf.off, from * (MPI_Aint)sizeof(int));
            ck_assert_int_eq(send->kind, CS_OP_SEND);
            ck_assert_int_eq(send->peer, to);
            ck_assert_int_eq(send->buf.off, to * (MPI_Aint)sizeof(int));
        }
        cs_sched_free(&s);
    }
    /* a state made for another graph is refused, not run */
    {
        cs_call_t c;
        cs_sched_t s;
        const cs_neighbors_t fewer = {MPI_DIST_GRAPH, P - 1, P - 1, list, list, 0, NULL, NULL};
        cs_call_fill_neighbor_alltoall(&c, sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_NULL);
        ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, 0, P, &fewer), CS_OK);
        sched_init(&s, MPI_OP_NULL);
        ck_assert_int_eq(cs_algo_build_state(a, NULL, &c, &st, &s), CS_ERR_NOT_APPLICABLE);
        ck_assert_int_eq(cs_algo_build(a, NULL, &c, &s), CS_ERR_NOT_APPLICABLE); /* no state */
        cs_sched_free(&s);
    }
    cs_neighbor_coloured_free(priv);
    cs_graph_free(&g);
}
END_TEST

/* neighbor_alltoall/balanced on the scatter hot spot of figure 4 (p = 12, latency free, t = 2):
 * rank 0 starts fewer sends than it has out-edges, its blocks for the others travel packed, and
 * some rank forwards what it received (the simulator checks where every block lands). Rank 0's
 * sends and receives are the same whatever the block size's rounding. */
START_TEST(test_edges_balanced_hotspot) {
    enum { P = 12 };
    cs_graph_t h, g;
    void *priv = NULL;
    cs_state_t st;
    const cs_loggp_t model = {0.0, 1.0, 0.0, 0.0};
    const cs_algo_t *a = cs_registry_find("neighbor_alltoall/balanced");
    static int sbuf[4 * P], rbuf[4 * P];
    int forwards = 0, sends0 = 0;
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(cs_graph_hotspot(&h, P), CS_OK);
    ck_assert_int_eq(cs_graph_transpose(&h, &g), CS_OK);
    ck_assert_int_eq(cs_neighbor_balanced_init(&g, &model, &priv), CS_OK);
    memset(&st, 0, sizeof(st));
    st.priv = priv;
    for (int r = 0; r < P; r++) {
        int hdst[P + 2], hsrc[P + 2];
        cs_neighbors_t hnb = {MPI_DIST_GRAPH, g.in_slots[r], g.out_slots[r], hsrc, hdst, 0,
                              NULL,           NULL};
        cs_call_t c;
        cs_sched_t s;
        cs_graph_neighbours(&g, r, hdst, hsrc);
        cs_call_fill_neighbor_alltoall(&c, sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_NULL);
        ck_assert_int_eq(cs_call_finish(&c, MPI_COMM_NULL, r, P, &hnb), CS_OK);
        sched_init(&s, MPI_OP_NULL);
        ck_assert_int_eq(cs_algo_build_state(a, NULL, &c, &st, &s), CS_OK);
        for (int k = 0; k < s.nops; k++) {
            sends0 += r == 0 && s.ops[k].kind == CS_OP_SEND;
            forwards += r > 0 && s.ops[k].kind == CS_OP_SEND && s.ops[k].buf.slot != CS_SLOT_SEND;
        }
        cs_sched_free(&s);
    }
    ck_assert_int_lt(sends0, cs_graph_out_degree(&g, 0));
    ck_assert_int_gt(forwards, 0);
    cs_neighbor_balanced_free(priv);
    cs_graph_free(&g);
    cs_graph_free(&h);
}
END_TEST

TCase *core_tcase_edges(void) {
    TCase *tc = tcase_create("edges");
    tcase_add_test(tc, test_edges_blocks);
    tcase_add_test(tc, test_edges_linear);
    tcase_add_test(tc, test_edges_coloured_paper);
    tcase_add_test(tc, test_edges_balanced_hotspot);
    return tc;
}

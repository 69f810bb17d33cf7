/* Unit tests for algorithms/topo/balance.[ch]: the paper's tree balancing and its LogGP cost.
 * No MPI.
 *
 * Every plan, on every generator and on random graphs up to p = 64 (repeated edges and
 * self-loops included), is checked by delivering its blocks round by round: each block starts at
 * its sender, is sent only by a process that already holds it, reaches its receiver exactly
 * once through a simple route whose forwarders are graph neighbours of a process before them. */
#include "core/loggp.h"
#include "topo/balance.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_P 64

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ck_abort_msg(__VA_ARGS__);                                                             \
        }                                                                                          \
    } while (0)

static const cs_loggp_t model = {.L = 2.0, .o = 1.0, .g = 0.5, .G = 0.001};

static int is_out_neighbour(const cs_graph_t *g, int u, int v) {
    for (int e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
        if (g->edges[e].dst == v) {
            return 1;
        }
    }
    return 0;
}

/* Checks plan against g (see the file comment). */
static void check_plan(const cs_graph_t *g, const cs_balance_t *pl, cs_balance_kind_t kind) {
    int n = g->nedges;
    /* got[e * p + r]: round + 1 in which r received edge e's block (-1: holds it from the start) */
    int *got = calloc((size_t)n * (size_t)g->p + 1, sizeof(int));
    int *delivered = calloc((size_t)n + 1, sizeof(int));
    ck_assert_int_eq(pl->p, g->p);
    ck_assert_int_eq(pl->nedges, n);
    ck_assert_int_eq(pl->msg_start[0], 0);
    ck_assert_int_eq(pl->route_start[0], 0);
    ck_assert_int_eq(pl->msg_start[pl->nmsgs], pl->route_start[n]);
    for (int e = 0; e < n; e++) {
        got[e * g->p + g->edges[e].src] = -1;
    }
    for (int k = 0; k < pl->nmsgs; k++) {
        int src = pl->msg_src[k], dst = pl->msg_dst[k], rd = pl->msg_round[k];
        EXPECT(k == 0 || rd > pl->msg_round[k - 1] ||
                   (rd == pl->msg_round[k - 1] && src >= pl->msg_src[k - 1]),
               "messages not numbered by (round, sender)");
        EXPECT(rd >= 0 && rd < pl->nrounds, "round %d of %d", rd, pl->nrounds);
        EXPECT(pl->msg_start[k + 1] > pl->msg_start[k], "message %d carries nothing", k);
        if (kind == CS_BALANCE_ALLGATHER) {
            EXPECT(cs_balance_msg_blocks(g, pl, kind, k) == 1,
                   "allgather message %d carries %d senders' blocks", k,
                   cs_balance_msg_blocks(g, pl, kind, k));
        }
        for (int i = pl->msg_start[k]; i < pl->msg_start[k + 1]; i++) {
            int e = pl->msg_edge[i];
            int have = got[e * g->p + src];
            EXPECT(i == pl->msg_start[k] || e > pl->msg_edge[i - 1], "payload not increasing");
            EXPECT(have == -1 || (have > 0 && have - 1 < rd),
                   "message %d (round %d): %d sends edge %d's block before it has it", k, rd, src,
                   e);
            if (src != dst) { /* a self-loop is a local copy: the sender keeps the block */
                EXPECT(got[e * g->p + dst] == 0, "edge %d's block reaches %d twice", e, dst);
                got[e * g->p + dst] = rd + 1;
            }
            if (dst == g->edges[e].dst) {
                delivered[e]++;
            }
        }
    }
    for (int e = 0; e < n; e++) {
        const cs_graph_edge_t *x = &g->edges[e];
        int lo = pl->route_start[e], hi = pl->route_start[e + 1];
        EXPECT(delivered[e] == 1, "edge %d delivered %d times", e, delivered[e]);
        EXPECT(hi > lo, "edge %d has no route", e);
        EXPECT(pl->msg_src[pl->route_msg[lo]] == x->src, "route of %d starts elsewhere", e);
        EXPECT(pl->msg_dst[pl->route_msg[hi - 1]] == x->dst, "route of %d ends elsewhere", e);
        for (int j = lo; j < hi; j++) {
            int k = pl->route_msg[j], found = 0;
            for (int i = pl->msg_start[k]; i < pl->msg_start[k + 1]; i++) {
                found += pl->msg_edge[i] == e;
            }
            EXPECT(found == 1, "message %d on edge %d's route does not carry it", k, e);
            if (j > lo) {
                int prev = pl->route_msg[j - 1], fwd = pl->msg_src[k], near = 0;
                EXPECT(pl->msg_dst[prev] == fwd, "route of %d is not a chain", e);
                EXPECT(pl->msg_round[prev] < pl->msg_round[k], "rounds along %d's route", e);
                /* the forwarder is a graph out-neighbour of a process before it */
                for (int i = lo; i < j; i++) {
                    near = near || is_out_neighbour(g, pl->msg_src[pl->route_msg[i]], fwd);
                }
                EXPECT(near, "forwarder %d of edge %d is nobody's neighbour", fwd, e);
                /* simple path: fwd not seen before */
                for (int i = lo; i < j; i++) {
                    EXPECT(pl->msg_src[pl->route_msg[i]] != fwd, "route of %d revisits %d", e, fwd);
                }
            }
        }
    }
    free(got);
    free(delivered);
}

static double cost(const cs_graph_t *g, const cs_balance_t *pl, cs_balance_kind_t kind,
                   const cs_loggp_t *m, double k) {
    double t = -1.0;
    void *work = malloc((size_t)cs_balance_cost_work(pl) + 1);
    ck_assert_int_eq(cs_balance_cost(g, pl, kind, m, k, work, &t), CS_OK);
    free(work);
    return t;
}

/* Balances g both ways and checks the plans; returns the alltoall plan's moves. */
static int balance_checked(const cs_graph_t *g, const cs_loggp_t *m, double k, int t,
                           double *gain_a2a, double *gain_ag) {
    cs_balance_t direct, a2a, ag;
    int moves;
    ck_assert_int_eq(cs_balance_direct(g, &direct), CS_OK);
    check_plan(g, &direct, CS_BALANCE_ALLTOALL);
    ck_assert_int_eq(direct.moves, 0);
    ck_assert_int_eq(direct.nrounds, g->nedges > 0 ? 1 : 0);
    ck_assert_int_eq(cs_balance_build(g, CS_BALANCE_ALLTOALL, m, k, t, &a2a), CS_OK);
    check_plan(g, &a2a, CS_BALANCE_ALLTOALL);
    ck_assert_int_eq(cs_balance_build(g, CS_BALANCE_ALLGATHER, m, k, t, &ag), CS_OK);
    check_plan(g, &ag, CS_BALANCE_ALLGATHER);
    *gain_a2a =
        cost(g, &direct, CS_BALANCE_ALLTOALL, m, k) - cost(g, &a2a, CS_BALANCE_ALLTOALL, m, k);
    *gain_ag =
        cost(g, &direct, CS_BALANCE_ALLGATHER, m, k) - cost(g, &ag, CS_BALANCE_ALLGATHER, m, k);
    /* never a slower prediction than the graph itself (balance.h, step 4) */
    EXPECT(*gain_a2a >= 0.0 && *gain_ag >= 0.0, "balancing predicts slower: %g, %g", *gain_a2a,
           *gain_ag);
    moves = a2a.moves;
    cs_balance_free(&direct);
    cs_balance_free(&a2a);
    cs_balance_free(&ag);
    return moves;
}

/* ---- tests ---- */

/* Balanced patterns stay as they are: every process sends as many messages as its neighbours. */
START_TEST(test_balanced_unchanged) {
    int d2[][2] = {{3, 3}, {4, 4}, {8, 8}, {2, 5}, {1, 4}};
    int d3[][3] = {{2, 2, 2}, {3, 3, 3}, {4, 4, 4}, {2, 3, 4}};
    for (size_t i = 0; i < sizeof(d2) / sizeof(d2[0]) + sizeof(d3) / sizeof(d3[0]); i++) {
        for (int moore = 0; moore < 2; moore++) {
            cs_graph_t g;
            double ga, gg;
            int nd = i < 5 ? 2 : 3;
            const int *dims = i < 5 ? d2[i] : d3[i - 5];
            if (moore) {
                ck_assert_int_eq(cs_graph_moore(&g, nd, dims), CS_OK);
            } else {
                ck_assert_int_eq(cs_graph_cart(&g, nd, dims, NULL), CS_OK);
            }
            EXPECT(balance_checked(&g, &model, 16, 2, &ga, &gg) == 0, "case %zu moore %d moved", i,
                   moore);
            EXPECT(ga == 0.0 && gg == 0.0, "case %zu: cost changed without moves", i);
            cs_graph_free(&g);
        }
    }
}
END_TEST

/* The paper's figure 4: a scatter from a hot spot becomes a tree, and the predicted time drops. */
START_TEST(test_hotspot_scatter) {
    int p = _i;
    cs_graph_t h, g;
    double ga, gg;
    int moves;
    ck_assert_int_eq(cs_graph_hotspot(&h, p), CS_OK);
    ck_assert_int_eq(cs_graph_transpose(&h, &g), CS_OK);
    moves = balance_checked(&g, &model, 16, 2, &ga, &gg);
    /* rank 0 sends p + 1 messages, everyone else 2: with L / o = 2 it pays from p = 10 on */
    if (p >= 10) {
        EXPECT(moves > 0, "p %d: nothing moved", p);
        EXPECT(ga > 0.0, "p %d: alltoall predicted time not lower (%g)", p, ga);
        EXPECT(gg > 0.0, "p %d: allgather predicted time not lower (%g)", p, gg);
    }
    /* the receiving hot spot (everyone sends to 0) has no out-degree excess: unchanged */
    EXPECT(balance_checked(&h, &model, 16, 2, &ga, &gg) == 0, "p %d: gather hot spot moved", p);
    cs_graph_free(&h);
    cs_graph_free(&g);
}
END_TEST

/* The loop by hand on a star (figure 1(b): rank 0 sends to 1..8), L = o = 1, t = 2:
 *   m 8, p_s 1 (s 0): x = 4 - 1 = 3: 0's messages to 2, 3, 4 go through 1;
 *   m 5, p_s 5 (s 0): x = 2 - 1 = 1: to 6 through 5;
 *   m 4, p_s 7 (s 0): x = 2 - 1 = 1: to 8 through 7;
 *   m 3 (rank 0 before rank 1), p_s 5 (s 1): m - s = 2 <= t: stop. */
START_TEST(test_star_by_hand) {
    int ds[10] = {0}, d[8], ss[10] = {0}, s[8];
    static const int via[9] = {-1, -1, 1, 1, 1, -1, 5, -1, 7}; /* forwarder of 0 -> r */
    cs_graph_t g;
    cs_balance_t pl;
    cs_loggp_t m = {.L = 1.0, .o = 1.0, .g = 0.0, .G = 0.0};
    for (int r = 0; r < 9; r++) {
        ds[r + 1] = 8;
        ss[r + 1] = r;
    }
    for (int i = 0; i < 8; i++) {
        d[i] = i + 1;
        s[i] = 0;
    }
    ck_assert_int_eq(cs_graph_from_lists(&g, 9, ds, d, ss, s), CS_OK);
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &m, 8, 2, &pl), CS_OK);
    check_plan(&g, &pl, CS_BALANCE_ALLTOALL);
    ck_assert_int_eq(pl.moves, 5);
    ck_assert_int_eq(pl.nrounds, 2);
    for (int e = 0; e < g.nedges; e++) {
        int r = g.edges[e].dst, lo = pl.route_start[e], len = pl.route_start[e + 1] - lo;
        if (via[r] < 0) {
            EXPECT(len == 1, "0 -> %d should be direct", r);
        } else {
            EXPECT(len == 2 && pl.msg_dst[pl.route_msg[lo]] == via[r], "0 -> %d via %d", r, via[r]);
        }
    }
    /* the message 0 -> 1 carries four blocks (1's own and those of 2, 3, 4) */
    for (int k = 0; k < pl.nmsgs; k++) {
        if (pl.msg_src[k] == 0 && pl.msg_dst[k] == 1) {
            ck_assert_int_eq(cs_balance_msg_blocks(&g, &pl, CS_BALANCE_ALLTOALL, k), 4);
            ck_assert_int_eq(cs_balance_msg_blocks(&g, &pl, CS_BALANCE_ALLGATHER, k), 1);
        }
    }
    cs_balance_free(&pl);
    /* L / o large: x <= 0 at once, nothing moves; t large: nothing moves */
    m.L = 10.0;
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &m, 8, 2, &pl), CS_OK);
    ck_assert_int_eq(pl.moves, 0);
    cs_balance_free(&pl);
    m.L = 1.0;
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &m, 8, 8, &pl), CS_OK);
    ck_assert_int_eq(pl.moves, 0);
    cs_balance_free(&pl);
    /* allgather's lag is L / (o + (k - 1) G): with G = 1, k = 8 it is 1 / 8, ceil 1: as above */
    m.G = 1.0;
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLGATHER, &m, 8, 2, &pl), CS_OK);
    check_plan(&g, &pl, CS_BALANCE_ALLGATHER);
    ck_assert_int_eq(pl.moves, 5);
    cs_balance_free(&pl);
    cs_graph_free(&g);
}
END_TEST

/* Random sparse graphs and lists with repeated edges and self-loops: every plan delivers. */
START_TEST(test_random_plans) {
    int p = _i;
    static const double dens[] = {0.1, 0.3, 0.6};
    static const cs_loggp_t models[] = {
        {.L = 2.0, .o = 1.0, .g = 0.5, .G = 0.001},
        {.L = 0.0, .o = 1.0, .g = 0.0, .G = 0.0},
        {.L = 5.0, .o = 0.5, .g = 0.1, .G = 0.01},
    };
    for (size_t i = 0; i < sizeof(dens) / sizeof(dens[0]); i++) {
        for (size_t j = 0; j < sizeof(models) / sizeof(models[0]); j++) {
            cs_graph_t g;
            double ga, gg;
            ck_assert_int_eq(cs_graph_random(&g, p, dens[i], (uint64_t)(p * 7 + (int)i)), CS_OK);
            balance_checked(&g, &models[j], 16, (int)j, &ga, &gg);
            cs_graph_free(&g);
        }
    }
    /* a skewed graph: rank r sends to the next (r % 8) * p / 8 ranks, with a self-loop at 0 */
    {
        int *start = malloc(sizeof(int) * ((size_t)p + 1)),
            *list = malloc(sizeof(int) * (size_t)p * (size_t)p + 1);
        int n = 0;
        cs_graph_t g;
        double ga, gg;
        for (int r = 0; r < p; r++) {
            start[r] = n;
            if (r == 0) {
                list[n++] = 0;
            }
            for (int i = 1; i <= (r % 8) * p / 8; i++) {
                list[n++] = (r + i) % p;
            }
        }
        start[p] = n;
        {
            /* sources in increasing sender order */
            int *ss = calloc((size_t)p + 1, sizeof(int)), *s = malloc(sizeof(int) * (size_t)n + 1),
                *fill = malloc(sizeof(int) * (size_t)p);
            for (int i = 0; i < n; i++) {
                ss[list[i] + 1]++;
            }
            for (int v = 0; v < p; v++) {
                ss[v + 1] += ss[v];
                fill[v] = ss[v];
            }
            for (int u = 0; u < p; u++) {
                for (int i = start[u]; i < start[u + 1]; i++) {
                    s[fill[list[i]]++] = u;
                }
            }
            ck_assert_int_eq(cs_graph_from_lists(&g, p, start, list, ss, s), CS_OK);
            free(ss);
            free(s);
            free(fill);
        }
        for (size_t j = 0; j < sizeof(models) / sizeof(models[0]); j++) {
            balance_checked(&g, &models[j], 8, 2, &ga, &gg);
        }
        cs_graph_free(&g);
        free(start);
        free(list);
    }
}
END_TEST

START_TEST(test_cost_model) {
    /* one message of k bytes: o + (k - 1) G + L + o */
    int ds[] = {0, 1, 1}, d[] = {1}, ss[] = {0, 0, 1}, s[] = {0};
    cs_graph_t g;
    cs_balance_t pl;
    cs_loggp_t m = {.L = 3.0, .o = 1.0, .g = 0.0, .G = 0.5};
    ck_assert_int_eq(cs_graph_from_lists(&g, 2, ds, d, ss, s), CS_OK);
    ck_assert_int_eq(cs_balance_direct(&g, &pl), CS_OK);
    ck_assert(fabs(cost(&g, &pl, CS_BALANCE_ALLTOALL, &m, 5) - (1.0 + 2.0 + 3.0 + 1.0)) < 1e-12);
    cs_balance_free(&pl);
    cs_graph_free(&g);
    /* star from 0 to 8 leaves, direct, G = 0, g = 0: the last send ends at 8 o, arrives L later */
    int ds2[10] = {0}, d2[8], ss2[10] = {0}, s2[8];
    for (int r = 0; r < 9; r++) {
        ds2[r + 1] = 8;
        ss2[r + 1] = r;
    }
    for (int i = 0; i < 8; i++) {
        d2[i] = i + 1;
        s2[i] = 0;
    }
    m.G = 0.0;
    ck_assert_int_eq(cs_graph_from_lists(&g, 9, ds2, d2, ss2, s2), CS_OK);
    ck_assert_int_eq(cs_balance_direct(&g, &pl), CS_OK);
    ck_assert(fabs(cost(&g, &pl, CS_BALANCE_ALLTOALL, &m, 1) - (8.0 + 3.0 + 1.0)) < 1e-12);
    /* the gap binds when g > o */
    m.g = 2.0;
    ck_assert(fabs(cost(&g, &pl, CS_BALANCE_ALLTOALL, &m, 1) - (7 * 2.0 + 1.0 + 3.0 + 1.0)) <
              1e-12);
    cs_balance_free(&pl);
    /* bad parameters */
    m.o = 0.0;
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &m, 1, 2, &pl), CS_ERR_ARG);
    m.o = 1.0;
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &m, 1, -1, &pl), CS_ERR_ARG);
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &m, -1, 2, &pl), CS_ERR_ARG);
    m.L = NAN;
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &m, 1, 2, &pl), CS_ERR_ARG);
    ck_assert_ptr_null(pl.msg_src);
    cs_graph_free(&g);
    /* no edges: no messages, no rounds, no time */
    ck_assert_int_eq(cs_graph_random(&g, 4, 0.0, 1), CS_OK);
    ck_assert_int_eq(cs_balance_build(&g, CS_BALANCE_ALLTOALL, &model, 1, 2, &pl), CS_OK);
    ck_assert_int_eq(pl.nmsgs, 0);
    ck_assert_int_eq(pl.nrounds, 0);
    ck_assert(cost(&g, &pl, CS_BALANCE_ALLTOALL, &model, 1) == 0.0);
    cs_balance_free(&pl);
    cs_graph_free(&g);
}
END_TEST

/* core/loggp.h: the defaults with a flag, the machine's values once set, bad values refused,
 * NULL back to the defaults. */
START_TEST(test_loggp_current) {
    cs_loggp_t l, m = {2.5, 0.25, 0.125, 0.001}, bad = {1, 0, 1, 1};
    ck_assert_int_eq(cs_loggp_current(&l), CS_LOGGP_FROM_DEFAULTS);
    ck_assert_double_eq(l.L, CS_LOGGP_DEFAULT_L);
    ck_assert_double_eq(l.o, CS_LOGGP_DEFAULT_O);
    ck_assert_int_eq(cs_loggp_set(&m, CS_LOGGP_FROM_DATABASE), CS_OK);
    ck_assert_int_eq(cs_loggp_current(&l), CS_LOGGP_FROM_DATABASE);
    ck_assert(memcmp(&l, &m, sizeof(l)) == 0);
    ck_assert_int_eq(cs_loggp_set(&bad, CS_LOGGP_FROM_BENCH), CS_ERR_ARG); /* o = 0 */
    bad.o = 1;
    bad.G = NAN;
    ck_assert_int_eq(cs_loggp_set(&bad, CS_LOGGP_FROM_BENCH), CS_ERR_ARG);
    ck_assert_int_eq(cs_loggp_set(&m, CS_LOGGP_FROM_DEFAULTS), CS_ERR_ARG);
    ck_assert_int_eq(cs_loggp_current(&l), CS_LOGGP_FROM_DATABASE); /* unchanged */
    ck_assert_int_eq(cs_loggp_set(NULL, CS_LOGGP_FROM_DEFAULTS), CS_OK);
    ck_assert_int_eq(cs_loggp_current(&l), CS_LOGGP_FROM_DEFAULTS);
    ck_assert_double_eq(l.G, CS_LOGGP_DEFAULT_G_BYTE);
}
END_TEST

static Suite *balance_suite(void) {
    Suite *s = suite_create("balance");
    TCase *tc = tcase_create("balance");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_balanced_unchanged);
    tcase_add_loop_test(tc, test_hotspot_scatter, 1, MAX_P + 1);
    tcase_add_test(tc, test_star_by_hand);
    tcase_add_loop_test(tc, test_random_plans, 1, MAX_P + 1);
    tcase_add_test(tc, test_cost_model);
    tcase_add_test(tc, test_loggp_current);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(balance_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

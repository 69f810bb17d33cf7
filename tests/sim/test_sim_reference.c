/* Self-tests of the case machinery against the serial reference: deliberately wrong algorithms
 * (results in the wrong place, reduction in the wrong order, barriers that let a rank leave
 * before every rank has entered) must fail, and allreduce/dpml's inter parameter must be
 * refused alike on every rank or run. */
#include "sim_harness.h"
#include "topo/topo.h"

#include <stdio.h>
#include <string.h>

/* bcast that receives into scratch and leaves the user's buffer alone: a wrong result. */
static int wrong_place(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_ref_t tmp;
    if (c->rank != c->root) {
        CS_CHECK(cs_sched_scratch(s, c->recvcount, &c->recv, &tmp));
        CS_CHECK(cs_sched_recv(s, c->root, tmp, c->recvcount, &c->recv));
        goto out;
    }
    for (int i = 0; i < c->nprocs; i++) {
        if (i != c->root) {
            CS_CHECK(cs_sched_send(s, i, cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv));
        }
    }
out:
    return rc;
}

/* Linear reduce that folds in reverse rank order: right only for commutative ops. */
static int wrong_order(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs;
    cs_ref_t all, recv = cs_ref(CS_SLOT_RECV, 0);
    if (c->rank != c->root) {
        CS_CHECK(cs_sched_send(s, c->root, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send));
        goto out;
    }
    CS_CHECK(cs_sched_scratch(s, (MPI_Aint)p * c->sendcount, &c->send, &all));
    for (int i = 0; i < p; i++) {
        cs_ref_t block = cs_ref_at(all, (MPI_Aint)i * c->sendcount, &c->send);
        if (i == c->rank) {
            CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send, block,
                                   c->sendcount, &c->send));
        } else {
            CS_CHECK(cs_sched_recv(s, i, block, c->sendcount, &c->send));
        }
    }
    CS_CHECK(cs_sched_round(s));
    CS_CHECK(cs_sched_copy(s, all, c->sendcount, &c->send, recv, c->recvcount, &c->recv));
    for (int i = 1; i < p; i++) {
        CS_CHECK(cs_sched_reduce(s, cs_ref_at(all, (MPI_Aint)i * c->sendcount, &c->send), recv,
                                 c->recvcount, &c->recv));
    }
out:
    return rc;
}

/* Barrier that only fans in to rank 0 up a binomial tree: rank 0 leaves after everyone has
 * entered, the others leave as soon as their subtree has (no fan-out). No buffer shows it. */
static int fan_in_only(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank, parent = cs_topo_binomial_parent(rank, p);
    cs_ref_t token[2];
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[0]));
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[1]));
    for (int i = 0; i < cs_topo_binomial_nchildren(rank, p); i++) {
        CS_CHECK(cs_sched_recv(s, cs_topo_binomial_child(rank, p, i), token[1], 0, &c->recv));
    }
    CS_CHECK(cs_sched_round(s));
    if (parent >= 0) {
        CS_CHECK(cs_sched_send(s, parent, token[0], 0, &c->recv));
    }
out:
    return rc;
}

/* Dissemination barrier one round short (distances 1, 2, ... below p/2 only): for p > 2 a rank
 * leaves having heard from fewer than p ranks. */
static int one_round_short(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank;
    cs_ref_t token[2];
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[0]));
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[1]));
    for (int dist = 1; 2 * dist < p; dist *= 2) {
        CS_CHECK(cs_sched_send(s, (rank + dist) % p, token[0], 0, &c->recv));
        CS_CHECK(cs_sched_recv(s, (rank - dist + p) % p, token[1], 0, &c->recv));
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

static const cs_algo_t fan_in_only_algo = {
    .name = "selftest/fan_in_only", .coll = CS_COLL_BARRIER, .desc = "", .build = fan_in_only};
static const cs_algo_t one_round_short_algo = {.name = "selftest/one_round_short",
                                               .coll = CS_COLL_BARRIER,
                                               .desc = "",
                                               .build = one_round_short};

static const cs_algo_t wrong_place_algo = {
    .name = "selftest/wrong_place", .coll = CS_COLL_BCAST, .desc = "", .build = wrong_place};
static const cs_algo_t wrong_order_algo = {
    .name = "selftest/wrong_order", .coll = CS_COLL_REDUCE, .desc = "", .build = wrong_order};

/* Barrier semantics (check_barrier's replay, which no buffer shows): the two broken barriers
 * above must be reported as letting a rank leave early at p = 4 and 5, and barrier/dissemination
 * and barrier/binomial, run the same way, must pass. */
static int selftest_barriers(int *passed, int *failed) {
    int rc = CS_OK;
    world_t world, *w = &world;
    scase_t sc;
    char why[WHY_BYTES], what[128];
    const cs_algo_t *broken[] = {&fan_in_only_algo, &one_round_short_algo};
    const char *good[] = {"barrier/dissemination", "barrier/binomial"};
    memset(&sc, 0, sizeof(sc));
    memset(w, 0, sizeof(*w));
    sc.coll = CS_COLL_BARRIER;
    sc.sk = sc.rk = &kinds[K_INT];
    for (sc.p = 4; sc.p <= 5; sc.p++) {
        world_free(w);
        memset(w, 0, sizeof(*w));
        CS_CHECK(world_init(w, sc.p));
        for (int i = 0; i < 2; i++) {
            int st;
            why[0] = '\0';
            CS_CHECK(st = run_case(broken[i], NULL, &sc, NULL, w, why, sizeof(why)));
            snprintf(what, sizeof(what), "%s at p = %d is reported as leaving early",
                     broken[i]->name, sc.p);
            expect(what, st == CASE_FAIL && strstr(why, "leaves without knowing") != NULL, NULL,
                   passed, failed);
            if (st != CASE_FAIL) {
                printf("  status %d, why: %s\n", st, why);
            }
        }
        for (int i = 0; i < 2; i++) {
            const cs_algo_t *a = cs_registry_find(good[i]);
            int st = CASE_FAIL;
            why[0] = '\0';
            if (a != NULL) {
                CS_CHECK(st = run_case(a, NULL, &sc, NULL, w, why, sizeof(why)));
            }
            snprintf(what, sizeof(what), "%s at p = %d passes the same check", good[i], sc.p);
            expect(what, st == CASE_PASS, NULL, passed, failed);
            if (st != CASE_PASS) {
                printf("  why: %s\n", why);
            }
        }
    }
out:
    world_free(w);
    return rc;
}

/* Deliberately wrong algorithms through the same case machinery as the registry. */
int selftest_reference(int *passed, int *failed) {
    int rc = CS_OK;
    world_t w;
    scase_t sc;
    char why[WHY_BYTES];
    int st;
    memset(&w, 0, sizeof(w));
    CS_CHECK(world_init(&w, 4));
    memset(&sc, 0, sizeof(sc));
    sc.p = 4;
    sc.root = 1;
    sc.count = 3;
    sc.coll = CS_COLL_BCAST;
    sc.sk = sc.rk = &kinds[K_HIDX];
    CS_CHECK(st = run_case(&wrong_place_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("result left in scratch is caught", st == CASE_FAIL, NULL, passed, failed);
    sc.coll = CS_COLL_REDUCE;
    sc.sk = sc.rk = &kinds[K_MAT];
    sc.op = OP_MAT;
    CS_CHECK(st = run_case(&wrong_order_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("reverse rank order with matmul is caught", st == CASE_FAIL, NULL, passed, failed);
    sc.sk = sc.rk = &kinds[K_HIDX];
    sc.op = OP_AFF;
    CS_CHECK(st = run_case(&wrong_order_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("reverse rank order with affine is caught", st == CASE_FAIL, NULL, passed, failed);
    sc.sk = sc.rk = &kinds[K_INT];
    sc.op = OP_SUM;
    sc.in_place = 1;
    CS_CHECK(st = run_case(&wrong_order_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("reverse rank order with sum passes", st == CASE_PASS, NULL, passed, failed);
    if (st != CASE_PASS) {
        printf("  why: %s\n", why);
    }
    CS_CHECK(selftest_barriers(passed, failed));
out:
    world_free(&w);
    return rc;
}

/* allreduce/dpml's inter parameter: an unknown algorithm, or one that needs per-communicator
 * state (dpml itself, orth), is refused by build() on every rank alike; a point-to-point one
 * runs. Two emulated nodes of 2. */
int selftest_dpml_inter(int *passed, int *failed) {
    static const struct {
        const char *inter;
        int ok;
    } cases[] = {
        {"bogus", 0},       {"dpml", 0}, {"orth", 0}, {"native", 1}, {"recursive_doubling", 1},
        {"reduce_bcast", 1}};
    int rc = CS_OK;
    const cs_algo_t *a = cs_registry_find("allreduce/dpml");
    cs_nodes_t nodes = {4, 2, 2, NULL};
    world_t w;
    scase_t sc;
    char why[WHY_BYTES], what[128];
    memset(&w, 0, sizeof(w));
    CS_REQUIRE(a != NULL, CS_ERR_INTERNAL);
    CS_CHECK(world_init(&w, 4));
    memset(&sc, 0, sizeof(sc));
    sc.p = 4;
    sc.count = 5;
    sc.coll = CS_COLL_ALLREDUCE;
    sc.sk = sc.rk = &kinds[K_MAT];
    sc.op = OP_MAT;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cs_params_t params;
        int st;
        cs_params_defaults(a->params, a->nparams, &params);
        CS_CHECK(cs_params_set(&params, "leaders", "2"));
        CS_CHECK(cs_params_set(&params, "inter", cases[i].inter));
        why[0] = '\0';
        CS_CHECK(st = run_case(a, &params, &sc, &nodes, &w, why, sizeof(why)));
        snprintf(what, sizeof(what), "dpml inter=%s %s", cases[i].inter,
                 cases[i].ok ? "runs" : "is refused by every rank");
        expect(what,
               cases[i].ok ? st == CASE_PASS
                           : st == CASE_FAIL && strstr(why, "on 4 of 4 ranks") != NULL,
               NULL, passed, failed);
        if (cases[i].ok && st != CASE_PASS) {
            printf("  why: %s\n", why);
        }
    }
out:
    world_free(&w);
    return rc;
}

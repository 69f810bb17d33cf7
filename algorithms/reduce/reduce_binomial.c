/* reduce/binomial: partial results flow up a binomial tree.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B for MPI_Reduce: binomial tree).
 * A node receives the partial results of all its children at once (one scratch vector each),
 * then folds them into its own in increasing child order: the subtree of v is the rank range
 * [v, v+size) and child v+2^i follows the range v already holds, so acc = acc op child keeps
 * rank order. With a commutative op the tree is rooted at the root (positions rotated); with a
 * non-commutative op it is rooted at rank 0, which keeps positions equal to ranks, and rank 0
 * then sends the result to the root (one extra message when root != 0).
 * Cost: log2(p)(alpha + n beta + n gamma). Rounds: 2 per rank (+1 when non-commutative and
 * root != 0). Requirements: none. Parameters: none. Scratch: n per child (+ n off the root).
 *
 *   p = 4, root 0   round 1                     round 2
 *   3               sends x3 to 2               -
 *   1               sends x1 to 0               -
 *   2               r2 = x2 op x3               sends r2 to 0
 *   0               (receives x1 and r2)        r = (x0 op x1) op r2
 */
#include "builders.h"
#include "topo/topo.h"

int cs_build_reduce_binomial(cs_sched_t *s, const cs_call_t *c, int root, cs_ref_t acc) {
    int rc = CS_OK;
    int p = c->nprocs;
    int v = cs_topo_vrank(c->rank, root, p);
    int parent = cs_topo_binomial_parent(v, p);
    int nchildren = cs_topo_binomial_nchildren(v, p);
    int count = c->sendcount;
    const cs_type_t *t = &c->send;
    cs_ref_t tmp[32];
    CS_REQUIRE(c->commutative || root == 0, CS_ERR_NOT_APPLICABLE);
    CS_REQUIRE(nchildren <= 32, CS_ERR_NOT_APPLICABLE);
    for (int i = 0; i < nchildren; i++) {
        int child = cs_topo_binomial_child(v, p, i);
        CS_CHECK(cs_sched_scratch(s, count, t, &tmp[i]));
        CS_CHECK(cs_sched_recv(s, cs_topo_rank(child, root, p), tmp[i], count, t));
    }
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), count, t, acc, count, t));
    for (int i = 0; i < nchildren; i++) {
        CS_CHECK(cs_sched_reduce_ordered(s, acc, tmp[i], 0, c->commutative, count, t));
    }
    CS_CHECK(cs_sched_round(s));
    if (parent >= 0) {
        CS_CHECK(cs_sched_send(s, cs_topo_rank(parent, root, p), acc, count, t));
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int tree_root = c->commutative ? c->root : 0;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t acc = recv;
    if (c->rank != c->root || tree_root != c->root) {
        CS_CHECK(cs_sched_scratch(s, c->sendcount, &c->send, &acc));
    }
    CS_CHECK(cs_build_reduce_binomial(s, c, tree_root, acc));
    if (tree_root != c->root) {
        if (c->rank == tree_root) {
            CS_CHECK(cs_sched_send(s, c->root, acc, c->sendcount, &c->send));
        } else if (c->rank == c->root) {
            CS_CHECK(cs_sched_recv(s, tree_root, recv, c->recvcount, &c->recv));
        }
    }
out:
    return rc;
}

const cs_algo_t cs_algo_reduce_binomial = {
    .name = "reduce/binomial",
    .coll = CS_COLL_REDUCE,
    .desc = "binomial tree, rank order kept (rooted at 0 for non-commutative ops)",
    .build = build,
};

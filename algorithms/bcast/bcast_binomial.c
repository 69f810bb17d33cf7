/* bcast/binomial: broadcast down a binomial tree.
 *
 * Reference: Hartmann et al., Table 1 (P2P_A for MPI_Bcast).
 * Cost: ceil(log2 p)(alpha + n beta) on the critical path. Rounds: up to 2 per rank (receive
 * from the parent, then send to all children at once); ceil(log2 p) steps from the root.
 * Requirements: none. Parameters: none.
 *
 *   p = 4, root 0 (positions = rank - root)   step 1      step 2
 *   0                                          -> 2        -> 1
 *   2                                          <- 0        -> 3
 *   1, 3                                                   <- 0, <- 2
 * (0 posts both sends at once; the step column shows the tree levels.)
 */
#include "builders.h"
#include "topo/topo.h"

int cs_build_bcast_binomial(cs_sched_t *s, cs_ref_t buf, int count, const cs_type_t *t, int root,
                            int rank, int p) {
    int rc = CS_OK;
    int v = cs_topo_vrank(rank, root, p);
    int parent = cs_topo_binomial_parent(v, p);
    if (parent >= 0) {
        CS_CHECK(cs_sched_recv(s, cs_topo_rank(parent, root, p), buf, count, t));
        CS_CHECK(cs_sched_round(s));
    }
    for (int i = cs_topo_binomial_nchildren(v, p) - 1; i >= 0; i--) {
        int child = cs_topo_binomial_child(v, p, i);
        CS_CHECK(cs_sched_send(s, cs_topo_rank(child, root, p), buf, count, t));
    }
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    return cs_build_bcast_binomial(s, cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv, c->root,
                                   c->rank, c->nprocs);
}

const cs_algo_t cs_algo_bcast_binomial = {
    .name = "bcast/binomial",
    .coll = CS_COLL_BCAST,
    .desc = "binomial tree",
    .build = build,
};

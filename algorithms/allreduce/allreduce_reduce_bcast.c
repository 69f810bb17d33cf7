/* allreduce/reduce_bcast: binomial reduce to rank 0, then binomial broadcast from rank 0.
 *
 * Reference: Hartmann et al., Table 1 (P2P_A for MPI_Allreduce: binomial tree (reduce) +
 * binomial tree (bcast)). Composed of reduce/binomial's and bcast/binomial's builders.
 * The tree is rooted at rank 0, so rank order holds and non-commutative ops are correct.
 * Cost: 2 log2(p)(alpha + n beta) + log2(p) n gamma. Rounds: up to 4 per rank.
 * Requirements: none. Parameters: none. Scratch: n per child in the reduce tree.
 *
 *   p = 4          reduce (as reduce/binomial)    bcast (as bcast/binomial)
 *   0              r = (x0 op x1) op (x2 op x3)   sends r to 2, then to 1
 *   2              x2 op x3 -> 0                  receives r, sends to 3
 *   1, 3           x1 -> 0, x3 -> 2               receive r
 */
#include "builders.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    CS_CHECK(cs_build_reduce_binomial(s, c, 0, recv));
    CS_CHECK(cs_build_bcast_binomial(s, recv, c->recvcount, &c->recv, 0, c->rank, c->nprocs));
out:
    return rc;
}

const cs_algo_t cs_algo_allreduce_reduce_bcast = {
    .name = "allreduce/reduce_bcast",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "binomial reduce to rank 0 + binomial broadcast",
    .build = build,
};

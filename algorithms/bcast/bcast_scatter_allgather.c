/* bcast/scatter_allgather: binomial scatter of p chunks, then recursive-doubling allgather.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B for MPI_Bcast: binomial tree (scatter) +
 * hypercube (allgather)); van de Geijn's long-message broadcast.
 * The buffer of n elements is cut into p chunks of ceil(n/p) elements (the last ones may be
 * short or empty); chunk q belongs to position q = (rank - root) mod p.
 * Cost: scatter log2(p) alpha + (p-1)/p n beta, allgather log2(p) alpha + (p-1)/p n beta
 * (power-of-two p; other p add two fold steps). Rounds: <= 2 (scatter) + log2(p') (+2 fold).
 * Requirements: none (count < p leaves some chunks empty). Parameters: none.
 *
 *   p = 4, root 0, chunks A B C D     after scatter   after RD step 1   after RD step 2
 *   0                                 A B C D         A B C D           A B C D
 *   1                                 B               A B               A B C D
 *   2                                 C D             C D               A B C D
 *   3                                 D               C D               A B C D
 */
#include "builders.h"
#include "topo/topo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs;
    int v = cs_topo_vrank(c->rank, c->root, p);
    int parent = cs_topo_binomial_parent(v, p);
    MPI_Aint chunk = ((MPI_Aint)c->recvcount + p - 1) / p;
    cs_blocks_t b = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &c->recv, chunk, c->recvcount, 0);
    if (parent >= 0) {
        int peer = cs_topo_rank(parent, c->root, p);
        CS_CHECK(cs_blocks_recv(s, peer, &b, v, v + cs_topo_binomial_subtree(v, p)));
        CS_CHECK(cs_sched_round(s));
    }
    for (int i = cs_topo_binomial_nchildren(v, p) - 1; i >= 0; i--) {
        int child = cs_topo_binomial_child(v, p, i);
        int peer = cs_topo_rank(child, c->root, p);
        CS_CHECK(cs_blocks_send(s, peer, &b, child, child + cs_topo_binomial_subtree(child, p)));
    }
    CS_CHECK(cs_sched_round(s));
    CS_CHECK(cs_build_allgather_rd(s, &b, c->root, c->rank, p));
out:
    return rc;
}

const cs_algo_t cs_algo_bcast_scatter_allgather = {
    .name = "bcast/scatter_allgather",
    .coll = CS_COLL_BCAST,
    .desc = "binomial scatter + recursive-doubling allgather",
    .build = build,
};

/* scatter/binomial: blocks flow down a binomial tree, each node passing on its children's
 * subtrees.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B for MPI_Scatter: binomial tree).
 * Positions are q = (rank - root) mod p; a root other than rank 0 first rotates its send buffer
 * into position order in scratch. An inner node receives the blocks of its subtree
 * [q, q+size) as one message, keeps block q and sends each child its subtree.
 * Cost: log2(p) alpha + (p-1) n beta. Rounds: up to 3 per rank (rotate at the root, receive,
 * send to all children at once). Requirements: none. Parameters: none.
 *
 *   p = 4, root 0   round 1 (level 1)         round 2 (level 2)
 *   0               sends C D to 2, B to 1    keeps A
 *   2               receives C D              sends D to 3, keeps C
 *   1, 3            receive B / D
 */
#include "core/algo.h"
#include "core/blocks.h"
#include "topo/topo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs;
    int v = cs_topo_vrank(c->rank, c->root, p);
    int parent = cs_topo_binomial_parent(v, p);
    int nchildren = cs_topo_binomial_nchildren(v, p);
    int size = cs_topo_binomial_subtree(v, p);
    MPI_Aint unit = c->sendcount;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t base = cs_ref(CS_SLOT_SEND, 0);
    cs_blocks_t b;
    if (parent >= 0 && nchildren == 0) { /* a leaf; with p = 1 the root only copies */
        CS_CHECK(cs_sched_recv(s, cs_topo_rank(parent, c->root, p), recv, c->recvcount, &c->recv));
        goto out;
    }
    if (v != 0 || c->root != 0) {
        CS_CHECK(cs_sched_scratch(s, (MPI_Aint)size * unit, &c->send, &base));
    }
    b = cs_blocks_uniform(base, &c->send, unit, (MPI_Aint)p * unit, v);
    if (parent >= 0) {
        CS_CHECK(cs_blocks_recv(s, cs_topo_rank(parent, c->root, p), &b, v, v + size));
    } else if (c->root != 0) {
        /* Ranks [root, p) become positions [0, p-root); ranks [0, root) positions [p-root, p). */
        cs_ref_t send = cs_ref(CS_SLOT_SEND, 0);
        int tail = p - c->root;
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, c->root * unit, &c->send), (int)(tail * unit),
                               &c->send, base, (int)(tail * unit), &c->send));
        CS_CHECK(cs_sched_copy(s, send, (int)(c->root * unit), &c->send,
                               cs_ref_at(base, tail * unit, &c->send), (int)(c->root * unit),
                               &c->send));
    }
    CS_CHECK(cs_sched_round(s));
    for (int i = nchildren - 1; i >= 0; i--) {
        int child = cs_topo_binomial_child(v, p, i);
        CS_CHECK(cs_blocks_send(s, cs_topo_rank(child, c->root, p), &b, child,
                                child + cs_topo_binomial_subtree(child, p)));
    }
    CS_CHECK(cs_sched_copy(s, base, c->sendcount, &c->send, recv, c->recvcount, &c->recv));
out:
    return rc;
}

const cs_algo_t cs_algo_scatter_binomial = {
    .name = "scatter/binomial",
    .coll = CS_COLL_SCATTER,
    .desc = "binomial tree, subtrees passed down as one message",
    .build = build,
};

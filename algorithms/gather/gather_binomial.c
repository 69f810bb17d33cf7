/* gather/binomial: blocks flow up a binomial tree, each inner node forwarding its subtree.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B for MPI_Gather: binomial tree).
 * Positions are q = (rank - root) mod p; a node gathers the blocks of its subtree [q, q+size)
 * in position order in scratch, then sends them to its parent as one message. A root other
 * than rank 0 gathers in position order and rotates into the receive buffer at the end.
 * Cost: log2(p) alpha + (p-1)/p * p n beta = log2(p) alpha + (p-1) n beta.
 * Rounds: 2 per rank (receive from all children at once, then send up) + 1 rotation at a
 * root other than 0. Requirements: none. Parameters: none.
 *
 *   p = 4, root 0   round 1                   round 2
 *   3               -                         sends D to 2
 *   1               -                         sends B to 0
 *   2               receives D from 3         sends C D to 0
 *   0               receives B; C D           A B C D
 * (level by level: 3 -> 2 completes before 2 -> 0.)
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
    MPI_Aint unit = c->recvcount;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0);
    cs_ref_t base = cs_ref(CS_SLOT_RECV, 0);
    cs_blocks_t b;
    if (parent >= 0 && nchildren == 0) { /* a leaf; with p = 1 the root only copies */
        CS_CHECK(cs_sched_send(s, cs_topo_rank(parent, c->root, p), send, c->sendcount, &c->send));
        goto out;
    }
    if (v != 0 || c->root != 0) {
        CS_CHECK(cs_sched_scratch(s, (MPI_Aint)size * unit, &c->recv, &base));
    }
    b = cs_blocks_uniform(base, &c->recv, unit, (MPI_Aint)p * unit, v);
    for (int i = 0; i < nchildren; i++) {
        int child = cs_topo_binomial_child(v, p, i);
        CS_CHECK(cs_blocks_recv(s, cs_topo_rank(child, c->root, p), &b, child,
                                child + cs_topo_binomial_subtree(child, p)));
    }
    CS_CHECK(cs_sched_copy(s, send, c->sendcount, &c->send, base, c->recvcount, &c->recv));
    CS_CHECK(cs_sched_round(s));
    if (parent >= 0) {
        CS_CHECK(cs_blocks_send(s, cs_topo_rank(parent, c->root, p), &b, v, v + size));
    } else if (c->root != 0) {
        /* Positions [0, p-root) are ranks [root, p); positions [p-root, p) are ranks [0, root). */
        cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
        int tail = p - c->root;
        CS_CHECK(cs_sched_copy(s, base, (int)(tail * unit), &c->recv,
                               cs_ref_at(recv, c->root * unit, &c->recv), (int)(tail * unit),
                               &c->recv));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(base, tail * unit, &c->recv), (int)(c->root * unit),
                               &c->recv, recv, (int)(c->root * unit), &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_gather_binomial = {
    .name = "gather/binomial",
    .coll = CS_COLL_GATHER,
    .desc = "binomial tree, subtrees forwarded as one message",
    .build = build,
};

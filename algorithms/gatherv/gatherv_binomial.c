/* gatherv/binomial: blocks flow up a binomial tree, each inner rank forwarding its subtree
 * packed.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B: binomial tree), as gather/binomial, with the
 * blocks' sizes taken from the counts.
 * Positions are q = (rank - root) mod p. A rank at position v gathers the blocks of its subtree
 * [v, v+size) in position order, packed contiguously in scratch (block q at the sum of the
 * counts of [v, q)), then sends them to its parent as one message; the root receives each
 * child's subtree packed and unpacks every block to recvbuf + displs[rank] at the end. A subtree
 * of 0 elements is no message. Inner ranks must know the counts of their subtree, which only
 * the root has: the algorithm needs the counts agreed on every rank with all blocks of one
 * type size (call.h: allcounts, from cs_comm_agree; declared as CS_REQ_ALLCOUNTS) and at most
 * INT_MAX elements in all; otherwise CS_ERR_NOT_APPLICABLE, decided alike on every rank from
 * the agreed counts. Intermediate ranks forward in their own send type (as gather/binomial).
 * Cost: log2(p) alpha + (sum of the blocks outside the root's) beta into the root, each block
 * travelling up to log2(p) hops; scratch: the subtree's blocks on every inner rank.
 * Rounds: 2 (receive from all children at once, then send up) + 1 unpacking round at the root.
 * In place: the root's send side. Parameters: none.
 *
 *   p = 4, root 0   round 1                         round 2
 *   3               -                               sends D to 2
 *   1               -                               sends B to 0
 *   2               receives D from 3 (packed)      sends C D to 0
 *   0               receives B; C D (packed)        unpacks B, C, D to their displs
 * (level by level: 3 -> 2 completes before 2 -> 0.)
 */
#include "builders.h"
#include "topo/topo.h"

#include <limits.h>

MPI_Aint cs_build_v_span(const int *counts, int q0, int q1, int root, int p) {
    MPI_Aint n = 0;
    for (int q = q0; q < q1; q++) {
        n += counts[cs_topo_rank(q, root, p)];
    }
    return n;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, root = c->root;
    const int *cnt = c->allcounts;
    const cs_type_t *t = &c->send; /* this rank's block type (the root's recv type in place) */
    int v = cs_topo_vrank(c->rank, root, p);
    int parent = cs_topo_binomial_parent(v, p);
    int nchildren = cs_topo_binomial_nchildren(v, p);
    int size = cs_topo_binomial_subtree(v, p);
    int first = v == 0 ? 1 : v; /* scratch holds positions [first, v + size) */
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0), tmp = send;
    MPI_Aint held;
    CS_REQUIRE(cnt != NULL && cs_build_v_span(cnt, 0, p, root, p) <= INT_MAX,
               CS_ERR_NOT_APPLICABLE);
    held = cs_build_v_span(cnt, first, v + size, root, p);
    if (nchildren > 0 && held > 0) {
        CS_CHECK(cs_sched_scratch(s, held, t, &tmp));
    }
    for (int i = 0; i < nchildren; i++) {
        int child = cs_topo_binomial_child(v, p, i);
        int end = child + cs_topo_binomial_subtree(child, p);
        MPI_Aint n = cs_build_v_span(cnt, child, end, root, p);
        if (n > 0 && t->size > 0) {
            CS_CHECK(cs_sched_recv(s, cs_topo_rank(child, root, p),
                                   cs_ref_at(tmp, cs_build_v_span(cnt, first, child, root, p), t),
                                   (int)n, t));
        }
    }
    if (parent < 0) { /* the root: its own block, then every other block unpacked */
        if (c->recvcounts[root] > 0) {
            CS_CHECK(cs_sched_copy(s, send, c->sendcount, t,
                                   cs_ref_at(recv, c->displs[root], &c->recv), c->recvcounts[root],
                                   &c->recv));
        }
        CS_CHECK(cs_sched_round(s));
        for (int q = 1; q < p; q++) {
            int r = cs_topo_rank(q, root, p);
            if (cnt[r] > 0) {
                CS_CHECK(cs_sched_copy(s, cs_ref_at(tmp, cs_build_v_span(cnt, 1, q, root, p), t),
                                       cnt[r], t, cs_ref_at(recv, c->displs[r], &c->recv),
                                       c->recvcounts[r], &c->recv));
            }
        }
        goto out;
    }
    if (nchildren == 0) { /* a leaf sends its block as it is */
        if (c->sendcount > 0 && t->size > 0) {
            CS_CHECK(cs_sched_send(s, cs_topo_rank(parent, root, p), send, c->sendcount, t));
        }
        goto out;
    }
    if (c->sendcount > 0) {
        CS_CHECK(cs_sched_copy(s, send, c->sendcount, t, tmp, c->sendcount, t));
    }
    CS_CHECK(cs_sched_round(s));
    if (held > 0 && t->size > 0) {
        CS_CHECK(cs_sched_send(s, cs_topo_rank(parent, root, p), tmp, (int)held, t));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_gatherv_binomial = {
    .name = "gatherv/binomial",
    .coll = CS_COLL_GATHERV,
    .desc = "binomial tree, subtrees forwarded packed (needs the agreed counts)",
    .reqs = CS_REQ_ALLCOUNTS,
    .build = build,
};

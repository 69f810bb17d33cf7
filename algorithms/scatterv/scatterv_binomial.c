/* scatterv/binomial: blocks flow down a binomial tree, each inner rank forwarding its
 * children's subtrees packed.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B: binomial tree), as scatter/binomial, with the
 * blocks' sizes taken from the counts.
 * Positions are q = (rank - root) mod p. The root packs every other rank's block (from
 * sendbuf + displs[rank]) contiguously in position order in scratch (block q at the sum of the
 * counts of [1, q)) and sends each child its subtree as one message; a rank at position v
 * receives its subtree [v, v+size) packed, keeps block v and sends each child its part. A
 * subtree of 0 elements is no message. Inner ranks must know the counts of their subtree, which
 * only the root has: the algorithm needs the counts agreed on every rank with all blocks of
 * one type size (call.h: allcounts, from cs_comm_agree; declared as CS_REQ_ALLCOUNTS) and at
 * most INT_MAX elements in all; otherwise CS_ERR_NOT_APPLICABLE, decided alike on every rank
 * from the agreed counts.
 * Intermediate ranks forward in their own receive type (as scatter/binomial).
 * Cost: log2(p) alpha + (sum of the blocks outside the root's) beta out of the root;
 * scratch: the packed blocks on the root and every inner rank.
 * Rounds: 1 packing round at the root, then per level a receive and a round of sends.
 * In place: the root's receive side. Parameters: none.
 *
 *   p = 4, root 0   round 1              round 2                  round 3
 *   0               packs B C D          sends C D to 2, B to 1   -
 *   2               -                    receives C D (packed)    keeps C, sends D to 3
 *   1, 3            -                    1 receives B             3 receives D
 */
#include "builders.h"
#include "topo/topo.h"

#include <limits.h>

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, root = c->root;
    const int *cnt = c->allcounts;
    const cs_type_t *t = &c->recv; /* this rank's block type (the root's send type in place) */
    int v = cs_topo_vrank(c->rank, root, p);
    int parent = cs_topo_binomial_parent(v, p);
    int nchildren = cs_topo_binomial_nchildren(v, p);
    int size = cs_topo_binomial_subtree(v, p);
    int first = v == 0 ? 1 : v; /* scratch holds positions [first, v + size) */
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0), tmp = recv;
    MPI_Aint held;
    CS_REQUIRE(cnt != NULL && cs_build_v_span(cnt, 0, p, root, p) <= INT_MAX,
               CS_ERR_NOT_APPLICABLE);
    held = cs_build_v_span(cnt, first, v + size, root, p);
    if (nchildren == 0) { /* a leaf receives its block as it is (p = 1: the root copies) */
        if (parent >= 0 && c->recvcount > 0 && t->size > 0) {
            CS_CHECK(cs_sched_recv(s, cs_topo_rank(parent, root, p), recv, c->recvcount, t));
        } else if (parent < 0 && c->sendcounts[root] > 0) {
            CS_CHECK(cs_sched_copy(s, cs_ref_at(send, c->sdispls[root], &c->send),
                                   c->sendcounts[root], &c->send, recv, c->recvcount, t));
        }
        goto out;
    }
    if (held > 0) {
        CS_CHECK(cs_sched_scratch(s, held, t, &tmp));
    }
    if (parent < 0) { /* the root packs the other blocks and copies its own */
        for (int q = 1; q < p; q++) {
            int r = cs_topo_rank(q, root, p);
            if (cnt[r] > 0) {
                CS_CHECK(cs_sched_copy(
                    s, cs_ref_at(send, c->sdispls[r], &c->send), c->sendcounts[r], &c->send,
                    cs_ref_at(tmp, cs_build_v_span(cnt, 1, q, root, p), t), cnt[r], t));
            }
        }
        if (c->sendcounts[root] > 0) {
            CS_CHECK(cs_sched_copy(s, cs_ref_at(send, c->sdispls[root], &c->send),
                                   c->sendcounts[root], &c->send, recv, c->recvcount, t));
        }
    } else if (held > 0 && t->size > 0) {
        CS_CHECK(cs_sched_recv(s, cs_topo_rank(parent, root, p), tmp, (int)held, t));
    }
    CS_CHECK(cs_sched_round(s));
    if (parent >= 0 && c->recvcount > 0) {
        CS_CHECK(cs_sched_copy(s, tmp, c->recvcount, t, recv, c->recvcount, t));
    }
    for (int i = 0; i < nchildren; i++) {
        int child = cs_topo_binomial_child(v, p, i);
        int end = child + cs_topo_binomial_subtree(child, p);
        MPI_Aint n = cs_build_v_span(cnt, child, end, root, p);
        if (n > 0 && t->size > 0) {
            CS_CHECK(cs_sched_send(s, cs_topo_rank(child, root, p),
                                   cs_ref_at(tmp, cs_build_v_span(cnt, first, child, root, p), t),
                                   (int)n, t));
        }
    }
out:
    return rc;
}

const cs_algo_t cs_algo_scatterv_binomial = {
    .name = "scatterv/binomial",
    .coll = CS_COLL_SCATTERV,
    .desc = "binomial tree, subtrees forwarded packed (needs the agreed counts)",
    .reqs = CS_REQ_ALLCOUNTS,
    .build = build,
};

/* scatterv/linear: the root sends every rank its block directly (star).
 *
 * Reference: Hartmann et al., Table 1 (P2P_A: star), as scatter/linear; the "basic linear"
 * scatterv of Open MPI (coll/basic) and MPICH.
 * The root starts one send per other rank, each from that rank's block at displs[rank], and
 * copies its own block (nothing in place). A block of 0 bytes is no message: root and receiver
 * both know it from their own arguments. Cost: (p-1) alpha + (sum of the other blocks) beta out
 * of the root, all sends started at once. Rounds: 1. Requirements: none (no rank needs another's
 * counts). In place: the root's receive side. Parameters: none.
 *
 *   p = 4, root 0   round 1
 *   0               sends B, C, D from displs[1..3], copies A from displs[0]
 *   1, 2, 3         receive their block (a rank with 0 elements receives nothing)
 */
#include "core/algo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0);
    if (c->rank != c->root) {
        if (c->recvcount > 0 && c->recv.size > 0) {
            CS_CHECK(cs_sched_recv(s, c->root, cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv));
        }
        goto out;
    }
    for (int i = 1; i < c->nprocs; i++) {
        int peer = (c->root + i) % c->nprocs;
        if (c->sendcounts[peer] > 0 && c->send.size > 0) {
            CS_CHECK(cs_sched_send(s, peer, cs_ref_at(send, c->sdispls[peer], &c->send),
                                   c->sendcounts[peer], &c->send));
        }
    }
    if (c->sendcounts[c->root] > 0) {
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, c->sdispls[c->root], &c->send),
                               c->sendcounts[c->root], &c->send, cs_ref(CS_SLOT_RECV, 0),
                               c->recvcount, &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_scatterv_linear = {
    .name = "scatterv/linear",
    .coll = CS_COLL_SCATTERV,
    .desc = "the root sends every rank its block (star)",
    .build = build,
};

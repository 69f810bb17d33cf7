/* gatherv/linear: every rank sends its block straight to the root (star).
 *
 * Reference: Hartmann et al., Table 1 (P2P_A: star), as gather/linear; the "basic linear"
 * gatherv of Open MPI (coll/basic) and MPICH.
 * The root posts one receive per other rank, each into that rank's block at displs[rank], and
 * copies its own block (nothing in place). A block of 0 bytes is no message: sender and root
 * both know it from their own arguments (MPI: the sender's signature equals the root's
 * recvcounts[rank] of recvtype). Cost: (p-1) alpha + (sum of the other blocks) beta into the
 * root, all receives posted at once. Rounds: 1. Requirements: none (no rank needs another's
 * counts, so it runs without cs_comm_agree's counts). In place: the root's send side.
 * Parameters: none.
 *
 *   p = 4, root 0   round 1
 *   0               receives B, C, D into displs[1..3], copies A to displs[0]
 *   1, 2, 3         send their block to 0 (a rank with 0 elements sends nothing)
 */
#include "core/algo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    if (c->rank != c->root) {
        if (c->sendcount > 0 && c->send.size > 0) {
            CS_CHECK(cs_sched_send(s, c->root, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send));
        }
        goto out;
    }
    for (int i = 1; i < c->nprocs; i++) {
        int peer = (c->root + i) % c->nprocs;
        if (c->recvcounts[peer] > 0 && c->recv.size > 0) {
            CS_CHECK(cs_sched_recv(s, peer, cs_ref_at(recv, c->displs[peer], &c->recv),
                                   c->recvcounts[peer], &c->recv));
        }
    }
    if (c->recvcounts[c->root] > 0) {
        CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
                               cs_ref_at(recv, c->displs[c->root], &c->recv),
                               c->recvcounts[c->root], &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_gatherv_linear = {
    .name = "gatherv/linear",
    .coll = CS_COLL_GATHERV,
    .desc = "every rank sends its block to the root (star)",
    .build = build,
};

/* gather/linear: every rank sends its block straight to the root (star).
 *
 * Reference: Hartmann et al., Table 1 (P2P_A for MPI_Gather: star).
 * Cost: (p-1)(alpha + n beta) into the root, all receives posted at once. Rounds: 1.
 * Requirements: none. Parameters: none.
 *
 *   p = 4, root 0   round 1
 *   0               receives B, C, D into blocks 1-3, copies A into block 0
 *   1, 2, 3         send their block to 0
 */
#include "core/algo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    if (c->rank != c->root) {
        CS_CHECK(cs_sched_send(s, c->root, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send));
        goto out;
    }
    for (int i = 1; i < c->nprocs; i++) {
        int peer = (c->root + i) % c->nprocs;
        cs_ref_t block =
            cs_ref_at(cs_ref(CS_SLOT_RECV, 0), (MPI_Aint)peer * c->recvcount, &c->recv);
        CS_CHECK(cs_sched_recv(s, peer, block, c->recvcount, &c->recv));
    }
    CS_CHECK(cs_sched_copy(
        s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
        cs_ref_at(cs_ref(CS_SLOT_RECV, 0), (MPI_Aint)c->root * c->recvcount, &c->recv),
        c->recvcount, &c->recv));
out:
    return rc;
}

const cs_algo_t cs_algo_gather_linear = {
    .name = "gather/linear",
    .coll = CS_COLL_GATHER,
    .desc = "every rank sends to the root (star)",
    .build = build,
};

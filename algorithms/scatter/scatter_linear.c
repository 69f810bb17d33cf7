/* scatter/linear: the root sends each rank its block directly (star).
 *
 * Reference: Hartmann et al., Table 1 (P2P_A for MPI_Scatter: star).
 * Cost: (p-1)(alpha + n beta) out of the root, all sends posted at once. Rounds: 1.
 * Requirements: none. Parameters: none.
 *
 *   p = 4, root 0   round 1
 *   0               sends blocks 1-3 to ranks 1-3, copies block 0 to its receive buffer
 *   1, 2, 3         receive their block
 */
#include "core/algo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    if (c->rank != c->root) {
        CS_CHECK(cs_sched_recv(s, c->root, cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv));
        goto out;
    }
    for (int i = 1; i < c->nprocs; i++) {
        int peer = (c->root + i) % c->nprocs;
        cs_ref_t block =
            cs_ref_at(cs_ref(CS_SLOT_SEND, 0), (MPI_Aint)peer * c->sendcount, &c->send);
        CS_CHECK(cs_sched_send(s, peer, block, c->sendcount, &c->send));
    }
    CS_CHECK(cs_sched_copy(
        s, cs_ref_at(cs_ref(CS_SLOT_SEND, 0), (MPI_Aint)c->root * c->sendcount, &c->send),
        c->sendcount, &c->send, cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv));
out:
    return rc;
}

const cs_algo_t cs_algo_scatter_linear = {
    .name = "scatter/linear",
    .coll = CS_COLL_SCATTER,
    .desc = "root sends each rank its block (star)",
    .build = build,
};

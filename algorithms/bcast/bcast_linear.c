/* bcast/linear: the root sends the whole buffer to every other rank (star).
 *
 * Reference: Hartmann et al., "Adaptive Selection of Communication Methods", Table 1 ("star").
 * Cost: (p-1)(alpha + n beta) at the root, all sends posted at once. Rounds: 1.
 * Requirements: none. Parameters: none.
 *
 *   p = 4, root 0   round 1
 *   rank 0          sends to 1, 2, 3
 *   ranks 1-3       receive the buffer
 */
#include "core/algo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_ref_t buf = cs_ref(CS_SLOT_RECV, 0);
    if (c->rank == c->root) {
        for (int i = 1; i < c->nprocs; i++) {
            int peer = (c->root + i) % c->nprocs;
            CS_CHECK(cs_sched_send(s, peer, buf, c->recvcount, &c->recv));
        }
    } else {
        CS_CHECK(cs_sched_recv(s, c->root, buf, c->recvcount, &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_bcast_linear = {
    .name = "bcast/linear",
    .coll = CS_COLL_BCAST,
    .desc = "root sends the buffer to every rank (star)",
    .build = build,
};

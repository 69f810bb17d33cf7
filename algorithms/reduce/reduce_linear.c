/* reduce/linear: every rank sends its vector to the root, which reduces in rank order (star).
 *
 * Reference: Hartmann et al., Table 1 (P2P_A for MPI_Reduce: star).
 * The root collects all p vectors in scratch and computes x0 op (x1 op (... op x(p-1))), so the
 * result is in rank order and the algorithm is correct for non-commutative ops.
 * Cost: (p-1)(alpha + n beta) into the root + (p-1) n gamma. Rounds: 1 (+1 local).
 * Requirements: none. Parameters: none. Scratch at the root: p * n.
 *
 *   p = 3, root 0   round 1                    local
 *   0               receives x1, x2            r = x2; r = x1 op r; r = x0 op r
 *   1, 2            send x1 / x2 to 0
 */
#include "core/algo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0);
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t all;
    if (c->rank != c->root) {
        CS_CHECK(cs_sched_send(s, c->root, send, c->sendcount, &c->send));
        goto out;
    }
    CS_CHECK(cs_sched_scratch(s, (MPI_Aint)p * c->sendcount, &c->send, &all));
    for (int i = 0; i < p; i++) {
        cs_ref_t block = cs_ref_at(all, (MPI_Aint)i * c->sendcount, &c->send);
        if (i == c->root) {
            CS_CHECK(cs_sched_copy(s, send, c->sendcount, &c->send, block, c->sendcount, &c->send));
        } else {
            CS_CHECK(cs_sched_recv(s, i, block, c->sendcount, &c->send));
        }
    }
    CS_CHECK(cs_sched_round(s));
    CS_CHECK(cs_sched_copy(s, cs_ref_at(all, (MPI_Aint)(p - 1) * c->sendcount, &c->send),
                           c->sendcount, &c->send, recv, c->recvcount, &c->recv));
    for (int i = p - 2; i >= 0; i--) {
        cs_ref_t block = cs_ref_at(all, (MPI_Aint)i * c->sendcount, &c->send);
        CS_CHECK(cs_sched_reduce(s, block, recv, c->recvcount, &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_reduce_linear = {
    .name = "reduce/linear",
    .coll = CS_COLL_REDUCE,
    .desc = "every rank sends to the root, reduced in rank order (star)",
    .build = build,
};

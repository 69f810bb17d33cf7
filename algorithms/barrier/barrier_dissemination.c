/* barrier/dissemination: ceil(log2 p) rounds of one empty message each.
 *
 * Reference: Hensgen, Finkel, Manber, "Two Algorithms for Barrier Synchronization", Int. J.
 * Parallel Programming 17(1), 1988 (dissemination barrier); MPICH's
 * MPIR_Barrier_intra_dissemination. In round i rank k sends an empty message to (k + 2^i) mod p and
 * receives one from (k - 2^i) mod p. After round i a rank has heard, directly or through others,
 * from the 2^(i+1) ranks below it (mod p), so after ceil(log2 p) rounds from all: nobody leaves
 * before everyone has entered. Cost: ceil(log2 p) alpha on every rank, any p. Rounds: ceil(log2 p).
 * Requirements: none. Parameters: none.
 *
 *   p = 5 (who rank k has heard from)   round 1 (+1)   round 2 (+2)      round 3 (+4)
 *   0                                    4 0            2 3 4 0           all
 *   1                                    0 1            3 4 0 1           all
 *   k                                    k-1 k          k-3 .. k          k-7 .. k: all
 */
#include "core/algo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank;
    cs_ref_t token[2]; /* empty messages: separate buffers for what is sent and received */
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[0]));
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[1]));
    for (long dist = 1; dist < p; dist *= 2) {
        CS_CHECK(cs_sched_send(s, (int)((rank + dist) % p), token[0], 0, &c->recv));
        CS_CHECK(cs_sched_recv(s, (int)((rank - dist + p) % p), token[1], 0, &c->recv));
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_barrier_dissemination = {
    .name = "barrier/dissemination",
    .coll = CS_COLL_BARRIER,
    .desc = "dissemination, ceil(log2 p) rounds of one empty message",
    .build = build,
};

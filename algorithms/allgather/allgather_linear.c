/* allgather/linear: every rank sends its block to every other rank, all in one round.
 *
 * Reference: the direct (all-at-once) allgather that LibNBC and the MPI libraries use for small
 * messages; the send order is the ideal schedule of Hoefler and Schneider's alltoall example
 * (section II-A3): in turn i rank r sends to (r + i) mod p and receives from (r - i) mod p, so
 * no rank is every sender's first target.
 * Cost: (p-1) alpha + (p-1) n/p beta per rank, but all p-1 messages in flight at once: one
 * round of latency instead of log2(p) (recursive doubling) or p-1 (ring); best where latency
 * and dependent rounds dominate (small blocks; oversubscribed processes, where each dependent
 * round waits for a scheduler slice).
 * Rounds: 1 (+1 local copy). Requirements: none. Parameters: none. The same builder serves
 * allgatherv/linear (indexed block layout).
 *
 *   p = 3, one round   sends         receives
 *   0                  A -> 1, 2     B, C
 *   1                  B -> 2, 0     C, A
 *   2                  C -> 0, 1     A, B
 */
#include "builders.h"

int cs_build_allgather_linear(cs_sched_t *s, const cs_blocks_t *b, int rank, int p) {
    int rc = CS_OK;
    for (int i = 1; i < p; i++) {
        int to = (rank + i) % p;
        int from = (rank - i + p) % p;
        CS_CHECK(cs_blocks_send(s, to, b, rank, rank + 1));
        CS_CHECK(cs_blocks_recv(s, from, b, from, from + 1));
    }
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_blocks_t b;
    CS_CHECK(cs_build_allgather_own(s, c, &b));
    CS_CHECK(cs_build_allgather_linear(s, &b, c->rank, c->nprocs));
out:
    return rc;
}

const cs_algo_t cs_algo_allgather_linear = {
    .name = "allgather/linear",
    .coll = CS_COLL_ALLGATHER,
    .desc = "every block to every rank in one round",
    .build = build,
};

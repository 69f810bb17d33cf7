/* allgatherv/linear: the linear allgather (allgather_linear.c) over blocks of per-rank counts.
 *
 * Reference: as allgather/linear. Every rank sends its block to every other rank and receives
 * every other block at its displacement, all in one round; a block of count 0 is still one
 * (empty) message, as in the other allgatherv algorithms.
 * Cost: (p-1) alpha + sum of the other blocks' sizes beta per rank, one round of latency.
 * Rounds: 1 (+1 local copy). Requirements: none. Parameters: none.
 * Step table: as allgather/linear, with blocks of recvcounts[k] at displs[k].
 */
#include "builders.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_blocks_t b;
    CS_CHECK(cs_build_allgather_own(s, c, &b));
    CS_CHECK(cs_build_allgather_linear(s, &b, c->rank, c->nprocs));
out:
    return rc;
}

const cs_algo_t cs_algo_allgatherv_linear = {
    .name = "allgatherv/linear",
    .coll = CS_COLL_ALLGATHERV,
    .desc = "every block to every rank in one round",
    .build = build,
};

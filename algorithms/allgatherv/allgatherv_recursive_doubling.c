/* allgatherv/recursive_doubling: the hypercube allgather (allgather_recursive_doubling.c) over
 * blocks of per-rank counts, any p.
 *
 * Reference: Hartmann et al., Table 1 (hypercube); Thakur, Rabenseifner, Gropp 2005.
 * Blocks sit at arbitrary displacements, so a range of blocks moves as one message per block
 * within each round: log2(p') rounds (+2 when p is not a power of two) instead of the ring's
 * p-1, at the price of more messages per round.
 * Cost: log2(p') rounds of alpha-latency, each block crossing log2(p') links.
 * Requirements: none. Parameters: none.
 * Step table: as allgather/recursive_doubling, with blocks of recvcounts[k] at displs[k].
 */
#include "builders.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_blocks_t b;
    CS_CHECK(cs_build_allgather_own(s, c, &b));
    CS_CHECK(cs_build_allgather_rd(s, &b, 0, c->rank, c->nprocs));
out:
    return rc;
}

const cs_algo_t cs_algo_allgatherv_recursive_doubling = {
    .name = "allgatherv/recursive_doubling",
    .coll = CS_COLL_ALLGATHERV,
    .desc = "hypercube (recursive doubling), one message per block, any p",
    .build = build,
};

/* allgatherv/ring: the ring allgather (allgather_ring.c) over blocks of per-rank counts.
 *
 * Reference: Hartmann et al., Table 1 (ring), as used for MPI_Allgatherv in their PAB
 * application (Section 5.2).
 * Cost: sum over the p-1 steps of alpha + (block passed on) beta; the largest block travels
 * p-1 hops. Rounds: p-1 (+1 local copy). Requirements: none. Parameters: none.
 * Step table: as allgather/ring, with blocks of recvcounts[k] elements at displs[k].
 */
#include "builders.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_blocks_t b;
    CS_CHECK(cs_build_allgather_own(s, c, &b));
    CS_CHECK(cs_build_allgather_ring(s, &b, c->rank, c->nprocs));
out:
    return rc;
}

const cs_algo_t cs_algo_allgatherv_ring = {
    .name = "allgatherv/ring",
    .coll = CS_COLL_ALLGATHERV,
    .desc = "ring, p-1 steps",
    .build = build,
};

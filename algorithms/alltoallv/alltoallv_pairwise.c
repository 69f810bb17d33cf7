/* alltoallv/pairwise: p-1 steps, one exchange partner per step.
 *
 * Reference: Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication Operations
 * in MPICH" (2005), Section 4.5 (pairwise exchange); Open MPI's coll/base pairwise alltoallv.
 * As alltoall/pairwise with per-block counts and displacements: in step i (1 <= i < p) rank k
 * exchanges one block with k XOR i when p is a power of two, otherwise it sends to (k+i) mod p
 * and receives from (k-i) mod p. A block of 0 bytes is no message (both ends know it). Its own
 * block is copied locally first. No rank needs another's counts.
 * Cost: (p-1) alpha + (bytes sent) beta, one message in flight per rank and direction.
 * Rounds: p-1 (+1 copy of the receive buffer for an in-place call). Requirements: none.
 * In place: yes, through a scratch copy of the receive buffer's blocks. Parameters: none.
 *
 *   p = 4 (XOR)   step 1      step 2      step 3
 *   0             <-> 1       <-> 2       <-> 3
 *   1             <-> 0       <-> 3       <-> 2
 *   2             <-> 3       <-> 0       <-> 1
 *   3             <-> 2       <-> 1       <-> 0
 */
#include "builders.h"
#include "topo/topo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank;
    int pof2 = cs_topo_is_pof2(p);
    cs_ref_t base;
    MPI_Aint lo;
    CS_CHECK(cs_build_alltoallv_source(s, c, &base, &lo));
    if (!c->in_place && c->recvcounts[rank] > 0) {
        CS_CHECK(cs_sched_copy(s, cs_ref_at(base, c->sdispls[rank], &c->send), c->sendcounts[rank],
                               &c->send,
                               cs_ref_at(cs_ref(CS_SLOT_RECV, 0), c->displs[rank], &c->recv),
                               c->recvcounts[rank], &c->recv));
    }
    for (int i = 1; i < p; i++) {
        int to = pof2 ? rank ^ i : (rank + i) % p;
        int from = pof2 ? rank ^ i : (rank - i + p) % p;
        CS_CHECK(cs_build_alltoallv_pair(s, c, base, lo, to, from));
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_alltoallv_pairwise = {
    .name = "alltoallv/pairwise",
    .coll = CS_COLL_ALLTOALLV,
    .desc = "pairwise exchange, p-1 steps (XOR partners for powers of two)",
    .build = build,
};

/* alltoall/pairwise: p-1 steps, one exchange partner per step.
 *
 * Reference: Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication Operations
 * in MPICH" (2005), Section 4.5 (pairwise exchange for long messages); Open MPI's
 * coll/base pairwise alltoall.
 * In step i (1 <= i < p) rank k exchanges one block: with k XOR i when p is a power of two
 * (every step is a perfect matching, both blocks travel between the same pair), otherwise it
 * sends to (k+i) mod p and receives from (k-i) mod p. Its own block is copied locally.
 * Cost: (p-1)(alpha + n beta) (n = bytes per block), one message in flight per rank, which
 * avoids the contention of alltoall/linear for large blocks. Rounds: p-1 (+1 copy of the receive
 * buffer for an in-place call). Requirements: none. In place: yes (through scratch).
 * Parameters: none.
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
    cs_blocks_t src, dst = cs_build_alltoall_recv(c);
    CS_CHECK(cs_build_alltoall_source(s, c, &src));
    if (!c->in_place) {
        CS_CHECK(cs_blocks_copy(s, &src, &dst, rank, rank + 1));
    }
    for (int i = 1; i < p; i++) {
        int to = pof2 ? rank ^ i : (rank + i) % p;
        int from = pof2 ? rank ^ i : (rank - i + p) % p;
        CS_CHECK(cs_blocks_recv(s, from, &dst, from, from + 1));
        CS_CHECK(cs_blocks_send(s, to, &src, to, to + 1));
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_alltoall_pairwise = {
    .name = "alltoall/pairwise",
    .coll = CS_COLL_ALLTOALL,
    .desc = "pairwise exchange, p-1 steps (XOR partners for powers of two)",
    .build = build,
};

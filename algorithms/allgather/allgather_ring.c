/* allgather/ring: p-1 steps around a ring.
 *
 * Reference: Hartmann et al., Table 1 (P2P_A for MPI_Allgather: ring).
 * In step i rank k sends block (k - i) mod p to k+1 and receives block (k - i - 1) mod p from
 * k-1, directly in the receive buffer.
 * Cost: (p-1)(alpha + n/p beta). Rounds: p-1 (+1 local copy). Requirements: none.
 * Parameters: none. The same builder serves allgatherv/ring (indexed block layout).
 *
 *   p = 3     start   step 1        step 2
 *   0         A       A . C <- 2    A B C <- 2
 *   1         B       A B . <- 0    A B C <- 0
 *   2         C       . B C <- 1    A B C <- 1
 */
#include "builders.h"
#include "topo/topo.h"

int cs_build_allgather_ring(cs_sched_t *s, const cs_blocks_t *b, int rank, int p) {
    int rc = CS_OK;
    int left = cs_topo_ring_left(rank, p);
    int right = cs_topo_ring_right(rank, p);
    for (int i = 0; i < p - 1; i++) {
        int out_block = (rank - i + p) % p;
        int in_block = (rank - i - 1 + 2 * p) % p;
        CS_CHECK(cs_blocks_send(s, right, b, out_block, out_block + 1));
        CS_CHECK(cs_blocks_recv(s, left, b, in_block, in_block + 1));
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

int cs_build_allgather_own(cs_sched_t *s, const cs_call_t *c, cs_blocks_t *b) {
    int rc = CS_OK;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    MPI_Aint at;
    int count;
    if (c->coll == CS_COLL_ALLGATHERV) {
        *b = cs_blocks_indexed(recv, &c->recv, c->recvcounts, c->displs);
        at = c->displs[c->rank];
        count = c->recvcounts[c->rank];
    } else {
        *b = cs_blocks_uniform(recv, &c->recv, c->recvcount, (MPI_Aint)c->nprocs * c->recvcount, 0);
        at = (MPI_Aint)c->rank * c->recvcount;
        count = c->recvcount;
    }
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
                           cs_ref_at(recv, at, &c->recv), count, &c->recv));
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_blocks_t b;
    CS_CHECK(cs_build_allgather_own(s, c, &b));
    CS_CHECK(cs_build_allgather_ring(s, &b, c->rank, c->nprocs));
out:
    return rc;
}

const cs_algo_t cs_algo_allgather_ring = {
    .name = "allgather/ring",
    .coll = CS_COLL_ALLGATHER,
    .desc = "ring, p-1 steps",
    .build = build,
};

/* alltoall/linear: every send and every receive at once.
 *
 * Reference: the "basic linear" alltoall of Open MPI (coll/basic) and MPICH; Thakur,
 * Rabenseifner, Gropp, "Optimization of Collective Communication Operations in MPICH" (2005),
 * Section 4.5 (the isend/irecv algorithm for medium messages).
 * Rank k posts its p-1 receives and p-1 sends in one round, the i-th to (k+i) mod p and from
 * (k-i) mod p so that not every rank talks to rank 0 first, and copies its own block locally.
 * Cost: (p-1)(alpha + n beta) when messages are serialised, alpha + (p-1) n beta when the
 * network overlaps them all (n = bytes per block). Rounds: 1 (+1 copy of the receive buffer for
 * an in-place call). Requirements: none. In place: yes (through scratch). Parameters: none.
 *
 *   p = 3 (block "ij": from i to j)   start        after the round
 *   0                                  00 01 02     00 10 20
 *   1                                  10 11 12     01 11 21
 *   2                                  20 21 22     02 12 22
 */
#include "builders.h"

cs_blocks_t cs_build_alltoall_recv(const cs_call_t *c) {
    return cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &c->recv, c->recvcount,
                             (MPI_Aint)c->nprocs * c->recvcount, 0);
}

int cs_build_alltoall_source(cs_sched_t *s, const cs_call_t *c, cs_blocks_t *src) {
    int rc = CS_OK;
    MPI_Aint total = (MPI_Aint)c->nprocs * c->recvcount;
    cs_blocks_t recv = cs_build_alltoall_recv(c);
    cs_ref_t tmp;
    if (!c->in_place) {
        *src = cs_blocks_uniform(cs_ref(CS_SLOT_SEND, 0), &c->send, c->sendcount,
                                 (MPI_Aint)c->nprocs * c->sendcount, 0);
        return CS_OK;
    }
    CS_CHECK(cs_sched_scratch(s, total, &c->recv, &tmp));
    *src = cs_blocks_uniform(tmp, &c->recv, c->recvcount, total, 0);
    CS_CHECK(cs_blocks_copy(s, &recv, src, 0, c->nprocs));
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank;
    cs_blocks_t src, dst = cs_build_alltoall_recv(c);
    CS_CHECK(cs_build_alltoall_source(s, c, &src));
    for (int i = 1; i < p; i++) {
        int to = (rank + i) % p, from = (rank - i + p) % p;
        CS_CHECK(cs_blocks_recv(s, from, &dst, from, from + 1));
        CS_CHECK(cs_blocks_send(s, to, &src, to, to + 1));
    }
    if (!c->in_place) {
        CS_CHECK(cs_blocks_copy(s, &src, &dst, rank, rank + 1));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_alltoall_linear = {
    .name = "alltoall/linear",
    .coll = CS_COLL_ALLTOALL,
    .desc = "all p-1 sends and receives at once",
    .build = build,
};

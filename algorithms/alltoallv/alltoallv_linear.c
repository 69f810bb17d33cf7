/* alltoallv/linear: every send and every receive at once.
 *
 * Reference: the "basic linear" alltoallv of Open MPI (coll/basic) and MPICH (isend/irecv),
 * as alltoall/linear with per-block counts and displacements.
 * Rank k posts its p-1 receives and p-1 sends in one round, the i-th to (k+i) mod p and from
 * (k-i) mod p, and copies its own block locally. A block of 0 bytes is no message: sender and
 * receiver both know it (MPI: sendcounts[j] on k matches recvcounts[k] on j). No rank needs
 * another's counts. Cost: (p-1) alpha + (bytes sent) beta when messages are serialised.
 * Rounds: 1 (+1 copy of the receive buffer for an in-place call). Requirements: none.
 * In place: yes, through a scratch copy of the receive buffer's blocks (the span from the
 * lowest to the end of the highest block). Parameters: none.
 *
 *   p = 3 (block "ij": from i to j, of any size)   start        after the round
 *   0                                               00 01 02     00 10 20
 *   1                                               10 11 12     01 11 21
 *   2                                               20 21 22     02 12 22
 */
#include "builders.h"

int cs_build_alltoallv_source(cs_sched_t *s, const cs_call_t *c, cs_ref_t *base, MPI_Aint *lo) {
    int rc = CS_OK;
    MPI_Aint low = 0, high = 0;
    int any = 0;
    *base = cs_ref(CS_SLOT_SEND, 0);
    *lo = 0;
    if (!c->in_place) {
        return CS_OK;
    }
    for (int j = 0; j < c->nprocs; j++) {
        if (c->recvcounts[j] > 0) {
            MPI_Aint a = c->displs[j], b = a + c->recvcounts[j];
            low = !any || a < low ? a : low;
            high = !any || b > high ? b : high;
            any = 1;
        }
    }
    if (!any) {
        return CS_OK;
    }
    CS_CHECK(cs_sched_scratch(s, high - low, &c->recv, base));
    for (int j = 0; j < c->nprocs; j++) {
        if (c->recvcounts[j] > 0) {
            CS_CHECK(cs_sched_copy(s, cs_ref_at(cs_ref(CS_SLOT_RECV, 0), c->displs[j], &c->recv),
                                   c->recvcounts[j], &c->recv,
                                   cs_ref_at(*base, c->displs[j] - low, &c->recv), c->recvcounts[j],
                                   &c->recv));
        }
    }
    CS_CHECK(cs_sched_round(s));
    *lo = low;
out:
    return rc;
}

int cs_build_alltoallv_pair(cs_sched_t *s, const cs_call_t *c, cs_ref_t base, MPI_Aint lo, int to,
                            int from) {
    int rc = CS_OK;
    if (c->recvcounts[from] > 0 && c->recv.size > 0) {
        CS_CHECK(cs_sched_recv(s, from,
                               cs_ref_at(cs_ref(CS_SLOT_RECV, 0), c->displs[from], &c->recv),
                               c->recvcounts[from], &c->recv));
    }
    if (c->sendcounts[to] > 0 && c->send.size > 0) {
        CS_CHECK(cs_sched_send(s, to, cs_ref_at(base, c->sdispls[to] - lo, &c->send),
                               c->sendcounts[to], &c->send));
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank;
    cs_ref_t base;
    MPI_Aint lo;
    CS_CHECK(cs_build_alltoallv_source(s, c, &base, &lo));
    for (int i = 1; i < p; i++) {
        CS_CHECK(cs_build_alltoallv_pair(s, c, base, lo, (rank + i) % p, (rank - i + p) % p));
    }
    if (!c->in_place && c->recvcounts[rank] > 0) {
        CS_CHECK(cs_sched_copy(s, cs_ref_at(base, c->sdispls[rank], &c->send), c->sendcounts[rank],
                               &c->send,
                               cs_ref_at(cs_ref(CS_SLOT_RECV, 0), c->displs[rank], &c->recv),
                               c->recvcounts[rank], &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_alltoallv_linear = {
    .name = "alltoallv/linear",
    .coll = CS_COLL_ALLTOALLV,
    .desc = "all p-1 sends and receives at once",
    .build = build,
};

/* allreduce/linear: every rank sends its whole vector to every other rank in one round, then
 * reduces the p vectors locally in rank order.
 *
 * Reference: the direct small-message allreduce (an allgather of the vectors followed by a
 * local reduction); the send order is that of allgather/linear ((r + i) mod p in turn i).
 * Every rank reduces x_0 op x_1 op ... op x_{p-1} left to right itself, so the result is the
 * same on every rank and correct for non-commutative ops.
 * Cost: (p-1)(alpha + n beta) per rank with all messages in flight at once, and (p-1) n gamma:
 * one round of latency instead of log2(p) dependent exchanges, at p-1 times the volume. For
 * small vectors only: it needs p n scratch and is not applicable when p n exceeds
 * CS_ALLREDUCE_LINEAR_MAX_SCRATCH bytes.
 * Rounds: 2 (the exchange with a local copy of the own vector, then the local reduction).
 * Requirements: p n <= CS_ALLREDUCE_LINEAR_MAX_SCRATCH bytes. Parameters: none. Scratch: p n.
 *
 *   p = 3     round 1: send, receive        round 2: reduce in rank order
 *   0         x0 -> 1, 2; x1, x2 in         x0 op x1 op x2
 *   1         x1 -> 2, 0; x2, x0 in         x0 op x1 op x2
 *   2         x2 -> 0, 1; x0, x1 in         x0 op x1 op x2
 */
#include "core/algo.h"

/* The largest scratch (p vectors) this algorithm reserves, in bytes. */
#define CS_ALLREDUCE_LINEAR_MAX_SCRATCH (1 << 20)

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs;
    int rank = c->rank;
    int count = c->recvcount;
    const cs_type_t *t = &c->recv;
    cs_ref_t acc = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t all;
    CS_REQUIRE((double)p * (double)c->bytes <= CS_ALLREDUCE_LINEAR_MAX_SCRATCH,
               CS_ERR_NOT_APPLICABLE);
    CS_CHECK(cs_sched_scratch(s, (MPI_Aint)p * count, t, &all));
    for (int i = 1; i < p; i++) {
        int to = (rank + i) % p;
        int from = (rank - i + p) % p;
        CS_CHECK(cs_sched_send(s, to, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send));
        CS_CHECK(cs_sched_recv(s, from, cs_ref_at(all, (MPI_Aint)from * count, t), count, t));
    }
    /* After the round's messages: the own vector into its slot (in place, the send data is
     * the receive buffer, which this round never writes). */
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
                           cs_ref_at(all, (MPI_Aint)rank * count, t), count, t));
    CS_CHECK(cs_sched_round(s));
    CS_CHECK(cs_sched_copy(s, all, count, t, acc, count, t));
    for (int j = 1; j < p; j++) {
        CS_CHECK(cs_sched_reduce_ordered(s, acc, cs_ref_at(all, (MPI_Aint)j * count, t), 0,
                                         c->commutative, count, t));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_allreduce_linear = {
    .name = "allreduce/linear",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "every vector to every rank in one round, reduced locally in rank order",
    .build = build,
};

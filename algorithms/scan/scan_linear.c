/* scan/linear: the prefix passed along a chain of ranks, 0 -> 1 -> ... -> p-1.
 *
 * Reference: the linear scan of Open MPI's coll/basic (mca_coll_basic_scan_intra) and MPICH's
 * MPIR_Scan for non-commutative ops; Hartmann et al., Table 1 (P2P_A: linear).
 * Rank r receives x_0 op ... op x_(r-1) from r-1, puts it left of its own x_r (in = the lower
 * ranks, inout = own, as MPI_Reduce_local), and passes x_0 op ... op x_r on to r+1. Every
 * partial result is a prefix in rank order: correct for non-commutative ops.
 * Inclusive (scan): rank r ends with x_0 op ... op x_r. Exclusive (exscan, exscan_linear.c):
 * rank r ends with x_0 op ... op x_(r-1); rank 0's receive buffer is undefined in MPI and left
 * untouched here.
 * Cost: (p-1)(alpha + n beta + n gamma) until rank p-1 has its result (a pipeline of p-1
 * dependent steps; each rank sends and receives one vector).
 * Rounds per rank: 2 (receive and reduce, then send on); rank 0: 1.
 * Requirements: none (any p, any op). Parameters: none.
 * Scratch: n (scan; exscan: n, 2n in place).
 *
 *   p = 4, scan   round 1                     round 2
 *   0             send x0 to 1; r = x0
 *   1             receive x0; r = x0 op x1    send r to 2
 *   2             (waits for 1)               receive; r = (x0 op x1) op x2; then send to 3
 *   3             (waits for 2)               ... r = x0 op x1 op x2 op x3
 *   exscan: rank r keeps what it received (rank 1: x0, rank 2: x0 op x1, rank 3: x0 op x1 op
 *   x2) and passes on the prefix including its own vector; rank 0 keeps nothing.
 */
#include "builders.h"

int cs_build_scan_linear(cs_sched_t *s, const cs_call_t *c, int exclusive) {
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank, count = c->recvcount;
    const cs_type_t *t = &c->recv;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t prev = recv; /* where x_0 op ... op x_(r-1) arrives */
    cs_ref_t acc = recv;  /* x_0 op ... op x_r, passed on to rank + 1 */
    int last = rank == p - 1;
    if (rank == 0) {
        if (!last) {
            CS_CHECK(cs_sched_send(s, 1, send, c->sendcount, &c->send));
        }
        if (!exclusive) {
            CS_CHECK(cs_sched_copy(s, send, c->sendcount, &c->send, recv, count, t));
        }
        goto out;
    }
    if (!exclusive) {
        CS_CHECK(cs_sched_scratch(s, count, t, &prev));
    } else if (!last) {
        CS_CHECK(cs_sched_scratch(s, count, t, &acc));
        if (c->in_place) { /* the receive buffer holds x_r until acc has it */
            CS_CHECK(cs_sched_scratch(s, count, t, &prev));
        }
    }
    CS_CHECK(cs_sched_recv(s, rank - 1, prev, count, t));
    /* After the receive: acc = prev op x_r; in place the copy of x_r comes before prev
     * overwrites the receive buffer. */
    if (!exclusive || !last) {
        CS_CHECK(cs_sched_copy(s, send, c->sendcount, &c->send, acc, count, t));
        CS_CHECK(cs_sched_reduce(s, prev, acc, count, t));
    }
    if (exclusive && prev.slot != CS_SLOT_RECV) {
        CS_CHECK(cs_sched_copy(s, prev, count, t, recv, count, t));
    }
    if (!last) {
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_send(s, rank + 1, acc, count, t));
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    return cs_build_scan_linear(s, c, 0);
}

const cs_algo_t cs_algo_scan_linear = {
    .name = "scan/linear",
    .coll = CS_COLL_SCAN,
    .desc = "chain 0 -> 1 -> ... -> p-1, prefixes in rank order",
    .build = build,
};

/* scan/recursive_doubling: Hillis-Steele prefix doubling, any p, rank order kept.
 *
 * Reference: Hillis, Steele, "Data Parallel Algorithms", CACM 29(12), 1986 (the doubling
 * prefix sum); Open MPI's ompi_coll_base_scan_intra_recursivedoubling and MPICH's
 * MPIR_Scan_intra_recursive_doubling do the same with hypercube partners and a commutative op.
 * In step k (d = 2^k, while d < p) rank r sends its partial result, the reduction of the ranks
 * [max(0, r-d+1), r], to r+d (when r+d < p) and receives that of [max(0, r-2d+1), r-d] from
 * r-d (when r-d >= 0), which it puts left of its own (in = the lower ranks, inout = own, as
 * MPI_Reduce_local). Each partial result covers a contiguous range of ranks and the received
 * one is always the lower range, so the order is the rank order: correct for non-commutative
 * ops. After ceil(log2 p) steps rank r covers [0, r].
 * Inclusive (scan): the partial result is the result (the receive buffer). Exclusive (exscan,
 * exscan_recursive_doubling.c): the result covers [max(0, r-d+1), r-1] and is kept apart from
 * the partial result (scratch), both growing by the received range; a partial result that no
 * later step sends is not updated; rank 0's receive buffer is undefined in MPI and left
 * untouched.
 * Cost: ceil(log2 p)(alpha + n beta + n gamma) (exscan: up to 2 n gamma per step).
 * Rounds: ceil(log2 p). Requirements: none (any p, any op). Parameters: none.
 * Scratch: n (exscan: 2n).
 *
 *   p = 4, scan   step 1 (d = 1)        step 2 (d = 2)
 *   0             x0                    x0
 *   1             x0 op x1              x0 op x1
 *   2             x1 op x2              x0 op (x1 op x2)
 *   3             x2 op x3              (x0 op x1) op (x2 op x3)
 *   exscan results: after step 1 rank r holds x_(r-1) (rank 0 nothing); after step 2 rank 2
 *   x0 op x1, rank 3 x0 op (x1 op x2).
 */
#include "builders.h"

int cs_build_scan_rd(cs_sched_t *s, const cs_call_t *c, int exclusive) {
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank, count = c->recvcount;
    const cs_type_t *t = &c->recv;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t partial = recv; /* the reduction of [r-d+1, r], sent on */
    cs_ref_t tmp;            /* the partial result received */
    CS_CHECK(cs_sched_scratch(s, count, t, &tmp));
    if (exclusive) {
        CS_CHECK(cs_sched_scratch(s, count, t, &partial));
    }
    for (long d = 1; d == 1 || d < p; d *= 2) {
        int from = rank - d >= 0;
        /* The partial result is sent again in a later step: it must grow now. */
        int grow = !exclusive || rank + 2 * d < p;
        /* Exscan, step 1, not in place: x_(r-1) is the result as it arrives. */
        cs_ref_t in = exclusive && d == 1 && !c->in_place ? recv : tmp;
        if (rank + d < p) { /* step 1 sends x_r from the send slot: partial is not set yet */
            CS_CHECK(d == 1 ? cs_sched_send(s, (int)(rank + d), send, c->sendcount, &c->send)
                            : cs_sched_send(s, (int)(rank + d), partial, count, t));
        }
        if (from) {
            CS_CHECK(cs_sched_recv(s, (int)(rank - d), in, count, t));
        }
        /* After the round's messages. In place (send slot = receive buffer) x_r is copied
         * into the partial result before the exscan result overwrites it. */
        if (d == 1 && grow) {
            CS_CHECK(cs_sched_copy(s, send, c->sendcount, &c->send, partial, count, t));
        }
        if (from && exclusive) {
            if (d == 1) {
                if (in.slot != CS_SLOT_RECV) {
                    CS_CHECK(cs_sched_copy(s, in, count, t, recv, count, t));
                }
            } else {
                CS_CHECK(cs_sched_reduce(s, in, recv, count, t));
            }
        }
        if (from && grow) {
            CS_CHECK(cs_sched_reduce(s, in, partial, count, t));
        }
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    return cs_build_scan_rd(s, c, 0);
}

const cs_algo_t cs_algo_scan_recursive_doubling = {
    .name = "scan/recursive_doubling",
    .coll = CS_COLL_SCAN,
    .desc = "Hillis-Steele prefix doubling, ceil(log2 p) steps, rank order, any p",
    .build = build,
};

/* allreduce/recursive_doubling: hypercube exchange of full vectors, any p.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B for MPI_Allreduce: hypercube); Thakur,
 * Rabenseifner, Gropp 2005. With p' = largest power of two <= p and r = p - p', rank 2i
 * (i < r) first sends its vector to 2i+1 and sits out; the p' fold ranks exchange and reduce
 * with partner w XOR 2^k in step k; finally 2i+1 returns the result to 2i. Fold ranks keep rank
 * order and each partial result covers a contiguous rank range, so the lower range is always
 * the left operand: correct for non-commutative ops (one extra local copy per step).
 * Cost: log2(p')(alpha + n beta + n gamma), plus 2(alpha + n beta) + n gamma when p != p'.
 * Rounds: log2(p') (+2 when p is not a power of two) (+1 local copy).
 * Requirements: none. Parameters: none. Scratch: n.
 *
 *   p = 4     step 1 (xor 1)        step 2 (xor 2)
 *   0         x0 op x1              (x0 op x1) op (x2 op x3)
 *   1         x0 op x1              same
 *   2         x2 op x3              same
 *   3         x2 op x3              same
 */
#include "core/algo.h"
#include "topo/topo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs;
    int rank = c->rank;
    int count = c->recvcount;
    const cs_type_t *t = &c->recv;
    int r = cs_topo_fold_extra(p);
    int pof2 = p - r;
    int w = cs_topo_fold_rank(rank, p);
    cs_ref_t acc = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t tmp;
    CS_CHECK(cs_sched_scratch(s, count, t, &tmp));
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send, acc, count, t));
    CS_CHECK(cs_sched_round(s));
    if (rank < 2 * r) {
        if (rank % 2 == 0) {
            CS_CHECK(cs_sched_send(s, rank + 1, acc, count, t));
        } else {
            CS_CHECK(cs_sched_recv(s, rank - 1, tmp, count, t));
            CS_CHECK(cs_sched_reduce_ordered(s, acc, tmp, 1, c->commutative, count, t));
        }
        CS_CHECK(cs_sched_round(s));
    }
    for (int mask = 1; w >= 0 && mask < pof2; mask <<= 1) {
        int pw = w ^ mask;
        int peer = cs_topo_fold_pos(pw, p);
        CS_CHECK(cs_sched_send(s, peer, acc, count, t));
        CS_CHECK(cs_sched_recv(s, peer, tmp, count, t));
        CS_CHECK(cs_sched_reduce_ordered(s, acc, tmp, pw < w, c->commutative, count, t));
        CS_CHECK(cs_sched_round(s));
    }
    if (rank < 2 * r) {
        if (rank % 2 == 1) {
            CS_CHECK(cs_sched_send(s, rank - 1, acc, count, t));
        } else {
            CS_CHECK(cs_sched_recv(s, rank + 1, acc, count, t));
        }
    }
out:
    return rc;
}

const cs_algo_t cs_algo_allreduce_recursive_doubling = {
    .name = "allreduce/recursive_doubling",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "hypercube (recursive doubling), any p",
    .build = build,
};

/* reduce_scatter_block/ring, reduce_scatter/ring: pipelined ring, each block's partial result
 * travelling p-1 hops to its owner, rank order kept.
 *
 * Reference: the ring reduce-scatter of Patarasuk and Yuan (JPDC 69(2), 2009) and Open MPI's
 * coll/base reduce_scatter ring, which need a commutative op; here made rank-ordered. In step
 * s = 0 .. p-2 rank r sends to r+1 the partial of block (r-s-1) mod p and receives from r-1 the
 * partial of block (r-s-2) mod p, so block j's partial starts at j+1 and ends at j: all p
 * partials move at once, one per link per step. The chain j+1, .., p-1, 0, .., j wraps from
 * p-1 to 0; to keep rank order, the partial after the wrap is two parts: H = x_{j+1} .. x_{p-1}
 * (complete when it reaches rank 0) and L = x_0 .. x_r, which each rank r <= j extends on the
 * right; the owner finishes with L op H. Before the wrap there is one part, extended on the
 * right. So every reduction has the lower ranks on the left: correct for non-commutative ops.
 * One builder serves both collectives (blocks back to back, recvcount or recvcounts[j] each).
 * Cost (n = total input bytes, uniform blocks): (p-1)(alpha + 2 (n/p) beta) in the worst step
 * (post-wrap partials are two blocks; (p-1)(alpha + (n/p) beta) for the last block's chain
 * alone) + (p-1)(n/p) gamma. Rounds: p (one local copy, p-1 exchanges).
 * Requirements: none (any p, any op, in place). Parameters: none.
 * Scratch: 2 n + the largest block.
 *
 *   p = 3, x_r^j = rank r's block j     step 0                  step 1
 *   0      sends x0^2, gets H=x2^1 from 2     sends (x0^1, H), gets x1^0 op x2^0 = H'
 *   1      sends x1^0, gets x0^2              sends x0^2 op x1^2, gets (x0^1, x2^1)
 *   2      sends x2^1, gets x1^0              sends x1^0 op x2^0, gets x0^2 op x1^2
 *   result: 0: x0^0 op H'; 1: (x0^1 op x1^1) op x2^1; 2: (x0^2 op x1^2) op x2^2
 */
#include "builders.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank, n = c->sendcount, maxcount = 0;
    int to = (rank + 1) % p, from = (rank - 1 + p) % p;
    int b = (rank - 1 + p) % p, cb = (rank - 2 + 2 * p) % p; /* sent, received in step 0 */
    MPI_Aint sb, sc;
    const cs_type_t *t = &c->send;
    cs_ref_t lo, hi, tmp, recv = cs_ref(CS_SLOT_RECV, 0);
    for (int j = 0; j < p; j++) {
        int k = cs_build_rs_count(c, j);
        maxcount = k > maxcount ? k : maxcount;
    }
    /* lo: the input, then each block's one-part partial or its L; hi: each block's H. */
    CS_CHECK(cs_sched_scratch(s, n, t, &lo));
    CS_CHECK(cs_sched_scratch(s, n, t, &hi));
    CS_CHECK(cs_sched_scratch(s, maxcount, t, &tmp));
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), n, t, lo, n, t));
    CS_CHECK(cs_sched_round(s));
    sb = cs_build_rs_start(c, b);
    sc = cs_build_rs_start(c, cb);
    for (int step = 0; step < p - 1; step++) {
        int bn = cs_build_rs_count(c, b), cn = cs_build_rs_count(c, cb);
        CS_CHECK(cs_sched_send(s, to, cs_ref_at(lo, sb, t), bn, t));
        if (b < p - 1 && rank < b) { /* after the wrap: L then H */
            CS_CHECK(cs_sched_send(s, to, cs_ref_at(hi, sb, t), bn, t));
        }
        if (rank == 0) { /* from p-1: H of block cb, complete; L is x_0 */
            CS_CHECK(cs_sched_recv(s, from, cs_ref_at(hi, sc, t), cn, t));
        } else {
            CS_CHECK(cs_sched_recv(s, from, tmp, cn, t));
            if (cb < p - 1 && from < cb) {
                CS_CHECK(cs_sched_recv(s, from, cs_ref_at(hi, sc, t), cn, t));
            }
            CS_CHECK(cs_sched_reduce(s, tmp, cs_ref_at(lo, sc, t), cn, t));
        }
        CS_CHECK(cs_sched_round(s));
        b = cb;
        sb = sc;
        cb = (cb - 1 + p) % p;
        sc = cb == p - 1 ? n - cs_build_rs_count(c, cb) : sc - cs_build_rs_count(c, cb);
    }
    /* Own block: L op H, or the one-part partial for the last rank (and p = 1). */
    sb = cs_build_rs_start(c, rank);
    if (rank < p - 1) {
        CS_CHECK(cs_sched_reduce(s, cs_ref_at(lo, sb, t), cs_ref_at(hi, sb, t), c->recvcount, t));
        CS_CHECK(
            cs_sched_copy(s, cs_ref_at(hi, sb, t), c->recvcount, t, recv, c->recvcount, &c->recv));
    } else {
        CS_CHECK(
            cs_sched_copy(s, cs_ref_at(lo, sb, t), c->recvcount, t, recv, c->recvcount, &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_reduce_scatter_block_ring = {
    .name = "reduce_scatter_block/ring",
    .coll = CS_COLL_REDUCE_SCATTER_BLOCK,
    .desc = "pipelined ring, rank order kept (two-part partials after the wrap)",
    .build = build,
};

const cs_algo_t cs_algo_reduce_scatter_ring = {
    .name = "reduce_scatter/ring",
    .coll = CS_COLL_REDUCE_SCATTER,
    .desc = "pipelined ring on uneven blocks, rank order kept (two-part partials after the wrap)",
    .build = build,
};

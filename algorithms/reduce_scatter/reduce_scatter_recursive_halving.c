/* reduce_scatter_block/recursive_halving, reduce_scatter/recursive_halving: the vector is halved
 * between hypercube partners, any p, rank order kept.
 *
 * Reference: Thakur, Rabenseifner, Gropp 2005, Section 4.4 (recursive halving), with the fold
 * of allreduce/recursive_doubling for any p and partners taken in increasing bit order so that
 * every partial result covers a contiguous rank range. With p' = largest power of two <= p and
 * r = p - p', rank 2i (i < r) first sends its whole vector to 2i+1 and sits out; fold rank w
 * then stands for ranks [first(w), first(w+1)) (topo.h) and "fold block" w is their blocks. In
 * step k = 0 .. log2(p')-1 fold rank w exchanges with w XOR 2^k: the one whose bit k is 0 keeps
 * the lower half of the fold blocks it holds, the other the upper half; each sends the half it
 * gives up and reduces the half it keeps. The partner's partial covers the rank range next to
 * its own, lower when the partner is lower, so the lower range is always the left operand:
 * correct for non-commutative ops. Since halves are chosen by w's bits from the lowest up, fold
 * rank w ends holding fold block rev(w) (w's bits reversed); a last round sends each block of it
 * to its owner (one message per block, a local copy for the own block). One builder serves both
 * collectives: blocks lie back to back, recvcount each (block) or recvcounts[j] (v).
 * Cost (n = total input bytes, uniform blocks): log2(p')(alpha) + (1 - 1/p') n (beta + gamma)
 * + alpha + (n/p') beta, plus alpha + n beta + n gamma when p != p'.
 * Rounds: log2(p') + 2 (+1 when p != p'). Requirements: none (any p, any op, in place).
 * Parameters: none. Scratch: 2 n on fold ranks.
 *
 *   p = 4, blocks A B C D; [x] = reduced over ranks x
 *          step 0 (xor 1)        step 1 (xor 2)          last round
 *   0      A B of [0,1]          A of [0,3] = rev(0)     keeps A
 *   1      C D of [0,1]          C of [0,3] = rev(1)     C to 2, B from 2
 *   2      A B of [2,3]          B of [0,3] = rev(2)     B to 1, C from 1
 *   3      C D of [2,3]          D of [0,3] = rev(3)     keeps D
 */
#include "builders.h"
#include "topo/topo.h"

MPI_Aint cs_build_rs_start(const cs_call_t *c, int j) {
    MPI_Aint start = 0;
    if (c->recvcounts == NULL) {
        return (MPI_Aint)j * c->recvcount;
    }
    for (int i = 0; i < j; i++) {
        start += c->recvcounts[i];
    }
    return start;
}

int cs_build_rs_count(const cs_call_t *c, int j) {
    return c->recvcounts == NULL ? c->recvcount : c->recvcounts[j];
}

/* The `bits` low bits of x in reverse order. */
static int bit_reverse(int x, int bits) {
    int y = 0;
    for (int k = 0; k < bits; k++) {
        y = (y << 1) | ((x >> k) & 1);
    }
    return y;
}

/* The fold rank that stands for rank q (the odd one of a folded pair). */
static int fold_of(int q, int p) {
    int r = cs_topo_fold_extra(p);
    return q < 2 * r ? q / 2 : q - r;
}

/* Appends the halving steps of fold rank w; on return fold block *held (rev(w)) is reduced over
 * all ranks in acc, at the input's offsets. */
static int halve(cs_sched_t *s, const cs_call_t *c, int w, int pof2, cs_ref_t acc, cs_ref_t tmp) {
    int rc = CS_OK;
    int p = c->nprocs;
    const cs_type_t *t = &c->send;
    int lo = 0, hi = pof2;
    for (int k = 0; (1 << k) < pof2; k++) {
        int pw = w ^ (1 << k);
        int peer = cs_topo_fold_pos(pw, p);
        int mid = lo + (hi - lo) / 2;
        int upper = (w >> k) & 1;
        int k0 = upper ? mid : lo, k1 = upper ? hi : mid;
        int s0 = upper ? lo : mid, s1 = upper ? mid : hi;
        MPI_Aint ks = cs_build_rs_start(c, cs_topo_fold_first(k0, p));
        MPI_Aint ke = cs_build_rs_start(c, cs_topo_fold_first(k1, p));
        MPI_Aint ss = cs_build_rs_start(c, cs_topo_fold_first(s0, p));
        MPI_Aint se = cs_build_rs_start(c, cs_topo_fold_first(s1, p));
        CS_CHECK(cs_sched_send(s, peer, cs_ref_at(acc, ss, t), (int)(se - ss), t));
        CS_CHECK(cs_sched_recv(s, peer, tmp, (int)(ke - ks), t));
        CS_CHECK(cs_sched_reduce_ordered(s, cs_ref_at(acc, ks, t), tmp, pw < w, c->commutative,
                                         (int)(ke - ks), t));
        CS_CHECK(cs_sched_round(s));
        lo = k0;
        hi = k1;
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank, n = c->sendcount;
    const cs_type_t *t = &c->send;
    int r = cs_topo_fold_extra(p);
    int pof2 = p - r, bits = 0;
    int w = cs_topo_fold_rank(rank, p);
    int holder;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t acc = send, tmp = send;
    while ((1 << bits) < pof2) {
        bits++;
    }
    if (w < 0) { /* rank 2i of a folded pair: its vector to 2i+1 */
        CS_CHECK(cs_sched_send(s, rank + 1, send, n, t));
        CS_CHECK(cs_sched_round(s));
    } else {
        CS_CHECK(cs_sched_scratch(s, n, t, &acc));
        CS_CHECK(cs_sched_scratch(s, n, t, &tmp));
        if (rank < 2 * r) {
            CS_CHECK(cs_sched_recv(s, rank - 1, tmp, n, t));
        }
        CS_CHECK(cs_sched_copy(s, send, n, t, acc, n, t));
        if (rank < 2 * r) {
            CS_CHECK(cs_sched_reduce_ordered(s, acc, tmp, 1, c->commutative, n, t));
        }
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(halve(s, c, w, pof2, acc, tmp));
        /* Fold block rev(w) to the ranks it stands for. */
        for (int b = bit_reverse(w, bits), j = cs_topo_fold_first(b, p);
             j < cs_topo_fold_first(b + 1, p); j++) {
            cs_ref_t at = cs_ref_at(acc, cs_build_rs_start(c, j), t);
            if (j == rank) {
                CS_CHECK(cs_sched_copy(s, at, c->recvcount, t, recv, c->recvcount, &c->recv));
            } else {
                CS_CHECK(cs_sched_send(s, j, at, cs_build_rs_count(c, j), t));
            }
        }
    }
    holder = cs_topo_fold_pos(bit_reverse(fold_of(rank, p), bits), p);
    if (holder != rank) {
        CS_CHECK(cs_sched_recv(s, holder, recv, c->recvcount, &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_reduce_scatter_block_recursive_halving = {
    .name = "reduce_scatter_block/recursive_halving",
    .coll = CS_COLL_REDUCE_SCATTER_BLOCK,
    .desc = "recursive halving, any p, rank order kept",
    .build = build,
};

const cs_algo_t cs_algo_reduce_scatter_recursive_halving = {
    .name = "reduce_scatter/recursive_halving",
    .coll = CS_COLL_REDUCE_SCATTER,
    .desc = "recursive halving on uneven blocks, any p, rank order kept",
    .build = build,
};

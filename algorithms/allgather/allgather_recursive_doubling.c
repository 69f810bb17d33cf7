/* allgather/recursive_doubling: hypercube allgather for any p.
 *
 * Reference: Hartmann et al., Table 1 (P2P_B for MPI_Allgather: hypercube); Thakur,
 * Rabenseifner, Gropp 2005. With p' = largest power of two <= p and r = p - p', positions
 * 0..2r-1 first pair up (2i gives its block to 2i+1 and sits out), the p' remaining fold ranks
 * exchange doubling ranges of blocks, then 2i+1 hands 2i everything. Fold ranks stand for
 * contiguous ranges of positions, so every exchange is one message per direction.
 * Cost: log2(p') alpha + (p-1)/p n beta for p = p'; two more steps of n/p and n otherwise.
 * Rounds: log2(p') + 1 (copy) + 2 when p is not a power of two.
 * Requirements: none. Parameters: none.
 *
 *   p = 3 (r = 1, p' = 2)   fold         step 1 (1 <-> 2)   unfold
 *   0                       A -> 1       (sits out)         <- B C from 1
 *   1                       A B          A B <-> C          A B C
 *   2                       C            A B C              A B C
 */
#include "builders.h"
#include "topo/topo.h"

int cs_build_allgather_rd(cs_sched_t *s, const cs_blocks_t *b, int root, int rank, int p) {
    int rc = CS_OK;
    int pos = cs_topo_vrank(rank, root, p);
    int r = cs_topo_fold_extra(p);
    int pof2 = p - r;
    int w = cs_topo_fold_rank(pos, p);
    if (pos < 2 * r) {
        if (pos % 2 == 0) {
            CS_CHECK(cs_blocks_send(s, cs_topo_rank(pos + 1, root, p), b, pos, pos + 1));
        } else {
            CS_CHECK(cs_blocks_recv(s, cs_topo_rank(pos - 1, root, p), b, pos - 1, pos));
        }
        CS_CHECK(cs_sched_round(s));
    }
    for (int mask = 1; w >= 0 && mask < pof2; mask <<= 1) {
        int pw = w ^ mask;
        int mine = w & ~(mask - 1);
        int theirs = pw & ~(mask - 1);
        int peer = cs_topo_rank(cs_topo_fold_pos(pw, p), root, p);
        CS_CHECK(cs_blocks_send(s, peer, b, cs_topo_fold_first(mine, p),
                                cs_topo_fold_first(mine + mask, p)));
        CS_CHECK(cs_blocks_recv(s, peer, b, cs_topo_fold_first(theirs, p),
                                cs_topo_fold_first(theirs + mask, p)));
        CS_CHECK(cs_sched_round(s));
    }
    if (pos < 2 * r) {
        if (pos % 2 == 1) {
            int peer = cs_topo_rank(pos - 1, root, p);
            CS_CHECK(cs_blocks_send(s, peer, b, 0, pos - 1));
            CS_CHECK(cs_blocks_send(s, peer, b, pos, p));
        } else {
            int peer = cs_topo_rank(pos + 1, root, p);
            CS_CHECK(cs_blocks_recv(s, peer, b, 0, pos));
            CS_CHECK(cs_blocks_recv(s, peer, b, pos + 1, p));
        }
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_blocks_t b;
    CS_CHECK(cs_build_allgather_own(s, c, &b));
    CS_CHECK(cs_build_allgather_rd(s, &b, 0, c->rank, c->nprocs));
out:
    return rc;
}

const cs_algo_t cs_algo_allgather_recursive_doubling = {
    .name = "allgather/recursive_doubling",
    .coll = CS_COLL_ALLGATHER,
    .desc = "hypercube (recursive doubling), any p",
    .build = build,
};

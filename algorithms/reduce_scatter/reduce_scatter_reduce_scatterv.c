/* reduce_scatter_block/reduce_scatter, reduce_scatter/reduce_scatterv: a binomial reduce of the
 * whole vector to rank 0, then a binomial scatter of the blocks from rank 0.
 *
 * Reference: the composition MPICH and Open MPI fall back to (MPI_Reduce then
 * MPI_Scatter(v)); Hartmann et al., Table 1 (binomial trees). The reduction is reduce/binomial's
 * builder rooted at rank 0, which keeps rank order for any op; the scatter passes each subtree
 * [v, v+size) of ranks its blocks as one message (blocks lie back to back, so a subtree's
 * blocks are one run of elements, uneven or not). One builder serves both collectives.
 * Cost (n = total input bytes): log2(p)(alpha + n beta + n gamma) + log2(p) alpha + (1 - 1/p) n
 * beta. Rounds: 2 + 2 per tree level at most. Requirements: none (any p, any op, in place).
 * Parameters: none. Scratch: n, plus n per child in the reduce.
 *
 *   p = 4, blocks A B C D   reduce (reduce/binomial)     scatter
 *   0                       holds A B C D of [0,3]       C D to 2, B to 1, keeps A
 *   2                       sends [2,3] to 0             gets C D, D to 3, keeps C
 *   1, 3                    send x1 to 0 / x3 to 2       get B / D
 */
#include "builders.h"
#include "topo/topo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank;
    int parent = cs_topo_binomial_parent(rank, p);
    int nchildren = cs_topo_binomial_nchildren(rank, p);
    MPI_Aint first = cs_build_rs_start(c, rank);
    MPI_Aint last = cs_build_rs_start(c, rank + cs_topo_binomial_subtree(rank, p));
    const cs_type_t *t = &c->send;
    cs_ref_t acc, recv = cs_ref(CS_SLOT_RECV, 0);
    CS_CHECK(cs_sched_scratch(s, c->sendcount, t, &acc));
    CS_CHECK(cs_build_reduce_binomial(s, c, 0, acc));
    /* acc is free again below the root (its partial went up): the subtree's blocks come in at
     * their offsets in the vector. */
    if (parent >= 0 && nchildren == 0) {
        CS_CHECK(cs_sched_recv(s, parent, recv, c->recvcount, &c->recv));
        goto out;
    }
    if (parent >= 0) {
        CS_CHECK(cs_sched_recv(s, parent, cs_ref_at(acc, first, t), (int)(last - first), t));
        CS_CHECK(cs_sched_round(s));
    }
    for (int i = nchildren - 1; i >= 0; i--) {
        int child = cs_topo_binomial_child(rank, p, i);
        MPI_Aint cfirst = cs_build_rs_start(c, child);
        MPI_Aint clast = cs_build_rs_start(c, child + cs_topo_binomial_subtree(child, p));
        CS_CHECK(cs_sched_send(s, child, cs_ref_at(acc, cfirst, t), (int)(clast - cfirst), t));
    }
    CS_CHECK(
        cs_sched_copy(s, cs_ref_at(acc, first, t), c->recvcount, t, recv, c->recvcount, &c->recv));
out:
    return rc;
}

const cs_algo_t cs_algo_reduce_scatter_block_reduce_scatter = {
    .name = "reduce_scatter_block/reduce_scatter",
    .coll = CS_COLL_REDUCE_SCATTER_BLOCK,
    .desc = "binomial reduce to rank 0, then binomial scatter, rank order kept",
    .build = build,
};

const cs_algo_t cs_algo_reduce_scatter_reduce_scatterv = {
    .name = "reduce_scatter/reduce_scatterv",
    .coll = CS_COLL_REDUCE_SCATTER,
    .desc = "binomial reduce to rank 0, then binomial scatterv, rank order kept",
    .build = build,
};

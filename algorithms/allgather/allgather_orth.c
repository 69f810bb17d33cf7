/* allgather/orth: allgather as one allgather per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * Every rank first copies its block to its place in the receive buffer. For k = 0, 1 (, 2) every
 * line along dimension k then allgathers, in place, the blocks its members hold: the blocks of
 * each member's block below k, stride_k consecutive ranks, which lie side by side in rank order
 * (topo.h); afterwards a rank holds its block below k+1, and after the last dimension all p.
 * Cost: sum over dimensions of T_allgather(d_k, stride_k n): with recursive doubling
 * log2(p) alpha + (p-1) n beta for powers of two, the same volume as one allgather in fewer or
 * smaller groups. Rounds: 1 copy + one phase per dimension. Requirements: none. In place: yes.
 * Parameters: dims, phase (sweep: native, recursive_doubling).
 *
 *   p = 4, dims=2x2   dimension 0 (rows {0,1} {2,3})   dimension 1 (columns {0,2} {1,3})
 *   0, 1              A B . .                          A B C D
 *   2, 3              . . C D                          A B C D
 */
#include "orth/orth.h"

#include <limits.h>

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    const cs_topo_grid_t *g = &o.grid;
    const cs_type_t *t = &c->recv;
    MPI_Aint unit = c->recvcount;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    CS_CHECK(cs_orth_init(&o, c, params));
    CS_REQUIRE((MPI_Aint)c->nprocs * unit <= INT_MAX, CS_ERR_NOT_APPLICABLE);
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
                           cs_ref_at(recv, c->rank * unit, t), c->recvcount, t));
    for (int k = 0; k < g->ndims; k++) {
        cs_call_t sub;
        int chunk = (int)(g->stride[k] * unit);
        cs_ref_t here = cs_ref_at(recv, cs_topo_grid_block(g, c->rank, k + 1) * unit, t);
        cs_orth_subcall(&o, c, k, 0, &sub);
        sub.sendcount = sub.recvcount = chunk;
        sub.send = *t;
        CS_CHECK(
            cs_orth_phase(s, &o, k, &sub, cs_ref_at(here, (MPI_Aint)sub.rank * chunk, t), here, 1));
    }
out:
    cs_orth_free(&o);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "recursive_doubling", out, cap, n);
}

const cs_algo_t cs_algo_allgather_orth = {
    .name = "allgather/orth",
    .coll = CS_COLL_ALLGATHER,
    .desc = "orthogonal 2D/3D grid: one allgather per dimension, blocks in rank order",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

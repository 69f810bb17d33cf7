/* scatter/orth: scatter as one scatter per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * The reverse of gather/orth: phases run from the last dimension down to 0. In the phase of
 * dimension k the lines through the root's block below k (ranks whose coordinates below k are
 * the root's) scatter from their member with the root's coordinate k, which holds the blocks of
 * its block below k+1 in rank order: member i gets the stride_k blocks of its own block below k.
 * A rank receives in the phase of the first dimension k* where its coordinate differs from the
 * root's (into scratch, or into its receive buffer when k* = 0) and scatters on in the phases
 * below; the members that scattered in phase 0 finally copy their own block.
 * Cost: sum over dimensions of T_scatter(d_k, stride_k n). Rounds: one phase per dimension + 1
 * copy. Requirements: none; any root; in place at the root. Scratch: the blocks a non-root
 * receives (stride_k* n). Parameters: dims, phase (sweep: native, binomial).
 *
 *   p = 4, dims=2x2, root 0   dimension 1 (column {0,2})   dimension 0 (rows {0,1} {2,3})
 *   0                         sends C D to 2               sends B to 1, keeps A
 *   2                         receives C D                 sends D to 3, keeps C
 *   1, 3                      -                            receive B / D
 */
#include "orth/orth.h"

#include <limits.h>

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    const cs_topo_grid_t *g = &o.grid;
    const cs_type_t *t = &c->send; /* one block on every rank (call.h) */
    MPI_Aint unit = c->sendcount;
    int first = -1; /* k*: the phase this rank receives in, ndims at the root */
    int tbase;      /* the first rank whose block `area` holds */
    cs_ref_t area = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    CS_CHECK(cs_orth_init(&o, c, params));
    CS_REQUIRE((MPI_Aint)c->nprocs * unit <= INT_MAX, CS_ERR_NOT_APPLICABLE);
    first = cs_orth_root_dim(&o, c->root);
    tbase = cs_topo_grid_block(g, c->rank, first);
    if (first > 0 && c->rank != c->root) {
        CS_CHECK(cs_sched_scratch(s, g->stride[first] * unit, t, &area));
    }
    for (int k = g->ndims - 1; k >= 0; k--) {
        cs_call_t sub;
        int chunk = (int)(g->stride[k] * unit);
        if (k > first) {
            continue;
        }
        cs_orth_subcall(&o, c, k, cs_topo_grid_coord(g, c->root, k), &sub);
        sub.sendcount = chunk;
        if (k < first) { /* scatters its block below k+1, keeping its own chunk in place */
            cs_ref_t here = cs_ref_at(
                area, (MPI_Aint)(cs_topo_grid_block(g, c->rank, k + 1) - tbase) * unit, t);
            sub.recvcount = chunk;
            sub.recv = *t;
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, here,
                                   cs_ref_at(here, (MPI_Aint)sub.rank * chunk, t), 1));
        } else if (k == 0) { /* receives its own block */
            sub.sendcount = c->recvcount;
            sub.send = c->recv;
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, recv, recv, 0));
        } else { /* receives the blocks of its block below k */
            sub.recvcount = chunk;
            sub.recv = *t;
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, area, area, 0));
        }
    }
    if (first > 0) {
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(area, (MPI_Aint)(c->rank - tbase) * unit, t),
                               c->sendcount, t, recv, c->recvcount, &c->recv));
    }
out:
    cs_orth_free(&o);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "binomial", out, cap, n);
}

const cs_algo_t cs_algo_scatter_orth = {
    .name = "scatter/orth",
    .coll = CS_COLL_SCATTER,
    .desc = "orthogonal 2D/3D grid: one scatter per dimension from the root's lines",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

/* gather/orth: gather as one gather per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * Phases run from dimension 0 up. In the phase of dimension k the lines through the root's
 * block below k (ranks whose coordinates below k are the root's) gather, to their member with
 * the root's coordinate k, what each member holds: the blocks of its block below k, a contiguous
 * rank range, so the gathering member ends up with its block below k+1 in rank order. A rank
 * takes part up to the first dimension k* where its coordinate differs from the root's and
 * there sends; until then it gathers into scratch of stride_k* blocks (the root into its
 * receive buffer, in place).
 * Cost: sum over dimensions of T_gather(d_k, stride_k n); the root receives (p-1) n in all, the
 * other data crosses one line per dimension. Rounds: 1 copy + one phase per dimension.
 * Requirements: none; any root; in place at the root. Scratch: the blocks a non-root gathers
 * (stride_k* n). Parameters: dims, phase (sweep: native, binomial).
 *
 *   p = 4, dims=2x2, root 0   dimension 0 (rows {0,1} {2,3})   dimension 1 (column {0,2})
 *   0                         A B                              A B C D
 *   1                         sends B to 0                     -
 *   2                         C D                              sends C D to 0
 *   3                         sends D to 2                     -
 */
#include "orth/orth.h"

#include <limits.h>

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    const cs_topo_grid_t *g = &o.grid;
    const cs_type_t *t = &c->recv; /* one block on every rank (call.h) */
    MPI_Aint unit = c->recvcount;
    int last = -1; /* k*: the phase this rank sends in, ndims at the root */
    int tbase;     /* the first rank whose block `area` holds */
    cs_ref_t area = cs_ref(CS_SLOT_RECV, 0), send = cs_ref(CS_SLOT_SEND, 0);
    CS_CHECK(cs_orth_init(&o, c, params));
    CS_REQUIRE((MPI_Aint)c->nprocs * unit <= INT_MAX, CS_ERR_NOT_APPLICABLE);
    last = cs_orth_root_dim(&o, c->root);
    tbase = cs_topo_grid_block(g, c->rank, last);
    if (last > 0 && c->rank != c->root) {
        CS_CHECK(cs_sched_scratch(s, g->stride[last] * unit, t, &area));
    }
    if (last > 0) {
        CS_CHECK(cs_sched_copy(s, send, c->sendcount, &c->send,
                               cs_ref_at(area, (c->rank - tbase) * unit, t), c->recvcount, t));
    }
    for (int k = 0; k <= last && k < g->ndims; k++) {
        cs_call_t sub;
        int chunk = (int)(g->stride[k] * unit);
        cs_orth_subcall(&o, c, k, cs_topo_grid_coord(g, c->root, k), &sub);
        sub.recvcount = chunk;
        if (k < last) { /* gathers the line into its block below k+1, in place */
            cs_ref_t here = cs_ref_at(
                area, (MPI_Aint)(cs_topo_grid_block(g, c->rank, k + 1) - tbase) * unit, t);
            sub.sendcount = chunk;
            sub.send = *t;
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, cs_ref_at(here, (MPI_Aint)sub.rank * chunk, t),
                                   here, 1));
        } else if (k == 0) { /* sends its own block */
            sub.recvcount = c->sendcount;
            sub.recv = c->send;
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, send, send, 0));
        } else { /* sends the blocks it gathered */
            sub.sendcount = chunk;
            sub.send = *t;
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, area, area, 0));
        }
    }
out:
    cs_orth_free(&o);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "binomial", out, cap, n);
}

const cs_algo_t cs_algo_gather_orth = {
    .name = "gather/orth",
    .coll = CS_COLL_GATHER,
    .desc = "orthogonal 2D/3D grid: one gather per dimension toward the root's lines",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

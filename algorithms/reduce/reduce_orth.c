/* reduce/orth: reduce as one reduce per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * Phases run from dimension 0 up. In the phase of dimension k the lines through the root's
 * block below k (ranks whose coordinates below k are the root's) reduce, to their member with
 * the root's coordinate k, what each member holds: the reduction of its block below k, a
 * contiguous rank range. Lines are ordered by rank, so the reducing member holds its block below
 * k+1 reduced in rank order: non-commutative ops are correct. A rank takes part up to the first
 * dimension k* where its coordinate differs from the root's and sends there; until then it
 * reduces into an accumulator (the root's receive buffer, scratch elsewhere).
 * With native phases, a commutative op and a datatype whose true lower bound is not 0 is not
 * applicable under Open MPI, whose MPI_Ireduce corrupts memory there (cs_exec_ireduce_safe).
 * Cost: sum over dimensions of T_reduce(d_k, n); binomial phases ~ log2(p)(alpha + n beta +
 * n gamma). Rounds: 1 copy + one phase per dimension. Requirements: none; any root; in place at
 * the root. Scratch: n at a non-root that reduces. Parameters: dims, phase (sweep: native,
 * binomial).
 *
 *   p = 4, dims=2x2, root 0   dimension 0 (rows {0,1} {2,3})   dimension 1 (column {0,2})
 *   0                         x0 op x1                         (x0 op x1) op (x2 op x3)
 *   1                         sends x1 to 0                    -
 *   2                         x2 op x3                         sends x2 op x3 to 0
 *   3                         sends x3 to 2                    -
 */
#include "core/exec.h"
#include "orth/orth.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    const cs_topo_grid_t *g = &o.grid;
    int last = -1; /* k*: the phase this rank sends in, ndims at the root */
    cs_ref_t acc = cs_ref(CS_SLOT_RECV, 0), send = cs_ref(CS_SLOT_SEND, 0);
    CS_CHECK(cs_orth_init(&o, c, params));
    /* Alike on every rank whose type has the same lower bound (an absolute type at MPI_BOTTOM
     * has it off 0 on every rank). */
    CS_REQUIRE(o.phase != NULL || cs_exec_ireduce_safe(&c->send, c->commutative, c->root),
               CS_ERR_NOT_APPLICABLE);
    last = cs_orth_root_dim(&o, c->root);
    if (last > 0 && c->rank != c->root) {
        CS_CHECK(cs_sched_scratch(s, c->sendcount, &c->send, &acc));
    }
    if (last > 0) {
        CS_CHECK(cs_sched_copy(s, send, c->sendcount, &c->send, acc, c->sendcount, &c->send));
    }
    for (int k = 0; k <= last && k < g->ndims; k++) {
        cs_call_t sub;
        cs_orth_subcall(&o, c, k, cs_topo_grid_coord(g, c->root, k), &sub);
        if (k < last) {
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, acc, acc, 1));
        } else {
            cs_ref_t mine = k == 0 ? send : acc;
            CS_CHECK(cs_orth_phase(s, &o, k, &sub, mine, mine, 0));
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

const cs_algo_t cs_algo_reduce_orth = {
    .name = "reduce/orth",
    .coll = CS_COLL_REDUCE,
    .desc = "orthogonal 2D/3D grid: one reduce per dimension toward the root, rank order kept",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

/* allreduce/orth: allreduce as one allreduce per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * Every rank first copies its vector into the receive buffer; then for k = 0, 1 (, 2) every line
 * along dimension k allreduces it in place. After dimension k a rank holds the reduction of its
 * block below k+1, a contiguous rank range combined in rank order (lines are ordered by rank),
 * so non-commutative ops are correct.
 * Cost: sum over dimensions of T_allreduce(d_k, n); recursive-doubling phases:
 * sum log2(d_k)(alpha + n beta + n gamma) for powers of two, i.e. log2(p)(...), as one
 * recursive doubling; native phases leave each line to the MPI library.
 * Rounds: 1 copy + one phase per dimension. Requirements: none. In place: yes.
 * Parameters: dims, phase (sweep: native, recursive_doubling).
 *
 *   p = 4, dims=2x2   dimension 0 (rows {0,1} {2,3})   dimension 1 (columns {0,2} {1,3})
 *   0, 1              x0 op x1                          (x0 op x1) op (x2 op x3)
 *   2, 3              x2 op x3                          (x0 op x1) op (x2 op x3)
 */
#include "orth/orth.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0);
    CS_CHECK(cs_orth_init(&o, c, params));
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send, recv, c->recvcount,
                           &c->recv));
    for (int k = 0; k < o.grid.ndims; k++) {
        cs_call_t sub;
        cs_orth_subcall(&o, c, k, 0, &sub);
        CS_CHECK(cs_orth_phase(s, &o, k, &sub, recv, recv, 1));
    }
out:
    cs_orth_free(&o);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "recursive_doubling", out, cap, n);
}

const cs_algo_t cs_algo_allreduce_orth = {
    .name = "allreduce/orth",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "orthogonal 2D/3D grid: one allreduce per dimension, rank order kept",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

/* barrier/orth: one barrier per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * For k = 0, 1 (, 2) every line along dimension k runs a barrier. After the phase of dimension
 * k a rank knows that every rank agreeing with it in the coordinates above k has entered (its
 * line's members knew that about their lines below k); after the last phase, all have.
 * Cost: sum over dimensions of T_barrier(d_k): with dissemination phases sum ceil(log2 d_k)
 * alpha, about log2(p) alpha in smaller groups. Rounds: one phase per dimension.
 * Requirements: none (a p with a 2D or 3D layout). Parameters: dims, phase (sweep: native,
 * dissemination).
 *
 *   p = 4, dims=2x2   dimension 0 (rows {0,1} {2,3})   dimension 1 (columns {0,2} {1,3})
 *   0                 knows 0, 1 entered               knows 0, 1, 2, 3 entered
 *   3                 knows 2, 3 entered               knows all
 */
#include "orth/orth.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    cs_ref_t token;
    CS_CHECK(cs_orth_init(&o, c, params));
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token));
    for (int k = 0; k < o.grid.ndims; k++) {
        cs_call_t sub;
        cs_orth_subcall(&o, c, k, 0, &sub);
        CS_CHECK(cs_orth_phase(s, &o, k, &sub, token, token, 0));
    }
out:
    cs_orth_free(&o);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "dissemination", out, cap, n);
}

const cs_algo_t cs_algo_barrier_orth = {
    .name = "barrier/orth",
    .coll = CS_COLL_BARRIER,
    .desc = "orthogonal 2D/3D grid: one barrier per dimension on rows, columns (planes)",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

/* bcast/orth: broadcast as one broadcast per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * Phases run from the last dimension to dimension 0: in the phase of dimension k the lines
 * through the root's block below k (the ranks whose coordinates below k are the root's)
 * broadcast from their member with the root's coordinate k. After it every rank whose
 * coordinates below k are the root's has the data; after dimension 0, all do.
 * Cost: sum over dimensions of T_bcast(d_k, n); binomial phases: sum ceil(log2 d_k)(alpha +
 * n beta) ~ log2(p)(alpha + n beta), the gain comes from smaller, simpler groups.
 * Rounds: one phase per dimension (each as many rounds as its algorithm needs; 1 when native).
 * Requirements: none; any root. Parameters: dims, phase (sweep: native, binomial).
 *
 *   p = 4, dims=2x2, root 0      phase of dimension 1 (column {0,2})   dimension 0 (rows)
 *   0                            sends to 2                           sends to 1
 *   2                            receives                             sends to 3
 *   1, 3                         -                                    receive
 */
#include "orth/orth.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    cs_ref_t buf = cs_ref(CS_SLOT_RECV, 0);
    CS_CHECK(cs_orth_init(&o, c, params));
    for (int k = o.grid.ndims - 1; k >= 0; k--) {
        cs_call_t sub;
        if (!cs_orth_active(&o, c->root, k)) {
            continue;
        }
        cs_orth_subcall(&o, c, k, cs_topo_grid_coord(&o.grid, c->root, k), &sub);
        CS_CHECK(cs_orth_phase(s, &o, k, &sub, buf, buf, 0));
    }
out:
    cs_orth_free(&o);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "binomial", out, cap, n);
}

const cs_algo_t cs_algo_bcast_orth = {
    .name = "bcast/orth",
    .coll = CS_COLL_BCAST,
    .desc = "orthogonal 2D/3D grid: one broadcast per dimension on rows, columns (planes)",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

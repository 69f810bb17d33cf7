/* allgatherv/orth: allgatherv as one allgatherv per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases).
 * As allgather/orth, on blocks of per-rank counts. A phase moves whole block ranges, so the
 * blocks must lie in rank order without gaps: when the caller's displacements are packed that
 * way (displs[j] = displs[0] + counts[0] + ... + counts[j-1], the usual layout) the phases work
 * in the receive buffer; otherwise in a packed scratch copy, unpacked into the caller's
 * displacements at the end (p local copies). Every rank first puts its block in place, then for
 * k = 0, 1 (, 2) every line along dimension k allgathers in place, member i contributing the
 * blocks of its block below k (one range of counts), so after the last dimension all p are there.
 * Cost: as allgather/orth with the largest line contribution in place of stride_k n, plus
 * n_total of local copies when the layout is not packed. Rounds: 1 copy + one phase per
 * dimension (+1 unpack). Requirements: total count <= INT_MAX. In place: yes.
 * Parameters: dims, phase (sweep: native, recursive_doubling).
 *
 *   p = 4, dims=2x2, counts 1 0 2 1   dimension 0 (rows)   dimension 1 (columns)
 *   0, 1                              A . . .              A C C D
 *   2, 3                              . C C D              A C C D
 */
#include "orth/orth.h"

#include <limits.h>
#include <stdlib.h>

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    const cs_topo_grid_t *g = &o.grid;
    const cs_type_t *t = &c->recv;
    int p = c->nprocs;
    int packed = 1;
    long base = -1;      /* displs[j] - prefix[j] of the first non-empty block */
    long *prefix = NULL; /* prefix[j]: elements before block j in rank order */
    int *counts = NULL, *displs = NULL;
    cs_ref_t recv = cs_ref(CS_SLOT_RECV, 0), area;
    CS_CHECK(cs_orth_init(&o, c, params));
    prefix = malloc((size_t)(p + 1) * sizeof(*prefix));
    counts = malloc((size_t)p * sizeof(*counts));
    displs = malloc((size_t)p * sizeof(*displs));
    CS_REQUIRE(prefix != NULL && counts != NULL && displs != NULL, CS_ERR_NOMEM);
    prefix[0] = 0;
    for (int j = 0; j < p; j++) {
        prefix[j + 1] = prefix[j] + c->recvcounts[j];
        if (c->recvcounts[j] > 0) {
            base = base < 0 ? c->displs[j] - prefix[j] : base;
            packed = packed && c->displs[j] - prefix[j] == base;
        }
    }
    CS_REQUIRE(prefix[p] <= INT_MAX, CS_ERR_NOT_APPLICABLE);
    if (packed) {
        area = cs_ref_at(recv, base > 0 ? base : 0, t);
    } else {
        CS_CHECK(cs_sched_scratch(s, prefix[p], t, &area));
    }
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
                           cs_ref_at(area, prefix[c->rank], t), c->recvcounts[c->rank], t));
    for (int k = 0; k < g->ndims; k++) {
        cs_call_t sub;
        int lo = cs_topo_grid_block(g, c->rank, k + 1);
        int n = g->dims[k], w = g->stride[k];
        cs_orth_subcall(&o, c, k, 0, &sub);
        for (int i = 0; i < n; i++) {
            counts[i] = (int)(prefix[lo + (i + 1) * w] - prefix[lo + i * w]);
            displs[i] = (int)(prefix[lo + i * w] - prefix[lo]);
        }
        sub.recvcounts = counts;
        sub.displs = displs;
        sub.sendcount = counts[sub.rank];
        sub.send = *t;
        CS_CHECK(cs_orth_phase(s, &o, k, &sub, cs_ref_at(area, prefix[lo] + displs[sub.rank], t),
                               cs_ref_at(area, prefix[lo], t), 1));
    }
    if (!packed) {
        CS_CHECK(cs_sched_round(s));
        for (int j = 0; j < p; j++) {
            CS_CHECK(cs_sched_copy(s, cs_ref_at(area, prefix[j], t), c->recvcounts[j], t,
                                   cs_ref_at(recv, c->displs[j], t), c->recvcounts[j], t));
        }
    }
out:
    cs_orth_free(&o);
    free(prefix);
    free(counts);
    free(displs);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "recursive_doubling", out, cap, n);
}

const cs_algo_t cs_algo_allgatherv_orth = {
    .name = "allgatherv/orth",
    .coll = CS_COLL_ALLGATHERV,
    .desc = "orthogonal 2D/3D grid: one allgatherv per dimension (packed in rank order)",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

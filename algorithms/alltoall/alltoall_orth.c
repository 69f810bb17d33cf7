/* alltoall/orth: alltoall as one alltoall per grid dimension (orthogonal processor groups).
 *
 * Reference: Hartmann et al., Section 2 (orth.h has the grid, the parameters and the phases);
 * the same two-phase scheme as the 2D (row, column) alltoall of mesh machines.
 * A rank holds p blocks at every moment; block position q has grid coordinates (q_0, q_1, ..).
 * Before the phase of dimension k coordinate j < k of a position is the source's coordinate j,
 * coordinate j >= k the destination's (at the start: positions are destinations, the send
 * buffer; at the end: sources, the receive buffer). The phase of dimension k is an alltoall on
 * the line along k: member j of the line gets the p/d_k blocks whose coordinate k is j, and
 * its reply from member j lands on the same positions. The blocks for one member are packed
 * contiguously (position q -> q_k (p/d_k) + (q / (stride_k d_k)) stride_k + q mod stride_k)
 * before the phase and unpacked after it, both as one permutation between two scratch
 * buffers; for the last dimension the packing is the identity, so its phase receives straight
 * into the receive buffer.
 * Cost: sum over dimensions of T_alltoall(d_k, (p/d_k) n): with pairwise phases
 * (d_0 + d_1 - 2)(alpha) + (d_0 + d_1 - 2)(p/d) n beta for d_0 = d_1 = d = sqrt(p): 2(sqrt(p)-1)
 * messages per rank instead of p-1, each block sent twice. Rounds: one phase per dimension and
 * one local permutation before each. Requirements: none (a p with a 2D or 3D layout). In place:
 * yes (the send data is packed into scratch first). Parameters: dims, phase (sweep: native,
 * pairwise).
 *
 *   p = 4, dims=2x2 ("ij" from i to j)   start        rows {0,1} {2,3}   columns {0,2} {1,3}
 *   0                                     00 01 02 03  00 10 02 12        00 10 20 30
 *   1                                     10 11 12 13  01 11 03 13        01 11 21 31
 *   2                                     20 21 22 23  20 30 22 32        02 12 22 32
 *   3                                     30 31 32 33  21 31 23 33        03 13 23 33
 */
#include "builders.h"
#include "orth/orth.h"

/* The packed position of block position q for the phase of dimension k (see above). */
static int packed(const cs_topo_grid_t *g, int p, int k, int q) {
    int stride = g->stride[k], d = g->dims[k];
    int j = (q / stride) % d, h = q / (stride * d), l = q % stride;
    return j * (p / d) + h * stride + l;
}

/* Appends the copies from[at_from(q)] -> to[at_to(q)] for every position q, runs of
 * consecutive positions merged; k_from < 0: positions of `from` are q themselves. */
static int permute(cs_sched_t *s, const cs_topo_grid_t *g, int p, const cs_blocks_t *from,
                   int k_from, const cs_blocks_t *to, int k_to) {
    int rc = CS_OK;
    int q = 0;
    while (q < p) {
        int a = k_from < 0 ? q : packed(g, p, k_from, q), b = packed(g, p, k_to, q), n = 1;
        while (q + n < p && (k_from < 0 ? q + n : packed(g, p, k_from, q + n)) == a + n &&
               packed(g, p, k_to, q + n) == b + n) {
            n++;
        }
        CS_CHECK(cs_blocks_move(s, from, a, to, b, n));
        q += n;
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    cs_orth_t o;
    const cs_topo_grid_t *g = &o.grid;
    const cs_type_t *t = &c->recv;
    int p = c->nprocs;
    MPI_Aint total = (MPI_Aint)p * c->recvcount;
    cs_blocks_t src = cs_blocks_uniform(cs_ref(CS_SLOT_SEND, 0), &c->send, c->sendcount,
                                        (MPI_Aint)p * c->sendcount, 0);
    cs_blocks_t buf[2];
    cs_ref_t ref[2];
    CS_CHECK(cs_orth_init(&o, c, params));
    for (int i = 0; i < 2; i++) {
        CS_CHECK(cs_sched_scratch(s, total, t, &ref[i]));
        buf[i] = cs_blocks_uniform(ref[i], t, c->recvcount, total, 0);
    }
    /* buf[0]: packed for the next phase; buf[1]: what a phase received, packed for it. */
    CS_CHECK(permute(s, g, p, &src, -1, &buf[0], 0));
    for (int k = 0; k < g->ndims; k++) {
        cs_call_t sub;
        int last = k == g->ndims - 1;
        cs_orth_subcall(&o, c, k, 0, &sub);
        sub.sendcount = sub.recvcount = (int)(total / g->dims[k]);
        sub.send = sub.recv = *t;
        CS_CHECK(cs_orth_phase(s, &o, k, &sub, ref[0], last ? cs_ref(CS_SLOT_RECV, 0) : ref[1], 0));
        if (!last) {
            CS_CHECK(permute(s, g, p, &buf[1], k, &buf[0], k + 1));
        }
    }
out:
    cs_orth_free(&o);
    return rc;
}

static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    return cs_orth_variants(nprocs, "pairwise", out, cap, n);
}

const cs_algo_t cs_algo_alltoall_orth = {
    .name = "alltoall/orth",
    .coll = CS_COLL_ALLTOALL,
    .desc = "orthogonal 2D/3D grid: one alltoall per dimension on packed blocks",
    .params = cs_orth_params,
    .nparams = CS_ORTH_NPARAMS,
    .variants = variants,
    .build = build,
    .setup = cs_orth_setup,
};

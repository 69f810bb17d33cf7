/* barrier/binomial: fan-in to rank 0 up a binomial tree, then fan-out down the same tree.
 *
 * Reference: Hartmann et al., Table 1 (binomial trees); the fan-in/fan-out ("tree") barrier of
 * Open MPI's coll/base (ompi_coll_base_barrier_intra_tree) and of Hensgen, Finkel, Manber (1988).
 * A rank waits for an empty message from each of its children, then sends one to its parent and
 * waits for its parent's release, then releases its children. Rank 0 releases only after every
 * rank has entered, and nobody leaves before it is released.
 * Cost: 2 ceil(log2 p) alpha on the critical path, 2(p-1) messages in all (half of
 * dissemination's p ceil(log2 p) for large p). Rounds: at most 3 per rank, 2 ceil(log2 p)
 * steps. Requirements: none. Parameters: none.
 *
 *   p = 4 (tree 0 -> 1, 2; 2 -> 3)   fan-in            fan-out
 *   0                                 <- 1, <- 2        -> 1, -> 2
 *   2                                 <- 3, -> 0        <- 0, -> 3
 *   1, 3                              -> parent         <- parent
 */
#include "core/algo.h"
#include "topo/topo.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank;
    int parent = cs_topo_binomial_parent(rank, p);
    int nchildren = cs_topo_binomial_nchildren(rank, p);
    cs_ref_t token[2]; /* empty messages: separate buffers for what is sent and received */
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[0]));
    CS_CHECK(cs_sched_scratch(s, 1, &c->recv, &token[1]));
    for (int i = 0; i < nchildren; i++) {
        CS_CHECK(cs_sched_recv(s, cs_topo_binomial_child(rank, p, i), token[1], 0, &c->recv));
    }
    CS_CHECK(cs_sched_round(s));
    if (parent >= 0) {
        CS_CHECK(cs_sched_send(s, parent, token[0], 0, &c->recv));
        CS_CHECK(cs_sched_recv(s, parent, token[1], 0, &c->recv));
        CS_CHECK(cs_sched_round(s));
    }
    for (int i = 0; i < nchildren; i++) {
        CS_CHECK(cs_sched_send(s, cs_topo_binomial_child(rank, p, i), token[0], 0, &c->recv));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_barrier_binomial = {
    .name = "barrier/binomial",
    .coll = CS_COLL_BARRIER,
    .desc = "binomial tree: fan-in to rank 0, then fan-out",
    .build = build,
};

/* neighbor_allgather/linear: every receive and every send of the neighbourhood started at once.
 *
 * Reference: what LibNBC and the MPI libraries do for MPI_Neighbor_* (Open MPI coll/basic,
 * MPICH `nb`); Hoefler and Schneider, "Optimization principles for collective neighborhood
 * communications", section III, as the baseline of the coloured and balanced schedules.
 * One round: a receive from every in-neighbour into its block, in MPI's source order, then a
 * send of its block to every out-neighbour, in MPI's send order (core/edges.h:
 * cs_edges_send_order), so that repeated edges pair as with the MPI library. MPI_PROC_NULL
 * neighbours (non-periodic Cartesian borders) get nothing; their blocks stay untouched.
 * Cost: max(indegree, outdegree) messages at once per rank: alpha + d n beta for d messages of
 * n bytes, with every end point of a high-degree rank a potential hot spot. Rounds: 1.
 * Requirements: a topology communicator (call.h). Parameters: none.
 * The same builder serves neighbor_allgatherv, neighbor_alltoall(v,w)/linear: only the edges'
 * blocks differ (cs_edges_out, cs_edges_in).
 *
 *   ring of 3 (dist graph, each rank r: source r-1, destination r+1), allgather
 *   round 1   rank 0: recv block 0 <- 2, send A -> 1     after: 0 holds C, 1 holds A, 2 holds B
 *             rank 1: recv block 0 <- 0, send B -> 2
 *             rank 2: recv block 0 <- 1, send C -> 0
 */
#include "builders.h"
#include "core/edges.h"

int cs_build_neighbor_linear(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    CS_REQUIRE(cs_coll_is_neighbor(c->coll) && c->nbrs != NULL, CS_ERR_NOT_APPLICABLE);
    for (int j = 0; j < c->nbrs->indegree; j++) {
        CS_CHECK(cs_edges_recv(s, c, j));
    }
    for (int k = 0; k < c->nbrs->outdegree; k++) {
        CS_CHECK(cs_edges_send(s, c, cs_edges_send_order(c->nbrs, k)));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_neighbor_allgather_linear = {
    .name = "neighbor_allgather/linear",
    .coll = CS_COLL_NEIGHBOR_ALLGATHER,
    .desc = "every receive and send of the neighbourhood started in one round",
    .build = cs_build_neighbor_linear,
};

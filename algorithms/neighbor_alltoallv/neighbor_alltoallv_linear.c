/* neighbor_alltoallv/linear: every receive and every send of the neighbourhood started at once.
 *
 * The neighbourhood linear schedule of neighbor_allgather/linear
 * (neighbor_allgather_linear.c: reference, cost, rounds, step table), on the blocks of
 * MPI_Neighbor_alltoallv (core/edges.h). Requirements: a topology communicator. Parameters: none.
 */
#include "builders.h"

const cs_algo_t cs_algo_neighbor_alltoallv_linear = {
    .name = "neighbor_alltoallv/linear",
    .coll = CS_COLL_NEIGHBOR_ALLTOALLV,
    .desc = "every receive and send of the neighbourhood started in one round",
    .build = cs_build_neighbor_linear,
};

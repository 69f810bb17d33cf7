/* neighbor_allgatherv/coloured: the edges of the whole graph coloured greedily, colour c is round
 * c.
 *
 * The coloured schedule of neighbor_allgather/coloured (neighbor_allgather_coloured.c:
 * reference, setup and its cost, rounds, step table), on the blocks of MPI_Neighbor_allgatherv
 * (core/edges.h). Requirements: a topology communicator. Parameters: none.
 */
#include "builders.h"

const cs_algo_t cs_algo_neighbor_allgatherv_coloured = {
    .name = "neighbor_allgatherv/coloured",
    .coll = CS_COLL_NEIGHBOR_ALLGATHERV,
    .desc = "Welsh-Powell edge colouring of the whole graph, one round per colour",
    .build = cs_build_neighbor_coloured,
    .setup = cs_neighbor_coloured_setup,
    .teardown = cs_neighbor_coloured_teardown,
};

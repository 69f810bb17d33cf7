/* neighbor_alltoall/balanced: high out-degree processes hand messages to low-degree
 * neighbours, which forward them (forwarding trees; for small blocks).
 *
 * The balanced schedule of neighbor_allgather/balanced (neighbor_allgather_balanced.c:
 * reference, setup and its cost, requirements, rounds, step table), on the blocks of
 * MPI_Neighbor_alltoall: a message may carry several blocks, packed in scratch. Parameters: t
 * (threshold, default 2, swept).
 */
#include "builders.h"

const cs_algo_t cs_algo_neighbor_alltoall_balanced = {
    .name = "neighbor_alltoall/balanced",
    .coll = CS_COLL_NEIGHBOR_ALLTOALL,
    .desc = "tree balancing (LogGP, threshold t): loaded processes hand messages to "
            "neighbours that forward them",
    .params = cs_neighbor_balanced_params,
    .nparams = 1,
    .variants = cs_neighbor_balanced_variants,
    .build = cs_build_neighbor_balanced,
    .setup = cs_neighbor_balanced_setup,
    .teardown = cs_neighbor_balanced_teardown,
};

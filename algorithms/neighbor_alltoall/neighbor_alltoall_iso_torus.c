/* neighbor_alltoall/iso_torus: the schedule of neighbor_allgather/iso_torus
 * (neighbor_allgather_iso_torus.c: reference, requirements, rounds, cost, step table) for the
 * blocks of MPI_Neighbor_alltoall: block i travels on its own along the dimensions of C^i; the
 * alltoall schedule alternates it between the intermediate and the receive buffer so that it
 * ends in receive block i (the paper's algorithm 1). Torus: V = sum over i of |C^i|_1; direct:
 * V = sum over i of the non-zero coordinates of C^i; straightforward: V = s.
 */
#include "builders.h"

const cs_algo_t cs_algo_neighbor_alltoall_iso_torus = {
    .name = "neighbor_alltoall/iso_torus",
    .coll = CS_COLL_NEIGHBOR_ALLTOALL,
    .desc = "isomorphic message combining, dimension-wise over immediate torus neighbours",
    .params = cs_neighbor_iso_params,
    .nparams = 1,
    .variants = cs_neighbor_iso_variants,
    .build = cs_build_neighbor_iso_torus,
    .setup = cs_neighbor_iso_setup,
    .teardown = cs_neighbor_iso_teardown,
};

/* neighbor_allgather/iso_direct: message combining for an isomorphic neighbourhood, dimension by
 * dimension, each block sent directly along a dimension (one message per distinct coordinate
 * value).
 *
 * Reference: Träff et al., "Message-Combining Algorithms for Isomorphic, Sparse Collective
 * Communication", section 5 (the direct variant of the dimension-wise algorithms). Schedule:
 * topo/iso.c (CS_ISO_DIRECT); executed, requirements, parameter `form` and costs as
 * neighbor_allgather/iso_torus (neighbor_allgather_iso_torus.c). Rounds: D = sum over j of the
 * number of distinct non-zero values of coordinate j; volume: the trie edges of non-zero value.
 * Fewer hops than iso_torus for offsets longer than 1 (2D Moore r = 2, alltoall: D = 8 for
 * both, V = 40 blocks against 60; 3D r = 2: V = 300 against 450), more rounds for
 * neighbourhoods with many distinct values in a dimension.
 *
 *   2D, Moore r = 1 (8 offsets), allgather: rounds in dimension 0 with values -1 and +1 carry the
 *   own block; rounds in dimension 1 with values -1 and +1 carry the own block and the two
 *   received in dimension 0 (3 parts each): D = 4, V = 8.
 */
#include "builders.h"

const cs_algo_t cs_algo_neighbor_allgather_iso_direct = {
    .name = "neighbor_allgather/iso_direct",
    .coll = CS_COLL_NEIGHBOR_ALLGATHER,
    .desc = "isomorphic message combining, dimension-wise, one hop per distinct coordinate value",
    .params = cs_neighbor_iso_params,
    .nparams = 1,
    .variants = cs_neighbor_iso_variants,
    .build = cs_build_neighbor_iso_direct,
    .setup = cs_neighbor_iso_setup,
    .teardown = cs_neighbor_iso_teardown,
};

/* neighbor_allgather/iso_straightforward: one round per neighbour of an isomorphic
 * neighbourhood, the paper's baseline.
 *
 * Reference: Träff et al., "Message-Combining Algorithms for Isomorphic, Sparse Collective
 * Communication", listing 4: round i sends the block to R + C^i and receives block i from
 * R - C^i, one message each way, so no rank is the end point of two messages of a round. Schedule:
 * topo/iso.c (CS_ISO_STRAIGHTFORWARD); requirements as neighbor_allgather/iso_torus. No
 * parameters: every message is one block, sent from and received into the user buffers. Rounds
 * D = s, volume V = s; cost s (alpha + n beta), against linear's alpha + s n beta with all
 * s messages in flight at once.
 *
 *   ring of 3 (d = 1), offsets -1, +1: round 0 send to R - 1, receive from R + 1 (block 0);
 *   round 1 send to R + 1, receive from R - 1 (block 1).
 */
#include "builders.h"

const cs_algo_t cs_algo_neighbor_allgather_iso_straightforward = {
    .name = "neighbor_allgather/iso_straightforward",
    .coll = CS_COLL_NEIGHBOR_ALLGATHER,
    .desc =
        "isomorphic neighbourhood, one round per neighbour (send to R + C^i, receive from R - C^i)",
    .build = cs_build_neighbor_iso_straightforward,
    .setup = cs_neighbor_iso_setup,
    .teardown = cs_neighbor_iso_teardown,
};

/* <coll>/native: the MPI library's own collectives, called through PMPI.
 *
 * These are the baseline every other algorithm is measured against and the selector's
 * fallback. cs_call_invoke() hands the MPI library the caller's arguments again, MPI_IN_PLACE
 * included.
 * Rounds, cost and requirements: whatever the MPI library does. Parameters: none.
 */
#include "core/algo.h"

static const cs_coll_fns_t pmpi = {PMPI_Bcast,     PMPI_Gather,    PMPI_Scatter,   PMPI_Reduce,
                                   PMPI_Allreduce, PMPI_Allgather, PMPI_Allgatherv};

static int run(const cs_call_t *c) {
    return cs_call_invoke(c, &pmpi) == MPI_SUCCESS ? CS_OK : CS_ERR_MPI;
}

#define NATIVE(coll_id, coll_name)                                                                 \
    const cs_algo_t cs_algo_##coll_name##_native = {                                               \
        .name = #coll_name "/native",                                                              \
        .coll = CS_COLL_##coll_id,                                                                 \
        .desc = "the MPI library's own collective",                                                \
        .run = run,                                                                                \
        .native = 1,                                                                               \
    };

NATIVE(BCAST, bcast)
NATIVE(GATHER, gather)
NATIVE(SCATTER, scatter)
NATIVE(REDUCE, reduce)
NATIVE(ALLREDUCE, allreduce)
NATIVE(ALLGATHER, allgather)
NATIVE(ALLGATHERV, allgatherv)

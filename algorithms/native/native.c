/* <coll>/native: the MPI library's own collectives, called through PMPI.
 *
 * These are the baseline every other algorithm is measured against and the selector's
 * fallback. cs_call_invoke() hands the MPI library the caller's arguments again, MPI_IN_PLACE
 * included.
 * Rounds, cost and requirements: whatever the MPI library does. Parameters: none.
 *
 * Generated from core/coll.def: the table of PMPI_<Mpi> functions, that of the nonblocking
 * PMPI_I<coll> ones (cs_native_ifns, call.h) and one descriptor
 * cs_algo_<name>_native per collective (cs_algo_bcast_native ...
 * cs_algo_neighbor_alltoallw_native).
 */
#include "core/algo.h"

static const cs_coll_fns_t pmpi = {
#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, ...) .name = PMPI_##Mpi,
#include "core/coll.def"
#undef CS_COLL
};

const cs_coll_ifns_t cs_native_ifns = {
#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ARGS, FILL, KEY, ARRAYS,       \
                CACHED, Impi)                                                                      \
    .name = PMPI_##Impi,
#include "core/coll.def"
#undef CS_COLL
};

static int run(const cs_call_t *c) {
    /* on the caller's communicator, whose error handler MPI has run already */
    int err = cs_call_invoke(c, &pmpi);
    return err == MPI_SUCCESS ? CS_OK : (cs_status_mpi(err), CS_ERR_MPI_RAISED);
}

#define CS_COLL(ID, coll_name, ...)                                                                \
    const cs_algo_t cs_algo_##coll_name##_native = {                                               \
        .name = #coll_name "/native",                                                              \
        .coll = CS_COLL_##ID,                                                                      \
        .desc = "the MPI library's own collective",                                                \
        .run = run,                                                                                \
        .native = 1,                                                                               \
    };
#include "core/coll.def"
#undef CS_COLL

/* The public entry points, generated from algorithms/core/coll.def, one per collective:
 *   collsel_bcast collsel_gather collsel_scatter collsel_reduce collsel_allreduce
 *   collsel_allgather collsel_allgatherv collsel_alltoall collsel_barrier
 *   collsel_reduce_scatter_block collsel_reduce_scatter collsel_scan collsel_exscan
 *   collsel_gatherv collsel_scatterv collsel_alltoallv
 *   collsel_neighbor_allgather collsel_neighbor_allgatherv collsel_neighbor_alltoall
 *   collsel_neighbor_alltoallv collsel_neighbor_alltoallw
 * (prototypes and their documentation in collsel.h, which the compiler checks these against),
 * and cs_sel_fns, the table of them.
 *
 * Each one: the call's key from its raw arguments (coll.def's KEY); for a cached collective
 * the native repeat inline, then the call cache and the rules (cs_sel_start), for the others
 * the rules by the key's size with the per-block arrays (ARRAYS, cs_sel_start_uncached); a
 * call that goes anywhere but native is filled (FILL), normalised and dispatched, a
 * neighbourhood collective with the communicator's neighbourhood (none: no topology, so the
 * call is MPI's), gatherv, scatterv and alltoallv after agreeing on their key in
 * cs_sel_dispatch (their start decides from the rules alone, see dispatch.c); everything else
 * goes to PMPI_<Mpi>. */
#include "collsel.h"

#include "select_int.h"

/* The raw send and receive buffers among coll.def's KEY arguments. */
#define KEY_SEND(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, op, root) sendbuf
#define KEY_RECV(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, op, root) recvbuf

#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ARGS, FILL, KEY, ARRAYS,       \
                CACHED, Impi)                                                                      \
    static int select_##name PARAMS __attribute__((noinline));                                     \
    int collsel_##name PARAMS {                                                                    \
        /* the native-always memo first, before any of the selector's frame is built */            \
        if (!(CACHED) && cs_sel_native_always(comm, CS_COLL_##ID)) {                               \
            return PMPI_##Mpi ARGS;                                                                \
        }                                                                                          \
        return select_##name ARGS;                                                                 \
    }                                                                                              \
    static int select_##name PARAMS {                                                              \
        const cs_call_key_t key = cs_call_key(CS_COLL_##ID, CS_UNPAREN KEY);                       \
        const cs_call_arrays_t arrays = {CS_UNPAREN ARRAYS};                                       \
        const void *raw_send = KEY_SEND KEY, *raw_recv = KEY_RECV KEY;                             \
        const cs_neighbors_t *nbrs = NULL;                                                         \
        cs_sel_at_t at;                                                                            \
        cs_call_t call;                                                                            \
        int rc;                                                                                    \
        switch (CACHED ? cs_sel_start(comm, &key, &at, raw_send, raw_recv, &rc)                    \
                       : cs_sel_start_uncached(comm, &key, &arrays, &at, &rc)) {                   \
        case CS_SEL_RAN:                                                                           \
            return cs_sel_mpi_status(rc, comm);                                                    \
        case CS_SEL_TO_DISPATCH:                                                                   \
            if (neighbor && cs_comm_neighbors(at.ctx, &nbrs) != CS_OK) {                           \
                break;                                                                             \
            }                                                                                      \
            FILL(&call, CS_UNPAREN ARGS);                                                          \
            if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs, nbrs) == CS_OK) {        \
                return cs_sel_mpi_status(                                                          \
                    cs_sel_dispatch(&at, &call, CACHED ? &key : NULL, raw_send, raw_recv), comm);  \
            }                                                                                      \
            break;                                                                                 \
        case CS_SEL_TO_PMPI:                                                                       \
            break;                                                                                 \
        }                                                                                          \
        return PMPI_##Mpi ARGS;                                                                    \
    }
#include "core/coll.def"
#undef CS_COLL

const cs_coll_fns_t cs_sel_fns = {
#define CS_COLL(ID, name, ...) .name = collsel_##name,
#include "core/coll.def"
#undef CS_COLL
};

/* libcollsel_pmpi: MPI_* collectives that dispatch through collsel.
 *
 * Link it (-lcollsel_pmpi) or preload it (LD_PRELOAD=libcollsel_pmpi.so) and an unmodified MPI
 * program's collectives go through collsel_*(), which calls the PMPI_* entry points for native
 * dispatch, so there is no recursion and profilers see the application's calls. Every other
 * MPI function stays the MPI library's.
 *
 * Generated from algorithms/core/coll.def, per collective:
 *   MPI_<Mpi>          (MPI_Bcast ... MPI_Neighbor_alltoallw)  return collsel_<name>(...);
 *   MPI_<Impi>         (MPI_Ibcast ...)                         return collsel_i<name>(...);
 *   MPIX_<Mpi>_init    (Open MPI's persistent collectives)      return collsel_<name>_init(...);
 *   MPI_<Mpi>_init     (MPI 4, when the MPI library has them)   the same.
 * and, so that collsel's requests complete and persistent ones start (docs/nonblocking.md),
 * MPI_Wait MPI_Test MPI_Waitall MPI_Testall MPI_Waitany MPI_Testany MPI_Waitsome MPI_Testsome
 * MPI_Request_get_status MPI_Request_free MPI_Start MPI_Startall, each the collsel_ function
 * of the same name (which hands every other request to the MPI library unchanged).
 *
 * So that nonblocking and persistent calls find a context (docs/nonblocking.md, "Which
 * communicators are served"): MPI_Init and MPI_Init_thread make MPI_COMM_WORLD's after the MPI
 * library's (collsel_prepare: nothing without a database or COLLSEL_FORCE), and the
 * communicator constructors below make the new communicator's when its nonblocking calls could
 * be served (collsel_prepare_new). Their return code is always the MPI library's. */
#include "collsel.h"

#include "core/call.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPIX_INIT(name, Mpi, PARAMS, ARGS)                                                         \
    COLLSEL_API int MPIX_##Mpi##_init CS_PARAMS_INIT PARAMS {                                      \
        return collsel_##name##_init CS_ARGS_INIT ARGS;                                            \
    }
#else
#define MPIX_INIT(name, Mpi, PARAMS, ARGS)
#endif
#if MPI_VERSION >= 4
#define MPI4_INIT(name, Mpi, PARAMS, ARGS)                                                         \
    COLLSEL_API int MPI_##Mpi##_init CS_PARAMS_INIT PARAMS {                                       \
        return collsel_##name##_init CS_ARGS_INIT ARGS;                                            \
    }
#else
#define MPI4_INIT(name, Mpi, PARAMS, ARGS)
#endif

#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ARGS, FILL, KEY, ARRAYS,       \
                CACHED, Impi)                                                                      \
    COLLSEL_API int MPI_##Mpi PARAMS {                                                             \
        return collsel_##name ARGS;                                                                \
    }                                                                                              \
    COLLSEL_API int MPI_##Impi CS_PARAMS_REQ PARAMS {                                              \
        return collsel_i##name CS_ARGS_REQ ARGS;                                                   \
    }                                                                                              \
    MPIX_INIT(name, Mpi, PARAMS, ARGS)                                                             \
    MPI4_INIT(name, Mpi, PARAMS, ARGS)
#include "core/coll.def"
#undef CS_COLL

COLLSEL_API int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    return collsel_wait(request, status);
}

COLLSEL_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    return collsel_test(request, flag, status);
}

COLLSEL_API int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    return collsel_waitall(count, requests, statuses);
}

COLLSEL_API int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    return collsel_testall(count, requests, flag, statuses);
}

COLLSEL_API int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    return collsel_waitany(count, requests, index, status);
}

COLLSEL_API int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                            MPI_Status *status) {
    return collsel_testany(count, requests, index, flag, status);
}

COLLSEL_API int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                             MPI_Status statuses[]) {
    return collsel_waitsome(incount, requests, outcount, indices, statuses);
}

COLLSEL_API int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                             MPI_Status statuses[]) {
    return collsel_testsome(incount, requests, outcount, indices, statuses);
}

COLLSEL_API int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    return collsel_request_get_status(request, flag, status);
}

COLLSEL_API int MPI_Request_free(MPI_Request *request) {
    return collsel_request_free(request);
}

COLLSEL_API int MPI_Start(MPI_Request *request) {
    return collsel_start(request);
}

COLLSEL_API int MPI_Startall(int count, MPI_Request requests[]) {
    return collsel_startall(count, requests);
}

COLLSEL_API int MPI_Init(int *argc, char ***argv) {
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS) {
        collsel_prepare(MPI_COMM_WORLD);
    }
    return err;
}

COLLSEL_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS) {
        collsel_prepare(MPI_COMM_WORLD);
    }
    return err;
}

/* The constructors: the MPI library's, then collsel_prepare_new with the parent and the new
 * communicator (MPI_COMM_NULL on the processes outside it; an intercommunicator: nothing but the
 * parent's count). MPI_Comm_create_group is collective over the group only, so its parent's
 * count would differ between ranks: it passes no parent. */
#define PREPARED(call, parent, newcomm)                                                            \
    do {                                                                                           \
        int err_ = (call);                                                                         \
        if (err_ == MPI_SUCCESS) {                                                                 \
            collsel_prepare_new((parent), *(newcomm));                                             \
        }                                                                                          \
        return err_;                                                                               \
    } while (0)

COLLSEL_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    PREPARED(PMPI_Comm_dup(comm, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
    PREPARED(PMPI_Comm_dup_with_info(comm, info, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    PREPARED(PMPI_Comm_split(comm, color, key, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                    MPI_Comm *newcomm) {
    PREPARED(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    PREPARED(PMPI_Comm_create(comm, group, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
    PREPARED(PMPI_Comm_create_group(comm, group, tag, newcomm), MPI_COMM_NULL, newcomm);
}

COLLSEL_API int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                                int reorder, MPI_Comm *newcomm) {
    PREPARED(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
    PREPARED(PMPI_Cart_sub(comm, remain_dims, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                                 int reorder, MPI_Comm *newcomm) {
    PREPARED(PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), comm, newcomm);
}

COLLSEL_API int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                                      const int degrees[], const int destinations[],
                                      const int weights[], MPI_Info info, int reorder,
                                      MPI_Comm *newcomm) {
    PREPARED(PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder,
                                    newcomm),
             comm, newcomm);
}

COLLSEL_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree,
                                               const int destinations[], const int destweights[],
                                               MPI_Info info, int reorder, MPI_Comm *newcomm) {
    PREPARED(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                             destinations, destweights, info, reorder, newcomm),
             comm, newcomm);
}

/* libcollsel_pmpi: MPI_* collectives that dispatch through collsel.
 *
 * Link it (-lcollsel_pmpi) or preload it (LD_PRELOAD=libcollsel_pmpi.so) and an unmodified MPI
 * program's collectives go through collsel_*(), which calls the PMPI_* entry points for native
 * dispatch, so there is no recursion and profilers see the application's calls. Every other
 * MPI function stays the MPI library's.
 *
 * Generated from algorithms/core/coll.def, one wrapper per collective:
 *   MPI_Bcast MPI_Gather MPI_Scatter MPI_Reduce MPI_Allreduce MPI_Allgather MPI_Allgatherv
 *   MPI_Alltoall MPI_Barrier MPI_Reduce_scatter_block MPI_Reduce_scatter
 *   MPI_Alltoall MPI_Barrier MPI_Scan MPI_Exscan
 *   MPI_Alltoall MPI_Barrier MPI_Gatherv MPI_Scatterv MPI_Alltoallv
 *   MPI_Neighbor_allgather MPI_Neighbor_allgatherv MPI_Neighbor_alltoall MPI_Neighbor_alltoallv
 *   MPI_Neighbor_alltoallw
 * each `return collsel_<name>(<its arguments>);`. */
#include "collsel.h"

#include "core/call.h"

#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ARGS, ...)                     \
    COLLSEL_API int MPI_##Mpi PARAMS {                                                             \
        return collsel_##name ARGS;                                                                \
    }
#include "core/coll.def"
#undef CS_COLL

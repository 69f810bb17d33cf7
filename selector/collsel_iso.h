/**
 * @file collsel_iso.h
 * @brief Isomorphic, sparse neighbourhood collectives with message combining.
 *
 * After Träff, Carpen-Amarie, Hunold and Rougier, "Message-Combining Algorithms for Isomorphic,
 * Sparse Collective Communication" (listings 1 and 2). Every process of a periodic Cartesian
 * communicator has the same list of s relative neighbour offsets; process R sends block i to
 * R + C^i and receives block i from R - C^i. Because the neighbourhood is the same everywhere,
 * the blocks can be combined into few messages (docs/message-combining.md: schedules, rounds D,
 * volume V).
 *
 * Schedules: `straightforward` (s rounds, one block each), `torus` (dimension-wise over
 * immediate torus neighbours, the default) and `direct` (dimension-wise, one round per distinct
 * coordinate value). The schedule is chosen at init time by rank 0's environment variable
 * COLLSEL_ISO_SCHEDULE=straightforward|torus|direct; an unknown value means the default.
 * Selection from tuned rules is not done yet.
 *
 * Errors are returned as MPI error classes (MPI_SUCCESS on success); the communicator's error
 * handler is not called.
 */
#ifndef COLLSEL_ISO_H
#define COLLSEL_ISO_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef COLLSEL_API
#define COLLSEL_API __attribute__((visibility("default")))
#endif

/** @brief A persistent isomorphic collective (opaque); COLLSEL_ISO_REQUEST_NULL when empty. */
typedef struct collsel_iso_request_s *collsel_iso_request;

/** @brief The empty request handle. */
#define COLLSEL_ISO_REQUEST_NULL ((collsel_iso_request)0)

/**
 * @brief Attaches an isomorphic neighbourhood to a new communicator (listing 1). Collective.
 *
 * @param cartcomm a Cartesian communicator, periodic in every dimension (d dimensions).
 * @param s the number of neighbours, >= 0, the same on every process.
 * @param relative_coords s * d offsets, neighbour i's at [i * d .. i * d + d - 1], the same
 *        list on every process (compared against rank 0's); repeated offsets, the zero offset
 *        and offsets beyond the torus size are allowed (magnitude at most 65536).
 * @param isocomm out: a new distributed-graph communicator with the same ranks, targets
 *        R + C^i and sources R - C^i in list order (so MPI_Neighbor_* on it are the reference),
 *        carrying the neighbourhood. Free it with MPI_Comm_free.
 * @return MPI_SUCCESS; otherwise the same error on every process, *isocomm = MPI_COMM_NULL and
 *         nothing allocated: MPI_ERR_TOPOLOGY (not Cartesian, or a dimension not periodic),
 *         MPI_ERR_ARG (s or the list differs from rank 0's, s < 0, an offset too large, NULL
 *         list with s > 0), MPI_ERR_NO_MEM, or the error of a failing MPI call.
 */
COLLSEL_API int collsel_iso_neighborhood_create(MPI_Comm cartcomm, int s,
                                                const int relative_coords[], MPI_Comm *isocomm);

/**
 * @brief Prepares a regular isomorphic alltoall (listing 2). Collective over isocomm.
 *
 * sendbuf holds s blocks of sendcount sendtype (block i goes to R + C^i), recvbuf s blocks of
 * recvcount recvtype (block i from R - C^i), as MPI_Neighbor_alltoall on isocomm. Buffers and
 * types are bound here and used by every collsel_iso_start; the types must stay valid and
 * isocomm must stay alive until collsel_iso_request_free. Any datatype works (derived, with a
 * lower bound); sendcount * size(sendtype) must equal recvcount * size(recvtype).
 *
 * @return MPI_SUCCESS and a new request in *request; MPI_ERR_COMM (isocomm carries no
 *         neighbourhood), MPI_ERR_ARG, MPI_ERR_NO_MEM, or a failing MPI call's error, with
 *         *request = COLLSEL_ISO_REQUEST_NULL.
 */
COLLSEL_API int collsel_iso_neighbor_alltoall_init(const void *sendbuf, int sendcount,
                                                   MPI_Datatype sendtype, void *recvbuf,
                                                   int recvcount, MPI_Datatype recvtype,
                                                   MPI_Comm isocomm, collsel_iso_request *request);

/**
 * @brief Prepares a regular isomorphic allgather (listing 2): sendbuf is one block, sent to
 *        every target; recvbuf s blocks. Otherwise as collsel_iso_neighbor_alltoall_init.
 */
COLLSEL_API int collsel_iso_neighbor_allgather_init(const void *sendbuf, int sendcount,
                                                    MPI_Datatype sendtype, void *recvbuf,
                                                    int recvcount, MPI_Datatype recvtype,
                                                    MPI_Comm isocomm, collsel_iso_request *request);

/**
 * @brief Runs the whole collective of *request, blocking (collective over its isocomm).
 *        Nothing is allocated. @return MPI_SUCCESS or a failing MPI call's error.
 */
COLLSEL_API int collsel_iso_start(collsel_iso_request *request);

/**
 * @brief Frees *request (local) and sets it to COLLSEL_ISO_REQUEST_NULL; a null request is
 *        fine. @return MPI_SUCCESS.
 */
COLLSEL_API int collsel_iso_request_free(collsel_iso_request *request);

/** @brief One blocking isomorphic alltoall: init, start and free. */
COLLSEL_API int collsel_iso_neighbor_alltoall(const void *sendbuf, int sendcount,
                                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                              MPI_Datatype recvtype, MPI_Comm isocomm);

/** @brief One blocking isomorphic allgather: init, start and free. */
COLLSEL_API int collsel_iso_neighbor_allgather(const void *sendbuf, int sendcount,
                                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                               MPI_Datatype recvtype, MPI_Comm isocomm);

#ifdef __cplusplus
}
#endif

#endif

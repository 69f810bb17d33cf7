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
 * Schedules (registered algorithms of MPI_Neighbor_alltoall and MPI_Neighbor_allgather):
 * `iso_straightforward` (s rounds, one block each), `iso_torus` (dimension-wise over immediate
 * torus neighbours) and `iso_direct` (dimension-wise, one round per distinct coordinate value),
 * each packed or zero-copy (parameter `form`). An init call picks what runs the collective, the
 * same on every process: rank 0's COLLSEL_ISO_SCHEDULE if it names a variant
 * (`torus(form=packed)`, `direct`, `iso_straightforward`, `linear`, `native` ...), else
 * COLLSEL_FORCE or the tuned rules of the regular collective for the call's block size (its
 * ranked candidates in turn), else the MPI library's MPI_Neighbor_* on isocomm. The irregular
 * forms take the regular collective's choice at their mean block size; a schedule that cannot
 * serve a call (an iso schedule needs blocks of equal size in bytes at both ends of each
 * neighbour: the isomorphic requirement) is passed over. collsel_explain and COLLSEL_VERBOSE
 * name the rule as for any neighbourhood collective on isocomm.
 *
 * Irregular forms (listing 3): counts per neighbour; the v forms' displacements are in elements
 * of the type's extent (as MPI_Neighbor_alltoallv's, but MPI_Aint as in the paper), the w forms'
 * in bytes with a type per neighbour (as MPI_Neighbor_alltoallw's; they run the iso schedules in
 * their zero-copy form, one struct datatype per round). Isomorphic means every
 * process passes the same block sizes, and send block i has the size of receive block i. The
 * arrays are copied at init.
 *
 * Errors are returned as MPI error classes (MPI_SUCCESS on success), the same on every process
 * for the collective calls; the communicator's error handler is not called.
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
 *        carrying the neighbourhood (so do its duplicates, MPI_Comm_dup). Free it with
 *        MPI_Comm_free. MPI_Neighbor_alltoall and MPI_Neighbor_allgather on it (under
 *        libcollsel_pmpi, or collsel_neighbor_*) are dispatched like the init calls.
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
 * @brief Prepares an irregular isomorphic alltoall (listing 3): block i is sendcounts[i]
 *        sendtype at element displacement senddispls[i], received as recvcounts[i] recvtype at
 *        recvdispls[i]. Otherwise as collsel_iso_neighbor_alltoall_init.
 */
COLLSEL_API int collsel_iso_neighbor_alltoallv_init(
    const void *sendbuf, const int sendcounts[], const MPI_Aint senddispls[], MPI_Datatype sendtype,
    void *recvbuf, const int recvcounts[], const MPI_Aint recvdispls[], MPI_Datatype recvtype,
    MPI_Comm isocomm, collsel_iso_request *request);

/**
 * @brief Prepares an irregular isomorphic allgather (listing 3): one send block, received from
 *        neighbour i as recvcounts[i] recvtype at element displacement recvdispls[i].
 */
COLLSEL_API int collsel_iso_neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                                     MPI_Datatype sendtype, void *recvbuf,
                                                     const int recvcounts[],
                                                     const MPI_Aint recvdispls[],
                                                     MPI_Datatype recvtype, MPI_Comm isocomm,
                                                     collsel_iso_request *request);

/**
 * @brief Prepares an isomorphic alltoall with a type per block (listing 3): byte
 *        displacements, as MPI_Neighbor_alltoallw.
 */
COLLSEL_API int collsel_iso_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                                    const MPI_Aint senddispls[],
                                                    const MPI_Datatype sendtypes[], void *recvbuf,
                                                    const int recvcounts[],
                                                    const MPI_Aint recvdispls[],
                                                    const MPI_Datatype recvtypes[],
                                                    MPI_Comm isocomm, collsel_iso_request *request);

/**
 * @brief Prepares an isomorphic allgather with a type per received block (listing 3): byte
 *        displacements.
 */
COLLSEL_API int
collsel_iso_neighbor_allgatherw_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[],
                                     const MPI_Aint recvdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm isocomm, collsel_iso_request *request);

/**
 * @brief Runs the whole collective of *request, blocking (collective over its isocomm).
 *        Nothing is allocated. @return MPI_SUCCESS or a failing MPI call's error.
 */
COLLSEL_API int collsel_iso_start(collsel_iso_request *request);

/**
 * @brief Writes the name of what runs *request (a registered variant such as
 *        "neighbor_alltoall/iso_torus(form=packed)", or "<coll>/native") into buf (len bytes,
 *        truncated, always terminated). Local. @return MPI_SUCCESS, MPI_ERR_REQUEST for a null
 *        request, MPI_ERR_ARG for a NULL buf or len < 1.
 */
COLLSEL_API int collsel_iso_request_algorithm(collsel_iso_request request, char *buf, int len);

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

/** @brief One blocking irregular isomorphic alltoall: init, start and free. */
COLLSEL_API int collsel_iso_neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                               const MPI_Aint senddispls[], MPI_Datatype sendtype,
                                               void *recvbuf, const int recvcounts[],
                                               const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                               MPI_Comm isocomm);

/** @brief One blocking irregular isomorphic allgather: init, start and free. */
COLLSEL_API int collsel_iso_neighbor_allgatherv(const void *sendbuf, int sendcount,
                                                MPI_Datatype sendtype, void *recvbuf,
                                                const int recvcounts[], const MPI_Aint recvdispls[],
                                                MPI_Datatype recvtype, MPI_Comm isocomm);

/** @brief One blocking isomorphic alltoallw: init, start and free. */
COLLSEL_API int collsel_iso_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                               const MPI_Aint senddispls[],
                                               const MPI_Datatype sendtypes[], void *recvbuf,
                                               const int recvcounts[], const MPI_Aint recvdispls[],
                                               const MPI_Datatype recvtypes[], MPI_Comm isocomm);

/** @brief One blocking isomorphic allgatherw: init, start and free. */
COLLSEL_API int collsel_iso_neighbor_allgatherw(const void *sendbuf, int sendcount,
                                                MPI_Datatype sendtype, void *recvbuf,
                                                const int recvcounts[], const MPI_Aint recvdispls[],
                                                const MPI_Datatype recvtypes[], MPI_Comm isocomm);

#ifdef __cplusplus
}
#endif

#endif

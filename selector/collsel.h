/**
 * @file collsel.h
 * @brief collsel: MPI collectives dispatched to the algorithm tuned fastest for this machine.
 *
 * A tuning run (collsel-bench) stores, per collective, communicator size and message size,
 * which algorithm beat the MPI library's own collective. Link libcollsel and call the
 * collsel_* functions below instead of the MPI ones (same arguments, same semantics), or link
 * or preload libcollsel_pmpi to dispatch unmodified MPI_* calls.
 *
 * Rules are read once: rank 0 of the first communicator used opens the database read-only and
 * broadcasts the rules. On any doubt (no database, an unreadable, corrupt or foreign one, no
 * rule for a call, a tuned algorithm that cannot run a call) the call goes to the MPI library's
 * own collective. collsel never aborts the application and prints nothing unless asked
 * (COLLSEL_VERBOSE) or the database given is unusable (one warning, from rank 0).
 *
 * Environment:
 *  - COLLSEL_DB=path             the tuning database (also collsel_init's argument)
 *  - COLLSEL_DISABLE=1           pass every call straight to MPI
 *  - COLLSEL_FORCE='allreduce/recursive_doubling;bcast/binomial'  run these algorithms
 *  - COLLSEL_FALLBACK=silent|warn|error  what a forced algorithm that cannot run a call does:
 *                                run native quietly (default), run native and warn, or
 *                                fail: MPI_ERR_OTHER through the communicator's error handler
 *                                (rank 0 of the communicator says why, once per process and
 *                                collective)
 *  - COLLSEL_VERBOSE=0..3        0 silent; 1 one summary line from rank 0; 2 the decisions per
 *                                communicator; 3 every call
 * A bad value gets a message naming it and is ignored.
 *
 * The functions are safe to call from several threads when MPI is initialised with
 * MPI_THREAD_MULTIPLE, as far as the underlying MPI calls are.
 */
#ifndef COLLSEL_H
#define COLLSEL_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Marks what libcollsel exports; everything else in it is hidden. */
#define COLLSEL_API __attribute__((visibility("default")))

/**
 * @brief Sets the tuning database and reads the environment. Optional.
 *
 * @param db_path database file; NULL means $COLLSEL_DB (no database: every call is native).
 * @return MPI_SUCCESS. The first call wins; later calls (from any thread) do nothing. Opening
 *         the database happens on first use of a communicator, collectively.
 */
COLLSEL_API int collsel_init(const char *db_path);

/**
 * @brief Forgets the rules. Collectives called afterwards are native until collsel_init.
 *        Per-communicator state is freed with the communicators (at MPI_Finalize for the
 *        predefined ones).
 * @return MPI_SUCCESS.
 */
COLLSEL_API int collsel_finalize(void);

/* The entry points below are defined from one table, algorithms/core/coll.def
 * (selector/entry.c); the compiler checks them against these prototypes. */
/** @brief MPI_Bcast, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                              MPI_Comm comm);
/** @brief MPI_Gather, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm);
/** @brief MPI_Scatter, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm);
/** @brief MPI_Reduce, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, int root, MPI_Comm comm);
/** @brief MPI_Allreduce, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_allreduce(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
/** @brief MPI_Allgather, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm);
/** @brief MPI_Allgatherv, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm);
/** @brief MPI_Alltoall, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm);
/** @brief MPI_Barrier, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_barrier(MPI_Comm comm);
/** @brief MPI_Reduce_scatter_block, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
/** @brief MPI_Reduce_scatter, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
/** @brief MPI_Scan, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm);
/** @brief MPI_Exscan, dispatched to the tuned algorithm (rank 0's recvbuf is undefined, as in
 *  MPI; collsel's own algorithms leave it untouched). */
COLLSEL_API int collsel_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm);

/* The v-collectives whose count arrays no rank knows whole (gatherv, scatterv: the root only;
 * alltoallv: each rank its own row and column) agree on their size with one small collective
 * per call before choosing, so that every rank chooses alike; when the rules for the
 * collective are native at every size (or there are none) they go to the MPI library
 * without it. */
/** @brief MPI_Gatherv, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, int root, MPI_Comm comm);
/** @brief MPI_Scatterv, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int root, MPI_Comm comm);
/** @brief MPI_Alltoallv, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

/* The neighbourhood collectives run on the neighbours of a communicator made by
 * MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create or MPI_Dist_graph_create_adjacent
 * (collsel queries them once per communicator). On a communicator without a topology, and
 * for any call collsel cannot serve (MPI_IN_PLACE, a negative count, a null datatype), they
 * call the MPI library's collective with the same arguments, so its error handling applies. */
/** @brief MPI_Neighbor_allgather, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_neighbor_allgather(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm);
/** @brief MPI_Neighbor_allgatherv, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_neighbor_allgatherv(const void *sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void *recvbuf,
                                            const int recvcounts[], const int displs[],
                                            MPI_Datatype recvtype, MPI_Comm comm);
/** @brief MPI_Neighbor_alltoall, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                          MPI_Comm comm);
/** @brief MPI_Neighbor_alltoallv, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                           const int sdispls[], MPI_Datatype sendtype,
                                           void *recvbuf, const int recvcounts[],
                                           const int rdispls[], MPI_Datatype recvtype,
                                           MPI_Comm comm);
/** @brief MPI_Neighbor_alltoallw, dispatched to the tuned algorithm. */
COLLSEL_API int collsel_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                           void *recvbuf, const int recvcounts[],
                                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                           MPI_Comm comm);

/**
 * @brief Says which algorithm a call would run, and why.
 *
 * @param coll  collective name: "bcast", "gather", "scatter", "reduce", "allreduce",
 *              "allgather", "allgatherv", "alltoall", "barrier", "reduce_scatter_block",
 *              "reduce_scatter", "scan", "exscan", "gatherv", "scatterv", "alltoallv",
 *              "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall",
 *              "neighbor_alltoallv" or "neighbor_alltoallw".
 * @param bytes the call's size: bytes per process (scan, exscan: the vector, count x size of
 *              datatype; allgatherv, reduce_scatter, gatherv, scatterv: mean bytes per block
 *              over the p blocks; alltoall: bytes per block, what one rank sends to one other;
 *              reduce_scatter_block: bytes per block, what each rank gets; alltoallv: mean bytes
 *              per block over the p * p blocks; barrier: 0;
 *              neighbor_allgather, neighbor_alltoall: bytes per block; the other
 *              neighbourhood collectives: mean bytes per edge, sent and received).
 * @param comm  the communicator (collective on first use of comm, like any collsel call).
 * @param buf   receives one line of text, always NUL-terminated when len > 0.
 * @param len   size of buf.
 * @return MPI_SUCCESS, or MPI_ERR_ARG for an unknown collective or NULL buf.
 *
 * Assumes a call that every ranked candidate can run (commutative op, any root).
 */
COLLSEL_API int collsel_explain(const char *coll, size_t bytes, MPI_Comm comm, char *buf,
                                size_t len);

#ifdef __cplusplus
}
#endif

#endif

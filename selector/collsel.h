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
 *         the database happens on first use of a communicator, collectively. When db_path
 *         names another database than $COLLSEL_DB, rules already loaded from $COLLSEL_DB
 *         (libcollsel_pmpi's MPI_Init loads them) are forgotten as by collsel_finalize: each
 *         communicator takes the new ones at its next blocking collsel call (collectively),
 *         its nonblocking calls are native until then. Call it at the same point on every rank.
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

/* Nonblocking and persistent collectives (docs/nonblocking.md), defined from the same table
 * (selector/nb.c). The requests are MPI requests (generalized requests) that any MPI completion
 * call completes, mixed with other requests, but collsel's schedules progress only inside
 * collsel calls: with libcollsel_pmpi linked or preloaded, MPI_Wait ... MPI_Startall are
 * collsel_wait ... collsel_startall below; without it, complete them with those functions (or
 * call collsel_progress() until an MPI_Test says done). A nonblocking call or persistent init
 * never communicates: it runs a collsel schedule only on a communicator that already has its
 * collsel context (made collectively by collsel_prepare, an earlier blocking collective
 * through collsel, or, in libcollsel_pmpi, MPI_Init for MPI_COMM_WORLD and the communicator
 * constructors, see collsel_prepare_new), with the same choice as the blocking
 * collective, and otherwise calls the MPI library's nonblocking collective or persistent init
 * with the same arguments. Persistent requests are started with
 * collsel_start/collsel_startall (MPI_Start/MPI_Startall) and freed with collsel_request_free
 * (MPI_Request_free). */
/** @brief MPI_Ibcast: a nonblocking collsel_bcast. */
COLLSEL_API int collsel_ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                               MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Igather: a nonblocking collsel_gather. */
COLLSEL_API int collsel_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Iscatter: a nonblocking collsel_scatter. */
COLLSEL_API int collsel_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Ireduce: a nonblocking collsel_reduce. */
COLLSEL_API int collsel_ireduce(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                MPI_Request *request);
/** @brief MPI_Iallreduce: a nonblocking collsel_allreduce. */
COLLSEL_API int collsel_iallreduce(const void *sendbuf, void *recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Request *request);
/** @brief MPI_Iallgather: a nonblocking collsel_allgather. */
COLLSEL_API int collsel_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Iallgatherv: a nonblocking collsel_allgatherv. */
COLLSEL_API int collsel_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Ialltoall: a nonblocking collsel_alltoall. */
COLLSEL_API int collsel_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Ibarrier: a nonblocking collsel_barrier. */
COLLSEL_API int collsel_ibarrier(MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Ireduce_scatter_block: a nonblocking collsel_reduce_scatter_block. */
COLLSEL_API int collsel_ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                              MPI_Request *request);
/** @brief MPI_Ireduce_scatter: a nonblocking collsel_reduce_scatter. */
COLLSEL_API int collsel_ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Request *request);
/** @brief MPI_Iscan: a nonblocking collsel_scan. */
COLLSEL_API int collsel_iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Iexscan: a nonblocking collsel_exscan. */
COLLSEL_API int collsel_iexscan(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request);
/** @brief MPI_Igatherv: a nonblocking collsel_gatherv. */
COLLSEL_API int collsel_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, int root, MPI_Comm comm,
                                 MPI_Request *request);
/** @brief MPI_Iscatterv: a nonblocking collsel_scatterv. */
COLLSEL_API int collsel_iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                                  MPI_Request *request);
/** @brief MPI_Ialltoallv: a nonblocking collsel_alltoallv. */
COLLSEL_API int collsel_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Request *request);
/** @brief MPI_Ineighbor_allgather: a nonblocking collsel_neighbor_allgather. */
COLLSEL_API int collsel_ineighbor_allgather(const void *sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Request *request);
/** @brief MPI_Ineighbor_allgatherv: a nonblocking collsel_neighbor_allgatherv. */
COLLSEL_API int collsel_ineighbor_allgatherv(const void *sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm,
                                             MPI_Request *request);
/** @brief MPI_Ineighbor_alltoall: a nonblocking collsel_neighbor_alltoall. */
COLLSEL_API int collsel_ineighbor_alltoall(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Request *request);
/** @brief MPI_Ineighbor_alltoallv: a nonblocking collsel_neighbor_alltoallv. */
COLLSEL_API int collsel_ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                            const int sdispls[], MPI_Datatype sendtype,
                                            void *recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Request *request);
/** @brief MPI_Ineighbor_alltoallw: a nonblocking collsel_neighbor_alltoallw. */
COLLSEL_API int collsel_ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                            const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void *recvbuf,
                                            const int recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Request *request);
/** @brief MPI_Bcast_init (MPI 4; Open MPI: MPIX_Bcast_init): a persistent collsel_bcast. */
COLLSEL_API int collsel_bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
/** @brief MPI_Gather_init (MPI 4; Open MPI: MPIX_Gather_init): a persistent collsel_gather. */
COLLSEL_API int collsel_gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
/** @brief MPI_Scatter_init (MPI 4; Open MPI: MPIX_Scatter_init): a persistent collsel_scatter. */
COLLSEL_API int collsel_scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
/** @brief MPI_Reduce_init (MPI 4; Open MPI: MPIX_Reduce_init): a persistent collsel_reduce. */
COLLSEL_API int collsel_reduce_init(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request);
/** @brief MPI_Allreduce_init (MPI 4; Open MPI: MPIX_Allreduce_init): a persistent
 * collsel_allreduce. */
COLLSEL_API int collsel_allreduce_init(const void *sendbuf, void *recvbuf, int count,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                       MPI_Info info, MPI_Request *request);
/** @brief MPI_Allgather_init (MPI 4; Open MPI: MPIX_Allgather_init): a persistent
 * collsel_allgather. */
COLLSEL_API int collsel_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
/** @brief MPI_Allgatherv_init (MPI 4; Open MPI: MPIX_Allgatherv_init): a persistent
 * collsel_allgatherv. */
COLLSEL_API int collsel_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *request);
/** @brief MPI_Alltoall_init (MPI 4; Open MPI: MPIX_Alltoall_init): a persistent collsel_alltoall.
 */
COLLSEL_API int collsel_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Info info, MPI_Request *request);
/** @brief MPI_Barrier_init (MPI 4; Open MPI: MPIX_Barrier_init): a persistent collsel_barrier. */
COLLSEL_API int collsel_barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
/** @brief MPI_Reduce_scatter_block_init (MPI 4; Open MPI: MPIX_Reduce_scatter_block_init): a
 * persistent collsel_reduce_scatter_block. */
COLLSEL_API int collsel_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                                  MPI_Info info, MPI_Request *request);
/** @brief MPI_Reduce_scatter_init (MPI 4; Open MPI: MPIX_Reduce_scatter_init): a persistent
 * collsel_reduce_scatter. */
COLLSEL_API int collsel_reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                            const int recvcounts[], MPI_Datatype datatype,
                                            MPI_Op op, MPI_Comm comm, MPI_Info info,
                                            MPI_Request *request);
/** @brief MPI_Scan_init (MPI 4; Open MPI: MPIX_Scan_init): a persistent collsel_scan. */
COLLSEL_API int collsel_scan_init(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
/** @brief MPI_Exscan_init (MPI 4; Open MPI: MPIX_Exscan_init): a persistent collsel_exscan. */
COLLSEL_API int collsel_exscan_init(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request);
/** @brief MPI_Gatherv_init (MPI 4; Open MPI: MPIX_Gatherv_init): a persistent collsel_gatherv. */
COLLSEL_API int collsel_gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request);
/** @brief MPI_Scatterv_init (MPI 4; Open MPI: MPIX_Scatterv_init): a persistent collsel_scatterv.
 */
COLLSEL_API int collsel_scatterv_init(const void *sendbuf, const int sendcounts[],
                                      const int displs[], MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                      MPI_Info info, MPI_Request *request);
/** @brief MPI_Alltoallv_init (MPI 4; Open MPI: MPIX_Alltoallv_init): a persistent
 * collsel_alltoallv. */
COLLSEL_API int collsel_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                       MPI_Request *request);
/** @brief MPI_Neighbor_allgather_init (MPI 4; Open MPI: MPIX_Neighbor_allgather_init): a persistent
 * collsel_neighbor_allgather. */
COLLSEL_API int collsel_neighbor_allgather_init(const void *sendbuf, int sendcount,
                                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                                MPI_Request *request);
/** @brief MPI_Neighbor_allgatherv_init (MPI 4; Open MPI: MPIX_Neighbor_allgatherv_init): a
 * persistent collsel_neighbor_allgatherv. */
COLLSEL_API int collsel_neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                                 MPI_Datatype sendtype, void *recvbuf,
                                                 const int recvcounts[], const int displs[],
                                                 MPI_Datatype recvtype, MPI_Comm comm,
                                                 MPI_Info info, MPI_Request *request);
/** @brief MPI_Neighbor_alltoall_init (MPI 4; Open MPI: MPIX_Neighbor_alltoall_init): a persistent
 * collsel_neighbor_alltoall. */
COLLSEL_API int collsel_neighbor_alltoall_init(const void *sendbuf, int sendcount,
                                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                               MPI_Request *request);
/** @brief MPI_Neighbor_alltoallv_init (MPI 4; Open MPI: MPIX_Neighbor_alltoallv_init): a persistent
 * collsel_neighbor_alltoallv. */
COLLSEL_API int collsel_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                                const int sdispls[], MPI_Datatype sendtype,
                                                void *recvbuf, const int recvcounts[],
                                                const int rdispls[], MPI_Datatype recvtype,
                                                MPI_Comm comm, MPI_Info info, MPI_Request *request);
/** @brief MPI_Neighbor_alltoallw_init (MPI 4; Open MPI: MPIX_Neighbor_alltoallw_init): a persistent
 * collsel_neighbor_alltoallw. */
COLLSEL_API int collsel_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                                const MPI_Aint sdispls[],
                                                const MPI_Datatype sendtypes[], void *recvbuf,
                                                const int recvcounts[], const MPI_Aint rdispls[],
                                                const MPI_Datatype recvtypes[], MPI_Comm comm,
                                                MPI_Info info, MPI_Request *request);

/** @brief Advances every outstanding collsel nonblocking or persistent operation (completing the
 *  requests of those that finished). Never blocks. @return MPI_SUCCESS. */
COLLSEL_API int collsel_progress(void);
/* MPI's completion and start functions for arrays that may hold collsel requests among any
 * others (point-to-point, the MPI library's own collectives, MPI_REQUEST_NULL): they progress
 * collsel's operations, keep persistent collsel handles in place, and otherwise behave exactly
 * like the MPI function of the same name (MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE accepted). */
/** @brief MPI_Wait that progresses collsel's operations. */
COLLSEL_API int collsel_wait(MPI_Request *request, MPI_Status *status);
/** @brief MPI_Test that progresses collsel's operations. */
COLLSEL_API int collsel_test(MPI_Request *request, int *flag, MPI_Status *status);
/** @brief MPI_Waitall that progresses collsel's operations. */
COLLSEL_API int collsel_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
/** @brief MPI_Testall that progresses collsel's operations. */
COLLSEL_API int collsel_testall(int count, MPI_Request requests[], int *flag,
                                MPI_Status statuses[]);
/** @brief MPI_Waitany that progresses collsel's operations. */
COLLSEL_API int collsel_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
/** @brief MPI_Testany that progresses collsel's operations. */
COLLSEL_API int collsel_testany(int count, MPI_Request requests[], int *index, int *flag,
                                MPI_Status *status);
/** @brief MPI_Waitsome that progresses collsel's operations. */
COLLSEL_API int collsel_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                                 MPI_Status statuses[]);
/** @brief MPI_Testsome that progresses collsel's operations. */
COLLSEL_API int collsel_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                                 MPI_Status statuses[]);
/** @brief MPI_Request_get_status that progresses collsel's operations. */
COLLSEL_API int collsel_request_get_status(MPI_Request request, int *flag, MPI_Status *status);
/** @brief MPI_Request_free: a persistent collsel request is freed (an active run finishes in the
 *  background first); an active nonblocking collsel request finishes in the background (later
 *  collsel calls, at the latest MPI_Finalize) and is freed then. */
COLLSEL_API int collsel_request_free(MPI_Request *request);
/** @brief MPI_Start: starts a persistent collsel request (any other goes to MPI_Start). */
COLLSEL_API int collsel_start(MPI_Request *request);
/** @brief MPI_Startall: collsel_start on each request in turn. */
COLLSEL_API int collsel_startall(int count, MPI_Request requests[]);

/**
 * @brief Makes comm's collsel context now, so that its nonblocking and persistent calls are
 *        served from the first (docs/nonblocking.md, "Which communicators are served").
 *
 * Collective over comm, like the first blocking collsel call on it, which it saves from
 * warm-up (COLLSEL_WARMUP). Does nothing when collsel is disabled or finalized, when no
 * database is named (collsel_init, COLLSEL_DB) and COLLSEL_FORCE names nothing, for
 * MPI_COMM_NULL and for intercommunicators, or when comm has its context already; the same on
 * every rank. libcollsel_pmpi calls it on MPI_COMM_WORLD in MPI_Init and MPI_Init_thread.
 *
 * @param comm the communicator.
 * @return MPI_SUCCESS, always: a set-up that fails leaves comm native, quietly.
 */
COLLSEL_API int collsel_prepare(MPI_Comm comm);

/**
 * @brief collsel_prepare on a communicator the application has just made from `parent`, but
 *        only when its nonblocking calls could go anywhere but native and `parent` has not
 *        made many communicators already; otherwise nothing (warm-up as usual).
 *
 * What libcollsel_pmpi does after MPI_Comm_dup, MPI_Comm_dup_with_info, MPI_Comm_split,
 * MPI_Comm_split_type, MPI_Comm_create, MPI_Comm_create_group, MPI_Cart_create, MPI_Cart_sub,
 * MPI_Graph_create, MPI_Dist_graph_create and MPI_Dist_graph_create_adjacent, on every process
 * of the parent (also where the new communicator is MPI_COMM_NULL). It prepares comm
 * (collectively over comm) when COLLSEL_WARMUP is 0 or 1; when COLLSEL_FORCE names a variant
 * that can be a nonblocking operation; or when comm is one of the first COLLSEL_WARMUP
 * communicators made from `parent` (counted on parent: call it on every rank of parent, for
 * every communicator made from it), MPI_COMM_WORLD has its context (libcollsel_pmpi's MPI_Init,
 * collsel_prepare, or a collective on it; its set-up gave every process the rules), and the
 * rules rank such a variant above native in some interval at comm's size (the nearest tuned;
 * neighbourhood collectives on a communicator with a topology: any pattern).
 * Decided from the count, the size, the topology, the environment and the rules alone: the
 * same on every rank. A code that makes and frees communicators in a loop thus pays a context
 * for the first COLLSEL_WARMUP of them only. The checks of collsel_prepare apply first.
 *
 * @param parent the communicator comm was made from, or MPI_COMM_NULL when the constructor was
 *               not collective over all of it (MPI_Comm_create_group): comm is then not counted
 *               and prepared whenever the rules serve it.
 * @param comm   the new communicator (MPI_COMM_NULL: only parent's count).
 * @return MPI_SUCCESS, always.
 */
COLLSEL_API int collsel_prepare_new(MPI_Comm parent, MPI_Comm comm);

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
 * Assumes a call that every ranked candidate can run (commutative op, any root). Names the
 * communicator size and processes per node the rules were tuned at, followed by "(borrowed:
 * the nearest tuned to N processes, Q per node)" when they are not the communicator's own
 * (docs/selector.md, "Sizes and layouts without rules of their own"). When the database has
 * nonblocking rules for the collective (tuned for overlap), the line also names the one its
 * nonblocking and persistent calls of that size follow.
 */
COLLSEL_API int collsel_explain(const char *coll, size_t bytes, MPI_Comm comm, char *buf,
                                size_t len);

#ifdef __cplusplus
}
#endif

#endif

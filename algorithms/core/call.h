/* A collective call, normalised once on entry.
 *
 * cs_call_t describes any collective collsel handles. The cs_call_<coll>() constructors take the
 * MPI arguments, query rank and size of the communicator, and normalise:
 *
 *   - MPI_IN_PLACE is resolved so that no algorithm ever compares with it: the send side then
 *     points at the caller's data inside the receive buffer (gather root, allgather, allgatherv,
 *     reduce root, allreduce, scan, exscan; alltoall: the whole receive buffer, with the receive
 *     count and type, so send and receive slots alias and builders must read what they send before
 *     receiving over it; reduce_scatter_block and reduce_scatter: the whole receive buffer, which
 *     holds the input vector, so the send slot and the receive slot alias and builders must read
 *     the input before writing the result; gatherv root: the block at displs[root]; alltoallv: the
 *     receive buffer with recvcounts and rdispls as the send side's arrays) or the receive side
 *     points into the send buffer (scatter root; scatterv root: the block at displs[root]).
 *     `in_place` records that the caller asked for it.
 *   - Arguments that MPI declares insignificant are replaced by the significant side, so every rank
 *     sees one "block" description: for gather/allgather/allgatherv `recv` (non-root gather ranks
 *     get recvcount/recvtype := sendcount/sendtype), for scatter `send` (non-root ranks get
 *     sendcount/sendtype := recvcount/recvtype; gatherv and scatterv alike, a non-root's count
 *     arrays set to NULL, the root's own count in sendcount/recvcount). bcast, reduce, allreduce,
 *     scan and exscan use one count and one type, stored on both sides. Barrier has no data: both
 *     sides are 0 elements of MPI_BYTE and no buffer. reduce_scatter_block and reduce_scatter have
 *     one type on both sides: the send side is the whole input vector, sendcount = the sum of the
 *     blocks (p recvcount, or the sum of recvcounts, which must fit an int), and the receive side
 *     this rank's block, recvcount = recvcount or recvcounts[rank]; block j of the input starts
 *     after blocks 0..j-1 (reduce_scatter keeps the caller's `recvcounts`).
 *   - Lower bound, extent, true lower bound, true extent and size of both types are queried
 *     (cs_type_t) so builders can address blocks and size scratch buffers.
 *   - `bytes` is the selection key: bytes per process for rooted and symmetric collectives (scan,
 *     exscan: the bytes of the vector, count * size(datatype)), mean bytes per block for allgatherv
 *     and reduce_scatter (the sum of recvcounts times the type size, over p), bytes per block (what
 *     one rank sends to one other) for alltoall and reduce_scatter_block (recvcount times the type
 *     size, the result each rank gets), always 0 for barrier, all equal on every rank; for gatherv,
 *     scatterv and alltoallv the mean bytes per block too, but no rank knows all their counts, so
 *     `bytes` is this rank's view until cs_comm_agree (comm.h) makes it communicator-wide (the
 *     root's mean block for gatherv/scatterv, a non-root's own block, the mean of an alltoallv
 *     rank's row and column; docs/algorithms.md); for the neighbourhood collectives see
 *     "Neighbourhood collectives" below. It is cs_call_key_bytes() of the raw arguments, the
 *     function the selector's fast path uses before any normalisation.
 *   - `commutative` records whether the reduction op commutes.
 *   - MPI_IN_PLACE where MPI does not allow it (bcast, a non-root of gather, scatter, reduce,
 *     alltoall's and alltoallv's receive buffer, the receive buffer of reduce_scatter_block,
 *     reduce_scatter, scan or exscan, a non-root of gatherv or scatterv, any
 *     neighbourhood collective) is CS_ERR_ARG, so no algorithm
 *     ever receives it.
 *
 * Neighbourhood collectives (coll.def's `neighbor` column: MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v,w)) run on the neighbours of a Cartesian, graph or distributed-graph
 * communicator. The call points at this rank's neighbourhood (`nbrs`, cs_neighbors_t below,
 * which the communicator context keeps: comm.h cs_comm_neighbors); a call without one is
 * CS_ERR_ARG, which sends it to the MPI library unchanged. Out-edge i carries send block i to
 * nbrs->destinations[i], in-edge j fills receive block j from nbrs->sources[j] (core/edges.h
 * says where each block is). Nothing is resolved: neighbourhood collectives have no
 * MPI_IN_PLACE and no insignificant arguments. Their types are queried as for the others, except
 * alltoallw's per-edge types, which are passed on as they are. Their selection key:
 *   - neighbor_allgather, neighbor_alltoall: bytes per block, the larger of
 *     sendcount * size(sendtype) and recvcount * size(recvtype). MPI requires the send block of
 *     every process to have the signature of the receive block of every other one, so on 3 or
 *     more processes both sides are one size k on every rank; on 2 processes each rank's send
 *     block is the other's receive block and the two ranks' blocks may differ (rank 0 sends 4
 *     bytes and receives 8, rank 1 the reverse): the larger side is 8 on both, where the receive
 *     side alone would be 8 on one rank and 4 on the other (docs/neighbor.md, "What MPI
 *     allows");
 *   - neighbor_allgatherv, neighbor_alltoallv, neighbor_alltoallw: mean bytes per edge, the
 *     bytes this rank sends over its out-edges plus the bytes it receives over its in-edges,
 *     divided by outdegree + indegree (MPI_PROC_NULL neighbours are edges: they are blocks of
 *     the buffers); 0 for a rank without edges. For a call whose blocks all have one size
 *     this is that size, the key of the uniform collective, on every rank with an edge.
 * The first key is equal on every rank of every call MPI allows. The v and w keys are equal on
 * every rank only when the blocks are (a correct call only needs the two ends of each edge to
 * agree); see docs/selector.md for what that means for rules.
 *
 * cs_call_normalize() does the work without asking the communicator anything (rank, nprocs
 * and, for a neighbourhood collective, nbrs must already be set), so the schedule simulator can
 * build calls for virtual ranks. */
#ifndef CS_CALL_H
#define CS_CALL_H

#include "status.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cs_coll {
#define CS_COLL(ID, ...) CS_COLL_##ID,
#include "coll.def"
#undef CS_COLL
    CS_COLL_COUNT
} cs_coll_t;

/* A datatype with the facts builders need. */
typedef struct cs_type {
    MPI_Datatype type;
    MPI_Aint lb, extent;           /* from MPI_Type_get_extent */
    MPI_Aint true_lb, true_extent; /* from MPI_Type_get_true_extent */
    MPI_Aint size;                 /* bytes of data in one element */
    int dense;                     /* one element is `size` contiguous bytes, extent == size */
} cs_type_t;

/* A rank's neighbourhood in a topology communicator, in MPI's order: the sources and
 * destinations of MPI_Dist_graph_neighbors (MPI_DIST_GRAPH), the neighbours of
 * MPI_Graph_neighbors as both (MPI_GRAPH), and for MPI_CART, per dimension d, the rank at
 * displacement -1 then the one at +1 (MPI_Cart_shift(d, 1)) as both. A neighbour of a
 * non-periodic Cartesian border is MPI_PROC_NULL: its block exists in the buffers and is never
 * touched. Repeated neighbours (repeated edges, a periodic Cartesian dimension of size 1 or 2)
 * are matched in order: the k-th message from rank a to rank b in a's send order fills the k-th
 * block from a in b's source order. The send order is the destination order on graphs (MPI's
 * rule for repeated edges) and, on a Cartesian communicator, per dimension the +1 neighbour's
 * block before the -1 neighbour's (core/edges.h: cs_edges_send_order), so that the block a
 * rank sends towards +1 arrives as the receiver's block from -1 even where both neighbours are
 * one rank (as MPI-4 specifies and Open MPI 4.1 does). Self-loops are edges like any other. */
typedef struct cs_neighbors {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int indegree, outdegree;
    const int *sources;                     /* [indegree] */
    const int *destinations;                /* [outdegree] */
    int weighted;                           /* MPI_DIST_GRAPH created with weights */
    const int *sourceweights, *destweights; /* [indegree], [outdegree] when weighted, else NULL */
} cs_neighbors_t;

typedef struct cs_call {
    cs_coll_t coll;
    const void *sendbuf;
    void *recvbuf;
    int sendcount, recvcount;
    cs_type_t send, recv; /* neighbor_alltoallw: unset (per-edge types below) */
    /* Receive counts and displacements in elements: allgatherv (per rank), neighbor_allgatherv
     * and neighbor_alltoallv (per in-edge, displs being rdispls); reduce_scatter: recvcounts
     * per rank, no displs (the blocks lie back to back). */
    const int *recvcounts, *displs;
    /* Send counts (neighbor_alltoallv, neighbor_alltoallw) and displacements in elements
     * (neighbor_alltoallv), per out-edge. */
    const int *sendcounts, *sdispls;
    /* gatherv, scatterv, alltoallv: the arrays MPI declares significant on this rank only
     * (recvcounts/displs at gatherv's root, sendcounts/sdispls at scatterv's root, both rows of
     * alltoallv, sdispls holding the send side); NULL where insignificant. allcounts: after
     * cs_comm_agree (comm.h), every rank's block count in the type that rank uses for its
     * own block (gatherv: its send type, scatterv: its receive type, the root's recv type in
     * place), the same array on every rank; NULL when not agreed or when the ranks' block
     * types differ in size (then no algorithm that needs it applies, on any rank). */
    const int *allcounts;
    /* neighbor_alltoallw: displacements in bytes and types, per edge. */
    const MPI_Aint *sdispls_bytes, *rdispls_bytes;
    const MPI_Datatype *sendtypes, *recvtypes;
    const cs_neighbors_t *nbrs; /* neighbourhood collectives: this rank's neighbours */
    MPI_Op op;                  /* the reductions (reduce, allreduce, reduce_scatter(_block),
                                 * scan, exscan) */
    int root;                   /* rooted collectives; 0 otherwise */
    MPI_Comm comm;
    int rank, nprocs;
    int in_place;
    int commutative;
    size_t bytes;
} cs_call_t;

/* The selection key of a call: the MPI arguments that decide which algorithm runs (all but the
 * buffers' addresses, per-block arrays and the communicator), as the caller gave them. The
 * selector caches decisions by it; cs_call_key_bytes() makes the size that rules are looked up
 * by from it. */
typedef struct cs_call_key {
    int coll, sendcount, recvcount, root;
    MPI_Datatype sendtype, recvtype;
    MPI_Op op;
    int send_in_place, recv_in_place; /* the raw buffer was MPI_IN_PLACE */
} cs_call_key_t;

/* The key of a call from its raw MPI arguments (insignificant ones as given). */
static inline cs_call_key_t cs_call_key(cs_coll_t coll, const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                                        MPI_Datatype recvtype, MPI_Op op, int root) {
    cs_call_key_t k;
    k.coll = (int)coll;
    k.sendcount = sendcount;
    k.recvcount = recvcount;
    k.root = root;
    k.sendtype = sendtype;
    k.recvtype = recvtype;
    k.op = op;
    k.send_in_place = sendbuf == MPI_IN_PLACE;
    k.recv_in_place = recvbuf == MPI_IN_PLACE;
    return k;
}

/* 1 when two keys are equal. */
static inline int cs_call_same_key(const cs_call_key_t *a, const cs_call_key_t *b) {
    return a->coll == b->coll && a->sendcount == b->sendcount && a->recvcount == b->recvcount &&
           a->root == b->root && a->sendtype == b->sendtype && a->recvtype == b->recvtype &&
           a->op == b->op && a->send_in_place == b->send_in_place &&
           a->recv_in_place == b->recv_in_place;
}

/* The per-block arrays of a call that its key leaves out (coll.def's ARRAYS), as the caller
 * gave them; NULL where the collective has none. */
typedef struct cs_call_arrays {
    const int *sendcounts, *recvcounts;
    const MPI_Datatype *sendtypes, *recvtypes;
} cs_call_arrays_t;

/* The selection key's size (see the top of this file): bytes per process (the significant
 * side; a root's MPI_IN_PLACE side does not count), for allgatherv and reduce_scatter the mean
 * bytes per block of arrays->recvcounts[0..nprocs-1], for alltoall and reduce_scatter_block the
 * bytes of one block (recvcount elements of recvtype), for barrier 0, for neighbor_allgather and
 * neighbor_alltoall the bytes per block (the larger of the send and the receive block), for the
 * other neighbourhood collectives the mean bytes per edge of this rank, whose degrees `nbrs` gives
 * (NULL for the other collectives). Asks MPI the type sizes only (PMPI_Type_size), normalises
 * nothing. 0 for what no correct call has (negative counts, a null type or array, a type MPI does
 * not know, a neighbourhood collective without nbrs). */
uint64_t cs_call_key_bytes(const cs_call_key_t *key, const cs_call_arrays_t *arrays, int nprocs,
                           const cs_neighbors_t *nbrs);

/* Name of a collective ("allreduce"), or NULL for an invalid value. */
const char *cs_coll_name(cs_coll_t coll);
/* Looks a collective up by name; CS_ERR_NOT_FOUND if there is none. */
int cs_coll_from_name(const char *name, cs_coll_t *out) CS_MUST_CHECK;
/* 1 for bcast, gather, scatter, reduce, gatherv, scatterv. */
int cs_coll_is_rooted(cs_coll_t coll);
/* 1 for reduce, allreduce, reduce_scatter_block, reduce_scatter, scan, exscan. */
int cs_coll_is_reduction(cs_coll_t coll);
/* 0 for a collective without data (barrier): its calls all have the key size 0, so a tuning
 * run measures it at one size; 1 for every other. */
int cs_coll_has_data(cs_coll_t coll);
/* 1 for the neighbourhood collectives (coll.def's `neighbor`). */
int cs_coll_is_neighbor(cs_coll_t coll);
/* 1 for the v-collectives whose count arrays no rank knows whole (gatherv, scatterv: only the
 * root; alltoallv: each rank its own row and column): their key is agreed per call
 * (comm.h: cs_comm_agree) before rules are looked up, so that every rank chooses alike. */
int cs_coll_agrees(cs_coll_t coll);
/* The MPI-free halves of cs_comm_agree (comm.h) for gatherv and scatterv, which the simulator
 * runs too: this rank's (block count, size of its block type) into pair[2]; then, from every
 * rank's pair (pairs[2i], pairs[2i+1], as allgathered), the agreed key into call->bytes and the
 * counts into counts[0..p), which call->allcounts points at when all type sizes are equal
 * (NULL otherwise). */
void cs_call_agree_pair(const cs_call_t *call, int pair[2]);
void cs_call_agreed(cs_call_t *call, const int *pairs, int *counts);
/* 1 when calls of `coll` are decided by their key (coll.def's CACHED): schedules and decisions
 * may be remembered by it; 0 when count arrays decide (allgatherv, neighbour v and w). */
int cs_coll_is_cached(cs_coll_t coll);

/* Queries extents and size of `type` into `out`. CS_ERR_MPI on failure. */
int cs_type_init(cs_type_t *out, MPI_Datatype type) CS_MUST_CHECK;

/* Constructors: fill `call` from MPI arguments (same order as the MPI function), query rank and
 * size of `comm`, then normalise. CS_ERR_ARG for a negative count, a root out of range or a
 * null datatype where it is significant; CS_ERR_MPI if MPI fails. */
int cs_call_bcast(cs_call_t *call, void *buf, int count, MPI_Datatype type, int root,
                  MPI_Comm comm) CS_MUST_CHECK;
int cs_call_gather(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm) CS_MUST_CHECK;
int cs_call_scatter(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm) CS_MUST_CHECK;
int cs_call_reduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_allreduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype type, MPI_Op op, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_allgather(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      MPI_Comm comm) CS_MUST_CHECK;
int cs_call_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int *recvcounts, const int *displs,
                       MPI_Datatype recvtype, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_alltoall(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm) CS_MUST_CHECK;
int cs_call_barrier(cs_call_t *call, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_reduce_scatter_block(cs_call_t *call, const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_reduce_scatter(cs_call_t *call, const void *sendbuf, void *recvbuf,
                           const int *recvcounts, MPI_Datatype type, MPI_Op op,
                           MPI_Comm comm) CS_MUST_CHECK;
int cs_call_scan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                 MPI_Op op, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_exscan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype type, MPI_Op op, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_gatherv(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                    int root, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_scatterv(cs_call_t *call, const void *sendbuf, const int *sendcounts, const int *displs,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                      const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                      const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                      MPI_Comm comm) CS_MUST_CHECK;
/* The neighbourhood collectives' constructors also take `comm`'s neighbourhood from its
 * communicator context (comm.h: cs_comm_get, cs_comm_neighbors), so they are collective on
 * the first use of `comm`, like cs_algo_run(); the call points into the context. CS_ERR_ARG
 * for a communicator without a topology. */
int cs_call_neighbor_allgather(cs_call_t *call, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_neighbor_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                const int *displs, MPI_Datatype recvtype,
                                MPI_Comm comm) CS_MUST_CHECK;
int cs_call_neighbor_alltoall(cs_call_t *call, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm) CS_MUST_CHECK;
int cs_call_neighbor_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                               const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                               const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                               MPI_Comm comm) CS_MUST_CHECK;
int cs_call_neighbor_alltoallw(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                               const MPI_Aint *sdispls, const MPI_Datatype *sendtypes,
                               void *recvbuf, const int *recvcounts, const MPI_Aint *rdispls,
                               const MPI_Datatype *recvtypes, MPI_Comm comm) CS_MUST_CHECK;

/* The constructors in two steps, for callers that know rank and size already (the selector):
 * cs_call_fill_<coll>() stores the MPI arguments, all of them as MPI takes them (coll.def's
 * FILL; no MPI call, cannot fail), then cs_call_finish() records communicator, rank, size and
 * the neighbourhood (neighbourhood collectives; NULL otherwise, or when the communicator has
 * no topology) and normalises. */
void cs_call_fill_bcast(cs_call_t *call, void *buf, int count, MPI_Datatype type, int root,
                        MPI_Comm comm);
void cs_call_fill_gather(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm);
void cs_call_fill_scatter(cs_call_t *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm);
void cs_call_fill_reduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
void cs_call_fill_allreduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void cs_call_fill_allgather(cs_call_t *call, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm);
void cs_call_fill_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                             const int *displs, MPI_Datatype recvtype, MPI_Comm comm);
void cs_call_fill_alltoall(cs_call_t *call, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm);
void cs_call_fill_barrier(cs_call_t *call, MPI_Comm comm);
void cs_call_fill_reduce_scatter_block(cs_call_t *call, const void *sendbuf, void *recvbuf,
                                       int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void cs_call_fill_reduce_scatter(cs_call_t *call, const void *sendbuf, void *recvbuf,
                                 const int *recvcounts, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm);
void cs_call_fill_scan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void cs_call_fill_exscan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void cs_call_fill_gatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                          const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm);
void cs_call_fill_scatterv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                           const int *displs, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm);
void cs_call_fill_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                            const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                            const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                            MPI_Comm comm);
void cs_call_fill_neighbor_allgather(cs_call_t *call, const void *sendbuf, int sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm);
void cs_call_fill_neighbor_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                      const int *displs, MPI_Datatype recvtype, MPI_Comm comm);
void cs_call_fill_neighbor_alltoall(cs_call_t *call, const void *sendbuf, int sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm);
void cs_call_fill_neighbor_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                                     const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                     const int *recvcounts, const int *rdispls,
                                     MPI_Datatype recvtype, MPI_Comm comm);
void cs_call_fill_neighbor_alltoallw(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                                     const MPI_Aint *sdispls, const MPI_Datatype *sendtypes,
                                     void *recvbuf, const int *recvcounts, const MPI_Aint *rdispls,
                                     const MPI_Datatype *recvtypes, MPI_Comm comm);
int cs_call_finish(cs_call_t *call, MPI_Comm comm, int rank, int nprocs,
                   const cs_neighbors_t *nbrs) CS_MUST_CHECK;

/* A set of functions with MPI's collective signatures: the MPI library's (PMPI_*), or
 * collsel's public ones. */
/* Parentheses off a list: CS_UNPAREN (a, b) is a, b (for coll.def's lists). */
#define CS_UNPAREN(...) __VA_ARGS__

typedef struct cs_coll_fns {
#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ...) int(*name) PARAMS;
#include "coll.def"
#undef CS_COLL
} cs_coll_fns_t;

/* coll.def's PARAMS and ARGS with the tails of the nonblocking (REQ: MPI_I<coll>) and persistent
 * (INIT: MPI_<Coll>_init) forms. */
#define CS_PARAMS_REQ(...)  (__VA_ARGS__, MPI_Request * request)
#define CS_PARAMS_INIT(...) (__VA_ARGS__, MPI_Info info, MPI_Request * request)
#define CS_ARGS_REQ(...)    (__VA_ARGS__, request)
#define CS_ARGS_INIT(...)   (__VA_ARGS__, info, request)

/* A set of functions with the signatures of MPI's nonblocking collectives (MPI_Ibcast ...):
 * the MPI library's (cs_native_ifns, PMPI_I*), or collsel's public ones. */
typedef struct cs_coll_ifns {
#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ...)                           \
    int(*name) CS_PARAMS_REQ PARAMS;
#include "coll.def"
#undef CS_COLL
} cs_coll_ifns_t;

/* Calls the function of `fns` for call->coll with the call's MPI arguments, MPI_IN_PLACE
 * restored where the caller used it (MPI forbids the aliased buffers normalisation made).
 * Returns the MPI error code. */
int cs_call_invoke(const cs_call_t *call, const cs_coll_fns_t *fns);

/* The same with the nonblocking function of `ifns` (the same arguments, then `request`). */
int cs_call_istart(const cs_call_t *call, const cs_coll_ifns_t *ifns, MPI_Request *request);

/* The MPI library's nonblocking collectives, PMPI_I<coll> (algorithms/native/native.c). */
extern const cs_coll_ifns_t cs_native_ifns;

/* Normalises a call whose MPI arguments, rank, nprocs and (neighbourhood collectives) nbrs are
 * set (see above). The raw MPI arguments are as the caller gave them, including MPI_IN_PLACE. */
int cs_call_normalize(cs_call_t *call) CS_MUST_CHECK;

#endif

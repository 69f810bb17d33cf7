/* The blocks of a neighbourhood collective, edge by edge.
 *
 * A neighbourhood call (call.h) sends block i of its send buffer along out-edge i, to
 * nbrs->destinations[i], and receives block j of its receive buffer along in-edge j, from
 * nbrs->sources[j]. cs_edges_out() and cs_edges_in() say where such a block is, as MPI defines
 * it for each collective:
 *
 *   collective            out-edge i sends                      in-edge j receives
 *   neighbor_allgather    the send buffer (sendcount, sendtype) recvcount recvtype at j*recvcount
 *   neighbor_allgatherv   the send buffer                       recvcounts[j] at displs[j]
 *   neighbor_alltoall     sendcount sendtype at i*sendcount     recvcount at j*recvcount
 *   neighbor_alltoallv    sendcounts[i] at sdispls[i]           recvcounts[j] at rdispls[j]
 *   neighbor_alltoallw    sendcounts[i] sendtypes[i] at byte    recvcounts[j] recvtypes[j] at
 *                         sdispls[i]                            byte rdispls[j]
 *
 * (displacements in elements of the type's extent, but alltoallw's, which are bytes). A block
 * is a reference into the send or receive slot, so a schedule built from it runs again with
 * new buffers. A neighbour that is MPI_PROC_NULL has a block nothing may touch:
 * cs_edges_send() and cs_edges_recv() append nothing for it, so one builder serves all five
 * collectives and every topology. Every other edge gets its message, empty ones (count 0)
 * included, so that repeated edges between two ranks pair in order (call.h,
 * cs_edges_send_order). */
#ifndef CS_EDGES_H
#define CS_EDGES_H

#include "sched.h"

/* One edge's block on this rank. */
typedef struct cs_edge {
    int peer;          /* the neighbour: a rank of the communicator, or MPI_PROC_NULL */
    cs_ref_t buf;      /* in the send slot (out-edges) or the receive slot (in-edges) */
    int count;         /* elements of type */
    MPI_Datatype type; /* of the caller (alltoallw: that edge's) */
} cs_edge_t;

/* The out-edge to send k-th (0 <= k < nbrs->outdegree) so that repeated edges between two
 * ranks pair as MPI pairs them (call.h): out-edge k, except on a Cartesian communicator, where
 * each dimension's +1 block goes before its -1 block (out-edges 2d+1, then 2d). A schedule that
 * sends several messages to one rank in one round must start them in this order. */
static inline int cs_edges_send_order(const cs_neighbors_t *nbrs, int k) {
    return nbrs->kind == MPI_CART ? k ^ 1 : k;
}

/* Out-edge i (0 <= i < nbrs->outdegree) of the neighbourhood call `c`. */
cs_edge_t cs_edges_out(const cs_call_t *c, int i);
/* In-edge j (0 <= j < nbrs->indegree) of the neighbourhood call `c`. */
cs_edge_t cs_edges_in(const cs_call_t *c, int j);

/* Appends the send of out-edge i / the receive of in-edge j of `c` to the current round of
 * `s`; nothing for an MPI_PROC_NULL neighbour. CS_ERR_ARG for an edge out of range or a call
 * that is not a neighbourhood collective; CS_ERR_NOMEM. */
int cs_edges_send(cs_sched_t *s, const cs_call_t *c, int i) CS_MUST_CHECK;
int cs_edges_recv(cs_sched_t *s, const cs_call_t *c, int j) CS_MUST_CHECK;

#endif

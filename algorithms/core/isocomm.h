/* Isomorphic neighbourhoods attached to communicators (message combining, topo/iso.h).
 *
 * collsel_iso_neighborhood_create (selector/iso_api.c) makes a distributed-graph communicator
 * whose neighbourhood is isomorphic and attaches the cs_iso_nbh_t to it here. The iso_*
 * neighbourhood algorithms (neighbor_allgather_iso.c) find the neighbourhood of the
 * communicator they run on through cs_isocomm_nbh(): the attached one, or the one every periodic
 * Cartesian communicator has (per dimension j the offsets -e_j then +e_j, MPI's order of
 * MPI_Cart_shift). The attribute is shared, reference counted, by every duplicate of the
 * communicator (MPI_Comm_dup, and the private duplicate of the communicator context), so a
 * duplicate is isomorphic too; the last reference frees it.
 *
 * Receive order. On an isomorphic communicator receive block i comes from R - C^i (the paper's
 * definition). On a Cartesian communicator MPI's receive block 2j comes from the -1 neighbour,
 * R - e_j, which in the isomorphic order is the block of offset +e_j, block 2j + 1: the receive
 * block of isomorphic index i is MPI's block i ^ 1 there (cs_isocomm_t.recv_flip). Where both
 * neighbours of a dimension are one process (a dimension of 1 or 2), the isomorphic pairing is
 * the one MPI-4 specifies and Open MPI implements (core/call.h, cs_neighbors_t).
 *
 * The keyval is created on the first attach or lookup, like the context's (comm.h): not thread
 * safe before that first call. */
#ifndef CS_ISOCOMM_H
#define CS_ISOCOMM_H

#include "status.h"
#include "topo/iso.h"

#include <mpi.h>

/* A communicator's isomorphic neighbourhood. */
typedef struct cs_isocomm {
    cs_iso_nbh_t nbh;
    int recv_flip; /* 1: receive block i of the isomorphic order is MPI's block i ^ 1 */
} cs_isocomm_t;

/* Attaches *nbh (moved: *nbh is empty afterwards, whatever the result) to `comm`. CS_ERR_NOMEM,
 * CS_ERR_MPI; nothing attached then. */
int cs_isocomm_attach(MPI_Comm comm, cs_iso_nbh_t *nbh) CS_MUST_CHECK;

/* The isomorphic neighbourhood of `comm` into *out (owned by the caller: cs_isocomm_free): a
 * copy of the attached one, or a periodic Cartesian communicator's; local, no communication,
 * the same answer on every rank. CS_ERR_NOT_APPLICABLE (out empty) for any other communicator
 * (no topology, a graph without an attached neighbourhood, a non-periodic dimension);
 * CS_ERR_NOMEM, CS_ERR_MPI. */
int cs_isocomm_get(MPI_Comm comm, cs_isocomm_t *out) CS_MUST_CHECK;

/* 1 when an isomorphic neighbourhood is attached to `comm` (not the Cartesian one). */
int cs_isocomm_attached(MPI_Comm comm);

/* Frees out's arrays; out is then empty. */
void cs_isocomm_free(cs_isocomm_t *c);

#endif

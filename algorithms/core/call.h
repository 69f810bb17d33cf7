/* A collective call, normalised once on entry.
 *
 * cs_call_t describes any collective collsel handles. The cs_call_<coll>() constructors take the
 * MPI arguments, query rank and size of the communicator, and normalise:
 *
 *   - MPI_IN_PLACE is resolved so that no algorithm ever compares with it: the send side then
 *     points at the caller's data inside the receive buffer (gather root, allgather, allgatherv,
 *     reduce root, allreduce; alltoall: the whole receive buffer, with the receive count and
 *     type, so send and receive slots alias and builders must read what they send before
 *     receiving over it) or the receive side points into the send buffer (scatter root).
 *     `in_place` records that the caller asked for it.
 *   - Arguments that MPI declares insignificant are replaced by the significant side, so every
 *     rank sees one "block" description: for gather/allgather/allgatherv `recv` (non-root gather
 *     ranks get recvcount/recvtype := sendcount/sendtype), for scatter `send` (non-root ranks get
 *     sendcount/sendtype := recvcount/recvtype). bcast, reduce and allreduce use one count and one
 *     type, stored on both sides. Barrier has no data: both sides are 0 elements of MPI_BYTE
 *     and no buffer.
 *   - Lower bound, extent, true lower bound, true extent and size of both types are queried
 *     (cs_type_t) so builders can address blocks and size scratch buffers.
 *   - `bytes` is the selection key, equal on every rank: bytes per process for rooted and
 *     symmetric collectives, mean bytes per block for allgatherv, bytes per block (what one
 *     rank sends to one other) for alltoall, always 0 for barrier. It is cs_call_key_bytes() of
 *     the raw arguments, the function the selector's fast path uses before any normalisation.
 *   - `commutative` records whether the reduction op commutes.
 *   - MPI_IN_PLACE where MPI does not allow it (bcast, a non-root of gather, scatter, reduce,
 *     alltoall's receive buffer) is CS_ERR_ARG, so no algorithm ever receives it.
 *
 * cs_call_normalize() does the work without asking the communicator anything (rank and nprocs
 * must already be set), so the schedule simulator can build calls for virtual ranks. */
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

typedef struct cs_call {
    cs_coll_t coll;
    const void *sendbuf;
    void *recvbuf;
    int sendcount, recvcount;
    cs_type_t send, recv;
    const int *recvcounts, *displs; /* allgatherv only */
    MPI_Op op;                      /* reduce, allreduce */
    int root;                       /* rooted collectives; 0 otherwise */
    MPI_Comm comm;
    int rank, nprocs;
    int in_place;
    int commutative;
    size_t bytes;
} cs_call_t;

/* The selection key of a call: the MPI arguments that decide which algorithm runs (all but the
 * buffers' addresses, count arrays and the communicator), as the caller gave them. The
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

/* The selection key's size, equal on every rank of a correct call: bytes per process (the
 * significant side; a root's MPI_IN_PLACE side does not count), for allgatherv the mean bytes
 * per block of recvcounts[0..nprocs-1] (NULL for every other collective), for alltoall the
 * bytes of one block (recvcount elements of recvtype), for barrier 0. Asks MPI the type
 * sizes only (PMPI_Type_size), normalises nothing. 0 for what no correct call has (negative
 * counts, a null type or counts array, a type MPI does not know). */
uint64_t cs_call_key_bytes(const cs_call_key_t *key, const int *recvcounts, int nprocs);

/* Name of a collective ("allreduce"), or NULL for an invalid value. */
const char *cs_coll_name(cs_coll_t coll);
/* Looks a collective up by name; CS_ERR_NOT_FOUND if there is none. */
int cs_coll_from_name(const char *name, cs_coll_t *out) CS_MUST_CHECK;
/* 1 for bcast, gather, scatter, reduce. */
int cs_coll_is_rooted(cs_coll_t coll);
/* 1 for reduce, allreduce. */
int cs_coll_is_reduction(cs_coll_t coll);
/* 0 for a collective without data (barrier): its calls all have the key size 0, so a tuning
 * run measures it at one size; 1 for every other. */
int cs_coll_has_data(cs_coll_t coll);

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

/* The constructors in two steps, for callers that know rank and size already (the selector):
 * cs_call_fill_<coll>() stores the MPI arguments, all of them as MPI takes them (coll.def's
 * FILL; no MPI call, cannot fail), then cs_call_finish() records communicator, rank and size
 * and normalises. */
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
int cs_call_finish(cs_call_t *call, MPI_Comm comm, int rank, int nprocs) CS_MUST_CHECK;

/* A set of functions with MPI's collective signatures: the MPI library's (PMPI_*), or
 * collsel's public ones. */
/* Parentheses off a list: CS_UNPAREN (a, b) is a, b (for coll.def's lists). */
#define CS_UNPAREN(...) __VA_ARGS__

typedef struct cs_coll_fns {
#define CS_COLL(ID, name, rooted, reduction, Mpi, PARAMS, ...) int(*name) PARAMS;
#include "coll.def"
#undef CS_COLL
} cs_coll_fns_t;

/* Calls the function of `fns` for call->coll with the call's MPI arguments, MPI_IN_PLACE
 * restored where the caller used it (MPI forbids the aliased buffers normalisation made).
 * Returns the MPI error code. */
int cs_call_invoke(const cs_call_t *call, const cs_coll_fns_t *fns);

/* Normalises a call whose MPI arguments, rank and nprocs are set (see above). The raw MPI
 * arguments are as the caller gave them, including MPI_IN_PLACE. */
int cs_call_normalize(cs_call_t *call) CS_MUST_CHECK;

#endif

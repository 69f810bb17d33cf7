/* Call construction and normalisation (see call.h for the rules). */
#include "call.h"

#include "comm.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

static const struct {
    const char *name;
    int rooted, reduction, neighbor, cached;
} colls[CS_COLL_COUNT] = {
#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ARGS, FILL, KEY, ARRAYS,       \
                CACHED, Impi)                                                                      \
    [CS_COLL_##ID] = {#name, rooted, reduction, neighbor, CACHED},
#include "coll.def"
#undef CS_COLL
};

const char *cs_coll_name(cs_coll_t coll) {
    return (unsigned)coll < CS_COLL_COUNT ? colls[coll].name : NULL;
}

int cs_coll_from_name(const char *name, cs_coll_t *out) {
    for (int i = 0; name != NULL && i < CS_COLL_COUNT; i++) {
        if (strcmp(colls[i].name, name) == 0) {
            *out = (cs_coll_t)i;
            return CS_OK;
        }
    }
    return CS_ERR_NOT_FOUND;
}

int cs_coll_is_rooted(cs_coll_t coll) {
    return (unsigned)coll < CS_COLL_COUNT && colls[coll].rooted;
}

int cs_coll_is_reduction(cs_coll_t coll) {
    return (unsigned)coll < CS_COLL_COUNT && colls[coll].reduction;
}

int cs_coll_has_data(cs_coll_t coll) {
    return coll != CS_COLL_BARRIER;
}

int cs_coll_is_neighbor(cs_coll_t coll) {
    return (unsigned)coll < CS_COLL_COUNT && colls[coll].neighbor;
}

int cs_coll_agrees(cs_coll_t coll) {
    return coll == CS_COLL_GATHERV || coll == CS_COLL_SCATTERV || coll == CS_COLL_ALLTOALLV;
}

void cs_call_agree_pair(const cs_call_t *c, int pair[2]) {
    const cs_type_t *own = c->coll == CS_COLL_GATHERV ? &c->send : &c->recv;
    pair[0] = c->coll == CS_COLL_GATHERV ? c->sendcount : c->recvcount;
    pair[1] = (int)own->size;
}

void cs_call_agreed(cs_call_t *c, const int *pairs, int *counts) {
    uint64_t total = 0;
    int same = 1;
    for (int i = 0; i < c->nprocs; i++) {
        counts[i] = pairs[2 * i];
        total += (uint64_t)pairs[2 * i] * (uint64_t)pairs[2 * i + 1];
        same = same && pairs[2 * i + 1] == pairs[1];
    }
    c->bytes = (size_t)(total / (uint64_t)c->nprocs);
    c->allcounts = same ? counts : NULL;
}

int cs_coll_is_cached(cs_coll_t coll) {
    return (unsigned)coll < CS_COLL_COUNT && colls[coll].cached;
}

static uint64_t type_bytes(int count, MPI_Datatype type) {
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
        size < 0) {
        return 0;
    }
    return (uint64_t)count * (uint64_t)size;
}

/* The bytes of `n` blocks of counts[i] elements of types[i] (or of `type` when types is
 * NULL); *ok cleared for what no correct call has. */
static uint64_t blocks_bytes(int n, const int *counts, const MPI_Datatype *types, MPI_Datatype type,
                             int *ok) {
    uint64_t total = 0, elems = 0;
    if (n > 0 && (counts == NULL || (types == NULL && type == MPI_DATATYPE_NULL))) {
        *ok = 0;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0 || (types != NULL && types[i] == MPI_DATATYPE_NULL)) {
            *ok = 0;
            return 0;
        }
        if (types != NULL) {
            total += type_bytes(counts[i], types[i]);
        } else {
            elems += (uint64_t)counts[i];
        }
    }
    return types != NULL ? total : elems * type_bytes(1, type);
}

/* The mean bytes per block of `nprocs` blocks of counts[i] elements of `type` (allgatherv's
 * rule); 0 for what no correct call has. */
static uint64_t mean_block(const int *counts, int nprocs, MPI_Datatype type) {
    int ok = nprocs >= 1;
    uint64_t total = ok ? blocks_bytes(nprocs, counts, NULL, type, &ok) : 0;
    return ok ? total / (uint64_t)nprocs : 0;
}

/* The mean bytes per edge of a neighbourhood call with v or w arrays (call.h). */
static uint64_t edge_mean_bytes(const cs_call_key_t *key, const cs_call_arrays_t *a,
                                const cs_neighbors_t *nbrs) {
    int ok = 1, edges;
    uint64_t sent, received;
    if (nbrs == NULL || a == NULL) {
        return 0;
    }
    edges = nbrs->indegree + nbrs->outdegree;
    if (edges == 0) {
        return 0;
    }
    if (key->coll == CS_COLL_NEIGHBOR_ALLGATHERV) { /* one block, sent along every out-edge */
        ok = key->sendcount >= 0;
        sent = (uint64_t)nbrs->outdegree * type_bytes(key->sendcount, key->sendtype);
    } else {
        sent = blocks_bytes(nbrs->outdegree, a->sendcounts, a->sendtypes, key->sendtype, &ok);
    }
    received = blocks_bytes(nbrs->indegree, a->recvcounts, a->recvtypes, key->recvtype, &ok);
    return ok ? (sent + received) / (uint64_t)edges : 0;
}

uint64_t cs_call_key_bytes(const cs_call_key_t *key, const cs_call_arrays_t *arrays, int nprocs,
                           const cs_neighbors_t *nbrs) {
    const int *recvcounts = arrays != NULL ? arrays->recvcounts : NULL;
    switch (key->coll) {
    case CS_COLL_GATHER:
        return key->send_in_place ? type_bytes(key->recvcount, key->recvtype)
                                  : type_bytes(key->sendcount, key->sendtype);
    case CS_COLL_ALLTOALL:
    case CS_COLL_REDUCE_SCATTER_BLOCK:
        return type_bytes(key->recvcount, key->recvtype);
    case CS_COLL_BARRIER:
        return 0;
    case CS_COLL_SCATTER:
    case CS_COLL_ALLGATHER:
        return key->recv_in_place ? type_bytes(key->sendcount, key->sendtype)
                                  : type_bytes(key->recvcount, key->recvtype);
    case CS_COLL_ALLGATHERV:
    case CS_COLL_REDUCE_SCATTER:
        return mean_block(recvcounts, nprocs, key->recvtype);
    case CS_COLL_GATHERV: /* the root's mean block, else this rank's own block */
        if (recvcounts == NULL) {
            return type_bytes(key->sendcount, key->sendtype);
        }
        return mean_block(recvcounts, nprocs, key->recvtype);
    case CS_COLL_SCATTERV:
        if (arrays == NULL || arrays->sendcounts == NULL) {
            return type_bytes(key->recvcount, key->recvtype);
        }
        return mean_block(arrays->sendcounts, nprocs, key->sendtype);
    case CS_COLL_ALLTOALLV: { /* this rank's row and column: the mean of its 2p blocks */
        int ok = nprocs >= 1 && arrays != NULL;
        uint64_t sent = 0, received = 0;
        if (ok) {
            received = blocks_bytes(nprocs, arrays->recvcounts, NULL, key->recvtype, &ok);
            sent = key->send_in_place
                       ? received
                       : blocks_bytes(nprocs, arrays->sendcounts, NULL, key->sendtype, &ok);
        }
        return ok ? (sent + received) / (2 * (uint64_t)nprocs) : 0;
    }
    case CS_COLL_NEIGHBOR_ALLGATHER:
    case CS_COLL_NEIGHBOR_ALLTOALL: { /* the larger side: the same on every rank (call.h) */
        uint64_t sent = type_bytes(key->sendcount, key->sendtype);
        uint64_t received = type_bytes(key->recvcount, key->recvtype);
        return sent > received ? sent : received;
    }
    case CS_COLL_NEIGHBOR_ALLGATHERV:
    case CS_COLL_NEIGHBOR_ALLTOALLV:
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        return edge_mean_bytes(key, arrays, nbrs);
    default: /* bcast, reduce, allreduce, scan, exscan: one count and type, on both sides */
        return type_bytes(key->sendcount, key->sendtype);
    }
}

/* Facts of predefined datatypes, which never change or go away, cached per thread in a small
 * direct-mapped table keyed by handle. Derived types are queried every time: a freed handle
 * may come back for another layout. */
enum { TYPE_CACHE = 16 };
static _Thread_local cs_type_t type_cache[TYPE_CACHE];

static unsigned type_slot(MPI_Datatype type) {
    return (unsigned)(((uintptr_t)type >> 4) % TYPE_CACHE);
}

int cs_type_init(cs_type_t *out, MPI_Datatype type) {
    int rc = CS_OK;
    int size = 0, nints, naddrs, ntypes, combiner;
    cs_type_t *hit = &type_cache[type_slot(type)];
    if (hit->type == type && type != MPI_DATATYPE_NULL) {
        *out = *hit;
        return CS_OK;
    }
    memset(out, 0, sizeof(*out));
    CS_REQUIRE(type != MPI_DATATYPE_NULL, CS_ERR_ARG);
    out->type = type;
    CS_MPI_CHECK(PMPI_Type_get_extent(type, &out->lb, &out->extent));
    CS_MPI_CHECK(PMPI_Type_get_true_extent(type, &out->true_lb, &out->true_extent));
    CS_MPI_CHECK(PMPI_Type_size(type, &size));
    out->size = size;
    out->dense =
        out->size == out->extent && out->size == out->true_extent && out->lb == out->true_lb;
    CS_MPI_CHECK(PMPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner));
    if (combiner == MPI_COMBINER_NAMED) {
        *hit = *out;
    }
out:
    return rc;
}

/* Address of block `index` of `count` elements of `t` in `buf`; in integers, because `buf` may
 * be MPI_BOTTOM (NULL in Open MPI) with an absolute type. */
static void *block_addr(const void *buf, MPI_Aint index_elems, const cs_type_t *t) {
    return (void *)((uintptr_t)buf + (uintptr_t)(index_elems * t->extent));
}

/* Fills the raw fields shared by all constructors. */
static void raw(cs_call_t *call, cs_coll_t coll, const void *sendbuf, int sendcount,
                MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype) {
    memset(call, 0, sizeof(*call));
    call->coll = coll;
    call->sendbuf = sendbuf;
    call->sendcount = sendcount;
    call->send.type = sendtype;
    call->recvbuf = recvbuf;
    call->recvcount = recvcount;
    call->recv.type = recvtype;
    call->op = MPI_OP_NULL;
}

void cs_call_fill_bcast(cs_call_t *call, void *buf, int count, MPI_Datatype type, int root,
                        MPI_Comm comm) {
    raw(call, CS_COLL_BCAST, buf, count, type, buf, count, type);
    call->comm = comm;
    call->root = root;
}

void cs_call_fill_gather(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm) {
    raw(call, CS_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    call->comm = comm;
    call->root = root;
}

void cs_call_fill_scatter(cs_call_t *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm) {
    raw(call, CS_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    call->comm = comm;
    call->root = root;
}

void cs_call_fill_reduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
    raw(call, CS_COLL_REDUCE, sendbuf, count, type, recvbuf, count, type);
    call->comm = comm;
    call->op = op;
    call->root = root;
}

void cs_call_fill_allreduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    raw(call, CS_COLL_ALLREDUCE, sendbuf, count, type, recvbuf, count, type);
    call->comm = comm;
    call->op = op;
}

void cs_call_fill_allgather(cs_call_t *call, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
    raw(call, CS_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    call->comm = comm;
}

void cs_call_fill_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                             const int *displs, MPI_Datatype recvtype, MPI_Comm comm) {
    raw(call, CS_COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype);
    call->comm = comm;
    call->recvcounts = recvcounts;
    call->displs = displs;
}

void cs_call_fill_alltoall(cs_call_t *call, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
    raw(call, CS_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    call->comm = comm;
}

void cs_call_fill_barrier(cs_call_t *call, MPI_Comm comm) {
    raw(call, CS_COLL_BARRIER, NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE);
    call->comm = comm;
}

void cs_call_fill_reduce_scatter_block(cs_call_t *call, const void *sendbuf, void *recvbuf,
                                       int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    raw(call, CS_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvcount, type, recvbuf, recvcount, type);
    call->comm = comm;
    call->op = op;
}

void cs_call_fill_scan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    raw(call, CS_COLL_SCAN, sendbuf, count, type, recvbuf, count, type);
    call->comm = comm;
    call->op = op;
}

void cs_call_fill_reduce_scatter(cs_call_t *call, const void *sendbuf, void *recvbuf,
                                 const int *recvcounts, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm) {
    raw(call, CS_COLL_REDUCE_SCATTER, sendbuf, 0, type, recvbuf, 0, type);
    call->comm = comm;
    call->op = op;
    call->recvcounts = recvcounts;
}

void cs_call_fill_exscan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    raw(call, CS_COLL_EXSCAN, sendbuf, count, type, recvbuf, count, type);
    call->comm = comm;
    call->op = op;
}

void cs_call_fill_gatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                          const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    raw(call, CS_COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype);
    call->comm = comm;
    call->root = root;
    call->recvcounts = recvcounts;
    call->displs = displs;
}

void cs_call_fill_scatterv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                           const int *displs, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm) {
    raw(call, CS_COLL_SCATTERV, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype);
    call->comm = comm;
    call->root = root;
    call->sendcounts = sendcounts;
    call->sdispls = displs;
}

void cs_call_fill_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                            const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                            const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                            MPI_Comm comm) {
    raw(call, CS_COLL_ALLTOALLV, sendbuf, 0, sendtype, recvbuf, 0, recvtype);
    call->comm = comm;
    call->sendcounts = sendcounts;
    call->sdispls = sdispls;
    call->recvcounts = recvcounts;
    call->displs = rdispls;
}

void cs_call_fill_neighbor_allgather(cs_call_t *call, const void *sendbuf, int sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm) {
    raw(call, CS_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
        recvtype);
    call->comm = comm;
}

void cs_call_fill_neighbor_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                      const int *displs, MPI_Datatype recvtype, MPI_Comm comm) {
    raw(call, CS_COLL_NEIGHBOR_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype);
    call->comm = comm;
    call->recvcounts = recvcounts;
    call->displs = displs;
}

void cs_call_fill_neighbor_alltoall(cs_call_t *call, const void *sendbuf, int sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm) {
    raw(call, CS_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
        recvtype);
    call->comm = comm;
}

void cs_call_fill_neighbor_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                                     const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                     const int *recvcounts, const int *rdispls,
                                     MPI_Datatype recvtype, MPI_Comm comm) {
    raw(call, CS_COLL_NEIGHBOR_ALLTOALLV, sendbuf, 0, sendtype, recvbuf, 0, recvtype);
    call->comm = comm;
    call->sendcounts = sendcounts;
    call->sdispls = sdispls;
    call->recvcounts = recvcounts;
    call->displs = rdispls;
}

void cs_call_fill_neighbor_alltoallw(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                                     const MPI_Aint *sdispls, const MPI_Datatype *sendtypes,
                                     void *recvbuf, const int *recvcounts, const MPI_Aint *rdispls,
                                     const MPI_Datatype *recvtypes, MPI_Comm comm) {
    raw(call, CS_COLL_NEIGHBOR_ALLTOALLW, sendbuf, 0, MPI_DATATYPE_NULL, recvbuf, 0,
        MPI_DATATYPE_NULL);
    call->comm = comm;
    call->sendcounts = sendcounts;
    call->sdispls_bytes = sdispls;
    call->sendtypes = sendtypes;
    call->recvcounts = recvcounts;
    call->rdispls_bytes = rdispls;
    call->recvtypes = recvtypes;
}

int cs_call_finish(cs_call_t *call, MPI_Comm comm, int rank, int nprocs,
                   const cs_neighbors_t *nbrs) {
    call->comm = comm;
    call->rank = rank;
    call->nprocs = nprocs;
    call->nbrs = nbrs;
    return cs_call_normalize(call);
}

/* Queries rank and size of `comm` (and, for a neighbourhood collective, its neighbourhood from
 * the communicator context), then normalises. */
static int finish(cs_call_t *call, MPI_Comm comm) {
    int rc = CS_OK;
    int rank, nprocs;
    const cs_neighbors_t *nbrs = NULL;
    CS_REQUIRE(comm != MPI_COMM_NULL, CS_ERR_ARG);
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    CS_MPI_CHECK(PMPI_Comm_size(comm, &nprocs));
    if (cs_coll_is_neighbor(call->coll)) {
        cs_comm_t *ctx = NULL;
        CS_CHECK(cs_comm_get(comm, &ctx));
        if (cs_comm_neighbors(ctx, &nbrs) != CS_OK) {
            rc = CS_ERR_ARG; /* no topology */
            goto out;
        }
    }
    CS_CHECK(cs_call_finish(call, comm, rank, nprocs, nbrs));
out:
    return rc;
}

int cs_call_bcast(cs_call_t *call, void *buf, int count, MPI_Datatype type, int root,
                  MPI_Comm comm) {
    cs_call_fill_bcast(call, buf, count, type, root, comm);
    return finish(call, comm);
}

int cs_call_gather(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    cs_call_fill_gather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                        comm);
    return finish(call, comm);
}

int cs_call_scatter(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    cs_call_fill_scatter(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
    return finish(call, comm);
}

int cs_call_reduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
    cs_call_fill_reduce(call, sendbuf, recvbuf, count, type, op, root, comm);
    return finish(call, comm);
}

int cs_call_allreduce(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    cs_call_fill_allreduce(call, sendbuf, recvbuf, count, type, op, comm);
    return finish(call, comm);
}

int cs_call_allgather(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    cs_call_fill_allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return finish(call, comm);
}

int cs_call_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int *recvcounts, const int *displs,
                       MPI_Datatype recvtype, MPI_Comm comm) {
    cs_call_fill_allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                            recvtype, comm);
    return finish(call, comm);
}

int cs_call_alltoall(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    cs_call_fill_alltoall(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return finish(call, comm);
}

int cs_call_barrier(cs_call_t *call, MPI_Comm comm) {
    cs_call_fill_barrier(call, comm);
    return finish(call, comm);
}

int cs_call_reduce_scatter_block(cs_call_t *call, const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    cs_call_fill_reduce_scatter_block(call, sendbuf, recvbuf, recvcount, type, op, comm);
    return finish(call, comm);
}

int cs_call_reduce_scatter(cs_call_t *call, const void *sendbuf, void *recvbuf,
                           const int *recvcounts, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    cs_call_fill_reduce_scatter(call, sendbuf, recvbuf, recvcounts, type, op, comm);
    return finish(call, comm);
}

int cs_call_scan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                 MPI_Op op, MPI_Comm comm) {
    cs_call_fill_scan(call, sendbuf, recvbuf, count, type, op, comm);
    return finish(call, comm);
}

int cs_call_exscan(cs_call_t *call, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    cs_call_fill_exscan(call, sendbuf, recvbuf, count, type, op, comm);
    return finish(call, comm);
}

int cs_call_gatherv(cs_call_t *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                    int root, MPI_Comm comm) {
    cs_call_fill_gatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                         root, comm);
    return finish(call, comm);
}

int cs_call_scatterv(cs_call_t *call, const void *sendbuf, const int *sendcounts, const int *displs,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm) {
    cs_call_fill_scatterv(call, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                          root, comm);
    return finish(call, comm);
}

int cs_call_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                      const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                      const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                      MPI_Comm comm) {
    cs_call_fill_alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, comm);
    return finish(call, comm);
}

int cs_call_neighbor_allgather(cs_call_t *call, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm) {
    cs_call_fill_neighbor_allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                    recvtype, comm);
    return finish(call, comm);
}

int cs_call_neighbor_allgatherv(cs_call_t *call, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                const int *displs, MPI_Datatype recvtype, MPI_Comm comm) {
    cs_call_fill_neighbor_allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                     displs, recvtype, comm);
    return finish(call, comm);
}

int cs_call_neighbor_alltoall(cs_call_t *call, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm) {
    cs_call_fill_neighbor_alltoall(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm);
    return finish(call, comm);
}

int cs_call_neighbor_alltoallv(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                               const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                               const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                               MPI_Comm comm) {
    cs_call_fill_neighbor_alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                    recvcounts, rdispls, recvtype, comm);
    return finish(call, comm);
}

int cs_call_neighbor_alltoallw(cs_call_t *call, const void *sendbuf, const int *sendcounts,
                               const MPI_Aint *sdispls, const MPI_Datatype *sendtypes,
                               void *recvbuf, const int *recvcounts, const MPI_Aint *rdispls,
                               const MPI_Datatype *recvtypes, MPI_Comm comm) {
    cs_call_fill_neighbor_alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                    recvcounts, rdispls, recvtypes, comm);
    return finish(call, comm);
}

/* bcast, reduce, allreduce, scan, exscan: one count and one type on both sides; MPI_IN_PLACE
 * (the input taken from the receive buffer) on the root of reduce and on any rank of the
 * others. */
static int normalize_single(cs_call_t *c) {
    int rc = CS_OK;
    CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
    CS_CHECK(cs_type_init(&c->recv, c->recv.type));
    c->send = c->recv;
    c->sendcount = c->recvcount;
    if (cs_coll_is_reduction(c->coll)) {
        int commutes = 0;
        CS_REQUIRE(c->op != MPI_OP_NULL, CS_ERR_ARG);
        CS_MPI_CHECK(PMPI_Op_commutative(c->op, &commutes));
        c->commutative = commutes != 0;
        if (c->sendbuf == MPI_IN_PLACE && (!cs_coll_is_rooted(c->coll) || c->rank == c->root)) {
            c->in_place = 1;
            c->sendbuf = c->recvbuf;
        }
    }
out:
    return rc;
}

/* The send side of a call whose receive side is set: with MPI_IN_PLACE the send data is
 * `count` elements of the receive type at element `at` of the receive buffer; otherwise the
 * caller's send count and type, checked. */
static int send_or_in_place(cs_call_t *c, MPI_Aint at, int count) {
    int rc = CS_OK;
    if (c->sendbuf == MPI_IN_PLACE) {
        c->in_place = 1;
        c->sendbuf = block_addr(c->recvbuf, at, &c->recv);
        c->sendcount = count;
        c->send = c->recv;
    } else {
        CS_REQUIRE(c->sendcount >= 0, CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->send, c->send.type));
    }
out:
    return rc;
}

static int normalize_gather(cs_call_t *c) {
    int rc = CS_OK;
    if (c->rank == c->root) {
        CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->recv, c->recv.type));
        CS_CHECK(send_or_in_place(c, (MPI_Aint)c->root * c->recvcount, c->recvcount));
    } else {
        CS_REQUIRE(c->sendcount >= 0, CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->send, c->send.type));
        c->recv = c->send;
        c->recvcount = c->sendcount;
        c->recvbuf = NULL;
    }
out:
    return rc;
}

static int normalize_scatter(cs_call_t *c) {
    int rc = CS_OK;
    if (c->rank == c->root) {
        CS_REQUIRE(c->sendcount >= 0, CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->send, c->send.type));
        if (c->recvbuf == MPI_IN_PLACE) {
            c->in_place = 1;
            c->recvbuf = block_addr(c->sendbuf, (MPI_Aint)c->root * c->sendcount, &c->send);
            c->recvcount = c->sendcount;
            c->recv = c->send;
        } else {
            CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
            CS_CHECK(cs_type_init(&c->recv, c->recv.type));
        }
    } else {
        CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->recv, c->recv.type));
        c->send = c->recv;
        c->sendcount = c->recvcount;
        c->sendbuf = NULL;
    }
out:
    return rc;
}

static int normalize_allgather(cs_call_t *c) {
    int rc = CS_OK;
    CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
    CS_CHECK(cs_type_init(&c->recv, c->recv.type));
    CS_CHECK(send_or_in_place(c, (MPI_Aint)c->rank * c->recvcount, c->recvcount));
out:
    return rc;
}

static int normalize_allgatherv(cs_call_t *c) {
    int rc = CS_OK;
    CS_REQUIRE(c->recvcounts != NULL && c->displs != NULL, CS_ERR_ARG);
    for (int i = 0; i < c->nprocs; i++) {
        CS_REQUIRE(c->recvcounts[i] >= 0, CS_ERR_ARG);
    }
    CS_CHECK(cs_type_init(&c->recv, c->recv.type));
    CS_CHECK(send_or_in_place(c, c->displs[c->rank], c->recvcounts[c->rank]));
out:
    return rc;
}

/* Alltoall: in place, the whole receive buffer is the send data (sendcount and sendtype are
 * insignificant). */
static int normalize_alltoall(cs_call_t *c) {
    int rc = CS_OK;
    CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
    CS_CHECK(cs_type_init(&c->recv, c->recv.type));
    CS_CHECK(send_or_in_place(c, 0, c->recvcount));
out:
    return rc;
}

/* `n` counts, none negative, with their displacements (n >= 1). */
static int vcounts_ok(int n, const int *counts, const int *displs) {
    if (counts == NULL || displs == NULL) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0) {
            return 0;
        }
    }
    return 1;
}

/* Gatherv: the root's receive side is significant, its send side in place the block at
 * displs[root]; a non-root's receive side becomes its send side (as gather), without arrays. */
static int normalize_gatherv(cs_call_t *c) {
    int rc = CS_OK;
    if (c->rank == c->root) {
        CS_REQUIRE(vcounts_ok(c->nprocs, c->recvcounts, c->displs), CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->recv, c->recv.type));
        c->recvcount = c->recvcounts[c->root];
        CS_CHECK(send_or_in_place(c, c->displs[c->root], c->recvcounts[c->root]));
    } else {
        CS_REQUIRE(c->sendcount >= 0, CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->send, c->send.type));
        c->recv = c->send;
        c->recvcount = c->sendcount;
        c->recvbuf = NULL;
        c->recvcounts = c->displs = NULL;
    }
out:
    return rc;
}

/* Scatterv: mirrors gatherv (the root's receive side in place is its block at displs[root]). */
static int normalize_scatterv(cs_call_t *c) {
    int rc = CS_OK;
    if (c->rank == c->root) {
        CS_REQUIRE(vcounts_ok(c->nprocs, c->sendcounts, c->sdispls), CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->send, c->send.type));
        c->sendcount = c->sendcounts[c->root];
        if (c->recvbuf == MPI_IN_PLACE) {
            c->in_place = 1;
            c->recvbuf = block_addr(c->sendbuf, c->sdispls[c->root], &c->send);
            c->recvcount = c->sendcounts[c->root];
            c->recv = c->send;
        } else {
            CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
            CS_CHECK(cs_type_init(&c->recv, c->recv.type));
        }
    } else {
        CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->recv, c->recv.type));
        c->send = c->recv;
        c->sendcount = c->recvcount;
        c->sendbuf = NULL;
        c->sendcounts = c->sdispls = NULL;
    }
out:
    return rc;
}

/* Alltoallv: in place, the receive buffer with recvcounts and rdispls is the send data too
 * (sendcounts, sdispls and sendtype are insignificant). */
static int normalize_alltoallv(cs_call_t *c) {
    int rc = CS_OK;
    CS_REQUIRE(vcounts_ok(c->nprocs, c->recvcounts, c->displs), CS_ERR_ARG);
    CS_CHECK(cs_type_init(&c->recv, c->recv.type));
    if (c->sendbuf == MPI_IN_PLACE) {
        c->in_place = 1;
        c->sendbuf = c->recvbuf;
        c->sendcounts = c->recvcounts;
        c->sdispls = c->displs;
        c->send = c->recv;
    } else {
        CS_REQUIRE(vcounts_ok(c->nprocs, c->sendcounts, c->sdispls), CS_ERR_ARG);
        CS_CHECK(cs_type_init(&c->send, c->send.type));
    }
out:
    return rc;
}

/* Barrier: no data, 0 elements of MPI_BYTE on both sides. */
static int normalize_barrier(cs_call_t *c) {
    int rc = CS_OK;
    c->sendbuf = NULL;
    c->recvbuf = NULL;
    c->sendcount = c->recvcount = 0;
    CS_CHECK(cs_type_init(&c->recv, MPI_BYTE));
    c->send = c->recv;
out:
    return rc;
}

/* reduce_scatter_block, reduce_scatter: one type; the send side is the whole input vector
 * (sendcount = the sum of the blocks, at most INT_MAX), the receive side this rank's block; in
 * place the input is the receive buffer. */
static int normalize_reduce_scatter(cs_call_t *c) {
    int rc = CS_OK;
    int commutes = 0;
    int64_t total = 0;
    if (c->coll == CS_COLL_REDUCE_SCATTER) {
        CS_REQUIRE(c->recvcounts != NULL, CS_ERR_ARG);
        for (int i = 0; i < c->nprocs; i++) {
            CS_REQUIRE(c->recvcounts[i] >= 0, CS_ERR_ARG);
            total += c->recvcounts[i];
        }
        c->recvcount = c->recvcounts[c->rank];
    } else {
        CS_REQUIRE(c->recvcount >= 0, CS_ERR_ARG);
        total = (int64_t)c->recvcount * c->nprocs;
    }
    CS_REQUIRE(total <= INT_MAX, CS_ERR_ARG);
    CS_REQUIRE(c->op != MPI_OP_NULL, CS_ERR_ARG);
    CS_CHECK(cs_type_init(&c->recv, c->recv.type));
    c->send = c->recv;
    c->sendcount = (int)total;
    CS_MPI_CHECK(PMPI_Op_commutative(c->op, &commutes));
    c->commutative = commutes != 0;
    if (c->sendbuf == MPI_IN_PLACE) {
        c->in_place = 1;
        c->sendbuf = c->recvbuf;
    }
out:
    return rc;
}

/* `n` counts, none negative, and (with `need_displs`) their displacements: present unless
 * n is 0. */
static int counts_ok(int n, const int *counts, int need_displs, const void *displs) {
    if (n == 0) {
        return 1;
    }
    if (counts == NULL || (need_displs && displs == NULL)) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0) {
            return 0;
        }
    }
    return 1;
}

/* `n` datatypes, none MPI_DATATYPE_NULL (present unless n is 0). */
static int types_ok(int n, const MPI_Datatype *types) {
    if (n > 0 && types == NULL) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (types[i] == MPI_DATATYPE_NULL) {
            return 0;
        }
    }
    return 1;
}

/* The neighbourhood collectives: arguments checked, types queried (but alltoallw's). */
static int normalize_neighbor(cs_call_t *c) {
    int rc = CS_OK;
    int in, out;
    CS_REQUIRE(c->nbrs != NULL, CS_ERR_ARG);
    in = c->nbrs->indegree;
    out = c->nbrs->outdegree;
    switch (c->coll) {
    case CS_COLL_NEIGHBOR_ALLGATHER:
    case CS_COLL_NEIGHBOR_ALLTOALL:
        CS_REQUIRE(c->sendcount >= 0 && c->recvcount >= 0, CS_ERR_ARG);
        break;
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        CS_REQUIRE(c->sendcount >= 0 && counts_ok(in, c->recvcounts, 1, c->displs), CS_ERR_ARG);
        break;
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        CS_REQUIRE(counts_ok(out, c->sendcounts, 1, c->sdispls) &&
                       counts_ok(in, c->recvcounts, 1, c->displs),
                   CS_ERR_ARG);
        break;
    default: /* alltoallw */
        CS_REQUIRE(counts_ok(out, c->sendcounts, 1, c->sdispls_bytes) &&
                       counts_ok(in, c->recvcounts, 1, c->rdispls_bytes) &&
                       types_ok(out, c->sendtypes) && types_ok(in, c->recvtypes),
                   CS_ERR_ARG);
        goto out;
    }
    CS_CHECK(cs_type_init(&c->send, c->send.type));
    CS_CHECK(cs_type_init(&c->recv, c->recv.type));
out:
    return rc;
}

/* 1 when the caller passed MPI_IN_PLACE where MPI does not allow it: any rank of a broadcast,
 * a non-root of gather, scatter or reduce, the receive buffer of alltoall, reduce_scatter_block,
 * reduce_scatter, scan or exscan, any rank of a neighbourhood collective. */
static int misplaced_in_place(const cs_call_t *c) {
    int root = c->rank == c->root;
    if (cs_coll_is_neighbor(c->coll)) {
        return c->sendbuf == MPI_IN_PLACE || c->recvbuf == MPI_IN_PLACE;
    }
    switch (c->coll) {
    case CS_COLL_BCAST:
        return c->recvbuf == MPI_IN_PLACE;
    case CS_COLL_GATHER:
    case CS_COLL_REDUCE:
        return !root && c->sendbuf == MPI_IN_PLACE;
    case CS_COLL_SCATTER:
        return !root && c->recvbuf == MPI_IN_PLACE;
    case CS_COLL_ALLTOALL:
    case CS_COLL_REDUCE_SCATTER_BLOCK:
    case CS_COLL_REDUCE_SCATTER:
    case CS_COLL_SCAN:
    case CS_COLL_EXSCAN:
    case CS_COLL_ALLTOALLV:
        return c->recvbuf == MPI_IN_PLACE;
    case CS_COLL_GATHERV:
        return !root && c->sendbuf == MPI_IN_PLACE;
    case CS_COLL_SCATTERV:
        return !root && c->recvbuf == MPI_IN_PLACE;
    default:
        return 0;
    }
}

int cs_call_normalize(cs_call_t *c) {
    int rc = CS_OK;
    const cs_call_key_t key = cs_call_key(c->coll, c->sendbuf, c->sendcount, c->send.type,
                                          c->recvbuf, c->recvcount, c->recv.type, c->op, c->root);
    /* gatherv's and scatterv's count arrays only count at the root */
    const int significant = !cs_coll_is_rooted(c->coll) || c->rank == c->root;
    const cs_call_arrays_t arrays = {significant ? c->sendcounts : NULL,
                                     significant ? c->recvcounts : NULL, c->sendtypes,
                                     c->recvtypes};
    CS_REQUIRE(c->nprocs >= 1 && c->rank >= 0 && c->rank < c->nprocs, CS_ERR_ARG);
    CS_REQUIRE(!misplaced_in_place(c), CS_ERR_ARG);
    CS_REQUIRE(!cs_coll_is_rooted(c->coll) || (c->root >= 0 && c->root < c->nprocs), CS_ERR_ARG);
    c->in_place = 0;
    c->commutative = 0;
    c->allcounts = NULL;
    switch (c->coll) {
    case CS_COLL_BCAST:
    case CS_COLL_REDUCE:
    case CS_COLL_ALLREDUCE:
    case CS_COLL_SCAN:
    case CS_COLL_EXSCAN:
        CS_CHECK(normalize_single(c));
        break;
    case CS_COLL_GATHER:
        CS_CHECK(normalize_gather(c));
        break;
    case CS_COLL_SCATTER:
        CS_CHECK(normalize_scatter(c));
        break;
    case CS_COLL_ALLGATHER:
        CS_CHECK(normalize_allgather(c));
        break;
    case CS_COLL_ALLGATHERV:
        CS_CHECK(normalize_allgatherv(c));
        break;
    case CS_COLL_ALLTOALL:
        CS_CHECK(normalize_alltoall(c));
        break;
    case CS_COLL_BARRIER:
        CS_CHECK(normalize_barrier(c));
        break;
    case CS_COLL_REDUCE_SCATTER_BLOCK:
    case CS_COLL_REDUCE_SCATTER:
        CS_CHECK(normalize_reduce_scatter(c));
        break;
    case CS_COLL_GATHERV:
        CS_CHECK(normalize_gatherv(c));
        break;
    case CS_COLL_SCATTERV:
        CS_CHECK(normalize_scatterv(c));
        break;
    case CS_COLL_ALLTOALLV:
        CS_CHECK(normalize_alltoallv(c));
        break;
    case CS_COLL_NEIGHBOR_ALLGATHER:
    case CS_COLL_NEIGHBOR_ALLGATHERV:
    case CS_COLL_NEIGHBOR_ALLTOALL:
    case CS_COLL_NEIGHBOR_ALLTOALLV:
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        CS_CHECK(normalize_neighbor(c));
        break;
    default:
        rc = CS_ERR_ARG;
        break;
    }
    c->bytes = (size_t)cs_call_key_bytes(&key, &arrays, c->nprocs, c->nbrs);
out:
    return rc;
}

/* Calls call c's collective with its MPI arguments: blocking through `fns` when `ifns` is NULL,
 * else nonblocking through `ifns` with `request` (one argument list per collective for both). */
static int invoke(const cs_call_t *c, const cs_coll_fns_t *fns, const cs_coll_ifns_t *ifns,
                  MPI_Request *request) {
#define CALL(name, ...)                                                                            \
    return ifns != NULL ? ifns->name(__VA_ARGS__, request) : fns->name(__VA_ARGS__)
    const void *send = c->in_place && c->coll != CS_COLL_SCATTER && c->coll != CS_COLL_SCATTERV
                           ? MPI_IN_PLACE
                           : c->sendbuf;
    switch (c->coll) {
    case CS_COLL_BCAST:
        CALL(bcast, c->recvbuf, c->recvcount, c->recv.type, c->root, c->comm);
    case CS_COLL_GATHER:
        CALL(gather, send, c->sendcount, c->send.type, c->recvbuf, c->recvcount, c->recv.type,
             c->root, c->comm);
    case CS_COLL_SCATTER:
        CALL(scatter, c->sendbuf, c->sendcount, c->send.type,
             c->in_place ? MPI_IN_PLACE : c->recvbuf, c->recvcount, c->recv.type, c->root, c->comm);
    case CS_COLL_REDUCE:
        CALL(reduce, send, c->recvbuf, c->recvcount, c->recv.type, c->op, c->root, c->comm);
    case CS_COLL_ALLREDUCE:
        CALL(allreduce, send, c->recvbuf, c->recvcount, c->recv.type, c->op, c->comm);
    case CS_COLL_ALLGATHER:
        CALL(allgather, send, c->sendcount, c->send.type, c->recvbuf, c->recvcount, c->recv.type,
             c->comm);
    case CS_COLL_ALLGATHERV:
        CALL(allgatherv, send, c->sendcount, c->send.type, c->recvbuf, c->recvcounts, c->displs,
             c->recv.type, c->comm);
    case CS_COLL_ALLTOALL:
        CALL(alltoall, send, c->sendcount, c->send.type, c->recvbuf, c->recvcount, c->recv.type,
             c->comm);
    case CS_COLL_BARRIER:
        CALL(barrier, c->comm);
    case CS_COLL_REDUCE_SCATTER_BLOCK:
        CALL(reduce_scatter_block, send, c->recvbuf, c->recvcount, c->recv.type, c->op, c->comm);
    case CS_COLL_REDUCE_SCATTER:
        CALL(reduce_scatter, send, c->recvbuf, c->recvcounts, c->recv.type, c->op, c->comm);
    case CS_COLL_SCAN:
        CALL(scan, send, c->recvbuf, c->recvcount, c->recv.type, c->op, c->comm);
    case CS_COLL_EXSCAN:
        CALL(exscan, send, c->recvbuf, c->recvcount, c->recv.type, c->op, c->comm);
    case CS_COLL_GATHERV:
        CALL(gatherv, send, c->sendcount, c->send.type, c->recvbuf, c->recvcounts, c->displs,
             c->recv.type, c->root, c->comm);
    case CS_COLL_SCATTERV:
        CALL(scatterv, c->sendbuf, c->sendcounts, c->sdispls, c->send.type,
             c->in_place ? MPI_IN_PLACE : c->recvbuf, c->recvcount, c->recv.type, c->root, c->comm);
    case CS_COLL_ALLTOALLV:
        CALL(alltoallv, send, c->sendcounts, c->sdispls, c->send.type, c->recvbuf, c->recvcounts,
             c->displs, c->recv.type, c->comm);
    case CS_COLL_NEIGHBOR_ALLGATHER:
        CALL(neighbor_allgather, c->sendbuf, c->sendcount, c->send.type, c->recvbuf, c->recvcount,
             c->recv.type, c->comm);
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        CALL(neighbor_allgatherv, c->sendbuf, c->sendcount, c->send.type, c->recvbuf, c->recvcounts,
             c->displs, c->recv.type, c->comm);
    case CS_COLL_NEIGHBOR_ALLTOALL:
        CALL(neighbor_alltoall, c->sendbuf, c->sendcount, c->send.type, c->recvbuf, c->recvcount,
             c->recv.type, c->comm);
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        CALL(neighbor_alltoallv, c->sendbuf, c->sendcounts, c->sdispls, c->send.type, c->recvbuf,
             c->recvcounts, c->displs, c->recv.type, c->comm);
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        CALL(neighbor_alltoallw, c->sendbuf, c->sendcounts, c->sdispls_bytes, c->sendtypes,
             c->recvbuf, c->recvcounts, c->rdispls_bytes, c->recvtypes, c->comm);
    default:
        return MPI_ERR_ARG;
    }
#undef CALL
}

int cs_call_invoke(const cs_call_t *c, const cs_coll_fns_t *fns) {
    return invoke(c, fns, NULL, NULL);
}

int cs_call_istart(const cs_call_t *c, const cs_coll_ifns_t *ifns, MPI_Request *request) {
    return invoke(c, NULL, ifns, request);
}

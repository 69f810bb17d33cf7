/* Tuning-run workloads (see workload.h). */
#include "workload.h"

#include "core/comm.h"

#include <stdlib.h>
#include <string.h>

#define SENTINEL (-77777)

int cs_bench_bufs_alloc(cs_bench_bufs_t *b, size_t max_count, int nprocs) {
    size_t elems = (max_count > 0 ? max_count : 1) * (size_t)nprocs;
    memset(b, 0, sizeof(*b));
    b->send = malloc(elems * sizeof(int));
    b->recv = malloc(elems * sizeof(int));
    b->ref = malloc(elems * sizeof(int));
    b->counts = malloc((size_t)nprocs * sizeof(int));
    b->displs = malloc((size_t)nprocs * sizeof(int));
    b->elems = elems;
    b->nprocs = nprocs;
    if (!b->send || !b->recv || !b->ref || !b->counts || !b->displs) {
        cs_bench_bufs_free(b);
        return CS_ERR_NOMEM;
    }
    return CS_OK;
}

int cs_bench_bufs_alloc_neighbor(cs_bench_bufs_t *b, size_t max_block_bytes, int max_edges) {
    int edges = max_edges > 0 ? max_edges : 1;
    /* whole ints over every edge's block, and one more for the rounded-up tail */
    size_t ints = (max_block_bytes * (size_t)edges + sizeof(int) - 1) / sizeof(int) + 1;
    int rc = cs_bench_bufs_alloc(b, ints, 1);
    if (rc != CS_OK) {
        return rc;
    }
    free(b->counts);
    free(b->displs);
    b->counts = malloc((size_t)edges * sizeof(int));
    b->displs = malloc((size_t)edges * sizeof(int));
    b->scounts = malloc((size_t)edges * sizeof(int));
    b->sdispls = malloc((size_t)edges * sizeof(int));
    b->bdispls = malloc((size_t)edges * sizeof(MPI_Aint));
    b->types = malloc((size_t)edges * sizeof(MPI_Datatype));
    b->nprocs = edges;
    if (!b->counts || !b->displs || !b->scounts || !b->sdispls || !b->bdispls || !b->types) {
        cs_bench_bufs_free(b);
        return CS_ERR_NOMEM;
    }
    return CS_OK;
}

void cs_bench_bufs_free(cs_bench_bufs_t *b) {
    free(b->scounts);
    free(b->sdispls);
    free(b->bdispls);
    free(b->types);
    free(b->send);
    free(b->recv);
    free(b->ref);
    free(b->counts);
    free(b->displs);
    memset(b, 0, sizeof(*b));
}

/* The uneven blocks of gatherv, scatterv and alltoallv (workload.h): block i of p holds
 * floor(2 count (i+1) / (p+1)) ints, the last one the rest of count * p, packed in rank order
 * from element 0 (displs). */
static void ramp(int count, int p, int *counts, int *displs) {
    int64_t left = (int64_t)count * p, at = 0;
    for (int i = 0; i < p; i++) {
        int64_t n = i == p - 1 ? left : 2 * (int64_t)count * (i + 1) / (p + 1);
        counts[i] = (int)n;
        displs[i] = (int)at;
        left -= n;
        at += n;
    }
}

/* The call of a v-collective whose counts no rank knows whole, agreed as the selector agrees it
 * (comm.h: cs_comm_agree), so that its key is the same on every rank and the algorithms that
 * need every rank's count have them. Collective. */
static int agreed(int rc, cs_call_t *call, MPI_Comm comm) {
    cs_comm_t *ctx = NULL;
    if (rc == CS_OK) {
        rc = cs_comm_get(comm, &ctx);
    }
    return rc == CS_OK ? cs_comm_agree(ctx, call) : rc;
}

int cs_bench_call(cs_call_t *call, cs_coll_t coll, int count, MPI_Comm comm, cs_bench_bufs_t *b) {
    int p = b->nprocs, rank = 0;
    if (cs_coll_agrees(coll) && PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    switch (coll) {
    case CS_COLL_BCAST:
        return cs_call_bcast(call, b->recv, count, MPI_INT, 0, comm);
    case CS_COLL_GATHER:
        return cs_call_gather(call, b->send, count, MPI_INT, b->recv, count, MPI_INT, 0, comm);
    case CS_COLL_SCATTER:
        return cs_call_scatter(call, b->send, count, MPI_INT, b->recv, count, MPI_INT, 0, comm);
    case CS_COLL_REDUCE:
        return cs_call_reduce(call, b->send, b->recv, count, MPI_INT, MPI_SUM, 0, comm);
    case CS_COLL_ALLREDUCE:
        return cs_call_allreduce(call, b->send, b->recv, count, MPI_INT, MPI_SUM, comm);
    case CS_COLL_ALLGATHER:
        return cs_call_allgather(call, b->send, count, MPI_INT, b->recv, count, MPI_INT, comm);
    case CS_COLL_ALLGATHERV:
        for (int i = 0; i < p; i++) {
            b->counts[i] = count;
            b->displs[i] = i * count;
        }
        return cs_call_allgatherv(call, b->send, count, MPI_INT, b->recv, b->counts, b->displs,
                                  MPI_INT, comm);
    case CS_COLL_ALLTOALL:
        return cs_call_alltoall(call, b->send, count, MPI_INT, b->recv, count, MPI_INT, comm);
    case CS_COLL_BARRIER:
        return cs_call_barrier(call, comm);
    case CS_COLL_REDUCE_SCATTER_BLOCK:
        return cs_call_reduce_scatter_block(call, b->send, b->recv, count, MPI_INT, MPI_SUM, comm);
    case CS_COLL_REDUCE_SCATTER:
        for (int i = 0; i < p; i++) {
            b->counts[i] = count;
        }
        return cs_call_reduce_scatter(call, b->send, b->recv, b->counts, MPI_INT, MPI_SUM, comm);
    case CS_COLL_SCAN:
        return cs_call_scan(call, b->send, b->recv, count, MPI_INT, MPI_SUM, comm);
    case CS_COLL_EXSCAN:
        return cs_call_exscan(call, b->send, b->recv, count, MPI_INT, MPI_SUM, comm);
    case CS_COLL_GATHERV:
        ramp(count, p, b->counts, b->displs);
        return agreed(cs_call_gatherv(call, b->send, b->counts[rank], MPI_INT, b->recv, b->counts,
                                      b->displs, MPI_INT, 0, comm),
                      call, comm);
    case CS_COLL_SCATTERV:
        ramp(count, p, b->counts, b->displs);
        return agreed(cs_call_scatterv(call, b->send, b->counts, b->displs, MPI_INT, b->recv,
                                       b->counts[rank], MPI_INT, 0, comm),
                      call, comm);
    case CS_COLL_ALLTOALLV: /* rank r's block for j is the ramp's block (r + j) mod p */
        ramp(count, p, b->displs, b->counts); /* the ramp, in displs for now */
        for (int j = 0; j < p; j++) {
            b->counts[j] = b->displs[(rank + j) % p];
        }
        for (int j = 0, at = 0; j < p; at += b->counts[j], j++) {
            b->displs[j] = at;
        }
        return agreed(cs_call_alltoallv(call, b->send, b->counts, b->displs, MPI_INT, b->recv,
                                        b->counts, b->displs, MPI_INT, comm),
                      call, comm);
    default:
        break;
    }
    /* The neighbourhood collectives: `count` bytes on every edge, b->nprocs edges at most. */
    for (int i = 0; i < p; i++) {
        b->counts[i] = b->scounts[i] = count;
        b->displs[i] = b->sdispls[i] = i * count;
        b->bdispls[i] = (MPI_Aint)i * count;
        b->types[i] = MPI_BYTE;
    }
    switch (coll) {
    case CS_COLL_NEIGHBOR_ALLGATHER:
        return cs_call_neighbor_allgather(call, b->send, count, MPI_BYTE, b->recv, count, MPI_BYTE,
                                          comm);
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        return cs_call_neighbor_allgatherv(call, b->send, count, MPI_BYTE, b->recv, b->counts,
                                           b->displs, MPI_BYTE, comm);
    case CS_COLL_NEIGHBOR_ALLTOALL:
        return cs_call_neighbor_alltoall(call, b->send, count, MPI_BYTE, b->recv, count, MPI_BYTE,
                                         comm);
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        return cs_call_neighbor_alltoallv(call, b->send, b->scounts, b->sdispls, MPI_BYTE, b->recv,
                                          b->counts, b->displs, MPI_BYTE, comm);
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        return cs_call_neighbor_alltoallw(call, b->send, b->scounts, b->bdispls, b->types, b->recv,
                                          b->counts, b->bdispls, b->types, comm);
    default:
        return CS_ERR_ARG;
    }
}

static size_t total(const int *counts, int n) {
    size_t sum = 0;
    for (int i = 0; i < n; i++) {
        sum += (size_t)counts[i];
    }
    return sum;
}

/* Bytes rounded up to whole ints. */
static size_t ints_of(size_t bytes) {
    return (bytes + sizeof(int) - 1) / sizeof(int);
}

/* A neighbourhood call's block: recvcount bytes (the bench's calls are MPI_BYTE with one count
 * on every edge, cs_bench_call), its counts array's first entry for the v and w forms. */
static size_t block_bytes(const cs_call_t *call) {
    if (call->coll == CS_COLL_NEIGHBOR_ALLGATHER || call->coll == CS_COLL_NEIGHBOR_ALLTOALL) {
        return (size_t)call->recvcount;
    }
    return call->recvcounts != NULL ? (size_t)call->recvcounts[0] : 0;
}

static size_t input_count(const cs_call_t *call) {
    switch (call->coll) {
    case CS_COLL_BCAST:
        return 0; /* the root's data lives in the output buffer; see cs_bench_fill */
    case CS_COLL_SCATTER:
        return call->rank == call->root ? (size_t)call->sendcount * (size_t)call->nprocs : 0;
    case CS_COLL_ALLTOALL:
        return (size_t)call->sendcount * (size_t)call->nprocs;
    case CS_COLL_SCATTERV:
        return call->rank == call->root ? total(call->sendcounts, call->nprocs) : 0;
    case CS_COLL_ALLTOALLV:
        return total(call->sendcounts, call->nprocs);
    case CS_COLL_NEIGHBOR_ALLGATHER:
        return ints_of(block_bytes(call));
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        return ints_of(block_bytes(call));
    case CS_COLL_NEIGHBOR_ALLTOALL:
    case CS_COLL_NEIGHBOR_ALLTOALLV:
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        return ints_of(block_bytes(call) * (size_t)call->nbrs->outdegree);
    default:
        return (size_t)call->sendcount;
    }
}

size_t cs_bench_output_count(const cs_call_t *call) {
    int is_root = call->rank == call->root;
    switch (call->coll) {
    case CS_COLL_BCAST:
    case CS_COLL_SCATTER:
    case CS_COLL_ALLREDUCE:
    case CS_COLL_REDUCE_SCATTER_BLOCK:
    case CS_COLL_REDUCE_SCATTER:
    case CS_COLL_SCAN:
        return (size_t)call->recvcount;
    case CS_COLL_EXSCAN: /* rank 0's result is undefined in MPI */
        return call->rank > 0 ? (size_t)call->recvcount : 0;
    case CS_COLL_REDUCE:
        return is_root ? (size_t)call->recvcount : 0;
    case CS_COLL_GATHER:
        return is_root ? (size_t)call->recvcount * (size_t)call->nprocs : 0;
    case CS_COLL_GATHERV: /* packed from element 0 */
        return is_root ? total(call->recvcounts, call->nprocs) : 0;
    case CS_COLL_SCATTERV:
        return (size_t)call->recvcount;
    case CS_COLL_ALLTOALLV:
        return total(call->recvcounts, call->nprocs);
    case CS_COLL_ALLGATHER:
    case CS_COLL_ALLGATHERV:
    case CS_COLL_ALLTOALL:
        return (size_t)call->recvcount * (size_t)call->nprocs;
    case CS_COLL_NEIGHBOR_ALLGATHER:
    case CS_COLL_NEIGHBOR_ALLGATHERV:
    case CS_COLL_NEIGHBOR_ALLTOALL:
    case CS_COLL_NEIGHBOR_ALLTOALLV:
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        return ints_of(block_bytes(call) * (size_t)call->nbrs->indegree);
    default: /* barrier: no data */
        return 0;
    }
}

void cs_bench_fill(const cs_call_t *call, cs_bench_bufs_t *b, unsigned seed) {
    unsigned x = seed * 2654435761u + (unsigned)call->rank * 40503u + 1u;
    size_t nin = input_count(call);
    size_t nout = cs_bench_output_count(call);
    for (size_t i = 0; i < nin; i++) {
        x = x * 1103515245u + 12345u;
        b->send[i] = (int)((x >> 16) % 2001u) - 1000;
    }
    for (size_t i = 0; i < nout; i++) {
        b->recv[i] = SENTINEL;
    }
    if (call->coll == CS_COLL_BCAST && call->rank == call->root) {
        for (size_t i = 0; i < (size_t)call->recvcount; i++) {
            x = x * 1103515245u + 12345u;
            b->recv[i] = (int)((x >> 16) % 2001u) - 1000;
        }
    }
}

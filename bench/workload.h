/* The data a tuning run moves: buffers, calls and result checks for one collective at one size.
 *
 * Every collective runs on MPI_INT elements (MPI_SUM for reductions), root 0, so that results
 * are bit-exact and a wrong algorithm cannot hide behind rounding. allgatherv uses equal blocks,
 * alltoall `count` ints per block, reduce_scatter_block and reduce_scatter `count` ints per
 * block (equal blocks: p count ints in, count out). Exscan's result on rank 0 is undefined in
 * MPI: it is not checked (cs_bench_output_count is 0 there). gatherv, scatterv and alltoallv use
 * uneven blocks whose mean is `count` ints, so that their key (the mean block) is the size point:
 * a ramp, block i of p holding floor(2 count (i+1) / (p+1)) ints (the last the rest of
 * count * p), from about 2 count / (p+1) up to about 2 count, the first ones empty at small
 * counts; gatherv and scatterv give rank i block i, alltoallv rank r's block for j is ramp block
 * (r + j) mod p (so every row and column is the whole ramp), all packed in rank order. Their
 * calls are agreed (cs_comm_agree) once per point, for a key that is the same on every rank;
 * measure.c times their schedule algorithms with one more agreement per call, as the selector
 * runs them. Barrier has no data: verifying it checks only that it
 * completes on every rank (its synchronisation is checked by the simulator's tests).
 * Buffers are allocated once for the largest size of the plan.
 *
 * The neighbourhood collectives move MPI_BYTE blocks (so that any block size, 1 B included, is
 * a count), `count` bytes on every edge: their v and w forms with every count `count`, every
 * displacement a multiple of it and every type MPI_BYTE, so that all five have the same key
 * (bytes per block) and one pattern's rules compare them. Their buffers are sized by the
 * rank's degree (cs_bench_bufs_alloc_neighbor); the results are checked as ints over the
 * bytes rounded up, whose tail stays the sentinel in both runs. */
#ifndef CS_BENCH_WORKLOAD_H
#define CS_BENCH_WORKLOAD_H

#include "core/call.h"

#include <mpi.h>
#include <stddef.h>

typedef struct cs_bench_bufs {
    int *send, *recv, *ref;
    int *counts, *displs;
    size_t elems; /* capacity of send, recv and ref in ints */
    int nprocs;   /* capacity of counts and displs (and of the arrays below) */
    /* Neighbourhood collectives only (NULL otherwise): per edge, the send counts and
     * displacements, alltoallw's displacements in bytes and its types. */
    int *scounts, *sdispls;
    MPI_Aint *bdispls;
    MPI_Datatype *types;
} cs_bench_bufs_t;

/* Allocates buffers for counts up to `max_count` on `nprocs` processes. CS_ERR_NOMEM. */
int cs_bench_bufs_alloc(cs_bench_bufs_t *b, size_t max_count, int nprocs) CS_MUST_CHECK;
void cs_bench_bufs_free(cs_bench_bufs_t *b);

/* Allocates buffers for the neighbourhood collectives: blocks of up to `max_block_bytes` on
 * up to `max_edges` edges (this rank's larger degree, at least 1). CS_ERR_NOMEM. */
int cs_bench_bufs_alloc_neighbor(cs_bench_bufs_t *b, size_t max_block_bytes,
                                 int max_edges) CS_MUST_CHECK;

/* Builds the call of `coll` with `count` ints per process (alltoall, reduce_scatter_block,
 * reduce_scatter: per block; gatherv, scatterv, alltoallv: per block on average; barrier: none;
 * the neighbourhood collectives: `count` bytes per block, `comm` a topology communicator) on
 * `comm` over `b`. Collective for gatherv, scatterv and alltoallv (their agreement). */
int cs_bench_call(cs_call_t *call, cs_coll_t coll, int count, MPI_Comm comm,
                  cs_bench_bufs_t *b) CS_MUST_CHECK;

/* Fills the inputs of `call` with pseudo-random values from `seed` and this rank, and the
 * outputs with a sentinel. */
void cs_bench_fill(const cs_call_t *call, cs_bench_bufs_t *b, unsigned seed);

/* Number of ints of output this rank must check for `call` (0 where the output is
 * insignificant or undefined, such as gather on a non-root or exscan on rank 0). The output
 * starts at b->recv. */
size_t cs_bench_output_count(const cs_call_t *call);

#endif

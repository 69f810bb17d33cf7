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
 * Buffers are allocated once for the largest size of the plan. */
#ifndef CS_BENCH_WORKLOAD_H
#define CS_BENCH_WORKLOAD_H

#include "core/call.h"

#include <mpi.h>
#include <stddef.h>

typedef struct cs_bench_bufs {
    int *send, *recv, *ref;
    int *counts, *displs;
    size_t elems; /* capacity of send, recv and ref in ints */
    int nprocs;
} cs_bench_bufs_t;

/* Allocates buffers for counts up to `max_count` on `nprocs` processes. CS_ERR_NOMEM. */
int cs_bench_bufs_alloc(cs_bench_bufs_t *b, size_t max_count, int nprocs) CS_MUST_CHECK;
void cs_bench_bufs_free(cs_bench_bufs_t *b);

/* Builds the call of `coll` with `count` ints per process (alltoall, reduce_scatter_block,
 * reduce_scatter: per block; gatherv, scatterv, alltoallv: per block on average; barrier: none)
 * on `comm` over `b`. Collective for gatherv, scatterv and alltoallv (their agreement). */
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

/* Schedule builders that more than one algorithm is made of.
 *
 * Each lives in the file of the algorithm it is (bcast_binomial.c holds the binomial broadcast)
 * and is reused, not copied, by compositions such as allreduce/reduce_bcast and
 * bcast/scatter_allgather. All take positions relative to `root` where they are rooted and
 * append rounds to `s`; they return CS_ERR_NOMEM or CS_ERR_NOT_APPLICABLE on failure. */
#ifndef CS_BUILDERS_H
#define CS_BUILDERS_H

#include "core/algo.h"
#include "core/blocks.h"

/* Binomial broadcast of (count, t) at `buf` from `root` (bcast_binomial.c). */
int cs_build_bcast_binomial(cs_sched_t *s, cs_ref_t buf, int count, const cs_type_t *t, int root,
                            int rank, int p) CS_MUST_CHECK;

/* Binomial reduction of the call's send data into `acc` on every rank; on `root` the result
 * (in rank order) ends in `acc`. Needs a commutative op unless root is 0 (reduce_binomial.c). */
int cs_build_reduce_binomial(cs_sched_t *s, const cs_call_t *c, int root,
                             cs_ref_t acc) CS_MUST_CHECK;

/* Recursive-doubling allgather of layout `b` (block q belongs to position q, positions
 * relative to `root`), any p; each position must hold its own block
 * (allgather_recursive_doubling.c). */
int cs_build_allgather_rd(cs_sched_t *s, const cs_blocks_t *b, int root, int rank,
                          int p) CS_MUST_CHECK;

/* Sets *b to the receive-buffer layout of an allgather or allgatherv call (uniform or indexed)
 * and appends a round that copies the caller's send data into its own block
 * (allgather_ring.c). */
int cs_build_allgather_own(cs_sched_t *s, const cs_call_t *c, cs_blocks_t *b) CS_MUST_CHECK;

/* Ring allgather of layout `b`; each rank must hold its own block (allgather_ring.c). */
int cs_build_allgather_ring(cs_sched_t *s, const cs_blocks_t *b, int rank, int p) CS_MUST_CHECK;

/* Linear (one-round) allgather of layout `b`; each rank must hold its own block
 * (allgather_linear.c). */
int cs_build_allgather_linear(cs_sched_t *s, const cs_blocks_t *b, int rank, int p) CS_MUST_CHECK;

/* The send data of an alltoall call as a uniform layout of p blocks in *src: the send slot, or
 * for an in-place call a copy of the receive buffer in scratch made in a round of its own, so
 * that receiving into the receive buffer never overwrites a block still to be sent
 * (alltoall_linear.c). */
int cs_build_alltoall_source(cs_sched_t *s, const cs_call_t *c, cs_blocks_t *src) CS_MUST_CHECK;

/* The receive buffer of an alltoall call as a uniform layout of p blocks (alltoall_linear.c). */
cs_blocks_t cs_build_alltoall_recv(const cs_call_t *c);

/* The elements of the blocks at positions [q0, q1) relative to `root`: the sum of
 * counts[(q + root) mod p] (gatherv_binomial.c; the packed subtrees of gatherv and scatterv). */
MPI_Aint cs_build_v_span(const int *counts, int q0, int q1, int root, int p);

/* The send data of an alltoallv call: *base and *lo such that block j to rank j starts at
 * element sdispls[j] - lo of *base. The send slot (lo 0), or for an in-place call a copy of the
 * receive buffer's blocks in scratch, laid out as in the receive buffer from its lowest block
 * on (lo: that block's displacement), made in a round of its own (alltoallv_linear.c). */
int cs_build_alltoallv_source(cs_sched_t *s, const cs_call_t *c, cs_ref_t *base,
                              MPI_Aint *lo) CS_MUST_CHECK;

/* Appends the exchange of block `to` of an alltoallv call's send data (from *base, *lo of
 * cs_build_alltoallv_source) to rank `to` and of block `from` of its receive buffer from rank
 * `from`, each skipped when it has 0 bytes, as both ends know (alltoallv_linear.c). */
int cs_build_alltoallv_pair(cs_sched_t *s, const cs_call_t *c, cs_ref_t base, MPI_Aint lo, int to,
                            int from) CS_MUST_CHECK;

/* The linear schedule of any neighbourhood collective: one round, a receive on every in-edge
 * then a send on every out-edge, in MPI's order (neighbor_allgather_linear.c). A cs_algo_t
 * build function. */
int cs_build_neighbor_linear(cs_sched_t *s, const cs_call_t *c,
                             const cs_params_t *params) CS_MUST_CHECK;

#endif

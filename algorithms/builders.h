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
#include "topo/balance.h"
#include "topo/graph.h"

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

/* The input vector of a reduce_scatter_block or reduce_scatter call: its blocks lie back to
 * back, block j has cs_build_rs_count(c, j) elements (recvcount, or recvcounts[j]) and starts
 * at element cs_build_rs_start(c, j); start(p) is the vector's length. O(j) for reduce_scatter
 * (reduce_scatter_recursive_halving.c). */
MPI_Aint cs_build_rs_start(const cs_call_t *c, int j);
int cs_build_rs_count(const cs_call_t *c, int j);
/* The chain scan of a scan (exclusive 0) or exscan (exclusive 1) call: the prefix passed from
 * rank to rank + 1, reduced in rank order (scan_linear.c). */
int cs_build_scan_linear(cs_sched_t *s, const cs_call_t *c, int exclusive) CS_MUST_CHECK;

/* Hillis-Steele recursive doubling of a scan (exclusive 0) or exscan (exclusive 1) call, any
 * p, reduced in rank order (scan_recursive_doubling.c). */
int cs_build_scan_rd(cs_sched_t *s, const cs_call_t *c, int exclusive) CS_MUST_CHECK;
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

/* 1 when rank c->rank's edges in the global graph g are exactly the call's neighbourhood, in
 * MPI's order (neighbor_allgather_coloured.c). */
int cs_neighbor_graph_matches(const cs_graph_t *g, const cs_call_t *c);

/* The coloured schedule of any neighbourhood collective (neighbor_allgather_coloured.c): one
 * round per colour of the Welsh-Powell edge colouring of the global graph, which the variant's
 * state holds. cs_neighbor_coloured_init() makes that state (cs_state_t.priv) from a global graph
 * g without MPI (g is borrowed and must outlive it; the simulator and the unit tests use it);
 * the setup borrows the communicator's graph and colouring instead (comm.h cs_comm_colouring,
 * collective, computed once per communicator and shared by the coloured variants of all five
 * collectives); cs_neighbor_coloured_free() and the teardown release the state (and what init
 * coloured). CS_ERR_NOMEM. */
int cs_build_neighbor_coloured(cs_sched_t *s, const cs_call_t *c,
                               const cs_params_t *params) CS_MUST_CHECK;
int cs_neighbor_coloured_init(const cs_graph_t *g, void **priv) CS_MUST_CHECK;
void cs_neighbor_coloured_free(void *priv);
int cs_neighbor_coloured_setup(struct cs_comm *ctx, const cs_params_t *params,
                               cs_state_t *state) CS_MUST_CHECK;
void cs_neighbor_coloured_teardown(cs_state_t *state);

/* The balanced schedule of neighbor_allgather and neighbor_alltoall
 * (neighbor_allgather_balanced.c): the tree-balanced plan of topo/balance.h for the call's block
 * size, with threshold `t` (parameter) and the LogGP model of the variant's state.
 * cs_neighbor_balanced_init() makes that state from a global graph g and a model without MPI (g
 * borrowed); the setup uses the communicator's graph and cs_comm_loggp() (collective).
 * CS_ERR_NOMEM, CS_ERR_ARG for a bad model. */
int cs_build_neighbor_balanced(cs_sched_t *s, const cs_call_t *c,
                               const cs_params_t *params) CS_MUST_CHECK;
int cs_neighbor_balanced_init(const cs_graph_t *g, const cs_loggp_t *model,
                              void **priv) CS_MUST_CHECK;
void cs_neighbor_balanced_free(void *priv);
int cs_neighbor_balanced_setup(struct cs_comm *ctx, const cs_params_t *params,
                               cs_state_t *state) CS_MUST_CHECK;
void cs_neighbor_balanced_teardown(cs_state_t *state);
/* The balanced algorithms' parameters (t) and their sweep (t = 0 .. 4). */
extern const cs_param_spec_t cs_neighbor_balanced_params[1];
int cs_neighbor_balanced_variants(int nprocs, int ppn, cs_params_t *out, int cap,
                                  int *n) CS_MUST_CHECK;

/* The isomorphic message-combining schedules (neighbor_allgather_iso_torus.c) of
 * neighbor_allgather(v) and neighbor_alltoall(v) on an isomorphic neighbourhood (core/isocomm.h):
 * topo/iso.h's torus, direct and straightforward schedules as engine rounds, packed or zero-copy
 * (parameter `form`, cs_neighbor_iso_params, swept by cs_neighbor_iso_variants). The setup
 * finds the neighbourhood locally (cs_isocomm_get: CS_ERR_NOT_APPLICABLE on every rank when
 * there is none) and keeps it in the state (cs_state_t.priv, a cs_isocomm_t). */
int cs_build_neighbor_iso_torus(cs_sched_t *s, const cs_call_t *c,
                                const cs_params_t *params) CS_MUST_CHECK;
int cs_build_neighbor_iso_direct(cs_sched_t *s, const cs_call_t *c,
                                 const cs_params_t *params) CS_MUST_CHECK;
int cs_build_neighbor_iso_straightforward(cs_sched_t *s, const cs_call_t *c,
                                          const cs_params_t *params) CS_MUST_CHECK;
int cs_neighbor_iso_setup(struct cs_comm *ctx, const cs_params_t *params,
                          cs_state_t *state) CS_MUST_CHECK;
void cs_neighbor_iso_teardown(cs_state_t *state);
extern const cs_param_spec_t cs_neighbor_iso_params[1];
int cs_neighbor_iso_variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) CS_MUST_CHECK;

#endif

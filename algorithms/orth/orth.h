/* Orthogonal processor grids: what the <coll>/orth algorithms share.
 *
 * Reference: Hartmann, Kühnemann, Rauber, Rünger, "Adaptive Selection of Communication Methods to
 * Optimize Collective MPI Operations", Section 2. A collective on p = d0 d1 (d2) processes runs
 * as two (three) phases, each one collective of the same kind on the lines of one dimension of
 * the grid (topo.h: dimension 0 varies fastest, so a line along dimension 0 is d0 consecutive
 * ranks, a line along dimension 1 is d1 ranks d0 apart, ...).
 *
 * Parameters (every <coll>/orth takes both):
 *   dims   the layout, "d0xd1" or "d0xd1xd2", every factor >= 2, product = nprocs. "auto" (the
 *          default) is the squarest 2D layout d0 <= d1 (8: 2x4, 12: 3x4); a prime nprocs has no
 *          layout. The variants of a communicator are all its 2D and 3D layouts, both orders.
 *   phase  what runs on each line: "native" (the default: the MPI library's nonblocking
 *          collective on the line's sub-communicator, a COLL operation) or the <alg> part of any
 *          registered point-to-point algorithm of the same collective ("binomial" in bcast/orth
 *          means bcast/binomial), run with its default parameters as a sub-schedule whose
 *          messages travel on the private communicator (cs_sched_append). Only the short name
 *          is accepted, so one variant has one name in the database. An algorithm with its own
 *          per-communicator state (another orth) cannot be a phase. The sweep runs native and
 *          one point-to-point algorithm per collective.
 *
 * The sub-communicators of native phases are the context's line communicators
 * (cs_comm_line), created once per communicator and layout by cs_orth_setup() and shared by
 * all orth algorithms of that layout; comms[k] of the state is this rank's line along k.
 * Every line is ordered by rank and every phase combines lines in coordinate order, which is
 * rank order: reductions are correct for non-commutative ops, and what a rank has collected
 * after the phases of dimensions 0..k is the contiguous rank range of its block below k+1.
 * A variant that does not fit the call (dims whose product is not nprocs, an unknown phase, a
 * phase algorithm whose requirements fail on a line, a count that overflows an int) returns
 * CS_ERR_NOT_APPLICABLE, on every rank alike. */
#ifndef CS_ORTH_H
#define CS_ORTH_H

#include "core/algo.h"
#include "core/comm.h"
#include "topo/topo.h"

#define CS_ORTH_NPARAMS 2
extern const cs_param_spec_t cs_orth_params[CS_ORTH_NPARAMS];

/* One rank's view of an orthogonal variant while its schedule is built. */
typedef struct cs_orth {
    cs_topo_grid_t grid;
    int rank;
    const cs_algo_t *phase; /* NULL: native */
    cs_sched_t tmp;         /* a point-to-point phase is built here, then appended */
} cs_orth_t;

/* Reads the variant's parameters for `c` (rank, nprocs, collective). CS_ERR_NOT_APPLICABLE when
 * the layout does not fit or the phase algorithm is unknown; call cs_orth_free() in any case. */
int cs_orth_init(cs_orth_t *o, const cs_call_t *c, const cs_params_t *params) CS_MUST_CHECK;
void cs_orth_free(cs_orth_t *o);

/* 1 when this rank takes part in the phase of dimension k of a rooted collective with root
 * `root`: its coordinates below k are the root's (the lines through the root's block). */
int cs_orth_active(const cs_orth_t *o, int root, int k);

/* The first dimension in which this rank's coordinate differs from the root's: the phase in
 * which a rooted collective's data leaves (gather, reduce) or reaches (scatter) this rank;
 * ndims at the root itself. */
int cs_orth_root_dim(const cs_orth_t *o, int root);

/* A call for the line along dimension k: `c` with rank = this rank's coordinate k, nprocs = d_k,
 * root = `root` (an index on the line), no allgatherv arrays, not in place. The caller then sets
 * the counts and types of the phase. */
void cs_orth_subcall(const cs_orth_t *o, const cs_call_t *c, int k, int root, cs_call_t *sub);

/* Appends this rank's part of phase `sub` on its line along dimension k, in rounds of its own:
 * a COLL operation (native; `in_place` says this rank passes MPI_IN_PLACE) or the phase
 * algorithm's schedule for `sub` with its send and receive slots at `send` and `recv`. For a
 * point-to-point phase `send` must then be where an in-place call's normalisation would put it
 * (the rank's own block inside `recv` for gather-like phases, and so on), so that the
 * algorithm's own copy costs nothing. */
int cs_orth_phase(cs_sched_t *s, cs_orth_t *o, int k, const cs_call_t *sub, cs_ref_t send,
                  cs_ref_t recv, int in_place) CS_MUST_CHECK;

/* variants(): every 2D and then every 3D layout of nprocs, each with phase=native and
 * phase=`p2p`. CS_ERR_NOMEM when they do not fit in cap. */
int cs_orth_variants(int nprocs, const char *p2p, cs_params_t *out, int cap, int *n) CS_MUST_CHECK;

/* setup() of every orth algorithm: CS_ERR_NOT_APPLICABLE when the layout does not fit the
 * communicator; for phase=native the line communicators of every dimension (collective). */
int cs_orth_setup(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) CS_MUST_CHECK;

#endif

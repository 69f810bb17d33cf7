/* Per-communicator context.
 *
 * The first time collsel works on a user communicator it caches a cs_comm_t on it with an
 * attribute keyval: a private duplicate communicator (so our messages never match the
 * application's), rank and size, and reusable storage for schedules, scratch memory and MPI
 * requests. Storage only grows, so after warm-up a call allocates nothing. The keyval's delete
 * callback frees everything when the user communicator is freed (or at MPI_Finalize for the
 * predefined communicators).
 *
 * The context also keeps what algorithms create once per communicator: the states of variants
 * with a setup (algo.h), one per (algorithm, parameters), and the line communicators of
 * cs_comm_line(), one per (stride, size), which states borrow. Both are created collectively on
 * first use and live as long as the context, so schedules may point at them. */
#ifndef CS_COMM_H
#define CS_COMM_H

#include "call.h"
#include "params.h"
#include "sched.h"
#include "status.h"

#include <mpi.h>

/* Tag of every schedule message on the private communicator. */
#define CS_TAG 7411

/* Schedules cached per communicator. An application that alternates a few collectives and
 * sizes, and the tuning run that interleaves candidates, find their schedules built. */
#define CS_COMM_SCHEDS 8

/* A cached schedule and the algorithm and call shape it was built for (algo NULL: empty). */
typedef struct cs_comm_sched {
    const struct cs_algo *algo;
    cs_call_t shape;
    cs_params_t params;
    cs_sched_t sched;
    unsigned version; /* changes whenever the entry is rebuilt */
} cs_comm_sched_t;

/* The state of one variant on this communicator (algo.h). */
typedef struct cs_comm_state {
    const struct cs_algo *algo;
    cs_params_t params;
    cs_state_t state;
    struct cs_comm_state *next;
} cs_comm_state_t;

/* The line communicators of one (stride, size) partition (cs_comm_line). */
typedef struct cs_comm_line {
    int stride, size;
    MPI_Comm comm; /* this rank's line */
    struct cs_comm_line *next;
} cs_comm_line_t;

typedef struct cs_comm {
    MPI_Comm comm; /* private duplicate of the user communicator */
    int rank, nprocs;
    cs_comm_sched_t scheds[CS_COMM_SCHEDS];
    int next_sched; /* entry replaced next (round robin) */
    void *scratch;
    size_t scratch_cap;
    MPI_Request *reqs;
    int reqs_cap;
    void *selector;                   /* the selector's state for this communicator */
    void (*selector_free)(void *sel); /* frees it with the context */
    cs_comm_state_t *states;          /* variants' states, in order of creation */
    cs_comm_line_t *lines;            /* line communicators, in order of creation */
} cs_comm_t;

/* Returns the context of `user`, creating it (collectively: PMPI_Comm_dup) on first use.
 * Must be called by all ranks of `user` the first time. CS_ERR_MPI or CS_ERR_NOMEM on failure,
 * with nothing cached. */
int cs_comm_get(MPI_Comm user, cs_comm_t **out) CS_MUST_CHECK;

/* Makes sure the context has at least `scratch_bytes` of 16-byte aligned scratch memory and
 * `nreqs` requests. Keeps the old storage on CS_ERR_NOMEM. */
int cs_comm_reserve(cs_comm_t *ctx, size_t scratch_bytes, int nreqs) CS_MUST_CHECK;

/* The communicator of this rank's line in the partition of the ranks into lines of `size`
 * ranks `stride` apart: ranks base + i * stride for i < size, where
 * base = rank - ((rank / stride) mod size) * stride, in rank order (member i is its rank i).
 * Orthogonal grids use it for their rows and columns, each dimension k being the partition
 * (stride_k, d_k). Created on the first request for (stride, size) by PMPI_Comm_split over the
 * private communicator, which is collective: every rank must ask for the same lines in the same
 * order. The communicator belongs to the context. CS_ERR_ARG when stride * size does not divide
 * the communicator's size. */
int cs_comm_line(cs_comm_t *ctx, int stride, int size, MPI_Comm *out) CS_MUST_CHECK;

/* The state of variant (algo, params) on this communicator: found in the context, or set up by
 * algo->setup (collectively, see algo.h) and kept there. Nothing is kept when setup() fails; its
 * partial state is torn down. */
int cs_comm_state(cs_comm_t *ctx, const struct cs_algo *algo, const cs_params_t *params,
                  const cs_state_t **out) CS_MUST_CHECK;

#endif

/* Per-communicator context.
 *
 * The first time collsel works on a user communicator it caches a cs_comm_t on it with an
 * attribute keyval: a private duplicate communicator (so our messages never match the
 * application's), rank and size, and reusable storage for schedules, scratch memory and MPI
 * requests. Storage only grows, so after warm-up a call allocates nothing. The keyval's delete
 * callback frees everything when the user communicator is freed (or at MPI_Finalize for the
 * predefined communicators). */
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
} cs_comm_t;

/* Returns the context of `user`, creating it (collectively: PMPI_Comm_dup) on first use.
 * Must be called by all ranks of `user` the first time. CS_ERR_MPI or CS_ERR_NOMEM on failure,
 * with nothing cached. */
int cs_comm_get(MPI_Comm user, cs_comm_t **out) CS_MUST_CHECK;

/* Makes sure the context has at least `scratch_bytes` of 16-byte aligned scratch memory and
 * `nreqs` requests. Keeps the old storage on CS_ERR_NOMEM. */
int cs_comm_reserve(cs_comm_t *ctx, size_t scratch_bytes, int nreqs) CS_MUST_CHECK;

#endif

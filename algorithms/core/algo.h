/* Algorithm descriptors.
 *
 * Every algorithm is a cs_algo_t that lives at the bottom of its own file
 * (algorithms/<coll>/<coll>_<alg>.c) and is registered by one line in algorithms/registry.def.
 * An algorithm is either a schedule builder (`build`: appends operations, never calls MPI
 * point-to-point) or, for the MPI library's own collectives, a direct `run`.
 *
 * Requirements are declared in `reqs` and checked by cs_algo_applicable(); build() defends
 * itself too and returns CS_ERR_NOT_APPLICABLE. An algorithm never switches to another one.
 *
 * Per-communicator state. An algorithm whose schedules start native collectives on
 * sub-communicators (COLL operations, sched.h) or need other resources that are created once
 * per communicator (shared-memory windows) has a `setup`: the first time a variant runs on a
 * communicator, cs_algo_prepare() calls setup() on every rank of it (collectively: all ranks
 * make the same calls in the same order, as with any collective) and the context keeps the
 * filled cs_state_t, keyed by (algorithm, parameters), until the communicator is freed; then
 * `teardown` (NULL: nothing to free) releases what setup() created itself. Sub-communicators
 * from cs_comm_line() belong to the context and are shared by every variant that asks for the
 * same line. Schedules built for the variant on that communicator are bound to the state, so
 * their COLL operations find comms[i]. setup() decides CS_ERR_NOT_APPLICABLE (this variant cannot
 * run on this communicator) before communicating and the same way on every rank. */
#ifndef CS_ALGO_H
#define CS_ALGO_H

#include "call.h"
#include "params.h"
#include "sched.h"

struct cs_comm;

/* Most variants one algorithm may list for one communicator (cs_algo_variants). */
#define CS_MAX_VARIANTS 512

enum cs_req {
    CS_REQ_COMMUTATIVE = 1u << 0, /* the reduction op must commute */
    CS_REQ_POW2 = 1u << 1,        /* nprocs must be a power of two */
    /* Works on the node layout: setup() asks the context for it (cs_comm_node) and puts it in
     * the state, build() reads it from s->state->nodes (NULL: CS_ERR_NOT_APPLICABLE) and may use
     * the window slot. Nothing a call can show, so cs_algo_applicable() does not check it; the
     * simulator runs such algorithms on emulated layouts. */
    CS_REQ_NODES = 1u << 2,
    /* Needs every rank's count of a gatherv or scatterv, agreed on every rank (call.h:
     * allcounts, set by cs_comm_agree): NULL on every rank alike when not agreed or when the
     * ranks' block types differ in size. */
    CS_REQ_ALLCOUNTS = 1u << 3,
    /* The call's send and receive types have a true lower bound of 0 (Open MPI's own
     * algorithms, ompi/ompi.c, mishandle others). Decided per rank: the ranks of a call agree
     * when they pass types of one layout, as MPI requires of reductions. */
    CS_REQ_TRUE_LB0 = 1u << 4,
};

typedef struct cs_algo {
    const char *name; /* "<coll>/<alg>": a database key, never renamed */
    cs_coll_t coll;
    const char *desc;              /* one line */
    unsigned reqs;                 /* CS_REQ_* */
    const cs_param_spec_t *params; /* declared parameters (params.h); NULL when none */
    int nparams;
    /* The variants worth sweeping on a communicator of `nprocs` processes, `ppn` per node:
     * writes at most `cap` parameter sets to out and their number to *n. NULL: one variant,
     * the defaults. */
    int (*variants)(int nprocs, int ppn, cs_params_t *out, int cap, int *n);
    /* Appends the schedule of `call` for variant `params` (defaults filled in). */
    int (*build)(cs_sched_t *s, const cs_call_t *call, const cs_params_t *params);
    /* Runs the call directly (no schedule): the MPI library's collective for a native
     * algorithm, or a measured stand-in such as the bench's `<coll>/selected`. */
    int (*run)(const cs_call_t *call);
    /* 1 for `<coll>/native`, the MPI library's own collective: the baseline every rule is
     * decided against and the selector's fallback. Test it with cs_algo_is_native(). */
    int native;
    /* Optional per-communicator state (see above); state arrives zeroed, comms MPI_COMM_NULL. */
    int (*setup)(struct cs_comm *ctx, const cs_params_t *params, cs_state_t *state);
    void (*teardown)(cs_state_t *state);
    /* 1 when its schedules run the MPI library's blocking collectives (COLL operations with
     * `blocking`, sched.h): they can never be nonblocking operations (core/nb.h), so nothing
     * sets its state up for them (cs_nb_may_run). */
    int blocking_colls;
} cs_algo_t;

/* 1 when `a` is the MPI library's own collective (`<coll>/native`). */
static inline int cs_algo_is_native(const cs_algo_t *a) {
    return a->native;
}

/* 1 when `a` can be a phase of a composite algorithm (orth's `phase`, dpml's `inter`): it has a
 * schedule builder and no per-communicator state, so its schedule can be appended to another's
 * on a group of ranks. */
static inline int cs_algo_is_phase(const cs_algo_t *a) {
    return a->build != NULL && a->setup == NULL;
}

/* An algorithm with values for its parameters. */
typedef struct cs_variant {
    const cs_algo_t *algo;
    cs_params_t params;
} cs_variant_t;

/* The variants of `a` for a communicator of nprocs processes, ppn per node, into
 * out[0..cap-1] (*n of them, possibly 0: the algorithm cannot run on such a communicator).
 * CS_ERR_NOMEM when cap (or CS_MAX_VARIANTS) is too small. */
int cs_algo_variants(const cs_algo_t *a, int nprocs, int ppn, cs_variant_t *out, int cap,
                     int *n) CS_MUST_CHECK;

/* The variant's name, "<coll>/<alg>" or "<coll>/<alg>(key=value,...)". */
void cs_variant_name(const cs_variant_t *v, char *buf, size_t len);

/* CS_OK when `a` can run `call`, CS_ERR_NOT_APPLICABLE otherwise (wrong collective, a
 * declared requirement does not hold, or a schedule could need a message of more than INT_MAX
 * elements: p blocks of a block collective, the vector of bcast, reduce, allreduce, scan,
 * exscan and reduce_scatter(_block); then the MPI library's collective runs). */
int cs_algo_applicable(const cs_algo_t *a, const cs_call_t *call) CS_MUST_CHECK;

/* Resets `s`, runs a->build for `call` with `params` (NULL: the defaults) and closes the last
 * round. The schedule is for the rank and size recorded in the call. */
int cs_algo_build(const cs_algo_t *a, const cs_params_t *params, const cs_call_t *call,
                  cs_sched_t *s) CS_MUST_CHECK;
/* cs_algo_build with `state` (the variant's state on the communicator, or an emulated one in
 * the simulator; may be NULL) bound to `s` before build() runs, so that the builder can read
 * the node layout. */
int cs_algo_build_state(const cs_algo_t *a, const cs_params_t *params, const cs_call_t *call,
                        const cs_state_t *state, cs_sched_t *s) CS_MUST_CHECK;

/* Runs algorithm `a` for `call`: checks applicability, builds the schedule into the
 * communicator's cached storage and executes it on the private communicator, or calls a->run.
 * CS_ERR_NOT_APPLICABLE without communicating when `a` does not apply. */
int cs_algo_run(const cs_algo_t *a, const cs_call_t *call) CS_MUST_CHECK;

/* cs_algo_run for a variant. */
int cs_algo_run_variant(const cs_variant_t *v, const cs_call_t *call) CS_MUST_CHECK;

struct cs_comm_sched;
/* The two halves of running a schedule algorithm, for callers that run one call shape again
 * and again (the selector's call cache): cs_algo_prepare() sets up the variant's state on the
 * communicator if it has a setup and this is its first use there (collective), finds or builds
 * the schedule of `a` for `call` in the context's cache, binds the state to it and reserves its
 * scratch memory, requests and window bytes (collectively over the node when the window
 * grows); the entry stays what it is while its `version` is unchanged.
 * cs_algo_exec() runs a prepared schedule on new buffers. CS_ERR_NOT_APPLICABLE for an
 * algorithm without a schedule. */
int cs_algo_prepare(const cs_algo_t *a, const cs_params_t *params, const cs_call_t *call,
                    struct cs_comm *ctx, struct cs_comm_sched **entry) CS_MUST_CHECK;
int cs_algo_exec(struct cs_comm *ctx, const cs_sched_t *sched, const void *sendbuf,
                 void *recvbuf) CS_MUST_CHECK;
/* Builds what cs_algo_exec() would build at its first run of `sched` on these buffers (the
 * struct datatypes of multi-part messages, exec.h cs_exec_mpi_prebuild), so that it runs
 * without creating any while the buffers and the context's scratch stay where they are. */
int cs_algo_prebuild(struct cs_comm *ctx, const cs_sched_t *sched, const void *sendbuf,
                     void *recvbuf) CS_MUST_CHECK;

#endif

/* Nonblocking and persistent collectives from schedules, as MPI requests (docs/nonblocking.md).
 *
 * An operation (cs_nb_op_t) runs one schedule step by step (exec.h cs_exec_progress) with its
 * own copy of everything a run touches: the schedule (built when the operation is made), the
 * scratch memory, the request and status arrays and a tag. So any number of operations may be
 * outstanding on one communicator next to blocking collectives, which use the context's cached
 * schedules, scratch and requests and the tag CS_TAG.
 *
 * Matching. Every operation takes the next number of its context's sequence (cs_comm_t.nb_seq)
 * when it is made, in issue order, which MPI makes the same on every rank; its messages carry
 * tag CS_NB_TAG_FIRST + seq mod CS_NB_TAGS on the private duplicate. Operations never match
 * each other's messages, blocking schedules' (CS_TAG) or the application's (another
 * communicator), unless CS_NB_TAGS operations are outstanding at once on one communicator.
 *
 * Which schedules can be operations: those of an algorithm with a schedule builder and no
 * blocking COLL operations (sched.h `blocking`), using the node's window only as "The window"
 * below allows. An algorithm with per-communicator state (algo.h setup: the orthogonal
 * grids' line communicators, the neighbourhood colourings) qualifies only when its state
 * already exists on the context (cs_comm_state_find): an operation never communicates, so it
 * cannot make one, and states are made collectively (by a blocking call of the variant, or by
 * the selector ahead of nonblocking calls, selector/comm.c), so every rank finds the same.
 * cs_nb_issue and cs_nb_init refuse others with CS_ERR_NOT_APPLICABLE, locally and the same way
 * on every rank (the caller then runs the MPI library's nonblocking collective).
 *
 * Order of COLL operations. A COLL operation starts the MPI library's nonblocking collective on
 * a sub-communicator of the state (orthogonal grids' lines), which operations of one context
 * and its blocking calls share. MPI matches collectives on a communicator in the order they
 * are started, so every rank must start them in one order, whatever order the rounds of
 * overlapping operations finish in. Rule: a run (a nonblocking operation, or one start of a
 * persistent one) starts a round with COLL operations only when every run started earlier on
 * the same context has started all of its COLL operations. Runs are started in the same order
 * on every rank (MPI's rule for collectives), so the COLLs of every sub-communicator are then
 * started in that order everywhere. The earliest run with COLLs left is never held, so every
 * run gets its turn. Each run counts its COLL operations not started yet; the context counts
 * such runs (cs_comm_t.nb_coll_runs), and a blocking schedule with COLL operations issued
 * while it is not 0 first progresses them until it is (cs_nb_drain_colls): then the blocking
 * call's COLLs come after theirs on every rank too. The executor is the same
 * (cs_exec_progress_gated asks the rule before each round).
 *
 * The window. A schedule that uses the node's shared-memory window (allreduce/dpml: its slot,
 * SYNC, COLLs on the node and leader communicators) runs as an operation on the operations'
 * node resources (comm.h, "Operations' node resources": the context's only layout when it does
 * not share one, else a second layout of its own, never the shared one) and its state for
 * operations (cs_comm_state_ops), and only when that window is already as large as the schedule
 * needs (growing it is collective over the node). Both are made collectively ahead of the
 * operations (cs_nb_ahead: the selector, when it sets a communicator up), the window sized for
 * the largest call the rules may give the variant, at most CS_NB_WINDOW; a blocking call grows
 * the window only where it is the context's only one. Every node's window grows alike (the
 * schedules ask the same on every node), so every rank accepts or refuses alike; a refused
 * call goes to the next candidate. The shared layout is never used by operations: they would
 * meet blocking calls of other communicators on it, and serialising those across
 * communicators can deadlock (ranks may order collectives of two communicators differently;
 * docs/nonblocking.md). Runs that use the window are serialised per context: a run starts its
 * first round only when every run started earlier on the context that uses the window has
 * finished (on this rank: like consecutive blocking calls, which the window's layout keeps
 * apart, allreduce_dpml.c). The context counts such runs (cs_comm_t.nb_win_runs); a blocking
 * schedule that uses the same window, and the growing of it, first progress them until there
 * are none (cs_nb_drain_window).
 *
 * The request. A nonblocking operation is an MPI generalized request (MPI_Grequest_start): its
 * query function gives the empty status of a collective (and the run's error), its free
 * function frees the operation, its cancel function refuses. cs_nb_progress() advances every
 * outstanding operation and calls MPI_Grequest_complete on those whose schedule finished; MPI's
 * own completion calls then see them complete. A persistent operation's handle is a
 * generalized request made at init that never completes (the handle the application keeps);
 * each start makes a fresh generalized request for the run, which the completion functions
 * below put in the handle's place when they hand an array to MPI (cs_nb_wait ...). Nothing of
 * collsel's is allocated at a start (MPI_Grequest_start takes MPI's request).
 *
 * Progress happens in cs_nb_progress(), which the completion functions below call (and the
 * selector's nonblocking entry points): without them (an application calling MPI_Wait of the
 * MPI library on a collsel request) a request never completes. libcollsel_pmpi interposes
 * MPI_Wait ... MPI_Startall with them. Optionally (cs_nb_set_progress_thread, the selector's
 * COLLSEL_PROGRESS=thread) a progress thread does the same while the application computes: it
 * is started when an operation first becomes outstanding, only under MPI_THREAD_MULTIPLE,
 * sleeps on a condition variable while none is outstanding, backs off (sched_yield, then short
 * sleeps) while the outstanding ones wait for other processes, and is stopped and joined by
 * cs_nb_progress_thread_stop (collsel_finalize) and at MPI_Finalize.
 *
 * Thread safety: one lock guards the list of outstanding operations and the persistent
 * handles; progress runs under it (the progress thread's too). */
#ifndef CS_NB_H
#define CS_NB_H

#include "algo.h"
#include "comm.h"

#include <mpi.h>
#include <stdint.h>

/* The tags of operations: CS_NB_TAG_FIRST .. CS_NB_TAG_FIRST + CS_NB_TAGS - 1, all within
 * MPI's guaranteed MPI_TAG_UB (32767) and apart from CS_TAG. */
#define CS_NB_TAG_FIRST 8192
#define CS_NB_TAGS      24576

/* The most bytes on each side of its middle that cs_nb_ahead makes the operations' window for
 * calls it does not know the size of (COLLSEL_FORCE, an unbounded last rule interval): 4 MiB,
 * so a communicator's own window costs at most 8 MiB of shared memory per node. */
#define CS_NB_WINDOW ((MPI_Aint)4 << 20)

typedef struct cs_nb_op cs_nb_op_t;

/* Makes a nonblocking operation running variant `v` for the normalised `call` on `ctx` and
 * starts it: *request is its generalized request, completed by cs_nb_progress() and freed by a
 * completion call or MPI_Request_free like any MPI request. CS_ERR_NOT_APPLICABLE (nothing
 * made, no sequence number taken) when `v` cannot run `call` or cannot be an operation (see
 * above); CS_ERR_NOMEM, CS_ERR_MPI. The call's buffers and arrays must stay valid until the
 * request completes, as MPI requires; its derived datatypes need not: the operation keeps
 * duplicates of them (MPI_Type_dup), freed with it, so the caller may free its own at once. */
int cs_nb_issue(cs_comm_t *ctx, const cs_variant_t *v, const cs_call_t *call,
                MPI_Request *request) CS_MUST_CHECK;

/* Makes a persistent operation (inactive) for variant `v` and `call` on `ctx`: the schedule is
 * built now, so that starts allocate nothing. *request is its handle, started by cs_nb_start
 * and freed by cs_nb_request_free; it keeps duplicates of the derived datatypes, as
 * cs_nb_issue's operations do, until it is freed. Failures as cs_nb_issue. */
int cs_nb_init(cs_comm_t *ctx, const cs_variant_t *v, const cs_call_t *call,
               MPI_Request *request) CS_MUST_CHECK;

/* gatherv, scatterv and alltoallv: their key (and counts) are agreed per call, collectively
 * (comm.h cs_comm_agree), before a variant can be chosen, and an operation cannot wait for
 * that. An operation made by cs_nb_issue_agreeing runs in two parts: its run starts the
 * agreement with the MPI library's nonblocking collective on the private communicator
 * (cs_comm_agree_start: started in issue order, like every collective on that communicator,
 * so every rank starts it at the same point); in progress, once it completes, the call has its
 * agreed key and counts, `choose` (the selector's) picks the variant, the same on every rank,
 * and its schedule is built and run with the operation's tag, which the agreement does not
 * use. A persistent one (cs_nb_init_agreeing) agrees and chooses at its first start and keeps
 * the schedule for the next (that first start allocates). The variant must have no COLL
 * operations and not use the window: chosen in progress, its place among them would not be
 * the application's order.
 * `choose` calls try(arg, v) for the variants it ranks, best first, until one returns
 * anything but CS_ERR_NOT_APPLICABLE, and returns that; it must end with a variant that can
 * run every call (the run fails otherwise). It runs in progress, perhaps on the progress
 * thread. */
typedef int (*cs_nb_try_t)(void *arg, const cs_variant_t *v);
typedef int (*cs_nb_choose_t)(cs_comm_t *ctx, const cs_call_t *call, int persistent,
                              cs_nb_try_t try, void *arg);
int cs_nb_issue_agreeing(cs_comm_t *ctx, const cs_call_t *call, cs_nb_choose_t choose,
                         MPI_Request *request) CS_MUST_CHECK;
int cs_nb_init_agreeing(cs_comm_t *ctx, const cs_call_t *call, cs_nb_choose_t choose,
                        MPI_Request *request) CS_MUST_CHECK;

/* 1 when variants of `a` can be operations (cs_nb_issue may accept them for some call) once
 * their state exists: a schedule builder, not native, no blocking COLL operations (those that
 * use the window only once it is large enough, above). Those with a setup are the ones worth
 * setting up ahead of nonblocking calls (cs_nb_ahead). */
int cs_nb_may_run(const cs_algo_t *a);

/* Makes, collectively over ctx (every rank with the same arguments at the same point), what
 * operations of variant `v` need and cannot make themselves, so that cs_nb_issue and
 * cs_nb_init accept them without a blocking call of the variant first: nothing for a variant
 * without a setup or that cannot be an operation (cs_nb_may_run); else its state for
 * operations (cs_comm_state_ops); and for one that uses the node's window (allreduce/dpml), the
 * operations' window as large as the variant's schedule of an allreduce of `max_bytes` bytes
 * needs, or CS_NB_WINDOW when that is less (larger calls are refused then). CS_OK, or
 * CS_ERR_NOT_APPLICABLE when the variant does not fit the communicator (every rank alike,
 * before communicating), or a failure (the variant then has no state: refused, as before). */
int cs_nb_ahead(cs_comm_t *ctx, const cs_variant_t *v, uint64_t max_bytes) CS_MUST_CHECK;

/* Advances every outstanding operation as far as it goes without blocking, completing the
 * generalized requests of those that finished (a failed run completes with its error). CS_OK;
 * an operation's failure is its request's, not this call's. */
int cs_nb_progress(void);

/* The context `ctx` is being freed (its communicator freed, or MPI_Finalize): runs its
 * outstanding operations to their end first (blocking; every rank frees the communicator, so
 * every rank gets here), and makes its persistent operations unable to start again (their
 * handles can still be freed). comm.c calls it before freeing a context. */
void cs_nb_forget_context(const cs_comm_t *ctx);

/* Runs the outstanding operations of `ctx` to their end (blocking, like cs_nb_forget_context's
 * first part): the selector calls it before it replaces the rules of a context, which
 * operations that choose after their agreement read (cs_nb_issue_agreeing). */
void cs_nb_drain_context(const cs_comm_t *ctx);

/* Runs the outstanding operations of `ctx` (cs_nb_progress) until none has COLL operations left
 * to start (see "Order of COLL operations" above): a blocking schedule with COLL operations
 * calls it first when ctx->nb_coll_runs is not 0, so that it starts its COLLs after theirs on
 * every rank. Blocks as a collective does (the operations may wait for other processes). */
void cs_nb_drain_colls(cs_comm_t *ctx);

/* Runs the outstanding operations of `ctx` until none that uses the node's window is left (see
 * "The window" above): before a blocking schedule uses the window or grows it, when
 * ctx->nb_win_runs is not 0. Blocks as a collective does. */
void cs_nb_drain_window(cs_comm_t *ctx);

/* The number of outstanding operations (started, not finished). */
int cs_nb_outstanding(void);

/* Whether a progress thread advances the outstanding operations (see above): `on` 1 lets one
 * start when an operation next becomes outstanding; 0 starts none (one already running goes on
 * until cs_nb_progress_thread_stop). Under a thread level below MPI_THREAD_MULTIPLE no thread
 * ever starts; rank 0 of MPI_COMM_WORLD says so once, when the first would have. */
void cs_nb_set_progress_thread(int on);

/* Stops the progress thread, if one runs, and joins it (the calling thread must not hold
 * anything the progress thread waits for: call it outside collsel's locks). Outstanding
 * operations stay outstanding, progressed by calls again (and by a new thread, started when
 * cs_nb_set_progress_thread(1) was called again and an operation is next made outstanding). */
void cs_nb_progress_thread_stop(void);

/* The completion and start functions of MPI, for arrays that may hold collsel requests among
 * any others: persistent collsel handles are replaced by their current run (or
 * MPI_REQUEST_NULL when inactive) for the MPI library's function and kept in the caller's
 * array; operations are progressed first, and blocking forms loop on the test form while any
 * operation is outstanding. Arguments, results and MPI_STATUS(ES)_IGNORE as in MPI; the
 * return value is MPI's error code. */
int cs_nb_wait(MPI_Request *request, MPI_Status *status);
int cs_nb_test(MPI_Request *request, int *flag, MPI_Status *status);
int cs_nb_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int cs_nb_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int cs_nb_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int cs_nb_testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status);
int cs_nb_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]);
int cs_nb_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]);
int cs_nb_request_get_status(MPI_Request request, int *flag, MPI_Status *status);
/* MPI_Request_free: a persistent collsel handle is freed (an active run finishes in the
 * background first); an outstanding nonblocking operation is detached: it finishes in the
 * background (later progress, at the latest MPI_Finalize) and is freed then. */
int cs_nb_request_free(MPI_Request *request);
int cs_nb_start(MPI_Request *request);
int cs_nb_startall(int count, MPI_Request requests[]);

#endif

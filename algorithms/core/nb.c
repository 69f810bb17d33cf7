/* Nonblocking and persistent operations over generalized requests (see nb.h). */
#include "nb.h"

#include "exec.h"
#include "log.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Requests swapped on the stack for arrays up to this long (longer ones are allocated). */
#define SWAP_LOCAL 64

struct cs_nb_op {
    cs_comm_t *ctx;
    cs_call_t call;
    cs_sched_t sched; /* built when the operation was made, its own */
    void *scratch;
    MPI_Request *reqs;
    MPI_Status *statuses;
    cs_mpi_transport_t tr;
    cs_exec_t exec;
    int persistent;
    int error;          /* the MPI error code of the last run */
    MPI_Request run;    /* the generalized request of the current run; MPI_REQUEST_NULL when
                           inactive (persistent: set back when a completion call freed it) */
    MPI_Request handle; /* persistent: the application's handle */
    int detached;       /* nonblocking, MPI_Request_free'd while outstanding */
    int release;        /* persistent, MPI_Request_free'd while its run was outstanding */
    int ncolls;         /* COLL operations in the schedule */
    int colls_left;     /* of the current run, not started yet */
    int queued;         /* the current run is on the `colls` list */
    int window;         /* the schedule uses the node's window (its slot or SYNC) */
    int wqueued;        /* the current run is on the `wins` list */
    /* A call whose key is agreed per call (gatherv, scatterv, alltoallv; cs_nb_issue_agreeing):
     * `choose` is the caller's, and until `chosen` the operation has no schedule: its run's
     * first step is the agreement (agree_req, started with the run), then `choose` picks the
     * variant and its schedule is built (once: a persistent operation keeps it). */
    cs_nb_choose_t choose;
    int chosen;
    cs_agree_t agree;
    MPI_Request agree_req;
    /* call's datatypes as the schedule uses them: duplicates of the caller's derived types
     * (keep_types), freed with the operation; per-edge types of neighbor_alltoallw in `wtypes`
     * (outdegree send types, then indegree receive types), NULL for the other collectives */
    MPI_Datatype types[2];
    MPI_Datatype *wtypes;
    int nwtypes;
    /* links[OUT]: the outstanding list; links[PERS]: the persistent list (a persistent
     * operation is on both while it runs); links[COLLS]: the runs with COLL operations not
     * started yet, in the order they were started; links[WINS]: the runs using the window
     * that have not finished, in the order they were started */
    struct {
        struct cs_nb_op *next, *prev;
    } links[4];
};

enum { OUT, PERS, COLLS, WINS };

/* A list of runs in the order they were started (COLLS or WINS), with its last element, so
 * that runs join it at the end. */
typedef struct run_fifo {
    cs_nb_op_t *first, *last;
} run_fifo_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cs_nb_op_t *outstanding; /* started, schedule not finished */
static cs_nb_op_t *persistents; /* persistent handles not freed */
/* runs with COLL operations not started yet, oldest first (nb.h, "Order of COLL operations") */
static run_fifo_t colls;
/* runs using the window, not finished, oldest first (nb.h, "The window") */
static run_fifo_t wins;
static atomic_int noutstanding, npersistent;
static int drain_hooked;

/* The progress thread (nb.h). Its state and `stop` are guarded by `lock`; `wake` is signalled
 * when an operation becomes outstanding and when the thread is to stop. */
enum { THREAD_NONE, THREAD_RUNNING, THREAD_STOPPING, THREAD_REFUSED };
static atomic_int thread_wanted;
static int thread_state = THREAD_NONE, thread_stop;
static pthread_t thread;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

/* The thread's back-off while the outstanding operations wait for other processes: this many
 * sched_yield() passes, then sleeps doubling from PAUSE_MIN_NS to PAUSE_MAX_NS. */
#define YIELDS       16
#define PAUSE_MIN_NS 2000L
#define PAUSE_MAX_NS 200000L

/* Puts op at the front of list `l` (OUT or PERS), whose first operation is *head. */
static void push(cs_nb_op_t **head, cs_nb_op_t *op, int l) {
    op->links[l].prev = NULL;
    op->links[l].next = *head;
    if (*head != NULL) {
        (*head)->links[l].prev = op;
    }
    *head = op;
}

static void unlink_op(cs_nb_op_t **head, cs_nb_op_t *op, int l) {
    if (op->links[l].prev != NULL) {
        op->links[l].prev->links[l].next = op->links[l].next;
    } else {
        *head = op->links[l].next;
    }
    if (op->links[l].next != NULL) {
        op->links[l].next->links[l].prev = op->links[l].prev;
    }
    op->links[l].next = op->links[l].prev = NULL;
}

/* Puts op at the end of list `l` (lock held): *on becomes 1, *count (the context's) grows. */
static void fifo_append(run_fifo_t *q, int l, cs_nb_op_t *op, int *on, atomic_int *count) {
    *on = 1;
    op->links[l].next = NULL;
    op->links[l].prev = q->last;
    if (q->last != NULL) {
        q->last->links[l].next = op;
    } else {
        q->first = op;
    }
    q->last = op;
    atomic_fetch_add(count, 1);
}

/* Takes op off list `l`, if it is there (*on; lock held). */
static void fifo_remove(run_fifo_t *q, int l, cs_nb_op_t *op, int *on, atomic_int *count) {
    if (!*on) {
        return;
    }
    *on = 0;
    if (op == q->last) {
        q->last = op->links[l].prev;
    }
    unlink_op(&q->first, op, l);
    atomic_fetch_sub(count, 1);
}

static void colls_append(cs_nb_op_t *op) {
    fifo_append(&colls, COLLS, op, &op->queued, &op->ctx->nb_coll_runs);
}

/* Takes op's run off the `colls` list, if it is there (lock held): all its COLL operations have
 * started, or the run ended (a failure) before they could. */
static void colls_remove(cs_nb_op_t *op) {
    fifo_remove(&colls, COLLS, op, &op->queued, &op->ctx->nb_coll_runs);
}

static void wins_append(cs_nb_op_t *op) {
    fifo_append(&wins, WINS, op, &op->wqueued, &op->ctx->nb_win_runs);
}

/* Takes op's run off the `wins` list, if it is there (lock held): the run ended. */
static void wins_remove(cs_nb_op_t *op) {
    fifo_remove(&wins, WINS, op, &op->wqueued, &op->ctx->nb_win_runs);
}

/* The first run on list `l` (COLLS or WINS, first element `first`) of context ctx. */
static const cs_nb_op_t *first_of(const cs_nb_op_t *first, int l, const cs_comm_t *ctx) {
    while (first != NULL && first->ctx != ctx) {
        first = first->links[l].next;
    }
    return first;
}

/* The gate of an operation's rounds (exec.h; lock held): a round without COLL operations starts
 * at once; one with COLL operations only when no run started earlier on the same communicator
 * still has COLL operations to start, so that every rank starts the COLLs on a sub-communicator
 * in the same order (the order in which the application started the operations, the same on
 * every rank). The oldest run is never held. */
static int colls_gate(void *arg, const cs_exec_t *e, int begin, int end) {
    cs_nb_op_t *op = arg;
    int n = 0;
    if (e->round == 0 && op->wqueued && first_of(wins.first, WINS, op->ctx) != op) {
        return 0; /* an earlier run of the context still uses the window */
    }
    for (int i = begin; i < end; i++) {
        n += e->sched->ops[i].kind == CS_OP_COLL;
    }
    if (n == 0 || !op->queued) {
        return 1;
    }
    if (first_of(colls.first, COLLS, op->ctx) != op) {
        return 0;
    }
    op->colls_left -= n;
    if (op->colls_left <= 0) {
        colls_remove(op);
    }
    return 1;
}

/* 1 when op's runs go through the gate (and run_start takes the lock for its first step). */
static int gated(const cs_nb_op_t *op) {
    return op->ncolls > 0 || op->window;
}

static int build(cs_nb_op_t *op, const cs_variant_t *v);
static void exec_start(cs_nb_op_t *op);

/* cs_nb_try_t for `choose`: builds variant v's schedule into the operation. */
static int try_build(void *arg, const cs_variant_t *v) {
    return build(arg, v);
}

/* The first steps of a run whose variant is not chosen yet: CS_INPROGRESS until the
 * agreement completes; then the call's key and counts, the variant (`choose`, the same on every
 * rank: the same rules, the same agreed key) and its schedule, whose run starts. */
static int choose_step(cs_nb_op_t *op) {
    int rc = CS_OK, done = 0;
    CS_MPI_CHECK(PMPI_Test(&op->agree_req, &done, MPI_STATUS_IGNORE));
    if (!done) {
        return CS_INPROGRESS;
    }
    cs_comm_agree_finish(&op->call, &op->agree);
    CS_CHECK(op->choose(op->ctx, &op->call, op->persistent, try_build, op));
    op->chosen = 1;
    exec_start(op);
out:
    return rc;
}

/* One cs_exec_progress of op's run (lock held when it is gated). */
static int step(cs_nb_op_t *op) {
    if (!op->chosen) {
        int st = choose_step(op);
        if (st != CS_OK) {
            return st;
        }
    }
    return gated(op) ? cs_exec_progress_gated(&op->exec, colls_gate, op)
                     : cs_exec_progress(&op->exec);
}

/* 1 when `type` is a derived datatype (the caller may free it): not MPI_DATATYPE_NULL, not
 * predefined. */
static int is_derived(MPI_Datatype type) {
    int nints, naddrs, ntypes, combiner = MPI_COMBINER_NAMED;
    return type != MPI_DATATYPE_NULL &&
           PMPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner) == MPI_SUCCESS &&
           combiner != MPI_COMBINER_NAMED;
}

/* Frees the datatypes keep_types made (a duplicate is derived, the predefined ones kept as they
 * were are not). */
static void free_types(cs_nb_op_t *op) {
    for (int i = 0; i < 2; i++) {
        if (is_derived(op->types[i])) {
            PMPI_Type_free(&op->types[i]);
        }
    }
    for (int i = 0; i < op->nwtypes; i++) {
        if (is_derived(op->wtypes[i])) {
            PMPI_Type_free(&op->wtypes[i]);
        }
    }
    free(op->wtypes);
    op->wtypes = NULL;
    op->nwtypes = 0;
}

/* `type`, or a duplicate of it when it is derived, into *out. */
static int keep_type(MPI_Datatype type, MPI_Datatype *out) {
    int rc = CS_OK;
    *out = type;
    if (is_derived(type)) {
        *out = MPI_DATATYPE_NULL;
        CS_MPI_CHECK(PMPI_Type_dup(type, out));
    }
out:
    return rc;
}

/* 1 when `op` is one of MPI's predefined reduction operations. */
static int is_predefined_op(MPI_Op op) {
    static const MPI_Op predefined[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                                        MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                                        MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++) {
        if (op == predefined[i]) {
            return 1;
        }
    }
    return 0;
}

/* MPI lets the application free a datatype as soon as a nonblocking call or persistent init
 * has returned ("Any communication that is currently using this datatype will complete
 * normally"), and a persistent request is started long after: op->call (a copy of the
 * caller's call, normalised) gets its own duplicates of the derived datatypes before the
 * schedule is built from it, and the operation frees them (free_types). Predefined types are
 * kept as they are, and so are the types of a reduction with a user-defined operation: its
 * function is handed the datatype and may recognise the caller's handle (MPI passes the
 * call's), which a duplicate is not; such a datatype must stay until the request is freed. */
static int keep_types(cs_nb_op_t *op) {
    int rc = CS_OK;
    cs_call_t *c = &op->call;
    op->types[0] = op->types[1] = MPI_DATATYPE_NULL;
    if (c->op != MPI_OP_NULL && !is_predefined_op(c->op)) {
        return CS_OK;
    }
    CS_CHECK(keep_type(c->send.type, &op->types[0]));
    if (c->recv.type == c->send.type) {
        op->types[1] = MPI_DATATYPE_NULL; /* one duplicate serves both */
        c->send.type = c->recv.type = op->types[0];
    } else {
        CS_CHECK(keep_type(c->recv.type, &op->types[1]));
        c->send.type = op->types[0];
        c->recv.type = op->types[1];
    }
    if (c->sendtypes != NULL || c->recvtypes != NULL) { /* neighbor_alltoallw */
        int out = c->nbrs != NULL ? c->nbrs->outdegree : 0;
        int in = c->nbrs != NULL ? c->nbrs->indegree : 0;
        MPI_Datatype *w;
        CS_REQUIRE(c->sendtypes != NULL && c->recvtypes != NULL, CS_ERR_ARG);
        w = calloc((size_t)(out + in > 0 ? out + in : 1), sizeof(*w));
        CS_REQUIRE(w != NULL, CS_ERR_NOMEM);
        op->wtypes = w;
        for (int i = 0; i < out + in; i++) {
            w[i] = MPI_DATATYPE_NULL;
        }
        op->nwtypes = out + in;
        for (int i = 0; i < out; i++) {
            CS_CHECK(keep_type(c->sendtypes[i], &w[i]));
        }
        for (int i = 0; i < in; i++) {
            CS_CHECK(keep_type(c->recvtypes[i], &w[out + i]));
        }
        c->sendtypes = w;
        c->recvtypes = w + out;
    }
out:
    return rc;
}

static void destroy(cs_nb_op_t *op) {
    if (op != NULL) {
        free_types(op);
        cs_sched_free(&op->sched);
        free(op->scratch);
        free(op->reqs);
        free(op->statuses);
        free(op->agree.agreed);
        free(op);
    }
}

/* The MPI error code of status `st`. */
static int mpi_code(int st) {
    int code = MPI_ERR_OTHER, cls = MPI_ERR_OTHER;
    if (st == CS_OK) {
        return MPI_SUCCESS;
    }
    if (st == CS_ERR_NOMEM) {
        return MPI_ERR_NO_MEM;
    }
    if (st == CS_ERR_MPI) {
        code = cs_status_mpi_code();
        if (code == MPI_SUCCESS || PMPI_Error_class(code, &cls) != MPI_SUCCESS ||
            cls == MPI_ERR_IN_STATUS || cls == MPI_ERR_PENDING) {
            code = MPI_ERR_OTHER;
        }
    }
    return code;
}

/* --- generalized request callbacks ------------------------------------------------------------ */

/* The status of a completed collective: empty (MPI's "empty status"), with the run's error. */
static int query_fn(void *extra, MPI_Status *status) {
    const cs_nb_op_t *op = extra;
    if (status != MPI_STATUS_IGNORE) {
        PMPI_Status_set_elements(status, MPI_BYTE, 0);
        PMPI_Status_set_cancelled(status, 0);
        status->MPI_SOURCE = MPI_ANY_SOURCE;
        status->MPI_TAG = MPI_ANY_TAG;
        status->MPI_ERROR = op->error;
    }
    return op->error;
}

/* A nonblocking operation's request is freed: so is the operation (no longer outstanding). */
static int free_op_fn(void *extra) {
    destroy(extra);
    return MPI_SUCCESS;
}

/* A persistent operation's run or handle: the operation lives on (cs_nb_request_free). */
static int free_nothing_fn(void *extra) {
    (void)extra;
    return MPI_SUCCESS;
}

/* Collectives cannot be cancelled (MPI): refused. */
static int cancel_fn(void *extra, int complete) {
    (void)extra;
    (void)complete;
    return MPI_ERR_REQUEST;
}

/* --- finishing ------------------------------------------------------------------------------ */

/* Completes the run of `op`, whose schedule finished (lock held, op off the outstanding list);
 * frees what was freed while it ran. `op` may be gone on return. */
static void finish(cs_nb_op_t *op) {
    MPI_Request run = op->run;
    PMPI_Grequest_complete(run);
    if (op->detached) {
        PMPI_Request_free(&run); /* free_op_fn frees op */
    } else if (op->release) {
        PMPI_Request_free(&run);
        PMPI_Grequest_complete(op->handle);
        PMPI_Request_free(&op->handle);
        destroy(op);
    }
}

/* One cs_exec_progress of every outstanding operation (lock held): completes those that
 * finished. Returns how many moved (finished, or went on to another round). */
static int advance(void) {
    int moved = 0;
    for (cs_nb_op_t *op = outstanding, *next; op != NULL; op = next) {
        int round = op->exec.round, st;
        next = op->links[OUT].next;
        st = step(op);
        if (st == CS_INPROGRESS) {
            moved += op->exec.round != round;
            continue;
        }
        moved++;
        colls_remove(op);
        wins_remove(op);
        unlink_op(&outstanding, op, OUT);
        atomic_fetch_sub(&noutstanding, 1);
        op->error = mpi_code(st);
        finish(op);
    }
    return moved;
}

int cs_nb_progress(void) {
    if (atomic_load_explicit(&noutstanding, memory_order_acquire) == 0 ||
        pthread_mutex_trylock(&lock) != 0) {
        return CS_OK; /* nothing to do, or another thread (the progress thread) is at it */
    }
    advance();
    pthread_mutex_unlock(&lock);
    return CS_OK;
}

void cs_nb_drain_colls(cs_comm_t *ctx) {
    while (atomic_load_explicit(&ctx->nb_coll_runs, memory_order_acquire) > 0) {
        cs_nb_progress();
    }
}

void cs_nb_drain_window(cs_comm_t *ctx) {
    while (atomic_load_explicit(&ctx->nb_win_runs, memory_order_acquire) > 0) {
        cs_nb_progress();
    }
}

int cs_nb_outstanding(void) {
    /* acquire: a caller that sees an operation finished sees what its run wrote */
    return atomic_load_explicit(&noutstanding, memory_order_acquire);
}

/* --- the progress thread -------------------------------------------------------------------- */

/* The progress thread: advance() while operations are outstanding, backing off while none
 * moves; waits on `wake` while none is outstanding; returns when told to stop. */
static void *progress_main(void *arg) {
    int idle = 0;
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!thread_stop) {
        if (outstanding == NULL) {
            idle = 0;
            pthread_cond_wait(&wake, &lock);
            continue;
        }
        idle = advance() > 0 ? 0 : idle + 1;
        pthread_mutex_unlock(&lock); /* let the application's threads in */
        if (idle > YIELDS) {
            int shift = idle - YIELDS - 1 < 7 ? idle - YIELDS - 1 : 7;
            long ns = PAUSE_MIN_NS << shift;
            struct timespec pause = {0, ns < PAUSE_MAX_NS ? ns : PAUSE_MAX_NS};
            nanosleep(&pause, NULL);
        } else if (idle > 0) {
            sched_yield();
        }
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* An operation was made outstanding (lock held): wakes the progress thread, or starts it when
 * one is wanted and none runs. A thread level below MPI_THREAD_MULTIPLE refuses it for good,
 * with one message from MPI_COMM_WORLD's rank 0. */
static void thread_kick(void) {
    int provided = MPI_THREAD_SINGLE;
    if (thread_state == THREAD_RUNNING) {
        pthread_cond_signal(&wake);
        return;
    }
    if (thread_state != THREAD_NONE ||
        !atomic_load_explicit(&thread_wanted, memory_order_relaxed)) {
        return;
    }
    if (PMPI_Query_thread(&provided) != MPI_SUCCESS || provided < MPI_THREAD_MULTIPLE) {
        thread_state = THREAD_REFUSED;
        cs_log_complain("COLLSEL_PROGRESS=thread: MPI runs at %s, a progress thread needs "
                        "MPI_THREAD_MULTIPLE (MPI_Init_thread); ignored: nonblocking "
                        "collectives progress in MPI and collsel calls only",
                        provided == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                        : provided == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
                                                          : "MPI_THREAD_SINGLE");
        return;
    }
    thread_stop = 0;
    if (pthread_create(&thread, NULL, progress_main, NULL) != 0) {
        thread_state = THREAD_REFUSED;
        cs_log(CS_LOG_WARN, "COLLSEL_PROGRESS=thread: cannot start a thread; nonblocking "
                            "collectives progress in MPI and collsel calls only");
        return;
    }
    thread_state = THREAD_RUNNING;
}

void cs_nb_set_progress_thread(int on) {
    atomic_store(&thread_wanted, on != 0);
}

void cs_nb_progress_thread_stop(void) {
    int running;
    pthread_mutex_lock(&lock);
    running = thread_state == THREAD_RUNNING;
    if (running) {
        thread_state = THREAD_STOPPING; /* one caller joins; none starts another meanwhile */
        thread_stop = 1;
        pthread_cond_signal(&wake);
    }
    pthread_mutex_unlock(&lock);
    if (running) {
        pthread_join(thread, NULL);
        pthread_mutex_lock(&lock);
        thread_state = THREAD_NONE;
        thread_stop = 0;
        pthread_mutex_unlock(&lock);
    }
}

void cs_nb_drain_context(const cs_comm_t *ctx) {
    int any = 1;
    while (any) {
        any = 0;
        pthread_mutex_lock(&lock);
        for (const cs_nb_op_t *o = outstanding; o != NULL && !any; o = o->links[OUT].next) {
            any = o->ctx == ctx;
        }
        pthread_mutex_unlock(&lock);
        if (any) {
            cs_nb_progress();
        }
    }
}

void cs_nb_forget_context(const cs_comm_t *ctx) {
    cs_nb_drain_context(ctx);
    pthread_mutex_lock(&lock);
    for (cs_nb_op_t *o = persistents; o != NULL; o = o->links[PERS].next) {
        if (o->ctx == ctx) {
            o->ctx = NULL; /* cannot start again (cs_nb_start) */
        }
    }
    pthread_mutex_unlock(&lock);
}

/* MPI_Finalize (an attribute on MPI_COMM_SELF, deleted first): runs every outstanding
 * operation to its end (they may be detached, and every rank gets here) and frees the
 * persistent operations the application did not free. */
static int drain_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    cs_nb_set_progress_thread(0); /* MPI is going: no thread from now on */
    cs_nb_progress_thread_stop();
    while (cs_nb_outstanding() > 0) {
        cs_nb_progress();
    }
    pthread_mutex_lock(&lock);
    while (persistents != NULL) {
        cs_nb_op_t *op = persistents;
        unlink_op(&persistents, op, PERS);
        if (op->run != MPI_REQUEST_NULL) {
            PMPI_Request_free(&op->run);
        }
        PMPI_Grequest_complete(op->handle);
        PMPI_Request_free(&op->handle);
        destroy(op);
    }
    atomic_store(&npersistent, 0);
    drain_hooked = 0;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* Arranges drain_fn at MPI_Finalize, once (lock held). */
static int hook_drain(void) {
    int rc = CS_OK, key = MPI_KEYVAL_INVALID;
    if (drain_hooked) {
        return CS_OK;
    }
    CS_MPI_CHECK(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drain_fn, &key, NULL));
    CS_MPI_CHECK(PMPI_Comm_set_attr(MPI_COMM_SELF, key, NULL));
    drain_hooked = 1;
out:
    if (key != MPI_KEYVAL_INVALID) {
        PMPI_Comm_free_keyval(&key); /* the attribute keeps it until MPI_Finalize */
    }
    return rc;
}

/* --- making and starting -------------------------------------------------------------------- */

/* 1 when schedule `s` uses the node's window: its slot, or SYNC. */
static int uses_window(const cs_sched_t *s) {
    for (int i = 0; i < s->nops && s->window_bytes == 0; i++) {
        if (s->ops[i].kind == CS_OP_SYNC) {
            return 1;
        }
    }
    return s->window_bytes > 0;
}

/* 1 when schedule `s` can be an operation on ctx (see nb.h): its COLL operations (kept apart by
 * nb.h's "Order of COLL operations") are the MPI library's nonblocking collectives, never
 * blocking ones; one that uses the node's window does so only when the operations' window
 * (never a shared one, comm.h) is already as large as the schedule needs (growing it is
 * collective over the node). The same on every rank: every node's window is grown by the same
 * requests, and every rank's schedule asks for the same size (allreduce_dpml.c). */
static int can_operate(const cs_comm_t *ctx, const cs_sched_t *s) {
    const cs_comm_node_t *node = cs_comm_ops_node(ctx);
    for (int i = 0; i < s->ncolls; i++) {
        if (s->colls[i].blocking) {
            return 0;
        }
    }
    return !uses_window(s) || (node != NULL && !node->shared && node->win != MPI_WIN_NULL &&
                               node->win_half >= s->window_bytes);
}

int cs_nb_may_run(const cs_algo_t *a) {
    return a->build != NULL && a->run == NULL && !cs_algo_is_native(a) && !a->blocking_colls;
}

int cs_nb_ahead(cs_comm_t *ctx, const cs_variant_t *v, uint64_t max_bytes) {
    int rc = CS_OK;
    const cs_algo_t *a = v->algo;
    const cs_state_t *state = NULL;
    cs_comm_node_t *node = NULL;
    cs_call_t call;
    cs_sched_t s;
    MPI_Aint need;
    memset(&s, 0, sizeof(s));
    if (a == NULL || a->setup == NULL || !cs_nb_may_run(a)) {
        return CS_OK;
    }
    rc = cs_comm_state_ops(ctx, a, &v->params, &state);
    node = cs_comm_ops_node(ctx);
    if (rc != CS_OK || !(a->reqs & CS_REQ_NODES) || a->coll != CS_COLL_ALLREDUCE || node == NULL) {
        return rc; /* no window to size (allreduce/dpml is the only algorithm with one) */
    }
    /* The variant's own schedule for the largest call says how much window it needs: an
     * allreduce of max_bytes bytes, capped (its schedule needs at least its vector). */
    CS_CHECK(cs_call_allreduce(&call, MPI_IN_PLACE, NULL,
                               (int)(max_bytes < (uint64_t)CS_NB_WINDOW ? max_bytes : CS_NB_WINDOW),
                               MPI_BYTE, MPI_BOR, ctx->comm));
    rc = cs_algo_applicable(a, &call);
    rc = rc == CS_OK ? cs_algo_build_state(a, &v->params, &call, state, &s) : rc;
    if (rc != CS_OK) {
        goto out; /* refused alike on every rank: its operations are refused too */
    }
    need = s.window_bytes < CS_NB_WINDOW ? s.window_bytes : CS_NB_WINDOW;
    if (need > node->win_half) {
        if (atomic_load_explicit(&ctx->nb_win_runs, memory_order_acquire) > 0) {
            cs_nb_drain_window(ctx); /* growing frees the window they use */
        }
        CS_CHECK(cs_comm_window(node, need));
        if (ctx->rank == 0) {
            char name[256];
            cs_variant_name(v, name, sizeof(name));
            cs_log(
                CS_LOG_INFO,
                "%s: nonblocking and persistent calls on %s node resources, window of %ld "
                "bytes on each side made ahead%s",
                name, node == ctx->node ? "the communicator's" : "their own", (long)node->win_half,
                need < s.window_bytes ? " (the most: larger calls go to the next candidate)" : "");
        }
    }
out:
    cs_sched_free(&s);
    return rc;
}

/* Frees what build() made for op (its schedule and memory), so that another variant can be
 * built. */
static void unbuild(cs_nb_op_t *op) {
    cs_sched_free(&op->sched);
    memset(&op->sched, 0, sizeof(op->sched));
    free(op->scratch);
    free(op->reqs);
    free(op->statuses);
    op->scratch = NULL;
    op->reqs = NULL;
    op->statuses = NULL;
    op->ncolls = 0;
    op->window = 0;
}

/* Builds the schedule of variant v for op->call into op, with its memory (see cs_nb_issue);
 * CS_ERR_NOT_APPLICABLE (nothing kept) when v cannot run it or cannot be an operation. */
static int build(cs_nb_op_t *op, const cs_variant_t *v) {
    int rc = CS_OK;
    const cs_algo_t *a = v->algo;
    const cs_state_t *state = NULL;
    cs_comm_t *ctx = op->ctx;
    size_t nreqs;
    CS_REQUIRE(cs_nb_may_run(a), CS_ERR_NOT_APPLICABLE);
    rc = cs_algo_applicable(a, &op->call);
    if (rc != CS_OK) {
        goto out;
    }
    if (a->setup != NULL) {
        /* made collectively before (a blocking call, the selector's states made ahead), or
         * not at all: the same on every rank, and an operation never communicates to make it */
        state = cs_comm_state_find_ops(ctx, a, &v->params);
        CS_REQUIRE(state != NULL, CS_ERR_NOT_APPLICABLE);
    }
    rc = cs_algo_build_state(a, &v->params, &op->call, state, &op->sched);
    if (rc != CS_OK) {
        goto out; /* a refusal is not an error worth logging */
    }
    CS_REQUIRE(can_operate(ctx, &op->sched), CS_ERR_NOT_APPLICABLE);
    for (int i = 0; i < op->sched.nops; i++) {
        op->ncolls += op->sched.ops[i].kind == CS_OP_COLL;
    }
    op->window = uses_window(&op->sched);
    /* chosen after its agreement, in progress: its place in the order of COLL operations and
     * window users would not be the application's (nb.h) */
    CS_REQUIRE(op->choose == NULL || (op->ncolls == 0 && !op->window), CS_ERR_NOT_APPLICABLE);
    if (op->sched.scratch_bytes > 0) {
        size_t bytes = ((size_t)op->sched.scratch_bytes + 63) / 64 * 64;
        CS_REQUIRE(posix_memalign(&op->scratch, 64, bytes) == 0, CS_ERR_NOMEM);
    }
    nreqs = op->sched.max_comm > 0 ? (size_t)op->sched.max_comm : 1;
    op->reqs = malloc(nreqs * sizeof(*op->reqs));
    op->statuses = malloc(nreqs * sizeof(*op->statuses));
    CS_REQUIRE(op->reqs != NULL && op->statuses != NULL, CS_ERR_NOMEM);
    for (size_t i = 0; i < nreqs; i++) {
        op->reqs[i] = MPI_REQUEST_NULL;
    }
    if (op->persistent && op->sched.pcache != NULL) { /* struct datatypes now, not at a start */
        CS_CHECK(cs_exec_mpi_prebuild(&op->sched, op->call.sendbuf, op->call.recvbuf, op->scratch,
                                      op->window ? cs_comm_ops_node(ctx)->win_base : NULL));
    }
    op->tr.reqs = op->reqs;
    op->tr.statuses = op->statuses;
    op->tr.comms = state != NULL ? state->comms : NULL;
    op->tr.ncomms = state != NULL ? state->ncomms : 0;
out:
    if (rc != CS_OK) {
        unbuild(op);
    }
    return rc;
}

/* A new operation for call on ctx, without a schedule, with its own datatypes (keep_types;
 * lock not held). On failure *out may be set: destroy() it. */
static int op_new(cs_comm_t *ctx, const cs_call_t *call, int persistent, cs_nb_op_t **out) {
    cs_nb_op_t *op = calloc(1, sizeof(*op));
    *out = op;
    if (op == NULL) {
        return CS_ERR_NOMEM;
    }
    op->run = MPI_REQUEST_NULL;
    op->handle = MPI_REQUEST_NULL;
    op->agree_req = MPI_REQUEST_NULL;
    op->ctx = ctx;
    op->call = *call;
    op->persistent = persistent;
    op->tr.comm = ctx->comm;
    op->tr.win = MPI_WIN_NULL;
    op->types[0] = op->types[1] = MPI_DATATYPE_NULL;
    return keep_types(op);
}

/* The operation's sequence number, its tag (nb.h "Matching"): taken when it is made, in issue
 * order. */
static void take_tag(cs_nb_op_t *op) {
    op->tr.tag = CS_NB_TAG_FIRST + (int)(op->ctx->nb_seq++ % CS_NB_TAGS);
}

/* Makes an operation of variant v for call on ctx (see cs_nb_issue). */
static int make(cs_comm_t *ctx, const cs_variant_t *v, const cs_call_t *call, int persistent,
                cs_nb_op_t **out) {
    cs_nb_op_t *op = NULL;
    int rc = op_new(ctx, call, persistent, &op);
    rc = rc == CS_OK ? build(op, v) : rc;
    if (rc != CS_OK) {
        destroy(op);
        *out = NULL;
        return rc;
    }
    op->chosen = 1;
    take_tag(op);
    *out = op;
    return CS_OK;
}

/* Makes an operation of call on ctx whose variant `choose` picks after the agreement (see
 * cs_nb_issue_agreeing). */
static int make_agreeing(cs_comm_t *ctx, const cs_call_t *call, cs_nb_choose_t choose,
                         int persistent, cs_nb_op_t **out) {
    cs_nb_op_t *op = NULL;
    int rc = cs_coll_agrees(call->coll) && call->nprocs == ctx->nprocs ? CS_OK : CS_ERR_ARG;
    rc = rc == CS_OK ? op_new(ctx, call, persistent, &op) : rc;
    if (rc == CS_OK) {
        op->choose = choose;
        op->agree.agreed = malloc(3 * (size_t)ctx->nprocs * sizeof(int));
        rc = op->agree.agreed != NULL ? CS_OK : CS_ERR_NOMEM;
    }
    if (rc != CS_OK) {
        destroy(op);
        *out = NULL;
        return rc;
    }
    take_tag(op);
    *out = op;
    return CS_OK;
}

/* Starts the executor on op's schedule (built). */
static void exec_start(cs_nb_op_t *op) {
    cs_exec_start(&op->exec, &op->sched, op->call.sendbuf, op->call.recvbuf, op->scratch,
                  &cs_exec_mpi_transport, &op->tr);
    if (op->window) { /* where the window is now (it may have grown since) */
        const cs_comm_node_t *node = cs_comm_ops_node(op->ctx);
        op->tr.win = node->win;
        cs_exec_set_window(&op->exec, node->win_base);
    }
}

/* Starts a run of `op` (inactive): a new generalized request in op->run, the first round
 * started (or, not chosen yet, its agreement); outstanding until its schedule finishes (at once
 * when it has nothing to wait for). */
static int run_start(cs_nb_op_t *op) {
    int rc = CS_OK, st;
    if (op->chosen) {
        exec_start(op);
    }
    CS_MPI_CHECK(PMPI_Grequest_start(query_fn, op->persistent ? free_nothing_fn : free_op_fn,
                                     cancel_fn, op, &op->run));
    op->error = MPI_SUCCESS;
    if (!op->chosen &&
        (st = cs_comm_agree_start(op->ctx, &op->call, &op->agree, &op->agree_req)) != CS_OK) {
        op->error = mpi_code(st); /* the run fails: its request completes with the error */
        PMPI_Grequest_complete(op->run);
        goto out;
    }
    if (gated(op)) { /* its place in the order of COLL operations and window users is now */
        pthread_mutex_lock(&lock);
        op->colls_left = op->ncolls;
        if (op->ncolls > 0) {
            colls_append(op);
        }
        if (op->window) {
            wins_append(op);
        }
        st = step(op);
        if (st != CS_INPROGRESS) {
            colls_remove(op);
            wins_remove(op);
        }
    } else if ((st = step(op)) == CS_INPROGRESS) {
        pthread_mutex_lock(&lock);
    }
    if (st == CS_INPROGRESS) {
        push(&outstanding, op, OUT);
        atomic_fetch_add(&noutstanding, 1);
        thread_kick();
        pthread_mutex_unlock(&lock);
    } else {
        if (gated(op)) {
            pthread_mutex_unlock(&lock);
        }
        op->error = mpi_code(st);
        PMPI_Grequest_complete(op->run);
    }
out:
    return rc;
}

/* MPI_Finalize's drain, arranged once (the first operation made). */
static int hook_drain_locked(void) {
    int rc;
    pthread_mutex_lock(&lock);
    rc = hook_drain();
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Starts op (just made) as a nonblocking operation: *request its generalized request. */
static int issue(cs_nb_op_t *op, MPI_Request *request) {
    int rc = run_start(op);
    if (rc != CS_OK) {
        destroy(op); /* no request was made */
        return rc;
    }
    *request = op->run; /* op belongs to the request now (free_op_fn) */
    return CS_OK;
}

int cs_nb_issue(cs_comm_t *ctx, const cs_variant_t *v, const cs_call_t *call,
                MPI_Request *request) {
    cs_nb_op_t *op = NULL;
    int rc = hook_drain_locked();
    rc = rc == CS_OK ? make(ctx, v, call, 0, &op) : rc;
    return rc == CS_OK ? issue(op, request) : rc;
}

int cs_nb_issue_agreeing(cs_comm_t *ctx, const cs_call_t *call, cs_nb_choose_t choose,
                         MPI_Request *request) {
    cs_nb_op_t *op = NULL;
    int rc = hook_drain_locked();
    rc = rc == CS_OK ? make_agreeing(ctx, call, choose, 0, &op) : rc;
    return rc == CS_OK ? issue(op, request) : rc;
}

/* Makes op (just made) a persistent operation: *request its handle. */
static int init(cs_nb_op_t *op, MPI_Request *request) {
    int rc = CS_OK;
    CS_MPI_CHECK(PMPI_Grequest_start(query_fn, free_nothing_fn, cancel_fn, op, &op->handle));
    pthread_mutex_lock(&lock);
    push(&persistents, op, PERS);
    atomic_fetch_add(&npersistent, 1);
    pthread_mutex_unlock(&lock);
    *request = op->handle;
    op = NULL;
out:
    destroy(op);
    return rc;
}

int cs_nb_init(cs_comm_t *ctx, const cs_variant_t *v, const cs_call_t *call, MPI_Request *request) {
    cs_nb_op_t *op = NULL;
    int rc = hook_drain_locked();
    rc = rc == CS_OK ? make(ctx, v, call, 1, &op) : rc;
    return rc == CS_OK ? init(op, request) : rc;
}

int cs_nb_init_agreeing(cs_comm_t *ctx, const cs_call_t *call, cs_nb_choose_t choose,
                        MPI_Request *request) {
    cs_nb_op_t *op = NULL;
    int rc = hook_drain_locked();
    rc = rc == CS_OK ? make_agreeing(ctx, call, choose, 1, &op) : rc;
    return rc == CS_OK ? init(op, request) : rc;
}

/* The persistent operation whose handle is `h`, or NULL (lock held). */
static cs_nb_op_t *find_persistent(MPI_Request h) {
    if (h == MPI_REQUEST_NULL) {
        return NULL;
    }
    for (cs_nb_op_t *op = persistents; op != NULL; op = op->links[PERS].next) {
        if (op->handle == h) {
            return op;
        }
    }
    return NULL;
}

/* --- the completion functions ------------------------------------------------------------- */

/* An array of requests as the MPI library gets it: `use` is the caller's array, or a copy in
 * which persistent collsel handles are replaced by their current run. */
typedef struct swap {
    MPI_Request *use;
    MPI_Request local[SWAP_LOCAL];
    int copied;
} swap_t;

static int swap_in(int n, MPI_Request *user, swap_t *s) {
    int any = 0;
    s->use = user;
    s->copied = 0;
    if (atomic_load_explicit(&npersistent, memory_order_relaxed) == 0 || n <= 0) {
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n && !any; i++) {
        any = find_persistent(user[i]) != NULL;
    }
    if (any) {
        MPI_Request *tmp = n <= SWAP_LOCAL ? s->local : malloc((size_t)n * sizeof(*tmp));
        if (tmp == NULL) {
            pthread_mutex_unlock(&lock);
            return MPI_ERR_NO_MEM;
        }
        for (int i = 0; i < n; i++) {
            const cs_nb_op_t *op = find_persistent(user[i]);
            tmp[i] = op != NULL ? op->run : user[i];
        }
        s->use = tmp;
        s->copied = 1;
    }
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* Back to the caller's array: other requests as MPI left them; a persistent handle stays, and
 * a run MPI completed and freed makes its operation inactive. */
static void swap_out(int n, MPI_Request *user, swap_t *s) {
    if (!s->copied) {
        return;
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n; i++) {
        cs_nb_op_t *op = find_persistent(user[i]);
        if (op == NULL) {
            user[i] = s->use[i];
        } else if (s->use[i] == MPI_REQUEST_NULL) {
            op->run = MPI_REQUEST_NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    if (s->use != s->local) {
        free(s->use);
    }
}

int cs_nb_test(MPI_Request *request, int *flag, MPI_Status *status) {
    swap_t s;
    int err = swap_in(1, request, &s);
    if (err == MPI_SUCCESS) {
        cs_nb_progress();
        err = PMPI_Test(s.use, flag, status);
        swap_out(1, request, &s);
    }
    return err;
}

int cs_nb_wait(MPI_Request *request, MPI_Status *status) {
    swap_t s;
    int err = swap_in(1, request, &s), flag = 0;
    while (err == MPI_SUCCESS && !flag) {
        cs_nb_progress();
        if (cs_nb_outstanding() == 0) {
            err = PMPI_Wait(s.use, status);
            break;
        }
        err = PMPI_Test(s.use, &flag, status);
    }
    if (s.use != NULL) {
        swap_out(1, request, &s);
    }
    return err;
}

int cs_nb_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    swap_t s;
    int err = swap_in(count, requests, &s);
    if (err == MPI_SUCCESS) {
        cs_nb_progress();
        err = PMPI_Testall(count, s.use, flag, statuses);
        swap_out(count, requests, &s);
    }
    return err;
}

int cs_nb_waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    swap_t s;
    int err = swap_in(count, requests, &s), flag = 0;
    if (err != MPI_SUCCESS) {
        return err;
    }
    while (err == MPI_SUCCESS && !flag) {
        cs_nb_progress();
        if (cs_nb_outstanding() == 0) {
            err = PMPI_Waitall(count, s.use, statuses);
            break;
        }
        err = PMPI_Testall(count, s.use, &flag, statuses);
    }
    swap_out(count, requests, &s);
    return err;
}

int cs_nb_testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    swap_t s;
    int err = swap_in(count, requests, &s);
    if (err == MPI_SUCCESS) {
        cs_nb_progress();
        err = PMPI_Testany(count, s.use, index, flag, status);
        swap_out(count, requests, &s);
    }
    return err;
}

int cs_nb_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    swap_t s;
    int err = swap_in(count, requests, &s), flag = 0;
    if (err != MPI_SUCCESS) {
        return err;
    }
    while (err == MPI_SUCCESS && !flag) {
        cs_nb_progress();
        if (cs_nb_outstanding() == 0) {
            err = PMPI_Waitany(count, s.use, index, status);
            break;
        }
        err = PMPI_Testany(count, s.use, index, &flag, status);
    }
    swap_out(count, requests, &s);
    return err;
}

int cs_nb_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]) {
    swap_t s;
    int err = swap_in(incount, requests, &s);
    if (err == MPI_SUCCESS) {
        cs_nb_progress();
        err = PMPI_Testsome(incount, s.use, outcount, indices, statuses);
        swap_out(incount, requests, &s);
    }
    return err;
}

int cs_nb_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]) {
    swap_t s;
    int err = swap_in(incount, requests, &s);
    if (err != MPI_SUCCESS) {
        return err;
    }
    *outcount = 0;
    while (err == MPI_SUCCESS && *outcount == 0) {
        cs_nb_progress();
        if (cs_nb_outstanding() == 0) {
            err = PMPI_Waitsome(incount, s.use, outcount, indices, statuses);
            break;
        }
        err = PMPI_Testsome(incount, s.use, outcount, indices, statuses);
    }
    swap_out(incount, requests, &s);
    return err;
}

int cs_nb_request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    swap_t s;
    int err = swap_in(1, &request, &s);
    if (err == MPI_SUCCESS) {
        cs_nb_progress();
        err = PMPI_Request_get_status(s.use[0], flag, status);
        swap_out(1, &request, &s);
    }
    return err;
}

int cs_nb_request_free(MPI_Request *request) {
    cs_nb_op_t *op = NULL;
    if (request == NULL || *request == MPI_REQUEST_NULL ||
        (atomic_load(&npersistent) == 0 && atomic_load(&noutstanding) == 0)) {
        return PMPI_Request_free(request);
    }
    pthread_mutex_lock(&lock);
    op = find_persistent(*request);
    if (op != NULL) {
        unlink_op(&persistents, op, PERS);
        atomic_fetch_sub(&npersistent, 1);
        *request = MPI_REQUEST_NULL;
        for (cs_nb_op_t *o = outstanding; o != NULL; o = o->links[OUT].next) {
            if (o == op) { /* its run finishes in the background (finish) */
                op->release = 1;
                pthread_mutex_unlock(&lock);
                return MPI_SUCCESS;
            }
        }
        pthread_mutex_unlock(&lock);
        if (op->run != MPI_REQUEST_NULL) { /* completed, never waited for */
            PMPI_Request_free(&op->run);
        }
        PMPI_Grequest_complete(op->handle);
        PMPI_Request_free(&op->handle);
        destroy(op);
        return MPI_SUCCESS;
    }
    for (cs_nb_op_t *o = outstanding; o != NULL; o = o->links[OUT].next) {
        if (!o->persistent && o->run == *request) {
            o->detached = 1; /* finish() frees it */
            *request = MPI_REQUEST_NULL;
            pthread_mutex_unlock(&lock);
            return MPI_SUCCESS;
        }
    }
    pthread_mutex_unlock(&lock);
    return PMPI_Request_free(request);
}

int cs_nb_start(MPI_Request *request) {
    cs_nb_op_t *op = NULL;
    if (request != NULL && atomic_load_explicit(&npersistent, memory_order_relaxed) > 0) {
        pthread_mutex_lock(&lock);
        op = find_persistent(*request);
        pthread_mutex_unlock(&lock);
    }
    if (op == NULL) {
        return PMPI_Start(request);
    }
    if (op->run != MPI_REQUEST_NULL || op->ctx == NULL) {
        /* still active (MPI requires completion before a start), or its communicator is gone */
        return MPI_ERR_REQUEST;
    }
    return mpi_code(run_start(op));
}

int cs_nb_startall(int count, MPI_Request requests[]) {
    int err = MPI_SUCCESS;
    for (int i = 0; i < count && err == MPI_SUCCESS; i++) {
        err = cs_nb_start(&requests[i]);
    }
    return err;
}

/* The schedule executor: one implementation runs every schedule, blocking or step by step.
 *
 * cs_exec_t holds the state of one execution: the schedule, the base address of each slot and
 * the round in progress. Communication goes through a transport, so the same executor runs over
 * MPI (cs_exec_mpi_transport: PMPI_Isend/Irecv on a communicator) and over the simulator's
 * in-process mailbox (tests/sim). Local operations (COPY, REDUCE) are the executor's own.
 *
 *   cs_exec_start()    binds a schedule and buffers; nothing runs yet.
 *   cs_exec_progress() advances as far as possible without blocking: CS_OK once the schedule is
 *                      complete, CS_INPROGRESS while it waits, a negative status on error.
 *   cs_exec_run()      runs to completion, blocking in the transport's wait.
 *
 * A multi-part SEND or RECV (sched.h) goes through the transport's startv() with the resolved
 * address of each part. The MPI transport sends it as one message of (MPI_BOTTOM, 1, struct
 * type), the struct built by MPI_Type_create_struct over the parts' absolute addresses
 * (MPI_Get_address). Cost rule: that datatype is built on the op's first execution and kept in
 * the schedule's part cache; later executions reuse it as long as the bases of the slots its
 * parts lie in are the ones it was built for (persistent requests and benchmark loops that pass
 * the same buffers create no datatype), and free and rebuild it when one differs. Executions
 * of schedules without multi-part ops pay one predictable branch per SEND or RECV for this.
 * Freeing a datatype that a pending request of an earlier execution still uses is allowed
 * (MPI_Type_free only marks it), so overlapping executions of one schedule stay correct; they
 * must not start concurrently from several threads (they share the cache's work arrays), which
 * collectives on one communicator never do.
 *
 * The executor allocates nothing: the MPI transport's request array comes from its caller, the
 * multi-part work arrays and datatype cache from the schedule (built when it was). */
#ifndef CS_EXEC_H
#define CS_EXEC_H

#include "sched.h"

typedef struct cs_transport {
    /* Starts operation `op` (SEND or RECV) on memory `buf`; `index` counts the comm ops of the
     * current round from 0. */
    int (*start)(void *ctx, const cs_op_t *op, void *buf, int index);
    /* Sets *done when the `n` operations started this round have all completed. */
    int (*test)(void *ctx, int n, int *done);
    /* Blocks until the `n` operations started this round have completed. */
    int (*wait)(void *ctx, int n);
    /* Starts the native collective `c` of a COLL operation with the resolved buffers (base +
     * offset, also where the slot has no buffer on this rank: that side is insignificant there,
     * and a base of NULL may be MPI_BOTTOM) and, for allgatherv, the group's recvcounts
     * followed by its displs (NULL otherwise); `index` as for start(). NULL: the
     * transport has no collectives (a COLL fails with CS_ERR_NOT_APPLICABLE). */
    int (*coll)(void *ctx, const cs_coll_op_t *c, const void *send, void *recv, const int *counts,
                int index);
    /* Runs a SYNC operation: a memory barrier for the window slot. NULL: nothing to do (one
     * address space, as in the simulator). */
    int (*sync)(void *ctx);
    /* Starts multi-part operation `op` (SEND or RECV with op->nparts > 0) as one message:
     * parts[i] (i < op->nparts) lies at addrs[i]. `pc` is the schedule's part cache, whose
     * entry pc->types[op->ptype] may hold the datatype the transport built for the op: the
     * executor has set the entry's `stale` when a slot base of the parts changed since it was
     * built (or it never was); the transport then frees and rebuilds it (clearing `stale`,
     * counting pc->builds) and reuses it otherwise. The work arrays lens, disps and dtypes of
     * `pc` hold op->nparts entries for the transport to use. `index` as for start(). NULL: the
     * transport has no multi-part messages (such an op fails with CS_ERR_NOT_APPLICABLE). */
    int (*startv)(void *ctx, const cs_op_t *op, const cs_part_t *parts, void *const *addrs,
                  cs_part_cache_t *pc, int index);
} cs_transport_t;

/* Context of the MPI transport. `reqs` must hold at least the schedule's max_comm requests;
 * `comms` (ncomms of them) are the sub-communicators COLL operations name by index (the
 * schedule's state), NULL when there are none; `win` is the shared-memory window behind the
 * window slot (SYNC runs MPI_Win_sync on it), MPI_WIN_NULL when there is none. */
typedef struct cs_mpi_transport {
    MPI_Comm comm;
    int tag;
    MPI_Request *reqs;
    const MPI_Comm *comms;
    int ncomms;
    MPI_Win win;
    /* NULL, or as many statuses as reqs: then a failed round's error is the failing request's
     * own (MPI_ERR_TRUNCATE ...), not MPI_ERR_IN_STATUS (core/status.h cs_status_mpi_code) */
    MPI_Status *statuses;
} cs_mpi_transport_t;

extern const cs_transport_t cs_exec_mpi_transport;

typedef struct cs_exec {
    const cs_sched_t *sched;
    void *base[CS_SLOT_COUNT];
    const cs_transport_t *tr;
    void *tr_ctx;
    int round;   /* round in progress */
    int started; /* its communication has been started */
    int ncomm;   /* number of comm ops started in it */
} cs_exec_t;

/* 0 when the MPI library's MPI_Ireduce is known to corrupt memory for a reduction of type `t`
 * (commutative op or not) to root `root` of its communicator, 1 otherwise. Open MPI's libnbc
 * (seen in 4.1.4; the blocking MPI_Reduce is fine) writes past its temporary buffer for a
 * commutative op and a datatype whose true lower bound is not 0: first seen with a root other
 * than 0, then at root 0 too, with a lower bound of a few KiB or an absolute type at MPI_BOTTOM
 * (a segmentation fault at np 3 in a plain MPI_Ireduce, no collsel involved); a small bound may
 * overrun silently. Builders that would start such a COLL return CS_ERR_NOT_APPLICABLE
 * instead. */
int cs_exec_ireduce_safe(const cs_type_t *t, int commutative, int root);

/* Binds `s` (which must outlive the execution) and the slot bases; the window slot has no
 * base until cs_exec_set_window(). */
void cs_exec_start(cs_exec_t *e, const cs_sched_t *s, const void *sendbuf, void *recvbuf,
                   void *scratch, const cs_transport_t *tr, void *tr_ctx);
/* Sets the base of the window slot (sched.h) after cs_exec_start(), before progress. */
static inline void cs_exec_set_window(cs_exec_t *e, void *window) {
    e->base[CS_SLOT_WINDOW] = window;
}
int cs_exec_progress(cs_exec_t *e) CS_MUST_CHECK;
/* A gate (cs_exec_progress_gated): asked before a round starts, with the round's operations
 * e->sched->ops[begin..end); 1 lets it start now, 0 holds it (progress returns CS_INPROGRESS
 * and asks again next time). */
typedef int (*cs_exec_gate_t)(void *arg, const cs_exec_t *e, int begin, int end);
/* cs_exec_progress, asking `gate` (with `arg`) before each round starts: the nonblocking
 * operations' order of COLL operations (core/nb.h). The same executor: cs_exec_progress is
 * this with no gate. */
int cs_exec_progress_gated(cs_exec_t *e, cs_exec_gate_t gate, void *arg) CS_MUST_CHECK;
/* Builds the struct datatypes of every multi-part operation of `s` for these slot bases now, as
 * the MPI transport would at their first execution (a persistent request's init: its starts
 * then create no datatype while the bases stay). CS_ERR_MPI. */
int cs_exec_mpi_prebuild(const cs_sched_t *s, const void *sendbuf, void *recvbuf, void *scratch,
                         void *window) CS_MUST_CHECK;
int cs_exec_run(cs_exec_t *e) CS_MUST_CHECK;

/* Runs one COPY or REDUCE operation on resolved addresses. */
int cs_exec_local(const cs_op_t *op, MPI_Op mpi_op, const void *src, void *dst) CS_MUST_CHECK;

#endif

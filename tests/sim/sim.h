/* The schedule simulator: p virtual ranks of one schedule run inside one process.
 *
 * Every rank is driven by the real executor (cs_exec_start / cs_exec_progress) over an
 * in-process mailbox transport, so what is tested is exactly what runs over MPI, minus MPI.
 *
 * Mailbox semantics (stricter than MPI, so that a schedule that passes here cannot deadlock or
 * mismatch under any MPI implementation):
 *   - synchronous (rendezvous): a SEND completes only when the matching RECV has been posted by
 *     the peer and the data has been transferred; no eager buffering;
 *   - matching is FIFO per (source, destination) pair: the executor uses one tag;
 *   - data moves by MPI_Pack of the sender's (count, type) and MPI_Unpack into the receiver's
 *     (count, type); both must carry the same number of bytes;
 *   - a native collective on a group (COLL, sched.h) is a rendezvous of all its members: a
 *     member's k-th collective on a group {base, stride, size} joins the k-th instance, which
 *     runs, as a serial reference over the members' buffers (MPI_Pack/Unpack, reductions in
 *     rank order with MPI_Reduce_local), once every member has started it. Members that
 *     disagree on the collective, the root or the sizes, a group that does not hold the rank,
 *     and collectives some member never starts are reported. The overlap check does not look
 *     at COLL buffers.
 *
 * The driver calls cs_exec_progress on every unfinished rank in rank order until all of them
 * return CS_OK. A full pass in which nothing happens (no operation posted, no message
 * transferred, no round finished) while some rank is unfinished is a deadlock.
 *
 * Besides deadlocks the driver reports: operations posted but never matched, send/receive pairs
 * whose sizes differ, a receive whose buffer overlaps another buffer of the same round on the
 * same rank (a race under real MPI), an operation whose slot has no buffer on that rank (NULL
 * base with a non-empty count, e.g. the receive buffer of a non-root gather rank), a peer out of
 * range, and any negative status of the executor.
 *
 * Shared memory (the window slot, sched.h): the ranks of one emulated node share one buffer, so
 * their loads and stores meet as on a real node; a barrier COLL completes when every member
 * has started it. Ranks run one at a time, so a missing barrier shows as a wrong result only
 * when the order of the passes exposes it; SYNC has nothing to do in one address space. */
#ifndef CS_SIM_H
#define CS_SIM_H

#include "core/exec.h"

/* One virtual rank: its schedule and slot bases (any of them may be NULL). `window` is the
 * base of its node's shared window: the ranks of one emulated node get the same address. */
typedef struct cs_sim_rank {
    const cs_sched_t *sched;
    const void *sendbuf;
    void *recvbuf;
    void *scratch;
    void *window;
} cs_sim_rank_t;

/* What went wrong in one simulation; all zero after a clean run. */
typedef struct cs_sim_report {
    int error;     /* a negative status from the executor */
    int deadlock;  /* a pass made no progress while ranks were unfinished */
    int unmatched; /* operations still posted at the end */
    int mismatch;  /* a matched send and receive carry different byte counts */
    int overlap;   /* a receive overlaps another buffer of its round */
    int bad_ref;   /* an operation uses a NULL slot or a peer out of range */
    long messages; /* messages transferred */
    char msg[640]; /* the first problem, one line */
} cs_sim_report_t;

/* Runs ranks[0..p-1] to completion (or until they are stuck) over the mailbox transport.
 * Fills `rep` and returns CS_OK when the run was clean, CS_ERR_INTERNAL when `rep` records a
 * problem, CS_ERR_NOMEM or CS_ERR_MPI when the simulator itself could not work. The caller owns
 * every buffer; the simulator frees what it allocates before returning. */
int cs_sim_run(int p, const cs_sim_rank_t *ranks, cs_sim_report_t *rep) CS_MUST_CHECK;

#endif

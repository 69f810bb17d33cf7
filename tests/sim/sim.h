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
 *     (count, type); both must carry the same number of bytes. A multi-part SEND or RECV
 *     (sched.h) is the concatenation of its parts: the sender's parts are packed one after the
 *     other and unpacked in order into the receiver's parts (or its one buffer), the byte totals
 *     compared as for plain messages. The executor resolves the parts' addresses (the
 *     transport's startv); the simulator builds no datatypes;
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
 * same rank (a race under real MPI; every part of a multi-part op counts as one of its buffers,
 * and the parts of one receive must not overlap each other either), an operation (or a part)
 * whose slot has no buffer on that rank (NULL base with a non-empty count, e.g. the receive
 * buffer of a non-root gather rank), a peer out of range, and any negative status of the
 * executor.
 *
 * Shared memory (the window slot, sched.h): the ranks of one emulated node share one buffer, so
 * their loads and stores meet as on a real node; a barrier COLL completes when every member
 * has started it. Ranks run one at a time, so a missing barrier shows as a wrong result only
 * when the order of the passes exposes it; SYNC has nothing to do in one address space.
 *
 * Window race checker. Whenever some rank has a window, the driver also checks that every two
 * accesses of different ranks to the same window byte, at least one of them a write, are
 * ordered by happens-before as the MPI-3 unified memory model of shared windows requires:
 * a release SYNC, synchronisation the MPI library provides, an acquire SYNC. Ranks with the
 * same window base form a node. The model, deterministic whatever the order of the passes:
 *   - clocks: each rank r has a vector clock VC[r] (p entries), a release clock RC[r] and a
 *     pending acquire PA[r]. VC[r][r] is r's epoch; it starts at 1 (0 means "nothing"), every
 *     other entry and RC, PA start at 0. An access of r is stamped with its epoch VC[r][r];
 *   - synchronisation: a matched SEND->RECV joins the sender's RC (as at the send's start) into
 *     PA[receiver] when the receive completes; a COLL instance (barrier or any other) joins the
 *     RCs of all members, each taken when that member started it, into every member's PA when
 *     it completes. Messages and collectives alone order nothing in the window;
 *   - SYNC by r: RC[r] = VC[r] (release of everything r did), then VC[r][r]++ (later accesses
 *     are not released by it), then VC[r] = join(VC[r], PA[r]) and PA[r] = 0 (acquire). So
 *     what a SYNC acquires is released only by r's next SYNC (a chain of synchronisation
 *     through a third rank orders the window only if that rank SYNCs twice in between);
 *   - an access of rank u at epoch e is visible to rank r iff u == r (program order) or
 *     e <= VC[r][u]: u SYNCed after it, that release reached r, and r SYNCed since;
 *   - shadow per window byte: the last write (rank, epoch) and the reads since it (one
 *     (rank, epoch) while they are ordered, an epoch per rank of the node once two are not).
 *     It is kept per granule, the gcd of the window size and of the ends of every range the
 *     node's schedules touch (computed before the run), so it is exact to the byte.
 *     A read races with a last write that is not visible to it; a write races with a last
 *     write or a read of another rank that is not visible to it. The race counter counts
 *     accesses (one operation's range) with at least one racing byte; `msg` names the first:
 *     node, window offset, both ranks with their rounds and operations.
 * Accesses: COPY and REDUCE (source read, destination written, REDUCE's updated) at the point
 * in their round's op order where they run, between the round's SYNCs; SEND buffers read and
 * RECV buffers written (each part of a multi-part one), COLL send sides read and receive sides
 * written (updated in place; a bcast root reads), all with the rank's clock in the round that
 * starts them. An access covers [true_lb, (count - 1) * extent + true_lb + true_extent) from
 * its address: the gaps of a derived type count as touched, so the check is conservative there
 * (gather and allgather receive sides: all blocks; allgatherv: from the lowest to the highest
 * block). Count 0 touches nothing. Offsets outside [-window_bytes, window_bytes) (the largest of
 * the node's schedules) are reported as bad_ref. The checker looks at the window only (other slots
 * are private to a rank).
 *
 * Consecutive calls (cs_sim_run_seq): each rank runs a sequence of schedules back to back, as
 * consecutive collective calls on one communicator run: a rank starts call k + 1 (in the same
 * progress step) as soon as it has finished call k, while slower ranks may still be in call k.
 * Every check spans the whole sequence: one mailbox (FIFO per pair: MPI's one tag on one
 * communicator), one count of COLL instances per group (a rank's k-th collective on a group,
 * counted over all its calls, joins the k-th instance), one set of clocks and one shadow per
 * window (sized and grained for all the calls), so an access of call k + 1 races with one of
 * call k unless synchronisation orders them. Stricter than MPI, a message whose sender and
 * receiver are in different calls, and a COLL that joins an instance other members started
 * in another call, are reported as mismatches (MPI would match them silently). Each call has
 * its own buffers; a rank's window is the same in every call. Messages then name the call:
 * "rank 1 call 2 round 1". */
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
    int bad_ref;   /* an operation uses a NULL slot, a peer or window offset out of range */
    int race;      /* window accesses that race with another rank's (see above) */
    long messages; /* messages transferred */
    char msg[640]; /* the first problem, one line */
} cs_sim_report_t;

/* Runs ranks[0..p-1] to completion (or until they are stuck) over the mailbox transport.
 * Fills `rep` and returns CS_OK when the run was clean, CS_ERR_INTERNAL when `rep` records a
 * problem, CS_ERR_NOMEM or CS_ERR_MPI when the simulator itself could not work. The caller owns
 * every buffer; the simulator frees what it allocates before returning. */
int cs_sim_run(int p, const cs_sim_rank_t *ranks, cs_sim_report_t *rep) CS_MUST_CHECK;

/* Runs ncalls consecutive calls on p virtual ranks (see "Consecutive calls" above):
 * ranks[k * p + r] is rank r's call k (k from 0); every rank runs all of its calls in order.
 * A rank whose window differs between its calls is reported as bad_ref. Returns and ownership
 * as cs_sim_run, which is cs_sim_run_seq(p, 1, ranks, rep). */
int cs_sim_run_seq(int p, int ncalls, const cs_sim_rank_t *ranks,
                   cs_sim_report_t *rep) CS_MUST_CHECK;

#endif

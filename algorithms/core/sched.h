/* Schedules: the one representation every point-to-point algorithm is written in.
 *
 * A builder appends operations to a cs_sched_t and closes rounds with cs_sched_round(). An
 * operation names its buffer as a cs_ref_t {slot, offset}: the slot is the call's send buffer,
 * receive buffer or the schedule's scratch area, the offset is in bytes from the slot's base
 * address. Because a schedule never holds an address, the same schedule runs again with new
 * buffers (persistent use, benchmark loops) and runs unchanged in the simulator.
 *
 * Round semantics (what the executor does with round r):
 *   1. start every SEND and RECV of the round (nonblocking, in the order appended);
 *   2. wait until all of them have completed;
 *   3. run the round's COPY and REDUCE operations in the order appended.
 * Local work that must happen before a send therefore goes in an earlier round; a round of local
 * operations only costs no communication. Within a round a buffer that is sent must not be
 * written by a receive of the same round.
 *
 * COPY copies (count, type) from one reference to (count, type) at another; the type signatures
 * must match. A copy whose source and destination are the same memory is skipped at run time,
 * which is how in-place calls (call.h) cost nothing extra. REDUCE computes
 * inout = in op inout, like MPI_Reduce_local; cs_sched_reduce_ordered() picks the operands so
 * that rank order holds for non-commutative ops.
 *
 * Scratch space is reserved at build time (cs_sched_scratch) with the type's lower bound and true
 * extent honoured; the executor's caller provides at least `scratch_bytes` bytes, 16-byte aligned.
 *
 * COLL starts a native nonblocking collective (MPI_Ibcast, MPI_Ireduce, ...) of the MPI library
 * on a group of ranks; it counts as one communication operation of its round (one request) and
 * the round waits for it with its sends and receives. The group is rank arithmetic,
 * {base, stride, size}: member i is rank base + i * stride of the schedule's communicator and
 * rank i of the sub-communicator that carries the group's collectives. The schedule does not
 * hold that communicator: the COLL names it by an index into the state of the schedule's variant
 * (cs_state_t, set up once per communicator by the algorithm's setup(), see algo.h), which
 * cs_algo_prepare() binds to the schedule. So the simulator, which has no sub-communicators,
 * runs the same schedule from the group alone. Rooted collectives name the root by its index in
 * the group; `in_place` says that this rank passes MPI_IN_PLACE (gather, reduce: the root;
 * scatter: the root's receive side; allreduce, allgather, allgatherv: any rank), because whether
 * two slots alias is known only at run time. Allgatherv's counts and displacements are copied
 * into the schedule's integer pool.
 *
 * cs_sched_append() reuses a schedule built for the ranks of a group (a registered algorithm's
 * builder run on a call of group size) inside a bigger one: its peers are translated to the
 * group's ranks, its send and receive slots to references of the outer schedule, and its
 * scratch is reserved in the outer scratch. Its messages then travel on the outer schedule's
 * communicator, which is correct as long as two ranks exchange messages in one group only (as
 * the lines of an orthogonal grid do): matching stays FIFO per pair of ranks.
 *
 * The WINDOW slot is memory shared by the ranks of one node (an MPI_Win_allocate_shared window
 * owned by the communicator context, comm.h; in the simulator one buffer per emulated node). Its
 * base is the same memory on every rank of the node, so an offset names one place for all of
 * them: rank i's region and the leaders' results are addressed alike on every rank. The base
 * is the middle of the window: offsets run from -window_bytes to window_bytes, where
 * window_bytes is what the schedule records (cs_sched_window_need, the same on every rank of a
 * node); the context provides at least that much on both sides before the schedule runs. The
 * two sides let a schedule keep what is read after its last barrier (results) on one side and
 * what the next call writes before its first barrier (inputs) on the other, so consecutive
 * calls of any sizes never overlap there (allreduce_dpml.c). Stores to the window become visible to
 * the other ranks of the node only through SYNC and a barrier: SYNC is a local operation
 * (MPI_Win_sync, a full memory barrier for the window) that runs in its round's order with COPY and
 * REDUCE; the pattern round r:   ... stores to the window ...; SYNC          (release) round r+1:
 * COLL barrier on the node group; SYNC; ... loads from the window ... (acquire) orders every store
 * of a rank before the barrier ahead of every load of any rank after it (MPI-3 unified memory model
 * of shared windows; the window is kept in a lock_all epoch). CS_COLL_BARRIER (call.h) is the COLL
 * for that barrier: no buffers, MPI_Ibarrier on the group.
 *
 * Node layout. An algorithm that works on nodes (algo.h: CS_REQ_NODES) finds the layout of the
 * communicator in its state: `nodes` (cs_nodes_t), nodes of ppn consecutive ranks, the last one
 * possibly smaller. Its builder reads it from s->state, which cs_algo_prepare() (and the
 * simulator, with an emulated layout) binds before build().
 *
 * Multi-part messages (cs_sched_sendv/recvv). One SEND or RECV may carry several parts, each a
 * (buf, count, type) in any slot: the message is their concatenation in order (its type
 * signature is the parts' signatures one after the other), so a multi-part send matches a plain
 * receive of the same signature and vice versa, and the two sides may cut the message into
 * parts differently. This is the zero-copy form of message combining (Traff et al., section
 * 3.3): blocks from the send, receive and intermediate buffers travel in one message, with no
 * packing copy. The parts are copied into the schedule's part pool; the op stays a SEND or RECV
 * (one comm op, one request: max_comm and cs_sched_comm_rounds count it once) and says which
 * parts are its own (`part`, `nparts`; a plain op has nparts 0). Its buffers are the parts'
 * (the op's own buf, count and type are unused). Within a round, no receive part may overlap a
 * buffer or part sent or received in the same round, nor another part of its own message.
 * Over MPI a multi-part op is one message of (MPI_BOTTOM, 1, struct type) over the parts'
 * absolute addresses (exec.h). That datatype is built on the op's first execution and kept in
 * the schedule's part cache (`pcache`, cs_part_cache_t: one entry per multi-part op plus work
 * arrays for the largest one, all allocated while building, so that executing allocates
 * nothing of collsel's own); it is reused while the bases of the slots its parts lie in are the
 * ones it was built for, and rebuilt when one differs. cs_sched_reset() and cs_sched_free()
 * free the cached datatypes.
 *
 * Appending can fail only with CS_ERR_NOMEM or CS_ERR_ARG. cs_sched_reset() keeps the arrays'
 * capacity, so a schedule rebuilt in cached storage does not allocate. */
#ifndef CS_SCHED_H
#define CS_SCHED_H

#include "call.h"
#include "status.h"

#include <mpi.h>

typedef enum cs_slot {
    CS_SLOT_SEND,
    CS_SLOT_RECV,
    CS_SLOT_SCRATCH,
    CS_SLOT_WINDOW, /* the node's shared-memory window (see above) */
    CS_SLOT_COUNT
} cs_slot_t;

typedef struct cs_ref {
    int slot;     /* cs_slot_t */
    MPI_Aint off; /* bytes from the slot's base address */
} cs_ref_t;

typedef enum cs_op_kind {
    CS_OP_SEND,
    CS_OP_RECV,
    CS_OP_COPY,
    CS_OP_REDUCE,
    CS_OP_COLL,
    CS_OP_SYNC /* local: memory barrier for the window slot (MPI_Win_sync) */
} cs_op_kind_t;

/* A group of ranks of the schedule's communicator: base + i * stride for i < size. */
typedef struct cs_group {
    int base, stride, size;
} cs_group_t;

/* Where the ranks of a communicator sit (see "Node layout" above): node k holds ranks
 * [k * ppn, min((k + 1) * ppn, nprocs)); nnodes = ceil(nprocs / ppn). domain[i] (i < ppn) is the
 * package or NUMA domain, numbered from 0, that local rank i of the first node is bound to, -1
 * where unknown; domain NULL: all unknown. Every node is assumed to look like the first. */
typedef struct cs_nodes {
    int nprocs, ppn, nnodes;
    const int *domain;
} cs_nodes_t;

/* The state a schedule's COLL operations run on: the sub-communicators they name by index
 * (borrowed from the communicator context, or owned by the algorithm's state), the node layout
 * (NULL unless the algorithm's setup asked the context for it), and anything else the
 * algorithm keeps per communicator and variant (`priv`). `ops` is set before setup runs: 1 when
 * the state is for nonblocking and persistent operations on the context's own node resources
 * (comm.h cs_comm_state_ops), which setup then asks for (cs_comm_node with ops 1). See algo.h. */
#define CS_STATE_COMMS 8
typedef struct cs_state {
    MPI_Comm comms[CS_STATE_COMMS];
    int ncomms;
    const cs_nodes_t *nodes;
    void *priv;
    int ops;
} cs_state_t;

/* A native nonblocking collective on a group (the COLL operation's description). */
typedef struct cs_coll_op {
    cs_coll_t coll;
    cs_group_t group;
    int comm;     /* index of the group's sub-communicator in the state's comms */
    int root;     /* rooted collectives: the root's index in the group */
    int in_place; /* this rank passes MPI_IN_PLACE (see above) */
    /* 1: the MPI library's blocking collective (MPI_Bcast ...), run when the round starts, so
     * the round holds nothing else that could wait on it; for a communicator set up to run one
     * of the library's own blocking algorithms (ompi/ompi.c). Nonblocking execution of such a
     * schedule blocks there. */
    int blocking;
    cs_ref_t send;
    int sendcount; /* reduce, allreduce: the count, equal on both sides */
    MPI_Datatype sendtype;
    cs_ref_t recv;
    int recvcount; /* gather, scatter, allgather: per member */
    MPI_Datatype recvtype;
    MPI_Op op;  /* the schedule's op (reductions) */
    int counts; /* allgatherv: recvcounts at ints[counts], displs after them; -1 otherwise */
} cs_coll_op_t;

/* One part of a multi-part message (see above): `count` elements of `type` at `buf`. */
typedef struct cs_part {
    cs_ref_t buf;
    int count;
    MPI_Datatype type;
} cs_part_t;

/* The cached MPI datatype of one multi-part operation (see above). The executor keeps `base`
 * and `stale`; the transport builds and frees `type` (exec.h). */
typedef struct cs_part_type {
    MPI_Datatype type;         /* MPI_DATATYPE_NULL until the transport builds it */
    int stale;                 /* `type` was built for other slot bases (or not at all) */
    unsigned slots;            /* bit k: some part lies in slot k */
    void *base[CS_SLOT_COUNT]; /* the bases of those slots at the op's last execution */
} cs_part_type_t;

/* The part cache of a schedule: one entry per multi-part operation, and work arrays as long as
 * the largest one's parts, which the executor and the transport fill while starting it. */
typedef struct cs_part_cache {
    cs_part_type_t *types; /* [ntypes]: entry k belongs to the op whose `ptype` is k */
    int ntypes, types_cap;
    int work_cap; /* length of each work array: the most parts of one op so far */
    void **addrs; /* the resolved address of each part (the executor's) */
    int *lens;    /* the transport's, to build a struct type */
    MPI_Aint *disps;
    MPI_Datatype *dtypes;
    long builds; /* datatypes built by the transport so far (tests see reuse and rebuilds) */
} cs_part_cache_t;

typedef struct cs_op {
    cs_op_kind_t kind;
    int peer;          /* SEND, RECV: rank in the schedule's communicator; COLL: index in colls */
    int part;          /* SEND, RECV with parts: the first of them in the schedule's pool */
    int nparts;        /* SEND, RECV: its parts; 0: a plain op of (buf, count, type) */
    int ptype;         /* SEND, RECV with parts: its entry in the part cache */
    cs_ref_t buf;      /* SEND/RECV buffer; COPY/REDUCE source (in) */
    int count;         /* elements at buf */
    MPI_Datatype type; /* of buf */
    cs_ref_t dst;      /* COPY destination, REDUCE inout */
    int dst_count;     /* COPY: elements at dst */
    MPI_Datatype dst_type;
    MPI_Aint copy_bytes; /* COPY: > 0 when a plain memcpy of this many bytes does it */
    MPI_Aint copy_lb;    /* COPY with copy_bytes: where the bytes start relative to the refs */
} cs_op_t;

typedef struct cs_sched {
    cs_op_t *ops;
    int nops, ops_cap;
    int *round_end; /* ops of round r are [round_end[r-1], round_end[r]) */
    int nrounds, rounds_cap;
    int max_comm; /* most SEND+RECV in any round: the executor needs that many requests */
    int round_comm;
    MPI_Aint scratch_bytes;
    MPI_Aint window_bytes; /* window offsets used: [-window_bytes, window_bytes); 0: none */
    MPI_Op op;             /* reduction op of the call, MPI_OP_NULL otherwise */
    cs_coll_op_t *colls;   /* COLL descriptions */
    int ncolls, colls_cap;
    int *ints; /* integer pool (allgatherv counts of COLL operations) */
    int nints, ints_cap;
    cs_part_t *parts; /* part pool of multi-part SEND and RECV operations */
    int nparts, parts_cap;
    cs_part_cache_t *pcache; /* their datatypes; NULL until the first multi-part op */
    const cs_state_t *state; /* bound by cs_algo_prepare(); NULL when built elsewhere */
} cs_sched_t;

/* Empties `s` for a new build, keeping capacity (the part cache's too); `op` is the call's
 * reduction op. Frees the datatypes the part cache holds. */
void cs_sched_reset(cs_sched_t *s, MPI_Op op);
/* Frees the arrays of `s` (not `s` itself) and the datatypes its part cache holds; `s` is then
 * empty and may be reused. */
void cs_sched_free(cs_sched_t *s);

/* Reference into a slot. */
static inline cs_ref_t cs_ref(cs_slot_t slot, MPI_Aint off) {
    cs_ref_t r = {(int)slot, off};
    return r;
}
/* Reference `elems` elements of `t` past `r`. */
static inline cs_ref_t cs_ref_at(cs_ref_t r, MPI_Aint elems, const cs_type_t *t) {
    r.off += elems * t->extent;
    return r;
}

/* Reserves scratch room for `count` elements of `t`; *out addresses element 0. */
int cs_sched_scratch(cs_sched_t *s, MPI_Aint count, const cs_type_t *t,
                     cs_ref_t *out) CS_MUST_CHECK;

int cs_sched_send(cs_sched_t *s, int peer, cs_ref_t buf, int count,
                  const cs_type_t *t) CS_MUST_CHECK;
int cs_sched_recv(cs_sched_t *s, int peer, cs_ref_t buf, int count,
                  const cs_type_t *t) CS_MUST_CHECK;
/* cs_sched_send/recv of `count` elements of a bare MPI datatype, for a message whose type the
 * builder never needs to know more of (no copy, no scratch): every SEND and RECV carries its
 * own type, so a schedule may use a different one per message (neighbor_alltoallw's per-edge
 * types, core/edges.h). */
int cs_sched_send_raw(cs_sched_t *s, int peer, cs_ref_t buf, int count,
                      MPI_Datatype type) CS_MUST_CHECK;
int cs_sched_recv_raw(cs_sched_t *s, int peer, cs_ref_t buf, int count,
                      MPI_Datatype type) CS_MUST_CHECK;
/* One message to (from) `peer` made of parts[0..nparts) in order (see "Multi-part messages"
 * above); the parts are copied. CS_ERR_ARG for nparts < 1, a part with a negative count, an
 * invalid slot or MPI_DATATYPE_NULL, or a negative peer; CS_ERR_NOMEM. Nothing is appended on
 * failure. */
int cs_sched_sendv(cs_sched_t *s, int peer, const cs_part_t *parts, int nparts) CS_MUST_CHECK;
int cs_sched_recvv(cs_sched_t *s, int peer, const cs_part_t *parts, int nparts) CS_MUST_CHECK;
/* Copies (scount, st) at src to (dcount, dt) at dst; the signatures must match. */
int cs_sched_copy(cs_sched_t *s, cs_ref_t src, int scount, const cs_type_t *st, cs_ref_t dst,
                  int dcount, const cs_type_t *dt) CS_MUST_CHECK;
/* inout = in op inout over `count` elements of `t`. */
int cs_sched_reduce(cs_sched_t *s, cs_ref_t in, cs_ref_t inout, int count,
                    const cs_type_t *t) CS_MUST_CHECK;
/* mine = lower op higher, where `theirs` holds the data of lower ranks when theirs_is_lower and
 * of higher ranks otherwise. `theirs` may be overwritten. Costs one extra copy only when the op
 * does not commute and theirs is higher. */
int cs_sched_reduce_ordered(cs_sched_t *s, cs_ref_t mine, cs_ref_t theirs, int theirs_is_lower,
                            int commutative, int count, const cs_type_t *t) CS_MUST_CHECK;
/* Appends a COLL operation described by *c (its `op` and `counts` fields are ignored: the
 * schedule's op is used, and for allgatherv counts[0..group.size) and displs[0..group.size) are
 * copied into the schedule). CS_ERR_ARG for an empty group, a root or comm index out of range,
 * a negative count or an allgatherv without counts. */
int cs_sched_coll(cs_sched_t *s, const cs_coll_op_t *c, const int *counts,
                  const int *displs) CS_MUST_CHECK;
/* Appends a SYNC (memory barrier for the window slot, see above) to the current round. */
int cs_sched_sync(cs_sched_t *s) CS_MUST_CHECK;
/* Records that `s` uses window offsets in [-bytes, bytes) (see above). */
void cs_sched_window_need(cs_sched_t *s, MPI_Aint bytes);
/* Closes the current round of `s` and appends the rounds of `sub`, a schedule built for the
 * ranks of `group` (peer i is group member i): peers become ranks base + i * stride, sub's send
 * and receive slots become `send` and `recv` (offsets added), sub's scratch is reserved at the
 * end of s's scratch; multi-part ops keep their parts, translated alike, and get their own
 * (empty) entries in s's part cache. CS_ERR_ARG when sub has COLL operations (nesting them is not
 * supported), uses the window, or has a reduction op other than s's. */
int cs_sched_append(cs_sched_t *s, const cs_sched_t *sub, cs_group_t group, cs_ref_t send,
                    cs_ref_t recv) CS_MUST_CHECK;
/* Closes the current round; does nothing if it is empty. */
int cs_sched_round(cs_sched_t *s) CS_MUST_CHECK;

/* Number of rounds that contain at least one SEND, RECV or COLL. */
int cs_sched_comm_rounds(const cs_sched_t *s);

#endif

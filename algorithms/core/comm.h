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
 * first use and live as long as the context, so schedules may point at them.
 *
 * The node layout (cs_comm_node) is made on the first request too: the node communicator
 * (MPI_Comm_split_type shared, or COLLSEL_NODE_SIZE=k consecutive ranks, machine.h), processes
 * per node and number of nodes (cs_nodes_t, sched.h), each local rank's package/NUMA domain
 * from hwloc, the leader communicators of each leader set (cs_comm_leaders) and the node's
 * shared-memory window (cs_comm_window).
 *
 * Sharing. A context whose `share` flag is set (the selector sets it on the communicators it
 * serves; collsel-bench, which times setups on fresh communicators, never does) takes its node
 * layout from a process-wide cache keyed by the world ranks of its group in rank order (the same
 * ranks in another order are another group) and COLLSEL_NODE_SIZE: one node communicator, one
 * set of leader communicators and one window per group, however many communicators of the group
 * exist. A group's entry changes only at points collective over the group (made, taken by one
 * more context, released by a freed one), so every rank of the group finds the same entry and a
 * lookup needs no communication. When an entry is made its ranks agree, in the reduction of the
 * processes per node that making it does anyway, whether it may be shared at all (no rank runs
 * under MPI_THREAD_MULTIPLE, every rank is in MPI_COMM_WORLD) and whether it outlives its last
 * context (every rank keeps fewer than CS_NODE_KEEP entries). One that is not kept is freed with
 * its last context, like a private one; a kept one stays cached (its window freed when larger
 * than CS_NODE_KEEP_WINDOW per side) until MPI_Finalize, which frees the unused entries in the
 * same order on every rank (MPI_Win_free synchronises the node). Why two communicators may share
 * them: docs/selector.md, "Node resources shared between communicators".
 *
 * Operations' node resources. Nonblocking and persistent operations (core/nb.h) must not use a
 * shared layout: operations of one communicator would meet blocking calls of another on its
 * window and node communicators. A context that shares therefore gets, on request, a second
 * layout of its own for its operations (`own`: node communicator, leader communicators,
 * window; made by the same code as a private layout): cs_comm_node with `ops` 1, made
 * collectively ahead of the operations (the selector's states made ahead, selector/comm.c).
 * Blocking calls keep the shared one. A context that does not share has one layout, which its
 * operations and its blocking calls both use. An operations' layout is used by one context at a
 * time, but it is not freed with it: freeing is collective over the node (MPI_Win_free), and
 * ranks may free the communicators of a group in different orders. A freed context's layout
 * goes back (locally) to its group's shared layout (`spare`), and the next context of the group
 * that asks takes a spare one back: the one with the lowest number that is spare on every rank
 * (one MPI_Allreduce of a bit mask over the context's communicator, which asking is anyway),
 * else a new one, numbered by the group's count (CS_NODE_OPS_POOL at most; more are freed with
 * their context, which then needs the same order of frees on every rank). Spare layouts are
 * freed with their shared layout, in number order, at the point where every rank frees it.
 *
 * The neighbourhood (cs_comm_neighbors) of a Cartesian or graph communicator, which the
 * neighbourhood collectives run on, is queried on the first request too, locally; the whole
 * communication graph (cs_comm_graph), which the coloured and balanced schedules need, is
 * gathered from every rank's neighbourhood on the first request, collectively, and shared by
 * every algorithm on the communicator, and so is its edge colouring (cs_comm_colouring). */
#ifndef CS_COMM_H
#define CS_COMM_H

#include "call.h"
#include "params.h"
#include "sched.h"
#include "status.h"
#include "topo/balance.h"
#include "topo/graph.h"

#include <mpi.h>
#include <stdatomic.h>

/* Tag of every blocking schedule's messages on the private communicator (nonblocking and
 * persistent operations have their own, core/nb.h). */
#define CS_TAG 7411

/* Kept node layouts per process (see "Sharing" above), and the largest window (bytes on each
 * side of its middle) a kept layout keeps while no communicator uses it. */
#define CS_NODE_KEEP        8
#define CS_NODE_KEEP_WINDOW ((MPI_Aint)4 << 20)
/* Operations' layouts per group that are reused (see "Operations' node resources"). */
#define CS_NODE_OPS_POOL 64

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
    int ops; /* 1: the operations' state on the context's own node resources (cs_comm_state_ops) */
    int refused; /* its setup refused (CS_ERR_NOT_APPLICABLE): kept so that it is never tried
                  * again on this context (a refusal depends on the communicator and the
                  * process only); `state` is then never read nor torn down */
    cs_state_t state;
    struct cs_comm_state *next;
} cs_comm_state_t;

/* One leader set's communicators (cs_comm_leaders). */
typedef struct cs_comm_leaders {
    int l;
    MPI_Comm comm; /* this rank's leader group, MPI_COMM_NULL when it leads none */
    struct cs_comm_leaders *next;
} cs_comm_leaders_t;

/* The node layout of the communicator and what is built on it. Shared by the contexts of one
 * group of world ranks when they allow it (cs_comm_t.share; see "Sharing" above). */
typedef struct cs_comm_node {
    cs_nodes_t nodes; /* nodes of ppn consecutive ranks; nodes.domain points at domain */
    int *domain;      /* [ppn]: the domains of the first node's local ranks (rank 0's node) */
    int block;        /* 1 when every node is the block of ranks cs_nodes_t describes */
    int laid_out;     /* 1 when nodes.nnodes, domain and block are set; ppn is set from the start */
    MPI_Comm comm;    /* this rank's node, in rank order */
    int local_rank, local_size;
    cs_comm_leaders_t *leaders;
    MPI_Win win;       /* the node's window, MPI_WIN_NULL until cs_comm_window */
    void *win_base;    /* the middle of the window in this process (the window slot's base) */
    MPI_Aint win_half; /* bytes on each side of win_base */
    /* Sharing: `shared` 1 when it is in the process-wide cache, found by the world ranks of its
     * group (world[nodes.nprocs], in rank order; hash) and the COLLSEL_NODE_SIZE it was made
     * with (emulate, 0 for real nodes); `users` contexts use it; `keep` 1 when it stays cached
     * after its last user is freed. The same on every rank of the group. */
    int shared, keep, users;
    int *world;
    long emulate;
    unsigned long long hash;
    /* Operations' layouts (see "Operations' node resources"): in a shared layout, `spare` lists
     * those of its group's freed contexts, by `id`, for reuse, and `ops_made` counts those made
     * for the group; in an operations' layout, `id` is its number in its group (0 ..
     * CS_NODE_OPS_POOL - 1; -1: not reused, freed with its context). */
    struct cs_comm_node *spare;
    int ops_made, id;
    struct cs_comm_node *next;
} cs_comm_node_t;

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
    MPI_Status *statuses; /* [reqs_cap]: the executor's, so a failed request's error is known */
    int reqs_cap;
    void *selector;                   /* the selector's state for this communicator */
    void (*selector_free)(void *sel); /* frees it with the context */
    cs_comm_state_t *states;          /* variants' states, in order of creation */
    cs_comm_line_t *lines;            /* line communicators, in order of creation */
    cs_comm_node_t *node;             /* node layout, NULL until cs_comm_node */
    /* The operations' node layout when `node` is shared (see "Operations' node resources"
     * above): the context's own, NULL until cs_comm_node with ops 1; NULL when not sharing. */
    cs_comm_node_t *own;
    /* Sharing (cs_comm_share_agree): share 1 when the node layout comes from, and goes back to,
     * the cache; world[nprocs] (with world_hash) the group's key until the layout has it. */
    int share;
    int *world;
    unsigned long long world_hash;
    /* The neighbourhood (cs_comm_neighbors): nbrs_state 0 not asked yet, 1 nbrs is set (its
     * arrays in nbrs_mem), -1 the communicator has no topology. */
    int nbrs_state;
    cs_neighbors_t nbrs;
    int *nbrs_mem;
    /* The global graph (cs_comm_graph): graph_state 0 not asked yet, 1 graph is set, -1 no
     * topology. */
    int graph_state;
    cs_graph_t graph;
    /* The graph's edge colouring (cs_comm_colouring): colour[graph.nedges], NULL until made;
     * colourings counts how often it was computed (at most once: tests read it). */
    int *colour;
    int ncolours;
    int colourings;
    int *agreed; /* cs_comm_agree: 3 nprocs ints, made with the context */
    /* Operations made on this communicator so far (core/nb.h): the next one's sequence number,
     * which picks its tag; the same on every rank, as operations are made in issue order. */
    unsigned long nb_seq;
    /* Runs of operations on this communicator that have COLL operations not started yet
     * (core/nb.h, "Order of COLL operations"): a blocking schedule with COLL operations waits
     * until there are none (cs_nb_drain_colls). */
    atomic_int nb_coll_runs;
    /* Runs of operations on this communicator that use the node's window and have not finished
     * (core/nb.h, "The window"): a blocking schedule that uses the window, or grows it, waits
     * until there are none (cs_nb_drain_window). */
    atomic_int nb_win_runs;
} cs_comm_t;

/* Returns the context of `user`, creating it (collectively: PMPI_Comm_dup) on first use.
 * Must be called by all ranks of `user` the first time. CS_ERR_MPI or CS_ERR_NOMEM on failure,
 * with nothing cached. */
int cs_comm_get(MPI_Comm user, cs_comm_t **out) CS_MUST_CHECK;

/* Creates a communicator attribute keyval with callbacks `copy` and `del` into *keyval and
 * arranges for MPI_Finalize to free it again (*keyval is then MPI_KEYVAL_INVALID): a hook
 * attribute on MPI_COMM_SELF, whose attributes MPI_Finalize deletes first, while MPI still
 * works. Attributes on communicators the application never frees stay, like those
 * communicators. CS_ERR_MPI, with *keyval MPI_KEYVAL_INVALID. Not thread safe: callers create
 * their keyval once, under their own lock or before threads call them. */
int cs_keyval_create(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                     int *keyval) CS_MUST_CHECK;

/* The context of `user` if it has one, else NULL: local, creates nothing. */
cs_comm_t *cs_comm_find(MPI_Comm user);

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

/* The node layout of the context (see above), made collectively on the first request: every
 * rank must ask at the same point. `block` says whether the nodes are the blocks of consecutive
 * ranks that cs_nodes_t describes (always so for COLLSEL_NODE_SIZE; a real job mapped by node
 * is not): algorithms that address nodes by rank arithmetic refuse otherwise. Emulated nodes
 * that do not share memory (COLLSEL_NODE_SIZE larger than a real node) are not `block` either.
 * `ops` 0: the layout of blocking calls, which belongs to the context, or, when it shares, to
 * the cache (see "Sharing" above), found there when the group has an entry. `ops` 1: the layout
 * of nonblocking and persistent operations (see "Operations' node resources" above): the same
 * one when the context does not share, else the context's own (ctx->own), on the first request
 * a spare one of its group or one made like a private layout. Everything in it stays valid until
 * the context is freed. */
int cs_comm_node(cs_comm_t *ctx, int ops, cs_comm_node_t **out) CS_MUST_CHECK;

/* The operations' node layout (cs_comm_node with ops 1) if it was made, else NULL: local. */
cs_comm_node_t *cs_comm_ops_node(const cs_comm_t *ctx);

/* Agrees, collectively over the context's communicator, on what the selector's set-up needs
 * from every rank, in one MPI_Allgather of three ints per rank: `flag` (*any is 1 when some
 * rank passed a non-zero one), its MPI_COMM_WORLD rank, and an identity of its MPI_COMM_WORLD.
 * From them the context learns whether it shares node layouts (comm.h, "Sharing": `share` 1 on
 * every rank of a call that passed `share` when no rank runs under MPI_THREAD_MULTIPLE, no rank
 * is a spawned process, all ranks are of one world and no world rank comes twice) and its
 * group's key. Without it a
 * context shares nothing. CS_ERR_MPI or CS_ERR_NOMEM on failure (nothing shared). */
int cs_comm_share_agree(cs_comm_t *ctx, int share, int flag, int *any) CS_MUST_CHECK;

/* The processes per node of the context's communicator (the largest node), for the selector:
 * from the node layout when the context has one or the cache holds one for its group (no
 * communication), else, collectively, by making the node communicator (real nodes: kept as the
 * context's node layout, shared when the context shares) or, for emulated nodes
 * (COLLSEL_NODE_SIZE), without communicating or making anything. Every rank must ask at the same
 * point. CS_ERR_MPI or CS_ERR_NOMEM on failure. */
int cs_comm_ppn(cs_comm_t *ctx, int *ppn) CS_MUST_CHECK;

/* The leader communicator of leader set `l` in the context's node layout `node` (from
 * cs_comm_node): local ranks lranks[0..l-1] of every node (the same on all nodes, below the
 * smallest node's size) lead partitions 0..l-1, and leader j of every node joins communicator
 * j, in rank order (node order). Created collectively on the first request for `l`, cached in
 * the node layout; *out is MPI_COMM_NULL on a rank that leads nothing. lranks must be the same
 * whenever `l` is. */
int cs_comm_leaders(cs_comm_t *ctx, cs_comm_node_t *node, int l, const int *lranks,
                    MPI_Comm *out) CS_MUST_CHECK;

/* Makes the shared-memory window of node layout `node` (from cs_comm_node; NULL:
 * CS_ERR_INTERNAL) reach at least `bytes` on both sides of its middle, the window slot's base
 * (sched.h). The window is one
 * MPI_Win_allocate_shared allocation per node, all of it in local rank 0's segment, so it is
 * contiguous and node->win_base (its middle) is the same memory on every rank of the node; it
 * stays in an MPI_Win_lock_all epoch (MPI_MODE_NOCHECK) so that MPI_Win_sync may run at any
 * time. Growing frees the old window and allocates max(bytes, twice the old half) per side,
 * collectively over the node: every rank of a node must make the same requests (the same call
 * shapes do). Never shrinks, so a schedule whose need was reserved once stays served. */
int cs_comm_window(cs_comm_node_t *node, MPI_Aint bytes) CS_MUST_CHECK;

/* This rank's neighbourhood in the communicator's topology (cs_neighbors_t, call.h), in MPI's
 * order: queried on the first request with local MPI calls only (MPI_Topo_test, then
 * MPI_Cartdim_get and MPI_Cart_shift, MPI_Graph_neighbors(_count), or
 * MPI_Dist_graph_neighbors(_count); no communication, so any rank may ask at any time) and
 * kept in the context, which owns it, until the communicator is freed; later requests allocate
 * nothing. CS_ERR_NOT_APPLICABLE (*out NULL) for a communicator without a topology, every time
 * (that answer is kept too); CS_ERR_NOMEM or CS_ERR_MPI, with nothing kept, on failure. */
int cs_comm_neighbors(cs_comm_t *ctx, const cs_neighbors_t **out) CS_MUST_CHECK;

/* The communication graph of the communicator's topology, every rank's edges (topo/graph.h),
 * made on the first request and kept in the context: collective, every rank must ask at the
 * same point (the coloured and balanced neighbourhood algorithms ask in their setup). Each rank's
 * lists (cs_comm_neighbors) are gathered with one MPI_Allgather of the degrees and one
 * MPI_Allgatherv of the lists: O(p + E) ints sent to every rank and kept on every rank for a
 * graph of E edges, then O(p + E log E) local work to pair the lists (Cartesian: slot i ^ 1,
 * cs_graph_from_cart_lists; graphs: k-th occurrence, cs_graph_from_lists). Ranks are those of
 * the communicator. CS_ERR_NOT_APPLICABLE (every rank alike, before communicating) without a
 * topology; CS_ERR_MPI, CS_ERR_NOMEM, or CS_ERR_ARG if the lists disagree, with nothing kept. */
int cs_comm_graph(cs_comm_t *ctx, const cs_graph_t **out) CS_MUST_CHECK;

/* The Welsh-Powell edge colouring (topo/graph.h cs_graph_colour) of the communicator's graph
 * (cs_comm_graph, *g), made on the first request and kept in the context, which owns it
 * (*colour: a colour per edge of *g, *ncolours colours), so that every algorithm on the
 * communicator that schedules by colour (the coloured neighbourhood algorithms of all five
 * collectives) shares one: collective on the first request (the graph), as cs_comm_graph, then
 * O(E (max degree)) local work, the same on every rank, once. Errors as cs_comm_graph, or
 * CS_ERR_NOMEM with nothing kept. */
int cs_comm_colouring(cs_comm_t *ctx, const cs_graph_t **g, const int **colour,
                      int *ncolours) CS_MUST_CHECK;

/* The LogGP parameters (topo/balance.h, microseconds) the balanced neighbourhood algorithms
 * plan with on this communicator: rank 0's cs_loggp_current() (core/loggp.h: the tuning run's
 * measured values, the database's, or the defaults), broadcast over the communicator so that
 * every rank plans alike: collective. CS_ERR_MPI on failure. A balanced variant reads them once,
 * in its setup on a communicator; states made earlier keep their values. */
int cs_comm_loggp(cs_comm_t *ctx, cs_loggp_t *out) CS_MUST_CHECK;
/* Agrees on what a call of a v-collective whose count arrays no rank knows whole needs
 * (cs_coll_agrees: gatherv, scatterv, alltoallv), collectively over the private communicator:
 * every rank of the call must call it, with the same collective. Sets call->bytes to the
 * communicator-wide selection key, the same on every rank:
 *   - gatherv, scatterv: the mean bytes per block over the p ranks' blocks (allgatherv's
 *     rule), from an allgather of each rank's (block count, size of its block type);
 *     call->allcounts then points at the p counts in the context (NULL when the ranks' block
 *     types differ in size);
 *   - alltoallv: the mean bytes per block over all p * p blocks, from an allreduce of the bytes
 *     each rank sends and receives.
 * One small MPI collective per call: the selector runs it only when the rules for the
 * collective on this communicator are not native at every size (selector/dispatch.c). The
 * counts live in the context until its next agreement. CS_ERR_MPI on failure; a call of
 * another collective is left as it is. */
int cs_comm_agree(cs_comm_t *ctx, cs_call_t *call) CS_MUST_CHECK;

/* cs_comm_agree in two halves, for a nonblocking call (core/nb.h): cs_comm_agree_start starts
 * the same exchange with the MPI library's nonblocking collective (MPI_Iallgather or
 * MPI_Iallreduce) on the private communicator into `a`, whose `agreed` (3 nprocs ints) the
 * caller provides, and both must stay in place until *req completes; then cs_comm_agree_finish
 * sets the call's key and counts from it, as cs_comm_agree does (call->allcounts then points
 * into a->agreed). Every rank must start it at the same point of its collectives on the
 * communicator, as with cs_comm_agree: in the application's order. CS_ERR_MPI on failure. */
typedef struct cs_agree {
    uint64_t mine, total; /* alltoallv: this rank's bytes sent and received; their sum */
    int pair[2];          /* gatherv, scatterv: this rank's (block count, block type size) */
    int *agreed;          /* [3 nprocs]: every rank's pair, then the counts */
} cs_agree_t;
int cs_comm_agree_start(cs_comm_t *ctx, const cs_call_t *call, cs_agree_t *a,
                        MPI_Request *req) CS_MUST_CHECK;
void cs_comm_agree_finish(cs_call_t *call, cs_agree_t *a);

/* The state of variant (algo, params) on this communicator for its blocking calls: found in
 * the context, or set up by algo->setup (collectively, see algo.h) and kept there. Nothing is
 * kept when setup() fails; its partial state is torn down. */
int cs_comm_state(cs_comm_t *ctx, const struct cs_algo *algo, const cs_params_t *params,
                  const cs_state_t **out) CS_MUST_CHECK;

/* cs_comm_state for nonblocking and persistent operations (core/nb.h). The same state, except
 * for a variant that works on the node layout (CS_REQ_NODES) on a context that shares it: its
 * operations' state is another one, set up with state->ops 1 on the context's own node
 * resources (cs_comm_node with ops 1; see "Operations' node resources" above). */
int cs_comm_state_ops(cs_comm_t *ctx, const struct cs_algo *algo, const cs_params_t *params,
                      const cs_state_t **out) CS_MUST_CHECK;

/* The state of variant (algo, params) on this communicator when cs_comm_state made it before,
 * else NULL: local, creates nothing. States are made collectively, so every rank of the
 * communicator gets the same answer at the same point of its calls. */
const cs_state_t *cs_comm_state_find(const cs_comm_t *ctx, const struct cs_algo *algo,
                                     const cs_params_t *params);

/* The same for the state of cs_comm_state_ops, so that a nonblocking call (which must not
 * communicate) can use a state made collectively earlier. */
const cs_state_t *cs_comm_state_find_ops(const cs_comm_t *ctx, const struct cs_algo *algo,
                                         const cs_params_t *params);

#endif

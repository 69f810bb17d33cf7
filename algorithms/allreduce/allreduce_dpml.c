/* allreduce/dpml: data-partitioning multi-leader allreduce through node shared memory.
 *
 * Reference: Bayatpour, Chakraborty, Subramoni, Lu, Panda, "Scalable Reduction Collectives
 * with Data Partitioning-based Multi-Leader Design" (SC'17), Sections 4.1, 4.2 (DPML and
 * DPML-pipelined) and 5 (cost model). The n elements are cut into l partitions (partition j:
 * elements [j q + min(j, r), ...), q = n / l, r = n mod l, so counts that do not divide by l
 * work and a partition may be empty); local rank lrank[j] of every node is leader j
 * (cs_topo_leaders: spread over the node's packages/NUMA domains, the paper's socket-level
 * leaders). Four phases, on a node of m ranks in a job of h nodes:
 *   1. copy in:   every rank copies its vector into its region of the node's shared window
 *                 (one contiguous copy; the paper's per-leader copies D_ij land in the same
 *                 place, region i, partition j);
 *   2. reduce:    after a node barrier, leader j folds partition j of all m regions in local
 *                 rank order into the last region: acc = x_i op acc for i = m-2 .. 0;
 *   3. allreduce: leader j allreduces its partition with leader j of every other node (a
 *                 native MPI_Iallreduce on the leader group, nodes in rank order) into the
 *                 result region R; with `segments` k > 1 the partition is cut into k
 *                 sub-partitions whose k nonblocking allreduces are all in flight at once
 *                 (DPML-pipelined). With inter=<alg> the leaders run the registered point-to-point
 *                 allreduce/<alg> instead (its schedule built for the leader group and
 *                 appended, on the communicator itself; segments then run one after the
 *                 other). One node: a copy into R instead;
 *   4. copy out:  after a second node barrier, every rank copies R into its receive buffer.
 * Nodes are blocks of consecutive ranks and every fold and allreduce keeps rank order, so
 * non-commutative ops are correct. In place: yes (phase 1 reads the receive buffer).
 *
 * Window (CS_SLOT_WINDOW, sched.h, whose base is the window's middle): m regions of S bytes
 * (S = span of n elements, rounded up to 64) below the base, region i at -(i + 1) S, and R above
 * it, at 0; the schedule asks for ppn S on each side on every node (the largest node's m), so
 * that every node grows its window alike and an operation is accepted or refused for the
 * window on every rank alike (core/nb.h). Synchronisation: phase 1 ends with SYNC (MPI_Win_sync)
 * before barrier B1, leaders SYNC after it before reading other ranks' regions; leaders SYNC after
 * writing R and before barrier B2, every rank SYNCs after B2 before reading R. Two barriers per
 * call suffice across calls too, whatever their sizes: a rank that leaves a call early writes its
 * next region below the base while slower ranks still read R above it; the leaders finished reading
 * the regions before B2; and R is written again only after the next B1, which every rank reaches
 * only after its phase-4 copy. (With R after the regions, at m S, a larger next call's region would
 * overlap R while others still read it: the forced-selector test caught that.) Nodes of one rank
 * need no barrier.
 *
 * Cost (paper's eq. 7, with this implementation's phases; a', b' shared-memory copy, a, b
 * network, c reduction per byte; p = h m):
 *   T = (a' + b' n) + (m - 1) (n / l) c + ceil(lg h) (a k + (n / l) b + (n / l) c) + (a' + b' n)
 *       + 2 T_barrier(m)
 * (phase 1 and 4: one copy of n bytes per rank instead of the paper's l copies of n / l).
 * Rounds: 1 copy, 1 barrier (+ fold), 1 allreduce (leaders, h > 1), 1 barrier + copy.
 * Requirements: nodes of consecutive ranks (COLLSEL_NODE_SIZE, or a job mapped by slot), equal
 * except the last; leaders <= the smallest node; inter=<alg> must apply to the leader
 * group (h ranks, the call's op). Parameters: leaders, segments, inter.
 *
 *   2 nodes x 2 ranks, l = 2 (leaders: local ranks 0 and 1), x = (a, b) halves
 *   rank  phase 1        phase 2 (leader j: part j)   phase 3 (leaders j of both nodes)   4
 *   0     W0 = x0        W1.a = x0.a op x1.a          R.a = (x0 op x1 op x2 op x3).a       R
 *   1     W1 = x1        W1.b = x0.b op x1.b          R.b = (x0 op x1 op x2 op x3).b       R
 *   2, 3  the same on node 1
 */
#include "core/algo.h"
#include "core/comm.h"
#include "registry.h"
#include "topo/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPARAMS      3
#define MAX_SEGMENTS 1024
#define REGION_ALIGN 64
#define COMM_NODE    0 /* state->comms: this rank's node */
#define COMM_LEADERS 1 /* this rank's leader group (MPI_COMM_NULL when it leads none) */

static const cs_param_spec_t dpml_params[NPARAMS] = {
    {"leaders", "leaders per node: partitions reduced in parallel (1 .. smallest node)", "1"},
    {"segments", "sub-partitions per leader, each its own nonblocking inter-node allreduce", "1"},
    {"inter",
     "inter-node allreduce of the leaders: native, or <alg> of a registered allreduce/<alg>",
     "native"},
};

/* The parameters; *inter is NULL for the native inter-node allreduce, else a registered
 * point-to-point allreduce (one that needs no per-communicator state). */
static int read_params(const cs_params_t *params, int *l, int *k, const cs_algo_t **inter) {
    const char *name = cs_params_get(params, "inter");
    if (cs_params_get_int(params, "leaders", l) != CS_OK ||
        cs_params_get_int(params, "segments", k) != CS_OK || *l < 1 || *k < 1 ||
        *k > MAX_SEGMENTS || name == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    *inter = NULL;
    if (strcmp(name, "native") == 0) {
        return CS_OK;
    }
    *inter = cs_registry_find_phase(CS_COLL_ALLREDUCE, name);
    return *inter != NULL ? CS_OK : CS_ERR_NOT_APPLICABLE;
}

/* Size of the smallest node (the last one). */
static int smallest_node(const cs_nodes_t *nodes) {
    return nodes->nprocs - (nodes->nnodes - 1) * nodes->ppn;
}

/* The local ranks of leaders 0..l-1 into out; CS_ERR_NOT_APPLICABLE when l exceeds the smallest
 * node. The same on every rank. */
static int leaders_of(const cs_nodes_t *nodes, int l, int *out) {
    int m = smallest_node(nodes);
    int *work = NULL;
    int rc = CS_OK;
    CS_REQUIRE(l >= 1 && l <= m, CS_ERR_NOT_APPLICABLE);
    work = malloc((size_t)3 * (size_t)m * sizeof(int));
    CS_REQUIRE(work != NULL, CS_ERR_NOMEM);
    CS_REQUIRE(cs_topo_leaders(nodes->domain, m, l, work, out) == l, CS_ERR_INTERNAL);
out:
    free(work);
    return rc;
}

/* Elements [*lo, *lo + *cnt) of piece j when n elements are cut into `parts` pieces. */
static void piece(MPI_Aint n, int parts, int j, MPI_Aint *lo, MPI_Aint *cnt) {
    MPI_Aint q = n / parts, r = n % parts;
    *lo = j * q + (j < r ? j : r);
    *cnt = q + (j < r ? 1 : 0);
}

/* Element 0 of local rank i's region: below the window's middle, so that it never meets the
 * result region R (at the middle) of a call of any other size. */
static cs_ref_t region(int i, MPI_Aint span, const cs_type_t *t) {
    return cs_ref(CS_SLOT_WINDOW, -(MPI_Aint)(i + 1) * span - t->true_lb);
}

/* Appends the barrier of the node group (a COLL with no buffers). */
static int node_barrier(cs_sched_t *s, cs_group_t node) {
    cs_coll_op_t c = {0};
    c.coll = CS_COLL_BARRIER;
    c.group = node;
    c.comm = COMM_NODE;
    c.send = cs_ref(CS_SLOT_WINDOW, 0);
    c.recv = c.send;
    c.sendtype = MPI_DATATYPE_NULL;
    c.recvtype = MPI_DATATYPE_NULL;
    return cs_sched_coll(s, &c, NULL, NULL);
}

/* The call of the inter-node allreduce of `count` elements for this rank's leader group, on
 * which it is node `node` of nodes->nnodes (the data already in the window, of the receive
 * type). */
static void inter_call(const cs_call_t *c, const cs_nodes_t *nodes, int node, MPI_Aint count,
                       cs_call_t *sub) {
    *sub = *c;
    sub->sendbuf = NULL;
    sub->recvbuf = NULL;
    sub->send = c->recv;
    sub->sendcount = (int)count;
    sub->recvcount = (int)count;
    sub->rank = node;
    sub->nprocs = nodes->nnodes;
    sub->in_place = 0;
    sub->bytes = (size_t)count * (size_t)c->recv.size;
}

/* Phase 3 of leader `lrank` of node `node`: allreduces the cnt elements at `acc` with the same
 * leader of every other node into `res`, cut into k segments. Native: k nonblocking
 * allreduces on the leader communicator, all in one round. A point-to-point `inter`: its
 * schedule, built for the leader group, appended once per segment (one after the other). */
static int inter_phase(cs_sched_t *s, const cs_call_t *c, const cs_nodes_t *nodes,
                       const cs_algo_t *inter, int k, int lrank, int node, cs_ref_t acc,
                       cs_ref_t res, MPI_Aint cnt) {
    int rc = CS_OK;
    const cs_type_t *t = &c->recv;
    cs_group_t g = {lrank, nodes->ppn, nodes->nnodes};
    cs_sched_t tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.op = MPI_OP_NULL;
    CS_CHECK(cs_sched_round(s));
    for (int seg = 0; seg < k; seg++) {
        MPI_Aint slo, scnt;
        piece(cnt, k, seg, &slo, &scnt);
        if (scnt == 0) {
            continue;
        }
        if (inter == NULL) {
            cs_coll_op_t op = {0};
            op.coll = CS_COLL_ALLREDUCE;
            op.group = g;
            op.comm = COMM_LEADERS;
            op.send = cs_ref_at(acc, slo, t);
            op.sendcount = (int)scnt;
            op.sendtype = t->type;
            op.recv = cs_ref_at(res, slo, t);
            op.recvcount = (int)scnt;
            op.recvtype = t->type;
            CS_CHECK(cs_sched_coll(s, &op, NULL, NULL));
        } else {
            cs_call_t sub;
            inter_call(c, nodes, node, scnt, &sub);
            CS_CHECK(cs_algo_build(inter, NULL, &sub, &tmp));
            CS_CHECK(cs_sched_append(s, &tmp, g, cs_ref_at(acc, slo, t), cs_ref_at(res, slo, t)));
        }
    }
out:
    cs_sched_free(&tmp);
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    const cs_nodes_t *nodes = s->state != NULL ? s->state->nodes : NULL;
    const cs_type_t *t = &c->recv;
    int n = c->recvcount;
    const cs_algo_t *inter = NULL;
    int l = 0, k = 0, lead = -1;
    int *lranks = NULL;
    int node, lrank, m, ppn;
    MPI_Aint span, lo, cnt;
    cs_group_t grp;
    cs_ref_t mine, last, res;
    CS_CHECK(read_params(params, &l, &k, &inter));
    CS_REQUIRE(nodes != NULL && nodes->nprocs == c->nprocs && nodes->ppn >= 1 &&
                   nodes->nnodes == (c->nprocs + nodes->ppn - 1) / nodes->ppn,
               CS_ERR_NOT_APPLICABLE);
    if (inter != NULL && nodes->nnodes > 1) {
        /* Decided alike on every rank, leader or not: the op, the number of nodes and the
         * count (no partition is larger than n) are all it can depend on. */
        cs_call_t sub;
        inter_call(c, nodes, 0, n, &sub);
        CS_CHECK(cs_algo_applicable(inter, &sub));
    }
    ppn = nodes->ppn;
    lranks = malloc((size_t)l * sizeof(int));
    CS_REQUIRE(lranks != NULL, CS_ERR_NOMEM);
    CS_CHECK(leaders_of(nodes, l, lranks));
    if (n == 0 || t->size == 0) {
        /* every rank has nothing to do (a zero-size type: no data, and its regions, all of
         * span 0, would alias, which MPI_Iallreduce refuses) */
        goto out;
    }
    node = c->rank / ppn;
    lrank = c->rank % ppn;
    m = c->nprocs - node * ppn < ppn ? c->nprocs - node * ppn : ppn;
    for (int j = 0; j < l; j++) {
        if (lranks[j] == lrank) {
            lead = j;
        }
    }
    span = ((MPI_Aint)(n - 1) * t->extent + t->true_extent + REGION_ALIGN - 1) / REGION_ALIGN *
           REGION_ALIGN;
    /* ppn regions, also on a smaller last node, so that every node asks for the same window and
     * a window that serves a call on one node serves it on all (core/nb.h, "The window") */
    cs_sched_window_need(s, (MPI_Aint)ppn * span);
    mine = region(lrank, span, t);
    last = region(m - 1, span, t);
    res = cs_ref(CS_SLOT_WINDOW, -t->true_lb);
    grp.base = node * ppn;
    grp.stride = 1;
    grp.size = m;

    /* Phase 1: copy in, then make it visible (release). */
    CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send, mine, n, t));
    if (m > 1) {
        CS_CHECK(cs_sched_sync(s));
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(node_barrier(s, grp)); /* B1 */
        if (lead >= 0) {
            CS_CHECK(cs_sched_sync(s)); /* acquire: the other regions */
        }
    }
    /* Phase 2: leader j folds partition j of regions m-1 .. 0 in rank order into region m-1. */
    piece(n, l, lead >= 0 ? lead : 0, &lo, &cnt);
    if (lead >= 0 && cnt > 0) {
        cs_ref_t acc = cs_ref_at(last, lo, t);
        for (int i = m - 2; i >= 0; i--) {
            CS_CHECK(cs_sched_reduce(s, cs_ref_at(region(i, span, t), lo, t), acc, (int)cnt, t));
        }
        if (nodes->nnodes > 1) {
            CS_CHECK(inter_phase(s, c, nodes, inter, k, lranks[lead], node, acc,
                                 cs_ref_at(res, lo, t), cnt));
        } else {
            CS_CHECK(cs_sched_copy(s, acc, (int)cnt, t, cs_ref_at(res, lo, t), (int)cnt, t));
        }
        if (m > 1) {
            CS_CHECK(cs_sched_sync(s)); /* release: R */
        }
    }
    /* Phase 4: after B2 (acquire), every rank copies R out. */
    CS_CHECK(cs_sched_round(s));
    if (m > 1) {
        CS_CHECK(node_barrier(s, grp)); /* B2 */
        CS_CHECK(cs_sched_sync(s));
    }
    CS_CHECK(cs_sched_copy(s, res, n, t, cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv));
out:
    free(lranks);
    return rc;
}

/* Leaders 1, 2, 4, ... up to the smallest node, and the smallest node's size itself; when there
 * is more than one node (one node has no inter-node phase), each with segments 1, 2, 4, 8 of the
 * native inter-node allreduce and with inter=recursive_doubling (segments 1: its segments would
 * run one after the other, so more of them cannot overlap anything). */
static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    int rc = CS_OK;
    int nnodes, m, nseg;
    static const char *const segs[] = {"1", "2", "4", "8"};
    *n = 0;
    if (ppn < 1 || ppn > nprocs) {
        ppn = nprocs;
    }
    nnodes = (nprocs + ppn - 1) / ppn;
    m = nprocs - (nnodes - 1) * ppn;
    nseg = nnodes > 1 ? 4 : 1;
    for (int l = 1;; l = 2 * l < m ? 2 * l : m) {
        char lv[CS_PARAM_VALUE];
        snprintf(lv, sizeof(lv), "%d", l);
        for (int g = 0; g < nseg; g++) {
            CS_REQUIRE(*n < cap, CS_ERR_NOMEM);
            cs_params_defaults(dpml_params, NPARAMS, &out[*n]);
            CS_CHECK(cs_params_set(&out[*n], "leaders", lv));
            CS_CHECK(cs_params_set(&out[*n], "segments", segs[g]));
            (*n)++;
        }
        if (nnodes > 1) {
            CS_REQUIRE(*n < cap, CS_ERR_NOMEM);
            cs_params_defaults(dpml_params, NPARAMS, &out[*n]);
            CS_CHECK(cs_params_set(&out[*n], "leaders", lv));
            CS_CHECK(cs_params_set(&out[*n], "inter", "recursive_doubling"));
            (*n)++;
        }
        if (l == m) {
            break;
        }
    }
out:
    return rc;
}

/* The node layout, the node communicator and the leader communicators of the variant: the
 * context's blocking calls' ones, or, for a state of operations (state->ops), the operations'
 * own (core/comm.h, "Operations' node resources"). */
static int setup(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {
    int rc = CS_OK;
    cs_comm_node_t *node = NULL;
    const cs_algo_t *inter = NULL;
    int l = 0, k = 0;
    int *lranks = NULL;
    CS_CHECK(read_params(params, &l, &k, &inter));
    CS_CHECK(cs_comm_node(ctx, state->ops, &node));
    CS_REQUIRE(node->block, CS_ERR_NOT_APPLICABLE);
    lranks = malloc((size_t)l * sizeof(int));
    CS_REQUIRE(lranks != NULL, CS_ERR_NOMEM);
    CS_CHECK(leaders_of(&node->nodes, l, lranks));
    state->comms[COMM_NODE] = node->comm;
    state->comms[COMM_LEADERS] = MPI_COMM_NULL;
    if (inter == NULL) { /* a point-to-point inter-node phase runs on the communicator itself */
        CS_CHECK(cs_comm_leaders(ctx, node, l, lranks, &state->comms[COMM_LEADERS]));
    }
    state->ncomms = 2;
    state->nodes = &node->nodes;
out:
    free(lranks);
    return rc;
}

const cs_algo_t cs_algo_allreduce_dpml = {
    .name = "allreduce/dpml",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "multi-leader (DPML): partitions reduced by l leaders per node in shared memory, "
            "l concurrent inter-node allreduces",
    .reqs = CS_REQ_NODES,
    .params = dpml_params,
    .nparams = NPARAMS,
    .variants = variants,
    .build = build,
    .setup = setup,
};

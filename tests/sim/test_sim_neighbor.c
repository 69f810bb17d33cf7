/* cs_sim, the neighbourhood collectives: every registered neighbourhood schedule builder (linear,
 * coloured, balanced, every variant) run for all p virtual ranks of a topology.
 *
 * Topologies (topo/graph.h), for p in the simulator's list (1 ... 64):
 *   random10, random30, random60   Erdos-Renyi graphs (cs_graph_random, fixed seeds);
 *   hotspot, scatter_hotspot       every rank sends to 0 (and its ring neighbours), and its
 *                                  transpose, 0 sends to every rank (the paper's figure 4);
 *   cart2d, cart2d_open, cart1d    Cartesian grids (cs_graph_cart) from the most square 2D
 *                                  factorisation of p, periodic and not, and a periodic ring
 *                                  (dimensions of 1 and 2: self-loops and repeated edges);
 *   moore2d                        the 9-point stencil as a distributed graph;
 *   multi                          0 to 3 random destinations per rank, repeats and self-loops
 *                                  included, sources listed by descending rank
 *                                  (cs_graph_from_lists pairs the k-th occurrences);
 *   iso_moore2d, iso_moore2d_r2,   isomorphic neighbourhoods (topo/iso.h) as distributed graphs
 *   iso_moore3d, iso_asym3d        (destinations R + C^i, sources R - C^i): Moore r = 1, 2 in 2D,
 *                                  r = 1 in 3D, and an asymmetric 3D list with a repeated
 *                                  offset, the zero offset and offsets longer than small tori;
 *                                  the iso_* algorithms run them on every ordered 2D or 3D torus
 *                                  shape of p, the others on the first shape only.
 * The iso_* algorithms run where a neighbourhood is isomorphic (the periodic grids, whose state
 * has the Cartesian receive order, and the iso topologies) and nowhere else.
 * Each rank's neighbourhood (cs_neighbors_t) is its lists in the graph (MPI_PROC_NULL for a
 * slot without an edge), of kind MPI_CART for the grids and MPI_DIST_GRAPH otherwise; the
 * coloured and balanced states are made from the same graph without MPI
 * (cs_neighbor_coloured_init, cs_neighbor_balanced_init; balanced with the defaults of core/loggp.h
 * and with a model where latency is free, L = 0, o = 1, which makes the loop move more). Data:
 * ints; counts 0, 1 and 3 per block (allgatherv, alltoallv, alltoallw: varied per sender or per
 * edge around them, zeros included), blocks placed in reverse slot order with gaps. Checks per run:
 * the simulator's (no deadlock, nothing unmatched, sizes equal, no receive overlapping a buffer of
 * its round); every receive buffer equal to its reference (the paired edge's block, MPI's pairing;
 * the sentinel everywhere else, the blocks of MPI_PROC_NULL slots included); send buffers
 * unchanged; every receive block written exactly once (one RECV or one COPY into the receive slot
 * per in-edge: every block delivered once; for balanced at count > 0, since an empty COPY is no
 * operation); for coloured, at most one send and one receive per rank and round, and no more rounds
 * than colours, which stay within max(d_in, d_out) and max d_out + max d_in - 1. Over all p,
 * balanced must forward some block in some case (a receive into scratch or a send from the receive
 * buffer), linear and coloured never. */
#include "builders.h"
#include "core/comm.h"
#include "core/edges.h"
#include "core/isocomm.h"
#include "core/loggp.h"
#include "sim_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL (-7)
#define GAP      2 /* ints between blocks */

static const int sim_nprocs[] = {1, 2, 3, 4, 5, 7, 8, 11, 16, 31, 32, 64};
#define SIM_NPROCS ((int)(sizeof(sim_nprocs) / sizeof(sim_nprocs[0])))
static const int counts[] = {0, 1, 3};
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

enum {
    T_RANDOM10,
    T_RANDOM30,
    T_RANDOM60,
    T_HOT,
    T_SCATTER,
    T_CART2D,
    T_CART2D_OPEN,
    T_CART1D,
    T_MOORE,
    T_MULTI,
    T_ISO_MOORE2D, /* isomorphic neighbourhoods (topo/iso.h) on a torus, as distributed graphs */
    T_ISO_MOORE2D_R2,
    T_ISO_MOORE3D,
    T_ISO_ASYM3D,
    T_COUNT
};
static const char *const topo_names[T_COUNT] = {
    "random10",    "random30",       "random60",    "hotspot",   "scatter_hotspot",
    "cart2d",      "cart2d_open",    "cart1d",      "moore2d",   "multi",
    "iso_moore2d", "iso_moore2d_r2", "iso_moore3d", "iso_asym3d"};

/* The asymmetric 3D neighbourhood of T_ISO_ASYM3D: a repeated offset, the zero offset, offsets
 * longer than small tori. */
static const int asym3[] = {1, 0, 0, 0, 0, 0, 2, -1, 1, 1, 0, 0, 0, 3, -2, -1, 0, 2};

static int iso_topo_dims(int t) {
    return t == T_ISO_MOORE2D || t == T_ISO_MOORE2D_R2 ? 2 : 3;
}

/* The shape-th ordered factorisation of p into d factors (by dims[0], then dims[1]) into dims;
 * 0 when there are fewer shapes. */
static int torus_shape(int p, int d, int shape, int *dims) {
    int n = 0;
    for (int a = 1; a <= p; a++) {
        if (p % a != 0) {
            continue;
        }
        if (d == 1 || d == 2) {
            if (n++ == shape) {
                dims[0] = d == 1 ? p : a;
                if (d == 2) {
                    dims[1] = p / a;
                }
                return 1;
            }
            if (d == 1) {
                return 0;
            }
            continue;
        }
        for (int b = 1; b <= p / a; b++) {
            if ((p / a) % b == 0 && n++ == shape) {
                dims[0] = a;
                dims[1] = b;
                dims[2] = p / a / b;
                return 1;
            }
        }
    }
    return 0;
}

/* The isomorphic neighbourhood of iso topology t on torus shape `shape` of p (recv_flip 0), or
 * of the periodic Cartesian topologies as a Cartesian communicator has it (recv_flip 1).
 * CS_ERR_NOT_APPLICABLE for any other topology or a shape past the last. */
static int make_iso(int t, int p, int shape, cs_isocomm_t *iso) {
    int rc = CS_OK, dims[3];
    memset(iso, 0, sizeof(*iso));
    if (t == T_CART2D || t == T_CART1D) { /* make_topo's grids: -e_j, +e_j per dimension */
        int d = t == T_CART2D ? 2 : 1, a = 1;
        static const int o1[2] = {-1, 1}, o2[8] = {-1, 0, 1, 0, 0, -1, 0, 1};
        CS_REQUIRE(shape == 0, CS_ERR_NOT_APPLICABLE);
        for (int x = 1; x * x <= p; x++) {
            a = p % x == 0 ? x : a;
        }
        dims[0] = d == 2 ? a : p;
        dims[1] = p / a;
        CS_CHECK(cs_iso_nbh_init(&iso->nbh, d, dims, 2 * d, d == 2 ? o2 : o1));
        iso->recv_flip = 1;
        goto out;
    }
    CS_REQUIRE(t >= T_ISO_MOORE2D && torus_shape(p, iso_topo_dims(t), shape, dims),
               CS_ERR_NOT_APPLICABLE);
    if (t == T_ISO_ASYM3D) {
        CS_CHECK(cs_iso_nbh_init(&iso->nbh, 3, dims, 6, asym3));
    } else {
        CS_CHECK(
            cs_iso_nbh_moore(&iso->nbh, iso_topo_dims(t), dims, t == T_ISO_MOORE2D_R2 ? 2 : 1));
    }
out:
    return rc;
}

/* The graph of an isomorphic neighbourhood: rank R's destinations R + C^i, sources R - C^i, in
 * list order (MPI's pairing of repeated edges is then the isomorphic one). */
static int iso_graph(const cs_iso_nbh_t *n, cs_graph_t *g) {
    int rc = CS_OK, p = n->p, s = n->s;
    int *start = malloc(sizeof(int) * ((size_t)p + 1));
    int *dst = malloc(sizeof(int) * ((size_t)p * s + 1)),
        *src = malloc(sizeof(int) * ((size_t)p * s + 1));
    CS_REQUIRE(start != NULL && dst != NULL && src != NULL, CS_ERR_NOMEM);
    for (int r = 0; r <= p; r++) {
        start[r] = r * s;
    }
    for (int r = 0; r < p; r++) {
        for (int i = 0; i < s; i++) {
            dst[r * s + i] = cs_iso_shift(n, r, n->offsets + (size_t)i * n->d, 1);
            src[r * s + i] = cs_iso_shift(n, r, n->offsets + (size_t)i * n->d, -1);
        }
    }
    CS_CHECK(cs_graph_from_lists(g, p, start, dst, start, src));
out:
    free(start);
    free(dst);
    free(src);
    return rc;
}

static uint64_t next_rand(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The multigraph of `multi`. */
static int make_multi(cs_graph_t *g, int p) {
    int rc = CS_OK;
    uint64_t seed = 12345 + (uint64_t)p;
    int *dst_start = calloc((size_t)p + 1, sizeof(int)), *dst = malloc(sizeof(int) * 3 * (size_t)p);
    int *src_start = calloc((size_t)p + 1, sizeof(int)), *src = malloc(sizeof(int) * 3 * (size_t)p);
    int n = 0;
    CS_REQUIRE(dst_start != NULL && dst != NULL && src_start != NULL && src != NULL, CS_ERR_NOMEM);
    for (int u = 0; u < p; u++) {
        int k = (int)(next_rand(&seed) % 4);
        for (int i = 0; i < k; i++) {
            dst[n++] = (int)(next_rand(&seed) % (uint64_t)p);
        }
        dst_start[u + 1] = n;
    }
    /* sources: for each v, every (u, occurrence) naming v, by descending u */
    n = 0;
    for (int v = 0; v < p; v++) {
        for (int u = p - 1; u >= 0; u--) {
            for (int i = dst_start[u]; i < dst_start[u + 1]; i++) {
                if (dst[i] == v) {
                    src[n++] = u;
                }
            }
        }
        src_start[v + 1] = n;
    }
    CS_CHECK(cs_graph_from_lists(g, p, dst_start, dst, src_start, src));
out:
    free(dst_start);
    free(dst);
    free(src_start);
    free(src);
    return rc;
}

/* The graph of topology t on p ranks (iso topologies: on torus shape `shape`). */
static int make_topo(int t, int p, int shape, cs_graph_t *g, int *kind) {
    int rc = CS_OK;
    int a = 1, dims[2], periods[2] = {0, 0};
    for (int d = 1; d * d <= p; d++) {
        if (p % d == 0) {
            a = d;
        }
    }
    dims[0] = a;
    dims[1] = p / a;
    *kind = MPI_DIST_GRAPH;
    switch (t) {
    case T_RANDOM10:
    case T_RANDOM30:
    case T_RANDOM60:
        CS_CHECK(cs_graph_random(g, p,
                                 t == T_RANDOM10   ? 0.1
                                 : t == T_RANDOM30 ? 0.3
                                                   : 0.6,
                                 (uint64_t)(1000 + p)));
        break;
    case T_HOT:
        CS_CHECK(cs_graph_hotspot(g, p));
        break;
    case T_SCATTER: {
        cs_graph_t h;
        CS_CHECK(cs_graph_hotspot(&h, p));
        rc = cs_graph_transpose(&h, g);
        cs_graph_free(&h);
        CS_CHECK(rc);
        break;
    }
    case T_CART2D:
    case T_CART2D_OPEN:
        *kind = MPI_CART;
        CS_CHECK(cs_graph_cart(g, 2, dims, t == T_CART2D ? NULL : periods));
        break;
    case T_CART1D:
        *kind = MPI_CART;
        CS_CHECK(cs_graph_cart(g, 1, &p, NULL));
        break;
    case T_MOORE:
        CS_CHECK(cs_graph_moore(g, 2, dims));
        break;
    case T_ISO_MOORE2D:
    case T_ISO_MOORE2D_R2:
    case T_ISO_MOORE3D:
    case T_ISO_ASYM3D: {
        cs_isocomm_t iso;
        CS_CHECK(make_iso(t, p, shape, &iso));
        rc = iso_graph(&iso.nbh, g);
        cs_isocomm_free(&iso);
        CS_CHECK(rc);
        break;
    }
    default:
        CS_CHECK(make_multi(g, p));
        break;
    }
out:
    return rc;
}

/* 1 for the iso_* algorithms (neighbor_allgather_iso_torus.c). */
static int is_iso(const cs_algo_t *a) {
    return a->setup == cs_neighbor_iso_setup;
}

/* Per-rank data of one case. */
typedef struct nrank {
    int *src, *dst; /* neighbour lists, MPI_PROC_NULL for slots without an edge */
    cs_neighbors_t nb;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sbytes, *rbytes;
    MPI_Datatype *stypes, *rtypes;
    int *sendbuf, *recvbuf, *want_recv, *want_send;
    int send_ints, recv_ints;
    cs_call_t call;
    cs_sched_t sched;
    unsigned char *scratch;
} nrank_t;

/* Elements of the block sender u sends on its out-slot i (count per call `cnt`). */
static int edge_count(cs_coll_t coll, int cnt, int u, int i) {
    switch (coll) {
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        return (cnt + u) % 4;
    case CS_COLL_NEIGHBOR_ALLTOALLV:
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        return (cnt + u + 2 * i) % 4;
    default:
        return cnt;
    }
}

static int value(int u, int i, int x) {
    return (u + 1) * 1000000 + (i + 1) * 1000 + x;
}

static void rank_free(nrank_t *n) {
    free(n->src);
    free(n->dst);
    free(n->scounts);
    free(n->sdispls);
    free(n->rcounts);
    free(n->rdispls);
    free(n->sbytes);
    free(n->rbytes);
    free(n->stypes);
    free(n->rtypes);
    free(n->sendbuf);
    free(n->recvbuf);
    free(n->want_recv);
    free(n->want_send);
    free(n->scratch);
    cs_sched_free(&n->sched);
    memset(n, 0, sizeof(*n));
}

/* Buffers, expected images and the call of rank r. */
static int rank_init(nrank_t *n, const cs_graph_t *g, int kind, cs_coll_t coll, int cnt, int r) {
    int rc = CS_OK;
    int out = g->out_slots[r], in = g->in_slots[r], uniform_send;
    int pos;
    memset(n, 0, sizeof(*n));
    n->src = malloc(sizeof(int) * (size_t)(in + 1));
    n->dst = malloc(sizeof(int) * (size_t)(out + 1));
    n->scounts = calloc((size_t)out + 1, sizeof(int));
    n->sdispls = calloc((size_t)out + 1, sizeof(int));
    n->rcounts = calloc((size_t)in + 1, sizeof(int));
    n->rdispls = calloc((size_t)in + 1, sizeof(int));
    n->sbytes = calloc((size_t)out + 1, sizeof(MPI_Aint));
    n->rbytes = calloc((size_t)in + 1, sizeof(MPI_Aint));
    n->stypes = malloc(sizeof(MPI_Datatype) * (size_t)(out + 1));
    n->rtypes = malloc(sizeof(MPI_Datatype) * (size_t)(in + 1));
    CS_REQUIRE(n->src && n->dst && n->scounts && n->sdispls && n->rcounts && n->rdispls &&
                   n->sbytes && n->rbytes && n->stypes && n->rtypes,
               CS_ERR_NOMEM);
    cs_graph_neighbours(g, r, n->dst, n->src);
    for (int i = 0; i < out; i++) {
        n->dst[i] = n->dst[i] < 0 ? MPI_PROC_NULL : n->dst[i];
        n->stypes[i] = MPI_INT;
    }
    for (int j = 0; j < in; j++) {
        n->src[j] = n->src[j] < 0 ? MPI_PROC_NULL : n->src[j];
        n->rtypes[j] = MPI_INT;
    }
    n->nb = (cs_neighbors_t){kind, in, out, n->src, n->dst, 0, NULL, NULL};
    uniform_send = coll == CS_COLL_NEIGHBOR_ALLGATHER || coll == CS_COLL_NEIGHBOR_ALLGATHERV;
    /* send side: blocks in reverse slot order with gaps (one block for allgather(v)) */
    pos = GAP;
    for (int i = uniform_send ? 0 : out - 1; i >= 0; i--) {
        n->scounts[i] = edge_count(coll, cnt, r, i);
        n->sdispls[i] = pos;
        n->sbytes[i] = (MPI_Aint)pos * (MPI_Aint)sizeof(int);
        pos += n->scounts[i] + GAP;
    }
    if (coll == CS_COLL_NEIGHBOR_ALLTOALL) { /* uniform blocks side by side */
        pos = out * cnt + GAP;
    }
    n->send_ints = pos;
    /* receive side: each slot's count is the paired sender's (1 for a slot without an edge) */
    for (int j = 0; j < in; j++) {
        n->rcounts[j] = 1;
    }
    for (int k = g->in_start[r]; k < g->in_start[r + 1]; k++) {
        const cs_graph_edge_t *x = &g->edges[g->in_edge[k]];
        n->rcounts[x->dst_slot] = edge_count(coll, cnt, x->src, x->src_slot);
    }
    pos = GAP;
    for (int j = in - 1; j >= 0; j--) {
        if (coll == CS_COLL_NEIGHBOR_ALLGATHER || coll == CS_COLL_NEIGHBOR_ALLTOALL) {
            n->rcounts[j] = cnt;
            n->rdispls[j] = j * cnt;
            continue;
        }
        n->rdispls[j] = pos;
        n->rbytes[j] = (MPI_Aint)pos * (MPI_Aint)sizeof(int);
        pos += n->rcounts[j] + GAP;
    }
    n->recv_ints = coll == CS_COLL_NEIGHBOR_ALLGATHER || coll == CS_COLL_NEIGHBOR_ALLTOALL
                       ? in * cnt + GAP
                       : pos;
    n->sendbuf = malloc(sizeof(int) * (size_t)n->send_ints);
    n->want_send = malloc(sizeof(int) * (size_t)n->send_ints);
    n->recvbuf = malloc(sizeof(int) * (size_t)n->recv_ints);
    n->want_recv = malloc(sizeof(int) * (size_t)n->recv_ints);
    CS_REQUIRE(n->sendbuf && n->want_send && n->recvbuf && n->want_recv, CS_ERR_NOMEM);
    for (int x = 0; x < n->send_ints; x++) {
        n->sendbuf[x] = SENTINEL - 1;
    }
    for (int x = 0; x < n->recv_ints; x++) {
        n->recvbuf[x] = n->want_recv[x] = SENTINEL;
    }
    for (int i = 0; i < (uniform_send ? (out > 0 ? 1 : 0) : out); i++) {
        int base = coll == CS_COLL_NEIGHBOR_ALLTOALL ? i * cnt : n->sdispls[i];
        for (int x = 0; x < n->scounts[i]; x++) {
            n->sendbuf[base + x] = value(r, uniform_send ? 0 : i, x);
        }
    }
    if (uniform_send && out == 0) { /* still a send buffer, never read */
        n->scounts[0] = edge_count(coll, cnt, r, 0);
    }
    memcpy(n->want_send, n->sendbuf, sizeof(int) * (size_t)n->send_ints);
    switch (coll) {
    case CS_COLL_NEIGHBOR_ALLGATHER:
        cs_call_fill_neighbor_allgather(&n->call, n->sendbuf + GAP, cnt, MPI_INT, n->recvbuf, cnt,
                                        MPI_INT, MPI_COMM_NULL);
        break;
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        cs_call_fill_neighbor_allgatherv(&n->call, n->sendbuf + GAP, n->scounts[0], MPI_INT,
                                         n->recvbuf, n->rcounts, n->rdispls, MPI_INT,
                                         MPI_COMM_NULL);
        break;
    case CS_COLL_NEIGHBOR_ALLTOALL:
        cs_call_fill_neighbor_alltoall(&n->call, n->sendbuf, cnt, MPI_INT, n->recvbuf, cnt, MPI_INT,
                                       MPI_COMM_NULL);
        break;
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        cs_call_fill_neighbor_alltoallv(&n->call, n->sendbuf, n->scounts, n->sdispls, MPI_INT,
                                        n->recvbuf, n->rcounts, n->rdispls, MPI_INT, MPI_COMM_NULL);
        break;
    default:
        cs_call_fill_neighbor_alltoallw(&n->call, n->sendbuf, n->scounts, n->sbytes, n->stypes,
                                        n->recvbuf, n->rcounts, n->rbytes, n->rtypes,
                                        MPI_COMM_NULL);
        break;
    }
    CS_CHECK(cs_call_finish(&n->call, MPI_COMM_NULL, r, g->p, &n->nb));
out:
    return rc;
}

/* The expected receive image of every rank: each edge's block where its receiver's slot is. */
static void expect_recv(nrank_t *ranks, const cs_graph_t *g, cs_coll_t coll, int cnt) {
    int uniform_send = coll == CS_COLL_NEIGHBOR_ALLGATHER || coll == CS_COLL_NEIGHBOR_ALLGATHERV;
    for (int e = 0; e < g->nedges; e++) {
        const cs_graph_edge_t *x = &g->edges[e];
        nrank_t *v = &ranks[x->dst];
        int base = coll == CS_COLL_NEIGHBOR_ALLGATHER || coll == CS_COLL_NEIGHBOR_ALLTOALL
                       ? x->dst_slot * cnt
                       : v->rdispls[x->dst_slot];
        for (int k = 0; k < v->rcounts[x->dst_slot]; k++) {
            v->want_recv[base + k] = value(x->src, uniform_send ? 0 : x->src_slot, k);
        }
    }
}

/* Checks of the schedules alone: every receive block written once; coloured: one send and one
 * receive per rank and round. */
static int check_scheds(const nrank_t *ranks, const cs_graph_t *g, int coloured, int writes_seen,
                        char *why, size_t cap) {
    int max_out = 0, max_in = 0;
    for (int r = 0; r < g->p; r++) {
        int o = cs_graph_out_degree(g, r), i = cs_graph_in_degree(g, r);
        max_out = o > max_out ? o : max_out;
        max_in = i > max_in ? i : max_in;
    }
    for (int r = 0; r < g->p; r++) {
        const cs_sched_t *s = &ranks[r].sched;
        int writes = 0, start = 0;
        for (int k = 0; k < s->nops; k++) {
            const cs_op_t *op = &s->ops[k];
            writes += (op->kind == CS_OP_RECV && op->nparts == 0 && op->buf.slot == CS_SLOT_RECV) ||
                      (op->kind == CS_OP_COPY && op->dst.slot == CS_SLOT_RECV);
            for (int q = 0; op->kind == CS_OP_RECV && q < op->nparts; q++) { /* multi-part */
                writes += s->parts[op->part + q].buf.slot == CS_SLOT_RECV;
            }
        }
        if (writes_seen && writes != cs_graph_in_degree(g, r)) {
            snprintf(why, cap, "rank %d writes %d receive blocks, has %d in-edges", r, writes,
                     cs_graph_in_degree(g, r));
            return CASE_FAIL;
        }
        for (int R = 0; coloured && R < s->nrounds; R++) {
            int sends = 0, recvs = 0;
            for (int k = start; k < s->round_end[R]; k++) {
                sends += s->ops[k].kind == CS_OP_SEND;
                recvs += s->ops[k].kind == CS_OP_RECV;
            }
            start = s->round_end[R];
            if (sends > 1 || recvs > 1) {
                snprintf(why, cap, "rank %d round %d: %d sends, %d receives", r, R, sends, recvs);
                return CASE_FAIL;
            }
        }
        if (coloured && g->nedges > 0 &&
            (s->nrounds > max_out + max_in - 1 || cs_sched_comm_rounds(s) > max_out + max_in - 1)) {
            snprintf(why, cap, "rank %d: %d rounds, degrees %d/%d", r, s->nrounds, max_out, max_in);
            return CASE_FAIL;
        }
    }
    return CASE_PASS;
}

/* One case: builds every rank's schedule of (a, params) with state `st`, runs them, checks. */
static int run_one(const cs_algo_t *a, const cs_params_t *params, const cs_state_t *st,
                   const cs_graph_t *g, int kind, int cnt, long *forwarded, char *why, size_t cap) {
    int rc = CS_OK, verdict = CASE_PASS, p = g->p;
    nrank_t *ranks = calloc((size_t)p, sizeof(*ranks));
    cs_sim_rank_t *sim = calloc((size_t)p, sizeof(*sim));
    cs_sim_report_t rep;
    CS_REQUIRE(ranks != NULL && sim != NULL, CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        int st_rc;
        CS_CHECK(rank_init(&ranks[r], g, kind, a->coll, cnt, r));
        st_rc = cs_algo_build_state(a, params, &ranks[r].call, st, &ranks[r].sched);
        if (st_rc != CS_OK) {
            snprintf(why, cap, "rank %d: build returned %s", r, cs_status_name(st_rc));
            verdict = CASE_FAIL;
            goto out;
        }
        ranks[r].scratch = malloc((size_t)ranks[r].sched.scratch_bytes + 16);
        CS_REQUIRE(ranks[r].scratch != NULL, CS_ERR_NOMEM);
        sim[r] = (cs_sim_rank_t){&ranks[r].sched, ranks[r].call.sendbuf, ranks[r].recvbuf,
                                 ranks[r].scratch, NULL};
    }
    expect_recv(ranks, g, a->coll, cnt);
    for (int r = 0, fwd = 0; r < p && !fwd; r++) { /* a case where some block is forwarded */
        for (int k = 0; k < ranks[r].sched.nops && !fwd; k++) {
            const cs_op_t *op = &ranks[r].sched.ops[k];
            fwd = (op->kind == CS_OP_SEND && op->buf.slot == CS_SLOT_RECV) ||
                  (op->kind == CS_OP_RECV && op->buf.slot == CS_SLOT_SCRATCH);
            for (int q = 0; q < op->nparts && !fwd; q++) { /* multi-part: the same per part */
                const cs_part_t *x = &ranks[r].sched.parts[op->part + q];
                fwd = (op->kind == CS_OP_SEND && x->buf.slot == CS_SLOT_RECV) ||
                      (op->kind == CS_OP_RECV && x->buf.slot == CS_SLOT_SCRATCH);
            }
        }
        *forwarded += fwd;
    }
    /* An empty COPY is no operation (sched.h), so balanced's and the iso schedules' unpacking
     * shows at count > 0. The iso alltoall schedules alternate a travelling block between the
     * intermediate and the receive buffer (the paper's algorithm 1), so a receive block may be
     * written at a hop before its last: only the final contents are checked there. */
    int iso_a2a = is_iso(a) && a->coll == CS_COLL_NEIGHBOR_ALLTOALL &&
                  strstr(a->name, "straightforward") == NULL;
    verdict = check_scheds(
        ranks, g, strstr(a->name, "/coloured") != NULL,
        !iso_a2a && (cnt > 0 || (strstr(a->name, "/balanced") == NULL && !is_iso(a))), why, cap);
    if (verdict != CASE_PASS) {
        goto out;
    }
    rc = cs_sim_run(p, sim, &rep);
    if (rc == CS_ERR_INTERNAL) {
        snprintf(why, cap, "simulator: %s", rep.msg);
        verdict = CASE_FAIL;
        rc = CS_OK;
        goto out;
    }
    CS_CHECK(rc);
    for (int r = 0; r < p && verdict == CASE_PASS; r++) {
        for (int x = 0; x < ranks[r].recv_ints; x++) {
            if (ranks[r].recvbuf[x] != ranks[r].want_recv[x]) {
                snprintf(why, cap, "rank %d receive int %d: %d, want %d", r, x, ranks[r].recvbuf[x],
                         ranks[r].want_recv[x]);
                verdict = CASE_FAIL;
                break;
            }
        }
        if (verdict == CASE_PASS && memcmp(ranks[r].sendbuf, ranks[r].want_send,
                                           sizeof(int) * (size_t)ranks[r].send_ints) != 0) {
            snprintf(why, cap, "rank %d: send buffer changed", r);
            verdict = CASE_FAIL;
        }
    }
out:
    for (int r = 0; ranks != NULL && r < p; r++) {
        rank_free(&ranks[r]);
    }
    free(ranks);
    free(sim);
    return rc < 0 ? rc : verdict;
}

/* The variant's state on graph g (topology t, torus shape `shape` of p): none (linear), the
 * colouring, a balancing state with model m, or the isomorphic neighbourhood (in *iso), which
 * only the periodic grids and the iso topologies have (CS_ERR_NOT_APPLICABLE elsewhere). */
static int make_state(const cs_algo_t *a, int t, int shape, const cs_graph_t *g,
                      const cs_loggp_t *m, cs_isocomm_t *iso, cs_state_t *st) {
    int rc;
    memset(st, 0, sizeof(*st));
    if (a->setup == cs_neighbor_coloured_setup) {
        return cs_neighbor_coloured_init(g, &st->priv);
    }
    if (a->setup == cs_neighbor_balanced_setup) {
        return cs_neighbor_balanced_init(g, m, &st->priv);
    }
    if (is_iso(a)) {
        rc = make_iso(t, g->p, shape, iso);
        st->priv = rc == CS_OK ? iso : NULL;
        return rc;
    }
    return a->setup == NULL ? CS_OK : CS_ERR_NOT_APPLICABLE;
}

static void free_state(const cs_algo_t *a, cs_state_t *st) {
    if (a->setup == cs_neighbor_coloured_setup) {
        cs_neighbor_coloured_free(st->priv);
    } else if (a->setup == cs_neighbor_balanced_setup) {
        cs_neighbor_balanced_free(st->priv);
    } else if (is_iso(a)) {
        cs_isocomm_free(st->priv);
    }
    st->priv = NULL;
}

/* The torus shapes topology t is run on for algorithm a: every ordered factorisation of p
 * for the iso algorithms on the iso topologies, one otherwise. */
static int nshapes(const cs_algo_t *a, int t, int p) {
    int n = 0, dims[3];
    if (!is_iso(a) || t < T_ISO_MOORE2D) {
        return 1;
    }
    while (torus_shape(p, iso_topo_dims(t), n, dims)) {
        n++;
    }
    return n;
}

static int test_algo(const cs_algo_t *a, int only_p, int *passed, int *failed) {
    int rc = CS_OK, bad = 0;
    long cases = 0, forwarded = 0;
    static const cs_loggp_t models[2] = {
        {CS_LOGGP_DEFAULT_L, CS_LOGGP_DEFAULT_O, CS_LOGGP_DEFAULT_G_GAP, CS_LOGGP_DEFAULT_G_BYTE},
        {0.0, 1.0, 0.0, 0.0}};
    int nmodels = a->setup == cs_neighbor_balanced_setup ? 2 : 1;
    cs_variant_t *v = malloc(CS_MAX_VARIANTS * sizeof(*v));
    char why[WHY_BYTES], vname[256];
    cs_state_t st;
    memset(&st, 0, sizeof(st));
    CS_REQUIRE(v != NULL, CS_ERR_NOMEM);
    for (int pi = 0; pi < (only_p > 0 ? 1 : SIM_NPROCS); pi++) {
        int p = only_p > 0 ? only_p : sim_nprocs[pi], nv = 0;
        CS_CHECK(cs_algo_variants(a, p, p, v, CS_MAX_VARIANTS, &nv));
        for (int k = 0; k < nv; k++) {
            int nfail = 0;
            char first[2 * WHY_BYTES] = "";
            cs_variant_name(&v[k], vname, sizeof(vname));
            for (int t = 0; t < T_COUNT; t++) {
                for (int sh = 0; sh < nshapes(a, t, p); sh++) {
                    cs_graph_t g;
                    cs_isocomm_t iso;
                    int kind;
                    CS_CHECK(make_topo(t, p, sh, &g, &kind));
                    for (int mi = 0; mi < nmodels; mi++) {
                        rc = make_state(a, t, sh, &g, &models[mi], &iso, &st);
                        if (rc == CS_ERR_NOT_APPLICABLE && is_iso(a)) {
                            rc = CS_OK; /* not isomorphic: nothing to run */
                            continue;
                        }
                        for (int ci = 0; rc == CS_OK && ci < NCOUNTS; ci++) {
                            rc = run_one(a, &v[k].params, &st, &g, kind, counts[ci], &forwarded,
                                         why, sizeof(why));
                            cases++;
                            if (rc == CASE_FAIL) {
                                if (nfail++ == 0) {
                                    snprintf(first, sizeof(first),
                                             "%s shape %d model %d count %d: %s", topo_names[t], sh,
                                             mi, counts[ci], why);
                                }
                                if (verbose) {
                                    printf("  fail %s p=%d %s shape %d model %d count %d: %s\n",
                                           vname, p, topo_names[t], sh, mi, counts[ci], why);
                                }
                            }
                            rc = rc < 0 ? rc : CS_OK;
                        }
                        free_state(a, &st);
                    }
                    cs_graph_free(&g);
                    CS_CHECK(rc);
                }
            }
            if (nfail > 0) {
                printf("FAIL %s p=%d: %d cases failed; first: %s\n", vname, p, nfail, first);
                (*failed)++;
                bad++;
            } else {
                (*passed)++;
            }
        }
    }
    /* balancing and message combining that never forward would test nothing of them (and
     * linear, coloured and iso_straightforward never do) */
    if ((a->setup == cs_neighbor_balanced_setup ||
         (is_iso(a) && strstr(a->name, "straightforward") == NULL)) != (forwarded > 0) &&
        only_p == 0) {
        printf("FAIL %s: %ld cases forward a block\n", a->name, forwarded);
        (*failed)++;
        bad++;
    }
    printf("%-4s %s on topologies: %ld cases, %ld with forwarding%s\n", bad > 0 ? "FAIL" : "ok",
           a->name, cases, forwarded, bad > 0 ? " (failures above)" : "");
out:
    free(v);
    return rc;
}

int test_neighbor(const char *only, int only_p, int *ran, int *passed, int *failed) {
    int rc = CS_OK;
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        if (a->build == NULL || !cs_coll_is_neighbor(a->coll) ||
            (only != NULL && strcmp(a->name, only) != 0)) {
            continue;
        }
        (*ran)++; /* (in whichever shard runs it: -a counts it as found) */
        /* one shard unit per algorithm, so that balanced's forwarding check sees all its p */
        if (shard_mine()) {
            CS_CHECK(test_algo(a, only_p, passed, failed));
        }
    }
out:
    return rc;
}

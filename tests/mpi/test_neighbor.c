/* cs_mpi_test, the neighbourhood collectives: every registered neighbourhood algorithm against
 * the MPI library's MPI_Neighbor_* on topology communicators, under mpirun.
 *
 * Topologies, built over the communicator under test (p ranks, no reordering):
 *   cart2d, cart3d          MPI_Cart_create on MPI_Dims_create's 2D and 3D grids, periodic in
 *                           every dimension (isomorphic: the iso_* algorithms must run there
 *                           and refuse, CS_ERR_NOT_APPLICABLE on every rank, everywhere else);
 * cart2d_open, cart3d_open non-periodic (border ranks have MPI_PROC_NULL neighbours, whose receive
 * blocks must stay untouched). Small p gives dimensions of size 1 and 2, where a periodic neighbour
 * is the rank itself, or the same rank twice. adjacent, adjacent_w MPI_Dist_graph_create_adjacent,
 * unweighted and weighted, on a fixed pseudo-random multigraph: 0 to 3 random out-edges per rank
 *                           (repeats and self-loops happen), rank 0 sending to rank 1 twice,
 *                           a self-loop on the last rank with edges, and from p = 3 on a last
 *                           rank without any edge; sources listed by descending rank.
 *   dist, dist_w            MPI_Dist_graph_create on the same graph, unweighted and weighted,
 *                           each rank giving the out-edges of the next rank (edges given by
 *                           other ranks; the MPI library orders the neighbours). main() picks
 *                           Open MPI's basic topology component (its treematch hangs here).
 *   graph                   MPI_Graph_create on a symmetric multigraph: a ring, the edge 0-1
 *                           once more, a self-loop on 0, from p = 4 on a last rank isolated.
 *   scatter_hotspot         MPI_Dist_graph_create_adjacent: rank 0 sends to every rank, every
 *                           rank to its ring neighbours (the paper's figure 4; the balanced
 *                           algorithms forward here, in the reversed pass, whose LogGP model
 *                           makes latency free: test_algorithms.c).
 * Data: int; a derived type with a non-zero lower bound and gaps (2 ints at bytes 8 and 16,
 * resized to lb 4, extent 20); n derived elements against 2n ints, both ways round; for
 * alltoallw also each end choosing either type per edge. Counts: 0, 1, 7 and 4099 (past the
 * eager limit); the v and w collectives vary them per edge around those, zeros included, and
 * place the blocks in reverse edge order with gaps (alltoallw at byte displacements).
 *
 * After all the cases of a topology, its context must have coloured the graph exactly once for
 * the coloured variants of the five collectives (cs_comm_colouring, ctx->colourings).
 * Each case runs MPI_Neighbor_* on one set of buffers and cs_algo_run_variant on an identical
 * set: whole allocations, sentinel margins and gaps included, must be equal (so send buffers are
 * unchanged), and the receive blocks of MPI_PROC_NULL neighbours must hold the sentinel. Before
 * the cases of a topology, cs_comm_neighbors must give the neighbours MPI lists, and the same
 * cached object when asked again.
 * Last, on the communicator under test, which has no topology: the neighbourhood constructors
 * refuse the call (CS_ERR_ARG), and with MPI_ERRORS_RETURN (on the communicator and on
 * MPI_COMM_WORLD, whose handler Open MPI calls for a missing topology) each MPI_Neighbor_*
 * returns the error PMPI_Neighbor_* returns; under libcollsel_pmpi with COLLSEL_FORCE
 * (test_selector.sh, group force) that checks that such calls reach the MPI library unchanged. */
#include "builders.h"
#include "core/algo.h"
#include "core/comm.h"
#include "mpi_test.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN_BYTES  64
#define SEND_SENTINEL 0x5A
#define RECV_SENTINEL 0xA5
#define MID_COUNT     4099
#define MAX_REPORTS   10
#define COUNT_OF(a)   (sizeof(a) / sizeof((a)[0]))

/* A test datatype made of int fields. */
typedef struct ntype {
    const char *name;
    MPI_Datatype type;
    MPI_Aint lb, extent;
    int nfields;
    MPI_Aint off[2]; /* bytes from the element's origin */
} ntype_t;

/* The types of a case: sratio elements of `send` carry the ints of rratio elements of `recv`.
 * per_edge (alltoallw): each end of each edge picks t_lb or t_int on its own. */
typedef struct kind {
    const char *name;
    const ntype_t *send, *recv;
    int sratio, rratio;
    int per_edge;
} kind_t;

/* This rank's neighbours, as MPI lists them. */
typedef struct nbhd {
    int kind, in, out;
    int *src, *dst;
} nbhd_t;

typedef struct topo {
    char name[32];
    MPI_Comm comm;
    nbhd_t nb;
    int iso; /* isomorphic (a periodic Cartesian grid): the iso_* algorithms must run */
} topo_t;

/* One block of a buffer: `count` elements of `t` at byte `off` from the buffer's origin, which
 * is `displ` elements for element displacements. */
typedef struct blk {
    int count;
    const ntype_t *t;
    MPI_Aint off;
    int displ;
} blk_t;

/* Where a case's blocks are, and its MPI arguments (shared by both sides). */
typedef struct layout {
    int nsend, nrecv;
    blk_t *send, *recv;
    MPI_Aint send_bytes, recv_bytes; /* from the origin */
    MPI_Aint send_shift, recv_shift; /* origin = allocation + MARGIN_BYTES - shift */
    int sendcount, recvcount;        /* uniform arguments */
    MPI_Datatype sendtype, recvtype;
    int *scounts, *sdispls, *rcounts, *rdispls; /* per edge (v, w) */
    MPI_Aint *sbytes, *rbytes;
    MPI_Datatype *stypes, *rtypes;
} layout_t;

typedef struct side {
    unsigned char *smem, *rmem;
    size_t sbytes, rbytes;
    char *sorg, *rorg;
} side_t;

typedef struct ncase {
    const cs_variant_t *variant;
    const char *name;
    cs_coll_t coll;
    const topo_t *topo;
    const kind_t *kind;
    int count, salt;
} ncase_t;

static ntype_t t_int, t_lb;
static kind_t kinds[5];
static MPI_Comm comm; /* the topology communicator of the case */
static int rank, nprocs, world_rank, reports;
static const char *base_label;

/* ---- values, counts and the test graphs ---------------------------------------------------- */

static unsigned hash3(unsigned a, unsigned b, unsigned c) {
    unsigned h = a * 2654435761u ^ b * 40503u ^ c * 7919u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h;
}

/* How often list[i] occurs in list[0..i). */
static int occurrence(const int *list, int i) {
    int k = 0;
    for (int j = 0; j < i; j++) {
        k += list[j] == list[i];
    }
    return k;
}

/* How often the destination of out-edge i is sent to before it: MPI pairs repeated edges by
 * this. Sends go in destination order, but on a Cartesian communicator each dimension's +1
 * block goes before its -1 block (a block sent towards +1 arrives as the receiver's block from
 * -1, also where both neighbours are one rank). */
static int send_occurrence(const nbhd_t *nb, int i) {
    int k = 0, pos = nb->kind == MPI_CART ? i ^ 1 : i;
    for (int j = 0; j < pos; j++) {
        int e = nb->kind == MPI_CART ? j ^ 1 : j;
        k += nb->dst[e] == nb->dst[i];
    }
    return k;
}

/* Elements (in units of the ratio) of the k-th message from a to b of a v or w case around
 * `base`: both ends compute it alike. */
static int edge_count(int base, int a, int b, int k) {
    if (base == 0 || (a * 3 + b * 5 + k * 7) % 4 == 0) {
        return 0;
    }
    return base + (a + 2 * b + k) % 3;
}

/* What rank a sends in an allgatherv case around `base`. */
static int gather_count(int base, int a) {
    return base == 0 || a % 4 == 3 ? 0 : base + a % 3;
}

/* The out-edges of rank a in the test multigraph of p ranks (at most 6) into out[]. */
static int graph_out(int a, int p, int *out) {
    int live = p >= 3 ? p - 1 : p, n = 0, k;
    if (a >= live) {
        return 0;
    }
    if (a == 0 && live >= 2) {
        out[n++] = 1;
        out[n++] = 1;
    }
    k = (int)(hash3((unsigned)a, 1, 0) % 4);
    for (int j = 0; j < k; j++) {
        out[n++] = (int)(hash3((unsigned)a, 2, (unsigned)j) % (unsigned)live);
    }
    if (a == live - 1) {
        out[n++] = a;
    }
    return n;
}

static int weight(int a, int b, int k) {
    return 1 + (a * 7 + b * 3 + k) % 5;
}

/* ---- topologies ------------------------------------------------------------------------------ */

static void nbhd_free(nbhd_t *nb) {
    free(nb->src);
    free(nb->dst);
    memset(nb, 0, sizeof(*nb));
}

/* This rank's neighbours of topology communicator c, straight from MPI. */
static int query(MPI_Comm c, nbhd_t *nb) {
    int me, weighted;
    memset(nb, 0, sizeof(*nb));
    MPI_Comm_rank(c, &me);
    MPI_Topo_test(c, &nb->kind);
    if (nb->kind == MPI_CART) {
        int ndims;
        MPI_Cartdim_get(c, &ndims);
        nb->in = nb->out = 2 * ndims;
        nb->src = malloc((size_t)(2 * ndims + 1) * sizeof(int));
        nb->dst = malloc((size_t)(2 * ndims + 1) * sizeof(int));
        for (int d = 0; d < ndims && nb->src != NULL && nb->dst != NULL; d++) {
            MPI_Cart_shift(c, d, 1, &nb->src[2 * d], &nb->src[2 * d + 1]);
            nb->dst[2 * d] = nb->src[2 * d];
            nb->dst[2 * d + 1] = nb->src[2 * d + 1];
        }
    } else if (nb->kind == MPI_GRAPH) {
        MPI_Graph_neighbors_count(c, me, &nb->in);
        nb->out = nb->in;
        nb->src = malloc((size_t)(nb->in + 1) * sizeof(int));
        nb->dst = malloc((size_t)(nb->in + 1) * sizeof(int));
        if (nb->src != NULL && nb->dst != NULL) {
            MPI_Graph_neighbors(c, me, nb->in, nb->src);
            memcpy(nb->dst, nb->src, (size_t)nb->in * sizeof(int));
        }
    } else {
        int *w;
        MPI_Dist_graph_neighbors_count(c, &nb->in, &nb->out, &weighted);
        nb->src = malloc((size_t)(nb->in + 1) * sizeof(int));
        nb->dst = malloc((size_t)(nb->out + 1) * sizeof(int));
        w = malloc((size_t)(nb->in + nb->out + 1) * sizeof(int));
        if (nb->src != NULL && nb->dst != NULL && w != NULL) {
            MPI_Dist_graph_neighbors(c, nb->in, nb->src, w, nb->out, nb->dst, w + nb->in);
        }
        free(w);
    }
    return nb->src != NULL && nb->dst != NULL ? 0 : -1;
}

static MPI_Comm make_cart(int ndims, int periodic, char *name, size_t len) {
    int dims[3] = {0, 0, 0}, periods[3] = {periodic, periodic, periodic};
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Dims_create(nprocs, ndims, dims);
    MPI_Cart_create(comm, ndims, dims, periods, 0, &c);
    if (ndims == 2) {
        snprintf(name, len, "cart%dx%d%s", dims[0], dims[1], periodic ? "" : "_open");
    } else {
        snprintf(name, len, "cart%dx%dx%d%s", dims[0], dims[1], dims[2], periodic ? "" : "_open");
    }
    return c;
}

static MPI_Comm make_adjacent(int weighted) {
    int out[8], nout = graph_out(rank, nprocs, out), nin = 0;
    int *src = malloc((size_t)(6 * nprocs + 1) * sizeof(int));
    int *sw = malloc((size_t)(6 * nprocs + 1) * sizeof(int)), dw[8];
    MPI_Comm c = MPI_COMM_NULL;
    if (src == NULL || sw == NULL) {
        free(src);
        free(sw);
        return MPI_COMM_NULL;
    }
    for (int a = nprocs - 1; a >= 0; a--) { /* sources by descending rank */
        int aout[8], n = graph_out(a, nprocs, aout);
        for (int i = 0; i < n; i++) {
            if (aout[i] == rank) {
                sw[nin] = weight(a, rank, occurrence(aout, i));
                src[nin++] = a;
            }
        }
    }
    for (int i = 0; i < nout; i++) {
        dw[i] = weight(rank, out[i], occurrence(out, i));
    }
    MPI_Dist_graph_create_adjacent(comm, nin, src, weighted ? sw : MPI_UNWEIGHTED, nout, out,
                                   weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    free(src);
    free(sw);
    return c;
}

/* The destinations of rank u in `scatter_hotspot` into out ([p + 1]); returns their number. */
static int hot_out(int u, int p, int *out) {
    int n = 0;
    if (p < 2) {
        return 0;
    }
    for (int v = 1; u == 0 && v < p; v++) {
        out[n++] = v;
    }
    out[n++] = (u - 1 + p) % p;
    out[n++] = (u + 1) % p;
    return n;
}

/* The scatter hot spot (Hoefler and Schneider, figure 4), by MPI_Dist_graph_create_adjacent:
 * rank 0 sends to every rank, and every rank to its ring neighbours (rank 0 to 1 and p - 1 a
 * second time; p = 2: each to the other twice); sources by ascending rank; every weight 1. */
static MPI_Comm make_hotspot(void) {
    int *out = malloc((size_t)(nprocs + 2) * sizeof(int)), *aout = NULL, *src = NULL, *w = NULL;
    int nout, nin = 0;
    MPI_Comm c = MPI_COMM_NULL;
    aout = malloc((size_t)(nprocs + 2) * sizeof(int));
    src = malloc((size_t)(3 * nprocs + 2) * sizeof(int));
    w = malloc((size_t)(3 * nprocs + 2) * sizeof(int));
    if (out != NULL && aout != NULL && src != NULL && w != NULL) {
        for (int i = 0; i < 3 * nprocs + 2; i++) {
            w[i] = 1;
        }
        nout = hot_out(rank, nprocs, out);
        for (int a = 0; a < nprocs; a++) {
            int n = hot_out(a, nprocs, aout);
            for (int i = 0; i < n; i++) {
                if (aout[i] == rank) {
                    src[nin++] = a;
                }
            }
        }
        MPI_Dist_graph_create_adjacent(comm, nin, src, w, nout, out, w, MPI_INFO_NULL, 0, &c);
    }
    free(w);
    free(out);
    free(aout);
    free(src);
    return c;
}

/* Each rank gives the out-edges of the next one. */
static MPI_Comm make_dist(int weighted) {
    int s = (rank + 1) % nprocs, out[8], w[8];
    int nout = graph_out(s, nprocs, out);
    MPI_Comm c = MPI_COMM_NULL;
    for (int i = 0; i < nout; i++) {
        w[i] = weight(s, out[i], occurrence(out, i));
    }
    MPI_Dist_graph_create(comm, 1, &s, &nout, out, weighted ? w : MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                          &c);
    return c;
}

/* The symmetric multigraph of `graph` (see the top of the file). */
static MPI_Comm make_graph(void) {
    int live = nprocs >= 4 ? nprocs - 1 : nprocs, nedges = 0;
    int(*e)[2] = malloc((size_t)(nprocs + 2) * sizeof(*e));
    int *index = malloc((size_t)nprocs * sizeof(int));
    int *adj = malloc((size_t)(4 * nprocs + 4) * sizeof(int));
    MPI_Comm c = MPI_COMM_NULL;
    if (e == NULL || index == NULL || adj == NULL) {
        goto out;
    }
    for (int i = 0; live >= 3 && i < live; i++) {
        e[nedges][0] = i;
        e[nedges++][1] = (i + 1) % live;
    }
    if (live >= 2) {
        e[nedges][0] = 0;
        e[nedges++][1] = 1;
    }
    if (live == 2) {
        e[nedges][0] = 0;
        e[nedges++][1] = 1;
    }
    e[nedges][0] = 0;
    e[nedges++][1] = 0;
    {
        int at = 0;
        for (int v = 0; v < nprocs; v++) {
            for (int k = 0; k < nedges; k++) {
                if (e[k][0] == v) {
                    adj[at++] = e[k][1];
                } else if (e[k][1] == v) {
                    adj[at++] = e[k][0];
                }
            }
            index[v] = at;
        }
    }
    MPI_Graph_create(comm, nprocs, index, adj, 0, &c);
out:
    free(e);
    free(index);
    free(adj);
    return c;
}

/* ---- layouts and buffers ------------------------------------------------------------------- */

static void layout_free(layout_t *L) {
    free(L->send);
    free(L->recv);
    free(L->scounts);
    free(L->sdispls);
    free(L->rcounts);
    free(L->rdispls);
    free(L->sbytes);
    free(L->rbytes);
    free(L->stypes);
    free(L->rtypes);
    memset(L, 0, sizeof(*L));
}

/* n uniform blocks of `count` elements of t, one after the other from element 0. */
static void place_uniform(blk_t *b, int n, int count, const ntype_t *t, MPI_Aint *bytes,
                          MPI_Aint *shift) {
    for (int j = 0; j < n; j++) {
        b[j].count = count;
        b[j].t = t;
        b[j].displ = j * count;
        b[j].off = (MPI_Aint)b[j].displ * t->extent;
    }
    *bytes = (MPI_Aint)n * count * t->extent;
    *shift = t->lb;
}

/* Blocks b[0..n) (counts and types set) in reverse order with gaps: at element displacements of
 * t (bytes 0) or at byte displacements (bytes 1). */
static void place_reversed(blk_t *b, int n, int bytes_displ, MPI_Aint *bytes, MPI_Aint *shift) {
    MPI_Aint at = bytes_displ ? 4 : 1;
    for (int j = n - 1; j >= 0; j--) {
        if (bytes_displ) {
            b[j].off = at - b[j].t->lb;
            b[j].displ = 0;
            at += b[j].count * b[j].t->extent + 4 + 4 * (j % 2);
        } else {
            b[j].displ = (int)at;
            b[j].off = at * b[j].t->extent;
            at += b[j].count + 1 + j % 2;
        }
    }
    if (bytes_displ) {
        *bytes = at;
        *shift = 0;
    } else {
        *bytes = at * (n > 0 ? b[0].t->extent : 1);
        *shift = n > 0 ? b[0].t->lb : 0;
    }
}

/* The blocks and MPI arguments of case tc on this rank. */
static int make_layout(const ncase_t *tc, layout_t *L) {
    const nbhd_t *nb = &tc->topo->nb;
    const kind_t *k = tc->kind;
    int base = tc->count, w = tc->coll == CS_COLL_NEIGHBOR_ALLTOALLW;
    int gather = tc->coll == CS_COLL_NEIGHBOR_ALLGATHER || tc->coll == CS_COLL_NEIGHBOR_ALLGATHERV;
    memset(L, 0, sizeof(*L));
    L->nsend = gather ? 1 : nb->out;
    L->nrecv = nb->in;
    L->send = calloc((size_t)L->nsend + 1, sizeof(blk_t));
    L->recv = calloc((size_t)L->nrecv + 1, sizeof(blk_t));
    L->scounts = calloc((size_t)nb->out + 1, sizeof(int));
    L->sdispls = calloc((size_t)nb->out + 1, sizeof(int));
    L->rcounts = calloc((size_t)nb->in + 1, sizeof(int));
    L->rdispls = calloc((size_t)nb->in + 1, sizeof(int));
    L->sbytes = calloc((size_t)nb->out + 1, sizeof(MPI_Aint));
    L->rbytes = calloc((size_t)nb->in + 1, sizeof(MPI_Aint));
    L->stypes = calloc((size_t)nb->out + 1, sizeof(MPI_Datatype));
    L->rtypes = calloc((size_t)nb->in + 1, sizeof(MPI_Datatype));
    if (!L->send || !L->recv || !L->scounts || !L->sdispls || !L->rcounts || !L->rdispls ||
        !L->sbytes || !L->rbytes || !L->stypes || !L->rtypes) {
        return -1;
    }
    L->sendtype = k->send->type;
    L->recvtype = k->recv->type;
    switch (tc->coll) {
    case CS_COLL_NEIGHBOR_ALLGATHER:
    case CS_COLL_NEIGHBOR_ALLTOALL:
        L->sendcount = base * k->sratio;
        L->recvcount = base * k->rratio;
        place_uniform(L->send, L->nsend, L->sendcount, k->send, &L->send_bytes, &L->send_shift);
        place_uniform(L->recv, L->nrecv, L->recvcount, k->recv, &L->recv_bytes, &L->recv_shift);
        return 0;
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        L->sendcount = gather_count(base, rank) * k->sratio;
        place_uniform(L->send, 1, L->sendcount, k->send, &L->send_bytes, &L->send_shift);
        for (int j = 0; j < nb->in; j++) {
            int a = nb->src[j];
            L->recv[j].count = (a == MPI_PROC_NULL ? base : gather_count(base, a)) * k->rratio;
            L->recv[j].t = k->recv;
        }
        break;
    default: /* alltoallv, alltoallw */
        for (int i = 0; i < nb->out; i++) {
            int b = nb->dst[i], kk = send_occurrence(nb, i);
            int c = b == MPI_PROC_NULL ? base : edge_count(base, rank, b, kk);
            int lb = k->per_edge && b != MPI_PROC_NULL && (rank + 2 * b + kk) % 2 == 1;
            L->send[i].t = k->per_edge ? (lb ? &t_lb : &t_int) : k->send;
            L->send[i].count = k->per_edge ? (lb ? c : 2 * c) : c * k->sratio;
        }
        for (int j = 0; j < nb->in; j++) {
            int a = nb->src[j], kk = occurrence(nb->src, j);
            int c = a == MPI_PROC_NULL ? base : edge_count(base, a, rank, kk);
            int lb = k->per_edge && a != MPI_PROC_NULL && (a * rank + kk + 1) % 2 == 1;
            L->recv[j].t = k->per_edge ? (lb ? &t_lb : &t_int) : k->recv;
            L->recv[j].count = k->per_edge ? (lb ? c : 2 * c) : c * k->rratio;
        }
        place_reversed(L->send, L->nsend, w, &L->send_bytes, &L->send_shift);
        break;
    }
    place_reversed(L->recv, L->nrecv, w, &L->recv_bytes, &L->recv_shift);
    for (int i = 0; !gather && i < nb->out; i++) {
        L->scounts[i] = L->send[i].count;
        L->sdispls[i] = L->send[i].displ;
        L->sbytes[i] = L->send[i].off;
        L->stypes[i] = L->send[i].t->type;
    }
    for (int j = 0; j < nb->in; j++) {
        L->rcounts[j] = L->recv[j].count;
        L->rdispls[j] = L->recv[j].displ;
        L->rbytes[j] = L->recv[j].off;
        L->rtypes[j] = L->recv[j].t->type;
    }
    return 0;
}

static void side_free(side_t *s) {
    free(s->smem);
    free(s->rmem);
    memset(s, 0, sizeof(*s));
}

static int side_alloc(const ncase_t *tc, const layout_t *L, side_t *s) {
    memset(s, 0, sizeof(*s));
    s->sbytes = (size_t)L->send_bytes + 2 * MARGIN_BYTES;
    s->rbytes = (size_t)L->recv_bytes + 2 * MARGIN_BYTES;
    s->smem = malloc(s->sbytes);
    s->rmem = malloc(s->rbytes);
    if (s->smem == NULL || s->rmem == NULL) {
        return -1;
    }
    memset(s->smem, SEND_SENTINEL, s->sbytes);
    memset(s->rmem, RECV_SENTINEL, s->rbytes);
    s->sorg = (char *)s->smem + MARGIN_BYTES - L->send_shift;
    s->rorg = (char *)s->rmem + MARGIN_BYTES - L->recv_shift;
    for (int i = 0; i < L->nsend; i++) {
        const blk_t *b = &L->send[i];
        for (int e = 0; e < b->count; e++) {
            for (int f = 0; f < b->t->nfields; f++) {
                int v = (int)(hash3((unsigned)rank, (unsigned)(i * 100003 + e),
                                    (unsigned)(f + 7 * tc->salt)) %
                              2001) -
                        1000;
                memcpy(s->sorg + b->off + e * b->t->extent + b->t->off[f], &v, sizeof(v));
            }
        }
    }
    return 0;
}

/* ---- running a case ------------------------------------------------------------------------ */

static int run_native(const ncase_t *tc, const layout_t *L, side_t *s) {
    switch (tc->coll) {
    case CS_COLL_NEIGHBOR_ALLGATHER:
        return MPI_Neighbor_allgather(s->sorg, L->sendcount, L->sendtype, s->rorg, L->recvcount,
                                      L->recvtype, comm);
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        return MPI_Neighbor_allgatherv(s->sorg, L->sendcount, L->sendtype, s->rorg, L->rcounts,
                                       L->rdispls, L->recvtype, comm);
    case CS_COLL_NEIGHBOR_ALLTOALL:
        return MPI_Neighbor_alltoall(s->sorg, L->sendcount, L->sendtype, s->rorg, L->recvcount,
                                     L->recvtype, comm);
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        return MPI_Neighbor_alltoallv(s->sorg, L->scounts, L->sdispls, L->sendtype, s->rorg,
                                      L->rcounts, L->rdispls, L->recvtype, comm);
    default:
        return MPI_Neighbor_alltoallw(s->sorg, L->scounts, L->sbytes, L->stypes, s->rorg,
                                      L->rcounts, L->rbytes, L->rtypes, comm);
    }
}

static int construct(cs_call_t *call, const ncase_t *tc, const layout_t *L, side_t *s) {
    switch (tc->coll) {
    case CS_COLL_NEIGHBOR_ALLGATHER:
        return cs_call_neighbor_allgather(call, s->sorg, L->sendcount, L->sendtype, s->rorg,
                                          L->recvcount, L->recvtype, comm);
    case CS_COLL_NEIGHBOR_ALLGATHERV:
        return cs_call_neighbor_allgatherv(call, s->sorg, L->sendcount, L->sendtype, s->rorg,
                                           L->rcounts, L->rdispls, L->recvtype, comm);
    case CS_COLL_NEIGHBOR_ALLTOALL:
        return cs_call_neighbor_alltoall(call, s->sorg, L->sendcount, L->sendtype, s->rorg,
                                         L->recvcount, L->recvtype, comm);
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        return cs_call_neighbor_alltoallv(call, s->sorg, L->scounts, L->sdispls, L->sendtype,
                                          s->rorg, L->rcounts, L->rdispls, L->recvtype, comm);
    default:
        return cs_call_neighbor_alltoallw(call, s->sorg, L->scounts, L->sbytes, L->stypes, s->rorg,
                                          L->rcounts, L->rbytes, L->rtypes, comm);
    }
}

static void report(const ncase_t *tc, const char *what, long at) {
    if (++reports > MAX_REPORTS) {
        return;
    }
    fprintf(stderr, "FAIL %s comm=%s topo=%s np=%d type=%s count=%d (rank %d): %s at byte %ld\n",
            tc->name, base_label, tc->topo->name, nprocs, tc->kind->name, tc->count, rank, what,
            at);
}

static long first_diff(const unsigned char *a, const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return (long)i;
        }
    }
    return -1;
}

/* 1 when the algorithm side differs from native, or wrote a block of an MPI_PROC_NULL source. */
static int compare(const ncase_t *tc, const layout_t *L, const side_t *nat, const side_t *alg) {
    long at;
    int bad = 0;
    if ((at = first_diff(nat->smem, alg->smem, nat->sbytes)) >= 0) {
        report(tc, "send buffer modified", at);
        bad = 1;
    }
    if ((at = first_diff(nat->rmem, alg->rmem, nat->rbytes)) >= 0) {
        report(tc, "receive buffer differs from native, first", at);
        bad = 1;
    }
    for (int j = 0; j < L->nrecv; j++) {
        const blk_t *b = &L->recv[j];
        const unsigned char *p = (const unsigned char *)alg->rorg + b->off + b->t->lb;
        if (tc->topo->nb.src[j] != MPI_PROC_NULL) {
            continue;
        }
        for (MPI_Aint i = 0; i < b->count * b->t->extent; i++) {
            if (p[i] != RECV_SENTINEL) {
                report(tc, "block of an MPI_PROC_NULL neighbour written",
                       (long)(p + i - alg->rmem));
                bad = 1;
                break;
            }
        }
    }
    return bad;
}

/* One case on every rank: 1 passed, 0 failed, -1 not applicable (the same everywhere). */
static int run_case(const ncase_t *tc) {
    layout_t L;
    side_t nat, alg;
    cs_call_t call;
    int bad = 0, st, verdict[2] = {0, 0};
    memset(&nat, 0, sizeof(nat));
    memset(&alg, 0, sizeof(alg));
    if (make_layout(tc, &L) != 0 || side_alloc(tc, &L, &nat) != 0 ||
        side_alloc(tc, &L, &alg) != 0) {
        report(tc, "out of memory", -1);
        bad = 1;
    }
    st = bad ? CS_ERR_NOMEM : construct(&call, tc, &L, &alg);
    if (!bad && st != CS_OK) {
        report(tc, cs_status_name(st), -1);
        bad = 1;
    }
    verdict[0] = bad;
    verdict[1] = !bad && cs_algo_applicable(tc->variant->algo, &call) == CS_ERR_NOT_APPLICABLE;
    MPI_Allreduce(MPI_IN_PLACE, verdict, 2, MPI_INT, MPI_MAX, comm);
    if (verdict[0] || verdict[1]) {
        goto out;
    }
    if (run_native(tc, &L, &nat) != MPI_SUCCESS) {
        report(tc, "the native MPI collective failed", -1);
        bad = 1;
    }
    st = cs_algo_run_variant(tc->variant, &call);
    if (tc->variant->algo->setup == cs_neighbor_iso_setup && !tc->topo->iso) {
        /* not isomorphic: refused on every rank, before any message (counted as skipped) */
        verdict[1] = st == CS_ERR_NOT_APPLICABLE;
        if (st != CS_ERR_NOT_APPLICABLE) {
            report(tc, "an iso algorithm did not refuse a non-isomorphic neighbourhood", -1);
            bad = 1;
        }
    } else if (st != CS_OK) {
        report(tc, cs_status_name(st), -1);
        bad = 1;
    } else if (compare(tc, &L, &nat, &alg)) {
        bad = 1;
    }
    verdict[0] = bad;
    MPI_Allreduce(MPI_IN_PLACE, verdict, 1, MPI_INT, MPI_MAX, comm);
out:
    side_free(&nat);
    side_free(&alg);
    layout_free(&L);
    return verdict[0] ? 0 : verdict[1] ? -1 : 1;
}

static void tally(totals_t *t, int result) {
    if (result > 0) {
        t->passed++;
    } else if (result == 0) {
        t->failed++;
    } else {
        t->skipped++;
    }
}

/* cs_comm_neighbors against MPI's lists, and cached: 1 passed, 0 failed (agreed by all). */
static int check_context(const topo_t *tp) {
    cs_comm_t *ctx = NULL;
    const cs_neighbors_t *a = NULL, *b = NULL;
    int bad = cs_comm_get(tp->comm, &ctx) != CS_OK || cs_comm_neighbors(ctx, &a) != CS_OK ||
              cs_comm_neighbors(ctx, &b) != CS_OK || a != b;
    if (!bad) {
        bad = a->kind != tp->nb.kind || a->indegree != tp->nb.in || a->outdegree != tp->nb.out ||
              memcmp(a->sources, tp->nb.src, (size_t)tp->nb.in * sizeof(int)) != 0 ||
              memcmp(a->destinations, tp->nb.dst, (size_t)tp->nb.out * sizeof(int)) != 0;
    }
    if (bad && ++reports <= MAX_REPORTS) {
        fprintf(stderr, "FAIL cs_comm_neighbors comm=%s topo=%s np=%d (rank %d)\n", base_label,
                tp->name, nprocs, rank);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, tp->comm);
    return !bad;
}

/* After the coloured variants of all five collectives ran on tp: the context coloured its graph
 * once (cs_comm_colouring), for all of them. 1 passed, 0 failed (agreed by all). */
static int check_colouring(const topo_t *tp) {
    cs_comm_t *ctx = NULL;
    int bad = cs_comm_get(tp->comm, &ctx) != CS_OK || ctx->colour == NULL || ctx->colourings != 1;
    if (bad && ++reports <= MAX_REPORTS) {
        fprintf(stderr,
                "FAIL cs_comm_colouring comm=%s topo=%s np=%d (rank %d): coloured %d times\n",
                base_label, tp->name, nprocs, rank, ctx != NULL ? ctx->colourings : -1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, tp->comm);
    return !bad;
}

static void test_topology(const topo_t *tp, int quick, const char *only, totals_t *all) {
    static const int full_counts[] = {0, 1, 7, MID_COUNT}, quick_counts[] = {0, 3};
    const int *counts = quick ? quick_counts : full_counts;
    int ncounts = quick ? (int)COUNT_OF(quick_counts) : (int)COUNT_OF(full_counts);
    cs_variant_t *v = malloc(CS_MAX_VARIANTS * sizeof(*v));
    ncase_t tc;
    char name[256];
    int coloured = 0, coloured_run = 0;
    comm = tp->comm;
    tally(all, check_context(tp));
    memset(&tc, 0, sizeof(tc));
    tc.topo = tp;
    for (int i = 0; i < cs_registry_count && v != NULL; i++) {
        const cs_algo_t *algo = cs_registry[i];
        int nv = 0;
        coloured += algo->setup == cs_neighbor_coloured_setup;
        if (!cs_coll_is_neighbor(algo->coll) || !cs_test_selected(algo->name, only)) {
            continue;
        }
        coloured_run += algo->setup == cs_neighbor_coloured_setup;
        if (cs_algo_variants(algo, nprocs, nprocs, v, CS_MAX_VARIANTS, &nv) != CS_OK) {
            fprintf(stderr, "FAIL %s: cs_algo_variants failed\n", algo->name);
            all->failed++;
            continue;
        }
        for (int k = 0; k < nv; k++) {
            totals_t t = {0, 0, 0};
            int nkinds = algo->coll == CS_COLL_NEIGHBOR_ALLTOALLW ? (int)COUNT_OF(kinds)
                                                                  : (int)COUNT_OF(kinds) - 1;
            reports = 0;
            cs_variant_name(&v[k], name, sizeof(name));
            tc.variant = &v[k];
            tc.name = name;
            tc.coll = algo->coll;
            for (int ki = 0; ki < nkinds; ki++) {
                tc.kind = &kinds[ki];
                if (quick && ki == 2) {
                    continue;
                }
                for (int c = 0; c < ncounts; c++) {
                    tc.count = counts[c];
                    tc.salt++;
                    tally(&t, run_case(&tc));
                }
            }
            if (world_rank == 0) {
                printf("%-8s %-14s %-34s %4d passed, %d failed, %d skipped\n", base_label, tp->name,
                       name, t.passed, t.failed, t.skipped);
                fflush(stdout);
            }
            all->passed += t.passed;
            all->failed += t.failed;
            all->skipped += t.skipped;
        }
    }
    if (v == NULL) {
        fprintf(stderr, "FAIL: out of memory\n");
        all->failed++;
    }
    if (coloured_run == coloured && coloured > 0) { /* every coloured variant ran */
        reports = 0;
        tally(all, check_colouring(tp));
    }
    free(v);
}

/* ---- a communicator without a topology ------------------------------------------------------ */

/* The constructors refuse; every MPI_Neighbor_* returns PMPI's error. */
static void test_no_topology(MPI_Comm base, totals_t *all) {
    MPI_Comm d = MPI_COMM_NULL;
    cs_call_t call;
    int one = 1, zero = 0, bad = 0, got, want;
    int sbuf[4] = {0, 0, 0, 0}, rbuf[4];
    MPI_Aint zb = 0;
    MPI_Datatype it = MPI_INT;
    MPI_Errhandler world_handler;
    MPI_Comm_dup(base, &d);
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    /* Open MPI reports a missing topology through MPI_COMM_WORLD's handler */
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bad |= cs_call_neighbor_allgather(&call, sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, d) != CS_ERR_ARG;
    bad |= cs_call_neighbor_alltoallw(&call, sbuf, &zero, &zb, &it, rbuf, &zero, &zb, &it, d) !=
           CS_ERR_ARG;
    for (int c = 0; c < 5; c++) {
        switch (c) {
        case 0:
            got = MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, d);
            want = PMPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, d);
            break;
        case 1:
            got = MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, &one, &zero, MPI_INT, d);
            want = PMPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, &one, &zero, MPI_INT, d);
            break;
        case 2:
            got = MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, d);
            want = PMPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, d);
            break;
        case 3:
            got = MPI_Neighbor_alltoallv(sbuf, &one, &zero, MPI_INT, rbuf, &one, &zero, MPI_INT, d);
            want =
                PMPI_Neighbor_alltoallv(sbuf, &one, &zero, MPI_INT, rbuf, &one, &zero, MPI_INT, d);
            break;
        default:
            got = MPI_Neighbor_alltoallw(sbuf, &one, &zb, &it, rbuf, &one, &zb, &it, d);
            want = PMPI_Neighbor_alltoallw(sbuf, &one, &zb, &it, rbuf, &one, &zb, &it, d);
            break;
        }
        if (got == MPI_SUCCESS || got != want) {
            bad = 1;
            fprintf(stderr,
                    "FAIL no topology (rank %d): neighbourhood collective %d returned %d, "
                    "PMPI %d\n",
                    rank, c, got, want);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_handler);
    MPI_Errhandler_free(&world_handler);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, base);
    if (world_rank == 0) {
        printf("%-8s %-14s %-34s %s\n", base_label, "no_topology", "neighbor_*",
               bad ? "FAILED" : "passed (constructors refuse; MPI's own error)");
    }
    tally(all, !bad);
    MPI_Comm_free(&d);
}

/* ---- types and entry ------------------------------------------------------------------------ */

static void types_init(void) {
    MPI_Datatype hindexed;
    int blocklens[2] = {1, 1};
    MPI_Aint offs[2] = {8, 16};
    t_int = (ntype_t){"int", MPI_INT, 0, sizeof(int), 1, {0, 0}};
    t_lb = (ntype_t){"hindexed_lb4", MPI_DATATYPE_NULL, 4, 20, 2, {8, 16}};
    MPI_Type_create_hindexed(2, blocklens, offs, MPI_INT, &hindexed);
    MPI_Type_create_resized(hindexed, 4, 20, &t_lb.type);
    MPI_Type_free(&hindexed);
    MPI_Type_commit(&t_lb.type);
    kinds[0] = (kind_t){"int", &t_int, &t_int, 1, 1, 0};
    kinds[1] = (kind_t){"hindexed_lb4", &t_lb, &t_lb, 1, 1, 0};
    kinds[2] = (kind_t){"hindexed_lb4->int", &t_lb, &t_int, 1, 2, 0};
    kinds[3] = (kind_t){"int->hindexed_lb4", &t_int, &t_lb, 2, 1, 0};
    kinds[4] = (kind_t){"per_edge", &t_int, &t_int, 1, 1, 1}; /* alltoallw only */
}

void cs_test_neighbors(MPI_Comm base, const char *base_name, int quick, const char *only,
                       totals_t *all) {
    topo_t topos[10];
    int ntopos = 0, any = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    for (int i = 0; i < cs_registry_count; i++) {
        any |= cs_coll_is_neighbor(cs_registry[i]->coll) &&
               cs_test_selected(cs_registry[i]->name, only);
    }
    if (!any) {
        return;
    }
    types_init();
    base_label = base_name;
    comm = base;
    MPI_Comm_rank(base, &rank);
    MPI_Comm_size(base, &nprocs);
    memset(topos, 0, sizeof(topos));
    for (int nd = 2; nd <= 3; nd++) {
        for (int periodic = 1; periodic >= 0; periodic--) {
            topo_t *tp = &topos[ntopos++];
            tp->comm = make_cart(nd, periodic, tp->name, sizeof(tp->name));
            tp->iso = periodic;
        }
    }
    snprintf(topos[ntopos].name, sizeof(topos[0].name), "adjacent");
    topos[ntopos++].comm = make_adjacent(0);
    snprintf(topos[ntopos].name, sizeof(topos[0].name), "adjacent_w");
    topos[ntopos++].comm = make_adjacent(1);
    snprintf(topos[ntopos].name, sizeof(topos[0].name), "dist");
    topos[ntopos++].comm = make_dist(0);
    snprintf(topos[ntopos].name, sizeof(topos[0].name), "dist_w");
    topos[ntopos++].comm = make_dist(1);
    snprintf(topos[ntopos].name, sizeof(topos[0].name), "graph");
    topos[ntopos++].comm = make_graph();
    snprintf(topos[ntopos].name, sizeof(topos[0].name), "scatter_hotspot");
    topos[ntopos++].comm = make_hotspot();
    for (int t = 0; t < ntopos; t++) {
        int ok = topos[t].comm != MPI_COMM_NULL && query(topos[t].comm, &topos[t].nb) == 0;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, base);
        if (!ok) {
            if (world_rank == 0) {
                fprintf(stderr, "FAIL: cannot build topology %s\n", topos[t].name);
            }
            all->failed++;
            continue;
        }
        MPI_Comm_rank(topos[t].comm, &rank); /* no reordering: the same rank */
        test_topology(&topos[t], quick, only, all);
    }
    for (int t = 0; t < ntopos; t++) {
        nbhd_free(&topos[t].nb);
        if (topos[t].comm != MPI_COMM_NULL) {
            MPI_Comm_free(&topos[t].comm);
        }
    }
    comm = base;
    MPI_Comm_rank(base, &rank);
    test_no_topology(base, all);
    MPI_Type_free(&t_lb.type);
}

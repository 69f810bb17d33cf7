/* The tuning run's named neighbourhood patterns (see patterns.h). */
#include "patterns.h"

#include "collsel_iso.h"
#include "core/comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { CART, MOORE, RANDOM, HOTSPOT, SCATTER_HOTSPOT, ISO_MOORE, ISO_OCTANT };

/* The collectives the message-combining schedules exist for. */
#define ISO_COLLS ((1u << CS_COLL_NEIGHBOR_ALLTOALL) | (1u << CS_COLL_NEIGHBOR_ALLGATHER))

/* Seed of the random patterns: fixed, so every machine tunes the same graphs. */
#define RANDOM_SEED 0x636f6c6c73656cULL

const cs_bench_pattern_t cs_bench_patterns[] = {
    {"cart2d", "2D periodic Cartesian, von Neumann (4 neighbours)", 2, 1, 0, CART, 0, 0},
    {"cart3d", "3D periodic Cartesian, von Neumann (6 neighbours)", 3, 1, 0, CART, 0, 0},
    {"moore2d", "2D 9-point Moore stencil, distributed graph (8 neighbours)", 2, 0, 0, MOORE, 0, 0},
    {"moore3d", "3D 27-point Moore stencil, distributed graph (26 neighbours)", 3, 0, 0, MOORE, 0,
     0},
    {"random10", "random sparse graph, density 10 %", 0, 0, 0.1, RANDOM, 0, 0},
    {"random30", "random sparse graph, density 30 %", 0, 0, 0.3, RANDOM, 0, 0},
    {"random60", "random sparse graph, density 60 %", 0, 0, 0.6, RANDOM, 0, 0},
    {"hotspot", "every rank sends to rank 0 and its ring neighbours", 0, 0, 0, HOTSPOT, 0, 0},
    {"scatter_hotspot", "rank 0 sends to every rank, every rank to its ring neighbours", 0, 0, 0,
     SCATTER_HOTSPOT, 0, 0},
    {"iso_moore2d_r1", "2D isomorphic Moore neighbourhood, radius 1 (8 neighbours)", 2, 0, 0,
     ISO_MOORE, 1, ISO_COLLS},
    {"iso_moore2d_r2", "2D isomorphic Moore neighbourhood, radius 2 (24 neighbours)", 2, 0, 0,
     ISO_MOORE, 2, ISO_COLLS},
    {"iso_moore3d_r1", "3D isomorphic Moore neighbourhood, radius 1 (26 neighbours)", 3, 0, 0,
     ISO_MOORE, 1, ISO_COLLS},
    {"iso_moore3d_r2", "3D isomorphic Moore neighbourhood, radius 2 (124 neighbours)", 3, 0, 0,
     ISO_MOORE, 2, ISO_COLLS},
    {"iso_octant3d_r3", "3D isomorphic positive octant, radius 3 (63 neighbours)", 3, 0, 0,
     ISO_OCTANT, 3, ISO_COLLS},
};
const int cs_bench_npatterns = (int)(sizeof(cs_bench_patterns) / sizeof(cs_bench_patterns[0]));

int cs_bench_pattern_find(const char *name) {
    for (int i = 0; name != NULL && i < cs_bench_npatterns; i++) {
        if (strcmp(cs_bench_patterns[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

int cs_bench_pattern_tunes(const cs_bench_pattern_t *pat, cs_coll_t c) {
    return pat->colls == 0 || ((pat->colls >> c) & 1u);
}

/* The positive octant of radius r: every offset in {0..r}^d but 0, lexicographic (dimension 0
 * most significant), into n on the torus dims. */
static int octant(cs_iso_nbh_t *n, int d, const int *dims, int r) {
    int rc = CS_OK, s = 1, *offs = NULL, c[3] = {0, 0, 0};
    CS_REQUIRE(d >= 1 && d <= 3 && r >= 1, CS_ERR_ARG);
    for (int j = 0; j < d; j++) {
        s *= r + 1;
    }
    s -= 1;
    offs = malloc((size_t)s * (size_t)d * sizeof(int));
    CS_REQUIRE(offs != NULL, CS_ERR_NOMEM);
    for (int i = 0; i < s; i++) { /* c counts up from 0 in base r + 1: the zero vector skipped */
        for (int j = d - 1; j >= 0 && ++c[j] > r; j--) {
            c[j] = 0;
        }
        memcpy(&offs[i * d], c, (size_t)d * sizeof(int));
    }
    CS_CHECK(cs_iso_nbh_init(n, d, dims, s, offs));
out:
    free(offs);
    return rc;
}

int cs_bench_pattern_iso(const cs_bench_pattern_t *pat, int p, cs_iso_nbh_t *nbh) {
    int rc = CS_OK, dims[3] = {0, 0, 0}, offs[3 * 2 * 3] = {0};
    memset(nbh, 0, sizeof(*nbh));
    CS_REQUIRE(pat != NULL && p >= 1, CS_ERR_ARG);
    if (pat->kind != CART && pat->kind != ISO_MOORE && pat->kind != ISO_OCTANT) {
        return CS_ERR_NOT_APPLICABLE; /* an answer, not a failure: not logged */
    }
    CS_MPI_CHECK(PMPI_Dims_create(p, pat->ndims, dims));
    switch (pat->kind) {
    case CART: /* core/isocomm.h's order: -e_j, then +e_j */
        for (int j = 0; j < pat->ndims; j++) {
            offs[(2 * j) * pat->ndims + j] = -1;
            offs[(2 * j + 1) * pat->ndims + j] = 1;
        }
        CS_CHECK(cs_iso_nbh_init(nbh, pat->ndims, dims, 2 * pat->ndims, offs));
        break;
    case ISO_MOORE:
        CS_CHECK(cs_iso_nbh_moore(nbh, pat->ndims, dims, pat->radius));
        break;
    default:
        CS_CHECK(octant(nbh, pat->ndims, dims, pat->radius));
    }
out:
    return rc;
}

/* The graph of isomorphic neighbourhood n, as collsel_iso_neighborhood_create makes it: rank
 * R's destinations R + C^i and sources R - C^i, in offset order. */
static int iso_graph(const cs_iso_nbh_t *n, cs_graph_t *g) {
    int rc = CS_OK, *start = NULL, *dst = NULL, *src = NULL;
    size_t total = (size_t)n->p * (size_t)n->s;
    start = malloc(((size_t)n->p + 1) * sizeof(int));
    dst = malloc((total > 0 ? total : 1) * sizeof(int));
    src = malloc((total > 0 ? total : 1) * sizeof(int));
    CS_REQUIRE(start != NULL && dst != NULL && src != NULL, CS_ERR_NOMEM);
    CS_REQUIRE(total <= INT_MAX, CS_ERR_ARG);
    for (int r = 0; r <= n->p; r++) {
        start[r] = r * n->s;
    }
    for (int r = 0; r < n->p; r++) {
        for (int i = 0; i < n->s; i++) {
            dst[r * n->s + i] = cs_iso_shift(n, r, &n->offsets[i * n->d], 1);
            src[r * n->s + i] = cs_iso_shift(n, r, &n->offsets[i * n->d], -1);
        }
    }
    CS_CHECK(cs_graph_from_lists(g, n->p, start, dst, start, src));
out:
    free(start);
    free(dst);
    free(src);
    return rc;
}

int cs_bench_pattern_graph(const cs_bench_pattern_t *pat, int p, cs_graph_t *g) {
    int rc = CS_OK;
    int dims[3] = {0, 0, 0};
    cs_graph_t hot = {0};
    cs_iso_nbh_t nbh = {0};
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(pat != NULL && p >= 1, CS_ERR_ARG);
    if (pat->ndims > 0) {
        CS_MPI_CHECK(PMPI_Dims_create(p, pat->ndims, dims));
    }
    switch (pat->kind) {
    case CART:
        CS_CHECK(cs_graph_cart(g, pat->ndims, dims, NULL));
        break;
    case MOORE:
        CS_CHECK(cs_graph_moore(g, pat->ndims, dims));
        break;
    case RANDOM:
        CS_CHECK(cs_graph_random(g, p, pat->density, RANDOM_SEED));
        break;
    case HOTSPOT:
        CS_CHECK(cs_graph_hotspot(g, p));
        break;
    case SCATTER_HOTSPOT:
        CS_CHECK(cs_graph_hotspot(&hot, p));
        CS_CHECK(cs_graph_transpose(&hot, g));
        break;
    case ISO_MOORE:
    case ISO_OCTANT:
        CS_CHECK(cs_bench_pattern_iso(pat, p, &nbh));
        CS_CHECK(iso_graph(&nbh, g));
        break;
    default:
        CS_REQUIRE(0, CS_ERR_ARG);
    }
out:
    cs_graph_free(&hot);
    cs_iso_nbh_free(&nbh);
    return rc;
}

int cs_bench_pattern_valid(const cs_bench_pattern_t *pat, int p) {
    cs_graph_t g = {0};
    int valid = 0;
    if (cs_bench_pattern_graph(pat, p, &g) != CS_OK) {
        cs_graph_free(&g);
        return 0;
    }
    for (int e = 0; e < g.nedges && !valid; e++) {
        valid = g.edges[e].src != g.edges[e].dst;
    }
    cs_graph_free(&g);
    return valid;
}

int cs_bench_pattern_comm(const cs_bench_pattern_t *pat, MPI_Comm comm, MPI_Comm *topo,
                          cs_graph_sig_t *sig) {
    int rc = CS_OK, rank, p;
    int *dst = NULL, *src = NULL;
    cs_graph_t g = {0};
    cs_iso_nbh_t nbh = {0};
    MPI_Comm cart = MPI_COMM_NULL;
    *topo = MPI_COMM_NULL;
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    CS_MPI_CHECK(PMPI_Comm_size(comm, &p));
    CS_CHECK(cs_bench_pattern_graph(pat, p, &g));
    cs_graph_sig(&g, sig);
    if (pat->cartesian) {
        int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
        CS_MPI_CHECK(PMPI_Dims_create(p, pat->ndims, dims));
        CS_MPI_CHECK(PMPI_Cart_create(comm, pat->ndims, dims, periods, 0, topo));
    } else if (pat->kind == ISO_MOORE || pat->kind == ISO_OCTANT) {
        int periods[3] = {1, 1, 1};
        CS_CHECK(cs_bench_pattern_iso(pat, p, &nbh));
        CS_MPI_CHECK(PMPI_Cart_create(comm, nbh.d, nbh.dims, periods, 0, &cart));
        CS_MPI_CHECK(collsel_iso_neighborhood_create(cart, nbh.s, nbh.offsets, topo));
    } else {
        dst = malloc(((size_t)g.out_slots[rank] + 1) * sizeof(int));
        src = malloc(((size_t)g.in_slots[rank] + 1) * sizeof(int));
        CS_REQUIRE(dst != NULL && src != NULL, CS_ERR_NOMEM);
        cs_graph_neighbours(&g, rank, dst, src);
/* Open MPI's MPI_UNWEIGHTED is a sentinel address that GCC takes for an empty array. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
        CS_MPI_CHECK(PMPI_Dist_graph_create_adjacent(comm, g.in_slots[rank], src, MPI_UNWEIGHTED,
                                                     g.out_slots[rank], dst, MPI_UNWEIGHTED,
                                                     MPI_INFO_NULL, 0, topo));
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    }
out:
    if (cart != MPI_COMM_NULL) {
        PMPI_Comm_free(&cart);
    }
    free(dst);
    free(src);
    cs_graph_free(&g);
    cs_iso_nbh_free(&nbh);
    return rc;
}

int cs_bench_pattern_open(const cs_bench_pattern_t *pat, MPI_Comm comm, size_t max_block_bytes,
                          MPI_Comm *topo, cs_graph_sig_t *sig, cs_bench_bufs_t *nb) {
    int rc = CS_OK;
    cs_comm_t *ctx = NULL;
    const cs_neighbors_t *nbrs = NULL;
    CS_CHECK(cs_bench_pattern_comm(pat, comm, topo, sig));
    CS_CHECK(cs_comm_get(*topo, &ctx));
    CS_CHECK(cs_comm_neighbors(ctx, &nbrs));
    CS_CHECK(cs_bench_bufs_alloc_neighbor(
        nb, max_block_bytes, nbrs->indegree > nbrs->outdegree ? nbrs->indegree : nbrs->outdegree));
out:
    return rc;
}

int cs_bench_pattern_close(MPI_Comm *topo, cs_bench_bufs_t *nb) {
    int rc = CS_OK;
    cs_bench_bufs_free(nb);
    if (*topo != MPI_COMM_NULL) {
        CS_MPI_CHECK(PMPI_Comm_free(topo));
    }
out:
    return rc;
}

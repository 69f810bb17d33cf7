/* The tuning run's named neighbourhood patterns (see patterns.h). */
#include "patterns.h"

#include <stdlib.h>
#include <string.h>

enum { CART, MOORE, RANDOM, HOTSPOT, SCATTER_HOTSPOT };

/* Seed of the random patterns: fixed, so every machine tunes the same graphs. */
#define RANDOM_SEED 0x636f6c6c73656cULL

const cs_bench_pattern_t cs_bench_patterns[] = {
    {"cart2d", "2D periodic Cartesian, von Neumann (4 neighbours)", 2, 1, 0, CART},
    {"cart3d", "3D periodic Cartesian, von Neumann (6 neighbours)", 3, 1, 0, CART},
    {"moore2d", "2D 9-point Moore stencil, distributed graph (8 neighbours)", 2, 0, 0, MOORE},
    {"moore3d", "3D 27-point Moore stencil, distributed graph (26 neighbours)", 3, 0, 0, MOORE},
    {"random10", "random sparse graph, density 10 %", 0, 0, 0.1, RANDOM},
    {"random30", "random sparse graph, density 30 %", 0, 0, 0.3, RANDOM},
    {"random60", "random sparse graph, density 60 %", 0, 0, 0.6, RANDOM},
    {"hotspot", "every rank sends to rank 0 and its ring neighbours", 0, 0, 0, HOTSPOT},
    {"scatter_hotspot", "rank 0 sends to every rank, every rank to its ring neighbours", 0, 0, 0,
     SCATTER_HOTSPOT},
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

int cs_bench_pattern_graph(const cs_bench_pattern_t *pat, int p, cs_graph_t *g) {
    int rc = CS_OK;
    int dims[3] = {0, 0, 0};
    cs_graph_t hot = {0};
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
    default:
        CS_REQUIRE(0, CS_ERR_ARG);
    }
out:
    cs_graph_free(&hot);
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
    *topo = MPI_COMM_NULL;
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    CS_MPI_CHECK(PMPI_Comm_size(comm, &p));
    CS_CHECK(cs_bench_pattern_graph(pat, p, &g));
    cs_graph_sig(&g, sig);
    if (pat->cartesian) {
        int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
        CS_MPI_CHECK(PMPI_Dims_create(p, pat->ndims, dims));
        CS_MPI_CHECK(PMPI_Cart_create(comm, pat->ndims, dims, periods, 0, topo));
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
    free(dst);
    free(src);
    cs_graph_free(&g);
    return rc;
}

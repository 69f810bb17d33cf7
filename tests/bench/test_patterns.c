/* The tuning run's named neighbourhood patterns (bench/patterns.h) under MPI, at the np ctest
 * gives: for every pattern, the communicator's topology is the pattern's graph, and the MPI
 * library's own MPI_Neighbor_alltoall delivers every block where the graph's edges say (the
 * slot pairing the neighbourhood schedules rely on: graph.h, MPI-4.1 section 8.6). Each rank
 * sends value 1000 src + src_slot + 1 in its out-slot src_slot; in-slot j of rank r must then
 * hold that value of the edge the graph pairs with (r, j), and a slot without an edge stays 0.
 * The isomorphic patterns (cart*, iso_*): the communicator carries the pattern's neighbourhood
 * (cs_isocomm_get on it equals cs_bench_pattern_iso), and no other pattern's is isomorphic. */
#include "core/isocomm.h"
#include "patterns.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL (rank %d): ", rank);                                                      \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failed++;                                                                              \
        }                                                                                          \
    } while (0)

/* The isomorphic neighbourhood of the pattern's communicator `topo` against the pattern's. */
static void check_iso(const cs_bench_pattern_t *pat, MPI_Comm topo, int rank, int p) {
    cs_isocomm_t ic;
    cs_iso_nbh_t want;
    int got_rc = cs_isocomm_get(topo, &ic), want_rc = cs_bench_pattern_iso(pat, p, &want);
    int iso = pat->cartesian || strncmp(pat->name, "iso_", 4) == 0;
    CHECK(got_rc == (iso ? CS_OK : CS_ERR_NOT_APPLICABLE) && want_rc == got_rc,
          "%s: cs_isocomm_get %d, cs_bench_pattern_iso %d", pat->name, got_rc, want_rc);
    if (got_rc == CS_OK && want_rc == CS_OK) {
        int same = ic.nbh.d == want.d && ic.nbh.s == want.s && ic.nbh.p == p;
        for (int j = 0; same && j < want.d; j++) {
            same = ic.nbh.dims[j] == want.dims[j];
        }
        for (long k = 0; same && k < (long)want.s * want.d; k++) {
            same = ic.nbh.offsets[k] == want.offsets[k];
        }
        CHECK(same,
              "%s: the communicator's neighbourhood (d %d, s %d) is not the pattern's (d %d, "
              "s %d)",
              pat->name, ic.nbh.d, ic.nbh.s, want.d, want.s);
    }
    cs_isocomm_free(&ic);
    cs_iso_nbh_free(&want);
}

/* The paper's positive octant of radius 3: 63 different offsets in {0..3}^3, none zero. */
static void check_octant(int rank, int p) {
    cs_iso_nbh_t n;
    int k = cs_bench_pattern_find("iso_octant3d_r3"), seen[64] = {0}, ok;
    CHECK(k >= 0, "iso_octant3d_r3 not found");
    if (k < 0 || cs_bench_pattern_iso(&cs_bench_patterns[k], p, &n) != CS_OK) {
        return;
    }
    ok = n.d == 3 && n.s == 63;
    for (int i = 0; ok && i < n.s; i++) {
        const int *c = &n.offsets[i * 3];
        int code = 16 * c[0] + 4 * c[1] + c[2];
        ok = c[0] >= 0 && c[0] <= 3 && c[1] >= 0 && c[1] <= 3 && c[2] >= 0 && c[2] <= 3 &&
             code != 0 && !seen[code];
        seen[code] = 1;
    }
    CHECK(ok, "iso_octant3d_r3: d %d, s %d, not the positive octant of radius 3", n.d, n.s);
    cs_iso_nbh_free(&n);
}

static void check_pattern(const cs_bench_pattern_t *pat, int rank, int p) {
    MPI_Comm topo = MPI_COMM_NULL;
    cs_graph_t g = {0};
    cs_graph_sig_t sig;
    int status, indeg = -1, outdeg = -1, weighted, edges = 0;
    CHECK(cs_bench_pattern_comm(pat, MPI_COMM_WORLD, &topo, &sig) == CS_OK, "%s: comm", pat->name);
    CHECK(cs_bench_pattern_graph(pat, p, &g) == CS_OK, "%s: graph", pat->name);
    if (topo == MPI_COMM_NULL || g.p != p) {
        return;
    }
    int *dst = calloc((size_t)g.out_slots[rank] + 1, sizeof(int));
    int *src = calloc((size_t)g.in_slots[rank] + 1, sizeof(int));
    int *mdst = calloc((size_t)g.out_slots[rank] + 1, sizeof(int));
    int *msrc = calloc((size_t)g.in_slots[rank] + 1, sizeof(int));
    int *sendbuf = calloc((size_t)g.out_slots[rank] + 1, sizeof(int));
    int *recvbuf = calloc((size_t)g.in_slots[rank] + 1, sizeof(int));
    cs_graph_neighbours(&g, rank, dst, src);
    MPI_Topo_test(topo, &status);
    CHECK(status == (pat->cartesian ? MPI_CART : MPI_DIST_GRAPH), "%s: topology kind %d", pat->name,
          status);
    if (pat->cartesian) {
        for (int d = 0; d < pat->ndims; d++) {
            int s, t;
            MPI_Cart_shift(topo, d, 1, &s, &t);
            CHECK(src[2 * d] == s && src[2 * d + 1] == t && dst[2 * d] == s && dst[2 * d + 1] == t,
                  "%s: dimension %d: graph -1 %d +1 %d, MPI_Cart_shift %d %d", pat->name, d,
                  dst[2 * d], dst[2 * d + 1], s, t);
        }
    } else {
        MPI_Dist_graph_neighbors_count(topo, &indeg, &outdeg, &weighted);
        CHECK(indeg == g.in_slots[rank] && outdeg == g.out_slots[rank],
              "%s: degrees in %d out %d, graph %d %d", pat->name, indeg, outdeg, g.in_slots[rank],
              g.out_slots[rank]);
        if (indeg == g.in_slots[rank] && outdeg == g.out_slots[rank]) {
            int *w = calloc((size_t)indeg + (size_t)outdeg + 1, sizeof(int));
            /* weight arrays rather than MPI_UNWEIGHTED, a sentinel GCC takes for an empty array */
            MPI_Dist_graph_neighbors(topo, indeg, msrc, w, outdeg, mdst, w + indeg);
            free(w);
            for (int j = 0; j < outdeg; j++) {
                CHECK(mdst[j] == dst[j], "%s: destination %d is %d, graph %d", pat->name, j,
                      mdst[j], dst[j]);
            }
            for (int j = 0; j < indeg; j++) {
                CHECK(msrc[j] == src[j], "%s: source %d is %d, graph %d", pat->name, j, msrc[j],
                      src[j]);
            }
        }
    }
    for (int j = 0; j < g.out_slots[rank]; j++) {
        sendbuf[j] = 1000 * rank + j + 1;
    }
    MPI_Neighbor_alltoall(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, topo);
    for (int j = 0; j < g.in_slots[rank]; j++) {
        int want = 0;
        for (int k = g.in_start[rank]; k < g.in_start[rank + 1]; k++) {
            const cs_graph_edge_t *e = &g.edges[g.in_edge[k]];
            if (e->dst_slot == j) {
                want = 1000 * e->src + e->src_slot + 1;
            }
        }
        CHECK(recvbuf[j] == want, "%s: in-slot %d holds %d, the graph pairs %d", pat->name, j,
              recvbuf[j], want);
    }
    edges = cs_graph_out_degree(&g, rank);
    MPI_Allreduce(MPI_IN_PLACE, &edges, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sig.p == p && sig.nedges == edges && g.nedges == edges,
          "%s: signature p %d edges %d, counted %d", pat->name, sig.p, sig.nedges, edges);
    check_iso(pat, topo, rank, p);
    free(dst);
    free(src);
    free(mdst);
    free(msrc);
    free(sendbuf);
    free(recvbuf);
    cs_graph_free(&g);
    MPI_Comm_free(&topo);
}

int main(int argc, char **argv) {
    int rank, p, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    CHECK(cs_bench_pattern_find("moore3d") == 3 && cs_bench_pattern_find("nope") == -1 &&
              cs_bench_pattern_find("iso_moore2d_r1") == 9 &&
              cs_bench_pattern_find("iso_octant3d_r3") == 13,
          "cs_bench_pattern_find");
    check_octant(rank, p);
    for (int i = 0; i < cs_bench_npatterns; i++) {
        check_pattern(&cs_bench_patterns[i], rank, p);
    }
    MPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d patterns at np %d, %d failed checks\n", cs_bench_npatterns, p, total);
    }
    MPI_Finalize();
    return total != 0;
}

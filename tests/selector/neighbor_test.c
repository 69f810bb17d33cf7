/* cs_sel_neighbor: what the selector chooses for the neighbourhood collectives on communicators
 * of each kind (docs/neighbor.md), under mpirun with a database from cs_make_rules_db.
 *
 *   cs_sel_neighbor rules    the database has --patterns rules (cart2d: linear, hotspot:
 *                            native): a 2D periodic Cartesian communicator matches cart2d at
 *                            distance 0 and runs linear, a hot spot made by MPI_Dist_graph_create
 *                            matches hotspot at distance 0 and runs native, a 2D 9-point
 *                            stencil (8 neighbours) matches cart2d, the nearer of the two, at a
 *                            distance above 0; neighbor_alltoallv takes its pattern's one
 *                            interval whatever the bytes; a communicator without a topology has
 *                            no rule (native);
 *   cs_sel_neighbor none     the database has no neighbourhood rules: native everywhere;
 *   cs_sel_neighbor forced   COLLSEL_FORCE=neighbor_alltoall/linear: forced on every topology.
 * In every mode the calls' results (collsel_neighbor_alltoall, and collsel_neighbor_alltoallv
 * with a different count per sender, so that ranks have different keys) equal PMPI's. Prints
 * "N checks, F failed" on rank 0; exit status 1 when a check failed. */
#include "collsel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failed, rank;

static void check(int ok, const char *what, const char *text) {
    checks++;
    if (!ok) {
        failed++;
        fprintf(stderr, "rank %d: FAILED: %s: %s\n", rank, what, text);
    }
}

/* explain(coll, bytes) on comm starts with `alg` and contains each of the NULL-ended texts. */
static void expect(MPI_Comm comm, const char *what, const char *coll, size_t bytes, const char *alg,
                   const char *t1, const char *t2) {
    char buf[4096];
    int ok = collsel_explain(coll, bytes, comm, buf, sizeof(buf)) == MPI_SUCCESS;
    ok = ok && strncmp(buf, alg, strlen(alg)) == 0 && buf[strlen(alg)] == ':';
    ok = ok && (t1 == NULL || strstr(buf, t1) != NULL) && (t2 == NULL || strstr(buf, t2) != NULL);
    check(ok, what, buf);
    if (rank == 0) {
        printf("%s %s: %s\n", what, coll, buf);
    }
}

/* collsel_neighbor_alltoall and _alltoallv (count 1 + rank % 3 ints from each sender, known
 * to the receivers from their sources) equal PMPI's on `comm`. */
static void run_calls(MPI_Comm comm, const char *what) {
    int indeg, outdeg, weighted, topo;
    int *src, *dst, *sw, *dw;
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int nd;
        MPI_Cartdim_get(comm, &nd);
        indeg = outdeg = 2 * nd;
    } else {
        MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
    }
    src = malloc((size_t)(indeg + 1) * sizeof(int));
    dst = malloc((size_t)(outdeg + 1) * sizeof(int));
    sw = malloc((size_t)(indeg + 1) * sizeof(int));
    dw = malloc((size_t)(outdeg + 1) * sizeof(int));
    if (topo == MPI_CART) {
        int nd;
        MPI_Cartdim_get(comm, &nd);
        for (int d = 0; d < nd; d++) {
            MPI_Cart_shift(comm, d, 1, &src[2 * d], &src[2 * d + 1]);
        }
        memcpy(dst, src, (size_t)indeg * sizeof(int));
    } else {
        MPI_Dist_graph_neighbors(comm, indeg, src, sw, outdeg, dst, dw);
    }
    int mine = 1 + rank % 3, maxc = 3;
    int *sbuf = malloc((size_t)(outdeg + 1) * maxc * sizeof(int));
    int *r1 = calloc((size_t)(indeg + 1) * maxc, sizeof(int));
    int *r2 = calloc((size_t)(indeg + 1) * maxc, sizeof(int));
    int *sc = malloc((size_t)(outdeg + 1) * sizeof(int)),
        *sd = malloc((size_t)(outdeg + 1) * sizeof(int));
    int *rc = malloc((size_t)(indeg + 1) * sizeof(int)),
        *rd = malloc((size_t)(indeg + 1) * sizeof(int));
    for (int i = 0; i < (outdeg + 1) * maxc; i++) {
        sbuf[i] = rank * 1000 + i;
    }
    check(collsel_neighbor_alltoall(sbuf, 2, MPI_INT, r1, 2, MPI_INT, comm) == MPI_SUCCESS &&
              PMPI_Neighbor_alltoall(sbuf, 2, MPI_INT, r2, 2, MPI_INT, comm) == MPI_SUCCESS &&
              memcmp(r1, r2, (size_t)indeg * 2 * sizeof(int)) == 0,
          what, "neighbor_alltoall differs from PMPI");
    for (int i = 0; i < outdeg; i++) {
        sc[i] = mine;
        sd[i] = i * maxc;
    }
    for (int j = 0; j < indeg; j++) {
        rc[j] = src[j] == MPI_PROC_NULL ? 0 : 1 + src[j] % 3;
        rd[j] = j * maxc;
    }
    memset(r1, 0, (size_t)(indeg + 1) * maxc * sizeof(int));
    memset(r2, 0, (size_t)(indeg + 1) * maxc * sizeof(int));
    check(collsel_neighbor_alltoallv(sbuf, sc, sd, MPI_INT, r1, rc, rd, MPI_INT, comm) ==
                  MPI_SUCCESS &&
              PMPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, r2, rc, rd, MPI_INT, comm) ==
                  MPI_SUCCESS &&
              memcmp(r1, r2, (size_t)indeg * maxc * sizeof(int)) == 0,
          what, "neighbor_alltoallv (a count per sender) differs from PMPI");
    free(src);
    free(dst);
    free(sw);
    free(dw);
    free(sbuf);
    free(r1);
    free(r2);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

int main(int argc, char **argv) {
    int p, dims[2] = {0, 0}, periods[2] = {1, 1};
    const char *mode = argc > 1 ? argv[1] : "";
    int rules = strcmp(mode, "rules") == 0, forced = strcmp(mode, "forced") == 0;
    MPI_Comm cart, hot, moore, plain;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (!rules && !forced && strcmp(mode, "none") != 0) {
        if (rank == 0) {
            fprintf(stderr, "usage: cs_sel_neighbor rules|none|forced\n");
        }
        MPI_Finalize();
        return 2;
    }
    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    {
        /* hot spot: every rank to 0 and to its ring neighbours, as cs_graph_hotspot */
        int d[3], w[3] = {1, 1, 1}, n = 0;
        if (rank != 0) {
            d[n++] = 0;
        }
        d[n++] = (rank + p - 1) % p;
        d[n++] = (rank + 1) % p;
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &n, d, w, MPI_INFO_NULL, 0, &hot);
    }
    {
        /* 2D 9-point stencil on the periodic grid dims */
        /* weights of 1 (MPI_UNWEIGHTED is a sentinel GCC takes for an empty array) */
        int d[8], w[8] = {1, 1, 1, 1, 1, 1, 1, 1}, n = 0, x = rank / dims[1], y = rank % dims[1];
        for (int dx = -1; dx <= 1; dx++) {
            for (int dy = -1; dy <= 1; dy++) {
                if (dx != 0 || dy != 0) {
                    d[n++] =
                        ((x + dx + dims[0]) % dims[0]) * dims[1] + (y + dy + dims[1]) % dims[1];
                }
            }
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, d, w, n, d, w, MPI_INFO_NULL, 0, &moore);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    if (rules) {
        expect(cart, "cart2d", "neighbor_alltoall", 16, "neighbor_alltoall/linear",
               "pattern cart2d", "distance 0.000");
        expect(cart, "cart2d", "neighbor_alltoallv", 12345, "neighbor_alltoallv/linear",
               "pattern cart2d", "one interval");
        expect(hot, "hotspot", "neighbor_alltoall", 16, "neighbor_alltoall/native",
               "pattern hotspot", "distance 0.000");
        expect(hot, "hotspot", "neighbor_alltoallv", 4, "neighbor_alltoallv/native",
               "pattern hotspot", NULL);
        expect(moore, "moore2d", "neighbor_alltoall", 1024, "neighbor_alltoall/linear",
               "pattern cart2d", NULL);
        {
            char buf[4096];
            check(collsel_explain("neighbor_alltoall", 8, moore, buf, sizeof(buf)) == MPI_SUCCESS &&
                      strstr(buf, "distance 0.000") == NULL,
                  "moore2d", "a 9-point stencil is not cart2d: the distance is above 0");
        }
        expect(plain, "no topology", "neighbor_alltoall", 16, "neighbor_alltoall/native", "no rule",
               NULL);
        expect(cart, "cart2d", "neighbor_allgather", 16, "neighbor_allgather/native", "no rule",
               NULL);
    } else if (forced) {
        expect(cart, "cart2d", "neighbor_alltoall", 16, "neighbor_alltoall/linear", "forced", NULL);
        expect(hot, "hotspot", "neighbor_alltoall", 16, "neighbor_alltoall/linear", "forced", NULL);
    } else {
        expect(cart, "cart2d", "neighbor_alltoall", 16, "neighbor_alltoall/native", NULL, NULL);
        expect(hot, "hotspot", "neighbor_alltoallv", 16, "neighbor_alltoallv/native", NULL, NULL);
    }
    run_calls(cart, "cart2d");
    run_calls(hot, "hotspot");
    run_calls(moore, "moore2d");
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d checks, %d failed\n", checks, failed);
    }
    MPI_Comm_free(&cart);
    MPI_Comm_free(&hot);
    MPI_Comm_free(&moore);
    MPI_Comm_free(&plain);
    MPI_Finalize();
    return failed != 0;
}

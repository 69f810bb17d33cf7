/* newcolls: the collectives of issue 15 through an installed libcollsel_pmpi (test_install.sh).
 *
 * An unmodified MPI program: MPI_Alltoall, MPI_Alltoallv, MPI_Barrier,
 * MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Scan, MPI_Exscan, MPI_Gatherv and
 * MPI_Scatterv (linked with libcollsel_pmpi, which defines them) against PMPI_* (the MPI
 * library's own) on identical int buffers: irregular counts with zeros for the v forms (MPI's
 * matching rules kept: alltoallv's sendcounts[b] on a are recvcounts[a] on b), every
 * root for the rooted ones, MPI_SUM. Prints "newcolls: N checks, M failed" on rank 0; exit
 * status 1 when any check failed on any rank. COLLSEL_FORCE and COLLSEL_VERBOSE=3 show which
 * algorithms ran. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 7 /* elements per block */

static int rank, nprocs, checks, failures;

static void check(int ok, const char *what) {
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL (rank %d): %s differs from the MPI library's\n", rank, what);
    }
}

/* Both buffers filled alike: rank, index and salt in each element. */
static void fill(int *a, int *b, int n, int salt) {
    for (int i = 0; i < n; i++) {
        a[i] = b[i] = rank * 1000 + i * 7 + salt;
    }
}

int main(int argc, char **argv) {
    int *s1, *s2, *r1, *r2, *cnt, *dsp, *a2a[4], total[2];
    size_t max;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    max = (size_t)nprocs * N * 2 + 16;
    s1 = calloc(max, sizeof(int));
    s2 = calloc(max, sizeof(int));
    r1 = calloc(max, sizeof(int));
    r2 = calloc(max, sizeof(int));
    cnt = calloc((size_t)nprocs, sizeof(int));
    dsp = calloc((size_t)nprocs, sizeof(int));
    for (int k = 0; k < 4; k++) {
        a2a[k] = calloc((size_t)nprocs, sizeof(int));
        if (a2a[k] == NULL) {
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!s1 || !s2 || !r1 || !r2 || !cnt || !dsp) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* alltoallv: rank a sends (a + 2 b) mod 4 elements to b (zeros among them), packed */
    for (int j = 0, at_s = 0, at_r = 0; j < nprocs; j++) {
        a2a[0][j] = (rank + 2 * j) % 4;
        a2a[2][j] = (j + 2 * rank) % 4;
        a2a[1][j] = at_s;
        a2a[3][j] = at_r;
        at_s += a2a[0][j];
        at_r += a2a[2][j];
    }
    for (int i = 0, at = 0; i < nprocs; i++) { /* every third block empty, the others uneven */
        cnt[i] = i % 3 == 2 ? 0 : i % N + 1;
        dsp[i] = at;
        at += cnt[i] + 1; /* a gap after each block */
    }
    for (int rep = 0; rep < 2; rep++) {
        fill(s1, s2, (int)max, rep);
        memset(r1, 0, max * sizeof(int));
        memset(r2, 0, max * sizeof(int));
        MPI_Alltoall(s1, N, MPI_INT, r1, N, MPI_INT, MPI_COMM_WORLD);
        PMPI_Alltoall(s2, N, MPI_INT, r2, N, MPI_INT, MPI_COMM_WORLD);
        check(memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Alltoall");

        memset(r1, 0, max * sizeof(int));
        memset(r2, 0, max * sizeof(int));
        MPI_Alltoallv(s1, a2a[0], a2a[1], MPI_INT, r1, a2a[2], a2a[3], MPI_INT, MPI_COMM_WORLD);
        PMPI_Alltoallv(s2, a2a[0], a2a[1], MPI_INT, r2, a2a[2], a2a[3], MPI_INT, MPI_COMM_WORLD);
        check(memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Alltoallv");

        check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier's status");

        memset(r1, 0, max * sizeof(int));
        memset(r2, 0, max * sizeof(int));
        MPI_Reduce_scatter_block(s1, r1, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter_block(s2, r2, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Reduce_scatter_block");

        memset(r1, 0, max * sizeof(int));
        memset(r2, 0, max * sizeof(int));
        MPI_Reduce_scatter(s1, r1, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter(s2, r2, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Reduce_scatter");

        memset(r1, 0, max * sizeof(int));
        memset(r2, 0, max * sizeof(int));
        MPI_Scan(s1, r1, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Scan(s2, r2, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Scan");

        memset(r1, 0, max * sizeof(int));
        memset(r2, 0, max * sizeof(int));
        MPI_Exscan(s1, r1, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Exscan(s2, r2, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(rank == 0 || memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Exscan");

        for (int root = 0; root < nprocs; root++) {
            memset(r1, 0, max * sizeof(int));
            memset(r2, 0, max * sizeof(int));
            MPI_Gatherv(s1, cnt[rank], MPI_INT, r1, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
            PMPI_Gatherv(s2, cnt[rank], MPI_INT, r2, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
            check(memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Gatherv");

            memset(r1, 0, max * sizeof(int));
            memset(r2, 0, max * sizeof(int));
            MPI_Scatterv(s1, cnt, dsp, MPI_INT, r1, cnt[rank], MPI_INT, root, MPI_COMM_WORLD);
            PMPI_Scatterv(s2, cnt, dsp, MPI_INT, r2, cnt[rank], MPI_INT, root, MPI_COMM_WORLD);
            check(memcmp(r1, r2, max * sizeof(int)) == 0, "MPI_Scatterv");
        }
    }
    total[0] = checks;
    total[1] = failures;
    PMPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("newcolls: %d checks, %d failed\n", total[0], total[1]);
    }
    free(s1);
    free(s2);
    free(r1);
    free(r2);
    free(cnt);
    free(dsp);
    for (int k = 0; k < 4; k++) {
        free(a2a[k]);
    }
    MPI_Finalize();
    return total[1] > 0 ? 1 : 0;
}

/* cs_overlap_neighbor_test: the neighbourhood collectives' nonblocking rules in use
 * (docs/nonblocking.md "Tuning for overlap"), under mpirun with COLLSEL_DB naming a database
 * that collsel-bench --overlap only tuned on pattern cart2d at this job size, and
 * COLLSEL_VERBOSE=3 (test_overlap_neighbor.sh). On a periodic 2D Cartesian communicator over
 * MPI_COMM_WORLD, the communicator cart2d is made of:
 *   - collsel_prepare makes its context (a nonblocking call never communicates, so it needs
 *     one: docs/nonblocking.md);
 *   - collsel_explain of neighbor_alltoall and neighbor_allgather names their nonblocking rule,
 *     tuned on pattern cart2d at signature distance 0;
 *   - collsel_ineighbor_alltoall and collsel_ineighbor_allgather of N ints per block, completed
 *     by collsel_wait, give PMPI_Neighbor_alltoall's and PMPI_Neighbor_allgather's results.
 * The script greps the log for what each call ran ("(nonblocking rule)"). Rank 0 prints
 * "N failed"; the exit status is 1 when a check failed. */
#include <collsel.h>
#include <mpi.h>

#include <stdio.h>
#include <string.h>

#include "../support/rank_check.h"

#define N 4 /* ints per block: 16 bytes, the tuned block size */

static int rank, failures;

int main(int argc, char **argv) {
    int np, dims[2] = {0, 0}, periods[2] = {1, 1};
    int send[4 * N], want[4 * N], got[4 * N];
    char buf[4096];
    const char *colls[2] = {"neighbor_alltoall", "neighbor_allgather"};
    MPI_Comm cart;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Dims_create(np, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    CHECK(collsel_prepare(cart) == MPI_SUCCESS, "collsel_prepare");
    for (int c = 0; c < 2; c++) {
        CHECK(collsel_explain(colls[c], N * sizeof(int), cart, buf, sizeof(buf)) == MPI_SUCCESS,
              "collsel_explain %s", colls[c]);
        CHECK(strstr(buf, "nonblocking rule [0, inf) tuned on pattern cart2d (signature distance "
                          "0.000)") != NULL,
              "%s: explain names no nonblocking rule of pattern cart2d: %s", colls[c], buf);
    }
    /* Block 2j (to the -1 neighbour of dimension j) equals block 2j + 1 (to the +1 one): on
     * the 2 x 2 torus of np 4 both are one process, and Open MPI 4.1's MPI_Ineighbor_alltoall
     * pairs the two the other way round from its blocking form (docs/nonblocking.md), so
     * whichever candidate the rule names, native or collsel's, gives this result. */
    for (int i = 0; i < 4 * N; i++) {
        send[i] = rank * 1000 + (i / (2 * N)) * 100 + i % N;
    }
    memset(got, 0xff, sizeof(got));
    PMPI_Neighbor_alltoall(send, N, MPI_INT, want, N, MPI_INT, cart);
    CHECK(collsel_ineighbor_alltoall(send, N, MPI_INT, got, N, MPI_INT, cart, &req) ==
                  MPI_SUCCESS &&
              collsel_wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "ineighbor_alltoall");
    CHECK(memcmp(got, want, sizeof(want)) == 0, "ineighbor_alltoall: result");
    memset(got, 0xff, sizeof(got));
    PMPI_Neighbor_allgather(send, N, MPI_INT, want, N, MPI_INT, cart);
    CHECK(collsel_ineighbor_allgather(send, N, MPI_INT, got, N, MPI_INT, cart, &req) ==
                  MPI_SUCCESS &&
              collsel_wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "ineighbor_allgather");
    CHECK(memcmp(got, want, sizeof(want)) == 0, "ineighbor_allgather: result");
    MPI_Comm_free(&cart);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d failed\n", failures);
    }
    MPI_Finalize();
    return failures > 0 ? 1 : 0;
}

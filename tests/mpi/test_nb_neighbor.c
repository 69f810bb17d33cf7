/* cs_mpi_nb_neighbor: neighbourhood algorithms with a per-communicator state (the coloured and
 * balanced schedules, the isomorphic ones) as nonblocking and persistent operations
 * (docs/nonblocking.md), through collsel.h, with the algorithm forced by COLLSEL_FORCE (set by
 * the ctest). On a periodic 2D Cartesian communicator over MPI_COMM_WORLD:
 *   - the first collsel call on it (a blocking neighbor_alltoall) makes its context and, ahead
 *     of nonblocking calls, the forced variant's state (selector/comm.c);
 *   - a persistent collsel_neighbor_alltoall_init must then be collsel's (MPI never sees its
 *     handle complete), started 3 times with new data;
 *   - 8 collsel_ineighbor_alltoall operations outstanding at once, completed by
 *     collsel_waitall in reverse order;
 * every result against PMPI_Neighbor_alltoall's. Rank 0 prints "N failed". */
#include <collsel.h>
#include <mpi.h>

#include <stdio.h>
#include <string.h>

#include "../support/rank_check.h"

#define N    5
#define NOPS 8

static int rank, failures;

static void fill(int *send, int salt) {
    for (int i = 0; i < 4 * N; i++) {
        send[i] = rank * 1000 + salt * 100 + i;
    }
}

int main(int argc, char **argv) {
    int np, dims[2] = {0, 0}, periods[2] = {1, 1}, flag = -1;
    int send[NOPS][4 * N], want[NOPS][4 * N], got[NOPS][4 * N];
    MPI_Comm cart;
    MPI_Request reqs[NOPS], pers = MPI_REQUEST_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Dims_create(np, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    fill(send[0], 0);
    PMPI_Neighbor_alltoall(send[0], N, MPI_INT, want[0], N, MPI_INT, cart);
    CHECK(collsel_neighbor_alltoall(send[0], N, MPI_INT, got[0], N, MPI_INT, cart) == MPI_SUCCESS &&
              memcmp(got[0], want[0], sizeof(want[0])) == 0,
          "blocking neighbor_alltoall");
    /* persistent: collsel's, its state made ahead by the blocking call */
    CHECK(collsel_neighbor_alltoall_init(send[1], N, MPI_INT, got[1], N, MPI_INT, cart,
                                         MPI_INFO_NULL, &pers) == MPI_SUCCESS,
          "neighbor_alltoall_init");
    CHECK(PMPI_Request_get_status(pers, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag,
          "the persistent neighbor_alltoall is not collsel's");
    for (int s = 0; s < 3; s++) {
        fill(send[1], 10 + s);
        memset(got[1], 0xff, sizeof(got[1]));
        PMPI_Neighbor_alltoall(send[1], N, MPI_INT, want[1], N, MPI_INT, cart);
        CHECK(collsel_start(&pers) == MPI_SUCCESS &&
                  collsel_wait(&pers, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "persistent start %d", s);
        CHECK(memcmp(got[1], want[1], sizeof(want[1])) == 0, "persistent start %d: result", s);
    }
    CHECK(collsel_request_free(&pers) == MPI_SUCCESS, "freeing the persistent request");
    /* NOPS outstanding, completed in reverse order */
    for (int k = 0; k < NOPS; k++) {
        fill(send[k], 20 + k);
        memset(got[k], 0xff, sizeof(got[k]));
        PMPI_Neighbor_alltoall(send[k], N, MPI_INT, want[k], N, MPI_INT, cart);
    }
    for (int k = 0; k < NOPS; k++) {
        CHECK(collsel_ineighbor_alltoall(send[k], N, MPI_INT, got[k], N, MPI_INT, cart,
                                         &reqs[NOPS - 1 - k]) == MPI_SUCCESS,
              "ineighbor_alltoall %d", k);
    }
    CHECK(collsel_waitall(NOPS, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "collsel_waitall");
    for (int k = 0; k < NOPS; k++) {
        CHECK(memcmp(got[k], want[k], sizeof(want[k])) == 0, "operation %d: result", k);
    }
    MPI_Comm_free(&cart);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d failed\n", failures);
    }
    MPI_Finalize();
    return failures > 0 ? 1 : 0;
}

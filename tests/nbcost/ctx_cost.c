/* cs-bench-ctxcost: what making communicator contexts ahead costs (docs/nonblocking.md, "Which
 * communicators are served"), run by scripts/ctx-cost, never a test. A plain MPI program, run
 * plain or with libcollsel_pmpi preloaded:
 *   - MPI_Init: the time of the call on each rank (CLOCK_MONOTONIC around it), the slowest
 *     rank's, and of the part collsel adds: the program calls PMPI_Init, then, when
 *     libcollsel_pmpi is loaded, times collsel_prepare(MPI_COMM_WORLD) (found with dlsym), which
 *     is what libcollsel_pmpi's MPI_Init adds to PMPI_Init; init_us is the sum;
 *   - a churn loop (issue 18's shape, docs/selector.md "Short-lived communicators"): --iters
 *     times MPI_Comm_split of MPI_COMM_WORLD into halves, 3 MPI_Allreduce of 8 B and one
 *     MPI_Iallreduce of 8 B on the half, MPI_Comm_free; the slowest rank's time after a barrier.
 * Prints one line: "init_us X loop_s Y iters N prepare_us Z" (rank 0). The barrier and the
 * reductions of the times are PMPI_*, so they make no context themselves. */
#include <mpi.h>

#include <dlfcn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    int rank, iters = 1000;
    double t0 = now(), init_s, loop_s, prepare_s = 0;
    int (*prepare)(MPI_Comm) = NULL;
    PMPI_Init(&argc, &argv);
    init_s = now() - t0;
    *(void **)&prepare = dlsym(RTLD_DEFAULT, "collsel_prepare");
    if (prepare != NULL) {
        t0 = now();
        prepare(MPI_COMM_WORLD);
        prepare_s = now() - t0;
        init_s += prepare_s;
    }
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--iters") == 0) {
            iters = atoi(argv[i + 1]);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    for (int it = 0; it < iters; it++) {
        MPI_Comm half;
        double x = rank, y = 0;
        MPI_Request req;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        for (int k = 0; k < 3; k++) {
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, half);
        }
        MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, half, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Comm_free(&half);
    }
    loop_s = now() - t0;
    PMPI_Reduce(rank == 0 ? MPI_IN_PLACE : &init_s, &init_s, 1, MPI_DOUBLE, MPI_MAX, 0,
                MPI_COMM_WORLD);
    PMPI_Reduce(rank == 0 ? MPI_IN_PLACE : &loop_s, &loop_s, 1, MPI_DOUBLE, MPI_MAX, 0,
                MPI_COMM_WORLD);
    PMPI_Reduce(rank == 0 ? MPI_IN_PLACE : &prepare_s, &prepare_s, 1, MPI_DOUBLE, MPI_MAX, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        printf("init_us %.1f loop_s %.4f iters %d prepare_us %.1f\n", init_s * 1e6, loop_s, iters,
               prepare_s * 1e6);
    }
    MPI_Finalize();
    return 0;
}

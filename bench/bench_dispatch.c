/* cs-bench-dispatch: a loop of collsel_allreduce calls for measuring the selector's per-call
 * cost with callgrind (instructions are repeatable; times on this machine are not).
 *
 * Usage: valgrind --tool=callgrind cs-bench-dispatch [CALLS] [COUNT]
 * then compare the inclusive cost of collsel_allreduce with that of the work it dispatches to
 * (PMPI_Allreduce for native, cs_exec_run for a schedule); scripts/dispatch-cost does this. */
#include "collsel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 1000;
    int count = argc > 2 ? atoi(argv[2]) : 2;
    double in[1024] = {0}, out[1024];
    int rc = 0;
    if (count < 0 || count > 1024 || calls < 1) {
        fprintf(stderr, "usage: cs-bench-dispatch [CALLS >= 1] [COUNT 0..1024]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    collsel_init(NULL);
    for (int i = 0; i < calls; i++) {
        rc |= collsel_allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return rc != MPI_SUCCESS;
}

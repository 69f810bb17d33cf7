/* cs-bench-dispatch: a loop of collsel_allreduce calls for measuring the selector's per-call
 * cost with callgrind (instructions are repeatable; times on this machine are not).
 *
 * Usage: valgrind --tool=callgrind cs-bench-dispatch [CALLS] [COUNT] [scatterv]
 * then compare the inclusive cost of collsel_allreduce with that of the work it dispatches to
 * (PMPI_Allreduce for native, cs_exec_run for a schedule); scripts/dispatch-cost does this.
 * With "scatterv" the loop calls collsel_scatterv instead (COUNT ints to the one rank): a
 * collective that is not cached, whose key is agreed per call unless its rules are native. */
#include "collsel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 1000;
    int count = argc > 2 ? atoi(argv[2]) : 2;
    double in[1024] = {0}, out[1024];
    int rc = 0, scatterv = argc > 3 && strcmp(argv[3], "scatterv") == 0;
    int counts[1] = {count}, displs[1] = {0};
    if (count < 0 || count > 1024 || calls < 1 || (argc > 3 && !scatterv)) {
        fprintf(stderr, "usage: cs-bench-dispatch [CALLS >= 1] [COUNT 0..1024] [scatterv]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    collsel_init(NULL);
    for (int i = 0; i < calls; i++) {
        rc |= scatterv ? collsel_scatterv(in, counts, displs, MPI_INT, out, count, MPI_INT, 0,
                                          MPI_COMM_WORLD)
                       : collsel_allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return rc != MPI_SUCCESS;
}

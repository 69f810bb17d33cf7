/* collsel-bench: the tuning run (see tune.h and docs/tuning.md). */
#include "tune.h"

#include <mpi.h>

int main(int argc, char **argv) {
    int status;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        return 1;
    }
    status = cs_bench_main(argc, argv, NULL, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}

/* collsel-bench: the tuning run (see tune.h and docs/tuning.md). */
#include "tune.h"

#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int status;
    /* Open MPI's coll/tuned honours forced algorithms only with dynamic rules on at MPI_Init:
     * the <coll>/ompi candidates need it (algorithms/ompi/ompi.c). Without a rules file or a
     * forced algorithm Open MPI's default decision stays what it is. A value the user set wins. */
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        return 1;
    }
    status = cs_bench_main(argc, argv, NULL, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}

/* export_probe COLL:BYTES: one MPI_Allreduce (MPI_SUM on MPI_INT) or MPI_Bcast (root 0,
 * MPI_BYTE) of BYTES bytes on MPI_COMM_WORLD and nothing else, for test_export.sh, which runs it
 * under Open MPI's pml/monitoring (OMPI_MCA_pml_monitoring_enable=2, _enable_output=1): Open MPI
 * then prints at MPI_Finalize the internal (collective) messages each rank sent, and the
 * algorithms of one collective send different numbers of them. BYTES: a multiple of 4. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char coll[32];
    long bytes = 0;
    void *buf, *out;
    MPI_Init(&argc, &argv);
    if (argc != 2 || sscanf(argv[1], "%31[a-z]:%ld", coll, &bytes) != 2 || bytes < 4 ||
        bytes % 4 != 0 || (strcmp(coll, "allreduce") != 0 && strcmp(coll, "bcast") != 0)) {
        fprintf(stderr, "usage: export_probe allreduce|bcast:BYTES\n");
        MPI_Finalize();
        return 2;
    }
    buf = calloc((size_t)bytes, 1);
    out = calloc((size_t)bytes, 1);
    if (strcmp(coll, "allreduce") == 0) {
        MPI_Allreduce(buf, out, (int)(bytes / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    free(buf);
    free(out);
    MPI_Finalize();
    return 0;
}

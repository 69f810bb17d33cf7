/* cs_sel_warm: the calls a communicator makes before and after it earns a context and a
 * candidate with a setup (selector/select_int.h "Warm-up", select.h cs_sel_setup_calls), under
 * mpirun with COLLSEL_VERBOSE=3, which logs each call's algorithm; test_selector.sh (group
 * setup) counts the lines.
 *
 *   cs_sel_warm CALLS [COMMS]
 *
 * On each of COMMS (default 1) duplicates of MPI_COMM_WORLD in turn: CALLS allreduces of 4 ints
 * through collsel_allreduce, each result checked against the sum of the ranks' inputs, then the
 * duplicate is freed. Prints "passed" from rank 0; exit status 1 on a wrong result. */
#include "collsel.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, p, bad = 0;
    int calls = argc > 1 ? atoi(argv[1]) : 0, comms = argc > 2 ? atoi(argv[2]) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (calls < 1 || comms < 1) {
        if (rank == 0) {
            fprintf(stderr, "usage: cs_sel_warm CALLS [COMMS]\n");
        }
        MPI_Finalize();
        return 2;
    }
    for (int c = 0; c < comms; c++) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        for (int i = 0; i < calls; i++) {
            int in[4], out[4];
            for (int k = 0; k < 4; k++) {
                in[k] = rank * 10 + k + i;
            }
            collsel_allreduce(in, out, 4, MPI_INT, MPI_SUM, dup);
            for (int k = 0; k < 4; k++) {
                bad |= out[k] != 10 * p * (p - 1) / 2 + p * (k + i);
            }
        }
        MPI_Comm_free(&dup);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s\n", bad ? "wrong results" : "passed");
    }
    MPI_Finalize();
    return bad;
}

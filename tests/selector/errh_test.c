/* cs_sel_errh: errors collsel meets are raised through the caller's communicator's error
 * handler, once, and returned as MPI error codes (issue 18, "Error handlers"); under mpirun,
 * with COLLSEL_FORCE naming the bcast algorithm (test_selector.sh, group errh).
 *
 *   cs_sel_errh
 *
 * On a duplicate of MPI_COMM_WORLD with an error handler that counts its calls and returns:
 * rank 0 broadcasts 8 ints with collsel_bcast while the others expect 4, an erroneous program
 * that MPI reports as a truncation on the receiving ranks. Each receiving rank must get an
 * error code of class MPI_ERR_TRUNCATE and a handler call with that code, exactly once; rank 0
 * must not see more than one handler call. Then, on a fresh duplicate with MPI_ERRORS_RETURN, a
 * correct bcast still works. Prints "passed" from rank 0; exit status 1 otherwise. Nothing else
 * may be printed (the test script checks stderr). */
#include "collsel.h"

#include <stdio.h>

static int handled, handled_code;

static void count_errors(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    handled++;
    handled_code = *code;
}

int main(int argc, char **argv) {
    int rank, p, bad = 0, cls = MPI_SUCCESS, buf[8] = {0};
    MPI_Comm dup;
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    for (int i = 0; i < 8; i++) {
        buf[i] = rank == 0 ? 100 + i : -1;
    }
    int rc = collsel_bcast(buf, rank == 0 ? 8 : 4, MPI_INT, 0, dup);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
    }
    if (rank != 0 && (cls != MPI_ERR_TRUNCATE || handled != 1 || handled_code != rc)) {
        fprintf(stderr, "rank %d: rc %d (class %d), handler called %d times with %d\n", rank, rc,
                cls, handled, handled_code);
        bad = 1;
    }
    if (rank == 0 && (handled > 1 || (rc != MPI_SUCCESS && handled != 1))) {
        fprintf(stderr, "rank 0: rc %d, handler called %d times\n", rc, handled);
        bad = 1;
    }
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    for (int i = 0; i < 8; i++) {
        buf[i] = rank == 0 ? 200 + i : -1;
    }
    rc = collsel_bcast(buf, 8, MPI_INT, 0, dup);
    for (int i = 0; i < 8; i++) {
        bad |= rc != MPI_SUCCESS || buf[i] != 200 + i;
    }
    MPI_Comm_free(&dup);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s\n", bad ? "failed" : "passed");
    }
    MPI_Finalize();
    return bad;
}

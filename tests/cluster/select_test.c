/* cs_cluster_select: what the selector makes of a tuning database on this job's layout
 * (tests/cluster/two_nodes.sh).
 *
 *   mpirun -np N cs_cluster_select [--split K] BYTES...
 *
 * On MPI_COMM_WORLD (with --split K: on the communicator of world ranks 0..K-1 instead), for
 * each BYTES: rank 0 prints "explain BYTES <collsel_explain("allreduce", BYTES)>" on stdout;
 * every rank's explanation must equal rank 0's (the rules are read by one rank and broadcast:
 * the script gives the other ranks a COLLSEL_DB that does not exist); then an allreduce of
 * BYTES / 4 ints (MPI_SUM) through collsel must equal PMPI_Allreduce's, three times (the
 * second and third from the call cache). Prints "N checks, M failed" on rank 0's stdout; exit
 * status 1 when a check failed on any rank. */
#include "collsel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPLAIN_LEN 1024

static long checks, failures;

static void check(int ok, const char *what, int rank) {
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL (world rank %d): %s\n", rank, what);
    }
}

static void test_size(MPI_Comm comm, long bytes, int world_rank) {
    char mine[EXPLAIN_LEN], root[EXPLAIN_LEN], what[2 * EXPLAIN_LEN + 64];
    int rank, count = (int)(bytes / 4);
    int *in = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    int *got = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    int *want = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    if (in == NULL || got == NULL || want == NULL) {
        fprintf(stderr, "cs_cluster_select: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_rank(comm, &rank);
    check(collsel_explain("allreduce", (size_t)bytes, comm, mine, sizeof(mine)) == MPI_SUCCESS,
          "collsel_explain failed", world_rank);
    memcpy(root, mine, sizeof(root));
    MPI_Bcast(root, EXPLAIN_LEN, MPI_CHAR, 0, comm);
    snprintf(what, sizeof(what), "explain differs from rank 0's: '%s' vs '%s'", mine, root);
    check(strcmp(mine, root) == 0, what, world_rank);
    if (rank == 0) {
        printf("explain %ld %s\n", bytes, mine);
    }
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < count; i++) {
            in[i] = (world_rank + 1) * (i % 1000 - 500) + rep;
        }
        check(collsel_allreduce(in, got, count, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS &&
                  PMPI_Allreduce(in, want, count, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS &&
                  memcmp(got, want, (size_t)count * sizeof(int)) == 0,
              "allreduce through collsel differs from PMPI_Allreduce", world_rank);
    }
    free(in);
    free(got);
    free(want);
}

int main(int argc, char **argv) {
    int world_rank, world_size, split = 0, first = 1;
    long total[2];
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (argc > 2 && strcmp(argv[1], "--split") == 0) {
        split = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || (first == 3 && (split < 1 || split > world_size))) {
        if (world_rank == 0) {
            fprintf(stderr, "usage: cs_cluster_select [--split K] BYTES...\n");
        }
        MPI_Finalize();
        return 2;
    }
    collsel_init(NULL);
    if (split > 0) {
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < split ? 0 : MPI_UNDEFINED, world_rank, &comm);
    }
    for (int i = first; comm != MPI_COMM_NULL && i < argc; i++) {
        test_size(comm, atol(argv[i]), world_rank);
    }
    if (comm != MPI_COMM_WORLD && comm != MPI_COMM_NULL) {
        MPI_Comm_free(&comm);
    }
    total[0] = checks;
    total[1] = failures;
    MPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("%ld checks, %ld failed\n", total[0], total[1]);
    }
    MPI_Finalize();
    return total[1] > 0 ? 1 : 0;
}

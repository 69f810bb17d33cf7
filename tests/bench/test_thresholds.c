/* cs_bench_thresholds_find under MPI (np 1): discovery through MPI_T must not fail, whatever the
 * MPI library exposes. What it finds depends on the library and its configuration, so it is
 * printed, not asserted; only the table's invariants are checked (ascending bytes, no zero,
 * every name matching a pattern) and that MPI still works after MPI_T_finalize. */
#include "thresholds.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    cs_bench_thresholds_t t;
    char text[4096];
    int failed = 0, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    if (cs_bench_thresholds_find(&t, MPI_COMM_WORLD) != CS_OK) {
        printf("FAIL: cs_bench_thresholds_find failed\n");
        failed++;
    }
    cs_bench_thresholds_format(&t, text, sizeof(text));
    printf("%s\n", text);
    for (int i = 0; i < t.n; i++) {
        if (t.v[i].bytes == 0 || (i > 0 && t.v[i - 1].bytes > t.v[i].bytes) ||
            !cs_bench_threshold_name(t.v[i].name)) {
            printf("FAIL: entry %d %s=%llu\n", i, t.v[i].name, (unsigned long long)t.v[i].bytes);
            failed++;
        }
    }
    if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS || sum < 1) {
        printf("FAIL: MPI_Allreduce after the discovery\n");
        failed++;
    }
    printf("%d failed\n", failed);
    MPI_Finalize();
    return failed != 0;
}

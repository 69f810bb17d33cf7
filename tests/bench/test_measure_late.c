/* cs_bench_measure_late_test: a point whose every repetition within its budget was late (some
 * rank learnt the synchronised start time after it had passed, sync.h) still keeps at least
 * one repetition of each candidate, under mpirun.
 *
 * A tiny per-point budget on an oversubscribed machine (the default plan's smaller shares,
 * docs/tuning.md) met a start-time lead too short for the communicator: every repetition of
 * the first check was discarded, the budget was spent, and the point stopped with 0
 * repetitions, which the database refuses (the whole run failed). Here the lead starts at
 * 1e-12 s, so the first repetitions are late on every rank but rank 0, and the budget is 0.
 *
 * Usage: mpirun -np N cs_bench_measure_late_test, N >= 2. Rank 0 prints each failed check and
 * "N passed, N failed"; every rank exits 1 when a check failed. */
#include "measure.h"
#include "registry.h"
#include "workload.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, nprocs, passed = 0, failed = 0;
    cs_bench_bufs_t bufs = {0};
    cs_bench_sync_t sync = {0, 0, 0};
    cs_bench_cand_t cands[2];
    cs_call_t call;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    cs_bench_cand_set(&cands[0], cs_registry_native(CS_COLL_BCAST), NULL);
    cs_bench_cand_set(&cands[1], cs_registry_native(CS_COLL_BCAST), NULL);
    if (cs_bench_bufs_alloc(&bufs, 16, nprocs) != CS_OK ||
        cs_bench_call(&call, CS_COLL_BCAST, 16, MPI_COMM_WORLD, &bufs) != CS_OK ||
        cs_bench_sync_init(&sync, MPI_COMM_WORLD) != CS_OK) {
        failed++;
        if (rank == 0) {
            printf("FAIL: setting up the point\n");
        }
    } else {
        sync.lead = 1e-12; /* every start time is past when the others learn it */
        int rc =
            cs_bench_measure(cands, 2, &call, &bufs, 0.0, 1000, 7u, &sync, MPI_COMM_WORLD, NULL);
        if (rank == 0) {
            for (int i = 0; i < 2; i++) {
                int ok = rc == CS_OK && cands[i].nraw >= 1 && cands[i].nloop_raw >= 1;
                passed += ok;
                failed += !ok;
                if (!ok) {
                    printf("FAIL: candidate %d: status %d, %zu sync and %zu loop repetitions, "
                           "want at least 1 each\n",
                           i, rc, cands[i].nraw, cands[i].nloop_raw);
                }
            }
        }
        cs_bench_cands_free(cands, 2);
    }
    cs_bench_bufs_free(&bufs);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}

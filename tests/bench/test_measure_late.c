/* cs_bench_measure_late_test: how cs_bench_measure (bench/measure.c) keeps and spends
 * repetitions, under mpirun.
 *
 * 1. A point whose every repetition within its budget was late (some rank learnt the
 *    synchronised start time after it had passed, sync.h) still keeps at least one repetition
 *    of each candidate. A tiny per-point budget on an oversubscribed machine (the default
 *    plan's smaller shares, docs/tuning.md) met a start-time lead too short for the
 *    communicator: every repetition of the first check was discarded, the budget was spent, and
 *    the point stopped with 0 repetitions, which the database refuses (the whole run failed).
 *    Here the lead starts at 1e-12 s, so the first repetitions are late on every rank but
 *    rank 0, and the budget is 0.
 * 2. A late start loses only the synchronised samples: the loop metric does not use start
 *    times, so every repetition's loop sample is kept (a whole repetition used to be
 *    discarded: 4 in 5 of them with 30 candidates of 1 MiB). Same lead, a budget that lets the
 *    lead grow: each candidate ends with more loop samples than synchronised ones.
 * 3. Racing (measure.h, step 3): a candidate 300 us slower than native per call is retired
 *    after a few repetitions under the default policy and keeps its samples so far, and the
 *    point ends there (only native is left); with racing off (-1) it is timed like native.
 *    Native's call takes microseconds, less than CS_BENCH_RACE_EARLY_US, so the candidate must
 *    not retire before the rank-sum test can tell (CS_BENCH_RACE_MIN samples under the metric
 *    that retires it), however far above native its first ones are. Under 'both' either
 *    metric retires it, and a late start may have cost the synchronised metric a sample (CI
 *    met 4 sync and 5 loop samples), so only one metric is held to CS_BENCH_RACE_MIN.
 *
 * Usage: mpirun -np N cs_bench_measure_late_test, N >= 2. Rank 0 prints each failed check and
 * "N passed, N failed"; every rank exits 1 when a check failed. */
#include "db.h"
#include "measure.h"
#include "registry.h"
#include "workload.h"

#include <mpi.h>
#include <stdio.h>

/* The native bcast, then 300 us of waiting on every rank. */
static int run_slow_bcast(const cs_call_t *call) {
    int rc = cs_algo_run_variant(&(cs_variant_t){.algo = cs_registry_native(CS_COLL_BCAST)}, call);
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 300e-6) {
    }
    return rc;
}

static const cs_algo_t slow_bcast = {
    .name = "bcast/test_slow",
    .coll = CS_COLL_BCAST,
    .desc = "test only: native, then 300 us of waiting",
    .run = run_slow_bcast,
};

static int passed, failed;

static void check(int rank, int ok, const char *what, const cs_bench_cand_t *c, int rc) {
    if (rank != 0) {
        return;
    }
    passed += ok;
    failed += !ok;
    if (!ok) {
        printf("FAIL: %s: %s: status %d, %zu sync and %zu loop repetitions, retired %d\n", what,
               c->name, rc, c->nraw, c->nloop_raw, c->retired);
    }
}

int main(int argc, char **argv) {
    int rank, nprocs;
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
        double lead0 = sync.lead;
        /* 1: every start time is past when the others learn it, no budget */
        sync.lead = 1e-12;
        int rc = cs_bench_measure(cands, 2, &call, &bufs, 0.0, 1000, -1, 7u, &sync, MPI_COMM_WORLD,
                                  NULL);
        for (int i = 0; i < 2; i++) {
            check(rank, rc == CS_OK && cands[i].nraw >= 1 && cands[i].nloop_raw >= 1,
                  "all late, no budget: want a sample of each metric", &cands[i], rc);
        }
        /* 2: late at first, up to 40 repetitions */
        sync.lead = 1e-12;
        rc =
            cs_bench_measure(cands, 2, &call, &bufs, 30.0, 40, -1, 8u, &sync, MPI_COMM_WORLD, NULL);
        for (int i = 0; i < 2; i++) {
            check(rank,
                  rc == CS_OK && cands[i].nraw >= 1 && cands[i].nloop_raw > cands[i].nraw &&
                      cands[i].nloop_raw == cands[0].nloop_raw,
                  "late at first: want every loop sample kept, more than sync ones", &cands[i], rc);
        }
        /* 3: racing on and off */
        sync.lead = lead0;
        cs_bench_cands_free(cands, 2);
        cs_bench_cand_set(&cands[1], &slow_bcast, NULL);
        rc = cs_bench_measure(cands, 2, &call, &bufs, 30.0, 200, CS_DB_METRIC_BOTH, 9u, &sync,
                              MPI_COMM_WORLD, NULL);
        check(rank,
              rc == CS_OK && cands[1].retired && cands[1].nraw >= 1 &&
                  (cands[1].nraw >= CS_BENCH_RACE_MIN || cands[1].nloop_raw >= CS_BENCH_RACE_MIN) &&
                  cands[0].nloop_raw < 200,
              "racing: want the slow candidate retired with its samples (not before the "
              "rank-sum test's samples: native's call is short), and the point ended",
              &cands[1], rc);
        check(rank, rc == CS_OK && !cands[0].retired, "racing: native stays", &cands[0], rc);
        rc =
            cs_bench_measure(cands, 2, &call, &bufs, 30.0, 40, -1, 9u, &sync, MPI_COMM_WORLD, NULL);
        check(rank,
              rc == CS_OK && !cands[1].retired && cands[1].nloop_raw == cands[0].nloop_raw &&
                  cands[1].nloop_raw >= 10,
              "no racing: want the slow candidate timed like native", &cands[1], rc);
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

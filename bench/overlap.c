/* Tuning for overlap: the measurement, the pass and the nonblocking rules (see overlap.h). */
#include "overlap.h"

#include "core/comm.h"
#include "core/log.h"
#include "core/machine.h"
#include "core/nb.h"
#include "patterns.h"
#include "registry.h"
#include "rules.h"
#include "stats.h"
#include "workload.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned cs_bench_overlap_colls(unsigned colls) {
    unsigned out = 0;
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (!cs_coll_agrees((cs_coll_t)c)) {
            out |= colls & (1u << c);
        }
    }
    return out;
}

int cs_bench_overlap_sizes(const uint64_t *sizes, int n, int all, uint64_t *out) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (all || k == 0 || sizes[i] >= out[k - 1] * CS_BENCH_OVERLAP_STEP) {
            out[k++] = sizes[i];
        }
    }
    return k;
}

/* The overlap sizes of the --sizes grid (plain collectives: `block` 0) or of the plan's
 * --block-sizes grid (neighbourhood collectives) into out (capacity CS_BENCH_MAX_LIST). */
static int pass_sizes(const cs_bench_opts_t *o, const cs_bench_plan_t *plan, int block,
                      uint64_t *out) {
    uint64_t grid[CS_BENCH_MAX_LIST];
    int n = block ? plan->nblock_sizes : o->nsizes;
    for (int i = 0; i < n; i++) { /* the grid, not the threshold points */
        grid[i] = block ? plan->block_sizes[i] : o->sizes[i];
    }
    return cs_bench_overlap_sizes(grid, n, o->overlap == CS_BENCH_OVERLAP_ONLY, out);
}

int cs_bench_overlap_points(const cs_bench_opts_t *o, const cs_bench_plan_t *plan) {
    unsigned colls = cs_bench_overlap_colls(o->colls);
    uint64_t sizes[CS_BENCH_MAX_LIST];
    int nsizes = pass_sizes(o, plan, 0, sizes), nblocks = pass_sizes(o, plan, 1, sizes);
    int npoints = 0;
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            if (!(colls & (1u << c)) || plan->nalgos[c] == 0) {
                continue;
            }
            npoints += cs_coll_is_neighbor((cs_coll_t)c)
                           ? cs_bench_plan_npatterns(plan, ci, (cs_coll_t)c) * nblocks
                       : cs_coll_has_data((cs_coll_t)c) ? nsizes
                                                        : 1;
        }
    }
    return npoints;
}

/* --- the compute loop ------------------------------------------------------------------------ */

/* `iters` iterations of dependent floating-point work the compiler cannot remove. */
static void spin(long iters) {
    volatile double x = 1.0;
    for (long i = 0; i < iters; i++) {
        x = x * 1.0000001 + 1e-9;
    }
}

int cs_bench_overlap_calibrate(MPI_Comm comm, double *iters_per_us) {
    int rc = CS_OK;
    long iters = 1000;
    double t = 0;
    spin(iters); /* warm up */
    /* grow until one loop lasts 2 ms, then time it three times and keep the fastest */
    for (;;) {
        double t0 = PMPI_Wtime();
        spin(iters);
        t = PMPI_Wtime() - t0;
        if (t >= 2e-3 || iters > LONG_MAX / 4) {
            break;
        }
        iters *= 2;
    }
    for (int i = 0; i < 3; i++) {
        double t0 = PMPI_Wtime();
        spin(iters);
        double ti = PMPI_Wtime() - t0;
        t = ti < t ? ti : t;
    }
    *iters_per_us = (double)iters / (t * 1e6);
    /* the slowest rank's rate: a loop of compute_us * rate iterations lasts compute_us at least
     * on every rank */
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, iters_per_us, 1, MPI_DOUBLE, MPI_MIN, comm));
out:
    return rc;
}

/* --- one point ------------------------------------------------------------------------------ */

/* What one candidate of a point gives: per repetition (the slowest rank's) the blocking,
 * no-overlap, overlapped and overhead times. */
typedef struct ov_cand {
    int nb;            /* can run as a nonblocking operation here (every rank alike) */
    int failed;        /* its nonblocking result differed from native's, or it failed */
    int differs;       /* native only: the MPI library's own nonblocking result differed from
                        * its blocking one (check_nb); still timed, as the baseline */
    double *t[4];      /* blocking, no overlap, overlapped, overhead; CS_BENCH_OVERLAP_MAX_REPS */
    double med[4];     /* their medians */
    double q1, q3;     /* overhead's quartiles */
    double freed;      /* (no overlap - overhead) / no overlap, in [0, 1] */
    double compute_us; /* of each overlapped run: the pilot's no-overlap median x margin */
    long iters;        /* compute_us of the calibrated loop */
} ov_cand_t;

enum { T_BLOCKING, T_NOOVERLAP, T_OVERLAP, T_OVERHEAD, NT };

/* Starts candidate `c` as a nonblocking operation: native through the MPI library, the others
 * as collsel operations (cs_nb_issue; CS_ERR_NOT_APPLICABLE when it cannot be one). */
static int start(const cs_bench_cand_t *c, cs_comm_t *ctx, const cs_call_t *call,
                 MPI_Request *req) {
    *req = MPI_REQUEST_NULL;
    if (cs_algo_is_native(c->v.algo)) {
        int err = cs_call_istart(call, &cs_native_ifns, req);
        return err == MPI_SUCCESS ? CS_OK : cs_status_mpi(err);
    }
    return cs_nb_issue(ctx, &c->v, call, req);
}

static int wait_req(MPI_Request *req) {
    int err = cs_nb_wait(req, MPI_STATUS_IGNORE);
    return err == MPI_SUCCESS ? CS_OK : cs_status_mpi(err);
}

/* One overlapped run of `c`: started, `iters` iterations of computation in chunks of `chunk`
 * with a test after each until the request completes, then waited for. *total_s is the whole
 * run, *compute_s the computation alone (timed around each chunk). */
static int overlapped(const cs_bench_cand_t *c, cs_comm_t *ctx, const cs_call_t *call, long iters,
                      long chunk, double *total_s, double *compute_s) {
    int rc = CS_OK, flag = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    double tc = 0, t0 = PMPI_Wtime();
    CS_CHECK(start(c, ctx, call, &req));
    for (long done = 0; done < iters;) {
        long k = iters - done < chunk ? iters - done : chunk;
        double c0 = PMPI_Wtime();
        spin(k);
        tc += PMPI_Wtime() - c0;
        done += k;
        if (!flag) {
            int err = cs_nb_test(&req, &flag, MPI_STATUS_IGNORE);
            CS_REQUIRE(err == MPI_SUCCESS, cs_status_mpi(err));
        }
    }
    if (!flag) {
        CS_CHECK(wait_req(&req));
    }
    *total_s = PMPI_Wtime() - t0;
    *compute_s = tc;
out:
    return rc;
}

/* Which candidates can run as nonblocking operations, and do they give native's result: each
 * run once as an operation on freshly filled inputs, compared with native's blocking result
 * (bit-exact, as measure.c verifies). Every rank learns the same. Native's own nonblocking
 * form (the MPI library's MPI_I<coll>) that gives another result is not failed but marked
 * `differs`: it is what the application's call gets without collsel, so it stays the
 * baseline. (Open MPI 4.1's MPI_Ineighbor_alltoall pairs the two blocks between the same two
 * ranks of a periodic Cartesian dimension of size 2 the other way round from its blocking
 * MPI_Neighbor_alltoall, which pairs them as MPI-4 says: docs/nonblocking.md.) */
static int check_nb(cs_bench_cand_t *cands, ov_cand_t *ov, int ncand, const cs_call_t *call,
                    cs_comm_t *ctx, cs_bench_bufs_t *b, unsigned seed, MPI_Comm comm) {
    int rc = CS_OK;
    size_t nout = cs_bench_output_count(call);
    /* The state of every candidate with a setup that can be an operation (orth: the line
     * communicators), made now, collectively and outside the timing, as the selector makes it
     * ahead of nonblocking calls: an operation never makes one (core/nb.h). Where the variant
     * does not fit (CS_ERR_NOT_APPLICABLE on every rank) its operations are refused. */
    for (int i = 0; i < ncand; i++) {
        const cs_algo_t *a = cands[i].v.algo;
        const cs_state_t *state = NULL;
        cs_comm_sched_t *entry = NULL;
        int st = CS_OK;
        if (a->setup == NULL || !cs_nb_may_run(a)) {
            continue;
        }
        if (a->reqs & CS_REQ_NODES) { /* the window too, as large as this call needs */
            st = cs_algo_applicable(a, call);
            st = st == CS_OK ? cs_algo_prepare(a, &cands[i].v.params, call, ctx, &entry) : st;
        } else {
            st = cs_comm_state(ctx, a, &cands[i].v.params, &state);
        }
        CS_REQUIRE(st == CS_OK || st == CS_ERR_NOT_APPLICABLE, st);
    }
    cs_bench_fill(call, b, seed);
    CS_CHECK(cs_algo_run_variant(&cands[0].v, call));
    memcpy(b->ref, b->recv, nout * sizeof(int));
    for (int i = 0; i < ncand; i++) {
        int st = CS_ERR_NOT_APPLICABLE, flags[3];
        MPI_Request req = MPI_REQUEST_NULL;
        if (cs_algo_applicable(cands[i].v.algo, call) == CS_OK) {
            cs_bench_fill(call, b, seed);
            st = start(&cands[i], ctx, call, &req);
            if (st == CS_OK) {
                st = wait_req(&req);
            }
        }
        flags[0] = st != CS_ERR_NOT_APPLICABLE; /* any rank: it ran */
        flags[1] = st != CS_OK && st != CS_ERR_NOT_APPLICABLE;
        flags[2] = st == CS_OK && memcmp(b->recv, b->ref, nout * sizeof(int)) != 0;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, flags, 3, MPI_INT, MPI_LOR, comm));
        ov[i].nb = flags[0];
        ov[i].differs = i == 0 && flags[2];
        /* failed or wrong somewhere, or an operation on some ranks only */
        ov[i].failed = flags[1] || (i > 0 && flags[2]) || (flags[0] && st == CS_ERR_NOT_APPLICABLE);
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ov[i].failed, 1, MPI_INT, MPI_LOR, comm));
    }
out:
    return rc;
}

/* Times the blocking, no-overlap and overlapped runs of candidate c into vals[0..3] (this
 * rank's; overhead = overlapped - computation). */
static int time_cand(const cs_bench_cand_t *c, cs_comm_t *ctx, const cs_call_t *call, long iters,
                     long chunk, MPI_Comm comm, double *vals) {
    int rc = CS_OK;
    MPI_Request req = MPI_REQUEST_NULL;
    double t0, total = 0, compute = 0;
    CS_MPI_CHECK(PMPI_Barrier(comm));
    t0 = PMPI_Wtime();
    CS_CHECK(cs_algo_run_variant(&c->v, call));
    vals[T_BLOCKING] = (PMPI_Wtime() - t0) * 1e6;
    CS_MPI_CHECK(PMPI_Barrier(comm));
    t0 = PMPI_Wtime();
    CS_CHECK(start(c, ctx, call, &req));
    CS_CHECK(wait_req(&req));
    vals[T_NOOVERLAP] = (PMPI_Wtime() - t0) * 1e6;
    if (iters > 0) {
        CS_MPI_CHECK(PMPI_Barrier(comm));
        CS_CHECK(overlapped(c, ctx, call, iters, chunk, &total, &compute));
        vals[T_OVERLAP] = total * 1e6;
        vals[T_OVERHEAD] = (total - compute) * 1e6;
    }
out:
    return rc;
}

/* The computation of each usable candidate's overlapped runs: the median of the slowest rank's
 * no-overlap time in CS_BENCH_OVERLAP_PILOT runs times CS_BENCH_OVERLAP_MARGIN (ov[i].compute_us)
 * and its iterations of the loop at `rate` per microsecond (ov[i].iters). */
static int pilot(cs_bench_cand_t *cands, ov_cand_t *ov, int ncand, cs_comm_t *ctx,
                 const cs_call_t *call, double rate, MPI_Comm comm) {
    int rc = CS_OK;
    double vals[NT];
    for (int i = 0; i < ncand; i++) {
        double t[CS_BENCH_OVERLAP_PILOT];
        if (!ov[i].nb || ov[i].failed) {
            continue;
        }
        for (int k = 0; k < CS_BENCH_OVERLAP_PILOT; k++) {
            CS_CHECK(time_cand(&cands[i], ctx, call, 0, 1, comm, vals));
            t[k] = vals[T_NOOVERLAP];
        }
        CS_MPI_CHECK(
            PMPI_Allreduce(MPI_IN_PLACE, t, CS_BENCH_OVERLAP_PILOT, MPI_DOUBLE, MPI_MAX, comm));
        CS_CHECK(cs_stats_sort(t, CS_BENCH_OVERLAP_PILOT));
        ov[i].compute_us = t[CS_BENCH_OVERLAP_PILOT / 2] * CS_BENCH_OVERLAP_MARGIN;
        ov[i].iters = (long)ceil(ov[i].compute_us * rate);
        ov[i].iters = ov[i].iters < 1 ? 1 : ov[i].iters;
    }
out:
    return rc;
}

/* Measures one point: ov[i] for every candidate; *reps the repetitions kept. Repetitions stop
 * after CS_BENCH_OVERLAP_MAX_REPS, or once at least CS_BENCH_OVERLAP_MIN_REPS took `budget_s`,
 * or, with fewer (too few for a candidate to win: native keeps the size), when one more would
 * end after `deadline` (rank 0's PMPI_Wtime; 0: none), the end of the pass's share of the
 * budget. */
static int measure_point(cs_bench_cand_t *cands, ov_cand_t *ov, int ncand, const cs_call_t *call,
                         cs_bench_bufs_t *b, double budget_s, double deadline, unsigned seed,
                         double rate, MPI_Comm comm, int *reps) {
    int rc = CS_OK, rank, stop = 0, kept = 0;
    int order[CS_BENCH_MAX_CANDS];
    double vals[NT * CS_BENCH_MAX_CANDS];
    double start_s = PMPI_Wtime();
    long chunk;
    cs_comm_t *ctx = NULL;
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    CS_REQUIRE(ncand <= CS_BENCH_MAX_CANDS, CS_ERR_ARG);
    CS_CHECK(cs_comm_get(call->comm, &ctx));
    CS_CHECK(check_nb(cands, ov, ncand, call, ctx, b, seed, comm));
    CS_REQUIRE(ov[0].nb && !ov[0].failed, CS_ERR_MPI); /* native must run */
    CS_CHECK(pilot(cands, ov, ncand, ctx, call, rate, comm));
    chunk = (long)ceil(CS_BENCH_OVERLAP_TEST_US * rate);
    chunk = chunk < 1 ? 1 : chunk;
    for (int r = 0; r < CS_BENCH_OVERLAP_MAX_REPS && !stop; r++) {
        memset(vals, 0, sizeof(vals));
        cs_bench_order(seed, r, order, ncand);
        for (int k = 0; k < ncand; k++) {
            int i = order[k];
            if (ov[i].nb && !ov[i].failed) {
                CS_CHECK(time_cand(&cands[i], ctx, call, ov[i].iters, chunk, comm, &vals[NT * i]));
            }
        }
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, vals, NT * ncand, MPI_DOUBLE, MPI_MAX, comm));
        for (int i = 0; i < ncand; i++) {
            for (int m = 0; m < NT; m++) {
                ov[i].t[m][kept] = vals[NT * i + m];
            }
        }
        kept++;
        if (rank == 0) {
            double now = PMPI_Wtime(), per_rep = (now - start_s) / kept;
            stop = (kept >= CS_BENCH_OVERLAP_MIN_REPS && now - start_s >= budget_s) ||
                   (deadline > 0 && now + per_rep > deadline);
        }
        CS_MPI_CHECK(PMPI_Bcast(&stop, 1, MPI_INT, 0, comm));
    }
    *reps = kept;
    for (int i = 0; i < ncand; i++) {
        cs_stats_summary_t s;
        double x[CS_BENCH_OVERLAP_MAX_REPS]; /* a sorted copy: t[] stays as timed */
        if (!ov[i].nb || ov[i].failed) {
            continue;
        }
        for (int m = 0; m < NT; m++) {
            memcpy(x, ov[i].t[m], (size_t)kept * sizeof(double));
            CS_CHECK(cs_stats_summarize(x, (size_t)kept, &s));
            ov[i].med[m] = s.median;
            if (m == T_OVERHEAD) {
                ov[i].q1 = s.q1;
                ov[i].q3 = s.q3;
            }
        }
        ov[i].freed =
            ov[i].med[T_NOOVERLAP] > 0
                ? (ov[i].med[T_NOOVERLAP] - ov[i].med[T_OVERHEAD]) / ov[i].med[T_NOOVERLAP]
                : 0;
        ov[i].freed = ov[i].freed < 0 ? 0 : ov[i].freed > 1 ? 1 : ov[i].freed;
    }
out:
    return rc;
}

/* Rank 0: the point's rows (`pattern`: the neighbourhood pattern, else ""), in one
 * transaction. */
static int store_point(cs_bench_run_t *r, const cs_bench_cand_t *cands, const ov_cand_t *ov,
                       int ncand, cs_coll_t coll, const char *pattern, int n, int ppn,
                       uint64_t bytes, int reps) {
    int rc = CS_OK, open = 0;
    CS_CHECK(cs_db_begin(r->db));
    open = 1;
    for (int i = 0; i < ncand; i++) {
        if (!ov[i].nb || ov[i].failed) {
            continue;
        }
        cs_db_overlap_t row = {
            .point = {cs_coll_name(coll), cands[i].v.algo->name, cands[i].params, n, ppn, bytes,
                      pattern},
            .reps = reps,
            .compute_us = ov[i].compute_us,
            .blocking_us = ov[i].med[T_BLOCKING],
            .nooverlap_us = ov[i].med[T_NOOVERLAP],
            .overlap_us = ov[i].med[T_OVERLAP],
            .overhead_us = ov[i].med[T_OVERHEAD],
            .overhead_q1_us = ov[i].q1,
            .overhead_q3_us = ov[i].q3,
            .freed = ov[i].freed,
            .samples_us = ov[i].t[T_OVERHEAD],
            .nsamples = (size_t)reps,
        };
        CS_CHECK(cs_db_insert_overlap(r->db, r->run_id, &row));
    }
    CS_CHECK(cs_db_commit(r->db));
    open = 0;
out:
    if (open && cs_db_rollback(r->db) != CS_OK) {
        cs_log(CS_LOG_WARN, "rollback failed: %s", cs_db_errmsg(r->db));
    }
    return rc;
}

/* Rank 0 (--overlap only): the point as a table on stdout, and the best collsel candidate
 * (least overhead) against native. */
static void print_point(const cs_bench_cand_t *cands, const ov_cand_t *ov, int ncand,
                        cs_coll_t coll, const char *pattern, int n, uint64_t bytes, int reps) {
    char size[32];
    int best = -1;
    cs_bench_format_bytes(bytes, size, sizeof(size));
    printf("\n%s%s%s np=%d %s B%s: %d repetitions, medians of the slowest rank (overlapped: "
           "started, then the compute loop, testing every %.0f us, then waited)\n",
           cs_coll_name(coll), pattern[0] ? " on pattern " : "", pattern, n, size,
           pattern[0] ? " per block" : "", reps, CS_BENCH_OVERLAP_TEST_US);
    printf("  %-44s %11s %11s %11s %11s %11s %6s\n", "candidate", "blocking", "no-overlap",
           "compute", "overlapped", "overhead", "freed");
    for (int i = 0; i < ncand; i++) {
        if (!ov[i].nb) {
            continue;
        }
        if (ov[i].failed) {
            printf("  %-44s FAILED (result differs from native, or an error)\n", cands[i].name);
            continue;
        }
        printf("  %-44s %8.2f us %8.2f us %8.2f us %8.2f us %8.2f us %5.1f%%\n",
               i == 0 ? "native (MPI_I*, libnbc)" : cands[i].name, ov[i].med[T_BLOCKING],
               ov[i].med[T_NOOVERLAP], ov[i].compute_us, ov[i].med[T_OVERLAP],
               ov[i].med[T_OVERHEAD], 100 * ov[i].freed);
        if (i > 0 && (best < 0 || ov[i].med[T_OVERHEAD] < ov[best].med[T_OVERHEAD])) {
            best = i;
        }
    }
    if (best > 0) {
        printf("  best collsel: %s: overhead %.2f us, freed %.1f%%; native libnbc: overhead "
               "%.2f us, freed %.1f%% (x%.2f)\n",
               cands[best].name, ov[best].med[T_OVERHEAD], 100 * ov[best].freed,
               ov[0].med[T_OVERHEAD], 100 * ov[0].freed,
               ov[best].med[T_OVERHEAD] > 0 ? ov[0].med[T_OVERHEAD] / ov[best].med[T_OVERHEAD] : 0);
    } else {
        printf("  no collsel candidate runs as a nonblocking operation here\n");
    }
    fflush(stdout);
}

static void ov_free(ov_cand_t *ov, int ncand) {
    for (int i = 0; i < ncand; i++) {
        for (int m = 0; m < NT; m++) {
            free(ov[i].t[m]);
        }
    }
    memset(ov, 0, (size_t)ncand * sizeof(*ov));
}

/* Rank 0: the collectives (a bit each) whose native nonblocking form was said to differ from
 * its blocking one in this process's pass (overlap_point), so that it is said once each. */
static unsigned differs_said;

/* One point of collective c at `bytes` on `sub` (n processes, ppn per node): skipped when a
 * resumed run has it, else measured and stored. The call runs on `call_comm`: `sub`, or for a
 * neighbourhood collective the communicator of pattern `pattern` ("" for the others) over the
 * same ranks, `bytes` bytes per block (the point's key, as bench/tune.c run_point's). Collective
 * over sub; every rank returns the same status. */
static int overlap_point(cs_bench_cand_t *cands, int ncand, cs_coll_t c, const char *pattern,
                         uint64_t bytes, cs_bench_run_t *r, int rank, int n, int ppn, MPI_Comm sub,
                         MPI_Comm call_comm, cs_bench_bufs_t *bufs, double budget_s,
                         double deadline, double rate, int print) {
    int rc = CS_OK, shared[2] = {CS_OK, 0}, reps = 0, nbr = cs_coll_is_neighbor(c);
    cs_call_t call;
    uint64_t key;
    ov_cand_t ov[CS_BENCH_MAX_CANDS];
    unsigned seed = (unsigned)c * 2654435761u + (unsigned)(bytes / 4) * 40503u + (unsigned)n;
    for (const char *t = pattern; *t != '\0'; t++) {
        seed = seed * 31u + (unsigned char)*t;
    }
    memset(ov, 0, sizeof(ov));
    CS_REQUIRE(ncand <= CS_BENCH_MAX_CANDS, CS_ERR_ARG);
    /* neighbourhood collectives: `bytes` bytes per block of MPI_BYTE; the others MPI_INT */
    CS_CHECK(cs_bench_call(&call, c, (int)(nbr ? bytes : bytes / sizeof(int)), call_comm, bufs));
    /* a neighbourhood v or w call's own key is 0 on a rank without edges (call.h) */
    key = nbr ? bytes : call.bytes;
    if (rank == 0) {
        bool exists = false;
        cs_db_point_t pt = {cs_coll_name(c), cs_registry_native(c)->name, "", n, ppn, key, pattern};
        shared[0] = cs_db_overlap_exists(r->db, r->run_id, &pt, &exists);
        shared[1] = exists;
    }
    CS_MPI_CHECK(PMPI_Bcast(shared, 2, MPI_INT, 0, sub));
    CS_CHECK(shared[0]);
    if (shared[1]) {
        goto out;
    }
    for (int i = 0; i < ncand; i++) {
        for (int m = 0; m < NT; m++) {
            ov[i].t[m] = calloc(CS_BENCH_OVERLAP_MAX_REPS, sizeof(double));
        }
        CS_REQUIRE(ov[i].t[0] && ov[i].t[1] && ov[i].t[2] && ov[i].t[3], CS_ERR_NOMEM);
    }
    CS_CHECK(
        measure_point(cands, ov, ncand, &call, bufs, budget_s, deadline, seed, rate, sub, &reps));
    if (rank == 0) {
        if (ov[0].differs && !(differs_said & (1u << c))) { /* once per collective and run */
            differs_said |= 1u << c;
            cs_bench_say(rank,
                         "warning: %s%s%s np=%d %llu B: the MPI library's nonblocking %s gives "
                         "another result than its blocking one; timed as the baseline all the "
                         "same (collsel's candidates are checked against the blocking one; "
                         "further points of %s where it does are not listed)",
                         cs_coll_name(c), pattern[0] ? " on pattern " : "", pattern, n,
                         (unsigned long long)key, cs_coll_name(c), cs_coll_name(c));
        }
        shared[0] = store_point(r, cands, ov, ncand, c, pattern, n, ppn, key, reps);
        if (print) {
            print_point(cands, ov, ncand, c, pattern, n, key, reps);
        }
    }
    CS_MPI_CHECK(PMPI_Bcast(shared, 1, MPI_INT, 0, sub));
    CS_CHECK(shared[0]);
out:
    ov_free(ov, CS_BENCH_MAX_CANDS);
    return rc;
}

/* Where the pass stands: its clock, budget and compute rate, the points done of npoints, those
 * skipped because the budget was spent. */
typedef struct ov_pace {
    double start_s, budget_s, rate;
    int npoints, done, skipped, print, quiet;
} ov_pace_t;

/* One point of the pass (overlap_point's arguments): its share of what is left of the budget
 * (rank 0's clock, broadcast over sub; without --budget CS_BENCH_OVERLAP_POINT_S), the
 * progress line on a terminal, then measured unless the budget is spent. */
static int paced_point(ov_pace_t *pc, cs_bench_plan_t *plan, cs_coll_t c, const char *pattern,
                       uint64_t bytes, cs_bench_run_t *r, int rank, int n, int ppn, MPI_Comm sub,
                       MPI_Comm call_comm, cs_bench_bufs_t *bufs) {
    int rc = CS_OK;
    double left = pc->budget_s - (PMPI_Wtime() - pc->start_s);
    double point_s = pc->budget_s > 0
                         ? left / (pc->npoints - pc->done > 0 ? pc->npoints - pc->done : 1)
                         : CS_BENCH_OVERLAP_POINT_S;
    if (rank == 0 && !pc->print && !pc->quiet && isatty(STDERR_FILENO)) {
        char text[32];
        cs_bench_format_bytes(bytes, text, sizeof(text));
        fprintf(stderr, "\rcollsel-bench: overlap %s%s%s np=%d %s B (%d/%d)        ",
                cs_coll_name(c), pattern[0] ? " " : "", pattern, n, text, pc->done + 1,
                pc->npoints);
    }
    CS_MPI_CHECK(PMPI_Bcast(&point_s, 1, MPI_DOUBLE, 0, sub));
    pc->done++;
    if (pc->budget_s > 0 && point_s <= 0) { /* the pass's share of --budget is spent */
        pc->skipped++;
        return CS_OK;
    }
    rc = overlap_point(plan->cands[c], plan->ncands[c], c, pattern, bytes, r, rank, n, ppn, sub,
                       call_comm, bufs, point_s, pc->budget_s > 0 ? pc->start_s + pc->budget_s : 0,
                       pc->rate, pc->print);
out:
    return rc;
}

/* 1 when the pass measures neighbourhood collective c on pattern `pat`. */
static int measures_neighbor(const cs_bench_plan_t *plan, unsigned colls, int c,
                             const cs_bench_pattern_t *pat) {
    return cs_coll_is_neighbor((cs_coll_t)c) && (colls & (1u << c)) && plan->nalgos[c] > 0 &&
           cs_bench_pattern_tunes(pat, (cs_coll_t)c);
}

/* The neighbourhood collectives' points at communicator size index ci (n processes, ppn per
 * node; collective over sub) at block sizes sizes[0..nsizes-1]: per pattern planned there, its
 * communicator opened over sub (cs_bench_pattern_open) and its signature stored by rank 0, as
 * the blocking pass does (bench/tune.c run_neighbor); then sizes outside, collectives inside. */
static int neighbor_points(ov_pace_t *pc, cs_bench_plan_t *plan, int ci, unsigned colls,
                           const uint64_t *sizes, int nsizes, cs_bench_run_t *r, int rank, int n,
                           int ppn, MPI_Comm sub) {
    int rc = CS_OK;
    MPI_Comm topo = MPI_COMM_NULL;
    cs_bench_bufs_t nb = {0};
    for (int k = 0; k < cs_bench_npatterns && nsizes > 0; k++) {
        const cs_bench_pattern_t *pat = &cs_bench_patterns[k];
        cs_graph_sig_t sig;
        int any = 0, stored = CS_OK;
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            any |= measures_neighbor(plan, colls, c, pat);
        }
        if (!(plan->patterns_at[ci] & (1u << k)) || !any) {
            continue;
        }
        CS_CHECK(cs_bench_pattern_open(pat, sub, (size_t)sizes[nsizes - 1], &topo, &sig, &nb));
        if (rank == 0) { /* the signature the selector matches communicators against */
            stored = cs_bench_run_put_pattern(r, pat, n, &sig);
        }
        CS_MPI_CHECK(PMPI_Bcast(&stored, 1, MPI_INT, 0, sub));
        CS_CHECK(stored);
        for (int si = 0; si < nsizes; si++) {
            for (int c = 0; c < CS_COLL_COUNT; c++) {
                if (measures_neighbor(plan, colls, c, pat)) {
                    CS_CHECK(paced_point(pc, plan, (cs_coll_t)c, pat->name, sizes[si], r, rank, n,
                                         ppn, sub, topo, &nb));
                }
            }
        }
        CS_CHECK(cs_bench_pattern_close(&topo, &nb));
    }
out:
    (void)cs_bench_pattern_close(&topo, &nb); /* after a failure: rc says it already */
    return rc;
}

int cs_bench_overlap_pass(const cs_bench_opts_t *o, cs_bench_plan_t *plan, cs_bench_run_t *r,
                          int rank, MPI_Comm world, double budget_s, int print) {
    int rc = CS_OK, nsizes, nblocks;
    unsigned colls = cs_bench_overlap_colls(o->colls);
    uint64_t sizes[CS_BENCH_MAX_LIST], blocks[CS_BENCH_MAX_LIST];
    ov_pace_t pc = {PMPI_Wtime(), budget_s, 0, 0, 0, 0, print, o->quiet};
    MPI_Comm sub = MPI_COMM_NULL;
    cs_bench_bufs_t bufs = {0};
    nsizes = pass_sizes(o, plan, 0, sizes);
    nblocks = pass_sizes(o, plan, 1, blocks);
    pc.npoints = cs_bench_overlap_points(o, plan);
    if (pc.npoints == 0) {
        return CS_OK;
    }
    CS_CHECK(cs_bench_overlap_calibrate(world, &pc.rate));
    if (!o->quiet) {
        cs_bench_say(rank,
                     "overlap: %d point(s), compute loop %.1f iterations/us (slowest rank), a "
                     "test every %.0f us of it%s",
                     pc.npoints, pc.rate, CS_BENCH_OVERLAP_TEST_US,
                     budget_s > 0 ? "" : ", no --budget: about 1 s per point");
    }
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci], ppn = 0, verdict;
        CS_MPI_CHECK(PMPI_Comm_split(world, rank < n ? 0 : MPI_UNDEFINED, rank, &sub));
        if (sub != MPI_COMM_NULL) {
            rc = cs_machine_node_size(sub, &ppn);
            rc = rc == CS_OK ? cs_bench_plan_expand(plan, n, ppn, rank) : rc;
            rc = rc == CS_OK
                     ? cs_bench_bufs_alloc(&bufs, (size_t)(sizes[nsizes - 1] / sizeof(int)), n)
                     : rc;
        }
        /* sizes outside, collectives inside: a budget spent early cuts the largest sizes of
         * every collective, not every size of the last ones */
        for (int si = 0; si < nsizes && sub != MPI_COMM_NULL && rc == CS_OK; si++) {
            for (int c = 0; c < CS_COLL_COUNT && rc == CS_OK; c++) {
                if (!(colls & (1u << c)) || plan->nalgos[c] == 0 ||
                    cs_coll_is_neighbor((cs_coll_t)c) ||
                    (si > 0 && !cs_coll_has_data((cs_coll_t)c))) {
                    continue;
                }
                rc = paced_point(&pc, plan, (cs_coll_t)c, "",
                                 cs_coll_has_data((cs_coll_t)c) ? sizes[si] : 0, r, rank, n, ppn,
                                 sub, sub, &bufs);
            }
        }
        if (sub != MPI_COMM_NULL && rc == CS_OK) {
            rc = neighbor_points(&pc, plan, ci, colls, blocks, nblocks, r, rank, n, ppn, sub);
        }
        cs_bench_bufs_free(&bufs);
        if (sub != MPI_COMM_NULL) {
            CS_MPI_CHECK(PMPI_Comm_free(&sub));
        }
        /* every rank learns the size's verdict, the ranks outside sub too */
        verdict = rc;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &verdict, 1, MPI_INT, MPI_MIN, world));
        CS_MPI_CHECK(PMPI_Bcast(&pc.done, 1, MPI_INT, 0, world));
        rc = verdict;
        CS_CHECK(rc);
    }
    if (rank == 0 && !print && !o->quiet && isatty(STDERR_FILENO)) {
        fprintf(stderr, "\n");
    }
    if (rank == 0 && pc.skipped > 0) {
        cs_bench_say(rank, "overlap: budget spent (%.0f s): %d of %d point(s) not measured",
                     budget_s, pc.skipped, pc.npoints);
    }
out:
    cs_bench_bufs_free(&bufs);
    if (sub != MPI_COMM_NULL) {
        PMPI_Comm_free(&sub);
    }
    return rc;
}

/* --- the nonblocking rules -------------------------------------------------------------------- */

static int by_bytes(const void *a, const void *b) {
    const cs_db_overlap_t *x = a, *y = b;
    return x->point.bytes < y->point.bytes ? -1 : x->point.bytes > y->point.bytes;
}

int cs_bench_overlap_rules(const cs_db_overlap_t *rows, int n, const uint64_t *thresholds,
                           int nthresholds, cs_rule_t *out, int cap, int *nout) {
    int rc = CS_OK, nsizes = 0;
    cs_coll_t coll;
    cs_db_overlap_t *v = NULL;
    cs_bench_entry_t *entries = NULL;
    cs_bench_size_t *sizes = NULL;
    double *a = NULL, *b = NULL;
    size_t most = 1;
    *nout = 0;
    if (n == 0) {
        return CS_OK;
    }
    CS_CHECK(cs_coll_from_name(rows[0].point.coll, &coll));
    v = malloc((size_t)n * sizeof(*v));
    entries = calloc((size_t)n, sizeof(*entries));
    sizes = calloc((size_t)n, sizeof(*sizes));
    CS_REQUIRE(v != NULL && entries != NULL && sizes != NULL, CS_ERR_NOMEM);
    memcpy(v, rows, (size_t)n * sizeof(*v));
    qsort(v, (size_t)n, sizeof(*v), by_bytes);
    for (int i = 0; i < n; i++) {
        most = v[i].nsamples > most ? v[i].nsamples : most;
    }
    a = malloc(most * sizeof(double));
    b = malloc(most * sizeof(double));
    CS_REQUIRE(a != NULL && b != NULL, CS_ERR_NOMEM);
    for (int i = 0; i < n;) {
        int e = i;
        const cs_db_overlap_t *native = NULL;
        cs_bench_size_t *s = &sizes[nsizes++];
        while (e < n && v[e].point.bytes == v[i].point.bytes) {
            e++;
        }
        for (int k = i; k < e; k++) {
            const cs_algo_t *alg = cs_registry_find(v[k].point.algorithm);
            if (alg != NULL && cs_algo_is_native(alg)) {
                native = &v[k];
            }
        }
        CS_REQUIRE(native != NULL, CS_ERR_ARG);
        if (native->nsamples > 0) {
            memcpy(b, native->samples_us, native->nsamples * sizeof(double));
            CS_CHECK(cs_stats_sort(b, native->nsamples));
        }
        for (int k = i; k < e; k++) {
            cs_bench_entry_t *en = &entries[k];
            en->algorithm = v[k].point.algorithm;
            en->params = v[k].point.params != NULL ? v[k].point.params : "";
            en->median_us = v[k].overhead_us;
            en->native = &v[k] == native;
            en->p_value = 1.0;
            if (!en->native && v[k].nsamples > 0 && native->nsamples > 0) {
                cs_stats_rank_sum_t t;
                memcpy(a, v[k].samples_us, v[k].nsamples * sizeof(double));
                CS_CHECK(cs_stats_sort(a, v[k].nsamples));
                CS_CHECK(cs_stats_rank_sum(a, v[k].nsamples, b, native->nsamples, &t));
                en->p_value = t.p;
            }
        }
        s->bytes = v[i].point.bytes;
        s->entries = &entries[i];
        s->n = e - i;
        s->metric = CS_DB_METRIC_SYNC; /* one metric: the overhead */
        i = e;
    }
    if (cs_coll_is_neighbor(coll) && !cs_coll_is_cached(coll)) {
        /* v and w: one interval, as their blocking rules (bench/derive.c) */
        CS_CHECK(cs_bench_rules_one(sizes, nsizes, out, cap, nout));
    } else {
        CS_CHECK(cs_bench_rules_at(sizes, nsizes, thresholds, nthresholds, out, cap, nout));
    }
out:
    free(a);
    free(b);
    free(sizes);
    free(entries);
    free(v);
    return rc;
}

/* The overlap rows of a run, copied out of the database's callbacks, by key. */
typedef struct ov_row {
    cs_db_overlap_t o;
    char coll[32], algorithm[CS_RULE_ALGORITHM], params[CS_RULE_PARAMS];
    char pattern[CS_RULE_PATTERN];
    double *samples;
} ov_row_t;

typedef struct ov_rows {
    ov_row_t *v;
    int n, cap;
} ov_rows_t;

static int collect(const cs_db_overlap_t *o, void *ctx) {
    ov_rows_t *l = ctx;
    ov_row_t *r;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        ov_row_t *v = realloc(l->v, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            return CS_ERR_NOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    r = &l->v[l->n];
    memset(r, 0, sizeof(*r));
    r->o = *o;
    if (snprintf(r->coll, sizeof(r->coll), "%s", o->point.coll) >= (int)sizeof(r->coll) ||
        snprintf(r->algorithm, sizeof(r->algorithm), "%s", o->point.algorithm) >=
            (int)sizeof(r->algorithm) ||
        snprintf(r->params, sizeof(r->params), "%s", o->point.params ? o->point.params : "") >=
            (int)sizeof(r->params) ||
        snprintf(r->pattern, sizeof(r->pattern), "%s", o->point.pattern ? o->point.pattern : "") >=
            (int)sizeof(r->pattern)) {
        return CS_ERR_ARG;
    }
    if (o->nsamples > 0) {
        r->samples = malloc(o->nsamples * sizeof(double));
        if (r->samples == NULL) {
            return CS_ERR_NOMEM;
        }
        memcpy(r->samples, o->samples_us, o->nsamples * sizeof(double));
    }
    l->n++; /* its pointers are set once all are read: l->v moves as it grows */
    return CS_OK;
}

int cs_bench_overlap_derive(cs_db_t *db, int64_t machine_id, int64_t run_id,
                            const uint64_t *thresholds, int nthresholds, int *nrules) {
    int rc = CS_OK, open = 0;
    ov_rows_t l = {NULL, 0, 0};
    cs_db_overlap_t *key = NULL;
    cs_rule_t *rules = NULL;
    *nrules = 0;
    CS_CHECK(cs_db_foreach_overlap(db, run_id, collect, &l));
    for (int i = 0; i < l.n; i++) {
        ov_row_t *r = &l.v[i];
        r->o.point.coll = r->coll;
        r->o.point.algorithm = r->algorithm;
        r->o.point.params = r->params;
        r->o.point.pattern = r->pattern;
        r->o.samples_us = r->samples;
    }
    key = malloc((size_t)(l.n > 0 ? l.n : 1) * sizeof(*key));
    rules = malloc(2 * (size_t)(l.n > 0 ? l.n : 1) * sizeof(*rules)); /* rules.h */
    CS_REQUIRE(key != NULL && rules != NULL, CS_ERR_NOMEM);
    CS_CHECK(cs_db_begin(db));
    open = 1;
    /* rows come ordered by coll, pattern, comm_size, ppn, bytes: one key after another */
    for (int i = 0; i < l.n;) {
        int e = i, nk = 0, nout = 0;
        cs_coll_t coll;
        while (e < l.n && strcmp(l.v[e].coll, l.v[i].coll) == 0 &&
               strcmp(l.v[e].pattern, l.v[i].pattern) == 0 &&
               l.v[e].o.point.comm_size == l.v[i].o.point.comm_size &&
               l.v[e].o.point.ppn == l.v[i].o.point.ppn) {
            key[nk++] = l.v[e++].o;
        }
        CS_CHECK(cs_coll_from_name(l.v[i].coll, &coll));
        CS_CHECK(cs_bench_overlap_rules(key, nk, thresholds, nthresholds, rules, 2 * l.n, &nout));
        for (int k = 0; k < nout; k++) {
            rules[k].machine_id = machine_id;
            rules[k].run_id = run_id;
            rules[k].coll = coll;
            rules[k].comm_size = l.v[i].o.point.comm_size;
            rules[k].ppn = l.v[i].o.point.ppn;
            snprintf(rules[k].pattern, sizeof(rules[k].pattern), "%s", l.v[i].pattern);
        }
        CS_CHECK(cs_db_replace_nb_pattern_rules(db, machine_id, coll, l.v[i].pattern,
                                                l.v[i].o.point.comm_size, l.v[i].o.point.ppn, rules,
                                                (size_t)nout));
        *nrules += nout;
        i = e;
    }
    CS_CHECK(cs_db_commit(db));
    open = 0;
out:
    if (open && cs_db_rollback(db) != CS_OK) {
        cs_log(CS_LOG_WARN, "rollback failed: %s", cs_db_errmsg(db));
    }
    for (int i = 0; i < l.n; i++) {
        free(l.v[i].samples);
    }
    free(l.v);
    free(key);
    free(rules);
    return rc;
}

void cs_bench_overlap_list(const cs_bench_opts_t *o, const cs_bench_plan_t *plan) {
    unsigned colls = cs_bench_overlap_colls(o->colls);
    uint64_t sizes[CS_BENCH_MAX_LIST];
    int nsizes, nblocks, ncolls = 0, nnbr = 0, npoints;
    char text[96];
    if (o->overlap == CS_BENCH_OVERLAP_OFF || o->validate) {
        printf("overlap: off (--overlap on measures the nonblocking forms for overlap)\n");
        return;
    }
    nsizes = pass_sizes(o, plan, 0, sizes);
    nblocks = pass_sizes(o, plan, 1, sizes);
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int planned = (colls & (1u << c)) && plan->nalgos[c] > 0;
        ncolls += planned && !cs_coll_is_neighbor((cs_coll_t)c);
        nnbr += planned && cs_coll_is_neighbor((cs_coll_t)c);
    }
    npoints = cs_bench_overlap_points(o, plan);
    if (o->budget_s > 0) {
        snprintf(text, sizeof(text), "%.0f s, %.0f %% of --budget%s",
                 o->budget_s * (o->overlap == CS_BENCH_OVERLAP_ONLY ? 1 : CS_BENCH_OVERLAP_SHARE),
                 o->overlap == CS_BENCH_OVERLAP_ONLY ? 100 : 100 * CS_BENCH_OVERLAP_SHARE,
                 o->overlap == CS_BENCH_OVERLAP_ONLY ? " (--overlap only)" : "");
    } else {
        snprintf(text, sizeof(text), "about %.0f s (%.0f s per point, no --budget)",
                 npoints * CS_BENCH_OVERLAP_POINT_S, CS_BENCH_OVERLAP_POINT_S);
    }
    printf("overlap (--overlap %s): %d collective(s) at %d size(s) (barrier at one) and %d "
           "neighbourhood collective(s) on their patterns at %d block size(s), on %d "
           "communicator size(s) = %d point(s), each candidate that can be a nonblocking "
           "operation and MPI_I<coll> timed blocking, started then waited, and overlapped with a "
           "compute loop, %d to %d repetitions; costs %s\n",
           o->overlap == CS_BENCH_OVERLAP_ONLY ? "only" : "on", ncolls, nsizes, nnbr, nblocks,
           plan->ncomm_sizes, npoints, CS_BENCH_OVERLAP_MIN_REPS, CS_BENCH_OVERLAP_MAX_REPS, text);
}

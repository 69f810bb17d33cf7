/* The tuning run (see tune.h): the plan (plan.h) run point by point, stored (run.h), then the
 * rules derived (derive.h); or, with --validate, the selector's choices re-measured
 * (validate.h). */
#include "tune.h"

#include "core/log.h"
#include "core/machine.h"
#include "db.h"
#include "derive.h"
#include "measure.h"
#include "options.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_failure(const cs_db_failure_t *f, void *ctx) {
    (void)ctx;
    fprintf(
        stderr, "collsel-bench: FAILED verification: %s%s%s%s at %d processes, %llu bytes: %s\n",
        f->point.algorithm, f->point.params && f->point.params[0] ? "(" : "",
        f->point.params ? f->point.params : "", f->point.params && f->point.params[0] ? ")" : "",
        f->point.comm_size, (unsigned long long)f->point.bytes, f->message);
    return CS_OK;
}

static int print_rule(const cs_rule_t *rule, void *ctx) {
    char lo[32], hi[32];
    (void)ctx;
    if (rule->rank != 1) {
        return CS_OK;
    }
    cs_bench_format_bytes(rule->lo_bytes, lo, sizeof(lo));
    if (rule->hi_bytes == CS_RULE_UNBOUNDED) {
        snprintf(hi, sizeof(hi), "inf");
    } else {
        cs_bench_format_bytes(rule->hi_bytes, hi, sizeof(hi));
    }
    printf("  %-10s np=%-3d [%6s, %6s) %-32s %10.2f us  native %10.2f us  x%.2f\n",
           cs_coll_name(rule->coll), rule->comm_size, lo, hi, rule->algorithm, rule->median_us,
           rule->native_us, rule->native_us / rule->median_us);
    return CS_OK;
}

/* --- the run ------------------------------------------------------------------------------- */

static int run_points(const cs_bench_opts_t *o, cs_bench_plan_t *plan, cs_bench_run_t *r,
                      cs_bench_validation_t *val, int rank, MPI_Comm world,
                      cs_bench_progress_t *progress) {
    int rc = CS_OK;
    cs_bench_bufs_t bufs = {0};
    cs_bench_sync_t sync = {0, 0};
    MPI_Comm sub = MPI_COMM_NULL;
    double start = PMPI_Wtime();
    int done = 0;
    size_t max_count = o->sizes[o->nsizes - 1] / sizeof(int);
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci], ppn = 0;
        CS_MPI_CHECK(PMPI_Comm_split(world, rank < n ? 0 : MPI_UNDEFINED, rank, &sub));
        if (sub != MPI_COMM_NULL) {
            CS_CHECK(cs_machine_node_size(sub, &ppn));
            CS_CHECK(cs_bench_plan_expand(plan, n, ppn, rank));
            CS_CHECK(cs_bench_bufs_alloc(&bufs, max_count, n));
            CS_CHECK(cs_bench_sync_init(&sync, sub));
        }
        for (int c = 0; c < CS_COLL_COUNT && sub != MPI_COMM_NULL; c++) {
            cs_bench_cand_t *cands = plan->cands[c];
            int ncand = plan->ncands[c];
            for (int si = 0; si < o->nsizes && ncand > 0; si++) {
                cs_call_t call;
                int count = (int)(o->sizes[si] / sizeof(int));
                int skip = 0;
                double budget = CS_BENCH_POINT_BUDGET_S;
                CS_CHECK(cs_bench_call(&call, (cs_coll_t)c, count, sub, &bufs));
                cs_bench_progress_point(progress, (cs_coll_t)c, n, call.bytes);
                if (o->validate) {
                    unsigned seed = (unsigned)(c * 1000003 + si * 7919 + n);
                    CS_CHECK(cs_bench_validate_point(val, o, r, &call, &bufs, &sync, seed, ppn, sub,
                                                     progress));
                    done++;
                    cs_bench_progress_point_done(progress);
                    continue;
                }
                if (rank == 0) {
                    bool exists = false;
                    CS_CHECK(cs_bench_run_has_point(r, (cs_coll_t)c, n, ppn, call.bytes, &exists));
                    skip = exists;
                    if (o->budget_s > 0) {
                        int left = plan->npoints - done;
                        budget = (o->budget_s - (PMPI_Wtime() - start)) / (left > 0 ? left : 1);
                        budget = budget < CS_BENCH_MIN_POINT_BUDGET_S ? CS_BENCH_MIN_POINT_BUDGET_S
                                                                      : budget;
                    }
                }
                CS_MPI_CHECK(PMPI_Bcast(&skip, 1, MPI_INT, 0, sub));
                if (!skip) {
                    unsigned seed = (unsigned)(c * 1000003 + si * 7919 + n);
                    CS_CHECK(cs_bench_measure(cands, ncand, &call, &bufs, budget, o->reps_max, seed,
                                              &sync, sub, rank == 0 ? progress : NULL));
                    if (rank == 0) {
                        CS_CHECK(cs_bench_run_store_point(r, cands, ncand, (cs_coll_t)c, n, ppn,
                                                          call.bytes));
                    }
                    cs_bench_cands_free(cands, ncand);
                }
                done++;
                cs_bench_progress_point_done(progress);
            }
        }
        if (sub != MPI_COMM_NULL) {
            cs_bench_bufs_free(&bufs);
            CS_MPI_CHECK(PMPI_Comm_free(&sub));
        }
        CS_MPI_CHECK(PMPI_Bcast(&done, 1, MPI_INT, 0, world));
    }
out:
    cs_bench_bufs_free(&bufs);
    if (sub != MPI_COMM_NULL) {
        PMPI_Comm_free(&sub);
    }
    return rc;
}

int cs_bench_main(int argc, char **argv, const cs_algo_t *const *extra, int nextra,
                  MPI_Comm world) {
    int rank, nprocs, rc = CS_OK, status = 0, resumed = 0, nrules = 0;
    char err[512];
    cs_bench_opts_t opts;
    cs_machine_t machine;
    cs_bench_progress_t progress;
    cs_bench_run_t r;
    cs_bench_validation_t val;
    cs_bench_plan_t *plan = NULL;
    double t0 = PMPI_Wtime();
    memset(&r, 0, sizeof(r));
    memset(&val, 0, sizeof(val));
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &nprocs);
    if (cs_bench_parse(argc, argv, &opts, err, sizeof(err)) != CS_OK) {
        cs_bench_say(rank, "%s", err);
        return 2;
    }
    if (opts.help) {
        if (rank == 0) {
            fputs(cs_bench_usage, stdout);
        }
        return 0;
    }
    for (int i = 0; i < opts.ncomm_sizes; i++) {
        if (opts.comm_sizes[i] > nprocs) {
            cs_bench_say(rank,
                         "--comm-sizes: %d is more than the %d process(es) of this job (start more "
                         "with mpirun -np)",
                         opts.comm_sizes[i], nprocs);
            return 2;
        }
    }
    plan = malloc(sizeof(*plan));
    if (plan == NULL || cs_bench_plan_make(&opts, extra, nextra, nprocs, plan) != CS_OK) {
        cs_bench_say(rank, "out of memory");
        free(plan);
        return 1;
    }
    if (opts.list) {
        int ppn = 1;
        status = cs_machine_node_size(world, &ppn) != CS_OK;
        if (rank == 0 && !status) {
            status = cs_bench_plan_list(&opts, plan, ppn, rank) != CS_OK;
        }
        free(plan);
        return status;
    }
    if (opts.quiet) {
        cs_log_set_level(0);
    }
    CS_CHECK(cs_machine_query(&machine, world));
    if (rank == 0) {
        status = cs_bench_run_open(&opts, &machine, &r, &resumed) == CS_OK ? 0 : 1;
    }
    CS_MPI_CHECK(PMPI_Bcast(&status, 1, MPI_INT, 0, world));
    if (status != 0) {
        free(plan);
        return 1;
    }
    if (!opts.quiet) {
        cs_bench_say(rank, "%s run %lld: %d processes on %d node(s), %d per node; %s; %s",
                     resumed ? "resuming" : "starting", (long long)r.run_id, machine.nprocs,
                     machine.nnodes, machine.ppn, machine.topology, r.path);
    }
    if (machine.cores > 0 && machine.ppn > machine.cores) {
        cs_bench_say(
            rank,
            "warning: %d processes per node on %d cores: oversubscribed, timings are noisy "
            "(compare only within this run)",
            machine.ppn, machine.cores);
    }
    if (opts.validate) {
        CS_CHECK(cs_bench_validate_start(&val, &r, plan->npoints, rank, world));
    }
    cs_bench_progress_start(&progress, plan->npoints, rank == 0 && !opts.quiet);
    rc = run_points(&opts, plan, &r, &val, rank, world, &progress);
    cs_bench_progress_close(&progress);
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, world));
    CS_CHECK(rc);
    if (rank == 0 && opts.validate) {
        char dur[32];
        CS_CHECK(cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_DONE));
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        cs_bench_validate_summary(&val, machine.cores > 0 && machine.ppn > machine.cores);
        fprintf(stderr, "collsel-bench: validation run %lld done in %s -> %s\n",
                (long long)r.run_id, dur, r.path);
    } else if (rank == 0) {
        int64_t nmeas = 0, nfail = 0;
        char dur[32];
        CS_CHECK(cs_bench_derive_rules(r.db, r.machine_id, r.run_id, &nrules));
        CS_CHECK(cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_DONE));
        CS_CHECK(cs_db_count_rows(r.db, "measurement", r.run_id, &nmeas));
        CS_CHECK(cs_db_count_rows(r.db, "failure", r.run_id, &nfail));
        CS_CHECK(cs_db_foreach_failure(r.db, r.run_id, print_failure, NULL));
        if (!opts.quiet) {
            printf("winners (rank 1 of each size interval):\n");
            CS_CHECK(cs_db_foreach_rule(r.db, r.machine_id, print_rule, NULL));
        }
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        fprintf(stderr,
                "collsel-bench: run %lld done in %s: %d points, %lld measurements, %lld "
                "verification failures, %d rules -> %s\n",
                (long long)r.run_id, dur, plan->npoints, (long long)nmeas, (long long)nfail, nrules,
                r.path);
    }
out:
    if (rc != CS_OK) {
        cs_bench_say(rank, "run failed: %s", cs_status_str(rc));
        if (rank == 0 && r.db != NULL && r.run_id != 0 &&
            cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_ABORTED) != CS_OK) {
            cs_bench_say(rank, "could not mark run %lld aborted: %s", (long long)r.run_id,
                         cs_db_errmsg(r.db));
        }
    }
    if (rank == 0) {
        cs_bench_run_close(&r);
    }
    cs_bench_validate_free(&val);
    free(plan);
    return rc == CS_OK ? 0 : 1;
}

/* Verification and interleaved timing of one plan point (see measure.h). */
#include "measure.h"

#include "core/comm.h"
#include "core/log.h"
#include "db.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MIN_REPS = 10,   /* before the first stability check */
    CHECK_EVERY = 5, /* repetitions between stability checks */
};

void cs_bench_cand_set(cs_bench_cand_t *c, const cs_algo_t *a, const cs_params_t *params) {
    memset(c, 0, sizeof(*c));
    c->v.algo = a;
    if (params != NULL) {
        c->v.params = *params;
    } else {
        cs_params_defaults(a->params, a->nparams, &c->v.params);
    }
    cs_params_format(&c->v.params, c->params, sizeof(c->params));
    cs_variant_name(&c->v, c->name, sizeof(c->name));
    c->p_value = 1.0;
    c->loop_p_value = 1.0;
    c->loop_rankmax_median = NAN;
}

void cs_bench_cands_free(cs_bench_cand_t *cands, int ncand) {
    for (int i = 0; i < ncand; i++) {
        free(cands[i].samples);
        free(cands[i].raw);
        cands[i].samples = NULL;
        cands[i].raw = NULL;
        cands[i].nsamples = 0;
        cands[i].nraw = 0;
        cands[i].failed = 0;
        cands[i].retired = 0;
        cands[i].failure[0] = '\0';
        cands[i].outliers = 0;
        cands[i].p_value = 1.0;
        memset(&cands[i].summary, 0, sizeof(cands[i].summary));
        free(cands[i].loop_raw);
        free(cands[i].loop_samples);
        free(cands[i].loop_rankmax);
        cands[i].loop_raw = cands[i].loop_samples = cands[i].loop_rankmax = NULL;
        cands[i].nloop_raw = cands[i].nloop_samples = 0;
        memset(&cands[i].loop_summary, 0, sizeof(cands[i].loop_summary));
        cands[i].loop_outliers = 0;
        cands[i].loop_rankmax_median = NAN;
        cands[i].loop_p_value = 1.0;
    }
}

/* Runs variant `v` for `call` as the selector runs it: a schedule algorithm of gatherv,
 * scatterv or alltoallv after agreeing on the call (cs_comm_agree), because the selector agrees
 * on every such call it does not hand to the MPI library, so the agreement is part of what
 * choosing such an algorithm costs; everything else (native, the selector's own choice, which
 * agrees by itself) as it is. Collective, like the call. */
static int run_cand(const cs_variant_t *v, const cs_call_t *call) {
    cs_call_t agreed;
    cs_comm_t *ctx = NULL;
    int rc;
    if (!cs_coll_agrees(call->coll) || v->algo->build == NULL) {
        return cs_algo_run_variant(v, call);
    }
    agreed = *call;
    rc = cs_comm_get(call->comm, &ctx);
    if (rc == CS_OK) {
        rc = cs_comm_agree(ctx, &agreed);
    }
    return rc == CS_OK ? cs_algo_run_variant(v, &agreed) : rc;
}

/* Runs candidate `c` on freshly filled inputs; all ranks learn whether any rank failed
 * (*failed) and whether every rank found the candidate not applicable to this call
 * (*not_applicable: its builder's CS_ERR_NOT_APPLICABLE, decided alike on every rank). */
static int run_checked(const cs_bench_cand_t *c, const cs_call_t *call, cs_bench_bufs_t *b,
                       unsigned seed, MPI_Comm comm, int *failed, int *not_applicable) {
    int rc = CS_OK;
    int status;
    int flags[2];
    cs_bench_fill(call, b, seed);
    status = run_cand(&c->v, call);
    flags[0] = status != CS_OK && status != CS_ERR_NOT_APPLICABLE; /* any rank: failed */
    flags[1] = status != CS_ERR_NOT_APPLICABLE;                    /* any rank: applicable */
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_LOR, comm));
    *not_applicable = !flags[1];
    /* Some ranks not applicable and others not: a builder that decides differently per rank. */
    *failed = flags[0] || (flags[1] && status == CS_ERR_NOT_APPLICABLE);
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, failed, 1, MPI_INT, MPI_LOR, comm));
out:
    return rc;
}

static int verify(cs_bench_cand_t *cands, int ncand, const cs_call_t *call, cs_bench_bufs_t *b,
                  unsigned seed, MPI_Comm comm, cs_bench_progress_t *progress) {
    int rc = CS_OK;
    int failed = 0, not_applicable = 0;
    int rank;
    size_t nout = cs_bench_output_count(call);
    CS_CHECK(run_checked(&cands[0], call, b, seed, comm, &failed, &not_applicable));
    CS_REQUIRE(!failed && !not_applicable, CS_ERR_MPI);
    memcpy(b->ref, b->recv, nout * sizeof(int));
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    for (int i = 1; i < ncand; i++) {
        long first = -1;
        int reporter;
        if (!cands[i].applicable) {
            continue;
        }
        if (progress != NULL) {
            cs_bench_progress_step(progress, cands[i].name);
        }
        CS_CHECK(run_checked(&cands[i], call, b, seed, comm, &failed, &not_applicable));
        if (not_applicable) { /* its builder says so for this call: neither verified nor timed */
            cands[i].applicable = 0;
            continue;
        }
        for (size_t k = 0; !failed && k < nout; k++) {
            if (b->recv[k] != b->ref[k]) {
                first = (long)k;
                break;
            }
        }
        /* The lowest rank with a wrong result reports its first wrong element. */
        reporter = first >= 0 ? rank : INT_MAX;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &reporter, 1, MPI_INT, MPI_MIN, comm));
        if (failed) {
            cands[i].failed = 1;
            snprintf(cands[i].failure, sizeof(cands[i].failure), "returned an error");
        } else if (reporter != INT_MAX) {
            cands[i].failed = 1;
            if (rank == reporter) {
                snprintf(cands[i].failure, sizeof(cands[i].failure),
                         "result differs from native at rank %d, element %ld", rank, first);
            }
            CS_MPI_CHECK(PMPI_Bcast(cands[i].failure, (int)sizeof(cands[i].failure), MPI_CHAR,
                                    reporter, comm));
        }
    }
out:
    return rc;
}

/* Whether the median of samples[0..n-1] is stable (its 95 % interval within 5 %); `work`
 * holds n values. */
static int stable(const double *samples, size_t n, double *work) {
    cs_stats_ci_t ci;
    double median;
    memcpy(work, samples, n * sizeof(double));
    return cs_stats_sort(work, n) == CS_OK && cs_stats_quantile(work, n, 0.5, &median) == CS_OK &&
           cs_stats_median_ci(work, n, CS_STATS_CONFIDENCE, &ci) == CS_OK &&
           cs_stats_is_stable(&ci, median, CS_STATS_REL_PRECISION);
}

/* Whether candidate c is still timed: applicable, not failed, not retired. */
static int in_race(const cs_bench_cand_t *c) {
    return c->applicable && !c->failed && !c->retired;
}

/* Rank 0's stopping decision: every timed candidate stable under both metrics. */
static int all_stable(cs_bench_cand_t *cands, int ncand, double *work) {
    for (int i = 0; i < ncand; i++) {
        const cs_bench_cand_t *c = &cands[i];
        if (!in_race(c)) {
            continue;
        }
        if (!stable(c->samples, c->nraw, work) || !stable(c->loop_samples, c->nloop_raw, work)) {
            return 0;
        }
    }
    return 1;
}

/* The fewest synchronised samples a timed candidate has. */
static size_t fewest_sync(const cs_bench_cand_t *cands, int ncand) {
    size_t least = SIZE_MAX;
    for (int i = 0; i < ncand; i++) {
        if (in_race(&cands[i]) && cands[i].nraw < least) {
            least = cands[i].nraw;
        }
    }
    return least == SIZE_MAX ? 0 : least;
}

/* Whether the sample x[0..n-1] of a candidate is clearly slower than native's, sorted_native
 * [0..nn-1] (sorted): from CS_BENCH_RACE_MIN samples on each side, the one-sided rank-sum test
 * finds native faster with p < CS_STATS_ALPHA and the candidate's median is more than
 * CS_BENCH_RACE_MARGIN above native's; from CS_BENCH_RACE_EARLY samples where native's median
 * is CS_BENCH_RACE_EARLY_US or more (large sizes, where a point may not afford five
 * repetitions of every candidate), its fastest sample is more than CS_BENCH_RACE_EARLY_MARGIN
 * above native's slowest. `work` holds n values. */
static int clearly_slower(const double *x, size_t n, const double *sorted_native, size_t nn,
                          double *work) {
    cs_stats_rank_sum_t t;
    double median, native_median;
    if (n < CS_BENCH_RACE_EARLY || nn < CS_BENCH_RACE_EARLY) {
        return 0;
    }
    memcpy(work, x, n * sizeof(double));
    if (cs_stats_sort(work, n) != CS_OK) {
        return 0;
    }
    if (sorted_native[nn / 2] >= CS_BENCH_RACE_EARLY_US &&
        work[0] > (1.0 + CS_BENCH_RACE_EARLY_MARGIN) * sorted_native[nn - 1]) {
        return 1;
    }
    if (n < CS_BENCH_RACE_MIN || nn < CS_BENCH_RACE_MIN) {
        return 0;
    }
    return cs_stats_quantile(work, n, 0.5, &median) == CS_OK &&
           cs_stats_quantile(sorted_native, nn, 0.5, &native_median) == CS_OK &&
           cs_stats_rank_sum(sorted_native, nn, work, n, &t) == CS_OK && t.p < CS_STATS_ALPHA &&
           median > (1.0 + CS_BENCH_RACE_MARGIN) * native_median;
}

/* Rank 0's racing step (measure.h, step 3) under policy `race`: sets retire[i] for each
 * candidate in the race that cannot win any more; returns how many besides native are left in
 * it. `work` holds 3 x reps_max values. */
static int race_step(const cs_bench_cand_t *cands, int ncand, int race, int *retire, size_t cap,
                     double *work) {
    const cs_bench_cand_t *native = &cands[0];
    double *sync0 = work, *loop0 = work + cap, *tmp = work + 2 * cap;
    int left = 0;
    memcpy(sync0, native->raw, native->nraw * sizeof(double));
    memcpy(loop0, native->loop_raw, native->nloop_raw * sizeof(double));
    if (cs_stats_sort(sync0, native->nraw) != CS_OK ||
        cs_stats_sort(loop0, native->nloop_raw) != CS_OK) {
        return ncand; /* nothing retires */
    }
    for (int i = 1; i < ncand; i++) {
        const cs_bench_cand_t *c = &cands[i];
        int sync, loop;
        if (!in_race(c)) {
            continue;
        }
        sync =
            race != CS_DB_METRIC_LOOP && clearly_slower(c->raw, c->nraw, sync0, native->nraw, tmp);
        loop = race != CS_DB_METRIC_SYNC &&
               clearly_slower(c->loop_raw, c->nloop_raw, loop0, native->nloop_raw, tmp);
        /* under 'both' a winner is not slower under either metric (rules.c, won_under); one
         * without a synchronised sample yet (all late) stays, or it would have no measurement */
        retire[i] = (sync || loop) && c->nraw > 0;
        left += !retire[i];
    }
    return left;
}

/* The reduction of one repetition: n = (len - 1) / 3 candidates laid out as
 * [sync 0..n-1, late, loop max 0..n-1, loop sum 0..n-1]: MPI_MAX over the first 2n + 1
 * values, MPI_SUM over the last n. */
static void rep_reduce(void *in, void *inout, int *len, MPI_Datatype *type) {
    const double *a = in;
    double *b = inout;
    int n = (*len - 1) / 3;
    (void)type;
    for (int i = 0; i < 2 * n + 1; i++) {
        b[i] = a[i] > b[i] ? a[i] : b[i];
    }
    for (int i = 2 * n + 1; i < *len; i++) {
        b[i] += a[i];
    }
}

/* One back-to-back loop of candidate c (see measure.h): this rank's mean time per call, in
 * microseconds. */
static int time_loop(const cs_bench_cand_t *c, const cs_call_t *call, MPI_Comm comm, double *us) {
    int rc = CS_OK;
    double t = 0;
    CS_MPI_CHECK(PMPI_Barrier(comm));
    for (int j = 0; j < CS_BENCH_LOOP_WARMUP; j++) {
        CS_CHECK(run_cand(&c->v, call));
        CS_MPI_CHECK(PMPI_Barrier(comm));
    }
    for (int j = 0; j < CS_BENCH_LOOP_ITERS; j++) {
        double t0 = PMPI_Wtime();
        CS_CHECK(run_cand(&c->v, call));
        t += PMPI_Wtime() - t0;
        CS_MPI_CHECK(PMPI_Barrier(comm));
    }
    *us = t / CS_BENCH_LOOP_ITERS * 1e6;
out:
    return rc;
}

void cs_bench_order(unsigned seed, int rep, int *order, int n) {
    /* splitmix64 of (seed, rep): the same sequence on every rank and every machine */
    uint64_t x = ((uint64_t)seed << 32) ^ (uint64_t)(unsigned)rep;
    for (int i = 0; i < n; i++) {
        order[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
        int j;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        j = (int)(z % (uint64_t)(i + 1));
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
}

static int time_candidates(cs_bench_cand_t *cands, int ncand, const cs_call_t *call,
                           double budget_s, int reps_max, int race, unsigned seed,
                           cs_bench_sync_t *sync, MPI_Comm comm) {
    int rc = CS_OK;
    int rank, nprocs;
    double start = PMPI_Wtime();
    double *rep = NULL, *work = NULL;
    double *late, *loop_max, *loop_sum;
    int *order = NULL, *flags = NULL; /* [stop, keep late, retire 0..ncand-1] */
    int stop = 0, kept = 0, keep_late = 0, lead_at_max = 0;
    MPI_Op op = MPI_OP_NULL;
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    CS_MPI_CHECK(PMPI_Comm_size(comm, &nprocs));
    CS_MPI_CHECK(PMPI_Op_create(rep_reduce, 1, &op));
    rep = calloc(3 * (size_t)ncand + 1, sizeof(double));
    work = calloc(3 * (size_t)reps_max, sizeof(double));
    order = calloc((size_t)ncand, sizeof(int));
    flags = calloc(2 + (size_t)ncand, sizeof(int));
    CS_REQUIRE(rep != NULL && work != NULL && order != NULL && flags != NULL, CS_ERR_NOMEM);
    late = &rep[ncand]; /* "someone was late" */
    loop_max = &rep[ncand + 1];
    loop_sum = &rep[2 * ncand + 1];
    for (int i = 0; i < ncand; i++) {
        cs_bench_cand_t *c = &cands[i];
        c->samples = calloc((size_t)reps_max, sizeof(double));
        c->raw = calloc((size_t)reps_max, sizeof(double));
        c->loop_samples = calloc((size_t)reps_max, sizeof(double));
        c->loop_raw = calloc((size_t)reps_max, sizeof(double));
        c->loop_rankmax = calloc((size_t)reps_max, sizeof(double));
        CS_REQUIRE(c->samples != NULL && c->raw != NULL && c->loop_samples != NULL &&
                       c->loop_raw != NULL && c->loop_rankmax != NULL,
                   CS_ERR_NOMEM);
    }
    for (int r = 0; kept < reps_max && !stop; r++) {
        *late = 0;
        cs_bench_order(seed, r, order, ncand);
        for (int k = 0; k < ncand; k++) {
            int i = order[k];
            int was_late = 0;
            double t0;
            rep[i] = loop_max[i] = loop_sum[i] = 0;
            if (!in_race(&cands[i])) {
                continue;
            }
            CS_CHECK(cs_bench_sync_start(sync, comm, &t0, &was_late));
            CS_CHECK(run_cand(&cands[i].v, call));
            /* a start learnt too late: this candidate's synchronised sample is discarded (the
             * maximum over ranks makes it infinite on every rank), unless keep_late */
            rep[i] = was_late && !keep_late ? INFINITY : (cs_bench_sync_now(sync) - t0) * 1e6;
            *late += was_late;
        }
        for (int k = 0; k < ncand; k++) {
            int i = order[k];
            if (!in_race(&cands[i])) {
                continue;
            }
            CS_CHECK(time_loop(&cands[i], call, comm, &loop_max[i]));
            loop_sum[i] = loop_max[i];
        }
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, rep, 3 * ncand + 1, MPI_DOUBLE, op, comm));
        if (*late > 0 && !keep_late) { /* a start time arrived too late: wait longer */
            lead_at_max = cs_bench_sync_late(sync);
        } else {
            cs_bench_sync_on_time(sync);
        }
        /* The loop metric does not use the start times: its sample is always kept. Only the
         * late candidates' synchronised samples are lost, not the repetition (which, with 30
         * candidates of 1 MiB, lost 4 repetitions in 5). */
        for (int i = 0; i < ncand; i++) {
            cs_bench_cand_t *c = &cands[i];
            if (!in_race(c)) {
                continue;
            }
            if (isfinite(rep[i])) {
                c->samples[c->nraw] = c->raw[c->nraw] = rep[i];
                c->nsamples = ++c->nraw;
            }
            c->loop_samples[kept] = c->loop_raw[kept] = loop_sum[i] / nprocs;
            c->loop_rankmax[kept] = loop_max[i];
            c->nloop_samples = c->nloop_raw = (size_t)kept + 1;
        }
        kept++;
        if (rank == 0) {
            double spent = PMPI_Wtime() - start;
            size_t least = fewest_sync(cands, ncand);
            /* racing: after each of the first repetitions, then every few */
            int left = race >= 0 && kept >= CS_BENCH_RACE_EARLY &&
                               (kept <= 2 * MIN_REPS || kept % CHECK_EVERY == 0)
                           ? race_step(cands, ncand, race, &flags[2], (size_t)reps_max, work)
                           : ncand;
            /* Checked after every repetition: one of a large size can take longer than a
             * point's whole budget. A spent budget stops a point once every candidate in the
             * race has a synchronised sample (one without would have no measurement) and there
             * are enough repetitions for the rank-sum test to tell (CS_BENCH_DECIDE_REPS), or
             * at CS_BENCH_OVERSPEND times the budget. When a candidate has no synchronised
             * sample and the lead is at its maximum, the next repetition keeps late samples
             * (their times then include the lateness: slower, never faster), so an overloaded
             * machine cannot stall the run. Stability is checked every few repetitions. */
            int enough = least > 0 &&
                         (kept >= CS_BENCH_DECIDE_REPS || spent >= CS_BENCH_OVERSPEND * budget_s);
            flags[0] = (spent >= budget_s && enough) || (left == 0 && least > 0) ||
                       (kept >= MIN_REPS && (kept % CHECK_EVERY == 0 || kept == reps_max) &&
                        least >= MIN_REPS && all_stable(cands, ncand, work));
            flags[1] = least == 0 && spent >= budget_s && lead_at_max;
        }
        CS_MPI_CHECK(PMPI_Bcast(flags, 2 + ncand, MPI_INT, 0, comm));
        stop = flags[0];
        keep_late = flags[1];
        for (int i = 1; i < ncand; i++) {
            cands[i].retired |= flags[2 + i];
        }
    }
out:
    if (op != MPI_OP_NULL) {
        PMPI_Op_free(&op);
    }
    free(rep);
    free(work);
    free(order);
    free(flags);
    return rc;
}

/* Outlier removal and summary of one metric's samples x[0..*n-1]; *n becomes the kept count. */
static int summarise_metric(double *x, size_t *n, size_t *outliers, cs_stats_summary_t *summary) {
    int rc = CS_OK;
    CS_CHECK(cs_stats_remove_outliers(x, *n, CS_STATS_TUKEY_K, outliers));
    *n -= *outliers;
    CS_CHECK(cs_stats_summarize(x, *n, summary));
out:
    return rc;
}

int cs_bench_summarise(cs_bench_cand_t *cands, int ncand) {
    int rc = CS_OK;
    cs_bench_cand_t *native = &cands[0];
    for (int i = 0; i < ncand; i++) {
        cs_bench_cand_t *c = &cands[i];
        if (!c->applicable || c->failed || c->nsamples == 0) {
            continue;
        }
        CS_CHECK(summarise_metric(c->samples, &c->nsamples, &c->outliers, &c->summary));
        if (c->nloop_samples > 0) {
            CS_CHECK(summarise_metric(c->loop_samples, &c->nloop_samples, &c->loop_outliers,
                                      &c->loop_summary));
        }
        if (c->loop_rankmax != NULL && c->nloop_raw > 0) {
            cs_stats_summary_t rm;
            CS_CHECK(cs_stats_summarize(c->loop_rankmax, c->nloop_raw, &rm));
            c->loop_rankmax_median = rm.median;
        }
    }
    for (int i = 1; i < ncand; i++) {
        cs_stats_rank_sum_t t;
        cs_bench_cand_t *c = &cands[i];
        if (!c->applicable || c->failed || c->nsamples == 0 || native->nsamples == 0) {
            continue;
        }
        CS_CHECK(cs_stats_rank_sum(c->samples, c->nsamples, native->samples, native->nsamples, &t));
        c->p_value = t.p;
        if (c->nloop_samples > 0 && native->nloop_samples > 0) {
            CS_CHECK(cs_stats_rank_sum(c->loop_samples, c->nloop_samples, native->loop_samples,
                                       native->nloop_samples, &t));
            c->loop_p_value = t.p;
        }
    }
    native->p_value = 1.0;
    native->loop_p_value = 1.0;
out:
    return rc;
}

int cs_bench_measure(cs_bench_cand_t *cands, int ncand, const cs_call_t *call, cs_bench_bufs_t *b,
                     double budget_s, int reps_max, int race, unsigned seed, cs_bench_sync_t *sync,
                     MPI_Comm comm, cs_bench_progress_t *progress) {
    int rc = CS_OK;
    cs_bench_cands_free(cands, ncand);
    for (int i = 0; i < ncand; i++) {
        cands[i].applicable = cs_algo_applicable(cands[i].v.algo, call) == CS_OK;
    }
    CS_REQUIRE(ncand > 0 && cands[0].applicable && cs_algo_is_native(cands[0].v.algo), CS_ERR_ARG);
    CS_CHECK(verify(cands, ncand, call, b, seed, comm, progress));
    if (progress != NULL) {
        cs_bench_progress_step(progress, "timing");
    }
    CS_CHECK(time_candidates(cands, ncand, call, budget_s, reps_max, race, seed, sync, comm));
    CS_CHECK(cs_bench_summarise(cands, ncand));
out:
    return rc;
}

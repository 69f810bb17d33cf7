/* cs_bench_run_test: a whole collsel-bench run on a tiny plan, under mpirun, then the database
 * it wrote is checked.
 *
 * The run gets two deliberately wrong test-only algorithms besides the registered ones:
 * allreduce/test_copy_only (every rank copies its input to its output: a valid schedule, a
 * wrong allreduce for p > 1) and gather/test_root_only (the root copies its own block and
 * nobody communicates). Verification must catch both at every size: a failure row each, no
 * measurement, never in a rule. A third, allreduce/test_never_applicable, has a builder that
 * returns CS_ERR_NOT_APPLICABLE for every call (as a builder-only requirement does): neither a
 * failure nor a measurement.
 *
 * Then rank 0 opens the database read-only (db/db.h) and checks:
 *   - one machine, one run, status 'done';
 *   - exactly one measurement per (collective, size, variant of a registered candidate that
 *     applies), and nothing else; each with comm_size = nprocs, sane statistics
 *     (0 < min <= q1 <= median <= q3 <= max, 1 <= reps <= --reps-max, outliers < reps, the
 *     same for the loop metric's loop_* statistics from every repetition, at least as many as
 *     the synchronised ones (a late start loses only a synchronised sample), one sample per
 *     repetition) and verified = 1 for the non-native ones;
 *   - exactly one failure per (wrong algorithm, size), none for anything else;
 *   - per (collective, comm_size, ppn): rank-1 intervals contiguous from 0 to unbounded, each
 *     interval's ranks 1..k with the native algorithm last and nowhere else in the list,
 *     boundaries between the measured sizes, only registered algorithms measured at the
 *     interval's first size with the medians stored there, every candidate above native
 *     passing the winner rule (p < CS_STATS_ALPHA and CS_STATS_MIN_GAIN faster), and rules
 *     for exactly the collectives of the plan.
 *
 * Usage: mpirun -np N cs_bench_run_test [DB_PATH], N >= 2. Without DB_PATH rank 0 makes a temporary
 * directory (removed after a passing run, kept and named after a failing one). Rank 0 prints
 * each failed check and "N passed, N failed"; every rank exits 1 when a check failed. */
#include "core/algo.h"
#include "db.h"
#include "derive.h"
#include "options.h"
#include "registry.h"
#include "stats.h"
#include "tune.h"
#include "workload.h"

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ROWS      512
#define REPS_MAX      40
#define REPS_MAX_TEXT "40"

static const char *const plan_colls[] = {"allreduce", "bcast", "gather"};
static const int plan_sizes[] = {8, 1024, 16384}; /* bytes per process, as in --sizes */
#define NCOLLS ((int)(sizeof(plan_colls) / sizeof(plan_colls[0])))
#define NSIZES ((int)(sizeof(plan_sizes) / sizeof(plan_sizes[0])))

/* Whether run 1 was oversubscribed: its policy 'both' then decides as 'loop' (bench/rules.h). */
static int by_loop;

/* --- the wrong algorithms ------------------------------------------------------------------ */

/* Every rank's output is its own input. */
static int build_copy_only(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    return cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
                         cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv);
}

/* The root places its own block; the other blocks are never received. */
static int build_root_only(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    if (c->rank != c->root) {
        return CS_OK;
    }
    return cs_sched_copy(
        s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
        cs_ref_at(cs_ref(CS_SLOT_RECV, 0), (MPI_Aint)c->root * c->recvcount, &c->recv),
        c->recvcount, &c->recv);
}

static const cs_algo_t wrong_allreduce = {
    .name = "allreduce/test_copy_only",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "test only: copies the input to the output (wrong for p > 1)",
    .build = build_copy_only,
};

static const cs_algo_t wrong_gather = {
    .name = "gather/test_root_only",
    .coll = CS_COLL_GATHER,
    .desc = "test only: the root keeps its own block, nothing is sent (wrong for p > 1)",
    .build = build_root_only,
};

static int build_never(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)s;
    (void)c;
    (void)params;
    return CS_ERR_NOT_APPLICABLE;
}

static const cs_algo_t never_applicable = {
    .name = "allreduce/test_never_applicable",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "test only: its builder refuses every call",
    .build = build_never,
};

static const cs_algo_t *const wrong[] = {&wrong_allreduce, &wrong_gather};
#define NWRONG ((int)(sizeof(wrong) / sizeof(wrong[0])))
/* What the run gets besides the registry: the wrong ones, then the never applicable one. */
static const cs_algo_t *const extra[] = {&wrong_allreduce, &wrong_gather, &never_applicable};
#define NEXTRA ((int)(sizeof(extra) / sizeof(extra[0])))

/* --- checks -------------------------------------------------------------------------------- */

static int passed, failed;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...) {
    va_list ap;
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fputs("FAIL: ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

/* What the database holds, copied out of the callbacks. */
typedef struct row {
    char coll[32], algorithm[128], params[CS_RULE_PARAMS], message[256];
    int comm_size, ppn, reps, outliers, verified, rank, round;
    uint64_t bytes, lo, hi;
    double min, q1, median, q3, max, native_us, p_value;
    size_t nsamples;
    int64_t run_id;
    int loop_reps, loop_outliers; /* the loop metric */
    double loop_min, loop_q1, loop_median, loop_q3, loop_max, loop_rankmax;
    size_t loop_nsamples;
} row_t;

typedef struct rows {
    row_t v[MAX_ROWS];
    int n, overflow;
} rows_t;

static row_t *add_row(rows_t *rs) {
    if (rs->n == MAX_ROWS) {
        rs->overflow = 1;
        return NULL;
    }
    memset(&rs->v[rs->n], 0, sizeof(row_t));
    return &rs->v[rs->n++];
}

static void copy_point(row_t *r, const cs_db_point_t *p) {
    snprintf(r->coll, sizeof(r->coll), "%s", p->coll);
    snprintf(r->algorithm, sizeof(r->algorithm), "%s", p->algorithm);
    snprintf(r->params, sizeof(r->params), "%s", p->params ? p->params : "");
    r->comm_size = p->comm_size;
    r->ppn = p->ppn;
    r->bytes = p->bytes;
}

static int on_measurement(const cs_db_measurement_t *m, void *ctx) {
    row_t *r = add_row(ctx);
    if (r != NULL) {
        copy_point(r, &m->point);
        r->reps = m->reps;
        r->outliers = m->outliers;
        r->min = m->min_us;
        r->q1 = m->q1_us;
        r->median = m->median_us;
        r->q3 = m->q3_us;
        r->max = m->max_us;
        r->verified = m->verified;
        r->nsamples = m->nsamples;
        r->run_id = m->run_id;
        r->round = m->round;
        r->loop_reps = m->loop_reps;
        r->loop_outliers = m->loop_outliers;
        r->loop_min = m->loop_min_us;
        r->loop_q1 = m->loop_q1_us;
        r->loop_median = m->loop_median_us;
        r->loop_q3 = m->loop_q3_us;
        r->loop_max = m->loop_max_us;
        r->loop_rankmax = m->loop_rankmax_median_us;
        r->loop_nsamples = m->loop_nsamples;
    }
    return CS_OK;
}

static int on_failure(const cs_db_failure_t *f, void *ctx) {
    row_t *r = add_row(ctx);
    if (r != NULL) {
        copy_point(r, &f->point);
        snprintf(r->message, sizeof(r->message), "%s", f->message ? f->message : "");
        r->run_id = f->run_id;
    }
    return CS_OK;
}

static int on_rule(const cs_rule_t *u, void *ctx) {
    row_t *r = add_row(ctx);
    if (r != NULL) {
        snprintf(r->coll, sizeof(r->coll), "%s", cs_coll_name(u->coll));
        snprintf(r->algorithm, sizeof(r->algorithm), "%s", u->algorithm);
        snprintf(r->params, sizeof(r->params), "%s", u->params);
        r->comm_size = u->comm_size;
        r->ppn = u->ppn;
        r->lo = u->lo_bytes;
        r->hi = u->hi_bytes;
        r->rank = u->rank;
        r->median = u->median_us;
        r->native_us = u->native_us;
        r->p_value = u->p_value;
        r->run_id = u->run_id;
    }
    return CS_OK;
}

static int is_wrong(const char *name) {
    for (int i = 0; i < NWRONG; i++) {
        if (strcmp(name, wrong[i]->name) == 0) {
            return 1;
        }
    }
    return 0;
}

static int count_points(const rows_t *rs, const char *coll, const char *algorithm, uint64_t bytes) {
    int n = 0;
    for (int i = 0; i < rs->n; i++) {
        n += strcmp(rs->v[i].coll, coll) == 0 && strcmp(rs->v[i].algorithm, algorithm) == 0 &&
             rs->v[i].bytes == bytes;
    }
    return n;
}

/* The selection key (bytes) of the bench's call of `coll` at plan size `si` on `comm`. */
static int call_of(cs_call_t *call, cs_coll_t coll, int si, cs_bench_bufs_t *bufs, MPI_Comm comm) {
    return cs_bench_call(call, coll, plan_sizes[si] / (int)sizeof(int), comm, bufs);
}

static void check_measurements(const rows_t *ms, int64_t run_id, int nprocs,
                               cs_bench_bufs_t *bufs) {
    static cs_variant_t variants[CS_MAX_VARIANTS];
    int expected = 0;
    for (int c = 0; c < NCOLLS; c++) {
        cs_coll_t coll;
        check(cs_coll_from_name(plan_colls[c], &coll) == CS_OK, "unknown collective %s",
              plan_colls[c]);
        for (int si = 0; si < NSIZES; si++) {
            cs_call_t call;
            if (cs_coll_from_name(plan_colls[c], &coll) != CS_OK ||
                call_of(&call, coll, si, bufs, MPI_COMM_WORLD) != CS_OK) {
                check(0, "cannot build the %s call at %d bytes", plan_colls[c], plan_sizes[si]);
                continue;
            }
            for (int a = 0; a < cs_registry_count; a++) {
                const cs_algo_t *algo = cs_registry[a];
                int n, nv = 0;
                if (algo->coll != coll || cs_algo_applicable(algo, &call) != CS_OK) {
                    continue;
                }
                /* One per variant the plan sweeps on this communicator (none for the
                 * orthogonal grids at a prime size). */
                check(cs_algo_variants(algo, nprocs, nprocs, variants, CS_MAX_VARIANTS, &nv) ==
                          CS_OK,
                      "%s: cs_algo_variants failed", algo->name);
                expected += nv;
                n = count_points(ms, plan_colls[c], algo->name, call.bytes);
                check(n == nv, "%s at %zu bytes: %d measurements, want %d (one per variant)",
                      algo->name, call.bytes, n, nv);
            }
            for (int w = 0; w < NWRONG; w++) {
                int n = count_points(ms, plan_colls[c], wrong[w]->name, call.bytes);
                check(n == 0, "wrong algorithm %s measured at %zu bytes (%d rows)", wrong[w]->name,
                      call.bytes, n);
            }
        }
    }
    check(ms->n == expected, "%d measurements, want %d (points x registered candidates)", ms->n,
          expected);
    for (int i = 0; i < ms->n; i++) {
        const row_t *m = &ms->v[i];
        const cs_algo_t *a = cs_registry_find(m->algorithm);
        int native = a != NULL && cs_algo_is_native(a);
        check(a != NULL, "measurement of unregistered algorithm %s", m->algorithm);
        check(!is_wrong(m->algorithm), "wrong algorithm %s has a measurement", m->algorithm);
        check(m->run_id == run_id, "%s: run_id %lld", m->algorithm, (long long)m->run_id);
        check(m->comm_size == nprocs, "%s: comm_size %d, want %d", m->algorithm, m->comm_size,
              nprocs);
        check(m->ppn >= 1 && m->ppn <= nprocs, "%s: ppn %d", m->algorithm, m->ppn);
        check(m->median > 0, "%s at %llu: median %g not positive", m->algorithm,
              (unsigned long long)m->bytes, m->median);
        check(m->min > 0 && m->min <= m->q1 && m->q1 <= m->median && m->median <= m->q3 &&
                  m->q3 <= m->max,
              "%s at %llu: min %g q1 %g median %g q3 %g max %g out of order", m->algorithm,
              (unsigned long long)m->bytes, m->min, m->q1, m->median, m->q3, m->max);
        check(m->reps >= 1 && m->reps <= REPS_MAX, "%s at %llu: reps %d not in [1, %d]",
              m->algorithm, (unsigned long long)m->bytes, m->reps, REPS_MAX);
        check(m->outliers >= 0 && m->outliers < m->reps, "%s at %llu: %d outliers of %d reps",
              m->algorithm, (unsigned long long)m->bytes, m->outliers, m->reps);
        check(m->nsamples == (size_t)m->reps, "%s at %llu: %zu samples for %d reps", m->algorithm,
              (unsigned long long)m->bytes, m->nsamples, m->reps);
        check(native || m->verified == 1, "%s at %llu: verified = %d", m->algorithm,
              (unsigned long long)m->bytes, m->verified);
        /* Both metrics are stored, from the same repetitions (less the late synchronised
         * starts). */
        check(m->loop_reps >= m->reps && m->loop_nsamples == (size_t)m->loop_reps,
              "%s at %llu: loop metric %d reps, %zu samples (sync %d reps)", m->algorithm,
              (unsigned long long)m->bytes, m->loop_reps, m->loop_nsamples, m->reps);
        check(m->loop_outliers >= 0 && m->loop_outliers < m->loop_reps,
              "%s at %llu: %d loop outliers of %d", m->algorithm, (unsigned long long)m->bytes,
              m->loop_outliers, m->loop_reps);
        check(m->loop_min > 0 && m->loop_min <= m->loop_q1 && m->loop_q1 <= m->loop_median &&
                  m->loop_median <= m->loop_q3 && m->loop_q3 <= m->loop_max,
              "%s at %llu: loop min %g q1 %g median %g q3 %g max %g out of order", m->algorithm,
              (unsigned long long)m->bytes, m->loop_min, m->loop_q1, m->loop_median, m->loop_q3,
              m->loop_max);
        check(m->loop_rankmax > 0, "%s at %llu: loop rankmax median %g not positive", m->algorithm,
              (unsigned long long)m->bytes, m->loop_rankmax);
    }
}

static void check_failures(const rows_t *fs, int64_t run_id, int nprocs, cs_bench_bufs_t *bufs) {
    for (int w = 0; w < NWRONG; w++) {
        const char *coll = cs_coll_name(wrong[w]->coll);
        for (int si = 0; si < NSIZES; si++) {
            cs_call_t call;
            int n;
            if (call_of(&call, wrong[w]->coll, si, bufs, MPI_COMM_WORLD) != CS_OK) {
                check(0, "cannot build the %s call at %d bytes", coll, plan_sizes[si]);
                continue;
            }
            n = count_points(fs, coll, wrong[w]->name, call.bytes);
            check(n == 1, "%s at %zu bytes: %d failure rows, want 1", wrong[w]->name, call.bytes,
                  n);
        }
    }
    check(fs->n == NWRONG * NSIZES, "%d failure rows, want %d", fs->n, NWRONG * NSIZES);
    for (int i = 0; i < fs->n; i++) {
        const row_t *f = &fs->v[i];
        check(is_wrong(f->algorithm), "correct algorithm %s failed verification at %llu: %s",
              f->algorithm, (unsigned long long)f->bytes, f->message);
        check(f->run_id == run_id && f->comm_size == nprocs,
              "failure of %s: run_id %lld, comm_size %d", f->algorithm, (long long)f->run_id,
              f->comm_size);
        check(f->message[0] != '\0', "failure of %s at %llu has no message", f->algorithm,
              (unsigned long long)f->bytes);
    }
}

/* The measurement of variant (algorithm, params) at `bytes`. */
static const row_t *find_point(const rows_t *rs, const char *coll, const char *algorithm,
                               const char *params, uint64_t bytes) {
    for (int i = 0; i < rs->n; i++) {
        if (strcmp(rs->v[i].coll, coll) == 0 && strcmp(rs->v[i].algorithm, algorithm) == 0 &&
            strcmp(rs->v[i].params, params) == 0 && rs->v[i].bytes == bytes) {
            return &rs->v[i];
        }
    }
    return NULL;
}

/* Equal up to rounding (the rules recompute the statistics from the stored samples). */
static int same(double a, double b) {
    return fabs(a - b) <= 1e-9 * fabs(b) + 1e-12;
}

/* Is `b` a possible boundary: above one measured size and at most the next? */
static int between_sizes(uint64_t b, const uint64_t *bytes) {
    for (int si = 1; si < NSIZES; si++) {
        if (b > bytes[si - 1] && b <= bytes[si]) {
            return 1;
        }
    }
    return 0;
}

/* Is `b` one of the measured sizes? */
static int measured_size(uint64_t b, const uint64_t *bytes) {
    for (int si = 0; si < NSIZES; si++) {
        if (bytes[si] == b) {
            return 1;
        }
    }
    return 0;
}

/* Is the interval starting at rs->v[i] (of a key ending at `last`) a native gap (rules.h): native
 * alone, from just above one measured size to the next measured size, more than x2 above it? */
static int native_gap(const rows_t *rs, int i, int last, const char *native,
                      const uint64_t *bytes) {
    const row_t *w = &rs->v[i];
    return strcmp(w->algorithm, native) == 0 && (i + 1 == last || rs->v[i + 1].lo != w->lo) &&
           w->lo > 0 && measured_size(w->lo - 1, bytes) && w->hi != CS_RULE_UNBOUNDED &&
           measured_size(w->hi, bytes) && w->hi / 2 > w->lo - 1;
}

/* Rules of one key: rs[first..last). */
static void check_rule_group(const rows_t *rs, int first, int last, const rows_t *ms,
                             int64_t run_id, const uint64_t *bytes) {
    const row_t *g = &rs->v[first];
    char native[64];
    uint64_t next_lo = 0;
    snprintf(native, sizeof(native), "%s/native", g->coll);
    for (int i = first; i < last;) {
        int j = i;
        const row_t *w = &rs->v[i];
        uint64_t first_size = 0; /* the interval's smallest measured size */
        check(w->rank == 1, "%s np=%d: interval at %llu starts with rank %d", g->coll, g->comm_size,
              (unsigned long long)w->lo, w->rank);
        check(w->lo == next_lo, "%s np=%d: interval starts at %llu, previous ended at %llu",
              g->coll, g->comm_size, (unsigned long long)w->lo, (unsigned long long)next_lo);
        check(w->hi > w->lo, "%s np=%d: empty interval [%llu, %llu)", g->coll, g->comm_size,
              (unsigned long long)w->lo, (unsigned long long)w->hi);
        check(w->lo == 0 || between_sizes(w->lo, bytes),
              "%s np=%d: boundary %llu not between measured sizes", g->coll, g->comm_size,
              (unsigned long long)w->lo);
        for (int si = NSIZES - 1; si >= 0; si--) {
            if (bytes[si] >= w->lo && bytes[si] < w->hi) {
                first_size = bytes[si];
            }
        }
        while (j < last && rs->v[j].lo == w->lo) {
            const row_t *r = &rs->v[j];
            const cs_algo_t *a = cs_registry_find(r->algorithm);
            int last_in_list = j + 1 == last || rs->v[j + 1].lo != w->lo;
            check(r->rank == j - i + 1, "%s np=%d [%llu]: rank %d at position %d", g->coll,
                  g->comm_size, (unsigned long long)w->lo, r->rank, j - i + 1);
            check(r->hi == w->hi, "%s np=%d [%llu]: ranked list with two upper bounds", g->coll,
                  g->comm_size, (unsigned long long)w->lo);
            check(!is_wrong(r->algorithm), "wrong algorithm %s in a rule of %s", r->algorithm,
                  g->coll);
            check(a != NULL && strcmp(cs_coll_name(a->coll), g->coll) == 0, "rule of %s names %s",
                  g->coll, r->algorithm);
            if (first_size == 0 && native_gap(rs, i, last, native, bytes)) {
                first_size = w->lo - 1; /* a native gap carries native's values at the size below */
            }
            if (first_size == 0) {
                check(0, "%s np=%d: interval [%llu, %llu) holds no measured size", g->coll,
                      g->comm_size, (unsigned long long)w->lo, (unsigned long long)w->hi);
            } else {
                const row_t *m = find_point(ms, g->coll, r->algorithm, r->params, first_size);
                const row_t *n = find_point(ms, g->coll, native, "", first_size);
                check(m != NULL, "%s: rule names %s, not measured at %llu", g->coll, r->algorithm,
                      (unsigned long long)first_size);
                /* A winner's values are the metric's it won under (rules.h): the synchronised
                 * one's, or the loop metric's; native's the synchronised one's (policy both),
                 * and on an oversubscribed run, which decides 'both' as 'loop', every value is
                 * the loop metric's. */
                int is_native = strcmp(r->algorithm, native) == 0;
                check(m == NULL || (by_loop ? same(m->loop_median, r->median)
                                            : same(m->median, r->median) ||
                                                  (!is_native && same(m->loop_median, r->median))),
                      "%s: rule median of %s is %g, measured %g (loop %g)", g->coll, r->algorithm,
                      r->median, m ? m->median : NAN, m ? m->loop_median : NAN);
                check(n == NULL ||
                          (by_loop ? same(n->loop_median, r->native_us)
                                   : same(n->median, r->native_us) ||
                                         (!is_native && same(n->loop_median, r->native_us))),
                      "%s: rule native_us %g, measured %g (loop %g)", g->coll, r->native_us,
                      n ? n->median : NAN, n ? n->loop_median : NAN);
                check(by_loop || m == NULL || n == NULL ||
                          same(m->median, r->median) == same(n->median, r->native_us),
                      "%s: rule of %s mixes the two metrics", g->coll, r->algorithm);
            }
            check((strcmp(r->algorithm, native) == 0) == last_in_list,
                  "%s np=%d [%llu, ...): %s at rank %d (native must end the list, only there)",
                  g->coll, g->comm_size, (unsigned long long)w->lo, r->algorithm, r->rank);
            check(r->median > 0 && r->native_us > 0, "%s: rule %s medians %g, native %g", g->coll,
                  r->algorithm, r->median, r->native_us);
            check(r->run_id == run_id, "%s: rule from run %lld", g->coll, (long long)r->run_id);
            if (strcmp(r->algorithm, native) != 0) {
                check(cs_stats_is_winner(r->p_value, r->median, r->native_us, CS_STATS_ALPHA,
                                         CS_STATS_MIN_GAIN),
                      "%s: %s ranked above native with p = %g, median %g vs native %g", g->coll,
                      r->algorithm, r->p_value, r->median, r->native_us);
            }
            j++;
        }
        next_lo = w->hi;
        i = j;
    }
    check(next_lo == CS_RULE_UNBOUNDED, "%s np=%d: last interval ends at %llu, not unbounded",
          g->coll, g->comm_size, (unsigned long long)next_lo);
}

static void check_rules(const rows_t *rs, const rows_t *ms, int64_t run_id, int nprocs,
                        cs_bench_bufs_t *bufs) {
    int groups = 0;
    int seen[NCOLLS] = {0};
    for (int first = 0; first < rs->n;) {
        int last = first;
        const row_t *g = &rs->v[first];
        uint64_t bytes[NSIZES] = {0};
        cs_coll_t coll;
        while (last < rs->n && strcmp(rs->v[last].coll, g->coll) == 0 &&
               rs->v[last].comm_size == g->comm_size && rs->v[last].ppn == g->ppn) {
            last++;
        }
        groups++;
        for (int c = 0; c < NCOLLS; c++) {
            seen[c] += strcmp(plan_colls[c], g->coll) == 0;
        }
        check(g->comm_size == nprocs, "rules of %s for comm_size %d", g->coll, g->comm_size);
        if (cs_coll_from_name(g->coll, &coll) == CS_OK) {
            for (int si = 0; si < NSIZES; si++) {
                cs_call_t call;
                if (call_of(&call, coll, si, bufs, MPI_COMM_WORLD) == CS_OK) {
                    bytes[si] = call.bytes;
                }
            }
        }
        check_rule_group(rs, first, last, ms, run_id, bytes);
        first = last;
    }
    check(groups == NCOLLS, "rules for %d (coll, comm_size, ppn) keys, want %d", groups, NCOLLS);
    for (int c = 0; c < NCOLLS; c++) {
        check(seen[c] == 1, "rules of %s: %d keys, want 1", plan_colls[c], seen[c]);
    }
}

/* Rank 0: everything the database should hold after the run. */
/* The confirmation rounds (docs/tuning.md "Confirmation"): every row re-measures a point of the
 * first pass, and one of round r > 1 a candidate that round r - 1 measured at that size; each
 * size a round measured has native and at most CS_BENCH_CONFIRM_CANDS candidates there; and a
 * non-native rule that starts at a size a round measured was measured there again, in that
 * round. */
static void check_confirmations(const rows_t *cs, const rows_t *ms, const rows_t *rules) {
    for (int i = 0; i < cs->n; i++) {
        const row_t *c = &cs->v[i];
        int first = 0, natives = 0, here = 0, before = c->round == 1;
        for (int j = 0; j < ms->n; j++) {
            first += strcmp(ms->v[j].coll, c->coll) == 0 &&
                     strcmp(ms->v[j].algorithm, c->algorithm) == 0 &&
                     strcmp(ms->v[j].params, c->params) == 0 && ms->v[j].bytes == c->bytes;
        }
        check(first == 1, "confirmation of %s(%s) at %llu bytes: %d first-pass measurements",
              c->algorithm, c->params, (unsigned long long)c->bytes, first);
        check(!is_wrong(c->algorithm), "wrong algorithm %s confirmed", c->algorithm);
        check(c->round >= 1 && c->round <= CS_BENCH_CONFIRM_ROUNDS, "%s at %llu bytes: round %d",
              c->algorithm, (unsigned long long)c->bytes, c->round);
        for (int j = 0; j < cs->n; j++) {
            const row_t *d = &cs->v[j];
            if (strcmp(d->coll, c->coll) == 0 && d->bytes == c->bytes && d->round == c->round) {
                const cs_algo_t *a = cs_registry_find(d->algorithm);
                here++;
                natives += a != NULL && cs_algo_is_native(a);
            }
            before |= strcmp(d->coll, c->coll) == 0 && d->bytes == c->bytes &&
                      d->round == c->round - 1 && strcmp(d->algorithm, c->algorithm) == 0 &&
                      strcmp(d->params, c->params) == 0;
        }
        check(natives == 1 && here >= 2 && here <= 1 + CS_BENCH_CONFIRM_CANDS,
              "%s at %llu bytes: confirmation round %d measured %d candidates, %d native", c->coll,
              (unsigned long long)c->bytes, c->round, here, natives);
        check(before, "%s(%s) at %llu bytes: in round %d, not in the round before", c->algorithm,
              c->params, (unsigned long long)c->bytes, c->round);
    }
    for (int i = 0; i < rules->n; i++) {
        const row_t *r = &rules->v[i];
        const cs_algo_t *a = cs_registry_find(r->algorithm);
        int confirmed = 0, measured = 0;
        if (a == NULL || cs_algo_is_native(a)) {
            continue;
        }
        for (int j = 0; j < cs->n; j++) {
            if (strcmp(cs->v[j].coll, r->coll) == 0 && cs->v[j].bytes >= r->lo &&
                cs->v[j].bytes < r->hi) {
                measured = 1;
                confirmed |= strcmp(cs->v[j].algorithm, r->algorithm) == 0 &&
                             strcmp(cs->v[j].params, r->params) == 0;
            }
        }
        /* and in every round that measured a size of the interval */
        for (int j = 0; j < cs->n && measured && confirmed; j++) {
            const row_t *d = &cs->v[j];
            int again = 0;
            if (strcmp(d->coll, r->coll) != 0 || d->bytes < r->lo || d->bytes >= r->hi) {
                continue;
            }
            for (int k = 0; k < cs->n; k++) {
                again |= strcmp(cs->v[k].coll, d->coll) == 0 && cs->v[k].bytes == d->bytes &&
                         cs->v[k].round == d->round &&
                         strcmp(cs->v[k].algorithm, r->algorithm) == 0 &&
                         strcmp(cs->v[k].params, r->params) == 0;
            }
            confirmed = again;
        }
        check(!measured || confirmed,
              "rule %s(%s) for [%llu, %llu) was not measured again where the confirmation pass "
              "measured that interval",
              r->algorithm, r->params, (unsigned long long)r->lo, (unsigned long long)r->hi);
    }
}

static int on_run(const cs_db_run_row_t *r, void *ctx) {
    (void)ctx;
    if (r->id == 1) {
        by_loop = r->run.oversubscribed && r->run.metric == CS_DB_METRIC_BOTH;
    }
    return CS_OK;
}

static void check_database(const char *path, int nprocs) {
    cs_db_t *db = NULL;
    char why[512] = "";
    int64_t machine_id = 0, nruns = -1, nmachines = -1;
    const int64_t run_id = 1; /* the only run of a fresh database */
    cs_db_run_status_t status = CS_DB_RUN_RUNNING;
    cs_db_machine_t any = {NULL, NULL, NULL};
    cs_bench_bufs_t bufs = {0};
    rows_t *ms = calloc(1, sizeof(*ms)), *fs = calloc(1, sizeof(*fs)), *rs = calloc(1, sizeof(*rs));
    rows_t *cs = calloc(1, sizeof(*cs));
    if (ms == NULL || fs == NULL || rs == NULL || cs == NULL ||
        cs_bench_bufs_alloc(&bufs, (size_t)plan_sizes[NSIZES - 1] / sizeof(int), nprocs) != CS_OK) {
        check(0, "out of memory");
        goto out;
    }
    if (cs_db_open(path, CS_DB_READ_ONLY, &db, why, sizeof(why)) != CS_OK) {
        check(0, "cannot open %s read-only: %s", path, why);
        goto out;
    }
    check(cs_db_count_rows(db, "machine", 0, &nmachines) == CS_OK && nmachines == 1,
          "%lld machines, want 1", (long long)nmachines);
    check(cs_db_count_rows(db, "run", 0, &nruns) == CS_OK && nruns == 1, "%lld runs, want 1",
          (long long)nruns);
    check(cs_db_run_status(db, run_id, &status) == CS_OK && status == CS_DB_RUN_DONE,
          "run %lld has status %d, want done", (long long)run_id, (int)status);
    check(cs_db_find_machine(db, &any, &machine_id) == CS_OK, "no machine with rules");
    check(cs_db_foreach_run(db, machine_id, on_run, NULL) == CS_OK, "cannot read the run");
    check(cs_db_foreach_measurement(db, run_id, on_measurement, ms) == CS_OK && !ms->overflow,
          "cannot read the measurements");
    check(cs_db_foreach_failure(db, run_id, on_failure, fs) == CS_OK && !fs->overflow,
          "cannot read the failures");
    check(cs_db_foreach_rule(db, machine_id, on_rule, rs) == CS_OK && !rs->overflow,
          "cannot read the rules");
    check(cs_db_foreach_confirmation(db, run_id, on_measurement, cs) == CS_OK && !cs->overflow,
          "cannot read the confirmation pass's measurements");
    check_measurements(ms, run_id, nprocs, &bufs);
    check_confirmations(cs, ms, rs);
    check_failures(fs, run_id, nprocs, &bufs);
    check_rules(rs, ms, run_id, nprocs, &bufs);
out:
    cs_db_close(db);
    cs_bench_bufs_free(&bufs);
    free(ms);
    free(fs);
    free(rs);
    free(cs);
}

int main(int argc, char **argv) {
    int rank, nprocs, status, made_dir = 0;
    char dir[256] = "", path[4096] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (rank == 0 && nprocs >= 2) {
        if (argc > 1) {
            snprintf(path, sizeof(path), "%s", argv[1]);
        } else {
            const char *tmp = getenv("TMPDIR");
            snprintf(dir, sizeof(dir), "%s/collsel-bench-run-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
            if (mkdtemp(dir) != NULL) {
                made_dir = 1;
                snprintf(path, sizeof(path), "%s/bench.db", dir);
            }
        }
    }
    if (nprocs < 2) { /* the wrong algorithms are right on one process */
        if (rank == 0) {
            printf("FAIL: needs at least 2 processes (mpirun -np 2)\n0 passed, 1 failed\n");
        }
        MPI_Finalize();
        return 1;
    }
    MPI_Bcast(path, (int)sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (path[0] == '\0') {
        if (rank == 0) {
            printf("FAIL: cannot make a temporary directory\n0 passed, 1 failed\n");
        }
        MPI_Finalize();
        return 1;
    }
    {
        char np_text[16]; /* the checks below expect the job size alone (--comm-sizes) */
        snprintf(np_text, sizeof(np_text), "%d", nprocs);
        char *bench_argv[] = {"collsel-bench",
                              "--comm-sizes",
                              np_text,
                              "--db",
                              path,
                              "--colls",
                              "allreduce,bcast,gather",
                              "--sizes",
                              "8,1K,16K",
                              "--reps-max",
                              REPS_MAX_TEXT,
                              "--quiet",
                              "--no-refine", /* the checks below expect exactly these sizes */
                              NULL};
        int bench_argc = (int)(sizeof(bench_argv) / sizeof(bench_argv[0])) - 1;
        status = cs_bench_main(bench_argc, bench_argv, extra, NEXTRA, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        check(status == 0, "cs_bench_main returned %d on rank 0, want 0", status);
        if (status == 0) {
            check_database(path, nprocs);
        }
    } else {
        /* Other ranks report a bad status through the shared verdict below. */
        failed += status != 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d passed, %d failed\n", passed, failed);
        if (made_dir) {
            if (failed == 0) {
                char journal[4200];
                snprintf(journal, sizeof(journal), "%s-journal", path);
                unlink(journal);
                unlink(path);
                rmdir(dir);
            } else {
                printf("database kept in %s\n", path);
            }
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}

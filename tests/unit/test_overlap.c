/* Tuning for overlap, without MPI (bench/overlap.h, db/db.h): the nonblocking rules derived
 * from synthetic overlap measurements (a candidate with significantly less overhead than native
 * wins its sizes, one without samples or without a significant gain never does), the rows and
 * rules through a database and back (cs_bench_overlap_derive), a neighbourhood collective's
 * rows and rules per pattern, the size and collective choice of the pass and its point count,
 * and --overlap. */
#include "db.h"
#include "options.h"
#include "overlap.h"
#include "patterns.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 12 /* samples per synthetic row */

/* An overlap row of allreduce at `bytes` for `alg` whose overhead samples are
 * base, base + step, ... (NS of them; none when base < 0), stored in s[NS]. */
static cs_db_overlap_t row(const char *alg, uint64_t bytes, double base, double step, double *s) {
    cs_db_overlap_t o;
    memset(&o, 0, sizeof(o));
    o.point = (cs_db_point_t){"allreduce", alg, "", 4, 4, bytes, ""};
    o.reps = NS;
    o.compute_us = 100;
    o.blocking_us = o.nooverlap_us = 50;
    o.overhead_us = base < 0 ? -base : base + step * (NS - 1) / 2.0;
    o.overlap_us = o.compute_us + o.overhead_us;
    o.overhead_q1_us = o.overhead_q3_us = NAN;
    o.freed = (o.nooverlap_us - o.overhead_us) / o.nooverlap_us;
    o.freed = o.freed < 0 ? 0 : o.freed;
    for (int i = 0; base >= 0 && i < NS; i++) {
        s[i] = base + step * i;
    }
    o.samples_us = base >= 0 ? s : NULL;
    o.nsamples = base >= 0 ? NS : 0;
    return o;
}

/* 8 B: recursive doubling's overhead (5..6.1 us) is far below native's (20..21.1 us); 64 KiB:
 * the same samples as native. */
START_TEST(candidate_wins_where_significant) {
    double s[4][NS];
    cs_db_overlap_t rows[4] = {
        row("allreduce/native", 8, 20, 0.1, s[0]),
        row("allreduce/recursive_doubling", 8, 5, 0.1, s[1]),
        row("allreduce/recursive_doubling", 65536, 30, 0.1, s[2]),
        row("allreduce/native", 65536, 30, 0.1, s[3]),
    };
    cs_rule_t out[8];
    int n = 0;
    ck_assert_int_eq(cs_bench_overlap_rules(rows, 4, NULL, 0, out, 8, &n), CS_OK);
    ck_assert_int_eq(n, 3);
    ck_assert_uint_eq(out[0].lo_bytes, 0);
    ck_assert_int_eq(out[0].rank, 1);
    ck_assert_str_eq(out[0].algorithm, "allreduce/recursive_doubling");
    ck_assert(out[0].p_value < 0.01);
    ck_assert_double_eq_tol(out[0].median_us, 5.55, 1e-9);
    ck_assert_double_eq_tol(out[0].native_us, 20.55, 1e-9);
    ck_assert_int_eq(out[1].rank, 2);
    ck_assert_str_eq(out[1].algorithm, "allreduce/native");
    /* as for the blocking rules, an unmeasured gap between a candidate's size and native's goes
     * to native: the candidate's interval ends at its own measured size */
    ck_assert_uint_eq(out[0].hi_bytes, 9);
    ck_assert_uint_eq(out[2].lo_bytes, 9);
    ck_assert_uint_eq(out[2].hi_bytes, CS_RULE_UNBOUNDED);
    ck_assert_int_eq(out[2].rank, 1);
    ck_assert_str_eq(out[2].algorithm, "allreduce/native");
}
END_TEST

/* A lower median without samples (no test possible) or with a gain under 3 % keeps native. */
START_TEST(no_samples_or_small_gain_keeps_native) {
    double s[4][NS];
    cs_db_overlap_t rows[4] = {
        row("allreduce/native", 8, 20, 0.1, s[0]),
        row("allreduce/linear", 8, -5, 0, s[1]), /* median 5 us, no samples */
        row("allreduce/native", 1024, 100, 0.01, s[2]),
        row("allreduce/linear", 1024, 98, 0.01, s[3]), /* always faster, but by 2 % */
    };
    cs_rule_t out[8];
    int n = 0;
    ck_assert_int_eq(cs_bench_overlap_rules(rows, 4, NULL, 0, out, 8, &n), CS_OK);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0].algorithm, "allreduce/native");
    ck_assert_uint_eq(out[0].hi_bytes, CS_RULE_UNBOUNDED);
}
END_TEST

START_TEST(size_without_native_is_an_error) {
    double s[NS];
    cs_db_overlap_t r = row("allreduce/linear", 8, 5, 0.1, s);
    cs_rule_t out[4];
    int n = 0;
    ck_assert_int_eq(cs_bench_overlap_rules(&r, 1, NULL, 0, out, 4, &n), CS_ERR_ARG);
    ck_assert_int_eq(cs_bench_overlap_rules(NULL, 0, NULL, 0, out, 4, &n), CS_OK);
    ck_assert_int_eq(n, 0);
}
END_TEST

static int first_rule(const cs_rule_t *r, void *ctx) {
    *(cs_rule_t *)ctx = *r;
    return 1; /* stop */
}

static int count_samples(const cs_db_overlap_t *o, void *ctx) {
    *(int *)ctx += (int)o->nsamples;
    ck_assert_double_eq_tol(o->samples_us[1] - o->samples_us[0], 0.1, 1e-9);
    return CS_OK;
}

/* Rows stored, read back with their samples, and derived into nonblocking rules (table
 * nb_rule) that the blocking rules (table rule) do not see. */
START_TEST(database_round_trip_and_derive) {
    char why[512] = "";
    cs_db_t *db = NULL;
    cs_db_machine_t m = {"node01", "packages=1 numa=1 cores=2 pus=2", "Open MPI v4.1.4"};
    cs_db_run_t run = {0};
    int64_t machine_id = 0, run_id = 0, count = -1;
    bool resumed = false, exists = false;
    double s[2][NS];
    cs_db_overlap_t rows[2] = {
        row("allreduce/native", 8, 20, 0.1, s[0]),
        row("allreduce/recursive_doubling", 8, 5, 0.1, s[1]),
    };
    int nrules = 0, seen = 0;
    cs_rule_t got;
    ck_assert_int_eq(cs_db_open(":memory:", CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_OK);
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &m, &machine_id), CS_OK);
    run.machine_id = machine_id;
    run.nprocs = 4;
    run.nnodes = 1;
    run.ppn = 4;
    ck_assert_int_eq(cs_db_start_run(db, &run, false, &run_id, &resumed), CS_OK);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(cs_db_insert_overlap(db, run_id, &rows[i]), CS_OK);
    }
    rows[0].freed = 1.5; /* outside [0, 1] */
    ck_assert_int_eq(cs_db_insert_overlap(db, run_id, &rows[0]), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_overlap_exists(db, run_id, &rows[1].point, &exists), CS_OK);
    ck_assert(exists);
    ck_assert_int_eq(cs_db_count_rows(db, "overlap", run_id, &count), CS_OK);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(cs_bench_overlap_derive(db, machine_id, run_id, NULL, 0, &nrules), CS_OK);
    ck_assert_int_eq(nrules, 2);
    ck_assert_int_eq(cs_db_count_rows(db, "nb_rule", 0, &count), CS_OK);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(cs_db_count_rows(db, "rule", 0, &count), CS_OK);
    ck_assert_int_eq(count, 0);
    ck_assert_int_eq(cs_db_foreach_nb_rule(db, machine_id, first_rule, &got), CS_OK);
    ck_assert_str_eq(got.algorithm, "allreduce/recursive_doubling");
    ck_assert_int_eq(got.comm_size, 4);
    ck_assert_int_eq(got.run_id, run_id);
    ck_assert_int_eq(cs_db_foreach_overlap(db, run_id, count_samples, &seen), CS_OK);
    ck_assert_int_eq(seen, 2 * NS);
    cs_db_close(db);
}
END_TEST

/* Enough rows that the reader's array grows several times while they are read (the rows' texts
 * must follow it: under AddressSanitizer a stale pointer fails here): 100 sizes at which
 * recursive doubling always wins, one interval. */
START_TEST(derive_many_rows) {
    char why[512] = "";
    cs_db_t *db = NULL;
    cs_db_machine_t m = {"node01", "packages=1 numa=1 cores=2 pus=2", "Open MPI v4.1.4"};
    cs_db_run_t run = {.nprocs = 4, .nnodes = 1, .ppn = 4};
    int64_t machine_id = 0, run_id = 0;
    bool resumed = false;
    int nrules = 0;
    cs_rule_t got;
    ck_assert_int_eq(cs_db_open(":memory:", CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_OK);
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &m, &machine_id), CS_OK);
    run.machine_id = machine_id;
    ck_assert_int_eq(cs_db_start_run(db, &run, false, &run_id, &resumed), CS_OK);
    for (int i = 0; i < 100; i++) {
        double s[2][NS];
        cs_db_overlap_t a = row("allreduce/native", 4 * (uint64_t)(i + 1), 20, 0.1, s[0]);
        cs_db_overlap_t b =
            row("allreduce/recursive_doubling", 4 * (uint64_t)(i + 1), 5, 0.1, s[1]);
        ck_assert_int_eq(cs_db_insert_overlap(db, run_id, &a), CS_OK);
        ck_assert_int_eq(cs_db_insert_overlap(db, run_id, &b), CS_OK);
    }
    ck_assert_int_eq(cs_bench_overlap_derive(db, machine_id, run_id, NULL, 0, &nrules), CS_OK);
    ck_assert_int_eq(nrules, 2);
    ck_assert_int_eq(cs_db_foreach_nb_rule(db, machine_id, first_rule, &got), CS_OK);
    ck_assert_str_eq(got.algorithm, "allreduce/recursive_doubling");
    ck_assert_uint_eq(got.hi_bytes, CS_RULE_UNBOUNDED);
    cs_db_close(db);
}
END_TEST

/* An overlap row of neighbourhood collective `coll` on `pattern` at `bytes` per block (row's
 * samples). */
static cs_db_overlap_t nrow(const char *coll, const char *pattern, const char *alg, uint64_t bytes,
                            double base, double *s) {
    cs_db_overlap_t o = row(alg, bytes, base, 0.1, s);
    o.point.coll = coll;
    o.point.pattern = pattern;
    return o;
}

typedef struct nb_seen {
    int n, cart2d, moore2d, alltoallv, plain;
    char cart2d_first[CS_RULE_ALGORITHM];
    uint64_t alltoallv_hi;
} nb_seen_t;

static int see_nb_rule(const cs_rule_t *r, void *ctx) {
    nb_seen_t *s = ctx;
    s->n++;
    if (r->coll == CS_COLL_NEIGHBOR_ALLTOALL && strcmp(r->pattern, "cart2d") == 0) {
        if (s->cart2d++ == 0) {
            snprintf(s->cart2d_first, sizeof(s->cart2d_first), "%s", r->algorithm);
        }
    } else if (r->coll == CS_COLL_NEIGHBOR_ALLTOALL && strcmp(r->pattern, "moore2d") == 0) {
        s->moore2d++;
    } else if (r->coll == CS_COLL_NEIGHBOR_ALLTOALLV && strcmp(r->pattern, "cart2d") == 0) {
        s->alltoallv += r->rank == 1;
        s->alltoallv_hi = r->hi_bytes;
    } else {
        s->plain += r->pattern[0] == '\0';
    }
    return CS_OK;
}

/* Neighbourhood collectives: rows keyed by pattern (cs_db_overlap_exists tells the patterns
 * apart), rules derived per (collective, pattern, size, ppn) and stored with their pattern
 * (cs_db_replace_nb_pattern_rules); a v form gets one interval for every block size. */
START_TEST(neighbor_rows_and_rules_per_pattern) {
    char why[512] = "";
    cs_db_t *db = NULL;
    cs_db_machine_t m = {"node01", "packages=1 numa=1 cores=2 pus=2", "Open MPI v4.1.4"};
    cs_db_run_t run = {.nprocs = 4, .nnodes = 1, .ppn = 4};
    int64_t machine_id = 0, run_id = 0;
    bool resumed = false, exists = true;
    int nrules = 0;
    nb_seen_t seen = {0};
    double s[10][NS];
    cs_db_overlap_t rows[10] = {
        /* cart2d: coloured far below native at both block sizes */
        nrow("neighbor_alltoall", "cart2d", "neighbor_alltoall/native", 16, 20, s[0]),
        nrow("neighbor_alltoall", "cart2d", "neighbor_alltoall/coloured", 16, 5, s[1]),
        nrow("neighbor_alltoall", "cart2d", "neighbor_alltoall/native", 4096, 40, s[2]),
        nrow("neighbor_alltoall", "cart2d", "neighbor_alltoall/coloured", 4096, 10, s[3]),
        /* moore2d: the same sizes, native alone */
        nrow("neighbor_alltoall", "moore2d", "neighbor_alltoall/native", 16, 20, s[4]),
        nrow("neighbor_alltoall", "moore2d", "neighbor_alltoall/native", 4096, 40, s[5]),
        /* the v form: linear wins at 16 B only, so one interval keeps native */
        nrow("neighbor_alltoallv", "cart2d", "neighbor_alltoallv/native", 16, 20, s[6]),
        nrow("neighbor_alltoallv", "cart2d", "neighbor_alltoallv/linear", 16, 5, s[7]),
        nrow("neighbor_alltoallv", "cart2d", "neighbor_alltoallv/native", 4096, 40, s[8]),
        nrow("neighbor_alltoallv", "cart2d", "neighbor_alltoallv/linear", 4096, 80, s[9]),
    };
    cs_db_point_t other = rows[0].point;
    ck_assert_int_eq(cs_db_open(":memory:", CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_OK);
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &m, &machine_id), CS_OK);
    run.machine_id = machine_id;
    ck_assert_int_eq(cs_db_start_run(db, &run, false, &run_id, &resumed), CS_OK);
    for (int i = 0; i < 10; i++) {
        ck_assert_int_eq(cs_db_insert_overlap(db, run_id, &rows[i]), CS_OK);
    }
    other.pattern = "random30";
    ck_assert_int_eq(cs_db_overlap_exists(db, run_id, &other, &exists), CS_OK);
    ck_assert(!exists);
    ck_assert_int_eq(cs_db_overlap_exists(db, run_id, &rows[4].point, &exists), CS_OK);
    ck_assert(exists);
    /* a plain allreduce key beside them keeps its pattern-less rules */
    {
        double t[2][NS];
        cs_db_overlap_t a = row("allreduce/native", 8, 20, 0.1, t[0]);
        ck_assert_int_eq(cs_db_insert_overlap(db, run_id, &a), CS_OK);
    }
    ck_assert_int_eq(cs_bench_overlap_derive(db, machine_id, run_id, NULL, 0, &nrules), CS_OK);
    ck_assert_int_eq(cs_db_foreach_nb_rule(db, machine_id, see_nb_rule, &seen), CS_OK);
    ck_assert_int_eq(nrules, seen.n);
    /* cart2d: coloured then native over [0, inf); moore2d: native; v: one interval, native */
    ck_assert_int_eq(seen.cart2d, 2);
    ck_assert_str_eq(seen.cart2d_first, "neighbor_alltoall/coloured");
    ck_assert_int_eq(seen.moore2d, 1);
    ck_assert_int_eq(seen.alltoallv, 1);
    ck_assert_uint_eq(seen.alltoallv_hi, CS_RULE_UNBOUNDED);
    ck_assert_int_eq(seen.plain, 1);
    /* a rule whose pattern is not the key's is refused */
    {
        cs_rule_t r = {0};
        r.machine_id = machine_id;
        r.coll = CS_COLL_NEIGHBOR_ALLTOALL;
        r.comm_size = 4;
        r.ppn = 4;
        r.hi_bytes = CS_RULE_UNBOUNDED;
        r.rank = 1;
        snprintf(r.algorithm, sizeof(r.algorithm), "neighbor_alltoall/native");
        snprintf(r.pattern, sizeof(r.pattern), "moore2d");
        ck_assert_int_eq(cs_db_replace_nb_pattern_rules(db, machine_id, CS_COLL_NEIGHBOR_ALLTOALL,
                                                        "cart2d", 4, 4, &r, 1),
                         CS_ERR_ARG);
    }
    cs_db_close(db);
}
END_TEST

/* The pass's points (cs_bench_overlap_points, what the pass paces by and --list prints):
 * barrier once per communicator size, not at every size; a neighbourhood collective on each
 * pattern planned at a size that it is tuned on, at each overlap block size. */
START_TEST(pass_points) {
    cs_bench_opts_t o;
    char err[256];
    char *argv[] = {
        "collsel-bench", "--colls",    "allreduce,barrier,neighbor_alltoall,neighbor_alltoallv",
        "--sizes",       "4,16,64,1K", "--block-sizes",
        "1,16,256"};
    cs_bench_plan_t *plan = calloc(1, sizeof(*plan));
    int cart2d = cs_bench_pattern_find("cart2d"), iso = cs_bench_pattern_find("iso_moore2d_r1");
    ck_assert_ptr_nonnull(plan);
    ck_assert_int_ge(cart2d, 0);
    ck_assert_int_ge(iso, 0);
    ck_assert_int_eq(cs_bench_parse(7, argv, &o, err, sizeof(err)), CS_OK);
    /* a plan made by hand: its patterns need MPI_Dims_create, and this test runs without MPI */
    plan->ncomm_sizes = 2;
    plan->comm_sizes[0] = 2;
    plan->comm_sizes[1] = 4;
    plan->patterns_at[0] = 0;                            /* none valid at 2 */
    plan->patterns_at[1] = (1u << cart2d) | (1u << iso); /* the iso one: alltoall only */
    plan->nalgos[CS_COLL_ALLREDUCE] = plan->nalgos[CS_COLL_BARRIER] = 1;
    plan->nalgos[CS_COLL_NEIGHBOR_ALLTOALL] = plan->nalgos[CS_COLL_NEIGHBOR_ALLTOALLV] = 1;
    plan->nblock_sizes = 3;
    plan->block_sizes[0] = 1;
    plan->block_sizes[1] = 16;
    plan->block_sizes[2] = 256;
    /* --overlap on: sizes 4, 64 and 1K (x16 apart), block sizes 1, 16, 256; per communicator
     * size allreduce 3 points, barrier 1; at 4 alltoall on 2 patterns, alltoallv on 1, 3 blocks */
    ck_assert_int_eq(cs_bench_overlap_points(&o, plan), 2 * (3 + 1) + (2 + 1) * 3);
    /* --overlap only: every size */
    o.overlap = CS_BENCH_OVERLAP_ONLY;
    ck_assert_int_eq(cs_bench_overlap_points(&o, plan), 2 * (4 + 1) + (2 + 1) * 3);
    /* collectives the plan has no algorithms of are not measured */
    plan->nalgos[CS_COLL_NEIGHBOR_ALLTOALL] = 0;
    ck_assert_int_eq(cs_bench_overlap_points(&o, plan), 2 * (4 + 1) + 1 * 3);
    free(plan);
}
END_TEST

START_TEST(pass_sizes_and_collectives) {
    uint64_t grid[11], out[11];
    int n = 0;
    for (int i = 0; i < 11; i++) {
        grid[i] = 4ull << (2 * i); /* 4 B .. 4 MiB, x4 */
    }
    n = cs_bench_overlap_sizes(grid, 11, 0, out);
    ck_assert_int_eq(n, 6);
    ck_assert_uint_eq(out[0], 4);
    ck_assert_uint_eq(out[1], 64);
    ck_assert_uint_eq(out[2], 1024);
    ck_assert_uint_eq(out[5], 4u << 20);
    ck_assert_int_eq(cs_bench_overlap_sizes(grid, 11, 1, out), 11);
    /* every collective but the three that agree on their key: the neighbourhood ones too */
    ck_assert_uint_eq(
        cs_bench_overlap_colls(~0u),
        (1u << CS_COLL_BCAST) | (1u << CS_COLL_GATHER) | (1u << CS_COLL_SCATTER) |
            (1u << CS_COLL_REDUCE) | (1u << CS_COLL_ALLREDUCE) | (1u << CS_COLL_ALLGATHER) |
            (1u << CS_COLL_ALLGATHERV) | (1u << CS_COLL_ALLTOALL) | (1u << CS_COLL_BARRIER) |
            (1u << CS_COLL_REDUCE_SCATTER_BLOCK) | (1u << CS_COLL_REDUCE_SCATTER) |
            (1u << CS_COLL_SCAN) | (1u << CS_COLL_EXSCAN) | (1u << CS_COLL_NEIGHBOR_ALLGATHER) |
            (1u << CS_COLL_NEIGHBOR_ALLGATHERV) | (1u << CS_COLL_NEIGHBOR_ALLTOALL) |
            (1u << CS_COLL_NEIGHBOR_ALLTOALLV) | (1u << CS_COLL_NEIGHBOR_ALLTOALLW));
    ck_assert_uint_eq(cs_bench_overlap_colls(1u << CS_COLL_ALLTOALL), 1u << CS_COLL_ALLTOALL);
    ck_assert_uint_eq(cs_bench_overlap_colls((1u << CS_COLL_GATHERV) | (1u << CS_COLL_SCATTERV) |
                                             (1u << CS_COLL_ALLTOALLV) |
                                             (1u << CS_COLL_NEIGHBOR_ALLGATHER)),
                      1u << CS_COLL_NEIGHBOR_ALLGATHER);
}
END_TEST

START_TEST(parse_overlap_option) {
    cs_bench_opts_t o;
    char err[256];
    char *on[] = {"collsel-bench"};
    char *only[] = {"collsel-bench", "--overlap", "only"};
    char *off[] = {"collsel-bench", "--overlap", "off"};
    char *bad[] = {"collsel-bench", "--overlap", "maybe"};
    char *none[] = {"collsel-bench", "--overlap"};
    ck_assert_int_eq(cs_bench_parse(1, on, &o, err, sizeof(err)), CS_OK);
    ck_assert_int_eq(o.overlap, CS_BENCH_OVERLAP_ON);
    ck_assert_ptr_null(strstr(o.args, "overlap"));
    ck_assert_int_eq(cs_bench_parse(3, only, &o, err, sizeof(err)), CS_OK);
    ck_assert_int_eq(o.overlap, CS_BENCH_OVERLAP_ONLY);
    ck_assert_ptr_nonnull(strstr(o.args, " overlap=only"));
    ck_assert_int_eq(cs_bench_parse(3, off, &o, err, sizeof(err)), CS_OK);
    ck_assert_int_eq(o.overlap, CS_BENCH_OVERLAP_OFF);
    ck_assert_int_eq(cs_bench_parse(3, bad, &o, err, sizeof(err)), CS_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err, "'maybe'"));
    ck_assert_int_eq(cs_bench_parse(2, none, &o, err, sizeof(err)), CS_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(cs_bench_usage, "--overlap on|off|only"));
}
END_TEST

int main(void) {
    Suite *s = suite_create("overlap");
    TCase *tc = tcase_create("overlap");
    SRunner *sr;
    int failed;
    tcase_add_test(tc, candidate_wins_where_significant);
    tcase_add_test(tc, no_samples_or_small_gain_keeps_native);
    tcase_add_test(tc, size_without_native_is_an_error);
    tcase_add_test(tc, database_round_trip_and_derive);
    tcase_add_test(tc, derive_many_rows);
    tcase_add_test(tc, neighbor_rows_and_rules_per_pattern);
    tcase_add_test(tc, pass_points);
    tcase_add_test(tc, pass_sizes_and_collectives);
    tcase_add_test(tc, parse_overlap_option);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

/* Builds a small tuning database for the collsel-report tests through the database API
 * (db/db.h), so that no binary fixture lives in git.
 *
 *   make_report_db PATH full     runs of every kind and status, two collectives with two
 *                                communicator sizes, a family with two variants, rules,
 *                                validation rows and a verification failure (see below)
 *   make_report_db PATH two      "full" plus a second machine with one run
 *   make_report_db PATH empty    the schema only: no machine, no run
 *   make_report_db PATH ompi     Open MPI's own algorithms (<coll>/ompi) for the export test
 *                                (tests/export): see ompi() below
 *   make_report_db PATH overlap  "full" plus a tuning run (run 6) with overlap measurements of
 *                                allreduce on 4 processes and nonblocking rules: see overlap()
 *
 * "full", machine "testhost" (4 cores):
 *   run 1  done     tuning, np 4: gather on 4 processes
 *   run 2  aborted  tuning, np 4: allreduce on 4 processes, absurd times (must not be shown)
 *   run 3  done     tuning, np 4, oversubscribed: allreduce on 2 and 4 processes, bcast and
 *                   barrier (0 bytes only: no latency plot, a table) on 4
 *   run 4  done     collsel-bench --validate, np 4: allreduce and bcast on 4 processes;
 *                   allreduce's rows have both metrics and native B, bcast's (made before
 *                   those existed) the synchronised metric alone
 * Sizes 4 B to 64 KiB, times 4x. allreduce/dpml (not a registered algorithm: the report must
 * take any name) has two variants, leaders=1 faster below 1 KiB and leaders=2 above. */
#include "db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSIZES 8

static cs_db_t *db;

static void check(int rc, const char *what) {
    if (rc != CS_OK) {
        fprintf(stderr, "make_report_db: %s: %s (%s)\n", what, cs_status_str(rc), cs_db_errmsg(db));
        exit(1);
    }
}

static uint64_t size_at(int i) {
    return (uint64_t)4 << (2 * i);
}

static int64_t machine(const char *host) {
    cs_db_machine_t m = {host, "packages=1 numa=1 cores=4 pus=8", "Open MPI v4.1.4, package: test"};
    int64_t id = 0;
    check(cs_db_find_or_insert_machine(db, &m, &id), "machine");
    return id;
}

/* A run of `kind` with the args collsel-bench writes for it. */
static int64_t run(int64_t machine_id, cs_db_run_kind_t kind, const char *args,
                   int oversubscribed) {
    cs_db_run_t r = {.machine_id = machine_id,
                     .kind = kind,
                     .nprocs = 4,
                     .nnodes = 1,
                     .ppn = 4,
                     .oversubscribed = oversubscribed,
                     .args = args,
                     .version = "0.1.0"};
    int64_t id = 0;
    check(cs_db_start_run(db, &r, false, &id, NULL), "run");
    return id;
}

/* A model time: latency alpha plus bytes / bandwidth, in µs. */
static double model(double alpha, double gbps, uint64_t bytes) {
    return alpha + (double)bytes / (gbps * 1e3);
}

/* Whether measure() stores the loop metric too (as a run since issue 19 does); off for the
 * runs that stand for databases made before it (NULL loop columns). */
static bool loop_metric;

/* The neighbourhood pattern of the measurements being written (NULL: none). */
static const char *pattern_now;

static void measure(int64_t run_id, const char *coll, const char *alg, const char *params,
                    int comm_size, uint64_t bytes, double median) {
    cs_db_measurement_t m = {
        .run_id = run_id,
        .point = {coll, alg, params, comm_size, comm_size, bytes, pattern_now},
        .reps = 20,
        .outliers = 1,
        .min_us = median * 0.9,
        .q1_us = median * 0.96,
        .median_us = median,
        .q3_us = median * 1.05,
        .max_us = median * 1.3,
        .verified = strstr(alg, "/native") == NULL,
    };
    if (loop_metric) {
        /* Back-to-back calls look cheaper, except binomial bcast's (a slow non-root rank). */
        double loop = median * (strcmp(alg, "bcast/binomial") == 0 ? 1.5 : 0.6);
        m.loop_reps = 20;
        m.loop_outliers = 0;
        m.loop_min_us = loop * 0.9;
        m.loop_q1_us = loop * 0.95;
        m.loop_median_us = loop;
        m.loop_q3_us = loop * 1.05;
        m.loop_max_us = loop * 1.2;
        m.loop_rankmax_median_us = loop * 1.4;
    }
    check(cs_db_insert_measurement(db, &m), "measurement");
}

typedef struct {
    uint64_t lo, hi;
    const char *alg, *params;
} interval_t;

/* Rules of one key: rank 1 as given, native second where the winner is not native. */
static void rules(int64_t machine_id, int64_t run_id, const char *coll, int comm_size,
                  const interval_t *iv, size_t n) {
    cs_rule_t r[16];
    size_t k = 0;
    char native[64];
    cs_coll_t c = CS_COLL_COUNT;
    check(cs_coll_from_name(coll, &c), "collective");
    snprintf(native, sizeof(native), "%s/native", coll);
    for (size_t i = 0; i < n; i++) {
        cs_rule_t base = {.machine_id = machine_id,
                          .coll = c,
                          .comm_size = comm_size,
                          .ppn = comm_size,
                          .lo_bytes = iv[i].lo,
                          .hi_bytes = iv[i].hi,
                          .rank = 1,
                          .median_us = 10,
                          .native_us = 15,
                          .p_value = 0.001,
                          .run_id = run_id};
        check(cs_rule_set_variant(&base, iv[i].alg, iv[i].params), "rule variant");
        r[k++] = base;
        if (strcmp(iv[i].alg, native) != 0) {
            base.rank = 2;
            check(cs_rule_set_variant(&base, native, ""), "rule variant");
            base.median_us = 15;
            base.p_value = NAN;
            r[k++] = base;
        } else {
            r[k - 1].median_us = 15;
            r[k - 1].p_value = NAN;
        }
    }
    check(cs_db_replace_rules(db, machine_id, c, comm_size, comm_size, r, k), "rules");
}

static void full(void) {
    int64_t m = machine("testhost");

    int64_t r1 = run(m, CS_DB_RUN_TUNE, "colls=0x2 sizes=4:64K", 0);
    for (int i = 0; i < NSIZES; i++) {
        uint64_t b = size_at(i);
        measure(r1, "gather", "gather/native", "", 4, b, model(3, 1, b));
        measure(r1, "gather", "gather/linear", "", 4, b, model(2.5, 1.4, b));
        measure(r1, "gather", "gather/binomial", "", 4, b, model(4, 0.9, b));
    }
    cs_db_failure_t fail = {
        r1, {"gather", "gather/binomial", "", 4, 4, 64, NULL}, "element 3 is 7, not 9"};
    check(cs_db_insert_failure(db, &fail), "failure");
    check(cs_db_finish_run(db, r1, CS_DB_RUN_DONE), "finish");
    interval_t gather[] = {{0, 32, "gather/native", ""},
                           {32, CS_RULE_UNBOUNDED, "gather/linear", ""}};
    rules(m, r1, "gather", 4, gather, 2);

    int64_t r2 = run(m, CS_DB_RUN_TUNE, "colls=0x10 sizes=4:64K", 1);
    for (int i = 0; i < NSIZES; i++) {
        measure(r2, "allreduce", "allreduce/native", "", 4, size_at(i), 1e6);
    }
    check(cs_db_finish_run(db, r2, CS_DB_RUN_ABORTED), "abort");

    int64_t r3 = run(m, CS_DB_RUN_TUNE, "colls=0x11 sizes=4:64K comm_sizes=2,4", 1);
    loop_metric = true; /* run 3 has both metrics; runs 1 and 2 only the synchronised one */
    for (int c = 2; c <= 4; c += 2) {
        for (int i = 0; i < NSIZES; i++) {
            uint64_t b = size_at(i);
            measure(r3, "allreduce", "allreduce/native", "", c, b, model(10 * c, 1, b));
            measure(r3, "allreduce", "allreduce/recursive_doubling", "", c, b,
                    model(8 * c, 0.8, b));
            measure(r3, "allreduce", "allreduce/dpml", "leaders=1", c, b, model(5 * c, 0.5, b));
            measure(r3, "allreduce", "allreduce/dpml", "leaders=2", c, b, model(9 * c, 2, b));
        }
    }
    for (int i = 0; i < NSIZES; i++) {
        uint64_t b = size_at(i);
        measure(r3, "bcast", "bcast/native", "", 4, b, model(5, 1, b));
        measure(r3, "bcast", "bcast/linear", "", 4, b, model(3, 0.5, b));
        measure(r3, "bcast", "bcast/binomial", "", 4, b, model(6, 2, b));
    }
    /* barrier: no data, one point at 0 bytes (a table, no latency plot) */
    measure(r3, "barrier", "barrier/native", "", 4, 0, 12.5);
    measure(r3, "barrier", "barrier/dissemination", "", 4, 0, 10);
    measure(r3, "barrier", "barrier/orth", "dims=2x2,phase=dissemination", 4, 0, 25);
    check(cs_db_finish_run(db, r3, CS_DB_RUN_DONE), "finish");
    loop_metric = false;
    interval_t ar2[] = {{0, 8, "allreduce/native", ""},
                        {8, 2048, "allreduce/dpml", "leaders=1"},
                        {2048, CS_RULE_UNBOUNDED, "allreduce/dpml", "leaders=2"}};
    rules(m, r3, "allreduce", 2, ar2, 3);
    interval_t ar4[] = {{0, 128, "allreduce/dpml", "leaders=1"},
                        {128, 512, "allreduce/recursive_doubling", ""},
                        {512, 8192, "allreduce/dpml", "leaders=2"},
                        {8192, CS_RULE_UNBOUNDED, "allreduce/native", ""}};
    rules(m, r3, "allreduce", 4, ar4, 4);
    interval_t bc[] = {{0, 2048, "bcast/linear", ""},
                       {2048, 32768, "bcast/binomial", ""},
                       {32768, CS_RULE_UNBOUNDED, "bcast/native", ""}};
    rules(m, r3, "bcast", 4, bc, 3);
    interval_t ba[] = {{0, CS_RULE_UNBOUNDED, "barrier/dissemination", ""}};
    rules(m, r3, "barrier", 4, ba, 1);

    int64_t r4 = run(m, CS_DB_RUN_VALIDATE, "validate colls=0x11 sizes=4:64K", 1);
    for (int i = 0; i < NSIZES; i++) {
        uint64_t b = size_at(i);
        cs_db_validation_t v = {r4,
                                "allreduce",
                                4,
                                4,
                                b,
                                model(40, 1, b),
                                model(22, 0.6, b),
                                model(20, 0.6, b),
                                "allreduce/dpml",
                                "leaders=1",
                                "allreduce/dpml",
                                "leaders=1",
                                model(36, 1, b),
                                model(21, 0.7, b),
                                model(20, 0.6, b),
                                model(41, 1, b),
                                model(35, 1, b),
                                NULL};
        check(cs_db_insert_validation(db, &v), "validation");
        cs_db_validation_t w = {r4,
                                "bcast",
                                4,
                                4,
                                b,
                                model(5, 1, b),
                                model(3.2, 0.5, b),
                                model(3, 0.5, b),
                                "bcast/linear",
                                "",
                                "bcast/binomial",
                                "",
                                NAN,
                                NAN,
                                NAN,
                                NAN,
                                NAN,
                                NULL};
        check(cs_db_insert_validation(db, &w), "validation");
    }
    check(cs_db_finish_run(db, r4, CS_DB_RUN_DONE), "finish");

    /* Run 5: neighbor_alltoall on two patterns (docs/neighbor.md), synchronised metric only:
     * linear wins on cart2d, native on hotspot; one latency plot per pattern, one winner-map
     * row per pattern. */
    int64_t r5 = run(m, CS_DB_RUN_TUNE, "colls=0x2000 patterns=0x81", 1);
    const char *pats[] = {"cart2d", "hotspot"};
    for (int k = 0; k < 2; k++) {
        pattern_now = pats[k];
        for (int i = 0; i < NSIZES; i++) {
            uint64_t b = size_at(i);
            measure(r5, "neighbor_alltoall", "neighbor_alltoall/native", "", 4, b, model(6, 1, b));
            measure(r5, "neighbor_alltoall", "neighbor_alltoall/linear", "", 4, b,
                    model(k == 0 ? 4 : 9, 1, b));
        }
        cs_rule_t nr[2] = {{.machine_id = m,
                            .coll = CS_COLL_NEIGHBOR_ALLTOALL,
                            .comm_size = 4,
                            .ppn = 4,
                            .lo_bytes = 0,
                            .hi_bytes = CS_RULE_UNBOUNDED,
                            .rank = 1,
                            .median_us = 4,
                            .native_us = 6,
                            .p_value = k == 0 ? 0.001 : NAN,
                            .run_id = r5}};
        nr[1] = nr[0];
        nr[1].rank = 2;
        nr[1].p_value = NAN;
        snprintf(nr[0].pattern, sizeof(nr[0].pattern), "%s", pats[k]);
        snprintf(nr[1].pattern, sizeof(nr[1].pattern), "%s", pats[k]);
        check(cs_rule_set_variant(
                  &nr[0], k == 0 ? "neighbor_alltoall/linear" : "neighbor_alltoall/native", ""),
              "rule variant");
        check(cs_rule_set_variant(&nr[1], "neighbor_alltoall/native", ""), "rule variant");
        check(cs_db_replace_pattern_rules(db, m, CS_COLL_NEIGHBOR_ALLTOALL, pats[k], 4, 4, nr,
                                          k == 0 ? 2 : 1),
              "pattern rules");
    }
    /* iso_moore2d_r1 (isomorphic): native, linear and two message-combining schedules, no
     * rules; its offsets stored, as cart2d's (cart2d had no iso schedule measured: no
     * message-combining table), hotspot without. The report's table must then give
     * iso_straightforward D = V = 8 and iso_torus D = 4, V = 12 (4 edges of length 1, 4
     * corners of length 2; topo/iso.h), next to the times. */
    pattern_now = "iso_moore2d_r1";
    for (int i = 0; i < NSIZES; i++) {
        uint64_t b = size_at(i);
        measure(r5, "neighbor_alltoall", "neighbor_alltoall/native", "", 4, b, model(16, 1, b));
        measure(r5, "neighbor_alltoall", "neighbor_alltoall/linear", "", 4, b, model(15, 1, b));
        measure(r5, "neighbor_alltoall", "neighbor_alltoall/iso_straightforward", "", 4, b,
                model(14, 1, b));
        measure(r5, "neighbor_alltoall", "neighbor_alltoall/iso_torus", "form=packed", 4, b,
                model(8, 0.7, b));
        measure(r5, "neighbor_alltoall", "neighbor_alltoall/iso_torus", "form=zerocopy", 4, b,
                model(9, 0.8, b));
    }
    static const int cart[] = {-1, 0, 1, 0, 0, -1, 0, 1};
    static const int moore[] = {-1, -1, -1, 0, -1, 1, 0, -1, 0, 1, 1, -1, 1, 0, 1, 1};
    cs_db_pattern_t pr[3] = {{m, "cart2d", 4, 16, 4, 4, 4.0, 1.0, 2, 4, cart},
                             {m, "hotspot", 4, 11, 3, 5, 2.75, 1.82, 0, 0, NULL},
                             {m, "iso_moore2d_r1", 4, 32, 8, 8, 8.0, 1.0, 2, 8, moore}};
    for (int k = 0; k < 3; k++) {
        check(cs_db_put_pattern(db, &pr[k]), "pattern");
    }
    pattern_now = NULL;
    check(cs_db_finish_run(db, r5, CS_DB_RUN_DONE), "finish");
}

static void second_machine(void) {
    int64_t m = machine("otherhost");
    int64_t r = run(m, CS_DB_RUN_TUNE, "colls=0x10", 0);
    for (int i = 0; i < NSIZES; i++) {
        uint64_t b = size_at(i);
        measure(r, "allreduce", "allreduce/native", "", 2, b, model(7, 1, b));
        measure(r, "allreduce", "allreduce/recursive_doubling", "", 2, b, model(6, 1, b));
    }
    check(cs_db_finish_run(db, r, CS_DB_RUN_DONE), "finish");
    interval_t iv[] = {{0, CS_RULE_UNBOUNDED, "allreduce/recursive_doubling", ""}};
    rules(m, r, "allreduce", 2, iv, 1);
}

/* Machine "exporthost", one done run at np 4: allreduce and bcast on 4 processes at 8 B, 64 KiB
 * and 1 MiB, where a different <coll>/ompi variant wins at each size (the winner 1x, the other
 * Open MPI variants 2x, collsel's own algorithm 3x, native 4x), and at 4 KiB, where native is
 * fastest (1x; the export leaves that size to Open MPI's own decision); allreduce at 16 KiB,
 * where native is fastest too but a rule ranks ompi's ring above it (the export keeps ring):
 *   allreduce  recursive_doubling, ring, rabenseifner
 *   bcast      basic_linear, scatter_allgather, pipeline with 64 KiB segments
 * collsel's allreduce/recursive_doubling and bcast/binomial are measured too (mpich-json maps
 * them). */
static void ompi(void) {
    static const uint64_t sizes[] = {8, 65536, 1048576, 4096};
    static const char *const ar[] = {"alg=recursive_doubling,fanout=0,segsize_bytes=0",
                                     "alg=ring,fanout=0,segsize_bytes=0",
                                     "alg=rabenseifner,fanout=0,segsize_bytes=0"};
    static const char *const bc[] = {"alg=basic_linear,fanout=0,segsize_bytes=0",
                                     "alg=scatter_allgather,fanout=0,segsize_bytes=0",
                                     "alg=pipeline,fanout=0,segsize_bytes=65536"};
    int64_t m = machine("exporthost");
    int64_t r = run(m, CS_DB_RUN_TUNE, "colls=0x18", 0);
    for (int i = 0; i < 4; i++) {
        double t = model(5, 1, sizes[i]);
        double native = i < 3 ? 4 * t : t; /* at 4 KiB Open MPI's own decision wins */
        measure(r, "allreduce", "allreduce/native", "", 4, sizes[i], native);
        measure(r, "allreduce", "allreduce/recursive_doubling", "", 4, sizes[i], 3 * t);
        measure(r, "bcast", "bcast/native", "", 4, sizes[i], native);
        measure(r, "bcast", "bcast/binomial", "", 4, sizes[i], 3 * t);
        for (int k = 0; k < 3; k++) {
            measure(r, "allreduce", "allreduce/ompi", ar[k], 4, sizes[i], k == i ? t : 2 * t);
            measure(r, "bcast", "bcast/ompi", bc[k], 4, sizes[i], k == i ? t : 2 * t);
        }
    }
    /* 16 KiB: native measured fastest, but the run's rules rank ompi's ring above native there
     * (the rules' significance test, which the export defers to). */
    {
        double t = model(5, 1, 16384);
        interval_t iv[] = {{12000, 30000, "allreduce/ompi", ar[1]}};
        measure(r, "allreduce", "allreduce/native", "", 4, 16384, t);
        for (int k = 0; k < 3; k++) {
            measure(r, "allreduce", "allreduce/ompi", ar[k], 4, 16384, 2 * t);
        }
        check(cs_db_finish_run(db, r, CS_DB_RUN_DONE), "finish");
        rules(m, r, "allreduce", 4, iv, 1);
    }
}

/* Run 6: the overlap pass of allreduce on 4 processes at 8 B, 64 KiB and 1 MiB (table
 * overlap): native (libnbc) frees 10 % of its time, recursive_doubling 60 %, ring (two
 * variants: segments=1 frees 30 %, segments=4 70 %, the plot must show the latter) at 64 KiB
 * and 1 MiB only; nonblocking rules: native below 1 KiB, ring(segments=4) above. */
static void overlap(void) {
    int64_t m = machine("testhost");
    int64_t r = run(m, CS_DB_RUN_TUNE, "colls=0x10 sizes=8,64K,1M overlap=only", 1);
    const uint64_t sizes[] = {8, 65536, 1048576};
    const struct {
        const char *alg, *params;
        double freed;
    } cands[] = {{"allreduce/native", "", 0.1},
                 {"allreduce/recursive_doubling", "", 0.6},
                 {"allreduce/ring", "segments=1", 0.3},
                 {"allreduce/ring", "segments=4", 0.7}};
    for (int i = 0; i < 3; i++) {
        for (int c = 0; c < 4; c++) {
            double noov = 10.0 + (double)sizes[i] / 1000.0;
            double samples[5];
            if (i == 0 && c >= 2) {
                continue; /* ring not at 8 B */
            }
            cs_db_overlap_t o = {
                .point = {"allreduce", cands[c].alg, cands[c].params, 4, 4, sizes[i], ""},
                .reps = 5,
                .compute_us = 1.2 * noov,
                .blocking_us = noov * 0.9,
                .nooverlap_us = noov,
                .overhead_us = noov * (1 - cands[c].freed),
                .overhead_q1_us = NAN,
                .overhead_q3_us = NAN,
                .freed = cands[c].freed,
                .samples_us = samples,
                .nsamples = 5,
            };
            o.overlap_us = o.compute_us + o.overhead_us;
            for (int k = 0; k < 5; k++) {
                samples[k] = o.overhead_us * (0.98 + 0.01 * k);
            }
            check(cs_db_insert_overlap(db, r, &o), "overlap");
        }
    }
    check(cs_db_finish_run(db, r, CS_DB_RUN_DONE), "finish");
    cs_rule_t nb[3];
    memset(nb, 0, sizeof(nb));
    for (int i = 0; i < 3; i++) {
        nb[i].machine_id = m;
        nb[i].run_id = r;
        nb[i].coll = CS_COLL_ALLREDUCE;
        nb[i].comm_size = 4;
        nb[i].ppn = 4;
        nb[i].median_us = nb[i].native_us = 10;
        nb[i].p_value = NAN;
    }
    nb[0].lo_bytes = 0;
    nb[0].hi_bytes = 1024;
    nb[0].rank = 1;
    check(cs_rule_set_variant(&nb[0], "allreduce/native", ""), "variant");
    nb[1].lo_bytes = nb[2].lo_bytes = 1024;
    nb[1].hi_bytes = nb[2].hi_bytes = CS_RULE_UNBOUNDED;
    nb[1].rank = 1;
    nb[2].rank = 2;
    check(cs_rule_set_variant(&nb[1], "allreduce/ring", "segments=4"), "variant");
    check(cs_rule_set_variant(&nb[2], "allreduce/native", ""), "variant");
    check(cs_db_replace_nb_rules(db, m, CS_COLL_ALLREDUCE, 4, 4, nb, 3), "nb rules");
}

int main(int argc, char **argv) {
    char why[512];
    if (argc != 3 || (strcmp(argv[2], "full") != 0 && strcmp(argv[2], "two") != 0 &&
                      strcmp(argv[2], "empty") != 0 && strcmp(argv[2], "ompi") != 0 &&
                      strcmp(argv[2], "overlap") != 0)) {
        fprintf(stderr, "usage: make_report_db PATH full|two|empty|ompi|overlap\n");
        return 2;
    }
    remove(argv[1]);
    if (cs_db_open(argv[1], CS_DB_READ_WRITE, &db, why, sizeof(why)) != CS_OK) {
        fprintf(stderr, "make_report_db: %s\n", why);
        return 1;
    }
    if (strcmp(argv[2], "ompi") == 0) {
        ompi();
    } else if (strcmp(argv[2], "empty") != 0) {
        full();
    }
    if (strcmp(argv[2], "two") == 0) {
        second_machine();
    }
    if (strcmp(argv[2], "overlap") == 0) {
        overlap();
    }
    cs_db_close(db);
    return 0;
}

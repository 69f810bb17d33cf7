/* The tuning run of the neighbourhood collectives (docs/neighbor.md), under mpirun: collsel-bench
 * on a tiny plan (neighbor_alltoall and neighbor_alltoallv on cart2d, hotspot, random30,
 * moore2d and iso_moore2d_r1 at 1 and 100 bytes per block; iso_moore2d_r1 is tuned for
 * neighbor_alltoall only) with a deliberately wrong test-only neighbor_alltoall algorithm
 * that sends nothing. Rank 0 then reads the database and checks:
 *   - every pattern valid at this size (cs_bench_pattern_valid) has a measurement of native and
 *     linear at each block size of each collective tuned on it, stored with the pattern's name,
 *     and its signature in table pattern equals cs_graph_sig of its graph, with the offsets of
 *     cs_bench_pattern_iso for the isomorphic ones (cart2d, iso_moore2d_r1) and none for the
 *     others; no other pattern appears;
 *   - the wrong algorithm failed verification at every point of a valid pattern, never timed;
 *   - every (collective, pattern) has rules carrying the pattern, native last; the v form has
 *     exactly one interval, [0, unbounded);
 *   - the confirmation pass covered the pattern keys: every point where a candidate beat native
 *     (cs_bench_derive_contenders on the stored measurements, pattern and all) has rows in table
 *     confirmation with its pattern's name, native and exactly those candidates, and there are no
 *     others; a candidate in a pattern's rules was measured again at every size of that pattern
 *     the pass measured inside its interval (whether any candidate won is the machine's
 *     business: nothing here assumes one did);
 *   - every (collective, valid pattern) has the setup of its coloured variant in table
 *     setup_cost, measured on that pattern (above 0) and stored with its name (none without);
 *   - every rank holds the LogGP parameters the run measured (core/loggp.h), at np >= 2;
 *   - then (np >= 2) collsel-bench --validate with the same options (run 2) stores a validation row
 * per (collective, valid pattern, block size), with the pattern's name and the selector's choice
 * for that pattern's communicator (one of the tuned candidates). At np 1 no pattern is valid:
 * nothing neighbourhood is measured and the run still succeeds;
 *   - (np >= 2, after --validate) collsel_explain of neighbor_alltoall on the iso_moore2d_r1
 *     communicator, made by collsel_iso_neighborhood_create, names the rules of iso_moore2d_r1,
 *     and on the moore2d communicator (a plain distributed graph of the same signature) those
 *     of moore2d.
 * Prints "N passed, F failed"; exit status 1 when a check failed. */
#include "core/loggp.h"
#include "db.h"
#include "derive.h"
#include "options.h"
#include "patterns.h"
#include "tune.h"

#include "collsel.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...) {
    if (ok) {
        passed++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failed++;
}

static int build_nothing(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)s;
    (void)c;
    (void)params;
    return CS_OK;
}

static const cs_algo_t wrong_nothing = {
    .name = "neighbor_alltoall/test_nothing",
    .coll = CS_COLL_NEIGHBOR_ALLTOALL,
    .desc = "test only: sends and receives nothing (wrong wherever a rank has an in-edge)",
    .build = build_nothing,
};
static const cs_algo_t *const extra[] = {&wrong_nothing};

static const char *const pats[] = {"cart2d", "hotspot", "random30", "moore2d", "iso_moore2d_r1"};
#define NPATS 5
#define PATS  "cart2d,hotspot,random30,moore2d,iso_moore2d_r1"
static const char *const colls[] = {"neighbor_alltoall", "neighbor_alltoallv"};
static const uint64_t blocks[] = {1, 100};

typedef struct seen {
    int meas[2][NPATS][2][2]; /* coll, pattern, block, native/linear */
    int wrong[NPATS][2];      /* failures of the wrong one */
    int timed_wrong, other_pattern, bad_block;
    int rules[2][NPATS], intervals[2][NPATS], native_last[2][NPATS];
    int sig_ok[NPATS], sig_seen[NPATS], offsets_ok[NPATS];
    int valid[2][NPATS][2], valid_bad;
    char rule_algs[2][NPATS][16][64]; /* the algorithms the rules name, per (coll, pattern) */
    int nrule_algs[2][NPATS];
    struct { /* the rules' rows, as stored */
        int c, k;
        char algorithm[64];
        uint64_t lo, hi;
    } rule[64];
    int nrule;
    struct { /* the confirmation rounds' rows of the planned collectives */
        int c, k, round;
        char algorithm[64], params[128];
        uint64_t bytes;
    } conf[256];
    int nconf, conf_other;
    int nprocs, ppn; /* ppn: the measurements' */
} seen_t;

static int pattern_index(const char *name) {
    for (int k = 0; k < NPATS; k++) {
        if (name != NULL && strcmp(name, pats[k]) == 0) {
            return k;
        }
    }
    return -1;
}

static int coll_index(const char *name) {
    return strcmp(name, colls[0]) == 0 ? 0 : strcmp(name, colls[1]) == 0 ? 1 : -1;
}

static int block_index(uint64_t b) {
    return b == blocks[0] ? 0 : b == blocks[1] ? 1 : -1;
}

static int on_meas(const cs_db_measurement_t *m, void *ctx) {
    seen_t *s = ctx;
    int c = coll_index(m->point.coll), k = pattern_index(m->point.pattern),
        b = block_index(m->point.bytes);
    if (c < 0) {
        return CS_OK;
    }
    if (k < 0) {
        s->other_pattern++;
        return CS_OK;
    }
    if (b < 0) {
        s->bad_block++;
        return CS_OK;
    }
    s->ppn = m->point.ppn;
    if (strstr(m->point.algorithm, "/native") != NULL) {
        s->meas[c][k][b][0]++;
    } else if (strstr(m->point.algorithm, "/linear") != NULL) {
        s->meas[c][k][b][1]++;
    } else if (strcmp(m->point.algorithm, wrong_nothing.name) == 0) {
        s->timed_wrong++;
    }
    return CS_OK;
}

static int on_failure(const cs_db_failure_t *f, void *ctx) {
    seen_t *s = ctx;
    int k = pattern_index(f->point.pattern), b = block_index(f->point.bytes);
    if (strcmp(f->point.algorithm, wrong_nothing.name) == 0 && k >= 0 && b >= 0) {
        s->wrong[k][b]++;
    }
    return CS_OK;
}

static int on_rule(const cs_rule_t *r, void *ctx) {
    seen_t *s = ctx;
    int c = coll_index(cs_coll_name(r->coll)), k = pattern_index(r->pattern);
    if (c < 0 || k < 0) {
        return CS_OK;
    }
    s->rules[c][k]++;
    s->intervals[c][k] += r->rank == 1;
    if (s->nrule_algs[c][k] < 16) {
        snprintf(s->rule_algs[c][k][s->nrule_algs[c][k]++], sizeof(s->rule_algs[c][k][0]), "%s",
                 r->algorithm);
    }
    if (c == 1 && (r->lo_bytes != 0 || r->hi_bytes != CS_RULE_UNBOUNDED)) {
        s->intervals[c][k] += 100; /* the v form must have one interval */
    }
    s->native_last[c][k] = strstr(r->algorithm, "/native") != NULL;
    if (s->nrule < 64) {
        s->rule[s->nrule].c = c;
        s->rule[s->nrule].k = k;
        snprintf(s->rule[s->nrule].algorithm, sizeof(s->rule[0].algorithm), "%s", r->algorithm);
        s->rule[s->nrule].lo = r->lo_bytes;
        s->rule[s->nrule].hi = r->hi_bytes;
        s->nrule++;
    }
    return CS_OK;
}

static int on_confirmation(const cs_db_measurement_t *m, void *ctx) {
    seen_t *s = ctx;
    int c = coll_index(m->point.coll), k = pattern_index(m->point.pattern);
    if (c < 0 || k < 0 || s->nconf == 256) {
        s->conf_other++;
        return CS_OK;
    }
    s->conf[s->nconf].c = c;
    s->conf[s->nconf].k = k;
    snprintf(s->conf[s->nconf].algorithm, sizeof(s->conf[0].algorithm), "%s", m->point.algorithm);
    snprintf(s->conf[s->nconf].params, sizeof(s->conf[0].params), "%s",
             m->point.params != NULL ? m->point.params : "");
    s->conf[s->nconf].bytes = m->point.bytes;
    s->conf[s->nconf].round = m->round;
    s->nconf++;
    return CS_OK;
}

/* Whether run 1 was oversubscribed (its policy 'both' then decides as 'loop', bench/rules.h). */
static int run1_oversubscribed(const cs_db_run_row_t *r, void *ctx) {
    if (r->id != 1) {
        return CS_OK;
    }
    *(int *)ctx = r->run.oversubscribed;
    return 1; /* stop */
}

/* The confirmation pass on the pattern keys (see the top of the file). */
static void check_confirmations(cs_db_t *db, int64_t machine_id, seen_t *s) {
    cs_bench_contender_t todo[2 * NPATS * 2];
    int matched = 0, oversubscribed = 0;
    check(cs_db_foreach_run(db, machine_id, run1_oversubscribed, &oversubscribed) == CS_OK,
          "read run 1");
    /* every round of the run (the default count) against that round's contenders */
    for (int round = 1; round <= CS_BENCH_CONFIRM_ROUNDS; round++) {
        for (int c = 0; c < 2; c++) {
            cs_coll_t coll;
            int n = 0;
            if (cs_coll_from_name(colls[c], &coll) != CS_OK) {
                check(0, "unknown collective %s", colls[c]);
                continue;
            }
            /* the run's metric policy: the default, 'both' */
            check(cs_bench_derive_contenders(db, 1, CS_DB_METRIC_BOTH, oversubscribed, round, coll,
                                             s->nprocs, s->ppn, todo,
                                             (int)(sizeof(todo) / sizeof(todo[0])), &n) == CS_OK,
                  "contenders of %s in round %d", colls[c], round);
            for (int t = 0; t < n; t++) {
                int k = pattern_index(todo[t].pattern), native = 0, cands = 0;
                check(k >= 0, "a contender of %s on pattern '%s'", colls[c], todo[t].pattern);
                for (int i = 0; i < s->nconf; i++) {
                    if (s->conf[i].c != c || s->conf[i].k != k ||
                        s->conf[i].bytes != todo[t].bytes || s->conf[i].round != round) {
                        continue;
                    }
                    matched++;
                    if (strstr(s->conf[i].algorithm, "/native") != NULL) {
                        native++;
                        continue;
                    }
                    /* a candidate is a variant: two of one algorithm (balanced t=0 and t=4) are two
                     */
                    for (int j = 0; j < todo[t].k; j++) {
                        cands += strcmp(s->conf[i].algorithm, todo[t].algorithm[j]) == 0 &&
                                 strcmp(s->conf[i].params, todo[t].params[j]) == 0;
                    }
                }
                check(native == 1 && cands == todo[t].k,
                      "%s on %s at %llu B: a candidate beat native; confirmed in round %d with "
                      "native "
                      "%d and %d of its %d candidates",
                      colls[c], todo[t].pattern, (unsigned long long)todo[t].bytes, round, native,
                      cands, todo[t].k);
            }
        }
    }
    check(matched == s->nconf && s->conf_other == 0,
          "%d confirmation rows, %d of them at a contender, %d of another point", s->nconf, matched,
          s->conf_other);
    for (int i = 0; i < s->nrule; i++) {
        if (strstr(s->rule[i].algorithm, "/native") != NULL) {
            continue;
        }
        for (int j = 0; j < s->nconf; j++) {
            int again = 0;
            if (s->conf[j].c != s->rule[i].c || s->conf[j].k != s->rule[i].k ||
                s->conf[j].bytes < s->rule[i].lo || s->conf[j].bytes >= s->rule[i].hi) {
                continue;
            }
            for (int m = 0; m < s->nconf; m++) {
                again |= s->conf[m].c == s->conf[j].c && s->conf[m].k == s->conf[j].k &&
                         s->conf[m].bytes == s->conf[j].bytes &&
                         s->conf[m].round == s->conf[j].round &&
                         strcmp(s->conf[m].algorithm, s->rule[i].algorithm) == 0;
            }
            check(again,
                  "rule %s on %s [%llu, %llu): not measured again at %llu B, where the "
                  "confirmation pass measured that pattern",
                  s->rule[i].algorithm, pats[s->rule[i].k], (unsigned long long)s->rule[i].lo,
                  (unsigned long long)s->rule[i].hi, (unsigned long long)s->conf[j].bytes);
        }
    }
}

static int on_pattern(const cs_db_pattern_t *t, void *ctx) {
    seen_t *s = ctx;
    int k = pattern_index(t->name);
    cs_graph_t g = {0};
    cs_graph_sig_t sig;
    cs_iso_nbh_t nbh = {0};
    const cs_bench_pattern_t *pat;
    if (k < 0 || t->p != s->nprocs) {
        return CS_OK;
    }
    pat = &cs_bench_patterns[cs_bench_pattern_find(pats[k])];
    s->sig_seen[k]++;
    if (cs_bench_pattern_iso(pat, t->p, &nbh) == CS_OK) { /* the same offsets, in order */
        s->offsets_ok[k] =
            t->iso_d == nbh.d && t->iso_s == nbh.s &&
            memcmp(t->iso_offsets, nbh.offsets, (size_t)nbh.s * (size_t)nbh.d * sizeof(int)) == 0;
    } else {
        s->offsets_ok[k] = t->iso_d == 0 && t->iso_s == 0 && t->iso_offsets == NULL;
    }
    cs_iso_nbh_free(&nbh);
    if (cs_bench_pattern_graph(pat, t->p, &g) == CS_OK) {
        cs_graph_sig(&g, &sig);
        s->sig_ok[k] = sig.nedges == t->nedges && sig.max_out == t->max_out &&
                       sig.max_in == t->max_in && sig.mean_out == t->mean_out &&
                       sig.imbalance == t->imbalance;
    }
    cs_graph_free(&g);
    return CS_OK;
}

static int on_valid(const cs_db_validation_t *v, void *ctx) {
    seen_t *s = ctx;
    int c = coll_index(v->coll), k = pattern_index(v->pattern), b = block_index(v->bytes);
    if (c < 0 || k < 0 || b < 0) {
        s->valid_bad++;
        return CS_OK;
    }
    s->valid[c][k][b]++;
    /* the selector's choice for the pattern's communicator is one of the algorithms its rules
     * name (native, linear, coloured or balanced: whichever won here) */
    int named = 0;
    for (int i = 0; i < s->nrule_algs[c][k] && v->selected_algorithm != NULL; i++) {
        named |= strcmp(v->selected_algorithm, s->rule_algs[c][k][i]) == 0;
    }
    if (!named) {
        printf("validation row %s on %s at %llu B selected %s, which no rule of it names\n",
               v->coll, v->pattern, (unsigned long long)v->bytes,
               v->selected_algorithm ? v->selected_algorithm : "(none)");
        s->valid_bad++;
    }
    return CS_OK;
}

static void check_database(const char *path, int nprocs) {
    cs_db_t *db = NULL;
    char why[512];
    int64_t machine_id = 0;
    seen_t s;
    memset(&s, 0, sizeof(s));
    s.nprocs = nprocs;
    if (cs_db_open(path, CS_DB_READ_ONLY, &db, why, sizeof(why)) != CS_OK) {
        check(0, "cannot open %s: %s", path, why);
        return;
    }
    check(cs_db_foreach_measurement(db, 1, on_meas, &s) == CS_OK, "read measurements");
    check(cs_db_foreach_failure(db, 1, on_failure, &s) == CS_OK, "read failures");
    check(cs_db_find_machine(db, &(cs_db_machine_t){NULL, NULL, NULL}, &machine_id) == CS_OK ||
              nprocs == 1,
          "a machine with rules");
    if (machine_id != 0) {
        check(cs_db_foreach_rule(db, machine_id, on_rule, &s) == CS_OK, "read rules");
        check(cs_db_foreach_pattern(db, machine_id, on_pattern, &s) == CS_OK, "read patterns");
    }
    check(cs_db_foreach_confirmation(db, 1, on_confirmation, &s) == CS_OK, "read confirmations");
    check_confirmations(db, machine_id, &s);
    check(cs_db_foreach_validation(db, 2, on_valid, &s) == CS_OK, "read validation rows");
    check(s.valid_bad == 0, "%d validation rows of another point or choice", s.valid_bad);
    check(s.other_pattern == 0 && s.bad_block == 0,
          "only the planned patterns and block sizes (%d other patterns, %d other sizes)",
          s.other_pattern, s.bad_block);
    check(s.timed_wrong == 0, "the wrong algorithm was timed %d times", s.timed_wrong);
    for (int k = 0; k < NPATS; k++) {
        const cs_bench_pattern_t *pat = &cs_bench_patterns[cs_bench_pattern_find(pats[k])];
        int any = cs_bench_pattern_valid(pat, nprocs);
        for (int c = 0; c < 2; c++) {
            cs_coll_t coll;
            int valid = any && cs_coll_from_name(colls[c], &coll) == CS_OK &&
                        cs_bench_pattern_tunes(pat, coll);
            for (int b = 0; b < 2; b++) {
                check(s.valid[c][k][b] == valid, "%s on %s at %llu B: %d validation rows", colls[c],
                      pats[k], (unsigned long long)blocks[b], s.valid[c][k][b]);
                check(s.meas[c][k][b][0] == valid && s.meas[c][k][b][1] == valid,
                      "%s on %s at %llu B: native %d, linear %d measurements, want %d each",
                      colls[c], pats[k], (unsigned long long)blocks[b], s.meas[c][k][b][0],
                      s.meas[c][k][b][1], valid);
            }
            check(!valid || (s.rules[c][k] >= 1 && s.native_last[c][k]),
                  "%s on %s: %d rules, native last %d", colls[c], pats[k], s.rules[c][k],
                  s.native_last[c][k]);
            if (valid && machine_id != 0) { /* coloured's setup, measured on this pattern */
                char alg[64];
                double us = -1, none = -1;
                snprintf(alg, sizeof(alg), "%s/coloured", colls[c]);
                check(cs_db_get_setup(db, machine_id, pats[k], alg, "", nprocs, s.ppn, &us) ==
                              CS_OK &&
                          us > 0 &&
                          cs_db_get_setup(db, machine_id, "", alg, "", nprocs, s.ppn, &none) ==
                              CS_OK &&
                          none == 0,
                      "%s on %s: setup_cost %g us on the pattern (want > 0), %g without one "
                      "(want 0)",
                      alg, pats[k], us, none);
            }
        }
        check(!any || !cs_bench_pattern_tunes(pat, CS_COLL_NEIGHBOR_ALLTOALLV) ||
                  s.intervals[1][k] == 1,
              "neighbor_alltoallv on %s: %d intervals, want 1", pats[k], s.intervals[1][k]);
        for (int b = 0; b < 2; b++) {
            check(s.wrong[k][b] == any, "the wrong algorithm on %s at %llu B: %d failures", pats[k],
                  (unsigned long long)blocks[b], s.wrong[k][b]);
        }
        check(s.sig_seen[k] == any && (!any || (s.sig_ok[k] && s.offsets_ok[k])),
              "table pattern: %s at %d processes stored %d times, signature right %d, offsets "
              "right %d",
              pats[k], nprocs, s.sig_seen[k], s.sig_ok[k], s.offsets_ok[k]);
    }
    cs_db_close(db);
}

/* collsel_explain of neighbor_alltoall on the communicator of pattern `name` (collective) names
 * the rules of that pattern (after --validate the selector has the database). */
static void check_explain(const char *name, int rank) {
    MPI_Comm topo = MPI_COMM_NULL;
    cs_graph_sig_t sig;
    char line[1024] = "", want[128];
    int k = cs_bench_pattern_find(name);
    if (k < 0 ||
        cs_bench_pattern_comm(&cs_bench_patterns[k], MPI_COMM_WORLD, &topo, &sig) != CS_OK) {
        check(0, "rank %d: cannot make the %s communicator", rank, name);
        return;
    }
    check(collsel_explain("neighbor_alltoall", 1, topo, line, sizeof(line)) == MPI_SUCCESS,
          "rank %d: collsel_explain on %s", rank, name);
    snprintf(want, sizeof(want), "pattern %s (", name);
    check(rank != 0 || strstr(line, want) != NULL, "collsel_explain on %s: %s", name, line);
    MPI_Comm_free(&topo);
}

int main(int argc, char **argv) {
    int rank, nprocs, status;
    char dir[256] = "", path[4096] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/collsel-nbr-run-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        if (mkdtemp(dir) != NULL) {
            snprintf(path, sizeof(path), "%s/bench.db", dir);
        }
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
                              "neighbor_alltoall,neighbor_alltoallv",
                              "--patterns",
                              PATS,
                              "--block-sizes",
                              "1,100",
                              "--reps-max",
                              "20",
                              "--quiet",
                              NULL};
        int bench_argc = (int)(sizeof(bench_argv) / sizeof(bench_argv[0])) - 1;
        status = cs_bench_main(bench_argc, bench_argv, extra, 1, MPI_COMM_WORLD);
        {
            /* the tuning run leaves the values it measured current on every rank */
            cs_loggp_t l;
            int from = cs_loggp_current(&l);
            check(nprocs < 2 ? from == CS_LOGGP_FROM_DEFAULTS : from == CS_LOGGP_FROM_BENCH,
                  "rank %d: LogGP from source %d after the tuning run", rank, from);
        }
        if (status == 0 && nprocs >= 2) { /* at np 1 nothing was tuned to validate */
            char *validate_argv[] = {"collsel-bench",
                                     "--comm-sizes",
                                     np_text,
                                     "--db",
                                     path,
                                     "--colls",
                                     "neighbor_alltoall,neighbor_alltoallv",
                                     "--patterns",
                                     PATS,
                                     "--block-sizes",
                                     "1,100",
                                     "--reps-max",
                                     "20",
                                     "--quiet",
                                     "--validate",
                                     NULL};
            int validate_argc = (int)(sizeof(validate_argv) / sizeof(validate_argv[0])) - 1;
            status = cs_bench_main(validate_argc, validate_argv, NULL, 0, MPI_COMM_WORLD);
        }
    }
    if (status == 0 && nprocs >= 2) {
        check_explain("iso_moore2d_r1", rank);
        check_explain("moore2d", rank);
    }
    {
        /* after --validate the selector has loaded the stored values (the same ones) */
        cs_loggp_t l;
        int from = cs_loggp_current(&l);
        check(nprocs < 2 ? from == CS_LOGGP_FROM_DEFAULTS : from == CS_LOGGP_FROM_DATABASE,
              "rank %d: LogGP from source %d after --validate", rank, from);
    }
    if (rank == 0) {
        check(status == 0, "cs_bench_main returned %d on rank 0, want 0", status);
        if (status == 0) {
            check_database(path, nprocs);
        }
    } else {
        failed += status != 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &passed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d passed, %d failed\n", passed, failed);
        if (failed == 0) {
            unlink(path);
            rmdir(dir);
        } else {
            printf("database kept: %s\n", path);
        }
    }
    MPI_Finalize();
    return failed != 0;
}

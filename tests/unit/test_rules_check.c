/* Unit tests of the rules a selector reads from a database that anyone may have written
 * (issue 18, "hostile files and environment"; tests/fuzz fuzzes the same paths): bad rows are
 * skipped, counted and described once, and the rest is used.
 *   - cs_sel_rules_check on crafted rows: unknown algorithms, an algorithm of another
 *     collective, overlapping, empty and negative intervals, NaN, infinite, negative and huge
 *     numbers, absurd parameters, patterns where none belong, duplicate ranks, orphans, and
 *     100000 rules; then pruning and lookups use exactly the good ones.
 *   - cs_sel_rules_read on a crafted database with the real schema whose rule table has lost
 *     its NOT NULL and CHECK constraints: NULL texts (a NULL collective crashed the reader),
 *     numbers beyond an int (read back cut to their low 32 bits, 2^32 + 4 processes as 4),
 *     text in numeric columns, and 100000 rules; pattern signatures out of range or NULL.
 *   - cs_sel_rules_load on a database a tuning run writes meanwhile (every load succeeds and
 *     sees one commit whole) and on one in a read-only directory.
 *   - cs_sel_rules_nb_served (whether libcollsel_pmpi makes a new communicator's context at
 *     once): the nearest tuned size, native ranked first, nonblocking rules over blocking
 *     ones, the ompi family, gatherv, neighbourhood pattern rules with and without a topology.
 *   - the environment: COLLSEL_DB longer than the path buffer (was cut short: another file),
 *     COLLSEL_NODE_SIZE beyond a long (was taken as LONG_MAX), COLLSEL_VERBOSE; the same
 *     for collsel_init's path.
 * No MPI is initialised; nothing is communicated (the loads run MPI_Get_library_version,
 * which MPI allows before MPI_Init). */
#include "collsel.h"
#include "core/log.h"
#include "core/machine.h"
#include "db.h"
#include "registry.h"
#include "select_int.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define INF CS_RULE_UNBOUNDED

static cs_rule_t rule(cs_coll_t coll, int size, int ppn, uint64_t lo, uint64_t hi, int rank,
                      const char *algorithm, const char *params) {
    cs_rule_t r;
    memset(&r, 0, sizeof(r));
    r.coll = coll;
    r.comm_size = size;
    r.ppn = ppn;
    r.rank = rank;
    r.lo_bytes = lo;
    r.hi_bytes = hi;
    r.median_us = 10.0 * rank;
    r.native_us = 100.0;
    r.p_value = NAN;
    ck_assert_int_eq(cs_rule_set_variant(&r, algorithm, params), CS_OK);
    return r;
}

/* The name of candidate k of the interval holding `bytes` ("" when none). */
static const char *cand(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes, int k) {
    const cs_sel_interval_t *iv = cs_sel_lookup(sc, coll, bytes);
    return iv == NULL || k >= iv->ncand ? "" : iv->cand[k].algo->name;
}

/* --- cs_sel_rules_check --------------------------------------------------------------------- */

START_TEST(test_check_bad_rows) {
    cs_rule_t r[64];
    cs_sel_comm_t sc;
    char why[512];
    int n = 0, nbad = -1, kept, good;
    const cs_coll_t A = CS_COLL_ALLREDUCE;
    memset(&sc, 0, sizeof(sc));
    /* good: [0, 64) recursive_doubling then native; [64, 128) an unknown winner (a newer
     * collsel's) and reduce_bcast; [1024, inf) orth(dims=2x2) */
    r[n++] = rule(A, 4, 4, 0, 64, 1, "allreduce/recursive_doubling", "");
    r[n++] = rule(A, 4, 4, 0, 64, 2, "allreduce/native", "");
    r[n++] = rule(A, 4, 4, 64, 128, 2, "allreduce/reduce_bcast", "");
    r[n++] = rule(A, 4, 4, 1024, INF, 1, "allreduce/orth", "dims=2x2");
    r[n] = rule(A, 4, 4, 0, 64, 3, "allreduce/linear", "");
    r[n++].median_us = NAN; /* unknown: fine */
    r[n] = rule(A, 4, 4, 1024, INF, 2, "allreduce/linear", "");
    r[n++].median_us = 1e300; /* huge but finite: fine */
    good = n;
    /* bad rows, each skipped alone */
    r[n++] = rule(A, 4, 4, 64, 128, 1, "allreduce/from_the_future", "");    /* unknown winner */
    r[n++] = rule(A, 4, 4, 0, 64, 4, "allreduce/rign", "");                 /* unknown */
    r[n++] = rule(A, 4, 4, 0, 64, 5, "bcast/binomial", "");                 /* other collective */
    r[n++] = rule(A, 4, 4, 100, 200, 1, "allreduce/linear", "");            /* overlaps [64,128) */
    r[n++] = rule(A, 4, 4, 100, 200, 2, "allreduce/native", "");            /* ... its candidate */
    r[n++] = rule(A, 4, 4, (uint64_t)-8, INF, 1, "allreduce/linear", "");   /* negative lo */
    r[n++] = rule(A, 4, 4, 300, 200, 1, "allreduce/linear", "");            /* hi < lo */
    r[n++] = rule(A, 4, 4, 500, 500, 1, "allreduce/linear", "");            /* empty */
    r[n++] = rule(A, 4, 4, 600, (uint64_t)-2, 1, "allreduce/linear", "");   /* negative hi */
    r[n++] = rule(A, 4, 4, 0, 64, 6, "allreduce/orth", "dims=2x2,bogus=1"); /* absurd params */
    r[n++] = rule(A, 4, 4, 0, 64, 7, "allreduce/dpml", "leaders=");
    r[n++] = rule(A, 4, 4, 0, 64, 2, "allreduce/reduce_bcast", ""); /* rank 2 twice */
    r[n++] = rule(A, 4, 4, 0, 128, 8, "allreduce/linear", "");      /* other hi */
    r[n++] = rule(A, 4, 4, 256, 512, 2, "allreduce/linear", "");    /* no winner */
    r[n] = rule(A, 4, 4, 0, 64, 9, "allreduce/linear", "");
    r[n++].median_us = -1;
    r[n] = rule(A, 4, 4, 0, 64, 10, "allreduce/linear", "");
    r[n++].native_us = INFINITY;
    r[n] = rule(A, 4, 4, 0, 64, 11, "allreduce/linear", "");
    r[n++].median_us = -INFINITY;
    r[n++] = rule(A, 0, 4, 0, INF, 1, "allreduce/linear", "");    /* no processes */
    r[n++] = rule(A, 4, -1, 0, INF, 1, "allreduce/linear", "");   /* ppn < 1 */
    r[n++] = rule(A, 4, 4, 2048, INF, 0, "allreduce/linear", ""); /* rank 0 */
    r[n] = rule(A, 4, 4, 0, INF, 1, "allreduce/linear", "");
    snprintf(r[n++].pattern, CS_RULE_PATTERN, "cart2d"); /* a pattern on allreduce */
    r[n] = rule(A, 4, 4, 0, INF, 1, "allreduce/linear", "");
    r[n++].coll = (cs_coll_t)(CS_COLL_COUNT + 3); /* no such collective */
    kept = cs_sel_rules_check(r, n, CS_SEL_MAX_RULES, &nbad, why, sizeof(why));
    ck_assert_int_eq(kept, good);
    ck_assert_int_eq(nbad, n - good);
    ck_assert_msg(why[0] != '\0', "no word on the skipped rows");
    /* kept rows are well formed: checking them again skips none */
    ck_assert_int_eq(cs_sel_rules_check(r, kept, CS_SEL_MAX_RULES, &nbad, why, sizeof(why)), kept);
    ck_assert_int_eq(nbad, 0);
    ck_assert_str_eq(why, "");
    ck_assert_int_eq(cs_sel_prune(r, kept, 4, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[A], 3);
    ck_assert_str_eq(cand(&sc, A, 8, 0), "allreduce/recursive_doubling");
    ck_assert_str_eq(cand(&sc, A, 8, 1), "allreduce/native");
    ck_assert_str_eq(cand(&sc, A, 8, 2), "allreduce/linear");
    ck_assert_int_eq(cs_sel_lookup(&sc, A, 8)->ncand, 4);             /* native appended last */
    ck_assert_str_eq(cand(&sc, A, 100, 0), "allreduce/reduce_bcast"); /* winner unknown */
    ck_assert_str_eq(cand(&sc, A, 100, 1), "allreduce/native");
    ck_assert_ptr_null(cs_sel_lookup(&sc, A, 200)); /* the overlapping interval is gone */
    ck_assert_ptr_null(cs_sel_lookup(&sc, A, 300));
    ck_assert_str_eq(cand(&sc, A, 4096, 0), "allreduce/orth");
    ck_assert_str_eq(cand(&sc, A, 4096, 1), "allreduce/linear");
    ck_assert_str_eq(cand(&sc, A, UINT64_MAX - 1, 0), "allreduce/orth");
    cs_sel_comm_clear(&sc);
}
END_TEST

/* The first skipped row is named, with what is wrong with it. */
START_TEST(test_check_says_why) {
    cs_rule_t r[2];
    char why[512];
    int nbad = 0;
    r[0] = rule(CS_COLL_BCAST, 4, 4, 0, INF, 1, "bcast/binomial", "");
    r[1] = rule(CS_COLL_BCAST, 4, 4, 0, INF, 2, "bcast/rign", "");
    ck_assert_int_eq(cs_sel_rules_check(r, 2, CS_SEL_MAX_RULES, &nbad, why, sizeof(why)), 1);
    ck_assert_int_eq(nbad, 1);
    ck_assert_msg(strstr(why, "bcast/rign") != NULL && strstr(why, "unknown algorithm") != NULL,
                  "'%s'", why);
    /* nothing to check, NULL outputs */
    ck_assert_int_eq(cs_sel_rules_check(NULL, 0, CS_SEL_MAX_RULES, NULL, NULL, 0), 0);
}
END_TEST

/* 100000 rules, half of them bad (the same intervals again as rank 1: duplicates), in reverse
 * order: the 50000 good ones are all found; a cap keeps the first rules and counts the rest. */
START_TEST(test_check_many) {
    enum { N = 100000, HALF = N / 2 };
    cs_rule_t *r = malloc(N * sizeof(*r));
    cs_sel_comm_t sc;
    int nbad = 0;
    ck_assert_ptr_nonnull(r);
    memset(&sc, 0, sizeof(sc));
    for (int i = 0; i < HALF; i++) {
        r[N - 1 - 2 * i] = rule(CS_COLL_BCAST, 8, 4, 10 * (uint64_t)i, 10 * (uint64_t)i + 5, 1,
                                i % 2 ? "bcast/binomial" : "bcast/linear", "");
        r[N - 2 - 2 * i] = rule(CS_COLL_BCAST, 8, 4, 10 * (uint64_t)i, 10 * (uint64_t)i + 5, 1,
                                "bcast/no_such", "");
    }
    ck_assert_int_eq(cs_sel_rules_check(r, N, CS_SEL_MAX_RULES, &nbad, NULL, 0), HALF);
    ck_assert_int_eq(nbad, HALF);
    ck_assert_int_eq(cs_sel_prune(r, HALF, 8, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[CS_COLL_BCAST], HALF);
    for (int i = 0; i < HALF; i += 997) {
        ck_assert_str_eq(cand(&sc, CS_COLL_BCAST, 10 * (uint64_t)i + 4, 0),
                         i % 2 ? "bcast/binomial" : "bcast/linear");
        ck_assert_ptr_null(cs_sel_lookup(&sc, CS_COLL_BCAST, 10 * (uint64_t)i + 5));
    }
    cs_sel_comm_clear(&sc);
    ck_assert_int_eq(cs_sel_rules_check(r, HALF, 1000, &nbad, NULL, 0), 1000);
    ck_assert_int_eq(nbad, HALF - 1000);
    free(r);
}
END_TEST

/* --- a crafted database -------------------------------------------------------------------- */

static char path[64];

static void make_db(void) {
    int fd;
    snprintf(path, sizeof(path), "/tmp/collsel-test-rules-XXXXXX");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    unlink(path);
}

static void raw_exec(sqlite3 *conn, const char *text) {
    char *err = NULL;
    int rc = sqlite3_exec(conn, text, NULL, NULL, &err);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", text, err ? err : "");
    sqlite3_free(err);
}

/* A database with the real schema, machine 1 and good rules for bcast on 4 processes 4 per
 * node ([0, 64) binomial, [64, inf) linear), whose rule table then loses its NOT NULL and CHECK
 * constraints, as a broken or hostile writer could leave it. Returns the raw connection. */
static sqlite3 *crafted_db(int64_t *machine_id) {
    static const cs_db_machine_t m = {"h", "t", "mpi"};
    cs_rule_t good[2];
    cs_db_t *db = NULL;
    sqlite3 *conn = NULL;
    char why[512];
    make_db();
    ck_assert_msg(cs_db_open(path, CS_DB_READ_WRITE, &db, why, sizeof(why)) == CS_OK, "%s", why);
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &m, machine_id), CS_OK);
    good[0] = rule(CS_COLL_BCAST, 4, 4, 0, 64, 1, "bcast/binomial", "");
    good[1] = rule(CS_COLL_BCAST, 4, 4, 64, INF, 1, "bcast/linear", "");
    good[0].machine_id = good[1].machine_id = *machine_id;
    ck_assert_int_eq(cs_db_replace_rules(db, *machine_id, CS_COLL_BCAST, 4, 4, good, 2), CS_OK);
    cs_db_close(db);
    ck_assert_int_eq(sqlite3_open(path, &conn), SQLITE_OK);
    raw_exec(conn, "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE "
                   "rule (machine_id INTEGER, coll TEXT, pattern TEXT DEFAULT '''', comm_size "
                   "INTEGER, ppn INTEGER, lo_bytes INTEGER, hi_bytes INTEGER, rank INTEGER, "
                   "algorithm TEXT, params TEXT DEFAULT '''', median_us REAL, native_us REAL, "
                   "p_value REAL, run_id INTEGER, setup_us REAL, UNIQUE (machine_id, coll, "
                   "pattern, comm_size, "
                   "ppn, lo_bytes, rank))' WHERE type = 'table' AND name = 'rule'; "
                   "PRAGMA writable_schema = OFF");
    sqlite3_close(conn);
    ck_assert_int_eq(sqlite3_open(path, &conn), SQLITE_OK);
    return conn;
}

static cs_db_t *open_read_only(void) {
    cs_db_t *db = NULL;
    char why[512];
    ck_assert_msg(cs_db_open(path, CS_DB_READ_ONLY, &db, why, sizeof(why)) == CS_OK, "%s", why);
    return db;
}

#define ROW(values)                                                                                \
    "INSERT INTO rule (machine_id, coll, pattern, comm_size, ppn, lo_bytes, hi_bytes, rank, "      \
    "algorithm, params, median_us, native_us, p_value) VALUES " values

START_TEST(test_read_bad_rows) {
    int64_t machine_id = 0;
    sqlite3 *conn = crafted_db(&machine_id);
    cs_db_t *db;
    cs_rule_t *rules = NULL;
    cs_sel_comm_t sc;
    char why[1024];
    int n = 0, nbad = 0;
    memset(&sc, 0, sizeof(sc));
    ck_assert_int_eq(machine_id, 1);
    raw_exec(conn,
             ROW("(1, NULL, '', 4, 4, 0, NULL, 2, 'bcast/linear', '', 1, 1, NULL), "
                 "(1, 'bcast', NULL, 4, 4, 0, NULL, 3, 'bcast/linear', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 0, 64, 4, NULL, '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 0, 64, 5, 'bcast/scatter_allgather', NULL, 1, 1, NULL), "
                 "(1, 'bcast', '', 4294967300, 4, 0, NULL, 1, 'bcast/binomial', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, -4294967292, 0, NULL, 1, 'bcast/binomial', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 0, 64, 4294967298, 'bcast/native', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 'four', 4, 0, NULL, 1, 'bcast/binomial', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, -64, 0, 1, 'bcast/binomial', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 32, 96, 1, 'bcast/binomial', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 64, NULL, 2, 'bcast/rign', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 64, NULL, 3, 'bcast/orth', 'dims=2x2,x=1', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 64, NULL, 4, 'bcast/binomial', '', -5, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 64, NULL, 5, 'bcast/binomial', '', 1e999, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 64, NULL, 6, 'allreduce/native', '', 1, 1, NULL), "
                 "(1, 'bcast', '', 4, 4, 64, NULL, 7, 'bcast/native', '', NULL, NULL, NULL), "
                 "(1, 'no_such_coll', '', 4, 4, 0, NULL, 1, 'no_such_coll/x', '', 1, 1, NULL)"));
    sqlite3_close(conn);
    db = open_read_only();
    ck_assert_int_eq(cs_sel_rules_read(db, machine_id, &rules, &n, &nbad, why, sizeof(why)), CS_OK);
    /* kept: the 2 good rules, the NULL-params row (params ''), native with unknown times */
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(nbad, 11); /* db/ skips the NULL texts and the unknown collective */
    ck_assert_msg(why[0] != '\0', "no word on the skipped rows");
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(rules[i].comm_size, 4);
        ck_assert_int_eq(rules[i].ppn, 4);
    }
    ck_assert_int_eq(cs_sel_prune(rules, n, 4, 4, &sc), CS_OK);
    ck_assert_str_eq(cand(&sc, CS_COLL_BCAST, 8, 0), "bcast/binomial");
    ck_assert_str_eq(cand(&sc, CS_COLL_BCAST, 8, 1), "bcast/scatter_allgather");
    ck_assert_str_eq(cand(&sc, CS_COLL_BCAST, 8, 2), "bcast/native");
    ck_assert_str_eq(cand(&sc, CS_COLL_BCAST, 1 << 20, 0), "bcast/linear");
    ck_assert_str_eq(cand(&sc, CS_COLL_BCAST, 1 << 20, 1), "bcast/native");
    ck_assert_int_eq(cs_sel_lookup(&sc, CS_COLL_BCAST, 1 << 20)->ncand, 2);
    cs_sel_comm_clear(&sc);
    free(rules);
    cs_db_close(db);
    unlink(path);
}
END_TEST

/* 100000 rules in the database (50000 intervals of allreduce, each with a bad second row):
 * read, checked and pruned; every good interval is found. */
START_TEST(test_read_many) {
    int64_t machine_id = 0;
    sqlite3 *conn = crafted_db(&machine_id);
    sqlite3_stmt *s = NULL;
    cs_db_t *db;
    cs_rule_t *rules = NULL;
    cs_sel_comm_t sc;
    int n = 0, nbad = 0;
    memset(&sc, 0, sizeof(sc));
    raw_exec(conn, "BEGIN");
    ck_assert_int_eq(sqlite3_prepare_v2(conn,
                                        ROW("(1, 'allreduce', '', 8, 2, ?1, ?2, ?3, ?4, '', 1, "
                                            "2, NULL)"),
                                        -1, &s, NULL),
                     SQLITE_OK);
    for (int i = 0; i < 100000; i++) {
        sqlite3_bind_int64(s, 1, 100 * (int64_t)(i / 2));
        sqlite3_bind_int64(s, 2, 100 * (int64_t)(i / 2) + 50);
        sqlite3_bind_int(s, 3, 1 + i % 2);
        sqlite3_bind_text(s, 4, i % 2 ? "allreduce/nope" : "allreduce/recursive_doubling", -1,
                          SQLITE_STATIC);
        ck_assert_int_eq(sqlite3_step(s), SQLITE_DONE);
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    raw_exec(conn, "COMMIT");
    sqlite3_close(conn);
    db = open_read_only();
    ck_assert_int_eq(cs_sel_rules_read(db, machine_id, &rules, &n, &nbad, NULL, 0), CS_OK);
    ck_assert_int_eq(n, 50000 + 2); /* and the two bcast rules */
    ck_assert_int_eq(nbad, 50000);
    ck_assert_int_eq(cs_sel_prune(rules, n, 8, 2, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[CS_COLL_ALLREDUCE], 50000);
    for (int i = 0; i < 50000; i += 1009) {
        ck_assert_str_eq(cand(&sc, CS_COLL_ALLREDUCE, 100 * (uint64_t)i + 49, 0),
                         "allreduce/recursive_doubling");
    }
    cs_sel_comm_clear(&sc);
    free(rules);
    cs_db_close(db);
    unlink(path);
}
END_TEST

static int collect_pattern(const cs_db_pattern_t *t, void *ctx) {
    char *names = ctx;
    ck_assert_ptr_nonnull(t->name);
    strcat(names, t->name);
    strcat(names, " ");
    return CS_OK;
}

/* Pattern signatures the schema would refuse (its constraints lost): NULL names (handed to the
 * selector, which copied them with "%s"), numbers beyond an int or negative, NaN and infinite
 * means: skipped; the good one is read. */
START_TEST(test_read_bad_patterns) {
    int64_t machine_id = 0;
    sqlite3 *conn = crafted_db(&machine_id);
    cs_db_t *db;
    char names[256] = "";
    raw_exec(conn, "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE "
                   "pattern (machine_id INTEGER, name TEXT, p INTEGER, nedges INTEGER, max_out "
                   "INTEGER, max_in INTEGER, mean_out REAL, imbalance REAL, offsets TEXT, UNIQUE "
                   "(machine_id, name, p))' WHERE type = 'table' AND name = 'pattern'; "
                   "PRAGMA writable_schema = OFF");
    sqlite3_close(conn);
    ck_assert_int_eq(sqlite3_open(path, &conn), SQLITE_OK);
    raw_exec(conn, "INSERT INTO pattern (machine_id, name, p, nedges, max_out, max_in, "
                   "mean_out, imbalance) VALUES (1, 'cart2d', 4, 8, 2, 2, 2.0, 1.0), "
                   "(1, NULL, 4, 8, 2, 2, 2.0, 1.0), (1, 'big', 4294967300, 8, 2, 2, 2.0, 1.0), "
                   "(1, 'neg', 4, -1, 2, 2, 2.0, 1.0), (1, 'nan', 4, 8, 2, 2, NULL, 1.0), "
                   "(1, 'inf', 4, 8, 2, 2, 1e999, 1.0), (1, 'text', 'four', 8, 2, 2, 2.0, 1.0), "
                   "(1, 'a_name_longer_than_a_rule_holds_it', 4, 8, 2, 2, 2.0, 1.0)");
    sqlite3_close(conn);
    db = open_read_only();
    ck_assert_int_eq(cs_db_foreach_pattern(db, machine_id, collect_pattern, names), CS_OK);
    ck_assert_str_eq(names, "cart2d ");
    cs_db_close(db);
    unlink(path);
}
END_TEST

/* --- the environment ----------------------------------------------------------------------- */

/* COLLSEL_DB longer than the selector holds: ignored with a word, never cut to another path. */
START_TEST(test_env_long_db) {
    cs_sel_env_t env;
    size_t len = sizeof(env.db) + 10;
    char *long_path = malloc(len + 1);
    ck_assert_ptr_nonnull(long_path);
    memset(long_path, 'a', len);
    long_path[0] = '/';
    long_path[len] = '\0';
    setenv("COLLSEL_DB", long_path, 1);
    cs_sel_env_parse(&env, 0);
    ck_assert_str_eq(env.db, "");
    long_path[sizeof(env.db) - 1] = '\0'; /* the longest that fits */
    setenv("COLLSEL_DB", long_path, 1);
    cs_sel_env_parse(&env, 0);
    ck_assert_str_eq(env.db, long_path);
    unsetenv("COLLSEL_DB");
    free(long_path);
}
END_TEST

/* collsel_init with a path longer than the selector holds: ignored with a word (COLLSEL_DB is
 * used), never cut to another path. */
START_TEST(test_init_long_path) {
    size_t len = 5000;
    char *long_path = malloc(len + 1);
    ck_assert_ptr_nonnull(long_path);
    memset(long_path, 'b', len);
    long_path[0] = '/';
    long_path[len] = '\0';
    setenv("COLLSEL_DB", "/from/the/environment.db", 1);
    ck_assert_int_eq(collsel_init(long_path), MPI_SUCCESS);
    pthread_mutex_lock(&cs_sel_lock);
    ck_assert_str_eq(cs_sel_db_path(), "/from/the/environment.db");
    pthread_mutex_unlock(&cs_sel_lock);
    ck_assert_int_eq(collsel_finalize(), MPI_SUCCESS);
    long_path[4095] = '\0'; /* the longest that fits */
    ck_assert_int_eq(collsel_init(long_path), MPI_SUCCESS);
    pthread_mutex_lock(&cs_sel_lock);
    ck_assert_str_eq(cs_sel_db_path(), long_path);
    pthread_mutex_unlock(&cs_sel_lock);
    ck_assert_int_eq(collsel_finalize(), MPI_SUCCESS);
    unsetenv("COLLSEL_DB");
    free(long_path);
}
END_TEST

START_TEST(test_env_numbers) {
    long k = -7;
    int level = -7;
    ck_assert_int_eq(cs_machine_parse_node_size("4", &k), 1);
    ck_assert_int_eq(k, 4);
    k = -7;
    ck_assert_int_eq(cs_machine_parse_node_size("99999999999999999999999", &k), 0);
    ck_assert_int_eq(cs_machine_parse_node_size("0", &k), 0);
    ck_assert_int_eq(cs_machine_parse_node_size("-3", &k), 0);
    ck_assert_int_eq(cs_machine_parse_node_size("4x", &k), 0);
    ck_assert_int_eq(cs_machine_parse_node_size("", &k), 0);
    ck_assert_int_eq(cs_machine_parse_node_size(NULL, &k), 0);
    ck_assert_int_eq(k, -7);
    ck_assert_int_eq(cs_log_parse_level("3", &level), 1);
    ck_assert_int_eq(level, 3);
    ck_assert_int_eq(cs_log_parse_level("4", &level), 0);
    ck_assert_int_eq(cs_log_parse_level("-1", &level), 0);
    ck_assert_int_eq(cs_log_parse_level("99999999999999999999999", &level), 0);
    ck_assert_int_eq(cs_log_parse_level("1 ", &level), 0);
    ck_assert_int_eq(level, 3);
}
END_TEST

/* --- a database written while read, and one in a read-only directory ------------------------- */

/* One consistent state the live writer stores: allreduce rules of `nrules` intervals all naming
 * `algo`, the pattern "live" with `nedges` edges and LogGP latency `l_us`. A reader that mixed
 * two commits would see the rules of one and the pattern or latency of the other. */
typedef struct live_state {
    int nrules, nedges;
    const char *algo;
    double l_us;
} live_state_t;

static const live_state_t live_states[2] = {{3, 1, "allreduce/recursive_doubling", 1.0},
                                            {7, 2, "allreduce/reduce_bcast", 2.0}};

static void live_store(cs_db_t *db, int64_t machine_id, const live_state_t *st) {
    cs_rule_t r[8];
    cs_db_pattern_t pat = {machine_id, "live", 4, st->nedges, 1, 1, 1.0, 1.0, 0, 0, NULL};
    cs_db_loggp_t lg = {machine_id, 4, 0, st->l_us, 0.1, 0.1, 0.001};
    for (int i = 0; i < st->nrules; i++) {
        r[i] = rule(CS_COLL_ALLREDUCE, 4, 4, (uint64_t)i * 64,
                    i + 1 < st->nrules ? (uint64_t)(i + 1) * 64 : INF, 1, st->algo, "");
        r[i].machine_id = machine_id;
    }
    ck_assert_int_eq(cs_db_begin(db), CS_OK);
    ck_assert_int_eq(
        cs_db_replace_rules(db, machine_id, CS_COLL_ALLREDUCE, 4, 4, r, (size_t)st->nrules), CS_OK);
    ck_assert_int_eq(cs_db_put_pattern(db, &pat), CS_OK);
    ck_assert_int_eq(cs_db_put_loggp(db, &lg), CS_OK);
    ck_assert_int_eq(cs_db_commit(db), CS_OK);
}

/* A database at `path` with this machine's fingerprint (what cs_sel_rules_load looks for) in
 * state 0. Returns the machine's id. */
static int64_t live_db(void) {
    cs_machine_t m;
    cs_db_machine_t dm;
    cs_db_t *db = NULL;
    int64_t id = 0;
    char why[512];
    cs_machine_fingerprint(&m);
    dm.host = m.host;
    dm.topology = m.topology;
    dm.mpi_library = m.mpi_library;
    make_db();
    ck_assert_msg(cs_db_open(path, CS_DB_READ_WRITE, &db, why, sizeof(why)) == CS_OK, "%s", why);
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &dm, &id), CS_OK);
    live_store(db, id, &live_states[0]);
    cs_db_close(db);
    return id;
}

/* Which live state `ld` is (0 or 1); fails on anything else, a mixture included. */
static int live_which(const cs_sel_loaded_t *ld) {
    for (int k = 0; k < 2; k++) {
        const live_state_t *st = &live_states[k];
        int ok = ld->n == st->nrules && ld->npats == 1 && ld->have_loggp;
        for (int i = 0; ok && i < ld->n; i++) {
            ok = strcmp(ld->rules[i].algorithm, st->algo) == 0;
        }
        if (ok && ld->pats[0].sig.nedges == st->nedges && ld->loggp.l_us == st->l_us) {
            return k;
        }
    }
    ck_abort_msg("a read saw no single commit: %d rules (first %s; %d bad: %s), %d patterns, "
                 "loggp %d L %g",
                 ld->n, ld->n > 0 ? ld->rules[0].algorithm : "-", ld->nbad, ld->bad_why, ld->npats,
                 ld->have_loggp, ld->loggp.l_us);
    return -1;
}

/* A tuning run writes the database while applications load their rules: a child process
 * stores the two states alternately, one batch each 2 ms, for 1.5 s; meanwhile every load succeeds
 * and sees exactly one of them (one snapshot), and both are seen. The longest load is printed
 * (no timing is asserted). */
START_TEST(test_live_writer) {
    int64_t id = live_db();
    int fds[2], status = 0, loads = 0, seen[2] = {0, 0}, writes = 0;
    double worst = 0;
    pid_t child;
    ck_assert_int_eq(pipe(fds), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) { /* the writer */
        cs_db_t *db = NULL;
        char why[512];
        struct timespec t0, t;
        int n = 0;
        close(fds[0]);
        if (cs_db_open(path, CS_DB_READ_WRITE, &db, why, sizeof(why)) != CS_OK) {
            _exit(2);
        }
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            live_store(db, id, &live_states[++n & 1]);
            nanosleep(&(struct timespec){0, 2000000},
                      NULL); /* a tuning run commits far less often */
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < 1.5);
        cs_db_close(db);
        if (write(fds[1], &n, sizeof(n)) != (ssize_t)sizeof(n)) {
            _exit(3);
        }
        _exit(0);
    }
    close(fds[1]);
    for (;;) {
        cs_sel_loaded_t ld;
        char why[1024];
        struct timespec t0, t1;
        int rc, done = waitpid(child, &status, WNOHANG) == child;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = cs_sel_rules_load(path, 4, &ld, why, sizeof(why));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ck_assert_msg(rc == CS_OK, "load %d failed while the database was written: %s", loads, why);
        seen[live_which(&ld)]++;
        loads++;
        cs_sel_loaded_free(&ld);
        double ms =
            1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
        worst = ms > worst ? ms : worst;
        if (done) {
            break;
        }
    }
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer failed: %d", status);
    ck_assert_int_eq(read(fds[0], &writes, sizeof(writes)), (ssize_t)sizeof(writes));
    close(fds[0]);
    printf(
        "live writer: %d commits, %d loads (%d of state 0, %d of state 1), longest load %.1f ms\n",
        writes, loads, seen[0], seen[1], worst);
    ck_assert_msg(writes >= 5 && loads >= 5, "too little overlap: %d commits, %d loads", writes,
                  loads);
    ck_assert_msg(seen[0] > 0 && seen[1] > 0, "the loads never saw a new commit");
    unlink(path);
}
END_TEST

/* The database in a directory nobody may write (and itself read-only): the rules load, and
 * nothing is created next to it. Root ignores permission bits, so as root the load runs in a
 * child that has become nobody. */
START_TEST(test_read_only_dir) {
    char dir[64] = "/tmp/collsel-test-rodir-XXXXXX", dbpath[128];
    int64_t id;
    pid_t child;
    int status = 0;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    id = live_db();
    (void)id;
    snprintf(dbpath, sizeof(dbpath), "%s/rules.db", dir);
    ck_assert_int_eq(rename(path, dbpath), 0);
    ck_assert_int_eq(chmod(dbpath, 0444), 0);
    ck_assert_int_eq(chmod(dir, 0555), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        cs_sel_loaded_t ld;
        char why[1024], probe[160];
        int fd;
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
            _exit(10);
        }
        snprintf(probe, sizeof(probe), "%s/probe", dir);
        fd = open(probe, O_CREAT | O_WRONLY, 0600);
        if (fd >= 0) { /* the directory is writable after all: the test proves nothing */
            close(fd);
            unlink(probe);
            _exit(11);
        }
        if (cs_sel_rules_load(dbpath, 4, &ld, why, sizeof(why)) != CS_OK) {
            fprintf(stderr, "read-only directory: %s\n", why);
            _exit(12);
        }
        _exit(ld.n == live_states[0].nrules ? 0 : 13);
    }
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the load in a read-only directory failed (exit %d: 10 cannot become nobody, 11 "
                  "directory writable, 12 load failed, 13 wrong rules)",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    {
        DIR *d = opendir(dir);
        struct dirent *e;
        int files = 0;
        ck_assert_ptr_nonnull(d);
        while ((e = readdir(d)) != NULL) {
            files += e->d_name[0] != '.';
        }
        closedir(d);
        ck_assert_msg(files == 1, "the reader left %d files in the directory", files);
    }
    unlink(dbpath);
    rmdir(dir);
}
END_TEST

/* --- cs_sel_rules_nb_served: whether a new communicator gets its context at once ----------- */

START_TEST(test_nb_served) {
    cs_rule_t r[16], nb[4];
    int n = 0;
    /* allreduce at 4: native first in [0, 64), recursive_doubling first in [64, inf) */
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, 64, 1, "allreduce/native", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, 64, 2, "allreduce/recursive_doubling", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 64, INF, 1, "allreduce/recursive_doubling", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 64, INF, 2, "allreduce/native", "");
    /* at 16: native everywhere (a candidate after it does not count) */
    r[n++] = rule(CS_COLL_ALLREDUCE, 16, 4, 0, INF, 1, "allreduce/native", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 16, 4, 0, INF, 2, "allreduce/recursive_doubling", "");
    ck_assert_int_eq(cs_sel_rules_check(r, n, n, NULL, NULL, 0), n);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 4, 0), 1);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 2, 0), 1);  /* nearest: 4 */
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 8, 0), 0);  /* 4 and 16 as near: 16 */
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 7, 0), 1);  /* nearer 4 */
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 64, 0), 0); /* nearest: 16 */
    /* nonblocking rules of allreduce replace its blocking ones: native at 4, nothing served */
    nb[0] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, INF, 1, "allreduce/native", "");
    nb[1] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, INF, 2, "allreduce/linear", "");
    ck_assert_int_eq(cs_sel_rules_check(nb, 2, 2, NULL, NULL, 0), 2);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, nb, 2, 4, 0), 0);
    /* the ompi family cannot be an operation: the next candidate decides */
    n = 0;
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, INF, 1, "allreduce/ompi", "alg=ring");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, INF, 2, "allreduce/native", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, INF, 3, "allreduce/linear", "");
    ck_assert_int_eq(cs_sel_rules_check(r, n, n, NULL, NULL, 0), n);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 4, 0), 0);
    r[1] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, INF, 2, "allreduce/linear", "");
    r[2] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, INF, 3, "allreduce/native", "");
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 4, 0), 1);
    /* gatherv's nonblocking calls are served too (they agree first), native ones are not */
    n = 0;
    r[n++] = rule(CS_COLL_GATHERV, 4, 4, 0, INF, 1, "gatherv/linear", "");
    r[n++] = rule(CS_COLL_GATHERV, 4, 4, 0, INF, 2, "gatherv/native", "");
    ck_assert_int_eq(cs_sel_rules_check(r, n, n, NULL, NULL, 0), n);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 4, 0), 1);
    r[0] = rule(CS_COLL_GATHERV, 4, 4, 0, INF, 1, "gatherv/native", "");
    r[1] = rule(CS_COLL_GATHERV, 4, 4, 0, INF, 2, "gatherv/linear", "");
    ck_assert_int_eq(cs_sel_rules_check(r, n, n, NULL, NULL, 0), n);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 4, 0), 0);
    /* neighbourhood pattern rules count only on a communicator with a topology */
    n = 0;
    r[n++] = rule(CS_COLL_NEIGHBOR_ALLTOALL, 4, 4, 0, INF, 1, "neighbor_alltoall/linear", "");
    r[n++] = rule(CS_COLL_NEIGHBOR_ALLTOALL, 4, 4, 0, INF, 2, "neighbor_alltoall/native", "");
    snprintf(r[0].pattern, CS_RULE_PATTERN, "cart2d");
    snprintf(r[1].pattern, CS_RULE_PATTERN, "cart2d");
    ck_assert_int_eq(cs_sel_rules_check(r, n, n, NULL, NULL, 0), n);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 9, 0), 0);
    ck_assert_int_eq(cs_sel_rules_nb_served(r, n, NULL, 0, 9, 1), 1);
    ck_assert_int_eq(cs_sel_rules_nb_served(NULL, 0, NULL, 0, 4, 1), 0);
}
END_TEST

static Suite *rules_suite(void) {
    Suite *s = suite_create("rules_check");
    TCase *check = tcase_create("check");
    TCase *read = tcase_create("read");
    TCase *env = tcase_create("env");
    tcase_add_test(check, test_check_bad_rows);
    tcase_add_test(check, test_check_says_why);
    tcase_add_test(check, test_check_many);
    tcase_add_test(check, test_nb_served);
    tcase_add_test(read, test_read_bad_rows);
    tcase_add_test(read, test_read_many);
    tcase_add_test(read, test_read_bad_patterns);
    tcase_add_test(read, test_live_writer);
    tcase_add_test(read, test_read_only_dir);
    tcase_set_timeout(read, 60);
    tcase_add_test(env, test_env_long_db);
    tcase_add_test(env, test_env_numbers);
    tcase_add_test(env, test_init_long_path);
    suite_add_tcase(s, check);
    suite_add_tcase(s, read);
    suite_add_tcase(s, env);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(rules_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

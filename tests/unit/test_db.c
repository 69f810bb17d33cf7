/* Unit tests of the database layer (db/db.c): every insert read back, batches, run statuses
 * and resume, rules replacement, schema creation and migration, refusing foreign and newer
 * databases, read-only use, and that a committed batch survives kill -9. No MPI.
 *
 * The raw SQLite calls here only build databases in older or foreign states and look at what
 * db.c wrote; the code under test is the only code of collsel that talks to SQLite. */
#include "db.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MEMORY ":memory:"

static const cs_db_machine_t here = {"node01", "packages=1 numa=1 cores=2 pus=2",
                                     "Open MPI v4.1.4"};

/* --- helpers ------------------------------------------------------------------------------- */

static cs_db_t *open_db(const char *path, cs_db_mode_t mode) {
    char why[512];
    cs_db_t *db = NULL;
    int rc = cs_db_open(path, mode, &db, why, sizeof(why));
    ck_assert_msg(rc == CS_OK, "cs_db_open(%s): %s: %s", path, cs_status_name(rc), why);
    ck_assert_ptr_nonnull(db);
    return db;
}

static int64_t add_machine(cs_db_t *db) {
    int64_t id = 0;
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &here, &id), CS_OK);
    ck_assert_int_gt(id, 0);
    return id;
}

static cs_db_run_t job(int64_t machine_id, const char *args) {
    cs_db_run_t run = {.machine_id = machine_id,
                       .nprocs = 4,
                       .nnodes = 1,
                       .ppn = 4,
                       .oversubscribed = 1,
                       .args = args,
                       .version = "0.1.0"};
    return run;
}

static int64_t start(cs_db_t *db, const cs_db_run_t *run, bool resume, bool *resumed) {
    int64_t id = 0;
    ck_assert_int_eq(cs_db_start_run(db, run, resume, &id, resumed), CS_OK);
    ck_assert_int_gt(id, 0);
    return id;
}

static cs_db_run_status_t status_of(cs_db_t *db, int64_t run_id) {
    cs_db_run_status_t status = CS_DB_RUN_RUNNING;
    ck_assert_int_eq(cs_db_run_status(db, run_id, &status), CS_OK);
    return status;
}

static int64_t count(cs_db_t *db, const char *table, int64_t run_id) {
    int64_t n = -1;
    ck_assert_int_eq(cs_db_count_rows(db, table, run_id, &n), CS_OK);
    return n;
}

static cs_db_measurement_t measurement(int64_t run_id, const char *algorithm, uint64_t bytes,
                                       double median_us) {
    cs_db_measurement_t m = {
        .run_id = run_id,
        .point = {"allreduce", algorithm, "", 4, 4, bytes},
        .reps = 5,
        .outliers = 1,
        .min_us = median_us - 1,
        .q1_us = median_us - 0.5,
        .median_us = median_us,
        .q3_us = median_us + 0.5,
        .max_us = median_us + 1,
        .verified = 1,
    };
    return m;
}

static bool exists(cs_db_t *db, int64_t run_id, const cs_db_point_t *p) {
    bool yes = false;
    ck_assert_int_eq(cs_db_measurement_exists(db, run_id, p, &yes), CS_OK);
    return yes;
}

/* --- temporary directory for file databases (a checked fixture: one per test) -------------- */

static char dir[256];

static void make_dir(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/cs_test_db.XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char path[512];
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}

static const char *file(const char *name) {
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
    return p;
}

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Raw SQLite: run `text` on the database at `path` (created when missing). */
static void raw_exec(const char *path, const char *text) {
    sqlite3 *conn = NULL;
    ck_assert_int_eq(sqlite3_open(path, &conn), SQLITE_OK);
    char *err = NULL;
    int src = sqlite3_exec(conn, text, NULL, NULL, &err);
    ck_assert_msg(src == SQLITE_OK, "raw_exec: %s", err != NULL ? err : "?");
    sqlite3_free(err);
    sqlite3_close(conn);
}

/* Raw SQLite: the integer in the first column of the first row of `text`. */
static int64_t raw_int(const char *path, const char *text) {
    sqlite3 *conn = NULL;
    sqlite3_stmt *s = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &conn, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(conn, text, -1, &s, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(conn);
    return v;
}

/* Appends every row of `text` on `conn` to buf (columns joined by '|', rows by newlines). */
static void dump(sqlite3 *conn, const char *text, char **buf, size_t *len) {
    sqlite3_stmt *s = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(conn, text, -1, &s, NULL), SQLITE_OK);
    while (sqlite3_step(s) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count(s); i++) {
            const char *v = (const char *)sqlite3_column_text(s, i);
            size_t add = strlen(v != NULL ? v : "NULL") + 2;
            *buf = realloc(*buf, *len + add + 1);
            ck_assert_ptr_nonnull(*buf);
            *len += (size_t)snprintf(*buf + *len, add + 1, "%s%c", v != NULL ? v : "NULL",
                                     i + 1 < sqlite3_column_count(s) ? '|' : '\n');
        }
    }
    sqlite3_finalize(s);
}

/* The shape of a schema: tables and columns, indexes and their columns, foreign keys. */
static char *signature(sqlite3 *conn) {
    static const char *const queries[] = {
        "SELECT m.name, p.cid, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk "
        "FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' "
        "ORDER BY m.name, p.cid",
        "SELECT m.name, l.name, l.\"unique\", l.origin, l.partial "
        "FROM sqlite_master m, pragma_index_list(m.name) l WHERE m.type = 'table' "
        "ORDER BY m.name, l.name",
        "SELECT l.name, i.seqno, i.name FROM sqlite_master m, pragma_index_list(m.name) l, "
        "pragma_index_info(l.name) i WHERE m.type = 'table' ORDER BY l.name, i.seqno",
        "SELECT m.name, f.id, f.seq, f.\"table\", f.\"from\", f.\"to\", f.on_delete "
        "FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table' "
        "ORDER BY m.name, f.id, f.seq",
    };
    char *buf = calloc(1, 1);
    size_t len = 0;
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
        dump(conn, queries[i], &buf, &len);
    }
    return buf;
}

static char *signature_of_file(const char *path) {
    sqlite3 *conn = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &conn, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char *sig = signature(conn);
    sqlite3_close(conn);
    return sig;
}

/* The signature of a database created from db/schema.sql alone. */
static char *signature_of_schema(void) {
    sqlite3 *conn = NULL;
    ck_assert_int_eq(sqlite3_open(MEMORY, &conn), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(conn, cs_db_schema_sql(), NULL, NULL, NULL), SQLITE_OK);
    char *sig = signature(conn);
    sqlite3_close(conn);
    return sig;
}

/* Fails with the first line that differs between `got` and `want` (whole texts are too long
 * for Check's messages). */
static void assert_same_lines(const char *got, const char *want, const char *what) {
    size_t i = 0, line = 0;
    while (got[i] != '\0' && got[i] == want[i]) {
        if (got[i] == '\n') {
            line = i + 1;
        }
        i++;
    }
    if (got[i] == want[i]) {
        return;
    }
    int got_len = (int)strcspn(got + line, "\n");
    int want_len = (int)strcspn(want + line, "\n");
    ck_abort_msg("%s: schema differs from db/schema.sql: has '%.*s' where schema.sql has '%.*s'",
                 what, got_len, got + line, want_len, want + line);
}

/* --- callbacks that collect rows ----------------------------------------------------------- */

typedef struct {
    int n;
    cs_db_measurement_t m[8];
    char algorithm[8][64], params[8][64];
    double samples[8][8], loop_samples[8][8];
} measurements_t;

static int collect_measurement(const cs_db_measurement_t *m, void *ctx) {
    measurements_t *c = ctx;
    ck_assert_int_lt(c->n, 8);
    ck_assert_uint_le(m->nsamples, 8);
    c->m[c->n] = *m;
    snprintf(c->algorithm[c->n], 64, "%s", m->point.algorithm);
    snprintf(c->params[c->n], 64, "%s", m->point.params);
    c->m[c->n].point.algorithm = c->algorithm[c->n];
    c->m[c->n].point.params = c->params[c->n];
    c->m[c->n].point.coll = "allreduce";
    ck_assert_str_eq(m->point.coll, "allreduce");
    if (m->nsamples > 0) {
        memcpy(c->samples[c->n], m->samples_us, m->nsamples * sizeof(double));
    }
    c->m[c->n].samples_us = c->samples[c->n];
    ck_assert_uint_le(m->loop_nsamples, 8);
    if (m->loop_nsamples > 0) {
        memcpy(c->loop_samples[c->n], m->loop_samples_us, m->loop_nsamples * sizeof(double));
    }
    c->m[c->n].loop_samples_us = c->loop_samples[c->n];
    c->n++;
    return CS_OK;
}

typedef struct {
    int n;
    cs_rule_t r[8];
} rules_t;

static int collect_rule(const cs_rule_t *r, void *ctx) {
    rules_t *c = ctx;
    ck_assert_int_lt(c->n, 8);
    c->r[c->n++] = *r;
    return CS_OK;
}

static rules_t read_rules(cs_db_t *db, int64_t machine_id) {
    rules_t c = {0};
    ck_assert_int_eq(cs_db_foreach_rule(db, machine_id, collect_rule, &c), CS_OK);
    return c;
}

/* --- in-memory round trips ----------------------------------------------------------------- */

START_TEST(open_memory) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    ck_assert_str_eq(cs_db_errmsg(db), "");
    ck_assert_int_eq(count(db, "machine", 0), 0);
    cs_db_close(db);
    cs_db_close(NULL);
    ck_assert_int_ge(cs_db_schema_version(), 1);
    ck_assert_ptr_nonnull(cs_db_migration_sql(1));
    ck_assert_ptr_nonnull(cs_db_migration_sql(cs_db_schema_version()));
    ck_assert_ptr_null(cs_db_migration_sql(0));
    ck_assert_ptr_null(cs_db_migration_sql(cs_db_schema_version() + 1));
    ck_assert_ptr_nonnull(strstr(cs_db_schema_sql(), "CREATE TABLE measurement"));
}
END_TEST

START_TEST(open_bad_arguments) {
    cs_db_t *db = NULL;
    char why[64];
    ck_assert_int_eq(cs_db_open(NULL, CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_open("", CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_open(MEMORY, CS_DB_READ_WRITE, NULL, why, sizeof(why)), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_open(MEMORY, (cs_db_mode_t)7, &db, NULL, 0), CS_ERR_ARG);
    ck_assert_ptr_null(db);
    /* An in-memory database opened read-only is empty: no collsel schema. */
    ck_assert_int_eq(cs_db_open(MEMORY, CS_DB_READ_ONLY, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_null(db);
    ck_assert_ptr_nonnull(strstr(why, "empty"));
}
END_TEST

static int collect_machine(int64_t id, const cs_db_machine_t *m, void *ctx) {
    char *out = ctx;
    size_t len = strlen(out);
    snprintf(out + len, 256 - len, "%lld:%s/%s/%s;", (long long)id, m->host, m->topology,
             m->mpi_library);
    return CS_OK;
}

START_TEST(machine_round_trip) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    int64_t a = add_machine(db);
    ck_assert_int_eq(add_machine(db), a);
    cs_db_machine_t other = here;
    other.mpi_library = "MPICH 4.0";
    int64_t b = 0;
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &other, &b), CS_OK);
    ck_assert_int_ne(a, b);
    ck_assert_int_eq(count(db, "machine", 0), 2);

    char seen[256] = "";
    ck_assert_int_eq(cs_db_foreach_machine(db, collect_machine, seen), CS_OK);
    char want[256];
    snprintf(want, sizeof(want),
             "%lld:node01/packages=1 numa=1 cores=2 pus=2/Open MPI v4.1.4;"
             "%lld:node01/packages=1 numa=1 cores=2 pus=2/MPICH 4.0;",
             (long long)a, (long long)b);
    ck_assert_str_eq(seen, want);

    cs_db_machine_t partial = {"node01", NULL, "x"};
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &partial, &b), CS_ERR_ARG);
    /* Without rules no machine is a selector's machine. */
    int64_t found = 0;
    ck_assert_int_eq(cs_db_find_machine(db, NULL, &found), CS_ERR_NOT_FOUND);
    cs_db_close(db);
}
END_TEST

typedef struct {
    int n;
    int64_t id[8];
    cs_db_run_kind_t kind[8];
    cs_db_metric_t metric[8];
    char text[1024];
} runs_t;

static int collect_run(const cs_db_run_row_t *r, void *ctx) {
    static const char *const names[] = {"running", "done", "aborted"};
    runs_t *c = ctx;
    ck_assert_int_lt(c->n, 8);
    c->kind[c->n] = r->run.kind;
    c->metric[c->n] = r->run.metric;
    c->id[c->n++] = r->id;
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof(c->text) - len, "%lld:m%lld %d/%d/%d o%d '%s' %s %s %s%s r%d;",
             (long long)r->id, (long long)r->run.machine_id, r->run.nprocs, r->run.nnodes,
             r->run.ppn, r->run.oversubscribed, r->run.args,
             r->run.version != NULL ? r->run.version : "NULL", names[r->status],
             r->started_at != NULL && strlen(r->started_at) == 20 ? "started" : "BAD",
             r->finished_at != NULL ? " finished" : "", r->resumes);
    return CS_OK;
}

static int stop_after_run(const cs_db_run_row_t *r, void *ctx) {
    runs_t *c = ctx;
    c->id[c->n++] = r->id;
    return 1;
}

START_TEST(runs_listed) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    runs_t got = {0};
    ck_assert_int_eq(cs_db_foreach_run(db, 0, collect_run, &got), CS_OK);
    ck_assert_int_eq(got.n, 0);

    int64_t m1 = add_machine(db);
    cs_db_machine_t other = {"node02", here.topology, here.mpi_library};
    int64_t m2 = 0;
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &other, &m2), CS_OK);
    cs_db_run_t run = job(m1, "colls=0x1");
    int64_t a = start(db, &run, false, NULL);
    ck_assert_int_eq(cs_db_finish_run(db, a, CS_DB_RUN_DONE), CS_OK);
    cs_db_run_t plain = {.machine_id = m2, .nprocs = 2, .nnodes = 2, .ppn = 1};
    int64_t b = start(db, &plain, false, NULL); /* no args, no version */
    int64_t c = start(db, &run, false, NULL);
    ck_assert_int_eq(start(db, &run, true, NULL), c); /* resumed once */
    ck_assert_int_eq(cs_db_finish_run(db, c, CS_DB_RUN_ABORTED), CS_OK);

    ck_assert_int_eq(cs_db_foreach_run(db, 0, collect_run, &got), CS_OK);
    ck_assert_int_eq(got.n, 3);
    char want[1024];
    snprintf(want, sizeof(want),
             "%lld:m%lld 4/1/4 o1 'colls=0x1' 0.1.0 done started finished r0;"
             "%lld:m%lld 2/2/1 o0 '' NULL running started r0;"
             "%lld:m%lld 4/1/4 o1 'colls=0x1' 0.1.0 aborted started finished r1;",
             (long long)a, (long long)m1, (long long)b, (long long)m2, (long long)c, (long long)m1);
    ck_assert_str_eq(got.text, want);

    runs_t only = {0};
    ck_assert_int_eq(cs_db_foreach_run(db, m2, collect_run, &only), CS_OK);
    ck_assert_int_eq(only.n, 1);
    ck_assert_int_eq(only.id[0], b);
    runs_t none = {0};
    ck_assert_int_eq(cs_db_foreach_run(db, m2 + 100, collect_run, &none), CS_OK);
    ck_assert_int_eq(none.n, 0);
    runs_t first = {0};
    ck_assert_int_eq(cs_db_foreach_run(db, m1, stop_after_run, &first), CS_OK);
    ck_assert_int_eq(first.n, 1);
    ck_assert_int_eq(first.id[0], a);

    ck_assert_int_eq(cs_db_foreach_run(db, 0, NULL, NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_foreach_run(db, -1, collect_run, &none), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_foreach_run(NULL, 0, collect_run, &none), CS_ERR_ARG);
    cs_db_close(db);
}
END_TEST

START_TEST(run_lifecycle) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    int64_t machine_id = add_machine(db);
    cs_db_run_t run = job(machine_id, "--sizes 4:4M");
    bool resumed = true;
    int64_t id = start(db, &run, false, &resumed);
    ck_assert(!resumed);
    ck_assert_int_eq(status_of(db, id), CS_DB_RUN_RUNNING);
    ck_assert_int_eq(cs_db_finish_run(db, id, CS_DB_RUN_RUNNING), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_finish_run(db, id, CS_DB_RUN_DONE), CS_OK);
    ck_assert_int_eq(status_of(db, id), CS_DB_RUN_DONE);
    /* done is final */
    ck_assert_int_eq(cs_db_finish_run(db, id, CS_DB_RUN_ABORTED), CS_ERR_NOT_FOUND);
    ck_assert_int_eq(status_of(db, id), CS_DB_RUN_DONE);

    cs_db_run_status_t st;
    ck_assert_int_eq(cs_db_run_status(db, id + 100, &st), CS_ERR_NOT_FOUND);
    ck_assert_int_eq(cs_db_finish_run(db, id + 100, CS_DB_RUN_DONE), CS_ERR_NOT_FOUND);

    /* Bad runs: unknown machine (foreign key), bad layout. */
    cs_db_run_t bad = job(machine_id + 100, "");
    int64_t bad_id = 0;
    ck_assert_int_eq(cs_db_start_run(db, &bad, false, &bad_id, NULL), CS_ERR_DB);
    ck_assert_str_ne(cs_db_errmsg(db), "");
    bad = job(machine_id, "");
    bad.nprocs = 0;
    ck_assert_int_eq(cs_db_start_run(db, &bad, false, &bad_id, NULL), CS_ERR_ARG);
    ck_assert_int_eq(count(db, "run", 0), 1);
    cs_db_close(db);
}
END_TEST

START_TEST(resume_continues_a_killed_run) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "--sizes 4:4M");
    int64_t a = start(db, &run, false, NULL);
    /* killed: a stays 'running' */
    bool resumed = false;
    ck_assert_int_eq(start(db, &run, true, &resumed), a);
    ck_assert(resumed);
    ck_assert_int_eq(status_of(db, a), CS_DB_RUN_RUNNING);
    ck_assert_int_eq(count(db, "run", 0), 1);
    /* interrupted and marked aborted by a signal handler: resumable too */
    ck_assert_int_eq(cs_db_finish_run(db, a, CS_DB_RUN_ABORTED), CS_OK);
    ck_assert_int_eq(status_of(db, a), CS_DB_RUN_ABORTED);
    ck_assert_int_eq(start(db, &run, true, &resumed), a);
    ck_assert(resumed);
    ck_assert_int_eq(status_of(db, a), CS_DB_RUN_RUNNING);
    ck_assert_int_eq(cs_db_finish_run(db, a, CS_DB_RUN_DONE), CS_OK);
    /* The newest matching run is done: nothing to resume, a new run starts. */
    int64_t b = start(db, &run, true, &resumed);
    ck_assert(!resumed);
    ck_assert_int_ne(b, a);
    ck_assert_int_eq(status_of(db, a), CS_DB_RUN_DONE);
    ck_assert_int_eq(status_of(db, b), CS_DB_RUN_RUNNING);
    cs_db_close(db);
}
END_TEST

START_TEST(new_run_aborts_interrupted_runs) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "--colls allreduce");
    int64_t a = start(db, &run, false, NULL);
    int64_t b = start(db, &run, false, NULL); /* not a resume: a was interrupted */
    ck_assert_int_eq(status_of(db, a), CS_DB_RUN_ABORTED);
    ck_assert_int_eq(status_of(db, b), CS_DB_RUN_RUNNING);
    /* --resume takes the newest unfinished run with these args */
    bool resumed = false;
    ck_assert_int_eq(start(db, &run, true, &resumed), b);
    ck_assert(resumed);
    ck_assert_int_eq(status_of(db, a), CS_DB_RUN_ABORTED);
    ck_assert_int_eq(status_of(db, b), CS_DB_RUN_RUNNING);

    /* other args or another job layout: a new run, and b is aborted */
    cs_db_run_t other = job(run.machine_id, "--colls bcast");
    int64_t c = start(db, &other, true, &resumed);
    ck_assert(!resumed);
    ck_assert_int_eq(status_of(db, b), CS_DB_RUN_ABORTED);
    cs_db_run_t wider = run;
    wider.nprocs = 8;
    wider.ppn = 8;
    int64_t d = start(db, &wider, true, &resumed);
    ck_assert(!resumed);
    ck_assert_int_eq(status_of(db, c), CS_DB_RUN_ABORTED);
    ck_assert_int_eq(status_of(db, d), CS_DB_RUN_RUNNING);
    /* b is still the newest run with run's layout and args */
    ck_assert_int_eq(start(db, &run, true, &resumed), b);
    ck_assert(resumed);
    ck_assert_int_eq(count(db, "run", 0), 4);

    /* runs of another machine are left alone */
    cs_db_machine_t m2 = {"node02", here.topology, here.mpi_library};
    cs_db_run_t run2 = job(0, "--colls allreduce");
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &m2, &run2.machine_id), CS_OK);
    int64_t e = start(db, &run2, false, NULL);
    ck_assert_int_eq(status_of(db, b), CS_DB_RUN_RUNNING);
    ck_assert_int_eq(status_of(db, e), CS_DB_RUN_RUNNING);
    cs_db_close(db);
}
END_TEST

START_TEST(measurement_round_trip) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);

    const double samples[] = {10.25, 9.75, 1e-300, 123456.789012345, 11.0, 0x1.fffffffffffffp+1023};
    cs_db_measurement_t a = measurement(id, "allreduce/recursive_doubling", 1024, 12.5);
    a.samples_us = samples;
    a.nsamples = 6;
    a.reps = 6;
    cs_db_measurement_t b = measurement(id, "allreduce/native", 1024, 20.0);
    b.point.params = NULL; /* stored as "" */
    b.verified = 0;
    cs_db_measurement_t c = measurement(id, "allreduce/recursive_doubling", 16, 3.0);
    c.point.params = "leaders=2,segments=4";
    ck_assert_int_eq(cs_db_insert_measurement(db, &a), CS_OK);
    ck_assert_int_eq(cs_db_insert_measurement(db, &b), CS_OK);
    ck_assert_int_eq(cs_db_insert_measurement(db, &c), CS_OK);
    ck_assert_int_eq(count(db, "measurement", id), 3);
    ck_assert_int_eq(count(db, "measurement", id + 1), 0);

    ck_assert(exists(db, id, &a.point));
    ck_assert(exists(db, id, &b.point));
    ck_assert(!exists(db, id + 1, &a.point));
    cs_db_point_t p = a.point;
    p.bytes = 2048;
    ck_assert(!exists(db, id, &p));
    p = c.point;
    p.params = "leaders=2";
    ck_assert(!exists(db, id, &p));
    p = a.point;
    p.comm_size = 2;
    ck_assert(!exists(db, id, &p));

    /* read back: ordered by coll, comm_size, ppn, bytes, algorithm, params */
    measurements_t got = {0};
    ck_assert_int_eq(cs_db_foreach_measurement(db, id, collect_measurement, &got), CS_OK);
    ck_assert_int_eq(got.n, 3);
    ck_assert_str_eq(got.m[0].point.algorithm, "allreduce/recursive_doubling");
    ck_assert_str_eq(got.m[0].point.params, "leaders=2,segments=4");
    ck_assert_uint_eq(got.m[0].point.bytes, 16);
    ck_assert_uint_eq(got.m[0].nsamples, 0);
    ck_assert_str_eq(got.m[1].point.algorithm, "allreduce/native");
    ck_assert_str_eq(got.m[1].point.params, "");
    ck_assert_int_eq(got.m[1].verified, 0);
    const cs_db_measurement_t *r = &got.m[2];
    ck_assert_int_eq(r->run_id, id);
    ck_assert_str_eq(r->point.params, "");
    ck_assert_int_eq(r->point.comm_size, 4);
    ck_assert_int_eq(r->point.ppn, 4);
    ck_assert_uint_eq(r->point.bytes, 1024);
    ck_assert_int_eq(r->reps, 6);
    ck_assert_int_eq(r->outliers, 1);
    ck_assert(r->min_us == 11.5 && r->q1_us == 12.0 && r->median_us == 12.5);
    ck_assert(r->q3_us == 13.0 && r->max_us == 13.5);
    ck_assert_int_eq(r->verified, 1);
    ck_assert_uint_eq(r->nsamples, 6);
    ck_assert_mem_eq(r->samples_us, samples, sizeof(samples)); /* bit-exact */
    cs_db_close(db);
}
END_TEST

START_TEST(measurement_loop_metric_round_trip) {
    /* The loop metric's statistics and samples come back as stored; a measurement without it
     * (loop_reps 0) has NULL loop columns and reads back with loop_reps 0 and NaN times. */
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    const double sync[3] = {10.0, 11.0, 12.0}, loop[3] = {4.0, 4.5, 5.0};
    cs_db_measurement_t with = measurement(id, "allreduce/ring", 64, 11.0);
    with.reps = 3;
    with.outliers = 0;
    with.samples_us = sync;
    with.nsamples = 3;
    with.loop_reps = 3;
    with.loop_outliers = 1;
    with.loop_min_us = 4.0;
    with.loop_q1_us = 4.25;
    with.loop_median_us = 4.5;
    with.loop_q3_us = 4.75;
    with.loop_max_us = 5.0;
    with.loop_rankmax_median_us = 7.5;
    with.loop_samples_us = loop;
    with.loop_nsamples = 3;
    cs_db_measurement_t without = measurement(id, "allreduce/native", 64, 12.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &with), CS_OK);
    ck_assert_int_eq(cs_db_insert_measurement(db, &without), CS_OK);
    cs_db_measurement_t bad = with;
    bad.point.algorithm = "allreduce/rd";
    bad.loop_outliers = 3;
    ck_assert_int_eq(cs_db_insert_measurement(db, &bad), CS_ERR_ARG);
    bad.loop_outliers = 0;
    bad.loop_median_us = NAN;
    ck_assert_int_eq(cs_db_insert_measurement(db, &bad), CS_ERR_ARG);
    bad = with;
    bad.point.algorithm = "allreduce/rd";
    bad.loop_reps = -1;
    ck_assert_int_eq(cs_db_insert_measurement(db, &bad), CS_ERR_ARG);
    measurements_t got = {0};
    ck_assert_int_eq(cs_db_foreach_measurement(db, id, collect_measurement, &got), CS_OK);
    ck_assert_int_eq(got.n, 2);
    /* ordered by algorithm: native, ring */
    ck_assert_int_eq(got.m[0].loop_reps, 0);
    ck_assert_uint_eq(got.m[0].loop_nsamples, 0);
    ck_assert(isnan(got.m[0].loop_median_us) && isnan(got.m[0].loop_rankmax_median_us));
    ck_assert_int_eq(got.m[1].loop_reps, 3);
    ck_assert_int_eq(got.m[1].loop_outliers, 1);
    ck_assert_double_eq(got.m[1].loop_min_us, 4.0);
    ck_assert_double_eq(got.m[1].loop_q1_us, 4.25);
    ck_assert_double_eq(got.m[1].loop_median_us, 4.5);
    ck_assert_double_eq(got.m[1].loop_q3_us, 4.75);
    ck_assert_double_eq(got.m[1].loop_max_us, 5.0);
    ck_assert_double_eq(got.m[1].loop_rankmax_median_us, 7.5);
    ck_assert_uint_eq(got.m[1].nsamples, 3);
    ck_assert_uint_eq(got.m[1].loop_nsamples, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_double_eq(got.samples[1][i], sync[i]);
        ck_assert_double_eq(got.loop_samples[1][i], loop[i]);
    }
    cs_db_close(db);
}
END_TEST

START_TEST(run_metric_round_trip) {
    /* A run stores its metric policy; zero is 'sync'; an out-of-range one is refused. The
     * names map both ways. */
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    int64_t m = add_machine(db);
    cs_db_run_t a = job(m, "a"), b = job(m, "b"), c = job(m, "c");
    cs_db_metric_t metric = CS_DB_METRIC_SYNC;
    int64_t id = 0;
    b.metric = CS_DB_METRIC_LOOP;
    c.metric = CS_DB_METRIC_BOTH;
    start(db, &a, false, NULL);
    start(db, &b, false, NULL);
    start(db, &c, false, NULL);
    c.metric = (cs_db_metric_t)7;
    ck_assert_int_eq(cs_db_start_run(db, &c, false, &id, NULL), CS_ERR_ARG);
    runs_t got = {0};
    ck_assert_int_eq(cs_db_foreach_run(db, m, collect_run, &got), CS_OK);
    ck_assert_int_eq(got.n, 3);
    ck_assert_int_eq(got.metric[0], CS_DB_METRIC_SYNC);
    ck_assert_int_eq(got.metric[1], CS_DB_METRIC_LOOP);
    ck_assert_int_eq(got.metric[2], CS_DB_METRIC_BOTH);
    ck_assert_str_eq(cs_db_metric_name(CS_DB_METRIC_BOTH), "both");
    ck_assert_ptr_null(cs_db_metric_name((cs_db_metric_t)3));
    ck_assert_int_eq(cs_db_metric_from_name("loop", &metric), CS_OK);
    ck_assert_int_eq(metric, CS_DB_METRIC_LOOP);
    ck_assert_int_eq(cs_db_metric_from_name("LOOP", &metric), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_metric_from_name(NULL, &metric), CS_ERR_ARG);
    ck_assert_int_eq(metric, CS_DB_METRIC_LOOP);
    cs_db_close(db);
}
END_TEST

START_TEST(measurement_duplicate_is_kept_once) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    cs_db_measurement_t a = measurement(id, "allreduce/native", 64, 5.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &a), CS_OK);
    cs_db_measurement_t again = measurement(id, "allreduce/native", 64, 99.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &again), CS_OK);
    ck_assert_int_eq(count(db, "measurement", id), 1);
    measurements_t got = {0};
    ck_assert_int_eq(cs_db_foreach_measurement(db, id, collect_measurement, &got), CS_OK);
    ck_assert_int_eq(got.n, 1);
    ck_assert(got.m[0].median_us == 5.0); /* first write wins */
    /* the same point in another run is another row */
    int64_t id2 = start(db, &run, false, NULL);
    a.run_id = id2;
    ck_assert_int_eq(cs_db_insert_measurement(db, &a), CS_OK);
    ck_assert_int_eq(count(db, "measurement", 0), 2);
    cs_db_close(db);
}
END_TEST

START_TEST(measurement_bad_arguments) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    cs_db_measurement_t m = measurement(id, "allreduce/native", 64, 5.0);
    m.point.coll = NULL;
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id, "bcast/native", 64, 5.0); /* not an allreduce algorithm */
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id, "allreduce/", 64, 5.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id, "allreduce/native", 64, 5.0);
    m.reps = 0;
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id, "allreduce/native", 64, 5.0);
    m.outliers = m.reps;
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id, "allreduce/native", 64, NAN);
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id, "allreduce/native", (uint64_t)INT64_MAX + 1, 5.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id, "allreduce/native", 64, 5.0);
    m.nsamples = 3; /* samples_us NULL */
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_ARG);
    m = measurement(id + 1, "allreduce/native", 64, 5.0); /* no such run */
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_DB);
    ck_assert_ptr_nonnull(strstr(cs_db_errmsg(db), "FOREIGN KEY"));
    ck_assert_int_eq(count(db, "measurement", 0), 0);
    cs_db_close(db);
}
END_TEST

typedef struct {
    int n;
    char text[512];
} failures_t;

static int collect_failure(const cs_db_failure_t *f, void *ctx) {
    failures_t *c = ctx;
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof(c->text) - len, "%s|%s|%s|%d|%d|%llu|%s;", f->point.coll,
             f->point.algorithm, f->point.params, f->point.comm_size, f->point.ppn,
             (unsigned long long)f->point.bytes, f->message);
    c->n++;
    return CS_OK;
}

START_TEST(failure_round_trip) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    cs_db_failure_t f = {
        id, {"bcast", "bcast/wrong", "radix=4", 3, 3, 8, NULL}, "element 1 is 7, not 8"};
    ck_assert_int_eq(cs_db_insert_failure(db, &f), CS_OK);
    ck_assert_int_eq(cs_db_insert_failure(db, &f), CS_OK); /* kept once */
    cs_db_failure_t g = {id, {"bcast", "bcast/wrong", NULL, 3, 3, 0, NULL}, "count 0: hang"};
    ck_assert_int_eq(cs_db_insert_failure(db, &g), CS_OK);
    cs_db_failure_t bad = f;
    bad.message = NULL;
    ck_assert_int_eq(cs_db_insert_failure(db, &bad), CS_ERR_ARG);
    ck_assert_int_eq(count(db, "failure", id), 2);
    failures_t got = {0};
    ck_assert_int_eq(cs_db_foreach_failure(db, id, collect_failure, &got), CS_OK);
    ck_assert_int_eq(got.n, 2);
    ck_assert_str_eq(got.text, "bcast|bcast/wrong||3|3|0|count 0: hang;"
                               "bcast|bcast/wrong|radix=4|3|3|8|element 1 is 7, not 8;");
    cs_db_close(db);
}
END_TEST

static cs_rule_t rule(int64_t machine_id, int comm_size, uint64_t lo, uint64_t hi, int rank,
                      const char *algorithm) {
    cs_rule_t r = {.machine_id = machine_id,
                   .coll = CS_COLL_ALLREDUCE,
                   .comm_size = comm_size,
                   .ppn = 4,
                   .lo_bytes = lo,
                   .hi_bytes = hi,
                   .rank = rank,
                   .median_us = 10.0 * rank,
                   .native_us = 20.0,
                   .p_value = 0.001 * rank,
                   .run_id = 0};
    ck_assert_int_eq(cs_rule_set_variant(&r, algorithm, ""), CS_OK);
    return r;
}

START_TEST(rules_replace_keeps_exactly_the_new_set) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    int64_t mid = add_machine(db);
    cs_db_run_t run = job(mid, "");
    int64_t run_id = start(db, &run, false, NULL);

    cs_rule_t first[] = {
        rule(mid, 4, 0, 2048, 1, "allreduce/recursive_doubling"),
        rule(mid, 4, 0, 2048, 2, "allreduce/native"),
        rule(mid, 4, 2048, CS_RULE_UNBOUNDED, 1, "allreduce/native"),
    };
    first[1].p_value = NAN;
    first[2].p_value = NAN;
    first[2].median_us = NAN;
    ck_assert_int_eq(cs_rule_set_variant(&first[0], "allreduce/recursive_doubling", "leaders=2"),
                     CS_OK);
    first[0].run_id = run_id;
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, first, 3), CS_OK);
    /* another communicator size: a key of its own */
    cs_rule_t two[] = {rule(mid, 2, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native")};
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 2, 4, two, 1), CS_OK);

    rules_t got = read_rules(db, mid);
    ck_assert_int_eq(got.n, 4);
    ck_assert_int_eq(got.r[0].comm_size, 2); /* ordered by comm_size, lo_bytes, rank */
    ck_assert(got.r[0].hi_bytes == CS_RULE_UNBOUNDED);
    const cs_rule_t *r = &got.r[1];
    ck_assert_int_eq(r->machine_id, mid);
    ck_assert_int_eq(r->comm_size, 4);
    ck_assert_int_eq(r->ppn, 4);
    ck_assert_uint_eq(r->lo_bytes, 0);
    ck_assert_uint_eq(r->hi_bytes, 2048);
    ck_assert_int_eq(r->rank, 1);
    ck_assert_str_eq(r->algorithm, "allreduce/recursive_doubling");
    ck_assert_str_eq(r->params, "leaders=2");
    ck_assert(r->median_us == 10.0 && r->native_us == 20.0 && r->p_value == 0.001);
    ck_assert_int_eq(r->run_id, run_id);
    ck_assert_int_eq(got.r[2].rank, 2);
    ck_assert(isnan(got.r[2].p_value));
    ck_assert_int_eq(got.r[2].run_id, 0);
    ck_assert_uint_eq(got.r[3].lo_bytes, 2048);
    ck_assert(got.r[3].hi_bytes == CS_RULE_UNBOUNDED);
    ck_assert(isnan(got.r[3].median_us));
    ck_assert_int_eq(count(db, "rule", run_id), 1);

    /* replace: exactly the new set remains; the other key is untouched */
    cs_rule_t second[] = {
        rule(mid, 4, 0, 64, 1, "allreduce/native"),
        rule(mid, 4, 64, CS_RULE_UNBOUNDED, 1, "allreduce/reduce_bcast"),
    };
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, second, 2), CS_OK);
    got = read_rules(db, mid);
    ck_assert_int_eq(got.n, 3);
    ck_assert_int_eq(got.r[0].comm_size, 2);
    ck_assert_uint_eq(got.r[1].hi_bytes, 64);
    ck_assert_str_eq(got.r[2].algorithm, "allreduce/reduce_bcast");

    /* invalid sets change nothing */
    cs_rule_t wrong_key[] = {rule(mid, 8, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native")};
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, wrong_key, 1),
                     CS_ERR_ARG);
    cs_rule_t empty_interval[] = {rule(mid, 4, 64, 64, 1, "allreduce/native")};
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, empty_interval, 1),
                     CS_ERR_ARG);
    cs_rule_t rank0[] = {rule(mid, 4, 0, CS_RULE_UNBOUNDED, 0, "allreduce/native")};
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, rank0, 1), CS_ERR_ARG);
    cs_rule_t other_coll[] = {rule(mid, 4, 0, CS_RULE_UNBOUNDED, 1, "bcast/native")};
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, other_coll, 1),
                     CS_ERR_ARG);
    cs_rule_t twice[] = {
        rule(mid, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native"),
        rule(mid, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/reduce_bcast"),
    };
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, twice, 2), CS_ERR_DB);
    got = read_rules(db, mid);
    ck_assert_int_eq(got.n, 3);
    ck_assert_str_eq(got.r[2].algorithm, "allreduce/reduce_bcast");

    /* n = 0 deletes the key's rules */
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, NULL, 0), CS_OK);
    got = read_rules(db, mid);
    ck_assert_int_eq(got.n, 1);
    ck_assert_int_eq(count(db, "rule", 0), 1);
    cs_db_close(db);
}
END_TEST

START_TEST(find_machine_with_rules) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    int64_t a = add_machine(db);
    cs_db_machine_t other = {"node01", here.topology, "MPICH 4.0"};
    int64_t b = 0;
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &other, &b), CS_OK);
    cs_rule_t ra = rule(a, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native");
    cs_rule_t rb = rule(b, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native");
    ck_assert_int_eq(cs_db_replace_rules(db, a, CS_COLL_ALLREDUCE, 4, 4, &ra, 1), CS_OK);
    ck_assert_int_eq(cs_db_replace_rules(db, b, CS_COLL_ALLREDUCE, 4, 4, &rb, 1), CS_OK);

    /* the machine with the newest run wins */
    cs_db_run_t run = job(b, "");
    (void)start(db, &run, false, NULL);
    run.machine_id = a;
    (void)start(db, &run, false, NULL);
    int64_t found = 0;
    cs_db_machine_t want = {"node01", NULL, NULL};
    ck_assert_int_eq(cs_db_find_machine(db, &want, &found), CS_OK);
    ck_assert_int_eq(found, a);
    ck_assert_int_eq(cs_db_find_machine(db, NULL, &found), CS_OK);
    ck_assert_int_eq(found, a);
    want.mpi_library = "MPICH 4.0";
    ck_assert_int_eq(cs_db_find_machine(db, &want, &found), CS_OK);
    ck_assert_int_eq(found, b);
    want.host = "elsewhere";
    ck_assert_int_eq(cs_db_find_machine(db, &want, &found), CS_ERR_NOT_FOUND);
    cs_db_close(db);
}
END_TEST

typedef struct {
    int n;
    cs_db_validation_t v[4];
    char text[256];
} validations_t;

static int collect_validation(const cs_db_validation_t *v, void *ctx) {
    validations_t *c = ctx;
    ck_assert_int_lt(c->n, 4);
    c->v[c->n] = *v;
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof(c->text) - len, "%s|%s|%s|%s|%s;", v->coll,
             v->selected_algorithm ? v->selected_algorithm : "NULL",
             v->selected_params ? v->selected_params : "NULL",
             v->oracle_algorithm ? v->oracle_algorithm : "NULL",
             v->oracle_params ? v->oracle_params : "NULL");
    c->n++;
    return CS_OK;
}

START_TEST(validation_round_trip) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "--validate");
    int64_t id = start(db, &run, false, NULL);
    cs_db_validation_t v = {id,
                            "allreduce",
                            4,
                            4,
                            4096,
                            30.0,
                            20.0,
                            19.5,
                            "allreduce/recursive_doubling",
                            "",
                            "allreduce/reduce_bcast",
                            "segments=2",
                            31.0,
                            21.0,
                            20.5,
                            30.6,
                            31.5,
                            NULL};
    ck_assert_int_eq(cs_db_insert_validation(db, &v), CS_OK);
    ck_assert_int_eq(cs_db_insert_validation(db, &v), CS_OK); /* kept once */
    cs_db_validation_t w = {id,   "bcast", 4,    4,   8,   3.0, 3.0, 3.0, NULL,
                            NULL, NULL,    NULL, NAN, NAN, NAN, NAN, NAN, NULL};
    ck_assert_int_eq(cs_db_insert_validation(db, &w), CS_OK);
    w.oracle_us = NAN;
    ck_assert_int_eq(cs_db_insert_validation(db, &w), CS_ERR_ARG);
    ck_assert_int_eq(count(db, "validation", id), 2);
    validations_t got = {0};
    ck_assert_int_eq(cs_db_foreach_validation(db, id, collect_validation, &got), CS_OK);
    ck_assert_int_eq(got.n, 2);
    ck_assert_str_eq(got.text, "allreduce|allreduce/recursive_doubling||allreduce/reduce_bcast|"
                               "segments=2;bcast|NULL|NULL|NULL|NULL;");
    ck_assert_int_eq(got.v[0].comm_size, 4);
    ck_assert_int_eq(got.v[0].ppn, 4);
    ck_assert_uint_eq(got.v[0].bytes, 4096);
    ck_assert_double_eq(got.v[0].native_loop_us, 31.0);
    ck_assert_double_eq(got.v[0].selected_loop_us, 21.0);
    ck_assert_double_eq(got.v[0].oracle_loop_us, 20.5);
    ck_assert(isnan(got.v[1].native_loop_us) && isnan(got.v[1].selected_loop_us) &&
              isnan(got.v[1].oracle_loop_us));
    ck_assert_double_eq(got.v[0].native2_us, 30.6);
    ck_assert_double_eq(got.v[0].native2_loop_us, 31.5);
    ck_assert(isnan(got.v[1].native2_us) && isnan(got.v[1].native2_loop_us));
    ck_assert(got.v[0].native_us == 30.0 && got.v[0].selected_us == 20.0 &&
              got.v[0].oracle_us == 19.5);
    cs_db_close(db);
}
END_TEST

/* Collects core_state rows as text. */
static int collect_core_state(const cs_db_core_state_t *c, void *ctx) {
    char *text = ctx;
    size_t n = strlen(text);
    snprintf(text + n, 512 - n, "%d:%s:%s:%d:%d:%llu:%.1f;", c->round, c->coll, c->pattern,
             c->comm_size, c->ppn, (unsigned long long)c->bytes, c->rtt_ns);
    return CS_OK;
}

START_TEST(core_state_round_trip) {
    /* one row per (round, point), the first kept; listed by point then round; bad rows refused */
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    char text[512] = "";
    cs_db_core_state_t c = {2, "reduce", NULL, 4, 4, 131072, 341.5};
    ck_assert_int_eq(cs_db_put_core_state(db, id, &c), CS_OK);
    c.rtt_ns = 60.0; /* the same point and round again: the first stays */
    ck_assert_int_eq(cs_db_put_core_state(db, id, &c), CS_OK);
    c.round = 0;
    ck_assert_int_eq(cs_db_put_core_state(db, id, &c), CS_OK);
    c.pattern = "cart2d";
    c.coll = "neighbor_alltoall";
    c.bytes = 8;
    ck_assert_int_eq(cs_db_put_core_state(db, id, &c), CS_OK);
    c.rtt_ns = NAN;
    ck_assert_int_eq(cs_db_put_core_state(db, id, &c), CS_ERR_ARG);
    c.rtt_ns = 0;
    ck_assert_int_eq(cs_db_put_core_state(db, id, &c), CS_ERR_ARG);
    c.rtt_ns = 70;
    c.round = -1;
    ck_assert_int_eq(cs_db_put_core_state(db, id, &c), CS_ERR_ARG);
    ck_assert_int_eq(count(db, "core_state", id), 3);
    ck_assert_int_eq(cs_db_foreach_core_state(db, id, collect_core_state, text), CS_OK);
    ck_assert_str_eq(text, "0:neighbor_alltoall:cart2d:4:4:8:60.0;0:reduce::4:4:131072:60.0;"
                           "2:reduce::4:4:131072:341.5;");
    cs_db_close(db);
}
END_TEST

START_TEST(batches_commit_or_roll_back) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    int64_t mid = run.machine_id;

    ck_assert_int_eq(cs_db_begin(db), CS_OK);
    ck_assert_int_eq(cs_db_begin(db), CS_ERR_DB); /* no nesting */
    cs_db_measurement_t m = measurement(id, "allreduce/native", 8, 1.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    cs_rule_t r = rule(mid, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native");
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, &r, 1), CS_OK);
    ck_assert_int_eq(cs_db_rollback(db), CS_OK);
    ck_assert_int_eq(count(db, "measurement", id), 0);
    ck_assert_int_eq(count(db, "rule", 0), 0);

    ck_assert_int_eq(cs_db_begin(db), CS_OK);
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, &r, 1), CS_OK);
    /* a failed replace inside the batch undoes only itself */
    cs_rule_t twice[] = {r, r};
    ck_assert_int_eq(cs_rule_set_variant(&twice[1], "allreduce/reduce_bcast", ""), CS_OK);
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, twice, 2), CS_ERR_DB);
    ck_assert_int_eq(cs_db_commit(db), CS_OK);
    ck_assert_int_eq(count(db, "measurement", id), 1);
    rules_t got = read_rules(db, mid);
    ck_assert_int_eq(got.n, 1);
    ck_assert_str_eq(got.r[0].algorithm, "allreduce/native");

    ck_assert_int_eq(cs_db_commit(db), CS_ERR_DB);
    ck_assert_int_eq(cs_db_rollback(db), CS_ERR_DB);
    /* starting a run inside a batch works (savepoint) and rolls back with it */
    ck_assert_int_eq(cs_db_begin(db), CS_OK);
    (void)start(db, &run, false, NULL);
    ck_assert_int_eq(cs_db_rollback(db), CS_OK);
    ck_assert_int_eq(count(db, "run", 0), 1);
    ck_assert_int_eq(status_of(db, id), CS_DB_RUN_RUNNING);
    cs_db_close(db);
}
END_TEST

static int stop_after_first(const cs_db_measurement_t *m, void *ctx) {
    (void)m;
    ++*(int *)ctx;
    return 1;
}

static int fail_at_first(const cs_db_measurement_t *m, void *ctx) {
    (void)m;
    ++*(int *)ctx;
    return CS_ERR_INTERNAL;
}

START_TEST(callbacks_stop_iteration) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    for (uint64_t bytes = 1; bytes <= 4; bytes++) {
        cs_db_measurement_t m = measurement(id, "allreduce/native", bytes, 1.0);
        ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    }
    int calls = 0;
    ck_assert_int_eq(cs_db_foreach_measurement(db, id, stop_after_first, &calls), CS_OK);
    ck_assert_int_eq(calls, 1);
    calls = 0;
    ck_assert_int_eq(cs_db_foreach_measurement(db, id, fail_at_first, &calls), CS_ERR_INTERNAL);
    ck_assert_int_eq(calls, 1);
    /* the statement was reset: iterating again sees every row */
    measurements_t got = {0};
    ck_assert_int_eq(cs_db_foreach_measurement(db, id, collect_measurement, &got), CS_OK);
    ck_assert_int_eq(got.n, 4);
    cs_db_close(db);
}
END_TEST

START_TEST(count_rows_per_run) {
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t a = start(db, &run, false, NULL);
    int64_t b = start(db, &run, false, NULL);
    cs_db_measurement_t m = measurement(a, "allreduce/native", 8, 1.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    m.run_id = b;
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    m.point.bytes = 16;
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    ck_assert_int_eq(count(db, "measurement", a), 1);
    ck_assert_int_eq(count(db, "measurement", b), 2);
    ck_assert_int_eq(count(db, "measurement", 0), 3);
    ck_assert_int_eq(count(db, "run", 0), 2);
    ck_assert_int_eq(count(db, "run", a), 1);
    ck_assert_int_eq(count(db, "machine", a), 1);
    ck_assert_int_eq(count(db, "failure", 0), 0);
    ck_assert_int_eq(count(db, "validation", 0), 0);
    int64_t n = 0;
    ck_assert_int_eq(cs_db_count_rows(db, "measurement; DROP TABLE run", 0, &n), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_count_rows(db, "sqlite_master", 0, &n), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_count_rows(db, "run", -1, &n), CS_ERR_ARG);
    cs_db_close(db);
}
END_TEST

/* --- files: creation, migration, refusal, read-only, durability ---------------------------- */

START_TEST(create_file) {
    const char *path = file("new.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_close(db);
    ck_assert(file_exists(path));
    ck_assert_int_eq(raw_int(path, "PRAGMA user_version"), cs_db_schema_version());
    ck_assert_int_eq(raw_int(path, "PRAGMA application_id"), CS_DB_APPLICATION_ID);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                                   "name IN ('machine', 'run', 'measurement', 'failure', 'rule', "
                                   "'validation')"),
                     6);
    ck_assert(!file_exists(file("new.db-journal")));
}
END_TEST

START_TEST(migrations_reach_the_schema) {
    /* Databases left at every older version (0 = empty file) are brought to the current
     * version, and the result has exactly the tables, columns, indexes and foreign keys of a
     * database created from db/schema.sql. */
    char *want = signature_of_schema();
    int latest = cs_db_schema_version();
    for (int k = 0; k <= latest; k++) {
        char name[32];
        snprintf(name, sizeof(name), "v%d.db", k);
        const char *path = file(name);
        raw_exec(path, "");
        for (int v = 1; v <= k; v++) {
            raw_exec(path, cs_db_migration_sql(v));
        }
        if (k > 0) {
            char stamp[96];
            snprintf(stamp, sizeof(stamp), "PRAGMA application_id = %d; PRAGMA user_version = %d",
                     CS_DB_APPLICATION_ID, k);
            raw_exec(path, stamp);
        }
        cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
        cs_db_close(db);
        ck_assert_int_eq(raw_int(path, "PRAGMA user_version"), latest);
        char *got = signature_of_file(path);
        assert_same_lines(got, want, name);
        free(got);
        /* and read-only now works */
        db = open_db(path, CS_DB_READ_ONLY);
        cs_db_close(db);
    }
    ck_assert_ptr_nonnull(strstr(want, "measurement|"));
    free(want);
}
END_TEST

/* A database at schema version `version` made the way an older collsel made it: migrations
 * 1..version applied raw, then `rows` (SQL) inserted. */
static void raw_db_at(const char *path, int version, const char *rows) {
    char stamp[96];
    for (int v = 1; v <= version; v++) {
        raw_exec(path, cs_db_migration_sql(v));
    }
    snprintf(stamp, sizeof(stamp), "PRAGMA application_id = %d; PRAGMA user_version = %d",
             CS_DB_APPLICATION_ID, version);
    raw_exec(path, stamp);
    raw_exec(path, rows);
}

/* Opens `path` read-write (which migrates it), closes it and checks it reached the current
 * version. */
static void upgrade(const char *path) {
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_close(db);
    ck_assert_int_eq(raw_int(path, "PRAGMA user_version"), cs_db_schema_version());
}

START_TEST(migration_2_gives_runs_their_kind) {
    /* A version-1 database (before run.kind) keeps its runs; those whose args carry the
     * 'validate ' prefix collsel-bench wrote for --validate become kind 'validate', the others
     * 'tune'. New runs store the kind they are given. */
    const char *path = file("v1_runs.db");
    raw_db_at(path, 1,
              "INSERT INTO machine (id, host, topology, mpi_library) VALUES (1, 'h', 't', 'm');"
              "INSERT INTO run (id, machine_id, started_at, nprocs, nnodes, ppn, args, status) "
              "VALUES (1, 1, '2026-01-01T00:00:00Z', 4, 1, 4, 'colls=0x11 sizes=4', 'done'),"
              "(2, 1, '2026-01-02T00:00:00Z', 4, 1, 4, 'validate colls=0x11 sizes=4', 'done'),"
              "(3, 1, '2026-01-03T00:00:00Z', 2, 1, 2, '', 'aborted');");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    runs_t got = {0};
    ck_assert_int_eq(cs_db_foreach_run(db, 0, collect_run, &got), CS_OK);
    ck_assert_int_eq(got.n, 3);
    ck_assert_int_eq(got.kind[0], CS_DB_RUN_TUNE);
    ck_assert_int_eq(got.kind[1], CS_DB_RUN_VALIDATE);
    ck_assert_int_eq(got.kind[2], CS_DB_RUN_TUNE);
    ck_assert_str_eq(got.text, "1:m1 4/1/4 o0 'colls=0x11 sizes=4' NULL done started r0;"
                               "2:m1 4/1/4 o0 'validate colls=0x11 sizes=4' NULL done started r0;"
                               "3:m1 2/1/2 o0 '' NULL aborted started r0;");
    cs_db_run_t v = job(1, "colls=0x11 sizes=4");
    v.kind = CS_DB_RUN_VALIDATE;
    int64_t id = start(db, &v, false, NULL);
    cs_db_close(db);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM run WHERE kind = 'validate'"), 2);
    char query[96];
    snprintf(query, sizeof(query), "SELECT kind = 'validate' FROM run WHERE id = %lld",
             (long long)id);
    ck_assert_int_eq(raw_int(path, query), 1);
}
END_TEST

START_TEST(migration_3_keeps_version_2_rows) {
    /* A version-2 database (before the loop metric) keeps every row and value; its runs get
     * metric 'sync', its measurements and validations NULL loop columns, which read back as
     * "no loop metric". */
    const char *path = file("v2_rows.db");
    /* samples_us: 1.0 and 2.0 as float64 little-endian */
    raw_db_at(path, 2,
              "INSERT INTO machine (id, host, topology, mpi_library) VALUES (1, 'h', 't', 'm');"
              "INSERT INTO run (id, machine_id, started_at, nprocs, nnodes, ppn, args, status) "
              "VALUES (1, 1, '2026-01-01T00:00:00Z', 4, 1, 4, 'colls=0x1 sizes=4', 'done'),"
              "(2, 1, '2026-01-02T00:00:00Z', 4, 1, 4, 'validate colls=0x1 sizes=4', 'done');"
              "UPDATE run SET kind = 'validate' WHERE id = 2;"
              "INSERT INTO measurement (run_id, coll, algorithm, params, comm_size, ppn, bytes, "
              "reps, min_us, q1_us, median_us, q3_us, max_us, outliers, verified, samples_us) "
              "VALUES (1, 'allreduce', 'allreduce/native', '', 4, 4, 64, 2, 1, 1.25, 1.5, 1.75, "
              "2, 0, 0, X'000000000000F03F0000000000000040');"
              "INSERT INTO failure (run_id, coll, algorithm, params, comm_size, ppn, bytes, "
              "message) VALUES (1, 'allreduce', 'allreduce/ring', '', 4, 4, 64, 'wrong');"
              "INSERT INTO rule (machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank, "
              "algorithm, params, median_us, native_us, p_value, run_id) VALUES (1, 'allreduce', "
              "4, 4, 0, NULL, 1, 'allreduce/native', '', 1.5, 1.5, NULL, 1);"
              "INSERT INTO validation (run_id, coll, comm_size, ppn, bytes, native_us, "
              "selected_us, oracle_us) VALUES (2, 'allreduce', 4, 4, 64, 1.5, 1.4, 1.3);");
    upgrade(path);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM run WHERE metric = 'sync'"), 2);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM measurement WHERE loop_reps IS NULL "
                                   "AND loop_median_us IS NULL AND loop_samples_us IS NULL"),
                     1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM failure"), 1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM rule WHERE median_us = 1.5"), 1);
    cs_db_t *db = open_db(path, CS_DB_READ_ONLY);
    measurements_t got = {0};
    ck_assert_int_eq(cs_db_foreach_measurement(db, 1, collect_measurement, &got), CS_OK);
    ck_assert_int_eq(got.n, 1);
    ck_assert_int_eq(got.m[0].reps, 2);
    ck_assert_double_eq(got.m[0].median_us, 1.5);
    ck_assert_uint_eq(got.m[0].nsamples, 2);
    ck_assert_double_eq(got.samples[0][0], 1.0);
    ck_assert_double_eq(got.samples[0][1], 2.0);
    ck_assert_int_eq(got.m[0].loop_reps, 0);
    ck_assert(isnan(got.m[0].loop_median_us));
    validations_t v = {0};
    ck_assert_int_eq(cs_db_foreach_validation(db, 2, collect_validation, &v), CS_OK);
    ck_assert_int_eq(v.n, 1);
    ck_assert_double_eq(v.v[0].selected_us, 1.4);
    ck_assert(isnan(v.v[0].native_loop_us) && isnan(v.v[0].selected_loop_us) &&
              isnan(v.v[0].oracle_loop_us));
    runs_t runs = {0};
    ck_assert_int_eq(cs_db_foreach_run(db, 0, collect_run, &runs), CS_OK);
    ck_assert_int_eq(runs.n, 2);
    ck_assert_int_eq(runs.metric[0], CS_DB_METRIC_SYNC);
    ck_assert_int_eq(runs.kind[1], CS_DB_RUN_VALIDATE);
    cs_db_close(db);
}
END_TEST

START_TEST(migration_4_keeps_version_3_rows) {
    /* A version-3 database (before native B) keeps its validation rows and values; their
     * native2 columns are NULL and read back as NaN ("not measured"). */
    const char *path = file("v3_rows.db");
    raw_db_at(path, 3,
              "INSERT INTO machine (id, host, topology, mpi_library) VALUES (1, 'h', 't', 'm');"
              "INSERT INTO run (id, machine_id, started_at, nprocs, nnodes, ppn, args, status, "
              "kind, metric) VALUES (1, 1, '2026-01-02T00:00:00Z', 4, 1, 4, "
              "'validate colls=0x1 sizes=4', 'done', 'validate', 'both');"
              "INSERT INTO validation (run_id, coll, comm_size, ppn, bytes, native_us, "
              "selected_us, oracle_us, selected_algorithm, selected_params, oracle_algorithm, "
              "oracle_params, native_loop_us, selected_loop_us, oracle_loop_us) VALUES "
              "(1, 'allreduce', 4, 4, 64, 1.5, 1.4, 1.3, 'allreduce/ring', '', "
              "'allreduce/ring', '', 2.5, 2.4, 2.3),"
              "(1, 'allreduce', 4, 4, 128, 1.75, 1.5, 1.5, NULL, NULL, NULL, NULL, NULL, NULL, "
              "NULL);");
    upgrade(path);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM validation WHERE native2_us IS NULL "
                                   "AND native2_loop_us IS NULL"),
                     2);
    cs_db_t *db = open_db(path, CS_DB_READ_ONLY);
    validations_t v = {0};
    ck_assert_int_eq(cs_db_foreach_validation(db, 1, collect_validation, &v), CS_OK);
    ck_assert_int_eq(v.n, 2);
    ck_assert_str_eq(v.text, "allreduce|allreduce/ring||allreduce/ring|;allreduce|NULL|NULL|NULL|"
                             "NULL;");
    ck_assert(v.v[0].native_us == 1.5 && v.v[0].selected_us == 1.4 && v.v[0].oracle_us == 1.3);
    ck_assert(v.v[0].native_loop_us == 2.5 && v.v[0].selected_loop_us == 2.4 &&
              v.v[0].oracle_loop_us == 2.3);
    ck_assert_uint_eq(v.v[1].bytes, 128);
    ck_assert_double_eq(v.v[1].native_us, 1.75);
    for (int i = 0; i < 2; i++) {
        ck_assert(isnan(v.v[i].native2_us) && isnan(v.v[i].native2_loop_us));
    }
    cs_db_close(db);
}
END_TEST

START_TEST(loggp_round_trip) {
    /* One row per (machine, processes per node), replaced by a later measurement; the read
     * takes the nearest processes per node (ties: the smaller); a machine without one reads
     * "not found"; out-of-range values are refused and store nothing. */
    const char *path = file("loggp.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    int64_t m = add_machine(db);
    cs_db_run_t run = job(m, "x");
    int64_t id = start(db, &run, false, NULL);
    cs_db_loggp_t a = {m, 2, id, 0.25, 0.5, 0.5, 0.001}, b = {m, 8, 0, 1.0, 0.75, 0.8, 0.002};
    cs_db_loggp_t got = {0};
    bool found = true;
    ck_assert_int_eq(cs_db_get_loggp(db, m, 4, &got, &found), CS_OK);
    ck_assert(!found);
    ck_assert_int_eq(cs_db_put_loggp(db, &a), CS_OK);
    ck_assert_int_eq(cs_db_put_loggp(db, &b), CS_OK);
    ck_assert_int_eq(cs_db_get_loggp(db, m, 6, &got, &found), CS_OK); /* 2 and 8: 8 nearer */
    ck_assert(found);
    ck_assert_int_eq(got.ppn, 8);
    ck_assert_int_eq(got.run_id, 0);
    ck_assert(got.l_us == 1.0 && got.o_us == 0.75 && got.g_us == 0.8 && got.g_per_byte_us == 0.002);
    ck_assert_int_eq(cs_db_get_loggp(db, m, 5, &got, &found), CS_OK); /* a tie: the smaller */
    ck_assert_int_eq(got.ppn, 2);
    ck_assert_int_eq(got.run_id, id);
    ck_assert_double_eq(got.o_us, 0.5);
    a.o_us = 0.625; /* a new measurement at ppn 2 replaces the old one */
    ck_assert_int_eq(cs_db_put_loggp(db, &a), CS_OK);
    ck_assert_int_eq(cs_db_get_loggp(db, m, 2, &got, &found), CS_OK);
    ck_assert_double_eq(got.o_us, 0.625);
    ck_assert_int_eq(count(db, "run", 0), 1);
    cs_db_loggp_t bad = a;
    bad.o_us = 0;
    ck_assert_int_eq(cs_db_put_loggp(db, &bad), CS_ERR_ARG);
    bad = a;
    bad.l_us = NAN;
    ck_assert_int_eq(cs_db_put_loggp(db, &bad), CS_ERR_ARG);
    bad = a;
    bad.g_per_byte_us = -1e-6;
    ck_assert_int_eq(cs_db_put_loggp(db, &bad), CS_ERR_ARG);
    bad = a;
    bad.machine_id = 0;
    ck_assert_int_eq(cs_db_put_loggp(db, &bad), CS_ERR_ARG);
    cs_db_close(db);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM loggp"), 2);
}
END_TEST

START_TEST(migration_5_adds_loggp) {
    /* A version-4 database keeps its rows and gets an empty loggp table it can store into. */
    const char *path = file("v4_rows.db");
    raw_db_at(path, 4,
              "INSERT INTO machine (id, host, topology, mpi_library) VALUES (1, 'h', 't', 'm');"
              "INSERT INTO rule (machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank, "
              "algorithm, params) VALUES (1, 'allreduce', 4, 4, 0, NULL, 1, "
              "'allreduce/native', '');");
    upgrade(path);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM rule"), 1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM loggp"), 0);
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_loggp_t l = {1, 4, 0, 0.1, 0.2, 0.2, 0.0005}, got = {0};
    bool found = false;
    ck_assert_int_eq(cs_db_put_loggp(db, &l), CS_OK);
    ck_assert_int_eq(cs_db_get_loggp(db, 1, 4, &got, &found), CS_OK);
    ck_assert(found && got.g_per_byte_us == 0.0005);
    cs_db_close(db);
}
END_TEST

typedef struct patterns {
    int n;
    char text[512];
} patterns_t;

static int collect_pattern(const cs_db_pattern_t *t, void *ctx) {
    patterns_t *c = ctx;
    size_t used = strlen(c->text);
    c->n++;
    snprintf(c->text + used, sizeof(c->text) - used, "%s/%d:%d,%d,%d,%g,%g", t->name, t->p,
             t->nedges, t->max_out, t->max_in, t->mean_out, t->imbalance);
    for (int k = 0; k < t->iso_s * t->iso_d; k++) { /* an isomorphic one's offsets, by vector */
        used = strlen(c->text);
        const char *sep = k == 0 ? "|" : k % t->iso_d == 0 ? "/" : " ";
        snprintf(c->text + used, sizeof(c->text) - used, "%s%d", sep, t->iso_offsets[k]);
    }
    used = strlen(c->text);
    snprintf(c->text + used, sizeof(c->text) - used, ";");
    return CS_OK;
}

START_TEST(pattern_round_trip) {
    /* One row per (machine, name, p), replaced by a later signature; read back by name and p;
     * bad signatures refused. */
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    int64_t m = add_machine(db);
    cs_db_pattern_t a = {m, "moore2d", 16, 128, 8, 8, 8.0, 1.0, 0, 0, NULL};
    cs_db_pattern_t b = {m, "hotspot", 8, 22, 3, 9, 2.75, 3.25, 0, 0, NULL};
    patterns_t got = {0};
    ck_assert_int_eq(cs_db_put_pattern(db, &a), CS_OK);
    ck_assert_int_eq(cs_db_put_pattern(db, &b), CS_OK);
    a.p = 4;
    a.nedges = 32;
    ck_assert_int_eq(cs_db_put_pattern(db, &a), CS_OK); /* another p: a second row */
    b.max_in = 10;
    ck_assert_int_eq(cs_db_put_pattern(db, &b), CS_OK); /* the same (name, p): replaced */
    ck_assert_int_eq(cs_db_foreach_pattern(db, m, collect_pattern, &got), CS_OK);
    ck_assert_int_eq(got.n, 3);
    ck_assert_str_eq(got.text, "hotspot/8:22,3,10,2.75,3.25;moore2d/4:32,8,8,8,1;"
                               "moore2d/16:128,8,8,8,1;");
    cs_db_pattern_t bad = a;
    bad.name = "";
    ck_assert_int_eq(cs_db_put_pattern(db, &bad), CS_ERR_ARG);
    bad = a;
    bad.name = "a-pattern-name-far-too-long-to-fit-a-rule";
    ck_assert_int_eq(cs_db_put_pattern(db, &bad), CS_ERR_ARG);
    bad = a;
    bad.mean_out = NAN;
    ck_assert_int_eq(cs_db_put_pattern(db, &bad), CS_ERR_ARG);
    bad = a;
    bad.p = 0;
    ck_assert_int_eq(cs_db_put_pattern(db, &bad), CS_ERR_ARG);
    bad = a;
    bad.iso_d = 2; /* isomorphic without offsets */
    ck_assert_int_eq(cs_db_put_pattern(db, &bad), CS_ERR_ARG);
    cs_db_close(db);
}
END_TEST

START_TEST(pattern_offsets_round_trip) {
    /* An isomorphic pattern's offsets read back as stored, in order, negative ones too; a
     * pattern stored again without them is no longer isomorphic; unreadable text in the
     * column reads as not isomorphic. */
    const char *path = file("offsets.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    int64_t m = add_machine(db);
    const int cart[] = {-1, 0, 1, 0, 0, -1, 0, 1};
    const int octant[] = {0, 0, 3, 3, 2, 1, 12, -70000, 0};
    cs_db_pattern_t a = {m, "cart2d", 4, 16, 4, 4, 4.0, 1.0, 2, 4, cart};
    cs_db_pattern_t b = {m, "iso_octant3d_r3", 8, 24, 3, 3, 3.0, 1.0, 3, 3, octant};
    patterns_t got = {0};
    ck_assert_int_eq(cs_db_put_pattern(db, &a), CS_OK);
    ck_assert_int_eq(cs_db_put_pattern(db, &b), CS_OK);
    ck_assert_int_eq(cs_db_foreach_pattern(db, m, collect_pattern, &got), CS_OK);
    ck_assert_str_eq(got.text, "cart2d/4:16,4,4,4,1|-1 0/1 0/0 -1/0 1;"
                               "iso_octant3d_r3/8:24,3,3,3,1|0 0 3/3 2 1/12 -70000 0;");
    a.iso_d = 0;
    a.iso_s = 0;
    a.iso_offsets = NULL;
    ck_assert_int_eq(cs_db_put_pattern(db, &a), CS_OK);
    cs_db_close(db);
    raw_exec(path, "UPDATE pattern SET offsets = '1,2;3' WHERE name = 'iso_octant3d_r3'");
    db = open_db(path, CS_DB_READ_WRITE);
    memset(&got, 0, sizeof(got));
    ck_assert_int_eq(cs_db_foreach_pattern(db, m, collect_pattern, &got), CS_OK);
    ck_assert_str_eq(got.text, "cart2d/4:16,4,4,4,1;iso_octant3d_r3/8:24,3,3,3,1;");
    cs_db_close(db);
}
END_TEST

START_TEST(pattern_rules_and_points) {
    /* The rules of a pattern and those without one share (coll, comm_size, ppn) without
     * replacing each other; each reads back with its pattern. A measurement of the same
     * variant and size under two patterns is two points. */
    cs_db_t *db = open_db(MEMORY, CS_DB_READ_WRITE);
    int64_t m = add_machine(db);
    cs_rule_t plain = rule(m, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native");
    cs_rule_t cart = rule(m, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native");
    snprintf(cart.pattern, sizeof(cart.pattern), "cart2d");
    ck_assert_int_eq(cs_db_replace_rules(db, m, CS_COLL_ALLREDUCE, 4, 4, &plain, 1), CS_OK);
    ck_assert_int_eq(
        cs_db_replace_pattern_rules(db, m, CS_COLL_ALLREDUCE, "cart2d", 4, 4, &cart, 1), CS_OK);
    ck_assert_int_eq(cs_db_replace_rules(db, m, CS_COLL_ALLREDUCE, 4, 4, &plain, 1), CS_OK);
    rules_t got = read_rules(db, m);
    ck_assert_int_eq(got.n, 2);
    ck_assert_str_eq(got.r[0].pattern, "");
    ck_assert_str_eq(got.r[1].pattern, "cart2d");
    /* a rule whose pattern is not the key's, or a pattern too long for a rule */
    ck_assert_int_eq(cs_db_replace_rules(db, m, CS_COLL_ALLREDUCE, 4, 4, &cart, 1), CS_ERR_ARG);
    ck_assert_int_eq(cs_db_replace_pattern_rules(db, m, CS_COLL_ALLREDUCE,
                                                 "a-pattern-name-far-too-long-to-fit-a-rule", 4, 4,
                                                 NULL, 0),
                     CS_ERR_ARG);
    ck_assert_int_eq(cs_db_replace_pattern_rules(db, m, CS_COLL_ALLREDUCE, "cart2d", 4, 4, NULL, 0),
                     CS_OK);
    got = read_rules(db, m);
    ck_assert_int_eq(got.n, 1);
    ck_assert_str_eq(got.r[0].pattern, "");
    cs_db_run_t run = job(m, "x");
    int64_t id = start(db, &run, false, NULL);
    cs_db_measurement_t a = measurement(id, "allreduce/native", 64, 5.0);
    cs_db_measurement_t b = a;
    bool exists = true;
    b.point.pattern = "random30";
    ck_assert_int_eq(cs_db_insert_measurement(db, &a), CS_OK);
    ck_assert_int_eq(cs_db_measurement_exists(db, id, &b.point, &exists), CS_OK);
    ck_assert(!exists);
    ck_assert_int_eq(cs_db_insert_measurement(db, &b), CS_OK);
    ck_assert_int_eq(cs_db_measurement_exists(db, id, &b.point, &exists), CS_OK);
    ck_assert(exists);
    ck_assert_int_eq(count(db, "measurement", id), 2);
    cs_db_close(db);
}
END_TEST

START_TEST(migration_6_keeps_version_5_rows) {
    /* A version-5 database keeps every row of the four rebuilt tables, with pattern ''. */
    const char *path = file("v5_rows.db");
    raw_db_at(path, 5,
              "INSERT INTO machine (id, host, topology, mpi_library) VALUES (1, 'h', 't', 'm');"
              "INSERT INTO run (id, machine_id, started_at, nprocs, nnodes, ppn, args, status) "
              "VALUES (1, 1, '2026-01-01T00:00:00Z', 4, 1, 4, 'colls=0x1 sizes=4', 'done');"
              "INSERT INTO measurement (run_id, coll, algorithm, params, comm_size, ppn, bytes, "
              "reps, min_us, q1_us, median_us, q3_us, max_us, outliers, verified, loop_reps, "
              "loop_median_us) VALUES (1, 'allreduce', 'allreduce/native', '', 4, 4, 64, 2, 1, "
              "1.25, 1.5, 1.75, 2, 0, 1, 2, 0.5);"
              "INSERT INTO failure (run_id, coll, algorithm, params, comm_size, ppn, bytes, "
              "message) VALUES (1, 'allreduce', 'allreduce/ring', '', 4, 4, 64, 'wrong');"
              "INSERT INTO rule (machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank, "
              "algorithm, params, median_us, native_us, p_value, run_id) VALUES (1, 'allreduce', "
              "4, 4, 0, NULL, 1, 'allreduce/native', '', 1.5, 1.5, NULL, 1);"
              "INSERT INTO validation (run_id, coll, comm_size, ppn, bytes, native_us, "
              "selected_us, oracle_us, native2_us) VALUES (1, 'allreduce', 4, 4, 64, 1.5, 1.4, "
              "1.3, 1.6);"
              "INSERT INTO loggp (machine_id, ppn, run_id, l_us, o_us, g_us, g_per_byte_us, "
              "measured_at) VALUES (1, 4, 1, 1, 0.5, 0.5, 0.001, '2026-01-01T00:00:00Z');");
    upgrade(path);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM measurement WHERE pattern = '' AND "
                                   "loop_median_us = 0.5 AND median_us = 1.5 AND verified = 1"),
                     1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM failure WHERE pattern = ''"), 1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM rule WHERE pattern = '' AND run_id = 1"),
                     1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM validation WHERE pattern = '' AND "
                                   "native2_us = 1.6"),
                     1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM loggp"), 1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM pattern"), 0);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_v5'"), 0);
}
END_TEST

/* cs_db_foreach_confirmation's rounds, in the order listed. */
typedef struct round_list {
    int *rounds, *n;
} round_list_t;

static int collect_rounds(const cs_db_measurement_t *m, void *ctx) {
    round_list_t *l = ctx;
    if (*l->n < 4) {
        l->rounds[(*l->n)++] = m->round;
    }
    return CS_OK;
}

START_TEST(migration_12_makes_confirmations_round_1) {
    /* A version-11 database keeps its confirmations, as round 1 (the one round runs had); the
     * round is part of the key from then on: the same point in round 2 is a row of its own,
     * and read back with its round. */
    const char *path = file("v11_rows.db");
    raw_db_at(path, 11,
              "INSERT INTO machine (id, host, topology, mpi_library) VALUES (1, 'h', 't', 'm');"
              "INSERT INTO run (id, machine_id, started_at, nprocs, nnodes, ppn, args, status) "
              "VALUES (1, 1, '2026-01-01T00:00:00Z', 4, 1, 4, 'colls=0x1 sizes=4', 'done');"
              "INSERT INTO confirmation (run_id, coll, algorithm, params, comm_size, ppn, bytes, "
              "reps, min_us, q1_us, median_us, q3_us, max_us, outliers, verified, loop_reps, "
              "loop_median_us) VALUES (1, 'allreduce', 'allreduce/native', '', 4, 4, 64, 2, 1, "
              "1.25, 1.5, 1.75, 2, 0, 1, 2, 0.5);");
    upgrade(path);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM confirmation WHERE round = 1 AND "
                                   "loop_median_us = 0.5 AND median_us = 1.5 AND verified = 1"),
                     1);
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_measurement_t m = measurement(1, "allreduce/native", 64, 3.0);
    bool found = false;
    for (int round = 1; round <= 2; round++) {
        ck_assert_int_eq(cs_db_confirmation_exists(db, 1, &m.point, round, &found), CS_OK);
        ck_assert(found == (round == 1));
    }
    ck_assert_int_eq(cs_db_confirmation_exists(db, 1, &m.point, 0, &found), CS_ERR_ARG);
    m.round = 2;
    ck_assert_int_eq(cs_db_insert_confirmation(db, &m), CS_OK);
    ck_assert_int_eq(cs_db_confirmation_exists(db, 1, &m.point, 2, &found), CS_OK);
    ck_assert(found);
    {
        int rounds[4] = {0}, n = 0;
        ck_assert_int_eq(
            cs_db_foreach_confirmation(db, 1, collect_rounds, &(round_list_t){rounds, &n}), CS_OK);
        ck_assert_int_eq(n, 2);
        ck_assert_int_eq(rounds[0], 1);
        ck_assert_int_eq(rounds[1], 2);
    }
    cs_db_close(db);
}
END_TEST

START_TEST(reopen_keeps_rows) {
    const char *path = file("keep.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "x");
    int64_t id = start(db, &run, false, NULL);
    cs_db_measurement_t m = measurement(id, "allreduce/native", 8, 1.0);
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    ck_assert_int_eq(cs_db_finish_run(db, id, CS_DB_RUN_DONE), CS_OK);
    cs_db_close(db);

    db = open_db(path, CS_DB_READ_WRITE);
    ck_assert_int_eq(count(db, "measurement", id), 1);
    ck_assert_int_eq(status_of(db, id), CS_DB_RUN_DONE);
    cs_db_close(db);

    db = open_db(path, CS_DB_READ_ONLY);
    ck_assert_int_eq(count(db, "measurement", id), 1);
    /* read-only: writes fail cleanly */
    int64_t mid = 0;
    cs_db_machine_t other = {"other", "t", "m"};
    ck_assert_int_eq(cs_db_find_or_insert_machine(db, &other, &mid), CS_ERR_DB);
    ck_assert_str_ne(cs_db_errmsg(db), "");
    ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_ERR_DB);
    cs_db_close(db);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM machine"), 1);

    /* timestamps: ISO-8601 UTC */
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM run WHERE started_at GLOB "
                                   "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T"
                                   "[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' "
                                   "AND finished_at >= started_at"),
                     1);
}
END_TEST

START_TEST(rules_read_back_as_cs_rule_t) {
    /* A row a cs_rule_t cannot hold (a collective this collsel does not know, an algorithm
     * key longer than CS_RULE_ALGORITHM) is skipped; the others read back whole. An invalid
     * collective is refused when writing. */
    const char *path = file("rules.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    int64_t mid = add_machine(db);
    cs_rule_t r = rule(mid, 4, 0, CS_RULE_UNBOUNDED, 1, "allreduce/native");
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_ALLREDUCE, 4, 4, &r, 1), CS_OK);
    ck_assert_int_eq(cs_db_replace_rules(db, mid, CS_COLL_COUNT, 4, 4, NULL, 0), CS_ERR_ARG);
    cs_db_close(db);
    raw_exec(path, "INSERT INTO rule (machine_id, coll, comm_size, ppn, lo_bytes, rank, "
                   "algorithm) VALUES (1, 'alltoallw', 4, 4, 0, 1, 'alltoallw/native'), "
                   "(1, 'bcast', 4, 4, 0, 1, 'bcast/" /* 70 characters: too long */
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')");
    db = open_db(path, CS_DB_READ_ONLY);
    rules_t got = read_rules(db, mid);
    ck_assert_int_eq(got.n, 1);
    ck_assert_int_eq(got.r[0].coll, CS_COLL_ALLREDUCE);
    ck_assert_str_eq(got.r[0].algorithm, "allreduce/native");
    ck_assert(got.r[0].hi_bytes == CS_RULE_UNBOUNDED);
    ck_assert_int_eq(count(db, "rule", 0), 3);
    cs_db_close(db);
}
END_TEST

START_TEST(run_times_and_resumes) {
    const char *path = file("runs.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "x");
    int64_t a = start(db, &run, false, NULL);
    ck_assert_int_eq(start(db, &run, true, NULL), a);
    ck_assert_int_eq(start(db, &run, true, NULL), a);
    int64_t b = start(db, &run, false, NULL); /* a found interrupted */
    ck_assert_int_eq(cs_db_finish_run(db, b, CS_DB_RUN_ABORTED), CS_OK);
    cs_db_close(db);
    ck_assert_int_eq(raw_int(path, "SELECT resumes FROM run WHERE id = 1"), 2);
    ck_assert_int_eq(raw_int(path, "SELECT finished_at IS NULL AND status = 'aborted' "
                                   "FROM run WHERE id = 1"),
                     1);
    ck_assert_int_eq(raw_int(path, "SELECT finished_at IS NOT NULL AND status = 'aborted' "
                                   "AND oversubscribed = 1 AND version = '0.1.0' AND args = 'x' "
                                   "FROM run WHERE id = 2"),
                     1);
    ck_assert_int_eq(a, 1);
    ck_assert_int_eq(b, 2);
}
END_TEST

START_TEST(refuse_newer_version) {
    const char *path = file("newer.db");
    char text[160];
    snprintf(text, sizeof(text),
             "CREATE TABLE future (x); PRAGMA application_id = %d; PRAGMA user_version = %d",
             CS_DB_APPLICATION_ID, cs_db_schema_version() + 1);
    raw_exec(path, text);
    char why[512];
    cs_db_t *db = NULL;
    ck_assert_int_eq(cs_db_open(path, CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_null(db);
    ck_assert_ptr_nonnull(strstr(why, "newer"));
    ck_assert_ptr_nonnull(strstr(why, path));
    ck_assert_int_eq(cs_db_open(path, CS_DB_READ_ONLY, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_nonnull(strstr(why, "newer"));
    /* untouched */
    ck_assert_int_eq(raw_int(path, "PRAGMA user_version"), cs_db_schema_version() + 1);
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM sqlite_master"), 1);
}
END_TEST

START_TEST(refuse_foreign_database) {
    const char *path = file("foreign.db");
    raw_exec(path, "CREATE TABLE machine (name TEXT); INSERT INTO machine VALUES ('x')");
    char why[512];
    cs_db_t *db = NULL;
    ck_assert_int_eq(cs_db_open(path, CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_null(db);
    ck_assert_ptr_nonnull(strstr(why, "not a collsel database"));
    ck_assert_int_eq(raw_int(path, "SELECT count(*) FROM sqlite_master"), 1);
    ck_assert_int_eq(raw_int(path, "PRAGMA user_version"), 0);

    /* another application's versioned database */
    const char *other = file("other.db");
    raw_exec(other, "PRAGMA application_id = 42; PRAGMA user_version = 1");
    ck_assert_int_eq(cs_db_open(other, CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_nonnull(strstr(why, "not a collsel database"));

    /* not SQLite at all */
    const char *text = file("notes.db");
    FILE *f = fopen(text, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 64; i++) {
        fputs("this is not a database file at all. ", f);
    }
    fclose(f);
    ck_assert_int_eq(cs_db_open(text, CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_nonnull(strstr(why, "not a database"));
    ck_assert_int_eq(cs_db_open(text, CS_DB_READ_ONLY, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_nonnull(strstr(why, "not a database"));
}
END_TEST

START_TEST(read_only_needs_a_database) {
    const char *missing = file("missing.db");
    char why[512];
    cs_db_t *db = NULL;
    ck_assert_int_eq(cs_db_open(missing, CS_DB_READ_ONLY, &db, why, sizeof(why)), CS_ERR_NOT_FOUND);
    ck_assert_ptr_null(db);
    ck_assert_ptr_nonnull(strstr(why, missing));
    ck_assert_ptr_nonnull(strstr(why, "does not exist"));
    ck_assert(!file_exists(missing));

    const char *empty = file("empty.db");
    FILE *f = fopen(empty, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(cs_db_open(empty, CS_DB_READ_ONLY, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_nonnull(strstr(why, "empty"));

    /* read-write into a directory that does not exist */
    const char *nodir = file("no/such/dir.db");
    ck_assert_int_eq(cs_db_open(nodir, CS_DB_READ_WRITE, &db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_ptr_nonnull(strstr(why, "directory"));
}
END_TEST

START_TEST(check_finds_damage) {
    const char *path = file("damaged.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "");
    int64_t id = start(db, &run, false, NULL);
    ck_assert_int_eq(cs_db_begin(db), CS_OK);
    for (int i = 0; i < 200; i++) {
        cs_db_measurement_t m = measurement(id, "allreduce/ring", 4 * (uint64_t)(i + 1), 10.0 + i);
        ck_assert_int_eq(cs_db_insert_measurement(db, &m), CS_OK);
    }
    ck_assert_int_eq(cs_db_commit(db), CS_OK);
    char why[512] = "x";
    ck_assert_int_eq(cs_db_check(db, why, sizeof(why)), CS_OK);
    ck_assert_str_eq(why, "");
    cs_db_close(db);
    db = open_db(path, CS_DB_READ_ONLY);
    ck_assert_int_eq(cs_db_check(db, why, sizeof(why)), CS_OK);
    cs_db_close(db);

    /* Overwrite the measurement table's root page: page 1 (the header and sqlite_master)
     * stays intact, so the file still opens, and only a full check notices. */
    int64_t page_size = raw_int(path, "PRAGMA page_size");
    int64_t root = raw_int(path, "SELECT rootpage FROM sqlite_master WHERE name = 'measurement'");
    ck_assert_int_gt(root, 1);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, (long)((root - 1) * page_size), SEEK_SET), 0);
    for (int64_t i = 0; i < page_size; i++) {
        fputc(0xA5, f);
    }
    fclose(f);
    db = open_db(path, CS_DB_READ_ONLY);
    ck_assert_int_eq(cs_db_check(db, why, sizeof(why)), CS_ERR_DB);
    ck_assert_str_ne(why, "");
    ck_assert_ptr_null(strchr(why, '\n'));
    ck_assert_str_eq(cs_db_errmsg(db), why);
    ck_assert_int_eq(cs_db_check(NULL, why, sizeof(why)), CS_ERR_ARG);
    cs_db_close(db);
}
END_TEST

START_TEST(committed_batch_survives_kill) {
    const char *path = file("killed.db");
    cs_db_t *db = open_db(path, CS_DB_READ_WRITE);
    cs_db_run_t run = job(add_machine(db), "--sizes 4:64");
    int64_t id = start(db, &run, false, NULL);
    cs_db_close(db);

    cs_db_measurement_t kept = measurement(id, "allreduce/native", 4, 1.0);
    cs_db_measurement_t lost = measurement(id, "allreduce/native", 16, 2.0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* the bench: one committed batch, one open batch, then kill -9 */
        cs_db_t *child = NULL;
        if (cs_db_open(path, CS_DB_READ_WRITE, &child, NULL, 0) != CS_OK ||
            cs_db_begin(child) != CS_OK || cs_db_insert_measurement(child, &kept) != CS_OK ||
            cs_db_commit(child) != CS_OK || cs_db_begin(child) != CS_OK ||
            cs_db_insert_measurement(child, &lost) != CS_OK) {
            _exit(3);
        }
        raise(SIGKILL);
        _exit(4);
    }
    int wstatus = 0;
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    ck_assert_msg(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL,
                  "child did not die of SIGKILL (status %d)", wstatus);

    db = open_db(path, CS_DB_READ_WRITE);
    ck_assert_int_eq(count(db, "measurement", id), 1);
    ck_assert(exists(db, id, &kept.point));
    ck_assert(!exists(db, id, &lost.point));
    ck_assert_int_eq(status_of(db, id), CS_DB_RUN_RUNNING);
    bool resumed = false;
    ck_assert_int_eq(start(db, &run, true, &resumed), id);
    ck_assert(resumed);
    /* the resumed run measures only what is missing, and duplicates are impossible anyway */
    ck_assert_int_eq(cs_db_insert_measurement(db, &kept), CS_OK);
    ck_assert_int_eq(cs_db_insert_measurement(db, &lost), CS_OK);
    ck_assert_int_eq(cs_db_finish_run(db, id, CS_DB_RUN_DONE), CS_OK);
    ck_assert_int_eq(count(db, "measurement", id), 2);
    cs_db_close(db);
}
END_TEST

static Suite *db_suite(void) {
    Suite *s = suite_create("db");
    TCase *mem = tcase_create("memory");
    tcase_add_test(mem, open_memory);
    tcase_add_test(mem, open_bad_arguments);
    tcase_add_test(mem, machine_round_trip);
    tcase_add_test(mem, run_lifecycle);
    tcase_add_test(mem, runs_listed);
    tcase_add_test(mem, resume_continues_a_killed_run);
    tcase_add_test(mem, new_run_aborts_interrupted_runs);
    tcase_add_test(mem, measurement_round_trip);
    tcase_add_test(mem, measurement_duplicate_is_kept_once);
    tcase_add_test(mem, measurement_loop_metric_round_trip);
    tcase_add_test(mem, run_metric_round_trip);
    tcase_add_test(mem, measurement_bad_arguments);
    tcase_add_test(mem, failure_round_trip);
    tcase_add_test(mem, rules_replace_keeps_exactly_the_new_set);
    tcase_add_test(mem, find_machine_with_rules);
    tcase_add_test(mem, validation_round_trip);
    tcase_add_test(mem, core_state_round_trip);
    tcase_add_test(mem, batches_commit_or_roll_back);
    tcase_add_test(mem, callbacks_stop_iteration);
    tcase_add_test(mem, count_rows_per_run);
    suite_add_tcase(s, mem);

    TCase *files = tcase_create("files");
    tcase_add_checked_fixture(files, make_dir, remove_dir);
    tcase_add_test(files, create_file);
    tcase_add_test(files, migrations_reach_the_schema);
    tcase_add_test(files, migration_2_gives_runs_their_kind);
    tcase_add_test(files, migration_3_keeps_version_2_rows);
    tcase_add_test(files, migration_4_keeps_version_3_rows);
    tcase_add_test(files, migration_5_adds_loggp);
    tcase_add_test(files, loggp_round_trip);
    tcase_add_test(files, migration_6_keeps_version_5_rows);
    tcase_add_test(files, migration_12_makes_confirmations_round_1);
    tcase_add_test(files, pattern_round_trip);
    tcase_add_test(files, pattern_offsets_round_trip);
    tcase_add_test(files, pattern_rules_and_points);
    tcase_add_test(files, reopen_keeps_rows);
    tcase_add_test(files, run_times_and_resumes);
    tcase_add_test(files, rules_read_back_as_cs_rule_t);
    tcase_add_test(files, refuse_newer_version);
    tcase_add_test(files, refuse_foreign_database);
    tcase_add_test(files, read_only_needs_a_database);
    tcase_add_test(files, check_finds_damage);
    tcase_add_test(files, committed_batch_survives_kill);
    suite_add_tcase(s, files);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(db_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

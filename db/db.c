/* The collsel database layer (see db.h): opening, schema creation and migration, and one
 * cached prepared statement per operation.
 *
 * SQL text lives in one table, `sql[]`, indexed by `enum stmt`; a statement is prepared on its
 * first use and reset (bindings cleared) after every use, so a handle never holds a statement
 * mid-step between calls. The only SQL run without binding is compiled-in: db/schema.sql, the
 * migrations, and PRAGMA statements that take an integer this file computes. */
#include "db.h"

#include "core/log.h"
#include "db_sql.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How long a call waits for another connection's lock before failing with CS_ERR_DB. */
#define BUSY_TIMEOUT_MS 10000

/* ISO-8601 UTC "now", computed by SQLite. */
#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* Column lists shared by inserts and reads. */
#define POINT_COLS "coll, pattern, algorithm, params, comm_size, ppn, bytes"
#define MEASUREMENT_COLS                                                                           \
    POINT_COLS ", reps, outliers, min_us, q1_us, median_us, q3_us, max_us, "                       \
               "verified, samples_us, loop_reps, loop_outliers, loop_min_us, loop_q1_us, "         \
               "loop_median_us, loop_q3_us, loop_max_us, loop_rankmax_median_us, loop_samples_us"
#define RULE_COLS                                                                                  \
    "coll, comm_size, ppn, lo_bytes, hi_bytes, rank, algorithm, params, median_us, native_us, "    \
    "p_value, run_id, pattern, setup_us"
#define VALIDATION_COLS                                                                            \
    "coll, comm_size, ppn, bytes, native_us, selected_us, oracle_us, selected_algorithm, "         \
    "selected_params, oracle_algorithm, oracle_params, native_loop_us, selected_loop_us, "         \
    "oracle_loop_us, native2_us, native2_loop_us, pattern"
#define POINT_ORDER "coll, pattern, comm_size, ppn, bytes, algorithm, params"
#define OVERLAP_COLS                                                                               \
    POINT_COLS ", reps, compute_us, blocking_us, nooverlap_us, overlap_us, overhead_us, "          \
               "overhead_q1_us, overhead_q3_us, freed, samples_us"

enum stmt {
    ST_BEGIN,
    ST_BEGIN_READ,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_APPLICATION_ID,
    ST_USER_VERSION,
    ST_NOBJECTS,
    ST_QUICK_CHECK,
    ST_MACHINE_GET,
    ST_MACHINE_INSERT,
    ST_MACHINE_FIND,
    ST_MACHINE_ALL,
    ST_RUN_ABORT_STALE,
    ST_RUN_LATEST,
    ST_RUN_RESUME,
    ST_RUN_INSERT,
    ST_RUN_FINISH,
    ST_RUN_STATUS,
    ST_RUN_AGE,
    ST_RUN_BY_MACHINE,
    ST_MEASUREMENT_INSERT,
    ST_MEASUREMENT_EXISTS,
    ST_MEASUREMENT_BY_RUN,
    ST_CONFIRMATION_INSERT,
    ST_CONFIRMATION_EXISTS,
    ST_CONFIRMATION_BY_RUN,
    ST_FAILURE_INSERT,
    ST_FAILURE_BY_RUN,
    ST_RULE_DELETE,
    ST_RULE_INSERT,
    ST_RULE_BY_MACHINE,
    ST_VALIDATION_INSERT,
    ST_VALIDATION_BY_RUN,
    ST_COUNT_MACHINE,
    ST_COUNT_RUN,
    ST_COUNT_MEASUREMENT,
    ST_COUNT_FAILURE,
    ST_COUNT_CONFIRMATION,
    ST_COUNT_RULE,
    ST_COUNT_VALIDATION,
    ST_LOGGP_PUT,
    ST_LOGGP_NEAREST,
    ST_PATTERN_PUT,
    ST_SETUP_PUT,
    ST_SETUP_GET,
    ST_PATTERN_BY_MACHINE,
    ST_OVERLAP_INSERT,
    ST_OVERLAP_EXISTS,
    ST_OVERLAP_BY_RUN,
    ST_NB_RULE_DELETE,
    ST_NB_RULE_INSERT,
    ST_NB_RULE_BY_MACHINE,
    ST_COUNT_OVERLAP,
    ST_COUNT_NB_RULE,
    ST_CORE_STATE_INSERT,
    ST_CORE_STATE_BY_RUN,
    ST_COUNT_CORE_STATE,
    NSTMTS
};

static const char *const sql[NSTMTS] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_BEGIN_READ] = "BEGIN DEFERRED",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT cs_db_atomic",
    [ST_RELEASE] = "RELEASE cs_db_atomic",
    [ST_ROLLBACK_TO] = "ROLLBACK TO cs_db_atomic",
    [ST_APPLICATION_ID] = "PRAGMA application_id",
    [ST_USER_VERSION] = "PRAGMA user_version",
    [ST_NOBJECTS] = "SELECT count(*) FROM sqlite_master",
    [ST_QUICK_CHECK] = "PRAGMA quick_check(3)",
    [ST_MACHINE_GET] = "SELECT id FROM machine WHERE host = ?1 AND topology = ?2 "
                       "AND mpi_library = ?3",
    [ST_MACHINE_INSERT] = "INSERT INTO machine (host, topology, mpi_library) VALUES (?1, ?2, ?3)",
    [ST_MACHINE_FIND] = "SELECT m.id FROM machine m "
                        "WHERE (?1 IS NULL OR m.host = ?1) AND (?2 IS NULL OR m.topology = ?2) "
                        "AND (?3 IS NULL OR m.mpi_library = ?3) "
                        "AND (EXISTS (SELECT 1 FROM rule r WHERE r.machine_id = m.id) "
                        "OR EXISTS (SELECT 1 FROM nb_rule n WHERE n.machine_id = m.id)) "
                        "ORDER BY coalesce((SELECT max(id) FROM run WHERE machine_id = m.id), 0) "
                        "DESC, m.id DESC LIMIT 1",
    [ST_MACHINE_ALL] = "SELECT id, host, topology, mpi_library FROM machine ORDER BY id",
    [ST_RUN_ABORT_STALE] = "UPDATE run SET status = 'aborted' "
                           "WHERE machine_id = ?1 AND status = 'running'",
    [ST_RUN_LATEST] = "SELECT id, status FROM run WHERE machine_id = ?1 AND nprocs = ?2 "
                      "AND nnodes = ?3 AND ppn = ?4 AND args = ?5 AND kind = ?6 "
                      "ORDER BY id DESC LIMIT 1",
    [ST_RUN_RESUME] = "UPDATE run SET status = 'running', finished_at = NULL, "
                      "resumes = resumes + 1 WHERE id = ?1",
    [ST_RUN_INSERT] = "INSERT INTO run (machine_id, started_at, nprocs, nnodes, ppn, args, "
                      "status, oversubscribed, version, kind, metric) "
                      "VALUES (?1, " NOW ", ?2, ?3, ?4, ?5, 'running', ?6, ?7, ?8, ?9)",
    [ST_RUN_FINISH] = "UPDATE run SET status = ?2, finished_at = " NOW " "
                      "WHERE id = ?1 AND status = 'running'",
    [ST_RUN_STATUS] = "SELECT status FROM run WHERE id = ?1",
    [ST_RUN_AGE] =
        "SELECT (julianday('now') - julianday(started_at)) * 86400.0 FROM run WHERE id = ?1",
    [ST_RUN_BY_MACHINE] = "SELECT id, machine_id, started_at, finished_at, nprocs, nnodes, ppn, "
                          "args, status, oversubscribed, version, resumes, kind, metric FROM run "
                          "WHERE ?1 = 0 OR machine_id = ?1 ORDER BY id",
/* measurement and confirmation have the same columns: one text for both tables' statements. */
#define MEASUREMENT_INSERT(table)                                                                  \
    "INSERT INTO " table " (run_id, " MEASUREMENT_COLS ") "                                        \
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "                             \
    "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26) "                            \
    "ON CONFLICT DO NOTHING"
#define MEASUREMENT_EXISTS(table)                                                                  \
    "SELECT 1 FROM " table " WHERE run_id = ?1 AND coll = ?2 "                                     \
    "AND pattern = ?3 AND algorithm = ?4 AND params = ?5 "                                         \
    "AND comm_size = ?6 AND ppn = ?7 AND bytes = ?8"
#define MEASUREMENT_BY_RUN(table)                                                                  \
    "SELECT " MEASUREMENT_COLS " FROM " table " WHERE run_id = ?1 ORDER BY " POINT_ORDER
    [ST_MEASUREMENT_INSERT] = MEASUREMENT_INSERT("measurement"),
    [ST_MEASUREMENT_EXISTS] = MEASUREMENT_EXISTS("measurement"),
    [ST_MEASUREMENT_BY_RUN] = MEASUREMENT_BY_RUN("measurement"),
    /* confirmation: the same, and the round (?27 in the insert, ?9 in the test, the last
     * column read) */
    [ST_CONFIRMATION_INSERT] = "INSERT INTO confirmation (run_id, " MEASUREMENT_COLS ", round) "
                               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                               "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, "
                               "?27) ON CONFLICT DO NOTHING",
    [ST_CONFIRMATION_EXISTS] = MEASUREMENT_EXISTS("confirmation") " AND round = ?9",
    [ST_CONFIRMATION_BY_RUN] = "SELECT " MEASUREMENT_COLS ", round FROM confirmation WHERE "
                               "run_id = ?1 ORDER BY round, " POINT_ORDER,
    [ST_FAILURE_INSERT] = "INSERT INTO failure (run_id, " POINT_COLS ", message) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT DO NOTHING",
    [ST_FAILURE_BY_RUN] = "SELECT " POINT_COLS ", message FROM failure WHERE run_id = ?1 "
                          "ORDER BY " POINT_ORDER,
/* rule and nb_rule have the same columns: one text for both tables' statements. */
#define RULE_DELETE(table)                                                                         \
    "DELETE FROM " table " WHERE machine_id = ?1 AND coll = ?2 "                                   \
    "AND comm_size = ?3 AND ppn = ?4 AND pattern = ?5"
#define RULE_INSERT(table)                                                                         \
    "INSERT INTO " table " (machine_id, " RULE_COLS ") "                                           \
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
#define RULE_BY_MACHINE(table)                                                                     \
    "SELECT " RULE_COLS " FROM " table " WHERE machine_id = ?1 "                                   \
    "ORDER BY coll, pattern, comm_size, ppn, lo_bytes, rank"
    [ST_RULE_DELETE] = RULE_DELETE("rule"),
    [ST_RULE_INSERT] = RULE_INSERT("rule"),
    [ST_RULE_BY_MACHINE] = RULE_BY_MACHINE("rule"),
    [ST_NB_RULE_DELETE] = RULE_DELETE("nb_rule"),
    [ST_NB_RULE_INSERT] = RULE_INSERT("nb_rule"),
    [ST_NB_RULE_BY_MACHINE] = RULE_BY_MACHINE("nb_rule"),
    [ST_OVERLAP_INSERT] = "INSERT INTO overlap (run_id, " OVERLAP_COLS ") "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                          "?15, ?16, ?17, ?18) ON CONFLICT DO NOTHING",
    [ST_OVERLAP_EXISTS] = "SELECT 1 FROM overlap WHERE run_id = ?1 AND coll = ?2 "
                          "AND pattern = ?3 AND algorithm = ?4 AND params = ?5 "
                          "AND comm_size = ?6 AND ppn = ?7 AND bytes = ?8",
    [ST_OVERLAP_BY_RUN] = "SELECT " OVERLAP_COLS " FROM overlap WHERE ?1 = 0 OR run_id = ?1 "
                          "ORDER BY " POINT_ORDER ", run_id",
    [ST_COUNT_OVERLAP] = "SELECT count(*) FROM overlap WHERE ?1 = 0 OR run_id = ?1",
    [ST_CORE_STATE_INSERT] =
        "INSERT INTO core_state (run_id, round, coll, pattern, comm_size, ppn, "
        "bytes, rtt_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
        "ON CONFLICT DO NOTHING",
    [ST_CORE_STATE_BY_RUN] = "SELECT round, coll, pattern, comm_size, ppn, bytes, rtt_ns "
                             "FROM core_state WHERE run_id = ?1 "
                             "ORDER BY coll, pattern, comm_size, ppn, bytes, round",
    [ST_COUNT_CORE_STATE] = "SELECT count(*) FROM core_state WHERE ?1 = 0 OR run_id = ?1",
    [ST_COUNT_NB_RULE] = "SELECT count(*) FROM nb_rule WHERE ?1 = 0 OR run_id = ?1",
    [ST_VALIDATION_INSERT] = "INSERT INTO validation (run_id, " VALIDATION_COLS ") "
                             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                             "?14, ?15, ?16, ?17, ?18) ON CONFLICT DO NOTHING",
    [ST_VALIDATION_BY_RUN] = "SELECT " VALIDATION_COLS " FROM validation WHERE run_id = ?1 "
                             "ORDER BY coll, pattern, comm_size, ppn, bytes",
    [ST_COUNT_MACHINE] = "SELECT count(*) FROM machine "
                         "WHERE ?1 = 0 OR id = (SELECT machine_id FROM run WHERE id = ?1)",
    [ST_COUNT_RUN] = "SELECT count(*) FROM run WHERE ?1 = 0 OR id = ?1",
    [ST_COUNT_MEASUREMENT] = "SELECT count(*) FROM measurement WHERE ?1 = 0 OR run_id = ?1",
    [ST_COUNT_FAILURE] = "SELECT count(*) FROM failure WHERE ?1 = 0 OR run_id = ?1",
    [ST_COUNT_CONFIRMATION] = "SELECT count(*) FROM confirmation WHERE ?1 = 0 OR run_id = ?1",
    [ST_COUNT_RULE] = "SELECT count(*) FROM rule WHERE ?1 = 0 OR run_id = ?1",
    [ST_COUNT_VALIDATION] = "SELECT count(*) FROM validation WHERE ?1 = 0 OR run_id = ?1",
    [ST_LOGGP_PUT] = "INSERT INTO loggp (machine_id, ppn, run_id, l_us, o_us, g_us, "
                     "g_per_byte_us, measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, " NOW ") "
                     "ON CONFLICT (machine_id, ppn) DO UPDATE SET run_id = excluded.run_id, "
                     "l_us = excluded.l_us, o_us = excluded.o_us, g_us = excluded.g_us, "
                     "g_per_byte_us = excluded.g_per_byte_us, measured_at = excluded.measured_at",
    [ST_LOGGP_NEAREST] = "SELECT ppn, coalesce(run_id, 0), l_us, o_us, g_us, g_per_byte_us "
                         "FROM loggp WHERE machine_id = ?1 ORDER BY abs(ppn - ?2), ppn LIMIT 1",
    [ST_PATTERN_PUT] = "INSERT INTO pattern (machine_id, name, p, nedges, max_out, max_in, "
                       "mean_out, imbalance, offsets) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                       "ON CONFLICT (machine_id, name, p) DO UPDATE SET nedges = excluded.nedges, "
                       "max_out = excluded.max_out, max_in = excluded.max_in, "
                       "mean_out = excluded.mean_out, imbalance = excluded.imbalance, "
                       "offsets = excluded.offsets",
    [ST_SETUP_PUT] = "INSERT INTO setup_cost (run_id, coll, algorithm, params, comm_size, ppn, "
                     "setup_us, pattern) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
                     "ON CONFLICT (run_id, pattern, algorithm, params, comm_size, ppn) "
                     "DO UPDATE SET setup_us = excluded.setup_us",
    [ST_SETUP_GET] = "SELECT s.setup_us FROM setup_cost s JOIN run r ON r.id = s.run_id "
                     "WHERE r.machine_id = ?1 AND s.algorithm = ?2 AND s.params = ?3 "
                     "AND s.comm_size = ?4 AND s.ppn = ?5 AND s.pattern = ?6 "
                     "ORDER BY s.run_id DESC LIMIT 1",
    [ST_PATTERN_BY_MACHINE] = "SELECT name, p, nedges, max_out, max_in, mean_out, imbalance, "
                              "offsets FROM pattern WHERE machine_id = ?1 ORDER BY name, p",
};

static const struct {
    const char *name;
    enum stmt count;
} tables[] = {
    {"machine", ST_COUNT_MACHINE},
    {"run", ST_COUNT_RUN},
    {"measurement", ST_COUNT_MEASUREMENT},
    {"failure", ST_COUNT_FAILURE},
    {"rule", ST_COUNT_RULE},
    {"validation", ST_COUNT_VALIDATION},
    {"confirmation", ST_COUNT_CONFIRMATION},
    {"overlap", ST_COUNT_OVERLAP},
    {"nb_rule", ST_COUNT_NB_RULE},
    {"core_state", ST_COUNT_CORE_STATE},
};

static const char *const run_kind_names[] = {
    [CS_DB_RUN_TUNE] = "tune",
    [CS_DB_RUN_VALIDATE] = "validate",
};

static const char *const metric_names[] = {
    [CS_DB_METRIC_SYNC] = "sync",
    [CS_DB_METRIC_LOOP] = "loop",
    [CS_DB_METRIC_BOTH] = "both",
};

static const char *const run_status_names[] = {
    [CS_DB_RUN_RUNNING] = "running",
    [CS_DB_RUN_DONE] = "done",
    [CS_DB_RUN_ABORTED] = "aborted",
};

struct cs_db {
    sqlite3 *conn;
    sqlite3_stmt *stmts[NSTMTS];
    unsigned char *blob; /* encoding buffer for samples_us */
    size_t blob_cap;
    double *samples; /* decoding buffer for samples_us */
    size_t samples_cap;
    double *loop_samples; /* decoding buffer for loop_samples_us */
    size_t loop_samples_cap;
    char errmsg[512];
};

/* Records SQLite's error `src` for `expr` at file:line in db->errmsg and the debug log;
 * returns CS_ERR_DB. */
static int db_fail(cs_db_t *db, const char *file, int line, const char *expr, int src) {
    snprintf(db->errmsg, sizeof(db->errmsg), "%s", sqlite3_errmsg(db->conn));
    if (db->errmsg[0] == '\0' || strcmp(db->errmsg, "not an error") == 0) {
        snprintf(db->errmsg, sizeof(db->errmsg), "%s", sqlite3_errstr(src));
    }
    cs_log(CS_LOG_DEBUG, "%s:%d: %s failed: %s (SQLite %d)", file, line, expr, db->errmsg, src);
    return CS_ERR_DB;
}

/* Evaluate an SQLite call on `db`; unless it returns SQLITE_OK, SQLITE_ROW or SQLITE_DONE,
 * record sqlite3_errmsg (cs_db_errmsg, debug log), set `rc` to CS_ERR_DB and goto out. */
#define CS_DB_CHECK(db, expr)                                                                      \
    do {                                                                                           \
        int cs_db_rc_ = (expr);                                                                    \
        if (cs_db_rc_ != SQLITE_OK && cs_db_rc_ != SQLITE_ROW && cs_db_rc_ != SQLITE_DONE) {       \
            rc = db_fail((db), __FILE__, __LINE__, #expr, cs_db_rc_);                              \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Formats a message for the user of cs_db_open into why[0..len-1] and the debug log. */
static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    cs_log(CS_LOG_DEBUG, "%s", text);
    if (why != NULL && len > 0) {
        snprintf(why, len, "%s", text);
    }
}

/* --- statements and values ----------------------------------------------------------------- */

/* Sets *s to the cached statement `id`, preparing it on first use. */
static int stmt(cs_db_t *db, enum stmt id, sqlite3_stmt **s) {
    int rc = CS_OK;
    if (db->stmts[id] == NULL) {
        CS_DB_CHECK(db, sqlite3_prepare_v3(db->conn, sql[id], -1, SQLITE_PREPARE_PERSISTENT,
                                           &db->stmts[id], NULL));
    }
    *s = db->stmts[id];
out:
    return rc;
}

/* Makes a used statement ready for its next use. */
static void done(sqlite3_stmt *s) {
    if (s != NULL) {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
    }
}

/* Runs statement `id`, which takes no parameters and returns no rows. */
static int run_stmt(cs_db_t *db, enum stmt id) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, id, &s));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

/* Runs statement `id` with ?1 = `arg` (when has_arg) and sets *value to column 0 of its first
 * row. CS_ERR_NOT_FOUND when there is no row. */
static int query_int64(cs_db_t *db, enum stmt id, bool has_arg, int64_t arg, int64_t *value) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, id, &s));
    if (has_arg) {
        CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, arg));
    }
    CS_DB_CHECK(db, step = sqlite3_step(s));
    CS_REQUIRE(step == SQLITE_ROW, CS_ERR_NOT_FOUND);
    *value = sqlite3_column_int64(s, 0);
out:
    done(s);
    return rc;
}

/* Runs compiled-in SQL (schema, migrations, pragmas): never data. */
static int exec_sql(cs_db_t *db, const char *text) {
    int rc = CS_OK;
    CS_DB_CHECK(db, sqlite3_exec(db->conn, text, NULL, NULL, NULL));
out:
    return rc;
}

/* Binds a string; NULL binds SQL NULL. The string must live until the statement is reset. */
static int bind_text(sqlite3_stmt *s, int i, const char *text) {
    return text == NULL ? sqlite3_bind_null(s, i)
                        : sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
}

/* Binds a time or p-value; NaN binds SQL NULL. */
static int bind_real(sqlite3_stmt *s, int i, double v) {
    return isnan(v) ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, v);
}

/* Binds a row id; 0 binds SQL NULL. */
static int bind_id(sqlite3_stmt *s, int i, int64_t id) {
    return id == 0 ? sqlite3_bind_null(s, i) : sqlite3_bind_int64(s, i, id);
}

/* Binds a point to parameters first..first+6 in POINT_COLS order. */
static int bind_point(sqlite3_stmt *s, int first, const cs_db_point_t *p) {
    int src = sqlite3_bind_text(s, first, p->coll, -1, SQLITE_STATIC);
    if (src == SQLITE_OK) {
        src = sqlite3_bind_text(s, first + 1, p->pattern != NULL ? p->pattern : "", -1,
                                SQLITE_STATIC);
    }
    if (src == SQLITE_OK) {
        src = sqlite3_bind_text(s, first + 2, p->algorithm, -1, SQLITE_STATIC);
    }
    if (src == SQLITE_OK) {
        src =
            sqlite3_bind_text(s, first + 3, p->params != NULL ? p->params : "", -1, SQLITE_STATIC);
    }
    if (src == SQLITE_OK) {
        src = sqlite3_bind_int(s, first + 4, p->comm_size);
    }
    if (src == SQLITE_OK) {
        src = sqlite3_bind_int(s, first + 5, p->ppn);
    }
    if (src == SQLITE_OK) {
        src = sqlite3_bind_int64(s, first + 6, (sqlite3_int64)p->bytes);
    }
    return src;
}

static const char *column_text(sqlite3_stmt *s, int i) {
    return (const char *)sqlite3_column_text(s, i);
}

/* Reads a time or p-value; SQL NULL reads as NaN. */
static double column_real(sqlite3_stmt *s, int i) {
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

/* Reads POINT_COLS from columns first..first+6; the strings live until the next step. */
static void column_point(sqlite3_stmt *s, int first, cs_db_point_t *p) {
    p->coll = column_text(s, first);
    p->pattern = column_text(s, first + 1);
    p->algorithm = column_text(s, first + 2);
    p->params = column_text(s, first + 3);
    p->comm_size = sqlite3_column_int(s, first + 4);
    p->ppn = sqlite3_column_int(s, first + 5);
    p->bytes = (uint64_t)sqlite3_column_int64(s, first + 6);
}

/* Reads column i, one of names[0..n-1] (the text values of an enum: column `column` holds
 * `what`, "run.status" a "run status"), into *value as its index; CS_ERR_DB for a value the
 * schema does not allow. */
static int column_enum(cs_db_t *db, sqlite3_stmt *s, int i, const char *const *names, int n,
                       const char *column, const char *what, int *value) {
    const char *text = column_text(s, i);
    for (int k = 0; k < n; k++) {
        if (text != NULL && strcmp(text, names[k]) == 0) {
            *value = k;
            return CS_OK;
        }
    }
    snprintf(db->errmsg, sizeof(db->errmsg), "%s '%s' is not a %s", column,
             text != NULL ? text : "NULL", what);
    cs_log(CS_LOG_DEBUG, "%s", db->errmsg);
    return CS_ERR_DB;
}

/* Reads a run status from column i; CS_ERR_DB for a value the schema does not allow. */
static int column_status(cs_db_t *db, sqlite3_stmt *s, int i, cs_db_run_status_t *status) {
    int v = 0;
    int rc = column_enum(db, s, i, run_status_names, CS_DB_RUN_ABORTED + 1, "run.status",
                         "run status", &v);
    *status = (cs_db_run_status_t)v;
    return rc;
}

/* Reads a run kind from column i; CS_ERR_DB for a value the schema does not allow. */
static int column_kind(cs_db_t *db, sqlite3_stmt *s, int i, cs_db_run_kind_t *kind) {
    int v = 0;
    int rc =
        column_enum(db, s, i, run_kind_names, CS_DB_RUN_VALIDATE + 1, "run.kind", "run kind", &v);
    *kind = (cs_db_run_kind_t)v;
    return rc;
}

/* Reads a metric policy from column i; CS_ERR_DB for a value the schema does not allow. */
static int column_metric(cs_db_t *db, sqlite3_stmt *s, int i, cs_db_metric_t *metric) {
    int v = 0;
    int rc =
        column_enum(db, s, i, metric_names, CS_DB_METRIC_COUNT, "run.metric", "metric policy", &v);
    *metric = (cs_db_metric_t)v;
    return rc;
}

const char *cs_db_metric_name(cs_db_metric_t m) {
    return (int)m >= 0 && (int)m < CS_DB_METRIC_COUNT ? metric_names[m] : NULL;
}

int cs_db_metric_from_name(const char *name, cs_db_metric_t *m) {
    for (int k = 0; name != NULL && k < CS_DB_METRIC_COUNT; k++) {
        if (strcmp(name, metric_names[k]) == 0) {
            *m = (cs_db_metric_t)k;
            return CS_OK;
        }
    }
    return CS_ERR_ARG;
}

/* Whether `algorithm` is a key of collective `coll`: "<coll>/<alg>". */
static bool algorithm_of(const char *algorithm, const char *coll) {
    size_t len = strlen(coll);
    return algorithm != NULL && strncmp(algorithm, coll, len) == 0 && algorithm[len] == '/' &&
           algorithm[len + 1] != '\0';
}

static bool point_valid(const cs_db_point_t *p) {
    return p != NULL && p->coll != NULL && p->coll[0] != '\0' &&
           algorithm_of(p->algorithm, p->coll) && p->comm_size >= 1 && p->ppn >= 1 &&
           p->bytes <= (uint64_t)INT64_MAX;
}

/* Calls a cs_db_foreach_* callback; *stop is set when it asks to stop. A negative status is
 * returned as it is, anything else as CS_OK. */
static int call_back(int status, bool *stop) {
    *stop = status != CS_OK;
    return status < 0 ? status : CS_OK;
}

/* Starts an atomic group of statements: a transaction, or a savepoint inside an open batch. */
static int atomic_begin(cs_db_t *db, bool *savepoint) {
    *savepoint = !sqlite3_get_autocommit(db->conn);
    return run_stmt(db, *savepoint ? ST_SAVEPOINT : ST_BEGIN);
}

/* Ends the atomic group: keeps it when rc is CS_OK, undoes it otherwise. Returns rc, or the
 * status of keeping it. */
static int atomic_end(cs_db_t *db, bool savepoint, int rc) {
    if (savepoint) {
        if (rc < 0) {
            (void)run_stmt(db, ST_ROLLBACK_TO);
        }
        int end = run_stmt(db, ST_RELEASE);
        return rc < 0 ? rc : end;
    }
    if (rc == CS_OK) {
        rc = run_stmt(db, ST_COMMIT);
    }
    if (rc < 0 && !sqlite3_get_autocommit(db->conn)) {
        (void)run_stmt(db, ST_ROLLBACK);
    }
    return rc;
}

/* --- opening ------------------------------------------------------------------------------- */

int cs_db_schema_version(void) {
    return CS_DB_SQL_VERSION;
}

const char *cs_db_schema_sql(void) {
    return cs_db_sql_schema;
}

const char *cs_db_migration_sql(int version) {
    if (version < 1 || version > CS_DB_SQL_VERSION) {
        return NULL;
    }
    return cs_db_sql_migrations[version - 1];
}

/* Sets the header fields that mark a collsel database at schema version `version`. */
static int stamp(cs_db_t *db, int version) {
    char text[96];
    snprintf(text, sizeof(text), "PRAGMA application_id = %d; PRAGMA user_version = %d",
             CS_DB_APPLICATION_ID, version);
    return exec_sql(db, text);
}

/* Checks that `db` holds a collsel schema at the current version; in read-write mode, first
 * creates it (empty database) or applies the missing migrations, all in one transaction. */
static int prepare_schema(cs_db_t *db, const char *path, cs_db_mode_t mode, char *why, size_t len) {
    int rc = CS_OK;
    bool in_tx = false;
    int64_t app_id = 0, version = 0, nobjects = 0;

    if (mode == CS_DB_READ_WRITE) {
        rc = run_stmt(db, ST_BEGIN);
        if (rc < 0) {
            say(why, len, "cannot use database '%s': %s", path, db->errmsg);
            goto out;
        }
        in_tx = true;
    }
    if (query_int64(db, ST_APPLICATION_ID, false, 0, &app_id) < 0 ||
        query_int64(db, ST_USER_VERSION, false, 0, &version) < 0 ||
        query_int64(db, ST_NOBJECTS, false, 0, &nobjects) < 0) {
        say(why, len, "cannot read database '%s': %s", path, db->errmsg);
        rc = CS_ERR_DB;
        goto out;
    }
    if ((version != 0 || app_id != 0) && app_id != CS_DB_APPLICATION_ID) {
        say(why, len,
            "'%s' is not a collsel database (application_id 0x%08" PRIx64 ", user_version %" PRId64
            "); use another file",
            path, (uint64_t)(uint32_t)app_id, version);
        rc = CS_ERR_DB;
        goto out;
    }
    if (version == 0 && nobjects > 0) {
        say(why, len,
            "'%s' is not a collsel database (it has tables but no collsel schema version); use "
            "another file",
            path);
        rc = CS_ERR_DB;
        goto out;
    }
    if (version > CS_DB_SQL_VERSION) {
        say(why, len,
            "database '%s' has schema version %" PRId64 ", newer than this collsel supports "
            "(%d); use a newer collsel, or another file",
            path, version, CS_DB_SQL_VERSION);
        rc = CS_ERR_DB;
        goto out;
    }
    if (version < CS_DB_SQL_VERSION && mode == CS_DB_READ_ONLY) {
        if (version == 0) {
            say(why, len,
                "database '%s' is empty (no collsel schema); collsel-bench --db %s fills it", path,
                path);
        } else {
            say(why, len,
                "database '%s' has schema version %" PRId64 ", older than %d; open it once with "
                "collsel-bench to upgrade it",
                path, version, CS_DB_SQL_VERSION);
        }
        rc = CS_ERR_DB;
        goto out;
    }
    if (version < CS_DB_SQL_VERSION) {
        if (version == 0) {
            rc = exec_sql(db, cs_db_sql_schema);
        }
        for (int64_t v = version + 1; version > 0 && v <= CS_DB_SQL_VERSION && rc == CS_OK; v++) {
            rc = exec_sql(db, cs_db_sql_migrations[v - 1]);
            if (rc < 0) {
                say(why, len, "database '%s': migration %s failed: %s", path,
                    cs_db_sql_migration_names[v - 1], db->errmsg);
                goto out;
            }
        }
        if (rc == CS_OK) {
            rc = stamp(db, CS_DB_SQL_VERSION);
        }
        if (rc < 0) {
            say(why, len, "cannot create the schema in database '%s': %s", path, db->errmsg);
            goto out;
        }
        cs_log(CS_LOG_INFO, "database '%s': schema version %" PRId64 " -> %d", path, version,
               CS_DB_SQL_VERSION);
    }
    if (in_tx) {
        in_tx = false;
        rc = run_stmt(db, ST_COMMIT);
        if (rc < 0) {
            say(why, len, "cannot write database '%s': %s", path, db->errmsg);
            goto out;
        }
    }
out:
    if (in_tx) {
        (void)run_stmt(db, ST_ROLLBACK);
    }
    return rc;
}

int cs_db_open(const char *path, cs_db_mode_t mode, cs_db_t **out_db, char *why, size_t len) {
    int rc = CS_OK;
    cs_db_t *db = NULL;
    if (why != NULL && len > 0) {
        why[0] = '\0';
    }
    CS_REQUIRE(out_db != NULL, CS_ERR_ARG);
    *out_db = NULL;
    CS_REQUIRE(path != NULL && path[0] != '\0', CS_ERR_ARG);
    CS_REQUIRE(mode == CS_DB_READ_ONLY || mode == CS_DB_READ_WRITE, CS_ERR_ARG);

    if (mode == CS_DB_READ_ONLY && strcmp(path, ":memory:") != 0) {
        struct stat st;
        if (stat(path, &st) != 0) {
            int err = errno;
            if (err == ENOENT) {
                say(why, len, "database '%s' does not exist (collsel-bench --db %s creates it)",
                    path, path);
                rc = CS_ERR_NOT_FOUND;
            } else {
                say(why, len, "cannot open database '%s': %s", path, strerror(err));
                rc = CS_ERR_DB;
            }
            goto out;
        }
    }

    db = calloc(1, sizeof(*db));
    CS_REQUIRE(db != NULL, CS_ERR_NOMEM);
    int flags =
        mode == CS_DB_READ_ONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int src = sqlite3_open_v2(path, &db->conn, flags, NULL);
    if (src != SQLITE_OK) {
        say(why, len, "cannot %s database '%s': %s%s",
            mode == CS_DB_READ_ONLY ? "open" : "create or open", path,
            db->conn != NULL ? sqlite3_errmsg(db->conn) : sqlite3_errstr(src),
            mode == CS_DB_READ_ONLY ? "" : " (does the directory exist, and is it writable?)");
        rc = src == SQLITE_NOMEM ? CS_ERR_NOMEM : CS_ERR_DB;
        goto out;
    }
    sqlite3_busy_timeout(db->conn, BUSY_TIMEOUT_MS);
    if (mode == CS_DB_READ_WRITE && sqlite3_db_readonly(db->conn, "main") == 1) {
        say(why, len, "database '%s' is not writable (check its permissions)", path);
        rc = CS_ERR_DB;
        goto out;
    }
    if (mode == CS_DB_READ_WRITE) {
        /* A committed batch survives kill -9 and power loss; the rollback journal (the default,
         * left as is) keeps the database one self-contained file. */
        CS_CHECK(exec_sql(db, "PRAGMA synchronous = FULL"));
    }
    CS_CHECK(prepare_schema(db, path, mode, why, len));
    CS_CHECK(exec_sql(db, "PRAGMA foreign_keys = ON"));
    *out_db = db;
    db = NULL;
out:
    if (rc < 0 && db != NULL && why != NULL && len > 0 && why[0] == '\0') {
        say(why, len, "database '%s': %s", path, db->errmsg[0] != '\0' ? db->errmsg : "error");
    }
    cs_db_close(db);
    return rc;
}

/* Appends the lines of `text` to buf[0..len-1] joined by "; ", leaving out SQLite's
 * "*** in database main ***" headings. */
static void append_lines(char *buf, size_t len, const char *text) {
    while (*text != '\0') {
        size_t n = strcspn(text, "\n");
        if (n > 0 && strncmp(text, "***", 3) != 0) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%.*s", used > 0 ? "; " : "", (int)n, text);
        }
        text += n + (text[n] == '\n');
    }
}

int cs_db_check(cs_db_t *db, char *why, size_t len) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    sqlite3_stmt *s = NULL;
    char problems[768] = "";
    if (why != NULL && len > 0) {
        why[0] = '\0';
    }
    CS_REQUIRE(db != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_QUICK_CHECK, &s));
    for (;;) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        /* A row is "ok", or lines such as "*** in database main ***\nPage 6: ...". */
        const char *text = column_text(s, 0);
        if (text != NULL && strcmp(text, "ok") != 0) {
            append_lines(problems, sizeof(problems), text);
        }
    }
    if (problems[0] != '\0') {
        size_t n = strlen(problems); /* keep the start when it does not fit */
        if (n >= sizeof(db->errmsg)) {
            n = sizeof(db->errmsg) - 1;
        }
        memcpy(db->errmsg, problems, n);
        db->errmsg[n] = '\0';
        cs_log(CS_LOG_DEBUG, "quick_check: %s", problems);
        rc = CS_ERR_DB;
    }
out:
    if (rc < 0 && db != NULL && why != NULL && len > 0) {
        snprintf(why, len, "%s", db->errmsg[0] != '\0' ? db->errmsg : cs_status_str(rc));
    }
    done(s);
    return rc;
}

void cs_db_close(cs_db_t *db) {
    if (db == NULL) {
        return;
    }
    for (int i = 0; i < NSTMTS; i++) {
        sqlite3_finalize(db->stmts[i]);
    }
    sqlite3_close_v2(db->conn);
    free(db->blob);
    free(db->samples);
    free(db->loop_samples);
    free(db);
}

const char *cs_db_errmsg(const cs_db_t *db) {
    return db != NULL ? db->errmsg : "";
}

/* --- batches ------------------------------------------------------------------------------- */

int cs_db_begin(cs_db_t *db) {
    return db != NULL ? run_stmt(db, ST_BEGIN) : CS_ERR_ARG;
}

int cs_db_begin_read(cs_db_t *db) {
    return db != NULL ? run_stmt(db, ST_BEGIN_READ) : CS_ERR_ARG;
}

int cs_db_commit(cs_db_t *db) {
    return db != NULL ? run_stmt(db, ST_COMMIT) : CS_ERR_ARG;
}

int cs_db_rollback(cs_db_t *db) {
    return db != NULL ? run_stmt(db, ST_ROLLBACK) : CS_ERR_ARG;
}

/* --- machines ------------------------------------------------------------------------------ */

/* Binds a machine's three fields to ?1..?3 (NULL fields bind NULL). */
static int bind_machine(sqlite3_stmt *s, const cs_db_machine_t *m) {
    int src = bind_text(s, 1, m->host);
    if (src == SQLITE_OK) {
        src = bind_text(s, 2, m->topology);
    }
    if (src == SQLITE_OK) {
        src = bind_text(s, 3, m->mpi_library);
    }
    return src;
}

/* Sets *id to the machine with exactly fingerprint `m`; CS_ERR_NOT_FOUND when none. */
static int get_machine(cs_db_t *db, const cs_db_machine_t *m, int64_t *id) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, ST_MACHINE_GET, &s));
    CS_DB_CHECK(db, bind_machine(s, m));
    CS_DB_CHECK(db, step = sqlite3_step(s));
    if (step != SQLITE_ROW) {
        rc = CS_ERR_NOT_FOUND;
        goto out;
    }
    *id = sqlite3_column_int64(s, 0);
out:
    done(s);
    return rc;
}

static int insert_machine(cs_db_t *db, const cs_db_machine_t *m, int64_t *id) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, ST_MACHINE_INSERT, &s));
    CS_DB_CHECK(db, bind_machine(s, m));
    CS_DB_CHECK(db, sqlite3_step(s));
    *id = sqlite3_last_insert_rowid(db->conn);
out:
    done(s);
    return rc;
}

int cs_db_find_or_insert_machine(cs_db_t *db, const cs_db_machine_t *m, int64_t *machine_id) {
    int rc = CS_OK;
    bool atomic = false, savepoint = false;
    int64_t id = 0;
    CS_REQUIRE(db != NULL && m != NULL && machine_id != NULL, CS_ERR_ARG);
    CS_REQUIRE(m->host != NULL && m->topology != NULL && m->mpi_library != NULL, CS_ERR_ARG);
    CS_CHECK(atomic_begin(db, &savepoint));
    atomic = true;
    rc = get_machine(db, m, &id);
    if (rc == CS_ERR_NOT_FOUND) {
        rc = insert_machine(db, m, &id);
    }
    CS_CHECK(rc);
out:
    if (atomic) {
        rc = atomic_end(db, savepoint, rc);
    }
    if (rc == CS_OK) {
        *machine_id = id;
    }
    return rc;
}

int cs_db_find_machine(cs_db_t *db, const cs_db_machine_t *want, int64_t *machine_id) {
    static const cs_db_machine_t any = {NULL, NULL, NULL};
    int rc = CS_OK;
    int step = SQLITE_DONE;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && machine_id != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_MACHINE_FIND, &s));
    CS_DB_CHECK(db, bind_machine(s, want != NULL ? want : &any));
    CS_DB_CHECK(db, step = sqlite3_step(s));
    if (step != SQLITE_ROW) {
        rc = CS_ERR_NOT_FOUND;
        goto out;
    }
    *machine_id = sqlite3_column_int64(s, 0);
out:
    done(s);
    return rc;
}

int cs_db_foreach_machine(cs_db_t *db, cs_db_machine_fn fn, void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && fn != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_MACHINE_ALL, &s));
    while (!stop) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        cs_db_machine_t m = {column_text(s, 1), column_text(s, 2), column_text(s, 3)};
        CS_CHECK(call_back(fn(sqlite3_column_int64(s, 0), &m, ctx), &stop));
    }
out:
    done(s);
    return rc;
}

/* --- runs ---------------------------------------------------------------------------------- */

static int abort_stale_runs(cs_db_t *db, int64_t machine_id) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, ST_RUN_ABORT_STALE, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, machine_id));
    CS_DB_CHECK(db, sqlite3_step(s));
    if (sqlite3_changes(db->conn) > 0) {
        cs_log(CS_LOG_INFO, "marked %d interrupted run(s) of machine %" PRId64 " aborted",
               sqlite3_changes(db->conn), machine_id);
    }
out:
    done(s);
    return rc;
}

/* Sets *id to the newest run like `run` that is not done; CS_ERR_NOT_FOUND when the newest
 * such run is done or there is none. */
static int resumable_run(cs_db_t *db, const cs_db_run_t *run, int64_t *id) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, ST_RUN_LATEST, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run->machine_id));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 2, run->nprocs));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 3, run->nnodes));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 4, run->ppn));
    CS_DB_CHECK(db, bind_text(s, 5, run->args != NULL ? run->args : ""));
    CS_DB_CHECK(db, bind_text(s, 6, run_kind_names[run->kind]));
    CS_DB_CHECK(db, step = sqlite3_step(s));
    if (step != SQLITE_ROW || strcmp(column_text(s, 1), run_status_names[CS_DB_RUN_DONE]) == 0) {
        rc = CS_ERR_NOT_FOUND;
        goto out;
    }
    *id = sqlite3_column_int64(s, 0);
out:
    done(s);
    return rc;
}

static int resume_run(cs_db_t *db, int64_t id) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, ST_RUN_RESUME, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, id));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

static int insert_run(cs_db_t *db, const cs_db_run_t *run, int64_t *id) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, ST_RUN_INSERT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run->machine_id));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 2, run->nprocs));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 3, run->nnodes));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 4, run->ppn));
    CS_DB_CHECK(db, bind_text(s, 5, run->args != NULL ? run->args : ""));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 6, run->oversubscribed));
    CS_DB_CHECK(db, bind_text(s, 7, run->version));
    CS_DB_CHECK(db, bind_text(s, 8, run_kind_names[run->kind]));
    CS_DB_CHECK(db, bind_text(s, 9, metric_names[run->metric]));
    CS_DB_CHECK(db, sqlite3_step(s));
    *id = sqlite3_last_insert_rowid(db->conn);
out:
    done(s);
    return rc;
}

int cs_db_start_run(cs_db_t *db, const cs_db_run_t *run, bool resume, int64_t *run_id,
                    bool *resumed) {
    int rc = CS_OK;
    bool atomic = false, savepoint = false, found = false;
    int64_t id = 0;
    CS_REQUIRE(db != NULL && run != NULL && run_id != NULL, CS_ERR_ARG);
    CS_REQUIRE(run->machine_id > 0 && run->nprocs >= 1 && run->nnodes >= 1 && run->ppn >= 1,
               CS_ERR_ARG);
    CS_REQUIRE(run->oversubscribed == 0 || run->oversubscribed == 1, CS_ERR_ARG);
    CS_REQUIRE(run->kind == CS_DB_RUN_TUNE || run->kind == CS_DB_RUN_VALIDATE, CS_ERR_ARG);
    CS_REQUIRE(cs_db_metric_name(run->metric) != NULL, CS_ERR_ARG);
    CS_CHECK(atomic_begin(db, &savepoint));
    atomic = true;
    CS_CHECK(abort_stale_runs(db, run->machine_id));
    if (resume) {
        rc = resumable_run(db, run, &id);
        found = rc == CS_OK;
        if (rc == CS_ERR_NOT_FOUND) {
            rc = CS_OK;
        }
        CS_CHECK(rc);
    }
    if (found) {
        CS_CHECK(resume_run(db, id));
    } else {
        CS_CHECK(insert_run(db, run, &id));
    }
out:
    if (atomic) {
        rc = atomic_end(db, savepoint, rc);
    }
    if (rc == CS_OK) {
        *run_id = id;
        if (resumed != NULL) {
            *resumed = found;
        }
    }
    return rc;
}

int cs_db_finish_run(cs_db_t *db, int64_t run_id, cs_db_run_status_t status) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL, CS_ERR_ARG);
    CS_REQUIRE(status == CS_DB_RUN_DONE || status == CS_DB_RUN_ABORTED, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_RUN_FINISH, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    CS_DB_CHECK(db, bind_text(s, 2, run_status_names[status]));
    CS_DB_CHECK(db, sqlite3_step(s));
    CS_REQUIRE(sqlite3_changes(db->conn) == 1, CS_ERR_NOT_FOUND);
out:
    done(s);
    return rc;
}

/* Statement `id` of one run (?1: its id) stepped to its row in *s, which the caller reads and
 * then passes to done(), also on failure. CS_ERR_NOT_FOUND when there is no such run. */
static int run_row(cs_db_t *db, enum stmt id, int64_t run_id, sqlite3_stmt **s) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    CS_CHECK(stmt(db, id, s));
    CS_DB_CHECK(db, sqlite3_bind_int64(*s, 1, run_id));
    CS_DB_CHECK(db, step = sqlite3_step(*s));
    CS_REQUIRE(step == SQLITE_ROW, CS_ERR_NOT_FOUND);
out:
    return rc;
}

int cs_db_run_status(cs_db_t *db, int64_t run_id, cs_db_run_status_t *status) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && status != NULL, CS_ERR_ARG);
    CS_CHECK(run_row(db, ST_RUN_STATUS, run_id, &s));
    CS_CHECK(column_status(db, s, 0, status));
out:
    done(s);
    return rc;
}

int cs_db_run_age(cs_db_t *db, int64_t run_id, double *seconds) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && seconds != NULL, CS_ERR_ARG);
    CS_CHECK(run_row(db, ST_RUN_AGE, run_id, &s));
    CS_REQUIRE(sqlite3_column_type(s, 0) != SQLITE_NULL, CS_ERR_NOT_FOUND);
    *seconds = sqlite3_column_double(s, 0);
out:
    done(s);
    return rc;
}

int cs_db_foreach_run(cs_db_t *db, int64_t machine_id, cs_db_run_fn fn, void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && fn != NULL && machine_id >= 0, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_RUN_BY_MACHINE, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, machine_id));
    while (!stop) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        cs_db_run_row_t r = {
            .id = sqlite3_column_int64(s, 0),
            .run =
                {
                    .machine_id = sqlite3_column_int64(s, 1),
                    .nprocs = sqlite3_column_int(s, 4),
                    .nnodes = sqlite3_column_int(s, 5),
                    .ppn = sqlite3_column_int(s, 6),
                    .oversubscribed = sqlite3_column_int(s, 9),
                    .args = column_text(s, 7),
                    .version = column_text(s, 10),
                },
            .started_at = column_text(s, 2),
            .finished_at = column_text(s, 3),
            .resumes = sqlite3_column_int(s, 11),
        };
        CS_CHECK(column_status(db, s, 8, &r.status));
        CS_CHECK(column_kind(db, s, 12, &r.run.kind));
        CS_CHECK(column_metric(db, s, 13, &r.run.metric));
        CS_CHECK(call_back(fn(&r, ctx), &stop));
    }
out:
    done(s);
    return rc;
}

/* --- measurements and failures ------------------------------------------------------------- */

/* Encodes samples[0..n-1] as float64 little-endian into db->blob from byte `at` on. */
static int encode_samples(cs_db_t *db, const double *samples, size_t n, size_t at) {
    int rc = CS_OK;
    CS_REQUIRE(n <= (SIZE_MAX - at) / 8, CS_ERR_ARG);
    if (at + n * 8 > db->blob_cap) {
        unsigned char *grown = realloc(db->blob, at + n * 8);
        CS_REQUIRE(grown != NULL, CS_ERR_NOMEM);
        db->blob = grown;
        db->blob_cap = at + n * 8;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &samples[i], sizeof(bits));
        for (int b = 0; b < 8; b++) {
            db->blob[at + i * 8 + (size_t)b] = (unsigned char)(bits >> (8 * b));
        }
    }
out:
    return rc;
}

/* Decodes a blob of `len` bytes of column `column` into *buf (capacity *cap, grown as
 * needed); *n values. */
static int decode_samples(cs_db_t *db, const char *column, const unsigned char *blob, size_t len,
                          double **buf, size_t *cap, size_t *n) {
    int rc = CS_OK;
    if (len % 8 != 0) {
        snprintf(db->errmsg, sizeof(db->errmsg),
                 "measurement.%s: %zu bytes is not a "
                 "whole number of float64 values",
                 column, len);
        cs_log(CS_LOG_DEBUG, "%s", db->errmsg);
        rc = CS_ERR_DB;
        goto out;
    }
    *n = len / 8;
    if (*n > *cap) {
        double *grown = realloc(*buf, *n * sizeof(double));
        CS_REQUIRE(grown != NULL, CS_ERR_NOMEM);
        *buf = grown;
        *cap = *n;
    }
    for (size_t i = 0; i < *n; i++) {
        uint64_t bits = 0;
        for (int b = 0; b < 8; b++) {
            bits |= (uint64_t)blob[i * 8 + (size_t)b] << (8 * b);
        }
        memcpy(&(*buf)[i], &bits, sizeof(bits));
    }
out:
    return rc;
}

/* Stores `m` with statement `st` (ST_MEASUREMENT_INSERT or ST_CONFIRMATION_INSERT). */
static int insert_measurement(cs_db_t *db, enum stmt st, const cs_db_measurement_t *m) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && m != NULL && point_valid(&m->point), CS_ERR_ARG);
    CS_REQUIRE(m->reps >= 1 && m->outliers >= 0 && m->outliers < m->reps, CS_ERR_ARG);
    CS_REQUIRE(!isnan(m->min_us) && !isnan(m->q1_us) && !isnan(m->median_us) && !isnan(m->q3_us) &&
                   !isnan(m->max_us),
               CS_ERR_ARG);
    CS_REQUIRE(m->verified == 0 || m->verified == 1, CS_ERR_ARG);
    CS_REQUIRE(m->nsamples == 0 || m->samples_us != NULL, CS_ERR_ARG);
    CS_REQUIRE(m->loop_reps >= 0, CS_ERR_ARG);
    if (m->loop_reps > 0) {
        CS_REQUIRE(m->loop_outliers >= 0 && m->loop_outliers < m->loop_reps, CS_ERR_ARG);
        CS_REQUIRE(!isnan(m->loop_min_us) && !isnan(m->loop_q1_us) && !isnan(m->loop_median_us) &&
                       !isnan(m->loop_q3_us) && !isnan(m->loop_max_us),
                   CS_ERR_ARG);
        CS_REQUIRE(m->loop_nsamples == 0 || m->loop_samples_us != NULL, CS_ERR_ARG);
    }
    CS_CHECK(encode_samples(db, m->samples_us, m->nsamples, 0));
    if (m->loop_reps > 0) {
        CS_CHECK(encode_samples(db, m->loop_samples_us, m->loop_nsamples, m->nsamples * 8));
    }
    CS_CHECK(stmt(db, st, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, m->run_id));
    CS_DB_CHECK(db, bind_point(s, 2, &m->point));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 9, m->reps));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 10, m->outliers));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 11, m->min_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 12, m->q1_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 13, m->median_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 14, m->q3_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 15, m->max_us));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 16, m->verified));
    if (m->nsamples > 0) {
        CS_DB_CHECK(db, sqlite3_bind_blob64(s, 17, db->blob, (sqlite3_uint64)m->nsamples * 8,
                                            SQLITE_STATIC));
    } else {
        CS_DB_CHECK(db, sqlite3_bind_null(s, 17));
    }
    for (int i = 18; i <= 26; i++) { /* no loop metric: NULL columns */
        CS_DB_CHECK(db, sqlite3_bind_null(s, i));
    }
    if (m->loop_reps > 0) {
        CS_DB_CHECK(db, sqlite3_bind_int(s, 18, m->loop_reps));
        CS_DB_CHECK(db, sqlite3_bind_int(s, 19, m->loop_outliers));
        CS_DB_CHECK(db, sqlite3_bind_double(s, 20, m->loop_min_us));
        CS_DB_CHECK(db, sqlite3_bind_double(s, 21, m->loop_q1_us));
        CS_DB_CHECK(db, sqlite3_bind_double(s, 22, m->loop_median_us));
        CS_DB_CHECK(db, sqlite3_bind_double(s, 23, m->loop_q3_us));
        CS_DB_CHECK(db, sqlite3_bind_double(s, 24, m->loop_max_us));
        CS_DB_CHECK(db, bind_real(s, 25, m->loop_rankmax_median_us));
        if (m->loop_nsamples > 0) {
            CS_DB_CHECK(db,
                        sqlite3_bind_blob64(s, 26, db->blob + m->nsamples * 8,
                                            (sqlite3_uint64)m->loop_nsamples * 8, SQLITE_STATIC));
        }
    }
    if (st == ST_CONFIRMATION_INSERT) {
        CS_DB_CHECK(db, sqlite3_bind_int(s, 27, m->round > 1 ? m->round : 1));
    }
    CS_DB_CHECK(db, sqlite3_step(s));
    if (sqlite3_changes(db->conn) == 0) {
        const char *params = m->point.params != NULL ? m->point.params : "";
        cs_log(CS_LOG_DEBUG, "run %" PRId64 " already has %s%s%s%s at %" PRIu64 " bytes; kept",
               m->run_id, m->point.algorithm, params[0] != '\0' ? "(" : "", params,
               params[0] != '\0' ? ")" : "", m->point.bytes);
    }
out:
    done(s);
    return rc;
}

int cs_db_insert_measurement(cs_db_t *db, const cs_db_measurement_t *m) {
    return insert_measurement(db, ST_MEASUREMENT_INSERT, m);
}

int cs_db_insert_confirmation(cs_db_t *db, const cs_db_measurement_t *m) {
    return insert_measurement(db, ST_CONFIRMATION_INSERT, m);
}

static int measurement_exists(cs_db_t *db, enum stmt st, int64_t run_id, const cs_db_point_t *p,
                              int round, bool *exists) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && exists != NULL && point_valid(p), CS_ERR_ARG);
    CS_CHECK(stmt(db, st, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    CS_DB_CHECK(db, bind_point(s, 2, p));
    if (st == ST_CONFIRMATION_EXISTS) {
        CS_DB_CHECK(db, sqlite3_bind_int(s, 9, round));
    }
    CS_DB_CHECK(db, step = sqlite3_step(s));
    *exists = step == SQLITE_ROW;
out:
    done(s);
    return rc;
}

int cs_db_measurement_exists(cs_db_t *db, int64_t run_id, const cs_db_point_t *p, bool *exists) {
    return measurement_exists(db, ST_MEASUREMENT_EXISTS, run_id, p, 0, exists);
}

int cs_db_confirmation_exists(cs_db_t *db, int64_t run_id, const cs_db_point_t *p, int round,
                              bool *exists) {
    if (round < 1) {
        return CS_ERR_ARG;
    }
    return measurement_exists(db, ST_CONFIRMATION_EXISTS, run_id, p, round, exists);
}

static int foreach_measurement(cs_db_t *db, enum stmt st, int64_t run_id, cs_db_measurement_fn fn,
                               void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && fn != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, st, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    while (!stop) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        cs_db_measurement_t m = {.run_id = run_id};
        column_point(s, 0, &m.point);
        m.reps = sqlite3_column_int(s, 7);
        m.outliers = sqlite3_column_int(s, 8);
        m.min_us = column_real(s, 9);
        m.q1_us = column_real(s, 10);
        m.median_us = column_real(s, 11);
        m.q3_us = column_real(s, 12);
        m.max_us = column_real(s, 13);
        m.verified = sqlite3_column_int(s, 14);
        const unsigned char *blob = sqlite3_column_blob(s, 15);
        size_t len = (size_t)sqlite3_column_bytes(s, 15);
        if (blob != NULL && len > 0) {
            CS_CHECK(decode_samples(db, "samples_us", blob, len, &db->samples, &db->samples_cap,
                                    &m.nsamples));
            m.samples_us = db->samples;
        }
        if (sqlite3_column_type(s, 16) != SQLITE_NULL) {
            m.loop_reps = sqlite3_column_int(s, 16);
            m.loop_outliers = sqlite3_column_int(s, 17);
            m.loop_min_us = column_real(s, 18);
            m.loop_q1_us = column_real(s, 19);
            m.loop_median_us = column_real(s, 20);
            m.loop_q3_us = column_real(s, 21);
            m.loop_max_us = column_real(s, 22);
            m.loop_rankmax_median_us = column_real(s, 23);
            blob = sqlite3_column_blob(s, 24);
            len = (size_t)sqlite3_column_bytes(s, 24);
            if (blob != NULL && len > 0) {
                CS_CHECK(decode_samples(db, "loop_samples_us", blob, len, &db->loop_samples,
                                        &db->loop_samples_cap, &m.loop_nsamples));
                m.loop_samples_us = db->loop_samples;
            }
        } else {
            m.loop_min_us = m.loop_q1_us = m.loop_median_us = NAN;
            m.loop_q3_us = m.loop_max_us = m.loop_rankmax_median_us = NAN;
        }
        if (st == ST_CONFIRMATION_BY_RUN) {
            m.round = sqlite3_column_int(s, 25);
        }
        CS_CHECK(call_back(fn(&m, ctx), &stop));
    }
out:
    done(s);
    return rc;
}

int cs_db_foreach_measurement(cs_db_t *db, int64_t run_id, cs_db_measurement_fn fn, void *ctx) {
    return foreach_measurement(db, ST_MEASUREMENT_BY_RUN, run_id, fn, ctx);
}

int cs_db_foreach_confirmation(cs_db_t *db, int64_t run_id, cs_db_measurement_fn fn, void *ctx) {
    return foreach_measurement(db, ST_CONFIRMATION_BY_RUN, run_id, fn, ctx);
}

int cs_db_insert_failure(cs_db_t *db, const cs_db_failure_t *f) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && f != NULL && point_valid(&f->point) && f->message != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_FAILURE_INSERT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, f->run_id));
    CS_DB_CHECK(db, bind_point(s, 2, &f->point));
    CS_DB_CHECK(db, bind_text(s, 9, f->message));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

int cs_db_foreach_failure(cs_db_t *db, int64_t run_id, cs_db_failure_fn fn, void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && fn != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_FAILURE_BY_RUN, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    while (!stop) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        cs_db_failure_t f = {.run_id = run_id};
        column_point(s, 0, &f.point);
        f.message = column_text(s, 7);
        CS_CHECK(call_back(fn(&f, ctx), &stop));
    }
out:
    done(s);
    return rc;
}

/* --- rules --------------------------------------------------------------------------------- */

static bool rule_valid(const cs_rule_t *r, int64_t machine_id, cs_coll_t coll, int comm_size,
                       int ppn) {
    return r->machine_id == machine_id && r->coll == coll && r->comm_size == comm_size &&
           r->ppn == ppn && algorithm_of(r->algorithm, cs_coll_name(coll)) && r->rank >= 1 &&
           r->lo_bytes <= (uint64_t)INT64_MAX && r->lo_bytes < r->hi_bytes &&
           (r->hi_bytes == CS_RULE_UNBOUNDED || r->hi_bytes <= (uint64_t)INT64_MAX) &&
           r->run_id >= 0;
}

/* Stores rule `r` with statement `st` (ST_RULE_INSERT or ST_NB_RULE_INSERT). */
static int insert_rule(cs_db_t *db, enum stmt st, const cs_rule_t *r) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_CHECK(stmt(db, st, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, r->machine_id));
    CS_DB_CHECK(db, bind_text(s, 2, cs_coll_name(r->coll)));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 3, r->comm_size));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 4, r->ppn));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 5, (sqlite3_int64)r->lo_bytes));
    if (r->hi_bytes == CS_RULE_UNBOUNDED) {
        CS_DB_CHECK(db, sqlite3_bind_null(s, 6));
    } else {
        CS_DB_CHECK(db, sqlite3_bind_int64(s, 6, (sqlite3_int64)r->hi_bytes));
    }
    CS_DB_CHECK(db, sqlite3_bind_int(s, 7, r->rank));
    CS_DB_CHECK(db, bind_text(s, 8, r->algorithm));
    CS_DB_CHECK(db, bind_text(s, 9, r->params));
    CS_DB_CHECK(db, bind_real(s, 10, r->median_us));
    CS_DB_CHECK(db, bind_real(s, 11, r->native_us));
    CS_DB_CHECK(db, bind_real(s, 12, r->p_value));
    CS_DB_CHECK(db, bind_id(s, 13, r->run_id));
    CS_DB_CHECK(db, bind_text(s, 14, r->pattern));
    CS_DB_CHECK(db, bind_real(s, 15, r->setup_us > 0 ? r->setup_us : NAN));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

int cs_db_replace_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll, int comm_size, int ppn,
                        const cs_rule_t *rules, size_t n) {
    return cs_db_replace_pattern_rules(db, machine_id, coll, "", comm_size, ppn, rules, n);
}

/* cs_db_replace_pattern_rules in table rule (nb 0) or nb_rule (nb 1). */
static int replace_rules(cs_db_t *db, int nb, int64_t machine_id, cs_coll_t coll,
                         const char *pattern, int comm_size, int ppn, const cs_rule_t *rules,
                         size_t n) {
    int rc = CS_OK;
    bool atomic = false, savepoint = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && (int)coll >= 0 && coll < CS_COLL_COUNT && (rules != NULL || n == 0),
               CS_ERR_ARG);
    CS_REQUIRE(comm_size >= 1 && ppn >= 1 && pattern != NULL && strlen(pattern) < CS_RULE_PATTERN,
               CS_ERR_ARG);
    for (size_t i = 0; i < n; i++) {
        CS_REQUIRE(rule_valid(&rules[i], machine_id, coll, comm_size, ppn) &&
                       strcmp(rules[i].pattern, pattern) == 0,
                   CS_ERR_ARG);
    }
    CS_CHECK(atomic_begin(db, &savepoint));
    atomic = true;
    CS_CHECK(stmt(db, nb ? ST_NB_RULE_DELETE : ST_RULE_DELETE, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, machine_id));
    CS_DB_CHECK(db, bind_text(s, 2, cs_coll_name(coll)));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 3, comm_size));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 4, ppn));
    CS_DB_CHECK(db, bind_text(s, 5, pattern));
    CS_DB_CHECK(db, sqlite3_step(s));
    for (size_t i = 0; i < n; i++) {
        CS_CHECK(insert_rule(db, nb ? ST_NB_RULE_INSERT : ST_RULE_INSERT, &rules[i]));
    }
out:
    done(s);
    if (atomic) {
        rc = atomic_end(db, savepoint, rc);
    }
    return rc;
}

int cs_db_replace_pattern_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll,
                                const char *pattern, int comm_size, int ppn, const cs_rule_t *rules,
                                size_t n) {
    return replace_rules(db, 0, machine_id, coll, pattern, comm_size, ppn, rules, n);
}

int cs_db_replace_nb_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll, int comm_size, int ppn,
                           const cs_rule_t *rules, size_t n) {
    return cs_db_replace_nb_pattern_rules(db, machine_id, coll, "", comm_size, ppn, rules, n);
}

int cs_db_replace_nb_pattern_rules(cs_db_t *db, int64_t machine_id, cs_coll_t coll,
                                   const char *pattern, int comm_size, int ppn,
                                   const cs_rule_t *rules, size_t n) {
    return replace_rules(db, 1, machine_id, coll, pattern, comm_size, ppn, rules, n);
}

/* Column i as an int, or `bad` when it holds a value no int holds (the schema's checks keep
 * such values out, but anyone may write the file). */
static int column_int_or(sqlite3_stmt *s, int i, int bad) {
    sqlite3_int64 v = sqlite3_column_int64(s, i);
    return v >= INT_MIN && v <= INT_MAX ? (int)v : bad;
}

/* Reads the rule row of `s` into *r; false (logged) when a cs_rule_t cannot hold it. */
static bool column_rule(sqlite3_stmt *s, int64_t machine_id, cs_rule_t *r) {
    const char *coll = column_text(s, 0);
    const char *algorithm = column_text(s, 6), *params = column_text(s, 7);
    const char *pattern = column_text(s, 12);
    memset(r, 0, sizeof(*r));
    if (cs_coll_from_name(coll, &r->coll) != CS_OK) {
        cs_log(CS_LOG_DEBUG, "rule of unknown collective '%s' skipped", coll ? coll : "NULL");
        return false;
    }
    if (cs_rule_set_variant(r, algorithm, params) != CS_OK) {
        cs_log(CS_LOG_DEBUG, "rule '%s(%s)' skipped: names too long or NULL",
               algorithm ? algorithm : "NULL", params ? params : "NULL");
        return false;
    }
    r->machine_id = machine_id;
    /* out of range: 0, which the selector's check skips (selector/select.h) */
    r->comm_size = column_int_or(s, 1, 0);
    r->ppn = column_int_or(s, 2, 0);
    r->lo_bytes = (uint64_t)sqlite3_column_int64(s, 3);
    r->hi_bytes = sqlite3_column_type(s, 4) == SQLITE_NULL ? CS_RULE_UNBOUNDED
                                                           : (uint64_t)sqlite3_column_int64(s, 4);
    r->rank = column_int_or(s, 5, 0);
    r->median_us = column_real(s, 8);
    r->native_us = column_real(s, 9);
    r->p_value = column_real(s, 10);
    r->run_id = sqlite3_column_int64(s, 11);
    if (pattern == NULL ||
        snprintf(r->pattern, sizeof(r->pattern), "%s", pattern) >= (int)sizeof(r->pattern)) {
        cs_log(CS_LOG_DEBUG, "rule of pattern '%s' skipped: name too long or NULL",
               pattern ? pattern : "NULL");
        return false;
    }
    r->setup_us = column_real(s, 13); /* NaN: none */
    if (!(r->setup_us > 0)) {
        r->setup_us = 0;
    }
    return true;
}

/* cs_db_foreach_rule over statement `st` (ST_RULE_BY_MACHINE or ST_NB_RULE_BY_MACHINE). */
static int foreach_rule(cs_db_t *db, enum stmt st, int64_t machine_id, cs_db_rule_fn fn,
                        void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    cs_rule_t r;
    CS_REQUIRE(db != NULL && fn != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, st, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, machine_id));
    while (!stop) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        if (column_rule(s, machine_id, &r)) {
            CS_CHECK(call_back(fn(&r, ctx), &stop));
        }
    }
out:
    done(s);
    return rc;
}

int cs_db_foreach_rule(cs_db_t *db, int64_t machine_id, cs_db_rule_fn fn, void *ctx) {
    return foreach_rule(db, ST_RULE_BY_MACHINE, machine_id, fn, ctx);
}

int cs_db_foreach_nb_rule(cs_db_t *db, int64_t machine_id, cs_db_rule_fn fn, void *ctx) {
    return foreach_rule(db, ST_NB_RULE_BY_MACHINE, machine_id, fn, ctx);
}

/* --- overlap ------------------------------------------------------------------------------- */

int cs_db_insert_overlap(cs_db_t *db, int64_t run_id, const cs_db_overlap_t *o) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && o != NULL && point_valid(&o->point) && o->reps >= 1 &&
                   o->compute_us >= 0 && o->freed >= 0 && o->freed <= 1 &&
                   (o->samples_us != NULL || o->nsamples == 0),
               CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_OVERLAP_INSERT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    CS_DB_CHECK(db, bind_point(s, 2, &o->point));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 9, o->reps));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 10, o->compute_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 11, o->blocking_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 12, o->nooverlap_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 13, o->overlap_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 14, o->overhead_us));
    CS_DB_CHECK(db, bind_real(s, 15, o->overhead_q1_us));
    CS_DB_CHECK(db, bind_real(s, 16, o->overhead_q3_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 17, o->freed));
    if (o->nsamples > 0) {
        CS_CHECK(encode_samples(db, o->samples_us, o->nsamples, 0));
        CS_DB_CHECK(db, sqlite3_bind_blob64(s, 18, db->blob, (sqlite3_uint64)(o->nsamples * 8),
                                            SQLITE_STATIC));
    } else {
        CS_DB_CHECK(db, sqlite3_bind_null(s, 18));
    }
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

int cs_db_overlap_exists(cs_db_t *db, int64_t run_id, const cs_db_point_t *p, bool *exists) {
    return measurement_exists(db, ST_OVERLAP_EXISTS, run_id, p, 0, exists);
}

int cs_db_foreach_overlap(cs_db_t *db, int64_t run_id, cs_db_overlap_fn fn, void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && fn != NULL && run_id >= 0, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_OVERLAP_BY_RUN, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    while (!stop) {
        cs_db_overlap_t o;
        size_t n = 0;
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        memset(&o, 0, sizeof(o));
        column_point(s, 0, &o.point);
        o.reps = sqlite3_column_int(s, 7);
        o.compute_us = column_real(s, 8);
        o.blocking_us = column_real(s, 9);
        o.nooverlap_us = column_real(s, 10);
        o.overlap_us = column_real(s, 11);
        o.overhead_us = column_real(s, 12);
        o.overhead_q1_us = column_real(s, 13);
        o.overhead_q3_us = column_real(s, 14);
        o.freed = column_real(s, 15);
        if (sqlite3_column_type(s, 16) == SQLITE_BLOB) {
            CS_CHECK(decode_samples(db, "samples_us", sqlite3_column_blob(s, 16),
                                    (size_t)sqlite3_column_bytes(s, 16), &db->samples,
                                    &db->samples_cap, &n));
            o.samples_us = db->samples;
            o.nsamples = n;
        }
        CS_CHECK(call_back(fn(&o, ctx), &stop));
    }
out:
    done(s);
    return rc;
}

/* --- validation ---------------------------------------------------------------------------- */

int cs_db_insert_validation(cs_db_t *db, const cs_db_validation_t *v) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && v != NULL && v->coll != NULL && v->coll[0] != '\0', CS_ERR_ARG);
    CS_REQUIRE(v->comm_size >= 1 && v->ppn >= 1 && v->bytes <= (uint64_t)INT64_MAX, CS_ERR_ARG);
    CS_REQUIRE(!isnan(v->native_us) && !isnan(v->selected_us) && !isnan(v->oracle_us), CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_VALIDATION_INSERT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, v->run_id));
    CS_DB_CHECK(db, bind_text(s, 2, v->coll));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 3, v->comm_size));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 4, v->ppn));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 5, (sqlite3_int64)v->bytes));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 6, v->native_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 7, v->selected_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 8, v->oracle_us));
    CS_DB_CHECK(db, bind_text(s, 9, v->selected_algorithm));
    CS_DB_CHECK(db, bind_text(s, 10, v->selected_params));
    CS_DB_CHECK(db, bind_text(s, 11, v->oracle_algorithm));
    CS_DB_CHECK(db, bind_text(s, 12, v->oracle_params));
    CS_DB_CHECK(db, bind_real(s, 13, v->native_loop_us));
    CS_DB_CHECK(db, bind_real(s, 14, v->selected_loop_us));
    CS_DB_CHECK(db, bind_real(s, 15, v->oracle_loop_us));
    CS_DB_CHECK(db, bind_real(s, 16, v->native2_us));
    CS_DB_CHECK(db, bind_real(s, 17, v->native2_loop_us));
    CS_DB_CHECK(db, bind_text(s, 18, v->pattern != NULL ? v->pattern : ""));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

int cs_db_foreach_validation(cs_db_t *db, int64_t run_id, cs_db_validation_fn fn, void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && fn != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_VALIDATION_BY_RUN, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    while (!stop) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        cs_db_validation_t v = {
            .run_id = run_id,
            .coll = column_text(s, 0),
            .comm_size = sqlite3_column_int(s, 1),
            .ppn = sqlite3_column_int(s, 2),
            .bytes = (uint64_t)sqlite3_column_int64(s, 3),
            .native_us = column_real(s, 4),
            .selected_us = column_real(s, 5),
            .oracle_us = column_real(s, 6),
            .selected_algorithm = column_text(s, 7),
            .selected_params = column_text(s, 8),
            .oracle_algorithm = column_text(s, 9),
            .oracle_params = column_text(s, 10),
            .native_loop_us = column_real(s, 11),
            .selected_loop_us = column_real(s, 12),
            .oracle_loop_us = column_real(s, 13),
            .native2_us = column_real(s, 14),
            .native2_loop_us = column_real(s, 15),
            .pattern = column_text(s, 16),
        };
        CS_CHECK(call_back(fn(&v, ctx), &stop));
    }
out:
    done(s);
    return rc;
}

/* --- core-to-core state ------------------------------------------------------------------- */

int cs_db_put_core_state(cs_db_t *db, int64_t run_id, const cs_db_core_state_t *c) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && c != NULL && run_id > 0 && c->round >= 0 && c->coll != NULL &&
                   c->comm_size >= 1 && c->ppn >= 1 && c->bytes <= INT64_MAX &&
                   isfinite(c->rtt_ns) && c->rtt_ns > 0,
               CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_CORE_STATE_INSERT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 2, c->round));
    CS_DB_CHECK(db, bind_text(s, 3, c->coll));
    CS_DB_CHECK(db, bind_text(s, 4, c->pattern != NULL ? c->pattern : ""));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 5, c->comm_size));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 6, c->ppn));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 7, (int64_t)c->bytes));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 8, c->rtt_ns));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

int cs_db_foreach_core_state(cs_db_t *db, int64_t run_id, cs_db_core_state_fn fn, void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && fn != NULL && run_id >= 0, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_CORE_STATE_BY_RUN, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    while (!stop) {
        cs_db_core_state_t c;
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        c.round = sqlite3_column_int(s, 0);
        c.coll = (const char *)sqlite3_column_text(s, 1);
        c.pattern = (const char *)sqlite3_column_text(s, 2);
        c.comm_size = sqlite3_column_int(s, 3);
        c.ppn = sqlite3_column_int(s, 4);
        c.bytes = (uint64_t)sqlite3_column_int64(s, 5);
        c.rtt_ns = sqlite3_column_double(s, 6);
        CS_CHECK(call_back(fn(&c, ctx), &stop));
    }
out:
    done(s);
    return rc;
}

/* --- counting ------------------------------------------------------------------------------ */

int cs_db_count_rows(cs_db_t *db, const char *table, int64_t run_id, int64_t *count) {
    int rc = CS_OK;
    CS_REQUIRE(db != NULL && table != NULL && count != NULL && run_id >= 0, CS_ERR_ARG);
    rc = CS_ERR_ARG;
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        if (strcmp(table, tables[i].name) == 0) {
            rc = query_int64(db, tables[i].count, true, run_id, count);
        }
    }
    CS_CHECK(rc);
out:
    return rc;
}

/* --- LogGP ------------------------------------------------------------------------------------ */

static bool loggp_valid(const cs_db_loggp_t *l) {
    return l->machine_id > 0 && l->ppn >= 1 && isfinite(l->l_us) && l->l_us >= 0 &&
           isfinite(l->o_us) && l->o_us > 0 && isfinite(l->g_us) && l->g_us >= 0 &&
           isfinite(l->g_per_byte_us) && l->g_per_byte_us >= 0;
}

int cs_db_put_loggp(cs_db_t *db, const cs_db_loggp_t *l) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && l != NULL && loggp_valid(l), CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_LOGGP_PUT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, l->machine_id));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 2, l->ppn));
    CS_DB_CHECK(db, bind_id(s, 3, l->run_id));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 4, l->l_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 5, l->o_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 6, l->g_us));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 7, l->g_per_byte_us));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

int cs_db_get_loggp(cs_db_t *db, int64_t machine_id, int ppn, cs_db_loggp_t *l, bool *found) {
    int rc = CS_OK, src;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && l != NULL && found != NULL && machine_id > 0 && ppn >= 1, CS_ERR_ARG);
    *found = false;
    CS_CHECK(stmt(db, ST_LOGGP_NEAREST, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, machine_id));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 2, ppn));
    CS_DB_CHECK(db, src = sqlite3_step(s));
    if (src == SQLITE_ROW) {
        l->machine_id = machine_id;
        l->ppn = sqlite3_column_int(s, 0);
        l->run_id = sqlite3_column_int64(s, 1);
        l->l_us = sqlite3_column_double(s, 2);
        l->o_us = sqlite3_column_double(s, 3);
        l->g_us = sqlite3_column_double(s, 4);
        l->g_per_byte_us = sqlite3_column_double(s, 5);
        *found = true;
    }
out:
    done(s);
    return rc;
}

/* --- patterns ----------------------------------------------------------------------------- */

static bool pattern_valid(const cs_db_pattern_t *t) {
    return t->machine_id > 0 && t->name != NULL && t->name[0] != '\0' &&
           strlen(t->name) < CS_RULE_PATTERN && t->p >= 1 && t->nedges >= 0 && t->max_out >= 0 &&
           t->max_in >= 0 && isfinite(t->mean_out) && t->mean_out >= 0 && isfinite(t->imbalance) &&
           t->imbalance >= 0 && t->iso_d >= 0 &&
           (t->iso_d == 0 || (t->iso_s >= 1 && t->iso_offsets != NULL));
}

/* Column offsets of t (schema.sql: '-1,0;1,0'), malloc'ed into *text; NULL when t is not
 * isomorphic. */
static int format_offsets(const cs_db_pattern_t *t, char **text) {
    size_t len = 0, cap;
    *text = NULL;
    if (t->iso_d == 0) {
        return CS_OK;
    }
    cap = (size_t)t->iso_s * (size_t)t->iso_d * 12 + 1;
    *text = malloc(cap);
    if (*text == NULL) {
        return CS_ERR_NOMEM;
    }
    for (long k = 0; k < (long)t->iso_s * t->iso_d; k++) {
        const char *sep = k == 0 ? "" : k % t->iso_d == 0 ? ";" : ",";
        len += (size_t)snprintf(*text + len, cap - len, "%s%d", sep, t->iso_offsets[k]);
    }
    return CS_OK;
}

/* Parses column offsets `text` into t (iso_d, iso_s and *buf, malloc'ed, as iso_offsets).
 * NULL or unreadable text: t stays not isomorphic. CS_ERR_NOMEM. */
static int parse_offsets(const char *text, cs_db_pattern_t *t, int **buf) {
    int d = 1, n = 1, at = 0, vectors = 1;
    *buf = NULL;
    if (text == NULL || text[0] == '\0') {
        return CS_OK;
    }
    for (const char *c = text; *c != '\0'; c++) { /* n numbers, d of them before the first ';' */
        vectors += *c == ';';
        d += *c == ',' && vectors == 1;
        n += *c == ',' || *c == ';';
    }
    if (n % d != 0 || (*buf = malloc((size_t)n * sizeof(int))) == NULL) {
        return n % d != 0 ? CS_OK : CS_ERR_NOMEM;
    }
    for (const char *c = text; at < n; at++) {
        char *end;
        long v = strtol(c, &end, 10);
        char want = at == n - 1 ? '\0' : (at + 1) % d == 0 ? ';' : ',';
        if (end == c || *end != want || v < INT_MIN || v > INT_MAX) {
            free(*buf);
            *buf = NULL;
            return CS_OK;
        }
        (*buf)[at] = (int)v;
        c = end + (*end != '\0');
    }
    t->iso_d = d;
    t->iso_s = n / d;
    t->iso_offsets = *buf;
    return CS_OK;
}

int cs_db_put_pattern(cs_db_t *db, const cs_db_pattern_t *t) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    char *offsets = NULL;
    CS_REQUIRE(db != NULL && t != NULL && pattern_valid(t), CS_ERR_ARG);
    CS_CHECK(format_offsets(t, &offsets));
    CS_CHECK(stmt(db, ST_PATTERN_PUT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, t->machine_id));
    CS_DB_CHECK(db, bind_text(s, 2, t->name));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 3, t->p));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 4, t->nedges));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 5, t->max_out));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 6, t->max_in));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 7, t->mean_out));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 8, t->imbalance));
    CS_DB_CHECK(db, offsets != NULL ? bind_text(s, 9, offsets) : sqlite3_bind_null(s, 9));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    free(offsets);
    return rc;
}

int cs_db_foreach_pattern(cs_db_t *db, int64_t machine_id, cs_db_pattern_fn fn, void *ctx) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    bool stop = false;
    sqlite3_stmt *s = NULL;
    int *offsets = NULL;
    CS_REQUIRE(db != NULL && fn != NULL, CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_PATTERN_BY_MACHINE, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, machine_id));
    while (!stop) {
        CS_DB_CHECK(db, step = sqlite3_step(s));
        if (step != SQLITE_ROW) {
            break;
        }
        cs_db_pattern_t t = {
            .machine_id = machine_id,
            .name = column_text(s, 0),
            .p = column_int_or(s, 1, -1),
            .nedges = column_int_or(s, 2, -1),
            .max_out = column_int_or(s, 3, -1),
            .max_in = column_int_or(s, 4, -1),
            .mean_out = column_real(s, 5),
            .imbalance = column_real(s, 6),
        };
        /* what cs_db_put_pattern would not store (a hostile or broken writer's) is skipped;
         * the offsets are read after (t has none yet) */
        if (!pattern_valid(&t)) {
            cs_log(CS_LOG_DEBUG, "pattern '%s' skipped: a value out of range or NULL",
                   t.name != NULL ? t.name : "NULL");
            continue;
        }
        CS_CHECK(parse_offsets((const char *)sqlite3_column_text(s, 7), &t, &offsets));
        CS_CHECK(call_back(fn(&t, ctx), &stop));
        free(offsets);
        offsets = NULL;
    }
out:
    free(offsets);
    done(s);
    return rc;
}

int cs_db_put_setup(cs_db_t *db, int64_t run_id, cs_coll_t coll, const char *pattern,
                    const char *algorithm, const char *params, int comm_size, int ppn,
                    double setup_us) {
    int rc = CS_OK;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && run_id > 0 && (int)coll >= 0 && coll < CS_COLL_COUNT &&
                   pattern != NULL && algorithm != NULL && params != NULL && comm_size >= 1 &&
                   ppn >= 1 && isfinite(setup_us) && setup_us >= 0,
               CS_ERR_ARG);
    CS_CHECK(stmt(db, ST_SETUP_PUT, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, run_id));
    CS_DB_CHECK(db, bind_text(s, 2, cs_coll_name(coll)));
    CS_DB_CHECK(db, bind_text(s, 3, algorithm));
    CS_DB_CHECK(db, bind_text(s, 4, params));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 5, comm_size));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 6, ppn));
    CS_DB_CHECK(db, sqlite3_bind_double(s, 7, setup_us));
    CS_DB_CHECK(db, bind_text(s, 8, pattern));
    CS_DB_CHECK(db, sqlite3_step(s));
out:
    done(s);
    return rc;
}

int cs_db_get_setup(cs_db_t *db, int64_t machine_id, const char *pattern, const char *algorithm,
                    const char *params, int comm_size, int ppn, double *setup_us) {
    int rc = CS_OK;
    int step = SQLITE_DONE;
    sqlite3_stmt *s = NULL;
    CS_REQUIRE(db != NULL && pattern != NULL && algorithm != NULL && params != NULL &&
                   setup_us != NULL,
               CS_ERR_ARG);
    *setup_us = 0;
    CS_CHECK(stmt(db, ST_SETUP_GET, &s));
    CS_DB_CHECK(db, sqlite3_bind_int64(s, 1, machine_id));
    CS_DB_CHECK(db, bind_text(s, 2, algorithm));
    CS_DB_CHECK(db, bind_text(s, 3, params));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 4, comm_size));
    CS_DB_CHECK(db, sqlite3_bind_int(s, 5, ppn));
    CS_DB_CHECK(db, bind_text(s, 6, pattern));
    CS_DB_CHECK(db, step = sqlite3_step(s));
    if (step == SQLITE_ROW) {
        *setup_us = sqlite3_column_double(s, 0);
    }
out:
    done(s);
    return rc;
}

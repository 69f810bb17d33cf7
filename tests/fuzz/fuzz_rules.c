/* Fuzz target: the rules path, fed by a crafted database. The input decodes into rule rows
 * (collective, communicator size, ppn, interval, rank, algorithm, parameters, pattern, times:
 * NaN, infinities, huge, negative and raw values all reachable) and a few pattern signatures.
 * The rows go two ways:
 *   - straight to cs_sel_rules_check, as a loader would hand them over;
 *   - into a database with the real schema (created by cs_db_open), written with raw SQL that
 *     skips the schema's CHECK constraints and stores numbers as integers, reals or text as
 *     the input says, then read back by the selector's loader (cs_sel_rules_read).
 * Each kept table is then pruned for a few communicator shapes (cs_sel_prune,
 * cs_sel_prune_neighbors) and looked up (cs_sel_lookup). Checked: nothing crashes, leaks or
 * hangs; the kept rules are well formed (checking them again skips nothing); the intervals are
 * sorted, disjoint and non-empty, each with 1..CS_SEL_MAX_CANDS candidates of its collective
 * ending with native; a lookup finds exactly the interval holding the size. */
#include "db.h"
#include "fuzz_input.h"
#include "registry.h"
#include "select_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ROWS 192
#define MAX_PATS 4

static char path[64];
static cs_db_t *db;        /* the loader's read-only handle */
static sqlite3 *raw;       /* the crafting connection */
static sqlite3_stmt *ins;  /* INSERT INTO rule */
static int64_t machine_id; /* the one machine */

static void close_db(void) {
    sqlite3_finalize(ins);
    sqlite3_close(raw);
    cs_db_close(db);
}

static void need(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_rules: %s\n", what);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char why[512];
    cs_db_t *w = NULL;
    cs_db_machine_t m = {"fuzzhost", "packages=1 numa=1 cores=2 pus=2", "fuzz mpi"};
    int fd;
    (void)argc;
    (void)argv;
    snprintf(path, sizeof(path), "/tmp/collsel-fuzz-rules-XXXXXX");
    fd = mkstemp(path);
    need(fd >= 0, "mkstemp");
    close(fd);
    unlink(path); /* cs_db_open creates it with the schema */
    need(cs_db_open(path, CS_DB_READ_WRITE, &w, why, sizeof(why)) == CS_OK, why);
    need(cs_db_find_or_insert_machine(w, &m, &machine_id) == CS_OK, "machine");
    cs_db_close(w);
    atexit(close_db);
    /* The file keeps the collsel schema version, but its rule table loses every NOT NULL and
     * CHECK (same columns, same UNIQUE key and so the same index): what a hostile or broken
     * writer could leave. */
    need(sqlite3_open(path, &raw) == SQLITE_OK, "sqlite3_open");
    need(sqlite3_exec(raw,
                      "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE "
                      "rule (machine_id INTEGER, coll TEXT, pattern TEXT DEFAULT '''', "
                      "comm_size INTEGER, ppn INTEGER, lo_bytes INTEGER, hi_bytes INTEGER, rank "
                      "INTEGER, algorithm TEXT, params TEXT DEFAULT '''', median_us REAL, "
                      "native_us REAL, p_value REAL, run_id INTEGER, setup_us REAL, UNIQUE "
                      "(machine_id, coll, "
                      "pattern, comm_size, ppn, lo_bytes, rank))' WHERE type = 'table' AND name = "
                      "'rule'; PRAGMA writable_schema = OFF",
                      NULL, NULL, NULL) == SQLITE_OK,
         sqlite3_errmsg(raw));
    sqlite3_close(raw);
    need(sqlite3_open(path, &raw) == SQLITE_OK, "sqlite3_open");
    need(sqlite3_exec(raw, "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY", NULL, NULL,
                      NULL) == SQLITE_OK,
         "pragmas");
    need(sqlite3_prepare_v2(raw,
                            "INSERT OR IGNORE INTO rule (machine_id, coll, pattern, comm_size, "
                            "ppn, lo_bytes, hi_bytes, rank, algorithm, params, median_us, "
                            "native_us, p_value, setup_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                            "?9, ?10, ?11, ?12, ?13, ?14)",
                            -1, &ins, NULL) == SQLITE_OK,
         sqlite3_errmsg(raw));
    need(cs_db_open(path, CS_DB_READ_ONLY, &db, why, sizeof(why)) == CS_OK, why);
    /* both connections keep the file; nothing is left behind however the fuzzer ends (it
     * does not always run atexit handlers) */
    unlink(path);
    return 0;
}

/* --- decoding ------------------------------------------------------------------------------ */

static int small_int(fz_t *f) {
    uint8_t b = fz_u8(f);
    if (b < 200) {
        return b % 18; /* 0..17: below 1, usual and odd sizes */
    }
    return (int)fz_u32(f);
}

static uint64_t size_value(fz_t *f) {
    static const uint64_t v[] = {0,     1,        4,         16,         64,          1024,
                                 65536, 1u << 20, INT64_MAX, UINT64_MAX, (uint64_t)-5};
    uint8_t b = fz_u8(f) % 12;
    return b < 11 ? v[b] : fz_u64(f);
}

static double time_value(fz_t *f) {
    static const double v[] = {10.0, 1.5, 0.0, -1.0, 1e308, 5e-324};
    uint8_t b = fz_u8(f) % 10;
    if (b < 6) {
        return v[b];
    }
    if (b == 6) {
        return NAN;
    }
    if (b == 7) {
        return INFINITY;
    }
    if (b == 8) {
        return -INFINITY;
    }
    return fz_double(f);
}

static void text_value(fz_t *f, char *out, size_t cap, const char *const *table, int n) {
    uint8_t b = fz_u8(f);
    if (b < 224) {
        snprintf(out, cap, "%s", table[b % n]);
    } else {
        fz_str(f, out, cap, cap + 16); /* may be longer than a rule holds */
    }
}

static const char *const param_texts[] = {"",
                                          "dims=2x2",
                                          "dims=2x4",
                                          "leaders=2",
                                          "segments=4",
                                          "leaders=2,segments=4",
                                          "leaders=0",
                                          "dims=0x0",
                                          "radix=-1",
                                          "bogus=1",
                                          "leaders=",
                                          "dims=99999999999x1",
                                          "dims=2x2,dims=2x2",
                                          "segments=2147483648"};
static const char *const pattern_texts[] = {"", "", "", "", "cart2d", "hotspot", "x"};

/* The texts of one row as the database holds them (possibly longer than a rule holds). */
typedef struct row_text {
    char coll[64];
    char algorithm[CS_RULE_ALGORITHM + 32];
    char params[CS_RULE_PARAMS + 32];
    unsigned as_text, as_real; /* bit i: numeric column i stored as text, as a real */
    unsigned nulls;            /* bit i: column i (see store) stored as NULL */
    int64_t comm_size, ppn;    /* as stored (bit 7 of as_text: beyond an int) */
} row_text_t;

/* One row into *r (names cut to what a rule holds) and *t. */
static void decode_row(fz_t *f, cs_rule_t *r, row_text_t *t) {
    uint8_t c = fz_u8(f), alg = fz_u8(f);
    memset(r, 0, sizeof(*r));
    r->machine_id = machine_id;
    r->coll = (cs_coll_t)(c % (CS_COLL_COUNT + 1)); /* CS_COLL_COUNT: unknown */
    if (r->coll == CS_COLL_COUNT) {
        fz_str(f, t->coll, sizeof(t->coll), 24);
    } else {
        snprintf(t->coll, sizeof(t->coll), "%s", cs_coll_name(r->coll));
    }
    r->comm_size = small_int(f);
    r->ppn = small_int(f);
    r->rank = small_int(f) % 12 - 1;
    r->lo_bytes = size_value(f);
    r->hi_bytes = size_value(f);
    if (alg < 240) {
        snprintf(t->algorithm, sizeof(t->algorithm), "%s",
                 cs_registry[alg % cs_registry_count]->name);
    } else {
        fz_str(f, t->algorithm, sizeof(t->algorithm), sizeof(t->algorithm) - 1);
    }
    text_value(f, t->params, sizeof(t->params), param_texts,
               (int)(sizeof(param_texts) / sizeof(param_texts[0])));
    text_value(f, r->pattern, sizeof(r->pattern), pattern_texts,
               (int)(sizeof(pattern_texts) / sizeof(pattern_texts[0])));
    r->median_us = time_value(f);
    r->native_us = time_value(f);
    r->p_value = time_value(f);
    r->setup_us = time_value(f);
    snprintf(r->algorithm, sizeof(r->algorithm), "%.*s", (int)sizeof(r->algorithm) - 1,
             t->algorithm);
    snprintf(r->params, sizeof(r->params), "%.*s", (int)sizeof(r->params) - 1, t->params);
    t->as_text = fz_u8(f) < 16 ? fz_u8(f) : 0;
    t->as_real = fz_u8(f) < 32 ? fz_u8(f) : 0;
    t->nulls = fz_u8(f) < 8 ? fz_u8(f) : 0;
    t->comm_size = r->comm_size;
    t->ppn = r->ppn;
    if (t->as_text & 0x80) {
        t->comm_size += INT64_C(1) << 32;
        t->ppn -= INT64_C(1) << 32;
    }
}

/* Binds numeric column `col` (statement index) with value v as an integer, real or text. */
static void bind_number(int col, int64_t v, int text, int real) {
    char buf[32];
    if (text) {
        snprintf(buf, sizeof(buf), "%lld x", (long long)v);
        sqlite3_bind_text(ins, col, buf, -1, SQLITE_TRANSIENT);
    } else if (real) {
        sqlite3_bind_double(ins, col, (double)v);
    } else {
        sqlite3_bind_int64(ins, col, v);
    }
}

static void bind_time(int col, double v) {
    sqlite3_bind_double(ins, col, v); /* NaN is stored as NULL by SQLite */
}

static void store(const cs_rule_t *r, const row_text_t *t) {
    unsigned as_text = t->as_text, as_real = t->as_real;
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    sqlite3_bind_int64(ins, 1, machine_id);
    sqlite3_bind_text(ins, 2, t->coll, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, r->pattern, -1, SQLITE_TRANSIENT);
    bind_number(4, t->comm_size, as_text & 1, as_real & 1);
    bind_number(5, t->ppn, as_text & 2, as_real & 2);
    bind_number(6, (int64_t)r->lo_bytes, as_text & 4, as_real & 4);
    if (r->hi_bytes == CS_RULE_UNBOUNDED && !(as_real & 8)) {
        sqlite3_bind_null(ins, 7);
    } else {
        bind_number(7, (int64_t)r->hi_bytes, as_text & 8, as_real & 8);
    }
    bind_number(8, r->rank, as_text & 16, as_real & 16);
    sqlite3_bind_text(ins, 9, t->algorithm, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 10, t->params, -1, SQLITE_TRANSIENT);
    bind_time(11, r->median_us);
    bind_time(12, r->native_us);
    bind_time(13, r->p_value);
    bind_time(14, r->setup_us);
    /* NULLs: coll, pattern, comm_size, lo_bytes, rank, algorithm, params */
    for (int i = 0; i < 7; i++) {
        static const int col[] = {2, 3, 4, 6, 8, 9, 10};
        if (t->nulls >> i & 1) {
            sqlite3_bind_null(ins, col[i]);
        }
    }
    (void)sqlite3_step(ins);
}

/* --- checking ------------------------------------------------------------------------------ */

static void check_kept(cs_rule_t *rules, int n) {
    int again, nbad = -1;
    for (int i = 0; i < n; i++) {
        const cs_rule_t *r = &rules[i];
        const cs_algo_t *a = cs_registry_find(r->algorithm);
        need(a != NULL && a->coll == r->coll && r->comm_size >= 1 && r->ppn >= 1 && r->rank >= 1 &&
                 r->lo_bytes < r->hi_bytes,
             "a kept rule is not well formed");
    }
    again = cs_sel_rules_check(rules, n, CS_SEL_MAX_RULES, &nbad, NULL, 0);
    need(again == n && nbad == 0, "checking the kept rules again skips some");
}

static void check_comm(const cs_sel_comm_t *sc, fz_t *f) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        const cs_sel_interval_t *iv = sc->iv[c];
        uint64_t probe[6];
        need(sc->niv[c] >= 0 && (sc->niv[c] == 0 || iv != NULL), "intervals");
        for (int i = 0; i < sc->niv[c]; i++) {
            need(iv[i].lo < iv[i].hi, "an empty interval");
            need(i == 0 || iv[i - 1].hi <= iv[i].lo, "intervals out of order or overlapping");
            need(iv[i].ncand >= 1 && iv[i].ncand <= CS_SEL_MAX_CANDS, "candidate count");
            need(cs_algo_is_native(iv[i].cand[iv[i].ncand - 1].algo), "native is not last");
            for (int k = 0; k < iv[i].ncand; k++) {
                need(iv[i].cand[k].algo->coll == (cs_coll_t)c, "a candidate of another coll");
            }
        }
        probe[0] = 0;
        probe[1] = UINT64_MAX;
        probe[2] = size_value(f);
        probe[3] = sc->niv[c] > 0 ? iv[0].lo : 7;
        probe[4] = sc->niv[c] > 0 ? iv[sc->niv[c] - 1].hi : 8;
        probe[5] = sc->niv[c] > 0 ? iv[0].hi - 1 : 9;
        for (int p = 0; p < 6; p++) {
            const cs_sel_interval_t *hit = cs_sel_lookup(sc, (cs_coll_t)c, probe[p]);
            const cs_sel_interval_t *want = NULL;
            for (int i = 0; i < sc->niv[c] && want == NULL; i++) {
                if (iv[i].lo <= probe[p] && probe[p] < iv[i].hi) {
                    want = &iv[i];
                }
            }
            need(hit == want, "the lookup misses the interval holding the size");
        }
    }
}

/* Each rule read back is one that was written: same collective, names, communicator size
 * and ppn (numbers beyond an int, NULLs and names too long are skipped, never cut short). */
static void check_written(const cs_rule_t *loaded, int n, const cs_rule_t *rows,
                          const row_text_t *texts, int nrows) {
    for (int i = 0; i < n; i++) {
        const cs_rule_t *r = &loaded[i];
        int found = 0;
        for (int k = 0; k < nrows && !found; k++) {
            const row_text_t *t = &texts[k];
            found = !(t->nulls & 0x23) && strcmp(t->coll, cs_coll_name(r->coll)) == 0 &&
                    strcmp(t->algorithm, r->algorithm) == 0 &&
                    strcmp(t->nulls & 0x40 ? "" : t->params, r->params) == 0 &&
                    strcmp(rows[k].pattern, r->pattern) == 0 && t->comm_size == r->comm_size &&
                    t->ppn == r->ppn;
        }
        if (!found) {
            fprintf(stderr, "read back: %s %d procs %d per node rank %d '%s(%s)' pattern '%s'\n",
                    cs_coll_name(r->coll), r->comm_size, r->ppn, r->rank, r->algorithm, r->params,
                    r->pattern);
        }
        need(found, "a rule read back was not written so");
    }
}

/* Prunes `rules` for a few communicator shapes and checks each. */
static void prune_and_look(const cs_rule_t *rules, int n, const cs_sel_pattern_t *pats, int npats,
                           const cs_graph_sig_t *sig, fz_t *f) {
    for (int t = 0; t < 3; t++) {
        cs_sel_comm_t sc;
        int nprocs = t == 0 ? 4 : small_int(f), ppn = t == 0 ? 4 : small_int(f);
        memset(&sc, 0, sizeof(sc));
        if (nprocs < 1) {
            nprocs = 1;
        }
        need(cs_sel_prune(rules, n, nprocs, ppn, &sc) == CS_OK, "cs_sel_prune");
        need(cs_sel_prune_neighbors(rules, n, pats, npats, t == 2 ? NULL : sig, ppn, &sc) == CS_OK,
             "cs_sel_prune_neighbors");
        check_comm(&sc, f);
        cs_sel_comm_clear(&sc);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_t f = {data, size};
    static cs_rule_t rows[MAX_ROWS], written[MAX_ROWS];
    static row_text_t texts[MAX_ROWS];
    cs_rule_t *loaded = NULL;
    cs_sel_pattern_t pats[MAX_PATS];
    cs_graph_sig_t sig;
    int n = 0, npats, kept, nbad = 0, nloaded = 0;
    char why[512];
    need(sqlite3_exec(raw, "BEGIN; DELETE FROM rule", NULL, NULL, NULL) == SQLITE_OK, "delete");
    npats = fz_u8(&f) % (MAX_PATS + 1);
    memset(pats, 0, sizeof(pats));
    for (int i = 0; i < npats; i++) {
        text_value(&f, pats[i].name, sizeof(pats[i].name), pattern_texts + 4, 3);
        pats[i].sig.p = small_int(&f);
        pats[i].sig.nedges = small_int(&f);
        pats[i].sig.max_out = small_int(&f);
        pats[i].sig.max_in = small_int(&f);
        pats[i].sig.mean_out = time_value(&f);
        pats[i].sig.imbalance = time_value(&f);
    }
    sig.p = small_int(&f);
    sig.nedges = small_int(&f);
    sig.max_out = small_int(&f);
    sig.max_in = small_int(&f);
    sig.mean_out = time_value(&f);
    sig.imbalance = time_value(&f);
    while (fz_left(&f) && n < MAX_ROWS) {
        decode_row(&f, &rows[n], &texts[n]);
        store(&rows[n], &texts[n]);
        written[n] = rows[n];
        n++;
    }
    need(sqlite3_exec(raw, "COMMIT", NULL, NULL, NULL) == SQLITE_OK, "commit");

    /* straight to the check */
    kept = cs_sel_rules_check(rows, n, CS_SEL_MAX_RULES, &nbad, why, sizeof(why));
    need(kept >= 0 && kept <= n && kept + nbad == n, "kept + skipped != rows");
    need(nbad == 0 || why[0] != '\0', "rows skipped without a word");
    check_kept(rows, kept);
    prune_and_look(rows, kept, pats, npats, &sig, &f);

    /* through the database */
    need(cs_sel_rules_read(db, machine_id, &loaded, &nloaded, &nbad, why, sizeof(why)) == CS_OK,
         "cs_sel_rules_read");
    need(nloaded <= n, "more rules read than written");
    check_written(loaded, nloaded, written, texts, n);
    check_kept(loaded, nloaded);
    prune_and_look(loaded, nloaded, pats, npats, &sig, &f);
    free(loaded);
    return 0;
}

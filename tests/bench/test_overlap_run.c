/* cs_overlap_run_test: tuning for overlap end to end (docs/nonblocking.md "Tuning for overlap").
 *
 *   mpirun -np N cs_overlap_run_test run DB      (N >= 2)
 *     A short collsel-bench run (--colls allreduce --sizes 8,64K, the overlap pass on, as by
 *     default) with a deliberately wrong test-only algorithm besides the registered ones
 *     (allreduce/test_copy_only: every rank's output is its own input). Rank 0 then checks
 *     the database: per size an overlap row of native (the MPI library's MPI_Iallreduce) and of
 *     at least one collsel candidate, none of the wrong algorithm, each row consistent
 *     (1 <= reps <= CS_BENCH_OVERLAP_MAX_REPS, one sample per repetition, compute > 0, the
 *     overhead positive and at most the overlapped time, freed equal to its definition from
 *     the stored medians), nonblocking rules of allreduce at N processes whose rank-1 intervals
 *     cover [0, inf) with native ending every list, and blocking rules beside them. Finally it
 *     replaces allreduce's rules at N processes with crafted ones that differ: blocking
 *     allreduce/linear, nonblocking allreduce/recursive_doubling, for every size.
 *
 *   mpirun -np N cs_overlap_run_test select DB   (COLLSEL_DB=DB, COLLSEL_VERBOSE=3)
 *     A blocking collsel_allreduce of 64 bytes, then collsel_iallreduce and
 *     collsel_allreduce_init (started twice) of 64 bytes, all with correct sums; collsel_explain
 *     names allreduce/linear for blocking calls and the nonblocking rule with
 *     allreduce/recursive_doubling first for nonblocking ones. tests/bench/CMakeLists.txt greps
 *     the log for what each call ran ("iallreduce 64 bytes: allreduce/recursive_doubling
 *     (nonblocking rule)").
 *
 *   mpirun -np N cs_overlap_run_test select-blocking DB
 *     The same calls on a database without nonblocking rules: collsel_explain names none (the
 *     log then shows the nonblocking calls following the blocking rule).
 *
 * Rank 0 prints each failed check and "N passed, N failed"; every rank exits 1 when one failed. */
#include "collsel.h"
#include "core/algo.h"
#include "db.h"
#include "overlap.h"
#include "registry.h"
#include "tune.h"

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Every rank's output is its own input. */
static int build_copy_only(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    return cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send,
                         cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv);
}

static const cs_algo_t wrong_allreduce = {
    .name = "allreduce/test_copy_only",
    .coll = CS_COLL_ALLREDUCE,
    .desc = "test only: copies the input to the output (wrong for p > 1)",
    .build = build_copy_only,
};
static const cs_algo_t *const extra[] = {&wrong_allreduce};

/* --- run: the overlap rows and nonblocking rules -----------------------------------------------
 */

typedef struct seen {
    int native[2], others[2]; /* per size (8, 64K): rows of native, of other candidates */
    int nprocs;
} seen_t;

static int check_row(const cs_db_overlap_t *o, void *ctx) {
    seen_t *s = ctx;
    int si = o->point.bytes == 8 ? 0 : o->point.bytes == 65536 ? 1 : -1;
    int native = strcmp(o->point.algorithm, "allreduce/native") == 0;
    double freed = (o->nooverlap_us - o->overhead_us) / o->nooverlap_us;
    freed = freed < 0 ? 0 : freed > 1 ? 1 : freed;
    check(strcmp(o->point.coll, "allreduce") == 0, "overlap row of %s", o->point.coll);
    check(si >= 0, "overlap row at %llu bytes (want 8 and 65536 only)",
          (unsigned long long)o->point.bytes);
    check(strstr(o->point.algorithm, "test_") == NULL, "overlap row of the wrong algorithm %s",
          o->point.algorithm);
    check(o->point.comm_size == s->nprocs, "%s: comm_size %d", o->point.algorithm,
          o->point.comm_size);
    check(o->reps >= 1 && o->reps <= CS_BENCH_OVERLAP_MAX_REPS && o->nsamples == (size_t)o->reps,
          "%s %llu B: %d reps, %zu samples", o->point.algorithm, (unsigned long long)o->point.bytes,
          o->reps, o->nsamples);
    check(o->compute_us > 0 && o->blocking_us > 0 && o->nooverlap_us > 0,
          "%s %llu B: compute %g, blocking %g, no overlap %g us", o->point.algorithm,
          (unsigned long long)o->point.bytes, o->compute_us, o->blocking_us, o->nooverlap_us);
    check(o->overhead_us > 0 && o->overhead_us <= o->overlap_us,
          "%s %llu B: overhead %g us, overlapped %g us", o->point.algorithm,
          (unsigned long long)o->point.bytes, o->overhead_us, o->overlap_us);
    check(fabs(o->freed - freed) < 1e-9,
          "%s %llu B: freed %g, (no overlap - overhead) / "
          "no overlap clamped is %g",
          o->point.algorithm, (unsigned long long)o->point.bytes, o->freed, freed);
    if (si >= 0) {
        s->native[si] += native;
        s->others[si] += !native;
    }
    return CS_OK;
}

typedef struct rules_seen {
    uint64_t next_lo; /* where the next rank-1 interval must start */
    int intervals, bad, last_native;
    int nprocs;
} rules_seen_t;

static int check_nb_rule(const cs_rule_t *r, void *ctx) {
    rules_seen_t *s = ctx;
    int native = strcmp(r->algorithm, "allreduce/native") == 0;
    if (r->coll != CS_COLL_ALLREDUCE || r->comm_size != s->nprocs) {
        s->bad++;
        return CS_OK;
    }
    if (r->rank == 1) {
        if (s->intervals > 0 && !s->last_native) {
            s->bad++; /* the interval before did not end with native */
        }
        s->bad += r->lo_bytes != s->next_lo;
        s->next_lo = r->hi_bytes;
        s->intervals++;
    }
    s->last_native = native;
    return CS_OK;
}

/* Replaces allreduce's rules at nprocs (ppn as stored) with one interval each: blocking
 * `blocking`, nonblocking `nb`, then native. */
static int craft_rules(cs_db_t *db, int64_t machine_id, int nprocs, int ppn, const char *blocking,
                       const char *nb) {
    int rc = CS_OK;
    cs_rule_t r[2];
    const char *first[2] = {blocking, nb};
    for (int k = 0; k < 2 && rc == CS_OK; k++) {
        memset(r, 0, sizeof(r));
        for (int i = 0; i < 2; i++) {
            r[i].machine_id = machine_id;
            r[i].coll = CS_COLL_ALLREDUCE;
            r[i].comm_size = nprocs;
            r[i].ppn = ppn;
            r[i].rank = i + 1;
            r[i].lo_bytes = 0;
            r[i].hi_bytes = CS_RULE_UNBOUNDED;
            r[i].median_us = i == 0 ? 1.0 : 2.0;
            r[i].native_us = 2.0;
            r[i].p_value = i == 0 ? 0.001 : NAN;
            rc = rc == CS_OK
                     ? cs_rule_set_variant(&r[i], i == 0 ? first[k] : "allreduce/native", "")
                     : rc;
        }
        if (rc == CS_OK) {
            rc = k == 0
                     ? cs_db_replace_rules(db, machine_id, CS_COLL_ALLREDUCE, nprocs, ppn, r, 2)
                     : cs_db_replace_nb_rules(db, machine_id, CS_COLL_ALLREDUCE, nprocs, ppn, r, 2);
        }
    }
    return rc;
}

static int find_ppn(const cs_db_overlap_t *o, void *ctx) {
    *(int *)ctx = o->point.ppn;
    return 1;
}

static void check_run_db(const char *path, int nprocs) {
    char why[512] = "";
    cs_db_t *db = NULL;
    cs_db_machine_t any = {NULL, NULL, NULL};
    int64_t machine_id = 0, nrules = 0;
    seen_t s = {{0, 0}, {0, 0}, nprocs};
    rules_seen_t rs = {0, 0, 0, 0, nprocs};
    int ppn = 0;
    if (cs_db_open(path, CS_DB_READ_WRITE, &db, why, sizeof(why)) != CS_OK) {
        check(0, "cannot open %s: %s", path, why);
        return;
    }
    check(cs_db_find_machine(db, &any, &machine_id) == CS_OK, "no machine with rules");
    check(cs_db_foreach_overlap(db, 0, check_row, &s) == CS_OK, "reading overlap: %s",
          cs_db_errmsg(db));
    for (int si = 0; si < 2; si++) {
        check(s.native[si] == 1, "size %d: %d native overlap rows, want 1", si, s.native[si]);
        check(s.others[si] >= 1, "size %d: no collsel candidate measured for overlap", si);
    }
    check(cs_db_foreach_nb_rule(db, machine_id, check_nb_rule, &rs) == CS_OK, "reading nb_rule: %s",
          cs_db_errmsg(db));
    check(rs.intervals >= 1 && rs.bad == 0 && rs.last_native && rs.next_lo == CS_RULE_UNBOUNDED,
          "nonblocking rules: %d intervals, %d bad rows, ends with native %d, last hi %llu",
          rs.intervals, rs.bad, rs.last_native, (unsigned long long)rs.next_lo);
    check(cs_db_count_rows(db, "rule", 0, &nrules) == CS_OK && nrules > 0,
          "no blocking rules beside the nonblocking ones");
    check(cs_db_foreach_overlap(db, 0, find_ppn, &ppn) == CS_OK && ppn >= 1, "no ppn");
    check(craft_rules(db, machine_id, nprocs, ppn, "allreduce/linear",
                      "allreduce/recursive_doubling") == CS_OK,
          "crafting the rules: %s", cs_db_errmsg(db));
    cs_db_close(db);
}

/* --- select: the crafted rules in use --------------------------------------------------------- */

static void check_sum(const int *out, int nprocs, const char *what) {
    int ok = 1;
    for (int i = 0; i < 16; i++) {
        ok &= out[i] == nprocs * (nprocs - 1) / 2 + nprocs * i;
    }
    check(ok, "%s: wrong sum", what);
}

/* The calls of the select modes; `nb`: the database has the crafted nonblocking rule. */
static void run_select(int rank, int nprocs, int nb_rules) {
    int in[16], out[16];
    char text[4096] = "";
    const char *nb;
    MPI_Request req = MPI_REQUEST_NULL;
    for (int i = 0; i < 16; i++) {
        in[i] = rank + i;
    }
    check(collsel_allreduce(in, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "collsel_allreduce failed");
    check_sum(out, nprocs, "blocking");
    memset(out, 0, sizeof(out));
    check(collsel_iallreduce(in, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) == MPI_SUCCESS &&
              collsel_wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "collsel_iallreduce failed");
    check_sum(out, nprocs, "nonblocking");
    check(collsel_allreduce_init(in, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &req) == MPI_SUCCESS,
          "collsel_allreduce_init failed");
    for (int k = 0; k < 2; k++) {
        memset(out, 0, sizeof(out));
        check(collsel_start(&req) == MPI_SUCCESS &&
                  collsel_wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "persistent allreduce start %d failed", k);
        check_sum(out, nprocs, "persistent");
    }
    check(collsel_request_free(&req) == MPI_SUCCESS, "freeing the persistent request");
    check(collsel_explain("allreduce", 64, MPI_COMM_WORLD, text, sizeof(text)) == MPI_SUCCESS,
          "collsel_explain failed");
    nb = strstr(text, "nonblocking and persistent calls: nonblocking rule");
    check(strncmp(text, "allreduce/linear:", 17) == 0, "blocking choice: %s", text);
    if (nb_rules) {
        check(nb != NULL &&
                  strstr(nb, "ranked: allreduce/recursive_doubling allreduce/native") != NULL,
              "explain does not name the nonblocking rule: %s", text);
    } else {
        check(nb == NULL, "explain names a nonblocking rule the database does not have: %s", text);
    }
    if (rank == 0) {
        printf("%s\n", text);
    }
}

int main(int argc, char **argv) {
    int rank, nprocs, status = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 3 || nprocs < 2 ||
        (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "select") != 0 &&
         strcmp(argv[1], "select-blocking") != 0)) {
        if (rank == 0) {
            printf("usage: mpirun -np N (N >= 2) cs_overlap_run_test "
                   "run|select|select-blocking DB\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (strcmp(argv[1], "run") == 0) {
        char *bench_argv[] = {"collsel-bench", "--db",    argv[2],      "--colls", "allreduce",
                              "--sizes",       "8,64K",   "--reps-max", "20",      "--no-refine",
                              "--no-confirm",  "--quiet", NULL};
        int bench_argc = (int)(sizeof(bench_argv) / sizeof(bench_argv[0])) - 1;
        status = cs_bench_main(bench_argc, bench_argv, extra, 1, MPI_COMM_WORLD);
        check(status == 0, "cs_bench_main returned %d, want 0", status);
        if (rank == 0 && status == 0) {
            check_run_db(argv[2], nprocs);
        }
    } else {
        run_select(rank, nprocs, strcmp(argv[1], "select") == 0);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d passed, %d failed\n", passed, failed);
        fflush(stdout);
    }
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}

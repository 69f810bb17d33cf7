/* cs_make_rules_db: writes the selector tests' rules (rules_spec.c) into a tuning database with
 * the db API, as a tuning run would, without timing anything.
 *
 *   cs_make_rules_db [--comm-sizes LIST] [--grids] [--patterns] [--size-patterns]
 *                    [--other-machine | --other-host] PATH
 *   cs_make_rules_db --list-algorithms
 *   cs_make_rules_db --print-winners [--comm-sizes N]
 *
 * PATH is created (or extended) read-write. The rules are stored for every communicator size in
 * LIST (comma-separated, default 4; rules_spec.h: some intervals belong to one size only), each
 * with ppn equal to its size (one node) or, written SIZE:PPN, with PPN processes per node
 * (4,4:2: size 4 on one node and on nodes of 2), under the
 * fingerprint of this machine (cs_machine_fingerprint: what the selector looks for) or, with
 * --other-machine, of a machine that does not exist (another topology and MPI library), so the
 * selector must refuse the database, or, with --other-host, of another node with this machine's
 * hardware and MPI library (host "another-node"), whose rules the selector must use. The rules
 * belong to one 'done' run.
 *
 * --grids ranks allreduce/orth(dims=AxB) first in every allreduce interval of each size that has
 * a 2D grid (cs_spec_grid in rules_spec.h: A the smallest factor >= 2 of the size, B = size / A
 * >= 2; 4: dims=2x2), ahead of the test rules' candidates: a variant that runs only on
 * communicators of exactly that size, so a communicator that borrows these rules
 * (tests/selector/test_selector.sh, group layouts) must fall to the next candidate.
 *
 * --patterns adds neighbourhood rules of two patterns, with their signatures (table pattern),
 * at every size of LIST: on cart2d (2D periodic Cartesian: 4 neighbours each) neighbor_alltoall
 * and neighbor_alltoallv run `linear`, on hotspot (cs_graph_hotspot) both run native; with
 * neither, the database has no neighbourhood rules. tests/selector/neighbor_test.c checks what
 * communicators of each kind choose. --size-patterns adds the pattern "ring", whose
 * neighbor_allgather and neighbor_alltoall rules change algorithm at 8, 16 and 64 bytes
 * (write_size_patterns; tests/selector/neighbor_sizes.sh).
 *
 * --list-algorithms prints every registered algorithm key, one per line (the registry the
 * tests loop over). --print-winners prints, per collective that has test rules, the intervals
 * of the rules for N processes (default 4) with their winner, as COLLSEL_VERBOSE=2 lists them:
 *   allreduce: [0, 64) allreduce/native [64, 4096) allreduce/recursive_doubling ...
 *
 * Exit status 0 on success, 1 on a database error, 2 on bad usage. No MPI_Init: the fingerprint
 * only asks for the MPI library's version. */
#include "core/machine.h"
#include "db.h"
#include "registry.h"
#include "rules_spec.h"
#include "topo/graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 64

static int usage(void) {
    fprintf(stderr, "usage: cs_make_rules_db [--comm-sizes LIST] [--grids] [--patterns] "
                    "[--size-patterns] "
                    "[--other-machine | --other-host] "
                    "PATH\n"
                    "       cs_make_rules_db --list-algorithms\n"
                    "       cs_make_rules_db --print-winners [--comm-sizes N]\n");
    return 2;
}

/* Parses "1,3,4:2" into sizes[] and ppns[] (a size without ":PPN" is one node: ppn = size);
 * the count, or -1 on a bad list. */
static int parse_sizes(const char *text, int *sizes, int *ppns) {
    int n = 0;
    const char *s = text;
    while (*s != '\0') {
        char *end = NULL;
        long v = strtol(s, &end, 10), q = v;
        if (end != s && *end == ':') {
            const char *at = end + 1;
            q = strtol(at, &end, 10);
            if (end == at) {
                return -1;
            }
        }
        if (end == s || v < 1 || v > 1 << 20 || q < 1 || q > v || n == MAX_SIZES ||
            (*end != ',' && *end != '\0')) {
            return -1;
        }
        sizes[n] = (int)v;
        ppns[n++] = (int)q;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static void print_winners(int size) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        const char *coll = cs_coll_name((cs_coll_t)c);
        int has_rules = 0;
        for (int i = 0; i < cs_spec_count; i++) {
            has_rules |= strcmp(cs_spec[i].coll, coll) == 0;
        }
        if (!has_rules) {
            continue; /* no test rules (the neighbourhood ones, ...): native */
        }
        printf("%s:", coll);
        for (int i = 0; i < cs_spec_count; i++) {
            const cs_spec_interval_t *iv = &cs_spec[i];
            int len = (int)strcspn(iv->expect, " ");
            if (strcmp(iv->coll, coll) != 0 || !cs_spec_applies(iv, size)) {
                continue;
            }
            if (iv->hi_bytes == CS_SPEC_UNBOUNDED) {
                printf(" [%llu, inf) %.*s", (unsigned long long)iv->lo_bytes, len, iv->expect);
            } else {
                printf(" [%llu, %llu) %.*s", (unsigned long long)iv->lo_bytes,
                       (unsigned long long)iv->hi_bytes, len, iv->expect);
            }
        }
        printf("\n");
    }
}

/* Writes the rules of one collective for one communicator size and ppn (--grids: `grids`). */
static int write_coll(cs_db_t *db, int64_t machine_id, int64_t run_id, const char *coll, int size,
                      int ppn, int grids) {
    int rc = CS_OK;
    cs_rule_t rules[64];
    char algorithm[64], params[64], grid[64];
    cs_coll_t c = CS_COLL_COUNT;
    size_t n = 0;
    int a = 0, b = 0;
    CS_CHECK(cs_coll_from_name(coll, &c));
    grids = grids && c == CS_COLL_ALLREDUCE && cs_spec_grid(size, &a, &b);
    snprintf(grid, sizeof(grid), "allreduce/orth(dims=%dx%d)", a, b);
    for (int i = 0; i < cs_spec_count; i++) {
        const cs_spec_interval_t *iv = &cs_spec[i];
        if (strcmp(iv->coll, coll) != 0 || !cs_spec_applies(iv, size)) {
            continue;
        }
        for (int k = 0; k == 0 || iv->ranked[k - grids] != NULL; k++) {
            const char *name = grids && k == 0 ? grid : iv->ranked[k - grids];
            size_t len = strcspn(name, "(");
            CS_REQUIRE(n < 64, CS_ERR_ARG);
            snprintf(algorithm, sizeof(algorithm), "%.*s", (int)len, name);
            /* "alg(k=v)" -> params "k=v" */
            snprintf(params, sizeof(params), "%.*s",
                     name[len] == '(' ? (int)(strlen(name) - len - 2) : 0,
                     name[len] == '(' ? name + len + 1 : "");
            rules[n] = (cs_rule_t){
                .machine_id = machine_id,
                .coll = c,
                .comm_size = size,
                .ppn = ppn,
                .lo_bytes = iv->lo_bytes,
                .hi_bytes = iv->hi_bytes,
                .rank = k + 1,
                .median_us = 10.0 + k,
                .native_us = 20.0,
                .p_value = strstr(name, "/native") != NULL ? NAN : 0.001,
                .run_id = run_id,
            };
            CS_CHECK(cs_rule_set_variant(&rules[n], algorithm, params));
            n++;
        }
    }
    CS_CHECK(cs_db_replace_rules(db, machine_id, c, size, ppn, rules, n));
out:
    return rc;
}

/* The neighbourhood rules and signatures of --patterns for communicator size `size`. */
static int write_patterns(cs_db_t *db, int64_t machine_id, int64_t run_id, int size) {
    int rc = CS_OK;
    const cs_coll_t colls[] = {CS_COLL_NEIGHBOR_ALLTOALL, CS_COLL_NEIGHBOR_ALLTOALLV};
    const char *names[] = {"cart2d", "hotspot"};
    cs_graph_t g = {0};
    for (int k = 0; k < 2; k++) {
        cs_graph_sig_t sig;
        int dims[2] = {size, 1};
        if (k == 0) {
            CS_CHECK(cs_graph_cart(&g, 2, dims, NULL));
        } else {
            CS_CHECK(cs_graph_hotspot(&g, size));
        }
        cs_graph_sig(&g, &sig);
        cs_graph_free(&g);
        cs_db_pattern_t row = {machine_id,  names[k],   sig.p,        sig.nedges,
                               sig.max_out, sig.max_in, sig.mean_out, sig.imbalance,
                               0,           0,          NULL};
        CS_CHECK(cs_db_put_pattern(db, &row));
        for (int i = 0; i < 2; i++) {
            cs_rule_t rules[2];
            char alg[64];
            int n = 0;
            for (int r = 0; r < 2 - k; r++) {
                snprintf(alg, sizeof(alg), "%s/%s", cs_coll_name(colls[i]),
                         k == 0 && r == 0 ? "linear" : "native");
                rules[n] = (cs_rule_t){.machine_id = machine_id,
                                       .run_id = run_id,
                                       .coll = colls[i],
                                       .comm_size = size,
                                       .ppn = size,
                                       .lo_bytes = 0,
                                       .hi_bytes = CS_RULE_UNBOUNDED,
                                       .rank = n + 1,
                                       .median_us = 10.0 + n,
                                       .native_us = 20.0,
                                       .p_value = strstr(alg, "/native") ? NAN : 0.001};
                snprintf(rules[n].pattern, sizeof(rules[n].pattern), "%s", names[k]);
                CS_CHECK(cs_rule_set_variant(&rules[n], alg, ""));
                n++;
            }
            CS_CHECK(cs_db_replace_pattern_rules(db, machine_id, colls[i], names[k], size, size,
                                                 rules, (size_t)n));
        }
    }
out:
    cs_graph_free(&g);
    return rc;
}

/* The rules of --size-patterns for communicator size `size`: one pattern, "ring" (a periodic
 * ring, both ways), where neighbor_allgather and neighbor_alltoall run a different algorithm in
 * each of the intervals [0, 8), [8, 16), [16, 64), [64, inf): native, linear, coloured, balanced
 * (t=2). Ranks that looked their calls up by different sizes would choose differently (and
 * hang); tests/selector/neighbor_sizes.sh runs calls whose blocks differ between ranks on it. */
static int write_size_patterns(cs_db_t *db, int64_t machine_id, int64_t run_id, int size) {
    int rc = CS_OK;
    const cs_coll_t colls[] = {CS_COLL_NEIGHBOR_ALLGATHER, CS_COLL_NEIGHBOR_ALLTOALL};
    static const uint64_t lo[] = {0, 8, 16, 64};
    static const char *const algs[] = {"native", "linear", "coloured", "balanced"};
    cs_graph_t g = {0};
    cs_graph_sig_t sig;
    int dims[1] = {size}, periods[1] = {1};
    CS_CHECK(cs_graph_cart(&g, 1, dims, periods));
    cs_graph_sig(&g, &sig);
    cs_db_pattern_t row = {machine_id,   "ring",        sig.p, sig.nedges, sig.max_out, sig.max_in,
                           sig.mean_out, sig.imbalance, 0,     0,          NULL};
    CS_CHECK(cs_db_put_pattern(db, &row));
    for (int i = 0; i < 2; i++) {
        cs_rule_t rules[4];
        for (int k = 0; k < 4; k++) {
            char alg[64];
            snprintf(alg, sizeof(alg), "%s/%s", cs_coll_name(colls[i]), algs[k]);
            rules[k] = (cs_rule_t){.machine_id = machine_id,
                                   .run_id = run_id,
                                   .coll = colls[i],
                                   .comm_size = size,
                                   .ppn = size,
                                   .lo_bytes = lo[k],
                                   .hi_bytes = k < 3 ? lo[k + 1] : CS_RULE_UNBOUNDED,
                                   .rank = 1,
                                   .median_us = 10.0,
                                   .native_us = 20.0,
                                   .p_value = k == 0 ? NAN : 0.001};
            snprintf(rules[k].pattern, sizeof(rules[k].pattern), "ring");
            CS_CHECK(cs_rule_set_variant(&rules[k], alg, k == 3 ? "t=2" : ""));
        }
        CS_CHECK(
            cs_db_replace_pattern_rules(db, machine_id, colls[i], "ring", size, size, rules, 4));
    }
out:
    cs_graph_free(&g);
    return rc;
}

int main(int argc, char **argv) {
    int rc = CS_OK;
    int sizes[MAX_SIZES] = {4}, ppns[MAX_SIZES] = {4}, nsizes = 1, other = 0, maxsize = 1;
    int patterns = 0, grids = 0, print = 0;
    const char *path = NULL;
    char why[1024];
    cs_db_t *db = NULL;
    cs_machine_t m;
    cs_db_machine_t dm;
    cs_db_run_t run;
    int64_t machine_id = 0, run_id = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list-algorithms") == 0 && argc == 2) {
            for (int k = 0; k < cs_registry_count; k++) {
                printf("%s\n", cs_registry[k]->name);
            }
            return 0;
        } else if (strcmp(argv[i], "--print-winners") == 0) {
            print = 1;
        } else if (strcmp(argv[i], "--comm-sizes") == 0 && i + 1 < argc) {
            nsizes = parse_sizes(argv[++i], sizes, ppns);
            if (nsizes < 1) {
                fprintf(stderr, "cs_make_rules_db: bad --comm-sizes '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--grids") == 0) {
            grids = 1;
        } else if (strcmp(argv[i], "--patterns") == 0) {
            patterns |= 1;
        } else if (strcmp(argv[i], "--size-patterns") == 0) {
            patterns |= 2;
        } else if (strcmp(argv[i], "--other-machine") == 0) {
            other = 1;
        } else if (strcmp(argv[i], "--other-host") == 0) {
            other = 2;
        } else if (argv[i][0] != '-' && path == NULL) {
            path = argv[i];
        } else {
            return usage();
        }
    }
    if (print) { /* the rules of the first size only */
        if (path != NULL || nsizes != 1 || patterns != 0 || other != 0 || grids != 0) {
            return usage();
        }
        print_winners(sizes[0]);
        return 0;
    }
    if (path == NULL) {
        return usage();
    }
    cs_machine_fingerprint(&m);
    if (other == 1) {
        dm = (cs_db_machine_t){"elsewhere", "packages=64 numa=64 cores=4096 pus=8192",
                               "Imaginary MPI 9.9"};
    } else if (other == 2) {
        dm = (cs_db_machine_t){"another-node", m.topology, m.mpi_library};
    } else {
        dm = (cs_db_machine_t){m.host, m.topology, m.mpi_library};
    }
    for (int i = 0; i < nsizes; i++) {
        maxsize = sizes[i] > maxsize ? sizes[i] : maxsize;
    }
    rc = cs_db_open(path, CS_DB_READ_WRITE, &db, why, sizeof(why));
    if (rc != CS_OK) {
        fprintf(stderr, "cs_make_rules_db: %s\n", why);
        return 1;
    }
    CS_CHECK(cs_db_find_or_insert_machine(db, &dm, &machine_id));
    run = (cs_db_run_t){.machine_id = machine_id,
                        .nprocs = maxsize,
                        .nnodes = 1,
                        .ppn = maxsize,
                        .oversubscribed = 1,
                        .args = "tests/selector rules",
                        .version = CS_VERSION};
    CS_CHECK(cs_db_start_run(db, &run, false, &run_id, NULL));
    CS_CHECK(cs_db_begin(db));
    for (int i = 0; i < nsizes; i++) {
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            CS_CHECK(write_coll(db, machine_id, run_id, cs_coll_name((cs_coll_t)c), sizes[i],
                                ppns[i], grids));
        }
        if (patterns & 1) {
            CS_CHECK(write_patterns(db, machine_id, run_id, sizes[i]));
        }
        if (patterns & 2) {
            CS_CHECK(write_size_patterns(db, machine_id, run_id, sizes[i]));
        }
    }
    CS_CHECK(cs_db_commit(db));
    CS_CHECK(cs_db_finish_run(db, run_id, CS_DB_RUN_DONE));
out:
    if (rc != CS_OK) {
        fprintf(stderr, "cs_make_rules_db: %s: %s (%s)\n", path, cs_status_str(rc),
                db != NULL ? cs_db_errmsg(db) : "");
    }
    cs_db_close(db);
    return rc == CS_OK ? 0 : 1;
}

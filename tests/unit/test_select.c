/* Unit tests of the selector's MPI-free parts (selector/select.h): COLLSEL_FORCE parsing, the
 * environment, pruning the rule table to one communicator (exact and nearest tuned size and
 * processes per node, unknown and parameterised candidates skipped, native last) and the
 * per-call interval lookup, and the selection key: the size the selector's fast path computes
 * from a call's raw arguments equals the `bytes` of the normalised call, for every collective.
 * MPI runs as a singleton (type sizes); nothing is communicated. */
#include "registry.h"
#include "select.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    ck_assert_int_eq(cs_rule_set_variant(&r, algorithm, params), CS_OK);
    return r;
}

static const cs_algo_t *find(const char *name) {
    const cs_algo_t *a = cs_registry_find(name);
    ck_assert_msg(a != NULL, "%s is not registered", name);
    return a;
}

/* "a b c": the names of the interval's candidates */
static void cand_names(const cs_sel_interval_t *iv, char *out, size_t len) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < iv->ncand && used < len; i++) {
        used +=
            (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", iv->cand[i].algo->name);
    }
}

/* --- COLLSEL_FORCE ------------------------------------------------------------------------- */

START_TEST(test_force_one) {
    cs_variant_t force[CS_COLL_COUNT];
    memset(force, 0, sizeof(force));
    char err[256] = "";
    ck_assert_int_eq(cs_sel_parse_force("allreduce/recursive_doubling", force, err, sizeof(err)),
                     CS_OK);
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (c == CS_COLL_ALLREDUCE) {
            ck_assert_ptr_eq(force[c].algo, find("allreduce/recursive_doubling"));
        } else {
            ck_assert_ptr_null(force[c].algo);
        }
    }
}
END_TEST

START_TEST(test_force_many) {
    cs_variant_t force[CS_COLL_COUNT];
    memset(force, 0, sizeof(force));
    char err[256] = "";
    ck_assert_int_eq(cs_sel_parse_force(";bcast/binomial;;allgather/ring;bcast/linear()", force,
                                        err, sizeof(err)),
                     CS_OK);
    ck_assert_ptr_eq(force[CS_COLL_BCAST].algo, find("bcast/linear")); /* the later entry wins */
    ck_assert_ptr_eq(force[CS_COLL_ALLGATHER].algo, find("allgather/ring"));
    ck_assert_ptr_null(force[CS_COLL_ALLREDUCE].algo);
    ck_assert_int_eq(cs_sel_parse_force("", force, err, sizeof(err)), CS_OK);
    ck_assert_int_eq(cs_sel_parse_force(";;;", force, err, sizeof(err)), CS_OK);
}
END_TEST

/* Every registered algorithm, natives included, can be forced by its key. */
START_TEST(test_force_every_algorithm) {
    for (int i = 0; i < cs_registry_count; i++) {
        cs_variant_t force[CS_COLL_COUNT];
        memset(force, 0, sizeof(force));
        char err[256] = "";
        ck_assert_msg(cs_sel_parse_force(cs_registry[i]->name, force, err, sizeof(err)) == CS_OK,
                      "%s: %s", cs_registry[i]->name, err);
        ck_assert_ptr_eq(force[cs_registry[i]->coll].algo, cs_registry[i]);
    }
}
END_TEST

/* Every variant the tuning run would sweep (cs_algo_variants) can be forced by its name, and a
 * rule naming it (params column: the part in parentheses) prunes to the same variant. */
START_TEST(test_force_and_prune_every_variant) {
    cs_variant_t variants[64];
    int n = 0;
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        ck_assert_int_eq(cs_algo_variants(a, 8, 4, variants, 64, &n), CS_OK);
        ck_assert_int_ge(n, 1);
        for (int k = 0; k < n; k++) {
            cs_variant_t force[CS_COLL_COUNT];
            cs_rule_t r;
            cs_sel_comm_t sc;
            char name[256], params[128], err[256] = "";
            memset(force, 0, sizeof(force));
            memset(&sc, 0, sizeof(sc));
            cs_variant_name(&variants[k], name, sizeof(name));
            ck_assert_msg(cs_sel_parse_force(name, force, err, sizeof(err)) == CS_OK, "%s: %s",
                          name, err);
            ck_assert_ptr_eq(force[a->coll].algo, a);
            ck_assert_msg(cs_params_equal(&force[a->coll].params, &variants[k].params),
                          "%s: parameters differ after parsing", name);
            cs_params_format(&variants[k].params, params, sizeof(params));
            r = rule(a->coll, 8, 4, 0, INF, 1, a->name, params);
            ck_assert_int_eq(cs_sel_prune(&r, 1, 8, 4, &sc), CS_OK);
            ck_assert_ptr_eq(sc.iv[a->coll][0].cand[0].algo, a);
            ck_assert_msg(cs_params_equal(&sc.iv[a->coll][0].cand[0].params, &variants[k].params),
                          "%s: the pruned candidate has other parameters", name);
            cs_sel_comm_clear(&sc);
        }
    }
}
END_TEST

/* A bad entry: CS_ERR_ARG and a message that names it; `want` must be in the message. */
static void bad_force(const char *text, const char *want) {
    cs_variant_t force[CS_COLL_COUNT];
    memset(force, 0, sizeof(force));
    char err[256] = "";
    ck_assert_msg(cs_sel_parse_force(text, force, err, sizeof(err)) == CS_ERR_ARG, "'%s' accepted",
                  text);
    ck_assert_msg(strstr(err, "COLLSEL_FORCE") != NULL && strstr(err, want) != NULL,
                  "'%s': message '%s' does not say '%s'", text, err, want);
}

START_TEST(test_force_bad) {
    char longer[400];
    bad_force("allreduce/rign", "unknown algorithm 'allreduce/rign' (see collsel-bench --list)");
    bad_force("allreduce", "'allreduce'");
    bad_force("allreduce/", "'allreduce/'");
    bad_force("bcast/binomial(no_such_parameter=4)", "no_such_parameter");
    bad_force("bcast/binomial(no_such_parameter=4", "lacks a closing ')'");
    bad_force("bcast/no_such;allreduce/native", "'bcast/no_such'");
    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    memcpy(longer, "bcast/", 6);
    bad_force(longer, "too long");
}
END_TEST

/* select.h: the entries before the bad one are kept. */
START_TEST(test_force_bad_keeps_earlier) {
    cs_variant_t force[CS_COLL_COUNT];
    memset(force, 0, sizeof(force));
    char err[256];
    ck_assert_int_eq(
        cs_sel_parse_force("bcast/binomial;allreduce/nope;gather/linear", force, err, sizeof(err)),
        CS_ERR_ARG);
    ck_assert_ptr_eq(force[CS_COLL_BCAST].algo, find("bcast/binomial"));
    ck_assert_ptr_null(force[CS_COLL_GATHER].algo);
}
END_TEST

START_TEST(test_force_short_error_buffer) {
    cs_variant_t force[CS_COLL_COUNT];
    memset(force, 0, sizeof(force));
    char err[16];
    memset(err, 'x', sizeof(err));
    ck_assert_int_eq(cs_sel_parse_force("allreduce/rign", force, err, 8), CS_ERR_ARG);
    ck_assert_int_eq((int)strlen(err), 7);
    ck_assert_int_eq(err[8], 'x');
}
END_TEST

/* --- environment --------------------------------------------------------------------------- */

static void clear_env(void) {
    unsetenv("COLLSEL_DB");
    unsetenv("COLLSEL_DISABLE");
    unsetenv("COLLSEL_FORCE");
    unsetenv("COLLSEL_FALLBACK");
}

/* Parses the environment with messages on (report = 1); returns what went to stderr. */
static char *parse_captured(cs_sel_env_t *env) {
    static char text[4096];
    FILE *tmp = tmpfile();
    int saved = dup(STDERR_FILENO);
    size_t n;
    ck_assert_ptr_nonnull(tmp);
    fflush(stderr);
    ck_assert_int_ge(dup2(fileno(tmp), STDERR_FILENO), 0);
    cs_sel_env_parse(env, 1);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    n = fread(text, 1, sizeof(text) - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    return text;
}

static int count_lines(const char *s) {
    int n = 0;
    for (; *s != '\0'; s++) {
        n += *s == '\n';
    }
    return n;
}

START_TEST(test_env_defaults) {
    cs_sel_env_t env;
    char *out;
    clear_env();
    out = parse_captured(&env);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(env.disable, 0);
    ck_assert_int_eq(env.fallback, CS_FALLBACK_SILENT);
    ck_assert_str_eq(env.db, "");
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        ck_assert_ptr_null(env.force[c].algo);
    }
}
END_TEST

START_TEST(test_env_values) {
    cs_sel_env_t env;
    const char *yes[] = {"1", "yes", "true"}, *no[] = {"0", "no", "false", ""};
    clear_env();
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        setenv("COLLSEL_DISABLE", yes[i], 1);
        ck_assert_str_eq(parse_captured(&env), "");
        ck_assert_msg(env.disable == 1, "COLLSEL_DISABLE=%s", yes[i]);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        setenv("COLLSEL_DISABLE", no[i], 1);
        ck_assert_str_eq(parse_captured(&env), "");
        ck_assert_msg(env.disable == 0, "COLLSEL_DISABLE=%s", no[i]);
    }
    setenv("COLLSEL_FALLBACK", "warn", 1);
    parse_captured(&env);
    ck_assert_int_eq(env.fallback, CS_FALLBACK_WARN);
    setenv("COLLSEL_FALLBACK", "error", 1);
    parse_captured(&env);
    ck_assert_int_eq(env.fallback, CS_FALLBACK_ERROR);
    setenv("COLLSEL_FALLBACK", "silent", 1);
    parse_captured(&env);
    ck_assert_int_eq(env.fallback, CS_FALLBACK_SILENT);
    setenv("COLLSEL_DB", "/some/where.db", 1);
    setenv("COLLSEL_FORCE", "bcast/binomial;reduce/linear", 1);
    ck_assert_str_eq(parse_captured(&env), "");
    ck_assert_str_eq(env.db, "/some/where.db");
    ck_assert_ptr_eq(env.force[CS_COLL_BCAST].algo, find("bcast/binomial"));
    ck_assert_ptr_eq(env.force[CS_COLL_REDUCE].algo, find("reduce/linear"));
}
END_TEST

/* A bad value: one line naming the variable and the value; the value is ignored. */
START_TEST(test_env_bad_values) {
    cs_sel_env_t env;
    char *out;
    clear_env();
    setenv("COLLSEL_DISABLE", "maybe", 1);
    setenv("COLLSEL_FALLBACK", "sometimes", 1);
    setenv("COLLSEL_FORCE", "bcast/binomial;allreduce/rign", 1);
    out = parse_captured(&env);
    ck_assert_int_eq(count_lines(out), 3);
    ck_assert_ptr_nonnull(strstr(out, "COLLSEL_DISABLE: bad value 'maybe'"));
    ck_assert_ptr_nonnull(strstr(out, "COLLSEL_FALLBACK: bad value 'sometimes'"));
    ck_assert_ptr_nonnull(strstr(out, "'allreduce/rign'"));
    ck_assert_int_eq(env.disable, 0);
    ck_assert_int_eq(env.fallback, CS_FALLBACK_SILENT);
    /* a bad COLLSEL_FORCE is ignored as a whole */
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        ck_assert_ptr_null(env.force[c].algo);
    }
    /* report = 0 (ranks other than 0): silent */
    {
        FILE *tmp = tmpfile();
        int saved = dup(STDERR_FILENO);
        fflush(stderr);
        dup2(fileno(tmp), STDERR_FILENO);
        cs_sel_env_parse(&env, 0);
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        ck_assert_int_eq((int)ftell(tmp), 0);
        fclose(tmp);
    }
}
END_TEST

/* --- pruning ------------------------------------------------------------------------------- */

/* allreduce rules at sizes 2, 4 and 8 (ppn = size), each with its own winner. */
static int sized_rules(cs_rule_t *r) {
    int n = 0;
    const char *winner[3] = {"allreduce/reduce_bcast", "allreduce/recursive_doubling",
                             "allreduce/native"};
    for (int k = 0; k < 3; k++) {
        int size = 2 << k;
        r[n++] = rule(CS_COLL_ALLREDUCE, size, size, 0, 1000, 1, winner[k], "");
        r[n++] = rule(CS_COLL_ALLREDUCE, size, size, 1000, INF, 1, "allreduce/native", "");
    }
    return n;
}

static void expect_tuned(const cs_rule_t *r, int n, int nprocs, int ppn, int want_size,
                         const char *want_winner) {
    cs_sel_comm_t sc;
    memset(&sc, 0, sizeof(sc));
    ck_assert_int_eq(cs_sel_prune(r, n, nprocs, ppn, &sc), CS_OK);
    ck_assert_msg(sc.tuned_size[CS_COLL_ALLREDUCE] == want_size,
                  "%d processes: tuned at %d, want %d", nprocs, sc.tuned_size[CS_COLL_ALLREDUCE],
                  want_size);
    ck_assert_int_eq(sc.niv[CS_COLL_ALLREDUCE], 2);
    ck_assert_str_eq(sc.iv[CS_COLL_ALLREDUCE][0].cand[0].algo->name, want_winner);
    ck_assert_int_eq(sc.ppn, ppn);
    cs_sel_comm_clear(&sc);
}

/* A tuned pattern's signature for the neighbourhood tests. */
static cs_sel_pattern_t pattern(const char *name, int p, int max_out, int max_in, double mean_out) {
    cs_sel_pattern_t t;
    memset(&t, 0, sizeof(t));
    snprintf(t.name, sizeof(t.name), "%s", name);
    t.sig.p = p;
    t.sig.nedges = (int)(mean_out * p);
    t.sig.max_out = max_out;
    t.sig.max_in = max_in;
    t.sig.mean_out = mean_out;
    t.sig.imbalance = mean_out > 0 ? max_in / mean_out : 1.0;
    return t;
}

static cs_rule_t pattern_rule(cs_coll_t coll, const char *pat, int size, int rank,
                              const char *algorithm) {
    cs_rule_t r = rule(coll, size, size, 0, INF, rank, algorithm, "");
    snprintf(r.pattern, sizeof(r.pattern), "%s", pat);
    return r;
}

/* Neighbourhood rules come from the tuned pattern with the nearest signature; the others'
 * pruning ignores them; no signature (no topology): no neighbourhood rules. */
START_TEST(test_prune_neighbors) {
    cs_rule_t r[8];
    int n = 0;
    cs_sel_pattern_t pats[3] = {pattern("cart2d", 8, 4, 4, 4.0), pattern("hotspot", 8, 3, 9, 2.9),
                                pattern("moore2d", 16, 8, 8, 8.0)};
    cs_sel_comm_t sc;
    cs_graph_sig_t sig = pats[1].sig; /* a hot spot of 8 */
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "cart2d", 8, 1, "neighbor_alltoall/linear");
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "cart2d", 8, 2, "neighbor_alltoall/native");
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "hotspot", 8, 1, "neighbor_alltoall/native");
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "moore2d", 16, 1, "neighbor_alltoall/linear");
    /* a pattern whose signature is not stored: never chosen */
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "unknown", 8, 1, "neighbor_alltoall/linear");
    memset(&sc, 0, sizeof(sc));
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 8, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[CS_COLL_NEIGHBOR_ALLTOALL], 0); /* pattern rules: not by size */
    ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, &sig, 8, &sc), CS_OK);
    ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "hotspot");
    ck_assert_double_eq(sc.pattern_distance[CS_COLL_NEIGHBOR_ALLTOALL], 0.0);
    ck_assert_int_eq(sc.niv[CS_COLL_NEIGHBOR_ALLTOALL], 1);
    ck_assert_str_eq(sc.iv[CS_COLL_NEIGHBOR_ALLTOALL][0].cand[0].algo->name,
                     "neighbor_alltoall/native");
    /* a 4-neighbour stencil on 8: cart2d, exactly */
    sig = pats[0].sig;
    ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, &sig, 8, &sc), CS_OK);
    ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "cart2d");
    ck_assert_int_eq(sc.iv[CS_COLL_NEIGHBOR_ALLTOALL][0].ncand, 2);
    ck_assert_str_eq(sc.iv[CS_COLL_NEIGHBOR_ALLTOALL][0].cand[0].algo->name,
                     "neighbor_alltoall/linear");
    /* 7 neighbours on 12 processes: nearer moore2d (8 on 16) than cart2d (4 on 8) */
    sig = pattern("x", 12, 7, 7, 7.0).sig;
    ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, &sig, 12, &sc), CS_OK);
    ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "moore2d");
    ck_assert_int_eq(sc.tuned_size[CS_COLL_NEIGHBOR_ALLTOALL], 16);
    ck_assert(sc.pattern_distance[CS_COLL_NEIGHBOR_ALLTOALL] > 0);
    /* the v and w forms are looked up at 0, the others at their bytes */
    ck_assert_uint_eq(cs_sel_lookup_key(CS_COLL_NEIGHBOR_ALLTOALLV, 4096), 0);
    ck_assert_uint_eq(cs_sel_lookup_key(CS_COLL_NEIGHBOR_ALLTOALL, 4096), 4096);
    ck_assert_uint_eq(cs_sel_lookup_key(CS_COLL_ALLGATHERV, 4096), 4096);
    /* no topology: no neighbourhood rules */
    ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, NULL, 8, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[CS_COLL_NEIGHBOR_ALLTOALL], 0);
    ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "");
    cs_sel_comm_clear(&sc);
}
END_TEST

/* The nonblocking rules of the neighbourhood collectives are pruned by signature as the
 * blocking ones (cs_sel_prune_nb), into nb_iv with their tuned pattern; the blocking rules
 * stay; the isomorphic flag decides between equal signatures; no topology: none. */
START_TEST(test_prune_nb_neighbors) {
    cs_rule_t r[4], nb[6];
    int n = 0, n_nb = 0;
    cs_sel_pattern_t pats[3] = {pattern("cart2d", 8, 4, 4, 4.0), pattern("hotspot", 8, 3, 9, 2.9),
                                pattern("iso_cart2d", 8, 4, 4, 4.0)};
    cs_sel_comm_t sc;
    cs_graph_sig_t sig = pats[0].sig;
    pats[2].isomorphic = 1;
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "cart2d", 8, 1, "neighbor_alltoall/native");
    nb[n_nb++] =
        pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "cart2d", 8, 1, "neighbor_alltoall/linear");
    nb[n_nb++] =
        pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "cart2d", 8, 2, "neighbor_alltoall/native");
    nb[n_nb++] =
        pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "hotspot", 8, 1, "neighbor_alltoall/coloured");
    nb[n_nb++] =
        pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "iso_cart2d", 8, 1, "neighbor_alltoall/iso_torus");
    /* a plain collective's nonblocking rule beside them: pruned by size as before */
    nb[n_nb++] = rule(CS_COLL_ALLREDUCE, 8, 8, 0, INF, 1, "allreduce/recursive_doubling", "");
    memset(&sc, 0, sizeof(sc));
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 8, &sc), CS_OK);
    ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, &sig, 8, &sc), CS_OK);
    ck_assert_int_eq(cs_sel_prune_nb(nb, n_nb, 8, 8, pats, 3, &sig, &sc), CS_OK);
    ck_assert_int_eq(sc.nb_niv[CS_COLL_NEIGHBOR_ALLTOALL], 1);
    ck_assert_str_eq(sc.nb_tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "cart2d");
    ck_assert_double_eq(sc.nb_pattern_distance[CS_COLL_NEIGHBOR_ALLTOALL], 0.0);
    ck_assert_int_eq(sc.nb_tuned_size[CS_COLL_NEIGHBOR_ALLTOALL], 8);
    ck_assert_str_eq(cs_sel_nb_lookup(&sc, CS_COLL_NEIGHBOR_ALLTOALL, 64)->cand[0].algo->name,
                     "neighbor_alltoall/linear");
    ck_assert_str_eq(sc.nb_iv[CS_COLL_ALLREDUCE][0].cand[0].algo->name,
                     "allreduce/recursive_doubling");
    ck_assert_str_eq(sc.nb_tuned_pattern[CS_COLL_ALLREDUCE], "");
    /* the blocking rules are untouched */
    ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "cart2d");
    ck_assert_str_eq(sc.iv[CS_COLL_NEIGHBOR_ALLTOALL][0].cand[0].algo->name,
                     "neighbor_alltoall/native");
    /* an isomorphic communicator of the same signature: the isomorphic pattern's */
    sc.isomorphic = 1;
    ck_assert_int_eq(cs_sel_prune_nb(nb, n_nb, 8, 8, pats, 3, &sig, &sc), CS_OK);
    ck_assert_str_eq(sc.nb_tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "iso_cart2d");
    ck_assert_str_eq(sc.nb_iv[CS_COLL_NEIGHBOR_ALLTOALL][0].cand[0].algo->name,
                     "neighbor_alltoall/iso_torus");
    /* a hot spot */
    sc.isomorphic = 0;
    sig = pats[1].sig;
    ck_assert_int_eq(cs_sel_prune_nb(nb, n_nb, 8, 8, pats, 3, &sig, &sc), CS_OK);
    ck_assert_str_eq(sc.nb_tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "hotspot");
    /* no topology: no nonblocking neighbourhood rules, allreduce's stay */
    ck_assert_int_eq(cs_sel_prune_nb(nb, n_nb, 8, 8, pats, 3, NULL, &sc), CS_OK);
    ck_assert_int_eq(sc.nb_niv[CS_COLL_NEIGHBOR_ALLTOALL], 0);
    ck_assert_str_eq(sc.nb_tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "");
    ck_assert_int_eq(sc.nb_niv[CS_COLL_ALLREDUCE], 1);
    cs_sel_comm_clear(&sc);
    ck_assert_int_eq(sc.nb_niv[CS_COLL_ALLREDUCE], 0);
}
END_TEST

/* A Moore stencil made by collsel_iso_neighborhood_create and one made as a plain distributed
 * graph have one signature: the isomorphic communicator gets the isomorphic pattern's rules
 * (iso_moore2d_r1), the plain one moore2d's, whichever comes first in the table; a nearer
 * signature still beats the isomorphic flag. */
START_TEST(test_prune_neighbors_isomorphic) {
    cs_rule_t r[4];
    int n = 0;
    cs_sel_pattern_t pats[3] = {pattern("iso_moore2d_r1", 16, 8, 8, 8.0),
                                pattern("moore2d", 16, 8, 8, 8.0),
                                pattern("cart2d", 16, 4, 4, 4.0)};
    cs_sel_comm_t sc;
    cs_graph_sig_t sig = pats[1].sig;
    pats[0].isomorphic = 1;
    pats[2].isomorphic = 1;
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "iso_moore2d_r1", 16, 1,
                          "neighbor_alltoall/iso_torus");
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "moore2d", 16, 1, "neighbor_alltoall/linear");
    r[n++] = pattern_rule(CS_COLL_NEIGHBOR_ALLTOALL, "cart2d", 16, 1, "neighbor_alltoall/native");
    for (int order = 0; order < 2; order++) { /* either pattern first in the table */
        cs_rule_t t = r[0];
        r[0] = r[1];
        r[1] = t;
        memset(&sc, 0, sizeof(sc));
        sc.isomorphic = 1;
        ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, &sig, 8, &sc), CS_OK);
        ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "iso_moore2d_r1");
        ck_assert_str_eq(sc.iv[CS_COLL_NEIGHBOR_ALLTOALL][0].cand[0].algo->name,
                         "neighbor_alltoall/iso_torus");
        sc.isomorphic = 0;
        ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, &sig, 8, &sc), CS_OK);
        ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "moore2d");
        cs_sel_comm_clear(&sc);
    }
    /* a plain 4-neighbour graph: cart2d's signature, though cart2d is isomorphic */
    sig = pats[2].sig;
    memset(&sc, 0, sizeof(sc));
    ck_assert_int_eq(cs_sel_prune_neighbors(r, n, pats, 3, &sig, 8, &sc), CS_OK);
    ck_assert_str_eq(sc.tuned_pattern[CS_COLL_NEIGHBOR_ALLTOALL], "cart2d");
    cs_sel_comm_clear(&sc);
}
END_TEST

START_TEST(test_prune_exact_and_nearest) {
    cs_rule_t r[16];
    int n = sized_rules(r);
    expect_tuned(r, n, 2, 2, 2, "allreduce/reduce_bcast");
    expect_tuned(r, n, 4, 4, 4, "allreduce/recursive_doubling");
    expect_tuned(r, n, 8, 8, 8, "allreduce/native");
    expect_tuned(r, n, 1, 1, 2, "allreduce/reduce_bcast");       /* below the smallest */
    expect_tuned(r, n, 3, 3, 4, "allreduce/recursive_doubling"); /* 4/3 is nearer than 3/2 */
    expect_tuned(r, n, 5, 5, 4, "allreduce/recursive_doubling");
    expect_tuned(r, n, 6, 6, 8, "allreduce/native"); /* 8/6 < 6/4 */
    expect_tuned(r, n, 7, 7, 8, "allreduce/native");
    expect_tuned(r, n, 1000, 1000, 8, "allreduce/native");
    expect_tuned(r, n, 4, 1, 4, "allreduce/recursive_doubling"); /* size before ppn */
}
END_TEST

/* The same size tuned at several ppn: the nearest ppn wins. */
START_TEST(test_prune_nearest_ppn) {
    cs_rule_t r[8];
    cs_sel_comm_t sc;
    int n = 0;
    memset(&sc, 0, sizeof(sc));
    r[n++] = rule(CS_COLL_BCAST, 8, 1, 0, INF, 1, "bcast/linear", "");
    r[n++] = rule(CS_COLL_BCAST, 8, 4, 0, INF, 1, "bcast/binomial", "");
    r[n++] = rule(CS_COLL_BCAST, 8, 8, 0, INF, 1, "bcast/scatter_allgather", "");
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 8, &sc), CS_OK);
    ck_assert_str_eq(sc.iv[CS_COLL_BCAST][0].cand[0].algo->name, "bcast/scatter_allgather");
    ck_assert_int_eq(sc.tuned_ppn[CS_COLL_BCAST], 8);
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 3, &sc), CS_OK);
    ck_assert_str_eq(sc.iv[CS_COLL_BCAST][0].cand[0].algo->name, "bcast/binomial");
    ck_assert_int_eq(sc.tuned_ppn[CS_COLL_BCAST], 4);
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 1, &sc), CS_OK);
    ck_assert_str_eq(sc.iv[CS_COLL_BCAST][0].cand[0].algo->name, "bcast/linear");
    ck_assert_int_eq(cs_sel_prune(r, n, 6, 0, &sc), CS_OK); /* unknown ppn counts as 1 */
    ck_assert_str_eq(sc.iv[CS_COLL_BCAST][0].cand[0].algo->name, "bcast/linear");
    cs_sel_comm_clear(&sc);
}
END_TEST

/* The nearest tuned shape when there is no exact one (docs/selector.md, "Sizes and layouts
 * without rules of their own"): size by |log2| distance, the larger of two as near, exactly
 * (9 and 16 are as near to 12: 12/9 = 16/12, though their floating logs differ in the last
 * bit); then ppn, the smaller of two as near; the size decides before the ppn. */
START_TEST(test_prune_ties) {
    cs_rule_t r[16];
    cs_sel_comm_t sc;
    int n = 0;
    memset(&sc, 0, sizeof(sc));
    r[n++] = rule(CS_COLL_ALLREDUCE, 2, 2, 0, INF, 1, "allreduce/reduce_bcast", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 8, 8, 0, INF, 1, "allreduce/recursive_doubling", "");
    r[n++] = rule(CS_COLL_BCAST, 9, 9, 0, INF, 1, "bcast/linear", "");
    r[n++] = rule(CS_COLL_BCAST, 16, 16, 0, INF, 1, "bcast/binomial", "");
    r[n++] = rule(CS_COLL_GATHER, 8, 1, 0, INF, 1, "gather/linear", "");
    r[n++] = rule(CS_COLL_GATHER, 8, 4, 0, INF, 1, "gather/binomial", "");
    r[n++] = rule(CS_COLL_SCATTER, 4, 4, 0, INF, 1, "scatter/linear", "");
    r[n++] = rule(CS_COLL_SCATTER, 8, 2, 0, INF, 1, "scatter/binomial", "");
    ck_assert_int_eq(cs_sel_prune(r, n, 4, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_ALLREDUCE], 8); /* 4/2 = 8/4: the larger */
    ck_assert_str_eq(sc.iv[CS_COLL_ALLREDUCE][0].cand[0].algo->name,
                     "allreduce/recursive_doubling");
    ck_assert_int_eq(sc.tuned_size[CS_COLL_BCAST], 9); /* 9/4 < 16/4 */
    ck_assert_int_eq(sc.tuned_size[CS_COLL_SCATTER], 4);
    ck_assert_int_eq(cs_sel_prune(r, n, 3, 3, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_ALLREDUCE], 2); /* 3/2 < 8/3 */
    ck_assert_int_eq(cs_sel_prune(r, n, 12, 2, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_BCAST], 16); /* 12/9 = 16/12: the larger */
    ck_assert_str_eq(sc.iv[CS_COLL_BCAST][0].cand[0].algo->name, "bcast/binomial");
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 2, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_ppn[CS_COLL_GATHER], 1); /* 2/1 = 4/2: the smaller */
    ck_assert_str_eq(sc.iv[CS_COLL_GATHER][0].cand[0].algo->name, "gather/linear");
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 3, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_ppn[CS_COLL_GATHER], 4); /* 4/3 < 3/1 */
    /* 5 processes, 2 per node: size 4 (4 per node) is nearer than 8 (2 per node) */
    ck_assert_int_eq(cs_sel_prune(r, n, 5, 2, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_SCATTER], 4);
    ck_assert_int_eq(sc.tuned_ppn[CS_COLL_SCATTER], 4);
    /* 6 processes: 8/6 < 6/4, so 8 and its only ppn, 2, whatever the communicator's */
    ck_assert_int_eq(cs_sel_prune(r, n, 6, 6, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_SCATTER], 8);
    ck_assert_int_eq(sc.tuned_ppn[CS_COLL_SCATTER], 2);
    /* the order of the table does not matter */
    for (int i = 0; i < n / 2; i++) {
        cs_rule_t t = r[i];
        r[i] = r[n - 1 - i];
        r[n - 1 - i] = t;
    }
    ck_assert_int_eq(cs_sel_prune(r, n, 4, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_ALLREDUCE], 8);
    ck_assert_int_eq(cs_sel_prune(r, n, 12, 2, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_BCAST], 16);
    ck_assert_int_eq(cs_sel_prune(r, n, 8, 2, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_ppn[CS_COLL_GATHER], 1);
    cs_sel_comm_clear(&sc);
}
END_TEST

/* Each collective picks its own nearest size; a collective without rules has none. */
START_TEST(test_prune_per_collective) {
    cs_rule_t r[8];
    cs_sel_comm_t sc;
    int n = 0;
    memset(&sc, 0, sizeof(sc));
    r[n++] = rule(CS_COLL_BCAST, 16, 16, 0, INF, 1, "bcast/binomial", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 2, 2, 0, INF, 1, "allreduce/recursive_doubling", "");
    r[n++] = rule(CS_COLL_GATHER, 0, 1, 0, INF, 1, "gather/linear", ""); /* no size: ignored */
    ck_assert_int_eq(cs_sel_prune(r, n, 4, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_BCAST], 16);
    ck_assert_int_eq(sc.tuned_size[CS_COLL_ALLREDUCE], 2);
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (c != CS_COLL_BCAST && c != CS_COLL_ALLREDUCE) {
            ck_assert_int_eq(sc.niv[c], 0);
            ck_assert_int_eq(sc.tuned_size[c], 0);
            ck_assert_ptr_null(cs_sel_lookup(&sc, (cs_coll_t)c, 0));
        }
    }
    cs_sel_comm_clear(&sc);
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        ck_assert_int_eq(sc.niv[c], 0);
        ck_assert_ptr_null(sc.iv[c]);
    }
    /* no rules at all */
    ck_assert_int_eq(cs_sel_prune(r, 0, 4, 4, &sc), CS_OK);
    ck_assert_ptr_null(cs_sel_lookup(&sc, CS_COLL_BCAST, 100));
    cs_sel_comm_clear(&sc);
}
END_TEST

/* Ranked lists: unknown algorithms, variants with parameters and other collectives' algorithms
 * are skipped; native ends every list, once. */
START_TEST(test_prune_candidates) {
    cs_rule_t r[32];
    cs_sel_comm_t sc;
    char names[512];
    int n = 0;
    memset(&sc, 0, sizeof(sc));
    /* [0, 64): unknown winner, then a registered one, then native */
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, 64, 1, "allreduce/ring_of_the_future", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, 64, 2, "allreduce/recursive_doubling", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, 64, 3, "allreduce/native", "");
    /* [64, 4096): a variant with parameters, another collective's algorithm; no native row */
    r[n++] =
        rule(CS_COLL_ALLREDUCE, 4, 4, 64, 4096, 1, "allreduce/reduce_bcast", "no_such_parameter=4");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 64, 4096, 2, "bcast/binomial", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 64, 4096, 3, "allreduce/reduce_bcast", "");
    /* [4096, inf): nothing usable */
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 4096, INF, 1, "allreduce/nope", "");
    ck_assert_int_eq(cs_sel_prune(r, n, 4, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[CS_COLL_ALLREDUCE], 3);
    cand_names(&sc.iv[CS_COLL_ALLREDUCE][0], names, sizeof(names));
    ck_assert_str_eq(names, "allreduce/recursive_doubling allreduce/native");
    ck_assert_double_eq(sc.iv[CS_COLL_ALLREDUCE][0].median_us[0], 20.0);
    ck_assert_double_eq(sc.iv[CS_COLL_ALLREDUCE][0].native_us, 100.0);
    cand_names(&sc.iv[CS_COLL_ALLREDUCE][1], names, sizeof(names));
    ck_assert_str_eq(names, "allreduce/reduce_bcast allreduce/native");
    cand_names(&sc.iv[CS_COLL_ALLREDUCE][2], names, sizeof(names));
    ck_assert_str_eq(names, "allreduce/native");
    ck_assert_double_eq(sc.iv[CS_COLL_ALLREDUCE][2].median_us[0], 100.0);
    cs_sel_comm_clear(&sc);
}
END_TEST

/* Candidates without their interval's winner (rank 1) are ignored. */
START_TEST(test_prune_orphans) {
    cs_rule_t r[8];
    cs_sel_comm_t sc;
    int n = 0;
    memset(&sc, 0, sizeof(sc));
    r[n++] = rule(CS_COLL_REDUCE, 4, 4, 0, 100, 2, "reduce/binomial", ""); /* before any */
    r[n++] = rule(CS_COLL_REDUCE, 4, 4, 100, INF, 1, "reduce/linear", "");
    r[n++] = rule(CS_COLL_REDUCE, 4, 4, 500, INF, 2, "reduce/binomial", ""); /* other lo */
    ck_assert_int_eq(cs_sel_prune(r, n, 4, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[CS_COLL_REDUCE], 1);
    ck_assert_int_eq(sc.iv[CS_COLL_REDUCE][0].ncand, 2);
    ck_assert_str_eq(sc.iv[CS_COLL_REDUCE][0].cand[0].algo->name, "reduce/linear");
    ck_assert_ptr_null(cs_sel_lookup(&sc, CS_COLL_REDUCE, 50));
    cs_sel_comm_clear(&sc);
}
END_TEST

/* More candidates than fit: the list is cut, native still last. */
START_TEST(test_prune_many_candidates) {
    cs_rule_t r[32];
    cs_sel_comm_t sc;
    const char *algs[2] = {"bcast/binomial", "bcast/linear"};
    int n = 0;
    memset(&sc, 0, sizeof(sc));
    for (int k = 0; k < 20; k++) {
        r[n++] = rule(CS_COLL_BCAST, 4, 4, 0, INF, k + 1, algs[k % 2], "");
    }
    ck_assert_int_eq(cs_sel_prune(r, n, 4, 4, &sc), CS_OK);
    ck_assert_int_eq(sc.iv[CS_COLL_BCAST][0].ncand, CS_SEL_MAX_CANDS);
    ck_assert_str_eq(sc.iv[CS_COLL_BCAST][0].cand[0].algo->name, "bcast/binomial");
    ck_assert_str_eq(sc.iv[CS_COLL_BCAST][0].cand[CS_SEL_MAX_CANDS - 1].algo->name, "bcast/native");
    cs_sel_comm_clear(&sc);
}
END_TEST

/* --- lookup -------------------------------------------------------------------------------- */

START_TEST(test_lookup_boundaries) {
    cs_rule_t r[8];
    cs_sel_comm_t sc;
    int n = 0;
    const cs_sel_interval_t *iv;
    memset(&sc, 0, sizeof(sc));
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 0, 64, 1, "allreduce/native", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 64, 4096, 1, "allreduce/recursive_doubling", "");
    r[n++] = rule(CS_COLL_ALLREDUCE, 4, 4, 4096, INF, 1, "allreduce/reduce_bcast", "");
    ck_assert_int_eq(cs_sel_prune(r, n, 4, 4, &sc), CS_OK);
    iv = sc.iv[CS_COLL_ALLREDUCE];
    ck_assert_ptr_eq(cs_sel_lookup(&sc, CS_COLL_ALLREDUCE, 0), &iv[0]);
    ck_assert_ptr_eq(cs_sel_lookup(&sc, CS_COLL_ALLREDUCE, 63), &iv[0]);
    ck_assert_ptr_eq(cs_sel_lookup(&sc, CS_COLL_ALLREDUCE, 64), &iv[1]);
    ck_assert_ptr_eq(cs_sel_lookup(&sc, CS_COLL_ALLREDUCE, 4095), &iv[1]);
    ck_assert_ptr_eq(cs_sel_lookup(&sc, CS_COLL_ALLREDUCE, 4096), &iv[2]);
    ck_assert_ptr_eq(cs_sel_lookup(&sc, CS_COLL_ALLREDUCE, (uint64_t)1 << 62), &iv[2]);
    ck_assert_ptr_eq(cs_sel_lookup(&sc, CS_COLL_ALLREDUCE, UINT64_MAX - 1), &iv[2]);
    ck_assert_ptr_null(cs_sel_lookup(&sc, CS_COLL_BCAST, 64));
    cs_sel_comm_clear(&sc);
}
END_TEST

/* Gaps hold no rule; many intervals are all found (the binary search). */
START_TEST(test_lookup_gaps_and_many) {
    cs_rule_t r[300];
    cs_sel_comm_t sc;
    int n = 0;
    memset(&sc, 0, sizeof(sc));
    for (int i = 0; i < 257; i++) { /* [20i, 20i + 10) */
        r[n++] = rule(CS_COLL_GATHER, 3, 3, 20 * (uint64_t)i, 20 * (uint64_t)i + 10, 1,
                      i % 2 ? "gather/linear" : "gather/binomial", "");
    }
    ck_assert_int_eq(cs_sel_prune(r, n, 3, 3, &sc), CS_OK);
    ck_assert_int_eq(sc.niv[CS_COLL_GATHER], 257);
    for (uint64_t b = 0; b < 20 * 257 + 40; b++) {
        const cs_sel_interval_t *iv = cs_sel_lookup(&sc, CS_COLL_GATHER, b);
        if (b % 20 < 10 && b < 20 * 257) {
            ck_assert_msg(iv == &sc.iv[CS_COLL_GATHER][b / 20], "%llu bytes: wrong interval",
                          (unsigned long long)b);
        } else {
            ck_assert_msg(iv == NULL, "%llu bytes: found an interval in a gap",
                          (unsigned long long)b);
        }
    }
    cs_sel_comm_clear(&sc);
}
END_TEST

/* --- the selection key --------------------------------------------------------------------- */

/* Per collective of core/coll.def, from MPI arguments as a call on `rank` of `nprocs` would pass
 * them: the key's size as the selector's entry point makes it (KEY, COUNTS) and the `bytes` of
 * the normalised call (FILL, cs_call_finish), which must be equal. Returns the size. */
#define CS_COLL(ID, name, rooted, reduction, neighbor, Mpi, PARAMS, ARGS, FILL, KEY, ARRAYS,       \
                CACHED, Impi)                                                                      \
    static uint64_t key_##name(int rank, int nprocs, const cs_neighbors_t *nbrs,                   \
                               CS_UNPAREN PARAMS) {                                                \
        const cs_call_key_t key = cs_call_key(CS_COLL_##ID, CS_UNPAREN KEY);                       \
        const cs_call_arrays_t arrays = {CS_UNPAREN ARRAYS};                                       \
        uint64_t fast = cs_call_key_bytes(&key, &arrays, nprocs, nbrs);                            \
        cs_call_t call;                                                                            \
        FILL(&call, CS_UNPAREN ARGS);                                                              \
        ck_assert_int_eq(cs_call_finish(&call, comm, rank, nprocs, nbrs), CS_OK);                  \
        ck_assert_msg(fast == call.bytes, "%s on rank %d: key %llu, call %zu bytes", #name, rank,  \
                      (unsigned long long)fast, call.bytes);                                       \
        return fast;                                                                               \
    }
#include "core/coll.def"
#undef CS_COLL

/* Every collective, every rank kind (root, non-root) and MPI_IN_PLACE on either side where MPI
 * allows it, insignificant arguments garbage: the same size, 6 ints per process. */
START_TEST(test_key_bytes) {
    static char buf[4096];
    char *send = buf, *recv = buf + 2048, *in_place = MPI_IN_PLACE;
    const MPI_Datatype I = MPI_INT, NUL = MPI_DATATYPE_NULL;
    const MPI_Comm c = MPI_COMM_SELF;
    const int p = 4, root = 1, want = 6 * (int)sizeof(int);
    const int counts[4] = {6, 6, 6, 6}, uneven[4] = {1, 2, 3, 18}, displs[4] = {0, 6, 12, 18};
    /* root, non-root */
    ck_assert_int_eq(key_bcast(root, p, NULL, send, 6, I, root, c), want);
    ck_assert_int_eq(key_bcast(0, p, NULL, send, 6, I, root, c), want);
    /* root, root in place, non-root (receive side insignificant) */
    ck_assert_int_eq(key_gather(root, p, NULL, send, 6, I, recv, 6, I, root, c), want);
    ck_assert_int_eq(key_gather(root, p, NULL, in_place, -1, NUL, recv, 6, I, root, c), want);
    ck_assert_int_eq(key_gather(0, p, NULL, send, 6, I, NULL, -1, NUL, root, c), want);
    /* root, root in place (receive side), non-root (send side insignificant) */
    ck_assert_int_eq(key_scatter(root, p, NULL, send, 6, I, recv, 6, I, root, c), want);
    ck_assert_int_eq(key_scatter(root, p, NULL, send, 6, I, in_place, -1, NUL, root, c), want);
    ck_assert_int_eq(key_scatter(0, p, NULL, NULL, -1, NUL, recv, 6, I, root, c), want);
    /* root, root in place, non-root */
    ck_assert_int_eq(key_reduce(root, p, NULL, send, recv, 6, I, MPI_SUM, root, c), want);
    ck_assert_int_eq(key_reduce(root, p, NULL, in_place, recv, 6, I, MPI_SUM, root, c), want);
    ck_assert_int_eq(key_reduce(0, p, NULL, send, NULL, 6, I, MPI_SUM, root, c), want);
    /* every rank alike, in place or not */
    ck_assert_int_eq(key_allreduce(0, p, NULL, send, recv, 6, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_allreduce(2, p, NULL, in_place, recv, 6, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_allgather(0, p, NULL, send, 6, I, recv, 6, I, c), want);
    ck_assert_int_eq(key_allgather(2, p, NULL, in_place, -1, NUL, recv, 6, I, c), want);
    ck_assert_int_eq(key_allgatherv(0, p, NULL, send, 6, I, recv, counts, displs, I, c), want);
    ck_assert_int_eq(key_allgatherv(2, p, NULL, in_place, -1, NUL, recv, counts, displs, I, c),
                     want);
    /* allgatherv: the mean block, from the counts (24 ints over 4 processes) */
    ck_assert_int_eq(key_allgatherv(3, p, NULL, send, 18, I, recv, uneven, displs, I, c), want);
    /* alltoall: one block, in place or not (the send side insignificant in place) */
    ck_assert_int_eq(key_alltoall(0, p, NULL, send, 6, I, recv, 6, I, c), want);
    ck_assert_int_eq(key_alltoall(2, p, NULL, in_place, -1, NUL, recv, 6, I, c), want);
    ck_assert_int_eq(key_alltoall(1, p, NULL, send, 3, MPI_DOUBLE, recv, 6, I, c), want);
    /* barrier: no data, always 0 */
    ck_assert_int_eq(key_barrier(3, p, NULL, c), 0);
    /* reduce_scatter_block: one block (what each rank gets), in place or not */
    ck_assert_int_eq(key_reduce_scatter_block(0, p, NULL, send, recv, 6, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_reduce_scatter_block(3, p, NULL, in_place, recv, 6, I, MPI_SUM, c), want);
    /* reduce_scatter: the mean block, as allgatherv, on every rank, in place or not */
    ck_assert_int_eq(key_reduce_scatter(0, p, NULL, send, recv, counts, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_reduce_scatter(2, p, NULL, in_place, recv, counts, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_reduce_scatter(0, p, NULL, send, recv, uneven, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_reduce_scatter(3, p, NULL, in_place, recv, uneven, I, MPI_SUM, c), want);
    /* scan, exscan: the vector, on every rank (exscan's rank 0 too), in place or not */
    ck_assert_int_eq(key_scan(0, p, NULL, send, recv, 6, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_scan(3, p, NULL, in_place, recv, 6, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_exscan(0, p, NULL, send, recv, 6, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_exscan(0, p, NULL, in_place, recv, 6, I, MPI_SUM, c), want);
    ck_assert_int_eq(key_exscan(2, p, NULL, in_place, recv, 3, MPI_DOUBLE, MPI_SUM, c), want);
    /* gatherv, scatterv: this rank's key before cs_comm_agree, the root's mean block from its
     * counts (in place too), a non-root's own block (its count arrays insignificant: NULL) */
    ck_assert_int_eq(key_gatherv(root, p, NULL, send, 6, I, recv, counts, displs, I, root, c),
                     want);
    ck_assert_int_eq(
        key_gatherv(root, p, NULL, in_place, -1, NUL, recv, counts, displs, I, root, c), want);
    ck_assert_int_eq(key_gatherv(root, p, NULL, send, 2, I, recv, uneven, displs, I, root, c),
                     want);
    ck_assert_int_eq(key_gatherv(0, p, NULL, send, 6, I, NULL, NULL, NULL, NUL, root, c), want);
    ck_assert_int_eq(key_scatterv(root, p, NULL, send, counts, displs, I, recv, 6, I, root, c),
                     want);
    ck_assert_int_eq(
        key_scatterv(root, p, NULL, send, uneven, displs, I, in_place, -1, NUL, root, c), want);
    ck_assert_int_eq(key_scatterv(0, p, NULL, NULL, NULL, NULL, NUL, recv, 6, I, root, c), want);
    /* alltoallv: the mean of this rank's 2p blocks, sent and received (in place: received) */
    ck_assert_int_eq(key_alltoallv(0, p, NULL, send, counts, displs, I, recv, counts, displs, I, c),
                     want);
    ck_assert_int_eq(key_alltoallv(2, p, NULL, send, uneven, displs, I, recv, counts, displs, I, c),
                     want);
    ck_assert_int_eq(
        key_alltoallv(1, p, NULL, in_place, NULL, NULL, NUL, recv, uneven, displs, I, c), want);
}
END_TEST

/* The agreed key of gatherv and scatterv (cs_comm_agree's MPI-free half): the mean block over
 * every rank's (count, type size), the counts kept when all type sizes are equal. */
START_TEST(test_key_agreed) {
    static char buf[256];
    const int displs[4] = {0, 1, 3, 6}, uneven[4] = {1, 2, 3, 18};
    const int pairs[8] = {1, 4, 2, 4, 3, 4, 18, 4}, mixed[8] = {1, 4, 2, 4, 3, 4, 9, 8};
    int counts[4];
    cs_call_t call;
    cs_call_fill_gatherv(&call, buf, 2, MPI_INT, buf + 128, uneven, displs, MPI_INT, 1,
                         MPI_COMM_SELF);
    ck_assert_int_eq(cs_call_finish(&call, MPI_COMM_SELF, 1, 4, NULL), CS_OK);
    {
        int pair[2];
        cs_call_agree_pair(&call, pair);
        ck_assert_int_eq(pair[0], 2);
        ck_assert_int_eq(pair[1], (int)sizeof(int));
    }
    cs_call_agreed(&call, pairs, counts);
    ck_assert_uint_eq(call.bytes, 6 * sizeof(int));
    ck_assert_ptr_eq(call.allcounts, counts);
    ck_assert_int_eq(counts[3], 18);
    cs_call_agreed(&call, mixed, counts); /* a rank of another type size: no counts */
    ck_assert_uint_eq(call.bytes, 6 * sizeof(int));
    ck_assert_ptr_null(call.allcounts);
}
END_TEST

/* The neighbourhood collectives: bytes per block (allgather, alltoall), mean bytes per edge,
 * sent and received (v, w), on a rank with 3 in-edges and 2 out-edges (one MPI_PROC_NULL: it
 * is a block all the same), and 0 on a rank without edges. */
START_TEST(test_key_bytes_neighbor) {
    static char buf[4096];
    char *send = buf, *recv = buf + 2048;
    const MPI_Datatype I = MPI_INT, D = MPI_DOUBLE;
    const MPI_Comm c = MPI_COMM_SELF;
    const int p = 4, want = 6 * (int)sizeof(int);
    const int sources[3] = {1, 2, 3}, dests[2] = {MPI_PROC_NULL, 2};
    const cs_neighbors_t nb = {MPI_DIST_GRAPH, 3, 2, sources, dests, 0, NULL, NULL};
    const cs_neighbors_t none = {MPI_DIST_GRAPH, 0, 0, sources, dests, 0, NULL, NULL};
    const int six[3] = {6, 6, 6}, d6[3] = {0, 6, 12}, uneven_in[3] = {0, 4, 20},
              uneven_out[2] = {3, 3};
    const MPI_Aint b6[3] = {0, 24, 48};
    const MPI_Datatype ints[3] = {I, I, I}, mixed_in[3] = {D, I, I};
    const int mixed_counts[3] = {3, 6, 6}; /* 3 doubles = 6 ints in bytes */
    ck_assert_int_eq(key_neighbor_allgather(0, p, &nb, send, 6, I, recv, 6, I, c), want);
    ck_assert_int_eq(key_neighbor_alltoall(0, p, &nb, send, 6, I, recv, 6, I, c), want);
    ck_assert_int_eq(key_neighbor_allgatherv(0, p, &nb, send, 6, I, recv, six, d6, I, c), want);
    ck_assert_int_eq(key_neighbor_alltoallv(0, p, &nb, send, six, d6, I, recv, six, d6, I, c),
                     want);
    ck_assert_int_eq(key_neighbor_alltoallw(0, p, &nb, send, six, b6, ints, recv, six, b6, ints, c),
                     want);
    ck_assert_int_eq(
        key_neighbor_alltoallw(0, p, &nb, send, six, b6, ints, recv, mixed_counts, b6, mixed_in, c),
        want);
    /* 24 ints in, 6 out, over 5 edges: 6 ints per edge */
    ck_assert_int_eq(
        key_neighbor_alltoallv(0, p, &nb, send, uneven_out, d6, I, recv, uneven_in, d6, I, c),
        want);
    /* allgatherv: one block of 3 ints over 2 out-edges, 24 ints in: 6 per edge */
    ck_assert_int_eq(key_neighbor_allgatherv(0, p, &nb, send, 3, I, recv, uneven_in, d6, I, c),
                     want);
    ck_assert_int_eq(
        key_neighbor_alltoallv(0, p, &none, send, NULL, NULL, I, recv, NULL, NULL, I, c), 0);
}
END_TEST

static Suite *select_suite(void) {
    Suite *s = suite_create("select");
    TCase *force = tcase_create("force");
    TCase *env = tcase_create("env");
    TCase *prune = tcase_create("prune");
    TCase *lookup = tcase_create("lookup");
    TCase *key = tcase_create("key");
    tcase_add_test(key, test_key_bytes);
    tcase_add_test(key, test_key_agreed);
    tcase_add_test(key, test_key_bytes_neighbor);
    suite_add_tcase(s, key);
    tcase_add_test(force, test_force_one);
    tcase_add_test(force, test_force_many);
    tcase_add_test(force, test_force_every_algorithm);
    tcase_add_test(force, test_force_and_prune_every_variant);
    tcase_add_test(force, test_force_bad);
    tcase_add_test(force, test_force_bad_keeps_earlier);
    tcase_add_test(force, test_force_short_error_buffer);
    tcase_add_test(env, test_env_defaults);
    tcase_add_test(env, test_env_values);
    tcase_add_test(env, test_env_bad_values);
    tcase_add_test(prune, test_prune_exact_and_nearest);
    tcase_add_test(prune, test_prune_nearest_ppn);
    tcase_add_test(prune, test_prune_ties);
    tcase_add_test(prune, test_prune_per_collective);
    tcase_add_test(prune, test_prune_candidates);
    tcase_add_test(prune, test_prune_orphans);
    tcase_add_test(prune, test_prune_many_candidates);
    tcase_add_test(prune, test_prune_neighbors);
    tcase_add_test(prune, test_prune_neighbors_isomorphic);
    tcase_add_test(prune, test_prune_nb_neighbors);
    tcase_add_test(lookup, test_lookup_boundaries);
    tcase_add_test(lookup, test_lookup_gaps_and_many);
    suite_add_tcase(s, force);
    suite_add_tcase(s, env);
    suite_add_tcase(s, prune);
    suite_add_tcase(s, lookup);
    return s;
}

int main(int argc, char **argv) {
    SRunner *sr = srunner_create(select_suite());
    int failed;
    /* Open MPI's own algorithms (<coll>/ompi) list variants only with dynamic rules on at
     * MPI_Init (algorithms/ompi/ompi.c); a value from the environment wins. */
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
    MPI_Init(&argc, &argv);
    srunner_set_fork_status(sr, CK_NOFORK); /* MPI is initialised once, in this process */
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

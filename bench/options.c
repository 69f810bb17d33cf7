/* collsel-bench option parsing (see options.h). */
#include "options.h"

#include "patterns.h"
#include "registry.h"
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cs_bench_usage[] =
    "usage: mpirun -np N collsel-bench [options]\n"
    "\n"
    "Measures every registered collective algorithm against the MPI library's own collectives\n"
    "and stores measurements and winners in a SQLite database.\n"
    "\n"
    "options:\n"
    "  --db PATH             database (default results/<host>.db; created if missing)\n"
    "  --colls LIST          collectives to tune, comma separated (default: all)\n"
    "                        bcast,gather,scatter,reduce,allreduce,allgather,allgatherv,\n"
    "                        alltoall,barrier,reduce_scatter_block,reduce_scatter,scan,exscan,\n"
    "                        gatherv,scatterv,alltoallv,neighbor_allgather,neighbor_allgatherv,\n"
    "                        neighbor_alltoall,neighbor_alltoallv,neighbor_alltoallw\n"
    "  --algorithms LIST     algorithm globs, comma separated, e.g. 'allreduce/*,bcast/binomial'\n"
    "                        (native collectives are always measured: they are the baseline)\n"
    "  --sizes SPEC          bytes per process: LO:HI[:FACTOR] (default 4:4M:4) or a list\n"
    "                        such as 8,1K,64K; K, M, G suffixes; multiples of 4\n"
    "  --block-sizes SPEC    neighbourhood collectives: bytes per block, as --sizes but any\n"
    "                        byte count (default 1:64K:16: 1, 16, 256, 4K, 64K)\n"
    "  --patterns LIST       neighbourhood patterns to tune on, comma separated (default: all;\n"
    "                        --list shows them)\n"
    "  --comm-sizes LIST     communicator sizes to tune inside the job, the lowest ranks\n"
    "                        (default plan: 2, the powers of two up to the job size and the\n"
    "                        job size; with several nodes also one node and two nodes; the\n"
    "                        job size gets the largest share of --budget; --list shows them)\n"
    "  --budget DURATION     time for the whole run, e.g. 90s, 10m, 1h (default: 2 s per point)\n"
    "  --reps-max N          repetitions per candidate and size at most (default 1000)\n"
    "  --metric POLICY       under which metric a candidate must beat native to replace it:\n"
    "                        sync (one call from a synchronised start, slowest rank), loop\n"
    "                        (back-to-back loop, mean over ranks, like OSU/IMB) or both\n"
    "                        (default); both metrics are measured and stored either way\n"
    "  --resume              continue the last unfinished run with the same options\n"
    "  --list                print the plan (every algorithm variant, size, estimate) and exit\n"
    "  --validate            after a tuning run: measure, interleaved, native vs the selector's\n"
    "                        choice (collsel_* API) vs the best tuned candidate at every point\n"
    "  --validate-passes N   with --validate: sweep every point N times, 1 to 9 (default 3),\n"
    "                        and judge the median per size\n"
    "  --no-refine           measure the --sizes grid only: no points at the MPI library's\n"
    "                        protocol thresholds, no refinement where the winner changes\n"
    "  --no-confirm          no confirmation rounds: a candidate that beats native once replaces\n"
    "                        it (by default the points it won are measured again at the end)\n"
    "  --confirm-rounds N    confirmation rounds, 1 to 4 (default 2): each measures again the\n"
    "                        points a candidate won in the measurement pass and in every round\n"
    "                        before; a candidate replaces native only if it wins in all\n"
    "  --measure-only        stop before the confirmation rounds, the run left unfinished: the\n"
    "                        same command with --resume instead then confirms the wins in a\n"
    "                        fresh process launch and derives the rules (scripts/tune does)\n"
    "  --one-round           stop after the next confirmation round, the run left unfinished:\n"
    "                        with --resume, one round per process launch (scripts/tune does)\n"
    "  --overlap on|off|only the nonblocking forms of the collectives whose nonblocking calls\n"
    "                        collsel serves (all but gatherv, scatterv and alltoallv; the\n"
    "                        neighbourhood ones on their --patterns at --block-sizes), measured\n"
    "                        for overlap (blocking, started then waited, overlapped with a\n"
    "                        compute loop; docs/nonblocking.md) and their nonblocking rules\n"
    "                        derived: on (default; every x16 size, at most 15 % of --budget),\n"
    "                        off, or only (that alone, at every --sizes and --block-sizes size,\n"
    "                        a table per point on stdout)\n"
    "  --quiet               print only errors and the final summary\n"
    "  --help                this text\n";

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CS_ERR_ARG;
}

/* Option `opt`'s value `v` as a count from 1 to max into *out; else CS_ERR_ARG and why. */
static int parse_count(const char *opt, const char *v, int max, int *out, char *err,
                       size_t errlen) {
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (v[0] == '\0' || *end != '\0' || n < 1 || n > max) {
        return fail(err, errlen, "%s: '%s' is not a count from 1 to %d", opt, v, max);
    }
    *out = (int)n;
    return CS_OK;
}

int cs_bench_parse_bytes(const char *text, size_t *out) {
    char *end = NULL;
    unsigned long long v;
    int shift = 0;
    if (text == NULL || !isdigit((unsigned char)text[0])) {
        return CS_ERR_ARG;
    }
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno != 0 || v > SIZE_MAX) {
        return CS_ERR_ARG;
    }
    switch (toupper((unsigned char)*end)) {
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    default:
        break;
    }
    if (shift > 0) {
        if (v > (SIZE_MAX >> shift)) { /* the suffix would overflow */
            return CS_ERR_ARG;
        }
        v <<= shift;
        end++;
    }
    if (toupper((unsigned char)*end) == 'B') {
        end++;
    }
    if (*end != '\0') {
        return CS_ERR_ARG;
    }
    *out = (size_t)v;
    return CS_OK;
}

int cs_bench_parse_duration(const char *text, double *out) {
    double total = 0;
    const char *s = text;
    if (s == NULL || *s == '\0') {
        return CS_ERR_ARG;
    }
    while (*s != '\0') {
        char *end = NULL;
        double v = strtod(s, &end);
        double unit = 1;
        /* Each part starts with a digit or '.': strtod would also take "nan", "inf", signs and
         * leading blanks. */
        if ((!isdigit((unsigned char)*s) && *s != '.') || end == s || !isfinite(v)) {
            return CS_ERR_ARG;
        }
        switch (*end) {
        case 'h':
            unit = 3600;
            end++;
            break;
        case 'm':
            unit = 60;
            end++;
            break;
        case 's':
            end++;
            break;
        case '\0':
            break;
        default:
            return CS_ERR_ARG;
        }
        total += v * unit;
        s = end;
    }
    if (!isfinite(total)) {
        return CS_ERR_ARG;
    }
    *out = total;
    return CS_OK;
}

void cs_bench_format_bytes(size_t bytes, char *buf, size_t len) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) {
        snprintf(buf, len, "%zuM", bytes >> 20);
    } else if (bytes >= 1024 && bytes % 1024 == 0) {
        snprintf(buf, len, "%zuK", bytes >> 10);
    } else {
        snprintf(buf, len, "%zu", bytes);
    }
}

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Splits a comma-separated list in place (the copy lives in `store`). */
static int split(const char *text, char *store, size_t storelen, char **items, int max) {
    int n = 0;
    if (strlen(text) >= storelen) {
        return -1;
    }
    strcpy(store, text);
    for (char *tok = strtok(store, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (n == max) {
            return -1;
        }
        items[n++] = tok;
    }
    return n;
}

/* Parses a --sizes or --block-sizes SPEC (`opt` names it) into sizes[] (*nsizes), ascending and
 * unique; `multiple` is the unit every size must be a multiple of (4: MPI_INT elements, 1: bytes).
 */
static int parse_size_list(const char *opt, const char *text, size_t multiple, size_t *sizes,
                           int *nsizes, char *err, size_t errlen) {
    char store[1024];
    char *items[CS_BENCH_MAX_LIST];
    *nsizes = 0;
    if (strchr(text, ':') != NULL) {
        char *parts[3] = {NULL, NULL, NULL};
        size_t lo, hi, factor = 4;
        int n = 0;
        if (strlen(text) >= sizeof(store)) {
            return fail(err, errlen, "%s: '%s' is too long", opt, text);
        }
        strcpy(store, text);
        for (char *tok = strtok(store, ":"); tok != NULL && n < 3; tok = strtok(NULL, ":")) {
            parts[n++] = tok;
        }
        if (n < 2 || cs_bench_parse_bytes(parts[0], &lo) != CS_OK ||
            cs_bench_parse_bytes(parts[1], &hi) != CS_OK ||
            (n == 3 && cs_bench_parse_bytes(parts[2], &factor) != CS_OK)) {
            return fail(err, errlen, "%s: cannot read '%s' (use LO:HI[:FACTOR], e.g. 4:4M:4)", opt,
                        text);
        }
        if (lo == 0 || hi < lo || factor < 2) {
            return fail(err, errlen, "%s: '%s' needs 0 < LO <= HI and FACTOR >= 2 (e.g. 4:4M:4)",
                        opt, text);
        }
        for (size_t s = lo; s <= hi; s *= factor) {
            if (*nsizes == CS_BENCH_MAX_LIST) {
                return fail(err, errlen, "%s: '%s' gives more than %d sizes", opt, text,
                            CS_BENCH_MAX_LIST);
            }
            sizes[(*nsizes)++] = s;
            if (s > hi / factor) {
                break;
            }
        }
    } else {
        int n = split(text, store, sizeof(store), items, CS_BENCH_MAX_LIST);
        if (n <= 0) {
            return fail(err, errlen, "%s: cannot read '%s' (at most %d sizes)", opt, text,
                        CS_BENCH_MAX_LIST);
        }
        for (int i = 0; i < n; i++) {
            if (cs_bench_parse_bytes(items[i], &sizes[i]) != CS_OK) {
                return fail(err, errlen, "%s: '%s' is not a size (e.g. 8, 64K, 1M)", opt, items[i]);
            }
        }
        *nsizes = n;
    }
    qsort(sizes, (size_t)*nsizes, sizeof(size_t), cmp_size);
    int unique = 0;
    for (int i = 0; i < *nsizes; i++) {
        if (sizes[i] == 0) {
            return fail(err, errlen, "%s: 0 bytes is not a size (the smallest is %zu)", opt,
                        multiple);
        }
        if (sizes[i] % multiple != 0) {
            return fail(err, errlen,
                        "%s: %zu is not a multiple of %zu bytes (the tuning run moves MPI_INT "
                        "elements)",
                        opt, sizes[i], multiple);
        }
        if (sizes[i] > ((size_t)1 << 30)) {
            return fail(err, errlen, "%s: %zu bytes is more than the 1G per process limit", opt,
                        sizes[i]);
        }
        if (unique == 0 || sizes[unique - 1] != sizes[i]) {
            sizes[unique++] = sizes[i];
        }
    }
    *nsizes = unique;
    return CS_OK;
}

/* Every collective: the default of --colls (the neighbourhood ones are tuned on the named
 * patterns, bench/patterns.h). */
static unsigned all_colls(void) {
    return (1u << CS_COLL_COUNT) - 1u;
}

static int parse_colls(const char *text, cs_bench_opts_t *o, char *err, size_t errlen, char *store,
                       size_t storelen) {
    char *items[CS_BENCH_MAX_LIST];
    int n = split(text, store, storelen, items, CS_BENCH_MAX_LIST);
    if (n <= 0) {
        return fail(err, errlen, "--colls: cannot read '%s'", text);
    }
    o->colls = 0;
    for (int i = 0; i < n; i++) {
        cs_coll_t c;
        if (cs_coll_from_name(items[i], &c) != CS_OK) {
            char names[768];
            size_t len = 0;
            names[0] = '\0';
            for (int k = 0; k < CS_COLL_COUNT && len < sizeof(names); k++) {
                len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
                                        len > 0 ? ", " : "", cs_coll_name((cs_coll_t)k));
            }
            return fail(err, errlen, "--colls: unknown collective '%s' (use %s)", items[i], names);
        }
        o->colls |= 1u << c;
    }
    return CS_OK;
}

/* The neighbourhood collectives' bits of cs_bench_opts_t.colls. */
static unsigned neighbor_colls(void) {
    unsigned colls = 0;
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        colls |= cs_coll_is_neighbor((cs_coll_t)c) ? 1u << c : 0;
    }
    return colls;
}

static int parse_patterns(const char *text, cs_bench_opts_t *o, char *err, size_t errlen) {
    char store[1024];
    char *items[CS_BENCH_MAX_LIST];
    int n = split(text, store, sizeof(store), items, CS_BENCH_MAX_LIST);
    if (n <= 0) {
        return fail(err, errlen, "--patterns: cannot read '%s'", text);
    }
    o->patterns = 0;
    for (int i = 0; i < n; i++) {
        int k = cs_bench_pattern_find(items[i]);
        if (k < 0) {
            return fail(err, errlen,
                        "--patterns: unknown pattern '%s' (see collsel-bench --list for the "
                        "patterns)",
                        items[i]);
        }
        o->patterns |= 1u << k;
    }
    return CS_OK;
}

static int parse_algorithms(const char *text, cs_bench_opts_t *o, char *err, size_t errlen,
                            char *store, size_t storelen) {
    char *items[CS_BENCH_MAX_LIST];
    int n = split(text, store, storelen, items, CS_BENCH_MAX_LIST);
    if (n <= 0) {
        return fail(err, errlen, "--algorithms: cannot read '%s'", text);
    }
    for (int i = 0; i < n; i++) {
        int matched = 0;
        for (int a = 0; a < cs_registry_count; a++) {
            matched |= fnmatch(items[i], cs_registry[a]->name, 0) == 0;
        }
        if (!matched) {
            return fail(err, errlen,
                        "--algorithms: '%s' matches no algorithm (see collsel-bench --list)",
                        items[i]);
        }
        o->algorithms[i] = items[i];
    }
    o->nalgorithms = n;
    /* Sorted, so that the canonical args of one plan do not depend on the order given. */
    qsort(o->algorithms, (size_t)n, sizeof(o->algorithms[0]), cmp_str);
    return CS_OK;
}

static int parse_comm_sizes(const char *text, cs_bench_opts_t *o, char *err, size_t errlen) {
    char store[1024];
    char *items[CS_BENCH_MAX_LIST];
    int n = split(text, store, sizeof(store), items, CS_BENCH_MAX_LIST);
    if (n <= 0) {
        return fail(err, errlen, "--comm-sizes: cannot read '%s'", text);
    }
    for (int i = 0; i < n; i++) {
        char *end = NULL;
        long v = strtol(items[i], &end, 10);
        if (*end != '\0' || v < 1 || v > 1 << 24) {
            return fail(err, errlen, "--comm-sizes: '%s' is not a process count >= 1", items[i]);
        }
        o->comm_sizes[i] = (int)v;
    }
    qsort(o->comm_sizes, (size_t)n, sizeof(int), cmp_int);
    o->ncomm_sizes = 0;
    for (int i = 0; i < n; i++) {
        if (o->ncomm_sizes == 0 || o->comm_sizes[o->ncomm_sizes - 1] != o->comm_sizes[i]) {
            o->comm_sizes[o->ncomm_sizes++] = o->comm_sizes[i];
        }
    }
    return CS_OK;
}

/* Static storage for list copies: options point into it. One parse per process. */
/* --overlap on|off|only into o->overlap. */
static int parse_overlap(const char *text, cs_bench_opts_t *o, char *err, size_t errlen) {
    static const char *const names[] = {"on", "off", "only"};
    for (int i = 0; i < 3; i++) {
        if (strcmp(text, names[i]) == 0) {
            o->overlap = i; /* CS_BENCH_OVERLAP_ON, _OFF, _ONLY in this order */
            return CS_OK;
        }
    }
    return fail(err, errlen, "--overlap: '%s' is not on, off or only", text);
}

static char colls_store[1024], algorithms_store[4096];

int cs_bench_parse(int argc, char **argv, cs_bench_opts_t *o, char *err, size_t errlen) {
    int rc = CS_OK;
    const char *sizes = "4:4M:4", *block_sizes = "1:64K:16";
    memset(o, 0, sizeof(*o));
    o->colls = all_colls();
    o->patterns = (1u << cs_bench_npatterns) - 1u;
    o->reps_max = 1000;
    o->metric = CS_DB_METRIC_BOTH;
    o->confirm_rounds = CS_BENCH_CONFIRM_ROUNDS;
    err[0] = '\0';
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = 1;
            takes_value = 0;
        } else if (strcmp(a, "--resume") == 0) {
            o->resume = 1;
            takes_value = 0;
        } else if (strcmp(a, "--list") == 0) {
            o->list = 1;
            takes_value = 0;
        } else if (strcmp(a, "--validate") == 0) {
            o->validate = 1;
            takes_value = 0;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            takes_value = 0;
        } else if (strcmp(a, "--no-refine") == 0) {
            o->no_refine = 1;
            takes_value = 0;
        } else if (strcmp(a, "--no-confirm") == 0) {
            o->no_confirm = 1;
            takes_value = 0;
        } else if (strcmp(a, "--measure-only") == 0) {
            o->measure_only = 1;
            takes_value = 0;
        } else if (strcmp(a, "--one-round") == 0) {
            o->one_round = 1;
            takes_value = 0;
        } else if (v == NULL &&
                   (strcmp(a, "--db") == 0 || strcmp(a, "--colls") == 0 ||
                    strcmp(a, "--algorithms") == 0 || strcmp(a, "--sizes") == 0 ||
                    strcmp(a, "--block-sizes") == 0 || strcmp(a, "--patterns") == 0 ||
                    strcmp(a, "--comm-sizes") == 0 || strcmp(a, "--budget") == 0 ||
                    strcmp(a, "--reps-max") == 0 || strcmp(a, "--metric") == 0 ||
                    strcmp(a, "--overlap") == 0 || strcmp(a, "--confirm-rounds") == 0 ||
                    strcmp(a, "--validate-passes") == 0)) {
            return fail(err, errlen, "%s needs a value (see --help)", a);
        } else if (strcmp(a, "--db") == 0) {
            if (v[0] == '\0') {
                return fail(err, errlen, "--db: empty path");
            }
            o->db_path = v;
        } else if (strcmp(a, "--colls") == 0) {
            CS_CHECK(parse_colls(v, o, err, errlen, colls_store, sizeof(colls_store)));
        } else if (strcmp(a, "--algorithms") == 0) {
            CS_CHECK(
                parse_algorithms(v, o, err, errlen, algorithms_store, sizeof(algorithms_store)));
        } else if (strcmp(a, "--sizes") == 0) {
            sizes = v;
        } else if (strcmp(a, "--block-sizes") == 0) {
            block_sizes = v;
        } else if (strcmp(a, "--patterns") == 0) {
            CS_CHECK(parse_patterns(v, o, err, errlen));
        } else if (strcmp(a, "--comm-sizes") == 0) {
            CS_CHECK(parse_comm_sizes(v, o, err, errlen));
        } else if (strcmp(a, "--budget") == 0) {
            if (cs_bench_parse_duration(v, &o->budget_s) != CS_OK || o->budget_s <= 0) {
                return fail(err, errlen, "--budget: '%s' is not a duration (e.g. 90s, 10m, 1h)", v);
            }
        } else if (strcmp(a, "--metric") == 0) {
            if (cs_db_metric_from_name(v, &o->metric) != CS_OK) {
                return fail(err, errlen, "--metric: unknown policy '%s' (use sync, loop or both)",
                            v);
            }
        } else if (strcmp(a, "--overlap") == 0) {
            CS_CHECK(parse_overlap(v, o, err, errlen));
        } else if (strcmp(a, "--reps-max") == 0) {
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (*end != '\0' || n < 1 || n > 10000000) {
                return fail(err, errlen, "--reps-max: '%s' is not a count >= 1", v);
            }
            o->reps_max = (int)n;
        } else if (strcmp(a, "--confirm-rounds") == 0) {
            CS_CHECK(parse_count(a, v, CS_BENCH_MAX_ROUNDS, &o->confirm_rounds, err, errlen));
        } else if (strcmp(a, "--validate-passes") == 0) {
            CS_CHECK(parse_count(a, v, CS_BENCH_MAX_PASSES, &o->validate_passes, err, errlen));
        } else {
            return fail(err, errlen, "unknown option '%s' (see --help)", a);
        }
        if (takes_value) {
            i++;
        }
    }
    CS_CHECK(parse_size_list("--sizes", sizes, 4, o->sizes, &o->nsizes, err, errlen));
    CS_CHECK(parse_size_list("--block-sizes", block_sizes, 1, o->block_sizes, &o->nblock_sizes, err,
                             errlen));
    if (o->validate_passes > 0 && !o->validate) {
        return fail(err, errlen,
                    "--validate-passes applies to --validate only: add --validate or "
                    "drop it");
    }
    o->validate_passes = o->validate_passes > 0 ? o->validate_passes : CS_BENCH_VALIDATE_PASSES;
    if (o->validate && o->resume) {
        return fail(err, errlen, "--validate cannot be resumed: run it again without --resume");
    }
    if ((o->measure_only || o->one_round) &&
        (o->validate || o->no_confirm || o->overlap == CS_BENCH_OVERLAP_ONLY ||
         (o->measure_only && o->one_round))) {
        const char *other = o->validate                           ? "--validate"
                            : o->no_confirm                       ? "--no-confirm"
                            : o->overlap == CS_BENCH_OVERLAP_ONLY ? "--overlap only"
                                                                  : "--one-round";
        return fail(err, errlen,
                    "%s leaves confirmation rounds to later launches, which %s %s: drop one of "
                    "the two",
                    o->measure_only ? "--measure-only" : "--one-round", other,
                    o->measure_only && o->one_round ? "would not reach" : "has none of");
    }
    /* The plan-defining options, in a fixed order: a resumed run must match them. */
    {
        char buf[256];
        size_t used = 0;
        used += (size_t)snprintf(o->args + used, sizeof(o->args) - used,
                                 "%scolls=%#x sizes=", o->validate ? "validate " : "", o->colls);
        for (int i = 0; i < o->nsizes && used < sizeof(o->args); i++) {
            cs_bench_format_bytes(o->sizes[i], buf, sizeof(buf));
            used +=
                (size_t)snprintf(o->args + used, sizeof(o->args) - used, "%s%s", i ? "," : "", buf);
        }
        for (int i = 0; i < o->ncomm_sizes && used < sizeof(o->args); i++) {
            used += (size_t)snprintf(o->args + used, sizeof(o->args) - used, "%s%d",
                                     i ? "," : " comm_sizes=", o->comm_sizes[i]);
        }
        for (int i = 0; i < o->nalgorithms && used < sizeof(o->args); i++) {
            used += (size_t)snprintf(o->args + used, sizeof(o->args) - used, "%s%s",
                                     i ? "," : " algorithms=", o->algorithms[i]);
        }
        /* The neighbourhood plan, only where it differs from the defaults: the args of runs
         * made before it existed stay resumable. */
        if (o->colls & neighbor_colls()) {
            char blocks[256] = "";
            size_t bu = 0;
            for (int i = 0; i < o->nblock_sizes && bu < sizeof(blocks); i++) {
                cs_bench_format_bytes(o->block_sizes[i], buf, sizeof(buf));
                bu += (size_t)snprintf(blocks + bu, sizeof(blocks) - bu, "%s%s", i ? "," : "", buf);
            }
            if (used < sizeof(o->args)) {
                used += (size_t)snprintf(o->args + used, sizeof(o->args) - used,
                                         " block_sizes=%s patterns=%#x", blocks, o->patterns);
            }
        }
        if (used < sizeof(o->args)) {
            used +=
                (size_t)snprintf(o->args + used, sizeof(o->args) - used, " reps_max=%d budget=%g%s",
                                 o->reps_max, o->budget_s, o->no_refine ? " no_refine" : "");
        }
        if (used < sizeof(o->args) && o->no_confirm) {
            used += (size_t)snprintf(o->args + used, sizeof(o->args) - used, " no_confirm");
        }
        /* only where it differs from the default: earlier runs' args stay resumable */
        if (used < sizeof(o->args) && !o->no_confirm &&
            o->confirm_rounds != CS_BENCH_CONFIRM_ROUNDS) {
            used += (size_t)snprintf(o->args + used, sizeof(o->args) - used, " confirm_rounds=%d",
                                     o->confirm_rounds);
        }
        if (used < sizeof(o->args) && o->validate &&
            o->validate_passes != CS_BENCH_VALIDATE_PASSES) {
            used += (size_t)snprintf(o->args + used, sizeof(o->args) - used, " passes=%d",
                                     o->validate_passes);
        }
        /* only where it differs from the default: earlier runs' args stay resumable */
        if (used < sizeof(o->args) && o->overlap != CS_BENCH_OVERLAP_ON) {
            used += (size_t)snprintf(o->args + used, sizeof(o->args) - used, " overlap=%s",
                                     o->overlap == CS_BENCH_OVERLAP_OFF ? "off" : "only");
        }
        /* The metric policy decides the rules: a resumed run keeps it. */
        if (used < sizeof(o->args)) {
            snprintf(o->args + used, sizeof(o->args) - used, " metric=%s",
                     cs_db_metric_name(o->metric));
        }
    }
out:
    return rc;
}

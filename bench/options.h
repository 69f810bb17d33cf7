/* collsel-bench command line.
 *
 * cs_bench_parse() turns argv into cs_bench_opts_t without touching MPI, the file system or the
 * database, so a bad option is reported (message naming the bad value and what to do) before
 * anything is written. Checks that need the job (communicator sizes against the number of
 * processes) happen in the run. */
#ifndef CS_BENCH_OPTIONS_H
#define CS_BENCH_OPTIONS_H

#include "core/call.h"
#include "db.h"

#include <stddef.h>

#define CS_BENCH_MAX_LIST 64

/* --validate-passes by default, and at most (docs/tuning.md "Validation"). */
#define CS_BENCH_VALIDATE_PASSES 3
#define CS_BENCH_MAX_PASSES      9

/* --confirm-rounds by default (docs/tuning.md "Confirmation"; at most CS_BENCH_MAX_ROUNDS). */
#define CS_BENCH_CONFIRM_ROUNDS 2

/* --overlap (bench/overlap.h): on (the default: the overlap pass after the measurement pass,
 * within CS_BENCH_OVERLAP_SHARE of --budget), off, or only (the overlap pass alone, every
 * --sizes size, a table per point on stdout; the blocking rules stay as they are). */
enum { CS_BENCH_OVERLAP_ON, CS_BENCH_OVERLAP_OFF, CS_BENCH_OVERLAP_ONLY };

typedef struct cs_bench_opts {
    const char *db_path;                       /* NULL: results/<host>.db */
    unsigned colls;                            /* bit (1 << cs_coll_t) per collective to tune */
    const char *algorithms[CS_BENCH_MAX_LIST]; /* globs over algorithm keys; none: all */
    int nalgorithms;
    size_t sizes[CS_BENCH_MAX_LIST]; /* bytes per process, ascending, unique */
    int nsizes;
    /* Neighbourhood collectives: bytes per block (any count of bytes; default 1:64K:16), and
     * the named patterns (bench/patterns.h) to tune them on, a bit per cs_bench_patterns
     * index (default: all). */
    size_t block_sizes[CS_BENCH_MAX_LIST];
    int nblock_sizes;
    unsigned patterns;
    int comm_sizes[CS_BENCH_MAX_LIST]; /* none: the default plan (plan.h) */
    int ncomm_sizes;
    double budget_s; /* whole run; 0: no limit (per-point default applies) */
    int reps_max;    /* repetitions per candidate and size at most */
    int resume, list, quiet, help, validate;
    cs_db_metric_t metric; /* --metric: the policy rules are decided under (default both) */
    int no_refine;         /* --no-refine: the grid only (no threshold or refinement points) */
    int no_confirm;        /* --no-confirm: no confirmation rounds (docs/tuning.md) */
    int measure_only;      /* --measure-only: stop before the confirmation rounds, the run left
                            * for --resume in a fresh launch (not in args: the resumed launch
                            * goes without it) */
    int confirm_rounds;    /* --confirm-rounds: 1..CS_BENCH_MAX_ROUNDS (default 2) */
    int validate_passes;   /* --validate-passes: 1..CS_BENCH_MAX_PASSES (default 3) */
    int one_round;         /* --one-round: stop after the first confirmation round this launch
                            * measured something in, the run left for --resume (not in args) */
    int overlap;           /* --overlap: CS_BENCH_OVERLAP_ON (default), _OFF or _ONLY */
    char args[1024];       /* canonical form of the plan-defining options (for --resume) */
} cs_bench_opts_t;

/* Parses argv[1..argc-1]. On a bad option writes one line to `err` (size errlen) and returns
 * CS_ERR_ARG; `opts` then holds no meaning. Strings point into argv. */
int cs_bench_parse(int argc, char **argv, cs_bench_opts_t *opts, char *err,
                   size_t errlen) CS_MUST_CHECK;

/* Parses "512", "4K", "1M", "2G" (powers of 1024) into bytes. CS_ERR_ARG when malformed. */
int cs_bench_parse_bytes(const char *text, size_t *out) CS_MUST_CHECK;

/* Parses "90", "90s", "10m", "1h", "1h30m" into seconds. CS_ERR_ARG when malformed. */
int cs_bench_parse_duration(const char *text, double *out) CS_MUST_CHECK;

/* Writes `bytes` as "4", "64K", "1M", "1536" into buf. */
void cs_bench_format_bytes(size_t bytes, char *buf, size_t len);

/* The usage text. */
extern const char cs_bench_usage[];

#endif

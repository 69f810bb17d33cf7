/* Protocol thresholds of the MPI library, read through the MPI tool interface (MPI_T).
 *
 * An MPI library switches protocol at message sizes of its own: eager to rendezvous, one
 * fragment to several, one collective algorithm or segment size to another. A collective's
 * ranking can change at such a size, and a rule interval that spans one unmeasured would carry
 * the ranking of one side over to the other. The tuning run therefore measures each threshold
 * found and the size above it (plan.h) and puts a rule boundary at a threshold rather than at
 * the geometric mean of two measured sizes that crosses it (rules.h).
 *
 * Discovery reads every control variable (cvar) of the library whose name matches one of
 * cs_bench_threshold_patterns (one table, in thresholds.c, with where each name comes from),
 * that is bound to no MPI object and holds one integer: its value, when positive, is a
 * threshold in bytes. A library without MPI_T, or one without such cvars, has no thresholds:
 * the run says so and carries on. */
#ifndef CS_BENCH_THRESHOLDS_H
#define CS_BENCH_THRESHOLDS_H

#include "core/status.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define CS_BENCH_MAX_THRESHOLDS 48

typedef struct cs_bench_threshold {
    char name[64]; /* the cvar, e.g. "btl_vader_eager_limit" */
    uint64_t bytes;
} cs_bench_threshold_t;

/* The thresholds found, ordered by bytes then name. */
typedef struct cs_bench_thresholds {
    cs_bench_threshold_t v[CS_BENCH_MAX_THRESHOLDS];
    int n;
    int mpi_t; /* 1: MPI_T could be initialised (n may still be 0) */
} cs_bench_thresholds_t;

/* The cvar name patterns (fnmatch globs), NULL-terminated. */
extern const char *const cs_bench_threshold_patterns[];

/* Whether cvar `name` looks like a protocol threshold (matches a pattern). */
int cs_bench_threshold_name(const char *name);

/* Adds threshold (name, bytes) to t in order; a value of 0 (unset), a full table or a name
 * longer than the table holds is ignored. */
void cs_bench_thresholds_add(cs_bench_thresholds_t *t, const char *name, uint64_t bytes);

/* Fills t with the thresholds of this process's MPI library (local; MPI must be initialised).
 * Never fails: without MPI_T, t->mpi_t is 0 and t->n 0. */
void cs_bench_thresholds_discover(cs_bench_thresholds_t *t);

/* Collective over `comm`: rank 0 discovers, every rank receives rank 0's thresholds (the ranks
 * must agree on the sizes they measure). */
int cs_bench_thresholds_find(cs_bench_thresholds_t *t, MPI_Comm comm) CS_MUST_CHECK;

/* The distinct threshold values, ascending, into out[0..cap-1]; returns how many. */
int cs_bench_thresholds_bytes(const cs_bench_thresholds_t *t, uint64_t *out, int cap);

/* One line for the user: "protocol thresholds (MPI_T): btl_vader_eager_limit=4096 ...", or why
 * there are none. */
void cs_bench_thresholds_format(const cs_bench_thresholds_t *t, char *buf, size_t len);

#endif

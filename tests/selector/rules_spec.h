/* The rules the selector tests write into their databases (rules_spec.c), and what the selector
 * must make of them.
 *
 * Every communicator size gets the same rules, so what a call dispatches to does not depend on
 * which tuned size the selector picks as the nearest; the tests check that choice separately
 * (collsel_explain's "tuned at N processes"). The exceptions: intervals with a comm_size are the
 * rules of that size only, for a collective whose best algorithm depends on the process count
 * (an orth variant fits only the grids of its dims); sizes without such intervals get the
 * collective's other ones. And with --grids (cs_spec_grid) allreduce ranks an orth variant
 * for exactly its size first at every size that has a 2D grid. */
#ifndef CS_SEL_RULES_SPEC_H
#define CS_SEL_RULES_SPEC_H

#include <stdint.h>

/* hi_bytes of an interval without upper bound (the value of CS_RULE_UNBOUNDED). */
#define CS_SPEC_UNBOUNDED UINT64_MAX

#define CS_SPEC_MAX_RANKED 4

/* One size interval [lo_bytes, hi_bytes) of one collective. */
typedef struct cs_spec_interval {
    const char *coll;
    uint64_t lo_bytes, hi_bytes;
    /* The database's candidates, best first: "<coll>/<alg>" or "<coll>/<alg>(key=value)";
     * NULL after the last. May name algorithms that are not registered. */
    const char *ranked[CS_SPEC_MAX_RANKED + 1];
    /* The selector's ranked list for the interval, as collsel_explain prints it after
     * "ranked:": the registered candidates without parameters, in order, native last. Its
     * first word is the algorithm a call of this size must run. */
    const char *expect;
    /* 0: the rules of every communicator size that has no interval of its own for this
     * collective; N: the rules tuned at N processes only. */
    int comm_size;
} cs_spec_interval_t;

extern const cs_spec_interval_t cs_spec[];
extern const int cs_spec_count;

/* 1 when interval `iv` is one of the rules tuned at `comm_size` processes. */
int cs_spec_applies(const cs_spec_interval_t *iv, int comm_size);

/* The interval of `coll` that holds selection key `bytes` in the rules tuned at `tuned`
 * processes, or NULL. */
const cs_spec_interval_t *cs_spec_find(const char *coll, uint64_t bytes, int tuned);

/* --grids (cs_make_rules_db, cs_sel_dispatch): in the rules of a size with a 2D grid, every
 * allreduce interval ranks allreduce/orth(dims=AxB) first, ahead of its candidates here: a
 * variant that runs only on communicators of exactly that size. A is the smallest factor >= 2
 * of `size`, B = size / A >= 2 (4: 2x2); into *a and *b. 0 when the size has no grid (1, a
 * prime). */
int cs_spec_grid(int size, int *a, int *b);

/* The selector's ranked list for interval `iv` in the rules tuned at `tuned` processes, as
 * collsel_explain prints it after "ranked:", into `out`: iv->expect, after the grid variant
 * when `grids` (--grids) gives `tuned` one. Returns out. */
const char *cs_spec_ranked(const cs_spec_interval_t *iv, int tuned, int grids, char *out,
                           int outlen);

/* The algorithm the selector chooses for a call of `coll` with selection key `bytes` under the
 * rules tuned at `tuned` processes (with the grid variants when `grids`), into `out`: the first
 * word of cs_spec_ranked (what collsel_explain names) when nprocs is 0, else the first word
 * that can run on a communicator of `nprocs` processes (an orth variant whose dims do not
 * multiply to nprocs cannot: the selector runs the next candidate). NULL when no interval holds
 * the key. */
const char *cs_spec_expected(const char *coll, uint64_t bytes, int tuned, int grids, int nprocs,
                             char *out, int outlen);

#endif

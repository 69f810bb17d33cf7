/* The rules the selector tests write into their databases (rules_spec.c), and what the selector
 * must make of them.
 *
 * Every communicator size gets the same rules, so what a call dispatches to does not depend on
 * which tuned size the selector picks as the nearest; the tests check that choice separately
 * (collsel_explain's "tuned at N processes"). */
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
} cs_spec_interval_t;

extern const cs_spec_interval_t cs_spec[];
extern const int cs_spec_count;

/* The algorithm a call of `coll` with selection key `bytes` must run under these rules
 * (written into `out`, the first word of `expect`); NULL when no interval holds it. */
const char *cs_spec_expected(const char *coll, uint64_t bytes, char *out, int outlen);

#endif

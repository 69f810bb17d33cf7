/* Algorithm parameters and variants.
 *
 * An algorithm may take parameters (orthogonal grids: `dims=2x4`; DPML: `leaders=2`,
 * `segments=4`). A variant is an algorithm with values for all of them; it is named
 * `<coll>/<alg>(key=value,...)` with keys sorted, and without parentheses when the algorithm
 * has no parameters. The same text names it on the command line, in logs, in COLLSEL_FORCE and
 * (the part in parentheses) in the database's `params` column.
 *
 * cs_params_t holds the values as text, sorted by key, every declared key present (defaults
 * filled in), unused bytes zero, so two parameter sets compare with memcmp. */
#ifndef CS_PARAMS_H
#define CS_PARAMS_H

#include "status.h"

#include <stddef.h>

#define CS_MAX_PARAMS  4
#define CS_PARAM_KEY   16
#define CS_PARAM_VALUE 32

/* One declared parameter: key, one line of meaning, default value (text). */
typedef struct cs_param_spec {
    const char *key;
    const char *desc;
    const char *def;
} cs_param_spec_t;

typedef struct cs_params {
    int n;
    char key[CS_MAX_PARAMS][CS_PARAM_KEY];
    char value[CS_MAX_PARAMS][CS_PARAM_VALUE];
} cs_params_t;

/* Fills `out` with the defaults of specs[0..nspecs-1]. */
void cs_params_defaults(const cs_param_spec_t *specs, int nspecs, cs_params_t *out);

/* Parses "key=value,..." (NULL or "" = all defaults) against the specs. CS_ERR_ARG with a
 * message naming the bad key or value in err (errlen bytes) on an unknown key, a repeated key,
 * a missing '=' or a value that does not fit. */
int cs_params_parse(const cs_param_spec_t *specs, int nspecs, const char *text, cs_params_t *out,
                    char *err, size_t errlen) CS_MUST_CHECK;

/* Sets `key` to `value` in `p` (a variants() helper); CS_ERR_ARG for an undeclared key or a
 * value that does not fit. */
int cs_params_set(cs_params_t *p, const char *key, const char *value) CS_MUST_CHECK;

/* Writes "key=value,..." (sorted; "" when none) into buf. */
void cs_params_format(const cs_params_t *p, char *buf, size_t len);

/* The value of `key`, or NULL. */
const char *cs_params_get(const cs_params_t *p, const char *key);

/* The value of `key` as an integer; CS_ERR_ARG when absent or not an integer. */
int cs_params_get_int(const cs_params_t *p, const char *key, int *out) CS_MUST_CHECK;

/* 1 when a and b hold the same values. */
int cs_params_equal(const cs_params_t *a, const cs_params_t *b);

#endif

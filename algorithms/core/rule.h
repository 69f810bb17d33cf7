/* A rule: what runs for one size interval of one collective on one communicator shape.
 *
 * The one rule type of collsel. collsel-bench derives rules from its measurements and stores
 * them (db/), the selector reads them back and broadcasts them as a flat array (so the type is
 * fixed size and holds no pointers), and collsel-report draws them. Rules of one
 * (coll, comm_size, ppn) cover every size exactly once: intervals [lo_bytes, hi_bytes) from 0,
 * the last one unbounded (hi_bytes == CS_RULE_UNBOUNDED). Within an interval the candidates
 * are ranked from 1 (the winner); native always ends the list.
 *
 * Names never truncate: cs_rule_set_variant() refuses a name that does not fit. */
#ifndef CS_RULE_H
#define CS_RULE_H

#include "call.h"
#include "params.h"
#include "status.h"

#include <stdint.h>

/* The upper bound of the last interval: no upper bound. */
#define CS_RULE_UNBOUNDED UINT64_MAX

/* Longest algorithm key ("<coll>/<alg>") and params text ("key=value,...") a rule holds, with
 * the terminating NUL. CS_RULE_PARAMS fits every formatted cs_params_t. */
#define CS_RULE_ALGORITHM 64
/* Longest neighbourhood pattern name a rule holds, with the NUL ("" for the other collectives). */
#define CS_RULE_PATTERN 32
#define CS_RULE_PARAMS  (CS_MAX_PARAMS * (CS_PARAM_KEY + CS_PARAM_VALUE))

typedef struct cs_rule {
    int64_t machine_id; /* the machine it was tuned on; 0 = unknown */
    int64_t run_id;     /* the run that decided it; 0 = unknown */
    cs_coll_t coll;
    int comm_size, ppn;
    int rank;                    /* 1 = the winner */
    uint64_t lo_bytes, hi_bytes; /* lo_bytes <= bytes < hi_bytes */
    double median_us, native_us; /* at the interval's first size; NaN = unknown */
    double p_value;              /* rank-sum test against native; NaN for native itself */
    double setup_us; /* the candidate's one-time setup per communicator (measured); 0: none */
    char algorithm[CS_RULE_ALGORITHM];
    char params[CS_RULE_PARAMS];
    char pattern[CS_RULE_PATTERN]; /* the tuned neighbourhood pattern (docs/neighbor.md); "" */
} cs_rule_t;

/* Sets r->algorithm and r->params (NULL params: ""). CS_ERR_ARG, leaving both empty, when
 * either does not fit. */
int cs_rule_set_variant(cs_rule_t *r, const char *algorithm, const char *params) CS_MUST_CHECK;

#endif

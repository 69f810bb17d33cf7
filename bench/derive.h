/* Rule derivation: from a run's stored measurements to the rules of its machine.
 *
 * For each (collective, communicator size, processes per node) the run measured, the samples of
 * every candidate at every size are summarised against native (cs_bench_summarise: outlier
 * removal, rank-sum test) and turned into ranked size intervals (cs_bench_rules, rules.h); the
 * rules replace that key's previous rules, all keys in one transaction.
 *
 * Why the samples are read back from the database rather than kept from the run: the database
 * is the run's record, and the only complete one. A resumed run (--resume after a kill) skips
 * the points stored before the kill, and their samples exist only in the database; a run that
 * kept its own samples would have to merge them with those rows point by point, two sources
 * that must agree. Reading every measurement of the run once at the end (rank 0, a sequential
 * read of a local file; a few MB for a full plan) gives the same rules for a run killed and
 * resumed any number of times as for one that ran through, from exactly the rows that are
 * stored (samples_us, every repetition as timed), and memory is held only while deriving, not
 * for the whole run. */
#ifndef CS_BENCH_DERIVE_H
#define CS_BENCH_DERIVE_H

#include "core/rule.h"
#include "db.h"

#include <stdint.h>

/* What the core-to-core probe saw over one run (table core_state, corestate.h), and what the
 * rules made of it. */
typedef struct cs_bench_core_seen {
    int points;             /* rows: a point in one launch each */
    int far;                /* of those, in the far state (cs_bench_core_far) */
    double near_ns, top_ns; /* the smallest round trip (the near state) and the largest */
    int unproven;           /* wins left out as unproven (cs_bench_core_unproven): a candidate
                             * at a size */
} cs_bench_core_seen_t;

/* Rank 0: derives the rules of every (coll, comm_size, ppn) that run `run_id` of machine
 * `machine_id` has measurements of, from those measurements, and stores them; *nrules rows.
 * The run's core-to-core states (table core_state, corestate.h) decide which wins are unproven
 * (cs_bench_core_unproven, rules.h): those cannot win; *cores says what the states were and
 * how many wins that left out.
 * thresholds[0..nthresholds-1] (ascending; NULL when 0) are the MPI library's protocol
 * thresholds, where boundaries go (cs_bench_rules_at). A size without a native measurement (a
 * point cut short) gets no rule. On failure no rule changes; CS_ERR_ARG for a stored name that
 * does not fit a cs_rule_t. */
int cs_bench_derive_rules(cs_db_t *db, int64_t machine_id, int64_t run_id,
                          const uint64_t *thresholds, int nthresholds, int *nrules,
                          cs_bench_core_seen_t *cores) CS_MUST_CHECK;

/* Rank 0, for boundary refinement: the winner (rank 1, cs_bench_rank under `metric`, the run's
 * policy) at every size run `run_id` has measured for key (coll, comm_size, ppn), from the stored
 * measurements (so a resumed run decides as the killed one would have): sizes[0..*n-1] ascending,
 * winner[i] an id, equal for the same variant. At most `cap` sizes. */
int cs_bench_derive_winners(cs_db_t *db, int64_t run_id, cs_db_metric_t metric, int oversubscribed,
                            cs_coll_t coll, int comm_size, int ppn, uint64_t *sizes, int *winner,
                            int cap, int *n) CS_MUST_CHECK;

/* The confirmation pass (docs/tuning.md "Confirmation") measures again, with native, the
 * candidates that beat native at a size: at most this many, the best first. */
#define CS_BENCH_CONFIRM_CANDS 2

/* One size to confirm: the candidates (variant keys and parameter texts) that beat native there,
 * best first; of the neighbourhood pattern `pattern` ("" for the other collectives). */
typedef struct cs_bench_contender {
    uint64_t bytes;
    int k;
    char pattern[CS_RULE_PATTERN];
    char algorithm[CS_BENCH_CONFIRM_CANDS][CS_RULE_ALGORITHM];
    char params[CS_BENCH_CONFIRM_CANDS][CS_RULE_PARAMS];
} cs_bench_contender_t;

/* Rank 0, for confirmation round `round` (1..CS_BENCH_MAX_ROUNDS, else CS_ERR_ARG): every size
 * of key (coll, comm_size, ppn) of run `run_id` at which some candidate beats native under
 * `metric` (as cs_bench_derive_winners ranks them, from the stored measurements) and, at a size
 * the rounds before measured, beat it again in each of them (as rules decide: rules.h), with its
 * best CS_BENCH_CONFIRM_CANDS candidates; for a neighbourhood collective every size of each of
 * its patterns, with the pattern's name. out[0..*n-1] by pattern (as the database orders them),
 * then ascending size; at most `cap`. out NULL: *n is only counted; comm_size 0: over every key
 * of the run, patterns included. */
int cs_bench_derive_contenders(cs_db_t *db, int64_t run_id, cs_db_metric_t metric,
                               int oversubscribed, int round, cs_coll_t coll, int comm_size,
                               int ppn, cs_bench_contender_t *out, int cap, int *n) CS_MUST_CHECK;

#endif

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

#include "db.h"

#include <stdint.h>

/* Rank 0: derives the rules of every (coll, comm_size, ppn) that run `run_id` of machine
 * `machine_id` has measurements of, from those measurements, and stores them; *nrules rows.
 * thresholds[0..nthresholds-1] (ascending; NULL when 0) are the MPI library's protocol
 * thresholds, where boundaries go (cs_bench_rules_at). A size without a native measurement (a
 * point cut short) gets no rule. On failure no rule changes; CS_ERR_ARG for a stored name that
 * does not fit a cs_rule_t. */
int cs_bench_derive_rules(cs_db_t *db, int64_t machine_id, int64_t run_id,
                          const uint64_t *thresholds, int nthresholds, int *nrules) CS_MUST_CHECK;

/* Rank 0, for boundary refinement: the winner (rank 1, cs_bench_rank under `metric`, the run's
 * policy) at every size run `run_id` has measured for key (coll, comm_size, ppn), from the stored
 * measurements (so a resumed run decides as the killed one would have): sizes[0..*n-1] ascending,
 * winner[i] an id, equal for the same variant. At most `cap` sizes. */
int cs_bench_derive_winners(cs_db_t *db, int64_t run_id, cs_db_metric_t metric, cs_coll_t coll,
                            int comm_size, int ppn, uint64_t *sizes, int *winner, int cap,
                            int *n) CS_MUST_CHECK;

#endif

/* Rule derivation: from a run's stored measurements to the rules of its machine.
 *
 * For each (collective, communicator size, processes per node) the run measured, the samples of
 * every candidate at every size are summarised against native (cs_bench_summarise: outlier
 * removal, rank-sum test) and turned into ranked size intervals (cs_bench_rules, rules.h); the
 * rules replace that key's previous rules, all keys in one transaction. */
#ifndef CS_BENCH_DERIVE_H
#define CS_BENCH_DERIVE_H

#include "db.h"

#include <stdint.h>

/* Rank 0: derives the rules of every (coll, comm_size, ppn) that run `run_id` of machine
 * `machine_id` measured and stores them; *nrules rows. On failure no rule changes. */
int cs_bench_derive_rules(cs_db_t *db, int64_t machine_id, int64_t run_id,
                          int *nrules) CS_MUST_CHECK;

#endif

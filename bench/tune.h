/* collsel-bench: the tuning run from the command line to the database.
 *
 * cs_bench_main() parses the options (a bad one: message on rank 0, exit status 2, nothing
 * written), plans every (communicator size, collective, size) point with its candidates (the
 * native collective first, then each registered algorithm the --algorithms globs select),
 * and either prints the plan (--list) or runs it: rank 0 opens the database, records the
 * machine and a 'running' run (or resumes one), then every point is verified, timed
 * (measure.h) and stored in one transaction, so a killed run loses at most the point in
 * progress and --resume skips the points already stored. At the end the rules are derived from
 * all of the run's measurements (rules.h), the run is marked 'done' and a summary printed.
 * Only rank 0 touches the database or prints. */
#ifndef CS_BENCH_TUNE_H
#define CS_BENCH_TUNE_H

#include "core/algo.h"

#include <mpi.h>

/* Runs collsel-bench with argv over `world` (MPI already initialised). `extra` algorithms
 * (tests only; may be NULL) join the registered ones as candidates. Returns the process exit
 * status: 0 done, 1 failure (database, MPI), 2 bad options. */
int cs_bench_main(int argc, char **argv, const cs_algo_t *const *extra, int nextra, MPI_Comm world);

#endif

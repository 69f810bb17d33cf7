/* Synchronised repetitions: a common clock and start windows.
 *
 * A barrier releases ranks at different times, so a collective timed from each rank's own
 * barrier exit looks faster than it is (a root that leaves first has sent before the others
 * start their clocks). collsel-bench instead starts every repetition at an agreed time on a
 * common clock, as ReproMPI's window-based scheme does:
 *   - cs_bench_sync_init() estimates each rank's clock offset to rank 0 by ping-pong (the
 *     exchange with the shortest round trip wins) and measures how long a broadcast takes;
 *   - before each timed call rank 0 broadcasts a start time `lead` seconds ahead; every rank
 *     waits for it on the common clock, runs, and reports end - start. A rank that received the
 *     start time too late marks the repetition invalid; it is discarded and the lead doubled,
 *     up to CS_BENCH_LEAD_MAX_S (cs_bench_sync_late); each repetition on time shrinks it again
 *     towards the initial lead (cs_bench_sync_on_time).
 * The repetition's time is the maximum over ranks of end - start. */
#ifndef CS_BENCH_SYNC_H
#define CS_BENCH_SYNC_H

#include "core/status.h"

#include <mpi.h>

typedef struct cs_bench_sync {
    double offset; /* common time = MPI_Wtime() + offset (rank 0: 0) */
    double lead;   /* seconds between announcing a start time and the start */
    double lead0;  /* the initial lead (cs_bench_sync_init): cs_bench_sync_on_time's floor */
} cs_bench_sync_t;

/* The longest lead. On a machine loaded far beyond its cores a rank can be descheduled for
 * longer than any lead, and a lead doubled without bound reached minutes per start (every
 * repetition of a point with 35 candidates late at load 15 on 2 cores: the run never moved
 * again). 50 ms is several scheduler time slices. */
#define CS_BENCH_LEAD_MAX_S 0.05

/* Estimates clock offsets and the initial lead over `comm` (collective). */
int cs_bench_sync_init(cs_bench_sync_t *s, MPI_Comm comm) CS_MUST_CHECK;

/* The common clock. */
double cs_bench_sync_now(const cs_bench_sync_t *s);

/* Agrees on a start time (collective): rank 0 chooses now + lead and broadcasts it. *late is
 * set when this rank learnt it after it had passed. Returns when the start time is reached. */
int cs_bench_sync_start(const cs_bench_sync_t *s, MPI_Comm comm, double *start,
                        int *late) CS_MUST_CHECK;

/* A repetition was late: doubles the lead, up to CS_BENCH_LEAD_MAX_S. Returns 1 when the lead
 * was already at its maximum. Every rank must call it alike (the lead is the same on all). */
int cs_bench_sync_late(cs_bench_sync_t *s);

/* A repetition was on time: shrinks the lead by a quarter, down to the initial lead, so that one
 * burst of load does not slow every later start of the run. Every rank alike. */
void cs_bench_sync_on_time(cs_bench_sync_t *s);

#endif

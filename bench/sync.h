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
 *     start time too late marks the repetition invalid; it is discarded and the lead doubled.
 * The repetition's time is the maximum over ranks of end - start. */
#ifndef CS_BENCH_SYNC_H
#define CS_BENCH_SYNC_H

#include "core/status.h"

#include <mpi.h>

typedef struct cs_bench_sync {
    double offset; /* common time = MPI_Wtime() + offset (rank 0: 0) */
    double lead;   /* seconds between announcing a start time and the start */
} cs_bench_sync_t;

/* Estimates clock offsets and the initial lead over `comm` (collective). */
int cs_bench_sync_init(cs_bench_sync_t *s, MPI_Comm comm) CS_MUST_CHECK;

/* The common clock. */
double cs_bench_sync_now(const cs_bench_sync_t *s);

/* Agrees on a start time (collective): rank 0 chooses now + lead and broadcasts it. *late is
 * set when this rank learnt it after it had passed. Returns when the start time is reached. */
int cs_bench_sync_start(const cs_bench_sync_t *s, MPI_Comm comm, double *start,
                        int *late) CS_MUST_CHECK;

#endif

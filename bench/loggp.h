/* The machine's LogGP parameters, measured by collsel-bench (docs/neighbor.md).
 *
 * The neighbourhood collectives' tree balancing (Hoefler and Schneider, section II-B1) weighs a
 * message's latency L against its per-message overhead o, the gap g between consecutive sends
 * and the time per byte G. collsel-bench measures them once per tuning run between ranks 0 and 1
 * of the job (the same node when a node holds two ranks), the other ranks waiting:
 *   - rtt(k): ping-pong of k bytes, the median round trip over CS_BENCH_LOGGP_REPS, after
 *     warm-up, for k = CS_BENCH_LOGGP_SMALL and CS_BENCH_LOGGP_LARGE;
 *   - send: the sender's time inside one PMPI_Send of CS_BENCH_LOGGP_SMALL bytes (an eager send
 *     returns once the message is handed over), median; the receiver acknowledges each;
 *   - burst: CS_BENCH_LOGGP_BURST back-to-back sends of CS_BENCH_LOGGP_SMALL bytes, the sender's
 *     time per send, median.
 * cs_bench_loggp_fit turns these into the model's parameters: o = send, g = burst,
 * L = rtt(small) / 2 - 2 o (a small message's one-way time is o + L + o) and
 * G = (rtt(large) - rtt(small)) / 2 / (large - small), each clamped at 0 (o at a small positive
 * floor, since the model divides by it). */
#ifndef CS_BENCH_LOGGP_H
#define CS_BENCH_LOGGP_H

#include "core/status.h"
#include "db.h"

#include <mpi.h>

#define CS_BENCH_LOGGP_SMALL 8
#define CS_BENCH_LOGGP_LARGE 16384
#define CS_BENCH_LOGGP_REPS  101
#define CS_BENCH_LOGGP_BURST 32
#define CS_BENCH_LOGGP_MIN_O 1e-3 /* microseconds: o's floor */

/* What the ping-pong measured (microseconds). */
typedef struct cs_bench_loggp_raw {
    double rtt_small_us, rtt_large_us; /* median round trips */
    double send_us;                    /* median time in one small PMPI_Send */
    double burst_us;                   /* median time per send in a burst */
} cs_bench_loggp_raw_t;

/* The LogGP parameters of `raw` into l's l_us, o_us, g_us and g_per_byte_us (see above); the
 * other fields of *l are left alone. CS_ERR_ARG for a negative or non-finite input. */
int cs_bench_loggp_fit(const cs_bench_loggp_raw_t *raw, cs_db_loggp_t *l) CS_MUST_CHECK;

/* Measures raw on ranks 0 and 1 of `comm` and fits it into *l on every rank (collective over
 * comm, which needs at least two processes; CS_ERR_ARG otherwise). CS_ERR_MPI on an MPI error,
 * CS_ERR_NOMEM when out of memory. */
int cs_bench_loggp_measure(MPI_Comm comm, cs_bench_loggp_raw_t *raw,
                           cs_db_loggp_t *l) CS_MUST_CHECK;

#endif

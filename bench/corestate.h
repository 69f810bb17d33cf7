/* The core-to-core state of the machine (docs/tuning.md "The host moves the cores").
 *
 * On a virtual machine the host can place its virtual CPUs on physical cores that share a
 * cache or on cores far apart, and move them between the two for seconds to minutes. Measured
 * on the 2-core development machine: a cache line's round trip between its two CPUs was
 * 55-80 ns or 320-380 ns, changing many times an hour, and Open MPI's pipelined reduce trees
 * ran 0.6 x native in the near state and 1.7-2.2 x in the far one, the same binary and size.
 * collsel-bench probes the state before every point and stores it with the point (table
 * core_state), so that the rules can tell a win that holds in both states from one measured in
 * one (derive.h), and a validation can say which state it ran in.
 *
 * The probe: world rank 0 ping-pongs one cache line between two threads, one pinned to its own
 * CPU and one to another CPU that a rank of its node is bound to (at most
 * CS_BENCH_CORE_PAIRS of them, spread over the node's ranks), CS_BENCH_CORE_BATCHES batches of
 * CS_BENCH_CORE_BATCH round trips each; a pair's figure is its fastest batch (the others may
 * have waited for a descheduled thread: on an oversubscribed node the other ranks share those
 * cores), the state the largest over the pairs. It takes a few milliseconds; it makes no MPI
 * call and changes no binding outside the call. */
#ifndef CS_BENCH_CORESTATE_H
#define CS_BENCH_CORESTATE_H

#include "core/status.h"

#include <mpi.h>

#define CS_BENCH_CORE_PAIRS   4
#define CS_BENCH_CORE_BATCH   64
#define CS_BENCH_CORE_BATCHES 32
#define CS_BENCH_CORE_GIVE_UP 0.05 /* seconds a pair may take before the probe gives it up */
/* A point is in the far state when its round trip is more than this times the smallest of its
 * run (the near state); 55-80 against 320-380 ns on the development machine. */
#define CS_BENCH_CORE_FAR 2.0

/* The CPUs the probe pairs: cpu[0] is world rank 0's, cpu[1..n-1] the others; n < 2: no probe
 * (one CPU on rank 0's node). */
typedef struct cs_bench_cores {
    int n;
    int cpu[CS_BENCH_CORE_PAIRS + 1];
} cs_bench_cores_t;

/* Collective over `world`: finds the CPUs (the first CPU of each rank's binding on world rank
 * 0's node; when they are all one CPU, the other CPUs rank 0 may run on). */
int cs_bench_cores_find(MPI_Comm world, cs_bench_cores_t *cores) CS_MUST_CHECK;

/* The state now, in nanoseconds per round trip (above); NaN when there is nothing to probe or no
 * pair could be probed (a thread not pinned, or one that never ran within CS_BENCH_CORE_GIVE_UP).
 * Called by world rank 0 only. */
double cs_bench_cores_rtt(const cs_bench_cores_t *cores);

/* 1 when `rtt_ns` is in the far state against `near_ns`, the smallest of its run. */
static inline int cs_bench_core_far(double rtt_ns, double near_ns) {
    return rtt_ns > CS_BENCH_CORE_FAR * near_ns;
}

#endif

/* exscan/linear: the exclusive prefix passed along a chain of ranks, 0 -> 1 -> ... -> p-1.
 *
 * The chain of scan/linear (scan_linear.c, where the header comment and the step table are)
 * with each rank keeping the prefix it received, x_0 op ... op x_(r-1), and passing on the
 * prefix including its own vector. Rank 0's receive buffer is undefined in MPI and left
 * untouched. Rank order kept: correct for non-commutative ops.
 * Cost: (p-1)(alpha + n beta) + (p-2) n gamma along the chain. Rounds per rank: 2; rank 0: 1.
 * Requirements: none. Parameters: none. Scratch: n (2n in place; rank p-1: none).
 */
#include "builders.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    return cs_build_scan_linear(s, c, 1);
}

const cs_algo_t cs_algo_exscan_linear = {
    .name = "exscan/linear",
    .coll = CS_COLL_EXSCAN,
    .desc = "chain 0 -> 1 -> ... -> p-1, prefixes in rank order",
    .build = build,
};

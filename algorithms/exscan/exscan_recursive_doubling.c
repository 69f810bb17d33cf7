/* exscan/recursive_doubling: Hillis-Steele prefix doubling for the exclusive prefix, any p.
 *
 * The doubling of scan/recursive_doubling (scan_recursive_doubling.c, where the header comment
 * and the step table are) with the result, x_0 op ... op x_(r-1), kept in the receive buffer
 * apart from the partial result that is sent on (scratch). Rank 0's receive buffer is undefined
 * in MPI and left untouched. Rank order kept: correct for non-commutative ops.
 * Cost: ceil(log2 p)(alpha + n beta + 2 n gamma) at most. Rounds: ceil(log2 p).
 * Requirements: none. Parameters: none. Scratch: 2n.
 */
#include "builders.h"

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    return cs_build_scan_rd(s, c, 1);
}

const cs_algo_t cs_algo_exscan_recursive_doubling = {
    .name = "exscan/recursive_doubling",
    .coll = CS_COLL_EXSCAN,
    .desc = "Hillis-Steele prefix doubling, ceil(log2 p) steps, rank order, any p",
    .build = build,
};

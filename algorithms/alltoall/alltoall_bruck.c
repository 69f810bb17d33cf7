/* alltoall/bruck: ceil(log_r p) rounds, blocks routed digit by digit (radix r).
 *
 * Reference: Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient Algorithms for All-to-All
 * Communications in Multiport Message-Passing Systems", IEEE TPDS 8(11), 1997 (index algorithm,
 * radix r); Thakur, Rabenseifner, Gropp (2005), Section 4.5 (radix 2, short messages).
 * 1. Rotate: tmp[i] := send block (k + i) mod p, for i < p (tmp[i] is for rank k + i).
 * 2. For each digit position w = 1, r, r^2, ... < p and each digit value d = 1 .. r-1 (all d of
 *    one w in one round): the blocks i whose base-r digit at w is d are packed, sent to
 *    (k + d w) mod p, and the same positions are received from (k - d w) mod p and unpacked.
 *    Block i thus moves i = sum of d w ranks in all: tmp[i] at rank k ends up holding the
 *    block from rank k - i.
 * 3. Rotate back: recv block (k - i) mod p := tmp[i].
 * Cost: ceil(log_r p)(r - 1) alpha + ceil(log_r p) ((r-1)/r) p n beta, plus three local
 * copies of the data per round (n = bytes per block); for radix 2, log2(p) alpha +
 * (p/2) log2(p) n beta: few messages for small blocks. Rounds: ceil(log_r p) + 1 local.
 * Requirements: none. In place: yes (the send data is read into scratch first). Parameters:
 * radix (sweep: 2, 4, 8, ... below p).
 *
 *   p = 4, r = 2 (tmp, "ij" from i to j)   rotated        w = 1 (odd i, +1)   w = 2 (i >= 2, +2)
 *   0                                       00 01 02 03    00 30 02 32         00 30 20 10
 *   1                                       11 12 13 10    11 01 13 03         11 01 31 21
 *   2                                       22 23 20 21    22 12 20 10         22 12 02 32
 *   3                                       33 30 31 32    33 23 31 21         33 23 13 03
 *   then recv block (k - i) mod p := tmp[i]: rank 0 gets 00 10 20 30.
 */
#include "builders.h"

#include <stdio.h>

#define NPARAMS 1
static const cs_param_spec_t bruck_params[NPARAMS] = {
    {"radix", "digit base r: r-1 messages per round, ceil(log_r p) rounds", "2"},
};

/* Appends copies of the blocks i < p whose digit at w is d between `a` (position i) and
 * packed positions of `b` from *at on (to_packed: a -> b, else b -> a); *at advances. */
static int pack(cs_sched_t *s, const cs_blocks_t *a, const cs_blocks_t *b, int p, long w, int r,
                int d, int to_packed, int *at) {
    int rc = CS_OK;
    for (long i = d * w; i < p; i += w * r) {
        int n = (int)(p - i < w ? p - i : w);
        if (to_packed) {
            CS_CHECK(cs_blocks_move(s, a, (int)i, b, *at, n));
        } else {
            CS_CHECK(cs_blocks_move(s, b, *at, a, (int)i, n));
        }
        *at += n;
    }
out:
    return rc;
}

static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    int p = c->nprocs, rank = c->rank, r = 0;
    const cs_type_t *t = &c->recv;
    MPI_Aint total = (MPI_Aint)p * c->recvcount;
    cs_blocks_t src = cs_blocks_uniform(cs_ref(CS_SLOT_SEND, 0), &c->send, c->sendcount,
                                        (MPI_Aint)p * c->sendcount, 0);
    cs_blocks_t dst = cs_build_alltoall_recv(c);
    cs_blocks_t tmp, out_b, in_b;
    cs_ref_t ref;
    CS_REQUIRE(cs_params_get_int(params, "radix", &r) == CS_OK && r >= 2, CS_ERR_NOT_APPLICABLE);
    CS_CHECK(cs_sched_scratch(s, total, t, &ref));
    tmp = cs_blocks_uniform(ref, t, c->recvcount, total, 0);
    CS_CHECK(cs_sched_scratch(s, total, t, &ref));
    out_b = cs_blocks_uniform(ref, t, c->recvcount, total, 0);
    CS_CHECK(cs_sched_scratch(s, total, t, &ref));
    in_b = cs_blocks_uniform(ref, t, c->recvcount, total, 0);
    /* 1: rotate; the send slot is read only here (it is the receive buffer when in place). */
    CS_CHECK(cs_blocks_move(s, &src, rank, &tmp, 0, p - rank));
    CS_CHECK(cs_blocks_move(s, &src, 0, &tmp, p - rank, rank));
    /* 2: one round per digit position; its packing runs at the end of the round before. */
    for (long w = 1; w < p; w *= r) {
        int at = 0;
        for (int d = 1; d < r; d++) {
            CS_CHECK(pack(s, &tmp, &out_b, p, w, r, d, 1, &at));
        }
        CS_CHECK(cs_sched_round(s));
        at = 0;
        for (int d = 1; d < r && d * w < p; d++) {
            int first = at, to = (int)((rank + d * w) % p), from = (int)((rank - d * w + p) % p);
            CS_CHECK(pack(s, &tmp, &in_b, p, w, r, d, 0, &at)); /* unpacks, after the round */
            CS_CHECK(cs_blocks_send(s, to, &out_b, first, at));
            CS_CHECK(cs_blocks_recv(s, from, &in_b, first, at));
        }
    }
    /* 3: rotate back, after the last unpacking. */
    for (int i = 0; i < p; i++) {
        CS_CHECK(cs_blocks_move(s, &tmp, i, &dst, (rank - i + p) % p, 1));
    }
out:
    return rc;
}

/* Radix 2, 4, 8, ... below p (2 alone for p <= 2). */
static int variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    (void)ppn;
    int rc = CS_OK;
    *n = 0;
    for (int r = 2; r == 2 || r < nprocs; r *= 2) {
        char v[CS_PARAM_VALUE];
        CS_REQUIRE(*n < cap, CS_ERR_NOMEM);
        snprintf(v, sizeof(v), "%d", r);
        cs_params_defaults(bruck_params, NPARAMS, &out[*n]);
        CS_CHECK(cs_params_set(&out[*n], "radix", v));
        (*n)++;
    }
out:
    return rc;
}

const cs_algo_t cs_algo_alltoall_bruck = {
    .name = "alltoall/bruck",
    .coll = CS_COLL_ALLTOALL,
    .desc = "Bruck's index algorithm: ceil(log_r p) rounds of r-1 packed messages",
    .params = bruck_params,
    .nparams = NPARAMS,
    .variants = variants,
    .build = build,
};

/* Self-tests of multi-part messages (cs_sched_sendv/recvv, sched.h) in the simulator: a ring in
 * which even ranks send and receive multi-part messages (parts in the send, receive and scratch
 * slots, one of a derived type with a lower bound and gaps) and odd ranks plain ones, for p = 2
 * to 8, built directly and as an appended sub-schedule, must deliver every block where it
 * belongs; size mismatches, receive parts overlapping a sent part or each other, a part in a
 * NULL slot and a window part racing with another rank's store must be reported, and the same
 * window exchange ordered by SYNC, message, SYNC must pass. */
#include "sim_harness.h"

#include <stdio.h>
#include <string.h>

#define RING_RECV    32 /* ints of each receive buffer */
#define RING_SCRATCH 32 /* ints of each scratch area (the appended variant shifts it by 16 B) */

/* The message rank q sends: its send ints 0, 1, 5, 2, 3, 4. */
static int ring_msg(int q, int k) {
    static const int order[6] = {0, 1, 5, 2, 3, 4};
    return 100 * q + order[k];
}

/* Rank r's ring schedule into s. Even ranks: round 1 copies send[5] to recv[10] and send[2..4]
 * to scratch[0..2]; round 2 sends {send[0..1], recv[10], scratch[0..2]} to r + 1 as one
 * message and receives from r - 1 into {recv[0], scratch[4..5], hidx at recv byte 100 (ints
 * 27, 29), recv[1]}; round 3 copies scratch[4..5] to recv[2..3]. Odd ranks pack the same six
 * ints into scratch[0..5] first and send and receive them plain (recv[0..5]). */
static int ring_sched(cs_sched_t *s, int r, int p, const cs_type_t *ti) {
    int rc = CS_OK;
    int right = (r + 1) % p, left = (r + p - 1) % p;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0), scratch;
    CS_CHECK(cs_sched_scratch(s, 6, ti, &scratch));
    if (r % 2 == 0) {
        const cs_part_t out[3] = {
            {send, 2, MPI_INT}, {cs_ref_at(recv, 10, ti), 1, MPI_INT}, {scratch, 3, MPI_INT}};
        const cs_part_t in[4] = {{recv, 1, MPI_INT},
                                 {cs_ref_at(scratch, 4, ti), 2, MPI_INT},
                                 {cs_ref(CS_SLOT_RECV, 100), 1, kinds[K_HIDX].type},
                                 {cs_ref_at(recv, 1, ti), 1, MPI_INT}};
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 5, ti), 1, ti, cs_ref_at(recv, 10, ti), 1, ti));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 2, ti), 3, ti, scratch, 3, ti));
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_sendv(s, right, out, 3));
        CS_CHECK(cs_sched_recvv(s, left, in, 4));
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(scratch, 4, ti), 2, ti, cs_ref_at(recv, 2, ti), 2, ti));
    } else {
        CS_CHECK(cs_sched_copy(s, send, 2, ti, scratch, 2, ti));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 5, ti), 1, ti, cs_ref_at(scratch, 2, ti), 1, ti));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 2, ti), 3, ti, cs_ref_at(scratch, 3, ti), 3, ti));
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_send(s, right, scratch, 6, ti));
        CS_CHECK(cs_sched_recv(s, left, recv, 6, ti));
    }
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

/* 1 when rank r's receive buffer holds what the ring delivers and nothing else changed. */
static int ring_ok(int r, int p, const int *recv) {
    int left = (r + p - 1) % p;
    int want[RING_RECV];
    for (int i = 0; i < RING_RECV; i++) {
        want[i] = -1;
    }
    if (r % 2 == 0) {
        want[0] = ring_msg(left, 0);
        want[2] = ring_msg(left, 1);
        want[3] = ring_msg(left, 2);
        want[27] = ring_msg(left, 3);
        want[29] = ring_msg(left, 4);
        want[1] = ring_msg(left, 5);
        want[10] = 100 * r + 5;
    } else {
        for (int k = 0; k < 6; k++) {
            want[k] = ring_msg(left, k);
        }
    }
    return memcmp(want, recv, sizeof(want)) == 0;
}

static int ring(int *passed, int *failed) {
    int rc = CS_OK;
    cs_sched_t s[8], sub;
    cs_sim_rank_t rk[8];
    cs_sim_report_t rep;
    cs_type_t ti;
    int send[8][8], recv[8][RING_RECV];
    _Alignas(16) int scratch[8][RING_SCRATCH];
    memset(s, 0, sizeof(s));
    memset(&sub, 0, sizeof(sub));
    CS_CHECK(cs_type_init(&ti, MPI_INT));
    for (int appended = 0; appended < 2; appended++) {
        for (int p = 2; p <= 8; p++) {
            char what[96];
            int st, ok = 1;
            for (int r = 0; r < p; r++) {
                cs_sched_reset(&s[r], MPI_OP_NULL);
                if (appended) { /* the ring as a sub-schedule of the whole group, scratch after 3
                                   ints */
                    cs_ref_t first;
                    cs_sched_reset(&sub, MPI_OP_NULL);
                    CS_CHECK(ring_sched(&sub, r, p, &ti));
                    CS_CHECK(cs_sched_scratch(&s[r], 3, &ti, &first));
                    CS_CHECK(cs_sched_append(&s[r], &sub, (cs_group_t){0, 1, p},
                                             cs_ref(CS_SLOT_SEND, 0), cs_ref(CS_SLOT_RECV, 0)));
                } else {
                    CS_CHECK(ring_sched(&s[r], r, p, &ti));
                }
                for (int i = 0; i < 8; i++) {
                    send[r][i] = 100 * r + i;
                }
                for (int i = 0; i < RING_RECV; i++) {
                    recv[r][i] = -1;
                }
                memset(scratch[r], 0, sizeof(scratch[r]));
                CS_REQUIRE(s[r].scratch_bytes <= (MPI_Aint)sizeof(scratch[r]), CS_ERR_INTERNAL);
                rk[r] = (cs_sim_rank_t){&s[r], send[r], recv[r], scratch[r], NULL};
            }
            st = cs_sim_run(p, rk, &rep);
            if (st != CS_OK && st != CS_ERR_INTERNAL) {
                rc = st;
                goto out;
            }
            for (int r = 0; r < p; r++) {
                ok = ok && ring_ok(r, p, recv[r]);
            }
            snprintf(what, sizeof(what), "multi-part ring p=%d%s", p,
                     appended ? " (appended sub-schedule)" : "");
            expect(what, st == CS_OK && ok && rep.messages == p, &rep, passed, failed);
        }
    }
out:
    for (int r = 0; r < 8; r++) {
        cs_sched_free(&s[r]);
    }
    cs_sched_free(&sub);
    return rc;
}

enum {
    P_MISMATCH,     /* rank 0 sends 3 ints in 2 parts, rank 1 receives 2 in 2 parts */
    P_OVERLAP_SEND, /* rank 0 receives a part into ints it sends in the same round */
    P_OVERLAP_SELF, /* rank 1 receives into two parts that share an int */
    P_NULL_SLOT,    /* rank 0 sends a part from scratch, which it does not have */
    P_WINDOW_RACE,  /* rank 1 stores into the window, rank 0 sends a window part: no order */
    P_WINDOW_CLEAN, /* the same ordered: rank 1 SYNC, message to rank 0, rank 0 SYNC */
    P_CASES
};

/* Rank r's schedule of defect case `c` (2 ranks). */
static int defect_sched(int c, int r, cs_sched_t *s, const cs_type_t *ti) {
    int rc = CS_OK;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_ref_t win = cs_ref(CS_SLOT_WINDOW, -32);
    cs_sched_reset(s, MPI_OP_NULL);
    switch (c) {
    case P_MISMATCH:
        if (r == 0) {
            const cs_part_t out[2] = {{send, 2, MPI_INT}, {cs_ref(CS_SLOT_SEND, 8), 1, MPI_INT}};
            CS_CHECK(cs_sched_sendv(s, 1, out, 2));
        } else {
            const cs_part_t in[2] = {{recv, 1, MPI_INT}, {cs_ref(CS_SLOT_RECV, 8), 1, MPI_INT}};
            CS_CHECK(cs_sched_recvv(s, 0, in, 2));
        }
        break;
    case P_OVERLAP_SEND:
        if (r == 0) {
            const cs_part_t out[2] = {{send, 1, MPI_INT}, {cs_ref(CS_SLOT_RECV, 8), 2, MPI_INT}};
            const cs_part_t in[2] = {{recv, 1, MPI_INT}, {cs_ref(CS_SLOT_RECV, 12), 1, MPI_INT}};
            CS_CHECK(cs_sched_sendv(s, 1, out, 2));
            CS_CHECK(cs_sched_recvv(s, 1, in, 2));
        } else {
            CS_CHECK(cs_sched_send(s, 0, send, 2, ti));
            CS_CHECK(cs_sched_recv(s, 0, recv, 3, ti));
        }
        break;
    case P_OVERLAP_SELF:
        if (r == 0) {
            CS_CHECK(cs_sched_send(s, 1, send, 3, ti));
        } else {
            const cs_part_t in[2] = {{recv, 2, MPI_INT}, {cs_ref(CS_SLOT_RECV, 4), 1, MPI_INT}};
            CS_CHECK(cs_sched_recvv(s, 0, in, 2));
        }
        break;
    case P_NULL_SLOT:
        if (r == 0) {
            const cs_part_t out[2] = {{send, 1, MPI_INT}, {cs_ref(CS_SLOT_SCRATCH, 0), 1, MPI_INT}};
            CS_CHECK(cs_sched_sendv(s, 1, out, 2));
        } else {
            CS_CHECK(cs_sched_recv(s, 0, recv, 2, ti));
        }
        break;
    default: /* the window cases: rank 1 stores 4 ints at window offset -32, rank 0 sends them */
        cs_sched_window_need(s, W_BYTES);
        if (r == 1) {
            CS_CHECK(cs_sched_copy(s, send, 4, ti, win, 4, ti));
            if (c == P_WINDOW_CLEAN) {
                CS_CHECK(cs_sched_sync(s));
                CS_CHECK(cs_sched_round(s));
                CS_CHECK(cs_sched_send(s, 0, send, 0, ti));
            }
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(cs_sched_recv(s, 0, recv, 5, ti));
        } else {
            const cs_part_t out[2] = {{send, 1, MPI_INT}, {win, 4, MPI_INT}};
            if (c == P_WINDOW_CLEAN) {
                CS_CHECK(cs_sched_recv(s, 1, recv, 0, ti));
                CS_CHECK(cs_sched_sync(s));
                CS_CHECK(cs_sched_round(s));
            }
            CS_CHECK(cs_sched_sendv(s, 1, out, 2));
        }
        break;
    }
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

static int defects(int *passed, int *failed) {
    int rc = CS_OK;
    cs_sched_t s[2];
    cs_sim_rank_t rk[2];
    cs_sim_report_t rep;
    cs_type_t ti;
    int send[2][8], recv[2][8];
    _Alignas(16) int scratch[8];
    _Alignas(16) unsigned char window[2 * W_BYTES];
    memset(s, 0, sizeof(s));
    CS_CHECK(cs_type_init(&ti, MPI_INT));
    for (int c = 0; c < P_CASES; c++) {
        int st, windowed = c == P_WINDOW_RACE || c == P_WINDOW_CLEAN;
        memset(window, 0, sizeof(window));
        for (int r = 0; r < 2; r++) {
            CS_CHECK(defect_sched(c, r, &s[r], &ti));
            for (int i = 0; i < 8; i++) {
                send[r][i] = 10 * r + i + 1;
                recv[r][i] = -1;
            }
            rk[r] = (cs_sim_rank_t){&s[r], send[r], recv[r],
                                    r == 0 && c == P_NULL_SLOT ? NULL : scratch,
                                    windowed ? window + W_BYTES : NULL};
        }
        st = cs_sim_run(2, rk, &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        switch (c) {
        case P_MISMATCH:
            expect("multi-part size mismatch", rep.mismatch == 1, &rep, passed, failed);
            break;
        case P_OVERLAP_SEND:
            expect("receive part overlaps a sent part of its round",
                   rep.overlap == 1 && !rep.deadlock, &rep, passed, failed);
            break;
        case P_OVERLAP_SELF:
            expect("receive parts overlap each other", rep.overlap == 1 && !rep.deadlock, &rep,
                   passed, failed);
            break;
        case P_NULL_SLOT:
            expect("part in a NULL slot", rep.bad_ref == 1, &rep, passed, failed);
            break;
        case P_WINDOW_RACE:
            expect("window part races with a store", rep.race >= 1 && only_races(&rep), &rep,
                   passed, failed);
            break;
        default:
            expect("window part ordered by sync, message, sync",
                   st == CS_OK && recv[1][0] == 1 && recv[1][1] == 11 && recv[1][2] == 12 &&
                       recv[1][3] == 13 && recv[1][4] == 14,
                   &rep, passed, failed);
            break;
        }
    }
out:
    cs_sched_free(&s[0]);
    cs_sched_free(&s[1]);
    return rc;
}

int selftest_parts(int *passed, int *failed) {
    int rc = CS_OK;
    CS_CHECK(ring(passed, failed));
    CS_CHECK(defects(passed, failed));
out:
    return rc;
}

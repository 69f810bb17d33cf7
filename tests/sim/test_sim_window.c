/* Self-tests of the simulator's window race checker (sim.h) on hand-built schedules: shared-window
 * accesses that race (a SYNC or the barrier missing, a region rewritten while another rank reads
 * it) must be reported, the same schedules with their synchronisation must pass. */
#include "sim_harness.h"

#include <stdio.h>
#include <string.h>

/* Hand-built schedules on ranks that share a window (sim.h, window race checker). The first
 * six: ranks 0..2 (one node): round 1: copy 4 ints into my region (window offset -16 (r + 1)),
 * SYNC; round 2: node barrier, SYNC, copy the region of rank r + 1 (mod 3) out; each planted
 * defect removes one link of that chain. The clean run also covers a rank that SYNCs and starts
 * the barrier in one progress call (the barrier must see that SYNC's release). Then a message
 * instead of a barrier, two nodes with a COLL writing the window, and byte-exact ranges (the
 * shadow's granule comes from the schedules' ranges and must not merge neighbours). */
enum {
    W_CLEAN,         /* release SYNC, barrier, acquire SYNC */
    W_NO_RELEASE,    /* (1) rank 1 writes its region and skips the SYNC before the barrier */
    W_NO_ACQUIRE,    /* (2) rank 0 skips the SYNC after the barrier */
    W_NO_BARRIER,    /* (3) SYNCs on both sides, no barrier */
    W_WAR,           /* (4) round 3: every rank rewrites its region, which rank r - 1 reads */
    W_WAR_BARRIER,   /* (4) fixed: SYNC after the read, second barrier, SYNC, then rewrite */
    W_MSG,           /* 2 ranks: rank 0 writes, SYNC, sends; rank 1 receives, SYNC, reads */
    W_MSG_NO_SYNC,   /* the same without rank 1's SYNC */
    W_NODES,         /* 2 nodes of 2: leaders 0, 2 allreduce into their window, SYNC, node
                      * barrier, SYNC, everyone reads; both nodes use the same offsets */
    W_NODES_NO_SYNC, /* the same without leader 2's SYNC */
    W_BYTES_APART,   /* 2 ranks, no synchronisation: 3 bytes at offset -16, 5 bytes at -13 */
    W_BYTES_OVERLAP  /* the same with the 5 bytes at -14: one byte in common */
};
#define W_CASES 12

static int window_two_nodes(int w) {
    return w == W_NODES || w == W_NODES_NO_SYNC;
}

static int window_nprocs(int w) {
    if (window_two_nodes(w)) {
        return 4;
    }
    return w == W_MSG || w == W_MSG_NO_SYNC || w == W_BYTES_APART || w == W_BYTES_OVERLAP ? 2 : 3;
}

/* Builds rank r's schedule of window case `w` (see the enum) in `s`; `tb` is MPI_BYTE. */
static int window_sched(int w, int r, cs_sched_t *s, const cs_type_t *t, const cs_type_t *tb) {
    int rc = CS_OK;
    int p = window_nprocs(w);
    cs_ref_t mine = cs_ref(CS_SLOT_WINDOW, -16 * (r + 1));
    cs_ref_t next = cs_ref(CS_SLOT_WINDOW, -16 * ((r + 1) % p + 1));
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_sched_reset(s, MPI_SUM);
    cs_sched_window_need(s, W_BYTES);
    if (w == W_BYTES_APART || w == W_BYTES_OVERLAP) { /* the shadow must stay byte-exact */
        MPI_Aint at = r == 0 ? -16 : w == W_BYTES_APART ? -13 : -14;
        CS_CHECK(cs_sched_copy(s, send, 3 + 2 * r, tb, cs_ref(CS_SLOT_WINDOW, at), 3 + 2 * r, tb));
        goto out;
    }
    if (w == W_MSG || w == W_MSG_NO_SYNC) {
        if (r == 0) {
            CS_CHECK(cs_sched_copy(s, send, 4, t, mine, 4, t));
            CS_CHECK(cs_sched_sync(s));
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(cs_sched_send(s, 1, send, 1, t));
        } else {
            CS_CHECK(cs_sched_recv(s, 0, cs_ref(CS_SLOT_RECV, 16), 1, t));
            CS_CHECK(cs_sched_round(s));
            if (w == W_MSG) {
                CS_CHECK(cs_sched_sync(s));
            }
            CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_WINDOW, -16), 4, t, recv, 4, t));
        }
        goto out;
    }
    if (window_two_nodes(w)) {
        if (r % 2 == 0) {
            cs_coll_op_t c;
            memset(&c, 0, sizeof(c));
            c.coll = CS_COLL_ALLREDUCE;
            c.group = (cs_group_t){0, 2, 2};
            c.send = send;
            c.recv = cs_ref(CS_SLOT_WINDOW, 0);
            c.sendcount = c.recvcount = 4;
            c.sendtype = c.recvtype = MPI_INT;
            CS_CHECK(cs_sched_coll(s, &c, NULL, NULL));
            if (!(w == W_NODES_NO_SYNC && r == 2)) {
                CS_CHECK(cs_sched_sync(s));
            }
            CS_CHECK(cs_sched_round(s));
        }
        CS_CHECK(window_barrier(s, (cs_group_t){r / 2 * 2, 1, 2}));
        CS_CHECK(cs_sched_sync(s));
        CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_WINDOW, 0), 4, t, recv, 4, t));
        goto out;
    }
    CS_CHECK(cs_sched_copy(s, send, 4, t, mine, 4, t));
    if (!(w == W_NO_RELEASE && r == 1)) {
        CS_CHECK(cs_sched_sync(s));
    }
    CS_CHECK(cs_sched_round(s));
    if (w != W_NO_BARRIER) {
        CS_CHECK(window_barrier(s, (cs_group_t){0, 1, 3}));
    }
    if (!(w == W_NO_ACQUIRE && r == 0)) {
        CS_CHECK(cs_sched_sync(s));
    }
    CS_CHECK(cs_sched_copy(s, next, 4, t, recv, 4, t));
    if (w == W_WAR_BARRIER) {
        CS_CHECK(cs_sched_sync(s)); /* release the read */
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(window_barrier(s, (cs_group_t){0, 1, 3}));
        CS_CHECK(cs_sched_sync(s));
    }
    if (w == W_WAR || w == W_WAR_BARRIER) {
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 16), 4, t, mine, 4, t));
    }
out:
    if (rc == CS_OK) {
        rc = cs_sched_round(s);
    }
    return rc;
}

int selftest_window(int *passed, int *failed) {
    static const char *const what[W_CASES] = {
        "window: sync, barrier, sync orders a write before another rank's read",
        "window race: writer skips the sync before the barrier",
        "window race: reader skips the sync after the barrier",
        "window race: no barrier between a write and another rank's read",
        "window race: a region rewritten after the barrier its reader crossed",
        "window: second barrier orders a rewrite after the reads",
        "window: send/recv with syncs on both sides orders window accesses",
        "window race: send/recv without the receiver's sync",
        "window: two nodes, allreduce result released through a node barrier",
        "window race: allreduce result in the window without a release sync",
        "window: disjoint byte ranges need no synchronisation",
        "window race: byte ranges that share one byte"};
    int rc = CS_OK;
    cs_sched_t s[4];
    cs_sim_rank_t rk[4];
    cs_sim_report_t rep;
    cs_type_t t, tb;
    int send[4][8], recv[4][8];
    int win[2][2 * W_BYTES / (int)sizeof(int)];
    memset(s, 0, sizeof(s));
    CS_CHECK(cs_type_init(&t, MPI_INT));
    CS_CHECK(cs_type_init(&tb, MPI_BYTE));
    for (int w = 0; w < W_CASES; w++) {
        int p = window_nprocs(w);
        int clean = w == W_CLEAN || w == W_WAR_BARRIER || w == W_MSG || w == W_NODES;
        int data = 1, st;
        memset(win, 0, sizeof(win));
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < 8; i++) {
                send[r][i] = 100 * r + i;
                recv[r][i] = -1;
            }
            CS_CHECK(window_sched(w, r, &s[r], &t, &tb));
            rk[r].sched = &s[r];
            rk[r].sendbuf = send[r];
            rk[r].recvbuf = recv[r];
            rk[r].scratch = NULL;
            rk[r].window = (char *)win[window_two_nodes(w) ? r / 2 : 0] + W_BYTES;
        }
        st = cs_sim_run(p, rk, &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        for (int r = 0; r < p && clean; r++) {
            for (int i = 0; i < 4; i++) {
                int want = w == W_MSG     ? (r == 1 ? send[0][i] : -1)
                           : w == W_NODES ? send[0][i] + send[2][i]
                                          : send[(r + 1) % p][i];
                data &= recv[r][i] == want;
                if (w == W_WAR_BARRIER) { /* the rewrite landed after every read */
                    data &= win[0][W_BYTES / 4 - 4 * (r + 1) + i] == send[r][4 + i];
                }
            }
        }
        if (w == W_BYTES_APART) {
            expect(what[w], st == CS_OK && rep.race == 0, &rep, passed, failed);
        } else if (w == W_BYTES_OVERLAP) {
            expect(what[w],
                   only_races(&rep) && rep.race == 1 &&
                       strstr(rep.msg, "node 0 window offset -14: rank 1 round 1 copy writes what "
                                       "rank 0 round 1 copy wrote") == rep.msg,
                   &rep, passed, failed);
        } else if (clean) {
            expect(what[w], st == CS_OK && rep.race == 0 && data, &rep, passed, failed);
        } else if (w == W_NO_RELEASE) { /* the message, word for word */
            expect(what[w],
                   only_races(&rep) && rep.race > 0 &&
                       strstr(rep.msg, "node 0 window offset -32: rank 0 round 2 copy reads what "
                                       "rank 1 round 1 copy wrote without") == rep.msg,
                   &rep, passed, failed);
        } else {
            expect(what[w],
                   only_races(&rep) && rep.race > 0 && strstr(rep.msg, "window offset") != NULL &&
                       (w != W_NODES_NO_SYNC || strstr(rep.msg, "node 1 ") == rep.msg),
                   &rep, passed, failed);
        }
    }
out:
    for (int r = 0; r < 4; r++) {
        cs_sched_free(&s[r]);
    }
    return rc;
}

/* Self-tests of consecutive calls (cs_sim_run_seq): two-call sequences must report a window region
 * rewritten by call 2 while call 1 may still read it, a barrier or a message of one call matched
 * in the other, a deadlock in call 2 and a window that moves between calls; with a barrier at the
 * start of call 2, and with one message per call, they must pass. */
#include "sim_harness.h"

#include <stdio.h>
#include <string.h>

/* Hand-built two-rank sequences of two calls (cs_sim_run_seq), each with one defect that only
 * the sequence has (or none). The window ones run on one node: in call 1 rank 0 writes its region
 * (window offset -16), SYNC, barrier, and rank 1, after the barrier and a SYNC, reads it as the
 * last thing of its call; in call 2 rank 0 rewrites the region and rank 1 reads it again the same
 * way. */
enum {
    C_WINDOW_RACE,  /* call 2 rewrites the region before any barrier: rank 1 may still read it */
    C_WINDOW_CLEAN, /* call 2 starts with SYNC, barrier, SYNC (dpml's B1) before the rewrite */
    C_COLL_CROSS,   /* rank 0 has two barriers in call 1, rank 1 one in each call */
    C_MSG_CROSS,    /* rank 0 sends twice in call 1, rank 1 receives once in each call */
    C_MSG_CLEAN,    /* one message per call, 1 int then 2: FIFO keeps them apart */
    C_DEADLOCK,     /* call 1 exchanges, in call 2 both ranks receive first */
    C_WINDOW_MOVES  /* rank 1's window differs between its calls */
};
#define C_CASES 7

/* Builds rank r's schedule of call `call` (0, 1) of sequence case `c` (see the enum) in `s`. */
static int calls_sched(int c, int call, int r, cs_sched_t *s, const cs_type_t *t) {
    int rc = CS_OK;
    cs_group_t node = {0, 1, 2};
    cs_ref_t region = cs_ref(CS_SLOT_WINDOW, -16);
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_sched_reset(s, MPI_SUM);
    switch (c) {
    case C_WINDOW_RACE:
    case C_WINDOW_CLEAN:
    case C_WINDOW_MOVES:
        cs_sched_window_need(s, W_BYTES);
        if (call == 1 && c == C_WINDOW_CLEAN) {
            CS_CHECK(cs_sched_sync(s)); /* release rank 1's read of call 1 */
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(window_barrier(s, node));
            CS_CHECK(cs_sched_sync(s));
        }
        if (r == 0) {
            CS_CHECK(cs_sched_copy(s, send, 4, t, region, 4, t));
            CS_CHECK(cs_sched_sync(s));
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(window_barrier(s, node));
        } else {
            CS_CHECK(window_barrier(s, node));
            CS_CHECK(cs_sched_sync(s));
            CS_CHECK(cs_sched_copy(s, region, 4, t, recv, 4, t));
        }
        break;
    case C_COLL_CROSS:
        for (int i = 0; i < (r == 0 ? 2 - call * 2 : 1); i++) {
            CS_CHECK(window_barrier(s, node));
            CS_CHECK(cs_sched_round(s));
        }
        break;
    case C_MSG_CROSS:
        for (int i = 0; i < (r == 0 ? 2 - call * 2 : 1); i++) {
            CS_CHECK(r == 0 ? cs_sched_send(s, 1, send, 1, t) : cs_sched_recv(s, 0, recv, 1, t));
            CS_CHECK(cs_sched_round(s));
        }
        break;
    case C_MSG_CLEAN:
        CS_CHECK(r == 0 ? cs_sched_send(s, 1, send, call + 1, t)
                        : cs_sched_recv(s, 0, recv, call + 1, t));
        break;
    default: /* C_DEADLOCK */
        if (call == 0) {
            CS_CHECK(cs_sched_send(s, 1 - r, send, 1, t));
            CS_CHECK(cs_sched_recv(s, 1 - r, recv, 1, t));
        } else {
            CS_CHECK(cs_sched_recv(s, 1 - r, recv, 1, t));
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(cs_sched_send(s, 1 - r, send, 1, t));
        }
        break;
    }
out:
    if (rc == CS_OK) {
        rc = cs_sched_round(s);
    }
    return rc;
}

int selftest_calls(int *passed, int *failed) {
    static const char *const what[C_CASES] = {
        "calls: window region rewritten by the next call while a slower rank reads it",
        "calls: a barrier at the start of the next call orders the rewrite",
        "calls: a barrier of call 2 joining one of call 1 is reported",
        "calls: a message of call 1 received in call 2 is reported",
        "calls: messages of consecutive calls match in order",
        "calls: deadlock in call 2 is reported with its call",
        "calls: a rank's window that moves between calls is reported"};
    int rc = CS_OK;
    cs_sched_t s[2][2];
    cs_sim_rank_t rk[2][2]; /* [call][rank] */
    cs_sim_report_t rep;
    cs_type_t t;
    int send[2][2][8], recv[2][2][8];
    int win[2][2 * W_BYTES / (int)sizeof(int)];
    memset(s, 0, sizeof(s));
    CS_CHECK(cs_type_init(&t, MPI_INT));
    for (int c = 0; c < C_CASES; c++) {
        int data = 1, st;
        memset(win, 0, sizeof(win));
        for (int call = 0; call < 2; call++) {
            for (int r = 0; r < 2; r++) {
                for (int i = 0; i < 8; i++) {
                    send[call][r][i] = 1000 * call + 100 * r + i;
                    recv[call][r][i] = -1;
                }
                CS_CHECK(calls_sched(c, call, r, &s[call][r], &t));
                rk[call][r].sched = &s[call][r];
                rk[call][r].sendbuf = send[call][r];
                rk[call][r].recvbuf = recv[call][r];
                rk[call][r].scratch = NULL;
                rk[call][r].window = NULL;
                if (c == C_WINDOW_RACE || c == C_WINDOW_CLEAN || c == C_WINDOW_MOVES) {
                    int moved = c == C_WINDOW_MOVES && call == 1 && r == 1;
                    rk[call][r].window = (char *)win[moved] + W_BYTES;
                }
            }
        }
        st = cs_sim_run_seq(2, 2, &rk[0][0], &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        for (int call = 0; call < 2; call++) {
            for (int i = 0; i < 4; i++) {
                if (c == C_WINDOW_CLEAN) {
                    data &= recv[call][1][i] == send[call][0][i];
                }
                if (c == C_MSG_CLEAN) {
                    data &= recv[call][1][i] == (i <= call ? send[call][0][i] : -1);
                }
            }
        }
        switch (c) {
        case C_WINDOW_RACE: /* the message, word for word */
            expect(what[c],
                   only_races(&rep) && rep.race > 0 &&
                       strstr(rep.msg,
                              "node 0 window offset -16: rank 0 call 2 round 1 copy "
                              "writes what rank 1 call 1 round 1 copy read without") == rep.msg,
                   &rep, passed, failed);
            break;
        case C_COLL_CROSS:
            expect(what[c],
                   rep.mismatch == 1 && !rep.deadlock && !rep.unmatched &&
                       strstr(rep.msg, "joins an instance that other members started in call") !=
                           NULL,
                   &rep, passed, failed);
            break;
        case C_MSG_CROSS:
            expect(what[c],
                   rep.mismatch == 1 && !rep.deadlock && !rep.unmatched &&
                       strstr(rep.msg, "rank 0 (call 1 round 2) sends to 1, which receives it in "
                                       "call 2") == rep.msg,
                   &rep, passed, failed);
            break;
        case C_DEADLOCK:
            expect(what[c],
                   rep.deadlock && rep.unmatched == 2 &&
                       strstr(rep.msg, "rank 0 call 2 round 1/2 waits on recv from 1") != NULL,
                   &rep, passed, failed);
            break;
        case C_WINDOW_MOVES:
            expect(what[c], rep.bad_ref == 1 && strstr(rep.msg, "rank 1 call 2") == rep.msg, &rep,
                   passed, failed);
            break;
        default: /* C_WINDOW_CLEAN (3 barriers), C_MSG_CLEAN (2 messages) */
            expect(what[c],
                   st == CS_OK && rep.race == 0 && rep.messages == (c == C_MSG_CLEAN ? 2 : 3) &&
                       data,
                   &rep, passed, failed);
            break;
        }
    }
out:
    for (int call = 0; call < 2; call++) {
        cs_sched_free(&s[call][0]);
        cs_sched_free(&s[call][1]);
    }
    return rc;
}

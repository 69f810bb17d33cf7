/* Self-tests of the simulator's mailbox checks on hand-built schedules: two ranks with one planted
 * defect each (a deadlock, a lost send, a size mismatch, a receive overlapping a send of its
 * round, a NULL buffer, a peer out of range) or none, and four ranks with native collectives on
 * groups, clean or with a member missing, disagreeing on the root or outside its group. */
#include "sim_harness.h"

#include <stdio.h>
#include <string.h>

/* Hand-built two-rank schedules, each with one planted defect (or none). */
int selftest_sched(int *passed, int *failed) {
    int rc = CS_OK;
    cs_sched_t s[2];
    cs_sim_rank_t rk[2];
    cs_sim_report_t rep;
    cs_type_t t;
    int data[2][8];
    memset(s, 0, sizeof(s));
    memset(rk, 0, sizeof(rk)); /* no window */
    CS_CHECK(cs_type_init(&t, MPI_INT));
    for (int test = 0; test < 7; test++) {
        int st;
        for (int r = 0; r < 2; r++) {
            cs_sched_reset(&s[r], MPI_OP_NULL);
            for (int i = 0; i < 8; i++) {
                data[r][i] = 100 * r + i;
            }
            rk[r].sched = &s[r];
            rk[r].sendbuf = data[r];
            rk[r].recvbuf = data[r];
            rk[r].scratch = NULL;
        }
        switch (test) {
        case 0: /* each rank only receives from the other */
            CS_CHECK(cs_sched_recv(&s[0], 1, cs_ref(CS_SLOT_RECV, 0), 1, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 1, &t));
            break;
        case 1: /* a send nobody receives */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 1, &t));
            break;
        case 2: /* 2 ints sent, 3 received */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 2, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 3, &t));
            break;
        case 3: /* rank 0 receives into ints 2-5 while sending ints 0-3 in the same round */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_RECV, 0), 4, &t));
            CS_CHECK(cs_sched_recv(&s[0], 1, cs_ref(CS_SLOT_RECV, 8), 4, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 4, &t));
            CS_CHECK(cs_sched_send(&s[1], 0, cs_ref(CS_SLOT_RECV, 16), 4, &t));
            break;
        case 4: /* rank 0 sends from a send buffer it does not have */
            rk[0].sendbuf = NULL;
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 1, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 1, &t));
            break;
        case 5: /* a peer outside the communicator */
            CS_CHECK(cs_sched_send(&s[0], 2, cs_ref(CS_SLOT_SEND, 0), 1, &t));
            break;
        default: /* correct: two messages in one round arrive in order, then a reply */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 2, &t));
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 8), 2, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 16), 2, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 24), 2, &t));
            CS_CHECK(cs_sched_round(&s[0]));
            CS_CHECK(cs_sched_round(&s[1]));
            CS_CHECK(cs_sched_recv(&s[0], 1, cs_ref(CS_SLOT_RECV, 28), 1, &t));
            CS_CHECK(cs_sched_send(&s[1], 0, cs_ref(CS_SLOT_RECV, 28), 1, &t));
            break;
        }
        CS_CHECK(cs_sched_round(&s[0]));
        CS_CHECK(cs_sched_round(&s[1]));
        st = cs_sim_run(2, rk, &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        switch (test) {
        case 0:
            expect("deadlock", rep.deadlock && rep.unmatched == 2, &rep, passed, failed);
            break;
        case 1:
            expect("send never received", rep.unmatched == 1 && st != CS_OK, &rep, passed, failed);
            break;
        case 2:
            expect("size mismatch", rep.mismatch == 1, &rep, passed, failed);
            break;
        case 3:
            expect("receive overlaps a send of its round", rep.overlap == 1 && !rep.deadlock, &rep,
                   passed, failed);
            break;
        case 4:
            expect("NULL buffer used", rep.bad_ref == 1, &rep, passed, failed);
            break;
        case 5:
            expect("peer out of range", rep.bad_ref == 1, &rep, passed, failed);
            break;
        default:
            expect("clean exchange passes, FIFO order kept",
                   st == CS_OK && rep.messages == 3 && data[1][4] == 0 && data[1][5] == 1 &&
                       data[1][6] == 2 && data[1][7] == 3 && data[0][7] == 3,
                   &rep, passed, failed);
            break;
        }
    }
out:
    cs_sched_free(&s[0]);
    cs_sched_free(&s[1]);
    return rc;
}

/* Hand-built four-rank schedules with native collectives on groups (COLL operations): rows
 * {0,1} {2,3} allreduce in place, then columns {0,2} {1,3} broadcast from their second member;
 * and the same with one planted defect. */
int selftest_coll(int *passed, int *failed) {
    int rc = CS_OK;
    cs_sched_t s[4];
    cs_sim_rank_t rk[4];
    cs_sim_report_t rep;
    int data[4][2];
    memset(s, 0, sizeof(s));
    memset(rk, 0, sizeof(rk)); /* no window */
    for (int test = 0; test < 4; test++) {
        int st;
        for (int r = 0; r < 4; r++) {
            cs_coll_op_t c;
            cs_sched_reset(&s[r], MPI_SUM);
            data[r][0] = r + 1;
            data[r][1] = 10 * (r + 1);
            rk[r].sched = &s[r];
            rk[r].sendbuf = NULL;
            rk[r].recvbuf = data[r];
            rk[r].scratch = NULL;
            memset(&c, 0, sizeof(c));
            c.coll = CS_COLL_ALLREDUCE;
            c.group = (cs_group_t){r / 2 * 2, 1, 2};
            c.in_place = 1;
            c.send = c.recv = cs_ref(CS_SLOT_RECV, 0);
            c.sendcount = c.recvcount = 2;
            c.sendtype = c.recvtype = MPI_INT;
            if (test == 3 && r == 1) {
                c.group.base = 2; /* a group rank 1 is not in */
            }
            if (!(test == 1 && r == 3)) { /* test 1: rank 3 never joins its row */
                CS_CHECK(cs_sched_coll(&s[r], &c, NULL, NULL));
                CS_CHECK(cs_sched_round(&s[r]));
            }
            c.coll = CS_COLL_BCAST;
            c.group = (cs_group_t){r % 2, 2, 2};
            c.root = test == 2 && r == 0 ? 0 : 1; /* test 2: the members disagree on the root */
            c.in_place = 0;
            CS_CHECK(cs_sched_coll(&s[r], &c, NULL, NULL));
            CS_CHECK(cs_sched_round(&s[r]));
        }
        st = cs_sim_run(4, rk, &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        switch (test) {
        case 0:
            expect("group collectives: row allreduce, column bcast",
                   st == CS_OK && data[0][0] == 7 && data[0][1] == 70 && data[1][0] == 7 &&
                       data[2][0] == 7 && data[3][1] == 70 && rep.messages == 4,
                   &rep, passed, failed);
            break;
        case 1:
            expect("group collective a member never starts", rep.deadlock && rep.unmatched > 0,
                   &rep, passed, failed);
            break;
        case 2:
            expect("group members disagree on the root", rep.mismatch == 1, &rep, passed, failed);
            break;
        default:
            expect("group that does not contain the rank", rep.bad_ref >= 1, &rep, passed, failed);
            break;
        }
    }
out:
    for (int r = 0; r < 4; r++) {
        cs_sched_free(&s[r]);
    }
    return rc;
}

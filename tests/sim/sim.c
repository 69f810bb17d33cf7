/* The schedule simulator: mailbox transport and driver (see sim.h). */
#include "sim.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One posted SEND or RECV. */
typedef struct rec {
    const cs_op_t *op;
    char *buf;
    int rank;     /* who posted it */
    int round;    /* in which round of its schedule */
    int done;     /* matched and transferred */
    uintptr_t lo; /* data span [lo, hi) for the overlap check; empty when lo == hi */
    uintptr_t hi;
    struct rec *next; /* in its (src, dst) queue while unmatched */
} rec_t;

typedef struct queue {
    rec_t *head, *tail;
} queue_t;

struct sim;

/* One virtual rank: its executor and the operations it posted in the current round. */
typedef struct vrank {
    struct sim *sim;
    int rank;
    rec_t *recs;
    int cap, nposted;
    cs_exec_t exec;
    int finished;
} vrank_t;

typedef struct sim {
    int p;
    vrank_t *vr;
    queue_t *sends; /* [src * p + dst]: sends posted by src to dst, not yet matched */
    queue_t *recvs; /* [src * p + dst]: receives posted by dst from src, not yet matched */
    char *pack;
    int pack_cap;
    long events; /* operations posted, messages transferred, rounds finished */
    cs_sim_report_t *rep;
} sim_t;

static const char *slot_names[CS_SLOT_COUNT] = {"send", "recv", "scratch"};

/* Appends one problem to the report's message, "; "-separated, truncated with "...". */
static void note(cs_sim_report_t *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(cs_sim_report_t *rep, const char *fmt, ...) {
    size_t cap = sizeof(rep->msg);
    size_t len = strlen(rep->msg);
    va_list ap;
    int n;
    if (len + 4 >= cap) {
        return;
    }
    if (len > 0) {
        len += (size_t)snprintf(rep->msg + len, cap - len, "; ");
    }
    va_start(ap, fmt);
    n = vsnprintf(rep->msg + len, cap - len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - len) {
        memcpy(rep->msg + cap - 4, "...", 4);
    }
}

static int bytes_of(const cs_op_t *op, MPI_Aint *bytes) {
    int size = 0;
    if (MPI_Type_size(op->type, &size) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    *bytes = (MPI_Aint)size * op->count;
    return CS_OK;
}

/* Moves the data of `s` into `r` (both matched now) and completes both. */
static int transfer(sim_t *sim, rec_t *s, rec_t *r) {
    MPI_Aint sbytes = 0, rbytes = 0;
    int need = 0, pos = 0, upos = 0;
    int rc = CS_OK;
    CS_CHECK(bytes_of(s->op, &sbytes));
    CS_CHECK(bytes_of(r->op, &rbytes));
    s->done = 1;
    r->done = 1;
    sim->events++;
    sim->rep->messages++;
    if (sbytes != rbytes) {
        sim->rep->mismatch++;
        note(sim->rep,
             "size mismatch: rank %d (round %d) sends %ld bytes to %d, which receives %ld", s->rank,
             s->round + 1, (long)sbytes, r->rank, (long)rbytes);
        goto out;
    }
    if (sbytes == 0) {
        goto out;
    }
    CS_MPI_CHECK(MPI_Pack_size(s->op->count, s->op->type, MPI_COMM_SELF, &need));
    if (need > sim->pack_cap) {
        char *bigger = realloc(sim->pack, (size_t)need);
        CS_REQUIRE(bigger != NULL, CS_ERR_NOMEM);
        sim->pack = bigger;
        sim->pack_cap = need;
    }
    CS_MPI_CHECK(MPI_Pack(s->buf, s->op->count, s->op->type, sim->pack, need, &pos, MPI_COMM_SELF));
    CS_MPI_CHECK(
        MPI_Unpack(sim->pack, pos, &upos, r->buf, r->op->count, r->op->type, MPI_COMM_SELF));
out:
    return rc;
}

static void push(queue_t *q, rec_t *e) {
    e->next = NULL;
    if (q->tail != NULL) {
        q->tail->next = e;
    } else {
        q->head = e;
    }
    q->tail = e;
}

static rec_t *pop(queue_t *q) {
    rec_t *e = q->head;
    if (e != NULL) {
        q->head = e->next;
        if (q->head == NULL) {
            q->tail = NULL;
        }
        e->next = NULL;
    }
    return e;
}

static int span(rec_t *e) {
    MPI_Aint lb, extent, true_lb, true_extent;
    e->lo = e->hi = 0;
    if (e->op->count == 0) {
        return CS_OK;
    }
    if (MPI_Type_get_extent(e->op->type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(e->op->type, &true_lb, &true_extent) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    e->lo = (uintptr_t)(e->buf + true_lb);
    e->hi = e->lo + (uintptr_t)((e->op->count - 1) * extent + true_extent);
    return CS_OK;
}

static const char *kind_name(cs_op_kind_t kind) {
    switch (kind) {
    case CS_OP_SEND:
        return "send";
    case CS_OP_RECV:
        return "recv";
    case CS_OP_COPY:
        return "copy";
    case CS_OP_REDUCE:
        return "reduce";
    }
    return "?";
}

/* Transport: post one operation of the current round and match it if its peer is ready. */
static int mb_start(void *ctx, const cs_op_t *op, void *buf, int index) {
    vrank_t *v = ctx;
    sim_t *sim = v->sim;
    int p = sim->p;
    int rc = CS_OK;
    rec_t *e;
    if (index != v->nposted || index >= v->cap) {
        note(sim->rep, "rank %d round %d: operation index %d with %d posted (max_comm %d)", v->rank,
             v->exec.round + 1, index, v->nposted, v->cap);
        return CS_ERR_INTERNAL;
    }
    if (op->peer < 0 || op->peer >= p) {
        sim->rep->bad_ref++;
        note(sim->rep, "rank %d round %d: %s peer %d out of range", v->rank, v->exec.round + 1,
             kind_name(op->kind), op->peer);
        return CS_ERR_ARG;
    }
    e = &v->recs[index];
    memset(e, 0, sizeof(*e));
    e->op = op;
    e->buf = buf;
    e->rank = v->rank;
    e->round = v->exec.round;
    CS_CHECK(span(e));
    for (int j = 0; j < index; j++) {
        const rec_t *o = &v->recs[j];
        int writes = op->kind == CS_OP_RECV || o->op->kind == CS_OP_RECV;
        if (writes && e->lo < e->hi && o->lo < o->hi && e->lo < o->hi && o->lo < e->hi) {
            sim->rep->overlap++;
            note(sim->rep, "rank %d round %d: %s with %d overlaps %s with %d in the same round",
                 v->rank, e->round + 1, kind_name(op->kind), op->peer, kind_name(o->op->kind),
                 o->op->peer);
        }
    }
    v->nposted++;
    sim->events++;
    if (op->kind == CS_OP_SEND) {
        rec_t *r = pop(&sim->recvs[v->rank * p + op->peer]);
        if (r != NULL) {
            CS_CHECK(transfer(sim, e, r));
        } else {
            push(&sim->sends[v->rank * p + op->peer], e);
        }
    } else {
        rec_t *s = pop(&sim->sends[op->peer * p + v->rank]);
        if (s != NULL) {
            CS_CHECK(transfer(sim, s, e));
        } else {
            push(&sim->recvs[op->peer * p + v->rank], e);
        }
    }
out:
    return rc;
}

static int mb_test(void *ctx, int n, int *done) {
    vrank_t *v = ctx;
    if (n != v->nposted) {
        note(v->sim->rep, "rank %d round %d: test of %d operations with %d posted", v->rank,
             v->exec.round + 1, n, v->nposted);
        return CS_ERR_INTERNAL;
    }
    *done = 1;
    for (int i = 0; i < n; i++) {
        if (!v->recs[i].done) {
            *done = 0;
            break;
        }
    }
    if (*done) {
        v->nposted = 0;
    }
    return CS_OK;
}

/* The simulator only progresses; a blocking wait would hang the one thread. */
static int mb_wait(void *ctx, int n) {
    (void)ctx;
    (void)n;
    return CS_ERR_INTERNAL;
}

static const cs_transport_t mailbox = {mb_start, mb_test, mb_wait};

/* Checks before running that every operation's slots have buffers and peers are in range. */
static void check_refs(const cs_sim_rank_t *rk, int rank, int p, cs_sim_report_t *rep) {
    const cs_sched_t *s = rk->sched;
    const void *base[CS_SLOT_COUNT] = {rk->sendbuf, rk->recvbuf, rk->scratch};
    int round = 0;
    for (int i = 0; i < s->nops; i++) {
        const cs_op_t *op = &s->ops[i];
        int local = op->kind == CS_OP_COPY || op->kind == CS_OP_REDUCE;
        while (round < s->nrounds && i >= s->round_end[round]) {
            round++;
        }
        if (!local && (op->peer < 0 || op->peer >= p)) {
            rep->bad_ref++;
            note(rep, "rank %d round %d: %s peer %d out of range", rank, round + 1,
                 kind_name(op->kind), op->peer);
        }
        if (op->buf.slot < 0 || op->buf.slot >= CS_SLOT_COUNT ||
            (local && (op->dst.slot < 0 || op->dst.slot >= CS_SLOT_COUNT))) {
            rep->bad_ref++;
            note(rep, "rank %d round %d: %s with an invalid slot", rank, round + 1,
                 kind_name(op->kind));
            continue;
        }
        if (op->count > 0 && base[op->buf.slot] == NULL) {
            rep->bad_ref++;
            note(rep, "rank %d round %d: %s reads the %s buffer, which is NULL on this rank", rank,
                 round + 1, kind_name(op->kind), slot_names[op->buf.slot]);
        }
        if (local && op->dst_count > 0 && base[op->dst.slot] == NULL) {
            rep->bad_ref++;
            note(rep, "rank %d round %d: %s writes the %s buffer, which is NULL on this rank", rank,
                 round + 1, kind_name(op->kind), slot_names[op->dst.slot]);
        }
    }
}

/* Describes the ranks that cannot go on: round and the first incomplete operation. */
static void describe_stuck(const sim_t *sim) {
    char line[sizeof(sim->rep->msg)];
    size_t len = 0;
    int shown = 0, stuck = 0;
    line[0] = '\0';
    for (int r = 0; r < sim->p; r++) {
        const vrank_t *v = &sim->vr[r];
        if (v->finished) {
            continue;
        }
        stuck++;
        if (shown < 6 && len + 64 < sizeof(line)) {
            const rec_t *w = NULL;
            for (int i = 0; i < v->nposted && w == NULL; i++) {
                w = v->recs[i].done ? NULL : &v->recs[i];
            }
            len += (size_t)snprintf(line + len, sizeof(line) - len, "%s rank %d round %d/%d",
                                    shown > 0 ? "," : "", r, v->exec.round + 1,
                                    v->exec.sched->nrounds);
            if (w != NULL) {
                len += (size_t)snprintf(line + len, sizeof(line) - len, " waits on %s %s %d",
                                        kind_name(w->op->kind),
                                        w->op->kind == CS_OP_SEND ? "to" : "from", w->op->peer);
            }
            shown++;
        }
    }
    if (stuck > shown) {
        snprintf(line + len, sizeof(line) - len, " and %d more", stuck - shown);
    }
    note(sim->rep, "deadlock (%d ranks stuck):%s", stuck, line);
}

/* Reports operations left in the queues. */
static void check_unmatched(const sim_t *sim) {
    int p = sim->p;
    int shown = 0;
    for (int pass = 0; pass < 2; pass++) {
        const queue_t *qs = pass == 0 ? sim->sends : sim->recvs;
        for (int i = 0; i < p * p; i++) {
            for (const rec_t *e = qs[i].head; e != NULL; e = e->next) {
                sim->rep->unmatched++;
                if (shown++ < 4) {
                    note(sim->rep, "unmatched %s: rank %d round %d, %s %d (%d elements)",
                         kind_name(e->op->kind), e->rank, e->round + 1, pass == 0 ? "to" : "from",
                         pass == 0 ? i % p : i / p, e->op->count);
                }
            }
        }
    }
}

static int problems(const cs_sim_report_t *rep) {
    return rep->error || rep->deadlock || rep->unmatched || rep->mismatch || rep->overlap ||
           rep->bad_ref;
}

int cs_sim_run(int p, const cs_sim_rank_t *ranks, cs_sim_report_t *rep) {
    int rc = CS_OK;
    sim_t sim;
    memset(rep, 0, sizeof(*rep));
    memset(&sim, 0, sizeof(sim));
    sim.p = p;
    sim.rep = rep;
    CS_REQUIRE(p >= 1, CS_ERR_ARG);
    for (int r = 0; r < p; r++) {
        check_refs(&ranks[r], r, p, rep);
    }
    if (rep->bad_ref) {
        goto out;
    }
    sim.vr = calloc((size_t)p, sizeof(*sim.vr));
    sim.sends = calloc((size_t)p * (size_t)p, sizeof(*sim.sends));
    sim.recvs = calloc((size_t)p * (size_t)p, sizeof(*sim.recvs));
    CS_REQUIRE(sim.vr != NULL && sim.sends != NULL && sim.recvs != NULL, CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        vrank_t *v = &sim.vr[r];
        v->sim = &sim;
        v->rank = r;
        v->cap = ranks[r].sched->max_comm;
        v->recs = calloc((size_t)(v->cap > 0 ? v->cap : 1), sizeof(*v->recs));
        CS_REQUIRE(v->recs != NULL, CS_ERR_NOMEM);
        cs_exec_start(&v->exec, ranks[r].sched, ranks[r].sendbuf, ranks[r].recvbuf,
                      ranks[r].scratch, &mailbox, v);
    }
    for (;;) {
        long before = sim.events;
        int unfinished = 0;
        for (int r = 0; r < p; r++) {
            vrank_t *v = &sim.vr[r];
            int round = v->exec.round;
            int st;
            if (v->finished) {
                continue;
            }
            st = cs_exec_progress(&v->exec);
            sim.events += v->exec.round - round;
            if (st < 0) {
                rep->error++;
                note(rep, "rank %d round %d: executor returned %s", r, v->exec.round + 1,
                     cs_status_name(st));
                goto stop;
            }
            if (st == CS_OK) {
                v->finished = 1;
                sim.events++;
            } else {
                unfinished++;
            }
        }
        if (unfinished == 0) {
            break;
        }
        if (sim.events == before) {
            rep->deadlock = 1;
            describe_stuck(&sim);
            break;
        }
    }
stop:
    check_unmatched(&sim);
out:
    if (sim.vr != NULL) {
        for (int r = 0; r < p; r++) {
            free(sim.vr[r].recs);
        }
    }
    free(sim.vr);
    free(sim.sends);
    free(sim.recvs);
    free(sim.pack);
    if (rc == CS_OK && problems(rep)) {
        rc = CS_ERR_INTERNAL;
    }
    return rc;
}

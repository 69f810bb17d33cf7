/* Tree balancing of neighbourhood collectives (see balance.h). */
#include "balance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The plan while the balancing loop works on it. Message k starts as edge k's direct message
 * and keeps its number when it moves (only its sender changes), so there are always nedges
 * messages. A hop is one (edge, message) pair: it sits in the message's payload list (hnext)
 * and in the edge's route (rprev, rnext, from rhead[edge]). */
typedef struct work {
    const cs_graph_t *g;
    int n;                     /* messages = edges */
    int *msrc, *mdst;          /* [n] */
    int *mhead, *mtail, *mcnt; /* [n] payload list */
    int nhops, hcap;
    int *hedge, *hmsg, *hnext, *rprev, *rnext; /* [hcap] */
    int *rhead;                                /* [n] first hop of each edge's route */
    int *outdeg;                               /* [p] messages sent, self-loops excluded */
    int *mmark, *pmark;                        /* [n], [p] stamps */
    int stamp;
    int *queue; /* [n] */
} work_t;

static void work_free(work_t *w) {
    free(w->msrc);
    free(w->mdst);
    free(w->mhead);
    free(w->mtail);
    free(w->mcnt);
    free(w->hedge);
    free(w->hmsg);
    free(w->hnext);
    free(w->rprev);
    free(w->rnext);
    free(w->rhead);
    free(w->outdeg);
    free(w->mmark);
    free(w->pmark);
    free(w->queue);
    memset(w, 0, sizeof(*w));
}

static int grow_hops(work_t *w, int need) {
    int cap = w->hcap;
    int **arrays[] = {&w->hedge, &w->hmsg, &w->hnext, &w->rprev, &w->rnext};
    if (need <= cap) {
        return CS_OK;
    }
    while (cap < need) {
        cap = cap < 16 ? 16 : cap * 2;
    }
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        int *a = realloc(*arrays[i], sizeof(int) * (size_t)cap);
        if (a == NULL) {
            return CS_ERR_NOMEM;
        }
        *arrays[i] = a;
    }
    w->hcap = cap;
    return CS_OK;
}

/* The direct plan: message e carries edge e, hop e = (e, e). */
static int work_init(work_t *w, const cs_graph_t *g) {
    int rc = CS_OK;
    int n = g->nedges, sz = n > 0 ? n : 1;
    memset(w, 0, sizeof(*w));
    w->g = g;
    w->n = n;
    w->msrc = malloc(sizeof(int) * (size_t)sz);
    w->mdst = malloc(sizeof(int) * (size_t)sz);
    w->mhead = malloc(sizeof(int) * (size_t)sz);
    w->mtail = malloc(sizeof(int) * (size_t)sz);
    w->mcnt = malloc(sizeof(int) * (size_t)sz);
    w->rhead = malloc(sizeof(int) * (size_t)sz);
    w->mmark = calloc((size_t)sz, sizeof(int));
    w->queue = malloc(sizeof(int) * (size_t)sz);
    w->outdeg = calloc((size_t)g->p, sizeof(int));
    w->pmark = calloc((size_t)g->p, sizeof(int));
    CS_REQUIRE(w->msrc != NULL && w->mdst != NULL && w->mhead != NULL && w->mtail != NULL &&
                   w->mcnt != NULL && w->rhead != NULL && w->mmark != NULL && w->queue != NULL &&
                   w->outdeg != NULL && w->pmark != NULL,
               CS_ERR_NOMEM);
    CS_CHECK(grow_hops(w, n));
    for (int e = 0; e < n; e++) {
        w->msrc[e] = g->edges[e].src;
        w->mdst[e] = g->edges[e].dst;
        w->mhead[e] = w->mtail[e] = e;
        w->mcnt[e] = 1;
        w->rhead[e] = e;
        w->hedge[e] = e;
        w->hmsg[e] = e;
        w->hnext[e] = -1;
        w->rprev[e] = -1;
        w->rnext[e] = -1;
        if (w->msrc[e] != w->mdst[e]) {
            w->outdeg[w->msrc[e]]++;
        }
    }
    w->nhops = n;
out:
    if (rc < 0) {
        work_free(w);
    }
    return rc;
}

/* Marks, with the current stamp, every message reachable from k along the dependency edges
 * (a message depends on those that bring its sender a block of its payload). */
static void mark_reach(work_t *w, int k) {
    int head = 0, tail = 0;
    if (w->mmark[k] == w->stamp) {
        return;
    }
    w->mmark[k] = w->stamp;
    w->queue[tail++] = k;
    while (head < tail) {
        int x = w->queue[head++];
        for (int h = w->mhead[x]; h >= 0; h = w->hnext[h]) {
            int hn = w->rnext[h];
            if (hn >= 0 && w->mmark[w->hmsg[hn]] != w->stamp) {
                w->mmark[w->hmsg[hn]] = w->stamp;
                w->queue[tail++] = w->hmsg[hn];
            }
        }
    }
}

/* 1 if message k may go through ps via message a (see balance.h); the reach of a and, for
 * allgather, the senders a carries are marked with the current stamp. */
static int movable(const work_t *w, int k, int ps, cs_balance_kind_t kind) {
    for (int h = w->mhead[k]; h >= 0; h = w->hnext[h]) {
        int e = w->hedge[h];
        if (w->rprev[h] >= 0 && w->mmark[w->hmsg[w->rprev[h]]] == w->stamp) {
            return 0; /* k's payload comes through a message that waits for a: a cycle */
        }
        if (kind == CS_BALANCE_ALLGATHER && w->pmark[w->g->edges[e].src] != w->stamp) {
            return 0; /* a does not carry this sender's block yet */
        }
        for (int r = w->rhead[e]; r >= 0; r = w->rnext[r]) {
            if (w->msrc[w->hmsg[r]] == ps || w->mdst[w->hmsg[r]] == ps) {
                return 0; /* ps is on the block's route already */
            }
        }
    }
    return 1;
}

/* Moves message k (sent by pm) behind message a (pm -> ps): its payload joins a's and k is then
 * sent by ps. */
static int move(work_t *w, int k, int a) {
    int ps = w->mdst[a];
    for (int h = w->mhead[k]; h >= 0; h = w->hnext[h]) {
        int h2 = w->nhops;
        int rc = grow_hops(w, h2 + 1);
        if (rc < 0) {
            return rc;
        }
        w->nhops++;
        w->hedge[h2] = w->hedge[h];
        w->hmsg[h2] = a;
        /* into the route, before h */
        w->rprev[h2] = w->rprev[h];
        w->rnext[h2] = h;
        if (w->rprev[h] >= 0) {
            w->rnext[w->rprev[h]] = h2;
        } else {
            w->rhead[w->hedge[h]] = h2;
        }
        w->rprev[h] = h2;
        /* onto a's payload */
        w->hnext[h2] = -1;
        w->hnext[w->mtail[a]] = h2;
        w->mtail[a] = h2;
        w->mcnt[a]++;
    }
    w->outdeg[w->msrc[k]]--;
    w->outdeg[ps]++;
    w->msrc[k] = ps;
    return CS_OK;
}

typedef struct cand {
    int cnt, k;
} cand_t;

static int cmp_cand(const void *a, const void *b) {
    const cand_t *x = a, *y = b;
    if (x->cnt != y->cnt) {
        return x->cnt < y->cnt ? -1 : 1;
    }
    return x->k < y->k ? -1 : x->k > y->k;
}

/* One step of the loop (balance.h, 1-3). *moved: messages moved (0: the loop stops). */
static int step(work_t *w, cs_balance_kind_t kind, double lag, int t, cand_t *cands, int *moved) {
    const cs_graph_t *g = w->g;
    int pm = 0, ps = -1, a = -1, m, s, x, nc = 0;
    *moved = 0;
    for (int r = 1; r < g->p; r++) {
        if (w->outdeg[r] > w->outdeg[pm]) {
            pm = r;
        }
    }
    m = w->outdeg[pm];
    /* p_s: a graph out-neighbour of p_m that receives a message from p_m */
    w->stamp++;
    for (int e = g->out_start[pm]; e < g->out_start[pm + 1]; e++) {
        w->pmark[g->edges[e].dst] = w->stamp;
    }
    for (int k = 0; k < w->n; k++) {
        int b = w->mdst[k];
        if (w->msrc[k] != pm || b == pm || w->pmark[b] != w->stamp) {
            continue;
        }
        if (ps < 0 || w->outdeg[b] < w->outdeg[ps] || (w->outdeg[b] == w->outdeg[ps] && b < ps)) {
            ps = b;
            a = k;
        } else if (b == ps && k < a) {
            a = k;
        }
    }
    if (ps < 0) {
        return CS_OK;
    }
    s = w->outdeg[ps];
    if (m - s <= t) {
        return CS_OK;
    }
    x = (m - s) / 2 - (int)fmin(ceil(lag), (double)m);
    if (x <= 0) {
        return CS_OK;
    }
    for (int k = 0; k < w->n; k++) {
        if (w->msrc[k] == pm && w->mdst[k] != pm && w->mdst[k] != ps) {
            cands[nc].cnt = w->mcnt[k];
            cands[nc].k = k;
            nc++;
        }
    }
    qsort(cands, (size_t)nc, sizeof(*cands), cmp_cand);
    /* stamps for this step: the reach of a (messages), the senders a carries (processes) */
    w->stamp++;
    mark_reach(w, a);
    for (int h = w->mhead[a]; h >= 0; h = w->hnext[h]) {
        w->pmark[g->edges[w->hedge[h]].src] = w->stamp;
    }
    for (int i = 0; i < nc && *moved < x; i++) {
        int k = cands[i].k;
        if (!movable(w, k, ps, kind)) {
            continue;
        }
        int rc = move(w, k, a);
        if (rc < 0) {
            return rc;
        }
        mark_reach(w, k); /* k now waits for a */
        (*moved)++;
    }
    return CS_OK;
}

void cs_balance_free(cs_balance_t *plan) {
    if (plan == NULL) {
        return;
    }
    free(plan->msg_src);
    free(plan->msg_dst);
    free(plan->msg_round);
    free(plan->msg_start);
    free(plan->msg_edge);
    free(plan->route_start);
    free(plan->route_msg);
    memset(plan, 0, sizeof(*plan));
}

/* A message's sort key in the finished plan: (round, sender, receiver, creation). */
typedef struct msgkey {
    int round, src, dst, k;
} msgkey_t;

static int cmp_msgkey(const void *a, const void *b) {
    const msgkey_t *x = a, *y = b;
    if (x->round != y->round) {
        return x->round < y->round ? -1 : 1;
    }
    if (x->src != y->src) {
        return x->src < y->src ? -1 : 1;
    }
    if (x->dst != y->dst) {
        return x->dst < y->dst ? -1 : 1;
    }
    return x->k < y->k ? -1 : x->k > y->k;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Rounds (Kahn's algorithm over the dependencies), numbering and the plan's arrays. */
static int finish(work_t *w, int moves, cs_balance_t *plan) {
    int rc = CS_OK;
    int n = w->n, sz = n > 0 ? n : 1, head = 0, tail = 0;
    int *round = calloc((size_t)sz, sizeof(int));
    int *wait = calloc((size_t)sz, sizeof(int));
    msgkey_t *perm = malloc(sizeof(*perm) * (size_t)sz);
    int *newid = malloc(sizeof(int) * (size_t)sz);
    memset(plan, 0, sizeof(*plan));
    CS_REQUIRE(round != NULL && wait != NULL && perm != NULL && newid != NULL, CS_ERR_NOMEM);
    for (int h = 0; h < w->nhops; h++) {
        if (w->rprev[h] >= 0) {
            wait[w->hmsg[h]]++;
        }
    }
    for (int k = 0; k < n; k++) {
        if (wait[k] == 0) {
            w->queue[tail++] = k;
        }
    }
    while (head < tail) {
        int x = w->queue[head++];
        for (int h = w->mhead[x]; h >= 0; h = w->hnext[h]) {
            int hn = w->rnext[h];
            if (hn >= 0) {
                int y = w->hmsg[hn];
                round[y] = round[y] > round[x] + 1 ? round[y] : round[x] + 1;
                if (--wait[y] == 0) {
                    w->queue[tail++] = y;
                }
            }
        }
    }
    CS_REQUIRE(tail == n, CS_ERR_INTERNAL); /* the moves keep the dependencies acyclic */
    for (int k = 0; k < n; k++) {
        perm[k].round = round[k];
        perm[k].src = w->msrc[k];
        perm[k].dst = w->mdst[k];
        perm[k].k = k;
    }
    qsort(perm, (size_t)n, sizeof(*perm), cmp_msgkey);
    plan->p = w->g->p;
    plan->nedges = n;
    plan->nmsgs = n;
    plan->moves = moves;
    plan->msg_src = malloc(sizeof(int) * (size_t)sz);
    plan->msg_dst = malloc(sizeof(int) * (size_t)sz);
    plan->msg_round = malloc(sizeof(int) * (size_t)sz);
    plan->msg_start = malloc(sizeof(int) * ((size_t)n + 1));
    plan->msg_edge = malloc(sizeof(int) * (size_t)(w->nhops > 0 ? w->nhops : 1));
    plan->route_start = malloc(sizeof(int) * ((size_t)n + 1));
    plan->route_msg = malloc(sizeof(int) * (size_t)(w->nhops > 0 ? w->nhops : 1));
    CS_REQUIRE(plan->msg_src != NULL && plan->msg_dst != NULL && plan->msg_round != NULL &&
                   plan->msg_start != NULL && plan->msg_edge != NULL && plan->route_start != NULL &&
                   plan->route_msg != NULL,
               CS_ERR_NOMEM);
    plan->msg_start[0] = 0;
    for (int i = 0; i < n; i++) {
        int k = perm[i].k, j = plan->msg_start[i];
        newid[k] = i;
        plan->msg_src[i] = w->msrc[k];
        plan->msg_dst[i] = w->mdst[k];
        plan->msg_round[i] = round[k];
        plan->nrounds = round[k] + 1 > plan->nrounds ? round[k] + 1 : plan->nrounds;
        for (int h = w->mhead[k]; h >= 0; h = w->hnext[h]) {
            plan->msg_edge[j++] = w->hedge[h];
        }
        qsort(plan->msg_edge + plan->msg_start[i], (size_t)(j - plan->msg_start[i]), sizeof(int),
              cmp_int);
        plan->msg_start[i + 1] = j;
    }
    plan->route_start[0] = 0;
    for (int e = 0; e < n; e++) {
        int j = plan->route_start[e];
        for (int h = w->rhead[e]; h >= 0; h = w->rnext[h]) {
            plan->route_msg[j++] = newid[w->hmsg[h]];
        }
        plan->route_start[e + 1] = j;
    }
out:
    free(round);
    free(wait);
    free(perm);
    free(newid);
    if (rc < 0) {
        cs_balance_free(plan);
    }
    return rc;
}

static int model_ok(const cs_loggp_t *m, double block_bytes) {
    return m != NULL && isfinite(m->L) && isfinite(m->o) && isfinite(m->g) && isfinite(m->G) &&
           isfinite(block_bytes) && m->L >= 0 && m->o > 0 && m->g >= 0 && m->G >= 0 &&
           block_bytes >= 0;
}

int cs_balance_direct(const cs_graph_t *g, cs_balance_t *plan) {
    int rc = CS_OK;
    work_t w;
    memset(plan, 0, sizeof(*plan));
    CS_CHECK(work_init(&w, g));
    rc = finish(&w, 0, plan);
    work_free(&w);
out:
    return rc;
}

int cs_balance_build(const cs_graph_t *g, cs_balance_kind_t kind, const cs_loggp_t *model,
                     double block_bytes, int t, cs_balance_t *plan) {
    int rc = CS_OK;
    int moves = 0, moved;
    double lag, best_time, time;
    cand_t *cands = NULL;
    void *cost_work = NULL;
    cs_balance_t best, next;
    work_t w;
    memset(&w, 0, sizeof(w));
    memset(&best, 0, sizeof(best));
    memset(&next, 0, sizeof(next));
    memset(plan, 0, sizeof(*plan));
    CS_REQUIRE(t >= 0 && model_ok(model, block_bytes), CS_ERR_ARG);
    CS_REQUIRE(kind == CS_BALANCE_ALLTOALL || kind == CS_BALANCE_ALLGATHER, CS_ERR_ARG);
    /* the messages p_m sends while the first forwarded one is in flight (before the ceil) */
    lag = kind == CS_BALANCE_ALLTOALL
              ? model->L / model->o
              : model->L / (model->o + fmax(block_bytes - 1.0, 0.0) * model->G);
    CS_CHECK(work_init(&w, g));
    cands = malloc(sizeof(*cands) * (size_t)(g->nedges > 0 ? g->nedges : 1));
    CS_REQUIRE(cands != NULL, CS_ERR_NOMEM);
    /* the cheapest plan the loop passes through, the direct one included (balance.h, 4.) */
    CS_CHECK(finish(&w, 0, &best));
    cost_work = malloc((size_t)cs_balance_cost_work(&best));
    CS_REQUIRE(cost_work != NULL, CS_ERR_NOMEM);
    CS_CHECK(cs_balance_cost(g, &best, kind, model, block_bytes, cost_work, &best_time));
    for (;;) {
        CS_CHECK(step(&w, kind, lag, t, cands, &moved));
        if (moved == 0) {
            break;
        }
        moves += moved;
        CS_CHECK(finish(&w, moves, &next));
        CS_CHECK(cs_balance_cost(g, &next, kind, model, block_bytes, cost_work, &time));
        if (time <= best_time) {
            cs_balance_free(&best);
            best = next;
            best_time = time;
            memset(&next, 0, sizeof(next));
        } else {
            cs_balance_free(&next);
        }
    }
    *plan = best;
    memset(&best, 0, sizeof(best));
out:
    cs_balance_free(&best);
    cs_balance_free(&next);
    free(cost_work);
    free(cands);
    work_free(&w);
    return rc;
}

int cs_balance_msg_blocks(const cs_graph_t *g, const cs_balance_t *plan, cs_balance_kind_t kind,
                          int k) {
    int lo = plan->msg_start[k], hi = plan->msg_start[k + 1], n = 0;
    if (kind == CS_BALANCE_ALLTOALL) {
        return hi - lo;
    }
    /* payload edges are increasing and edges are numbered by sender: count sender changes */
    for (int i = lo; i < hi; i++) {
        n += i == lo || g->edges[plan->msg_edge[i]].src != g->edges[plan->msg_edge[i - 1]].src;
    }
    return n;
}

typedef struct arrival {
    double at;
    int k;
} arrival_t;

static int cmp_arrival(const void *a, const void *b) {
    const arrival_t *x = a, *y = b;
    if (x->at != y->at) {
        return x->at < y->at ? -1 : 1;
    }
    return x->k < y->k ? -1 : x->k > y->k;
}

long cs_balance_cost_work(const cs_balance_t *plan) {
    return (long)sizeof(double) * (2L * plan->p + 2L * plan->nmsgs) +
           (long)sizeof(arrival_t) * plan->nmsgs;
}

int cs_balance_cost(const cs_graph_t *g, const cs_balance_t *plan, cs_balance_kind_t kind,
                    const cs_loggp_t *model, double block_bytes, void *work, double *time) {
    int rc = CS_OK;
    arrival_t *arr = work; /* first: its alignment is at least a double's */
    double *cpu = (double *)(arr + plan->nmsgs);
    double *last = cpu + plan->p;   /* start of each process's last send, -inf: none */
    double *ready = last + plan->p; /* when message k's payload is all at its sender */
    double *done = ready + plan->nmsgs;
    double end = 0.0;
    *time = 0.0;
    CS_REQUIRE(model_ok(model, block_bytes), CS_ERR_ARG);
    for (int r = 0; r < plan->p; r++) {
        cpu[r] = 0.0;
        last[r] = -INFINITY;
    }
    for (int k = 0; k < plan->nmsgs; k++) {
        ready[k] = 0.0;
        done[k] = 0.0;
    }
    for (int lo = 0, hi; lo < plan->nmsgs; lo = hi) {
        int na = 0;
        for (hi = lo; hi < plan->nmsgs && plan->msg_round[hi] == plan->msg_round[lo]; hi++) {
        }
        /* sends of the round, in message order */
        for (int k = lo; k < hi; k++) {
            int src = plan->msg_src[k];
            double bytes = cs_balance_msg_blocks(g, plan, kind, k) * block_bytes;
            double start;
            if (src == plan->msg_dst[k]) {
                done[k] = ready[k]; /* a local copy */
                continue;
            }
            start = fmax(fmax(cpu[src], ready[k]), last[src] + model->g);
            last[src] = start;
            cpu[src] = start + model->o + fmax(bytes - 1.0, 0.0) * model->G;
            arr[na].at = cpu[src] + model->L;
            arr[na].k = k;
            na++;
        }
        /* receives of the round, in order of arrival */
        qsort(arr, (size_t)na, sizeof(*arr), cmp_arrival);
        for (int i = 0; i < na; i++) {
            int dst = plan->msg_dst[arr[i].k];
            cpu[dst] = fmax(cpu[dst], arr[i].at) + model->o;
            done[arr[i].k] = cpu[dst];
        }
        /* what the round delivered makes later messages ready */
        for (int k = lo; k < hi; k++) {
            end = fmax(end, done[k]);
            for (int i = plan->msg_start[k]; i < plan->msg_start[k + 1]; i++) {
                int e = plan->msg_edge[i];
                for (int j = plan->route_start[e]; j + 1 < plan->route_start[e + 1]; j++) {
                    if (plan->route_msg[j] == k) {
                        int next = plan->route_msg[j + 1];
                        ready[next] = fmax(ready[next], done[k]);
                    }
                }
            }
        }
    }
    for (int r = 0; r < plan->p; r++) {
        end = fmax(end, cpu[r]);
    }
    *time = end;
out:
    return rc;
}

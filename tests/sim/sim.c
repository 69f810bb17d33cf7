/* The schedule simulator: mailbox transport and driver (see sim.h). */
#include "sim.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One buffer of a posted SEND or RECV: the op's own, or one of its parts (sched.h). */
typedef struct seg {
    char *addr;
    int count;
    MPI_Datatype type;
    uintptr_t lo; /* data span [lo, hi) for the overlap check; empty when lo == hi */
    uintptr_t hi;
} seg_t;

/* One posted SEND, RECV or COLL. */
typedef struct rec {
    const cs_op_t *op;
    const cs_coll_op_t *coll; /* COLL: its description; op is NULL */
    char *recv;               /* COLL: the receive side (buf is the send side) */
    const int *counts;        /* COLL allgatherv: counts, then displs */
    char *buf;
    int rank;  /* who posted it */
    int call;  /* in which call of its rank's sequence */
    int round; /* in which round of that call's schedule */
    int done;  /* matched and transferred */
    int seg;   /* SEND, RECV: its buffers, segs[seg .. seg + nseg) of its rank (COLL: none) */
    int nseg;
    struct rec *next; /* in its (src, dst) queue while unmatched */
} rec_t;

typedef struct queue {
    rec_t *head, *tail;
} queue_t;

/* A native collective on a group, started by some of its members so far. A member's k-th
 * collective on a group joins the k-th instance (MPI's ordering rule for collectives). */
typedef struct gcoll {
    cs_group_t group;
    int call; /* the call of the member that started it */
    int nstarted;
    rec_t **member; /* [group.size]: each member's record once it has started */
    uint32_t *rc;   /* race checker: join of the members' release clocks at their starts */
    struct gcoll *next;
} gcoll_t;

struct sim;
struct race;

/* One virtual rank: its executor and the operations it posted in the current round. */
typedef struct vrank {
    struct sim *sim;
    int rank;
    int call; /* the call in progress, from 0 */
    rec_t *recs;
    int cap, nposted;
    seg_t *segs; /* the buffers of the SENDs and RECVs posted in the current round */
    int nsegs, segs_cap;
    cs_exec_t exec;
    int finished;
} vrank_t;

typedef struct sim {
    int p, ncalls;
    const cs_sim_rank_t *ranks; /* [ncalls * p]: rank r's call k at k * p + r */
    vrank_t *vr;
    queue_t *sends; /* [src * p + dst]: sends posted by src to dst, not yet matched */
    queue_t *recvs; /* [src * p + dst]: receives posted by dst from src, not yet matched */
    char *pack;
    int pack_cap;
    gcoll_t *colls; /* collectives some members have started, oldest first */
    long events;    /* operations posted, messages transferred, rounds finished */
    cs_sim_report_t *rep;
    struct race *race; /* the window race checker; NULL when no rank has a window */
} sim_t;

static const char *slot_names[CS_SLOT_COUNT] = {"send", "recv", "scratch", "window"};

/* A rank's position for messages: "round R", or "call C round R" in a run of several calls
 * (both from 1). A function result, so it lives until the end of the full expression. */
typedef struct where {
    char s[40];
} where_t;

static where_t where(int ncalls, int call, int round) {
    where_t w;
    if (ncalls > 1) {
        snprintf(w.s, sizeof(w.s), "call %d round %d", call + 1, round + 1);
    } else {
        snprintf(w.s, sizeof(w.s), "round %d", round + 1);
    }
    return w;
}

/* The position of rank v now. */
static where_t here(const vrank_t *v) {
    return where(v->sim->ncalls, v->call, v->exec.round);
}

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

/* Which sides of COLL c a rank uses: reads its send side, touches its receive side. */
static void coll_uses(const cs_coll_op_t *c, int member, int *send, int *recv) {
    int is_root = member == c->root;
    switch (c->coll) {
    case CS_COLL_BARRIER:
        *send = 0;
        *recv = 0;
        break;
    case CS_COLL_BCAST:
        *send = 0;
        *recv = c->recvcount > 0;
        break;
    case CS_COLL_GATHER:
    case CS_COLL_REDUCE:
        *send = !(is_root && c->in_place) && c->sendcount > 0;
        *recv = is_root && (c->recvcount > 0 || c->sendcount > 0);
        break;
    case CS_COLL_SCATTER:
        *send = is_root && c->sendcount > 0;
        *recv = !(is_root && c->in_place) && c->recvcount > 0;
        break;
    default:
        *send = !c->in_place && c->sendcount > 0;
        *recv = 1;
        break;
    }
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
    case CS_OP_COLL:
        return "coll";
    case CS_OP_SYNC:
        return "sync";
    }
    return "?";
}

/* ---- window race checker: happens-before over the shared windows (sim.h) ------------------- */

#define SHARED (-1) /* cell_t.rrank: unordered readers; rep indexes a read vector */

enum { READS, WRITES, UPDATES }; /* how an access touches its bytes (UPDATES: read + write) */

/* Window offsets [lo, hi) an access touches, and how; empty when lo == hi. */
typedef struct range {
    MPI_Aint lo, hi;
    int mode;
} range_t;

/* Shadow of one granule of a window: its last write and the reads since that write. Epoch 0
 * means "none" and is visible to every rank, so an all-zero cell is a granule nobody touched. */
typedef struct cell {
    int32_t wrank; /* last writer */
    uint32_t wep;  /* its epoch at the write */
    int32_t rrank; /* the reader since then, SHARED: several */
    uint32_t rep;  /* its epoch at the read; SHARED: index of a read vector */
} cell_t;

/* One node's window: the ranks that share it and the shadow of its bytes, one cell per granule
 * of `grain` bytes: every access of the node's schedules starts and ends on a granule
 * boundary (race_init), so a granule is touched whole or not at all and the shadow is exact. */
typedef struct wnode {
    char *base;     /* the window's middle, the same for all its ranks */
    MPI_Aint bytes; /* offsets [-bytes, bytes) are tracked: the largest window_bytes */
    MPI_Aint grain;
    int m;         /* ranks sharing it */
    int *member;   /* [m]: their ranks, in rank order */
    cell_t *cell;  /* [2 * bytes / grain]: cell[(bytes + off) / grain] shadows offset off */
    uint32_t *vec; /* read vectors: m epochs each, one per member (0: no read) */
    size_t nvec, vec_cap;
} wnode_t;

/* One window access, kept to name the earlier side of the first race. */
typedef struct access {
    int rank, call, round, node, write;
    const char *what;
    MPI_Aint lo, hi; /* window offsets [lo, hi) */
    uint32_t ep;
} access_t;

typedef struct race {
    int p, nnodes;
    wnode_t *node;          /* [nnodes] */
    int *node_of, *local;   /* [p]: node of each rank (-1: no window), index in its members */
    int *accounted;         /* [p]: rounds whose local operations have been accounted */
    uint32_t *vc, *rc, *pa; /* [p * p]: row r is rank r's VC, RC and PA (sim.h) */
    access_t *log;
    size_t nlog, log_cap;
} race_t;

/* The covering range of `count` elements of `type` at window offset `off` into *out (empty for
 * count <= 0): from the lowest true lower bound to the highest true upper bound. */
static int cover(MPI_Aint off, MPI_Aint count, MPI_Datatype type, int mode, range_t *out) {
    MPI_Aint lb, extent, true_lb, true_extent, first, last;
    out->lo = out->hi = 0;
    out->mode = mode;
    if (count <= 0) {
        return CS_OK;
    }
    if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    first = off + true_lb;
    last = first + (count - 1) * extent; /* the last element's true lower bound */
    out->lo = first < last ? first : last;
    out->hi = (first < last ? last : first) + true_extent;
    return CS_OK;
}

/* The window ranges of SEND, RECV, COPY or REDUCE `op` (out[0..*n)): source read, destination
 * written (REDUCE: updated); a copy onto itself, which the executor skips, touches nothing. */
static int op_ranges(const cs_op_t *op, range_t out[2], int *n) {
    int rc = CS_OK;
    *n = 0;
    if (op->kind == CS_OP_COPY && op->buf.slot == op->dst.slot && op->buf.off == op->dst.off &&
        (op->copy_bytes > 0 || (op->type == op->dst_type && op->count == op->dst_count))) {
        goto out;
    }
    if (op->buf.slot == CS_SLOT_WINDOW) {
        CS_CHECK(cover(op->buf.off, op->count, op->type, op->kind == CS_OP_RECV ? WRITES : READS,
                       &out[*n]));
        (*n)++;
    }
    if ((op->kind == CS_OP_COPY || op->kind == CS_OP_REDUCE) && op->dst.slot == CS_SLOT_WINDOW) {
        CS_CHECK(cover(op->dst.off, op->dst_count, op->dst_type,
                       op->kind == CS_OP_REDUCE ? UPDATES : WRITES, &out[*n]));
        (*n)++;
    }
out:
    return rc;
}

/* The window range of part `pt` of a multi-part SEND (read) or RECV (written); empty unless the
 * part lies in the window. */
static int part_range(const cs_part_t *pt, cs_op_kind_t kind, range_t *out) {
    out->lo = out->hi = 0;
    out->mode = READS;
    if (pt->buf.slot != CS_SLOT_WINDOW) {
        return CS_OK;
    }
    return cover(pt->buf.off, pt->count, pt->type, kind == CS_OP_RECV ? WRITES : READS, out);
}

/* The window ranges of COLL c for group member `member` (out[0..*n)): its send side read, its
 * receive side written (updated in place; a bcast root reads it). */
static int coll_ranges(const cs_coll_op_t *c, int member, const int *counts, range_t out[2],
                       int *n) {
    int rc = CS_OK;
    int size = c->group.size, send = 0, recv = 0;
    int mode = c->in_place ? UPDATES : WRITES;
    MPI_Aint off = c->recv.off, count = c->recvcount;
    MPI_Datatype type = c->recvtype;
    *n = 0;
    coll_uses(c, member, &send, &recv);
    if (send && c->send.slot == CS_SLOT_WINDOW) {
        MPI_Aint blocks = c->coll == CS_COLL_SCATTER ? size : 1;
        CS_CHECK(cover(c->send.off, blocks * c->sendcount, c->sendtype, READS, &out[(*n)++]));
    }
    if (!recv || c->recv.slot != CS_SLOT_WINDOW) {
        goto out;
    }
    switch (c->coll) {
    case CS_COLL_BCAST:
        mode = member == c->root ? READS : WRITES;
        break;
    case CS_COLL_GATHER:
    case CS_COLL_ALLGATHER:
        count = (MPI_Aint)size * c->recvcount;
        break;
    case CS_COLL_ALLGATHERV: {
        MPI_Aint lo = 0, hi = 0, lb = 0, extent = 0; /* elements [lo, hi) cover every block */
        for (int i = 0; i < size; i++) {
            MPI_Aint d = counts[size + i];
            if (counts[i] > 0 && (hi == lo || d < lo)) {
                lo = d;
            }
            if (counts[i] > 0 && d + counts[i] > hi) {
                hi = d + counts[i];
            }
        }
        CS_MPI_CHECK(MPI_Type_get_extent(type, &lb, &extent));
        off += lo * extent;
        count = hi - lo;
        break;
    }
    case CS_COLL_SCATTER:
        mode = WRITES;
        break;
    case CS_COLL_REDUCE:
    case CS_COLL_ALLREDUCE:
        count = c->sendcount; /* the result has the send side's count and type */
        type = c->sendtype;
        break;
    default:
        count = 0;
        break;
    }
    CS_CHECK(cover(off, count, type, mode, &out[(*n)++]));
out:
    return rc;
}

/* The window ranges of operation i of rank r's schedule s (any kind; SYNC: none). */
static int any_ranges(const cs_sched_t *s, int r, int i, range_t out[2], int *n) {
    const cs_op_t *op = &s->ops[i];
    if (op->kind == CS_OP_COLL) {
        const cs_coll_op_t *c = &s->colls[op->peer];
        return coll_ranges(c, c->group.stride > 0 ? (r - c->group.base) / c->group.stride : -1,
                           c->counts >= 0 ? s->ints + c->counts : NULL, out, n);
    }
    *n = 0;
    return op->kind == CS_OP_SYNC ? CS_OK : op_ranges(op, out, n);
}

static MPI_Aint gcd(MPI_Aint a, MPI_Aint b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b != 0) {
        MPI_Aint t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void join(uint32_t *dst, const uint32_t *src, int p) {
    for (int i = 0; i < p; i++) {
        if (src[i] > dst[i]) {
            dst[i] = src[i];
        }
    }
}

static void race_free(race_t *rs) {
    if (rs == NULL) {
        return;
    }
    for (int k = 0; k < rs->nnodes; k++) {
        free(rs->node[k].member);
        free(rs->node[k].cell);
        free(rs->node[k].vec);
    }
    free(rs->node);
    free(rs->node_of);
    free(rs->local);
    free(rs->accounted);
    free(rs->vc);
    free(rs->rc);
    free(rs->pa);
    free(rs->log);
    free(rs);
}

/* Sets up the checker when some rank has a window (*out NULL otherwise) for the ncalls calls
 * of ranks[k * p + r] (a rank's window is the same in all of them): ranks with the same window
 * base form a node; its size is the largest window_bytes of its ranks' calls, its granule the
 * gcd of that size and of the ends of every window range of those calls' schedules (64 at
 * most), so a run touches whole granules only. */
static int race_init(int p, int ncalls, const cs_sim_rank_t *ranks, race_t **out) {
    int rc = CS_OK;
    race_t *rs = NULL;
    int any = 0;
    *out = NULL;
    for (int r = 0; r < p; r++) {
        any |= ranks[r].window != NULL;
    }
    if (!any) {
        return CS_OK;
    }
    rs = calloc(1, sizeof(*rs));
    CS_REQUIRE(rs != NULL, CS_ERR_NOMEM);
    rs->p = p;
    rs->node = calloc((size_t)p, sizeof(*rs->node));
    rs->node_of = malloc((size_t)p * sizeof(int));
    rs->local = calloc((size_t)p, sizeof(int));
    rs->accounted = calloc((size_t)p, sizeof(int));
    rs->vc = calloc((size_t)p * (size_t)p, sizeof(uint32_t));
    rs->rc = calloc((size_t)p * (size_t)p, sizeof(uint32_t));
    rs->pa = calloc((size_t)p * (size_t)p, sizeof(uint32_t));
    CS_REQUIRE(rs->node != NULL && rs->node_of != NULL && rs->local != NULL &&
                   rs->accounted != NULL && rs->vc != NULL && rs->rc != NULL && rs->pa != NULL,
               CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        int k = 0;
        rs->vc[(size_t)r * p + r] = 1; /* epochs start at 1: 0 is "nothing" */
        rs->node_of[r] = -1;
        if (ranks[r].window == NULL) {
            continue;
        }
        while (k < rs->nnodes && rs->node[k].base != ranks[r].window) {
            k++;
        }
        if (k == rs->nnodes) {
            rs->node[rs->nnodes].base = ranks[r].window;
            rs->node[rs->nnodes++].grain = 64;
        }
        rs->node_of[r] = k;
        rs->local[r] = rs->node[k].m++;
        for (int call = 0; call < ncalls; call++) {
            MPI_Aint bytes = ranks[(size_t)call * p + r].sched->window_bytes;
            rs->node[k].bytes = bytes > rs->node[k].bytes ? bytes : rs->node[k].bytes;
        }
    }
    for (size_t rk = 0; rk < (size_t)ncalls * p; rk++) {
        int r = (int)(rk % (size_t)p);
        const cs_sched_t *s = ranks[rk].sched;
        wnode_t *w = rs->node_of[r] >= 0 ? &rs->node[rs->node_of[r]] : NULL;
        for (int i = 0; w != NULL && i < s->nops; i++) {
            range_t rg[2];
            int n = 0;
            CS_CHECK(any_ranges(s, r, i, rg, &n));
            for (int j = 0; j < n; j++) {
                w->grain = rg[j].lo < rg[j].hi ? gcd(gcd(w->grain, rg[j].lo), rg[j].hi) : w->grain;
            }
            for (int j = 0; j < s->ops[i].nparts; j++) {
                CS_CHECK(part_range(&s->parts[s->ops[i].part + j], s->ops[i].kind, &rg[0]));
                w->grain = rg[0].lo < rg[0].hi ? gcd(gcd(w->grain, rg[0].lo), rg[0].hi) : w->grain;
            }
        }
    }
    for (int k = 0; k < rs->nnodes; k++) {
        wnode_t *w = &rs->node[k];
        size_t cells;
        w->grain = gcd(w->grain, w->bytes);
        cells = (size_t)(2 * w->bytes / w->grain);
        w->member = malloc((size_t)w->m * sizeof(int));
        w->cell = calloc(cells > 0 ? cells : 1, sizeof(cell_t));
        CS_REQUIRE(w->member != NULL && w->cell != NULL, CS_ERR_NOMEM);
    }
    for (int r = 0; r < p; r++) {
        if (rs->node_of[r] >= 0) {
            rs->node[rs->node_of[r]].member[rs->local[r]] = r;
        }
    }
    *out = rs;
    rs = NULL;
out:
    race_free(rs);
    return rc;
}

/* SYNC by rank r: release what r did so far, start a new epoch, acquire what arrived. */
static void race_sync(race_t *rs, int r) {
    int p = rs->p;
    uint32_t *vc = rs->vc + (size_t)r * p, *pa = rs->pa + (size_t)r * p;
    memcpy(rs->rc + (size_t)r * p, vc, (size_t)p * sizeof(uint32_t));
    vc[r]++;
    join(vc, pa, p);
    memset(pa, 0, (size_t)p * sizeof(uint32_t));
}

/* The earlier access of rank u at epoch ep to offset `off` of node k (a write or a read). */
static const access_t *race_find(const race_t *rs, int u, int k, MPI_Aint off, uint32_t ep,
                                 int write) {
    for (size_t i = rs->nlog; i-- > 0;) {
        const access_t *a = &rs->log[i];
        if (a->rank == u && a->node == k && a->ep == ep && a->write == write && a->lo <= off &&
            off < a->hi) {
            return a;
        }
    }
    return NULL;
}

/* Reports that access `a` to offset `off` races with the access of rank u at epoch ep. */
static void race_report(sim_t *sim, const access_t *a, int mode, MPI_Aint off, int u, uint32_t ep,
                        int write) {
    static const char *const verbs[] = {"reads", "writes", "updates"};
    const access_t *e = race_find(sim->race, u, a->node, off, ep, write);
    sim->rep->race++;
    if (sim->rep->race > 1) {
        return; /* one line: the first race */
    }
    note(sim->rep,
         "node %d window offset %ld: rank %d %s %s %s what rank %d %s %s %s without a sync, "
         "barrier (or message), sync between them",
         a->node, (long)off, a->rank, where(sim->ncalls, a->call, a->round).s, a->what, verbs[mode],
         u, e != NULL ? where(sim->ncalls, e->call, e->round).s : "?", e != NULL ? e->what : "?",
         write ? "wrote" : "read");
}

/* Checks the access of rank r (round `round`, operation `what`) to range g of its node's
 * window against the shadow, and records it there. */
static int race_track(sim_t *sim, int r, int round, const char *what, range_t g) {
    int rc = CS_OK;
    race_t *rs = sim->race;
    int k = rs->node_of[r]; /* >= 0: check_refs refuses window operations without a window */
    const uint32_t *vc = rs->vc + (size_t)r * rs->p;
    uint32_t ep = vc[r];
    int me = rs->local[r], m;
    int raced = 0, same = 0;
    int u = 0, uwrite = 0; /* the first racing granule: the other side's rank, write or read */
    uint32_t uep = 0;      /* and epoch */
    MPI_Aint ucell = 0;
    cell_t *c, *end, old, now;
    wnode_t *w;
    access_t *a;
    if (g.lo >= g.hi || k < 0) {
        return CS_OK;
    }
    w = &rs->node[k];
    m = w->m;
    if (g.lo < -w->bytes || g.hi > w->bytes) {
        sim->rep->bad_ref++;
        note(sim->rep, "rank %d %s: %s touches window offsets [%ld, %ld), outside [%ld, %ld)", r,
             where(sim->ncalls, sim->vr[r].call, round).s, what, (long)g.lo, (long)g.hi,
             (long)-w->bytes, (long)w->bytes);
        g.lo = g.lo < -w->bytes ? -w->bytes : g.lo;
        g.hi = g.hi > w->bytes ? w->bytes : g.hi;
        if (g.lo >= g.hi) {
            return CS_OK;
        }
    }
    if (rs->nlog == rs->log_cap) {
        size_t ncap = rs->log_cap > 0 ? 2 * rs->log_cap : 64;
        access_t *bigger = realloc(rs->log, ncap * sizeof(*bigger));
        CS_REQUIRE(bigger != NULL, CS_ERR_NOMEM);
        rs->log = bigger;
        rs->log_cap = ncap;
    }
    a = &rs->log[rs->nlog++];
    *a = (access_t){r, sim->vr[r].call, round, k, g.mode != READS, what, g.lo, g.hi, ep};
    end = w->cell + (w->bytes + g.hi) / w->grain;
    for (c = w->cell + (w->bytes + g.lo) / w->grain; c < end; c++) {
        if (same && c->wrank == old.wrank && c->wep == old.wep && c->rrank == old.rrank &&
            c->rep == old.rep) {
            *c = now; /* the same state as the granule before: the same outcome */
            continue;
        }
        old = *c;
        if (c->wrank != r && c->wep > vc[c->wrank] && !raced) {
            raced = 1;
            ucell = c - w->cell;
            u = c->wrank;
            uep = c->wep;
            uwrite = 1;
        }
        if (g.mode == READS) {
            if (c->rrank == r || (c->rrank >= 0 && c->rep <= vc[c->rrank])) {
                c->rrank = r; /* the earlier read happens before this one: forget it */
                c->rep = ep;
            } else if (c->rrank >= 0) {
                uint32_t *v;
                if (w->nvec == w->vec_cap) {
                    size_t ncap = w->vec_cap > 0 ? 2 * w->vec_cap : 64;
                    uint32_t *bigger = realloc(w->vec, ncap * (size_t)m * sizeof(uint32_t));
                    CS_REQUIRE(bigger != NULL, CS_ERR_NOMEM);
                    w->vec = bigger;
                    w->vec_cap = ncap;
                }
                v = w->vec + w->nvec * (size_t)m;
                memset(v, 0, (size_t)m * sizeof(uint32_t));
                v[rs->local[c->rrank]] = c->rep;
                v[me] = ep;
                c->rrank = SHARED;
                c->rep = (uint32_t)w->nvec++;
            } else {
                w->vec[(size_t)c->rep * m + me] = ep;
            }
        } else {
            if (c->rrank >= 0 && c->rrank != r && c->rep > vc[c->rrank] && !raced) {
                raced = 1;
                ucell = c - w->cell;
                u = c->rrank;
                uep = c->rep;
                uwrite = 0;
            } else if (c->rrank == SHARED && !raced) {
                const uint32_t *v = w->vec + (size_t)c->rep * m;
                for (int i = 0; i < m && !raced; i++) {
                    if (i != me && v[i] > vc[w->member[i]]) {
                        raced = 1;
                        ucell = c - w->cell;
                        u = w->member[i];
                        uep = v[i];
                        uwrite = 0;
                    }
                }
            }
            c->wrank = r;
            c->wep = ep;
            c->rrank = 0; /* no read since */
            c->rep = 0;
        }
        now = *c;
        same = now.rrank != SHARED; /* a read vector belongs to one granule */
    }
    if (raced) {
        race_report(sim, a, g.mode, ucell * w->grain - w->bytes, u, uep, uwrite);
    }
out:
    return rc;
}

/* Accounts the window ranges rg[0..n) of an operation `what` of rank v in round `round`. */
static int race_apply(vrank_t *v, int round, const char *what, const range_t *rg, int n) {
    int rc = CS_OK;
    for (int j = 0; j < n; j++) {
        CS_CHECK(race_track(v->sim, v->rank, round, what, rg[j]));
    }
out:
    return rc;
}

/* Accounts the local operations (COPY, REDUCE, SYNC, in op order) of the rounds that rank v has
 * finished since the last call. The executor runs them after a round's communication, with no
 * transport call, so this runs at the top of every transport call of the rank (a SEND or COLL
 * start then sees the SYNCs before it) and after every cs_exec_progress. */
static int account(vrank_t *v) {
    int rc = CS_OK;
    race_t *rs = v->sim->race;
    const cs_sched_t *s = v->exec.sched;
    if (rs == NULL) {
        return CS_OK;
    }
    for (; rs->accounted[v->rank] < v->exec.round; rs->accounted[v->rank]++) {
        int round = rs->accounted[v->rank];
        int begin = round > 0 ? s->round_end[round - 1] : 0;
        for (int i = begin; i < s->round_end[round]; i++) {
            const cs_op_t *op = &s->ops[i];
            if (op->kind == CS_OP_SYNC) {
                race_sync(rs, v->rank);
            } else if (op->kind == CS_OP_COPY || op->kind == CS_OP_REDUCE) {
                range_t rg[2];
                int n = 0;
                CS_CHECK(op_ranges(op, rg, &n));
                CS_CHECK(race_apply(v, round, kind_name(op->kind), rg, n));
            }
        }
    }
out:
    return rc;
}

/* The buffers of posted SEND or RECV e (its rank's segments). */
static seg_t *segs_of(const sim_t *sim, const rec_t *e) {
    return sim->vr[e->rank].segs + e->seg;
}

/* The bytes a posted SEND or RECV carries: the sum over its buffers. */
static int bytes_of(const sim_t *sim, const rec_t *e, MPI_Aint *bytes) {
    const seg_t *g = segs_of(sim, e);
    *bytes = 0;
    for (int i = 0; i < e->nseg; i++) {
        int size = 0;
        if (MPI_Type_size(g[i].type, &size) != MPI_SUCCESS) {
            return CS_ERR_MPI;
        }
        *bytes += (MPI_Aint)size * g[i].count;
    }
    return CS_OK;
}

/* Moves the data of `s` into `r` (both matched now) and completes both: the sender's buffers
 * packed one after the other, unpacked in order into the receiver's (a multi-part message is
 * the concatenation of its parts, however each side cuts it). */
static int transfer(sim_t *sim, rec_t *s, rec_t *r) {
    MPI_Aint sbytes = 0, rbytes = 0;
    int need = 0, pos = 0, upos = 0;
    int rc = CS_OK;
    const seg_t *sg = segs_of(sim, s), *rg = segs_of(sim, r);
    CS_CHECK(bytes_of(sim, s, &sbytes));
    CS_CHECK(bytes_of(sim, r, &rbytes));
    s->done = 1;
    r->done = 1;
    if (sim->race != NULL) {
        /* The receiver gets the sender's RC at the send's start: the same as now, since a
         * rendezvous send keeps its rank in its round (no SYNC) until this transfer. */
        int p = sim->p;
        join(sim->race->pa + (size_t)r->rank * p, sim->race->rc + (size_t)s->rank * p, p);
    }
    sim->events++;
    sim->rep->messages++;
    if (s->call != r->call) {
        /* One tag on one communicator: MPI would match them, and deliver data across calls. */
        sim->rep->mismatch++;
        note(sim->rep, "rank %d (%s) sends to %d, which receives it in %s", s->rank,
             where(sim->ncalls, s->call, s->round).s, r->rank,
             where(sim->ncalls, r->call, r->round).s);
        goto out;
    }
    if (sbytes != rbytes) {
        sim->rep->mismatch++;
        note(sim->rep, "size mismatch: rank %d (%s) sends %ld bytes to %d, which receives %ld",
             s->rank, where(sim->ncalls, s->call, s->round).s, (long)sbytes, r->rank, (long)rbytes);
        goto out;
    }
    if (sbytes == 0) {
        goto out;
    }
    for (int i = 0; i < s->nseg; i++) {
        int part = 0;
        if (sg[i].count > 0) {
            CS_MPI_CHECK(MPI_Pack_size(sg[i].count, sg[i].type, MPI_COMM_SELF, &part));
        }
        need += part;
    }
    if (need > sim->pack_cap) {
        char *bigger = realloc(sim->pack, (size_t)need);
        CS_REQUIRE(bigger != NULL, CS_ERR_NOMEM);
        sim->pack = bigger;
        sim->pack_cap = need;
    }
    for (int i = 0; i < s->nseg; i++) {
        if (sg[i].count > 0) {
            CS_MPI_CHECK(MPI_Pack(sg[i].addr, sg[i].count, sg[i].type, sim->pack, need, &pos,
                                  MPI_COMM_SELF));
        }
    }
    for (int i = 0; i < r->nseg; i++) {
        if (rg[i].count > 0) {
            CS_MPI_CHECK(MPI_Unpack(sim->pack, pos, &upos, rg[i].addr, rg[i].count, rg[i].type,
                                    MPI_COMM_SELF));
        }
    }
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

/* Sets the data span of segment g from its address, count and type. */
static int span(seg_t *g) {
    MPI_Aint lb, extent, true_lb, true_extent;
    g->lo = g->hi = 0;
    if (g->count == 0) {
        return CS_OK;
    }
    if (MPI_Type_get_extent(g->type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(g->type, &true_lb, &true_extent) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    g->lo = (uintptr_t)(g->addr + true_lb);
    g->hi = g->lo + (uintptr_t)((g->count - 1) * extent + true_extent);
    return CS_OK;
}

/* 1 when some buffer of a[0..na) overlaps one of b[0..nb) (a == b: two different ones). */
static int overlaps(const seg_t *a, int na, const seg_t *b, int nb) {
    for (int i = 0; i < na; i++) {
        for (int j = a == b ? i + 1 : 0; j < nb; j++) {
            if (a[i].lo < a[i].hi && b[j].lo < b[j].hi && a[i].lo < b[j].hi && b[j].lo < a[i].hi) {
                return 1;
            }
        }
    }
    return 0;
}

static const char *rec_name(const rec_t *e) {
    return e->coll != NULL ? cs_coll_name(e->coll->coll) : kind_name(e->op->kind);
}

/* Posts SEND or RECV `op` of rank v (operation `index` of its round) with its buffers: one
 * (op's buf, count, type) at addrs[0] for a plain op, parts[i] at addrs[i] for a multi-part
 * one; checks them for overlaps and window races and matches the op if its peer is ready. */
static int post(vrank_t *v, const cs_op_t *op, const cs_part_t *parts, void *const *addrs,
                int index) {
    sim_t *sim = v->sim;
    int p = sim->p;
    int rc = CS_OK;
    int n = parts != NULL ? op->nparts : 1;
    rec_t *e;
    seg_t *g;
    CS_CHECK(account(v));
    if (index != v->nposted || index >= v->cap) {
        note(sim->rep, "rank %d %s: operation index %d with %d posted (max_comm %d)", v->rank,
             here(v).s, index, v->nposted, v->cap);
        return CS_ERR_INTERNAL;
    }
    if (op->peer < 0 || op->peer >= p) {
        sim->rep->bad_ref++;
        note(sim->rep, "rank %d %s: %s peer %d out of range", v->rank, here(v).s,
             kind_name(op->kind), op->peer);
        return CS_ERR_ARG;
    }
    if (v->nsegs + n > v->segs_cap) {
        int ncap = v->segs_cap > 0 ? 2 * v->segs_cap : 16;
        seg_t *bigger;
        while (ncap < v->nsegs + n) {
            ncap *= 2;
        }
        bigger = realloc(v->segs, (size_t)ncap * sizeof(*bigger));
        CS_REQUIRE(bigger != NULL, CS_ERR_NOMEM);
        v->segs = bigger;
        v->segs_cap = ncap;
    }
    e = &v->recs[index];
    memset(e, 0, sizeof(*e));
    e->op = op;
    e->buf = addrs[0];
    e->rank = v->rank;
    e->call = v->call;
    e->round = v->exec.round;
    e->seg = v->nsegs;
    e->nseg = n;
    g = v->segs + e->seg;
    for (int i = 0; i < n; i++) {
        g[i].addr = addrs[i];
        g[i].count = parts != NULL ? parts[i].count : op->count;
        g[i].type = parts != NULL ? parts[i].type : op->type;
        CS_CHECK(span(&g[i]));
    }
    v->nsegs += n;
    if (op->kind == CS_OP_RECV && overlaps(g, n, g, n)) {
        sim->rep->overlap++;
        note(sim->rep, "rank %d %s: recv from %d has parts that overlap", v->rank, here(v).s,
             op->peer);
    }
    for (int j = 0; j < index; j++) {
        const rec_t *o = &v->recs[j];
        int writes = op->kind == CS_OP_RECV || (o->op != NULL && o->op->kind == CS_OP_RECV);
        if (writes && o->op != NULL && overlaps(g, n, v->segs + o->seg, o->nseg)) {
            sim->rep->overlap++;
            note(sim->rep, "rank %d %s: %s with %d overlaps %s with %d in the same round", v->rank,
                 here(v).s, kind_name(op->kind), op->peer, rec_name(o), o->op->peer);
        }
    }
    if (sim->race != NULL && parts == NULL && op->buf.slot == CS_SLOT_WINDOW) {
        range_t rg[2];
        int nr = 0;
        CS_CHECK(op_ranges(op, rg, &nr));
        CS_CHECK(race_apply(v, e->round, kind_name(op->kind), rg, nr));
    }
    for (int i = 0; sim->race != NULL && parts != NULL && i < n; i++) {
        range_t rg;
        CS_CHECK(part_range(&parts[i], op->kind, &rg));
        CS_CHECK(race_apply(v, e->round, kind_name(op->kind), &rg, 1));
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

/* Transport: post one plain SEND or RECV of the current round. */
static int mb_start(void *ctx, const cs_op_t *op, void *buf, int index) {
    void *addrs[1] = {buf};
    return post(ctx, op, NULL, addrs, index);
}

/* Transport: post one multi-part SEND or RECV; the simulator keeps no datatypes (pc unused). */
static int mb_startv(void *ctx, const cs_op_t *op, const cs_part_t *parts, void *const *addrs,
                     cs_part_cache_t *pc, int index) {
    (void)pc;
    return post(ctx, op, parts, addrs, index);
}

/* ---- native collectives on groups: a serial reference over the members' buffers ---------- */

static MPI_Aint type_extent(MPI_Datatype t) {
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(t, &lb, &extent);
    return extent;
}

/* Appends (count, type) at `buf` to the packed image `img` (*len bytes used, *cap allocated). */
static int pack_into(char **img, int *len, int *cap, const void *buf, int count, MPI_Datatype t) {
    int rc = CS_OK;
    int need = 0;
    if (count == 0) {
        return CS_OK;
    }
    CS_MPI_CHECK(MPI_Pack_size(count, t, MPI_COMM_SELF, &need));
    if (*len + need > *cap) {
        char *bigger = realloc(*img, (size_t)(*len + need));
        CS_REQUIRE(bigger != NULL, CS_ERR_NOMEM);
        *img = bigger;
        *cap = *len + need;
    }
    CS_MPI_CHECK(MPI_Pack(buf, count, t, *img, *cap, len, MPI_COMM_SELF));
out:
    return rc;
}

/* Unpacks (count, type) at `buf` from img at *pos; the bytes must be there. */
static int unpack_from(const char *img, int len, int *pos, void *buf, int count, MPI_Datatype t) {
    int rc = CS_OK;
    if (count > 0) {
        CS_MPI_CHECK(MPI_Unpack(img, len, pos, buf, count, t, MPI_COMM_SELF));
    }
out:
    return rc;
}

static long data_bytes(int count, MPI_Datatype t) {
    int size = 0;
    MPI_Type_size(t, &size);
    return (long)size * count;
}

/* The contribution of member i to a gather-like collective: address, count, type. */
static void contribution(const gcoll_t *g, int i, char **buf, int *count, MPI_Datatype *t) {
    const rec_t *m = g->member[i];
    const cs_coll_op_t *c = m->coll;
    if (!c->in_place) {
        *buf = m->buf;
        *count = c->sendcount;
        *t = c->sendtype;
    } else if (c->coll == CS_COLL_ALLGATHERV) {
        *buf = m->recv + (MPI_Aint)m->counts[g->group.size + i] * type_extent(c->recvtype);
        *count = m->counts[i];
        *t = c->recvtype;
    } else if (c->coll == CS_COLL_REDUCE || c->coll == CS_COLL_ALLREDUCE) {
        *buf = m->recv;
        *count = c->sendcount;
        *t = c->sendtype;
    } else { /* gather, allgather: the member's block is already in its receive buffer */
        *buf = m->recv + (MPI_Aint)i * c->recvcount * type_extent(c->recvtype);
        *count = c->recvcount;
        *t = c->recvtype;
    }
}

/* Runs collective instance g, all of whose members have started: checks that they agree and
 * moves the data as the MPI collective would. */
static int run_coll(sim_t *sim, gcoll_t *g) {
    int rc = CS_OK;
    int n = g->group.size;
    const cs_coll_op_t *c0 = g->member[0]->coll;
    int root = c0->root;
    const rec_t *R = NULL;
    char *img = NULL, *acc = NULL;
    int len = 0, cap = 0, pos = 0;
    long want = -1;
    for (int i = 0; i < n; i++) {
        g->member[i]->done = 1;
    }
    for (int i = 0; i < n; i++) {
        const cs_coll_op_t *c = g->member[i]->coll;
        if (c->coll != c0->coll || (cs_coll_is_rooted(c->coll) && c->root != root)) {
            sim->rep->mismatch++;
            note(sim->rep,
                 "group (base %d, stride %d, size %d): member %d runs %s root %d, member 0 %s "
                 "root %d",
                 g->group.base, g->group.stride, n, i, cs_coll_name(c->coll), c->root,
                 cs_coll_name(c0->coll), root);
            goto out;
        }
    }
    sim->events++;
    sim->rep->messages++;
    if (cs_coll_is_rooted(c0->coll)) {
        R = g->member[root];
    }
    switch (c0->coll) {
    case CS_COLL_BARRIER: /* nothing moves: completing together is all it does */
        break;
    case CS_COLL_BCAST:
        CS_CHECK(pack_into(&img, &len, &cap, R->recv, R->coll->recvcount, R->coll->recvtype));
        for (int i = 0; i < n; i++) {
            const rec_t *m = g->member[i];
            pos = 0;
            if (i == root) {
                continue;
            }
            if (data_bytes(m->coll->recvcount, m->coll->recvtype) != len) {
                goto mismatch;
            }
            CS_CHECK(unpack_from(img, len, &pos, m->recv, m->coll->recvcount, m->coll->recvtype));
        }
        break;
    case CS_COLL_GATHER:
    case CS_COLL_ALLGATHER:
    case CS_COLL_ALLGATHERV: {
        int offs[65];
        int *at = n < 64 ? offs : malloc((size_t)(n + 1) * sizeof(int));
        CS_REQUIRE(at != NULL, CS_ERR_NOMEM);
        for (int i = 0; i < n; i++) {
            char *b;
            int cnt;
            MPI_Datatype t;
            at[i] = len;
            contribution(g, i, &b, &cnt, &t);
            if (pack_into(&img, &len, &cap, b, cnt, t) != CS_OK) {
                rc = CS_ERR_MPI;
                break;
            }
        }
        at[n] = len;
        for (int j = 0; j < n && rc == CS_OK; j++) {
            const rec_t *m = g->member[j];
            const cs_coll_op_t *c = m->coll;
            MPI_Aint ext = type_extent(c->recvtype);
            if (c0->coll == CS_COLL_GATHER && j != root) {
                continue;
            }
            for (int i = 0; i < n && rc == CS_OK; i++) {
                int cnt = c->coll == CS_COLL_ALLGATHERV ? m->counts[i] : c->recvcount;
                MPI_Aint disp =
                    c->coll == CS_COLL_ALLGATHERV ? m->counts[n + i] : (MPI_Aint)i * c->recvcount;
                if (data_bytes(cnt, c->recvtype) != at[i + 1] - at[i]) {
                    want = at[i + 1] - at[i];
                    break;
                }
                pos = at[i];
                rc = unpack_from(img, len, &pos, m->recv + disp * ext, cnt, c->recvtype);
            }
            if (want >= 0) {
                break;
            }
        }
        if (at != offs) {
            free(at);
        }
        CS_CHECK(rc);
        if (want >= 0) {
            goto mismatch;
        }
        break;
    }
    case CS_COLL_SCATTER: {
        MPI_Aint ext = type_extent(R->coll->sendtype);
        for (int i = 0; i < n; i++) {
            const rec_t *m = g->member[i];
            int start = len;
            if (i == root && R->coll->in_place) {
                continue;
            }
            CS_CHECK(pack_into(&img, &len, &cap, R->buf + (MPI_Aint)i * R->coll->sendcount * ext,
                               R->coll->sendcount, R->coll->sendtype));
            if (data_bytes(m->coll->recvcount, m->coll->recvtype) != len - start) {
                goto mismatch;
            }
            pos = start;
            CS_CHECK(unpack_from(img, len, &pos, m->recv, m->coll->recvcount, m->coll->recvtype));
        }
        break;
    }
    case CS_COLL_ALLTOALL: {
        /* Every member's blocks packed first (in place: from its receive buffer, which the
         * unpacking then overwrites): block i of member j's data goes to block j of member i. */
        int *at = malloc((size_t)n * (size_t)n * sizeof(int) + sizeof(int));
        CS_REQUIRE(at != NULL, CS_ERR_NOMEM);
        for (int j = 0; j < n && rc == CS_OK; j++) {
            const rec_t *m = g->member[j];
            const cs_coll_op_t *c = m->coll;
            char *src = c->in_place ? m->recv : m->buf;
            int cnt = c->in_place ? c->recvcount : c->sendcount;
            MPI_Datatype t = c->in_place ? c->recvtype : c->sendtype;
            for (int i = 0; i < n && rc == CS_OK; i++) {
                at[j * n + i] = len;
                rc = pack_into(&img, &len, &cap, src + (MPI_Aint)i * cnt * type_extent(t), cnt, t);
            }
        }
        at[n * n] = len;
        for (int i = 0; i < n && rc == CS_OK && want < 0; i++) {
            const rec_t *m = g->member[i];
            const cs_coll_op_t *c = m->coll;
            MPI_Aint ext = type_extent(c->recvtype);
            for (int j = 0; j < n && rc == CS_OK; j++) {
                int k = j * n + i;
                if (data_bytes(c->recvcount, c->recvtype) != at[k + 1] - at[k]) {
                    want = at[k + 1] - at[k];
                    break;
                }
                pos = at[k];
                rc = unpack_from(img, len, &pos, m->recv + (MPI_Aint)j * c->recvcount * ext,
                                 c->recvcount, c->recvtype);
            }
        }
        free(at);
        CS_CHECK(rc);
        if (want >= 0) {
            goto mismatch;
        }
        break;
    }
    case CS_COLL_REDUCE:
    case CS_COLL_ALLREDUCE: {
        int cnt = c0->sendcount;
        MPI_Datatype t = c0->sendtype;
        MPI_Aint lb, extent, true_lb, true_extent;
        CS_MPI_CHECK(MPI_Type_get_extent(t, &lb, &extent));
        CS_MPI_CHECK(MPI_Type_get_true_extent(t, &true_lb, &true_extent));
        for (int i = 0; i < n; i++) {
            const cs_coll_op_t *c = g->member[i]->coll;
            if (c->sendcount != cnt || data_bytes(1, c->sendtype) != data_bytes(1, t)) {
                goto mismatch;
            }
        }
        if (cnt == 0) {
            break;
        }
        /* acc = x[n-1]; acc = x[i] op acc for i = n-2 .. 0: rank order. */
        acc = malloc((size_t)((cnt - 1) * extent + true_extent));
        CS_REQUIRE(acc != NULL, CS_ERR_NOMEM);
        for (int i = n - 1; i >= 0; i--) {
            char *b;
            int bc;
            MPI_Datatype bt;
            contribution(g, i, &b, &bc, &bt);
            if (i == n - 1) {
                len = 0;
                CS_CHECK(pack_into(&img, &len, &cap, b, bc, bt));
                pos = 0;
                CS_CHECK(unpack_from(img, len, &pos, acc - true_lb, cnt, t));
            } else {
                CS_MPI_CHECK(MPI_Reduce_local(b, acc - true_lb, cnt, t, c0->op));
            }
        }
        len = 0;
        CS_CHECK(pack_into(&img, &len, &cap, acc - true_lb, cnt, t));
        for (int i = 0; i < n; i++) {
            const rec_t *m = g->member[i];
            if (c0->coll == CS_COLL_REDUCE && i != root) {
                continue;
            }
            pos = 0;
            CS_CHECK(unpack_from(img, len, &pos, m->recv, cnt, t));
        }
        break;
    }
    default:
        CS_REQUIRE(0, CS_ERR_ARG);
    }
    goto out;
mismatch:
    sim->rep->mismatch++;
    note(sim->rep,
         "%s on group (base %d, stride %d, size %d): the members' counts and types "
         "do not match",
         cs_coll_name(c0->coll), g->group.base, g->group.stride, n);
out:
    free(img);
    free(acc);
    return rc;
}

/* Transport: start a native collective; it completes when every member of the group has. */
static int mb_coll(void *ctx, const cs_coll_op_t *c, const void *send, void *recv,
                   const int *counts, int index) {
    vrank_t *v = ctx;
    sim_t *sim = v->sim;
    const cs_group_t *gr = &c->group;
    int rc = CS_OK;
    int idx = gr->stride > 0 ? (v->rank - gr->base) / gr->stride : -1;
    gcoll_t *g = NULL, **at = &sim->colls;
    rec_t *e;
    CS_CHECK(account(v));
    if (index != v->nposted || index >= v->cap) {
        note(sim->rep, "rank %d %s: operation index %d with %d posted (max_comm %d)", v->rank,
             here(v).s, index, v->nposted, v->cap);
        return CS_ERR_INTERNAL;
    }
    if (gr->size < 1 || gr->stride < 1 || gr->base < 0 ||
        gr->base + (long)(gr->size - 1) * gr->stride >= sim->p || idx < 0 || idx >= gr->size ||
        gr->base + idx * gr->stride != v->rank) {
        sim->rep->bad_ref++;
        note(sim->rep,
             "rank %d %s: %s on group (base %d, stride %d, size %d), which is "
             "out of range or does not contain the rank",
             v->rank, here(v).s, cs_coll_name(c->coll), gr->base, gr->stride, gr->size);
        return CS_ERR_ARG;
    }
    e = &v->recs[index];
    memset(e, 0, sizeof(*e));
    e->coll = c;
    e->buf = (char *)(uintptr_t)send;
    e->recv = recv;
    e->counts = counts;
    e->rank = v->rank;
    e->call = v->call;
    e->round = v->exec.round;
    v->nposted++;
    sim->events++;
    for (; *at != NULL; at = &(*at)->next) {
        gcoll_t *o = *at;
        if (o->group.base == gr->base && o->group.stride == gr->stride &&
            o->group.size == gr->size && o->member[idx] == NULL) {
            g = o;
            break;
        }
    }
    if (g == NULL) {
        g = calloc(1, sizeof(*g));
        CS_REQUIRE(g != NULL, CS_ERR_NOMEM);
        g->member = calloc((size_t)gr->size, sizeof(*g->member));
        if (sim->race != NULL) {
            g->rc = calloc((size_t)sim->p, sizeof(*g->rc));
        }
        if (g->member == NULL || (sim->race != NULL && g->rc == NULL)) {
            free(g->member);
            free(g->rc);
            free(g);
            rc = CS_ERR_NOMEM;
            goto out;
        }
        g->group = *gr;
        g->call = v->call;
        *at = g;
    } else if (g->call != v->call) {
        /* A member's k-th collective on the group joins the k-th instance, as on one MPI
         * communicator, whatever the call: a call that leaves one behind shifts the next. */
        sim->rep->mismatch++;
        note(sim->rep,
             "rank %d %s: %s on group (base %d, stride %d, size %d) joins an instance that "
             "other members started in call %d",
             v->rank, here(v).s, cs_coll_name(c->coll), gr->base, gr->stride, gr->size,
             g->call + 1);
    }
    g->member[idx] = e;
    if (sim->race != NULL) {
        range_t rg[2];
        int n = 0;
        CS_CHECK(coll_ranges(c, idx, counts, rg, &n));
        CS_CHECK(race_apply(v, e->round, cs_coll_name(c->coll), rg, n));
        join(g->rc, sim->race->rc + (size_t)v->rank * sim->p, sim->p);
    }
    if (++g->nstarted == gr->size) {
        *at = g->next;
        for (int i = 0; sim->race != NULL && i < gr->size; i++) {
            int member = gr->base + i * gr->stride;
            join(sim->race->pa + (size_t)member * sim->p, g->rc, sim->p);
        }
        rc = run_coll(sim, g);
        free(g->member);
        free(g->rc);
        free(g);
    }
out:
    return rc;
}

static int mb_test(void *ctx, int n, int *done) {
    vrank_t *v = ctx;
    int rc = account(v);
    if (rc < 0) {
        return rc;
    }
    if (n != v->nposted) {
        note(v->sim->rep, "rank %d %s: test of %d operations with %d posted", v->rank, here(v).s, n,
             v->nposted);
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
        v->nsegs = 0;
    }
    return CS_OK;
}

/* The simulator only progresses; a blocking wait would hang the one thread. */
static int mb_wait(void *ctx, int n) {
    (void)ctx;
    (void)n;
    return CS_ERR_INTERNAL;
}

static const cs_transport_t mailbox = {
    .start = mb_start, .test = mb_test, .wait = mb_wait, .coll = mb_coll, .startv = mb_startv};

/* Checks before running that every operation's slots have buffers and peers are in range
 * (rank `rank`'s call `call` of ncalls). */
static void check_refs(const cs_sim_rank_t *rk, int rank, int p, int call, int ncalls,
                       cs_sim_report_t *rep) {
    const cs_sched_t *s = rk->sched;
    const void *base[CS_SLOT_COUNT] = {rk->sendbuf, rk->recvbuf, rk->scratch, rk->window};
    int round = 0;
    for (int i = 0; i < s->nops; i++) {
        const cs_op_t *op = &s->ops[i];
        int local = op->kind == CS_OP_COPY || op->kind == CS_OP_REDUCE;
        while (round < s->nrounds && i >= s->round_end[round]) {
            round++;
        }
        if (op->kind == CS_OP_SYNC) {
            if (rk->window == NULL) {
                rep->bad_ref++;
                note(rep, "rank %d %s: sync without a window", rank, where(ncalls, call, round).s);
            }
            continue;
        }
        if (op->kind == CS_OP_COLL) {
            const cs_coll_op_t *c =
                op->peer >= 0 && op->peer < s->ncolls ? &s->colls[op->peer] : NULL;
            int member, send = 0, recv = 0;
            if (c == NULL || c->send.slot < 0 || c->send.slot >= CS_SLOT_COUNT ||
                c->recv.slot < 0 || c->recv.slot >= CS_SLOT_COUNT) {
                rep->bad_ref++;
                note(rep, "rank %d %s: coll with an invalid description or slot", rank,
                     where(ncalls, call, round).s);
                continue;
            }
            member = c->group.stride > 0 ? (rank - c->group.base) / c->group.stride : -1;
            coll_uses(c, member, &send, &recv);
            if ((send && base[c->send.slot] == NULL) || (recv && base[c->recv.slot] == NULL)) {
                rep->bad_ref++;
                note(rep, "rank %d %s: %s uses the %s buffer, which is NULL on this rank", rank,
                     where(ncalls, call, round).s, cs_coll_name(c->coll),
                     slot_names[send && base[c->send.slot] == NULL ? c->send.slot : c->recv.slot]);
            }
            continue;
        }
        if (!local && (op->peer < 0 || op->peer >= p)) {
            rep->bad_ref++;
            note(rep, "rank %d %s: %s peer %d out of range", rank, where(ncalls, call, round).s,
                 kind_name(op->kind), op->peer);
        }
        for (int j = 0; j < op->nparts; j++) {
            const cs_part_t *pt = &s->parts[op->part + j];
            if (pt->buf.slot < 0 || pt->buf.slot >= CS_SLOT_COUNT) {
                rep->bad_ref++;
                note(rep, "rank %d %s: %s part %d with an invalid slot", rank,
                     where(ncalls, call, round).s, kind_name(op->kind), j);
            } else if (pt->count > 0 && base[pt->buf.slot] == NULL) {
                rep->bad_ref++;
                note(rep, "rank %d %s: %s part %d uses the %s buffer, which is NULL on this rank",
                     rank, where(ncalls, call, round).s, kind_name(op->kind), j,
                     slot_names[pt->buf.slot]);
            }
        }
        if (op->buf.slot < 0 || op->buf.slot >= CS_SLOT_COUNT ||
            (local && (op->dst.slot < 0 || op->dst.slot >= CS_SLOT_COUNT))) {
            rep->bad_ref++;
            note(rep, "rank %d %s: %s with an invalid slot", rank, where(ncalls, call, round).s,
                 kind_name(op->kind));
            continue;
        }
        if (op->count > 0 && base[op->buf.slot] == NULL) {
            rep->bad_ref++;
            note(rep, "rank %d %s: %s reads the %s buffer, which is NULL on this rank", rank,
                 where(ncalls, call, round).s, kind_name(op->kind), slot_names[op->buf.slot]);
        }
        if (local && op->dst_count > 0 && base[op->dst.slot] == NULL) {
            rep->bad_ref++;
            note(rep, "rank %d %s: %s writes the %s buffer, which is NULL on this rank", rank,
                 where(ncalls, call, round).s, kind_name(op->kind), slot_names[op->dst.slot]);
        }
    }
}

/* Describes the ranks that cannot go on: call, round and the first incomplete operation. */
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
            len += (size_t)snprintf(line + len, sizeof(line) - len, "%s rank %d %s/%d",
                                    shown > 0 ? "," : "", r, here(v).s, v->exec.sched->nrounds);
            if (w != NULL && w->coll != NULL) {
                len += (size_t)snprintf(line + len, sizeof(line) - len,
                                        " waits on %s of group (base %d, stride %d, size %d)",
                                        cs_coll_name(w->coll->coll), w->coll->group.base,
                                        w->coll->group.stride, w->coll->group.size);
            } else if (w != NULL) {
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

/* Reports operations left in the queues and collectives not every member started. */
static void check_unmatched(const sim_t *sim) {
    int p = sim->p;
    int shown = 0;
    for (const gcoll_t *g = sim->colls; g != NULL; g = g->next) {
        const rec_t *any = NULL;
        for (int i = 0; i < g->group.size && any == NULL; i++) {
            any = g->member[i];
        }
        sim->rep->unmatched += g->nstarted;
        if (shown++ < 4 && any != NULL) {
            char call[24] = "";
            if (sim->ncalls > 1) {
                snprintf(call, sizeof(call), " in call %d", g->call + 1);
            }
            note(sim->rep,
                 "unfinished %s: %d of %d members of group (base %d, stride %d) started%s",
                 cs_coll_name(any->coll->coll), g->nstarted, g->group.size, g->group.base,
                 g->group.stride, call);
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        const queue_t *qs = pass == 0 ? sim->sends : sim->recvs;
        for (int i = 0; i < p * p; i++) {
            for (const rec_t *e = qs[i].head; e != NULL; e = e->next) {
                sim->rep->unmatched++;
                if (shown++ < 4) {
                    note(sim->rep, "unmatched %s: rank %d %s, %s %d (%d %s)",
                         kind_name(e->op->kind), e->rank, where(sim->ncalls, e->call, e->round).s,
                         pass == 0 ? "to" : "from", pass == 0 ? i % p : i / p,
                         e->op->nparts > 0 ? e->op->nparts : e->op->count,
                         e->op->nparts > 0 ? "parts" : "elements");
                }
            }
        }
    }
}

static int problems(const cs_sim_report_t *rep) {
    return rep->error || rep->deadlock || rep->unmatched || rep->mismatch || rep->overlap ||
           rep->bad_ref || rep->race;
}

/* Binds rank v's call `call` to its executor: the call's schedule and buffers, the window. */
static void start_call(sim_t *sim, vrank_t *v, int call) {
    const cs_sim_rank_t *rk = &sim->ranks[(size_t)call * sim->p + v->rank];
    v->call = call;
    cs_exec_start(&v->exec, rk->sched, rk->sendbuf, rk->recvbuf, rk->scratch, &mailbox, v);
    cs_exec_set_window(&v->exec, rk->window);
    if (sim->race != NULL) {
        sim->race->accounted[v->rank] = 0;
    }
}

/* Progresses rank v as far as it goes: through its current call and, each time that one
 * completes, straight into the next, as a rank leaves one collective and enters the next.
 * An executor error is recorded in the report (rep->error); a negative status is the
 * simulator's own failure. */
static int drive(sim_t *sim, vrank_t *v) {
    int rc = CS_OK;
    for (;;) {
        int round = v->exec.round;
        int st = cs_exec_progress(&v->exec);
        CS_CHECK(account(v));
        sim->events += v->exec.round - round;
        if (st < 0) {
            sim->rep->error++;
            note(sim->rep, "rank %d %s: executor returned %s", v->rank, here(v).s,
                 cs_status_name(st));
            goto out;
        }
        if (st != CS_OK) {
            goto out;
        }
        sim->events++;
        if (v->call + 1 == sim->ncalls) {
            v->finished = 1;
            goto out;
        }
        start_call(sim, v, v->call + 1);
    }
out:
    return rc;
}

int cs_sim_run_seq(int p, int ncalls, const cs_sim_rank_t *ranks, cs_sim_report_t *rep) {
    int rc = CS_OK;
    sim_t sim;
    memset(rep, 0, sizeof(*rep));
    memset(&sim, 0, sizeof(sim));
    sim.p = p;
    sim.ncalls = ncalls;
    sim.ranks = ranks;
    sim.rep = rep;
    CS_REQUIRE(p >= 1 && ncalls >= 1, CS_ERR_ARG);
    for (int call = 0; call < ncalls; call++) {
        for (int r = 0; r < p; r++) {
            const cs_sim_rank_t *rk = &ranks[(size_t)call * p + r];
            check_refs(rk, r, p, call, ncalls, rep);
            if (rk->window != ranks[r].window) {
                rep->bad_ref++;
                note(rep,
                     "rank %d call %d: another window than in call 1 (a rank keeps its "
                     "node's window from call to call)",
                     r, call + 1);
            }
        }
    }
    if (rep->bad_ref) {
        goto out;
    }
    CS_CHECK(race_init(p, ncalls, ranks, &sim.race));
    sim.vr = calloc((size_t)p, sizeof(*sim.vr));
    sim.sends = calloc((size_t)p * (size_t)p, sizeof(*sim.sends));
    sim.recvs = calloc((size_t)p * (size_t)p, sizeof(*sim.recvs));
    CS_REQUIRE(sim.vr != NULL && sim.sends != NULL && sim.recvs != NULL, CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        vrank_t *v = &sim.vr[r];
        v->sim = &sim;
        v->rank = r;
        for (int call = 0; call < ncalls; call++) {
            int need = ranks[(size_t)call * p + r].sched->max_comm;
            v->cap = need > v->cap ? need : v->cap;
        }
        v->recs = calloc((size_t)(v->cap > 0 ? v->cap : 1), sizeof(*v->recs));
        CS_REQUIRE(v->recs != NULL, CS_ERR_NOMEM);
        start_call(&sim, v, 0);
    }
    for (;;) {
        long before = sim.events;
        int unfinished = 0;
        for (int r = 0; r < p; r++) {
            vrank_t *v = &sim.vr[r];
            if (v->finished) {
                continue;
            }
            CS_CHECK(drive(&sim, v));
            if (rep->error) {
                goto stop;
            }
            unfinished += !v->finished;
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
            free(sim.vr[r].segs);
        }
    }
    while (sim.colls != NULL) {
        gcoll_t *g = sim.colls;
        sim.colls = g->next;
        free(g->member);
        free(g->rc);
        free(g);
    }
    race_free(sim.race);
    free(sim.vr);
    free(sim.sends);
    free(sim.recvs);
    free(sim.pack);
    if (rc == CS_OK && problems(rep)) {
        rc = CS_ERR_INTERNAL;
    }
    return rc;
}

int cs_sim_run(int p, const cs_sim_rank_t *ranks, cs_sim_report_t *rep) {
    return cs_sim_run_seq(p, 1, ranks, rep);
}

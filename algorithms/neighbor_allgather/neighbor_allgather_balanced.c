/* neighbor_allgather/balanced: high out-degree processes hand messages to low-degree
 * neighbours, which forward them (forwarding trees).
 *
 * Reference: Hoefler and Schneider, "Optimization principles for collective neighborhood
 * communications", section II-B1 ("Tree Transformations", figure 4); the plan is
 * topo/balance.c (balance.h: the loop, collsel's deviations, rounds, invariants). The paper
 * gives it for neighbour alltoall with small blocks (a forwarded block travels twice, so only
 * the per-message overhead o is saved) and for neighbour allgather (a forwarder is itself a
 * receiver of the block, so the volume does not grow); collsel offers it for exactly these two:
 * neighbor_allgather/balanced and neighbor_alltoall/balanced. The v and w collectives have no
 * uniform block size k, which the model and the forwarding need.
 * Setup, once per communicator: the global graph (comm.h cs_comm_graph, shared with the coloured
 * algorithms: one MPI_Allgather and one MPI_Allgatherv, O(p + E) ints per rank) and the LogGP
 * parameters L, o, g, G (cs_comm_loggp: rank 0's cs_loggp_current(), the tuning run's measured
 * values, the database's or the defaults of core/loggp.h, broadcast so that every rank plans
 * alike). The plan depends on the block size k, so it is made when a schedule is built
 * (once per call shape; the schedule is cached) and the state keeps the last plan and its k, so
 * calls that alternate shapes of one block size plan once: O(steps (E + hops)) local work.
 * Requirements: a topology communicator. The paper's uniform block is MPI's rule for these two
 * collectives (docs/neighbor.md, "What MPI allows"): on 3 or more processes every send and
 * receive block of a correct call has one signature, of k bytes, and forwarders hold and send a
 * forwarded block with their own receive type. Every rank plans with k = the larger of its send
 * and receive block, which is that k on every rank of every correct call, also on 2 processes,
 * whose two ranks may send blocks of different sizes (each rank's send block is the other's
 * receive block; no route has a forwarder there, as a route never visits a process twice, so
 * the plan is the direct one and every message has its own two ends' types). No rank refuses
 * on its own block sizes: whether a rank runs this algorithm depends on the communicator only.
 * Parameters: t, the threshold of the loop (moves while m - s > t; the paper uses 2), swept.
 * Rounds: the plan's rounds (a message is sent once its payload has arrived), plus a local round
 * to pack the first round's combined messages. A message with several blocks (alltoall) is
 * packed in scratch at the end of the round before and unpacked at the end of its own round;
 * a rank receives every block once, into its receive block when it is the block's receiver
 * (allgather: its own block of that sender, from which it also forwards) and into scratch when
 * it only forwards it. Messages between two ranks are posted in plan order at both ends, so
 * each pairs with its own receive; every block lands where the native collective puts it.
 * Cost in the model: what cs_balance_cost predicts, never above the direct plan's
 * (`linear`'s messages).
 *
 *   scatter hot spot of 5 (transpose of cs_graph_hotspot: rank 0 sends to 1, 2, 3, 4 and, as
 *   a ring, to 4 and 1 again; every other rank to its two ring neighbours), alltoall, L = 0,
 *   o = 1, t = 2 (cs_balance_build's plan): 0 hands its blocks for 2 and 3 to 1
 *   local     0: packs its blocks for 1, 2, 3 in scratch
 *   round 0   0: send {A1, A2, A3} -> 1, {A1'} -> 1, {A4} -> 4, {A4'} -> 4  (4 messages, not 6)
 *             1, 2, 3, 4: their ring blocks;  1 unpacks A1, keeps A2, A3 in scratch
 *   round 1   1: send {A2} -> 2, {A3} -> 3           after: every block at its receiver
 */
#include "builders.h"
#include "core/comm.h"
#include "core/edges.h"

#include <math.h>
#include <stdlib.h>

/* The variant's state (cs_state_t.priv). */
typedef struct balanced {
    const cs_graph_t *g; /* borrowed */
    cs_loggp_t model;
    /* the last plan made, for (kind, k, t); have 0: none */
    int have, t;
    cs_balance_kind_t kind;
    double k;
    cs_balance_t plan;
} balanced_t;

const cs_param_spec_t cs_neighbor_balanced_params[1] = {
    {"t",
     "threshold: a process hands messages on while it sends more than t above its "
     "neighbour",
     "2"},
};

int cs_neighbor_balanced_variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    static const char *const ts[] = {"0", "1", "2", "4"};
    int rc = CS_OK;
    (void)nprocs;
    (void)ppn;
    *n = 0;
    for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
        CS_REQUIRE(*n < cap, CS_ERR_NOMEM);
        cs_params_defaults(cs_neighbor_balanced_params, 1, &out[*n]);
        CS_CHECK(cs_params_set(&out[*n], "t", ts[i]));
        (*n)++;
    }
out:
    return rc;
}

int cs_neighbor_balanced_init(const cs_graph_t *g, const cs_loggp_t *model, void **priv) {
    int rc = CS_OK;
    balanced_t *st = NULL;
    *priv = NULL;
    CS_REQUIRE(model != NULL && isfinite(model->L) && isfinite(model->o) && isfinite(model->g) &&
                   isfinite(model->G) && model->L >= 0 && model->o > 0 && model->g >= 0 &&
                   model->G >= 0,
               CS_ERR_ARG);
    st = calloc(1, sizeof(*st));
    CS_REQUIRE(st != NULL, CS_ERR_NOMEM);
    st->g = g;
    st->model = *model;
    *priv = st;
out:
    return rc;
}

void cs_neighbor_balanced_free(void *priv) {
    balanced_t *st = priv;
    if (st != NULL) {
        cs_balance_free(&st->plan);
        free(st);
    }
}

int cs_neighbor_balanced_setup(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {
    int rc = CS_OK;
    const cs_graph_t *g = NULL;
    cs_loggp_t model;
    (void)params;
    CS_CHECK(cs_comm_graph(ctx, &g));
    CS_CHECK(cs_comm_loggp(ctx, &model));
    CS_CHECK(cs_neighbor_balanced_init(g, &model, &state->priv));
out:
    return rc;
}

void cs_neighbor_balanced_teardown(cs_state_t *state) {
    cs_neighbor_balanced_free(state->priv);
    state->priv = NULL;
}

/* Where this rank holds a block: (count, type) at ref, there from the end of round `round` on
 * (-1: from the start); type NULL: not here. */
typedef struct loc {
    cs_ref_t ref;
    int count;
    const cs_type_t *type;
    int round;
} loc_t;

/* The plan of the state for (kind, k, t), made now unless it is the last one made. */
static int plan_for(balanced_t *st, cs_balance_kind_t kind, double k, int t,
                    const cs_balance_t **out) {
    int rc = CS_OK;
    if (!st->have || st->kind != kind || st->k != k || st->t != t) {
        cs_balance_free(&st->plan);
        st->have = 0;
        CS_CHECK(cs_balance_build(st->g, kind, &st->model, k, t, &st->plan));
        st->have = 1;
        st->kind = kind;
        st->k = k;
        st->t = t;
    }
    *out = &st->plan;
out:
    return rc;
}

/* Appends the packing of message m (several blocks, alltoall) into a new scratch region:
 * sendtype elements when all its blocks are this rank's own, receive type elements otherwise. */
static int pack(cs_sched_t *s, const cs_call_t *c, const cs_balance_t *pl, const cs_graph_t *g,
                int m, const loc_t *loc, loc_t *msg) {
    int rc = CS_OK;
    int n = pl->msg_start[m + 1] - pl->msg_start[m], own = 1;
    const cs_type_t *t;
    int per;
    for (int i = pl->msg_start[m]; i < pl->msg_start[m + 1]; i++) {
        own &= g->edges[pl->msg_edge[i]].src == c->rank;
    }
    t = own ? &c->send : &c->recv;
    per = own ? c->sendcount : c->recvcount;
    CS_CHECK(cs_sched_scratch(s, (MPI_Aint)n * per, t, &msg->ref));
    msg->count = n * per;
    msg->type = t;
    msg->round = pl->msg_round[m] - 1;
    for (int i = 0; i < n; i++) {
        const loc_t *b = &loc[pl->msg_edge[pl->msg_start[m] + i]];
        CS_REQUIRE(b->type != NULL && b->round < pl->msg_round[m], CS_ERR_INTERNAL);
        CS_CHECK(cs_sched_copy(s, b->ref, b->count, b->type,
                               cs_ref_at(msg->ref, (MPI_Aint)i * per, t), per, t));
    }
out:
    return rc;
}

/* The block message m carries, for its sender: the single payload block (alltoall) or the one
 * sender's block (allgather), wherever this rank holds it before the message's round. */
static const loc_t *single(const cs_balance_t *pl, int m, const loc_t *loc) {
    for (int i = pl->msg_start[m]; i < pl->msg_start[m + 1]; i++) {
        const loc_t *b = &loc[pl->msg_edge[i]];
        if (b->type != NULL && b->round < pl->msg_round[m]) {
            return b;
        }
    }
    return NULL;
}

/* Posts the receive of message m on this rank and appends to the round's copy phase what puts
 * its blocks in place; records where every block it brings is held. */
static int receive(cs_sched_t *s, const cs_call_t *c, const cs_balance_t *pl, const cs_graph_t *g,
                   int alltoall, int m, loc_t *loc) {
    int rc = CS_OK;
    int first = pl->msg_start[m], n = pl->msg_start[m + 1] - first, src = pl->msg_src[m];
    int r = c->rank, mine = -1;
    cs_ref_t at;
    for (int i = first; i < first + n && mine < 0; i++) {
        if (g->edges[pl->msg_edge[i]].dst == r) {
            mine = pl->msg_edge[i];
        }
    }
    if (!alltoall || n == 1) {
        /* one block: straight into its receive block, or into scratch to forward it */
        if (mine >= 0) {
            at = cs_edges_in(c, g->edges[mine].dst_slot).buf;
        } else {
            CS_CHECK(cs_sched_scratch(s, c->recvcount, &c->recv, &at));
        }
        CS_CHECK(cs_sched_recv(s, src, at, c->recvcount, &c->recv));
        for (int i = first; i < first + n; i++) {
            int e = pl->msg_edge[i];
            if (loc[e].type == NULL) { /* a self-loop's block stays this rank's own */
                loc[e] = (loc_t){at, c->recvcount, &c->recv, pl->msg_round[m]};
            }
            if (g->edges[e].dst == r && e != mine) { /* allgather: the same block once more */
                cs_ref_t to = cs_edges_in(c, g->edges[e].dst_slot).buf;
                CS_CHECK(cs_sched_copy(s, at, c->recvcount, &c->recv, to, c->recvcount, &c->recv));
            }
        }
    } else {
        CS_CHECK(cs_sched_scratch(s, (MPI_Aint)n * c->recvcount, &c->recv, &at));
        CS_CHECK(cs_sched_recv(s, src, at, n * c->recvcount, &c->recv));
        for (int i = 0; i < n; i++) {
            int e = pl->msg_edge[first + i];
            cs_ref_t b = cs_ref_at(at, (MPI_Aint)i * c->recvcount, &c->recv);
            if (loc[e].type == NULL) {
                loc[e] = (loc_t){b, c->recvcount, &c->recv, pl->msg_round[m]};
            }
            if (g->edges[e].dst == r) {
                cs_ref_t to = cs_edges_in(c, g->edges[e].dst_slot).buf;
                CS_CHECK(cs_sched_copy(s, b, c->recvcount, &c->recv, to, c->recvcount, &c->recv));
            }
        }
    }
out:
    return rc;
}

int cs_build_neighbor_balanced(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    balanced_t *st = s->state != NULL ? s->state->priv : NULL;
    const cs_graph_t *g = st != NULL ? st->g : NULL;
    const cs_balance_t *pl = NULL;
    int alltoall = c->coll == CS_COLL_NEIGHBOR_ALLTOALL, r = c->rank, t = 0;
    MPI_Aint send_bytes = (MPI_Aint)c->sendcount * c->send.size;
    MPI_Aint recv_bytes = (MPI_Aint)c->recvcount * c->recv.size;
    loc_t *loc = NULL, *msg = NULL;
    CS_REQUIRE((alltoall || c->coll == CS_COLL_NEIGHBOR_ALLGATHER) &&
                   cs_neighbor_graph_matches(g, c),
               CS_ERR_NOT_APPLICABLE);
    CS_REQUIRE(cs_params_get_int(params, "t", &t) == CS_OK && t >= 0, CS_ERR_NOT_APPLICABLE);
    /* k: the same on every rank of a correct call (see the top of this file), never a refusal */
    CS_CHECK(plan_for(st, alltoall ? CS_BALANCE_ALLTOALL : CS_BALANCE_ALLGATHER,
                      (double)(send_bytes > recv_bytes ? send_bytes : recv_bytes), t, &pl));
    loc = calloc((size_t)(g->nedges > 0 ? g->nedges : 1), sizeof(*loc));
    msg = calloc((size_t)(pl->nmsgs > 0 ? pl->nmsgs : 1), sizeof(*msg));
    CS_REQUIRE(loc != NULL && msg != NULL, CS_ERR_NOMEM);
    for (int e = g->out_start[r]; e < g->out_start[r + 1]; e++) { /* this rank's own blocks */
        cs_edge_t b = cs_edges_out(c, g->edges[e].src_slot);
        loc[e] = (loc_t){b.buf, b.count, &c->send, -1};
    }
    /* A local round packs round 0's combined messages; each round's copy phase unpacks what it
     * received and packs the next round's combined messages. */
    for (int R = -1; R < pl->nrounds; R++) {
        for (int m = 0; m < pl->nmsgs && R >= 0; m++) {
            if (pl->msg_round[m] == R && pl->msg_dst[m] == r) {
                CS_CHECK(receive(s, c, pl, g, alltoall, m, loc));
            }
        }
        for (int m = 0; m < pl->nmsgs && R >= 0; m++) {
            if (pl->msg_round[m] == R && pl->msg_src[m] == r) {
                const loc_t *b = msg[m].type != NULL ? &msg[m] : single(pl, m, loc);
                CS_REQUIRE(b != NULL, CS_ERR_INTERNAL);
                CS_CHECK(cs_sched_send(s, pl->msg_dst[m], b->ref, b->count, b->type));
            }
        }
        for (int m = 0; m < pl->nmsgs && alltoall; m++) {
            if (pl->msg_round[m] == R + 1 && pl->msg_src[m] == r &&
                pl->msg_start[m + 1] - pl->msg_start[m] > 1) {
                CS_CHECK(pack(s, c, pl, g, m, loc, &msg[m]));
            }
        }
        CS_CHECK(cs_sched_round(s));
    }
out:
    free(loc);
    free(msg);
    return rc;
}

const cs_algo_t cs_algo_neighbor_allgather_balanced = {
    .name = "neighbor_allgather/balanced",
    .coll = CS_COLL_NEIGHBOR_ALLGATHER,
    .desc = "tree balancing (LogGP, threshold t): loaded processes hand messages to "
            "neighbours that forward them",
    .params = cs_neighbor_balanced_params,
    .nparams = 1,
    .variants = cs_neighbor_balanced_variants,
    .build = cs_build_neighbor_balanced,
    .setup = cs_neighbor_balanced_setup,
    .teardown = cs_neighbor_balanced_teardown,
};

/* neighbor_allgather/coloured: the edges of the whole graph coloured greedily, colour c is
 * round c.
 *
 * Reference: Hoefler and Schneider, "Optimization principles for collective neighborhood
 * communications", section II-A3 (message scheduling by a Welsh-Powell edge colouring, figure 3);
 * the colouring is topo/colour.c (graph.h: order, tie-break, bounds).
 * Setup, once per communicator: the global graph from every rank's neighbourhood (comm.h
 * cs_comm_graph: one MPI_Allgather of the degrees and one MPI_Allgatherv of the lists, O(p + E)
 * ints on every rank; kept in the context and shared with every other algorithm that asks), then
 * the colouring, O(E (max degree)) local work, the same on every rank, E ints kept in the
 * context too (cs_comm_colouring) and shared by the coloured variants of all five collectives,
 * so it is computed once per communicator; the variant's state only points at both. The
 * schedule is built once per call shape from it.
 * Rounds: the number of colours C, at least the largest in- or out-degree, at most
 * max_out + max_in - 1; in round c a rank posts the receives of its in-edges of colour c (at most
 * one) and the sends of its out-edges of colour c (at most one): a proper colouring, so no rank
 * is the end point of two messages of one round, and the rounds of a regular pattern are
 * permutations (the paper's alltoall example gets "send to (r + i) mod p" in round i).
 * Cost: C rounds of one message each way per rank: C (alpha + n beta) against linear's
 * alpha + d n beta with d messages at once, which pays where the one-round schedule congests an
 * end point (hot spots, dense graphs) and costs C - 1 extra synchronisations otherwise.
 * Repeated edges between two ranks have distinct colours (one sender); both ends post them in
 * colour order, so the k-th message from u to v fills the block of the edge the global graph
 * pairs it with, which is MPI's pairing (graph.h; Cartesian: slot i ^ 1). MPI_PROC_NULL
 * neighbours have no edge, so their blocks stay untouched. Every block lands where the native
 * collective puts it.
 * Requirements: a topology communicator (setup returns CS_ERR_NOT_APPLICABLE otherwise, on
 * every rank). Parameters: none. The same builder, setup and teardown serve
 * neighbor_allgatherv, neighbor_alltoall(v,w)/coloured: only the edges' blocks differ
 * (core/edges.h).
 *
 *   ring of 3 with self-loops (each rank r: destinations r, r+1; sources r-1, r), allgather;
 *   all conflict degrees are 2, ties by cyclic distance: the self-loops first
 *   round 0   every rank: recv own block <- self, send A -> self
 *   round 1   rank 0: recv block 0 <- 2, send A -> 1     after: 0 holds C A, 1 holds A B,
 *             rank 1: recv block 0 <- 0, send B -> 2            2 holds B C
 *             rank 2: recv block 0 <- 1, send C -> 0
 */
#include "builders.h"
#include "core/comm.h"
#include "core/edges.h"

#include <stdlib.h>

/* The variant's state (cs_state_t.priv). */
typedef struct coloured {
    const cs_graph_t *g; /* borrowed: the context's (or the caller's, in tests) */
    const int *colour;   /* [g->nedges]: the context's (cs_comm_colouring) or `owned` */
    int ncolours;
    int *owned; /* the colouring cs_neighbor_coloured_init made, NULL when borrowed */
} coloured_t;

int cs_neighbor_coloured_init(const cs_graph_t *g, void **priv) {
    int rc = CS_OK;
    int *work = NULL;
    coloured_t *st = calloc(1, sizeof(*st));
    *priv = NULL;
    CS_REQUIRE(st != NULL, CS_ERR_NOMEM);
    st->g = g;
    st->owned = malloc(sizeof(int) * (size_t)(g->nedges > 0 ? g->nedges : 1));
    work = malloc(sizeof(int) * (size_t)cs_graph_colour_work(g));
    CS_REQUIRE(st->owned != NULL && work != NULL, CS_ERR_NOMEM);
    cs_graph_colour(g, st->owned, &st->ncolours, NULL, work);
    st->colour = st->owned;
    *priv = st;
    st = NULL;
out:
    cs_neighbor_coloured_free(st);
    free(work);
    return rc;
}

void cs_neighbor_coloured_free(void *priv) {
    coloured_t *st = priv;
    if (st != NULL) {
        free(st->owned);
        free(st);
    }
}

int cs_neighbor_coloured_setup(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {
    int rc = CS_OK;
    coloured_t *st = NULL;
    (void)params;
    st = calloc(1, sizeof(*st));
    CS_REQUIRE(st != NULL, CS_ERR_NOMEM);
    /* the context's graph and colouring, computed once and shared by the coloured variants of
     * every collective on the communicator */
    CS_CHECK(cs_comm_colouring(ctx, &st->g, &st->colour, &st->ncolours));
    state->priv = st;
    st = NULL;
out:
    free(st);
    return rc;
}

void cs_neighbor_coloured_teardown(cs_state_t *state) {
    cs_neighbor_coloured_free(state->priv);
    state->priv = NULL;
}

/* 1 when rank r's edges in g are the neighbourhood of the call (the graph was gathered from it;
 * a defence against a state of another communicator). */
int cs_neighbor_graph_matches(const cs_graph_t *g, const cs_call_t *c) {
    int r = c->rank;
    if (g == NULL || c->nbrs == NULL || g->p != c->nprocs || r < 0 || r >= g->p ||
        g->out_slots[r] != c->nbrs->outdegree || g->in_slots[r] != c->nbrs->indegree) {
        return 0;
    }
    for (int e = g->out_start[r]; e < g->out_start[r + 1]; e++) {
        if (c->nbrs->destinations[g->edges[e].src_slot] != g->edges[e].dst) {
            return 0;
        }
    }
    for (int k = g->in_start[r]; k < g->in_start[r + 1]; k++) {
        const cs_graph_edge_t *x = &g->edges[g->in_edge[k]];
        if (c->nbrs->sources[x->dst_slot] != x->src) {
            return 0;
        }
    }
    return 1;
}

int cs_build_neighbor_coloured(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    const coloured_t *st = s->state != NULL ? s->state->priv : NULL;
    const cs_graph_t *g = st != NULL ? st->g : NULL;
    int r = c->rank;
    (void)params;
    CS_REQUIRE(cs_coll_is_neighbor(c->coll) && cs_neighbor_graph_matches(g, c),
               CS_ERR_NOT_APPLICABLE);
    for (int col = 0; col < st->ncolours; col++) {
        for (int k = g->in_start[r]; k < g->in_start[r + 1]; k++) {
            int e = g->in_edge[k];
            if (st->colour[e] == col) {
                CS_CHECK(cs_edges_recv(s, c, g->edges[e].dst_slot));
            }
        }
        for (int e = g->out_start[r]; e < g->out_start[r + 1]; e++) {
            if (st->colour[e] == col) {
                CS_CHECK(cs_edges_send(s, c, g->edges[e].src_slot));
            }
        }
        CS_CHECK(cs_sched_round(s));
    }
out:
    return rc;
}

const cs_algo_t cs_algo_neighbor_allgather_coloured = {
    .name = "neighbor_allgather/coloured",
    .coll = CS_COLL_NEIGHBOR_ALLGATHER,
    .desc = "Welsh-Powell edge colouring of the whole graph, one round per colour",
    .build = cs_build_neighbor_coloured,
    .setup = cs_neighbor_coloured_setup,
    .teardown = cs_neighbor_coloured_teardown,
};

/* Communication graphs of neighbourhood collectives, and their edge colouring: no MPI.
 *
 * A graph on p processes (ranks 0..p-1) is a list of directed edges u -> v: u sends one block to
 * v (MPI_Neighbor_alltoall: its own block for that edge; allgather: the same block on every edge
 * out of u). Repeated edges and self-loops are allowed, as MPI allows them. Every edge keeps its
 * identity on both sides: src_slot is its index in u's destinations (the out-neighbour index:
 * where u's block sits in the send buffer) and dst_slot its index in v's sources (the
 * in-neighbour index: where v receives it). A slot whose neighbour is MPI_PROC_NULL (the border
 * of a non-periodic Cartesian dimension) holds no edge: slots count MPI's neighbour lists, edges
 * count messages. out_slots[r] and in_slots[r] are the lengths of r's lists.
 *
 * Pairing (which of v's slots for u receives which of u's blocks for v) follows MPI-4.1 section
 * 8.6: on graph topologies the k-th occurrence of v among u's destinations pairs with the k-th
 * occurrence of u among v's sources (cs_graph_from_lists); on Cartesian topologies the block
 * sent in direction -1 of dimension d lands in slot 2d+1 of the receiver and the block sent in
 * direction +1 in slot 2d (cs_graph_cart), which differs from list order only where a periodic
 * dimension has 1 or 2 processes (both neighbours are then the same process).
 *
 * Layout: edges are numbered by (src, src_slot), so the edges out of u are the contiguous range
 * [out_start[u], out_start[u+1]) in slot order; the edges into v, in slot order, are
 * in_edge[in_start[v] .. in_start[v+1]). Degrees count edges: out(u) = out_start[u+1] -
 * out_start[u], in(v) = in_start[v+1] - in_start[v]; a self-loop counts once in each.
 *
 * Pattern signature (cs_graph_sig): numbers that describe a pattern whatever built it (Cartesian
 * or distributed graph), so the selector can compare a communicator with the tuned patterns.
 *
 * Edge colouring (cs_graph_colour, colour.c; Hoefler and Schneider, "Optimization Principles
 * for Collective Neighborhood Communications", section II-A3). Model: in one round a process
 * starts at most one send and at most one receive. A colouring of the edges is proper when no
 * two edges of one colour have the same sender and no two have the same receiver (a self-loop
 * u -> u uses u's send and u's receive); colour c is then round c. Two edges conflict when they
 * share the sender or the receiver; the conflict degree of e = u -> v is the number of other
 * edges it conflicts with, out(u) + in(v) - 1 - mult(u, v) with mult(u, v) the number of edges
 * u -> v (e included). Welsh and Powell's greedy: take the edges in order of decreasing conflict
 * degree and give each the smallest colour none of its coloured conflicting edges has. Ties
 * (every edge of a regular pattern has the same degree) go to the smaller cyclic distance
 * (v - u) mod p, then the smaller edge number. With that tie-break the paper's alltoall example
 * (section II-A3, figure 3: "for (i = 0; i < p; ++i) send((r + i) % p)", the complete graph with
 * self-loops) gets exactly its ideal colouring, colour i = "r sends to (r + i) mod p"; in general
 * every group of edges with one cyclic distance is a partial permutation and is coloured before
 * the next. The order depends on the global graph only, so every rank computes the same
 * colouring. Bounds: at least max over r of max(out(r), in(r)) colours (a process's sends all
 * need distinct rounds); at most Welsh and Powell's max over i of min(d_i + 1, i), d_1 >= d_2 >=
 * ... the conflict degrees in colouring order, i counted from 1, which is at most
 * max_out + max_in - 1. The paper states no bound of its own. */
#ifndef CS_GRAPH_H
#define CS_GRAPH_H

#include "core/status.h"

#include <stdint.h>

/* A slot whose neighbour is MPI_PROC_NULL, in lists read and written here. */
#define CS_GRAPH_NONE (-1)

typedef struct cs_graph_edge {
    int src, src_slot; /* sender, index in the sender's destinations */
    int dst, dst_slot; /* receiver, index in the receiver's sources */
} cs_graph_edge_t;

typedef struct cs_graph {
    int p;
    int nedges;
    cs_graph_edge_t *edges; /* [nedges], by (src, src_slot) */
    int *out_start;         /* [p + 1] */
    int *in_start;          /* [p + 1] */
    int *in_edge;           /* [nedges]: edges into each receiver, by dst_slot */
    int *out_slots;         /* [p]: length of each rank's destinations list */
    int *in_slots;          /* [p]: length of each rank's sources list */
} cs_graph_t;

/* Constructors. Each fills a graph the caller declared and owns: the arrays are allocated here
 * and released by cs_graph_free(). On failure *g is left empty (safe to free) and the status is
 * CS_ERR_ARG (what the contract names) or CS_ERR_NOMEM. */

/* From explicit edges: p >= 1, every src and dst in [0, p), slots >= 0 and no two edges on one
 * (src, src_slot) or one (dst, dst_slot). out_slots/in_slots ([p] each) give the list lengths
 * (each at least the largest slot used + 1); NULL: the largest slot used + 1. `edges` is
 * copied, in any order. */
int cs_graph_from_edges(cs_graph_t *g, int p, int nedges, const cs_graph_edge_t *edges,
                        const int *out_slots, const int *in_slots) CS_MUST_CHECK;

/* From every rank's lists, as MPI_Dist_graph_neighbors returns them: rank r's destinations are
 * dst[dst_start[r] .. dst_start[r+1]), its sources src[src_start[r] .. src_start[r+1]) (start
 * arrays [p + 1], from 0). An entry CS_GRAPH_NONE (or any negative value) is a slot without an
 * edge. Repeated neighbours pair in list order (see above). Fails with CS_ERR_ARG when an entry
 * is >= p or when the lists disagree (v appears k times among u's destinations but u does not
 * appear k times among v's sources). */
int cs_graph_from_lists(cs_graph_t *g, int p, const int *dst_start, const int *dst,
                        const int *src_start, const int *src) CS_MUST_CHECK;

/* From every rank's lists on a Cartesian communicator, as MPI_Cart_shift gives them (slots 2d
 * and 2d+1: the neighbours at -1 and +1 of dimension d, sources and destinations alike): rank
 * r's list is dst[dst_start[r] .. dst_start[r+1]) (start array [p + 1], from 0; CS_GRAPH_NONE or
 * any negative value for MPI_PROC_NULL). Pairing as MPI-4.1 (see above): the block r sends from
 * slot i lands in slot i ^ 1 of the receiver, so the result equals cs_graph_cart() of the grid.
 * CS_ERR_ARG when a list has an odd length, an entry is >= p, or the lists disagree (r names u
 * in slot i but u does not name r in slot i ^ 1). */
int cs_graph_from_cart_lists(cs_graph_t *g, int p, const int *dst_start,
                             const int *dst) CS_MUST_CHECK;

/* Frees the arrays of g (not g); g is then empty. NULL or an empty graph: nothing. */
void cs_graph_free(cs_graph_t *g);

/* Rank r's lists as MPI reports them: writes g->out_slots[r] destinations to dst and
 * g->in_slots[r] sources to src (CS_GRAPH_NONE where a slot has no edge); either may be NULL. */
void cs_graph_neighbours(const cs_graph_t *g, int r, int *dst, int *src);

/* Number of edges out of / into r. */
int cs_graph_out_degree(const cs_graph_t *g, int r);
int cs_graph_in_degree(const cs_graph_t *g, int r);

/* The graph with every edge reversed (u -> v, slots a, b becomes v -> u, slots b, a) into *t;
 * a scatter from a hot spot is the transpose of a gather to it. Errors as the constructors. */
int cs_graph_transpose(const cs_graph_t *g, cs_graph_t *t) CS_MUST_CHECK;

/* ---- generators (tests and the tuning run's named patterns) ---- */

/* MPI_Cart_create's communicator, von Neumann neighbourhood (MPI_Cart_shift by 1 in every
 * dimension): p = product of dims[0..ndims-1] (each >= 1), ranks in row-major order (the last
 * dimension varies fastest, as MPI numbers them); rank r's slots 2d and 2d+1 are its
 * neighbours in direction -1 and +1 of dimension d. periods[d] != 0 wraps around; otherwise the
 * border's slot has no edge. periods NULL: all periodic. Pairing as MPI-4.1 (see above).
 * CS_ERR_ARG for ndims < 1, a dimension < 1 or p above INT_MAX. */
int cs_graph_cart(cs_graph_t *g, int ndims, const int *dims, const int *periods) CS_MUST_CHECK;

/* Moore stencil as a distributed graph (2D 9-point: ndims 2; 3D 27-point: ndims 3): every rank
 * of the periodic row-major grid dims[0..ndims-1] exchanges with the 3^ndims - 1 ranks at the
 * offsets o in {-1, 0, 1}^ndims other than 0 (the centre, self, is excluded; a dimension of 1 or 2
 * processes wraps onto self or onto one process twice, and those edges stay, as MPI's lists
 * would have them). Destinations and sources are the same list, offsets in lexicographic
 * order (dimension 0 most significant, -1 before 0 before +1); pairing as cs_graph_from_lists.
 * CS_ERR_ARG as cs_graph_cart. */
int cs_graph_moore(cs_graph_t *g, int ndims, const int *dims) CS_MUST_CHECK;

/* Random sparse graph (the paper's sparse alltoall pattern A(s, density), an Erdos-Renyi
 * graph): every ordered pair u != v is an edge with probability `density` (0 to 1),
 * independently, from splitmix64 seeded with `seed` (so the graph is the same on every machine
 * and every rank). Destinations and sources in increasing rank order. CS_ERR_ARG for p < 1 or a
 * density outside [0, 1]. */
int cs_graph_random(cs_graph_t *g, int p, double density, uint64_t seed) CS_MUST_CHECK;

/* Hot spot: every rank r != 0 sends to rank 0, and every rank sends to its ring neighbours
 * r - 1 and r + 1 (mod p); destinations [0, r-1, r+1] (rank 0: [p-1, 1]). Where p < 3 these
 * coincide and stay repeated edges (p = 1: two self-loops). Sources in increasing rank order.
 * Rank 0's in-degree is p + 1 (p >= 3), everyone's out-degree at most 3: a receiving hot spot;
 * its transpose is the paper's scatter hot spot (figure 4). CS_ERR_ARG for p < 1. */
int cs_graph_hotspot(cs_graph_t *g, int p) CS_MUST_CHECK;

/* ---- pattern signature ---- */

typedef struct cs_graph_sig {
    int p;
    int nedges;
    int max_out;      /* largest out-degree */
    int max_in;       /* largest in-degree */
    double mean_out;  /* nedges / p (also the mean in-degree) */
    double imbalance; /* in-degree imbalance: max_in / mean_out; 1 when nedges = 0 */
} cs_graph_sig_t;

/* The signature of g. */
void cs_graph_sig(const cs_graph_t *g, cs_graph_sig_t *sig);

/* Distance between two signatures, >= 0: the sum over p, mean_out, max_out, max_in and
 * imbalance of |ln(a + 1) - ln(b + 1)|. Relative (logarithmic) so that 8 against 16 neighbours
 * is as far apart as 64 against 128, +1 so that empty graphs compare finitely; nedges is left
 * out because it is p * mean_out. 0 for equal signatures, symmetric, and it satisfies the
 * triangle inequality (a sum of metrics on the log scale). */
double cs_graph_sig_distance(const cs_graph_sig_t *a, const cs_graph_sig_t *b);

/* ---- edge colouring (colour.c, see above) ---- */

/* Ints of work that cs_graph_colour needs for g. */
long cs_graph_colour_work(const cs_graph_t *g);

/* Colours the edges of g in Welsh-Powell order: colour[e] (nedges ints) is edge e's round,
 * *ncolours the number of colours (0 for no edges). `work` holds cs_graph_colour_work(g) ints;
 * `order`, when not NULL, receives the nedges edge numbers in colouring order (for the bound
 * above). Deterministic: the same graph gives the same colouring everywhere. Does not fail. */
void cs_graph_colour(const cs_graph_t *g, int *colour, int *ncolours, int *order, int *work);

/* The conflict degree of edge e (see above). */
int cs_graph_conflict_degree(const cs_graph_t *g, int e);

#endif

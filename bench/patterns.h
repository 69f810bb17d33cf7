/* The named communication patterns the tuning run measures the neighbourhood collectives on
 * (issue 12, docs/neighbor.md), each built inside the job on a communicator of any size p:
 *
 *   cart2d, cart3d    MPI_Cart_create, periodic, MPI_Dims_create's grid: the von Neumann
 *                     neighbourhood (2 and 3 dimensions: 4 and 6 neighbours);
 *   moore2d, moore3d  the 2D 9-point and 3D 27-point Moore stencils on MPI_Dims_create's
 *                     periodic grid, as distributed graphs (8 and 26 neighbours);
 *   random10/30/60    random sparse graphs (every ordered pair an edge with probability 0.1,
 *                     0.3, 0.6; fixed seed, the same graph on every machine);
 *   hotspot           every rank sends to rank 0 and to its two ring neighbours (a receiving
 *                     hot spot);
 *   scatter_hotspot   its transpose: rank 0 sends to every rank (the paper's figure 4), every
 *                     rank to its ring neighbours.
 *
 * The graph of a pattern comes from algorithms/topo/graph.h; the communicator is made from it
 * with MPI_Cart_create (cart*) or MPI_Dist_graph_create_adjacent (the others, unweighted),
 * without reordering, so rank r of the pattern is rank r of the parent communicator. */
#ifndef CS_BENCH_PATTERNS_H
#define CS_BENCH_PATTERNS_H

#include "core/status.h"
#include "topo/graph.h"

#include <mpi.h>

typedef struct cs_bench_pattern {
    const char *name; /* what measurement.pattern, rule.pattern and pattern.name hold */
    const char *desc;
    int ndims;      /* Cartesian (cart*) or grid (moore*) dimensions; 0: neither */
    int cartesian;  /* 1: MPI_Cart_create */
    double density; /* random*: the edge probability; else 0 */
    int kind;       /* internal: which generator */
} cs_bench_pattern_t;

extern const cs_bench_pattern_t cs_bench_patterns[];
extern const int cs_bench_npatterns;

/* The index of the pattern named `name` in cs_bench_patterns, or -1. */
int cs_bench_pattern_find(const char *name);

/* The global graph of pattern `pat` on p processes into *g (owned by the caller: cs_graph_free),
 * the same on every rank; for a grid pattern the grid is MPI_Dims_create(p, ndims). Errors as
 * the graph constructors (CS_ERR_ARG, CS_ERR_NOMEM), CS_ERR_MPI when MPI_Dims_create fails. */
int cs_bench_pattern_graph(const cs_bench_pattern_t *pat, int p, cs_graph_t *g) CS_MUST_CHECK;

/* 1 when pattern `pat` is worth tuning on p processes: its graph has an edge between two
 * different processes (a pattern of self-loops only, as every pattern is on one process, or a
 * random graph that drew no edge, moves nothing over the network). 0 also when the graph
 * cannot be built. Local (MPI_Dims_create only). */
int cs_bench_pattern_valid(const cs_bench_pattern_t *pat, int p);

/* The communicator of pattern `pat` over `comm` (collective): *topo (the caller frees it) has
 * the pattern's topology, and *sig its graph's signature (cs_graph_sig). CS_ERR_MPI when MPI
 * fails, CS_ERR_NOMEM; on failure *topo is MPI_COMM_NULL. */
int cs_bench_pattern_comm(const cs_bench_pattern_t *pat, MPI_Comm comm, MPI_Comm *topo,
                          cs_graph_sig_t *sig) CS_MUST_CHECK;

#endif

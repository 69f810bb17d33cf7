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
 *                     rank to its ring neighbours;
 *   iso_moore2d_r1/r2, iso_moore3d_r1/r2
 *                     isomorphic Moore neighbourhoods of radius 1 and 2 (every offset in
 *                     [-r, r]^d but 0: 8, 24, 26, 124 neighbours, topo/iso.h cs_iso_nbh_moore),
 *                     made with collsel_iso_neighborhood_create (issue 13);
 *   iso_octant3d_r3   the message-combining paper's asymmetric neighbourhood (sections 2 and
 *                     6, figure 2(f)): the positive octant of radius 3, every offset in
 *                     {0..3}^3 but 0 (63 neighbours), in the same lexicographic order.
 *
 * The graph of a pattern comes from algorithms/topo/graph.h; the communicator is made from it
 * with MPI_Cart_create (cart*), MPI_Dist_graph_create_adjacent (moore*, random*, hotspot*,
 * unweighted) or collsel_iso_neighborhood_create on the periodic MPI_Cart_create of the grid
 * (iso_*: targets R + C^i, sources R - C^i), without reordering, so rank r of the pattern is
 * rank r of the parent communicator. The cart* and iso_* communicators are isomorphic
 * (core/isocomm.h: cs_isocomm_get succeeds on them); their neighbourhood is
 * cs_bench_pattern_iso's. The iso_* patterns are tuned for the two collectives the
 * message-combining schedules exist for (neighbor_alltoall and neighbor_allgather) only, to
 * keep the run short. */
#ifndef CS_BENCH_PATTERNS_H
#define CS_BENCH_PATTERNS_H

#include "core/call.h"
#include "core/status.h"
#include "topo/graph.h"
#include "topo/iso.h"
#include "workload.h"

#include <mpi.h>

typedef struct cs_bench_pattern {
    const char *name; /* what measurement.pattern, rule.pattern and pattern.name hold */
    const char *desc;
    int ndims;      /* Cartesian (cart*) or grid (moore*) dimensions; 0: neither */
    int cartesian;  /* 1: MPI_Cart_create */
    double density; /* random*: the edge probability; else 0 */
    int kind;       /* internal: which generator */
    int radius;     /* iso_*: the offsets' largest magnitude; else 0 */
    unsigned colls; /* the neighbourhood collectives tuned on it (bits 1u << cs_coll_t); 0: all */
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

/* 1 when neighbourhood collective c is tuned on pattern `pat` (cs_bench_pattern_t.colls). */
int cs_bench_pattern_tunes(const cs_bench_pattern_t *pat, cs_coll_t c);

/* The isomorphic neighbourhood of pattern `pat` on p processes into *nbh (owned by the caller:
 * cs_iso_nbh_free): for cart* the periodic Cartesian one (per dimension -e_j then +e_j, as
 * core/isocomm.h reads it from the communicator), for iso_* their offsets, on the torus
 * MPI_Dims_create(p, ndims). CS_ERR_NOT_APPLICABLE (nbh empty) for the patterns whose
 * communicator is not isomorphic; CS_ERR_ARG, CS_ERR_NOMEM, CS_ERR_MPI. Local. */
int cs_bench_pattern_iso(const cs_bench_pattern_t *pat, int p, cs_iso_nbh_t *nbh) CS_MUST_CHECK;

/* The communicator of pattern `pat` over `comm` (collective): *topo (the caller frees it) has
 * the pattern's topology, and *sig its graph's signature (cs_graph_sig). CS_ERR_MPI when MPI
 * fails, CS_ERR_NOMEM; on failure *topo is MPI_COMM_NULL. */
int cs_bench_pattern_comm(const cs_bench_pattern_t *pat, MPI_Comm comm, MPI_Comm *topo,
                          cs_graph_sig_t *sig) CS_MUST_CHECK;

/* The pattern's communicator as the tuning passes measure on it (collective over `comm`): *topo
 * and *sig from cs_bench_pattern_comm, its context made (cs_comm_get), and buffers *nb for
 * blocks of up to max_block_bytes on this rank's edges (cs_bench_bufs_alloc_neighbor, sized by
 * its larger degree). The caller frees *topo and *nb with cs_bench_pattern_close, also on
 * failure (then *topo may be MPI_COMM_NULL). Errors as cs_bench_pattern_comm, cs_comm_get and the
 * allocation. */
int cs_bench_pattern_open(const cs_bench_pattern_t *pat, MPI_Comm comm, size_t max_block_bytes,
                          MPI_Comm *topo, cs_graph_sig_t *sig, cs_bench_bufs_t *nb) CS_MUST_CHECK;

/* Frees what cs_bench_pattern_open made: the buffers *nb and *topo (set to MPI_COMM_NULL; one
 * that is MPI_COMM_NULL already is left). CS_ERR_MPI when freeing the communicator fails. */
int cs_bench_pattern_close(MPI_Comm *topo, cs_bench_bufs_t *nb);

#endif

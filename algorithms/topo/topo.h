/* Communication topologies as pure integer math: no MPI, no allocation.
 *
 * Ranks are "positions" 0..p-1. Rooted algorithms rotate first (cs_topo_vrank) so that the
 * root is position 0.
 *
 * Binomial tree (rooted at 0): the parent of v > 0 is v with its lowest set bit cleared; the
 * children of v are v + 2^k for every 2^k below v's lowest set bit (every 2^k for v = 0) with
 * v + 2^k < p. The subtree of v is the contiguous range [v, v + subtree(v)). The root has
 * ceil(log2 p) children, so sending to children one at a time takes ceil(log2 p) steps; the
 * height in edges (popcount of the deepest v) is ceil(log2 p) for a power of two, less
 * otherwise (p = 5: 2).
 *
 * Recursive doubling for any p ("fold"): with p' = the largest power of two <= p and
 * r = p - p', the first 2r positions pair up; the even one of each pair (2i) hands its data to
 * 2i+1 and sits out, the others form a hypercube of p' "fold ranks": fold rank w stands for
 * positions [cs_topo_fold_first(w), cs_topo_fold_first(w+1)), a contiguous range, so fold
 * ranks keep position order. log2(p') exchange steps plus two for the fold when r > 0.
 *
 * Orthogonal grids (Hartmann et al., Section 2): a layout of p = d0 d1 (d2) processes, every
 * factor >= 2; both orders are layouts of their own (2x48 and 48x2 differ). Rank r has the
 * coordinates c_k = (r / stride_k) mod d_k with stride_0 = 1 and stride_k+1 = stride_k d_k, so
 * dimension 0 varies fastest. The line along dimension k through r is the d_k ranks
 * base + i stride_k (i < d_k, base = r - c_k stride_k), in rank order, r being member c_k: the
 * lines along dimension 0 ("rows") are d0 consecutive ranks. Two ranks share at most one line
 * (they differ in exactly one coordinate). The block of r below dimension k is the sub-grid of
 * dimensions 0..k-1 through r: the stride_k consecutive ranks from r - r mod stride_k. Member i
 * of r's line along k has the block that starts at block(r, k+1) + i stride_k, so the blocks of a
 * line's members lie side by side in rank order: what a grid algorithm collects line after line,
 * dimension 0 first, is always one contiguous range of ranks. */
#ifndef CS_TOPO_H
#define CS_TOPO_H

#include <stddef.h>

/* Largest power of two <= n (n >= 1). */
int cs_topo_pof2_floor(int n);
/* Smallest k with 2^k >= n (n >= 1); 0 for n = 1. */
int cs_topo_log2_ceil(int n);
/* 1 if n is a power of two (n >= 1). */
int cs_topo_is_pof2(int n);

/* Position of `rank` when `root` is moved to 0, and back. */
int cs_topo_vrank(int rank, int root, int p);
int cs_topo_rank(int vrank, int root, int p);

/* Binomial tree rooted at 0. */
int cs_topo_binomial_parent(int v, int p);  /* -1 for v = 0 */
int cs_topo_binomial_subtree(int v, int p); /* size of v's subtree */
int cs_topo_binomial_nchildren(int v, int p);
/* The i-th child of v: v + 2^i, children in increasing order. Child i's subtree has 2^i ranks,
 * except that p may cut the last one short (p = 5, v = 0: subtrees 1, 2, 1). */
int cs_topo_binomial_child(int v, int p, int i);

/* Ring. */
int cs_topo_ring_left(int rank, int p);
int cs_topo_ring_right(int rank, int p);

/* Recursive doubling with fold (see above). */
int cs_topo_fold_extra(int p);         /* r = p - pof2_floor(p) */
int cs_topo_fold_rank(int pos, int p); /* fold rank of pos, -1 if pos sits out */
int cs_topo_fold_pos(int w, int p);    /* the position that acts as fold rank w */
int cs_topo_fold_first(int w, int p);  /* first position fold rank w stands for; p for w = p' */

/* Orthogonal grids (see above). */
#define CS_TOPO_MAX_DIMS 3

typedef struct cs_topo_grid {
    int ndims;
    int dims[CS_TOPO_MAX_DIMS];
    int stride[CS_TOPO_MAX_DIMS + 1]; /* stride[ndims] = p */
} cs_topo_grid_t;

/* The layouts of p with `ndims` factors (2 or 3), every factor >= 2, in lexicographic order
 * (p = 96, ndims 2: 2x48, 3x32, ..., 48x2). Writes the first `cap` of them to out, ndims ints
 * each, and returns how many there are (0 for a prime p, or ndims not 2 or 3). */
int cs_topo_layouts(int p, int ndims, int *out, int cap);

/* Sets up the grid of layout dims[0..ndims-1]. Returns 0, or -1 when ndims is not 1 to
 * CS_TOPO_MAX_DIMS, a factor is below 2 or the product overflows an int. */
int cs_topo_grid_init(cs_topo_grid_t *g, const int *dims, int ndims);
/* Number of ranks in the grid. */
int cs_topo_grid_size(const cs_topo_grid_t *g);
/* Coordinate k of rank. */
int cs_topo_grid_coord(const cs_topo_grid_t *g, int rank, int k);
/* The first member of rank's line along dimension k. */
int cs_topo_grid_line_base(const cs_topo_grid_t *g, int rank, int k);
/* Member i of the line along dimension k that starts at base. */
int cs_topo_grid_line_member(const cs_topo_grid_t *g, int base, int k, int i);
/* The first rank of rank's block below dimension k (stride[k] ranks; k = ndims: 0). */
int cs_topo_grid_block(const cs_topo_grid_t *g, int rank, int k);

/* Parses a layout, "2x4" or "2x2x3": up to `max` decimal factors >= 2 separated by 'x'.
 * Returns the number of factors, or -1 for anything else (no factor, a factor below 2, a sign,
 * spaces, more than max factors, a product that overflows an int). */
int cs_topo_dims_parse(const char *text, int *dims, int max);
/* Writes "d0xd1[xd2]" into buf. */
void cs_topo_dims_format(const int *dims, int ndims, char *buf, size_t len);

/* Leaders of a node (DPML, Bayatpour et al. Section 4.3: leaders spread over the sockets).
 * Picks `l` of the local ranks 0..m-1, spread evenly over their domains (packages or NUMA
 * nodes): domain[i] is local rank i's domain (any int, -1 "unknown" being one more domain;
 * domain NULL: all in one). The domains, in order of first appearance, take leaders
 * round-robin (a domain without an unused rank is passed over); a domain with c ranks and k
 * leaders gets its ranks at positions floor(i c / k), i < k, so leaders spread inside it too
 * (one domain, m = 8, l = 2: 0 and 4). Writes the leaders' local ranks in increasing order to
 * out[0..l-1]; `work` holds 3m ints. Returns l, or -1 when l < 1 or l > m. */
int cs_topo_leaders(const int *domain, int m, int l, int *work, int *out);

#endif

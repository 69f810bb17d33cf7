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
 * ranks keep position order. log2(p') exchange steps plus two for the fold when r > 0. */
#ifndef CS_TOPO_H
#define CS_TOPO_H

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

#endif

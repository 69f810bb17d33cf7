/* Topology math (see topo.h). */
#include "topo.h"

int cs_topo_pof2_floor(int n) {
    int k = 1;
    while (k <= n / 2) {
        k *= 2;
    }
    return k;
}

int cs_topo_log2_ceil(int n) {
    int k = 0;
    while ((1L << k) < n) {
        k++;
    }
    return k;
}

int cs_topo_is_pof2(int n) {
    return n > 0 && (n & (n - 1)) == 0;
}

int cs_topo_vrank(int rank, int root, int p) {
    return (rank - root + p) % p;
}

int cs_topo_rank(int vrank, int root, int p) {
    return (vrank + root) % p;
}

static int lowbit(int v) {
    return v & -v;
}

int cs_topo_binomial_parent(int v, int p) {
    (void)p;
    return v == 0 ? -1 : v - lowbit(v);
}

int cs_topo_binomial_subtree(int v, int p) {
    if (v == 0) {
        return p;
    }
    int size = lowbit(v);
    return size < p - v ? size : p - v;
}

int cs_topo_binomial_nchildren(int v, int p) {
    int limit = v == 0 ? p : lowbit(v);
    int n = 0;
    for (int mask = 1; mask < limit && v + mask < p; mask <<= 1) {
        n++;
    }
    return n;
}

int cs_topo_binomial_child(int v, int p, int i) {
    (void)p;
    return v + (1 << i);
}

int cs_topo_ring_left(int rank, int p) {
    return (rank - 1 + p) % p;
}

int cs_topo_ring_right(int rank, int p) {
    return (rank + 1) % p;
}

int cs_topo_fold_extra(int p) {
    return p - cs_topo_pof2_floor(p);
}

int cs_topo_fold_rank(int pos, int p) {
    int r = cs_topo_fold_extra(p);
    if (pos < 2 * r) {
        return pos % 2 == 0 ? -1 : pos / 2;
    }
    return pos - r;
}

int cs_topo_fold_pos(int w, int p) {
    int r = cs_topo_fold_extra(p);
    return w < r ? 2 * w + 1 : w + r;
}

int cs_topo_fold_first(int w, int p) {
    int r = cs_topo_fold_extra(p);
    return w < r ? 2 * w : w + r;
}

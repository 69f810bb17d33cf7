/* Topology math (see topo.h). */
#include "topo.h"

#include <stdio.h>

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

/* Orthogonal grids. */

/* Appends every ordered factorisation of p into `left` factors >= 2 to out, after the `depth`
 * factors already in cur; counts them all in *n. */
static void factorise(int p, int left, int *cur, int depth, int ndims, int *out, int cap, int *n) {
    if (left == 1) {
        if (p >= 2) {
            cur[depth] = p;
            if (*n < cap) {
                for (int k = 0; k < ndims; k++) {
                    out[*n * ndims + k] = cur[k];
                }
            }
            (*n)++;
        }
        return;
    }
    for (int d = 2; d <= p / 2; d++) {
        if (p % d == 0) {
            cur[depth] = d;
            factorise(p / d, left - 1, cur, depth + 1, ndims, out, cap, n);
        }
    }
}

int cs_topo_layouts(int p, int ndims, int *out, int cap) {
    int cur[CS_TOPO_MAX_DIMS];
    int n = 0;
    if (ndims < 2 || ndims > CS_TOPO_MAX_DIMS || p < 4) {
        return 0;
    }
    factorise(p, ndims, cur, 0, ndims, out, cap, &n);
    return n;
}

int cs_topo_grid_init(cs_topo_grid_t *g, const int *dims, int ndims) {
    if (ndims < 1 || ndims > CS_TOPO_MAX_DIMS) {
        return -1;
    }
    g->ndims = ndims;
    g->stride[0] = 1;
    for (int k = 0; k < ndims; k++) {
        if (dims[k] < 2 || g->stride[k] > 2147483647 / dims[k]) {
            return -1;
        }
        g->dims[k] = dims[k];
        g->stride[k + 1] = g->stride[k] * dims[k];
    }
    return 0;
}

int cs_topo_grid_size(const cs_topo_grid_t *g) {
    return g->stride[g->ndims];
}

int cs_topo_grid_coord(const cs_topo_grid_t *g, int rank, int k) {
    return rank / g->stride[k] % g->dims[k];
}

int cs_topo_grid_line_base(const cs_topo_grid_t *g, int rank, int k) {
    return rank - cs_topo_grid_coord(g, rank, k) * g->stride[k];
}

int cs_topo_grid_line_member(const cs_topo_grid_t *g, int base, int k, int i) {
    return base + i * g->stride[k];
}

int cs_topo_grid_block(const cs_topo_grid_t *g, int rank, int k) {
    return rank - rank % g->stride[k];
}

int cs_topo_dims_parse(const char *text, int *dims, int max) {
    int n = 0;
    long product = 1;
    const char *s = text;
    if (s == NULL) {
        return -1;
    }
    for (;;) {
        long v = 0;
        if (*s < '0' || *s > '9' || n == max) {
            return -1;
        }
        while (*s >= '0' && *s <= '9') {
            v = v * 10 + (*s++ - '0');
            if (v > 2147483647L) {
                return -1;
            }
        }
        product *= v;
        if (v < 2 || product > 2147483647L) {
            return -1;
        }
        dims[n++] = (int)v;
        if (*s == '\0') {
            return n;
        }
        if (*s++ != 'x') {
            return -1;
        }
    }
}

void cs_topo_dims_format(const int *dims, int ndims, char *buf, size_t len) {
    size_t used = 0;
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    for (int k = 0; k < ndims && used < len; k++) {
        used += (size_t)snprintf(buf + used, len - used, k > 0 ? "x%d" : "%d", dims[k]);
    }
}

/* The first of local ranks 0..i-1 in group g (gid[0..i) assigned). */
static int gid_first(const int *gid, int i, int g) {
    for (int k = 0; k < i; k++) {
        if (gid[k] == g) {
            return k;
        }
    }
    return 0;
}

int cs_topo_leaders(const int *domain, int m, int l, int *work, int *out) {
    int *gid = work, *size = work + m, *take = work + 2 * m;
    int ngroups = 0, given = 0, n = 0;
    if (l < 1 || l > m) {
        return -1;
    }
    for (int i = 0; i < m; i++) {
        int g = 0;
        while (g < ngroups && !(domain == NULL || domain[i] == domain[gid_first(gid, i, g)])) {
            g++;
        }
        gid[i] = g;
        if (g == ngroups) {
            size[ngroups] = 0;
            take[ngroups] = 0;
            ngroups++;
        }
        size[g]++;
    }
    while (given < l) {
        for (int g = 0; g < ngroups && given < l; g++) {
            if (take[g] < size[g]) {
                take[g]++;
                given++;
            }
        }
    }
    for (int g = 0; g < ngroups; g++) {
        for (int k = 0; k < take[g]; k++) {
            int pos = (int)((long)k * size[g] / take[g]), seen = 0;
            for (int i = 0; i < m; i++) {
                if (gid[i] == g && seen++ == pos) {
                    out[n++] = i;
                    break;
                }
            }
        }
    }
    for (int i = 1; i < n; i++) { /* insertion sort: n is small */
        int v = out[i], j = i;
        for (; j > 0 && out[j - 1] > v; j--) {
            out[j] = out[j - 1];
        }
        out[j] = v;
    }
    return n;
}

/* Communication graphs (see graph.h). */
#include "graph.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 8

static int cmp_edge(const void *a, const void *b) {
    const cs_graph_edge_t *x = a, *y = b;
    if (x->src != y->src) {
        return x->src < y->src ? -1 : 1;
    }
    return x->src_slot < y->src_slot ? -1 : x->src_slot > y->src_slot;
}

void cs_graph_free(cs_graph_t *g) {
    if (g == NULL) {
        return;
    }
    free(g->edges);
    free(g->out_start);
    free(g->in_start);
    free(g->in_edge);
    free(g->out_slots);
    free(g->in_slots);
    memset(g, 0, sizeof(*g));
}

int cs_graph_from_edges(cs_graph_t *g, int p, int nedges, const cs_graph_edge_t *edges,
                        const int *out_slots, const int *in_slots) {
    int rc = CS_OK;
    int *seen = NULL; /* per receiver slot: taken */
    int *pos = NULL;
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(p >= 1 && nedges >= 0 && (nedges == 0 || edges != NULL), CS_ERR_ARG);
    g->p = p;
    g->nedges = nedges;
    g->edges = malloc(sizeof(*g->edges) * (size_t)(nedges > 0 ? nedges : 1));
    g->out_start = calloc((size_t)p + 1, sizeof(int));
    g->in_start = calloc((size_t)p + 1, sizeof(int));
    g->in_edge = malloc(sizeof(int) * (size_t)(nedges > 0 ? nedges : 1));
    g->out_slots = calloc((size_t)p, sizeof(int));
    g->in_slots = calloc((size_t)p, sizeof(int));
    pos = calloc((size_t)p + 1, sizeof(int));
    CS_REQUIRE(g->edges != NULL && g->out_start != NULL && g->in_start != NULL &&
                   g->in_edge != NULL && g->out_slots != NULL && g->in_slots != NULL && pos != NULL,
               CS_ERR_NOMEM);
    for (int e = 0; e < nedges; e++) {
        const cs_graph_edge_t *x = &edges[e];
        CS_REQUIRE(x->src >= 0 && x->src < p && x->dst >= 0 && x->dst < p && x->src_slot >= 0 &&
                       x->dst_slot >= 0 && x->src_slot < INT_MAX && x->dst_slot < INT_MAX,
                   CS_ERR_ARG);
        g->edges[e] = *x;
        if (x->src_slot + 1 > g->out_slots[x->src]) {
            g->out_slots[x->src] = x->src_slot + 1;
        }
        if (x->dst_slot + 1 > g->in_slots[x->dst]) {
            g->in_slots[x->dst] = x->dst_slot + 1;
        }
        g->out_start[x->src + 1]++;
        g->in_start[x->dst + 1]++;
    }
    for (int r = 0; r < p; r++) {
        if (out_slots != NULL) {
            CS_REQUIRE(out_slots[r] >= g->out_slots[r], CS_ERR_ARG);
            g->out_slots[r] = out_slots[r];
        }
        if (in_slots != NULL) {
            CS_REQUIRE(in_slots[r] >= g->in_slots[r], CS_ERR_ARG);
            g->in_slots[r] = in_slots[r];
        }
        g->out_start[r + 1] += g->out_start[r];
        g->in_start[r + 1] += g->in_start[r];
    }
    if (nedges > 1) {
        qsort(g->edges, (size_t)nedges, sizeof(*g->edges), cmp_edge);
    }
    for (int e = 1; e < nedges; e++) {
        CS_REQUIRE(g->edges[e].src != g->edges[e - 1].src ||
                       g->edges[e].src_slot != g->edges[e - 1].src_slot,
                   CS_ERR_ARG);
    }
    /* Edges into each receiver by slot: place each edge at its slot among the receiver's
     * in_slots slots (seen: slot -> edge + 1), then keep the filled ones in slot order. */
    {
        long total = 0;
        for (int r = 0; r < p; r++) {
            pos[r] = (int)total;
            total += g->in_slots[r];
        }
        seen = calloc((size_t)(total > 0 ? total : 1), sizeof(int));
        CS_REQUIRE(seen != NULL, CS_ERR_NOMEM);
        for (int e = 0; e < nedges; e++) {
            int *s = &seen[pos[g->edges[e].dst] + g->edges[e].dst_slot];
            CS_REQUIRE(*s == 0, CS_ERR_ARG);
            *s = e + 1;
        }
        for (int r = 0; r < p; r++) {
            int k = g->in_start[r];
            for (int j = 0; j < g->in_slots[r]; j++) {
                if (seen[pos[r] + j] != 0) {
                    g->in_edge[k++] = seen[pos[r] + j] - 1;
                }
            }
        }
    }
out:
    free(seen);
    free(pos);
    if (rc < 0) {
        cs_graph_free(g);
    }
    return rc;
}

/* One end of an edge while pairing lists: the k-th occurrence (k from 0) of the pair (u, v)
 * in u's destinations or in v's sources, at `slot` of that list. */
typedef struct end {
    int u, v, k, slot;
} end_t;

static int cmp_end(const void *a, const void *b) {
    const end_t *x = a, *y = b;
    if (x->u != y->u) {
        return x->u < y->u ? -1 : 1;
    }
    if (x->v != y->v) {
        return x->v < y->v ? -1 : 1;
    }
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Fills ends[] from the lists of every rank r: entry i of r's list names `other`; the pair is
 * (r, other) for destinations (r_is_u) and (other, r) for sources. cnt[p] is zero on entry and
 * on return. Returns the number of ends. */
static int list_ends(int p, const int *start, const int *list, int r_is_u, int *cnt, end_t *ends) {
    int n = 0;
    for (int r = 0; r < p; r++) {
        for (int i = start[r]; i < start[r + 1]; i++) {
            int other = list[i];
            if (other < 0) {
                continue;
            }
            ends[n].u = r_is_u ? r : other;
            ends[n].v = r_is_u ? other : r;
            ends[n].k = cnt[other]++;
            ends[n].slot = i - start[r];
            n++;
        }
        for (int i = start[r]; i < start[r + 1]; i++) {
            if (list[i] >= 0) {
                cnt[list[i]] = 0;
            }
        }
    }
    return n;
}

int cs_graph_from_lists(cs_graph_t *g, int p, const int *dst_start, const int *dst,
                        const int *src_start, const int *src) {
    int rc = CS_OK;
    cs_graph_edge_t *edges = NULL;
    end_t *out_ends = NULL, *in_ends = NULL;
    int *out_slots = NULL, *in_slots = NULL, *cnt = NULL;
    int nedges = 0, nin = 0;
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(p >= 1 && dst_start != NULL && src_start != NULL, CS_ERR_ARG);
    CS_REQUIRE(dst_start[0] == 0 && src_start[0] == 0, CS_ERR_ARG);
    for (int r = 0; r < p; r++) {
        CS_REQUIRE(dst_start[r + 1] >= dst_start[r] && src_start[r + 1] >= src_start[r],
                   CS_ERR_ARG);
    }
    for (int i = 0; i < dst_start[p]; i++) {
        CS_REQUIRE(dst[i] < p, CS_ERR_ARG);
        nedges += dst[i] >= 0;
    }
    for (int i = 0; i < src_start[p]; i++) {
        CS_REQUIRE(src[i] < p, CS_ERR_ARG);
        nin += src[i] >= 0;
    }
    CS_REQUIRE(nedges == nin, CS_ERR_ARG);
    edges = malloc(sizeof(*edges) * (size_t)(nedges > 0 ? nedges : 1));
    out_ends = malloc(sizeof(*out_ends) * (size_t)(nedges > 0 ? nedges : 1));
    in_ends = malloc(sizeof(*in_ends) * (size_t)(nedges > 0 ? nedges : 1));
    out_slots = malloc(sizeof(int) * (size_t)p);
    in_slots = malloc(sizeof(int) * (size_t)p);
    cnt = calloc((size_t)p, sizeof(int));
    CS_REQUIRE(edges != NULL && out_ends != NULL && in_ends != NULL && out_slots != NULL &&
                   in_slots != NULL && cnt != NULL,
               CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        out_slots[r] = dst_start[r + 1] - dst_start[r];
        in_slots[r] = src_start[r + 1] - src_start[r];
    }
    /* The k-th occurrence of v among u's destinations pairs with the k-th of u among v's
     * sources: sort both sides by (u, v, k); the lists agree iff the keys match one to one. */
    list_ends(p, dst_start, dst, 1, cnt, out_ends);
    list_ends(p, src_start, src, 0, cnt, in_ends);
    if (nedges > 1) {
        qsort(out_ends, (size_t)nedges, sizeof(*out_ends), cmp_end);
        qsort(in_ends, (size_t)nedges, sizeof(*in_ends), cmp_end);
    }
    for (int e = 0; e < nedges; e++) {
        CS_REQUIRE(cmp_end(&out_ends[e], &in_ends[e]) == 0, CS_ERR_ARG);
        edges[e].src = out_ends[e].u;
        edges[e].src_slot = out_ends[e].slot;
        edges[e].dst = in_ends[e].v;
        edges[e].dst_slot = in_ends[e].slot;
    }
    CS_CHECK(cs_graph_from_edges(g, p, nedges, edges, out_slots, in_slots));
out:
    free(edges);
    free(out_ends);
    free(in_ends);
    free(out_slots);
    free(in_slots);
    free(cnt);
    return rc;
}

int cs_graph_from_cart_lists(cs_graph_t *g, int p, const int *dst_start, const int *dst) {
    int rc = CS_OK;
    cs_graph_edge_t *edges = NULL;
    int *slots = NULL;
    int nedges = 0;
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(p >= 1 && dst_start != NULL && dst_start[0] == 0, CS_ERR_ARG);
    for (int r = 0; r < p; r++) {
        int len = dst_start[r + 1] - dst_start[r];
        CS_REQUIRE(len >= 0 && len % 2 == 0, CS_ERR_ARG);
    }
    for (int i = 0; i < dst_start[p]; i++) {
        CS_REQUIRE(dst[i] < p, CS_ERR_ARG);
        nedges += dst[i] >= 0;
    }
    edges = malloc(sizeof(*edges) * (size_t)(nedges > 0 ? nedges : 1));
    slots = malloc(sizeof(int) * (size_t)p);
    CS_REQUIRE(edges != NULL && slots != NULL, CS_ERR_NOMEM);
    nedges = 0;
    for (int r = 0; r < p; r++) {
        slots[r] = dst_start[r + 1] - dst_start[r];
        for (int i = 0; i < slots[r]; i++) {
            int v = dst[dst_start[r] + i];
            if (v < 0) {
                continue;
            }
            /* the receiver must list the sender in the opposite direction */
            CS_REQUIRE((i ^ 1) < dst_start[v + 1] - dst_start[v] &&
                           dst[dst_start[v] + (i ^ 1)] == r,
                       CS_ERR_ARG);
            edges[nedges].src = r;
            edges[nedges].src_slot = i;
            edges[nedges].dst = v;
            edges[nedges].dst_slot = i ^ 1;
            nedges++;
        }
    }
    CS_CHECK(cs_graph_from_edges(g, p, nedges, edges, slots, slots));
out:
    free(edges);
    free(slots);
    return rc;
}

void cs_graph_neighbours(const cs_graph_t *g, int r, int *dst, int *src) {
    if (dst != NULL) {
        for (int i = 0; i < g->out_slots[r]; i++) {
            dst[i] = CS_GRAPH_NONE;
        }
        for (int e = g->out_start[r]; e < g->out_start[r + 1]; e++) {
            dst[g->edges[e].src_slot] = g->edges[e].dst;
        }
    }
    if (src != NULL) {
        for (int i = 0; i < g->in_slots[r]; i++) {
            src[i] = CS_GRAPH_NONE;
        }
        for (int i = g->in_start[r]; i < g->in_start[r + 1]; i++) {
            const cs_graph_edge_t *x = &g->edges[g->in_edge[i]];
            src[x->dst_slot] = x->src;
        }
    }
}

int cs_graph_out_degree(const cs_graph_t *g, int r) {
    return g->out_start[r + 1] - g->out_start[r];
}

int cs_graph_in_degree(const cs_graph_t *g, int r) {
    return g->in_start[r + 1] - g->in_start[r];
}

int cs_graph_transpose(const cs_graph_t *g, cs_graph_t *t) {
    int rc = CS_OK;
    cs_graph_edge_t *edges = malloc(sizeof(*edges) * (size_t)(g->nedges > 0 ? g->nedges : 1));
    memset(t, 0, sizeof(*t));
    CS_REQUIRE(edges != NULL, CS_ERR_NOMEM);
    for (int e = 0; e < g->nedges; e++) {
        edges[e].src = g->edges[e].dst;
        edges[e].src_slot = g->edges[e].dst_slot;
        edges[e].dst = g->edges[e].src;
        edges[e].dst_slot = g->edges[e].src_slot;
    }
    CS_CHECK(cs_graph_from_edges(t, g->p, g->nedges, edges, g->in_slots, g->out_slots));
out:
    free(edges);
    return rc;
}

/* ---- generators ---- */

/* Number of ranks of the row-major grid dims[0..ndims-1], or -1 when a dimension is below 1,
 * ndims is not 1..MAX_DIMS or the product exceeds INT_MAX. */
static int grid_size(int ndims, const int *dims) {
    long p = 1;
    if (ndims < 1 || ndims > MAX_DIMS || dims == NULL) {
        return -1;
    }
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 1) {
            return -1;
        }
        p *= dims[d];
        if (p > INT_MAX) {
            return -1;
        }
    }
    return (int)p;
}

/* Row-major coordinates of r (the last dimension varies fastest, as MPI_Cart_create). */
static void grid_coords(int ndims, const int *dims, int r, int *c) {
    for (int d = ndims - 1; d >= 0; d--) {
        c[d] = r % dims[d];
        r /= dims[d];
    }
}

static int grid_rank(int ndims, const int *dims, const int *c) {
    int r = 0;
    for (int d = 0; d < ndims; d++) {
        r = r * dims[d] + c[d];
    }
    return r;
}

/* The rank at offset `delta` from coordinates c in dimension d, wrapping around; -1 when the
 * step leaves a non-periodic dimension. */
static int grid_shift(int ndims, const int *dims, const int *c, int d, int delta, int periodic) {
    int cc[MAX_DIMS];
    memcpy(cc, c, sizeof(int) * (size_t)ndims);
    cc[d] += delta;
    if (cc[d] < 0 || cc[d] >= dims[d]) {
        if (!periodic) {
            return -1;
        }
        cc[d] = ((cc[d] % dims[d]) + dims[d]) % dims[d];
    }
    return grid_rank(ndims, dims, cc);
}

int cs_graph_cart(cs_graph_t *g, int ndims, const int *dims, const int *periods) {
    int rc = CS_OK;
    int p = grid_size(ndims, dims);
    cs_graph_edge_t *edges = NULL;
    int *slots = NULL;
    int n = 0;
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(p >= 1 && (long)p * 2 * ndims <= INT_MAX, CS_ERR_ARG);
    edges = malloc(sizeof(*edges) * (size_t)p * 2 * (size_t)ndims);
    slots = malloc(sizeof(int) * (size_t)p);
    CS_REQUIRE(edges != NULL && slots != NULL, CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        int c[MAX_DIMS];
        slots[r] = 2 * ndims;
        grid_coords(ndims, dims, r, c);
        for (int d = 0; d < ndims; d++) {
            int periodic = periods == NULL || periods[d] != 0;
            for (int dir = 0; dir < 2; dir++) {
                int q = grid_shift(ndims, dims, c, d, dir == 0 ? -1 : 1, periodic);
                if (q < 0) {
                    continue;
                }
                /* what r sends towards -1 arrives at q from q's +1 side, and vice versa */
                edges[n].src = r;
                edges[n].src_slot = 2 * d + dir;
                edges[n].dst = q;
                edges[n].dst_slot = 2 * d + (1 - dir);
                n++;
            }
        }
    }
    CS_CHECK(cs_graph_from_edges(g, p, n, edges, slots, slots));
out:
    free(edges);
    free(slots);
    return rc;
}

int cs_graph_moore(cs_graph_t *g, int ndims, const int *dims) {
    int rc = CS_OK;
    int p = grid_size(ndims, dims);
    int noff = 1;
    int *start = NULL, *list = NULL;
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(p >= 1 && ndims <= 3, CS_ERR_ARG);
    for (int d = 0; d < ndims; d++) {
        noff *= 3;
    }
    noff -= 1;
    CS_REQUIRE((long)p * noff <= INT_MAX, CS_ERR_ARG);
    start = malloc(sizeof(int) * ((size_t)p + 1));
    list = malloc(sizeof(int) * (size_t)p * (size_t)noff);
    CS_REQUIRE(start != NULL && list != NULL, CS_ERR_NOMEM);
    for (int r = 0; r <= p; r++) {
        start[r] = r * noff;
    }
    for (int r = 0; r < p; r++) {
        int c[MAX_DIMS];
        int k = 0;
        grid_coords(ndims, dims, r, c);
        for (int idx = 0; idx <= noff; idx++) {
            int cc[MAX_DIMS], zero = 1;
            /* digits of idx in base 3, dimension 0 most significant; digit - 1 is the offset */
            for (int d = ndims - 1, x = idx; d >= 0; d--, x /= 3) {
                int o = x % 3 - 1;
                zero = zero && o == 0;
                cc[d] = ((c[d] + o) % dims[d] + dims[d]) % dims[d];
            }
            if (!zero) {
                list[r * noff + k++] = grid_rank(ndims, dims, cc);
            }
        }
    }
    CS_CHECK(cs_graph_from_lists(g, p, start, list, start, list));
out:
    free(start);
    free(list);
    return rc;
}

/* splitmix64 (Steele, Lea and Flood): the same sequence on every machine. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Builds g from edges listed per sender, senders and receivers in increasing order within the
 * lists: dst lists as given, src lists in increasing sender order. */
static int from_dst_lists(cs_graph_t *g, int p, const int *dst_start, const int *dst) {
    int rc = CS_OK;
    int n = dst_start[p];
    int *src_start = calloc((size_t)p + 1, sizeof(int));
    int *src = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *fill = malloc(sizeof(int) * (size_t)p);
    CS_REQUIRE(src_start != NULL && src != NULL && fill != NULL, CS_ERR_NOMEM);
    for (int i = 0; i < n; i++) {
        src_start[dst[i] + 1]++;
    }
    for (int v = 0; v < p; v++) {
        src_start[v + 1] += src_start[v];
        fill[v] = src_start[v];
    }
    for (int u = 0; u < p; u++) {
        for (int i = dst_start[u]; i < dst_start[u + 1]; i++) {
            src[fill[dst[i]]++] = u;
        }
    }
    CS_CHECK(cs_graph_from_lists(g, p, dst_start, dst, src_start, src));
out:
    free(src_start);
    free(src);
    free(fill);
    return rc;
}

int cs_graph_random(cs_graph_t *g, int p, double density, uint64_t seed) {
    int rc = CS_OK;
    int *start = NULL, *list = NULL;
    uint64_t state = seed, threshold;
    int n = 0;
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(p >= 1 && density >= 0.0 && density <= 1.0, CS_ERR_ARG);
    CS_REQUIRE((long)p * (p - 1) <= INT_MAX, CS_ERR_ARG);
    /* edge iff the top 32 bits of the draw are below density * 2^32 (exact in IEEE double) */
    threshold = (uint64_t)(density * 4294967296.0);
    start = malloc(sizeof(int) * ((size_t)p + 1));
    list = malloc(sizeof(int) * (size_t)(p > 1 ? (long)p * (p - 1) : 1));
    CS_REQUIRE(start != NULL && list != NULL, CS_ERR_NOMEM);
    /* one draw per ordered pair u != v, in (u, v) order */
    for (int u = 0; u < p; u++) {
        start[u] = n;
        for (int v = 0; v < p; v++) {
            if (v != u && (splitmix64(&state) >> 32) < threshold) {
                list[n++] = v;
            }
        }
    }
    start[p] = n;
    CS_CHECK(from_dst_lists(g, p, start, list));
out:
    free(start);
    free(list);
    return rc;
}

int cs_graph_hotspot(cs_graph_t *g, int p) {
    int rc = CS_OK;
    int *start = NULL, *list = NULL;
    int n = 0;
    memset(g, 0, sizeof(*g));
    CS_REQUIRE(p >= 1 && p <= INT_MAX / 3, CS_ERR_ARG);
    start = malloc(sizeof(int) * ((size_t)p + 1));
    list = malloc(sizeof(int) * 3 * (size_t)p);
    CS_REQUIRE(start != NULL && list != NULL, CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        start[r] = n;
        if (r != 0) {
            list[n++] = 0;
        }
        list[n++] = (r - 1 + p) % p;
        list[n++] = (r + 1) % p;
    }
    start[p] = n;
    CS_CHECK(from_dst_lists(g, p, start, list));
out:
    free(start);
    free(list);
    return rc;
}

/* ---- pattern signature ---- */

void cs_graph_sig(const cs_graph_t *g, cs_graph_sig_t *sig) {
    memset(sig, 0, sizeof(*sig));
    sig->p = g->p;
    sig->nedges = g->nedges;
    for (int r = 0; r < g->p; r++) {
        int out = cs_graph_out_degree(g, r), in = cs_graph_in_degree(g, r);
        sig->max_out = out > sig->max_out ? out : sig->max_out;
        sig->max_in = in > sig->max_in ? in : sig->max_in;
    }
    sig->mean_out = (double)g->nedges / g->p;
    sig->imbalance = g->nedges > 0 ? sig->max_in / sig->mean_out : 1.0;
}

/* |ln(a + 1) - ln(b + 1)|, written so that swapping a and b gives the same bits. */
static double log_ratio(double a, double b) {
    return fabs(log(a + 1.0) - log(b + 1.0));
}

double cs_graph_sig_distance(const cs_graph_sig_t *a, const cs_graph_sig_t *b) {
    return log_ratio(a->p, b->p) + log_ratio(a->mean_out, b->mean_out) +
           log_ratio(a->max_out, b->max_out) + log_ratio(a->max_in, b->max_in) +
           log_ratio(a->imbalance, b->imbalance);
}

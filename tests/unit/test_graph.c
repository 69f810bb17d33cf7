/* Unit tests for algorithms/topo/graph.[ch] and colour.c: communication graphs, generators,
 * pattern signatures and the Welsh-Powell edge colouring. No MPI.
 *
 * References are written the slow obvious way (MPI_Cart_shift by coordinates, conflicts by
 * comparing every pair of edges) and compared with the library on every generator and on random
 * graphs up to p = 64, with repeated edges and self-loops. */
#include "topo/graph.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_P 64

/* cs_graph_random(16, 0.3, seed 1): pinned, computed independently (a Python splitmix64), so
 * that a change of the generator, which would change every tuned random pattern, shows. */
#define PIN_RANDOM_EDGES  73
#define PIN_RANDOM_DIGEST 0xbbc749c220446f4aUL

/* Assertion for hot loops (see test_topo.c). */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ck_abort_msg(__VA_ARGS__);                                                             \
        }                                                                                          \
    } while (0)

/* ---- helpers ---- */

/* Lists (MPI_Dist_graph_neighbors form) with repeated edges and self-loops: rank r sends to
 * `deg(r)` ranks drawn by a small LCG, sources listed in a shuffled order. */
typedef struct lists {
    int p;
    int *dst_start, *dst, *src_start, *src;
} lists_t;

static unsigned lcg(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void lists_free(lists_t *l) {
    free(l->dst_start);
    free(l->dst);
    free(l->src_start);
    free(l->src);
}

static void lists_random(lists_t *l, int p, unsigned seed) {
    int n = 0, *fill;
    l->p = p;
    l->dst_start = calloc((size_t)p + 1, sizeof(int));
    l->src_start = calloc((size_t)p + 1, sizeof(int));
    l->dst = malloc(sizeof(int) * (size_t)p * 8);
    l->src = malloc(sizeof(int) * (size_t)p * 8);
    fill = malloc(sizeof(int) * (size_t)p);
    for (int u = 0; u < p; u++) {
        int deg = (int)(lcg(&seed) % 8);
        l->dst_start[u] = n;
        for (int i = 0; i < deg; i++) {
            /* a third of the time a repeat of the previous neighbour, sometimes self */
            int v = (i > 0 && lcg(&seed) % 3 == 0) ? l->dst[n - 1] : (int)(lcg(&seed) % p);
            l->dst[n++] = v;
            l->src_start[v + 1]++;
        }
    }
    l->dst_start[p] = n;
    for (int v = 0; v < p; v++) {
        l->src_start[v + 1] += l->src_start[v];
        fill[v] = l->src_start[v];
    }
    for (int u = 0; u < p; u++) {
        for (int i = l->dst_start[u]; i < l->dst_start[u + 1]; i++) {
            l->src[fill[l->dst[i]]++] = u;
        }
    }
    /* shuffle every source list (pairing must not depend on sender order) */
    for (int v = 0; v < p; v++) {
        int lo = l->src_start[v], len = l->src_start[v + 1] - lo;
        for (int i = len - 1; i > 0; i--) {
            int j = (int)(lcg(&seed) % (unsigned)(i + 1)), t = l->src[lo + i];
            l->src[lo + i] = l->src[lo + j];
            l->src[lo + j] = t;
        }
    }
    free(fill);
}

/* Structural checks every graph must pass. */
static void check_graph(const cs_graph_t *g) {
    int *seen_in = calloc((size_t)g->nedges + 1, sizeof(int));
    ck_assert_int_eq(g->out_start[0], 0);
    ck_assert_int_eq(g->out_start[g->p], g->nedges);
    ck_assert_int_eq(g->in_start[g->p], g->nedges);
    for (int u = 0; u < g->p; u++) {
        for (int e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            EXPECT(g->edges[e].src == u, "edge %d listed under sender %d", e, u);
            EXPECT(e == g->out_start[u] || g->edges[e].src_slot > g->edges[e - 1].src_slot,
                   "edges of %d not in slot order", u);
            EXPECT(g->edges[e].src_slot < g->out_slots[u], "slot beyond the list");
        }
        for (int i = g->in_start[u]; i < g->in_start[u + 1]; i++) {
            const cs_graph_edge_t *x = &g->edges[g->in_edge[i]];
            EXPECT(x->dst == u, "in_edge of %d names an edge to %d", u, x->dst);
            EXPECT(i == g->in_start[u] || x->dst_slot > g->edges[g->in_edge[i - 1]].dst_slot,
                   "in-edges of %d not in slot order", u);
            EXPECT(x->dst_slot < g->in_slots[u], "slot beyond the list");
            seen_in[g->in_edge[i]]++;
        }
    }
    for (int e = 0; e < g->nedges; e++) {
        EXPECT(seen_in[e] == 1, "edge %d appears %d times among in-edges", e, seen_in[e]);
    }
    free(seen_in);
}

/* ---- construction from lists ---- */

START_TEST(test_from_lists_round_trip) {
    int p = _i;
    for (unsigned seed = 1; seed <= 5; seed++) {
        lists_t l;
        cs_graph_t g;
        int dst[8], src[64];
        lists_random(&l, p, seed * 7919u + (unsigned)p);
        ck_assert_int_eq(cs_graph_from_lists(&g, p, l.dst_start, l.dst, l.src_start, l.src), CS_OK);
        check_graph(&g);
        ck_assert_int_eq(g.nedges, l.dst_start[p]);
        for (int r = 0; r < p; r++) {
            int nd = l.dst_start[r + 1] - l.dst_start[r], ns = l.src_start[r + 1] - l.src_start[r];
            ck_assert_int_le(ns, 64);
            ck_assert_int_eq(g.out_slots[r], nd);
            ck_assert_int_eq(g.in_slots[r], ns);
            cs_graph_neighbours(&g, r, dst, src);
            ck_assert_mem_eq(dst, l.dst + l.dst_start[r], sizeof(int) * (size_t)nd);
            ck_assert_mem_eq(src, l.src + l.src_start[r], sizeof(int) * (size_t)ns);
        }
        /* k-th occurrence pairs with k-th occurrence (MPI-4.1 8.6) */
        for (int e = 0; e < g.nedges; e++) {
            const cs_graph_edge_t *x = &g.edges[e];
            int k_out = 0, k_in = 0;
            for (int i = 0; i < x->src_slot; i++) {
                k_out += l.dst[l.dst_start[x->src] + i] == x->dst;
            }
            for (int i = 0; i < x->dst_slot; i++) {
                k_in += l.src[l.src_start[x->dst] + i] == x->src;
            }
            EXPECT(l.dst[l.dst_start[x->src] + x->src_slot] == x->dst &&
                       l.src[l.src_start[x->dst] + x->dst_slot] == x->src && k_out == k_in,
                   "edge %d: %d slot %d -> %d slot %d pairs occurrence %d with %d", e, x->src,
                   x->src_slot, x->dst, x->dst_slot, k_out, k_in);
        }
        cs_graph_free(&g);
        lists_free(&l);
    }
}
END_TEST

START_TEST(test_from_lists_errors) {
    cs_graph_t g;
    /* 0 -> 1 but 1 does not list 0 as a source */
    int ds[] = {0, 1, 1}, d[] = {1}, ss[] = {0, 0, 1}, s[] = {1};
    ck_assert_int_eq(cs_graph_from_lists(&g, 2, ds, d, ss, s), CS_ERR_ARG);
    ck_assert_ptr_null(g.edges);
    /* twice 0 -> 1, once 1 <- 0 (and one slot too many elsewhere) */
    int ds2[] = {0, 2, 2}, d2[] = {1, 1}, ss2[] = {0, 1, 2}, s2[] = {1, 0};
    ck_assert_int_eq(cs_graph_from_lists(&g, 2, ds2, d2, ss2, s2), CS_ERR_ARG);
    /* a neighbour out of range */
    int d3[] = {2}, s3[] = {0};
    ck_assert_int_eq(cs_graph_from_lists(&g, 2, ds, d3, ss, s3), CS_ERR_ARG);
    /* MPI_PROC_NULL slots hold no edge but keep the numbering */
    int ds4[] = {0, 3, 3}, d4[] = {CS_GRAPH_NONE, 1, CS_GRAPH_NONE}, ss4[] = {0, 0, 2},
        s4[] = {CS_GRAPH_NONE, 0};
    ck_assert_int_eq(cs_graph_from_lists(&g, 2, ds4, d4, ss4, s4), CS_OK);
    ck_assert_int_eq(g.nedges, 1);
    ck_assert_int_eq(g.edges[0].src_slot, 1);
    ck_assert_int_eq(g.edges[0].dst_slot, 1);
    ck_assert_int_eq(g.out_slots[0], 3);
    ck_assert_int_eq(g.in_slots[1], 2);
    cs_graph_free(&g);
    /* explicit edges: two on one receiver slot */
    cs_graph_edge_t e[] = {{0, 0, 1, 0}, {1, 0, 1, 0}};
    ck_assert_int_eq(cs_graph_from_edges(&g, 2, 2, e, NULL, NULL), CS_ERR_ARG);
    cs_graph_edge_t e2[] = {{0, 0, 1, 0}, {0, 0, 1, 1}};
    ck_assert_int_eq(cs_graph_from_edges(&g, 2, 2, e2, NULL, NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_graph_from_edges(&g, 0, 0, NULL, NULL, NULL), CS_ERR_ARG);
    cs_graph_free(&g);
}
END_TEST

/* ---- generators ---- */

/* MPI_Cart_shift by hand: row-major coordinates, -1 / +1 in dimension d. */
static int ref_cart_shift(int ndims, const int *dims, const int *periods, int r, int d, int disp) {
    int c[8], q = 0;
    for (int k = ndims - 1; k >= 0; k--) {
        c[k] = r % dims[k];
        r /= dims[k];
    }
    c[d] += disp;
    if (c[d] < 0 || c[d] >= dims[d]) {
        if (!periods[d]) {
            return CS_GRAPH_NONE;
        }
        c[d] = (c[d] + dims[d]) % dims[d];
    }
    for (int k = 0; k < ndims; k++) {
        q = q * dims[k] + c[k];
    }
    return q;
}

START_TEST(test_cart) {
    int specs[][7] = {
        {2, 3, 3, 0, 1, 1, 0}, {2, 2, 4, 0, 1, 1, 0}, {2, 1, 5, 0, 1, 1, 0},
        {3, 2, 3, 4, 1, 1, 1}, {3, 1, 2, 2, 1, 1, 1}, {2, 3, 3, 0, 0, 1, 0},
        {3, 2, 3, 4, 0, 1, 0}, {1, 7, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 1, 0, 0},
    };
    for (size_t c = 0; c < sizeof(specs) / sizeof(specs[0]); c++) {
        int ndims = specs[c][0], *dims = &specs[c][1], *periods = &specs[c][4];
        cs_graph_t g;
        int dst[6], src[6];
        ck_assert_int_eq(cs_graph_cart(&g, ndims, dims, periods), CS_OK);
        check_graph(&g);
        for (int r = 0; r < g.p; r++) {
            ck_assert_int_eq(g.out_slots[r], 2 * ndims);
            ck_assert_int_eq(g.in_slots[r], 2 * ndims);
            cs_graph_neighbours(&g, r, dst, src);
            for (int d = 0; d < ndims; d++) {
                int lo = ref_cart_shift(ndims, dims, periods, r, d, -1);
                int hi = ref_cart_shift(ndims, dims, periods, r, d, 1);
                /* MPI: destinations and sources are both (-1, +1) per dimension */
                EXPECT(dst[2 * d] == lo && dst[2 * d + 1] == hi && src[2 * d] == lo &&
                           src[2 * d + 1] == hi,
                       "case %zu rank %d dim %d", c, r, d);
            }
        }
        /* MPI-4.1 8.6: block s of the sender lands in block s ^ 1 of the receiver */
        for (int e = 0; e < g.nedges; e++) {
            EXPECT(g.edges[e].dst_slot == (g.edges[e].src_slot ^ 1), "case %zu edge %d", c, e);
        }
        cs_graph_free(&g);
    }
    int bad[] = {2, 0};
    cs_graph_t g;
    ck_assert_int_eq(cs_graph_cart(&g, 2, bad, NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_graph_cart(&g, 0, bad, NULL), CS_ERR_ARG);
}
END_TEST

/* cs_graph_from_cart_lists: every rank's MPI_Cart_shift lists give cs_graph_cart's graph (the
 * slot i ^ 1 pairing, dimensions of 1 and 2 included); lists that disagree are refused. */
START_TEST(test_from_cart_lists) {
    int specs[][7] = {
        {2, 3, 3, 0, 1, 1, 0}, {2, 2, 4, 0, 1, 1, 0}, {2, 1, 5, 0, 1, 1, 0},
        {3, 2, 3, 4, 1, 1, 1}, {3, 1, 2, 2, 1, 1, 1}, {2, 3, 3, 0, 0, 1, 0},
        {1, 7, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 1, 0, 0}, {1, 2, 0, 0, 1, 0, 0},
    };
    for (size_t c = 0; c < sizeof(specs) / sizeof(specs[0]); c++) {
        int ndims = specs[c][0], *dims = &specs[c][1], *periods = &specs[c][4];
        cs_graph_t g, h;
        int *start, *list;
        ck_assert_int_eq(cs_graph_cart(&g, ndims, dims, periods), CS_OK);
        start = malloc(sizeof(int) * ((size_t)g.p + 1));
        list = malloc(sizeof(int) * (size_t)(2 * ndims * g.p));
        ck_assert(start != NULL && list != NULL);
        start[0] = 0;
        for (int r = 0; r < g.p; r++) {
            cs_graph_neighbours(&g, r, list + start[r], NULL);
            start[r + 1] = start[r] + 2 * ndims;
        }
        ck_assert_int_eq(cs_graph_from_cart_lists(&h, g.p, start, list), CS_OK);
        check_graph(&h);
        ck_assert_int_eq(h.nedges, g.nedges);
        for (int e = 0; e < g.nedges; e++) {
            EXPECT(memcmp(&g.edges[e], &h.edges[e], sizeof(g.edges[e])) == 0, "case %zu edge %d", c,
                   e);
        }
        for (int r = 0; r < g.p; r++) {
            EXPECT(h.out_slots[r] == 2 * ndims && h.in_slots[r] == 2 * ndims, "case %zu", c);
        }
        cs_graph_free(&h);
        if (g.nedges > 0 && g.p > 2) { /* one entry changed: the lists disagree */
            int k = 0;
            while (list[k] < 0) {
                k++;
            }
            list[k] = (list[k] + 1) % g.p;
            EXPECT(cs_graph_from_cart_lists(&h, g.p, start, list) == CS_ERR_ARG, "case %zu", c);
        }
        start[1] = 1; /* an odd length */
        ck_assert_int_eq(cs_graph_from_cart_lists(&h, g.p, start, list), CS_ERR_ARG);
        free(start);
        free(list);
        cs_graph_free(&g);
    }
}
END_TEST

START_TEST(test_moore) {
    int specs[][4] = {{2, 3, 3, 0}, {2, 4, 5, 0}, {2, 2, 4, 0}, {3, 3, 3, 3},
                      {3, 3, 4, 5}, {3, 2, 2, 2}, {2, 1, 3, 0}};
    for (size_t c = 0; c < sizeof(specs) / sizeof(specs[0]); c++) {
        int ndims = specs[c][0], *dims = &specs[c][1];
        int noff = ndims == 2 ? 8 : 26, big = 1;
        cs_graph_t g;
        int dst[26], src[26];
        ck_assert_int_eq(cs_graph_moore(&g, ndims, dims), CS_OK);
        check_graph(&g);
        for (int d = 0; d < ndims; d++) {
            big = big && dims[d] >= 3;
        }
        for (int r = 0; r < g.p; r++) {
            int rc[3], k = 0;
            ck_assert_int_eq(cs_graph_out_degree(&g, r), noff);
            ck_assert_int_eq(cs_graph_in_degree(&g, r), noff);
            cs_graph_neighbours(&g, r, dst, src);
            ck_assert_mem_eq(dst, src, sizeof(int) * (size_t)noff);
            for (int d = ndims - 1, x = r; d >= 0; d--) {
                rc[d] = x % dims[d];
                x /= dims[d];
            }
            for (int o0 = -1; o0 <= 1; o0++) {
                for (int o1 = -1; o1 <= 1; o1++) {
                    for (int o2 = ndims == 3 ? -1 : 0; o2 <= (ndims == 3 ? 1 : 0); o2++) {
                        int o[3] = {o0, o1, o2}, q = 0;
                        if (o0 == 0 && o1 == 0 && o2 == 0) {
                            continue;
                        }
                        for (int d = 0; d < ndims; d++) {
                            q = q * dims[d] + (rc[d] + o[d] + dims[d]) % dims[d];
                        }
                        EXPECT(dst[k] == q, "case %zu rank %d offset %d: %d, want %d", c, r, k,
                               dst[k], q);
                        /* all 3^n - 1 neighbours distinct and not self when every dim >= 3 */
                        EXPECT(!big || q != r, "case %zu rank %d: self", c, r);
                        k++;
                    }
                }
            }
            if (big) {
                for (int i = 0; i < noff; i++) {
                    for (int j = 0; j < i; j++) {
                        EXPECT(dst[i] != dst[j], "case %zu rank %d: repeated neighbour", c, r);
                    }
                }
            }
        }
        cs_graph_free(&g);
    }
}
END_TEST

/* A digest of a graph's edges (order-sensitive), to pin generated graphs. */
static unsigned long digest(const cs_graph_t *g) {
    unsigned long h = 1469598103934665603UL;
    for (int e = 0; e < g->nedges; e++) {
        const int *x = &g->edges[e].src;
        for (int i = 0; i < 4; i++) {
            h = (h ^ (unsigned long)x[i]) * 1099511628211UL;
        }
    }
    return h;
}

START_TEST(test_random) {
    cs_graph_t a, b;
    /* deterministic: the same graph twice, another with another seed */
    ck_assert_int_eq(cs_graph_random(&a, 64, 0.3, 42), CS_OK);
    ck_assert_int_eq(cs_graph_random(&b, 64, 0.3, 42), CS_OK);
    check_graph(&a);
    ck_assert_int_eq(a.nedges, b.nedges);
    ck_assert_uint_eq(digest(&a), digest(&b));
    cs_graph_free(&b);
    ck_assert_int_eq(cs_graph_random(&b, 64, 0.3, 43), CS_OK);
    ck_assert_uint_ne(digest(&a), digest(&b));
    cs_graph_free(&b);
    /* density: 4032 pairs at 0.3 is 1209.6 +- 29 edges; 6 standard deviations either way */
    ck_assert_int_ge(a.nedges, 1035);
    ck_assert_int_le(a.nedges, 1385);
    for (int e = 0; e < a.nedges; e++) {
        ck_assert_int_ne(a.edges[e].src, a.edges[e].dst);
        /* lists in increasing rank order: slots follow the neighbours' ranks */
        EXPECT(e == a.out_start[a.edges[e].src] || a.edges[e].dst > a.edges[e - 1].dst,
               "destinations not increasing");
    }
    cs_graph_free(&a);
    ck_assert_int_eq(cs_graph_random(&a, 20, 0.0, 1), CS_OK);
    ck_assert_int_eq(a.nedges, 0);
    cs_graph_free(&a);
    ck_assert_int_eq(cs_graph_random(&a, 20, 1.0, 1), CS_OK);
    ck_assert_int_eq(a.nedges, 20 * 19);
    cs_graph_free(&a);
    ck_assert_int_eq(cs_graph_random(&a, 20, 1.5, 1), CS_ERR_ARG);
    ck_assert_int_eq(cs_graph_random(&a, 0, 0.5, 1), CS_ERR_ARG);
    /* pinned: the same edges on every machine (splitmix64, integer threshold) */
    ck_assert_int_eq(cs_graph_random(&a, 16, 0.3, 1), CS_OK);
    ck_assert_int_eq(a.nedges, PIN_RANDOM_EDGES);
    ck_assert_uint_eq(digest(&a), PIN_RANDOM_DIGEST);
    cs_graph_free(&a);
}
END_TEST

START_TEST(test_hotspot) {
    int p = _i;
    cs_graph_t g, t, tt;
    int dst[3];
    ck_assert_int_eq(cs_graph_hotspot(&g, p), CS_OK);
    check_graph(&g);
    for (int r = 0; r < p; r++) {
        int n = r == 0 ? 2 : 3, k = 0;
        ck_assert_int_eq(cs_graph_out_degree(&g, r), n);
        cs_graph_neighbours(&g, r, dst, NULL);
        if (r != 0) {
            ck_assert_int_eq(dst[k++], 0);
        }
        ck_assert_int_eq(dst[k++], (r - 1 + p) % p);
        ck_assert_int_eq(dst[k], (r + 1) % p);
    }
    if (p >= 3) {
        ck_assert_int_eq(cs_graph_in_degree(&g, 0), p + 1);
    }
    /* the transpose is the scatter hot spot; transposing twice gives the graph back */
    ck_assert_int_eq(cs_graph_transpose(&g, &t), CS_OK);
    check_graph(&t);
    for (int r = 0; r < p; r++) {
        ck_assert_int_eq(cs_graph_out_degree(&t, r), cs_graph_in_degree(&g, r));
        ck_assert_int_eq(cs_graph_in_degree(&t, r), cs_graph_out_degree(&g, r));
    }
    ck_assert_int_eq(cs_graph_transpose(&t, &tt), CS_OK);
    ck_assert_int_eq(tt.nedges, g.nedges);
    ck_assert_mem_eq(tt.edges, g.edges, sizeof(*g.edges) * (size_t)g.nedges);
    cs_graph_free(&g);
    cs_graph_free(&t);
    cs_graph_free(&tt);
}
END_TEST

/* ---- signatures ---- */

START_TEST(test_signature) {
    cs_graph_t g[6];
    cs_graph_sig_t s[6];
    int d2[] = {8, 8}, d2b[] = {4, 16}, d3[] = {4, 4, 4};
    ck_assert_int_eq(cs_graph_cart(&g[0], 2, d2, NULL), CS_OK);
    ck_assert_int_eq(cs_graph_cart(&g[1], 2, d2b, NULL), CS_OK);
    ck_assert_int_eq(cs_graph_moore(&g[2], 3, d3), CS_OK);
    ck_assert_int_eq(cs_graph_hotspot(&g[3], 64), CS_OK);
    ck_assert_int_eq(cs_graph_random(&g[4], 64, 0.3, 7), CS_OK);
    ck_assert_int_eq(cs_graph_random(&g[5], 64, 0.0, 7), CS_OK);
    for (int i = 0; i < 6; i++) {
        cs_graph_sig(&g[i], &s[i]);
    }
    ck_assert_int_eq(s[0].p, 64);
    ck_assert_int_eq(s[0].nedges, 256);
    ck_assert_int_eq(s[0].max_out, 4);
    ck_assert_int_eq(s[0].max_in, 4);
    ck_assert(s[0].mean_out == 4.0 && s[0].imbalance == 1.0);
    ck_assert_int_eq(s[2].max_out, 26);
    ck_assert_int_eq(s[3].max_in, 65);
    ck_assert_int_eq(s[3].max_out, 3);
    ck_assert(fabs(s[3].imbalance - 65.0 / ((64.0 * 3 - 1) / 64.0)) < 1e-12);
    ck_assert(s[5].imbalance == 1.0 && s[5].mean_out == 0.0);
    /* a pseudo-metric */
    for (int i = 0; i < 6; i++) {
        ck_assert(cs_graph_sig_distance(&s[i], &s[i]) == 0.0);
        for (int j = 0; j < 6; j++) {
            double dij = cs_graph_sig_distance(&s[i], &s[j]);
            ck_assert(dij >= 0.0 && isfinite(dij));
            ck_assert(dij == cs_graph_sig_distance(&s[j], &s[i]));
            for (int k = 0; k < 6; k++) {
                ck_assert(dij <= cs_graph_sig_distance(&s[i], &s[k]) +
                                     cs_graph_sig_distance(&s[k], &s[j]) + 1e-12);
            }
        }
    }
    /* what the selector relies on: another 2D torus of the same size is the nearest pattern */
    for (int j = 2; j < 6; j++) {
        ck_assert(cs_graph_sig_distance(&s[0], &s[1]) < cs_graph_sig_distance(&s[0], &s[j]));
    }
    ck_assert(cs_graph_sig_distance(&s[0], &s[1]) == 0.0); /* same numbers, other shape */
    for (int i = 0; i < 6; i++) {
        cs_graph_free(&g[i]);
    }
}
END_TEST

/* ---- colouring ---- */

/* Conflicts of e counted pair by pair. */
static int ref_conflict_degree(const cs_graph_t *g, int e) {
    int n = 0;
    for (int f = 0; f < g->nedges; f++) {
        n += f != e && (g->edges[f].src == g->edges[e].src || g->edges[f].dst == g->edges[e].dst);
    }
    return n;
}

/* Colours g and checks: proper (per colour, senders distinct and receivers distinct), every
 * colour below ncolours used, the Welsh-Powell order and bound, the degree lower bound.
 * Returns ncolours; *colour_out (if not NULL) receives the colours (caller frees). */
static int colour_checked(const cs_graph_t *g, int **colour_out) {
    int n = g->nedges, ncol = -1, max_out = 0, max_in = 0, wp = 0;
    int *colour = malloc(sizeof(int) * (size_t)(n + 1));
    int *order = malloc(sizeof(int) * (size_t)(n + 1));
    int *work = malloc(sizeof(int) * (size_t)cs_graph_colour_work(g));
    int *used_s, *used_r, *hits;
    cs_graph_colour(g, colour, &ncol, order, work);
    for (int r = 0; r < g->p; r++) {
        max_out = cs_graph_out_degree(g, r) > max_out ? cs_graph_out_degree(g, r) : max_out;
        max_in = cs_graph_in_degree(g, r) > max_in ? cs_graph_in_degree(g, r) : max_in;
    }
    used_s = calloc((size_t)g->p * (size_t)(ncol + 1), sizeof(int));
    used_r = calloc((size_t)g->p * (size_t)(ncol + 1), sizeof(int));
    hits = calloc((size_t)(ncol + 1), sizeof(int));
    for (int e = 0; e < n; e++) {
        const cs_graph_edge_t *x = &g->edges[e];
        EXPECT(colour[e] >= 0 && colour[e] < ncol, "edge %d colour %d of %d", e, colour[e], ncol);
        EXPECT(used_s[x->src * ncol + colour[e]]++ == 0, "%d sends twice in round %d", x->src,
               colour[e]);
        EXPECT(used_r[x->dst * ncol + colour[e]]++ == 0, "%d receives twice in round %d", x->dst,
               colour[e]);
        hits[colour[e]]++;
    }
    for (int c = 0; c < ncol; c++) {
        EXPECT(hits[c] > 0, "colour %d unused", c);
    }
    /* order: a permutation, by decreasing conflict degree; Welsh-Powell's bound */
    memset(hits, 0, sizeof(int) * (size_t)(ncol + 1));
    {
        int *seen = calloc((size_t)n + 1, sizeof(int));
        for (int i = 0; i < n; i++) {
            int d = ref_conflict_degree(g, order[i]);
            EXPECT(seen[order[i]]++ == 0, "edge %d twice in the order", order[i]);
            EXPECT(d == cs_graph_conflict_degree(g, order[i]), "conflict degree of %d", order[i]);
            EXPECT(i == 0 || d <= ref_conflict_degree(g, order[i - 1]),
                   "order not by decreasing degree at %d", i);
            int b = d + 1 < i + 1 ? d + 1 : i + 1;
            wp = b > wp ? b : wp;
        }
        free(seen);
    }
    EXPECT(ncol <= wp, "%d colours above Welsh-Powell's bound %d", ncol, wp);
    EXPECT(n == 0 || ncol <= max_out + max_in - 1, "%d colours, degrees %d/%d", ncol, max_out,
           max_in);
    EXPECT(ncol >= (max_out > max_in ? max_out : max_in), "%d colours below the degree", ncol);
    free(used_s);
    free(used_r);
    free(hits);
    free(order);
    free(work);
    if (colour_out != NULL) {
        *colour_out = colour;
    } else {
        free(colour);
    }
    return ncol;
}

static int max_degree(const cs_graph_t *g) {
    int d = 0;
    for (int r = 0; r < g->p; r++) {
        d = cs_graph_out_degree(g, r) > d ? cs_graph_out_degree(g, r) : d;
        d = cs_graph_in_degree(g, r) > d ? cs_graph_in_degree(g, r) : d;
    }
    return d;
}

START_TEST(test_colour_random) {
    int p = _i;
    static const double dens[] = {0.05, 0.1, 0.3, 0.6, 1.0};
    for (size_t i = 0; i < sizeof(dens) / sizeof(dens[0]); i++) {
        cs_graph_t g;
        ck_assert_int_eq(cs_graph_random(&g, p, dens[i], (uint64_t)p * 31 + i), CS_OK);
        colour_checked(&g, NULL);
        cs_graph_free(&g);
    }
    /* repeated edges and self-loops */
    for (unsigned seed = 1; seed <= 3; seed++) {
        lists_t l;
        cs_graph_t g;
        lists_random(&l, p, seed * 104729u + (unsigned)p);
        ck_assert_int_eq(cs_graph_from_lists(&g, p, l.dst_start, l.dst, l.src_start, l.src), CS_OK);
        colour_checked(&g, NULL);
        cs_graph_free(&g);
        lists_free(&l);
    }
}
END_TEST

START_TEST(test_colour_generators) {
    int dims2[][2] = {{1, 1}, {1, 2}, {2, 2}, {3, 3}, {2, 5}, {4, 4}, {8, 8}, {3, 7}};
    int dims3[][3] = {{1, 1, 2}, {2, 2, 2}, {2, 3, 4}, {3, 3, 3}, {4, 4, 4}};
    int periods[][3] = {{1, 1, 1}, {0, 0, 0}, {1, 0, 1}};
    for (size_t i = 0; i < sizeof(dims2) / sizeof(dims2[0]); i++) {
        for (size_t k = 0; k < 3; k++) {
            cs_graph_t g;
            ck_assert_int_eq(cs_graph_cart(&g, 2, dims2[i], periods[k]), CS_OK);
            colour_checked(&g, NULL);
            cs_graph_free(&g);
        }
        cs_graph_t g;
        ck_assert_int_eq(cs_graph_moore(&g, 2, dims2[i]), CS_OK);
        colour_checked(&g, NULL);
        cs_graph_free(&g);
    }
    for (size_t i = 0; i < sizeof(dims3) / sizeof(dims3[0]); i++) {
        for (size_t k = 0; k < 3; k++) {
            cs_graph_t g;
            ck_assert_int_eq(cs_graph_cart(&g, 3, dims3[i], periods[k]), CS_OK);
            colour_checked(&g, NULL);
            cs_graph_free(&g);
        }
        cs_graph_t g;
        ck_assert_int_eq(cs_graph_moore(&g, 3, dims3[i]), CS_OK);
        colour_checked(&g, NULL);
        cs_graph_free(&g);
    }
    for (int p = 1; p <= MAX_P; p++) {
        cs_graph_t g, t;
        ck_assert_int_eq(cs_graph_hotspot(&g, p), CS_OK);
        ck_assert_int_eq(cs_graph_transpose(&g, &t), CS_OK);
        colour_checked(&g, NULL);
        colour_checked(&t, NULL);
        cs_graph_free(&g);
        cs_graph_free(&t);
    }
}
END_TEST

/* The complete graph as "for (i = 0; i < p; ++i) send(i)" lists: destinations and sources
 * 0..p-1 on every rank, self included when `self`. */
static void complete(cs_graph_t *g, int p, int self) {
    int n = self ? p : p - 1, k = 0;
    int *start = malloc(sizeof(int) * ((size_t)p + 1));
    int *list = malloc(sizeof(int) * (size_t)(p * n + 1));
    for (int r = 0; r < p; r++) {
        start[r] = k;
        for (int i = 0; i < p; i++) {
            if (self || i != r) {
                list[k++] = i;
            }
        }
    }
    start[p] = k;
    ck_assert_int_eq(cs_graph_from_lists(g, p, start, list, start, list), CS_OK);
    free(start);
    free(list);
}

/* Paper section II-A3, figure 3: the alltoall "for (i = 0; i < p; ++i) send(i)" coloured
 * greedily becomes the ideal "for (i = 0; i < p; ++i) send((r + i) % p)": in round i rank r
 * sends to (r + i) mod p (without the self-message: round i sends to (r + i + 1) mod p). */
START_TEST(test_colour_alltoall_paper) {
    int p = _i;
    for (int self = 1; self >= 0; self--) {
        cs_graph_t g;
        int *colour, ncol;
        complete(&g, p, self);
        ncol = colour_checked(&g, &colour);
        ck_assert_int_eq(ncol, (self ? p : p - 1));
        for (int e = 0; e < g.nedges; e++) {
            int r = g.edges[e].src, v = g.edges[e].dst;
            int round = self ? colour[e] : colour[e] + 1;
            EXPECT(v == (r + round) % p, "p %d self %d: rank %d sends to %d in round %d", p, self,
                   r, v, colour[e]);
        }
        free(colour);
        cs_graph_free(&g);
    }
}
END_TEST

/* The paper's other examples: at most max degree + 1 colours (the target; the paper
 * gives no bound). Figure 1(a): 3x3 periodic Cartesian; 1(b): the pattern of a broadcast or
 * scatter from rank 0 on nine processes; 3: the alltoall (above); 4: the scatter hot spot. */
START_TEST(test_colour_paper_examples) {
    cs_graph_t g, h;
    int dims[] = {3, 3};
    int ds[10], d[8], ss[10], s[8];
    ck_assert_int_eq(cs_graph_cart(&g, 2, dims, NULL), CS_OK);
    ck_assert_int_le(colour_checked(&g, NULL), max_degree(&g) + 1);
    ck_assert_int_eq(max_degree(&g), 4);
    cs_graph_free(&g);
    /* the star: 0 sends to 1..8 */
    ds[0] = 0;
    ss[0] = 0;
    for (int r = 0; r < 9; r++) {
        ds[r + 1] = 8;
        ss[r + 1] = r;
    }
    for (int i = 0; i < 8; i++) {
        d[i] = i + 1;
        s[i] = 0;
    }
    ck_assert_int_eq(cs_graph_from_lists(&g, 9, ds, d, ss, s), CS_OK);
    ck_assert_int_eq(colour_checked(&g, NULL), 8);
    cs_graph_free(&g);
    for (int p = 2; p <= MAX_P; p++) {
        ck_assert_int_eq(cs_graph_hotspot(&h, p), CS_OK);
        ck_assert_int_eq(cs_graph_transpose(&h, &g), CS_OK);
        EXPECT(colour_checked(&g, NULL) <= max_degree(&g) + 1, "scatter hot spot p %d", p);
        EXPECT(colour_checked(&h, NULL) <= max_degree(&h) + 1, "hot spot p %d", p);
        cs_graph_free(&g);
        cs_graph_free(&h);
    }
}
END_TEST

START_TEST(test_colour_deterministic) {
    /* the same graph from permuted explicit edges colours the same */
    cs_graph_t a, b;
    cs_graph_edge_t *rev;
    int *ca, *cb;
    ck_assert_int_eq(cs_graph_random(&a, 40, 0.2, 99), CS_OK);
    rev = malloc(sizeof(*rev) * (size_t)a.nedges);
    for (int e = 0; e < a.nedges; e++) {
        rev[e] = a.edges[a.nedges - 1 - e];
    }
    ck_assert_int_eq(cs_graph_from_edges(&b, 40, a.nedges, rev, a.out_slots, a.in_slots), CS_OK);
    colour_checked(&a, &ca);
    colour_checked(&b, &cb);
    ck_assert_mem_eq(ca, cb, sizeof(int) * (size_t)a.nedges);
    free(ca);
    free(cb);
    free(rev);
    cs_graph_free(&a);
    cs_graph_free(&b);
    /* no edges: no colours */
    ck_assert_int_eq(cs_graph_random(&a, 5, 0.0, 1), CS_OK);
    ck_assert_int_eq(colour_checked(&a, NULL), 0);
    cs_graph_free(&a);
}
END_TEST

static Suite *graph_suite(void) {
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("lists");
    tcase_add_loop_test(tc, test_from_lists_round_trip, 1, MAX_P + 1);
    tcase_add_test(tc, test_from_lists_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("generators");
    tcase_add_test(tc, test_cart);
    tcase_add_test(tc, test_from_cart_lists);
    tcase_add_test(tc, test_moore);
    tcase_add_test(tc, test_random);
    tcase_add_loop_test(tc, test_hotspot, 1, MAX_P + 1);
    tcase_add_test(tc, test_signature);
    suite_add_tcase(s, tc);

    tc = tcase_create("colour");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_colour_random, 1, MAX_P + 1);
    tcase_add_test(tc, test_colour_generators);
    tcase_add_loop_test(tc, test_colour_alltoall_paper, 1, MAX_P + 1);
    tcase_add_test(tc, test_colour_paper_examples);
    tcase_add_test(tc, test_colour_deterministic);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(graph_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

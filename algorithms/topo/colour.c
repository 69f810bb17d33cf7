/* Greedy edge colouring in Welsh-Powell order (see graph.h). */
#include "graph.h"

#include <string.h>

static void max_degrees(const cs_graph_t *g, int *max_out, int *max_in) {
    *max_out = 0;
    *max_in = 0;
    for (int r = 0; r < g->p; r++) {
        int out = cs_graph_out_degree(g, r), in = cs_graph_in_degree(g, r);
        *max_out = out > *max_out ? out : *max_out;
        *max_in = in > *max_in ? in : *max_in;
    }
}

long cs_graph_colour_work(const cs_graph_t *g) {
    int max_out, max_in;
    long bound, counts;
    max_degrees(g, &max_out, &max_in);
    bound = (long)max_out + max_in + 1; /* colours and conflict degrees stay below this */
    counts = (g->p > bound ? g->p : bound) + 1;
    /* deg, order, tmp: nedges each; counting-sort counts; per-receiver counter; stamps */
    return 3L * g->nedges + counts + g->p + bound;
}

int cs_graph_conflict_degree(const cs_graph_t *g, int e) {
    const cs_graph_edge_t *x = &g->edges[e];
    int mult = 0;
    for (int f = g->out_start[x->src]; f < g->out_start[x->src + 1]; f++) {
        mult += g->edges[f].dst == x->dst;
    }
    return cs_graph_out_degree(g, x->src) + cs_graph_in_degree(g, x->dst) - 1 - mult;
}

/* Stable counting sort of in[0..n) into out by key[in[i]] in [0, nkeys), ascending, or
 * descending when `down`. count holds nkeys + 1 ints. */
static void counting_sort(const int *in, int *out, int n, const int *key, int nkeys, int down,
                          int *count) {
    memset(count, 0, sizeof(int) * ((size_t)nkeys + 1));
    for (int i = 0; i < n; i++) {
        int k = down ? nkeys - 1 - key[in[i]] : key[in[i]];
        count[k + 1]++;
    }
    for (int k = 0; k < nkeys; k++) {
        count[k + 1] += count[k];
    }
    for (int i = 0; i < n; i++) {
        int k = down ? nkeys - 1 - key[in[i]] : key[in[i]];
        out[count[k]++] = in[i];
    }
}

void cs_graph_colour(const cs_graph_t *g, int *colour, int *ncolours, int *order, int *work) {
    int max_out, max_in, bound, nkeys, ncol = 0;
    int n = g->nedges, p = g->p;
    int *deg, *ord, *tmp, *count, *cnt, *stamp;
    max_degrees(g, &max_out, &max_in);
    bound = max_out + max_in + 1;
    nkeys = p > bound ? p : bound;
    deg = work;
    ord = deg + n;
    tmp = ord + n;
    count = tmp + n;
    cnt = count + nkeys + 1;
    stamp = cnt + p;

    /* Conflict degrees: mult(u, v) counted per sender with one counter per receiver. */
    memset(cnt, 0, sizeof(int) * (size_t)p);
    for (int u = 0; u < p; u++) {
        int out = cs_graph_out_degree(g, u);
        for (int e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            cnt[g->edges[e].dst]++;
        }
        for (int e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            int v = g->edges[e].dst;
            deg[e] = out + cs_graph_in_degree(g, v) - 1 - cnt[v];
        }
        for (int e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            cnt[g->edges[e].dst] = 0;
        }
    }

    /* Welsh-Powell order: by decreasing conflict degree; ties by cyclic distance (v - u) mod p,
     * then by edge number. Two stable counting sorts of the edge numbers, the tie-break first
     * (colour[] holds the identity as the first input, tmp the distance keys). */
    for (int e = 0; e < n; e++) {
        tmp[e] = (g->edges[e].dst - g->edges[e].src + p) % p;
        colour[e] = e; /* identity, as the input of the first pass */
    }
    counting_sort(colour, ord, n, tmp, p, 0, count);
    counting_sort(ord, tmp, n, deg, bound, 1, count);
    memcpy(ord, tmp, sizeof(int) * (size_t)n);

    /* Greedy: the smallest colour that no coloured edge with the same sender or the same
     * receiver has. stamp[c] == i + 1 marks colour c as taken for the i-th edge. */
    for (int e = 0; e < n; e++) {
        colour[e] = -1;
    }
    memset(stamp, 0, sizeof(int) * (size_t)bound);
    for (int i = 0; i < n; i++) {
        int e = ord[i], c = 0;
        const cs_graph_edge_t *x = &g->edges[e];
        for (int f = g->out_start[x->src]; f < g->out_start[x->src + 1]; f++) {
            if (colour[f] >= 0) {
                stamp[colour[f]] = i + 1;
            }
        }
        for (int k = g->in_start[x->dst]; k < g->in_start[x->dst + 1]; k++) {
            int f = g->in_edge[k];
            if (colour[f] >= 0) {
                stamp[colour[f]] = i + 1;
            }
        }
        while (stamp[c] == i + 1) {
            c++;
        }
        colour[e] = c;
        ncol = c + 1 > ncol ? c + 1 : ncol;
    }
    if (order != NULL) {
        memcpy(order, ord, sizeof(int) * (size_t)n);
    }
    *ncolours = ncol;
}

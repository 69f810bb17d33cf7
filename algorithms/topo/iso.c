/* Isomorphic message combining: neighbourhoods and schedules (see iso.h). */
#include "iso.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- neighbourhoods ---- */

int cs_iso_nbh_init(cs_iso_nbh_t *n, int d, const int *dims, int s, const int *offsets) {
    int rc = CS_OK;
    long p = 1;
    memset(n, 0, sizeof(*n));
    CS_REQUIRE(d >= 1 && dims != NULL && s >= 0 && (s == 0 || offsets != NULL), CS_ERR_ARG);
    CS_REQUIRE((long)s * d <= INT_MAX, CS_ERR_ARG);
    for (int j = 0; j < d; j++) {
        CS_REQUIRE(dims[j] >= 1, CS_ERR_ARG);
        p *= dims[j];
        CS_REQUIRE(p <= INT_MAX, CS_ERR_ARG);
    }
    for (long k = 0; k < (long)s * d; k++) {
        CS_REQUIRE(offsets[k] >= -CS_ISO_MAX_OFFSET && offsets[k] <= CS_ISO_MAX_OFFSET, CS_ERR_ARG);
    }
    n->dims = malloc(sizeof(int) * (size_t)d);
    n->offsets = malloc(sizeof(int) * ((size_t)s * (size_t)d + 1));
    CS_REQUIRE(n->dims != NULL && n->offsets != NULL, CS_ERR_NOMEM);
    memcpy(n->dims, dims, sizeof(int) * (size_t)d);
    if (s > 0) {
        memcpy(n->offsets, offsets, sizeof(int) * (size_t)s * (size_t)d);
    }
    n->d = d;
    n->p = (int)p;
    n->s = s;
out:
    if (rc != CS_OK) {
        cs_iso_nbh_free(n);
    }
    return rc;
}

int cs_iso_nbh_moore(cs_iso_nbh_t *n, int d, const int *dims, int r) {
    int rc = CS_OK;
    long side = 2L * r + 1, total = 1;
    int *offsets = NULL, s = 0;
    memset(n, 0, sizeof(*n));
    CS_REQUIRE(d >= 1 && r >= 0 && r <= CS_ISO_MAX_OFFSET, CS_ERR_ARG);
    for (int j = 0; j < d; j++) {
        total *= side;
        CS_REQUIRE(total * d <= INT_MAX, CS_ERR_ARG);
    }
    offsets = malloc(sizeof(int) * (size_t)(total * d));
    CS_REQUIRE(offsets != NULL, CS_ERR_NOMEM);
    for (long k = 0; k < total; k++) {
        /* k in base side, dimension 0 most significant: row order */
        long rest = k;
        int zero = 1;
        for (int j = d - 1; j >= 0; j--) {
            int c = (int)(rest % side) - r;
            rest /= side;
            offsets[s * d + j] = c;
            zero &= c == 0;
        }
        if (!zero) {
            s++;
        }
    }
    CS_CHECK(cs_iso_nbh_init(n, d, dims, s, offsets));
out:
    free(offsets);
    return rc;
}

void cs_iso_nbh_free(cs_iso_nbh_t *n) {
    if (n != NULL) {
        free(n->dims);
        free(n->offsets);
        memset(n, 0, sizeof(*n));
    }
}

int cs_iso_shift(const cs_iso_nbh_t *n, int rank, const int *vec, int sign) {
    int result = 0, rest = rank, stride = 1;
    /* row-major: the last dimension varies fastest */
    for (int j = n->d - 1; j >= 0; j--) {
        int pj = n->dims[j];
        int x = rest % pj;
        long y = ((long)x + (long)sign * (vec[j] % pj)) % pj;
        rest /= pj;
        if (y < 0) {
            y += pj;
        }
        result += (int)y * stride;
        stride *= pj;
    }
    return result;
}

/* ---- schedule building ---- */

typedef struct builder {
    cs_iso_sched_t *s;
    int d;
    int rounds_cap, parts_cap, copies_cap;
    int nparts;
} builder_t;

static cs_iso_block_t blk(cs_iso_buf_t buf, int index) {
    cs_iso_block_t b = {(int)buf, index};
    return b;
}

/* The capacity to grow `cap` to so that it holds `need` elements. */
static int grown(int cap, int need) {
    while (cap < need) {
        cap = cap < 16 ? 16 : (cap > INT_MAX / 2 ? INT_MAX : cap * 2);
    }
    return cap;
}

/* Opens a round that sends to R + dist * e_dim (dim >= 0) or to R + vec (dim < 0). */
static int new_round(builder_t *b, int dim, int dist, const int *vec) {
    int rc = CS_OK;
    cs_iso_sched_t *s = b->s;
    CS_REQUIRE(s->nrounds < INT_MAX / 4, CS_ERR_ARG);
    if (s->nrounds + 1 >= b->rounds_cap) {
        int cap = b->rounds_cap < 16 ? 16 : b->rounds_cap * 2;
        int *off = realloc(s->offset, sizeof(int) * (size_t)cap * (size_t)b->d);
        int *start;
        CS_REQUIRE(off != NULL, CS_ERR_NOMEM);
        s->offset = off;
        start = realloc(s->part_start, sizeof(int) * ((size_t)cap + 1));
        CS_REQUIRE(start != NULL, CS_ERR_NOMEM);
        s->part_start = start;
        b->rounds_cap = cap;
    }
    for (int j = 0; j < b->d; j++) {
        s->offset[s->nrounds * b->d + j] = dim >= 0 ? (j == dim ? dist : 0) : vec[j];
    }
    s->part_start[s->nrounds] = b->nparts;
    s->nrounds++;
    s->part_start[s->nrounds] = b->nparts;
out:
    return rc;
}

/* Grows the two parallel arrays *a and *b (capacity *cap) to hold at least `need` entries. */
static int grow_pair(cs_iso_block_t **a, cs_iso_block_t **b, int *cap, int need) {
    int rc = CS_OK;
    if (need > *cap) {
        int want = grown(*cap, need);
        cs_iso_block_t *na = realloc(*a, sizeof(cs_iso_block_t) * (size_t)want);
        cs_iso_block_t *nb;
        CS_REQUIRE(na != NULL, CS_ERR_NOMEM);
        *a = na;
        nb = realloc(*b, sizeof(cs_iso_block_t) * (size_t)want);
        CS_REQUIRE(nb != NULL, CS_ERR_NOMEM);
        *b = nb;
        *cap = want;
    }
out:
    return rc;
}

/* Appends a part to the open round: `snd` is sent, received into `rcv`. */
static int add_part(builder_t *b, cs_iso_block_t snd, cs_iso_block_t rcv) {
    int rc = CS_OK;
    cs_iso_sched_t *s = b->s;
    CS_REQUIRE(b->nparts < INT_MAX, CS_ERR_ARG);
    CS_CHECK(grow_pair(&s->send, &s->recv, &b->parts_cap, b->nparts + 1));
    s->send[b->nparts] = snd;
    s->recv[b->nparts] = rcv;
    b->nparts++;
    s->part_start[s->nrounds] = b->nparts;
    if (rcv.buf == CS_ISO_BUF_INTER && rcv.index >= s->inter_blocks) {
        s->inter_blocks = rcv.index + 1;
    }
out:
    return rc;
}

/* Appends a local copy src -> dst, done after the last round. */
static int add_copy(builder_t *b, cs_iso_block_t src, cs_iso_block_t dst) {
    int rc = CS_OK;
    cs_iso_sched_t *s = b->s;
    CS_CHECK(grow_pair(&s->copy_src, &s->copy_dst, &b->copies_cap, s->ncopies + 1));
    s->copy_src[s->ncopies] = src;
    s->copy_dst[s->ncopies] = dst;
    s->ncopies++;
out:
    return rc;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The different non-zero values of dimension j over the offsets, increasing, into vals;
 * returns how many. `vals` holds s ints. */
static int distinct_nonzero(const cs_iso_nbh_t *n, int j, int *vals) {
    int m = 0, k = 0;
    for (int i = 0; i < n->s; i++) {
        if (n->offsets[i * n->d + j] != 0) {
            vals[m++] = n->offsets[i * n->d + j];
        }
    }
    qsort(vals, (size_t)m, sizeof(int), cmp_int);
    for (int i = 0; i < m; i++) {
        if (k == 0 || vals[k - 1] != vals[i]) {
            vals[k++] = vals[i];
        }
    }
    return k;
}

static int build_straightforward(builder_t *b, const cs_iso_nbh_t *n, cs_iso_coll_t coll) {
    int rc = CS_OK;
    for (int i = 0; i < n->s; i++) {
        CS_CHECK(new_round(b, -1, 0, &n->offsets[i * n->d]));
        CS_CHECK(add_part(b, blk(CS_ISO_BUF_SEND, coll == CS_ISO_ALLTOALL ? i : 0),
                          blk(CS_ISO_BUF_RECV, i)));
    }
out:
    return rc;
}

/* Alltoall, torus (algorithm 1, both directions) and direct: block i alternates between the
 * intermediate and the receive buffer so that it is received into its receive block on the
 * last of its hops[i] hops. */
static int build_alltoall(builder_t *b, const cs_iso_nbh_t *n, int direct) {
    int rc = CS_OK;
    int d = n->d, s = n->s;
    long *hops = calloc((size_t)s + 1, sizeof(long));
    cs_iso_block_t *cur = malloc(sizeof(cs_iso_block_t) * ((size_t)s + 1));
    int *vals = malloc(sizeof(int) * ((size_t)s + 1));
    CS_REQUIRE(hops != NULL && cur != NULL && vals != NULL, CS_ERR_NOMEM);
    for (int i = 0; i < s; i++) {
        for (int j = 0; j < d; j++) {
            int c = n->offsets[i * d + j];
            hops[i] += direct ? (c != 0) : abs(c);
        }
        cur[i] = blk(CS_ISO_BUF_SEND, i);
    }
    for (int j = 0; j < d; j++) {
        if (direct) {
            int nv = distinct_nonzero(n, j, vals);
            for (int v = 0; v < nv; v++) {
                CS_CHECK(new_round(b, j, vals[v], NULL));
                for (int i = 0; i < s; i++) {
                    if (n->offsets[i * d + j] == vals[v]) {
                        cs_iso_block_t to =
                            blk(hops[i] % 2 == 1 ? CS_ISO_BUF_RECV : CS_ISO_BUF_INTER, i);
                        CS_CHECK(add_part(b, cur[i], to));
                        cur[i] = to;
                        hops[i]--;
                    }
                }
            }
            continue;
        }
        for (int sign = 1; sign >= -1; sign -= 2) {
            int most = 0;
            for (int i = 0; i < s; i++) {
                int c = sign * n->offsets[i * d + j];
                most = c > most ? c : most;
            }
            for (int h = 0; h < most; h++) {
                CS_CHECK(new_round(b, j, sign, NULL));
                for (int i = 0; i < s; i++) {
                    if (sign * n->offsets[i * d + j] > h) {
                        cs_iso_block_t to =
                            blk(hops[i] % 2 == 1 ? CS_ISO_BUF_RECV : CS_ISO_BUF_INTER, i);
                        CS_CHECK(add_part(b, cur[i], to));
                        cur[i] = to;
                        hops[i]--;
                    }
                }
            }
        }
    }
    for (int i = 0; i < s; i++) {
        CS_REQUIRE(hops[i] == 0, CS_ERR_INTERNAL);
        if (cur[i].buf == CS_ISO_BUF_SEND) { /* the zero offset */
            CS_CHECK(add_copy(b, cur[i], blk(CS_ISO_BUF_RECV, i)));
        }
    }
out:
    free(hops);
    free(cur);
    free(vals);
    return rc;
}

/* ---- allgather: the prefix trie ---- */

/* A trie node at some level j: the offsets order[lo .. hi) share their first j coordinates;
 * `loc` is where this process holds the node's block once it has arrived. */
typedef struct node {
    int lo, hi;
    int value; /* the coordinate of the edge from the parent */
    cs_iso_block_t loc;
} node_t;

/* Lexicographic order of offsets, then index (stable merge sort: qsort has no context). */
static int lex_less(const cs_iso_nbh_t *n, int a, int b) {
    for (int j = 0; j < n->d; j++) {
        int x = n->offsets[a * n->d + j], y = n->offsets[b * n->d + j];
        if (x != y) {
            return x < y;
        }
    }
    return a < b;
}

static void lex_sort(const cs_iso_nbh_t *n, int *order, int *tmp) {
    int s = n->s;
    for (int i = 0; i < s; i++) {
        order[i] = i;
    }
    for (int width = 1; width < s; width *= 2) {
        for (int lo = 0; lo < s; lo += 2 * width) {
            int mid = lo + width < s ? lo + width : s;
            int hi = lo + 2 * width < s ? lo + 2 * width : s;
            int a = lo, c = mid, k = lo;
            while (a < mid || c < hi) {
                if (c >= hi || (a < mid && !lex_less(n, order[c], order[a]))) {
                    tmp[k++] = order[a++];
                } else {
                    tmp[k++] = order[c++];
                }
            }
        }
        memcpy(order, tmp, sizeof(int) * (size_t)s);
    }
}

/* Where the block of a node created at level j + 1 (by a non-zero move in dimension j) is
 * received: the receive block of the first of its offsets whose coordinates after j are all
 * zero (that neighbour's block is this one), or a new intermediate block. */
static cs_iso_block_t place(const cs_iso_nbh_t *n, const int *order, int lo, int hi, int j,
                            int *inter) {
    for (int k = lo; k < hi; k++) {
        int zero = 1;
        for (int jj = j + 1; jj < n->d && zero; jj++) {
            zero = n->offsets[order[k] * n->d + jj] == 0;
        }
        if (zero) {
            return blk(CS_ISO_BUF_RECV, order[k]);
        }
    }
    return blk(CS_ISO_BUF_INTER, (*inter)++);
}

static int build_allgather(builder_t *b, const cs_iso_nbh_t *n, int direct) {
    int rc = CS_OK;
    int d = n->d, s = n->s, inter = 0;
    int *order = malloc(sizeof(int) * ((size_t)s + 1));
    int *tmp = malloc(sizeof(int) * ((size_t)s + 1));
    int *vals = malloc(sizeof(int) * ((size_t)s + 1));
    /* nodes of the current level, their children (the next level), child ranges per node */
    node_t *cur = malloc(sizeof(node_t) * ((size_t)s + 1));
    node_t *next = malloc(sizeof(node_t) * ((size_t)s + 1));
    int *cstart = malloc(sizeof(int) * ((size_t)s + 2));
    int *cursor = malloc(sizeof(int) * ((size_t)s + 1));
    cs_iso_block_t *held = malloc(sizeof(cs_iso_block_t) * ((size_t)s + 1));
    int ncur = 0, nnext;
    CS_REQUIRE(order != NULL && tmp != NULL && vals != NULL && cur != NULL && next != NULL &&
                   cstart != NULL && cursor != NULL && held != NULL,
               CS_ERR_NOMEM);
    if (s == 0) {
        goto out;
    }
    lex_sort(n, order, tmp);
    cur[0] = (node_t){0, s, 0, blk(CS_ISO_BUF_SEND, 0)};
    ncur = 1;
    for (int j = 0; j < d; j++) {
        /* children of every node: split its range by coordinate j (increasing in lex order) */
        nnext = 0;
        for (int a = 0; a < ncur; a++) {
            cstart[a] = nnext;
            for (int k = cur[a].lo; k < cur[a].hi;) {
                int v = n->offsets[order[k] * d + j], e = k;
                while (e < cur[a].hi && n->offsets[order[e] * d + j] == v) {
                    e++;
                }
                next[nnext].lo = k;
                next[nnext].hi = e;
                next[nnext].value = v;
                next[nnext].loc = v == 0 ? cur[a].loc : place(n, order, k, e, j, &inter);
                nnext++;
                k = e;
            }
        }
        cstart[ncur] = nnext;
        if (direct) {
            int nv = distinct_nonzero(n, j, vals);
            for (int a = 0; a < ncur; a++) {
                cursor[a] = cstart[a];
            }
            for (int v = 0; v < nv; v++) {
                CS_CHECK(new_round(b, j, vals[v], NULL));
                for (int a = 0; a < ncur; a++) {
                    while (cursor[a] < cstart[a + 1] && next[cursor[a]].value < vals[v]) {
                        cursor[a]++;
                    }
                    if (cursor[a] < cstart[a + 1] && next[cursor[a]].value == vals[v]) {
                        CS_CHECK(add_part(b, cur[a].loc, next[cursor[a]].loc));
                    }
                }
            }
        } else {
            for (int sign = 1; sign >= -1; sign -= 2) {
                int most = 0;
                for (int a = 0; a < ncur; a++) {
                    /* children are increasing: the farthest one is first or last */
                    int far = sign > 0 ? next[cstart[a + 1] - 1].value : -next[cstart[a]].value;
                    most = far > most ? far : most;
                    held[a] = cur[a].loc;
                    cursor[a] = sign > 0 ? cstart[a] : cstart[a + 1] - 1;
                }
                for (int h = 0; h < most; h++) {
                    CS_CHECK(new_round(b, j, sign, NULL));
                    for (int a = 0; a < ncur; a++) {
                        int far = sign > 0 ? next[cstart[a + 1] - 1].value : -next[cstart[a]].value;
                        cs_iso_block_t to;
                        if (far <= h) {
                            continue;
                        }
                        /* the block after h + 1 hops: the child with value sign * (h + 1), or
                         * a transit block that is only passed on */
                        while (sign * next[cursor[a]].value < h + 1) {
                            cursor[a] += sign;
                        }
                        if (next[cursor[a]].value == sign * (h + 1)) {
                            to = next[cursor[a]].loc;
                        } else {
                            to = blk(CS_ISO_BUF_INTER, inter++);
                        }
                        CS_CHECK(add_part(b, held[a], to));
                        held[a] = to;
                    }
                }
            }
        }
        memcpy(cur, next, sizeof(node_t) * (size_t)nnext);
        ncur = nnext;
    }
    /* leaves: repeated offsets and the zero offset are copied into place */
    for (int a = 0; a < ncur; a++) {
        for (int k = cur[a].lo; k < cur[a].hi; k++) {
            cs_iso_block_t to = blk(CS_ISO_BUF_RECV, order[k]);
            if (cur[a].loc.buf != to.buf || cur[a].loc.index != to.index) {
                CS_CHECK(add_copy(b, cur[a].loc, to));
            }
        }
    }
out:
    free(order);
    free(tmp);
    free(vals);
    free(cur);
    free(next);
    free(cstart);
    free(cursor);
    free(held);
    return rc;
}

int cs_iso_build(const cs_iso_nbh_t *n, cs_iso_coll_t coll, cs_iso_kind_t kind,
                 cs_iso_sched_t *out) {
    int rc = CS_OK;
    builder_t b = {out, n != NULL ? n->d : 0, 0, 0, 0, 0};
    memset(out, 0, sizeof(*out));
    CS_REQUIRE(n != NULL && n->d >= 1, CS_ERR_ARG);
    CS_REQUIRE(coll == CS_ISO_ALLTOALL || coll == CS_ISO_ALLGATHER, CS_ERR_ARG);
    CS_REQUIRE(kind == CS_ISO_STRAIGHTFORWARD || kind == CS_ISO_TORUS || kind == CS_ISO_DIRECT,
               CS_ERR_ARG);
    out->coll = coll;
    out->kind = kind;
    out->d = n->d;
    out->s = n->s;
    out->part_start = malloc(sizeof(int));
    CS_REQUIRE(out->part_start != NULL, CS_ERR_NOMEM);
    out->part_start[0] = 0;
    b.rounds_cap = 0; /* part_start has room for round 0's start only */
    if (kind == CS_ISO_STRAIGHTFORWARD) {
        CS_CHECK(build_straightforward(&b, n, coll));
    } else if (coll == CS_ISO_ALLTOALL) {
        CS_CHECK(build_alltoall(&b, n, kind == CS_ISO_DIRECT));
    } else {
        CS_CHECK(build_allgather(&b, n, kind == CS_ISO_DIRECT));
    }
out:
    if (rc != CS_OK) {
        cs_iso_sched_free(out);
    }
    return rc;
}

void cs_iso_sched_free(cs_iso_sched_t *s) {
    if (s != NULL) {
        free(s->offset);
        free(s->part_start);
        free(s->send);
        free(s->recv);
        free(s->copy_src);
        free(s->copy_dst);
        memset(s, 0, sizeof(*s));
    }
}

int cs_iso_rounds(const cs_iso_sched_t *s) {
    return s->nrounds;
}

long cs_iso_volume(const cs_iso_sched_t *s) {
    return s->part_start != NULL ? (long)s->part_start[s->nrounds] : 0;
}

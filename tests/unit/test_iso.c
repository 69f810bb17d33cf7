/* Unit tests for algorithms/topo/iso.[ch]: isomorphic neighbourhoods and the straightforward,
 * torus and direct message-combining schedules of alltoall and allgather. No MPI.
 *
 * Three independent checks of every schedule:
 *   - D and V against the paper's formulas, written here from the offsets the slow obvious way
 *     (closed forms on Moore neighbourhoods, brute force over prefixes for the trie);
 *   - a symbolic run on one process: every block carries its identity (block index and
 *     relative origin, unreduced), so "delivered exactly once" means the same whatever the
 *     torus: every receive block i gets the identity of neighbour i exactly once and keeps it,
 *     no block is sent before it holds something, no round receives into a block it sends,
 *     and (torus and direct) no process receives the same identity twice, so V counts
 *     different blocks;
 *   - a run of all p processes of a concrete torus, every torus shape of several p up to 64,
 *     with peers from cs_iso_shift: offsets that wrap, a process that is its own neighbour. */
#include "topo/iso.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* Assertion for hot loops (see test_topo.c). */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ck_abort_msg(__VA_ARGS__);                                                             \
        }                                                                                          \
    } while (0)

static const cs_iso_coll_t colls[] = {CS_ISO_ALLTOALL, CS_ISO_ALLGATHER};
static const cs_iso_kind_t kinds[] = {CS_ISO_STRAIGHTFORWARD, CS_ISO_TORUS, CS_ISO_DIRECT};
static const char *const kind_names[] = {"straightforward", "torus", "direct"};

/* ---- neighbourhoods used below ---- */

static void ones(int *dims, int d, int v) {
    for (int j = 0; j < d; j++) {
        dims[j] = v;
    }
}

/* The positive octant of radius r (the paper's asymmetric neighbourhood): [0, r]^d minus 0. */
static void octant(cs_iso_nbh_t *n, int d, const int *dims, int r) {
    int side = r + 1, total = 1, s = 0;
    int *off;
    for (int j = 0; j < d; j++) {
        total *= side;
    }
    off = malloc(sizeof(int) * (size_t)(total * d));
    for (int k = 1; k < total; k++) {
        int rest = k;
        for (int j = d - 1; j >= 0; j--) {
            off[s * d + j] = rest % side;
            rest /= side;
        }
        s++;
    }
    ck_assert_int_eq(cs_iso_nbh_init(n, d, dims, s, off), CS_OK);
    free(off);
}

/* 14 offsets with coordinates in [-5, 5], drawn by an LCG, then the zero offset twice and
 * repeats of earlier offsets (one of them adjacent), in a fixed scrambled order. */
static void repeated(cs_iso_nbh_t *n, int d, const int *dims, unsigned seed) {
    enum { S = 20 };
    int off[S * 5];
    for (int i = 0; i < 14; i++) {
        for (int j = 0; j < d; j++) {
            seed = seed * 1103515245u + 12345u;
            off[i * d + j] = (int)((seed >> 16) % 11) - 5;
        }
    }
    for (int j = 0; j < d; j++) {
        off[14 * d + j] = 0;
        off[15 * d + j] = off[3 * d + j];
        off[16 * d + j] = off[3 * d + j];
        off[17 * d + j] = 0;
        off[18 * d + j] = j == 0 ? 1 : 0;
        off[19 * d + j] = j == 0 ? 1 : 0;
    }
    ck_assert_int_eq(cs_iso_nbh_init(n, d, dims, S, off), CS_OK);
}

/* von Neumann: -e_j, +e_j for every j. */
static void von_neumann(cs_iso_nbh_t *n, int d, const int *dims) {
    int off[10 * 5] = {0};
    for (int j = 0; j < d; j++) {
        off[(2 * j) * d + j] = -1;
        off[(2 * j + 1) * d + j] = 1;
    }
    ck_assert_int_eq(cs_iso_nbh_init(n, d, dims, 2 * d, off), CS_OK);
}

/* ---- the paper's formulas, from the offsets ---- */

static int c_of(const cs_iso_nbh_t *n, int i, int j) {
    return n->offsets[i * n->d + j];
}

static long ref_rounds(const cs_iso_nbh_t *n, cs_iso_kind_t kind) {
    long D = 0;
    if (kind == CS_ISO_STRAIGHTFORWARD) {
        return n->s;
    }
    for (int j = 0; j < n->d; j++) {
        int pos = 0, neg = 0;
        for (int i = 0; i < n->s; i++) {
            int c = c_of(n, i, j), seen = 0;
            pos = c > pos ? c : pos;
            neg = -c > neg ? -c : neg;
            for (int k = 0; k < i && !seen; k++) {
                seen = c_of(n, k, j) == c;
            }
            if (kind == CS_ISO_DIRECT && c != 0 && !seen) {
                D++; /* a different non-zero coordinate value */
            }
        }
        if (kind == CS_ISO_TORUS) {
            D += pos + neg;
        }
    }
    return D;
}

static int same_prefix(const cs_iso_nbh_t *n, int a, int b, int len) {
    for (int j = 0; j < len; j++) {
        if (c_of(n, a, j) != c_of(n, b, j)) {
            return 0;
        }
    }
    return 1;
}

static long ref_volume(const cs_iso_nbh_t *n, cs_iso_coll_t coll, cs_iso_kind_t kind) {
    long V = 0;
    if (kind == CS_ISO_STRAIGHTFORWARD) {
        return n->s;
    }
    if (coll == CS_ISO_ALLTOALL) {
        /* proposition 1: sum of |C^i|_1; direct: sum of non-zero coordinates */
        for (int i = 0; i < n->s; i++) {
            for (int j = 0; j < n->d; j++) {
                int c = c_of(n, i, j);
                V += kind == CS_ISO_TORUS ? labs(c) : (c != 0);
            }
        }
        return V;
    }
    /* allgather: every trie node (a different prefix of length j) sends its block as far as
     * its farthest child each way (torus), or once per different non-zero child (direct) */
    for (int j = 0; j < n->d; j++) {
        for (int i = 0; i < n->s; i++) {
            int first = 1, pos = 0, neg = 0;
            for (int k = 0; k < i && first; k++) {
                first = !same_prefix(n, k, i, j);
            }
            if (!first) {
                continue;
            }
            for (int k = 0; k < n->s; k++) {
                int c = c_of(n, k, j), again = 0;
                if (!same_prefix(n, k, i, j)) {
                    continue;
                }
                pos = c > pos ? c : pos;
                neg = -c > neg ? -c : neg;
                for (int m = 0; m < k && !again; m++) {
                    again = same_prefix(n, m, i, j) && c_of(n, m, j) == c;
                }
                if (kind == CS_ISO_DIRECT && c != 0 && !again) {
                    V++;
                }
            }
            if (kind == CS_ISO_TORUS) {
                V += pos + neg;
            }
        }
    }
    return V;
}

/* ---- symbolic run on one process ---- */

typedef struct ident {
    int block; /* alltoall: the sender's block index; allgather: 0 */
    int rel[5];
} ident_t;

static int ident_cmp(const void *a, const void *b) {
    return memcmp(a, b, sizeof(ident_t));
}

static int block_ok(const cs_iso_sched_t *sc, cs_iso_block_t b) {
    int nsend = sc->coll == CS_ISO_ALLTOALL ? sc->s : 1;
    switch (b.buf) {
    case CS_ISO_BUF_SEND:
        return b.index >= 0 && b.index < nsend;
    case CS_ISO_BUF_RECV:
        return b.index >= 0 && b.index < sc->s;
    case CS_ISO_BUF_INTER:
        return b.index >= 0 && b.index < sc->inter_blocks;
    default:
        return 0;
    }
}

/* Index of block b in one array of all three buffers. */
static int slot_of(const cs_iso_sched_t *sc, cs_iso_block_t b) {
    int nsend = sc->coll == CS_ISO_ALLTOALL ? sc->s : 1;
    return b.buf == CS_ISO_BUF_SEND   ? b.index
           : b.buf == CS_ISO_BUF_RECV ? nsend + b.index
                                      : nsend + sc->s + b.index;
}

static void symbolic_run(const cs_iso_nbh_t *n, const cs_iso_sched_t *sc) {
    int d = n->d, s = n->s, nsend = sc->coll == CS_ISO_ALLTOALL ? s : 1;
    int nslots = nsend + s + sc->inter_blocks;
    long V = cs_iso_volume(sc), nrecv = 0;
    ident_t *slot = calloc((size_t)nslots + 1, sizeof(ident_t));
    int *valid = calloc((size_t)nslots + 1, sizeof(int));
    int *stamp = calloc((size_t)nslots + 1, sizeof(int)); /* round + 1 that sends / receives */
    int *rstamp = calloc((size_t)nslots + 1, sizeof(int));
    int *exact = calloc((size_t)s + 1, sizeof(int));
    ident_t *msg = calloc((size_t)V + 1, sizeof(ident_t));
    ident_t *seen = calloc((size_t)V + 1, sizeof(ident_t));
    ident_t want;
    EXPECT(d <= 5, "test supports d <= 5");
    EXPECT(sc->d == d && sc->s == s, "schedule of another neighbourhood");
    for (int i = 0; i < nsend; i++) {
        slot[i].block = sc->coll == CS_ISO_ALLTOALL ? i : 0;
        valid[i] = 1;
    }
    for (int r = 0; r < sc->nrounds; r++) {
        int lo = sc->part_start[r], hi = sc->part_start[r + 1];
        EXPECT(hi > lo, "%s: round %d sends nothing", kind_names[sc->kind], r);
        for (int k = lo; k < hi; k++) {
            int at;
            EXPECT(block_ok(sc, sc->send[k]) && block_ok(sc, sc->recv[k]),
                   "round %d part %d: block out of range", r, k);
            EXPECT(sc->recv[k].buf != CS_ISO_BUF_SEND, "round %d: receives into the send buffer",
                   r);
            at = slot_of(sc, sc->send[k]);
            EXPECT(valid[at], "%s round %d: sends a block that holds nothing", kind_names[sc->kind],
                   r);
            msg[k - lo] = slot[at];
            stamp[at] = r + 1;
        }
        for (int k = lo; k < hi; k++) {
            int at = slot_of(sc, sc->recv[k]);
            EXPECT(stamp[at] != r + 1, "%s round %d: receives into a block it sends",
                   kind_names[sc->kind], r);
            EXPECT(rstamp[at] != r + 1, "round %d: a block received twice", r);
            rstamp[at] = r + 1;
            slot[at] = msg[k - lo];
            for (int j = 0; j < d; j++) { /* it comes from R - offset */
                slot[at].rel[j] -= sc->offset[r * d + j];
            }
            valid[at] = 1;
            seen[nrecv++] = slot[at];
            if (sc->recv[k].buf == CS_ISO_BUF_RECV) {
                int i = sc->recv[k].index;
                memset(&want, 0, sizeof(want));
                want.block = sc->coll == CS_ISO_ALLTOALL ? i : 0;
                for (int j = 0; j < d; j++) {
                    want.rel[j] = -c_of(n, i, j);
                }
                exact[i] += memcmp(&want, &slot[at], sizeof(want)) == 0;
            }
        }
    }
    for (int c = 0; c < sc->ncopies; c++) {
        int from = slot_of(sc, sc->copy_src[c]), to = slot_of(sc, sc->copy_dst[c]);
        EXPECT(block_ok(sc, sc->copy_src[c]) && block_ok(sc, sc->copy_dst[c]) &&
                   sc->copy_dst[c].buf == CS_ISO_BUF_RECV && valid[from],
               "copy %d: bad blocks", c);
        slot[to] = slot[from];
        valid[to] = 1;
        exact[sc->copy_dst[c].index]++;
    }
    EXPECT(nrecv == V, "volume %ld, received %ld", V, nrecv);
    for (int i = 0; i < s; i++) {
        int at = nsend + i;
        memset(&want, 0, sizeof(want));
        want.block = sc->coll == CS_ISO_ALLTOALL ? i : 0;
        for (int j = 0; j < d; j++) {
            want.rel[j] = -c_of(n, i, j);
        }
        EXPECT(valid[at] && memcmp(&want, &slot[at], sizeof(want)) == 0,
               "%s %s: receive block %d wrong",
               sc->coll == CS_ISO_ALLTOALL ? "alltoall" : "allgather", kind_names[sc->kind], i);
        EXPECT(exact[i] == 1, "%s: receive block %d delivered %d times", kind_names[sc->kind], i,
               exact[i]);
    }
    if (sc->kind != CS_ISO_STRAIGHTFORWARD) {
        qsort(seen, (size_t)nrecv, sizeof(ident_t), ident_cmp);
        for (long k = 1; k < nrecv; k++) {
            EXPECT(ident_cmp(&seen[k - 1], &seen[k]) != 0, "%s: a block received twice",
                   kind_names[sc->kind]);
        }
    }
    free(slot);
    free(valid);
    free(stamp);
    free(rstamp);
    free(exact);
    free(msg);
    free(seen);
}

/* Builds every schedule of n, checks D and V against the formulas (and against `D_want`,
 * `V_want` [coll][kind] when not NULL: the closed forms) and runs it symbolically. */
static void check_all(const cs_iso_nbh_t *n, const long D_want[3], const long V_want[2][3],
                      int brute) {
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            cs_iso_sched_t sc;
            ck_assert_int_eq(cs_iso_build(n, colls[a], kinds[b], &sc), CS_OK);
            if (D_want != NULL) {
                ck_assert_int_eq(cs_iso_rounds(&sc), D_want[b]);
                ck_assert_int_eq(cs_iso_volume(&sc), V_want[a][b]);
            }
            if (brute) {
                ck_assert_int_eq(cs_iso_rounds(&sc), ref_rounds(n, kinds[b]));
                ck_assert_int_eq(cs_iso_volume(&sc), ref_volume(n, colls[a], kinds[b]));
            }
            symbolic_run(n, &sc);
            cs_iso_sched_free(&sc);
        }
    }
}

/* ---- tests ---- */

START_TEST(test_moore_formulas) {
    /* Moore, d = 2..5, r = 1..3 (the paper's section 4: s = (2r+1)^d - 1, D = 2rd) */
    int dims[5];
    for (int d = 2; d <= 5; d++) {
        for (int r = 1; r <= 3; r++) {
            cs_iso_nbh_t n;
            long side = 2 * r + 1, pow_d1 = 1, s;
            long D[3], V[2][3];
            for (int j = 0; j < d - 1; j++) {
                pow_d1 *= side;
            }
            s = pow_d1 * side - 1;
            ones(dims, d, 4);
            ck_assert_int_eq(cs_iso_nbh_moore(&n, d, dims, r), CS_OK);
            ck_assert_int_eq(n.s, s);
            D[0] = s;
            D[1] = 2L * r * d;
            D[2] = 2L * r * d;
            V[0][0] = V[1][0] = s;
            /* sum of |c_j| over [-r, r]^d: d * (2r+1)^(d-1) * r(r+1) */
            V[0][1] = d * pow_d1 * r * (r + 1);
            /* non-zero coordinates: d * (2r+1)^(d-1) * 2r */
            V[0][2] = d * pow_d1 * 2 * r;
            /* allgather: every block received once, V = s */
            V[1][1] = V[1][2] = s;
            check_all(&n, D, V, s <= 400);
            cs_iso_nbh_free(&n);
        }
    }
}
END_TEST

START_TEST(test_asymmetric_and_repeated) {
    int dims[5];
    for (int d = 1; d <= 5; d++) {
        cs_iso_nbh_t n;
        long side = 4, pow_d1 = 1, s;
        long D[3], V[2][3];
        for (int j = 0; j < d - 1; j++) {
            pow_d1 *= side;
        }
        s = pow_d1 * side - 1;
        ones(dims, d, 3);
        /* positive octant r = 3 (d = 3: the paper's 63 neighbours): D = 3d both ways */
        octant(&n, d, dims, 3);
        ck_assert_int_eq(n.s, s);
        D[0] = s;
        D[1] = D[2] = 3L * d;
        V[0][0] = V[1][0] = s;
        V[0][1] = d * pow_d1 * 6; /* 0 + 1 + 2 + 3 per coordinate */
        V[0][2] = d * pow_d1 * 3;
        V[1][1] = V[1][2] = s;
        check_all(&n, D, V, s <= 400);
        cs_iso_nbh_free(&n);

        for (unsigned seed = 1; seed <= 20; seed++) {
            repeated(&n, d, dims, seed);
            check_all(&n, NULL, NULL, 1);
            cs_iso_nbh_free(&n);
        }
        von_neumann(&n, d, dims);
        check_all(&n, NULL, NULL, 1);
        cs_iso_nbh_free(&n);
    }
}
END_TEST

START_TEST(test_small_tori) {
    /* The schedule depends on the offsets only: tori smaller than the offsets (1x1, 2x2, where
     * every offset wraps, and the process is its own neighbour) get the same D, V and parts. */
    int big[3] = {16, 16, 16}, tiny[3] = {1, 1, 1}, two[3] = {2, 2, 1};
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            cs_iso_nbh_t n1, n2, n3;
            cs_iso_sched_t s1, s2, s3;
            octant(&n1, 3, big, 3);
            octant(&n2, 3, tiny, 3);
            octant(&n3, 3, two, 3);
            ck_assert_int_eq(cs_iso_build(&n1, colls[a], kinds[b], &s1), CS_OK);
            ck_assert_int_eq(cs_iso_build(&n2, colls[a], kinds[b], &s2), CS_OK);
            ck_assert_int_eq(cs_iso_build(&n3, colls[a], kinds[b], &s3), CS_OK);
            ck_assert_int_eq(s1.nrounds, s2.nrounds);
            ck_assert_int_eq(s1.nrounds, s3.nrounds);
            ck_assert_int_eq(cs_iso_volume(&s1), cs_iso_volume(&s2));
            ck_assert_int_eq(cs_iso_volume(&s1), cs_iso_volume(&s3));
            ck_assert_int_eq(cs_iso_volume(&s1), ref_volume(&n2, colls[a], kinds[b]));
            ck_assert(memcmp(s1.send, s2.send, sizeof(cs_iso_block_t) * cs_iso_volume(&s1)) == 0);
            ck_assert(memcmp(s1.recv, s3.recv, sizeof(cs_iso_block_t) * cs_iso_volume(&s1)) == 0);
            cs_iso_sched_free(&s1);
            cs_iso_sched_free(&s2);
            cs_iso_sched_free(&s3);
            cs_iso_nbh_free(&n1);
            cs_iso_nbh_free(&n2);
            cs_iso_nbh_free(&n3);
        }
    }
}
END_TEST

START_TEST(test_empty_and_self) {
    int dims[2] = {3, 3}, zero[4] = {0, 0, 0, 0}, line[6] = {4, 0, -7, 0, 4, 0};
    cs_iso_nbh_t n;
    /* s = 0: nothing to do */
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, dims, 0, NULL), CS_OK);
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            cs_iso_sched_t sc;
            ck_assert_int_eq(cs_iso_build(&n, colls[a], kinds[b], &sc), CS_OK);
            ck_assert_int_eq(cs_iso_rounds(&sc), 0);
            ck_assert_int_eq(cs_iso_volume(&sc), 0);
            ck_assert_int_eq(sc.ncopies, 0);
            cs_iso_sched_free(&sc);
        }
    }
    cs_iso_nbh_free(&n);
    /* only the zero offset, twice: no communication but straightforward's, two copies */
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, dims, 2, zero), CS_OK);
    for (int a = 0; a < 2; a++) {
        for (int b = 1; b < 3; b++) {
            cs_iso_sched_t sc;
            ck_assert_int_eq(cs_iso_build(&n, colls[a], kinds[b], &sc), CS_OK);
            ck_assert_int_eq(cs_iso_rounds(&sc), 0);
            ck_assert_int_eq(sc.ncopies, 2);
            symbolic_run(&n, &sc);
            cs_iso_sched_free(&sc);
        }
    }
    check_all(&n, NULL, NULL, 1);
    cs_iso_nbh_free(&n);
    /* a line: torus allgather sends the block 4 hops + and 7 hops -, dropping it at 4 */
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, dims, 3, line), CS_OK);
    {
        cs_iso_sched_t sc;
        ck_assert_int_eq(cs_iso_build(&n, CS_ISO_ALLGATHER, CS_ISO_TORUS, &sc), CS_OK);
        ck_assert_int_eq(cs_iso_rounds(&sc), 11);
        ck_assert_int_eq(cs_iso_volume(&sc), 11);
        ck_assert_int_eq(sc.ncopies, 1); /* the repeated (4, 0) */
        cs_iso_sched_free(&sc);
        ck_assert_int_eq(cs_iso_build(&n, CS_ISO_ALLTOALL, CS_ISO_TORUS, &sc), CS_OK);
        ck_assert_int_eq(cs_iso_rounds(&sc), 11);
        ck_assert_int_eq(cs_iso_volume(&sc), 15);
        cs_iso_sched_free(&sc);
        ck_assert_int_eq(cs_iso_build(&n, CS_ISO_ALLTOALL, CS_ISO_DIRECT, &sc), CS_OK);
        ck_assert_int_eq(cs_iso_rounds(&sc), 2);
        ck_assert_int_eq(cs_iso_volume(&sc), 3);
        cs_iso_sched_free(&sc);
        ck_assert_int_eq(cs_iso_build(&n, CS_ISO_ALLGATHER, CS_ISO_DIRECT, &sc), CS_OK);
        ck_assert_int_eq(cs_iso_rounds(&sc), 2);
        ck_assert_int_eq(cs_iso_volume(&sc), 2);
        cs_iso_sched_free(&sc);
    }
    check_all(&n, NULL, NULL, 1);
    cs_iso_nbh_free(&n);
}
END_TEST

START_TEST(test_errors) {
    int dims[2] = {2, 2}, bad[2] = {2, 0}, off[2] = {1, 1}, far[2] = {CS_ISO_MAX_OFFSET + 1, 0};
    int huge[2] = {1 << 16, 1 << 16};
    cs_iso_nbh_t n;
    cs_iso_sched_t sc;
    ck_assert_int_eq(cs_iso_nbh_init(&n, 0, dims, 1, off), CS_ERR_ARG);
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, bad, 1, off), CS_ERR_ARG);
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, huge, 1, off), CS_ERR_ARG);
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, dims, -1, off), CS_ERR_ARG);
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, dims, 1, NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, dims, 1, far), CS_ERR_ARG);
    ck_assert_ptr_null(n.dims);
    ck_assert_int_eq(cs_iso_nbh_moore(&n, 2, dims, -1), CS_ERR_ARG);
    ck_assert_int_eq(cs_iso_nbh_init(&n, 2, dims, 1, off), CS_OK);
    ck_assert_int_eq(cs_iso_build(&n, (cs_iso_coll_t)7, CS_ISO_TORUS, &sc), CS_ERR_ARG);
    ck_assert_int_eq(cs_iso_build(&n, CS_ISO_ALLTOALL, (cs_iso_kind_t)7, &sc), CS_ERR_ARG);
    ck_assert_ptr_null(sc.part_start);
    cs_iso_sched_free(&sc);
    cs_iso_nbh_free(&n);
    cs_iso_nbh_free(&n);
}
END_TEST

START_TEST(test_shift) {
    /* against coordinates: row-major, last dimension fastest, as MPI_Cart_create */
    int dims[3] = {3, 1, 4}, vec[3] = {-7, 5, 9};
    cs_iso_nbh_t n;
    ck_assert_int_eq(cs_iso_nbh_init(&n, 3, dims, 0, NULL), CS_OK);
    ck_assert_int_eq(n.p, 12);
    for (int r = 0; r < 12; r++) {
        int x = r / 4, z = r % 4;
        int xp = ((x - 7) % 3 + 3) % 3, zp = (z + 9) % 4;
        int xm = ((x + 7) % 3 + 3) % 3, zm = ((z - 9) % 4 + 4) % 4;
        ck_assert_int_eq(cs_iso_shift(&n, r, vec, 1), xp * 4 + zp);
        ck_assert_int_eq(cs_iso_shift(&n, r, vec, -1), xm * 4 + zm);
    }
    cs_iso_nbh_free(&n);
}
END_TEST

/* ---- all p processes of a concrete torus ---- */

static void torus_run(const cs_iso_nbh_t *n, const cs_iso_sched_t *sc) {
    int p = n->p, s = n->s, nsend = sc->coll == CS_ISO_ALLTOALL ? s : 1;
    int nslots = nsend + s + sc->inter_blocks;
    long V = cs_iso_volume(sc);
    long *mem = malloc(sizeof(long) * (size_t)p * (size_t)nslots + 1);
    long *msg = malloc(sizeof(long) * ((size_t)p * (size_t)(V > 0 ? V : 1)));
    for (int x = 0; x < p; x++) {
        long *m = &mem[(long)x * nslots];
        for (int k = 0; k < nslots; k++) {
            m[k] = -1;
        }
        for (int i = 0; i < nsend; i++) {
            m[i] = (long)x * (s + 1) + i;
        }
    }
    for (int r = 0; r < sc->nrounds; r++) {
        int lo = sc->part_start[r], hi = sc->part_start[r + 1];
        for (int x = 0; x < p; x++) {
            for (int k = lo; k < hi; k++) {
                long v = mem[(long)x * nslots + slot_of(sc, sc->send[k])];
                EXPECT(v >= 0, "round %d: rank %d sends an empty block", r, x);
                msg[(long)x * V + k] = v;
            }
        }
        for (int x = 0; x < p; x++) {
            int from = cs_iso_shift(n, x, &sc->offset[r * n->d], -1);
            for (int k = lo; k < hi; k++) {
                mem[(long)x * nslots + slot_of(sc, sc->recv[k])] = msg[(long)from * V + k];
            }
        }
    }
    for (int x = 0; x < p; x++) {
        long *m = &mem[(long)x * nslots];
        for (int c = 0; c < sc->ncopies; c++) {
            m[slot_of(sc, sc->copy_dst[c])] = m[slot_of(sc, sc->copy_src[c])];
        }
        for (int i = 0; i < s; i++) {
            int from = cs_iso_shift(n, x, &n->offsets[i * n->d], -1);
            long want = (long)from * (s + 1) + (sc->coll == CS_ISO_ALLTOALL ? i : 0);
            EXPECT(m[nsend + i] == want, "%s %s p=%d rank %d: block %d is %ld, not %ld",
                   sc->coll == CS_ISO_ALLTOALL ? "alltoall" : "allgather", kind_names[sc->kind], p,
                   x, i, m[nsend + i], want);
        }
    }
    free(mem);
    free(msg);
}

/* Calls fn on every ordered factorisation of p into d factors. */
static void shapes(int p, int d, int *dims, int j, void (*fn)(int, const int *)) {
    if (j == d - 1) {
        dims[j] = p;
        fn(d, dims);
        return;
    }
    for (int f = 1; f <= p; f++) {
        if (p % f == 0) {
            dims[j] = f;
            shapes(p / f, d, dims, j + 1, fn);
        }
    }
}

static int nshapes;

static void run_shape(int d, const int *dims) {
    cs_iso_nbh_t nb[6];
    int nn = 0, p = 1;
    for (int j = 0; j < d; j++) {
        p *= dims[j];
    }
    ck_assert_int_eq(cs_iso_nbh_moore(&nb[nn++], d, dims, 1), CS_OK);
    if (d <= 3) {
        ck_assert_int_eq(cs_iso_nbh_moore(&nb[nn++], d, dims, 2), CS_OK);
    }
    if (d <= 4) {
        octant(&nb[nn++], d, dims, 3);
    }
    repeated(&nb[nn++], d, dims, (unsigned)(p * 7 + d));
    von_neumann(&nb[nn++], d, dims);
    for (int k = 0; k < nn; k++) {
        for (int a = 0; a < 2; a++) {
            for (int b = 0; b < 3; b++) {
                cs_iso_sched_t sc;
                ck_assert_int_eq(cs_iso_build(&nb[k], colls[a], kinds[b], &sc), CS_OK);
                torus_run(&nb[k], &sc);
                cs_iso_sched_free(&sc);
            }
        }
        cs_iso_nbh_free(&nb[k]);
    }
    nshapes++;
}

static const int sim_p[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 27, 30, 32, 64};

START_TEST(test_sim_shapes) {
    /* every shape of p in 1, 2 and 3 dimensions; 4 and 5 dimensions for a few p */
    int p = sim_p[_i], dims[5];
    nshapes = 0;
    for (int d = 1; d <= 3; d++) {
        shapes(p, d, dims, 0, run_shape);
    }
    if (p == 1 || p == 2 || p == 16 || p == 24) {
        shapes(p, 4, dims, 0, run_shape);
    }
    if (p == 1 || p == 32) {
        shapes(p, 5, dims, 0, run_shape);
    }
    ck_assert_int_gt(nshapes, 0);
}
END_TEST

static Suite *iso_suite(void) {
    Suite *s = suite_create("iso");
    TCase *tc = tcase_create("formulas");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_moore_formulas);
    tcase_add_test(tc, test_asymmetric_and_repeated);
    tcase_add_test(tc, test_small_tori);
    tcase_add_test(tc, test_empty_and_self);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_shift);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_sim_shapes, 0, (int)(sizeof(sim_p) / sizeof(sim_p[0])));
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(iso_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

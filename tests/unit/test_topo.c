/* Unit tests for algorithms/topo: pure integer math, no MPI.
 *
 * Every property is checked for p = 1..MAX_P (and every root where a root matters), so the
 * non-power-of-two cases that break collective algorithms (p = 3, 5, 7, 127, 129 ...) are
 * covered, not only the easy ones. */
#include "topo/topo.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define MAX_P 130

/* Assertion for hot loops: Check records a mark point for every passing ck_assert (a write to
 * a pipe in fork mode), which makes millions of them slow. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ck_abort_msg(__VA_ARGS__);                                                             \
        }                                                                                          \
    } while (0)

/* Reference implementations, written the slow obvious way. */
static int ref_pof2_floor(int n) {
    int k = 1;
    while (2 * k <= n) {
        k *= 2;
    }
    return k;
}

static int ref_log2_ceil(int n) {
    int k = 0;
    while ((1 << k) < n) {
        k++;
    }
    return k;
}

static int popcount(int v) {
    int n = 0;
    for (; v != 0; v &= v - 1) {
        n++;
    }
    return n;
}

/* ---- powers of two ------------------------------------------------------------------------ */

START_TEST(test_pof2_floor_values) {
    ck_assert_int_eq(cs_topo_pof2_floor(1), 1);
    ck_assert_int_eq(cs_topo_pof2_floor(2), 2);
    ck_assert_int_eq(cs_topo_pof2_floor(3), 2);
    ck_assert_int_eq(cs_topo_pof2_floor(4), 4);
    ck_assert_int_eq(cs_topo_pof2_floor(7), 4);
    ck_assert_int_eq(cs_topo_pof2_floor(129), 128);
    ck_assert_int_eq(cs_topo_pof2_floor(1 << 30), 1 << 30);
    ck_assert_int_eq(cs_topo_pof2_floor((1 << 30) + 5), 1 << 30);
    for (int n = 1; n <= 4096; n++) {
        ck_assert_int_eq(cs_topo_pof2_floor(n), ref_pof2_floor(n));
    }
}
END_TEST

START_TEST(test_log2_ceil_values) {
    ck_assert_int_eq(cs_topo_log2_ceil(1), 0);
    ck_assert_int_eq(cs_topo_log2_ceil(2), 1);
    ck_assert_int_eq(cs_topo_log2_ceil(3), 2);
    ck_assert_int_eq(cs_topo_log2_ceil(4), 2);
    ck_assert_int_eq(cs_topo_log2_ceil(5), 3);
    ck_assert_int_eq(cs_topo_log2_ceil(128), 7);
    ck_assert_int_eq(cs_topo_log2_ceil(129), 8);
    ck_assert_int_eq(cs_topo_log2_ceil(1 << 30), 30);
    ck_assert_int_eq(cs_topo_log2_ceil((1 << 30) + 1), 31);
    for (int n = 1; n <= 4096; n++) {
        ck_assert_int_eq(cs_topo_log2_ceil(n), ref_log2_ceil(n));
    }
}
END_TEST

START_TEST(test_is_pof2_values) {
    ck_assert_int_eq(cs_topo_is_pof2(1), 1);
    ck_assert_int_eq(cs_topo_is_pof2(2), 1);
    ck_assert_int_eq(cs_topo_is_pof2(3), 0);
    ck_assert_int_eq(cs_topo_is_pof2(6), 0);
    ck_assert_int_eq(cs_topo_is_pof2(1 << 30), 1);
    for (int n = 1; n <= 4096; n++) {
        ck_assert_int_eq(cs_topo_is_pof2(n), n == ref_pof2_floor(n));
        ck_assert_int_eq(cs_topo_is_pof2(n), (1 << cs_topo_log2_ceil(n)) == n);
    }
}
END_TEST

/* ---- rotation ----------------------------------------------------------------------------- */

/* Loop test over p: vrank is a bijection with the root at 0, and rank undoes it. */
START_TEST(test_vrank_round_trip) {
    int p = _i;
    char seen[MAX_P];
    for (int root = 0; root < p; root++) {
        memset(seen, 0, sizeof(seen));
        ck_assert_int_eq(cs_topo_vrank(root, root, p), 0);
        ck_assert_int_eq(cs_topo_rank(0, root, p), root);
        for (int rank = 0; rank < p; rank++) {
            int v = cs_topo_vrank(rank, root, p);
            EXPECT(v == (rank - root + p) % p, "p=%d root=%d: vrank(%d) = %d", p, root, rank, v);
            EXPECT(!seen[v], "p=%d root=%d: vrank %d taken twice", p, root, v);
            seen[v] = 1;
            EXPECT(cs_topo_rank(v, root, p) == rank, "p=%d root=%d: rank(vrank(%d)) = %d", p, root,
                   rank, cs_topo_rank(v, root, p));
        }
        for (int v = 0; v < p; v++) {
            int rank = cs_topo_rank(v, root, p);
            EXPECT(rank >= 0 && rank < p && cs_topo_vrank(rank, root, p) == v,
                   "p=%d root=%d: vrank(rank(%d)) != %d", p, root, v, v);
        }
    }
}
END_TEST

/* ---- binomial tree ------------------------------------------------------------------------ */

/* Parents are lower, and the parent and child functions describe the same tree. */
START_TEST(test_binomial_parent_child) {
    int p = _i;
    int nparent_of[MAX_P] = {0};
    int nedges = 0;
    ck_assert_int_eq(cs_topo_binomial_parent(0, p), -1);
    for (int v = 1; v < p; v++) {
        int parent = cs_topo_binomial_parent(v, p);
        ck_assert_int_ge(parent, 0);
        ck_assert_int_lt(parent, v);
    }
    for (int v = 0; v < p; v++) {
        int n = cs_topo_binomial_nchildren(v, p);
        int expect = 0;
        for (int u = v + 1; u < p; u++) {
            expect += cs_topo_binomial_parent(u, p) == v;
        }
        ck_assert_msg(n == expect, "p=%d v=%d: nchildren %d, %d ranks name v as parent", p, v, n,
                      expect);
        for (int i = 0; i < n; i++) {
            int child = cs_topo_binomial_child(v, p, i);
            ck_assert_int_gt(child, v);
            ck_assert_int_lt(child, p);
            if (i > 0) {
                ck_assert_int_gt(child, cs_topo_binomial_child(v, p, i - 1));
            }
            /* Child i is v + 2^i with a subtree of 2^i, cut short by p for the last child (so
             * the last subtree can be smaller than the one before it: p = 5, v = 0 has
             * subtrees 1, 2, 1). */
            ck_assert_int_eq(child, v + (1 << i));
            ck_assert_int_eq(cs_topo_binomial_subtree(child, p),
                             (1 << i) < p - child ? (1 << i) : p - child);
            ck_assert_msg(cs_topo_binomial_parent(child, p) == v,
                          "p=%d: child %d of %d has parent %d", p, child, v,
                          cs_topo_binomial_parent(child, p));
            nparent_of[child]++;
            nedges++;
        }
    }
    ck_assert_int_eq(nedges, p - 1);
    ck_assert_int_eq(nparent_of[0], 0);
    for (int v = 1; v < p; v++) {
        ck_assert_int_eq(nparent_of[v], 1);
    }
}
END_TEST

/* Walking the children from 0 reaches every rank exactly once. */
START_TEST(test_binomial_reach_once) {
    int p = _i;
    int visits[MAX_P] = {0};
    int stack[MAX_P];
    int top = 0;
    int steps = 0;
    stack[top++] = 0;
    while (top > 0) {
        int v = stack[--top];
        visits[v]++;
        ck_assert_int_le(++steps, p);
        for (int i = 0; i < cs_topo_binomial_nchildren(v, p); i++) {
            ck_assert_int_lt(top, MAX_P);
            stack[top++] = cs_topo_binomial_child(v, p, i);
        }
    }
    for (int v = 0; v < p; v++) {
        ck_assert_msg(visits[v] == 1, "p=%d: rank %d reached %d times", p, v, visits[v]);
    }
}
END_TEST

/* subtree(v) = 1 + the children's subtrees; the children's ranges tile [v+1, v+subtree(v)). */
START_TEST(test_binomial_subtrees) {
    int p = _i;
    ck_assert_int_eq(cs_topo_binomial_subtree(0, p), p);
    for (int v = 0; v < p; v++) {
        int size = cs_topo_binomial_subtree(v, p);
        int next = v + 1; /* where the next child's range must start */
        int sum = 1;
        ck_assert_int_ge(size, 1);
        ck_assert_int_le(v + size, p);
        for (int i = 0; i < cs_topo_binomial_nchildren(v, p); i++) {
            int child = cs_topo_binomial_child(v, p, i);
            int csize = cs_topo_binomial_subtree(child, p);
            ck_assert_msg(child == next, "p=%d v=%d: child %d starts at %d, expected %d", p, v, i,
                          child, next);
            sum += csize;
            next = child + csize;
        }
        ck_assert_int_eq(sum, size);
        ck_assert_int_eq(next, v + size);
        /* The range is exactly the set of ranks that have v as an ancestor (or are v). */
        for (int u = 0; u < p; u++) {
            int a = u;
            while (a > v) {
                a = cs_topo_binomial_parent(a, p);
            }
            EXPECT((a == v) == (u >= v && u < v + size),
                   "p=%d: rank %d in subtree range of %d = %s, ancestor = %s", p, u, v,
                   u >= v && u < v + size ? "yes" : "no", a == v ? "yes" : "no");
        }
    }
}
END_TEST

/* Depth. The root has ceil(log2 p) children. Sending to children one after another, largest
 * subtree first (as MPICH does), the last rank receives at step ceil(log2 p). The height of the
 * tree in edges is the popcount of the deepest rank: ceil(log2 p) for a power of two, one less
 * otherwise (p = 5: rank 3 is two edges deep, not three). */
START_TEST(test_binomial_depth) {
    int p = _i;
    int step[MAX_P];
    int max_step = 0, height = 0, max_popcount = 0;
    ck_assert_int_eq(cs_topo_binomial_nchildren(0, p), cs_topo_log2_ceil(p));
    step[0] = 0;
    for (int v = 0; v < p; v++) { /* parents come before children */
        int n = cs_topo_binomial_nchildren(v, p);
        for (int i = 0; i < n; i++) {
            int child = cs_topo_binomial_child(v, p, i);
            step[child] = step[v] + (n - i);
            max_step = step[child] > max_step ? step[child] : max_step;
        }
    }
    ck_assert_int_eq(max_step, cs_topo_log2_ceil(p));
    for (int v = 0; v < p; v++) {
        int d = 0;
        for (int a = v; a != 0; a = cs_topo_binomial_parent(a, p)) {
            d++;
        }
        ck_assert_int_eq(d, popcount(v));
        height = d > height ? d : height;
        max_popcount = popcount(v) > max_popcount ? popcount(v) : max_popcount;
    }
    ck_assert_int_eq(height, max_popcount);
    /* Below a power of two 2^k every rank has fewer than k bits set, and 2^(k-1) - 1 < p has
     * k - 1: the height is ceil(log2 p) - 1 unless p is a power of two. */
    ck_assert_int_eq(height, cs_topo_log2_ceil(p) - (cs_topo_is_pof2(p) ? 0 : 1));
}
END_TEST

/* ---- ring --------------------------------------------------------------------------------- */

START_TEST(test_ring) {
    int p = _i;
    char seen[MAX_P] = {0};
    int r = 0;
    for (int rank = 0; rank < p; rank++) {
        int left = cs_topo_ring_left(rank, p);
        int right = cs_topo_ring_right(rank, p);
        ck_assert_int_eq(right, (rank + 1) % p);
        ck_assert_int_eq(left, (rank + p - 1) % p);
        ck_assert_int_eq(cs_topo_ring_left(right, p), rank);
        ck_assert_int_eq(cs_topo_ring_right(left, p), rank);
    }
    /* Going right p times visits every rank once and comes back. */
    for (int i = 0; i < p; i++) {
        ck_assert_int_eq(seen[r], 0);
        seen[r] = 1;
        r = cs_topo_ring_right(r, p);
    }
    ck_assert_int_eq(r, 0);
}
END_TEST

/* ---- fold (recursive doubling for any p) -------------------------------------------------- */

START_TEST(test_fold_mapping) {
    int p = _i;
    int pof2 = cs_topo_pof2_floor(p);
    int r = cs_topo_fold_extra(p);
    char used[MAX_P] = {0};
    int nsitting = 0;
    ck_assert_int_eq(r, p - pof2);
    ck_assert_int_ge(r, 0);
    ck_assert_int_lt(r, pof2);
    /* Fold ranks map to distinct positions and back. */
    for (int w = 0; w < pof2; w++) {
        int pos = cs_topo_fold_pos(w, p);
        ck_assert_int_ge(pos, 0);
        ck_assert_int_lt(pos, p);
        ck_assert_msg(!used[pos], "p=%d: position %d acts for two fold ranks", p, pos);
        used[pos] = 1;
        ck_assert_int_eq(cs_topo_fold_rank(pos, p), w);
    }
    /* The ranges [first(w), first(w+1)) partition [0, p) in order, each holding its actor. */
    ck_assert_int_eq(cs_topo_fold_first(0, p), 0);
    ck_assert_int_eq(cs_topo_fold_first(pof2, p), p);
    for (int w = 0; w < pof2; w++) {
        int lo = cs_topo_fold_first(w, p), hi = cs_topo_fold_first(w + 1, p);
        ck_assert_int_lt(lo, hi);
        ck_assert_int_le(hi - lo, 2);
        ck_assert_int_eq(hi - lo, w < r ? 2 : 1);
        ck_assert_int_ge(cs_topo_fold_pos(w, p), lo);
        ck_assert_int_lt(cs_topo_fold_pos(w, p), hi);
    }
    /* Sitting out: exactly the even positions below 2r; each is in its partner's range. */
    for (int pos = 0; pos < p; pos++) {
        int w = cs_topo_fold_rank(pos, p);
        int sits = pos < 2 * r && pos % 2 == 0;
        ck_assert_msg((w == -1) == sits, "p=%d pos=%d: fold rank %d", p, pos, w);
        if (sits) {
            nsitting++;
            ck_assert_int_eq(used[pos], 0);
            w = cs_topo_fold_rank(pos + 1, p);
        } else {
            ck_assert_int_eq(used[pos], 1);
        }
        ck_assert_int_ge(w, 0);
        ck_assert_int_lt(w, pof2);
        ck_assert_int_ge(pos, cs_topo_fold_first(w, p));
        ck_assert_int_lt(pos, cs_topo_fold_first(w + 1, p));
    }
    ck_assert_int_eq(nsitting, r);
}
END_TEST

/* Recursive doubling on the fold ranks: fold rank w starts with the positions of its range; in
 * step k it exchanges everything it has with w ^ 2^k. The two sides must be disjoint and
 * adjacent (one contiguous message each way, as the builders send), and after log2(p') steps
 * every fold rank holds every position exactly once. */
START_TEST(test_fold_recursive_doubling_coverage) {
    int p = _i;
    int pof2 = cs_topo_pof2_floor(p);
    int steps = 0;
    static char have[MAX_P][MAX_P], next[MAX_P][MAX_P];
    int lo[MAX_P], hi[MAX_P];
    memset(have, 0, sizeof(have));
    for (int w = 0; w < pof2; w++) {
        lo[w] = cs_topo_fold_first(w, p);
        hi[w] = cs_topo_fold_first(w + 1, p);
        for (int pos = lo[w]; pos < hi[w]; pos++) {
            have[w][pos] = 1;
        }
    }
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int nlo[MAX_P], nhi[MAX_P];
        for (int w = 0; w < pof2; w++) {
            int peer = w ^ mask;
            int base = w & ~(2 * mask - 1);
            for (int pos = 0; pos < p; pos++) {
                EXPECT(!(have[w][pos] && have[peer][pos]),
                       "p=%d step mask=%d: fold ranks %d and %d both hold position %d", p, mask, w,
                       peer, pos);
                next[w][pos] = have[w][pos] | have[peer][pos];
            }
            /* Contiguous: the lower side's range ends where the upper side's begins. */
            if (w < peer) {
                ck_assert_int_eq(hi[w], lo[peer]);
                nlo[w] = lo[w];
                nhi[w] = hi[peer];
            } else {
                ck_assert_int_eq(hi[peer], lo[w]);
                nlo[w] = lo[peer];
                nhi[w] = hi[w];
            }
            /* The builders compute the range as first(base) .. first(base + 2 mask). */
            ck_assert_int_eq(nlo[w], cs_topo_fold_first(base, p));
            ck_assert_int_eq(nhi[w], cs_topo_fold_first(base + 2 * mask, p));
        }
        memcpy(have, next, sizeof(have));
        memcpy(lo, nlo, sizeof(int) * (size_t)pof2);
        memcpy(hi, nhi, sizeof(int) * (size_t)pof2);
        steps++;
    }
    ck_assert_int_eq(steps, cs_topo_log2_ceil(pof2));
    for (int w = 0; w < pof2; w++) {
        ck_assert_int_eq(lo[w], 0);
        ck_assert_int_eq(hi[w], p);
        for (int pos = 0; pos < p; pos++) {
            EXPECT(have[w][pos], "p=%d: fold rank %d lacks position %d", p, w, pos);
        }
    }
}
END_TEST

/* ---- orthogonal grids --------------------------------------------------------------------- */

/* The paper's layouts (Section 4.2): ten 2D layouts of 96 processes, eight of 48. */
START_TEST(test_layouts_paper) {
    static const int want96[10][2] = {{2, 48}, {3, 32}, {4, 24}, {6, 16}, {8, 12},
                                      {12, 8}, {16, 6}, {24, 4}, {32, 3}, {48, 2}};
    static const int want48[8][2] = {{2, 24}, {3, 16}, {4, 12}, {6, 8},
                                     {8, 6},  {12, 4}, {16, 3}, {24, 2}};
    int got[64][2];
    ck_assert_int_eq(cs_topo_layouts(96, 2, &got[0][0], 64), 10);
    for (int i = 0; i < 10; i++) {
        ck_assert_int_eq(got[i][0], want96[i][0]);
        ck_assert_int_eq(got[i][1], want96[i][1]);
    }
    ck_assert_int_eq(cs_topo_layouts(48, 2, &got[0][0], 64), 8);
    for (int i = 0; i < 8; i++) {
        ck_assert_int_eq(got[i][0], want48[i][0]);
        ck_assert_int_eq(got[i][1], want48[i][1]);
    }
    /* 3D of 8: only 2x2x2; of 12: 2x2x3, 2x3x2, 3x2x2; 96 has 30. */
    {
        int g3[64][3];
        ck_assert_int_eq(cs_topo_layouts(8, 3, &g3[0][0], 64), 1);
        ck_assert_int_eq(g3[0][0] * 100 + g3[0][1] * 10 + g3[0][2], 222);
        ck_assert_int_eq(cs_topo_layouts(12, 3, &g3[0][0], 64), 3);
        ck_assert_int_eq(g3[0][0] * 100 + g3[0][1] * 10 + g3[0][2], 223);
        ck_assert_int_eq(g3[1][0] * 100 + g3[1][1] * 10 + g3[1][2], 232);
        ck_assert_int_eq(g3[2][0] * 100 + g3[2][1] * 10 + g3[2][2], 322);
        ck_assert_int_eq(cs_topo_layouts(96, 3, &g3[0][0], 64), 30);
    }
    /* Primes and tiny p have none; a wrong ndims has none. */
    ck_assert_int_eq(cs_topo_layouts(7, 2, &got[0][0], 64), 0);
    ck_assert_int_eq(cs_topo_layouts(1, 2, &got[0][0], 64), 0);
    ck_assert_int_eq(cs_topo_layouts(8, 1, &got[0][0], 64), 0);
    ck_assert_int_eq(cs_topo_layouts(8, 4, &got[0][0], 64), 0);
}
END_TEST

/* Every layout of p against a brute-force enumeration: same list, same (lexicographic) order,
 * the count returned even when cap cuts the list short, nothing written past cap. */
START_TEST(test_layouts_exhaustive) {
    int p = _i;
    for (int nd = 2; nd <= 3; nd++) {
        static int got[MAX_P * MAX_P][3], want[MAX_P * MAX_P][3];
        int nwant = 0, n;
        for (int a = 2; a <= p; a++) {
            for (int b = 2; b <= p; b++) {
                if (nd == 2) {
                    if (a * b == p) {
                        want[nwant][0] = a;
                        want[nwant][1] = b;
                        nwant++;
                    }
                    continue;
                }
                for (int c = 2; c <= p; c++) {
                    if (a * b * c == p) {
                        want[nwant][0] = a;
                        want[nwant][1] = b;
                        want[nwant][2] = c;
                        nwant++;
                    }
                }
            }
        }
        n = cs_topo_layouts(p, nd, &got[0][0], MAX_P * MAX_P / 3);
        ck_assert_int_eq(n, nwant);
        for (int i = 0; i < n; i++) {
            int *flat = &got[0][0] + i * nd;
            for (int k = 0; k < nd; k++) {
                EXPECT(flat[k] == want[i][k], "p=%d ndims=%d: layout %d factor %d is %d, want %d",
                       p, nd, i, k, flat[k], want[i][k]);
            }
        }
        if (n > 1) {
            int small[3] = {-1, -1, -1};
            int guard[4] = {-7, -7, -7, -7};
            int *buf = guard;
            ck_assert_int_eq(cs_topo_layouts(p, nd, buf, 1), n);
            ck_assert_int_eq(buf[nd], -7);
            ck_assert_int_eq(cs_topo_layouts(p, nd, small, 0), n);
            ck_assert_int_eq(small[0], -1);
        }
    }
}
END_TEST

/* Coordinates, lines and blocks of every layout of p (2D and 3D). */
START_TEST(test_grid_lines) {
    int p = _i;
    for (int nd = 2; nd <= 3; nd++) {
        static int layouts[MAX_P * MAX_P][3];
        int n = cs_topo_layouts(p, nd, &layouts[0][0], MAX_P * MAX_P / 3);
        for (int l = 0; l < n; l++) {
            const int *dims = &layouts[0][0] + l * nd;
            cs_topo_grid_t g;
            static int shared[MAX_P][MAX_P];
            ck_assert_int_eq(cs_topo_grid_init(&g, dims, nd), 0);
            ck_assert_int_eq(cs_topo_grid_size(&g), p);
            memset(shared, 0, sizeof(shared));
            for (int r = 0; r < p; r++) {
                int back = 0;
                for (int k = 0; k < nd; k++) {
                    int c = cs_topo_grid_coord(&g, r, k);
                    EXPECT(c >= 0 && c < dims[k], "p=%d: coordinate %d of %d is %d", p, k, r, c);
                    back += c * g.stride[k];
                }
                EXPECT(back == r, "p=%d: coordinates of %d give back %d", p, r, back);
                for (int k = 0; k < nd; k++) {
                    int base = cs_topo_grid_line_base(&g, r, k);
                    int block = cs_topo_grid_block(&g, r, k + 1);
                    EXPECT(cs_topo_grid_line_member(&g, base, k, cs_topo_grid_coord(&g, r, k)) == r,
                           "p=%d: %d is not member c_%d of its line", p, r, k);
                    for (int i = 0; i < dims[k]; i++) {
                        int m = cs_topo_grid_line_member(&g, base, k, i);
                        EXPECT(m >= 0 && m < p, "p=%d: line member %d out of range", p, m);
                        EXPECT(cs_topo_grid_line_base(&g, m, k) == base,
                               "p=%d: member %d of %d's line has another line", p, m, r);
                        EXPECT(cs_topo_grid_coord(&g, m, k) == i, "p=%d: member %d has c_%d %d", p,
                               m, k, cs_topo_grid_coord(&g, m, k));
                        for (int j = 0; j < nd; j++) {
                            EXPECT(j == k ||
                                       cs_topo_grid_coord(&g, m, j) == cs_topo_grid_coord(&g, r, j),
                                   "p=%d: line members %d and %d differ in dimension %d", p, r, m,
                                   j);
                        }
                        /* Member blocks lie side by side in rank order inside r's block. */
                        EXPECT(cs_topo_grid_block(&g, m, k) == block + i * g.stride[k],
                               "p=%d dims %d: block of member %d below %d is not at %d", p, l, m, k,
                               block + i * g.stride[k]);
                        if (m != r) {
                            shared[r][m]++;
                        }
                    }
                }
                /* The block below dimension k: stride[k] consecutive ranks, equal above k. */
                for (int k = 0; k <= nd; k++) {
                    int b = cs_topo_grid_block(&g, r, k);
                    EXPECT(b <= r && r < b + g.stride[k], "p=%d: block %d of %d", p, k, r);
                    for (int j = k; j < nd; j++) {
                        EXPECT(cs_topo_grid_coord(&g, b, j) == cs_topo_grid_coord(&g, r, j),
                               "p=%d: block start %d of %d differs in dimension %d", p, b, r, j);
                    }
                }
                ck_assert_int_eq(cs_topo_grid_block(&g, r, nd), 0);
            }
            /* Two ranks share at most one line; ranks differing in one coordinate share one. */
            for (int a = 0; a < p; a++) {
                for (int b = 0; b < p; b++) {
                    int differ = 0;
                    for (int k = 0; k < nd; k++) {
                        differ += cs_topo_grid_coord(&g, a, k) != cs_topo_grid_coord(&g, b, k);
                    }
                    EXPECT(shared[a][b] == (differ == 1), "p=%d: %d and %d share %d lines", p, a, b,
                           shared[a][b]);
                }
            }
        }
    }
}
END_TEST

START_TEST(test_dims_parse_format) {
    int d[4];
    char buf[64];
    ck_assert_int_eq(cs_topo_dims_parse("2x4", d, 3), 2);
    ck_assert_int_eq(d[0], 2);
    ck_assert_int_eq(d[1], 4);
    ck_assert_int_eq(cs_topo_dims_parse("2x2x3", d, 3), 3);
    ck_assert_int_eq(d[2], 3);
    ck_assert_int_eq(cs_topo_dims_parse("48", d, 3), 1);
    ck_assert_int_eq(cs_topo_dims_parse("1024x2", d, 3), 2);
    ck_assert_int_eq(d[0], 1024);
    cs_topo_dims_format(d, 2, buf, sizeof(buf));
    ck_assert_str_eq(buf, "1024x2");
    d[0] = 3;
    d[1] = 2;
    d[2] = 16;
    cs_topo_dims_format(d, 3, buf, sizeof(buf));
    ck_assert_str_eq(buf, "3x2x16");
    ck_assert_int_eq(cs_topo_dims_parse(buf, d, 3), 3);
    ck_assert_int_eq(cs_topo_dims_parse("2x2x2x2", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("1x8", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("0x8", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("2x", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("x2", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("2X4", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("2x4 ", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse(" 2x4", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("-2x4", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("2x+4", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("auto", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse(NULL, d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("65536x65536", d, 3), -1);
    ck_assert_int_eq(cs_topo_dims_parse("99999999999x2", d, 3), -1);
}
END_TEST

START_TEST(test_grid_init_errors) {
    cs_topo_grid_t g;
    int ok[3] = {2, 3, 4}, one[2] = {1, 8}, big[2] = {65536, 65536};
    ck_assert_int_eq(cs_topo_grid_init(&g, ok, 3), 0);
    ck_assert_int_eq(g.stride[0], 1);
    ck_assert_int_eq(g.stride[1], 2);
    ck_assert_int_eq(g.stride[2], 6);
    ck_assert_int_eq(g.stride[3], 24);
    ck_assert_int_eq(cs_topo_grid_init(&g, ok, 0), -1);
    ck_assert_int_eq(cs_topo_grid_init(&g, ok, 4), -1);
    ck_assert_int_eq(cs_topo_grid_init(&g, one, 2), -1);
    ck_assert_int_eq(cs_topo_grid_init(&g, big, 2), -1);
}
END_TEST

/* DPML leaders: examples, then for every m <= 24, l <= m and a few domain maps: l distinct
 * increasing ranks below m, and every domain gets floor(l / d) or one more leader (as many as
 * it has ranks when it is small). */
START_TEST(test_leaders) {
    int work[3 * 64], out[64];
    int two[8] = {0, 0, 0, 0, 1, 1, 1, 1}, alt[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    int uneven[5] = {0, 1, 1, 1, 1};
    ck_assert_int_eq(cs_topo_leaders(NULL, 8, 2, work, out), 2);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 4);
    ck_assert_int_eq(cs_topo_leaders(NULL, 8, 4, work, out), 4);
    ck_assert_int_eq(out[1], 2);
    ck_assert_int_eq(out[3], 6);
    ck_assert_int_eq(cs_topo_leaders(two, 8, 2, work, out), 2);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 4);
    ck_assert_int_eq(cs_topo_leaders(alt, 8, 2, work, out), 2);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 1);
    ck_assert_int_eq(cs_topo_leaders(uneven, 5, 3, work, out), 3);
    ck_assert_int_eq(out[0], 0); /* domain 0 has one rank: the other two go to domain 1 */
    ck_assert_int_eq(out[1], 1);
    ck_assert_int_eq(out[2], 3);
    ck_assert_int_eq(cs_topo_leaders(NULL, 3, 0, work, out), -1);
    ck_assert_int_eq(cs_topo_leaders(NULL, 3, 4, work, out), -1);
    for (int m = 1; m <= 24; m++) {
        for (int nd = 1; nd <= 4; nd++) {
            int dom[24], per[4] = {0}, size[4] = {0};
            for (int i = 0; i < m; i++) {
                dom[i] = nd == 4 ? (i < 1 ? 3 : i % 3) : i * nd / m; /* blocks, or mixed */
                size[dom[i]]++;
            }
            for (int l = 1; l <= m; l++) {
                int nonempty = 0;
                memset(per, 0, sizeof(per));
                EXPECT(cs_topo_leaders(dom, m, l, work, out) == l, "m %d l %d", m, l);
                for (int k = 0; k < l; k++) {
                    EXPECT(out[k] >= 0 && out[k] < m && (k == 0 || out[k] > out[k - 1]),
                           "m %d l %d: leader %d is %d", m, l, k, out[k]);
                    per[dom[out[k]]]++;
                }
                for (int d = 0; d < 4; d++) {
                    nonempty += size[d] > 0;
                }
                for (int d = 0; d < 4; d++) {
                    int fair = l / nonempty;
                    EXPECT(size[d] == 0 || per[d] >= (fair < size[d] ? fair : size[d]),
                           "m %d l %d: domain %d of %d ranks has %d leaders", m, l, d, size[d],
                           per[d]);
                }
            }
        }
    }
}
END_TEST

static Suite *topo_suite(void) {
    Suite *s = suite_create("topo");
    TCase *tc = tcase_create("pof2");
    tcase_add_test(tc, test_pof2_floor_values);
    tcase_add_test(tc, test_log2_ceil_values);
    tcase_add_test(tc, test_is_pof2_values);
    suite_add_tcase(s, tc);

    tc = tcase_create("rotation");
    tcase_add_loop_test(tc, test_vrank_round_trip, 1, MAX_P + 1);
    suite_add_tcase(s, tc);

    tc = tcase_create("binomial");
    tcase_add_loop_test(tc, test_binomial_parent_child, 1, MAX_P + 1);
    tcase_add_loop_test(tc, test_binomial_reach_once, 1, MAX_P + 1);
    tcase_add_loop_test(tc, test_binomial_subtrees, 1, MAX_P + 1);
    tcase_add_loop_test(tc, test_binomial_depth, 1, MAX_P + 1);
    suite_add_tcase(s, tc);

    tc = tcase_create("ring");
    tcase_add_loop_test(tc, test_ring, 1, MAX_P + 1);
    suite_add_tcase(s, tc);

    tc = tcase_create("fold");
    tcase_add_loop_test(tc, test_fold_mapping, 1, MAX_P + 1);
    tcase_add_loop_test(tc, test_fold_recursive_doubling_coverage, 1, MAX_P + 1);
    suite_add_tcase(s, tc);

    tc = tcase_create("grid");
    tcase_add_test(tc, test_layouts_paper);
    tcase_add_loop_test(tc, test_layouts_exhaustive, 1, MAX_P + 1);
    tcase_add_loop_test(tc, test_grid_lines, 1, MAX_P + 1);
    tcase_add_test(tc, test_dims_parse_format);
    tcase_add_test(tc, test_grid_init_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("leaders");
    tcase_add_test(tc, test_leaders);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(topo_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* The simulator's shared test machinery (sim_harness.h): data and reduction ops, guarded
 * buffers, one case or one sequence of calls built, run over the simulator and checked against
 * the serial reference, and the self-tests' report. */
#include "sim_harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN        32   /* untouchable bytes before and after every buffer */
#define SENTINEL      0xA5 /* what bytes nobody may write hold */
#define SCRATCH_GUARD 64
#define SCRATCH_FILL  0x5A /* scratch starts as garbage, never zero */
#define MODULUS       1009 /* matrix and affine ops work mod this; inputs stay below 1000 */

kind_t kinds[K_COUNT];
static MPI_Op op_mat = MPI_OP_NULL, op_aff = MPI_OP_NULL;

int verbose;
int shard_k, shard_n = 1;

int shard_mine(void) {
    static uint32_t unit;
    /* hashed, not unit mod n: consecutive units are the p of one algorithm, and plain
     * round-robin would put every algorithm's largest p in the same shard */
    uint32_t h = unit++ * 0x9E3779B1u;
    h ^= h >> 16;
    return (int)(h % (uint32_t)shard_n) == shard_k;
}

/* ---- data and operations ------------------------------------------------------------------- */

static int value(int rank, int idx, int salt) {
    uint32_t x = (uint32_t)rank * 0x9E3779B1u + (uint32_t)idx * 0x85EBCA77u +
                 (uint32_t)salt * 0xC2B2AE3Du + 1u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return (int)(x % 1000u);
}

/* Unsigned arithmetic so that garbage operands (a broken algorithm) cannot overflow. */
static int mulmod(int a, int b) {
    return (int)((uint64_t)(uint32_t)a * (uint32_t)b % MODULUS);
}

static int addmod(int a, int b) {
    return (int)(((uint64_t)(uint32_t)a + (uint32_t)b) % MODULUS);
}

/* c = a * b for row-major 2x2 matrices. */
static void mat_mul(const int *a, const int *b, int *c) {
    int r[4];
    r[0] = addmod(mulmod(a[0], b[0]), mulmod(a[1], b[2]));
    r[1] = addmod(mulmod(a[0], b[1]), mulmod(a[1], b[3]));
    r[2] = addmod(mulmod(a[2], b[0]), mulmod(a[3], b[2]));
    r[3] = addmod(mulmod(a[2], b[1]), mulmod(a[3], b[3]));
    memcpy(c, r, sizeof(r));
}

/* c = a o b for affine maps x -> m x + t stored as (m, t): (m1 m2, m1 t2 + t1). */
static void aff_mul(const int *a, const int *b, int *c) {
    int r[2];
    r[0] = mulmod(a[0], b[0]);
    r[1] = addmod(mulmod(a[0], b[1]), a[1]);
    memcpy(c, r, sizeof(r));
}

/* MPI user op: inout = in * inout (in holds the lower ranks). */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const int *a = in;
    int *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++) {
        mat_mul(a + 4 * i, b + 4 * i, b + 4 * i);
    }
}

/* MPI user op on the hidx layout: inout = in o inout. */
static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const kind_t *k = &kinds[K_HIDX];
    (void)dt;
    for (int i = 0; i < *len; i++) {
        const char *x = (const char *)in + i * k->extent;
        char *y = (char *)inout + i * k->extent;
        int a[2], b[2];
        memcpy(&a[0], x + k->disp[0], sizeof(int));
        memcpy(&a[1], x + k->disp[1], sizeof(int));
        memcpy(&b[0], y + k->disp[0], sizeof(int));
        memcpy(&b[1], y + k->disp[1], sizeof(int));
        aff_mul(a, b, b);
        memcpy(y + k->disp[0], &b[0], sizeof(int));
        memcpy(y + k->disp[1], &b[1], sizeof(int));
    }
}

int setup_types(void) {
    int rc = CS_OK;
    MPI_Datatype mat = MPI_DATATYPE_NULL, pair = MPI_DATATYPE_NULL, hidx = MPI_DATATYPE_NULL;
    MPI_Datatype shift = MPI_DATATYPE_NULL;
    int blocklens[2] = {1, 1};
    MPI_Aint displs[2] = {8, 16};
    MPI_Aint lb, extent;
    CS_MPI_CHECK(MPI_Type_contiguous(4, MPI_INT, &mat));
    CS_MPI_CHECK(MPI_Type_commit(&mat));
    CS_MPI_CHECK(MPI_Type_create_hindexed(2, blocklens, displs, MPI_INT, &pair));
    CS_MPI_CHECK(MPI_Type_create_resized(pair, 4, 20, &hidx));
    CS_MPI_CHECK(MPI_Type_commit(&hidx));
    CS_MPI_CHECK(MPI_Type_create_hindexed(1, blocklens, displs, MPI_INT, &shift));
    CS_MPI_CHECK(MPI_Type_commit(&shift));
    kinds[K_INT] = (kind_t){"int", MPI_INT, 1, 0, 4, {0}};
    kinds[K_MAT] = (kind_t){"mat2x2", mat, 4, 0, 16, {0, 4, 8, 12}};
    kinds[K_HIDX] = (kind_t){"hidx", hidx, 2, 4, 20, {8, 16}};
    kinds[K_SHIFT] = (kind_t){"shift8", shift, 1, 8, 4, {8}};
    for (int i = 0; i < K_COUNT; i++) {
        CS_MPI_CHECK(MPI_Type_get_extent(kinds[i].type, &lb, &extent));
        CS_REQUIRE(lb == kinds[i].lb && extent == kinds[i].extent, CS_ERR_INTERNAL);
    }
    CS_MPI_CHECK(MPI_Op_create(mat_op, 0, &op_mat));
    CS_MPI_CHECK(MPI_Op_create(aff_op, 0, &op_aff));
out:
    if (pair != MPI_DATATYPE_NULL) {
        MPI_Type_free(&pair);
    }
    return rc;
}

void free_types(void) {
    for (int i = K_MAT; i < K_COUNT; i++) {
        if (kinds[i].name != NULL) {
            MPI_Type_free(&kinds[i].type);
        }
    }
    if (op_mat != MPI_OP_NULL) {
        MPI_Op_free(&op_mat);
    }
    if (op_aff != MPI_OP_NULL) {
        MPI_Op_free(&op_aff);
    }
}

static MPI_Op mpi_op(int op) {
    switch (op) {
    case OP_SUM:
        return MPI_SUM;
    case OP_MAT:
        return op_mat;
    case OP_AFF:
        return op_aff;
    }
    return MPI_OP_NULL;
}

/* ---- buffers ------------------------------------------------------------------------------- */

static int buf_init(buf_t *b, const kind_t *k, MPI_Aint nelems) {
    b->k = k;
    b->bytes = 2 * MARGIN + (size_t)(nelems * k->extent);
    b->mem = malloc(b->bytes);
    b->want = malloc(b->bytes);
    if (b->mem == NULL || b->want == NULL) {
        return CS_ERR_NOMEM;
    }
    memset(b->mem, SENTINEL, b->bytes);
    memset(b->want, SENTINEL, b->bytes);
    return CS_OK;
}

static void buf_free(buf_t *b) {
    free(b->mem);
    free(b->want);
    memset(b, 0, sizeof(*b));
}

/* The address MPI gets: element 0's extent starts MARGIN bytes into the allocation. */
static void *buf_ptr(const buf_t *b) {
    return b->mem != NULL ? b->mem + MARGIN - b->k->lb : NULL;
}

/* Places ints vals[0..n) as elements from element `at` on: into the expected image, and into
 * the buffer too when `input`. */
static void buf_put(buf_t *b, MPI_Aint at, const int *vals, int n, int input) {
    const kind_t *k = b->k;
    MPI_Aint elem = MARGIN - k->lb + at * k->extent; /* int i is field i % ipe of element i / ipe */
    int f = 0;
    for (int i = 0; i < n; i++) {
        size_t off = (size_t)(elem + k->disp[f]);
        memcpy(b->want + off, &vals[i], sizeof(int));
        if (input) {
            memcpy(b->mem + off, &vals[i], sizeof(int));
        }
        if (++f == k->ipe) { /* (no division per int: this loop was a third of the run) */
            f = 0;
            elem += k->extent;
        }
    }
}

/* Compares a buffer with its image; describes the first difference in `why`. */
static int buf_check(const buf_t *b, const char *name, int rank, char *why, size_t cap) {
    const kind_t *k = b->k;
    size_t i = 0;
    MPI_Aint rel, elem, at;
    if (b->mem == NULL || memcmp(b->mem, b->want, b->bytes) == 0) {
        return 0;
    }
    while (b->mem[i] == b->want[i]) {
        i++;
    }
    if (i < MARGIN || i >= b->bytes - MARGIN) {
        snprintf(why, cap, "rank %d %s: byte %ld %s the buffer was written", rank, name,
                 i < MARGIN ? (long)(MARGIN - i) : (long)(i - (b->bytes - MARGIN)),
                 i < MARGIN ? "before" : "after");
        return 1;
    }
    rel = (MPI_Aint)(i - MARGIN);
    elem = rel / k->extent;
    at = rel % k->extent + k->lb; /* offset from the element's address */
    for (int j = 0; j < k->ipe; j++) {
        if (at >= k->disp[j] && at < k->disp[j] + (MPI_Aint)sizeof(int)) {
            size_t off = (size_t)(MARGIN - k->lb + elem * k->extent + k->disp[j]);
            int got, want;
            memcpy(&got, b->mem + off, sizeof(int));
            memcpy(&want, b->want + off, sizeof(int));
            snprintf(why, cap, "rank %d %s: %s element %ld int %d is %d, want %d", rank, name,
                     k->name, (long)elem, j, got, want);
            return 1;
        }
    }
    snprintf(why, cap, "rank %d %s: gap byte %ld of %s element %ld was written", rank, name,
             (long)at, k->name, (long)elem);
    return 1;
}

static int scratch_check(const unsigned char *mem, MPI_Aint bytes, int rank, char *why,
                         size_t cap) {
    for (size_t i = 0; i < SCRATCH_GUARD; i++) {
        if (mem[SCRATCH_GUARD - 1 - i] != SCRATCH_FILL) {
            snprintf(why, cap, "rank %d: byte %zu before the %ld-byte scratch was written", rank,
                     i + 1, (long)bytes);
            return 1;
        }
        if (mem[SCRATCH_GUARD + (size_t)bytes + i] != SCRATCH_FILL) {
            snprintf(why, cap, "rank %d: byte %zu after the %ld-byte scratch was written", rank,
                     i + 1, (long)bytes);
            return 1;
        }
    }
    return 0;
}

/* ---- one case ------------------------------------------------------------------------------ */

int world_init(world_t *w, int p) {
    memset(w, 0, sizeof(*w));
    w->p = p;
    w->sched = calloc((size_t)p, sizeof(*w->sched));
    w->call = calloc((size_t)p, sizeof(*w->call));
    w->send = calloc((size_t)p, sizeof(*w->send));
    w->recv = calloc((size_t)p, sizeof(*w->recv));
    w->scratch = calloc((size_t)p, sizeof(*w->scratch));
    w->in = calloc((size_t)p, sizeof(*w->in));
    w->nin = calloc((size_t)p, sizeof(*w->nin));
    w->counts = calloc((size_t)p, sizeof(*w->counts));
    w->displs = calloc((size_t)p, sizeof(*w->displs));
    w->agreed = calloc(3 * (size_t)p, sizeof(*w->agreed));
    w->vc = calloc(4 * (size_t)p * (size_t)p, sizeof(*w->vc));
    w->ranks = calloc((size_t)p, sizeof(*w->ranks));
    w->window = calloc((size_t)p, sizeof(*w->window));
    if (w->window == NULL || w->sched == NULL || w->call == NULL || w->send == NULL ||
        w->recv == NULL || w->scratch == NULL || w->in == NULL || w->nin == NULL ||
        w->counts == NULL || w->displs == NULL || w->agreed == NULL || w->vc == NULL ||
        w->ranks == NULL) {
        return CS_ERR_NOMEM;
    }
    for (int r = 0; r < p; r++) {
        w->sched[r].op = MPI_OP_NULL;
    }
    return CS_OK;
}

/* Frees what one case allocated; the world stays usable. */
static void world_clear(world_t *w) {
    for (int r = 0; r < w->p; r++) {
        buf_free(&w->send[r]);
        buf_free(&w->recv[r]);
        free(w->scratch[r]);
        w->scratch[r] = NULL;
        free(w->in[r]);
        w->in[r] = NULL;
        free(w->window[r]);
        w->window[r] = NULL;
    }
    free(w->res);
    w->res = NULL;
}

void world_free(world_t *w) {
    if (w->sched != NULL) {
        world_clear(w);
        for (int r = 0; r < w->p; r++) {
            cs_sched_free(&w->sched[r]);
        }
    }
    free(w->sched);
    free(w->call);
    free(w->send);
    free(w->recv);
    free(w->scratch);
    free(w->in);
    free(w->nin);
    free(w->counts);
    free(w->displs);
    free(w->agreed);
    free(w->vc);
    free(w->ranks);
    free(w->window);
    memset(w, 0, sizeof(*w));
}

/* Blocks (in elements of the coarser layout) of rank j under allgatherv pattern `pat`. */
static int pattern_blocks(int pat, int j, int p) {
    switch (pat % 5) {
    case 0:
        return (j * 5 + 3) % 4; /* 3 0 1 2 3 0 ... */
    case 1:
        return j == p - 1 ? p + 1 : 0; /* one rank has everything */
    case 2:
        return 0;
    case 3:
        return j % 3 == 1 ? 0 : j + 1; /* growing, with holes */
    default:
        return 1 + (j * 7) % (p + 2); /* none empty, some longer than p */
    }
}

/* Allgatherv displacements: blocks of odd ranks ascending, then even ranks descending, each
 * after a gap of 1-3 elements; empty blocks point anywhere inside. Returns the buffer length. */
static int layout_displs(int p, const int *counts, int *displs) {
    int at = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < p; i++) {
            int j = pass == 0 ? i : p - 1 - i;
            if (j % 2 != (pass == 0 ? 1 : 0)) {
                continue;
            }
            if (counts[j] == 0) {
                displs[j] = j % 3;
                continue;
            }
            at += 1 + j % 3;
            displs[j] = at;
            at += counts[j];
        }
    }
    return at + 1;
}

/* Allgatherv displacements in rank order without gaps between blocks, from element 2 on (the
 * usual layout; empty blocks point at the next block). Returns the buffer length. */
static int layout_packed(int p, const int *counts, int *displs) {
    int at = 2;
    for (int j = 0; j < p; j++) {
        displs[j] = at;
        at += counts[j];
    }
    return at + 1;
}

/* acc = acc op x over n ints, acc holding the lower ranks. */
static void reference_step(const scase_t *sc, int *acc, const int *x, int n) {
    for (int i = 0; i < n;) {
        if (sc->op == OP_SUM) {
            acc[i] += x[i];
            i += 1;
        } else if (sc->op == OP_MAT) {
            mat_mul(&acc[i], &x[i], &acc[i]);
            i += 4;
        } else {
            aff_mul(&acc[i], &x[i], &acc[i]);
            i += 2;
        }
    }
}

/* 1 for the collectives whose blocks follow the allgatherv patterns (sc->count is the pattern). */
static int patterned(cs_coll_t coll) {
    return coll == CS_COLL_ALLGATHERV || coll == CS_COLL_GATHERV || coll == CS_COLL_SCATTERV ||
           coll == CS_COLL_ALLTOALLV;
}

/* Alltoallv: blocks (in elements of the coarser layout) from rank j to rank d under pattern
 * sc->count: different in the two directions, symmetric in place (MPI: one layout for what is
 * sent and received). */
static int a2av_blocks(const scase_t *sc, int j, int d) {
    int p = sc->p;
    return pattern_blocks(sc->count, sc->in_place ? (j + d) % p : (2 * j + d) % p, p);
}

/* Alltoallv: where rank j's block for rank d starts in in[j] (ints). */
static int a2av_offset(const scase_t *sc, int j, int d, int coarse) {
    int at = 0;
    for (int k = 0; k < d; k++) {
        at += a2av_blocks(sc, j, k) * coarse;
    }
    return at;
}

/* Alltoallv: rank r's arrays, set for the case (setup): the ints of its blocks per peer and
 * their layouts, the send side scattered and the receive side packed (patterns 0-4) or the
 * reverse (5-9). Returns the two layouts' lengths. */
static void a2av_layout(world_t *w, const scase_t *sc, int r, int coarse, int *slen, int *rlen) {
    int p = sc->p;
    int *scnt = w->vc + 4 * p * r, *sdsp = scnt + p, *rcnt = scnt + 2 * p, *rdsp = scnt + 3 * p;
    for (int d = 0; d < p; d++) {
        scnt[d] = a2av_blocks(sc, r, d) * coarse / sc->sk->ipe;
        rcnt[d] = a2av_blocks(sc, d, r) * coarse / sc->rk->ipe;
    }
    *slen = sc->count < 5 ? layout_displs(p, scnt, sdsp) : layout_packed(p, scnt, sdsp);
    *rlen = sc->count < 5 ? layout_packed(p, rcnt, rdsp) : layout_displs(p, rcnt, rdsp);
}

/* The reduction of in[0..p-1] in rank order into w->res (n ints). */
static void reference_reduce(world_t *w, const scase_t *sc, int n) {
    memcpy(w->res, w->in[0], (size_t)n * sizeof(int));
    for (int j = 1; j < sc->p; j++) {
        reference_step(sc, w->res, w->in[j], n);
    }
}

static void call_raw(cs_call_t *c, const scase_t *sc, int rank, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype) {
    memset(c, 0, sizeof(*c));
    c->coll = sc->coll;
    c->sendbuf = sendbuf;
    c->sendcount = sendcount;
    c->send.type = sendtype;
    c->recvbuf = recvbuf;
    c->recvcount = recvcount;
    c->recv.type = recvtype;
    c->op = cs_coll_is_reduction(sc->coll) ? mpi_op(sc->op) : MPI_OP_NULL;
    c->root = sc->root;
    c->comm = MPI_COMM_NULL;
    c->rank = rank;
    c->nprocs = sc->p;
}

/* Fills inputs, buffers, expected images and the raw call of every rank. */
static int setup(world_t *w, const scase_t *sc) {
    int rc = CS_OK;
    int p = sc->p;
    const kind_t *sk = sc->sk, *rk = sc->rk;
    int coarse = sk->ipe > rk->ipe ? sk->ipe : rk->ipe;
    int n = sc->count * coarse; /* ints per block (uniform collectives) */
    int scount = n / sk->ipe, rcount = n / rk->ipe;
    int vlen = 0;
    int rs = sc->coll == CS_COLL_REDUCE_SCATTER_BLOCK || sc->coll == CS_COLL_REDUCE_SCATTER;
    int vector = 0;    /* reduce_scatter(_block): ints in the whole input vector */
    int *first = NULL; /* reduce_scatter(_block): where block j starts, in ints */
    MPI_Datatype st = sk->type, rt = rk->type;
    if (rs) { /* one type; block j has `count` elements (block) or a pattern's (v) */
        first = malloc((size_t)(p + 1) * sizeof(int));
        CS_REQUIRE(first != NULL, CS_ERR_NOMEM);
        for (int j = 0; j < p; j++) {
            int blocks =
                sc->coll == CS_COLL_REDUCE_SCATTER ? pattern_blocks(sc->count, j, p) : sc->count;
            first[j] = vector;
            w->counts[j] = blocks * coarse / rk->ipe;
            vector += blocks * coarse;
        }
        first[p] = vector;
    }
    for (int j = 0; j < p; j++) {
        int blocks = patterned(sc->coll) ? pattern_blocks(sc->count, j, p) : sc->count;
        if (sc->coll == CS_COLL_ALLTOALLV) { /* every block rank j sends */
            blocks = a2av_offset(sc, j, p, 1);
        }
        w->nin[j] =
            rs ? vector
               : blocks * coarse * (sc->coll == CS_COLL_ALLTOALL ? p : 1); /* alltoall: p blocks */
        w->in[j] = malloc((size_t)(w->nin[j] > 0 ? w->nin[j] : 1) * sizeof(int));
        CS_REQUIRE(w->in[j] != NULL, CS_ERR_NOMEM);
        for (int i = 0; i < w->nin[j]; i++) {
            w->in[j][i] = value(j, i, sc->salt);
        }
        if (!rs) { /* the layout's counts: in the root's send type for scatterv, else the
                    * receive type */
            w->counts[j] = w->nin[j] / (sc->coll == CS_COLL_SCATTERV ? sk->ipe : rk->ipe);
        }
    }
    if (sc->coll == CS_COLL_ALLGATHERV || sc->coll == CS_COLL_GATHERV ||
        sc->coll == CS_COLL_SCATTERV) {
        vlen = sc->count < 5 ? layout_displs(p, w->counts, w->displs)
                             : layout_packed(p, w->counts, w->displs);
    }
    if (cs_coll_is_reduction(sc->coll)) {
        int len = rs ? vector : n;
        w->res = malloc((size_t)(len > 0 ? len : 1) * sizeof(int));
        CS_REQUIRE(w->res != NULL, CS_ERR_NOMEM);
        reference_reduce(w, sc, len);
    }
    for (int r = 0; r < p; r++) {
        buf_t *s = &w->send[r], *v = &w->recv[r];
        cs_call_t *c = &w->call[r];
        int root = r == sc->root;
        int ip = sc->in_place;
        switch (sc->coll) {
        case CS_COLL_BCAST:
            CS_CHECK(buf_init(v, rk, rcount));
            buf_put(v, 0, w->in[sc->root], n, root);
            call_raw(c, sc, r, buf_ptr(v), rcount, rt, buf_ptr(v), rcount, rt);
            break;
        case CS_COLL_GATHER:
            if (root) {
                CS_CHECK(buf_init(v, rk, (MPI_Aint)p * rcount));
                for (int j = 0; j < p; j++) {
                    buf_put(v, (MPI_Aint)j * rcount, w->in[j], n, ip && j == r);
                }
            }
            if (!root || !ip) {
                CS_CHECK(buf_init(s, sk, scount));
                buf_put(s, 0, w->in[r], n, 1);
            }
            if (!root) {
                call_raw(c, sc, r, buf_ptr(s), scount, st, NULL, 0, MPI_DATATYPE_NULL);
            } else if (ip) {
                call_raw(c, sc, r, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf_ptr(v), rcount, rt);
            } else {
                call_raw(c, sc, r, buf_ptr(s), scount, st, buf_ptr(v), rcount, rt);
            }
            break;
        case CS_COLL_SCATTER:
            if (root) {
                CS_CHECK(buf_init(s, sk, (MPI_Aint)p * scount));
                for (int j = 0; j < p; j++) {
                    buf_put(s, (MPI_Aint)j * scount, w->in[j], n, 1);
                }
            }
            if (!root || !ip) {
                CS_CHECK(buf_init(v, rk, rcount));
                buf_put(v, 0, w->in[r], n, 0);
            }
            if (!root) {
                call_raw(c, sc, r, NULL, 0, MPI_DATATYPE_NULL, buf_ptr(v), rcount, rt);
            } else if (ip) {
                call_raw(c, sc, r, buf_ptr(s), scount, st, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL);
            } else {
                call_raw(c, sc, r, buf_ptr(s), scount, st, buf_ptr(v), rcount, rt);
            }
            break;
        case CS_COLL_REDUCE:
        case CS_COLL_ALLREDUCE: {
            int gets = root || sc->coll == CS_COLL_ALLREDUCE;
            int inplace = gets && ip;
            if (gets) {
                CS_CHECK(buf_init(v, rk, rcount));
                if (inplace) {
                    buf_put(v, 0, w->in[r], n, 1);
                }
                buf_put(v, 0, w->res, n, 0);
            }
            if (!inplace) {
                CS_CHECK(buf_init(s, sk, scount));
                buf_put(s, 0, w->in[r], n, 1);
            }
            call_raw(c, sc, r, inplace ? MPI_IN_PLACE : buf_ptr(s), rcount, rt, buf_ptr(v), rcount,
                     rt);
            break;
        }
        case CS_COLL_ALLGATHER:
            CS_CHECK(buf_init(v, rk, (MPI_Aint)p * rcount));
            for (int j = 0; j < p; j++) {
                buf_put(v, (MPI_Aint)j * rcount, w->in[j], n, ip && j == r);
            }
            if (ip) {
                call_raw(c, sc, r, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf_ptr(v), rcount, rt);
            } else {
                CS_CHECK(buf_init(s, sk, scount));
                buf_put(s, 0, w->in[r], n, 1);
                call_raw(c, sc, r, buf_ptr(s), scount, st, buf_ptr(v), rcount, rt);
            }
            break;
        case CS_COLL_ALLGATHERV:
            CS_CHECK(buf_init(v, rk, vlen));
            for (int j = 0; j < p; j++) {
                buf_put(v, w->displs[j], w->in[j], w->nin[j], ip && j == r);
            }
            if (ip) {
                call_raw(c, sc, r, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf_ptr(v), 0, rt);
            } else {
                CS_CHECK(buf_init(s, sk, w->nin[r] / sk->ipe));
                buf_put(s, 0, w->in[r], w->nin[r], 1);
                call_raw(c, sc, r, buf_ptr(s), w->nin[r] / sk->ipe, st, buf_ptr(v), 0, rt);
            }
            c->recvcounts = w->counts;
            c->displs = w->displs;
            break;
        case CS_COLL_ALLTOALL: /* in[j][d n ..): rank j's block for rank d */
            CS_CHECK(buf_init(v, rk, (MPI_Aint)p * rcount));
            if (ip) {
                buf_put(v, 0, w->in[r], p * n, 1);
            }
            for (int j = 0; j < p; j++) {
                buf_put(v, (MPI_Aint)j * rcount, w->in[j] + (size_t)r * (size_t)n, n, 0);
            }
            if (ip) {
                call_raw(c, sc, r, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf_ptr(v), rcount, rt);
            } else {
                CS_CHECK(buf_init(s, sk, (MPI_Aint)p * scount));
                buf_put(s, 0, w->in[r], p * n, 1);
                call_raw(c, sc, r, buf_ptr(s), scount, st, buf_ptr(v), rcount, rt);
            }
            break;
        case CS_COLL_GATHERV: /* the root's count arrays only; a non-root passes NULL */
            if (root) {
                CS_CHECK(buf_init(v, rk, vlen));
                for (int j = 0; j < p; j++) {
                    buf_put(v, w->displs[j], w->in[j], w->nin[j], ip && j == r);
                }
            }
            if (!root || !ip) {
                CS_CHECK(buf_init(s, sk, w->nin[r] / sk->ipe));
                buf_put(s, 0, w->in[r], w->nin[r], 1);
            }
            if (!root) {
                call_raw(c, sc, r, buf_ptr(s), w->nin[r] / sk->ipe, st, NULL, 0, MPI_DATATYPE_NULL);
            } else {
                call_raw(c, sc, r, ip ? MPI_IN_PLACE : buf_ptr(s), ip ? 0 : w->nin[r] / sk->ipe,
                         ip ? MPI_DATATYPE_NULL : st, buf_ptr(v), 0, rt);
                c->recvcounts = w->counts;
                c->displs = w->displs;
            }
            break;
        case CS_COLL_SCATTERV:
            if (root) {
                CS_CHECK(buf_init(s, sk, vlen));
                for (int j = 0; j < p; j++) {
                    buf_put(s, w->displs[j], w->in[j], w->nin[j], 1);
                }
            }
            if (!root || !ip) {
                CS_CHECK(buf_init(v, rk, w->nin[r] / rk->ipe));
                buf_put(v, 0, w->in[r], w->nin[r], 0);
            }
            if (!root) {
                call_raw(c, sc, r, NULL, 0, MPI_DATATYPE_NULL, buf_ptr(v), w->nin[r] / rk->ipe, rt);
            } else {
                call_raw(c, sc, r, buf_ptr(s), 0, st, ip ? MPI_IN_PLACE : buf_ptr(v),
                         ip ? 0 : w->nin[r] / rk->ipe, ip ? MPI_DATATYPE_NULL : rt);
                c->sendcounts = w->counts;
                c->sdispls = w->displs;
            }
            break;
        case CS_COLL_ALLTOALLV: { /* in[j]: rank j's blocks for ranks 0, 1, ... in order */
            int *scnt = w->vc + 4 * p * r, *sdsp = scnt + p, *rcnt = scnt + 2 * p,
                *rdsp = scnt + 3 * p;
            int slen, rlen;
            a2av_layout(w, sc, r, coarse, &slen, &rlen);
            CS_CHECK(buf_init(v, rk, rlen));
            for (int d = 0; ip && d < p; d++) { /* in place: the blocks to send, rank order */
                buf_put(v, rdsp[d], w->in[r] + a2av_offset(sc, r, d, coarse),
                        a2av_blocks(sc, r, d) * coarse, 1);
            }
            for (int j = 0; j < p; j++) {
                buf_put(v, rdsp[j], w->in[j] + a2av_offset(sc, j, r, coarse),
                        a2av_blocks(sc, j, r) * coarse, 0);
            }
            if (ip) {
                call_raw(c, sc, r, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf_ptr(v), 0, rt);
            } else {
                CS_CHECK(buf_init(s, sk, slen));
                for (int d = 0; d < p; d++) {
                    buf_put(s, sdsp[d], w->in[r] + a2av_offset(sc, r, d, coarse),
                            a2av_blocks(sc, r, d) * coarse, 1);
                }
                call_raw(c, sc, r, buf_ptr(s), 0, st, buf_ptr(v), 0, rt);
                c->sendcounts = scnt;
                c->sdispls = sdsp;
            }
            c->recvcounts = rcnt;
            c->displs = rdsp;
            break;
        }
        case CS_COLL_BARRIER: /* no data: check_barrier() checks what it does */
            call_raw(c, sc, r, NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL);
            break;
        case CS_COLL_REDUCE_SCATTER_BLOCK:
        case CS_COLL_REDUCE_SCATTER: {
            /* Block r of the reduction; in place the receive buffer holds the vector, and
             * the blocks after the first must stay as they were. */
            int rcnt = sc->coll == CS_COLL_REDUCE_SCATTER_BLOCK ? n / rk->ipe : 0;
            int mine = first[r + 1] - first[r];
            if (ip) {
                CS_CHECK(buf_init(v, rk, vector / rk->ipe));
                buf_put(v, 0, w->in[r], vector, 1);
            } else {
                CS_CHECK(buf_init(s, sk, vector / sk->ipe));
                buf_put(s, 0, w->in[r], vector, 1);
                CS_CHECK(buf_init(v, rk, mine / rk->ipe));
            }
            buf_put(v, 0, w->res + first[r], mine, 0);
            call_raw(c, sc, r, ip ? MPI_IN_PLACE : buf_ptr(s), rcnt, st, buf_ptr(v), rcnt, rt);
            if (sc->coll == CS_COLL_REDUCE_SCATTER) {
                c->recvcounts = w->counts;
            }
            break;
        }
        case CS_COLL_SCAN:
        case CS_COLL_EXSCAN: {
            /* w->res: the prefix in[0] op ... op in[r], updated rank by rank (ranks in order);
             * exscan's rank r wants the one before r's, rank 0's buffer must stay untouched
             * (MPI leaves it undefined; collsel's algorithms promise not to write it). */
            int exclusive = sc->coll == CS_COLL_EXSCAN;
            CS_CHECK(buf_init(v, rk, rcount));
            if (ip) {
                buf_put(v, 0, w->in[r], n, 1);
            }
            if (exclusive && r > 0) {
                buf_put(v, 0, w->res, n, 0);
            }
            if (r == 0) {
                memcpy(w->res, w->in[0], (size_t)n * sizeof(int));
            } else {
                reference_step(sc, w->res, w->in[r], n);
            }
            if (!exclusive) {
                buf_put(v, 0, w->res, n, 0);
            }
            if (!ip) {
                CS_CHECK(buf_init(s, sk, scount));
                buf_put(s, 0, w->in[r], n, 1);
            }
            call_raw(c, sc, r, ip ? MPI_IN_PLACE : buf_ptr(s), rcount, rt, buf_ptr(v), rcount, rt);
            break;
        }
        default:
            rc = CS_ERR_INTERNAL;
            goto out;
        }
    }
out:
    free(first);
    return rc;
}

void describe(const scase_t *sc, char *out, size_t cap) {
    char type[32];
    if (sc->sk == sc->rk) {
        snprintf(type, sizeof(type), "%s", sc->sk->name);
    } else {
        snprintf(type, sizeof(type), "%s>%s", sc->sk->name, sc->rk->name);
    }
    if (patterned(sc->coll) || sc->coll == CS_COLL_REDUCE_SCATTER) {
        snprintf(out, cap, "p=%d root=%d counts=pattern%d type=%s%s in_place=%d", sc->p, sc->root,
                 sc->count, type,
                 sc->op == OP_SUM   ? "/sum"
                 : sc->op == OP_MAT ? "/matmul"
                 : sc->op == OP_AFF ? "/affine"
                                    : "",
                 sc->in_place);
    } else {
        snprintf(out, cap, "p=%d root=%d count=%d type=%s%s in_place=%d", sc->p, sc->root,
                 sc->count, type,
                 sc->op == OP_SUM   ? "/sum"
                 : sc->op == OP_MAT ? "/matmul"
                 : sc->op == OP_AFF ? "/affine"
                                    : "",
                 sc->in_place);
    }
}

/* The window bytes the node whose first rank is `first` needs for the calls w[0..ncalls): the
 * largest window_bytes of their schedules. */
static MPI_Aint window_bytes(const world_t *w, int ncalls, int first) {
    MPI_Aint bytes = 0;
    for (int call = 0; call < ncalls; call++) {
        if (w[call].sched[first].window_bytes > bytes) {
            bytes = w[call].sched[first].window_bytes;
        }
    }
    return bytes;
}

/* Gives the ranks of each node of `nodes` one shared window for the calls w[0..ncalls) (one
 * world each) of the size their schedules ask for (the same on every rank of a node within a
 * call; the largest of the calls): window_bytes on both sides of the base the ranks get in every
 * call, with guards around the whole. The windows belong to w[0]. */
static int alloc_windows(world_t *w, int ncalls, const cs_nodes_t *nodes, char *why, size_t cap) {
    int rc = CS_OK;
    for (int k = 0; k < nodes->nnodes; k++) {
        int first = k * nodes->ppn, end = first + nodes->ppn < w->p ? first + nodes->ppn : w->p;
        MPI_Aint bytes = window_bytes(w, ncalls, first);
        void *mem = NULL;
        for (int call = 0; call < ncalls; call++) {
            for (int r = first; r < end; r++) {
                if (w[call].sched[r].window_bytes != w[call].sched[first].window_bytes) {
                    snprintf(why, cap, "rank %d needs %ld window bytes, rank %d of its node %ld", r,
                             (long)w[call].sched[r].window_bytes, first,
                             (long)w[call].sched[first].window_bytes);
                    return CASE_FAIL;
                }
            }
        }
        CS_REQUIRE(posix_memalign(&mem, 64, 2 * SCRATCH_GUARD + 2 * (size_t)bytes) == 0,
                   CS_ERR_NOMEM);
        memset(mem, SCRATCH_FILL, 2 * SCRATCH_GUARD + 2 * (size_t)bytes);
        w->window[k] = mem;
        for (int call = 0; call < ncalls; call++) {
            for (int r = first; r < end; r++) {
                w[call].ranks[r].window = w->window[k] + SCRATCH_GUARD + bytes;
            }
        }
    }
out:
    return rc;
}

/* Builds case `sc` of algorithm `a` with `params` (NULL: the defaults) on the node layout `nodes`
 * (NULL for algorithms without CS_REQ_NODES) into w: inputs, buffers and their images, every
 * rank's schedule and scratch, w->ranks without windows. CASE_PASS when the case is ready to
 * run, CASE_FAIL (why in `why`), or CASE_SKIP when the algorithm declares it does not apply.
 * Negative on a failure of the test itself. */
static int build_case(const cs_algo_t *a, const cs_params_t *params, const scase_t *sc,
                      const cs_nodes_t *nodes, world_t *w, char *why, size_t cap) {
    int rc = CS_OK;
    int p = sc->p;
    int applicable = 0, refused = 0, result = CASE_PASS;
    memset(&w->state, 0, sizeof(w->state));
    w->state.nodes = nodes; /* what setup() would give every rank: the layout, no communicators */
    CS_CHECK(setup(w, sc));
    for (int r = 0; r < p; r++) {
        int st = cs_call_normalize(&w->call[r]);
        if (st != CS_OK) {
            snprintf(why, cap, "rank %d: cs_call_normalize returned %s", r, cs_status_name(st));
            result = CASE_FAIL;
            goto out;
        }
    }
    if (cs_coll_agrees(sc->coll) && sc->coll != CS_COLL_ALLTOALLV) {
        /* cs_comm_agree without MPI: every rank's pair, then every rank takes the result */
        for (int r = 0; r < p; r++) {
            cs_call_agree_pair(&w->call[r], &w->agreed[2 * r]);
        }
        for (int r = 0; r < p; r++) {
            cs_call_agreed(&w->call[r], w->agreed, w->agreed + 2 * p);
        }
    }
    for (int r = 0; r < p; r++) {
        applicable += cs_algo_applicable(a, &w->call[r]) == CS_OK;
    }
    if (applicable == 0) {
        result = CASE_SKIP;
        goto out;
    }
    if (applicable != p) {
        snprintf(why, cap, "applicable on %d of %d ranks", applicable, p);
        result = CASE_FAIL;
        goto out;
    }
    for (int r = 0; r < p; r++) {
        int st = cs_algo_build_state(a, params, &w->call[r], nodes != NULL ? &w->state : NULL,
                                     &w->sched[r]);
        if (st == CS_ERR_NOT_APPLICABLE) {
            refused++;
        } else if (st != CS_OK) {
            snprintf(why, cap, "rank %d: build returned %s", r, cs_status_name(st));
            result = CASE_FAIL;
            goto out;
        }
    }
    if (refused > 0) {
        /* The declared requirements hold, so build() must not refuse (the selector would run
         * it); a refusal on some ranks only would also split the communicator. */
        snprintf(why, cap, "build returned CS_ERR_NOT_APPLICABLE on %d of %d ranks", refused, p);
        result = CASE_FAIL;
        goto out;
    }
    for (int r = 0; r < p; r++) {
        size_t bytes = 2 * SCRATCH_GUARD + (size_t)w->sched[r].scratch_bytes;
        void *mem = NULL;
        CS_REQUIRE(posix_memalign(&mem, 16, bytes) == 0, CS_ERR_NOMEM);
        memset(mem, SCRATCH_FILL, bytes);
        w->scratch[r] = mem;
        w->ranks[r].sched = &w->sched[r];
        w->ranks[r].sendbuf = w->call[r].sendbuf;
        w->ranks[r].recvbuf = w->call[r].recvbuf;
        w->ranks[r].scratch = w->scratch[r] + SCRATCH_GUARD;
        w->ranks[r].window = NULL;
    }
out:
    return rc < 0 ? rc : result;
}

/* After a run: every send and receive buffer against its image, the guards of every scratch
 * (CASE_PASS or CASE_FAIL, why in `why`). */
static int check_case(const world_t *w, char *why, size_t cap) {
    for (int r = 0; r < w->p; r++) {
        if (buf_check(&w->send[r], "sendbuf", r, why, cap) ||
            buf_check(&w->recv[r], "recvbuf", r, why, cap) ||
            scratch_check(w->scratch[r], w->sched[r].scratch_bytes, r, why, cap)) {
            return CASE_FAIL;
        }
    }
    return CASE_PASS;
}

/* After a run: the guards of every node's window (alloc_windows), CASE_PASS or CASE_FAIL. */
static int check_windows(const world_t *w, int ncalls, const cs_nodes_t *nodes, char *why,
                         size_t cap) {
    for (int k = 0; k < nodes->nnodes; k++) {
        int first = k * nodes->ppn;
        if (scratch_check(w->window[k], 2 * window_bytes(w, ncalls, first), first, why, cap)) {
            return CASE_FAIL; /* "scratch" here means the node's window */
        }
    }
    return CASE_PASS;
}

/* ---- barrier semantics ---------------------------------------------------------------------- */

/* A message of check_barrier's replay: who sent it to whom, what the sender knew. */
typedef struct kmsg {
    int src, dst, used;
    uint64_t know;
} kmsg_t;

/* A COLL barrier group of the replay: who has arrived and what they knew. At most 3 groups
 * per rank (one per grid dimension), at most 64 ranks. */
#define KCOLLS 192
typedef struct kcoll {
    cs_group_t g;
    int arrived;
    uint64_t know;
} kcoll_t;

/* The index of group g's entry in k[0..*n), added when new (NULL: no room). */
static kcoll_t *kcoll_find(kcoll_t *k, int *n, int cap, cs_group_t g) {
    for (int i = 0; i < *n; i++) {
        if (k[i].g.base == g.base && k[i].g.stride == g.stride && k[i].g.size == g.size) {
            return &k[i];
        }
    }
    if (*n == cap) {
        return NULL;
    }
    k[*n].g = g;
    k[*n].arrived = 0;
    k[*n].know = 0;
    return &k[(*n)++];
}

/* Barrier semantics, which no buffer shows: replays the schedules of w's p <= 64 ranks round
 * by round (a round's messages carry the set of ranks its sender knows to have entered when
 * the round starts; a round ends once every receive has its message, FIFO per pair, and every
 * COLL barrier of it has all its group; then the rank knows what they knew). Every rank must
 * end knowing that all p have entered: otherwise one could leave the barrier early.
 * CASE_PASS or CASE_FAIL (why in `why`); negative on a failure of the test itself. */
static int check_barrier(const world_t *w, char *why, size_t cap) {
    int rc = CS_OK, p = w->p, result = CASE_PASS, progress = 1, nmsg = 0, mcap = 0, ncoll = 0;
    int *round = calloc((size_t)p, sizeof(int)), *started = calloc((size_t)p, sizeof(int));
    uint64_t *know = calloc((size_t)p, sizeof(uint64_t));
    uint64_t all = p == 64 ? ~(uint64_t)0 : (((uint64_t)1 << p) - 1);
    kmsg_t *msg = NULL;
    kcoll_t colls[KCOLLS];
    CS_REQUIRE(round != NULL && started != NULL && know != NULL && p <= 64, CS_ERR_NOMEM);
    for (int r = 0; r < p; r++) {
        know[r] = (uint64_t)1 << r;
        mcap += w->sched[r].nops;
    }
    msg = calloc((size_t)(mcap > 0 ? mcap : 1), sizeof(*msg));
    CS_REQUIRE(msg != NULL, CS_ERR_NOMEM);
    while (progress) {
        progress = 0;
        for (int r = 0; r < p; r++) {
            const cs_sched_t *s = &w->sched[r];
            int begin, end, ready = 1;
            if (round[r] >= s->nrounds) {
                continue;
            }
            begin = round[r] > 0 ? s->round_end[round[r] - 1] : 0;
            end = s->round_end[round[r]];
            if (!started[r]) {
                for (int i = begin; i < end; i++) {
                    const cs_op_t *op = &s->ops[i];
                    if (op->kind == CS_OP_SEND) {
                        msg[nmsg++] = (kmsg_t){r, op->peer, 0, know[r]};
                    } else if (op->kind == CS_OP_COLL) {
                        kcoll_t *k = kcoll_find(colls, &ncoll, KCOLLS, s->colls[op->peer].group);
                        CS_REQUIRE(k != NULL, CS_ERR_NOMEM);
                        k->arrived++;
                        k->know |= know[r];
                    }
                }
                started[r] = 1;
                progress = 1;
            }
            /* Can every receive and COLL of the round complete? (a dry run, then for real) */
            for (int pass = 0; pass < 2 && ready; pass++) {
                int taken[64] = {0}; /* receives from each peer matched in this pass */
                for (int i = begin; i < end && ready; i++) {
                    const cs_op_t *op = &s->ops[i];
                    if (op->kind == CS_OP_RECV) {
                        int seen = 0, found = -1;
                        for (int m = 0; m < nmsg && found < 0; m++) {
                            if (msg[m].src == op->peer && msg[m].dst == r && !msg[m].used &&
                                seen++ == taken[op->peer]) {
                                found = m;
                            }
                        }
                        ready = found >= 0;
                        taken[op->peer]++;
                        if (pass == 1 && ready) {
                            know[r] |= msg[found].know;
                        }
                    } else if (op->kind == CS_OP_COLL) {
                        kcoll_t *k = kcoll_find(colls, &ncoll, KCOLLS, s->colls[op->peer].group);
                        CS_REQUIRE(k != NULL, CS_ERR_NOMEM);
                        ready = k->arrived == k->g.size;
                        if (pass == 1 && ready) {
                            know[r] |= k->know;
                        }
                    }
                }
                if (pass == 1) { /* consume the matched messages */
                    for (int q = 0; q < p; q++) {
                        for (int m = 0; m < nmsg && taken[q] > 0; m++) {
                            if (msg[m].src == q && msg[m].dst == r && !msg[m].used) {
                                msg[m].used = 1;
                                taken[q]--;
                            }
                        }
                    }
                }
            }
            if (ready) {
                round[r]++;
                started[r] = 0;
                progress = 1;
            }
        }
    }
    for (int r = 0; r < p && result == CASE_PASS; r++) {
        if (round[r] < w->sched[r].nrounds) {
            snprintf(why, cap, "barrier replay: rank %d stuck in round %d", r, round[r] + 1);
            result = CASE_FAIL;
        } else if (know[r] != all) {
            int missing = 0;
            while (know[r] & ((uint64_t)1 << missing)) {
                missing++;
            }
            snprintf(why, cap, "barrier: rank %d leaves without knowing that rank %d entered", r,
                     missing);
            result = CASE_FAIL;
        }
    }
out:
    free(round);
    free(started);
    free(know);
    free(msg);
    return rc < 0 ? rc : result;
}

/* Puts "call <k + 1>: " before the description in `why`. */
static void prefix_call(int k, char *why, size_t cap) {
    char head[24];
    size_t n = (size_t)snprintf(head, sizeof(head), "call %d: ", k + 1);
    size_t len = strlen(why);
    if (n >= cap) {
        return;
    }
    len = len + n < cap ? len : cap - n - 1; /* the end of the description may go */
    memmove(why + n, why, len);
    memcpy(why, head, n);
    why[n + len] = '\0';
}

int run_calls(const cs_algo_t *a, const cs_params_t *params, const scase_t *sc, int ncalls,
              const cs_nodes_t *nodes, world_t *w, char *why, size_t cap) {
    int rc = CS_OK;
    int p = sc[0].p, result = CASE_PASS;
    cs_sim_rank_t *ranks = NULL;
    cs_sim_report_t rep;
    why[0] = '\0';
    for (int k = 0; k < ncalls && result == CASE_PASS; k++) {
        CS_CHECK(result = build_case(a, params, &sc[k], nodes, &w[k], why, cap));
        if (result == CASE_FAIL && ncalls > 1) {
            prefix_call(k, why, cap);
        }
    }
    if (result != CASE_PASS) {
        goto out;
    }
    if (nodes != NULL) {
        CS_CHECK(result = alloc_windows(w, ncalls, nodes, why, cap));
        if (result != CASE_PASS) {
            goto out;
        }
    }
    ranks = malloc((size_t)ncalls * (size_t)p * sizeof(*ranks));
    CS_REQUIRE(ranks != NULL, CS_ERR_NOMEM);
    for (int k = 0; k < ncalls; k++) {
        memcpy(ranks + (size_t)k * p, w[k].ranks, (size_t)p * sizeof(*ranks));
    }
    rc = cs_sim_run_seq(p, ncalls, ranks, &rep);
    if (rc == CS_ERR_INTERNAL) {
        snprintf(why, cap, "%s", rep.msg);
        result = CASE_FAIL;
        rc = CS_OK;
        goto out;
    }
    CS_CHECK(rc);
    for (int k = 0; k < ncalls && result == CASE_PASS; k++) {
        result = check_case(&w[k], why, cap);
        if (result == CASE_FAIL && ncalls > 1) {
            prefix_call(k, why, cap);
        }
    }
    if (result == CASE_PASS && nodes != NULL) {
        result = check_windows(w, ncalls, nodes, why, cap);
    }
    for (int k = 0; k < ncalls && result == CASE_PASS; k++) {
        if (sc[k].coll == CS_COLL_BARRIER) {
            CS_CHECK(result = check_barrier(&w[k], why, cap));
            if (result == CASE_FAIL && ncalls > 1) {
                prefix_call(k, why, cap);
            }
        }
    }
out:
    free(ranks);
    for (int k = 0; k < ncalls; k++) {
        world_clear(&w[k]);
    }
    return rc < 0 ? rc : result;
}

int run_case(const cs_algo_t *a, const cs_params_t *params, const scase_t *sc,
             const cs_nodes_t *nodes, world_t *w, char *why, size_t cap) {
    return run_calls(a, params, sc, 1, nodes, w, why, cap);
}

/* ---- self-tests ---------------------------------------------------------------------------- */

void expect(const char *what, int ok, const cs_sim_report_t *rep, int *passed, int *failed) {
    if (ok) {
        (*passed)++;
        printf("ok   self-test %s%s%s\n", what, verbose && rep != NULL ? ": " : "",
               verbose && rep != NULL ? rep->msg : "");
    } else {
        (*failed)++;
        printf("FAIL self-test %s: the simulator did not report it as expected%s%s\n", what,
               rep != NULL ? "; report: " : "", rep != NULL ? rep->msg : "");
    }
}

int window_barrier(cs_sched_t *s, cs_group_t group) {
    cs_coll_op_t c;
    memset(&c, 0, sizeof(c));
    c.coll = CS_COLL_BARRIER;
    c.group = group;
    c.send = c.recv = cs_ref(CS_SLOT_WINDOW, 0);
    c.sendtype = c.recvtype = MPI_DATATYPE_NULL;
    return cs_sched_coll(s, &c, NULL, NULL);
}

int only_races(const cs_sim_report_t *rep) {
    return !rep->error && !rep->deadlock && !rep->unmatched && !rep->mismatch && !rep->overlap &&
           !rep->bad_ref;
}

/* cs_sim: every registered schedule builder, run for all p virtual ranks inside one process.
 *
 * For each algorithm of cs_registry that has a `build`, each p in {1, 2, 3, 4, 5, 6, 7, 8, 11,
 * 12, 16, 24, 31, 32, 64} and each variant the algorithm lists for p (cs_algo_variants: every
 * grid layout of p for the orthogonal algorithms, none at a prime p) the test builds the call of
 * every virtual rank (cs_call_normalize, as the constructors in core/call.c do), builds its
 * schedule for the variant and runs all of them with the real
 * executor over the simulator's mailbox (sim.h). Results are compared bit for bit with a serial
 * reference: every byte of every send and receive buffer, including the bytes around it and the
 * gaps inside derived datatypes (which must stay untouched), plus guard bytes around scratch.
 *
 * Data: MPI_INT; a 2x2 integer matrix (contiguous 4 ints) with a non-commutative product mod
 * 1009; a derived type with a non-zero lower bound (2 ints at byte displacements 8 and 16,
 * resized to lb 4, extent 20) for data movement and, with a non-commutative affine composition,
 * for reductions; a dense type shifted by lb 8 (one int at byte 8: the executor's memcpy path);
 * mixed send/receive types with equal signatures (hidx>int, int>hidx).
 * Calls: all roots for p <= 8, roots {0, 1, p/2, p-1} above; MPI_IN_PLACE where MPI allows
 * it; counts 0, 1, 2, p-1, p, p+1, 2p+1; allgatherv with irregular counts (zeros included) at
 * non-monotone displacements with gaps, and packed in rank order. Insignificant buffers are
 * NULL (gather and reduce non-roots' recvbuf, scatter non-roots' sendbuf).
 *
 * Algorithms that work on nodes (CS_REQ_NODES: DPML) run on one node of p and on emulated nodes
 * of 2, 3 and 4 consecutive ranks (the last one smaller where p does not divide): their state
 * holds the layout (cs_nodes_t) and the ranks of each node share one window buffer, whose
 * guard bytes are checked like scratch. They also run consecutive calls on one communicator
 * (cs_sim_run_seq, the same layouts, p in {1, ..., 8, 12, 16}): sequences of two and three calls
 * whose counts (1, 2p+1, 300) go up, down and both ways, with int/sum, the matrix and affine
 * non-commutative ops and a layout that changes from call to call, in place or not; each call
 * has its own buffers, every node keeps one window sized for the largest call, and every call's
 * results and the race checker over the whole sequence must be clean.
 *
 * Self-tests first prove the checks can fail: hand-built schedules that deadlock, lose a send,
 * mismatch sizes, race within a round or use a NULL buffer, schedules whose shared-window
 * accesses race (a SYNC or the barrier missing, a region rewritten while another rank reads
 * it), and deliberately wrong algorithms (results in the wrong place, reduction in the wrong
 * order) must all be reported; the same window schedules with their synchronisation must pass.
 * Two-call sequences must report a window region rewritten by call 2 while call 1 may still
 * read it, a barrier or a message of one call matched in the other, a deadlock in call 2 and a
 * window that moves between calls; with a barrier at the start of call 2, and with one message
 * per call, they must pass.
 *
 * Runs as an MPI singleton (no mpirun); MPI provides datatypes, MPI_Pack/Unpack and
 * MPI_Reduce_local only, never point-to-point between processes.
 * Usage: cs_sim [-v] [-a <coll>/<alg>] [-p <nprocs>]: -v prints every failing case, -a runs one
 * algorithm, -p one communicator size (any, not only those of the list).
 * Prints one line per failing (algorithm, p), one line per algorithm and "N passed, N failed"
 * (N counts self-tests and (algorithm, p) pairs); exits 1 on any failure. */
#include "registry.h"
#include "sim.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN        32   /* untouchable bytes before and after every buffer */
#define SENTINEL      0xA5 /* what bytes nobody may write hold */
#define SCRATCH_GUARD 64
#define SCRATCH_FILL  0x5A /* scratch starts as garbage, never zero */
#define MODULUS       1009 /* matrix and affine ops work mod this; inputs stay below 1000 */
#define WHY_BYTES     768

static const int nprocs_list[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 16, 24, 31, 32, 64};
#define NPROCS_COUNT ((int)(sizeof(nprocs_list) / sizeof(nprocs_list[0])))

/* Emulated node sizes for algorithms that work on nodes (CS_REQ_NODES), besides one node. */
static const int node_sizes[] = {2, 3, 4};
#define NODE_SIZES ((int)(sizeof(node_sizes) / sizeof(node_sizes[0])))

/* An element layout: which type, and where the ints of one element sit. */
typedef struct kind {
    const char *name;
    MPI_Datatype type;
    int ipe; /* ints per element */
    MPI_Aint lb, extent;
    MPI_Aint disp[4]; /* byte offset of int k from the element's address */
} kind_t;

enum { K_INT, K_MAT, K_HIDX, K_SHIFT, K_COUNT };
static kind_t kinds[K_COUNT];

enum { OP_NONE, OP_SUM, OP_MAT, OP_AFF };
static MPI_Op op_mat = MPI_OP_NULL, op_aff = MPI_OP_NULL;

/* One call of one collective, the same on every virtual rank. */
typedef struct scase {
    cs_coll_t coll;
    int p, root, in_place;
    const kind_t *sk, *rk; /* send and receive element layouts */
    int count;             /* elements of the coarser layout per block; allgatherv: pattern */
    int op;                /* OP_* */
    int salt;
    int calls; /* calls of the sequence this case starts (1: a lone call; 0: a later call) */
} scase_t;

/* A buffer with guard margins and the image its bytes must have at the end. */
typedef struct buf {
    unsigned char *mem, *want;
    size_t bytes;
    const kind_t *k;
} buf_t;

/* Everything a case needs for p ranks; reused across the cases of one (algorithm, p). */
typedef struct world {
    int p;
    cs_sched_t *sched;
    cs_call_t *call;
    buf_t *send, *recv;
    unsigned char **scratch;
    int **in; /* in[j]: the ints rank j contributes */
    int *nin;
    int *res; /* reduction reference */
    int *counts, *displs;
    cs_sim_rank_t *ranks;
    unsigned char **window; /* [node]: the shared window of each emulated node, with guards */
    cs_state_t state;       /* what the schedules' s->state points at: the node layout */
} world_t;

/* Per-run options. */
static int verbose;

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

static int setup_types(void) {
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

static void free_types(void) {
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
    for (int i = 0; i < n; i++) {
        size_t off = (size_t)(MARGIN - k->lb + (at + i / k->ipe) * k->extent + k->disp[i % k->ipe]);
        memcpy(b->want + off, &vals[i], sizeof(int));
        if (input) {
            memcpy(b->mem + off, &vals[i], sizeof(int));
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

static int world_init(world_t *w, int p) {
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
    w->ranks = calloc((size_t)p, sizeof(*w->ranks));
    w->window = calloc((size_t)p, sizeof(*w->window));
    if (w->window == NULL || w->sched == NULL || w->call == NULL || w->send == NULL ||
        w->recv == NULL || w->scratch == NULL || w->in == NULL || w->nin == NULL ||
        w->counts == NULL || w->displs == NULL || w->ranks == NULL) {
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

static void world_free(world_t *w) {
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
    free(w->ranks);
    free(w->window);
    memset(w, 0, sizeof(*w));
}

/* Allgatherv patterns 0-4 place blocks at scattered displacements (layout_displs), patterns
 * 5-9 have the counts of 0-4 packed in rank order after a gap (layout_packed). */
#define PATTERNS 10

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

/* The reduction of in[0..p-1] in rank order into w->res (n ints). */
static void reference_reduce(world_t *w, const scase_t *sc, int n) {
    int p = sc->p;
    memcpy(w->res, w->in[0], (size_t)n * sizeof(int));
    for (int j = 1; j < p; j++) {
        const int *x = w->in[j];
        for (int i = 0; i < n;) {
            if (sc->op == OP_SUM) {
                w->res[i] += x[i];
                i += 1;
            } else if (sc->op == OP_MAT) {
                mat_mul(&w->res[i], &x[i], &w->res[i]);
                i += 4;
            } else {
                aff_mul(&w->res[i], &x[i], &w->res[i]);
                i += 2;
            }
        }
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
    MPI_Datatype st = sk->type, rt = rk->type;
    for (int j = 0; j < p; j++) {
        int blocks = sc->coll == CS_COLL_ALLGATHERV ? pattern_blocks(sc->count, j, p) : sc->count;
        w->nin[j] = blocks * coarse;
        w->in[j] = malloc((size_t)(w->nin[j] > 0 ? w->nin[j] : 1) * sizeof(int));
        CS_REQUIRE(w->in[j] != NULL, CS_ERR_NOMEM);
        for (int i = 0; i < w->nin[j]; i++) {
            w->in[j][i] = value(j, i, sc->salt);
        }
        w->counts[j] = w->nin[j] / rk->ipe;
    }
    if (sc->coll == CS_COLL_ALLGATHERV) {
        vlen = sc->count < 5 ? layout_displs(p, w->counts, w->displs)
                             : layout_packed(p, w->counts, w->displs);
    }
    if (cs_coll_is_reduction(sc->coll)) {
        w->res = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
        CS_REQUIRE(w->res != NULL, CS_ERR_NOMEM);
        reference_reduce(w, sc, n);
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
        default:
            rc = CS_ERR_INTERNAL;
            goto out;
        }
    }
out:
    return rc;
}

static void describe(const scase_t *sc, char *out, size_t cap) {
    char type[32];
    if (sc->sk == sc->rk) {
        snprintf(type, sizeof(type), "%s", sc->sk->name);
    } else {
        snprintf(type, sizeof(type), "%s>%s", sc->sk->name, sc->rk->name);
    }
    if (sc->coll == CS_COLL_ALLGATHERV) {
        snprintf(out, cap, "p=%d counts=pattern%d type=%s in_place=%d", sc->p, sc->count, type,
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

enum { CASE_PASS, CASE_FAIL, CASE_SKIP };

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

/* Runs the calls sc[0..ncalls) (the same p) of algorithm `a` with `params` (NULL: the defaults)
 * back to back on the node layout `nodes` (NULL for algorithms without CS_REQ_NODES; the nodes
 * keep one window for all the calls), call k in world w[k] (cs_sim_run_seq): CASE_PASS when the
 * run was clean and every call left every buffer as its reference, CASE_FAIL (why in `why`,
 * naming the call when there are several), CASE_SKIP when the algorithm declares that some call
 * does not apply. Negative on a failure of the test itself. */
static int run_calls(const cs_algo_t *a, const cs_params_t *params, const scase_t *sc, int ncalls,
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
out:
    free(ranks);
    for (int k = 0; k < ncalls; k++) {
        world_clear(&w[k]);
    }
    return rc < 0 ? rc : result;
}

/* Runs case `sc` of algorithm `a` with `params` (NULL: the defaults) on the node layout `nodes`
 * (NULL for algorithms without CS_REQ_NODES): CASE_PASS, CASE_FAIL (why in `why`) or CASE_SKIP
 * when the algorithm declares it does not apply. Negative on a failure of the test itself. */
static int run_case(const cs_algo_t *a, const cs_params_t *params, const scase_t *sc,
                    const cs_nodes_t *nodes, world_t *w, char *why, size_t cap) {
    return run_calls(a, params, sc, 1, nodes, w, why, cap);
}

/* ---- case lists ---------------------------------------------------------------------------- */

typedef struct caselist {
    scase_t *v;
    int n, cap;
} caselist_t;

static int add_case(caselist_t *l, const scase_t *sc) {
    if (l->n == l->cap) {
        int ncap = l->cap > 0 ? 2 * l->cap : 256;
        scase_t *bigger = realloc(l->v, (size_t)ncap * sizeof(*bigger));
        if (bigger == NULL) {
            return CS_ERR_NOMEM;
        }
        l->v = bigger;
        l->cap = ncap;
    }
    l->v[l->n] = *sc;
    l->v[l->n].salt = l->n;
    l->n++;
    return CS_OK;
}

/* Appends v to set[0..*n) unless present or negative. */
static void add_unique(int *set, int *n, int v) {
    if (v < 0) {
        return;
    }
    for (int i = 0; i < *n; i++) {
        if (set[i] == v) {
            return;
        }
    }
    set[(*n)++] = v;
}

/* Send layout, receive layout and reduction op of a case. */
typedef struct typepair {
    int sk, rk, op;
} typepair_t;

/* The layouts a collective is tested with into types[0..5); returns how many. The first three
 * have equal send and receive layouts: int, then the reductions' non-commutative ones. */
static int type_pairs(cs_coll_t coll, typepair_t *types) {
    int ntypes = 0;
    if (cs_coll_is_reduction(coll)) {
        types[ntypes++] = (typepair_t){K_INT, K_INT, OP_SUM};
        types[ntypes++] = (typepair_t){K_MAT, K_MAT, OP_MAT};
        types[ntypes++] = (typepair_t){K_HIDX, K_HIDX, OP_AFF};
    } else {
        types[ntypes++] = (typepair_t){K_INT, K_INT, OP_NONE};
        types[ntypes++] = (typepair_t){K_HIDX, K_HIDX, OP_NONE};
        types[ntypes++] = (typepair_t){K_SHIFT, K_SHIFT, OP_NONE};
        if (coll != CS_COLL_BCAST) {
            types[ntypes++] = (typepair_t){K_HIDX, K_INT, OP_NONE};
            types[ntypes++] = (typepair_t){K_INT, K_HIDX, OP_NONE};
        }
    }
    return ntypes;
}

static int make_cases(cs_coll_t coll, int p, caselist_t *l) {
    int rc = CS_OK;
    typepair_t types[5];
    int ntypes = type_pairs(coll, types), roots[16], nroots = 0, counts[PATTERNS], ncounts = 0;
    int rooted = cs_coll_is_rooted(coll);
    int may_in_place = coll != CS_COLL_BCAST;
    scase_t sc;
    l->n = 0;
    if (!rooted) {
        roots[nroots++] = 0;
    } else if (p <= 8) {
        for (int r = 0; r < p; r++) {
            roots[nroots++] = r;
        }
    } else {
        add_unique(roots, &nroots, 0);
        add_unique(roots, &nroots, 1);
        add_unique(roots, &nroots, p / 2);
        add_unique(roots, &nroots, p - 1);
    }
    if (coll == CS_COLL_ALLGATHERV) {
        for (int pat = 0; pat < PATTERNS; pat++) {
            counts[ncounts++] = pat;
        }
    } else {
        add_unique(counts, &ncounts, 0);
        add_unique(counts, &ncounts, 1);
        add_unique(counts, &ncounts, 2);
        add_unique(counts, &ncounts, p - 1);
        add_unique(counts, &ncounts, p);
        add_unique(counts, &ncounts, p + 1);
        add_unique(counts, &ncounts, 2 * p + 1);
    }
    memset(&sc, 0, sizeof(sc));
    sc.coll = coll;
    sc.p = p;
    sc.calls = 1;
    for (int t = 0; t < ntypes; t++) {
        for (int ip = 0; ip <= may_in_place; ip++) {
            /* In-place allgather(v) uses the receive type only: mixed types add nothing. */
            if (ip && types[t].sk != types[t].rk &&
                (coll == CS_COLL_ALLGATHER || coll == CS_COLL_ALLGATHERV)) {
                continue;
            }
            for (int ri = 0; ri < nroots; ri++) {
                for (int ci = 0; ci < ncounts; ci++) {
                    sc.sk = &kinds[types[t].sk];
                    sc.rk = &kinds[types[t].rk];
                    sc.op = types[t].op;
                    sc.in_place = ip;
                    sc.root = roots[ri];
                    sc.count = counts[ci];
                    CS_CHECK(add_case(l, &sc));
                }
            }
        }
    }
out:
    return rc;
}

/* Consecutive calls on one communicator (cs_sim_run_seq): two and three calls whose counts go
 * small to large, large to small and both ways, of one layout or changing layout from call to
 * call, in place or not. Layouts index type_pairs(); SEQ_2P1 is the count 2p + 1. */
#define MAX_CALLS 3
#define SEQ_2P1   (-1)

typedef struct seqspec {
    int ncalls;
    int type[MAX_CALLS];
    int count[MAX_CALLS];
    int in_place[MAX_CALLS];
} seqspec_t;

static const seqspec_t sequences[] = {
    {2, {0, 0}, {1, SEQ_2P1}, {0, 0}},
    {2, {0, 0}, {300, 1}, {0, 1}},
    {3, {0, 0, 0}, {SEQ_2P1, 300, 1}, {1, 0, 0}},
    {3, {0, 0, 0}, {300, 1, SEQ_2P1}, {0, 0, 1}},
    {2, {1, 1}, {1, 300}, {0, 0}},
    {3, {1, 1, 1}, {300, SEQ_2P1, 1}, {1, 0, 0}},
    {3, {2, 2, 2}, {SEQ_2P1, 1, 300}, {0, 1, 0}},
    {3, {0, 2, 1}, {300, 1, SEQ_2P1}, {0, 0, 0}},
};
#define SEQUENCES ((int)(sizeof(sequences) / sizeof(sequences[0])))

/* Communicator sizes of the consecutive-call tests: every p up to 8 and two larger ones. */
static const int seq_nprocs_list[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16};
#define SEQ_NPROCS_COUNT ((int)(sizeof(seq_nprocs_list) / sizeof(seq_nprocs_list[0])))

/* The sequences of `sequences` for p ranks into l (each call a case; the first of a sequence
 * carries its length in `calls`). Rooted collectives alternate roots 0 and p - 1; allgatherv
 * takes the count modulo PATTERNS as its pattern. */
static int make_sequences(cs_coll_t coll, int p, caselist_t *l) {
    int rc = CS_OK;
    typepair_t types[5];
    scase_t sc;
    type_pairs(coll, types);
    l->n = 0;
    memset(&sc, 0, sizeof(sc));
    sc.coll = coll;
    sc.p = p;
    for (int i = 0; i < SEQUENCES; i++) {
        const seqspec_t *q = &sequences[i];
        for (int k = 0; k < q->ncalls; k++) {
            const typepair_t *t = &types[q->type[k]];
            int count = q->count[k] == SEQ_2P1 ? 2 * p + 1 : q->count[k];
            sc.sk = &kinds[t->sk];
            sc.rk = &kinds[t->rk];
            sc.op = t->op;
            sc.in_place = coll != CS_COLL_BCAST && q->in_place[k];
            sc.root = cs_coll_is_rooted(coll) && (i + k) % 2 == 1 ? p - 1 : 0;
            sc.count = coll == CS_COLL_ALLGATHERV ? count % PATTERNS : count;
            sc.calls = k == 0 ? q->ncalls : 0;
            CS_CHECK(add_case(l, &sc));
        }
    }
out:
    return rc;
}

/* ---- the registry -------------------------------------------------------------------------- */

/* Runs every case of every variant of `a` (cs_algo_variants for p processes, `node_size` per
 * node: 0 for one node of p) for every p of the list (or for `only_p`, any p >= 1); counts
 * (variant, p) results. A p for which the algorithm lists no variant (orthogonal grids at a prime
 * p), or that node_size would make one node, is left out. Algorithms with CS_REQ_NODES get the
 * emulated layout of nodes of node_size consecutive ranks (cs_nodes_t) in their state and one
 * shared window per node; for the others node_size must be 0. With `seq` the cases are the
 * consecutive-call sequences (make_sequences, seq_nprocs_list), each run as one sequence of
 * calls on the same nodes and windows. */
static int test_algo(const cs_algo_t *a, int only_p, int node_size, int seq, int *passed,
                     int *failed) {
    int rc = CS_OK;
    caselist_t list = {NULL, 0, 0};
    world_t w[MAX_CALLS];
    long cases = 0, skipped = 0;
    int bad = 0, nvariants = 0;
    int np = only_p > 0 ? 1 : seq ? SEQ_NPROCS_COUNT : NPROCS_COUNT;
    char why[WHY_BYTES], first[WHY_BYTES], name[WHY_BYTES], first_name[WHY_BYTES], vname[256];
    char nodes_of[32] = "";
    cs_variant_t *v = malloc(CS_MAX_VARIANTS * sizeof(*v));
    memset(w, 0, sizeof(w));
    CS_REQUIRE(v != NULL, CS_ERR_NOMEM);
    for (int pi = 0; pi < np; pi++) {
        int p = only_p > 0 ? only_p : seq ? seq_nprocs_list[pi] : nprocs_list[pi];
        int ppn = node_size > 0 && node_size < p ? node_size : p;
        cs_nodes_t nodes = {p, ppn, (p + ppn - 1) / ppn, NULL};
        int nv = 0, nseq = 0;
        if (node_size > 0 && ppn == p) {
            continue; /* one node: the node_size 0 pass */
        }
        CS_CHECK(cs_algo_variants(a, p, ppn, v, CS_MAX_VARIANTS, &nv));
        if (nv == 0) {
            continue;
        }
        CS_CHECK(seq ? make_sequences(a->coll, p, &list) : make_cases(a->coll, p, &list));
        for (int i = 0; i < list.n; i += list.v[i].calls) {
            nseq++;
        }
        for (int k = 0; k < MAX_CALLS; k++) {
            CS_CHECK(world_init(&w[k], p));
        }
        for (int k = 0; k < nv; k++) {
            int nfail = 0;
            cs_variant_name(&v[k], vname, sizeof(vname));
            for (int i = 0; i < list.n; i += list.v[i].calls) {
                int st = run_calls(a, &v[k].params, &list.v[i], list.v[i].calls,
                                   (a->reqs & CS_REQ_NODES) ? &nodes : NULL, w, why, sizeof(why));
                CS_CHECK(st);
                cases++;
                if (st == CASE_SKIP) {
                    skipped++;
                } else if (st == CASE_FAIL) {
                    size_t len = 0;
                    for (int j = 0; j < list.v[i].calls && len < sizeof(name); j++) {
                        if (j > 0) {
                            len += (size_t)snprintf(name + len, sizeof(name) - len, " then ");
                        }
                        if (len < sizeof(name)) {
                            describe(&list.v[i + j], name + len, sizeof(name) - len);
                            len += strlen(name + len);
                        }
                    }
                    if (nfail++ == 0) {
                        memcpy(first, why, sizeof(first));
                        memcpy(first_name, name, sizeof(first_name));
                    }
                    if (verbose) {
                        printf("  fail %s %s: %s\n", vname, name, why);
                    }
                }
            }
            if (nfail > 0) {
                printf("FAIL %s p=%d ppn=%d%s: %d of %d %s failed; first: %s: %s\n", vname, p, ppn,
                       seq ? " consecutive calls" : "", nfail, nseq, seq ? "sequences" : "cases",
                       first_name, first);
                (*failed)++;
                bad++;
            } else {
                (*passed)++;
            }
            nvariants++;
        }
        for (int k = 0; k < MAX_CALLS; k++) {
            world_free(&w[k]);
        }
    }
    if (node_size > 0) {
        snprintf(nodes_of, sizeof(nodes_of), " on nodes of %d", node_size);
    }
    printf("%-4s %s%s%s: %d variant x p, %ld %s, %ld not applicable%s\n", bad > 0 ? "FAIL" : "ok",
           a->name, seq ? ", consecutive calls" : "", nodes_of, nvariants, cases,
           seq ? "sequences" : "cases", skipped, bad > 0 ? " (failures above)" : "");
out:
    for (int k = 0; k < MAX_CALLS; k++) {
        world_free(&w[k]);
    }
    free(list.v);
    free(v);
    return rc;
}

/* ---- self-tests: the checks must be able to fail ------------------------------------------- */

static void expect(const char *what, int ok, const cs_sim_report_t *rep, int *passed, int *failed) {
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

/* Hand-built two-rank schedules, each with one planted defect (or none). */
static int selftest_sched(int *passed, int *failed) {
    int rc = CS_OK;
    cs_sched_t s[2];
    cs_sim_rank_t rk[2];
    cs_sim_report_t rep;
    cs_type_t t;
    int data[2][8];
    memset(s, 0, sizeof(s));
    CS_CHECK(cs_type_init(&t, MPI_INT));
    for (int test = 0; test < 7; test++) {
        int st;
        for (int r = 0; r < 2; r++) {
            cs_sched_reset(&s[r], MPI_OP_NULL);
            for (int i = 0; i < 8; i++) {
                data[r][i] = 100 * r + i;
            }
            rk[r].sched = &s[r];
            rk[r].sendbuf = data[r];
            rk[r].recvbuf = data[r];
            rk[r].scratch = NULL;
        }
        switch (test) {
        case 0: /* each rank only receives from the other */
            CS_CHECK(cs_sched_recv(&s[0], 1, cs_ref(CS_SLOT_RECV, 0), 1, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 1, &t));
            break;
        case 1: /* a send nobody receives */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 1, &t));
            break;
        case 2: /* 2 ints sent, 3 received */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 2, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 3, &t));
            break;
        case 3: /* rank 0 receives into ints 2-5 while sending ints 0-3 in the same round */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_RECV, 0), 4, &t));
            CS_CHECK(cs_sched_recv(&s[0], 1, cs_ref(CS_SLOT_RECV, 8), 4, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 4, &t));
            CS_CHECK(cs_sched_send(&s[1], 0, cs_ref(CS_SLOT_RECV, 16), 4, &t));
            break;
        case 4: /* rank 0 sends from a send buffer it does not have */
            rk[0].sendbuf = NULL;
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 1, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 0), 1, &t));
            break;
        case 5: /* a peer outside the communicator */
            CS_CHECK(cs_sched_send(&s[0], 2, cs_ref(CS_SLOT_SEND, 0), 1, &t));
            break;
        default: /* correct: two messages in one round arrive in order, then a reply */
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 0), 2, &t));
            CS_CHECK(cs_sched_send(&s[0], 1, cs_ref(CS_SLOT_SEND, 8), 2, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 16), 2, &t));
            CS_CHECK(cs_sched_recv(&s[1], 0, cs_ref(CS_SLOT_RECV, 24), 2, &t));
            CS_CHECK(cs_sched_round(&s[0]));
            CS_CHECK(cs_sched_round(&s[1]));
            CS_CHECK(cs_sched_recv(&s[0], 1, cs_ref(CS_SLOT_RECV, 28), 1, &t));
            CS_CHECK(cs_sched_send(&s[1], 0, cs_ref(CS_SLOT_RECV, 28), 1, &t));
            break;
        }
        CS_CHECK(cs_sched_round(&s[0]));
        CS_CHECK(cs_sched_round(&s[1]));
        st = cs_sim_run(2, rk, &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        switch (test) {
        case 0:
            expect("deadlock", rep.deadlock && rep.unmatched == 2, &rep, passed, failed);
            break;
        case 1:
            expect("send never received", rep.unmatched == 1 && st != CS_OK, &rep, passed, failed);
            break;
        case 2:
            expect("size mismatch", rep.mismatch == 1, &rep, passed, failed);
            break;
        case 3:
            expect("receive overlaps a send of its round", rep.overlap == 1 && !rep.deadlock, &rep,
                   passed, failed);
            break;
        case 4:
            expect("NULL buffer used", rep.bad_ref == 1, &rep, passed, failed);
            break;
        case 5:
            expect("peer out of range", rep.bad_ref == 1, &rep, passed, failed);
            break;
        default:
            expect("clean exchange passes, FIFO order kept",
                   st == CS_OK && rep.messages == 3 && data[1][4] == 0 && data[1][5] == 1 &&
                       data[1][6] == 2 && data[1][7] == 3 && data[0][7] == 3,
                   &rep, passed, failed);
            break;
        }
    }
out:
    cs_sched_free(&s[0]);
    cs_sched_free(&s[1]);
    return rc;
}

/* Hand-built four-rank schedules with native collectives on groups (COLL operations): rows
 * {0,1} {2,3} allreduce in place, then columns {0,2} {1,3} broadcast from their second member;
 * and the same with one planted defect. */
static int selftest_coll(int *passed, int *failed) {
    int rc = CS_OK;
    cs_sched_t s[4];
    cs_sim_rank_t rk[4];
    cs_sim_report_t rep;
    int data[4][2];
    memset(s, 0, sizeof(s));
    for (int test = 0; test < 4; test++) {
        int st;
        for (int r = 0; r < 4; r++) {
            cs_coll_op_t c;
            cs_sched_reset(&s[r], MPI_SUM);
            data[r][0] = r + 1;
            data[r][1] = 10 * (r + 1);
            rk[r].sched = &s[r];
            rk[r].sendbuf = NULL;
            rk[r].recvbuf = data[r];
            rk[r].scratch = NULL;
            memset(&c, 0, sizeof(c));
            c.coll = CS_COLL_ALLREDUCE;
            c.group = (cs_group_t){r / 2 * 2, 1, 2};
            c.in_place = 1;
            c.send = c.recv = cs_ref(CS_SLOT_RECV, 0);
            c.sendcount = c.recvcount = 2;
            c.sendtype = c.recvtype = MPI_INT;
            if (test == 3 && r == 1) {
                c.group.base = 2; /* a group rank 1 is not in */
            }
            if (!(test == 1 && r == 3)) { /* test 1: rank 3 never joins its row */
                CS_CHECK(cs_sched_coll(&s[r], &c, NULL, NULL));
                CS_CHECK(cs_sched_round(&s[r]));
            }
            c.coll = CS_COLL_BCAST;
            c.group = (cs_group_t){r % 2, 2, 2};
            c.root = test == 2 && r == 0 ? 0 : 1; /* test 2: the members disagree on the root */
            c.in_place = 0;
            CS_CHECK(cs_sched_coll(&s[r], &c, NULL, NULL));
            CS_CHECK(cs_sched_round(&s[r]));
        }
        st = cs_sim_run(4, rk, &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        switch (test) {
        case 0:
            expect("group collectives: row allreduce, column bcast",
                   st == CS_OK && data[0][0] == 7 && data[0][1] == 70 && data[1][0] == 7 &&
                       data[2][0] == 7 && data[3][1] == 70 && rep.messages == 4,
                   &rep, passed, failed);
            break;
        case 1:
            expect("group collective a member never starts", rep.deadlock && rep.unmatched > 0,
                   &rep, passed, failed);
            break;
        case 2:
            expect("group members disagree on the root", rep.mismatch == 1, &rep, passed, failed);
            break;
        default:
            expect("group that does not contain the rank", rep.bad_ref >= 1, &rep, passed, failed);
            break;
        }
    }
out:
    for (int r = 0; r < 4; r++) {
        cs_sched_free(&s[r]);
    }
    return rc;
}

/* Hand-built schedules on ranks that share a window (sim.h, window race checker). The first
 * six: ranks 0..2 (one node): round 1: copy 4 ints into my region (window offset -16 (r + 1)),
 * SYNC; round 2: node barrier, SYNC, copy the region of rank r + 1 (mod 3) out; each planted
 * defect removes one link of that chain. The clean run also covers a rank that SYNCs and starts
 * the barrier in one progress call (the barrier must see that SYNC's release). Then a message
 * instead of a barrier, two nodes with a COLL writing the window, and byte-exact ranges (the
 * shadow's granule comes from the schedules' ranges and must not merge neighbours). */
enum {
    W_CLEAN,         /* release SYNC, barrier, acquire SYNC */
    W_NO_RELEASE,    /* (1) rank 1 writes its region and skips the SYNC before the barrier */
    W_NO_ACQUIRE,    /* (2) rank 0 skips the SYNC after the barrier */
    W_NO_BARRIER,    /* (3) SYNCs on both sides, no barrier */
    W_WAR,           /* (4) round 3: every rank rewrites its region, which rank r - 1 reads */
    W_WAR_BARRIER,   /* (4) fixed: SYNC after the read, second barrier, SYNC, then rewrite */
    W_MSG,           /* 2 ranks: rank 0 writes, SYNC, sends; rank 1 receives, SYNC, reads */
    W_MSG_NO_SYNC,   /* the same without rank 1's SYNC */
    W_NODES,         /* 2 nodes of 2: leaders 0, 2 allreduce into their window, SYNC, node
                      * barrier, SYNC, everyone reads; both nodes use the same offsets */
    W_NODES_NO_SYNC, /* the same without leader 2's SYNC */
    W_BYTES_APART,   /* 2 ranks, no synchronisation: 3 bytes at offset -16, 5 bytes at -13 */
    W_BYTES_OVERLAP  /* the same with the 5 bytes at -14: one byte in common */
};
#define W_CASES 12
#define W_BYTES 64 /* window offsets [-64, 64): regions of 16 bytes below, results above */

/* Appends a barrier (a COLL without buffers) on `group`. */
static int window_barrier(cs_sched_t *s, cs_group_t group) {
    cs_coll_op_t c;
    memset(&c, 0, sizeof(c));
    c.coll = CS_COLL_BARRIER;
    c.group = group;
    c.send = c.recv = cs_ref(CS_SLOT_WINDOW, 0);
    c.sendtype = c.recvtype = MPI_DATATYPE_NULL;
    return cs_sched_coll(s, &c, NULL, NULL);
}

static int window_two_nodes(int w) {
    return w == W_NODES || w == W_NODES_NO_SYNC;
}

static int window_nprocs(int w) {
    if (window_two_nodes(w)) {
        return 4;
    }
    return w == W_MSG || w == W_MSG_NO_SYNC || w == W_BYTES_APART || w == W_BYTES_OVERLAP ? 2 : 3;
}

/* Builds rank r's schedule of window case `w` (see the enum) in `s`; `tb` is MPI_BYTE. */
static int window_sched(int w, int r, cs_sched_t *s, const cs_type_t *t, const cs_type_t *tb) {
    int rc = CS_OK;
    int p = window_nprocs(w);
    cs_ref_t mine = cs_ref(CS_SLOT_WINDOW, -16 * (r + 1));
    cs_ref_t next = cs_ref(CS_SLOT_WINDOW, -16 * ((r + 1) % p + 1));
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_sched_reset(s, MPI_SUM);
    cs_sched_window_need(s, W_BYTES);
    if (w == W_BYTES_APART || w == W_BYTES_OVERLAP) { /* the shadow must stay byte-exact */
        MPI_Aint at = r == 0 ? -16 : w == W_BYTES_APART ? -13 : -14;
        CS_CHECK(cs_sched_copy(s, send, 3 + 2 * r, tb, cs_ref(CS_SLOT_WINDOW, at), 3 + 2 * r, tb));
        goto out;
    }
    if (w == W_MSG || w == W_MSG_NO_SYNC) {
        if (r == 0) {
            CS_CHECK(cs_sched_copy(s, send, 4, t, mine, 4, t));
            CS_CHECK(cs_sched_sync(s));
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(cs_sched_send(s, 1, send, 1, t));
        } else {
            CS_CHECK(cs_sched_recv(s, 0, cs_ref(CS_SLOT_RECV, 16), 1, t));
            CS_CHECK(cs_sched_round(s));
            if (w == W_MSG) {
                CS_CHECK(cs_sched_sync(s));
            }
            CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_WINDOW, -16), 4, t, recv, 4, t));
        }
        goto out;
    }
    if (window_two_nodes(w)) {
        if (r % 2 == 0) {
            cs_coll_op_t c;
            memset(&c, 0, sizeof(c));
            c.coll = CS_COLL_ALLREDUCE;
            c.group = (cs_group_t){0, 2, 2};
            c.send = send;
            c.recv = cs_ref(CS_SLOT_WINDOW, 0);
            c.sendcount = c.recvcount = 4;
            c.sendtype = c.recvtype = MPI_INT;
            CS_CHECK(cs_sched_coll(s, &c, NULL, NULL));
            if (!(w == W_NODES_NO_SYNC && r == 2)) {
                CS_CHECK(cs_sched_sync(s));
            }
            CS_CHECK(cs_sched_round(s));
        }
        CS_CHECK(window_barrier(s, (cs_group_t){r / 2 * 2, 1, 2}));
        CS_CHECK(cs_sched_sync(s));
        CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_WINDOW, 0), 4, t, recv, 4, t));
        goto out;
    }
    CS_CHECK(cs_sched_copy(s, send, 4, t, mine, 4, t));
    if (!(w == W_NO_RELEASE && r == 1)) {
        CS_CHECK(cs_sched_sync(s));
    }
    CS_CHECK(cs_sched_round(s));
    if (w != W_NO_BARRIER) {
        CS_CHECK(window_barrier(s, (cs_group_t){0, 1, 3}));
    }
    if (!(w == W_NO_ACQUIRE && r == 0)) {
        CS_CHECK(cs_sched_sync(s));
    }
    CS_CHECK(cs_sched_copy(s, next, 4, t, recv, 4, t));
    if (w == W_WAR_BARRIER) {
        CS_CHECK(cs_sched_sync(s)); /* release the read */
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(window_barrier(s, (cs_group_t){0, 1, 3}));
        CS_CHECK(cs_sched_sync(s));
    }
    if (w == W_WAR || w == W_WAR_BARRIER) {
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 16), 4, t, mine, 4, t));
    }
out:
    if (rc == CS_OK) {
        rc = cs_sched_round(s);
    }
    return rc;
}

/* 1 when every other counter of `rep` is zero (only the race checker spoke, if anything). */
static int only_races(const cs_sim_report_t *rep) {
    return !rep->error && !rep->deadlock && !rep->unmatched && !rep->mismatch && !rep->overlap &&
           !rep->bad_ref;
}

static int selftest_window(int *passed, int *failed) {
    static const char *const what[W_CASES] = {
        "window: sync, barrier, sync orders a write before another rank's read",
        "window race: writer skips the sync before the barrier",
        "window race: reader skips the sync after the barrier",
        "window race: no barrier between a write and another rank's read",
        "window race: a region rewritten after the barrier its reader crossed",
        "window: second barrier orders a rewrite after the reads",
        "window: send/recv with syncs on both sides orders window accesses",
        "window race: send/recv without the receiver's sync",
        "window: two nodes, allreduce result released through a node barrier",
        "window race: allreduce result in the window without a release sync",
        "window: disjoint byte ranges need no synchronisation",
        "window race: byte ranges that share one byte"};
    int rc = CS_OK;
    cs_sched_t s[4];
    cs_sim_rank_t rk[4];
    cs_sim_report_t rep;
    cs_type_t t, tb;
    int send[4][8], recv[4][8];
    int win[2][2 * W_BYTES / (int)sizeof(int)];
    memset(s, 0, sizeof(s));
    CS_CHECK(cs_type_init(&t, MPI_INT));
    CS_CHECK(cs_type_init(&tb, MPI_BYTE));
    for (int w = 0; w < W_CASES; w++) {
        int p = window_nprocs(w);
        int clean = w == W_CLEAN || w == W_WAR_BARRIER || w == W_MSG || w == W_NODES;
        int data = 1, st;
        memset(win, 0, sizeof(win));
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < 8; i++) {
                send[r][i] = 100 * r + i;
                recv[r][i] = -1;
            }
            CS_CHECK(window_sched(w, r, &s[r], &t, &tb));
            rk[r].sched = &s[r];
            rk[r].sendbuf = send[r];
            rk[r].recvbuf = recv[r];
            rk[r].scratch = NULL;
            rk[r].window = (char *)win[window_two_nodes(w) ? r / 2 : 0] + W_BYTES;
        }
        st = cs_sim_run(p, rk, &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        for (int r = 0; r < p && clean; r++) {
            for (int i = 0; i < 4; i++) {
                int want = w == W_MSG     ? (r == 1 ? send[0][i] : -1)
                           : w == W_NODES ? send[0][i] + send[2][i]
                                          : send[(r + 1) % p][i];
                data &= recv[r][i] == want;
                if (w == W_WAR_BARRIER) { /* the rewrite landed after every read */
                    data &= win[0][W_BYTES / 4 - 4 * (r + 1) + i] == send[r][4 + i];
                }
            }
        }
        if (w == W_BYTES_APART) {
            expect(what[w], st == CS_OK && rep.race == 0, &rep, passed, failed);
        } else if (w == W_BYTES_OVERLAP) {
            expect(what[w],
                   only_races(&rep) && rep.race == 1 &&
                       strstr(rep.msg, "node 0 window offset -14: rank 1 round 1 copy writes what "
                                       "rank 0 round 1 copy wrote") == rep.msg,
                   &rep, passed, failed);
        } else if (clean) {
            expect(what[w], st == CS_OK && rep.race == 0 && data, &rep, passed, failed);
        } else if (w == W_NO_RELEASE) { /* the message, word for word */
            expect(what[w],
                   only_races(&rep) && rep.race > 0 &&
                       strstr(rep.msg, "node 0 window offset -32: rank 0 round 2 copy reads what "
                                       "rank 1 round 1 copy wrote without") == rep.msg,
                   &rep, passed, failed);
        } else {
            expect(what[w],
                   only_races(&rep) && rep.race > 0 && strstr(rep.msg, "window offset") != NULL &&
                       (w != W_NODES_NO_SYNC || strstr(rep.msg, "node 1 ") == rep.msg),
                   &rep, passed, failed);
        }
    }
out:
    for (int r = 0; r < 4; r++) {
        cs_sched_free(&s[r]);
    }
    return rc;
}

/* Hand-built two-rank sequences of two calls (cs_sim_run_seq), each with one defect that only
 * the sequence has (or none). The window ones run on one node: in call 1 rank 0 writes its region
 * (window offset -16), SYNC, barrier, and rank 1, after the barrier and a SYNC, reads it as the
 * last thing of its call; in call 2 rank 0 rewrites the region and rank 1 reads it again the same
 * way. */
enum {
    C_WINDOW_RACE,  /* call 2 rewrites the region before any barrier: rank 1 may still read it */
    C_WINDOW_CLEAN, /* call 2 starts with SYNC, barrier, SYNC (dpml's B1) before the rewrite */
    C_COLL_CROSS,   /* rank 0 has two barriers in call 1, rank 1 one in each call */
    C_MSG_CROSS,    /* rank 0 sends twice in call 1, rank 1 receives once in each call */
    C_MSG_CLEAN,    /* one message per call, 1 int then 2: FIFO keeps them apart */
    C_DEADLOCK,     /* call 1 exchanges, in call 2 both ranks receive first */
    C_WINDOW_MOVES  /* rank 1's window differs between its calls */
};
#define C_CASES 7

/* Builds rank r's schedule of call `call` (0, 1) of sequence case `c` (see the enum) in `s`. */
static int calls_sched(int c, int call, int r, cs_sched_t *s, const cs_type_t *t) {
    int rc = CS_OK;
    cs_group_t node = {0, 1, 2};
    cs_ref_t region = cs_ref(CS_SLOT_WINDOW, -16);
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0);
    cs_sched_reset(s, MPI_SUM);
    switch (c) {
    case C_WINDOW_RACE:
    case C_WINDOW_CLEAN:
    case C_WINDOW_MOVES:
        cs_sched_window_need(s, W_BYTES);
        if (call == 1 && c == C_WINDOW_CLEAN) {
            CS_CHECK(cs_sched_sync(s)); /* release rank 1's read of call 1 */
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(window_barrier(s, node));
            CS_CHECK(cs_sched_sync(s));
        }
        if (r == 0) {
            CS_CHECK(cs_sched_copy(s, send, 4, t, region, 4, t));
            CS_CHECK(cs_sched_sync(s));
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(window_barrier(s, node));
        } else {
            CS_CHECK(window_barrier(s, node));
            CS_CHECK(cs_sched_sync(s));
            CS_CHECK(cs_sched_copy(s, region, 4, t, recv, 4, t));
        }
        break;
    case C_COLL_CROSS:
        for (int i = 0; i < (r == 0 ? 2 - call * 2 : 1); i++) {
            CS_CHECK(window_barrier(s, node));
            CS_CHECK(cs_sched_round(s));
        }
        break;
    case C_MSG_CROSS:
        for (int i = 0; i < (r == 0 ? 2 - call * 2 : 1); i++) {
            CS_CHECK(r == 0 ? cs_sched_send(s, 1, send, 1, t) : cs_sched_recv(s, 0, recv, 1, t));
            CS_CHECK(cs_sched_round(s));
        }
        break;
    case C_MSG_CLEAN:
        CS_CHECK(r == 0 ? cs_sched_send(s, 1, send, call + 1, t)
                        : cs_sched_recv(s, 0, recv, call + 1, t));
        break;
    default: /* C_DEADLOCK */
        if (call == 0) {
            CS_CHECK(cs_sched_send(s, 1 - r, send, 1, t));
            CS_CHECK(cs_sched_recv(s, 1 - r, recv, 1, t));
        } else {
            CS_CHECK(cs_sched_recv(s, 1 - r, recv, 1, t));
            CS_CHECK(cs_sched_round(s));
            CS_CHECK(cs_sched_send(s, 1 - r, send, 1, t));
        }
        break;
    }
out:
    if (rc == CS_OK) {
        rc = cs_sched_round(s);
    }
    return rc;
}

static int selftest_calls(int *passed, int *failed) {
    static const char *const what[C_CASES] = {
        "calls: window region rewritten by the next call while a slower rank reads it",
        "calls: a barrier at the start of the next call orders the rewrite",
        "calls: a barrier of call 2 joining one of call 1 is reported",
        "calls: a message of call 1 received in call 2 is reported",
        "calls: messages of consecutive calls match in order",
        "calls: deadlock in call 2 is reported with its call",
        "calls: a rank's window that moves between calls is reported"};
    int rc = CS_OK;
    cs_sched_t s[2][2];
    cs_sim_rank_t rk[2][2]; /* [call][rank] */
    cs_sim_report_t rep;
    cs_type_t t;
    int send[2][2][8], recv[2][2][8];
    int win[2][2 * W_BYTES / (int)sizeof(int)];
    memset(s, 0, sizeof(s));
    CS_CHECK(cs_type_init(&t, MPI_INT));
    for (int c = 0; c < C_CASES; c++) {
        int data = 1, st;
        memset(win, 0, sizeof(win));
        for (int call = 0; call < 2; call++) {
            for (int r = 0; r < 2; r++) {
                for (int i = 0; i < 8; i++) {
                    send[call][r][i] = 1000 * call + 100 * r + i;
                    recv[call][r][i] = -1;
                }
                CS_CHECK(calls_sched(c, call, r, &s[call][r], &t));
                rk[call][r].sched = &s[call][r];
                rk[call][r].sendbuf = send[call][r];
                rk[call][r].recvbuf = recv[call][r];
                rk[call][r].scratch = NULL;
                rk[call][r].window = NULL;
                if (c == C_WINDOW_RACE || c == C_WINDOW_CLEAN || c == C_WINDOW_MOVES) {
                    int moved = c == C_WINDOW_MOVES && call == 1 && r == 1;
                    rk[call][r].window = (char *)win[moved] + W_BYTES;
                }
            }
        }
        st = cs_sim_run_seq(2, 2, &rk[0][0], &rep);
        if (st != CS_OK && st != CS_ERR_INTERNAL) {
            rc = st;
            goto out;
        }
        for (int call = 0; call < 2; call++) {
            for (int i = 0; i < 4; i++) {
                if (c == C_WINDOW_CLEAN) {
                    data &= recv[call][1][i] == send[call][0][i];
                }
                if (c == C_MSG_CLEAN) {
                    data &= recv[call][1][i] == (i <= call ? send[call][0][i] : -1);
                }
            }
        }
        switch (c) {
        case C_WINDOW_RACE: /* the message, word for word */
            expect(what[c],
                   only_races(&rep) && rep.race > 0 &&
                       strstr(rep.msg,
                              "node 0 window offset -16: rank 0 call 2 round 1 copy "
                              "writes what rank 1 call 1 round 1 copy read without") == rep.msg,
                   &rep, passed, failed);
            break;
        case C_COLL_CROSS:
            expect(what[c],
                   rep.mismatch == 1 && !rep.deadlock && !rep.unmatched &&
                       strstr(rep.msg, "joins an instance that other members started in call") !=
                           NULL,
                   &rep, passed, failed);
            break;
        case C_MSG_CROSS:
            expect(what[c],
                   rep.mismatch == 1 && !rep.deadlock && !rep.unmatched &&
                       strstr(rep.msg, "rank 0 (call 1 round 2) sends to 1, which receives it in "
                                       "call 2") == rep.msg,
                   &rep, passed, failed);
            break;
        case C_DEADLOCK:
            expect(what[c],
                   rep.deadlock && rep.unmatched == 2 &&
                       strstr(rep.msg, "rank 0 call 2 round 1/2 waits on recv from 1") != NULL,
                   &rep, passed, failed);
            break;
        case C_WINDOW_MOVES:
            expect(what[c], rep.bad_ref == 1 && strstr(rep.msg, "rank 1 call 2") == rep.msg, &rep,
                   passed, failed);
            break;
        default: /* C_WINDOW_CLEAN (3 barriers), C_MSG_CLEAN (2 messages) */
            expect(what[c],
                   st == CS_OK && rep.race == 0 && rep.messages == (c == C_MSG_CLEAN ? 2 : 3) &&
                       data,
                   &rep, passed, failed);
            break;
        }
    }
out:
    for (int call = 0; call < 2; call++) {
        cs_sched_free(&s[call][0]);
        cs_sched_free(&s[call][1]);
    }
    return rc;
}

/* bcast that receives into scratch and leaves the user's buffer alone: a wrong result. */
static int wrong_place(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    cs_ref_t tmp;
    if (c->rank != c->root) {
        CS_CHECK(cs_sched_scratch(s, c->recvcount, &c->recv, &tmp));
        CS_CHECK(cs_sched_recv(s, c->root, tmp, c->recvcount, &c->recv));
        goto out;
    }
    for (int i = 0; i < c->nprocs; i++) {
        if (i != c->root) {
            CS_CHECK(cs_sched_send(s, i, cs_ref(CS_SLOT_RECV, 0), c->recvcount, &c->recv));
        }
    }
out:
    return rc;
}

/* Linear reduce that folds in reverse rank order: right only for commutative ops. */
static int wrong_order(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    (void)params;
    int rc = CS_OK;
    int p = c->nprocs;
    cs_ref_t all, recv = cs_ref(CS_SLOT_RECV, 0);
    if (c->rank != c->root) {
        CS_CHECK(cs_sched_send(s, c->root, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send));
        goto out;
    }
    CS_CHECK(cs_sched_scratch(s, (MPI_Aint)p * c->sendcount, &c->send, &all));
    for (int i = 0; i < p; i++) {
        cs_ref_t block = cs_ref_at(all, (MPI_Aint)i * c->sendcount, &c->send);
        if (i == c->rank) {
            CS_CHECK(cs_sched_copy(s, cs_ref(CS_SLOT_SEND, 0), c->sendcount, &c->send, block,
                                   c->sendcount, &c->send));
        } else {
            CS_CHECK(cs_sched_recv(s, i, block, c->sendcount, &c->send));
        }
    }
    CS_CHECK(cs_sched_round(s));
    CS_CHECK(cs_sched_copy(s, all, c->sendcount, &c->send, recv, c->recvcount, &c->recv));
    for (int i = 1; i < p; i++) {
        CS_CHECK(cs_sched_reduce(s, cs_ref_at(all, (MPI_Aint)i * c->sendcount, &c->send), recv,
                                 c->recvcount, &c->recv));
    }
out:
    return rc;
}

static const cs_algo_t wrong_place_algo = {
    .name = "selftest/wrong_place", .coll = CS_COLL_BCAST, .desc = "", .build = wrong_place};
static const cs_algo_t wrong_order_algo = {
    .name = "selftest/wrong_order", .coll = CS_COLL_REDUCE, .desc = "", .build = wrong_order};

/* Deliberately wrong algorithms through the same case machinery as the registry. */
static int selftest_reference(int *passed, int *failed) {
    int rc = CS_OK;
    world_t w;
    scase_t sc;
    char why[WHY_BYTES];
    int st;
    memset(&w, 0, sizeof(w));
    CS_CHECK(world_init(&w, 4));
    memset(&sc, 0, sizeof(sc));
    sc.p = 4;
    sc.root = 1;
    sc.count = 3;
    sc.coll = CS_COLL_BCAST;
    sc.sk = sc.rk = &kinds[K_HIDX];
    CS_CHECK(st = run_case(&wrong_place_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("result left in scratch is caught", st == CASE_FAIL, NULL, passed, failed);
    sc.coll = CS_COLL_REDUCE;
    sc.sk = sc.rk = &kinds[K_MAT];
    sc.op = OP_MAT;
    CS_CHECK(st = run_case(&wrong_order_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("reverse rank order with matmul is caught", st == CASE_FAIL, NULL, passed, failed);
    sc.sk = sc.rk = &kinds[K_HIDX];
    sc.op = OP_AFF;
    CS_CHECK(st = run_case(&wrong_order_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("reverse rank order with affine is caught", st == CASE_FAIL, NULL, passed, failed);
    sc.sk = sc.rk = &kinds[K_INT];
    sc.op = OP_SUM;
    sc.in_place = 1;
    CS_CHECK(st = run_case(&wrong_order_algo, NULL, &sc, NULL, &w, why, sizeof(why)));
    expect("reverse rank order with sum passes", st == CASE_PASS, NULL, passed, failed);
    if (st != CASE_PASS) {
        printf("  why: %s\n", why);
    }
out:
    world_free(&w);
    return rc;
}

/* allreduce/dpml's inter parameter: an unknown algorithm, or one that needs per-communicator
 * state (dpml itself, orth), is refused by build() on every rank alike; a point-to-point one
 * runs. Two emulated nodes of 2. */
static int selftest_dpml_inter(int *passed, int *failed) {
    static const struct {
        const char *inter;
        int ok;
    } cases[] = {
        {"bogus", 0},       {"dpml", 0}, {"orth", 0}, {"native", 1}, {"recursive_doubling", 1},
        {"reduce_bcast", 1}};
    int rc = CS_OK;
    const cs_algo_t *a = cs_registry_find("allreduce/dpml");
    cs_nodes_t nodes = {4, 2, 2, NULL};
    world_t w;
    scase_t sc;
    char why[WHY_BYTES], what[128];
    memset(&w, 0, sizeof(w));
    CS_REQUIRE(a != NULL, CS_ERR_INTERNAL);
    CS_CHECK(world_init(&w, 4));
    memset(&sc, 0, sizeof(sc));
    sc.p = 4;
    sc.count = 5;
    sc.coll = CS_COLL_ALLREDUCE;
    sc.sk = sc.rk = &kinds[K_MAT];
    sc.op = OP_MAT;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cs_params_t params;
        int st;
        cs_params_defaults(a->params, a->nparams, &params);
        CS_CHECK(cs_params_set(&params, "leaders", "2"));
        CS_CHECK(cs_params_set(&params, "inter", cases[i].inter));
        why[0] = '\0';
        CS_CHECK(st = run_case(a, &params, &sc, &nodes, &w, why, sizeof(why)));
        snprintf(what, sizeof(what), "dpml inter=%s %s", cases[i].inter,
                 cases[i].ok ? "runs" : "is refused by every rank");
        expect(what,
               cases[i].ok ? st == CASE_PASS
                           : st == CASE_FAIL && strstr(why, "on 4 of 4 ranks") != NULL,
               NULL, passed, failed);
        if (cases[i].ok && st != CASE_PASS) {
            printf("  why: %s\n", why);
        }
    }
out:
    world_free(&w);
    return rc;
}

int main(int argc, char **argv) {
    int rc = CS_OK;
    int passed = 0, failed = 0, only_p = 0, ran = 0;
    const char *only = NULL;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "-a") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            only_p = atoi(argv[++i]);
            if (only_p < 1) {
                fprintf(stderr, "cs_sim: -p wants a communicator size >= 1, not '%s'\n", argv[i]);
                rc = CS_ERR_ARG;
                goto out;
            }
        } else {
            fprintf(stderr, "usage: %s [-v] [-a <coll>/<alg>] [-p <nprocs>]\n", argv[0]);
            rc = CS_ERR_ARG;
            goto out;
        }
    }
    CS_CHECK(setup_types());
    CS_CHECK(selftest_sched(&passed, &failed));
    CS_CHECK(selftest_coll(&passed, &failed));
    CS_CHECK(selftest_window(&passed, &failed));
    CS_CHECK(selftest_calls(&passed, &failed));
    CS_CHECK(selftest_reference(&passed, &failed));
    CS_CHECK(selftest_dpml_inter(&passed, &failed));
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        if (a->build == NULL || (only != NULL && strcmp(a->name, only) != 0)) {
            continue;
        }
        CS_CHECK(test_algo(a, only_p, 0, 0, &passed, &failed));
        for (int k = 0; (a->reqs & CS_REQ_NODES) && k < NODE_SIZES; k++) {
            CS_CHECK(test_algo(a, only_p, node_sizes[k], 0, &passed, &failed));
        }
        /* Consecutive calls for the algorithms that keep a window from call to call. */
        for (int k = -1; (a->reqs & CS_REQ_NODES) && k < NODE_SIZES; k++) {
            CS_CHECK(test_algo(a, only_p, k < 0 ? 0 : node_sizes[k], 1, &passed, &failed));
        }
        ran++;
    }
    if (only != NULL && ran == 0) {
        fprintf(stderr, "cs_sim: no schedule builder named '%s' in the registry\n", only);
        rc = CS_ERR_NOT_FOUND;
        goto out;
    }
    printf("%d passed, %d failed\n", passed, failed);
out:
    if (rc < 0 && rc != CS_ERR_ARG && rc != CS_ERR_NOT_FOUND) {
        fprintf(stderr, "cs_sim: the test itself failed: %s\n", cs_status_name(rc));
    }
    free_types();
    MPI_Finalize();
    return rc < 0 ? 2 : failed > 0 ? 1 : 0;
}

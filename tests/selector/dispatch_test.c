/* cs_sel_dispatch: the selector's decisions and results through the public API (collsel.h).
 *
 *   mpirun -np N cs_sel_dispatch [--tuned-sizes LIST] [--grids] [--prefix K] [--forced KEY]
 *                                [--native [TEXT]] [--reinit PATH]
 *
 * Calls collsel_init(NULL) (so COLLSEL_DB and the rest of the environment apply), then, on
 * MPI_COMM_WORLD and on two halves of it (ranks in reverse order, when N >= 2), or with
 * --prefix K on the communicator of world ranks 0..K-1 only (MPI_Comm_split, same order; the
 * other ranks wait; steps 3 to 5 are skipped):
 *
 *  1. collsel_explain for sizes at both ends of every interval of the test rules
 *     (rules_spec.c; those of the communicator's nearest tuned size, where barrier ranks
 *     barrier/orth(dims=2x2) first at 4 processes) and must name:
 *       default       the interval's first usable candidate (unknown algorithms and variants with
 *                     parameters skipped), its whole ranked list, "on <n> processes (<q> per
 *                     node)" and "tuned at <t> processes, <u> per node", (t, u) the entry of
 *                     LIST (--tuned-sizes SIZE[:PPN],..., default 4; PPN defaults to SIZE) that
 *                     is the communicator's own or nearest to it as docs/selector.md defines
 *                     ("Sizes and layouts without rules of their own"), followed by
 *                     "(borrowed: ...)" exactly when it is not the communicator's own; q is
 *                     min(COLLSEL_NODE_SIZE, n) when that is set, else the most ranks of the
 *                     communicator on one node (MPI_Comm_split_type);
 *       --grids       as written by cs_make_rules_db --grids: allreduce's ranked lists start
 *                     with allreduce/orth(dims=AxB) when the tuned size t has a 2D grid, and a
 *                     call runs it only on a communicator of exactly t processes (elsewhere it
 *                     declines and the next candidate runs);
 *       --forced KEY  (repeatable) the same, except that KEY's collective names KEY, forced;
 *       --native      "<coll>/native" for everything (but the --forced collectives); with
 *                     TEXT, rank 0 of MPI_COMM_WORLD's explanation must contain TEXT (the
 *                     reason: no database, disabled, ...).
 *  2. every collective (bcast, gather, scatter, reduce, allreduce, allgather, allgatherv,
 *     reduce_scatter_block, reduce_scatter, alltoall, alltoallv, barrier, scan, exscan,
 *     gatherv, scatterv) through collsel_*() against PMPI_*() on identical buffers, for counts
 *     at both ends of every interval: int data with MPI_SUM, and for the reductions (scan and
 *     exscan too) a non-commutative op (2x2 matrix product mod 31 on a type of 4 ints), every
 *     root, with and without MPI_IN_PLACE where MPI allows it (not bcast, barrier; gather,
 *     scatter, reduce, gatherv, scatterv at the root), the v-collectives (allgatherv,
 *     gatherv, scatterv, alltoallv) and reduce_scatter with equal and with irregular counts
 *     (zeros among them; alltoallv's asymmetric, symmetric in place) and non-monotone
 *     displacements with gaps; gatherv's and scatterv's count arrays are given at the root
 *     only. Data MPI leaves undefined is not compared: an in-place reduce_scatter(_block)
 *     defines only the first block of its receive buffer, exscan nothing on rank 0. Each case
 *     runs three times with fresh data in fresh buffers placed differently (the second and
 *     third calls hit the selector's call cache). Whole allocations, 64 sentinel bytes on both
 *     sides included, must be equal: results, untouched send buffers, untouched insignificant
 *     receive buffers and gaps. A barrier has no data: the ranks enter it one after another,
 *     20 ms apart (the last one changing from call to call), and every rank must leave it no
 *     earlier than the last one entered, by a clock all ranks share (MPI_Wtime when
 *     MPI_WTIME_IS_GLOBAL, else CLOCK_MONOTONIC when all ranks run on this machine; otherwise
 *     only its status is checked); the log names the algorithm that ran.
 *     Rank 0 prints "expect <coll> <bytes> <algorithm>" on stdout for every call on
 *     MPI_COMM_WORLD (--prefix: on the prefix communicator): what COLLSEL_VERBOSE=3 must log
 *     for it (test_selector.sh checks), the first candidate that fits the communicator
 *     (orth(dims=2x2) only 4 processes; --grids' orth variant only its tuned size), and every
 *     rank prints "allow <coll> <bytes> <algorithm>" for the calls on its half of
 *     MPI_COMM_WORLD, which the log shows too (whose rules may differ: those of its size); the
 *     bytes are the selection key (case_bytes), for gatherv, scatterv and alltoallv the one
 *     agreed over the communicator per call.
 *  3. 20 communicators created and freed in turn, ranks in alternating order (a
 *     non-commutative allreduce and a bcast through collsel against PMPI); an
 *     intercommunicator: explain says native, allreduce, bcast, alltoall and barrier go to
 *     MPI.
 *  4. collsel_finalize(): explain says "finalized" and calls stay correct (native).
 *  5. --reinit PATH: collsel_init(PATH), PATH being a database collsel cannot use: MPI_COMM_WORLD
 *     and a new communicator are both native, for the reason PATH gives (the rules read before
 *     collsel_finalize are forgotten).
 *
 * Bad explain arguments must give MPI_ERR_ARG. Prints "N checks, M failed" on rank 0's stdout;
 * exit status 1 when any check failed on any rank. Writes nothing to stderr unless a check
 * fails (the tests count collsel's lines there). */
#include "collsel.h"
#include "rules_spec.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MARGIN_BYTES     64
#define SENTINEL         0xA5
#define PRIME            31
#define MAX_SIZES        64
#define EXPLAIN_LEN      1024
#define REPEATS          3  /* calls per case */
#define BARRIER_DELAY_MS 20 /* barrier_run: how much later each rank enters than the one before */

enum {
    BCAST,
    GATHER,
    SCATTER,
    REDUCE,
    ALLREDUCE,
    ALLGATHER,
    ALLGATHERV,
    REDUCE_SCATTER_BLOCK,
    REDUCE_SCATTER,
    ALLTOALL,
    ALLTOALLV,
    BARRIER,
    SCAN,
    EXSCAN,
    GATHERV,
    SCATTERV,
    NCOLLS
};

static const char *const coll_names[NCOLLS] = {
    "bcast",          "gather",    "scatter",    "reduce",
    "allreduce",      "allgather", "allgatherv", "reduce_scatter_block",
    "reduce_scatter", "alltoall",  "alltoallv",  "barrier",
    "scan",           "exscan",    "gatherv",    "scatterv"};

enum { MODE_RULES, MODE_NATIVE };

static int mode = MODE_RULES;
static const char *native_text = NULL;
static const char *reinit = NULL;  /* --reinit: a database that makes every call native */
static const char *forced[NCOLLS]; /* --forced keys */
static int nforced;
static int tuned[MAX_SIZES] = {4}, tuned_ppn[MAX_SIZES] = {4}, ntuned = 1;
static int grids;                    /* --grids */
static int prefix;                   /* --prefix K; 0: world and halves */
static MPI_Comm logged_comm;         /* its calls get "expect" lines, others "allow" lines */
static int cur_nprocs, cur_ppn;      /* the communicator under test */
static int cur_tuned, cur_tuned_ppn; /* its tuned (or nearest) shape */
static int world_rank, world_size;
static long checks, failures;
static int print_expect = 1; /* "expect" and "allow" lines (until collsel_finalize) */
static size_t shift_bytes;   /* buf_alloc: extra sentinel bytes before the data */
static MPI_Datatype mat_type;
static MPI_Op matmul_op;
static int sync_clock;   /* 1: the ranks share a clock (barrier_run checks synchronisation) */
static int wtime_global; /* 1: MPI_WTIME_IS_GLOBAL is true (sync_now uses MPI_Wtime) */

/* --- checks -------------------------------------------------------------------------------- */

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...) {
    checks++;
    if (!ok) {
        va_list ap;
        failures++;
        if (failures <= 20) {
            char line[2048];
            va_start(ap, fmt);
            vsnprintf(line, sizeof(line), fmt, ap);
            va_end(ap);
            /* one write per line: mpirun interleaves the ranks' partial writes */
            fprintf(stderr, "FAIL (world rank %d): %s\n", world_rank, line);
        }
    }
}

/* |log2 a - log2 v| compared with |log2 b - log2 v| as the exact ratios max/min: -1 nearer,
 * 0 as near, 1 farther (docs/selector.md). */
static int cmp_distance(int a, int b, int v) {
    long long ah = a > v ? a : v, al = a > v ? v : a, bh = b > v ? b : v, bl = b > v ? v : b;
    return ah * bl < bh * al ? -1 : ah * bl > bh * al ? 1 : 0;
}

/* The entry of --tuned-sizes the selector must use for a communicator of n processes, q per
 * node (docs/selector.md, written again here from the text, not from selector/prune.c): the
 * size nearest by |log2| distance, the larger of two as near; at that size the ppn nearest
 * by |log2| distance, the smaller of two as near. */
static int nearest_tuned(int n, int q) {
    int best = 0;
    for (int i = 1; i < ntuned; i++) {
        int c = cmp_distance(tuned[i], tuned[best], n);
        if (c < 0 || (c == 0 && tuned[i] > tuned[best])) {
            best = i;
        } else if (c == 0 && tuned[i] == tuned[best]) {
            int d = cmp_distance(tuned_ppn[i], tuned_ppn[best], q);
            if (d < 0 || (d == 0 && tuned_ppn[i] < tuned_ppn[best])) {
                best = i;
            }
        }
    }
    return best;
}

/* The processes per node of `comm` as collsel defines them (collective): COLLSEL_NODE_SIZE=k
 * emulates nodes of k consecutive ranks (at most the communicator's size), else the largest
 * group of its ranks that share memory. */
static int comm_ppn(MPI_Comm comm) {
    const char *env = getenv("COLLSEL_NODE_SIZE");
    int n, q;
    MPI_Comm node;
    MPI_Comm_size(comm, &n);
    if (env != NULL && atoi(env) >= 1) {
        return atoi(env) < n ? atoi(env) : n;
    }
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &q);
    MPI_Comm_free(&node);
    MPI_Allreduce(MPI_IN_PLACE, &q, 1, MPI_INT, MPI_MAX, comm);
    return q;
}

/* The --forced key of collective `coll`, or NULL. */
static const char *forced_key(const char *coll) {
    size_t len = strlen(coll);
    for (int i = 0; i < nforced; i++) {
        if (strncmp(forced[i], coll, len) == 0 && forced[i][len] == '/') {
            return forced[i];
        }
    }
    return NULL;
}

/* The algorithm the selector chooses for a call of `coll` with key `bytes` on the communicator
 * under test (use_comm), into out: with runs 0 the one collsel_explain names (the tuned
 * winner), with runs 1 the one that runs (the first candidate that fits the communicator:
 * rules_spec.h). */
static const char *expected(const char *coll, uint64_t bytes, int runs, char *out, int len) {
    if (forced_key(coll) != NULL) {
        snprintf(out, (size_t)len, "%s", forced_key(coll));
        return out;
    }
    if (mode == MODE_NATIVE) {
        snprintf(out, (size_t)len, "%s/native", coll);
        return out;
    }
    if (cs_spec_expected(coll, bytes, cur_tuned, grids, runs ? cur_nprocs : 0, out, len) == NULL) {
        snprintf(out, (size_t)len, "%s/native", coll);
    }
    return out;
}

/* --- explain ------------------------------------------------------------------------------- */

static void explain_one(const char *coll, uint64_t bytes, MPI_Comm comm, const char *comm_name,
                        int nprocs, const cs_spec_interval_t *iv) {
    char buf[EXPLAIN_LEN], want[128], text[256];
    const char *ranked;
    size_t wlen;
    int rc = collsel_explain(coll, (size_t)bytes, comm, buf, sizeof(buf));
    check(rc == MPI_SUCCESS, "explain(%s, %llu) on %s returned %d", coll, (unsigned long long)bytes,
          comm_name, rc);
    expected(coll, bytes, 0, want, sizeof(want));
    wlen = strlen(want);
    check(strncmp(buf, want, wlen) == 0 && buf[wlen] == ':',
          "explain(%s, %llu) on %s: want %s, got '%s'", coll, (unsigned long long)bytes, comm_name,
          want, buf);
    if (forced_key(coll) != NULL) {
        check(strstr(buf, "forced by COLLSEL_FORCE") != NULL,
              "explain(%s, %llu): want 'forced by COLLSEL_FORCE', got '%s'", coll,
              (unsigned long long)bytes, buf);
        return;
    }
    if (mode == MODE_NATIVE) {
        if (native_text != NULL && world_rank == 0 && comm == MPI_COMM_WORLD) {
            check(strstr(buf, native_text) != NULL,
                  "explain(%s, %llu): want the reason '%s', got '%s'", coll,
                  (unsigned long long)bytes, native_text, buf);
        }
        return;
    }
    ranked = strstr(buf, " ranked: ");
    cs_spec_ranked(iv, cur_tuned, grids, text, sizeof(text));
    check(ranked != NULL && strcmp(ranked + strlen(" ranked: "), text) == 0,
          "explain(%s, %llu) on %s: want ranked '%s', got '%s'", coll, (unsigned long long)bytes,
          comm_name, text, buf);
    if (cur_tuned == nprocs && cur_tuned_ppn == cur_ppn) {
        snprintf(text, sizeof(text), " tuned at %d processes, %d per node;", cur_tuned,
                 cur_tuned_ppn);
    } else {
        snprintf(text, sizeof(text),
                 " tuned at %d processes, %d per node (borrowed: the nearest tuned to %d "
                 "processes, %d per node);",
                 cur_tuned, cur_tuned_ppn, nprocs, cur_ppn);
    }
    check(strstr(buf, text) != NULL, "explain(%s, %llu) on %s (%d processes): want '%s', got '%s'",
          coll, (unsigned long long)bytes, comm_name, nprocs, text + 1, buf);
    snprintf(text, sizeof(text), " on %d processes (%d per node) ", nprocs, cur_ppn);
    check(strstr(buf, text) != NULL, "explain(%s, %llu) on %s: want '%s', got '%s'", coll,
          (unsigned long long)bytes, comm_name, text + 1, buf);
}

static void explain_all(MPI_Comm comm, const char *comm_name) {
    int nprocs;
    MPI_Comm_size(comm, &nprocs);
    for (int i = 0; i < cs_spec_count; i++) {
        const cs_spec_interval_t *iv = &cs_spec[i];
        uint64_t hi =
            iv->hi_bytes == CS_SPEC_UNBOUNDED ? iv->lo_bytes * 1000 + 12345 : iv->hi_bytes;
        if (!cs_spec_applies(iv, cur_tuned)) {
            continue; /* another size's rules */
        }
        explain_one(iv->coll, iv->lo_bytes, comm, comm_name, nprocs, iv);
        explain_one(iv->coll, hi - 1, comm, comm_name, nprocs, iv);
        if (iv->hi_bytes == CS_SPEC_UNBOUNDED) {
            explain_one(iv->coll, (uint64_t)1 << 62, comm, comm_name, nprocs, iv);
        }
    }
}

/* --- collectives --------------------------------------------------------------------------- */

/* A buffer with MARGIN_BYTES of sentinel on both sides; `data` is what MPI gets. */
typedef struct buf {
    unsigned char *mem;
    size_t bytes, lead; /* lead: sentinel bytes before the data */
    int *data;
} buf_t;

/* One call: what both sides do, on their own buffers. */
typedef struct tcase {
    int coll, count, root, in_place, mat; /* mat: the 4-int type and the non-commutative op */
    int irregular;                        /* the v-collectives, reduce_scatter: irregular counts */
    MPI_Comm comm;
    int rank, nprocs;
} tcase_t;

typedef struct side {
    buf_t send, recv;
    int *counts, *displs;   /* per rank (alltoallv: what this rank receives) */
    int *scounts, *sdispls; /* alltoallv: what this rank sends */
    /* >= 0: only this many bytes of recv's data are defined afterwards (an in-place
     * reduce_scatter's first block, nothing at exscan's rank 0); < 0: all of it */
    long recv_defined;
} side_t;

static int ints_per_elem(const tcase_t *tc) {
    return tc->mat ? 4 : 1;
}

static void buf_alloc(buf_t *b, size_t data_bytes) {
    b->lead = MARGIN_BYTES + shift_bytes;
    b->bytes = data_bytes + b->lead + MARGIN_BYTES;
    b->mem = malloc(b->bytes);
    if (b->mem == NULL) {
        fprintf(stderr, "cs_sel_dispatch: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(b->mem, SENTINEL, b->bytes);
    b->data = (int *)(void *)(b->mem + b->lead);
}

static int value(int owner, long i, int salt, int mat) {
    unsigned h = (unsigned)owner * 2654435761u ^ (unsigned)i * 40503u ^ (unsigned)salt * 7919u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return mat ? (int)(h % PRIME) : (int)(h % 2001) - 1000;
}

/* Writes `owner`'s n elements at element `first` of b. */
static void fill(const tcase_t *tc, buf_t *b, long first, long n, int owner, int salt) {
    int k = ints_per_elem(tc);
    for (long i = 0; i < n * k; i++) {
        b->data[first * k + i] = value(owner, i, salt, tc->mat);
    }
}

/* inout = in * inout, 2x2 matrices mod PRIME. Not commutative. */
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    const int *a = in;
    int *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int r[4] = {(a[0] * b[0] + a[1] * b[2]) % PRIME, (a[0] * b[1] + a[1] * b[3]) % PRIME,
                    (a[2] * b[0] + a[3] * b[2]) % PRIME, (a[2] * b[1] + a[3] * b[3]) % PRIME};
        memcpy(b, r, sizeof(r));
    }
}

/* Displacements for blocks of counts[0..n-1] elements in reverse order with a gap of one
 * element before each block. Returns the elements spanned. */
static long layout(const int *counts, int n, int *displs) {
    long at = 0;
    for (int q = n - 1; q >= 0; q--) {
        at += 1;
        displs[q] = (int)at;
        at += counts[q];
    }
    return at + 1;
}

/* The per-rank layout of allgatherv, reduce_scatter, gatherv and scatterv: counts (equal, or
 * irregular around count, zeros included) and displacements (layout). Returns the elements
 * spanned. */
static long vlayout(const tcase_t *tc, int *counts, int *displs) {
    for (int q = 0; q < tc->nprocs; q++) {
        counts[q] = tc->irregular ? (q % 3 == 1 ? 0 : tc->count + q % 2) : tc->count;
    }
    return layout(counts, tc->nprocs, displs);
}

/* Alltoallv: the elements rank `from` sends to rank `to`. Irregular counts are symmetric in
 * place (MPI_IN_PLACE takes what a rank sends from its receive layout, so from's block for to
 * must be as long as to's block for from) and asymmetric otherwise. */
static int a2av_count(const tcase_t *tc, int from, int to) {
    if (!tc->irregular) {
        return tc->count;
    }
    if (tc->in_place) {
        return (from + to) % 3 == 1 ? 0 : tc->count + (from * to) % 2;
    }
    return (from + 2 * to) % 3 == 1 ? 0 : tc->count + from % 2;
}

static int *ints(long n) {
    int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (p == NULL) {
        fprintf(stderr, "cs_sel_dispatch: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* The selection key of the case, as collsel defines it (call.h): bytes per process (alltoall,
 * reduce_scatter_block: bytes per block; scan, exscan: of the vector; barrier: 0); allgatherv,
 * reduce_scatter, gatherv, scatterv: mean bytes per block over the p blocks; alltoallv: mean
 * bytes per block over the p * p blocks (the last three agreed per call, cs_comm_agree). */
static uint64_t case_bytes(const tcase_t *tc) {
    uint64_t esize = 4 * (uint64_t)ints_per_elem(tc), total = 0;
    uint64_t p = (uint64_t)tc->nprocs;
    switch (tc->coll) {
    case BARRIER:
        return 0;
    case ALLTOALLV:
        for (int i = 0; i < tc->nprocs; i++) {
            for (int j = 0; j < tc->nprocs; j++) {
                total += (uint64_t)a2av_count(tc, i, j);
            }
        }
        return total * esize / (p * p);
    case ALLGATHERV:
    case REDUCE_SCATTER:
    case GATHERV:
    case SCATTERV: {
        int *counts = ints(tc->nprocs), *displs = ints(tc->nprocs);
        vlayout(tc, counts, displs);
        for (int q = 0; q < tc->nprocs; q++) {
            total += (uint64_t)counts[q];
        }
        free(counts);
        free(displs);
        return total * esize / p;
    }
    default:
        return (uint64_t)tc->count * esize;
    }
}

static void prepare(const tcase_t *tc, side_t *s, int salt) {
    long n = tc->count, p = tc->nprocs;
    size_t esize = 4 * (size_t)ints_per_elem(tc);
    int me = tc->rank, root = tc->rank == tc->root;
    memset(s, 0, sizeof(*s));
    s->recv_defined = -1;
    switch (tc->coll) {
    case BCAST:
        buf_alloc(&s->recv, (size_t)n * esize);
        if (root) {
            fill(tc, &s->recv, 0, n, me, salt);
        }
        break;
    case GATHER:
        buf_alloc(&s->recv, (size_t)(n * p) * esize);
        buf_alloc(&s->send, (size_t)n * esize);
        fill(tc, tc->in_place && root ? &s->recv : &s->send, tc->in_place && root ? me * n : 0, n,
             me, salt);
        break;
    case SCATTER:
        buf_alloc(&s->send, (size_t)(n * p) * esize);
        buf_alloc(&s->recv, (size_t)n * esize);
        for (int q = 0; root && q < p; q++) {
            fill(tc, &s->send, q * n, n, q, salt);
        }
        break;
    case REDUCE:
    case ALLREDUCE:
        buf_alloc(&s->send, (size_t)n * esize);
        buf_alloc(&s->recv, (size_t)n * esize);
        fill(tc, tc->in_place && (root || tc->coll == ALLREDUCE) ? &s->recv : &s->send, 0, n, me,
             salt);
        break;
    case ALLGATHER:
        buf_alloc(&s->send, (size_t)n * esize);
        buf_alloc(&s->recv, (size_t)(n * p) * esize);
        fill(tc, tc->in_place ? &s->recv : &s->send, tc->in_place ? me * n : 0, n, me, salt);
        break;
    case ALLGATHERV: {
        long span;
        s->counts = ints(p);
        s->displs = ints(p);
        span = vlayout(tc, s->counts, s->displs);
        buf_alloc(&s->recv, (size_t)span * esize);
        buf_alloc(&s->send, (size_t)s->counts[me] * esize);
        fill(tc, tc->in_place ? &s->recv : &s->send, tc->in_place ? s->displs[me] : 0,
             s->counts[me], me, salt);
        break;
    }
    case REDUCE_SCATTER_BLOCK:
    case REDUCE_SCATTER: { /* the whole vector in; in place, only the first block is defined */
        long total = 0;
        s->counts = ints(p);
        s->displs = ints(p);
        vlayout(tc, s->counts, s->displs);
        for (int q = 0; q < p; q++) {
            total += s->counts[q];
        }
        buf_alloc(&s->send, (size_t)total * esize);
        buf_alloc(&s->recv, (size_t)(tc->in_place ? total : s->counts[me]) * esize);
        fill(tc, tc->in_place ? &s->recv : &s->send, 0, total, me, salt);
        if (tc->in_place) {
            s->recv_defined = (long)((size_t)s->counts[me] * esize);
        }
        break;
    }
    case ALLTOALL:
        buf_alloc(&s->send, (size_t)(n * p) * esize);
        buf_alloc(&s->recv, (size_t)(n * p) * esize);
        fill(tc, tc->in_place ? &s->recv : &s->send, 0, n * p, me, salt);
        break;
    case ALLTOALLV: { /* in place, the data to send lies in the receive layout */
        long sspan, rspan;
        s->counts = ints(p);
        s->displs = ints(p);
        s->scounts = ints(p);
        s->sdispls = ints(p);
        for (int q = 0; q < p; q++) {
            s->scounts[q] = a2av_count(tc, me, q);
            s->counts[q] = a2av_count(tc, q, me);
        }
        sspan = layout(s->scounts, (int)p, s->sdispls);
        rspan = layout(s->counts, (int)p, s->displs);
        buf_alloc(&s->send, (size_t)sspan * esize);
        buf_alloc(&s->recv, (size_t)rspan * esize);
        fill(tc, tc->in_place ? &s->recv : &s->send, 0, tc->in_place ? rspan : sspan, me, salt);
        break;
    }
    case BARRIER:
        buf_alloc(&s->recv, sizeof(int)); /* barrier_run's verdict */
        break;
    case SCAN:
    case EXSCAN:
        buf_alloc(&s->send, (size_t)n * esize);
        buf_alloc(&s->recv, (size_t)n * esize);
        fill(tc, tc->in_place ? &s->recv : &s->send, 0, n, me, salt);
        if (tc->coll == EXSCAN && me == 0) {
            s->recv_defined = 0; /* rank 0's result is undefined */
        }
        break;
    case GATHERV: {
        long span;
        s->counts = ints(p);
        s->displs = ints(p);
        span = vlayout(tc, s->counts, s->displs);
        buf_alloc(&s->recv, (size_t)span * esize);
        buf_alloc(&s->send, (size_t)s->counts[me] * esize);
        fill(tc, tc->in_place && root ? &s->recv : &s->send,
             tc->in_place && root ? s->displs[me] : 0, s->counts[me], me, salt);
        break;
    }
    case SCATTERV: {
        long span;
        s->counts = ints(p);
        s->displs = ints(p);
        span = vlayout(tc, s->counts, s->displs);
        buf_alloc(&s->send, (size_t)span * esize);
        buf_alloc(&s->recv, (size_t)s->counts[me] * esize);
        if (root) {
            fill(tc, &s->send, 0, span, me, salt);
        }
        break;
    }
    default:
        break;
    }
}

static void side_free(side_t *s) {
    free(s->send.mem);
    free(s->recv.mem);
    free(s->counts);
    free(s->displs);
    free(s->scounts);
    free(s->sdispls);
}

/* A clock every rank reads alike: MPI_Wtime when MPI_WTIME_IS_GLOBAL says so, else
 * CLOCK_MONOTONIC, which is one clock for the processes of one machine (sync_clock says whether
 * either holds; main decides). In seconds. */
static double sync_now(void) {
    struct timespec ts;
    if (wtime_global) {
        return PMPI_Wtime();
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Barrier: no data, so what it must do is checked directly. Rank k of the communicator enters
 * ((k + turn) mod p) * BARRIER_DELAY_MS late (turn counts the barrier calls, so the last rank to
 * enter changes from call to call), and reads the clock just before it enters and just after it
 * leaves; then (MPI's own allreduce) every rank checks that it left no earlier than the last
 * rank entered: a barrier that lets a rank out before all have come in fails while the last
 * rank still sleeps. Without a clock common to all ranks (sync_clock 0) only the status is
 * checked. recv.data[0] records the verdict; the log checks which algorithm ran. */
static int barrier_run(const tcase_t *tc, side_t *s, int via_collsel) {
    static int turn;
    int late = (tc->rank + turn++) % tc->nprocs, rc, in_order = 1;
    struct timespec delay = {0, (long)late * BARRIER_DELAY_MS * 1000000L};
    double entered, left, last_in = 0;
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR) {
    }
    entered = sync_now();
    rc = via_collsel ? collsel_barrier(tc->comm) : PMPI_Barrier(tc->comm);
    left = sync_now();
    PMPI_Allreduce(&entered, &last_in, 1, MPI_DOUBLE, MPI_MAX, tc->comm);
    if (sync_clock) {
        in_order = left >= last_in;
        check(in_order,
              "%s barrier on %d processes: rank %d left %.3f ms before the last rank entered "
              "(it entered %d ms late)",
              via_collsel ? "collsel" : "the MPI library's", tc->nprocs, tc->rank,
              1e3 * (last_in - left), late * BARRIER_DELAY_MS);
    }
    s->recv.data[0] = rc == MPI_SUCCESS && in_order;
    return rc;
}

/* Runs the case on `s`, through collsel when `via_collsel`, else PMPI. */
static int run(const tcase_t *tc, side_t *s, int via_collsel) {
    MPI_Datatype t = tc->mat ? mat_type : MPI_INT;
    MPI_Op op = tc->mat ? matmul_op : MPI_SUM;
    int n = tc->count, root = tc->root, at_root = tc->rank == tc->root;
    void *send = s->send.data, *recv = s->recv.data;
    MPI_Comm c = tc->comm;
    switch (tc->coll) {
    case BCAST:
        return via_collsel ? collsel_bcast(recv, n, t, root, c) : PMPI_Bcast(recv, n, t, root, c);
    case GATHER:
        send = tc->in_place && at_root ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_gather(send, n, t, recv, n, t, root, c)
                           : PMPI_Gather(send, n, t, recv, n, t, root, c);
    case SCATTER:
        recv = tc->in_place && at_root ? MPI_IN_PLACE : recv;
        return via_collsel ? collsel_scatter(send, n, t, recv, n, t, root, c)
                           : PMPI_Scatter(send, n, t, recv, n, t, root, c);
    case REDUCE:
        send = tc->in_place && at_root ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_reduce(send, recv, n, t, op, root, c)
                           : PMPI_Reduce(send, recv, n, t, op, root, c);
    case ALLREDUCE:
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_allreduce(send, recv, n, t, op, c)
                           : PMPI_Allreduce(send, recv, n, t, op, c);
    case ALLGATHER:
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_allgather(send, n, t, recv, n, t, c)
                           : PMPI_Allgather(send, n, t, recv, n, t, c);
    case ALLGATHERV: {
        int sc = s->counts[tc->rank];
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_allgatherv(send, sc, t, recv, s->counts, s->displs, t, c)
                           : PMPI_Allgatherv(send, sc, t, recv, s->counts, s->displs, t, c);
    }
    case REDUCE_SCATTER_BLOCK:
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_reduce_scatter_block(send, recv, n, t, op, c)
                           : PMPI_Reduce_scatter_block(send, recv, n, t, op, c);
    case REDUCE_SCATTER:
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_reduce_scatter(send, recv, s->counts, t, op, c)
                           : PMPI_Reduce_scatter(send, recv, s->counts, t, op, c);
    case ALLTOALL:
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_alltoall(send, n, t, recv, n, t, c)
                           : PMPI_Alltoall(send, n, t, recv, n, t, c);
    case ALLTOALLV: { /* in place, the send arguments are ignored: none given */
        const int *sc = tc->in_place ? NULL : s->scounts, *sd = tc->in_place ? NULL : s->sdispls;
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_alltoallv(send, sc, sd, t, recv, s->counts, s->displs, t, c)
                           : PMPI_Alltoallv(send, sc, sd, t, recv, s->counts, s->displs, t, c);
    }
    case BARRIER:
        return barrier_run(tc, s, via_collsel);
    case SCAN:
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_scan(send, recv, n, t, op, c)
                           : PMPI_Scan(send, recv, n, t, op, c);
    case EXSCAN:
        send = tc->in_place ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_exscan(send, recv, n, t, op, c)
                           : PMPI_Exscan(send, recv, n, t, op, c);
    case GATHERV: { /* the count arrays only at the root, where they are significant */
        const int *rc = at_root ? s->counts : NULL, *rd = at_root ? s->displs : NULL;
        int sc = s->counts[tc->rank];
        send = tc->in_place && at_root ? MPI_IN_PLACE : send;
        return via_collsel ? collsel_gatherv(send, sc, t, recv, rc, rd, t, root, c)
                           : PMPI_Gatherv(send, sc, t, recv, rc, rd, t, root, c);
    }
    case SCATTERV: {
        const int *sc = at_root ? s->counts : NULL, *sd = at_root ? s->displs : NULL;
        int rcount = s->counts[tc->rank];
        recv = tc->in_place && at_root ? MPI_IN_PLACE : recv;
        return via_collsel ? collsel_scatterv(send, sc, sd, t, recv, rcount, t, root, c)
                           : PMPI_Scatterv(send, sc, sd, t, recv, rcount, t, root, c);
    }
    default:
        return MPI_ERR_ARG;
    }
}

/* The first byte (from the data's start) where a and b differ, LONG_MIN where they do not;
 * with defined >= 0 the data past its first `defined` bytes is not compared (the margins
 * are). */
static long first_diff(const buf_t *a, const buf_t *b, long defined) {
    size_t skip_from = a->bytes, skip_to = a->bytes;
    if (defined >= 0 && a->bytes > 0) {
        skip_from = a->lead + (size_t)defined;
        skip_to = a->bytes - MARGIN_BYTES;
    }
    for (size_t i = 0; i < a->bytes; i++) {
        if ((i < skip_from || i >= skip_to) && a->mem[i] != b->mem[i]) {
            return (long)i - (long)a->lead;
        }
    }
    return LONG_MIN;
}

/* One call of the case (repetition `rep`: other data, buffers `rep` * 16 bytes further into
 * their allocation). */
static void run_once(const tcase_t *tc, const char *comm_name, int salt, int rep) {
    side_t nat, sel;
    int rc_nat, rc_sel, bad = 0;
    long at_send, at_recv;
    shift_bytes = 16 * (size_t)rep;
    prepare(tc, &nat, salt + 1000003 * rep);
    prepare(tc, &sel, salt + 1000003 * rep);
    rc_nat = run(tc, &nat, 0);
    rc_sel = run(tc, &sel, 1);
    at_send = first_diff(&nat.send, &sel.send, -1);
    at_recv = first_diff(&nat.recv, &sel.recv, sel.recv_defined);
    bad = rc_nat != MPI_SUCCESS || rc_sel != MPI_SUCCESS || at_send != LONG_MIN ||
          at_recv != LONG_MIN;
    check(!bad,
          "%s on %s: count=%d %s root=%d in_place=%d%s call %d: status native %d collsel %d, "
          "send buffer differs at byte %ld, receive buffer at byte %ld (LONG_MIN: equal)",
          coll_names[tc->coll], comm_name, tc->count, tc->mat ? "matmul(noncommutative)" : "int",
          tc->root, tc->in_place, tc->irregular ? " irregular" : "", rep + 1, rc_nat, rc_sel,
          at_send, at_recv);
    side_free(&nat);
    side_free(&sel);
}

/* The case REPEATS times: the calls after the first have the arguments of an earlier call
 * but other buffers (the selector's call cache). */
static void run_case(const tcase_t *tc, const char *comm_name, int salt) {
    for (int rep = 0; rep < REPEATS; rep++) {
        run_once(tc, comm_name, salt, rep);
    }
}

/* MPI_IN_PLACE: everywhere but bcast and barrier (gather, scatter, reduce, gatherv and
 * scatterv: at the root only; exscan too since MPI-2.2). */
static int in_place_allowed(int coll) {
    return coll != BCAST && coll != BARRIER;
}

static int is_rooted(int coll) {
    return coll == BCAST || coll == GATHER || coll == SCATTER || coll == REDUCE ||
           coll == GATHERV || coll == SCATTERV;
}

static int has_irregular(int coll) {
    return coll == ALLGATHERV || coll == REDUCE_SCATTER || coll == ALLTOALLV || coll == GATHERV ||
           coll == SCATTERV;
}

/* Runs every case of one count of one collective. */
static void run_count(tcase_t *tc, const char *comm_name, int *salt) {
    for (tc->irregular = 0; tc->irregular <= has_irregular(tc->coll); tc->irregular++) {
        for (tc->root = 0; tc->root < (is_rooted(tc->coll) ? tc->nprocs : 1); tc->root++) {
            for (tc->in_place = 0; tc->in_place <= in_place_allowed(tc->coll); tc->in_place++) {
                /* the key may change with in_place (alltoallv's irregular counts), never
                 * with the root; test_selector.sh takes each line once */
                if (print_expect && (tc->comm != logged_comm || world_rank == 0) && tc->root == 0) {
                    char want[128];
                    uint64_t bytes = case_bytes(tc);
                    /* no rule but native for an agreeing collective (and nothing forcing it):
                     * it goes to MPI without agreeing, logged with key 0 (selector/dispatch.c) */
                    if (mode == MODE_NATIVE && forced_key(coll_names[tc->coll]) == NULL &&
                        (tc->coll == GATHERV || tc->coll == SCATTERV || tc->coll == ALLTOALLV)) {
                        bytes = 0;
                    }
                    printf("%s %s %llu %s\n", tc->comm == logged_comm ? "expect" : "allow",
                           coll_names[tc->coll], (unsigned long long)bytes,
                           expected(coll_names[tc->coll], bytes, 1, want, sizeof(want)));
                }
                run_case(tc, comm_name, ++*salt);
            }
        }
    }
}

static void run_all(MPI_Comm comm, const char *comm_name) {
    int salt = 0;
    tcase_t tc;
    memset(&tc, 0, sizeof(tc));
    tc.comm = comm;
    MPI_Comm_rank(comm, &tc.rank);
    MPI_Comm_size(comm, &tc.nprocs);
    for (int i = 0; i < cs_spec_count; i++) {
        const cs_spec_interval_t *iv = &cs_spec[i];
        if (!cs_spec_applies(iv, cur_tuned)) {
            continue; /* another size's rules */
        }
        for (tc.coll = 0; tc.coll < NCOLLS && strcmp(coll_names[tc.coll], iv->coll) != 0;
             tc.coll++) {
        }
        int reduction = tc.coll == REDUCE || tc.coll == ALLREDUCE ||
                        tc.coll == REDUCE_SCATTER_BLOCK || tc.coll == REDUCE_SCATTER ||
                        tc.coll == SCAN || tc.coll == EXSCAN;
        if (tc.coll == BARRIER) { /* no data: every call's key is 0 */
            if (iv->lo_bytes == 0) {
                tc.count = 0;
                tc.mat = 0;
                run_count(&tc, comm_name, &salt);
            }
            continue;
        }
        for (tc.mat = 0; tc.mat <= reduction; tc.mat++) {
            uint64_t esize = 4 * (uint64_t)ints_per_elem(&tc);
            uint64_t lo = (iv->lo_bytes + esize - 1) / esize;
            uint64_t hi =
                iv->hi_bytes == CS_SPEC_UNBOUNDED ? 2 * lo + 1 : (iv->hi_bytes - 1) / esize;
            if (lo * esize >= iv->hi_bytes) {
                continue; /* no count of this type falls in the interval */
            }
            tc.count = (int)lo;
            run_count(&tc, comm_name, &salt);
            if (hi != lo && hi * esize >= iv->lo_bytes) {
                tc.count = (int)hi;
                run_count(&tc, comm_name, &salt);
            }
        }
    }
}

/* --- main ---------------------------------------------------------------------------------- */

/* "2,4,4:2": sizes, each with its ppn (default: the size). */
static int parse_sizes(const char *text) {
    const char *s = text;
    ntuned = 0;
    while (*s != '\0') {
        char *end = NULL;
        long v = strtol(s, &end, 10), q = v;
        if (end != s && *end == ':') {
            const char *at = end + 1;
            q = strtol(at, &end, 10);
            if (end == at) {
                return -1;
            }
        }
        if (end == s || v < 1 || q < 1 || ntuned == MAX_SIZES || (*end != ',' && *end != '\0')) {
            return -1;
        }
        tuned_ppn[ntuned] = (int)q;
        tuned[ntuned++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    return ntuned > 0 ? 0 : -1;
}

/* Makes `comm` the communicator under test (collective): its size and ppn, and the tuned shape
 * whose rules it must use (cur_*), which explain_all, run_all and expected() check against. */
static void use_comm(MPI_Comm comm) {
    int best;
    MPI_Comm_size(comm, &cur_nprocs);
    cur_ppn = comm_ppn(comm);
    best = nearest_tuned(cur_nprocs, cur_ppn);
    cur_tuned = tuned[best];
    cur_tuned_ppn = tuned_ppn[best];
}

static void test_comm(MPI_Comm comm, const char *name) {
    use_comm(comm);
    explain_all(comm, name);
    run_all(comm, name);
}

/* Communicators created and freed one after another, their ranks in alternating order: each
 * call must use its own communicator's state, never a freed one's (Open MPI reuses handles). */
static void test_churn(void) {
    for (int i = 0; i < 20; i++) {
        MPI_Comm c;
        tcase_t tc;
        if (i % 2 == 0) {
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        } else {
            MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - world_rank, &c);
        }
        memset(&tc, 0, sizeof(tc));
        tc.comm = c;
        MPI_Comm_rank(c, &tc.rank);
        MPI_Comm_size(c, &tc.nprocs);
        tc.coll = ALLREDUCE; /* non-commutative: the rank order shows */
        tc.mat = 1;
        tc.count = 16;
        run_once(&tc, i % 2 ? "churn-reversed" : "churn-dup", 7 * i, 0);
        tc.coll = BCAST;
        tc.mat = 0;
        tc.count = 300;
        tc.root = tc.nprocs - 1;
        run_once(&tc, i % 2 ? "churn-reversed" : "churn-dup", 7 * i + 1, 0);
        MPI_Comm_free(&c);
    }
}

/* An intercommunicator (even world ranks against odd ones) goes straight to MPI: allreduce,
 * bcast, alltoall and barrier. */
static void test_intercomm(void) {
    MPI_Comm local, inter;
    int color = world_rank % 2, lrank, rsize, in[8], out[8], ref[8];
    char buf[EXPLAIN_LEN];
    if (world_size < 2) {
        return;
    }
    MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &local);
    MPI_Comm_rank(local, &lrank);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 99, &inter);
    MPI_Comm_remote_size(inter, &rsize);
    check(collsel_explain("allreduce", 64, inter, buf, sizeof(buf)) == MPI_SUCCESS &&
              strncmp(buf, "allreduce/native: ", 18) == 0 &&
              (mode == MODE_NATIVE || strstr(buf, "intercommunicator") != NULL),
          "explain on an intercommunicator: '%s'", buf);
    for (int i = 0; i < 8; i++) {
        in[i] = world_rank * 10 + i;
    }
    check(collsel_allreduce(in, out, 8, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS &&
              PMPI_Allreduce(in, ref, 8, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS &&
              memcmp(out, ref, sizeof(out)) == 0,
          "allreduce on an intercommunicator differs from MPI's");
    /* bcast from rank 0 of the even group to the odd group */
    for (int i = 0; i < 8; i++) {
        out[i] = color == 0 ? 1000 + i : -1;
        ref[i] = 1000 + i;
    }
    check(collsel_bcast(out, 8, MPI_INT, color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                        inter) == MPI_SUCCESS &&
              memcmp(out, ref, sizeof(out)) == 0,
          "bcast on an intercommunicator: wrong data (remote size %d)", rsize);
    /* alltoall: one int to every rank of the remote group; and a barrier */
    for (int i = 0; i < 8; i++) {
        in[i] = world_rank * 10 + i;
        out[i] = ref[i] = -1;
    }
    check(rsize <= 8 && collsel_alltoall(in, 1, MPI_INT, out, 1, MPI_INT, inter) == MPI_SUCCESS &&
              PMPI_Alltoall(in, 1, MPI_INT, ref, 1, MPI_INT, inter) == MPI_SUCCESS &&
              memcmp(out, ref, sizeof(out)) == 0,
          "alltoall on an intercommunicator differs from MPI's (remote size %d)", rsize);
    check(collsel_barrier(inter) == MPI_SUCCESS, "barrier on an intercommunicator failed");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

static void test_api(void) {
    char buf[EXPLAIN_LEN], small[8];
    check(collsel_explain("alltoallw", 8, MPI_COMM_WORLD, buf, sizeof(buf)) == MPI_ERR_ARG,
          "explain of an unknown collective must return MPI_ERR_ARG");
    check(collsel_explain("bcast", 8, MPI_COMM_WORLD, NULL, 10) == MPI_ERR_ARG,
          "explain with a NULL buffer must return MPI_ERR_ARG");
    check(collsel_explain(NULL, 8, MPI_COMM_WORLD, buf, sizeof(buf)) == MPI_ERR_ARG,
          "explain with a NULL collective must return MPI_ERR_ARG");
    memset(small, 'x', sizeof(small));
    check(collsel_explain("allreduce", 1 << 20, MPI_COMM_WORLD, small, sizeof(small)) ==
                  MPI_SUCCESS &&
              memchr(small, '\0', sizeof(small)) != NULL,
          "explain into a short buffer must succeed and terminate the text");
}

/* Steps 4 and 5: after collsel_finalize, and after collsel_init(--reinit). */
static void test_finalized(void) {
    /* After collsel_finalize every call is native. */
    collsel_finalize();
    {
        /* COLLSEL_DISABLE is said first: collsel never ran */
        const char *finalized = native_text != NULL && strstr(native_text, "COLLSEL_DISABLE")
                                    ? "allreduce/native: collsel is disabled (COLLSEL_DISABLE)"
                                    : "allreduce/native: collsel is finalized";
        char buf[EXPLAIN_LEN];
        check(collsel_explain("allreduce", 1024, MPI_COMM_WORLD, buf, sizeof(buf)) == MPI_SUCCESS &&
                  strcmp(buf, finalized) == 0,
              "after collsel_finalize explain says '%s'", buf);
    }
    mode = MODE_NATIVE;
    nforced = 0;
    print_expect = 0;
    use_comm(MPI_COMM_WORLD);
    run_all(MPI_COMM_WORLD, "world-finalized");

    /* collsel_init again, with another database: it applies to every communicator, those used
     * before collsel_finalize too (it "forgets the rules"). */
    if (reinit != NULL) {
        MPI_Comm dup;
        collsel_init(reinit);
        native_text = reinit;
        explain_all(MPI_COMM_WORLD, "world-reinit");
        run_all(MPI_COMM_WORLD, "world-reinit");
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        use_comm(dup);
        explain_all(dup, "dup-reinit");
        run_all(dup, "dup-reinit");
        MPI_Comm_free(&dup);
    }
}

/* --prefix K: the communicator of world ranks 0..K-1, in world order (rank 0 logs its calls). */
static void test_prefix(void) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < prefix ? 0 : MPI_UNDEFINED, world_rank, &sub);
    if (sub != MPI_COMM_NULL) {
        logged_comm = sub;
        test_comm(sub, "prefix");
        MPI_Comm_free(&sub);
    }
}

int main(int argc, char **argv) {
    int total[2];
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tuned-sizes") == 0 && i + 1 < argc &&
            parse_sizes(argv[i + 1]) == 0) {
            i++;
        } else if (strcmp(argv[i], "--grids") == 0) {
            grids = 1;
        } else if (strcmp(argv[i], "--prefix") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 1 &&
                   atoi(argv[i + 1]) <= world_size) {
            prefix = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--forced") == 0 && i + 1 < argc && nforced < NCOLLS) {
            forced[nforced++] = argv[++i];
        } else if (strcmp(argv[i], "--reinit") == 0 && i + 1 < argc) {
            reinit = argv[++i];
        } else if (strcmp(argv[i], "--native") == 0) {
            mode = MODE_NATIVE;
            if (i + 1 < argc && argv[i + 1][0] != '-') {
                native_text = argv[++i];
            }
        } else {
            if (world_rank == 0) {
                fprintf(stderr, "usage: cs_sel_dispatch [--tuned-sizes LIST] [--grids] "
                                "[--prefix K] [--forced KEY] [--native [TEXT]] [--reinit PATH]\n");
            }
            MPI_Finalize();
            return 2;
        }
    }
    {
        /* A clock common to all ranks: MPI's global MPI_Wtime, or CLOCK_MONOTONIC when every
         * rank runs on this machine (one shared-memory node). */
        int *global = NULL, flag = 0, node_size = 0;
        MPI_Comm node;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
        wtime_global = flag && global != NULL && *global;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &node_size);
        MPI_Comm_free(&node);
        sync_clock = wtime_global || node_size == world_size;
    }
    MPI_Type_contiguous(4, MPI_INT, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Op_create(matmul_fn, 0, &matmul_op);
    logged_comm = MPI_COMM_WORLD;
    collsel_init(NULL);

    test_api();
    if (prefix > 0) {
        test_prefix();
    } else {
        test_comm(MPI_COMM_WORLD, "world");
        if (world_size >= 2) {
            /* two halves, ranks reversed: other sizes, so other nearest tuned sizes */
            MPI_Comm_split(MPI_COMM_WORLD, world_rank < (world_size + 1) / 2,
                           world_size - world_rank, &half);
            test_comm(half, "half");
            MPI_Comm_free(&half);
        }
        test_churn();
        test_intercomm();
        test_finalized();
    }

    total[0] = (int)checks;
    total[1] = (int)failures;
    PMPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("%d checks, %d failed\n", total[0], total[1]);
    }
    MPI_Op_free(&matmul_op);
    MPI_Type_free(&mat_type);
    MPI_Finalize();
    return total[1] > 0 ? 1 : 0;
}

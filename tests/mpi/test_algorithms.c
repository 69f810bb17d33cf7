/* cs_mpi_test: every registered algorithm against the native MPI collective, under mpirun.
 *
 * For each algorithm in cs_registry (natives included), each of its variants for the
 * communicator (cs_algo_variants: every 2D and 3D grid layout for the orthogonal algorithms,
 * none at a prime size; the leader and segment counts of DPML for the node size, which
 * COLLSEL_NODE_SIZE emulates) and each combination of
 *   - datatype: MPI_INT, MPI_DOUBLE (integer values, so sums are exact) and a derived type with
 *     a non-zero lower bound and gaps (2 ints at byte displacements 8 and 16, resized to lb 4,
 *     extent 20); reductions use MPI_SUM on int/double, a commutative user sum on the derived
 *     type and two non-commutative user ops: the 2x2 matrix product mod 31 on a contiguous
 *     type of 4 ints and the composition of affine maps mod 31 (upper-triangular 2x2 matrices)
 *     on the derived type; gather, scatter, allgather(v) also send and receive different
 *     types with one signature (n derived elements against 2n ints, and the reverse);
 *   - root: every rank for bcast, gather, scatter, reduce;
 *   - count: 0, 1, p-1, p, p+1, 3p+2, 4099 (messages past the eager limit), and 300000 ints
 *     (over 1 MiB per process; int data and root p-1 only);
 *   - odd types, counts 1 and p+1 only, roots 0 and p-1 (not with --quick): a strided vector
 *     with a negative lower bound and holes (ints at bytes 0 and 12, lb -8, extent 28), a
 *     zero-size type (MPI_Type_contiguous(0, MPI_INT), count > 0: no data, only the margins
 *     are compared), and buffers passed as MPI_BOTTOM with an absolute struct type built from
 *     MPI_Get_address of two separate arrays (element k is (A[k], B[k]); for bcast and the
 *     reductions, whose one type can address one buffer only, in place); reductions with the
 *     commutative user sum;
 *   - MPI_IN_PLACE where the collective allows it (gather/scatter/reduce root, allreduce,
 *     allgather, allgatherv, alltoall, reduce_scatter_block, reduce_scatter, scan, exscan;
 *     gatherv/scatterv root, alltoallv; in place, only the first block of a reduce_scatter's
 *     receive buffer is defined afterwards, so only it and the margin before it are compared;
 *     exscan's rank 0 result is undefined and not compared);
 * the call is run natively (MPI_*) on one set of buffers and through cs_algo_run_variant() on an
 * identical set. Every buffer has a sentinel-filled margin on both sides and the derived type
 * leaves sentinel gaps inside each element, so comparing whole allocations byte for byte checks
 * the data, the gaps and over- or underruns at once. Send buffers must come back unchanged and
 * receive buffers that MPI declares insignificant (non-root gather/reduce) must stay untouched.
 * Exscan's receive buffer on rank 0, which MPI leaves undefined, is not compared (the
 * simulator checks that collsel's algorithms leave it untouched).
 * allgatherv uses irregular counts (zeros included) at non-monotone displacements with gaps,
 * and the same counts packed in rank order. reduce_scatter uses irregular counts (every third
 * rank's block empty) and equal counts; reduce_scatter_block `count` elements per block;
 * gatherv and scatterv the same layouts as allgatherv at the root (non-roots pass NULL count
 * arrays), alltoallv irregular counts per pair (zeros included, different in the two
 * directions, symmetric in place) with one side scattered and the other packed. Their calls are
 * agreed (cs_comm_agree) as the selector agrees them, so the binomial gatherv and scatterv run.
 * After MPI_COMM_WORLD, a reduced set (as --quick) runs again on a communicator with the ranks
 * in reverse order, which also creates and frees a per-communicator context while MPI runs.
 * The neighbourhood collectives, which need topology communicators, are tested by
 * test_neighbor.c (cs_test_neighbors) after each pass.
 *
 * All ranks agree on every case's verdict (MPI_Allreduce), so they stay in step after a
 * failure. Failures are printed to stderr by the rank that sees them; rank 0 of MPI_COMM_WORLD
 * prints one line per variant to stdout and finally "N passed, N failed", the last line on
 * stdout; the exit status is 1 when any case failed.
 *
 * Options: --quick (roots 0 and p-1, counts 0 and p+1, no large count),
 *          --only PREFIX[,PREFIX...] (algorithms whose name starts with one of the PREFIXes,
 *          e.g. "reduce/" or "reduce/,bcast/"),
 *          --form nb|persistent (docs/nonblocking.md: run each variant that can be an operation
 *          (core/nb.h) as a nonblocking operation completed by cs_nb_wait, or as a persistent
 *          one started twice (once when in place, where a second run would reduce its own
 *          result) and freed; the others are skipped, as are the neighbourhood collectives.
 *          A variant with a per-communicator state (the orthogonal grids, both phases) must
 *          be refused before its state exists; the test then makes it, collectively, as a
 *          blocking call or the selector would, and runs the operations on it).
 * A variant that runs a native collective on sub-communicators creates them on first use in
 * the communicator's context (collectively), so these runs also check that setup.
 */
#include "core/algo.h"
#include "core/comm.h"
#include "core/loggp.h"
#include "core/machine.h"
#include "core/nb.h"
#include "mpi_test.h"
#include "ompi/ompi.h"
#include "registry.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN_BYTES  64
#define SEND_SENTINEL 0x5A /* different fills, so copying a gap or margin from a send */
#define RECV_SENTINEL 0xA5 /* buffer into a receive buffer shows */
#define MID_COUNT     4099 /* past Open MPI's shared-memory eager limit (4 KiB) */
#define BIG_COUNT     300000
#define PRIME         31
#define GAP_BYTES     4096 /* between the two arrays of the MPI_BOTTOM type: room for 1024 ints */
#define MAX_REPORTS   10   /* failure lines per rank and algorithm */
#define COUNT_OF(a)   (sizeof(a) / sizeof((a)[0]))

/* A test datatype: the MPI handle and where the fields of one element sit. */
typedef struct dtype {
    const char *name;
    MPI_Datatype type;
    MPI_Aint lb, extent;
    MPI_Aint true_lb, true_extent;
    int nfields;
    MPI_Aint field_off[4]; /* bytes from the element's origin */
    int is_double;         /* fields are doubles, else ints */
} dtype_t;

/* The types of a case and what it reduces with (MPI_OP_NULL for data movement). Gather,
 * scatter, allgather(v) may receive a different type with the same type signature: a case of
 * `count` then sends count * send_ratio elements of `type` and receives count * recv_ratio
 * elements of `recv_type` per block. */
typedef struct kind {
    const char *name;
    const dtype_t *type;
    MPI_Op op;
    int modular; /* values must lie in [0, PRIME) */
    const dtype_t *recv_type;
    int send_ratio, recv_ratio;
    int bottom; /* buffers passed as MPI_BOTTOM with absolute types (to_bottom) */
} kind_t;

typedef struct tcase {
    const cs_algo_t *algo;
    const cs_variant_t *variant;
    const char *name; /* the variant's */
    const kind_t *kind;
    int root, count, in_place, salt;
    int packed; /* allgatherv: blocks packed in rank order; reduce_scatter: equal blocks */
} tcase_t;

/* A buffer: `mem` holds MARGIN_BYTES of sentinel, the elements, and MARGIN_BYTES of sentinel;
 * `origin` is what MPI gets (mem + MARGIN_BYTES - lb). Gaps inside elements keep the sentinel.
 * mem == NULL when there is none. */
typedef struct buf {
    unsigned char *mem;
    size_t bytes;
    char *origin;
} buf_t;

/* The MPI arguments of one side of a case. */
typedef struct args {
    const void *sendbuf; /* may be MPI_IN_PLACE */
    void *recvbuf;       /* may be MPI_IN_PLACE */
    int sendcount, recvcount;
    const int *recvcounts, *displs;
    const int *sendcounts, *sdispls; /* scatterv (displs), alltoallv */
    MPI_Datatype type, recvtype;     /* type is also the send type */
    MPI_Op op;
    int root;
} args_t;

/* One side (native or algorithm) of one case on this rank. */
typedef struct side {
    buf_t send, recv;
    args_t a;
    int recv_significant;
    long recv_checked;  /* >= 0: only the first margin and this many elements of recv are
                         * defined (an in-place reduce_scatter's result); < 0: all of it */
    int recv_undefined; /* MPI leaves the result undefined here (exscan's rank 0): not compared */
    int *recvcounts, *displs, *sendcounts, *sdispls;
    MPI_Datatype abs[2]; /* MPI_BOTTOM kinds: the absolute send and receive types */
} side_t;

enum { SIDE_NATIVE, SIDE_ALGO };

typedef struct coll_ops {
    int (*prepare)(const tcase_t *tc, side_t *s);
    int (*native)(const args_t *a);
    int (*construct)(cs_call_t *call, const args_t *a);
    int in_place_allowed;
} coll_ops_t;

static MPI_Comm comm; /* the communicator under test */
static const char *comm_name;
static int rank, nprocs; /* in comm */
static int world_rank;   /* prints the summaries */
static dtype_t t_int, t_double, t_derived, t_mat;
static kind_t movement_kinds[5], reduction_kinds[5];
/* The odd types (fewer cases each): negative lower bound with holes, zero size, MPI_BOTTOM. */
static dtype_t t_vneg, t_empty, t_pair;
static kind_t odd_movement_kinds[3], odd_reduction_kinds[3];
/* The absolute types of the current case (to_bottom), which the user ops look up too. */
static dtype_t bottoms[4];
static int nbottoms;
static int reports;
/* --form: how a variant runs (cs_algo_run_variant, or as an operation of core/nb.h) */
static enum { FORM_BLOCKING, FORM_NB, FORM_PERSISTENT } form;

static int mixed(const kind_t *k) {
    return k->recv_type != k->type;
}

/* ---- field access and values ------------------------------------------------------------- */

static const dtype_t *lookup(MPI_Datatype type) {
    const dtype_t *all[] = {&t_int, &t_double, &t_derived, &t_mat, &t_vneg, &t_empty, &t_pair};
    for (size_t i = 0; i < COUNT_OF(all); i++) {
        if (all[i]->type == type) {
            return all[i];
        }
    }
    for (int i = 0; i < nbottoms; i++) {
        if (bottoms[i].type == type) {
            return &bottoms[i];
        }
    }
    return NULL;
}

static int get_int(const void *base, const dtype_t *t, long i, int f) {
    int v;
    memcpy(&v, (const char *)base + i * t->extent + t->field_off[f], sizeof(v));
    return v;
}

static void set_int(void *base, const dtype_t *t, long i, int f, int v) {
    memcpy((char *)base + i * t->extent + t->field_off[f], &v, sizeof(v));
}

static void set_value(void *base, const dtype_t *t, long i, int f, int v) {
    if (t->is_double) {
        double d = v;
        memcpy((char *)base + i * t->extent + t->field_off[f], &d, sizeof(d));
    } else {
        set_int(base, t, i, f, v);
    }
}

/* Deterministic test value of field f of element i of `owner`'s data. */
static int value(int owner, long i, int f, int salt, int modular) {
    unsigned h = (unsigned)owner * 2654435761u ^ (unsigned)i * 40503u ^ (unsigned)f * 977u ^
                 (unsigned)salt * 7919u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return modular ? (int)(h % PRIME) : (int)(h % 2001) - 1000;
}

/* ---- user ops: inout = in op inout, `in` holding the lower ranks -------------------------- */

/* 2x2 matrices [f0 f1; f2 f3] mod PRIME: inout = in * inout. Not commutative. */
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    const dtype_t *t = lookup(*type);
    for (long i = 0; t != NULL && i < *len; i++) {
        int a[4], b[4];
        for (int f = 0; f < 4; f++) {
            a[f] = get_int(in, t, i, f);
            b[f] = get_int(inout, t, i, f);
        }
        set_int(inout, t, i, 0, (a[0] * b[0] + a[1] * b[2]) % PRIME);
        set_int(inout, t, i, 1, (a[0] * b[1] + a[1] * b[3]) % PRIME);
        set_int(inout, t, i, 2, (a[2] * b[0] + a[3] * b[2]) % PRIME);
        set_int(inout, t, i, 3, (a[2] * b[1] + a[3] * b[3]) % PRIME);
    }
}

/* Affine maps (a, b) = [a b; 0 1] mod PRIME: inout = in * inout. Not commutative. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    const dtype_t *t = lookup(*type);
    for (long i = 0; t != NULL && i < *len; i++) {
        int a1 = get_int(in, t, i, 0), b1 = get_int(in, t, i, 1);
        int a2 = get_int(inout, t, i, 0), b2 = get_int(inout, t, i, 1);
        set_int(inout, t, i, 0, (a1 * a2) % PRIME);
        set_int(inout, t, i, 1, (a1 * b2 + b1) % PRIME);
    }
}

/* Field-wise integer sum on any int type. Commutative. */
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    const dtype_t *t = lookup(*type);
    for (long i = 0; t != NULL && i < *len; i++) {
        for (int f = 0; f < t->nfields; f++) {
            set_int(inout, t, i, f, get_int(in, t, i, f) + get_int(inout, t, i, f));
        }
    }
}

/* ---- buffers ------------------------------------------------------------------------------ */

static int buf_alloc(buf_t *b, const dtype_t *t, long count, int sentinel) {
    /* count extents, or further where the data reaches past them (t_pair's second array) */
    MPI_Aint span = count * t->extent;
    MPI_Aint reach = count > 0 ? (count - 1) * t->extent + t->true_lb - t->lb + t->true_extent : 0;
    b->bytes = (size_t)(reach > span ? reach : span) + 2 * MARGIN_BYTES;
    b->mem = malloc(b->bytes);
    if (b->mem == NULL) {
        return CS_ERR_NOMEM;
    }
    memset(b->mem, sentinel, b->bytes);
    b->origin = (char *)b->mem + MARGIN_BYTES - t->lb;
    return CS_OK;
}

static void buf_free(buf_t *b) {
    free(b->mem);
    memset(b, 0, sizeof(*b));
}

/* Writes `owner`'s n elements of data at element `first` of `origin`. */
static void fill(const tcase_t *tc, char *origin, long first, long n, int owner) {
    const dtype_t *t = tc->kind->type;
    char *base = origin + first * t->extent;
    for (long i = 0; i < n; i++) {
        for (int f = 0; f < t->nfields; f++) {
            set_value(base, t, i, f, value(owner, i, f, tc->salt, tc->kind->modular));
        }
    }
}

static void side_free(side_t *s) {
    for (int k = 0; k < 2; k++) {
        if (s->abs[k] != MPI_DATATYPE_NULL && s->abs[k] != (MPI_Datatype)0) {
            MPI_Type_free(&s->abs[k]);
        }
    }
    buf_free(&s->send);
    buf_free(&s->recv);
    free(s->recvcounts);
    free(s->displs);
    free(s->sendcounts);
    free(s->sdispls);
    s->recvcounts = s->displs = s->sendcounts = s->sdispls = NULL;
}

/* ---- per-collective: buffers, native call, cs_call constructor --------------------------- */

static void args_init(const tcase_t *tc, side_t *s) {
    memset(s, 0, sizeof(*s));
    s->recv_checked = -1;
    s->abs[0] = s->abs[1] = MPI_DATATYPE_NULL;
    s->a.type = tc->kind->type->type;
    s->a.recvtype = tc->kind->recv_type->type;
    s->a.op = tc->kind->op;
    s->a.root = tc->root;
}

static int prep_bcast(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    args_init(tc, s);
    CS_CHECK(buf_alloc(&s->recv, tc->kind->type, tc->count, RECV_SENTINEL));
    if (rank == tc->root) {
        fill(tc, s->recv.origin, 0, tc->count, rank);
    }
    s->a.recvbuf = s->recv.origin;
    s->a.recvcount = tc->count;
    s->recv_significant = 1;
out:
    return rc;
}

static int prep_gather(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int in_place = tc->in_place && rank == tc->root;
    int scount = tc->count * tc->kind->send_ratio, rcount = tc->count * tc->kind->recv_ratio;
    args_init(tc, s);
    CS_CHECK(buf_alloc(&s->recv, tc->kind->recv_type, (long)nprocs * rcount, RECV_SENTINEL));
    if (in_place) {
        fill(tc, s->recv.origin, (long)rank * rcount, rcount, rank);
        s->a.sendbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->send, tc->kind->type, scount, SEND_SENTINEL));
        fill(tc, s->send.origin, 0, scount, rank);
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.sendcount = scount;
    s->a.recvcount = rcount;
    s->recv_significant = rank == tc->root;
out:
    return rc;
}

static int prep_scatter(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int in_place = tc->in_place && rank == tc->root;
    int scount = tc->count * tc->kind->send_ratio, rcount = tc->count * tc->kind->recv_ratio;
    args_init(tc, s);
    CS_CHECK(buf_alloc(&s->send, tc->kind->type, (long)nprocs * scount, SEND_SENTINEL));
    if (rank == tc->root) {
        for (int q = 0; q < nprocs; q++) {
            fill(tc, s->send.origin, (long)q * scount, scount, q);
        }
    }
    s->a.sendbuf = s->send.origin;
    if (in_place) {
        s->a.recvbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->recv, tc->kind->recv_type, rcount, RECV_SENTINEL));
        s->a.recvbuf = s->recv.origin;
    }
    s->a.sendcount = scount;
    s->a.recvcount = rcount;
    s->recv_significant = 1;
out:
    return rc;
}

/* reduce, allreduce, scan and exscan (every rank gets a result but reduce's non-roots and
 * exscan's rank 0, whose receive buffer MPI leaves undefined) */
static int prep_reduce(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int all = !cs_coll_is_rooted(tc->algo->coll);
    int in_place = tc->in_place && (all || rank == tc->root);
    args_init(tc, s);
    CS_CHECK(buf_alloc(&s->recv, tc->kind->type, tc->count, RECV_SENTINEL));
    if (in_place) {
        fill(tc, s->recv.origin, 0, tc->count, rank);
        s->a.sendbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->send, tc->kind->type, tc->count, SEND_SENTINEL));
        fill(tc, s->send.origin, 0, tc->count, rank);
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.sendcount = s->a.recvcount = tc->count;
    s->recv_significant = all || rank == tc->root;
    s->recv_undefined = tc->algo->coll == CS_COLL_EXSCAN && rank == 0;
out:
    return rc;
}

static int prep_allgather(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int scount = tc->count * tc->kind->send_ratio, rcount = tc->count * tc->kind->recv_ratio;
    args_init(tc, s);
    CS_CHECK(buf_alloc(&s->recv, tc->kind->recv_type, (long)nprocs * rcount, RECV_SENTINEL));
    if (tc->in_place) {
        fill(tc, s->recv.origin, (long)rank * rcount, rcount, rank);
        s->a.sendbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->send, tc->kind->type, scount, SEND_SENTINEL));
        fill(tc, s->send.origin, 0, scount, rank);
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.sendcount = scount;
    s->a.recvcount = rcount;
    s->recv_significant = 1;
out:
    return rc;
}

/* Irregular counts around `base` (every third rank contributes nothing), times `ratio`, placed
 * in the order odd ranks descending, then even ranks ascending, with one or two elements of
 * gap before each block, so displacements are neither increasing nor decreasing; or, `packed`,
 * in rank order without gaps from element 3 on. Returns the elements the layout spans. */
static long vplace(int packed, const int *counts, int *displs);

static long vlayout(int base, int ratio, int packed, int *counts, int *displs) {
    for (int q = 0; q < nprocs; q++) {
        counts[q] = ratio * (q % 3 == 1 ? 0 : base + q % 2);
    }
    return vplace(packed, counts, displs);
}

/* Places blocks of `counts` as vlayout() says. Returns the elements the layout spans. */
static long vplace(int packed, const int *counts, int *displs) {
    long at = 0;
    if (packed) {
        at = 3;
        for (int q = 0; q < nprocs; q++) {
            displs[q] = (int)at;
            at += counts[q];
        }
        return at + 1;
    }
    for (int k = 0; k < nprocs; k++) {
        int odd = nprocs / 2;
        int q = k < odd ? 2 * (odd - k) - 1 : 2 * (k - odd);
        at += 1 + q % 2;
        displs[q] = (int)at;
        at += counts[q];
    }
    return at + 1;
}

static int prep_allgatherv(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    long span;
    int scount;
    args_init(tc, s);
    s->recvcounts = malloc((size_t)nprocs * sizeof(int));
    s->displs = malloc((size_t)nprocs * sizeof(int));
    CS_REQUIRE(s->recvcounts != NULL && s->displs != NULL, CS_ERR_NOMEM);
    span = vlayout(tc->count, tc->kind->recv_ratio, tc->packed, s->recvcounts, s->displs);
    scount = s->recvcounts[rank] / tc->kind->recv_ratio * tc->kind->send_ratio;
    CS_CHECK(buf_alloc(&s->recv, tc->kind->recv_type, span, RECV_SENTINEL));
    if (tc->in_place) {
        fill(tc, s->recv.origin, s->displs[rank], s->recvcounts[rank], rank);
        s->a.sendbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->send, tc->kind->type, scount, SEND_SENTINEL));
        fill(tc, s->send.origin, 0, scount, rank);
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.sendcount = scount;
    s->a.recvcounts = s->recvcounts;
    s->a.displs = s->displs;
    s->recv_significant = 1;
out:
    return rc;
}

/* The v-collectives' count arrays of a side (members of it): n ints each, freed with it. */
static int alloc_counts(int **counts, int **displs) {
    *counts = malloc((size_t)nprocs * sizeof(int));
    *displs = malloc((size_t)nprocs * sizeof(int));
    return *counts != NULL && *displs != NULL ? CS_OK : CS_ERR_NOMEM;
}

/* gatherv: the blocks of allgatherv's layout (zero counts for every third rank, uneven,
 * non-monotone displacements with gaps, or packed) gathered at the root; a non-root passes
 * NULL count arrays (insignificant there). */
static int prep_gatherv(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int root = rank == tc->root;
    long span;
    int scount;
    args_init(tc, s);
    CS_CHECK(alloc_counts(&s->recvcounts, &s->displs));
    span = vlayout(tc->count, tc->kind->recv_ratio, tc->packed, s->recvcounts, s->displs);
    scount = s->recvcounts[rank] / tc->kind->recv_ratio * tc->kind->send_ratio;
    CS_CHECK(buf_alloc(&s->recv, tc->kind->recv_type, span, RECV_SENTINEL));
    if (tc->in_place && root) {
        fill(tc, s->recv.origin, s->displs[rank], s->recvcounts[rank], rank);
        s->a.sendbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->send, tc->kind->type, scount, SEND_SENTINEL));
        fill(tc, s->send.origin, 0, scount, rank);
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.sendcount = scount;
    s->a.recvcounts = root ? s->recvcounts : NULL;
    s->a.displs = root ? s->displs : NULL;
    s->recv_significant = root;
out:
    return rc;
}

/* scatterv: gatherv's layout in the root's send buffer. */
static int prep_scatterv(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int root = rank == tc->root;
    long span;
    int rcount;
    args_init(tc, s);
    CS_CHECK(alloc_counts(&s->sendcounts, &s->sdispls));
    span = vlayout(tc->count, tc->kind->send_ratio, tc->packed, s->sendcounts, s->sdispls);
    rcount = s->sendcounts[rank] / tc->kind->send_ratio * tc->kind->recv_ratio;
    CS_CHECK(buf_alloc(&s->send, tc->kind->type, span, SEND_SENTINEL));
    if (root) {
        for (int q = 0; q < nprocs; q++) {
            fill(tc, s->send.origin, s->sdispls[q], s->sendcounts[q], q);
        }
    }
    s->a.sendbuf = s->send.origin;
    if (tc->in_place && root) {
        s->a.recvbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->recv, tc->kind->recv_type, rcount, RECV_SENTINEL));
        s->a.recvbuf = s->recv.origin;
    }
    s->a.recvcount = rcount;
    s->a.sendcounts = root ? s->sendcounts : NULL;
    s->a.sdispls = root ? s->sdispls : NULL;
    s->recv_significant = 1;
out:
    return rc;
}

/* Elements of rank `from`'s alltoallv block for rank `to` (before the kind's ratio): around
 * `base`, some 0, different in the two directions; symmetric in place (MPI: one layout for
 * what is sent and received). */
static int vblock(int base, int in_place, int from, int to) {
    if (in_place) {
        return (from + to) % 3 == 1 ? 0 : base + (from * to) % 2;
    }
    return (from + 2 * to) % 4 == 1 ? 0 : base + (2 * from + to) % 3;
}

/* alltoallv: rank r's block for q is owner r * nprocs + q's data, vblock() elements, in
 * vplace()'s layouts on both sides; in place the receive buffer holds the blocks to send. */
static int prep_alltoallv(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    long sspan, rspan;
    const kind_t *k = tc->kind;
    args_init(tc, s);
    CS_CHECK(alloc_counts(&s->sendcounts, &s->sdispls));
    CS_CHECK(alloc_counts(&s->recvcounts, &s->displs));
    for (int q = 0; q < nprocs; q++) {
        s->sendcounts[q] = k->send_ratio * vblock(tc->count, tc->in_place, rank, q);
        s->recvcounts[q] = k->recv_ratio * vblock(tc->count, tc->in_place, q, rank);
    }
    sspan = vplace(tc->packed, s->sendcounts, s->sdispls);
    rspan = vplace(!tc->packed, s->recvcounts, s->displs); /* the other layout */
    CS_CHECK(buf_alloc(&s->recv, k->recv_type, rspan, RECV_SENTINEL));
    if (tc->in_place) {
        for (int q = 0; q < nprocs; q++) {
            fill(tc, s->recv.origin, s->displs[q], s->recvcounts[q], rank * nprocs + q);
        }
        s->a.sendbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->send, k->type, sspan, SEND_SENTINEL));
        for (int q = 0; q < nprocs; q++) {
            fill(tc, s->send.origin, s->sdispls[q], s->sendcounts[q], rank * nprocs + q);
        }
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.sendcounts = s->sendcounts;
    s->a.sdispls = s->sdispls;
    s->a.recvcounts = s->recvcounts;
    s->a.displs = s->displs;
    s->recv_significant = 1;
out:
    return rc;
}

/* alltoall: rank r's block for rank q is owner r * nprocs + q's data, so every block differs;
 * in place (one type only) the receive buffer holds the blocks to send. */
static int prep_alltoall(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int scount = tc->count * tc->kind->send_ratio, rcount = tc->count * tc->kind->recv_ratio;
    args_init(tc, s);
    CS_CHECK(buf_alloc(&s->recv, tc->kind->recv_type, (long)nprocs * rcount, RECV_SENTINEL));
    if (tc->in_place) {
        for (int q = 0; q < nprocs; q++) {
            fill(tc, s->recv.origin, (long)q * rcount, rcount, rank * nprocs + q);
        }
        s->a.sendbuf = MPI_IN_PLACE;
    } else {
        CS_CHECK(buf_alloc(&s->send, tc->kind->type, (long)nprocs * scount, SEND_SENTINEL));
        for (int q = 0; q < nprocs; q++) {
            fill(tc, s->send.origin, (long)q * scount, scount, rank * nprocs + q);
        }
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.sendcount = scount;
    s->a.recvcount = rcount;
    s->recv_significant = 1;
out:
    return rc;
}

/* reduce_scatter_block (`count` per block) and reduce_scatter (`packed`: `count` per block;
 * otherwise irregular, every third rank's block empty): each rank's whole input vector is its
 * data. In place the receive buffer holds the vector and only its first block (this rank's
 * result) is defined afterwards. */
static int prep_reduce_scatter(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    long total = 0;
    int mine;
    args_init(tc, s);
    s->recvcounts = malloc((size_t)nprocs * sizeof(int));
    CS_REQUIRE(s->recvcounts != NULL, CS_ERR_NOMEM);
    for (int q = 0; q < nprocs; q++) {
        int irregular = tc->algo->coll == CS_COLL_REDUCE_SCATTER && !tc->packed;
        s->recvcounts[q] = irregular ? (q % 3 == 1 ? 0 : tc->count + q % 2) : tc->count;
        total += s->recvcounts[q];
    }
    mine = s->recvcounts[rank];
    if (tc->in_place) {
        CS_CHECK(buf_alloc(&s->recv, tc->kind->type, total, RECV_SENTINEL));
        fill(tc, s->recv.origin, 0, total, rank);
        s->a.sendbuf = MPI_IN_PLACE;
        s->recv_checked = mine;
    } else {
        CS_CHECK(buf_alloc(&s->send, tc->kind->type, total, SEND_SENTINEL));
        CS_CHECK(buf_alloc(&s->recv, tc->kind->type, mine, RECV_SENTINEL));
        fill(tc, s->send.origin, 0, total, rank);
        s->a.sendbuf = s->send.origin;
    }
    s->a.recvbuf = s->recv.origin;
    s->a.recvcount = tc->count;
    s->a.recvcounts = s->recvcounts;
    s->recv_significant = 1;
out:
    return rc;
}

/* barrier: no buffers; the run checks that it completes on every rank (the simulator checks
 * that it synchronises). */
static int prep_barrier(const tcase_t *tc, side_t *s) {
    args_init(tc, s);
    return CS_OK;
}

static int native_bcast(const args_t *a) {
    return MPI_Bcast(a->recvbuf, a->recvcount, a->type, a->root, comm);
}
static int native_gather(const args_t *a) {
    return MPI_Gather(a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount, a->recvtype,
                      a->root, comm);
}
static int native_scatter(const args_t *a) {
    return MPI_Scatter(a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount, a->recvtype,
                       a->root, comm);
}
static int native_reduce(const args_t *a) {
    return MPI_Reduce(a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, a->root, comm);
}
static int native_allreduce(const args_t *a) {
    return MPI_Allreduce(a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, comm);
}
static int native_allgather(const args_t *a) {
    return MPI_Allgather(a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount, a->recvtype,
                         comm);
}
static int native_allgatherv(const args_t *a) {
    return MPI_Allgatherv(a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcounts, a->displs,
                          a->recvtype, comm);
}

static int native_alltoall(const args_t *a) {
    return MPI_Alltoall(a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount, a->recvtype,
                        comm);
}
static int native_barrier(const args_t *a) {
    (void)a;
    return MPI_Barrier(comm);
}
static int native_reduce_scatter_block(const args_t *a) {
    return MPI_Reduce_scatter_block(a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, comm);
}
static int native_reduce_scatter(const args_t *a) {
    return MPI_Reduce_scatter(a->sendbuf, a->recvbuf, a->recvcounts, a->type, a->op, comm);
}
static int native_scan(const args_t *a) {
    return MPI_Scan(a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, comm);
}
static int native_exscan(const args_t *a) {
    return MPI_Exscan(a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, comm);
}
static int native_gatherv(const args_t *a) {
    return MPI_Gatherv(a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcounts, a->displs,
                       a->recvtype, a->root, comm);
}
static int native_scatterv(const args_t *a) {
    return MPI_Scatterv(a->sendbuf, a->sendcounts, a->sdispls, a->type, a->recvbuf, a->recvcount,
                        a->recvtype, a->root, comm);
}
static int native_alltoallv(const args_t *a) {
    return MPI_Alltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->type, a->recvbuf, a->recvcounts,
                         a->displs, a->recvtype, comm);
}

static int construct_bcast(cs_call_t *c, const args_t *a) {
    return cs_call_bcast(c, a->recvbuf, a->recvcount, a->type, a->root, comm);
}
static int construct_gather(cs_call_t *c, const args_t *a) {
    return cs_call_gather(c, a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount,
                          a->recvtype, a->root, comm);
}
static int construct_scatter(cs_call_t *c, const args_t *a) {
    return cs_call_scatter(c, a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount,
                           a->recvtype, a->root, comm);
}
static int construct_reduce(cs_call_t *c, const args_t *a) {
    return cs_call_reduce(c, a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, a->root, comm);
}
static int construct_allreduce(cs_call_t *c, const args_t *a) {
    return cs_call_allreduce(c, a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, comm);
}
static int construct_allgather(cs_call_t *c, const args_t *a) {
    return cs_call_allgather(c, a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount,
                             a->recvtype, comm);
}
static int construct_allgatherv(cs_call_t *c, const args_t *a) {
    return cs_call_allgatherv(c, a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcounts,
                              a->displs, a->recvtype, comm);
}

static int construct_alltoall(cs_call_t *c, const args_t *a) {
    return cs_call_alltoall(c, a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcount,
                            a->recvtype, comm);
}
static int construct_barrier(cs_call_t *c, const args_t *a) {
    (void)a;
    return cs_call_barrier(c, comm);
}
static int construct_reduce_scatter_block(cs_call_t *c, const args_t *a) {
    return cs_call_reduce_scatter_block(c, a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op,
                                        comm);
}
static int construct_reduce_scatter(cs_call_t *c, const args_t *a) {
    return cs_call_reduce_scatter(c, a->sendbuf, a->recvbuf, a->recvcounts, a->type, a->op, comm);
}
static int construct_scan(cs_call_t *c, const args_t *a) {
    return cs_call_scan(c, a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, comm);
}
static int construct_exscan(cs_call_t *c, const args_t *a) {
    return cs_call_exscan(c, a->sendbuf, a->recvbuf, a->recvcount, a->type, a->op, comm);
}
static int construct_gatherv(cs_call_t *c, const args_t *a) {
    return cs_call_gatherv(c, a->sendbuf, a->sendcount, a->type, a->recvbuf, a->recvcounts,
                           a->displs, a->recvtype, a->root, comm);
}
static int construct_scatterv(cs_call_t *c, const args_t *a) {
    return cs_call_scatterv(c, a->sendbuf, a->sendcounts, a->sdispls, a->type, a->recvbuf,
                            a->recvcount, a->recvtype, a->root, comm);
}
static int construct_alltoallv(cs_call_t *c, const args_t *a) {
    return cs_call_alltoallv(c, a->sendbuf, a->sendcounts, a->sdispls, a->type, a->recvbuf,
                             a->recvcounts, a->displs, a->recvtype, comm);
}

static const coll_ops_t colls[CS_COLL_COUNT] = {
    [CS_COLL_BCAST] = {prep_bcast, native_bcast, construct_bcast, 0},
    [CS_COLL_GATHER] = {prep_gather, native_gather, construct_gather, 1},
    [CS_COLL_SCATTER] = {prep_scatter, native_scatter, construct_scatter, 1},
    [CS_COLL_REDUCE] = {prep_reduce, native_reduce, construct_reduce, 1},
    [CS_COLL_ALLREDUCE] = {prep_reduce, native_allreduce, construct_allreduce, 1},
    [CS_COLL_ALLGATHER] = {prep_allgather, native_allgather, construct_allgather, 1},
    [CS_COLL_ALLGATHERV] = {prep_allgatherv, native_allgatherv, construct_allgatherv, 1},
    [CS_COLL_ALLTOALL] = {prep_alltoall, native_alltoall, construct_alltoall, 1},
    [CS_COLL_BARRIER] = {prep_barrier, native_barrier, construct_barrier, 0},
    [CS_COLL_REDUCE_SCATTER_BLOCK] = {prep_reduce_scatter, native_reduce_scatter_block,
                                      construct_reduce_scatter_block, 1},
    [CS_COLL_REDUCE_SCATTER] = {prep_reduce_scatter, native_reduce_scatter,
                                construct_reduce_scatter, 1},
    [CS_COLL_SCAN] = {prep_reduce, native_scan, construct_scan, 1},
    [CS_COLL_EXSCAN] = {prep_reduce, native_exscan, construct_exscan, 1},
    [CS_COLL_GATHERV] = {prep_gatherv, native_gatherv, construct_gatherv, 1},
    [CS_COLL_SCATTERV] = {prep_scatterv, native_scatterv, construct_scatterv, 1},
    [CS_COLL_ALLTOALLV] = {prep_alltoallv, native_alltoallv, construct_alltoallv, 1},
};

/* ---- MPI_BOTTOM ----------------------------------------------------------------------------- */

/* 1 for the collectives with one datatype for both buffers (MPI_BOTTOM can then address only
 * one of them: bcast, and the reductions in place). */
static int one_type(cs_coll_t coll) {
    return coll == CS_COLL_BCAST || cs_coll_is_reduction(coll);
}

/* The absolute type of the t_pair elements at `origin`: a struct of one int of each of two
 * separate arrays, A at origin and B at origin + GAP_BYTES (MPI_Get_address of both), resized
 * to t_pair's extent, so element k is (A[k], B[k]) at MPI_BOTTOM. Registered in `bottoms` for
 * the user ops. */
static int bottom_type(const dtype_t *rel, char *origin, MPI_Datatype *out) {
    int lens[2] = {1, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, st;
    MPI_Aint disps[2];
    dtype_t *d;
    if (nbottoms >= (int)COUNT_OF(bottoms)) {
        return CS_ERR_INTERNAL;
    }
    MPI_Get_address(origin + rel->field_off[0], &disps[0]);
    MPI_Get_address(origin + rel->field_off[1], &disps[1]);
    MPI_Type_create_struct(2, lens, disps, types, &st);
    MPI_Type_create_resized(st, disps[0], rel->extent, out);
    MPI_Type_free(&st);
    MPI_Type_commit(out);
    d = &bottoms[nbottoms++];
    *d = *rel;
    d->type = *out;
    d->lb = disps[0];
    d->true_lb = disps[0];
    d->field_off[0] = disps[0]; /* from MPI_BOTTOM */
    d->field_off[1] = disps[1];
    return CS_OK;
}

/* MPI_BOTTOM kinds: after prepare(), the algorithm side's significant buffers are passed as
 * MPI_BOTTOM with absolute types built from their addresses (for one-type collectives only one
 * buffer is significant here: test_variant runs them in place, or bcast). The data stays where
 * prepare() put it, so the comparison is unchanged. The native reference keeps plain pointers
 * and the relative type: Open MPI 4.1.4's MPI_Reduce leaves an in-place root's MPI_BOTTOM buffer
 * as it was (its input, not the reduction) when the other ranks send from MPI_BOTTOM too. */
static int to_bottom(const tcase_t *tc, side_t *s) {
    int rc = CS_OK;
    int single = one_type(tc->algo->coll);
    int send_real = s->a.sendbuf != NULL && s->a.sendbuf != MPI_IN_PLACE && s->send.mem != NULL;
    int recv_real = s->a.recvbuf != NULL && s->a.recvbuf != MPI_IN_PLACE && s->recv.mem != NULL &&
                    (!single || s->recv_significant);
    CS_REQUIRE(!(single && send_real && recv_real), CS_ERR_INTERNAL);
    if (send_real) {
        CS_CHECK(bottom_type(tc->kind->type, (char *)s->a.sendbuf, &s->abs[0]));
        s->a.sendbuf = MPI_BOTTOM;
        s->a.type = s->abs[0];
    }
    if (recv_real) {
        CS_CHECK(bottom_type(tc->kind->recv_type, (char *)s->a.recvbuf, &s->abs[1]));
        s->a.recvbuf = MPI_BOTTOM;
        if (single) {
            s->a.type = s->abs[1];
        } else {
            s->a.recvtype = s->abs[1];
        }
    }
out:
    return rc;
}

/* ---- checking ----------------------------------------------------------------------------- */

/* Prints a failure at byte `byte` of a buffer's allocation, as the element index it falls in
 * (negative or >= count: in a margin, i.e. an under- or overrun). */
static void report(const tcase_t *tc, const char *what, long byte, const dtype_t *t) {
    MPI_Aint extent = t->extent > 0 ? t->extent : 1;
    long rel = byte - MARGIN_BYTES;
    long elem = rel >= 0 ? rel / (long)extent : -((-rel + (long)extent - 1) / (long)extent);
    if (++reports > MAX_REPORTS) {
        return;
    }
    fprintf(stderr,
            "FAIL %s comm=%s np=%d type=%s root=%d count=%d in_place=%d%s (rank %d): ", tc->name,
            comm_name, nprocs, tc->kind->name, tc->root, tc->count, tc->in_place,
            tc->packed ? " packed" : "", rank);
    fprintf(stderr, "%s at element %ld (byte %ld of the allocation)\n", what, elem, byte);
}

static void report_status(const tcase_t *tc, const char *what, int status) {
    if (++reports > MAX_REPORTS) {
        return;
    }
    fprintf(
        stderr,
        "FAIL %s comm=%s np=%d type=%s root=%d count=%d in_place=%d%s (rank %d): %s returned %s\n",
        tc->name, comm_name, nprocs, tc->kind->name, tc->root, tc->count, tc->in_place,
        tc->packed ? " packed" : "", rank, what, cs_status_name(status));
}

/* The first byte where a and b differ among their first `n` bytes (all of them when n < 0). */
static long first_diff(const buf_t *a, const buf_t *b, long n) {
    size_t bytes = n >= 0 && (size_t)n < a->bytes ? (size_t)n : a->bytes;
    for (size_t i = 0; i < bytes; i++) {
        if (a->mem[i] != b->mem[i]) {
            return (long)i;
        }
    }
    return -1;
}

static long first_not_sentinel(const buf_t *a) {
    for (size_t i = 0; i < a->bytes; i++) {
        if (a->mem[i] != RECV_SENTINEL) {
            return (long)i;
        }
    }
    return -1;
}

/* 1 when this rank's buffers of the algorithm side do not match the native side. */
static int compare(const tcase_t *tc, const side_t *nat, const side_t *alg) {
    long at;
    int bad = 0;
    if (alg->send.mem != NULL && (at = first_diff(&nat->send, &alg->send, -1)) >= 0) {
        report(tc, "send buffer modified", at, tc->kind->type);
        bad = 1;
    }
    if (alg->recv.mem == NULL || alg->recv_undefined) {
        return bad;
    }
    if (alg->recv_significant) {
        long n = alg->recv_checked < 0
                     ? -1
                     : MARGIN_BYTES + (long)(alg->recv_checked * tc->kind->recv_type->extent);
        at = first_diff(&nat->recv, &alg->recv, n);
        if (at >= 0) {
            report(tc, "receive buffer differs from native, first", at, tc->kind->recv_type);
            bad = 1;
        }
    } else if ((at = first_not_sentinel(&alg->recv)) >= 0) {
        report(tc, "receive buffer (insignificant on this rank) written", at, tc->kind->recv_type);
        bad = 1;
    }
    return bad;
}

/* An MPI error code as a status (CS_ERR_MPI with the code recorded). */
static int from_mpi(int err) {
    return err == MPI_SUCCESS ? CS_OK : cs_status_mpi(err);
}

/* Runs variant v for `call` in the form under test. A persistent request's status must be the
 * empty status of a collective. */
static int run_form(const cs_variant_t *v, const cs_call_t *call) {
    cs_comm_t *ctx = NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status status;
    int st, count = -1;
    if (form == FORM_BLOCKING) {
        return cs_algo_run_variant(v, call);
    }
    st = cs_comm_get(comm, &ctx);
    if (st != CS_OK) {
        return st;
    }
    if (v->algo->setup != NULL && cs_comm_state_find(ctx, v->algo, &v->params) == NULL) {
        /* An operation never makes a state (that would communicate): refused until a
         * collective call has made it, here cs_comm_state as a blocking call would. */
        const cs_state_t *state = NULL;
        st = form == FORM_NB ? cs_nb_issue(ctx, v, call, &req) : cs_nb_init(ctx, v, call, &req);
        if (st != CS_ERR_NOT_APPLICABLE) {
            fprintf(stderr, "%s: an operation without the variant's state: status %d\n",
                    v->algo->name, st);
            return CS_ERR_INTERNAL;
        }
        st = cs_comm_state(ctx, v->algo, &v->params, &state); /* collective */
        if (st != CS_OK) {
            return st;
        }
    }
    if (v->algo->reqs & CS_REQ_NODES) {
        /* An operation that uses the node's window needs it as large as its schedule: grown
         * here, collectively, as a blocking call of this shape would grow it. */
        cs_comm_sched_t *entry = NULL;
        st = cs_algo_prepare(v->algo, &v->params, call, ctx, &entry);
        if (st != CS_OK) {
            return st;
        }
    }
    if (form == FORM_NB) {
        st = cs_nb_issue(ctx, v, call, &req);
        return st != CS_OK ? st : from_mpi(cs_nb_wait(&req, MPI_STATUS_IGNORE));
    }
    /* once when any rank is in place (a rooted collective's root only) */
    int in_place = call->in_place;
    MPI_Allreduce(MPI_IN_PLACE, &in_place, 1, MPI_INT, MPI_MAX, comm);
    st = cs_nb_init(ctx, v, call, &req);
    for (int run = 0; st == CS_OK && run < (in_place ? 1 : 2); run++) {
        st = from_mpi(cs_nb_start(&req));
        if (st == CS_OK) {
            st = from_mpi(cs_nb_wait(&req, &status));
        }
        if (st == CS_OK &&
            (req == MPI_REQUEST_NULL || status.MPI_SOURCE != MPI_ANY_SOURCE ||
             status.MPI_TAG != MPI_ANY_TAG ||
             MPI_Get_count(&status, MPI_BYTE, &count) != MPI_SUCCESS || count != 0)) {
            fprintf(stderr, "persistent request: handle lost or status not empty\n");
            st = CS_ERR_INTERNAL;
        }
    }
    if (req != MPI_REQUEST_NULL && cs_nb_request_free(&req) != MPI_SUCCESS) {
        st = CS_ERR_INTERNAL;
    }
    return st;
}

/* Runs one case on every rank. Returns 1 passed, 0 failed, -1 skipped (the same everywhere). */
static int run_case(const tcase_t *tc) {
    const coll_ops_t *ops = &colls[tc->algo->coll];
    side_t side[2];
    cs_call_t call;
    int bad = 0, st;
    int verdict[2]; /* {failed, not applicable}, maxed over ranks */
    memset(side, 0, sizeof(side));
    nbottoms = 0;
    for (int k = 0; k < 2; k++) {
        st = ops->prepare(tc, &side[k]);
        if (st == CS_OK && tc->kind->bottom && k == SIDE_ALGO) {
            st = to_bottom(tc, &side[k]);
        }
        if (st != CS_OK) {
            report_status(tc, "allocating test buffers", st);
            bad = 1;
        }
    }
    st = bad ? CS_ERR_NOMEM : ops->construct(&call, &side[SIDE_ALGO].a);
    if (!bad && st != CS_OK) {
        report_status(tc, "the cs_call constructor", st);
        bad = 1;
    }
    if (cs_coll_agrees(tc->algo->coll)) { /* what the selector does before it chooses */
        cs_comm_t *ctx = NULL;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
        st = bad ? CS_OK : cs_comm_get(comm, &ctx);
        if (!bad && st == CS_OK) {
            st = cs_comm_agree(ctx, &call);
        }
        if (st != CS_OK) {
            report_status(tc, "cs_comm_agree", st);
            bad = 1;
        }
    }
    verdict[0] = bad;
    verdict[1] = !bad && cs_algo_applicable(tc->algo, &call) == CS_ERR_NOT_APPLICABLE;
    MPI_Allreduce(MPI_IN_PLACE, verdict, 2, MPI_INT, MPI_MAX, comm);
    if (verdict[0] || verdict[1]) {
        goto out;
    }
    if (ops->native(&side[SIDE_NATIVE].a) != MPI_SUCCESS) {
        report_status(tc, "the native MPI collective", CS_ERR_MPI);
        bad = 1;
    }
    st = run_form(tc->variant, &call);
    if (st == CS_ERR_NOT_APPLICABLE) {
        /* Refused without communicating (a known MPI library defect, see
         * cs_exec_ireduce_safe): a skip when every rank refuses, a failure otherwise. */
        verdict[1] = 1;
    } else if (st != CS_OK) {
        report_status(tc, "cs_algo_run_variant", st);
        bad = 1;
    } else if (compare(tc, &side[SIDE_NATIVE], &side[SIDE_ALGO])) {
        bad = 1;
    }
    verdict[0] = bad;
    {
        int refused[2] = {verdict[1], -verdict[1]}; /* max and -min over ranks */
        MPI_Allreduce(MPI_IN_PLACE, verdict, 1, MPI_INT, MPI_MAX, comm);
        MPI_Allreduce(MPI_IN_PLACE, refused, 2, MPI_INT, MPI_MAX, comm);
        if (refused[0] != -refused[1]) {
            report_status(tc, "cs_algo_run_variant on some ranks only", CS_ERR_NOT_APPLICABLE);
            verdict[0] = 1;
        }
        verdict[1] = refused[0];
    }
out:
    side_free(&side[0]);
    side_free(&side[1]);
    if (verdict[0]) {
        return 0;
    }
    return verdict[1] ? -1 : 1;
}

/* ---- case enumeration --------------------------------------------------------------------- */

static void tally(totals_t *t, int result) {
    if (result > 0) {
        t->passed++;
    } else if (result == 0) {
        t->failed++;
    } else {
        t->skipped++;
    }
}

/* Adds `c` to the set `counts` of `n` entries unless it is there. */
static int add_count(int *counts, int n, int c) {
    for (int i = 0; i < n; i++) {
        if (counts[i] == c) {
            return n;
        }
    }
    counts[n] = c;
    return n + 1;
}

/* Open MPI 4.1.4's MPI_Allreduce ring (ompi_coll_base_allreduce_intra_ring, which coll/tuned
 * picks for commutative ops at np 2 and 3 from a few hundred elements on) writes past its
 * temporary buffer when the type's lower bound differs from its true lower bound, as the
 * derived type's does (valgrind: invalid write in opal_generic_simple_unpack). The native
 * reference would corrupt the heap, so such cases are left out. */
static int openmpi_ring_bug(const tcase_t *tc) {
    return tc->algo->coll == CS_COLL_ALLREDUCE && tc->kind->type == &t_derived && tc->count > 100;
}

/* Open MPI 4.1.4's MPI_Reduce leaves an in-place root's MPI_BOTTOM buffer unchanged (the root's
 * input instead of the reduction) when the other ranks send from MPI_BOTTOM too, whatever
 * its algorithm: reduce/native, which is that call, is left out there (collsel's own reduce
 * algorithms run it, against the reference on plain pointers). */
static int openmpi_bottom_reduce_bug(const tcase_t *tc) {
    return tc->algo->coll == CS_COLL_REDUCE && tc->kind->bottom && tc->in_place &&
           cs_algo_is_native(tc->algo);
}

static void test_variant(const cs_variant_t *v, int quick, totals_t *all) {
    const cs_algo_t *algo = v->algo;
    const coll_ops_t *ops = &colls[algo->coll];
    int reduction = cs_coll_is_reduction(algo->coll);
    const kind_t *kinds = reduction ? reduction_kinds : movement_kinds;
    int nkinds = reduction ? (int)COUNT_OF(reduction_kinds) : (int)COUNT_OF(movement_kinds);
    int nroots = cs_coll_is_rooted(algo->coll) ? nprocs : 1;
    int counts[7], ncounts = 0;
    totals_t t = {0, 0, 0};
    tcase_t tc;
    char name[256];
    int nlayouts = algo->coll == CS_COLL_ALLGATHERV || algo->coll == CS_COLL_REDUCE_SCATTER ||
                           cs_coll_agrees(algo->coll)
                       ? 2
                       : 1;
    if (!cs_coll_has_data(algo->coll)) { /* barrier: one case, no data to vary */
        ncounts = add_count(counts, ncounts, 0);
        nkinds = 1;
    } else if (quick) {
        ncounts = add_count(counts, ncounts, 0);
        ncounts = add_count(counts, ncounts, nprocs + 1);
    } else {
        ncounts = add_count(counts, ncounts, 0);
        ncounts = add_count(counts, ncounts, 1);
        ncounts = add_count(counts, ncounts, nprocs - 1);
        ncounts = add_count(counts, ncounts, nprocs);
        ncounts = add_count(counts, ncounts, nprocs + 1);
        ncounts = add_count(counts, ncounts, 3 * nprocs + 2);
        ncounts = add_count(counts, ncounts, MID_COUNT);
    }
    if (form != FORM_BLOCKING && !cs_nb_may_run(algo)) {
        return; /* cannot be an operation (core/nb.h) */
    }
    reports = 0;
    memset(&tc, 0, sizeof(tc));
    cs_variant_name(v, name, sizeof(name));
    tc.algo = algo;
    tc.variant = v;
    tc.name = name;
    for (int k = 0; k < nkinds; k++) {
        tc.kind = &kinds[k];
        if (mixed(tc.kind) && algo->coll == CS_COLL_BCAST) {
            continue; /* one type on all ranks */
        }
        for (int c = 0; c < ncounts; c++) {
            tc.count = counts[c];
            if (openmpi_ring_bug(&tc)) {
                continue;
            }
            for (int root = 0; root < nroots; root++) {
                if (quick && root != 0 && root != nprocs - 1) {
                    continue;
                }
                tc.root = root;
                for (int ip = 0; ip <= ops->in_place_allowed && !(ip && mixed(tc.kind)); ip++) {
                    for (int packed = 0; packed < nlayouts; packed++) {
                        tc.in_place = ip;
                        tc.packed = packed;
                        tc.salt++;
                        tally(&t, run_case(&tc));
                    }
                }
            }
        }
    }
    /* The odd types: counts 1 and p+1, roots 0 and p-1. MPI_BOTTOM addresses one buffer of a
     * one-type collective, so those run in place only (bcast has one buffer). */
    for (int k = 0; !quick && cs_coll_has_data(algo->coll) && k < 3; k++) {
        const kind_t *odd = reduction ? &odd_reduction_kinds[k] : &odd_movement_kinds[k];
        for (int c = 0; c < 2; c++) {
            for (int root = 0; root < nroots; root++) {
                if (root != 0 && root != nprocs - 1) {
                    continue;
                }
                for (int ip = 0; ip <= ops->in_place_allowed; ip++) {
                    if (odd->bottom && one_type(algo->coll) && algo->coll != CS_COLL_BCAST && !ip) {
                        continue;
                    }
                    tc.kind = odd;
                    tc.in_place = ip;
                    if (openmpi_bottom_reduce_bug(&tc)) {
                        continue;
                    }
                    for (int packed = 0; packed < nlayouts; packed++) {
                        tc.count = c == 0 ? 1 : nprocs + 1;
                        tc.root = root;
                        tc.packed = packed;
                        tc.salt++;
                        tally(&t, run_case(&tc));
                    }
                }
            }
        }
    }
    for (int ip = 0; !quick && cs_coll_has_data(algo->coll) && ip <= ops->in_place_allowed; ip++) {
        /* Large cases: int data, the last rank as root. */
        tc.kind = &kinds[0];
        tc.count = BIG_COUNT;
        tc.root = nroots - 1;
        tc.in_place = ip;
        tc.packed = 0;
        tc.salt++;
        tally(&t, run_case(&tc));
    }
    if (world_rank == 0) {
        printf("%-8s %-40s %4d passed, %d failed, %d skipped\n", comm_name, name, t.passed,
               t.failed, t.skipped);
        fflush(stdout);
    }
    all->passed += t.passed;
    all->failed += t.failed;
    all->skipped += t.skipped;
}

/* ---- types and ops ------------------------------------------------------------------------ */

static void dtype_init(dtype_t *t, const char *name, MPI_Datatype type, int nfields,
                       MPI_Aint field_bytes, const MPI_Aint *offs, int is_double) {
    memset(t, 0, sizeof(*t));
    t->name = name;
    t->type = type;
    MPI_Type_get_extent(type, &t->lb, &t->extent);
    MPI_Type_get_true_extent(type, &t->true_lb, &t->true_extent);
    t->nfields = nfields;
    for (int f = 0; f < nfields; f++) {
        t->field_off[f] = offs != NULL ? offs[f] : f * field_bytes;
    }
    t->is_double = is_double;
}

/* The odd types: a strided vector with a negative lower bound (ints at bytes 0 and 12, resized
 * to lb -8, extent 28: holes before, between and after the data), a zero-size type (0 ints; any
 * count of it is no data), and t_pair, two ints GAP_BYTES apart with extent 4: element k is
 * (A[k], B[k]) of two arrays A and B, which to_bottom() turns into absolute addresses. */
static void setup_odd_types(MPI_Op sum_op) {
    MPI_Datatype vec, vneg, empty, hindexed, pair;
    int blocklens[2] = {1, 1};
    MPI_Aint vec_offs[2] = {0, 12}, pair_offs[2] = {0, GAP_BYTES};
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_create_resized(vec, -8, 28, &vneg);
    MPI_Type_free(&vec);
    MPI_Type_commit(&vneg);
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Type_create_hindexed(2, blocklens, pair_offs, MPI_INT, &hindexed);
    MPI_Type_create_resized(hindexed, 0, sizeof(int), &pair);
    MPI_Type_free(&hindexed);
    MPI_Type_commit(&pair);
    dtype_init(&t_vneg, "vector_lb-8", vneg, 2, 0, vec_offs, 0);
    dtype_init(&t_empty, "empty", empty, 0, 0, NULL, 0);
    dtype_init(&t_pair, "bottom_pair", pair, 2, 0, pair_offs, 0);
    odd_movement_kinds[0] = (kind_t){"vector_lb-8", &t_vneg, MPI_OP_NULL, 0, &t_vneg, 1, 1, 0};
    odd_movement_kinds[1] = (kind_t){"empty", &t_empty, MPI_OP_NULL, 0, &t_empty, 1, 1, 0};
    odd_movement_kinds[2] =
        (kind_t){"MPI_BOTTOM(struct of 2 arrays)", &t_pair, MPI_OP_NULL, 0, &t_pair, 1, 1, 1};
    odd_reduction_kinds[0] = (kind_t){"vector_lb-8/user_sum", &t_vneg, sum_op, 0, &t_vneg, 1, 1, 0};
    odd_reduction_kinds[1] = (kind_t){"empty/user_sum", &t_empty, sum_op, 0, &t_empty, 1, 1, 0};
    odd_reduction_kinds[2] =
        (kind_t){"MPI_BOTTOM(struct of 2 arrays)/user_sum", &t_pair, sum_op, 0, &t_pair, 1, 1, 1};
}

static void setup_types(void) {
    MPI_Datatype hindexed, derived, mat;
    MPI_Op sum_op, matmul_op, affine_op;
    int blocklens[2] = {1, 1};
    MPI_Aint offs[2] = {8, 16};
    MPI_Type_create_hindexed(2, blocklens, offs, MPI_INT, &hindexed);
    MPI_Type_create_resized(hindexed, 4, 20, &derived);
    MPI_Type_free(&hindexed);
    MPI_Type_commit(&derived);
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    dtype_init(&t_int, "int", MPI_INT, 1, sizeof(int), NULL, 0);
    dtype_init(&t_double, "double", MPI_DOUBLE, 1, sizeof(double), NULL, 1);
    dtype_init(&t_derived, "hindexed_lb4", derived, 2, 0, offs, 0);
    dtype_init(&t_mat, "int4", mat, 4, sizeof(int), NULL, 0);
    MPI_Op_create(sum_fn, 1, &sum_op);
    MPI_Op_create(matmul_fn, 0, &matmul_op);
    MPI_Op_create(affine_fn, 0, &affine_op);
    movement_kinds[0] = (kind_t){"int", &t_int, MPI_OP_NULL, 0, &t_int, 1, 1, 0};
    movement_kinds[1] = (kind_t){"double", &t_double, MPI_OP_NULL, 0, &t_double, 1, 1, 0};
    movement_kinds[2] = (kind_t){"hindexed_lb4", &t_derived, MPI_OP_NULL, 0, &t_derived, 1, 1, 0};
    movement_kinds[3] = (kind_t){"hindexed_lb4->int", &t_derived, MPI_OP_NULL, 0, &t_int, 1, 2, 0};
    movement_kinds[4] = (kind_t){"int->hindexed_lb4", &t_int, MPI_OP_NULL, 0, &t_derived, 2, 1, 0};
    reduction_kinds[0] = (kind_t){"int/sum", &t_int, MPI_SUM, 0, &t_int, 1, 1, 0};
    reduction_kinds[1] = (kind_t){"double/sum", &t_double, MPI_SUM, 0, &t_double, 1, 1, 0};
    reduction_kinds[2] =
        (kind_t){"hindexed_lb4/user_sum", &t_derived, sum_op, 0, &t_derived, 1, 1, 0};
    reduction_kinds[3] =
        (kind_t){"int4/matmul(noncommutative)", &t_mat, matmul_op, 1, &t_mat, 1, 1, 0};
    reduction_kinds[4] = (kind_t){
        "hindexed_lb4/affine(noncommutative)", &t_derived, affine_op, 1, &t_derived, 1, 1, 0};
    setup_odd_types(sum_op);
}

static void free_types(void) {
    for (int k = 2; k < (int)COUNT_OF(reduction_kinds); k++) { /* the user ops */
        MPI_Op_free(&reduction_kinds[k].op);
    }
    MPI_Type_free(&t_derived.type);
    MPI_Type_free(&t_mat.type);
    MPI_Type_free(&t_vneg.type);
    MPI_Type_free(&t_empty.type);
    MPI_Type_free(&t_pair.type);
}

/* --only PREFIX[,PREFIX...] (mpi_test.h). */
int cs_test_selected(const char *name, const char *only) {
    const char *p = only;
    if (only == NULL) {
        return 1;
    }
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len > 0 && strncmp(name, p, len) == 0) {
            return 1;
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Tests every variant of every selected algorithm on communicator `c`. */
static void run_pass(MPI_Comm c, const char *name, int quick, const char *only, totals_t *all) {
    cs_variant_t *v = malloc(CS_MAX_VARIANTS * sizeof(*v));
    int ppn = 0;
    comm = c;
    comm_name = name;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    if (cs_machine_node_size(comm, &ppn) != CS_OK) { /* COLLSEL_NODE_SIZE or the real node */
        fprintf(stderr, "FAIL: cs_machine_node_size failed\n");
        all->failed++;
        ppn = nprocs;
    }
    for (int i = 0; i < cs_registry_count && v != NULL; i++) {
        const cs_algo_t *algo = cs_registry[i];
        int nv = 0;
        if (!cs_test_selected(algo->name, only) || cs_coll_is_neighbor(algo->coll)) {
            continue; /* the neighbourhood collectives: test_neighbor.c */
        }
        if (cs_algo_variants(algo, nprocs, ppn, v, CS_MAX_VARIANTS, &nv) != CS_OK) {
            fprintf(stderr, "FAIL %s: cs_algo_variants failed\n", algo->name);
            all->failed++;
            continue;
        }
        if (nv == 0 && world_rank == 0) {
            printf("%-8s %-40s no variant at np=%d\n", comm_name, algo->name, nprocs);
        }
        for (int k = 0; k < nv; k++) {
            test_variant(&v[k], quick, all);
        }
    }
    if (v == NULL) {
        fprintf(stderr, "FAIL: out of memory\n");
        all->failed++;
    }
    free(v);
}

/* A variant whose setup always refuses, counting how often it was asked. */
static int refusals;
static int refusing_setup(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {
    (void)ctx;
    (void)params;
    (void)state;
    refusals++;
    return CS_ERR_NOT_APPLICABLE;
}

/* A context asks a refused setup once (core/comm.h, cs_comm_state_t.refused): Open MPI's
 * variants without dynamic rules refused after costly MPI_T lookups on every call that named
 * one (issue 19). Returns the number of failures. */
static int check_refusal_kept(void) {
    static const cs_algo_t refusing = {
        .name = "allreduce/refusing", .coll = CS_COLL_ALLREDUCE, .setup = refusing_setup};
    cs_comm_t *ctx = NULL;
    const cs_state_t *state = NULL;
    cs_params_t params;
    int failed = 0;
    memset(&params, 0, sizeof(params));
    if (cs_comm_get(MPI_COMM_WORLD, &ctx) != CS_OK) {
        fprintf(stderr, "FAIL refusal kept: no context\n");
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        failed += cs_comm_state(ctx, &refusing, &params, &state) != CS_ERR_NOT_APPLICABLE ||
                  state != NULL;
    }
    failed += cs_comm_state_find(ctx, &refusing, &params) != NULL;
    failed += refusals != 1;
    if (failed) {
        fprintf(stderr, "FAIL refusal kept: setup asked %d times for 3 calls\n", refusals);
    }
    return failed > 0;
}

int main(int argc, char **argv) {
    int quick = 0, world_size;
    const char *only = NULL;
    totals_t all = {0, 0, 0};
    MPI_Comm reversed = MPI_COMM_NULL;
    /* Open MPI 4.1.4's topo/treematch component, which it picks for MPI_Dist_graph_create,
     * now and then leaves every rank spinning in ompi_comm_nextcid (seen at 3 to 8
     * processes, weighted or not, more often after many communicators): the tests take its
     * basic component (test_neighbor.c builds such graphs). Set before MPI_Init, which reads
     * it; a value from the environment wins. */
    setenv("OMPI_MCA_topo", "basic", 0);
    /* Open MPI's own algorithms (<coll>/ompi) are forced per communicator only with dynamic
     * rules on at MPI_Init, as collsel-bench sets them. */
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
#if defined(OPEN_MPI) && OPEN_MPI
    {
        /* Under Open MPI the family must list its variants, or its tests would pass on none. */
        char why[160];
        if (!cs_ompi_available(why, sizeof(why))) {
            if (world_rank == 0) {
                fprintf(stderr, "FAIL <coll>/ompi: %s\n", why);
            }
            all.failed++;
        }
    }
#endif
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--form") == 0 && i + 1 < argc &&
                   (strcmp(argv[i + 1], "nb") == 0 || strcmp(argv[i + 1], "persistent") == 0)) {
            form = strcmp(argv[++i], "nb") == 0 ? FORM_NB : FORM_PERSISTENT;
        } else {
            if (world_rank == 0) {
                fprintf(stderr,
                        "usage: %s [--quick] [--only PREFIX[,PREFIX...]] [--form nb|persistent]\n",
                        argv[0]);
            }
            MPI_Finalize();
            return 2;
        }
    }
    setup_types();
    all.failed += check_refusal_kept();
    run_pass(MPI_COMM_WORLD, "world", quick, only, &all);
    if (form != FORM_BLOCKING) { /* the classic collectives only, on MPI_COMM_WORLD */
        free_types();
        if (world_rank == 0) {
            printf("%d skipped (not applicable)\n", all.skipped);
            printf("%d passed, %d failed\n", all.passed, all.failed);
        }
        MPI_Finalize();
        return all.failed > 0 ? 1 : 0;
    }
    cs_test_neighbors(MPI_COMM_WORLD, "world", quick, only, &all);
    /* Ranks in reverse order: catches confusing world ranks with communicator ranks, and the
     * per-communicator context is created and freed (MPI_Comm_free) while MPI runs. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - world_rank, &reversed);
    run_pass(reversed, "reversed", 1, only, &all);
    {
        /* The balanced neighbourhood algorithms plan with the process's LogGP values
         * (core/loggp.h): on these small graphs the defaults hardly ever forward, a model where
         * latency is free (L = 0, o = 1) moves messages wherever a rank sends more than t
         * above a neighbour, so the reversed pass runs forwarding trees under MPI. */
        const cs_loggp_t eager = {0.0, 1.0, 0.0, 0.0};
        if (cs_loggp_set(&eager, CS_LOGGP_FROM_BENCH) != CS_OK) {
            fprintf(stderr, "cs_loggp_set refused the free-latency model\n");
            all.failed++;
        }
        cs_test_neighbors(reversed, "reversed", 1, only, &all);
        if (cs_loggp_set(NULL, CS_LOGGP_FROM_DEFAULTS) != CS_OK) {
            all.failed++;
        }
    }
    MPI_Comm_free(&reversed);
    free_types();
    if (world_rank == 0) {
        printf("%d skipped (not applicable)\n", all.skipped);
        printf("%d passed, %d failed\n", all.passed, all.failed);
    }
    MPI_Finalize();
    return all.failed > 0 ? 1 : 0;
}

/* collsel-bench-iso: the isomorphic collectives (collsel_iso.h, docs/message-combining.md)
 * against MPI_Neighbor_alltoall/allgather on the equivalent distributed graph, as in the
 * paper's section 4 (Träff et al., shared/papers/message-combining-traff-et-al.txt). A
 * benchmark, not a test: it prints what it measured and asserts nothing about it.
 *
 * On a periodic Cartesian communicator (--dims, or MPI_Dims_create of --d) with the Moore
 * neighbourhood of radius --radius, for each block size of --sizes:
 *   - one persistent request per candidate: iso_straightforward, iso_torus and iso_direct, each
 *     packed and zero-copy, chosen with COLLSEL_ISO_SCHEDULE (set on rank 0 before each init;
 *     collsel_iso_request_algorithm must name what was asked), and the reference
 *     MPI_Neighbor_* on isocomm (the MPI library's own: this program links the static library,
 *     which intercepts nothing);
 *   - every candidate's result is compared once with the reference's (a difference aborts the
 *     run with a message);
 *   - then --reps interleaved repetitions (A B C ... A B C ...): each call follows an
 *     MPI_Barrier, is timed on every process, the time is the maximum over processes; the
 *     table gives the median and the quartiles over repetitions, the median relative to the
 *     reference's, and the schedule's rounds D and volume V (cs_iso_build).
 * Set-up times as the paper's set-up table (median of SETUP_CALLS calls, each after a barrier,
 * maximum over processes): MPI_Dist_graph_create_adjacent of the equivalent graph,
 * collsel_iso_neighborhood_create, and each candidate's init (which builds the zero-copy
 * form's datatypes, as the paper's init does) and init plus the first start.
 *
 * Output on rank 0 (lines starting with '#' are comments):
 *   setup <function> <median_ms>
 *   init <bytes> <candidate> <init_ms> <init_and_first_start_ms>
 *   time <bytes> <candidate> <median_us> <q1_us> <q3_us> <ratio> <D> <V>
 * Usage: collsel-bench-iso [--dims AxBxC | --d D] [--radius R] [--sizes LIST] [--reps N]
 *        [--collective alltoall|allgather] [--help] */
#include "collsel_iso.h"
#include "stats.h"
#include "topo/iso.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_D = 8, MAX_SIZES = 16, SETUP_CALLS = 20, WARMUP = 3, NAME_LEN = 160 };

/* The candidates; the reference (MPI_Neighbor_*) is the last. */
static const struct {
    const char *label;    /* column "candidate" */
    const char *schedule; /* COLLSEL_ISO_SCHEDULE; NULL: the reference */
    const char *algo;     /* what collsel_iso_request_algorithm must name, after "<coll>/" */
    const char *form;     /* and the form it must name, or NULL */
    cs_iso_kind_t kind;
} cands[] = {
    {"straightforward", "straightforward", "iso_straightforward", NULL, CS_ISO_STRAIGHTFORWARD},
    {"torus/packed", "torus(form=packed)", "iso_torus", "form=packed", CS_ISO_TORUS},
    {"torus/zerocopy", "torus(form=zerocopy)", "iso_torus", "form=zerocopy", CS_ISO_TORUS},
    {"direct/packed", "direct(form=packed)", "iso_direct", "form=packed", CS_ISO_DIRECT},
    {"direct/zerocopy", "direct(form=zerocopy)", "iso_direct", "form=zerocopy", CS_ISO_DIRECT},
    {"MPI_Neighbor", NULL, NULL, NULL, CS_ISO_STRAIGHTFORWARD},
};

enum { NCANDS = sizeof(cands) / sizeof(cands[0]), REF = NCANDS - 1 };

typedef struct opts {
    int d, dims[MAX_D], have_dims, radius, nsizes, reps, allgather, help;
    int sizes[MAX_SIZES];
} opts_t;

static void usage(FILE *f) {
    fprintf(f,
            "usage: collsel-bench-iso [--dims AxBxC | --d D] [--radius R] [--sizes LIST]\n"
            "                         [--reps N] [--collective alltoall|allgather] [--help]\n"
            "  the isomorphic schedules (straightforward, torus and direct, packed and zero-copy)\n"
            "  against MPI_Neighbor_<collective> on the equivalent distributed graph, Moore\n"
            "  neighbourhood of radius R (default 1) on a periodic torus: --dims (its product is\n"
            "  the number of processes) or MPI_Dims_create in --d dimensions (default 2);\n"
            "  --sizes: block sizes in bytes, at most 16777216 (default 1,64,1024,16384); --reps:\n"
            "  interleaved repetitions (default 200). Prints 'setup', 'init' and 'time' lines\n"
            "  on rank 0.\n");
}

/* A positive int from text, or -1. */
static int positive(const char *t) {
    char *end = NULL;
    long v = strtol(t, &end, 10);
    return end != t && *end == '\0' && v > 0 && v <= (1L << 30) ? (int)v : -1;
}

/* Splits `text` at `sep` into positive ints (at most cap); the count, or -1. */
static int int_list(const char *text, char sep, int *out, int cap) {
    char buf[256];
    int n = 0;
    if (strlen(text) >= sizeof(buf))
        return -1;
    strcpy(buf, text);
    for (char *p = buf, *q; p != NULL; p = q) {
        q = strchr(p, sep);
        if (q != NULL)
            *q++ = '\0';
        if (n == cap || (out[n] = positive(p)) < 0)
            return -1;
        n++;
    }
    return n;
}

/* Parses argv into *o; 0, or 2 with a message in err. */
static int parse(int argc, char **argv, opts_t *o, char *err, size_t len) {
    static const int default_sizes[] = {1, 64, 1024, 16384};
    memset(o, 0, sizeof(*o));
    o->d = 2;
    o->radius = 1;
    o->reps = 200;
    o->nsizes = 4;
    memcpy(o->sizes, default_sizes, sizeof(default_sizes));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = 1;
            continue;
        }
        if (v == NULL) {
            snprintf(err, len, "%s needs a value (or unknown option)", a);
            return 2;
        }
        if (strcmp(a, "--dims") == 0) {
            o->d = int_list(v, 'x', o->dims, MAX_D);
            o->have_dims = 1;
            bad = o->d < 1;
        } else if (strcmp(a, "--d") == 0) {
            o->d = positive(v);
            bad = o->d < 1 || o->d > MAX_D;
        } else if (strcmp(a, "--radius") == 0) {
            o->radius = positive(v);
            bad = o->radius < 1 || o->radius > 16;
        } else if (strcmp(a, "--sizes") == 0) {
            o->nsizes = int_list(v, ',', o->sizes, MAX_SIZES);
            for (int k = 0; k < o->nsizes; k++)
                bad |= o->sizes[k] > (1 << 24);
            bad |= o->nsizes < 1;
        } else if (strcmp(a, "--reps") == 0) {
            o->reps = positive(v);
            bad = o->reps < 1 || o->reps > 1000000;
        } else if (strcmp(a, "--collective") == 0) {
            o->allgather = strcmp(v, "allgather") == 0;
            bad = !o->allgather && strcmp(v, "alltoall") != 0;
        } else {
            snprintf(err, len, "unknown option %s", a);
            return 2;
        }
        if (bad) {
            snprintf(err, len, "bad value for %s: %s", a, v);
            return 2;
        }
        i++;
    }
    return 0;
}

/* Everything one run holds. */
typedef struct bench {
    const opts_t *o;
    int rank, nprocs, s;
    MPI_Comm cart, iso;
    cs_iso_nbh_t nbh;
    const char *coll; /* "neighbor_alltoall" or "neighbor_allgather" */
} bench_t;

/* Stops every process with a message from this one (a wrong result or a failing call). */
static void die(const bench_t *b, const char *what, const char *detail) {
    fprintf(stderr, "collsel-bench-iso: rank %d: %s: %s\n", b->rank, what, detail);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(const bench_t *b, int rc, const char *what) {
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        die(b, what, msg);
    }
}

/* The median over `n` calls of the maximum over processes of x[k]; x is overwritten. */
static double median_of_max(const bench_t *b, double *x, int n) {
    cs_stats_summary_t sum;
    check(b, MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    if (cs_stats_summarize(x, (size_t)n, &sum) != CS_OK)
        die(b, "summary", "no sample");
    return sum.median;
}

/* The byte of block `block`, byte k, that process `rank` sends. */
static unsigned char pattern(int rank, int block, size_t k) {
    return (unsigned char)(rank * 131 + block * 31 + (int)(k % 251) * 7 + 1);
}

/* One request of candidate c on blocks of `bytes` (not the reference). */
static collsel_iso_request init_request(const bench_t *b, int c, const void *send, void *recv,
                                        int bytes) {
    collsel_iso_request r = COLLSEL_ISO_REQUEST_NULL;
    if (b->rank == 0 && setenv("COLLSEL_ISO_SCHEDULE", cands[c].schedule, 1) != 0)
        die(b, "setenv", cands[c].schedule);
    int rc = b->o->allgather ? collsel_iso_neighbor_allgather_init(send, bytes, MPI_BYTE, recv,
                                                                   bytes, MPI_BYTE, b->iso, &r)
                             : collsel_iso_neighbor_alltoall_init(send, bytes, MPI_BYTE, recv,
                                                                  bytes, MPI_BYTE, b->iso, &r);
    check(b, rc, "collsel_iso_neighbor_*_init");
    return r;
}

/* Runs candidate c once (its request, or the reference on recv). */
static void run(const bench_t *b, int c, collsel_iso_request *r, const void *send, void *recv,
                int bytes) {
    int rc;
    if (c != REF)
        rc = collsel_iso_start(r);
    else if (b->o->allgather)
        rc = MPI_Neighbor_allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, b->iso);
    else
        rc = MPI_Neighbor_alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, b->iso);
    check(b, rc, c != REF ? "collsel_iso_start" : "MPI_Neighbor_*");
}

/* The request must run what candidate c asked for. */
static void check_algorithm(const bench_t *b, int c, collsel_iso_request r) {
    char name[NAME_LEN], want[NAME_LEN];
    check(b, collsel_iso_request_algorithm(r, name, (int)sizeof(name)),
          "collsel_iso_request_algorithm");
    snprintf(want, sizeof(want), "%s/%s", b->coll, cands[c].algo);
    size_t n = strlen(want);
    int ok = strncmp(name, want, n) == 0 && (name[n] == '\0' || name[n] == '(');
    if (ok && cands[c].form != NULL)
        ok = strstr(name + n, cands[c].form) != NULL;
    if (!ok) {
        char detail[2 * NAME_LEN + 32];
        snprintf(detail, sizeof(detail), "asked for %s, the request runs %s", cands[c].schedule,
                 name);
        die(b, "COLLSEL_ISO_SCHEDULE not followed", detail);
    }
}

/* D and V of candidate c's schedule (the reference: s messages of one block each, printed as
 * "-"), into text. */
static void rounds_volume(const bench_t *b, int c, char *d_text, char *v_text, size_t len) {
    cs_iso_sched_t sc;
    if (c == REF) {
        snprintf(d_text, len, "-");
        snprintf(v_text, len, "-");
        return;
    }
    memset(&sc, 0, sizeof(sc));
    if (cs_iso_build(&b->nbh, b->o->allgather ? CS_ISO_ALLGATHER : CS_ISO_ALLTOALL, cands[c].kind,
                     &sc) != CS_OK)
        die(b, "cs_iso_build", cands[c].label);
    snprintf(d_text, len, "%d", cs_iso_rounds(&sc));
    snprintf(v_text, len, "%ld", cs_iso_volume(&sc));
    cs_iso_sched_free(&sc);
}

/* The set-up times: the equivalent distributed graph and collsel_iso_neighborhood_create. */
static void time_setup(const bench_t *b) {
    double t[2][SETUP_CALLS];
    int s = b->s, d = b->nbh.d;
    int *targets = malloc(((size_t)s + 1) * sizeof(int));
    int *sources = malloc(((size_t)s + 1) * sizeof(int));
    if (targets == NULL || sources == NULL)
        die(b, "set-up", "out of memory");
    for (int i = 0; i < s; i++) {
        targets[i] = cs_iso_shift(&b->nbh, b->rank, &b->nbh.offsets[i * d], +1);
        sources[i] = cs_iso_shift(&b->nbh, b->rank, &b->nbh.offsets[i * d], -1);
    }
    /* Through a volatile: GCC reads Open MPI's MPI_UNWEIGHTED, a small constant address, as an
     * array of size 0 (-Wstringop-overread), as in selector/iso_api.c. */
    int *volatile unweighted = MPI_UNWEIGHTED;
    for (int k = 0; k < SETUP_CALLS; k++) {
        MPI_Comm g, iso;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        check(b,
              MPI_Dist_graph_create_adjacent(b->cart, s, sources, unweighted, s, targets,
                                             unweighted, MPI_INFO_NULL, 0, &g),
              "MPI_Dist_graph_create_adjacent");
        t[0][k] = MPI_Wtime() - t0;
        MPI_Comm_free(&g);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        check(b, collsel_iso_neighborhood_create(b->cart, s, b->nbh.offsets, &iso),
              "collsel_iso_neighborhood_create");
        t[1][k] = MPI_Wtime() - t0;
        MPI_Comm_free(&iso);
    }
    free(targets);
    free(sources);
    double graph = median_of_max(b, t[0], SETUP_CALLS),
           create = median_of_max(b, t[1], SETUP_CALLS);
    if (b->rank == 0) {
        printf("# set-up: median of %d calls, each after a barrier, max over processes\n",
               SETUP_CALLS);
        printf("setup MPI_Dist_graph_create_adjacent %.4f\n", graph * 1e3);
        printf("setup collsel_iso_neighborhood_create %.4f\n", create * 1e3);
    }
}

/* Each candidate's init (and init plus the first start) at blocks of `bytes`. */
static void time_init(const bench_t *b, int bytes, const void *send, void *recv) {
    for (int c = 0; c < REF; c++) {
        double t[2][SETUP_CALLS];
        for (int k = 0; k < SETUP_CALLS; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            collsel_iso_request r = init_request(b, c, send, recv, bytes);
            t[0][k] = MPI_Wtime() - t0;
            run(b, c, &r, send, recv, bytes);
            t[1][k] = MPI_Wtime() - t0;
            collsel_iso_request_free(&r);
        }
        double init = median_of_max(b, t[0], SETUP_CALLS);
        double first = median_of_max(b, t[1], SETUP_CALLS);
        if (b->rank == 0)
            printf("init %d %s %.4f %.4f\n", bytes, cands[c].label, init * 1e3, first * 1e3);
    }
}

/* Compares candidate c's receive buffer with the reference's (blocks i of s). */
static void compare(const bench_t *b, int c, const unsigned char *got, const unsigned char *ref,
                    int bytes) {
    for (int i = 0; i < b->s; i++) {
        const size_t at = (size_t)i * (size_t)bytes;
        if (memcmp(got + at, ref + at, (size_t)bytes) != 0) {
            char detail[128];
            snprintf(detail, sizeof(detail), "%d-byte blocks: receive block %d differs from %s",
                     bytes, i,
                     b->o->allgather ? "MPI_Neighbor_allgather" : "MPI_Neighbor_alltoall");
            die(b, cands[c].label, detail);
        }
    }
}

/* The whole measurement at blocks of `bytes`. */
static void measure(const bench_t *b, int bytes) {
    const int s = b->s, reps = b->o->reps;
    const size_t block = (size_t)bytes, rbytes = (size_t)s * block + 1;
    const size_t sbytes = (b->o->allgather ? 1 : (size_t)s) * block + 1;
    unsigned char *send = malloc(sbytes), *recv[NCANDS];
    double *t = malloc((size_t)reps * NCANDS * sizeof(double));
    collsel_iso_request req[NCANDS];
    if (send == NULL || t == NULL)
        die(b, "measure", "out of memory");
    for (size_t k = 0; k + 1 < sbytes; k++)
        send[k] = pattern(b->rank, (int)(k / block), k % block);
    for (int c = 0; c < NCANDS; c++) {
        if ((recv[c] = malloc(rbytes)) == NULL)
            die(b, "measure", "out of memory");
        memset(recv[c], 0xee, rbytes);
        req[c] = COLLSEL_ISO_REQUEST_NULL;
    }
    time_init(b, bytes, send, recv[0]);
    for (int c = 0; c < REF; c++) {
        req[c] = init_request(b, c, send, recv[c], bytes);
        check_algorithm(b, c, req[c]);
    }
    if (b->rank == 0)
        unsetenv("COLLSEL_ISO_SCHEDULE");
    /* the results, once, against the reference */
    run(b, REF, NULL, send, recv[REF], bytes);
    for (int c = 0; c < REF; c++) {
        run(b, c, &req[c], send, recv[c], bytes);
        compare(b, c, recv[c], recv[REF], bytes);
    }
    for (int w = 0; w < WARMUP; w++)
        for (int c = 0; c < NCANDS; c++)
            run(b, c, &req[c], send, recv[c], bytes);
    /* interleaved: A B C ... A B C ... */
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < NCANDS; c++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run(b, c, &req[c], send, recv[c], bytes);
            t[c * reps + r] = MPI_Wtime() - t0;
        }
    check(b, MPI_Allreduce(MPI_IN_PLACE, t, reps * NCANDS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    cs_stats_summary_t sum[NCANDS];
    for (int c = 0; c < NCANDS; c++)
        if (cs_stats_summarize(&t[c * reps], (size_t)reps, &sum[c]) != CS_OK)
            die(b, "summary", cands[c].label);
    for (int c = 0; b->rank == 0 && c < NCANDS; c++) {
        char d_text[24], v_text[24];
        rounds_volume(b, c, d_text, v_text, sizeof(d_text));
        printf("time %d %s %.3f %.3f %.3f %.3f %s %s\n", bytes, cands[c].label, sum[c].median * 1e6,
               sum[c].q1 * 1e6, sum[c].q3 * 1e6, sum[c].median / sum[REF].median, d_text, v_text);
    }
    if (b->rank == 0)
        fflush(stdout);
    for (int c = 0; c < NCANDS; c++) {
        collsel_iso_request_free(&req[c]);
        free(recv[c]);
    }
    free(send);
    free(t);
}

/* The torus of the run into dims (MPI_Dims_create unless --dims); 0, or 1 when --dims does
 * not multiply to nprocs. */
static int torus(const opts_t *o, int nprocs, int *dims) {
    long p = 1;
    for (int j = 0; j < o->d; j++) {
        dims[j] = o->have_dims ? o->dims[j] : 0;
        p *= o->have_dims ? dims[j] : 1;
    }
    if (o->have_dims)
        return p != nprocs;
    return MPI_Dims_create(nprocs, o->d, dims) != MPI_SUCCESS;
}

int main(int argc, char **argv) {
    opts_t o;
    bench_t b;
    char err[256] = "";
    int dims[MAX_D], periods[MAX_D];
    memset(&b, 0, sizeof(b));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.nprocs);
    int rc = parse(argc, argv, &o, err, sizeof(err));
    if (rc == 0 && !o.help && torus(&o, b.nprocs, dims) != 0) {
        snprintf(err, sizeof(err), "--dims must multiply to the number of processes (%d)",
                 b.nprocs);
        rc = 2;
    }
    if (rc != 0 || o.help) {
        if (b.rank == 0) {
            if (rc != 0)
                fprintf(stderr, "collsel-bench-iso: %s\n", err);
            usage(rc != 0 ? stderr : stdout);
        }
        MPI_Finalize();
        return rc;
    }
    b.o = &o;
    b.coll = o.allgather ? "neighbor_allgather" : "neighbor_alltoall";
    for (int j = 0; j < o.d; j++)
        periods[j] = 1;
    if (cs_iso_nbh_moore(&b.nbh, o.d, dims, o.radius) != CS_OK)
        die(&b, "cs_iso_nbh_moore", "neighbourhood too large");
    b.s = b.nbh.s;
    check(&b, MPI_Cart_create(MPI_COMM_WORLD, o.d, dims, periods, 0, &b.cart), "MPI_Cart_create");
    check(&b, collsel_iso_neighborhood_create(b.cart, b.s, b.nbh.offsets, &b.iso),
          "collsel_iso_neighborhood_create");
    if (b.rank == 0) {
        char shape[MAX_D * 12] = "";
        for (int j = 0; j < o.d; j++)
            snprintf(shape + strlen(shape), sizeof(shape) - strlen(shape), "%s%d", j > 0 ? "x" : "",
                     dims[j]);
        printf("# collsel-bench-iso: %s, np %d, torus %s, Moore d=%d r=%d (s=%d), %d "
               "interleaved repetitions\n",
               b.coll, b.nprocs, shape, o.d, o.radius, b.s, o.reps);
    }
    time_setup(&b);
    if (b.rank == 0)
        printf("# init <bytes> <candidate> <init_ms> <init_and_first_start_ms>: median of %d\n"
               "# time <bytes> <candidate> <median_us> <q1_us> <q3_us> <median/MPI_Neighbor> "
               "<D> <V>: max over processes per call, over repetitions\n",
               SETUP_CALLS);
    for (int k = 0; k < o.nsizes; k++)
        measure(&b, o.sizes[k]);
    MPI_Comm_free(&b.iso);
    MPI_Comm_free(&b.cart);
    cs_iso_nbh_free(&b.nbh);
    MPI_Finalize();
    return 0;
}

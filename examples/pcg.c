/* pcg: pipelined conjugate gradients (Ghysels and Vanroose, "Hiding global synchronization
 * latency in the preconditioned Conjugate Gradient algorithm", Parallel Computing 40, 2014), run
 * with its global reduction blocking or nonblocking. A collsel example: one source, three
 * programs, like cg.c.
 *
 *   pcg_plain    plain MPI: MPI_Allreduce, or MPI_Iallreduce ... MPI_Wait.
 *   pcg_collsel  compiled with -DUSE_COLLSEL: collsel_allreduce, or collsel_iallreduce ...
 *                collsel_wait (collsel.h), after collsel_init(NULL).
 *   pcg_pmpi     this plain source linked with -lcollsel_pmpi (or pcg_plain run with
 *                LD_PRELOAD=libcollsel_pmpi.so): the MPI_* calls themselves are dispatched.
 *
 * Classic CG takes two dot products per iteration, each a global reduction that the next step
 * waits for. Pipelined CG rearranges the recurrences so that an iteration needs one reduction
 * (two numbers: gamma = (r, r) and delta = (w, r), w = A r) and nothing waits for it until the
 * next matrix-vector product n = A w has been computed:
 *
 *     start the reduction of gamma, delta      <- --nonblocking: MPI_Iallreduce
 *     n = A w                                  <- overlapped with it
 *     wait for gamma, delta                    <- MPI_Wait
 *     beta = gamma / gamma_old,  alpha = gamma / (delta - beta gamma / alpha_old)
 *     z = n + beta z;  s = w + beta s;  p = r + beta p
 *     x += alpha p;    r -= alpha s;    w -= alpha z
 *
 * --blocking (the default) runs the same iteration with MPI_Allreduce before the product, so
 * both forms do the same arithmetic and the time they take shows what overlapping saves.
 *
 * The system A x = b has n unknowns, split into contiguous blocks of rows over the ranks (the
 * first n % nprocs ranks hold one row more). Row i holds DIAG on the diagonal and -1 in columns
 * i +- 1 and i +- 2 (mod n): A is circulant and symmetric with eigenvalues in [DIAG - 4,
 * DIAG + 2.25], so positive definite, and the product needs two values from each neighbouring
 * rank (MPI_Sendrecv: point-to-point, not a collective). b = A x* for a known x*, so the
 * program checks its own answer.
 *
 * MPI is initialised with MPI_THREAD_MULTIPLE (when the library offers it), so that collsel's
 * progress thread (COLLSEL_PROGRESS=thread, docs/nonblocking.md) can advance the reduction
 * during the product.
 *
 * Usage: pcg [--blocking | --nonblocking] [n [max_iterations]]   (defaults 200000 and 1000)
 * Rank 0 prints one line, for example
 *   pcg: form=nonblocking n=200000 nprocs=2 iterations=35 residual=3.1e-11 error=6.4e-12
 *   checksum=7.4e+05 seconds=0.071
 * residual is ||b - A x|| / ||b|| recomputed from x, error is max_i |x_i - x*_i|, checksum is
 * sum_i (i % 3 + 1) x_i, seconds the solve's time on rank 0. Compare two runs' checksums with
 * a tolerance: another process count or allreduce algorithm adds the dot products' terms in
 * another order.
 *
 * Exit status: 0 when CG converged and error < 1e-8; 1 otherwise; 2 for bad arguments. MPI's
 * default error handler (MPI_ERRORS_ARE_FATAL) stops the program on an MPI error, so the
 * return values of MPI calls are not checked here. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef USE_COLLSEL
#include <collsel.h>
#define PCG_ALLREDUCE  collsel_allreduce
#define PCG_IALLREDUCE collsel_iallreduce
#define PCG_WAIT       collsel_wait
#else
#define PCG_ALLREDUCE  MPI_Allreduce
#define PCG_IALLREDUCE MPI_Iallreduce
#define PCG_WAIT       MPI_Wait
#endif

#define DIAG          5.0
#define HALO          2
#define TOLERANCE     1e-12 /* on ||r|| / ||b|| */
#define MAX_RESIDUAL  1e-9  /* on the recomputed ||b - A x|| / ||b|| */
#define MAX_ERROR     1e-8  /* on max |x - x*| */
#define N_DEFAULT     200000
#define N_MAX         100000000
#define ITERS_DEFAULT 1000

/* One rank's part of the problem. */
typedef struct {
    int n;           /* unknowns */
    int first;       /* first row owned here */
    int nlocal;      /* rows owned here */
    int left, right; /* neighbouring ranks (periodic) */
} pcg_t;

static double exact_x(int i) {
    return 1.0 + (double)(i % 17) / 16.0;
}

/* out = A v on this rank's rows; v has HALO entries before v[0] and after v[nlocal - 1],
 * filled here from the neighbouring ranks. */
static void matvec(const pcg_t *pc, double *v, double *out) {
    int m = pc->nlocal;
    MPI_Sendrecv(v, HALO, MPI_DOUBLE, pc->left, 0, v + m, HALO, MPI_DOUBLE, pc->right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(v + m - HALO, HALO, MPI_DOUBLE, pc->right, 1, v - HALO, HALO, MPI_DOUBLE, pc->left,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < m; k++) {
        out[k] = DIAG * v[k] - v[k - 1] - v[k + 1] - v[k - 2] - v[k + 2];
    }
}

static double local_dot(const pcg_t *pc, const double *a, const double *b) {
    double s = 0.0;
    for (int k = 0; k < pc->nlocal; k++) {
        s += a[k] * b[k];
    }
    return s;
}

static double dot(const pcg_t *pc, const double *a, const double *b) {
    double local = local_dot(pc, a, b), global = 0.0;
    PCG_ALLREDUCE(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

/* Parses "pcg [--blocking | --nonblocking] [n [max_iterations]]"; returns 0, or -1 with a
 * message for a bad argument. */
static int parse(int argc, char **argv, int *nonblocking, int *n, int *max_iters) {
    long v[2] = {N_DEFAULT, ITERS_DEFAULT};
    const long vmax[2] = {N_MAX, 1000000};
    int npos = 0;
    *nonblocking = 0;
    for (int a = 1; a < argc; a++) {
        char *end = NULL;
        if (strcmp(argv[a], "--blocking") == 0 || strcmp(argv[a], "--nonblocking") == 0) {
            *nonblocking = argv[a][2] == 'n';
            continue;
        }
        if (npos == 2 || argv[a][0] == '-') {
            fprintf(stderr, "usage: pcg [--blocking | --nonblocking] [n [max_iterations]]\n");
            return -1;
        }
        v[npos] = strtol(argv[a], &end, 10);
        if (end == argv[a] || *end != '\0' || v[npos] < 1 || v[npos] > vmax[npos]) {
            fprintf(stderr, "pcg: %s '%s' is not an integer from 1 to %ld\n",
                    npos == 0 ? "n" : "max_iterations", argv[a], vmax[npos]);
            return -1;
        }
        npos++;
    }
    *n = (int)v[0];
    *max_iters = (int)v[1];
    return 0;
}

/* A vector of this rank's rows with HALO entries on either side, zeroed; NULL when out of
 * memory. Free with free(v - HALO). */
static double *vector(const pcg_t *pc) {
    double *v = calloc((size_t)pc->nlocal + 2 * HALO, sizeof(double));
    return v != NULL ? v + HALO : NULL;
}

int main(int argc, char **argv) {
    enum { X, R, W, Z, S, P, Q, B, NVEC };
    int rank, nprocs, n, max_iters, nonblocking, provided, iters = 0, status = 1;
    pcg_t pc = {0};
    double *v[NVEC] = {NULL};
    double seconds = 0.0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#ifdef USE_COLLSEL
    collsel_init(NULL); /* the database named by $COLLSEL_DB, if any */
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (parse(argc, argv, &nonblocking, &n, &max_iters) != 0) {
        status = 2;
        goto out;
    }
    if (n < HALO * nprocs) {
        if (rank == 0) {
            fprintf(stderr, "pcg: n = %d is below %d (%d rows per process)\n", n, HALO * nprocs,
                    HALO);
        }
        status = 2;
        goto out;
    }

    pc.n = n;
    pc.nlocal = n / nprocs + (rank < n % nprocs);
    pc.first = rank * (n / nprocs) + (rank < n % nprocs ? rank : n % nprocs);
    pc.left = (rank + nprocs - 1) % nprocs;
    pc.right = (rank + 1) % nprocs;
    for (int i = 0; i < NVEC; i++) {
        v[i] = vector(&pc);
        if (v[i] == NULL) {
            fprintf(stderr, "pcg: rank %d: out of memory for n = %d\n", rank, n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    double *x = v[X], *r = v[R], *w = v[W], *z = v[Z], *s = v[S], *p = v[P], *q = v[Q], *b = v[B];

    /* b = A x*, x = 0, r = b, w = A r. */
    for (int k = 0; k < pc.nlocal; k++) {
        p[k] = exact_x(pc.first + k);
    }
    matvec(&pc, p, b);
    memset(p, 0, (size_t)pc.nlocal * sizeof(double));
    memcpy(r, b, (size_t)pc.nlocal * sizeof(double));
    matvec(&pc, r, w);
    const double bb = dot(&pc, b, b);

    MPI_Barrier(MPI_COMM_WORLD);
    seconds = MPI_Wtime();
    double gamma_old = 1.0, alpha_old = 1.0;
    while (iters < max_iters) {
        double local[2] = {local_dot(&pc, r, r), local_dot(&pc, w, r)}, global[2];
        if (nonblocking) {
            MPI_Request req;
            PCG_IALLREDUCE(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
            matvec(&pc, w, q); /* overlapped with the reduction */
            PCG_WAIT(&req, MPI_STATUS_IGNORE);
        } else {
            PCG_ALLREDUCE(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            matvec(&pc, w, q);
        }
        const double gamma = global[0], delta = global[1];
        if (sqrt(gamma / bb) < TOLERANCE) {
            break;
        }
        const double beta = iters == 0 ? 0.0 : gamma / gamma_old;
        const double alpha =
            iters == 0 ? gamma / delta : gamma / (delta - beta * gamma / alpha_old);
        for (int k = 0; k < pc.nlocal; k++) {
            z[k] = q[k] + beta * z[k];
            s[k] = w[k] + beta * s[k];
            p[k] = r[k] + beta * p[k];
            x[k] += alpha * p[k];
            r[k] -= alpha * s[k];
            w[k] -= alpha * z[k];
        }
        gamma_old = gamma;
        alpha_old = alpha;
        iters++;
    }
    seconds = MPI_Wtime() - seconds;

    /* The true residual b - A x, the error against x* and the checksum. */
    matvec(&pc, x, q);
    double err_local = 0.0, sum_local = 0.0, err = 0.0, sum = 0.0;
    for (int k = 0; k < pc.nlocal; k++) {
        const int i = pc.first + k;
        r[k] = b[k] - q[k];
        err_local = fmax(err_local, fabs(x[k] - exact_x(i)));
        sum_local += (double)(i % 3 + 1) * x[k];
    }
    const double residual = sqrt(dot(&pc, r, r) / bb);
    PCG_ALLREDUCE(&err_local, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    PCG_ALLREDUCE(&sum_local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    status = iters < max_iters && residual < MAX_RESIDUAL && err < MAX_ERROR ? 0 : 1;
    if (rank == 0) {
        printf("pcg: form=%s n=%d nprocs=%d iterations=%d residual=%.3e error=%.3e "
               "checksum=%.15e seconds=%.3f\n",
               nonblocking ? "nonblocking" : "blocking", n, nprocs, iters, residual, err, sum,
               seconds);
        if (status != 0) {
            fprintf(stderr, "pcg: no solution after %d iterations (residual %.3e, error %.3e)\n",
                    iters, residual, err);
        }
    }

out:
    for (int i = 0; i < NVEC; i++) {
        if (v[i] != NULL) {
            free(v[i] - HALO);
        }
    }
#ifdef USE_COLLSEL
    collsel_finalize();
#endif
    MPI_Finalize();
    return status;
}

/* cg: conjugate gradients on a sparse, diagonally dominant system whose rows are spread over
 * the ranks. A collsel example: one source, three programs.
 *
 *   cg_plain    plain MPI: MPI_Allreduce, MPI_Allgather and MPI_Allgatherv.
 *   cg_collsel  compiled with -DUSE_COLLSEL: the same calls go to collsel_allreduce,
 *               collsel_allgather and collsel_allgatherv (collsel.h), after collsel_init(NULL).
 *   cg_pmpi     this plain source linked with -lcollsel_pmpi (or cg_plain run with
 *               LD_PRELOAD=libcollsel_pmpi.so): the MPI_* calls themselves are dispatched.
 *
 * The system A x = b has n unknowns. Row i holds DIAG on the diagonal and -1 in the columns
 * i + s and i - s (mod n) for every s in SHIFTS: A is circulant and symmetric, and its
 * eigenvalues DIAG - sum_s 2 cos(2 pi k s / n) are at least DIAG - 2 * NSHIFTS > 0, so it is
 * positive definite for every n and CG converges in a few dozen iterations. The long-range
 * shift means every rank needs most of the vector, so each matrix-vector product first
 * assembles the whole search direction. b = A x* for a known x*, so the program checks its
 * own answer.
 *
 * Rows are split into contiguous blocks, the first n % nprocs ranks holding one row more.
 * Collectives: one MPI_Allgather (the block sizes) at the start; per iteration one
 * MPI_Allgatherv (n doubles) and two MPI_Allreduce (one double each); at the end one more
 * MPI_Allgatherv and three MPI_Allreduce (true residual, error, checksum).
 *
 * Usage: cg [n [max_iterations]]          (defaults 20000 and 500)
 * Rank 0 prints one line, for example
 *   cg: n=20000 nprocs=2 iterations=44 residual=6.1e-11 error=1.1e-10 checksum=6.8e+04
 * residual is ||b - A x|| / ||b|| recomputed from x, error is max_i |x_i - x*_i|, checksum is
 * sum_i (i % 3 + 1) x_i. Sums of doubles round differently when the reduction order changes
 * (another process count, or another allreduce algorithm chosen by collsel), so compare two
 * runs with a tolerance, not bit for bit.
 *
 * Exit status: 0 when CG converged and error < 1e-8; 1 otherwise; 2 for bad arguments. MPI's
 * default error handler (MPI_ERRORS_ARE_FATAL) stops the program on an MPI error, so the
 * return values of MPI calls are not checked here. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef USE_COLLSEL
#include <collsel.h>
#define CG_ALLREDUCE  collsel_allreduce
#define CG_ALLGATHER  collsel_allgather
#define CG_ALLGATHERV collsel_allgatherv
#else
#define CG_ALLREDUCE  MPI_Allreduce
#define CG_ALLGATHER  MPI_Allgather
#define CG_ALLGATHERV MPI_Allgatherv
#endif

#define DIAG          6.5
#define NSHIFTS       3
#define TOLERANCE     1e-10 /* on ||r|| / ||b|| */
#define MAX_ERROR     1e-8  /* on max |x - x*| */
#define N_DEFAULT     20000
#define N_MAX         100000000
#define ITERS_DEFAULT 500

/* One rank's part of the problem. */
typedef struct {
    int n;      /* unknowns */
    int first;  /* first row owned here */
    int nlocal; /* rows owned here */
    int shift[NSHIFTS];
    int *counts;  /* rows per rank (allgatherv counts) */
    int *displs;  /* first row per rank */
    double *full; /* the whole vector being multiplied, assembled on every rank */
} cg_t;

static double exact_x(int i) {
    return 1.0 + (double)(i % 17) / 16.0;
}

/* q = A p on this rank's rows; p is this rank's part of the vector. */
static void matvec(cg_t *cg, const double *p, double *q) {
    CG_ALLGATHERV(p, cg->nlocal, MPI_DOUBLE, cg->full, cg->counts, cg->displs, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    for (int k = 0; k < cg->nlocal; k++) {
        int i = cg->first + k;
        double sum = DIAG * cg->full[i];
        for (int j = 0; j < NSHIFTS; j++) {
            int s = cg->shift[j];
            sum -= cg->full[(i + s) % cg->n] + cg->full[(i - s + cg->n) % cg->n];
        }
        q[k] = sum;
    }
}

static double dot(const cg_t *cg, const double *a, const double *b) {
    double local = 0.0, global = 0.0;
    for (int k = 0; k < cg->nlocal; k++) {
        local += a[k] * b[k];
    }
    CG_ALLREDUCE(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

/* Parses "cg [n [max_iterations]]"; returns 0, or -1 with a message for a bad argument. */
static int parse(int argc, char **argv, int *n, int *max_iters) {
    long v[2] = {N_DEFAULT, ITERS_DEFAULT};
    const long vmax[2] = {N_MAX, 1000000};
    if (argc > 3) {
        fprintf(stderr, "usage: cg [n [max_iterations]]\n");
        return -1;
    }
    for (int a = 1; a < argc; a++) {
        char *end = NULL;
        v[a - 1] = strtol(argv[a], &end, 10);
        if (end == argv[a] || *end != '\0' || v[a - 1] < 1 || v[a - 1] > vmax[a - 1]) {
            fprintf(stderr, "cg: %s '%s' is not an integer from 1 to %ld\n",
                    a == 1 ? "n" : "max_iterations", argv[a], vmax[a - 1]);
            return -1;
        }
    }
    *n = (int)v[0];
    *max_iters = (int)v[1];
    return 0;
}

int main(int argc, char **argv) {
    int rank, nprocs, n, max_iters, iters = 0, status = 1;
    const int shifts[NSHIFTS] = {1, 2, 0}; /* the last is n / 3 + 1, set below */
    cg_t cg = {0};
    double *x = NULL, *r = NULL, *p = NULL, *q = NULL, *b = NULL;

    MPI_Init(&argc, &argv);
#ifdef USE_COLLSEL
    collsel_init(NULL); /* the database named by $COLLSEL_DB, if any */
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (parse(argc, argv, &n, &max_iters) != 0) {
        status = 2;
        goto out;
    }

    cg.n = n;
    for (int j = 0; j < NSHIFTS; j++) {
        cg.shift[j] = (j == NSHIFTS - 1 ? n / 3 + 1 : shifts[j]) % n;
    }
    cg.nlocal = n / nprocs + (rank < n % nprocs);
    cg.counts = malloc((size_t)nprocs * sizeof(int));
    cg.displs = malloc((size_t)nprocs * sizeof(int));
    cg.full = malloc((size_t)n * sizeof(double));
    x = calloc((size_t)cg.nlocal + 1, sizeof(double));
    r = malloc(((size_t)cg.nlocal + 1) * sizeof(double));
    p = malloc(((size_t)cg.nlocal + 1) * sizeof(double));
    q = malloc(((size_t)cg.nlocal + 1) * sizeof(double));
    b = malloc(((size_t)cg.nlocal + 1) * sizeof(double));
    if (!cg.counts || !cg.displs || !cg.full || !x || !r || !p || !q || !b) {
        fprintf(stderr, "cg: rank %d: out of memory for n = %d\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* Who owns which rows. */
    CG_ALLGATHER(&cg.nlocal, 1, MPI_INT, cg.counts, 1, MPI_INT, MPI_COMM_WORLD);
    cg.displs[0] = 0;
    for (int k = 1; k < nprocs; k++) {
        cg.displs[k] = cg.displs[k - 1] + cg.counts[k - 1];
    }
    cg.first = cg.displs[rank];

    /* b = A x*, x = 0, r = p = b. */
    for (int k = 0; k < cg.nlocal; k++) {
        p[k] = exact_x(cg.first + k);
    }
    matvec(&cg, p, b);
    for (int k = 0; k < cg.nlocal; k++) {
        r[k] = p[k] = b[k];
    }
    const double bb = dot(&cg, b, b);
    double rr = bb;

    while (iters < max_iters && sqrt(rr / bb) >= TOLERANCE) {
        matvec(&cg, p, q);
        const double alpha = rr / dot(&cg, p, q);
        for (int k = 0; k < cg.nlocal; k++) {
            x[k] += alpha * p[k];
            r[k] -= alpha * q[k];
        }
        const double rr_next = dot(&cg, r, r);
        const double beta = rr_next / rr;
        for (int k = 0; k < cg.nlocal; k++) {
            p[k] = r[k] + beta * p[k];
        }
        rr = rr_next;
        iters++;
    }

    /* The true residual b - A x, the error against x* and the checksum. */
    matvec(&cg, x, q);
    double err_local = 0.0, sum_local = 0.0, err = 0.0, sum = 0.0;
    for (int k = 0; k < cg.nlocal; k++) {
        const int i = cg.first + k;
        r[k] = b[k] - q[k];
        err_local = fmax(err_local, fabs(x[k] - exact_x(i)));
        sum_local += (double)(i % 3 + 1) * x[k];
    }
    const double residual = sqrt(dot(&cg, r, r) / bb);
    CG_ALLREDUCE(&err_local, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CG_ALLREDUCE(&sum_local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    status = residual < 10 * TOLERANCE && err < MAX_ERROR ? 0 : 1;
    if (rank == 0) {
        printf("cg: n=%d nprocs=%d iterations=%d residual=%.3e error=%.3e checksum=%.15e\n", n,
               nprocs, iters, residual, err, sum);
        if (status != 0) {
            fprintf(stderr, "cg: no solution after %d iterations (residual %.3e, error %.3e)\n",
                    iters, residual, err);
        }
    }

out:
    free(cg.counts);
    free(cg.displs);
    free(cg.full);
    free(x);
    free(r);
    free(p);
    free(q);
    free(b);
#ifdef USE_COLLSEL
    collsel_finalize();
#endif
    MPI_Finalize();
    return status;
}

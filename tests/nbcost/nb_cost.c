/* cs-bench-nbcost (-DUSE_COLLSEL) and cs-bench-nbcost-mpi: what a blocking allreduce costs when
 * it goes through the nonblocking machinery (start, then wait at once) against the plain
 * blocking path. A benchmark, run by scripts/nb-cost (docs/nonblocking.md, "Cost of the
 * nonblocking machinery"); never a test.
 *
 *   cs-bench-nbcost       collsel_allreduce against collsel_iallreduce + collsel_wait;
 *   cs-bench-nbcost-mpi   MPI_Allreduce against MPI_Iallreduce + MPI_Wait (run it plain, or
 *                         with libcollsel_pmpi preloaded).
 *
 * Per size (doubles, MPI_SUM; default 8 B, 64 KiB and 1 MiB) and repetition the two forms run
 * interleaved (blocking, nonblocking, blocking, ...), each after a barrier and timed on every
 * rank; a repetition's time is the maximum over the ranks. Rank 0 prints per size the median of
 * each form, their difference and ratio, and the median of the per-repetition differences:
 *
 *   bytes  reps  blocking_us  nonblocking_us  extra_us  ratio  paired_extra_us
 *
 * The first repetitions (--warmup, default 10) are not kept: they make the communicator's collsel
 * context, build and cache the schedules.
 *
 * Usage: cs-bench-nbcost[-mpi] [--reps N] [--warmup N] [--sizes B,B,...] */
#ifdef USE_COLLSEL
#include <collsel.h>
#define NBCOST_ALLREDUCE  collsel_allreduce
#define NBCOST_IALLREDUCE collsel_iallreduce
#define NBCOST_WAIT       collsel_wait
#else
#define NBCOST_ALLREDUCE  MPI_Allreduce
#define NBCOST_IALLREDUCE MPI_Iallreduce
#define NBCOST_WAIT       MPI_Wait
#endif
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v). */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One call of form `nb` (0 blocking, 1 start + wait) after a barrier; its time on this rank
 * in seconds, or a negative value when MPI returned an error. */
static double timed(int nb, const double *send, double *recv, int count) {
    MPI_Request req = MPI_REQUEST_NULL;
    double t0;
    int rc;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (nb) {
        rc = NBCOST_IALLREDUCE(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS) {
            rc = NBCOST_WAIT(&req, MPI_STATUS_IGNORE);
        }
    } else {
        rc = NBCOST_ALLREDUCE(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    return rc == MPI_SUCCESS ? MPI_Wtime() - t0 : -1.0;
}

static int parse_sizes(const char *s, long *sizes) {
    int n = 0;
    char *end;
    while (*s != '\0' && n < MAX_SIZES) {
        long v = strtol(s, &end, 10);
        if (end == s || v < 8 || v > (1L << 28) || (*end != ',' && *end != '\0')) {
            return 0;
        }
        sizes[n++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    return *s == '\0' ? n : 0;
}

int main(int argc, char **argv) {
    long sizes[MAX_SIZES] = {8, 65536, 1048576};
    int nsizes = 3, reps = 200, warmup = 10, rank, nprocs, bad = 0, errors = 0;
    double *send, *recv, *t[2], *dt;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--warmup") == 0 && a + 1 < argc) {
            warmup = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--sizes") == 0 && a + 1 < argc) {
            nsizes = parse_sizes(argv[++a], sizes);
        } else {
            bad = 1;
        }
    }
    if (bad || reps < 1 || warmup < 0 || nsizes < 1) {
        fprintf(stderr, "usage: %s [--reps N >= 1] [--warmup N] [--sizes BYTES,...]\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    long most = 0;
    for (int i = 0; i < nsizes; i++) {
        most = sizes[i] > most ? sizes[i] : most;
    }
    send = calloc((size_t)most / sizeof(double) + 1, sizeof(double));
    recv = calloc((size_t)most / sizeof(double) + 1, sizeof(double));
    t[0] = malloc((size_t)reps * sizeof(double));
    t[1] = malloc((size_t)reps * sizeof(double));
    dt = malloc((size_t)reps * sizeof(double));
    if (send == NULL || recv == NULL || t[0] == NULL || t[1] == NULL || dt == NULL) {
        fprintf(stderr, "cs-bench-nbcost: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        printf("# np %d; the maximum over ranks per repetition; medians in us\n", nprocs);
        printf("%9s %6s %12s %15s %9s %6s %16s\n", "bytes", "reps", "blocking_us", "nonblocking_us",
               "extra_us", "ratio", "paired_extra_us");
    }
    for (int s = 0; s < nsizes; s++) {
        int count = (int)(sizes[s] / (long)sizeof(double));
        double med[2];
        for (int r = -warmup; r < reps; r++) {
            for (int nb = 0; nb < 2; nb++) {
                double x = timed(nb, send, recv, count);
                errors += x < 0;
                if (r >= 0) {
                    t[nb][r] = x;
                }
            }
        }
        for (int nb = 0; nb < 2; nb++) {
            MPI_Allreduce(MPI_IN_PLACE, t[nb], reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
        for (int r = 0; r < reps; r++) {
            dt[r] = t[1][r] - t[0][r];
        }
        med[0] = median(t[0], reps);
        med[1] = median(t[1], reps);
        if (rank == 0) {
            printf("%9ld %6d %12.2f %15.2f %9.2f %6.3f %16.2f\n", sizes[s], reps, 1e6 * med[0],
                   1e6 * med[1], 1e6 * (med[1] - med[0]), med[1] / med[0], 1e6 * median(dt, reps));
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && errors > 0) {
        fprintf(stderr, "cs-bench-nbcost: %d calls returned an error\n", errors);
    }
    free(send);
    free(recv);
    free(t[0]);
    free(t[1]);
    free(dt);
    MPI_Finalize();
    return errors > 0;
}

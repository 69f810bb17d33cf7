/* cs-bench-executor: what running an algorithm through the schedule executor costs.
 *
 * Times allreduce/recursive_doubling run through cs_algo_run() (call normalisation, schedule
 * build into cached storage, executor) against the same algorithm written by hand as a loop of
 * MPI_Sendrecv + MPI_Reduce_local, and against the native MPI_Allreduce, interleaved
 * repetition by repetition (A B C, then B C A, ...) so that machine drift hits all three alike.
 * Each repetition starts after a barrier and is timed as the maximum over ranks.
 *
 * Usage: mpirun -np 2 cs-bench-executor [--reps N] [--sizes BYTES,...]
 * The hand-written reference needs a power-of-two number of processes. */
#include "core/algo.h"
#include "registry.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VARIANTS = 3 }; /* 0: schedule, 1: hand-written, 2: native */

/* Recursive doubling by hand: power-of-two p, MPI_SUM on doubles. */
static int hand_allreduce(const double *in, double *out, double *tmp, int count, MPI_Comm comm) {
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    memcpy(out, in, (size_t)count * sizeof(double));
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (MPI_Sendrecv(out, count, MPI_DOUBLE, peer, 1, tmp, count, MPI_DOUBLE, peer, 1, comm,
                         MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            MPI_Reduce_local(tmp, out, count, MPI_DOUBLE, MPI_SUM) != MPI_SUCCESS) {
            return -1;
        }
    }
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int run_one(int which, const double *in, double *out, double *tmp, int count,
                   const cs_algo_t *algo, MPI_Comm comm) {
    cs_call_t call;
    switch (which) {
    case 0:
        if (cs_call_allreduce(&call, in, out, count, MPI_DOUBLE, MPI_SUM, comm) != CS_OK) {
            return -1;
        }
        return cs_algo_run(algo, &call) == CS_OK ? 0 : -1;
    case 1:
        return hand_allreduce(in, out, tmp, count, comm);
    default:
        return MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS ? 0 : -1;
    }
}

int main(int argc, char **argv) {
    int reps = 2000, rank, p, rc = 0;
    long sizes[16] = {8, 65536};
    int nsizes = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            char *s = argv[++i], *end;
            nsizes = 0;
            while (*s && nsizes < 16) {
                sizes[nsizes++] = strtol(s, &end, 10);
                s = *end == ',' ? end + 1 : end;
                if (end == s && *s) {
                    break;
                }
            }
        } else {
            if (rank == 0) {
                fprintf(stderr, "usage: cs-bench-executor [--reps N] [--sizes BYTES,...]\n");
            }
            MPI_Finalize();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if ((p & (p - 1)) != 0 || reps < 1) {
        if (rank == 0) {
            fprintf(stderr,
                    "cs-bench-executor: needs a power-of-two process count (got %d) and "
                    "--reps >= 1\n",
                    p);
        }
        MPI_Finalize();
        return 2;
    }
    const cs_algo_t *algo = cs_registry_find("allreduce/recursive_doubling");
    if (rank == 0) {
        printf("np=%d reps=%d (interleaved; median of per-repetition max over ranks)\n", p, reps);
        printf("%10s %14s %14s %14s %10s\n", "bytes", "schedule_us", "hand_us", "native_us",
               "sched/hand");
    }
    for (int si = 0; si < nsizes && rc == 0; si++) {
        int count = (int)(sizes[si] / (long)sizeof(double));
        size_t n = (size_t)(count > 0 ? count : 1);
        double *in = malloc(n * sizeof(double)), *out = malloc(n * sizeof(double));
        double *tmp = malloc(n * sizeof(double));
        double *t = malloc((size_t)reps * VARIANTS * sizeof(double));
        double *tmax = malloc((size_t)reps * VARIANTS * sizeof(double));
        for (size_t i = 0; i < n; i++) {
            in[i] = (double)(rank + (int)i % 7);
        }
        for (int w = 0; w < VARIANTS; w++) { /* warm-up: caches, connections, context */
            rc |= run_one(w, in, out, tmp, count, algo, MPI_COMM_WORLD);
        }
        for (int r = 0; r < reps && rc == 0; r++) {
            for (int k = 0; k < VARIANTS; k++) {
                int w = (r + k) % VARIANTS;
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                rc |= run_one(w, in, out, tmp, count, algo, MPI_COMM_WORLD);
                t[(size_t)w * reps + r] = (MPI_Wtime() - t0) * 1e6;
            }
        }
        MPI_Allreduce(t, tmax, reps * VARIANTS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            double med[VARIANTS];
            for (int w = 0; w < VARIANTS; w++) {
                med[w] = median(tmax + (size_t)w * reps, reps);
            }
            printf("%10ld %14.3f %14.3f %14.3f %10.3f\n", sizes[si], med[0], med[1], med[2],
                   med[0] / med[1]);
        }
        free(in);
        free(out);
        free(tmp);
        free(t);
        free(tmax);
    }
    if (rc != 0 && rank == 0) {
        fprintf(stderr, "cs-bench-executor: a run failed\n");
    }
    MPI_Finalize();
    return rc != 0;
}

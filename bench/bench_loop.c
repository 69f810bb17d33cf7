/* cs-bench-loop: a collective latency loop shaped like the standard micro-benchmark suites (OSU,
 * IMB), calling plain MPI_* so that a preloaded libcollsel_pmpi intercepts it. It checks collsel
 * the way a sysadmin would: scripts/loop-check runs it plain and preloaded, interleaved.
 *
 * Per collective and size (root 0, MPI_CHAR data, MPI_FLOAT sum for reductions):
 *   warm-up calls, then a barrier, then ITERS times { t0 = MPI_Wtime(); call;
 *   t += MPI_Wtime() - t0; MPI_Barrier }; a rank's latency is t / ITERS; the line printed is the
 *   mean over ranks (the suites' "average latency") and the maximum over ranks.
 * ITERS is --iters for sizes up to 64 KiB and a quarter of it above (at least 10).
 *
 * Output, one line per point on rank 0: "<coll> <bytes> <mean_us> <max_us>".
 * Usage: cs-bench-loop [--colls LIST] [--max BYTES] [--iters N] [--help] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARMUP = 5 };

typedef int (*loop_fn)(void *send, void *recv, int bytes, int nprocs, MPI_Comm comm);

static int do_bcast(void *send, void *recv, int bytes, int nprocs, MPI_Comm comm) {
    (void)recv;
    (void)nprocs;
    return MPI_Bcast(send, bytes, MPI_CHAR, 0, comm);
}

static int do_gather(void *send, void *recv, int bytes, int nprocs, MPI_Comm comm) {
    (void)nprocs;
    return MPI_Gather(send, bytes, MPI_CHAR, recv, bytes, MPI_CHAR, 0, comm);
}

static int do_scatter(void *send, void *recv, int bytes, int nprocs, MPI_Comm comm) {
    (void)nprocs;
    return MPI_Scatter(recv, bytes, MPI_CHAR, send, bytes, MPI_CHAR, 0, comm);
}

static int do_reduce(void *send, void *recv, int bytes, int nprocs, MPI_Comm comm) {
    (void)nprocs;
    return MPI_Reduce(send, recv, bytes / 4, MPI_FLOAT, MPI_SUM, 0, comm);
}

static int do_allreduce(void *send, void *recv, int bytes, int nprocs, MPI_Comm comm) {
    (void)nprocs;
    return MPI_Allreduce(send, recv, bytes / 4, MPI_FLOAT, MPI_SUM, comm);
}

static int do_allgather(void *send, void *recv, int bytes, int nprocs, MPI_Comm comm) {
    (void)nprocs;
    return MPI_Allgather(send, bytes, MPI_CHAR, recv, bytes, MPI_CHAR, comm);
}

static const struct {
    const char *name;
    loop_fn fn;
} colls[] = {{"bcast", do_bcast},   {"gather", do_gather},       {"scatter", do_scatter},
             {"reduce", do_reduce}, {"allreduce", do_allreduce}, {"allgather", do_allgather}};

enum { NCOLLS = sizeof(colls) / sizeof(colls[0]) };

static void usage(FILE *f) {
    fprintf(f, "usage: cs-bench-loop [--colls LIST] [--max BYTES] [--iters N] [--help]\n"
               "  an OSU-style latency loop over sizes 4 B .. --max (default 1048576) in powers\n"
               "  of two; prints '<coll> <bytes> <mean_us> <max_us>' per point on rank 0.\n"
               "  --colls: comma-separated subset of bcast,gather,scatter,reduce,allreduce,\n"
               "  allgather (default all); --iters: timed calls per point (default 100)\n");
}

/* Parses argv; 0 on success, 2 on a bad option (message printed by rank 0). */
static int parse(int argc, char **argv, int rank, int want[NCOLLS], long *max, int *iters,
                 int *help) {
    for (int c = 0; c < NCOLLS; c++) {
        want[c] = 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *help = 1;
        } else if (strcmp(argv[i], "--colls") == 0 && v != NULL) {
            char list[256], *save = NULL;
            snprintf(list, sizeof(list), "%s", v);
            for (int c = 0; c < NCOLLS; c++) {
                want[c] = 0;
            }
            for (char *t = strtok_r(list, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
                int found = 0;
                for (int c = 0; c < NCOLLS; c++) {
                    if (strcmp(t, colls[c].name) == 0) {
                        want[c] = found = 1;
                    }
                }
                if (!found) {
                    if (rank == 0) {
                        fprintf(stderr, "cs-bench-loop: --colls: unknown collective '%s'\n", t);
                    }
                    return 2;
                }
            }
            i++;
        } else if (strcmp(argv[i], "--max") == 0 && v != NULL && atol(v) >= 4) {
            *max = atol(v);
            i++;
        } else if (strcmp(argv[i], "--iters") == 0 && v != NULL && atoi(v) >= 1) {
            *iters = atoi(v);
            i++;
        } else {
            if (rank == 0) {
                fprintf(stderr, "cs-bench-loop: bad option '%s' (or its value)\n", argv[i]);
                usage(stderr);
            }
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    int rank, nprocs, iters = 100, help = 0, want[NCOLLS];
    long max = 1L << 20;
    char *send = NULL, *recv = NULL;
    int rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = parse(argc, argv, rank, want, &max, &iters, &help);
    if (rc != 0 || help) {
        if (help && rank == 0) {
            usage(stdout);
        }
        MPI_Finalize();
        return rc;
    }
    send = calloc((size_t)max, 1);
    recv = calloc((size_t)max * (size_t)nprocs, 1);
    if (send == NULL || recv == NULL) {
        fprintf(stderr, "cs-bench-loop: out of memory for %ld bytes x %d\n", max, nprocs);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int c = 0; c < NCOLLS; c++) {
        if (!want[c]) {
            continue;
        }
        for (long bytes = 4; bytes <= max; bytes *= 2) {
            int n = bytes > 65536 ? (iters / 4 > 10 ? iters / 4 : 10) : iters;
            double t = 0, mean, worst;
            for (int w = 0; w < WARMUP; w++) {
                colls[c].fn(send, recv, (int)bytes, nprocs, MPI_COMM_WORLD);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                double t0 = MPI_Wtime();
                colls[c].fn(send, recv, (int)bytes, nprocs, MPI_COMM_WORLD);
                t += MPI_Wtime() - t0;
                MPI_Barrier(MPI_COMM_WORLD);
            }
            t = t / n * 1e6;
            MPI_Reduce(&t, &mean, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("%s %ld %.3f %.3f\n", colls[c].name, bytes, mean / nprocs, worst);
                fflush(stdout);
            }
        }
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}

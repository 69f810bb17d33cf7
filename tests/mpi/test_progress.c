/* cs_mpi_progress: the progress thread (COLLSEL_PROGRESS=thread, docs/nonblocking.md) makes
 * collsel's nonblocking collectives progress while the application computes without calling
 * MPI. Run by test_progress.sh with collsel algorithms forced (COLLSEL_FORCE: schedules whose
 * messages, 1 MiB by default, go by the MPI library's rendezvous protocol, in fragments that the
 * sender pushes as it progresses: shared memory without a single-copy mechanism), so that no
 * operation can finish inside its start call.
 *
 * Per collective (allreduce of doubles, sum; allgather of doubles) and repetition: every rank
 * fills its buffers (the receive buffer with -1, which no result holds), meets the others in a
 * barrier, starts the operation (collsel_iallreduce, collsel_iallgather) and computes, making
 * no MPI or collsel call, until its receive buffer holds the whole result (read in place, all
 * of it, between slices of computation) or --limit seconds have passed. Then it completes the
 * request with collsel_wait and checks the result. "Completed during the computation" means
 * every rank saw its whole result before its computation ended.
 *
 *   --expect progress  every operation completed during the computation (the thread's work:
 *                      without it nothing moves the messages on);
 *   --expect none      none did, on every rank at once (what COLLSEL_PROGRESS=calls, or a
 *                      thread level that refuses the thread, gives);
 *   --no-poll          the receive buffer is not read before collsel_wait (each computation
 *                      lasts --limit seconds): for ThreadSanitizer, to which reading a buffer
 *                      that the progress thread may be writing is a data race;
 *   --thread-level L   single, funneled, serialized or multiple (default) for MPI_Init_thread;
 *   --bytes N          allreduce message and allgather receive buffer size (default 1 MiB).
 *
 * Rank 0 prints "passed" or "N failed"; the exit status says the same. */
#include <collsel.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../support/rank_check.h"

#define REPS 3

static int rank, nprocs, failures;
static volatile double sink; /* keeps the computation */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* About a millisecond of arithmetic on a private array. */
static void compute(void) {
    static double a[4096];
    double s = 0.0;
    for (int rep = 0; rep < 64; rep++) {
        for (int i = 0; i < 4096; i++) {
            a[i] = a[i] * 0.999 + 0.001 * (double)(i + rep);
            s += a[i];
        }
    }
    sink = s;
}

/* 1 when buf[0..n-1] equals want[0..n-1]; read through a volatile pointer, since another
 * thread (collsel's progress thread) may be writing it. */
static int holds(const double *buf, const double *want, size_t n) {
    const volatile double *b = buf;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != want[i]) {
            return 0;
        }
    }
    return 1;
}

/* Starts one operation of collective `coll` (0 allreduce, 1 allgather) into `recv` and
 * computes until `recv` equals `want` (n doubles) or `limit` seconds have passed (poll 0: the
 * whole time); completes it, checks the result. Returns 1 when the result was seen during the
 * computation. */
static int one(int coll, const double *send, double *recv, const double *want, size_t n,
               double limit, int poll) {
    MPI_Request req = MPI_REQUEST_NULL;
    int seen = 0, rc;
    double t0;
    for (size_t i = 0; i < n; i++) {
        recv[i] = -1.0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (coll == 0) {
        rc = collsel_iallreduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    } else {
        rc = collsel_iallgather(send, (int)(n / (size_t)nprocs), MPI_DOUBLE, recv,
                                (int)(n / (size_t)nprocs), MPI_DOUBLE, MPI_COMM_WORLD, &req);
    }
    CHECK(rc == MPI_SUCCESS, "start of %s: error %d", coll == 0 ? "allreduce" : "allgather", rc);
    t0 = now();
    while (now() - t0 < limit) {
        compute();
        if (poll && holds(recv, want, n)) {
            seen = 1;
            break;
        }
    }
    rc = collsel_wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && req == MPI_REQUEST_NULL, "collsel_wait: error %d", rc);
    CHECK(holds(recv, want, n), "%s: wrong result", coll == 0 ? "allreduce" : "allgather");
    return seen;
}

static int parse_level(const char *s) {
    if (strcmp(s, "single") == 0) {
        return MPI_THREAD_SINGLE;
    }
    if (strcmp(s, "funneled") == 0) {
        return MPI_THREAD_FUNNELED;
    }
    if (strcmp(s, "serialized") == 0) {
        return MPI_THREAD_SERIALIZED;
    }
    return strcmp(s, "multiple") == 0 ? MPI_THREAD_MULTIPLE : -1;
}

int main(int argc, char **argv) {
    int level = MPI_THREAD_MULTIPLE, provided, expect = -1, poll = 1, total;
    size_t bytes = 1 << 20, n;
    double limit = 30.0, *send, *recv, *want;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--expect") == 0 && a + 1 < argc) {
            a++;
            expect = strcmp(argv[a], "progress") == 0 ? 1 : strcmp(argv[a], "none") == 0 ? 0 : -2;
        } else if (strcmp(argv[a], "--no-poll") == 0) {
            poll = 0;
        } else if (strcmp(argv[a], "--thread-level") == 0 && a + 1 < argc) {
            level = parse_level(argv[++a]);
        } else if (strcmp(argv[a], "--limit") == 0 && a + 1 < argc) {
            limit = atof(argv[++a]);
        } else if (strcmp(argv[a], "--bytes") == 0 && a + 1 < argc) {
            bytes = (size_t)atol(argv[++a]);
        } else {
            expect = -2;
        }
    }
    if (expect == -2 || level < 0 || !(limit > 0) || bytes < 64 || (expect >= 0 && !poll)) {
        fprintf(stderr, "usage: cs_mpi_progress [--expect progress|none | --no-poll] "
                        "[--thread-level single|funneled|serialized|multiple] [--limit S] "
                        "[--bytes N]\n");
        return 2;
    }
    MPI_Init_thread(&argc, &argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = bytes / sizeof(double) / (size_t)nprocs * (size_t)nprocs; /* allgather: whole blocks */
    send = malloc(n * sizeof(double));
    recv = malloc(n * sizeof(double));
    want = malloc(n * sizeof(double));
    if (send == NULL || recv == NULL || want == NULL) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* a blocking collective through collsel first: it makes MPI_COMM_WORLD's collsel context,
     * without which a nonblocking call goes to the MPI library */
    collsel_barrier(MPI_COMM_WORLD);

    for (int coll = 0; coll < 2; coll++) {
        size_t block = n / (size_t)nprocs;
        for (size_t i = 0; i < n; i++) {
            if (coll == 0) {
                send[i] = (double)(rank + 1) + (double)(i % 7);
                want[i] = (double)nprocs * (nprocs + 1) / 2 + (double)nprocs * (double)(i % 7);
            } else {
                want[i] = (double)(i / block) * 1e7 + (double)(i % block);
            }
        }
        if (coll == 1) {
            for (size_t i = 0; i < block; i++) {
                send[i] = (double)rank * 1e7 + (double)i;
            }
        }
        for (int rep = 0; rep < REPS; rep++) {
            int seen = one(coll, send, recv, want, n, limit, poll), all = 0, any = 0;
            MPI_Allreduce(&seen, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&seen, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("%s %zu bytes, repetition %d: completed during the computation on %s\n",
                       coll == 0 ? "allreduce" : "allgather", n * sizeof(double), rep,
                       all   ? "every rank"
                       : any ? "some ranks"
                             : "no rank");
            }
            if (expect == 1) {
                CHECK(all, "the operation did not complete during the computation on every rank");
            } else if (expect == 0) {
                CHECK(!all, "the operation completed during the computation on every rank");
            }
        }
    }

    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0) {
            printf("passed\n");
        } else {
            printf("%d failed\n", total);
        }
    }
    free(send);
    free(recv);
    free(want);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

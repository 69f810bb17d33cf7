/* cs_mpi_nb: nonblocking and persistent collectives through libcollsel_pmpi's MPI interface
 * (docs/nonblocking.md), under mpirun with collsel algorithms forced (COLLSEL_FORCE, set by
 * the ctest; without it the calls are the MPI library's and the same checks hold).
 *
 *   - 32 outstanding operations of mixed collectives on one communicator (allreduce, bcast
 *     from rotating roots, allgather, reduce, allgatherv, barrier), completed by one
 *     MPI_Waitall over the requests in reverse order of issue, with a blocking allreduce
 *     issued while they are outstanding;
 *   - MPI_Waitany and MPI_Testsome over arrays mixing collsel requests, point-to-point
 *     requests and MPI_REQUEST_NULL, every request completing exactly once, statuses given
 *     and ignored;
 *   - MPI_Test and MPI_Request_get_status loops;
 *   - a persistent allreduce started 1000 times with changing data (MPIX_Allreduce_init),
 *     persistent requests started together (MPI_Startall) and an inactive one in a wait;
 *     when COLLSEL_FORCE is set the handle must be collsel's (MPI's own completion never sees
 *     it complete: it is not MPI's persistent request);
 *   - MPI_Request_free on an active nonblocking request and on an active persistent one
 *     (both finish in the background; valgrind checks that nothing leaks);
 *   - MPI_Comm_free with an operation outstanding on the communicator (it completes), and a
 *     persistent request on it that can then only be freed.
 * --orth (the ctests mpi_nb_orth_np<n>, COLLSEL_FORCE naming <coll>/orth variants, native
 * and point-to-point phases mixed): the same with orthogonal-grid operations, whose native
 * phases start the MPI library's nonblocking collectives on the line communicators of
 * MPI_COMM_WORLD's context, shared by all of them and by the blocking orth allreduce issued
 * among the 32 outstanding operations (core/nb.h, "Order of COLL operations"). Their states
 * were made ahead by the first blocking call (selector/comm.c), which must be so: a
 * persistent allreduce made before any allreduce must be collsel's. At a prime np orth has no
 * layout: every call must go to the MPI library (the persistent allreduce must be MPI's own
 * request) and still be right. After the 32, test_orth_blocking: nonblocking orth allreduces
 * outstanding while the application makes blocking orth allreduces and bcasts, each completed
 * afterwards.
 * --dpml (mpi_nb_dpml_np4, np6: COLLSEL_FORCE=allreduce/dpml(...) on emulated nodes): under
 * MPI_THREAD_MULTIPLE, where every communicator's node layout is its own, so DPML operations
 * run (docs/nonblocking.md, "The window") once a blocking allreduce has made the window: the
 * 32 mixed operations after the blocking allreduce among them, the persistent allreduce
 * (collsel's), the detached one, and on the dup of test_comm_free after its first blocking
 * allreduce.
 * Each rank counts its failures; the verdict is agreed, rank 0 prints "N failed". */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/rank_check.h"

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define BCAST_INIT     MPIX_Bcast_init
#else
#define ALLREDUCE_INIT MPI_Allreduce_init
#define BCAST_INIT     MPI_Bcast_init
#endif

#define NOPS  32
#define COUNT 37

static int rank, nprocs, failures;

static int value(int r, int k, int i) {
    return r * 1000 + k * 10 + i;
}

/* Sum over ranks of value(r, k, i). */
static int sum_value(int k, int i) {
    int s = 0;
    for (int r = 0; r < nprocs; r++) {
        s += value(r, k, i);
    }
    return s;
}

/* One operation of the mixed set: its buffers and how to check them. */
typedef struct op {
    int kind, root;
    int *send, *recv;
    int *counts, *displs;
} op_t;

static void op_issue(op_t *o, int k, MPI_Request *req) {
    int n = COUNT + k;
    o->kind = k % 6;
    o->root = k % nprocs;
    o->send = malloc((size_t)n * sizeof(int));
    o->recv = malloc((size_t)n * (size_t)nprocs * sizeof(int));
    o->counts = malloc((size_t)nprocs * sizeof(int));
    o->displs = malloc((size_t)nprocs * sizeof(int));
    for (int i = 0; i < n; i++) {
        o->send[i] = value(rank, k, i);
    }
    for (int i = 0; i < n * nprocs; i++) {
        o->recv[i] = -1;
    }
    for (int r = 0, at = 0; r < nprocs; r++) {
        o->counts[r] = (r + k) % 3; /* zeros included */
        o->displs[r] = at;
        at += o->counts[r] + 1; /* gaps */
    }
    switch (o->kind) {
    case 0:
        MPI_Iallreduce(o->send, o->recv, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req);
        break;
    case 1:
        if (rank == o->root) {
            memcpy(o->recv, o->send, (size_t)n * sizeof(int));
        }
        MPI_Ibcast(o->recv, n, MPI_INT, o->root, MPI_COMM_WORLD, req);
        break;
    case 2:
        MPI_Iallgather(o->send, n, MPI_INT, o->recv, n, MPI_INT, MPI_COMM_WORLD, req);
        break;
    case 3:
        MPI_Ireduce(o->send, o->recv, n, MPI_INT, MPI_SUM, o->root, MPI_COMM_WORLD, req);
        break;
    case 4:
        MPI_Iallgatherv(o->send, o->counts[rank], MPI_INT, o->recv, o->counts, o->displs, MPI_INT,
                        MPI_COMM_WORLD, req);
        break;
    default:
        MPI_Ibarrier(MPI_COMM_WORLD, req);
        break;
    }
}

static void op_check(op_t *o, int k) {
    int n = COUNT + k, bad = -1;
    switch (o->kind) {
    case 0:
        for (int i = 0; i < n && bad < 0; i++) {
            bad = o->recv[i] != sum_value(k, i) ? i : -1;
        }
        break;
    case 1:
        for (int i = 0; i < n && bad < 0; i++) {
            bad = o->recv[i] != value(o->root, k, i) ? i : -1;
        }
        break;
    case 2:
        for (int i = 0; i < n * nprocs && bad < 0; i++) {
            bad = o->recv[i] != value(i / n, k, i % n) ? i : -1;
        }
        break;
    case 3:
        for (int i = 0; i < n && bad < 0; i++) {
            bad = o->recv[i] != (rank == o->root ? sum_value(k, i) : -1) ? i : -1;
        }
        break;
    case 4:
        for (int r = 0; r < nprocs && bad < 0; r++) {
            for (int i = 0; i < o->counts[r] && bad < 0; i++) {
                bad = o->recv[o->displs[r] + i] != value(r, k, i) ? o->displs[r] + i : -1;
            }
            if (bad < 0 && o->recv[o->displs[r] + o->counts[r]] != -1) { /* the gap */
                bad = o->displs[r] + o->counts[r];
            }
        }
        break;
    default:
        break;
    }
    CHECK(bad < 0, "operation %d (kind %d, root %d): element %d wrong", k, o->kind, o->root, bad);
    free(o->send);
    free(o->recv);
    free(o->counts);
    free(o->displs);
}

/* 32 mixed operations, a blocking allreduce in between, one MPI_Waitall in reverse order. */
static void test_many(void) {
    op_t ops[NOPS];
    MPI_Request reqs[NOPS];
    int in = rank + 1, out = 0;
    for (int k = 0; k < NOPS; k++) {
        op_issue(&ops[k], k, &reqs[NOPS - 1 - k]);
        if (k == NOPS / 2) {
            MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            CHECK(out == nprocs * (nprocs + 1) / 2, "blocking allreduce among nonblocking: %d",
                  out);
        }
    }
    CHECK(MPI_Waitall(NOPS, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
    for (int k = 0; k < NOPS; k++) {
        CHECK(reqs[k] == MPI_REQUEST_NULL, "request %d not freed by MPI_Waitall", k);
        op_check(&ops[k], k);
    }
}

/* Arrays mixing collsel requests, point-to-point and MPI_REQUEST_NULL: `some` 0 completes them
 * with MPI_Waitany, 1 with MPI_Testsome. */
static void test_mixed(int some) {
    int n = COUNT, k = 40 + some;
    int *a = malloc(n * sizeof(int)), *ar = malloc(n * sizeof(int));
    int *b = malloc(n * sizeof(int)), token = rank, got = -1;
    int left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;
    int done[7] = {0}, ndone = 0, root = nprocs - 1;
    MPI_Request reqs[7];
    MPI_Status statuses[7];
    for (int i = 0; i < n; i++) {
        a[i] = value(rank, k, i);
        b[i] = rank == root ? value(root, k, i) : -1;
    }
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Iallreduce(a, ar, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
    MPI_Irecv(&got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[2]);
    reqs[3] = MPI_REQUEST_NULL;
    MPI_Ibcast(b, n, MPI_INT, root, MPI_COMM_WORLD, &reqs[4]);
    MPI_Isend(&token, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[5]);
    reqs[6] = MPI_REQUEST_NULL;
    for (int spins = 0; ndone < 4 && spins < 100000000; spins++) {
        if (!some) {
            int index = -1;
            CHECK(MPI_Waitany(7, reqs, &index, ndone % 2 ? MPI_STATUS_IGNORE : &statuses[0]) ==
                      MPI_SUCCESS,
                  "MPI_Waitany failed");
            CHECK(index >= 0 && index < 7 && !done[index], "MPI_Waitany: index %d", index);
            if (index >= 0 && index < 7) {
                done[index]++;
                ndone++;
            }
        } else {
            int outcount = -1, indices[7];
            CHECK(MPI_Testsome(7, reqs, &outcount, indices,
                               ndone % 2 ? MPI_STATUSES_IGNORE : statuses) == MPI_SUCCESS,
                  "MPI_Testsome failed");
            CHECK(outcount != MPI_UNDEFINED, "MPI_Testsome: nothing active before the end");
            if (outcount == MPI_UNDEFINED) {
                break;
            }
            for (int j = 0; j < outcount; j++) {
                CHECK(indices[j] >= 0 && indices[j] < 7 && !done[indices[j]],
                      "MPI_Testsome: index %d", indices[j]);
                done[indices[j]]++;
                ndone++;
            }
        }
    }
    CHECK(ndone == 4 && done[1] && done[2] && done[4] && done[5], "completed %d of 4", ndone);
    if (!some) {
        int index = 0;
        CHECK(MPI_Waitany(7, reqs, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                  index == MPI_UNDEFINED,
              "MPI_Waitany over finished requests: index %d", index);
    } else {
        int outcount = 0, indices[7];
        CHECK(MPI_Testsome(7, reqs, &outcount, indices, MPI_STATUSES_IGNORE) == MPI_SUCCESS &&
                  outcount == MPI_UNDEFINED,
              "MPI_Testsome over finished requests: outcount %d", outcount);
    }
    CHECK(got == left, "point-to-point: got %d", got);
    for (int i = 0; i < n; i++) {
        CHECK(ar[i] == sum_value(k, i), "allreduce element %d", i);
        CHECK(b[i] == value(root, k, i), "bcast element %d", i);
    }
    free(a);
    free(ar);
    free(b);
}

/* MPI_Test and MPI_Request_get_status loops on collsel requests. */
static void test_polling(void) {
    int x = rank, sum = -1, flag = 0;
    MPI_Request req;
    MPI_Status status;
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    while (!flag) {
        CHECK(MPI_Request_get_status(req, &flag, &status) == MPI_SUCCESS, "get_status failed");
    }
    CHECK(req != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    flag = 0;
    while (!flag) {
        CHECK(MPI_Test(&req, &flag, &status) == MPI_SUCCESS, "MPI_Test failed");
    }
    CHECK(req == MPI_REQUEST_NULL, "MPI_Test did not free the request");
    CHECK(sum == nprocs * (nprocs - 1) / 2, "allreduce %d", sum);
}

/* A persistent allreduce started 1000 times with new data, then two persistent requests
 * started together, one of them then waited for while inactive. */
static void test_persistent(int forced, int native) {
    enum { N = 5, STARTS = 1000 };
    /* static: the last run finishes in the background after this function returns */
    static int send[N], recv[N], b[N];
    int flag = 1;
    MPI_Request req = MPI_REQUEST_NULL, two[2];
    CHECK(ALLREDUCE_INIT(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS,
          "allreduce init failed");
    for (int s = 0; s < STARTS; s++) {
        for (int i = 0; i < N; i++) {
            send[i] = rank * (s + 1) + i;
            recv[i] = -1;
        }
        CHECK(MPI_Start(&req) == MPI_SUCCESS, "MPI_Start failed (start %d)", s);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait failed (start %d)", s);
        CHECK(req != MPI_REQUEST_NULL, "persistent handle freed by MPI_Wait (start %d)", s);
        for (int i = 0; i < N; i++) {
            int want = (s + 1) * nprocs * (nprocs - 1) / 2 + nprocs * i;
            if (recv[i] != want) {
                CHECK(0, "start %d element %d: %d, want %d", s, i, recv[i], want);
                break;
            }
        }
    }
    if (forced) { /* collsel's handle: MPI itself never sees it complete */
        CHECK(PMPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag,
              "the persistent allreduce is not collsel's");
    }
    if (native) { /* MPI's own inactive persistent request: complete to MPI */
        CHECK(PMPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag,
              "the persistent allreduce is collsel's where the forced variant cannot run");
    }
    two[0] = req;
    CHECK(BCAST_INIT(b, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]) == MPI_SUCCESS,
          "bcast init failed");
    for (int i = 0; i < N; i++) {
        send[i] = i;
        b[i] = rank == 0 ? 7 * i : -1;
    }
    CHECK(MPI_Startall(2, two) == MPI_SUCCESS, "MPI_Startall failed");
    CHECK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
    CHECK(two[0] == req && two[1] != MPI_REQUEST_NULL,
          "persistent handles changed by Waitall %d %d", two[0] == req, two[1] != MPI_REQUEST_NULL);
    for (int i = 0; i < N; i++) {
        CHECK(recv[i] == nprocs * i && b[i] == 7 * i, "Startall element %d: %d %d", i, recv[i],
              b[i]);
    }
    /* inactive persistent requests complete at once with an empty status */
    MPI_Status st;
    CHECK(MPI_Wait(&two[1], &st) == MPI_SUCCESS && two[1] != MPI_REQUEST_NULL,
          "MPI_Wait on an inactive persistent request");
    CHECK(MPI_Request_free(&two[1]) == MPI_SUCCESS && two[1] == MPI_REQUEST_NULL,
          "freeing an inactive persistent request");
    /* an active persistent request freed: its run finishes in the background (collsel's; Open
     * MPI 4.1 refuses to free its own active persistent collective: waited for first) */
    CHECK(MPI_Start(&req) == MPI_SUCCESS, "MPI_Start before free failed");
    if (!forced) {
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait before free failed");
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
          "freeing an active persistent request");
}

/* Blocking orth collectives while nonblocking orth allreduces are outstanding on the same
 * communicator (a blocking schedule with COLL operations first lets the operations start
 * theirs): 8 rounds of an MPI_Iallreduce, a blocking MPI_Allreduce and MPI_Bcast, another
 * MPI_Iallreduce, then both waited for in reverse order. */
static void test_orth_blocking(void) {
    enum { ROUNDS = 8, N = 11 };
    for (int r = 0; r < ROUNDS; r++) {
        int a[N], ar[N], b[N], br[N], c[N], cb[N];
        MPI_Request reqs[2];
        for (int i = 0; i < N; i++) {
            a[i] = value(rank, r, i);
            b[i] = value(rank, r + 50, i);
            c[i] = value(rank, r + 100, i);
            cb[i] = rank == r % nprocs ? value(rank, r + 200, i) : -1;
            ar[i] = br[i] = -1;
        }
        MPI_Iallreduce(a, ar, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
        MPI_Allreduce(MPI_IN_PLACE, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(cb, N, MPI_INT, r % nprocs, MPI_COMM_WORLD);
        MPI_Iallreduce(b, br, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
        CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
        for (int i = 0; i < N; i++) {
            CHECK(ar[i] == sum_value(r, i) && br[i] == sum_value(r + 50, i) &&
                      c[i] == sum_value(r + 100, i) && cb[i] == value(r % nprocs, r + 200, i),
                  "round %d element %d: %d %d %d %d", r, i, ar[i], br[i], c[i], cb[i]);
        }
    }
}

/* States made ahead: right after the first blocking call (a barrier), before any allreduce, a
 * persistent allreduce init must be collsel's where the forced variant can run (its state was
 * made with the communicator's selector state; an init never communicates to make one) and
 * MPI's own where it cannot. */
static void test_ahead(int forced, int native) {
    int x = 0, y = 0, flag = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK(ALLREDUCE_INIT(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS,
          "allreduce init failed");
    CHECK(PMPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS, "get_status");
    CHECK(!forced || !flag, "the first persistent allreduce is not collsel's: no state ahead");
    CHECK(!native || flag, "the first persistent allreduce is collsel's where it cannot run");
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS, "freeing an inactive persistent request");
}

/* 1 when nprocs has a 2D grid layout (orth applies): not prime, at least 4. */
static int has_layout(int n) {
    for (int d = 2; d * d <= n; d++) {
        if (n % d == 0) {
            return 1;
        }
    }
    return 0;
}

/* An active nonblocking request freed: it completes in the background (later calls, at the
 * latest MPI_Finalize) into buffers that live until then. */
static int *detached_buf;
static void test_detached(int forced) {
    MPI_Request req;
    detached_buf = calloc(2 * COUNT, sizeof(int));
    for (int i = 0; i < COUNT; i++) {
        detached_buf[i] = rank;
    }
    MPI_Iallreduce(detached_buf, detached_buf + COUNT, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                   &req);
    if (!forced) { /* Open MPI 4.1 refuses to free its own active nonblocking collective */
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait failed");
        return;
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
          "freeing an active nonblocking request");
}

/* MPI_Comm_free while an operation on the communicator is outstanding: it completes normally
 * (collsel runs it to its end before the context goes). A persistent collsel request on the
 * freed communicator can no longer start, but can be freed. */
static void test_comm_free(int forced) {
    static int x[COUNT], sum[COUNT]; /* the operation ends inside MPI_Comm_free */
    int y = 1, ysum = 0;
    MPI_Comm dup;
    MPI_Request req, pers;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup); /* its collsel context (COLLSEL_FORCE: no warm-up) */
    for (int i = 0; i < COUNT; i++) {
        sum[i] = 1;
    }
    /* a blocking allreduce of the size below: makes DPML's window (--dpml) */
    MPI_Allreduce(MPI_IN_PLACE, sum, COUNT, MPI_INT, MPI_SUM, dup);
    for (int i = 0; i < COUNT; i++) {
        x[i] = rank + i;
        sum[i] = -1;
    }
    CHECK(ALLREDUCE_INIT(&y, &ysum, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &pers) == MPI_SUCCESS,
          "allreduce init failed");
    MPI_Iallreduce(x, sum, COUNT, MPI_INT, MPI_SUM, dup, &req);
    if (!forced) {
        /* Open MPI 4.1's own requests: its persistent one cannot be freed after its
         * communicator, and its libnbc crashes progressing an operation of a freed one */
        CHECK(MPI_Request_free(&pers) == MPI_SUCCESS, "freeing MPI's persistent request");
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait failed");
    }
    MPI_Comm_free(&dup);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait after MPI_Comm_free failed");
    for (int i = 0; i < COUNT; i++) {
        if (sum[i] != nprocs * (nprocs - 1) / 2 + nprocs * i) {
            CHECK(0, "allreduce across MPI_Comm_free: element %d is %d", i, sum[i]);
            break;
        }
    }
    if (forced) {
        CHECK(MPI_Start(&pers) == MPI_ERR_REQUEST, "persistent start on a freed communicator");
        CHECK(MPI_Request_free(&pers) == MPI_SUCCESS && pers == MPI_REQUEST_NULL,
              "freeing a persistent request of a freed communicator");
    }
}

int main(int argc, char **argv) {
    int forced = getenv("COLLSEL_FORCE") != NULL, orth = argc > 1 && strcmp(argv[1], "--orth") == 0;
    int dpml = argc > 1 && strcmp(argv[1], "--dpml") == 0, native = 0, provided = 0;
    if (dpml) { /* node layouts of each communicator's own: DPML can be an operation */
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (orth && !has_layout(nprocs)) { /* the forced orth variants are refused: native */
        native = forced;
        forced = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* a blocking collective: the communicator's collsel context */
    if (orth) {
        test_ahead(forced, native);
    }
    test_many();
    test_mixed(0);
    test_mixed(1);
    test_polling();
    test_persistent(forced, native);
    test_comm_free(forced);
    test_detached(forced);
    test_many(); /* progresses the detached operations too */
    if (orth) {
        test_orth_blocking();
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d failed\n", failures);
    }
    MPI_Finalize();
    free(detached_buf);
    return failures > 0 ? 1 : 0;
}

/* cs_mpi_dpml_shared: allreduce/dpml as nonblocking and persistent operations on communicators
 * whose node resources the selector shares (docs/nonblocking.md, "The window (DPML)"), under
 * mpirun with COLLSEL_FORCE naming a DPML variant and COLLSEL_NODE_SIZE emulating nodes, through
 * collsel.h, at MPI_Init's thread level (below MPI_THREAD_MULTIPLE: MPI_COMM_WORLD and its dup
 * share one node layout). Every result is compared with the MPI library's MPI_Allreduce of the
 * same input on the same communicator:
 *   - right after the first blocking call (a barrier) on each communicator and before any
 *     allreduce: a persistent allreduce must be collsel's (its state, own node resources and
 *     window were made ahead) and right over several starts; nonblocking allreduces of 37,
 *     4099 and 65536 ints;
 *   - rounds of nonblocking allreduces on MPI_COMM_WORLD and on its dup (one of them in place)
 *     outstanding while blocking DPML allreduces run on both communicators (on the shared
 *     layout), completed by one collsel_waitall in reverse order;
 *   - a nonblocking allreduce on one communicator and a blocking one on the other, in opposite
 *     orders on even and odd ranks, and two nonblocking ones in opposite orders (legal MPI,
 *     which serialising window users process-wide would deadlock);
 *   - a persistent allreduce on the dup started 50 times with blocking allreduces on
 *     MPI_COMM_WORLD between start and wait;
 *   - an allreduce of BIG ints, more than the operations' window holds (core/nb.h CS_NB_WINDOW):
 *     the operation is refused and the MPI library's runs (the persistent one must be MPI's
 *     own request), still right;
 *   - two more dups, each with an operation, freed in different orders on even and odd ranks,
 *     then a third, whose operations (a persistent and a nonblocking allreduce) reuse the node
 *     resources of its own that one of them left (core/comm.h, "Operations' node resources").
 * With --rules: under a rules database instead of COLLSEL_FORCE (test_rules below).
 * Which algorithm ran is not visible here: test_dpml_shared.sh checks the COLLSEL_VERBOSE=3 log
 * (every nonblocking and persistent allreduce DPML, but those of BIG ints native). Each rank
 * counts its failures; the verdict is agreed, rank 0 prints "N failed". */
#include "collsel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/rank_check.h"

#define ROUNDS 4
#define STARTS 50
#define BIG    600000 /* 2.4 MB: more than 4 MiB of window on nodes of 2 ranks or more */

static int rank, nprocs, failures;

/* One allreduce: its input (kept for the reference), output and request. */
typedef struct op {
    int *in, *out;
    int count, in_place;
    MPI_Comm comm;
    MPI_Request req;
} op_t;

/* Fills a new allreduce of `count` ints on `comm` with inputs that depend on rank and `salt`. */
static void op_new(op_t *o, MPI_Comm comm, int count, int salt, int in_place) {
    o->in = malloc((size_t)count * sizeof(int));
    o->out = malloc((size_t)count * sizeof(int));
    o->count = count;
    o->in_place = in_place;
    o->comm = comm;
    o->req = MPI_REQUEST_NULL;
    for (int i = 0; i < count; i++) {
        o->in[i] = (rank + 1) * (salt + 3) + i % 1013;
        o->out[i] = in_place ? o->in[i] : -1;
    }
}

static void op_start(op_t *o) {
    CHECK(collsel_iallreduce(o->in_place ? MPI_IN_PLACE : o->in, o->out, o->count, MPI_INT, MPI_SUM,
                             o->comm, &o->req) == MPI_SUCCESS,
          "collsel_iallreduce failed");
}

/* Compares the result with the MPI library's MPI_Allreduce of the same input (collective over
 * o->comm), then frees the op. */
static void op_check(op_t *o, const char *what) {
    int *ref = malloc((size_t)o->count * sizeof(int));
    MPI_Allreduce(o->in, ref, o->count, MPI_INT, MPI_SUM, o->comm);
    for (int i = 0; i < o->count; i++) {
        if (o->out[i] != ref[i]) {
            CHECK(0, "%s, %d ints: element %d is %d, MPI_Allreduce %d", what, o->count, i,
                  o->out[i], ref[i]);
            break;
        }
    }
    free(ref);
    free(o->in);
    free(o->out);
}

/* A blocking collsel allreduce (DPML, on the shared node layout) of `count` ints, checked. */
static void blocking(MPI_Comm comm, int count, int salt) {
    op_t o;
    op_new(&o, comm, count, salt, 0);
    CHECK(collsel_allreduce(o.in, o.out, count, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS,
          "collsel_allreduce failed");
    op_check(&o, "blocking allreduce");
}

/* A persistent allreduce of `count` ints on `comm` started `starts` times with new data, a
 * blocking allreduce on `between` (if not MPI_COMM_NULL) between each start and its wait.
 * `ours`: the handle must be collsel's (MPI never sees it complete), else MPI's own (an
 * inactive persistent request is complete to MPI). */
static void persistent(MPI_Comm comm, int count, int starts, MPI_Comm between, int ours) {
    op_t o;
    MPI_Request req = MPI_REQUEST_NULL;
    int flag = -1;
    op_new(&o, comm, count, 0, 0);
    CHECK(collsel_allreduce_init(o.in, o.out, count, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS,
          "collsel_allreduce_init failed");
    CHECK(PMPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag == !ours,
          "the persistent allreduce of %d ints is %s", count,
          ours ? "not collsel's" : "collsel's where it cannot be");
    for (int s = 0; s < starts; s++) {
        int *ref = malloc((size_t)count * sizeof(int));
        for (int i = 0; i < count; i++) {
            o.in[i] = rank * (s + 1) + i;
            o.out[i] = -1;
        }
        CHECK(collsel_start(&req) == MPI_SUCCESS, "collsel_start failed (start %d)", s);
        if (between != MPI_COMM_NULL) {
            blocking(between, 37 + s, s);
        }
        CHECK(collsel_wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && req != MPI_REQUEST_NULL,
              "collsel_wait failed (start %d)", s);
        MPI_Allreduce(o.in, ref, count, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < count; i++) {
            if (o.out[i] != ref[i]) {
                CHECK(0, "persistent start %d, element %d: %d, MPI_Allreduce %d", s, i, o.out[i],
                      ref[i]);
                break;
            }
        }
        free(ref);
    }
    CHECK(collsel_request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
          "freeing the persistent allreduce");
    free(o.in);
    free(o.out);
}

/* Nonblocking allreduces before any allreduce on the communicators. */
static void test_first(MPI_Comm world, MPI_Comm dup) {
    static const int counts[] = {37, 4099, 65536};
    op_t o[6];
    persistent(world, 37, 3, MPI_COMM_NULL, 1);
    for (int i = 0; i < 3; i++) {
        op_new(&o[2 * i], world, counts[i], i, 0);
        op_new(&o[2 * i + 1], dup, counts[i], i + 7, 0);
        op_start(&o[2 * i]);
        op_start(&o[2 * i + 1]);
        CHECK(collsel_wait(&o[2 * i].req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
        CHECK(collsel_wait(&o[2 * i + 1].req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    }
    for (int i = 0; i < 6; i++) {
        op_check(&o[i], "first nonblocking allreduce");
    }
}

/* Operations on both communicators outstanding while blocking DPML allreduces run on both. */
static void test_interleaved(MPI_Comm world, MPI_Comm dup) {
    for (int r = 0; r < ROUNDS; r++) {
        op_t o[6];
        MPI_Request reqs[6];
        op_new(&o[0], world, 37 + r, r, 0);
        op_new(&o[1], dup, 4099, r + 1, 1);
        op_new(&o[2], world, 65536, r + 2, 0);
        op_start(&o[0]);
        op_start(&o[1]);
        blocking(world, 1000 + r, r);
        op_start(&o[2]);
        blocking(dup, 20000 + r, r + 1);
        op_new(&o[3], dup, 37, r + 3, 0);
        op_new(&o[4], world, 4099 + r, r + 4, 1);
        op_new(&o[5], dup, 65536, r + 5, 0);
        op_start(&o[3]);
        op_start(&o[4]);
        blocking(world, 70000, r + 2);
        op_start(&o[5]);
        blocking(dup, 5, r + 3);
        for (int i = 0; i < 6; i++) {
            reqs[5 - i] = o[i].req;
        }
        CHECK(collsel_waitall(6, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall failed");
        for (int i = 0; i < 6; i++) {
            CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not freed", i);
            op_check(&o[i], "interleaved nonblocking allreduce");
        }
    }
}

/* Nonblocking and blocking allreduces on two communicators of one group in opposite orders on
 * even and odd ranks. */
static void test_opposite(MPI_Comm world, MPI_Comm dup) {
    op_t a, b;
    op_new(&a, world, 4099, 11, 0);
    if (rank % 2 == 0) {
        op_start(&a);
        blocking(dup, 4099, 12);
    } else {
        blocking(dup, 4099, 12);
        op_start(&a);
    }
    CHECK(collsel_wait(&a.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    op_check(&a, "nonblocking allreduce, opposite order");
    op_new(&a, world, 37, 13, 0);
    op_new(&b, dup, 65536, 14, 0);
    if (rank % 2 == 0) {
        op_start(&a);
        op_start(&b);
    } else {
        op_start(&b);
        op_start(&a);
    }
    CHECK(collsel_wait(&a.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    CHECK(collsel_wait(&b.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    op_check(&a, "nonblocking allreduce, opposite issue order");
    op_check(&b, "nonblocking allreduce, opposite issue order");
}

/* Two more communicators of the group, each with an operation, freed in different orders on
 * even and odd ranks; then a third, whose operations run on the set of its own that one of
 * them left (reused: test_dpml_shared.sh checks the log). */
static void test_reuse(void) {
    MPI_Comm a, b, c;
    op_t o;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    collsel_barrier(a);
    collsel_barrier(b);
    op_new(&o, a, 4099, 31, 0);
    op_start(&o);
    CHECK(collsel_wait(&o.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    op_check(&o, "nonblocking allreduce on a second dup");
    op_new(&o, b, 4099, 32, 0);
    op_start(&o);
    CHECK(collsel_wait(&o.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    op_check(&o, "nonblocking allreduce on a third dup");
    if (rank % 2) {
        MPI_Comm_free(&b);
        MPI_Comm_free(&a);
    } else {
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    collsel_barrier(c);
    persistent(c, 37, 3, MPI_COMM_WORLD, 1);
    op_new(&o, c, 65536, 33, 1);
    op_start(&o);
    CHECK(collsel_wait(&o.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    op_check(&o, "nonblocking allreduce on a dup made after two were freed");
    MPI_Comm_free(&c);
}

/* More than the operations' window: refused, the MPI library's operation runs. */
static void test_refused(MPI_Comm world, MPI_Comm dup) {
    op_t o, small;
    op_new(&o, world, BIG, 21, 0);
    op_new(&small, dup, 37, 22, 0);
    op_start(&o);
    op_start(&small);
    blocking(dup, 4099, 23);
    CHECK(collsel_wait(&o.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    CHECK(collsel_wait(&small.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    op_check(&o, "nonblocking allreduce above the window");
    op_check(&small, "nonblocking allreduce beside one above the window");
    persistent(world, BIG, 2, MPI_COMM_NULL, 0);
}

/* --rules (COLLSEL_DB with DPML ranked first for allreduce below RULES_HI bytes, native above,
 * no COLLSEL_FORCE): the window is made ahead for calls up to RULES_HI - 1 bytes; an allreduce
 * of the largest multiple of 4 below RULES_HI must be a DPML operation, one of RULES_HI bytes
 * goes native by the rules (test_dpml_shared.sh checks the log and the window's size). */
#define RULES_HI 65536
static void test_rules(void) {
    op_t o[2];
    persistent(MPI_COMM_WORLD, 37, 3, MPI_COMM_NULL, 1);
    op_new(&o[0], MPI_COMM_WORLD, RULES_HI / 4 - 1, 41, 0);
    op_new(&o[1], MPI_COMM_WORLD, RULES_HI / 4, 42, 0);
    op_start(&o[0]);
    op_start(&o[1]);
    CHECK(collsel_waitall(1, &o[0].req, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "wait failed");
    CHECK(collsel_waitall(1, &o[1].req, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "wait failed");
    op_check(&o[0], "nonblocking allreduce at the top of the DPML rule");
    op_check(&o[1], "nonblocking allreduce above the DPML rule");
}

int main(int argc, char **argv) {
    MPI_Comm dup;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Query_thread(&provided);
    CHECK(provided < MPI_THREAD_MULTIPLE, "MPI_Init gave MPI_THREAD_MULTIPLE: nothing is shared");
    if (argc > 1 && strcmp(argv[1], "--rules") == 0) {
        collsel_barrier(MPI_COMM_WORLD); /* the selector state, states and window made ahead */
        test_rules();
        MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("%d failed\n", failures);
        }
        MPI_Finalize();
        return failures > 0 ? 1 : 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    /* blocking calls: each communicator's collsel context, selector state and states ahead */
    collsel_barrier(MPI_COMM_WORLD);
    collsel_barrier(dup);
    test_first(MPI_COMM_WORLD, dup);
    test_interleaved(MPI_COMM_WORLD, dup);
    test_opposite(MPI_COMM_WORLD, dup);
    persistent(dup, 4099, STARTS, MPI_COMM_WORLD, 1);
    test_refused(MPI_COMM_WORLD, dup);
    MPI_Comm_free(&dup);
    test_reuse();
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d failed\n", failures);
    }
    MPI_Finalize();
    return failures > 0 ? 1 : 0;
}

/* Node resources shared between the communicators of one group (core/comm.h, "Sharing";
 * docs/selector.md, "Node resources shared between communicators"), run by test_selector.sh's
 * share_npN groups with COLLSEL_FORCE=allreduce/dpml(...) and COLLSEL_VERBOSE=3.
 *
 * Many communicators are created, used and freed: halves of MPI_COMM_WORLD again and again, the
 * same halves with their ranks reversed (the same ranks in another order: another group), two
 * communicators of one group alive at once and used in turn with calls of growing size (the
 * second grows the window the first then uses), freed in an order that differs between ranks
 * (shared resources are released once, by the last of them, whichever it is on each rank),
 * and every rotation and reversal of MPI_COMM_WORLD, twice, so that at 4 processes more groups
 * are met than a process keeps (CS_NODE_KEEP, 8). Every allreduce uses a non-commutative op (2x2
 * matrix products), so a communicator that ran on another group's node resources, or in another
 * rank order, gives a wrong result; each is checked against PMPI_Allreduce.
 *
 * With the argument "multiple" it runs under MPI_THREAD_MULTIPLE, where nothing is shared.
 *
 * The test keeps a model of the cache: a group whose resources are kept, or in use by a live
 * communicator, is reused; any other is made, and kept when every rank of the group keeps fewer
 * than 8 (agreed here with PMPI_Allreduce, as the library agrees). Each rank prints
 * "share-expect made M reused U" on stdout; the script compares it with the rank's
 * "node resources of N ranks made" and "... reused" lines on stderr. The last line is
 * "N checks, F failed" from rank 0. */
#include "collsel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP   64
#define MAXG   64
#define KEEP   8 /* CS_NODE_KEEP */
#define MAXCNT 2048

typedef struct group {
    int n;
    int world[MAXP];
    int keep, users;
} group_t;

static int world_rank, world_size;
static long checks, failures;
static group_t groups[MAXG];
static int ngroups, nkept, made, reused;
static int multiple; /* MPI_THREAD_MULTIPLE: nothing is shared */
static MPI_Datatype mat_type;
static MPI_Op mat_op;
static unsigned send[4 * MAXCNT], got[4 * MAXCNT], want[4 * MAXCNT];

static void check(int ok, const char *what, const char *where) {
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL rank %d: %s (%s)\n", world_rank, what, where);
    }
}

/* inout = in x inout for 2x2 matrices of unsigned (wrapping) integers: not commutative. */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *type) {
    const unsigned *a = in;
    unsigned *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof(c));
    }
}

/* The model's entry of comm's group (world ranks in rank order), made when new. */
static group_t *group_of(MPI_Comm comm) {
    group_t g;
    MPI_Group cg, wg;
    int ranks[MAXP];
    memset(&g, 0, sizeof(g));
    MPI_Comm_size(comm, &g.n);
    MPI_Comm_group(comm, &cg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < g.n; i++) {
        ranks[i] = i;
    }
    MPI_Group_translate_ranks(cg, g.n, ranks, wg, g.world);
    MPI_Group_free(&cg);
    MPI_Group_free(&wg);
    for (int i = 0; i < ngroups; i++) {
        if (groups[i].n == g.n &&
            memcmp(groups[i].world, g.world, sizeof(int) * (size_t)g.n) == 0) {
            return &groups[i];
        }
    }
    if (ngroups == MAXG) {
        fprintf(stderr, "share_test: too many groups\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    groups[ngroups] = g;
    return &groups[ngroups++];
}

/* A communicator's first collsel call: the model's verdict (collective over comm). */
static void model_first_use(MPI_Comm comm, group_t *g) {
    int room = nkept < KEEP;
    if (multiple) {
        made++;
        return;
    }
    if (g->keep || g->users > 0) {
        reused++;
        g->users++;
        return;
    }
    PMPI_Allreduce(MPI_IN_PLACE, &room, 1, MPI_INT, MPI_MIN, comm);
    made++;
    g->users = 1;
    g->keep = room;
    nkept += room;
}

static void model_free(group_t *g) {
    g->users--;
}

/* One allreduce of `count` matrices on comm through collsel, checked against PMPI's. */
static void allreduce(MPI_Comm comm, int count, int seed, const char *where) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < 4 * count; i++) {
        send[i] = (unsigned)(seed * 7919 + rank * 104729 + i * 31 + 1);
    }
    memset(got, 0xab, sizeof(unsigned) * 4 * (size_t)count);
    check(collsel_allreduce(send, got, count, mat_type, mat_op, comm) == MPI_SUCCESS,
          "collsel_allreduce returned an error", where);
    PMPI_Allreduce(send, want, count, mat_type, mat_op, comm);
    check(memcmp(got, want, sizeof(unsigned) * 4 * (size_t)count) == 0,
          "result differs from PMPI_Allreduce", where);
}

/* Creates comm by splitting MPI_COMM_WORLD (color, key), uses it for `calls` allreduces of the
 * counts below, frees it. */
static void use_split(int color, int key, int calls, int seed, const char *where) {
    static const int counts[] = {1, 256, 64, 2048, 3};
    MPI_Comm comm;
    group_t *g;
    MPI_Comm_split(MPI_COMM_WORLD, color, key, &comm);
    g = group_of(comm);
    model_first_use(comm, g);
    for (int c = 0; c < calls; c++) {
        allreduce(comm, counts[(seed + c) % 5], seed + c, where);
    }
    MPI_Comm_free(&comm);
    model_free(g);
}

int main(int argc, char **argv) {
    int color, total[2], provided = MPI_THREAD_SINGLE;
    if (argc > 1 && strcmp(argv[1], "multiple") == 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        multiple = provided == MPI_THREAD_MULTIPLE;
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size > MAXP) {
        fprintf(stderr, "share_test: at most %d processes\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Op_create(mat_mul, 0, &mat_op);
    color = world_rank * 2 / world_size;

    /* halves, again and again, and their reversals in turn */
    for (int i = 0; i < 6; i++) {
        use_split(color, world_rank, 2, i, "half");
    }
    for (int i = 0; i < 6; i++) {
        use_split(color, i % 2 ? -world_rank : world_rank, 2, 10 + i,
                  i % 2 ? "half reversed" : "half (alternating)");
    }

    /* two communicators of one group at once; the second grows the window the first then uses;
     * freed in an order that differs between ranks (under MPI_THREAD_MULTIPLE each has its
     * own window, and MPI_Win_free synchronises the node: the same order everywhere) */
    {
        MPI_Comm a, b;
        group_t *g;
        MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &a);
        MPI_Comm_dup(a, &b);
        g = group_of(a);
        allreduce(a, 1, 20, "two at once, first");
        model_first_use(a, g);
        allreduce(b, 2048, 21, "two at once, second");
        model_first_use(b, g);
        allreduce(a, 2000, 22, "two at once, first after the second grew the window");
        allreduce(b, 5, 23, "two at once, second");
        allreduce(a, 1, 24, "two at once, first");
        if (world_rank % 2 && !multiple) {
            MPI_Comm_free(&b);
            MPI_Comm_free(&a);
        } else {
            MPI_Comm_free(&a);
            MPI_Comm_free(&b);
        }
        model_free(g);
        model_free(g);
    }

    /* every rotation and reversal of MPI_COMM_WORLD, twice: at 4 processes more groups than a
     * process keeps */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 2 * world_size; i++) {
            int pos = (world_rank + i) % world_size;
            use_split(0, i < world_size ? pos : -pos, 1, 30 + i + pass, "rotation");
        }
    }
    /* and the halves once more: kept from the start */
    use_split(color, world_rank, 1, 40, "half again");

    printf("share-expect made %d reused %d\n", made, reused);
    fflush(stdout);
    total[0] = (int)checks;
    total[1] = (int)failures;
    PMPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Op_free(&mat_op);
    MPI_Type_free(&mat_type);
    MPI_Finalize();
    if (world_rank == 0) {
        printf("%d checks, %d failed\n", total[0], total[1]);
    }
    return total[1] != 0;
}

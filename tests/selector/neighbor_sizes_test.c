/* cs_sel_neighbor_sizes: neighbor_allgather and neighbor_alltoall whose block sizes differ
 * between ranks (docs/neighbor.md, "What MPI allows"), through libcollsel, under mpirun; run by
 * neighbor_sizes.sh once per forced algorithm and once with size rules, under a timeout, so that
 * ranks that choose differently (and hang) fail the test.
 *
 *   cs_sel_neighbor_sizes legal      2 processes only: rank 0 -> 1 twice (a repeated edge),
 *                                    1 -> 0 once; rank r sends blocks of size[r] ints and
 *                                    receives blocks of size[1 - r] (each rank's send block is
 *                                    the other's receive block, which MPI allows on 2
 *                                    processes), for the size pairs of `pairs` below; then,
 *                                    on every process count, a ring (both ways) where every rank
 *                                    has blocks of 2 ints but odd ranks describe them as one
 *                                    MPI_2INT (one signature, two types). Every result must equal
 *                                    what the standard defines (its isend/irecv code), element by
 *                                    element, or collsel's call fail as MPI_Neighbor_*'s does
 *                                    (MPI_ERRORS_RETURN; compare()).
 *   cs_sel_neighbor_sizes erroneous  3 or more processes, the same ring: every rank sends 2 ints,
 *                                    rank 0 receives blocks of 1 int (which MPI forbids). The job
 *                                    must end (not hang) through the ring's error handler, called
 *                                    with MPI_ERR_TRUNCATE as for the MPI library's own call; the
 *                                    handler says so on stderr and aborts, like
 *                                    MPI_ERRORS_ARE_FATAL.
 * Prints "N checks, F failed" on rank 0 (legal); exit status 1 when a check failed. */
#include "collsel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failed, rank, nprocs;

static void check(int ok, const char *what) {
    checks++;
    if (!ok) {
        failed++;
        fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
    }
}

typedef int (*nbr_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

/* What the standard defines (MPI-4.1, the code after MPI_NEIGHBOR_ALLGATHER and
 * MPI_NEIGHBOR_ALLTOALL): a send of the block (allgather: the one block) to each destination
 * and a receive into each receive block from each source, on `p2p` (a duplicate of comm). */
static int reference(MPI_Comm comm, MPI_Comm p2p, int allgather, const int *sbuf, int scount,
                     MPI_Datatype stype, int *rbuf, int rcount, MPI_Datatype rtype) {
    int indeg, outdeg, weighted, n = 0, err;
    MPI_Aint lb, sext, rext;
    MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
    int *src = malloc(sizeof(int) * (size_t)(indeg + 1)),
        *dst = malloc(sizeof(int) * (size_t)(outdeg + 1));
    int *sw = malloc(sizeof(int) * (size_t)(indeg + 1)),
        *dw = malloc(sizeof(int) * (size_t)(outdeg + 1));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(indeg + outdeg + 1));
    MPI_Dist_graph_neighbors(comm, indeg, src, sw, outdeg, dst, dw);
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    for (int j = 0; j < indeg; j++) {
        MPI_Irecv((char *)rbuf + (MPI_Aint)j * rcount * rext, rcount, rtype, src[j], 1, p2p,
                  &req[n++]);
    }
    for (int i = 0; i < outdeg; i++) {
        MPI_Isend((const char *)sbuf + (allgather ? 0 : (MPI_Aint)i * scount * sext), scount, stype,
                  dst[i], 1, p2p, &req[n++]);
    }
    err = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    free(src);
    free(dst);
    free(sw);
    free(dw);
    free(req);
    return err;
}

/* Runs `coll` (allgather: 1, alltoall: 0) with collsel, with MPI and as the standard defines it
 * (reference) on comm (a distributed graph, MPI_ERRORS_RETURN; p2p its duplicate): sends
 * scount elements of stype (sints ints each) per block, receives rcount of rtype (rints ints)
 * per block. collsel must equal the reference, or do what the MPI library's own call does
 * (same status, same data): collsel's native is that call, and Open MPI 4.1.4 differs from the
 * standard on 2 processes whose blocks differ (neighbor_alltoall: MPI_ERR_TRUNCATE on both
 * ranks; neighbor_allgather with a rank's receive count 0: that rank sends nothing). */
static void compare(MPI_Comm comm, MPI_Comm p2p, int allgather, int indeg, int outdeg, int scount,
                    MPI_Datatype stype, int sints, int rcount, MPI_Datatype rtype, int rints,
                    const char *what) {
    nbr_fn mine = allgather ? collsel_neighbor_allgather : collsel_neighbor_alltoall;
    nbr_fn theirs = allgather ? MPI_Neighbor_allgather : MPI_Neighbor_alltoall;
    size_t sn = (size_t)(outdeg + 1) * (size_t)(scount * sints + 1);
    size_t rn = (size_t)(indeg + 1) * (size_t)(rcount * rints + 1);
    int *sbuf = malloc(sn * sizeof(int)), *a = malloc(rn * sizeof(int)),
        *b = malloc(rn * sizeof(int)), *ref = malloc(rn * sizeof(int));
    int st_mine, st_lib, st_ref;
    char text[256];
    for (size_t i = 0; i < sn; i++) {
        sbuf[i] = rank * 100000 + (int)i;
    }
    for (size_t i = 0; i < rn; i++) {
        a[i] = b[i] = ref[i] = -1;
    }
    snprintf(text, sizeof(text), "%s %s: send %d x %d ints, receive %d x %d ints",
             allgather ? "neighbor_allgather" : "neighbor_alltoall", what, scount, sints, rcount,
             rints);
    st_mine = mine(sbuf, scount, stype, a, rcount, rtype, comm);
    st_lib = theirs(sbuf, scount, stype, b, rcount, rtype, comm);
    st_ref = reference(comm, p2p, allgather, sbuf, scount, stype, ref, rcount, rtype);
    check(st_ref == MPI_SUCCESS, text);
    check((st_mine == MPI_SUCCESS && memcmp(a, ref, rn * sizeof(int)) == 0) ||
              (st_mine == st_lib && (st_lib != MPI_SUCCESS || memcmp(a, b, rn * sizeof(int)) == 0)),
          text);
    if ((st_lib != MPI_SUCCESS || memcmp(b, ref, rn * sizeof(int)) != 0) &&
        (st_mine != MPI_SUCCESS || memcmp(a, ref, rn * sizeof(int)) != 0)) {
        fprintf(stderr,
                "rank %d: %s: as the MPI library's call (status %d), not as the "
                "standard's code\n",
                rank, text, st_lib);
    }
    free(sbuf);
    free(a);
    free(b);
    free(ref);
}

/* The ring, both ways: sources and destinations r - 1, r + 1. */
static MPI_Comm ring(void) {
    int n[2] = {(rank + nprocs - 1) % nprocs, (rank + 1) % nprocs}, w[2] = {1, 1};
    MPI_Comm comm;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, n, w, 2, n, w, MPI_INFO_NULL, 0, &comm);
    return comm;
}

/* comm with MPI_ERRORS_RETURN, and its duplicate for the reference's messages. */
static MPI_Comm returning(MPI_Comm comm) {
    MPI_Comm p2p;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_dup(comm, &p2p);
    return p2p;
}

static void legal(void) {
    /* ints per block of rank 0 and rank 1: one side twice the other, 8 times, count 0 */
    static const int pairs[][2] = {{1, 2}, {2, 1}, {2, 16}, {16, 1}, {0, 3}, {4, 4}};
    MPI_Comm comm = ring(), p2p = returning(comm);
    if (nprocs == 2) {
        MPI_Comm pair, pair_p2p;
        int zero_d[2] = {1, 1}, zero_s[1] = {1}, one_d[1] = {0}, one_s[2] = {0, 0}, w[2] = {1, 1};
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, rank == 0 ? 1 : 2,
                                       rank == 0 ? zero_s : one_s, w, rank == 0 ? 2 : 1,
                                       rank == 0 ? zero_d : one_d, w, MPI_INFO_NULL, 0, &pair);
        pair_p2p = returning(pair);
        for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
            int s = pairs[i][rank], r = pairs[i][1 - rank];
            int indeg = rank == 0 ? 1 : 2, outdeg = rank == 0 ? 2 : 1;
            compare(pair, pair_p2p, 1, indeg, outdeg, s, MPI_INT, 1, r, MPI_INT, 1, "2 processes");
            compare(pair, pair_p2p, 0, indeg, outdeg, s, MPI_INT, 1, r, MPI_INT, 1, "2 processes");
        }
        MPI_Comm_free(&pair_p2p);
        MPI_Comm_free(&pair);
    }
    for (int allgather = 0; allgather < 2; allgather++) {
        if (rank % 2 == 1) {
            compare(comm, p2p, allgather, 2, 2, 1, MPI_2INT, 2, 1, MPI_2INT, 2, "ring, MPI_2INT");
        } else {
            compare(comm, p2p, allgather, 2, 2, 2, MPI_INT, 1, 2, MPI_INT, 1, "ring, MPI_2INT");
        }
    }
    MPI_Comm_free(&p2p);
    MPI_Comm_free(&comm);
}

/* The error handler of the erroneous call's communicator: says which error class it was called
 * with and stops the job, as MPI_ERRORS_ARE_FATAL does (whose message Open MPI may lose when
 * several ranks abort at once). */
static void fatal(MPI_Comm *comm, int *code, ...) {
    int cls = MPI_ERR_OTHER;
    (void)comm;
    MPI_Error_class(*code, &cls);
    fprintf(stderr, "rank %d: error handler called with %s\n", rank,
            cls == MPI_ERR_TRUNCATE ? "MPI_ERR_TRUNCATE" : "another error class");
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void erroneous(void) {
    MPI_Comm comm = ring();
    MPI_Errhandler handler;
    int rcount = rank == 0 ? 1 : 2;
    int sbuf[4] = {rank, rank, rank, rank}, rbuf[4];
    MPI_Comm_create_errhandler(fatal, &handler);
    MPI_Comm_set_errhandler(comm, handler);
    /* MPI's own call stops the job with MPI_ERR_TRUNCATE at rank 0 (not run here: collsel's call
     * must do it) */
    collsel_neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, rcount, MPI_INT, comm);
    collsel_neighbor_allgather(sbuf, 2, MPI_INT, rbuf, rcount, MPI_INT, comm);
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&handler);
    check(0, "an erroneous call (rank 0 receives 1 int, its neighbours send 2) did not fail");
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (strcmp(mode, "legal") == 0) {
        legal();
    } else if (strcmp(mode, "erroneous") == 0 && nprocs >= 3) {
        erroneous();
    } else {
        if (rank == 0) {
            fprintf(stderr, "usage: cs_sel_neighbor_sizes legal | erroneous (3+ processes)\n");
        }
        MPI_Finalize();
        return 2;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d checks, %d failed\n", checks, failed);
    }
    MPI_Finalize();
    return failed != 0;
}

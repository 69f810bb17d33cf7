/* cs_mpi_nb_v: gatherv, scatterv and alltoallv as nonblocking and persistent collectives through
 * libcollsel_pmpi's MPI interface (docs/nonblocking.md, "Collectives that agree on their key"),
 * under mpirun with COLLSEL_FORCE naming collsel algorithms (the ctest; test_nb_v.sh checks
 * the log for what ran). Their key is agreed per call, so each operation agrees first (the MPI
 * library's nonblocking allgather or allreduce on collsel's private communicator), then
 * chooses and runs its schedule in progress. Every result is compared with the MPI library's
 * blocking collective (PMPI_*) on the same arguments:
 *
 *   - every root, count arrays with zeros and gaps, MPI_Wait;
 *   - all counts zero;
 *   - the root's MPI_IN_PLACE (gatherv, scatterv);
 *   - 24 outstanding operations of the three, rotating roots, with a blocking MPI_Gatherv and
 *     MPI_Alltoallv (collsel's, which agree with a blocking collective on the same private
 *     communicator) issued while they are outstanding, completed by one MPI_Waitall in reverse
 *     order of issue;
 *   - persistent MPIX_Gatherv_init, MPIX_Scatterv_init and MPIX_Alltoallv_init each started 20
 *     times with changing data (the first start agrees and chooses, the others reuse it);
 *   - a gatherv whose ranks' block types differ in size (ints against pairs of ints): the
 *     counts cannot be agreed in one type, gatherv/binomial refuses the call and the operation
 *     runs gatherv/linear (the log says so).
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
#define GATHERV_INIT   MPIX_Gatherv_init
#define SCATTERV_INIT  MPIX_Scatterv_init
#define ALLTOALLV_INIT MPIX_Alltoallv_init
#else
#define GATHERV_INIT   MPI_Gatherv_init
#define SCATTERV_INIT  MPI_Scatterv_init
#define ALLTOALLV_INIT MPI_Alltoallv_init
#endif

#define NOPS 24
#define MAXC 6 /* the largest count of one block */

static int rank, nprocs, failures;

enum { GATHERV, SCATTERV, ALLTOALLV, NKINDS };
static const char *const kind_name[NKINDS] = {"gatherv", "scatterv", "alltoallv"};

/* One call's arguments and buffers: collsel's output in out, the MPI library's in ref. */
typedef struct vcall {
    int kind, root, in_place;
    int *send, *out, *ref;
    int *scounts, *sdispls, *rcounts, *rdispls;
    size_t nsend, nout;
} vcall_t;

/* The count of the block from rank `from` to rank `to` in call k: zeros included. */
static int count_of(int k, int from, int to, int zero) {
    return zero ? 0 : (from * 3 + to + k) % MAXC;
}

/* Packs counts[0..nprocs) with a gap of one after each block: the displacements, and the
 * total extent. */
static size_t lay_out(const int *counts, int *displs) {
    size_t at = 0;
    for (int r = 0; r < nprocs; r++) {
        displs[r] = (int)at;
        at += (size_t)counts[r] + 1;
    }
    return at;
}

static void vcall_make(vcall_t *c, int kind, int k, int root, int zero, int in_place) {
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->root = root;
    c->in_place = in_place && kind != ALLTOALLV && rank == root;
    c->scounts = calloc((size_t)nprocs, sizeof(int));
    c->sdispls = calloc((size_t)nprocs, sizeof(int));
    c->rcounts = calloc((size_t)nprocs, sizeof(int));
    c->rdispls = calloc((size_t)nprocs, sizeof(int));
    for (int r = 0; r < nprocs; r++) {
        switch (kind) {
        case GATHERV: /* rank r sends its block to the root */
            c->rcounts[r] = count_of(k, r, root, zero);
            break;
        case SCATTERV: /* the root sends block r to rank r */
            c->scounts[r] = count_of(k, root, r, zero);
            break;
        default:
            c->scounts[r] = count_of(k, rank, r, zero);
            c->rcounts[r] = count_of(k, r, rank, zero);
            break;
        }
    }
    if (kind == GATHERV) {
        c->scounts[0] = c->rcounts[rank]; /* this rank's sendcount */
        c->nsend = (size_t)c->scounts[0] + 1;
        c->nout = lay_out(c->rcounts, c->rdispls);
    } else if (kind == SCATTERV) {
        c->rcounts[0] = c->scounts[rank]; /* this rank's recvcount */
        c->nsend = lay_out(c->scounts, c->sdispls);
        c->nout = (size_t)c->rcounts[0] + 1;
    } else {
        c->nsend = lay_out(c->scounts, c->sdispls);
        c->nout = lay_out(c->rcounts, c->rdispls);
    }
    c->send = malloc(c->nsend * sizeof(int));
    c->out = malloc(c->nout * sizeof(int));
    c->ref = malloc(c->nout * sizeof(int));
}

/* Fresh data (round `round` of a persistent call): inputs, and outputs set to -1 (the root's
 * own block in place for gatherv, its whole send buffer for scatterv). */
static void vcall_fill(vcall_t *c, int round) {
    for (size_t i = 0; i < c->nsend; i++) {
        c->send[i] = rank * 100000 + round * 1000 + (int)i;
    }
    for (size_t i = 0; i < c->nout; i++) {
        c->out[i] = c->ref[i] = -1;
    }
    if (c->in_place && c->kind == GATHERV) {
        for (int i = 0; i < c->rcounts[rank]; i++) {
            c->out[c->rdispls[rank] + i] = c->ref[c->rdispls[rank] + i] = c->send[i];
        }
    }
}

static void vcall_free(vcall_t *c) {
    free(c->send);
    free(c->out);
    free(c->ref);
    free(c->scounts);
    free(c->sdispls);
    free(c->rcounts);
    free(c->rdispls);
}

/* The scatterv root's output in place is its block of the send buffer: out is the send
 * buffer there, and the reference compares that block. */
static void vcall_issue(vcall_t *c, MPI_Request *req) {
    const void *gsend = c->in_place ? MPI_IN_PLACE : (const void *)c->send;
    void *srecv = c->in_place ? MPI_IN_PLACE : (void *)c->out;
    switch (c->kind) {
    case GATHERV:
        MPI_Igatherv(gsend, c->scounts[0], MPI_INT, c->out, c->rcounts, c->rdispls, MPI_INT,
                     c->root, MPI_COMM_WORLD, req);
        break;
    case SCATTERV:
        MPI_Iscatterv(c->send, c->scounts, c->sdispls, MPI_INT, srecv, c->rcounts[0], MPI_INT,
                      c->root, MPI_COMM_WORLD, req);
        break;
    default:
        MPI_Ialltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->out, c->rcounts, c->rdispls,
                       MPI_INT, MPI_COMM_WORLD, req);
        break;
    }
}

static void vcall_init(vcall_t *c, MPI_Request *req) {
    const void *gsend = c->in_place ? MPI_IN_PLACE : (const void *)c->send;
    void *srecv = c->in_place ? MPI_IN_PLACE : (void *)c->out;
    switch (c->kind) {
    case GATHERV:
        GATHERV_INIT(gsend, c->scounts[0], MPI_INT, c->out, c->rcounts, c->rdispls, MPI_INT,
                     c->root, MPI_COMM_WORLD, MPI_INFO_NULL, req);
        break;
    case SCATTERV:
        SCATTERV_INIT(c->send, c->scounts, c->sdispls, MPI_INT, srecv, c->rcounts[0], MPI_INT,
                      c->root, MPI_COMM_WORLD, MPI_INFO_NULL, req);
        break;
    default:
        ALLTOALLV_INIT(c->send, c->scounts, c->sdispls, MPI_INT, c->out, c->rcounts, c->rdispls,
                       MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, req);
        break;
    }
}

/* The MPI library's blocking collective on the same arguments, into ref. */
static void vcall_reference(vcall_t *c) {
    switch (c->kind) {
    case GATHERV:
        PMPI_Gatherv(c->in_place ? MPI_IN_PLACE : c->send, c->scounts[0], MPI_INT, c->ref,
                     c->rcounts, c->rdispls, MPI_INT, c->root, MPI_COMM_WORLD);
        break;
    case SCATTERV:
        PMPI_Scatterv(c->send, c->scounts, c->sdispls, MPI_INT, c->ref, c->rcounts[0], MPI_INT,
                      c->root, MPI_COMM_WORLD);
        break;
    default:
        PMPI_Alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->ref, c->rcounts, c->rdispls,
                       MPI_INT, MPI_COMM_WORLD);
        break;
    }
}

/* Compares collsel's output with the reference (the scatterv root in place: its block of the
 * send buffer, untouched, against what the MPI library delivered out of place). */
static void vcall_check(const vcall_t *c, const char *what, int k) {
    const int *got = c->out;
    size_t n = c->nout;
    if (c->in_place && c->kind == SCATTERV) {
        got = c->send + c->sdispls[rank];
        n = (size_t)c->rcounts[0];
    }
    for (size_t i = 0; i < n; i++) {
        if (got[i] != c->ref[i]) {
            CHECK(0, "%s %s k=%d root %d%s: element %zu is %d, want %d", what, kind_name[c->kind],
                  k, c->root, c->in_place ? " in place" : "", i, got[i], c->ref[i]);
            return;
        }
    }
}

/* Every kind, every root (alltoallv: one), with and without zeros and in place, waited one by
 * one. */
static void test_each(void) {
    for (int kind = 0; kind < NKINDS; kind++) {
        for (int root = 0; root < (kind == ALLTOALLV ? 1 : nprocs); root++) {
            for (int variant = 0; variant < 3; variant++) {
                vcall_t c;
                MPI_Request req = MPI_REQUEST_NULL;
                int k = root * 3 + variant;
                vcall_make(&c, kind, k, root, variant == 1, variant == 2);
                vcall_fill(&c, 0);
                vcall_reference(&c);
                vcall_issue(&c, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                CHECK(req == MPI_REQUEST_NULL,
                      "the request is not MPI_REQUEST_NULL after MPI_Wait");
                vcall_check(&c, "each", k);
                vcall_free(&c);
            }
        }
    }
}

/* NOPS outstanding operations of the three, a blocking gatherv and alltoallv among them,
 * completed in reverse order. */
static void test_many(void) {
    vcall_t c[NOPS], b[2];
    MPI_Request req[NOPS], rev[NOPS];
    for (int k = 0; k < NOPS; k++) {
        vcall_make(&c[k], k % NKINDS, k, k % nprocs, 0, 0);
        vcall_fill(&c[k], k);
        vcall_reference(&c[k]);
    }
    for (int k = 0; k < NOPS; k++) {
        vcall_issue(&c[k], &req[k]);
        if (k == NOPS / 2) { /* blocking calls while operations are outstanding */
            for (int j = 0; j < 2; j++) {
                MPI_Request breq = MPI_REQUEST_NULL;
                vcall_make(&b[j], j == 0 ? GATHERV : ALLTOALLV, 100 + j, nprocs - 1, 0, 0);
                vcall_fill(&b[j], 100 + j);
                vcall_reference(&b[j]);
                vcall_issue(&b[j], &breq); /* nonblocking outputs into out ... */
                MPI_Wait(&breq, MPI_STATUS_IGNORE);
                vcall_check(&b[j], "nonblocking among outstanding", 100 + j);
                vcall_fill(&b[j], 100 + j); /* ... then the blocking call's */
                vcall_reference(&b[j]);
                if (j == 0) {
                    MPI_Gatherv(b[j].send, b[j].scounts[0], MPI_INT, b[j].out, b[j].rcounts,
                                b[j].rdispls, MPI_INT, b[j].root, MPI_COMM_WORLD);
                } else {
                    MPI_Alltoallv(b[j].send, b[j].scounts, b[j].sdispls, MPI_INT, b[j].out,
                                  b[j].rcounts, b[j].rdispls, MPI_INT, MPI_COMM_WORLD);
                }
                vcall_check(&b[j], "blocking among outstanding", 100 + j);
                vcall_free(&b[j]);
            }
        }
    }
    for (int k = 0; k < NOPS; k++) {
        rev[k] = req[NOPS - 1 - k];
    }
    MPI_Waitall(NOPS, rev, MPI_STATUSES_IGNORE);
    for (int k = 0; k < NOPS; k++) {
        CHECK(rev[k] == MPI_REQUEST_NULL, "request %d not freed by MPI_Waitall", k);
        vcall_check(&c[k], "outstanding", k);
        vcall_free(&c[k]);
    }
}

/* Persistent operations of the three, each started 20 times with changing data. */
static void test_persistent(void) {
    for (int kind = 0; kind < NKINDS; kind++) {
        vcall_t c;
        MPI_Request req = MPI_REQUEST_NULL;
        vcall_make(&c, kind, 7, nprocs > 1 ? 1 : 0, 0, 0);
        vcall_fill(&c, 0);
        vcall_init(&c, &req);
        for (int round = 0; round < 20; round++) {
            vcall_fill(&c, round);
            vcall_reference(&c);
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            CHECK(req != MPI_REQUEST_NULL, "the persistent handle was freed by MPI_Wait");
            vcall_check(&c, "persistent", round);
        }
        MPI_Request_free(&req);
        vcall_free(&c);
    }
}

/* A gatherv whose block types differ in size between ranks: even ranks send ints, odd ranks
 * pairs of ints (the root receives ints). */
static void test_mixed_types(void) {
    MPI_Datatype pair;
    int root = 0, mine = 2 * (rank + 1), sendcount, *counts, *displs, *send, *out, *ref;
    size_t n;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    counts = malloc((size_t)nprocs * sizeof(int));
    displs = malloc((size_t)nprocs * sizeof(int));
    for (int r = 0; r < nprocs; r++) {
        counts[r] = 2 * (r + 1);
    }
    n = lay_out(counts, displs);
    send = malloc((size_t)mine * sizeof(int));
    out = malloc(n * sizeof(int));
    ref = malloc(n * sizeof(int));
    for (int i = 0; i < mine; i++) {
        send[i] = rank * 1000 + i;
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = ref[i] = -1;
    }
    sendcount = rank % 2 ? mine / 2 : mine;
    PMPI_Gatherv(send, sendcount, rank % 2 ? pair : MPI_INT, ref, counts, displs, MPI_INT, root,
                 MPI_COMM_WORLD);
    MPI_Igatherv(send, sendcount, rank % 2 ? pair : MPI_INT, out, counts, displs, MPI_INT, root,
                 MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(memcmp(out, ref, n * sizeof(int)) == 0, "gatherv of mixed block types differs");
    MPI_Type_free(&pair);
    free(counts);
    free(displs);
    free(send);
    free(out);
    free(ref);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Barrier(MPI_COMM_WORLD); /* a blocking collective: the communicator's collsel context */
    test_each();
    test_many();
    test_persistent();
    if (nprocs > 1) {
        test_mixed_types();
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d failed\n", failures);
    }
    MPI_Finalize();
    return failures > 0 ? 1 : 0;
}

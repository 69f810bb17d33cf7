/* cs_mpi_nb_ctx: which communicators collsel's nonblocking and persistent collectives serve
 * (docs/nonblocking.md, "Which communicators are served"). A plain MPI program, run with
 * libcollsel_pmpi preloaded by test_nb_ctx.sh, which reads the COLLSEL_VERBOSE=3 log of every
 * rank. It makes no blocking collective through MPI_* (its own checks use PMPI_*, the MPI
 * library's), so whatever collsel serves was made ready by MPI_Init, the communicator
 * constructors or nonblocking calls alone.
 *
 *   cs_mpi_nb_ctx            MPI_Iallreduce, MPI_Ialltoall and a persistent allreduce on
 *                            MPI_COMM_WORLD, on a half made by MPI_Comm_split and on a row of
 *                            a 2D Cartesian communicator made by MPI_Cart_sub; then a persistent
 *                            allgather of a derived datatype (a strided vector) that the
 *                            program frees right after the init and replaces by other types
 *                            before starting it 3 times. Every result is compared with the MPI
 *                            library's blocking collective (PMPI_*). Rank 0 prints
 *                            "calls iallreduce=A ialltoall=B allreduce_init=C allgather_init=D"
 *                            (per rank, the same on every rank) and "passed".
 *   cs_mpi_nb_ctx --loop N   N times: split MPI_COMM_WORLD into halves, 3 MPI_Allreduce and one
 *                            MPI_Iallreduce on the half, free it (a short-lived communicator).
 *   cs_mpi_nb_ctx --warm     two duplicates of MPI_COMM_WORLD: on the first 6 MPI_Iallreduce then
 *                            one MPI_Allreduce, on the second 7 MPI_Iallreduce then one
 *                            MPI_Allreduce (at the default COLLSEL_WARMUP of 8, only the second's
 *                            blocking call makes a context).
 * Exit status 1 on a wrong result. */
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
#define ALLGATHER_INIT MPIX_Allgather_init
#else
#define ALLREDUCE_INIT MPI_Allreduce_init
#define ALLGATHER_INIT MPI_Allgather_init
#endif

#define COUNT 37 /* allreduce elements */
#define BLOCK 3  /* alltoall elements per block */

static int rank, failures;
static int n_iallreduce, n_ialltoall, n_allreduce_init, n_allgather_init;

/* MPI_Iallreduce of COUNT ints on comm against PMPI_Allreduce; `tag` varies the data. */
static void iallreduce(MPI_Comm comm, const char *name, int tag) {
    int in[COUNT], out[COUNT], want[COUNT];
    MPI_Request req;
    for (int i = 0; i < COUNT; i++) {
        in[i] = rank * 100 + i * 7 + tag;
        out[i] = -1;
    }
    MPI_Iallreduce(in, out, COUNT, MPI_INT, MPI_SUM, comm, &req);
    n_iallreduce++;
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "%s: MPI_Wait", name);
    PMPI_Allreduce(in, want, COUNT, MPI_INT, MPI_SUM, comm);
    CHECK(memcmp(out, want, sizeof(out)) == 0, "%s: iallreduce differs from MPI's", name);
}

/* MPI_Ialltoall of BLOCK ints per block on comm against PMPI_Alltoall. */
static void ialltoall(MPI_Comm comm, const char *name) {
    int p;
    MPI_Comm_size(comm, &p);
    int *in = malloc(sizeof(int) * BLOCK * (size_t)p),
        *out = malloc(sizeof(int) * BLOCK * (size_t)p);
    int *want = malloc(sizeof(int) * BLOCK * (size_t)p);
    MPI_Request req;
    for (int i = 0; i < BLOCK * p; i++) {
        in[i] = rank * 1000 + i;
        out[i] = -1;
    }
    MPI_Ialltoall(in, BLOCK, MPI_INT, out, BLOCK, MPI_INT, comm, &req);
    n_ialltoall++;
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "%s: MPI_Wait", name);
    PMPI_Alltoall(in, BLOCK, MPI_INT, want, BLOCK, MPI_INT, comm);
    CHECK(memcmp(out, want, sizeof(int) * BLOCK * (size_t)p) == 0,
          "%s: ialltoall differs from MPI's", name);
    free(in);
    free(out);
    free(want);
}

/* A persistent allreduce on comm started 3 times with new data, against PMPI_Allreduce. */
static void persistent_allreduce(MPI_Comm comm, const char *name) {
    int in[COUNT] = {0}, out[COUNT], want[COUNT];
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK(ALLREDUCE_INIT(in, out, COUNT, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS,
          "%s: allreduce init", name);
    n_allreduce_init++;
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < COUNT; i++) {
            in[i] = rank * (s + 3) + i;
            out[i] = -1;
        }
        CHECK(MPI_Start(&req) == MPI_SUCCESS, "%s: MPI_Start", name);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "%s: MPI_Wait", name);
        PMPI_Allreduce(in, want, COUNT, MPI_INT, MPI_SUM, comm);
        CHECK(memcmp(out, want, sizeof(out)) == 0, "%s: start %d differs from MPI's", name, s);
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS, "%s: MPI_Request_free", name);
}

/* Every form on comm. */
static void all_forms(MPI_Comm comm, const char *name) {
    iallreduce(comm, name, 1);
    ialltoall(comm, name);
    persistent_allreduce(comm, name);
    iallreduce(comm, name, 2);
}

/* A strided vector: 2 ints 3 apart (extent 4 ints). */
static MPI_Datatype vector_type(void) {
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* A persistent allgather of one vector per rank whose datatype the program frees right after
 * the init (MPI allows it): the request keeps working. Other datatypes are made afterwards, so
 * that a freed type's memory is taken by another layout. */
static void derived_freed(void) {
    enum { EXT = 4, OTHERS = 16 };
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Datatype vec = vector_type(), same = vector_type(), others[OTHERS];
    int in[EXT] = {0}, *out = malloc(sizeof(int) * EXT * (size_t)p);
    int *want = malloc(sizeof(int) * EXT * (size_t)p);
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK(ALLGATHER_INIT(in, 1, vec, out, 1, vec, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS,
          "allgather init");
    n_allgather_init++;
    MPI_Type_free(&vec);
    for (int i = 0; i < OTHERS; i++) {
        MPI_Type_vector(3 + i, 2, 5 + i, i % 2 ? MPI_DOUBLE : MPI_CHAR, &others[i]);
        MPI_Type_commit(&others[i]);
    }
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < EXT; i++) {
            in[i] = rank * 10 + i + s * 1000;
        }
        for (int i = 0; i < EXT * p; i++) {
            out[i] = want[i] = -1;
        }
        CHECK(MPI_Start(&req) == MPI_SUCCESS, "allgather start %d", s);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "allgather wait %d", s);
        PMPI_Allgather(in, 1, same, want, 1, same, MPI_COMM_WORLD);
        CHECK(memcmp(out, want, sizeof(int) * EXT * (size_t)p) == 0,
              "derived type freed after init: start %d differs from MPI's", s);
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS, "allgather request free");
    for (int i = 0; i < OTHERS; i++) {
        MPI_Type_free(&others[i]);
    }
    MPI_Type_free(&same);
    free(out);
    free(want);
}

static void nonblocking_only(int p) {
    MPI_Comm half, cart, row;
    int dims[2] = {0, 0}, periods[2] = {0, 0}, remain[2] = {0, 1};
    all_forms(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    all_forms(half, "split half");
    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, remain, &row);
    all_forms(row, "Cart_sub row");
    derived_freed();
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&half);
}

static void loop(int n) {
    for (int it = 0; it < n; it++) {
        MPI_Comm half;
        int x = rank + it, sum = 0, want = 0;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        for (int k = 0; k < 3; k++) {
            MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, half);
        }
        PMPI_Allreduce(&x, &want, 1, MPI_INT, MPI_SUM, half);
        CHECK(sum == want, "loop %d: allreduce %d, want %d", it, sum, want);
        iallreduce(half, "loop", it);
        MPI_Comm_free(&half);
    }
}

/* On a duplicate of MPI_COMM_WORLD: `nb` MPI_Iallreduce, then one MPI_Allreduce. */
static void warm(int nb) {
    MPI_Comm dup;
    int x = rank, sum = 0, want = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < nb; i++) {
        iallreduce(dup, "warm", i);
    }
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup);
    PMPI_Allreduce(&x, &want, 1, MPI_INT, MPI_SUM, dup);
    CHECK(sum == want, "warm: allreduce %d, want %d", sum, want);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv) {
    int p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 2 && strcmp(argv[1], "--loop") == 0) {
        loop(atoi(argv[2]));
    } else if (argc > 1 && strcmp(argv[1], "--warm") == 0) {
        warm(6);
        warm(7);
    } else {
        nonblocking_only(p);
    }
    PMPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("calls iallreduce=%d ialltoall=%d allreduce_init=%d allgather_init=%d\n",
               n_iallreduce, n_ialltoall, n_allreduce_init, n_allgather_init);
        printf("%s\n", failures ? "failed" : "passed");
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}

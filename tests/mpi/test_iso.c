/* cs_mpi_iso: the public isomorphic neighbourhood collectives (collsel_iso.h) against
 * MPI_Neighbor_alltoall and MPI_Neighbor_allgather on the isomorphic communicator itself (its
 * distributed graph has the same neighbours in the same order), under mpirun.
 *
 * Shapes: every ordered factorisation of p into 2 and into 3 dimensions (1 x p, p x 1, 2 x 2 x
 * ...), periodic, no reordering. Neighbourhoods: Moore r = 1 (8 offsets in 2D, 26 in 3D) and an
 * asymmetric list with a repeated offset, the zero offset and offsets longer than the torus.
 * Every schedule (COLLSEL_ISO_SCHEDULE, read at init), alltoall and allgather, MPI_INT (count 3),
 * a derived type with a lower bound and gaps (2 ints at bytes 8 and 16, resized to lb 4, extent
 * 20; count 2), and that type sent and received as 4 MPI_INT. One persistent request started
 * three times with new data in between, then the one-shot form; whole receive allocations (gaps
 * and margins, sentinel-filled) must equal the reference's.
 * Errors: a communicator without topology and a Cartesian one with a non-periodic dimension
 * (MPI_ERR_TOPOLOGY), the last rank with a different list, and with a different s (MPI_ERR_ARG):
 * the same code on every rank, isocomm MPI_COMM_NULL; init on a communicator that carries no
 * neighbourhood (MPI_ERR_COMM). Leaks: mpi_iso_valgrind_np3 runs this under memcheck. */
#include "collsel_iso.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN_BYTES 32
#define SENTINEL     0xA5
#define STARTS       3

static int failures, checks;

static void fail(const char *what, const char *shape, const char *nbh, const char *sched) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (failures++ < 10)
        fprintf(stderr, "rank %d: FAIL %s (%s, %s, %s)\n", rank, what, shape, nbh, sched);
}

static int moore(int d, int *out) {
    int s = 0, n = 1;
    for (int j = 0; j < d; j++)
        n *= 3;
    for (int k = 0; k < n; k++) {
        int v = k, zero = 1, c[3];
        for (int j = d - 1; j >= 0; j--) {
            c[j] = v % 3 - 1;
            v /= 3;
            zero = zero && c[j] == 0;
        }
        if (!zero)
            for (int j = 0; j < d; j++)
                out[s * d + j] = c[j];
        s += !zero;
    }
    return s;
}

/* Asymmetric: a repeated offset, the zero offset, offsets beyond a small torus. */
static const int asym2[] = {1, 0, 0, 0, 2, -1, 1, 0, -1, 3, 0, -2};
static const int asym3[] = {1, 0, 0, 0, 0, 0, 2, -1, 1, 1, 0, 0, 0, 3, -2, -1, 0, 2};

/* Send and receive types of a case (the block sizes in bytes match). */
typedef struct ttype {
    const char *name;
    MPI_Datatype stype;
    int scount;
    MPI_Datatype rtype;
    int rcount;
} ttype_t;

static void fill(char *buf, size_t bytes, int seed) {
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (char)(seed * 31 + (int)i * 7 + 1);
}

/* One collective on one isocomm: reference against the iso request, STARTS times, then the
 * one-shot form. */
static void run_case(MPI_Comm iso, int s, int allgather, const ttype_t *t, const char *shape,
                     const char *nbh, const char *sched) {
    int rank;
    MPI_Aint lb, sext, rext;
    MPI_Comm_rank(iso, &rank);
    MPI_Type_get_extent(t->stype, &lb, &sext);
    MPI_Type_get_extent(t->rtype, &lb, &rext);
    size_t sblocks = allgather ? 1 : (size_t)s;
    size_t sbytes = sblocks * (size_t)sext * t->scount + 2 * MARGIN_BYTES,
           rbytes = (size_t)s * (size_t)rext * t->rcount + 2 * MARGIN_BYTES;
    char *sbuf = malloc(sbytes), *ref = malloc(rbytes), *got = malloc(rbytes);
    collsel_iso_request req = COLLSEL_ISO_REQUEST_NULL;
    int rc;
    if (allgather)
        rc =
            collsel_iso_neighbor_allgather_init(sbuf + MARGIN_BYTES, t->scount, t->stype,
                                                got + MARGIN_BYTES, t->rcount, t->rtype, iso, &req);
    else
        rc = collsel_iso_neighbor_alltoall_init(sbuf + MARGIN_BYTES, t->scount, t->stype,
                                                got + MARGIN_BYTES, t->rcount, t->rtype, iso, &req);
    checks++;
    if (rc != MPI_SUCCESS || req == COLLSEL_ISO_REQUEST_NULL)
        fail("init", shape, nbh, sched);
    for (int it = 0; it <= STARTS; it++) {
        fill(sbuf, sbytes, rank * 1000 + it * 17 + allgather);
        memset(ref, SENTINEL, rbytes);
        memset(got, SENTINEL, rbytes);
        if (allgather)
            MPI_Neighbor_allgather(sbuf + MARGIN_BYTES, t->scount, t->stype, ref + MARGIN_BYTES,
                                   t->rcount, t->rtype, iso);
        else
            MPI_Neighbor_alltoall(sbuf + MARGIN_BYTES, t->scount, t->stype, ref + MARGIN_BYTES,
                                  t->rcount, t->rtype, iso);
        if (it < STARTS)
            rc = collsel_iso_start(&req);
        else if (allgather)
            rc = collsel_iso_neighbor_allgather(sbuf + MARGIN_BYTES, t->scount, t->stype,
                                                got + MARGIN_BYTES, t->rcount, t->rtype, iso);
        else
            rc = collsel_iso_neighbor_alltoall(sbuf + MARGIN_BYTES, t->scount, t->stype,
                                               got + MARGIN_BYTES, t->rcount, t->rtype, iso);
        checks++;
        if (rc != MPI_SUCCESS || memcmp(ref, got, rbytes) != 0) {
            char what[96];
            snprintf(what, sizeof(what), "%s %s %s", allgather ? "allgather" : "alltoall", t->name,
                     it < STARTS ? "start" : "one-shot");
            fail(what, shape, nbh, sched);
        }
    }
    collsel_iso_request_free(&req);
    checks++;
    if (req != COLLSEL_ISO_REQUEST_NULL)
        fail("request_free leaves the handle", shape, nbh, sched);
    free(sbuf);
    free(ref);
    free(got);
}

static void run_shape(int d, const int *dims, const ttype_t *types, int ntypes) {
    static const char *scheds[] = {"straightforward", "torus", "direct"};
    char shape[48];
    int periods[3] = {1, 1, 1}, offsets[26 * 3];
    MPI_Comm cart, iso;
    if (d == 2)
        snprintf(shape, sizeof(shape), "%dx%d", dims[0], dims[1]);
    else
        snprintf(shape, sizeof(shape), "%dx%dx%d", dims[0], dims[1], dims[2]);
    MPI_Cart_create(MPI_COMM_WORLD, d, dims, periods, 0, &cart);
    for (int which = 0; which < 2; which++) {
        const int *list = offsets;
        int s;
        if (which == 0) {
            s = moore(d, offsets);
        } else {
            list = d == 2 ? asym2 : asym3;
            s = (int)(d == 2 ? sizeof(asym2) : sizeof(asym3)) / (int)sizeof(int) / d;
        }
        const char *nbh = which == 0 ? "moore r=1" : "asymmetric";
        int rc = collsel_iso_neighborhood_create(cart, s, list, &iso);
        checks++;
        if (rc != MPI_SUCCESS || iso == MPI_COMM_NULL) {
            fail("neighborhood_create", shape, nbh, "-");
            continue;
        }
        for (int k = 0; k < 3; k++) {
            setenv("COLLSEL_ISO_SCHEDULE", scheds[k], 1);
            for (int t = 0; t < ntypes; t++)
                for (int ag = 0; ag < 2; ag++)
                    run_case(iso, s, ag, &types[t], shape, nbh, scheds[k]);
        }
        unsetenv("COLLSEL_ISO_SCHEDULE");
        MPI_Comm_free(&iso);
    }
    MPI_Comm_free(&cart);
}

/* rc must be `want` on this rank, the same on every rank, and iso MPI_COMM_NULL. */
static void expect_error(int rc, int want, MPI_Comm iso, const char *what) {
    int lo = rc, hi = rc;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    checks++;
    if (rc != want || lo != hi || iso != MPI_COMM_NULL)
        fail(what, "-", "-", "-");
}

static void errors(int p) {
    int rank, dims[2] = {0, 0}, periods[2] = {1, 0}, list[8 * 2];
    MPI_Comm cart, iso = MPI_COMM_WORLD;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int s = moore(2, list);

    int rc = collsel_iso_neighborhood_create(MPI_COMM_WORLD, s, list, &iso);
    expect_error(rc, MPI_ERR_TOPOLOGY, iso, "no topology: MPI_ERR_TOPOLOGY everywhere");

    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    iso = MPI_COMM_WORLD;
    rc = collsel_iso_neighborhood_create(cart, s, list, &iso);
    expect_error(rc, MPI_ERR_TOPOLOGY, iso, "non-periodic: MPI_ERR_TOPOLOGY everywhere");
    MPI_Comm_free(&cart);

    periods[1] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (rank == p - 1)
        list[5] += 1;
    iso = MPI_COMM_WORLD;
    rc = collsel_iso_neighborhood_create(cart, s, list, &iso);
    expect_error(rc, p > 1 ? MPI_ERR_ARG : MPI_SUCCESS, p > 1 ? iso : MPI_COMM_NULL,
                 "mismatched list: MPI_ERR_ARG everywhere");
    if (iso != MPI_COMM_NULL && iso != MPI_COMM_WORLD)
        MPI_Comm_free(&iso);
    if (rank == p - 1)
        list[5] -= 1;
    iso = MPI_COMM_WORLD;
    rc = collsel_iso_neighborhood_create(cart, rank == p - 1 ? s - 1 : s, list, &iso);
    expect_error(rc, p > 1 ? MPI_ERR_ARG : MPI_SUCCESS, p > 1 ? iso : MPI_COMM_NULL,
                 "mismatched s: MPI_ERR_ARG everywhere");
    if (iso != MPI_COMM_NULL && iso != MPI_COMM_WORLD)
        MPI_Comm_free(&iso);

    collsel_iso_request req = COLLSEL_ISO_REQUEST_NULL;
    int buf[8] = {0};
    rc = collsel_iso_neighbor_alltoall_init(buf, 0, MPI_INT, buf, 0, MPI_INT, cart, &req);
    checks++;
    if (rc != MPI_ERR_COMM || req != COLLSEL_ISO_REQUEST_NULL)
        fail("init without neighbourhood: MPI_ERR_COMM", "-", "-", "-");
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv) {
    int p, rank;
    MPI_Datatype pair, lbtype;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int blens[2] = {1, 1};
    MPI_Aint displs[2] = {8, 16};
    MPI_Type_create_hindexed(2, blens, displs, MPI_INT, &pair);
    MPI_Type_create_resized(pair, 4, 20, &lbtype);
    MPI_Type_commit(&lbtype);
    const ttype_t types[] = {{"int", MPI_INT, 3, MPI_INT, 3},
                             {"lb-derived", lbtype, 2, lbtype, 2},
                             {"lb-derived to int", lbtype, 2, MPI_INT, 4}};

    for (int a = 1; a <= p; a++) {
        if (p % a)
            continue;
        int dims2[2] = {a, p / a};
        run_shape(2, dims2, types, 3);
        for (int b = 1; b <= p / a; b++) {
            if ((p / a) % b)
                continue;
            int dims3[3] = {a, b, p / a / b};
            run_shape(3, dims3, types, 3);
        }
    }
    errors(p);

    MPI_Type_free(&lbtype);
    MPI_Type_free(&pair);
    int all = failures;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("cs_mpi_iso np %d: %d checks per rank, %d failures\n", p, checks, all);
    MPI_Finalize();
    return all != 0;
}

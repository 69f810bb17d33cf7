/* cs_mpi_iso: the public isomorphic neighbourhood collectives (collsel_iso.h) against
 * MPI_Neighbor_* on the isomorphic communicator itself (its distributed graph has the same
 * neighbours in the same order), under mpirun.
 *
 * Shapes: every ordered factorisation of p into 2 and into 3 dimensions (1 x p, p x 1, 2 x 2 x
 * ...), periodic, no reordering. Neighbourhoods: Moore r = 1 (8 offsets in 2D, 26 in 3D) and an
 * asymmetric list with a repeated offset, the zero offset and offsets longer than the torus.
 *
 * Schedules: COLLSEL_ISO_SCHEDULE (read at init) is set in turn to straightforward,
 * torus(form=packed), torus(form=zerocopy), direct(form=packed), direct(form=zerocopy), linear
 * and native; after every init collsel_iso_request_algorithm must name exactly that variant of
 * the regular collective (e.g. "neighbor_alltoall/iso_torus(form=zerocopy)" or
 * "neighbor_allgather/linear"), so a silent fallback fails. The w forms run the iso schedules
 * zero-copy only (iso_api.c try_variant): under a packed form they must name the zero-copy one.
 * The irregular forms run under the five iso schedules only (linear and native are variants of
 * the regular collectives: COLLSEL_FORCE, the tuned rules or the native collective decide).
 *
 * Collectives, each compared with its reference on the whole receive allocation (gaps and
 * margins, sentinel-filled):
 * - alltoall and allgather (reference MPI_Neighbor_alltoall, _allgather) for three type pairs:
 *   MPI_INT (count 3), a derived type with a lower bound and gaps (2 ints at bytes 8 and 16,
 *   resized to lb 4, extent 20; count 2), and that type sent and received as 4 MPI_INT;
 * - alltoallv and allgatherv (reference MPI_Neighbor_alltoallv, _allgatherv) for the same type
 *   pairs: block i holds (i % 4 == 1 ? 0 : i % 3 + 1) units (zeros included; allgatherv: 2
 *   units each), blocks laid out in reverse order with a gap of one element after each,
 *   displacements in elements (MPI_Aint);
 * - alltoallw and allgatherw (reference MPI_Neighbor_alltoallw; for allgatherw with every send
 *   block the one send block at displacement 0): the same block sizes in units of 8 bytes, a
 *   type per block (the lb-derived type, or twice as many MPI_INT, alternating, send and receive
 *   side opposite), reverse order with 8-byte gaps, displacements in bytes.
 * Every case: one persistent request started three times with new data in between, then the
 * one-shot form. Per shape and collective one request is started 100 times instead (Moore
 * neighbourhood, first type pair, the schedule rotating with the shape).
 *
 * Duplicates: on MPI_Comm_dup of an isocomm, init runs the iso schedule (the neighbourhood is
 * carried) with the reference result, also after the original is freed.
 *
 * Non-isomorphic calls: alltoallv, allgatherv and alltoallw whose block sizes depend on the
 * rank (valid MPI: each edge's sizes match, but send block i and receive block i differ on some
 * rank) under each iso schedule: it is passed over on every rank (nothing iso runs where any
 * rank differs; the iso schedule where none does, p = 1) and the result is the reference's
 * (with no tuned rules the native collective runs: its irregular forms are tested here).
 *
 * Errors: a communicator without topology and a Cartesian one with a non-periodic dimension
 * (MPI_ERR_TOPOLOGY), the last rank with a different list, and with a different s (MPI_ERR_ARG):
 * the same code on every rank, isocomm MPI_COMM_NULL; init on a communicator that carries no
 * neighbourhood (MPI_ERR_COMM); every init form with a NULL request pointer (MPI_ERR_ARG);
 * collsel_iso_start on NULL and on a null request (MPI_ERR_REQUEST);
 * collsel_iso_request_algorithm on a null request (MPI_ERR_REQUEST), with a NULL buffer or
 * length 0 (MPI_ERR_ARG) and truncating; collsel_iso_request_free on NULL and a null request.
 * Leaks: mpi_iso_valgrind_np3 runs this under memcheck. */
#include "collsel_iso.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN_BYTES 32
#define SENTINEL     0xA5
#define STARTS       3
#define MANY_STARTS  100
#define GAP_BYTES    8
#define NAME_LEN     128

static int failures, checks;
static MPI_Datatype lbtype; /* the lb-derived type: 8 bytes of data, lb 4, extent 20 */

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

/* COLLSEL_ISO_SCHEDULE values: the first NISO are the iso schedules. */
static const char *const scheds[] = {"straightforward",
                                     "torus(form=packed)",
                                     "torus(form=zerocopy)",
                                     "direct(form=packed)",
                                     "direct(form=zerocopy)",
                                     "linear",
                                     "native"};
#define NSCHED 7
#define NISO   5

/* Send and receive types of a case (the block sizes in bytes match). */
typedef struct ttype {
    const char *name;
    MPI_Datatype stype;
    int scount;
    MPI_Datatype rtype;
    int rcount;
} ttype_t;

/* The collectives; even ones are alltoall-like, odd ones allgather-like. */
enum { ALLTOALL, ALLGATHER, ALLTOALLV, ALLGATHERV, ALLTOALLW, ALLGATHERW, NKINDS };
static const char *const kind_names[] = {"alltoall",   "allgather", "alltoallv",
                                         "allgatherv", "alltoallw", "allgatherw"};

/* One call: buffers and the per-block arrays of the irregular forms. */
typedef struct layout {
    int kind, s;
    size_t sbytes, rbytes; /* allocations, margins included */
    char *sbuf, *ref, *got;
    int scount, rcount; /* regular forms; allgatherv/w: the one send block */
    MPI_Datatype stype, rtype;
    int *scounts, *rcounts, *sdispls_int, *rdispls_int;
    MPI_Aint *sdispls, *rdispls;
    MPI_Datatype *stypes, *rtypes;
} layout_t;

static void fill(char *buf, size_t bytes, int seed) {
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (char)(seed * 31 + (int)i * 7 + 1);
}

/* Units (8 bytes for the w forms, the type pair's counts for v) of isomorphic block i. */
static int units(int i) {
    return i % 4 == 1 ? 0 : i % 3 + 1;
}

/* Sets the w type of a block of `u` 8-byte units: the lb-derived type, or 2u MPI_INT. */
static void wtype(int lb, int u, MPI_Datatype *type, int *count, MPI_Aint *span) {
    *type = lb ? lbtype : MPI_INT;
    *count = lb ? u : 2 * u;
    *span = lb ? (MPI_Aint)u * 20 : (MPI_Aint)u * 8;
}

/* Lays out a call of `kind` for s neighbours: send block i of sunits[i] units, receive block i
 * of runits[i] (allgather-like: sunits[0] is the one send block). */
static void layout_init(layout_t *L, int kind, int s, const ttype_t *t, const int *sunits,
                        const int *runits) {
    MPI_Aint lb, sext, rext;
    size_t n = (size_t)(s > 0 ? s : 1);
    memset(L, 0, sizeof(*L));
    L->kind = kind;
    L->s = s;
    L->stype = t->stype;
    L->rtype = t->rtype;
    L->scounts = calloc(n, sizeof(int));
    L->rcounts = calloc(n, sizeof(int));
    L->sdispls_int = calloc(n, sizeof(int));
    L->rdispls_int = calloc(n, sizeof(int));
    L->sdispls = calloc(n, sizeof(MPI_Aint));
    L->rdispls = calloc(n, sizeof(MPI_Aint));
    L->stypes = calloc(n, sizeof(MPI_Datatype));
    L->rtypes = calloc(n, sizeof(MPI_Datatype));
    MPI_Type_get_extent(t->stype, &lb, &sext);
    MPI_Type_get_extent(t->rtype, &lb, &rext);
    MPI_Aint sat = 0, rat = 0; /* elements (v) or bytes (w) used so far */
    int gather = kind % 2;
    if (kind == ALLTOALL || kind == ALLGATHER) {
        L->scount = t->scount;
        L->rcount = t->rcount;
        sat = (MPI_Aint)(gather ? 1 : s) * t->scount * sext;
        rat = (MPI_Aint)s * t->rcount * rext;
    } else if (kind == ALLTOALLV || kind == ALLGATHERV) {
        L->scount = sunits[0] * t->scount;
        if (gather)
            sat = L->scount * sext;
        for (int i = s - 1; i >= 0; i--) { /* reverse order, one element of gap after each */
            if (!gather) {
                L->scounts[i] = sunits[i] * t->scount;
                L->sdispls[i] = sat;
                L->sdispls_int[i] = (int)sat;
                sat += L->scounts[i] + 1;
            }
            L->rcounts[i] = runits[i] * t->rcount;
            L->rdispls[i] = rat;
            L->rdispls_int[i] = (int)rat;
            rat += L->rcounts[i] + 1;
        }
        sat *= sext;
        rat *= rext;
    } else {
        MPI_Aint span;
        if (gather) {
            wtype(1, sunits[0], &L->stype, &L->scount, &span);
            sat = span + GAP_BYTES;
        }
        for (int i = s - 1; i >= 0; i--) { /* reverse order, GAP_BYTES after each */
            if (gather) {
                L->scounts[i] = L->scount;
                L->stypes[i] = L->stype;
                L->sdispls[i] = 0;
            } else {
                wtype(i % 2 == 0, sunits[i], &L->stypes[i], &L->scounts[i], &span);
                L->sdispls[i] = sat;
                sat += span + GAP_BYTES;
            }
            wtype(i % 2 == 1, runits[i], &L->rtypes[i], &L->rcounts[i], &span);
            L->rdispls[i] = rat;
            rat += span + GAP_BYTES;
        }
    }
    L->sbytes = (size_t)sat + 2 * MARGIN_BYTES;
    L->rbytes = (size_t)rat + 2 * MARGIN_BYTES;
    L->sbuf = malloc(L->sbytes);
    L->ref = malloc(L->rbytes);
    L->got = malloc(L->rbytes);
}

static void layout_free(layout_t *L) {
    free(L->scounts);
    free(L->rcounts);
    free(L->sdispls_int);
    free(L->rdispls_int);
    free(L->sdispls);
    free(L->rdispls);
    free(L->stypes);
    free(L->rtypes);
    free(L->sbuf);
    free(L->ref);
    free(L->got);
}

/* MPI's own collective on iso into L->ref. */
static void reference(const layout_t *L, MPI_Comm iso) {
    const char *sb = L->sbuf + MARGIN_BYTES;
    char *rb = L->ref + MARGIN_BYTES;
    switch (L->kind) {
    case ALLTOALL:
        MPI_Neighbor_alltoall(sb, L->scount, L->stype, rb, L->rcount, L->rtype, iso);
        break;
    case ALLGATHER:
        MPI_Neighbor_allgather(sb, L->scount, L->stype, rb, L->rcount, L->rtype, iso);
        break;
    case ALLTOALLV:
        MPI_Neighbor_alltoallv(sb, L->scounts, L->sdispls_int, L->stype, rb, L->rcounts,
                               L->rdispls_int, L->rtype, iso);
        break;
    case ALLGATHERV:
        MPI_Neighbor_allgatherv(sb, L->scount, L->stype, rb, L->rcounts, L->rdispls_int, L->rtype,
                                iso);
        break;
    default: /* both w forms: allgatherw's send blocks are all the one block */
        MPI_Neighbor_alltoallw(sb, L->scounts, L->sdispls, L->stypes, rb, L->rcounts, L->rdispls,
                               L->rtypes, iso);
        break;
    }
}

/* The init of L's collective into L->got, or (req NULL) its one-shot form. */
static int iso_call(const layout_t *L, MPI_Comm iso, collsel_iso_request *req) {
    const char *sb = L->sbuf + MARGIN_BYTES;
    char *rb = L->got + MARGIN_BYTES;
    switch (L->kind) {
    case ALLTOALL:
        return req ? collsel_iso_neighbor_alltoall_init(sb, L->scount, L->stype, rb, L->rcount,
                                                        L->rtype, iso, req)
                   : collsel_iso_neighbor_alltoall(sb, L->scount, L->stype, rb, L->rcount, L->rtype,
                                                   iso);
    case ALLGATHER:
        return req ? collsel_iso_neighbor_allgather_init(sb, L->scount, L->stype, rb, L->rcount,
                                                         L->rtype, iso, req)
                   : collsel_iso_neighbor_allgather(sb, L->scount, L->stype, rb, L->rcount,
                                                    L->rtype, iso);
    case ALLTOALLV:
        return req ? collsel_iso_neighbor_alltoallv_init(sb, L->scounts, L->sdispls, L->stype, rb,
                                                         L->rcounts, L->rdispls, L->rtype, iso, req)
                   : collsel_iso_neighbor_alltoallv(sb, L->scounts, L->sdispls, L->stype, rb,
                                                    L->rcounts, L->rdispls, L->rtype, iso);
    case ALLGATHERV:
        return req ? collsel_iso_neighbor_allgatherv_init(sb, L->scount, L->stype, rb, L->rcounts,
                                                          L->rdispls, L->rtype, iso, req)
                   : collsel_iso_neighbor_allgatherv(sb, L->scount, L->stype, rb, L->rcounts,
                                                     L->rdispls, L->rtype, iso);
    case ALLTOALLW:
        return req ? collsel_iso_neighbor_alltoallw_init(sb, L->scounts, L->sdispls, L->stypes, rb,
                                                         L->rcounts, L->rdispls, L->rtypes, iso,
                                                         req)
                   : collsel_iso_neighbor_alltoallw(sb, L->scounts, L->sdispls, L->stypes, rb,
                                                    L->rcounts, L->rdispls, L->rtypes, iso);
    default:
        return req ? collsel_iso_neighbor_allgatherw_init(sb, L->scount, L->stype, rb, L->rcounts,
                                                          L->rdispls, L->rtypes, iso, req)
                   : collsel_iso_neighbor_allgatherw(sb, L->scount, L->stype, rb, L->rcounts,
                                                     L->rdispls, L->rtypes, iso);
    }
}

/* What must run `kind` under scheds[k]: 1 and the name in buf, or 0 when the rules decide
 * (the irregular forms under linear and native). */
static int expected_name(int kind, int k, char *buf, size_t len) {
    const char *sel = kind % 2 ? "allgather" : "alltoall";
    if (k < NISO) {
        const char *form = strstr(scheds[k], "packed");
        if (form != NULL && (kind == ALLTOALLW || kind == ALLGATHERW)) /* zero-copy only */
            snprintf(buf, len, "neighbor_%s/iso_%.*szerocopy)", sel, (int)(form - scheds[k]),
                     scheds[k]);
        else
            snprintf(buf, len, "neighbor_%s/iso_%s", sel, scheds[k]);
        return 1;
    }
    if (kind > ALLGATHER)
        return 0;
    snprintf(buf, len, "neighbor_%s/%s", kind_names[kind], scheds[k]);
    return 1;
}

/* One collective on one isocomm: init (and the name of what runs: `want`, unless NULL; or
 * with `not_iso` anything but an iso schedule), `starts` starts against the reference with new
 * data each time, then the one-shot form. */
static void run_layout(layout_t *L, MPI_Comm iso, int starts, const char *want, int not_iso,
                       const char *what, const char *shape, const char *nbh, const char *sched) {
    int rank, rc;
    char name[NAME_LEN], msg[NAME_LEN * 2 + 64];
    collsel_iso_request req = COLLSEL_ISO_REQUEST_NULL;
    MPI_Comm_rank(iso, &rank);
    rc = iso_call(L, iso, &req);
    checks++;
    if (rc != MPI_SUCCESS || req == COLLSEL_ISO_REQUEST_NULL) {
        snprintf(msg, sizeof(msg), "%s init: rc %d", what, rc);
        fail(msg, shape, nbh, sched);
        return;
    }
    checks++;
    rc = collsel_iso_request_algorithm(req, name, (int)sizeof(name));
    if (rc != MPI_SUCCESS || (want != NULL && strcmp(name, want) != 0) ||
        (not_iso && strstr(name, "/iso_") != NULL)) {
        snprintf(msg, sizeof(msg), "%s runs '%s', expected '%s'", what, name,
                 not_iso        ? "no iso schedule"
                 : want != NULL ? want
                                : "-");
        fail(msg, shape, nbh, sched);
    }
    for (int it = 0; it <= starts; it++) {
        fill(L->sbuf, L->sbytes, rank * 1000 + it * 17 + L->kind);
        memset(L->ref, SENTINEL, L->rbytes);
        memset(L->got, SENTINEL, L->rbytes);
        reference(L, iso);
        rc = it < starts ? collsel_iso_start(&req) : iso_call(L, iso, NULL);
        checks++;
        if (rc != MPI_SUCCESS || memcmp(L->ref, L->got, L->rbytes) != 0) {
            snprintf(msg, sizeof(msg), "%s %s %d: rc %d", what, it < starts ? "start" : "one-shot",
                     it, rc);
            fail(msg, shape, nbh, sched);
        }
    }
    collsel_iso_request_free(&req);
    checks++;
    if (req != COLLSEL_ISO_REQUEST_NULL)
        fail("request_free leaves the handle", shape, nbh, sched);
}

/* An isomorphic case of `kind` (block sizes: units(), allgather-like 2 each) under scheds[k]. */
static void run_case(MPI_Comm iso, int s, int kind, const ttype_t *t, int k, int starts,
                     const char *shape, const char *nbh) {
    int *u = malloc(sizeof(int) * (size_t)(s + 1));
    char want[NAME_LEN], what[96];
    layout_t L;
    for (int i = 0; i <= s; i++)
        u[i] = kind % 2 ? 2 : units(i);
    layout_init(&L, kind, s, t, u, u);
    int known = expected_name(kind, k, want, sizeof(want));
    snprintf(what, sizeof(what), "%s %s", kind_names[kind],
             kind == ALLTOALLW || kind == ALLGATHERW ? "w types" : t->name);
    run_layout(&L, iso, starts, known ? want : NULL, 0, what, shape, nbh, scheds[k]);
    layout_free(&L);
    free(u);
}

/* Non-isomorphic but valid calls: rank-dependent block sizes, matching on every edge. The iso
 * schedule is passed over unless every rank's blocks happen to agree (p = 1). */
static void run_mismatch(MPI_Comm iso, int s, const ttype_t *t, const char *shape,
                         const char *nbh) {
    static const int kinds[] = {ALLTOALLV, ALLGATHERV, ALLTOALLW};
    int rank, *src = malloc(sizeof(int) * (size_t)(s + 1)),
              *dst = malloc(sizeof(int) * (size_t)(s + 1));
    int *su = malloc(sizeof(int) * (size_t)(s + 1)), *ru = malloc(sizeof(int) * (size_t)(s + 1));
    int *volatile unweighted = MPI_UNWEIGHTED; /* (see iso_api.c) */
    MPI_Comm_rank(iso, &rank);
    MPI_Dist_graph_neighbors(iso, s, src, unweighted, s, dst, unweighted);
    for (int q = 0; q < 3 * NISO; q++) {
        int kind = kinds[q % 3], k = q / 3, differ = 0;
        char want[NAME_LEN], what[96];
        layout_t L;
        for (int i = 0; i < s; i++) {
            su[i] = (kind % 2 ? 1 : units(i)) + rank % 2;
            ru[i] = (kind % 2 ? 1 : units(i)) + src[i] % 2;
            differ = differ || su[kind % 2 ? 0 : i] != ru[i];
        }
        if (s == 0)
            su[0] = 1 + rank % 2;
        MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, iso);
        expected_name(kind, k, want, sizeof(want));
        snprintf(what, sizeof(what), "%s, non-isomorphic sizes", kind_names[kind]);
        setenv("COLLSEL_ISO_SCHEDULE", scheds[k], 1);
        layout_init(&L, kind, s, t, su, ru);
        run_layout(&L, iso, STARTS, differ ? NULL : want, differ, what, shape, nbh, scheds[k]);
        layout_free(&L);
    }
    unsetenv("COLLSEL_ISO_SCHEDULE");
    free(src);
    free(dst);
    free(su);
    free(ru);
}

/* MPI_Comm_dup of iso carries the neighbourhood, also once iso is freed (which this does). */
static void run_dup(MPI_Comm *iso, int s, const ttype_t *t, const char *shape, const char *nbh) {
    MPI_Comm dup;
    MPI_Comm_dup(*iso, &dup);
    setenv("COLLSEL_ISO_SCHEDULE", scheds[2], 1);
    run_case(dup, s, ALLTOALL, t, 2, STARTS, shape, nbh);
    MPI_Comm_free(iso);
    run_case(dup, s, ALLTOALL, t, 2, STARTS, shape, nbh);
    run_case(dup, s, ALLGATHERV, t, 2, STARTS, shape, nbh);
    run_case(dup, s, ALLTOALLW, t, 2, STARTS, shape, nbh);
    unsetenv("COLLSEL_ISO_SCHEDULE");
    MPI_Comm_free(&dup);
}

static void run_shape(int d, const int *dims, const ttype_t *types, int ntypes, int shape_no) {
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
        for (int k = 0; k < NSCHED; k++) {
            setenv("COLLSEL_ISO_SCHEDULE", scheds[k], 1);
            for (int kind = 0; kind < NKINDS; kind++) {
                if (k >= NISO && kind > ALLGATHER)
                    continue;
                int nt = kind == ALLTOALLW || kind == ALLGATHERW ? 1 : ntypes;
                for (int t = 0; t < nt; t++) {
                    int many = which == 0 && t == 0 && k == shape_no % NISO;
                    run_case(iso, s, kind, &types[t], k, many ? MANY_STARTS : STARTS, shape, nbh);
                }
            }
        }
        unsetenv("COLLSEL_ISO_SCHEDULE");
        run_mismatch(iso, s, &types[which], shape, nbh);
        run_dup(&iso, s, &types[which + 1], shape, nbh);
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

/* The request arguments: NULL request pointers at every init, null requests elsewhere. */
static void request_errors(MPI_Comm iso) {
    int buf[64] = {0}, counts[8] = {0};
    MPI_Aint displs[8] = {0};
    MPI_Datatype types[8];
    char name[NAME_LEN];
    collsel_iso_request req = COLLSEL_ISO_REQUEST_NULL;
    for (int i = 0; i < 8; i++)
        types[i] = MPI_INT;
    int rc[6] = {collsel_iso_neighbor_alltoall_init(buf, 0, MPI_INT, buf, 0, MPI_INT, iso, NULL),
                 collsel_iso_neighbor_allgather_init(buf, 0, MPI_INT, buf, 0, MPI_INT, iso, NULL),
                 collsel_iso_neighbor_alltoallv_init(buf, counts, displs, MPI_INT, buf, counts,
                                                     displs, MPI_INT, iso, NULL),
                 collsel_iso_neighbor_allgatherv_init(buf, 0, MPI_INT, buf, counts, displs, MPI_INT,
                                                      iso, NULL),
                 collsel_iso_neighbor_alltoallw_init(buf, counts, displs, types, buf, counts,
                                                     displs, types, iso, NULL),
                 collsel_iso_neighbor_allgatherw_init(buf, 0, MPI_INT, buf, counts, displs, types,
                                                      iso, NULL)};
    for (int k = 0; k < 6; k++) {
        checks++;
        if (rc[k] != MPI_ERR_ARG)
            fail("init with a NULL request: MPI_ERR_ARG", kind_names[k], "-", "-");
    }
    checks += 4;
    if (collsel_iso_start(NULL) != MPI_ERR_REQUEST)
        fail("start(NULL): MPI_ERR_REQUEST", "-", "-", "-");
    if (collsel_iso_start(&req) != MPI_ERR_REQUEST)
        fail("start on a null request: MPI_ERR_REQUEST", "-", "-", "-");
    if (collsel_iso_request_algorithm(req, name, (int)sizeof(name)) != MPI_ERR_REQUEST)
        fail("request_algorithm on a null request: MPI_ERR_REQUEST", "-", "-", "-");
    if (collsel_iso_request_free(NULL) != MPI_SUCCESS ||
        collsel_iso_request_free(&req) != MPI_SUCCESS || req != COLLSEL_ISO_REQUEST_NULL)
        fail("request_free on NULL and a null request: MPI_SUCCESS", "-", "-", "-");

    /* a real request: NULL buffer and length 0 are MPI_ERR_ARG, a short buffer truncates */
    setenv("COLLSEL_ISO_SCHEDULE", "native", 1);
    int init = collsel_iso_neighbor_alltoall_init(buf, 0, MPI_INT, buf, 0, MPI_INT, iso, &req);
    unsetenv("COLLSEL_ISO_SCHEDULE");
    checks += 3;
    if (init != MPI_SUCCESS)
        fail("native init for the name checks", "-", "-", "-");
    if (init == MPI_SUCCESS && (collsel_iso_request_algorithm(req, NULL, 8) != MPI_ERR_ARG ||
                                collsel_iso_request_algorithm(req, name, 0) != MPI_ERR_ARG))
        fail("request_algorithm with NULL buf or len 0: MPI_ERR_ARG", "-", "-", "-");
    if (init == MPI_SUCCESS &&
        (collsel_iso_request_algorithm(req, name, 5) != MPI_SUCCESS || strcmp(name, "neig") != 0))
        fail("request_algorithm truncates to len - 1", "-", "-", "-");
    collsel_iso_request_free(&req);
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

    rc = collsel_iso_neighborhood_create(cart, s, list, &iso);
    checks++;
    if (rc != MPI_SUCCESS) {
        fail("neighborhood_create for the request errors", "-", "-", "-");
    } else {
        request_errors(iso);
        MPI_Comm_free(&iso);
    }
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv) {
    int p, rank, shape_no = 0;
    MPI_Datatype pair;
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
        run_shape(2, dims2, types, 3, shape_no++);
        for (int b = 1; b <= p / a; b++) {
            if ((p / a) % b)
                continue;
            int dims3[3] = {a, b, p / a / b};
            run_shape(3, dims3, types, 3, shape_no++);
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

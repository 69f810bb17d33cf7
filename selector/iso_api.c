/* The public isomorphic neighbourhood collectives (collsel_iso.h): the set-up on a periodic
 * Cartesian communicator, and persistent requests that run the registered iso_* schedules
 * (algorithms/neighbor_allgather/neighbor_allgather_iso_torus.c) through the one executor.
 *
 * collsel_iso_neighborhood_create checks its arguments on every process, compares s and the
 * offsets with rank 0's (broadcast in chunks of a fixed stack buffer, so a failing allocation
 * never leaves a process out of the broadcast), agrees on the verdict with one MPI_Allreduce
 * (MPI_MAX of the local error classes: every process returns the same one) and only then
 * creates the distributed graph communicator, to which the neighbourhood is attached
 * (core/isocomm.h: shared by its duplicates, freed with the last).
 *
 * An init call describes the collective as a neighbourhood call on isocomm (core/call.h), so
 * MPI_Neighbor_* on isocomm is its reference, and picks what runs it: rank 0's
 * COLLSEL_ISO_SCHEDULE if set, else the selector's choice for the regular collective at the
 * call's block size (COLLSEL_FORCE, then the tuned rules: cs_sel_choose), its ranked
 * candidates, and last the MPI library's collective. A candidate with a schedule builder is
 * built into the request's own schedule; the processes agree (one MPI_Allreduce per candidate
 * tried) so that all run the same one. The irregular forms use the regular collective's rules
 * at their mean block size, as the paper uses the regular schedules for them; the w forms run
 * an iso schedule zero-copy whatever form was chosen (a packed message has one type), and
 * allgatherw, an alltoallw call whose send blocks are one block, gets the allgather schedules. A
 * start runs the schedule on the bound buffers (cs_algo_exec: nothing allocated) or the native
 * collective. */
#include "collsel_iso.h"

#include "builders.h"
#include "core/algo.h"
#include "core/comm.h"
#include "core/isocomm.h"
#include "registry.h"
#include "select.h"
#include "topo/iso.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_INTS   256
#define VARIANT_TEXT 128

struct collsel_iso_request_s {
    cs_call_t call;
    cs_comm_t *ctx;
    cs_variant_t variant; /* what runs: a schedule builder (sched) or the native collective */
    cs_sched_t sched;
    /* The irregular forms' arrays, copied: counts and element displacements (v), byte
     * displacements and types (w), send side then receive side. */
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
};

/* The MPI error class of a collsel status. */
static int mpi_error(int st) {
    switch (st) {
    case CS_OK:
        return MPI_SUCCESS;
    case CS_ERR_NOMEM:
        return MPI_ERR_NO_MEM;
    case CS_ERR_ARG:
        return MPI_ERR_ARG;
    default:
        return MPI_ERR_OTHER;
    }
}

/* Compares s and list (s * d ints) with rank 0's; MPI_ERR_ARG when they differ, MPI_SUCCESS
 * when equal. `local_ok` says whether this process's own arguments are usable; rank 0's
 * verdict on its own decides whether the list is broadcast. Collective. */
static int compare_with_root(MPI_Comm comm, int rank, int s, const int *list, int d, int local_ok,
                             int *verdict) {
    int hdr[2] = {s, local_ok};
    int rc = PMPI_Bcast(hdr, 2, MPI_INT, 0, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    *verdict = MPI_SUCCESS;
    if (!hdr[1]) /* rank 0's own arguments are bad: it reports them, nothing to compare */
        return MPI_SUCCESS;
    if (hdr[0] != s || !local_ok)
        *verdict = MPI_ERR_ARG;
    long total = (long)hdr[0] * d;
    int chunk[CHUNK_INTS];
    for (long at = 0; at < total; at += CHUNK_INTS) {
        int n = total - at < CHUNK_INTS ? (int)(total - at) : CHUNK_INTS;
        if (rank == 0)
            memcpy(chunk, list + at, (size_t)n * sizeof(int));
        rc = PMPI_Bcast(chunk, n, MPI_INT, 0, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        if (*verdict == MPI_SUCCESS && memcmp(chunk, list + at, (size_t)n * sizeof(int)) != 0)
            *verdict = MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int collsel_iso_neighborhood_create(MPI_Comm cartcomm, int s, const int relative_coords[],
                                    MPI_Comm *isocomm) {
    int rc = MPI_SUCCESS, err = MPI_SUCCESS, topo = MPI_UNDEFINED, d = 0, rank = 0;
    int *dims = NULL, *periods = NULL, *coords = NULL, *targets = NULL, *sources = NULL;
    cs_iso_nbh_t nbh = {0};
    MPI_Comm graph = MPI_COMM_NULL;

    if (isocomm == NULL)
        return MPI_ERR_ARG;
    *isocomm = MPI_COMM_NULL;
    rc = PMPI_Topo_test(cartcomm, &topo);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Comm_rank(cartcomm, &rank)) != MPI_SUCCESS)
        return rc;
    if (topo == MPI_CART) {
        if ((rc = PMPI_Cartdim_get(cartcomm, &d)) != MPI_SUCCESS)
            goto out;
        dims = malloc((size_t)(d > 0 ? d : 1) * sizeof(int));
        periods = malloc((size_t)(d > 0 ? d : 1) * sizeof(int));
        coords = malloc((size_t)(d > 0 ? d : 1) * sizeof(int));
        if (dims == NULL || periods == NULL || coords == NULL) {
            err = MPI_ERR_NO_MEM;
        } else {
            if ((rc = PMPI_Cart_get(cartcomm, d, dims, periods, coords)) != MPI_SUCCESS)
                goto out;
            if (d < 1)
                err = MPI_ERR_TOPOLOGY;
            for (int j = 0; j < d; j++)
                if (!periods[j])
                    err = MPI_ERR_TOPOLOGY;
        }
    } else {
        err = MPI_ERR_TOPOLOGY;
    }
    int args_ok = s >= 0 && (s == 0 || relative_coords != NULL);
    for (long k = 0; args_ok && topo == MPI_CART && k < (long)s * d; k++)
        if (relative_coords[k] > CS_ISO_MAX_OFFSET || relative_coords[k] < -CS_ISO_MAX_OFFSET)
            args_ok = 0;
    if (err == MPI_SUCCESS && !args_ok)
        err = MPI_ERR_ARG;

    if (topo == MPI_CART) { /* the topology is the same on every process */
        int verdict = MPI_SUCCESS;
        rc = compare_with_root(cartcomm, rank, s, relative_coords, d, args_ok, &verdict);
        if (rc != MPI_SUCCESS)
            goto out;
        if (err == MPI_SUCCESS)
            err = verdict;
    }
    if (err == MPI_SUCCESS) {
        targets = malloc((size_t)(s > 0 ? s : 1) * sizeof(int));
        sources = malloc((size_t)(s > 0 ? s : 1) * sizeof(int));
        if (targets == NULL || sources == NULL) {
            err = MPI_ERR_NO_MEM;
        } else {
            err = mpi_error(cs_iso_nbh_init(&nbh, d, dims, s, relative_coords));
        }
        for (int i = 0; err == MPI_SUCCESS && i < s; i++) {
            targets[i] = cs_iso_shift(&nbh, rank, relative_coords + (long)i * d, 1);
            sources[i] = cs_iso_shift(&nbh, rank, relative_coords + (long)i * d, -1);
        }
    }
    /* The verdict, the same on every process. */
    rc = PMPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MAX, cartcomm);
    if (rc != MPI_SUCCESS)
        goto out;
    if (err != MPI_SUCCESS) {
        rc = err;
        goto out;
    }
    /* Through a volatile: GCC reads Open MPI's MPI_UNWEIGHTED, a small constant address, as an
     * array of size 0 (-Wstringop-overread). */
    int *volatile unweighted = MPI_UNWEIGHTED;
    rc = PMPI_Dist_graph_create_adjacent(cartcomm, s, sources, unweighted, s, targets, unweighted,
                                         MPI_INFO_NULL, 0, &graph);
    if (rc != MPI_SUCCESS)
        goto out;
    /* Only a failing allocation can fail here, and it would leave the processes disagreeing:
     * agree once more. */
    err = mpi_error(cs_isocomm_attach(graph, &nbh));
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MAX, cartcomm)) != MPI_SUCCESS)
        goto out;
    if (err != MPI_SUCCESS) {
        rc = err;
        goto out;
    }
    *isocomm = graph;
    graph = MPI_COMM_NULL;
out:
    cs_iso_nbh_free(&nbh);
    if (graph != MPI_COMM_NULL)
        PMPI_Comm_free(&graph);
    free(dims);
    free(periods);
    free(coords);
    free(targets);
    free(sources);
    return rc;
}

/* Rank 0's COLLSEL_ISO_SCHEDULE as a variant of `coll` (an algorithm name without the
 * collective, iso_ optional for the three iso schedules: "torus(form=zerocopy)"), broadcast:
 * *out->algo NULL when unset or not a variant of coll. Collective over comm. */
static int iso_schedule_env(MPI_Comm comm, cs_coll_t coll, cs_variant_t *out) {
    char text[VARIANT_TEXT] = "", name[VARIANT_TEXT + 64], err[256];
    int rank, rc = PMPI_Comm_rank(comm, &rank);
    memset(out, 0, sizeof(*out));
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank == 0) {
        const char *v = getenv("COLLSEL_ISO_SCHEDULE");
        if (v != NULL && strlen(v) < sizeof(text))
            snprintf(text, sizeof(text), "%s", v);
    }
    if ((rc = PMPI_Bcast(text, (int)sizeof(text), MPI_CHAR, 0, comm)) != MPI_SUCCESS)
        return rc;
    if (text[0] == '\0')
        return MPI_SUCCESS;
    int shorthand = strncmp(text, "torus", 5) == 0 || strncmp(text, "direct", 6) == 0 ||
                    strncmp(text, "straightforward", 15) == 0;
    snprintf(name, sizeof(name), "%s/%s%s", cs_coll_name(coll), shorthand ? "iso_" : "", text);
    if (cs_variant_parse(name, out, err, sizeof(err)) != CS_OK || out->algo->coll != coll)
        memset(out, 0, sizeof(*out));
    return MPI_SUCCESS;
}

/* Builds candidate v into r (its schedule, or nothing for a native one) when it can run r's
 * call; every process agrees. *ok: 1 when it runs everywhere. */
static int try_variant(collsel_iso_request r, const cs_variant_t *cand, int *ok) {
    const cs_state_t *state = NULL;
    int st = CS_OK, fine;
    cs_variant_t w = *cand;
    const cs_variant_t *v = &w;
    *ok = 0;
    if (v->algo == NULL)
        return MPI_SUCCESS;
    /* a w call runs the iso schedules zero-copy only (one message of several types) */
    const char *form = cs_params_get(&w.params, "form");
    if (r->call.coll == CS_COLL_NEIGHBOR_ALLTOALLW && form != NULL && strcmp(form, "packed") == 0 &&
        cs_params_set(&w.params, "form", "zerocopy") != CS_OK)
        return MPI_ERR_OTHER;
    if (cs_algo_is_native(v->algo)) {
        fine = v->algo->coll == r->call.coll;
    } else {
        /* the iso schedules serve the irregular forms too; any other algorithm only its own
         * collective */
        int iso = v->algo->setup == cs_neighbor_iso_setup;
        fine = v->algo->build != NULL && (iso || v->algo->coll == r->call.coll);
        if (fine && v->algo->setup != NULL)
            st = cs_comm_state(r->ctx, v->algo, &v->params, &state); /* collective */
        if (fine && st == CS_OK)
            st = cs_algo_build_state(v->algo, &v->params, &r->call, state, &r->sched);
        if (fine && st == CS_OK)
            st = cs_comm_reserve(r->ctx, (size_t)r->sched.scratch_bytes, r->sched.max_comm);
        if (fine && st == CS_OK) /* zero-copy: the struct datatypes now, as in the paper */
            st = cs_algo_prebuild(r->ctx, &r->sched, r->call.sendbuf, r->call.recvbuf);
        fine = fine && st == CS_OK;
    }
    int rc = PMPI_Allreduce(MPI_IN_PLACE, &fine, 1, MPI_INT, MPI_MIN, r->ctx->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (st == CS_ERR_NOMEM)
        return MPI_ERR_NO_MEM;
    *ok = fine;
    if (fine)
        r->variant = *v;
    return MPI_SUCCESS;
}

/* Finishes an init whose call r->call the constructor `st` made: picks and builds what runs it
 * (see the top of the file). `sel` is the regular collective whose rules choose. */
static int init_finish(collsel_iso_request r, int st, cs_coll_t sel, MPI_Comm isocomm,
                       collsel_iso_request *request) {
    int rc = mpi_error(st), ok = 0;
    cs_variant_t env, native = {cs_registry_native(r->call.coll), {0}};
    cs_sel_choice_t choice;
    /* the context (collective on first use, as in the call's constructor), then every process
     * learns whether any failed */
    if (cs_comm_get(isocomm, &r->ctx) != CS_OK) {
        collsel_iso_request_free(&r);
        return MPI_ERR_OTHER; /* a failed MPI_Comm_dup: nothing can be agreed */
    }
    if (PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, r->ctx->comm) != MPI_SUCCESS)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS)
        rc = iso_schedule_env(r->ctx->comm, sel, &env);
    if (rc == MPI_SUCCESS)
        rc = try_variant(r, &env, &ok);
    if (rc == MPI_SUCCESS && !ok && cs_sel_choose(sel, r->call.bytes, isocomm, &choice) == CS_OK) {
        rc = try_variant(r, &choice.variant, &ok);
        for (int i = 0; rc == MPI_SUCCESS && !ok && choice.iv != NULL && i < choice.iv->ncand; i++)
            rc = try_variant(r, &choice.iv->cand[i], &ok);
    }
    if (rc == MPI_SUCCESS && !ok)
        rc = try_variant(r, &native, &ok);
    if (rc == MPI_SUCCESS && !ok)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS) {
        *request = r;
        r = NULL;
    }
    collsel_iso_request_free(&r);
    return rc;
}

/* A new request for the call on isocomm: MPI_ERR_COMM (locally, before anything collective)
 * when isocomm carries no isomorphic neighbourhood. `nints`, `naints`, `ntypes`: room for the
 * irregular forms' arrays. */
static int request_new(MPI_Comm isocomm, collsel_iso_request *request, size_t nints, size_t naints,
                       size_t ntypes, collsel_iso_request *out) {
    int topo = MPI_UNDEFINED;
    *out = NULL;
    if (request == NULL)
        return MPI_ERR_ARG;
    *request = COLLSEL_ISO_REQUEST_NULL;
    if (isocomm == MPI_COMM_NULL || PMPI_Topo_test(isocomm, &topo) != MPI_SUCCESS ||
        topo != MPI_DIST_GRAPH || !cs_isocomm_attached(isocomm))
        return MPI_ERR_COMM;
    collsel_iso_request r = calloc(1, sizeof(*r));
    if (r != NULL) {
        r->ints = malloc((nints + 1) * sizeof(int));
        r->aints = malloc((naints + 1) * sizeof(MPI_Aint));
        r->types = malloc((ntypes + 1) * sizeof(MPI_Datatype));
    }
    if (r == NULL || r->ints == NULL || r->aints == NULL || r->types == NULL) {
        collsel_iso_request_free(&r);
        return MPI_ERR_NO_MEM;
    }
    *out = r;
    return MPI_SUCCESS;
}

/* The number of neighbours of isocomm (s). */
static int degree(MPI_Comm isocomm) {
    int in = 0, out = 0, w = 0;
    return PMPI_Dist_graph_neighbors_count(isocomm, &in, &out, &w) == MPI_SUCCESS ? out : 0;
}

int collsel_iso_neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm isocomm, collsel_iso_request *request) {
    collsel_iso_request r;
    int rc = request_new(isocomm, request, 0, 0, 0, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    int st = cs_call_neighbor_alltoall(&r->call, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                       recvtype, isocomm);
    return init_finish(r, st, CS_COLL_NEIGHBOR_ALLTOALL, isocomm, request);
}

int collsel_iso_neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm isocomm, collsel_iso_request *request) {
    collsel_iso_request r;
    int rc = request_new(isocomm, request, 0, 0, 0, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    int st = cs_call_neighbor_allgather(&r->call, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, isocomm);
    return init_finish(r, st, CS_COLL_NEIGHBOR_ALLGATHER, isocomm, request);
}

/* Copies n element displacements into ints (CS_ERR_ARG when one does not fit an int); NULL
 * arrays with n > 0 are CS_ERR_ARG. */
static int copy_displs(int *to, const MPI_Aint *from, int n) {
    if (n > 0 && from == NULL)
        return CS_ERR_ARG;
    for (int i = 0; i < n; i++) {
        if (from[i] < INT_MIN || from[i] > INT_MAX)
            return CS_ERR_ARG;
        to[i] = (int)from[i];
    }
    return CS_OK;
}

static int copy_counts(int *to, const int *from, int n) {
    if (n > 0 && from == NULL)
        return CS_ERR_ARG;
    if (n > 0)
        memcpy(to, from, (size_t)n * sizeof(int));
    return CS_OK;
}

int collsel_iso_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                        const MPI_Aint senddispls[], MPI_Datatype sendtype,
                                        void *recvbuf, const int recvcounts[],
                                        const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                        MPI_Comm isocomm, collsel_iso_request *request) {
    collsel_iso_request r;
    int s = degree(isocomm);
    int rc = request_new(isocomm, request, 4 * (size_t)s, 0, 0, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    int *sc = r->ints, *sd = sc + s, *rcn = sd + s, *rd = rcn + s;
    int st = copy_counts(sc, sendcounts, s);
    if (st == CS_OK)
        st = copy_displs(sd, senddispls, s);
    if (st == CS_OK)
        st = copy_counts(rcn, recvcounts, s);
    if (st == CS_OK)
        st = copy_displs(rd, recvdispls, s);
    if (st == CS_OK)
        st = cs_call_neighbor_alltoallv(&r->call, sendbuf, sc, sd, sendtype, recvbuf, rcn, rd,
                                        recvtype, isocomm);
    return init_finish(r, st, CS_COLL_NEIGHBOR_ALLTOALL, isocomm, request);
}

int collsel_iso_neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, const int recvcounts[],
                                         const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                         MPI_Comm isocomm, collsel_iso_request *request) {
    collsel_iso_request r;
    int s = degree(isocomm);
    int rc = request_new(isocomm, request, 2 * (size_t)s, 0, 0, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    int *rcn = r->ints, *rd = rcn + s;
    int st = copy_counts(rcn, recvcounts, s);
    if (st == CS_OK)
        st = copy_displs(rd, recvdispls, s);
    if (st == CS_OK)
        st = cs_call_neighbor_allgatherv(&r->call, sendbuf, sendcount, sendtype, recvbuf, rcn, rd,
                                         recvtype, isocomm);
    return init_finish(r, st, CS_COLL_NEIGHBOR_ALLGATHER, isocomm, request);
}

/* The w forms as a neighbour alltoallw call: arrays copied; allgatherw's one send block is
 * every send block. */
static int init_w(int gather, const void *sendbuf, const int sendcounts[],
                  const MPI_Aint senddispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                  const int recvcounts[], const MPI_Aint recvdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm isocomm, collsel_iso_request *request) {
    collsel_iso_request r;
    int s = degree(isocomm), st = CS_OK;
    int rc = request_new(isocomm, request, 2 * (size_t)s, 2 * (size_t)s, 2 * (size_t)s, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    int *sc = r->ints, *rcn = sc + s;
    MPI_Aint *sd = r->aints, *rd = sd + s;
    MPI_Datatype *stypes = r->types, *rtypes = stypes + s;
    if (s > 0 && (sendcounts == NULL || sendtypes == NULL || (!gather && senddispls == NULL) ||
                  recvcounts == NULL || recvdispls == NULL || recvtypes == NULL))
        st = CS_ERR_ARG;
    for (int i = 0; st == CS_OK && i < s; i++) {
        sc[i] = sendcounts[gather ? 0 : i];
        sd[i] = gather ? 0 : senddispls[i];
        stypes[i] = sendtypes[gather ? 0 : i];
        rcn[i] = recvcounts[i];
        rd[i] = recvdispls[i];
        rtypes[i] = recvtypes[i];
    }
    if (st == CS_OK)
        st = cs_call_neighbor_alltoallw(&r->call, sendbuf, sc, sd, stypes, recvbuf, rcn, rd, rtypes,
                                        isocomm);
    return init_finish(r, st, gather ? CS_COLL_NEIGHBOR_ALLGATHER : CS_COLL_NEIGHBOR_ALLTOALL,
                       isocomm, request);
}

int collsel_iso_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                        const MPI_Aint senddispls[], const MPI_Datatype sendtypes[],
                                        void *recvbuf, const int recvcounts[],
                                        const MPI_Aint recvdispls[], const MPI_Datatype recvtypes[],
                                        MPI_Comm isocomm, collsel_iso_request *request) {
    return init_w(0, sendbuf, sendcounts, senddispls, sendtypes, recvbuf, recvcounts, recvdispls,
                  recvtypes, isocomm, request);
}

int collsel_iso_neighbor_allgatherw_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, const int recvcounts[],
                                         const MPI_Aint recvdispls[],
                                         const MPI_Datatype recvtypes[], MPI_Comm isocomm,
                                         collsel_iso_request *request) {
    return init_w(1, sendbuf, &sendcount, NULL, &sendtype, recvbuf, recvcounts, recvdispls,
                  recvtypes, isocomm, request);
}

int collsel_iso_start(collsel_iso_request *request) {
    if (request == NULL || *request == NULL)
        return MPI_ERR_REQUEST;
    const collsel_iso_request r = *request;
    if (r->variant.algo->build != NULL)
        return mpi_error(cs_algo_exec(r->ctx, &r->sched, r->call.sendbuf, r->call.recvbuf));
    return mpi_error(cs_algo_run_variant(&r->variant, &r->call));
}

int collsel_iso_request_algorithm(collsel_iso_request request, char *buf, int len) {
    if (request == COLLSEL_ISO_REQUEST_NULL)
        return MPI_ERR_REQUEST;
    if (buf == NULL || len < 1)
        return MPI_ERR_ARG;
    cs_variant_name(&request->variant, buf, (size_t)len);
    return MPI_SUCCESS;
}

int collsel_iso_request_free(collsel_iso_request *request) {
    if (request == NULL || *request == NULL)
        return MPI_SUCCESS;
    collsel_iso_request r = *request;
    cs_sched_free(&r->sched);
    free(r->ints);
    free(r->aints);
    free(r->types);
    free(r);
    *request = COLLSEL_ISO_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* The one-shot forms: `rc` is the init's status; starts and frees the request it made. */
static int run_once(int rc, collsel_iso_request *r) {
    if (rc == MPI_SUCCESS) {
        rc = collsel_iso_start(r);
    }
    collsel_iso_request_free(r);
    return rc;
}

int collsel_iso_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm isocomm) {
    collsel_iso_request r = COLLSEL_ISO_REQUEST_NULL;
    return run_once(collsel_iso_neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf,
                                                       recvcount, recvtype, isocomm, &r),
                    &r);
}

int collsel_iso_neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm isocomm) {
    collsel_iso_request r = COLLSEL_ISO_REQUEST_NULL;
    return run_once(collsel_iso_neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf,
                                                        recvcount, recvtype, isocomm, &r),
                    &r);
}

int collsel_iso_neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint senddispls[], MPI_Datatype sendtype,
                                   void *recvbuf, const int recvcounts[],
                                   const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                   MPI_Comm isocomm) {
    collsel_iso_request r = COLLSEL_ISO_REQUEST_NULL;
    return run_once(collsel_iso_neighbor_alltoallv_init(sendbuf, sendcounts, senddispls, sendtype,
                                                        recvbuf, recvcounts, recvdispls, recvtype,
                                                        isocomm, &r),
                    &r);
}

int collsel_iso_neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[],
                                    const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                    MPI_Comm isocomm) {
    collsel_iso_request r = COLLSEL_ISO_REQUEST_NULL;
    return run_once(collsel_iso_neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf,
                                                         recvcounts, recvdispls, recvtype, isocomm,
                                                         &r),
                    &r);
}

int collsel_iso_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint senddispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[],
                                   const MPI_Aint recvdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm isocomm) {
    collsel_iso_request r = COLLSEL_ISO_REQUEST_NULL;
    return run_once(collsel_iso_neighbor_alltoallw_init(sendbuf, sendcounts, senddispls, sendtypes,
                                                        recvbuf, recvcounts, recvdispls, recvtypes,
                                                        isocomm, &r),
                    &r);
}

int collsel_iso_neighbor_allgatherw(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[],
                                    const MPI_Aint recvdispls[], const MPI_Datatype recvtypes[],
                                    MPI_Comm isocomm) {
    collsel_iso_request r = COLLSEL_ISO_REQUEST_NULL;
    return run_once(collsel_iso_neighbor_allgatherw_init(sendbuf, sendcount, sendtype, recvbuf,
                                                         recvcounts, recvdispls, recvtypes, isocomm,
                                                         &r),
                    &r);
}

/* The public isomorphic neighbourhood collectives (collsel_iso.h): the set-up on a periodic
 * Cartesian communicator, and the packed executor of the schedules of topo/iso.h.
 *
 * collsel_iso_neighborhood_create checks its arguments on every process, compares s and the
 * offsets with rank 0's (broadcast in chunks of a fixed stack buffer, so a failing allocation
 * never leaves a process out of the broadcast), agrees on the verdict with one MPI_Allreduce
 * (MPI_MAX of the local error classes: every process returns the same one) and only then
 * creates the distributed graph communicator. The neighbourhood and a private duplicate of
 * that communicator (our messages never match the application's) hang on it as an attribute,
 * freed with it.
 *
 * Execution, packed form: round r packs its parts (MPI_Pack, so any datatype works) into one
 * contiguous buffer, exchanges it with MPI_Sendrecv (MPI_PACKED) with R + offset and R - offset,
 * and unpacks the parts it received; the local copies go through the same buffers. The
 * intermediate buffer holds blocks in the receive type's layout. Everything is allocated at init
 * and freed by collsel_iso_request_free: a start allocates nothing. The zero-copy form (a struct
 * datatype per round) is not done (docs/message-combining.md). */
#include "collsel_iso.h"

#include "topo/iso.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_INTS 256
#define ISO_TAG    0

/* What an isomorphic communicator carries (attribute value). */
typedef struct iso_attr {
    cs_iso_nbh_t nbh;
    MPI_Comm comm; /* private duplicate of the isomorphic communicator */
} iso_attr_t;

struct collsel_iso_request_s {
    cs_iso_sched_t sched;
    MPI_Comm comm;  /* borrowed from the attribute */
    int *to, *from; /* [nrounds] */
    const char *sendbuf;
    char *recvbuf;
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    MPI_Aint send_stride, recv_stride; /* bytes between blocks */
    char *inter_mem, *inter;           /* allocation; its block 0 */
    char *packbuf, *unpackbuf;
    int pack_bytes; /* size of each of packbuf, unpackbuf */
};

static int keyval = MPI_KEYVAL_INVALID;

static int delete_attr(MPI_Comm comm, int key, void *value, void *extra) {
    (void)comm;
    (void)key;
    (void)extra;
    iso_attr_t *a = value;
    int rc = MPI_SUCCESS;
    if (a->comm != MPI_COMM_NULL)
        rc = PMPI_Comm_free(&a->comm);
    cs_iso_nbh_free(&a->nbh);
    free(a);
    return rc;
}

/* Runs at the start of MPI_Finalize (MPI_COMM_SELF's attributes are deleted first): frees the
 * keyval. Neighbourhoods on communicators the application never freed stay, like those. */
static int finalize_hook(MPI_Comm comm, int key, void *value, void *extra) {
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

/* Creates the keyval and hooks finalize_hook to MPI_COMM_SELF (as core/comm.c does); the hook's
 * keyval is freed at once, its attribute keeps it alive until MPI_Finalize. */
static int create_keyval(void) {
    int hook = MPI_KEYVAL_INVALID;
    int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &keyval, NULL);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &hook, NULL);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_set_attr(MPI_COMM_SELF, hook, NULL);
    if (hook != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&hook);
    if (rc != MPI_SUCCESS && keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
    return rc;
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
    iso_attr_t *attr = NULL;
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
        attr = calloc(1, sizeof(*attr));
        if (attr != NULL)
            attr->comm = MPI_COMM_NULL;
        targets = malloc((size_t)(s > 0 ? s : 1) * sizeof(int));
        sources = malloc((size_t)(s > 0 ? s : 1) * sizeof(int));
        if (attr == NULL || targets == NULL || sources == NULL) {
            err = MPI_ERR_NO_MEM;
        } else {
            int st = cs_iso_nbh_init(&attr->nbh, d, dims, s, relative_coords);
            if (st == CS_ERR_NOMEM)
                err = MPI_ERR_NO_MEM;
            else if (st != CS_OK)
                err = MPI_ERR_ARG;
        }
        for (int i = 0; err == MPI_SUCCESS && i < s; i++) {
            targets[i] = cs_iso_shift(&attr->nbh, rank, relative_coords + (long)i * d, 1);
            sources[i] = cs_iso_shift(&attr->nbh, rank, relative_coords + (long)i * d, -1);
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
    if (keyval == MPI_KEYVAL_INVALID && (rc = create_keyval()) != MPI_SUCCESS)
        goto out;
    /* Through a volatile: GCC reads Open MPI's MPI_UNWEIGHTED, a small constant address, as an
     * array of size 0 (-Wstringop-overread). */
    int *volatile unweighted = MPI_UNWEIGHTED;
    rc = PMPI_Dist_graph_create_adjacent(cartcomm, s, sources, unweighted, s, targets, unweighted,
                                         MPI_INFO_NULL, 0, &graph);
    if (rc != MPI_SUCCESS)
        goto out;
    if ((rc = PMPI_Comm_dup(graph, &attr->comm)) != MPI_SUCCESS)
        goto out;
    if ((rc = PMPI_Comm_set_attr(graph, keyval, attr)) != MPI_SUCCESS)
        goto out;
    attr = NULL; /* owned by graph now */
    *isocomm = graph;
    graph = MPI_COMM_NULL;
out:
    if (attr != NULL) {
        if (attr->comm != MPI_COMM_NULL)
            PMPI_Comm_free(&attr->comm);
        cs_iso_nbh_free(&attr->nbh);
        free(attr);
    }
    if (graph != MPI_COMM_NULL)
        PMPI_Comm_free(&graph);
    free(dims);
    free(periods);
    free(coords);
    free(targets);
    free(sources);
    return rc;
}

/* The schedule kind from rank 0's COLLSEL_ISO_SCHEDULE (default torus). Collective. */
static int choose_kind(MPI_Comm comm, cs_iso_kind_t *kind) {
    int rank, k = CS_ISO_TORUS;
    int rc = PMPI_Comm_rank(comm, &rank);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank == 0) {
        const char *v = getenv("COLLSEL_ISO_SCHEDULE");
        if (v != NULL && strcmp(v, "straightforward") == 0)
            k = CS_ISO_STRAIGHTFORWARD;
        else if (v != NULL && strcmp(v, "direct") == 0)
            k = CS_ISO_DIRECT;
    }
    rc = PMPI_Bcast(&k, 1, MPI_INT, 0, comm);
    *kind = (cs_iso_kind_t)k;
    return rc;
}

/* Where block b lives and what it is made of. */
static char *block_at(const collsel_iso_request r, cs_iso_block_t b, int *count,
                      MPI_Datatype *type) {
    if (b.buf == CS_ISO_BUF_SEND) {
        *count = r->sendcount;
        *type = r->sendtype;
        return (char *)r->sendbuf + b.index * r->send_stride;
    }
    *count = r->recvcount;
    *type = r->recvtype;
    return (b.buf == CS_ISO_BUF_RECV ? r->recvbuf : r->inter) + b.index * r->recv_stride;
}

static int init_common(cs_iso_coll_t coll, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Comm isocomm, collsel_iso_request *request) {
    int rc = MPI_SUCCESS, flag = 0, ssize, rsize, spack, rpack;
    iso_attr_t *attr = NULL;
    collsel_iso_request r = NULL;
    MPI_Aint lb, sext, rext, tlb, text;
    cs_iso_kind_t kind;

    if (request == NULL)
        return MPI_ERR_ARG;
    *request = COLLSEL_ISO_REQUEST_NULL;
    if (keyval == MPI_KEYVAL_INVALID)
        return MPI_ERR_COMM;
    if ((rc = PMPI_Comm_get_attr(isocomm, keyval, &attr, &flag)) != MPI_SUCCESS)
        return rc;
    if (!flag)
        return MPI_ERR_COMM;
    if ((rc = choose_kind(attr->comm, &kind)) != MPI_SUCCESS)
        return rc;
    if (sendcount < 0 || recvcount < 0)
        return MPI_ERR_COUNT;
    if ((rc = PMPI_Type_size(sendtype, &ssize)) != MPI_SUCCESS ||
        (rc = PMPI_Type_size(recvtype, &rsize)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_extent(sendtype, &lb, &sext)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_extent(recvtype, &lb, &rext)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_true_extent(recvtype, &tlb, &text)) != MPI_SUCCESS ||
        (rc = PMPI_Pack_size(sendcount, sendtype, attr->comm, &spack)) != MPI_SUCCESS ||
        (rc = PMPI_Pack_size(recvcount, recvtype, attr->comm, &rpack)) != MPI_SUCCESS)
        return rc;
    if ((long)ssize * sendcount != (long)rsize * recvcount || sext < 0 || rext < 0)
        return MPI_ERR_ARG;

    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    r->comm = attr->comm;
    r->sendbuf = sendbuf;
    r->recvbuf = recvbuf;
    r->sendcount = sendcount;
    r->recvcount = recvcount;
    r->sendtype = sendtype;
    r->recvtype = recvtype;
    r->send_stride = sext * sendcount;
    r->recv_stride = rext * recvcount;
    int st = cs_iso_build(&attr->nbh, coll, kind, &r->sched);
    if (st != CS_OK) {
        rc = st == CS_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_ARG;
        goto out;
    }
    const cs_iso_sched_t *sc = &r->sched;
    int rank;
    if ((rc = PMPI_Comm_rank(r->comm, &rank)) != MPI_SUCCESS)
        goto out;
    r->to = malloc((size_t)(sc->nrounds > 0 ? sc->nrounds : 1) * sizeof(int));
    r->from = malloc((size_t)(sc->nrounds > 0 ? sc->nrounds : 1) * sizeof(int));
    if (r->to == NULL || r->from == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    int max_parts = sc->ncopies > 0 ? 1 : 0;
    for (int k = 0; k < sc->nrounds; k++) {
        r->to[k] = cs_iso_shift(&attr->nbh, rank, sc->offset + (long)k * sc->d, 1);
        r->from[k] = cs_iso_shift(&attr->nbh, rank, sc->offset + (long)k * sc->d, -1);
        int parts = sc->part_start[k + 1] - sc->part_start[k];
        if (parts > max_parts)
            max_parts = parts;
    }
    long per_block = spack > rpack ? spack : rpack;
    if (per_block * max_parts > INT_MAX) {
        rc = MPI_ERR_ARG;
        goto out;
    }
    r->pack_bytes = (int)(per_block * max_parts);
    r->packbuf = malloc((size_t)r->pack_bytes + 1);
    r->unpackbuf = malloc((size_t)r->pack_bytes + 1);
    /* The intermediate blocks, in the receive type's layout: block i's data spans
     * [i * stride + true_lb, i * stride + true_lb + (count - 1) * extent + true_extent). */
    size_t inter_bytes = 1;
    if (sc->inter_blocks > 0 && recvcount > 0)
        inter_bytes =
            (size_t)((sc->inter_blocks - 1) * r->recv_stride + (recvcount - 1) * rext + text);
    r->inter_mem = malloc(inter_bytes);
    if (r->packbuf == NULL || r->unpackbuf == NULL || r->inter_mem == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    r->inter = (char *)((uintptr_t)r->inter_mem - (uintptr_t)tlb);
    *request = r;
    r = NULL;
out:
    collsel_iso_request_free(&r);
    return rc;
}

int collsel_iso_neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm isocomm, collsel_iso_request *request) {
    return init_common(CS_ISO_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       isocomm, request);
}

int collsel_iso_neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm isocomm, collsel_iso_request *request) {
    return init_common(CS_ISO_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       isocomm, request);
}

int collsel_iso_start(collsel_iso_request *request) {
    if (request == NULL || *request == NULL)
        return MPI_ERR_REQUEST;
    const collsel_iso_request r = *request;
    const cs_iso_sched_t *sc = &r->sched;
    int rc, count, pos, got;
    MPI_Datatype type;
    MPI_Status status;
    for (int k = 0; k < sc->nrounds; k++) {
        pos = 0;
        for (int q = sc->part_start[k]; q < sc->part_start[k + 1]; q++) {
            char *at = block_at(r, sc->send[q], &count, &type);
            rc = PMPI_Pack(at, count, type, r->packbuf, r->pack_bytes, &pos, r->comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        rc = PMPI_Sendrecv(r->packbuf, pos, MPI_PACKED, r->to[k], ISO_TAG, r->unpackbuf,
                           r->pack_bytes, MPI_PACKED, r->from[k], ISO_TAG, r->comm, &status);
        if (rc != MPI_SUCCESS)
            return rc;
        if ((rc = PMPI_Get_count(&status, MPI_PACKED, &got)) != MPI_SUCCESS)
            return rc;
        pos = 0;
        for (int q = sc->part_start[k]; q < sc->part_start[k + 1]; q++) {
            char *at = block_at(r, sc->recv[q], &count, &type);
            rc = PMPI_Unpack(r->unpackbuf, got, &pos, at, count, type, r->comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    for (int c = 0; c < sc->ncopies; c++) {
        pos = 0;
        char *at = block_at(r, sc->copy_src[c], &count, &type);
        if ((rc = PMPI_Pack(at, count, type, r->packbuf, r->pack_bytes, &pos, r->comm)) !=
            MPI_SUCCESS)
            return rc;
        got = pos;
        pos = 0;
        at = block_at(r, sc->copy_dst[c], &count, &type);
        if ((rc = PMPI_Unpack(r->packbuf, got, &pos, at, count, type, r->comm)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int collsel_iso_request_free(collsel_iso_request *request) {
    if (request == NULL || *request == NULL)
        return MPI_SUCCESS;
    collsel_iso_request r = *request;
    cs_iso_sched_free(&r->sched);
    free(r->to);
    free(r->from);
    free(r->packbuf);
    free(r->unpackbuf);
    free(r->inter_mem);
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

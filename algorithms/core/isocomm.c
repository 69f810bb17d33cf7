/* Isomorphic neighbourhoods attached to communicators (see isocomm.h). */
#include "isocomm.h"

#include "comm.h"

#include <stdlib.h>

/* The attribute: a neighbourhood shared by a communicator and its duplicates. */
typedef struct shared_nbh {
    cs_iso_nbh_t nbh;
    int refs; /* atomic */
} shared_nbh_t;

static int keyval = MPI_KEYVAL_INVALID;

static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag) {
    shared_nbh_t *sh = in;
    (void)comm;
    (void)key;
    (void)extra;
    __atomic_add_fetch(&sh->refs, 1, __ATOMIC_RELAXED);
    *(void **)out = sh;
    *flag = 1;
    return MPI_SUCCESS;
}

static void release(shared_nbh_t *sh) {
    if (sh != NULL && __atomic_sub_fetch(&sh->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        cs_iso_nbh_free(&sh->nbh);
        free(sh);
    }
}

static int delete_fn(MPI_Comm comm, int key, void *value, void *extra) {
    (void)comm;
    (void)key;
    (void)extra;
    release(value);
    return MPI_SUCCESS;
}

int cs_isocomm_attach(MPI_Comm comm, cs_iso_nbh_t *nbh) {
    int rc = CS_OK;
    shared_nbh_t *sh = calloc(1, sizeof(*sh));
    CS_REQUIRE(sh != NULL, CS_ERR_NOMEM);
    sh->nbh = *nbh;
    *nbh = (cs_iso_nbh_t){0};
    sh->refs = 1;
    if (keyval == MPI_KEYVAL_INVALID) {
        CS_CHECK(cs_keyval_create(copy_fn, delete_fn, &keyval));
    }
    CS_MPI_CHECK(PMPI_Comm_set_attr(comm, keyval, sh));
    sh = NULL;
out:
    if (sh != NULL) {
        cs_iso_nbh_free(&sh->nbh);
        free(sh);
    }
    cs_iso_nbh_free(nbh);
    return rc;
}

/* The attached neighbourhood of comm, or NULL. */
static const cs_iso_nbh_t *attached(MPI_Comm comm) {
    shared_nbh_t *sh = NULL;
    int found = 0;
    if (keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, keyval, &sh, &found) != MPI_SUCCESS || !found) {
        return NULL;
    }
    return &sh->nbh;
}

int cs_isocomm_attached(MPI_Comm comm) {
    return attached(comm) != NULL;
}

/* The neighbourhood of a Cartesian communicator periodic in every dimension. */
static int cartesian(MPI_Comm comm, cs_isocomm_t *out) {
    int rc = CS_OK, d = 0;
    int *dims = NULL, *periods = NULL, *coords = NULL, *offs = NULL;
    CS_MPI_CHECK(PMPI_Cartdim_get(comm, &d));
    CS_REQUIRE(d >= 1, CS_ERR_NOT_APPLICABLE);
    dims = malloc((size_t)d * sizeof(int));
    periods = malloc((size_t)d * sizeof(int));
    coords = malloc((size_t)d * sizeof(int));
    offs = calloc((size_t)(2 * d * d), sizeof(int));
    CS_REQUIRE(dims != NULL && periods != NULL && coords != NULL && offs != NULL, CS_ERR_NOMEM);
    CS_MPI_CHECK(PMPI_Cart_get(comm, d, dims, periods, coords));
    for (int j = 0; j < d; j++) {
        CS_REQUIRE(periods[j], CS_ERR_NOT_APPLICABLE);
        offs[(2 * j) * d + j] = -1;
        offs[(2 * j + 1) * d + j] = 1;
    }
    CS_CHECK(cs_iso_nbh_init(&out->nbh, d, dims, 2 * d, offs));
    out->recv_flip = 1;
out:
    free(dims);
    free(periods);
    free(coords);
    free(offs);
    return rc;
}

int cs_isocomm_get(MPI_Comm comm, cs_isocomm_t *out) {
    int rc = CS_OK, kind = MPI_UNDEFINED;
    const cs_iso_nbh_t *a;
    *out = (cs_isocomm_t){0};
    CS_MPI_CHECK(PMPI_Topo_test(comm, &kind));
    if (kind == MPI_CART) {
        CS_CHECK(cartesian(comm, out));
    } else {
        a = kind == MPI_DIST_GRAPH ? attached(comm) : NULL;
        CS_REQUIRE(a != NULL, CS_ERR_NOT_APPLICABLE);
        CS_CHECK(cs_iso_nbh_init(&out->nbh, a->d, a->dims, a->s, a->offsets));
    }
out:
    if (rc != CS_OK) {
        cs_isocomm_free(out);
    }
    return rc;
}

void cs_isocomm_free(cs_isocomm_t *c) {
    if (c != NULL) {
        cs_iso_nbh_free(&c->nbh);
        c->recv_flip = 0;
    }
}

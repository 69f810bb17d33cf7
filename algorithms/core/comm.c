/* Per-communicator context cached with an attribute keyval (see comm.h). */
#include "comm.h"

#include <stdlib.h>
#include <string.h>

static int keyval = MPI_KEYVAL_INVALID;

static void context_free(cs_comm_t *ctx) {
    if (ctx == NULL) {
        return;
    }
    if (ctx->comm != MPI_COMM_NULL) {
        PMPI_Comm_free(&ctx->comm);
    }
    for (int i = 0; i < CS_COMM_SCHEDS; i++) {
        cs_sched_free(&ctx->scheds[i].sched);
    }
    free(ctx->scratch);
    free(ctx->reqs);
    free(ctx);
}

static int delete_fn(MPI_Comm comm, int key, void *value, void *extra) {
    (void)comm;
    (void)key;
    (void)extra;
    context_free(value);
    return MPI_SUCCESS;
}

int cs_comm_get(MPI_Comm user, cs_comm_t **out) {
    int rc = CS_OK;
    int found = 0;
    cs_comm_t *ctx = NULL;
    void *value = NULL;
    *out = NULL;
    if (keyval == MPI_KEYVAL_INVALID) {
        CS_MPI_CHECK(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL));
    }
    CS_MPI_CHECK(PMPI_Comm_get_attr(user, keyval, &value, &found));
    if (found) {
        *out = value;
        return CS_OK;
    }
    ctx = calloc(1, sizeof(*ctx));
    CS_REQUIRE(ctx != NULL, CS_ERR_NOMEM);
    ctx->comm = MPI_COMM_NULL;
    CS_MPI_CHECK(PMPI_Comm_dup(user, &ctx->comm));
    CS_MPI_CHECK(PMPI_Comm_rank(ctx->comm, &ctx->rank));
    CS_MPI_CHECK(PMPI_Comm_size(ctx->comm, &ctx->nprocs));
    CS_MPI_CHECK(PMPI_Comm_set_attr(user, keyval, ctx));
    *out = ctx;
    ctx = NULL;
out:
    context_free(ctx);
    return rc;
}

int cs_comm_reserve(cs_comm_t *ctx, size_t scratch_bytes, int nreqs) {
    int rc = CS_OK;
    if (scratch_bytes > ctx->scratch_cap) {
        void *p = NULL;
        size_t cap = (scratch_bytes + 63) / 64 * 64;
        CS_REQUIRE(posix_memalign(&p, 64, cap) == 0, CS_ERR_NOMEM);
        free(ctx->scratch);
        ctx->scratch = p;
        ctx->scratch_cap = cap;
    }
    if (nreqs > ctx->reqs_cap) {
        MPI_Request *r = realloc(ctx->reqs, (size_t)nreqs * sizeof(*r));
        CS_REQUIRE(r != NULL, CS_ERR_NOMEM);
        ctx->reqs = r;
        ctx->reqs_cap = nreqs;
    }
out:
    return rc;
}

/* Block layouts (see blocks.h). */
#include "blocks.h"

#include <limits.h>

cs_blocks_t cs_blocks_uniform(cs_ref_t base, const cs_type_t *t, MPI_Aint unit, MPI_Aint total,
                              int first) {
    cs_blocks_t b = {base, t, unit, total, first, NULL, NULL};
    return b;
}

cs_blocks_t cs_blocks_indexed(cs_ref_t base, const cs_type_t *t, const int *counts,
                              const int *displs) {
    cs_blocks_t b = {base, t, 0, 0, 0, counts, displs};
    return b;
}

MPI_Aint cs_blocks_start(const cs_blocks_t *b, int j) {
    MPI_Aint s = (MPI_Aint)j * b->unit;
    return s < b->total ? s : b->total;
}

MPI_Aint cs_blocks_count(const cs_blocks_t *b, int j0, int j1) {
    MPI_Aint n = 0;
    if (b->counts == NULL) {
        return cs_blocks_start(b, j1) - cs_blocks_start(b, j0);
    }
    for (int j = j0; j < j1; j++) {
        n += b->counts[j];
    }
    return n;
}

/* Reference and element count of blocks [j0, j1) (uniform) or of block j0 (indexed). */
static int range(const cs_blocks_t *b, int j0, int j1, cs_ref_t *ref, int *count) {
    MPI_Aint first, n;
    if (b->counts != NULL) {
        *ref = cs_ref_at(b->base, b->displs[j0], b->type);
        *count = b->counts[j0];
        return CS_OK;
    }
    first = cs_blocks_start(b, b->first);
    n = cs_blocks_count(b, j0, j1);
    if (n > INT_MAX) {
        return CS_ERR_NOT_APPLICABLE;
    }
    *ref = cs_ref_at(b->base, cs_blocks_start(b, j0) - first, b->type);
    *count = (int)n;
    return CS_OK;
}

static int move(cs_sched_t *s, int send, int peer, const cs_blocks_t *b, int j0, int j1) {
    int rc = CS_OK;
    int step = b->counts != NULL ? 1 : j1 - j0;
    if (j1 <= j0) {
        return CS_OK;
    }
    for (int j = j0; j < j1; j += step) {
        cs_ref_t ref;
        int count;
        CS_CHECK(range(b, j, j + step, &ref, &count));
        if (send) {
            CS_CHECK(cs_sched_send(s, peer, ref, count, b->type));
        } else {
            CS_CHECK(cs_sched_recv(s, peer, ref, count, b->type));
        }
    }
out:
    return rc;
}

int cs_blocks_send(cs_sched_t *s, int peer, const cs_blocks_t *b, int j0, int j1) {
    return move(s, 1, peer, b, j0, j1);
}

int cs_blocks_recv(cs_sched_t *s, int peer, const cs_blocks_t *b, int j0, int j1) {
    return move(s, 0, peer, b, j0, j1);
}

int cs_blocks_copy(cs_sched_t *s, const cs_blocks_t *src, const cs_blocks_t *dst, int j0, int j1) {
    int rc = CS_OK;
    int step = (src->counts != NULL || dst->counts != NULL) ? 1 : j1 - j0;
    if (j1 <= j0) {
        return CS_OK;
    }
    for (int j = j0; j < j1; j += step) {
        cs_ref_t sref, dref;
        int scount, dcount;
        CS_CHECK(range(src, j, j + step, &sref, &scount));
        CS_CHECK(range(dst, j, j + step, &dref, &dcount));
        CS_CHECK(cs_sched_copy(s, sref, scount, src->type, dref, dcount, dst->type));
    }
out:
    return rc;
}

int cs_blocks_move(cs_sched_t *s, const cs_blocks_t *src, int sj, const cs_blocks_t *dst, int dj,
                   int n) {
    int rc = CS_OK;
    cs_ref_t sref, dref;
    int scount, dcount;
    CS_REQUIRE(src->counts == NULL && dst->counts == NULL && n >= 0, CS_ERR_ARG);
    if (n == 0) {
        return CS_OK;
    }
    CS_CHECK(range(src, sj, sj + n, &sref, &scount));
    CS_CHECK(range(dst, dj, dj + n, &dref, &dcount));
    CS_CHECK(cs_sched_copy(s, sref, scount, src->type, dref, dcount, dst->type));
out:
    return rc;
}

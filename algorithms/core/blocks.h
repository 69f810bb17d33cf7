/* Block layouts: where block j of a collective's buffer lives, for schedule builders.
 *
 * Allgather, gather, scatter and the scatter phase of a broadcast move ranges of blocks
 * [j0, j1) between positions. A cs_blocks_t says where block j is:
 *   - uniform:  block j is elements [min(j*unit, total), min((j+1)*unit, total)), so a range of
 *               blocks is one contiguous run of elements and moves as one message;
 *   - indexed:  block j is counts[j] elements at element displacement displs[j] (allgatherv);
 *               a range moves as one message per block.
 * `base` addresses block `first` (uniform) or element 0 (indexed), so a scratch buffer that
 * holds only the blocks [first, ...) of a subtree uses the same layout. */
#ifndef CS_BLOCKS_H
#define CS_BLOCKS_H

#include "sched.h"

typedef struct cs_blocks {
    cs_ref_t base;
    const cs_type_t *type;
    MPI_Aint unit, total; /* uniform layout */
    int first;            /* uniform layout: the block at base */
    const int *counts;    /* indexed layout when non-NULL */
    const int *displs;
} cs_blocks_t;

/* A uniform layout. */
cs_blocks_t cs_blocks_uniform(cs_ref_t base, const cs_type_t *t, MPI_Aint unit, MPI_Aint total,
                              int first);
/* An indexed layout. */
cs_blocks_t cs_blocks_indexed(cs_ref_t base, const cs_type_t *t, const int *counts,
                              const int *displs);

/* First element of block j (uniform layout). */
MPI_Aint cs_blocks_start(const cs_blocks_t *b, int j);
/* Elements in blocks [j0, j1). */
MPI_Aint cs_blocks_count(const cs_blocks_t *b, int j0, int j1);

/* Append sends / receives of blocks [j0, j1) to / from `peer`. */
int cs_blocks_send(cs_sched_t *s, int peer, const cs_blocks_t *b, int j0, int j1) CS_MUST_CHECK;
int cs_blocks_recv(cs_sched_t *s, int peer, const cs_blocks_t *b, int j0, int j1) CS_MUST_CHECK;
/* Append a copy of n blocks from [sj, sj + n) of uniform layout `src` to [dj, dj + n) of uniform
 * layout `dst` (an alltoall's permutations of blocks); both ranges must lie within their
 * layouts. */
int cs_blocks_move(cs_sched_t *s, const cs_blocks_t *src, int sj, const cs_blocks_t *dst, int dj,
                   int n) CS_MUST_CHECK;
/* Append a copy of blocks [j0, j1) from layout `src` to layout `dst`. */
int cs_blocks_copy(cs_sched_t *s, const cs_blocks_t *src, const cs_blocks_t *dst, int j0,
                   int j1) CS_MUST_CHECK;

#endif

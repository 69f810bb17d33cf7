/* What the groups of test_core share (test_core.c): the MPI objects main creates after MPI_Init
 * and the helpers more than one group uses. Each group (test_core_<group>.c) makes one TCase of
 * the "core" suite; test_core.c assembles them in the order below. */
#ifndef CS_TEST_CORE_H
#define CS_TEST_CORE_H

#include "core/call.h"
#include "core/sched.h"

#include <check.h>
#include <mpi.h>

/* 2 ints at byte displacements 8 and 16, resized to lb 4, extent 20: lb != true_lb, extent !=
 * true_extent != size. */
extern MPI_Datatype odd_type;
/* a op b = a * 16 + b: not commutative, so operand order shows. */
extern MPI_Op hexcat_op;
extern MPI_Op commuting_user_op;

/* cs_type_t of `type` as cs_type_init computes it; fails the test when cs_type_init does. */
cs_type_t type_of(MPI_Datatype type);

/* An empty schedule for `op` (cs_sched_reset on a zeroed one); the caller frees it. */
void sched_init(cs_sched_t *s, MPI_Op op);

TCase *core_tcase_status(void);
TCase *core_tcase_coll(void);
TCase *core_tcase_type(void);
TCase *core_tcase_call(void);
TCase *core_tcase_sched(void);
TCase *core_tcase_blocks(void);
TCase *core_tcase_edges(void);

#endif

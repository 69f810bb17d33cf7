/* Unit tests for algorithms/core: status codes, collectives, datatypes, call normalisation, the
 * schedule builder and block layouts.
 *
 * Runs as an MPI singleton (MPI_Init without mpirun) because datatypes and ops need MPI. Check
 * runs without fork: forking after MPI_Init is unsafe. Calls are normalised with
 * cs_call_normalize() on hand-filled calls, so any rank and size can be tested in one process.
 *
 * One suite, "core", of one TCase per group, each in its own file: test_core_status.c,
 * test_core_coll.c, test_core_type.c, test_core_call.c, test_core_sched.c, test_core_blocks.c.
 * This file holds main and what the groups share (test_core.h). */
#include "test_core.h"

#include <stdlib.h>
#include <string.h>

/* Shared with the groups (test_core.h), created after MPI_Init by make_mpi_objects. */
MPI_Datatype odd_type = MPI_DATATYPE_NULL;
MPI_Op hexcat_op = MPI_OP_NULL;
MPI_Op commuting_user_op = MPI_OP_NULL;

static void hexcat(void *in, void *inout, int *len, MPI_Datatype *type) {
    const int *a = in;
    int *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        b[i] = a[i] * 16 + b[i];
    }
}

static void int_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    const int *a = in;
    int *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        b[i] += a[i];
    }
}

cs_type_t type_of(MPI_Datatype type) {
    cs_type_t t;
    ck_assert_int_eq(cs_type_init(&t, type), CS_OK);
    return t;
}

void sched_init(cs_sched_t *s, MPI_Op op) {
    memset(s, 0, sizeof(*s));
    cs_sched_reset(s, op);
}

static Suite *core_suite(void) {
    Suite *s = suite_create("core");
    suite_add_tcase(s, core_tcase_status());
    suite_add_tcase(s, core_tcase_coll());
    suite_add_tcase(s, core_tcase_type());
    suite_add_tcase(s, core_tcase_call());
    suite_add_tcase(s, core_tcase_sched());
    suite_add_tcase(s, core_tcase_blocks());
    suite_add_tcase(s, core_tcase_edges());
    return s;
}

static void make_mpi_objects(void) {
    const int blocklens[2] = {1, 1};
    const MPI_Aint displs[2] = {8, 16};
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    MPI_Type_create_hindexed(2, blocklens, displs, MPI_INT, &inner);
    MPI_Type_create_resized(inner, 4, 20, &odd_type);
    MPI_Type_commit(&odd_type);
    MPI_Type_free(&inner);
    MPI_Op_create(hexcat, 0, &hexcat_op);
    MPI_Op_create(int_sum, 1, &commuting_user_op);
}

int main(int argc, char **argv) {
    SRunner *sr;
    int failed;
    MPI_Init(&argc, &argv);
    make_mpi_objects();
    sr = srunner_create(core_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Op_free(&hexcat_op);
    MPI_Op_free(&commuting_user_op);
    MPI_Type_free(&odd_type);
    MPI_Finalize();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

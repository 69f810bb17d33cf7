/* test_core: datatypes (cs_type_init). */
#include "test_core.h"

/* ---- datatypes ---------------------------------------------------------------------------- */

START_TEST(test_type_int) {
    cs_type_t t = type_of(MPI_INT);
    ck_assert(t.type == MPI_INT);
    ck_assert_int_eq(t.lb, 0);
    ck_assert_int_eq(t.extent, (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.true_lb, 0);
    ck_assert_int_eq(t.true_extent, (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.size, (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.dense, 1);
}
END_TEST

START_TEST(test_type_derived) {
    cs_type_t t = type_of(odd_type);
    ck_assert(t.type == odd_type);
    ck_assert_int_eq(t.lb, 4);
    ck_assert_int_eq(t.extent, 20);
    ck_assert_int_eq(t.true_lb, 8);
    ck_assert_int_eq(t.true_extent, 12);
    ck_assert_int_eq(t.size, 8);
    ck_assert_int_eq(t.dense, 0);
}
END_TEST

START_TEST(test_type_dense_and_not) {
    MPI_Datatype contig = MPI_DATATYPE_NULL, vec = MPI_DATATYPE_NULL;
    cs_type_t t;
    ck_assert_int_eq(MPI_Type_contiguous(3, MPI_INT, &contig), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&contig), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, &vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&vec), MPI_SUCCESS);
    t = type_of(contig);
    ck_assert_int_eq(t.size, 3 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.dense, 1);
    t = type_of(vec);
    ck_assert_int_eq(t.size, 2 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.extent, 3 * (MPI_Aint)sizeof(int));
    ck_assert_int_eq(t.dense, 0);
    t = type_of(MPI_DOUBLE);
    ck_assert_int_eq(t.size, (MPI_Aint)sizeof(double));
    ck_assert_int_eq(t.dense, 1);
    MPI_Type_free(&contig);
    MPI_Type_free(&vec);
}
END_TEST

START_TEST(test_type_null) {
    cs_type_t t;
    ck_assert_int_eq(cs_type_init(&t, MPI_DATATYPE_NULL), CS_ERR_ARG);
}
END_TEST

TCase *core_tcase_type(void) {
    TCase *tc = tcase_create("type");
    tcase_add_test(tc, test_type_int);
    tcase_add_test(tc, test_type_derived);
    tcase_add_test(tc, test_type_dense_and_not);
    tcase_add_test(tc, test_type_null);
    return tc;
}

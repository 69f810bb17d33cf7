/* test_core: collectives (core/coll.def: names and flags). */
#include "test_core.h"

#include <string.h>

/* ---- collectives -------------------------------------------------------------------------- */

START_TEST(test_coll_names) {
    cs_coll_t back_barrier = CS_COLL_BCAST;
    for (int i = 0; i < CS_COLL_COUNT; i++) {
        cs_coll_t back = CS_COLL_COUNT;
        const char *name = cs_coll_name((cs_coll_t)i);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(cs_coll_from_name(name, &back), CS_OK);
        ck_assert_int_eq(back, i);
        for (int j = 0; j < i; j++) {
            ck_assert_str_ne(name, cs_coll_name((cs_coll_t)j));
        }
    }
    ck_assert_ptr_null(cs_coll_name(CS_COLL_COUNT));
    ck_assert_str_eq(cs_coll_name(CS_COLL_BARRIER), "barrier");
    ck_assert_int_eq(cs_coll_from_name("barrier", &back_barrier), CS_OK);
    ck_assert_int_eq(back_barrier, CS_COLL_BARRIER);
    ck_assert_int_eq(cs_coll_has_data(CS_COLL_BARRIER), 0);
    ck_assert_int_eq(cs_coll_has_data(CS_COLL_ALLTOALL), 1);
    ck_assert_ptr_null(cs_coll_name((cs_coll_t)-1));
    {
        cs_coll_t out = CS_COLL_BCAST;
        ck_assert_int_eq(cs_coll_from_name("alltoallw", &out), CS_ERR_NOT_FOUND);
        ck_assert_int_eq(cs_coll_from_name("", &out), CS_ERR_NOT_FOUND);
        ck_assert_int_eq(cs_coll_from_name("Bcast", &out), CS_ERR_NOT_FOUND);
        ck_assert_int_eq(cs_coll_from_name("allgather/ring", &out), CS_ERR_NOT_FOUND);
    }
    ck_assert_str_eq(cs_coll_name(CS_COLL_ALLREDUCE), "allreduce");
    ck_assert_str_eq(cs_coll_name(CS_COLL_ALLGATHERV), "allgatherv");
}
END_TEST

START_TEST(test_coll_flags) {
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_BCAST), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_GATHER), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_SCATTER), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_REDUCE), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_ALLREDUCE), 0);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_ALLGATHER), 0);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_ALLGATHERV), 0);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_REDUCE), 1);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_ALLREDUCE), 1);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_BCAST), 0);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_ALLGATHER), 0);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_REDUCE_SCATTER_BLOCK), 1);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_REDUCE_SCATTER), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_REDUCE_SCATTER_BLOCK), 0);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_REDUCE_SCATTER), 0);
    ck_assert_str_eq(cs_coll_name(CS_COLL_SCAN), "scan");
    ck_assert_str_eq(cs_coll_name(CS_COLL_EXSCAN), "exscan");
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_SCAN), 1);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_EXSCAN), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_SCAN), 0);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_EXSCAN), 0);
    ck_assert_int_eq(cs_coll_has_data(CS_COLL_EXSCAN), 1);
    ck_assert_int_eq(cs_coll_is_cached(CS_COLL_EXSCAN), 1);
    ck_assert_int_eq(cs_coll_is_rooted(CS_COLL_COUNT), 0);
    ck_assert_int_eq(cs_coll_is_reduction(CS_COLL_COUNT), 0);
    ck_assert_int_eq(cs_coll_is_rooted((cs_coll_t)-1), 0);
    ck_assert_int_eq(cs_coll_is_reduction((cs_coll_t)-1), 0);
    /* the neighbourhood collectives; the ones with count arrays are not cached */
    ck_assert_str_eq(cs_coll_name(CS_COLL_NEIGHBOR_ALLTOALLW), "neighbor_alltoallw");
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        const char *name = cs_coll_name((cs_coll_t)c);
        int neighbor = strncmp(name, "neighbor_", 9) == 0;
        int agrees = c == CS_COLL_GATHERV || c == CS_COLL_SCATTERV || c == CS_COLL_ALLTOALLV;
        int arrays = agrees || c == CS_COLL_ALLGATHERV || c == CS_COLL_REDUCE_SCATTER ||
                     c == CS_COLL_NEIGHBOR_ALLGATHERV || c == CS_COLL_NEIGHBOR_ALLTOALLV ||
                     c == CS_COLL_NEIGHBOR_ALLTOALLW;
        ck_assert_int_eq(cs_coll_is_neighbor((cs_coll_t)c), neighbor);
        ck_assert_int_eq(cs_coll_is_cached((cs_coll_t)c), !arrays);
        ck_assert_int_eq(cs_coll_agrees((cs_coll_t)c), agrees);
        ck_assert_int_eq(
            neighbor && (cs_coll_is_rooted((cs_coll_t)c) || cs_coll_is_reduction((cs_coll_t)c)), 0);
    }
    ck_assert_int_eq(cs_coll_is_neighbor(CS_COLL_COUNT), 0);
    ck_assert_int_eq(cs_coll_is_cached(CS_COLL_COUNT), 0);
}
END_TEST

TCase *core_tcase_coll(void) {
    TCase *tc = tcase_create("coll");
    tcase_add_test(tc, test_coll_names);
    tcase_add_test(tc, test_coll_flags);
    return tc;
}

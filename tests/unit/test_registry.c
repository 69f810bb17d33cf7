/* Unit tests for the algorithm registry: naming invariants, natives, lookup, and the golden list
 * of algorithm keys (tests/data/algorithm_names.txt). No MPI is called.
 *
 * Renaming an algorithm breaks test_golden_list on purpose: keys are database keys, so a rename
 * is a deliberate change to registry.def, the golden list and a database migration. */
#include "core/algo.h"
#include "registry.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CS_ALGORITHM_NAMES
#error "CS_ALGORITHM_NAMES must name tests/data/algorithm_names.txt"
#endif

#define MAX_NAMES    1024
#define MAX_NAME_LEN 256

/* 1 if `s` is lowercase snake_case: [a-z][a-z0-9]*(_[a-z0-9]+)*. */
static int is_snake_case(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || s[0] < 'a' || s[0] > 'z' || s[n - 1] == '_') {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        int lower = s[i] >= 'a' && s[i] <= 'z';
        int digit = s[i] >= '0' && s[i] <= '9';
        if (s[i] == '_') {
            if (s[i + 1] == '_') {
                return 0;
            }
        } else if (!lower && !digit) {
            return 0;
        }
    }
    return 1;
}

START_TEST(test_snake_case_helper) {
    ck_assert_int_eq(is_snake_case("ring"), 1);
    ck_assert_int_eq(is_snake_case("recursive_doubling"), 1);
    ck_assert_int_eq(is_snake_case("radix4"), 1);
    ck_assert_int_eq(is_snake_case(""), 0);
    ck_assert_int_eq(is_snake_case("Ring"), 0);
    ck_assert_int_eq(is_snake_case("_ring"), 0);
    ck_assert_int_eq(is_snake_case("ring_"), 0);
    ck_assert_int_eq(is_snake_case("a__b"), 0);
    ck_assert_int_eq(is_snake_case("scatter-allgather"), 0);
    ck_assert_int_eq(is_snake_case("2d"), 0);
}
END_TEST

START_TEST(test_registry_not_empty) {
    ck_assert_int_gt(cs_registry_count, 0);
    for (int i = 0; i < cs_registry_count; i++) {
        ck_assert_ptr_nonnull(cs_registry[i]);
        ck_assert_ptr_nonnull(cs_registry[i]->name);
    }
}
END_TEST

START_TEST(test_names_unique) {
    for (int i = 0; i < cs_registry_count; i++) {
        for (int j = 0; j < i; j++) {
            ck_assert_msg(strcmp(cs_registry[i]->name, cs_registry[j]->name) != 0,
                          "'%s' registered twice (entries %d and %d)", cs_registry[i]->name, j, i);
            ck_assert_msg(cs_registry[i] != cs_registry[j], "descriptor of '%s' registered twice",
                          cs_registry[i]->name);
        }
    }
}
END_TEST

/* "<coll>/<alg>" with coll == cs_coll_name(algo->coll) and alg lowercase snake_case. */
START_TEST(test_name_form) {
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        const char *coll = cs_coll_name(a->coll);
        const char *slash = strchr(a->name, '/');
        ck_assert_msg(coll != NULL, "'%s': invalid collective %d", a->name, (int)a->coll);
        ck_assert_msg(slash != NULL, "'%s' has no '/'", a->name);
        ck_assert_msg(strchr(slash + 1, '/') == NULL, "'%s' has two '/'", a->name);
        ck_assert_msg(strlen(coll) == (size_t)(slash - a->name) &&
                          strncmp(a->name, coll, strlen(coll)) == 0,
                      "'%s' is registered for collective '%s'", a->name, coll);
        ck_assert_msg(is_snake_case(slash + 1), "'%s': algorithm part is not snake_case", a->name);
        ck_assert_int_lt((int)strlen(a->name), MAX_NAME_LEN);
    }
}
END_TEST

START_TEST(test_desc_and_entry_points) {
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        ck_assert_msg(a->desc != NULL && a->desc[0] != '\0', "'%s' has no description", a->name);
        ck_assert_msg(strchr(a->desc, '\n') == NULL, "'%s': description is not one line", a->name);
        ck_assert_msg((a->build != NULL) != (a->run != NULL),
                      "'%s' must set exactly one of build and run", a->name);
        ck_assert_msg((a->reqs & ~(unsigned)(CS_REQ_COMMUTATIVE | CS_REQ_POW2 | CS_REQ_NODES |
                                             CS_REQ_TRUE_LB0 | CS_REQ_ALLCOUNTS)) == 0,
                      "'%s' declares unknown requirements 0x%x", a->name, a->reqs);
        ck_assert_msg(!(a->reqs & CS_REQ_ALLCOUNTS) || a->coll == CS_COLL_GATHERV ||
                          a->coll == CS_COLL_SCATTERV,
                      "'%s' needs agreed counts, which only gatherv and scatterv calls have",
                      a->name);
    }
}
END_TEST

/* Every collective has exactly one native algorithm, the one with run set, named
 * "<coll>/native", and cs_registry_native returns it. */
START_TEST(test_one_native_per_coll) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        const cs_algo_t *native = NULL;
        char expect[MAX_NAME_LEN];
        int n = 0;
        snprintf(expect, sizeof(expect), "%s/native", cs_coll_name((cs_coll_t)c));
        for (int i = 0; i < cs_registry_count; i++) {
            const cs_algo_t *a = cs_registry[i];
            if (a->coll == (cs_coll_t)c && cs_algo_is_native(a)) {
                native = a;
                n++;
            }
            if (strcmp(a->name, expect) == 0) {
                ck_assert_msg(cs_algo_is_native(a) && a->run != NULL,
                              "'%s' is not a native (run) algorithm", a->name);
            }
        }
        ck_assert_msg(n == 1, "%s: %d native algorithms", cs_coll_name((cs_coll_t)c), n);
        ck_assert_str_eq(native->name, expect);
        ck_assert_ptr_eq(cs_registry_native((cs_coll_t)c), native);
    }
    ck_assert_ptr_null(cs_registry_native(CS_COLL_COUNT));
}
END_TEST

START_TEST(test_find) {
    for (int i = 0; i < cs_registry_count; i++) {
        char copy[MAX_NAME_LEN];
        ck_assert_ptr_eq(cs_registry_find(cs_registry[i]->name), cs_registry[i]);
        /* found by content, not by pointer */
        snprintf(copy, sizeof(copy), "%s", cs_registry[i]->name);
        ck_assert_ptr_eq(cs_registry_find(copy), cs_registry[i]);
    }
    ck_assert_ptr_null(cs_registry_find("allreduce/rign"));
    ck_assert_ptr_null(cs_registry_find("allreduce/"));
    ck_assert_ptr_null(cs_registry_find("allreduce"));
    ck_assert_ptr_null(cs_registry_find(""));
    ck_assert_ptr_null(cs_registry_find("Allreduce/native"));
    ck_assert_ptr_null(cs_registry_find("allreduce/native "));
    ck_assert_ptr_null(cs_registry_find("alltoallw/native"));
}
END_TEST

/* Reads the golden list: one key per line; blank lines are not allowed. */
static int read_names(const char *path, char names[][MAX_NAME_LEN], int max) {
    FILE *f = fopen(path, "r");
    char line[MAX_NAME_LEN + 2];
    int n = 0;
    ck_assert_msg(f != NULL, "cannot open %s", path);
    while (fgets(line, sizeof(line), f) != NULL) {
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\n') {
            line[--len] = '\0';
        }
        if (len > 0 && line[len - 1] == '\r') {
            line[--len] = '\0';
        }
        ck_assert_msg(len < MAX_NAME_LEN, "%s:%d: line too long", path, n + 1);
        ck_assert_msg(n < max, "%s: more than %d lines", path, max);
        memcpy(names[n], line, len + 1);
        n++;
    }
    fclose(f);
    return n;
}

START_TEST(test_golden_list) {
    static char names[MAX_NAMES][MAX_NAME_LEN];
    int n = read_names(CS_ALGORITHM_NAMES, names, MAX_NAMES);
    int common = n < cs_registry_count ? n : cs_registry_count;
    for (int i = 0; i < common; i++) {
        ck_assert_msg(strcmp(names[i], cs_registry[i]->name) == 0,
                      "entry %d: registry has '%s', %s has '%s'", i, cs_registry[i]->name,
                      CS_ALGORITHM_NAMES, names[i]);
    }
    ck_assert_msg(n == cs_registry_count, "%s has %d names, the registry %d (first extra: '%s')",
                  CS_ALGORITHM_NAMES, n, cs_registry_count,
                  n > cs_registry_count ? names[common] : cs_registry[common]->name);
}
END_TEST

/* cs_registry_find_phase: point-to-point algorithms without per-communicator state only. */
START_TEST(test_find_phase) {
    const cs_algo_t *rd = cs_registry_find_phase(CS_COLL_ALLREDUCE, "recursive_doubling");
    ck_assert_ptr_nonnull(rd);
    ck_assert_str_eq(rd->name, "allreduce/recursive_doubling");
    ck_assert_ptr_null(cs_registry_find_phase(CS_COLL_ALLREDUCE, "native")); /* no builder */
    ck_assert_ptr_null(cs_registry_find_phase(CS_COLL_ALLREDUCE, "dpml"));   /* has setup */
    ck_assert_ptr_null(cs_registry_find_phase(CS_COLL_ALLREDUCE, "orth"));   /* has setup */
    ck_assert_ptr_null(cs_registry_find_phase(CS_COLL_ALLREDUCE, "bogus"));
    ck_assert_ptr_null(cs_registry_find_phase(CS_COLL_BCAST, "recursive_doubling"));
    ck_assert_ptr_null(cs_registry_find_phase(CS_COLL_ALLREDUCE, NULL));
    ck_assert_ptr_null(cs_registry_find_phase(CS_COLL_ALLREDUCE,
                                              "a_name_far_too_long_for_any_key_of_this_registry_"
                                              "at_all_really"));
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        const char *alg = strchr(a->name, '/') + 1;
        ck_assert_ptr_eq(cs_registry_find_phase(a->coll, alg),
                         a->build != NULL && a->setup == NULL ? a : NULL);
    }
}
END_TEST

/* cs_algo_applicable: wrong collective and each declared requirement. */
START_TEST(test_applicable) {
    static const cs_algo_t any = {
        .name = "allreduce/test_any", .coll = CS_COLL_ALLREDUCE, .desc = "test", .reqs = 0};
    static const cs_algo_t comm = {.name = "allreduce/test_comm",
                                   .coll = CS_COLL_ALLREDUCE,
                                   .desc = "test",
                                   .reqs = CS_REQ_COMMUTATIVE};
    static const cs_algo_t pow2 = {.name = "allreduce/test_pow2",
                                   .coll = CS_COLL_ALLREDUCE,
                                   .desc = "test",
                                   .reqs = CS_REQ_POW2};
    cs_call_t c;
    memset(&c, 0, sizeof(c));
    c.coll = CS_COLL_ALLREDUCE;
    c.nprocs = 4;
    c.commutative = 1;
    ck_assert_int_eq(cs_algo_applicable(&any, &c), CS_OK);
    ck_assert_int_eq(cs_algo_applicable(&comm, &c), CS_OK);
    ck_assert_int_eq(cs_algo_applicable(&pow2, &c), CS_OK);
    c.commutative = 0;
    c.nprocs = 6;
    ck_assert_int_eq(cs_algo_applicable(&any, &c), CS_OK);
    ck_assert_int_eq(cs_algo_applicable(&comm, &c), CS_ERR_NOT_APPLICABLE);
    ck_assert_int_eq(cs_algo_applicable(&pow2, &c), CS_ERR_NOT_APPLICABLE);
    c.nprocs = 1;
    ck_assert_int_eq(cs_algo_applicable(&pow2, &c), CS_OK);
    c.coll = CS_COLL_REDUCE;
    ck_assert_int_eq(cs_algo_applicable(&any, &c), CS_ERR_NOT_APPLICABLE);
    /* every registered algorithm refuses a call of another collective; one that needs the
     * agreed counts refuses a call without them */
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        static const int counts[4] = {1, 0, 2, 3};
        c.coll = (cs_coll_t)((a->coll + 1) % CS_COLL_COUNT);
        c.nprocs = 4;
        c.commutative = 1;
        c.allcounts = NULL;
        ck_assert_int_eq(cs_algo_applicable(a, &c), CS_ERR_NOT_APPLICABLE);
        c.coll = a->coll;
        ck_assert_int_eq(cs_algo_applicable(a, &c),
                         (a->reqs & CS_REQ_ALLCOUNTS) ? CS_ERR_NOT_APPLICABLE : CS_OK);
        c.allcounts = counts;
        ck_assert_int_eq(cs_algo_applicable(a, &c), CS_OK);
    }
}
END_TEST

static Suite *registry_suite(void) {
    Suite *s = suite_create("registry");
    TCase *tc = tcase_create("invariants");
    tcase_add_test(tc, test_snake_case_helper);
    tcase_add_test(tc, test_registry_not_empty);
    tcase_add_test(tc, test_names_unique);
    tcase_add_test(tc, test_name_form);
    tcase_add_test(tc, test_desc_and_entry_points);
    tcase_add_test(tc, test_one_native_per_coll);
    tcase_add_test(tc, test_find);
    tcase_add_test(tc, test_golden_list);
    tcase_add_test(tc, test_find_phase);
    tcase_add_test(tc, test_applicable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(registry_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

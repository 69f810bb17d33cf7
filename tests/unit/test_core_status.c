/* test_core: status codes (core/status.def, cs_status_name, cs_status_fail). */
#include "core/status.h"
#include "test_core.h"

#include <stdint.h>
#include <string.h>

/* ---- status codes ------------------------------------------------------------------------- */

static const struct {
    int value;
    const char *name;
} statuses[] = {
#define CS_STATUS(name, value, message) {value, #name},
#include "core/status.def"
#undef CS_STATUS
};
#define NSTATUSES ((int)(sizeof(statuses) / sizeof(statuses[0])))

START_TEST(test_status_names) {
    ck_assert_int_eq(CS_OK, 0);
    ck_assert_int_gt(CS_INPROGRESS, 0);
    ck_assert_int_lt(CS_ERR_NOT_APPLICABLE, 0);
    ck_assert_int_lt(CS_ERR_MPI, 0);
    ck_assert_int_lt(CS_ERR_DB, 0);
    ck_assert_int_lt(CS_ERR_NOMEM, 0);
    ck_assert_int_lt(CS_ERR_ARG, 0);
    for (int i = 0; i < NSTATUSES; i++) {
        const char *name = cs_status_name(statuses[i].value);
        const char *msg = cs_status_str(statuses[i].value);
        ck_assert_ptr_nonnull(name);
        ck_assert_ptr_nonnull(msg);
        ck_assert_str_eq(name, statuses[i].name);
        ck_assert_int_gt((int)strlen(msg), 0);
        ck_assert_str_ne(msg, "unknown status");
        ck_assert_str_ne(name, "CS_UNKNOWN");
        for (int j = 0; j < i; j++) {
            ck_assert_int_ne(statuses[i].value, statuses[j].value);
            ck_assert_str_ne(name, cs_status_name(statuses[j].value));
            ck_assert_str_ne(msg, cs_status_str(statuses[j].value));
        }
    }
    ck_assert_str_eq(cs_status_name(CS_ERR_MPI), "CS_ERR_MPI");
    ck_assert_str_eq(cs_status_str(CS_OK), "success");
}
END_TEST

START_TEST(test_status_unknown) {
    const int unknown[] = {12345, -12345, 99, -99, INT32_MIN, INT32_MAX};
    for (int i = 0; i < (int)(sizeof(unknown) / sizeof(unknown[0])); i++) {
        ck_assert_str_eq(cs_status_str(unknown[i]), "unknown status");
        ck_assert_str_eq(cs_status_name(unknown[i]), "CS_UNKNOWN");
    }
    ck_assert_int_eq(cs_status_fail(__FILE__, __LINE__, "test", CS_ERR_ARG), CS_ERR_ARG);
}
END_TEST

TCase *core_tcase_status(void) {
    TCase *tc = tcase_create("status");
    tcase_add_test(tc, test_status_names);
    tcase_add_test(tc, test_status_unknown);
    return tc;
}

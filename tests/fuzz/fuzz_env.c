/* Fuzz target: the environment (cs_sel_env_parse: COLLSEL_DISABLE, COLLSEL_FALLBACK,
 * COLLSEL_FORCE, COLLSEL_DB, COLLSEL_PROGRESS; cs_log_parse_level: COLLSEL_VERBOSE;
 * cs_machine_parse_node_size: COLLSEL_NODE_SIZE). The input is split at newlines into the
 * variables' values (one byte first says which are set at all); they are set, parsed, checked and
 * unset. A value is taken exactly or ignored: never a part of it. */
#define _XOPEN_SOURCE 700 /* putenv */

#include "core/log.h"
#include "core/machine.h"
#include "select.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"COLLSEL_DISABLE", "COLLSEL_FALLBACK", "COLLSEL_FORCE",
                                    "COLLSEL_DB",      "COLLSEL_VERBOSE",  "COLLSEL_NODE_SIZE",
                                    "COLLSEL_PROGRESS"};
#define NVARS ((int)(sizeof(names) / sizeof(names[0])))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *copy, *value[NVARS] = {NULL};
    cs_sel_env_t env;
    unsigned set;
    size_t at = 1;
    int level = -1;
    long k = -1;
    if (size == 0) {
        return 0;
    }
    set = data[0];
    copy = malloc(size);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data + 1, size - 1);
    copy[size - 1] = '\0';
    /* NUL bytes end a value early, as they would in a real environment */
    for (int i = 0; i < NVARS && at <= size; i++) {
        char *s = copy + (at - 1);
        char *nl = strchr(s, '\n');
        value[i] = s;
        if (nl != NULL) {
            *nl = '\0';
            at += (size_t)(nl - s) + 1;
        } else {
            at = size + 1;
        }
    }
    /* putenv with buffers of our own: glibc's setenv keeps every value it was ever given (so
     * that old getenv results stay valid), which millions of runs turn into gigabytes */
    for (int i = 0; i < NVARS; i++) {
        static char entry[NVARS][16384];
        unsetenv(names[i]);
        if ((set >> i & 1) && value[i] != NULL) {
            snprintf(entry[i], sizeof(entry[i]), "%s=%s", names[i], value[i]);
            putenv(entry[i]);
        }
    }
    cs_sel_env_parse(&env, set >> 7 & 1);
    if (env.disable != 0 && env.disable != 1) {
        abort();
    }
    if (env.fallback < CS_FALLBACK_SILENT || env.fallback > CS_FALLBACK_ERROR) {
        abort();
    }
    if (memchr(env.db, '\0', sizeof(env.db)) == NULL) {
        abort();
    }
    /* COLLSEL_DB: the whole path or none of it */
    if (env.db[0] != '\0' &&
        (getenv("COLLSEL_DB") == NULL || strcmp(env.db, getenv("COLLSEL_DB")) != 0)) {
        abort();
    }
    /* COLLSEL_PROGRESS: the thread exactly for "thread" */
    if (env.progress_thread !=
        (getenv("COLLSEL_PROGRESS") != NULL && strcmp(getenv("COLLSEL_PROGRESS"), "thread") == 0)) {
        abort();
    }
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (env.force[c].algo != NULL && env.force[c].algo->coll != (cs_coll_t)c) {
            abort();
        }
    }
    if (cs_log_parse_level(getenv("COLLSEL_VERBOSE"), &level) && (level < 0 || level > 3)) {
        abort();
    }
    if (cs_machine_parse_node_size(getenv("COLLSEL_NODE_SIZE"), &k) && k < 1) {
        abort();
    }
    for (int i = 0; i < NVARS; i++) {
        unsetenv(names[i]);
    }
    free(copy);
    return 0;
}

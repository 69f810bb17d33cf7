/* Fuzz target: COLLSEL_FORCE (cs_sel_parse_force) on any text. Accepted text forces, per
 * collective, an algorithm of that collective whose name and parameters read back the same;
 * the error message is always a terminated string, also in a short buffer. */
#include "registry.h"
#include "select.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    cs_variant_t force[CS_COLL_COUNT];
    char err[512], tiny[8];
    int rc;
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    memset(force, 0, sizeof(force));
    memset(err, 'x', sizeof(err));
    rc = cs_sel_parse_force(text, force, err, sizeof(err));
    if (rc != CS_OK) {
        if (rc != CS_ERR_ARG || memchr(err, '\0', sizeof(err)) == NULL ||
            strncmp(err, "COLLSEL_FORCE", 13) != 0) {
            abort();
        }
    }
    for (int c = 0; rc == CS_OK && c < CS_COLL_COUNT; c++) {
        cs_variant_t again[CS_COLL_COUNT];
        char name[512];
        if (force[c].algo == NULL) {
            continue;
        }
        if (force[c].algo->coll != (cs_coll_t)c ||
            cs_registry_find(force[c].algo->name) != force[c].algo) {
            abort();
        }
        /* the variant's name parses back to the same variant */
        cs_variant_name(&force[c], name, sizeof(name));
        memset(again, 0, sizeof(again));
        if (cs_sel_parse_force(name, again, err, sizeof(err)) != CS_OK ||
            again[c].algo != force[c].algo ||
            !cs_params_equal(&again[c].params, &force[c].params)) {
            abort();
        }
    }
    memset(force, 0, sizeof(force));
    rc = cs_sel_parse_force(text, force, tiny, sizeof(tiny));
    if (rc != CS_OK && memchr(tiny, '\0', sizeof(tiny)) == NULL) {
        abort();
    }
    free(text);
    return 0;
}

/* The registry table, generated from registry.def (see registry.h). */
#include "registry.h"

#include <string.h>

#define CS_ALGO(id) extern const cs_algo_t cs_algo_##id;
#include "registry.def"
#undef CS_ALGO

const cs_algo_t *const cs_registry[] = {
#define CS_ALGO(id) &cs_algo_##id,
#include "registry.def"
#undef CS_ALGO
};

const int cs_registry_count = (int)(sizeof(cs_registry) / sizeof(cs_registry[0]));

const cs_algo_t *cs_registry_find(const char *name) {
    for (int i = 0; i < cs_registry_count; i++) {
        if (strcmp(cs_registry[i]->name, name) == 0) {
            return cs_registry[i];
        }
    }
    return NULL;
}

const cs_algo_t *cs_registry_native(cs_coll_t coll) {
    for (int i = 0; i < cs_registry_count; i++) {
        if (cs_registry[i]->coll == coll && cs_registry[i]->run != NULL) {
            return cs_registry[i];
        }
    }
    return NULL;
}

/* The registry table, generated from registry.def (see registry.h). */
#include "registry.h"

#include <stdio.h>
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

const cs_algo_t *cs_registry_find_phase(cs_coll_t coll, const char *alg) {
    char key[64];
    const cs_algo_t *a;
    const char *cname = cs_coll_name(coll);
    if (cname == NULL || alg == NULL ||
        snprintf(key, sizeof(key), "%s/%s", cname, alg) >= (int)sizeof(key)) {
        return NULL;
    }
    a = cs_registry_find(key);
    return a != NULL && cs_algo_is_phase(a) ? a : NULL;
}

const cs_algo_t *cs_registry_native(cs_coll_t coll) {
    for (int i = 0; i < cs_registry_count; i++) {
        if (cs_registry[i]->coll == coll && cs_algo_is_native(cs_registry[i])) {
            return cs_registry[i];
        }
    }
    return NULL;
}

int cs_variant_parse(const char *text, cs_variant_t *out, char *err, size_t errlen) {
    char name[128], params[256] = "";
    const char *paren = strchr(text, '(');
    size_t len = paren != NULL ? (size_t)(paren - text) : strlen(text);
    char why[256];
    if (len >= sizeof(name)) {
        snprintf(err, errlen, "'%.40s...' is too long", text);
        return CS_ERR_ARG;
    }
    memcpy(name, text, len);
    name[len] = '\0';
    if (paren != NULL) {
        size_t plen = strlen(paren + 1);
        if (plen == 0 || paren[plen] != ')' || plen >= sizeof(params)) {
            snprintf(err, errlen, "'%s' lacks a closing ')'", text);
            return CS_ERR_ARG;
        }
        memcpy(params, paren + 1, plen - 1);
        params[plen - 1] = '\0';
    }
    out->algo = cs_registry_find(name);
    if (out->algo == NULL) {
        snprintf(err, errlen, "unknown algorithm '%s' (see collsel-bench --list)", name);
        return CS_ERR_ARG;
    }
    if (cs_params_parse(out->algo->params, out->algo->nparams, params, &out->params, why,
                        sizeof(why)) != CS_OK) {
        snprintf(err, errlen, "%s: %s", name, why);
        return CS_ERR_ARG;
    }
    return CS_OK;
}

/* Fuzz target: the variant parser (cs_variant_parse, `<coll>/<alg>(key=value,...)`) and the
 * parameter parser (cs_params_parse, "key=value,...") against every algorithm's declared
 * parameters, and the value parsers the algorithms apply (cs_params_get_int, and
 * cs_topo_dims_parse for `dims=2x4`). Input: one byte choosing the algorithm whose parameters
 * are parsed, then the text. Accepted parameters hold every declared key once, sorted, with
 * non-empty values that fit, and format and parse back to the same set; parsed dimensions
 * are each >= 2 with a product that fits an int. */
#include "registry.h"
#include "select.h"
#include "topo/topo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The invariants of an accepted parameter set of `a`. */
static void check_params(const cs_algo_t *a, const cs_params_t *p) {
    char text[CS_RULE_PARAMS + 64], err[256];
    cs_params_t again;
    if (p->n != (a->nparams < CS_MAX_PARAMS ? a->nparams : CS_MAX_PARAMS)) {
        abort();
    }
    for (int i = 0; i < p->n; i++) {
        if (memchr(p->key[i], '\0', CS_PARAM_KEY) == NULL ||
            memchr(p->value[i], '\0', CS_PARAM_VALUE) == NULL || p->value[i][0] == '\0' ||
            (i > 0 && strcmp(p->key[i - 1], p->key[i]) >= 0)) {
            abort();
        }
    }
    for (int i = 0; i < p->n; i++) {
        int x;
        (void)cs_params_get_int(p, p->key[i], &x);
    }
    cs_params_format(p, text, sizeof(text));
    if (strlen(text) >= CS_RULE_PARAMS) {
        abort();
    }
    if (cs_params_parse(a->params, a->nparams, text, &again, err, sizeof(err)) != CS_OK ||
        !cs_params_equal(&again, p)) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const cs_algo_t *a;
    cs_variant_t v;
    cs_params_t p;
    char err[512], tiny[4];
    char *text;
    if (size == 0) {
        return 0;
    }
    a = cs_registry[data[0] % cs_registry_count];
    text = malloc(size);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if (cs_variant_parse(text, &v, err, sizeof(err)) == CS_OK) {
        if (v.algo == NULL || cs_registry_find(v.algo->name) != v.algo) {
            abort();
        }
        check_params(v.algo, &v.params);
    } else if (memchr(err, '\0', sizeof(err)) == NULL) {
        abort();
    }
    (void)cs_variant_parse(text, &v, tiny, sizeof(tiny));
    {
        int dims[CS_TOPO_MAX_DIMS];
        int nd = cs_topo_dims_parse(text, dims, CS_TOPO_MAX_DIMS);
        long product = 1;
        if (nd == 0 || nd < -1 || nd > CS_TOPO_MAX_DIMS) {
            abort();
        }
        for (int i = 0; i < nd; i++) {
            if (dims[i] < 2) {
                abort();
            }
            product *= dims[i];
        }
        if (product > 2147483647L) {
            abort();
        }
    }
    if (cs_params_parse(a->params, a->nparams, text, &p, err, sizeof(err)) == CS_OK) {
        check_params(a, &p);
    } else if (memchr(err, '\0', sizeof(err)) == NULL) {
        abort();
    }
    if (cs_params_parse(a->params, a->nparams, text, &p, tiny, sizeof(tiny)) != CS_OK &&
        memchr(tiny, '\0', sizeof(tiny)) == NULL) {
        abort();
    }
    free(text);
    return 0;
}

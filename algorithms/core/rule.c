/* The rule type (rule.h). */
#include "rule.h"

#include <string.h>

int cs_rule_set_variant(cs_rule_t *r, const char *algorithm, const char *params) {
    size_t na = algorithm != NULL ? strlen(algorithm) : 0;
    size_t np = params != NULL ? strlen(params) : 0;
    r->algorithm[0] = '\0';
    r->params[0] = '\0';
    if (algorithm == NULL || na >= sizeof(r->algorithm) || np >= sizeof(r->params)) {
        return CS_ERR_ARG;
    }
    memcpy(r->algorithm, algorithm, na + 1);
    if (params != NULL) {
        memcpy(r->params, params, np + 1);
    }
    return CS_OK;
}

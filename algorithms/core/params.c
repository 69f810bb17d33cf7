/* Algorithm parameters (see params.h). */
#include "params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find(const cs_params_t *p, const char *key) {
    for (int i = 0; i < p->n; i++) {
        if (strcmp(p->key[i], key) == 0) {
            return i;
        }
    }
    return -1;
}

/* Keeps keys sorted (insertion: at most CS_MAX_PARAMS). */
static void sort(cs_params_t *p) {
    for (int i = 1; i < p->n; i++) {
        for (int j = i; j > 0 && strcmp(p->key[j - 1], p->key[j]) > 0; j--) {
            char k[CS_PARAM_KEY], v[CS_PARAM_VALUE];
            memcpy(k, p->key[j], sizeof(k));
            memcpy(v, p->value[j], sizeof(v));
            memcpy(p->key[j], p->key[j - 1], sizeof(k));
            memcpy(p->value[j], p->value[j - 1], sizeof(v));
            memcpy(p->key[j - 1], k, sizeof(k));
            memcpy(p->value[j - 1], v, sizeof(v));
        }
    }
}

void cs_params_defaults(const cs_param_spec_t *specs, int nspecs, cs_params_t *out) {
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < nspecs && i < CS_MAX_PARAMS; i++) {
        snprintf(out->key[i], CS_PARAM_KEY, "%s", specs[i].key);
        snprintf(out->value[i], CS_PARAM_VALUE, "%s", specs[i].def);
    }
    out->n = nspecs < CS_MAX_PARAMS ? nspecs : CS_MAX_PARAMS;
    sort(out);
}

int cs_params_set(cs_params_t *p, const char *key, const char *value) {
    int i = find(p, key);
    if (i < 0 || strlen(value) >= CS_PARAM_VALUE || value[0] == '\0') {
        return CS_ERR_ARG;
    }
    memset(p->value[i], 0, CS_PARAM_VALUE);
    memcpy(p->value[i], value, strlen(value));
    return CS_OK;
}

int cs_params_parse(const cs_param_spec_t *specs, int nspecs, const char *text, cs_params_t *out,
                    char *err, size_t errlen) {
    char seen[CS_MAX_PARAMS] = {0};
    const char *s = text;
    cs_params_defaults(specs, nspecs, out);
    while (s != NULL && *s != '\0') {
        char item[CS_PARAM_KEY + CS_PARAM_VALUE + 2];
        size_t len = strcspn(s, ",");
        char *eq;
        int i;
        if (len >= sizeof(item)) {
            snprintf(err, errlen, "parameter '%.*s' is too long", (int)(len > 40 ? 40 : len), s);
            return CS_ERR_ARG;
        }
        memcpy(item, s, len);
        item[len] = '\0';
        s += len + (s[len] == ',');
        eq = strchr(item, '=');
        if (eq == NULL || eq == item || eq[1] == '\0') {
            snprintf(err, errlen, "parameter '%s' is not key=value", item);
            return CS_ERR_ARG;
        }
        *eq = '\0';
        i = find(out, item);
        if (i < 0) {
            size_t used = (size_t)snprintf(err, errlen, "unknown parameter '%s' (takes", item);
            for (int k = 0; k < nspecs && used < errlen; k++) {
                used += (size_t)snprintf(err + used, errlen - used, " %s", specs[k].key);
            }
            if (used < errlen) {
                snprintf(err + used, errlen - used, "%s)", nspecs == 0 ? " none" : "");
            }
            return CS_ERR_ARG;
        }
        if (seen[i]) {
            snprintf(err, errlen, "parameter '%s' given twice", item);
            return CS_ERR_ARG;
        }
        seen[i] = 1;
        if (cs_params_set(out, item, eq + 1) != CS_OK) {
            snprintf(err, errlen, "value '%s' of parameter '%s' is too long", eq + 1, item);
            return CS_ERR_ARG;
        }
    }
    return CS_OK;
}

void cs_params_format(const cs_params_t *p, char *buf, size_t len) {
    size_t used = 0;
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    for (int i = 0; i < p->n && used < len; i++) {
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? "," : "", p->key[i],
                                 p->value[i]);
    }
}

const char *cs_params_get(const cs_params_t *p, const char *key) {
    int i = find(p, key);
    return i < 0 ? NULL : p->value[i];
}

int cs_params_get_int(const cs_params_t *p, const char *key, int *out) {
    const char *v = cs_params_get(p, key);
    char *end = NULL;
    long x;
    if (v == NULL) {
        return CS_ERR_ARG;
    }
    x = strtol(v, &end, 10);
    if (*end != '\0' || end == v || x < -2147483647L || x > 2147483647L) {
        return CS_ERR_ARG;
    }
    *out = (int)x;
    return CS_OK;
}

int cs_params_equal(const cs_params_t *a, const cs_params_t *b) {
    return memcmp(a, b, sizeof(*a)) == 0;
}

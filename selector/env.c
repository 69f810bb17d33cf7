/* The selector's environment variables (see select.h and collsel.h). */
#include "select.h"

#include "core/log.h"
#include "registry.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define complain(report, ...)                                                                      \
    do {                                                                                           \
        if (report) {                                                                              \
            cs_log_complain(__VA_ARGS__);                                                          \
        }                                                                                          \
    } while (0)

int cs_sel_parse_force(const char *text, cs_variant_t force[CS_COLL_COUNT], char *err,
                       size_t errlen) {
    const char *s = text;
    while (*s != '\0') {
        char entry[256];
        size_t len = strcspn(s, ";");
        cs_variant_t v;
        if (len == 0) {
            s++;
            continue;
        }
        if (len >= sizeof(entry)) {
            snprintf(err, errlen, "COLLSEL_FORCE: entry '%.40s...' is too long", s);
            return CS_ERR_ARG;
        }
        memcpy(entry, s, len);
        entry[len] = '\0';
        s += len;
        if (cs_variant_parse(entry, &v, err, errlen) != CS_OK) {
            char why[512];
            snprintf(why, sizeof(why), "%s", err);
            snprintf(err, errlen, "COLLSEL_FORCE: %s", why);
            return CS_ERR_ARG;
        }
        force[v.algo->coll] = v;
    }
    return CS_OK;
}

void cs_sel_env_parse(cs_sel_env_t *env, int report) {
    const char *v;
    char err[512];
    memset(env, 0, sizeof(*env));
    env->verbose = cs_log_level(); /* COLLSEL_VERBOSE, reported there when bad */
    v = getenv("COLLSEL_DISABLE");
    if (v != NULL && *v != '\0') {
        if (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0) {
            env->disable = 1;
        } else if (strcmp(v, "0") != 0 && strcmp(v, "no") != 0 && strcmp(v, "false") != 0) {
            complain(report, "COLLSEL_DISABLE: bad value '%s' (use 1 or 0); ignored", v);
        }
    }
    v = getenv("COLLSEL_FALLBACK");
    if (v != NULL && *v != '\0') {
        if (strcmp(v, "silent") == 0) {
            env->fallback = CS_FALLBACK_SILENT;
        } else if (strcmp(v, "warn") == 0) {
            env->fallback = CS_FALLBACK_WARN;
        } else if (strcmp(v, "error") == 0) {
            env->fallback = CS_FALLBACK_ERROR;
        } else {
            complain(report,
                     "COLLSEL_FALLBACK: bad value '%s' (use silent, warn or error); ignored", v);
        }
    }
    v = getenv("COLLSEL_FORCE");
    if (v != NULL && *v != '\0') {
        cs_variant_t force[CS_COLL_COUNT];
        memset(force, 0, sizeof(force));
        if (cs_sel_parse_force(v, force, err, sizeof(err)) != CS_OK) {
            complain(report, "%s; COLLSEL_FORCE ignored", err);
        } else {
            memcpy(env->force, force, sizeof(force));
        }
    }
    env->warmup = CS_SEL_WARMUP_DEFAULT;
    v = getenv("COLLSEL_WARMUP");
    if (v != NULL && *v != '\0') {
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (end != v && *end == '\0' && n >= 0 && n <= 1000000) {
            env->warmup = n > 0 ? (int)n : 1;
        } else {
            complain(report,
                     "COLLSEL_WARMUP: bad value '%s' (use a count from 0 to 1000000); "
                     "ignored",
                     v);
        }
    }
    v = getenv("COLLSEL_PROGRESS");
    if (v != NULL && *v != '\0') {
        if (strcmp(v, "thread") == 0) {
            env->progress_thread = 1;
        } else if (strcmp(v, "calls") != 0) {
            complain(report, "COLLSEL_PROGRESS: bad value '%s' (use calls or thread); ignored", v);
        }
    }
    v = getenv("COLLSEL_DB");
    if (v != NULL && *v != '\0') {
        /* a path cut short would name another file */
        if (strlen(v) >= sizeof(env->db)) {
            complain(report, "COLLSEL_DB: path '%.40s...' longer than %zu bytes; ignored", v,
                     sizeof(env->db) - 1);
        } else {
            snprintf(env->db, sizeof(env->db), "%s", v);
        }
    }
}

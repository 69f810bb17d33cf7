/* Logging to stderr, filtered by COLLSEL_VERBOSE. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int level = -1;

int cs_log_level(void) {
    if (level < 0) {
        const char *env = getenv("COLLSEL_VERBOSE");
        level = 0;
        if (env != NULL && *env != '\0') {
            char *end = NULL;
            long v = strtol(env, &end, 10);
            if (*end != '\0' || v < 0 || v > 3) {
                fprintf(stderr, "collsel: COLLSEL_VERBOSE: bad value '%s' (use 0..3); ignored\n",
                        env);
            } else {
                level = (int)v;
            }
        }
    }
    return level;
}

void cs_log_set_level(int new_level) {
    level = new_level < 0 ? 0 : new_level;
}

void cs_log(int msg_level, const char *fmt, ...) {
    if (cs_log_level() < msg_level) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("collsel: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

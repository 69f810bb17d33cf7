/* Logging to stderr, filtered by COLLSEL_VERBOSE. */
#include "log.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int level = -1;

int cs_log_world_root(void) {
    int init = 0, fin = 0, rank = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (init && !fin) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    return rank == 0;
}

int cs_log_parse_level(const char *text, int *out) {
    char *end = NULL;
    long v;
    if (text == NULL || *text == '\0') {
        return 0;
    }
    v = strtol(text, &end, 10);
    if (*end != '\0' || v < 0 || v > 3) {
        return 0;
    }
    *out = (int)v;
    return 1;
}

int cs_log_level(void) {
    if (level < 0) {
        const char *env = getenv("COLLSEL_VERBOSE");
        int v = 0;
        level = 0;
        if (env != NULL && *env != '\0') {
            if (!cs_log_parse_level(env, &v)) {
                cs_log_complain("COLLSEL_VERBOSE: bad value '%s' (use 0..3); ignored", env);
            } else {
                level = v;
            }
        }
    }
    return level;
}

void cs_log_set_level(int new_level) {
    level = new_level < 0 ? 0 : new_level;
}

/* One line in one write, so lines of several ranks do not interleave under mpirun. */
static void vline(const char *fmt, va_list ap) {
    char line[2048];
    int n = snprintf(line, sizeof(line), "collsel: ");
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof(line) - 2) {
        n = (int)sizeof(line) - 2;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    fputs(line, stderr);
}

void cs_log(int msg_level, const char *fmt, ...) {
    va_list ap;
    if (cs_log_level() < msg_level) {
        return;
    }
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

void cs_log_complain(const char *fmt, ...) {
    va_list ap;
    if (!cs_log_world_root()) {
        return;
    }
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

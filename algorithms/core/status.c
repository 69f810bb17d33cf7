/* Status code names and messages, generated from status.def. */
#include "status.h"

#include "log.h"

#include <stddef.h>

static const struct {
    int value;
    const char *name;
    const char *message;
} statuses[] = {
#define CS_STATUS(name, value, message) {value, #name, message},
#include "status.def"
#undef CS_STATUS
};

#define NSTATUSES (sizeof(statuses) / sizeof(statuses[0]))

const char *cs_status_str(int status) {
    for (size_t i = 0; i < NSTATUSES; i++) {
        if (statuses[i].value == status) {
            return statuses[i].message;
        }
    }
    return "unknown status";
}

const char *cs_status_name(int status) {
    for (size_t i = 0; i < NSTATUSES; i++) {
        if (statuses[i].value == status) {
            return statuses[i].name;
        }
    }
    return "CS_UNKNOWN";
}

static _Thread_local int last_mpi_code;

int cs_status_mpi(int code) {
    last_mpi_code = code;
    return CS_ERR_MPI;
}

int cs_status_mpi_code(void) {
    return last_mpi_code;
}

int cs_status_fail(const char *file, int line, const char *expr, int status) {
    cs_log(CS_LOG_DEBUG, "%s:%d: %s failed: %s (%s)", file, line, expr, cs_status_name(status),
           cs_status_str(status));
    return status;
}

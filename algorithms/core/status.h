/* Status codes and error-handling macros used throughout collsel.
 *
 * Every function that can fail returns an int status: CS_OK (0), CS_INPROGRESS (> 0) or a
 * negative CS_ERR_* code. The codes and their messages come from one list, status.def.
 * Error paths use one `out:` label per function; CS_CHECK and CS_MPI_CHECK store the failing
 * status in the local `rc`, log file:line at debug verbosity and jump there. */
#ifndef CS_STATUS_H
#define CS_STATUS_H

enum cs_status {
#define CS_STATUS(name, value, message) name = value,
#include "status.def"
#undef CS_STATUS
};

/* Functions whose status must not be ignored. */
#define CS_MUST_CHECK __attribute__((warn_unused_result))

/* Returns the message for a status code; never NULL ("unknown status" for other values). */
const char *cs_status_str(int status);

/* Returns the enumerator's name ("CS_ERR_MPI"); never NULL. */
const char *cs_status_name(int status);

/* Records a failure at file:line (debug log); returns `status` unchanged. */
int cs_status_fail(const char *file, int line, const char *expr, int status);

/* Evaluate a status-returning expression; on a negative status, set `rc` and goto out. */
#define CS_CHECK(expr)                                                                             \
    do {                                                                                           \
        int cs_check_rc_ = (expr);                                                                 \
        if (cs_check_rc_ < 0) {                                                                    \
            rc = cs_status_fail(__FILE__, __LINE__, #expr, cs_check_rc_);                          \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Records `code`, the error code an MPI call returned, as this thread's last (see
 * cs_status_mpi_code) and returns CS_ERR_MPI. */
int cs_status_mpi(int code);
/* The error code of this thread's last MPI call that failed inside collsel (cs_status_mpi,
 * CS_MPI_CHECK), so that a caller can pass it on; 0 (MPI_SUCCESS) when none did. */
int cs_status_mpi_code(void);

/* Evaluate an MPI call; on failure, record its code (cs_status_mpi), set `rc` to CS_ERR_MPI
 * and goto out. */
#define CS_MPI_CHECK(expr)                                                                         \
    do {                                                                                           \
        int cs_mpi_err_ = (expr);                                                                  \
        if (cs_mpi_err_ != MPI_SUCCESS) {                                                          \
            rc = cs_status_fail(__FILE__, __LINE__, #expr, cs_status_mpi(cs_mpi_err_));            \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Fail with `status` (set rc, log, goto out) when `cond` is false. */
#define CS_REQUIRE(cond, status)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            rc = cs_status_fail(__FILE__, __LINE__, #cond, (status));                              \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#endif

/* Writing collsel-report's output directory so that it is never seen half-written.
 *
 * Everything goes into a temporary directory beside the target, <parent>/.<name>.tmp-XXXXXX;
 * cs_outdir_commit() then moves an existing report out of the way (<parent>/.<name>.old-XXXXXX),
 * renames the new one into place and removes the old one. Both renames stay in one directory,
 * so each is atomic; between them (microseconds) the target does not exist. A failure, or
 * cs_outdir_abort(), removes the temporary directory and leaves the target as it was.
 *
 * An existing target is replaced only when it is empty or a collsel report (its index.html
 * carries CS_OUTDIR_MARK): collsel-report never deletes a directory it did not write. */
#ifndef CS_REPORT_OUTDIR_H
#define CS_REPORT_OUTDIR_H

#include "core/status.h"

#include <stddef.h>

/* What index.html of a collsel report contains (html.c writes it, outdir.c looks for it). */
#define CS_OUTDIR_MARK "<meta name=\"generator\" content=\"collsel-report"

typedef struct cs_outdir {
    char dir[4096];    /* the target, as given (trailing slashes removed) */
    char parent[4096]; /* its directory */
    char tmp[8448];    /* the temporary directory, "" when none */
} cs_outdir_t;

/* Checks that `dir` can be written (its parent is a directory; `dir` does not exist, or is an
 * empty directory or a collsel report) and creates the temporary directory in out->tmp, with
 * the permissions of a new directory (0777 less the umask). CS_ERR_ARG when `dir` cannot be
 * used or written; why[0..len-1] then says which and why, and nothing has been created. */
int cs_outdir_begin(cs_outdir_t *out, const char *dir, char *why, size_t len) CS_MUST_CHECK;

/* The path of `name` inside the temporary directory, in buf[0..len-1]; CS_ERR_ARG when it does
 * not fit. */
int cs_outdir_path(const cs_outdir_t *out, const char *name, char *buf, size_t len) CS_MUST_CHECK;

/* Puts the temporary directory in place of the target (see above). CS_ERR_ARG when a rename
 * fails: why says what went wrong, the target is as it was and the temporary directory still
 * exists (abort it). An old report that cannot be removed is reported on stderr but is no
 * failure. */
int cs_outdir_commit(cs_outdir_t *out, char *why, size_t len) CS_MUST_CHECK;

/* Removes the temporary directory with everything in it (nothing when there is none). */
void cs_outdir_abort(cs_outdir_t *out);

#endif

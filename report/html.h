/* collsel-report's page: index.html, static, one file, no JavaScript, CSS inline.
 *
 * Per machine: a header (host, hwloc topology, MPI library, the runs shown with their dates,
 * processes and nodes, and "oversubscribed" when the run had more ranks than cores), a summary
 * table, then per collective the plots of plot.h with links to their SVG/PNG, data and script,
 * the rule intervals and the validation results as tables; at the end every run and any
 * verification failures. The page references only files of the report directory. */
#ifndef CS_REPORT_HTML_H
#define CS_REPORT_HTML_H

#include "model.h"
#include "outdir.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct cs_html_opts {
    const char *db_path; /* as given on the command line */
    bool png, svg;       /* the image formats written; the page shows PNG when there is one */
} cs_html_opts_t;

/* Writes index.html for `report` (plots already recorded by cs_plot_write) into out->tmp.
 * CS_ERR_ARG when it cannot be written (why says why). */
int cs_html_write(const cs_report_t *report, const cs_outdir_t *out, const cs_html_opts_t *opts,
                  char *why, size_t len) CS_MUST_CHECK;

#endif

/* collsel-report --export: the tuning results in the MPI libraries' own formats (docs/export.md).
 *
 *   ompi-rules  an Open MPI coll/tuned dynamic rules file (coll_tuned_dynamic_rules_filename,
 *               classic format): per collective, communicator size and message size the
 *               fastest of Open MPI's own algorithms (<coll>/ompi variants) measured there;
 *   mpich-json  an MPICH collective selection (csel) JSON tuning file
 *               (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): per collective, communicator size
 *               and message size the fastest measured variant that MPICH also has (the mapping
 *               table is in export.c and docs/export.md; others are left out);
 *   env         OMPI_MCA_* lines that force, for one communicator size, the Open MPI algorithm
 *               that was fastest at the most measured sizes.
 *
 * Algorithm numbers of Open MPI come from the enumerations of its coll_tuned_<coll>_algorithm
 * variables, read through MPI_T (no MPI_Init), so the rules file and the env lines are for the
 * Open MPI that collsel-report runs with: the one that was tuned. */
#ifndef CS_REPORT_EXPORT_H
#define CS_REPORT_EXPORT_H

#include "model.h"

#include <stdio.h>

typedef enum cs_export_kind {
    CS_EXPORT_OMPI_RULES,
    CS_EXPORT_MPICH_JSON,
    CS_EXPORT_ENV,
} cs_export_kind_t;

/* The kind named `name` ("ompi-rules", "mpich-json", "env") in *kind; CS_ERR_ARG otherwise. */
int cs_export_kind(const char *name, cs_export_kind_t *kind) CS_MUST_CHECK;

/* Writes `report`'s newest machine's results as `kind` to `out`. comm_size: the communicator
 * size for CS_EXPORT_ENV (0: the only one measured); ignored otherwise. On failure returns
 * CS_ERR_NOT_APPLICABLE (nothing to export: no <coll>/ompi measurements, no such size, or Open
 * MPI's catalogue cannot be read) or CS_ERR_NOMEM, with one line in `why`; `out` may then hold
 * a partial file. */
int cs_export_write(const cs_report_t *report, cs_export_kind_t kind, int comm_size, FILE *out,
                    char *why, size_t len) CS_MUST_CHECK;

#endif

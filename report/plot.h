/* collsel-report's plots: gnuplot scripts and their data, rendered by gnuplot.
 *
 * Every plot is three or four files in the output directory: <name>.dat (the data, commented,
 * one block per series), <name>.gp (the script; it reads <name>.dat) and <name>.png and/or
 * <name>.svg. A script draws PNG (pngcairo) by default and SVG when fmt="svg" is set, so a
 * sysadmin can re-plot in that directory with `gnuplot NAME.gp` or
 * `gnuplot -e 'fmt="svg"' NAME.gp`.
 *
 * The plots, per machine:
 *   <coll>_latency_np<N>_ppn<P>     median latency against message size (log-log) for native
 *                                   and the fastest variant of each family; the rules' winner
 *                                   circled at each size; q1-q3 as error bars
 *   <coll>_speedup                  native time / tuned choice's time against size, per
 *                                   communicator size, points coloured by the winning family,
 *                                   with the 1.0 line
 *   <coll>_winners                  the rank-1 rule intervals: size x communicator size,
 *                                   coloured by family and labelled with the algorithm
 *   <coll>_validation_np<N>_ppn<P>  collsel-bench --validate: the selector's choice and the best
 *                                   candidate relative to native, against size
 * (with the prefix "m<id>_" when the database holds several machines). */
#ifndef CS_REPORT_PLOT_H
#define CS_REPORT_PLOT_H

#include "model.h"
#include "outdir.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Pixel size of every plot but the winner map; the winner map is CS_PLOT_WIDTH wide and
 * cs_plot_winners_height() high. */
#define CS_PLOT_WIDTH  960
#define CS_PLOT_HEIGHT 600

/* Height of a winner map with `rows` communicator sizes. */
int cs_plot_winners_height(int rows);

typedef struct cs_plot_opts {
    bool png, svg;
    const char *gnuplot; /* the program to run (a name on PATH or a path) */
    const char *db_path; /* named in the scripts' header comments */
    /* Set (by a signal handler) to stop: gnuplot is then terminated. May be NULL. */
    volatile sig_atomic_t *stop;
} cs_plot_opts_t;

/* Writes the .dat and .gp files of every plot of `report` into out->tmp and records each plot
 * in the model (cs_report_key_t.latency_plot ...). CS_ERR_ARG when a file cannot be written
 * (why says which), CS_ERR_NOMEM. */
int cs_plot_write(cs_report_t *report, const cs_outdir_t *out, const cs_plot_opts_t *opts,
                  char *why, size_t len) CS_MUST_CHECK;

/* Runs gnuplot on every recorded plot in out->tmp, once per format asked for, and checks that
 * each image was written. CS_ERR_ARG when gnuplot cannot be started, exits with a status other
 * than 0 or dies of a signal, or leaves an image missing or empty: why says which, with the
 * end of gnuplot's output. Whatever gnuplot prints on success goes to stderr. */
int cs_plot_render(const cs_report_t *report, const cs_outdir_t *out, const cs_plot_opts_t *opts,
                   char *why, size_t len) CS_MUST_CHECK;

/* How many plots cs_plot_write recorded. */
size_t cs_plot_count(const cs_report_t *report);

#endif

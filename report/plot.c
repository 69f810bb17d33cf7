/* collsel-report's plots (see plot.h): writing the data and scripts, running gnuplot. */
#include "plot.h"

#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Grey of the lines that are not a family (speedup and validation curves). */
#define GREY "#8a8a8a"

int cs_plot_winners_height(int rows) {
    int h = 190 + 80 * rows;
    return h < 340 ? 340 : h > 1000 ? 1000 : h;
}

/* --- files --------------------------------------------------------------------------------- */

/* Opens <name><ext> in the temporary directory for writing into *f. */
static int open_file(const cs_outdir_t *out, const char *name, const char *ext, FILE **f, char *why,
                     size_t len) {
    int rc = CS_OK;
    char file[256], path[8192];
    snprintf(file, sizeof(file), "%s%s", name, ext);
    CS_CHECK(cs_outdir_path(out, file, path, sizeof(path)));
    *f = fopen(path, "w");
    if (*f == NULL) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
        rc = CS_ERR_ARG;
    }
out:
    return rc;
}

/* Closes f (NULL is ignored); CS_ERR_ARG when anything written to it was lost. */
static int close_file(FILE *f, const char *name, const char *ext, char *why, size_t len) {
    if (f == NULL) {
        return CS_OK;
    }
    bool bad = ferror(f) != 0;
    int err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    if (bad) {
        snprintf(why, len, "cannot write %s%s: %s", name, ext, strerror(err));
        return CS_ERR_ARG;
    }
    return CS_OK;
}

/* --- text in scripts ----------------------------------------------------------------------- */

/* "2026-11-21T23:59:54Z" -> "2026-11-21" in buf. */
static const char *day(const char *iso, char *buf, size_t len) {
    snprintf(buf, len, "%.10s", iso != NULL ? iso : "?");
    return buf;
}

/* The name of the message size unit of a collective: bytes per block for v-collectives. */
static const char *size_unit(const char *coll) {
    size_t n = strlen(coll);
    if (strncmp(coll, "neighbor_", 9) == 0) {
        return "bytes per block";
    }
    return n > 0 && coll[n - 1] == 'v' ? "bytes per block" : "bytes per process";
}

/* Writes the second title line as a gnuplot string: machine, MPI, run(s), layout and
 * oversubscription. `runs` lists the runs the plot shows (n >= 0). */
static void subtitle(FILE *f, const cs_report_machine_t *m, const cs_report_run_t *const *runs,
                     size_t n) {
    char mpi[128], date[64], line[1024];
    bool oversubscribed = false;
    size_t used = (size_t)snprintf(line, sizeof(line), "%s · %s", m->host,
                                   cs_text_mpi_short(m->mpi_library, mpi, sizeof(mpi)));
    for (size_t i = 0; i < n && used < sizeof(line); i++) {
        oversubscribed |= runs[i]->oversubscribed;
        used += (size_t)snprintf(line + used, sizeof(line) - used, "%srun %" PRId64 "%s%s",
                                 i > 0 ? ", " : " · ", runs[i]->id, n == 1 ? " of " : "",
                                 n == 1 ? day(runs[i]->started_at, date, sizeof(date)) : "");
    }
    if (n == 1 && used < sizeof(line)) {
        const cs_report_run_t *r = runs[0];
        used += (size_t)snprintf(line + used, sizeof(line) - used,
                                 " · job of %d processes on %d node%s", r->nprocs, r->nnodes,
                                 r->nnodes == 1 ? "" : "s");
        if (r->status != CS_DB_RUN_DONE && used < sizeof(line)) {
            used += (size_t)snprintf(line + used, sizeof(line) - used, " (run %s)", r->status_name);
        }
    }
    if (oversubscribed && used < sizeof(line)) {
        snprintf(line + used, sizeof(line) - used, " · oversubscribed: timings noisy");
    }
    cs_text_gp(f, line);
}

/* A log-2 axis `axis` (x or y) for ratios from `from` to `to`, ticks at round values. */
static void ratio_tics(FILE *f, const char *axis, double from, double to) {
    static const double nice[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.67, 0.8,
                                  1,    1.25, 1.5,  2,   3,   4,    5,   8,    10,
                                  16,   20,   32,   50,  64,  100,  200, 500,  1000};
    size_t n = 0, count = sizeof(nice) / sizeof(nice[0]);
    for (size_t i = 0; i < count; i++) {
        n += nice[i] >= from && nice[i] <= to;
    }
    fprintf(f, "set %stics (", axis);
    bool first = true;
    for (size_t i = 0; i < count; i++) {
        /* Many ticks: keep the powers of two only. */
        double v = nice[i];
        bool power_of_two = fabs(log2(v) - round(log2(v))) < 1e-9;
        if (v >= from && v <= to && (n <= 12 || power_of_two)) {
            fprintf(f, "%s'%g' %g", first ? "" : ", ", v, v);
            first = false;
        }
    }
    fputs(")\n", f);
}

/* Writes the title: the first line in bold and the subtitle below it, both left-aligned at
 * the top of a canvas `height` pixels high (a centred title would run off a narrow plot). */
static void title(FILE *f, const char *first, const cs_report_machine_t *m,
                  const cs_report_run_t *const *runs, size_t n, int height) {
    fputs("set label 1001 ", f);
    cs_text_gp(f, first);
    fprintf(f, " at screen 0.012, screen %.4f left font 'sans:Bold,12'\n", 1 - 20.0 / height);
    fputs("set label 1002 ", f);
    subtitle(f, m, runs, n);
    fprintf(f, " at screen 0.012, screen %.4f left\n", 1 - 40.0 / height);
    fprintf(f, "set tmargin at screen %.4f\n", 1 - 62.0 / height);
}

/* Writes "# " and the formatted text as one comment line of a data file (line breaks and
 * other control characters of names from the database become spaces). */
static void comment(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void comment(FILE *f, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    for (char *c = text; *c != '\0'; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            *c = ' ';
        }
    }
    fprintf(f, "# %s\n", text);
}

/* The header of every script: what it is, how to re-plot, the terminal for fmt. */
static void preamble(FILE *f, const char *name, const char *what, int width, int height,
                     const cs_plot_opts_t *o) {
    comment(f, "%s.gp: %s", name, what);
    comment(f, "Written by collsel-report " CS_VERSION " from %s; the data is %s.dat.", o->db_path,
            name);
    fprintf(f,
            "# Re-plot in this directory: gnuplot %s.gp (PNG), gnuplot -e 'fmt=\"svg\"' %s.gp "
            "(SVG).\n"
            "reset\n"
            "if (!exists(\"fmt\")) fmt = \"png\"\n"
            "if (fmt eq \"svg\") {\n"
            "    set terminal svg size %d,%d fixed noenhanced font 'sans,12' background "
            "'#ffffff'\n"
            "    set output '%s.svg'\n"
            "} else {\n"
            "    set terminal pngcairo size %d,%d noenhanced font 'sans,10' background "
            "'#ffffff'\n"
            "    set output '%s.png'\n"
            "}\n"
            "set encoding utf8\n"
            "set border 3 lw 1 lc rgb '#444444'\n"
            "set tics nomirror out\n"
            "set grid back lc rgb '#e3e3e3' lw 1 dt 1\n"
            "set key outside right top vertical Left reverse samplen 2.5 spacing 1.25\n",
            name, name, width, height, name, width, height, name);
}

/* x axis: message size, log 2, from lo to hi bytes, ticks labelled with K/M at powers of 2
 * (at most about 12 of them). */
static void size_axis(FILE *f, const char *coll, double lo, double hi) {
    char label[32];
    fprintf(f, "set xlabel 'message size (%s)'\n", size_unit(coll));
    fprintf(f, "set logscale x 2\nset xrange [%.6g:%.6g]\n", lo, hi);
    int k0 = (int)ceil(log2(lo)), k1 = (int)floor(log2(hi));
    int step = 1;
    while ((k1 - k0) / step + 1 > 12) {
        step *= 2;
    }
    /* Align to even exponents (4, 16, 64 ...) as the default sweep is. */
    if (step > 1 && k0 % 2 != 0) {
        k0++;
    }
    bool first = true;
    for (int k = k0; k <= k1; k += step) {
        if (k < 0 || k > 62) {
            continue;
        }
        fprintf(f, "%s'%s' %.0f", first ? "set xtics (" : ", ",
                cs_text_bytes((uint64_t)1 << k, label, sizeof(label)), ldexp(1.0, k));
        first = false;
    }
    fputs(first ? "set xtics autofreq\n" : ")\n", f);
}

/* A time for a data file: NaN (gnuplot skips the point) unless positive. */
static void value(FILE *f, double v) {
    if (isfinite(v) && v > 0) {
        fprintf(f, " %.6g", v);
    } else {
        fputs(" NaN", f);
    }
}

/* The name of a plot: <prefix><coll>_<kind>[_np<N>_ppn<P>] into p->name. */
static void name_plot(cs_report_plot_t *p, const cs_report_machine_t *m, const char *coll,
                      const char *kind, const cs_report_key_t *k, int width, int height) {
    char part[64];
    cs_text_file_part(coll, part, sizeof(part));
    if (strcmp(part, coll) != 0) {
        /* Another collective might have the same file name: add a hash of the real one. */
        uint32_t hash = 2166136261u;
        for (const char *c = coll; *c != '\0'; c++) {
            hash = (hash ^ (unsigned char)*c) * 16777619u;
        }
        char with_hash[64];
        snprintf(with_hash, sizeof(with_hash), "%.40s_%08" PRIx32, part, hash);
        snprintf(part, sizeof(part), "%s", with_hash);
    }
    if (k != NULL && k->pattern[0] != '\0') {
        char pat[48];
        cs_text_file_part(k->pattern, pat, sizeof(pat));
        snprintf(p->name, sizeof(p->name), "%s%s_%s_%s_np%d_ppn%d", m->prefix, part, kind, pat,
                 k->comm_size, k->ppn);
    } else if (k != NULL) {
        snprintf(p->name, sizeof(p->name), "%s%s_%s_np%d_ppn%d", m->prefix, part, kind,
                 k->comm_size, k->ppn);
    } else {
        snprintf(p->name, sizeof(p->name), "%s%s_%s", m->prefix, part, kind);
    }
    p->width = width;
    p->height = height;
}

/* Range of a log axis holding every value in [lo, hi], padded by `pad` (a factor). */
static void padded(double lo, double hi, double pad, double *from, double *to) {
    if (!(lo > 0) || !(hi > 0)) {
        lo = hi = 1;
    }
    *from = lo / pad;
    *to = hi * pad;
}

/* --- one plot's files ------------------------------------------------------------------------ */

/* The two files a writer makes for one plot: <name>.dat (the data), written first, then
 * <name>.gp (the script that draws it). Starts zeroed; plot_dat opens the data file, plot_gp
 * closes it and opens the script, plot_end finishes and closes the script, and plot_drop, on
 * the writer's one way out, closes whatever a failure left open. */
typedef struct plot_files {
    const cs_outdir_t *out;
    const cs_report_plot_t *p; /* name, width and height */
    const char *what;          /* the first comment line of both files */
    FILE *dat, *gp;
} plot_files_t;

/* Opens <p->name>.dat and writes `what` as its first comment line. */
static int plot_dat(plot_files_t *f, const cs_outdir_t *out, const cs_report_plot_t *p,
                    const char *what, char *why, size_t len) {
    int rc = CS_OK;
    f->out = out;
    f->p = p;
    f->what = what;
    CS_CHECK(open_file(out, p->name, ".dat", &f->dat, why, len));
    comment(f->dat, "%s", what);
out:
    return rc;
}

/* Closes the data file (CS_ERR_ARG when anything written to it was lost), opens <name>.gp and
 * writes the preamble for `o`. */
static int plot_gp(plot_files_t *f, const cs_plot_opts_t *o, char *why, size_t len) {
    int rc = CS_OK;
    FILE *dat = f->dat;
    f->dat = NULL;
    CS_CHECK(close_file(dat, f->p->name, ".dat", why, len));
    CS_CHECK(open_file(f->out, f->p->name, ".gp", &f->gp, why, len));
    preamble(f->gp, f->p->name, f->what, f->p->width, f->p->height, o);
out:
    return rc;
}

/* Ends the script (unset output) and closes it; CS_ERR_ARG when anything written was lost. */
static int plot_end(plot_files_t *f, char *why, size_t len) {
    FILE *gp = f->gp;
    f->gp = NULL;
    fputs("\nunset output\n", gp);
    return close_file(gp, f->p->name, ".gp", why, len);
}

/* Closes the files a failed writer left open; nothing to do after plot_end. */
static void plot_drop(plot_files_t *f) {
    if (f->dat != NULL) {
        fclose(f->dat);
    }
    if (f->gp != NULL) {
        fclose(f->gp);
    }
}

/* --- latency per key ----------------------------------------------------------------------- */

/* A measurement's statistics under the synchronised metric (loop false) or the loop metric
 * (loop true; NaN and 0 repetitions when the run measured none). */
static double med(const cs_report_meas_t *m, bool loop) {
    return loop ? m->loop_median_us : m->median_us;
}

static cs_report_meas_t under(const cs_report_meas_t *m, bool loop) {
    cs_report_meas_t v = *m;
    if (loop) {
        v.min_us = m->loop_min_us;
        v.q1_us = m->loop_q1_us;
        v.median_us = m->loop_median_us;
        v.q3_us = m->loop_q3_us;
        v.max_us = m->loop_max_us;
        v.reps = m->loop_reps;
    }
    return v;
}

/* Whether `fam` has a point a log-log plot can show. */
static bool plottable(const cs_report_family_t *fam, bool loop) {
    for (size_t i = 0; i < fam->nbest; i++) {
        if (fam->best[i]->bytes > 0 && med(fam->best[i], loop) > 0) {
            return true;
        }
    }
    return false;
}

/* The family's legend entry: "ring", or "orth (fastest of 3 variants)". */
static void family_title(FILE *f, const cs_report_family_t *fam) {
    char text[256];
    if (fam->nvariants > 1) {
        snprintf(text, sizeof(text), "%s (fastest of %d variants)", fam->name, fam->nvariants);
    } else {
        snprintf(text, sizeof(text), "%s", fam->name);
    }
    cs_text_gp(f, text);
}

/* The latency plot of key k under the synchronised metric, or with `loop` under the loop
 * metric (same variants: each family's fastest under the synchronised metric). */
static int write_latency(const cs_report_machine_t *m, cs_report_key_t *k, bool loop,
                         const cs_outdir_t *out, const cs_plot_opts_t *o, char *why, size_t len) {
    int rc = CS_OK;
    plot_files_t f = {0};
    cs_report_plot_t p = {0};
    size_t nshown = 0;
    for (size_t i = 0; i < k->nfamilies; i++) {
        nshown += plottable(&k->families[i], loop);
    }
    if (k->run == NULL || nshown == 0) {
        goto out;
    }
    name_plot(&p, m, k->coll, loop ? "loop_latency" : "latency", k, CS_PLOT_WIDTH, CS_PLOT_HEIGHT);
    char what[512], first[256];
    snprintf(first, sizeof(first), "%s%s%s: latency on %d processes (%d per node), %s", k->coll,
             k->pattern[0] ? " on pattern " : "", k->pattern, k->comm_size, k->ppn,
             loop ? "back-to-back loop, mean over ranks" : "synchronised, slowest rank");
    snprintf(what, sizeof(what),
             "%s; median time of the fastest variant of each algorithm family, log-log", first);

    CS_CHECK(plot_dat(&f, out, &p, what, why, len));
    FILE *dat = f.dat;
    comment(dat, "machine %s, run %" PRId64 " (%s)", m->host, k->run->id, k->run->status_name);
    fprintf(dat, "# Blocks (gnuplot index 0, 1, ...) are separated by two blank lines.\n");
    int index = 0;
    for (size_t i = 0; i < k->nfamilies; i++) {
        const cs_report_family_t *fam = &k->families[i];
        if (!plottable(fam, loop)) {
            continue;
        }
        fputs(index > 0 ? "\n\n" : "", dat);
        comment(dat, "index %d: %s, %d variant%s, the fastest at each size", index, fam->algorithm,
                fam->nvariants, fam->nvariants == 1 ? "" : "s");
        fprintf(dat, "# bytes median_us q1_us q3_us min_us max_us reps params\n");
        for (size_t j = 0; j < fam->nbest; j++) {
            cs_report_meas_t view = under(fam->best[j], loop);
            const cs_report_meas_t *b = &view;
            if (b->bytes == 0 || !(b->median_us > 0)) {
                continue;
            }
            fprintf(dat, "%" PRIu64, b->bytes);
            value(dat, b->median_us);
            value(dat, b->q1_us);
            value(dat, b->q3_us);
            value(dat, b->min_us);
            value(dat, b->max_us);
            fprintf(dat, " %d ", b->reps);
            cs_text_dat(dat, b->params);
            fputc('\n', dat);
        }
        index++;
    }
    size_t nwinners = 0;
    fprintf(dat, "\n\n# index %d: the tuned choice (rank 1 of the rules) at each size\n", index);
    fprintf(dat, "# bytes median_us algorithm params\n");
    for (size_t j = 0; j < k->nsizes; j++) {
        const cs_rule_t *w = cs_report_winner(k, k->sizes[j]);
        const cs_report_meas_t *t = cs_report_tuned_at(k, k->sizes[j]);
        if (k->sizes[j] == 0 || w == NULL || t == NULL || !(med(t, loop) > 0)) {
            continue;
        }
        fprintf(dat, "%" PRIu64, k->sizes[j]);
        value(dat, med(t, loop));
        fputc(' ', dat);
        cs_text_dat(dat, w->algorithm);
        fputc(' ', dat);
        cs_text_dat(dat, w->params);
        fputc('\n', dat);
        nwinners++;
    }

    CS_CHECK(plot_gp(&f, o, why, len));
    FILE *gp = f.gp;
    const cs_report_run_t *runs[] = {k->run};
    title(gp, first, m, runs, 1, p.height);
    double lo = 0, hi = 0, from, to;
    for (size_t j = 0; j < k->nsizes; j++) {
        if (k->sizes[j] > 0) {
            lo = lo > 0 ? lo : (double)k->sizes[j];
            hi = (double)k->sizes[j];
        }
    }
    padded(lo, hi, lo == hi ? 4 : 1.6, &from, &to);
    size_axis(gp, k->coll, from, to);
    fputs("set ylabel 'latency: median time (µs)'\n"
          "set logscale y 10\nset format y '%g'\nset mytics 10\n"
          "set grid xtics ytics mytics\n"
          "set bars 0.5\n"
          "set key title 'fastest variant per family' left\n",
          gp);
    fprintf(gp, "# Error bars (drawn first, thin): first to third quartile of the repetitions.\n"
                "plot ");
    index = 0;
    for (size_t i = 0; i < k->nfamilies; i++) {
        const cs_report_family_t *fam = &k->families[i];
        if (!plottable(fam, loop)) {
            continue;
        }
        fprintf(gp,
                "%s'%s.dat' index %d using 1:2:3:4 with yerrorbars lw 1 pt 0 lc rgb '%s' notitle",
                index > 0 ? ", \\\n     " : "", p.name, index, cs_text_colour(fam->algorithm));
        index++;
    }
    index = 0;
    for (size_t i = 0; i < k->nfamilies; i++) {
        const cs_report_family_t *fam = &k->families[i];
        if (!plottable(fam, loop)) {
            continue;
        }
        fprintf(gp,
                ", \\\n     '%s.dat' index %d using 1:2 with linespoints lw %s pt %d ps 1.1 "
                "lc rgb '%s' title ",
                p.name, index, fam->native ? "2.5" : "1.8", cs_text_point(fam->algorithm),
                cs_text_colour(fam->algorithm));
        family_title(gp, fam);
        index++;
    }
    if (nwinners > 0) {
        fprintf(gp,
                ", \\\n     '%s.dat' index %d using 1:2 with points pt 6 ps 2.6 lw 1.5 "
                "lc rgb '#000000' title 'tuned choice (rules)'",
                p.name, index);
    }
    CS_CHECK(plot_end(&f, why, len));
    if (loop) {
        k->loop_latency_plot = p;
    } else {
        k->latency_plot = p;
    }
out:
    plot_drop(&f);
    return rc;
}

/* --- speedup per collective ---------------------------------------------------------------- */

/* Whether the tuned choice and native were both measured at size index j of `k` (a size a log
 * axis can show); sets *w (the rank-1 rule), *tuned and *native. */
static bool speedup_at(const cs_report_key_t *k, size_t j, bool loop, const cs_rule_t **w,
                       const cs_report_meas_t **tuned, const cs_report_meas_t **native) {
    uint64_t b = k->sizes[j];
    *w = cs_report_winner(k, b);
    *tuned = cs_report_tuned_at(k, b);
    *native = cs_report_native_at(k, b);
    return b > 0 && *w != NULL && *tuned != NULL && *native != NULL && med(*tuned, loop) > 0 &&
           med(*native, loop) > 0;
}

static size_t speedup_points(const cs_report_key_t *k, bool loop) {
    const cs_rule_t *w;
    const cs_report_meas_t *tuned, *native;
    size_t n = 0;
    for (size_t j = 0; j < k->nsizes; j++) {
        n += speedup_at(k, j, loop, &w, &tuned, &native);
    }
    return n;
}

/* The distinct runs of the keys of `c` with measurements (validation runs when `validation`)
 * into runs[0..*n-1] (at most max). */
static void runs_of(const cs_report_coll_t *c, bool validation, const cs_report_run_t **runs,
                    size_t max, size_t *n) {
    *n = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_run_t *r = validation ? c->keys[i].vrun : c->keys[i].run;
        bool seen = r == NULL;
        for (size_t j = 0; j < *n && !seen; j++) {
            seen = runs[j] == r;
        }
        if (!seen && *n < max) {
            runs[(*n)++] = r;
        }
    }
}

/* Whether `name` is already in names[0..n-1]; adds it when not (and there is room). */
static bool seen_before(const char **names, size_t *n, size_t max, const char *name) {
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(names[i], name) == 0) {
            return true;
        }
    }
    if (*n < max) {
        names[(*n)++] = name;
    }
    return false;
}

/* The speedup plot of collective c under the synchronised metric, or with `loop` under the
 * loop metric. */
static int write_speedup(const cs_report_machine_t *m, cs_report_coll_t *c, bool loop,
                         const cs_outdir_t *out, const cs_plot_opts_t *o, char *why, size_t len) {
    int rc = CS_OK;
    plot_files_t f = {0};
    cs_report_plot_t p = {0};
    const cs_rule_t *w;
    const cs_report_meas_t *tuned, *native;
    double lo = 0, hi = 0, smin = 1, smax = 1;
    size_t npoints = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        for (size_t j = 0; j < k->nsizes; j++) {
            if (speedup_at(k, j, loop, &w, &tuned, &native)) {
                double s = med(native, loop) / med(tuned, loop);
                double b = (double)k->sizes[j];
                lo = npoints == 0 || b < lo ? b : lo;
                hi = b > hi ? b : hi;
                smin = s < smin ? s : smin;
                smax = s > smax ? s : smax;
                npoints++;
            }
        }
    }
    if (npoints == 0) {
        goto out;
    }
    name_plot(&p, m, c->name, loop ? "loop_speedup" : "speedup", NULL, CS_PLOT_WIDTH,
              CS_PLOT_HEIGHT);
    char first[256], what[512];
    snprintf(first, sizeof(first), "%s: speedup of the tuned choice over native, %s", c->name,
             loop ? "back-to-back loop metric" : "synchronised metric");
    snprintf(what, sizeof(what),
             "%s (native median / median of the rules' rank-1 algorithm at each measured size)",
             first);

    CS_CHECK(plot_dat(&f, out, &p, what, why, len));
    FILE *dat = f.dat;
    comment(dat, "machine %s", m->host);
    fprintf(dat, "# Blocks (gnuplot index 0, 1, ...) are separated by two blank lines.\n");
    int index = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (speedup_points(k, loop) == 0) {
            continue;
        }
        fprintf(dat, "%s# index %d: %s%s%d processes (%d per node), run %" PRId64 "\n",
                index > 0 ? "\n\n" : "", index, k->pattern, k->pattern[0] ? ", " : "", k->comm_size,
                k->ppn, k->run != NULL ? k->run->id : 0);
        fprintf(dat, "# bytes speedup family algorithm params tuned_us native_us\n");
        for (size_t j = 0; j < k->nsizes; j++) {
            if (!speedup_at(k, j, loop, &w, &tuned, &native)) {
                continue;
            }
            fprintf(dat, "%" PRIu64, k->sizes[j]);
            value(dat, med(native, loop) / med(tuned, loop));
            fputc(' ', dat);
            cs_text_dat(dat, cs_text_family_name(w->algorithm));
            fputc(' ', dat);
            cs_text_dat(dat, w->algorithm);
            fputc(' ', dat);
            cs_text_dat(dat, w->params);
            value(dat, med(tuned, loop));
            value(dat, med(native, loop));
            fputc('\n', dat);
        }
        index++;
    }

    CS_CHECK(plot_gp(&f, o, why, len));
    FILE *gp = f.gp;
    const cs_report_run_t *runs[16];
    size_t nruns = 0;
    runs_of(c, false, runs, 16, &nruns);
    title(gp, first, m, runs, nruns, p.height);
    double from, to;
    padded(lo, hi, lo == hi ? 4 : 1.6, &from, &to);
    size_axis(gp, c->name, from, to);
    padded(smin < 0.8 ? smin : 0.8, smax > 1.25 ? smax : 1.25, 1.2, &from, &to);
    ratio_tics(gp, "y", from, to);
    fprintf(gp,
            "set ylabel 'speedup over native (native time / tuned time)'\n"
            "set logscale y 2\nset yrange [%.6g:%.6g]\n"
            "set key title 'colour: winning family' left\n"
            "plot 1 with lines lw 1.5 dt 2 lc rgb '#000000' title 'native (1.0)'",
            from, to);
    const char *names[64];
    size_t nnames = 0;
    size_t nkeys = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        nkeys += speedup_points(&c->keys[i], loop) > 0;
    }
    /* First a grey line per communicator size, then the points of each winning family. */
    index = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (speedup_points(k, loop) == 0) {
            continue;
        }
        char label[96];
        if (nkeys > 1) {
            snprintf(label, sizeof(label), "%s%s%d processes (%d per node)", k->pattern,
                     k->pattern[0] ? ", " : "", k->comm_size, k->ppn);
        } else {
            snprintf(label, sizeof(label), "tuned choice");
        }
        fprintf(gp,
                ", \\\n     '%s.dat' index %d using 1:2 with lines lw 1.5 dt %d lc rgb '%s' "
                "title ",
                p.name, index, 1 + index % 5, GREY);
        cs_text_gp(gp, label);
        index++;
    }
    index = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (speedup_points(k, loop) == 0) {
            continue;
        }
        /* One series of points per winning family, filtered by the family column. */
        const char *done[64];
        size_t ndone = 0;
        for (size_t j = 0; j < k->nsizes; j++) {
            if (!speedup_at(k, j, loop, &w, &tuned, &native)) {
                continue;
            }
            const char *fam = cs_text_family_name(w->algorithm);
            if (seen_before(done, &ndone, 64, fam)) {
                continue;
            }
            fprintf(gp, ", \\\n     '' index %d using 1:(strcol(3) eq ", index);
            cs_text_gp(gp, fam);
            fprintf(gp, " ? $2 : NaN) with points pt %d ps 1.7 lc rgb '%s' ",
                    cs_text_point(w->algorithm), cs_text_colour(w->algorithm));
            if (seen_before(names, &nnames, 64, fam)) {
                fputs("notitle", gp);
            } else {
                fputs("title ", gp);
                cs_text_gp(gp, fam);
            }
        }
        index++;
    }
    CS_CHECK(plot_end(&f, why, len));
    if (loop) {
        c->loop_speedup_plot = p;
    } else {
        c->speedup_plot = p;
    }
out:
    plot_drop(&f);
    return rc;
}

/* --- winner map per collective ------------------------------------------------------------- */

/* Writes the label of a winner cell: the family name split into lines at '_' (and the params
 * on a line of their own) as a gnuplot string expression; *longest and *lines give its size
 * in characters. */
static void cell_label(FILE *f, const cs_rule_t *r, size_t *longest, size_t *lines) {
    const char *name = cs_text_family_name(r->algorithm);
    char buf[256];
    size_t n = 0;
    *longest = 0;
    *lines = 0;
    for (const char *c = name;; c++) {
        if (*c == '_' || *c == '\0') {
            buf[n] = '\0';
            if (*lines > 0) {
                fputs(".\"\\n\".", f);
            }
            cs_text_gp(f, buf);
            *longest = n > *longest ? n : *longest;
            (*lines)++;
            n = 0;
            if (*c == '\0') {
                break;
            }
        } else if (n + 1 < sizeof(buf)) {
            buf[n++] = *c;
        }
    }
    if (r->params[0] != '\0') {
        snprintf(buf, sizeof(buf), "(%s)", r->params);
        fputs(".\"\\n\".", f);
        cs_text_gp(f, buf);
        *longest = strlen(buf) > *longest ? strlen(buf) : *longest;
        (*lines)++;
    }
}

static bool has_winners(const cs_report_key_t *k) {
    for (size_t i = 0; i < k->nrules; i++) {
        if (k->rules[i].rank == 1) {
            return true;
        }
    }
    return false;
}

static int write_winners(const cs_report_machine_t *m, cs_report_coll_t *c, const cs_outdir_t *out,
                         const cs_plot_opts_t *o, char *why, size_t len) {
    int rc = CS_OK;
    plot_files_t f = {0};
    cs_report_plot_t p = {0};
    int rows = 0;
    double lo = 0, hi = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (!has_winners(k)) {
            continue;
        }
        rows++;
        /* The axis spans the measured sizes and every finite interval bound. */
        for (size_t j = 0; j < k->nsizes; j++) {
            double b = (double)k->sizes[j];
            if (b > 0) {
                lo = lo == 0 || b < lo ? b : lo;
                hi = b > hi ? b : hi;
            }
        }
        for (size_t j = 0; j < k->nrules; j++) {
            double b[2] = {(double)k->rules[j].lo_bytes, k->rules[j].hi_bytes == CS_RULE_UNBOUNDED
                                                             ? 0
                                                             : (double)k->rules[j].hi_bytes};
            for (int e = 0; e < 2; e++) {
                if (b[e] > 0) {
                    lo = lo == 0 || b[e] < lo ? b[e] : lo;
                    hi = b[e] > hi ? b[e] : hi;
                }
            }
        }
    }
    if (rows == 0) {
        goto out;
    }
    if (lo == 0) {
        lo = 4;
        hi = 4 << 20;
    }
    double from = lo / 2, to = hi * 2;
    name_plot(&p, m, c->name, "winners", NULL, CS_PLOT_WIDTH, cs_plot_winners_height(rows));
    char first[256], what[512];
    snprintf(first, sizeof(first), "%s: the winner per message size and communicator size",
             c->name);
    snprintf(what, sizeof(what), "%s (rank 1 of the rules, each size interval one cell)", first);

    CS_CHECK(plot_dat(&f, out, &p, what, why, len));
    FILE *dat = f.dat;
    comment(dat, "machine %s", m->host);
    fprintf(dat, "# lo_bytes hi_bytes (inf: unbounded; intervals are [lo, hi)), then the cell as "
                 "drawn: x_from x_to x_centre row colour algorithm params\n");
    int row = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (!has_winners(k)) {
            continue;
        }
        row++;
        fprintf(dat, "# row %d: %s%s%d processes (%d per node)\n", row, k->pattern,
                k->pattern[0] ? ", " : "", k->comm_size, k->ppn);
        for (size_t j = 0; j < k->nrules; j++) {
            const cs_rule_t *r = &k->rules[j];
            double x0 = r->lo_bytes == 0 || (double)r->lo_bytes < from ? from : (double)r->lo_bytes;
            double x1 = r->hi_bytes == CS_RULE_UNBOUNDED || (double)r->hi_bytes > to
                            ? to
                            : (double)r->hi_bytes;
            if (r->rank != 1 || !(x0 < x1)) {
                continue;
            }
            fprintf(dat, "%" PRIu64 " ", r->lo_bytes);
            if (r->hi_bytes == CS_RULE_UNBOUNDED) {
                fputs("inf", dat);
            } else {
                fprintf(dat, "%" PRIu64, r->hi_bytes);
            }
            fprintf(dat, " %.6g %.6g %.6g %d %lu ", x0, x1, sqrt(x0 * x1), row,
                    cs_text_colour_value(r->algorithm));
            cs_text_dat(dat, r->algorithm);
            fputc(' ', dat);
            cs_text_dat(dat, r->params);
            fputc('\n', dat);
        }
    }

    CS_CHECK(plot_gp(&f, o, why, len));
    FILE *gp = f.gp;
    const cs_report_run_t *runs[16];
    size_t nruns = 0;
    runs_of(c, false, runs, 16, &nruns);
    title(gp, first, m, runs, nruns > 0 ? nruns : 0, p.height);
    size_axis(gp, c->name, from, to);
    fprintf(gp, "set ylabel '%s'\nset yrange [0.5:%d.5]\nset ytics (",
            strncmp(c->name, "neighbor_", 9) == 0 ? "pattern, communicator size"
                                                  : "communicator size",
            rows);
    row = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (has_winners(k)) {
            row++;
            fprintf(gp, "%s\"%s%s%d procs\\n(%d per node)\" %d", row > 1 ? ", " : "", k->pattern,
                    k->pattern[0] ? ", " : "", k->comm_size, k->ppn, row);
        }
    }
    fputs(")\nset grid noytics xtics front\nset style fill solid 0.55 border lc rgb '#ffffff'\n"
          "set key title 'winning family' left\n",
          gp);
    /* Cell labels; a label too wide for its cell is turned upright. Plot area: about 620 px
     * wide, the height less 160 px of margins; characters about 7 px wide, lines 13 px. */
    double px_per_log = 620.0 / log2(to / from);
    double row_px = (p.height - 160.0) / rows;
    int label = 0;
    row = 0;
    const char *names[64];
    size_t nnames = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (!has_winners(k)) {
            continue;
        }
        row++;
        for (size_t j = 0; j < k->nrules; j++) {
            const cs_rule_t *r = &k->rules[j];
            double x0 = r->lo_bytes == 0 || (double)r->lo_bytes < from ? from : (double)r->lo_bytes;
            double x1 = r->hi_bytes == CS_RULE_UNBOUNDED || (double)r->hi_bytes > to
                            ? to
                            : (double)r->hi_bytes;
            if (r->rank != 1 || !(x0 < x1)) {
                continue;
            }
            (void)seen_before(names, &nnames, 64, r->algorithm);
            size_t longest, lines;
            fprintf(gp, "set label %d ", ++label);
            cell_label(gp, r, &longest, &lines);
            double width_px = px_per_log * log2(x1 / x0);
            bool upright = longest * 7.0 + 6 > width_px && lines * 13.0 + 4 <= width_px &&
                           longest * 7.0 + 6 <= row_px;
            /* Native's cells are dark grey: white text there. */
            fprintf(
                gp, " at %.6g,%d center front font ',9' textcolor rgb '%s'%s\n", sqrt(x0 * x1), row,
                strcmp(cs_text_family_name(r->algorithm), "native") == 0 ? "#ffffff" : "#000000",
                upright ? " rotate by 90" : "");
        }
    }
    fprintf(gp,
            "plot '%s.dat' using 5:6:3:4:($6-0.46):($6+0.46):7 with boxxyerror "
            "lc rgb variable notitle",
            p.name);
    for (size_t i = 0; i < nnames; i++) {
        fputs(", \\\n     NaN with boxes lc rgb '", gp);
        fputs(cs_text_colour(names[i]), gp);
        fputs("' title ", gp);
        cs_text_gp(gp, cs_text_family_name(names[i]));
    }
    CS_CHECK(plot_end(&f, why, len));
    c->winners_plot = p;
out:
    plot_drop(&f);
    return rc;
}

/* --- validation per key -------------------------------------------------------------------- */

/* A validation row's times under the synchronised metric, or with `loop` the loop metric's. */
typedef struct valid_times {
    double native, selected, oracle, native2;
} valid_times_t;

static valid_times_t times_of(const cs_report_valid_t *v, bool loop) {
    if (loop) {
        return (valid_times_t){v->native_loop_us, v->selected_loop_us, v->oracle_loop_us,
                               v->native2_loop_us};
    }
    return (valid_times_t){v->native_us, v->selected_us, v->oracle_us, v->native2_us};
}

static bool valid_ok(const cs_report_valid_t *v, bool loop) {
    valid_times_t t = times_of(v, loop);
    return v->bytes > 0 && t.native > 0 && t.selected > 0 && t.oracle > 0;
}

/* The validation plot of key k under the synchronised metric, or with `loop` under the loop
 * metric (drawn only where the rows have it). Native B, where measured, is drawn relative to
 * native A: how far native moves from itself in the same run (its run-to-run spread). */
static int write_validation(const cs_report_machine_t *m, cs_report_key_t *k, bool loop,
                            const cs_outdir_t *out, const cs_plot_opts_t *o, char *why,
                            size_t len) {
    int rc = CS_OK;
    plot_files_t f = {0};
    cs_report_plot_t p = {0};
    double lo = 0, hi = 0, rmin = 1, rmax = 1;
    size_t n = 0, nspread = 0;
    for (size_t i = 0; i < k->nvalid; i++) {
        const cs_report_valid_t *v = &k->valid[i];
        if (!valid_ok(v, loop)) {
            continue;
        }
        valid_times_t t = times_of(v, loop);
        double b = (double)v->bytes;
        double rs = t.selected / t.native, ro = t.oracle / t.native;
        lo = n == 0 || b < lo ? b : lo;
        hi = b > hi ? b : hi;
        rmin = fmin(rmin, fmin(rs, ro));
        rmax = fmax(rmax, fmax(rs, ro));
        if (t.native2 > 0) {
            rmin = fmin(rmin, t.native2 / t.native);
            rmax = fmax(rmax, t.native2 / t.native);
            nspread++;
        }
        n++;
    }
    if (k->vrun == NULL || n == 0) {
        goto out;
    }
    name_plot(&p, m, k->coll, loop ? "loop_validation" : "validation", k, CS_PLOT_WIDTH,
              CS_PLOT_HEIGHT);
    char first[256], what[512];
    if (loop) {
        snprintf(first, sizeof(first),
                 "%s on %s%s%d processes, back-to-back loop: the selector's choice and the best "
                 "vs native",
                 k->coll, k->pattern, k->pattern[0] ? ", " : "", k->comm_size);
    } else {
        snprintf(first, sizeof(first),
                 "%s on %s%s%d processes: the selector's choice and the best candidate vs native",
                 k->coll, k->pattern, k->pattern[0] ? ", " : "", k->comm_size);
    }
    snprintf(what, sizeof(what),
             "%s (collsel-bench --validate: re-measured interleaved, native twice; %s; time "
             "relative to native)",
             first, loop ? "back-to-back loop, mean over ranks" : "synchronised, slowest rank");

    CS_CHECK(plot_dat(&f, out, &p, what, why, len));
    FILE *dat = f.dat;
    comment(dat, "machine %s, run %" PRId64 ", %d processes (%d per node)", m->host, k->vrun->id,
            k->comm_size, k->ppn);
    fprintf(dat, "# bytes native_us selected_us oracle_us selected/native oracle/native "
                 "selected_family selected_algorithm selected_params oracle_family "
                 "oracle_algorithm oracle_params native2_us native2/native\n");
    for (size_t i = 0; i < k->nvalid; i++) {
        const cs_report_valid_t *v = &k->valid[i];
        if (!valid_ok(v, loop)) {
            continue;
        }
        valid_times_t t = times_of(v, loop);
        fprintf(dat, "%" PRIu64, v->bytes);
        value(dat, t.native);
        value(dat, t.selected);
        value(dat, t.oracle);
        value(dat, t.selected / t.native);
        value(dat, t.oracle / t.native);
        const char *cols[] = {
            cs_text_family_name(v->selected_algorithm), v->selected_algorithm, v->selected_params,
            cs_text_family_name(v->oracle_algorithm),   v->oracle_algorithm,   v->oracle_params};
        for (size_t j = 0; j < sizeof(cols) / sizeof(cols[0]); j++) {
            fputc(' ', dat);
            cs_text_dat(dat, cols[j]);
        }
        value(dat, t.native2);
        value(dat, t.native2 / t.native);
        fputc('\n', dat);
    }

    CS_CHECK(plot_gp(&f, o, why, len));
    FILE *gp = f.gp;
    const cs_report_run_t *runs[] = {k->vrun};
    title(gp, first, m, runs, 1, p.height);
    double from, to;
    padded(lo, hi, lo == hi ? 4 : 1.6, &from, &to);
    size_axis(gp, k->coll, from, to);
    padded(rmin < 0.8 ? rmin : 0.8, rmax > 1.25 ? rmax : 1.25, 1.15, &from, &to);
    ratio_tics(gp, "y", from, to);
    fprintf(gp,
            "set ylabel 'time relative to native (below 1: faster than native)'\n"
            "set logscale y 2\nset yrange [%.6g:%.6g]\n"
            "set key title 'colour: algorithm family' left\n"
            "plot 1 with lines lw 2 lc rgb '#000000' title 'native (1.0)', \\\n"
            "     '%s.dat' using 1:5 with linespoints lw 1.5 pt 7 ps 1.2 lc rgb '%s' "
            "title 'selected by collsel (filled)', \\\n"
            "     '' using 1:6 with linespoints lw 1.5 dt 2 pt 6 ps 2.2 lc rgb '%s' "
            "title 'best candidate (open)'",
            from, to, p.name, GREY, GREY);
    if (nspread > 0) {
        fprintf(gp, ", \\\n     '' using 1:14 with points pt 2 ps 1.2 lw 1.5 lc rgb '#000000' "
                    "title 'native again (run-to-run spread)'");
    }
    /* Colour the points by family: selected (column 7) filled, best (column 10) open. */
    const char *names[64];
    size_t nnames = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *done[64];
        size_t ndone = 0;
        for (size_t i = 0; i < k->nvalid; i++) {
            const cs_report_valid_t *v = &k->valid[i];
            const char *alg = pass == 0 ? v->selected_algorithm : v->oracle_algorithm;
            if (!valid_ok(v, loop) || alg[0] == '\0' ||
                seen_before(done, &ndone, 64, cs_text_family_name(alg))) {
                continue;
            }
            (void)seen_before(names, &nnames, 64, alg);
            fprintf(gp, ", \\\n     '' using 1:(strcol(%d) eq ", pass == 0 ? 7 : 10);
            cs_text_gp(gp, cs_text_family_name(alg));
            fprintf(gp, " ? $%d : NaN) with points pt %d ps %s lw 2 lc rgb '%s' notitle",
                    pass == 0 ? 5 : 6, pass == 0 ? 7 : 6, pass == 0 ? "1.2" : "2.2",
                    cs_text_colour(alg));
        }
    }
    for (size_t i = 0; i < nnames; i++) {
        fprintf(gp, ", \\\n     NaN with points pt 5 ps 1.5 lc rgb '%s' title ",
                cs_text_colour(names[i]));
        cs_text_gp(gp, cs_text_family_name(names[i]));
    }
    CS_CHECK(plot_end(&f, why, len));
    if (loop) {
        k->loop_validation_plot = p;
    } else {
        k->validation_plot = p;
    }
out:
    plot_drop(&f);
    return rc;
}

/* --- all plots ----------------------------------------------------------------------------- */

/* --- overlap per (collective, communicator size) --------------------------------------------- */

/* The families (algorithm keys) of okey k's rows, in order of first appearance, native first:
 * algs[0..*n-1] (at most cap). */
static size_t overlap_families(const cs_report_okey_t *k, const char **algs, size_t cap) {
    size_t n = 0;
    for (int native = 1; native >= 0; native--) {
        for (size_t i = 0; i < k->nrows; i++) {
            const char *a = k->rows[i].algorithm;
            const char *slash = strchr(a, '/');
            bool is_native = slash != NULL && strcmp(slash, "/native") == 0;
            if (is_native == (native == 1)) {
                (void)seen_before(algs, &n, cap, a); /* appends a new one */
            }
        }
    }
    return n;
}

/* The freed-CPU-share and overhead plot of okey k (docs/nonblocking.md "Tuning for overlap"):
 * per algorithm family (the variant with the least overhead at each size), two panels over the
 * message size: the freed share in % and the overhead in µs (log). */
static int write_overlap(const cs_report_machine_t *m, cs_report_okey_t *k, const cs_outdir_t *out,
                         const cs_plot_opts_t *o, char *why, size_t len) {
    int rc = CS_OK;
    plot_files_t f = {0};
    cs_report_plot_t p = {0};
    const char *algs[64];
    size_t nalgs = overlap_families(k, algs, 64);
    double lo = 0, hi = 0, from, to;
    char what[512], first[256];
    cs_report_key_t named = {
        .coll = k->coll, .pattern = k->pattern, .comm_size = k->comm_size, .ppn = k->ppn};
    size_t sized = 0;
    for (size_t i = 0; i < k->nrows; i++) {
        sized += k->rows[i].bytes > 0;
    }
    if (sized == 0 || nalgs == 0) {
        goto out; /* barrier: its one 0-byte point has no place on a log axis; the table shows it */
    }
    name_plot(&p, m, k->coll, "overlap", &named, CS_PLOT_WIDTH, CS_PLOT_HEIGHT);
    snprintf(first, sizeof(first),
             "i%s%s%s on %d processes (%d per node): freed CPU share and overhead when overlapped",
             k->coll, k->pattern[0] != '\0' ? " on pattern " : "", k->pattern, k->comm_size,
             k->ppn);
    snprintf(what, sizeof(what),
             "%s; per algorithm family the variant with the least overhead at each size", first);
    CS_CHECK(plot_dat(&f, out, &p, what, why, len));
    FILE *dat = f.dat;
    comment(dat, "machine %s, run %" PRId64 " (%s)", m->host, k->run->id, k->run->status_name);
    fprintf(dat, "# Blocks (gnuplot index 0, 1, ...) are separated by two blank lines.\n");
    for (size_t a = 0; a < nalgs; a++) {
        fputs(a > 0 ? "\n\n" : "", dat);
        comment(dat, "index %zu: %s", a, algs[a]);
        fprintf(dat, "# bytes freed_percent overhead_us nooverlap_us blocking_us compute_us "
                     "params\n");
        for (size_t i = 0; i < k->nrows;) {
            size_t e = i;
            const cs_report_overlap_t *best = NULL;
            while (e < k->nrows && k->rows[e].bytes == k->rows[i].bytes) {
                const cs_report_overlap_t *r = &k->rows[e++];
                if (strcmp(r->algorithm, algs[a]) == 0 &&
                    (best == NULL || r->overhead_us < best->overhead_us)) {
                    best = r;
                }
            }
            i = e;
            if (best == NULL || best->bytes == 0) {
                continue;
            }
            lo = lo > 0 && lo < (double)best->bytes ? lo : (double)best->bytes;
            hi = hi > (double)best->bytes ? hi : (double)best->bytes;
            fprintf(dat, "%" PRIu64 " %.6g", best->bytes, 100 * best->freed);
            value(dat, best->overhead_us);
            value(dat, best->nooverlap_us);
            value(dat, best->blocking_us);
            value(dat, best->compute_us);
            fputc(' ', dat);
            cs_text_dat(dat, best->params);
            fputc('\n', dat);
        }
    }
    CS_CHECK(plot_gp(&f, o, why, len));
    FILE *gp = f.gp;
    const cs_report_run_t *runs[] = {k->run};
    title(gp, first, m, runs, 1, p.height);
    padded(lo, hi, lo == hi ? 4 : 1.6, &from, &to);
    fputs("set multiplot\n", gp);
    for (int panel = 0; panel < 2; panel++) {
        fprintf(gp, "set origin %s, 0\nset size %s, 1\n", panel == 0 ? "0" : "0.42",
                panel == 0 ? "0.42" : "0.58");
        size_axis(gp, k->coll, from, to);
        if (panel == 0) {
            fputs("set ylabel 'freed CPU share (%): (no-overlap - overhead) / no-overlap'\n"
                  "unset logscale y\nset yrange [0:100]\nset format y '%g'\nset key off\n"
                  "plot ",
                  gp);
        } else {
            fputs("set ylabel 'overhead when overlapped (µs)'\n"
                  "set logscale y 10\nset yrange [*:*]\nset format y '%g'\n"
                  "set key outside right top vertical Left reverse\n"
                  "plot ",
                  gp);
        }
        for (size_t a = 0; a < nalgs; a++) {
            const char *slash = strchr(algs[a], '/');
            bool native = slash != NULL && strcmp(slash, "/native") == 0;
            fprintf(gp,
                    "%s'%s.dat' index %zu using 1:%d with linespoints lw %s pt %d ps 1.1 "
                    "lc rgb '%s' title ",
                    a > 0 ? ", \\\n     " : "", p.name, a, panel == 0 ? 2 : 3,
                    native ? "2.5" : "1.8", cs_text_point(algs[a]), cs_text_colour(algs[a]));
            cs_text_gp(gp, native          ? "native (MPI_I*, libnbc)"
                           : slash != NULL ? slash + 1
                                           : algs[a]);
        }
        fputs("\n", gp);
    }
    fputs("unset multiplot\n", gp);
    CS_CHECK(plot_end(&f, why, len));
    k->plot = p;
out:
    plot_drop(&f);
    return rc;
}

int cs_plot_write(cs_report_t *r, const cs_outdir_t *out, const cs_plot_opts_t *o, char *why,
                  size_t len) {
    int rc = CS_OK;
    for (size_t i = 0; i < r->nmachines; i++) {
        cs_report_machine_t *m = &r->machines[i];
        for (size_t j = 0; j < m->ncolls; j++) {
            cs_report_coll_t *c = &m->colls[j];
            for (size_t k = 0; k < c->nkeys; k++) {
                CS_CHECK(write_latency(m, &c->keys[k], false, out, o, why, len));
                CS_CHECK(write_latency(m, &c->keys[k], true, out, o, why, len));
            }
            CS_CHECK(write_speedup(m, c, false, out, o, why, len));
            CS_CHECK(write_speedup(m, c, true, out, o, why, len));
            CS_CHECK(write_winners(m, c, out, o, why, len));
            for (size_t k = 0; k < c->nkeys; k++) {
                CS_CHECK(write_validation(m, &c->keys[k], false, out, o, why, len));
                CS_CHECK(write_validation(m, &c->keys[k], true, out, o, why, len));
            }
        }
        for (size_t k = 0; k < m->nokeys; k++) {
            CS_CHECK(write_overlap(m, &m->okeys[k], out, o, why, len));
        }
    }
out:
    return rc;
}

/* Calls fn(plot, ctx) for every recorded plot of `r`, in page order. */
static size_t each_plot(const cs_report_t *r, void (*fn)(const cs_report_plot_t *, void *),
                        void *ctx) {
    size_t n = 0;
    for (size_t i = 0; i < r->nmachines; i++) {
        const cs_report_machine_t *m = &r->machines[i];
        for (size_t j = 0; j < m->ncolls; j++) {
            const cs_report_coll_t *c = &m->colls[j];
            const cs_report_plot_t *plots[] = {&c->speedup_plot, &c->loop_speedup_plot,
                                               &c->winners_plot};
            for (size_t k = 0; k < c->nkeys; k++) {
                const cs_report_plot_t *kp[] = {
                    &c->keys[k].latency_plot, &c->keys[k].loop_latency_plot,
                    &c->keys[k].validation_plot, &c->keys[k].loop_validation_plot};
                for (size_t e = 0; e < sizeof(kp) / sizeof(kp[0]); e++) {
                    if (kp[e]->name[0] != '\0') {
                        if (fn != NULL) {
                            fn(kp[e], ctx);
                        }
                        n++;
                    }
                }
            }
            for (size_t e = 0; e < 3; e++) {
                if (plots[e]->name[0] != '\0') {
                    if (fn != NULL) {
                        fn(plots[e], ctx);
                    }
                    n++;
                }
            }
        }
        for (size_t k = 0; k < m->nokeys; k++) {
            if (m->okeys[k].plot.name[0] != '\0') {
                if (fn != NULL) {
                    fn(&m->okeys[k].plot, ctx);
                }
                n++;
            }
        }
    }
    return n;
}

size_t cs_plot_count(const cs_report_t *r) {
    return each_plot(r, NULL, NULL);
}

/* --- running gnuplot ----------------------------------------------------------------------- */

typedef struct child {
    const char *fmt;
    pid_t pid;
    FILE *log;  /* gnuplot's stdout and stderr (an unlinked temporary file) */
    int err_fd; /* read end of a close-on-exec pipe: errno when exec failed, EOF when not */
} child_t;

typedef struct scripts {
    char **argv;
    size_t n;
} scripts_t;

static void add_script(const cs_report_plot_t *p, void *ctx) {
    scripts_t *s = ctx;
    snprintf(s->argv[s->n], 176, "%s.gp", p->name);
    s->n++;
}

/* Starts `gnuplot argv...` in directory `dir` with its output going to c->log. */
static int spawn(const char *gnuplot, const char *dir, char **argv, child_t *c, char *why,
                 size_t len) {
    int rc = CS_OK;
    int fds[2] = {-1, -1};
    c->pid = -1;
    c->err_fd = -1;
    c->log = tmpfile();
    if (c->log == NULL || pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(why, len, "cannot run gnuplot: %s", strerror(errno));
        rc = CS_ERR_ARG;
        goto out;
    }
    fflush(stdout);
    fflush(stderr);
    c->pid = fork();
    if (c->pid == 0) {
        int log = fileno(c->log);
        int null = open("/dev/null", O_RDONLY);
        if (chdir(dir) == 0 && null >= 0 && dup2(null, 0) >= 0 && dup2(log, 1) >= 0 &&
            dup2(log, 2) >= 0) {
            execvp(gnuplot, argv);
        }
        int err = errno;
        ssize_t ignored = write(fds[1], &err, sizeof(err));
        (void)ignored;
        _exit(127);
    }
    if (c->pid < 0) {
        snprintf(why, len, "cannot run gnuplot: fork: %s", strerror(errno));
        rc = CS_ERR_ARG;
        goto out;
    }
    c->err_fd = fds[0];
    fds[0] = -1;
out:
    if (fds[0] >= 0) {
        close(fds[0]);
    }
    if (fds[1] >= 0) {
        close(fds[1]);
    }
    return rc;
}

/* Copies the last part of the child's output (at most len - 1 bytes) into buf. */
static void log_tail(FILE *log, char *buf, size_t len) {
    buf[0] = '\0';
    if (log == NULL || fseek(log, 0, SEEK_END) != 0) {
        return;
    }
    long size = ftell(log);
    long start = size > (long)len - 1 ? size - ((long)len - 1) : 0;
    if (size <= 0 || fseek(log, start, SEEK_SET) != 0) {
        return;
    }
    size_t n = fread(buf, 1, len - 1, log);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) {
        buf[--n] = '\0';
    }
}

/* Waits for the child, terminating it when *stop gets set; CS_ERR_ARG (why says what
 * happened) unless gnuplot ran and exited 0. */
static int reap(child_t *c, const char *gnuplot, volatile sig_atomic_t *stop, char *why,
                size_t len) {
    int rc = CS_OK;
    int err = 0, status = 0;
    ssize_t n;
    char tail[1600];
    if (c->pid <= 0) {
        goto out;
    }
    do {
        n = read(c->err_fd, &err, sizeof(err));
    } while (n < 0 && errno == EINTR);
    if (stop != NULL && *stop != 0) {
        kill(c->pid, SIGTERM);
    }
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
        if (stop != NULL && *stop != 0) {
            kill(c->pid, SIGTERM);
        }
    }
    c->pid = -1;
    log_tail(c->log, tail, sizeof(tail));
    if (n == (ssize_t)sizeof(err)) {
        snprintf(why, len,
                 "cannot run gnuplot '%s': %s (install gnuplot-nox, or set COLLSEL_GNUPLOT to "
                 "the gnuplot program)",
                 gnuplot, strerror(err));
        rc = CS_ERR_ARG;
    } else if (WIFSIGNALED(status)) {
        snprintf(why, len, "gnuplot '%s' (%s) was killed by signal %d%s%s", gnuplot, c->fmt,
                 WTERMSIG(status), tail[0] != '\0' ? "; it said:\n" : "", tail);
        rc = CS_ERR_ARG;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(why, len, "gnuplot '%s' (%s) failed with exit status %d%s%s", gnuplot, c->fmt,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 tail[0] != '\0' ? "; it said:\n" : "", tail);
        rc = CS_ERR_ARG;
    } else if (tail[0] != '\0') {
        fprintf(stderr, "collsel-report: gnuplot (%s) said:\n%s\n", c->fmt, tail);
    }
out:
    if (c->err_fd >= 0) {
        close(c->err_fd);
        c->err_fd = -1;
    }
    if (c->log != NULL) {
        fclose(c->log);
        c->log = NULL;
    }
    return rc;
}

typedef struct check {
    const cs_outdir_t *out;
    const char *fmt;
    char *why;
    size_t len;
    int rc;
} check_t;

static void check_image(const cs_report_plot_t *p, void *ctx) {
    check_t *c = ctx;
    char file[256], path[8192];
    struct stat st;
    if (c->rc != CS_OK) {
        return;
    }
    snprintf(file, sizeof(file), "%s.%s", p->name, c->fmt);
    if (cs_outdir_path(c->out, file, path, sizeof(path)) != CS_OK || stat(path, &st) != 0 ||
        st.st_size == 0) {
        snprintf(c->why, c->len, "gnuplot exited successfully but wrote no %s", file);
        c->rc = CS_ERR_ARG;
    }
}

int cs_plot_render(const cs_report_t *r, const cs_outdir_t *out, const cs_plot_opts_t *o, char *why,
                   size_t len) {
    int rc = CS_OK;
    const char *fmts[2] = {NULL, NULL};
    size_t nfmts = 0;
    child_t children[2] = {{.pid = -1, .err_fd = -1}, {.pid = -1, .err_fd = -1}};
    scripts_t s = {NULL, 0};
    char *names = NULL;
    char expr[2][32];
    char **argv[2] = {NULL, NULL};

    size_t n = cs_plot_count(r);
    if (n == 0) {
        goto out;
    }
    if (o->png) {
        fmts[nfmts++] = "png";
    }
    if (o->svg) {
        fmts[nfmts++] = "svg";
    }
    /* argv: gnuplot -e "fmt='png'" a.gp b.gp ... NULL; one process per format, both at once. */
    names = calloc(n, 176);
    s.argv = calloc(n, sizeof(*s.argv));
    CS_REQUIRE(names != NULL && s.argv != NULL, CS_ERR_NOMEM);
    for (size_t i = 0; i < n; i++) {
        s.argv[i] = names + i * 176;
    }
    (void)each_plot(r, add_script, &s);
    for (size_t f = 0; f < nfmts; f++) {
        argv[f] = calloc(n + 4, sizeof(char *));
        CS_REQUIRE(argv[f] != NULL, CS_ERR_NOMEM);
        snprintf(expr[f], sizeof(expr[f]), "fmt='%s'", fmts[f]);
        argv[f][0] = (char *)o->gnuplot;
        argv[f][1] = "-e";
        argv[f][2] = expr[f];
        for (size_t i = 0; i < n; i++) {
            argv[f][3 + i] = s.argv[i];
        }
        children[f].fmt = fmts[f];
        CS_CHECK(spawn(o->gnuplot, out->tmp, argv[f], &children[f], why, len));
    }
    for (size_t f = 0; f < nfmts; f++) {
        char mine[2048];
        int status = reap(&children[f], o->gnuplot, o->stop, mine, sizeof(mine));
        if (status < 0 && rc == CS_OK) {
            snprintf(why, len, "%s", mine);
            rc = status;
        }
    }
    CS_CHECK(rc);
    for (size_t f = 0; f < nfmts; f++) {
        check_t c = {out, fmts[f], why, len, CS_OK};
        (void)each_plot(r, check_image, &c);
        CS_CHECK(c.rc);
    }
out:
    for (size_t f = 0; f < 2; f++) {
        if (children[f].pid > 0) {
            kill(children[f].pid, SIGTERM);
            char ignored[16];
            (void)reap(&children[f], o->gnuplot, NULL, ignored, sizeof(ignored));
        }
        if (children[f].log != NULL) {
            fclose(children[f].log);
        }
        if (children[f].err_fd >= 0) {
            close(children[f].err_fd);
        }
        free(argv[f]);
    }
    free(s.argv);
    free(names);
    return rc;
}

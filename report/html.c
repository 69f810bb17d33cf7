/* collsel-report's index.html (see html.h). */
#include "html.h"

#include "text.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char style[] =
    "body{font-family:'DejaVu Sans',Verdana,Helvetica,Arial,sans-serif;max-width:1120px;"
    "margin:1em auto;padding:0 1em;color:#222;line-height:1.4}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}\n"
    "h2{border-bottom:2px solid #ccc;padding-bottom:.15em;margin-top:2em}\n"
    "h3{margin-top:1.8em;border-bottom:1px solid #e2e2e2}\n"
    "h4{margin:1.2em 0 .3em}\n"
    "table{border-collapse:collapse;margin:.4em 0 1em;font-size:.9em}\n"
    "th,td{border:1px solid #cfcfcf;padding:.2em .55em;text-align:left;vertical-align:top}\n"
    "th{background:#f1f1f1}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.machine th{width:12em}\n"
    ".warn{background:#fff1c2;border:1px solid #d9a400;padding:0 .35em;font-weight:bold}\n"
    ".note{color:#555;font-size:.9em}\n"
    ".sw{display:inline-block;width:.85em;height:.85em;border-radius:2px;"
    "vertical-align:-.05em;margin-right:.35em;border:1px solid #0003}\n"
    "figure{margin:1em 0 1.4em}\n"
    "figure img{max-width:100%;height:auto;border:1px solid #ddd}\n"
    "figcaption{font-size:.88em;color:#444;max-width:960px}\n"
    "nav{margin:.6em 0}nav a{margin-right:.9em}\n"
    "code{font-size:.95em;background:#f4f4f4;padding:0 .2em}\n"
    ".slower{color:#a40000}.faster{color:#006b21}\n";

/* --- formatting ---------------------------------------------------------------------------- */

/* A time in µs with about 3 significant digits; "–" when unknown. */
static void us(FILE *f, double v) {
    if (!isfinite(v)) {
        fputs("–", f);
    } else if (fabs(v) >= 100) {
        fprintf(f, "%.0f", v);
    } else if (fabs(v) >= 10) {
        fprintf(f, "%.1f", v);
    } else {
        fprintf(f, "%.2f", v);
    }
}

/* A ratio such as a speedup, "1.23×", coloured when far from 1. */
static void ratio(FILE *f, double v) {
    if (!isfinite(v) || v <= 0) {
        fputs("–", f);
        return;
    }
    const char *cls = v >= 1.03 ? "faster" : v <= 0.97 ? "slower" : NULL;
    if (cls != NULL) {
        fprintf(f, "<span class=\"%s\">%.2f×</span>", cls, v);
    } else {
        fprintf(f, "%.2f×", v);
    }
}

static void bytes(FILE *f, uint64_t b) {
    char buf[32];
    fputs(cs_text_bytes(b, buf, sizeof(buf)), f);
}

/* "2026-11-21T23:59:54Z" -> "2026-11-21 23:59:54 UTC". */
static void date(FILE *f, const char *iso) {
    if (iso == NULL) {
        fputs("–", f);
    } else if (strlen(iso) == 20 && iso[10] == 'T' && iso[19] == 'Z') {
        fprintf(f, "%.10s %.8s UTC", iso, iso + 11);
    } else {
        cs_text_html(f, iso);
    }
}

/* A family's colour swatch and name ("ring", or "orth(dims=2x4)" with params). */
static void family(FILE *f, const char *algorithm, const char *params) {
    fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>", cs_text_colour(algorithm));
    cs_text_html(f, cs_text_family_name(algorithm));
    if (params != NULL && params[0] != '\0') {
        fputc('(', f);
        cs_text_html(f, params);
        fputc(')', f);
    }
}

/* An id for HTML anchors: "m<id>-<coll>" with the name made safe. */
static void anchor(FILE *f, const cs_report_machine_t *m, const char *coll) {
    char part[96];
    fprintf(f, "m%" PRId64 "-%s", m->id, cs_text_file_part(coll, part, sizeof(part)));
}

static void run_line(FILE *f, const cs_report_run_t *r) {
    fprintf(f, "run %" PRId64 ": ", r->id);
    date(f, r->started_at);
    fputs(" to ", f);
    date(f, r->finished_at);
    fprintf(f, ", %s", r->status_name);
    if (r->status != CS_DB_RUN_DONE) {
        fputs(" <span class=\"warn\">not finished: partial results</span>", f);
    }
    if (r->version != NULL) {
        fputs(", collsel ", f);
        cs_text_html(f, r->version);
    }
}

static void layout(FILE *f, const cs_report_run_t *r) {
    fprintf(f, "%d process%s on %d node%s (%d per node)", r->nprocs, r->nprocs == 1 ? "" : "es",
            r->nnodes, r->nnodes == 1 ? "" : "s", r->ppn);
    if (r->oversubscribed) {
        fputs(" <span class=\"warn\">oversubscribed</span> more ranks than cores: timings are "
              "noisy and comparable only within one run",
              f);
    }
}

/* --- figures ------------------------------------------------------------------------------- */

/* "on pattern <name>, " for a neighbourhood collective's key (docs/neighbor.md), else "on ". */
static void pattern_words(FILE *f, const cs_report_key_t *k) {
    fputs("on ", f);
    if (k->pattern[0] != '\0') {
        fputs("pattern ", f);
        cs_text_html(f, k->pattern);
        fputs(", ", f);
    }
}

static void figure(FILE *f, const cs_report_plot_t *p, const cs_html_opts_t *o, const char *alt,
                   const char *caption) {
    const char *shown = o->png ? "png" : "svg";
    fprintf(f, "<figure><a href=\"%s.%s\"><img src=\"%s.%s\" width=\"%d\" height=\"%d\" alt=\"",
            p->name, o->svg ? "svg" : shown, p->name, shown, p->width, p->height);
    cs_text_html(f, alt);
    fputs("\"></a>\n<figcaption>", f);
    fputs(caption, f);
    fputs(" Files: ", f);
    if (o->png) {
        fprintf(f, "<a href=\"%s.png\">PNG</a> · ", p->name);
    }
    if (o->svg) {
        fprintf(f, "<a href=\"%s.svg\">SVG</a> · ", p->name);
    }
    fprintf(f,
            "<a href=\"%s.dat\">data</a> · <a href=\"%s.gp\">gnuplot script</a>."
            "</figcaption></figure>\n",
            p->name, p->name);
}

/* --- tables -------------------------------------------------------------------------------- */

static void rules_table(FILE *f, const cs_report_key_t *k) {
    fputs("<table><tr><th>sizes from (≥)</th><th>to (&lt;)</th><th>winner</th>"
          "<th>then, in order</th><th>winner µs</th><th>native µs</th><th>speedup</th>"
          "<th>p-value</th></tr>\n",
          f);
    for (size_t i = 0; i < k->nrules; i++) {
        const cs_rule_t *r = &k->rules[i];
        if (r->rank != 1) {
            continue;
        }
        fputs("<tr><td class=\"num\">", f);
        bytes(f, r->lo_bytes);
        fputs("</td><td class=\"num\">", f);
        if (r->hi_bytes == CS_RULE_UNBOUNDED) {
            fputs("∞", f);
        } else {
            bytes(f, r->hi_bytes);
        }
        fputs("</td><td>", f);
        family(f, r->algorithm, r->params);
        fputs("</td><td>", f);
        bool any = false;
        for (size_t j = 0; j < k->nrules; j++) {
            const cs_rule_t *q = &k->rules[j];
            if (q->lo_bytes == r->lo_bytes && q->rank > 1) {
                fputs(any ? ", " : "", f);
                family(f, q->algorithm, q->params);
                any = true;
            }
        }
        fputs(any ? "" : "–", f);
        fputs("</td><td class=\"num\">", f);
        us(f, r->median_us);
        fputs("</td><td class=\"num\">", f);
        us(f, r->native_us);
        fputs("</td><td class=\"num\">", f);
        ratio(f, r->native_us / r->median_us);
        fputs("</td><td class=\"num\">", f);
        if (isfinite(r->p_value)) {
            fprintf(f, "%.2g", r->p_value);
        } else {
            fputs("–", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void valid_table(FILE *f, const cs_report_key_t *k) {
    fputs("<table><tr><th>bytes</th><th>native µs</th><th>selected by collsel</th>"
          "<th>µs</th><th>best candidate</th><th>µs</th><th>speedup over native</th>"
          "<th>regret vs best</th></tr>\n",
          f);
    for (size_t i = 0; i < k->nvalid; i++) {
        const cs_report_valid_t *v = &k->valid[i];
        fputs("<tr><td class=\"num\">", f);
        bytes(f, v->bytes);
        fputs("</td><td class=\"num\">", f);
        us(f, v->native_us);
        fputs("</td><td>", f);
        if (v->selected_algorithm[0] != '\0') {
            family(f, v->selected_algorithm, v->selected_params);
        } else {
            fputs("?", f);
        }
        fputs("</td><td class=\"num\">", f);
        us(f, v->selected_us);
        fputs("</td><td>", f);
        if (v->oracle_algorithm[0] != '\0') {
            family(f, v->oracle_algorithm, v->oracle_params);
        } else {
            fputs("?", f);
        }
        fputs("</td><td class=\"num\">", f);
        us(f, v->oracle_us);
        fputs("</td><td class=\"num\">", f);
        ratio(f, v->native_us / v->selected_us);
        fprintf(f, "</td><td class=\"num\">%+.1f %%</td></tr>\n",
                100 * (v->selected_us / v->oracle_us - 1));
    }
    fputs("</table>\n", f);
}

/* true when a family measured on key k is a message-combining schedule whose rounds and volume
 * are known (cs_report_iso_cost: the key's pattern is isomorphic). */
static bool has_iso_schedule(const cs_report_key_t *k) {
    int rounds;
    long volume;
    for (size_t i = 0; i < k->nfamilies; i++) {
        if (cs_report_iso_cost(k, k->families[i].algorithm, &rounds, &volume) == CS_OK) {
            return true;
        }
    }
    return false;
}

/* The message-combining table of key k: for every algorithm family measured, its rounds D and
 * volume V where it is an iso schedule (cs_report_iso_cost), then its median time (fastest
 * variant) at each measured size. */
static void iso_table(FILE *f, const cs_report_key_t *k) {
    char text[32];
    int rounds;
    long volume;
    fputs("<table class=\"iso\"><tr><th>algorithm</th><th>rounds D</th><th>volume V "
          "(blocks)</th>",
          f);
    for (size_t j = 0; j < k->nsizes; j++) {
        fprintf(f, "<th>%s</th>", cs_text_bytes(k->sizes[j], text, sizeof(text)));
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < k->nfamilies; i++) {
        const cs_report_family_t *fam = &k->families[i];
        bool iso = cs_report_iso_cost(k, fam->algorithm, &rounds, &volume) == CS_OK;
        fputs("<tr><td>", f);
        cs_text_html(f, fam->name);
        if (iso) {
            fprintf(f, "</td><td class=\"num\">%d</td><td class=\"num\">%ld", rounds, volume);
        } else {
            fputs("</td><td class=\"num\">–</td><td class=\"num\">–", f);
        }
        for (size_t j = 0; j < k->nsizes; j++) {
            const cs_report_meas_t *best = cs_report_best_at(fam, k->sizes[j]);
            fputs("</td><td class=\"num\">", f);
            us(f, best != NULL ? best->median_us : NAN);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* 1 when key k was measured at 0 bytes only (barrier: no data), which a log-log latency plot
 * cannot show. */
static bool only_zero_bytes(const cs_report_key_t *k) {
    return k->nmeas > 0 && k->nsizes == 1 && k->sizes[0] == 0;
}

/* The latency table of a key measured at 0 bytes only: every variant measured, native first,
 * with its median and quartiles under the synchronised metric and its loop median. */
static void nodata_table(FILE *f, const cs_report_key_t *k) {
    fputs("<table><tr><th>variant</th><th>median µs</th><th>q1 µs</th><th>q3 µs</th>"
          "<th>loop median µs</th><th>speedup over native</th></tr>\n",
          f);
    const cs_report_meas_t *native =
        k->nfamilies > 0 && k->families[0].native ? cs_report_best_at(&k->families[0], 0) : NULL;
    for (size_t i = 0; i < k->nfamilies; i++) {
        const cs_report_family_t *fam = &k->families[i];
        for (size_t j = 0; j < k->nmeas; j++) {
            const cs_report_meas_t *me = &k->meas[j];
            if (strcmp(me->algorithm, fam->algorithm) != 0) {
                continue;
            }
            fputs("<tr><td>", f);
            family(f, me->algorithm, me->params);
            fputs("</td><td class=\"num\">", f);
            us(f, me->median_us);
            fputs("</td><td class=\"num\">", f);
            us(f, me->q1_us);
            fputs("</td><td class=\"num\">", f);
            us(f, me->q3_us);
            fputs("</td><td class=\"num\">", f);
            us(f, me->loop_reps > 0 ? me->loop_median_us : NAN);
            fputs("</td><td class=\"num\">", f);
            ratio(f, native != NULL && me->median_us > 0 ? native->median_us / me->median_us : NAN);
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

static int double_order(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Geometric mean of native/selected and the median of selected/oracle - 1 over the key's
 * validation rows (NaN when there are none, or no memory for the median). */
static void valid_summary(const cs_report_key_t *k, double *speedup, double *regret) {
    double log_sum = 0;
    size_t n = 0;
    double *r = malloc((k->nvalid > 0 ? k->nvalid : 1) * sizeof(*r));
    for (size_t i = 0; i < k->nvalid; i++) {
        const cs_report_valid_t *v = &k->valid[i];
        if (v->native_us > 0 && v->selected_us > 0 && v->oracle_us > 0) {
            log_sum += log(v->native_us / v->selected_us);
            if (r != NULL) {
                r[n] = v->selected_us / v->oracle_us - 1;
            }
            n++;
        }
    }
    *speedup = n > 0 ? exp(log_sum / (double)n) : NAN;
    *regret = NAN;
    if (r != NULL && n > 0) {
        qsort(r, n, sizeof(*r), double_order);
        *regret = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
    }
    free(r);
}

static void summary(FILE *f, const cs_report_machine_t *m) {
    fputs("<table><tr><th>collective</th><th>processes</th><th>intervals</th>"
          "<th>winning families</th><th>largest speedup over native</th>"
          "<th>validation: speedup over native (geometric mean)</th>"
          "<th>validation: regret vs best (median)</th></tr>\n",
          f);
    for (size_t c = 0; c < m->ncolls; c++) {
        const cs_report_coll_t *coll = &m->colls[c];
        for (size_t i = 0; i < coll->nkeys; i++) {
            const cs_report_key_t *k = &coll->keys[i];
            fputs("<tr><td><a href=\"#", f);
            anchor(f, m, coll->name);
            fputs("\">", f);
            cs_text_html(f, coll->name);
            fputs("</a></td><td class=\"num\">", f);
            if (k->pattern[0] != '\0') {
                cs_text_html(f, k->pattern);
                fputs(", ", f);
            }
            fprintf(f, "%d (%d per node)</td><td class=\"num\">", k->comm_size, k->ppn);
            size_t intervals = 0;
            for (size_t j = 0; j < k->nrules; j++) {
                intervals += k->rules[j].rank == 1;
            }
            fprintf(f, "%zu</td><td>", intervals);
            const char *seen[64];
            size_t nseen = 0;
            for (size_t j = 0; j < k->nrules; j++) {
                const cs_rule_t *r = &k->rules[j];
                bool dup = false;
                for (size_t s = 0; s < nseen && !dup; s++) {
                    dup = strcmp(seen[s], r->algorithm) == 0;
                }
                if (r->rank != 1 || dup || nseen == 64) {
                    continue;
                }
                seen[nseen++] = r->algorithm;
                fputs(nseen > 1 ? ", " : "", f);
                family(f, r->algorithm, NULL);
            }
            fputs(nseen == 0 ? "no rules</td>" : "</td>", f);
            /* Largest speedup of the tuned choice at a measured size. */
            double best = NAN;
            uint64_t at = 0;
            for (size_t j = 0; j < k->nsizes; j++) {
                const cs_report_meas_t *t = cs_report_tuned_at(k, k->sizes[j]);
                const cs_report_meas_t *n = cs_report_native_at(k, k->sizes[j]);
                if (t != NULL && n != NULL && t->median_us > 0) {
                    double s = n->median_us / t->median_us;
                    if (!(s <= best)) {
                        best = s;
                        at = k->sizes[j];
                    }
                }
            }
            fputs("<td class=\"num\">", f);
            ratio(f, best);
            if (isfinite(best)) {
                fputs(" at ", f);
                bytes(f, at);
                fputs(" bytes", f);
            }
            double speedup, regret;
            valid_summary(k, &speedup, &regret);
            fputs("</td><td class=\"num\">", f);
            ratio(f, speedup);
            fputs("</td><td class=\"num\">", f);
            if (isfinite(regret)) {
                fprintf(f, "%+.1f %%", 100 * regret);
            } else {
                fputs("not validated", f);
            }
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

/* --- sections ------------------------------------------------------------------------------ */

static void coll_section(FILE *f, const cs_report_machine_t *m, const cs_report_coll_t *c,
                         const cs_html_opts_t *o) {
    char alt[256], caption[1024];
    fputs("<h3 id=\"", f);
    anchor(f, m, c->name);
    fputs("\">", f);
    cs_text_html(f, c->name);
    fputs("</h3>\n", f);
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (k->latency_plot.name[0] == '\0') {
            continue;
        }
        fputs("<h4>Latency ", f);
        pattern_words(f, k);
        fprintf(f, "%d processes (%d per node)</h4>\n", k->comm_size, k->ppn);
        snprintf(alt, sizeof(alt), "%s latency against message size on %s%s%d processes", c->name,
                 k->pattern, k->pattern[0] ? ", " : "", k->comm_size);
        snprintf(caption, sizeof(caption),
                 "Median time of native (black) and of the fastest variant of each algorithm "
                 "family at each message size (run %" PRId64 "), log–log; bars from the first to "
                 "the third quartile of the repetitions. Circles mark what the rules chose at "
                 "each size. Lower is faster.",
                 k->run->id);
        figure(f, &k->latency_plot, o, alt, caption);
        if (k->loop_latency_plot.name[0] != '\0') {
            snprintf(alt, sizeof(alt),
                     "%s latency against message size on %d processes, back-to-back loop", c->name,
                     k->comm_size);
            snprintf(caption, sizeof(caption),
                     "The same variants under the back-to-back loop metric (run %" PRId64
                     "): calls timed in a short loop with a barrier between them, each rank's "
                     "mean, then the mean over ranks, as standard micro-benchmark suites "
                     "report it; the plot above times one call from a synchronised start and "
                     "keeps the slowest rank. Bars from the first to the third quartile.",
                     k->run->id);
            figure(f, &k->loop_latency_plot, o, alt, caption);
        }
    }
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (k->latency_plot.name[0] != '\0' || !only_zero_bytes(k)) {
            continue;
        }
        fprintf(f, "<h4>Latency of each variant on %d processes (%d per node)</h4>\n", k->comm_size,
                k->ppn);
        fprintf(f,
                "<p class=\"note\">No data, so no size to plot against: the median time of one "
                "call from a synchronised start (slowest rank) with its quartiles, and the "
                "back-to-back loop metric's median, of every variant measured in run %" PRId64
                "; speedup over native under the first. Lower is faster.</p>\n",
                k->run->id);
        nodata_table(f, k);
    }
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (k->nmeas == 0 || !has_iso_schedule(k)) {
            continue;
        }
        fputs("<h4>Message combining ", f);
        pattern_words(f, k);
        fprintf(f, "%d processes (%d per node)</h4>\n", k->comm_size, k->ppn);
        fprintf(f,
                "<p class=\"note\">The pattern is isomorphic (%d neighbours in %d dimensions): "
                "rounds D and volume V (blocks each process sends, intermediate hops "
                "included) of each message-combining schedule next to the measured median "
                "times in µs (fastest variant, run %" PRId64 ") at each block size.</p>\n",
                k->iso_s, k->iso_d, k->run->id);
        iso_table(f, k);
    }
    if (c->speedup_plot.name[0] != '\0') {
        fputs("<h4>Speedup of the tuned choice over native</h4>\n", f);
        snprintf(alt, sizeof(alt), "%s speedup of the tuned choice over native", c->name);
        figure(f, &c->speedup_plot, o, alt,
               "Native time divided by the time of the rules' choice, measured at each size in "
               "the same run. Above the dashed 1.0 line the tuned choice is faster; points on it "
               "are sizes where native stays (nothing was significantly faster); the colour says "
               "which family won.");
    }
    if (c->loop_speedup_plot.name[0] != '\0') {
        fputs("<h4>Speedup of the tuned choice over native, back-to-back loop metric</h4>\n", f);
        snprintf(alt, sizeof(alt), "%s speedup of the tuned choice over native, loop metric",
                 c->name);
        figure(f, &c->loop_speedup_plot, o, alt,
               "The same as above under the back-to-back loop metric (mean over ranks of each "
               "rank's mean call time in a loop with barriers), which standard micro-benchmark "
               "suites report. Below 1.0 the tuned choice is slower there than native.");
    }
    if (c->winners_plot.name[0] != '\0') {
        fputs("<h4>Winner map</h4>\n", f);
        snprintf(alt, sizeof(alt), "%s winners by message size and communicator size", c->name);
        figure(f, &c->winners_plot, o, alt,
               "Which algorithm the selector runs for each message size (columns) and "
               "communicator size (rows): each cell is one size interval of the rules.");
    }
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (k->nrules == 0) {
            continue;
        }
        fputs("<h4>Rules ", f);
        pattern_words(f, k);
        fprintf(f, "%d processes (%d per node)</h4>\n", k->comm_size, k->ppn);
        fputs("<p class=\"note\">For a call of <i>b</i> bytes with from ≤ <i>b</i> &lt; to, the "
              "selector runs the winner (or the next candidate that applies to the call). Times "
              "are medians at the interval's first measured size; the p-value is the rank-sum "
              "test against native.</p>\n",
              f);
        rules_table(f, k);
    }
    for (size_t i = 0; i < c->nkeys; i++) {
        const cs_report_key_t *k = &c->keys[i];
        if (k->nvalid == 0) {
            continue;
        }
        fprintf(f, "<h4>Validation on %d processes (%d per node), run %" PRId64 "</h4>\n",
                k->comm_size, k->ppn, k->vrun->id);
        if (k->validation_plot.name[0] != '\0') {
            snprintf(alt, sizeof(alt), "%s validation on %d processes", c->name, k->comm_size);
            figure(f, &k->validation_plot, o, alt,
                   "collsel-bench --validate re-measured, interleaved, native, the selector's "
                   "choice (filled) and the fastest candidate of the tuning run (open), shown "
                   "relative to native: below 1.0 is faster than native; a filled point above "
                   "its open circle is regret (the choice was slower than the best). Crosses, "
                   "where measured, are native timed a second time in the same interleaving: "
                   "how far native moves from itself, the noise a ratio is judged against.");
        }
        if (k->loop_validation_plot.name[0] != '\0') {
            snprintf(alt, sizeof(alt), "%s validation on %d processes, back-to-back loop", c->name,
                     k->comm_size);
            figure(f, &k->loop_validation_plot, o, alt,
                   "The same re-measurement under the back-to-back loop metric (each rank's mean "
                   "call time in a short loop with barriers, then the mean over ranks), which "
                   "standard micro-benchmark suites report.");
        }
        valid_table(f, k);
    }
}

static void runs_table(FILE *f, const cs_report_machine_t *m) {
    fputs("<table><tr><th>run</th><th>kind</th><th>status</th><th>started</th><th>finished</th>"
          "<th>processes</th><th>nodes</th><th>per node</th><th>oversubscribed</th>"
          "<th>resumed</th><th>collsel</th><th>plan (args)</th></tr>\n",
          f);
    for (size_t i = 0; i < m->nruns; i++) {
        const cs_report_run_t *r = &m->runs[i];
        fprintf(f, "<tr><td class=\"num\">%" PRId64 "</td><td>%s</td><td>%s</td><td>", r->id,
                r->validate ? "validation" : "tuning", r->status_name);
        date(f, r->started_at);
        fputs("</td><td>", f);
        date(f, r->finished_at);
        fprintf(f,
                "</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%d"
                "</td><td>%s</td><td class=\"num\">%d</td><td>",
                r->nprocs, r->nnodes, r->ppn, r->oversubscribed ? "yes" : "no", r->resumes);
        cs_text_html(f, r->version != NULL ? r->version : "–");
        fputs("</td><td><code>", f);
        cs_text_html(f, r->args);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void failures_table(FILE *f, const cs_report_machine_t *m) {
    fputs("<table><tr><th>run</th><th>collective</th><th>processes</th><th>algorithm</th>"
          "<th>bytes</th><th>what differed</th></tr>\n",
          f);
    for (size_t i = 0; i < m->nfailures; i++) {
        const cs_report_failure_t *x = &m->failures[i];
        fprintf(f, "<tr><td class=\"num\">%" PRId64 "</td><td>", x->run_id);
        cs_text_html(f, x->coll);
        fprintf(f, "</td><td class=\"num\">%d</td><td>", x->comm_size);
        family(f, x->algorithm, x->params);
        fputs("</td><td class=\"num\">", f);
        bytes(f, x->bytes);
        fputs("</td><td>", f);
        cs_text_html(f, x->message);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The runs the machine's plots show: the distinct runs of its keys (measurements first). */
static size_t shown_runs(const cs_report_machine_t *m, bool validation,
                         const cs_report_run_t **runs, size_t max) {
    size_t n = 0;
    for (size_t c = 0; c < m->ncolls; c++) {
        for (size_t i = 0; i < m->colls[c].nkeys; i++) {
            const cs_report_key_t *k = &m->colls[c].keys[i];
            const cs_report_run_t *r = validation ? k->vrun : k->run;
            bool seen = r == NULL;
            for (size_t j = 0; j < n && !seen; j++) {
                seen = runs[j] == r;
            }
            if (!seen && n < max) {
                runs[n++] = r;
            }
        }
    }
    return n;
}

/* The rank-1 nonblocking rule of m for (coll, pattern, comm_size, ppn) whose interval holds
 * bytes. */
static const cs_rule_t *nb_winner(const cs_report_machine_t *m, const cs_report_okey_t *k,
                                  uint64_t bytes) {
    for (size_t i = 0; i < m->nnb_rules; i++) {
        const cs_rule_t *r = &m->nb_rules[i];
        if (r->rank == 1 && r->comm_size == k->comm_size && r->ppn == k->ppn &&
            strcmp(cs_coll_name(r->coll), k->coll) == 0 && strcmp(r->pattern, k->pattern) == 0 &&
            r->lo_bytes <= bytes && bytes < r->hi_bytes) {
            return r;
        }
    }
    return NULL;
}

/* Overlap (docs/nonblocking.md "Tuning for overlap"): per (collective, pattern of a
 * neighbourhood collective, communicator size) the freed-CPU-share and overhead plot and a table
 * per size: native (MPI_I<coll>) against the collsel candidate with the least overhead, and the
 * nonblocking rule's choice. */
static void overlap_section(FILE *f, const cs_report_machine_t *m, const cs_html_opts_t *o) {
    fprintf(f, "<h3 id=\"m%" PRId64 "-overlap\">Overlap: nonblocking collectives</h3>\n", m->id);
    fputs("<p class=\"note\">Each candidate that can run as a nonblocking operation and the MPI "
          "library's own <code>MPI_I&lt;coll&gt;</code> (Open MPI: libnbc), timed interleaved: "
          "blocking, started then waited (no overlap), and overlapped with a compute loop at "
          "least as long as the no-overlap time, testing every few µs. Overhead: the "
          "overlapped run minus its computation, the time the process spent in MPI and collsel "
          "(what an overlapping application sees). Freed CPU share: (no-overlap − overhead) / "
          "no-overlap. Nonblocking rules choose by overhead.</p>\n",
          f);
    for (size_t i = 0; i < m->nokeys; i++) {
        const cs_report_okey_t *k = &m->okeys[i];
        char alt[256], caption[512];
        fprintf(f, "<h4>i");
        cs_text_html(f, k->coll);
        if (k->pattern[0] != '\0') {
            fputs(" on pattern ", f);
            cs_text_html(f, k->pattern);
        }
        fprintf(f, " on %d processes (%d per node)</h4>\n", k->comm_size, k->ppn);
        if (k->plot.name[0] != '\0') {
            snprintf(alt, sizeof(alt), "freed CPU share and overhead of i%s%s%s on %d processes",
                     k->coll, k->pattern[0] != '\0' ? " on pattern " : "", k->pattern,
                     k->comm_size);
            snprintf(caption, sizeof(caption),
                     "Freed CPU share (left) and overhead (right) per algorithm family, the "
                     "variant with the least overhead at each size; run %" PRId64 "%s.",
                     k->run->id, k->run->oversubscribed ? ", oversubscribed: timings noisy" : "");
            figure(f, &k->plot, o, alt, caption);
        }
        fprintf(f, "<table><tr><th>%s</th>", k->pattern[0] != '\0' ? "bytes per block" : "size");
        fputs("<th>native overhead (µs)</th><th>native freed</th>"
              "<th>best collsel</th><th>overhead (µs)</th><th>freed</th>"
              "<th>nonblocking rule</th></tr>\n",
              f);
        for (size_t r = 0; r < k->nrows;) {
            size_t e = r;
            const cs_report_overlap_t *native = NULL, *best = NULL;
            while (e < k->nrows && k->rows[e].bytes == k->rows[r].bytes) {
                const cs_report_overlap_t *x = &k->rows[e++];
                const char *slash = strchr(x->algorithm, '/');
                if (slash != NULL && strcmp(slash, "/native") == 0) {
                    native = x;
                } else if (best == NULL || x->overhead_us < best->overhead_us) {
                    best = x;
                }
            }
            const cs_rule_t *w = nb_winner(m, k, k->rows[r].bytes);
            fputs("<tr><td class=\"num\">", f);
            bytes(f, k->rows[r].bytes);
            fputs("</td><td class=\"num\">", f);
            us(f, native != NULL ? native->overhead_us : NAN);
            fprintf(f, "</td><td class=\"num\">%.0f %%</td><td>",
                    native != NULL ? 100 * native->freed : 0);
            if (best != NULL) {
                family(f, best->algorithm, best->params);
            } else {
                fputs("–", f);
            }
            fputs("</td><td class=\"num\">", f);
            us(f, best != NULL ? best->overhead_us : NAN);
            fprintf(f, "</td><td class=\"num\">%.0f %%</td><td>",
                    best != NULL ? 100 * best->freed : 0);
            if (w != NULL) {
                family(f, w->algorithm, w->params);
            } else {
                fputs("–", f);
            }
            fputs("</td></tr>\n", f);
            r = e;
        }
        fputs("</table>\n", f);
    }
}

static void machine_section(FILE *f, const cs_report_machine_t *m, const cs_html_opts_t *o,
                            bool several) {
    fprintf(f, "<section id=\"m%" PRId64 "\">\n", m->id);
    if (several) {
        fputs("<h2>Machine ", f);
        cs_text_html(f, m->host);
        fprintf(f, " (id %" PRId64 ")</h2>\n", m->id);
    }
    fputs("<table class=\"machine\">\n<tr><th>host</th><td>", f);
    cs_text_html(f, m->host);
    fputs("</td></tr>\n<tr><th>hwloc topology</th><td>", f);
    cs_text_html(f, m->topology);
    fputs("</td></tr>\n<tr><th>MPI library</th><td>", f);
    cs_text_html(f, m->mpi_library);
    fputs("</td></tr>\n", f);
    /* The runs shown, each with its job layout unless the one above has the same. */
    const cs_report_run_t *runs[32];
    const cs_report_run_t *above = NULL;
    for (int v = 0; v < 2; v++) {
        size_t n = shown_runs(m, v == 1, runs, 32);
        for (size_t i = 0; i < n; i++) {
            const cs_report_run_t *r = runs[i];
            fprintf(f, "<tr><th>%s</th><td>", v == 0 ? "tuning run" : "validation run");
            run_line(f, r);
            fputs("</td></tr>\n", f);
            if (above == NULL || above->nprocs != r->nprocs || above->nnodes != r->nnodes ||
                above->ppn != r->ppn || above->oversubscribed != r->oversubscribed) {
                fputs("<tr><th>processes and nodes</th><td>", f);
                layout(f, r);
                fputs("</td></tr>\n", f);
            }
            above = r;
        }
        if (v == 0 && n == 0) {
            fputs("<tr><th>tuning run</th><td>no measurements yet: run <code>collsel-bench</code> "
                  "(or <code>scripts/tune</code>)</td></tr>\n",
                  f);
        }
    }
    fputs("</table>\n", f);
    if (m->ncolls > 0) {
        fputs("<nav>Collectives:", f);
        for (size_t c = 0; c < m->ncolls; c++) {
            fputs(" <a href=\"#", f);
            anchor(f, m, m->colls[c].name);
            fputs("\">", f);
            cs_text_html(f, m->colls[c].name);
            fputs("</a>", f);
        }
        fprintf(f, " <a href=\"#m%" PRId64 "-runs\">runs</a></nav>\n", m->id);
        fputs("<h3>Summary</h3>\n", f);
        summary(f, m);
    }
    for (size_t c = 0; c < m->ncolls; c++) {
        coll_section(f, m, &m->colls[c], o);
    }
    if (m->nokeys > 0) {
        overlap_section(f, m, o);
    }
    fprintf(f, "<h3 id=\"m%" PRId64 "-runs\">Runs</h3>\n", m->id);
    fputs("<p class=\"note\">Every run of this machine in the database. The plots show, per "
          "collective and communicator size, the newest finished tuning run that measured it, "
          "and the newest validation run.</p>\n",
          f);
    runs_table(f, m);
    if (m->nfailures > 0) {
        fputs("<h3>Verification failures</h3>\n<p class=\"note\">These variants gave results "
              "that differ from the native collective's: they were never timed and never win."
              "</p>\n",
              f);
        failures_table(f, m);
    }
    fputs("</section>\n", f);
}

int cs_html_write(const cs_report_t *r, const cs_outdir_t *out, const cs_html_opts_t *o, char *why,
                  size_t len) {
    int rc = CS_OK;
    char path[8192];
    FILE *f = NULL;
    CS_CHECK(cs_outdir_path(out, "index.html", path, sizeof(path)));
    f = fopen(path, "w");
    if (f == NULL) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
        rc = CS_ERR_ARG;
        goto out;
    }
    time_t now = time(NULL);
    struct tm utc;
    char stamp[32] = "?";
    if (gmtime_r(&now, &utc) != NULL) {
        strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", &utc);
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
    fputs(CS_OUTDIR_MARK " " CS_VERSION "\">\n", f);
    fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
          "collsel tuning report: ",
          f);
    for (size_t i = 0; i < r->nmachines; i++) {
        fputs(i > 0 ? ", " : "", f);
        cs_text_html(f, r->machines[i].host);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
    fputs("<h1>collsel tuning report: ", f);
    for (size_t i = 0; i < r->nmachines; i++) {
        fputs(i > 0 ? ", " : "", f);
        cs_text_html(f, r->machines[i].host);
    }
    fputs("</h1>\n<p class=\"note\">Database <code>", f);
    cs_text_html(f, o->db_path);
    fprintf(f,
            "</code>, drawn %s by collsel-report " CS_VERSION
            ". Times are microseconds (µs), sizes bytes (K = 1024). "
            "How to read it: <code>docs/report.md</code> in the collsel sources.</p>\n",
            stamp);
    for (size_t i = 0; i < r->nmachines; i++) {
        machine_section(f, &r->machines[i], o, r->nmachines > 1);
    }
    fputs("<hr>\n<p class=\"note\">Every plot is drawn by gnuplot from the <code>.gp</code> "
          "script and <code>.dat</code> data next to it: re-plot in this directory with "
          "<code>gnuplot NAME.gp</code> (PNG) or <code>gnuplot -e 'fmt=\"svg\"' NAME.gp</code> "
          "(SVG).</p>\n</body>\n</html>\n",
          f);
    bool bad = ferror(f) != 0;
    int err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    f = NULL;
    if (bad) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(err));
        rc = CS_ERR_ARG;
    }
out:
    if (f != NULL) {
        fclose(f);
    }
    return rc;
}

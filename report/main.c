/* collsel-report: draws a tuning database as a static web page of gnuplot plots.
 *
 *   collsel-report DB [-o DIR] [--format png|svg|both]
 *   collsel-report DB --export ompi-rules|mpich-json FILE
 *   collsel-report DB --export env [--comm-size N]
 *
 * Reads DB read-only (db/db.h), checks it for damage, loads what the page shows (model.h),
 * writes the plots' data and scripts (plot.h), runs gnuplot, writes index.html (html.h), all
 * into a temporary directory that replaces DIR at the end (outdir.h). Nothing is left behind
 * on failure. docs/report.md describes the page for its readers. With --export it writes the
 * results in an MPI library's own format instead (export.h, docs/export.md). */
#include "db.h"
#include "export.h"
#include "html.h"
#include "model.h"
#include "outdir.h"
#include "plot.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2

static const char usage[] =
    "usage: collsel-report DB [-o DIR] [--format png|svg|both]\n"
    "       collsel-report DB --export ompi-rules|mpich-json FILE\n"
    "       collsel-report DB --export env [--comm-size N]\n"
    "\n"
    "Draws the collsel tuning database DB (opened read-only) as a static web page:\n"
    "DIR/index.html with, per collective, latency against message size, the speedup of the\n"
    "tuned choice over native, a winner map, the rules and the validation results. Each plot\n"
    "is a PNG and/or SVG next to the gnuplot script (.gp) and data (.dat) that made it.\n"
    "\n"
    "  -o, --output DIR  where to write (default: next to DB, named after it with -report:\n"
    "                    results/vm.db -> results/vm-report). An existing report there is\n"
    "                    replaced as a whole; any other existing file or directory is refused.\n"
    "  --format FMT      png, svg or both (default both)\n"
    "  --export KIND     write the tuned choices in an MPI library's format instead of the\n"
    "                    page (docs/export.md): ompi-rules FILE (Open MPI coll/tuned dynamic\n"
    "                    rules), mpich-json FILE (MPICH csel JSON), env (OMPI_MCA_* lines on\n"
    "                    stdout forcing Open MPI's algorithms for one communicator size)\n"
    "  --comm-size N     the communicator size of --export env (default: the only one)\n"
    "  -h, --help        this text\n"
    "\n"
    "Environment: COLLSEL_GNUPLOT names the gnuplot program (default: gnuplot on PATH).\n"
    "Exit status: 0 done (the last line printed is the path of index.html); 1 the database\n"
    "cannot be read, is damaged or has no runs, or DIR cannot be written (nothing is left\n"
    "behind); 2 bad usage.\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) {
    stop_signal = sig;
}

static int usage_error(const char *fmt, const char *arg) {
    fputs("collsel-report: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see collsel-report --help)\n", stderr);
    return EXIT_USAGE;
}

/* The default report directory of database `db`: <dir>/<name without .db>-report. */
static void default_dir(const char *db, char *buf, size_t len) {
    const char *slash = strrchr(db, '/');
    const char *base = slash != NULL ? slash + 1 : db;
    size_t n = strlen(base);
    if (n > 3 && strcmp(base + n - 3, ".db") == 0) {
        n -= 3;
    }
    snprintf(buf, len, "%.*s%.*s-report", (int)(base - db), db, (int)n, base);
}

int main(int argc, char **argv) {
    const char *db_path = NULL, *dir = NULL, *format = "both", *export_name = NULL;
    const char *export_file = NULL;
    cs_export_kind_t export_kind = CS_EXPORT_ENV;
    int comm_size = 0;
    char default_out[4096], why[8192] = "";
    int status = EXIT_FAILURE;
    cs_db_t *db = NULL;
    cs_report_t *report = NULL;
    cs_outdir_t out = {0};
    bool begun = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return EXIT_SUCCESS;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                   strcmp(a, "--format") == 0) {
            if (i + 1 >= argc) {
                return usage_error("%s needs a value", a);
            }
            *(strcmp(a, "--format") == 0 ? &format : &dir) = argv[++i];
        } else if (strcmp(a, "--export") == 0) {
            if (i + 1 >= argc || cs_export_kind(argv[i + 1], &export_kind) != CS_OK) {
                return usage_error("--export needs ompi-rules FILE, mpich-json FILE or env%s", "");
            }
            export_name = argv[++i];
            if (export_kind != CS_EXPORT_ENV) {
                if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                    return usage_error("--export %s needs a FILE", export_name);
                }
                export_file = argv[++i];
            }
        } else if (strcmp(a, "--comm-size") == 0) {
            char *end = NULL;
            if (i + 1 >= argc) {
                return usage_error("%s needs a value", a);
            }
            comm_size = (int)strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || comm_size < 1) {
                return usage_error("--comm-size '%s': give a communicator size >= 1", argv[i]);
            }
        } else if (strncmp(a, "--output=", 9) == 0) {
            dir = a + 9;
        } else if (strncmp(a, "--format=", 9) == 0) {
            format = a + 9;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (db_path == NULL) {
            db_path = a;
        } else {
            return usage_error("one database only; '%s' is one too many", a);
        }
    }
    if (db_path == NULL) {
        return usage_error("%sno database given", "");
    }
    if (strcmp(format, "png") != 0 && strcmp(format, "svg") != 0 && strcmp(format, "both") != 0) {
        return usage_error("--format '%s': use png, svg or both", format);
    }
    if (dir != NULL && dir[0] == '\0') {
        return usage_error("%s-o needs a directory", "");
    }
    if (dir == NULL) {
        default_dir(db_path, default_out, sizeof(default_out));
        dir = default_out;
    }
    const char *gnuplot = getenv("COLLSEL_GNUPLOT");
    cs_plot_opts_t plot_opts = {
        .png = strcmp(format, "svg") != 0,
        .svg = strcmp(format, "png") != 0,
        .gnuplot = gnuplot != NULL && gnuplot[0] != '\0' ? gnuplot : "gnuplot",
        .db_path = db_path,
        .stop = &stop_signal,
    };
    cs_html_opts_t html_opts = {.db_path = db_path, .png = plot_opts.png, .svg = plot_opts.svg};

    /* Read everything first: a database that cannot be drawn leaves no directory behind. */
    if (cs_db_open(db_path, CS_DB_READ_ONLY, &db, why, sizeof(why)) != CS_OK) {
        fprintf(stderr, "collsel-report: %s\n", why);
        goto out;
    }
    if (cs_db_check(db, why, sizeof(why)) != CS_OK) {
        fprintf(stderr,
                "collsel-report: database '%s' is damaged: %s\n"
                "  (it cannot be drawn or used; restore a copy, or tune again into a new file)\n",
                db_path, why);
        goto out;
    }
    if (cs_report_load(db, &report) != CS_OK) {
        fprintf(stderr, "collsel-report: cannot read database '%s': %s\n", db_path,
                cs_db_errmsg(db)[0] != '\0' ? cs_db_errmsg(db) : "out of memory");
        goto out;
    }
    if (report->nruns == 0) {
        fprintf(stderr,
                "collsel-report: database '%s' has no tuning runs yet: tune first "
                "(scripts/tune, or mpirun -np N collsel-bench --db %s)\n",
                db_path, db_path);
        goto out;
    }
    cs_db_close(db);
    db = NULL;

    if (export_name != NULL) {
        FILE *f = export_file != NULL ? fopen(export_file, "w") : stdout;
        int rc;
        if (f == NULL) {
            fprintf(stderr, "collsel-report: cannot write '%s'\n", export_file);
            goto out;
        }
        rc = cs_export_write(report, export_kind, comm_size, f, why, sizeof(why));
        if ((f != stdout && fclose(f) != 0) || (f == stdout && fflush(f) != 0)) {
            rc = rc == CS_OK ? CS_ERR_ARG : rc;
            snprintf(why, sizeof(why), "cannot write '%s'",
                     export_file != NULL ? export_file : "stdout");
        }
        if (rc != CS_OK) {
            fprintf(stderr, "collsel-report: --export %s: %s\n", export_name, why);
            if (export_file != NULL) {
                remove(export_file);
            }
            goto out;
        }
        if (export_file != NULL) {
            printf("collsel-report: %s written to %s\n", export_name, export_file);
        }
        status = EXIT_SUCCESS;
        goto out;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    if (cs_outdir_begin(&out, dir, why, sizeof(why)) != CS_OK) {
        fprintf(stderr, "collsel-report: %s\n", why);
        goto out;
    }
    begun = true;
    if (cs_plot_write(report, &out, &plot_opts, why, sizeof(why)) != CS_OK || stop_signal != 0 ||
        cs_plot_render(report, &out, &plot_opts, why, sizeof(why)) != CS_OK || stop_signal != 0 ||
        cs_html_write(report, &out, &html_opts, why, sizeof(why)) != CS_OK || stop_signal != 0) {
        if (stop_signal == 0) {
            fprintf(stderr, "collsel-report: %s\n", why);
        }
        goto out;
    }
    if (cs_outdir_commit(&out, why, sizeof(why)) != CS_OK) {
        fprintf(stderr, "collsel-report: %s\n", why);
        goto out;
    }
    size_t nplots = cs_plot_count(report);
    printf("collsel-report: %zu plot%s (%s) of %zu machine%s from %s\n%s/index.html\n", nplots,
           nplots == 1 ? "" : "s", format, report->nmachines, report->nmachines == 1 ? "" : "s",
           db_path, out.dir);
    status = EXIT_SUCCESS;
out:
    if (begun) {
        cs_outdir_abort(&out);
    }
    cs_report_free(report);
    cs_db_close(db);
    if (stop_signal != 0) {
        fprintf(stderr, "collsel-report: interrupted; nothing written\n");
        signal(stop_signal, SIG_DFL);
        raise(stop_signal);
    }
    return status;
}

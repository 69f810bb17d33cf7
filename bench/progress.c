/* Progress display (see progress.h). */
#include "progress.h"

#include "options.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cs_bench_say(int rank, const char *fmt, ...) {
    va_list ap;
    if (rank != 0) {
        return;
    }
    va_start(ap, fmt);
    fputs("collsel-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cs_bench_format_duration(double seconds, char *buf, size_t len) {
    long s = (long)(seconds + 0.5);
    if (s >= 3600) {
        snprintf(buf, len, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
    } else if (s >= 60) {
        snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
    } else {
        snprintf(buf, len, "%lds", s);
    }
}

void cs_bench_progress_start(cs_bench_progress_t *p, int total, int enabled) {
    p->enabled = enabled;
    p->out = stderr;
    p->tty = enabled && isatty(STDERR_FILENO);
    if (enabled && !p->tty) {
        FILE *tty = fopen("/dev/tty", "w");
        if (tty != NULL) {
            p->out = tty;
            p->tty = 1;
        }
    }
    p->total = total > 0 ? total : 1;
    p->done = 0;
    p->start = now();
    p->last_coll = -1;
    p->last_comm_size = -1;
    p->line_open = 0;
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        p->spent[c] = 0.0;
        p->points[c] = 0;
    }
    p->nsizes = 0;
}

/* The index of communicator size comm_size in p->size_*, added when new; -1 when full. */
static int size_index(cs_bench_progress_t *p, int comm_size) {
    for (int i = 0; i < p->nsizes; i++) {
        if (p->size_np[i] == comm_size) {
            return i;
        }
    }
    if (p->nsizes == CS_BENCH_PROGRESS_MAX_SIZES) {
        return -1;
    }
    p->size_np[p->nsizes] = comm_size;
    p->size_ppn[p->nsizes] = 0;
    p->size_points[p->nsizes] = 0;
    p->size_spent[p->nsizes] = 0.0;
    return p->nsizes++;
}

void cs_bench_progress_size(cs_bench_progress_t *p, int comm_size, int ppn, double seconds) {
    int i = size_index(p, comm_size);
    if (i >= 0) {
        p->size_ppn[i] = ppn;
        p->size_spent[i] += seconds;
    }
}

void cs_bench_progress_spent_sizes(const cs_bench_progress_t *p) {
    const char *sep = " ";
    int last = 0;
    if (!p->enabled) {
        return;
    }
    fputs("collsel-bench: time per communicator size:", stderr);
    for (;;) { /* the smallest size above the last one printed, until none is left */
        int next = -1;
        char dur[32];
        for (int i = 0; i < p->nsizes; i++) {
            if (p->size_np[i] > last && (next < 0 || p->size_np[i] < p->size_np[next])) {
                next = i;
            }
        }
        if (next < 0) {
            break;
        }
        last = p->size_np[next];
        cs_bench_format_duration(p->size_spent[next], dur, sizeof(dur));
        fprintf(stderr, "%snp=%d ppn=%d %s (%d points)", sep, p->size_np[next], p->size_ppn[next],
                dur, p->size_points[next]);
        sep = ", ";
    }
    fputc('\n', stderr);
}

static void draw(cs_bench_progress_t *p, const char *name) {
    enum { WIDTH = 30 };
    char bar[WIDTH + 1], size[32], eta[32] = "?";
    int filled = p->done * WIDTH / p->total;
    double elapsed = now() - p->start;
    for (int i = 0; i < WIDTH; i++) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[WIDTH] = '\0';
    if (p->done > 0) {
        cs_bench_format_duration(elapsed / p->done * (p->total - p->done), eta, sizeof(eta));
    }
    cs_bench_format_bytes(p->bytes, size, sizeof(size));
    fprintf(p->out, "\r\033[K[%s] %3d%% %s np=%d %sB %s  ETA %s", bar, p->done * 100 / p->total,
            cs_coll_name(p->coll), p->comm_size, size, name, eta);
    fflush(p->out);
    p->line_open = 1;
}

void cs_bench_progress_point(cs_bench_progress_t *p, cs_coll_t coll, int comm_size, size_t bytes) {
    p->coll = coll;
    p->comm_size = comm_size;
    p->bytes = bytes;
    p->point_start = now();
    if (!p->enabled) {
        return;
    }
    if (!p->tty && ((int)coll != p->last_coll || comm_size != p->last_comm_size)) {
        char eta[32] = "?";
        if (p->done > 0) {
            double elapsed = now() - p->start;
            cs_bench_format_duration(elapsed / p->done * (p->total - p->done), eta, sizeof(eta));
        }
        fprintf(stderr, "collsel-bench: %3d%% %s on %d processes (ETA %s)\n",
                p->done * 100 / p->total, cs_coll_name(coll), comm_size, eta);
    }
    p->last_coll = (int)coll;
    p->last_comm_size = comm_size;
}

void cs_bench_progress_step(cs_bench_progress_t *p, const char *name) {
    if (p->tty) {
        draw(p, name);
    }
}

void cs_bench_progress_point_done(cs_bench_progress_t *p) {
    p->done++;
    if ((int)p->coll >= 0 && p->coll < CS_COLL_COUNT) {
        int i = size_index(p, p->comm_size);
        double t = now() - p->point_start;
        p->spent[p->coll] += t;
        p->points[p->coll]++;
        if (i >= 0) {
            p->size_spent[i] += t;
            p->size_points[i]++;
        }
    }
}

void cs_bench_progress_spent(const cs_bench_progress_t *p) {
    int done[CS_COLL_COUNT] = {0};
    const char *sep = " ";
    if (!p->enabled) {
        return;
    }
    fputs("collsel-bench: time per collective:", stderr);
    for (;;) { /* the most expensive not yet printed, until none is left */
        int best = -1;
        char dur[32];
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            if (!done[c] && p->points[c] > 0 && (best < 0 || p->spent[c] > p->spent[best])) {
                best = c;
            }
        }
        if (best < 0) {
            break;
        }
        done[best] = 1;
        cs_bench_format_duration(p->spent[best], dur, sizeof(dur));
        fprintf(stderr, "%s%s %s (%d points)", sep, cs_coll_name((cs_coll_t)best), dur,
                p->points[best]);
        sep = ", ";
    }
    fputc('\n', stderr);
}

void cs_bench_progress_end(cs_bench_progress_t *p) {
    if (p->tty && p->line_open) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        p->line_open = 0;
    }
}

void cs_bench_progress_close(cs_bench_progress_t *p) {
    cs_bench_progress_end(p);
    if (p->out != NULL && p->out != stderr) {
        fclose(p->out);
    }
    p->out = stderr;
}

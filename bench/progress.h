/* Progress of a tuning run, printed by rank 0 on stderr.
 *
 * On a terminal: one line redrawn in place with a bar, the percentage of plan points done, the
 * current collective, size and algorithm, and the estimated time left. Under mpirun a rank's
 * stderr is a pipe even when mpirun runs on a terminal, so the bar goes to the controlling
 * terminal (/dev/tty) when there is one. Without a terminal (a batch job's log): one line per
 * collective and communicator size on stderr. Quiet: nothing.
 *
 * The run's other messages to the user (errors, warnings, what it is doing) go through
 * cs_bench_say(): one line on stderr, from rank 0 only. */
#ifndef CS_BENCH_PROGRESS_H
#define CS_BENCH_PROGRESS_H

#include "core/call.h"

#include <stddef.h>

#include <stdio.h>

#define CS_BENCH_PROGRESS_MAX_SIZES 64 /* communicator sizes counted by the summary */

typedef struct cs_bench_progress {
    int enabled, tty;
    FILE *out; /* where the bar goes: stderr or the controlling terminal */
    int total, done;
    double start;
    int last_coll, last_comm_size;
    cs_coll_t coll;
    int comm_size;
    size_t bytes;
    int line_open;
    /* Where the run's time went: seconds and points per collective (every point: planned,
     * refinement and confirmation, or validation), kept on every rank, enabled or not. */
    double point_start, spent[CS_COLL_COUNT];
    int points[CS_COLL_COUNT];
    /* The same per communicator size, in the order first seen (at most
     * CS_BENCH_PROGRESS_MAX_SIZES; more are not counted): its points' seconds and count, plus
     * the seconds of its preparation (cs_bench_progress_size), and its processes per node. */
    int nsizes, size_np[CS_BENCH_PROGRESS_MAX_SIZES], size_ppn[CS_BENCH_PROGRESS_MAX_SIZES];
    int size_points[CS_BENCH_PROGRESS_MAX_SIZES];
    double size_spent[CS_BENCH_PROGRESS_MAX_SIZES];
} cs_bench_progress_t;

/* Starts reporting `total` points; `enabled` is 0 on ranks other than 0 and with --quiet. */
void cs_bench_progress_start(cs_bench_progress_t *p, int total, int enabled);
/* A point begins. */
void cs_bench_progress_point(cs_bench_progress_t *p, cs_coll_t coll, int comm_size, size_t bytes);
/* The point's work is now on algorithm `name` (verification or "timing"). */
void cs_bench_progress_step(cs_bench_progress_t *p, const char *name);
/* The point is done. */
void cs_bench_progress_point_done(cs_bench_progress_t *p);
/* Rank 0, unless quiet: one line "time per collective:" with the seconds and points of every
 * collective that had points, the most expensive first. */
void cs_bench_progress_spent(const cs_bench_progress_t *p);
/* Communicator size comm_size (ppn processes per node) was prepared (clock synchronisation,
 * setup costs) in `seconds`: they count for the size, as its points' times do. */
void cs_bench_progress_size(cs_bench_progress_t *p, int comm_size, int ppn, double seconds);
/* Rank 0, unless quiet: one line "time per communicator size:" with, per size in ascending
 * order, its processes per node, seconds (points and preparation) and points (planned,
 * refinement and confirmation, or validation). */
void cs_bench_progress_spent_sizes(const cs_bench_progress_t *p);
/* Ends the progress line so that other output can follow. */
void cs_bench_progress_end(cs_bench_progress_t *p);
/* Ends the progress line and closes the terminal, if one was opened. */
void cs_bench_progress_close(cs_bench_progress_t *p);

/* Rank `rank` 0 only: writes "collsel-bench: ", the printf-formatted message and a newline to
 * stderr. Other ranks print nothing. */
void cs_bench_say(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes a duration as "1h02m", "3m20s" or "12s". */
void cs_bench_format_duration(double seconds, char *buf, size_t len);

#endif

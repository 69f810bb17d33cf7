/* The tuning run (see tune.h): the plan (plan.h) run point by point, stored (run.h), then the
 * rules derived (derive.h); or, with --validate, the selector's choices re-measured
 * (validate.h). */
#include "tune.h"

#include "core/comm.h"
#include "core/log.h"
#include "core/loggp.h"
#include "core/machine.h"
#include "db.h"
#include "derive.h"
#include "loggp.h"
#include "measure.h"
#include "ompi/ompi.h"
#include "options.h"
#include "overlap.h"
#include "patterns.h"
#include "plan.h"
#include "progress.h"
#include "rules.h"
#include "run.h"
#include "thresholds.h"
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* One line when the plan has Open MPI's own algorithms (<coll>/ompi) and they cannot run here:
 * the family is skipped (its variants() lists none), and the user learns why. */
static void say_ompi(const cs_bench_plan_t *plan, int rank) {
    char why[160];
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        for (int i = 0; i < plan->nalgos[c]; i++) {
            const char *slash = strchr(plan->algos[c][i]->name, '/');
            if (slash != NULL && strcmp(slash, "/ompi") == 0) {
                if (!cs_ompi_available(why, sizeof(why))) {
                    cs_bench_say(rank, "Open MPI's own algorithms (<coll>/ompi): skipped: %s", why);
                }
                return;
            }
        }
    }
}

static int print_failure(const cs_db_failure_t *f, void *ctx) {
    (void)ctx;
    fprintf(
        stderr,
        "collsel-bench: FAILED verification: %s%s%s%s at %d processes%s%s, %llu bytes: %s\n",
        f->point.algorithm, f->point.params && f->point.params[0] ? "(" : "",
        f->point.params ? f->point.params : "", f->point.params && f->point.params[0] ? ")" : "",
        f->point.comm_size, f->point.pattern && f->point.pattern[0] ? " on pattern " : "",
        f->point.pattern ? f->point.pattern : "", (unsigned long long)f->point.bytes, f->message);
    return CS_OK;
}

static int print_rule(const cs_rule_t *rule, void *ctx) {
    char lo[32], hi[32];
    (void)ctx;
    if (rule->rank != 1) {
        return CS_OK;
    }
    cs_bench_format_bytes(rule->lo_bytes, lo, sizeof(lo));
    if (rule->hi_bytes == CS_RULE_UNBOUNDED) {
        snprintf(hi, sizeof(hi), "inf");
    } else {
        cs_bench_format_bytes(rule->hi_bytes, hi, sizeof(hi));
    }
    printf("  %-10s%s%s np=%-3d [%6s, %6s) %-32s %10.2f us  native %10.2f us  x%.2f\n",
           cs_coll_name(rule->coll), rule->pattern[0] ? " " : "", rule->pattern, rule->comm_size,
           lo, hi, rule->algorithm, rule->median_us, rule->native_us,
           rule->native_us / rule->median_us);
    return CS_OK;
}

/* --- the run ------------------------------------------------------------------------------- */

/* glibc's malloc serves a block of its mmap threshold or more with a fresh mmap, and raises the
 * threshold to the size of each such block freed, up to 32 MiB: a process that has freed a
 * large buffer (an OSU-style loop, which frees its buffers after each size, or a long-running
 * application) gets the MPI library's per-call temporary buffers from the heap, a new one gets
 * them from mmap, page faults and all. Left to itself the state depends on what the process did
 * before: in a tuning run the communicator sizes before, in an application its own history.
 * glibc raises the trim threshold with it (to twice), so that such a block, freed, stays in
 * the heap. Measured here (np 4 on 2 cores, oversubscribed, reduce of 1 MiB, loop metric):
 * native 258 us and reduce/ompi(alg=binary) 164 us in the raised state, 271 us and 569 us in
 * the fresh one (binary's 1 MiB temporary buffer is a new mmap every call). So each pass fixes
 * the state: the measurement pass and --validate run in the raised one, confirmation round 1
 * in the fresh one and the rounds after it alternating, and a candidate replaces native only if
 * it wins in both (docs/tuning.md "Confirmation"). */
#define CS_BENCH_MMAP_RAISED (32 << 20)  /* glibc's largest dynamic threshold on 64-bit */
#define CS_BENCH_MMAP_FRESH  (128 << 10) /* glibc's initial threshold */

static void malloc_state(int raised) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    /* fixed from here on: setting it turns glibc's adjustment off */
    (void)mallopt(M_MMAP_THRESHOLD, raised ? CS_BENCH_MMAP_RAISED : CS_BENCH_MMAP_FRESH);
    /* and, as glibc's adjustment does, the heap is trimmed only above twice that */
    (void)mallopt(M_TRIM_THRESHOLD, 2 * (raised ? CS_BENCH_MMAP_RAISED : CS_BENCH_MMAP_FRESH));
#else
    (void)raised;
#endif
}

/* Where the run stands: the budget is shared over the points left, `total` of which includes
 * the refinement points still reserved, by weight: each point of the communicator size being
 * measured weighs w_here, the n_later points (reserve included) of the sizes still to come
 * weigh w_later in all (pace_size; plan.h: share_at). The confirmation pass and a run without
 * sizes to come share equally (w_here 1, w_later 0, n_later 0). */
typedef struct pace {
    double start;
    int done, total;
    double budget_s; /* what the measurement pass may spend: --budget less the confirmation
                      * pass's share; the confirmation pass spends what is left of --budget */
    double w_here, w_later;
    int n_later;
} pace_t;

/* Rank 0, under --budget: the timing budget of the next point, its weight's part of what is
 * left of pace->budget_s (at least CS_BENCH_MIN_POINT_BUDGET_S). */
static double pace_point_budget(const pace_t *pace) {
    int here = pace->total - pace->done - pace->n_later;
    double wleft = (here > 0 ? here : 1) * pace->w_here + pace->w_later;
    double budget =
        (pace->budget_s - (PMPI_Wtime() - pace->start)) * pace->w_here / (wleft > 0 ? wleft : 1);
    return budget < CS_BENCH_MIN_POINT_BUDGET_S ? CS_BENCH_MIN_POINT_BUDGET_S : budget;
}

/* The weights of communicator size index ci and of the sizes after it (see pace_t). A size
 * without points has no share (plan.h) and never asks for a budget. */
static void pace_size(pace_t *pace, const cs_bench_plan_t *plan, int ci, int validate) {
    int pts = plan->points_at[ci] + (validate ? 0 : plan->reserve_at[ci]);
    pace->w_here = pts > 0 ? plan->share_at[ci] / pts : 1;
    pace->w_later = 0;
    pace->n_later = 0;
    for (int j = ci + 1; j < plan->ncomm_sizes; j++) {
        pace->w_later += plan->share_at[j];
        pace->n_later += plan->points_at[j] + (validate ? 0 : plan->reserve_at[j]);
    }
}

/* One point (collective over `sub`; the call runs on `call_comm`, `sub` or for a
 * neighbourhood collective its pattern's communicator of the same ranks): measured and stored
 * (with `round` > 0 as a confirmation of that round), or validated, or skipped when a resumed
 * run already has it. `pattern`: the neighbourhood pattern's name, else "". */
static int run_point(const cs_bench_opts_t *o, cs_bench_cand_t *cands, int ncand, cs_coll_t c,
                     const char *pattern, uint64_t bytes, cs_bench_run_t *r,
                     cs_bench_validation_t *val, int rank, int n, int ppn, MPI_Comm sub,
                     MPI_Comm call_comm, cs_bench_bufs_t *bufs, cs_bench_sync_t *sync, pace_t *pace,
                     cs_bench_progress_t *progress, int round) {
    int rc = CS_OK, skip = 0, nbr = cs_coll_is_neighbor(c);
    cs_call_t call;
    uint64_t key;
    double budget = round > 0 ? CS_BENCH_CONFIRM_POINT_BUDGET_S : CS_BENCH_POINT_BUDGET_S;
    unsigned seed = (unsigned)((unsigned)c * 1000003u + (unsigned)(bytes / 4) * 7919u +
                               (unsigned)n + (unsigned)round * 0x9e3779b9u);
    for (const char *s = pattern; *s != '\0'; s++) {
        seed = seed * 31u + (unsigned char)*s;
    }
    /* neighbourhood collectives: `bytes` bytes per block of MPI_BYTE; the others MPI_INT */
    CS_CHECK(cs_bench_call(&call, c, (int)(nbr ? bytes : bytes / sizeof(int)), call_comm, bufs));
    /* The point's key is the planned size: a neighbourhood v or w call's own key is 0 on a rank
     * without edges (call.h), which rank 0 may be. */
    key = nbr ? bytes : call.bytes;
    cs_bench_progress_point(progress, c, n, key);
    if (o->validate) {
        /* rank 0 probes while the others wait to start the point */
        double rtt_ns = rank == 0 ? cs_bench_cores_rtt(&r->cores) : NAN;
        CS_CHECK(cs_bench_validate_point(val, o, &call, pattern, key, bufs, sync, seed, ppn, sub,
                                         rtt_ns, progress));
    } else {
        /* rank 0's database work fails on rank 0 only: its status travels with what it
         * broadcasts anyway, so that every rank of sub fails alike instead of waiting for it */
        int shared[2] = {CS_OK, 0}; /* rank 0's status, skip */
        double rtt_ns = NAN;        /* the core-to-core state (corestate.h), rank 0 */
        if (rank == 0) {
            bool exists = false;
            shared[0] = cs_bench_run_has_point(r, c, pattern, n, ppn, key, round, &exists);
            shared[1] = exists;
            if (o->budget_s > 0) {
                budget = pace_point_budget(pace);
            }
            if (!exists) { /* while the other ranks wait in the broadcast */
                rtt_ns = cs_bench_cores_rtt(&r->cores);
            }
        }
        CS_MPI_CHECK(PMPI_Bcast(shared, 2, MPI_INT, 0, sub));
        CS_CHECK(shared[0]);
        skip = shared[1];
        if (!skip) {
            int stored = CS_OK;
            /* under the policy the run decides by (rules.h); a confirmation round measures
             * its few candidates to the end */
            int race = round > 0 ? -1 : (int)cs_bench_policy(o->metric, r->oversubscribed);
            CS_CHECK(cs_bench_measure(cands, ncand, &call, bufs, budget, o->reps_max, race, seed,
                                      sync, sub, rank == 0 ? progress : NULL));
            if (rank == 0) {
                stored = cs_bench_run_store_point(r, cands, ncand, c, pattern, n, ppn, key, round,
                                                  rtt_ns);
            }
            cs_bench_cands_free(cands, ncand);
            CS_MPI_CHECK(PMPI_Bcast(&stored, 1, MPI_INT, 0, sub));
            CS_CHECK(stored);
            r->measured++;
        }
    }
    pace->done++;
    cs_bench_progress_point_done(progress);
out:
    return rc;
}

/* Rank 0: says what the core-to-core probe saw over the run's launches and how many wins the
 * rules left out as unproven (derive.h). */
static void say_core_states(const cs_bench_core_seen_t *k) {
    if (k->points > 0) {
        printf("core-to-core round trip before each point: %.0f-%.0f ns, %d of %d points in the "
               "far state (above %.0f x the smallest); %d win(s) of a candidate that depends on "
               "it left out, measured in one state only (docs/tuning.md \"The host moves the "
               "cores\")\n",
               k->near_ns, k->top_ns, k->far, k->points, CS_BENCH_CORE_FAR, k->unproven);
    }
}

/* Rank 0: a list of sizes for the user, "2K, 512". */
static void format_sizes(const uint64_t *sizes, int n, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        char text[32];
        cs_bench_format_bytes(sizes[i], text, sizeof(text));
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", text);
    }
}

/* Boundary refinement of key (c, n, ppn) after its planned points (collective over `sub`):
 * rank 0 ranks the stored measurements, cs_bench_refine_next picks the sizes to add, every rank
 * measures them; until no change of winner has an unmeasured power of two around it, the key's
 * reserve (plan->refine_max) is used up, or the budget is spent. The unused reserve goes back
 * to the points left. */
static int refine_key(const cs_bench_opts_t *o, const cs_bench_plan_t *plan, cs_bench_cand_t *cands,
                      int ncand, cs_coll_t c, cs_bench_run_t *r, int rank, int n, int ppn,
                      MPI_Comm sub, cs_bench_bufs_t *bufs, cs_bench_sync_t *sync, pace_t *pace,
                      cs_bench_progress_t *progress) {
    int rc = CS_OK, used = 0, spent = 0;
    uint64_t added[CS_BENCH_MAX_SIZES], sizes[CS_BENCH_MAX_SIZES], add[CS_BENCH_MAX_SIZES];
    int winner[CS_BENCH_MAX_SIZES];
    for (;;) {
        int nadd = 0, nsizes = 0;
        if (rank == 0) {
            CS_CHECK(cs_bench_derive_winners(r->db, r->run_id, o->metric, r->oversubscribed, c, n,
                                             ppn, sizes, winner, CS_BENCH_MAX_SIZES, &nsizes));
            nadd = cs_bench_refine_next(sizes, winner, nsizes, plan->refine_max - used, add);
            if (nadd > 0 && o->budget_s > 0 &&
                PMPI_Wtime() - pace->start + nadd * CS_BENCH_MIN_POINT_BUDGET_S > pace->budget_s) {
                spent = nadd;
                nadd = 0;
            }
        }
        CS_MPI_CHECK(PMPI_Bcast(&nadd, 1, MPI_INT, 0, sub));
        if (nadd == 0) {
            break;
        }
        CS_MPI_CHECK(PMPI_Bcast(add, nadd, MPI_UINT64_T, 0, sub));
        for (int i = 0; i < nadd; i++) {
            CS_CHECK(run_point(o, cands, ncand, c, "", add[i], r, NULL, rank, n, ppn, sub, sub,
                               bufs, sync, pace, progress, 0));
            added[used++] = add[i];
        }
    }
    if (rank == 0 && !o->quiet && (used > 0 || spent > 0)) {
        char text[512];
        format_sizes(added, used, text, sizeof(text));
        cs_bench_progress_end(progress);
        cs_bench_say(rank, "%s np=%d: boundary refinement measured %d point(s)%s%s",
                     cs_coll_name(c), n, used, used ? ": " : "", text);
    }
    if (rank == 0 && spent > 0) {
        cs_bench_progress_end(progress);
        cs_bench_say(rank,
                     "%s np=%d: budget spent: %d change(s) of winner not refined; those "
                     "boundaries stay at the geometric mean of the measured sizes",
                     cs_coll_name(c), n, spent);
    }
out:
    pace->total -= plan->refine_max - used;
    progress->total = pace->total > 0 ? pace->total : 1;
    return rc;
}

/* The sizes of key (c, n): the plan's, or with --validate the tuned points and the powers of
 * two up to the largest (rank 0 decides, from the tuning runs, and broadcasts). */
static int key_sizes(const cs_bench_opts_t *o, const cs_bench_plan_t *plan,
                     const cs_bench_validation_t *val, cs_coll_t c, int n, int rank, MPI_Comm sub,
                     uint64_t *sizes, int *nsizes) {
    int rc = CS_OK;
    if (!cs_coll_has_data(c)) { /* barrier: one point, 0 bytes, tuned and validated alike */
        sizes[0] = 0;
        *nsizes = 1;
        return CS_OK;
    }
    if (!o->validate) {
        memcpy(sizes, plan->sizes, sizeof(uint64_t) * (size_t)plan->nsizes);
        *nsizes = plan->nsizes;
        return CS_OK;
    }
    if (rank == 0) {
        uint64_t tuned[CS_BENCH_MAX_SIZES];
        int ntuned = cs_bench_validate_tuned(val, c, n, tuned, CS_BENCH_MAX_SIZES);
        if (ntuned == 0) { /* this key was never tuned: the plan's sizes, as they are */
            memcpy(tuned, plan->sizes, sizeof(uint64_t) * (size_t)plan->nsizes);
            ntuned = plan->nsizes;
        }
        rc = cs_bench_validate_sizes(tuned, ntuned, sizes, CS_BENCH_MAX_SIZES, nsizes);
    }
    CS_MPI_CHECK(PMPI_Bcast(&rc, 1, MPI_INT, 0, sub));
    CS_CHECK(rc);
    CS_MPI_CHECK(PMPI_Bcast(nsizes, 1, MPI_INT, 0, sub));
    CS_MPI_CHECK(PMPI_Bcast(sizes, *nsizes, MPI_UINT64_T, 0, sub));
out:
    return rc;
}

/* Neighbourhood collective c on every pattern planned for communicator size index ci
 * (collective over `sub`): the pattern's communicator made over `sub` (same ranks, same
 * order), its signature stored by rank 0 (table pattern), every block size measured as a
 * point keyed by the pattern's name; with --validate every block size validated instead (the
 * --block-sizes grid: the tuned one unless the options differ). */
static int run_neighbor(const cs_bench_opts_t *o, const cs_bench_plan_t *plan, int ci,
                        cs_bench_cand_t *cands, int ncand, cs_coll_t c, cs_bench_run_t *r,
                        cs_bench_validation_t *val, int rank, int n, int ppn, MPI_Comm sub,
                        cs_bench_sync_t *sync, pace_t *pace, cs_bench_progress_t *progress) {
    int rc = CS_OK;
    MPI_Comm topo = MPI_COMM_NULL;
    cs_bench_bufs_t nb = {0};
    for (int k = 0; k < cs_bench_npatterns; k++) {
        const cs_bench_pattern_t *pat = &cs_bench_patterns[k];
        cs_graph_sig_t sig;
        if (!(plan->patterns_at[ci] & (1u << k)) || !cs_bench_pattern_tunes(pat, c)) {
            continue;
        }
        CS_CHECK(cs_bench_pattern_open(pat, sub, (size_t)plan->block_sizes[plan->nblock_sizes - 1],
                                       &topo, &sig, &nb));
        if (!o->validate) { /* rank 0's failure reaches every rank */
            int stored = rank == 0 ? cs_bench_run_put_pattern(r, pat, n, &sig) : CS_OK;
            CS_MPI_CHECK(PMPI_Bcast(&stored, 1, MPI_INT, 0, sub));
            CS_CHECK(stored);
        }
        for (int si = 0; si < plan->nblock_sizes; si++) {
            CS_CHECK(run_point(o, cands, ncand, c, pat->name, plan->block_sizes[si], r, val, rank,
                               n, ppn, sub, topo, &nb, sync, pace, progress, 0));
        }
        CS_CHECK(cs_bench_pattern_close(&topo, &nb));
    }
out:
    (void)cs_bench_pattern_close(&topo, &nb); /* after a failure: rc says it already */
    return rc;
}

/* Fresh communicators whose setup of a variant is timed (median; docs/selector.md "Setup cost"). */
#define SETUP_REPS 3

/* Times the setup of candidate `cand` on SETUP_REPS fresh communicators of the ranks of `sub`:
 * duplicates of sub, or for a neighbourhood collective the communicator of pattern `pat` made
 * over sub (cs_bench_pattern_comm). Each time is the slowest rank's of cs_comm_state (the setup
 * alone: the communicator and its own context are made before the clock starts); *median_us is
 * their median, *ok 0 when the setup refused on some rank (CS_ERR_NOT_APPLICABLE; every rank
 * learns it). Collective over sub. */
static int time_setup(const cs_bench_cand_t *cand, const cs_bench_pattern_t *pat, MPI_Comm sub,
                      double *median_us, int *ok) {
    int rc = CS_OK;
    MPI_Comm fresh = MPI_COMM_NULL;
    double t[SETUP_REPS];
    *ok = 1;
    *median_us = 0;
    for (int rep = 0; rep < SETUP_REPS && *ok; rep++) {
        cs_comm_t *ctx = NULL;
        const cs_state_t *state = NULL;
        if (pat != NULL) {
            cs_graph_sig_t sig;
            CS_CHECK(cs_bench_pattern_comm(pat, sub, &fresh, &sig));
        } else {
            CS_MPI_CHECK(PMPI_Comm_dup(sub, &fresh));
        }
        CS_CHECK(cs_comm_get(fresh, &ctx));
        CS_MPI_CHECK(PMPI_Barrier(fresh));
        double t0 = PMPI_Wtime();
        int st = cs_comm_state(ctx, cand->v.algo, &cand->v.params, &state);
        t[rep] = PMPI_Wtime() - t0;
        *ok = st == CS_OK;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_INT, MPI_MIN, fresh));
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &t[rep], 1, MPI_DOUBLE, MPI_MAX, fresh));
        CS_MPI_CHECK(PMPI_Comm_free(&fresh));
    }
    for (int i = 1; i < SETUP_REPS; i++) { /* sort: median */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    }
    *median_us = t[SETUP_REPS / 2] * 1e6;
out:
    if (fresh != MPI_COMM_NULL) {
        PMPI_Comm_free(&fresh);
    }
    return rc;
}

/* Measures the one-time per-communicator setup of every candidate of the plan that has one
 * (algo.h: setup), on `sub` (n processes, ppn per node, communicator size index ci of the
 * plan), and stores it (rank 0; time_setup: the median over SETUP_REPS fresh communicators of
 * the slowest rank's time). The neighbourhood collectives' candidates are measured per pattern,
 * on fresh communicators of each pattern planned at this size that the collective is tuned on
 * (their setup gathers the graph, colours it, reads the LogGP parameters: its cost depends on
 * the pattern), stored with the pattern's name. A variant whose setup refuses
 * (CS_ERR_NOT_APPLICABLE, the same on every rank) is skipped. Collective over sub. */
static int measure_setups(const cs_bench_plan_t *plan, int ci, const cs_bench_run_t *r, int rank,
                          int n, int ppn, MPI_Comm sub) {
    int rc = CS_OK;
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int neighbor = cs_coll_is_neighbor((cs_coll_t)c);
        for (int k = 0; k < plan->ncands[c]; k++) {
            const cs_bench_cand_t *cand = &plan->cands[c][k];
            if (cand->v.algo->setup == NULL) {
                continue;
            }
            for (int pi = neighbor ? 0 : -1; pi < (neighbor ? cs_bench_npatterns : 0); pi++) {
                const cs_bench_pattern_t *pat = pi >= 0 ? &cs_bench_patterns[pi] : NULL;
                double us = 0;
                int ok = 0;
                if (pat != NULL && (!(plan->patterns_at[ci] & (1u << pi)) ||
                                    !cs_bench_pattern_tunes(pat, (cs_coll_t)c))) {
                    continue;
                }
                int stored = CS_OK;
                CS_CHECK(time_setup(cand, pat, sub, &us, &ok));
                if (ok && rank == 0) {
                    stored = cs_db_put_setup(r->db, r->run_id, (cs_coll_t)c,
                                             pat != NULL ? pat->name : "", cand->v.algo->name,
                                             cand->params, n, ppn, us);
                }
                CS_MPI_CHECK(PMPI_Bcast(&stored, 1, MPI_INT, 0, sub)); /* every rank fails alike */
                CS_CHECK(stored);
            }
        }
    }
out:
    return rc;
}

/* What the measurement and confirmation passes do first on the communicator `sub` of size n
 * (comm_sizes[ci]): its processes per node (*ppn), the plan's variants for it, buffers for
 * max_bytes, the synchronised start, and (tuning, not validating) the variants' setup costs.
 * The time it takes counts for the size in `progress` (cs_bench_progress_size). */
static int prepare_size(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int ci, cs_bench_run_t *r,
                        int rank, int n, MPI_Comm sub, uint64_t max_bytes, int *ppn,
                        cs_bench_bufs_t *bufs, cs_bench_sync_t *sync,
                        cs_bench_progress_t *progress) {
    int rc = CS_OK;
    double t0 = PMPI_Wtime();
    CS_CHECK(cs_machine_node_size(sub, ppn));
    CS_CHECK(cs_bench_plan_expand(plan, n, *ppn, rank));
    CS_CHECK(cs_bench_bufs_alloc(bufs, (size_t)(max_bytes / sizeof(int)), n));
    CS_CHECK(cs_bench_sync_init(sync, sub));
    if (!o->validate) {
        CS_CHECK(measure_setups(plan, ci, r, rank, n, *ppn, sub));
    }
    cs_bench_progress_size(progress, n, *ppn, PMPI_Wtime() - t0);
out:
    return rc;
}

/* The end of a communicator size, collectively over `world`: *verdict is the lowest of every
 * rank's `status`, so that an error of the ranks that measured reaches the others, which would
 * otherwise wait for them forever. (The ranks outside the size wait in MPI, polling: a version
 * that slept between tests left the measuring ranks in Open MPI's MPI_Comm_dup for most of
 * 1m29s at np 8, size 4, instead of 1 s: docs/tuning.md.) CS_ERR_MPI when MPI fails. */
static int size_verdict(MPI_Comm world, int status, int *verdict) {
    int rc = CS_OK;
    *verdict = status;
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, verdict, 1, MPI_INT, MPI_MIN, world));
out:
    return rc;
}

static int run_points(const cs_bench_opts_t *o, cs_bench_plan_t *plan, cs_bench_run_t *r,
                      cs_bench_validation_t *val, int rank, MPI_Comm world, pace_t *pace,
                      cs_bench_progress_t *progress) {
    int rc = CS_OK, in_size = 0, verdict = CS_OK;
    cs_bench_bufs_t bufs = {0};
    cs_bench_sync_t sync = {0, 0, 0};
    MPI_Comm sub = MPI_COMM_NULL;
    uint64_t sizes[CS_BENCH_MAX_SIZES], max_bytes = plan->sizes[plan->nsizes - 1];
    pace->total += o->validate ? 0 : plan->ndata_keys * plan->refine_max;
    progress->total = pace->total > 0 ? pace->total : 1;
    if (o->validate && rank == 0) { /* the largest tuned size may lie beyond these --sizes */
        for (size_t i = 0; i < val->nbest; i++) {
            max_bytes = val->best[i].bytes > max_bytes ? val->best[i].bytes : max_bytes;
        }
    }
    CS_MPI_CHECK(PMPI_Bcast(&max_bytes, 1, MPI_UINT64_T, 0, world));
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci], ppn = 0;
        CS_MPI_CHECK(PMPI_Comm_split(world, rank < n ? 0 : MPI_UNDEFINED, rank, &sub));
        in_size = 1; /* until size_verdict: a failure must reach the ranks outside sub */
        pace_size(pace, plan, ci, o->validate);
        if (sub != MPI_COMM_NULL) {
            CS_CHECK(prepare_size(o, plan, ci, r, rank, n, sub, max_bytes, &ppn, &bufs, &sync,
                                  progress));
        }
        for (int c = 0; c < CS_COLL_COUNT && sub != MPI_COMM_NULL; c++) {
            cs_bench_cand_t *cands = plan->cands[c];
            int ncand = plan->ncands[c], nsizes = 0;
            if (ncand == 0) {
                continue;
            }
            if (cs_coll_is_neighbor((cs_coll_t)c)) {
                CS_CHECK(run_neighbor(o, plan, ci, cands, ncand, (cs_coll_t)c, r, val, rank, n, ppn,
                                      sub, &sync, pace, progress));
                continue;
            }
            CS_CHECK(key_sizes(o, plan, val, (cs_coll_t)c, n, rank, sub, sizes, &nsizes));
            if (o->validate) {
                pace->total += nsizes - cs_bench_plan_key_nsizes(plan, (cs_coll_t)c);
                progress->total = pace->total > 0 ? pace->total : 1;
            }
            for (int si = 0; si < nsizes; si++) {
                CS_CHECK(run_point(o, cands, ncand, (cs_coll_t)c, "", sizes[si], r, val, rank, n,
                                   ppn, sub, sub, &bufs, &sync, pace, progress, 0));
            }
            if (!o->validate && plan->refine_max > 0 && cs_coll_has_data((cs_coll_t)c)) {
                CS_CHECK(refine_key(o, plan, cands, ncand, (cs_coll_t)c, r, rank, n, ppn, sub,
                                    &bufs, &sync, pace, progress));
            }
        }
        if (sub != MPI_COMM_NULL) {
            cs_bench_bufs_free(&bufs);
            CS_MPI_CHECK(PMPI_Comm_free(&sub));
        }
        in_size = 0;
        CS_CHECK(size_verdict(world, CS_OK, &verdict));
        CS_CHECK(verdict);
        CS_MPI_CHECK(PMPI_Bcast(&pace->done, 1, MPI_INT, 0, world));
        CS_MPI_CHECK(PMPI_Bcast(&pace->total, 1, MPI_INT, 0, world));
    }
out:
    if (in_size && size_verdict(world, rc, &verdict) != CS_OK) {
        rc = CS_ERR_MPI;
    }
    cs_bench_bufs_free(&bufs);
    if (sub != MPI_COMM_NULL) {
        PMPI_Comm_free(&sub);
    }
    return rc;
}

/* The candidates of collective c to measure again at contender `t`: native, then each of t's
 * candidates (best first) found among the plan's, into sel[0..]; returns how many. */
static int confirm_cands(const cs_bench_plan_t *plan, int c, const cs_bench_contender_t *t,
                         cs_bench_cand_t *sel) {
    int k = 0;
    sel[k++] = plan->cands[c][0]; /* native */
    for (int j = 0; j < t->k; j++) {
        for (int i = 1; i < plan->ncands[c]; i++) {
            const cs_bench_cand_t *cand = &plan->cands[c][i];
            if (strcmp(cand->v.algo->name, t->algorithm[j]) == 0 &&
                strcmp(cand->params, t->params[j]) == 0) {
                sel[k++] = *cand;
                break;
            }
        }
    }
    return k;
}

/* Confirmation round `round`'s points todo[0..ntodo-1] of neighbourhood collective c on one
 * pattern (all of the same pattern, collective over `sub`): its communicator made over `sub` as
 * run_neighbor makes it, each point measured again on it. A pattern that is unknown or not
 * valid at this size (cs_bench_pattern_valid; every rank decides alike) is skipped, its points
 * taken off the count. */
static int confirm_pattern(const cs_bench_opts_t *o, const cs_bench_plan_t *plan, int c, int round,
                           const cs_bench_contender_t *todo, int ntodo, cs_bench_cand_t *sel,
                           cs_bench_run_t *r, int rank, int n, int ppn, MPI_Comm sub,
                           cs_bench_sync_t *sync, pace_t *pace, cs_bench_progress_t *progress) {
    int rc = CS_OK, k = cs_bench_pattern_find(todo[0].pattern);
    MPI_Comm topo = MPI_COMM_NULL;
    cs_bench_bufs_t nb = {0};
    cs_graph_sig_t sig;
    uint64_t max_bytes = plan->block_sizes[plan->nblock_sizes - 1];
    if (k < 0 || !cs_bench_pattern_valid(&cs_bench_patterns[k], n)) {
        pace->total -= ntodo;
        progress->total = pace->total > 0 ? pace->total : 1;
        return CS_OK;
    }
    for (int t = 0; t < ntodo; t++) { /* a resumed run's stored sizes may lie beyond the plan's */
        max_bytes = todo[t].bytes > max_bytes ? todo[t].bytes : max_bytes;
    }
    CS_CHECK(
        cs_bench_pattern_open(&cs_bench_patterns[k], sub, (size_t)max_bytes, &topo, &sig, &nb));
    for (int t = 0; t < ntodo; t++) {
        int m = confirm_cands(plan, c, &todo[t], sel);
        CS_CHECK(run_point(o, sel, m, (cs_coll_t)c, todo[t].pattern, todo[t].bytes, r, NULL, rank,
                           n, ppn, sub, topo, &nb, sync, pace, progress, round));
    }
out:
    (void)cs_bench_pattern_close(&topo, &nb);
    return rc;
}

/* Confirmation round `round` at communicator size index ci (n processes, collective over
 * `sub`): the setups measured again, then every point rank 0 picks for each collective measured
 * again. Rank 0's failures are shared (the broadcasts here, run_point, measure_setups), so every
 * rank of sub returns the same status. */
static int confirm_size(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int round, int ci,
                        cs_bench_run_t *r, int rank, int n, MPI_Comm sub, uint64_t max_bytes,
                        int count, cs_bench_contender_t *todo, cs_bench_cand_t *sel, pace_t *pace,
                        cs_bench_progress_t *progress) {
    int rc = CS_OK, ppn = 0;
    cs_bench_bufs_t bufs = {0};
    cs_bench_sync_t sync = {0, 0, 0};
    CS_CHECK(prepare_size(o, plan, ci, r, rank, n, sub, max_bytes, &ppn, &bufs, &sync, progress));
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int ntodo = 0;
        if (plan->ncands[c] < 2) {
            continue;
        }
        if (rank == 0) {
            rc = cs_bench_derive_contenders(r->db, r->run_id, o->metric, r->oversubscribed, round,
                                            (cs_coll_t)c, n, ppn, todo, count, &ntodo);
        }
        CS_MPI_CHECK(PMPI_Bcast(&rc, 1, MPI_INT, 0, sub));
        CS_CHECK(rc);
        CS_MPI_CHECK(PMPI_Bcast(&ntodo, 1, MPI_INT, 0, sub));
        CS_MPI_CHECK(PMPI_Bcast(todo, ntodo * (int)sizeof(*todo), MPI_BYTE, 0, sub));
        if (cs_coll_is_neighbor((cs_coll_t)c)) {
            /* one pattern at a time: the contenders come ordered by pattern */
            for (int t = 0; t < ntodo;) {
                int e = t;
                while (e < ntodo && strcmp(todo[e].pattern, todo[t].pattern) == 0) {
                    e++;
                }
                CS_CHECK(confirm_pattern(o, plan, c, round, &todo[t], e - t, sel, r, rank, n, ppn,
                                         sub, &sync, pace, progress));
                t = e;
            }
            continue;
        }
        for (int t = 0; t < ntodo; t++) {
            int k = confirm_cands(plan, c, &todo[t], sel);
            CS_CHECK(run_point(o, sel, k, (cs_coll_t)c, "", todo[t].bytes, r, NULL, rank, n, ppn,
                               sub, sub, &bufs, &sync, pace, progress, round));
        }
    }
out:
    cs_bench_bufs_free(&bufs);
    return rc;
}

/* Confirmation round `round` of o->confirm_rounds (docs/tuning.md "Confirmation", collective
 * over `world`): after every key was measured, each size at which candidates beat native, in
 * the measurement pass and in every round before, is measured again, with native and the best
 * CS_BENCH_CONFIRM_CANDS of them only, minutes after its first measurement; rule derivation
 * lets a candidate replace native only if it wins every time. The neighbourhood collectives'
 * points are confirmed per pattern, on the pattern's communicator. Rank 0 picks the sizes and
 * candidates from the stored measurements (so a resumed run picks the same) and broadcasts
 * them; the round spends its part of what the passes before left of --budget. *measured: the
 * points this launch measured in the round (not found stored), on every rank. */
static int confirm_points(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int round,
                          cs_bench_run_t *r, int rank, MPI_Comm world, pace_t *pace,
                          cs_bench_progress_t *progress, int *measured) {
    int rc = CS_OK, ok = 1, count = 0, before = r->measured;
    MPI_Comm sub = MPI_COMM_NULL;
    uint64_t max_bytes = plan->sizes[plan->nsizes - 1];
    cs_bench_contender_t *todo = NULL;
    cs_bench_cand_t *sel = calloc(CS_BENCH_CONFIRM_CANDS + 1, sizeof(*sel));
    double now = PMPI_Wtime() - pace->start, left;
    *measured = 0;
    if (rank == 0) { /* shared, so that every rank fails alike */
        rc = cs_bench_derive_contenders(r->db, r->run_id, o->metric, r->oversubscribed, round,
                                        (cs_coll_t)0, 0, 0, NULL, INT32_MAX, &count);
    }
    CS_MPI_CHECK(PMPI_Bcast(&rc, 1, MPI_INT, 0, world));
    CS_CHECK(rc);
    CS_MPI_CHECK(PMPI_Bcast(&count, 1, MPI_INT, 0, world));
    /* no key has more points to confirm than the run has in all */
    todo = calloc(count > 0 ? (size_t)count : 1, sizeof(*todo));
    ok = sel != NULL && todo != NULL;
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, world));
    CS_REQUIRE(ok, CS_ERR_NOMEM);
    /* What is left of the whole budget, counted from the run's first start (when a round runs
     * in a launch of its own, --measure-only or --one-round then --resume, the earlier
     * launches' time counts too), is shared equally by this round and those after. It keeps
     * at least its part of the confirmation share, so that a run resumed long after it stopped
     * still confirms. Only rank 0 paces (pace_point_budget), from this launch's start. The
     * rounds alternate the malloc states, the first in the fresh one (malloc_state). */
    malloc_state(round % 2 == 0);
    left = (o->budget_s - (rank == 0 ? r->before_s : 0) - now) / (o->confirm_rounds - round + 1);
    if (left < o->budget_s * CS_BENCH_CONFIRM_SHARE / o->confirm_rounds) {
        left = o->budget_s * CS_BENCH_CONFIRM_SHARE / o->confirm_rounds;
    }
    pace->budget_s = now + left;
    pace->total = pace->done + count;
    pace->w_here = 1; /* shared equally over the points to confirm */
    pace->w_later = 0;
    pace->n_later = 0;
    progress->total = pace->total > 0 ? pace->total : 1;
    if (rank == 0 && !o->quiet && count > 0) {
        cs_bench_progress_end(progress);
        cs_bench_say(rank,
                     "confirmation round %d of %d: %d point(s) where a candidate beat native%s, "
                     "measured again with native%s",
                     round, o->confirm_rounds, count,
                     round > 1 ? " in the measurement pass and every round before" : "",
                     r->before_s > 0 ? " (those not stored before)" : "");
    }
    for (int ci = 0; ci < plan->ncomm_sizes && count > 0; ci++) {
        int n = plan->comm_sizes[ci], verdict;
        CS_MPI_CHECK(PMPI_Comm_split(world, rank < n ? 0 : MPI_UNDEFINED, rank, &sub));
        if (sub != MPI_COMM_NULL) {
            rc = confirm_size(o, plan, round, ci, r, rank, n, sub, max_bytes, count, todo, sel,
                              pace, progress);
            CS_MPI_CHECK(PMPI_Comm_free(&sub));
        }
        /* Every rank learns the size's verdict, the ranks outside sub too: otherwise, when the
         * ranks of sub stop on an error (all alike, see run_point), the others would wait for
         * them at the next split. */
        CS_CHECK(size_verdict(world, rc, &verdict));
        rc = verdict;
        CS_CHECK(rc);
    }
    *measured = r->measured - before;
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, measured, 1, MPI_INT, MPI_MAX, world));
out:
    if (sub != MPI_COMM_NULL) {
        PMPI_Comm_free(&sub);
    }
    free(todo);
    free(sel);
    return rc;
}

/* The machine's LogGP parameters (loggp.h), measured and stored once per tuning run. */
static int measure_loggp(const cs_bench_opts_t *o, const cs_machine_t *machine, cs_bench_run_t *r,
                         int rank, MPI_Comm world) {
    int rc = CS_OK;
    cs_bench_loggp_raw_t raw;
    cs_db_loggp_t l = {r->machine_id, machine->ppn, r->run_id, 0, 0, 0, 0};
    CS_CHECK(cs_bench_loggp_measure(world, &raw, &l));
    {
        /* the candidates timed next (balanced) plan with the values just measured, the same on
         * every rank (cs_bench_loggp_measure fits them everywhere); microseconds pass unchanged
         * (core/loggp.h) */
        const cs_loggp_t model = {l.l_us, l.o_us, l.g_us, l.g_per_byte_us};
        if (cs_loggp_set(&model, CS_LOGGP_FROM_BENCH) != CS_OK && rank == 0) {
            cs_bench_say(rank,
                         "warning: LogGP fit out of range (L %g, o %g, g %g, G %g us): the "
                         "balanced algorithms plan with defaults",
                         l.l_us, l.o_us, l.g_us, l.g_per_byte_us);
        }
    }
    if (rank == 0) {
        if (cs_db_put_loggp(r->db, &l) != CS_OK) { /* not fatal: only balancing needs it */
            cs_bench_say(rank, "warning: could not store the LogGP parameters: %s",
                         cs_db_errmsg(r->db));
        } else if (!o->quiet) {
            cs_bench_say(rank,
                         "LogGP (ping-pong, ranks 0 and 1): L %.3f us, o %.3f us, g %.3f us, "
                         "G %.6f us/byte (round trips %.2f us at %d B, %.2f us at %d B)",
                         l.l_us, l.o_us, l.g_us, l.g_per_byte_us, raw.rtt_small_us,
                         CS_BENCH_LOGGP_SMALL, raw.rtt_large_us, CS_BENCH_LOGGP_LARGE);
        }
    }
out:
    return rc;
}

int cs_bench_main(int argc, char **argv, const cs_algo_t *const *extra, int nextra,
                  MPI_Comm world) {
    int rank, nprocs, rc = CS_OK, status = 0, resumed = 0, nrules = 0, job_ppn = 1;
    cs_bench_core_seen_t cores = {0, 0, 0, 0, 0}; /* what derive_rules saw of the cores */
    int stopped_after = 0; /* --one-round: the confirmation round this launch stopped after */
    char err[512];
    cs_bench_opts_t opts;
    cs_machine_t machine;
    cs_bench_progress_t progress;
    pace_t pace = {0, 0, 0, 0, 1, 0, 0};
    cs_bench_run_t r;
    cs_bench_validation_t val;
    cs_bench_plan_t *plan = NULL;
    cs_bench_thresholds_t *thr = NULL;
    uint64_t thr_bytes[CS_BENCH_MAX_THRESHOLDS];
    int nthr = 0;
    char thr_text[2048];
    double t0 = PMPI_Wtime();
    int overlap_on, nnb = 0;
    memset(&r, 0, sizeof(r));
    memset(&val, 0, sizeof(val));
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &nprocs);
    if (cs_bench_parse(argc, argv, &opts, err, sizeof(err)) != CS_OK) {
        cs_bench_say(rank, "%s", err);
        return 2;
    }
    overlap_on = !opts.validate && opts.overlap == CS_BENCH_OVERLAP_ON;
    if (opts.help) {
        if (rank == 0) {
            fputs(cs_bench_usage, stdout);
        }
        return 0;
    }
    for (int i = 0; i < opts.ncomm_sizes; i++) {
        if (opts.comm_sizes[i] > nprocs) {
            cs_bench_say(rank,
                         "--comm-sizes: %d is more than the %d process(es) of this job (start more "
                         "with mpirun -np)",
                         opts.comm_sizes[i], nprocs);
            return 2;
        }
    }
    /* the job's processes per node: the default plan's node sizes (collective over world) */
    if (cs_machine_node_size(world, &job_ppn) != CS_OK) {
        cs_bench_say(rank, "could not find the processes per node (MPI error)");
        return 1;
    }
    plan = malloc(sizeof(*plan));
    thr = malloc(sizeof(*thr));
    if (plan == NULL || thr == NULL ||
        cs_bench_plan_make(&opts, extra, nextra, nprocs, job_ppn, plan) != CS_OK) {
        cs_bench_say(rank, "out of memory");
        free(plan);
        free(thr);
        return 1;
    }
    /* The MPI library's protocol thresholds: extra sizes and rule boundaries (thresholds.h). */
    if (cs_bench_thresholds_find(thr, world) != CS_OK) {
        cs_bench_say(rank, "could not share the protocol thresholds (MPI error)");
        free(plan);
        free(thr);
        return 1;
    }
    nthr = cs_bench_thresholds_bytes(thr, thr_bytes, CS_BENCH_MAX_THRESHOLDS);
    cs_bench_thresholds_format(thr, thr_text, sizeof(thr_text));
    if (cs_bench_plan_set_sizes(plan, &opts, thr_bytes, nthr) != CS_OK) {
        cs_bench_say(rank, "--sizes and the protocol thresholds give more than %d sizes",
                     CS_BENCH_MAX_SIZES);
        free(plan);
        free(thr);
        return 2;
    }
    if (opts.list) {
        if (rank == 0) {
            status = cs_bench_plan_list(&opts, plan, rank) != CS_OK;
            printf("%s%s\n", thr_text,
                   opts.no_refine ? " (--no-refine: not measured, still rule boundaries)" : "");
            cs_bench_overlap_list(&opts, plan);
            say_ompi(plan, rank);
        }
        free(plan);
        free(thr);
        return status;
    }
    if (opts.quiet) {
        cs_log_set_level(0);
    }
    CS_CHECK(cs_machine_query(&machine, world));
    if (rank == 0) {
        status = cs_bench_run_open(&opts, &machine, &r, &resumed) == CS_OK ? 0 : 1;
    }
    CS_MPI_CHECK(PMPI_Bcast(&status, 1, MPI_INT, 0, world));
    if (status != 0) {
        free(plan);
        free(thr);
        return 1;
    }
    if (!opts.quiet) {
        cs_bench_say(rank, "%s run %lld: %d processes on %d node(s), %d per node; %s; %s",
                     resumed ? "resuming" : "starting", (long long)r.run_id, machine.nprocs,
                     machine.nnodes, machine.ppn, machine.topology, r.path);
    }
    if (!opts.quiet) {
        say_ompi(plan, rank);
        cs_bench_say(rank, "%s", thr_text);
    }
    if (cs_machine_oversubscribed(&machine)) {
        cs_bench_say(
            rank,
            "warning: %d processes per node on %d cores: oversubscribed, timings are noisy "
            "(compare only within this run)%s",
            machine.ppn, machine.cores,
            opts.metric == CS_DB_METRIC_BOTH && !opts.validate
                ? "; ranks that share a core cannot start together, so the synchronised metric is "
                  "kept but rules are decided by the loop metric (docs/tuning.md)"
                : "");
        /* Unbound, the OS moves ranks between cores, and which of them share a core changes
         * every few seconds: a candidate then has a fast and a slow mode, each lasting a whole
         * point, that tuning and a later check see differently (docs/tuning.md). */
        int unbound = cs_machine_core_bound() == 0;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &unbound, 1, MPI_INT, MPI_MAX, world));
        if (unbound) {
            cs_bench_say(rank,
                         "warning: ranks are not bound to cores, so the OS moves them and their "
                         "timings switch between modes that last seconds; bind them with "
                         "mpirun --bind-to core:overload-allowed (scripts/tune does)");
        }
    }
    CS_CHECK(cs_bench_cores_find(world, &r.cores));
    if (!opts.validate && machine.nprocs >= 2 && opts.overlap != CS_BENCH_OVERLAP_ONLY) {
        CS_CHECK(measure_loggp(&opts, &machine, &r, rank, world));
    }
    if (opts.validate) {
        /* Room for the powers of two of every key: tuned points are counted by validate_start. */
        val.metric = cs_bench_policy(opts.metric, cs_machine_oversubscribed(&machine));
        val.passes = opts.validate_passes;
        CS_CHECK(cs_bench_validate_start(&val, &r, plan->nkeys * 64, rank, world));
    }
    cs_bench_progress_start(&progress, plan->npoints, rank == 0 && !opts.quiet);
    pace.start = PMPI_Wtime();
    pace.total = plan->npoints;
    pace.budget_s = opts.validate || opts.no_confirm
                        ? opts.budget_s
                        : opts.budget_s * (1.0 - CS_BENCH_CONFIRM_SHARE);
    pace.budget_s -= overlap_on ? opts.budget_s * CS_BENCH_OVERLAP_SHARE : 0;
    malloc_state(1);
    if (opts.overlap != CS_BENCH_OVERLAP_ONLY || opts.validate) {
        /* --validate sweeps its points once per pass (validate.h); tuning once */
        for (int pass = 1; pass <= (opts.validate ? val.passes : 1) && rc == CS_OK; pass++) {
            val.pass = pass;
            if (pass > 1) {
                pace.total += plan->npoints;
                progress.total = pace.total;
            }
            rc = run_points(&opts, plan, &r, &val, rank, world, &pace, &progress);
            CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, world));
        }
    }
    if (rc == CS_OK && !opts.validate && opts.overlap != CS_BENCH_OVERLAP_OFF) {
        cs_bench_progress_end(&progress);
        rc = cs_bench_overlap_pass(
            &opts, plan, &r, rank, world,
            overlap_on ? opts.budget_s * CS_BENCH_OVERLAP_SHARE : opts.budget_s, !overlap_on);
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, world));
    }
    if (rc == CS_OK && !opts.validate && !opts.no_confirm && !opts.measure_only &&
        opts.overlap != CS_BENCH_OVERLAP_ONLY) {
        /* The rounds in order; a resumed run finds those it finished stored, and with
         * --one-round stops after the first in which this launch measured something. */
        for (int round = 1; round <= opts.confirm_rounds && rc == CS_OK; round++) {
            int measured = 0;
            rc = confirm_points(&opts, plan, round, &r, rank, world, &pace, &progress, &measured);
            CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, world));
            if (opts.one_round && measured > 0) {
                stopped_after = round;
                break;
            }
        }
        if (opts.one_round && stopped_after == 0) {
            stopped_after = opts.confirm_rounds;
        }
    }
    cs_bench_progress_close(&progress);
    CS_CHECK(rc);
    if (rank == 0 && opts.overlap != CS_BENCH_OVERLAP_ONLY) {
        cs_bench_progress_spent(&progress);
        cs_bench_progress_spent_sizes(&progress);
    }
    if (rank == 0 && opts.validate) {
        char dur[32];
        cs_bench_progress_end(&progress);
        CS_CHECK(cs_bench_validate_finish(&val, &r, opts.quiet)); /* its rows, then 'done' */
        CS_CHECK(cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_DONE));
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        cs_bench_validate_summary(&val, cs_machine_oversubscribed(&machine));
        fflush(stdout); /* the summary before the last line, when both go to one file */
        fprintf(stderr, "collsel-bench: validation run %lld done in %s -> %s\n",
                (long long)r.run_id, dur, r.path);
    } else if (rank == 0 && opts.measure_only) {
        /* left 'running', so that --resume continues it: the confirmation rounds and the
         * rules in a fresh launch (docs/tuning.md "Confirmation") */
        char dur[32];
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        fprintf(stderr,
                "collsel-bench: run %lld measured in %s (%d points) -> %s; it has no rules yet: "
                "the same command with --resume instead of --measure-only confirms its wins in "
                "a fresh launch and derives them\n",
                (long long)r.run_id, dur, progress.done, r.path);
    } else if (rank == 0 && stopped_after > 0) {
        /* --one-round: left 'running' too, for the next round or the rules */
        char dur[32];
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        fprintf(stderr,
                "collsel-bench: run %lld: confirmation round %d of %d done in %s -> %s; it has "
                "no rules yet: the same command with --resume %s\n",
                (long long)r.run_id, stopped_after, opts.confirm_rounds, dur, r.path,
                stopped_after < opts.confirm_rounds
                    ? "runs the next round in a fresh launch (and without --one-round the rounds "
                      "after it and the rules)"
                    : "and without --one-round derives them");
    } else if (rank == 0) {
        int64_t nmeas = 0, nfail = 0;
        char dur[32];
        if (opts.overlap != CS_BENCH_OVERLAP_ONLY) {
            CS_CHECK(cs_bench_derive_rules(r.db, r.machine_id, r.run_id, thr_bytes, nthr, &nrules,
                                           &cores));
        }
        if (opts.overlap != CS_BENCH_OVERLAP_OFF) {
            CS_CHECK(cs_bench_overlap_derive(r.db, r.machine_id, r.run_id, thr_bytes, nthr, &nnb));
        }
        CS_CHECK(cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_DONE));
        CS_CHECK(cs_db_count_rows(r.db, "measurement", r.run_id, &nmeas));
        CS_CHECK(cs_db_count_rows(r.db, "failure", r.run_id, &nfail));
        CS_CHECK(cs_db_foreach_failure(r.db, r.run_id, print_failure, NULL));
        if (!opts.quiet && opts.overlap != CS_BENCH_OVERLAP_ONLY) {
            printf("winners (rank 1 of each size interval):\n");
            CS_CHECK(cs_db_foreach_rule(r.db, r.machine_id, print_rule, NULL));
            say_core_states(&cores);
        }
        fflush(stdout); /* the winners before the last line, when both go to one file */
        cs_bench_format_duration(PMPI_Wtime() - t0, dur, sizeof(dur));
        fprintf(stderr,
                "collsel-bench: run %lld done in %s: %d points, %lld measurements, %lld "
                "verification failures, %d rules, %d nonblocking rules -> %s\n",
                (long long)r.run_id, dur, progress.done, (long long)nmeas, (long long)nfail, nrules,
                nnb, r.path);
    }
out:
    if (rc != CS_OK) {
        cs_bench_say(rank, "run failed: %s", cs_status_str(rc));
        if (rank == 0 && r.db != NULL && r.run_id != 0 &&
            cs_db_finish_run(r.db, r.run_id, CS_DB_RUN_ABORTED) != CS_OK) {
            cs_bench_say(rank, "could not mark run %lld aborted: %s", (long long)r.run_id,
                         cs_db_errmsg(r.db));
        }
    }
    if (rank == 0) {
        cs_bench_run_close(&r);
    }
    cs_bench_validate_free(&val);
    free(plan);
    free(thr);
    return rc == CS_OK ? 0 : 1;
}

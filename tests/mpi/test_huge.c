/* cs_mpi_huge: bcast, allreduce, reduce and allgather past 2 GiB, every registered algorithm and
 * variant in turn, under mpirun (np 2; any np works, the memory is per rank).
 *
 * Calls (MPI_INT, MPI_SUM for the reductions):
 *   - bcast of HUGE_COUNT ints (2 GiB + 256 KiB) from root 1;
 *   - allreduce of HUGE_COUNT ints, in place;
 *   - reduce of HUGE_COUNT ints to root 1, in place at the root (the other ranks pass only a
 *     send buffer);
 *   - allgather of HUGE_COUNT / 2 ints per rank, in place: its receive buffer holds
 *     p * HUGE_COUNT / 2 ints, past 2 GiB at np 2 (a per-rank block past 2 GiB would need
 *     p times that per rank, more than this machine can give two ranks).
 * Data: element i of rank r's contribution is value(i, r, salt), small enough that no sum
 * overflows, with a salt new for every run, so that a run that leaves the previous run's result
 * in place fails. The result is checked at the first and last 64 elements and at 4096 positions
 * spread over the buffer (of every block for allgather): a cheap known result, no second buffer.
 * Each variant runs through cs_algo_run_variant() on a duplicate of MPI_COMM_WORLD made for its
 * collective (freed after it, with the scratch and window collsel allocated for it); one buffer
 * per rank, reused by every case, holds the data. A variant that
 * declines (CS_ERR_NOT_APPLICABLE on every rank: an algorithm that cannot express the call refuses
 * it) is followed by the native collective (cs_registry_native), as the selector falls back, whose
 * result is checked the same way. A variant whose memory (the test's buffers, its schedule's
 * scratch on every rank and its shared window, from a trial build) exceeds the budget,
 * --budget-gib G (default 8.1: four payloads) over all ranks, is skipped and says so (at np 2:
 * allreduce/dpml, whose window reserves 2 m vectors per node); natives are assumed to need one
 * more payload per rank for a reduction. When only what earlier variants left in the context
 * (its scratch and window only grow) would pass the budget, the variant runs on a new duplicate.
 *
 * Prints one line per variant and "N passed, N failed", the last line on stdout; exit status 1
 * on any failure. Options: --budget-gib G, --only PREFIX (algorithms whose name starts with it). */
#include "core/algo.h"
#include "core/machine.h"
#include "registry.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_COUNT ((1 << 29) + (1 << 16)) /* ints: 2 GiB + 256 KiB */
#define EDGE       64
#define SAMPLES    4096
#define GIB        (1024.0 * 1024.0 * 1024.0)
#define HUGE_PAGE  ((size_t)2 << 20)

static int rank, nprocs, ppn;
static double budget_bytes = 8.1 * GIB;
static int salt;

/* Element i of rank r's data: below 2^20, so a sum over fewer than 2^11 ranks fits an int. */
static int value(long i, int r) {
    unsigned h = (unsigned)i * 2654435761u ^ (unsigned)salt * 40503u ^ (unsigned)r * 977u;
    h ^= h >> 15;
    return (int)(h & 0xFFFFF);
}

static void fill(int *buf, long n, int r) {
    for (long i = 0; i < n; i++) {
        buf[i] = value(i, r);
    }
}

/* What element i of a block of n must hold: rank `owner`'s value, or the sum over all ranks
 * (owner < 0). */
static int expected(long i, int owner) {
    int s = 0;
    if (owner >= 0) {
        return value(i, owner);
    }
    for (int r = 0; r < nprocs; r++) {
        s += value(i, r);
    }
    return s;
}

/* Checks a block of n elements at buf against expected(., owner). Returns the first bad
 * position or -1. */
static long check(const int *buf, long n, int owner) {
    for (long k = 0; k < 2 * EDGE + SAMPLES; k++) {
        long i = k < EDGE       ? k
                 : k < 2 * EDGE ? n - 2 * EDGE + k
                                : (k - 2 * EDGE) * (n / SAMPLES) + k % 61;
        if (i >= 0 && i < n && buf[i] != expected(i, owner)) {
            return i;
        }
    }
    return -1;
}

typedef struct huge_case {
    cs_coll_t coll;
    long count; /* per rank (allgather: per block) */
    int root;
} huge_case_t;

/* The buffers of one case on this rank (reused by its variants). */
typedef struct bufs {
    int *send, *recv;
    long nsend, nrecv;
} bufs_t;

/* One allocation for every case (each uses one buffer per rank), so that its pages are faulted
 * in once; transparent huge pages asked for where the kernel gives them on request. */
static int *arena;
static long arena_n;

static int arena_alloc(long n) {
    void *p = NULL;
    size_t bytes = ((size_t)n * sizeof(int) + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0) {
        return -1;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it the test only takes longer */
#endif
    arena = p;
    arena_n = n;
    return 0;
}

/* The buffers of case `hc` on this rank, in the arena. */
static int alloc_bufs(const huge_case_t *hc, bufs_t *b) {
    memset(b, 0, sizeof(*b));
    switch (hc->coll) {
    case CS_COLL_BCAST:
    case CS_COLL_ALLREDUCE:
        b->nrecv = hc->count;
        break;
    case CS_COLL_REDUCE:
        if (rank == hc->root) {
            b->nrecv = hc->count;
        } else {
            b->nsend = hc->count;
        }
        break;
    default: /* allgather */
        b->nrecv = hc->count * nprocs;
        break;
    }
    if (b->nsend + b->nrecv > arena_n) {
        return -1;
    }
    b->send = b->nsend > 0 ? arena : NULL;
    b->recv = b->nrecv > 0 ? arena + b->nsend : NULL;
    return 0;
}

/* Fills this rank's input for a new run and constructs the call on `comm`. */
static int prepare(const huge_case_t *hc, bufs_t *b, MPI_Comm comm, cs_call_t *call) {
    int n = (int)hc->count;
    salt++;
    switch (hc->coll) {
    case CS_COLL_BCAST:
        if (rank == hc->root) {
            fill(b->recv, n, rank);
        }
        return cs_call_bcast(call, b->recv, n, MPI_INT, hc->root, comm);
    case CS_COLL_ALLREDUCE:
        fill(b->recv, n, rank);
        return cs_call_allreduce(call, MPI_IN_PLACE, b->recv, n, MPI_INT, MPI_SUM, comm);
    case CS_COLL_REDUCE:
        if (rank == hc->root) {
            fill(b->recv, n, rank);
            return cs_call_reduce(call, MPI_IN_PLACE, b->recv, n, MPI_INT, MPI_SUM, hc->root, comm);
        }
        fill(b->send, n, rank);
        return cs_call_reduce(call, b->send, NULL, n, MPI_INT, MPI_SUM, hc->root, comm);
    default:
        fill(b->recv + (long)rank * n, n, rank);
        return cs_call_allgather(call, MPI_IN_PLACE, n, MPI_INT, b->recv, n, MPI_INT, comm);
    }
}

/* Checks this rank's result; prints what is wrong. Returns 1 when bad. */
static int verify(const huge_case_t *hc, const bufs_t *b, const char *name) {
    long at = -1;
    int block = 0;
    switch (hc->coll) {
    case CS_COLL_BCAST:
        at = check(b->recv, hc->count, hc->root);
        break;
    case CS_COLL_ALLREDUCE:
        at = check(b->recv, hc->count, -1);
        break;
    case CS_COLL_REDUCE:
        at = rank == hc->root ? check(b->recv, hc->count, -1) : -1;
        if (at < 0 && b->send != NULL) { /* the send buffer stays as it was */
            at = check(b->send, hc->count, rank);
        }
        break;
    default:
        for (block = 0; block < nprocs && at < 0; block++) {
            at = check(b->recv + (long)block * hc->count, hc->count, block);
        }
        block--;
        break;
    }
    if (at >= 0) {
        fprintf(stderr, "FAIL %s rank %d: block %d element %ld wrong\n", name, rank, block, at);
        return 1;
    }
    return 0;
}

/* What the communicator context of a collective's runs holds on this rank: its scratch and
 * shared window only grow (comm.h), so a variant needs the larger of what is held and what its
 * schedule asks for. */
typedef struct held {
    double scratch, window;
} held_t;

/* Bytes this variant needs on this rank besides the test's buffers: the scratch and shared
 * window (counted on local rank 0 of a node, which allocates it) the context will hold after
 * it, per *held, updated in *after; a native reduction one more payload (the MPI library's). */
static double extra_bytes(const cs_variant_t *v, const cs_call_t *call, const held_t *held,
                          held_t *after) {
    cs_sched_t s;
    cs_nodes_t nodes = {nprocs, ppn, (nprocs + ppn - 1) / ppn, NULL};
    cs_state_t state;
    *after = *held;
    if (cs_algo_is_native(v->algo)) {
        return held->scratch + held->window +
               (cs_coll_is_reduction(call->coll) ? (double)call->recvcount * sizeof(int) : 0);
    }
    memset(&s, 0, sizeof(s));
    memset(&state, 0, sizeof(state));
    state.nodes = &nodes;
    if (cs_algo_applicable(v->algo, call) == CS_OK &&
        cs_algo_build_state(v->algo, &v->params, call,
                            (v->algo->reqs & CS_REQ_NODES) ? &state : NULL, &s) == CS_OK) {
        double window = rank % ppn == 0 ? 2.0 * (double)s.window_bytes : 0;
        after->scratch =
            (double)s.scratch_bytes > held->scratch ? (double)s.scratch_bytes : held->scratch;
        after->window = window > held->window ? window : held->window;
    }
    cs_sched_free(&s);
    return after->scratch + after->window;
}

/* Runs one variant on *comm, whose context holds *held (updated); when what is held would pass
 * the budget but the variant alone would not, on a new duplicate that replaces *comm. Returns 1
 * passed, 0 failed, -1 skipped (memory). Collective. */
static int run_variant(const huge_case_t *hc, bufs_t *b, const cs_variant_t *v, MPI_Comm *comm,
                       held_t *held) {
    static const held_t none = {0, 0};
    char name[256];
    cs_call_t call;
    held_t after = *held, alone;
    int bad = 0, st, declined, all_declined, native_ran = 0;
    double need[2]; /* with what is held, and on a new communicator */
    cs_variant_name(v, name, sizeof(name));
    st = prepare(hc, b, *comm, &call);
    if (st != CS_OK) {
        fprintf(stderr, "FAIL %s rank %d: the cs_call constructor: %s\n", name, rank,
                cs_status_name(st));
        bad = 1;
    }
    need[0] = need[1] = (double)(b->nsend + b->nrecv) * sizeof(int);
    if (!bad) {
        need[0] += extra_bytes(v, &call, held, &after);
        need[1] += extra_bytes(v, &call, &none, &alone);
    }
    MPI_Allreduce(MPI_IN_PLACE, need, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!bad && need[1] > budget_bytes) {
        if (rank == 0) {
            printf("%-44s skipped: needs %.1f GiB over all ranks (budget %.1f)\n", name,
                   need[1] / GIB, budget_bytes / GIB);
            fflush(stdout);
        }
        return -1;
    }
    if (!bad && need[0] > budget_bytes) {
        /* what earlier variants left in the context is in the way: a new communicator */
        MPI_Comm_free(comm);
        MPI_Comm_dup(MPI_COMM_WORLD, comm);
        after = alone;
        st = prepare(hc, b, *comm, &call);
        if (st != CS_OK) {
            fprintf(stderr, "FAIL %s rank %d: the cs_call constructor: %s\n", name, rank,
                    cs_status_name(st));
            bad = 1;
        }
    }
    if (!bad) {
        double t0 = MPI_Wtime();
        st = cs_algo_run_variant(v, &call);
        declined = st == CS_ERR_NOT_APPLICABLE;
        MPI_Allreduce(&declined, &all_declined, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &declined, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (declined != all_declined) {
            fprintf(stderr, "FAIL %s rank %d: declined on some ranks only\n", name, rank);
            bad = 1;
        } else if (declined) {
            /* what the selector does next: the MPI library's collective */
            st = cs_algo_run(cs_registry_native(hc->coll), &call);
            native_ran = 1;
        }
        if (!bad && st != CS_OK) {
            fprintf(stderr, "FAIL %s rank %d: %s\n", name, rank, cs_status_name(st));
            bad = 1;
        }
        if (!bad) {
            bad = verify(hc, b, name);
        }
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("%-44s %s%s (%.1f s)\n", name, bad ? "FAILED" : "ok",
                   native_ran ? ", declined: native ran" : "", MPI_Wtime() - t0);
            fflush(stdout);
        }
    }
    *held = after;
    return bad ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *only = NULL;
    int passed = 0, failed = 0, skipped = 0;
    cs_variant_t *vs;
    int oom;
    huge_case_t cases[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--budget-gib") == 0 && i + 1 < argc) {
            budget_bytes = atof(argv[++i]) * GIB;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            if (rank == 0) {
                fprintf(stderr, "usage: %s [--budget-gib G] [--only PREFIX]\n", argv[0]);
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (cs_machine_node_size(MPI_COMM_WORLD, &ppn) != CS_OK) {
        ppn = nprocs;
    }
    vs = malloc(CS_MAX_VARIANTS * sizeof(*vs));
    oom = vs == NULL;
    cases[0] = (huge_case_t){CS_COLL_BCAST, HUGE_COUNT, nprocs - 1};
    cases[1] = (huge_case_t){CS_COLL_ALLREDUCE, HUGE_COUNT, 0};
    cases[2] = (huge_case_t){CS_COLL_REDUCE, HUGE_COUNT, nprocs - 1};
    cases[3] = (huge_case_t){CS_COLL_ALLGATHER, HUGE_COUNT / 2, 0};
    {
        int bad =
            arena_alloc(HUGE_COUNT / 2 * (long)nprocs > HUGE_COUNT ? HUGE_COUNT / 2 * (long)nprocs
                                                                   : HUGE_COUNT) != 0;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "FAIL: cannot allocate the test buffers\n");
            }
            MPI_Finalize();
            return 1;
        }
    }
    for (int c = 0; c < 4 && vs != NULL; c++) {
        bufs_t b;
        held_t held = {0, 0};
        MPI_Comm comm;
        int bad = alloc_bufs(&cases[c], &b) != 0;
        /* one communicator per collective: its context's scratch and window (held) are freed
         * with it */
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "FAIL %s: cannot allocate the test buffers\n",
                        cs_coll_name(cases[c].coll));
            }
            failed++;
        }
        for (int i = 0; !bad && i < cs_registry_count; i++) {
            const cs_algo_t *a = cs_registry[i];
            int nv = 0;
            if (a->coll != cases[c].coll ||
                (only != NULL && strncmp(a->name, only, strlen(only)) != 0)) {
                continue;
            }
            if (cs_algo_variants(a, nprocs, ppn, vs, CS_MAX_VARIANTS, &nv) != CS_OK) {
                fprintf(stderr, "FAIL %s: cs_algo_variants\n", a->name);
                failed++;
                continue;
            }
            if (nv == 0 && rank == 0) {
                printf("%-44s no variant at np=%d\n", a->name, nprocs);
            }
            for (int k = 0; k < nv; k++) {
                int res = run_variant(&cases[c], &b, &vs[k], &comm, &held);
                passed += res > 0;
                failed += res == 0;
                skipped += res < 0;
            }
        }
        MPI_Comm_free(&comm);
    }
    free(arena);
    free(vs);
    if (rank == 0) {
        printf("%d skipped (memory)\n", skipped);
        printf("%d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed > 0 || oom ? 1 : 0;
}

/* The core-to-core probe (corestate.h). */
#define _GNU_SOURCE
#include "corestate.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The first CPU of the calling thread's binding, or -1. */
static int first_cpu(cpu_set_t *set) {
    if (sched_getaffinity(0, sizeof(*set), set) != 0) {
        return -1;
    }
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, set)) {
            return c;
        }
    }
    return -1;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int cs_bench_cores_find(MPI_Comm world, cs_bench_cores_t *cores) {
    int rc = CS_OK, rank = 0, nlocal = 0, mine, k = 0;
    int *all = NULL;
    cpu_set_t set;
    MPI_Comm node = MPI_COMM_NULL;
    CS_REQUIRE(cores != NULL, CS_ERR_ARG);
    memset(cores, 0, sizeof(*cores));
    mine = first_cpu(&set);
    CS_MPI_CHECK(PMPI_Comm_rank(world, &rank));
    CS_MPI_CHECK(PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CS_MPI_CHECK(PMPI_Comm_size(node, &nlocal));
    all = calloc((size_t)nlocal, sizeof(int));
    CS_REQUIRE(all != NULL, CS_ERR_NOMEM);
    CS_MPI_CHECK(PMPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, node));
    if (rank != 0 || mine < 0) {
        goto out;
    }
    /* the other ranks' distinct CPUs, ascending */
    qsort(all, (size_t)nlocal, sizeof(int), cmp_int);
    for (int i = 0; i < nlocal; i++) {
        if (all[i] >= 0 && all[i] != mine && (k == 0 || all[k - 1] != all[i])) {
            all[k++] = all[i];
        }
    }
    if (k == 0) { /* every rank on one CPU, or unbound: rank 0's other CPUs */
        for (int c = 0; c < CPU_SETSIZE && k < nlocal; c++) {
            if (CPU_ISSET(c, &set) && c != mine) {
                all[k++] = c;
            }
        }
    }
    cores->cpu[0] = mine;
    cores->n = 1;
    for (int j = 0; j < k && j < CS_BENCH_CORE_PAIRS; j++) { /* spread over the k */
        int pick =
            k <= CS_BENCH_CORE_PAIRS ? j : (int)((long)j * (k - 1) / (CS_BENCH_CORE_PAIRS - 1));
        cores->cpu[cores->n++] = all[pick];
    }
out:
    free(all);
    if (node != MPI_COMM_NULL) {
        PMPI_Comm_free(&node);
    }
    return rc;
}

/* One pair: the line and the helper thread's side. flag counts the exchanges (odd: the main
 * thread's turn taken, even: answered); -1: the helper could not be pinned; stop ends it. */
typedef struct pair {
    _Alignas(64) atomic_int flag;
    _Alignas(64) atomic_int stop;
    int cpu;
} pair_t;

static int pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static void *helper(void *arg) {
    pair_t *p = arg;
    if (pin(p->cpu) != 0) {
        atomic_store(&p->flag, -1);
        return NULL;
    }
    for (int i = 0; i < CS_BENCH_CORE_BATCH * CS_BENCH_CORE_BATCHES; i++) {
        while (atomic_load_explicit(&p->flag, memory_order_acquire) != 2 * i + 1) {
            if (atomic_load_explicit(&p->stop, memory_order_relaxed)) {
                return NULL;
            }
        }
        atomic_store_explicit(&p->flag, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The fastest batch's round trip between the calling thread (pinned to its CPU by the caller)
 * and cpu, or NaN. */
static double probe_pair(int cpu) {
    pair_t *p = NULL;
    pthread_t t;
    double best = INFINITY, start = now_ns();
    int failed = 0;
    if (posix_memalign((void **)&p, 64, sizeof(*p)) != 0) {
        return NAN;
    }
    atomic_init(&p->flag, 0);
    atomic_init(&p->stop, 0);
    p->cpu = cpu;
    if (pthread_create(&t, NULL, helper, p) != 0) {
        free(p);
        return NAN;
    }
    for (int b = 0; b < CS_BENCH_CORE_BATCHES && !failed; b++) {
        double t0 = now_ns();
        for (int j = 0; j < CS_BENCH_CORE_BATCH && !failed; j++) {
            int i = b * CS_BENCH_CORE_BATCH + j, spins = 0, v;
            atomic_store_explicit(&p->flag, 2 * i + 1, memory_order_release);
            while ((v = atomic_load_explicit(&p->flag, memory_order_acquire)) != 2 * i + 2) {
                if (v == -1 ||
                    (++spins % 4096 == 0 && now_ns() - start > CS_BENCH_CORE_GIVE_UP * 1e9)) {
                    failed = 1;
                    break;
                }
            }
        }
        if (!failed) {
            double d = (now_ns() - t0) / CS_BENCH_CORE_BATCH;
            best = d < best ? d : best;
        }
    }
    atomic_store(&p->stop, 1);
    pthread_join(t, NULL);
    free(p);
    return failed ? NAN : best;
}

double cs_bench_cores_rtt(const cs_bench_cores_t *cores) {
    double worst = NAN;
    cpu_set_t old;
    if (cores == NULL || cores->n < 2 ||
        pthread_getaffinity_np(pthread_self(), sizeof(old), &old) != 0) {
        return NAN;
    }
    if (pin(cores->cpu[0]) == 0) {
        for (int k = 1; k < cores->n; k++) {
            double d = probe_pair(cores->cpu[k]);
            if (isfinite(d) && !(d <= worst)) {
                worst = d;
            }
        }
    }
    pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
    return worst;
}

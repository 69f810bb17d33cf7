/* The plan of a tuning run (see plan.h). */
#include "plan.h"

#include "progress.h"
#include "registry.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int selected(const cs_bench_opts_t *o, const char *name) {
    if (o->nalgorithms == 0) {
        return 1;
    }
    for (int i = 0; i < o->nalgorithms; i++) {
        if (fnmatch(o->algorithms[i], name, 0) == 0) {
            return 1;
        }
    }
    return 0;
}

int cs_bench_plan_make(const cs_bench_opts_t *o, const cs_algo_t *const *extra, int nextra,
                       int nprocs, cs_bench_plan_t *plan) {
    memset(plan, 0, sizeof(*plan));
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int n = 0;
        if (!(o->colls & (1u << c))) {
            continue;
        }
        plan->algos[c][n++] = cs_registry_native((cs_coll_t)c);
        for (int i = 0; i < cs_registry_count; i++) {
            const cs_algo_t *a = cs_registry[i];
            if (a->coll == (cs_coll_t)c && a->run == NULL && selected(o, a->name) &&
                n < CS_BENCH_MAX_CANDS) {
                plan->algos[c][n++] = a;
            }
        }
        for (int i = 0; i < nextra; i++) {
            if (extra[i]->coll == (cs_coll_t)c && n < CS_BENCH_MAX_CANDS) {
                plan->algos[c][n++] = extra[i];
            }
        }
        plan->nalgos[c] = n;
    }
    if (o->ncomm_sizes == 0) {
        plan->comm_sizes[0] = nprocs;
        plan->ncomm_sizes = 1;
    } else {
        memcpy(plan->comm_sizes, o->comm_sizes, sizeof(int) * (size_t)o->ncomm_sizes);
        plan->ncomm_sizes = o->ncomm_sizes;
    }
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (plan->nalgos[c] > 0) {
            plan->npoints += plan->ncomm_sizes * o->nsizes;
        }
    }
    return CS_OK;
}

int cs_bench_plan_expand(cs_bench_plan_t *plan, int nprocs, int ppn, int rank) {
    int rc = CS_OK;
    cs_variant_t *v = malloc(CS_BENCH_MAX_CANDS * sizeof(*v));
    CS_REQUIRE(v != NULL, CS_ERR_NOMEM);
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int n = 0;
        for (int i = 0; i < plan->nalgos[c]; i++) {
            int nv = 0;
            rc = cs_algo_variants(plan->algos[c][i], nprocs, ppn, v, CS_BENCH_MAX_CANDS - n, &nv);
            if (rc == CS_ERR_NOMEM) {
                cs_bench_say(rank,
                             "%s: more than %d candidates on %d processes (%s has too many "
                             "variants); narrow the plan with --algorithms",
                             cs_coll_name((cs_coll_t)c), CS_BENCH_MAX_CANDS, nprocs,
                             plan->algos[c][i]->name);
            }
            CS_CHECK(rc);
            for (int k = 0; k < nv; k++) {
                cs_bench_cand_set(&plan->cands[c][n++], v[k].algo, &v[k].params);
            }
        }
        plan->ncands[c] = n;
    }
out:
    free(v);
    return rc;
}

int cs_bench_plan_list(const cs_bench_opts_t *o, cs_bench_plan_t *plan, int ppn, int rank) {
    int rc = CS_OK;
    int ncolls = 0, nmeasure = 0;
    char dur[32];
    for (int ci = 0; ci < plan->ncomm_sizes; ci++) {
        int n = plan->comm_sizes[ci];
        CS_CHECK(cs_bench_plan_expand(plan, n, ppn < n ? ppn : n, rank));
        if (plan->ncomm_sizes > 1) {
            printf("# communicator size %d\n", n);
        }
        ncolls = 0;
        for (int c = 0; c < CS_COLL_COUNT; c++) {
            for (int i = 0; i < plan->ncands[c]; i++) {
                printf("%s\n", plan->cands[c][i].name);
            }
            ncolls += plan->ncands[c] > 0;
            nmeasure += plan->ncands[c] * o->nsizes;
        }
    }
    double per_point = o->budget_s > 0 ? o->budget_s / (plan->npoints > 0 ? plan->npoints : 1)
                                       : CS_BENCH_POINT_BUDGET_S;
    cs_bench_format_duration(per_point * plan->npoints, dur, sizeof(dur));
    printf("plan: %d collectives x %d sizes x %d communicator sizes = %d points, %d measurements\n",
           ncolls, o->nsizes, plan->ncomm_sizes, plan->npoints, nmeasure);
    printf("estimated duration: at most %s (%.2f s timing per point, plus verification)\n", dur,
           per_point);
out:
    return rc;
}

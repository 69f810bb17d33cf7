/* Every registered schedule builder through the case machinery (see sim_test.c): the case lists of
 * one call and the consecutive-call sequences, and the run of every algorithm over them. */
#include "sim_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int nprocs_list[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 16, 24, 31, 32, 64};
#define NPROCS_COUNT ((int)(sizeof(nprocs_list) / sizeof(nprocs_list[0])))

/* Emulated node sizes for algorithms that work on nodes (CS_REQ_NODES), besides one node. */
static const int node_sizes[] = {2, 3, 4};
#define NODE_SIZES ((int)(sizeof(node_sizes) / sizeof(node_sizes[0])))

/* ---- case lists ---------------------------------------------------------------------------- */

typedef struct caselist {
    scase_t *v;
    int n, cap;
} caselist_t;

static int add_case(caselist_t *l, const scase_t *sc) {
    if (l->n == l->cap) {
        int ncap = l->cap > 0 ? 2 * l->cap : 256;
        scase_t *bigger = realloc(l->v, (size_t)ncap * sizeof(*bigger));
        if (bigger == NULL) {
            return CS_ERR_NOMEM;
        }
        l->v = bigger;
        l->cap = ncap;
    }
    l->v[l->n] = *sc;
    l->v[l->n].salt = l->n;
    l->n++;
    return CS_OK;
}

/* Appends v to set[0..*n) unless present or negative. */
static void add_unique(int *set, int *n, int v) {
    if (v < 0) {
        return;
    }
    for (int i = 0; i < *n; i++) {
        if (set[i] == v) {
            return;
        }
    }
    set[(*n)++] = v;
}

/* Send layout, receive layout and reduction op of a case. */
typedef struct typepair {
    int sk, rk, op;
} typepair_t;

/* The layouts a collective is tested with into types[0..5); returns how many. The first three
 * have equal send and receive layouts: int, then the reductions' non-commutative ones. */
static int type_pairs(cs_coll_t coll, typepair_t *types) {
    int ntypes = 0;
    if (cs_coll_is_reduction(coll)) {
        types[ntypes++] = (typepair_t){K_INT, K_INT, OP_SUM};
        types[ntypes++] = (typepair_t){K_MAT, K_MAT, OP_MAT};
        types[ntypes++] = (typepair_t){K_HIDX, K_HIDX, OP_AFF};
    } else {
        types[ntypes++] = (typepair_t){K_INT, K_INT, OP_NONE};
        types[ntypes++] = (typepair_t){K_HIDX, K_HIDX, OP_NONE};
        types[ntypes++] = (typepair_t){K_SHIFT, K_SHIFT, OP_NONE};
        if (coll != CS_COLL_BCAST) {
            types[ntypes++] = (typepair_t){K_HIDX, K_INT, OP_NONE};
            types[ntypes++] = (typepair_t){K_INT, K_HIDX, OP_NONE};
        }
    }
    return ntypes;
}

static int make_cases(cs_coll_t coll, int p, caselist_t *l) {
    int rc = CS_OK;
    typepair_t types[5];
    int ntypes = type_pairs(coll, types), roots[16], nroots = 0, counts[PATTERNS], ncounts = 0;
    int rooted = cs_coll_is_rooted(coll);
    int may_in_place = coll != CS_COLL_BCAST && cs_coll_has_data(coll);
    scase_t sc;
    l->n = 0;
    if (!rooted) {
        roots[nroots++] = 0;
    } else if (p <= 8) {
        for (int r = 0; r < p; r++) {
            roots[nroots++] = r;
        }
    } else {
        add_unique(roots, &nroots, 0);
        add_unique(roots, &nroots, 1);
        add_unique(roots, &nroots, p / 2);
        add_unique(roots, &nroots, p - 1);
    }
    if (coll == CS_COLL_ALLGATHERV || coll == CS_COLL_REDUCE_SCATTER || cs_coll_agrees(coll)) {
        for (int pat = 0; pat < PATTERNS; pat++) {
            counts[ncounts++] = pat;
        }
    } else if (!cs_coll_has_data(coll)) { /* barrier: one case, nothing to vary */
        counts[ncounts++] = 0;
        ntypes = 1;
    } else {
        add_unique(counts, &ncounts, 0);
        add_unique(counts, &ncounts, 1);
        add_unique(counts, &ncounts, 2);
        add_unique(counts, &ncounts, p - 1);
        add_unique(counts, &ncounts, p);
        add_unique(counts, &ncounts, p + 1);
        add_unique(counts, &ncounts, 2 * p + 1);
    }
    memset(&sc, 0, sizeof(sc));
    sc.coll = coll;
    sc.p = p;
    sc.calls = 1;
    for (int t = 0; t < ntypes; t++) {
        for (int ip = 0; ip <= may_in_place; ip++) {
            /* In-place allgather(v), alltoall(v) use the receive type only: mixed types add
             * nothing. */
            if (ip && types[t].sk != types[t].rk &&
                (coll == CS_COLL_ALLGATHER || coll == CS_COLL_ALLGATHERV ||
                 coll == CS_COLL_ALLTOALL || coll == CS_COLL_ALLTOALLV)) {
                continue;
            }
            for (int ri = 0; ri < nroots; ri++) {
                for (int ci = 0; ci < ncounts; ci++) {
                    sc.sk = &kinds[types[t].sk];
                    sc.rk = &kinds[types[t].rk];
                    sc.op = types[t].op;
                    sc.in_place = ip;
                    sc.root = roots[ri];
                    sc.count = counts[ci];
                    CS_CHECK(add_case(l, &sc));
                }
            }
        }
    }
out:
    return rc;
}

/* Consecutive calls on one communicator (cs_sim_run_seq): two and three calls whose counts go
 * small to large, large to small and both ways, of one layout or changing layout from call to
 * call, in place or not. Layouts index type_pairs(); SEQ_2P1 is the count 2p + 1. */
#define MAX_CALLS 3
#define SEQ_2P1   (-1)

typedef struct seqspec {
    int ncalls;
    int type[MAX_CALLS];
    int count[MAX_CALLS];
    int in_place[MAX_CALLS];
} seqspec_t;

static const seqspec_t sequences[] = {
    {2, {0, 0}, {1, SEQ_2P1}, {0, 0}},
    {2, {0, 0}, {300, 1}, {0, 1}},
    {3, {0, 0, 0}, {SEQ_2P1, 300, 1}, {1, 0, 0}},
    {3, {0, 0, 0}, {300, 1, SEQ_2P1}, {0, 0, 1}},
    {2, {1, 1}, {1, 300}, {0, 0}},
    {3, {1, 1, 1}, {300, SEQ_2P1, 1}, {1, 0, 0}},
    {3, {2, 2, 2}, {SEQ_2P1, 1, 300}, {0, 1, 0}},
    {3, {0, 2, 1}, {300, 1, SEQ_2P1}, {0, 0, 0}},
};
#define SEQUENCES ((int)(sizeof(sequences) / sizeof(sequences[0])))

/* Communicator sizes of the consecutive-call tests: every p up to 8 and two larger ones. */
static const int seq_nprocs_list[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16};
#define SEQ_NPROCS_COUNT ((int)(sizeof(seq_nprocs_list) / sizeof(seq_nprocs_list[0])))

/* The sequences of `sequences` for p ranks into l (each call a case; the first of a sequence
 * carries its length in `calls`). Rooted collectives alternate roots 0 and p - 1; allgatherv
 * takes the count modulo PATTERNS as its pattern. */
static int make_sequences(cs_coll_t coll, int p, caselist_t *l) {
    int rc = CS_OK;
    typepair_t types[5];
    scase_t sc;
    type_pairs(coll, types);
    l->n = 0;
    memset(&sc, 0, sizeof(sc));
    sc.coll = coll;
    sc.p = p;
    for (int i = 0; i < SEQUENCES; i++) {
        const seqspec_t *q = &sequences[i];
        for (int k = 0; k < q->ncalls; k++) {
            const typepair_t *t = &types[q->type[k]];
            int count = q->count[k] == SEQ_2P1 ? 2 * p + 1 : q->count[k];
            sc.sk = &kinds[t->sk];
            sc.rk = &kinds[t->rk];
            sc.op = t->op;
            sc.in_place = coll != CS_COLL_BCAST && cs_coll_has_data(coll) && q->in_place[k];
            sc.root = cs_coll_is_rooted(coll) && (i + k) % 2 == 1 ? p - 1 : 0;
            sc.count =
                coll == CS_COLL_ALLGATHERV || coll == CS_COLL_REDUCE_SCATTER || cs_coll_agrees(coll)
                    ? count % PATTERNS
                    : count;
            sc.calls = k == 0 ? q->ncalls : 0;
            CS_CHECK(add_case(l, &sc));
        }
    }
out:
    return rc;
}

/* ---- the registry -------------------------------------------------------------------------- */

/* Runs every case of every variant of `a` (cs_algo_variants for p processes, `node_size` per
 * node: 0 for one node of p) for every p of the list (or for `only_p`, any p >= 1); counts
 * (variant, p) results. A p for which the algorithm lists no variant (orthogonal grids at a prime
 * p), or that node_size would make one node, is left out. Algorithms with CS_REQ_NODES get the
 * emulated layout of nodes of node_size consecutive ranks (cs_nodes_t) in their state and one
 * shared window per node; for the others node_size must be 0. With `seq` the cases are the
 * consecutive-call sequences (make_sequences, seq_nprocs_list), each run as one sequence of
 * calls on the same nodes and windows. */
static int test_algo(const cs_algo_t *a, int only_p, int node_size, int seq, int *passed,
                     int *failed) {
    int rc = CS_OK;
    caselist_t list = {NULL, 0, 0};
    world_t w[MAX_CALLS];
    long cases = 0, skipped = 0;
    int bad = 0, nvariants = 0, mine = 0;
    int np = only_p > 0 ? 1 : seq ? SEQ_NPROCS_COUNT : NPROCS_COUNT;
    char why[WHY_BYTES], first[WHY_BYTES], name[WHY_BYTES], first_name[WHY_BYTES], vname[256];
    char nodes_of[32] = "";
    cs_variant_t *v = malloc(CS_MAX_VARIANTS * sizeof(*v));
    memset(w, 0, sizeof(w));
    CS_REQUIRE(v != NULL, CS_ERR_NOMEM);
    for (int pi = 0; pi < np; pi++) {
        int p = only_p > 0 ? only_p : seq ? seq_nprocs_list[pi] : nprocs_list[pi];
        int ppn = node_size > 0 && node_size < p ? node_size : p;
        cs_nodes_t nodes = {p, ppn, (p + ppn - 1) / ppn, NULL};
        int nv = 0, nseq = 0;
        if (node_size > 0 && ppn == p) {
            continue; /* one node: the node_size 0 pass */
        }
        CS_CHECK(cs_algo_variants(a, p, ppn, v, CS_MAX_VARIANTS, &nv));
        if (nv == 0) {
            continue;
        }
        CS_CHECK(seq ? make_sequences(a->coll, p, &list) : make_cases(a->coll, p, &list));
        for (int i = 0; i < list.n; i += list.v[i].calls) {
            nseq++;
        }
        for (int k = 0; k < MAX_CALLS; k++) {
            CS_CHECK(world_init(&w[k], p));
        }
        for (int k = 0; k < nv; k++) {
            int nfail = 0;
            if (!shard_mine()) {
                continue;
            }
            mine++;
            cs_variant_name(&v[k], vname, sizeof(vname));
            for (int i = 0; i < list.n; i += list.v[i].calls) {
                int st = run_calls(a, &v[k].params, &list.v[i], list.v[i].calls,
                                   (a->reqs & CS_REQ_NODES) ? &nodes : NULL, w, why, sizeof(why));
                CS_CHECK(st);
                cases++;
                if (st == CASE_SKIP) {
                    skipped++;
                } else if (st == CASE_FAIL) {
                    size_t len = 0;
                    for (int j = 0; j < list.v[i].calls && len < sizeof(name); j++) {
                        if (j > 0) {
                            len += (size_t)snprintf(name + len, sizeof(name) - len, " then ");
                        }
                        if (len < sizeof(name)) {
                            describe(&list.v[i + j], name + len, sizeof(name) - len);
                            len += strlen(name + len);
                        }
                    }
                    if (nfail++ == 0) {
                        memcpy(first, why, sizeof(first));
                        memcpy(first_name, name, sizeof(first_name));
                    }
                    if (verbose) {
                        printf("  fail %s %s: %s\n", vname, name, why);
                    }
                }
            }
            if (nfail > 0) {
                printf("FAIL %s p=%d ppn=%d%s: %d of %d %s failed; first: %s: %s\n", vname, p, ppn,
                       seq ? " consecutive calls" : "", nfail, nseq, seq ? "sequences" : "cases",
                       first_name, first);
                (*failed)++;
                bad++;
            } else {
                (*passed)++;
            }
            nvariants++;
        }
        for (int k = 0; k < MAX_CALLS; k++) {
            world_free(&w[k]);
        }
    }
    if (node_size > 0) {
        snprintf(nodes_of, sizeof(nodes_of), " on nodes of %d", node_size);
    }
    if (mine == 0) {
        goto out; /* every p of it is another shard's */
    }
    printf("%-4s %s%s%s: %d variant x p, %ld %s, %ld not applicable%s\n", bad > 0 ? "FAIL" : "ok",
           a->name, seq ? ", consecutive calls" : "", nodes_of, nvariants, cases,
           seq ? "sequences" : "cases", skipped, bad > 0 ? " (failures above)" : "");
out:
    for (int k = 0; k < MAX_CALLS; k++) {
        world_free(&w[k]);
    }
    free(list.v);
    free(v);
    return rc;
}

int test_registry(const char *only, int only_p, int *ran, int *passed, int *failed) {
    int rc = CS_OK;
    for (int i = 0; i < cs_registry_count; i++) {
        const cs_algo_t *a = cs_registry[i];
        /* The neighbourhood collectives need per-rank topologies: test_sim_neighbor.c runs
         * them on graphs, tests/mpi (test_neighbor.c) against MPI. */
        if (a->build == NULL || cs_coll_is_neighbor(a->coll) ||
            (only != NULL && strcmp(a->name, only) != 0)) {
            continue;
        }
        CS_CHECK(test_algo(a, only_p, 0, 0, passed, failed));
        for (int k = 0; (a->reqs & CS_REQ_NODES) && k < NODE_SIZES; k++) {
            CS_CHECK(test_algo(a, only_p, node_sizes[k], 0, passed, failed));
        }
        /* Consecutive calls for the algorithms that keep a window from call to call. */
        for (int k = -1; (a->reqs & CS_REQ_NODES) && k < NODE_SIZES; k++) {
            CS_CHECK(test_algo(a, only_p, k < 0 ? 0 : node_sizes[k], 1, passed, failed));
        }
        (*ran)++;
    }
out:
    return rc;
}

/* What the simulator's test suites share (sim_harness.c): the element layouts and reduction ops
 * of the data, one case of one collective (scase_t) with its buffers and serial reference
 * (world_t), the machinery that builds, runs and checks a case or a sequence of calls, and the
 * report of one self-test. sim_test.c describes the suites and runs them. */
#ifndef CS_SIM_HARNESS_H
#define CS_SIM_HARNESS_H

#include "registry.h"
#include "sim.h"

#include <mpi.h>
#include <stddef.h>

#define WHY_BYTES 768

/* An element layout: which type, and where the ints of one element sit. */
typedef struct kind {
    const char *name;
    MPI_Datatype type;
    int ipe; /* ints per element */
    MPI_Aint lb, extent;
    MPI_Aint disp[4]; /* byte offset of int k from the element's address */
} kind_t;

enum { K_INT, K_MAT, K_HIDX, K_SHIFT, K_COUNT };
extern kind_t kinds[K_COUNT];

enum { OP_NONE, OP_SUM, OP_MAT, OP_AFF };

/* One call of one collective, the same on every virtual rank. */
typedef struct scase {
    cs_coll_t coll;
    int p, root, in_place;
    const kind_t *sk, *rk; /* send and receive element layouts */
    int count;             /* elements of the coarser layout per block; allgatherv: pattern */
    int op;                /* OP_* */
    int salt;
    int calls; /* calls of the sequence this case starts (1: a lone call; 0: a later call) */
} scase_t;

/* A buffer with guard margins and the image its bytes must have at the end. */
typedef struct buf {
    unsigned char *mem, *want;
    size_t bytes;
    const kind_t *k;
} buf_t;

/* Everything a case needs for p ranks; reused across the cases of one (algorithm, p). */
typedef struct world {
    int p;
    cs_sched_t *sched;
    cs_call_t *call;
    buf_t *send, *recv;
    unsigned char **scratch;
    int **in; /* in[j]: the ints rank j contributes */
    int *nin;
    int *res; /* reduction reference */
    int *counts, *displs;
    int *agreed; /* gatherv, scatterv: cs_comm_agree's pairs (2p) and counts (p) */
    int *vc;     /* alltoallv: rank r's sendcounts, sdispls, recvcounts, rdispls at 4 p r */
    cs_sim_rank_t *ranks;
    unsigned char **window; /* [node]: the shared window of each emulated node, with guards */
    cs_state_t state;       /* what the schedules' s->state points at: the node layout */
} world_t;

/* Per-run options: -v prints every failing case and every self-test's report; -s K/N runs
 * shard K of N (shard_k, shard_n; 0 of 1 runs everything). */
extern int verbose;
extern int shard_k, shard_n;

/* Sharding: the units, each (algorithm pass, p, variant) of test_registry and each algorithm of
 * test_neighbor, are numbered in the order every shard visits them; unit u belongs to shard
 * hash(u) mod shard_n. Returns 1 when the next unit is this run's. The self-tests run in shard 0.
 */
int shard_mine(void);

/* Allgatherv patterns 0-4 place blocks at scattered displacements (layout_displs), patterns
 * 5-9 have the counts of 0-4 packed in rank order after a gap (layout_packed). */
#define PATTERNS 10

enum { CASE_PASS, CASE_FAIL, CASE_SKIP };

#define W_BYTES 64 /* window offsets [-64, 64): regions of 16 bytes below, results above */

/* Creates the derived datatypes of `kinds` and the reduction ops; free_types releases them. */
int setup_types(void) CS_MUST_CHECK;
void free_types(void);

/* Allocates the per-rank arrays of a world for p ranks; world_free releases everything. */
int world_init(world_t *w, int p) CS_MUST_CHECK;
void world_free(world_t *w);

/* One line naming case `sc` (p, root, count, layouts, op, in place) into out[0..cap). */
void describe(const scase_t *sc, char *out, size_t cap);

/* Runs the calls sc[0..ncalls) (the same p) of algorithm `a` with `params` (NULL: the defaults)
 * back to back on the node layout `nodes` (NULL for algorithms without CS_REQ_NODES; the nodes
 * keep one window for all the calls), call k in world w[k] (cs_sim_run_seq): CASE_PASS when the
 * run was clean and every call left every buffer as its reference, CASE_FAIL (why in `why`,
 * naming the call when there are several), CASE_SKIP when the algorithm declares that some call
 * does not apply. Negative on a failure of the test itself. */
int run_calls(const cs_algo_t *a, const cs_params_t *params, const scase_t *sc, int ncalls,
              const cs_nodes_t *nodes, world_t *w, char *why, size_t cap) CS_MUST_CHECK;

/* Runs case `sc` of algorithm `a` with `params` (NULL: the defaults) on the node layout `nodes`
 * (NULL for algorithms without CS_REQ_NODES): CASE_PASS, CASE_FAIL (why in `why`) or CASE_SKIP
 * when the algorithm declares it does not apply. Negative on a failure of the test itself. */
int run_case(const cs_algo_t *a, const cs_params_t *params, const scase_t *sc,
             const cs_nodes_t *nodes, world_t *w, char *why, size_t cap) CS_MUST_CHECK;

/* Counts one self-test in *passed or *failed and prints its line ("ok   self-test <what>" or
 * "FAIL self-test <what>: ...", with the report's message when there is one). */
void expect(const char *what, int ok, const cs_sim_report_t *rep, int *passed, int *failed);

/* Appends a barrier (a COLL without buffers) on `group`. */
int window_barrier(cs_sched_t *s, cs_group_t group) CS_MUST_CHECK;

/* 1 when every other counter of `rep` is zero (only the race checker spoke, if anything). */
int only_races(const cs_sim_report_t *rep);

/* The suites, in the order the runner calls them. Each counts its self-tests (test_registry:
 * its (variant, p) pairs) in *passed and *failed and returns CS_OK, or a negative status when
 * the test itself could not work. test_registry runs every registered schedule builder (or
 * only the one named `only`, for every p of its list or for `only_p` when > 0) and counts the
 * algorithms it ran in *ran. */
int selftest_sched(int *passed, int *failed) CS_MUST_CHECK;
int selftest_coll(int *passed, int *failed) CS_MUST_CHECK;
int selftest_window(int *passed, int *failed) CS_MUST_CHECK;
int selftest_calls(int *passed, int *failed) CS_MUST_CHECK;
int selftest_reference(int *passed, int *failed) CS_MUST_CHECK;
int selftest_dpml_inter(int *passed, int *failed) CS_MUST_CHECK;
int selftest_parts(int *passed, int *failed) CS_MUST_CHECK;
int test_registry(const char *only, int only_p, int *ran, int *passed, int *failed) CS_MUST_CHECK;
/* The neighbourhood collectives' schedule builders on topologies (test_sim_neighbor.c), with
 * the same arguments as test_registry. */
int test_neighbor(const char *only, int only_p, int *ran, int *passed, int *failed) CS_MUST_CHECK;

#endif

/* <coll>/ompi: Open MPI's own coll/tuned algorithms, forced on a communicator of their own.
 *
 * Reference: Open MPI 4.1, ompi/mca/coll/tuned (coll_tuned_<coll>_decision.c: the forced
 * algorithm variables, coll_tuned_<coll>_intra_do_this) and ompi/mca/coll/base (the
 * algorithms, each with its cost and limitations in its header comment). Open MPI ships a
 * catalogue per collective (allreduce: basic_linear, nonoverlapping, recursive_doubling, ring,
 * segmented_ring, rabenseifner; bcast: chain, pipeline, split_binary_tree, binary_tree,
 * binomial, knomial, scatter_allgather ...). With coll_tuned_use_dynamic_rules on at MPI_Init,
 * coll/tuned reads the control variables coll_tuned_<coll>_algorithm, _algorithm_segmentsize,
 * _algorithm_tree_fanout, _algorithm_chain_fanout (and bcast's _algorithm_knomial_radix), those
 * a collective has, when a communicator is created and runs
 * the algorithm they force on that communicator for the rest of its life.
 *
 * Parameters: `alg` (an item of the coll_tuned_<coll>_algorithm enumeration, by name),
 * `segsize_bytes` (0: no segmentation) and `fanout` (chain width or tree radix; 0: Open MPI's
 * default). variants() reads the enumeration through MPI_T (cs_mpit_enum), so the catalogue is
 * whatever this Open MPI has; only which names take a segment size or a fan-out is written
 * here (`shaped` below, from coll_tuned_<coll>_intra_do_this), and `two_proc` algorithms are
 * listed for 2 processes only (Open MPI refuses them on others). Segment sizes swept: 0, 8 KiB
 * and 64 KiB; fan-outs: 2 and 4.
 *
 * Setup (collective, once per variant and communicator): writes the variables through MPI_T,
 * duplicates the context's private communicator (Open MPI picks the forced algorithm for the
 * duplicate), writes the previous values back. build() appends one COLL operation on that
 * duplicate that runs the MPI library's blocking collective (sched.h: `blocking`; coll/tuned
 * implements only the blocking collectives, the nonblocking ones are libnbc's). Rounds, cost
 * and requirements: the algorithm's own; reduce and allreduce declare a commutative op because
 * most of Open MPI's reduction trees need one; they and alltoall take no type whose true lower
 * bound is not 0 (build() below). Open MPI may still switch algorithms inside
 * (ring allreduce becomes recursive doubling when count < p); a measurement is labelled with
 * what was forced.
 *
 * Without Open MPI's coll/tuned, with dynamic rules off, or with variables that cannot be
 * written, variants() lists none (cs_ompi_available says why) and setup() refuses: a variant
 * labelled `ring` never silently runs Open MPI's default.
 *
 * Step table: one round, one COLL on the variant's communicator (all ranks). */
#include "ompi.h"

#include "core/algo.h"
#include "core/comm.h"
#include "core/mpit.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The variables of one collective; all but VAR_ALG may be absent (barrier has none, only
 * bcast has a knomial radix): their index is then -1 and they are left alone. */
enum { VAR_ALG, VAR_SEGSIZE, VAR_TREE, VAR_CHAIN, VAR_RADIX, NVARS };

static const char *const suffix[NVARS] = {"algorithm", "algorithm_segmentsize",
                                          "algorithm_tree_fanout", "algorithm_chain_fanout",
                                          "algorithm_knomial_radix"};

/* Which algorithms take a segment size (`seg`) or a fan-out (`fan`), by Open MPI's names
 * (coll_tuned_<coll>_intra_do_this in Open MPI 4.1); the others get segsize_bytes=0, fanout=0.
 * A name missing here (a newer Open MPI's) is still swept, with the defaults. */
static const struct {
    cs_coll_t coll;
    const char *alg;
    int seg, fan;
} shaped[] = {
    {CS_COLL_BCAST, "chain", 1, 1},
    {CS_COLL_BCAST, "pipeline", 1, 0},
    {CS_COLL_BCAST, "split_binary_tree", 1, 0},
    {CS_COLL_BCAST, "binary_tree", 1, 0},
    {CS_COLL_BCAST, "binomial", 1, 0},
    {CS_COLL_BCAST, "knomial", 1, 1},
    {CS_COLL_REDUCE, "chain", 1, 1},
    {CS_COLL_REDUCE, "pipeline", 1, 0},
    {CS_COLL_REDUCE, "binary", 1, 0},
    {CS_COLL_REDUCE, "binomial", 1, 0},
    {CS_COLL_REDUCE, "in-order_binary", 1, 0},
    {CS_COLL_ALLREDUCE, "segmented_ring", 1, 0},
    {CS_COLL_GATHER, "linear_sync", 1, 0},
};

static const char *const segsizes[] = {"0", "8192", "65536"};
static const char *const fanouts[] = {"2", "4"};

static const cs_param_spec_t ompi_params[] = {
    {"alg",
     "Open MPI coll/tuned algorithm (coll_tuned_<coll>_algorithm item; 'first': the "
     "catalogue's first, what a variant named without parameters runs)",
     "first"},
    {"fanout", "chain width or tree radix (0: Open MPI's default)", "0"},
    {"segsize_bytes", "segment size in bytes (0: no segmentation)", "0"},
};
#define NPARAMS ((int)(sizeof(ompi_params) / sizeof(ompi_params[0])))

/* The MPI_T index of variable `var` of collective `coll` in *index. */
static int find_var(cs_coll_t coll, int var, int *index) {
    char name[96];
    snprintf(name, sizeof(name), "coll_tuned_%s_%s", cs_coll_name(coll), suffix[var]);
    return cs_mpit_find(name, index);
}

/* The body of cs_ompi_available(); MPI_T is initialised. */
static int available(char *why, size_t len) {
    int index = -1, on = 0, value = 0;
    if (cs_mpit_find("coll_tuned_use_dynamic_rules", &index) != CS_OK) {
        snprintf(why, len,
                 "the MPI library has no coll_tuned_use_dynamic_rules (not Open MPI's "
                 "coll/tuned)");
        return 0;
    }
    if (cs_mpit_read_int(index, &on) != CS_OK || !on) {
        snprintf(why, len,
                 "coll_tuned_use_dynamic_rules was off at MPI_Init (set "
                 "OMPI_MCA_coll_tuned_use_dynamic_rules=1)");
        return 0;
    }
    if (find_var(CS_COLL_ALLREDUCE, VAR_ALG, &index) != CS_OK ||
        cs_mpit_read_int(index, &value) != CS_OK || cs_mpit_write_int(index, value) != CS_OK) {
        snprintf(why, len, "coll_tuned_allreduce_algorithm cannot be written through MPI_T");
        return 0;
    }
    return 1;
}

/* cs_ompi_available's answer once found (-1: not yet): it cannot change after MPI_Init. */
static atomic_int available_once = -1;

/* Whether the environment turns coll_tuned_use_dynamic_rules on (OMPI_MCA_..., which mpirun's
 * --mca sets too), as Open MPI reads a boolean. Asked before MPI_T: starting MPI_T takes
 * some 200 ms in a process that has not (Open MPI 4.1 registers every component's variables),
 * which an application whose rules name a <coll>/ompi variant paid at its first eligible call
 * only to learn that the variant cannot run (issue 19: a stall of about 0.9 s at np 4
 * oversubscribed). Dynamic rules turned on only in an MCA parameter file are missed: the
 * variants then yield to the next candidate, never to a wrong result. */
static int env_dynamic_rules(void) {
    static const char *const on[] = {"1", "true", "yes", "enabled", "t", "y", "on"};
    const char *e = getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
    for (size_t i = 0; e != NULL && i < sizeof(on) / sizeof(on[0]); i++) {
        if (strcasecmp(e, on[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

int cs_ompi_available(char *why, size_t len) {
    char buf[160];
    int ok = atomic_load(&available_once);
    if (why == NULL) {
        if (ok >= 0) {
            return ok;
        }
        why = buf;
        len = sizeof(buf);
    }
    if (!env_dynamic_rules()) {
        snprintf(why, len,
                 "coll_tuned_use_dynamic_rules was off at MPI_Init (set "
                 "OMPI_MCA_coll_tuned_use_dynamic_rules=1)");
        ok = 0;
    } else if (cs_mpit_begin() != CS_OK) {
        snprintf(why, len, "the MPI library has no MPI tool interface");
        ok = 0;
    } else {
        ok = available(why, len);
        cs_mpit_end();
    }
    atomic_store(&available_once, ok);
    return ok;
}

static int takes(cs_coll_t coll, const char *alg, int fan) {
    for (size_t i = 0; i < sizeof(shaped) / sizeof(shaped[0]); i++) {
        if (shaped[i].coll == coll && strcmp(shaped[i].alg, alg) == 0) {
            return fan ? shaped[i].fan : shaped[i].seg;
        }
    }
    return 0;
}

/* Appends alg with every segment size and fan-out it takes to out[*n..cap). */
static int add_alg(cs_coll_t coll, const char *alg, cs_params_t *out, int cap, int *n) {
    int rc = CS_OK;
    int nseg = takes(coll, alg, 0) ? (int)(sizeof(segsizes) / sizeof(segsizes[0])) : 1;
    int nfan = takes(coll, alg, 1) ? (int)(sizeof(fanouts) / sizeof(fanouts[0])) : 1;
    for (int s = 0; s < nseg; s++) {
        for (int f = 0; f < nfan; f++) {
            CS_REQUIRE(*n < cap, CS_ERR_NOMEM);
            cs_params_defaults(ompi_params, NPARAMS, &out[*n]);
            CS_CHECK(cs_params_set(&out[*n], "alg", alg));
            if (nseg > 1) {
                CS_CHECK(cs_params_set(&out[*n], "segsize_bytes", segsizes[s]));
            }
            if (nfan > 1) {
                CS_CHECK(cs_params_set(&out[*n], "fanout", fanouts[f]));
            }
            (*n)++;
        }
    }
out:
    return rc;
}

/* Every item of coll_tuned_<coll>_algorithm but `ignore` (0: Open MPI decides), with the
 * shapes each takes; none when the family cannot run here. */
static int variants_of(cs_coll_t coll, int nprocs, cs_params_t *out, int cap, int *n) {
    int rc = CS_OK;
    cs_mpit_item_t items[32];
    int nitems = 0, index = -1, began = 0;
    *n = 0;
    if (!cs_ompi_available(NULL, 0) || cs_mpit_begin() != CS_OK) {
        goto out;
    }
    began = 1;
    if (find_var(coll, VAR_ALG, &index) != CS_OK ||
        cs_mpit_enum(index, items, (int)(sizeof(items) / sizeof(items[0])), &nitems) != CS_OK) {
        goto out;
    }
    for (int i = 0; i < nitems; i++) {
        if (items[i].value == 0 || (strstr(items[i].name, "two_proc") != NULL && nprocs != 2)) {
            continue;
        }
        CS_CHECK(add_alg(coll, items[i].name, out, cap, n));
    }
out:
    if (began) {
        cs_mpit_end();
    }
    return rc;
}

/* Writes value[v] to variable v of a collective for v < NVARS (index: their MPI_T indices). */
static int write_vars(const int *index, const int *value) {
    int rc = CS_OK;
    for (int v = 0; v < NVARS; v++) {
        if (index[v] >= 0) {
            CS_CHECK(cs_mpit_write_int(index[v], value[v]));
        }
    }
out:
    return rc;
}

/* The forced values of variant `params`: algorithm number, segment size, fan-outs
 * (0: left at what they are, Open MPI's defaults). */
static int forced_values(const cs_params_t *params, const int *index, int *value) {
    int rc = CS_OK;
    cs_mpit_item_t items[32];
    int nitems = 0, fan = 0;
    const char *alg = cs_params_get(params, "alg");
    CS_REQUIRE(alg != NULL, CS_ERR_NOT_APPLICABLE);
    CS_CHECK(cs_params_get_int(params, "segsize_bytes", &value[VAR_SEGSIZE]));
    CS_CHECK(cs_params_get_int(params, "fanout", &fan));
    CS_REQUIRE(value[VAR_SEGSIZE] >= 0 && fan >= 0, CS_ERR_NOT_APPLICABLE);
    CS_CHECK(cs_mpit_enum(index[VAR_ALG], items, (int)(sizeof(items) / sizeof(items[0])), &nitems));
    value[VAR_ALG] = 0;
    for (int i = 0; i < nitems; i++) {
        if (strcmp(items[i].name, alg) == 0 ||
            (strcmp(alg, "first") == 0 && items[i].value > 0 &&
             (value[VAR_ALG] == 0 || items[i].value < value[VAR_ALG]))) {
            value[VAR_ALG] = items[i].value;
        }
    }
    CS_REQUIRE(value[VAR_ALG] > 0, CS_ERR_NOT_APPLICABLE); /* not in this Open MPI */
    /* a segment size this collective cannot take */
    CS_REQUIRE(index[VAR_SEGSIZE] >= 0 || value[VAR_SEGSIZE] == 0, CS_ERR_NOT_APPLICABLE);
    for (int v = VAR_TREE; v < NVARS; v++) {
        if (fan > 0) {
            value[v] = fan;
        } else if (index[v] >= 0) {
            CS_CHECK(cs_mpit_read_int(index[v], &value[v]));
        } else {
            value[v] = 0;
        }
    }
out:
    return rc;
}

/* Decides locally (the same on every rank) whether the variant can be forced, then
 * duplicates the private communicator with its variables set and restores them. */
static int setup_of(cs_coll_t coll, cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {
    int rc = CS_OK, began = 0, written = 0;
    int index[NVARS], value[NVARS], old[NVARS];
    CS_REQUIRE(cs_ompi_available(NULL, 0), CS_ERR_NOT_APPLICABLE);
    CS_REQUIRE(cs_mpit_begin() == CS_OK, CS_ERR_NOT_APPLICABLE);
    began = 1;
    CS_CHECK(find_var(coll, VAR_ALG, &index[VAR_ALG]));
    for (int v = VAR_SEGSIZE; v < NVARS; v++) {
        if (find_var(coll, v, &index[v]) != CS_OK) {
            index[v] = -1;
        }
    }
    CS_CHECK(forced_values(params, index, value));
    for (int v = 0; v < NVARS; v++) {
        old[v] = 0;
        if (index[v] >= 0) {
            CS_CHECK(cs_mpit_read_int(index[v], &old[v]));
        }
    }
    written = 1;
    CS_CHECK(write_vars(index, value));
    CS_MPI_CHECK(PMPI_Comm_dup(ctx->comm, &state->comms[0]));
    state->ncomms = 1;
out:
    if (written && write_vars(index, old) != CS_OK && rc == CS_OK) {
        rc = CS_ERR_INTERNAL; /* the next communicator would inherit the forced algorithm */
    }
    if (began) {
        cs_mpit_end();
    }
    return rc;
}

static void teardown(cs_state_t *state) {
    if (state->comms[0] != MPI_COMM_NULL) {
        PMPI_Comm_free(&state->comms[0]);
    }
}

/* One blocking collective on the variant's communicator (comms[0]), with the call's own
 * arguments; MPI_IN_PLACE where the caller passed it. reduce, allreduce and alltoall not for
 * types whose true lower bound is not 0 (declared: CS_REQ_TRUE_LB0): Open MPI 4.1's ring allreduce
 * writes past its temporary buffers then and its modified_bruck alltoall gets the blocks wrong or
 * aborts (valgrind and tests/mpi's derived type with lower bound 4). The ranks of a call refuse
 * alike when they pass types of one layout, as MPI requires of reductions; a call whose ranks pass
 * types of different true lower bounds must not be forced to an ompi variant (docs/export.md). */
static int build(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    cs_coll_op_t op;
    (void)params;
    if ((c->coll == CS_COLL_REDUCE || c->coll == CS_COLL_ALLREDUCE ||
         c->coll == CS_COLL_ALLTOALL) &&
        (c->send.true_lb != 0 || c->recv.true_lb != 0)) {
        return CS_ERR_NOT_APPLICABLE;
    }
    /* Nor elements of no data (MPI_Type_contiguous(0, ...) with a count above 0): Open MPI 4.1's
     * segmented algorithms divide by the type's size (split_bintree bcast: SIGFPE). Every rank
     * of a call has types of one signature, so all refuse alike. */
    if ((c->sendcount > 0 && c->send.size == 0) || (c->recvcount > 0 && c->recv.size == 0)) {
        return CS_ERR_NOT_APPLICABLE;
    }
    memset(&op, 0, sizeof(op));
    op.coll = c->coll;
    op.group.base = 0;
    op.group.stride = 1;
    op.group.size = c->nprocs;
    op.comm = 0;
    op.root = c->root;
    op.in_place = c->in_place;
    op.blocking = 1;
    op.send = cs_ref(CS_SLOT_SEND, 0);
    op.sendcount = c->sendcount;
    op.sendtype = c->send.type;
    op.recv = cs_ref(CS_SLOT_RECV, 0);
    op.recvcount = c->recvcount;
    op.recvtype = c->recv.type;
    return cs_sched_coll(s, &op, NULL, NULL);
}

#define OMPI_ALGO(coll_name, ID, requirements)                                                     \
    static int variants_##coll_name(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {      \
        (void)ppn;                                                                                 \
        return variants_of(CS_COLL_##ID, nprocs, out, cap, n);                                     \
    }                                                                                              \
    static int setup_##coll_name(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {   \
        return setup_of(CS_COLL_##ID, ctx, params, state);                                         \
    }                                                                                              \
    const cs_algo_t cs_algo_##coll_name##_ompi = {                                                 \
        .name = #coll_name "/ompi",                                                                \
        .coll = CS_COLL_##ID,                                                                      \
        .desc = "Open MPI's coll/tuned algorithm `alg`, forced on a communicator of its own",      \
        .reqs = requirements,                                                                      \
        .params = ompi_params,                                                                     \
        .nparams = NPARAMS,                                                                        \
        .variants = variants_##coll_name,                                                          \
        .build = build,                                                                            \
        .setup = setup_##coll_name,                                                                \
        .teardown = teardown,                                                                      \
        .blocking_colls = 1,                                                                       \
    };

OMPI_ALGO(bcast, BCAST, 0)
OMPI_ALGO(gather, GATHER, 0)
OMPI_ALGO(scatter, SCATTER, 0)
OMPI_ALGO(reduce, REDUCE, CS_REQ_COMMUTATIVE | CS_REQ_TRUE_LB0)
OMPI_ALGO(allreduce, ALLREDUCE, CS_REQ_COMMUTATIVE | CS_REQ_TRUE_LB0)
OMPI_ALGO(allgather, ALLGATHER, 0)
OMPI_ALGO(alltoall, ALLTOALL, CS_REQ_TRUE_LB0)
OMPI_ALGO(barrier, BARRIER, 0)

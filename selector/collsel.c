/* libcollsel: rule loading, per-communicator set-up and per-call dispatch (see select.h for
 * the precedence, collsel.h for the public contract). */
#include "collsel.h"

#include "core/log.h"
#include "core/machine.h"
#include "db.h"
#include "registry.h"
#include "select.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- process-wide state -------------------------------------------------------------------- */

enum { TABLE_NONE, TABLE_OK, TABLE_UNUSABLE };

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cs_sel_env_t env;
static char init_db[4096];
static int init_db_set;
/* What every call reads, in one cache line. */
static struct {
    atomic_int active;       /* 0: disabled or finalized: every call native */
    atomic_ulong generation; /* bumped whenever a context is freed; starts at 1 (see memo) */
    int log_calls;           /* COLLSEL_VERBOSE=3: every call's decision is logged */
} hot __attribute__((aligned(64))) = {1, 1, 0};
static atomic_uint rules_version;    /* bumped by collsel_finalize */
static int table_state = TABLE_NONE; /* guarded by lock */
static cs_sel_rule_t *table;         /* guarded by lock */
static int ntable;
static char table_why[16384]; /* why the table is empty or unusable */
static atomic_int forced_warned[CS_COLL_COUNT];

/* This thread's last communicator, so that a steady stream of calls skips the attribute lookup.
 * Valid while `gen` equals hot.generation. Initial-exec TLS: no __tls_get_addr call per access
 * (the library is linked or preloaded; a dlopen takes it from the static TLS reserve). */
static _Thread_local __attribute__((tls_model("initial-exec"))) struct {
    MPI_Comm comm;
    cs_comm_t *ctx;
    unsigned long gen;
} last = {MPI_COMM_NULL, NULL, 0};

/* Per collective, this thread's last call that went native by the rules, one cache line each:
 * repeating it goes to PMPI after comparing it with this copy (native_again()), with no type
 * query, rule lookup or selector state touched. Valid while `gen` equals hot.generation, which
 * never is 0, the value of an entry never written. */
typedef struct memo {
    MPI_Comm comm;
    unsigned long gen;
    cs_sel_key_t key;
} memo_t;
static _Thread_local __attribute__((tls_model("initial-exec"), aligned(64)))
memo_t memo[CS_COLL_COUNT];

static int world_rank(void) {
    int init = 0, fin = 0, rank = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (init && !fin) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    return rank;
}

static void parse_env(void) {
    cs_sel_env_parse(&env, world_rank() == 0);
    hot.log_calls = env.verbose >= CS_LOG_DEBUG;
    if (env.disable) {
        atomic_store(&hot.active, 0);
    }
}

int collsel_init(const char *db_path) {
    pthread_once(&env_once, parse_env);
    pthread_mutex_lock(&lock);
    if (!init_db_set) {
        init_db_set = 1;
        if (db_path != NULL) {
            snprintf(init_db, sizeof(init_db), "%s", db_path);
        } else {
            snprintf(init_db, sizeof(init_db), "%s", env.db);
        }
    }
    atomic_store(&hot.active, !env.disable);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

int collsel_finalize(void) {
    pthread_mutex_lock(&lock);
    atomic_store(&hot.active, 0);
    free(table);
    table = NULL;
    ntable = 0;
    table_state = TABLE_NONE;
    init_db_set = 0;
    /* Communicators set up before take the new rules at their next call (enter()). */
    atomic_fetch_add(&rules_version, 1);
    atomic_fetch_add(&hot.generation, 1);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* --- loading the rules (rank 0 of the first communicator) ---------------------------------- */

typedef struct loader {
    cs_sel_rule_t *v;
    int n, cap;
} loader_t;

static int add_rule(const cs_rule_t *r, void *ctx) {
    loader_t *l = ctx;
    cs_sel_rule_t *x;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        cs_sel_rule_t *v = realloc(l->v, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            return CS_ERR_NOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    x = &l->v[l->n++];
    memset(x, 0, sizeof(*x));
    x->coll = (int32_t)r->coll;
    x->comm_size = r->comm_size;
    x->ppn = r->ppn;
    x->rank = r->rank;
    x->lo_bytes = r->lo_bytes;
    x->hi_bytes = r->hi_bytes;
    x->median_us = r->median_us;
    x->native_us = r->native_us;
    snprintf(x->algorithm, sizeof(x->algorithm), "%s", r->algorithm);
    if (snprintf(x->params, sizeof(x->params), "%s", r->params) >= (int)sizeof(x->params)) {
        l->n--; /* params longer than a packed rule holds: skip rather than truncate */
    }
    return CS_OK;
}

/* Opens the database and reads this machine's rules into table (lock held). Sets table_state
 * and table_why; prints the one warning when a database was named but cannot be used. */
static void load_table(void) {
    const char *path = init_db_set ? init_db : env.db;
    char why[4608] = "";
    cs_db_t *db = NULL;
    cs_machine_t m;
    cs_db_machine_t want;
    int64_t machine_id = 0;
    loader_t l = {NULL, 0, 0};
    int rc;
    table_state = TABLE_UNUSABLE;
    if (path[0] == '\0') {
        snprintf(table_why, sizeof(table_why), "no tuning database (set COLLSEL_DB)");
        cs_log(CS_LOG_WARN, "%s: every collective is native", table_why);
        return;
    }
    rc = cs_db_open(path, CS_DB_READ_ONLY, &db, why, sizeof(why));
    if (rc != CS_OK) {
        snprintf(table_why, sizeof(table_why), "%s", why[0] ? why : cs_status_str(rc));
        goto warn;
    }
    cs_machine_fingerprint(&m);
    want.host = NULL; /* other nodes of a cluster have other names but the same hardware */
    want.topology = m.topology;
    want.mpi_library = m.mpi_library;
    rc = cs_db_find_machine(db, &want, &machine_id);
    if (rc == CS_ERR_NOT_FOUND) {
        snprintf(table_why, sizeof(table_why),
                 "%s has no rules for this machine (%s; %s): tune it here with collsel-bench", path,
                 m.topology, m.mpi_library);
        goto warn;
    }
    if (rc == CS_OK) {
        rc = cs_db_foreach_rule(db, machine_id, add_rule, &l);
    }
    if (rc != CS_OK) {
        snprintf(table_why, sizeof(table_why), "%s: cannot read rules: %s", path,
                 rc == CS_ERR_DB ? cs_db_errmsg(db) : cs_status_str(rc));
        goto warn;
    }
    cs_db_close(db);
    table = l.v;
    ntable = l.n;
    table_state = TABLE_OK;
    snprintf(table_why, sizeof(table_why), "%d rules from %s", ntable, path);
    cs_log(CS_LOG_WARN, "%s (machine %s)", table_why, m.topology);
    return;
warn:
    cs_db_close(db);
    free(l.v);
    /* The database was named and cannot be used: said once, whatever COLLSEL_VERBOSE is. */
    if (cs_log_world_root()) { /* once per job, even when several groups load the rules */
        fprintf(stderr, "collsel: warning: %s; every collective is native\n", table_why);
    }
}

/* Makes sure every rank of `comm` has the rule table (collective). */
static int share_table(MPI_Comm comm, int rank) {
    int rc = CS_OK;
    int need, state = 0, n = 0;
    pthread_mutex_lock(&lock);
    need = table_state == TABLE_NONE;
    pthread_mutex_unlock(&lock);
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_INT, MPI_MAX, comm));
    if (!need) {
        return CS_OK;
    }
    pthread_mutex_lock(&lock);
    if (rank == 0) {
        if (table_state == TABLE_NONE) {
            load_table();
        }
        state = table_state;
        n = ntable;
    }
    pthread_mutex_unlock(&lock);
    {
        int head[2] = {state, n};
        CS_MPI_CHECK(PMPI_Bcast(head, 2, MPI_INT, 0, comm));
        state = head[0];
        n = head[1];
    }
    if (state == TABLE_OK && n > 0) {
        cs_sel_rule_t *copy = rank == 0 ? table : malloc((size_t)n * sizeof(*copy));
        int ok = copy != NULL;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
        if (!ok) {
            if (rank != 0) {
                free(copy);
            }
            state = TABLE_UNUSABLE;
            n = 0;
        } else {
            CS_MPI_CHECK(PMPI_Bcast(copy, (int)((size_t)n * sizeof(*copy)), MPI_BYTE, 0, comm));
            if (rank != 0) {
                pthread_mutex_lock(&lock);
                if (table_state == TABLE_NONE) {
                    table = copy;
                    ntable = n;
                    table_state = TABLE_OK;
                    snprintf(table_why, sizeof(table_why), "%d rules (from rank 0)", n);
                } else {
                    free(copy);
                }
                pthread_mutex_unlock(&lock);
            }
        }
    }
    if (rank != 0 && (state != TABLE_OK || n == 0)) {
        pthread_mutex_lock(&lock);
        if (table_state == TABLE_NONE) {
            table_state = state;
            snprintf(table_why, sizeof(table_why), "%s",
                     state == TABLE_OK ? "0 rules (from rank 0)"
                                       : "the tuning database is not usable");
        }
        pthread_mutex_unlock(&lock);
    }
out:
    return rc;
}

/* --- per-communicator set-up ---------------------------------------------------------------- */

static void sel_free(void *p) {
    cs_sel_comm_t *sc = p;
    atomic_fetch_add(&hot.generation, 1);
    if (sc != NULL) {
        cs_sel_comm_clear(sc);
        free(sc);
    }
}

static void describe_comm(const cs_sel_comm_t *sc, int nprocs) {
    char line[2048];
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        size_t used = 0;
        if (env.force[c].algo != NULL) {
            char name[256];
            cs_variant_name(&env.force[c], name, sizeof(name));
            cs_log(CS_LOG_INFO, "%d processes: %s: forced %s (COLLSEL_FORCE)", nprocs,
                   cs_coll_name((cs_coll_t)c), name);
            continue;
        }
        if (sc->niv[c] == 0) {
            cs_log(CS_LOG_INFO, "%d processes: %s: no rules, native", nprocs,
                   cs_coll_name((cs_coll_t)c));
            continue;
        }
        line[0] = '\0';
        for (int i = 0; i < sc->niv[c] && used < sizeof(line); i++) {
            const cs_sel_interval_t *iv = &sc->iv[c][i];
            char name[256], hi[32] = "inf";
            cs_variant_name(&iv->cand[0], name, sizeof(name));
            if (iv->hi != UINT64_MAX) {
                snprintf(hi, sizeof(hi), "%llu", (unsigned long long)iv->hi);
            }
            used += (size_t)snprintf(line + used, sizeof(line) - used, " [%llu, %s) %s",
                                     (unsigned long long)iv->lo, hi, name);
        }
        cs_log(CS_LOG_INFO, "%d processes (%d per node): %s: tuned at %d processes, %d per node:%s",
               nprocs, sc->ppn, cs_coll_name((cs_coll_t)c), sc->tuned_size[c], sc->tuned_ppn[c],
               line);
    }
}

static int any_forced(void) {
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        if (env.force[c].algo != NULL) {
            return 1;
        }
    }
    return 0;
}

/* Collective over ctx->comm: shares the rules and prunes them for this communicator. Every
 * rank ends with the same verdict (native only when any rank failed). */
static int setup(cs_comm_t *ctx, MPI_Comm user) {
    int rc = CS_OK;
    int inter = 0, ppn = 1, ok;
    cs_sel_comm_t *sc = calloc(1, sizeof(*sc));
    if (sc != NULL) {
        sc->rules_version = atomic_load(&rules_version);
    }
    CS_MPI_CHECK(PMPI_Comm_test_inter(user, &inter));
    if (inter) { /* not handled: native, and nothing collective to agree on */
        CS_REQUIRE(sc != NULL, CS_ERR_NOMEM);
        sc->native_only = 1;
        goto done;
    }
    CS_CHECK(share_table(ctx->comm, ctx->rank));
    CS_CHECK(cs_machine_node_size(ctx->comm, &ppn));
    ok = sc != NULL;
    if (ok) {
        pthread_mutex_lock(&lock);
        /* Without usable rules only COLLSEL_FORCE can make a call go anywhere but native. */
        sc->native_only = table_state != TABLE_OK && !any_forced();
        ok = table_state != TABLE_OK || cs_sel_prune(table, ntable, ctx->nprocs, ppn, sc) == CS_OK;
        pthread_mutex_unlock(&lock);
    }
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx->comm));
    CS_REQUIRE(ok, CS_ERR_NOMEM);
    if (ctx->rank == 0 && cs_log_level() >= CS_LOG_INFO && !sc->native_only) {
        describe_comm(sc, ctx->nprocs);
    }
done:
    ctx->selector = sc;
    ctx->selector_free = sel_free;
    sc = NULL;
out:
    if (sc != NULL) {
        cs_sel_comm_clear(sc);
        free(sc);
    }
    return rc;
}

/* The context of `comm` with its selector state, or 0 when the call goes native. */
static int enter(MPI_Comm comm, cs_comm_t **ctx_out, cs_sel_comm_t **sc_out) {
    cs_comm_t *ctx;
    if (!atomic_load_explicit(&hot.active, memory_order_relaxed)) {
        return 0;
    }
    if (last.comm == comm &&
        last.gen == atomic_load_explicit(&hot.generation, memory_order_relaxed)) {
        ctx = last.ctx;
    } else {
        pthread_once(&env_once, parse_env);
        if (!atomic_load(&hot.active) || comm == MPI_COMM_NULL ||
            cs_comm_get(comm, &ctx) != CS_OK) {
            return 0;
        }
        if (ctx->selector != NULL &&
            ((cs_sel_comm_t *)ctx->selector)->rules_version != atomic_load(&rules_version)) {
            /* collsel_finalize ran since: set up again (collective, like the first time) */
            ctx->selector_free(ctx->selector);
            ctx->selector = NULL;
            ctx->selector_free = NULL;
        }
        if (ctx->selector == NULL && setup(ctx, comm) != CS_OK) {
            return 0;
        }
        last.comm = comm;
        last.ctx = ctx;
        last.gen = atomic_load(&hot.generation);
    }
    *ctx_out = ctx;
    *sc_out = ctx->selector;
    return !(*sc_out)->native_only;
}

/* --- dispatch ------------------------------------------------------------------------------- */

static int mpi_status(int rc) {
    return rc == CS_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* --- the call cache (select.h) ------------------------------------------------------------ */

static inline int same_key(const cs_sel_key_t *a, const cs_sel_key_t *b) {
    return a->coll == b->coll && a->sendcount == b->sendcount && a->recvcount == b->recvcount &&
           a->root == b->root && a->sendtype == b->sendtype && a->recvtype == b->recvtype &&
           a->op == b->op && a->send_in_place == b->send_in_place &&
           a->recv_in_place == b->recv_in_place;
}

static cs_sel_key_t make_key(cs_coll_t coll, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Op op, int root) {
    cs_sel_key_t k;
    k.coll = (int)coll;
    k.sendcount = sendcount;
    k.recvcount = recvcount;
    k.root = root;
    k.sendtype = sendtype;
    k.recvtype = recvtype;
    k.op = op;
    k.send_in_place = sendbuf == MPI_IN_PLACE;
    k.recv_in_place = recvbuf == MPI_IN_PLACE;
    return k;
}

static int predefined_type(MPI_Datatype t) {
    int ni, na, nt, combiner;
    return t == MPI_DATATYPE_NULL ||
           (PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) == MPI_SUCCESS &&
            combiner == MPI_COMBINER_NAMED);
}

static int predefined_op(MPI_Op op) {
    static const MPI_Op ops[] = {MPI_OP_NULL, MPI_MAX,    MPI_MIN,    MPI_SUM,    MPI_PROD,
                                 MPI_LAND,    MPI_BAND,   MPI_LOR,    MPI_BOR,    MPI_LXOR,
                                 MPI_BXOR,    MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (ops[i] == op) {
            return 1;
        }
    }
    return 0;
}

/* Where a normalised buffer `b` comes from: the other raw buffer when the caller passed
 * MPI_IN_PLACE on this side, nowhere when normalisation dropped it, else this raw buffer. */
static void origin(const void *b, int in_place, const void *own_raw, int own_from,
                   const void *other_raw, int other_from, int *from, ptrdiff_t *off) {
    if (in_place) {
        *from = other_from;
        *off = (const char *)b - (const char *)other_raw;
    } else if (b == NULL) {
        *from = CS_SEL_FROM_NONE;
        *off = 0;
    } else {
        *from = own_from;
        *off = (const char *)b - (const char *)own_raw;
    }
}

/* Remembers that `key` on this communicator runs `entry`, after a successful run. */
static void remember(cs_sel_comm_t *sc, const cs_sel_key_t *key, cs_comm_sched_t *entry,
                     const cs_call_t *call, const void *raw_send, const void *raw_recv) {
    cs_sel_hit_t *h;
    if (key->coll == CS_COLL_ALLGATHERV || !predefined_type(key->sendtype) ||
        !predefined_type(key->recvtype) || !predefined_op(key->op)) {
        return;
    }
    h = &sc->hits[sc->next_hit];
    sc->next_hit = (sc->next_hit + 1) % CS_SEL_HITS;
    if (sc->nhits < CS_SEL_HITS) {
        sc->nhits++;
    }
    h->valid = 1;
    h->key = *key;
    h->entry = entry;
    h->version = entry->version;
    origin(call->sendbuf, key->send_in_place, raw_send, CS_SEL_FROM_SEND, raw_recv,
           CS_SEL_FROM_RECV, &h->send_from, &h->send_off);
    origin(call->recvbuf, key->recv_in_place, raw_recv, CS_SEL_FROM_RECV, raw_send,
           CS_SEL_FROM_SEND, &h->recv_from, &h->recv_off);
}

static void *resolve(int from, ptrdiff_t off, const void *raw_send, const void *raw_recv) {
    if (from == CS_SEL_FROM_NONE) {
        return NULL;
    }
    return (char *)(uintptr_t)(from == CS_SEL_FROM_SEND ? raw_send : raw_recv) + off;
}

/* Runs a cached call; returns -1 when there is none for `key`. */
static int run_hit(cs_comm_t *ctx, cs_sel_comm_t *sc, const cs_sel_key_t *key, const void *raw_send,
                   const void *raw_recv) {
    for (int i = 0; i < sc->nhits; i++) {
        const cs_sel_hit_t *h = &sc->hits[i];
        if (h->valid && same_key(&h->key, key) && h->entry->version == h->version) {
            return mpi_status(cs_algo_exec(ctx, &h->entry->sched,
                                           resolve(h->send_from, h->send_off, raw_send, raw_recv),
                                           resolve(h->recv_from, h->recv_off, raw_send, raw_recv)));
        }
    }
    return -1;
}

/* Runs variant `v` for `call`; a schedule that ran is remembered for calls with the same key. */
static int run_variant(cs_comm_t *ctx, cs_sel_comm_t *sc, const cs_variant_t *v,
                       const cs_call_t *call, const cs_sel_key_t *key, const void *raw_send,
                       const void *raw_recv) {
    int rc = CS_OK;
    cs_comm_sched_t *entry = NULL;
    CS_CHECK(cs_algo_applicable(v->algo, call));
    if (cs_algo_is_native(v->algo)) {
        CS_CHECK(v->algo->run(call));
        goto out;
    }
    CS_CHECK(cs_algo_prepare(v->algo, &v->params, call, ctx, &entry));
    CS_CHECK(cs_algo_exec(ctx, &entry->sched, call->sendbuf, call->recvbuf));
    remember(sc, key, entry, call, raw_send, raw_recv);
out:
    if (rc != CS_ERR_NOT_APPLICABLE && env.verbose >= CS_LOG_DEBUG) {
        char name[256];
        cs_variant_name(v, name, sizeof(name));
        cs_log(CS_LOG_DEBUG, "%s %zu bytes: %s%s", cs_coll_name(call->coll), call->bytes, name,
               v == &env.force[call->coll] ? " (forced)" : "");
    }
    return rc;
}

/* Runs the call with the forced variant, or the first ranked candidate that applies. */
static int dispatch(cs_comm_t *ctx, cs_sel_comm_t *sc, const cs_sel_interval_t *iv,
                    const cs_call_t *call, const cs_sel_key_t *key, const void *raw_send,
                    const void *raw_recv) {
    const cs_variant_t *forced = &env.force[call->coll];
    cs_variant_t native;
    int rc;
    if (forced->algo != NULL) {
        rc = run_variant(ctx, sc, forced, call, key, raw_send, raw_recv);
        if (rc != CS_ERR_NOT_APPLICABLE) {
            return mpi_status(rc);
        }
        if (env.fallback != CS_FALLBACK_SILENT && call->rank == 0 &&
            atomic_exchange(&forced_warned[call->coll], 1) == 0) {
            char name[256];
            cs_variant_name(forced, name, sizeof(name));
            fprintf(stderr, "collsel: %s: forced %s cannot run a %s of %zu bytes%s\n",
                    env.fallback == CS_FALLBACK_ERROR ? "error" : "warning", name,
                    cs_coll_name(call->coll), call->bytes,
                    env.fallback == CS_FALLBACK_ERROR ? " (COLLSEL_FALLBACK=error)" : "; native");
        }
        if (env.fallback == CS_FALLBACK_ERROR) {
            /* An MPI error like any other: the communicator's error handler decides (the
             * default, MPI_ERRORS_ARE_FATAL, ends the job; MPI_ERRORS_RETURN returns it). */
            PMPI_Comm_call_errhandler(call->comm, MPI_ERR_OTHER);
            return MPI_ERR_OTHER;
        }
    }
    for (int i = 0; forced->algo == NULL && iv != NULL && i < iv->ncand; i++) {
        rc = run_variant(ctx, sc, &iv->cand[i], call, key, raw_send, raw_recv);
        if (rc != CS_ERR_NOT_APPLICABLE) {
            return mpi_status(rc);
        }
    }
    native.algo = cs_registry_native(call->coll);
    cs_params_defaults(NULL, 0, &native.params);
    return mpi_status(run_variant(ctx, sc, &native, call, key, raw_send, raw_recv));
}

/* The interval for the call, or NULL; *go_native when the first choice is native anyway (the
 * fast path: no call normalisation). */
static const cs_sel_interval_t *choose(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes,
                                       int *go_native) {
    const cs_sel_interval_t *iv;
    if (env.force[coll].algo != NULL) {
        *go_native = 0;
        return NULL;
    }
    iv = cs_sel_lookup(sc, coll, bytes);
    *go_native = iv == NULL || cs_algo_is_native(iv->cand[0].algo);
    return iv;
}

/* COLLSEL_VERBOSE=3: the call goes native by the rules. */
static void log_native(cs_coll_t coll, uint64_t bytes) {
    cs_log(CS_LOG_DEBUG, "%s %llu bytes: %s/native", cs_coll_name(coll), (unsigned long long)bytes,
           cs_coll_name(coll));
}

/* Normalises a filled call for this communicator; nonzero when it cannot be (then native). */
static int finish(cs_call_t *call, const cs_comm_t *ctx, MPI_Comm comm) {
    return cs_call_finish(call, comm, ctx->rank, ctx->nprocs) != CS_OK;
}

static uint64_t type_bytes(int count, MPI_Datatype type) {
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0) {
        return 0;
    }
    return (uint64_t)count * (uint64_t)size;
}

/* The selection key of a call, equal on every rank: bytes per process (a root's MPI_IN_PLACE
 * side does not count). */
static uint64_t key_bytes(const cs_sel_key_t *key) {
    switch (key->coll) {
    case CS_COLL_GATHER:
        return key->send_in_place ? type_bytes(key->recvcount, key->recvtype)
                                  : type_bytes(key->sendcount, key->sendtype);
    case CS_COLL_SCATTER:
    case CS_COLL_ALLGATHER:
        return key->recv_in_place ? type_bytes(key->sendcount, key->sendtype)
                                  : type_bytes(key->recvcount, key->recvtype);
    default:
        return type_bytes(key->sendcount, key->sendtype);
    }
}

/* 1 when `key` on `comm` is this thread's last call of its collective that went native on the
 * rules still in force: it goes native again. */
static inline int native_again(MPI_Comm comm, const cs_sel_key_t *key) {
    const memo_t *m = &memo[key->coll];
    return m->comm == comm &&
           m->gen == atomic_load_explicit(&hot.generation, memory_order_relaxed) &&
           same_key(&m->key, key);
}

/* Remembers that `key`, on the communicator enter() just recorded in `last`, goes native by the
 * rules. Not for allgatherv (its selection key comes from the counts array, not in the key) nor
 * for derived types or user ops (a freed handle may come back as another type). */
static void remember_native(const cs_sel_key_t *key) {
    if (key->coll == CS_COLL_ALLGATHERV || !predefined_type(key->sendtype) ||
        !predefined_type(key->recvtype) || !predefined_op(key->op)) {
        return;
    }
    memo[key->coll].comm = last.comm;
    memo[key->coll].gen = last.gen;
    memo[key->coll].key = *key;
}

/* start() past the native repeat (`repeat`: native_again() held, and the call is logged):
 * enter, the call cache, the rule lookup. */
static __attribute__((noinline, cold)) int
start_slow(int repeat, MPI_Comm comm, const cs_sel_key_t *key, cs_comm_t **ctx, cs_sel_comm_t **sc,
           const cs_sel_interval_t **iv, const void *raw_send, const void *raw_recv, int *status) {
    int go_native = 1;
    if (!repeat) {
        if (!enter(comm, ctx, sc)) {
            return -1;
        }
        *status = run_hit(*ctx, *sc, key, raw_send, raw_recv);
        if (*status >= 0) {
            return 1;
        }
        *iv = choose(*sc, (cs_coll_t)key->coll, key_bytes(key), &go_native);
        if (!go_native) {
            return 0;
        }
        remember_native(key);
    }
    if (hot.log_calls) {
        log_native((cs_coll_t)key->coll, key_bytes(key));
    }
    return -1;
}

/* The common part of the seven entry points: the native repeat (inline: the whole path of a
 * repeated native call is its entry point, this test and the PMPI call), then start_slow().
 * Returns 1 when the call was run (status in *status), 0 when the caller must normalise and
 * dispatch (*iv set), -1 when it goes to PMPI. */
static inline int start(MPI_Comm comm, const cs_sel_key_t *key, cs_comm_t **ctx, cs_sel_comm_t **sc,
                        const cs_sel_interval_t **iv, const void *raw_send, const void *raw_recv,
                        int *status) {
    int repeat = native_again(comm, key);
    if (repeat && !hot.log_calls) {
        return -1;
    }
    return start_slow(repeat, comm, key, ctx, sc, iv, raw_send, raw_recv, status);
}

int collsel_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    const cs_sel_interval_t *iv = NULL;
    cs_call_t call;
    int status;
    cs_sel_key_t key = make_key(CS_COLL_BCAST, buffer, count, datatype, buffer, count, datatype,
                                MPI_OP_NULL, root);
    switch (start(comm, &key, &ctx, &sc, &iv, buffer, buffer, &status)) {
    case 1:
        return status;
    case 0:
        cs_call_fill_bcast(&call, buffer, count, datatype, root);
        if (finish(&call, ctx, comm) == 0) {
            return dispatch(ctx, sc, iv, &call, &key, buffer, buffer);
        }
        break;
    default:
        break;
    }
    return PMPI_Bcast(buffer, count, datatype, root, comm);
}

int collsel_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    const cs_sel_interval_t *iv = NULL;
    cs_call_t call;
    int status;
    cs_sel_key_t key = make_key(CS_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, MPI_OP_NULL, root);
    switch (start(comm, &key, &ctx, &sc, &iv, sendbuf, recvbuf, &status)) {
    case 1:
        return status;
    case 0:
        cs_call_fill_gather(&call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            root);
        if (finish(&call, ctx, comm) == 0) {
            return dispatch(ctx, sc, iv, &call, &key, sendbuf, recvbuf);
        }
        break;
    default:
        break;
    }
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int collsel_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    const cs_sel_interval_t *iv = NULL;
    cs_call_t call;
    int status;
    cs_sel_key_t key = make_key(CS_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, MPI_OP_NULL, root);
    switch (start(comm, &key, &ctx, &sc, &iv, sendbuf, recvbuf, &status)) {
    case 1:
        return status;
    case 0:
        cs_call_fill_scatter(&call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             root);
        if (finish(&call, ctx, comm) == 0) {
            return dispatch(ctx, sc, iv, &call, &key, sendbuf, recvbuf);
        }
        break;
    default:
        break;
    }
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int collsel_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   int root, MPI_Comm comm) {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    const cs_sel_interval_t *iv = NULL;
    cs_call_t call;
    int status;
    cs_sel_key_t key =
        make_key(CS_COLL_REDUCE, sendbuf, count, datatype, recvbuf, count, datatype, op, root);
    switch (start(comm, &key, &ctx, &sc, &iv, sendbuf, recvbuf, &status)) {
    case 1:
        return status;
    case 0:
        cs_call_fill_reduce(&call, sendbuf, recvbuf, count, datatype, op, root);
        if (finish(&call, ctx, comm) == 0) {
            return dispatch(ctx, sc, iv, &call, &key, sendbuf, recvbuf);
        }
        break;
    default:
        break;
    }
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int collsel_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm) {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    const cs_sel_interval_t *iv = NULL;
    cs_call_t call;
    int status;
    cs_sel_key_t key =
        make_key(CS_COLL_ALLREDUCE, sendbuf, count, datatype, recvbuf, count, datatype, op, 0);
    switch (start(comm, &key, &ctx, &sc, &iv, sendbuf, recvbuf, &status)) {
    case 1:
        return status;
    case 0:
        cs_call_fill_allreduce(&call, sendbuf, recvbuf, count, datatype, op);
        if (finish(&call, ctx, comm) == 0) {
            return dispatch(ctx, sc, iv, &call, &key, sendbuf, recvbuf);
        }
        break;
    default:
        break;
    }
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int collsel_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    const cs_sel_interval_t *iv = NULL;
    cs_call_t call;
    int status;
    cs_sel_key_t key = make_key(CS_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, MPI_OP_NULL, 0);
    switch (start(comm, &key, &ctx, &sc, &iv, sendbuf, recvbuf, &status)) {
    case 1:
        return status;
    case 0:
        cs_call_fill_allgather(&call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        if (finish(&call, ctx, comm) == 0) {
            return dispatch(ctx, sc, iv, &call, &key, sendbuf, recvbuf);
        }
        break;
    default:
        break;
    }
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int collsel_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm) {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    cs_call_t call;
    int go_native = 1;
    const cs_sel_interval_t *iv = NULL;
    cs_sel_key_t key = make_key(CS_COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, 0,
                                recvtype, MPI_OP_NULL, 0);
    /* The key (mean bytes per block) needs every count: normalisation computes it; calls with
     * count arrays are not cached. */
    if (enter(comm, &ctx, &sc)) {
        cs_call_fill_allgatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype);
        if (finish(&call, ctx, comm) == 0) {
            iv = choose(sc, CS_COLL_ALLGATHERV, call.bytes, &go_native);
            if (go_native && hot.log_calls) {
                log_native(CS_COLL_ALLGATHERV, call.bytes);
            }
        }
    }
    if (!go_native) {
        return dispatch(ctx, sc, iv, &call, &key, sendbuf, recvbuf);
    }
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
}

/* --- the choice, and explain ---------------------------------------------------------------- */

int cs_sel_choose(cs_coll_t coll, uint64_t bytes, MPI_Comm comm, cs_sel_choice_t *out) {
    cs_comm_t *ctx = NULL;
    cs_sel_comm_t *sc = NULL;
    int usable;
    if (out == NULL || cs_coll_name(coll) == NULL || coll >= CS_COLL_COUNT) {
        return CS_ERR_ARG;
    }
    memset(out, 0, sizeof(*out));
    out->variant.algo = cs_registry_native(coll);
    cs_params_defaults(NULL, 0, &out->variant.params);
    usable = enter(comm, &ctx, &sc);
    if (!atomic_load(&hot.active)) {
        out->why = env.disable ? CS_SEL_DISABLED : CS_SEL_FINALIZED;
        return CS_OK;
    }
    if (ctx == NULL || sc == NULL) {
        out->why = CS_SEL_NO_CONTEXT;
        return CS_OK;
    }
    out->nprocs = ctx->nprocs;
    out->ppn = sc->ppn;
    if (!usable) {
        pthread_mutex_lock(&lock);
        out->why = table_state == TABLE_OK ? CS_SEL_INTERCOMM : CS_SEL_NO_RULES;
        snprintf(out->detail, sizeof(out->detail), "%.*s", (int)sizeof(out->detail) - 1, table_why);
        pthread_mutex_unlock(&lock);
        return CS_OK;
    }
    if (env.force[coll].algo != NULL) {
        out->why = CS_SEL_FORCED;
        out->variant = env.force[coll];
        out->fallback = env.fallback;
        return CS_OK;
    }
    out->iv = cs_sel_lookup(sc, coll, bytes);
    if (out->iv == NULL) {
        pthread_mutex_lock(&lock);
        out->why = table_state == TABLE_OK ? CS_SEL_NO_RULE : CS_SEL_NO_RULES;
        snprintf(out->detail, sizeof(out->detail), "%.*s", (int)sizeof(out->detail) - 1, table_why);
        pthread_mutex_unlock(&lock);
        return CS_OK;
    }
    out->why = CS_SEL_RULE;
    out->variant = out->iv->cand[0];
    out->tuned_size = sc->tuned_size[coll];
    out->tuned_ppn = sc->tuned_ppn[coll];
    return CS_OK;
}

int collsel_explain(const char *coll_name, size_t bytes, MPI_Comm comm, char *buf, size_t len) {
    cs_coll_t coll;
    cs_sel_choice_t ch;
    char name[256];
    if (buf == NULL || len == 0 || coll_name == NULL ||
        cs_coll_from_name(coll_name, &coll) != CS_OK ||
        cs_sel_choose(coll, bytes, comm, &ch) != CS_OK) {
        return MPI_ERR_ARG;
    }
    cs_variant_name(&ch.variant, name, sizeof(name));
    switch (ch.why) {
    case CS_SEL_DISABLED:
        snprintf(buf, len, "%s: collsel is disabled (COLLSEL_DISABLE)", name);
        break;
    case CS_SEL_FINALIZED:
        snprintf(buf, len, "%s: collsel is finalized", name);
        break;
    case CS_SEL_NO_CONTEXT:
        snprintf(buf, len, "%s: no communicator context", name);
        break;
    case CS_SEL_INTERCOMM:
        snprintf(buf, len, "%s: intercommunicator", name);
        break;
    case CS_SEL_NO_RULES:
        snprintf(buf, len, "%s: %s", name, ch.detail);
        break;
    case CS_SEL_NO_RULE:
        snprintf(buf, len, "%s: no rule for %s on %d processes", name, coll_name, ch.nprocs);
        break;
    case CS_SEL_FORCED:
        snprintf(buf, len, "%s: forced by COLLSEL_FORCE (if it cannot run a call: %s)", name,
                 ch.fallback == CS_FALLBACK_ERROR  ? "error"
                 : ch.fallback == CS_FALLBACK_WARN ? "native, with a warning"
                                                   : "native");
        break;
    case CS_SEL_RULE: {
        const cs_sel_interval_t *iv = ch.iv;
        char hi[32];
        size_t used;
        if (iv->hi == UINT64_MAX) {
            snprintf(hi, sizeof(hi), "inf");
        } else {
            snprintf(hi, sizeof(hi), "%llu", (unsigned long long)iv->hi);
        }
        used = (size_t)snprintf(
            buf, len,
            "%s: %s of %zu bytes on %d processes (%d per node) falls in [%llu, %s) tuned at %d "
            "processes, %d per node; median %.2f us vs native %.2f us; ranked:",
            name, coll_name, bytes, ch.nprocs, ch.ppn, (unsigned long long)iv->lo, hi,
            ch.tuned_size, ch.tuned_ppn, iv->median_us[0], iv->native_us);
        for (int i = 0; i < iv->ncand && used < len; i++) {
            cs_variant_name(&iv->cand[i], name, sizeof(name));
            used += (size_t)snprintf(buf + used, len - used, " %s", name);
        }
        break;
    }
    }
    return MPI_SUCCESS;
}

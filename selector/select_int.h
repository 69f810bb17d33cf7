/* What the selector's own files share (select.h is what the bench and the tests use).
 *
 * One job per file:
 *   state.c     process-wide and thread-local state, the environment, collsel_init/finalize
 *   rules.c     the rule table: loaded from the database by rank 0, broadcast to the others
 *   comm.c      per-communicator set-up (cs_sel_enter), warm-up, collsel_prepare(_new)
 *   dispatch.c  the call cache, the native-repeat memo, dispatch and fallback
 *   entry.c     the public entry points (collsel_bcast ...), generated from core/coll.def
 *   explain.c   cs_sel_choose and collsel_explain
 *   env.c       parsing the environment; prune.c: the rules of one communicator, the lookup
 *
 * Validity of what is cached, in one place. One counter, cs_sel_hot.epoch (never 0, so a
 * zeroed cache entry is never valid), is bumped whenever something a cache may point at goes
 * away or changes meaning: a communicator context is freed (comm.c), collsel_finalize runs
 * (state.c). Thread-local caches (cs_sel_last, cs_sel_memo) are valid while the epoch they
 * recorded is the current one. collsel_finalize also records the epoch it ends in as
 * cs_sel_rules_epoch; a communicator's selector state set up before it (sc->epoch <
 * cs_sel_rules_epoch) is set up again at its next call, collectively like the first time.
 * Two caches keep their own marks, for reasons outside the selector: a cached schedule entry
 * of core/comm.h has `version`, bumped when core rebuilds that entry for another call (entries
 * are recycled round robin below the selector), which the call cache compares; the datatype
 * cache of core/call.c holds predefined types only, which never change, so it needs none. */
#ifndef CS_SELECT_INT_H
#define CS_SELECT_INT_H

#include "db.h"
#include "select.h"

#include <pthread.h>
#include <stdatomic.h>

/* Shared between the selector's files, never exported (the library is also built with hidden
 * visibility; this keeps references to it direct in every build). */
#define CS_SEL_INTERNAL __attribute__((visibility("hidden")))

/* --- state.c -------------------------------------------------------------------------------- */

/* What every call reads, in one cache line. */
typedef struct cs_sel_hot {
    atomic_int active;  /* 0: disabled or finalized: every call native */
    atomic_ulong epoch; /* see above; starts at 1 */
    int log_calls;      /* COLLSEL_VERBOSE=3: every call's decision is logged */
} cs_sel_hot_t;

extern CS_SEL_INTERNAL cs_sel_hot_t cs_sel_hot;
/* The epoch collsel_finalize last ended in (0: never). */
extern CS_SEL_INTERNAL atomic_ulong cs_sel_rules_epoch;
/* Guards the rule table (rules.c) and collsel_init's database path. */
extern CS_SEL_INTERNAL pthread_mutex_t cs_sel_lock;
/* The environment, parsed once (cs_sel_env_once). */
extern CS_SEL_INTERNAL cs_sel_env_t cs_sel_env;

/* Parses the environment into cs_sel_env unless done already (any thread, any time). */
CS_SEL_INTERNAL void cs_sel_env_once(void);
/* The database collsel_init named, else COLLSEL_DB ("" for none). cs_sel_lock held. */
CS_SEL_INTERNAL const char *cs_sel_db_path(void);

/* This thread's last communicator, so that a steady stream of calls skips the attribute lookup.
 * Valid while `epoch` equals cs_sel_hot.epoch. Initial-exec TLS: no __tls_get_addr call per
 * access (the library is linked or preloaded; a dlopen takes it from the static TLS reserve). */
typedef struct cs_sel_last {
    MPI_Comm comm;
    cs_comm_t *ctx;
    unsigned long epoch;
} cs_sel_last_t;
extern _Thread_local CS_SEL_INTERNAL __attribute__((tls_model("initial-exec")))
cs_sel_last_t cs_sel_last;

/* Per collective, this thread's last call that went native by the rules, one cache line each:
 * repeating it goes to PMPI after comparing it with this copy (cs_sel_native_again()), with no
 * type query, rule lookup or selector state touched. Valid while `epoch` equals
 * cs_sel_hot.epoch. For the collectives that are not cached (coll.def's CACHED 0) `key` is
 * unused: the memo says that every call of the collective on `comm` goes native (its rules are
 * native at every size and nothing forces it, cs_sel_native_always()). */
typedef struct cs_sel_memo {
    MPI_Comm comm;
    unsigned long epoch;
    cs_call_key_t key;
} cs_sel_memo_t;
extern _Thread_local CS_SEL_INTERNAL __attribute__((tls_model("initial-exec"), aligned(64)))
cs_sel_memo_t cs_sel_memo[CS_COLL_COUNT];

/* --- rules.c -------------------------------------------------------------------------------- */

/* Reads the rules of machine `machine_id` from `db` (at most CS_SEL_MAX_RULES rows) and keeps
 * the well-formed ones (cs_sel_rules_check) in *rules (malloc'ed, the caller frees it; NULL
 * when none), *n of them; *nbad rows were skipped, the first described in why[0..len-1]
 * (may be NULL). CS_OK, or the failure of the database (nothing kept) or CS_ERR_NOMEM. */
CS_SEL_INTERNAL int cs_sel_rules_read(cs_db_t *db, int64_t machine_id, cs_rule_t **rules, int *n,
                                      int *nbad, char *why, size_t len) CS_MUST_CHECK;

/* What cs_sel_rules_load read: one snapshot of a database. */
typedef struct cs_sel_loaded {
    cs_rule_t *rules; /* malloc'ed; n well-formed rules */
    int n;
    cs_rule_t *nb_rules; /* malloc'ed; n_nb well-formed nonblocking rules (table nb_rule) */
    int n_nb;
    int nbad;               /* rows skipped as bad (cs_sel_rules_read) */
    char bad_why[1024];     /* the first of them */
    cs_sel_pattern_t *pats; /* malloc'ed; the tuned patterns' signatures */
    int npats;
    int have_loggp; /* loggp holds the machine's LogGP parameters at the ppn nearest */
    cs_db_loggp_t loggp;
    char topology[256]; /* this machine's hwloc summary, as matched */
} cs_sel_loaded_t;

/* Reads this machine's rules, nonblocking rules (their bad rows counted in nbad too), patterns
 * and LogGP parameters (at the ppn nearest `ppn`) from the
 * database at `path` into *out, all from one read snapshot (cs_db_begin_read): a tuning run
 * writing the file meanwhile is seen before or after one of its batches, never in between, and
 * the reader waits for its locks at most the busy timeout (db/db.c). Opens the file read-only,
 * so a database in a read-only directory serves. MPI-free. CS_OK; CS_ERR_NOT_FOUND when the
 * file or this machine's rules are not there; CS_ERR_DB, CS_ERR_NOMEM: why[0..len-1] says
 * what, *out is empty. Free with cs_sel_loaded_free(). */
CS_SEL_INTERNAL int cs_sel_rules_load(const char *path, int ppn, cs_sel_loaded_t *out, char *why,
                                      size_t len) CS_MUST_CHECK;
CS_SEL_INTERNAL void cs_sel_loaded_free(cs_sel_loaded_t *l);

/* 1 when this process has no rule table yet (not collective). */
CS_SEL_INTERNAL int cs_sel_rules_missing(void);

/* 1 when every rule interval ivs[0..n-1] starts with native (or n is 0): the size of a call
 * cannot change where it goes. */
CS_SEL_INTERNAL int cs_sel_native_everywhere(const cs_sel_interval_t *ivs, int n);

/* Makes sure every rank of `comm` (`rank` in it, `ppn` per node) has the rule table, loading
 * it on rank 0 if any rank has none (collective): `need` says whether some rank had none when
 * asked (cs_sel_rules_missing, agreed over comm by the caller; the same on every rank), and
 * nothing is done without it. The table carries the nonblocking rules, the tuned patterns'
 * signatures and the machine's LogGP parameters (measured at the ppn nearest `ppn`), which every
 * rank then makes current (core/loggp.h). CS_OK, or CS_ERR_MPI. */
CS_SEL_INTERNAL int cs_sel_rules_share(MPI_Comm comm, int rank, int ppn, int need) CS_MUST_CHECK;
/* Prunes the rule table (and its nonblocking rules) for a communicator of `nprocs` processes,
 * `ppn` per node and pattern signature *sig (NULL: no topology) into `sc` when the table is
 * usable; *usable says whether
 * it is. CS_OK or CS_ERR_NOMEM. */
CS_SEL_INTERNAL int cs_sel_rules_prune(int nprocs, int ppn, const cs_graph_sig_t *sig,
                                       cs_sel_comm_t *sc, int *usable) CS_MUST_CHECK;
/* 1 when the rule table or the nonblocking rules hold rules of a neighbourhood pattern (the
 * same on every rank that shared them): a communicator with a topology then needs its
 * signature. */
CS_SEL_INTERNAL int cs_sel_rules_have_patterns(void);
/* 1 when the rule table was loaded and is usable; copies why there are (no) rules into `why`. */
CS_SEL_INTERNAL int cs_sel_rules_are_usable(char *why, size_t len);
/* 1 when the rule table is loaded and ranks, for some collective whose nonblocking calls collsel
 * serves, a variant that can be an operation (core/nb.h cs_nb_may_run) above native in some
 * interval at the tuned size nearest `nprocs` (any ppn), by the nonblocking rules where the
 * collective has them, else by its blocking rules; the neighbourhood collectives only when
 * `topo` (a communicator with a topology), by their pattern rules at any size. 0 when the table
 * is not loaded (not collective: what this process holds). cs_sel_rules_nb_served (select.h)
 * does the work; the last answer is kept until the table is forgotten. */
CS_SEL_INTERNAL int cs_sel_rules_serve_nb(int nprocs, int topo);
/* Forgets the rule table (collsel_finalize; cs_sel_lock held). */
CS_SEL_INTERNAL void cs_sel_rules_forget(void);

/* --- comm.c --------------------------------------------------------------------------------- */

/* The context of `comm` with its selector state (set up collectively on first use, or again
 * after collsel_finalize), recorded in cs_sel_last. CS_OK with both set (calls still go native
 * when (*sc)->native_only); CS_ERR_NOT_APPLICABLE when collsel is disabled or finalized or
 * `comm` is MPI_COMM_NULL, and for a call (`call` 1: a collective, not collsel_explain) that
 * is one of the first COLLSEL_WARMUP - 1 on a communicator without a context (warm-up, below);
 * the failure of the set-up otherwise. Every failure means native.
 *
 * Warm-up. A context costs a duplicate communicator and the selector's set-up (a few small
 * collectives), which a communicator that makes only a handful of calls never earns back
 * (split, three calls, free: the churn loop of docs/selector.md). So a communicator other than
 * MPI_COMM_WORLD gets its context at its COLLSEL_WARMUP-th call through collsel (default
 * CS_SEL_WARMUP_DEFAULT; 0 or 1: at the first); the calls before go to the MPI library, counted
 * in an attribute of the communicator (no allocation). Every rank makes the same calls on a
 * communicator, so every rank creates the context at the same call. Not while COLLSEL_FORCE
 * names a collective (a forced algorithm runs from the first call). */
CS_SEL_INTERNAL int cs_sel_enter(MPI_Comm comm, int call, cs_comm_t **ctx,
                                 cs_sel_comm_t **sc) CS_MUST_CHECK;

/* A nonblocking call or persistent init on `comm`, which has no context (the caller checked),
 * counts towards its warm-up like a blocking call (up to COLLSEL_WARMUP - 1: it cannot make the
 * context itself, it never communicates), so that the next blocking call makes the context when
 * it would after as many blocking calls. MPI orders a communicator's collectives alike on every
 * rank, so the count is the same on every rank. Local; nothing where warm-up does not apply. */
CS_SEL_INTERNAL void cs_sel_warm_count(MPI_Comm comm);

/* --- dispatch.c ----------------------------------------------------------------------------- */

/* Where a call is going, as far as the selector has got with it. */
typedef struct cs_sel_at {
    cs_comm_t *ctx;
    cs_sel_comm_t *sc;
    const cs_sel_interval_t *iv; /* the rule interval of the call, or NULL */
} cs_sel_at_t;

/* What an entry point does next (cs_sel_start). */
typedef enum cs_sel_route {
    CS_SEL_TO_PMPI,     /* call the MPI library's collective */
    CS_SEL_RAN,         /* the call ran from the call cache; its status is in *rc */
    CS_SEL_TO_DISPATCH, /* normalise the call and hand it to cs_sel_dispatch (*at set) */
} cs_sel_route_t;

/* 1 when `key` on `comm` is this thread's last call of its collective that went native on the
 * rules still in force: it goes native again. */
static inline int cs_sel_native_again(MPI_Comm comm, const cs_call_key_t *key) {
    const cs_sel_memo_t *m = &cs_sel_memo[key->coll];
    return m->comm == comm &&
           m->epoch == atomic_load_explicit(&cs_sel_hot.epoch, memory_order_relaxed) &&
           cs_call_same_key(&m->key, key);
}

/* 1 when calls of `coll`, a collective that is not cached, on `comm` go native whatever their
 * arguments (the memo set by cs_sel_start_uncached; never while every call is logged). */
static inline int cs_sel_native_always(MPI_Comm comm, cs_coll_t coll) {
    const cs_sel_memo_t *m = &cs_sel_memo[coll];
    return m->comm == comm &&
           m->epoch == atomic_load_explicit(&cs_sel_hot.epoch, memory_order_relaxed);
}

/* cs_sel_start() past the native repeat (`repeat`: cs_sel_native_again() held, and the call is
 * logged): enter, the call cache, the rule lookup. Returns the route; *rc is the status of a
 * call run from the cache. */
CS_SEL_INTERNAL cs_sel_route_t cs_sel_start_slow(int repeat, MPI_Comm comm,
                                                 const cs_call_key_t *key, cs_sel_at_t *at,
                                                 const void *raw_send, const void *raw_recv,
                                                 int *rc) __attribute__((noinline, cold));

/* The common start of the entry points of cached collectives: the native repeat (inline: the
 * whole path of a repeated native call is its entry point, this test and the PMPI call), then
 * cs_sel_start_slow(). Returns the route; *rc is the status of a call run from the cache. */
static inline cs_sel_route_t cs_sel_start(MPI_Comm comm, const cs_call_key_t *key, cs_sel_at_t *at,
                                          const void *raw_send, const void *raw_recv, int *rc) {
    int repeat = cs_sel_native_again(comm, key);
    if (repeat && !cs_sel_hot.log_calls) {
        return CS_SEL_TO_PMPI;
    }
    return cs_sel_start_slow(repeat, comm, key, at, raw_send, raw_recv, rc);
}

/* The start of the entry points of collectives that are not cached (coll.def's CACHED 0):
 * enter, then the rules by cs_call_key_bytes(key, arrays) (a neighbourhood collective with the
 * communicator's neighbourhood: CS_SEL_TO_PMPI without a topology). gatherv, scatterv and
 * alltoallv (cs_coll_agrees), whose key no rank can compute alone, go to the MPI library when
 * their rules are native at every size (or there are none) and nothing forces them, else to
 * cs_sel_dispatch with at->iv NULL, which agrees on the key (collectively) and then looks the
 * rules up: the same decision on every rank either way. Returns the route, never CS_SEL_RAN
 * (*rc is CS_OK), so that both starts have one shape. */
CS_SEL_INTERNAL cs_sel_route_t cs_sel_start_uncached(MPI_Comm comm, const cs_call_key_t *key,
                                                     const cs_call_arrays_t *arrays,
                                                     cs_sel_at_t *at, int *rc);

/* The interval for a call of `coll` of `bytes` on `sc` into *iv (NULL when there is none or
 * the collective is forced); 1 when the call goes native by the rules (the fast path: no call
 * normalisation). */
CS_SEL_INTERNAL int cs_sel_goes_native(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes,
                                       const cs_sel_interval_t **iv);

/* COLLSEL_VERBOSE=3: says that a call goes native by the rules. */
CS_SEL_INTERNAL void cs_sel_log_native(cs_coll_t coll, uint64_t bytes);

/* Runs the normalised `call` with the forced variant, or the first ranked candidate of at->iv
 * (for gatherv, scatterv and alltoallv: of the interval of the key agreed here first,
 * cs_comm_agree) that applies, else native; a schedule that ran is remembered for calls with the
 * same `key` (NULL: not cached). raw_send and raw_recv are the caller's buffers. CS_OK, or the
 * failure (COLLSEL_FALLBACK=error: CS_ERR_MPI_RAISED after raising MPI_ERR_OTHER). */
CS_SEL_INTERNAL int cs_sel_dispatch(const cs_sel_at_t *at, const cs_call_t *call,
                                    const cs_call_key_t *key, const void *raw_send,
                                    const void *raw_recv) CS_MUST_CHECK;

/* The MPI error code an entry point returns for status `rc` of a call on `comm`: a failure is
 * raised through comm's error handler first, as MPI raises its own (MPI_ERRORS_ARE_FATAL, the
 * default, ends the job; MPI_ERRORS_RETURN returns the code), unless the MPI library raised it
 * already (CS_ERR_MPI_RAISED: a native collective on comm). The code: the failing MPI call's
 * (cs_status_mpi_code; MPI_ERR_OTHER for MPI_ERR_IN_STATUS and MPI_ERR_PENDING, which speak of
 * requests the caller never saw), MPI_ERR_NO_MEM, MPI_ERR_ARG, or MPI_ERR_OTHER. */
CS_SEL_INTERNAL int cs_sel_raise(int rc, MPI_Comm comm);
static inline int cs_sel_mpi_status(int rc, MPI_Comm comm) {
    return rc == CS_OK ? MPI_SUCCESS : cs_sel_raise(rc, comm);
}

#endif

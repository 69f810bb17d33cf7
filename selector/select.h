/* The selector: rules from a tuning database, pruned per communicator, looked up per call.
 *
 * Process-wide state (state.c, rules.c; select_int.h lists the selector's files):
 *   - the environment, parsed once (env.c): COLLSEL_DB, COLLSEL_DISABLE, COLLSEL_FORCE,
 *     COLLSEL_FALLBACK, COLLSEL_VERBOSE, COLLSEL_WARMUP, COLLSEL_PROGRESS;
 *   - the rule table: every rule of the machine this process runs on (same hwloc topology and
 *     MPI library as the tuning run; the host name may differ, as on a cluster's other nodes).
 *     It is loaded once per process group: when a communicator is first used and any of its
 *     ranks has no table yet, its rank 0 opens the database read-only, packs the rules into a
 *     flat array of cs_rule_t (core/rule.h) and broadcasts it (with the outcome), so thousands of
 * ranks never open one SQLite file.
 *
 * Per communicator (cs_sel_comm_t, cached in the communicator context on first use): for each
 * collective on its own, the intervals of the rules tuned for this communicator size and
 * processes per node, or, when there are none, of the nearest tuned shape (docs/selector.md,
 * "Sizes and layouts without rules of their own"): the tuned size nearest by
 * |log2(tuned) - log2(size)|, the larger of two as near; at that size the ppn nearest by
 * |log2(tuned ppn) - log2(ppn)|, the smaller of two as near. Each interval keeps its ranked
 * candidates resolved to registry entries; one that cannot run at this size or layout (a grid
 * that does not fit, more leaders than processes per node) declines the call and the next
 * runs, native last.
 *
 * Neighbourhood collectives (docs/neighbor.md): their rules are tuned per named pattern
 * (cs_rule_t.pattern), whose signatures (topo/graph.h cs_graph_sig) the rule table carries
 * (cs_sel_pattern_t). A communicator with a topology gets its own signature once, at set-up
 * (collectively: two reductions of its ranks' degrees), and for each neighbourhood collective
 * the rules of the tuned (pattern, communicator size, ppn) nearest to it by
 * cs_graph_sig_distance; between equal distances the pattern that is isomorphic (core/isocomm.h)
 * exactly when the communicator is (a Moore stencil made by collsel_iso_neighborhood_create and
 * one made as a plain distributed graph have one signature, but only the first can run the
 * iso_* schedules), then the nearest ppn. The v and w forms' rules have one
 * interval (bench/rules.h cs_bench_rules_one) and are looked up at key 0, so every rank
 * chooses alike whatever its own bytes per edge. No topology, or no pattern rules: native.
 *
 * Precedence per call:
 *   1. COLLSEL_DISABLE, collsel_finalize(), an intercommunicator, or an unusable database:
 *      native.
 *   2. COLLSEL_FORCE names an algorithm for the collective: that algorithm when it applies to
 *      the call; otherwise COLLSEL_FALLBACK decides (silent: native; warn: native and one
 *      warning; error: MPI_ERR_OTHER).
 *   3. The rule interval holding the call's bytes (binary search): its first ranked candidate
 *      whose requirements hold for this call (the list always ends with native).
 *   4. No rule for the collective or size: native.
 * Nothing is allocated and no SQL runs on this path. */
#ifndef CS_SELECT_H
#define CS_SELECT_H

#include "core/algo.h"
#include "core/comm.h"
#include "core/rule.h"
#include "topo/graph.h"

#include <stddef.h>
#include <stdint.h>

#define CS_SEL_MAX_CANDS 8

/* One size interval of a communicator's rules. */
typedef struct cs_sel_interval {
    uint64_t lo, hi;
    int ncand;
    cs_variant_t cand[CS_SEL_MAX_CANDS]; /* ranked; ends with native */
    double median_us[CS_SEL_MAX_CANDS];
    double setup_us[CS_SEL_MAX_CANDS]; /* measured one-time setup per communicator; 0: none */
    double native_us;
} cs_sel_interval_t;

/* Setup cost is part of the choice (docs/selector.md "Setup cost"): candidate i of `iv`, whose
 * variant has a one-time setup of iv->setup_us[i] per communicator and gains
 * g = native_us - median_us[i] per call, runs only from the n-th call of its collective on a
 * communicator with n g >= setup_us[i] (ski rental on the measured numbers); 0 = from the
 * first call (no setup), -1 = never (no gain, or numbers unknown). */
static inline double cs_sel_setup_calls(const cs_sel_interval_t *iv, int i) {
    double gain = iv->native_us - iv->median_us[i];
    if (!(iv->setup_us[i] > 0)) {
        return 0;
    }
    if (!(gain > 0)) {
        return -1;
    }
    return iv->setup_us[i] / gain;
}

/* The call cache: a call whose arguments (all but the buffers) equal an earlier one's runs the
 * schedule prepared for it without normalising or looking anything up again. Only calls on
 * predefined datatypes and ops are cached (a freed derived type's handle may return with
 * another layout); allgatherv (count arrays) never is. */
#define CS_SEL_HITS 4 /* calls remembered per communicator, by cs_call_key_t (core/call.h) */

/* Where a normalised buffer comes from: the raw send or receive buffer plus an offset, or
 * nowhere (insignificant). */
enum { CS_SEL_FROM_SEND, CS_SEL_FROM_RECV, CS_SEL_FROM_NONE };

typedef struct cs_sel_hit {
    int valid;
    cs_call_key_t key;
    struct cs_comm_sched *entry;
    unsigned version;
    int send_from, recv_from;
    ptrdiff_t send_off, recv_off;
} cs_sel_hit_t;

/* A tuned neighbourhood pattern (table pattern): its name and signature on sig.p processes,
 * and whether its communicator was isomorphic (core/isocomm.h; column offsets set). */
typedef struct cs_sel_pattern {
    char name[CS_RULE_PATTERN];
    cs_graph_sig_t sig;
    int isomorphic;
} cs_sel_pattern_t;

typedef struct cs_sel_comm {
    cs_sel_hit_t hits[CS_SEL_HITS];
    int nhits, next_hit;
    int native_only;     /* intercommunicator or no usable rules */
    unsigned long epoch; /* when it was set up (select_int.h: older than the rules: again) */
    int ppn;
    int tuned_size[CS_COLL_COUNT], tuned_ppn[CS_COLL_COUNT]; /* 0: no rules */
    cs_sel_interval_t *iv[CS_COLL_COUNT];
    int niv[CS_COLL_COUNT];
    /* Calls of each collective that reached cs_sel_dispatch on this communicator: what a
     * candidate with a setup waits for (cs_sel_setup_calls). The same on every rank. */
    unsigned long calls[CS_COLL_COUNT];
    /* Neighbourhood collectives: the communicator's pattern signature (has_sig 0 without a
     * topology), whether it is isomorphic (cs_isocomm_get succeeds on it), and per collective
     * the tuned pattern its rules come from ("" none) and the signature distance to it. */
    int has_sig;
    cs_graph_sig_t sig;
    int isomorphic;
    char tuned_pattern[CS_COLL_COUNT][CS_RULE_PATTERN];
    double pattern_distance[CS_COLL_COUNT];
    /* The nonblocking rules (table nb_rule, docs/nonblocking.md "Tuning for overlap"), pruned
     * as the blocking ones (the neighbourhood collectives' by signature: nb_tuned_pattern and
     * nb_pattern_distance as tuned_pattern and pattern_distance); nb_niv 0: none for the
     * collective (its nonblocking calls use iv). */
    cs_sel_interval_t *nb_iv[CS_COLL_COUNT];
    int nb_niv[CS_COLL_COUNT];
    int nb_tuned_size[CS_COLL_COUNT], nb_tuned_ppn[CS_COLL_COUNT];
    char nb_tuned_pattern[CS_COLL_COUNT][CS_RULE_PATTERN];
    double nb_pattern_distance[CS_COLL_COUNT];
} cs_sel_comm_t;

/* Why the selector chose what it chose (cs_sel_choose). */
typedef enum cs_sel_why {
    CS_SEL_RULE,       /* the interval's first ranked candidate */
    CS_SEL_FORCED,     /* COLLSEL_FORCE names the collective */
    CS_SEL_NO_RULE,    /* rules are loaded, none for this collective and communicator */
    CS_SEL_NO_RULES,   /* no usable tuning database (cs_sel_choice_t.detail says why) */
    CS_SEL_INTERCOMM,  /* an intercommunicator */
    CS_SEL_DISABLED,   /* COLLSEL_DISABLE */
    CS_SEL_FINALIZED,  /* collsel_finalize ran */
    CS_SEL_NO_CONTEXT, /* the communicator's context could not be set up */
} cs_sel_why_t;

/* The selector's choice for a call shape, as data (collsel_explain words it; collsel-bench
 * --validate records it). */
typedef struct cs_sel_choice {
    cs_sel_why_t why;
    cs_variant_t variant;        /* what a call runs when its requirements hold (else the next
                                    ranked candidate, then native); native unless RULE/FORCED */
    const cs_sel_interval_t *iv; /* CS_SEL_RULE: the interval and its ranked candidates */
    /* The nonblocking rule interval of the same call (NULL: none; its nonblocking calls follow
     * the blocking rules), tuned at nb_tuned_size processes, nb_tuned_ppn per node; for a
     * neighbourhood collective on the tuned pattern nb_pattern (NULL otherwise), at signature
     * distance nb_distance. */
    const cs_sel_interval_t *nb_iv;
    int nb_tuned_size, nb_tuned_ppn;
    const char *nb_pattern;
    double nb_distance;
    int nprocs, ppn;           /* the communicator (0 without a context) */
    int tuned_size, tuned_ppn; /* CS_SEL_RULE: the tuned shape the rules come from */
    const char *pattern;       /* CS_SEL_RULE, neighbourhood: the nearest tuned pattern */
    double distance;           /* its signature distance from the communicator's */
    int fallback;              /* CS_SEL_FORCED: COLLSEL_FALLBACK (CS_FALLBACK_*) */
    char detail[1024];         /* CS_SEL_NO_RULES: why there are no rules */
} cs_sel_choice_t;

/* Fallback policy of COLLSEL_FALLBACK. */
enum { CS_FALLBACK_SILENT, CS_FALLBACK_WARN, CS_FALLBACK_ERROR };

/* COLLSEL_WARMUP's default: the call at which a communicator gets its context (select_int.h,
 * cs_sel_enter: warm-up). */
#define CS_SEL_WARMUP_DEFAULT 8

/* Parsed environment (env.c). */
typedef struct cs_sel_env {
    int disable;
    int verbose;
    int fallback;
    int warmup; /* COLLSEL_WARMUP: a communicator's calls before it gets a context (comm.c) */
    int progress_thread; /* COLLSEL_PROGRESS=thread (core/nb.h); 0: calls (the default) */
    cs_variant_t force[CS_COLL_COUNT]; /* algo NULL: not forced */
    char db[4096];
} cs_sel_env_t;

/* Parses the environment into `env`; bad values are reported on stderr (when `report`) and
 * ignored. */
void cs_sel_env_parse(cs_sel_env_t *env, int report);

/* Parses a COLLSEL_FORCE value into force[]; CS_ERR_ARG with a message in err (the entries
 * before the bad one are kept). */
int cs_sel_parse_force(const char *text, cs_variant_t force[CS_COLL_COUNT], char *err,
                       size_t errlen) CS_MUST_CHECK;

/* The interval of `sc` holding `bytes` for `coll`, or NULL (binary search). */
const cs_sel_interval_t *cs_sel_lookup(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes);

/* The nonblocking rule interval of `sc` holding `bytes` for `coll`, or NULL. */
const cs_sel_interval_t *cs_sel_nb_lookup(const cs_sel_comm_t *sc, cs_coll_t coll, uint64_t bytes);

/* Builds the nonblocking rules of a communicator (sc->nb_iv ...) from the nonblocking rules
 * rules[0..n-1] as cs_sel_prune and cs_sel_prune_neighbors build the blocking ones (nearest
 * tuned size, then ppn; the neighbourhood collectives' by the signature *sig, NULL: none, among
 * pats[0..npats-1], sc->isomorphic deciding between equal ones); the blocking rules of `sc`
 * stay. CS_OK or CS_ERR_NOMEM (then sc has no nonblocking rules). */
int cs_sel_prune_nb(const cs_rule_t *rules, int n, int nprocs, int ppn,
                    const cs_sel_pattern_t *pats, int npats, const cs_graph_sig_t *sig,
                    cs_sel_comm_t *sc) CS_MUST_CHECK;

/* Builds the per-communicator rules of a communicator of `nprocs` processes, `ppn` per node,
 * from rules[0..n-1] into `sc` (allocates the intervals): per collective those of the exact or
 * nearest tuned (comm_size, ppn), as above; sc->tuned_size and tuned_ppn record which. */
int cs_sel_prune(const cs_rule_t *rules, int n, int nprocs, int ppn,
                 cs_sel_comm_t *sc) CS_MUST_CHECK;

/* The neighbourhood collectives' rules of a communicator whose pattern signature is *sig
 * (NULL: no topology, no rules for them), `ppn` per node, into `sc`: per collective the
 * intervals of the tuned (pattern, communicator size, ppn) whose stored signature
 * (pats[0..npats-1]) is nearest (cs_graph_sig_distance; rules of a pattern without a stored
 * signature are not considered); between equal signatures a pattern whose isomorphic flag
 * equals sc->isomorphic (set by the caller) comes first, then the nearest ppn. The other
 * collectives' rules are left as they are. CS_OK or CS_ERR_NOMEM. */
int cs_sel_prune_neighbors(const cs_rule_t *rules, int n, const cs_sel_pattern_t *pats, int npats,
                           const cs_graph_sig_t *sig, int ppn, cs_sel_comm_t *sc) CS_MUST_CHECK;

/* The key a neighbourhood v or w call is looked up by: 0 (one interval, see above); `bytes`
 * for the other collectives. */
static inline uint64_t cs_sel_lookup_key(cs_coll_t coll, uint64_t bytes) {
    return cs_coll_is_neighbor(coll) && !cs_coll_is_cached(coll) ? 0 : bytes;
}

/* The selector's choice for a call of `coll` whose selection key is `bytes` on `comm`
 * (collective on the communicator's first use, like any call). CS_OK, or CS_ERR_ARG for an
 * invalid collective or a NULL `out`. */
int cs_sel_choose(cs_coll_t coll, uint64_t bytes, MPI_Comm comm,
                  cs_sel_choice_t *out) CS_MUST_CHECK;

/* The public entry points (collsel_bcast ...) as a cs_coll_fns_t, generated from coll.def
 * (selector/entry.c): what calls "through collsel" take, as bench/tune.c's do. */
extern const cs_coll_fns_t cs_sel_fns;

/* Most rules a rule table holds (rows past it are skipped): bounds what rank 0 reads and what
 * one broadcast carries (n * sizeof(cs_rule_t) fits its int count). */
#define CS_SEL_MAX_RULES (1 << 20)

/* Keeps the well-formed rules of rules[0..n-1] (as read from a database, which anyone may have
 * written) at the front of the array, sorted by collective, pattern, communicator size, ppn,
 * lo_bytes and rank, and returns how many (at most `max`). Every other row is skipped:
 *   - the row itself: a collective collsel does not know, comm_size or ppn < 1, rank < 1,
 *     lo_bytes or hi_bytes negative in the database (above INT64_MAX, hi_bytes unbounded aside),
 *     hi_bytes <= lo_bytes, a pattern on a collective that is not a neighbourhood collective;
 *   - its interval (the rows left of one (coll, pattern, comm_size, ppn, lo_bytes); the rank-1
 *     row's [lo_bytes, hi_bytes) is the interval): none of rank 1, or the interval overlaps
 *     the one before it;
 *   - as a candidate (the interval stays, with its other candidates): an algorithm that is not
 *     registered or belongs to another collective, parameters it does not take, a rank that
 *     an earlier row of the interval has, hi_bytes other than the interval's, median_us or
 *     native_us negative or infinite (NaN, unknown, is fine), setup_us negative or
 *     infinite (0: none), an unterminated text;
 *   - the rows past `max` kept ones.
 * The candidates kept in an interval are ranked again from 1, in their order. *nbad (may be
 * NULL) is the number of rows skipped; why[0..len-1] (may be NULL) describes the first of them
 * ("" when none), for the one line the caller prints about them all (each is logged at
 * debug verbosity). Allocates nothing. */
int cs_sel_rules_check(cs_rule_t *rules, int n, int max, int *nbad, char *why, size_t len);

/* 1 when a nonblocking call or persistent init on a communicator of `nprocs` processes
 * (`topo`: with a topology) could go anywhere but native by these rules, whatever its ppn and
 * size: for some collective, among the nonblocking rules nb[0..n_nb-1] when they have any of the
 * collective, else among its blocking rules rules[0..n-1], at the tuned size nearest nprocs as
 * cs_sel_prune chooses it (docs/selector.md; any ppn), some interval ranks a variant that can be an
 * operation (core/nb.h cs_nb_may_run) above native. Neighbourhood collectives count only when
 * `topo`, by their pattern rules at every size (their pattern is chosen by signature, which needs a
 * collective). Rows in cs_sel_rules_check's order; allocates nothing. */
int cs_sel_rules_nb_served(const cs_rule_t *rules, int n, const cs_rule_t *nb, int n_nb, int nprocs,
                           int topo);

/* Frees what cs_sel_prune allocated. */
void cs_sel_comm_clear(cs_sel_comm_t *sc);

#endif

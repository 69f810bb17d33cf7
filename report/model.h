/* A tuning database read into memory for collsel-report.
 *
 * Per machine: its runs, and per collective the keys (neighbourhood pattern, communicator size,
 * processes per node) that have something to show; the pattern is "" except for the
 * neighbourhood collectives, which are tuned per named pattern (docs/neighbor.md), so a
 * neighbourhood collective has a key, a latency plot and a row of the winner map per pattern
 * and communicator size. A key holds
 *   - the measurements of ONE tuning run: the newest 'done' tuning run that measured the key
 *     (when no done run did, the newest run of any status that did, and the report says so);
 *     tuning runs are those of run.kind 'tune' (not collsel-bench --validate);
 *   - the measurements grouped into algorithm families (the algorithm key, "bcast/orth"), each
 *     reduced to its fastest variant (params) at every measured size;
 *   - the machine's current rules for the key (the rule table, cs_rule_t), by lo_bytes and
 *     rank;
 *   - the validation rows of the newest collsel-bench --validate run that validated the key;
 *   - for a neighbourhood pattern whose communicator was isomorphic (table pattern, column
 *     offsets: the cart* and iso_* patterns), its relative offsets, from which
 *     cs_report_iso_cost computes the rounds D and volume V of each message-combining schedule
 *     (algorithms/topo/iso.h).
 * Besides the keys, per machine: the overlap measurements of the nonblocking collectives per
 * (collective, communicator size, ppn) of the newest tuning run that has them (cs_report_okey_t),
 * and the machine's nonblocking rules.
 *
 * Everything lives until cs_report_free(); strings are copies owned by the report. */
#ifndef CS_REPORT_MODEL_H
#define CS_REPORT_MODEL_H

#include "db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A plot written by the plot writer: files <name>.gp, .dat, .png and/or .svg. */
typedef struct cs_report_plot {
    char name[160]; /* "" when there is no such plot */
    int width, height;
} cs_report_plot_t;

typedef struct cs_report_run {
    int64_t id;
    int nprocs, nnodes, ppn;
    bool oversubscribed;
    bool validate; /* a collsel-bench --validate run */
    cs_db_run_status_t status;
    const char *status_name;              /* "done" */
    const char *started_at, *finished_at; /* finished_at may be NULL */
    const char *args, *version;           /* version may be NULL */
    int resumes;
} cs_report_run_t;

/* One measurement. */
typedef struct cs_report_meas {
    const char *coll;
    const char *pattern; /* "" except for the neighbourhood collectives */
    int comm_size, ppn;
    const cs_report_run_t *run;
    const char *algorithm, *params; /* params "" when none */
    uint64_t bytes;
    double min_us, q1_us, median_us, q3_us, max_us;
    int reps, outliers;
    /* The back-to-back loop metric (docs/tuning.md); loop_reps 0 and NaN times when the run
     * measured none (before the loop metric existed). */
    double loop_min_us, loop_q1_us, loop_median_us, loop_q3_us, loop_max_us;
    int loop_reps;
} cs_report_meas_t;

/* An algorithm family: one algorithm key with its variants collapsed to the fastest at each
 * size. */
typedef struct cs_report_family {
    const char *algorithm;         /* "allreduce/ring" */
    const char *name;              /* "ring" */
    bool native;                   /* the MPI library's collective */
    int nvariants;                 /* distinct params measured */
    const cs_report_meas_t **best; /* fastest variant at each of its sizes, by bytes */
    size_t nbest;
} cs_report_family_t;

typedef struct cs_report_valid {
    const char *coll;
    const char *pattern; /* "" except for the neighbourhood collectives */
    int comm_size, ppn;
    const cs_report_run_t *run;
    uint64_t bytes;
    double native_us, selected_us, oracle_us;
    double native_loop_us, selected_loop_us, oracle_loop_us; /* NaN when not measured */
    double native2_us, native2_loop_us; /* native timed again (native B); NaN when not measured */
    const char *selected_algorithm, *selected_params; /* "" when unknown */
    const char *oracle_algorithm, *oracle_params;
} cs_report_valid_t;

typedef struct cs_report_key {
    const char *coll;
    const char *pattern; /* "" except for the neighbourhood collectives */
    int comm_size, ppn;
    const cs_report_run_t *run;   /* the measurements' run; NULL when none */
    const cs_report_meas_t *meas; /* by bytes, algorithm, params */
    size_t nmeas;
    uint64_t *sizes; /* distinct measured sizes, ascending */
    size_t nsizes;
    cs_report_family_t *families; /* native first, then in registry order */
    size_t nfamilies;
    const cs_rule_t *rules; /* by lo_bytes, rank */
    size_t nrules;
    const cs_report_run_t *vrun;    /* the validation rows' run; NULL when none */
    const cs_report_valid_t *valid; /* by bytes */
    size_t nvalid;
    /* The pattern's isomorphic neighbourhood at comm_size processes: iso_s offsets of iso_d
     * coordinates (iso_offsets[i * iso_d + j]); iso_d 0 when it is not isomorphic or unknown. */
    int iso_d, iso_s;
    int *iso_offsets;
    cs_report_plot_t latency_plot, validation_plot;           /* set by the plot writer */
    cs_report_plot_t loop_latency_plot, loop_validation_plot; /* the same under the loop metric */
} cs_report_key_t;

typedef struct cs_report_coll {
    const char *name;
    cs_report_key_t *keys; /* by comm_size, ppn */
    size_t nkeys;
    cs_report_plot_t speedup_plot, winners_plot; /* set by the plot writer */
    cs_report_plot_t loop_speedup_plot;          /* speedup under the loop metric */
} cs_report_coll_t;

/* One candidate at one point of the overlap measurements (table overlap, docs/nonblocking.md
 * "Tuning for overlap"). */
typedef struct cs_report_overlap {
    const char *coll;
    const char *pattern; /* neighbourhood pattern, "" for the other collectives */
    int comm_size, ppn;
    const cs_report_run_t *run;
    const char *algorithm, *params;
    uint64_t bytes;
    int reps;
    double compute_us, blocking_us, nooverlap_us, overlap_us, overhead_us, freed;
} cs_report_overlap_t;

/* The overlap measurements of one (collective, pattern, communicator size, ppn), of the newest
 * tuning run that has them, by bytes, algorithm, params. */
typedef struct cs_report_okey {
    const char *coll;
    const char *pattern; /* neighbourhood pattern, "" for the other collectives */
    int comm_size, ppn;
    const cs_report_run_t *run;
    const cs_report_overlap_t *rows;
    size_t nrows;
    cs_report_plot_t plot; /* freed CPU share and overhead per family; set by the plot writer */
} cs_report_okey_t;

/* A verification failure of a run the report shows. */
typedef struct cs_report_failure {
    int64_t run_id;
    const char *coll, *algorithm, *params, *message;
    int comm_size;
    uint64_t bytes;
} cs_report_failure_t;

typedef struct cs_report_machine {
    int64_t id;
    const char *host, *topology, *mpi_library;
    const char *prefix;    /* of its files: "" when the report has one machine, else "m<id>_" */
    cs_report_run_t *runs; /* by id */
    size_t nruns;
    cs_report_coll_t *colls; /* in the order of algorithms/core/coll.def, unknown ones after */
    size_t ncolls;
    cs_report_failure_t *failures;
    size_t nfailures;
    /* The rows the keys point into, sorted by coll, comm_size, ppn. */
    cs_report_meas_t *meas;
    size_t nmeas;
    cs_rule_t *rules;
    size_t nrules;
    cs_report_valid_t *valid;
    size_t nvalid;
    cs_report_overlap_t *overlap; /* by coll, pattern, comm_size, ppn, bytes, algorithm, params */
    size_t noverlap;
    cs_report_okey_t *okeys; /* one per (coll, pattern, comm_size, ppn) of overlap */
    size_t nokeys;
    cs_rule_t *nb_rules; /* the machine's nonblocking rules (table nb_rule) */
    size_t nnb_rules;
} cs_report_machine_t;

typedef struct cs_report cs_report_t;

struct cs_report {
    cs_report_machine_t *machines; /* machines with at least one run, by id */
    size_t nmachines;
    size_t nruns; /* runs in the database */
    struct cs_report_arena *arena;
};

/* Reads everything the report shows from `db` into a new *report (free with cs_report_free).
 * CS_ERR_DB when a read fails (cs_db_errmsg(db) says why), CS_ERR_NOMEM. */
int cs_report_load(cs_db_t *db, cs_report_t **report) CS_MUST_CHECK;

/* Frees `report` (NULL is ignored). */
void cs_report_free(cs_report_t *report);

/* The key's rank-1 rule whose interval holds `bytes`, or NULL. */
const cs_rule_t *cs_report_winner(const cs_report_key_t *key, uint64_t bytes);

/* The key's measurement of exactly (algorithm, params) at `bytes`, or NULL. */
const cs_report_meas_t *cs_report_find(const cs_report_key_t *key, const char *algorithm,
                                       const char *params, uint64_t bytes);

/* The family of `algorithm` in `key`, or NULL. */
const cs_report_family_t *cs_report_family(const cs_report_key_t *key, const char *algorithm);

/* The fastest variant of `family` at `bytes`, or NULL when it was not measured there. */
const cs_report_meas_t *cs_report_best_at(const cs_report_family_t *family, uint64_t bytes);

/* The native family's measurement at `bytes`, or NULL. */
const cs_report_meas_t *cs_report_native_at(const cs_report_key_t *key, uint64_t bytes);

/* What the rules chose at `bytes` as measured in the key's run: the winner's own variant when
 * it was measured there, else its family's fastest variant; NULL when neither was. */
const cs_report_meas_t *cs_report_tuned_at(const cs_report_key_t *key, uint64_t bytes);

/* The message-combining schedule of `algorithm` ("neighbor_alltoall/iso_torus": iso_*
 * schedules of neighbor_alltoall and neighbor_allgather) on the key's isomorphic
 * neighbourhood: its rounds *rounds (D) and volume *volume (V, blocks sent per process;
 * topo/iso.h). CS_ERR_NOT_APPLICABLE when the key has no isomorphic neighbourhood or the
 * algorithm is no iso schedule; CS_ERR_NOMEM, CS_ERR_ARG (a neighbourhood the schedule
 * builder refuses). */
int cs_report_iso_cost(const cs_report_key_t *key, const char *algorithm, int *rounds,
                       long *volume) CS_MUST_CHECK;

#endif

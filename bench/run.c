/* The run row and storing points (see run.h). */
#include "run.h"

#include "collsel.h"
#include "core/log.h"
#include "registry.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int ensure_parent_dir(const char *path) {
    char dir[4096];
    char *slash;
    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) {
        return 0;
    }
    *slash = '\0';
    if (mkdir(dir, 0775) != 0 && errno != EEXIST) {
        return -1;
    }
    return 0;
}

/* The machine row of this run: the one of the same hwloc topology and MPI library that holds
 * rules (the newest run's, as the selector finds it), whatever its host name, so that every
 * node of a cluster partition tunes into one row (docs/cluster.md); else the row of this host
 * (inserted when new). An unknown topology matches only its own host. */
static int machine_row(cs_db_t *db, const cs_db_machine_t *dm, int64_t *id) {
    cs_db_machine_t same = {NULL, dm->topology, dm->mpi_library};
    int rc =
        strcmp(dm->topology, "unknown") != 0 ? cs_db_find_machine(db, &same, id) : CS_ERR_NOT_FOUND;
    if (rc == CS_ERR_NOT_FOUND) {
        rc = cs_db_find_or_insert_machine(db, dm, id);
    }
    return rc;
}

int cs_bench_run_open(const cs_bench_opts_t *o, const cs_machine_t *m, cs_bench_run_t *r,
                      int *resumed) {
    int rc = CS_OK;
    char why[512] = "";
    bool was_resumed = false;
    cs_db_machine_t dm = {m->host, m->topology, m->mpi_library};
    cs_db_run_t dr = {0};
    if (o->db_path != NULL) {
        snprintf(r->path, sizeof(r->path), "%s", o->db_path);
    } else {
        snprintf(r->path, sizeof(r->path), "results/%s.db", m->host);
        if (ensure_parent_dir(r->path) != 0) {
            fprintf(stderr, "collsel-bench: cannot create directory for %s: %s\n", r->path,
                    strerror(errno));
            return CS_ERR_DB;
        }
    }
    rc = cs_db_open(r->path, CS_DB_READ_WRITE, &r->db, why, sizeof(why));
    if (rc != CS_OK) {
        fprintf(stderr, "collsel-bench: %s\n", why[0] ? why : cs_status_str(rc));
        return rc;
    }
    CS_CHECK(machine_row(r->db, &dm, &r->machine_id));
    dr.machine_id = r->machine_id;
    dr.kind = o->validate ? CS_DB_RUN_VALIDATE : CS_DB_RUN_TUNE;
    dr.nprocs = m->nprocs;
    dr.nnodes = m->nnodes;
    dr.ppn = m->ppn;
    dr.oversubscribed = cs_machine_oversubscribed(m);
    r->oversubscribed = dr.oversubscribed;
    dr.args = o->args;
    dr.version = CS_VERSION;
    dr.metric = o->metric;
    CS_CHECK(cs_db_start_run(r->db, &dr, o->resume != 0, &r->run_id, &was_resumed));
    *resumed = was_resumed;
    r->before_s = 0;
    if (was_resumed) {
        CS_CHECK(cs_db_run_age(r->db, r->run_id, &r->before_s));
    }
out:
    if (rc != CS_OK && r->db != NULL) {
        fprintf(stderr, "collsel-bench: %s: %s\n", r->path, cs_db_errmsg(r->db));
    }
    return rc;
}

int cs_bench_run_has_point(cs_bench_run_t *r, cs_coll_t coll, const char *pattern, int comm_size,
                           int ppn, uint64_t bytes, int round, bool *exists) {
    cs_db_point_t pt = {
        cs_coll_name(coll), cs_registry_native(coll)->name, "", comm_size, ppn, bytes, pattern};
    return round > 0 ? cs_db_confirmation_exists(r->db, r->run_id, &pt, round, exists)
                     : cs_db_measurement_exists(r->db, r->run_id, &pt, exists);
}

int cs_bench_run_store_point(cs_bench_run_t *r, const cs_bench_cand_t *cands, int ncand,
                             cs_coll_t coll, const char *pattern, int comm_size, int ppn,
                             uint64_t bytes, int round, double rtt_ns) {
    int rc = CS_OK;
    int open = 0;
    CS_CHECK(cs_db_begin(r->db));
    open = 1;
    if (!isnan(rtt_ns)) {
        const cs_db_core_state_t st = {round, cs_coll_name(coll), pattern, comm_size, ppn, bytes,
                                       rtt_ns};
        CS_CHECK(cs_db_put_core_state(r->db, r->run_id, &st));
    }
    for (int i = 0; i < ncand; i++) {
        const cs_bench_cand_t *c = &cands[i];
        cs_db_point_t pt = {
            cs_coll_name(coll), c->v.algo->name, c->params, comm_size, ppn, bytes, pattern};
        if (!c->applicable) {
            continue;
        }
        if (c->failed) {
            cs_db_failure_t f = {r->run_id, pt, c->failure};
            CS_CHECK(cs_db_insert_failure(r->db, &f));
            continue;
        }
        cs_db_measurement_t m = {
            .run_id = r->run_id,
            .point = pt,
            .reps = (int)c->nraw,
            .outliers = (int)c->outliers,
            .min_us = c->summary.min,
            .q1_us = c->summary.q1,
            .median_us = c->summary.median,
            .q3_us = c->summary.q3,
            .max_us = c->summary.max,
            .verified = c->v.algo->run == NULL, /* native is the reference */
            .samples_us = c->raw,
            .nsamples = c->nraw,
            .round = round,
        };
        if (c->nloop_raw > 0 && c->nloop_samples > 0) {
            m.loop_reps = (int)c->nloop_raw;
            m.loop_outliers = (int)c->loop_outliers;
            m.loop_min_us = c->loop_summary.min;
            m.loop_q1_us = c->loop_summary.q1;
            m.loop_median_us = c->loop_summary.median;
            m.loop_q3_us = c->loop_summary.q3;
            m.loop_max_us = c->loop_summary.max;
            m.loop_rankmax_median_us = c->loop_rankmax_median;
            m.loop_samples_us = c->loop_raw;
            m.loop_nsamples = c->nloop_raw;
        }
        CS_CHECK(round > 0 ? cs_db_insert_confirmation(r->db, &m)
                           : cs_db_insert_measurement(r->db, &m));
    }
    CS_CHECK(cs_db_commit(r->db));
    open = 0;
out:
    if (open && cs_db_rollback(r->db) != CS_OK) {
        cs_log(CS_LOG_WARN, "rollback failed: %s", cs_db_errmsg(r->db));
    }
    return rc;
}

int cs_bench_run_put_pattern(cs_bench_run_t *r, const cs_bench_pattern_t *pat, int n,
                             const cs_graph_sig_t *sig) {
    int rc = CS_OK;
    cs_iso_nbh_t nbh = {0};
    int iso = cs_bench_pattern_iso(pat, n, &nbh); /* the offsets of an isomorphic pattern too */
    cs_db_pattern_t row = {.machine_id = r->machine_id,
                           .name = pat->name,
                           .p = sig->p,
                           .nedges = sig->nedges,
                           .max_out = sig->max_out,
                           .max_in = sig->max_in,
                           .mean_out = sig->mean_out,
                           .imbalance = sig->imbalance,
                           .iso_d = iso == CS_OK ? nbh.d : 0,
                           .iso_s = iso == CS_OK ? nbh.s : 0,
                           .iso_offsets = iso == CS_OK ? nbh.offsets : NULL};
    CS_REQUIRE(iso == CS_OK || iso == CS_ERR_NOT_APPLICABLE, iso);
    CS_CHECK(cs_db_put_pattern(r->db, &row));
out:
    cs_iso_nbh_free(&nbh);
    return rc;
}

void cs_bench_run_close(cs_bench_run_t *r) {
    cs_db_close(r->db);
    r->db = NULL;
}

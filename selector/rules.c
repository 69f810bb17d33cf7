/* The rule table: every rule of the machine this process runs on, loaded once per process
 * group by rank 0 of the first communicator used and broadcast to the others (select.h). */
#include "core/log.h"
#include "core/loggp.h"
#include "core/machine.h"
#include "db.h"
#include "select_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TABLE_NONE, TABLE_OK, TABLE_UNUSABLE };

/* All guarded by cs_sel_lock. */
static int table_state = TABLE_NONE;
static cs_rule_t *table;
static int ntable;
static cs_rule_t *nb_table; /* the nonblocking rules (table nb_rule) */
static int n_nb_table;
static cs_sel_pattern_t *pats; /* the tuned patterns' signatures */
static int npats;
static int have_loggp; /* the machine's LogGP parameters were found (loggp) */
static cs_loggp_t loggp;
static char table_why[16384]; /* how many rules from where, or why there are none */
/* cs_sel_rules_serve_nb's last answer (memo_valid 0: none), for communicators of memo_nprocs
 * processes with a topology or not (memo_topo); forgotten with the table. */
static int memo_valid, memo_nprocs, memo_topo, memo_served;

typedef struct loader {
    cs_rule_t *v;
    int n, cap;
    int over; /* rows past CS_SEL_MAX_RULES, not kept */
} loader_t;

/* Appends a rule as the database hands it (db/ has skipped collectives this collsel does not
 * know and names that do not fit a cs_rule_t); counts the rows past CS_SEL_MAX_RULES. */
static int add_rule(const cs_rule_t *r, void *ctx) {
    loader_t *l = ctx;
    if (l->n >= CS_SEL_MAX_RULES) {
        l->over++;
        return CS_OK;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        cs_rule_t *v = realloc(l->v, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            return CS_ERR_NOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *r;
    return CS_OK;
}

typedef struct pat_loader {
    cs_sel_pattern_t *v;
    int n, cap;
} pat_loader_t;

static int add_pattern(const cs_db_pattern_t *t, void *ctx) {
    pat_loader_t *l = ctx;
    cs_sel_pattern_t *p;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        cs_sel_pattern_t *v = realloc(l->v, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            return CS_ERR_NOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    p = &l->v[l->n++];
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", t->name);
    p->sig.p = t->p;
    p->sig.nedges = t->nedges;
    p->sig.max_out = t->max_out;
    p->sig.max_in = t->max_in;
    p->sig.mean_out = t->mean_out;
    p->sig.imbalance = t->imbalance;
    p->isomorphic = t->iso_d > 0;
    return CS_OK;
}

/* cs_sel_rules_read of the rules that `foreach` (cs_db_foreach_rule, cs_db_foreach_nb_rule)
 * reads. */
static int read_rules(cs_db_t *db, int64_t machine_id,
                      int (*foreach)(cs_db_t *, int64_t, cs_db_rule_fn, void *), cs_rule_t **rules,
                      int *n, int *nbad, char *why, size_t len) {
    int rc;
    loader_t l = {NULL, 0, 0, 0};
    *rules = NULL;
    *n = 0;
    *nbad = 0;
    if (why != NULL && len > 0) {
        why[0] = '\0';
    }
    rc = foreach (db, machine_id, add_rule, &l);
    if (rc != CS_OK) {
        free(l.v);
        return rc;
    }
    l.n = cs_sel_rules_check(l.v, l.n, CS_SEL_MAX_RULES, nbad, why, len);
    if (l.over > 0 && *nbad == 0 && why != NULL && len > 0) {
        snprintf(why, len, "more than %d rules", CS_SEL_MAX_RULES);
    }
    *nbad += l.over;
    *rules = l.v;
    *n = l.n;
    return CS_OK;
}

int cs_sel_rules_read(cs_db_t *db, int64_t machine_id, cs_rule_t **rules, int *n, int *nbad,
                      char *why, size_t len) {
    return read_rules(db, machine_id, cs_db_foreach_rule, rules, n, nbad, why, len);
}

int cs_sel_rules_load(const char *path, int ppn, cs_sel_loaded_t *out, char *why, size_t len) {
    cs_db_t *db = NULL;
    cs_machine_t m;
    cs_db_machine_t want;
    int64_t machine_id = 0;
    loader_t l = {NULL, 0, 0, 0}, nl = {NULL, 0, 0, 0};
    pat_loader_t pl = {NULL, 0, 0};
    bool found = false, snapshot = false;
    int nb_bad = 0;
    char nb_why[1024] = "";
    char dbwhy[4096] = "";
    int rc;
    memset(out, 0, sizeof(*out));
    snprintf(why, len, "%s", "");
    rc = cs_db_open(path, CS_DB_READ_ONLY, &db, dbwhy, sizeof(dbwhy));
    if (rc != CS_OK) {
        snprintf(why, len, "%s", dbwhy[0] ? dbwhy : cs_status_str(rc));
        goto out;
    }
    rc = cs_db_begin_read(db);
    snapshot = rc == CS_OK;
    cs_machine_fingerprint(&m);
    want.host = NULL; /* other nodes of a cluster have other names but the same hardware */
    want.topology = m.topology;
    want.mpi_library = m.mpi_library;
    if (rc == CS_OK) {
        rc = cs_db_find_machine(db, &want, &machine_id);
    }
    if (rc == CS_ERR_NOT_FOUND) {
        snprintf(why, len,
                 "%s has no rules for this machine (%s; %s): tune it here with collsel-bench", path,
                 m.topology, m.mpi_library);
        goto out;
    }
    if (rc == CS_OK) {
        rc = cs_sel_rules_read(db, machine_id, &l.v, &l.n, &out->nbad, out->bad_why,
                               sizeof(out->bad_why));
    }
    if (rc == CS_OK) {
        rc = read_rules(db, machine_id, cs_db_foreach_nb_rule, &nl.v, &nl.n, &nb_bad, nb_why,
                        sizeof(nb_why));
    }
    if (rc == CS_OK) {
        rc = cs_db_foreach_pattern(db, machine_id, add_pattern, &pl);
    }
    if (rc == CS_OK) {
        rc = cs_db_get_loggp(db, machine_id, ppn, &out->loggp, &found);
    }
    if (rc == CS_OK) {
        snapshot = false;
        rc = cs_db_commit(db); /* ends the snapshot: a read-only one has nothing to store */
    }
    if (rc != CS_OK) {
        snprintf(why, len, "%s: cannot read rules: %s", path,
                 rc == CS_ERR_DB ? cs_db_errmsg(db) : cs_status_str(rc));
        goto out;
    }
    out->rules = l.v;
    out->n = l.n;
    out->nb_rules = nl.v;
    out->n_nb = nl.n;
    if (nb_bad > 0 && out->nbad == 0) {
        /* cut to fit, as any reason is (gcc's -Wformat-truncation in the Debug build) */
        snprintf(out->bad_why, sizeof(out->bad_why), "nonblocking: %.1000s", nb_why);
    }
    out->nbad += nb_bad;
    out->pats = pl.v;
    out->npats = pl.n;
    out->have_loggp = found;
    snprintf(out->topology, sizeof(out->topology), "%s", m.topology);
    l.v = NULL;
    nl.v = NULL;
    pl.v = NULL;
out:
    if (snapshot && cs_db_rollback(db) != CS_OK) {
        cs_log(CS_LOG_DEBUG, "database '%s': %s (closed anyway)", path, cs_db_errmsg(db));
    }
    cs_db_close(db);
    free(l.v);
    free(nl.v);
    free(pl.v);
    if (rc != CS_OK) {
        out->nbad = 0;
        out->bad_why[0] = '\0';
    }
    return rc;
}

void cs_sel_loaded_free(cs_sel_loaded_t *l) {
    free(l->rules);
    free(l->nb_rules);
    free(l->pats);
    memset(l, 0, sizeof(*l));
}

/* Loads the rule table (cs_sel_rules_load) into table, pats and loggp (lock held). Sets
 * table_state and table_why; prints the one warning when a database was named but cannot be
 * used. */
static void load_table(int ppn) {
    const char *path = cs_sel_db_path();
    cs_sel_loaded_t ld;
    int rc;
    table_state = TABLE_UNUSABLE;
    if (path[0] == '\0') {
        snprintf(table_why, sizeof(table_why), "no tuning database (set COLLSEL_DB)");
        cs_log(CS_LOG_WARN, "%s: every collective is native", table_why);
        return;
    }
    rc = cs_sel_rules_load(path, ppn, &ld, table_why, sizeof(table_why));
    if (rc != CS_OK) {
        /* The database was named and cannot be used: said once, whatever COLLSEL_VERBOSE is. */
        if (cs_log_world_root()) { /* once per job, even when several groups load the rules */
            fprintf(stderr, "collsel: warning: %s; every collective is native\n", table_why);
        }
        return;
    }
    table = ld.rules;
    ntable = ld.n;
    nb_table = ld.nb_rules;
    n_nb_table = ld.n_nb;
    pats = ld.pats;
    npats = ld.npats;
    have_loggp = ld.have_loggp;
    if (ld.have_loggp) { /* microseconds and microseconds per byte pass unchanged (loggp.h) */
        loggp.L = ld.loggp.l_us;
        loggp.o = ld.loggp.o_us;
        loggp.g = ld.loggp.g_us;
        loggp.G = ld.loggp.g_per_byte_us;
    }
    table_state = TABLE_OK;
    /* Bad rows (anyone may write the file): skipped, and said in this one line. */
    if (ld.nbad > 0) {
        snprintf(table_why, sizeof(table_why),
                 "%d rules from %s (%d bad rules skipped; the first: %s)", ntable, path, ld.nbad,
                 ld.bad_why);
    } else {
        snprintf(table_why, sizeof(table_why), "%d rules from %s", ntable, path);
    }
    if (n_nb_table > 0) {
        size_t used = strlen(table_why);
        snprintf(table_why + used, sizeof(table_why) - used, ", %d nonblocking rules", n_nb_table);
    }
    cs_log(CS_LOG_WARN, "%s (machine %s)", table_why, ld.topology);
}

/* A copy of n elements of `size` bytes at src (malloc'ed; NULL when n is 0 or memory is short),
 * taken with cs_sel_lock held: rank 0 broadcasts from it, so that a collsel_finalize in another
 * thread can free the table meanwhile. */
static void *snapshot(const void *src, int n, size_t size) {
    void *copy = n > 0 && src != NULL ? malloc((size_t)n * size) : NULL;
    if (copy != NULL) {
        memcpy(copy, src, (size_t)n * size);
    }
    return copy;
}

/* Rank 0's nonblocking rules to every rank of `comm` (rank 0 holds the loaded table); other
 * ranks keep them when they have none yet. */
static int share_nb(MPI_Comm comm, int rank) {
    int rc = CS_OK, n = 0, ok;
    cs_rule_t *copy = NULL;
    pthread_mutex_lock(&cs_sel_lock);
    if (rank == 0) {
        n = n_nb_table;
        copy = snapshot(nb_table, n_nb_table, sizeof(*nb_table));
    }
    pthread_mutex_unlock(&cs_sel_lock);
    CS_MPI_CHECK(PMPI_Bcast(&n, 1, MPI_INT, 0, comm));
    if (n == 0) {
        goto out;
    }
    if (rank != 0) {
        copy = malloc((size_t)n * sizeof(*copy));
    }
    ok = copy != NULL;
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
    if (!ok) { /* the blocking rules serve the nonblocking calls too */
        goto out;
    }
    CS_MPI_CHECK(PMPI_Bcast(copy, (int)((size_t)n * sizeof(*copy)), MPI_BYTE, 0, comm));
    if (rank != 0) {
        pthread_mutex_lock(&cs_sel_lock);
        if (nb_table == NULL) {
            nb_table = copy;
            n_nb_table = n;
            copy = NULL;
        }
        pthread_mutex_unlock(&cs_sel_lock);
    }
out:
    free(copy);
    return rc;
}

/* Rank 0's patterns and LogGP parameters to every rank of `comm` (after the rules; rank 0
 * holds the loaded table). Other ranks keep them when their table is still unset. */
static int share_extras(MPI_Comm comm, int rank) {
    int rc = CS_OK;
    int head[2] = {0, 0};
    cs_sel_pattern_t *copy = NULL;
    cs_loggp_t l = {0, 0, 0, 0};
    CS_CHECK(share_nb(comm, rank));
    pthread_mutex_lock(&cs_sel_lock);
    if (rank == 0) {
        head[0] = npats;
        head[1] = have_loggp;
        l = loggp;
        copy = snapshot(pats, npats, sizeof(*pats));
    }
    pthread_mutex_unlock(&cs_sel_lock);
    CS_MPI_CHECK(PMPI_Bcast(head, 2, MPI_INT, 0, comm));
    CS_MPI_CHECK(PMPI_Bcast(&l, (int)sizeof(l), MPI_BYTE, 0, comm));
    if (head[0] > 0) {
        int ok;
        if (rank != 0) {
            copy = malloc((size_t)head[0] * sizeof(*copy));
        }
        ok = copy != NULL;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
        if (ok) {
            CS_MPI_CHECK(
                PMPI_Bcast(copy, (int)((size_t)head[0] * sizeof(*copy)), MPI_BYTE, 0, comm));
        }
        if (rank != 0) {
            pthread_mutex_lock(&cs_sel_lock);
            if (ok && pats == NULL) {
                pats = copy;
                npats = head[0];
                copy = NULL;
            }
            pthread_mutex_unlock(&cs_sel_lock);
        }
    }
    if (head[1]) {
        pthread_mutex_lock(&cs_sel_lock);
        have_loggp = 1;
        loggp = l;
        pthread_mutex_unlock(&cs_sel_lock);
        /* the same values on every rank, so balanced plans alike everywhere */
        if (cs_loggp_set(&l, CS_LOGGP_FROM_DATABASE) != CS_OK) {
            cs_log(CS_LOG_WARN, "the stored LogGP parameters are out of range: defaults used");
        }
    }
out:
    free(copy); /* rank 0's snapshot, or what another rank did not keep */
    return rc;
}

int cs_sel_rules_missing(void) {
    int need;
    pthread_mutex_lock(&cs_sel_lock);
    need = table_state == TABLE_NONE;
    pthread_mutex_unlock(&cs_sel_lock);
    return need;
}

int cs_sel_rules_share(MPI_Comm comm, int rank, int ppn, int need) {
    int rc = CS_OK;
    int state = 0, n = 0;
    cs_rule_t *snap = NULL; /* rank 0: the table as loaded (snapshot()) */
    cs_rule_t *copy = NULL; /* what is broadcast: rank 0's snapshot, or the received table */
    if (!need) {
        return CS_OK;
    }
    pthread_mutex_lock(&cs_sel_lock);
    if (rank == 0) {
        if (table_state == TABLE_NONE) {
            load_table(ppn);
        }
        state = table_state;
        n = ntable;
        snap = state == TABLE_OK ? snapshot(table, ntable, sizeof(*table)) : NULL;
    }
    pthread_mutex_unlock(&cs_sel_lock);
    {
        int head[2] = {state, n};
        CS_MPI_CHECK(PMPI_Bcast(head, 2, MPI_INT, 0, comm));
        state = head[0];
        n = head[1];
    }
    if (state == TABLE_OK && n > 0) {
        int ok;
        copy = rank == 0 ? snap : malloc((size_t)n * sizeof(*copy));
        ok = copy != NULL;
        snap = NULL;
        CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
        if (!ok) {
            state = TABLE_UNUSABLE;
            n = 0;
        } else {
            CS_MPI_CHECK(PMPI_Bcast(copy, (int)((size_t)n * sizeof(*copy)), MPI_BYTE, 0, comm));
            if (rank != 0) {
                pthread_mutex_lock(&cs_sel_lock);
                if (table_state == TABLE_NONE) {
                    table = copy;
                    copy = NULL;
                    ntable = n;
                    table_state = TABLE_OK;
                    snprintf(table_why, sizeof(table_why), "%d rules (from rank 0)", n);
                }
                pthread_mutex_unlock(&cs_sel_lock);
            }
        }
    }
    if (state == TABLE_OK) {
        CS_CHECK(share_extras(comm, rank));
    }
    if (rank != 0 && (state != TABLE_OK || n == 0)) {
        pthread_mutex_lock(&cs_sel_lock);
        if (table_state == TABLE_NONE) {
            table_state = state;
            snprintf(table_why, sizeof(table_why), "%s",
                     state == TABLE_OK ? "0 rules (from rank 0)"
                                       : "the tuning database is not usable");
        }
        pthread_mutex_unlock(&cs_sel_lock);
    }
out:
    free(snap);
    free(copy);
    return rc;
}

int cs_sel_rules_prune(int nprocs, int ppn, const cs_graph_sig_t *sig, cs_sel_comm_t *sc,
                       int *usable) {
    int rc = CS_OK;
    pthread_mutex_lock(&cs_sel_lock);
    *usable = table_state == TABLE_OK;
    if (*usable) {
        rc = cs_sel_prune(table, ntable, nprocs, ppn, sc);
    }
    if (*usable && rc == CS_OK) {
        rc = cs_sel_prune_neighbors(table, ntable, pats, npats, sig, ppn, sc);
    }
    if (*usable && rc == CS_OK && n_nb_table > 0) {
        rc = cs_sel_prune_nb(nb_table, n_nb_table, nprocs, ppn, pats, npats, sig, sc);
    }
    pthread_mutex_unlock(&cs_sel_lock);
    return rc;
}

int cs_sel_rules_are_usable(char *why, size_t len) {
    int usable;
    pthread_mutex_lock(&cs_sel_lock);
    usable = table_state == TABLE_OK;
    snprintf(why, len, "%.*s", (int)len - 1, table_why);
    pthread_mutex_unlock(&cs_sel_lock);
    return usable;
}

int cs_sel_rules_have_patterns(void) {
    int have = 0;
    pthread_mutex_lock(&cs_sel_lock);
    for (int i = 0; table_state == TABLE_OK && i < ntable && !have; i++) {
        have = table[i].pattern[0] != '\0';
    }
    for (int i = 0; table_state == TABLE_OK && i < n_nb_table && !have; i++) {
        have = nb_table[i].pattern[0] != '\0'; /* an --overlap only run's */
    }
    pthread_mutex_unlock(&cs_sel_lock);
    return have;
}

int cs_sel_rules_serve_nb(int nprocs, int topo) {
    int served = 0;
    pthread_mutex_lock(&cs_sel_lock);
    if (table_state == TABLE_OK) {
        if (!memo_valid || memo_nprocs != nprocs || memo_topo != topo) {
            memo_served = cs_sel_rules_nb_served(table, ntable, nb_table, n_nb_table, nprocs, topo);
            memo_nprocs = nprocs;
            memo_topo = topo;
            memo_valid = 1;
        }
        served = memo_served;
    }
    pthread_mutex_unlock(&cs_sel_lock);
    return served;
}

void cs_sel_rules_forget(void) {
    memo_valid = 0;
    free(table);
    table = NULL;
    ntable = 0;
    free(nb_table);
    nb_table = NULL;
    n_nb_table = 0;
    free(pats);
    pats = NULL;
    npats = 0;
    if (have_loggp && cs_loggp_set(NULL, CS_LOGGP_FROM_DEFAULTS) != CS_OK) {
        cs_log(CS_LOG_WARN, "could not restore the LogGP defaults");
    }
    have_loggp = 0;
    table_state = TABLE_NONE;
}

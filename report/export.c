/* collsel-report --export (see export.h and docs/export.md). */
#include "export.h"

#include "core/mpit.h"
#include "core/params.h"
#include "registry.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Open MPI's collectives with a <coll>/ompi family: the collective id of its rules file
 * (COLLTYPE in ompi/mca/coll/base/coll_base_functions.h) and whether its message size there is
 * the whole buffer of p blocks (Open MPI: type size x count x comm size, collsel: one block)
 * rather than collsel's bytes per process. In the order of the ids. */
static const struct {
    const char *coll;
    int id;
    int per_block;
} ompi_colls[] = {
    {"allgather", 0, 1}, {"allreduce", 2, 0}, {"alltoall", 3, 1}, {"barrier", 6, 0},
    {"bcast", 7, 0},     {"gather", 9, 1},    {"reduce", 11, 0},  {"scatter", 15, 1},
};
#define NOMPI ((int)(sizeof(ompi_colls) / sizeof(ompi_colls[0])))

/* collsel variants with an MPICH equivalent: the algorithm key, for <coll>/ompi the Open MPI
 * algorithm (alg=...), and MPICH's algorithm (the csel JSON's "algorithm=" value). */
static const struct {
    const char *algorithm, *ompi_alg, *mpich;
} mpich_map[] = {
    {"bcast/binomial", NULL, "MPIR_Bcast_intra_binomial"},
    {"bcast/scatter_allgather", NULL, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"},
    {"bcast/ompi", "binomial", "MPIR_Bcast_intra_binomial"},
    {"bcast/ompi", "scatter_allgather", "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"},
    {"bcast/ompi", "scatter_allgather_ring", "MPIR_Bcast_intra_scatter_ring_allgather"},
    {"reduce/binomial", NULL, "MPIR_Reduce_intra_binomial"},
    {"reduce/ompi", "binomial", "MPIR_Reduce_intra_binomial"},
    {"reduce/ompi", "rabenseifner", "MPIR_Reduce_intra_reduce_scatter_gather"},
    {"allreduce/recursive_doubling", NULL, "MPIR_Allreduce_intra_recursive_doubling"},
    {"allreduce/ompi", "recursive_doubling", "MPIR_Allreduce_intra_recursive_doubling"},
    {"allreduce/ompi", "ring", "MPIR_Allreduce_intra_ring"},
    {"allreduce/ompi", "rabenseifner", "MPIR_Allreduce_intra_reduce_scatter_allgather"},
    {"allgather/ring", NULL, "MPIR_Allgather_intra_ring"},
    {"allgather/recursive_doubling", NULL, "MPIR_Allgather_intra_recursive_doubling"},
    {"allgather/ompi", "ring", "MPIR_Allgather_intra_ring"},
    {"allgather/ompi", "recursive_doubling", "MPIR_Allgather_intra_recursive_doubling"},
    {"allgather/ompi", "bruck", "MPIR_Allgather_intra_brucks"},
    {"allgatherv/ring", NULL, "MPIR_Allgatherv_intra_ring"},
    {"allgatherv/recursive_doubling", NULL, "MPIR_Allgatherv_intra_recursive_doubling"},
    {"alltoall/pairwise", NULL, "MPIR_Alltoall_intra_pairwise"},
    {"alltoall/bruck", NULL, "MPIR_Alltoall_intra_brucks"},
    {"alltoall/linear", NULL, "MPIR_Alltoall_intra_scattered"},
    {"alltoall/ompi", "pairwise", "MPIR_Alltoall_intra_pairwise"},
    {"alltoall/ompi", "modified_bruck", "MPIR_Alltoall_intra_brucks"},
    {"alltoall/ompi", "linear", "MPIR_Alltoall_intra_scattered"},
    {"gather/binomial", NULL, "MPIR_Gather_intra_binomial"},
    {"gather/ompi", "binomial", "MPIR_Gather_intra_binomial"},
    {"scatter/binomial", NULL, "MPIR_Scatter_intra_binomial"},
    {"scatter/ompi", "binomial", "MPIR_Scatter_intra_binomial"},
    {"barrier/dissemination", NULL, "MPIR_Barrier_intra_dissemination"},
    {"barrier/ompi", "bruck", "MPIR_Barrier_intra_dissemination"},
    {"reduce_scatter_block/recursive_halving", NULL,
     "MPIR_Reduce_scatter_block_intra_recursive_halving"},
    {"reduce_scatter/recursive_halving", NULL, "MPIR_Reduce_scatter_intra_recursive_halving"},
    {"scan/recursive_doubling", NULL, "MPIR_Scan_intra_recursive_doubling"},
    {"exscan/recursive_doubling", NULL, "MPIR_Exscan_intra_recursive_doubling"},
};

/* What one measured size chose: an Open MPI algorithm with its shape (ompi-rules, env) or an
 * MPICH algorithm (mpich-json). */
typedef struct choice {
    uint64_t bytes; /* collsel's bytes of the measured size */
    char alg[CS_PARAM_VALUE];
    const char *mpich;
    int id, segsize, fanout;
} choice_t;

int cs_export_kind(const char *name, cs_export_kind_t *kind) {
    if (strcmp(name, "ompi-rules") == 0) {
        *kind = CS_EXPORT_OMPI_RULES;
    } else if (strcmp(name, "mpich-json") == 0) {
        *kind = CS_EXPORT_MPICH_JSON;
    } else if (strcmp(name, "env") == 0) {
        *kind = CS_EXPORT_ENV;
    } else {
        return CS_ERR_ARG;
    }
    return CS_OK;
}

static const cs_report_coll_t *find_coll(const cs_report_machine_t *m, const char *name) {
    for (size_t c = 0; c < m->ncolls; c++) {
        if (strcmp(m->colls[c].name, name) == 0) {
            return &m->colls[c];
        }
    }
    return NULL;
}

/* The keys of `coll` to export, one per communicator size (the first ppn measured), ascending,
 * into keys[0..cap-1]; returns how many. */
static int size_keys(const cs_report_coll_t *coll, const cs_report_key_t **keys, int cap) {
    int n = 0;
    for (size_t k = 0; coll != NULL && k < coll->nkeys && n < cap; k++) {
        const cs_report_key_t *key = &coll->keys[k];
        if (key->pattern[0] == '\0' && key->nsizes > 0 &&
            (n == 0 || keys[n - 1]->comm_size != key->comm_size)) {
            keys[n++] = key;
        }
    }
    return n;
}

/* Open MPI's number of algorithm `alg` of `coll` (coll_tuned_<coll>_algorithm), or 0. MPI_T is
 * initialised. */
static int ompi_id(const char *coll, const char *alg) {
    char name[96];
    cs_mpit_item_t items[32];
    int index = -1, n = 0;
    snprintf(name, sizeof(name), "coll_tuned_%s_algorithm", coll);
    if (cs_mpit_find(name, &index) != CS_OK ||
        cs_mpit_enum(index, items, (int)(sizeof(items) / sizeof(items[0])), &n) != CS_OK) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(items[i].name, alg) == 0) {
            return items[i].value;
        }
    }
    return 0;
}

/* Whether Open MPI variant `m` beats the MPI library's own choice `native` at the same size,
 * from their medians, as collsel-bench's rules judge a candidate under the default metric
 * policy 'both' (docs/tuning.md): at least CS_STATS_MIN_GAIN faster under one metric and not
 * more than that slower under the other; the synchronised metric alone for a run without the
 * loop metric. No native measurement: the variant stands. (The rank-sum test of the rules needs
 * the samples, which the report does not load; the medians' margin is its other half.) */
static int beats_native(const cs_report_meas_t *m, const cs_report_meas_t *native) {
    const double win = 1.0 - CS_STATS_MIN_GAIN, not_slower = 1.0 + CS_STATS_MIN_GAIN;
    int loop;
    if (native == NULL) {
        return 1;
    }
    loop = !isnan(m->loop_median_us) && !isnan(native->loop_median_us);
    if (!loop) {
        return m->median_us <= win * native->median_us;
    }
    return (m->median_us <= win * native->median_us &&
            m->loop_median_us <= not_slower * native->loop_median_us) ||
           (m->loop_median_us <= win * native->loop_median_us &&
            m->median_us <= not_slower * native->median_us);
}

/* The params of the `fam` variant the tuning run's rules for `key` rank highest, above native
 * (`native_name`), in the interval of `bytes`; NULL when none. That is collsel-bench's own
 * verdict, with the significance test the report cannot redo (a loop win stands when the
 * synchronised difference is not significant, docs/tuning.md step 5). */
static const char *ranked_above_native(const cs_report_key_t *key, uint64_t bytes, const char *fam,
                                       const char *native_name) {
    const cs_rule_t *mine = NULL;
    int native = 0;
    for (size_t i = 0; i < key->nrules; i++) {
        const cs_rule_t *r = &key->rules[i];
        if (r->lo_bytes > bytes || (r->hi_bytes != CS_RULE_UNBOUNDED && bytes >= r->hi_bytes)) {
            continue;
        }
        if (strcmp(r->algorithm, fam) == 0 && (mine == NULL || r->rank < mine->rank)) {
            mine = r;
        } else if (strcmp(r->algorithm, native_name) == 0) {
            native = r->rank;
        }
    }
    return mine != NULL && (native == 0 || mine->rank < native) ? mine->params : NULL;
}

/* The <coll>/ompi choice of `key` at each measured size, into out[0..cap-1] (sizes without an
 * ompi measurement are left out): the variant the tuning's rules rank above native there
 * (ranked_above_native), else the fastest variant measured there if it beats native
 * (beats_native), else Open MPI's own decision: id 0, alg "default" (a rules file's algorithm 0
 * leaves the size to Open MPI's fixed decision). Returns how many, -1 when one names an
 * algorithm this Open MPI does not have (why says which). */
static int ompi_choices(const char *coll, const cs_report_key_t *key, choice_t *out, int cap,
                        char *why, size_t len) {
    char fam[64], native[64];
    const cs_report_family_t *f;
    const cs_algo_t *a;
    int n = 0;
    snprintf(fam, sizeof(fam), "%s/ompi", coll);
    snprintf(native, sizeof(native), "%s/native", coll);
    f = cs_report_family(key, fam);
    a = cs_registry_find(fam);
    for (size_t i = 0; f != NULL && a != NULL && i < f->nbest && n < cap; i++) {
        const cs_report_meas_t *m = f->best[i];
        const char *params = ranked_above_native(key, m->bytes, fam, native);
        cs_params_t p;
        char err[128];
        const char *alg;
        choice_t *c = &out[n];
        memset(c, 0, sizeof(*c));
        c->bytes = m->bytes;
        if (params == NULL && beats_native(m, cs_report_find(key, native, "", m->bytes))) {
            params = m->params;
        }
        if (params == NULL) {
            snprintf(c->alg, sizeof(c->alg), "default");
            n++;
            continue;
        }
        if (cs_params_parse(a->params, a->nparams, params, &p, err, sizeof(err)) != CS_OK ||
            (alg = cs_params_get(&p, "alg")) == NULL ||
            cs_params_get_int(&p, "segsize_bytes", &c->segsize) != CS_OK ||
            cs_params_get_int(&p, "fanout", &c->fanout) != CS_OK) {
            continue; /* a row this version cannot read */
        }
        snprintf(c->alg, sizeof(c->alg), "%s", alg);
        c->id = ompi_id(coll, alg);
        if (c->id <= 0) {
            snprintf(why, len,
                     "%s(%s) is not in this Open MPI's coll_tuned_%s_algorithm: export with the "
                     "Open MPI that was tuned",
                     fam, params, coll);
            return -1;
        }
        n++;
    }
    return n;
}

static int same_ompi(const choice_t *a, const choice_t *b) {
    return a->id == b->id && a->segsize == b->segsize && a->fanout == b->fanout;
}

/* The boundary between measured sizes a < b (geometric mean, as the rules put it), scaled. */
static uint64_t boundary(uint64_t a, uint64_t b, uint64_t scale) {
    uint64_t m = (uint64_t)floor(sqrt((double)(a > 0 ? a : 1) * (double)b));
    m = m > a ? m : a + 1;
    return m * scale;
}

#define MAX_KEYS  64
#define MAX_SIZES 256

static int write_ompi_rules(const cs_report_machine_t *m, FILE *out, char *why, size_t len) {
    const cs_report_key_t *keys[MAX_KEYS];
    choice_t ch[MAX_SIZES];
    int ncoll = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            fprintf(out,
                    "# Open MPI coll/tuned dynamic rules written by collsel-report --export "
                    "ompi-rules\n"
                    "# machine %s, MPI library %s\n"
                    "# per collective and communicator size: message size (bytes, Open MPI's "
                    "count), algorithm, fan-out, segment size\n"
                    "# algorithm 0 (default): Open MPI's own decision, where no algorithm of its "
                    "catalogue beat it\n"
                    "# use: OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
                    "OMPI_MCA_coll_tuned_dynamic_rules_filename=THIS_FILE (docs/export.md)\n"
                    "%d\n",
                    m->host, m->mpi_library, ncoll);
        }
        for (int c = 0; c < NOMPI; c++) {
            const cs_report_coll_t *coll = find_coll(m, ompi_colls[c].coll);
            int nk = size_keys(coll, keys, MAX_KEYS), nsizes = 0;
            for (int k = 0; k < nk; k++) {
                int n = ompi_choices(ompi_colls[c].coll, keys[k], ch, MAX_SIZES, why, len);
                if (n < 0) {
                    return CS_ERR_NOT_APPLICABLE;
                }
                nsizes += n > 0;
            }
            if (nsizes == 0) {
                continue;
            }
            if (pass == 0) {
                ncoll++;
                continue;
            }
            fprintf(out, "%d # %s\n%d # communicator sizes\n", ompi_colls[c].id, ompi_colls[c].coll,
                    nsizes);
            for (int k = 0; k < nk; k++) {
                int n = ompi_choices(ompi_colls[c].coll, keys[k], ch, MAX_SIZES, why, len), nr = 0;
                uint64_t scale = ompi_colls[c].per_block ? (uint64_t)keys[k]->comm_size : 1;
                if (n <= 0) {
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    nr += i == 0 || !same_ompi(&ch[i], &ch[i - 1]);
                }
                fprintf(out, "%d # communicator size\n%d # message sizes\n", keys[k]->comm_size,
                        nr);
                for (int i = 0; i < n; i++) {
                    if (i == 0 || !same_ompi(&ch[i], &ch[i - 1])) {
                        fprintf(out, "%llu %d %d %d # %s\n",
                                (unsigned long long)(i == 0 ? 0
                                                            : boundary(ch[i - 1].bytes, ch[i].bytes,
                                                                       scale)),
                                ch[i].id, ch[i].fanout, ch[i].segsize, ch[i].alg);
                    }
                }
            }
        }
        if (ncoll == 0) {
            snprintf(why, len,
                     "no <coll>/ompi measurements to export (tune with collsel-bench "
                     "under Open MPI first)");
            return CS_ERR_NOT_APPLICABLE;
        }
    }
    return CS_OK;
}

static int write_env(const cs_report_machine_t *m, int comm_size, FILE *out, char *why,
                     size_t len) {
    const cs_report_key_t *keys[MAX_KEYS];
    choice_t ch[MAX_SIZES];
    int written = 0;
    for (int c = 0; c < NOMPI; c++) {
        const cs_report_coll_t *coll = find_coll(m, ompi_colls[c].coll);
        int nk = size_keys(coll, keys, MAX_KEYS);
        for (int k = 0; k < nk; k++) {
            int n, best = -1, best_wins = 0;
            if (comm_size > 0 && keys[k]->comm_size != comm_size) {
                continue;
            }
            if (comm_size == 0 && nk > 1) {
                snprintf(why, len,
                         "%s was tuned at more than one communicator size: choose one with "
                         "--comm-size",
                         ompi_colls[c].coll);
                return CS_ERR_NOT_APPLICABLE;
            }
            n = ompi_choices(ompi_colls[c].coll, keys[k], ch, MAX_SIZES, why, len);
            if (n < 0) {
                return CS_ERR_NOT_APPLICABLE;
            }
            for (int i = 0; i < n; i++) {
                int wins = 0;
                for (int j = 0; j < n && ch[i].id > 0; j++) {
                    wins += same_ompi(&ch[i], &ch[j]);
                }
                if (wins > best_wins) {
                    best = i;
                    best_wins = wins;
                }
            }
            if (best < 0) {
                continue;
            }
            if (written++ == 0) {
                fprintf(out,
                        "# Open MPI coll/tuned algorithms forced for communicators of %d "
                        "processes\n# (written by collsel-report --export env; machine %s). "
                        "Forced algorithms apply to every\n# communicator and message size; "
                        "--export ompi-rules keeps the choice per size.\n"
                        "export OMPI_MCA_coll_tuned_use_dynamic_rules=1\n",
                        keys[k]->comm_size, m->host);
            }
            fprintf(out,
                    "# %s: %s, the fastest Open MPI algorithm, and faster than Open MPI's own "
                    "decision,\n# at %d of %d measured sizes\n",
                    ompi_colls[c].coll, ch[best].alg, best_wins, n);
            fprintf(out, "export OMPI_MCA_coll_tuned_%s_algorithm=%d\n", ompi_colls[c].coll,
                    ch[best].id);
            fprintf(out, "export OMPI_MCA_coll_tuned_%s_algorithm_segmentsize=%d\n",
                    ompi_colls[c].coll, ch[best].segsize);
            if (ch[best].fanout > 0) {
                fprintf(out, "export OMPI_MCA_coll_tuned_%s_algorithm_tree_fanout=%d\n",
                        ompi_colls[c].coll, ch[best].fanout);
                fprintf(out, "export OMPI_MCA_coll_tuned_%s_algorithm_chain_fanout=%d\n",
                        ompi_colls[c].coll, ch[best].fanout);
            }
        }
    }
    if (written == 0) {
        if (comm_size > 0) {
            snprintf(why, len, "no <coll>/ompi measurements at communicator size %d", comm_size);
        } else {
            snprintf(why, len, "no <coll>/ompi measurements to export");
        }
        return CS_ERR_NOT_APPLICABLE;
    }
    return CS_OK;
}

/* MPICH's algorithm for measurement `m`, or NULL. */
static const char *mpich_of(const cs_report_meas_t *m) {
    const char *alg = NULL;
    const char *at = strstr(m->params, "alg=");
    char name[CS_PARAM_VALUE] = "";
    if (at != NULL && (at == m->params || at[-1] == ',')) {
        size_t n = strcspn(at + 4, ",");
        if (n < sizeof(name)) {
            memcpy(name, at + 4, n);
            name[n] = '\0';
            alg = name;
        }
    }
    for (size_t i = 0; i < sizeof(mpich_map) / sizeof(mpich_map[0]); i++) {
        if (strcmp(mpich_map[i].algorithm, m->algorithm) == 0 &&
            (mpich_map[i].ompi_alg == NULL ||
             (alg != NULL && strcmp(mpich_map[i].ompi_alg, alg) == 0))) {
            return mpich_map[i].mpich;
        }
    }
    return NULL;
}

/* The fastest variant with an MPICH equivalent at each measured size of `key`. */
static int mpich_choices(const cs_report_key_t *key, choice_t *out, int cap) {
    int n = 0;
    for (size_t s = 0; s < key->nsizes && n < cap; s++) {
        const cs_report_meas_t *best = NULL;
        const char *best_name = NULL;
        for (size_t i = 0; i < key->nmeas; i++) {
            const cs_report_meas_t *m = &key->meas[i];
            const char *name;
            if (m->bytes != key->sizes[s] || (name = mpich_of(m)) == NULL) {
                continue;
            }
            if (best == NULL || m->median_us < best->median_us) {
                best = m;
                best_name = name;
            }
        }
        if (best != NULL) {
            memset(&out[n], 0, sizeof(out[n]));
            out[n].bytes = best->bytes;
            out[n].mpich = best_name;
            n++;
        }
    }
    return n;
}

static void write_mpich_sizes(const choice_t *ch, int n, FILE *out) {
    for (int i = 0; i < n; i++) {
        int last = i == n - 1;
        for (; !last && strcmp(ch[i].mpich, ch[i + 1].mpich) == 0; i++) {
            last = i + 1 == n - 1;
        }
        if (last) {
            fprintf(out, "        \"avg_msg_size=any\": {\"algorithm=%s\": {}}\n", ch[i].mpich);
        } else {
            fprintf(out, "        \"avg_msg_size<=%llu\": {\"algorithm=%s\": {}},\n",
                    (unsigned long long)boundary(ch[i].bytes, ch[i + 1].bytes, 1) - 1, ch[i].mpich);
        }
    }
}

static int write_mpich_json(const cs_report_machine_t *m, FILE *out, char *why, size_t len) {
    const cs_report_key_t *keys[MAX_KEYS];
    choice_t ch[MAX_SIZES];
    int ncoll = 0;
    fprintf(out, "{\n");
    for (size_t c = 0; c < m->ncolls; c++) {
        int nk = size_keys(&m->colls[c], keys, MAX_KEYS), first = 1;
        for (int k = 0; k < nk; k++) {
            int n = mpich_choices(keys[k], ch, MAX_SIZES);
            int last = 1;
            if (n == 0) {
                continue;
            }
            for (int j = k + 1; j < nk; j++) {
                last = last && mpich_choices(keys[j], ch, MAX_SIZES) == 0;
            }
            n = mpich_choices(keys[k], ch, MAX_SIZES);
            if (first) {
                fprintf(out, "%s  \"collective=%s\": {\n    \"comm_type=intra\": {\n",
                        ncoll > 0 ? ",\n" : "", m->colls[c].name);
                first = 0;
                ncoll++;
            }
            if (last) {
                fprintf(out, "      \"comm_size=any\": {\n");
            } else {
                fprintf(out, "      \"comm_size<=%d\": {\n", keys[k]->comm_size);
            }
            write_mpich_sizes(ch, n, out);
            fprintf(out, "      }%s\n", last ? "" : ",");
        }
        if (!first) {
            fprintf(out, "    }\n  }");
        }
    }
    fprintf(out, "\n}\n");
    if (ncoll == 0) {
        snprintf(why, len, "no measured variant has an MPICH equivalent (docs/export.md)");
        return CS_ERR_NOT_APPLICABLE;
    }
    return CS_OK;
}

int cs_export_write(const cs_report_t *report, cs_export_kind_t kind, int comm_size, FILE *out,
                    char *why, size_t len) {
    const cs_report_machine_t *m;
    int rc;
    if (report->nmachines == 0) {
        snprintf(why, len, "the database has no tuning runs");
        return CS_ERR_NOT_APPLICABLE;
    }
    m = &report->machines[report->nmachines - 1];
    if (kind == CS_EXPORT_MPICH_JSON) {
        return write_mpich_json(m, out, why, len);
    }
    if (cs_mpit_begin() != CS_OK) {
        snprintf(why, len,
                 "the MPI library has no MPI tool interface: Open MPI's algorithm "
                 "numbers cannot be read");
        return CS_ERR_NOT_APPLICABLE;
    }
    rc = kind == CS_EXPORT_ENV ? write_env(m, comm_size, out, why, len)
                               : write_ompi_rules(m, out, why, len);
    cs_mpit_end();
    return rc;
}

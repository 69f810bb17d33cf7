/* Protocol thresholds through MPI_T (see thresholds.h). */
#include "thresholds.h"

#include "core/mpit.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/* Control variables that name a message size at which the library changes protocol. A pattern
 * only has to match names of sizes in bytes; counts (btl_vader_fbox_threshold) and segment
 * sizes of collective components that are off by default (coll_adapt, coll_han, coll_sm) are
 * left out on purpose. */
const char *const cs_bench_threshold_patterns[] = {
    /* Open MPI BTLs (vader = shared memory, self, tcp, openib, uct, ...): largest eager
     * message, first fragment of a rendezvous, largest single send. */
    "btl_*_eager_limit",
    "btl_*_rndv_eager_limit",
    "btl_*_max_send_size",
    /* Open MPI coll_tuned: forced segment sizes (0 = unset, ignored). */
    "coll_tuned_*_segmentsize",
    /* MPICH (cvar names without the MPIR_CVAR_ prefix): eager limits of the devices and the
     * message-size switches of its collective algorithm selection. */
    "*EAGER_MAX_MSG_SIZE",
    "*_SHORT_MSG_SIZE",
    "*_LONG_MSG_SIZE",
    NULL,
};

int cs_bench_threshold_name(const char *name) {
    for (int i = 0; cs_bench_threshold_patterns[i] != NULL; i++) {
        if (fnmatch(cs_bench_threshold_patterns[i], name, 0) == 0) {
            return 1;
        }
    }
    return 0;
}

void cs_bench_thresholds_add(cs_bench_thresholds_t *t, const char *name, uint64_t bytes) {
    int i;
    size_t len = strlen(name);
    if (bytes == 0 || t->n == CS_BENCH_MAX_THRESHOLDS || len >= sizeof(t->v[0].name)) {
        return; /* a name that does not fit is left out rather than cut */
    }
    i = t->n++;
    while (i > 0 && (t->v[i - 1].bytes > bytes ||
                     (t->v[i - 1].bytes == bytes && strcmp(t->v[i - 1].name, name) > 0))) {
        t->v[i] = t->v[i - 1];
        i--;
    }
    memcpy(t->v[i].name, name, len + 1);
    t->v[i].bytes = bytes;
}

void cs_bench_thresholds_discover(cs_bench_thresholds_t *t) {
    int num = 0;
    memset(t, 0, sizeof(*t));
    if (cs_mpit_begin() != CS_OK) {
        return;
    }
    t->mpi_t = 1;
    if (PMPI_T_cvar_get_num(&num) != MPI_SUCCESS) {
        num = 0;
    }
    for (int i = 0; i < num; i++) {
        char name[256], desc[8];
        int name_len = sizeof(name), desc_len = sizeof(desc), verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        uint64_t bytes;
        if (PMPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len,
                                 &bind, &scope) != MPI_SUCCESS ||
            bind != MPI_T_BIND_NO_OBJECT || !cs_bench_threshold_name(name)) {
            continue;
        }
        bytes = cs_mpit_read_u64(i);
        /* INT_MAX and the like mean "no limit", not a protocol switch. */
        if (bytes > 0 && bytes < ((uint64_t)1 << 31) - 4096) {
            cs_bench_thresholds_add(t, name, bytes);
        }
    }
    cs_mpit_end();
}

int cs_bench_thresholds_find(cs_bench_thresholds_t *t, MPI_Comm comm) {
    int rank = 0;
    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    if (rank == 0) {
        cs_bench_thresholds_discover(t);
    }
    if (PMPI_Bcast(t, (int)sizeof(*t), MPI_BYTE, 0, comm) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    return CS_OK;
}

int cs_bench_thresholds_bytes(const cs_bench_thresholds_t *t, uint64_t *out, int cap) {
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        if (n < cap && (n == 0 || out[n - 1] != t->v[i].bytes)) {
            out[n++] = t->v[i].bytes;
        }
    }
    return n;
}

void cs_bench_thresholds_format(const cs_bench_thresholds_t *t, char *buf, size_t len) {
    size_t used;
    if (!t->mpi_t) {
        snprintf(buf, len,
                 "protocol thresholds: none (the MPI library has no MPI_T); rule "
                 "boundaries at geometric means");
        return;
    }
    if (t->n == 0) {
        snprintf(buf, len,
                 "protocol thresholds: none found through MPI_T; rule boundaries at "
                 "geometric means");
        return;
    }
    used = (size_t)snprintf(buf, len, "protocol thresholds (MPI_T):");
    for (int i = 0; i < t->n && used < len; i++) {
        used += (size_t)snprintf(buf + used, len - used, " %s=%llu", t->v[i].name,
                                 (unsigned long long)t->v[i].bytes);
    }
}

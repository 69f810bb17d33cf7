/* Machine fingerprint and job layout (see machine.h). */
#include "machine.h"

#include "log.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void topology(cs_machine_t *m) {
    hwloc_topology_t topo;
    snprintf(m->topology, sizeof(m->topology), "unknown");
    if (hwloc_topology_init(&topo) != 0) {
        return;
    }
    if (hwloc_topology_load(topo) == 0) {
        int packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        m->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        m->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        snprintf(m->topology, sizeof(m->topology), "packages=%d numa=%d cores=%d pus=%d", packages,
                 numa, m->cores, m->pus);
    }
    hwloc_topology_destroy(topo);
}

void cs_machine_fingerprint(cs_machine_t *m) {
    int len = 0;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    memset(m, 0, sizeof(*m));
    if (gethostname(m->host, sizeof(m->host) - 1) != 0) {
        snprintf(m->host, sizeof(m->host), "unknown");
    }
    topology(m);
    if (PMPI_Get_library_version(version, &len) != MPI_SUCCESS) {
        snprintf(version, sizeof(version), "unknown");
    }
    version[strcspn(version, "\n")] = '\0';
    snprintf(m->mpi_library, sizeof(m->mpi_library), "%s", version);
}

int cs_machine_node_size(MPI_Comm comm, int *ppn) {
    static int complained;
    int rc = CS_OK;
    MPI_Comm node = MPI_COMM_NULL;
    const char *env = getenv("COLLSEL_NODE_SIZE");
    int nprocs;
    CS_MPI_CHECK(PMPI_Comm_size(comm, &nprocs));
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        long k = strtol(env, &end, 10);
        if (*end == '\0' && k >= 1) {
            *ppn = k < nprocs ? (int)k : nprocs;
            return CS_OK;
        }
        if (!complained) {
            complained = 1;
            cs_log_complain("COLLSEL_NODE_SIZE: bad value '%s' (use a process count >= 1); ignored",
                            env);
        }
    }
    CS_MPI_CHECK(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CS_MPI_CHECK(PMPI_Comm_size(node, ppn));
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, ppn, 1, MPI_INT, MPI_MAX, comm));
out:
    if (node != MPI_COMM_NULL) {
        PMPI_Comm_free(&node);
    }
    return rc;
}

int cs_machine_query(cs_machine_t *m, MPI_Comm comm) {
    int rc = CS_OK;
    int ppn = 0;
    cs_machine_fingerprint(m);
    CS_MPI_CHECK(PMPI_Comm_size(comm, &m->nprocs));
    CS_CHECK(cs_machine_node_size(comm, &ppn));
    m->ppn = ppn;
    m->nnodes = (m->nprocs + ppn - 1) / ppn;
out:
    return rc;
}

/* Machine fingerprint and job layout (see machine.h). */
#include "machine.h"

#include <hwloc.h>
#include <stdio.h>
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

int cs_machine_query(cs_machine_t *m, MPI_Comm comm) {
    int rc = CS_OK;
    MPI_Comm node = MPI_COMM_NULL;
    int len = 0, node_rank, leader;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    memset(m, 0, sizeof(*m));
    if (gethostname(m->host, sizeof(m->host) - 1) != 0) {
        snprintf(m->host, sizeof(m->host), "unknown");
    }
    topology(m);
    CS_MPI_CHECK(PMPI_Get_library_version(version, &len));
    version[strcspn(version, "\n")] = '\0';
    snprintf(m->mpi_library, sizeof(m->mpi_library), "%s", version);
    CS_MPI_CHECK(PMPI_Comm_size(comm, &m->nprocs));
    CS_MPI_CHECK(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CS_MPI_CHECK(PMPI_Comm_size(node, &m->ppn));
    CS_MPI_CHECK(PMPI_Comm_rank(node, &node_rank));
    leader = node_rank == 0;
    CS_MPI_CHECK(PMPI_Allreduce(&leader, &m->nnodes, 1, MPI_INT, MPI_SUM, comm));
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &m->ppn, 1, MPI_INT, MPI_MAX, comm));
out:
    if (node != MPI_COMM_NULL) {
        PMPI_Comm_free(&node);
    }
    return rc;
}

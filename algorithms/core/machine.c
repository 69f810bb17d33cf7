/* Machine fingerprint and job layout (see machine.h). */
#include "machine.h"

#include "log.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The index of the object of `type` whose cpuset holds all of `set`, or -1. */
static int covering(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_bitmap_t set) {
    int n = hwloc_get_nbobjs_by_type(topo, type);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        if (o != NULL && o->cpuset != NULL && hwloc_bitmap_isincluded(set, o->cpuset)) {
            return i;
        }
    }
    return -1;
}

/* The machine's topology, loaded once per process: a load takes 3-9 ms here, and every new
 * communicator's node layout (cs_comm_node) asks for its binding's domain; the selector loads it
 * for the fingerprint anyway. NULL when hwloc cannot load it. Never destroyed: it describes the
 * machine, which outlives every caller, and only read after the load (hwloc's read-only calls
 * are thread-safe). The bindings are asked for at each call, as a process may be rebound. */
static hwloc_topology_t machine_topo;
static pthread_once_t machine_topo_once = PTHREAD_ONCE_INIT;

static void machine_topo_load(void) {
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        return;
    }
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    machine_topo = topo;
}

static hwloc_topology_t machine_topology(void) {
    pthread_once(&machine_topo_once, machine_topo_load);
    return machine_topo;
}

int cs_machine_domain(void) {
    hwloc_topology_t topo = machine_topology();
    hwloc_bitmap_t set = NULL;
    int domain = -1;
    if (topo == NULL) {
        return -1;
    }
    set = hwloc_bitmap_alloc();
    if (set != NULL) {
        int packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        if (packages <= 1 && numa <= 1) {
            domain = 0; /* one domain: nothing to spread over */
        } else if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
            domain = covering(topo, packages > 1 ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_NUMANODE, set);
        }
    }
    hwloc_bitmap_free(set);
    return domain;
}

int cs_machine_core_bound(void) {
    hwloc_topology_t topo = machine_topology();
    hwloc_bitmap_t set = NULL;
    int bound = -1;
    if (topo == NULL) {
        return -1;
    }
    set = hwloc_bitmap_alloc();
    if (set != NULL && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
        bound = covering(topo, HWLOC_OBJ_CORE, set) >= 0;
    }
    hwloc_bitmap_free(set);
    return bound;
}

static void topology(cs_machine_t *m) {
    hwloc_topology_t topo = machine_topology();
    snprintf(m->topology, sizeof(m->topology), "unknown");
    if (topo != NULL) {
        int packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        m->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        m->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        snprintf(m->topology, sizeof(m->topology), "packages=%d numa=%d cores=%d pus=%d", packages,
                 numa, m->cores, m->pus);
    }
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

int cs_machine_parse_node_size(const char *text, long *k) {
    char *end = NULL;
    long v;
    if (text == NULL || *text == '\0') {
        return 0;
    }
    errno = 0;
    v = strtol(text, &end, 10);
    if (*end != '\0' || v < 1 || errno == ERANGE) {
        return 0;
    }
    *k = v;
    return 1;
}

/* COLLSEL_NODE_SIZE: *k and 1 when it is set to a valid value, 0 otherwise (a bad value is
 * complained about once). */
static int env_node_size(long *k) {
    static int complained;
    const char *env = getenv("COLLSEL_NODE_SIZE");
    if (env != NULL && *env != '\0') {
        if (cs_machine_parse_node_size(env, k)) {
            return 1;
        }
        if (!complained) {
            complained = 1;
            cs_log_complain("COLLSEL_NODE_SIZE: bad value '%s' (use a process count >= 1); ignored",
                            env);
        }
    }
    return 0;
}

long cs_machine_node_emulation(void) {
    long k = 0;
    return env_node_size(&k) ? k : 0;
}

int cs_machine_node_comm(MPI_Comm comm, MPI_Comm *node, int *emulated) {
    int rc = CS_OK;
    int rank;
    long k = 0;
    *node = MPI_COMM_NULL;
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    *emulated = env_node_size(&k);
    if (*emulated) {
        CS_MPI_CHECK(PMPI_Comm_split(comm, (int)(rank / k), rank, node));
    } else {
        CS_MPI_CHECK(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node));
    }
out:
    return rc;
}

int cs_machine_node_size(MPI_Comm comm, int *ppn) {
    int rc = CS_OK;
    MPI_Comm node = MPI_COMM_NULL;
    int nprocs;
    long k = 0;
    CS_MPI_CHECK(PMPI_Comm_size(comm, &nprocs));
    if (env_node_size(&k)) {
        *ppn = k < nprocs ? (int)k : nprocs;
        return CS_OK;
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

/* What machine and job collsel runs on: for the tuning run and for the selector.
 *
 * The fingerprint is the host name, an hwloc summary ("packages=1 numa=1 cores=2 pus=2") and
 * the first line of MPI_Get_library_version; a database tuned elsewhere is recognised by it.
 * The job layout is the number of nodes and processes per node (cs_machine_node_size); nodes
 * are counted as nprocs / ppn, rounded up. */
#ifndef CS_MACHINE_H
#define CS_MACHINE_H

#include "status.h"

#include <mpi.h>

typedef struct cs_machine {
    char host[256];
    char topology[256];
    char mpi_library[256];
    int cores, pus; /* of this node, from hwloc */
    int nprocs, nnodes, ppn;
} cs_machine_t;

/* Whether more processes share a node than it has cores (cores known). */
static inline int cs_machine_oversubscribed(const cs_machine_t *m) {
    return m->cores > 0 && m->ppn > m->cores;
}

/* Fills host, topology, mpi_library, cores and pus of `m` (not collective; never fails: what
 * cannot be found reads "unknown"). */
void cs_machine_fingerprint(cs_machine_t *m);

/* Parses a COLLSEL_NODE_SIZE value (a process count >= 1 that fits a long) into *k: 1, or 0
 * (*k untouched) for any other text. */
int cs_machine_parse_node_size(const char *text, long *k);

/* The node size COLLSEL_NODE_SIZE emulates (k >= 1), or 0 when it is unset or bad (real nodes).
 * Not collective. */
long cs_machine_node_emulation(void);

/* Sets *ppn to the processes per node of `comm` (the largest node), collectively:
 * COLLSEL_NODE_SIZE=k emulates nodes of k consecutive ranks; otherwise MPI_Comm_split_type
 * shared memory. */
int cs_machine_node_size(MPI_Comm comm, int *ppn) CS_MUST_CHECK;

/* The communicator of this process's node, collectively over `comm`: with COLLSEL_NODE_SIZE=k
 * (*emulated = 1) the k consecutive ranks rank / k, otherwise the ranks that share memory
 * (MPI_Comm_split_type), in both cases in the rank order of `comm`. The caller frees *node. */
int cs_machine_node_comm(MPI_Comm comm, MPI_Comm *node, int *emulated) CS_MUST_CHECK;

/* The domain this process is bound to, for spreading leaders over a node (not collective):
 * the index of the package (or, on a one-package machine with several NUMA nodes, of the NUMA
 * node) whose cores hold the whole binding; 0 on a machine with one package and one NUMA node;
 * -1 when unknown (not bound, bound across domains, hwloc failed). */
int cs_machine_domain(void);

/* Whether this process is bound to one core (not collective): 1 when its CPU binding lies
 * within one core's processing units, 0 when it may run on several cores (not bound, or bound
 * wider), -1 when hwloc cannot tell. */
int cs_machine_core_bound(void);

/* Fills `m` (collective over `comm`). CS_ERR_MPI on failure; hwloc failure leaves the
 * topology as "unknown" and cores 0. */
int cs_machine_query(cs_machine_t *m, MPI_Comm comm) CS_MUST_CHECK;

#endif

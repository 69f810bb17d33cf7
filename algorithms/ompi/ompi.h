/* The `<coll>/ompi` family: Open MPI's own coll/tuned algorithms as candidates (ompi.c).
 *
 * Whether the family can run here is decided once per question through MPI_T, the same way on
 * every rank (all ranks run one MPI library with one set of MCA variables). */
#ifndef CS_OMPI_H
#define CS_OMPI_H

#include "core/status.h"

#include <stddef.h>

/* 1 when Open MPI's coll/tuned algorithms can be forced per communicator in this process:
 * MPI_T works, coll_tuned_use_dynamic_rules exists and was on at MPI_Init, and
 * coll_tuned_allreduce_algorithm is writable. 0 otherwise, with one line saying why in `why`
 * (len bytes; may be NULL). MPI must be initialised. */
int cs_ompi_available(char *why, size_t len);

#endif

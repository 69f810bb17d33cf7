/* What the two halves of cs_mpi_test share: test_algorithms.c (the classic collectives, and
 * main) and test_neighbor.c (the neighbourhood collectives on topology communicators). */
#ifndef CS_MPI_TEST_H
#define CS_MPI_TEST_H

#include <mpi.h>

typedef struct totals {
    int passed, failed, skipped;
} totals_t;

/* 1 when the algorithm `name` is selected by `only`: NULL selects every algorithm, otherwise a
 * comma-separated list of prefixes ("reduce/,bcast/linear"), of which `name` must start with
 * one (cs_mpi_test --only). */
int cs_test_selected(const char *name, const char *only);

/* Every variant of every registered neighbourhood algorithm selected by `only`
 * (cs_test_selected) against the native collective on topology communicators built over `base`
 * (named `base_name` in the output), and the neighbourhood collectives on `base` itself, which
 * has no topology. `quick`: fewer counts and types. Collective over `base`; results add to *all. */
void cs_test_neighbors(MPI_Comm base, const char *base_name, int quick, const char *only,
                       totals_t *all);

#endif

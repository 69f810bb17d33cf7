/* CHECK(cond, fmt, ...) of the MPI test programs in tests/mpi: when cond is false, one line on
 * stderr naming the rank, the file and the line, then the message; and one more failure counted.
 * The including file defines `rank` (its rank in MPI_COMM_WORLD) and `failures` (an int), and
 * agrees the count at the end. */
#ifndef CS_TEST_RANK_CHECK_H
#define CS_TEST_RANK_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif

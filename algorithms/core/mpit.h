/* Control variables of the MPI library through the MPI tool interface (MPI_T).
 *
 * A thin layer over MPI_T_cvar_*: find a cvar by name, read one as an integer, write an integer
 * one, and list the items of an enumerated one. Used by the tuning run to read protocol
 * thresholds (bench/thresholds.h) and by the `<coll>/ompi` family to discover Open MPI's
 * coll/tuned catalogue and to force its algorithms (algorithms/ompi/ompi.c).
 *
 * Every function here needs MPI_T initialised by the caller (cs_mpit_begin / cs_mpit_end) and
 * works on cvars bound to no MPI object holding one value. All are local (no communication) and
 * never print.
 *
 * Cost rule: the first cs_mpit_begin() initialises MPI_T for the rest of the process and
 * cs_mpit_end() does not finalise it. Open MPI's MPI_T_init_thread opens every component it
 * has (0.2 s here: some, such as the PSM transport's library, sleep in their constructors), and
 * its last MPI_T_finalize closes them all again, so pairs of init and finalize per variant
 * list or setup made the MPI tests 10-20 times slower. */
#ifndef CS_MPIT_H
#define CS_MPIT_H

#include "status.h"

#include <mpi.h>
#include <stdint.h>

/* Longest enumeration item name kept (longer ones are left out). */
#define CS_MPIT_NAME 32

/* One item of an enumerated cvar: its value and its name. */
typedef struct cs_mpit_item {
    int value;
    char name[CS_MPIT_NAME];
} cs_mpit_item_t;

/* Makes sure MPI_T is initialised (MPI_T_init_thread, once per process, thread-safe);
 * CS_ERR_NOT_APPLICABLE when the library refused. Pair every CS_OK with one cs_mpit_end(),
 * which marks the end of the caller's use (and finalises nothing). */
int cs_mpit_begin(void) CS_MUST_CHECK;
void cs_mpit_end(void);

/* The index of cvar `name` in *index; CS_ERR_NOT_APPLICABLE when the library has no such cvar
 * or it is bound to an MPI object. */
int cs_mpit_find(const char *name, int *index) CS_MUST_CHECK;

/* The value of cvar `index` as a positive integer, 0 when it cannot be read as one (not an
 * integer type, more than one value, not positive). */
uint64_t cs_mpit_read_u64(int index);

/* Reads (writes) cvar `index`, which must hold one MPI_INT (Open MPI's int and enumerated
 * variables do) or, for reading, one MPI_C_BOOL (Open MPI's bool variables: 0 or 1);
 * CS_ERR_NOT_APPLICABLE when it is of another type or the library refuses (a read-only
 * variable, or one that can no longer be changed). */
int cs_mpit_read_int(int index, int *value) CS_MUST_CHECK;
int cs_mpit_write_int(int index, int value) CS_MUST_CHECK;

/* The items of enumerated cvar `index`, in the library's order, into items[0..cap-1], their
 * number in *n; CS_ERR_NOT_APPLICABLE when the cvar is not enumerated. Items beyond cap or with
 * longer names are left out. */
int cs_mpit_enum(int index, cs_mpit_item_t *items, int cap, int *n) CS_MUST_CHECK;

#endif

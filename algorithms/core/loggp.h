/* The machine's LogGP parameters for the algorithms that model their cost (the tree balancing
 * of the neighbourhood collectives, topo/balance.h), process-wide.
 *
 * Where they come from (docs/neighbor.md, "LogGP"):
 *   - the selector, when it loads the rules (selector/rules.c): the tuning database's table
 *     loggp for this machine, measured at the processes per node nearest the first
 *     communicator's, broadcast with the rules, so every rank holds the same values;
 *   - collsel-bench, during a tuning run: the values it has just measured (bench/loggp.h),
 *     set on every rank before any candidate is timed;
 *   - otherwise the defaults below, and cs_loggp_current() says so.
 * Units: the database and the bench measure microseconds (L, o, g) and microseconds per byte
 * (G); cs_loggp_t (topo/balance.h) takes one unit of time for all four and block sizes in
 * bytes, so the values pass unchanged: L = l_us, o = o_us, g = g_us, G = g_per_byte_us.
 *
 * An algorithm reads the parameters once per communicator (in its setup, algo.h), so that
 * every rank of the communicator plans with the same values: all ranks hold the same ones
 * (broadcast or measured once and shared), and they change only when the rules are loaded
 * again (collsel_init after collsel_finalize) or a tuning run measures them. Thread-safe. */
#ifndef CS_CORE_LOGGP_H
#define CS_CORE_LOGGP_H

#include "topo/balance.h"

/* The defaults (microseconds; G per byte): a shared-memory MPI on a current CPU. */
#define CS_LOGGP_DEFAULT_L      1.0
#define CS_LOGGP_DEFAULT_O      0.5
#define CS_LOGGP_DEFAULT_G_GAP  0.5
#define CS_LOGGP_DEFAULT_G_BYTE 0.0002

/* Where the current parameters come from. */
typedef enum cs_loggp_source {
    CS_LOGGP_FROM_DEFAULTS, /* nothing stored or measured: the defaults above */
    CS_LOGGP_FROM_DATABASE, /* the tuning database's table loggp, loaded with the rules */
    CS_LOGGP_FROM_BENCH     /* measured by the running collsel-bench */
} cs_loggp_source_t;

/* Writes the current parameters to *out and returns where they come from: 0
 * (CS_LOGGP_FROM_DEFAULTS) when the machine's are unknown and *out holds the defaults,
 * nonzero when they are the machine's. Does not fail; out must not be NULL. */
int cs_loggp_current(cs_loggp_t *out);

/* Makes *l the current parameters, from `source` (not CS_LOGGP_FROM_DEFAULTS); NULL restores
 * the defaults. A value that cs_balance_build would refuse (negative, not finite, o <= 0) is
 * ignored and CS_ERR_ARG returned. */
int cs_loggp_set(const cs_loggp_t *l, cs_loggp_source_t source) CS_MUST_CHECK;

#endif

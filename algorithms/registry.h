/* The algorithm registry: one table built from registry.def.
 *
 * cs_registry[i] for i < cs_registry_count lists every algorithm, natives included, in
 * registry.def order. Tests and the tuning run loop over it, so an algorithm is tested and
 * tuned the moment it is registered. */
#ifndef CS_REGISTRY_H
#define CS_REGISTRY_H

#include "core/algo.h"

extern const cs_algo_t *const cs_registry[];
extern const int cs_registry_count;

/* The algorithm with key `name` ("allreduce/ring"), or NULL. */
const cs_algo_t *cs_registry_find(const char *name);

/* The algorithm `<coll>/<alg>` when it can be a phase of a composite algorithm (orth's `phase`,
 * dpml's `inter`): it has a schedule builder and needs no per-communicator state. NULL
 * otherwise ("native" included: the caller runs the MPI library's collective itself). */
const cs_algo_t *cs_registry_find_phase(cs_coll_t coll, const char *alg);

/* Parses a variant name, "<coll>/<alg>" or "<coll>/<alg>(key=value,...)", into *out (unnamed
 * parameters get their defaults). CS_ERR_ARG with a message in err naming what is wrong:
 * an unknown algorithm, a missing ')', a parameter the algorithm does not take. */
int cs_variant_parse(const char *text, cs_variant_t *out, char *err, size_t errlen) CS_MUST_CHECK;

/* The native algorithm of `coll`; never NULL for a valid collective. */
const cs_algo_t *cs_registry_native(cs_coll_t coll);

#endif

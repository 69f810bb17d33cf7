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

/* The native algorithm of `coll`; never NULL for a valid collective. */
const cs_algo_t *cs_registry_native(cs_coll_t coll);

#endif

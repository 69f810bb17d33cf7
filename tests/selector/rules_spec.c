/* The rules of the selector tests (see rules_spec.h). */
#include "rules_spec.h"

#include <stdio.h>
#include <string.h>

#define INF CS_SPEC_UNBOUNDED

const cs_spec_interval_t cs_spec[] = {
    {"bcast", 0, 1024, {"bcast/binomial", "bcast/native"}, "bcast/binomial bcast/native"},
    /* The winner is unknown to this collsel (a newer one tuned the database): skipped. */
    {"bcast",
     1024,
     65536,
     {"bcast/no_such_algorithm", "bcast/linear", "bcast/native"},
     "bcast/linear bcast/native"},
    {"bcast",
     65536,
     INF,
     {"bcast/scatter_allgather", "bcast/binomial", "bcast/native"},
     "bcast/scatter_allgather bcast/binomial bcast/native"},
    /* Nothing usable but native. */
    {"gather", 0, 256, {"gather/no_such_algorithm", "gather/native"}, "gather/native"},
    {"gather",
     256,
     INF,
     {"gather/binomial", "gather/linear", "gather/native"},
     "gather/binomial gather/linear gather/native"},
    {"scatter", 0, 512, {"scatter/linear", "scatter/native"}, "scatter/linear scatter/native"},
    {"scatter",
     512,
     INF,
     {"scatter/binomial", "scatter/native"},
     "scatter/binomial scatter/native"},
    {"reduce", 0, 64, {"reduce/native"}, "reduce/native"},
    {"reduce", 64, 4096, {"reduce/binomial", "reduce/native"}, "reduce/binomial reduce/native"},
    {"reduce",
     4096,
     INF,
     {"reduce/linear", "reduce/binomial", "reduce/native"},
     "reduce/linear reduce/binomial reduce/native"},
    {"allreduce", 0, 64, {"allreduce/native"}, "allreduce/native"},
    {"allreduce",
     64,
     4096,
     {"allreduce/recursive_doubling", "allreduce/native"},
     "allreduce/recursive_doubling allreduce/native"},
    {"allreduce",
     4096,
     INF,
     {"allreduce/reduce_bcast", "allreduce/recursive_doubling", "allreduce/native"},
     "allreduce/reduce_bcast allreduce/recursive_doubling allreduce/native"},
    {"allgather",
     0,
     128,
     {"allgather/recursive_doubling", "allgather/native"},
     "allgather/recursive_doubling allgather/native"},
    /* A variant with a parameter its algorithm does not take: skipped. */
    {"allgather",
     128,
     INF,
     {"allgather/ring(no_such_parameter=4)", "allgather/ring", "allgather/native"},
     "allgather/ring allgather/native"},
    {"allgatherv", 0, 32, {"allgatherv/native"}, "allgatherv/native"},
    {"allgatherv",
     32,
     8192,
     {"allgatherv/recursive_doubling", "allgatherv/native"},
     "allgatherv/recursive_doubling allgatherv/native"},
    {"allgatherv",
     8192,
     INF,
     {"allgatherv/ring", "allgatherv/recursive_doubling", "allgatherv/native"},
     "allgatherv/ring allgatherv/recursive_doubling allgatherv/native"},
    {"reduce_scatter_block",
     0,
     64,
     {"reduce_scatter_block/recursive_halving", "reduce_scatter_block/native"},
     "reduce_scatter_block/recursive_halving reduce_scatter_block/native"},
    {"reduce_scatter_block",
     64,
     INF,
     {"reduce_scatter_block/ring", "reduce_scatter_block/reduce_scatter",
      "reduce_scatter_block/native"},
     "reduce_scatter_block/ring reduce_scatter_block/reduce_scatter reduce_scatter_block/native"},
    {"reduce_scatter", 0, 32, {"reduce_scatter/native"}, "reduce_scatter/native"},
    {"reduce_scatter",
     32,
     INF,
     {"reduce_scatter/reduce_scatterv", "reduce_scatter/recursive_halving",
      "reduce_scatter/native"},
     "reduce_scatter/reduce_scatterv reduce_scatter/recursive_halving reduce_scatter/native"},
};

const int cs_spec_count = (int)(sizeof(cs_spec) / sizeof(cs_spec[0]));

const char *cs_spec_expected(const char *coll, uint64_t bytes, char *out, int outlen) {
    for (int i = 0; i < cs_spec_count; i++) {
        const cs_spec_interval_t *iv = &cs_spec[i];
        if (strcmp(iv->coll, coll) == 0 && bytes >= iv->lo_bytes && bytes < iv->hi_bytes) {
            snprintf(out, (size_t)outlen, "%.*s", (int)strcspn(iv->expect, " "), iv->expect);
            return out;
        }
    }
    return NULL;
}

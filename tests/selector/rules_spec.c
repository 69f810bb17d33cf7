/* The rules of the selector tests (see rules_spec.h). */
#include "rules_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INF CS_SPEC_UNBOUNDED

const cs_spec_interval_t cs_spec[] = {
    {"bcast", 0, 1024, {"bcast/binomial", "bcast/native"}, "bcast/binomial bcast/native", 0},
    /* The winner is unknown to this collsel (a newer one tuned the database): skipped. */
    {"bcast",
     1024,
     65536,
     {"bcast/no_such_algorithm", "bcast/linear", "bcast/native"},
     "bcast/linear bcast/native",
     0},
    {"bcast",
     65536,
     INF,
     {"bcast/scatter_allgather", "bcast/binomial", "bcast/native"},
     "bcast/scatter_allgather bcast/binomial bcast/native",
     0},
    /* Nothing usable but native. */
    {"gather", 0, 256, {"gather/no_such_algorithm", "gather/native"}, "gather/native", 0},
    {"gather",
     256,
     INF,
     {"gather/binomial", "gather/linear", "gather/native"},
     "gather/binomial gather/linear gather/native",
     0},
    {"scatter", 0, 512, {"scatter/linear", "scatter/native"}, "scatter/linear scatter/native", 0},
    {"scatter",
     512,
     INF,
     {"scatter/binomial", "scatter/native"},
     "scatter/binomial scatter/native",
     0},
    {"reduce", 0, 64, {"reduce/native"}, "reduce/native", 0},
    {"reduce", 64, 4096, {"reduce/binomial", "reduce/native"}, "reduce/binomial reduce/native", 0},
    {"reduce",
     4096,
     INF,
     {"reduce/linear", "reduce/binomial", "reduce/native"},
     "reduce/linear reduce/binomial reduce/native",
     0},
    {"allreduce", 0, 64, {"allreduce/native"}, "allreduce/native", 0},
    {"allreduce",
     64,
     4096,
     {"allreduce/recursive_doubling", "allreduce/native"},
     "allreduce/recursive_doubling allreduce/native",
     0},
    {"allreduce",
     4096,
     INF,
     {"allreduce/reduce_bcast", "allreduce/recursive_doubling", "allreduce/native"},
     "allreduce/reduce_bcast allreduce/recursive_doubling allreduce/native",
     0},
    {"allgather",
     0,
     128,
     {"allgather/recursive_doubling", "allgather/native"},
     "allgather/recursive_doubling allgather/native",
     0},
    /* A variant with a parameter its algorithm does not take: skipped. */
    {"allgather",
     128,
     INF,
     {"allgather/ring(no_such_parameter=4)", "allgather/ring", "allgather/native"},
     "allgather/ring allgather/native",
     0},
    {"allgatherv", 0, 32, {"allgatherv/native"}, "allgatherv/native", 0},
    {"allgatherv",
     32,
     8192,
     {"allgatherv/recursive_doubling", "allgatherv/native"},
     "allgatherv/recursive_doubling allgatherv/native",
     0},
    {"allgatherv",
     8192,
     INF,
     {"allgatherv/ring", "allgatherv/recursive_doubling", "allgatherv/native"},
     "allgatherv/ring allgatherv/recursive_doubling allgatherv/native",
     0},
    {"reduce_scatter_block",
     0,
     64,
     {"reduce_scatter_block/recursive_halving", "reduce_scatter_block/native"},
     "reduce_scatter_block/recursive_halving reduce_scatter_block/native",
     0},
    {"reduce_scatter_block",
     64,
     INF,
     {"reduce_scatter_block/ring", "reduce_scatter_block/reduce_scatter",
      "reduce_scatter_block/native"},
     "reduce_scatter_block/ring reduce_scatter_block/reduce_scatter reduce_scatter_block/native",
     0},
    {"reduce_scatter", 0, 32, {"reduce_scatter/native"}, "reduce_scatter/native", 0},
    {"reduce_scatter",
     32,
     INF,
     {"reduce_scatter/reduce_scatterv", "reduce_scatter/recursive_halving",
      "reduce_scatter/native"},
     "reduce_scatter/reduce_scatterv reduce_scatter/recursive_halving reduce_scatter/native",
     0},
    /* A variant without parameters in the database runs with the defaults (radix=2), and
     * is named so. */
    {"alltoall",
     0,
     64,
     {"alltoall/bruck", "alltoall/native"},
     "alltoall/bruck(radix=2) alltoall/native",
     0},
    {"alltoall",
     64,
     1024,
     {"alltoall/no_such_algorithm", "alltoall/pairwise", "alltoall/native"},
     "alltoall/pairwise alltoall/native",
     0},
    {"alltoall",
     1024,
     INF,
     {"alltoall/linear", "alltoall/bruck", "alltoall/native"},
     "alltoall/linear alltoall/bruck(radix=2) alltoall/native",
     0},
    /* gatherv, scatterv and alltoallv: the key is agreed per call (mean bytes per block), then
     * looked up like any other. */
    {"alltoallv",
     0,
     16,
     {"alltoallv/pairwise", "alltoallv/native"},
     "alltoallv/pairwise alltoallv/native",
     0},
    {"alltoallv",
     16,
     1024,
     {"alltoallv/no_such_algorithm", "alltoallv/linear", "alltoallv/native"},
     "alltoallv/linear alltoallv/native",
     0},
    {"alltoallv",
     1024,
     INF,
     {"alltoallv/pairwise", "alltoallv/linear", "alltoallv/native"},
     "alltoallv/pairwise alltoallv/linear alltoallv/native",
     0},
    /* Barrier's key is always 0: one interval. */
    {"barrier",
     0,
     INF,
     {"barrier/no_such_algorithm", "barrier/dissemination", "barrier/binomial", "barrier/native"},
     "barrier/dissemination barrier/binomial barrier/native",
     0},
    /* Tuned at 4 processes: a 2x2 grid. A communicator of another size whose nearest tuned size
     * is 4 cannot run it and runs the next candidate. */
    {"barrier",
     0,
     INF,
     {"barrier/orth(dims=2x2,phase=dissemination)", "barrier/binomial", "barrier/native"},
     "barrier/orth(dims=2x2,phase=dissemination) barrier/binomial barrier/native",
     4},
    {"scan",
     0,
     64,
     {"scan/no_such_algorithm", "scan/linear", "scan/native"},
     "scan/linear scan/native",
     0},
    {"scan",
     64,
     INF,
     {"scan/recursive_doubling", "scan/linear", "scan/native"},
     "scan/recursive_doubling scan/linear scan/native",
     0},
    {"exscan",
     0,
     32,
     {"exscan/recursive_doubling", "exscan/native"},
     "exscan/recursive_doubling exscan/native",
     0},
    {"exscan",
     32,
     4096,
     {"exscan/linear", "exscan/no_such_algorithm", "exscan/native"},
     "exscan/linear exscan/native",
     0},
    {"exscan", 4096, INF, {"exscan/native"}, "exscan/native", 0},
    {"gatherv", 0, 8, {"gatherv/binomial", "gatherv/native"}, "gatherv/binomial gatherv/native", 0},
    {"gatherv",
     8,
     512,
     {"gatherv/no_such_algorithm", "gatherv/linear", "gatherv/native"},
     "gatherv/linear gatherv/native",
     0},
    {"gatherv",
     512,
     INF,
     {"gatherv/binomial", "gatherv/linear", "gatherv/native"},
     "gatherv/binomial gatherv/linear gatherv/native",
     0},
    {"scatterv",
     0,
     16,
     {"scatterv/linear", "scatterv/native"},
     "scatterv/linear scatterv/native",
     0},
    {"scatterv",
     16,
     256,
     {"scatterv/binomial", "scatterv/no_such_algorithm", "scatterv/native"},
     "scatterv/binomial scatterv/native",
     0},
    /* Native at some sizes only: every call still agrees on its key first. */
    {"scatterv", 256, INF, {"scatterv/native"}, "scatterv/native", 0},
};

const int cs_spec_count = (int)(sizeof(cs_spec) / sizeof(cs_spec[0]));

int cs_spec_applies(const cs_spec_interval_t *iv, int comm_size) {
    if (iv->comm_size != 0) {
        return iv->comm_size == comm_size;
    }
    for (int i = 0; i < cs_spec_count; i++) {
        if (cs_spec[i].comm_size == comm_size && strcmp(cs_spec[i].coll, iv->coll) == 0) {
            return 0; /* this size has intervals of its own */
        }
    }
    return 1;
}

const cs_spec_interval_t *cs_spec_find(const char *coll, uint64_t bytes, int tuned) {
    for (int i = 0; i < cs_spec_count; i++) {
        const cs_spec_interval_t *iv = &cs_spec[i];
        if (strcmp(iv->coll, coll) == 0 && bytes >= iv->lo_bytes && bytes < iv->hi_bytes &&
            cs_spec_applies(iv, tuned)) {
            return iv;
        }
    }
    return NULL;
}

/* 1 when the variant named by word[0..len) can run on nprocs processes: its dims, if it has
 * any, multiply to nprocs. */
static int fits(const char *word, size_t len, int nprocs) {
    const char *dims = strstr(word, "dims=");
    long product = 1;
    if (dims == NULL || (size_t)(dims - word) >= len) {
        return 1;
    }
    dims += strlen("dims=");
    while (1) {
        char *end;
        product *= strtol(dims, &end, 10);
        if (*end != 'x') {
            break;
        }
        dims = end + 1;
    }
    return product == nprocs;
}

int cs_spec_grid(int size, int *a, int *b) {
    for (int f = 2; f * f <= size; f++) {
        if (size % f == 0) {
            *a = f;
            *b = size / f;
            return 1;
        }
    }
    return 0;
}

const char *cs_spec_ranked(const cs_spec_interval_t *iv, int tuned, int grids, char *out,
                           int outlen) {
    int a, b;
    if (grids && strcmp(iv->coll, "allreduce") == 0 && cs_spec_grid(tuned, &a, &b)) {
        /* explain names the variant with its parameters' defaults filled in */
        snprintf(out, (size_t)outlen, "allreduce/orth(dims=%dx%d,phase=native) %s", a, b,
                 iv->expect);
    } else {
        snprintf(out, (size_t)outlen, "%s", iv->expect);
    }
    return out;
}

const char *cs_spec_expected(const char *coll, uint64_t bytes, int tuned, int grids, int nprocs,
                             char *out, int outlen) {
    const cs_spec_interval_t *iv = cs_spec_find(coll, bytes, tuned);
    char ranked[512];
    const char *word;
    size_t len;
    if (iv == NULL) {
        return NULL;
    }
    word = cs_spec_ranked(iv, tuned, grids, ranked, sizeof(ranked));
    len = strcspn(word, " ");
    while (nprocs > 0 && !fits(word, len, nprocs) && word[len] == ' ') {
        word += len + 1;
        len = strcspn(word, " ");
    }
    snprintf(out, (size_t)outlen, "%.*s", (int)len, word);
    return out;
}

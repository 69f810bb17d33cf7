/* Orthogonal processor grids: parameters, variants, setup and phases (see orth.h). */
#include "orth.h"

#include "registry.h"

#include <string.h>

const cs_param_spec_t cs_orth_params[CS_ORTH_NPARAMS] = {
    {"dims", "grid layout d0xd1 or d0xd1xd2 (d0 consecutive ranks per row); auto: squarest 2D",
     "auto"},
    {"phase", "algorithm on the rows/columns: native, or <alg> of a registered <coll>/<alg>",
     "native"},
};

/* The grid of the `dims` parameter for nprocs processes; CS_ERR_NOT_APPLICABLE when there is
 * none (a prime nprocs for auto, a product other than nprocs, not 2 or 3 factors). */
static int layout(const cs_params_t *params, int nprocs, cs_topo_grid_t *g) {
    const char *text = cs_params_get(params, "dims");
    int dims[CS_TOPO_MAX_DIMS];
    int n;
    if (text == NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    if (strcmp(text, "auto") == 0) {
        dims[0] = 0;
        for (int d = 2; d <= nprocs / d; d++) {
            if (nprocs % d == 0) {
                dims[0] = d;
            }
        }
        dims[1] = dims[0] > 0 ? nprocs / dims[0] : 0;
        n = 2;
    } else {
        n = cs_topo_dims_parse(text, dims, CS_TOPO_MAX_DIMS);
    }
    if (n < 2 || cs_topo_grid_init(g, dims, n) != 0 || cs_topo_grid_size(g) != nprocs) {
        return CS_ERR_NOT_APPLICABLE;
    }
    return CS_OK;
}

int cs_orth_init(cs_orth_t *o, const cs_call_t *c, const cs_params_t *params) {
    int rc = CS_OK;
    const char *phase = cs_params_get(params, "phase");
    memset(o, 0, sizeof(*o));
    o->tmp.op = MPI_OP_NULL;
    o->rank = c->rank;
    CS_CHECK(layout(params, c->nprocs, &o->grid));
    CS_REQUIRE(phase != NULL, CS_ERR_NOT_APPLICABLE);
    if (strcmp(phase, "native") != 0) {
        o->phase = cs_registry_find_phase(c->coll, phase);
        CS_REQUIRE(o->phase != NULL, CS_ERR_NOT_APPLICABLE);
    }
out:
    return rc;
}

void cs_orth_free(cs_orth_t *o) {
    cs_sched_free(&o->tmp);
}

int cs_orth_active(const cs_orth_t *o, int root, int k) {
    return o->rank % o->grid.stride[k] == root % o->grid.stride[k];
}

int cs_orth_root_dim(const cs_orth_t *o, int root) {
    for (int k = 0; k < o->grid.ndims; k++) {
        if (cs_topo_grid_coord(&o->grid, o->rank, k) != cs_topo_grid_coord(&o->grid, root, k)) {
            return k;
        }
    }
    return o->grid.ndims;
}

void cs_orth_subcall(const cs_orth_t *o, const cs_call_t *c, int k, int root, cs_call_t *sub) {
    *sub = *c;
    sub->rank = cs_topo_grid_coord(&o->grid, o->rank, k);
    sub->nprocs = o->grid.dims[k];
    sub->root = root;
    sub->recvcounts = NULL;
    sub->displs = NULL;
    sub->in_place = 0;
}

int cs_orth_phase(cs_sched_t *s, cs_orth_t *o, int k, const cs_call_t *sub, cs_ref_t send,
                  cs_ref_t recv, int in_place) {
    int rc = CS_OK;
    cs_group_t g;
    g.base = cs_topo_grid_line_base(&o->grid, o->rank, k);
    g.stride = o->grid.stride[k];
    g.size = o->grid.dims[k];
    CS_CHECK(cs_sched_round(s));
    if (o->phase == NULL) {
        cs_coll_op_t c;
        memset(&c, 0, sizeof(c));
        c.coll = sub->coll;
        c.group = g;
        c.comm = k;
        c.root = sub->root;
        c.in_place = in_place;
        c.send = send;
        c.sendcount = sub->sendcount;
        c.sendtype = sub->send.type;
        c.recv = recv;
        c.recvcount = sub->recvcount;
        c.recvtype = sub->recv.type;
        CS_CHECK(cs_sched_coll(s, &c, sub->recvcounts, sub->displs));
        CS_CHECK(cs_sched_round(s));
    } else {
        CS_CHECK(cs_algo_applicable(o->phase, sub));
        CS_CHECK(cs_algo_build(o->phase, NULL, sub, &o->tmp));
        CS_CHECK(cs_sched_append(s, &o->tmp, g, send, recv));
    }
out:
    return rc;
}

int cs_orth_variants(int nprocs, const char *p2p, cs_params_t *out, int cap, int *n) {
    int rc = CS_OK;
    const char *phases[2] = {"native", p2p};
    int layouts[CS_MAX_VARIANTS * CS_TOPO_MAX_DIMS];
    int max = CS_MAX_VARIANTS;
    *n = 0;
    for (int nd = 2; nd <= CS_TOPO_MAX_DIMS; nd++) {
        int count = cs_topo_layouts(nprocs, nd, layouts, max);
        CS_REQUIRE(count <= max && *n + 2 * count <= cap, CS_ERR_NOMEM);
        for (int l = 0; l < count; l++) {
            char dims[CS_PARAM_VALUE];
            cs_topo_dims_format(&layouts[l * nd], nd, dims, sizeof(dims));
            for (int ph = 0; ph < 2; ph++) {
                cs_params_defaults(cs_orth_params, CS_ORTH_NPARAMS, &out[*n]);
                CS_CHECK(cs_params_set(&out[*n], "dims", dims));
                CS_CHECK(cs_params_set(&out[*n], "phase", phases[ph]));
                (*n)++;
            }
        }
    }
out:
    return rc;
}

int cs_orth_setup(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {
    int rc = CS_OK;
    cs_topo_grid_t g;
    const char *phase = cs_params_get(params, "phase");
    CS_CHECK(layout(params, ctx->nprocs, &g));
    if (phase != NULL && strcmp(phase, "native") == 0) {
        for (int k = 0; k < g.ndims; k++) {
            CS_CHECK(cs_comm_line(ctx, g.stride[k], g.dims[k], &state->comms[k]));
        }
        state->ncomms = g.ndims;
    }
out:
    return rc;
}

/* neighbor_allgather/iso_torus: message combining over the torus, dimension by dimension, for
 * an isomorphic neighbourhood; and the executor side of every iso_* algorithm.
 *
 * Reference: Träff, Carpen-Amarie, Hunold and Rougier, "Message-Combining Algorithms for
 * Isomorphic, Sparse Collective Communication", section 3 (propositions 1 and 2, figure 1, the
 * prefix trie for allgather) and section 3.3 (zero-copy). The schedule itself, the same on every
 * process and computed locally, is topo/iso.c (cs_iso_build, CS_ISO_TORUS); this file turns it
 * into rounds of the engine. docs/message-combining.md has the formulas and step tables.
 * Requirements: an isomorphic neighbourhood (core/isocomm.h): a Cartesian communicator periodic
 * in every dimension (MPI_Neighbor_allgather on it: s = 2d, offsets -e_j, +e_j), or one made by
 * collsel_iso_neighborhood_create; setup returns CS_ERR_NOT_APPLICABLE on every rank otherwise,
 * locally (no communication). Blocks of one size in bytes (checked on this rank: the call's
 * send block and every receive block).
 * Rounds and volume (one message each way per round): D = sum over j of (largest positive and
 * largest negative coordinate of the offsets in dimension j), V = the trie's hop count; on the
 * 8-neighbour 2D Moore stencil D = 4 (against 8 for the straightforward schedule), V = 8.
 * Cost: D (alpha + m_k beta) with m_k the blocks of round k, against s (alpha + n beta): the
 * latency term shrinks from s to D, the volume grows from s to V blocks.
 * Parameter `form`: `packed` copies the parts of a round into one contiguous scratch message and
 * out of the received one (a round of one part is sent and received in place, uncopied);
 * `zerocopy` describes each round's parts, wherever they lie (send, receive or intermediate
 * buffer), as one multi-part message (core/sched.h cs_sched_sendv: one struct datatype, built
 * once for a buffer set and reused) and copies nothing but the final local copies (the zero
 * offset's block, repeated offsets). Which wins depends on the machine and the block size.
 *
 *   2D torus 3 x 3, von Neumann offsets (-1,0) (1,0) (0,-1) (0,1), allgather (each rank's block X):
 *   round 0  send X to R + (1,0)   recv from R - (1,0) the block of offset (1,0)
 *   round 1  send X to R - (1,0)   recv the block of offset (-1,0)
 *   round 2  send X to R + (0,1)   recv the block of offset (0,1)
 *   round 3  send X to R - (0,1)   recv the block of offset (0,-1)
 *   (the trie's dimension-0 children have value 0 in dimension 1: no block is forwarded; on the
 *   Moore stencil the corner blocks ride on the dimension-1 messages of rounds 2 and 3)
 */
#include "builders.h"
#include "core/comm.h"
#include "core/edges.h"
#include "core/isocomm.h"

#include <stdlib.h>
#include <string.h>

const cs_param_spec_t cs_neighbor_iso_params[1] = {
    {"form", "packed: copy each round's parts into one buffer; zerocopy: one struct datatype",
     "packed"},
};

int cs_neighbor_iso_variants(int nprocs, int ppn, cs_params_t *out, int cap, int *n) {
    static const char *const forms[] = {"packed", "zerocopy"};
    int rc = CS_OK;
    (void)nprocs;
    (void)ppn;
    *n = 0;
    for (int k = 0; k < (int)(sizeof(forms) / sizeof(forms[0])); k++) {
        CS_REQUIRE(*n < cap, CS_ERR_NOMEM);
        cs_params_defaults(cs_neighbor_iso_params, 1, &out[*n]);
        CS_CHECK(cs_params_set(&out[*n], "form", forms[k]));
        (*n)++;
    }
out:
    return rc;
}

int cs_neighbor_iso_setup(cs_comm_t *ctx, const cs_params_t *params, cs_state_t *state) {
    int rc = CS_OK;
    cs_isocomm_t *iso = calloc(1, sizeof(*iso));
    (void)params;
    CS_REQUIRE(iso != NULL, CS_ERR_NOMEM);
    CS_CHECK(cs_isocomm_get(ctx->comm, iso));
    state->priv = iso;
    iso = NULL;
out:
    free(iso);
    return rc;
}

void cs_neighbor_iso_teardown(cs_state_t *state) {
    cs_isocomm_free(state->priv);
    free(state->priv);
    state->priv = NULL;
}

/* Where the blocks of one call lie: block i of each buffer (send, receive, intermediate). */
typedef struct iso_blocks {
    const cs_call_t *c;
    const cs_isocomm_t *iso;
    int gather;       /* allgather-type: one send block, every block of the send block's size */
    cs_ref_t *inter;  /* [inter_blocks] */
    int *inter_count; /* [inter_blocks]: elements of the receive type */
    /* The type of send block i, receive block i (isomorphic order) and intermediate block i:
     * the call's send and receive types, or for alltoallw each edge's (in wtypes). */
    const cs_type_t **st, **rt, **it;
    cs_type_t *wtypes;
} iso_blocks_t;

/* The edge of the receive buffer that holds isomorphic block i. */
static cs_edge_t recv_edge(const iso_blocks_t *b, int i) {
    return cs_edges_in(b->c, b->iso->recv_flip ? i ^ 1 : i);
}

/* Block `blk`: its reference, count and type (the call's send or receive type), and its count
 * in elements of the receive type (the size of the receive block it becomes). */
static void block(const iso_blocks_t *b, cs_iso_block_t blk, cs_ref_t *ref, int *count,
                  const cs_type_t **t, int *rcount) {
    cs_edge_t e;
    if (blk.buf == CS_ISO_BUF_INTER) {
        *ref = b->inter[blk.index];
        *count = *rcount = b->inter_count[blk.index];
        *t = b->it[blk.index];
        return;
    }
    if (blk.buf == CS_ISO_BUF_SEND) {
        e = cs_edges_out(b->c, b->gather ? 0 : blk.index);
        *t = b->st[b->gather ? 0 : blk.index];
        *rcount = recv_edge(b, b->gather ? 0 : blk.index).count;
    } else {
        e = recv_edge(b, blk.index);
        *t = b->rt[blk.index];
        *rcount = e.count;
    }
    *ref = e.buf;
    *count = e.count;
}

/* Fills b's block types (alltoallw: each edge's, queried) and checks that the call is one the
 * iso schedules serve: s edges each way, each send block the size in bytes of the receive block
 * of the same isomorphic index (allgather: of every receive block); alltoallw only zero-copy
 * (a packed message needs one type). CS_ERR_NOT_APPLICABLE otherwise; CS_ERR_NOMEM. */
static int set_types(iso_blocks_t *b, int zerocopy) {
    int rc = CS_OK, s = b->iso->nbh.s, w = b->c->coll == CS_COLL_NEIGHBOR_ALLTOALLW;
    const cs_call_t *c = b->c;
    CS_REQUIRE(c->nbrs != NULL && c->nbrs->outdegree == s && c->nbrs->indegree == s &&
                   c->nprocs == b->iso->nbh.p && (!w || zerocopy),
               CS_ERR_NOT_APPLICABLE);
    b->st = malloc(sizeof(*b->st) * (size_t)(s + 1));
    b->rt = malloc(sizeof(*b->rt) * (size_t)(s + 1));
    b->wtypes = w ? malloc(sizeof(cs_type_t) * (size_t)(2 * s + 1)) : NULL;
    CS_REQUIRE(b->st != NULL && b->rt != NULL && (!w || b->wtypes != NULL), CS_ERR_NOMEM);
    for (int i = 0; i < s; i++) {
        cs_edge_t out = cs_edges_out(c, b->gather ? 0 : i), in = recv_edge(b, i);
        b->st[i] = &c->send;
        b->rt[i] = &c->recv;
        if (w) {
            CS_CHECK(cs_type_init(&b->wtypes[2 * i], out.type));
            CS_CHECK(cs_type_init(&b->wtypes[2 * i + 1], in.type));
            b->st[i] = &b->wtypes[2 * i];
            b->rt[i] = &b->wtypes[2 * i + 1];
        }
        CS_REQUIRE((MPI_Aint)out.count * b->st[i]->size == (MPI_Aint)in.count * b->rt[i]->size,
                   CS_ERR_NOT_APPLICABLE);
    }
out:
    return rc;
}

/* Receive-type elements of the parts of round k of sc. */
static MPI_Aint round_elems(const iso_blocks_t *b, const cs_iso_sched_t *sc, int k) {
    MPI_Aint total = 0;
    for (int q = sc->part_start[k]; q < sc->part_start[k + 1]; q++) {
        cs_ref_t ref;
        int cnt, rcnt;
        const cs_type_t *t;
        block(b, sc->send[q], &ref, &cnt, &t, &rcnt);
        total += rcnt;
    }
    return total;
}

/* Appends the copies of the parts [q0, q1) between their blocks and a contiguous message of the
 * receive type at `msg`: into it (out = 0, the send side) or out of it (out = 1). */
static int copy_parts(cs_sched_t *s, const iso_blocks_t *b, const cs_iso_block_t *blks, int q0,
                      int q1, cs_ref_t msg, int out) {
    int rc = CS_OK;
    const cs_type_t *rt = &b->c->recv;
    MPI_Aint at = 0;
    for (int q = q0; q < q1; q++) {
        cs_ref_t ref;
        int cnt, rcnt;
        const cs_type_t *t;
        block(b, blks[q], &ref, &cnt, &t, &rcnt);
        if (out) {
            CS_CHECK(cs_sched_copy(s, cs_ref_at(msg, at, rt), rcnt, rt, ref, cnt, t));
        } else {
            CS_CHECK(cs_sched_copy(s, ref, cnt, t, cs_ref_at(msg, at, rt), rcnt, rt));
        }
        at += rcnt;
    }
out:
    return rc;
}

/* The rounds of `sc`, packed form: the parts of round k are copied into `pack` at the end of
 * round k - 1 (in a round of their own for k = 0), sent as one message of the receive type,
 * received into `unpack` and copied out at the end of round k. A round of one part is sent
 * from and received into its blocks, uncopied. */
static int append_packed(cs_sched_t *s, const iso_blocks_t *b, const cs_iso_sched_t *sc,
                         const int *to, const int *from, cs_ref_t pack, cs_ref_t unpack) {
    int rc = CS_OK;
    const cs_type_t *rt = &b->c->recv;
    for (int k = 0; k < sc->nrounds; k++) {
        int q0 = sc->part_start[k], q1 = sc->part_start[k + 1];
        if (q1 - q0 > 1) {
            CS_CHECK(copy_parts(s, b, sc->send, q0, q1, pack, 0));
        }
        CS_CHECK(cs_sched_round(s));
        if (q1 - q0 == 1) {
            cs_ref_t sref, rref;
            int scnt, rcnt, x;
            const cs_type_t *st, *rtt;
            block(b, sc->send[q0], &sref, &scnt, &st, &x);
            block(b, sc->recv[q0], &rref, &rcnt, &rtt, &x);
            CS_CHECK(cs_sched_recv(s, from[k], rref, rcnt, rtt));
            CS_CHECK(cs_sched_send(s, to[k], sref, scnt, st));
        } else if (q1 - q0 > 1) {
            MPI_Aint total = round_elems(b, sc, k);
            CS_REQUIRE(total <= 0x7fffffff, CS_ERR_NOT_APPLICABLE);
            CS_CHECK(cs_sched_recv(s, from[k], unpack, (int)total, rt));
            CS_CHECK(cs_sched_send(s, to[k], pack, (int)total, rt));
            CS_CHECK(copy_parts(s, b, sc->recv, q0, q1, unpack, 1));
        }
    }
out:
    return rc;
}

/* The rounds of `sc`, zero-copy form: each message is one multi-part send and receive
 * (core/sched.h cs_sched_sendv, cs_sched_recvv) over the blocks where they lie; a round of
 * one part is a plain send and receive. `work` holds the largest round's parts. */
static int append_zerocopy(cs_sched_t *s, const iso_blocks_t *b, const cs_iso_sched_t *sc,
                           const int *to, const int *from, cs_part_t *work) {
    int rc = CS_OK;
    for (int k = 0; k < sc->nrounds; k++) {
        int q0 = sc->part_start[k], q1 = sc->part_start[k + 1];
        CS_CHECK(cs_sched_round(s));
        for (int side = 1; side >= 0 && q1 > q0; side--) { /* receive first, then send */
            const cs_iso_block_t *blks = side ? sc->recv : sc->send;
            for (int q = q0; q < q1; q++) {
                const cs_type_t *t;
                int x;
                block(b, blks[q], &work[q - q0].buf, &work[q - q0].count, &t, &x);
                work[q - q0].type = t->type;
            }
            if (q1 - q0 == 1) {
                CS_CHECK(
                    side ? cs_sched_recv_raw(s, from[k], work[0].buf, work[0].count, work[0].type)
                         : cs_sched_send_raw(s, to[k], work[0].buf, work[0].count, work[0].type));
            } else {
                CS_CHECK(side ? cs_sched_recvv(s, from[k], work, q1 - q0)
                              : cs_sched_sendv(s, to[k], work, q1 - q0));
            }
        }
    }
out:
    return rc;
}

/* The final local copies of sc (the zero offset's block, repeated offsets). */
static int append_copies(cs_sched_t *s, const iso_blocks_t *b, const cs_iso_sched_t *sc) {
    int rc = CS_OK;
    for (int k = 0; k < sc->ncopies; k++) {
        cs_ref_t src, dst;
        int scnt, dcnt, x;
        const cs_type_t *st, *dt;
        block(b, sc->copy_src[k], &src, &scnt, &st, &x);
        block(b, sc->copy_dst[k], &dst, &dcnt, &dt, &x);
        CS_CHECK(cs_sched_copy(s, src, scnt, st, dst, dcnt, dt));
    }
out:
    return rc;
}

/* 1 for an alltoallw call whose send blocks are all one block (collsel_iso's allgatherw): the
 * allgather schedules serve it. */
static int same_send_blocks(const cs_call_t *c) {
    if (c->coll != CS_COLL_NEIGHBOR_ALLTOALLW || c->nbrs == NULL || c->nbrs->outdegree < 1) {
        return 0;
    }
    cs_edge_t e0 = cs_edges_out(c, 0);
    for (int i = 1; i < c->nbrs->outdegree; i++) {
        cs_edge_t e = cs_edges_out(c, i);
        if (e.buf.slot != e0.buf.slot || e.buf.off != e0.buf.off || e.count != e0.count ||
            e.type != e0.type) {
            return 0;
        }
    }
    return 1;
}

/* The iso schedule of `kind` for call c on the state's neighbourhood. */
static int build_iso(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params,
                     cs_iso_kind_t kind) {
    int rc = CS_OK;
    const cs_isocomm_t *iso = s->state != NULL ? s->state->priv : NULL;
    const char *form = params != NULL ? cs_params_get(params, "form") : NULL;
    int gather = c->coll == CS_COLL_NEIGHBOR_ALLGATHER || c->coll == CS_COLL_NEIGHBOR_ALLGATHERV ||
                 same_send_blocks(c);
    cs_iso_sched_t sc = {0};
    iso_blocks_t b = {c, iso, gather, NULL, NULL, NULL, NULL, NULL, NULL};
    int *to = NULL, *from = NULL;
    MPI_Aint most = 0;
    /* (straightforward's rounds are all of one part, sent uncopied either way) */
    int most_parts = 1, zerocopy = (form != NULL && strcmp(form, "zerocopy") == 0) ||
                                   kind == CS_ISO_STRAIGHTFORWARD;
    cs_part_t *work = NULL;
    cs_ref_t pack = {0}, unpack = {0};
    CS_REQUIRE(iso != NULL && cs_coll_is_neighbor(c->coll), CS_ERR_NOT_APPLICABLE);
    CS_CHECK(set_types(&b, zerocopy));
    CS_CHECK(cs_iso_build(&iso->nbh, gather ? CS_ISO_ALLGATHER : CS_ISO_ALLTOALL, kind, &sc));
    to = malloc(sizeof(int) * (size_t)(sc.nrounds + 1));
    from = malloc(sizeof(int) * (size_t)(sc.nrounds + 1));
    b.inter = malloc(sizeof(cs_ref_t) * (size_t)(sc.inter_blocks + 1));
    b.inter_count = malloc(sizeof(int) * (size_t)(sc.inter_blocks + 1));
    b.it = malloc(sizeof(*b.it) * (size_t)(sc.inter_blocks + 1));
    CS_REQUIRE(to != NULL && from != NULL && b.inter != NULL && b.inter_count != NULL &&
                   b.it != NULL,
               CS_ERR_NOMEM);
    for (int i = 0; i < sc.inter_blocks; i++) { /* block i's (allgather: the one block's) */
        b.inter_count[i] = recv_edge(&b, gather ? 0 : i).count;
        b.it[i] = b.rt[gather ? 0 : i];
        CS_CHECK(cs_sched_scratch(s, b.inter_count[i], b.it[i], &b.inter[i]));
    }
    for (int k = 0; k < sc.nrounds; k++) {
        to[k] = cs_iso_shift(&iso->nbh, c->rank, sc.offset + (size_t)k * sc.d, 1);
        from[k] = cs_iso_shift(&iso->nbh, c->rank, sc.offset + (size_t)k * sc.d, -1);
        MPI_Aint e = round_elems(&b, &sc, k);
        most = e > most ? e : most;
        int parts = sc.part_start[k + 1] - sc.part_start[k];
        most_parts = parts > most_parts ? parts : most_parts;
    }
    if (zerocopy) {
        work = malloc(sizeof(cs_part_t) * (size_t)most_parts);
        CS_REQUIRE(work != NULL, CS_ERR_NOMEM);
        CS_CHECK(append_zerocopy(s, &b, &sc, to, from, work));
    } else {
        CS_CHECK(cs_sched_scratch(s, most, &c->recv, &pack));
        CS_CHECK(cs_sched_scratch(s, most, &c->recv, &unpack));
        CS_CHECK(append_packed(s, &b, &sc, to, from, pack, unpack));
    }
    CS_CHECK(append_copies(s, &b, &sc));
out:
    cs_iso_sched_free(&sc);
    free(to);
    free(from);
    free(b.inter);
    free(b.inter_count);
    free(b.st);
    free(b.rt);
    free(b.it);
    free(b.wtypes);
    free(work);
    return rc;
}

int cs_build_neighbor_iso_torus(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    return build_iso(s, c, params, CS_ISO_TORUS);
}

int cs_build_neighbor_iso_direct(cs_sched_t *s, const cs_call_t *c, const cs_params_t *params) {
    return build_iso(s, c, params, CS_ISO_DIRECT);
}

int cs_build_neighbor_iso_straightforward(cs_sched_t *s, const cs_call_t *c,
                                          const cs_params_t *params) {
    return build_iso(s, c, params, CS_ISO_STRAIGHTFORWARD);
}

const cs_algo_t cs_algo_neighbor_allgather_iso_torus = {
    .name = "neighbor_allgather/iso_torus",
    .coll = CS_COLL_NEIGHBOR_ALLGATHER,
    .desc = "isomorphic message combining, dimension-wise over immediate torus neighbours",
    .params = cs_neighbor_iso_params,
    .nparams = 1,
    .variants = cs_neighbor_iso_variants,
    .build = cs_build_neighbor_iso_torus,
    .setup = cs_neighbor_iso_setup,
    .teardown = cs_neighbor_iso_teardown,
};

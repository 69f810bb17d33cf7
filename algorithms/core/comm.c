/* Per-communicator context cached with an attribute keyval (see comm.h). */
#include "comm.h"

#include "loggp.h"

#include "algo.h"
#include "log.h"
#include "machine.h"
#include "nb.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int keyval = MPI_KEYVAL_INVALID;

/* The node layouts that contexts share (comm.h, "Sharing"): every shared layout, in use or
 * kept, and how many of them are kept. Changed only under cache_lock; it is touched only below
 * MPI_THREAD_MULTIPLE (nothing is shared above), but serialised threads may take turns. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cs_comm_node_t *cache;
static int cache_kept;

/* Frees the window of layout n (collective over its node). */
static void window_free(cs_comm_node_t *n) {
    if (n->win != MPI_WIN_NULL) {
        PMPI_Win_unlock_all(n->win);
        PMPI_Win_free(&n->win);
    }
    n->win_base = NULL;
    n->win_half = 0;
}

static void node_free(cs_comm_node_t *n) {
    if (n == NULL) {
        return;
    }
    while (n->spare != NULL) { /* in number order, the same on every rank */
        cs_comm_node_t *s = n->spare;
        n->spare = s->next;
        s->next = NULL;
        node_free(s);
    }
    while (n->leaders != NULL) {
        cs_comm_leaders_t *ld = n->leaders;
        n->leaders = ld->next;
        if (ld->comm != MPI_COMM_NULL) {
            PMPI_Comm_free(&ld->comm);
        }
        free(ld);
    }
    window_free(n);
    if (n->comm != MPI_COMM_NULL) {
        PMPI_Comm_free(&n->comm);
    }
    free(n->domain);
    free(n->world);
    free(n);
}

/* Unlinks n from the cache (under cache_lock). */
static void cache_unlink(cs_comm_node_t *n) {
    for (cs_comm_node_t **at = &cache; *at != NULL; at = &(*at)->next) {
        if (*at == n) {
            *at = n->next;
            n->next = NULL;
            return;
        }
    }
}

/* A context lets go of its node layout: a private one is freed; a shared one when this was its
 * last user and it is not kept; a kept one loses a window larger than CS_NODE_KEEP_WINDOW. Every
 * rank of the group releases its entry at the same point of the entry's history (its last user
 * is freed on every rank), so the collective frees match even when ranks free the group's
 * communicators in different orders. */
static void node_release(cs_comm_node_t *n) {
    int last;
    if (n == NULL) {
        return;
    }
    if (!n->shared) {
        node_free(n);
        return;
    }
    pthread_mutex_lock(&cache_lock);
    last = --n->users == 0;
    if (last && !n->keep) {
        cache_unlink(n);
    }
    pthread_mutex_unlock(&cache_lock);
    if (last && !n->keep) {
        cs_log(CS_LOG_DEBUG, "node resources of %d ranks freed with their last communicator",
               n->nodes.nprocs);
        node_free(n);
    } else if (last && n->win_half > CS_NODE_KEEP_WINDOW) {
        window_free(n); /* the same on every rank of the node: it grows collectively */
    }
}

/* A context lets go of its operations' layout (comm.h, "Operations' node resources"): back to
 * its group's spare ones, in number order, or freed when it has no number. Local. */
static void own_release(cs_comm_t *ctx) {
    cs_comm_node_t *n = ctx->own, **at;
    ctx->own = NULL;
    if (n == NULL) {
        return;
    }
    if (n->id < 0 || ctx->node == NULL) {
        node_free(n); /* collective over the node: the same order of frees on every rank */
        return;
    }
    pthread_mutex_lock(&cache_lock);
    for (at = &ctx->node->spare; *at != NULL && (*at)->id < n->id; at = &(*at)->next) {
    }
    n->next = *at;
    *at = n;
    pthread_mutex_unlock(&cache_lock);
}

/* Orders kept layouts alike on every rank: by group size, world ranks, emulated node size. */
static int node_order(const void *a, const void *b) {
    const cs_comm_node_t *x = *(cs_comm_node_t *const *)a, *y = *(cs_comm_node_t *const *)b;
    if (x->nodes.nprocs != y->nodes.nprocs) {
        return x->nodes.nprocs < y->nodes.nprocs ? -1 : 1;
    }
    for (int i = 0; i < x->nodes.nprocs; i++) {
        if (x->world[i] != y->world[i]) {
            return x->world[i] < y->world[i] ? -1 : 1;
        }
    }
    return x->emulate < y->emulate ? -1 : x->emulate > y->emulate;
}

/* At MPI_Finalize: frees the cached layouts no context uses, in node_order, so that every rank
 * frees the windows it shares with others in the same order (MPI_Win_free synchronises the
 * node). Layouts that contexts of never freed communicators still use stay, like them. */
static void cache_free_unused(void) {
    cs_comm_node_t **unused = NULL;
    int n = 0;
    pthread_mutex_lock(&cache_lock);
    for (cs_comm_node_t *e = cache; e != NULL; e = e->next) {
        n += e->users == 0;
    }
    unused = n > 0 ? malloc((size_t)n * sizeof(*unused)) : NULL;
    n = 0;
    for (cs_comm_node_t **at = &cache; unused != NULL && *at != NULL;) {
        cs_comm_node_t *e = *at;
        if (e->users == 0) {
            *at = e->next;
            e->next = NULL;
            unused[n++] = e;
            cache_kept -= e->keep;
        } else {
            at = &e->next;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    if (n > 0) {
        qsort(unused, (size_t)n, sizeof(*unused), node_order);
        cs_log(CS_LOG_DEBUG, "%d cached node resources freed at MPI_Finalize", n);
    }
    for (int i = 0; i < n; i++) {
        node_free(unused[i]);
    }
    free(unused);
}

static void context_free(cs_comm_t *ctx) {
    if (ctx == NULL) {
        return;
    }
    if (ctx->selector_free != NULL) {
        ctx->selector_free(ctx->selector);
    }
    while (ctx->states != NULL) {
        cs_comm_state_t *st = ctx->states;
        ctx->states = st->next;
        if (!st->refused && st->algo->teardown != NULL) {
            st->algo->teardown(&st->state);
        }
        free(st);
    }
    while (ctx->lines != NULL) {
        cs_comm_line_t *l = ctx->lines;
        ctx->lines = l->next;
        if (l->comm != MPI_COMM_NULL) {
            PMPI_Comm_free(&l->comm);
        }
        free(l);
    }
    own_release(ctx); /* before the shared layout, which keeps it */
    node_release(ctx->node);
    free(ctx->world);
    free(ctx->agreed);
    if (ctx->comm != MPI_COMM_NULL) {
        PMPI_Comm_free(&ctx->comm);
    }
    for (int i = 0; i < CS_COMM_SCHEDS; i++) {
        cs_sched_free(&ctx->scheds[i].sched);
    }
    free(ctx->scratch);
    free(ctx->reqs);
    free(ctx->statuses);
    free(ctx->nbrs_mem);
    free(ctx->colour);          /* after the states, which borrow it */
    cs_graph_free(&ctx->graph); /* after the states, which borrow it */
    free(ctx);
}

static int delete_fn(MPI_Comm comm, int key, void *value, void *extra) {
    (void)comm;
    (void)key;
    (void)extra;
    cs_nb_forget_context(value); /* its nonblocking operations use it until they finish */
    context_free(value);
    return MPI_SUCCESS;
}

/* Runs at the start of MPI_Finalize, which deletes MPI_COMM_SELF's attributes first, while MPI
 * still works: frees the context of MPI_COMM_WORLD (the standard does not promise to delete
 * MPI_COMM_WORLD's attributes), the node layouts kept for reuse, and the keyval. Contexts on
 * communicators the application never freed stay, like those communicators. */
static int finalize_fn(MPI_Comm comm, int key, void *value, void *extra) {
    void *ctx = NULL;
    int found = 0;
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    if (keyval == MPI_KEYVAL_INVALID) {
        return MPI_SUCCESS;
    }
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &ctx, &found) == MPI_SUCCESS && found) {
        PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    }
    cache_free_unused();
    PMPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

/* Creates the keyval and hooks finalize_fn to MPI_COMM_SELF. The hook's keyval is freed at
 * once: its attribute keeps it alive until MPI_Finalize deletes it. */
static int create_keyval(void) {
    int rc = CS_OK;
    int hook = MPI_KEYVAL_INVALID;
    CS_MPI_CHECK(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL));
    CS_MPI_CHECK(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_fn, &hook, NULL));
    CS_MPI_CHECK(PMPI_Comm_set_attr(MPI_COMM_SELF, hook, NULL));
out:
    if (hook != MPI_KEYVAL_INVALID) {
        PMPI_Comm_free_keyval(&hook);
    }
    return rc;
}

int cs_comm_get(MPI_Comm user, cs_comm_t **out) {
    int rc = CS_OK;
    int found = 0;
    cs_comm_t *ctx = NULL;
    void *value = NULL;
    *out = NULL;
    if (keyval == MPI_KEYVAL_INVALID) {
        CS_CHECK(create_keyval());
    }
    CS_MPI_CHECK(PMPI_Comm_get_attr(user, keyval, &value, &found));
    if (found) {
        *out = value;
        return CS_OK;
    }
    ctx = calloc(1, sizeof(*ctx));
    CS_REQUIRE(ctx != NULL, CS_ERR_NOMEM);
    ctx->comm = MPI_COMM_NULL;
    CS_MPI_CHECK(PMPI_Comm_dup(user, &ctx->comm));
    /* Failures inside collsel come back as codes (and every communicator made from this one
     * inherits that); the selector raises them through the caller's communicator's handler. */
    CS_MPI_CHECK(PMPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN));
    CS_MPI_CHECK(PMPI_Comm_rank(ctx->comm, &ctx->rank));
    CS_MPI_CHECK(PMPI_Comm_size(ctx->comm, &ctx->nprocs));
    ctx->agreed = malloc(3 * (size_t)ctx->nprocs * sizeof(int));
    CS_REQUIRE(ctx->agreed != NULL, CS_ERR_NOMEM);
    CS_MPI_CHECK(PMPI_Comm_set_attr(user, keyval, ctx));
    *out = ctx;
    ctx = NULL;
out:
    context_free(ctx);
    return rc;
}

/* The hook's delete callback: frees the keyval `extra` points at. */
static int free_keyval_fn(MPI_Comm comm, int key, void *value, void *extra) {
    int *keyval_of = extra;
    (void)comm;
    (void)key;
    (void)value;
    if (*keyval_of != MPI_KEYVAL_INVALID) {
        PMPI_Comm_free_keyval(keyval_of);
    }
    return MPI_SUCCESS;
}

int cs_keyval_create(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                     int *out) {
    int rc = CS_OK;
    int hook = MPI_KEYVAL_INVALID;
    *out = MPI_KEYVAL_INVALID;
    CS_MPI_CHECK(PMPI_Comm_create_keyval(copy, del, out, NULL));
    CS_MPI_CHECK(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_keyval_fn, &hook, out));
    CS_MPI_CHECK(PMPI_Comm_set_attr(MPI_COMM_SELF, hook, NULL));
out:
    if (hook != MPI_KEYVAL_INVALID) {
        PMPI_Comm_free_keyval(&hook); /* the attribute keeps it until MPI_Finalize */
    }
    if (rc != CS_OK && *out != MPI_KEYVAL_INVALID) {
        PMPI_Comm_free_keyval(out);
    }
    return rc;
}

cs_comm_t *cs_comm_find(MPI_Comm user) {
    void *value = NULL;
    int found = 0;
    if (keyval == MPI_KEYVAL_INVALID || user == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(user, keyval, &value, &found) != MPI_SUCCESS || !found) {
        return NULL;
    }
    return value;
}

int cs_comm_reserve(cs_comm_t *ctx, size_t scratch_bytes, int nreqs) {
    int rc = CS_OK;
    if (scratch_bytes > ctx->scratch_cap) {
        void *p = NULL;
        size_t cap = (scratch_bytes + 63) / 64 * 64;
        CS_REQUIRE(posix_memalign(&p, 64, cap) == 0, CS_ERR_NOMEM);
        free(ctx->scratch);
        ctx->scratch = p;
        ctx->scratch_cap = cap;
    }
    if (nreqs > ctx->reqs_cap) {
        MPI_Request *r = realloc(ctx->reqs, (size_t)nreqs * sizeof(*r));
        CS_REQUIRE(r != NULL, CS_ERR_NOMEM);
        ctx->reqs = r;
        MPI_Status *st = realloc(ctx->statuses, (size_t)nreqs * sizeof(*st));
        CS_REQUIRE(st != NULL, CS_ERR_NOMEM);
        ctx->statuses = st;
        ctx->reqs_cap = nreqs;
    }
out:
    return rc;
}

/* Appends `l` at the tail of the context's lines. */
static void append_line(cs_comm_t *ctx, cs_comm_line_t *l) {
    cs_comm_line_t **at = &ctx->lines;
    while (*at != NULL) {
        at = &(*at)->next;
    }
    *at = l;
}

int cs_comm_line(cs_comm_t *ctx, int stride, int size, MPI_Comm *out) {
    int rc = CS_OK;
    cs_comm_line_t *l = NULL;
    int base;
    *out = MPI_COMM_NULL;
    CS_REQUIRE(stride >= 1 && size >= 1 && ctx->nprocs / stride / size >= 1 &&
                   ctx->nprocs % (stride * size) == 0,
               CS_ERR_ARG);
    for (l = ctx->lines; l != NULL; l = l->next) {
        if (l->stride == stride && l->size == size) {
            *out = l->comm;
            return CS_OK;
        }
    }
    l = calloc(1, sizeof(*l));
    CS_REQUIRE(l != NULL, CS_ERR_NOMEM);
    l->stride = stride;
    l->size = size;
    l->comm = MPI_COMM_NULL;
    base = ctx->rank - ctx->rank / stride % size * stride;
    CS_MPI_CHECK(PMPI_Comm_split(ctx->comm, base, ctx->rank, &l->comm));
    append_line(ctx, l);
    *out = l->comm;
    l = NULL;
out:
    free(l);
    return rc;
}

/* An identity of this process's MPI_COMM_WORLD among the worlds a communicator can join
 * (MPI_Comm_spawn, MPI_Comm_connect): the launcher's name for the job when it gives one, mixed
 * with the world's size. Not collective; the same on every process of a world. */
static int world_identity(void) {
    static const char *const names[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME"};
    unsigned h = 2166136261u;
    int size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && *v != '\0') {
            for (; *v != '\0'; v++) {
                h = (h ^ (unsigned char)*v) * 16777619u;
            }
            break;
        }
    }
    return (int)((h ^ (unsigned)size) * 16777619u);
}

/* 1 when this process may share node layouts at all: not under MPI_THREAD_MULTIPLE (two
 * communicators' calls could overlap) and not a spawned process (its communicators may mix
 * worlds). Not collective. */
static int may_share(void) {
    int level = MPI_THREAD_MULTIPLE;
    MPI_Comm parent = MPI_COMM_NULL;
    return PMPI_Query_thread(&level) == MPI_SUCCESS && level != MPI_THREAD_MULTIPLE &&
           PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent == MPI_COMM_NULL;
}

static int int_order(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int cs_comm_share_agree(cs_comm_t *ctx, int share, int flag, int *any) {
    int rc = CS_OK;
    int p = ctx->nprocs, mine[3], world_rank = 0, ok;
    int *all = NULL;
    unsigned long long h = 1469598103934665603ull;
    *any = 0;
    free(ctx->world);
    ctx->world = NULL;
    ctx->share = 0;
    CS_MPI_CHECK(PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
    mine[0] = (flag != 0) | (share && may_share() ? 0 : 2);
    mine[1] = world_rank;
    mine[2] = world_identity();
    all = malloc(3 * (size_t)p * sizeof(int));
    CS_REQUIRE(all != NULL, CS_ERR_NOMEM);
    CS_MPI_CHECK(PMPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, ctx->comm));
    ok = 1;
    for (int r = 0; r < p; r++) {
        *any |= all[3 * r] & 1;
        ok = ok && !(all[3 * r] & 2) && all[3 * r + 2] == all[2]; /* one world */
    }
    if (ok) { /* the world ranks, in rank order, into the front of `all` */
        for (int r = 0; r < p; r++) {
            all[r] = all[3 * r + 1];
            h = (h ^ (unsigned)all[r]) * 1099511628211ull;
        }
        /* a world rank twice: processes of two worlds the identity did not tell apart */
        memcpy(all + p, all, (size_t)p * sizeof(int));
        qsort(all + p, (size_t)p, sizeof(int), int_order);
        for (int r = 1; r < p && ok; r++) {
            ok = all[p + r] != all[p + r - 1];
        }
    }
    if (ok) {
        ctx->world = all;
        ctx->world_hash = h;
        ctx->share = 1;
        all = NULL;
    }
out:
    free(all);
    return rc;
}

/* The cached layout of the context's group, taken for the context (one more user), or NULL.
 * Local: every rank of the group finds the same (comm.h, "Sharing"). */
static cs_comm_node_t *cache_take(cs_comm_t *ctx, long emulate) {
    cs_comm_node_t *n;
    int users = 0;
    pthread_mutex_lock(&cache_lock);
    for (n = cache; n != NULL; n = n->next) {
        if (n->hash == ctx->world_hash && n->nodes.nprocs == ctx->nprocs && n->emulate == emulate &&
            memcmp(n->world, ctx->world, (size_t)ctx->nprocs * sizeof(int)) == 0) {
            users = ++n->users;
            break;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    if (n != NULL) {
        cs_log(CS_LOG_DEBUG, "node resources of %d ranks reused (%d communicators use them)",
               ctx->nprocs, users);
    }
    return n;
}

/* Makes the context's node communicator and processes per node (the first part of the layout),
 * collectively; with `share` (ctx->share, for the layout of blocking calls) the ranks also
 * agree, in the same reduction, whether the layout is kept after its last user (every rank
 * keeps fewer than CS_NODE_KEEP), and it goes into the cache; without, it is private. */
static int node_make(cs_comm_t *ctx, long emulate, int share, cs_comm_node_t **out) {
    int rc = CS_OK;
    cs_comm_node_t *n = NULL;
    int emulated = 0, v[2];
    *out = NULL;
    n = calloc(1, sizeof(*n));
    CS_REQUIRE(n != NULL, CS_ERR_NOMEM);
    n->comm = MPI_COMM_NULL;
    n->win = MPI_WIN_NULL;
    n->emulate = emulate;
    n->id = -1;
    CS_CHECK(cs_machine_node_comm(ctx->comm, &n->comm, &emulated));
    CS_MPI_CHECK(PMPI_Comm_rank(n->comm, &n->local_rank));
    CS_MPI_CHECK(PMPI_Comm_size(n->comm, &n->local_size));
    pthread_mutex_lock(&cache_lock);
    v[0] = n->local_size;
    v[1] = !(share && cache_kept < CS_NODE_KEEP); /* MAX: 0 when every rank has room */
    pthread_mutex_unlock(&cache_lock);
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, ctx->comm));
    n->nodes.nprocs = ctx->nprocs;
    n->nodes.ppn = v[0];
    n->nodes.nnodes = (ctx->nprocs + v[0] - 1) / v[0];
    if (share) {
        n->shared = 1;
        n->keep = !v[1];
        n->users = 1;
        n->world = ctx->world; /* the key moves into the layout */
        n->hash = ctx->world_hash;
        ctx->world = NULL;
        pthread_mutex_lock(&cache_lock);
        cache_kept += n->keep;
        n->next = cache;
        cache = n;
        pthread_mutex_unlock(&cache_lock);
    }
    *out = n;
    n = NULL;
out:
    node_free(n);
    return rc;
}

/* The context's node layout, its first part at least: found in the cache (ctx->share) or made
 * (`make`; otherwise *out may be NULL). */
static int node_get(cs_comm_t *ctx, int make, cs_comm_node_t **out) {
    int rc = CS_OK;
    long emulate = cs_machine_node_emulation();
    if (ctx->node == NULL && ctx->share) {
        ctx->node = cache_take(ctx, emulate);
    }
    if (ctx->node == NULL && make) {
        CS_CHECK(node_make(ctx, emulate, ctx->share, &ctx->node));
        cs_log(CS_LOG_DEBUG, "node resources of %d ranks made (%s)", ctx->nprocs,
               ctx->node->keep     ? "shared, kept after their last communicator"
               : ctx->node->shared ? "shared while in use"
                                   : "not shared");
    }
    if (ctx->node != NULL) {
        free(ctx->world); /* the layout has the key now */
        ctx->world = NULL;
    }
out:
    *out = ctx->node;
    return rc;
}

int cs_comm_ppn(cs_comm_t *ctx, int *ppn) {
    int rc = CS_OK;
    cs_comm_node_t *n = NULL;
    long k = cs_machine_node_emulation();
    CS_CHECK(node_get(ctx, k == 0, &n));
    if (n != NULL) {
        *ppn = n->nodes.ppn;
    } else { /* emulated nodes: no communication */
        *ppn = k < ctx->nprocs ? (int)k : ctx->nprocs;
    }
out:
    return rc;
}

/* The rest of the node layout (cs_comm_node): block, domains, number of nodes; collective. */
static int node_lay_out(cs_comm_t *ctx, cs_comm_node_t *n) {
    int rc = CS_OK;
    MPI_Comm shared = MPI_COMM_NULL;
    int *dom = NULL;
    int ppn = n->nodes.ppn, first, ok, mine, shared_size = 0;
    /* Block layout: this node is ranks [k ppn, min((k + 1) ppn, nprocs)) with k = rank / ppn,
     * local rank i being rank k ppn + i; emulated nodes must also share memory. */
    first = ctx->rank;
    CS_MPI_CHECK(PMPI_Bcast(&first, 1, MPI_INT, 0, n->comm));
    ok = first / ppn == ctx->rank / ppn && n->local_rank == ctx->rank % ppn &&
         n->local_size == (ctx->nprocs - first < ppn ? ctx->nprocs - first : ppn);
    if (n->emulate) {
        CS_MPI_CHECK(
            PMPI_Comm_split_type(n->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
        CS_MPI_CHECK(PMPI_Comm_size(shared, &shared_size));
        ok = ok && shared_size == n->local_size;
    }
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, ctx->comm));
    /* Domains of the first node's local ranks, the same on every rank. */
    dom = malloc((size_t)n->local_size * sizeof(int));
    free(n->domain);
    n->domain = malloc((size_t)ppn * sizeof(int));
    CS_REQUIRE(dom != NULL && n->domain != NULL, CS_ERR_NOMEM);
    mine = cs_machine_domain();
    CS_MPI_CHECK(PMPI_Allgather(&mine, 1, MPI_INT, dom, 1, MPI_INT, n->comm));
    for (int i = 0; i < ppn; i++) {
        n->domain[i] = i < n->local_size ? dom[i] : -1;
    }
    CS_MPI_CHECK(PMPI_Bcast(n->domain, ppn, MPI_INT, 0, ctx->comm));
    n->nodes.domain = n->domain;
    n->block = ok;
    n->laid_out = 1;
out:
    if (shared != MPI_COMM_NULL) {
        PMPI_Comm_free(&shared);
    }
    free(dom);
    return rc;
}

/* The context's operations' layout (comm.h, "Operations' node resources"), collectively: the
 * lowest-numbered spare layout of its group `group` (the shared layout) that is spare on every
 * rank, else a new one. */
static int own_take(cs_comm_t *ctx, cs_comm_node_t *group, cs_comm_node_t **out) {
    int rc = CS_OK;
    uint64_t spare = 0;
    cs_comm_node_t *n = NULL, **at;
    *out = NULL;
    pthread_mutex_lock(&cache_lock);
    for (n = group->spare; n != NULL; n = n->next) {
        spare |= (uint64_t)1 << n->id;
    }
    pthread_mutex_unlock(&cache_lock);
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &spare, 1, MPI_UINT64_T, MPI_BAND, ctx->comm));
    if (spare != 0) {
        int id = 0;
        while (!(spare >> id & 1)) {
            id++;
        }
        pthread_mutex_lock(&cache_lock);
        for (at = &group->spare; (*at)->id != id; at = &(*at)->next) {
        }
        n = *at;
        *at = n->next;
        n->next = NULL;
        pthread_mutex_unlock(&cache_lock);
        cs_log(CS_LOG_DEBUG, "operations' node resources of %d ranks reused", ctx->nprocs);
    } else {
        CS_CHECK(node_make(ctx, group->emulate, 0, &n));
        n->id = group->ops_made < CS_NODE_OPS_POOL ? group->ops_made : -1;
        group->ops_made++;
        cs_log(CS_LOG_DEBUG, "operations' node resources of %d ranks made", ctx->nprocs);
    }
    *out = n;
out:
    return rc;
}

int cs_comm_node(cs_comm_t *ctx, int ops, cs_comm_node_t **out) {
    int rc = CS_OK;
    cs_comm_node_t *n = NULL;
    *out = NULL;
    if (ops && ctx->share) { /* the operations' own, never the shared one */
        if (ctx->own == NULL) {
            CS_CHECK(node_get(ctx, 1, &n));
            CS_CHECK(own_take(ctx, n, &ctx->own));
        }
        n = ctx->own;
    } else {
        CS_CHECK(node_get(ctx, 1, &n));
    }
    if (!n->laid_out) {
        CS_CHECK(node_lay_out(ctx, n));
    }
    *out = n;
out:
    return rc;
}

cs_comm_node_t *cs_comm_ops_node(const cs_comm_t *ctx) {
    return ctx->share ? ctx->own : ctx->node;
}

int cs_comm_leaders(cs_comm_t *ctx, cs_comm_node_t *node, int l, const int *lranks, MPI_Comm *out) {
    int rc = CS_OK;
    cs_comm_leaders_t *ld = NULL, **at;
    int color = MPI_UNDEFINED;
    *out = MPI_COMM_NULL;
    CS_REQUIRE(node != NULL, CS_ERR_INTERNAL);
    for (at = &node->leaders; *at != NULL; at = &(*at)->next) {
        if ((*at)->l == l) {
            *out = (*at)->comm;
            return CS_OK;
        }
    }
    ld = calloc(1, sizeof(*ld));
    CS_REQUIRE(ld != NULL, CS_ERR_NOMEM);
    ld->l = l;
    ld->comm = MPI_COMM_NULL;
    for (int j = 0; j < l; j++) {
        if (lranks[j] == node->local_rank) {
            color = j;
        }
    }
    CS_MPI_CHECK(PMPI_Comm_split(ctx->comm, color, ctx->rank, &ld->comm));
    *at = ld;
    *out = ld->comm;
    ld = NULL;
out:
    free(ld);
    return rc;
}

int cs_comm_window(cs_comm_node_t *node, MPI_Aint bytes) {
    int rc = CS_OK;
    MPI_Aint half, size = 0;
    int disp = 0;
    void *mine = NULL, *base = NULL;
    CS_REQUIRE(node != NULL, CS_ERR_INTERNAL);
    if (bytes <= node->win_half) {
        return CS_OK;
    }
    half = bytes > 2 * node->win_half ? bytes : 2 * node->win_half;
    half = (half + 4095) / 4096 * 4096;
    if (node->win != MPI_WIN_NULL) {
        node->win_base = NULL;
        node->win_half = 0;
        CS_MPI_CHECK(PMPI_Win_unlock_all(node->win));
        CS_MPI_CHECK(PMPI_Win_free(&node->win));
    }
    CS_MPI_CHECK(PMPI_Win_allocate_shared(node->local_rank == 0 ? 2 * half : 0, 1, MPI_INFO_NULL,
                                          node->comm, &mine, &node->win));
    CS_MPI_CHECK(PMPI_Win_set_errhandler(node->win, MPI_ERRORS_RETURN));
    CS_MPI_CHECK(PMPI_Win_shared_query(node->win, 0, &size, &disp, &base));
    CS_REQUIRE(size >= 2 * half, CS_ERR_INTERNAL);
    CS_MPI_CHECK(PMPI_Win_lock_all(MPI_MODE_NOCHECK, node->win));
    node->win_base = (char *)base + half;
    node->win_half = half;
out:
    return rc;
}

/* 1 when the operations' state of `algo` on ctx is not its blocking calls' (comm.h,
 * "Operations' node resources"): it works on the node layout, which the context shares. */
static int ops_apart(const cs_comm_t *ctx, const cs_algo_t *algo) {
    return ctx->share && (algo->reqs & CS_REQ_NODES);
}

/* The context's entry of (algo, params, ops), a refused one included; NULL when none. */
static cs_comm_state_t *state_entry(const cs_comm_t *ctx, const cs_algo_t *algo,
                                    const cs_params_t *params, int ops) {
    for (cs_comm_state_t *st = ctx->states; st != NULL; st = st->next) {
        if (st->algo == algo && st->ops == ops && cs_params_equal(&st->params, params)) {
            return st;
        }
    }
    return NULL;
}

/* The state of (algo, params) kept for blocking calls (ops 0) or operations (ops 1, only when
 * ops_apart), or NULL (none, or refused). */
static const cs_state_t *state_find(const cs_comm_t *ctx, const cs_algo_t *algo,
                                    const cs_params_t *params, int ops) {
    const cs_comm_state_t *st = state_entry(ctx, algo, params, ops);
    return st != NULL && !st->refused ? &st->state : NULL;
}

const cs_state_t *cs_comm_state_find(const cs_comm_t *ctx, const cs_algo_t *algo,
                                     const cs_params_t *params) {
    return state_find(ctx, algo, params, 0);
}

const cs_state_t *cs_comm_state_find_ops(const cs_comm_t *ctx, const cs_algo_t *algo,
                                         const cs_params_t *params) {
    return state_find(ctx, algo, params, ops_apart(ctx, algo));
}

/* cs_comm_state (ops 0) and cs_comm_state_ops (ops 1, or 0 when not ops_apart). */
static int state_get(cs_comm_t *ctx, const cs_algo_t *algo, const cs_params_t *params, int ops,
                     const cs_state_t **out) {
    int rc = CS_OK;
    cs_comm_state_t *st = state_entry(ctx, algo, params, ops);
    cs_comm_state_t **at = &ctx->states;
    *out = NULL;
    if (st != NULL) { /* made before, or refused before: a refusal is not asked again */
        *out = st->refused ? NULL : &st->state;
        return st->refused ? CS_ERR_NOT_APPLICABLE : CS_OK;
    }
    while (*at != NULL) { /* a new state goes last: states stay in order of creation */
        at = &(*at)->next;
    }
    CS_REQUIRE(algo->setup != NULL, CS_ERR_ARG);
    st = calloc(1, sizeof(*st));
    CS_REQUIRE(st != NULL, CS_ERR_NOMEM);
    st->algo = algo;
    st->params = *params;
    st->ops = ops;
    st->state.ops = ops;
    for (int i = 0; i < CS_STATE_COMMS; i++) {
        st->state.comms[i] = MPI_COMM_NULL;
    }
    rc = algo->setup(ctx, params, &st->state);
    if (rc < 0) {
        if (algo->teardown != NULL) {
            algo->teardown(&st->state);
        }
        if (rc != CS_ERR_NOT_APPLICABLE) {
            goto out;
        }
        /* Kept as refused: Open MPI's variants without dynamic rules refused after MPI_T
         * lookups, on every call of a rule that named one (issue 19) */
        st->refused = 1;
        *at = st;
        st = NULL;
        goto out;
    }
    *at = st;
    *out = &st->state;
    st = NULL;
out:
    free(st);
    return rc;
}

int cs_comm_state(cs_comm_t *ctx, const cs_algo_t *algo, const cs_params_t *params,
                  const cs_state_t **out) {
    return state_get(ctx, algo, params, 0, out);
}

int cs_comm_state_ops(cs_comm_t *ctx, const cs_algo_t *algo, const cs_params_t *params,
                      const cs_state_t **out) {
    return state_get(ctx, algo, params, ops_apart(ctx, algo), out);
}

/* The neighbourhood of a Cartesian communicator: per dimension, the ranks at -1 and +1. */
static int cart_neighbors(MPI_Comm comm, int **mem, int *degree) {
    int rc = CS_OK;
    int ndims = 0;
    *mem = NULL;
    CS_MPI_CHECK(PMPI_Cartdim_get(comm, &ndims));
    *degree = 2 * ndims;
    *mem = malloc((size_t)(2 * ndims + 1) * sizeof(int));
    CS_REQUIRE(*mem != NULL, CS_ERR_NOMEM);
    for (int d = 0; d < ndims; d++) {
        CS_MPI_CHECK(PMPI_Cart_shift(comm, d, 1, &(*mem)[2 * d], &(*mem)[2 * d + 1]));
    }
out:
    return rc;
}

int cs_comm_neighbors(cs_comm_t *ctx, const cs_neighbors_t **out) {
    int rc = CS_OK;
    int kind = MPI_UNDEFINED, in = 0, out_degree = 0, weighted = 0;
    int *mem = NULL;
    cs_neighbors_t nb;
    *out = NULL;
    if (ctx->nbrs_state != 0) {
        *out = ctx->nbrs_state > 0 ? &ctx->nbrs : NULL;
        return ctx->nbrs_state > 0 ? CS_OK : CS_ERR_NOT_APPLICABLE;
    }
    memset(&nb, 0, sizeof(nb));
    CS_MPI_CHECK(PMPI_Topo_test(ctx->comm, &kind));
    if (kind == MPI_CART) {
        CS_CHECK(cart_neighbors(ctx->comm, &mem, &in));
        out_degree = in;
        nb.sources = nb.destinations = mem;
    } else if (kind == MPI_GRAPH) {
        CS_MPI_CHECK(PMPI_Graph_neighbors_count(ctx->comm, ctx->rank, &in));
        out_degree = in;
        mem = malloc((size_t)(in + 1) * sizeof(int));
        CS_REQUIRE(mem != NULL, CS_ERR_NOMEM);
        CS_MPI_CHECK(PMPI_Graph_neighbors(ctx->comm, ctx->rank, in, mem));
        nb.sources = nb.destinations = mem;
    } else if (kind == MPI_DIST_GRAPH) {
        CS_MPI_CHECK(PMPI_Dist_graph_neighbors_count(ctx->comm, &in, &out_degree, &weighted));
        /* sources, destinations, then their weights */
        mem = malloc((size_t)(2 * (in + out_degree) + 1) * sizeof(int));
        CS_REQUIRE(mem != NULL, CS_ERR_NOMEM);
        CS_MPI_CHECK(PMPI_Dist_graph_neighbors(ctx->comm, in, mem, mem + in + out_degree,
                                               out_degree, mem + in, mem + 2 * in + out_degree));
        nb.sources = mem;
        nb.destinations = mem + in;
        if (weighted) {
            nb.weighted = 1;
            nb.sourceweights = mem + in + out_degree;
            nb.destweights = mem + 2 * in + out_degree;
        }
    } else {
        ctx->nbrs_state = -1;
        return CS_ERR_NOT_APPLICABLE;
    }
    nb.kind = kind;
    nb.indegree = in;
    nb.outdegree = out_degree;
    ctx->nbrs = nb;
    ctx->nbrs_mem = mem;
    ctx->nbrs_state = 1;
    mem = NULL;
    *out = &ctx->nbrs;
out:
    free(mem);
    return rc;
}

int cs_comm_graph(cs_comm_t *ctx, const cs_graph_t **out) {
    int rc = CS_OK;
    const cs_neighbors_t *nb = NULL;
    int p = ctx->nprocs, mine[2], cart;
    int *deg = NULL, *counts = NULL, *displs = NULL, *lists = NULL, *send = NULL;
    int *dst_start = NULL, *src_start = NULL, *dst = NULL, *src = NULL;
    *out = NULL;
    if (ctx->graph_state != 0) {
        *out = ctx->graph_state > 0 ? &ctx->graph : NULL;
        return ctx->graph_state > 0 ? CS_OK : CS_ERR_NOT_APPLICABLE;
    }
    rc = cs_comm_neighbors(ctx, &nb);
    if (rc == CS_ERR_NOT_APPLICABLE) {
        ctx->graph_state = -1;
        return rc;
    }
    CS_CHECK(rc);
    cart = nb->kind == MPI_CART; /* the same on every rank: a property of the communicator */
    mine[0] = nb->outdegree;
    mine[1] = cart ? 0 : nb->indegree; /* a Cartesian rank's sources are its destinations */
    deg = malloc(sizeof(int) * 2 * (size_t)p);
    counts = malloc(sizeof(int) * (size_t)p);
    displs = malloc(sizeof(int) * ((size_t)p + 1));
    dst_start = malloc(sizeof(int) * ((size_t)p + 1));
    src_start = malloc(sizeof(int) * ((size_t)p + 1));
    send = malloc(sizeof(int) * ((size_t)mine[0] + mine[1] + 1));
    CS_REQUIRE(deg != NULL && counts != NULL && displs != NULL && dst_start != NULL &&
                   src_start != NULL && send != NULL,
               CS_ERR_NOMEM);
    CS_MPI_CHECK(PMPI_Allgather(mine, 2, MPI_INT, deg, 2, MPI_INT, ctx->comm));
    displs[0] = dst_start[0] = src_start[0] = 0;
    for (int r = 0; r < p; r++) {
        long n = (long)deg[2 * r] + deg[2 * r + 1];
        CS_REQUIRE(deg[2 * r] >= 0 && deg[2 * r + 1] >= 0 && displs[r] + n <= INT_MAX, CS_ERR_ARG);
        counts[r] = (int)n;
        displs[r + 1] = displs[r] + counts[r];
        dst_start[r + 1] = dst_start[r] + deg[2 * r];
        src_start[r + 1] = src_start[r] + deg[2 * r + 1];
    }
    /* this rank's destinations then sources, MPI_PROC_NULL as CS_GRAPH_NONE */
    for (int i = 0; i < mine[0]; i++) {
        send[i] = nb->destinations[i] == MPI_PROC_NULL ? CS_GRAPH_NONE : nb->destinations[i];
    }
    for (int j = 0; j < mine[1]; j++) {
        send[mine[0] + j] = nb->sources[j] == MPI_PROC_NULL ? CS_GRAPH_NONE : nb->sources[j];
    }
    lists = malloc(sizeof(int) * ((size_t)displs[p] + 1));
    dst = malloc(sizeof(int) * ((size_t)dst_start[p] + 1));
    src = malloc(sizeof(int) * ((size_t)src_start[p] + 1));
    CS_REQUIRE(lists != NULL && dst != NULL && src != NULL, CS_ERR_NOMEM);
    CS_MPI_CHECK(PMPI_Allgatherv(send, mine[0] + mine[1], MPI_INT, lists, counts, displs, MPI_INT,
                                 ctx->comm));
    for (int r = 0; r < p; r++) {
        memcpy(dst + dst_start[r], lists + displs[r], sizeof(int) * (size_t)deg[2 * r]);
        memcpy(src + src_start[r], lists + displs[r] + deg[2 * r],
               sizeof(int) * (size_t)deg[2 * r + 1]);
    }
    if (cart) {
        CS_CHECK(cs_graph_from_cart_lists(&ctx->graph, p, dst_start, dst));
    } else {
        CS_CHECK(cs_graph_from_lists(&ctx->graph, p, dst_start, dst, src_start, src));
    }
    ctx->graph_state = 1;
    *out = &ctx->graph;
out:
    free(deg);
    free(counts);
    free(displs);
    free(lists);
    free(send);
    free(dst_start);
    free(src_start);
    free(dst);
    free(src);
    return rc;
}

int cs_comm_colouring(cs_comm_t *ctx, const cs_graph_t **g, const int **colour, int *ncolours) {
    int rc = CS_OK;
    int *work = NULL, *made = NULL;
    *colour = NULL;
    *ncolours = 0;
    CS_CHECK(cs_comm_graph(ctx, g));
    if (ctx->colour == NULL) {
        made = malloc(sizeof(int) * (size_t)((*g)->nedges > 0 ? (*g)->nedges : 1));
        work = malloc(sizeof(int) * (size_t)cs_graph_colour_work(*g));
        CS_REQUIRE(made != NULL && work != NULL, CS_ERR_NOMEM);
        cs_graph_colour(*g, made, &ctx->ncolours, NULL, work);
        ctx->colour = made;
        made = NULL;
        ctx->colourings++;
    }
    *colour = ctx->colour;
    *ncolours = ctx->ncolours;
out:
    free(made);
    free(work);
    return rc;
}

int cs_comm_loggp(cs_comm_t *ctx, cs_loggp_t *out) {
    int rc = CS_OK;
    cs_loggp_t mine;
    double v[4];
    (void)cs_loggp_current(&mine); /* the machine's, or the defaults: either is a model */
    v[0] = mine.L;
    v[1] = mine.o;
    v[2] = mine.g;
    v[3] = mine.G;
    CS_MPI_CHECK(PMPI_Bcast(v, 4, MPI_DOUBLE, 0, ctx->comm));
    out->L = v[0];
    out->o = v[1];
    out->g = v[2];
    out->G = v[3];
out:
    return rc;
}

/* The bytes of `n` blocks of counts[i] elements of `t`. */
static uint64_t row_bytes(int n, const int *counts, const cs_type_t *t) {
    uint64_t elems = 0;
    for (int i = 0; i < n; i++) {
        elems += (uint64_t)counts[i];
    }
    return elems * (uint64_t)t->size;
}

/* This rank's part of the agreement of call c (gatherv, scatterv, alltoallv) into a. */
static void agree_mine(const cs_call_t *c, cs_agree_t *a) {
    if (c->coll == CS_COLL_ALLTOALLV) {
        a->mine = row_bytes(c->nprocs, c->sendcounts, &c->send) +
                  row_bytes(c->nprocs, c->recvcounts, &c->recv);
    } else {
        cs_call_agree_pair(c, a->pair);
    }
}

void cs_comm_agree_finish(cs_call_t *c, cs_agree_t *a) {
    uint64_t p = (uint64_t)c->nprocs;
    if (c->coll == CS_COLL_ALLTOALLV) {
        c->bytes = (size_t)(a->total / (2 * p * p));
    } else {
        cs_call_agreed(c, a->agreed, a->agreed + 2 * p);
    }
}

int cs_comm_agree(cs_comm_t *ctx, cs_call_t *c) {
    int rc = CS_OK;
    cs_agree_t a = {.agreed = ctx->agreed};
    if (!cs_coll_agrees(c->coll)) {
        return CS_OK;
    }
    CS_REQUIRE(c->nprocs == ctx->nprocs, CS_ERR_ARG);
    agree_mine(c, &a);
    if (c->coll == CS_COLL_ALLTOALLV) {
        CS_MPI_CHECK(PMPI_Allreduce(&a.mine, &a.total, 1, MPI_UINT64_T, MPI_SUM, ctx->comm));
    } else {
        CS_MPI_CHECK(PMPI_Allgather(a.pair, 2, MPI_INT, a.agreed, 2, MPI_INT, ctx->comm));
    }
    cs_comm_agree_finish(c, &a);
out:
    return rc;
}

int cs_comm_agree_start(cs_comm_t *ctx, const cs_call_t *c, cs_agree_t *a, MPI_Request *req) {
    int rc = CS_OK;
    CS_REQUIRE(cs_coll_agrees(c->coll) && c->nprocs == ctx->nprocs, CS_ERR_ARG);
    agree_mine(c, a);
    if (c->coll == CS_COLL_ALLTOALLV) {
        CS_MPI_CHECK(
            PMPI_Iallreduce(&a->mine, &a->total, 1, MPI_UINT64_T, MPI_SUM, ctx->comm, req));
    } else {
        CS_MPI_CHECK(PMPI_Iallgather(a->pair, 2, MPI_INT, a->agreed, 2, MPI_INT, ctx->comm, req));
    }
out:
    return rc;
}

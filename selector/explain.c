/* The selector's choice for a call shape as data (cs_sel_choose: the bench records it), and in
 * words (collsel_explain). */
#include "collsel.h"

#include "registry.h"
#include "select_int.h"

#include <stdio.h>
#include <string.h>

int cs_sel_choose(cs_coll_t coll, uint64_t bytes, MPI_Comm comm, cs_sel_choice_t *out) {
    cs_comm_t *ctx = NULL;
    cs_sel_comm_t *sc = NULL;
    int entered;
    if (out == NULL || cs_coll_name(coll) == NULL || coll >= CS_COLL_COUNT) {
        return CS_ERR_ARG;
    }
    memset(out, 0, sizeof(*out));
    out->variant.algo = cs_registry_native(coll);
    cs_params_defaults(NULL, 0, &out->variant.params);
    entered = cs_sel_enter(comm, 0, &ctx, &sc) == CS_OK;
    if (!atomic_load(&cs_sel_hot.active)) {
        out->why = cs_sel_env.disable ? CS_SEL_DISABLED : CS_SEL_FINALIZED;
        return CS_OK;
    }
    if (!entered) {
        out->why = CS_SEL_NO_CONTEXT;
        return CS_OK;
    }
    out->nprocs = ctx->nprocs;
    out->ppn = sc->ppn;
    if (sc->native_only) {
        out->why = cs_sel_rules_are_usable(out->detail, sizeof(out->detail)) ? CS_SEL_INTERCOMM
                                                                             : CS_SEL_NO_RULES;
        return CS_OK;
    }
    if (cs_sel_env.force[coll].algo != NULL) {
        out->why = CS_SEL_FORCED;
        out->variant = cs_sel_env.force[coll];
        out->fallback = cs_sel_env.fallback;
        return CS_OK;
    }
    if (sc->nb_niv[coll] > 0) {
        out->nb_iv = cs_sel_nb_lookup(sc, coll, cs_sel_lookup_key(coll, bytes));
        out->nb_tuned_size = sc->nb_tuned_size[coll];
        out->nb_tuned_ppn = sc->nb_tuned_ppn[coll];
        if (sc->nb_tuned_pattern[coll][0] != '\0') {
            out->nb_pattern = sc->nb_tuned_pattern[coll];
            out->nb_distance = sc->nb_pattern_distance[coll];
        }
    }
    out->iv = cs_sel_lookup(sc, coll, cs_sel_lookup_key(coll, bytes));
    if (out->iv == NULL) {
        out->why = cs_sel_rules_are_usable(out->detail, sizeof(out->detail)) ? CS_SEL_NO_RULE
                                                                             : CS_SEL_NO_RULES;
        return CS_OK;
    }
    out->why = CS_SEL_RULE;
    out->variant = out->iv->cand[0];
    out->tuned_size = sc->tuned_size[coll];
    out->tuned_ppn = sc->tuned_ppn[coll];
    if (sc->tuned_pattern[coll][0] != '\0') {
        out->pattern = sc->tuned_pattern[coll];
        out->distance = sc->pattern_distance[coll];
    }
    return CS_OK;
}

/* Appends the nonblocking rule of choice `ch` (ch->nb_iv set) to buf. */
static void explain_nb(const cs_sel_choice_t *ch, char *buf, size_t len) {
    const cs_sel_interval_t *iv = ch->nb_iv;
    size_t used = strlen(buf);
    char name[256], hi[32], pattern[128] = "";
    if (iv->hi == CS_RULE_UNBOUNDED) {
        snprintf(hi, sizeof(hi), "inf");
    } else {
        snprintf(hi, sizeof(hi), "%llu", (unsigned long long)iv->hi);
    }
    if (ch->nb_pattern != NULL) {
        snprintf(pattern, sizeof(pattern), " on pattern %s (signature distance %.3f)",
                 ch->nb_pattern, ch->nb_distance);
    }
    used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                             "; nonblocking and persistent calls: nonblocking rule [%llu, %s) "
                             "tuned%s at %d processes, %d per node, overhead %.2f us vs native "
                             "%.2f us; ranked:",
                             (unsigned long long)iv->lo, hi, pattern, ch->nb_tuned_size,
                             ch->nb_tuned_ppn, iv->median_us[0], iv->native_us);
    for (int i = 0; i < iv->ncand && used < len; i++) {
        cs_variant_name(&iv->cand[i], name, sizeof(name));
        used += (size_t)snprintf(buf + used, len - used, " %s", name);
    }
}

int collsel_explain(const char *coll_name, size_t bytes, MPI_Comm comm, char *buf, size_t len) {
    cs_coll_t coll;
    cs_sel_choice_t ch;
    char name[256];
    if (buf == NULL || len == 0 || coll_name == NULL ||
        cs_coll_from_name(coll_name, &coll) != CS_OK ||
        cs_sel_choose(coll, bytes, comm, &ch) != CS_OK) {
        return MPI_ERR_ARG;
    }
    cs_variant_name(&ch.variant, name, sizeof(name));
    switch (ch.why) {
    case CS_SEL_DISABLED:
        snprintf(buf, len, "%s: collsel is disabled (COLLSEL_DISABLE)", name);
        break;
    case CS_SEL_FINALIZED:
        snprintf(buf, len, "%s: collsel is finalized", name);
        break;
    case CS_SEL_NO_CONTEXT:
        snprintf(buf, len, "%s: no communicator context", name);
        break;
    case CS_SEL_INTERCOMM:
        snprintf(buf, len, "%s: intercommunicator", name);
        break;
    case CS_SEL_NO_RULES:
        snprintf(buf, len, "%s: %s", name, ch.detail);
        break;
    case CS_SEL_NO_RULE:
        snprintf(buf, len, "%s: no rule for %s on %d processes%s", name, coll_name, ch.nprocs,
                 cs_coll_is_neighbor(coll)
                     ? " (neighbourhood collectives: none tuned, or no topology to match)"
                     : "");
        break;
    case CS_SEL_FORCED:
        snprintf(buf, len, "%s: forced by COLLSEL_FORCE (if it cannot run a call: %s)", name,
                 ch.fallback == CS_FALLBACK_ERROR  ? "error"
                 : ch.fallback == CS_FALLBACK_WARN ? "native, with a warning"
                                                   : "native");
        break;
    case CS_SEL_RULE: {
        const cs_sel_interval_t *iv = ch.iv;
        char hi[32];
        size_t used;
        if (iv->hi == CS_RULE_UNBOUNDED) {
            snprintf(hi, sizeof(hi), "inf");
        } else {
            snprintf(hi, sizeof(hi), "%llu", (unsigned long long)iv->hi);
        }
        if (ch.pattern != NULL) {
            used = (size_t)snprintf(
                buf, len,
                "%s: %s of %zu bytes per block on %d processes (%d per node) matches tuned "
                "pattern %s (signature distance %.3f), tuned at %d processes, %d per node; "
                "interval [%llu, %s)%s; median %.2f us vs native %.2f us; ranked:",
                name, coll_name, bytes, ch.nprocs, ch.ppn, ch.pattern, ch.distance, ch.tuned_size,
                ch.tuned_ppn, (unsigned long long)iv->lo, hi,
                cs_coll_is_cached(coll) ? "" : " (v and w: one interval for every size)",
                iv->median_us[0], iv->native_us);
        } else {
            char borrowed[160] = "";
            if (ch.tuned_size != ch.nprocs || ch.tuned_ppn != ch.ppn) {
                snprintf(borrowed, sizeof(borrowed),
                         " (borrowed: the nearest tuned to %d processes, %d per node)", ch.nprocs,
                         ch.ppn);
            }
            used = (size_t)snprintf(
                buf, len,
                "%s: %s of %zu bytes on %d processes (%d per node) falls in [%llu, %s) tuned at "
                "%d processes, %d per node%s; median %.2f us vs native %.2f us; ranked:",
                name, coll_name, bytes, ch.nprocs, ch.ppn, (unsigned long long)iv->lo, hi,
                ch.tuned_size, ch.tuned_ppn, borrowed, iv->median_us[0], iv->native_us);
        }
        for (int i = 0; i < iv->ncand && used < len; i++) {
            cs_variant_name(&iv->cand[i], name, sizeof(name));
            used += (size_t)snprintf(buf + used, len - used, " %s", name);
        }
        break;
    }
    }
    if (ch.nb_iv != NULL) {
        explain_nb(&ch, buf, len);
    }
    return MPI_SUCCESS;
}

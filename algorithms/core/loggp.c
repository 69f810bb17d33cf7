/* The process-wide LogGP parameters (see loggp.h). */
#include "loggp.h"

#include <math.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cs_loggp_t current = {CS_LOGGP_DEFAULT_L, CS_LOGGP_DEFAULT_O, CS_LOGGP_DEFAULT_G_GAP,
                             CS_LOGGP_DEFAULT_G_BYTE};
static cs_loggp_source_t source_of = CS_LOGGP_FROM_DEFAULTS;

int cs_loggp_current(cs_loggp_t *out) {
    cs_loggp_source_t s;
    pthread_mutex_lock(&lock);
    *out = current;
    s = source_of;
    pthread_mutex_unlock(&lock);
    return (int)s;
}

static int valid(double v) {
    return isfinite(v) && v >= 0;
}

int cs_loggp_set(const cs_loggp_t *l, cs_loggp_source_t source) {
    const cs_loggp_t defaults = {CS_LOGGP_DEFAULT_L, CS_LOGGP_DEFAULT_O, CS_LOGGP_DEFAULT_G_GAP,
                                 CS_LOGGP_DEFAULT_G_BYTE};
    if (l != NULL && (!valid(l->L) || !valid(l->o) || l->o <= 0 || !valid(l->g) || !valid(l->G) ||
                      source == CS_LOGGP_FROM_DEFAULTS)) {
        return CS_ERR_ARG;
    }
    pthread_mutex_lock(&lock);
    current = l != NULL ? *l : defaults;
    source_of = l != NULL ? source : CS_LOGGP_FROM_DEFAULTS;
    pthread_mutex_unlock(&lock);
    return CS_OK;
}

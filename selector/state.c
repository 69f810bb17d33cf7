/* The selector's process-wide and thread-local state, and collsel_init/collsel_finalize (see
 * select_int.h for what each piece is and how the epoch keeps caches valid). */
#include "collsel.h"

#include "core/log.h"
#include "core/nb.h"
#include "select_int.h"

#include <stdio.h>
#include <string.h>

cs_sel_hot_t cs_sel_hot __attribute__((aligned(64))) = {1, 1, 0};
atomic_ulong cs_sel_rules_epoch;
pthread_mutex_t cs_sel_lock = PTHREAD_MUTEX_INITIALIZER;
cs_sel_env_t cs_sel_env;
_Thread_local cs_sel_last_t cs_sel_last = {MPI_COMM_NULL, NULL, 0};
_Thread_local cs_sel_memo_t cs_sel_memo[CS_COLL_COUNT];

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static char init_db[4096]; /* guarded by cs_sel_lock */
static int init_db_set;

static int world_rank(void) {
    int init = 0, fin = 0, rank = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (init && !fin) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    return rank;
}

static void parse_env(void) {
    cs_sel_env_parse(&cs_sel_env, world_rank() == 0);
    cs_sel_hot.log_calls = cs_sel_env.verbose >= CS_LOG_DEBUG;
    cs_nb_set_progress_thread(cs_sel_env.progress_thread);
    if (cs_sel_env.disable) {
        atomic_store(&cs_sel_hot.active, 0);
    }
}

void cs_sel_env_once(void) {
    pthread_once(&env_once, parse_env);
}

const char *cs_sel_db_path(void) {
    return init_db_set ? init_db : cs_sel_env.db;
}

int collsel_init(const char *db_path) {
    cs_sel_env_once();
    pthread_mutex_lock(&cs_sel_lock);
    if (!init_db_set) {
        init_db_set = 1;
        /* a path cut short would name another file */
        if (db_path != NULL && strlen(db_path) >= sizeof(init_db)) {
            cs_log_complain("collsel_init: database path '%.40s...' longer than %zu bytes; "
                            "ignored (COLLSEL_DB used)",
                            db_path, sizeof(init_db) - 1);
            db_path = NULL;
        }
        snprintf(init_db, sizeof(init_db), "%s", db_path != NULL ? db_path : cs_sel_env.db);
        if (strcmp(init_db, cs_sel_env.db) != 0) {
            /* Rules already loaded from COLLSEL_DB (libcollsel_pmpi's MPI_Init, or a
             * collective before this call) are another database's: forgotten as by
             * collsel_finalize, so every communicator takes this one at its next call. */
            cs_sel_rules_forget();
            atomic_store(&cs_sel_rules_epoch, atomic_fetch_add(&cs_sel_hot.epoch, 1) + 1);
        }
    }
    atomic_store(&cs_sel_hot.active, !cs_sel_env.disable);
    cs_nb_set_progress_thread(cs_sel_env.progress_thread);
    pthread_mutex_unlock(&cs_sel_lock);
    return MPI_SUCCESS;
}

int collsel_finalize(void) {
    pthread_mutex_lock(&cs_sel_lock);
    atomic_store(&cs_sel_hot.active, 0);
    cs_sel_rules_forget();
    init_db_set = 0;
    /* Thread caches are stale from now on, and communicators set up before take the new rules
     * at their next call (cs_sel_enter). */
    atomic_store(&cs_sel_rules_epoch, atomic_fetch_add(&cs_sel_hot.epoch, 1) + 1);
    cs_nb_set_progress_thread(0); /* until collsel_init */
    pthread_mutex_unlock(&cs_sel_lock);
    cs_nb_progress_thread_stop(); /* outside cs_sel_lock: the thread never takes it */
    return MPI_SUCCESS;
}

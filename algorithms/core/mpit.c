/* Control variables through MPI_T (see mpit.h). */
#include "mpit.h"

#include <pthread.h>
#include <string.h>

/* MPI_T is initialised once per process and never finalised (mpit.h): 0 not yet tried, 1 up,
 * -1 refused. Guarded by `lock`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int state;

int cs_mpit_begin(void) {
    int provided = 0, up;
    pthread_mutex_lock(&lock);
    if (state == 0) {
        state = PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS ? 1 : -1;
    }
    up = state == 1;
    pthread_mutex_unlock(&lock);
    return up ? CS_OK : CS_ERR_NOT_APPLICABLE;
}

void cs_mpit_end(void) {}

/* The type, enumeration and binding of cvar `index`; 0 when the library does not say. */
static int info(int index, MPI_Datatype *type, MPI_T_enum *enumtype, int *bind) {
    char name[256], desc[8];
    int name_len = sizeof(name), desc_len = sizeof(desc), verbosity = 0, scope = 0;
    return PMPI_T_cvar_get_info(index, name, &name_len, &verbosity, type, enumtype, desc, &desc_len,
                                bind, &scope) == MPI_SUCCESS;
}

int cs_mpit_find(const char *name, int *index) {
    MPI_Datatype type;
    MPI_T_enum enumtype;
    int bind = 0;
    if (PMPI_T_cvar_get_index(name, index) != MPI_SUCCESS ||
        !info(*index, &type, &enumtype, &bind) || bind != MPI_T_BIND_NO_OBJECT) {
        return CS_ERR_NOT_APPLICABLE;
    }
    return CS_OK;
}

uint64_t cs_mpit_read_u64(int index) {
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    int count = 0, size = 0, bind = 0;
    unsigned char buf[16] = {0};
    uint64_t value = 0;
    if (!info(index, &type, &enumtype, &bind) || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
        size <= 0 || size > 8) {
        return 0;
    }
    if (PMPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        return 0;
    }
    if (count == 1 && PMPI_T_cvar_read(handle, buf) == MPI_SUCCESS) {
        if (type == MPI_INT) {
            int v;
            memcpy(&v, buf, sizeof(v));
            value = v > 0 ? (uint64_t)v : 0;
        } else if (type == MPI_LONG || type == MPI_LONG_LONG) {
            long long v = 0;
            memcpy(&v, buf, (size_t)size < sizeof(v) ? (size_t)size : sizeof(v));
            value = v > 0 ? (uint64_t)v : 0;
        } else if (type == MPI_UNSIGNED || type == MPI_UNSIGNED_LONG ||
                   type == MPI_UNSIGNED_LONG_LONG || type == MPI_COUNT) {
            unsigned long long v = 0;
            memcpy(&v, buf, (size_t)size < sizeof(v) ? (size_t)size : sizeof(v));
            value = (uint64_t)v;
        }
    }
    PMPI_T_cvar_handle_free(&handle);
    return value;
}

/* A handle on cvar `index` when it holds one MPI_INT (or, with `bool_ok`, one MPI_C_BOOL: *is_bool
 * set), else MPI_T_CVAR_HANDLE_NULL. */
static MPI_T_cvar_handle int_handle(int index, int bool_ok, int *is_bool) {
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    int count = 0, bind = 0;
    if (!info(index, &type, &enumtype, &bind) ||
        !(type == MPI_INT || (bool_ok && type == MPI_C_BOOL)) ||
        PMPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        return MPI_T_CVAR_HANDLE_NULL;
    }
    if (count != 1) {
        PMPI_T_cvar_handle_free(&handle);
        return MPI_T_CVAR_HANDLE_NULL;
    }
    if (is_bool != NULL) {
        *is_bool = type == MPI_C_BOOL;
    }
    return handle;
}

int cs_mpit_read_int(int index, int *value) {
    int is_bool = 0, ok;
    MPI_T_cvar_handle handle = int_handle(index, 1, &is_bool);
    union {
        int i;
        _Bool b;
        unsigned char bytes[16];
    } buf;
    if (handle == MPI_T_CVAR_HANDLE_NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    memset(&buf, 0, sizeof(buf));
    ok = PMPI_T_cvar_read(handle, &buf) == MPI_SUCCESS;
    *value = is_bool ? (int)buf.b : buf.i;
    PMPI_T_cvar_handle_free(&handle);
    return ok ? CS_OK : CS_ERR_NOT_APPLICABLE;
}

int cs_mpit_write_int(int index, int value) {
    MPI_T_cvar_handle handle = int_handle(index, 0, NULL);
    int ok;
    if (handle == MPI_T_CVAR_HANDLE_NULL) {
        return CS_ERR_NOT_APPLICABLE;
    }
    ok = PMPI_T_cvar_write(handle, &value) == MPI_SUCCESS;
    PMPI_T_cvar_handle_free(&handle);
    return ok ? CS_OK : CS_ERR_NOT_APPLICABLE;
}

/* Enumerations already read, by cvar index (guarded by `lock`): they do not change during a
 * run, and Open MPI 4.1's MPI_T_enum_get_item leaks a copy of the item's name on every call
 * (valgrind), which a setup per communicator would repeat without end. */
#define ENUM_CACHE       16
#define ENUM_CACHE_ITEMS 48
static struct {
    int index, n;
    cs_mpit_item_t items[ENUM_CACHE_ITEMS];
} enum_cache[ENUM_CACHE];
static int enum_cached;

static int read_enum(int index, cs_mpit_item_t *items, int cap, int *n);

int cs_mpit_enum(int index, cs_mpit_item_t *items, int cap, int *n) {
    int rc;
    pthread_mutex_lock(&lock);
    for (int e = 0; e < enum_cached; e++) {
        if (enum_cache[e].index == index) {
            *n = enum_cache[e].n < cap ? enum_cache[e].n : cap;
            memcpy(items, enum_cache[e].items, (size_t)*n * sizeof(*items));
            pthread_mutex_unlock(&lock);
            return CS_OK;
        }
    }
    if (enum_cached < ENUM_CACHE) {
        int e = enum_cached;
        rc = read_enum(index, enum_cache[e].items, ENUM_CACHE_ITEMS, &enum_cache[e].n);
        if (rc == CS_OK && enum_cache[e].n < ENUM_CACHE_ITEMS) { /* complete: keep it */
            enum_cache[e].index = index;
            enum_cached++;
            *n = enum_cache[e].n < cap ? enum_cache[e].n : cap;
            memcpy(items, enum_cache[e].items, (size_t)*n * sizeof(*items));
            pthread_mutex_unlock(&lock);
            return CS_OK;
        }
    }
    rc = read_enum(index, items, cap, n);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int read_enum(int index, cs_mpit_item_t *items, int cap, int *n) {
    MPI_Datatype type;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    int bind = 0, num = 0;
    char ename[64];
    int elen = sizeof(ename);
    *n = 0;
    if (!info(index, &type, &enumtype, &bind) || enumtype == MPI_T_ENUM_NULL ||
        PMPI_T_enum_get_info(enumtype, &num, ename, &elen) != MPI_SUCCESS) {
        return CS_ERR_NOT_APPLICABLE;
    }
    for (int i = 0; i < num && *n < cap; i++) {
        char name[256];
        int len = sizeof(name), value = 0;
        if (PMPI_T_enum_get_item(enumtype, i, &value, name, &len) != MPI_SUCCESS ||
            strlen(name) >= CS_MPIT_NAME) {
            continue;
        }
        items[*n].value = value;
        memcpy(items[*n].name, name, strlen(name) + 1);
        (*n)++;
    }
    return CS_OK;
}

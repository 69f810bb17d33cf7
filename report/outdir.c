/* collsel-report's output directory (see outdir.h). */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Removes `path` and, when it is a directory (not a link to one), everything in it. Returns
 * 0, or -1 with errno of the first failure (it goes on removing what it can). */
static int remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        return errno == ENOENT ? 0 : -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return unlink(path);
    }
    int status = 0, first_errno = 0;
    DIR *d = opendir(path);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
                continue;
            }
            char child[8192];
            int n = snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
            if (n < 0 || (size_t)n >= sizeof(child) || remove_tree(child) != 0) {
                if (status == 0) {
                    first_errno = n < 0 || (size_t)n >= sizeof(child) ? ENAMETOOLONG : errno;
                }
                status = -1;
            }
        }
        closedir(d);
    }
    if (rmdir(path) != 0 && status == 0) {
        first_errno = errno;
        status = -1;
    }
    if (status != 0) {
        errno = first_errno;
    }
    return status;
}

/* Whether directory `dir` is empty (0), holds a collsel report (1), or something else (-1). */
static int what_is_there(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        return -1;
    }
    bool empty = true;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && empty) {
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    }
    closedir(d);
    if (empty) {
        return 0;
    }
    char index[8192];
    snprintf(index, sizeof(index), "%s/index.html", dir);
    FILE *f = fopen(index, "r");
    if (f == NULL) {
        return -1;
    }
    char head[4096];
    size_t n = fread(head, 1, sizeof(head) - 1, f);
    fclose(f);
    head[n] = '\0';
    return strstr(head, CS_OUTDIR_MARK) != NULL ? 1 : -1;
}

int cs_outdir_begin(cs_outdir_t *out, const char *dir, char *why, size_t len) {
    int rc = CS_OK;
    struct stat st;
    memset(out, 0, sizeof(*out));
    CS_REQUIRE(dir != NULL && dir[0] != '\0', CS_ERR_ARG);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') {
        n--;
    }
    if (n >= sizeof(out->dir) - 32) {
        snprintf(why, len, "report directory '%s': path too long", dir);
        rc = CS_ERR_ARG;
        goto out;
    }
    memcpy(out->dir, dir, n);
    out->dir[n] = '\0';
    const char *slash = strrchr(out->dir, '/');
    const char *name = slash != NULL ? slash + 1 : out->dir;
    if (slash == NULL) {
        snprintf(out->parent, sizeof(out->parent), ".");
    } else if (slash == out->dir) {
        snprintf(out->parent, sizeof(out->parent), "/");
    } else {
        snprintf(out->parent, sizeof(out->parent), "%.*s", (int)(slash - out->dir), out->dir);
    }
    if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        snprintf(why, len,
                 "'%s' cannot be a report directory: name a new directory, e.g. %s/report", dir,
                 out->dir);
        rc = CS_ERR_ARG;
        goto out;
    }
    if (stat(out->parent, &st) != 0) {
        snprintf(why, len, "cannot write the report to '%s': '%s': %s", out->dir, out->parent,
                 strerror(errno));
        rc = CS_ERR_ARG;
        goto out;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, len, "cannot write the report to '%s': '%s' is not a directory", out->dir,
                 out->parent);
        rc = CS_ERR_ARG;
        goto out;
    }
    if (lstat(out->dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, len, "'%s' exists and is not a directory; remove it or choose another -o",
                     out->dir);
            rc = CS_ERR_ARG;
            goto out;
        }
        if (what_is_there(out->dir) < 0) {
            snprintf(why, len,
                     "'%s' exists and is not a collsel report (no index.html written by "
                     "collsel-report); remove it or choose another -o",
                     out->dir);
            rc = CS_ERR_ARG;
            goto out;
        }
    }
    snprintf(out->tmp, sizeof(out->tmp), "%s/.%s.tmp-XXXXXX", out->parent, name);
    if (mkdtemp(out->tmp) == NULL) {
        snprintf(why, len, "cannot write the report to '%s': cannot create a directory in '%s': %s",
                 out->dir, out->parent, strerror(errno));
        out->tmp[0] = '\0';
        rc = CS_ERR_ARG;
        goto out;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(out->tmp, 0777 & ~mask) != 0) {
        snprintf(why, len, "cannot write the report to '%s': %s: %s", out->dir, out->tmp,
                 strerror(errno));
        rc = CS_ERR_ARG;
        goto out;
    }
out:
    if (rc < 0) {
        cs_outdir_abort(out);
    }
    return rc;
}

int cs_outdir_path(const cs_outdir_t *out, const char *name, char *buf, size_t len) {
    int n = snprintf(buf, len, "%s/%s", out->tmp, name);
    return n >= 0 && (size_t)n < len ? CS_OK : CS_ERR_ARG;
}

int cs_outdir_commit(cs_outdir_t *out, char *why, size_t len) {
    int rc = CS_OK;
    char old[8448] = "";
    struct stat st;
    const char *slash = strrchr(out->dir, '/');
    const char *name = slash != NULL ? slash + 1 : out->dir;
    if (lstat(out->dir, &st) == 0) {
        /* Moved onto an empty directory of a unique name: rename replaces an empty one. */
        snprintf(old, sizeof(old), "%s/.%s.old-XXXXXX", out->parent, name);
        if (mkdtemp(old) == NULL) {
            snprintf(why, len, "cannot replace '%s': cannot create a directory in '%s': %s",
                     out->dir, out->parent, strerror(errno));
            rc = CS_ERR_ARG;
            goto out;
        }
        if (rename(out->dir, old) != 0) {
            snprintf(why, len, "cannot replace '%s': %s", out->dir, strerror(errno));
            (void)rmdir(old);
            rc = CS_ERR_ARG;
            goto out;
        }
    }
    if (rename(out->tmp, out->dir) != 0) {
        snprintf(why, len, "cannot rename '%s' to '%s': %s", out->tmp, out->dir, strerror(errno));
        if (old[0] != '\0') {
            (void)rename(old, out->dir);
        }
        rc = CS_ERR_ARG;
        goto out;
    }
    out->tmp[0] = '\0';
    if (old[0] != '\0' && remove_tree(old) != 0) {
        fprintf(stderr, "collsel-report: warning: could not remove the previous report '%s': %s\n",
                old, strerror(errno));
    }
out:
    return rc;
}

void cs_outdir_abort(cs_outdir_t *out) {
    if (out->tmp[0] != '\0') {
        if (remove_tree(out->tmp) != 0) {
            fprintf(stderr, "collsel-report: warning: could not remove '%s': %s\n", out->tmp,
                    strerror(errno));
        }
        out->tmp[0] = '\0';
    }
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output.c — every file the library and the tools write goes through here, so that a name means
 * the same thing to all of them:
 *   "-"                                 standard output;
 *   a device, a FIFO, a socket          opened and written in place (no temporary file, no
 *   (or a symbolic link to one), and    rename: renaming over /dev/full would replace the
 *   /dev/stdout, /dev/fd/N, /proc/...   device node with a regular file);
 *   a regular file or a new name        a temporary file in the target's directory, renamed over
 *                                       it at the end: never a half file. Symbolic links are
 *                                       followed first, so a link stays a link and the file it
 *                                       points to is replaced (keeping its permission bits).
 * Every write is checked: a full disk or a closed pipe is GSP_ERR_IO with the path and the
 * system's reason, and the temporary file is removed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gossip/core.h"
#include "core_int.h"

/* The error "cannot write PATH" with the system's reason e. */
static gsp_err_t fail(const char *path, int e) {
    if (!strcmp(path, "-")) return gsp_error(GSP_ERR_IO, "cannot write standard output: %s", strerror(e));
    return gsp_error(GSP_ERR_IO, "cannot write '%s': %s", path, strerror(e));
}

/* The kernel's links to open files (/dev/stdout is /proc/self/fd/1) are not ordinary links:
 * what they name is written in place, never replaced. */
static bool kernel_link(const char *p) {
    return !strncmp(p, "/proc/", 6) || !strncmp(p, "/dev/fd/", 8) || !strcmp(p, "/dev/stdout") ||
           !strcmp(p, "/dev/stderr");
}

/* Follows the symbolic links from path to the name they finally stand for (which need not exist
 * yet: a dangling link creates its target). *in_place when the chain reaches a kernel link.
 * Returns a gsp_malloc'd name, or NULL with errno set. */
static char *resolve(const char *path, bool *in_place) {
    char *p = gsp_strdup(path);
    char link[PATH_MAX];
    *in_place = false;
    for (int hops = 0; p; hops++) {
        struct stat st;
        if (kernel_link(p)) {
            *in_place = true;
            break;
        }
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        ssize_t n = hops < 40 ? readlink(p, link, sizeof link - 1) : -1;
        if (hops >= 40) errno = ELOOP;
        if (n < 0) {
            int e = errno;
            gsp_free(p);
            errno = e;
            return NULL;
        }
        link[n] = 0;
        /* A relative link is relative to the directory holding it. */
        const char *slash = strrchr(p, '/');
        size_t dl = link[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
        char *q = gsp_malloc(dl + (size_t)n + 1);
        if (q) {
            memcpy(q, p, dl);
            memcpy(q + dl, link, (size_t)n + 1);
        }
        gsp_free(p);
        p = q;
    }
    if (!p) errno = ENOMEM;
    return p;
}

/* Where path is written: *in_place (no temporary file), or atomically over *target (links
 * resolved; gsp_malloc'd), which *exists with *st. GSP_ERR_IO when it cannot be written at all
 * (a directory, a loop of links). */
static gsp_err_t classify(const char *path, bool *in_place, char **target, bool *exists, struct stat *st) {
    *target = NULL;
    *exists = false;
    *in_place = !strcmp(path, "-");
    if (*in_place) return GSP_OK;
    char *t = resolve(path, in_place);
    if (!t) return errno == ENOMEM ? gsp_error(GSP_ERR_NOMEM, "out of memory") : fail(path, errno);
    *exists = !*in_place && stat(t, st) == 0;
    if (*exists && S_ISDIR(st->st_mode)) {
        gsp_free(t);
        return fail(path, EISDIR);
    }
    if (*exists && !S_ISREG(st->st_mode)) *in_place = true;
    if (*in_place) gsp_free(t);
    else *target = t;
    return GSP_OK;
}

bool gsp_out_in_place(const char *path) {
    bool in_place, exists;
    char *target;
    struct stat st;
    if (classify(path, &in_place, &target, &exists, &st)) return false;
    gsp_free(target);
    return in_place;
}

gsp_err_t gsp_out_open(gsp_out_t *o, const char *path) {
    static _Thread_local unsigned serial;
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        o->std = true;
        return GSP_OK;
    }
    bool in_place, exists;
    char *target;
    struct stat st;
    gsp_err_t err = classify(path, &in_place, &target, &exists, &st);
    if (err) return err;
    if (in_place) {
        if (!(o->f = fopen(path, "w"))) return fail(path, errno);
        errno = 0;
        return GSP_OK;
    }
    size_t len = strlen(target) + 48;
    char *tmp = gsp_malloc(len);
    if (!tmp) {
        gsp_free(target);
        return gsp_error(GSP_ERR_NOMEM, "out of memory");
    }
    /* O_EXCL: never write through a name someone else made (or a stale link); a clash takes
     * the next serial number. 0666 and the umask, as any new file. */
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(tmp, len, "%s.tmp%ld.%u", target, (long)getpid(), serial++);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        err = fail(path, errno);
        gsp_free(tmp);
        gsp_free(target);
        return err;
    }
    /* Replacing a file keeps its permission bits (the owner is the writer's, as with any new file). */
    if (exists) (void)fchmod(fd, st.st_mode & 07777);
    if (!(o->f = fdopen(fd, "w"))) {
        err = fail(path, errno);
        close(fd);
        unlink(tmp);
        gsp_free(tmp);
        gsp_free(target);
        return err;
    }
    o->tmp = tmp;
    o->target = target;
    errno = 0;
    return GSP_OK;
}

gsp_err_t gsp_out_close(gsp_out_t *o, gsp_err_t err) {
    if (!o->f) return err;
    /* A failed write leaves the stream's error flag, and errno says why, unless a later call
     * changed it (then: an I/O error, EIO). fflush reports what was still buffered. */
    int e = 0;
    if (fflush(o->f) != 0) e = errno ? errno : EIO;
    else if (ferror(o->f)) e = errno ? errno : EIO;
    if (!o->std && fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
    o->f = NULL;
    /* The writer's own "write failed" becomes the path and the reason. */
    if (e && (!err || err == GSP_ERR_IO)) err = fail(o->path, e);
    if (o->tmp) {
        if (!err && rename(o->tmp, o->target) != 0) err = fail(o->path, errno);
        if (err) unlink(o->tmp);
        gsp_free(o->tmp);
        gsp_free(o->target);
        o->tmp = o->target = NULL;
    }
    return err;
}

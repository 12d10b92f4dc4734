/* SPDX-License-Identifier: GPL-3.0-or-later */
/* alloc.c — the one allocation wrapper, with a per-thread fault-injection hook for tests. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gossip/core.h"
#include "core_int.h"

static _Thread_local int64_t fail_countdown;

void gsp_alloc_fail_after(int64_t k) { fail_countdown = k; }

/* Returns true when this allocation should fail by the test hook. */
static bool injected_failure(void) {
    if (fail_countdown <= 0) return false;
    return --fail_countdown == 0;
}

void *gsp_malloc(size_t size) {
    if (injected_failure()) return NULL;
    return malloc(size ? size : 1);
}

void *gsp_calloc(size_t count, size_t size) {
    if (injected_failure()) return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void *gsp_realloc(void *ptr, size_t size) {
    if (injected_failure()) return NULL;
    return realloc(ptr, size ? size : 1);
}

void gsp_free(void *ptr) { free(ptr); }

char *gsp_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = gsp_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

gsp_err_t gsp_alloc_array(void **out, int64_t count, size_t size, bool zero) {
    int64_t bytes;
    *out = NULL;
    if (count < 0 || !gsp_mul_ok(count, (int64_t)size, &bytes))
        return gsp_error(GSP_ERR_OVERFLOW, "allocation of %lld items of %zu bytes overflows",
                         (long long)count, size);
    void *p = zero ? gsp_calloc((size_t)count, size) : gsp_malloc((size_t)bytes);
    if (!p)
        return gsp_error(GSP_ERR_NOMEM, "out of memory allocating %lld bytes", (long long)bytes);
    *out = p;
    return GSP_OK;
}

/* ---- the memory limit: structures are sized before they are built ---- */


static int64_t limit_set; /* 0: the default */

int64_t gsp_memory_limit(void) {
    if (limit_set > 0) return limit_set;
    int64_t env = gsp_parse_bytes(getenv("GOSSIP_MEMORY_LIMIT"));
    if (env > 0) return env;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return (int64_t)8 << 30;
    return (int64_t)pages * page / 2;
}

void gsp_set_memory_limit(int64_t bytes) { limit_set = bytes > 0 ? bytes : 0; }

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_common.h — shared by the libFuzzer harnesses: inputs as C strings or temporary files,
 * and the limits every target runs under (no graph above 1 MB is built: the targets exercise the readers, and
 * bigger graphs only take time). */
#ifndef GOSSIP_FUZZ_COMMON_H
#define GOSSIP_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gossip/gossip.h"

#define FUZZ_MEMORY_LIMIT ((int64_t)1 << 20)

/* The input as a NUL-terminated string (a copy: the input itself is not terminated). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* The input written to a per-process temporary file; returns its path (static storage). */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
    static char path[128];
    snprintf(path, sizeof path, "/tmp/gossip_fuzz_%d%s", (int)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    return path;
}

static inline void fuzz_limits(void) { gsp_set_memory_limit(FUZZ_MEMORY_LIMIT); }

#endif

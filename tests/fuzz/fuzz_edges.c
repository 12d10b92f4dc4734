/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_edges.c — the edge-list reader (file:PATH): any file, a graph or one error. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_limits();
    char spec[160];
    snprintf(spec, sizeof spec, "file:%s", fuzz_file(data, size, ".txt"));
    gsp_topo_t t;
    if (gsp_topo_from_spec(&t, spec) == GSP_OK) {
        for (int64_t a = 0; a < t.m; a++)
            if (t.adj[a] < 0 || t.adj[a] >= t.n) abort();
        gsp_topo_destroy(&t);
    }
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_spec.c — the topology spec parser: any bytes, a graph or one error; a graph that is
 * built must be consistent (arcs inside 0..n-1, offsets increasing). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_limits();
    char *spec = fuzz_string(data, size);
    gsp_topo_t t;
    if (gsp_topo_from_spec(&t, spec) == GSP_OK) {
        if (t.off[0] != 0 || t.off[t.n] != t.m) abort();
        for (int64_t x = 0; x < t.n; x++) {
            if (t.off[x + 1] < t.off[x]) abort();
            for (int64_t a = t.off[x]; a < t.off[x + 1]; a++)
                if (t.adj[a] < 0 || t.adj[a] >= t.n) abort();
        }
        gsp_topo_destroy(&t);
    } else if (!*gsp_errmsg()) {
        abort(); /* every failure says why */
    }
    free(spec);
    return 0;
}

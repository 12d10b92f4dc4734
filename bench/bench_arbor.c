/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_arbor.c — time to pack arc-disjoint spanning trees (the multitree broadcast's plan) for
 * each SPEC, against one BFS from the same root as the yardstick.
 * Usage: bench_arbor SPEC... */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gossip/gossip.h"
#include "gossip/runtime.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    printf("| topology | nodes | trees | deepest | eccentricity | seconds | BFS seconds | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 1; i < argc; i++) {
        gsp_topo_t t;
        if (gsp_topo_from_spec(&t, argv[i])) {
            fprintf(stderr, "bench_arbor: %s\n", gsp_errmsg());
            return 2;
        }
        int32_t *dist = malloc(sizeof *dist * (size_t)t.n);
        int64_t ecc, reached, k, *par, *dep, H = 0;
        double t0 = now();
        gsp_bfs(&t, 0, dist, NULL, &ecc, &reached);
        double tb = now() - t0;
        t0 = now();
        if (gsp_arborescences(&t, 0, 0, &k, &par, &dep)) {
            fprintf(stderr, "bench_arbor: %s\n", gsp_errmsg());
            return 1;
        }
        double ta = now() - t0;
        for (int64_t x = 0; x < k * t.n; x++)
            if (dep[x] > H) H = dep[x];
        printf("| %s | %lld | %lld | %lld | %lld | %.3f | %.6f | %.0f |\n", argv[i], (long long)t.n, (long long)k, (long long)H,
               (long long)ecc, ta, tb, ta / (tb > 0 ? tb : 1e-9));
        gsp_free(par);
        gsp_free(dep);
        free(dist);
        gsp_topo_destroy(&t);
    }
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_bfs.c — the yardstick for `gossip info`: build a topology's arc table and run one
 * plain BFS from node 0, timing each. Usage: bench_bfs SPEC [REPEATS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gossip/gossip.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_bfs SPEC [REPEATS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    gsp_topo_t t;
    double t0 = now();
    if (gsp_topo_from_spec(&t, argv[1])) {
        fprintf(stderr, "bench_bfs: %s\n", gsp_errmsg());
        return 2;
    }
    double build = now() - t0;
    int32_t *dist = malloc(sizeof *dist * (size_t)t.n);
    int64_t *queue = malloc(sizeof *queue * (size_t)t.n), ecc = 0, reached = 0;
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        t0 = now();
        gsp_bfs(&t, 0, dist, queue, &ecc, &reached);
        double s = now() - t0;
        if (s < best) best = s;
    }
    printf("{\"spec\":\"%s\",\"nodes\":%lld,\"arcs\":%lld,\"build_s\":%.6f,\"bfs_s\":%.6f,"
           "\"eccentricity\":%lld}\n",
           argv[1], (long long)t.n, (long long)t.m, build, best, (long long)ecc);
    free(dist);
    free(queue);
    gsp_topo_destroy(&t);
    return 0;
}

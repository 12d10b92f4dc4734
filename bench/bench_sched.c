/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_sched.c — the schedule engine's speed: write and read a schedule file, and the
 * simulator's deliveries per second. Usage: bench_sched SPEC [PACKETS]
 * Builds an allgather with the greedy method (explicit rounds, N(N-1) transfers), then times
 * gsp_sched_save, gsp_sched_load and gsp_sched_verify separately. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_sched SPEC [PACKETS]\n");
        return 2;
    }
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_plan_t plan;
    if (gsp_topo_from_spec(&t, argv[1]) || gsp_distances(&t, true, &d, NULL, NULL)) {
        fprintf(stderr, "bench_sched: %s\n", gsp_errmsg());
        return 2;
    }
    gsp_model_t m = gsp_model_default();
    if (argc > 2) m.packets = atoll(argv[2]);
    gsp_plan_in_t in = {&t, &d, m, -1, 1, NULL, NULL, 0, 0};
    double t0 = now();
    if (gsp_plan(&in, GSP_COLL_ALLGATHER, "greedy", &plan)) {
        fprintf(stderr, "bench_sched: %s\n", gsp_errmsg());
        return 3;
    }
    double plan_s = now() - t0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/bench_sched_%d.json", (int)getpid());
    t0 = now();
    gsp_sched_save(&plan.sched, path);
    double write_s = now() - t0;
    gsp_sched_t back;
    t0 = now();
    if (gsp_sched_load(&back, path)) {
        fprintf(stderr, "bench_sched: %s\n", gsp_errmsg());
        return 3;
    }
    double read_s = now() - t0;
    unlink(path);
    gsp_report_t rep;
    double best = 1e300;
    for (int r = 0; r < 3; r++) {
        t0 = now();
        gsp_sched_verify(&back, &t, 1, &rep);
        if (now() - t0 < best) best = now() - t0;
    }
    printf("{\"spec\":\"%s\",\"rounds\":%lld,\"transfers\":%lld,\"plan_s\":%.3f,\"write_s\":%.3f,\"read_s\":%.3f,"
           "\"verify_s\":%.4f,\"deliveries_per_s\":%.3g,\"ok\":%s}\n",
           argv[1], (long long)back.nrounds, (long long)rep.transfers, plan_s, write_s, read_s, best,
           rep.transfers / best, rep.ok ? "true" : "false");
    gsp_sched_destroy(&back);
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    return 0;
}

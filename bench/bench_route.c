/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_route.c — routing decisions per second in optcirc:N: one decision is the O(1) relative
 * address of the remaining way plus the choice of a direction, as a transit node makes it.
 * Usage: bench_route N [DECISIONS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gossip/gossip.h"

int64_t gsp__optcirc_s(int64_t N);

int main(int argc, char **argv) {
    int64_t N = argc > 1 ? atoll(argv[1]) : 1000000, reps = argc > 2 ? atoll(argv[2]) : 50000000;
    int64_t s = gsp__optcirc_s(N), acc = 0;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, 1);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int64_t i = 0; i < reps; i++) {
        int64_t k = (int64_t)gsp_rng_below(&rng, (uint64_t)N);
        gsp_caddr_t ad = gsp_circ_address(N, s, k);
        acc += ad.x > 0 ? 0 : ad.y > 0 ? 1 : ad.x < 0 ? 2 : 3; /* the direction taken */
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double sec = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    printf("{\"N\":%lld,\"decisions\":%lld,\"seconds\":%.3f,\"decisions_per_second\":%.3g,\"check\":%lld}\n", (long long)N,
           (long long)reps, sec, (double)reps / sec, (long long)acc);
    return 0;
}

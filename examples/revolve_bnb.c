/* SPDX-License-Identifier: GPL-3.0-or-later */
/* revolve_bnb.c — distributed branch-and-bound sharing a global bound over the revolving
 * hierarchy (Section VII of Garg and Ghosh), simulated for N = 2^n processes: a 0/1 knapsack is
 * split among the processes by its first n decisions; each process explores its subtrees depth
 * first, pruning with the best bound it knows; every step the bcnext messages carry each sender's
 * best value and whether it is still busy, so the bound spreads and a global "everyone idle"
 * result ends the search. The answer must equal a sequential dynamic program's.
 * Usage: revolve_bnb [n=4] [items=40] [seed=1]; exit 0 when the answers agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"

typedef struct {
    int item;
    long weight, value;
} node_t;

static int M;
static long *w, *v, C;

/* Upper bound: the fractional knapsack of the items from i on (items sorted by value density). */
static double bound(int i, long weight, long value) {
    double b = (double)value;
    long room = C - weight;
    for (; i < M && room > 0; i++) {
        if (w[i] <= room) room -= w[i], b += (double)v[i];
        else {
            b += (double)v[i] * (double)room / (double)w[i];
            room = 0;
        }
    }
    return b;
}

static int by_density(const void *a, const void *b) {
    const long *x = a, *y = b; /* pairs (w, v) */
    double dx = (double)x[1] / (double)x[0], dy = (double)y[1] / (double)y[0];
    return (dx < dy) - (dx > dy);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4;
    M = argc > 2 ? atoi(argv[2]) : 40;
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
    if (n < 1 || n > 12 || M < n || M > 200) {
        fprintf(stderr, "revolve_bnb: error: expected 1 <= n <= 12 and n <= items <= 200\n");
        return 2;
    }
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    long(*items)[2] = malloc(sizeof *items * (size_t)M);
    long total = 0;
    for (int i = 0; i < M; i++) {
        items[i][0] = 10 + (long)gsp_rng_below(&rng, 90);
        items[i][1] = items[i][0] + (long)gsp_rng_below(&rng, 30); /* correlated: hard for B&B */
        total += items[i][0];
    }
    C = total / 2;
    qsort(items, (size_t)M, sizeof *items, by_density);
    w = malloc(sizeof *w * (size_t)M);
    v = malloc(sizeof *v * (size_t)M);
    for (int i = 0; i < M; i++) w[i] = items[i][0], v[i] = items[i][1];
    /* Sequential truth: dynamic programming over capacities. */
    long *dp = calloc((size_t)C + 1, sizeof *dp);
    for (int i = 0; i < M; i++)
        for (long c = C; c >= w[i]; c--)
            if (dp[c - w[i]] + v[i] > dp[c]) dp[c] = dp[c - w[i]] + v[i];
    long truth = dp[C];

    gsp_revolve_t r;
    if (gsp_revolve_build_list(n, GSP_REVOLVE_BCNEXT, &r)) {
        fprintf(stderr, "revolve_bnb: error: %s\n", gsp_errmsg());
        return 3;
    }
    int64_t N = r.N, depth = gsp_revolve_depth(&r, true), W = depth + 1;
    node_t **stack = calloc((size_t)N, sizeof *stack);
    int64_t *sp = calloc((size_t)N, sizeof *sp), *cap = calloc((size_t)N, sizeof *cap);
    long *best = calloc((size_t)N, sizeof *best), *known = calloc((size_t)N, sizeof *known);
    /* Per process and computation in flight: the largest best value and "someone busy" heard of. */
    long *cbest = malloc(sizeof *cbest * (size_t)(N * W)), *nbest = malloc(sizeof *nbest * (size_t)(N * W));
    char *cbusy = malloc((size_t)(N * W)), *nbusy = malloc((size_t)(N * W));
    for (int64_t p = 0; p < N; p++) {
        cap[p] = 1024;
        stack[p] = malloc(sizeof **stack * (size_t)cap[p]);
        /* The first n decisions (items 0..n-1) are fixed by p's bits. */
        long wt = 0, val = 0;
        for (int i = 0; i < n; i++)
            if (p >> i & 1) wt += w[i], val += v[i];
        if (wt <= C) stack[p][sp[p]++] = (node_t){n, wt, val};
    }
    int64_t t = 0, messages = 0, expanded = 0, answer = -1;
    const int K = 8; /* nodes expanded per process and step */
    for (; t < 1000000 && answer < 0; t++) {
        for (int64_t p = 0; p < N; p++) {
            for (int k = 0; k < K && sp[p] > 0; k++) {
                node_t nd = stack[p][--sp[p]];
                expanded++;
                if (nd.value > best[p]) best[p] = nd.value;
                if (best[p] > known[p]) known[p] = best[p];
                if (nd.item == M || bound(nd.item, nd.weight, nd.value) <= (double)known[p]) continue;
                if (sp[p] + 2 > cap[p]) stack[p] = realloc(stack[p], sizeof **stack * (size_t)(cap[p] *= 2));
                stack[p][sp[p]++] = (node_t){nd.item + 1, nd.weight, nd.value};
                if (nd.weight + w[nd.item] <= C)
                    stack[p][sp[p]++] = (node_t){nd.item + 1, nd.weight + w[nd.item], nd.value + v[nd.item]};
            }
            cbest[p * W + t % W] = best[p];
            cbusy[p * W + t % W] = sp[p] > 0;
        }
        memcpy(nbest, cbest, sizeof *cbest * (size_t)(N * W));
        memcpy(nbusy, cbusy, (size_t)(N * W));
        for (int64_t x = 0; x < N; x++) {
            int64_t y = gsp_revolve_msg(&r, x, t);
            if (y < 0) continue;
            messages++;
            /* The bound rides along, and the partial results of every computation in flight. */
            if (known[x] > known[y]) known[y] = known[x];
            for (int64_t c = t - depth + 1 > 0 ? t - depth + 1 : 0; c <= t; c++) {
                if (cbest[x * W + c % W] > nbest[y * W + c % W]) nbest[y * W + c % W] = cbest[x * W + c % W];
                nbusy[y * W + c % W] |= cbusy[x * W + c % W];
            }
        }
        long *tb = cbest;
        cbest = nbest;
        nbest = tb;
        char *tc = cbusy;
        cbusy = nbusy;
        nbusy = tc;
        /* Computation c = t - depth + 1 is complete at its holder: if nobody was busy at step c,
         * no process can improve any more (work never moves), and its maximum is the answer. */
        int64_t c = t - depth + 1;
        if (c >= 0) {
            int64_t h = gsp_revolve_holder(&r, true, c);
            if (!cbusy[h * W + c % W]) answer = cbest[h * W + c % W];
        }
    }
    printf("revolve_bnb: %d items, capacity %ld, %lld processes: optimum %lld after %lld steps (%lld nodes, %lld messages); "
           "dynamic programming says %ld: %s\n",
           M, C, (long long)N, (long long)answer, (long long)t, (long long)expanded, (long long)messages, truth,
           answer == truth ? "equal" : "DIFFERENT");
    for (int64_t p = 0; p < N; p++) free(stack[p]);
    free(stack), free(sp), free(cap), free(best), free(known), free(cbest), free(nbest), free(cbusy), free(nbusy);
    free(items), free(w), free(v), free(dp);
    gsp_revolve_destroy(&r);
    return answer == truth ? 0 : 1;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_doubling.c — global sum by recursive doubling: in round t every node x exchanges
 * its partial sum with x XOR 2^t and adds what it gets, so after log2 N rounds every node holds
 * the sum of all inputs, each once.
 *
 * One send and one receive per node per round, each with the same neighbour: valid in the
 * one-port model (F1, full duplex), where ceil(log2 N) is the lower bound — met. Applies when
 * N = 2^k and x, x XOR 2^t are adjacent for every x and t: hypercubes (node index bits are the
 * coordinates) and complete graphs of 2^k nodes. Registers at x: 0 its input; in round t
 * (t >= 1) it first appends the sum of its last two registers, then receives the partner's
 * partial sum; after round k - 1 a final sum gives the total. */
#include "algo_int.h"

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    const gsp_topo_t *t = in->topo;
    int64_t N = t->n;
    if (N & (N - 1)) {
        snprintf(why, n, "needs N = 2^k nodes");
        return false;
    }
    for (int64_t x = 0; x < N; x++)
        for (int64_t b = 1; b < N; b <<= 1)
            if (gsp_topo_arc_index(t, x, x ^ b) < 0) {
                snprintf(why, n, "node %lld is not adjacent to %lld (needs x ~ x XOR 2^t: hypercubes, K_{2^k})", (long long)x,
                         (long long)(x ^ b));
                return false;
            }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) {
    int64_t k = 0;
    while (((int64_t)1 << k) < in->topo->n) k++;
    return k;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t N = t->n, K = rounds(in);
    gsp_term_t terms[2];
    if ((err = gsp_sched_init(out, GSP_COLL_ALLREDUCE, t->spec, N, &in->model, -1, "doubling"))) return err;
    /* Registers: round 0 sends register 0 and receives register 1; round t >= 1 appends
     * register 2t (= 2t-2 + 2t-1), sends it, receives 2t+1; the final sum is 2K. */
    for (int64_t r = 0; r < K && !err; r++) {
        if ((err = gsp_sched_round(out))) break;
        if (r > 0)
            for (int64_t x = 0; x < N && !err; x++) {
                terms[0] = (gsp_term_t){2 * r - 2, 1.0};
                terms[1] = (gsp_term_t){2 * r - 1, 1.0};
                err = gsp_sched_combine(out, x, terms, 2);
            }
        for (int64_t x = 0; x < N && !err; x++) err = gsp_sched_send(out, x, x ^ ((int64_t)1 << r), r ? 2 * r : 0);
    }
    if (!err) err = gsp_sched_final(out);
    for (int64_t x = 0; x < N && !err; x++) {
        terms[0] = (gsp_term_t){2 * K - 2, 1.0};
        terms[1] = (gsp_term_t){2 * K - 1, 1.0};
        err = gsp_sched_combine(out, x, terms, 2);
    }
    if (!err) {
        int64_t *result = gsp_malloc(sizeof *result * (size_t)N);
        if (!result) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        for (int64_t x = 0; x < N && !err; x++) result[x] = 2 * K;
        if (!err) err = gsp_sched_set_result(out, result);
        gsp_free(result);
    }
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
    return err;
}

const gsp_method_t gsp__method_allreduce_doubling = {
    "doubling", GSP_COLL_ALLREDUCE, "hypercubes and K_{2^k}, full duplex (any ports): log2 N rounds",
    "baseline: recursive doubling, the one-port bound", applies, rounds, build, false, NULL, false,
    rounds /* cheap: its promise */, .needs = {.full_duplex = true, .ports_why = "partners exchange both ways in the same round", .min_nodes = 2,
                                             .max_nodes = 2048, .size_why = "the verifier's exact linear forms"}};

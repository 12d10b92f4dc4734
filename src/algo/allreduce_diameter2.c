/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_diameter2.c — global sum in 2 rounds on any graph of diameter 2 (Theorem 6 and
 * Corollary 7 of the global-sum paper).
 *
 * The transcribed proof is damaged; the message is derived from the statement. Round 0: every
 * node sends its value to its out-neighbours. Round 1: node j sends to each out-neighbour k
 *     sum over in-neighbours i of j with i != k and no arc i -> k (so d(i, k) = 2) of x_i / n(i, k),
 * where n(i, k) is the number of paths i -> j' -> k of length 2. Node k then adds its own value,
 * the values of its in-neighbours (round 0) and what it received in round 1: each i at distance 2
 * reaches k along n(i, k) paths, each carrying x_i / n(i, k), so every input counts exactly once.
 * Rounds: 2 = D (sum-optimal). Example: the Petersen graph (any two non-adjacent nodes have
 * exactly one common neighbour, so every n(i, k) = 1). */
#include <string.h>

#include "algo_int.h"


static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (in->dist->diameter != 2) {
        snprintf(why, n, "diameter is %lld, not 2", (long long)in->dist->diameter);
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return 2; }

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, *ioff = NULL, *iadj = NULL, *paths = NULL, *got1 = NULL, *result = NULL;
    gsp_term_t *terms = NULL;
    unsigned char *adjk = NULL;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLREDUCE, t->spec, n, &in->model, -1, "diameter2"))) return err;
    if ((err = gsp_alloc_array((void **)&ioff, n + 1, sizeof *ioff, true)) ||
        (err = gsp_alloc_array((void **)&iadj, t->m, sizeof *iadj, false)) ||
        (err = gsp_alloc_array((void **)&paths, n * n, sizeof *paths, true)) ||
        (err = gsp_alloc_array((void **)&got1, n, sizeof *got1, true)) ||
        (err = gsp_alloc_array((void **)&result, n, sizeof *result, false)) ||
        (err = gsp_alloc_array((void **)&terms, n + 2 * t->in_dmax + 2, sizeof *terms, false)) ||
        (err = gsp_alloc_array((void **)&adjk, n * n, 1, true)))
        goto done;
    /* In-neighbours in ascending order: the order their round-0 values arrive (registers 1..). */
    for (int64_t a = 0; a < t->m; a++) ioff[t->adj[a] + 1]++;
    for (int64_t x = 0; x < n; x++) ioff[x + 1] += ioff[x];
    {
        int64_t *pos = NULL;
        if ((err = gsp_alloc_array((void **)&pos, n, sizeof *pos, false))) goto done;
        memcpy(pos, ioff, (size_t)n * sizeof *pos);
        for (int64_t u = 0; u < n; u++)
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) iadj[pos[t->adj[a]]++] = u;
        gsp_free(pos);
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t a = t->off[i]; a < t->off[i + 1]; a++) {
            int64_t j = t->adj[a];
            adjk[i * n + j] = 1;
            for (int64_t b = t->off[j]; b < t->off[j + 1]; b++) paths[i * n + t->adj[b]]++;
        }
    /* Round 0: values to out-neighbours. */
    if ((err = gsp_sched_round(out))) goto done;
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++)
            if ((err = gsp_sched_send(out, u, t->adj[a], 0))) goto done;
    /* Round 1: at j, one combine per out-arc (registers 1 + indeg(j) + q), sent if not empty. */
    if ((err = gsp_sched_round(out))) goto done;
    for (int64_t j = 0; j < n; j++) {
        int64_t indeg = ioff[j + 1] - ioff[j], q = 0;
        for (int64_t a = t->off[j]; a < t->off[j + 1]; a++, q++) {
            int64_t k = t->adj[a], nt = 0;
            for (int64_t r = 0; r < indeg; r++) {
                int64_t i = iadj[ioff[j] + r];
                if (i == k || adjk[i * n + k]) continue;
                terms[nt++] = (gsp_term_t){1 + r, 1.0 / (double)paths[i * n + k]};
            }
            if ((err = gsp_sched_combine(out, j, terms, nt))) goto done;
        }
    }
    for (int64_t j = 0; j < n; j++) {
        int64_t indeg = ioff[j + 1] - ioff[j], q = 0;
        for (int64_t a = t->off[j]; a < t->off[j + 1]; a++, q++) {
            /* An empty combine holds 0; sending it would be harmless but is a wasted message. */
            int64_t k = t->adj[a];
            bool any = false;
            for (int64_t r = 0; r < indeg && !any; r++) {
                int64_t i = iadj[ioff[j] + r];
                any = i != k && !adjk[i * n + k];
            }
            if (!any) continue;
            if ((err = gsp_sched_send(out, j, k, 1 + indeg + q))) goto done;
            got1[k]++;
        }
    }
    /* Final: own value + round-0 values + round-1 messages. */
    if ((err = gsp_sched_final(out))) goto done;
    for (int64_t k = 0; k < n; k++) {
        int64_t indeg = ioff[k + 1] - ioff[k], outdeg = t->off[k + 1] - t->off[k], nt = 0;
        terms[nt++] = (gsp_term_t){0, 1};
        for (int64_t r = 0; r < indeg; r++) terms[nt++] = (gsp_term_t){1 + r, 1};
        for (int64_t r = 0; r < got1[k]; r++) terms[nt++] = (gsp_term_t){1 + indeg + outdeg + r, 1};
        if ((err = gsp_sched_combine(out, k, terms, nt))) goto done;
        result[k] = 1 + indeg + outdeg + got1[k];
    }
    if ((err = gsp_sched_set_result(out, result))) goto done;
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(ioff);
    gsp_free(iadj);
    gsp_free(paths);
    gsp_free(got1);
    gsp_free(result);
    gsp_free(terms);
    gsp_free(adjk);
    return err;
}

const gsp_method_t gsp__method_allreduce_diameter2 = {
    "diameter2", GSP_COLL_ALLREDUCE, "any graph of diameter 2 (2 rounds)", "global-sum paper, Theorem 6 and Corollary 7",
    applies, rounds, build, false, NULL, false,
    rounds /* cheap: its promise */, .needs = {.ports = GSP_NEED_PORTS_ALL, .full_duplex = true,
                                             .ports_why = "every node sends to all its neighbours each round", .max_nodes = 4096}};

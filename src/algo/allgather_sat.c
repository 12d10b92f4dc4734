/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_sat.c — the fewest rounds, found by a SAT solver (gossip/sat.h): from the lower
 * bound up, the first number of rounds the solver can schedule. Every model (ports, duplex,
 * packets); graphs of up to GSP_PROVE_EXPLICIT_MAX nodes in the explicit form (the result is
 * optimal among all schedules), larger Cayley graphs in the compact symmetric form (optimal
 * among symmetric schedules). The plan's time limit (default 60 s) bounds the whole search,
 * every solve together; running out is an error rather than a guess. Run only when named: `gossip plan
 * allgather SPEC --method sat`. Example: hypercube:3 with one port and p = 1 in 7 rounds. */
#include <stdio.h>
#include <string.h>

#include "algo_int.h"
#include "gossip/sat.h"

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (in->topo->n > GSP_PROVE_EXPLICIT_MAX && !in->topo->group) {
        snprintf(why, n, "needs at most %d nodes, or a Cayley graph", GSP_PROVE_EXPLICIT_MAX);
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) {
    (void)in;
    return -1;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    gsp_bounds_t b;
    const gsp_topo_t *t = in->topo;
    double limit = in->time_limit > 0 ? in->time_limit : 60;
    gsp_sat_form_t form = t->n <= GSP_PROVE_EXPLICIT_MAX ? GSP_SAT_EXPLICIT : GSP_SAT_SYMMETRIC;
    if ((err = gsp_bounds_compute(t, in->dist, GSP_COLL_ALLGATHER, &in->model, -1, &b))) return err;
    /* Enough rounds always exist: N - 1 rounds of one packet along a spanning tree's edges
     * would do, so the loop ends. */
    gsp__sat_search_t search;
    gsp__sat_search_begin(&search, limit, in->progress, in->progress_ctx);
    for (int64_t R = gsp_bounds_value(&b); R <= t->n * t->n; R++) {
        gsp_sat_answer_t ans;
        if ((err = gsp__sat_search_solve(&search, t, &in->model, R, form, &ans, out, NULL))) return err;
        if (ans == GSP_SAT_YES) return GSP_OK;
        if (ans == GSP_SAT_UNKNOWN)
            return gsp_error(GSP_ERR_LIMIT, "%s: the SAT search ran out of its time limit (%g s) at %lld rounds (fewer have no schedule)",
                             t->spec, limit, (long long)R);
    }
    return gsp_error(GSP_ERR_INTERNAL, "%s: no schedule found", t->spec);
}

const gsp_method_t gsp__method_allgather_sat = {
    "sat", GSP_COLL_ALLGATHER, "any model; up to 64 nodes, or Cayley graphs (symmetric schedules); on request only",
    "exact: a SAT solver (CaDiCaL) from the lower bound up", applies, rounds, build, false, NULL, true, NULL,
    .needs = {0} /* any model; its size limit depends on the group: applies() */};

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_isomorphic.c — a graph given as a file that nauty shows to be a known Cayley graph
 * relabelled (a torus of some shape, a hypercube, a star graph, a complete graph, a circulant)
 * is planned as that spec — with the group's symmetric methods (rotation, balanced search,
 * circulant gossip) and their rounds — and the schedule is carried back through the
 * isomorphism onto the file's nodes. A torus given as an edge list then gets the rounds its
 * spec gets, where the greedy stays a round or more above. A Cayley graph of no known family
 * (a regular subgroup of its automorphisms, up to 2048 nodes) is planned on that group. */
#include <stdio.h>
#include <string.h>

#include "algo_int.h"

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    const gsp_topo_t *t = in->topo;
    if (t->group) {
        snprintf(why, n, "already a Cayley graph by its spec");
        return false;
    }
    if (t->dmin != t->dmax) {
        snprintf(why, n, "needs a regular graph (a Cayley graph is regular)");
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    char *spec = NULL, label[512];
    int64_t *map = NULL, *back = NULL;
    gsp_topo_t ts;
    gsp_distances_t ds;
    gsp_plan_t p;
    gsp_sched_t ex;
    memset(&ts, 0, sizeof ts);
    memset(&ds, 0, sizeof ds);
    memset(&p, 0, sizeof p);
    memset(&ex, 0, sizeof ex);
    if ((err = gsp_cayley_match(t, &spec, &map))) return err;
    if (spec) {
        if ((err = gsp_topo_from_spec(&ts, spec))) goto done;
    } else {
        /* No known family: any group at all? A regular subgroup of Aut makes t itself, node
         * for node, the Cayley graph of that group on the neighbours of node 0. */
        int ans;
        double aut;
        gsp_group_t *grp = NULL;
        if ((err = gsp_cayley_regular(t, &ans, &aut, &grp))) return err;
        if (!grp)
            return gsp_error(GSP_ERR_NOTAPPLIC, "%s", ans == 0 ? "not a Cayley graph (no regular subgroup of its automorphisms)"
                                                  : "not isomorphic to a torus, hypercube, star graph, complete graph or circulant "
                                                    "C(N; 1, b), and its automorphism group is too large to search for a regular subgroup");
        int64_t d = t->off[1] - t->off[0];
        if ((err = gsp_topo_cayley(&ts, grp, t->adj + t->off[0], (int)d, false, t->spec))) goto done;
        if ((err = gsp_alloc_array((void **)&map, t->n, sizeof *map, false))) goto done;
        for (int64_t v = 0; v < t->n; v++) map[v] = v;
        char what[64];
        snprintf(what, sizeof what, "a group of order %lld", (long long)t->n);
        if (!(spec = gsp_strdup(what))) {
            err = gsp_error(GSP_ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    if ((err = gsp_distances(&ts, true, &ds, NULL, NULL))) goto done;
    gsp_plan_in_t in2 = *in;
    in2.topo = &ts;
    in2.dist = &ds;
    if ((err = gsp_plan(&in2, GSP_COLL_ALLGATHER, "auto", &p))) goto done;
    const gsp_sched_t *s = &p.sched;
    if (s->symmetric) {
        if ((err = gsp_sched_expand(s, &ts, &ex))) goto done;
        s = &ex;
    }
    if ((err = gsp_alloc_array((void **)&back, t->n, sizeof *back, false))) goto done;
    for (int64_t v = 0; v < t->n; v++) back[map[v]] = v;
    snprintf(label, sizeof label, "isomorphic: %s by %s", spec, p.method->name);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, t->n, &in->model, -1, label))) goto done;
    for (int64_t r = 0; r < s->nrounds && !err; r++) {
        if ((err = gsp_sched_round(out))) break;
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1] && !err; k++)
            err = gsp_sched_send(out, back[s->sends[k].u], back[s->sends[k].v], back[s->sends[k].x]);
    }
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
done:
    gsp_free(spec);
    gsp_free(map);
    gsp_free(back);
    gsp_sched_destroy(&ex);
    gsp_plan_destroy(&p);
    gsp_distances_destroy(&ds);
    gsp_topo_destroy(&ts);
    return err;
}

const gsp_method_t gsp__method_allgather_isomorphic = {
    "isomorphic",
    GSP_COLL_ALLGATHER,
    "files that are Cayley graphs: a torus, hypercube, star graph, complete graph or circulant relabelled (nauty, N <= 4096), or a group found in Aut (N <= 2048)",
    "the symmetric methods of the spec, carried through the isomorphism",
    applies,
    rounds,
    build,
    false,
    NULL,
    false,
    NULL,
    .needs = {.undirected = true, .min_nodes = 3, .max_nodes = GSP_CAYLEY_MATCH_MAX, .size_why = "the search for a group"},
};

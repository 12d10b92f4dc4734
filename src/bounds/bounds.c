/* bounds.c — lower bounds on rounds. The diameter bounds every collective with every packet
 * size; the degree bound counts packets through the in-arcs of the node that must hear from
 * everyone (Prop. 7–8 of the packet-gossip paper). */
#include <string.h>

#include "gossip/bounds.h"

static void add(gsp_bounds_t *b, const char *name, const char *source, int64_t v) {
    if (b->count == GSP_MAX_BOUNDS) return;
    b->b[b->count].name = name;
    b->b[b->count].source = source;
    b->b[b->count].value = v;
    if (b->count == 0 || v > b->b[b->binding].value) b->binding = b->count;
    b->count++;
}

int64_t gsp_bounds_value(const gsp_bounds_t *b) { return b->count ? b->b[b->binding].value : 0; }

gsp_err_t gsp_bounds_compute(const gsp_topo_t *t, const gsp_distances_t *dist,
                             gsp_collective_t c, const gsp_model_t *m, gsp_bounds_t *out) {
    memset(out, 0, sizeof *out);
    if (!dist->connected)
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: the graph is not connected", t->spec);
    int64_t n = t->n;
    if (c == GSP_COLL_BROADCAST) {
        add(out, "diameter", "a packet moves one arc per round", dist->diameter);
        return GSP_OK;
    }
    add(out, "diameter",
        c == GSP_COLL_ALLREDUCE ? "global-sum paper, Problem A: every input must reach every node"
                                : "packet-gossip paper, Prop. 6",
        dist->diameter);
    if (c == GSP_COLL_ALLGATHER && m->packets != GSP_PACKETS_INF && t->in_dmin > 0) {
        int64_t cap;
        if (!gsp_mul_ok(t->in_dmin, m->packets, &cap))
            cap = INT64_MAX;
        add(out, "degree", t->directed ? "packet-gossip paper, Prop. 8 (in-degree)"
                                       : "packet-gossip paper, Prop. 7",
            gsp_ceil_div(n - 1, cap));
    }
    return GSP_OK;
}

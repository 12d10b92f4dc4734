/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_fabric_rings.c — allgather, reduce-scatter and allreduce on a box of directly linked compute
 * nodes (mi250:1's xGMI), or on alike such boxes with a link each into one network switch
 * (mi250:B), by Hamiltonian rings (gsp__forest_rings, fabric_rings.c): each root's share of a
 * ring sent both ways round its box, and across boxes relayed once over the network to its
 * counterparts, which send it round theirs (gsp__forest_relay, fabric_relay.c). Pipelined as
 * `fabric-trees` runs its trees (rt_fabric.c: the phases, the rule, the cost).
 *
 * Why beside the packings that reach the optimum: their trees load an arc mostly at their first
 * levels and are deep (mi250:2: 18 to 23 levels), so a pipeline leaves arcs idle while it fills
 * and drains; a ring's trees load each arc with at most one root's data a level, and are N/2 + 1
 * deep. mi250:2's relay rings reach 2400/7 (0.968 of the optimum 5312/15; mi250:4 and mi250:8
 * the optimum itself), 9 deep. The edges over the network keep two segments in flight
 * (GSP__RT_FOREST_WIDE_SWITCHED, rt_fabric.c). Measured under SimGrid SMPI with its factors at 1
 * (bench/README.md), 64 MiB, against the shallow trees chosen before: allgather 241.9 -> 211.1 us
 * (1.11x the bound), reduce-scatter 278.6 -> 220.3 (1.16x, its sums for the network first: rt_fabric.c),
 * allreduce 505.4 -> 444.6 (1.17x). */
#include <string.h>

#include "analysis/analysis_int.h"
#include "rt_int.h"

static bool direct_box(const gsp_topo_t *f) { return !f->is_switch && gsp_topo_compute_count(f) <= 32; }

static gsp_err_t rings(const gsp_topo_t *fab, gsp_collective_t c, int64_t root, gsp_forest_t *out) {
    bool ok = false;
    if (direct_box(fab)) return gsp__forest_rings(fab, c, root, out);
    gsp_err_t err = gsp__forest_relay(fab, c, gsp__forest_rings, out, &ok);
    if (!err && !ok) err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: not boxes of linked compute nodes on one network switch", fab->spec);
    return err;
}

static bool applies(const gsp__rt_ctx_t *x) {
    bool ok = false;
    if (x->fabric == NULL || x->coll == GSP_COLL_BROADCAST) return false;
    if (direct_box(x->fabric)) return true;
    return !gsp__relay_shape(x->fabric, &ok) && ok;
}

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    const char *what = direct_box(x->fabric) ? "ring trees (Hamiltonian rings of the box)" : "ring trees (Hamiltonian rings of each box, relayed once over the network)";
    return gsp__rt_forest_algo(x, al, rings, what, GSP__RT_FOREST_WIDE_SWITCHED);
}

const gsp__rt_method_t gsp__rt_fabric_rings = {
    "fabric-rings",
    GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE),
    "a box of up to 32 directly linked compute nodes, or alike such boxes each node with a link to one network switch: ranks are the compute nodes",
    "half a ring, one more across boxes, pipelined",
    "Hamiltonian rings sharing each box's link capacities (gsp__forest_rings), every root's share sent both ways round them; across boxes "
    "each block sent once over the network to its counterpart in every other box, which sends it round its own (gsp__forest_relay); "
    "reduce-scatter: the in-trees; allreduce: both",
    applies, add, NULL};

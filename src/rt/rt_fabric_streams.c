/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_fabric_streams.c — broadcast on a fabric by its packing at the throughput optimum as it is
 * packed (gsp__fabric_trees, no trades, not relieved), where that packing is a few wide trees:
 * two or more, deeper than GSP__RT_FILL_LEVELS, all of one multiplicity, each carrying at least
 * the fabric's slowest link's capacity (mi250:1: six trees from a GCD, 50 GB/s each, 13 deep).
 * Each tree carries one block as one stream per edge: the MPI runtime cuts its messages in chunks
 * of the cost model's cheapest band on every route, a relay passes each chunk on as it arrives,
 * and each stream keeps about a latency's worth of its tree's rate in flight (mpi_engine.c:
 * wide_lanes). On a box of linked compute nodes the trees are made shallower by SAT first
 * (fabric_sat_depth.c: 13 -> 10 levels on mi250:1). The phase is marked (gsp_rt_phase_t: streams)
 * for the engine and the cost model (rt_cost.c).
 *
 * Why beside `fabric-trees`, which runs the same optimum relieved and traded as a tree per part
 * (rt_fabric.c: mi250:1's 300 trees of one part each): there every arc carries dozens of trees'
 * messages at once, shared alike, so a lane's message on it moves at a 50th of the arc, and each
 * of the 13 levels waits a lane (about 10 us under SimGrid SMPI's defaults at 64 MiB: the call
 * 371.3 us, 1.66x the bound 223.7). A tree as wide as a link passes a chunk on per hop at about
 * a chunk's latency instead: 64 MiB 371.3 -> 282.2 us, 16 MiB 130.4 -> 111.3, 4 MiB 75.2 -> 68.1;
 * 10 levels deep, 277.0, 105.5, 63.8 (bench/README.md). At 1 MiB a tree's block is fewer chunks than a stream keeps in flight, and
 * the relieved trees stay faster (43.4 us against 48.4): the cost model chooses between the two.
 * On a fabric with switches whose optimum is a whole number of its slowest links (mi250:2: 256 =
 * 16 NICs of 16 GB/s) the trees are made so first, one such link wide each, by SAT
 * (fabric_sat_switched.c: 16 trees, 9 deep): the packing there is 72 trees of multiplicities 1
 * to 15, which the relieved trees run as 256 of one part, 340.9 us at 64 MiB (1.30x the bound
 * 262.1); streamed, the 16 trees take 300.0. Four boxes (mi250:4) get 16 such trees too, the
 * boxes past the first copies of it, chained (10 deep): 391.1 -> 317.0 us at 64 MiB on the first
 * 11-level version. Declines (GSP_ERR_NOTAPPLIC: the method is then not a candidate) where
 * neither is so (dgx:8x4's 24 trees of 8.3 GB/s each). */
#include <string.h>

#include "analysis/analysis_int.h"
#include "rt_int.h"

/* Whether forest f (a broadcast's packing on fab) is a few wide trees (see the top). */
static bool wide(const gsp_topo_t *fab, const gsp_forest_t *f) {
    if (f->ntrees < 2 || f->depth <= GSP__RT_FILL_LEVELS || f->num <= 0 || f->den <= 0) return false;
    for (int64_t i = 1; i < f->ntrees; i++)
        if (f->trees[i].mult != f->trees[0].mult) return false;
    /* algbw / trees >= the slowest arc, in the capacities' integer unit (cap / cap_scale):
     * num * cap_scale >= den * trees * cap, in doubles (exact below 2^53, and a tie is rare). */
    double scale = fab->cap_scale > 0 ? (double)fab->cap_scale : 1, slowest = 0;
    for (int64_t a = 0; a < fab->off[fab->n]; a++) {
        double c = fab->cap ? (double)fab->cap[a] : 1;
        if (a == 0 || c < slowest) slowest = c;
    }
    return (double)f->num * scale >= (double)f->den * (double)f->ntrees * slowest;
}

static gsp_err_t packed(const gsp_topo_t *fab, gsp_collective_t c, int64_t root, gsp_forest_t *out) {
    gsp_err_t err;
    /* A NIC wide each, through the switches (see the top), where that applies. */
    if (fab->is_switch && c == GSP_COLL_BROADCAST) {
        err = gsp__forest_sat_switched(fab, root, out);
        if (!err && wide(fab, out)) return GSP_OK;
        if (!err) gsp_forest_destroy(out); /* as shallow as 3 levels: not what streams are for */
        else if (err != GSP_ERR_NOTAPPLIC) return err;
    }
    err = gsp__fabric_trees(fab, c, root, false, out);
    if (err) return err;
    if (!wide(fab, out)) {
        gsp_forest_destroy(out);
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: the broadcast's packing is not a few trees each as wide as a link", fab->spec);
    }
    /* Shallower by SAT where the fabric is a box of linked compute nodes (each level costs a
     * chunk's latency streamed). */
    if ((err = gsp__forest_sat_shallow(fab, out))) gsp_forest_destroy(out);
    return err;
}

static bool applies(const gsp__rt_ctx_t *x) { return x->fabric != NULL && x->coll == GSP_COLL_BROADCAST; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    return gsp__rt_forest_algo(x, al, packed, "wide spanning trees at the throughput optimum, streamed", GSP__RT_FOREST_STREAMS);
}

const gsp__rt_method_t gsp__rt_fabric_streams = {
    "fabric-streams",
    GSP__RT_COLL(GSP_COLL_BROADCAST),
    "fabrics whose broadcast optimum is two or more trees deeper than 3 levels, of one multiplicity, each at least as wide as the slowest link (the packing, or through one switch level by SAT): ranks are the compute nodes",
    "the deepest tree, pipelined",
    "the spanning trees that reach the fabric's throughput optimum as packed (gsp_fabric_trees), or each a slowest link wide through the switches (by SAT), a block each, every tree edge a stream of chunks that each relay passes on as they arrive",
    applies, add, NULL};

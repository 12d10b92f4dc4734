/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis_int.h — the analysis module's internals shared between its files: the max-flow
 * network of maxflow.c, used by the throughput optimum (optimum.c) and the tests. */
#ifndef GOSSIP_ANALYSIS_INT_H
#define GOSSIP_ANALYSIS_INT_H

#include "gossip/core.h"
#include "gossip/fabric.h"

/* A flow network in residual form: arc 2k is the k-th arc added, arc 2k+1 its reverse (capacity
 * 0 unless given). Capacities are int64 and must keep every sum below 2^62 (the caller checks). */
typedef struct {
    int64_t n, m;           /* vertices; arcs including the reverse ones */
    int64_t cap_arcs;       /* room for this many arcs */
    int64_t *to;            /* head of each arc */
    int64_t *cap;           /* capacity of each arc (what reset restores) */
    int64_t *res;           /* residual capacity */
    int64_t *first, *list;  /* CSR of arc ids per tail (built by gsp__flow_seal) */
    int64_t *level, *it, *queue, *path;
    int64_t *dirty;         /* arcs whose residual differs from cap (restored lazily) */
    int64_t ndirty;
    uint8_t *is_dirty;
    int64_t *lab, nlab;     /* the vertices the last BFS labelled */
    int64_t *adm_head, *adm_next; /* the admissible arcs of a phase, chained per tail */
    int64_t src, *src_head, *src_next; /* the arcs of source src, chained per head */
    int64_t scanned;        /* list entries the last BFS scanned */
    bool sealed;
} gsp__flow_t;

/* A network of n vertices with room for max_arcs arcs (forward ones). */
gsp_err_t gsp__flow_init(gsp__flow_t *f, int64_t n, int64_t max_arcs);
void gsp__flow_destroy(gsp__flow_t *f);
/* Adds arc u -> v of capacity c (and v -> u of capacity rc); returns its id (even) via *id. */
gsp_err_t gsp__flow_add(gsp__flow_t *f, int64_t u, int64_t v, int64_t c, int64_t rc, int64_t *id);
/* Builds the per-vertex arc lists; no arc may be added afterwards. */
gsp_err_t gsp__flow_seal(gsp__flow_t *f);
/* Sets the capacity of arc id (even: the forward arc; odd: the reverse one). */
static inline void gsp__flow_set_cap(gsp__flow_t *f, int64_t id, int64_t c) { f->cap[id] = f->res[id] = c; }
/* Maximum flow from s to t by Dinic's algorithm, from zero flow, stopping as soon as the value
 * reaches limit (INT64_MAX: no limit). Returns the value (at most limit). O(n^2 m) worst case,
 * a few BFS phases on the shallow networks of fabrics. Only the arcs the previous flow used are
 * reset, and each phase's BFS runs backwards from t and stops at s, so a flow that finds t
 * near s is cheap. */
int64_t gsp__flow_max(gsp__flow_t *f, int64_t s, int64_t t, int64_t limit);
/* After gsp__flow_max returned less than its limit: side[x] = 1 for the vertices reachable from
 * s in the residual network (the source side of a minimum cut, the smallest one), else 0. */
void gsp__flow_source_side(gsp__flow_t *f, int64_t s, uint8_t *side);

/* out[a] = 1 for the arcs of t leaving the smallest or the largest minimum cut between root and
 * a compute node whose maximum flow from root is the broadcast's optimum (cut_arcs.c), else 0;
 * out: t->m entries. GSP_ERR_RANGE when root is not a compute node. */
gsp_err_t gsp__broadcast_cut_arcs(const gsp_topo_t *t, int64_t root, uint8_t *out);

/* The working graph of the trees on a fabric (fabric_split.c, fabric_pack.c, fabric_trees.c):
 * a multigraph on the fabric's vertices plus a source n, whose arcs carry integer capacities
 * (the fabric's scaled by the optimum's denominator) and a route each. Splitting a switch off
 * replaces capacity on u -> w and w -> v by an arc u -> v whose route is the two joined, so
 * parallel arcs are kept apart: a tree edge is always one route. */
typedef struct {
    int64_t n;                  /* fabric vertices; the source is vertex n */
    int64_t narcs, arcs_room;
    int64_t *tail, *head, *cap, *route;
    int64_t nroutes, routes_room;
    int64_t *ra, *rb;           /* route r: the fabric arc ra[r] when rb[r] < 0, else route ra[r]
                                   followed by route rb[r] */
    int64_t *src;               /* n entries: the source's arc to each vertex (0: none) */
    int64_t kreq;               /* what every compute node must receive: the sum of src */
    const uint8_t *is_switch;   /* borrowed from the fabric (NULL: none) */
    int64_t flows;              /* maximum flows computed */
} gsp__wgraph_t;

/* A tree of the packing: the working arcs it uses, in the order they were added (each one's
 * tail already in the tree), with its multiplicity. */
typedef struct {
    int64_t root, mult, narcs;
    int64_t *arcs;
} gsp__wtree_t;

gsp_err_t gsp__wg_add_arc(gsp__wgraph_t *g, int64_t u, int64_t v, int64_t c, int64_t route);
gsp_err_t gsp__wg_add_route(gsp__wgraph_t *g, int64_t a, int64_t b, int64_t *id);
void gsp__wg_destroy(gsp__wgraph_t *g);
/* Removes every switch of g by splitting off its arcs in pairs, each pair by the most that keeps
 * every compute node's connectivity from the source at least kreq (fabric_split.c). */
gsp_err_t gsp__fabric_split(gsp__wgraph_t *g);
/* Packs spanning arborescences from the source into the compute-only g: multiplicities summing
 * to src[c] from each compute node c (fabric_pack.c). trees [out] owned by the caller. */
gsp_err_t gsp__fabric_pack(gsp__wgraph_t *g, gsp__wtree_t **trees, int64_t *ntrees);
/* Moves compute nodes of the trees of f on t under shallower parents where a route has the
 * tree's multiplicity to spare (fabric_shallow.c); loads stay within cap_factor * cap. */
gsp_err_t gsp__forest_shallow(const gsp_topo_t *t, gsp_forest_t *f);
/* Trades parents between trees of f on t where that makes the deepest trees shallower
 * (fabric_swap.c): every arc keeps its load; trees may be split (at most 4x as many). */
gsp_err_t gsp__forest_swap(const gsp_topo_t *t, gsp_forest_t *f);
/* A broadcast's trees of one multiplicity on a fabric without switches, at most
 * GSP__SAT_DEPTH_TREES trees and GSP__SAT_DEPTH_NODES vertices, made as shallow as a SAT solver
 * finds within GSP__SAT_DEPTH_CONFLICTS conflicts a depth, each arc within the packing's load
 * (fabric_sat_depth.c); elsewhere, or where it finds none shallower, f as it was. */
gsp_err_t gsp__forest_sat_shallow(const gsp_topo_t *t, gsp_forest_t *f);
/* Releases trees[0 .. n) and the array (gsp_forest_destroy's part; NULL: nothing). */
void gsp__trees_destroy(gsp_tree_t *trees, int64_t n);
#define GSP__SAT_DEPTH_TREES 8
#define GSP__SAT_DEPTH_NODES 32
#define GSP__SAT_DEPTH_CONFLICTS 4000
/* A broadcast on a fabric whose switches link only compute nodes, where its optimum is T times
 * the slowest link (2 <= T <= GSP__SAT_SWITCHED_TREES): T trees of one multiplicity, each edge a
 * link or a route through one switch, each arc carrying at most floor(cap / slowest) tree edges,
 * as shallow as a SAT solver finds (fabric_sat_switched.c): depths from the farthest compute
 * node's distance up to GSP__SAT_SWITCHED_SLACK more, GSP__SAT_SWITCHED_CONFLICTS conflicts a
 * depth; where several boxes lie past the root's box's NICs, copies of one, the solver sees the
 * first and the others chain on from it. out [out] owns its trees. GSP_ERR_NOTAPPLIC where it
 * does not apply or finds none. */
gsp_err_t gsp__forest_sat_switched(const gsp_topo_t *t, int64_t root, gsp_forest_t *out);
/* A satisfied solver's parent edges (fabric_sat_depth.c): par[tr n + v] the edge x (of ne, heads
 * head[x]) whose variable 1 + tr ne + x is true, -1 at the root; both SAT encodings number their
 * parent variables so. s is a CCaDiCaL solver (ccadical.h). */
struct CCaDiCaL;
void gsp__sat_parents(struct CCaDiCaL *s, int T, int64_t n, int64_t root, int64_t ne, const int64_t *head, int64_t *par);
#define GSP__SAT_SWITCHED_TREES 32
#define GSP__SAT_SWITCHED_NODES 64
#define GSP__SAT_SWITCHED_ALL 1024
#define GSP__SAT_SWITCHED_CONFLICTS 100000
#define GSP__SAT_SWITCHED_SLACK 8
/* Moves compute nodes of f's trees (cut into trees of one unit) to other parents where that
 * lowers the loads of the most loaded arcs, no arc above the forest's largest load over capacity
 * and no tree deeper than the forest's deepest (fabric_relieve.c); equal trees merged back.
 * moves [out, may be NULL]: how many were made (0: f untouched). */
gsp_err_t gsp__forest_relieve(const gsp_topo_t *t, gsp_forest_t *f, int64_t *moves);
/* Two-level trees (depth <= 2) for allgather or reduce-scatter on boxes of compute nodes, each
 * on its box's switch and all on one network switch, and a broadcast's from root across three
 * boxes or more, two network hops deep (fabric_boxes.c); *ok false when the fabric is not of
 * that shape. The trees' algbw is recounted (out->num / den); the caller compares it
 * with the optimum. */
gsp_err_t gsp__forest_boxes(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out, bool *ok);
/* Sets f->cap_factor to the least integer q with every arc's load (the sum of mult over the
 * routes using it) at most q times its capacity (fabric_trees.c): for trees not packed under
 * the capacities, so that their round form (gsp_forest_sched) keeps its capacity rule. */
gsp_err_t gsp__forest_fit(const gsp_topo_t *t, gsp_forest_t *f);
/* Shallow trees near the throughput optimum (fabric_mwu.c): for allgather and reduce-scatter
 * (in-trees, out->reversed) trees from every compute node, for broadcast from root, each root's
 * multiplicities summing to out->share, grown by multiplicative weights with a penalty per level;
 * out->num / out->den their algbw recounted from their routes (at most the optimum). */
gsp_err_t gsp__forest_mwu(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out);
/* The arc x -> y of t (its CSR position in t->adj), or -1: a scan of x's arcs. */
static inline int64_t gsp__arc(const gsp_topo_t *t, int64_t x, int64_t y) {
    for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
        if (t->adj[a] == y) return a;
    return -1;
}
/* A forest builder: trees for collective c on fabric t (root: broadcast's), as gsp_fabric_trees. */
typedef gsp_err_t (*gsp__forest_builder_fn)(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out);
/* Relay trees (fabric_relay.c) for allgather or reduce-scatter on alike boxes of directly linked
 * compute nodes, each with a link to one network switch: sub's packing of one box, used in every
 * box, each root's block relayed over its NIC to its counterparts; *ok false when the fabric is
 * not of that shape (then out is empty). */
gsp_err_t gsp__forest_relay(const gsp_topo_t *t, gsp_collective_t c, gsp__forest_builder_fn sub, gsp_forest_t *out, bool *ok);
/* Allgather or reduce-scatter trees on a small direct network (at most 32 nodes, symmetric
 * links) by Hamiltonian rings sharing its capacities, each root's share sent both ways round
 * (fabric_rings.c). GSP_ERR_NOTAPPLIC where no ring is found. */
gsp_err_t gsp__forest_rings(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out);
/* Whether t is of the shape gsp__forest_relay needs. */
gsp_err_t gsp__relay_shape(const gsp_topo_t *t, bool *ok);
/* gsp_fabric_trees, with (trade) or without the trades of gsp__forest_swap: the runtime runs the
 * packing as it is, fewer trees (each is a message per edge and lane; rt_fabric.c). */
gsp_err_t gsp__fabric_trees(const gsp_topo_t *t, gsp_collective_t c, int64_t root, bool trade, gsp_forest_t *out);



/* Exact arithmetic of the fabric optimum and its trees (optimum.c, fabric_trees.c): 128-bit
 * products of 62-bit capacities, and the greatest common divisors that keep fractions reduced
 * (1 for gcd(0, 0), so a division by it is always safe). */
typedef __int128 gsp__i128;

static inline int64_t gsp__gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a ? a : 1;
}

static inline gsp__i128 gsp__gcd128(gsp__i128 a, gsp__i128 b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        gsp__i128 r = a % b;
        a = b;
        b = r;
    }
    return a ? a : 1;
}

#endif

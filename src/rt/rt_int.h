/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_int.h — internals of the runtime's algorithms (not installed): the registry's entry type,
 * the context every algorithm is added from, and the phase builders they share. */
#ifndef GOSSIP_RT_INT_H
#define GOSSIP_RT_INT_H

#include "gossip/fabric.h"
#include "gossip/runtime.h"
#include "../algo/algo_int.h"

/* Explicit schedules (graphs without a group): N(N-1) transfers a phase. */
#define GSP_RT_EXPLICIT_MAX_NODES 4096

/* What an algorithm is added from: the collective, the topology, and what the set computed once
 * for every algorithm (the flood and the broadcast tree in compact form, lower bounds). */
typedef struct {
    gsp_rt_algos_t *set;
    const gsp_topo_t *t;
    const gsp_distances_t *d;
    gsp_collective_t coll;
    int64_t root;     /* broadcast and reduce: the root; else -1 */
    bool cayley;      /* t has a group: compact forms */
    bool big;         /* no group and above GSP_RT_EXPLICIT_MAX_NODES: no explicit schedules */
    bool tree_method; /* the set's method names a broadcast tree, not an allgather */
    int64_t R1;       /* fewest rounds of a p = 1 allgather: max(ceil((N-1)/maxdeg), D) */
    int64_t ecc;      /* D, or the root's eccentricity for broadcast and reduce */
    const gsp_sched_t *flood; /* Cayley graphs: the flood's first deliveries (symmetric), else NULL */
    const char *f_flood;
    const gsp_sched_t *tree;  /* allreduce, broadcast, reduce: the broadcast tree's first deliveries
                               * (from 0 on Cayley graphs and for allreduce; else from the root) */
    const char *f_tree;
    const gsp_topo_t *fabric; /* gsp_rt_fabric_algos: the fabric (t: its ranks' complete graph) */
} gsp__rt_ctx_t;

/* A registry entry: one runtime algorithm (src/rt/rt_<name>.c). */
typedef struct {
    const char *name;
    unsigned colls;      /* the collectives it serves: bit 1 << gsp_collective_t */
    const char *where;   /* where it applies (docs) */
    const char *rounds;  /* its rounds (docs) */
    const char *what;    /* what it runs (docs) */
    /* Whether it applies in x (beyond its collectives). */
    bool (*applies)(const gsp__rt_ctx_t *x);
    /* Adds its phases to al (name, collective and root set): built, or pending with
     * lower-bound statistics. */
    gsp_err_t (*add)(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al);
    /* Builds a pending al of set a (NULL: never pending). GSP_ERR_NOTAPPLIC: it does not exist. */
    gsp_err_t (*build)(gsp_rt_algos_t *a, gsp_rt_algo_t *al);
} gsp__rt_method_t;

#define GSP__RT_COLL(c) (1u << (c))

/* Trees at most this deep (boxes of GPUs: fabric_boxes.c) run as packed, each tree one message
 * per edge and segment with all its parts, and fill the pipeline once a level; deeper ones run as
 * trees of one part each and fill it once (rt_fabric.c, rt_cost.c). */
#define GSP__RT_FILL_LEVELS 3

/* A fabric's forest for collective c (GSP_COLL_ALLGATHER, _REDUCE_SCATTER, _BROADCAST from root). */
typedef gsp_err_t (*gsp__rt_forest_fn)(const gsp_topo_t *fab, gsp_collective_t c, int64_t root, gsp_forest_t *out);
/* The phases of x's collective on x->fabric from the forests build gives (rt_fabric.c): reduce-
 * scatter's in-trees, allgather's out-trees (allreduce both), broadcast's; al->built_from says
 * "<trees> <what> (algbw ...), <depth> deep, pipelined". */
gsp_err_t gsp__rt_forest_algo(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al, gsp__rt_forest_fn build, const char *what, unsigned flags);
/* flags of gsp__rt_forest_algo: an allgather's or reduce-scatter's tree edges routed through a
 * switch keep GSP_RT_WIDE_WINDOW segments in flight (rt_fabric.c). */
#define GSP__RT_FOREST_WIDE_SWITCHED 1u
/* flags of gsp__rt_forest_algo: a broadcast's phase is marked to stream (gsp_rt_phase_t: streams). */
#define GSP__RT_FOREST_STREAMS 2u
extern const gsp__rt_method_t gsp__rt_fabric, gsp__rt_fabric_shallow, gsp__rt_fabric_rings, gsp__rt_fabric_streams;

/* The registry, in the order candidates are listed and ties are broken. */
extern const gsp__rt_method_t *const gsp__rt_methods[];
extern const int gsp__rt_nmethods;
const gsp__rt_method_t *gsp__rt_method_find(const char *name);

/* ---- programs (rt_prog.c) ---- */
/* Rank's transfers of phase ph on t, appended to x [in,out]. */
gsp_err_t gsp__rt_xfers(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t rank, gsp_rt_xfers_t *x);
/* Groups x [in,out: sorted by round] into the program p [out] of phase ph on n ranks. */
gsp_err_t gsp__rt_prog_from(const gsp_rt_phase_t *ph, int64_t n, gsp_rt_xfers_t *x, gsp_rt_prog_t *p);
/* *inv [out, gsp_free]: per generator arc i of a Cayley graph, the arc of its inverse. */
gsp_err_t gsp__rt_inverse_arcs(const gsp_topo_t *t, int64_t **inv);

/* ---- phase builders (rt_phases.c) ---- */
void gsp__rt_phase_destroy(gsp_rt_phase_t *p);
/* Per-round statistics arrays for R rounds, zeroed. */
gsp_err_t gsp__rt_stat_arrays(gsp_rt_phase_t *p, int64_t R);
/* An explicit phase's statistics from its schedule: per round, blocks moved by all nodes; most
 * blocks on an arc, messages at a node, blocks combined at a node; the busiest arc. */
gsp_err_t gsp__rt_io_stats(gsp_rt_phase_t *p);
gsp_err_t gsp__rt_phase_stats(gsp_rt_phase_t *p, const gsp_topo_t *t);
/* A routed phase's statistics arrays for R rounds. */
gsp_err_t gsp__rt_routed_arrays(gsp_rt_phase_t *p, int64_t R);
/* An explicit schedule of first deliveries, run backwards [out]. */
gsp_err_t gsp__rt_flip(const gsp_sched_t *fd, gsp_collective_t c, gsp_sched_t *out);
/* Plans c with method on t (model: packets p) into pl [out]. */
gsp_err_t gsp__rt_plan(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t packets, int64_t root,
                       const char *method, gsp_plan_t *pl);
/* First deliveries of a symmetric allgather, still symmetric [out]. */
gsp_err_t gsp__rt_sym_first(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out);
/* First deliveries of a broadcast [out], explicit. */
gsp_err_t gsp__rt_tree_first(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out);
/* Appends to al a symmetric phase from s (reversed: a reduce-scatter). */
gsp_err_t gsp__rt_add_symmetric(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, bool reversed, gsp_rt_kind_t kind,
                                gsp_rt_layout_t layout);
/* Appends to al the tree of first deliveries fd (from 0) translated to root (reversed: a reduce). */
gsp_err_t gsp__rt_add_tree(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *fd, int64_t root, bool reversed);
/* Appends to al a pending phase: at least R rounds, at least `moved` blocks in all. */
gsp_err_t gsp__rt_add_pending(gsp_rt_algo_t *al, gsp_rt_kind_t kind, gsp_rt_layout_t layout, int64_t R, int64_t moved);
/* Appends an empty algorithm to a [out: *out]. */
gsp_err_t gsp__rt_add_algo(gsp_rt_algos_t *a, const char *name, gsp_collective_t c, int64_t root, gsp_rt_algo_t **out);
/* Appends to al an explicit phase: s's first deliveries (reversed 1: flipped; -1: s as it is). */
gsp_err_t gsp__rt_add_phase(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, int reversed, gsp_rt_kind_t kind,
                            gsp_rt_layout_t layout);
/* Appends to al an allgather phase from first deliveries s (symmetric when s is). */
gsp_err_t gsp__rt_add_ag_phase(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, bool reversed, gsp_rt_kind_t kind,
                               gsp_rt_layout_t layout);
/* The set's p = 1 allgather (a->ag1), planned on first use. */
gsp_err_t gsp__rt_need_ag1(gsp_rt_algos_t *a);
/* The flood's first deliveries [out] (symmetric on Cayley graphs). */
gsp_err_t gsp__rt_flood_of(const gsp_rt_algos_t *a, gsp_sched_t *out, char *from, size_t fromlen);
/* A balanced BFS scatter from root (gather: reversed) in the packet model [out]. */
gsp_err_t gsp__rt_scatter(const gsp_topo_t *t, int64_t root, bool gather, const gsp_model_t *model, gsp_sched_t *out);

/* ---- the rings (rt_rings.c), also used by tests through the registry ---- */
bool gsp__rt_rings_apply(const gsp_topo_t *t);
/* A rings phase p [out] on t: mode 0 the reduce-scatter, 1 the allgather, 2 the scatter from root,
 * 3 the gather into root. */
gsp_err_t gsp__rt_rings_phase(gsp_rt_phase_t *p, const gsp_topo_t *t, int mode, int64_t root, gsp_rt_kind_t kind, gsp_rt_layout_t layout);
/* The same, on nsteps of the k steps from first (nsteps 0: all): a phase of one stage or a few. */
gsp_err_t gsp__rt_rings_steps(gsp_rt_phase_t *p, const gsp_topo_t *t, int mode, int64_t root, gsp_rt_kind_t kind, gsp_rt_layout_t layout,
                              int first, int nsteps);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis.h — invariants of a topology: BFS distances, diameter and distance distribution
 * (one BFS when the graph is vertex-transitive), adjacency spectra, vertex-transitivity,
 * and complete rotations (Def. 12 of the packet-gossip paper). */
#ifndef GOSSIP_ANALYSIS_H
#define GOSSIP_ANALYSIS_H

#include "gossip/core.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** BFS from src over out-arcs. dist [out, n entries] gets the distance or -1 when
 * unreachable; queue [scratch, n entries] may be NULL (allocated here). Returns the
 * eccentricity of src via *ecc [out] and the reached count via *reached [out]. O(n + m). */
GSP_API gsp_err_t gsp_bfs(const gsp_topo_t *t, int64_t src, int32_t *dist, int64_t *queue, int64_t *ecc,
                  int64_t *reached);

typedef struct {
    bool connected;       /* strongly connected for digraphs */
    int64_t diameter;     /* -1 when not connected */
    double average_distance; /* mean over ordered pairs u != v (reachable ones) */
    bool per_node;        /* counts are from one node (vertex-transitive) or over all pairs */
    gsp_vec_t counts;     /* counts.v[m]: nodes at distance m from any node (per_node), else
                             ordered pairs (u, v) at distance m (over the sampled sources' pairs
                             only when sampled > 0) */
    int64_t sources;      /* BFS runs made: 1 with symmetry, n without, fewer by gsp_distances_large */
    /* gsp_distances: always exact (average_exact true, sampled 0). gsp_distances_large on a
     * large graph: average_distance may be an estimate, and counts from sampled sources. */
    bool average_exact;   /* false: average_distance is estimated from sampled sources */
    double average_stderr; /* the estimate's standard error; 0 when exact */
    int64_t sampled;      /* > 0: counts are over the pairs (s, v) of this many random sources s */
    const char *diameter_how; /* static: "one BFS (vertex-transitive)", "all-pairs BFS", "iFUB" */
    const char *average_how;  /* static: as diameter_how, "a tree, from subtree sizes", "sampled BFS" */
} gsp_distances_t;

/** Distances of t. When vertex_transitive is true, one BFS from node 0 stands for all.
 * progress [in] may be NULL. Release with gsp_distances_destroy. O(n + m) or O(n (n + m)). */
GSP_API gsp_err_t gsp_distances(const gsp_topo_t *t, bool vertex_transitive, gsp_distances_t *out,
                        gsp_progress_fn progress, void *ctx);
/** Releases what gsp_distances allocated; a zeroed struct is a no-op. */
GSP_API void gsp_distances_destroy(gsp_distances_t *d);

/** Default largest n (n + m) (BFS work, m arcs) for which gsp_distances_large runs one BFS per
 * node (a few seconds). */
#define GSP_ALLPAIRS_WORK 1000000000LL

/* Options of gsp_distances_large; zero-initialised (or NULL) is the default. */
typedef struct {
    int64_t max_work; /* largest n (n + m) done by one BFS per node; 0: GSP_ALLPAIRS_WORK */
    int64_t samples;  /* BFS from random nodes for an estimated average; 0: 64 */
    uint64_t seed;    /* which random nodes */
} gsp_distances_opts_t;

/** Distances of a graph of any size, exact where that is cheap. When vertex_transitive, or the
 * graph is directed, or n (n + m) <= opts->max_work: gsp_distances. Otherwise (a large
 * undirected graph): the diameter exactly by iFUB (gsp_diameter_ifub); the average distance
 * exactly for a tree (sum over edges of s (n - s), s a side's size), else estimated from
 * opts->samples BFS from distinct random sources as the ratio of their distance sums to their
 * pair counts, with its standard error (finite-population corrected: 0 when every node is a
 * source; average_exact false unless so); counts from those sources (sampled). opts and
 * progress [in] may be NULL. Release with gsp_distances_destroy. Cost: a few BFS for the
 * diameter on most graphs, plus the samples' BFS. */
GSP_API gsp_err_t gsp_distances_large(const gsp_topo_t *t, bool vertex_transitive, const gsp_distances_opts_t *opts, gsp_distances_t *out,
                              gsp_progress_fn progress, void *ctx);

/** Exact diameter of an undirected graph by iFUB (Crescenzi, Grossi, Habib, Lanzi, Marino,
 * "On computing the diameter of real-world undirected graphs", TCS 2013): a 4-sweep finds a
 * central node u and a lower bound (eccentricities of the sweep's ends); the BFS from u puts every
 * node on a level; the eccentricities of the nodes on the deepest level i, then i - 1, ..., raise
 * the lower bound until it reaches 2 (i - 1), which bounds every pair below level i.
 * *diameter [out]: -1 when not connected; *bfs_runs [out, may be NULL]: BFS made (the all-pairs
 * way makes n). Errors: GSP_ERR_UNSUPPORTED for a directed graph. progress [in] may be NULL. */
GSP_API gsp_err_t gsp_diameter_ifub(const gsp_topo_t *t, int64_t *diameter, int64_t *bfs_runs, gsp_progress_fn progress, void *ctx);

typedef enum {
    GSP_SPECTRUM_ABELIAN = 1, /* lambda_k = sum_i cos(2 pi <k, s_i> / n), exact formula */
    GSP_SPECTRUM_PRODUCT,     /* sums of the factors' eigenvalues */
    GSP_SPECTRUM_DENSE        /* LAPACKE dsyevd on the dense adjacency matrix */
} gsp_spectrum_how_t;

/** Largest graph sent to the dense solver. */
#define GSP_DENSE_MAX 4000

/** Adjacency eigenvalues of an undirected graph, ascending, with multiplicity:
 * *eig [out, n entries, free with gsp_free]. Abelian Cayley graphs of any size by formula,
 * products by sums, anything else with n <= GSP_DENSE_MAX by LAPACKE.
 * Errors: GSP_ERR_UNSUPPORTED (directed, or too large for the dense solver). */
GSP_API gsp_err_t gsp_spectrum(const gsp_topo_t *t, double **eig, gsp_spectrum_how_t *how);
/** Laplacian (D - A) eigenvalues of an undirected graph with n <= GSP_DENSE_MAX, ascending,
 * by LAPACKE: *eig [out, n entries, gsp_free]. */
GSP_API gsp_err_t gsp_laplacian_spectrum(const gsp_topo_t *t, double **eig);
/** Tolerance used to call two eigenvalues equal: 1e-9 * max(1, spectral radius). */
GSP_API double gsp_spectrum_tolerance(const double *eig, int64_t n);
/** Number of distinct values in a sorted array, merging neighbours closer than tol. */
GSP_API int64_t gsp_spectrum_distinct(const double *eig, int64_t n, double tol);

typedef enum {
    GSP_VT_UNKNOWN = 0,
    GSP_VT_YES_CAYLEY, /* a Cayley graph (or a product of them) is vertex-transitive */
    GSP_VT_YES_NAUTY,  /* nauty found one orbit of the automorphism group */
    GSP_VT_NO_DEGREE,  /* degrees differ, so it cannot be */
    GSP_VT_NO_NAUTY,   /* nauty found several orbits */
    GSP_VT_NO_DISTANCES /* two nodes see different numbers of nodes at some distance */
} gsp_vt_t;

/** From this many nodes up, gsp_vertex_transitive compares the distance counts seen from a few
 * nodes before calling nauty: nauty's refinement takes minutes on a large graph without
 * symmetry (78 s on a random 4-regular graph of 10^4 nodes), a BFS milliseconds. */
#define GSP_VT_PROFILE_MIN 1025

/** Largest graph handed to nauty for vertex-transitivity. */
#define GSP_NAUTY_MAX 200000

/** Decides vertex-transitivity: by structure for Cayley graphs, by degrees, from
 * GSP_VT_PROFILE_MIN nodes up by the distance counts from a few nodes (O(n + m) each), else by
 * nauty's orbits (n <= GSP_NAUTY_MAX); GSP_VT_UNKNOWN when none applies. */
GSP_API gsp_err_t gsp_vertex_transitive(const gsp_topo_t *t, gsp_vt_t *out);
/** True when v says vertex-transitive (by Cayley structure or by nauty). */
static inline bool gsp_vt_yes(gsp_vt_t v) { return v == GSP_VT_YES_CAYLEY || v == GSP_VT_YES_NAUTY; }

/** A known Cayley spec isomorphic to t [in] (an undirected regular graph without a group, up to
 * 4096 nodes): a torus of any shape, a hypercube, a star graph, a complete graph, a cycle or a
 * circulant C(N; 1, b) (N <= 1024), by nauty's canonical labelling. *spec [out, gsp_free]: the
 * spec, NULL when none matches; *map [out, t->n entries, gsp_free]: map[v] = the spec's node
 * for t's node v (an isomorphism). Cost: one canonical labelling per candidate of t's size
 * and degree. */
GSP_API gsp_err_t gsp_cayley_match(const gsp_topo_t *t, char **spec, int64_t **map);
/** Largest graph gsp_cayley_match compares with the known families. */
#define GSP_CAYLEY_MATCH_MAX 4096
/** Whether t [in] is a Cayley graph of some group: whether Aut(t) has a regular subgroup
 * (Sabidussi), searched by backtracking over Aut listed from nauty's generators. *answer [out]:
 * 1 yes, 0 no (a proof: the search was exhaustive, or t is not vertex-transitive), -1 unknown
 * (|Aut| above 500000 or |Aut| N above 10^8, or the search's budget spent); *aut_order [out]:
 * |Aut(t)| as nauty gives it (0 when not computed). A spec with a group answers 1 at once.
 * group [out, may be NULL; gsp_group_free]: on yes, for t without a group and N <= 2048, the
 * regular subgroup as a table group whose element v is node v, so that t is, node for node and
 * as an undirected graph, the Cayley graph of it on the neighbours of node 0 (else NULL). */
GSP_API gsp_err_t gsp_cayley_regular(const gsp_topo_t *t, int *answer, double *aut_order, gsp_group_t **group);

/** A complete rotation: an automorphism w with w(e) = e and w(s_i x) = s_{i+1} w(x), the
 * generators taken in the cyclic order gens[order[0]], gens[order[1]], ... */
typedef struct {
    bool found;
    bool exhaustive;   /* every cyclic order was examined (so "not found" is a proof) */
    int d;
    int *order;        /* d generator indices, order[0] = 0 */
    int64_t fixed_points; /* |F_w|: x != e with w^i(x) = x for some 1 <= i < d */
    int64_t *omega;    /* w as a node map, n entries (NULL unless found) */
    int64_t candidates; /* cyclic orders checked in full */
} gsp_rotation_t;

/** Searches cyclic orders of the generators of a Cayley graph for a complete rotation,
 * natural order first, pruned by generator orders, inverses and the orders of products
 * s_i s_j; each surviving order is checked in O(n d). At most max_checks full checks
 * (0 = default 20000). Release with gsp_rotation_destroy. Errors: GSP_ERR_NOTAPPLIC when
 * t is not a Cayley graph. */
GSP_API gsp_err_t gsp_rotation_find(const gsp_topo_t *t, int64_t max_checks, gsp_rotation_t *out);
/** Checks one cyclic order; on success fills out like gsp_rotation_find. */
GSP_API gsp_err_t gsp_rotation_check(const gsp_topo_t *t, const int *order, gsp_rotation_t *out);
/** Releases r's arrays; a zeroed rotation is a no-op. */
GSP_API void gsp_rotation_destroy(gsp_rotation_t *r);

#ifdef __cplusplus
}
#endif
#endif

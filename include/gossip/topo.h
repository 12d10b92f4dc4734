/* SPDX-License-Identifier: GPL-3.0-or-later */
/* topo.h — topologies: the explicit arc table, the group of a Cayley graph, and the spec
 * parser of docs/topology.md ("torus:5x5", "star:7", "product(cycle:5,complete:2)", "file:g.txt"). */
#ifndef GOSSIP_TOPO_H
#define GOSSIP_TOPO_H

#include "gossip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSP_MAX_DIMS 64
/** Largest arc table built: 2^30 arcs (8 GiB of int64 targets). Larger specs are refused
 * with GSP_ERR_TOOBIG before anything is allocated. */
#define GSP_MAX_ARCS ((int64_t)1 << 30)
/** Largest K for the symmetric group S_K whose order fits in int64_t (20! < 2^63). */
#define GSP_MAX_PERM_K 20

typedef enum {
    GSP_GROUP_ABELIAN = 1, /* Z_m1 x ... x Z_mk, element index = sum c_j * stride_j */
    GSP_GROUP_SYMMETRIC,   /* S_K, element index = lexicographic rank of the word */
    GSP_GROUP_PRODUCT,     /* A x B, element index = a * |B| + b */
    GSP_GROUP_TABLE        /* given by its multiplication table (order <= GSP_GROUP_TABLE_MAX) */
} gsp_group_kind_t;

/** Largest order of a group given by its multiplication table (order^2 entries). */
#define GSP_GROUP_TABLE_MAX 2048

/** A finite group whose elements are the integers 0..order-1; 0 is always the identity
 * (the zero vector, the identity permutation, the pair of identities). */
typedef struct gsp_group {
    gsp_group_kind_t kind;
    int64_t order;
    int k;                        /* abelian: number of cyclic factors */
    int64_t mod[GSP_MAX_DIMS];    /* abelian: order of each factor */
    int64_t stride[GSP_MAX_DIMS]; /* abelian: index weight of each coordinate */
    int K;                        /* symmetric: degree of S_K */
    struct gsp_group *a, *b;      /* product: owned factors */
    int32_t *table, *inverse;     /* table: x*y = table[x * order + y]; inverse[x] (owned) */
} gsp_group_t;

/** x*y. Symmetric group: elements are words w[0..K-1] and (x*y)[j] = y[x[j]], so that the
 * arc x -> s*x of a Cayley graph permutes the positions of x's word by s (star graph: swap
 * positions 0 and i). O(k) abelian, O(K^2) symmetric. */
GSP_API int64_t gsp_group_mul(const gsp_group_t *g, int64_t x, int64_t y);
/** The inverse of x. */
GSP_API int64_t gsp_group_inv(const gsp_group_t *g, int64_t x);
/** Coordinates of an abelian element (c[0..k-1]) and back. */
GSP_API void gsp_group_coords(const gsp_group_t *g, int64_t x, int64_t *c);
/** The element with coordinates c[0..k-1] (abelian groups). */
GSP_API int64_t gsp_group_index(const gsp_group_t *g, const int64_t *c);
/** Word of a permutation rank (w[0..K-1]) and back. */
GSP_API void gsp_perm_unrank(int K, int64_t r, int *w);
/** The rank of word w[0..K-1] (inverse of gsp_perm_unrank). */
GSP_API int64_t gsp_perm_rank(int K, const int *w);
/** The group of order n whose product is table[x * n + y] [in, copied] (0 must be the
 * identity; associativity is the caller's: a table from a permutation group has it).
 * GSP_ERR_RANGE when n > GSP_GROUP_TABLE_MAX, an entry is out of range or 0 is not the
 * identity, or an element has no inverse. */
GSP_API gsp_err_t gsp_group_table(int64_t n, const int32_t *table, gsp_group_t **out);
/** Deep copy and release (releasing a zeroed or NULL group is a no-op). */
GSP_API gsp_err_t gsp_group_copy(const gsp_group_t *src, gsp_group_t **out);
/** Releases g and its factors; NULL is a no-op. */
GSP_API void gsp_group_free(gsp_group_t *g);
/** True when every factor is abelian. */
GSP_API bool gsp_group_is_abelian(const gsp_group_t *g);

/** A topology: nodes 0..n-1 and, for each node x, its arcs adj[off[x] .. off[x+1]-1] in the
 * order of docs/topology.md's table. When group != NULL the graph is the Cayley graph of that group
 * on gens[0..ngens-1]: every node has degree ngens and arc i of x goes to gens[i] * x. */
typedef struct gsp_topo {
    int64_t n, m;         /* nodes, arcs */
    int64_t *off, *adj;   /* CSR arc table */
    int64_t dmin, dmax;   /* out-degree range */
    int64_t in_dmin, in_dmax;
    bool directed;        /* some arc has no reverse arc */
    char *spec;           /* canonical spec string */
    gsp_group_t *group;   /* NULL unless a Cayley graph */
    int64_t *gens;        /* element of each generator, in arc order */
    int ngens;
    struct gsp_topo *fa, *fb; /* factors of a product (owned), else NULL */
    /* Edge-list files with host names (or 1-based ids): the name of each node as the file
     * writes it, index order; NULL when the file numbers its nodes 0..n-1. */
    char **names;
    /* Fabrics (docs/fabrics.md): link capacities and switches. cap[a] is the capacity of arc a
     * (CSR order) in units of 1/cap_scale of the file's unit (GB/s, or any consistent unit);
     * cap == NULL means every arc has capacity 1 and cap_scale is 1. is_switch[x] != 0 marks a
     * vertex that forwards but never computes (not a rank); is_switch == NULL: no switches. */
    int64_t *cap;
    int64_t cap_scale;
    uint8_t *is_switch;
    int64_t nswitch;      /* vertices with is_switch[x] != 0 */
} gsp_topo_t;

/** Parses a spec and builds its topology into caller storage `t` [out].
 * Errors: GSP_ERR_PARSE (malformed spec or file), GSP_ERR_RANGE (a value out of range),
 * GSP_ERR_OVERFLOW / GSP_ERR_TOOBIG (size), GSP_ERR_IO (unreadable file), GSP_ERR_NOMEM.
 * gsp_errmsg() names the spec and the problem. Complexity O(n * degree) time and memory. */
GSP_API gsp_err_t gsp_topo_from_spec(gsp_topo_t *t, const char *spec);
/** Releases everything; destroying a zeroed topology is a no-op. */
GSP_API void gsp_topo_destroy(gsp_topo_t *t);

/** Builds the Cayley graph of `group` [in, ownership taken even on error] on generators
 * gens[0..ngens-1] [in, copied]. Refuses the identity; removes repeated generators and adds
 * missing inverses after the given ones when close_inverses is true. */
GSP_API gsp_err_t gsp_topo_cayley(gsp_topo_t *t, gsp_group_t *group, const int64_t *gens, int ngens,
                          bool close_inverses, const char *spec);
/** Cartesian product A x B into t [out]. a and b [in]: allocated with gsp_malloc and built (e.g.
 * by gsp_topo_from_spec); t owns and releases them, even on error. */
GSP_API gsp_err_t gsp_topo_product(gsp_topo_t *t, gsp_topo_t *a, gsp_topo_t *b);
/** Graph from an edge list [in]: arcs u->v (and v->u unless directed). Duplicate arcs are
 * merged; self-loops and ids outside [0, n) are GSP_ERR_RANGE. */
GSP_API gsp_err_t gsp_topo_from_edges(gsp_topo_t *t, int64_t n, const int64_t *edges, int64_t nedges,
                              bool directed, const char *spec);

/** Builds a fabric [out] from narcs arcs arcs[2a] -> arcs[2a+1] [in] of capacity cap[a] /
 * cap_scale [in; NULL: capacity 1 each] on n vertices, of which those with is_switch[x] != 0
 * [in, copied; NULL: none] are switches. Parallel arcs are one arc whose capacity is the sum
 * (two 50 GB/s lanes are a 100 GB/s link); arcs are in ascending target order per vertex.
 * names [in, copied; NULL: none] gives each vertex's name. Errors: GSP_ERR_RANGE (a vertex
 * outside [0, n), a self-loop, a capacity <= 0, a switch set that holds every vertex),
 * GSP_ERR_OVERFLOW (a summed capacity beyond 2^62), GSP_ERR_TOOBIG, GSP_ERR_NOMEM. O(n + m log m). */
GSP_API gsp_err_t gsp_topo_from_arcs(gsp_topo_t *t, int64_t n, const int64_t *arcs, const int64_t *cap, int64_t narcs,
                                     int64_t cap_scale, const uint8_t *is_switch, const char *const *names, const char *spec);
/** True when t has switches or link capacities (a fabric): its ranks are not simply its
 * vertices with unit links, and the round-based planners do not apply. */
GSP_API bool gsp_topo_is_fabric(const gsp_topo_t *t);
/** Number of compute vertices (ranks): n minus the switches. */
GSP_API int64_t gsp_topo_compute_count(const gsp_topo_t *t);
/** The name of vertex x: t->names[x], or its index written into buf [out, 24 bytes]. */
GSP_API const char *gsp_topo_node_name(const gsp_topo_t *t, int64_t x, char *buf);

/** Size of the buffer gsp_topo_hash fills: "fnv1a64:" and 16 hex digits. */
#define GSP_TOPO_HASH_LEN 25
/** The canonical hash of t's graph [in] into buf [out, GSP_TOPO_HASH_LEN bytes]: FNV-1a, 64
 * bits, over the node count, each node's name (when t has names) and switch mark, and each
 * arc in CSR order with its capacity and the capacity scale. Two topologies with the same arcs,
 * names, capacities and switches hash alike whatever spec or file built them (the schedule
 * file's embedded graph is checked against it). Not a cryptographic hash: it detects a changed
 * or damaged graph, not a forged one. O(n + m). */
GSP_API void gsp_topo_hash(const gsp_topo_t *t, char *buf);

/** Index of the arc from x to y, or -1. O(degree). */
GSP_API int64_t gsp_topo_arc_index(const gsp_topo_t *t, int64_t x, int64_t y);
/** Index of the generator inverse to generator i (Cayley graphs only). */
GSP_API int gsp_topo_gen_inverse(const gsp_topo_t *t, int i);

#ifdef __cplusplus
}
#endif
#endif

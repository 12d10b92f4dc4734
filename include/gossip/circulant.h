/* SPDX-License-Identifier: GPL-3.0-or-later */
/* circulant.h — the optimal two-dimensional circulants G(N; s, s+1) of Monakhova and Monakhov:
 * relative addresses in O(1), table-free routing that adapts to faults, and the node-invariant
 * broadcast of the rhombus. */
#ifndef GOSSIP_CIRCULANT_H
#define GOSSIP_CIRCULANT_H

#include "gossip/core.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A relative address: x steps along +s (negative: -s), y steps along +(s+1). */
typedef struct {
    int64_t x, y;
} gsp_caddr_t;

/** The relative address A_0k of node k in G(N; s, s+1): the (x, y) with x s + y (s + 1) = k (mod N)
 * and |x| + |y| least — its length is the distance from 0 to k. O(1) for the optimal s (the
 * smallest with N <= 2s^2 + 4s + 3): writing x s + y (s + 1) = u s + y with u = x + y, the optimum
 * has u within 2 of floor(K/s) for K = k + jN, j in {-1, 0, 1} (checked against BFS for every N up
 * to 3000 by the tests); O(N) and exact for any other s. Ties go to the smaller |y|, then the
 * smaller |x|, then x > 0, then y > 0, so the choice is canonical. */
GSP_API gsp_caddr_t gsp_circ_address(int64_t N, int64_t s, int64_t k);

typedef struct {
    int64_t *path;   /* nodes from source to destination (inclusive) */
    int64_t len;     /* hops */
    bool delivered;
    int64_t recomputed; /* addresses recomputed after a detour */
} gsp_route_t;

/** Routes from src to dst in G(N; s, s+1) [t must be that circulant] hop by hop without tables:
 * at each node the address to dst is recomputed in O(1) and a shortest direction is taken whose
 * link and next node are alive, the least loaded first (load[arc] counts messages routed, may be
 * NULL); when none is, another live unvisited direction (least loaded), and back along the path
 * when every direction is dead or visited — so the message arrives whenever a path exists.
 * dead_node [n] and dead_arc [m] mark faults (may be NULL). Release with gsp_route_destroy. */
GSP_API gsp_err_t gsp_circ_route(const gsp_topo_t *t, int64_t s, int64_t src, int64_t dst, const unsigned char *dead_node,
                         const unsigned char *dead_arc, int64_t *load, gsp_route_t *out);
/** Releases r's path; a zeroed route is a no-op. */
GSP_API void gsp_route_destroy(gsp_route_t *r);

#ifdef __cplusplus
}
#endif
#endif

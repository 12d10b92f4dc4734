/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bounds.h — lower bounds on the rounds of a collective, each with its name and source. */
#ifndef GOSSIP_BOUNDS_H
#define GOSSIP_BOUNDS_H

#include "gossip/analysis.h"
#include "gossip/model.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSP_MAX_BOUNDS 16

typedef struct {
    const char *name;   /* short key, e.g. "diameter", "degree" */
    const char *source; /* where it comes from, e.g. "packet-gossip paper, Prop. 7" */
    int64_t value;      /* rounds */
} gsp_bound_t;

typedef struct {
    gsp_bound_t b[GSP_MAX_BOUNDS];
    int count;
    int binding; /* index of the largest bound (the first one on ties) */
} gsp_bounds_t;

/** Lower bounds for collective c on t under model m. dist [in] are t's distances (from
 * gsp_distances). root is the broadcast root (its eccentricity bounds a broadcast; ignored
 * otherwise, -1 = the worst root, i.e. the diameter). The graph must be connected. */
GSP_API gsp_err_t gsp_bounds_compute(const gsp_topo_t *t, const gsp_distances_t *dist,
                             gsp_collective_t c, const gsp_model_t *m, int64_t root,
                             gsp_bounds_t *out);
/** The binding value (max over bounds); 0 when there is none. */
GSP_API int64_t gsp_bounds_value(const gsp_bounds_t *b);

#ifdef __cplusplus
}
#endif
#endif

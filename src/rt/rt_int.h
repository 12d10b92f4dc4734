/* rt_int.h — internals of the runtime's algorithms (not installed): the phase sources shared by
 * the program builder and the algorithm builders. */
#ifndef GOSSIP_RT_INT_H
#define GOSSIP_RT_INT_H

#include "gossip/runtime.h"
#include "../algo/algo_int.h"

/* Rank's transfers of phase ph on t, appended to x [in,out]. */
gsp_err_t gsp__rt_xfers(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t rank, gsp_rt_xfers_t *x);
/* Groups x [in,out: sorted by round] into the program p [out] of phase ph on n ranks. */
gsp_err_t gsp__rt_prog_from(const gsp_rt_phase_t *ph, int64_t n, gsp_rt_xfers_t *x, gsp_rt_prog_t *p);
/* *inv [out, gsp_free]: per generator arc i of a Cayley graph, the arc of its inverse. */
gsp_err_t gsp__rt_inverse_arcs(const gsp_topo_t *t, int64_t **inv);

/* Whether the multiport rings apply to t (tori of any shape, hypercubes). */
bool gsp__rt_rings_apply(const gsp_topo_t *t);
/* A rings phase p [out] on t: the reduce-scatter, or (allgather) the allgather. */
gsp_err_t gsp__rt_rings_phase(gsp_rt_phase_t *p, const gsp_topo_t *t, bool allgather, gsp_rt_kind_t kind, gsp_rt_layout_t layout);

#endif

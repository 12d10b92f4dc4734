/* SPDX-License-Identifier: GPL-3.0-or-later */
/* topo_int.h — what the topology module's files share: the fabric capacity reader and the
 * fabric spec families (fabric_spec.c) that spec.c dispatches to. */
#ifndef GOSSIP_TOPO_INT_H
#define GOSSIP_TOPO_INT_H

#include "gossip/topo.h"

/* Whether n nodes and m arcs fit the memory limit (topo.c): the message names the spec. */
gsp_err_t gsp__topo_check_size(const char *spec, int64_t n, int64_t m);

/* Capacities are read exactly in millionths of their unit. */
#define GSP__CAP_DECIMALS 6
#define GSP__CAP_UNIT 1000000LL
#define GSP__CAP_MAX 1000000000LL

/* A positive decimal number ("25", "12.5") into *out, in millionths; the message says what is
 * wrong (without a location: the caller adds it). */
gsp_err_t gsp__topo_parse_capacity(const char *s, int64_t *out);

/* The fabric families of docs/fabrics.md: dgx, mi250, fattree, dragonfly. */
gsp_err_t gsp__build_dgx(gsp_topo_t *t, const char *spec, const char *args);
gsp_err_t gsp__build_mi250(gsp_topo_t *t, const char *spec, const char *args);
gsp_err_t gsp__build_fattree(gsp_topo_t *t, const char *spec, const char *args);
gsp_err_t gsp__build_dragonfly(gsp_topo_t *t, const char *spec, const char *args);
/* SPEC@C1,C2,...: the Cayley graph of SPEC [in, out] with capacity Ci on the i-th generator and
 * its inverse (a dimension of a torus or hypercube, a jump of a circulant). */
gsp_err_t gsp__topo_dim_caps(gsp_topo_t *t, const char *spec, const char *caps);

#endif

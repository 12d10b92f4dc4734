/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nauty_int.h — a topology handed to nauty: its sparse graph and the label, partition and
 * orbit arrays sparsenauty fills (vertex-transitivity, canonical forms, automorphisms). */
#ifndef GOSSIP_NAUTY_INT_H
#define GOSSIP_NAUTY_INT_H

#include <nauty/nausparse.h>

#include "gossip/analysis.h"

typedef struct {
    sparsegraph sg;
    int *lab, *ptn, *orbits;
} gsp__nauty_t;

/** t (n <= GSP_NAUTY_MAX, m < 2^31) as nauty's sparse graph, with lab/ptn/orbits of n entries.
 * Release with gsp__nauty_free (also after an error). */
gsp_err_t gsp__nauty_init(const gsp_topo_t *t, gsp__nauty_t *g);
void gsp__nauty_free(gsp__nauty_t *g);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nauty.c — a topology as nauty's sparse graph (nauty_int.h). */
#include <string.h>

#include "nauty_int.h"

gsp_err_t gsp__nauty_init(const gsp_topo_t *t, gsp__nauty_t *g) {
    gsp_err_t err;
    int n = (int)t->n;
    memset(g, 0, sizeof *g);
    SG_INIT(g->sg);
    if ((err = gsp_alloc_array((void **)&g->lab, n, sizeof *g->lab, false)) ||
        (err = gsp_alloc_array((void **)&g->ptn, n, sizeof *g->ptn, false)) ||
        (err = gsp_alloc_array((void **)&g->orbits, n, sizeof *g->orbits, false)) ||
        (err = gsp_alloc_array((void **)&g->sg.v, n, sizeof *g->sg.v, false)) ||
        (err = gsp_alloc_array((void **)&g->sg.d, n, sizeof *g->sg.d, false)) ||
        (err = gsp_alloc_array((void **)&g->sg.e, t->m, sizeof *g->sg.e, false)))
        return err;
    g->sg.nv = n;
    g->sg.nde = (size_t)t->m;
    g->sg.vlen = g->sg.dlen = (size_t)n;
    g->sg.elen = (size_t)t->m;
    for (int x = 0; x < n; x++) {
        g->sg.v[x] = (size_t)t->off[x];
        g->sg.d[x] = (int)(t->off[x + 1] - t->off[x]);
    }
    for (int64_t a = 0; a < t->m; a++) g->sg.e[a] = (int)t->adj[a];
    return GSP_OK;
}

void gsp__nauty_free(gsp__nauty_t *g) {
    gsp_free(g->lab);
    gsp_free(g->ptn);
    gsp_free(g->orbits);
    gsp_free(g->sg.v);
    gsp_free(g->sg.d);
    gsp_free(g->sg.e);
    memset(g, 0, sizeof *g);
}

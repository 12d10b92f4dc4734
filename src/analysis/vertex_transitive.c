/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vertex_transitive.c — is every node alike? Known for Cayley graphs; refuted by unequal
 * degrees; otherwise nauty computes the orbits of the automorphism group and one orbit means
 * yes. nauty is not reentrant across threads without TLS; Debian builds it with TLS. */
#include <string.h>

#include "nauty_int.h"

static bool product_vt(const gsp_topo_t *t) {
    if (t->group) return true;
    if (t->fa && t->fb) {
        gsp_vt_t a, b;
        if (gsp_vertex_transitive(t->fa, &a) || gsp_vertex_transitive(t->fb, &b)) return false;
        return gsp_vt_yes(a) && gsp_vt_yes(b);
    }
    return false;
}

gsp_err_t gsp_vertex_transitive(const gsp_topo_t *t, gsp_vt_t *out) {
    gsp_err_t err = GSP_OK;
    *out = GSP_VT_UNKNOWN;
    if (product_vt(t)) {
        *out = GSP_VT_YES_CAYLEY;
        return GSP_OK;
    }
    if (t->dmin != t->dmax || t->in_dmin != t->in_dmax) {
        *out = GSP_VT_NO_DEGREE;
        return GSP_OK;
    }
    if (t->n > GSP_NAUTY_MAX || t->m > (int64_t)1 << 31) return GSP_OK;
    if (t->n == 1) {
        *out = GSP_VT_YES_NAUTY;
        return GSP_OK;
    }

    gsp__nauty_t g;
    DEFAULTOPTIONS_SPARSEGRAPH(options);
    statsblk stats;
    options.getcanon = FALSE;
    options.digraph = t->directed ? TRUE : FALSE;
    if (!(err = gsp__nauty_init(t, &g))) {
        sparsenauty(&g.sg, g.lab, g.ptn, g.orbits, &options, &stats, NULL);
        *out = stats.numorbits == 1 ? GSP_VT_YES_NAUTY : GSP_VT_NO_NAUTY;
    }
    gsp__nauty_free(&g);
    return err;
}

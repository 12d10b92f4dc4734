/* vertex_transitive.c — is every node alike? Known for Cayley graphs; refuted by unequal
 * degrees; otherwise nauty computes the orbits of the automorphism group and one orbit means
 * yes. nauty is not reentrant across threads without TLS; Debian builds it with TLS. */
#include <nauty/nausparse.h>
#include <string.h>

#include "gossip/analysis.h"

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

    int n = (int)t->n;
    int *lab = NULL, *ptn = NULL, *orbits = NULL;
    sparsegraph sg;
    SG_INIT(sg);
    DEFAULTOPTIONS_SPARSEGRAPH(options);
    statsblk stats;
    options.getcanon = FALSE;
    options.digraph = t->directed ? TRUE : FALSE;
    if ((err = gsp_alloc_array((void **)&lab, n, sizeof *lab, false)) ||
        (err = gsp_alloc_array((void **)&ptn, n, sizeof *ptn, false)) ||
        (err = gsp_alloc_array((void **)&orbits, n, sizeof *orbits, false)) ||
        (err = gsp_alloc_array((void **)&sg.v, n, sizeof *sg.v, false)) ||
        (err = gsp_alloc_array((void **)&sg.d, n, sizeof *sg.d, false)) ||
        (err = gsp_alloc_array((void **)&sg.e, t->m, sizeof *sg.e, false)))
        goto done;
    sg.nv = n;
    sg.nde = (size_t)t->m;
    sg.vlen = sg.dlen = (size_t)n;
    sg.elen = (size_t)t->m;
    for (int x = 0; x < n; x++) {
        sg.v[x] = (size_t)t->off[x];
        sg.d[x] = (int)(t->off[x + 1] - t->off[x]);
    }
    for (int64_t a = 0; a < t->m; a++) sg.e[a] = (int)t->adj[a];
    sparsenauty(&sg, lab, ptn, orbits, &options, &stats, NULL);
    *out = stats.numorbits == 1 ? GSP_VT_YES_NAUTY : GSP_VT_NO_NAUTY;
done:
    gsp_free(lab);
    gsp_free(ptn);
    gsp_free(orbits);
    gsp_free(sg.v);
    gsp_free(sg.d);
    gsp_free(sg.e);
    return err;
}

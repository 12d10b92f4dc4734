/* SPDX-License-Identifier: GPL-3.0-or-later */
/* draw.c — pictures a person would rather look at than read: the broadcast tree of node 0's
 * packet (Fig. 3–6 of the packet-gossip paper), nodes labelled by the round they are reached
 * in, arcs coloured by generator and the legend saying what each generator does; circulants
 * on the lattice of relative addresses (Fig. 1a of the circulant paper); any other graph
 * (hypercubes, star graphs, files) by igraph's Kamada-Kawai layout, which places nodes at
 * about their graph distance, so neighbours sit together. Plain SVG, written directly. */
#include <igraph.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gossip/circulant.h"
#include "gossip/sched.h"

static const char *const palette[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
#define NPAL (sizeof palette / sizeof palette[0])

/* Kamada-Kawai (igraph) from a circle, deterministic; scaled so that no two nodes are closer
 * than 0.8 grid units (a node's circle is about half a unit). */
static gsp_err_t layout_kk(const gsp_topo_t *t, double *px, double *py) {
    int64_t n = t->n;
    double r = (double)n / (2 * M_PI) + 1;
    for (int64_t x = 0; x < n; x++) {
        px[x] = r * cos(2 * M_PI * (double)x / (double)n);
        py[x] = r * sin(2 * M_PI * (double)x / (double)n);
    }
    if (n < 3) return GSP_OK;
    igraph_error_handler_t *old = igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_vector_int_t el;
    igraph_t g;
    igraph_matrix_t pos;
    bool ok = false, have_el = false, have_g = false, have_pos = false;
    if (igraph_vector_int_init(&el, 0) == IGRAPH_SUCCESS) {
        have_el = true;
        ok = true;
        for (int64_t x = 0; x < n && ok; x++)
            for (int64_t a = t->off[x]; a < t->off[x + 1] && ok; a++)
                if (t->adj[a] > x || (t->directed && gsp_topo_arc_index(t, t->adj[a], x) < 0))
                    ok = igraph_vector_int_push_back(&el, x) == IGRAPH_SUCCESS &&
                         igraph_vector_int_push_back(&el, t->adj[a]) == IGRAPH_SUCCESS;
    }
    ok = ok && igraph_create(&g, &el, n, IGRAPH_UNDIRECTED) == IGRAPH_SUCCESS;
    have_g = ok;
    ok = ok && igraph_matrix_init(&pos, n, 2) == IGRAPH_SUCCESS;
    have_pos = ok;
    if (ok) {
        for (int64_t x = 0; x < n; x++) {
            MATRIX(pos, x, 0) = px[x];
            MATRIX(pos, x, 1) = py[x];
        }
        ok = igraph_layout_kamada_kawai(&g, &pos, true, 50 * n, 0, (igraph_real_t)n, NULL, NULL, NULL, NULL, NULL) == IGRAPH_SUCCESS;
    }
    if (ok) {
        double dmin = 1e300;
        for (int64_t x = 0; x < n; x++)
            for (int64_t y = x + 1; y < n; y++)
                dmin = fmin(dmin, hypot(MATRIX(pos, x, 0) - MATRIX(pos, y, 0), MATRIX(pos, x, 1) - MATRIX(pos, y, 1)));
        double scale = dmin > 1e-9 ? 1.6 / dmin : 1;
        if (scale < 1) scale = 1;
        for (int64_t x = 0; x < n; x++) {
            px[x] = MATRIX(pos, x, 0) * scale;
            py[x] = MATRIX(pos, x, 1) * scale;
        }
    }
    /* On failure the circle stays: a picture, if a plainer one. */
    if (have_pos) igraph_matrix_destroy(&pos);
    if (have_g) igraph_destroy(&g);
    if (have_el) igraph_vector_int_destroy(&el);
    igraph_set_error_handler(old);
    return GSP_OK;
}

/* What generator i does, for the legend: an abelian step as a vector (negative coordinates
 * below zero), a permutation as the positions it swaps or its word, a product's generator as
 * its factor's. */
static void gen_label(const gsp_group_t *g, int64_t e, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = 0;
    if (g->kind == GSP_GROUP_ABELIAN) {
        int64_t c[GSP_MAX_DIMS];
        gsp_group_coords(g, e, c);
        if (g->k == 1) {
            int64_t v = c[0] > g->mod[0] / 2 ? c[0] - g->mod[0] : c[0];
            snprintf(buf, cap, "%+lld", (long long)v);
            return;
        }
        bool bits = true;
        for (int j = 0; j < g->k; j++) bits = bits && g->mod[j] == 2;
        if (bits) { /* a hypercube's generator as the bit it flips, written as node_label writes nodes */
            for (int j = 0; j < g->k && used + 1 < cap; j++) used += (size_t)snprintf(buf + used, cap - used, "%lld", (long long)c[g->k - 1 - j]);
            if (used + 1 < cap) snprintf(buf + used, cap - used, " (flips bit %d)", g->k - 1 - (int)(strchr(buf, '1') ? strchr(buf, '1') - buf : 0));
            return;
        }
        for (int j = 0; j < g->k && used + 1 < cap; j++) {
            int64_t v = c[j] > g->mod[j] / 2 ? c[j] - g->mod[j] : c[j];
            used += (size_t)snprintf(buf + used, cap - used, "%s%lld", j ? "," : "(", (long long)v);
        }
        if (used + 1 < cap) snprintf(buf + used, cap - used, ")");
    } else if (g->kind == GSP_GROUP_SYMMETRIC) {
        int w[GSP_MAX_PERM_K], moved[GSP_MAX_PERM_K], nm = 0;
        gsp_perm_unrank(g->K, e, w);
        for (int j = 0; j < g->K; j++)
            if (w[j] != j) moved[nm++] = j;
        if (nm == 2) {
            snprintf(buf, cap, "swap %d,%d", moved[0], moved[1]);
            return;
        }
        for (int j = 0; j < g->K && used + 1 < cap; j++) used += (size_t)snprintf(buf + used, cap - used, "%s%d", j ? " " : "[", w[j]);
        if (used + 1 < cap) snprintf(buf + used, cap - used, "]");
    } else if (g->kind == GSP_GROUP_TABLE) {
        snprintf(buf, cap, "element %lld", (long long)e);
    } else {
        int64_t nb = g->b->order, a = e / nb, b = e % nb;
        if (cap < 3) return;
        buf[0] = a ? 'A' : 'B';
        buf[1] = ' ';
        gen_label(a ? g->a : g->b, a ? a : b, buf + 2, cap - 2);
    }
}

/* The name of node x printed below it, where the picture's own label does not give it: the
 * bits of a hypercube's node (hypercube:3's node 5 is 101), the permutation of a star or
 * pancake graph's node in one-line notation, the coordinates of a torus of three or more
 * dimensions; in a schedule's picture (whose circles hold rounds) at least the node id. Empty
 * when nothing is to be added: a 2-D torus or circulant places its nodes by their coordinates. */
static const char *node_label(const gsp_topo_t *t, bool sched, int64_t x, char *buf, size_t cap) {
    const gsp_group_t *g = t->group;
    size_t used = 0;
    buf[0] = 0;
    if (g && g->kind == GSP_GROUP_ABELIAN && g->k >= 3) {
        int64_t c[GSP_MAX_DIMS];
        bool bits = true;
        gsp_group_coords(g, x, c);
        for (int j = 0; j < g->k; j++) bits = bits && g->mod[j] == 2;
        for (int j = 0; j < g->k && used + 1 < cap; j++) {
            /* Bits most significant first (coordinate 0 is bit 0): node 6 of hypercube:3 is 110. */
            int w = snprintf(buf + used, cap - used, "%s%lld", bits || !j ? "" : ",", (long long)c[bits ? g->k - 1 - j : j]);
            used += w > 0 ? (size_t)w : 0;
        }
        return bits ? "the node in binary" : "the node's coordinates";
    } else if (g && g->kind == GSP_GROUP_SYMMETRIC) {
        int w[GSP_MAX_PERM_K];
        gsp_perm_unrank(g->K, x, w);
        for (int j = 0; j < g->K && used + 1 < cap; j++) { /* digits run together up to 10 symbols */
            int k = snprintf(buf + used, cap - used, "%s%d", g->K <= 10 || !j ? "" : ",", w[j]);
            used += k > 0 ? (size_t)k : 0;
        }
        return "the node's permutation";
    } else if (sched) {
        snprintf(buf, cap, "%lld", (long long)x);
        return "the node id";
    }
    return NULL;
}

/* Positions in grid units: 2-D tori and abelian Z_a x Z_b centred on 0; circulants with two
 * jump pairs by BFS over (a, b) with x = a s1 + b s2 (the relative address, shortest first);
 * anything else on a circle. Returns false when no layout applies. */
static gsp_err_t layout(const gsp_topo_t *t, double *px, double *py, bool *grid) {
    const gsp_group_t *g = t->group;
    int64_t n = t->n;
    *grid = false;
    if (g && g->kind == GSP_GROUP_ABELIAN && g->k == 2) {
        int64_t c[GSP_MAX_DIMS];
        for (int64_t x = 0; x < n; x++) {
            gsp_group_coords(g, x, c);
            int64_t a = c[0] > g->mod[0] / 2 ? c[0] - g->mod[0] : c[0];
            int64_t b = c[1] > g->mod[1] / 2 ? c[1] - g->mod[1] : c[1];
            px[x] = (double)b;
            py[x] = (double)-a;
        }
        *grid = true;
        return GSP_OK;
    }
    if (g && g->kind == GSP_GROUP_ABELIAN && g->k == 1 && t->ngens == 4 && n >= 5 && t->gens[1] == t->gens[0] + 1) {
        /* G(N; s, s+1): every node at its canonical relative address (the rhombus of Fig. 1a). */
        for (int64_t x = 0; x < n; x++) {
            gsp_caddr_t a = gsp_circ_address(n, t->gens[0], x);
            px[x] = (double)a.x;
            py[x] = (double)-a.y;
        }
        *grid = true;
        return GSP_OK;
    }
    if (g && g->kind == GSP_GROUP_ABELIAN && g->k == 1 && t->ngens == 4) {
        /* Arcs 0, 1 are +s1, +s2; 2, 3 are -s1, -s2 (the circulant convention). */
        int64_t *q = NULL, head = 0, tail = 0;
        unsigned char *seen = NULL;
        gsp_err_t err;
        if ((err = gsp_alloc_array((void **)&q, n, sizeof *q, false)) || (err = gsp_alloc_array((void **)&seen, n, 1, true))) {
            gsp_free(q);
            return err;
        }
        static const int da[4] = {1, 0, -1, 0}, db[4] = {0, 1, 0, -1};
        px[0] = py[0] = 0;
        seen[0] = 1;
        q[tail++] = 0;
        while (head < tail) {
            int64_t x = q[head++];
            for (int i = 0; i < 4; i++) {
                int64_t y = t->adj[x * 4 + i];
                if (seen[y]) continue;
                seen[y] = 1;
                px[y] = px[x] + da[i];
                py[y] = py[x] - db[i];
                q[tail++] = y;
            }
        }
        gsp_free(q);
        gsp_free(seen);
        *grid = true;
        return GSP_OK;
    }
    if (n > 400) return gsp_error(GSP_ERR_UNSUPPORTED, "draw: %s has %lld nodes; pictures are for 2-D grids, circulants and graphs up to 400 nodes", t->spec, (long long)n);
    return layout_kk(t, px, py);
}

gsp_err_t gsp_draw_svg(const gsp_sched_t *s, const gsp_topo_t *t, FILE *f) {
    gsp_err_t err;
    int64_t n = t->n;
    double *px = NULL, *py = NULL;
    int64_t *round = NULL, *from = NULL, *arc = NULL;
    bool grid;
    if (n > 20000) return gsp_error(GSP_ERR_TOOBIG, "draw: %lld nodes is too many to draw", (long long)n);
    if ((err = gsp_alloc_array((void **)&px, n, sizeof *px, false)) || (err = gsp_alloc_array((void **)&py, n, sizeof *py, false)) ||
        (err = gsp_alloc_array((void **)&round, n, sizeof *round, false)) ||
        (err = gsp_alloc_array((void **)&from, n, sizeof *from, false)) ||
        (err = gsp_alloc_array((void **)&arc, n, sizeof *arc, false)))
        goto done;
    if ((err = layout(t, px, py, &grid))) goto done;
    for (int64_t x = 0; x < n; x++) round[x] = from[x] = arc[x] = -1;
    int64_t origin = s && s->coll == GSP_COLL_BROADCAST ? s->root : 0;
    round[origin] = 0;
    if (s && s->symmetric) {
        /* The tree of e: entry (t, i, g) reaches s_i g in round t + 1. */
        for (int64_t k = 0; k < s->nsym; k++) {
            int64_t y = t->adj[s->sym[k].g * t->ngens + s->sym[k].i];
            if (round[y] >= 0) continue;
            round[y] = s->sym[k].t + 1;
            from[y] = s->sym[k].g;
            arc[y] = s->sym[k].i;
        }
    } else if (s) {
        for (int64_t r = 0; r < s->nrounds; r++)
            for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
                const gsp_send_t *x = &s->sends[k];
                if (x->x != origin || round[x->v] >= 0) continue;
                round[x->v] = r + 1;
                from[x->v] = x->u;
                arc[x->v] = gsp_topo_arc_index(t, x->u, x->v);
            }
    }
    double minx = 1e300, maxx = -1e300, miny = 1e300, maxy = -1e300;
    for (int64_t x = 0; x < n; x++) {
        minx = fmin(minx, px[x]), maxx = fmax(maxx, px[x]);
        miny = fmin(miny, py[x]), maxy = fmax(maxy, py[x]);
    }
    char title[512];
    if (s)
        snprintf(title, sizeof title, "%s on %s: broadcast tree of node %lld's packet, %lld rounds", gsp_collective_name(s->coll),
                 t->spec, (long long)origin, (long long)s->nrounds);
    else
        snprintf(title, sizeof title, "%s: %lld nodes (label = node id)", t->spec, (long long)n);
    /* Whether a tree arc wraps around the picture: only then does the subtitle explain dashes. */
    bool any_wrap = false;
    for (int64_t y = 0; grid && y < n; y++)
        if (from[y] >= 0 && hypot(px[y] - px[from[y]], py[y] - py[from[y]]) > 1.01) any_wrap = true;
    char sub0[48];
    const char *kind = node_label(t, s != NULL, 0, sub0, sizeof sub0);
    bool below = kind || t->names; /* a line of text under each node */
    char below_what[64] = "";
    if (kind) snprintf(below_what, sizeof below_what, "%sbelow: %s", s || t->group ? "; " : "", kind);
    char subtitle[256];
    snprintf(subtitle, sizeof subtitle, "%s%s%s%s",
             s ? (t->group ? "node label = round reached; arc colour = generator (legend: what it adds or swaps)"
                           : "node label = round reached")
             : t->group ? "edge colour = generator and its inverse (legend)"
                        : "",
             s && any_wrap ? "; dashed = wraps around" : "",
             t->names ? (s || t->group ? "; host name below each node" : "host name below each node")
                      : below_what,
             "");
    /* The legend: every generator in a tree (arrows have a direction), each generator with its
     * inverse for the topology (an edge is both). */
    char legend[64][128];
    const char *lcol[64];
    int nleg = 0;
    size_t lmax = 0;
    for (int i = 0; t->group && i < t->ngens && nleg < 64; i++) {
        int j = gsp_topo_gen_inverse(t, i);
        char a[48], b[48];
        gen_label(t->group, t->gens[i], a, sizeof a);
        if (s || j == i) snprintf(legend[nleg], sizeof legend[nleg], "g%d: %s", i, a);
        else if (j > i) {
            gen_label(t->group, t->gens[j], b, sizeof b);
            snprintf(legend[nleg], sizeof legend[nleg], "g%d, g%d: %s, %s", i, j, a, b);
        } else continue;
        lcol[nleg] = palette[i % NPAL];
        if (strlen(legend[nleg]) > lmax) lmax = strlen(legend[nleg]);
        nleg++;
    }
    double lw = 7.0 * (double)lmax + 24;
    int per_row = lw * 4 <= 600 ? 4 : lw * 2 <= 600 ? 2 : 1, legend_rows = (nleg + per_row - 1) / per_row;
    double cell = 44, pad = 60, W = (maxx - minx) * cell + 2 * pad, H = (maxy - miny) * cell + 2 * pad + 60 + 20.0 * legend_rows;
    if (below) H += 14;
    /* Wide enough for the title and the legend (about 7.5 px per character at 14 px). */
    if (W < 7.5 * (double)strlen(title) + pad) W = 7.5 * (double)strlen(title) + pad;
    if (W < 7.0 * (double)strlen(subtitle) + pad) W = 7.0 * (double)strlen(subtitle) + pad;
    if (nleg && W < per_row * lw + pad) W = per_row * lw + pad;
    minx -= ((W - 2 * pad) / cell - (maxx - minx)) / 2; /* centre the drawing */
#define X(v) (pad + (px[v] - minx) * cell)
#define Y(v) (pad + 60 + (py[v] - miny) * cell)
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    fprintf(f, "<defs><marker id=\"a\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" "
               "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"context-stroke\"/></marker></defs>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"26\" font-size=\"14\">%s</text>\n", pad / 2, title);
    fprintf(f, "<text x=\"%.0f\" y=\"46\" font-size=\"12\" fill=\"#555\">%s</text>\n", pad / 2, subtitle);
    /* Topology edges, light. */
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t y = t->adj[a];
            double dx = px[y] - px[x], dy = py[y] - py[x];
            if (y < x || (grid && fabs(dx) + fabs(dy) > 1.01)) continue;
            /* The bare topology: each edge in its generator pair's colour. */
            const char *col = "#ddd";
            if (!s && t->group) {
                int i = (int)(a - t->off[x]), j = gsp_topo_gen_inverse(t, i);
                col = palette[(i < j ? i : j) % NPAL];
            }
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n", X(x), Y(x),
                    X(y), Y(y), col, !s && t->group ? "1.5" : "1");
        }
    /* Tree arcs: a straight arrow to a neighbour on the picture; a short dashed stub when the
     * arc wraps around (the target is drawn elsewhere). */
    for (int64_t y = 0; y < n; y++) {
        if (from[y] < 0) continue;
        int64_t x = from[y];
        const char *col = palette[(arc[y] < 0 ? 0 : arc[y]) % NPAL];
        double dx = px[y] - px[x], dy = py[y] - py[x], len = sqrt(dx * dx + dy * dy);
        bool wrap = grid && len > 1.01;
        double x2 = X(y), y2 = Y(y);
        if (wrap) {
            x2 = X(x) + (dx > 0 ? -1 : dx < 0 ? 1 : 0) * 0.5 * cell * (fabs(dx) > 0.5);
            y2 = Y(x) + (dy > 0 ? -1 : dy < 0 ? 1 : 0) * 0.5 * cell * (fabs(dy) > 0.5);
        } else {
            x2 = X(x) + (X(y) - X(x)) * (1 - 13 / (len * cell));
            y2 = Y(x) + (Y(y) - Y(x)) * (1 - 13 / (len * cell));
        }
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s marker-end=\"url(#a)\"/>\n",
                X(x), Y(x), x2, y2, col, wrap ? " stroke-dasharray=\"4 3\"" : "");
    }
    for (int64_t x = 0; x < n; x++) {
        bool o = x == origin;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"12\" fill=\"%s\" stroke=\"#333\"/>\n", X(x), Y(x), o ? "#ffd24d" : "#fff");
        long long label = s ? (long long)round[x] : (long long)x;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%lld</text>\n", X(x), Y(x) + 4, label);
        char nl[48];
        node_label(t, s != NULL, x, nl, sizeof nl);
        if (!t->names && nl[0])
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"#444\" text-anchor=\"middle\" stroke=\"white\" "
                       "stroke-width=\"3\" paint-order=\"stroke\">%s</text>\n",
                    X(x), Y(x) + 24, nl);
        if (t->names && t->names[x]) {
            /* Host names as the file writes them; XML's reserved characters escaped. */
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"#444\" text-anchor=\"middle\">", X(x), Y(x) + 24);
            for (const char *c = t->names[x]; *c; c++) {
                if (*c == '<') fputs("&lt;", f);
                else if (*c == '>') fputs("&gt;", f);
                else if (*c == '&') fputs("&amp;", f);
                else fputc(*c, f);
            }
            fputs("</text>\n", f);
        }
    }
    for (int k = 0; k < nleg; k++)
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" fill=\"%s\">%s</text>\n", pad / 2 + lw * (k % per_row),
                H - 10 - 20.0 * (legend_rows - 1 - k / per_row), lcol[k], legend[k]);
    fputs("</svg>\n", f);
#undef X
#undef Y
    if (fflush(f) != 0 || ferror(f)) err = gsp_error(GSP_ERR_IO, "draw: write failed");
done:
    gsp_free(px);
    gsp_free(py);
    gsp_free(round);
    gsp_free(from);
    gsp_free(arc);
    return err;
}

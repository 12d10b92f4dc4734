/* SPDX-License-Identifier: GPL-3.0-or-later */
/* draw_trees.c — the picture of a fabric's trees (docs/fabrics.md): one panel per tree of one
 * root, the fabric's links grey beneath (wider where faster), the tree's routes as arrows
 * coloured by the level of the compute node they reach, switches as squares. Compute nodes sit
 * on a circle in index order, each switch at the centroid of its compute neighbours pulled
 * towards the middle, so a box's NVSwitch sits by its GPUs and a network switch in the centre. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gossip/fabric.h"

static const char *const level_colour[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
#define NLEVEL ((int64_t)(sizeof level_colour / sizeof *level_colour))
#define MAX_PANELS 12
#define PANEL_W 330.0
#define PANEL_H 350.0

static void xml_text(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

/* The name a panel can hold: what follows the last '.' (b0.gpu3 -> gpu3), when no other vertex
 * ends the same (two boxes: b0.gpu3 and b1.gpu3 keep their full names). */
static const char *short_name(const gsp_topo_t *t, int64_t x, char *buf) {
    const char *s = gsp_topo_node_name(t, x, buf), *dot = strrchr(s, '.');
    if (!dot || !dot[1]) return s;
    char b2[24];
    for (int64_t y = 0; y < t->n; y++) {
        const char *o = gsp_topo_node_name(t, y, b2), *od = strrchr(o, '.');
        if (y != x && od && !strcmp(od, dot)) return s;
    }
    return dot + 1;
}

gsp_err_t gsp_forest_svg(const gsp_topo_t *t, const gsp_forest_t *forest, int64_t root, FILE *f) {
    gsp_err_t err;
    int64_t n = t->n, N = gsp_topo_compute_count(t), *tailof = NULL, *level = NULL, *pick = NULL, npick = 0, maxcap = 1;
    double *px = NULL, *py = NULL;
    if ((err = gsp_alloc_array((void **)&px, n, sizeof *px, true)) || (err = gsp_alloc_array((void **)&py, n, sizeof *py, true)) ||
        (err = gsp_alloc_array((void **)&tailof, t->m + 1, sizeof *tailof, false)) || (err = gsp_alloc_array((void **)&level, n, sizeof *level, false)) ||
        (err = gsp_alloc_array((void **)&pick, MAX_PANELS, sizeof *pick, false)))
        goto done;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            tailof[a] = x;
            if (t->cap && t->cap[a] > maxcap) maxcap = t->cap[a];
        }
    int64_t ntrees_root = 0;
    for (int64_t i = 0; i < forest->ntrees; i++)
        if (forest->trees[i].root == root) {
            if (npick < MAX_PANELS) pick[npick++] = i;
            ntrees_root++;
        }
    if (npick == 0) {
        err = gsp_error(GSP_ERR_RANGE, "no tree has root %lld", (long long)root);
        goto done;
    }
    /* Compute nodes on a circle of radius 120 about (0, 0); switches inside. */
    double R = 120;
    for (int64_t x = 0, k = 0; x < n; x++)
        if (!t->is_switch || !t->is_switch[x]) {
            double ang = 2 * M_PI * (double)k++ / (double)N - M_PI / 2;
            px[x] = R * cos(ang);
            py[x] = R * sin(ang);
        }
    for (int64_t x = 0, k = 0; x < n; x++) {
        if (!t->is_switch || !t->is_switch[x]) continue;
        double sx = 0, sy = 0;
        int64_t c = 0;
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
            if (!t->is_switch[t->adj[a]]) sx += px[t->adj[a]], sy += py[t->adj[a]], c++;
        /* Switches with the same neighbours would coincide: a small step apart each. */
        px[x] = c ? 0.55 * sx / (double)c : 0;
        py[x] = (c ? 0.55 * sy / (double)c : 0) + 14.0 * (double)(k % 3) - 14.0;
        k++;
    }
    int cols = npick < 3 ? (int)npick : npick == 4 ? 2 : 3;
    int rows = (int)((npick + cols - 1) / cols);
    double W = cols * PANEL_W < 800 ? 800 : cols * PANEL_W, H = rows * PANEL_H + 60;
    char b[24], b2[24];
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n", W, H, W, H);
    fputs("<defs>\n", f);
    for (int64_t l = 0; l < NLEVEL; l++)
        fprintf(f, "<marker id=\"a%lld\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\">"
                   "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>\n",
                (long long)l, level_colour[l]);
    fputs("</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", f);
    fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"15\">");
    xml_text(f, t->spec);
    fprintf(f, ": %s trees at the optimum, algbw %lld", gsp_collective_name(forest->collective), (long long)forest->num);
    if (forest->den != 1) fprintf(f, "/%lld", (long long)forest->den);
    fprintf(f, " = %.6g; %lld trees, deepest %lld</text>\n", forest->value, (long long)forest->ntrees, (long long)forest->depth);
    fprintf(f, "<text x=\"10\" y=\"42\" font-size=\"12\" fill=\"#444\">the %lld tree%s of ", (long long)ntrees_root, ntrees_root > 1 ? "s" : "");
    xml_text(f, gsp_topo_node_name(t, root, b));
    fprintf(f, "%s; grey: links (wider: faster); arrows: routes, coloured by the level of the node they reach; squares: switches</text>\n",
            ntrees_root > npick ? " (the first drawn)" : "");
    for (int64_t p = 0; p < npick; p++) {
        const gsp_tree_t *T = &forest->trees[pick[p]];
        double ox = (double)(p % cols) * PANEL_W + PANEL_W / 2, oy = 60 + (double)(p / cols) * PANEL_H + PANEL_H / 2 + 8;
        fprintf(f, "<g transform=\"translate(%.1f,%.1f)\">\n", ox, oy);
        fprintf(f, "<text x=\"0\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">tree %lld: %lld/%lld of the shard, depth %lld (%lld hops)</text>\n",
                -PANEL_H / 2 + 12, (long long)pick[p], (long long)T->mult, (long long)forest->share, (long long)T->depth, (long long)T->hop_depth);
        /* The fabric: one grey line per linked pair. */
        for (int64_t x = 0; x < n; x++)
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                int64_t y = t->adj[a];
                if (y < x && gsp_topo_arc_index(t, y, x) >= 0) continue;
                double w = 0.6 + 3.0 * (double)(t->cap ? t->cap[a] : 1) / (double)maxcap;
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d8d8d8\" stroke-width=\"%.1f\"/>\n", px[x], py[x], px[y], py[y], w);
            }
        /* The routes, shortened at their heads so that the arrows show. */
        level[T->root] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            int64_t lv = level[T->from[e]] + 1;
            level[T->to[e]] = lv;
            const char *col = level_colour[(lv - 1) % NLEVEL];
            for (int64_t h = T->hop_off[e]; h < T->hop_off[e + 1]; h++) {
                int64_t a = T->hops[h], u = tailof[a], v = t->adj[a];
                if (forest->reversed) u = t->adj[a], v = tailof[a];
                double dx = px[v] - px[u], dy = py[v] - py[u], d = sqrt(dx * dx + dy * dy);
                if (d < 1e-9) continue;
                double s = (d - 9) / d, s0 = 7 / d;
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.8\" marker-end=\"url(#a%lld)\"/>\n",
                        px[u] + dx * s0, py[u] + dy * s0, px[u] + dx * s, py[u] + dy * s, col, (long long)((lv - 1) % NLEVEL));
            }
        }
        for (int64_t x = 0; x < n; x++) {
            bool sw = t->is_switch && t->is_switch[x];
            const char *fill = x == T->root ? "#222" : "white";
            if (sw)
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#eee\" stroke=\"#555\"/>\n", px[x] - 6, py[x] - 6);
            else
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" stroke=\"#333\"/>\n", px[x], py[x], fill);
            double lx = sw ? px[x] + 9 : px[x] * 1.16, ly = sw ? py[x] - 8 : py[x] * 1.16 + 4;
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"%s\" fill=\"#333\">", lx, ly, sw ? "start" : "middle");
            xml_text(f, short_name(t, x, b2));
            fputs("</text>\n", f);
        }
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
    if (ferror(f)) err = gsp_error(GSP_ERR_IO, "writing the picture failed");
done:
    gsp_free(px);
    gsp_free(py);
    gsp_free(tailof);
    gsp_free(level);
    gsp_free(pick);
    return err;
}

/* draw.c — pictures a person would rather look at than read: the broadcast tree of node 0's
 * packet (Fig. 3–6 of the packet-gossip paper), nodes labelled by the round they are reached
 * in, arcs coloured by generator; circulants on the lattice of relative addresses (Fig. 1a
 * of the circulant paper). Plain SVG, written directly. */
#include <math.h>
#include <string.h>

#include "gossip/circulant.h"
#include "gossip/sched.h"

static const char *const palette[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
#define NPAL (sizeof palette / sizeof palette[0])

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
    double r = n / (2 * M_PI) + 1;
    for (int64_t x = 0; x < n; x++) {
        px[x] = r * cos(2 * M_PI * x / n);
        py[x] = r * sin(2 * M_PI * x / n);
    }
    return GSP_OK;
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
    const char *subtitle = s ? "node label = round reached; arc colour = generator; dashed = wraps around" : "";
    int legend_rows = t->group ? (t->ngens + 3) / 4 : 0;
    double cell = 44, pad = 60, W = (maxx - minx) * cell + 2 * pad, H = (maxy - miny) * cell + 2 * pad + 60 + 20.0 * legend_rows;
    /* Wide enough for the title and the legend (about 7.5 px per character at 14 px). */
    if (W < 7.5 * (double)strlen(title) + pad) W = 7.5 * (double)strlen(title) + pad;
    if (W < 7.0 * (double)strlen(subtitle) + pad) W = 7.0 * (double)strlen(subtitle) + pad;
    if (t->group && W < 4 * 110 + pad) W = 4 * 110 + pad;
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
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\" stroke-width=\"1\"/>\n", X(x), Y(x),
                    X(y), Y(y));
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
    }
    if (t->group) {
        for (int i = 0; i < t->ngens; i++)
            fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" fill=\"%s\">generator %d</text>\n",
                    pad / 2 + 110.0 * (i % 4), H - 10 - 20.0 * (legend_rows - 1 - i / 4), palette[i % NPAL], i);
    }
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

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan_sweep.c — `gossip plan COLLECTIVE SPEC --bytes LO:HI[:F]`: the runtime's candidates
 * predicted over a range of sizes, the cost model's choice at each, and the sizes where that
 * choice changes; as a table, as JSON, and as an SVG picture (log-log time against size). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

#define SWEEP_MAX_BYTES (INT64_C(1) << 40)

bool cli_sweep_parse(const char *text, cli_sweep_t *sw) {
    memset(sw, 0, sizeof *sw);
    char buf[256];
    if (strlen(text) >= sizeof buf) return cli_usage_error("plan: --bytes '%.40s...' is too long", text), false;
    strcpy(buf, text);
    char *part[4] = {buf, NULL, NULL, NULL};
    int np = 1;
    for (char *p = buf; *p; p++)
        if (*p == ':') {
            if (np == 3) return cli_usage_error("plan: --bytes %s: expected a size, or a sweep LO:HI or LO:HI:FACTOR", text), false;
            *p = 0;
            part[np++] = p + 1;
        }
    int64_t lo, hi;
    if (!cli_parse_size(part[0], 0, SWEEP_MAX_BYTES, "--bytes LO", &lo) || !cli_parse_size(part[1], 0, SWEEP_MAX_BYTES, "--bytes HI", &hi))
        return false;
    /* Zero has no place on a logarithmic axis; plan --bytes 0 alone still shows it. */
    if (lo == 0) return cli_usage_error("plan: --bytes %s: a sweep starts at 1 byte or more (its sizes grow by a factor)", text), false;
    if (hi < lo) return cli_usage_error("plan: --bytes %s: HI (%lld) is below LO (%lld)", text, (long long)hi, (long long)lo), false;
    double f = 2;
    if (np == 3) {
        char *end;
        f = strtod(part[2], &end);
        if (end == part[2] || *end || !(f > 1) || f > 1e6)
            return cli_usage_error("plan: --bytes %s: FACTOR '%s' must be a number above 1 (2: powers of two, the default)", text, part[2]),
                   false;
    }
    /* LO, LO F, LO F^2, ... below HI, then HI itself: the range asked for is covered end to end.
     * A factor close to 1 could round two sizes to the same byte count: each size is at least
     * one byte above the one before. */
    int64_t *v = sw->sizes;
    int n = 0;
    for (double x = (double)lo; n < CLI_SWEEP_MAX_SIZES; x *= f) {
        int64_t s = (int64_t)llround(x);
        if (n && s <= v[n - 1]) s = v[n - 1] + 1;
        if (s >= hi) break;
        v[n++] = s;
    }
    if (n == CLI_SWEEP_MAX_SIZES) {
        sw->n = 0;
        return cli_usage_error("plan: --bytes %s: more than %d sizes (give a larger FACTOR: LO:HI:FACTOR)", text, CLI_SWEEP_MAX_SIZES), false;
    }
    v[n++] = hi;
    sw->lo = lo;
    sw->hi = hi;
    sw->factor = f;
    sw->n = n;
    return true;
}

/* "64 KiB" for exact multiples of 1024, else "1000000 B": the table keeps the sizes exact. */
static void fmt_size(char *buf, size_t n, int64_t b) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && b >= 1024 && b % 1024 == 0) b /= 1024, u++;
    snprintf(buf, n, "%lld %s", (long long)b, unit[u]);
}

/* Four significant digits in the unit that keeps the number between 1 and 1000. */
static void fmt_time(char *buf, size_t n, double s) {
    if (s < 1e-6) snprintf(buf, n, "%.4g ns", s * 1e9);
    else if (s < 1e-3) snprintf(buf, n, "%.4g us", s * 1e6);
    else if (s < 1) snprintf(buf, n, "%.4g ms", s * 1e3);
    else snprintf(buf, n, "%.4g s", s);
}

/* The runtime's choice at bytes, built as the runtime would build it (pending candidates whose
 * lower bound wins are built, and stay built for every further size), by name: building may
 * remove a candidate and move the others. */
static gsp_err_t choice_at(gsp_rt_algos_t *al, int64_t nodes, int64_t bytes, const gsp_cost_t *cost, char name[32]) {
    int idx;
    gsp_err_t err = gsp_rt_choose_build(al, nodes, bytes, cost, NULL, NULL, &idx);
    if (!err) snprintf(name, 32, "%s", al->v[idx].name);
    return err;
}

/* A table column: as wide as its name, or a time with its mark ("*1234 us"). */
static int col_width(const char *name) {
    int l = (int)strlen(name);
    return l > 10 ? l : 10;
}

typedef struct {
    int64_t bytes;
    char name[32], prev[32];
} crossover_t;

/* log10 of the nearest m 10^e (m 1, 2 or 5) below v, or above it when up. */
static double nice(double v, bool up) {
    double e = floor(log10(v)), best = up ? INFINITY : -INFINITY;
    for (double k = e - 1; k <= e + 1; k++)
        for (int m = 1; m <= 5; m++) {
            if (m == 3 || m == 4) continue;
            double c = log10(m) + k;
            if (up ? c >= log10(v) - 1e-12 && c < best : c <= log10(v) + 1e-12 && c > best) best = c;
        }
    return best;
}

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
#define NPAL ((int)(sizeof palette / sizeof *palette))

/* The picture: log2 size across, log10 seconds up, one polyline per candidate (dashed: a lower
 * bound, never built), a disc on the chosen candidate at every size, a dotted line at every
 * crossover, the legend on the right. */
static void svg(FILE *f, const gsp_rt_algos_t *al, const gsp_topo_t *t, gsp_collective_t coll, const cli_sweep_t *sw, const double *sec,
                const int *choice, const crossover_t *cx, int ncx) {
    const int na = al->n, n = sw->n;
    /* The legend's column is as wide as its longest entry (about 7 pixels a character). */
    size_t longest = strlen("the runtime's choice");
    for (int i = 0; i < na; i++) {
        size_t l = strlen(al->v[i].name) + (al->v[i].pending ? strlen(" (lower bound)") : 0);
        if (l > longest) longest = l;
    }
    const double pw = 600, ph = 420, L = 78, T = 62, B = 62, R = 60 + 7.2 * (double)longest;
    const double W = L + pw + R, H = T + ph + B;
    /* x: the sweep's range in octaves (half an octave either side of a single size). */
    double x0 = log2((double)sw->lo), x1 = log2((double)sw->hi);
    if (x1 - x0 < 1e-9) x0 -= 0.5, x1 += 0.5;
    /* y: whole decades around the times, at least one; zero times (a cost model of zeros) sit on
     * the floor of the axis rather than at minus infinity. */
    double ymin = INFINITY, ymax = 0;
    for (int i = 0; i < n * na; i++)
        if (sec[i] > 0) {
            if (sec[i] < ymin) ymin = sec[i];
            if (sec[i] > ymax) ymax = sec[i];
        }
    if (!(ymax > 0)) ymin = 1e-9, ymax = 1e-8;
    /* Over more than three decades the axis spans whole decades; over fewer it ends at the
     * nearest 1, 2 or 5 times a power of ten, so that narrow ranges fill the picture. */
    bool wide = log10(ymax) - log10(ymin) > 3;
    double y0 = wide ? floor(log10(ymin)) : nice(ymin, false), y1 = wide ? ceil(log10(ymax)) : nice(ymax, true);
    if (y1 - y0 < 0.3) y1 = y0 + 0.3;
#define PX(b) (L + pw * (log2((double)(b)) - x0) / (x1 - x0))
#define PY(s) (T + ph * (1 - (log10((s) > 0 ? (s) : pow(10, y0)) - y0) / (y1 - y0)))
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s on %s (%lld nodes): predicted time by size</text>\n", L,
            gsp_collective_name(coll), t->spec, (long long)t->n);
    fprintf(f, "<text x=\"%.0f\" y=\"44\" fill=\"#555\">the cost model of the MPI runtime; discs: its choice at each size; dotted: where the choice changes</text>\n", L);
    /* Grid and labels: decades up (with 2 and 5 between when the range is narrow), powers of
     * two across with a label every 1, 2, 5 or 10 octaves so that at most 12 are written. */
    static const char *const tunit[] = {"ns", "\xc2\xb5s", "ms", "s"};
    for (double e = floor(y0); e <= y1 + 1e-9; e++)
        for (int m = 1; m <= 5; m++) {
            if (m == 3 || m == 4 || (m != 1 && wide)) continue;
            double v = m * pow(10, e);
            if (log10(v) < y0 - 1e-9 || log10(v) > y1 + 1e-9) continue;
            double y = PY(v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", L, y, L + pw, y, m == 1 ? "#ddd" : "#f0f0f0");
            int ex = (int)e, u = ex < -6 ? 0 : ex < -3 ? 1 : ex < 0 ? 2 : 3;
            if (ex < -9) u = 0; /* below a nanosecond: fractions of ns */
            double shown = v * pow(10, 9 - 3 * u);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"%s>%.4g %s</text>\n", L - 6, y + 4, m == 1 ? "" : " fill=\"#888\"", shown,
                    tunit[u]);
        }
    int e0 = (int)ceil(x0 - 1e-9), e1 = (int)floor(x1 + 1e-9), step = 1;
    static const int steps[] = {1, 2, 5, 10, 20};
    for (int k = 0; k < 5; k++)
        if ((e1 - e0) / steps[k] + 1 <= 12) {
            step = steps[k];
            break;
        } else
            step = steps[k];
    for (int e = e0; e <= e1; e++) {
        double x = L + pw * (e - x0) / (x1 - x0);
        bool lab = e % step == 0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x, T, x, T + ph, lab ? "#ddd" : "#f0f0f0");
        if (lab) {
            char s[32];
            fmt_size(s, sizeof s, INT64_C(1) << e);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, T + ph + 18, s);
        }
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", L, T, pw, ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">size in bytes (%s; log scale)</text>\n", L + pw / 2, H - 16,
            coll == GSP_COLL_ALLGATHER ? "each rank's block" : coll == GSP_COLL_REDUCE_SCATTER ? "each rank's share of the vector" : "the vector");
    fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">predicted time (log scale)</text>\n", T + ph / 2);
    /* Crossovers first, under the lines. */
    for (int c = 1; c < ncx; c++) {
        double x = PX(cx[c].bytes);
        char s[32];
        fmt_size(s, sizeof s, cx[c].bytes);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-dasharray=\"2 3\"><title>from %s: %s</title></line>\n",
                x, T, x, T + ph, s, cx[c].name);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#444\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n", x - 3,
                T + ph - 4, x - 3, T + ph - 4, cx[c].name);
    }
    for (int i = 0; i < na; i++) {
        const char *col = palette[i % NPAL];
        const char *dash = al->v[i].pending ? " stroke-dasharray=\"6 4\"" : i >= NPAL ? " stroke-dasharray=\"1 3\"" : "";
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s data-algorithm=\"%s\" points=\"", col, dash, al->v[i].name);
        for (int k = 0; k < n; k++) fprintf(f, "%s%.1f,%.1f", k ? " " : "", PX(sw->sizes[k]), PY(sec[k * na + i]));
        fputs("\"/>\n", f);
        /* One size draws no line: a short dash of the algorithm's colour at its time instead. */
        if (n == 1)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n", PX(sw->lo) - 14, PY(sec[i]),
                    PX(sw->lo) + 14, PY(sec[i]), col);
    }
    for (int k = 0; k < n; k++) {
        int i = choice[k];
        char s[32], ts[32];
        fmt_size(s, sizeof s, sw->sizes[k]);
        fmt_time(ts, sizeof ts, sec[k * na + i]);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"white\"><title>%s: %s, %s</title></circle>\n",
                PX(sw->sizes[k]), PY(sec[k * na + i]), n > 60 ? "2.5" : "4", palette[i % NPAL], s, al->v[i].name, ts);
    }
    /* Legend. */
    double lx = L + pw + 18, ly = T + 8;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">algorithm</text>\n", lx, ly);
    for (int i = 0; i < na; i++) {
        double y = ly + 20 * (i + 1);
        const char *dash = al->v[i].pending ? " stroke-dasharray=\"6 4\"" : i >= NPAL ? " stroke-dasharray=\"1 3\"" : "";
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                   "<text x=\"%.1f\" y=\"%.1f\">%s%s</text>\n",
                lx, y - 4, lx + 26, y - 4, palette[i % NPAL], dash, lx + 32, y, al->v[i].name, al->v[i].pending ? " (lower bound)" : "");
    }
    double y = ly + 20 * (na + 1) + 6;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#333\"/><text x=\"%.1f\" y=\"%.1f\">the runtime's choice</text>\n", lx + 13, y - 4,
            lx + 32, y);
    fputs("</svg>\n", f);
#undef PX
#undef PY
}

int cli_plan_sweep(gsp_rt_algos_t *al, const gsp_topo_t *t, gsp_collective_t coll, const cli_sweep_t *sw, const gsp_cost_t *cost, bool json,
                   const char *svgpath) {
    gsp_err_t err = GSP_OK;
    int rc = EXIT_OK, n = sw->n, ncx = 0, capx = 8;
    char(*cname)[32] = calloc((size_t)n, 32);
    crossover_t *cx = malloc(sizeof *cx * (size_t)capx);
    int *choice = NULL;
    double *sec = NULL;
    if (!cname || !cx) goto nomem;
    /* The choice at every size, then between two sizes whose choices differ, the byte count
     * where it changes, by bisection (the first one found; several changes in one interval are
     * found one after the other). Candidates are built once, when the cost model first needs
     * them, and kept for every further size. */
    for (int k = 0; k < n; k++) {
        if ((err = choice_at(al, t->n, sw->sizes[k], cost, cname[k]))) goto fail;
        int64_t lo = k ? sw->sizes[k - 1] : sw->sizes[0];
        char cur[32];
        snprintf(cur, sizeof cur, "%s", k ? cname[k - 1] : "");
        while (strcmp(cur, cname[k])) {
            int64_t l = lo, h = sw->sizes[k];
            char hn[32];
            snprintf(hn, sizeof hn, "%s", cname[k]);
            if (k)
                while (h - l > 1) {
                    int64_t m = l + (h - l) / 2;
                    char mn[32];
                    if ((err = choice_at(al, t->n, m, cost, mn))) goto fail;
                    if (!strcmp(mn, cur)) l = m;
                    else h = m, snprintf(hn, sizeof hn, "%s", mn);
                }
            if (ncx == capx) {
                crossover_t *g = realloc(cx, sizeof *cx * (size_t)(capx *= 2));
                if (!g) goto nomem;
                cx = g;
            }
            cx[ncx].bytes = h;
            snprintf(cx[ncx].name, sizeof cx[ncx].name, "%s", hn);
            snprintf(cx[ncx].prev, sizeof cx[ncx].prev, "%s", cur);
            ncx++;
            lo = h;
            snprintf(cur, sizeof cur, "%s", hn);
        }
    }
    /* Every candidate predicted at every size with what is known at the end: a candidate built
     * for one size is predicted from its schedule at all of them, so that each line is one
     * kind (built, or a lower bound throughout). */
    int na = al->n;
    choice = malloc(sizeof *choice * (size_t)n);
    sec = malloc(sizeof *sec * (size_t)n * (size_t)na);
    if (!choice || !sec) goto nomem;
    for (int k = 0; k < n; k++) {
        choice[k] = gsp_rt_find(al, cname[k]);
        for (int i = 0; i < na; i++) {
            gsp_rt_pred_t p;
            gsp_rt_predict(&al->v[i], t->n, sw->sizes[k], cost, &p);
            sec[k * na + i] = p.seconds;
        }
    }
    /* The picture first, whole or not at all: a failed write leaves no table claiming it. */
    bool svg_stdout = svgpath && cli_output_is_stdout(svgpath);
    if (svgpath) {
        gsp_out_t out;
        if ((err = gsp_out_open(&out, svgpath))) goto fail;
        svg(out.f, al, t, coll, sw, sec, choice, cx, ncx);
        if ((err = gsp_out_close(&out, GSP_OK))) {
            rc = cli_write_error(err);
            goto done;
        }
    }
    FILE *rep = svg_stdout ? stderr : stdout;
    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "collective"); gsp_jw_str(&w, gsp_collective_name(coll));
        gsp_jw_key(&w, "topology"); gsp_jw_str(&w, t->spec);
        gsp_jw_key(&w, "nodes"); gsp_jw_int(&w, t->n);
        gsp_jw_key(&w, "sweep");
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "from"); gsp_jw_int(&w, sw->lo);
        gsp_jw_key(&w, "to"); gsp_jw_int(&w, sw->hi);
        gsp_jw_key(&w, "factor"); gsp_jw_num(&w, sw->factor);
        gsp_jw_obj_end(&w);
        cli_cost_json(&w, cost);
        gsp_jw_key(&w, "algorithms");
        gsp_jw_arr_begin(&w);
        for (int i = 0; i < na; i++) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "algorithm"); gsp_jw_str(&w, al->v[i].name);
            gsp_jw_key(&w, "built_from"); gsp_jw_str(&w, al->v[i].built_from);
            gsp_jw_key(&w, "built"); gsp_jw_bool(&w, !al->v[i].pending);
            gsp_jw_obj_end(&w);
        }
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "sizes");
        gsp_jw_arr_begin(&w);
        for (int k = 0; k < n; k++) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "bytes"); gsp_jw_int(&w, sw->sizes[k]);
            gsp_jw_key(&w, "choice"); gsp_jw_str(&w, cname[k]);
            gsp_jw_key(&w, "candidates");
            gsp_jw_arr_begin(&w);
            for (int i = 0; i < na; i++) {
                gsp_jw_obj_begin(&w);
                gsp_jw_key(&w, "algorithm"); gsp_jw_str(&w, al->v[i].name);
                gsp_jw_key(&w, "predicted_seconds"); gsp_jw_num(&w, sec[k * na + i]);
                gsp_jw_key(&w, "built"); gsp_jw_bool(&w, !al->v[i].pending);
                gsp_jw_key(&w, "chosen"); gsp_jw_bool(&w, i == choice[k]);
                gsp_jw_obj_end(&w);
            }
            gsp_jw_arr_end(&w);
            gsp_jw_obj_end(&w);
        }
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "crossovers");
        gsp_jw_arr_begin(&w);
        for (int c = 1; c < ncx; c++) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "bytes"); gsp_jw_int(&w, cx[c].bytes);
            gsp_jw_key(&w, "from"); gsp_jw_str(&w, cx[c].prev);
            gsp_jw_key(&w, "to"); gsp_jw_str(&w, cx[c].name);
            gsp_jw_obj_end(&w);
        }
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "svg");
        if (svgpath) gsp_jw_str(&w, svgpath); else gsp_jw_null(&w);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w); /* a failed write of stdout is reported by main: exit 3 with the reason */
    } else {
        char lo[32], hi[32], head[2 * GSP_COST_MAX_BETA * 40 + 256];
        fmt_size(lo, sizeof lo, sw->lo);
        fmt_size(hi, sizeof hi, sw->hi);
        cli_cost_text(head, sizeof head, cost);
        if (n == 1) fprintf(rep, "%s on %s (%lld nodes), %s; %s\n", gsp_collective_name(coll), t->spec, (long long)t->n, lo, head);
        else
            fprintf(rep, "%s on %s (%lld nodes), %s to %s (%d sizes, factor %g); %s\n", gsp_collective_name(coll), t->spec, (long long)t->n, lo,
                    hi, n, sw->factor, head);
        /* A column per candidate, as wide as its name or a time with its marks. */
        fprintf(rep, "%12s", "bytes");
        for (int i = 0; i < na; i++) fprintf(rep, " %*s", col_width(al->v[i].name), al->v[i].name);
        fputc('\n', rep);
        for (int k = 0; k < n; k++) {
            char s[32];
            fmt_size(s, sizeof s, sw->sizes[k]);
            fprintf(rep, "%12s", s);
            for (int i = 0; i < na; i++) {
                char ts[32], cell[40];
                fmt_time(ts, sizeof ts, sec[k * na + i]);
                snprintf(cell, sizeof cell, "%s%s", i == choice[k] ? "*" : al->v[i].pending ? ">" : "", ts);
                fprintf(rep, " %*s", col_width(al->v[i].name), cell);
            }
            fputc('\n', rep);
        }
        fprintf(rep, "* the runtime's choice (exact: the same bits on every rank)\n");
        for (int i = 0; i < na; i++)
            if (al->v[i].pending) {
                fprintf(rep, "> a lower bound: not built, as it cannot beat the choice at any size\n");
                break;
            }
        fprintf(rep, "the runtime's choice by size:\n");
        for (int c = 0; c < ncx; c++) {
            char s[32];
            fmt_size(s, sizeof s, cx[c].bytes);
            /* A crossover found by bisection is rarely a round size: its order of magnitude too. */
            double b = (double)cx[c].bytes;
            char approx[32] = "";
            if (s[strlen(s) - 2] == ' ' && b >= 1024) {
                int u = b >= 1073741824.0 ? 3 : b >= 1048576.0 ? 2 : 1;
                snprintf(approx, sizeof approx, " (%.1f %s)", b / pow(1024, u), u == 3 ? "GiB" : u == 2 ? "MiB" : "KiB");
            }
            fprintf(rep, "  from %s%s: %s\n", s, approx, cx[c].name);
        }
        if (svgpath) fprintf(rep, "written %s\n", svg_stdout ? "standard output" : svgpath);
    }
    goto done;
nomem:
    err = gsp_error(GSP_ERR_NOMEM, "out of memory");
fail:
    rc = cli_lib_error(err);
done:
    free(cname);
    free(cx);
    free(choice);
    free(sec);
    return rc;
}

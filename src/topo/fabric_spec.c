/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_spec.c — the fabric families of docs/fabrics.md: NVSwitch boxes (dgx), the MI250 box's
 * xGMI mesh (mi250), leaf-spine fat trees (fattree), dragonflies (dragonfly), and capacities per
 * dimension of any Cayley spec (SPEC@C1,C2,...). Each builds named vertices, switches and links
 * of exact capacity (fractions brought to one integer scale) for gsp_topo_from_arcs. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

static int64_t gcd(int64_t a, int64_t b) {
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* A capacity as an exact fraction num/den (den > 0, reduced). */
typedef struct {
    int64_t num, den;
} frac_t;

static frac_t frac(int64_t num, int64_t den) {
    int64_t g = gcd(num, den);
    if (g > 1) num /= g, den /= g;
    return (frac_t){num, den};
}

/* A fabric under construction. */
typedef struct {
    const char *spec;
    gsp_vec_t arcs, num, den, sw;
    char **names;
    int64_t n, cap_names;
} fab_t;

static void fab_free(fab_t *f) {
    gsp_vec_destroy(&f->arcs);
    gsp_vec_destroy(&f->num);
    gsp_vec_destroy(&f->den);
    gsp_vec_destroy(&f->sw);
    for (int64_t x = 0; x < f->n; x++) gsp_free(f->names[x]);
    gsp_free(f->names);
}

/* A new vertex named by fmt; its index in *id. */
static gsp_err_t fab_vertex(fab_t *f, bool is_switch, int64_t *id, const char *fmt, ...) {
    gsp_err_t err;
    if (f->n == f->cap_names) {
        int64_t nc = f->cap_names ? 2 * f->cap_names : 64;
        void *q = gsp_realloc(f->names, (size_t)nc * sizeof *f->names);
        if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        f->names = q;
        f->cap_names = nc;
    }
    char buf[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!(f->names[f->n] = gsp_strdup(buf))) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    if ((err = gsp_vec_push(&f->sw, is_switch))) {
        gsp_free(f->names[f->n]);
        return err;
    }
    *id = f->n++;
    return GSP_OK;
}

/* A link u - v of capacity c each way. */
static gsp_err_t fab_link(fab_t *f, int64_t u, int64_t v, frac_t c) {
    gsp_err_t err;
    for (int k = 0; k < 2; k++) {
        if ((err = gsp_vec_push(&f->arcs, k ? v : u)) || (err = gsp_vec_push(&f->arcs, k ? u : v)) || (err = gsp_vec_push(&f->num, c.num)) ||
            (err = gsp_vec_push(&f->den, c.den)))
            return err;
    }
    return GSP_OK;
}

/* The topology: capacities over their common denominator. */
static gsp_err_t fab_finish(fab_t *f, gsp_topo_t *t) {
    gsp_err_t err;
    int64_t scale = 1, g = 0;
    uint8_t *sw = NULL;
    for (int64_t a = 0; a < f->den.len; a++) {
        int64_t d = f->den.v[a] / gcd(scale, f->den.v[a]);
        if (!gsp_mul_ok(scale, d, &scale) || scale > ((int64_t)1 << 40))
            return gsp_error(GSP_ERR_OVERFLOW, "%s: the capacities' common denominator is too large", f->spec);
    }
    for (int64_t a = 0; a < f->num.len; a++) {
        int64_t c;
        if (!gsp_mul_ok(f->num.v[a], scale / f->den.v[a], &c) || c > ((int64_t)1 << 52))
            return gsp_error(GSP_ERR_OVERFLOW, "%s: a capacity is too large", f->spec);
        f->num.v[a] = c;
        g = gcd(g, c);
    }
    g = gcd(g, scale);
    if (g > 1) {
        for (int64_t a = 0; a < f->num.len; a++) f->num.v[a] /= g;
        scale /= g;
    }
    if ((err = gsp_alloc_array((void **)&sw, f->n + 1, 1, false))) return err;
    for (int64_t x = 0; x < f->n; x++) sw[x] = (uint8_t)f->sw.v[x];
    err = gsp_topo_from_arcs(t, f->n, f->arcs.v, f->num.v, f->num.len, scale, sw, (const char *const *)f->names, f->spec);
    gsp_free(sw);
    return err;
}

/* "key=value,key=value" after the shape: each key one of keys[], its value a positive decimal
 * into vals[] (as a fraction; left alone when absent). */
static gsp_err_t parse_opts(const char *spec, const char *p, const char *const *keys, int nkeys, frac_t *vals) {
    while (*p) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        if (!eq || eq > end) return gsp_error(GSP_ERR_PARSE, "%s: expected key=value after ':' (keys: %s%s%s%s%s)", spec, keys[0],
                                             nkeys > 1 ? ", " : "", nkeys > 1 ? keys[1] : "", nkeys > 2 ? ", " : "", nkeys > 2 ? keys[2] : "");
        int k = 0;
        while (k < nkeys && !(strlen(keys[k]) == (size_t)(eq - p) && !strncmp(p, keys[k], (size_t)(eq - p)))) k++;
        if (k == nkeys) {
            const char *near = gsp_nearest(p, (size_t)(eq - p), keys, (size_t)nkeys);
            return gsp_error(GSP_ERR_PARSE, "%s: unknown parameter '%.*s'%s%s%s", spec, (int)(eq - p), p, near ? "; did you mean '" : "",
                             near ? near : "", near ? "'?" : "");
        }
        char val[64];
        size_t len = (size_t)(end - eq - 1);
        if (len >= sizeof val) len = sizeof val - 1;
        memcpy(val, eq + 1, len);
        val[len] = 0;
        int64_t micro;
        if (gsp__topo_parse_capacity(val, &micro)) return gsp_error(GSP_ERR_PARSE, "%s: %s=%s: %s", spec, keys[k], val, gsp_errmsg());
        vals[k] = frac(micro, GSP__CAP_UNIT);
        p = *end ? end + 1 : end;
    }
    return GSP_OK;
}

/* Integers a x b x ... (count of them, each in [lo, hi]) at *pp. */
static gsp_err_t parse_shape(const char *spec, const char **pp, int count, const int64_t *lo, const int64_t *hi, int64_t *v, const char *what) {
    const char *p = *pp;
    for (int i = 0; i < count; i++) {
        if (i && *p++ != 'x') return gsp_error(GSP_ERR_PARSE, "%s: expected %s", spec, what);
        char *end;
        if (!isdigit((unsigned char)*p)) return gsp_error(GSP_ERR_PARSE, "%s: expected %s", spec, what);
        long long x = strtoll(p, &end, 10);
        if (x < lo[i] || x > hi[i])
            return gsp_error(GSP_ERR_RANGE, "%s: %s: %lld is outside %lld..%lld", spec, what, x, (long long)lo[i], (long long)hi[i]);
        v[i] = x;
        p = end;
    }
    if (*p && *p != ':') return gsp_error(GSP_ERR_PARSE, "%s: expected %s, then optionally ':key=value,...'", spec, what);
    *pp = *p ? p + 1 : p;
    return GSP_OK;
}

/* dgx:GxB[:nvlink=C,nic=C]: B boxes of G GPUs on an NVSwitch (one switch vertex per box, a link
 * of nvlink per GPU), and when B > 1 one NIC per GPU (a link of nic) into one network switch.
 * The default is the DGX A100: nvlink=300, nic=25 (GB/s). */
gsp_err_t gsp__build_dgx(gsp_topo_t *t, const char *spec, const char *args) {
    static const char *const keys[] = {"nvlink", "nic"};
    frac_t c[2] = {{300, 1}, {25, 1}};
    int64_t v[2];
    const int64_t lo[2] = {1, 1}, hi[2] = {1 << 20, 1 << 20};
    const char *p = args;
    gsp_err_t err;
    if ((err = parse_shape(spec, &p, 2, lo, hi, v, "dgx:GxB (GPUs per box x boxes)")) || (err = parse_opts(spec, p, keys, 2, c))) return err;
    int64_t G = v[0], B = v[1];
    if (G * B < 2) return gsp_error(GSP_ERR_RANGE, "%s: one GPU in all: nothing to connect", spec);
    if ((err = gsp__topo_check_size(spec, G * B + B + 1, 4 * G * B))) return err;
    fab_t f = {.spec = spec};
    int64_t ib = -1;
    if (B > 1 && (err = fab_vertex(&f, true, &ib, "ib"))) goto done;
    for (int64_t b = 0; b < B; b++) {
        int64_t nvs, gpu;
        if ((err = fab_vertex(&f, true, &nvs, "b%lld.nvswitch", (long long)b))) goto done;
        for (int64_t g = 0; g < G; g++) {
            if ((err = fab_vertex(&f, false, &gpu, "b%lld.gpu%lld", (long long)b, (long long)g)) || (err = fab_link(&f, gpu, nvs, c[0])))
                goto done;
            if (B > 1 && (err = fab_link(&f, gpu, ib, c[1]))) goto done;
        }
    }
    err = fab_finish(&f, t);
done:
    fab_free(&f);
    return err;
}

/* The xGMI links of one MI250 box (8 MI250 cards, 16 GCDs), as lanes between GCD pairs:
 * every GCD has 7 lanes, 4 to its twin on the same card. After ForestColl's public topology
 * description of the MI250 box (Zhao et al. 2024, github.com/liangyuRain/ForestColl). */
static const int mi250_links[][3] = {
    {0, 1, 4},  {0, 4, 2},  {0, 8, 1},   {1, 5, 1},   {1, 9, 1},   {1, 10, 1},  {2, 3, 4},   {2, 6, 1},   {2, 9, 1},   {2, 10, 1},
    {3, 7, 2},  {3, 11, 1}, {4, 5, 4},   {4, 6, 1},   {5, 6, 1},   {5, 7, 1},   {6, 7, 4},   {8, 9, 4},   {8, 12, 2},  {9, 13, 1},
    {10, 11, 4}, {10, 14, 1}, {11, 15, 2}, {12, 13, 4}, {12, 14, 1}, {13, 14, 1}, {13, 15, 1}, {14, 15, 4},
};

/* mi250:B[:xgmi=C,nic=C]: B MI250 boxes of 16 GCDs joined by xGMI links of 1, 2 or 4 lanes at
 * xgmi a lane (default 50 GB/s), and when B > 1 a NIC of nic (default 16 GB/s) per GCD into one
 * network switch. */
gsp_err_t gsp__build_mi250(gsp_topo_t *t, const char *spec, const char *args) {
    static const char *const keys[] = {"xgmi", "nic"};
    frac_t c[2] = {{50, 1}, {16, 1}};
    int64_t B = 0;
    const int64_t lo = 1, hi = 1 << 20;
    const char *p = args;
    gsp_err_t err;
    if ((err = parse_shape(spec, &p, 1, &lo, &hi, &B, "mi250:B (boxes)")) || (err = parse_opts(spec, p, keys, 2, c))) return err;
    if ((err = gsp__topo_check_size(spec, 17 * B + 1, 128 * B))) return err;
    fab_t f = {.spec = spec};
    int64_t ib = -1, gcd0 = 0;
    if (B > 1 && (err = fab_vertex(&f, true, &ib, "ib"))) goto done;
    for (int64_t b = 0; b < B; b++) {
        for (int d = 0; d < 16; d++) {
            int64_t x;
            if ((err = fab_vertex(&f, false, &x, "b%lld.gcd%d", (long long)b, d))) goto done;
            if (d == 0) gcd0 = x;
            if (B > 1 && (err = fab_link(&f, x, ib, c[1]))) goto done;
        }
        for (size_t k = 0; k < sizeof mi250_links / sizeof *mi250_links; k++)
            if ((err = fab_link(&f, gcd0 + mi250_links[k][0], gcd0 + mi250_links[k][1], frac(c[0].num * mi250_links[k][2], c[0].den)))) goto done;
    }
    err = fab_finish(&f, t);
done:
    fab_free(&f);
    return err;
}

/* fattree:LxH[:spines=S,oversub=R,link=C]: a leaf-spine fat tree of L leaf switches with H hosts
 * each (links of C, default 1), every leaf linked to each of S spine switches (default H) by a
 * link of H C / (R S): the leaf's uplinks carry 1/R of what its hosts can send (oversubscription
 * R:1, default 1). */
gsp_err_t gsp__build_fattree(gsp_topo_t *t, const char *spec, const char *args) {
    static const char *const keys[] = {"spines", "oversub", "link"};
    int64_t v[2];
    const int64_t lo[2] = {1, 1}, hi[2] = {1 << 20, 1 << 20};
    const char *p = args;
    gsp_err_t err;
    if ((err = parse_shape(spec, &p, 2, lo, hi, v, "fattree:LxH (leaves x hosts per leaf)"))) return err;
    int64_t L = v[0], H = v[1];
    frac_t c[3] = {{H, 1}, {1, 1}, {1, 1}};
    if ((err = parse_opts(spec, p, keys, 3, c))) return err;
    if (c[0].den != 1 || c[0].num > (1 << 20)) return gsp_error(GSP_ERR_RANGE, "%s: spines must be an integer in 1..%d", spec, 1 << 20);
    int64_t S = c[0].num;
    if (L * H < 2) return gsp_error(GSP_ERR_RANGE, "%s: one host in all: nothing to connect", spec);
    if ((err = gsp__topo_check_size(spec, L * H + L + S, 2 * (L * H + L * S)))) return err;
    /* H C / (R S), R = rn/rd and C = cn/cd: H cn rd / (cd rn S). */
    int64_t un, ud;
    if (!gsp_mul_ok(H * c[2].num, c[1].den, &un) || !gsp_mul_ok(c[2].den * c[1].num, S, &ud))
        return gsp_error(GSP_ERR_OVERFLOW, "%s: the uplink capacity overflows", spec);
    frac_t up = frac(un, ud);
    fab_t f = {.spec = spec};
    int64_t spine0 = 0;
    for (int64_t s = 0; s < S; s++) {
        int64_t x;
        if ((err = fab_vertex(&f, true, &x, "spine%lld", (long long)s))) goto done;
        if (s == 0) spine0 = x;
    }
    for (int64_t l = 0; l < L; l++) {
        int64_t leaf, h;
        if ((err = fab_vertex(&f, true, &leaf, "leaf%lld", (long long)l))) goto done;
        for (int64_t s = 0; s < S; s++)
            if ((err = fab_link(&f, leaf, spine0 + s, up))) goto done;
        for (int64_t k = 0; k < H; k++)
            if ((err = fab_vertex(&f, false, &h, "h%lld.%lld", (long long)l, (long long)k)) || (err = fab_link(&f, h, leaf, c[2]))) goto done;
    }
    err = fab_finish(&f, t);
done:
    fab_free(&f);
    return err;
}

/* dragonfly:AxHxP[:local=C,global=C,host=C]: the canonical dragonfly (Kim et al. 2008) of
 * G = A H + 1 groups of A routers (switches), all-to-all inside a group by links of local; each
 * router has H global links (of global) and P hosts (links of host), every two groups joined by
 * exactly one global link. Group i's global link l (router l / H) goes to group i + l + 1 mod G.
 * Defaults: capacity 1 everywhere. */
gsp_err_t gsp__build_dragonfly(gsp_topo_t *t, const char *spec, const char *args) {
    static const char *const keys[] = {"local", "global", "host"};
    frac_t c[3] = {{1, 1}, {1, 1}, {1, 1}};
    int64_t v[3];
    const int64_t lo[3] = {1, 1, 1}, hi[3] = {1 << 12, 1 << 12, 1 << 12};
    const char *p = args;
    gsp_err_t err;
    if ((err = parse_shape(spec, &p, 3, lo, hi, v, "dragonfly:AxHxP (routers per group x global links per router x hosts per router)")) ||
        (err = parse_opts(spec, p, keys, 3, c)))
        return err;
    int64_t A = v[0], H = v[1], P = v[2], G = A * H + 1, R = G * A;
    if ((err = gsp__topo_check_size(spec, R * (P + 1), 2 * R * (P + A + H)))) return err;
    fab_t f = {.spec = spec};
    int64_t *router = NULL;
    if ((err = gsp_alloc_array((void **)&router, R, sizeof *router, false))) goto done;
    for (int64_t g = 0; g < G; g++)
        for (int64_t a = 0; a < A; a++) {
            int64_t x = g * A + a, h;
            if ((err = fab_vertex(&f, true, &router[x], "g%lld.r%lld", (long long)g, (long long)a))) goto done;
            for (int64_t k = 0; k < P; k++)
                if ((err = fab_vertex(&f, false, &h, "g%lld.r%lld.h%lld", (long long)g, (long long)a, (long long)k)) ||
                    (err = fab_link(&f, h, router[x], c[2])))
                    goto done;
            for (int64_t b = 0; b < a; b++)
                if ((err = fab_link(&f, router[g * A + b], router[x], c[0]))) goto done;
        }
    for (int64_t g = 0; g < G; g++)
        for (int64_t l = 0; l < A * H; l++) {
            int64_t to = (g + l + 1) % G, l2 = G - 2 - l;
            if (g < to && (err = fab_link(&f, router[g * A + l / H], router[to * A + l2 / H], c[1]))) goto done;
        }
    err = fab_finish(&f, t);
done:
    gsp_free(router);
    fab_free(&f);
    return err;
}

gsp_err_t gsp__topo_dim_caps(gsp_topo_t *t, const char *spec, const char *caps) {
    gsp_err_t err;
    if (!t->group) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: capacities per dimension ('@') apply to Cayley specs (torus, hypercube, circulant, ...)", spec);
        goto fail;
    }
    int ng = t->ngens, ndim = 0;
    int *dim = gsp_calloc((size_t)ng + 1, sizeof *dim);
    int64_t micro[GSP_MAX_DIMS * 2 + 1];
    if (!dim) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto fail;
    }
    /* A dimension: a generator and its inverse, numbered in arc order. */
    for (int i = 0; i < ng; i++) {
        int j = gsp_topo_gen_inverse(t, i);
        dim[i] = j >= 0 && j < i ? dim[j] : ndim++;
    }
    int k = 0;
    for (const char *p = caps; *p;) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        char val[64];
        size_t len = (size_t)(end - p);
        if (len >= sizeof val) len = sizeof val - 1;
        memcpy(val, p, len);
        val[len] = 0;
        if (k == (int)(sizeof micro / sizeof *micro) || k >= ndim) {
            k++;
            break;
        }
        if ((err = gsp__topo_parse_capacity(val, &micro[k]))) {
            err = gsp_error(err, "%s: %s", spec, gsp_errmsg());
            gsp_free(dim);
            goto fail;
        }
        k++;
        p = *end ? end + 1 : end;
    }
    if (k != ndim) {
        err = gsp_error(GSP_ERR_PARSE, "%s: %s capacities for %d dimensions (one per generator and its inverse, in arc order)", spec,
                        k > ndim ? "more" : "fewer", ndim);
        gsp_free(dim);
        goto fail;
    }
    int64_t div = GSP__CAP_UNIT;
    for (int i = 0; i < ndim; i++)
        while (div > 1 && micro[i] % div) div /= 10;
    if ((err = gsp_alloc_array((void **)&t->cap, t->m + 1, sizeof *t->cap, false))) {
        gsp_free(dim);
        goto fail;
    }
    for (int64_t x = 0; x < t->n; x++)
        for (int i = 0; i < ng; i++) t->cap[x * ng + i] = micro[dim[i]] / div;
    t->cap_scale = GSP__CAP_UNIT / div;
    gsp_free(dim);
    char *full = gsp_strdup(spec);
    if (!full) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto fail;
    }
    gsp_free(t->spec);
    t->spec = full;
    return GSP_OK;
fail:
    gsp_topo_destroy(t);
    return err;
}

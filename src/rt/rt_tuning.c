/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_tuning.c — the tuning file: the cost model's parameters as measured on a machine
 * (`gossip-mpi calibrate -o FILE`), read by the drop-in, gossip-mpi and `gossip plan --tuning`;
 * where it is looked for; and the verbose account of a choice (every candidate's prediction).
 *
 * The file is a small JSON object (docs/runtime.md, "Calibration"):
 *   {"format": "gossip-tuning", "version": 1,
 *    "alpha": 2.0e-06, "alpha_by_size": [[0, 2.0e-06], [65472, 1.16e-05]],
 *    "beta": 1.06e-10, "beta_by_size": [[0, 1.23e-10], [65536, 1.06e-10]],
 *    "gamma": 2.1e-10, "hop": 2.0e-06, "overhead": 1.5e-07, "shared_memory": false,
 *    "measured": {"host": "...", "date": "...", "ranks": 16, "mpi": "...", "topology": "..."}}
 * alpha and beta (or beta_by_size) are required; every other key is optional and, when absent,
 * leaves the caller's value. Unknown keys are errors (a misspelt key would otherwise be lost). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gossip/runtime.h"
#include "core/core_int.h"

/* ---- writer ---- */

/* A number in the fewest digits that read back to the same double. */
static void put_num(FILE *f, double x) {
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) break;
    }
    fputs(buf, f);
}

/* A JSON string; bytes outside printable ASCII become '?' (host names and MPI banners are ASCII
 * in practice, and the file must stay valid UTF-8 for any reader). */
static void put_str(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p >= 0x20 && *p < 0x7f) fputc(*p, f);
        else if (*p == '\n' || *p == '\t') fputc(' ', f);
        else fputc('?', f);
    }
    fputc('"', f);
}

static gsp_err_t write_file(FILE *f, const gsp_cost_t *c, const gsp_cost_origin_t *o) {
    fputs("{\n  \"format\": \"gossip-tuning\",\n  \"version\": 1,\n  \"alpha\": ", f);
    put_num(f, c->alpha);
    if (c->nalpha) {
        fputs(",\n  \"alpha_by_size\": [", f);
        for (int i = 0; i < c->nalpha; i++) {
            fprintf(f, "%s[%lld, ", i ? ", " : "", (long long)c->alpha_from[i]);
            put_num(f, c->alpha_val[i]);
            fputc(']', f);
        }
        fputc(']', f);
    }
    fputs(",\n  \"beta\": ", f);
    put_num(f, c->nbeta ? c->beta_val[c->nbeta - 1] : c->beta);
    if (c->nbeta) {
        fputs(",\n  \"beta_by_size\": [", f);
        for (int i = 0; i < c->nbeta; i++) {
            fprintf(f, "%s[%lld, ", i ? ", " : "", (long long)c->beta_from[i]);
            put_num(f, c->beta_val[i]);
            fputc(']', f);
        }
        fputc(']', f);
    }
    fputs(",\n  \"gamma\": ", f);
    put_num(f, c->gamma);
    fputs(",\n  \"hop\": ", f);
    put_num(f, c->hop);
    fputs(",\n  \"overhead\": ", f);
    put_num(f, c->overhead);
    if (c->segment) fprintf(f, ",\n  \"segment\": %lld", (long long)c->segment);
    fprintf(f, ",\n  \"shared_memory\": %s", c->shared ? "true" : "false");
    if (o) {
        fputs(",\n  \"measured\": {", f);
        const char *keys[4] = {"host", "date", "mpi", "topology"}, *vals[4] = {o->host, o->date, o->mpi, o->topology};
        bool first = true;
        for (int k = 0; k < 4; k++) {
            if (!vals[k][0]) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", keys[k]);
            put_str(f, vals[k]);
            first = false;
        }
        if (o->ranks > 0) fprintf(f, "%s\"ranks\": %lld", first ? "" : ", ", (long long)o->ranks);
        fputc('}', f);
    }
    fputs("\n}\n", f);
    if (fflush(f) != 0 || ferror(f)) return gsp_error(GSP_ERR_IO, "writing the tuning file failed");
    return GSP_OK;
}

gsp_err_t gsp_cost_save(const char *path, const gsp_cost_t *c, const gsp_cost_origin_t *origin) {
    gsp_err_t err;
    /* What gsp_cost_load would refuse is not written. */
    double v[5] = {c->alpha, c->beta, c->gamma, c->hop, c->overhead};
    for (int k = 0; k < 5; k++)
        if (!isfinite(v[k]) || v[k] < 0) return gsp_error(GSP_ERR_INVAL, "tuning file: %g is not a non-negative number of seconds", v[k]);
    for (int i = 0; i < c->nbeta; i++)
        if (!isfinite(c->beta_val[i]) || c->beta_val[i] < 0 || (i == 0 && c->beta_from[0] != 0) || (i > 0 && c->beta_from[i] <= c->beta_from[i - 1]))
            return gsp_error(GSP_ERR_INVAL, "tuning file: beta by size must have sizes increasing from 0 and non-negative values");
    for (int i = 0; i < c->nalpha; i++)
        if (!isfinite(c->alpha_val[i]) || c->alpha_val[i] < 0 || (i == 0 && c->alpha_from[0] != 0) ||
            (i > 0 && c->alpha_from[i] <= c->alpha_from[i - 1]))
            return gsp_error(GSP_ERR_INVAL, "tuning file: alpha by size must have sizes increasing from 0 and non-negative values");
    if (c->nbeta < 0 || c->nbeta > GSP_COST_MAX_BETA || c->nalpha < 0 || c->nalpha > GSP_COST_MAX_BETA || c->segment < 0)
        return gsp_error(GSP_ERR_INVAL, "tuning file: a malformed cost model");
    gsp_out_t o;
    if ((err = gsp_out_open(&o, path))) return err;
    return gsp_out_close(&o, write_file(o.f, c, origin));
}

/* ---- reader ---- */

static gsp_err_t seconds_of(const char *path, const char *key, json_t *v, double *out) {
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
        return gsp_error(GSP_ERR_PARSE, "%s: key '%s': expected a non-negative number of seconds", path, key);
    *out = json_number_value(v);
    return GSP_OK;
}

/* key: [[bytes, seconds], ...] with sizes increasing from 0, into n/from/val. */
static gsp_err_t parse_table(const char *path, const char *key, const char *unit, json_t *v, int *nout, int64_t *from_out, double *val_out) {
    size_t n = json_is_array(v) ? json_array_size(v) : 0;
    if (n == 0 || n > GSP_COST_MAX_BETA)
        return gsp_error(GSP_ERR_PARSE, "%s: key '%s': expected [[bytes, %s], ...], 1 to %d entries", path, key, unit, GSP_COST_MAX_BETA);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i), *s = json_array_get(e, 0), *b = json_array_get(e, 1);
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(s) || !json_is_number(b) || !isfinite(json_number_value(b)) ||
            json_number_value(b) < 0)
            return gsp_error(GSP_ERR_PARSE, "%s: key '%s': entry %zu: expected [bytes, %s]", path, key, i, unit);
        json_int_t from = json_integer_value(s);
        if ((i == 0 && from != 0) || (i > 0 && from <= from_out[i - 1]))
            return gsp_error(GSP_ERR_PARSE, "%s: key '%s': sizes must increase from 0 (entry %zu: %lld)", path, key, i, (long long)from);
        from_out[i] = from;
        val_out[i] = json_number_value(b);
    }
    *nout = (int)n;
    return GSP_OK;
}

static gsp_err_t parse_origin(const char *path, json_t *m, gsp_cost_origin_t *o) {
    if (!json_is_object(m)) return gsp_error(GSP_ERR_PARSE, "%s: key 'measured': expected an object", path);
    const char *keys[4] = {"host", "date", "mpi", "topology"};
    char *dst[4] = {o->host, o->date, o->mpi, o->topology};
    size_t cap[4] = {sizeof o->host, sizeof o->date, sizeof o->mpi, sizeof o->topology};
    for (int k = 0; k < 4; k++) {
        json_t *v = json_object_get(m, keys[k]);
        if (!v) continue;
        if (!json_is_string(v)) return gsp_error(GSP_ERR_PARSE, "%s: key 'measured.%s': expected a string", path, keys[k]);
        snprintf(dst[k], cap[k], "%s", json_string_value(v));
    }
    json_t *r = json_object_get(m, "ranks");
    if (r && (!json_is_integer(r) || json_integer_value(r) < 1))
        return gsp_error(GSP_ERR_PARSE, "%s: key 'measured.ranks': expected an integer >= 1", path);
    if (r) o->ranks = json_integer_value(r);
    return GSP_OK;
}

static gsp_err_t parse(const char *path, json_t *root, gsp_cost_t *out, gsp_cost_origin_t *origin) {
    static const char *const known[] = {"format", "version", "alpha", "alpha_by_size", "beta", "beta_by_size", "gamma", "hop",
                                        "overhead", "segment", "shared_memory", "measured"};
    gsp_err_t err;
    if (!json_is_object(root)) return gsp_error(GSP_ERR_PARSE, "%s: expected a JSON object (a gossip tuning file)", path);
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        size_t k = 0;
        while (k < sizeof known / sizeof *known && strcmp(key, known[k])) k++;
        if (k == sizeof known / sizeof *known) {
            const char *near = gsp_nearest(key, strlen(key), known, sizeof known / sizeof *known);
            return gsp_error(GSP_ERR_PARSE, "%s: unknown key '%s'%s%s%s", path, key, near ? " (did you mean '" : "", near ? near : "",
                             near ? "'?)" : "");
        }
    }
    json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "version");
    if (fmt && (!json_is_string(fmt) || strcmp(json_string_value(fmt), "gossip-tuning")))
        return gsp_error(GSP_ERR_PARSE, "%s: key 'format': expected \"gossip-tuning\"", path);
    if (ver && (!json_is_integer(ver) || json_integer_value(ver) != 1))
        return gsp_error(GSP_ERR_PARSE, "%s: key 'version': expected 1 (the only version so far)", path);
    gsp_cost_t c = *out;
    json_t *a = json_object_get(root, "alpha"), *b = json_object_get(root, "beta"), *bt = json_object_get(root, "beta_by_size");
    if (!a) return gsp_error(GSP_ERR_PARSE, "%s: key 'alpha' is missing (seconds per message)", path);
    if ((err = seconds_of(path, "alpha", a, &c.alpha))) return err;
    c.nalpha = 0;
    if ((v = json_object_get(root, "alpha_by_size"))) {
        if ((err = parse_table(path, "alpha_by_size", "seconds", v, &c.nalpha, c.alpha_from, c.alpha_val))) return err;
        if (c.alpha != c.alpha_val[0])
            return gsp_error(GSP_ERR_PARSE, "%s: key 'alpha': %g differs from the first entry of alpha_by_size (%g); keep one of them", path,
                             c.alpha, c.alpha_val[0]);
    }
    if (!b && !bt) return gsp_error(GSP_ERR_PARSE, "%s: key 'beta' is missing (seconds per byte)", path);
    if (bt) {
        if ((err = parse_table(path, "beta_by_size", "seconds per byte", bt, &c.nbeta, c.beta_from, c.beta_val))) return err;
        c.beta = c.beta_val[c.nbeta - 1];
        double last = c.beta;
        if (b && ((err = seconds_of(path, "beta", b, &c.beta)) || c.beta != last))
            return err ? err
                       : gsp_error(GSP_ERR_PARSE, "%s: key 'beta': %g differs from the last entry of beta_by_size (%g); keep one of them",
                                   path, c.beta, last);
    } else {
        if ((err = seconds_of(path, "beta", b, &c.beta))) return err;
        c.nbeta = 0;
    }
    const char *names[3] = {"gamma", "hop", "overhead"};
    double *dst[3] = {&c.gamma, &c.hop, &c.overhead};
    for (int k = 0; k < 3; k++)
        if ((v = json_object_get(root, names[k])) && (err = seconds_of(path, names[k], v, dst[k]))) return err;
    if ((v = json_object_get(root, "segment"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > ((json_int_t)1 << 40))
            return gsp_error(GSP_ERR_PARSE, "%s: key 'segment': expected a number of bytes >= 0", path);
        c.segment = json_integer_value(v);
    }
    if ((v = json_object_get(root, "shared_memory"))) {
        if (!json_is_boolean(v)) return gsp_error(GSP_ERR_PARSE, "%s: key 'shared_memory': expected true or false", path);
        c.shared = json_is_true(v);
    }
    gsp_cost_origin_t o;
    memset(&o, 0, sizeof o);
    if ((v = json_object_get(root, "measured")) && (err = parse_origin(path, v, &o))) return err;
    *out = c;
    if (origin) *origin = o;
    return GSP_OK;
}

gsp_err_t gsp_cost_load(const char *path, gsp_cost_t *c, gsp_cost_origin_t *origin) {
    json_error_t jerr;
    FILE *f = fopen(path, "r");
    if (!f) return gsp_error(GSP_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    if (!root) return gsp_error(GSP_ERR_PARSE, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column, jerr.text);
    gsp_err_t err = parse(path, root, c, origin);
    json_decref(root);
    return err;
}

int gsp_cost_tuning_path(char *buf, size_t n) {
    const char *t = getenv("GOSSIP_TUNING");
    if (t && *t) {
        if (!strcmp(t, "none")) return -1;
        snprintf(buf, n, "%s", t);
        return 1;
    }
    const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (x && x[0] == '/') snprintf(buf, n, "%s/gossip/tuning.json", x);
    else if (home && *home) snprintf(buf, n, "%s/.config/gossip/tuning.json", home);
    else return -1;
    return access(buf, F_OK) == 0 ? 0 : -1;
}

/* ---- why a choice ---- */

void gsp_rt_explain(FILE *f, const char *prefix, const gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c, int chosen,
                    bool (*skip)(const gsp_rt_algo_t *, void *), void *ctx) {
    bool lower = false;
    for (int i = 0; i < a->n; i++) {
        gsp_rt_pred_t p;
        gsp_rt_predict(&a->v[i], nodes, bytes, c, &p);
        bool skipped = skip && skip(&a->v[i], ctx);
        lower |= a->v[i].pending && !skipped;
        fprintf(f, "%s%s %-18s %s%10.2f us  %4lld round%s  %s\n", prefix, i == chosen ? "*" : " ", a->v[i].name,
                a->v[i].pending && !skipped ? ">=" : "  ", p.seconds * 1e6, (long long)p.rounds, p.rounds == 1 ? " " : "s",
                skipped              ? "left out: a message above MPI's int count"
                : i == chosen        ? "chosen: the least predicted time"
                : a->v[i].pending    ? "not built: its lower bound cannot beat the choice"
                                     : a->v[i].built_from);
    }
    if (lower) fprintf(f, "%s('>=': a lower bound, the fewest rounds that kind of schedule can have; not built)\n", prefix);
}

/* ---- fitting ping-pong times ---- */

/* Least-squares slope and intercept of points a..b. */
static void lsq(const int64_t *s, const double *t, int a, int b, double *slope, double *icpt) {
    double n = b - a + 1, ms = 0, mt = 0, sxx = 0, sxy = 0;
    for (int i = a; i <= b; i++) ms += (double)s[i] / n, mt += t[i] / n;
    for (int i = a; i <= b; i++) {
        double dx = (double)s[i] - ms;
        sxx += dx * dx;
        sxy += dx * (t[i] - mt);
    }
    *slope = sxx > 0 ? sxy / sxx : 0;
    *icpt = mt - *slope * ms;
}

static bool close_to(double x, double y, double tol) {
    double m = fmax(fabs(x), fabs(y));
    return fabs(x - y) <= tol * m;
}

gsp_err_t gsp_cost_fit(int n, const int64_t *size, const double *seconds, const double *noise, gsp_cost_t *c, gsp_cost_fit_t *fit) {
    const double tol = GSP_COST_FIT_TOLERANCE;
    if (n < 2 || size[0] != 0) return gsp_error(GSP_ERR_INVAL, "fit: need times at 0 bytes and at least one larger size");
    for (int i = 0; i < n; i++)
        if (!isfinite(seconds[i]) || seconds[i] < 0 || (i && size[i] <= size[i - 1]))
            return gsp_error(GSP_ERR_INVAL, "fit: sizes must increase and times be finite (point %d)", i);
    gsp_cost_fit_t f;
    memset(&f, 0, sizeof f);
    double alpha = seconds[0];
    /* Regimes: runs of segments between consecutive sizes whose slopes agree within tol.
     * A segment is measured when its time difference stands above the noise; a regime needs
     * two agreeing segments (one alone may straddle a change of protocol). */
    int first[GSP_COST_FIT_MAX], last[GSP_COST_FIT_MAX];
    int nr = 0, a = -1, b = -1, nseg = 0;
    double g = 0, icpt = 0;
    for (int i = 0; i + 1 < n; i++) {
        double dt = seconds[i + 1] - seconds[i], ds = (double)(size[i + 1] - size[i]);
        double nz = noise ? fmax(noise[i], noise[i + 1]) : 0;
        double thr = fmax(fmax(10 * nz, 1e-3 * seconds[i]), 1e-10);
        if (fabs(dt) < thr) continue; /* too small to tell: neither extends nor breaks a regime */
        double gi = dt / ds;
        if (a >= 0 && gi > 0 && close_to(gi, g, tol)) {
            b = i + 1;
            nseg++;
            lsq(size, seconds, a, b, &g, &icpt);
            continue;
        }
        if (a >= 0 && nseg >= 2 && nr < GSP_COST_FIT_MAX) first[nr] = a, last[nr++] = b;
        a = i, b = i + 1, nseg = 1, g = gi;
        if (gi <= 0) a = -1; /* a falling time starts nothing */
    }
    if (a >= 0 && nseg >= 2 && nr < GSP_COST_FIT_MAX) first[nr] = a, last[nr++] = b;
    int kept = 0;
    for (int r = 0; r < nr; r++) {
        f.from[kept] = size[first[r]];
        f.to[kept] = size[last[r]];
        lsq(size, seconds, first[r], last[r], &f.beta[kept], &f.latency[kept]);
        kept += f.beta[kept] > 0; /* noise can tilt a short run: a byte never costs nothing */
    }
    nr = f.nregimes = kept;
    /* The table: one entry per regime from its first size (the first from 0), neighbours
     * within GSP_COST_ALPHA_TOLERANCE merged (regimes are told apart at tol; once told apart,
     * a 1 % difference is real) (weighted by the sizes they span), at most GSP_COST_MAX_BETA. */
    int64_t from[GSP_COST_FIT_MAX], span[GSP_COST_FIT_MAX];
    double val[GSP_COST_FIT_MAX];
    int ne = 0;
    for (int r = 0; r < nr; r++) {
        int64_t w = f.to[r] - f.from[r];
        if (ne > 0 && close_to(val[ne - 1], f.beta[r], GSP_COST_ALPHA_TOLERANCE)) {
            val[ne - 1] = (val[ne - 1] * (double)span[ne - 1] + f.beta[r] * (double)w) / (double)(span[ne - 1] + w);
            span[ne - 1] += w;
            continue;
        }
        from[ne] = f.from[r], span[ne] = w, val[ne++] = f.beta[r];
    }
    while (ne > GSP_COST_MAX_BETA) {
        int best = 1;
        for (int k = 2; k < ne; k++)
            if (fabs(log(val[k] / val[k - 1])) < fabs(log(val[best] / val[best - 1]))) best = k;
        val[best - 1] = (val[best - 1] * (double)span[best - 1] + val[best] * (double)span[best]) / (double)(span[best - 1] + span[best]);
        span[best - 1] += span[best];
        memmove(from + best, from + best + 1, sizeof *from * (size_t)(ne - best - 1));
        memmove(span + best, span + best + 1, sizeof *span * (size_t)(ne - best - 1));
        memmove(val + best, val + best + 1, sizeof *val * (size_t)(ne - best - 1));
        ne--;
    }
    c->alpha = alpha;
    if (ne == 0) {
        /* No regime stands out of the noise: one beta over the largest size. */
        c->nbeta = 0;
        c->beta = fmax(0, (seconds[n - 1] - alpha) / (double)size[n - 1]);
    } else if (ne == 1) {
        c->nbeta = 0;
        c->beta = val[0];
    } else {
        from[0] = 0;
        for (int k = 0; k < ne; k++) c->beta_from[k] = from[k], c->beta_val[k] = val[k];
        c->nbeta = ne;
        c->beta = val[ne - 1];
    }
    /* Latency by size: per entry of the beta table, the median over its sizes of what a message
     * costs beyond its bytes (t - beta s). A protocol switch (a rendezvous' round trip) shows
     * as an entry whose latency stands out from alpha by more than GSP_COST_ALPHA_TOLERANCE; entries that
     * agree with the one before are merged. No table when every entry agrees with alpha. */
    c->nalpha = 0;
    if (c->nbeta > 1) {
        int na = 0;
        bool differs = false;
        for (int k = 0; k < c->nbeta; k++) {
            int64_t lo = c->beta_from[k], hi = k + 1 < c->nbeta ? c->beta_from[k + 1] : INT64_MAX;
            double lat[GSP_COST_FIT_MAX * 4];
            int m = 0;
            for (int i = 1; i < n && m < (int)(sizeof lat / sizeof *lat); i++)
                if (size[i] >= lo && size[i] < hi) lat[m++] = fmax(0, seconds[i] - c->beta_val[k] * (double)size[i]);
            double v = alpha;
            if (m > 0) {
                /* median by insertion sort: a few dozen points */
                for (int i = 1; i < m; i++)
                    for (int j = i; j > 0 && lat[j - 1] > lat[j]; j--) {
                        double x = lat[j];
                        lat[j] = lat[j - 1];
                        lat[j - 1] = x;
                    }
                v = m % 2 ? lat[m / 2] : (lat[m / 2 - 1] + lat[m / 2]) / 2;
            }
            if (k == 0) v = alpha; /* the smallest messages: the measured 0-byte time */
            /* A tenth of the slopes' tolerance: latencies by size differ by less than per-byte
             * costs do (SimGrid's below 64 KiB: 1.61 to 2.19 link latencies, against bandwidth
             * factors of 0.34 to 1.09), lanes of 8 KiB against 2 KiB turn on 8 % of it, and
             * broadcasts of 1 KiB on dims against a tree on 3 % (SMPI: 1.95 latencies from 257
             * bytes, 2.01 below; merged at 5 %, 6 of 800 choices differed from the platform's). An
             * entry per beta entry at most: noise cannot split one further. */
            differs |= !close_to(v, alpha, GSP_COST_ALPHA_TOLERANCE);
            if (na > 0 && close_to(v, c->alpha_val[na - 1], GSP_COST_ALPHA_TOLERANCE)) continue;
            c->alpha_from[na] = lo;
            c->alpha_val[na++] = v;
        }
        if (differs) c->nalpha = na;
    }
    if (fit) *fit = f;
    return GSP_OK;
}

/* Whether a message of s bytes taking t seconds is on regime r's line rather than r - 1's. */
static bool on_next(const gsp_cost_fit_t *f, int r, int64_t s, double t) {
    double now = f->latency[r] + f->beta[r] * (double)s, before = f->latency[r - 1] + f->beta[r - 1] * (double)s;
    return fabs(t - now) < fabs(t - before);
}

/* Replaces the change at old by neu in both tables. */
static void move_change(gsp_cost_t *c, int64_t old, int64_t neu) {
    for (int k = 1; k < c->nbeta; k++)
        if (c->beta_from[k] == old) c->beta_from[k] = neu;
    for (int k = 1; k < c->nalpha; k++)
        if (c->alpha_from[k] == old) c->alpha_from[k] = neu;
}

int gsp_cost_refine(gsp_cost_t *c, const gsp_cost_fit_t *f, int n, const int64_t *size, const double *seconds, const double *noise,
                    gsp_cost_probe_fn probe, void *arg, int *moved) {
    int probes = 0, nmoved = 0;
    for (int r = 1; r < f->nregimes; r++) {
        int64_t e = f->from[r];
        bool used = false;
        for (int k = 1; k < c->nbeta; k++) used |= c->beta_from[k] == e;
        for (int k = 1; k < c->nalpha; k++) used |= c->alpha_from[k] == e;
        if (!used) continue; /* merged with the regime before: no change there */
        /* lo: a measured size on the old regime's line, hi: the next measured size, on the new
         * one; the fit starts a regime at a measured size, and where the noise hid steps (a
         * step below 10 times the noise neither makes nor breaks a regime) the change may lie
         * several sizes below it: never below the old regime's last measured size, nor past
         * the next regime's first. */
        int i = 0;
        while (i < n && size[i] < e) i++;
        if (i == 0 || i >= n || size[i] != e) continue;
        int ilo = i - 1, ihi = i;
        while (ilo > 0 && size[ilo] > f->to[r - 1] && on_next(f, r, size[ilo], seconds[ilo])) ilo--, ihi--;
        while (ihi + 1 < n && (r + 1 >= f->nregimes || size[ihi + 1] < f->from[r + 1]) && !on_next(f, r, size[ihi], seconds[ihi])) ilo++, ihi++;
        if (on_next(f, r, size[ilo], seconds[ilo]) || !on_next(f, r, size[ihi], seconds[ihi])) continue;
        /* Lines too close to tell apart there: leave it. */
        double nz = noise ? fmax(noise[ilo], noise[ihi]) : 0, x = (double)size[ihi];
        if (fabs((f->latency[r] + f->beta[r] * x) - (f->latency[r - 1] + f->beta[r - 1] * x)) <= 10 * nz) continue;
        int64_t lo = size[ilo], hi = size[ihi];
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            double z = 0, t = probe(arg, mid, &z);
            probes++;
            if (on_next(f, r, mid, t)) hi = mid;
            else lo = mid;
        }
        if (hi != e) {
            move_change(c, e, hi);
            nmoved++;
        }
    }
    if (moved) *moved = nmoved;
    return probes;
}

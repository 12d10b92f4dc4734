/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json_writer.c — a streaming JSON writer: schedules of 10^6 transfers are written without
 * building a tree in memory, which is why this is ours and not jansson's json_dumpf. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "gossip/core.h"
#include "core_int.h"

void gsp_jw_init(gsp_jw_t *w, FILE *f) {
    w->f = f;
    w->depth = 0;
    w->first[0] = true;
    w->after_key = false;
    w->failed = false;
}

/* Emits the comma that separates this value from the previous one at the same level. */
static void sep(gsp_jw_t *w) {
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth]) {
        if (putc(',', w->f) == EOF) w->failed = true;
    }
    w->first[w->depth] = false;
}

static void open(gsp_jw_t *w, int c) {
    sep(w);
    if (putc(c, w->f) == EOF) w->failed = true;
    if (w->depth + 1 >= GSP_JW_MAXDEPTH) {
        w->failed = true;
        return;
    }
    w->first[++w->depth] = true;
}

static void close_(gsp_jw_t *w, int c) {
    if (putc(c, w->f) == EOF) w->failed = true;
    if (w->depth > 0) w->depth--;
}

void gsp_jw_obj_begin(gsp_jw_t *w) { open(w, '{'); }
void gsp_jw_obj_end(gsp_jw_t *w) { close_(w, '}'); }
void gsp_jw_arr_begin(gsp_jw_t *w) { open(w, '['); }
void gsp_jw_arr_end(gsp_jw_t *w) { close_(w, ']'); }

static void put_string(gsp_jw_t *w, const char *s) {
    FILE *f = w->f;
    putc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else if (*p < 0x80) putc(*p, f);
            else {
                /* UTF-8 passes through when well formed (no overlongs, surrogates or values
                 * above U+10FFFF); any other byte becomes U+FFFD, so the output is valid JSON
                 * whatever a file name or a spec contained. */
                int len = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p <= 0xdf ? 2 : 0;
                bool ok = len > 0;
                for (int k = 1; ok && k < len; k++) ok = (p[k] & 0xc0) == 0x80;
                if (ok && len == 3) ok = !(*p == 0xe0 && p[1] < 0xa0) && !(*p == 0xed && p[1] >= 0xa0);
                if (ok && len == 4) ok = !(*p == 0xf0 && p[1] < 0x90) && !(*p == 0xf4 && p[1] >= 0x90);
                if (!ok) {
                    fputs("\\ufffd", f);
                    continue;
                }
                fwrite(p, 1, (size_t)len, f);
                p += len - 1;
            }
        }
    }
    if (putc('"', f) == EOF) w->failed = true;
}

void gsp_jw_key(gsp_jw_t *w, const char *key) {
    sep(w);
    put_string(w, key);
    putc(':', w->f);
    w->after_key = true;
}

void gsp_jw_str(gsp_jw_t *w, const char *s) {
    sep(w);
    put_string(w, s);
}

bool gsp_fput_int(FILE *f, int64_t x) {
    /* Digits by hand: a rank's program is hundreds of thousands of block numbers, and
     * fprintf's format parsing was most of `gossip plan --rank` on torus:32x32x32. */
    char buf[24], *e = buf + sizeof buf, *q = e;
    uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    do *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (x < 0) *--q = '-';
    return fwrite(q, 1, (size_t)(e - q), f) == (size_t)(e - q);
}

void gsp_jw_int(gsp_jw_t *w, int64_t x) {
    sep(w);
    if (!gsp_fput_int(w->f, x)) w->failed = true;
}

void gsp_jw_num(gsp_jw_t *w, double x) {
    sep(w);
    if (!isfinite(x)) {
        fputs("null", w->f);
        return;
    }
    /* Integers print as integers so that 3.0 reads back as 3 in every tool. */
    if (x == floor(x) && fabs(x) < 1e15) {
        if (fprintf(w->f, "%.0f", x) < 0) w->failed = true;
    } else if (fprintf(w->f, "%.17g", x) < 0) {
        w->failed = true;
    }
}

void gsp_jw_bool(gsp_jw_t *w, bool b) {
    sep(w);
    fputs(b ? "true" : "false", w->f);
}

void gsp_jw_null(gsp_jw_t *w) {
    sep(w);
    fputs("null", w->f);
}

void gsp_jw_raw(gsp_jw_t *w, const char *text) {
    sep(w);
    fputs(text, w->f);
}

gsp_err_t gsp_jw_finish(gsp_jw_t *w) {
    if (fflush(w->f) != 0 || ferror(w->f)) w->failed = true;
    return w->failed ? gsp_error(GSP_ERR_IO, "write failed") : GSP_OK;
}

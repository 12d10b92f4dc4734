/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parse_size.c — the one parser of sizes and counts that every option and environment variable
 * uses: "4096", "64K", "1MiB", "1.5G", "1e6". The value is computed exactly in integers (no
 * double rounds it), so a size is accepted only when it is a whole number that fits. */
#include <ctype.h>
#include <stdlib.h>

#include "gossip/core.h"

typedef enum { SZ_OK, SZ_EMPTY, SZ_SYNTAX, SZ_NEGATIVE, SZ_FRACTION, SZ_DIGITS, SZ_LARGE, SZ_SMALL } sz_status_t;

static bool digit(char c) { return c >= '0' && c <= '9'; }

/* Value of text: d * 10^e10 * 2^shift, kept exact. Significant digits beyond what a uint64
 * holds are "lost": then the value is either too large or has too many digits to be exact. */
static sz_status_t parse(const char *text, uint64_t min, uint64_t max, uint64_t *out) {
    if (!text || !*text) return SZ_EMPTY;
    const char *p = text;
    bool negative = *p == '-';
    if (negative) p++;
    uint64_t d = 0;
    int64_t e10 = 0;
    bool any = false, lost = false, lost_int = false;
    for (; digit(*p); p++) {
        unsigned v = (unsigned)(*p - '0');
        any = true;
        if (d <= (UINT64_MAX - v) / 10) d = d * 10 + v;
        else {
            e10++; /* a zero beyond the capacity is exact; anything else is not */
            if (v) lost = lost_int = true;
        }
    }
    if (*p == '.') {
        for (p++; digit(*p); p++) {
            unsigned v = (unsigned)(*p - '0');
            any = true;
            if (d <= (UINT64_MAX - v) / 10) d = d * 10 + v, e10--;
            else if (v) lost = true;
        }
    }
    if (!any) return SZ_SYNTAX;
    int64_t exp = 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        int sign = 1;
        if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
        if (!digit(*p)) return SZ_SYNTAX;
        for (; digit(*p); p++)
            if (exp < 100000) exp = exp * 10 + (*p - '0'); /* beyond: too large or not whole anyway */
        exp *= sign;
    }
    int shift = 0;
    switch (*p) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: break;
    }
    if (shift) {
        p++;
        if (*p == 'i' || *p == 'I') p++;
    }
    if (*p == 'B' || *p == 'b') p++;
    if (*p) return SZ_SYNTAX;
    if (negative && (d || lost)) return SZ_NEGATIVE; /* "-0" is 0 */
    if (lost) {
        if (lost_int && exp >= 0) return SZ_LARGE;
        double v = strtod(text, NULL); /* only to tell "too large" from "too many digits" */
        for (int i = 0; i < shift; i++) v *= 2;
        return v >= 18446744073709551616.0 || v > (double)max ? SZ_LARGE : SZ_DIGITS;
    }
    e10 += exp;
    if (d) {
        while (d % 10 == 0) d /= 10, e10++;
        if (e10 >= 0) {
            for (int64_t i = 0; i < e10; i++)
                if (__builtin_mul_overflow(d, (uint64_t)10, &d)) return SZ_LARGE;
        } else {
            /* d * 2^shift / (2^m * 5^m) must be whole: 5^m divides d, 2^m divides d * 2^shift. */
            int64_t m = -e10;
            for (int64_t i = 0; i < m; i++) {
                if (d % 5) return SZ_FRACTION;
                d /= 5;
            }
            if (m <= shift) shift -= (int)m;
            else {
                int64_t k = m - shift;
                if (k >= 64 || (d & ((UINT64_C(1) << k) - 1))) return SZ_FRACTION;
                d >>= k;
                shift = 0;
            }
        }
        if (shift && d > (UINT64_MAX >> shift)) return SZ_LARGE;
        d <<= shift;
    }
    if (d > max) return SZ_LARGE;
    if (d < min) return SZ_SMALL;
    *out = d;
    return SZ_OK;
}

#define SIZE_HINT "a whole number with an optional unit K, M, G or T (powers of 1024; B or iB may follow): 4096, 64K, 1MiB, 1e6"

gsp_err_t gsp_parse_size(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    switch (parse(text, min, max, &v)) {
    case SZ_OK: *out = v; return GSP_OK;
    case SZ_EMPTY: return gsp_error(GSP_ERR_PARSE, "%s: expected a size: " SIZE_HINT, name);
    case SZ_SYNTAX: return gsp_error(GSP_ERR_PARSE, "%s: '%s' is not a size: " SIZE_HINT, name, text);
    case SZ_NEGATIVE: return gsp_error(GSP_ERR_RANGE, "%s: '%s' is negative (at least %llu)", name, text, (unsigned long long)min);
    case SZ_FRACTION: return gsp_error(GSP_ERR_PARSE, "%s: '%s' is not a whole number", name, text);
    case SZ_DIGITS: return gsp_error(GSP_ERR_PARSE, "%s: '%s' has more significant digits than a 64-bit integer holds", name, text);
    case SZ_LARGE: return gsp_error(GSP_ERR_RANGE, "%s: '%s' is too large (at most %llu)", name, text, (unsigned long long)max);
    default: return gsp_error(GSP_ERR_RANGE, "%s: '%s' is too small (at least %llu)", name, text, (unsigned long long)min);
    }
}

int64_t gsp_parse_bytes(const char *s) {
    uint64_t v;
    return parse(s, 1, INT64_MAX, &v) == SZ_OK ? (int64_t)v : -1;
}

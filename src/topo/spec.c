/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spec.c — the topology spec parser (docs/topology.md). Each family turns its arguments into a
 * group and generators (or an edge list) and hands them to topo.c; every rejection names
 * the spec and what is wrong with it. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo/topo_int.h"

/* A character for an error message: the end of the spec, a printable character in quotes, or
 * its byte value (never a raw control character in a message). */
typedef struct {
    char s[24];
} chardesc_t;
static chardesc_t describe(char c) {
    chardesc_t d;
    if (c == 0) snprintf(d.s, sizeof d.s, "end of the spec");
    else if (isprint((unsigned char)c)) snprintf(d.s, sizeof d.s, "'%c'", c);
    else snprintf(d.s, sizeof d.s, "byte 0x%02x", (unsigned char)c);
    return d;
}

/* Parses a decimal integer at *p, advancing *p. A number beyond int64 saturates to
 * +-INT64_MAX, so that the caller's range check says "too large" rather than "not a number". */
static bool parse_int(const char **p, int64_t *out) {
    const char *s = *p;
    bool neg = false;
    if (*s == '-' || *s == '+') neg = *s++ == '-';
    if (!isdigit((unsigned char)*s)) return false;
    int64_t v = 0;
    while (isdigit((unsigned char)*s)) {
        if (!gsp_mul_ok(v, 10, &v) || !gsp_add_ok(v, *s - '0', &v)) v = INT64_MAX;
        s++;
    }
    *out = neg ? -v : v;
    *p = s;
    return true;
}

static gsp_group_t *new_group(gsp_group_kind_t kind) {
    gsp_group_t *g = gsp_calloc(1, sizeof *g);
    if (g) g->kind = kind;
    return g;
}

/* Abelian group Z_m[0] x ... x Z_m[k-1], row-major (last coordinate fastest). */
static gsp_err_t abelian_rowmajor(const char *spec, const int64_t *m, int k, gsp_group_t **out) {
    gsp_group_t *g = new_group(GSP_GROUP_ABELIAN);
    if (!g) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    g->k = k;
    int64_t order = 1;
    for (int j = k - 1; j >= 0; j--) {
        g->mod[j] = m[j];
        g->stride[j] = order;
        if (!gsp_mul_ok(order, m[j], &order) || order > GSP_MAX_ARCS) {
            gsp_free(g);
            return gsp_error(order > GSP_MAX_ARCS ? GSP_ERR_TOOBIG : GSP_ERR_OVERFLOW,
                             "%s: the number of nodes is too large (limit %lld)", spec,
                             (long long)GSP_MAX_ARCS);
        }
    }
    g->order = order;
    *out = g;
    return GSP_OK;
}

/* Parses "P1xP2x...xPk" (each >= lo) into m[], returns k via *k. */
static gsp_err_t parse_dims(const char *spec, const char *p, int64_t lo, int64_t *m, int *k,
                            const char *what) {
    *k = 0;
    for (;;) {
        int64_t v;
        if (*k == GSP_MAX_DIMS)
            return gsp_error(GSP_ERR_RANGE, "%s: more than %d dimensions", spec, GSP_MAX_DIMS);
        if (!parse_int(&p, &v))
            return gsp_error(GSP_ERR_PARSE, "%s: expected %s as integers separated by 'x'", spec, what);
        if (v < lo)
            return gsp_error(GSP_ERR_RANGE, "%s: each %s must be at least %lld, got %lld", spec,
                             what, (long long)lo, (long long)v);
        m[(*k)++] = v;
        if (*p == 0) return GSP_OK;
        if (*p != 'x' && *p != 'X')
            return gsp_error(GSP_ERR_PARSE, "%s: unexpected %s in the %s", spec, describe(*p).s, what);
        p++;
    }
}

static gsp_err_t build_torus(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t m[GSP_MAX_DIMS], gens[2 * GSP_MAX_DIMS], c[GSP_MAX_DIMS] = {0};
    int k, ng = 0;
    gsp_group_t *g = NULL;
    gsp_err_t err = parse_dims(spec, args, 2, m, &k, "side");
    if (err || (err = abelian_rowmajor(spec, m, k, &g))) return err;
    for (int j = 0; j < k; j++) {
        c[j] = 1;
        gens[ng++] = gsp_group_index(g, c);
        c[j] = 0;
    }
    for (int j = 0; j < k; j++) {
        if (m[j] == 2) continue; /* +e_j = -e_j: one arc */
        c[j] = -1;
        gens[ng++] = gsp_group_index(g, c);
        c[j] = 0;
    }
    err = gsp_topo_cayley(t, g, gens, ng, false, spec);
    if (err || k < 2) return err;
    /* A torus is the product C_P1 x torus(P2 x ...): keep the factors, as product() does, so that
     * methods built on products (Theorem 3 of the global-sum paper) and product spectra apply. The
     * node index is the same (row-major: index_A * N_B + index_B); only the arc order differs. */
    /* The factors' specs from the parsed sides, not from the text (which may use 'X', leading
     * zeros or any length). */
    char fa[32], fb[GSP_MAX_DIMS * 21 + 8];
    snprintf(fa, sizeof fa, "torus:%lld", (long long)m[0]);
    size_t used = (size_t)snprintf(fb, sizeof fb, "torus:");
    for (int j = 1; j < k; j++) used += (size_t)snprintf(fb + used, sizeof fb - used, j > 1 ? "x%lld" : "%lld", (long long)m[j]);
    t->fa = gsp_calloc(1, sizeof *t->fa);
    t->fb = gsp_calloc(1, sizeof *t->fb);
    if (!t->fa || !t->fb) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
    if (!err) err = gsp_topo_from_spec(t->fa, fa);
    if (!err) err = gsp_topo_from_spec(t->fb, fb);
    if (err) gsp_topo_destroy(t);
    return err;
}

/* mesh:P1x...xPk: the torus without its wrap-around links (a path in each dimension), indexed
 * as the torus. Not vertex-transitive (a corner has k neighbours, an inner node 2k): planned as
 * any graph, with its arcs in ascending neighbour order (gsp_topo_from_edges). */
static gsp_err_t build_mesh(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t m[GSP_MAX_DIMS], stride[GSP_MAX_DIMS], n = 1, nedges = 0, *edges = NULL;
    int k;
    gsp_err_t err = parse_dims(spec, args, 2, m, &k, "side");
    if (err) return err;
    for (int j = k - 1; j >= 0; j--) {
        stride[j] = n;
        if (!gsp_mul_ok(n, m[j], &n) || n > GSP_MAX_ARCS)
            return gsp_error(n > GSP_MAX_ARCS ? GSP_ERR_TOOBIG : GSP_ERR_OVERFLOW, "%s: the number of nodes is too large (limit %lld)", spec,
                             (long long)GSP_MAX_ARCS);
    }
    /* (Pj - 1) N / Pj links along dimension j; 2 k N arcs at most, so no overflow below. */
    for (int j = 0; j < k; j++) nedges += n / m[j] * (m[j] - 1);
    if ((err = gsp__topo_check_size(spec, n, 2 * nedges))) return err;
    if ((err = gsp_alloc_array((void **)&edges, 2 * nedges, sizeof *edges, false))) return err;
    int64_t e = 0;
    for (int64_t x = 0; x < n; x++)
        for (int j = 0; j < k; j++)
            if ((x / stride[j]) % m[j] + 1 < m[j]) {
                edges[2 * e] = x;
                edges[2 * e + 1] = x + stride[j];
                e++;
            }
    err = gsp_topo_from_edges(t, n, edges, nedges, false, spec);
    gsp_free(edges);
    return err;
}

static gsp_err_t build_hypercube(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t K, gens[64];
    const char *p = args;
    if (!parse_int(&p, &K) || *p)
        return gsp_error(GSP_ERR_PARSE, "%s: expected hypercube:K with K an integer", spec);
    if (K < 1) return gsp_error(GSP_ERR_RANGE, "%s: K must be at least 1", spec);
    if (K >= 63)
        return gsp_error(GSP_ERR_OVERFLOW, "%s: 2^%lld nodes overflows a 64-bit count", spec,
                         (long long)K);
    int64_t arcs;
    if (!gsp_mul_ok(K, (int64_t)1 << K, &arcs))
        return gsp_error(GSP_ERR_OVERFLOW, "%s: 2^%lld nodes of degree %lld: the arc count overflows", spec, (long long)K, (long long)K);
    if (arcs > GSP_MAX_ARCS)
        return gsp_error(GSP_ERR_TOOBIG, "%s: 2^%lld nodes and %.3g arcs; the limit is %lld arcs", spec, (long long)K,
                         (double)K * (double)((int64_t)1 << K), (long long)GSP_MAX_ARCS);
    gsp_group_t *g = new_group(GSP_GROUP_ABELIAN);
    if (!g) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    g->k = (int)K;
    g->order = (int64_t)1 << K;
    for (int j = 0; j < K; j++) {
        g->mod[j] = 2;
        g->stride[j] = (int64_t)1 << j; /* bit j = coordinate j */
        gens[j] = (int64_t)1 << j;
    }
    return gsp_topo_cayley(t, g, gens, (int)K, false, spec);
}

static gsp_err_t symmetric_group(const char *spec, int64_t K, gsp_group_t **out) {
    if (K < 2) return gsp_error(GSP_ERR_RANGE, "%s: K must be at least 2", spec);
    if (K > GSP_MAX_PERM_K)
        return gsp_error(GSP_ERR_OVERFLOW, "%s: %lld! nodes overflows a 64-bit count", spec,
                         (long long)K);
    gsp_group_t *g = new_group(GSP_GROUP_SYMMETRIC);
    if (!g) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    g->K = (int)K;
    g->order = 1;
    for (int64_t i = 2; i <= K; i++) g->order *= i;
    *out = g;
    return GSP_OK;
}

static gsp_err_t build_star(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t K, gens[GSP_MAX_PERM_K];
    const char *p = args;
    gsp_group_t *g = NULL;
    gsp_err_t err;
    if (!parse_int(&p, &K) || *p)
        return gsp_error(GSP_ERR_PARSE, "%s: expected star:K with K an integer", spec);
    if ((err = symmetric_group(spec, K, &g))) return err;
    int64_t arcs;
    if (!gsp_mul_ok(g->order, K - 1, &arcs) || arcs > GSP_MAX_ARCS) {
        /* The arc count may not fit in 64 bits (star:20): then it is said in floating point. */
        char count[32];
        if (gsp_mul_ok(g->order, K - 1, &arcs)) snprintf(count, sizeof count, "%lld", (long long)arcs);
        else snprintf(count, sizeof count, "%.4g", (double)g->order * (double)(K - 1));
        err = gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes and %s arcs need %.0f GB; the limit is %lld arcs", spec,
                        (long long)g->order, count, (double)g->order * (double)K * 8 / 1e9, (long long)GSP_MAX_ARCS);
        gsp_group_free(g);
        return err;
    }
    for (int i = 1; i < K; i++) {
        int w[GSP_MAX_PERM_K];
        for (int j = 0; j < K; j++) w[j] = j;
        w[0] = i;
        w[i] = 0;
        gens[i - 1] = gsp_perm_rank((int)K, w);
    }
    return gsp_topo_cayley(t, g, gens, (int)K - 1, false, spec);
}

/* Circulant G(N; S...) as the Cayley graph of Z_N: +S in order, then missing -S. */
static gsp_err_t circulant(gsp_topo_t *t, const char *spec, int64_t N, const int64_t *S, int k) {
    gsp_group_t *g = NULL;
    int64_t *gens = NULL;
    gsp_err_t err;
    if (N < 2) return gsp_error(GSP_ERR_RANGE, "%s: N must be at least 2", spec);
    if ((err = abelian_rowmajor(spec, &N, 1, &g))) return err;
    if ((err = gsp_alloc_array((void **)&gens, k, sizeof *gens, false))) {
        gsp_group_free(g);
        return err;
    }
    for (int i = 0; i < k; i++) {
        gens[i] = ((S[i] % N) + N) % N;
        if (gens[i] == 0) {
            gsp_group_free(g);
            gsp_free(gens);
            return gsp_error(GSP_ERR_RANGE, "%s: jump %lld is 0 mod %lld (a self-loop)", spec,
                             (long long)S[i], (long long)N);
        }
    }
    err = gsp_topo_cayley(t, g, gens, k, true, spec);
    gsp_free(gens);
    return err;
}

static gsp_err_t build_circulant(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t N;
    gsp_vec_t S = {0};
    const char *p = args;
    gsp_err_t err;
    if (!parse_int(&p, &N) || *p != ':')
        return gsp_error(GSP_ERR_PARSE, "%s: expected circulant:N:S1,S2,...", spec);
    p++;
    for (;;) {
        int64_t s;
        if (!parse_int(&p, &s)) {
            gsp_vec_destroy(&S);
            return gsp_error(GSP_ERR_PARSE, "%s: expected a jump (integer) at '%s'", spec, p);
        }
        if (s == INT64_MAX || s == -INT64_MAX) { /* jumps reduce mod N, but not past int64 */
            gsp_vec_destroy(&S);
            return gsp_error(GSP_ERR_OVERFLOW, "%s: a jump is too large for a 64-bit integer", spec);
        }
        if ((err = gsp_vec_push(&S, s))) return err;
        if (*p == 0) break;
        if (*p++ != ',') {
            gsp_vec_destroy(&S);
            return gsp_error(GSP_ERR_PARSE, "%s: jumps are separated by ','", spec);
        }
    }
    if (S.len > 4096) {
        gsp_vec_destroy(&S);
        return gsp_error(GSP_ERR_RANGE, "%s: too many jumps", spec);
    }
    err = circulant(t, spec, N, S.v, (int)S.len);
    gsp_vec_destroy(&S);
    return err;
}

/* s of optcirc:N: the smallest s with N <= 2s^2 + 4s + 3 (Monakhova's property (c)). */
int64_t gsp__optcirc_s(int64_t N) {
    int64_t s = 0;
    while (2 * s * s + 4 * s + 3 < N) s++;
    return s;
}

static gsp_err_t build_optcirc(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t N;
    const char *p = args;
    if (!parse_int(&p, &N) || *p)
        return gsp_error(GSP_ERR_PARSE, "%s: expected optcirc:N with N an integer", spec);
    if (N < 5) return gsp_error(GSP_ERR_RANGE, "%s: N must be at least 5", spec);
    if (N > GSP_MAX_ARCS / 4)
        return gsp_error(GSP_ERR_TOOBIG, "%s: N is above the limit of %lld", spec,
                         (long long)(GSP_MAX_ARCS / 4));
    int64_t s = gsp__optcirc_s(N), S[2] = {s, s + 1};
    return circulant(t, spec, N, S, 2);
}

static gsp_err_t build_cycle(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t N, S = 1;
    const char *p = args;
    if (!parse_int(&p, &N) || *p)
        return gsp_error(GSP_ERR_PARSE, "%s: expected cycle:N with N an integer", spec);
    return circulant(t, spec, N, &S, 1);
}

static gsp_err_t build_complete(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t N;
    const char *p = args;
    gsp_err_t err;
    if (!parse_int(&p, &N) || *p)
        return gsp_error(GSP_ERR_PARSE, "%s: expected complete:N with N an integer", spec);
    if (N < 2) return gsp_error(GSP_ERR_RANGE, "%s: N must be at least 2", spec);
    if (N > 46341) /* N(N-1) arcs must stay under the arc limit */
        return gsp_error(GSP_ERR_TOOBIG, "%s: %.4g arcs is above the limit of %lld", spec,
                         (double)N * (double)(N - 1), (long long)GSP_MAX_ARCS);
    int64_t *S = NULL;
    if ((err = gsp_alloc_array((void **)&S, N / 2, sizeof *S, false))) return err;
    for (int64_t i = 0; i < N / 2; i++) S[i] = i + 1;
    err = circulant(t, spec, N, S, (int)(N / 2));
    gsp_free(S);
    return err;
}

/* Parses a parenthesised tuple "(a,b,...)" or "(a b ...)" of integers into v. */
static gsp_err_t parse_tuple(const char *spec, const char **pp, int64_t *v, int maxn, int *n) {
    const char *p = *pp;
    *n = 0;
    if (*p != '(') return gsp_error(GSP_ERR_PARSE, "%s: expected '(' at '%s'", spec, p);
    p++;
    for (;;) {
        while (*p == ' ') p++;
        if (*p == ')') break;
        if (*n == maxn) return gsp_error(GSP_ERR_PARSE, "%s: tuple too long at '%s'", spec, *pp);
        if (!parse_int(&p, &v[*n]))
            return gsp_error(GSP_ERR_PARSE, "%s: expected an integer at '%s'", spec, p);
        (*n)++;
        while (*p == ' ') p++;
        if (*p == ',') p++;
        else if (*p != ')' && !isdigit((unsigned char)*p) && *p != '-')
            return gsp_error(GSP_ERR_PARSE, "%s: unexpected %s in a tuple", spec, describe(*p).s);
    }
    *pp = p + 1;
    return GSP_OK;
}

static gsp_err_t build_cayley(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t m[GSP_MAX_DIMS];
    int k = 0;
    gsp_group_t *g = NULL;
    gsp_vec_t gens = {0};
    gsp_err_t err;
    const char *p = args;
    /* Group: Zm1xZm2x... */
    for (;;) {
        if (*p != 'Z' && *p != 'z') {
            err = gsp_error(GSP_ERR_PARSE, "%s: expected a group like Z5xZ5 after 'cayley:'", spec);
            goto fail;
        }
        p++;
        if (k == GSP_MAX_DIMS || !parse_int(&p, &m[k]) || m[k] < 1) {
            err = gsp_error(GSP_ERR_PARSE, "%s: expected a cyclic order >= 1 after 'Z'", spec);
            goto fail;
        }
        k++;
        if (*p == ':') break;
        if (*p != 'x' && *p != 'X') {
            err = gsp_error(GSP_ERR_PARSE, "%s: expected 'x' or ':' after Z%lld", spec,
                            (long long)m[k - 1]);
            goto fail;
        }
        p++;
    }
    p++;
    if ((err = abelian_rowmajor(spec, m, k, &g))) goto fail;
    for (;;) {
        int64_t c[GSP_MAX_DIMS];
        int n;
        if (*p == '(') {
            if ((err = parse_tuple(spec, &p, c, GSP_MAX_DIMS, &n))) goto fail;
        } else if (k == 1 && parse_int(&p, &c[0])) {
            n = 1;
        } else {
            err = gsp_error(GSP_ERR_PARSE, "%s: expected a generator like (1,0) at '%s'", spec, p);
            goto fail;
        }
        if (n != k) {
            err = gsp_error(GSP_ERR_PARSE, "%s: generator %lld has %d coordinates, the group has %d",
                            spec, (long long)gens.len + 1, n, k);
            goto fail;
        }
        if ((err = gsp_vec_push(&gens, gsp_group_index(g, c)))) goto fail;
        if (*p == 0) break;
        if (*p++ != ',') {
            err = gsp_error(GSP_ERR_PARSE, "%s: generators are separated by ','", spec);
            goto fail;
        }
    }
    if (gens.len > 4096) {
        err = gsp_error(GSP_ERR_RANGE, "%s: too many generators", spec);
        goto fail;
    }
    err = gsp_topo_cayley(t, g, gens.v, (int)gens.len, true, spec);
    g = NULL;
fail:
    gsp_group_free(g);
    gsp_vec_destroy(&gens);
    return err;
}

static gsp_err_t build_perm(gsp_topo_t *t, const char *spec, const char *args) {
    int64_t K;
    gsp_group_t *g = NULL;
    gsp_vec_t gens = {0};
    gsp_err_t err;
    const char *p = args;
    if (!parse_int(&p, &K) || *p != ':')
        return gsp_error(GSP_ERR_PARSE, "%s: expected perm:K:(w0 w1 ...),...", spec);
    p++;
    if ((err = symmetric_group(spec, K, &g))) return err;
    for (;;) {
        int64_t c[GSP_MAX_PERM_K];
        int w[GSP_MAX_PERM_K], seen[GSP_MAX_PERM_K] = {0}, n;
        if ((err = parse_tuple(spec, &p, c, GSP_MAX_PERM_K, &n))) goto fail;
        if (n != K) {
            err = gsp_error(GSP_ERR_PARSE, "%s: permutation %lld has %d entries, expected %lld",
                            spec, (long long)gens.len + 1, n, (long long)K);
            goto fail;
        }
        for (int j = 0; j < K; j++) {
            if (c[j] < 0 || c[j] >= K || seen[c[j]]++) {
                err = gsp_error(GSP_ERR_RANGE,
                                "%s: permutation %lld is not a permutation of 0..%lld", spec,
                                (long long)gens.len + 1, (long long)K - 1);
                goto fail;
            }
            w[j] = (int)c[j];
        }
        if ((err = gsp_vec_push(&gens, gsp_perm_rank((int)K, w)))) goto fail;
        if (*p == 0) break;
        if (*p++ != ',') {
            err = gsp_error(GSP_ERR_PARSE, "%s: permutations are separated by ','", spec);
            goto fail;
        }
    }
    if (gens.len > 4096) {
        err = gsp_error(GSP_ERR_RANGE, "%s: too many generators", spec);
        goto fail;
    }
    {
        int64_t arcs;
        if (!gsp_mul_ok(g->order, gens.len * 2, &arcs) || arcs > GSP_MAX_ARCS) {
            err = gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes: too large (limit %lld arcs)", spec,
                            (long long)g->order, (long long)GSP_MAX_ARCS);
            goto fail;
        }
    }
    err = gsp_topo_cayley(t, g, gens.v, (int)gens.len, true, spec);
    g = NULL;
fail:
    gsp_group_free(g);
    gsp_vec_destroy(&gens);
    return err;
}

gsp_err_t gsp__topo_from_file(gsp_topo_t *t, const char *spec, const char *path);
gsp_err_t gsp__topo_spec_size(const char *spec, int64_t *n, int64_t *m);

/* Splits "A,B" at the comma outside parentheses. */
static gsp_err_t build_product(gsp_topo_t *t, const char *spec, const char *inner, size_t len) {
    int depth = 0;
    size_t cut = len;
    gsp_err_t err;
    /* The factors are split at the first comma outside parentheses that is followed by the start
     * of a spec (a family name and ':', or "product("): circulant:10:1,3 has commas of its own. */
    for (size_t i = 0; i < len; i++) {
        if (inner[i] == '(') depth++;
        else if (inner[i] == ')') depth--;
        else if (inner[i] == ',' && depth == 0) {
            size_t j = i + 1;
            while (j < len && islower((unsigned char)inner[j])) j++;
            bool starts = j > i + 1 && j < len && (inner[j] == ':' || (inner[j] == '(' && j - i - 1 == 7 && !strncmp(inner + i + 1, "product", 7)));
            if (starts) {
                cut = i;
                break;
            }
        }
    }
    if (cut == len || cut == 0 || cut + 1 == len)
        return gsp_error(GSP_ERR_PARSE, "%s: expected product(A,B) with two specs", spec);
    char *sa = gsp_malloc(cut + 1), *sb = gsp_malloc(len - cut);
    gsp_topo_t *a = gsp_calloc(1, sizeof *a), *b = gsp_calloc(1, sizeof *b);
    if (!sa || !sb || !a || !b) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(sa, inner, cut);
    sa[cut] = 0;
    memcpy(sb, inner + cut + 1, len - cut - 1);
    sb[len - cut - 1] = 0;
    {
        /* Both factors parsed and sized first (dry runs), and the product checked against the
         * limits, before either is built: a huge A is not built to find B malformed. */
        int64_t na, ma, nb, mb, n, m1, m2, m;
        if ((err = gsp__topo_spec_size(sa, &na, &ma)) || (err = gsp__topo_spec_size(sb, &nb, &mb))) goto fail;
        if (!gsp_mul_ok(na, nb, &n) || !gsp_mul_ok(ma, nb, &m1) || !gsp_mul_ok(mb, na, &m2) || !gsp_add_ok(m1, m2, &m)) {
            err = gsp_error(GSP_ERR_OVERFLOW, "%s: size overflows", spec);
            goto fail;
        }
        if ((err = gsp__topo_check_size(spec, n, m))) goto fail;
    }
    if ((err = gsp_topo_from_spec(a, sa))) goto fail;
    if ((err = gsp_topo_from_spec(b, sb))) goto fail;
    gsp_free(sa);
    gsp_free(sb);
    return gsp_topo_product(t, a, b);
fail:
    gsp_free(sa);
    gsp_free(sb);
    gsp_topo_destroy(a);
    gsp_topo_destroy(b);
    gsp_free(a);
    gsp_free(b);
    return err;
}

typedef gsp_err_t (*family_fn)(gsp_topo_t *, const char *spec, const char *args);
static const struct {
    const char *name;
    family_fn build;
} families[] = {
    {"torus", build_torus},       {"mesh", build_mesh},           {"hypercube", build_hypercube}, {"star", build_star},
    {"circulant", build_circulant}, {"optcirc", build_optcirc}, {"cycle", build_cycle},
    {"complete", build_complete}, {"cayley", build_cayley},       {"perm", build_perm},
    {"dgx", gsp__build_dgx},      {"mi250", gsp__build_mi250},    {"fattree", gsp__build_fattree},
    {"dragonfly", gsp__build_dragonfly},
};

static gsp_err_t from_spec(gsp_topo_t *t, const char *spec);

/* Blanks next to punctuation (and at the ends) carry no meaning: "product(cycle:5, complete:2)"
 * is "product(cycle:5,complete:2)". Blanks between two numbers stay (perm words "(1 0 2)"), and
 * file paths are left alone. */
static bool is_punct(char c) { return c == ',' || c == '(' || c == ')' || c == ':' || c == 'x' || c == 0; }

gsp_err_t gsp_topo_from_spec(gsp_topo_t *t, const char *spec) {
    memset(t, 0, sizeof *t);
    if (!spec) return gsp_error(GSP_ERR_INVAL, "no topology spec");
    bool blank = false;
    for (const char *p = spec; *p && !blank; p++) blank = isspace((unsigned char)*p);
    while (isspace((unsigned char)*spec)) spec++;
    if (!blank || strncmp(spec, "file:", 5) == 0 || strlen(spec) > 100000) return from_spec(t, spec);
    size_t len = strlen(spec);
    char *norm = gsp_malloc(len + 1);
    if (!norm) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isspace((unsigned char)spec[i])) {
            norm[k++] = spec[i];
            continue;
        }
        size_t j = i;
        while (j < len && isspace((unsigned char)spec[j])) j++;
        /* Keep one blank only between two non-punctuation characters. */
        if (k > 0 && !is_punct(norm[k - 1]) && !is_punct(spec[j])) norm[k++] = ' ';
        i = j - 1;
    }
    norm[k] = 0;
    gsp_err_t err = from_spec(t, norm);
    gsp_free(norm);
    return err;
}

static gsp_err_t from_spec(gsp_topo_t *t, const char *spec) {
    memset(t, 0, sizeof *t);
    size_t len = strlen(spec);
    if (len == 0) return gsp_error(GSP_ERR_PARSE, "empty topology spec");
    if (len > 100000) return gsp_error(GSP_ERR_PARSE, "topology spec too long");
    if (strncmp(spec, "file:", 5) == 0) return gsp__topo_from_file(t, spec, spec + 5);
    /* SPEC@C1,C2,...: capacities per dimension, after the whole spec (outside parentheses). */
    {
        int depth = 0, nat = 0;
        const char *at = NULL;
        for (const char *p = spec; *p; p++) {
            if (*p == '(') depth++;
            else if (*p == ')') depth--;
            else if (*p == '@' && depth == 0) at = p, nat++;
        }
        if (nat > 1) return gsp_error(GSP_ERR_PARSE, "%s: capacities given twice ('@' once, after the whole spec)", spec);
        if (at) {
            char *inner = gsp_malloc((size_t)(at - spec) + 1);
            if (!inner) return gsp_error(GSP_ERR_NOMEM, "out of memory");
            memcpy(inner, spec, (size_t)(at - spec));
            inner[at - spec] = 0;
            gsp_err_t err = at[1] ? from_spec(t, inner) : gsp_error(GSP_ERR_PARSE, "%s: expected capacities after '@'", spec);
            gsp_free(inner);
            if (err) return err;
            return gsp__topo_dim_caps(t, spec, at + 1);
        }
    }
    if (strncmp(spec, "product(", 8) == 0) {
        if (spec[len - 1] != ')')
            return gsp_error(GSP_ERR_PARSE, "%s: expected product(A,B) ending in ')'", spec);
        return build_product(t, spec, spec + 8, len - 9);
    }
    const char *colon = strchr(spec, ':');
    if (!colon && access(spec, R_OK) == 0)
        return gsp_error(GSP_ERR_PARSE, "%s: not a topology spec, but a file of that name exists: did you mean 'file:%s'?", spec, spec);
    if (!colon)
        return gsp_error(GSP_ERR_PARSE,
                         "%s: expected FAMILY:ARGS (torus, hypercube, star, circulant, optcirc, "
                         "cycle, complete, cayley, perm, dgx, mi250, fattree, dragonfly, product(A,B), file:PATH)",
                         spec);
    size_t nlen = (size_t)(colon - spec);
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strlen(families[i].name) == nlen && strncmp(spec, families[i].name, nlen) == 0)
            return families[i].build(t, spec, colon + 1);
    const char *names[] = {"torus", "mesh", "hypercube", "star", "circulant", "optcirc", "cycle", "complete", "cayley", "perm", "file",
                           "dgx", "mi250", "fattree", "dragonfly"};
    const char *near = gsp_nearest(spec, nlen, names, sizeof names / sizeof *names);
    if (near) return gsp_error(GSP_ERR_PARSE, "%s: unknown family '%.*s'; did you mean '%s'?", spec, (int)nlen, spec, near);
    return gsp_error(GSP_ERR_PARSE,
                     "%s: unknown family '%.*s' (torus, mesh, hypercube, star, circulant, optcirc, "
                     "cycle, complete, cayley, perm, dgx, mi250, fattree, dragonfly, product, file)",
                     spec, (int)nlen, spec);
}

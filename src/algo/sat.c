/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sat.c — exact decisions with a SAT solver (CaDiCaL, through its C interface): does an
 * allgather of R rounds exist under the model? Two encodings:
 *
 * Symmetric (Cayley graphs): the compact form of Lemma 10 of the packet-gossip paper. S_0 = {e};
 * an entry (t, i, g) needs g in S_t and puts s_i g in S_{t+1}; at most p entries per round and
 * generator (every arc of that generator then carries p packets). Variables x(t, v) "v in S_t"
 * and y(t, i, g) "entry (t, i, g)", a sequential counter per (t, i) for the p bound. About
 * R N (d + 1) variables plus R d N p for the counters: 151 nodes, 4 generators, 11 rounds,
 * p = 4 is 34 thousand variables. A "no" says that no symmetric schedule has R rounds.
 *
 * Explicit (any graph, small): h(t, v, x) "node v holds packet x after t rounds", s(t, a, x)
 * "arc a carries x in round t": R N (N + m) variables. A "no" says that no schedule at all
 * has R rounds.
 *
 * Both forms follow the verifier's rules: a packet is sent only by a holder, at most p per arc
 * and round; one port: one sending arc and one receiving arc per node and round (symmetric: one
 * generator per round); half duplex: never an edge both ways in a round (symmetric: never a
 * generator with its inverse, nor an involution). Nodes are pruned by distance (x(t, v) is
 * false beyond distance t). A "yes" comes with the schedule, which the caller verifies. */
#include <ccadical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algo_int.h"
#include "gossip/sat.h"

typedef struct {
    CCaDiCaL *s;
    int nvars;
    int64_t nclauses;
    double deadline; /* CLOCK_MONOTONIC seconds; 0: none */
    gsp_progress_fn progress;
    void *progress_ctx;
    double started; /* progress is the fraction of [started, deadline] used */
    int64_t polls;
    char what[96]; /* "SAT solver, trying 7 rounds": a log says which round count is tried */
} enc_t;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CaDiCaL polls this during the search: stop at the deadline; report the share of the time
 * limit used (of the whole search, for a search of several solves). */
static int terminate(void *ctx) {
    enc_t *e = ctx;
    if ((++e->polls & 1023) != 0) return 0;
    double t = now();
    if (e->progress) e->progress(e->progress_ctx, e->what, e->deadline > 0 ? (t - e->started) / (e->deadline - e->started) : 0);
    return e->deadline > 0 && t > e->deadline;
}

static int newvar(enc_t *e) { return ++e->nvars; }

static void clause(enc_t *e, const int *lits, int n) {
    for (int k = 0; k < n; k++) ccadical_add(e->s, lits[k]);
    ccadical_add(e->s, 0);
    e->nclauses++;
}
static void c1(enc_t *e, int a) { clause(e, (int[]){a}, 1); }
static void c2(enc_t *e, int a, int b) { clause(e, (int[]){a, b}, 2); }
static void c3(enc_t *e, int a, int b, int c) { clause(e, (int[]){a, b, c}, 3); }

/* At most k of lits[0..n-1] (Sinz's sequential counter, n k auxiliary variables). */
static void at_most(enc_t *e, const int *lits, int n, int64_t k) {
    if (k >= n) return;
    if (k == 0) {
        for (int j = 0; j < n; j++) c1(e, -lits[j]);
        return;
    }
    int K = (int)k, *prev = malloc(sizeof *prev * (size_t)K), *cur = malloc(sizeof *cur * (size_t)K);
    for (int l = 0; l < K; l++) prev[l] = newvar(e);
    c2(e, -lits[0], prev[0]);
    for (int l = 1; l < K; l++) c1(e, -prev[l]);
    for (int j = 1; j < n; j++) {
        if (j < n - 1)
            for (int l = 0; l < K; l++) cur[l] = newvar(e);
        c2(e, -lits[j], -prev[K - 1]);
        if (j == n - 1) break;
        c2(e, -lits[j], cur[0]);
        c2(e, -prev[0], cur[0]);
        for (int l = 1; l < K; l++) {
            c3(e, -lits[j], -prev[l - 1], cur[l]);
            c2(e, -prev[l], cur[l]);
        }
        int *sw = prev;
        prev = cur;
        cur = sw;
    }
    free(prev);
    free(cur);
}

static gsp_sat_answer_t solve(enc_t *e) {
    /* Encoding a large instance takes seconds of its own, which the solver's polls cannot
     * interrupt: a deadline passed meanwhile is no answer, without starting the search. */
    if (e->deadline > 0 && now() > e->deadline) return GSP_SAT_UNKNOWN;
    if (e->progress) e->progress(e->progress_ctx, e->what, e->deadline > 0 ? (now() - e->started) / (e->deadline - e->started) : 0);
    int r = ccadical_solve(e->s);
    return r == 10 ? GSP_SAT_YES : r == 20 ? GSP_SAT_NO : GSP_SAT_UNKNOWN;
}

static gsp_err_t symmetric(const gsp_topo_t *t, const gsp_model_t *m, int64_t R, enc_t *e, const int32_t *dist, gsp_sat_answer_t *ans,
                           gsp_sched_t *out) {
    gsp_err_t err = GSP_OK;
    int64_t n = t->n;
    int d = t->ngens;
    int *inv = NULL, *lits = NULL, *pred = NULL;
    if ((err = gsp_alloc_array((void **)&inv, d, sizeof *inv, false)) || (err = gsp_alloc_array((void **)&lits, n + d + 1, sizeof *lits, false)) ||
        (err = gsp_alloc_array((void **)&pred, n * d, sizeof *pred, false)))
        goto done;
    for (int i = 0; i < d; i++) inv[i] = gsp_topo_gen_inverse(t, i);
    /* x(t, v) = 1 + t n + v; y(t, i, g) = 1 + (R + 1) n + (t d + i) n + g. */
    int64_t nx = (R + 1) * n, total = nx + R * d * n;
    if (total + R * d * n * (m->packets == GSP_PACKETS_INF ? 0 : m->packets) > 50000000) {
        err = gsp_error(GSP_ERR_TOOBIG, "%s: the symmetric encoding of %lld rounds needs more than 5e7 variables", t->spec, (long long)R);
        goto done;
    }
    e->nvars = (int)total;
#define X(tt, v) ((int)(1 + (tt) * n + (v)))
#define Y(tt, i, g) ((int)(1 + nx + ((tt) * d + (i)) * n + (g)))
    for (int64_t v = 0; v < n; v++)
        for (int i = 0; i < d; i++) pred[v * d + i] = (int)t->adj[v * d + inv[i]]; /* s_i^-1 v */
    c1(e, X(0, 0));
    for (int64_t v = 1; v < n; v++) c1(e, -X(0, v));
    for (int64_t v = 0; v < n; v++) c1(e, X(R, v));
    for (int64_t r = 0; r < R; r++) {
        for (int64_t v = 0; v < n; v++) {
            if (dist[v] > r + 1) {
                c1(e, -X(r + 1, v));
                continue;
            }
            c2(e, -X(r, v), X(r + 1, v)); /* held stays held */
            /* newly held: by some entry of round r reaching v */
            int k = 0;
            lits[k++] = -X(r + 1, v);
            lits[k++] = X(r, v);
            for (int i = 0; i < d; i++) lits[k++] = Y(r, i, pred[v * d + i]);
            clause(e, lits, k);
        }
        for (int i = 0; i < d; i++) {
            int k = 0;
            for (int64_t g = 0; g < n; g++) {
                int64_t y = t->adj[g * d + i];
                if (dist[g] > r) {
                    c1(e, -Y(r, i, g));
                    continue;
                }
                c2(e, -Y(r, i, g), X(r, g));  /* only a holder sends */
                c2(e, -Y(r, i, g), -X(r, y)); /* never to a holder */
                lits[k++] = Y(r, i, g);
            }
            if (m->packets != GSP_PACKETS_INF) at_most(e, lits, k, m->packets);
        }
        if (m->one_port || m->half_duplex) {
            /* u(r, i): generator i is used in round r. */
            int u[GSP_MAX_DIMS * 8 + 64];
            if (d > (int)(sizeof u / sizeof *u)) {
                err = gsp_error(GSP_ERR_TOOBIG, "%s: too many generators for the SAT encoding", t->spec);
                goto done;
            }
            for (int i = 0; i < d; i++) {
                u[i] = newvar(e);
                for (int64_t g = 0; g < n; g++)
                    if (dist[g] <= r) c2(e, -Y(r, i, g), u[i]);
            }
            if (m->one_port) at_most(e, u, d, 1);
            if (m->half_duplex)
                for (int i = 0; i < d; i++) {
                    if (inv[i] == i) c1(e, -u[i]);
                    else if (inv[i] > i) c2(e, -u[i], -u[inv[i]]);
                }
        }
    }
    *ans = solve(e);
    if (*ans != GSP_SAT_YES) goto done;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, m, -1, "sat"))) goto done;
    /* Read the entries, tracking S_t as they build it (the model's x may lag behind: nothing
     * forces x(t + 1, y) when y is reached): an entry to an element already in S_t, or
     * reached twice in a round, is dropped. The solver guarantees every kept entry's sender. */
    unsigned char *in = calloc((size_t)n, 1), *got = calloc((size_t)n, 1);
    if (!in || !got) {
        free(in);
        free(got);
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto done;
    }
    in[0] = 1;
    for (int64_t r = 0; r < R && !err; r++) {
        memset(got, 0, (size_t)n);
        for (int i = 0; i < d && !err; i++)
            for (int64_t g = 0; g < n && !err; g++)
                if (in[g] && ccadical_val(e->s, Y(r, i, g)) > 0) {
                    int64_t y = t->adj[g * d + i];
                    if (in[y] || got[y]++) continue;
                    err = gsp_sched_sym(out, r, i, g);
                }
        for (int64_t v = 0; v < n; v++) in[v] |= got[v] != 0;
    }
    free(in);
    free(got);
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
#undef X
#undef Y
done:
    gsp_free(inv);
    gsp_free(lits);
    gsp_free(pred);
    return err;
}

static gsp_err_t explicit_form(const gsp_topo_t *t, const gsp_model_t *m, int64_t R, enc_t *e, gsp_sat_answer_t *ans, gsp_sched_t *out) {
    gsp_err_t err = GSP_OK;
    int64_t n = t->n, M = t->m;
    int *lits = NULL;
    int64_t *src = NULL, *rev = NULL;
    int32_t *dist = NULL;
    /* h(t, v, x) = 1 + (t n + v) n + x; s(t, a, x) = 1 + (R + 1) n n + (t M + a) n + x. */
    int64_t nh = (R + 1) * n * n, total = nh + R * M * n;
    if (total + R * M * n * (m->packets == GSP_PACKETS_INF ? 0 : m->packets) > 20000000) {
        err = gsp_error(GSP_ERR_TOOBIG, "%s: the explicit encoding of %lld rounds needs more than 2e7 variables", t->spec, (long long)R);
        goto done;
    }
    int64_t maxin = 0;
    if ((err = gsp_alloc_array((void **)&src, M, sizeof *src, false)) || (err = gsp_alloc_array((void **)&rev, M, sizeof *rev, false)) ||
        (err = gsp_alloc_array((void **)&dist, n * n, sizeof *dist, false)))
        goto done;
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
            src[a] = u;
            int64_t b = gsp_topo_arc_index(t, t->adj[a], u);
            rev[a] = b < 0 ? -1 : t->off[t->adj[a]] + b;
        }
    for (int64_t x = 0; x < n; x++) {
        int64_t ecc, reached;
        if ((err = gsp_bfs(t, x, dist + x * n, NULL, &ecc, &reached))) goto done;
    }
    maxin = t->in_dmax > t->dmax ? t->in_dmax : t->dmax;
    if ((err = gsp_alloc_array((void **)&lits, (maxin > n ? maxin : n) + M + 4, sizeof *lits, false))) goto done;
    e->nvars = (int)total;
#define H(tt, v, x) ((int)(1 + ((tt) * n + (v)) * n + (x)))
#define S(tt, a, x) ((int)(1 + nh + ((tt) * M + (a)) * n + (x)))
    for (int64_t v = 0; v < n; v++)
        for (int64_t x = 0; x < n; x++) {
            c1(e, v == x ? H(0, v, x) : -H(0, v, x));
            c1(e, H(R, v, x));
        }
    for (int64_t r = 0; r < R; r++) {
        for (int64_t v = 0; v < n; v++)
            for (int64_t x = 0; x < n; x++) {
                /* dist(x -> v) > r + 1: cannot hold yet (dist stored from each origin x) */
                if (dist[x * n + v] < 0 || dist[x * n + v] > r + 1) {
                    c1(e, -H(r + 1, v, x));
                    continue;
                }
                c2(e, -H(r, v, x), H(r + 1, v, x));
                int k = 0;
                lits[k++] = -H(r + 1, v, x);
                lits[k++] = H(r, v, x);
                for (int64_t a = 0; a < M; a++)
                    if (t->adj[a] == v) lits[k++] = S(r, a, x);
                clause(e, lits, k);
            }
        for (int64_t a = 0; a < M; a++) {
            int k = 0;
            int64_t u = src[a], v = t->adj[a];
            for (int64_t x = 0; x < n; x++) {
                if (dist[x * n + u] < 0 || dist[x * n + u] > r) {
                    c1(e, -S(r, a, x));
                    continue;
                }
                c2(e, -S(r, a, x), H(r, u, x));
                c2(e, -S(r, a, x), -H(r, v, x));
                lits[k++] = S(r, a, x);
            }
            if (m->packets != GSP_PACKETS_INF) at_most(e, lits, k, m->packets);
        }
        if (m->one_port || m->half_duplex) {
            /* w(r, a): arc a used in round r. */
            int base = e->nvars;
            for (int64_t a = 0; a < M; a++) {
                int w = newvar(e);
                for (int64_t x = 0; x < n; x++) c2(e, -S(r, a, x), w);
            }
#define W(a) (base + 1 + (int)(a))
            if (m->one_port)
                for (int64_t u = 0; u < n; u++) {
                    int k = 0;
                    for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) lits[k++] = W(a);
                    at_most(e, lits, k, 1);
                    k = 0;
                    for (int64_t a = 0; a < M; a++)
                        if (t->adj[a] == u) lits[k++] = W(a);
                    at_most(e, lits, k, 1);
                }
            if (m->half_duplex)
                for (int64_t a = 0; a < M; a++)
                    if (rev[a] > a) c2(e, -W(a), -W(rev[a]));
#undef W
        }
    }
    *ans = solve(e);
    if (*ans != GSP_SAT_YES) goto done;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, m, -1, "sat"))) goto done;
    /* Read the transfers, tracking the holdings as they build them (h may lag behind what
     * was delivered): a packet the receiver already has, or a second copy in a round, is
     * dropped. */
    unsigned char *has = calloc((size_t)(n * n), 1), *got = calloc((size_t)(n * n), 1);
    if (!has || !got) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
    for (int64_t v = 0; v < n && !err; v++) has[v * n + v] = 1;
    for (int64_t r = 0; r < R && !err; r++) {
        if ((err = gsp_sched_round(out))) break;
        memset(got, 0, (size_t)(n * n));
        for (int64_t a = 0; a < M && !err; a++)
            for (int64_t x = 0; x < n && !err; x++) {
                int64_t u = src[a], v = t->adj[a];
                if (!has[u * n + x] || has[v * n + x] || got[v * n + x] || ccadical_val(e->s, S(r, a, x)) <= 0) continue;
                got[v * n + x] = 1;
                err = gsp_sched_send(out, u, v, x);
            }
        for (int64_t q = 0; q < n * n; q++) has[q] |= got[q];
    }
    free(has);
    free(got);
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
#undef H
#undef S
done:
    gsp_free(lits);
    gsp_free(src);
    gsp_free(rev);
    gsp_free(dist);
    return err;
}

/* gsp_sat_allgather until the absolute deadline (0: none); progress reports the fraction of
 * [origin, deadline] used. */
static gsp_err_t sat_until(const gsp_topo_t *t, const gsp_model_t *m, int64_t rounds, gsp_sat_form_t form, double deadline, double origin,
                           gsp_progress_fn progress, void *progress_ctx, gsp_sat_answer_t *ans, gsp_sched_t *out, gsp_sat_stats_t *st) {
    gsp_err_t err;
    memset(out, 0, sizeof *out);
    *ans = GSP_SAT_UNKNOWN;
    if (st) memset(st, 0, sizeof *st);
    if (rounds < 0 || rounds > 100000) return gsp_error(GSP_ERR_RANGE, "rounds %lld out of range", (long long)rounds);
    if (form == GSP_SAT_SYMMETRIC && !t->group) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: the symmetric form needs a Cayley graph", t->spec);
    if (form != GSP_SAT_SYMMETRIC && form != GSP_SAT_EXPLICIT) return gsp_error(GSP_ERR_INVAL, "unknown SAT form");
    gsp_model_t model = gsp_model_resolve(*m); /* packets 0: the default, 1 */
    m = &model;
    if (t->n > 1 && rounds == 0) {
        *ans = GSP_SAT_NO;
        return GSP_OK;
    }
    enc_t e;
    memset(&e, 0, sizeof e);
    e.s = ccadical_init();
    if (!e.s) return gsp_error(GSP_ERR_NOMEM, "out of memory (SAT solver)");
    double t0 = now();
    e.started = origin;
    e.deadline = deadline;
    e.progress = progress;
    e.progress_ctx = progress_ctx;
    const char *share = deadline > 0 ? " (share of the time limit)" : "";
    snprintf(e.what, sizeof e.what, "SAT solver, trying %lld round%s%s", (long long)rounds, rounds == 1 ? "" : "s", share);
    if (progress) {
        char enc[96];
        snprintf(enc, sizeof enc, "SAT solver, encoding %lld round%s%s", (long long)rounds, rounds == 1 ? "" : "s", share);
        progress(progress_ctx, enc, deadline > 0 ? (t0 - origin) / (deadline - origin) : 0);
    }
    ccadical_set_option(e.s, "quiet", 1); /* the library never prints */
    ccadical_set_terminate(e.s, &e, terminate);
    if (form == GSP_SAT_SYMMETRIC) {
        int32_t *dist = NULL;
        int64_t ecc, reached;
        if (!(err = gsp_alloc_array((void **)&dist, t->n, sizeof *dist, false)) && !(err = gsp_bfs(t, 0, dist, NULL, &ecc, &reached))) {
            if (reached < t->n) err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not connected", t->spec);
            else err = symmetric(t, m, rounds, &e, dist, ans, out);
        }
        gsp_free(dist);
    } else
        err = explicit_form(t, m, rounds, &e, ans, out);
    if (st) {
        st->vars = e.nvars;
        st->clauses = e.nclauses;
        st->seconds = now() - t0;
    }
    ccadical_release(e.s);
    return err;
}

gsp_err_t gsp_sat_allgather(const gsp_topo_t *t, const gsp_model_t *m, int64_t rounds, gsp_sat_form_t form, double seconds,
                            gsp_progress_fn progress, void *progress_ctx, gsp_sat_answer_t *ans, gsp_sched_t *out, gsp_sat_stats_t *st) {
    double t0 = now();
    return sat_until(t, m, rounds, form, seconds > 0 ? t0 + seconds : 0, t0, progress, progress_ctx, ans, out, st);
}

void gsp__sat_search_begin(gsp__sat_search_t *s, double seconds, gsp_progress_fn progress, void *progress_ctx) {
    s->started = now();
    s->seconds = seconds;
    s->deadline = seconds > 0 ? s->started + seconds : 0;
    s->progress = progress;
    s->progress_ctx = progress_ctx;
}

gsp_err_t gsp__sat_search_solve(gsp__sat_search_t *s, const gsp_topo_t *t, const gsp_model_t *m, int64_t rounds, gsp_sat_form_t form,
                                gsp_sat_answer_t *ans, gsp_sched_t *out, gsp_sat_stats_t *st) {
    if (s->deadline > 0 && now() >= s->deadline) {
        /* The search's time is spent: no answer, as a solve that ran out would give. */
        memset(out, 0, sizeof *out);
        if (st) memset(st, 0, sizeof *st);
        *ans = GSP_SAT_UNKNOWN;
        return GSP_OK;
    }
    return sat_until(t, m, rounds, form, s->deadline, s->started, s->progress, s->progress_ctx, ans, out, st);
}

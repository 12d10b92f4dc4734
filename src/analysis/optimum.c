/* SPDX-License-Identifier: GPL-3.0-or-later */
/* optimum.c — the throughput optimum of a fabric (docs/fabrics.md, "The optimum and why"):
 * allgather's lambda* = min over S (S n C != {}, C not in S) of cap(out(S)) / |S n C| by
 * Dinkelbach's iteration on minimum cuts, reduce-scatter as allgather on the reversed fabric,
 * allreduce from the two, broadcast as the smallest root-to-node maximum flow.
 *
 * The test behind allgather: add a source s with an arc of capacity lambda to every compute
 * node. A cut separating s from compute node v, with source side {s} + S, costs
 * cap(out(S)) + lambda (N - |S n C|), so "every such cut costs at least lambda N" is exactly
 * "cap(out(S)) >= lambda |S n C| for every S that misses v". Over all v this covers every S
 * that misses a compute node. With lambda = p/q the network is scaled by q to stay integral. */
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

typedef __int128 i128;

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a ? a : 1;
}

static i128 gcd128(i128 a, i128 b) {
    while (b) {
        i128 r = a % b;
        a = b;
        b = r;
    }
    return a ? a : 1;
}

/* num/den reduced into out, GSP_ERR_OVERFLOW when it does not fit 63 bits. */
static gsp_err_t set_ratio(gsp_optimum_t *out, i128 num, i128 den) {
    if (num == 0) den = 1;
    i128 g = gcd128(num, den);
    num /= g;
    den /= g;
    if (num > INT64_MAX || den > INT64_MAX)
        return gsp_error(GSP_ERR_OVERFLOW, "the optimum's fraction does not fit 64 bits (capacities too fine or too large)");
    out->num = (int64_t)num;
    out->den = (int64_t)den;
    out->value = (double)num / (double)den;
    return GSP_OK;
}

static bool compute(const gsp_topo_t *t, int64_t x) { return !t->is_switch || !t->is_switch[x]; }
static int64_t capof(const gsp_topo_t *t, int64_t a) { return t->cap ? t->cap[a] : 1; }

/* The vertices with side[x] set (x < n), as an owned ascending array. */
static gsp_err_t take_set(const uint8_t *side, int64_t n, int64_t **set, int64_t *len) {
    int64_t k = 0;
    for (int64_t x = 0; x < n; x++) k += side[x] != 0;
    gsp_err_t err = gsp_alloc_array((void **)set, k + 1, sizeof **set, false);
    if (err) return err;
    k = 0;
    for (int64_t x = 0; x < n; x++)
        if (side[x]) (*set)[k++] = x;
    *len = k;
    return GSP_OK;
}

/* Sum of capacities (scaled integers) with a bound check: every flow value the optimum meets is
 * at most 2 N sum, which must stay below 2^62. */
static gsp_err_t check_sums(const gsp_topo_t *t, int64_t N, i128 *sum) {
    i128 s = 0;
    for (int64_t a = 0; a < t->m; a++) s += capof(t, a);
    *sum = s;
    if (s * 2 * (N + 1) >= ((i128)1 << 62))
        return gsp_error(GSP_ERR_OVERFLOW, "%s: the capacities' sum times the %lld compute nodes leaves 62 bits", t->spec, (long long)N);
    return GSP_OK;
}

/* Allgather's lambda* = p/q on t, reversed (reduce-scatter) when rev: the binding S in side
 * (n entries). N >= 2. */
static gsp_err_t allgather_ratio(const gsp_topo_t *t, bool rev, int64_t N, int64_t *p_out, int64_t *q_out, uint8_t *side,
                                 int64_t *flows) {
    gsp_err_t err;
    int64_t n = t->n, s = n;
    gsp__flow_t f = {0};
    int64_t *outc = NULL, *inc = NULL, *sid = NULL;
    i128 sum;
    uint8_t *cut = NULL;
    if ((err = check_sums(t, N, &sum))) return err;
    if ((err = gsp_alloc_array((void **)&outc, n, sizeof *outc, true)) || (err = gsp_alloc_array((void **)&inc, n, sizeof *inc, true)) ||
        (err = gsp_alloc_array((void **)&sid, n, sizeof *sid, false)) || (err = gsp_alloc_array((void **)&cut, n + 1, 1, false)) ||
        (err = gsp__flow_init(&f, n + 1, t->m + N)))
        goto done;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t y = t->adj[a], u = rev ? y : x, v = rev ? x : y;
            outc[u] += capof(t, a);
            inc[v] += capof(t, a);
            if ((err = gsp__flow_add(&f, u, v, 0, 0, NULL))) goto done;
        }
    for (int64_t x = 0; x < n; x++)
        if (compute(t, x) && (err = gsp__flow_add(&f, s, x, 0, 0, &sid[x]))) goto done;
    if ((err = gsp__flow_seal(&f))) goto done;
    /* A first ratio from the 2N cuts {v} and V - {v}; side holds its set. */
    int64_t p = -1, q = 1, first = -1;
    for (int64_t x = 0; x < n; x++) {
        if (!compute(t, x)) continue;
        if (first < 0) first = x;
        if (p < 0 || (i128)outc[x] * q < (i128)p * 1) {
            p = outc[x], q = 1;
            memset(side, 0, (size_t)n);
            side[x] = 1;
        }
        if ((i128)inc[x] * q < (i128)p * (N - 1)) {
            p = inc[x], q = N - 1;
            memset(side, 1, (size_t)n);
            side[x] = 0;
        }
    }
    /* Sequential Dinkelbach: a compute node v stays checked once cap(out(S)) >= lambda |S n C|
     * holds for every S missing v (lambda only decreases, so it keeps holding). A violated cut
     * gives a strictly smaller ratio; v is checked again with it. */
    int64_t scaled_q = -1;
    for (int64_t v = 0; v < n && p > 0; v++) {
        if (!compute(t, v)) continue;
        for (;;) {
            if (scaled_q != q) { /* capacities c q on the fabric, p on the source's arcs */
                int64_t k = 0;
                for (int64_t x = 0; x < n; x++)
                    for (int64_t a = t->off[x]; a < t->off[x + 1]; a++, k += 2) gsp__flow_set_cap(&f, k, capof(t, a) * q);
                scaled_q = q;
            }
            for (int64_t x = 0; x < n; x++)
                if (compute(t, x)) gsp__flow_set_cap(&f, sid[x], p);
            int64_t target = p * N;
            int64_t got = gsp__flow_max(&f, s, v, target);
            (*flows)++;
            if (got >= target) break;
            gsp__flow_source_side(&f, s, cut);
            int64_t cs = 0, k = 0;
            for (int64_t x = 0; x < n; x++) {
                if (!cut[x]) continue;
                k += compute(t, x);
                for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                    int64_t y = t->adj[a];
                    if (!rev && !cut[y]) cs += capof(t, a);
                }
            }
            if (rev) /* arcs y -> x of the fabric are x -> y of the reversed one */
                for (int64_t y = 0; y < n; y++)
                    for (int64_t a = t->off[y]; a < t->off[y + 1]; a++)
                        if (cut[t->adj[a]] && !cut[y]) cs += capof(t, a);
            if (k < 1 || cut[v] || (i128)cs * q >= (i128)p * k) {
                err = gsp_error(GSP_ERR_INTERNAL, "optimum: a cut below lambda N that is not violated (k %lld)", (long long)k);
                goto done;
            }
            int64_t g = gcd64(cs, k);
            p = cs / g;
            q = k / g;
            memcpy(side, cut, (size_t)n);
        }
    }
    (void)first;
    *p_out = p;
    *q_out = q;
done:
    gsp__flow_destroy(&f);
    gsp_free(outc);
    gsp_free(inc);
    gsp_free(sid);
    gsp_free(cut);
    return err;
}

/* Allgather (or reduce-scatter when rev) into out. */
static gsp_err_t allgather(const gsp_topo_t *t, bool rev, gsp_optimum_t *out) {
    int64_t N = gsp_topo_compute_count(t), p = 0, q = 1;
    uint8_t *side = NULL;
    gsp_err_t err = gsp_alloc_array((void **)&side, t->n + 1, 1, true);
    if (err) return err;
    if (N < 2) goto done;
    if ((err = allgather_ratio(t, rev, N, &p, &q, side, &out->flows))) goto done;
    out->defined = true;
    /* algbw = M / T* with T* = (M / N) q / (p / scale): N p / (q scale). */
    if ((err = set_ratio(out, (i128)N * p, (i128)q * (t->cap_scale > 0 ? t->cap_scale : 1)))) goto done;
    err = take_set(side, t->n, &out->cut, &out->cut_len);
done:
    gsp_free(side);
    return err;
}

static gsp_err_t broadcast(const gsp_topo_t *t, int64_t root, gsp_optimum_t *out) {
    gsp_err_t err;
    int64_t n = t->n, N = gsp_topo_compute_count(t);
    gsp__flow_t f = {0};
    uint8_t *side = NULL;
    i128 sum;
    if (root < 0 || root >= n || !compute(t, root)) {
        char b[24];
        return gsp_error(GSP_ERR_RANGE, "%s: the broadcast root %s is not a compute node", t->spec,
                         root >= 0 && root < n ? gsp_topo_node_name(t, root, b) : "(outside the fabric)");
    }
    out->root = root;
    if (N < 2) return GSP_OK;
    if ((err = check_sums(t, 1, &sum)) || (err = gsp_alloc_array((void **)&side, n + 1, 1, true)) || (err = gsp__flow_init(&f, n, t->m)))
        goto done;
    int64_t best = 0;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
            if ((err = gsp__flow_add(&f, x, t->adj[a], capof(t, a), 0, NULL))) goto done;
    if ((err = gsp__flow_seal(&f))) goto done;
    for (int64_t a = t->off[root]; a < t->off[root + 1]; a++) best += capof(t, a);
    side[root] = 1; /* the cut {root} */
    for (int64_t v = 0; v < n; v++) {
        if (v == root || !compute(t, v)) continue;
        int64_t got = gsp__flow_max(&f, root, v, best);
        out->flows++;
        if (got < best) {
            best = got;
            gsp__flow_source_side(&f, root, side);
        }
    }
    out->defined = true;
    if ((err = set_ratio(out, best, t->cap_scale > 0 ? t->cap_scale : 1))) goto done;
    err = take_set(side, n, &out->cut, &out->cut_len);
done:
    gsp__flow_destroy(&f);
    gsp_free(side);
    return err;
}

gsp_err_t gsp_optimum(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_optimum_t *out) {
    gsp_err_t err = GSP_OK;
    memset(out, 0, sizeof *out);
    out->collective = c;
    out->root = -1;
    out->den = 1;
    switch (c) {
    case GSP_COLL_ALLGATHER: err = allgather(t, false, out); break;
    case GSP_COLL_REDUCE_SCATTER: err = allgather(t, true, out); break;
    case GSP_COLL_BROADCAST: err = broadcast(t, root, out); break;
    case GSP_COLL_ALLREDUCE: {
        /* Reduce-scatter then allgather: T = T_rs + T_ag, so 1/algbw = 1/rs + 1/ag. */
        gsp_optimum_t ag, rs;
        if ((err = gsp_optimum(t, GSP_COLL_ALLGATHER, -1, &ag))) return err;
        if ((err = gsp_optimum(t, GSP_COLL_REDUCE_SCATTER, -1, &rs))) {
            gsp_optimum_destroy(&ag);
            return err;
        }
        out->defined = ag.defined;
        out->flows = ag.flows + rs.flows;
        if (ag.defined) {
            i128 an = ag.num, ad = ag.den, bn = rs.num, bd = rs.den;
            err = an == 0 || bn == 0 ? set_ratio(out, 0, 1) : set_ratio(out, an * bn, an * bd + bn * ad);
        }
        out->cut = ag.cut, out->cut_len = ag.cut_len;
        out->cut2 = rs.cut, out->cut2_len = rs.cut_len;
        break;
    }
    default: return gsp_error(GSP_ERR_NOTAPPLIC, "optimum: %s has no throughput optimum here", gsp_collective_name(c));
    }
    if (err) gsp_optimum_destroy(out);
    return err;
}

void gsp_optimum_destroy(gsp_optimum_t *o) {
    if (!o) return;
    gsp_free(o->cut);
    gsp_free(o->cut2);
    o->cut = o->cut2 = NULL;
    o->cut_len = o->cut2_len = 0;
}

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

typedef gsp__i128 i128;



/* num/den reduced into out, GSP_ERR_OVERFLOW when it does not fit 63 bits. */
static gsp_err_t set_ratio(gsp_optimum_t *out, i128 num, i128 den) {
    if (num == 0) den = 1;
    i128 g = gsp__gcd128(num, den);
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

/* The compute nodes in BFS order from `first` over the arcs taken both ways, so that each is
 * near those before it (the merged sources of the sequence of cuts); unreachable ones last.
 * order [out] gets N entries. */
static gsp_err_t compute_order(const gsp_topo_t *t, int64_t first, int64_t *order) {
    int64_t n = t->n, *ioff = NULL, *iadj = NULL, *queue = NULL, k = 0;
    uint8_t *seen = NULL;
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)&ioff, n + 2, sizeof *ioff, true)) || (err = gsp_alloc_array((void **)&iadj, t->m + 1, sizeof *iadj, false)) ||
        (err = gsp_alloc_array((void **)&queue, n + 1, sizeof *queue, false)) || (err = gsp_alloc_array((void **)&seen, n + 1, 1, true)))
        goto done;
    for (int64_t a = 0; a < t->m; a++) ioff[t->adj[a] + 2]++;
    for (int64_t x = 0; x < n; x++) ioff[x + 2] += ioff[x + 1];
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) iadj[ioff[t->adj[a] + 1]++] = x;
    for (int64_t start = first, tries = 0; tries <= n; tries++, start = (start + 1) % n) {
        if (seen[start]) continue;
        int64_t head = 0, tail = 0;
        seen[start] = 1;
        queue[tail++] = start;
        while (head < tail) {
            int64_t x = queue[head++];
            if (compute(t, x)) order[k++] = x;
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
                if (!seen[t->adj[a]]) seen[t->adj[a]] = 1, queue[tail++] = t->adj[a];
            for (int64_t b = ioff[x]; b < ioff[x + 1]; b++)
                if (!seen[iadj[b]]) seen[iadj[b]] = 1, queue[tail++] = iadj[b];
        }
    }
done:
    gsp_free(ioff);
    gsp_free(iadj);
    gsp_free(queue);
    gsp_free(seen);
    return err;
}

/* Capacity of a merged source's arc: beyond any flow the optimum asks for (< 2^62). */
#define FLOW_INF ((int64_t)1 << 62)

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
    /* Sequential Dinkelbach over the sequence of cuts of Hao and Orlin: the compute nodes in an
     * order v1, v2, ...; sink vi with v1..v(i-1) merged into the source (arcs of capacity
     * FLOW_INF). Every S that misses a compute node is checked at the first vi it misses. A
     * node stays checked once cap(out(S)) >= lambda |S n C| holds for its sets (lambda only
     * decreases, so it keeps holding); a violated cut gives a strictly smaller ratio and the
     * node is checked again with it. On a Cayley graph (every vertex a compute node, capacities
     * by generator) the right translations x -> x g are automorphisms that keep capacities and
     * take any vertex to any other: one sink stands for all. */
    int64_t *order = NULL, scaled_q = -1, nsinks = N;
    if ((err = gsp_alloc_array((void **)&order, N + 1, sizeof *order, false)) || (err = compute_order(t, first, order))) {
        gsp_free(order);
        goto done;
    }
    if (t->group && !t->is_switch) nsinks = 1;
    for (int64_t i = 0; i < nsinks && p > 0; i++) {
        int64_t v = order[i];
        for (;;) {
            if (scaled_q != q) { /* capacities c q on the fabric, p on the source's arcs */
                int64_t k = 0;
                for (int64_t x = 0; x < n; x++)
                    for (int64_t a = t->off[x]; a < t->off[x + 1]; a++, k += 2) gsp__flow_set_cap(&f, k, capof(t, a) * q);
                scaled_q = q;
            }
            for (int64_t j = i; j < N; j++) gsp__flow_set_cap(&f, sid[order[j]], p);
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
                gsp_free(order);
                goto done;
            }
            int64_t g = gsp__gcd64(cs, k);
            p = cs / g;
            q = k / g;
            memcpy(side, cut, (size_t)n);
        }
        gsp__flow_set_cap(&f, sid[v], FLOW_INF); /* v joins the source */
    }
    gsp_free(order);
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
    if ((err = check_sums(t, 1, &sum)) || (err = gsp_alloc_array((void **)&side, n + 1, 1, true)) || (err = gsp__flow_init(&f, n, t->m + N)))
        goto done;
    /* The sequence of cuts again: sink vi with v1..v(i-1) merged into the root. */
    int64_t best = 0, *order = NULL, *rid = NULL;
    if ((err = gsp_alloc_array((void **)&order, N + 1, sizeof *order, false)) || (err = gsp_alloc_array((void **)&rid, n, sizeof *rid, false)) ||
        (err = compute_order(t, root, order)))
        goto bdone;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
            if ((err = gsp__flow_add(&f, x, t->adj[a], capof(t, a), 0, NULL))) goto bdone;
    for (int64_t i = 0; i < N; i++)
        if (order[i] != root && (err = gsp__flow_add(&f, root, order[i], 0, 0, &rid[order[i]]))) goto bdone;
    if ((err = gsp__flow_seal(&f))) goto bdone;
    for (int64_t a = t->off[root]; a < t->off[root + 1]; a++) best += capof(t, a);
    side[root] = 1; /* the cut {root} */
    for (int64_t i = 0; i < N; i++) {
        int64_t v = order[i];
        if (v == root) continue;
        int64_t got = gsp__flow_max(&f, root, v, best);
        out->flows++;
        if (got < best) {
            best = got;
            gsp__flow_source_side(&f, root, side);
        }
        gsp__flow_set_cap(&f, rid[v], FLOW_INF);
    }
bdone:
    gsp_free(order);
    gsp_free(rid);
    if (err) goto done;
    out->defined = true;
    if ((err = set_ratio(out, best, t->cap_scale > 0 ? t->cap_scale : 1))) goto done;
    err = take_set(side, n, &out->cut, &out->cut_len);
done:
    gsp__flow_destroy(&f);
    gsp_free(side);
    return err;
}

/* Allreduce from its phases: reduce-scatter then allgather, T = T_rs + T_ag, so
 * 1/algbw = 1/rs + 1/ag. The cuts are copied. */
static gsp_err_t combine(const gsp_optimum_t *ag, const gsp_optimum_t *rs, gsp_optimum_t *out) {
    gsp_err_t err = GSP_OK;
    memset(out, 0, sizeof *out);
    out->collective = GSP_COLL_ALLREDUCE;
    out->root = -1;
    out->den = 1;
    out->defined = ag->defined;
    out->flows = ag->flows + rs->flows;
    if (!ag->defined) return GSP_OK;
    i128 an = ag->num, ad = ag->den, bn = rs->num, bd = rs->den;
    if ((err = an == 0 || bn == 0 ? set_ratio(out, 0, 1) : set_ratio(out, an * bn, an * bd + bn * ad))) return err;
    if ((err = gsp_alloc_array((void **)&out->cut, ag->cut_len + 1, sizeof *out->cut, false)) ||
        (err = gsp_alloc_array((void **)&out->cut2, rs->cut_len + 1, sizeof *out->cut2, false))) {
        gsp_optimum_destroy(out);
        return err;
    }
    memcpy(out->cut, ag->cut, (size_t)ag->cut_len * sizeof *out->cut);
    memcpy(out->cut2, rs->cut, (size_t)rs->cut_len * sizeof *out->cut2);
    out->cut_len = ag->cut_len;
    out->cut2_len = rs->cut_len;
    return GSP_OK;
}

gsp_err_t gsp_optimum_all(const gsp_topo_t *t, int64_t root, gsp_optimum_t out[4]) {
    gsp_err_t err;
    memset(out, 0, 4 * sizeof *out);
    if ((err = gsp_optimum(t, GSP_COLL_ALLGATHER, -1, &out[0])) || (err = gsp_optimum(t, GSP_COLL_REDUCE_SCATTER, -1, &out[1])) ||
        (err = combine(&out[0], &out[1], &out[2])) || (err = gsp_optimum(t, GSP_COLL_BROADCAST, root, &out[3]))) {
        for (int i = 0; i < 4; i++) gsp_optimum_destroy(&out[i]);
        return err;
    }
    return GSP_OK;
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
        gsp_optimum_t ag, rs;
        if ((err = gsp_optimum(t, GSP_COLL_ALLGATHER, -1, &ag))) return err;
        if ((err = gsp_optimum(t, GSP_COLL_REDUCE_SCATTER, -1, &rs))) {
            gsp_optimum_destroy(&ag);
            return err;
        }
        err = combine(&ag, &rs, out);
        gsp_optimum_destroy(&ag);
        gsp_optimum_destroy(&rs);
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

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_rotation.c — optimal gossip with p packets per arc from a complete rotation
 * (Bermond, Kodate, Pérennes: Lemma 14, Lemma 17, Examples 7–8).
 *
 * Applies to Cayley graphs with a complete rotation w (found by gsp_rotation_find): tori
 * TM(p)^k, hypercubes, star graphs, G(2D^2+2D+1; D, D+1), user-given cayley:/perm: graphs.
 * S_t grows by whole w-orbits {w^j(x)}: if x = s_i y with y in S_t, then w^j(x) = s_{i+j} w^j(y)
 * and S_t is w-invariant, so one orbit uses every generator exactly once (Lemma 14). Up to p
 * orbits per round. The fixed points F_w (orbits shorter than d) and anything w-orbits cannot
 * reach are added afterwards — or in spare slots of the last orbit rounds — by a maximum
 * matching of generators to elements (Lemma 17's completion).
 * Rounds: ceil((N - 1) / d) when p = 1 and F_w is independent and does not separate G
 * (Lemma 17), which meets Prop. 7's bound. Example: torus:6x6 (F_w = {(3,0),(0,3),(3,3)}):
 * 8 rounds of one orbit (32 elements) and one round for the 3 fixed points: 9 = ceil(35/4). */
#include <stdlib.h>
#include <string.h>

#include "algo_int.h"

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    gsp_rotation_t r;
    if (gsp_rotation_find(in->topo, 0, &r)) {
        snprintf(why, n, "%s", gsp_errmsg());
        return false;
    }
    bool found = r.found;
    gsp_rotation_destroy(&r);
    if (!found) snprintf(why, n, "no complete rotation%s", r.exhaustive ? "" : " found (search cut short)");
    return found;
}

/* Is F independent, and does G \ F stay connected from e? Then Lemma 17 promises the bound. */
static bool lemma17(const gsp_topo_t *t, const unsigned char *fixed) {
    int d = t->ngens;
    int64_t n = t->n, reached = 0, nf = 0;
    for (int64_t x = 0; x < n; x++) {
        if (!fixed[x]) continue;
        nf++;
        for (int i = 0; i < d; i++)
            if (fixed[t->adj[x * d + i]]) return false;
    }
    unsigned char *seen = gsp_calloc((size_t)n, 1);
    int64_t *q = gsp_malloc(sizeof *q * (size_t)n);
    if (!seen || !q) {
        gsp_free(seen);
        gsp_free(q);
        return false;
    }
    int64_t head = 0, tail = 0;
    q[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        int64_t x = q[head++];
        reached++;
        for (int i = 0; i < d; i++) {
            int64_t y = t->adj[x * d + i];
            if (!seen[y] && !fixed[y]) {
                seen[y] = 1;
                q[tail++] = y;
            }
        }
    }
    gsp_free(seen);
    gsp_free(q);
    return reached + nf == n;
}

/* Marks x != e whose w-orbit is shorter than d. */
static void mark_fixed(const gsp_rotation_t *r, int64_t n, unsigned char *fixed) {
    for (int64_t x = 1; x < n; x++) {
        int64_t y = x;
        fixed[x] = 0;
        for (int j = 1; j < r->d; j++) {
            y = r->omega[y];
            if (y == x) {
                fixed[x] = 1;
                break;
            }
        }
    }
}

static int64_t rounds(const gsp_plan_in_t *in) {
    const gsp_topo_t *t = in->topo;
    if (gsp__packets(in) != 1) return -1;
    gsp_rotation_t r;
    if (gsp_rotation_find(t, 0, &r) || !r.found) return -1;
    unsigned char *fixed = gsp_calloc((size_t)t->n, 1);
    int64_t v = -1;
    if (fixed) {
        mark_fixed(&r, t->n, fixed);
        if (lemma17(t, fixed)) v = gsp_ceil_div(t->n - 1, t->ngens);
    }
    gsp_free(fixed);
    gsp_rotation_destroy(&r);
    return v;
}

typedef struct {
    int64_t x;
    int i;
} qitem_t;

static int cmp_key(const void *p, const void *q) {
    const int64_t *a = p, *b = q;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* Candidates for the matching: elements outside S with a predecessor in S, hardest first
 * (fewest generators reach them). rest lists the elements the orbits will not add. */
static gsp_err_t fill(gsp__bal_t *b, const int64_t *rest, int64_t nrest) {
    gsp_err_t err;
    int64_t (*key)[2] = NULL, *cand = NULL, nc = 0, picked;
    if ((err = gsp_alloc_array((void **)&key, nrest ? nrest : 1, sizeof *key, false)) ||
        (err = gsp_alloc_array((void **)&cand, nrest ? nrest : 1, sizeof *cand, false)))
        goto done;
    for (int64_t k = 0; k < nrest; k++) {
        int64_t y = rest[k], c = 0;
        if (b->in[y] || b->taken[y]) continue;
        for (int i = 0; i < b->d; i++) c += b->in[gsp__bal_pred(b, y, i)];
        if (c == 0) continue;
        key[nc][0] = c;
        key[nc][1] = y;
        nc++;
    }
    qsort(key, (size_t)nc, sizeof *key, cmp_key);
    for (int64_t k = 0; k < nc; k++) cand[k] = key[k][1];
    err = gsp__bal_match(b, cand, nc, &picked);
done:
    gsp_free(key);
    gsp_free(cand);
    return err;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, p = gsp__packets(in), *rest = NULL, nrest = 0, *fx = NULL, nfx = 0;
    int d = t->ngens, *pos = NULL;
    unsigned char *fixed = NULL, *inv_ok = NULL;
    qitem_t *q = NULL;
    int64_t qhead = 0, qtail = 0;
    gsp_rotation_t r = {0};
    gsp__bal_t b;
    memset(&b, 0, sizeof b);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &in->model, -1, "rotation"))) return err;
    if ((err = gsp_rotation_find(t, 0, &r))) goto done;
    if (!r.found) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: no complete rotation", t->spec);
        goto done;
    }
    if ((err = gsp_alloc_array((void **)&fixed, n, 1, true)) || (err = gsp_alloc_array((void **)&inv_ok, n, 1, true)) ||
        (err = gsp_alloc_array((void **)&pos, d, sizeof *pos, false)) ||
        (err = gsp_alloc_array((void **)&q, n * d + d, sizeof *q, false)) ||
        (err = gsp__bal_init(&b, t, p, out)))
        goto done;
    mark_fixed(&r, n, fixed);
    if ((err = gsp_alloc_array((void **)&fx, n, sizeof *fx, false))) goto done;
    for (int64_t x = 1; x < n; x++)
        if (fixed[x]) fx[nfx++] = x;
    for (int j = 0; j < d; j++) pos[r.order[j]] = j;
    inv_ok[0] = 1;
    for (int i = 0; i < d; i++) q[qtail++] = (qitem_t){t->adj[i], i};
    while (b.members < n) {
        int64_t orbits = 0;
        while (orbits < p && qhead < qtail) {
            qitem_t it = q[qhead++];
            if (b.in[it.x] || b.taken[it.x] || fixed[it.x]) continue;
            int64_t x = it.x;
            for (int j = 0; j < d; j++) {
                gsp__bal_pick(&b, x, r.order[(pos[it.i] + j) % d]);
                x = r.omega[x];
            }
            orbits++;
        }
        if (orbits < p) {
            /* Spare slots: the fixed points while orbits remain; once no orbit can be added,
             * everything left (fixed points and what w-orbits cannot reach). */
            if (orbits == 0 && qhead >= qtail) {
                if (!rest) {
                    if ((err = gsp_alloc_array((void **)&rest, n, sizeof *rest, false))) goto done;
                    for (int64_t x = 1; x < n; x++)
                        if (!b.in[x]) rest[nrest++] = x;
                }
                if ((err = fill(&b, rest, nrest))) goto done;
            } else if ((err = fill(&b, fx, nfx))) {
                goto done;
            }
        }
        if (b.npicks == 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "rotation: stuck after %lld rounds on %s", (long long)b.round, t->spec);
            goto done;
        }
        /* Orbit elements become predecessors for the next rounds' orbits. */
        for (int64_t k = 0; k < b.npicks; k++) {
            int64_t y = b.picks[k].y;
            if (fixed[y]) continue;
            inv_ok[y] = 1;
        }
        for (int64_t k = 0; k < b.npicks; k++) {
            int64_t y = b.picks[k].y;
            if (!inv_ok[y]) continue;
            for (int i = 0; i < d; i++) {
                int64_t z = t->adj[y * d + i];
                if (!b.in[z] && !fixed[z]) q[qtail++] = (qitem_t){z, i};
            }
        }
        if ((err = gsp__bal_commit(&b))) goto done;
        if (in->progress && (b.round & 1023) == 0) in->progress(in->progress_ctx, "rotation", (double)b.members / n);
    }
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp__bal_destroy(&b);
    gsp_rotation_destroy(&r);
    gsp_free(fixed);
    gsp_free(inv_ok);
    gsp_free(pos);
    gsp_free(q);
    gsp_free(rest);
    gsp_free(fx);
    return err;
}

const gsp_method_t gsp__method_allgather_rotation = {
    "rotation", GSP_COLL_ALLGATHER, "Cayley graphs with a complete rotation (tori TM(p)^k, hypercubes, star graphs, ...)",
    "packet-gossip paper, Lemma 14 and Lemma 17", applies, rounds, build, false, NULL, false, NULL, .needs = {.cayley = true, .packets = GSP_NEED_PACKETS_FINITE, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true}};

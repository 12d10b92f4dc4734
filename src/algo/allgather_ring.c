/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_ring.c — gossip around a Hamiltonian cycle: every round every node passes on to
 * its successor the packets its successor lacks (the oldest first), up to p.
 *
 * Every node sends on one arc and receives on one, and every edge of the cycle is used one way:
 * the schedule is valid under one port and half duplex alike. With p = 1 it takes N - 1
 * rounds, the one-port bound ceil((N-1)/p): optimal on every graph with a Hamiltonian cycle
 * (tori, hypercubes, complete graphs, circulants, star graphs). The cycle: the reflected Gray
 * code on a hypercube, else a depth-first search with Warnsdorff's rule (fewest onward
 * choices first) under a step budget; when none is found the method says so (the Petersen
 * graph has none). Applies with finite p, one port or half duplex, N <= 2048. */
#include <stdlib.h>
#include <string.h>

#include "algo_int.h"

#define RING_MAX 2048
#define STEP_BUDGET 2000000

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

/* A hypercube given by its spec: Z_2^k with the unit vectors as generators. */
static bool is_hypercube(const gsp_topo_t *t) {
    const gsp_group_t *g = t->group;
    if (!g || g->kind != GSP_GROUP_ABELIAN || t->ngens != g->k) return false;
    for (int j = 0; j < g->k; j++)
        if (g->mod[j] != 2) return false;
    for (int i = 0; i < t->ngens; i++)
        if (__builtin_popcountll((unsigned long long)t->gens[i]) != 1) return false;
    return true;
}

typedef struct {
    const gsp_topo_t *t;
    int64_t *path, *pos; /* pos[v]: index in path, or -1 */
    int64_t len, steps;
} ham_t;

static int64_t onward(const ham_t *h, int64_t v) {
    int64_t c = 0;
    for (int64_t a = h->t->off[v]; a < h->t->off[v + 1]; a++) c += h->pos[h->t->adj[a]] < 0;
    return c;
}

static bool extend(ham_t *h) {
    const gsp_topo_t *t = h->t;
    int64_t n = t->n, v = h->path[h->len - 1];
    if (++h->steps > STEP_BUDGET) return false;
    if (h->len == n) return gsp_topo_arc_index(t, v, h->path[0]) >= 0;
    /* Candidates by Warnsdorff's rule. */
    /* Small frames: the recursion is up to N deep (at most 32 candidates are ranked). */
    int32_t cand[32], key[32], nc = 0;
    for (int64_t a = t->off[v]; a < t->off[v + 1] && nc < 32; a++) {
        int64_t y = t->adj[a];
        if (h->pos[y] >= 0) continue;
        int32_t k = (int32_t)onward(h, y), i = nc++;
        while (i > 0 && key[i - 1] > k) cand[i] = cand[i - 1], key[i] = key[i - 1], i--;
        cand[i] = (int32_t)y, key[i] = k;
    }
    for (int32_t i = 0; i < nc; i++) {
        int64_t y = cand[i];
        h->pos[y] = h->len;
        h->path[h->len++] = y;
        if (extend(h)) return true;
        h->pos[y] = -1;
        h->len--;
        if (h->steps > STEP_BUDGET) return false;
    }
    return false;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, W = (int64_t)GSP_WORDS(n), p = gsp__packets(in), *next = NULL;
    ham_t h = {t, NULL, NULL, 0, 0};
    gsp_word_t *held = NULL;
    int64_t *age = NULL; /* per node: origins in the order received (a queue), and its head */
    int64_t *head = NULL, *tail = NULL;
    if ((err = gsp_alloc_array((void **)&h.path, n, sizeof *h.path, false)) ||
        (err = gsp_alloc_array((void **)&h.pos, n, sizeof *h.pos, false)) ||
        (err = gsp_alloc_array((void **)&next, n, sizeof *next, false)))
        goto done;
    if (is_hypercube(t)) {
        for (int64_t i = 0; i < n; i++) {
            uint64_t gray = (uint64_t)i ^ ((uint64_t)i >> 1);
            /* Bit j of the Gray code is coordinate j: node index = sum of the generators set. */
            int64_t v = 0;
            for (int j = 0; j < t->ngens; j++)
                if (gray >> j & 1) v |= t->gens[j];
            h.path[i] = v;
        }
        h.len = n;
    } else {
        /* Warnsdorff on the (directed) arcs; deep recursion is bounded by N <= RING_MAX. */
        for (int64_t v = 0; v < n; v++) h.pos[v] = -1;
        h.path[0] = 0;
        h.pos[0] = 0;
        h.len = 1;
        if (!extend(&h)) {
            err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: no Hamiltonian cycle found (%s)", t->spec,
                            h.steps > STEP_BUDGET ? "search budget spent" : "none exists");
            goto done;
        }
    }
    for (int64_t i = 0; i < n; i++) next[h.path[i]] = h.path[(i + 1) % n];
    for (int64_t v = 0; v < n; v++)
        if (gsp_topo_arc_index(t, v, next[v]) < 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "%s: the cycle uses a missing arc", t->spec);
            goto done;
        }
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &in->model, -1, "ring"))) goto done;
    if ((err = gsp_alloc_array((void **)&held, n * W, sizeof *held, true)) ||
        (err = gsp_alloc_array((void **)&age, n * n, sizeof *age, false)) ||
        (err = gsp_alloc_array((void **)&head, n, sizeof *head, true)) ||
        (err = gsp_alloc_array((void **)&tail, n, sizeof *tail, false)))
        goto fail;
    for (int64_t v = 0; v < n; v++) {
        gsp_bit_set(held + v * W, v);
        age[v * n] = v;
        tail[v] = 1;
    }
    /* The successor lacks exactly what v got before it, in order: send the oldest p. */
    int64_t *sent = head; /* per node: how many of its queue it has passed on */
    for (int64_t done_n = 0; done_n < n;) {
        if ((err = gsp_sched_round(out))) goto fail;
        int64_t b0 = out->nsends;
        for (int64_t v = 0; v < n; v++) {
            int64_t w = next[v];
            for (int64_t k = 0; k < p && sent[v] < tail[v]; k++) {
                int64_t x = age[v * n + sent[v]++];
                if (x == w) continue; /* its own packet came round: nothing to send */
                if ((err = gsp_sched_send(out, v, w, x))) goto fail;
            }
        }
        for (int64_t k = b0; k < out->nsends; k++) {
            const gsp_send_t *s = &out->sends[k];
            gsp_bit_set(held + s->v * W, s->x);
            age[s->v * n + tail[s->v]++] = s->x;
        }
        done_n = 0;
        for (int64_t v = 0; v < n; v++) done_n += tail[v] == n;
        if (out->nsends == b0 && done_n < n) {
            err = gsp_error(GSP_ERR_INTERNAL, "ring: no progress on %s", t->spec);
            goto fail;
        }
    }
    err = gsp_sched_finish(out);
fail:
    if (err) gsp_sched_destroy(out);
done:
    gsp_free(h.path);
    gsp_free(h.pos);
    gsp_free(next);
    gsp_free(held);
    gsp_free(age);
    gsp_free(head);
    gsp_free(tail);
    return err;
}

const gsp_method_t gsp__method_allgather_ring = {
    "ring", GSP_COLL_ALLGATHER, "one port or half duplex, finite p, graphs with a Hamiltonian cycle (N <= 2048)",
    "baseline: N - 1 rounds with p = 1, the one-port bound", NULL, rounds, build, false, NULL, false, NULL, .needs = {.packets = GSP_NEED_PACKETS_FINITE, .ports = GSP_NEED_PORTS_RESTRICTED,
              .packets_why = "with p = inf use matching",
              .ports_why = "with all ports and full duplex use rotation, balanced-search or greedy",
              .min_nodes = 3, .max_nodes = RING_MAX, .size_why = "a cycle, explicit rounds"}};

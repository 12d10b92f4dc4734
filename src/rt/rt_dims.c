/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_dims.c — broadcast and reduce on tori and hypercubes, coordinate by coordinate: a flat
 * broadcast along each coordinate's ring in turn (the root's ring, then every ring of the next
 * coordinate; reduce: the reverse, each ring combined at its informed node in ring order).
 * Routes stay inside a ring, split between its two directions, so a round's messages go at most
 * floor(m/2) links and share a link by at most floor(m/2); k rounds whose hops add up to the
 * eccentricity. Open MPI's k-nomial tree is this when its radix is the side. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"

/* Whether t is a torus-like abelian Cayley graph: every coordinate's unit vector (and its
 * inverse) is a generator, so each coordinate's ring is a cycle of links. */
static bool has_dims(const gsp_topo_t *t) {
    const gsp_group_t *g = t->group;
    if (!g || g->kind != GSP_GROUP_ABELIAN || g->k < 1) return false;
    for (int j = 0; j < g->k; j++) {
        bool up = false, down = false;
        for (int i = 0; i < t->ngens; i++) {
            up |= t->gens[i] == g->stride[j];
            down |= t->gens[i] == g->stride[j] * (g->mod[j] - 1);
        }
        if (!up || !down) return false;
    }
    return true;
}

/* One flat broadcast per dimension: the root sends the vector to every node of its ring along
 * the first coordinate, each of them along the second, and so on (gather: the reverse, each
 * ring combined at its informed node in ring order). Routes stay inside a ring, split between
 * its two directions, so a round's messages go at most floor(m/2) links and share a link by
 * at most floor(m/2); the hops add up to the eccentricity, in k rounds where the tree on arcs
 * takes the eccentricity in rounds. Open MPI's k-nomial tree is this when its radix is the
 * side and the ranks are the torus's row-major order. */
static gsp_err_t add_dims(gsp_rt_algo_t *al, const gsp_topo_t *t, int64_t root, bool gather) {
    gsp_err_t err;
    const gsp_group_t *g = t->group;
    int k = g->k;
    int64_t n = t->n, *have = NULL, nhave = 1, c[GSP_MAX_DIMS];
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    gsp_sched_t fwd;
    memset(p, 0, sizeof *p);
    memset(&fwd, 0, sizeof fwd);
    p->kind = gather ? GSP_RT_REDUCE : GSP_RT_STORE;
    p->layout = GSP_RT_WHOLE;
    p->routed = true;
    p->nlinks = 2;
    for (int j = 0; j < k; j++)
        if (g->mod[j] / 2 > p->hops) p->hops = g->mod[j] / 2;
    gsp_model_t m = gsp_model_default();
    m.packets = 1;
    if ((err = gsp_alloc_array((void **)&have, n, sizeof *have, false))) return err;
    gsp_sched_t *b = gather ? &fwd : &p->sched; /* the broadcast, flipped for a gather */
    if ((err = gsp_sched_init(b, GSP_COLL_BROADCAST, t->spec, n, &m, root, "dims"))) goto done;
    have[0] = root;
    for (int j = 0; j < k && !err; j++) {
        int64_t M = g->mod[j], had = nhave;
        if ((err = gsp_sched_round(b))) break;
        for (int64_t q = 0; q < had && !err; q++) {
            gsp_group_coords(g, have[q], c);
            int64_t c0 = c[j];
            /* Farthest first: ring offsets M/2, then the pairs at decreasing distance. */
            for (int64_t h = M / 2; h >= 1 && !err; h--)
                for (int s = 0; s < 2 && !err; s++) {
                    int64_t off = s ? M - h : h;
                    if (s && off == h) continue;
                    c[j] = (c0 + off) % M;
                    int64_t v = gsp_group_index(g, c);
                    have[nhave++] = v;
                    err = gsp_sched_send(b, have[q], v, root);
                }
            c[j] = c0;
        }
    }
    if (!err) err = gsp_sched_finish(b);
    if (!err && gather) err = gsp__rt_flip(&fwd, GSP_COLL_REDUCE, &p->sched);
    p->nrounds = p->sched.nrounds;
    p->ntransfers = p->sched.nsends;
    int64_t R = k, H = p->hops + 1;
    if (!err) err = gsp__rt_routed_arrays(p, R);
    if (!err) err = gsp__rt_io_stats(p);
    for (int64_t r = 0; r < R && !err; r++) {
        int j = gather ? (int)(k - 1 - r) : (int)r;
        int64_t M = g->mod[j];
        for (int64_t h = 1; h <= M / 2; h++) {
            p->link_hist[(r * 2 + 0) * H + h]++;
            if (M - h != h) p->link_hist[(r * 2 + 1) * H + h]++;
        }
        p->maxblk[r] = M / 2;
        if (p->maxblk[r] > p->busiest) p->busiest = p->maxblk[r];
        p->maxmsg[r] = M - 1;
        p->maxred[r] = gather ? M - 1 : 0;
    }
done:
    gsp_free(have);
    gsp_sched_destroy(&fwd);
    if (err) {
        gsp__rt_phase_destroy(p);
        return err;
    }
    al->nphases++;
    return GSP_OK;
}

static bool applies(const gsp__rt_ctx_t *x) { return x->t->n > 1 && has_dims(x->t); }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    bool bc = x->coll == GSP_COLL_BROADCAST;
    snprintf(al->built_from, sizeof al->built_from, "a flat broadcast along each coordinate's ring%s", bc ? "" : ", reversed");
    return add_dims(al, x->t, x->root, !bc);
}

const gsp__rt_method_t gsp__rt_dims = {
    "dims", GSP__RT_COLL(GSP_COLL_BROADCAST) | GSP__RT_COLL(GSP_COLL_REDUCE), "tori and hypercubes",
    "k, the number of coordinates (hops: ecc)",
    "a flat broadcast along each coordinate's ring in turn (the root's ring, then every ring of the next coordinate); messages stay in a ring and split between its two directions; reduce: reversed",
    applies, add, NULL};

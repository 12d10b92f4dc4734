/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_phases.c — the phase builders the runtime's algorithms share: explicit phases with their
 * statistics, symmetric phases (a Cayley graph's allgather in compact form), translated trees,
 * pending phases (lower-bound statistics), scatters, and the schedules they start from (the p = 1
 * allgather planned once per set, the flood, a broadcast's first deliveries). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/runtime.h"
#include "rt_int.h"

void gsp__rt_phase_destroy(gsp_rt_phase_t *p) {
    gsp_sched_destroy(&p->sched);
    gsp_free(p->tparent);
    gsp_free(p->tround);
    gsp_free(p->tchild_off);
    gsp_free(p->tchild);
    gsp_free(p->maxblk);
    gsp_free(p->maxred);
    gsp_free(p->maxmsg);
    gsp_free(p->moved);
    gsp_free(p->link_hist);
    gsp_free(p->twin);
    memset(p, 0, sizeof *p);
}

gsp_err_t gsp__rt_stat_arrays(gsp_rt_phase_t *p, int64_t R) {
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)&p->maxblk, R + 1, sizeof *p->maxblk, true)) ||
        (err = gsp_alloc_array((void **)&p->maxred, R + 1, sizeof *p->maxred, true)) ||
        (err = gsp_alloc_array((void **)&p->maxmsg, R + 1, sizeof *p->maxmsg, true)) ||
        (err = gsp_alloc_array((void **)&p->moved, R + 1, sizeof *p->moved, true)))
        return err;
    return GSP_OK;
}

/* Per round: blocks moved by all nodes together — one memory's load when the ranks share a
 * node. Any phase, routed or not. */
gsp_err_t gsp__rt_io_stats(gsp_rt_phase_t *p) {
    gsp_err_t err;
    const gsp_sched_t *s = &p->sched;
    if ((err = gsp_alloc_array((void **)&p->moved, s->nrounds + 1, sizeof *p->moved, true))) return err;
    for (int64_t r = 0; r < s->nrounds; r++) p->moved[r] = s->send_off.v[r + 1] - s->send_off.v[r];
    return GSP_OK;
}

/* Per round: most blocks on an arc, messages sent or received by a node, blocks combined at a node; over
 * the phase: the busiest arc. */
gsp_err_t gsp__rt_phase_stats(gsp_rt_phase_t *p, const gsp_topo_t *t) {
    gsp_err_t err;
    const gsp_sched_t *s = &p->sched;
    int64_t R = s->nrounds, *arc_total = NULL, *arc_round = NULL, *node_round = NULL, *node_msgs = NULL, *node_rmsgs = NULL;
    if ((err = gsp_alloc_array((void **)&p->maxblk, R + 1, sizeof *p->maxblk, true)) ||
        (err = gsp_alloc_array((void **)&p->maxred, R + 1, sizeof *p->maxred, true)) ||
        (err = gsp_alloc_array((void **)&p->maxmsg, R + 1, sizeof *p->maxmsg, true)) ||
        (err = gsp_alloc_array((void **)&arc_total, t->m + 1, sizeof *arc_total, true)) ||
        (err = gsp_alloc_array((void **)&arc_round, t->m + 1, sizeof *arc_round, true)) ||
        (err = gsp_alloc_array((void **)&node_round, t->n + 1, sizeof *node_round, true)) ||
        (err = gsp_alloc_array((void **)&node_msgs, t->n + 1, sizeof *node_msgs, true)) ||
        (err = gsp_alloc_array((void **)&node_rmsgs, t->n + 1, sizeof *node_rmsgs, true)))
        goto done;
    for (int64_t r = 0; r < R; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *x = &s->sends[k];
            int64_t a = t->off[x->u] + gsp_topo_arc_index(t, x->u, x->v);
            arc_total[a]++;
            if (++arc_round[a] == 1) {
                if (++node_msgs[x->u] > p->maxmsg[r]) p->maxmsg[r] = node_msgs[x->u];
                if (++node_rmsgs[x->v] > p->maxmsg[r]) p->maxmsg[r] = node_rmsgs[x->v];
            }
            if (arc_round[a] > p->maxblk[r]) p->maxblk[r] = arc_round[a];
            if (++node_round[x->v] > p->maxred[r]) p->maxred[r] = node_round[x->v];
        }
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *x = &s->sends[k];
            arc_round[t->off[x->u] + gsp_topo_arc_index(t, x->u, x->v)] = 0;
            node_round[x->v] = 0;
            node_msgs[x->u] = node_rmsgs[x->v] = 0;
        }
        if (p->kind != GSP_RT_REDUCE) p->maxred[r] = 0;
    }
    for (int64_t a = 0; a < t->m; a++)
        if (arc_total[a] > p->busiest) p->busiest = arc_total[a];
done:
    gsp_free(arc_total);
    gsp_free(arc_round);
    gsp_free(node_round);
    gsp_free(node_msgs);
    gsp_free(node_rmsgs);
    return err;
}

/* A routed phase's statistics arrays for R rounds. */
gsp_err_t gsp__rt_routed_arrays(gsp_rt_phase_t *p, int64_t R) {
    gsp_err_t err;
    int64_t H = p->hops + 1;
    if ((err = gsp_alloc_array((void **)&p->maxblk, R + 1, sizeof *p->maxblk, true)) ||
        (err = gsp_alloc_array((void **)&p->maxred, R + 1, sizeof *p->maxred, true)) ||
        (err = gsp_alloc_array((void **)&p->maxmsg, R + 1, sizeof *p->maxmsg, true)) ||
        (err = gsp_alloc_array((void **)&p->link_hist, R * p->nlinks * H + 1, sizeof *p->link_hist, true)))
        return err;
    return GSP_OK;
}

/* An explicit schedule of first deliveries, run backwards: round r becomes R-1-r, (u, v, x)
 * becomes (v, u, x). Every node then sends its partial sum of x to its parent in x's tree. */
gsp_err_t gsp__rt_flip(const gsp_sched_t *fd, gsp_collective_t c, gsp_sched_t *out) {
    gsp_err_t err;
    if ((err = gsp_sched_init(out, c, fd->topology, fd->nodes, &fd->model, -1, fd->method))) return err;
    for (int64_t j = 0; j < fd->nrounds && !err; j++) {
        int64_t r = fd->nrounds - 1 - j;
        if ((err = gsp_sched_round(out))) break;
        for (int64_t k = fd->send_off.v[r]; k < fd->send_off.v[r + 1] && !err; k++)
            err = gsp_sched_send(out, fd->sends[k].v, fd->sends[k].u, fd->sends[k].x);
    }
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
    return err;
}

/* Plans c with method on t (model: packets p). */
gsp_err_t gsp__rt_plan(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t packets, int64_t root,
                         const char *method, gsp_plan_t *pl) {
    gsp_model_t m = gsp_model_default();
    m.packets = packets;
    gsp_plan_in_t in = {t, d, m, root, 1, NULL, NULL, 0, 0};
    return gsp_plan(&in, c, method, pl);
}

/* The first deliveries of a symmetric allgather, still symmetric: origin e's packet reaches
 * s_i g by entry (t, i, g); every origin's deliveries are e's translated, so keeping e's first
 * delivery to each node keeps every origin's. O(entries). */
gsp_err_t gsp__rt_sym_first(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
    gsp_err_t err;
    unsigned char *got = NULL;
    if ((err = gsp_sched_init(out, s->coll, s->topology, s->nodes, &s->model, s->root, s->method))) return err;
    if ((err = gsp_alloc_array((void **)&got, t->n, 1, true))) goto done;
    got[0] = 1;
    for (int64_t k = 0; k < s->nsym && !err; k++) {
        const gsp_symsend_t *y = &s->sym[k];
        int64_t to = t->adj[t->off[y->g] + y->i];
        if (got[to]) continue;
        got[to] = 1;
        err = gsp_sched_sym(out, y->t, y->i, y->g);
    }
    if (!err) err = gsp_sched_finish(out);
    if (!err) out->nrounds = s->nrounds;
done:
    gsp_free(got);
    if (err) gsp_sched_destroy(out);
    return err;
}

/* A broadcast's first deliveries: each node keeps the first transfer that reaches it (one
 * packet: O(transfers), where the general reduction keeps N^2 bits). */
gsp_err_t gsp__rt_tree_first(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
    gsp_err_t err;
    unsigned char *got = NULL;
    gsp_sched_t e;
    const gsp_sched_t *x = s;
    memset(&e, 0, sizeof e);
    if (s->symmetric) {
        if ((err = gsp_sched_expand(s, t, &e))) return err;
        x = &e;
    }
    if ((err = gsp_sched_init(out, x->coll, x->topology, x->nodes, &x->model, x->root, x->method))) goto done;
    if ((err = gsp_alloc_array((void **)&got, t->n, 1, true))) goto done;
    got[x->root] = 1;
    for (int64_t r = 0; r < x->nrounds && !err; r++) {
        if ((err = gsp_sched_round(out))) break;
        for (int64_t k = x->send_off.v[r]; k < x->send_off.v[r + 1] && !err; k++) {
            const gsp_send_t *y = &x->sends[k];
            if (got[y->u] != 1 || got[y->v]) continue; /* not held yet, or already delivered */
            got[y->v] = 2;                              /* usable from the next round */
            err = gsp_sched_send(out, y->u, y->v, y->x);
        }
        for (int64_t k = x->send_off.v[r]; k < x->send_off.v[r + 1]; k++)
            if (got[x->sends[k].v] == 2) got[x->sends[k].v] = 1;
    }
    if (!err) err = gsp_sched_finish(out);
done:
    gsp_free(got);
    gsp_sched_destroy(&e);
    if (err) gsp_sched_destroy(out);
    return err;
}

/* A symmetric phase's statistics, the same at every node: in round t node u's arc i carries one
 * block per entry (t, i, .) (reversed: the inverse arc, in round R-1-t), u receives one block per
 * entry of the round, and sends one message per generator used. */
gsp_err_t gsp__rt_add_symmetric(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, bool reversed, gsp_rt_kind_t kind,
                               gsp_rt_layout_t layout) {
    gsp_err_t err;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    int64_t d = t->off[1] - t->off[0], R = s->nrounds, *per = NULL, *tot = NULL;
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->layout = layout;
    p->source = GSP_RT_SRC_SYMMETRIC;
    p->reversed = reversed;
    p->nrounds = R;
    p->ntransfers = s->nsym * t->n;
    if ((err = gsp_sched_init(&p->sched, s->coll, s->topology, s->nodes, &s->model, s->root, s->method))) return err;
    al->nphases++;
    if ((err = gsp_alloc_array((void **)&p->sched.sym, s->nsym + 1, sizeof *s->sym, false))) return err;
    memcpy(p->sched.sym, s->sym, (size_t)s->nsym * sizeof *s->sym);
    p->sched.nsym = p->sched.cap_sym = s->nsym;
    p->sched.symmetric = true;
    p->sched.nrounds = R;
    if ((err = gsp__rt_stat_arrays(p, R)) || (err = gsp_alloc_array((void **)&per, d + 1, sizeof *per, true)) ||
        (err = gsp_alloc_array((void **)&tot, d + 1, sizeof *tot, true)))
        goto done;
    for (int64_t b = 0; b < s->nsym;) {
        int64_t e = b, r = reversed ? R - 1 - s->sym[b].t : s->sym[b].t;
        while (e < s->nsym && s->sym[e].t == s->sym[b].t) e++;
        for (int64_t k = b; k < e; k++) {
            per[s->sym[k].i]++;
            tot[s->sym[k].i]++;
        }
        for (int64_t i = 0; i < d; i++) {
            if (per[i] > p->maxblk[r]) p->maxblk[r] = per[i];
            if (per[i]) p->maxmsg[r]++;
            per[i] = 0;
        }
        p->maxred[r] = kind == GSP_RT_REDUCE ? e - b : 0;
        p->moved[r] = (e - b) * t->n;
        b = e;
    }
    for (int64_t i = 0; i < d; i++)
        if (tot[i] > p->busiest) p->busiest = tot[i];
done:
    gsp_free(per);
    gsp_free(tot);
    return err;
}

/* A tree phase on a Cayley graph: the broadcast tree of the identity (first deliveries of a
 * broadcast from node 0), translated to root. Its statistics do not depend on the root. */
gsp_err_t gsp__rt_add_tree(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *fd, int64_t root, bool reversed) {
    gsp_err_t err;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    int64_t n = t->n, R = fd->nrounds, *kids = NULL;
    memset(p, 0, sizeof *p);
    p->kind = reversed ? GSP_RT_REDUCE : GSP_RT_STORE;
    p->layout = GSP_RT_WHOLE;
    p->source = GSP_RT_SRC_TREE;
    p->reversed = reversed;
    p->troot = root;
    p->nrounds = R;
    p->ntransfers = n - 1;
    p->busiest = n > 1;
    al->nphases++;
    if ((err = gsp_alloc_array((void **)&p->tparent, n, sizeof *p->tparent, false)) ||
        (err = gsp_alloc_array((void **)&p->tround, n, sizeof *p->tround, false)) ||
        (err = gsp_alloc_array((void **)&p->tchild_off, n + 1, sizeof *p->tchild_off, true)) ||
        (err = gsp_alloc_array((void **)&p->tchild, n, sizeof *p->tchild, false)) || (err = gsp__rt_stat_arrays(p, R)) ||
        (err = gsp_alloc_array((void **)&kids, n + 1, sizeof *kids, true)))
        goto done;
    for (int64_t v = 0; v < n; v++) p->tparent[v] = p->tround[v] = -1;
    /* Rounds in order, sends sorted within a round: children come out by (round, node). */
    for (int64_t r = 0; r < R; r++)
        for (int64_t k = fd->send_off.v[r]; k < fd->send_off.v[r + 1]; k++) {
            p->tparent[fd->sends[k].v] = fd->sends[k].u;
            p->tround[fd->sends[k].v] = r;
            p->tchild_off[fd->sends[k].u + 1]++;
        }
    for (int64_t v = 0; v < n; v++) p->tchild_off[v + 1] += p->tchild_off[v];
    for (int64_t v = 0; v < n; v++) kids[v] = p->tchild_off[v];
    for (int64_t r = 0; r < R; r++)
        for (int64_t k = fd->send_off.v[r]; k < fd->send_off.v[r + 1]; k++) p->tchild[kids[fd->sends[k].u]++] = fd->sends[k].v;
    for (int64_t r = 0; r < R; r++) {
        int64_t rr = reversed ? R - 1 - r : r, b = fd->send_off.v[r], e = fd->send_off.v[r + 1];
        p->moved[rr] = e - b;
        p->maxblk[rr] = e > b;
        /* Sends sorted by sender: a node's children of this round are consecutive. */
        for (int64_t k = b; k < e;) {
            int64_t j = k;
            while (j < e && fd->sends[j].u == fd->sends[k].u) j++;
            if (j - k > p->maxmsg[rr]) p->maxmsg[rr] = j - k;
            if (reversed && j - k > p->maxred[rr]) p->maxred[rr] = j - k;
            k = j;
        }
    }
done:
    gsp_free(kids);
    return err;
}

/* A pending phase of at least R rounds moving at least `moved` blocks in all: one block on the
 * busiest arc and one message per round, the moves spread evenly — no schedule of R or more
 * rounds costs less in the model. */
gsp_err_t gsp__rt_add_pending(gsp_rt_algo_t *al, gsp_rt_kind_t kind, gsp_rt_layout_t layout, int64_t R, int64_t moved) {
    gsp_err_t err;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->layout = layout;
    p->nrounds = R;
    p->ntransfers = moved;
    p->busiest = R > 0 ? 1 : 0;
    al->nphases++;
    al->pending = true;
    if ((err = gsp__rt_stat_arrays(p, R))) return err;
    for (int64_t r = 0; r < R; r++) {
        p->maxblk[r] = p->maxmsg[r] = 1;
        p->maxred[r] = kind == GSP_RT_REDUCE;
        p->moved[r] = moved / R + (r < moved % R);
    }
    return GSP_OK;
}

gsp_err_t gsp__rt_add_algo(gsp_rt_algos_t *a, const char *name, gsp_collective_t c, int64_t root, gsp_rt_algo_t **out) {
    void *q = gsp_realloc(a->v, (size_t)(a->n + 1) * sizeof *a->v);
    if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    a->v = q;
    *out = &a->v[a->n++];
    memset(*out, 0, sizeof **out);
    snprintf((*out)->name, sizeof (*out)->name, "%s", name);
    (*out)->coll = c;
    (*out)->root = root;
    return GSP_OK;
}

/* Adds an explicit phase with its statistics: s's first deliveries (reversed: flipped), or
 * (reversed < 0) a copy of s as it is — a scatter or gather, where the root holds every block
 * at the start (which the allgather's notion of a first delivery does not know), or a tree
 * that is first deliveries already. */
gsp_err_t gsp__rt_add_phase(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, int reversed, gsp_rt_kind_t kind,
                           gsp_rt_layout_t layout) {
    gsp_err_t err;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->layout = layout;
    if (reversed < 0) {
        gsp_sched_t tmp;
        /* gsp__rt_flip twice = a copy */
        if ((err = gsp__rt_flip(s, s->coll, &tmp))) return err;
        err = gsp__rt_flip(&tmp, s->coll, &p->sched);
        gsp_sched_destroy(&tmp);
    } else
        err = reversed ? gsp__rt_flip(s, GSP_COLL_REDUCE_SCATTER, &p->sched) : gsp_sched_first_deliveries(s, t, &p->sched);
    if (err) return err;
    al->nphases++;
    p->nrounds = p->sched.nrounds;
    p->ntransfers = p->sched.nsends;
    if ((err = gsp__rt_phase_stats(p, t))) return err;
    return gsp__rt_io_stats(p);
}

/* An allgather phase (forward or reversed) from first deliveries s: symmetric when s is. */
gsp_err_t gsp__rt_add_ag_phase(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, bool reversed, gsp_rt_kind_t kind,
                              gsp_rt_layout_t layout) {
    if (s->symmetric) return gsp__rt_add_symmetric(al, t, s, reversed, kind, layout);
    /* s is first deliveries already: forward, a copy. */
    return gsp__rt_add_phase(al, t, s, reversed ? 1 : -1, kind, layout);
}

/* Above this size the p = 1 allgather is planned only by the methods that build it in about
 * linear time (a complete rotation, the circulants' construction): a search would cost minutes
 * at start-up. */
#define AG1_SEARCH_MAX_NODES 16384

/* The p = 1 allgather, planned once per set: its first deliveries (symmetric on Cayley graphs). */
gsp_err_t gsp__rt_need_ag1(gsp_rt_algos_t *a) {
    if (a->have_ag1) return GSP_OK;
    if (a->tried_ag1) return gsp_error(GSP_ERR_NOTAPPLIC, "no p = 1 allgather for %s", a->topo->spec);
    a->tried_ag1 = true;
    gsp_plan_t pl;
    bool tree_method = gsp_method_find(a->method, GSP_COLL_BROADCAST) != NULL;
    const char *m = tree_method ? "auto" : a->method;
    gsp_err_t err;
    if (!strcmp(m, "auto") && a->topo->n > AG1_SEARCH_MAX_NODES) {
        static const char *const fast[] = {"rotation", "circulant"};
        err = GSP_ERR_NOTAPPLIC;
        for (size_t i = 0; i < sizeof fast / sizeof *fast && err == GSP_ERR_NOTAPPLIC; i++)
            if (gsp_method_find(fast[i], GSP_COLL_ALLGATHER)) err = gsp__rt_plan(a->topo, a->dist, GSP_COLL_ALLGATHER, 1, -1, fast[i], &pl);
        if (err == GSP_ERR_NOTAPPLIC)
            return gsp_error(GSP_ERR_NOTAPPLIC, "%s: no complete rotation, and a search is too slow above %d nodes", a->topo->spec,
                             AG1_SEARCH_MAX_NODES);
    } else
        err = gsp__rt_plan(a->topo, a->dist, GSP_COLL_ALLGATHER, 1, -1, m, &pl);
    if (err) return err;
    err = pl.sched.symmetric ? gsp__rt_sym_first(&pl.sched, a->topo, &a->ag1) : gsp_sched_first_deliveries(&pl.sched, a->topo, &a->ag1);
    if (!err) {
        snprintf(a->ag1_from, sizeof a->ag1_from, "%s", pl.method->name);
        a->have_ag1 = true;
    }
    gsp_plan_destroy(&pl);
    return err;
}

/* The flood's first deliveries (symmetric on Cayley graphs: the BFS tree of e). */
gsp_err_t gsp__rt_flood_of(const gsp_rt_algos_t *a, gsp_sched_t *out, char *from, size_t fromlen) {
    gsp_plan_t pl;
    gsp_err_t err = gsp__rt_plan(a->topo, a->dist, GSP_COLL_ALLGATHER, GSP_PACKETS_INF, -1, "flood", &pl);
    if (err) return err;
    err = pl.sched.symmetric ? gsp__rt_sym_first(&pl.sched, a->topo, out) : gsp_sched_first_deliveries(&pl.sched, a->topo, out);
    if (!err) snprintf(from, fromlen, "%s", pl.method->name);
    gsp_plan_destroy(&pl);
    return err;
}

/* A scatter from the root (reversed: a gather into it) in the packet model: block x travels to
 * node x down a BFS tree whose branches at the root are balanced (each node picks, among its
 * parents one level up, the one whose root branch is smallest), one block per tree arc and
 * round, deepest destination first. The root's d arcs carry about (N-1)/d blocks each, so the
 * scatter takes about (N-1)/d + ecc rounds and no arc ever carries a bundle: what a
 * store-and-forward tree of whole subtrees would pay at every level, this pays once. */
gsp_err_t gsp__rt_scatter(const gsp_topo_t *t, int64_t root, bool gather, const gsp_model_t *model, gsp_sched_t *out) {
    gsp_err_t err;
    int64_t n = t->n, *parent = NULL, *branch = NULL, *bsize = NULL, *order = NULL, *depth = NULL, *at = NULL, *ptr = NULL,
            *sub = NULL, *suboff = NULL;
    gsp_send_t *moves = NULL;
    int64_t *moff = NULL;
    int64_t nmoves = 0, R = 0;
    memset(out, 0, sizeof *out);
    if ((err = gsp_alloc_array((void **)&parent, n, sizeof *parent, false)) || (err = gsp_alloc_array((void **)&branch, n, sizeof *branch, false)) ||
        (err = gsp_alloc_array((void **)&bsize, n, sizeof *bsize, true)) || (err = gsp_alloc_array((void **)&order, n, sizeof *order, false)) ||
        (err = gsp_alloc_array((void **)&depth, n, sizeof *depth, false)) || (err = gsp_alloc_array((void **)&at, n, sizeof *at, false)) ||
        (err = gsp_alloc_array((void **)&ptr, n, sizeof *ptr, false)) || (err = gsp_alloc_array((void **)&suboff, n + 1, sizeof *suboff, true)))
        goto done;
    /* Balanced BFS tree: level by level. */
    for (int64_t v = 0; v < n; v++) depth[v] = parent[v] = branch[v] = -1;
    depth[root] = 0;
    int64_t head = 0, tail = 0;
    order[tail++] = root;
    while (head < tail) {
        int64_t lvl_end = tail;
        /* Discover the next level first, then choose parents among this level. */
        for (int64_t q = head; q < lvl_end; q++)
            for (int64_t a = t->off[order[q]]; a < t->off[order[q] + 1]; a++) {
                int64_t y = t->adj[a];
                if (depth[y] < 0) {
                    depth[y] = depth[order[q]] + 1;
                    order[tail++] = y;
                }
            }
        for (int64_t q = lvl_end; q < tail; q++) {
            int64_t y = order[q], best = -1, bestsize = INT64_MAX;
            /* Parents: neighbours one level up; the root's neighbours are branches of their own. */
            for (int64_t a = t->off[y]; a < t->off[y + 1] && best != root; a++) {
                int64_t p = t->adj[a];
                if (depth[p] != depth[y] - 1 || gsp_topo_arc_index(t, p, y) < 0) continue;
                if (p == root) best = root;
                else if (bsize[branch[p]] < bestsize) {
                    best = p;
                    bestsize = bsize[branch[p]];
                }
            }
            if (best < 0) { /* a directed graph: any in-neighbour one level up */
                for (int64_t u = 0; u < n && best < 0; u++)
                    if (depth[u] == depth[y] - 1 && gsp_topo_arc_index(t, u, y) >= 0) best = u;
            }
            parent[y] = best;
            branch[y] = best == root ? y : branch[best];
            bsize[branch[y]]++;
        }
        head = lvl_end;
    }
    if (tail < n) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: not every node is reachable from %lld", t->spec, (long long)root);
        goto done;
    }
    /* Subtree lists: blocks each tree arc (parent[c] -> c) must carry, deepest first. */
    for (int64_t y = 0; y < n; y++)
        for (int64_t w = y; w != root; w = parent[w]) suboff[w + 1]++;
    for (int64_t v = 0; v < n; v++) suboff[v + 1] += suboff[v];
    if ((err = gsp_alloc_array((void **)&sub, suboff[n] + 1, sizeof *sub, false))) goto done;
    for (int64_t v = 0; v < n; v++) ptr[v] = suboff[v];
    for (int64_t k = n - 1; k >= 0; k--) { /* BFS order reversed: deepest destinations first */
        int64_t y = order[k];
        for (int64_t w = y; w != root; w = parent[w]) sub[ptr[w]++] = y;
    }
    /* at[y]: the node holding block y now; ptr[c]: next block for arc into c. */
    for (int64_t y = 0; y < n; y++) at[y] = root;
    for (int64_t v = 0; v < n; v++) ptr[v] = suboff[v];
    int64_t cap = 4 * n + 16;
    if ((err = gsp_alloc_array((void **)&moves, cap, sizeof *moves, false)) ||
        (err = gsp_alloc_array((void **)&moff, n * 2 + 2, sizeof *moff, false)))
        goto done;
    int64_t remaining = n - 1;
    while (remaining > 0) {
        if (R + 1 >= 2 * n + 1) {
            err = gsp_error(GSP_ERR_INTERNAL, "scatter did not finish");
            goto done;
        }
        moff[R] = nmoves;
        int64_t first = nmoves;
        for (int64_t c = 0; c < n; c++) {
            if (c == root) continue;
            /* The first block of c's list that sits at c's parent since an earlier round. */
            for (int64_t q = ptr[c]; q < suboff[c + 1]; q++) {
                int64_t y = sub[q];
                if (at[y] != parent[c]) continue;
                if (nmoves == cap) {
                    cap *= 2;
                    void *nq = gsp_realloc(moves, (size_t)cap * sizeof *moves);
                    if (!nq) {
                        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
                        goto done;
                    }
                    moves = nq;
                }
                moves[nmoves++] = (gsp_send_t){parent[c], c, y};
                /* Keep the list compact: swap the chosen block to the front. */
                sub[q] = sub[ptr[c]];
                sub[ptr[c]++] = y;
                break;
            }
        }
        for (int64_t k = first; k < nmoves; k++) {
            at[moves[k].x] = moves[k].v;
            if (moves[k].v == moves[k].x) remaining--;
        }
        R++;
    }
    moff[R] = nmoves;
    gsp_model_t m = *model;
    m.packets = 1;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &m, -1, "scatter"))) goto done;
    for (int64_t j = 0; j < R && !err; j++) {
        int64_t r = gather ? R - 1 - j : j;
        if ((err = gsp_sched_round(out))) break;
        for (int64_t k = moff[r]; k < moff[r + 1] && !err; k++)
            err = gather ? gsp_sched_send(out, moves[k].v, moves[k].u, moves[k].x) : gsp_sched_send(out, moves[k].u, moves[k].v, moves[k].x);
    }
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
done:
    gsp_free(parent);
    gsp_free(branch);
    gsp_free(bsize);
    gsp_free(order);
    gsp_free(depth);
    gsp_free(at);
    gsp_free(ptr);
    gsp_free(sub);
    gsp_free(suboff);
    gsp_free(moves);
    gsp_free(moff);
    return err;
}


/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_prog.c — one rank's program, computed from a phase's compact form: what this rank sends and
 * receives, in which round, which blocks. No rank builds another rank's transfers: a symmetric
 * (Cayley) phase translates the origin's entries to this rank, a tree phase translates the
 * identity's tree to the root, a rule computes the transfers in closed form; only explicit
 * phases (graphs without a group) are scanned. Transfers are then grouped into one message per
 * (round, peer), with the dependencies the executor needs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/runtime.h"
#include "rt_int.h"

gsp_err_t gsp_rt_xfers_add(gsp_rt_xfers_t *x, bool recv, int64_t round, int64_t peer, int64_t block) {
    gsp_rt_xfer_t **v = recv ? &x->recv : &x->send;
    int64_t *n = recv ? &x->nrecv : &x->nsend, *cap = recv ? &x->caprecv : &x->capsend;
    if (*n == *cap) {
        int64_t nc = *cap ? 2 * *cap : 16;
        void *q = gsp_realloc(*v, (size_t)nc * sizeof **v);
        if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory for a rank's program");
        *v = q;
        *cap = nc;
    }
    (*v)[(*n)++] = (gsp_rt_xfer_t){round, peer, block};
    return GSP_OK;
}

void gsp_rt_xfers_destroy(gsp_rt_xfers_t *x) {
    if (!x) return;
    gsp_free(x->send);
    gsp_free(x->recv);
    memset(x, 0, sizeof *x);
}

void gsp_rt_prog_destroy(gsp_rt_prog_t *p) {
    if (!p) return;
    gsp_free(p->send);
    gsp_free(p->recv);
    gsp_free(p->items);
    gsp_free(p->win);
    gsp_free(p->turn);
    memset(p, 0, sizeof *p);
}

/* ---- the sources ---- */

/* Explicit: scan the schedule (graphs without a compact form, kept within their size limits). */
static gsp_err_t xfers_explicit(const gsp_rt_phase_t *ph, int64_t me, gsp_rt_xfers_t *x) {
    gsp_err_t err = GSP_OK;
    const gsp_sched_t *s = &ph->sched;
    for (int64_t r = 0; r < s->nrounds && !err; r++)
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1] && !err; k++) {
            const gsp_send_t *t = &s->sends[k];
            if (t->u == me) err = gsp_rt_xfers_add(x, false, r, t->v, t->x);
            if (!err && t->v == me) err = gsp_rt_xfers_add(x, true, r, t->u, t->x);
        }
    return err;
}

/* The arc j with s_j = s_i^-1 for every generator arc i: arc j of s_i leads back to e. */
gsp_err_t gsp__rt_inverse_arcs(const gsp_topo_t *t, int64_t **inv) {
    gsp_err_t err;
    int64_t d = t->off[1] - t->off[0];
    if ((err = gsp_alloc_array((void **)inv, d + 1, sizeof **inv, false))) return err;
    for (int64_t i = 0; i < d; i++) {
        int64_t si = t->adj[t->off[0] + i];
        (*inv)[i] = -1;
        for (int64_t j = 0; j < d; j++)
            if (t->adj[t->off[si] + j] == 0) (*inv)[i] = j;
        if ((*inv)[i] < 0) {
            gsp_free(*inv);
            *inv = NULL;
            return gsp_error(GSP_ERR_NOTAPPLIC, "%s: a generator without its inverse among the arcs", t->spec);
        }
    }
    return GSP_OK;
}

/* Symmetric: entry (t, i, g) says that in round t every node g*h sends h's packet along
 * generator i, to s_i*g*h. For rank r as the sender h = g^-1 r and the peer is s_i r (arc i of
 * r); as the receiver the sender is u = s_i^-1 r (arc inv(i) of r) and h = g^-1 u. Reversed, round
 * R-1-t carries the same arcs backwards with the partial sums of the same blocks. The entries
 * are sorted by round, so the forward phase reads them in order and the reversed one backwards,
 * round by round. */
static gsp_err_t xfers_symmetric(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t r, gsp_rt_xfers_t *x) {
    gsp_err_t err;
    const gsp_sched_t *s = &ph->sched;
    const gsp_group_t *G = t->group;
    int64_t *inv = NULL, R = ph->nrounds;
    if (!G) return gsp_error(GSP_ERR_INTERNAL, "a symmetric phase on a graph without a group");
    if ((err = gsp__rt_inverse_arcs(t, &inv))) return err;
    int64_t b = 0;
    while (b < s->nsym && !err) {
        int64_t e = b;
        /* Forward: rounds in order; reversed: from the last round back. */
        int64_t tb = ph->reversed ? s->sym[s->nsym - 1 - b].t : s->sym[b].t;
        while (e < s->nsym && (ph->reversed ? s->sym[s->nsym - 1 - e].t : s->sym[e].t) == tb) e++;
        int64_t lo = ph->reversed ? s->nsym - e : b, hi = ph->reversed ? s->nsym - b : e;
        int64_t round = ph->reversed ? R - 1 - tb : tb;
        for (int dir = 0; dir < 2 && !err; dir++) /* sends, then receives */
            for (int64_t k = lo; k < hi && !err; k++) {
                const gsp_symsend_t *y = &s->sym[k];
                int64_t gi = gsp_group_inv(G, y->g), fwd_arc = t->adj[t->off[r] + y->i], back = t->adj[t->off[r] + inv[y->i]];
                bool send = dir == 0;
                /* forward send / reversed receive: peer s_i r, block g^-1 r;
                 * forward receive / reversed send: peer s_i^-1 r, block g^-1 s_i^-1 r. */
                bool near = send != ph->reversed;
                int64_t peer = near ? fwd_arc : back, blk = gsp_group_mul(G, gi, near ? r : back);
                err = gsp_rt_xfers_add(x, !send, round, peer, blk);
            }
        b = e;
    }
    gsp_free(inv);
    return err;
}

/* Tree: rank r plays node v = r * root^-1 of the identity's tree; its parent and children are
 * translated back by * root. Forward: receive from the parent in v's round, send to each child
 * in the child's round. Reversed: the same arcs backwards, rounds R-1-round. Block: the root. */
static gsp_err_t xfers_tree(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t r, gsp_rt_xfers_t *x) {
    gsp_err_t err = GSP_OK;
    const gsp_group_t *G = t->group;
    int64_t root = ph->troot, R = ph->nrounds;
    int64_t v = G ? gsp_group_mul(G, r, gsp_group_inv(G, root)) : r;
#define TR(y) (G ? gsp_group_mul(G, (y), root) : (y))
    int64_t c0 = ph->tchild_off[v], c1 = ph->tchild_off[v + 1];
    if (!ph->reversed) {
        if (ph->tparent[v] >= 0) err = gsp_rt_xfers_add(x, true, ph->tround[v], TR(ph->tparent[v]), root);
        for (int64_t k = c0; k < c1 && !err; k++) {
            int64_t c = ph->tchild[k];
            err = gsp_rt_xfers_add(x, false, ph->tround[c], TR(c), root);
        }
    } else {
        /* Children are listed by increasing round: reversed, the latest first. */
        for (int64_t k = c1 - 1; k >= c0 && !err; k--) {
            int64_t c = ph->tchild[k];
            err = gsp_rt_xfers_add(x, true, R - 1 - ph->tround[c], TR(c), root);
        }
        if (!err && ph->tparent[v] >= 0) err = gsp_rt_xfers_add(x, false, R - 1 - ph->tround[v], TR(ph->tparent[v]), root);
    }
#undef TR
    return err;
}

gsp_err_t gsp__rt_xfers(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t rank, gsp_rt_xfers_t *x) {
    switch (ph->source) {
    case GSP_RT_SRC_EXPLICIT: return xfers_explicit(ph, rank, x);
    case GSP_RT_SRC_SYMMETRIC: return xfers_symmetric(ph, t, rank, x);
    case GSP_RT_SRC_TREE: return xfers_tree(ph, t, rank, x);
    case GSP_RT_SRC_RULE: return ph->rule(ph, t, rank, x);
    }
    return gsp_error(GSP_ERR_INTERNAL, "unknown phase source");
}

/* ---- grouping into messages ---- */

/* Sorts one direction's transfers by round, stably (rules and reversed trees may give rounds
 * out of order; transfers of a round keep their order): a counting sort, rounds being small. */
static gsp_err_t sort_rounds(gsp_rt_xfer_t *v, int64_t n) {
    gsp_err_t err;
    bool sorted = true;
    for (int64_t i = 1; i < n && sorted; i++) sorted = v[i - 1].round <= v[i].round;
    if (sorted) return GSP_OK;
    gsp_rt_xfer_t *tmp = NULL;
    int64_t *cnt = NULL, R = 0;
    for (int64_t i = 0; i < n; i++)
        if (v[i].round + 1 > R) R = v[i].round + 1;
    if (!(err = gsp_alloc_array((void **)&tmp, n, sizeof *tmp, false)) && !(err = gsp_alloc_array((void **)&cnt, R + 1, sizeof *cnt, true))) {
        for (int64_t i = 0; i < n; i++) cnt[v[i].round + 1]++;
        for (int64_t r = 0; r < R; r++) cnt[r + 1] += cnt[r];
        for (int64_t i = 0; i < n; i++) tmp[cnt[v[i].round]++] = v[i];
        memcpy(v, tmp, (size_t)n * sizeof *v);
    }
    gsp_free(tmp);
    gsp_free(cnt);
    return err;
}

static gsp_err_t push_msg(gsp_rt_msg_t **v, int64_t *n, int64_t *cap, gsp_rt_msg_t m) {
    if (*n == *cap) {
        int64_t nc = *cap ? 2 * *cap : 16;
        void *q = gsp_realloc(*v, (size_t)nc * sizeof **v);
        if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory for a rank's program");
        *v = q;
        *cap = nc;
    }
    (*v)[(*n)++] = m;
    return GSP_OK;
}

/* Groups one direction's transfers [in, round order] into messages: per round, one message per
 * peer in the order peers first appear, its blocks in transfer order. slot: n entries of
 * scratch, -1 on entry and on exit. */
static gsp_err_t group(const gsp_rt_xfer_t *v, int64_t nv, gsp_rt_msg_t **msgs, int64_t *nmsg, int64_t **items, int64_t *nitems,
                       int64_t *capI, int64_t *slot, int64_t *count) {
    gsp_err_t err = GSP_OK;
    int64_t cap = 0;
    for (int64_t b = 0; b < nv && !err;) {
        int64_t e = b;
        while (e < nv && v[e].round == v[b].round) e++;
        int64_t m0 = *nmsg;
        for (int64_t k = b; k < e && !err; k++) {
            int64_t p = v[k].peer;
            if (slot[p] < 0) {
                slot[p] = *nmsg;
                count[p] = 0;
                err = push_msg(msgs, nmsg, &cap, (gsp_rt_msg_t){p, v[k].round, -1, 0, 0, -1, -1});
            }
            if (!err) count[p]++;
        }
        /* Items laid out message by message. */
        int64_t need = *nitems + (e - b);
        if (!err && need > *capI) {
            int64_t nc = *capI ? *capI : 64;
            while (nc < need) nc *= 2;
            void *q = gsp_realloc(*items, (size_t)nc * sizeof **items);
            if (!q) err = gsp_error(GSP_ERR_NOMEM, "out of memory for a rank's program");
            else {
                *items = q;
                *capI = nc;
            }
        }
        if (!err) {
            int64_t pos = *nitems;
            for (int64_t q = m0; q < *nmsg; q++) {
                (*msgs)[q].first = pos;
                pos += count[(*msgs)[q].peer];
            }
            for (int64_t k = b; k < e; k++) {
                gsp_rt_msg_t *m = &(*msgs)[slot[v[k].peer]];
                (*items)[m->first + m->n++] = v[k].block;
            }
            *nitems = pos;
        }
        for (int64_t k = b; k < e; k++) slot[v[k].peer] = -1;
        b = e;
    }
    return err;
}

gsp_err_t gsp__rt_prog_from(const gsp_rt_phase_t *ph, int64_t n, gsp_rt_xfers_t *x, gsp_rt_prog_t *p) {
    gsp_err_t err;
    int64_t *slot = NULL, *count = NULL, *last = NULL, capI = 0;
    memset(p, 0, sizeof *p);
    p->kind = ph->kind;
    p->layout = ph->layout;
    p->pipelined = ph->pipelined;
    p->exchange = ph->exchange;
    p->nrounds = ph->nrounds;
    int64_t nb = (ph->nblocks > n ? ph->nblocks : n) * (ph->parts > 1 ? ph->parts : 1);
    if ((err = sort_rounds(x->send, x->nsend)) || (err = sort_rounds(x->recv, x->nrecv))) return err;
    if ((err = gsp_alloc_array((void **)&slot, n + 1, sizeof *slot, false)) ||
        (err = gsp_alloc_array((void **)&count, n + 1, sizeof *count, false)) ||
        (err = gsp_alloc_array((void **)&last, nb + 1, sizeof *last, false)))
        goto done;
    for (int64_t i = 0; i <= n; i++) slot[i] = -1;
    for (int64_t i = 0; i <= nb; i++) last[i] = -1;
    if ((err = group(x->send, x->nsend, &p->send, &p->nsend, &p->items, &p->nitems, &capI, slot, count)) ||
        (err = group(x->recv, x->nrecv, &p->recv, &p->nrecv, &p->items, &p->nitems, &capI, slot, count)))
        goto done;
    /* A send needs the receives of its blocks in earlier rounds (the latest one before it). */
    int64_t q = 0;
    for (int64_t s = 0; s < p->nsend; s++) {
        gsp_rt_msg_t *m = &p->send[s];
        while (q < p->nrecv && p->recv[q].round < m->round) {
            for (int64_t i = 0; i < p->recv[q].n; i++) last[p->items[p->recv[q].first + i]] = p->recv[q].round;
            q++;
        }
        for (int64_t i = 0; i < m->n; i++) {
            int64_t l = last[p->items[m->first + i]];
            if (l > m->need) m->need = l;
        }
    }
    if (ph->pipelined) {
        /* A pipelined message moves as soon as the one message it depends on is in: link each
         * receive to the previous receive of its blocks, and each send to the last receive of
         * its blocks before its round. A message of several blocks (a fabric tree's parts) is
         * pipelined only when all its blocks have that same predecessor, as when they arrived
         * together; arc-disjoint trees carry one block a message. */
        for (int64_t i = 0; i <= nb; i++) last[i] = -1;
        for (int64_t k = 0; k < p->nrecv && !err; k++) {
            gsp_rt_msg_t *m = &p->recv[k];
            int64_t b = p->items[m->first];
            for (int64_t i = 1; i < m->n && !err; i++)
                if (last[p->items[m->first + i]] != last[b]) err = gsp_error(GSP_ERR_INTERNAL, "a pipelined receive's blocks come after different messages");
            if (!err && last[b] >= 0) {
                if (p->recv[last[b]].next >= 0) err = gsp_error(GSP_ERR_INTERNAL, "a pipelined receive's blocks go on in different messages");
                m->prev = last[b];
                p->recv[last[b]].next = k;
            }
            for (int64_t i = 0; i < m->n; i++) last[p->items[m->first + i]] = k;
        }
        for (int64_t i = 0; i <= nb && !err; i++) last[i] = -1;
        q = 0;
        for (int64_t s = 0; s < p->nsend && !err; s++) {
            gsp_rt_msg_t *m = &p->send[s];
            while (q < p->nrecv && p->recv[q].round < m->round) {
                for (int64_t i = 0; i < p->recv[q].n; i++) last[p->items[p->recv[q].first + i]] = q;
                q++;
            }
            m->prev = last[p->items[m->first]];
            for (int64_t i = 1; i < m->n && !err; i++)
                if (last[p->items[m->first + i]] != m->prev) err = gsp_error(GSP_ERR_INTERNAL, "a pipelined send's blocks come from different messages");
        }
        if (err) goto done;
    }
done:
    gsp_free(slot);
    gsp_free(count);
    gsp_free(last);
    if (err) gsp_rt_prog_destroy(p);
    return err;
}

/* The windows the phase gives rank's messages (gsp_rt_prog_t: win, wmax), where it gives any. */
static gsp_err_t windows(const gsp_rt_phase_t *ph, int64_t rank, gsp_rt_prog_t *p) {
    if (!ph->pipelined || !ph->window_of) return GSP_OK;
    int wmax = 0;
    for (int64_t q = 0; q < p->nrecv; q++) {
        int w = ph->window_of(ph, rank, p->recv[q].round, p->recv[q].peer, true);
        if (w > wmax) wmax = w;
    }
    /* Each send's window asked once; the array made at the first that has one of its own. */
    for (int64_t q = 0; q < p->nsend; q++) {
        int w = ph->window_of(ph, rank, p->send[q].round, p->send[q].peer, false);
        if (w <= 0) continue;
        if (!p->win) {
            gsp_err_t err = gsp_alloc_array((void **)&p->win, p->nsend, sizeof *p->win, true);
            if (err) {
                gsp_rt_prog_destroy(p);
                return err;
            }
        }
        p->win[q] = (unsigned char)(w < 255 ? w : 0);
        if (w > wmax) wmax = w;
    }
    p->wmax = wmax;
    return GSP_OK;
}

/* The turns the phase gives rank's sends within their lanes (gsp_rt_prog_t: turn, nfeeds), where
 * it orders them: kept only where a send waits on another (an ENDS send and a FEEDS send). */
static gsp_err_t turns(const gsp_rt_phase_t *ph, int64_t rank, gsp_rt_prog_t *p) {
    if (!ph->pipelined || !ph->turn_of || p->nsend == 0) return GSP_OK;
    gsp_err_t err = gsp_alloc_array((void **)&p->turn, p->nsend, sizeof *p->turn, true);
    if (err) {
        gsp_rt_prog_destroy(p);
        return err;
    }
    bool ends = false;
    for (int64_t q = 0; q < p->nsend; q++) {
        int w = ph->turn_of(ph, rank, p->send[q].round, p->send[q].peer);
        p->turn[q] = (unsigned char)(w == GSP_RT_TURN_FEEDS || w == GSP_RT_TURN_ENDS ? w : GSP_RT_TURN_ANY);
        p->nfeeds += w == GSP_RT_TURN_FEEDS;
        ends |= w == GSP_RT_TURN_ENDS;
    }
    if (!ends || p->nfeeds == 0) {
        gsp_free(p->turn);
        p->turn = NULL;
        p->nfeeds = 0;
    } else
        p->turn_lanes = ph->levels;
    return GSP_OK;
}

gsp_err_t gsp_rt_program(const gsp_rt_algo_t *a, int k, const gsp_topo_t *t, int64_t rank, gsp_rt_prog_t *out) {
    gsp_err_t err;
    gsp_rt_xfers_t x;
    memset(&x, 0, sizeof x);
    memset(out, 0, sizeof *out);
    if (a->pending) return gsp_error(GSP_ERR_INVAL, "algorithm %s is not built yet (gsp_rt_realize)", a->name);
    if (k < 0 || k >= a->nphases) return gsp_error(GSP_ERR_RANGE, "phase %d outside 0..%d", k, a->nphases - 1);
    if (rank < 0 || rank >= t->n) return gsp_error(GSP_ERR_RANGE, "rank %lld outside 0..%lld", (long long)rank, (long long)t->n - 1);
    if (!(err = gsp__rt_xfers(&a->phase[k], t, rank, &x))) err = gsp__rt_prog_from(&a->phase[k], t->n, &x, out);
    gsp_rt_xfers_destroy(&x);
    if (!err) err = windows(&a->phase[k], rank, out);
    if (!err) err = turns(&a->phase[k], rank, out);
    return err;
}

/* ---- assembling every rank's program (tests) ---- */

gsp_err_t gsp_rt_assemble(const gsp_rt_algo_t *a, int k, const gsp_topo_t *t, gsp_sched_t *out) {
    gsp_err_t err = GSP_OK;
    int64_t n = t->n;
    gsp_rt_prog_t *pg = NULL;
    memset(out, 0, sizeof *out);
    if (k < 0 || k >= a->nphases) return gsp_error(GSP_ERR_RANGE, "phase %d outside 0..%d", k, a->nphases - 1);
    const gsp_rt_phase_t *ph = &a->phase[k];
    if (!(pg = gsp_calloc((size_t)n, sizeof *pg))) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    for (int64_t r = 0; r < n && !err; r++) err = gsp_rt_program(a, k, t, r, &pg[r]);
    if (err) goto done;
    /* Every send meets a receive at its peer: same round, same blocks in the same order. The
     * receives of a peer from one sender in one round are found by scanning the peer's program
     * (programs are short in tests). */
    for (int64_t r = 0; r < n && !err; r++)
        for (int64_t s = 0; s < pg[r].nsend && !err; s++) {
            const gsp_rt_msg_t *m = &pg[r].send[s];
            const gsp_rt_prog_t *q = &pg[m->peer];
            const gsp_rt_msg_t *f = NULL;
            for (int64_t j = 0; j < q->nrecv && !f; j++)
                if (q->recv[j].peer == r && q->recv[j].round == m->round) f = &q->recv[j];
            bool same = f && f->n == m->n;
            for (int64_t i = 0; same && i < m->n; i++) same = pg[r].items[m->first + i] == q->items[f->first + i];
            if (!same)
                err = gsp_error(GSP_ERR_INTERNAL, "%s phase %d: rank %lld's send to %lld in round %lld has no matching receive", a->name,
                                k, (long long)r, (long long)m->peer, (long long)m->round);
        }
    int64_t nr = 0;
    for (int64_t r = 0; r < n; r++) nr += pg[r].nrecv;
    int64_t ns = 0;
    for (int64_t r = 0; r < n; r++) ns += pg[r].nsend;
    if (!err && nr != ns) err = gsp_error(GSP_ERR_INTERNAL, "%s phase %d: %lld sends against %lld receives", a->name, k, (long long)ns, (long long)nr);
    if (err) goto done;
    gsp_model_t m = gsp_model_default();
    m.packets = GSP_PACKETS_INF;
    gsp_collective_t c = ph->kind == GSP_RT_REDUCE ? GSP_COLL_REDUCE_SCATTER : GSP_COLL_ALLGATHER;
    if ((err = gsp_sched_init(out, c, t->spec, n, &m, -1, a->name))) goto done;
    for (int64_t round = 0; round < ph->nrounds && !err; round++) {
        if ((err = gsp_sched_round(out))) break;
        for (int64_t r = 0; r < n && !err; r++)
            for (int64_t s = 0; s < pg[r].nsend && !err; s++) {
                const gsp_rt_msg_t *x = &pg[r].send[s];
                if (x->round != round) continue;
                for (int64_t i = 0; i < x->n && !err; i++) err = gsp_sched_send(out, r, x->peer, pg[r].items[x->first + i]);
            }
    }
    if (!err) err = gsp_sched_finish(out);
done:
    if (pg)
        for (int64_t r = 0; r < n; r++) gsp_rt_prog_destroy(&pg[r]);
    gsp_free(pg);
    if (err) gsp_sched_destroy(out);
    return err;
}

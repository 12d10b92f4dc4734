/* SPDX-License-Identifier: GPL-3.0-or-later */
/* export_fabric.c — fabric plans (the round form of gsp_fabric_trees: chunks, capacities,
 * switches; docs/fabrics.md) as MSCCL XML and msccl-tools JSON (allgather, reduce-scatter,
 * allreduce, broadcast). The executor's ranks are the compute nodes, in index order; switches
 * are the network's, so a packet's route through them becomes one send from one GPU to another. Each rank's data is C chunks (the schedule's chunks),
 * chunk x of rank r is r*C + x, the collective's buffer N*C chunks. Channels: a transfer that
 * leaves its box (see boxes()) goes on the channel of its sender's rail — its index in its box,
 * so GPU g's NIC carries channel g — and transfers inside a box on a channel of their own. */
#include <stdlib.h>
#include <string.h>

#include "gossip/sched.h"
#include "core/core_int.h"
#include "sched_int.h"

/* One transfer between ranks: its route left src in round dep and reached dst in round arr. */
typedef struct {
    int64_t src, dst, x, dep, arr;
    bool reduce;
    int64_t sw, rw; /* the transfers (arrival order) whose receive its send / its receive waits for; -1 none */
} lx_t;

/* One step pair (a send at src, a receive at dst) carrying cnt consecutive chunks x0.. */
typedef struct {
    int64_t src, dst, x0, cnt, conn, q; /* q: its position on connection conn */
    bool reduce, own;                   /* own: an allgather's send of the sender's own data (from i) */
    int64_t sdep, rdep;                 /* ops whose receive it waits for, -1 none */
    bool hasdep;                        /* some step waits for its receive */
} op_t;

/* A connection src -> dst: its ops in order, cut into pieces of at most 256 steps, piece p on
 * channel chan[p] at both ends, threadblock ids sbase + p at src and rbase + p at dst. */
typedef struct {
    int64_t src, dst, nops, npieces, sbase, rbase, pref;
    unsigned char chan[64];
} conn_t;

typedef struct {
    int64_t n, N, C, R, K; /* vertices, ranks, chunks, rounds, reduce rounds */
    int64_t root;          /* broadcast: the root's rank (its chunks are 0 .. C - 1); else -1 */
    int64_t nx;            /* chunks of the collective: N C, or C for a broadcast */
    int64_t *rank;         /* per vertex, -1 for a switch */
    int64_t *vertex;       /* per rank */
    lx_t *lx;
    int64_t nlx;
    op_t *ops;
    int64_t nops;
    conn_t *conns;
    int64_t nconns;
    int64_t *box, *rail, nboxes, maxbox;
    int64_t *last;         /* per (rank, chunk): the op that last wrote it (-1: the rank's input) */
} fx_t;

static void fx_destroy(fx_t *F) {
    gsp_free(F->rank);
    gsp_free(F->vertex);
    gsp_free(F->lx);
    gsp_free(F->ops);
    gsp_free(F->conns);
    gsp_free(F->box);
    gsp_free(F->rail);
    gsp_free(F->last);
}

static bool is_sw(const gsp_topo_t *t, int64_t v) { return t->is_switch && t->is_switch[v]; }

static int64_t uf_find(int64_t *p, int64_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
}

/* Components of the compute nodes, joined by arcs in either direction, leaving out vertex skip
 * (-1: none) and the vertices marked in out [may be NULL]: their number with at least two
 * compute nodes into *big; comp [out, may be NULL] gets each vertex's root. */
static gsp_err_t components(const gsp_topo_t *t, int64_t skip, const unsigned char *out, int64_t *big, int64_t *comp) {
    gsp_err_t err;
    int64_t *p = NULL, *cnt = NULL;
    if ((err = gsp_alloc_array((void **)&p, t->n, sizeof *p, false)) || (err = gsp_alloc_array((void **)&cnt, t->n, sizeof *cnt, true))) goto done;
    for (int64_t v = 0; v < t->n; v++) p[v] = v;
    for (int64_t u = 0; u < t->n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
            int64_t v = t->adj[a];
            if (u == skip || v == skip || (out && (out[u] || out[v]))) continue;
            int64_t ru = uf_find(p, u), rv = uf_find(p, v);
            if (ru != rv) p[ru] = rv;
        }
    *big = 0;
    for (int64_t v = 0; v < t->n; v++)
        if (!is_sw(t, v) && ++cnt[uf_find(p, v)] == 2) (*big)++;
    if (comp)
        for (int64_t v = 0; v < t->n; v++) comp[v] = uf_find(p, v);
done:
    gsp_free(p);
    gsp_free(cnt);
    return err;
}

/* Boxes: the network's switches are those on no compute node's link (a fat tree's spines, the
 * InfiniBand switches behind NIC vertices) and those whose removal alone splits the compute
 * nodes into two or more groups of several (dgx's and mi250's `ib`); the boxes are the groups
 * of compute nodes the fabric without them leaves connected, and a rank's rail is its index in
 * its box. dgx:8x2: two boxes of eight, rails 0..7; dgx:8x1, mi250:1, a dragonfly: one box. */
static gsp_err_t boxes(const gsp_topo_t *t, fx_t *F) {
    gsp_err_t err;
    unsigned char *net = NULL;
    int64_t *comp = NULL, *id = NULL, *size = NULL, big;
    if ((err = gsp_alloc_array((void **)&net, t->n, 1, true)) || (err = gsp_alloc_array((void **)&comp, t->n, sizeof *comp, false)) ||
        (err = gsp_alloc_array((void **)&id, t->n, sizeof *id, false)) || (err = gsp_alloc_array((void **)&size, t->n, sizeof *size, true)) ||
        (err = gsp_alloc_array((void **)&F->box, F->N, sizeof *F->box, false)) || (err = gsp_alloc_array((void **)&F->rail, F->N, sizeof *F->rail, false)))
        goto done;
    for (int64_t w = 0; w < t->n; w++) {
        if (!is_sw(t, w)) continue;
        bool compute_link = false;
        for (int64_t a = t->off[w]; a < t->off[w + 1]; a++) compute_link |= !is_sw(t, t->adj[a]);
        for (int64_t u = 0; u < t->n && !compute_link; u++)
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) compute_link |= t->adj[a] == w && !is_sw(t, u);
        if (!compute_link) {
            net[w] = 1;
            continue;
        }
        if ((err = components(t, w, NULL, &big, NULL))) goto done;
        net[w] = big >= 2;
    }
    if ((err = components(t, -1, net, &big, comp))) goto done;
    for (int64_t v = 0; v < t->n; v++) id[v] = -1;
    F->nboxes = F->maxbox = 0;
    for (int64_t r = 0; r < F->N; r++) {
        int64_t c = comp[F->vertex[r]];
        if (id[c] < 0) id[c] = F->nboxes++;
        F->box[r] = id[c];
        F->rail[r] = size[id[c]]++;
        if (size[id[c]] > F->maxbox) F->maxbox = size[id[c]];
    }
done:
    gsp_free(net);
    gsp_free(comp);
    gsp_free(id);
    gsp_free(size);
    return err;
}

/* A switch's messages of one packet, first in first out (the verifier's rule, verify.c). */
typedef struct {
    int64_t key, head, tail; /* key = switch * (n C) + packet; -1: empty slot */
} q_t;
typedef struct {
    int64_t origin, dep, next;
} msg_t;

static q_t *q_find(q_t *h, int64_t cap, int64_t key, bool add) {
    uint64_t i = ((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20;
    for (;; i++) {
        q_t *e = &h[i & (uint64_t)(cap - 1)];
        if (e->key == key) return e;
        if (e->key < 0) {
            if (!add) return NULL;
            *e = (q_t){key, -1, -1};
            return e;
        }
    }
}

/* The transfers between ranks: every route through switches followed from its first arc to its
 * last, a switch passing on its oldest message of the packet. */
static gsp_err_t routes(const gsp_sched_t *s, const gsp_topo_t *t, fx_t *F) {
    gsp_err_t err;
    int64_t into = 0, cap = 16, npend = 0, nmsg = 0;
    q_t *h = NULL;
    msg_t *msg = NULL;
    int64_t *pend = NULL, *pendq = NULL;
    for (int64_t k = 0; k < s->nsends; k++) into += is_sw(t, s->sends[k].v);
    while (cap < 2 * into + 2) cap *= 2;
    if ((err = gsp_alloc_array((void **)&h, cap, sizeof *h, false)) || (err = gsp_alloc_array((void **)&msg, into + 1, sizeof *msg, false)) ||
        (err = gsp_alloc_array((void **)&pend, into + 1, sizeof *pend, false)) ||
        (err = gsp_alloc_array((void **)&pendq, into + 1, sizeof *pendq, false)) ||
        (err = gsp_alloc_array((void **)&F->lx, s->nsends + 1, sizeof *F->lx, false)))
        goto done;
    for (int64_t i = 0; i < cap; i++) h[i].key = -1;
    F->nlx = 0;
    for (int64_t r = 0; r < s->nrounds; r++) {
        npend = 0;
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            const gsp_send_t *e = &s->sends[k];
            int64_t owner = e->x / F->C, origin = F->rank[e->u], dep = r;
            if (F->rank[owner] < 0) {
                err = gsp_error(GSP_ERR_INVAL, "export: round %lld carries chunk %lld of switch %lld, which has no data", (long long)r,
                                (long long)(e->x % F->C), (long long)owner);
                goto done;
            }
            if (is_sw(t, e->u)) {
                q_t *q = q_find(h, cap, e->u * (F->n * F->C) + e->x, false);
                if (!q || q->head < 0) {
                    err = gsp_error(GSP_ERR_UNSUPPORTED,
                                    "export: in round %lld switch %lld passes on chunk %lld more often than it received it; a switch "
                                    "that copies or combines has no form as sends between GPUs",
                                    (long long)r, (long long)e->u, (long long)e->x);
                    goto done;
                }
                int64_t m = q->head;
                q->head = msg[m].next;
                origin = msg[m].origin;
                dep = msg[m].dep;
            }
            if (is_sw(t, e->v)) {
                msg[nmsg] = (msg_t){origin, dep, -1};
                pendq[npend] = e->v * (F->n * F->C) + e->x;
                pend[npend++] = nmsg++;
                continue;
            }
            if (origin == F->rank[e->v]) {
                err = gsp_error(GSP_ERR_UNSUPPORTED, "export: in round %lld a route returns chunk %lld to node %lld, which sent it", (long long)r,
                                (long long)e->x, (long long)e->v);
                goto done;
            }
            F->lx[F->nlx++] = (lx_t){origin, F->rank[e->v], (F->root >= 0 ? 0 : F->rank[owner] * F->C) + e->x % F->C, dep, r, r < F->K, -1, -1};
        }
        /* This round's arrivals at switches join their queues at its end. */
        for (int64_t i = 0; i < npend; i++) {
            q_t *q = q_find(h, cap, pendq[i], true);
            if (q->head < 0) q->head = pend[i];
            else msg[q->tail].next = pend[i];
            q->tail = pend[i];
        }
    }
done:
    gsp_free(h);
    gsp_free(msg);
    gsp_free(pend);
    gsp_free(pendq);
    return err;
}

static int cmp_arrival(const void *a, const void *b) {
    const lx_t *p = a, *q = b;
    int64_t ka[5] = {p->arr, p->dep, p->src, p->dst, p->x}, kb[5] = {q->arr, q->dep, q->src, q->dst, q->x};
    for (int i = 0; i < 5; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

/* Dependencies between transfers, then steps. In round order, the sends that leave in round r
 * read what arrived before r (the last transfer that wrote the chunk at the sender), then the
 * arrivals of round r write: a reduce's receive after the chunk's previous write (writes of a
 * chunk form one chain, so a send waits for every contribution before it), a gather's first
 * receive of a chunk is the one later sends wait for. Consecutive transfers with the same ends,
 * rounds and waits, on consecutive chunks, are one step of cnt chunks: a tree's batch. */
static gsp_err_t steps(fx_t *F, bool gather_only) {
    gsp_err_t err;
    int64_t *order = NULL, *lastw = NULL, *group = NULL, *cnt = NULL, NC = F->nx;
    bool *wred = NULL;
    qsort(F->lx, (size_t)F->nlx, sizeof *F->lx, cmp_arrival);
    if ((err = gsp_alloc_array((void **)&order, F->nlx + 1, sizeof *order, false)) ||
        (err = gsp_alloc_array((void **)&lastw, F->N * NC, sizeof *lastw, false)) ||
        (err = gsp_alloc_array((void **)&wred, F->N * NC, sizeof *wred, true)) ||
        (err = gsp_alloc_array((void **)&group, F->nlx + 1, sizeof *group, false)) ||
        (err = gsp_alloc_array((void **)&cnt, F->R + 2, sizeof *cnt, true)) ||
        (err = gsp_alloc_array((void **)&F->ops, F->nlx + 1, sizeof *F->ops, false)) ||
        (err = gsp_alloc_array((void **)&F->last, F->N * NC, sizeof *F->last, false)))
        goto done;
    for (int64_t i = 0; i < F->N * NC; i++) lastw[i] = -1;
    /* The transfers by departure round (a stable counting sort). */
    for (int64_t i = 0; i < F->nlx; i++) cnt[F->lx[i].dep + 1]++;
    for (int64_t r = 0; r < F->R; r++) cnt[r + 1] += cnt[r];
    for (int64_t i = 0; i < F->nlx; i++) order[cnt[F->lx[i].dep]++] = i;
    for (int64_t r = 0, d = 0, a = 0; r < F->R; r++) {
        for (; d < F->nlx && F->lx[order[d]].dep == r; d++) {
            lx_t *e = &F->lx[order[d]];
            e->sw = lastw[e->src * NC + e->x];
            if (gather_only && e->sw < 0 && (F->root >= 0 ? F->root : e->x / F->C) != e->src) {
                err = gsp_error(GSP_ERR_INVAL, "export: rank %lld sends chunk %lld before it holds it", (long long)e->src, (long long)e->x);
                goto done;
            }
        }
        for (; a < F->nlx && F->lx[a].arr == r; a++) {
            lx_t *e = &F->lx[a];
            int64_t *w = &lastw[e->dst * NC + e->x];
            bool *wr = &wred[e->dst * NC + e->x];
            e->rw = e->reduce || *wr ? *w : -1;
            if (e->reduce || *w < 0 || *wr) *w = a, *wr = e->reduce;
        }
    }
    F->nops = 0;
    for (int64_t i = 0; i < F->nlx; i++) {
        const lx_t *e = &F->lx[i];
        int64_t sg = e->sw >= 0 ? group[e->sw] : -1, rg = e->rw >= 0 ? group[e->rw] : -1;
        op_t *p = F->nops ? &F->ops[F->nops - 1] : NULL;
        const lx_t *f = i ? &F->lx[i - 1] : NULL;
        if (p && f->arr == e->arr && f->dep == e->dep && f->src == e->src && f->dst == e->dst && f->reduce == e->reduce &&
            e->x == p->x0 + p->cnt && p->sdep == sg && p->rdep == rg) {
            p->cnt++;
        } else {
            F->ops[F->nops++] = (op_t){e->src, e->dst, e->x, 1, -1, -1, e->reduce, gather_only && e->sw < 0, sg, rg, false};
        }
        group[i] = F->nops - 1;
    }
    for (int64_t k = 0; k < F->nops; k++) {
        if (F->ops[k].sdep >= 0) F->ops[F->ops[k].sdep].hasdep = true;
        if (F->ops[k].rdep >= 0) F->ops[F->ops[k].rdep].hasdep = true;
    }
    /* Each rank's chunks: the op that last wrote them, for the final copies. */
    for (int64_t i = 0; i < F->N * NC; i++) F->last[i] = lastw[i] >= 0 ? group[lastw[i]] : -1;
done:
    gsp_free(order);
    gsp_free(cnt);
    gsp_free(lastw);
    gsp_free(wred);
    gsp_free(group);
    return err;
}

/* Connections, threadblocks and channels within the executor's limits (sched_int.h). */
static gsp_err_t layout(fx_t *F, int64_t *ntb, int *nchan, int64_t ncopy_max) {
    gsp_err_t err;
    int64_t *idx = NULL, *tbcount = NULL;
    int32_t *perchan = NULL;
    int64_t intra = F->nboxes > 1 ? F->maxbox : 0;
    if (intra >= GSP__MSCCL_MAX_CHANNELS)
        return gsp_error(GSP_ERR_TOOBIG, "MSCCL XML: boxes of %lld ranks need a channel per rail and one more; the executor has %d channels",
                         (long long)F->maxbox, GSP__MSCCL_MAX_CHANNELS);
    if ((err = gsp_alloc_array((void **)&idx, F->N * F->N, sizeof *idx, false)) ||
        (err = gsp_alloc_array((void **)&F->conns, F->nops + 1, sizeof *F->conns, false)) ||
        (err = gsp_alloc_array((void **)&tbcount, F->N, sizeof *tbcount, true)) ||
        (err = gsp_alloc_array((void **)&perchan, F->N * GSP__MSCCL_MAX_CHANNELS, sizeof *perchan, true)))
        goto done;
    for (int64_t i = 0; i < F->N * F->N; i++) idx[i] = -1;
    F->nconns = 0;
    for (int64_t k = 0; k < F->nops; k++) {
        op_t *p = &F->ops[k];
        int64_t *c = &idx[p->src * F->N + p->dst];
        if (*c < 0) {
            *c = F->nconns++;
            conn_t *cn = &F->conns[*c];
            memset(cn, 0, sizeof *cn);
            cn->src = p->src;
            cn->dst = p->dst;
            cn->pref = F->box[p->src] != F->box[p->dst] ? F->rail[p->src] : intra;
        }
        p->conn = *c;
        p->q = F->conns[*c].nops++;
    }
    *nchan = 1;
    for (int64_t c = 0; c < F->nconns; c++) {
        conn_t *cn = &F->conns[c];
        cn->npieces = (cn->nops + GSP__MSCCL_MAX_STEPS - 1) / GSP__MSCCL_MAX_STEPS;
        if (cn->npieces > (int64_t)sizeof cn->chan) {
            err = gsp_error(GSP_ERR_TOOBIG, "MSCCL XML: rank %lld sends rank %lld %lld steps, more than fit in the executor's threadblocks (fewer --batches)",
                            (long long)cn->src, (long long)cn->dst, (long long)cn->nops);
            goto done;
        }
        cn->sbase = tbcount[cn->src];
        cn->rbase = tbcount[cn->dst];
        tbcount[cn->src] += cn->npieces;
        tbcount[cn->dst] += cn->npieces;
        /* Piece p on the preferred channel, or the next one with room at both ends; a
         * connection's pieces on distinct channels (one connection per peer and channel). */
        int32_t *cu = perchan + cn->src * GSP__MSCCL_MAX_CHANNELS, *cv = perchan + cn->dst * GSP__MSCCL_MAX_CHANNELS;
        for (int64_t p = 0, tried = 0; p < cn->npieces; p++) {
            int ch = (int)((p ? cn->chan[p - 1] + 1 : cn->pref) % GSP__MSCCL_MAX_CHANNELS);
            for (tried = 0; tried < GSP__MSCCL_MAX_CHANNELS && (cu[ch] >= GSP__MSCCL_MAX_TB || cv[ch] >= GSP__MSCCL_MAX_TB); tried++)
                ch = (ch + 1) % GSP__MSCCL_MAX_CHANNELS;
            bool reused = false;
            for (int64_t o = 0; o < p; o++) reused |= cn->chan[o] == ch;
            if (tried == GSP__MSCCL_MAX_CHANNELS || reused) {
                err = gsp_error(GSP_ERR_TOOBIG, "MSCCL XML: ranks %lld and %lld need more than %d threadblocks on each of the %d channels (fewer --batches)",
                                (long long)cn->src, (long long)cn->dst, GSP__MSCCL_MAX_TB, GSP__MSCCL_MAX_CHANNELS);
                goto done;
            }
            cn->chan[p] = (unsigned char)ch;
            cu[ch]++;
            cv[ch]++;
            if (ch + 1 > *nchan) *nchan = ch + 1;
        }
    }
    for (int64_t r = 0; r < F->N; r++) {
        if (tbcount[r] + ncopy_max > GSP__MSCCL_MAX_TB_TOTAL) {
            err = gsp_error(GSP_ERR_TOOBIG, "MSCCL XML: rank %lld needs %lld threadblocks (one per peer, direction and %d steps, and its copies); "
                            "the executor runs at most %d (fewer --batches)",
                            (long long)r, (long long)(tbcount[r] + ncopy_max), GSP__MSCCL_MAX_STEPS, GSP__MSCCL_MAX_TB_TOTAL);
            goto done;
        }
        ntb[r] = tbcount[r];
    }
done:
    gsp_free(idx);
    gsp_free(tbcount);
    gsp_free(perchan);
    return err;
}

static gsp_err_t prepare(const gsp_sched_t *s, const gsp_topo_t *t, fx_t *F) {
    gsp_err_t err;
    memset(F, 0, sizeof *F);
    F->n = t->n;
    F->C = s->chunks > 1 ? s->chunks : 1;
    F->root = -1;
    F->R = s->nrounds;
    F->K = s->blocks ? s->reduce_rounds : 0;
    if (s->nodes != t->n)
        return gsp_error(GSP_ERR_INVAL, "export: the schedule has %lld nodes, %s has %lld", (long long)s->nodes, t->spec, (long long)t->n);
    if (s->symmetric || (s->coll == GSP_COLL_ALLREDUCE && !s->blocks))
        return gsp_error(GSP_ERR_INVAL, "export: a fabric's schedule is explicit, and an allreduce's in block form");
    if ((err = gsp_alloc_array((void **)&F->rank, t->n, sizeof *F->rank, false)) ||
        (err = gsp_alloc_array((void **)&F->vertex, t->n, sizeof *F->vertex, false)))
        return err;
    for (int64_t v = 0; v < t->n; v++) {
        F->rank[v] = is_sw(t, v) ? -1 : F->N;
        if (!is_sw(t, v)) F->vertex[F->N++] = v;
    }
    if (F->N > GSP_EXPORT_MAX) return gsp_error(GSP_ERR_TOOBIG, "export: %lld ranks is above the limit of %d", (long long)F->N, GSP_EXPORT_MAX);
    if (F->N < 2) return gsp_error(GSP_ERR_INVAL, "export: %s has fewer than two compute nodes", t->spec);
    if (s->coll == GSP_COLL_BROADCAST) {
        if (s->root < 0 || s->root >= t->n || F->rank[s->root] < 0)
            return gsp_error(GSP_ERR_INVAL, "export: the broadcast's root %lld is not a compute node", (long long)s->root);
        F->root = F->rank[s->root];
    }
    F->nx = F->root >= 0 ? F->C : F->N * F->C;
    if ((double)F->N * (double)F->N * (double)F->C > (double)((int64_t)1 << 27))
        return gsp_error(GSP_ERR_TOOBIG, "export: %lld ranks of %lld chunks each are too many to export (fewer --batches)", (long long)F->N,
                         (long long)F->C);
    if ((err = routes(s, t, F)) || (err = steps(F, F->K == 0)) || (err = boxes(t, F))) return err;
    return GSP_OK;
}

/* The ranks' names, as a comment (a name cannot hold "--" inside one). */
static void ranks_comment(const gsp_topo_t *t, const fx_t *F, FILE *f) {
    char b[64];
    fprintf(f, "<!-- gossip: %s; ranks are its compute nodes:", t->spec);
    for (int64_t r = 0; r < F->N; r++) {
        fprintf(f, " %lld=", (long long)r);
        const char *nm = gsp_topo_node_name(t, F->vertex[r], b);
        for (const char *c = nm; *c; c++) fputc(*c == '-' && (c[1] == '-' || c[1] == 0) ? '_' : *c, f);
    }
    fprintf(f, "; rails (channels across boxes) by rank within its box -->\n");
}

/* Where an op's receive is: the threadblock id and step at its receiver. */
static long long recv_tb(const fx_t *F, int64_t k) {
    return k < 0 ? -1 : (long long)(F->conns[F->ops[k].conn].rbase + F->ops[k].q / GSP__MSCCL_MAX_STEPS);
}
static long long recv_step(const fx_t *F, int64_t k) { return k < 0 ? -1 : (long long)(F->ops[k].q % GSP__MSCCL_MAX_STEPS); }

gsp_err_t gsp__export_fabric_xml(const gsp_sched_t *s, const gsp_topo_t *t, const char *name, int64_t minb, int64_t maxb, FILE *f) {
    gsp_err_t err;
    fx_t F;
    int64_t *ntb = NULL, **cops = NULL, *tbconn = NULL;
    memset(&F, 0, sizeof F);
    if ((err = prepare(s, t, &F))) goto done;
    /* A broadcast is written as an allgather of the root's C chunks: i holds them at the root,
     * o everywhere; MSCCL's XML names no root, so the file is for calls with the plan's. */
    bool bc = s->coll == GSP_COLL_BROADCAST, ag = s->coll == GSP_COLL_ALLGATHER || bc, rs = s->coll == GSP_COLL_REDUCE_SCATTER;
    int64_t N = F.N, C = F.C, NC = F.nx;
    /* Reduce-scatter's copies of the finished chunks to the output, one step per run of
     * consecutive chunks finished by one receive. */
    int64_t ncopy_max = 1;
    if (rs)
        for (int64_t r = 0; r < N; r++) {
            int64_t runs = 0;
            for (int64_t c = 0; c < C; c++)
                if (F.last[r * NC + r * C + c] >= 0) F.ops[F.last[r * NC + r * C + c]].hasdep = true;
            for (int64_t c = 0; c < C; c++) runs += c == 0 || F.last[r * NC + r * C + c] != F.last[r * NC + r * C + c - 1];
            if ((runs + GSP__MSCCL_MAX_STEPS - 1) / GSP__MSCCL_MAX_STEPS > ncopy_max) ncopy_max = (runs + GSP__MSCCL_MAX_STEPS - 1) / GSP__MSCCL_MAX_STEPS;
        }
    int nchan = 1;
    if ((err = gsp_alloc_array((void **)&ntb, N, sizeof *ntb, true)) || (err = layout(&F, ntb, &nchan, ncopy_max))) goto done;
    /* Each connection's ops in order. */
    if ((err = gsp_alloc_array((void **)&cops, F.nconns + 1, sizeof *cops, true))) goto done;
    for (int64_t c = 0; c < F.nconns; c++)
        if ((err = gsp_alloc_array((void **)&cops[c], F.conns[c].nops + 1, sizeof **cops, false))) goto done;
    for (int64_t k = 0; k < F.nops; k++) cops[F.ops[k].conn][F.ops[k].q] = k;
    if ((err = gsp_alloc_array((void **)&tbconn, N * GSP__MSCCL_MAX_TB_TOTAL, sizeof *tbconn, false))) goto done;
    for (int64_t c = 0; c < F.nconns; c++)
        for (int64_t p = 0; p < F.conns[c].npieces; p++) {
            tbconn[F.conns[c].src * GSP__MSCCL_MAX_TB_TOTAL + F.conns[c].sbase + p] = c;
            tbconn[F.conns[c].dst * GSP__MSCCL_MAX_TB_TOTAL + F.conns[c].rbase + p] = c;
        }
    ranks_comment(t, &F, f);
    fprintf(f, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"%d\" nchunksperloop=\"%lld\" ngpus=\"%lld\" coll=\"%s\" inplace=\"%d\" "
               "outofplace=\"%d\" minBytes=\"%lld\" maxBytes=\"%lld\">\n",
            name, nchan, (long long)NC, (long long)N, bc ? "broadcast" : ag ? "allgather" : rs ? "reduce_scatter" : "allreduce", ag || rs ? 0 : 1,
            ag || rs ? 1 : 0,
            (long long)minb, (long long)maxb);
    const char *buf = ag ? "o" : "i";
    for (int64_t u = 0; u < N; u++) {
        fprintf(f, "  <gpu id=\"%lld\" i_chunks=\"%lld\" o_chunks=\"%lld\" s_chunks=\"0\">\n", (long long)u, (long long)(ag ? C : NC),
                (long long)(rs ? C : NC));
        /* Its threadblocks in id order: per connection, sends where it is the source and
         * receives where it is the destination, as layout() numbered them. */
        for (int64_t id = 0; id < ntb[u]; id++) {
            int64_t c = tbconn[u * GSP__MSCCL_MAX_TB_TOTAL + id];
            const conn_t *cn = &F.conns[c];
            bool snd = cn->src == u && id >= cn->sbase && id < cn->sbase + cn->npieces;
            int64_t p = id - (snd ? cn->sbase : cn->rbase);
            fprintf(f, "    <tb id=\"%lld\" send=\"%lld\" recv=\"%lld\" chan=\"%d\">\n", (long long)id, (long long)(snd ? cn->dst : -1),
                    (long long)(snd ? -1 : cn->src), cn->chan[p]);
            for (int64_t q = p * GSP__MSCCL_MAX_STEPS; q < cn->nops && q < (p + 1) * GSP__MSCCL_MAX_STEPS; q++) {
                const op_t *o = &F.ops[cops[c][q]];
                long long x = (long long)o->x0;
                if (snd) {
                    bool own = ag && o->own;
                    fprintf(f, "      <step s=\"%lld\" type=\"s\" srcbuf=\"%s\" srcoff=\"%lld\" dstbuf=\"%s\" dstoff=\"%lld\" cnt=\"%lld\" "
                               "depid=\"%lld\" deps=\"%lld\" hasdep=\"0\"/>\n",
                            (long long)(q % GSP__MSCCL_MAX_STEPS), own ? "i" : buf, own ? x - (long long)(bc ? 0 : u * C) : x, buf, x,
                            (long long)o->cnt, recv_tb(&F, o->sdep), recv_step(&F, o->sdep));
                } else {
                    fprintf(f, "      <step s=\"%lld\" type=\"%s\" srcbuf=\"%s\" srcoff=\"%lld\" dstbuf=\"%s\" dstoff=\"%lld\" cnt=\"%lld\" "
                               "depid=\"%lld\" deps=\"%lld\" hasdep=\"%d\"/>\n",
                            (long long)(q % GSP__MSCCL_MAX_STEPS), o->reduce ? "rrc" : "r", buf, x, buf, x, (long long)o->cnt,
                            recv_tb(&F, o->rdep), recv_step(&F, o->rdep), o->hasdep ? 1 : 0);
                }
            }
            fputs("    </tb>\n", f);
        }
        /* The local copies: allgather's own data into its place in the output; reduce-scatter's
         * finished chunks to the output, each after the receive that finished it. */
        if (ag && (!bc || u == F.root)) {
            fprintf(f, "    <tb id=\"%lld\" send=\"-1\" recv=\"-1\" chan=\"0\">\n", (long long)ntb[u]);
            fprintf(f, "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"%lld\" cnt=\"%lld\" depid=\"-1\" deps=\"-1\" "
                       "hasdep=\"0\"/>\n    </tb>\n",
                    (long long)(bc ? 0 : u * C), (long long)C);
        } else if (rs) {
            int64_t q = 0;
            for (int64_t c = 0; c < C;) {
                int64_t w = F.last[u * NC + u * C + c], c1 = c + 1;
                while (c1 < C && F.last[u * NC + u * C + c1] == w) c1++;
                if (q % GSP__MSCCL_MAX_STEPS == 0) {
                    if (q) fputs("    </tb>\n", f);
                    fprintf(f, "    <tb id=\"%lld\" send=\"-1\" recv=\"-1\" chan=\"0\">\n", (long long)(ntb[u] + q / GSP__MSCCL_MAX_STEPS));
                }
                fprintf(f, "      <step s=\"%lld\" type=\"cpy\" srcbuf=\"i\" srcoff=\"%lld\" dstbuf=\"o\" dstoff=\"%lld\" cnt=\"%lld\" depid=\"%lld\" "
                           "deps=\"%lld\" hasdep=\"0\"/>\n",
                        (long long)(q % GSP__MSCCL_MAX_STEPS), (long long)(u * C + c), (long long)c, (long long)(c1 - c), recv_tb(&F, w),
                        recv_step(&F, w));
                q++;
                c = c1;
            }
            if (q) fputs("    </tb>\n", f);
        }
        fputs("  </gpu>\n", f);
    }
    fputs("</algo>\n", f);
    if (fflush(f) != 0 || ferror(f)) err = gsp_error(GSP_ERR_IO, "export: write failed");
done:
    if (cops)
        for (int64_t c = 0; c < F.nconns; c++) gsp_free(cops[c]);
    gsp_free(cops);
    gsp_free(ntb);
    gsp_free(tbconn);
    fx_destroy(&F);
    return err;
}

/* Whether msccl-tools' reading of the transfers is the plan's. It reads a send as carrying what
 * its sender holds at the start of its step (Algorithm.check_implements), and a transfer is
 * written in the step of the round it arrives; the plan's message left in the round it departed.
 * For a reduction the two differ if the sender receives more of the chunk (a contribution) in
 * between: the file would carry a larger partial sum, and add it twice. lx is in arrival order. */
static gsp_err_t combining_sends_hold(const fx_t *F) {
    gsp_err_t err;
    int64_t NC = F->nx, *first = NULL, *next = NULL;
    if ((err = gsp_alloc_array((void **)&first, F->N * NC, sizeof *first, false)) ||
        (err = gsp_alloc_array((void **)&next, F->nlx + 1, sizeof *next, false)))
        goto done;
    /* Per (rank, chunk), its arrivals, latest first. */
    for (int64_t i = 0; i < F->N * NC; i++) first[i] = -1;
    for (int64_t i = 0; i < F->nlx; i++) {
        int64_t *h = &first[F->lx[i].dst * NC + F->lx[i].x];
        next[i] = *h;
        *h = i;
    }
    for (int64_t i = 0; i < F->nlx && !err; i++) {
        const lx_t *e = &F->lx[i];
        for (int64_t j = first[e->src * NC + e->x]; j >= 0 && F->lx[j].arr >= e->dep; j = next[j])
            if (F->lx[j].arr < e->arr) {
                err = gsp_error(GSP_ERR_UNSUPPORTED,
                                "export: rank %lld's partial sum of chunk %lld leaves in round %lld and arrives in round %lld, and the "
                                "rank receives more of it in round %lld, which msccl-tools JSON's send would carry too: export it as msccl-xml",
                                (long long)e->src, (long long)e->x, (long long)e->dep, (long long)e->arr, (long long)F->lx[j].arr);
                break;
            }
    }
done:
    gsp_free(first);
    gsp_free(next);
    return err;
}

gsp_err_t gsp__export_fabric_json(const gsp_sched_t *s, const gsp_topo_t *t, const char *name, FILE *f) {
    gsp_err_t err;
    fx_t F;
    int64_t *width = NULL, *link = NULL;
    memset(&F, 0, sizeof F);
    if ((err = prepare(s, t, &F))) goto done;
    bool combining = s->coll == GSP_COLL_REDUCE_SCATTER || s->coll == GSP_COLL_ALLREDUCE;
    int64_t N = F.N, C = F.C;
    /* A reduction's collective lists every rank's contribution to every chunk, N^2 C of them
     * (about 60 bytes each): past 2^24 the file would pass a gigabyte. */
    if (combining && (double)N * (double)N * (double)C > (double)((int64_t)1 << 24)) {
        err = gsp_error(GSP_ERR_TOOBIG, "export: msccl-tools JSON of this %s lists %lld ranks' contributions to %lld chunks each, above %d "
                        "(fewer --batches, or msccl-xml)", gsp_collective_name(s->coll), (long long)N, (long long)(N * C), 1 << 24);
        goto done;
    }
    if (combining && (err = combining_sends_hold(&F))) goto done;
    if ((err = gsp_alloc_array((void **)&width, N * N, sizeof *width, true)) || (err = gsp_alloc_array((void **)&link, N * N, sizeof *link, true))) goto done;
    int64_t nsteps = 0;
    for (int64_t i = 0; i < F.nlx; i++) nsteps += i == 0 || F.lx[i].arr != F.lx[i - 1].arr;
    gsp_jw_t w;
    gsp_jw_init(&w, f);
    /* msccl-tools' chunks per address of the collective (Instance.chunks, the chunk_up divisor):
     * an allreduce's whole vector is one address, cut into every rank's C chunks. */
    gsp__msccl_json_head(&w, name, nsteps, s->coll == GSP_COLL_ALLREDUCE ? N * C : C);
    char b[64];
    /* Rank r is the compute node ranks[r] (the spec's vertex names). */
    gsp_jw_key(&w, "ranks");
    gsp_jw_arr_begin(&w);
    for (int64_t r = 0; r < N; r++) gsp_jw_str(&w, gsp_topo_node_name(t, F.vertex[r], b));
    gsp_jw_arr_end(&w);
    gsp__msccl_json_maps(&w, s->coll, N, C, F.root);
    /* A step per round in which some route ends (a route's send in the round it arrives: its
     * sender held the chunk before the route began); "rounds": the most chunks one pair of
     * ranks carries in it, over links of one chunk a round. A send [x, src, dst] is
     * [address, src, dst]: for a reduction, src's partial sum of chunk x, which dst adds to its
     * own (reduce rounds) or, holding the finished sum, keeps in place of its partial one
     * (allreduce's gather rounds; docs/fabrics.md). */
    gsp_jw_key(&w, "steps");
    gsp_jw_arr_begin(&w);
    for (int64_t i = 0; i < F.nlx;) {
        int64_t j = i, most = 1;
        while (j < F.nlx && F.lx[j].arr == F.lx[i].arr) j++;
        for (int64_t k = i; k < j; k++) {
            int64_t *c = &width[F.lx[k].src * N + F.lx[k].dst];
            if (++*c > most) most = *c;
            link[F.lx[k].dst * N + F.lx[k].src] = 1;
        }
        for (int64_t k = i; k < j; k++) width[F.lx[k].src * N + F.lx[k].dst] = 0;
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "step");
        gsp_jw_key(&w, "rounds"); gsp_jw_int(&w, most);
        gsp_jw_key(&w, "sends");
        gsp_jw_arr_begin(&w);
        for (int64_t k = i; k < j; k++) {
            gsp_jw_arr_begin(&w);
            gsp_jw_int(&w, F.lx[k].x);
            gsp_jw_int(&w, F.lx[k].src);
            gsp_jw_int(&w, F.lx[k].dst);
            gsp_jw_arr_end(&w);
        }
        gsp_jw_arr_end(&w);
        gsp_jw_obj_end(&w);
        i = j;
    }
    gsp_jw_arr_end(&w);
    gsp__msccl_json_collective(&w, s->coll, N, C, F.root);
    gsp_jw_key(&w, "topology");
    gsp_jw_obj_begin(&w);
    gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "topology");
    gsp_jw_key(&w, "name"); gsp_jw_str(&w, t->spec);
    gsp_jw_key(&w, "links");
    gsp_jw_arr_begin(&w);
    for (int64_t v = 0; v < N; v++) {
        gsp_jw_arr_begin(&w);
        for (int64_t u = 0; u < N; u++) gsp_jw_int(&w, link[v * N + u]);
        gsp_jw_arr_end(&w);
    }
    gsp_jw_arr_end(&w);
    gsp_jw_key(&w, "switches"); gsp_jw_arr_begin(&w); gsp_jw_arr_end(&w);
    gsp_jw_obj_end(&w);
    gsp_jw_obj_end(&w);
    fputc('\n', f);
    err = gsp_jw_finish(&w);
done:
    gsp_free(width);
    gsp_free(link);
    fx_destroy(&F);
    return err;
}

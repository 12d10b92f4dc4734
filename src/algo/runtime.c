/* runtime.c — the runtime's algorithms, built from verified schedules, and the cost model.
 *
 * Bandwidth: the p = 1 allgather (one block per arc and round, the degree bound), reversed into
 * a reduce-scatter; allreduce = reduce-scatter + allgather on N blocks; broadcast = scatter down
 * the root's tree + allgather; reduce = reduce-scatter + gather up the tree. Latency: flood
 * (D rounds, messages concatenate) for allgather, and "gather" for allreduce (every rank
 * gathers every vector in D rounds and reduces them in rank order); trees (eccentricity rounds,
 * whole vectors). Every phase is a schedule without duplicate deliveries. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/runtime.h"
#include "algo_int.h"

gsp_cost_t gsp_cost_default(void) {
    gsp_cost_t c;
    memset(&c, 0, sizeof c);
    c.alpha = 1e-6;
    c.beta = 1e-10;
    c.gamma = 2e-10;
    c.hop = 1e-7;
    c.overhead = 2e-7;
    return c;
}

gsp_cost_t gsp_cost_shared_memory(void) {
    gsp_cost_t c = gsp_cost_default();
    c.alpha = 5e-7;
    c.beta = 1.2e-10;
    c.gamma = 6e-11;
    c.hop = 0;
    c.shared = true;
    return c;
}

gsp_err_t gsp_cost_parse(const char *name, const char *text, double *out) {
    char *end;
    double v = text && *text ? strtod(text, &end) : NAN;
    if (!text || !*text || *end || !isfinite(v) || v < 0)
        return gsp_error(GSP_ERR_PARSE, "%s='%s': expected a non-negative number of seconds (e.g. 1e-6)", name, text ? text : "");
    *out = v;
    return GSP_OK;
}

gsp_err_t gsp_cost_parse_beta(const char *name, const char *text, gsp_cost_t *c) {
    if (text && *text && !strchr(text, ':')) {
        c->nbeta = 0;
        return gsp_cost_parse(name, text, &c->beta);
    }
    gsp_cost_t t = *c;
    t.nbeta = 0;
    const char *p = text ? text : "";
    while (*p) {
        char *end;
        errno = 0;
        long long from = strtoll(p, &end, 10);
        if (end == p || *end != ':' || errno || from < 0 || (t.nbeta == 0 && from != 0) ||
            (t.nbeta > 0 && from <= t.beta_from[t.nbeta - 1]))
            return gsp_error(GSP_ERR_PARSE, "%s='%s': expected seconds per byte, or SIZE:SECONDS,... with sizes increasing from 0",
                             name, text ? text : "");
        if (t.nbeta == GSP_COST_MAX_BETA) return gsp_error(GSP_ERR_PARSE, "%s: at most %d sizes", name, GSP_COST_MAX_BETA);
        p = end + 1;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || v < 0 || (*end && *end != ','))
            return gsp_error(GSP_ERR_PARSE, "%s='%s': expected a non-negative number of seconds after %lld:", name, text, from);
        t.beta_from[t.nbeta] = from;
        t.beta_val[t.nbeta++] = v;
        p = *end ? end + 1 : end;
    }
    if (t.nbeta == 0) return gsp_error(GSP_ERR_PARSE, "%s='': expected seconds per byte", name);
    t.beta = t.beta_val[t.nbeta - 1];
    *c = t;
    return GSP_OK;
}

double gsp_cost_beta(const gsp_cost_t *c, double bytes) {
    double b = c->beta;
    for (int i = 0; i < c->nbeta && (double)c->beta_from[i] <= bytes; i++) b = c->beta_val[i];
    return b;
}

static void phase_destroy(gsp_rt_phase_t *p) {
    gsp_sched_destroy(&p->sched);
    gsp_free(p->maxblk);
    gsp_free(p->maxred);
    gsp_free(p->maxmsg);
    gsp_free(p->moved);
    gsp_free(p->link_hist);
    memset(p, 0, sizeof *p);
}

void gsp_rt_algos_destroy(gsp_rt_algos_t *a) {
    if (!a) return;
    for (int i = 0; i < a->n; i++)
        for (int k = 0; k < a->v[i].nphases; k++) phase_destroy(&a->v[i].phase[k]);
    gsp_free(a->v);
    memset(a, 0, sizeof *a);
}

/* Per round: blocks moved by all nodes together — one memory's load when the ranks share a
 * node. Any phase, routed or not. */
static gsp_err_t io_stats(gsp_rt_phase_t *p) {
    gsp_err_t err;
    const gsp_sched_t *s = &p->sched;
    if ((err = gsp_alloc_array((void **)&p->moved, s->nrounds + 1, sizeof *p->moved, true))) return err;
    for (int64_t r = 0; r < s->nrounds; r++) p->moved[r] = s->send_off.v[r + 1] - s->send_off.v[r];
    return GSP_OK;
}

/* Per round: most blocks on an arc, messages sent or received by a node, blocks combined at a node; over
 * the phase: the busiest arc. */
static gsp_err_t phase_stats(gsp_rt_phase_t *p, const gsp_topo_t *t) {
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

static gsp_err_t flip(const gsp_sched_t *fd, gsp_collective_t c, gsp_sched_t *out);

/* A routed phase's statistics arrays for R rounds. */
static gsp_err_t routed_arrays(gsp_rt_phase_t *p, int64_t R) {
    gsp_err_t err;
    int64_t H = p->hops + 1;
    if ((err = gsp_alloc_array((void **)&p->maxblk, R + 1, sizeof *p->maxblk, true)) ||
        (err = gsp_alloc_array((void **)&p->maxred, R + 1, sizeof *p->maxred, true)) ||
        (err = gsp_alloc_array((void **)&p->maxmsg, R + 1, sizeof *p->maxmsg, true)) ||
        (err = gsp_alloc_array((void **)&p->link_hist, R * p->nlinks * H + 1, sizeof *p->link_hist, true)))
        return err;
    return GSP_OK;
}

/* The flat tree: the root sends the whole vector to every rank directly, farthest first
 * (gather: every rank sends its vector to the root, which combines them in rank order), one
 * round of routed messages. On a cut-through network the farthest rank hears after one
 * latency plus a hop latency per further link, where a tree on arcs pays a latency and a
 * transfer per level. The prediction needs each root link's load by distance: one BFS from
 * the root and one from each of its neighbours. */
static gsp_err_t add_flat(gsp_rt_algo_t *al, const gsp_topo_t *t, int64_t root, bool gather) {
    gsp_err_t err;
    int64_t n = t->n, deg = t->off[root + 1] - t->off[root], *parent = NULL, *order = NULL, ecc2, reached2;
    int32_t *dist = NULL, *d2 = NULL;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    memset(p, 0, sizeof *p);
    p->kind = gather ? GSP_RT_REDUCE : GSP_RT_STORE;
    p->layout = GSP_RT_WHOLE;
    p->routed = true;
    p->nlinks = deg;
    if ((err = gsp__bfs_tree(t, root, &parent, &dist, &order))) return err;
    for (int64_t v = 0; v < n; v++)
        if (dist[v] > p->hops) p->hops = dist[v];
    gsp_model_t m = gsp_model_default();
    m.packets = 1;
    if ((err = gsp_sched_init(&p->sched, gather ? GSP_COLL_REDUCE : GSP_COLL_BROADCAST, t->spec, n, &m, root, "flat"))) goto done;
    if (n > 1) err = gsp_sched_round(&p->sched);
    /* Broadcast: farthest first, so the long routes start early. Gather: rank order, the
     * order the root combines in. */
    for (int64_t k = n - 1; k >= 1 && !err; k--) {
        int64_t j = n - 1 - k, v = gather ? (j < root ? j : j + 1) : order[k];
        err = gather ? gsp_sched_send(&p->sched, v, root, root) : gsp_sched_send(&p->sched, root, v, root);
    }
    if (!err) err = gsp_sched_finish(&p->sched);
    int64_t H = p->hops + 1;
    if (!err) err = routed_arrays(p, p->sched.nrounds);
    if (!err) err = io_stats(p);
    if (!err) err = gsp_alloc_array((void **)&d2, n, sizeof *d2, false);
    for (int64_t a = 0; a < deg && !err && p->sched.nrounds; a++) {
        int64_t w = t->adj[t->off[root] + a], load = 0;
        if ((err = gsp_bfs(t, w, d2, NULL, &ecc2, &reached2))) break;
        for (int64_t v = 0; v < n; v++)
            if (v != root && dist[v] >= 1 && d2[v] == dist[v] - 1) {
                p->link_hist[a * H + dist[v]]++;
                load++;
            }
        if (load > p->maxblk[0]) p->maxblk[0] = p->busiest = load;
    }
    if (!err && p->sched.nrounds) {
        p->maxmsg[0] = n - 1; /* sent by the root, or received */
        p->maxred[0] = gather ? n - 1 : 0;
    }
done:
    gsp_free(parent);
    gsp_free(dist);
    gsp_free(order);
    gsp_free(d2);
    if (err) {
        phase_destroy(p);
        return err;
    }
    al->nphases++;
    return GSP_OK;
}

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
    if (!err && gather) err = flip(&fwd, GSP_COLL_REDUCE, &p->sched);
    int64_t R = k, H = p->hops + 1;
    if (!err) err = routed_arrays(p, R);
    if (!err) err = io_stats(p);
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
        phase_destroy(p);
        return err;
    }
    al->nphases++;
    return GSP_OK;
}

/* An explicit schedule of first deliveries, run backwards: round r becomes R-1-r, (u, v, x)
 * becomes (v, u, x). Every node then sends its partial sum of x to its parent in x's tree. */
static gsp_err_t flip(const gsp_sched_t *fd, gsp_collective_t c, gsp_sched_t *out) {
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

/* A scatter from the root (reversed: a gather into it) in the packet model: block x travels to
 * node x down a BFS tree whose branches at the root are balanced (each node picks, among its
 * parents one level up, the one whose root branch is smallest), one block per tree arc and
 * round, deepest destination first. The root's d arcs carry about (N-1)/d blocks each, so the
 * scatter takes about (N-1)/d + ecc rounds and no arc ever carries a bundle: what a
 * store-and-forward tree of whole subtrees would pay at every level, this pays once. */
static gsp_err_t scatter_of(const gsp_topo_t *t, int64_t root, bool gather, const gsp_model_t *model, gsp_sched_t *out) {
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

/* Largest graph the runtime packs arborescences for: the packing costs about a second at
 * 1024 nodes of degree 10 (bench/README.md), paid once per root. */
#define MULTITREE_MAX_NODES 1024
/* The flat tree's root handles N - 1 messages at once (and, reduced, N - 1 vectors). */
#define FLAT_MAX_NODES 4096

/* k arc-disjoint spanning trees from the root (gsp_arborescences): block i of k travels down
 * tree i, level by level. Every arc belongs to one tree, so it carries one block in one round
 * and the phase can run in many segments at once: each tree is a pipeline, and the k of them
 * together use every arc into every node but the root. Reversed (gather): every node sends
 * its partial sum of block i to its parent in tree i, deepest level first. */
static gsp_err_t multitree_of(const gsp_topo_t *t, int64_t root, bool gather, const gsp_model_t *model, gsp_sched_t *out,
                              int64_t *kout) {
    gsp_err_t err;
    int64_t n = t->n, k, *par = NULL, *dep = NULL, H = 0;
    memset(out, 0, sizeof *out);
    if ((err = gsp_arborescences(t, root, 0, &k, &par, &dep))) return err;
    for (int64_t i = 0; i < k * n; i++)
        if (dep[i] > H) H = dep[i];
    gsp_model_t m = *model;
    m.packets = 1;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &m, -1, "arborescences"))) goto done;
    for (int64_t j = 0; j < H && !err; j++) {
        int64_t r = gather ? H - 1 - j : j;
        if ((err = gsp_sched_round(out))) break;
        for (int64_t i = 0; i < k && !err; i++)
            for (int64_t v = 0; v < n && !err; v++)
                if (dep[i * n + v] == r + 1)
                    err = gather ? gsp_sched_send(out, v, par[i * n + v], i) : gsp_sched_send(out, par[i * n + v], v, i);
    }
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
    else *kout = k;
done:
    gsp_free(par);
    gsp_free(dep);
    return err;
}

/* Plans c with method on t (model: packets p) and keeps its first deliveries. */
static gsp_err_t plan_fd(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t packets, int64_t root,
                         const char *method, gsp_sched_t *out, char *from, size_t fromlen) {
    gsp_err_t err;
    gsp_plan_t pl;
    gsp_model_t m = gsp_model_default();
    m.packets = packets;
    gsp_plan_in_t in = {t, d, m, root, 1, NULL, NULL, 0, 0};
    if ((err = gsp_plan(&in, c, method, &pl))) return err;
    err = gsp_sched_first_deliveries(&pl.sched, t, out);
    if (!err) snprintf(from, fromlen, "%s", pl.method->name);
    gsp_plan_destroy(&pl);
    return err;
}

static gsp_err_t add_algo(gsp_rt_algos_t *a, const char *name, gsp_collective_t c, int64_t root, gsp_rt_algo_t **out) {
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

/* Adds a phase with its statistics: s's first deliveries (reversed: flipped), or for a scatter
 * or gather (reversed < 0) a copy of s as it is — there the root holds every block at the
 * start, which the allgather's notion of a first delivery does not know. */
static gsp_err_t add_phase(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, int reversed, gsp_rt_kind_t kind,
                           gsp_rt_layout_t layout) {
    gsp_err_t err;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->layout = layout;
    if (reversed < 0) {
        gsp_sched_t tmp;
        /* flip twice = a copy */
        if ((err = flip(s, s->coll, &tmp))) return err;
        err = flip(&tmp, s->coll, &p->sched);
        gsp_sched_destroy(&tmp);
    } else
        err = reversed ? flip(s, GSP_COLL_REDUCE_SCATTER, &p->sched) : gsp_sched_first_deliveries(s, t, &p->sched);
    if (err) return err;
    al->nphases++;
    if ((err = phase_stats(p, t))) return err;
    return io_stats(p);
}

gsp_err_t gsp_rt_algos(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t root, const char *method,
                       gsp_rt_algos_t *out) {
    gsp_err_t err = GSP_OK;
    gsp_sched_t ag1, flood, tree, sc;
    char f_ag1[32] = "", f_flood[32] = "", f_tree[32] = "";
    bool have_ag1 = false, have_flood = false;
    gsp_rt_algo_t *al = NULL;
    memset(out, 0, sizeof *out);
    memset(&ag1, 0, sizeof ag1);
    memset(&flood, 0, sizeof flood);
    memset(&tree, 0, sizeof tree);
    memset(&sc, 0, sizeof sc);
    if (!method || !*method) method = "auto";
    bool rooted = c == GSP_COLL_BROADCAST || c == GSP_COLL_REDUCE;
    if (rooted && (root < 0 || root >= t->n))
        return gsp_error(GSP_ERR_RANGE, "root %lld outside 0..%lld", (long long)root, (long long)t->n - 1);
    if (t->directed && c != GSP_COLL_ALLGATHER && c != GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: reductions run allgather schedules backwards and need an undirected graph", t->spec);
    /* A broadcast method names the tree; anything else the allgather construction. */
    bool tree_method = gsp_method_find(method, GSP_COLL_BROADCAST) != NULL;
    if (strcmp(method, "auto") && !tree_method && !gsp_method_find(method, GSP_COLL_ALLGATHER))
        return gsp_error(GSP_ERR_INVAL, "no allgather or broadcast method '%s' (see 'gossip list')", method);
    if (c != GSP_COLL_BROADCAST || !tree_method) {
        const char *m1 = tree_method ? "auto" : method;
        if (!(err = plan_fd(t, d, GSP_COLL_ALLGATHER, 1, -1, m1, &ag1, f_ag1, sizeof f_ag1))) have_ag1 = true;
        else if (strcmp(m1, "auto") && strcmp(m1, "flood")) goto fail; /* the user's method must work */
        err = GSP_OK;
    }
    if (c == GSP_COLL_ALLGATHER || c == GSP_COLL_REDUCE_SCATTER || c == GSP_COLL_ALLREDUCE) {
        if (!(err = plan_fd(t, d, GSP_COLL_ALLGATHER, GSP_PACKETS_INF, -1, "flood", &flood, f_flood, sizeof f_flood)))
            have_flood = true;
        err = GSP_OK;
    }
    if (c == GSP_COLL_ALLREDUCE || rooted) {
        int64_t r = rooted ? root : 0;
        if ((err = plan_fd(t, d, GSP_COLL_BROADCAST, 1, r, tree_method ? method : "auto", &tree, f_tree, sizeof f_tree))) goto fail;
    }
    switch (c) {
    case GSP_COLL_ALLGATHER:
    case GSP_COLL_REDUCE_SCATTER: {
        gsp_rt_kind_t k = c == GSP_COLL_ALLGATHER ? GSP_RT_STORE : GSP_RT_REDUCE;
        gsp_rt_layout_t l = c == GSP_COLL_ALLGATHER ? GSP_RT_RANK : GSP_RT_SPLIT;
        bool rev = c == GSP_COLL_REDUCE_SCATTER;
        if (have_ag1) {
            if ((err = add_algo(out, "packet", c, -1, &al)) || (err = add_phase(al, t, &ag1, rev, k, l))) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", f_ag1);
        }
        if (have_flood) {
            if ((err = add_algo(out, "flood", c, -1, &al)) || (err = add_phase(al, t, &flood, rev, k, l))) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", f_flood);
        }
        break;
    }
    case GSP_COLL_ALLREDUCE:
        if (have_ag1) {
            if ((err = add_algo(out, "rs-ag", c, -1, &al)) || (err = add_phase(al, t, &ag1, true, GSP_RT_REDUCE, GSP_RT_SPLIT)) ||
                (err = add_phase(al, t, &ag1, false, GSP_RT_STORE, GSP_RT_SPLIT)))
                goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s reversed, then forward", f_ag1);
        }
        if (have_flood) {
            if ((err = add_algo(out, "rs-ag-flood", c, -1, &al)) ||
                (err = add_phase(al, t, &flood, true, GSP_RT_REDUCE, GSP_RT_SPLIT)) ||
                (err = add_phase(al, t, &flood, false, GSP_RT_STORE, GSP_RT_SPLIT)))
                goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s reversed, then forward", f_flood);
            if ((err = add_algo(out, "gather", c, -1, &al)) || (err = add_phase(al, t, &flood, false, GSP_RT_STORE, GSP_RT_RANK)))
                goto fail;
            al->local_reduce = true;
            snprintf(al->built_from, sizeof al->built_from, "%s, then a reduction in rank order", f_flood);
        }
        if ((err = add_algo(out, "tree", c, -1, &al)) || (err = add_phase(al, t, &tree, true, GSP_RT_REDUCE, GSP_RT_WHOLE)) ||
            (err = add_phase(al, t, &tree, false, GSP_RT_STORE, GSP_RT_WHOLE)))
            goto fail;
        snprintf(al->built_from, sizeof al->built_from, "%s from 0, reversed, then forward", f_tree);
        break;
    case GSP_COLL_BROADCAST:
    case GSP_COLL_REDUCE: {
        bool bc = c == GSP_COLL_BROADCAST;
        if ((err = add_algo(out, "tree", c, root, &al)) ||
            (err = add_phase(al, t, &tree, !bc, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_WHOLE)))
            goto fail;
        snprintf(al->built_from, sizeof al->built_from, "%s%s", bc ? "" : "reversed ", f_tree);
        if (t->n > 1 && t->n <= FLAT_MAX_NODES) {
            if ((err = add_algo(out, "flat", c, root, &al)) || (err = add_flat(al, t, root, !bc))) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s", bc ? "direct messages from the root" : "direct messages to the root, combined in rank order");
        }
        if (t->n > 1 && has_dims(t)) {
            if ((err = add_algo(out, "dims", c, root, &al)) || (err = add_dims(al, t, root, !bc))) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "a flat broadcast along each coordinate's ring%s", bc ? "" : ", reversed");
        }
        if (have_ag1) {
            if ((err = scatter_of(t, root, !bc, &tree.model, &sc)))
                goto fail;
            if ((err = add_algo(out, bc ? "scatter-allgather" : "rs-gather", c, root, &al))) goto fail;
            if (bc) {
                if ((err = add_phase(al, t, &sc, -1, GSP_RT_STORE, GSP_RT_SPLIT)) ||
                    (err = add_phase(al, t, &ag1, false, GSP_RT_STORE, GSP_RT_SPLIT)))
                    goto fail;
                snprintf(al->built_from, sizeof al->built_from, "a balanced BFS scatter, then %s", f_ag1);
            } else {
                if ((err = add_phase(al, t, &ag1, true, GSP_RT_REDUCE, GSP_RT_SPLIT)) ||
                    (err = add_phase(al, t, &sc, -1, GSP_RT_STORE, GSP_RT_SPLIT)))
                    goto fail;
                snprintf(al->built_from, sizeof al->built_from, "reversed %s, then a balanced BFS gather", f_ag1);
            }
        }
        if (t->n > 1 && t->n <= MULTITREE_MAX_NODES) {
            int64_t k = 0;
            gsp_sched_t mt;
            if ((err = multitree_of(t, root, !bc, &tree.model, &mt, &k))) goto fail;
            if (!(err = add_algo(out, "multitree", c, root, &al))) {
                err = add_phase(al, t, &mt, -1, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_SPLIT);
                al->phase[0].nblocks = k;
                al->phase[0].pipelined = true;
                snprintf(al->built_from, sizeof al->built_from, "%lld arc-disjoint spanning trees%s, pipelined", (long long)k,
                         bc ? "" : " reversed");
            }
            gsp_sched_destroy(&mt);
            if (err) goto fail;
        }
        break;
    }
    }
    if (out->n == 0) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm for %s applies to %s", gsp_collective_name(c), t->spec);
        goto fail;
    }
    goto done;
fail:
    gsp_rt_algos_destroy(out);
done:
    gsp_sched_destroy(&ag1);
    gsp_sched_destroy(&flood);
    gsp_sched_destroy(&tree);
    gsp_sched_destroy(&sc);
    return err;
}

/* A round through one memory: every block moved, and every block combined, passes through it. */
static double shared_work(const gsp_rt_phase_t *ph, int64_t r, double blk, const gsp_cost_t *c) {
    double moved = (double)ph->moved[r] * blk;
    return gsp_cost_beta(c, blk) * moved + (ph->kind == GSP_RT_REDUCE ? c->gamma * moved : 0);
}

/* One round's cost on whole blocks of blk bytes, without alpha: the worst round of the phase. */
static double round_work(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c) {
    double w = 0;
    for (int64_t r = 0; r < ph->sched.nrounds; r++) {
        double seg = c->segment > 0 && (double)c->segment < blk ? (double)c->segment : blk;
        double x = c->shared ? shared_work(ph, r, blk, c)
                             : gsp_cost_beta(c, seg) * (double)ph->maxblk[r] * blk + c->gamma * (double)ph->maxred[r] * blk;
        if (x > w) w = x;
    }
    return w;
}

int64_t gsp_rt_segments(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c) {
    if (!ph->pipelined || blk <= 0) return 1;
    double s;
    if (c->segment > 0) s = ceil(blk / (double)c->segment);
    /* A segment whose transfer takes about one latency: shorter ones pay alpha more often
     * than they save, longer ones lengthen every hop of the pipeline. */
    else s = c->alpha > 0 ? ceil(round_work(ph, blk, c) / c->alpha * (1 - 1e-12)) : GSP_RT_MAX_SEGMENTS;
    if (s > GSP_RT_MAX_SEGMENTS) s = GSP_RT_MAX_SEGMENTS;
    if (s > blk) s = floor(blk);
    return s < 1 ? 1 : (int64_t)s;
}

void gsp_rt_predict(const gsp_rt_algo_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c, gsp_rt_pred_t *p) {
    memset(p, 0, sizeof *p);
    double vec = a->coll == GSP_COLL_REDUCE_SCATTER ? (double)bytes * (double)nodes : (double)bytes;
    for (int k = 0; k < a->nphases; k++) {
        const gsp_rt_phase_t *ph = &a->phase[k];
        double nb = ph->nblocks > 0 ? (double)ph->nblocks : (double)nodes;
        double blk = ph->layout == GSP_RT_RANK ? (double)bytes : ph->layout == GSP_RT_SPLIT ? ceil(vec / nb) : vec;
        if (ph->layout == GSP_RT_RANK && a->coll == GSP_COLL_ALLREDUCE) blk = vec;
        p->rounds += ph->sched.nrounds;
        p->transfers += ph->sched.nsends;
        p->busiest_bytes += (double)ph->busiest * blk;
        if (ph->pipelined && c->shared) {
            /* One memory carries every round's bytes whatever overlaps: only latencies hide. */
            double R = (double)ph->sched.nrounds;
            for (int64_t r = 0; r < ph->sched.nrounds; r++) p->seconds += shared_work(ph, r, blk, c);
            if (R > 0) p->seconds += c->alpha * R;
            continue;
        }
        if (ph->pipelined) {
            /* S segments stream through R levels: the busiest arc's whole load once, plus
             * one segment's latency and transfer per further level (latencies overlap). */
            double S = (double)gsp_rt_segments(ph, blk, c), R = (double)ph->sched.nrounds, w = round_work(ph, blk, c);
            if (R > 0) p->seconds += c->alpha + w + (R - 1) * (c->alpha + w / S);
            continue;
        }
        for (int64_t r = 0; r < ph->sched.nrounds; r++) {
            double extra = c->overhead * (double)(ph->maxmsg[r] > 1 ? ph->maxmsg[r] - 1 : 0) + c->gamma * (double)ph->maxred[r] * blk;
            if (c->shared)
                p->seconds += c->alpha + shared_work(ph, r, blk, c) + c->overhead * (double)(ph->maxmsg[r] > 1 ? ph->maxmsg[r] - 1 : 0);
            else if (ph->routed) {
                /* A message waits for its route's latency, then shares its first link with the
                 * messages already there: per link, nearest first; the last to finish wins. */
                double last = 0;
                for (int64_t l = 0; l < ph->nlinks; l++) {
                    const int64_t *hist = ph->link_hist + (r * ph->nlinks + l) * (ph->hops + 1);
                    double T = 0;
                    for (int64_t h = 1; h <= ph->hops; h++) {
                        if (!hist[h]) continue;
                        double ready = c->hop * (double)(h - 1);
                        T = (T > ready ? T : ready) + gsp_cost_beta(c, blk) * blk * (double)hist[h];
                    }
                    if (T > last) last = T;
                }
                p->seconds += c->alpha + last + extra;
            } else {
                /* With segments the runtime sends each block in up to GSP_RT_MAX_LANES lanes:
                 * the per-byte cost is that of the lanes' messages. */
                double lanes = c->segment > 0 ? fmin(GSP_RT_MAX_LANES, ceil(blk / (double)c->segment)) : 1;
                double msg = (double)ph->maxblk[r] * blk / (lanes > 1 ? lanes : 1);
                p->seconds += c->alpha + gsp_cost_beta(c, msg) * (double)ph->maxblk[r] * blk + extra;
            }
        }
    }
    /* gather: every rank combines N vectors (through one memory: all of them do, in turn) */
    if (a->local_reduce) p->seconds += c->gamma * (double)(nodes - 1) * vec * (c->shared ? (double)nodes : 1);
}

int gsp_rt_choose(const gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c) {
    int best = -1;
    double bt = 0;
    for (int i = 0; i < a->n; i++) {
        gsp_rt_pred_t p;
        gsp_rt_predict(&a->v[i], nodes, bytes, c, &p);
        if (best < 0 || p.seconds < bt) {
            best = i;
            bt = p.seconds;
        }
    }
    return best;
}

int gsp_rt_find(const gsp_rt_algos_t *a, const char *name) {
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->v[i].name, name)) return i;
    return -1;
}

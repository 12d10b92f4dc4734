/* rt_algos.c — the runtime's candidate algorithms, built from verified schedules in compact form.
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
#include "rt_int.h"

static void phase_destroy(gsp_rt_phase_t *p) {
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
    memset(p, 0, sizeof *p);
}

void gsp_rt_algos_destroy(gsp_rt_algos_t *a) {
    if (!a) return;
    for (int i = 0; i < a->n; i++)
        for (int k = 0; k < a->v[i].nphases; k++) phase_destroy(&a->v[i].phase[k]);
    gsp_free(a->v);
    gsp_sched_destroy(&a->ag1);
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
    p->nrounds = p->sched.nrounds;
    p->ntransfers = p->sched.nsends;
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
    p->nrounds = p->sched.nrounds;
    p->ntransfers = p->sched.nsends;
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

/* ---- schedules in compact form ---- */

/* Plans c with method on t (model: packets p). */
static gsp_err_t plan_of(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t packets, int64_t root,
                         const char *method, gsp_plan_t *pl) {
    gsp_model_t m = gsp_model_default();
    m.packets = packets;
    gsp_plan_in_t in = {t, d, m, root, 1, NULL, NULL, 0, 0};
    return gsp_plan(&in, c, method, pl);
}

/* The first deliveries of a symmetric allgather, still symmetric: origin e's packet reaches
 * s_i g by entry (t, i, g); every origin's deliveries are e's translated, so keeping e's first
 * delivery to each node keeps every origin's. O(entries). */
static gsp_err_t sym_first(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
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
static gsp_err_t tree_first(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
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

static gsp_err_t stat_arrays(gsp_rt_phase_t *p, int64_t R) {
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)&p->maxblk, R + 1, sizeof *p->maxblk, true)) ||
        (err = gsp_alloc_array((void **)&p->maxred, R + 1, sizeof *p->maxred, true)) ||
        (err = gsp_alloc_array((void **)&p->maxmsg, R + 1, sizeof *p->maxmsg, true)) ||
        (err = gsp_alloc_array((void **)&p->moved, R + 1, sizeof *p->moved, true)))
        return err;
    return GSP_OK;
}

/* A symmetric phase's statistics, the same at every node: in round t node u's arc i carries one
 * block per entry (t, i, .) (reversed: the inverse arc, in round R-1-t), u receives one block per
 * entry of the round, and sends one message per generator used. */
static gsp_err_t add_symmetric(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, bool reversed, gsp_rt_kind_t kind,
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
    if ((err = stat_arrays(p, R)) || (err = gsp_alloc_array((void **)&per, d + 1, sizeof *per, true)) ||
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
static gsp_err_t add_tree(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *fd, int64_t root, bool reversed) {
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
        (err = gsp_alloc_array((void **)&p->tchild, n, sizeof *p->tchild, false)) || (err = stat_arrays(p, R)) ||
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

/* ---- pending algorithms: lower-bound statistics ---- */

/* A pending phase of at least R rounds moving at least `moved` blocks in all: one block on the
 * busiest arc and one message per round, the moves spread evenly — no schedule of R or more
 * rounds costs less in the model. */
static gsp_err_t add_pending(gsp_rt_algo_t *al, gsp_rt_kind_t kind, gsp_rt_layout_t layout, int64_t R, int64_t moved) {
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
    if ((err = stat_arrays(p, R))) return err;
    for (int64_t r = 0; r < R; r++) {
        p->maxblk[r] = p->maxmsg[r] = 1;
        p->maxred[r] = kind == GSP_RT_REDUCE;
        p->moved[r] = moved / R + (r < moved % R);
    }
    return GSP_OK;
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

/* Adds an explicit phase with its statistics: s's first deliveries (reversed: flipped), or
 * (reversed < 0) a copy of s as it is — a scatter or gather, where the root holds every block
 * at the start (which the allgather's notion of a first delivery does not know), or a tree
 * that is first deliveries already. */
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
    p->nrounds = p->sched.nrounds;
    p->ntransfers = p->sched.nsends;
    if ((err = phase_stats(p, t))) return err;
    return io_stats(p);
}

/* An allgather phase (forward or reversed) from first deliveries s: symmetric when s is. */
static gsp_err_t add_ag_phase(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, bool reversed, gsp_rt_kind_t kind,
                              gsp_rt_layout_t layout) {
    if (s->symmetric) return add_symmetric(al, t, s, reversed, kind, layout);
    /* s is first deliveries already: forward, a copy. */
    return add_phase(al, t, s, reversed ? 1 : -1, kind, layout);
}

/* Explicit schedules (graphs without a group): N(N-1) transfers a phase. */
#define EXPLICIT_MAX_NODES 4096
/* Above this size the p = 1 allgather is planned only by the methods that build it in about
 * linear time (a complete rotation, the circulants' construction): a search would cost minutes
 * at start-up. */
#define AG1_SEARCH_MAX_NODES 16384

/* The p = 1 allgather, planned once per set: its first deliveries (symmetric on Cayley graphs). */
static gsp_err_t need_ag1(gsp_rt_algos_t *a) {
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
            if (gsp_method_find(fast[i], GSP_COLL_ALLGATHER)) err = plan_of(a->topo, a->dist, GSP_COLL_ALLGATHER, 1, -1, fast[i], &pl);
        if (err == GSP_ERR_NOTAPPLIC)
            return gsp_error(GSP_ERR_NOTAPPLIC, "%s: no complete rotation, and a search is too slow above %d nodes", a->topo->spec,
                             AG1_SEARCH_MAX_NODES);
    } else
        err = plan_of(a->topo, a->dist, GSP_COLL_ALLGATHER, 1, -1, m, &pl);
    if (err) return err;
    err = pl.sched.symmetric ? sym_first(&pl.sched, a->topo, &a->ag1) : gsp_sched_first_deliveries(&pl.sched, a->topo, &a->ag1);
    if (!err) {
        snprintf(a->ag1_from, sizeof a->ag1_from, "%s", pl.method->name);
        a->have_ag1 = true;
    }
    gsp_plan_destroy(&pl);
    return err;
}

/* The flood's first deliveries (symmetric on Cayley graphs: the BFS tree of e). */
static gsp_err_t flood_of(const gsp_rt_algos_t *a, gsp_sched_t *out, char *from, size_t fromlen) {
    gsp_plan_t pl;
    gsp_err_t err = plan_of(a->topo, a->dist, GSP_COLL_ALLGATHER, GSP_PACKETS_INF, -1, "flood", &pl);
    if (err) return err;
    err = pl.sched.symmetric ? sym_first(&pl.sched, a->topo, out) : gsp_sched_first_deliveries(&pl.sched, a->topo, out);
    if (!err) snprintf(from, fromlen, "%s", pl.method->name);
    gsp_plan_destroy(&pl);
    return err;
}

/* Builds the phases of algorithm al (its name says which), replacing any pending ones. */
static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err = GSP_OK;
    const gsp_topo_t *t = a->topo;
    gsp_sched_t s;
    char from[32] = "";
    memset(&s, 0, sizeof s);
    for (int k = 0; k < al->nphases; k++) phase_destroy(&al->phase[k]);
    al->nphases = 0;
    al->pending = false;
    const char *nm = al->name;
    gsp_collective_t c = al->coll;
    bool bc = c == GSP_COLL_BROADCAST;
    if (!strcmp(nm, "packet") || !strcmp(nm, "rs-ag") || !strcmp(nm, "scatter-allgather") || !strcmp(nm, "rs-gather")) {
        if ((err = need_ag1(a))) goto done;
        const gsp_sched_t *g = &a->ag1;
        if (!strcmp(nm, "packet")) {
            bool rev = c == GSP_COLL_REDUCE_SCATTER;
            err = add_ag_phase(al, t, g, rev, rev ? GSP_RT_REDUCE : GSP_RT_STORE, rev ? GSP_RT_SPLIT : GSP_RT_RANK);
            snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", a->ag1_from);
        } else if (!strcmp(nm, "rs-ag")) {
            if (!(err = add_ag_phase(al, t, g, true, GSP_RT_REDUCE, GSP_RT_SPLIT)))
                err = add_ag_phase(al, t, g, false, GSP_RT_STORE, GSP_RT_SPLIT);
            snprintf(al->built_from, sizeof al->built_from, "%s reversed, then forward", a->ag1_from);
        } else {
            gsp_model_t m = gsp_model_default();
            if ((err = scatter_of(t, al->root, !bc, &m, &s))) goto done;
            if (bc) {
                if (!(err = add_phase(al, t, &s, -1, GSP_RT_STORE, GSP_RT_SPLIT))) err = add_ag_phase(al, t, g, false, GSP_RT_STORE, GSP_RT_SPLIT);
                snprintf(al->built_from, sizeof al->built_from, "a balanced BFS scatter, then %s", a->ag1_from);
            } else {
                if (!(err = add_ag_phase(al, t, g, true, GSP_RT_REDUCE, GSP_RT_SPLIT))) err = add_phase(al, t, &s, -1, GSP_RT_STORE, GSP_RT_SPLIT);
                snprintf(al->built_from, sizeof al->built_from, "reversed %s, then a balanced BFS gather", a->ag1_from);
            }
        }
    } else if (!strcmp(nm, "flood") || !strcmp(nm, "rs-ag-flood") || !strcmp(nm, "gather")) {
        if ((err = flood_of(a, &s, from, sizeof from))) goto done;
        if (!strcmp(nm, "flood")) {
            bool rev = c == GSP_COLL_REDUCE_SCATTER;
            err = add_ag_phase(al, t, &s, rev, rev ? GSP_RT_REDUCE : GSP_RT_STORE, rev ? GSP_RT_SPLIT : GSP_RT_RANK);
            snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", from);
        } else if (!strcmp(nm, "rs-ag-flood")) {
            if (!(err = add_ag_phase(al, t, &s, true, GSP_RT_REDUCE, GSP_RT_SPLIT))) err = add_ag_phase(al, t, &s, false, GSP_RT_STORE, GSP_RT_SPLIT);
            snprintf(al->built_from, sizeof al->built_from, "%s reversed, then forward", from);
        } else {
            err = add_ag_phase(al, t, &s, false, GSP_RT_STORE, GSP_RT_RANK);
            al->local_reduce = true;
            snprintf(al->built_from, sizeof al->built_from, "%s, then a reduction in rank order", from);
        }
    } else if (!strcmp(nm, "multitree")) {
        int64_t k = 0;
        gsp_model_t m = gsp_model_default();
        if ((err = multitree_of(t, al->root, !bc, &m, &s, &k))) goto done;
        if (!(err = add_phase(al, t, &s, -1, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_SPLIT))) {
            al->phase[0].nblocks = k;
            al->phase[0].pipelined = true;
        }
        snprintf(al->built_from, sizeof al->built_from, "%lld arc-disjoint spanning trees%s, pipelined", (long long)k, bc ? "" : " reversed");
    } else
        err = gsp_error(GSP_ERR_INTERNAL, "no builder for runtime algorithm %s", nm);
done:
    gsp_sched_destroy(&s);
    return err;
}

gsp_err_t gsp_rt_realize(gsp_rt_algos_t *a, int i, bool *removed) {
    *removed = false;
    if (i < 0 || i >= a->n) return gsp_error(GSP_ERR_RANGE, "no algorithm %d", i);
    gsp_rt_algo_t *al = &a->v[i];
    if (!al->pending) return GSP_OK;
    gsp_err_t err = build(a, al);
    if (err == GSP_ERR_NOTAPPLIC) {
        /* Its schedule does not exist here: not a candidate. */
        for (int k = 0; k < al->nphases; k++) phase_destroy(&al->phase[k]);
        memmove(&a->v[i], &a->v[i + 1], (size_t)(a->n - i - 1) * sizeof *a->v);
        a->n--;
        *removed = true;
        return GSP_OK;
    }
    return err;
}

gsp_err_t gsp_rt_choose_build(gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c,
                              bool (*skip)(const gsp_rt_algo_t *, void *), void *ctx, int *idx) {
    for (;;) {
        int best = -1;
        double bt = 0;
        for (int i = 0; i < a->n; i++) {
            if (skip && skip(&a->v[i], ctx)) continue;
            gsp_rt_pred_t p;
            gsp_rt_predict(&a->v[i], nodes, bytes, c, &p);
            if (best < 0 || p.seconds < bt) {
                best = i;
                bt = p.seconds;
            }
        }
        *idx = best;
        if (best < 0) return gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm is left");
        if (!a->v[best].pending) return GSP_OK;
        /* Its lower bound wins: build it and compare again with what it really costs. */
        bool removed;
        gsp_err_t err = gsp_rt_realize(a, best, &removed);
        if (err) return err;
    }
}

gsp_err_t gsp_rt_algos(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t root, const char *method,
                       gsp_rt_algos_t *out) {
    gsp_err_t err = GSP_OK;
    gsp_sched_t flood, tree;
    char f_flood[32] = "", f_tree[32] = "";
    gsp_rt_algo_t *al = NULL;
    memset(out, 0, sizeof *out);
    memset(&flood, 0, sizeof flood);
    memset(&tree, 0, sizeof tree);
    if (!method || !*method) method = "auto";
    out->topo = t;
    out->dist = d;
    snprintf(out->method, sizeof out->method, "%s", method);
    bool rooted = c == GSP_COLL_BROADCAST || c == GSP_COLL_REDUCE;
    if (rooted && (root < 0 || root >= t->n))
        return gsp_error(GSP_ERR_RANGE, "root %lld outside 0..%lld", (long long)root, (long long)t->n - 1);
    if (t->directed && c != GSP_COLL_ALLGATHER && c != GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: reductions run allgather schedules backwards and need an undirected graph", t->spec);
    /* A broadcast method names the tree; anything else the allgather construction. */
    bool tree_method = gsp_method_find(method, GSP_COLL_BROADCAST) != NULL;
    if (strcmp(method, "auto") && !tree_method && !gsp_method_find(method, GSP_COLL_ALLGATHER))
        return gsp_error(GSP_ERR_INVAL, "no allgather or broadcast method '%s' (see 'gossip list')", method);
    int64_t n = t->n, maxin = 1, ecc = d->diameter;
    for (int64_t v = 0; v < n; v++)
        if (t->off[v + 1] - t->off[v] > maxin) maxin = t->off[v + 1] - t->off[v];
    /* A named allgather method must work: plan it now, so its failure is the caller's error. */
    bool named = strcmp(method, "auto") && !tree_method && strcmp(method, "flood");
    if (named && (c != GSP_COLL_BROADCAST || !tree_method) && (err = need_ag1(out))) goto fail;
    bool cayley = t->group != NULL;
    /* Lower bounds of the pending algorithms: every node receives N - 1 blocks over at most
     * maxin arcs a round (p = 1), and not before the diameter. */
    int64_t R1 = n > 1 ? (n - 2) / maxin + 1 : 0, all = n * (n - 1);
    if (R1 < ecc) R1 = ecc;
    bool big = !cayley && n > EXPLICIT_MAX_NODES;
    if ((c == GSP_COLL_ALLGATHER || c == GSP_COLL_REDUCE_SCATTER || c == GSP_COLL_ALLREDUCE) && cayley &&
        (err = flood_of(out, &flood, f_flood, sizeof f_flood)))
        goto fail;
    if (c == GSP_COLL_ALLREDUCE || rooted) {
        gsp_plan_t pl;
        int64_t r = cayley || !rooted ? 0 : root;
        if ((err = plan_of(t, d, GSP_COLL_BROADCAST, 1, r, tree_method ? method : "auto", &pl))) goto fail;
        err = tree_first(&pl.sched, t, &tree);
        snprintf(f_tree, sizeof f_tree, "%s", pl.method->name);
        gsp_plan_destroy(&pl);
        if (err) goto fail;
    }
    bool packets_ok = !big && (!tree_method || c != GSP_COLL_BROADCAST);
    switch (c) {
    case GSP_COLL_ALLGATHER:
    case GSP_COLL_REDUCE_SCATTER: {
        bool rev = c == GSP_COLL_REDUCE_SCATTER;
        gsp_rt_kind_t k = rev ? GSP_RT_REDUCE : GSP_RT_STORE;
        gsp_rt_layout_t l = rev ? GSP_RT_SPLIT : GSP_RT_RANK;
        if (packets_ok && ((err = add_algo(out, "packet", c, -1, &al)) || (err = add_pending(al, k, l, R1, all)))) goto fail;
        if (cayley) {
            if ((err = add_algo(out, "flood", c, -1, &al)) || (err = add_ag_phase(al, t, &flood, rev, k, l))) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", f_flood);
        } else if (!big && ((err = add_algo(out, "flood", c, -1, &al)) || (err = add_pending(al, k, l, ecc, all))))
            goto fail;
        if (gsp__rt_rings_apply(t)) {
            if ((err = add_algo(out, "rings", c, -1, &al)) || (err = gsp__rt_rings_phase(&al->phase[0], t, !rev, k, l))) goto fail;
            al->nphases = 1;
            snprintf(al->built_from, sizeof al->built_from, "a ring per dimension, every port at once");
        }
        break;
    }
    case GSP_COLL_ALLREDUCE:
        if (packets_ok && ((err = add_algo(out, "rs-ag", c, -1, &al)) || (err = add_pending(al, GSP_RT_REDUCE, GSP_RT_SPLIT, R1, all)) ||
                           (err = add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, R1, all))))
            goto fail;
        if (cayley) {
            if ((err = add_algo(out, "rs-ag-flood", c, -1, &al)) || (err = add_ag_phase(al, t, &flood, true, GSP_RT_REDUCE, GSP_RT_SPLIT)) ||
                (err = add_ag_phase(al, t, &flood, false, GSP_RT_STORE, GSP_RT_SPLIT)))
                goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s reversed, then forward", f_flood);
            if ((err = add_algo(out, "gather", c, -1, &al)) || (err = add_ag_phase(al, t, &flood, false, GSP_RT_STORE, GSP_RT_RANK))) goto fail;
            al->local_reduce = true;
            snprintf(al->built_from, sizeof al->built_from, "%s, then a reduction in rank order", f_flood);
        } else if (!big) {
            if ((err = add_algo(out, "rs-ag-flood", c, -1, &al)) || (err = add_pending(al, GSP_RT_REDUCE, GSP_RT_SPLIT, ecc, all)) ||
                (err = add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, ecc, all)))
                goto fail;
            if ((err = add_algo(out, "gather", c, -1, &al)) || (err = add_pending(al, GSP_RT_STORE, GSP_RT_RANK, ecc, all))) goto fail;
            al->local_reduce = true;
        }
        if (gsp__rt_rings_apply(t)) {
            if ((err = add_algo(out, "rings", c, -1, &al))) goto fail;
            err = gsp__rt_rings_phase(&al->phase[0], t, false, GSP_RT_REDUCE, GSP_RT_SPLIT);
            al->nphases = 1;
            if (!err) err = gsp__rt_rings_phase(&al->phase[1], t, true, GSP_RT_STORE, GSP_RT_SPLIT);
            al->nphases = 2;
            if (err) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "a ring per dimension, every port at once, reversed, then forward");
        }
        if ((err = add_algo(out, "tree", c, -1, &al))) goto fail;
        /* (the tree is first deliveries already: explicit phases copy it as it is) */
        if (cayley) err = add_tree(al, t, &tree, 0, true);
        else err = add_phase(al, t, &tree, 1, GSP_RT_REDUCE, GSP_RT_WHOLE);
        if (!err) err = cayley ? add_tree(al, t, &tree, 0, false) : add_phase(al, t, &tree, -1, GSP_RT_STORE, GSP_RT_WHOLE);
        if (err) goto fail;
        snprintf(al->built_from, sizeof al->built_from, "%s from 0, reversed, then forward", f_tree);
        break;
    case GSP_COLL_BROADCAST:
    case GSP_COLL_REDUCE: {
        bool bc = c == GSP_COLL_BROADCAST;
        if ((err = add_algo(out, "tree", c, root, &al))) goto fail;
        err = cayley ? add_tree(al, t, &tree, root, !bc) : add_phase(al, t, &tree, bc ? -1 : 1, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_WHOLE);
        if (err) goto fail;
        snprintf(al->built_from, sizeof al->built_from, "%s%s", bc ? "" : "reversed ", f_tree);
        if (n > 1 && n <= FLAT_MAX_NODES) {
            if ((err = add_algo(out, "flat", c, root, &al)) || (err = add_flat(al, t, root, !bc))) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "%s", bc ? "direct messages from the root" : "direct messages to the root, combined in rank order");
        }
        if (n > 1 && has_dims(t)) {
            if ((err = add_algo(out, "dims", c, root, &al)) || (err = add_dims(al, t, root, !bc))) goto fail;
            snprintf(al->built_from, sizeof al->built_from, "a flat broadcast along each coordinate's ring%s", bc ? "" : ", reversed");
        }
        if (packets_ok && n > 1) {
            /* The scatter's root sends N - 1 blocks over its arcs. */
            int64_t deg = t->off[root + 1] - t->off[root], Rs = (n - 2) / (deg > 0 ? deg : 1) + 1;
            if ((err = add_algo(out, bc ? "scatter-allgather" : "rs-gather", c, root, &al))) goto fail;
            if (bc) err = add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, Rs, n - 1);
            if (!err) err = add_pending(al, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_SPLIT, R1, all);
            if (!err && !bc) err = add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, Rs, n - 1);
            if (err) goto fail;
        }
        if (n > 1 && n <= MULTITREE_MAX_NODES) {
            /* At most deg(root) trees, each at least the root's eccentricity deep. */
            int64_t deg = t->off[root + 1] - t->off[root], reached;
            int32_t *dr = NULL;
            if ((err = gsp_alloc_array((void **)&dr, n, sizeof *dr, false))) goto fail;
            err = gsp_bfs(t, root, dr, NULL, &ecc, &reached);
            gsp_free(dr);
            if (err) goto fail;
            if ((err = add_algo(out, "multitree", c, root, &al)) ||
                (err = add_pending(al, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_SPLIT, ecc, n - 1)))
                goto fail;
            al->phase[0].nblocks = deg;
            al->phase[0].pipelined = true;
        }
        break;
    }
    }
    if (out->n == 0) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm for %s applies to %s%s", gsp_collective_name(c), t->spec,
                        big ? " (a graph without a group is planned explicitly up to 4096 nodes)" : "");
        goto fail;
    }
    /* A named method's algorithms are built now: what the user asked for must exist. */
    for (int i = 0; named && i < out->n; i++) {
        bool removed;
        if ((err = gsp_rt_realize(out, i, &removed))) goto fail;
        if (removed) i--;
    }
    goto done;
fail:
    gsp_rt_algos_destroy(out);
done:
    gsp_sched_destroy(&flood);
    gsp_sched_destroy(&tree);
    return err;
}

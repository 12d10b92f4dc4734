/* SPDX-License-Identifier: GPL-3.0-or-later */
/* registry.c — the one table of construction methods, and planning: run a method (or every
 * applicable one for `auto`), verify what it built, compare with the lower bounds. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "algo_int.h"
#include "core/core_int.h"

extern const gsp_method_t gsp__method_broadcast_bfs;
extern const gsp_method_t gsp__method_broadcast_circulant;
extern const gsp_method_t gsp__method_broadcast_matching;
extern const gsp_method_t gsp__method_allgather_matching;
extern const gsp_method_t gsp__method_allgather_sat;
extern const gsp_method_t gsp__method_allgather_ring;
extern const gsp_method_t gsp__method_allreduce_matching;
extern const gsp_method_t gsp__method_allreduce_doubling;
extern const gsp_method_t gsp__method_allgather_flood;
extern const gsp_method_t gsp__method_allgather_circulant;
extern const gsp_method_t gsp__method_allgather_greedy;
extern const gsp_method_t gsp__method_allgather_isomorphic;
extern const gsp_method_t gsp__method_allgather_rotation;
extern const gsp_method_t gsp__method_allgather_balanced_search;
extern const gsp_method_t gsp__method_allreduce_tree;
extern const gsp_method_t gsp__method_allreduce_spectral;
extern const gsp_method_t gsp__method_allreduce_diameter2;
extern const gsp_method_t gsp__method_allreduce_product;
extern const gsp_method_t gsp__method_allreduce_approx;
extern const gsp_method_t gsp__method_allreduce_linear;
extern const gsp_method_t gsp__method_allreduce_blocks;
extern const gsp_method_t gsp__method_reduce_scatter_reverse;

static const gsp_method_t *const registry[] = {
    &gsp__method_broadcast_bfs,
    &gsp__method_broadcast_circulant,
    &gsp__method_broadcast_matching,
    &gsp__method_allgather_flood,
    &gsp__method_allgather_circulant,
    &gsp__method_allgather_rotation,
    &gsp__method_allgather_balanced_search,
    &gsp__method_allgather_isomorphic,
    &gsp__method_allgather_greedy,
    &gsp__method_allgather_ring,
    &gsp__method_allgather_matching,
    &gsp__method_allgather_sat,
    &gsp__method_allreduce_tree,
    &gsp__method_allreduce_spectral,
    &gsp__method_allreduce_diameter2,
    &gsp__method_allreduce_product,
    &gsp__method_allreduce_linear,
    &gsp__method_allreduce_approx,
    &gsp__method_allreduce_matching,
    &gsp__method_allreduce_doubling,
    &gsp__method_allreduce_blocks,
    &gsp__method_reduce_scatter_reverse,
};

const gsp_method_t *const *gsp_methods(int *count) {
    *count = (int)(sizeof registry / sizeof registry[0]);
    return registry;
}

const gsp_method_t *gsp_method_find(const char *name, gsp_collective_t c) {
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i]->coll == c && !strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

/* Does model m meet nd's packets, ports and duplex needs? If not, why [out] says "needs X, Y
 * and Z: reason" for those it misses, with the method's reason for each kind it misses. */
static bool model_met(const gsp_method_needs_t *nd, const gsp_model_t *m, char *why, size_t whylen) {
    bool inf = m->packets == GSP_PACKETS_INF;
    bool packets = (nd->packets == GSP_NEED_PACKETS_FINITE && inf) || (nd->packets == GSP_NEED_PACKETS_INF && !inf);
    const char *part[3];
    int k = 0;
    if (packets) part[k++] = nd->packets == GSP_NEED_PACKETS_FINITE ? "finite packets" : "packets = inf";
    if (nd->ports == GSP_NEED_PORTS_ALL && m->one_port) part[k++] = "all ports";
    if (nd->ports == GSP_NEED_PORTS_ONE && !m->one_port) part[k++] = "one port";
    if (nd->ports == GSP_NEED_PORTS_RESTRICTED && !m->one_port && !m->half_duplex) part[k++] = "one port or half duplex (or both)";
    if (nd->full_duplex && m->half_duplex) part[k++] = "full duplex";
    if (k == 0) return true;
    bool ports = k > (packets ? 1 : 0);
    size_t l = (size_t)snprintf(why, whylen, "needs");
    for (int i = 0; i < k && l < whylen; i++)
        l += (size_t)snprintf(why + l, whylen - l, "%s%s", i == 0 ? " " : i == k - 1 ? " and " : ", ", part[i]);
    const char *note[2] = {packets ? nd->packets_why : NULL, ports ? nd->ports_why : NULL};
    for (int i = 0; i < 2 && l < whylen; i++)
        if (note[i]) l += (size_t)snprintf(why + l, whylen - l, "%s%s", i == 1 && note[0] ? "; " : ": ", note[i]);
    return false;
}

/* The needs every method states as data (gsp_method_needs_t), checked here once: the group
 * first (what the method is built on), then the model, the direction of the arcs and the size. */
static bool needs_met(const gsp_method_needs_t *nd, const gsp_plan_in_t *in, char *why, size_t whylen) {
    const gsp_topo_t *t = in->topo;
    gsp_model_t m = gsp_model_resolve(in->model);
    if (nd->cayley && !t->group) {
        snprintf(why, whylen, "needs a Cayley graph given by its spec (a file has no group)");
        return false;
    }
    if (!model_met(nd, &m, why, whylen)) return false;
    if (nd->undirected && t->directed) {
        snprintf(why, whylen, "needs an undirected graph%s%s", nd->graph_why ? ": " : "", nd->graph_why ? nd->graph_why : "");
        return false;
    }
    if ((nd->max_nodes && t->n > nd->max_nodes) || (nd->min_nodes && t->n < nd->min_nodes)) {
        const char *w = nd->size_why;
        if (nd->min_nodes && nd->max_nodes)
            snprintf(why, whylen, "needs %lld to %lld nodes%s%s%s", (long long)nd->min_nodes, (long long)nd->max_nodes, w ? " (" : "",
                     w ? w : "", w ? ")" : "");
        else if (nd->max_nodes)
            snprintf(why, whylen, "limited to %lld nodes%s%s%s", (long long)nd->max_nodes, w ? " (" : "", w ? w : "", w ? ")" : "");
        else
            snprintf(why, whylen, "needs at least %lld nodes%s%s%s", (long long)nd->min_nodes, w ? " (" : "", w ? w : "", w ? ")" : "");
        return false;
    }
    return true;
}

bool gsp_method_applies(const gsp_method_t *m, const gsp_plan_in_t *in, char *why, size_t whylen) {
    char none[1];
    if (!why || !whylen) {
        why = none;
        whylen = sizeof none;
    }
    why[0] = '\0';
    if (!m || !in || !in->topo) {
        snprintf(why, whylen, "no method or no topology");
        return false;
    }
    if (!needs_met(&m->needs, in, why, whylen)) return false;
    return !m->applies || m->applies(in, why, whylen);
}

void gsp_plan_destroy(gsp_plan_t *plan) {
    if (!plan) return;
    gsp_sched_destroy(&plan->sched);
    memset(plan, 0, sizeof *plan);
}

/* Appends "; " and the formatted text to buf (no separator at the start). */
static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...) {
    size_t l = strlen(buf);
    if (l + 2 >= size) return;
    if (l) {
        memcpy(buf + l, "; ", 3);
        l += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, size - l, fmt, ap);
    va_end(ap);
}

/* Builds and verifies one method's schedule. */
static gsp_err_t run_one(const gsp_plan_in_t *in, const gsp_method_t *m, gsp_plan_t *plan) {
    gsp_err_t err;
    char why[256] = "";
    if (!gsp_method_applies(m, in, why, sizeof why))
        return gsp_error(GSP_ERR_NOTAPPLIC, "method %s does not apply to %s: %s", m->name, in->topo->spec,
                         gsp__unprefixed(gsp__unprefixed(why, m->name), in->topo->spec));
    if ((err = m->build(in, &plan->sched))) return err;
    if ((err = gsp_sched_verify_flags(&plan->sched, in->topo, in->seed,
                                      GSP_VERIFY_NO_EXPAND | (m->approximate ? GSP_VERIFY_APPROX : 0u), &plan->report)))
        goto fail;
    if (!plan->report.ok) {
        err = gsp_error(GSP_ERR_INTERNAL, "method %s built a wrong schedule on %s: %s", m->name, in->topo->spec,
                        plan->report.message);
        goto fail;
    }
    plan->method = m;
    return GSP_OK;
fail:
    gsp_sched_destroy(&plan->sched);
    return err;
}

gsp_err_t gsp_plan(const gsp_plan_in_t *in, gsp_collective_t c, const char *method, gsp_plan_t *plan) {
    gsp_err_t err;
    if (!plan) return gsp_error(GSP_ERR_INVAL, "gsp_plan: no plan to fill");
    memset(plan, 0, sizeof *plan);
    if (!in || !in->topo || !in->dist)
        return gsp_error(GSP_ERR_INVAL, "gsp_plan: the input needs a topology and its distances (gsp_distances)");
    /* The methods plan rounds on unit links with every vertex a rank: a fabric's switches would
     * be planned as ranks and its capacities ignored. Fabrics are planned by gsp_fabric_trees. */
    if (gsp_topo_is_fabric(in->topo))
        return gsp_error(GSP_ERR_UNSUPPORTED, "%s: planning on fabrics (switches or link capacities) is not yet supported by the "
                                              "round-model methods; gsp_fabric_trees plans it at the throughput optimum",
                         in->topo->spec);
    /* A zero-initialised model is the default one: the methods see packets 1, never 0. */
    gsp_plan_in_t resolved = *in;
    resolved.model = gsp_model_resolve(in->model);
    in = &resolved;
    if (in->model.packets < 1 && in->model.packets != GSP_PACKETS_INF)
        return gsp_error(GSP_ERR_INVAL, "gsp_plan: packets %lld: expected p >= 1 or GSP_PACKETS_INF", (long long)in->model.packets);
    if ((err = gsp_bounds_compute(in->topo, in->dist, c, &in->model, c == GSP_COLL_BROADCAST ? (in->root >= 0 ? in->root : 0) : -1, &plan->bounds))) return err;
    plan->lower_bound = gsp_bounds_value(&plan->bounds);
    if (method && strcmp(method, "auto")) {
        const gsp_method_t *m = gsp_method_find(method, c);
        if (!m) {
            const char *names[sizeof registry / sizeof registry[0]];
            size_t nn = 0;
            for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
                if (registry[i]->coll == c) names[nn++] = registry[i]->name;
            const char *near = gsp_nearest(method, strlen(method), names, nn);
            if (near) return gsp_error(GSP_ERR_INVAL, "no method '%s' for %s; did you mean '%s'? (see 'gossip list')", method, gsp_collective_name(c), near);
            return gsp_error(GSP_ERR_INVAL, "no method '%s' for %s (see 'gossip list')", method, gsp_collective_name(c));
        }
        if ((err = run_one(in, m, plan))) return err;
    } else {
        /* auto: every applicable method, keep the fewest rounds (the first on ties). A method
         * is not built when it cannot beat the best so far: the lower bound is met, or its own
         * fewest rounds (least_rounds) are no fewer than the best's. */
        bool any = false, at_bound = false;
        char reasons[512] = "";
        for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
            const gsp_method_t *m = registry[i];
            if (m->coll != c) continue;
            if (plan->ntried == GSP_MAX_TRIED) {
                gsp_plan_destroy(plan);
                return gsp_error(GSP_ERR_INTERNAL, "more than %d methods for %s: raise GSP_MAX_TRIED", GSP_MAX_TRIED, gsp_collective_name(c));
            }
            gsp_tried_t *tr = &plan->attempts[plan->ntried++];
            tr->method = m;
            tr->rounds = -1;
            if (m->approximate || m->on_request) {
                tr->kind = GSP_TRIED_SKIPPED;
                snprintf(tr->why, sizeof tr->why, "%s", m->approximate ? "an estimate: auto chooses among exact methods only"
                                                                       : "run on request only (an exact search that may take long)");
                continue;
            }
            if (at_bound) {
                tr->kind = GSP_TRIED_SKIPPED;
                snprintf(tr->why, sizeof tr->why, "%s's %lld rounds meet the lower bound", plan->method->name,
                         (long long)plan->sched.nrounds);
                continue;
            }
            if (!gsp_method_applies(m, in, tr->why, sizeof tr->why)) {
                tr->kind = GSP_TRIED_NOT_APPLICABLE;
                const char *w = gsp__unprefixed(tr->why, m->name);
                memmove(tr->why, w, strlen(w) + 1);
                size_t l = strlen(reasons);
                snprintf(reasons + l, sizeof reasons - l, "%s%s: %s", l ? "; " : "", m->name, tr->why);
                continue;
            }
            int64_t least = any && m->least_rounds ? m->least_rounds(in) : -1;
            if (any && least >= plan->sched.nrounds) {
                tr->kind = GSP_TRIED_SKIPPED;
                tr->rounds = least;
                snprintf(tr->why, sizeof tr->why, "it needs at least %lld rounds; %s has %lld", (long long)least, plan->method->name,
                         (long long)plan->sched.nrounds);
                append(plan->tried, sizeof plan->tried, "%s skipped (at least %lld rounds)", m->name, (long long)least);
                continue;
            }
            if (in->progress) in->progress(in->progress_ctx, m->name, 0.0);
            gsp_plan_t cand;
            memset(&cand, 0, sizeof cand);
            if ((err = run_one(in, m, &cand))) {
                /* A method may find out only while building that it cannot help (a search that
                 * finds nothing, numerics too poor): auto moves on. Its message may start with
                 * its name ("linear: no 3-round protocol ..."): said once. */
                if (err != GSP_ERR_NOTAPPLIC) {
                    gsp_plan_destroy(plan); /* the best so far too */
                    return err;
                }
                const char *msg = gsp__unprefixed(gsp_errmsg(), m->name);
                tr->kind = GSP_TRIED_GAVE_UP;
                snprintf(tr->why, sizeof tr->why, "%s", msg);
                size_t l = strlen(reasons);
                snprintf(reasons + l, sizeof reasons - l, "%s%s: %s", l ? "; " : "", m->name, msg);
                append(plan->tried, sizeof plan->tried, "%s: %s", m->name, msg);
                continue;
            }
            tr->kind = GSP_TRIED_BUILT;
            tr->rounds = cand.sched.nrounds;
            append(plan->tried, sizeof plan->tried, "%s %lld", m->name, (long long)cand.sched.nrounds);
            if (!any || cand.sched.nrounds < plan->sched.nrounds) {
                gsp_sched_destroy(&plan->sched);
                plan->sched = cand.sched;
                plan->report = cand.report;
                plan->method = m;
                any = true;
            } else {
                gsp_sched_destroy(&cand.sched);
            }
            if (plan->sched.nrounds == plan->lower_bound) { /* cannot do better */
                size_t l = strlen(plan->tried);
                snprintf(plan->tried + l, sizeof plan->tried - l, " (the bound: the rest not tried)");
                at_bound = true;
            }
        }
        char big[256];
        /* A graph without a group too large for explicit rounds is a size limit, not a missing
         * method: said alone, with what still works. */
        if (!any && c == GSP_COLL_ALLGATHER && !in->topo->group && !gsp__explicit_allgather_fits(in->topo, big, sizeof big))
            return gsp_error(GSP_ERR_TOOBIG,
                             "allgather on %s: %s; only a Cayley graph has a compact (symmetric) schedule beyond it: "
                             "give such a graph as its spec (torus:, hypercube:, circulant:, cayley:, perm:)",
                             in->topo->spec, big);
        if (!any)
            return gsp_error(GSP_ERR_NOTAPPLIC, "no method for %s applies to %s: %s", gsp_collective_name(c),
                             in->topo->spec, reasons);
    }
    plan->optimal = !plan->method->approximate && plan->sched.nrounds == plan->lower_bound;
    plan->optimality = plan->optimal ? GSP_OPT_BOUND : GSP_OPT_OPEN;
    return GSP_OK;
}

gsp_err_t gsp_plan_spec(const char *spec, gsp_collective_t c, const gsp_plan_opts_t *opts, gsp_plan_t *plan) {
    static const gsp_plan_opts_t defaults = {0};
    gsp_err_t err;
    gsp_topo_t t;
    gsp_vt_t vt;
    gsp_distances_t d;
    if (!plan) return gsp_error(GSP_ERR_INVAL, "gsp_plan_spec: no plan to fill");
    memset(plan, 0, sizeof *plan);
    if (!spec) return gsp_error(GSP_ERR_INVAL, "gsp_plan_spec: no topology spec");
    if (!opts) opts = &defaults;
    memset(&d, 0, sizeof d);
    if ((err = gsp_topo_from_spec(&t, spec))) return err;
    if (c == GSP_COLL_BROADCAST && (opts->root < 0 || opts->root >= t.n)) {
        err = gsp_error(GSP_ERR_RANGE, "gsp_plan_spec: root %lld is not a node of %s (0..%lld)", (long long)opts->root, spec, (long long)t.n - 1);
        goto done;
    }
    /* One BFS when the graph is vertex-transitive, else one per node (as `gossip plan`). */
    if ((err = gsp_vertex_transitive(&t, &vt)) || (err = gsp_distances(&t, gsp_vt_yes(vt), &d, NULL, NULL))) goto done;
    if (!d.connected) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not %sconnected: no schedule can reach every node", spec, t.directed ? "strongly " : "");
        goto done;
    }
    gsp_plan_in_t in = {.topo = &t, .dist = &d, .model = opts->model, .root = c == GSP_COLL_BROADCAST ? opts->root : -1,
                        .seed = opts->seed ? opts->seed : 1};
    err = gsp_plan(&in, c, opts->method ? opts->method : "auto", plan);
done:
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    return err;
}

gsp_err_t gsp__bfs_tree(const gsp_topo_t *t, int64_t root, int64_t **parent, int32_t **dist, int64_t **order) {
    gsp_err_t err;
    *parent = *order = NULL;
    *dist = NULL;
    if ((err = gsp_alloc_array((void **)parent, t->n, sizeof **parent, false)) ||
        (err = gsp_alloc_array((void **)dist, t->n, sizeof **dist, false)) ||
        (err = gsp_alloc_array((void **)order, t->n, sizeof **order, false)))
        goto fail;
    int64_t *q = *order, head = 0, tail = 0;
    memset(*dist, 0xff, (size_t)t->n * sizeof **dist);
    (*dist)[root] = 0;
    (*parent)[root] = -1;
    q[tail++] = root;
    while (head < tail) {
        int64_t x = q[head++];
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t y = t->adj[a];
            if ((*dist)[y] < 0) {
                (*dist)[y] = (*dist)[x] + 1;
                (*parent)[y] = x;
                q[tail++] = y;
            }
        }
    }
    if (tail < t->n) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: not every node is reachable from %lld", t->spec, (long long)root);
        goto fail;
    }
    return GSP_OK;
fail:
    gsp_free(*parent);
    gsp_free(*dist);
    gsp_free(*order);
    *parent = *order = NULL;
    *dist = NULL;
    return err;
}

gsp_err_t gsp__sched_rename(gsp_sched_t *s, const char *method, const char *from) {
    char name[128];
    snprintf(name, sizeof name, "%s(%s)", method, from);
    char *q = gsp_strdup(name);
    if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    gsp_free(s->method);
    s->method = q;
    return GSP_OK;
}

bool gsp__some_method_applies(const gsp_plan_in_t *in, gsp_collective_t c, char *why, size_t whylen) {
    char w[256] = "";
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i]->coll == c && !registry[i]->approximate && gsp_method_applies(registry[i], in, w, sizeof w)) return true;
    snprintf(why, whylen, "no %s method applies under this model (the last one: %s)", gsp_collective_name(c), w);
    return false;
}


gsp_err_t gsp__build_from_allgather(const gsp_plan_in_t *in, gsp_err_t (*transform)(const gsp_sched_t *, const gsp_topo_t *, gsp_sched_t *),
                                    const char *name, gsp_sched_t *out) {
    gsp_err_t err;
    gsp_plan_t ag;
    if ((err = gsp_plan(in, GSP_COLL_ALLGATHER, "auto", &ag))) return err;
    err = transform(&ag.sched, in->topo, out);
    if (!err) err = gsp__sched_rename(out, name, ag.method->name);
    gsp_plan_destroy(&ag);
    return err;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_ctx.c — the exact runtime's context: the topology, its distances and cost model, the
 * duplicate communicator gossip's messages travel on, and the settings (method, forced
 * algorithms); each collective's candidates live in its entries, built on first use. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_rt_int.h"

void gsp__mpi_entry_free(entry_t *e) {
    for (int i = 0; i < e->nprogs; i++)
        for (int k = 0; k < GSP_RT_MAX_PHASES; k++) gsp_rt_prog_destroy(&e->progs[i].prog[k]);
    gsp_free(e->progs);
    gsp_free(e->choice);
    gsp_rt_algos_destroy(&e->algos);
    memset(e, 0, sizeof *e);
}

void gsp_mpi_ctx_free(gsp_mpi_ctx_t *c) {
    if (!c) return;
    for (int k = 0; k <= GSP_COLL_REDUCE; k++) {
        gsp__mpi_entry_free(&c->fixed[k]);
        gsp_free(c->force[k]);
    }
    for (int k = 0; k < 2; k++) {
        if (c->rooted[k])
            for (int r = 0; r < c->size; r++) gsp__mpi_entry_free(&c->rooted[k][r]);
        gsp_free(c->rooted[k]);
    }
    gsp_free(c->stage);
    gsp_free(c->work);
    gsp_free(c->req);
    gsp_free(c->soff);
    gsp_free(c->lane);
    gsp_free(c->idx);
    gsp_free(c->turn);
    gsp_free(c->gate);
    gsp_free(c->width);
    gsp_free(c->chunk);
    gsp_free(c->fresh);
    gsp_free(c->method);
    gsp_free(c->rank_of);
    gsp_free(c->node_of);
    gsp_free(c->placement);
    gsp_free(c->perm);
    gsp_distances_destroy(&c->dist);
    gsp_topo_destroy(&c->topo);
    if (c->is_fabric) gsp_topo_destroy(&c->fabric);
    if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
    gsp_free(c);
}

/* Names that are all integers are a 1-based file's ids, not hosts: such files keep the order. */
static bool names_are_hosts(const gsp_topo_t *t) {
    if (!t->names) return false;
    for (int64_t x = 0; x < t->n; x++) {
        const char *p = t->names[x];
        if (!p) return false;
        p += *p == '-' || *p == '+';
        if (!*p) return true;
        while (*p >= '0' && *p <= '9') p++;
        if (*p) return true;
    }
    return false;
}

/* A name and its index, sorted by name, then index (so equal hosts stay in rank order). */
typedef struct {
    const char *name;
    int64_t i;
} named_t;

static int by_name(const void *a, const void *b) {
    const named_t *x = a, *y = b;
    int cmp = strcmp(x->name, y->name);
    return cmp ? cmp : (x->i > y->i) - (x->i < y->i);
}

/* The node named `name`, or -1: bisection in the nodes sorted by name. */
static int64_t find_node(const named_t *sorted, int64_t n, const char *name) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(sorted[mid].name, name);
        if (cmp == 0) return sorted[mid].i;
        if (cmp < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

#define HOST_MAX MPI_MAX_PROCESSOR_NAME

/* Places the ranks of comm on the topology's named nodes by host name (gsp_mpi_ctx_create's
 * doc): fills c->node_of and c->rank_of (left NULL when the placement is rank r on node r) and
 * c->placement. Every rank gathers the same names and decides alike, so an error is returned
 * on every rank or on none. The gather goes through PMPI: under the drop-in, MPI_Allgather is
 * gossip's own, and the context it would need is the one being built. */
static gsp_err_t place(gsp_mpi_ctx_t *c, MPI_Comm comm, const char *spec) {
    const gsp_topo_t *t = &c->topo;
    gsp_err_t err = GSP_OK;
    if (!names_are_hosts(t)) return GSP_OK;
    const char *how = getenv("GOSSIP_PLACEMENT");
    if (how && *how && strcmp(how, "names") && strcmp(how, "order"))
        return gsp_error(GSP_ERR_INVAL, "GOSSIP_PLACEMENT=%s: expected names (by host name, the default) or order", how);
    if (how && !strcmp(how, "order")) {
        if (!(c->placement = gsp_strdup("ranks placed in the file's order (GOSSIP_PLACEMENT=order): rank r runs node r")))
            return gsp_error(GSP_ERR_NOMEM, "out of memory");
        return GSP_OK;
    }
    char me[HOST_MAX], *all = NULL;
    named_t *nodes = NULL, *ranks = NULL;
    int len = 0, n = c->size;
    memset(me, 0, sizeof me);
    const char *forced = getenv("GOSSIP_HOSTNAME");
    if (forced && *forced) snprintf(me, sizeof me, "%s", forced);
    else if (PMPI_Get_processor_name(me, &len) != MPI_SUCCESS) snprintf(me, sizeof me, "?");
    me[HOST_MAX - 1] = 0;
    if ((err = gsp_alloc_array((void **)&all, n, HOST_MAX, true)) || (err = gsp_alloc_array((void **)&nodes, t->n, sizeof *nodes, false)) ||
        (err = gsp_alloc_array((void **)&ranks, n, sizeof *ranks, false)) ||
        (err = gsp_alloc_array((void **)&c->node_of, n, sizeof *c->node_of, false)) ||
        (err = gsp_alloc_array((void **)&c->rank_of, n, sizeof *c->rank_of, false)))
        goto done;
    int rc = PMPI_Allgather(me, HOST_MAX, MPI_CHAR, all, HOST_MAX, MPI_CHAR, comm);
    if (rc != MPI_SUCCESS) {
        err = gsp__mpi_fail(c, rc, "gathering the host names (MPI_Allgather)");
        goto done;
    }
    for (int64_t x = 0; x < t->n; x++) nodes[x] = (named_t){t->names[x], x};
    qsort(nodes, (size_t)t->n, sizeof *nodes, by_name);
    /* The ranks of each host together, in rank order. */
    for (int r = 0; r < n; r++) {
        all[(size_t)r * HOST_MAX + HOST_MAX - 1] = 0;
        ranks[r] = (named_t){all + (size_t)r * HOST_MAX, r};
    }
    qsort(ranks, (size_t)n, sizeof *ranks, by_name);
    for (int r = 0; r < n; r++) c->rank_of[r] = -1;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && !strcmp(ranks[j].name, ranks[i].name)) j++;
        const char *host = ranks[i].name;
        int m = j - i;
        for (int k = 0; k < m; k++) {
            char name[HOST_MAX + 24];
            int r = (int)ranks[i + k].i;
            int64_t v = m == 1 ? find_node(nodes, t->n, host) : -1;
            snprintf(name, sizeof name, "%s:%d", host, k);
            if (v < 0) v = find_node(nodes, t->n, name);
            if (v < 0 && m > 1 && find_node(nodes, t->n, host) >= 0) {
                err = gsp_error(GSP_ERR_NOTAPPLIC,
                                "%s: host '%s' runs %d ranks but the file has one node '%s' (name its nodes %s:0 .. %s:%d to place "
                                "several ranks on it, or GOSSIP_PLACEMENT=order to place rank r on node r)",
                                spec, host, m, host, host, host, m - 1);
                goto done;
            }
            if (v < 0 || c->rank_of[v] >= 0) {
                err = gsp_error(GSP_ERR_NOTAPPLIC,
                                "%s: rank %d runs on host '%s', and %s is %s (ranks are placed by host name: MPI_Get_processor_name, "
                                "or GOSSIP_HOSTNAME; GOSSIP_PLACEMENT=order places rank r on node r)",
                                spec, r, host, m > 1 ? name : host, v < 0 ? "no node of the file" : "a node another rank runs");
                goto done;
            }
            c->node_of[r] = (int)v;
            c->rank_of[v] = r;
        }
        i = j;
    }
    /* One line for GOSSIP_VERBOSE: the first ranks' nodes, and whether MPI's order is the file's. */
    bool identity = true;
    for (int r = 0; r < n; r++) identity &= c->node_of[r] == r;
    size_t cap = 512;
    if (!(c->placement = gsp_malloc(cap))) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto done;
    }
    int w = snprintf(c->placement, cap, "ranks placed by host name on %s (%s):", spec,
                     identity ? "MPI's placement is the file's order" : "MPI's placement is not the file's order");
    for (int r = 0; r < n && w > 0 && (size_t)w < cap; r++) {
        if (r == 8 && n > 9) {
            snprintf(c->placement + w, cap - (size_t)w, " ...");
            break;
        }
        w += snprintf(c->placement + w, cap - (size_t)w, "%s rank %d runs node %d '%.40s'", r ? "," : "", r, c->node_of[r],
                      t->names[c->node_of[r]]);
    }
    if (identity) { /* rank r on node r: nothing to translate */
        gsp_free(c->node_of);
        gsp_free(c->rank_of);
        c->node_of = c->rank_of = NULL;
    }
done:
    if (err) {
        gsp_free(c->node_of);
        gsp_free(c->rank_of);
        c->node_of = c->rank_of = NULL;
    }
    gsp_free(all);
    gsp_free(nodes);
    gsp_free(ranks);
    return err;
}

const char *gsp_mpi_ctx_placement(const gsp_mpi_ctx_t *c) { return c->placement; }

int64_t gsp_mpi_ctx_node(const gsp_mpi_ctx_t *c, int r) { return c->node_of && r >= 0 && r < c->size ? c->node_of[r] : r; }

/* Whether MPI_TAG_UB holds the runtime's wide tags (29 bits: mpi_engine.c tag_of). The same
 * answer on every rank of one MPI. */
static bool wide_tags(MPI_Comm comm) {
    int *ub = NULL, flag = 0;
    return MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub && *ub >= (1 << 29) - 1;
}

gsp_err_t gsp_mpi_ctx_create(const char *spec, MPI_Comm comm, gsp_mpi_ctx_t **out) {
    gsp_err_t err;
    gsp_vt_t vt;
    *out = NULL;
    gsp_mpi_ctx_t *c = gsp_calloc(1, sizeof *c);
    if (!c) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    c->comm = MPI_COMM_NULL;
    c->cost = gsp_cost_default();
    c->gen = 1;
    MPI_Comm_size(comm, &c->size);
    MPI_Comm_rank(comm, &c->urank);
    c->rank = c->urank;
    if ((err = gsp_topo_from_spec(&c->topo, spec))) goto fail;
    if (gsp_topo_is_fabric(&c->topo)) {
        /* Its ranks are its compute nodes, in vertex order, and any two of them talk through
         * the fabric: the runtime's algorithms run on their complete graph, planned from the
         * fabric (gsp_rt_fabric_algos). */
        int64_t nc = gsp_topo_compute_count(&c->topo);
        char ks[32];
        c->fabric = c->topo;
        c->is_fabric = true;
        memset(&c->topo, 0, sizeof c->topo);
        if (nc != c->size) {
            err = gsp_error(GSP_ERR_INVAL, "%s has %lld compute nodes but the communicator has %d ranks", spec, (long long)nc, c->size);
            goto fail;
        }
        if (nc < 2) {
            err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: fewer than two compute nodes", spec);
            goto fail;
        }
        snprintf(ks, sizeof ks, "complete:%lld", (long long)nc);
        if ((err = gsp_topo_from_spec(&c->topo, ks))) goto fail;
    }
    if (c->topo.n != c->size) {
        err = gsp_error(GSP_ERR_INVAL, "%s has %lld nodes but the communicator has %d ranks", spec, (long long)c->topo.n, c->size);
        goto fail;
    }
    if (!c->is_fabric && (err = place(c, comm, spec))) goto fail;
    if ((err = gsp_vertex_transitive(&c->topo, &vt)) || (err = gsp_distances(&c->topo, gsp_vt_yes(vt), &c->dist, NULL, NULL)))
        goto fail;
    if (!c->dist.connected) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not connected", spec);
        goto fail;
    }
    /* Placed by host name: the duplicate is ordered by node, so that gossip's messages name
     * nodes as ranks and only the user's buffers need translating. */
    if (c->node_of ? MPI_Comm_split(comm, 0, c->node_of[c->urank], &c->comm) != MPI_SUCCESS : MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS) {
        err = gsp_error(GSP_ERR_INTERNAL, "%s failed", c->node_of ? "MPI_Comm_split" : "MPI_Comm_dup");
        goto fail;
    }
    if (c->node_of) MPI_Comm_rank(c->comm, &c->rank);
    /* The duplicate inherits the user's error handler; gossip's own messages report their
     * errors to gossip, which raises them on the user's communicator (through its handler,
     * with MPI's class: gsp_mpi_ctx_mpi_error). */
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    c->tag_wide = wide_tags(c->comm);
    /* Every rank on one node: messages are copies through one memory, not link transfers.
     * Either every rank's node holds the whole communicator or none does, so every rank starts
     * from the same model without a collective (which the drop-in would intercept). */
    MPI_Comm node;
    if (MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        int nsize = 0;
        MPI_Comm_size(node, &nsize);
        if (nsize == c->size) c->cost = gsp_cost_shared_memory();
        MPI_Comm_free(&node);
    }
    *out = c;
    return GSP_OK;
fail:
    gsp_mpi_ctx_free(c);
    return err;
}

gsp_err_t gsp__mpi_ctx_bare(MPI_Comm comm, gsp_mpi_ctx_t **out) {
    *out = NULL;
    gsp_mpi_ctx_t *c = gsp_calloc(1, sizeof *c);
    if (!c) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    c->comm = MPI_COMM_NULL;
    c->cost = gsp_cost_default();
    c->cost.segment = 0; /* whole blocks: a schedule's plan runs as it was planned */
    MPI_Comm_size(comm, &c->size);
    MPI_Comm_rank(comm, &c->urank);
    c->rank = c->urank;
    if (MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS) {
        gsp_mpi_ctx_free(c);
        return gsp_error(GSP_ERR_INTERNAL, "MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    c->tag_wide = wide_tags(c->comm);
    *out = c;
    return GSP_OK;
}

const gsp_cost_t *gsp_mpi_ctx_cost(const gsp_mpi_ctx_t *c) { return &c->cost; }

void gsp_mpi_ctx_set_cost(gsp_mpi_ctx_t *c, const gsp_cost_t *cost) {
    c->cost = *cost;
    c->gen++;
    /* Choices depend on the model: forget them. */
    for (int k = 0; k <= GSP_COLL_REDUCE; k++)
        if (c->fixed[k].choice)
            for (int s = 0; s < SIZE_CLASSES; s++) c->fixed[k].choice[s] = -1;
    for (int k = 0; k < 2; k++)
        if (c->rooted[k])
            for (int r = 0; r < c->size; r++)
                if (c->rooted[k][r].choice)
                    for (int s = 0; s < SIZE_CLASSES; s++) c->rooted[k][r].choice[s] = -1;
}

gsp_err_t gsp_mpi_ctx_set_method(gsp_mpi_ctx_t *c, const char *method) {
    if (c->fixed[GSP_COLL_ALLGATHER].ready || c->fixed[GSP_COLL_ALLREDUCE].ready || c->fixed[GSP_COLL_REDUCE_SCATTER].ready ||
        c->rooted[0] || c->rooted[1])
        return gsp_error(GSP_ERR_INVAL, "set the method before the first collective");
    if (method && strcmp(method, "auto") && !gsp_method_find(method, GSP_COLL_ALLGATHER) &&
        !gsp_method_find(method, GSP_COLL_BROADCAST)) {
        const gsp_method_t *m = gsp_method_find(method, GSP_COLL_ALLREDUCE);
        if (m)
            return gsp_error(GSP_ERR_NOTAPPLIC,
                             "method %s computes sums with real coefficients: not exact, so never an MPI collective "
                             "(use it with 'gossip-mpi run --approximate')",
                             method);
        return gsp_error(GSP_ERR_INVAL, "no allgather or broadcast method '%s' (see 'gossip list')", method);
    }
    gsp_free(c->method);
    c->method = method ? gsp_strdup(method) : NULL;
    c->gen++;
    return GSP_OK;
}

gsp_err_t gsp_mpi_ctx_force(gsp_mpi_ctx_t *c, gsp_collective_t coll, const char *algo) {
    if (coll < GSP_COLL_BROADCAST || coll > GSP_COLL_REDUCE) return gsp_error(GSP_ERR_INVAL, "unknown collective");
    gsp_free(c->force[coll]);
    c->gen++;
    c->force[coll] = algo && *algo && strcmp(algo, "auto") ? gsp_strdup(algo) : NULL;
    return GSP_OK;
}

const char *gsp_mpi_ctx_last(const gsp_mpi_ctx_t *c) { return c->last ? c->last : "none"; }

bool gsp_mpi_ctx_communicated(const gsp_mpi_ctx_t *c) { return c->communicated; }

/* A failed MPI call: its error class is kept for the caller to raise on the user's
 * communicator. */
gsp_err_t gsp__mpi_fail(gsp_mpi_ctx_t *c, int rc, const char *what) {
    int cls = MPI_ERR_INTERN, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    c->mpi_err = cls;
    return gsp_error(GSP_ERR_INTERNAL, "%s failed: %s", what, msg);
}

int gsp_mpi_ctx_mpi_error(const gsp_mpi_ctx_t *c) { return c->mpi_err ? c->mpi_err : MPI_ERR_INTERN; }


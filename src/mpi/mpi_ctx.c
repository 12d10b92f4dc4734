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
        for (int k = 0; k < 2; k++) gsp_rt_prog_destroy(&e->progs[i].prog[k]);
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
    gsp_free(c->fresh);
    gsp_free(c->method);
    gsp_distances_destroy(&c->dist);
    gsp_topo_destroy(&c->topo);
    if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
    gsp_free(c);
}

gsp_err_t gsp_mpi_ctx_create(const char *spec, MPI_Comm comm, gsp_mpi_ctx_t **out) {
    gsp_err_t err;
    gsp_vt_t vt;
    *out = NULL;
    gsp_mpi_ctx_t *c = gsp_calloc(1, sizeof *c);
    if (!c) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    c->comm = MPI_COMM_NULL;
    c->cost = gsp_cost_default();
    MPI_Comm_size(comm, &c->size);
    MPI_Comm_rank(comm, &c->rank);
    if ((err = gsp_topo_from_spec(&c->topo, spec))) goto fail;
    if (gsp_topo_is_fabric(&c->topo)) { /* its ranks are not its vertices, its links not equal */
        err = gsp_error(GSP_ERR_UNSUPPORTED, "%s: running on fabrics (switches or link capacities) is not yet supported", spec);
        goto fail;
    }
    if (c->topo.n != c->size) {
        err = gsp_error(GSP_ERR_INVAL, "%s has %lld nodes but the communicator has %d ranks", spec, (long long)c->topo.n, c->size);
        goto fail;
    }
    if ((err = gsp_vertex_transitive(&c->topo, &vt)) || (err = gsp_distances(&c->topo, gsp_vt_yes(vt), &c->dist, NULL, NULL)))
        goto fail;
    if (!c->dist.connected) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not connected", spec);
        goto fail;
    }
    if (MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS) {
        err = gsp_error(GSP_ERR_INTERNAL, "MPI_Comm_dup failed");
        goto fail;
    }
    /* The duplicate inherits the user's error handler; gossip's own messages report their
     * errors to gossip, which raises them on the user's communicator (through its handler,
     * with MPI's class: gsp_mpi_ctx_mpi_error). */
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
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

const gsp_cost_t *gsp_mpi_ctx_cost(const gsp_mpi_ctx_t *c) { return &c->cost; }

void gsp_mpi_ctx_set_cost(gsp_mpi_ctx_t *c, const gsp_cost_t *cost) {
    c->cost = *cost;
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
    return GSP_OK;
}

gsp_err_t gsp_mpi_ctx_force(gsp_mpi_ctx_t *c, gsp_collective_t coll, const char *algo) {
    if (coll < GSP_COLL_BROADCAST || coll > GSP_COLL_REDUCE) return gsp_error(GSP_ERR_INVAL, "unknown collective");
    gsp_free(c->force[coll]);
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


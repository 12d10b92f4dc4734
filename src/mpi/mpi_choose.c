/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_choose.c — the choice and each rank's programs: the candidates of a collective (built on
 * first use, the same on every rank), the cost model's choice per size class (building pending
 * candidates only when their lower bound wins), and this rank's programs of the chosen one. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_rt_int.h"

/* ---- choosing and preparing an algorithm ---- */

static entry_t *entry_for(gsp_mpi_ctx_t *c, gsp_collective_t coll, int root) {
    if (coll == GSP_COLL_BROADCAST || coll == GSP_COLL_REDUCE) {
        int k = coll == GSP_COLL_REDUCE;
        if (!c->rooted[k] && !(c->rooted[k] = gsp_calloc((size_t)c->size, sizeof *c->rooted[k]))) return NULL;
        return &c->rooted[k][root];
    }
    return &c->fixed[coll];
}

static int size_class(int64_t bytes) {
    int k = 0;
    while (k < SIZE_CLASSES - 1 && ((int64_t)1 << k) < bytes) k++;
    return k;
}

/* Largest message of algorithm a that would be packed, in bytes, for blocks of blk bytes. */
static double packed_max(const gsp_rt_algo_t *a, double vec, double per_rank, int64_t n) {
    double m = 0;
    for (int k = 0; k < a->nphases; k++) {
        const gsp_rt_phase_t *ph = &a->phase[k];
        double parts = ph->parts > 1 ? (double)ph->parts : 1;
        double nb = ph->nblocks > 0 ? (double)ph->nblocks : (double)n;
        double blk = ph->layout == GSP_RT_RANK ? per_rank / parts + 1 : ph->layout == GSP_RT_SPLIT ? vec / (nb * parts) + 1 : vec;
        for (int64_t r = 0; r < ph->nrounds; r++) {
            double x = (double)ph->maxblk[r] * blk;
            /* A pipelined phase's segments are at most GSP__MPI_MAX_SEGMENT bytes (mpi_engine.c). */
            if (ph->pipelined && x > (double)GSP__MPI_MAX_SEGMENT) x = (double)GSP__MPI_MAX_SEGMENT;
            if (x > m) m = x;
        }
    }
    return m;
}

typedef struct {
    double vec, per_rank;
    int64_t n;
} too_big_t;

/* Algorithms whose packed messages would overflow MPI's int count are left out. */
static bool too_big(const gsp_rt_algo_t *a, void *ctx) {
    const too_big_t *x = ctx;
    return packed_max(a, x->vec, x->per_rank, x->n) > (double)INT_MAX;
}

/* This rank's programs of algorithm a, computed on first use. */
static gsp_err_t programs_of(gsp_mpi_ctx_t *c, entry_t *e, const gsp_rt_algo_t *a, const gsp_rt_prog_t **out) {
    for (int i = 0; i < e->nprogs; i++)
        if (!strcmp(e->progs[i].name, a->name)) {
            *out = e->progs[i].prog;
            return GSP_OK;
        }
    void *q = gsp_realloc(e->progs, (size_t)(e->nprogs + 1) * sizeof *e->progs);
    if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    e->progs = q;
    progs_t *pr = &e->progs[e->nprogs];
    memset(pr, 0, sizeof *pr);
    snprintf(pr->name, sizeof pr->name, "%s", a->name);
    gsp_err_t err = GSP_OK;
    for (int k = 0; k < a->nphases && !err; k++) err = gsp_rt_program(a, k, &c->topo, c->rank, &pr->prog[k]);
    if (err) {
        for (int k = 0; k < GSP_RT_MAX_PHASES; k++) gsp_rt_prog_destroy(&pr->prog[k]);
        return err;
    }
    e->nprogs++;
    *out = pr->prog;
    return GSP_OK;
}

/* Finds the algorithm for coll on bytes, building on first use only what this rank runs: the
 * candidates' compact forms and this rank's programs of the chosen one. Every rank takes the
 * same decisions from the same inputs; a failure to build is agreed on by all ranks, so they
 * fall through together instead of some waiting forever. */
gsp_err_t gsp__mpi_prepare(gsp_mpi_ctx_t *c, gsp_collective_t coll, int root, int64_t bytes, double vec, double per_rank,
                         const gsp_rt_algo_t **algo, const gsp_rt_prog_t **progs) {
    gsp_err_t err = GSP_OK;
    entry_t *e = entry_for(c, coll, root);
    c->communicated = false;
    if (!e) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    if (!e->ready) {
        c->gen++; /* the cached calls' pointers into entries are stale from here */
        err = c->is_fabric ? gsp_rt_fabric_algos(&c->fabric, &c->topo, &c->dist, coll, root, &e->algos)
                           : gsp_rt_algos(&c->topo, &c->dist, coll, root, c->method, &e->algos);
        if (!err && !(e->choice = gsp_calloc(SIZE_CLASSES, sizeof *e->choice))) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        if (!err)
            for (int s = 0; s < SIZE_CLASSES; s++) e->choice[s] = -1;
        int ok = !err, all;
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->comm);
        if (!all) {
            if (!err) err = gsp_error(GSP_ERR_INTERNAL, "another rank failed to plan %s", gsp_collective_name(coll));
            gsp__mpi_entry_free(e);
            return err;
        }
        e->ready = true;
    }
    int idx = -1;
    const char *force = c->force[coll];
    bool fresh = false;
    if (force) {
        idx = gsp_rt_find(&e->algos, force);
        if (idx < 0) return gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm '%s' for %s here", force, gsp_collective_name(coll));
        if (e->algos.v[idx].pending) {
            bool removed = false;
            fresh = true;
            err = gsp_rt_realize(&e->algos, idx, &removed);
            if (!err && removed) err = gsp_error(GSP_ERR_NOTAPPLIC, "runtime algorithm '%s' does not apply here", force);
        }
    } else {
        int sc = size_class(bytes);
        if (e->choice[sc] < 0) {
            /* Predict at the class's upper end. Building a pending candidate changes the
             * indices: forget the other classes' choices. */
            int n0 = e->algos.n;
            too_big_t tb = {vec, per_rank, c->size};
            int best;
            fresh = true;
            err = gsp_rt_choose_build(&e->algos, c->size, (int64_t)1 << sc, &c->cost, too_big, &tb, &best);
            if (err == GSP_ERR_NOTAPPLIC) err = gsp_error(GSP_ERR_TOOBIG, "every algorithm would send a message above MPI's int count");
            if (!err) {
                if (e->algos.n != n0)
                    for (int s = 0; s < SIZE_CLASSES; s++) e->choice[s] = -1;
                e->choice[sc] = best;
                /* GOSSIP_VERBOSE=2: why, on rank 0 — every candidate's predicted time. */
                const char *v = getenv("GOSSIP_VERBOSE");
                if (c->rank == 0 && v && atoi(v) >= 2) {
                    fprintf(stderr, "gossip: %s", gsp_collective_name(coll));
                    if (coll == GSP_COLL_BROADCAST || coll == GSP_COLL_REDUCE) fprintf(stderr, " from root %d", root);
                    fprintf(stderr, " on %s, %lld bytes (predicted for its size class, up to %lld bytes): %s\n", c->topo.spec,
                            (long long)bytes, (long long)1 << sc, e->algos.v[best].name);
                    gsp_rt_explain(stderr, "gossip:   ", &e->algos, c->size, (int64_t)1 << sc, &c->cost, best, too_big, &tb);
                }
            }
        }
        if (!err) idx = (int)e->choice[sc];
    }
    /* A pipelined phase's rounds must stay apart in its tags: more than 6 bits of them need
     * the wide tags (the same answer on every rank). */
    for (int k = 0; !err && k < e->algos.v[idx].nphases; k++)
        if (e->algos.v[idx].phase[k].pipelined && e->algos.v[idx].phase[k].nrounds > 64 && !c->tag_wide)
            err = gsp_error(GSP_ERR_UNSUPPORTED, "%s has %lld rounds: more than this MPI's tags (MPI_TAG_UB below 2^29) keep apart",
                            e->algos.v[idx].name, (long long)e->algos.v[idx].phase[k].nrounds);
    const gsp_rt_prog_t *pg = NULL;
    if (!err) {
        bool known = false;
        for (int i = 0; i < e->nprogs && !known; i++) known = !strcmp(e->progs[i].name, e->algos.v[idx].name);
        fresh |= !known;
        err = programs_of(c, e, &e->algos.v[idx], &pg);
    }
    /* Every rank reaches this agreement on the same calls: it builds or chooses on the same
     * first uses, deterministically. */
    if (fresh) {
        c->gen++;
        int ok = !err, all = 1;
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->comm);
        if (!all) return err ? err : gsp_error(GSP_ERR_INTERNAL, "another rank failed to plan %s", gsp_collective_name(coll));
    }
    if (err) return err;
    *algo = &e->algos.v[idx];
    *progs = pg;
    c->last = e->algos.v[idx].name;
    return GSP_OK;
}


const gsp_rt_algo_t *gsp_mpi_ctx_choice(gsp_mpi_ctx_t *c, gsp_collective_t coll, int root, int64_t bytes) {
    entry_t *e = entry_for(c, coll, (int)gsp_mpi_ctx_node(c, root));
    if (!e || !e->ready) return NULL;
    int i = c->force[coll] ? gsp_rt_find(&e->algos, c->force[coll]) : (int)e->choice[size_class(bytes)];
    return i >= 0 ? &e->algos.v[i] : NULL;
}



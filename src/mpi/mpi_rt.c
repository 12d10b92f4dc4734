/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_rt.c — exact collectives over MPI from the runtime algorithms of runtime.h.
 *
 * Each rank extracts its share of every phase: per round, one message per peer listing the
 * blocks it carries. Execution is dataflow: all receives of a phase are posted at once (straight
 * into the user's buffer when a message is one block of a gathered result), and each send is
 * issued as soon as the receives it depends on have completed, so latency overlaps transfers.
 * Received messages are processed strictly in schedule order, so every block's reduction order
 * is fixed by the schedule and every rank ends with the same bits. Buffers and requests grow
 * once and are reused by every call. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"
#include "mpi_int.h"

/* This rank's programs of one algorithm, computed on its first use. */
typedef struct {
    char name[32];
    gsp_rt_prog_t prog[2];
} progs_t;

typedef struct {
    gsp_rt_algos_t algos;
    progs_t *progs;     /* the algorithms run so far */
    int nprogs;
    int64_t *choice;    /* per size class (log2 of bytes): algorithm index, -1 = not chosen yet */
    bool ready;
} entry_t;

#define SIZE_CLASSES 64

struct gsp_mpi_ctx {
    MPI_Comm comm;
    int rank, size;
    gsp_topo_t topo;
    gsp_distances_t dist;
    gsp_cost_t cost;
    char *method;
    char *force[GSP_COLL_REDUCE + 1]; /* forced algorithm per collective, or NULL */
    entry_t fixed[GSP_COLL_REDUCE + 1]; /* allgather, allreduce, reduce-scatter */
    entry_t *rooted[2];                 /* broadcast, reduce: one entry per root */
    /* Reused storage. */
    char *stage;
    size_t stage_cap;
    char *work;
    size_t work_cap;
    MPI_Request *req;
    size_t req_cap;
    size_t *soff;
    size_t soff_cap;
    int64_t *lane;
    size_t lane_cap;
    int *idx;
    size_t idx_cap;
    const char *last;
    bool communicated; /* the current call has posted a message (no falling back after that) */
    size_t nreq;       /* request slots of the running phase (released on an error) */
    int mpi_err;       /* the MPI error class of the last failed MPI call (0: none) */
    const void *mine;  /* allgather: this rank's block is read from here (the send buffer) */
    /* Reduce phases: the input, when it is not the working buffer. A block (per lane) stays
     * "fresh" — its value still the input's — until its first contribution arrives, which is
     * combined with the input straight into the working buffer: no copy of the whole vector. */
    const void *in;
    unsigned char *fresh;
    size_t fresh_cap;
};

static void entry_free(entry_t *e) {
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
        entry_free(&c->fixed[k]);
        gsp_free(c->force[k]);
    }
    for (int k = 0; k < 2; k++) {
        if (c->rooted[k])
            for (int r = 0; r < c->size; r++) entry_free(&c->rooted[k][r]);
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
static gsp_err_t mpi_fail(gsp_mpi_ctx_t *c, int rc, const char *what) {
    int cls = MPI_ERR_INTERN, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    c->mpi_err = cls;
    return gsp_error(GSP_ERR_INTERNAL, "%s failed: %s", what, msg);
}

int gsp_mpi_ctx_mpi_error(const gsp_mpi_ctx_t *c) { return c->mpi_err ? c->mpi_err : MPI_ERR_INTERN; }

/* After an error with messages in flight: receives are cancelled, sends left to complete, and
 * every request released, so no stale message of this call waits in the duplicate. */
static void abandon(MPI_Request *req, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (req[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&req[i]);
            MPI_Request_free(&req[i]);
        }
}

/* ---- buffers ---- */

static gsp_err_t reserve(void **p, size_t *cap, size_t need) {
    if (need <= *cap) return GSP_OK;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need) nc *= 2;
    void *q = gsp_realloc(*p, nc);
    if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory for %zu bytes of message buffers", need);
    *p = q;
    *cap = nc;
    return GSP_OK;
}

/* Block layout: x's first element and element count; with lanes, the lane's segment of it. */
typedef struct {
    gsp_rt_layout_t layout;
    int64_t count, n; /* RANK: count per block; SPLIT: the vector's count over n blocks */
    int lanes, lane;  /* the schedule runs once per lane on a 1/lanes segment of every block */
    int64_t parts;    /* each of the n blocks cut into this many parts: block x * parts + q */
} lay_t;

static inline int64_t base_first(const lay_t *l, int64_t x) {
    if (l->layout == GSP_RT_RANK) return x * l->count;
    if (l->layout == GSP_RT_WHOLE) return 0;
    int64_t q = l->count / l->n, r = l->count % l->n;
    return x * q + (x < r ? x : r);
}

static inline int64_t base_len(const lay_t *l, int64_t x) {
    if (l->layout == GSP_RT_RANK || l->layout == GSP_RT_WHOLE) return l->count;
    int64_t q = l->count / l->n, r = l->count % l->n;
    return q + (x < r);
}

/* Blocks of the layout (what the programs number). */
static inline int64_t nblk(const lay_t *l) { return l->n * l->parts; }

static inline int64_t whole_first(const lay_t *l, int64_t b) {
    if (l->parts <= 1 || l->layout == GSP_RT_WHOLE) return base_first(l, b);
    int64_t x = b / l->parts, q = b % l->parts;
    return base_first(l, x) + base_len(l, x) * q / l->parts;
}

static inline int64_t whole_len(const lay_t *l, int64_t b) {
    if (l->parts <= 1 || l->layout == GSP_RT_WHOLE) return base_len(l, b);
    int64_t x = b / l->parts, q = b % l->parts, L = base_len(l, x);
    return L * (q + 1) / l->parts - L * q / l->parts;
}

static inline int64_t blk_first(const lay_t *l, int64_t x) {
    return whole_first(l, x) + whole_len(l, x) * l->lane / l->lanes;
}

static inline int64_t blk_len(const lay_t *l, int64_t x) {
    int64_t L = whole_len(l, x);
    return L * (l->lane + 1) / l->lanes - L * l->lane / l->lanes;
}

/* A datatype the runtime may treat as plain bytes: no holes, no offset. */
typedef struct {
    MPI_Datatype dt;
    MPI_Aint ext;
    int size;
    bool plain;
} dtinfo_t;

static void dt_info(MPI_Datatype dt, dtinfo_t *d) {
    MPI_Aint lb, tlb, text;
    d->dt = dt;
    MPI_Type_get_extent(dt, &lb, &d->ext);
    MPI_Type_get_true_extent(dt, &tlb, &text);
    MPI_Type_size(dt, &d->size);
    d->plain = lb == 0 && tlb == 0 && text == d->ext && (MPI_Aint)d->size == d->ext;
}

static inline char *at(void *base, int64_t first, const dtinfo_t *d) {
    /* Integer arithmetic: base may be MPI_BOTTOM with absolute displacements in the type. */
    return (char *)((uintptr_t)base + (uintptr_t)(first * (int64_t)d->ext));
}

/* Bytes a message takes packed (plain types: the data itself). */
static int64_t msg_bytes(const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, const lay_t *l, const dtinfo_t *d, MPI_Comm comm) {
    int64_t b = 0;
    for (int64_t i = 0; i < x->n; i++) {
        int64_t len = blk_len(l, p->items[x->first + i]);
        if (d->plain) b += len * d->size;
        else {
            int ps = 0;
            MPI_Pack_size((int)len, d->dt, comm, &ps);
            b += ps;
        }
    }
    return b;
}

/* A message goes straight from or to the buffer when it is one block and (receives) the block
 * is stored, not combined. */
static inline bool direct(const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, bool recv) {
    /* An exchange phase combines into the very block it sent a round before: its sends are
     * copied out, so the buffer may change while they fly. */
    return x->n == 1 && (recv ? p->kind == GSP_RT_STORE : !p->exchange);
}

/* Where a send reads block b: the caller's send buffer for this rank's own allgather block (so
 * the local copy can wait until the messages are out), else the working buffer. */
static inline bool is_fresh(const gsp_mpi_ctx_t *c, const lay_t *l, int64_t b) {
    return c->in && c->fresh[(size_t)l->lane * (size_t)nblk(l) + (size_t)(l->layout == GSP_RT_WHOLE ? 0 : b)];
}

static inline char *src_at(const gsp_mpi_ctx_t *c, void *base, const lay_t *l, int64_t b, const dtinfo_t *d) {
    if (c->mine && l->layout == GSP_RT_RANK && b / l->parts == c->rank)
        return (char *)((uintptr_t)c->mine + (uintptr_t)((blk_first(l, b) - base_first(l, c->rank)) * (int64_t)d->ext));
    if (is_fresh(c, l, b)) return at((void *)(uintptr_t)c->in, blk_first(l, b), d);
    return at(base, blk_first(l, b), d);
}

/* Tags keep phases and lanes apart; rounds wrap, which is safe because one lane's messages
 * between two ranks are sent and received in round order (MPI does not overtake). */
static int tag_of(int phase, int lane, int32_t round) { return ((phase & 1) << 14) | ((lane & 255) << 6) | (round & 0x3f); }

/* Processes lane j's received messages [b, e) in schedule order: unpack or combine. */
static gsp_err_t absorb(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int64_t b, int64_t e, const size_t *soff, void *base, const lay_t *l,
                        const dtinfo_t *d, MPI_Op op) {
    gsp_err_t err;
    for (int64_t q = b; q < e; q++) {
        const gsp_rt_msg_t *x = &p->recv[q];
        if (direct(p, x, true)) continue;
        char *src = c->stage + soff[q];
        int pos = 0, bytes = (int)msg_bytes(p, x, l, d, c->comm);
        for (int64_t i = 0; i < x->n; i++) {
            int64_t blk = p->items[x->first + i], len = blk_len(l, blk);
            char *dst = at(base, blk_first(l, blk), d);
            if (p->kind == GSP_RT_REDUCE) {
                /* Reduce phases run on plain types only (checked by the callers). */
                if (is_fresh(c, l, blk)) {
                    const char *inb = at((void *)(uintptr_t)c->in, blk_first(l, blk), d);
                    if ((err = gsp_mpi_reduce_local3(src + pos, inb, dst, (int)len, d->dt, op))) return err;
                    c->fresh[(size_t)l->lane * (size_t)nblk(l) + (size_t)(l->layout == GSP_RT_WHOLE ? 0 : blk)] = 0;
                } else if ((err = gsp_mpi_reduce_local(src + pos, dst, (int)len, d->dt, op)))
                    return err;
                pos += (int)(len * d->size);
            } else if (d->plain) {
                memcpy(dst, src + pos, (size_t)(len * d->size));
                pos += (int)(len * d->size);
            } else
                MPI_Unpack(src, bytes, &pos, dst, (int)len, d->dt, c->comm);
        }
    }
    return GSP_OK;
}

/* Staging offsets, lane by lane (c->soff[j * per + q]: receive q, then send q at nR + q):
 * receives that are combined or hold several blocks, then packed sends. *total [out]: bytes. */
static gsp_err_t stage_offsets(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const lay_t *l0, const dtinfo_t *d, size_t *total_out) {
    int K = l0->lanes;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS;
    size_t total = 0;
    for (int j = 0; j < K; j++) {
        lay_t l = *l0;
        l.lane = j;
        size_t *so = c->soff + (size_t)j * (size_t)per;
        for (int64_t q = 0; q < nR; q++) {
            so[q] = total;
            if (!direct(p, &p->recv[q], true)) total += (size_t)msg_bytes(p, &p->recv[q], &l, d, c->comm);
        }
        for (int64_t q = 0; q < nS; q++) {
            so[nR + q] = total;
            if (!direct(p, &p->send[q], false)) {
                int64_t b = msg_bytes(p, &p->send[q], &l, d, c->comm);
                if (b > INT_MAX) return gsp_error(GSP_ERR_TOOBIG, "a message of %lld bytes is more than MPI's int count", (long long)b);
                total += (size_t)b;
            }
        }
    }
    *total_out = total;
    return GSP_OK;
}

/* The staging area for a phase's lanes, and (reduce phases with a separate input) every
 * block of every lane marked "fresh": still the input's value. */
static gsp_err_t stage_and_fresh(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const lay_t *l0, const dtinfo_t *d) {
    gsp_err_t err;
    size_t total = 0, K = (size_t)l0->lanes;
    if ((err = stage_offsets(c, p, l0, d, &total))) return err;
    if ((err = reserve((void **)&c->stage, &c->stage_cap, total + 1))) return err;
    if (c->in) {
        if ((err = reserve((void **)&c->fresh, &c->fresh_cap, K * (size_t)nblk(l0) + 1))) return err;
        memset(c->fresh, 1, K * (size_t)nblk(l0));
    }
    return GSP_OK;
}

/* Issues send q of lane l->lane: one block straight from its buffer, or several packed into
 * the lane's staging area (so: the lane's offsets). */
static gsp_err_t issue_send(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, int64_t q, void *base, const lay_t *l, const dtinfo_t *d,
                            const size_t *so, MPI_Request *req) {
    const gsp_rt_msg_t *x = &p->send[q];
    int64_t b0 = p->items[x->first];
    int tag = tag_of(phase, l->lane, x->round), rc;
    if (direct(p, x, false) && p->pipelined) /* synchronous: completion means delivered (the window) */
        rc = MPI_Issend(src_at(c, base, l, b0, d), (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else if (direct(p, x, false)) rc = MPI_Isend(src_at(c, base, l, b0, d), (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else {
        char *dst = c->stage + so[p->nrecv + q];
        int pos = 0, bytes = (int)msg_bytes(p, x, l, d, c->comm);
        for (int64_t i = 0; i < x->n; i++) {
            int64_t blk = p->items[x->first + i], len = blk_len(l, blk);
            if (d->plain) {
                memcpy(dst + pos, src_at(c, base, l, blk, d), (size_t)(len * d->size));
                pos += (int)(len * d->size);
            } else
                MPI_Pack(src_at(c, base, l, blk, d), (int)len, d->dt, dst, bytes, &pos, c->comm);
        }
        /* One block of a plain type (an exchange phase's copy) goes as that type: the receiver
         * posts it so. */
        if (x->n == 1 && d->plain) rc = MPI_Isend(dst, (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
        else rc = MPI_Isend(dst, pos, MPI_PACKED, x->peer, tag, c->comm, req);
    }
    return rc == MPI_SUCCESS ? GSP_OK : mpi_fail(c, rc, "MPI_Isend");
}

/* Posts receive q of lane l->lane into the buffer (one stored block) or the staging area. */
static gsp_err_t post_recv(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, int64_t q, void *base, const lay_t *l, const dtinfo_t *d,
                           const size_t *so, MPI_Request *req) {
    const gsp_rt_msg_t *x = &p->recv[q];
    int64_t b0 = p->items[x->first];
    int tag = tag_of(phase, l->lane, x->round), rc;
    if (direct(p, x, true)) rc = MPI_Irecv(at(base, blk_first(l, b0), d), (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else if (p->kind == GSP_RT_REDUCE && x->n == 1) rc = MPI_Irecv(c->stage + so[q], (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else rc = MPI_Irecv(c->stage + so[q], (int)msg_bytes(p, x, l, d, c->comm), MPI_PACKED, x->peer, tag, c->comm, req);
    return rc == MPI_SUCCESS ? GSP_OK : mpi_fail(c, rc, "MPI_Irecv");
}

/* Messages of one arc in flight at once in a pipelined phase, across lanes. */
#define WINDOW 4

typedef struct {
    gsp_mpi_ctx_t *c;
    const gsp_rt_prog_t *p;
    int phase;
    void *base;
    const lay_t *l0;
    const dtinfo_t *d;
    int window;
    int *rstate, *sstate;
    MPI_Request *sq;
    int64_t issued;
} pipe_t;

/* Issues lane j's sends whose block is absorbed and whose window is free. */
static gsp_err_t try_issue(pipe_t *pp, int j) {
    const gsp_rt_prog_t *p = pp->p;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS;
    lay_t l = *pp->l0;
    l.lane = j;
    for (int64_t q = 0; q < nS; q++) {
        int *st = &pp->sstate[(size_t)j * (size_t)nS + (size_t)q];
        int64_t dep = p->send[q].prev;
        if (*st || (dep >= 0 && pp->rstate[(size_t)j * (size_t)nR + (size_t)dep] != 2)) continue;
        if (j >= pp->window && pp->sstate[(size_t)(j - pp->window) * (size_t)nS + (size_t)q] != 2) continue;
        gsp_err_t err = issue_send(pp->c, p, pp->phase, q, pp->base, &l, pp->d, pp->c->soff + (size_t)j * (size_t)per,
                                   &pp->sq[(size_t)j * (size_t)nS + (size_t)q]);
        if (err) return err;
        *st = 1;
        pp->issued++;
    }
    return GSP_OK;
}

/* A pipelined phase (arc-disjoint trees, many lanes): messages are handled in the order they
 * complete, so a node on several trees forwards each tree's segments as they arrive, whatever
 * the other trees do (a fixed order would make a tree wait for another's whole message).
 * Per arc, a lane's send waits until the send WINDOW lanes earlier has completed: networks,
 * and SimGrid, share a link among concurrent messages, and without a window all segments
 * would arrive together at the end and nothing would pipeline. Each lane still absorbs its
 * receives in schedule order, so reductions keep the schedule's order. */
static gsp_err_t run_pipelined(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                               MPI_Op op) {
    gsp_err_t err;
    int window = WINDOW;
    int K = l0->lanes;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS, all = (int64_t)K * per;
    if (all > INT_MAX / 2) return gsp_error(GSP_ERR_TOOBIG, "too many messages in one phase");
    if ((err = reserve((void **)&c->req, &c->req_cap, (size_t)(all + 1) * sizeof *c->req)) ||
        (err = reserve((void **)&c->soff, &c->soff_cap, (size_t)(all + 1) * sizeof *c->soff)) ||
        (err = reserve((void **)&c->idx, &c->idx_cap, (size_t)(all + 1) * sizeof *c->idx)))
        return err;
    if ((err = stage_and_fresh(c, p, l0, d))) return err;
    /* req: receives of every lane [0, K nR), then sends [K nR, K per). state: receives 0
     * (posted) / 1 (complete) / 2 (absorbed), sends 0 (not issued) / 1 (in flight) / 2 (done). */
    MPI_Request *rq = c->req, *sq = c->req + (size_t)K * (size_t)nR;
    int *state = c->idx, *sstate = c->idx + (size_t)K * (size_t)nR;
    for (int64_t q = 0; q < all; q++) {
        c->req[q] = MPI_REQUEST_NULL;
        state[q] = 0;
    }
    c->nreq = (size_t)all;
    c->communicated = true;
    lay_t l = *l0;
    for (int j = 0; j < K; j++) {
        l.lane = j;
        for (int64_t q = 0; q < nR; q++)
            if ((err = post_recv(c, p, phase, q, base, &l, d, c->soff + (size_t)j * (size_t)per, &rq[(size_t)j * (size_t)nR + (size_t)q])))
                return err;
    }
    int64_t rdone = 0, sdone = 0;
    pipe_t pp = {c, p, phase, base, l0, d, window, state, sstate, sq, 0};
    for (int j = 0; j < K && !err; j++) err = try_issue(&pp, j);
    if (err) return err;
    while (rdone < (int64_t)K * nR || sdone < (int64_t)K * nS) {
        int i;
        int rc = MPI_Waitany((int)all, c->req, &i, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return mpi_fail(c, rc, "MPI_Waitany");
        if (i == MPI_UNDEFINED)
            return gsp_error(GSP_ERR_INTERNAL, "pipelined phase stalled with %lld of %lld sends issued", (long long)pp.issued, (long long)K * nS);
        if (i < K * nR) {
            int j = (int)(i / nR);
            int64_t q = i % nR;
            state[i] = 1;
            rdone++;
            /* Absorb it, and the later receives of its block that were waiting for it. */
            if (p->recv[q].prev >= 0 && state[(size_t)j * (size_t)nR + (size_t)p->recv[q].prev] != 2) continue;
            l.lane = j;
            for (int64_t r = q; r >= 0 && state[(size_t)j * (size_t)nR + (size_t)r] == 1; r = p->recv[r].next) {
                if ((err = absorb(c, p, r, r + 1, c->soff + (size_t)j * (size_t)per, base, &l, d, op))) return err;
                state[(size_t)j * (size_t)nR + (size_t)r] = 2;
            }
            if ((err = try_issue(&pp, j))) return err;
        } else {
            int64_t s = i - (int64_t)K * nR;
            int j = (int)(s / nS);
            sstate[s] = 2;
            sdone++;
            if (j + window < K && (err = try_issue(&pp, j + window))) return err;
        }
    }
    return GSP_OK;
}

/* Runs one phase on buffer base, as `lanes` copies of the schedule on segments of the blocks.
 * Dataflow: all receives are posted first; a lane's send goes out as soon as the receives it
 * depends on (that lane's rounds <= need) are complete and processed. Each lane processes its
 * receives in round order and lanes touch disjoint segments, so the reduction order of every
 * element is the schedule's, whatever the timing. */
static gsp_err_t run_rounds(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                            MPI_Op op);

/* Runs a phase; on an error after its first message, its requests are released. */
static gsp_err_t run_phase(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                           MPI_Op op) {
    c->nreq = 0;
    gsp_err_t err = p->pipelined ? run_pipelined(c, p, phase, base, l0, d, op) : run_rounds(c, p, phase, base, l0, d, op);
    if (err && c->nreq) abandon(c->req, c->nreq);
    c->nreq = 0;
    return err;
}

static gsp_err_t run_rounds(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                            MPI_Op op) {
    gsp_err_t err;
    int K = l0->lanes;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS;
    if ((err = reserve((void **)&c->req, &c->req_cap, (size_t)(K * per + 1) * sizeof *c->req)) ||
        (err = reserve((void **)&c->soff, &c->soff_cap, (size_t)(K * per + 1) * sizeof *c->soff)) ||
        (err = reserve((void **)&c->lane, &c->lane_cap, (size_t)(2 * K + 1) * sizeof *c->lane)) ||
        (err = reserve((void **)&c->idx, &c->idx_cap, (size_t)(K * per + 1) * sizeof *c->idx)))
        return err;
    if ((err = stage_and_fresh(c, p, l0, d))) return err;
    for (int64_t q = 0; q < K * per; q++) c->req[q] = MPI_REQUEST_NULL; /* sends not yet issued */
    c->nreq = (size_t)(K * per);
    c->communicated = true;
    for (int j = 0; j < K; j++) {
        lay_t l = *l0;
        l.lane = j;
        MPI_Request *rq = c->req + (size_t)j * (size_t)per;
        const size_t *so = c->soff + (size_t)j * (size_t)per;
        for (int64_t q = 0; q < nR; q++)
            if ((err = post_recv(c, p, phase, q, base, &l, d, so, &rq[q]))) return err;
    }
    /* Sends go out in round order, lane by lane within a round; before each, its lane's
     * receives up to the round it needs are waited for (blocking: SMPI charges simulated time
     * for every MPI_Test, and real MPIs spin in them) and processed in order. Every send needs
     * only earlier rounds, so every rank's earlier messages are already on their way. */
    int64_t *done = c->lane; /* per lane: receives processed */
    for (int j = 0; j < K; j++) done[j] = 0;
    for (int64_t s0 = 0; s0 <= nS;) {
        int64_t s1 = s0;
        while (s1 < nS && p->send[s1].round == p->send[s0].round) s1++;
        for (int j = 0; j < K; j++) {
            lay_t l = *l0;
            l.lane = j;
            MPI_Request *rq = c->req + (size_t)j * (size_t)per, *sq = rq + nR;
            const size_t *so = c->soff + (size_t)j * (size_t)per;
            for (int64_t q = s0; q <= s1; q++) {
                int32_t need = q < nS && s0 < nS ? p->send[q].need : INT32_MAX;
                if (q == s1 && s0 < nS) break;
                while (done[j] < nR && p->recv[done[j]].round <= need) {
                    int64_t e = done[j];
                    while (e < nR && p->recv[e].round == p->recv[done[j]].round) e++;
                    int rc = MPI_Waitall((int)(e - done[j]), rq + done[j], MPI_STATUSES_IGNORE);
                    if (rc != MPI_SUCCESS) return mpi_fail(c, rc, "MPI_Waitall");
                    if ((err = absorb(c, p, done[j], e, so, base, &l, d, op))) return err;
                    done[j] = e;
                }
                if (q >= nS) break;
                if ((err = issue_send(c, p, phase, q, base, &l, d, so, &sq[q]))) return err;
            }
        }
        if (s0 == nS) break;
        s0 = s1;
    }
    for (int j = 0; j < K; j++) {
        MPI_Request *sq = c->req + (size_t)j * (size_t)per + nR;
        int rc = MPI_Waitall((int)nS, sq, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) return mpi_fail(c, rc, "MPI_Waitall");
    }
    return GSP_OK;
}

/* Lanes for a phase: blocks cut into segments of about cost.segment bytes (none when 0), at most
 * GSP_RT_MAX_LANES, and never an empty segment. */
static int lanes_for(const gsp_mpi_ctx_t *c, const lay_t *l, const dtinfo_t *d) {
    if (c->cost.segment <= 0 || l->count == 0) return 1;
    int64_t shortest = base_len(l, l->n - 1) / l->parts, longest = whole_len(l, 0);
    if (l->layout == GSP_RT_SPLIT && l->count % l->n == 0 && base_len(l, 0) % l->parts == 0) shortest = longest;
    int64_t k = (longest * d->size + c->cost.segment - 1) / c->cost.segment;
    if (k > GSP_RT_MAX_LANES) k = GSP_RT_MAX_LANES; /* enough to pipeline; more only multiplies messages */
    if (k > shortest) k = shortest;
    return k < 1 ? 1 : (int)k;
}

static lay_t layout(const gsp_mpi_ctx_t *c, gsp_rt_layout_t kind, int64_t count, const dtinfo_t *d) {
    lay_t l = {kind, count, c->size, 1, 0, 1};
    l.lanes = lanes_for(c, &l, d);
    return l;
}

/* A phase's layout: its own block count and parts, and for a pipelined phase the cost model's
 * segments. */
static lay_t phase_layout(const gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, int64_t count, const dtinfo_t *d) {
    if (!ph->pipelined) {
        lay_t l = {ph->layout, count, c->size, 1, 0, ph->parts > 1 ? ph->parts : 1};
        l.lanes = lanes_for(c, &l, d);
        return l;
    }
    lay_t l = {ph->layout, count, ph->nblocks > 0 ? ph->nblocks : c->size, 1, 0, 1};
    int64_t shortest = whole_len(&l, l.n - 1), k = gsp_rt_segments(ph, (double)whole_len(&l, 0) * d->size, &c->cost);
    if (k > shortest) k = shortest;
    l.lanes = k < 1 ? 1 : (int)k;
    return l;
}

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
        double blk = ph->layout == GSP_RT_RANK ? per_rank / parts + 1 : ph->layout == GSP_RT_SPLIT ? vec / ((double)n * parts) + 1 : vec;
        for (int64_t r = 0; r < ph->nrounds; r++)
            if ((double)ph->maxblk[r] * blk > m) m = (double)ph->maxblk[r] * blk;
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
        for (int k = 0; k < 2; k++) gsp_rt_prog_destroy(&pr->prog[k]);
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
static gsp_err_t prepare(gsp_mpi_ctx_t *c, gsp_collective_t coll, int root, int64_t bytes, double vec, double per_rank,
                         const gsp_rt_algo_t **algo, const gsp_rt_prog_t **progs) {
    gsp_err_t err = GSP_OK;
    entry_t *e = entry_for(c, coll, root);
    c->communicated = false;
    if (!e) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    if (!e->ready) {
        err = gsp_rt_algos(&c->topo, &c->dist, coll, root, c->method, &e->algos);
        if (!err && !(e->choice = gsp_calloc(SIZE_CLASSES, sizeof *e->choice))) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        if (!err)
            for (int s = 0; s < SIZE_CLASSES; s++) e->choice[s] = -1;
        int ok = !err, all;
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->comm);
        if (!all) {
            if (!err) err = gsp_error(GSP_ERR_INTERNAL, "another rank failed to plan %s", gsp_collective_name(coll));
            entry_free(e);
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
            }
        }
        if (!err) idx = (int)e->choice[sc];
    }
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


bool gsp_mpi_ctx_plain(MPI_Datatype dt) {
    dtinfo_t d;
    dt_info(dt, &d);
    return d.plain;
}

/* ---- datatypes: what every rank cuts the same way ---- */

/* The predefined type a datatype repeats and how many of it one element holds: a predefined
 * type, or contiguous and dup types over one (nested). Ranks may describe the same signature
 * with different such types; counted in the predefined type, their cuts agree. */
static bool basic_of(MPI_Datatype dt, MPI_Datatype *bt, int64_t *mult) {
    MPI_Datatype cur = dt;
    bool owned = false, ok = false;
    *mult = 1;
    for (int depth = 0; depth < 32; depth++) {
        int ni, na, nd, comb;
        if (MPI_Type_get_envelope(cur, &ni, &na, &nd, &comb) != MPI_SUCCESS) break;
        if (comb == MPI_COMBINER_NAMED) {
            *bt = cur;
            ok = true;
            break;
        }
        if ((comb != MPI_COMBINER_CONTIGUOUS && comb != MPI_COMBINER_DUP) || ni > 1 || na != 0 || nd != 1) break;
        int ints[1] = {1};
        MPI_Aint addrs[1];
        MPI_Datatype types[1];
        if (MPI_Type_get_contents(cur, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) break;
        if (comb == MPI_COMBINER_CONTIGUOUS) *mult *= ints[0];
        if (owned) MPI_Type_free(&cur);
        cur = types[0];
        int n1, n2, n3, c2;
        owned = MPI_Type_get_envelope(cur, &n1, &n2, &n3, &c2) == MPI_SUCCESS && c2 != MPI_COMBINER_NAMED;
    }
    if (!ok && owned) MPI_Type_free(&cur);
    return ok;
}

/* The standard's groups of predefined types for the predefined reductions (MPI 4.0, 6.9.2). */
enum { K_NONE, K_INT, K_FLOAT, K_COMPLEX, K_BOOL, K_BYTE };

static int kind_of(MPI_Datatype t) {
    static const MPI_Datatype ints[] = {MPI_INT,       MPI_LONG,      MPI_SHORT,    MPI_UNSIGNED_SHORT, MPI_UNSIGNED,
                                        MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
                                        MPI_INT8_T,    MPI_INT16_T,   MPI_INT32_T,  MPI_INT64_T,        MPI_UINT8_T,
                                        MPI_UINT16_T,  MPI_UINT32_T,  MPI_UINT64_T, MPI_AINT,           MPI_OFFSET,
                                        MPI_COUNT};
    static const MPI_Datatype flts[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype cplx[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (t == ints[i]) return K_INT;
    for (size_t i = 0; i < sizeof flts / sizeof *flts; i++)
        if (t == flts[i]) return K_FLOAT;
    for (size_t i = 0; i < sizeof cplx / sizeof *cplx; i++)
        if (t == cplx[i]) return K_COMPLEX;
    if (t == MPI_C_BOOL) return K_BOOL;
    if (t == MPI_BYTE) return K_BYTE;
    return K_NONE;
}

/* Whether op may reduce the predefined type bt: the standard's table for the predefined ops
 * (types it does not list here, such as Fortran's, are left to MPI); any user op. */
static bool op_ok(MPI_Op op, MPI_Datatype bt) {
    int k = kind_of(bt);
    if (op == MPI_MAX || op == MPI_MIN) return k == K_INT || k == K_FLOAT;
    if (op == MPI_SUM || op == MPI_PROD) return k == K_INT || k == K_FLOAT || k == K_COMPLEX;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return k == K_INT || k == K_BOOL;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return k == K_INT || k == K_BYTE;
    if (op == MPI_MAXLOC || op == MPI_MINLOC || op == MPI_REPLACE || op == MPI_NO_OP || op == MPI_OP_NULL) return false;
    return true; /* a user's op */
}

bool gsp_mpi_ctx_reducible(MPI_Datatype dt, MPI_Op op) {
    MPI_Datatype bt;
    int64_t mult;
    return gsp_mpi_ctx_plain(dt) && basic_of(dt, &bt, &mult) && op_ok(op, bt);
}

/* A reduction's datatype as its predefined type: *d [out] of it and *per [out] of them per
 * element. Refused before any message: the caller falls back to MPI, whose error (MPI_ERR_OP
 * for a pair the standard does not allow) then reaches the user's handler. */
static gsp_err_t reduction_type(gsp_mpi_ctx_t *c, MPI_Datatype dt, MPI_Op op, dtinfo_t *d, int64_t *per) {
    MPI_Datatype bt;
    if (!gsp_mpi_ctx_plain(dt) || !basic_of(dt, &bt, per))
        return gsp_error(GSP_ERR_UNSUPPORTED, "reductions run on predefined types and contiguous types of one");
    if (!op_ok(op, bt)) {
        c->mpi_err = MPI_ERR_OP;
        return gsp_error(GSP_ERR_INVAL, "the operation does not apply to this datatype (MPI_ERR_OP)");
    }
    dt_info(bt, d);
    return GSP_OK;
}

/* Data movement runs on the bytes of the type signature: equal on every rank whatever datatype
 * each rank describes them with, so the blocks and segments are cut the same everywhere. */
static dtinfo_t bytes_type(void) {
    dtinfo_t b;
    dt_info(MPI_BYTE, &b);
    return b;
}

/* Packs count elements of dt at buf into out (bytes of the signature). */
static gsp_err_t pack(gsp_mpi_ctx_t *c, const void *buf, int count, MPI_Datatype dt, void *out, int64_t bytes) {
    int pos = 0, rc;
    if (bytes > INT_MAX) return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)bytes);
    if ((rc = MPI_Pack(buf, count, dt, out, (int)bytes, &pos, c->comm)) != MPI_SUCCESS) return mpi_fail(c, rc, "MPI_Pack");
    if (pos != bytes) return gsp_error(GSP_ERR_UNSUPPORTED, "MPI_Pack gave %d bytes for a signature of %lld", pos, (long long)bytes);
    return GSP_OK;
}

static gsp_err_t unpack(gsp_mpi_ctx_t *c, const void *in, int64_t bytes, void *buf, int count, MPI_Datatype dt) {
    int pos = 0, rc;
    if ((rc = MPI_Unpack(in, (int)bytes, &pos, buf, count, dt, c->comm)) != MPI_SUCCESS) return mpi_fail(c, rc, "MPI_Unpack");
    return GSP_OK;
}

gsp_err_t gsp_mpi_ctx_allgather(gsp_mpi_ctx_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t dr, ds, db = bytes_type();
    dt_info(recvtype, &dr);
    if (sendbuf != MPI_IN_PLACE) dt_info(sendtype, &ds);
    int64_t bytes = (int64_t)recvcount * dr.size, me = c->rank, n = c->size;
    c->mpi_err = 0;
    c->communicated = false;
    if (sendbuf != MPI_IN_PLACE && (int64_t)sendcount * ds.size != bytes)
        return gsp_error(GSP_ERR_INVAL, "the send and receive signatures differ (%lld and %lld bytes)", (long long)sendcount * ds.size,
                         (long long)bytes);
    if (!dr.plain && bytes * n > INT_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)(bytes * n));
    if ((err = prepare(c, GSP_COLL_ALLGATHER, 0, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    if (bytes == 0) return GSP_OK;
    char *base = recvbuf;
    bool late_copy = false;
    if (!dr.plain) {
        /* A receive type with holes: the blocks travel packed, unpacked at the end. */
        if ((err = reserve((void **)&c->work, &c->work_cap, (size_t)(bytes * n) + 1))) return err;
        base = c->work;
        const void *mine = sendbuf == MPI_IN_PLACE ? at(recvbuf, me * recvcount, &dr) : sendbuf;
        if ((err = pack(c, mine, sendbuf == MPI_IN_PLACE ? recvcount : sendcount, sendbuf == MPI_IN_PLACE ? recvtype : sendtype,
                        base + me * bytes, bytes)))
            return err;
    } else if (sendbuf != MPI_IN_PLACE) {
        /* A plain send type: sends read my block from sendbuf and the copy into recvbuf waits
         * until the messages are out; otherwise a self message converts it. */
        late_copy = ds.plain;
        if (!late_copy) {
            int rc = MPI_Sendrecv(sendbuf, sendcount, sendtype, (int)me, 0x7ffe, base + me * bytes, (int)bytes, MPI_BYTE, (int)me, 0x7ffe,
                                  c->comm, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return mpi_fail(c, rc, "the local copy (MPI_Sendrecv)");
        }
    }
    lay_t l = phase_layout(c, &a->phase[0], bytes, &db);
    c->mine = late_copy ? sendbuf : NULL;
    err = run_phase(c, &pg[0], 0, base, &l, &db, MPI_OP_NULL);
    c->mine = NULL;
    if (!err && late_copy) memcpy(base + me * bytes, sendbuf, (size_t)bytes);
    if (!err && !dr.plain) err = unpack(c, base, bytes * n, recvbuf, recvcount * (int)n, recvtype);
    return err;
}

/* Runs a's reduce-scatter phase on work (count elements) and, for rs-ag, its allgather. */
/* Runs a's phases on work. in: the input of a reducing algorithm when it is not work (NULL
 * otherwise): the first phase combines it block by block instead of copying it whole first;
 * what is still the input afterwards and stays with this rank (its own block; with one block,
 * the block) is copied then. */
static gsp_err_t run_algo(gsp_mpi_ctx_t *c, const gsp_rt_algo_t *a, const gsp_rt_prog_t *pg, void *work, const void *in, int64_t count,
                          const dtinfo_t *d, MPI_Op op) {
    gsp_err_t err = GSP_OK;
    for (int k = 0; k < a->nphases && !err; k++) {
        lay_t l = phase_layout(c, &a->phase[k], count, d);
        c->in = k == 0 && a->phase[k].kind == GSP_RT_REDUCE && in != work ? in : NULL;
        /* The blocks that stay here: the one of a tree, this rank's of a reduce-scatter, all
         * of a multitree reduce at its root (elsewhere none). */
        int64_t b0 = 0, b1 = 0;
        if (l.layout == GSP_RT_WHOLE) b1 = 1;
        else if (l.n == c->size) b0 = c->rank * l.parts, b1 = (c->rank + 1) * l.parts;
        else if (a->root == c->rank) b1 = nblk(&l);
        if (!(err = run_phase(c, &pg[k], k, work, &l, d, op)) && c->in)
            for (int j = 0; j < l.lanes; j++) {
                l.lane = j;
                for (int64_t b = b0; b < b1; b++)
                    if (is_fresh(c, &l, b))
                        memcpy(at(work, blk_first(&l, b), d), at((void *)(uintptr_t)in, blk_first(&l, b), d), (size_t)(blk_len(&l, b) * d->size));
            }
        c->in = NULL;
    }
    return err;
}

/* The gather algorithm: every rank's vector to every rank, reduced in rank order. */
static gsp_err_t run_gather(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *pg, const void *in, void *out, int64_t count, const dtinfo_t *d,
                            MPI_Op op) {
    gsp_err_t err;
    size_t vb = (size_t)(count * d->size);
    if ((err = reserve((void **)&c->work, &c->work_cap, vb * (size_t)c->size + 1))) return err;
    memcpy(c->work + vb * (size_t)c->rank, in, vb);
    lay_t l = layout(c, GSP_RT_RANK, count, d);
    if ((err = run_phase(c, &pg[0], 0, c->work, &l, d, op))) return err;
    /* acc = x_{N-1}; acc = x_k op acc for k = N-2 .. 0: the same order on every rank. */
    char *acc = c->work + vb * (size_t)(c->size - 1);
    for (int k = c->size - 2; k >= 0; k--)
        if ((err = gsp_mpi_reduce_local(c->work + vb * (size_t)k, acc, (int)count, d->dt, op))) return err;
    memcpy(out, acc, vb);
    return GSP_OK;
}

gsp_err_t gsp_mpi_ctx_allreduce(gsp_mpi_ctx_t *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d;
    int64_t per;
    c->mpi_err = 0;
    c->communicated = false;
    if ((err = reduction_type(c, dt, op, &d, &per))) return err;
    int64_t n = (int64_t)count * per, bytes = n * d.size;
    if ((err = prepare(c, GSP_COLL_ALLREDUCE, 0, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (n == 0) return GSP_OK;
    if (a->local_reduce) return run_gather(c, pg, in, recvbuf, n, &d, op);
    return run_algo(c, a, pg, recvbuf, in, n, &d, op);
}

gsp_err_t gsp_mpi_ctx_reduce_scatter_block(gsp_mpi_ctx_t *c, const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                                           MPI_Op op) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d;
    int64_t per;
    c->mpi_err = 0;
    c->communicated = false;
    if ((err = reduction_type(c, dt, op, &d, &per))) return err;
    int64_t blk = (int64_t)recvcount * per, bytes = blk * d.size, count = blk * c->size;
    if ((err = prepare(c, GSP_COLL_REDUCE_SCATTER, 0, bytes, (double)bytes * c->size, (double)bytes, &a, &pg))) return err;
    if (blk == 0) return GSP_OK;
    size_t vb = (size_t)(count * d.size);
    char *w;
    if (sendbuf == MPI_IN_PLACE) w = recvbuf;
    else {
        if ((err = reserve((void **)&c->work, &c->work_cap, vb + 1))) return err;
        w = c->work;
    }
    if ((err = run_algo(c, a, pg, w, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, &d, op))) return err;
    lay_t l = layout(c, GSP_RT_SPLIT, count, &d);
    memmove(recvbuf, w + (size_t)whole_first(&l, c->rank) * (size_t)d.size, (size_t)bytes);
    return GSP_OK;
}

gsp_err_t gsp_mpi_ctx_bcast(gsp_mpi_ctx_t *c, void *buf, int count, MPI_Datatype dt, int root) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d, db = bytes_type();
    dt_info(dt, &d);
    int64_t bytes = (int64_t)count * d.size;
    c->mpi_err = 0;
    c->communicated = false;
    if (!d.plain && bytes > INT_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)bytes);
    if ((err = prepare(c, GSP_COLL_BROADCAST, root, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    if (bytes == 0) return GSP_OK;
    if (d.plain) return run_algo(c, a, pg, buf, buf, bytes, &db, MPI_OP_NULL);
    /* Holes: the root's buffer travels packed and is unpacked everywhere else. */
    if ((err = reserve((void **)&c->work, &c->work_cap, (size_t)bytes + 1))) return err;
    if (c->rank == root && (err = pack(c, buf, count, dt, c->work, bytes))) return err;
    if ((err = run_algo(c, a, pg, c->work, c->work, bytes, &db, MPI_OP_NULL))) return err;
    return c->rank == root ? GSP_OK : unpack(c, c->work, bytes, buf, count, dt);
}

gsp_err_t gsp_mpi_ctx_reduce(gsp_mpi_ctx_t *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d;
    int64_t per;
    c->mpi_err = 0;
    c->communicated = false;
    if ((err = reduction_type(c, dt, op, &d, &per))) return err;
    int64_t n = (int64_t)count * per, bytes = n * d.size;
    if ((err = prepare(c, GSP_COLL_REDUCE, root, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    if (n == 0) return GSP_OK;
    size_t vb = (size_t)bytes;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    char *w;
    /* A leaf of a reduction tree only sends its input: straight from the caller's buffer, which
     * nothing writes (no receives, one phase). */
    if (c->rank != root && a->nphases == 1 && pg[0].nrecv == 0) return run_algo(c, a, pg, (void *)(uintptr_t)in, in, n, &d, op);
    if (c->rank == root) w = recvbuf;
    else {
        if ((err = reserve((void **)&c->work, &c->work_cap, vb + 1))) return err;
        w = c->work;
    }
    return run_algo(c, a, pg, w, in, n, &d, op);
}

const gsp_rt_algo_t *gsp_mpi_ctx_choice(gsp_mpi_ctx_t *c, gsp_collective_t coll, int root, int64_t bytes) {
    entry_t *e = entry_for(c, coll, root);
    if (!e || !e->ready) return NULL;
    int i = c->force[coll] ? gsp_rt_find(&e->algos, c->force[coll]) : (int)e->choice[size_class(bytes)];
    return i >= 0 ? &e->algos.v[i] : NULL;
}


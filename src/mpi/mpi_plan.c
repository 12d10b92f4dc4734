/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_plan.c — one rank's share of a schedule, and its execution over MPI: per round, one
 * message per peer carrying all its packets (MPI_Pack'ed, so any datatype works), nonblocking
 * sends and receives, then the deliveries. Runs on a duplicate of the caller's communicator. */
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"
#include "mpi_int.h"

static gsp_err_t push_msg(gsp__msgs_t *m, int peer, int64_t item) {
    /* Messages of a round are grouped by peer; items append to the last message of that peer. */
    int64_t k = m->nmsg - 1;
    while (k >= m->round_first && m->msg[k].peer != peer) k--;
    if (k < m->round_first) {
        if (m->nmsg == m->capmsg) {
            m->capmsg = m->capmsg ? 2 * m->capmsg : 64;
            void *q = gsp_realloc(m->msg, (size_t)m->capmsg * sizeof *m->msg);
            if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
            m->msg = q;
        }
        k = m->nmsg++;
        m->msg[k] = (gsp__msg_t){peer, 0, 0, NULL};
    }
    gsp__msg_t *g = &m->msg[k];
    if (g->count == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 8;
        void *q = gsp_realloc(g->items, (size_t)g->cap * sizeof *g->items);
        if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        g->items = q;
    }
    g->items[g->count++] = item;
    return GSP_OK;
}

static gsp_err_t open_round(gsp__msgs_t *m) {
    gsp_err_t err = gsp_vec_push(&m->off, m->nmsg);
    m->round_first = m->nmsg;
    return err;
}

static void free_msgs(gsp__msgs_t *m) {
    for (int64_t k = 0; k < m->nmsg; k++) gsp_free(m->msg[k].items);
    gsp_free(m->msg);
    gsp_vec_destroy(&m->off);
}

void gsp_mpi_plan_free(gsp_mpi_plan_t *p) {
    if (!p) return;
    free_msgs(&p->send);
    free_msgs(&p->recv);
    gsp_free(p->comb);
    gsp_free(p->terms);
    gsp_vec_destroy(&p->comb_off);
    if (p->comm != MPI_COMM_NULL) MPI_Comm_free(&p->comm);
    gsp_free(p);
}

gsp_collective_t gsp_mpi_plan_collective(const gsp_mpi_plan_t *p) { return p->coll; }

void gsp_mpi_plan_stats(const gsp_mpi_plan_t *p, int64_t *messages, int64_t *bytes) {
    *messages = p->stat_msgs;
    *bytes = p->stat_bytes;
}

gsp_err_t gsp_mpi_plan_create(const gsp_sched_t *s, const gsp_topo_t *t, MPI_Comm comm, gsp_mpi_plan_t **out) {
    gsp_err_t err = GSP_OK;
    int size, rank;
    *out = NULL;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (s->nodes != size)
        return gsp_error(GSP_ERR_INVAL, "the schedule is for %lld nodes but the communicator has %d ranks", (long long)s->nodes, size);
    if (t->n != s->nodes) return gsp_error(GSP_ERR_INVAL, "the topology has %lld nodes, the schedule %lld", (long long)t->n, (long long)s->nodes);
    gsp_mpi_plan_t *p = gsp_calloc(1, sizeof *p);
    if (!p) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    p->comm = MPI_COMM_NULL;
    p->coll = s->coll;
    p->root = s->root;
    p->rank = rank;
    p->size = size;
    p->nrounds = s->nrounds;
    int64_t me = rank;
    if (s->symmetric) {
        /* Entry (t, i, g): origin h's packet goes from g h to s_i g h. As sender (u = me):
         * h = g^-1 me, to arc i of me. As receiver: the sender is u = s_i^-1 me. */
        int d = t->ngens;
        int64_t k = 0;
        for (int64_t r = 0; r < s->nrounds; r++) {
            if ((err = open_round(&p->send)) || (err = open_round(&p->recv))) goto fail;
            for (; k < s->nsym && s->sym[k].t == r; k++) {
                const gsp_symsend_t *e = &s->sym[k];
                int64_t ginv = gsp_group_inv(t->group, e->g);
                int inv = gsp_topo_gen_inverse(t, (int)e->i);
                int64_t to = t->adj[me * d + e->i], from = t->adj[me * d + inv];
                if ((err = push_msg(&p->send, (int)to, gsp_group_mul(t->group, ginv, me))) ||
                    (err = push_msg(&p->recv, (int)from, gsp_group_mul(t->group, ginv, from))))
                    goto fail;
            }
        }
    } else {
        int64_t nreg = 1;
        for (int64_t r = 0; r < s->nrounds; r++) {
            if ((err = open_round(&p->send)) || (err = open_round(&p->recv))) goto fail;
            if (s->coll == GSP_COLL_ALLREDUCE) {
                /* My combines of this round, in order; each appends a register. */
                if ((err = gsp_vec_push(&p->comb_off, p->ncomb))) goto fail;
                for (int64_t c = s->comb_off.v[r]; c < s->comb_off.v[r + 1]; c++)
                    if (s->combines[c].v == me && (err = gsp__plan_add_combine(p, s, c, &nreg))) goto fail;
            }
            for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
                const gsp_send_t *x = &s->sends[k];
                if (x->u == me && (err = push_msg(&p->send, (int)x->v, x->x))) goto fail;
                /* Received registers are numbered in the order of the list. */
                if (x->v == me && (err = push_msg(&p->recv, (int)x->u, s->coll == GSP_COLL_ALLREDUCE ? nreg++ : x->x)))
                    goto fail;
            }
        }
        if (s->coll == GSP_COLL_ALLREDUCE) {
            if ((err = gsp_vec_push(&p->comb_off, p->ncomb))) goto fail;
            int64_t b = s->nrounds ? s->comb_off.v[s->nrounds] : 0;
            for (int64_t c = b; c < s->ncombines; c++)
                if (s->combines[c].v == me && (err = gsp__plan_add_combine(p, s, c, &nreg))) goto fail;
            if ((err = gsp_vec_push(&p->comb_off, p->ncomb))) goto fail;
            p->nregs = nreg;
            p->result = s->result ? s->result[me] : 0;
        }
    }
    if ((err = open_round(&p->send)) || (err = open_round(&p->recv))) goto fail;
    if (MPI_Comm_dup(comm, &p->comm) != MPI_SUCCESS) {
        err = gsp_error(GSP_ERR_INTERNAL, "MPI_Comm_dup failed");
        goto fail;
    }
    *out = p;
    return GSP_OK;
fail:
    gsp_mpi_plan_free(p);
    return err;
}

gsp_err_t gsp__plan_add_combine(gsp_mpi_plan_t *p, const gsp_sched_t *s, int64_t c, int64_t *nreg) {
    const gsp_combine_t *cb = &s->combines[c];
    if (p->ncomb == p->capcomb) {
        p->capcomb = p->capcomb ? 2 * p->capcomb : 16;
        void *q = gsp_realloc(p->comb, (size_t)p->capcomb * sizeof *p->comb);
        if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        p->comb = q;
    }
    if (p->nterms + cb->count > p->capterms) {
        while (p->nterms + cb->count > p->capterms) p->capterms = p->capterms ? 2 * p->capterms : 64;
        void *q = gsp_realloc(p->terms, (size_t)p->capterms * sizeof *p->terms);
        if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        p->terms = q;
    }
    memcpy(p->terms + p->nterms, s->terms + cb->first, (size_t)cb->count * sizeof *p->terms);
    p->comb[p->ncomb++] = (gsp_combine_t){*nreg, p->nterms, cb->count}; /* v holds the new register's index */
    p->nterms += cb->count;
    (*nreg)++;
    return GSP_OK;
}

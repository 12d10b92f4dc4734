/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_plan.c — one rank's share of a schedule (gsp_mpi_plan_t), as programs of the runtime
 * (gsp_rt_prog_t) that its one engine runs (mpi_engine.c): an allgather's or a broadcast's
 * transfers become one store program whose blocks are origins; a register allreduce (spectral,
 * product, ... methods: real coefficients) becomes one store program per round whose blocks
 * are registers, with that round's combines run before it (mpi_exec.c). A symmetric schedule is
 * translated for this rank alone; an explicit one is scanned for this rank's transfers. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"
#include "mpi_int.h"
#include "mpi_rt_int.h"

void gsp_mpi_plan_free(gsp_mpi_plan_t *p) {
    if (!p) return;
    for (int64_t k = 0; k < p->nprog; k++) gsp_rt_prog_destroy(&p->prog[k]);
    gsp_free(p->prog);
    gsp_free(p->comb);
    gsp_free(p->terms);
    gsp_vec_destroy(&p->comb_off);
    gsp_mpi_ctx_free(p->ctx);
    gsp_free(p);
}

gsp_collective_t gsp_mpi_plan_collective(const gsp_mpi_plan_t *p) { return p->coll; }

void gsp_mpi_plan_stats(const gsp_mpi_plan_t *p, int64_t *messages, int64_t *bytes) {
    *messages = p->stat_msgs;
    *bytes = p->stat_bytes;
}

/* Appends combine c of s (one of mine) to the plan; it creates register *nreg. */
static gsp_err_t add_combine(gsp_mpi_plan_t *p, const gsp_sched_t *s, int64_t c, int64_t *nreg) {
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

/* A schedule seen as one phase of the runtime: gsp_rt_program (the runtime's public way to a
 * rank's program) calls the phase's rule, which finds the rank's transfers in the schedule.
 * The phase is the first member's first phase, so the rule gets back to the schedule from it. */
typedef struct {
    gsp_rt_algo_t a;
    const gsp_sched_t *s;
    int64_t round;    /* registers: the round of this program (-1: every round, dissemination) */
    int64_t reg0;     /* registers: the first register the round's receives fill */
} view_t;

static gsp_err_t view_rule(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t me, gsp_rt_xfers_t *x) {
    const view_t *v = (const view_t *)(const void *)((const char *)ph - offsetof(view_t, a.phase));
    const gsp_sched_t *s = v->s;
    gsp_err_t err = GSP_OK;
    if (s->symmetric) {
        /* Entry (t, i, g): origin h's packet goes from g h to s_i g h. As sender (u = me):
         * h = g^-1 me, to arc i of me. As receiver: the sender is u = s_i^-1 me. */
        int d = t->ngens;
        for (int64_t k = 0; k < s->nsym && !err; k++) {
            const gsp_symsend_t *e = &s->sym[k];
            int64_t ginv = gsp_group_inv(t->group, e->g);
            int inv = gsp_topo_gen_inverse(t, (int)e->i);
            int64_t to = t->adj[me * d + e->i], from = t->adj[me * d + inv];
            if (!(err = gsp_rt_xfers_add(x, false, e->t, to, gsp_group_mul(t->group, ginv, me))))
                err = gsp_rt_xfers_add(x, true, e->t, from, gsp_group_mul(t->group, ginv, from));
        }
        return err;
    }
    int64_t r0 = v->round < 0 ? 0 : v->round, r1 = v->round < 0 ? s->nrounds : v->round + 1, reg = v->reg0;
    for (int64_t r = r0; r < r1 && !err; r++)
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1] && !err; k++) {
            const gsp_send_t *e = &s->sends[k];
            /* Registers: one program a round (its round 0); received registers numbered in the
             * order of the schedule's list, after those made before. */
            int64_t round = v->round < 0 ? r : 0;
            if (e->u == me) err = gsp_rt_xfers_add(x, false, round, e->v, e->x);
            if (!err && e->v == me) err = gsp_rt_xfers_add(x, true, round, e->u, v->round < 0 ? e->x : reg++);
        }
    return err;
}

/* Rank me's program of the schedule: every round (round -1), or one round of a register
 * allreduce whose receives fill registers from reg0 on, out of nregs. */
static gsp_err_t program(const gsp_sched_t *s, const gsp_topo_t *t, int64_t me, int64_t round, int64_t reg0, int64_t nregs,
                         gsp_rt_prog_t *out) {
    view_t v;
    memset(&v, 0, sizeof v);
    v.s = s;
    v.round = round;
    v.reg0 = reg0;
    snprintf(v.a.name, sizeof v.a.name, "%s", "schedule");
    v.a.coll = s->coll;
    v.a.root = s->coll == GSP_COLL_BROADCAST ? s->root : -1;
    v.a.nphases = 1;
    gsp_rt_phase_t *ph = &v.a.phase[0];
    ph->kind = GSP_RT_STORE;
    ph->layout = s->coll == GSP_COLL_BROADCAST ? GSP_RT_WHOLE : GSP_RT_RANK;
    ph->source = GSP_RT_SRC_RULE;
    ph->rule = view_rule;
    ph->nrounds = round < 0 ? s->nrounds : 1;
    ph->nblocks = nregs; /* registers: the blocks are registers (0: one per node) */
    return gsp_rt_program(&v.a, 0, t, me, out);
}

/* Dissemination: one program over every round, blocks = origins. */
static gsp_err_t dissemination(gsp_mpi_plan_t *p, const gsp_sched_t *s, const gsp_topo_t *t) {
    gsp_err_t err;
    if (!(p->prog = gsp_calloc(1, sizeof *p->prog))) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    if (!(err = program(s, t, p->rank, -1, 0, 0, p->prog))) p->nprog = 1;
    return err;
}

/* Register allreduce: per round my combines (each a new register), then a program whose
 * receives fill new registers, numbered in the order of the schedule's list. */
static gsp_err_t registers(gsp_mpi_plan_t *p, const gsp_sched_t *s, const gsp_topo_t *t) {
    gsp_err_t err = GSP_OK;
    int64_t me = p->rank, nreg = 1, *reg0 = NULL; /* register 0: my input */
    if (!(reg0 = gsp_calloc((size_t)s->nrounds + 1, sizeof *reg0)) || !(p->prog = gsp_calloc((size_t)s->nrounds + 1, sizeof *p->prog)))
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
    for (int64_t r = 0; r < s->nrounds && !err; r++) {
        if ((err = gsp_vec_push(&p->comb_off, p->ncomb))) break;
        for (int64_t c = s->comb_off.v[r]; c < s->comb_off.v[r + 1] && !err; c++)
            if (s->combines[c].v == me) err = add_combine(p, s, c, &nreg);
        reg0[r] = nreg;
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) nreg += s->sends[k].v == me;
    }
    if (!err) err = gsp_vec_push(&p->comb_off, p->ncomb);
    int64_t b = s->nrounds ? s->comb_off.v[s->nrounds] : 0;
    for (int64_t c = b; c < s->ncombines && !err; c++)
        if (s->combines[c].v == me) err = add_combine(p, s, c, &nreg);
    if (!err) err = gsp_vec_push(&p->comb_off, p->ncomb);
    p->nregs = nreg;
    p->result = s->result ? s->result[me] : 0;
    for (int64_t r = 0; r < s->nrounds && !err; r++)
        if (!(err = program(s, t, me, r, reg0[r], nreg, &p->prog[r]))) p->nprog = r + 1;
    gsp_free(reg0);
    return err;
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
    if (s->coll != GSP_COLL_ALLGATHER && s->coll != GSP_COLL_BROADCAST && !(s->coll == GSP_COLL_ALLREDUCE && !s->blocks))
        return gsp_error(GSP_ERR_UNSUPPORTED, "a plan runs allgather, broadcast and register allreduce schedules, not %s%s",
                         gsp_collective_name(s->coll), s->blocks ? " in block form (the runtime runs those: gsp_mpi_ctx_*)" : "");
    gsp_mpi_plan_t *p = gsp_calloc(1, sizeof *p);
    if (!p) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    p->coll = s->coll;
    p->root = s->root;
    p->rank = rank;
    p->size = size;
    p->nrounds = s->nrounds;
    if ((err = s->coll == GSP_COLL_ALLREDUCE ? registers(p, s, t) : dissemination(p, s, t))) goto fail;
    for (int64_t k = 0; k < p->nprog; k++) {
        p->sent_msgs += p->prog[k].nsend;
        for (int64_t q = 0; q < p->prog[k].nsend; q++) p->sent_blocks += p->prog[k].send[q].n;
    }
    if ((err = gsp__mpi_ctx_bare(comm, &p->ctx))) goto fail;
    *out = p;
    return GSP_OK;
fail:
    gsp_mpi_plan_free(p);
    return err;
}

gsp_err_t gsp_mpi_plan_spec(const char *spec, gsp_collective_t c, const char *method, int64_t root, MPI_Comm comm,
                            gsp_mpi_plan_t **plan) {
    gsp_err_t err;
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_vt_t vt;
    gsp_plan_t pl;
    *plan = NULL;
    if ((err = gsp_topo_from_spec(&t, spec))) return err;
    memset(&d, 0, sizeof d);
    memset(&pl, 0, sizeof pl);
    if ((err = gsp_vertex_transitive(&t, &vt)) || (err = gsp_distances(&t, gsp_vt_yes(vt), &d, NULL, NULL))) goto done;
    if (!d.connected) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not connected", spec);
        goto done;
    }
    gsp_plan_in_t in = {&t, &d, gsp_model_default(), root, 1, NULL, NULL, 0, 0};
    if ((err = gsp_plan(&in, c, method ? method : "auto", &pl))) goto done;
    err = gsp_mpi_plan_create(&pl.sched, &t, comm, plan);
done:
    gsp_plan_destroy(&pl);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    return err;
}

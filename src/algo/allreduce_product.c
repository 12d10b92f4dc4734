/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_product.c — global sum on a Cartesian product A x B by summing over A's copies and
 * then over B's (Theorem 3 of the global-sum paper).
 *
 * Applies to product(A, B) specs of undirected graphs. The best exact schedule of each factor
 * (auto over the other allreduce methods, recursively for nested products) is lifted: phase 1
 * runs A's schedule on every copy {(a, b) : a in A} at once, leaving the partial sum over a at
 * (a, b); phase 2 runs B's schedule on every copy {(a, b) : b in B}, with B's input register
 * replaced by phase 1's result and its other registers shifted past phase 1's. Registers are
 * appended in the same order in every copy, so the shift depends on a only.
 * Rounds: rounds(A) + rounds(B) = D(A) + D(B) = D when both factors are sum-optimal.
 * Example: product(cycle:5,complete:2) — C5 by spectral in 2, K2 in 1: 3 rounds = D, although the
 * graph is not distance-regular (spectral alone needs 5). */
#include <string.h>

#include "algo_int.h"

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (!in->topo->fa || !in->topo->fb) {
        snprintf(why, n, "not a product(A,B) spec");
        return false;
    }
    return true;
}

/* The best exact plan of a factor. */
static gsp_err_t factor_plan(const gsp_plan_in_t *in, const gsp_topo_t *f, gsp_plan_t *plan) {
    gsp_distances_t d;
    gsp_vt_t vt;
    gsp_err_t err;
    if ((err = gsp_vertex_transitive(f, &vt)) || (err = gsp_distances(f, gsp_vt_yes(vt), &d, NULL, NULL))) return err;
    gsp_plan_in_t fin = *in;
    fin.topo = f;
    fin.dist = &d;
    fin.root = -1;
    err = gsp_plan(&fin, GSP_COLL_ALLREDUCE, "auto", plan);
    gsp_distances_destroy(&d);
    return err;
}

static int64_t rounds(const gsp_plan_in_t *in) {
    gsp_plan_t a, b;
    if (factor_plan(in, in->topo->fa, &a)) return -1;
    if (factor_plan(in, in->topo->fb, &b)) {
        gsp_plan_destroy(&a);
        return -1;
    }
    int64_t r = a.sched.nrounds + b.sched.nrounds;
    gsp_plan_destroy(&a);
    gsp_plan_destroy(&b);
    return r;
}

/* Registers at each node of an allreduce schedule after all its rounds and final combines. */
static void count_regs(const gsp_sched_t *s, int64_t *regs) {
    for (int64_t v = 0; v < s->nodes; v++) regs[v] = 1;
    for (int64_t k = 0; k < s->ncombines; k++) regs[s->combines[k].v]++;
    for (int64_t k = 0; k < s->nsends; k++) regs[s->sends[k].v]++;
}

static gsp_err_t lift_combines(gsp_sched_t *out, const gsp_sched_t *s, int64_t b, int64_t e, int64_t ncopies,
                               bool second, int64_t nb, const int64_t *resA, const int64_t *regsA, gsp_term_t *buf) {
    gsp_err_t err;
    for (int64_t k = b; k < e; k++) {
        const gsp_combine_t *c = &s->combines[k];
        for (int64_t copy = 0; copy < ncopies; copy++) {
            for (int64_t q = 0; q < c->count; q++) {
                gsp_term_t tm = s->terms[c->first + q];
                if (second) tm.r = tm.r == 0 ? resA[copy] : regsA[copy] + tm.r - 1;
                buf[q] = tm;
            }
            int64_t v = second ? copy * nb + c->v : c->v * nb + copy;
            if ((err = gsp_sched_combine(out, v, buf, c->count))) return err;
        }
    }
    return GSP_OK;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    gsp_plan_t pa, pb;
    int64_t na = t->fa->n, nb = t->fb->n, *regsA = NULL, *result = NULL;
    gsp_term_t *buf = NULL;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    if ((err = factor_plan(in, t->fa, &pa)) || (err = factor_plan(in, t->fb, &pb))) goto done;
    const gsp_sched_t *A = &pa.sched, *B = &pb.sched;
    int64_t maxterms = 1;
    for (int64_t k = 0; k < A->ncombines; k++) maxterms = A->combines[k].count > maxterms ? A->combines[k].count : maxterms;
    for (int64_t k = 0; k < B->ncombines; k++) maxterms = B->combines[k].count > maxterms ? B->combines[k].count : maxterms;
    if ((err = gsp_alloc_array((void **)&regsA, na, sizeof *regsA, false)) ||
        (err = gsp_alloc_array((void **)&result, t->n, sizeof *result, false)) ||
        (err = gsp_alloc_array((void **)&buf, maxterms, sizeof *buf, false)))
        goto done;
    count_regs(A, regsA);
    char name[64];
    snprintf(name, sizeof name, "product(%s,%s)", pa.method->name, pb.method->name);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLREDUCE, t->spec, t->n, &in->model, -1, name))) goto done;
    /* Phase 1: A on every copy (a, b), b fixed. */
    for (int64_t r = 0; r < A->nrounds; r++) {
        if ((err = gsp_sched_round(out))) goto done;
        if ((err = lift_combines(out, A, A->comb_off.v[r], A->comb_off.v[r + 1], nb, false, nb, NULL, NULL, buf))) goto done;
        for (int64_t k = A->send_off.v[r]; k < A->send_off.v[r + 1]; k++)
            for (int64_t b = 0; b < nb; b++)
                if ((err = gsp_sched_send(out, A->sends[k].u * nb + b, A->sends[k].v * nb + b, A->sends[k].x))) goto done;
    }
    int64_t afinal = A->nrounds ? A->comb_off.v[A->nrounds] : 0;
    /* Phase 2: B on every copy (a, b), a fixed; A's final combines open its first round. */
    for (int64_t r = 0; r < B->nrounds; r++) {
        if ((err = gsp_sched_round(out))) goto done;
        if (r == 0 && (err = lift_combines(out, A, afinal, A->ncombines, nb, false, nb, NULL, NULL, buf))) goto done;
        if ((err = lift_combines(out, B, B->comb_off.v[r], B->comb_off.v[r + 1], na, true, nb, A->result, regsA, buf)))
            goto done;
        for (int64_t k = B->send_off.v[r]; k < B->send_off.v[r + 1]; k++)
            for (int64_t a = 0; a < na; a++) {
                int64_t x = B->sends[k].x, reg = x == 0 ? A->result[a] : regsA[a] + x - 1;
                if ((err = gsp_sched_send(out, a * nb + B->sends[k].u, a * nb + B->sends[k].v, reg))) goto done;
            }
    }
    if ((err = gsp_sched_final(out))) goto done;
    if (B->nrounds == 0 && (err = lift_combines(out, A, afinal, A->ncombines, nb, false, nb, NULL, NULL, buf))) goto done;
    int64_t bfinal = B->nrounds ? B->comb_off.v[B->nrounds] : 0;
    if ((err = lift_combines(out, B, bfinal, B->ncombines, na, true, nb, A->result, regsA, buf))) goto done;
    for (int64_t a = 0; a < na; a++)
        for (int64_t b = 0; b < nb; b++) {
            int64_t x = B->result[b];
            result[a * nb + b] = x == 0 ? A->result[a] : regsA[a] + x - 1;
        }
    if ((err = gsp_sched_set_result(out, result))) goto done;
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_plan_destroy(&pa);
    gsp_plan_destroy(&pb);
    gsp_free(regsA);
    gsp_free(result);
    gsp_free(buf);
    return err;
}

const gsp_method_t gsp__method_allreduce_product = {
    "product", GSP_COLL_ALLREDUCE, "product(A,B) of undirected graphs: best of A, then best of B",
    "global-sum paper, Theorem 3", applies, rounds, build, false, NULL, false, NULL, .needs = {.undirected = true, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true}};

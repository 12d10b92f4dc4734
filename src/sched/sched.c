/* sched.c — building schedules in memory: rounds of transfers, allreduce combines, the
 * compact symmetric form and its expansion by translation (Lemma 10 of the packet-gossip
 * paper: what the origin e does, every origin h does translated by h). */
#include <stdlib.h>
#include <string.h>

#include "gossip/sched.h"

gsp_err_t gsp_sched_init(gsp_sched_t *s, gsp_collective_t coll, const char *topology,
                         int64_t nodes, const gsp_model_t *model, int64_t root,
                         const char *method) {
    memset(s, 0, sizeof *s);
    s->coll = coll;
    s->nodes = nodes;
    s->model = *model;
    s->root = coll == GSP_COLL_BROADCAST ? root : -1;
    s->topology = gsp_strdup(topology ? topology : "");
    s->method = gsp_strdup(method ? method : "");
    gsp_err_t err = GSP_OK;
    if (!s->topology || !s->method) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
    else if ((err = gsp_vec_push(&s->send_off, 0)) || (err = gsp_vec_push(&s->comb_off, 0))) {
    }
    if (err) gsp_sched_destroy(s);
    return err;
}

void gsp_sched_destroy(gsp_sched_t *s) {
    if (!s) return;
    gsp_free(s->topology);
    gsp_free(s->method);
    gsp_vec_destroy(&s->send_off);
    gsp_vec_destroy(&s->comb_off);
    gsp_free(s->sends);
    gsp_free(s->combines);
    gsp_free(s->terms);
    gsp_free(s->result);
    gsp_free(s->sym);
    memset(s, 0, sizeof *s);
}

/* Grows an array of elements of size sz to hold need elements. */
static gsp_err_t grow(void **p, int64_t *cap, int64_t need, size_t sz) {
    if (need <= *cap) return GSP_OK;
    int64_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    int64_t bytes;
    if (!gsp_mul_ok(nc, (int64_t)sz, &bytes)) return gsp_error(GSP_ERR_OVERFLOW, "schedule too large");
    void *q = gsp_realloc(*p, (size_t)bytes);
    if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory growing a schedule");
    *p = q;
    *cap = nc;
    return GSP_OK;
}

gsp_err_t gsp_sched_round(gsp_sched_t *s) {
    gsp_err_t err;
    /* Close the open round (if any) and open a new one. */
    if (s->nrounds > 0) {
        if ((err = gsp_vec_push(&s->send_off, s->nsends)) ||
            (err = gsp_vec_push(&s->comb_off, s->ncombines)))
            return err;
    }
    s->nrounds++;
    return GSP_OK;
}

gsp_err_t gsp_sched_send(gsp_sched_t *s, int64_t u, int64_t v, int64_t x) {
    gsp_err_t err = grow((void **)&s->sends, &s->cap_sends, s->nsends + 1, sizeof *s->sends);
    if (err) return err;
    s->sends[s->nsends++] = (gsp_send_t){u, v, x};
    return GSP_OK;
}

gsp_err_t gsp_sched_combine(gsp_sched_t *s, int64_t v, const gsp_term_t *terms, int64_t n) {
    gsp_err_t err;
    if ((err = grow((void **)&s->combines, &s->cap_combines, s->ncombines + 1, sizeof *s->combines)) ||
        (err = grow((void **)&s->terms, &s->cap_terms, s->nterms + n, sizeof *s->terms)))
        return err;
    s->combines[s->ncombines++] = (gsp_combine_t){v, s->nterms, n};
    memcpy(s->terms + s->nterms, terms, (size_t)n * sizeof *terms);
    s->nterms += n;
    return GSP_OK;
}

/* The final combines start after the offsets of all rounds are closed. */
static bool closed(const gsp_sched_t *s) { return s->send_off.len == s->nrounds + 1; }

gsp_err_t gsp_sched_final(gsp_sched_t *s) {
    gsp_err_t err;
    if (closed(s)) return GSP_OK;
    if (s->nrounds > 0) {
        if ((err = gsp_vec_push(&s->send_off, s->nsends)) ||
            (err = gsp_vec_push(&s->comb_off, s->ncombines)))
            return err;
    }
    return GSP_OK;
}

gsp_err_t gsp_sched_set_result(gsp_sched_t *s, const int64_t *result) {
    gsp_free(s->result);
    gsp_err_t err = gsp_alloc_array((void **)&s->result, s->nodes, sizeof *s->result, false);
    if (err) return err;
    memcpy(s->result, result, (size_t)s->nodes * sizeof *result);
    return GSP_OK;
}

gsp_err_t gsp_sched_sym(gsp_sched_t *s, int64_t t, int64_t i, int64_t g) {
    gsp_err_t err = grow((void **)&s->sym, &s->cap_sym, s->nsym + 1, sizeof *s->sym);
    if (err) return err;
    s->symmetric = true;
    s->sym[s->nsym++] = (gsp_symsend_t){t, i, g};
    if (t + 1 > s->nrounds) s->nrounds = t + 1;
    return GSP_OK;
}

static int cmp_send(const void *p, const void *q) {
    const gsp_send_t *a = p, *b = q;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return (a->x > b->x) - (a->x < b->x);
}

static int cmp_sym(const void *p, const void *q) {
    const gsp_symsend_t *a = p, *b = q;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    return (a->g > b->g) - (a->g < b->g);
}

gsp_err_t gsp_sched_finish(gsp_sched_t *s) {
    gsp_err_t err;
    if (s->symmetric) {
        qsort(s->sym, (size_t)s->nsym, sizeof *s->sym, cmp_sym);
        return GSP_OK;
    }
    if ((err = gsp_sched_final(s))) return err;
    if (s->coll != GSP_COLL_ALLREDUCE)
        for (int64_t t = 0; t < s->nrounds; t++) {
            int64_t b = s->send_off.v[t], e = s->send_off.v[t + 1];
            qsort(s->sends + b, (size_t)(e - b), sizeof *s->sends, cmp_send);
        }
    return GSP_OK;
}

int64_t gsp_sched_transfers(const gsp_sched_t *s) {
    return s->symmetric ? s->nsym * s->nodes : s->nsends;
}

gsp_err_t gsp_sched_expand(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
    gsp_err_t err;
    if (!s->symmetric) return gsp_error(GSP_ERR_INVAL, "schedule is not symmetric");
    if (!t->group) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: not a Cayley graph", t->spec);
    if ((err = gsp_sched_init(out, s->coll, s->topology, s->nodes, &s->model, s->root, s->method)))
        return err;
    int64_t k = 0, d = t->ngens;
    for (int64_t r = 0; r < s->nrounds; r++) {
        if ((err = gsp_sched_round(out))) goto fail;
        for (; k < s->nsym && s->sym[k].t == r; k++) {
            const gsp_symsend_t *e = &s->sym[k];
            for (int64_t h = 0; h < t->n; h++) {
                int64_t u = gsp_group_mul(t->group, e->g, h);
                if ((err = gsp_sched_send(out, u, t->adj[u * d + e->i], h))) goto fail;
            }
        }
    }
    if ((err = gsp_sched_finish(out))) goto fail;
    return GSP_OK;
fail:
    gsp_sched_destroy(out);
    return err;
}

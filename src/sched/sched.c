/* SPDX-License-Identifier: GPL-3.0-or-later */
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
    s->model = gsp_model_resolve(*model);
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
    if (s->graph_owned) {
        gsp_topo_destroy(s->graph);
        gsp_free(s->graph);
    }
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

/* One stable counting pass of a radix sort: from src to dst by field key (0 u, 1 v, 2 x). */
static void count_pass(const gsp_send_t *src, gsp_send_t *dst, int64_t len, int64_t n, int64_t *cnt, int key) {
    memset(cnt, 0, (size_t)(n + 1) * sizeof *cnt);
    for (int64_t k = 0; k < len; k++) cnt[(key == 0 ? src[k].u : key == 1 ? src[k].v : src[k].x) + 1]++;
    for (int64_t i = 0; i < n; i++) cnt[i + 1] += cnt[i];
    for (int64_t k = 0; k < len; k++) dst[cnt[key == 0 ? src[k].u : key == 1 ? src[k].v : src[k].x]++] = src[k];
}

/* Sorts a round's sends by (u, v, x). A round of an allgather on 10^4 nodes has 4*10^4 of them
 * and there are thousands of rounds: comparison sorting them was a tenth of planning, so a round
 * that is long against the node count goes through three counting passes (x, then v, then u:
 * O(len + n) each) instead. Values outside 0..n-1 (not checked yet: the verifier names them)
 * fall back to qsort. */
static gsp_err_t sort_round(gsp_send_t *a, int64_t len, int64_t n) {
    bool radix = len >= 256 && n <= 4 * len;
    for (int64_t k = 0; radix && k < len; k++)
        radix = a[k].u >= 0 && a[k].u < n && a[k].v >= 0 && a[k].v < n && a[k].x >= 0 && a[k].x < n;
    if (!radix) {
        qsort(a, (size_t)len, sizeof *a, cmp_send);
        return GSP_OK;
    }
    gsp_err_t err;
    gsp_send_t *tmp = NULL;
    int64_t *cnt = NULL;
    if ((err = gsp_alloc_array((void **)&tmp, len, sizeof *tmp, false)) || (err = gsp_alloc_array((void **)&cnt, n + 1, sizeof *cnt, false)))
        goto done;
    count_pass(a, tmp, len, n, cnt, 2);
    count_pass(tmp, a, len, n, cnt, 1);
    count_pass(a, tmp, len, n, cnt, 0);
    memcpy(a, tmp, (size_t)len * sizeof *a);
done:
    gsp_free(tmp);
    gsp_free(cnt);
    return err;
}

gsp_err_t gsp_sched_finish(gsp_sched_t *s) {
    gsp_err_t err;
    if (s->symmetric) {
        qsort(s->sym, (size_t)s->nsym, sizeof *s->sym, cmp_sym);
        return GSP_OK;
    }
    if ((err = gsp_sched_final(s))) return err;
    if (s->coll != GSP_COLL_ALLREDUCE || s->blocks)
        for (int64_t t = 0; t < s->nrounds; t++) {
            int64_t b = s->send_off.v[t], e = s->send_off.v[t + 1];
            if ((err = sort_round(s->sends + b, e - b, s->nodes))) return err;
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
            if (e->i < 0 || e->i >= d || e->g < 0 || e->g >= t->n) {
                err = gsp_error(GSP_ERR_RANGE, "symmetric entry [%lld, %lld, %lld]: %s has generators 0..%lld and nodes 0..%lld",
                                (long long)e->t, (long long)e->i, (long long)e->g, t->spec, (long long)d - 1, (long long)t->n - 1);
                goto fail;
            }
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

/* Appends to out R new rounds holding the first deliveries of the explicit dissemination
 * schedule s (R = s's rounds); reversed, round r becomes the (R-1-r)-th new round with every
 * transfer turned round (v sends block x to u). Costs an n*n bit matrix of held packets. */
static gsp_err_t add_first_deliveries(const gsp_sched_t *s, int64_t n, bool reversed, gsp_sched_t *out) {
    gsp_err_t err;
    int64_t words = (int64_t)GSP_WORDS(n), R = s->nrounds;
    gsp_word_t *held = NULL;
    int64_t *keep_off = NULL;
    gsp_send_t *keep = NULL;
    if ((err = gsp_alloc_array((void **)&held, n * words, sizeof *held, true)) ||
        (err = gsp_alloc_array((void **)&keep_off, R + 1, sizeof *keep_off, false)) ||
        (err = gsp_alloc_array((void **)&keep, s->nsends + 1, sizeof *keep, false)))
        goto done;
    if (s->coll == GSP_COLL_BROADCAST) gsp_bit_set(held + s->root * words, s->root);
    else
        for (int64_t x = 0; x < n; x++) gsp_bit_set(held + x * words, x);
    int64_t nk = 0;
    for (int64_t r = 0; r < R; r++) {
        keep_off[r] = nk;
        /* Packets delivered this round become usable next round, but a second copy in the same
         * round is a duplicate too: mark as we go. */
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            const gsp_send_t *e = &s->sends[k];
            if (gsp_bit_get(held + e->v * words, e->x)) continue;
            gsp_bit_set(held + e->v * words, e->x);
            keep[nk++] = *e;
        }
    }
    keep_off[R] = nk;
    for (int64_t j = 0; j < R; j++) {
        int64_t r = reversed ? R - 1 - j : j;
        if ((err = gsp_sched_round(out))) goto done;
        for (int64_t k = keep_off[r]; k < keep_off[r + 1]; k++) {
            const gsp_send_t *e = &keep[k];
            if ((err = reversed ? gsp_sched_send(out, e->v, e->u, e->x) : gsp_sched_send(out, e->u, e->v, e->x))) goto done;
        }
    }
done:
    gsp_free(held);
    gsp_free(keep_off);
    gsp_free(keep);
    return err;
}

/* Shared by the three transformations: an explicit copy of s (expanded when symmetric). */
static gsp_err_t explicit_of(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *tmp, const gsp_sched_t **e) {
    memset(tmp, 0, sizeof *tmp);
    *e = s;
    if (s->coll != GSP_COLL_ALLGATHER && s->coll != GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_INVAL, "%s: only broadcast and allgather schedules can be reduced to first deliveries or reversed",
                         gsp_collective_name(s->coll));
    if (s->nodes != t->n)
        return gsp_error(GSP_ERR_INVAL, "the schedule has %lld nodes but %s has %lld", (long long)s->nodes, t->spec, (long long)t->n);
    if (t->n > GSP_VERIFY_REDUCE_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes is above the limit of %d for block schedules", t->spec, (long long)t->n,
                         GSP_VERIFY_REDUCE_MAX);
    if (!s->symmetric) return GSP_OK;
    gsp_err_t err = gsp_sched_expand(s, t, tmp);
    if (!err) *e = tmp;
    return err;
}

gsp_err_t gsp_sched_first_deliveries(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
    gsp_err_t err;
    gsp_sched_t tmp;
    const gsp_sched_t *e;
    memset(out, 0, sizeof *out);
    if ((err = explicit_of(s, t, &tmp, &e))) goto done;
    if ((err = gsp_sched_init(out, s->coll, s->topology, s->nodes, &s->model, s->root, s->method)) ||
        (err = add_first_deliveries(e, t->n, false, out)) || (err = gsp_sched_finish(out)))
        gsp_sched_destroy(out);
done:
    gsp_sched_destroy(&tmp);
    return err;
}

gsp_err_t gsp_sched_reverse(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
    gsp_err_t err;
    gsp_sched_t tmp;
    const gsp_sched_t *e;
    memset(out, 0, sizeof *out);
    if (t->directed) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: reversing a schedule needs an undirected graph", t->spec);
    if (s->coll != GSP_COLL_ALLGATHER) return gsp_error(GSP_ERR_INVAL, "only allgather schedules reverse into a reduce-scatter");
    if ((err = explicit_of(s, t, &tmp, &e))) goto done;
    if ((err = gsp_sched_init(out, GSP_COLL_REDUCE_SCATTER, s->topology, s->nodes, &s->model, -1, s->method)) ||
        (err = add_first_deliveries(e, t->n, true, out)) || (err = gsp_sched_finish(out))) {
        gsp_sched_destroy(out);
        goto done;
    }
    out->blocks = true;
    out->reduce_rounds = out->nrounds;
done:
    gsp_sched_destroy(&tmp);
    return err;
}

gsp_err_t gsp_sched_allreduce_blocks(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out) {
    gsp_err_t err;
    gsp_sched_t tmp;
    const gsp_sched_t *e;
    memset(out, 0, sizeof *out);
    if (t->directed) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: reversing a schedule needs an undirected graph", t->spec);
    if (s->coll != GSP_COLL_ALLGATHER) return gsp_error(GSP_ERR_INVAL, "the block allreduce is built from an allgather schedule");
    if ((err = explicit_of(s, t, &tmp, &e))) goto done;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLREDUCE, s->topology, s->nodes, &s->model, -1, s->method)) ||
        (err = add_first_deliveries(e, t->n, true, out)) || (err = add_first_deliveries(e, t->n, false, out)) ||
        (err = gsp_sched_finish(out))) {
        gsp_sched_destroy(out);
        goto done;
    }
    out->blocks = true;
    out->reduce_rounds = e->nrounds;
done:
    gsp_sched_destroy(&tmp);
    return err;
}

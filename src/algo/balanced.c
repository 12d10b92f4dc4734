/* SPDX-License-Identifier: GPL-3.0-or-later */
/* balanced.c — the balanced-sequence engine (see algo_int.h). A round is a set of picks
 * (y, i): y joins S by generator i from its predecessor s_i^-1 y, which must already be in S;
 * each generator carries at most p picks per round, so every arc carries at most p packets
 * once the round is translated to all origins (Lemma 10). */
#include <string.h>

#include "algo_int.h"

gsp_err_t gsp__bal_init(gsp__bal_t *b, const gsp_topo_t *t, int64_t p, gsp_sched_t *out) {
    gsp_err_t err;
    memset(b, 0, sizeof *b);
    b->t = t;
    b->out = out;
    b->n = t->n;
    b->d = t->ngens;
    b->p = p;
    int64_t slots = (int64_t)b->d * p;
    if ((err = gsp_alloc_array((void **)&b->inv, b->d, sizeof *b->inv, false)) ||
        (err = gsp_alloc_array((void **)&b->in, b->n, 1, true)) ||
        (err = gsp_alloc_array((void **)&b->taken, b->n, 1, true)) ||
        (err = gsp_alloc_array((void **)&b->used, b->d, sizeof *b->used, true)) ||
        (err = gsp_alloc_array((void **)&b->picks, slots, sizeof *b->picks, false)) ||
        (err = gsp_alloc_array((void **)&b->owner, slots, sizeof *b->owner, false)))
        goto fail;
    for (int i = 0; i < b->d; i++) {
        b->inv[i] = gsp_topo_gen_inverse(t, i);
        if (b->inv[i] < 0) {
            err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: generators are not closed under inverses", t->spec);
            goto fail;
        }
    }
    b->in[0] = 1;
    b->members = 1;
    return GSP_OK;
fail:
    gsp__bal_destroy(b);
    return err;
}

void gsp__bal_destroy(gsp__bal_t *b) {
    gsp_free(b->inv);
    gsp_free(b->in);
    gsp_free(b->taken);
    gsp_free(b->used);
    gsp_free(b->picks);
    gsp_free(b->owner);
    gsp_free(b->cand_gen);
    gsp_free(b->visit);
    memset(b, 0, sizeof *b);
}

void gsp__bal_pick(gsp__bal_t *b, int64_t y, int i) {
    b->taken[y] = 1;
    b->used[i]++;
    b->picks[b->npicks++] = (gsp__pick_t){y, i};
}

/* Kuhn's augmenting path from candidate c: a free slot of a generator that reaches it, or a
 * slot whose candidate can move to another generator. Slots of generator i are owner[i*p ..]. */
static bool augment(gsp__bal_t *b, const int64_t *cand, int64_t c) {
    int64_t y = cand[c];
    for (int i = 0; i < b->d; i++) {
        if (!b->in[gsp__bal_pred(b, y, i)] || b->visit[i]) continue;
        b->visit[i] = 1;
        int64_t base = (int64_t)i * b->p;
        for (int64_t k = 0; k < b->p; k++)
            if (b->owner[base + k] == -1) {
                b->owner[base + k] = c;
                b->cand_gen[c] = base + k;
                return true;
            }
        for (int64_t k = 0; k < b->p; k++) {
            int64_t other = b->owner[base + k];
            if (other < 0) continue; /* -2: held by an earlier pick of this round */
            if (augment(b, cand, other)) {
                b->owner[base + k] = c;
                b->cand_gen[c] = base + k;
                return true;
            }
        }
    }
    return false;
}

gsp_err_t gsp__bal_match(gsp__bal_t *b, const int64_t *cand, int64_t ncand, int64_t *picked) {
    gsp_err_t err;
    int64_t slots = (int64_t)b->d * b->p, free_slots = 0, matched = 0;
    *picked = 0;
    gsp_free(b->cand_gen);
    gsp_free(b->visit);
    b->cand_gen = NULL;
    b->visit = NULL;
    if ((err = gsp_alloc_array((void **)&b->cand_gen, ncand > 0 ? ncand : 1, sizeof *b->cand_gen, false)) ||
        (err = gsp_alloc_array((void **)&b->visit, b->d, 1, false)))
        return err;
    /* Slots already used by earlier picks of this round stay occupied (owner -2). */
    for (int i = 0; i < b->d; i++)
        for (int64_t k = 0; k < b->p; k++) {
            b->owner[(int64_t)i * b->p + k] = k < b->used[i] ? -2 : -1;
            free_slots += k >= b->used[i];
        }
    for (int64_t c = 0; c < ncand && matched < free_slots; c++) {
        b->cand_gen[c] = -1;
        int64_t y = cand[c];
        if (b->in[y] || b->taken[y]) continue;
        /* Skip duplicates of the same element in the candidate list. */
        b->taken[y] = 2;
        memset(b->visit, 0, (size_t)b->d);
        if (augment(b, cand, c)) matched++;
        else b->taken[y] = 0;
    }
    for (int64_t s = 0; s < slots; s++) {
        int64_t c = b->owner[s];
        if (c < 0) continue;
        b->taken[cand[c]] = 0;
        gsp__bal_pick(b, cand[c], (int)(s / b->p));
        (*picked)++;
    }
    /* Unmatched candidates examined above were reset; matched ones are now taken = 1. */
    return GSP_OK;
}

gsp_err_t gsp__bal_commit(gsp__bal_t *b) {
    gsp_err_t err;
    for (int64_t k = 0; k < b->npicks; k++) {
        const gsp__pick_t *pk = &b->picks[k];
        if ((err = gsp_sched_sym(b->out, b->round, pk->i, gsp__bal_pred(b, pk->y, pk->i)))) return err;
    }
    for (int64_t k = 0; k < b->npicks; k++) {
        b->in[b->picks[k].y] = 1;
        b->taken[b->picks[k].y] = 0;
    }
    b->members += b->npicks;
    b->npicks = 0;
    memset(b->used, 0, (size_t)b->d * sizeof *b->used);
    b->round++;
    return GSP_OK;
}

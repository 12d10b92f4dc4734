/* SPDX-License-Identifier: GPL-3.0-or-later */
/* verify.c — the exact simulator. Dissemination tracks which packets each node holds (a bit
 * per node and origin); allreduce tracks every register as a linear form over the inputs (and
 * numerically with random inputs); a symmetric schedule is checked as a balanced sequence of
 * sets (Def. 9 and Lemma 10 of the packet-gossip paper) in O(N d) without expansion. The first
 * broken rule is reported with its round and transfer; a wrong schedule is not an error. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/sched.h"

const char *gsp_rule_name(gsp_rule_t r) {
    switch (r) {
    case GSP_RULE_NONE: return "none";
    case GSP_RULE_ARC: return "arc";
    case GSP_RULE_HELD: return "held";
    case GSP_RULE_PACKETS: return "packets";
    case GSP_RULE_PORTS: return "ports";
    case GSP_RULE_DUPLEX: return "duplex";
    case GSP_RULE_PAYLOAD: return "payload";
    case GSP_RULE_COMPLETE: return "complete";
    case GSP_RULE_REGISTER: return "register";
    case GSP_RULE_SYMMETRIC: return "symmetric";
    case GSP_RULE_TWICE: return "twice";
    }
    return "?";
}

/* Records the first violation; later ones are ignored. Returns false for `if (!ok) break`. */
static bool violation(gsp_report_t *rep, gsp_rule_t rule, int64_t round, int64_t transfer,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static bool violation(gsp_report_t *rep, gsp_rule_t rule, int64_t round, int64_t transfer,
                      const char *fmt, ...) {
    if (!rep->ok) return false;
    rep->ok = false;
    rep->rule = rule;
    rep->round = round;
    rep->transfer = transfer;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->message, sizeof rep->message, fmt, ap);
    va_end(ap);
    return false;
}

/* Per-round bookkeeping of the model's link rules, shared by dissemination and allreduce. */
typedef struct {
    const gsp_topo_t *t;
    gsp_model_t m;
    int64_t cap_factor; /* > 0: arc a carries at most cap_factor * cap(a) a round (fabrics) */
    int32_t *load;      /* transfers on each arc this round */
    int64_t *touched;   /* arcs with load > 0, to reset */
    int64_t ntouched;
    int64_t *port_out, *port_in; /* one-port: arc used out of / into each node this round */
    int64_t *sent, *recv;
    int64_t peak;
    /* Arc lookup cache: while consecutive transfers leave the same node u (sends are sorted
     * by sender), arcpos[v] is the index of arc (u, v) when stamp[v] == epoch. This turns a
     * scan of u's arcs per transfer into one scan per sender. */
    int64_t cached_u, epoch;
    int64_t *stamp;
    int32_t *arcpos;
} links_t;

static gsp_err_t links_init(links_t *L, const gsp_topo_t *t, const gsp_model_t *m) {
    gsp_err_t err;
    memset(L, 0, sizeof *L);
    L->t = t;
    L->m = gsp_model_resolve(*m);
    if ((err = gsp_alloc_array((void **)&L->load, t->m, sizeof *L->load, true)) ||
        (err = gsp_alloc_array((void **)&L->touched, t->m, sizeof *L->touched, false)) ||
        (err = gsp_alloc_array((void **)&L->sent, t->n, sizeof *L->sent, true)) ||
        (err = gsp_alloc_array((void **)&L->recv, t->n, sizeof *L->recv, true)) ||
        (err = gsp_alloc_array((void **)&L->stamp, t->n, sizeof *L->stamp, true)) ||
        (err = gsp_alloc_array((void **)&L->arcpos, t->n, sizeof *L->arcpos, false)))
        return err;
    L->cached_u = -1;
    if (m->one_port) {
        if ((err = gsp_alloc_array((void **)&L->port_out, t->n, sizeof *L->port_out, false)) ||
            (err = gsp_alloc_array((void **)&L->port_in, t->n, sizeof *L->port_in, false)))
            return err;
        memset(L->port_out, 0xff, (size_t)t->n * sizeof *L->port_out);
        memset(L->port_in, 0xff, (size_t)t->n * sizeof *L->port_in);
    }
    return GSP_OK;
}

static void links_destroy(links_t *L) {
    gsp_free(L->load);
    gsp_free(L->touched);
    gsp_free(L->port_out);
    gsp_free(L->port_in);
    gsp_free(L->sent);
    gsp_free(L->recv);
    gsp_free(L->stamp);
    gsp_free(L->arcpos);
}

static void links_reset(links_t *L) {
    for (int64_t k = 0; k < L->ntouched; k++) {
        int64_t a = L->touched[k];
        L->load[a] = 0;
        if (L->port_out) {
            /* Reset the ports of the arc's endpoints. */
            int64_t u = 0, lo = 0, hi = L->t->n;
            while (lo < hi) { /* arc a belongs to the u with off[u] <= a < off[u+1] */
                int64_t mid = (lo + hi) / 2;
                if (L->t->off[mid + 1] <= a) lo = mid + 1;
                else hi = mid;
            }
            u = lo;
            L->port_out[u] = -1;
            L->port_in[L->t->adj[a]] = -1;
        }
    }
    L->ntouched = 0;
}

/* Checks the link rules for one transfer u -> v; returns false after a violation. */
static inline __attribute__((always_inline)) bool links_use(links_t *L, gsp_report_t *rep, int64_t round, int64_t k, int64_t u, int64_t v) {
    const gsp_topo_t *t = L->t;
    if (u != L->cached_u) {
        L->cached_u = u;
        L->epoch++;
        /* Reverse order so that the first of repeated arcs wins, as in gsp_topo_arc_index. */
        for (int64_t a = t->off[u + 1] - 1; a >= t->off[u]; a--) {
            L->stamp[t->adj[a]] = L->epoch;
            L->arcpos[t->adj[a]] = (int32_t)(a - t->off[u]);
        }
    }
    int64_t idx = L->stamp[v] == L->epoch ? L->arcpos[v] : -1;
    if (idx < 0)
        return violation(rep, GSP_RULE_ARC, round, k, "round %lld, transfer %lld: (%lld, %lld) is not an arc of %s",
                         (long long)round, (long long)k, (long long)u, (long long)v, t->spec);
    int64_t a = t->off[u] + idx;
    if (L->load[a] == 0) L->touched[L->ntouched++] = a;
    L->load[a]++;
    if (L->load[a] > L->peak) L->peak = L->load[a];
    if (L->cap_factor > 0) {
        int64_t most = L->cap_factor * (t->cap ? t->cap[a] : 1);
        if (L->load[a] > most)
            return violation(rep, GSP_RULE_PACKETS, round, k,
                             "round %lld, transfer %lld: arc (%lld, %lld) carries %d packets, its capacity allows %lld",
                             (long long)round, (long long)k, (long long)u, (long long)v, L->load[a], (long long)most);
    } else if (L->m.packets != GSP_PACKETS_INF && L->load[a] > L->m.packets)
        return violation(rep, GSP_RULE_PACKETS, round, k,
                         "round %lld, transfer %lld: arc (%lld, %lld) carries %d transfers, the model allows %lld",
                         (long long)round, (long long)k, (long long)u, (long long)v, L->load[a],
                         (long long)L->m.packets);
    if (L->port_out) {
        if (L->port_out[u] >= 0 && L->port_out[u] != a)
            return violation(rep, GSP_RULE_PORTS, round, k,
                             "round %lld, transfer %lld: node %lld sends on a second arc (one port)",
                             (long long)round, (long long)k, (long long)u);
        if (L->port_in[v] >= 0 && L->port_in[v] != a)
            return violation(rep, GSP_RULE_PORTS, round, k,
                             "round %lld, transfer %lld: node %lld receives on a second arc (one port)",
                             (long long)round, (long long)k, (long long)v);
        L->port_out[u] = a;
        L->port_in[v] = a;
    }
    if (L->m.half_duplex) {
        int64_t r = gsp_topo_arc_index(t, v, u);
        if (r >= 0 && L->load[t->off[v] + r] > 0)
            return violation(rep, GSP_RULE_DUPLEX, round, k,
                             "round %lld, transfer %lld: edge {%lld, %lld} is used in both directions (half duplex)",
                             (long long)round, (long long)k, (long long)u, (long long)v);
    }
    L->sent[u]++;
    L->recv[v]++;
    return true;
}

static void links_report(const links_t *L, gsp_report_t *rep) {
    rep->sent_min = rep->recv_min = INT64_MAX;
    rep->sent_max = rep->recv_max = 0;
    for (int64_t x = 0; x < L->t->n; x++) {
        if (L->sent[x] < rep->sent_min) rep->sent_min = L->sent[x];
        if (L->sent[x] > rep->sent_max) rep->sent_max = L->sent[x];
        if (L->recv[x] < rep->recv_min) rep->recv_min = L->recv[x];
        if (L->recv[x] > rep->recv_max) rep->recv_max = L->recv[x];
    }
    rep->peak_arc_load = L->peak;
}

/* Runs the dissemination rounds r0.. of s on the held bits (a row of `words` words per node;
 * broadcast: one bit per node), checking the link rules and that every sender holds what it
 * sends; then that every node holds everything. Deliveries count from the next round on. */
static void disseminate(const gsp_sched_t *s, const gsp_topo_t *t, int64_t r0, gsp_word_t *held, int64_t words, links_t *L,
                        gsp_report_t *rep) {
    int64_t n = t->n, ch = s->chunks > 1 ? s->chunks : 1;
    bool bcast = s->coll == GSP_COLL_BROADCAST;
    const char *what = s->blocks ? "block" : "packet";
    for (int64_t r = r0; r < s->nrounds && rep->ok; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *tr = &s->sends[k];
            if (!links_use(L, rep, r, k - b, tr->u, tr->v)) break;
            if (bcast && tr->x / ch != s->root) {
                violation(rep, GSP_RULE_PAYLOAD, r, k - b,
                          "round %lld, transfer %lld: broadcast sends packet %lld, not the root's (%lld)",
                          (long long)r, (long long)(k - b), (long long)tr->x, (long long)s->root);
                break;
            }
            int64_t bit = bcast ? tr->x % ch : tr->x;
            if (!gsp_bit_get(held + tr->u * words, bit)) {
                violation(rep, GSP_RULE_HELD, r, k - b, "round %lld, transfer %lld: node %lld sends %s %lld before it holds it%s",
                          (long long)r, (long long)(k - b), (long long)tr->u, what, (long long)tr->x,
                          s->blocks ? " complete" : "");
                break;
            }
        }
        if (!rep->ok) break;
        int64_t dups = 0;
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *tr = &s->sends[k];
            int64_t bit = bcast ? tr->x % ch : tr->x;
            gsp_word_t *w = held + tr->v * words + (bit >> 6), mask = (gsp_word_t)1 << (bit & 63);
            dups += (*w & mask) != 0; /* branch-free: duplicates are rare but unpredictable */
            *w |= mask;
        }
        rep->duplicates += dups;
        links_reset(L);
    }
    if (!rep->ok) return;
    /* Switches (fabrics) forward but need not end with anything, nor does anyone need theirs. */
    int64_t ncomp = 0;
    for (int64_t v = 0; v < n; v++) ncomp += !t->is_switch || !t->is_switch[v];
    for (int64_t v = 0; v < n; v++) {
        if (t->is_switch && t->is_switch[v]) continue;
        const gsp_word_t *row = held + v * words;
        if (bcast) {
            if (gsp_bits_count(row, ch) != ch) {
                violation(rep, GSP_RULE_COMPLETE, -1, -1, "node %lld never gets the root's packet%s", (long long)v, ch > 1 ? "s" : "");
                return;
            }
        } else if (gsp_bits_count(row, n * ch) != ncomp * ch) {
            int64_t x = 0;
            while (gsp_bit_get(row, x) || (t->is_switch && t->is_switch[x / ch])) x++;
            if (ch > 1)
                violation(rep, GSP_RULE_COMPLETE, -1, -1, "node %lld never gets chunk %lld of the %s of %lld", (long long)v, (long long)(x % ch),
                          what, (long long)(x / ch));
            else
                violation(rep, GSP_RULE_COMPLETE, -1, -1, "node %lld never gets the %s of %lld", (long long)v, what, (long long)x);
            return;
        }
    }
}

static gsp_err_t verify_dissemination(const gsp_sched_t *s, const gsp_topo_t *t, gsp_report_t *rep) {
    gsp_err_t err;
    links_t L;
    gsp_word_t *held = NULL;
    int64_t n = t->n;
    bool bcast = s->coll == GSP_COLL_BROADCAST;
    /* Broadcast needs one bit per node; allgather a row of n bits per node. */
    int64_t ch = s->chunks > 1 ? s->chunks : 1;
    int64_t words = (int64_t)GSP_WORDS(bcast ? ch : n * ch);
    if (!bcast && n * ch > GSP_VERIFY_ALLGATHER_MAX * (int64_t)8)
        return gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes of %lld chunks each is above the explicit allgather verifier's limit", t->spec,
                         (long long)n, (long long)ch);
    if (!bcast && n > GSP_VERIFY_ALLGATHER_MAX)
        return gsp_error(GSP_ERR_TOOBIG,
                         "%s: %lld nodes is above the explicit allgather verifier's limit of %d; "
                         "store the schedule in symmetric form",
                         t->spec, (long long)n, GSP_VERIFY_ALLGATHER_MAX);
    if ((err = links_init(&L, t, &s->model))) goto done;
    L.cap_factor = s->cap_factor;
    if ((err = gsp_alloc_array((void **)&held, n * words, sizeof *held, true))) goto done;
    if (bcast)
        for (int64_t c = 0; c < ch; c++) gsp_bit_set(held + s->root * words, c);
    else
        for (int64_t x = 0; x < n; x++)
            if (!t->is_switch || !t->is_switch[x])
                for (int64_t c = 0; c < ch; c++) gsp_bit_set(held + x * words, x * ch + c);
    disseminate(s, t, 0, held, words, &L, rep);
    links_report(&L, rep);
    err = GSP_OK;
done:
    links_destroy(&L);
    gsp_free(held);
    return err;
}

/* Reduce rounds, checked exactly: for each block x, every node's partial sum is tracked as
 * the set of compute nodes whose contribution it holds (S) and the set it holds more than once
 * (T). A transfer u -> v of block x in round r adds S_u (as at the start of round r) to S_v;
 * what was in both goes to T_v. The owner must end with S = every compute node and T empty:
 * every contribution counted exactly once. Partial sums that never reach the owner do not
 * matter. With chunks (fabrics) block x is chunk x % K of the block of x / K.
 * Switches (fabrics) forward but never combine: what a switch receives is kept as a separate
 * message, and each transfer out of it forwards the oldest message of that block it holds
 * (first in, first out; one round's arrivals in the order of the round's transfers), so a
 * switch that sends what it never received, or a schedule that would need a switch to add
 * two partial sums, is caught here or at the owner. Blocks are checked one at a time, so memory
 * is four n-bit rows per node and two per message of one block held at switches. */
typedef struct {
    int64_t n, words;
    gsp_word_t *S, *T, *PS, *PT; /* current and pending (this round) rows */
    int64_t *stamp, *pstamp;     /* row valid for the block / pending for the round */
    int64_t *taint;              /* where a row first got a twice-counted contribution (transfer id) */
    /* Messages held at switches for the current block: slot i has rows MS/MT and taint
     * mtaint[i]; each switch's queue is a list head..tail through mnext, valid when
     * qstamp[w] is the block. */
    gsp_word_t *MS, *MT;
    int64_t *mtaint, *mnext, *qhead, *qtail, *qstamp, *pend;
} contrib_t;

static gsp_word_t *row(gsp_word_t *a, const contrib_t *c, int64_t v) { return a + v * c->words; }

static bool is_switch(const gsp_topo_t *t, int64_t v) { return t->is_switch && t->is_switch[v]; }

/* Makes v's rows current for block x: a partial sum that has seen nothing holds v's own
 * contribution (none at a switch). */
static void touch(contrib_t *c, const gsp_topo_t *t, int64_t v, int64_t x) {
    if (c->stamp[v] == x) return;
    c->stamp[v] = x;
    memset(row(c->S, c, v), 0, (size_t)c->words * sizeof(gsp_word_t));
    memset(row(c->T, c, v), 0, (size_t)c->words * sizeof(gsp_word_t));
    if (!is_switch(t, v)) gsp_bit_set(row(c->S, c, v), v);
    c->taint[v] = -1;
}

static gsp_err_t check_reduce(const gsp_sched_t *s, const gsp_topo_t *t, gsp_report_t *rep, gsp_word_t *done_blocks) {
    gsp_err_t err;
    int64_t n = t->n, K = s->reduce_rounds, nt = K ? s->send_off.v[K] : 0, ch = s->chunks > 1 ? s->chunks : 1, nb = n * ch;
    contrib_t c = {n, (int64_t)GSP_WORDS(n), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int64_t *by_block = NULL, *boff = NULL, *rnd = NULL, *fill = NULL, ncomp = 0, maxq = 0;
    if (n > GSP_VERIFY_REDUCE_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes is above the reduce verifier's limit of %d", t->spec, (long long)n,
                         GSP_VERIFY_REDUCE_MAX);
    for (int64_t v = 0; v < n; v++) ncomp += !is_switch(t, v);
    if ((err = gsp_alloc_array((void **)&c.S, n * c.words, sizeof *c.S, false)) ||
        (err = gsp_alloc_array((void **)&c.T, n * c.words, sizeof *c.T, false)) ||
        (err = gsp_alloc_array((void **)&c.PS, n * c.words, sizeof *c.PS, false)) ||
        (err = gsp_alloc_array((void **)&c.PT, n * c.words, sizeof *c.PT, false)) ||
        (err = gsp_alloc_array((void **)&c.stamp, n, sizeof *c.stamp, false)) ||
        (err = gsp_alloc_array((void **)&c.pstamp, n, sizeof *c.pstamp, false)) ||
        (err = gsp_alloc_array((void **)&c.taint, n, sizeof *c.taint, false)) ||
        (err = gsp_alloc_array((void **)&c.qhead, n, sizeof *c.qhead, false)) ||
        (err = gsp_alloc_array((void **)&c.qtail, n, sizeof *c.qtail, false)) ||
        (err = gsp_alloc_array((void **)&c.qstamp, n, sizeof *c.qstamp, false)) ||
        (err = gsp_alloc_array((void **)&by_block, nt + 1, sizeof *by_block, false)) ||
        (err = gsp_alloc_array((void **)&boff, nb + 1, sizeof *boff, true)) ||
        (err = gsp_alloc_array((void **)&fill, nb + 1, sizeof *fill, false)) ||
        (err = gsp_alloc_array((void **)&rnd, nt + 1, sizeof *rnd, false)))
        goto done;
    /* Transfers grouped by block, in round order (a stable counting sort). */
    for (int64_t r = 0; r < K; r++)
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            boff[s->sends[k].x + 1]++;
            rnd[k] = r;
        }
    for (int64_t x = 0; x < nb; x++) boff[x + 1] += boff[x];
    for (int64_t x = 0; x < nb; x++) fill[x] = boff[x];
    for (int64_t k = 0; k < nt; k++) by_block[fill[s->sends[k].x]++] = k;
    /* Message slots: at most one per transfer of a block into a switch. */
    if (t->is_switch) {
        for (int64_t x = 0; x < nb; x++) {
            int64_t q = 0;
            for (int64_t j = boff[x]; j < boff[x + 1]; j++) q += is_switch(t, s->sends[by_block[j]].v);
            if (q > maxq) maxq = q;
        }
        if ((err = gsp_alloc_array((void **)&c.MS, (maxq + 1) * c.words, sizeof *c.MS, false)) ||
            (err = gsp_alloc_array((void **)&c.MT, (maxq + 1) * c.words, sizeof *c.MT, false)) ||
            (err = gsp_alloc_array((void **)&c.mtaint, maxq + 1, sizeof *c.mtaint, false)) ||
            (err = gsp_alloc_array((void **)&c.mnext, maxq + 1, sizeof *c.mnext, false)) ||
            (err = gsp_alloc_array((void **)&c.pend, maxq + 1, sizeof *c.pend, false)))
            goto done;
    }
    for (int64_t v = 0; v < n; v++) c.stamp[v] = c.pstamp[v] = c.qstamp[v] = -1;
    int64_t pround = 0; /* pstamp values: a counter per (block, round) group */
    for (int64_t x = 0; x < nb && rep->ok; x++) {
        int64_t owner = x / ch, nslot = 0;
        if (is_switch(t, owner)) {
            if (boff[x + 1] > boff[x]) {
                int64_t k = by_block[boff[x]], r = rnd[k];
                violation(rep, GSP_RULE_REGISTER, r, k - s->send_off.v[r],
                          "round %lld, transfer %lld: block %lld belongs to switch %lld, which holds no data", (long long)r,
                          (long long)(k - s->send_off.v[r]), (long long)x, (long long)owner);
            }
            continue;
        }
        touch(&c, t, owner, x);
        for (int64_t j = boff[x]; j < boff[x + 1] && rep->ok;) {
            int64_t r = rnd[by_block[j]], j1 = j, npend = 0;
            while (j1 < boff[x + 1] && rnd[by_block[j1]] == r) j1++;
            pround++;
            /* Every transfer of this round reads the senders' rows as they were at its start
             * (a switch's arrivals of this round join its queue at the end of the round). */
            for (int64_t q = j; q < j1; q++) {
                const gsp_send_t *e = &s->sends[by_block[q]];
                const gsp_word_t *su, *tu;
                int64_t utaint;
                if (is_switch(t, e->u)) {
                    int64_t m = c.qstamp[e->u] == x ? c.qhead[e->u] : -1;
                    if (m < 0) {
                        violation(rep, GSP_RULE_HELD, r, by_block[q] - s->send_off.v[r],
                                  "round %lld, transfer %lld: switch %lld forwards block %lld but holds no message of it (switches "
                                  "forward, never combine)",
                                  (long long)r, (long long)(by_block[q] - s->send_off.v[r]), (long long)e->u, (long long)x);
                        break;
                    }
                    c.qhead[e->u] = c.mnext[m];
                    su = row(c.MS, &c, m);
                    tu = row(c.MT, &c, m);
                    utaint = c.mtaint[m];
                } else {
                    touch(&c, t, e->u, x);
                    su = row(c.S, &c, e->u);
                    tu = row(c.T, &c, e->u);
                    utaint = c.taint[e->u];
                }
                if (is_switch(t, e->v)) {
                    int64_t m = nslot++;
                    memcpy(row(c.MS, &c, m), su, (size_t)c.words * sizeof(gsp_word_t));
                    memcpy(row(c.MT, &c, m), tu, (size_t)c.words * sizeof(gsp_word_t));
                    c.mtaint[m] = utaint;
                    c.mnext[m] = -1;
                    c.pend[npend++] = m;
                    continue;
                }
                touch(&c, t, e->v, x);
                if (c.pstamp[e->v] != pround) {
                    c.pstamp[e->v] = pround;
                    memcpy(row(c.PS, &c, e->v), row(c.S, &c, e->v), (size_t)c.words * sizeof(gsp_word_t));
                    memcpy(row(c.PT, &c, e->v), row(c.T, &c, e->v), (size_t)c.words * sizeof(gsp_word_t));
                }
                gsp_word_t *ps = row(c.PS, &c, e->v), *pt = row(c.PT, &c, e->v);
                gsp_word_t twice = 0, tainted = 0;
                for (int64_t w = 0; w < c.words; w++) {
                    twice |= ps[w] & su[w];
                    tainted |= tu[w];
                    pt[w] |= tu[w] | (ps[w] & su[w]);
                    ps[w] |= su[w];
                }
                if (twice) rep->duplicates++;
                if ((twice || tainted) && c.taint[e->v] < 0) c.taint[e->v] = twice ? by_block[q] : utaint;
            }
            for (int64_t q = j; q < j1; q++) {
                int64_t v = s->sends[by_block[q]].v;
                if (is_switch(t, v) || c.pstamp[v] != pround) continue;
                c.pstamp[v] = -1;
                memcpy(row(c.S, &c, v), row(c.PS, &c, v), (size_t)c.words * sizeof(gsp_word_t));
                memcpy(row(c.T, &c, v), row(c.PT, &c, v), (size_t)c.words * sizeof(gsp_word_t));
            }
            for (int64_t i = 0, q = j; i < npend; q++) {
                int64_t w = s->sends[by_block[q]].v, m;
                if (!is_switch(t, w)) continue;
                m = c.pend[i++];
                if (c.qstamp[w] != x || c.qhead[w] < 0) {
                    c.qstamp[w] = x;
                    c.qhead[w] = m;
                } else
                    c.mnext[c.qtail[w]] = m;
                c.qtail[w] = m;
            }
            j = j1;
        }
        if (!rep->ok) break;
        const gsp_word_t *sx = row(c.S, &c, owner), *tx = row(c.T, &c, owner);
        char what[96];
        if (ch > 1) snprintf(what, sizeof what, "chunk %lld of block %lld", (long long)(x % ch), (long long)owner);
        else snprintf(what, sizeof what, "block %lld", (long long)x);
        if (gsp_bits_count(sx, n) != ncomp) {
            int64_t w = 0;
            while (gsp_bit_get(sx, w) || is_switch(t, w)) w++;
            violation(rep, GSP_RULE_COMPLETE, -1, -1, "%s: node %lld's contribution never reaches its owner", what, (long long)w);
        } else if (gsp_bits_count(tx, n) != 0) {
            int64_t w = 0, k = c.taint[owner];
            while (!gsp_bit_get(tx, w)) w++;
            int64_t r = rnd[k];
            violation(rep, GSP_RULE_TWICE, r, k - s->send_off.v[r],
                      "%s: its owner counts node %lld's contribution twice (first added twice in round %lld, transfer %lld)", what,
                      (long long)w, (long long)r, (long long)(k - s->send_off.v[r]));
        } else if (done_blocks)
            gsp_bit_set(done_blocks, x);
    }
done:
    gsp_free(c.S);
    gsp_free(c.T);
    gsp_free(c.PS);
    gsp_free(c.PT);
    gsp_free(c.stamp);
    gsp_free(c.pstamp);
    gsp_free(c.taint);
    gsp_free(c.MS);
    gsp_free(c.MT);
    gsp_free(c.mtaint);
    gsp_free(c.mnext);
    gsp_free(c.qhead);
    gsp_free(c.qtail);
    gsp_free(c.qstamp);
    gsp_free(c.pend);
    gsp_free(by_block);
    gsp_free(boff);
    gsp_free(fill);
    gsp_free(rnd);
    return err;
}

/* Reduce-scatter, and allreduce in block form: the link rules over every round (under the
 * capacities on a fabric), the reduce rounds exactly, then the gather rounds from the finished
 * blocks (node x holds its blocks: chunks x K .. x K + K - 1). */
static gsp_err_t verify_blocks(const gsp_sched_t *s, const gsp_topo_t *t, gsp_report_t *rep) {
    gsp_err_t err;
    links_t L;
    gsp_word_t *held = NULL, *done_blocks = NULL;
    int64_t n = t->n, ch = s->chunks > 1 ? s->chunks : 1, words = (int64_t)GSP_WORDS(n * ch), K = s->reduce_rounds;
    if (n * ch > GSP_VERIFY_ALLGATHER_MAX * (int64_t)8)
        return gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes of %lld chunks each is above the block verifier's limit", t->spec, (long long)n,
                         (long long)ch);
    if ((err = links_init(&L, t, &s->model))) goto done;
    L.cap_factor = s->cap_factor;
    for (int64_t r = 0; r < K && rep->ok; r++) {
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++)
            if (!links_use(&L, rep, r, k - s->send_off.v[r], s->sends[k].u, s->sends[k].v)) break;
        links_reset(&L);
    }
    if (!rep->ok) goto report;
    if ((err = gsp_alloc_array((void **)&done_blocks, words, sizeof *done_blocks, true))) goto done;
    if ((err = check_reduce(s, t, rep, done_blocks)) || !rep->ok || s->coll == GSP_COLL_REDUCE_SCATTER) goto report;
    if ((err = gsp_alloc_array((void **)&held, n * words, sizeof *held, true))) goto done;
    for (int64_t x = 0; x < n * ch; x++)
        if (gsp_bit_get(done_blocks, x)) gsp_bit_set(held + (x / ch) * words, x);
    disseminate(s, t, K, held, words, &L, rep);
report:
    links_report(&L, rep);
    rep->exact_forms = rep->ok;
done:
    links_destroy(&L);
    gsp_free(held);
    gsp_free(done_blocks);
    return err;
}

/* Registers: per node, the list of global register ids; values and (optionally) forms. */
typedef struct {
    gsp_vec_t *regs; /* n vectors */
    double *val;     /* numeric value of each global register */
    int64_t count, cap;
    int64_t n;
} regs_t;

static gsp_err_t regs_new(regs_t *R, int64_t v, int64_t *id) {
    gsp_err_t err;
    if (R->count == R->cap) return gsp_error(GSP_ERR_INTERNAL, "register pool exhausted");
    *id = R->count++;
    if ((err = gsp_vec_push(&R->regs[v], *id))) return err;
    return GSP_OK;
}

/* Exact check of an allreduce schedule already known to be well-formed: every register is a
 * linear form over the n inputs; the forms are replayed W columns (inputs) at a time so that
 * memory stays at registers x W whatever n is, and each result form must be all ones. */
static gsp_err_t forms_check(const gsp_sched_t *s, int64_t n, gsp_report_t *rep) {
    enum { W = 64 };
    gsp_err_t err;
    int64_t total = n + s->ncombines + s->nsends, *base = NULL, *count = NULL, *reg = NULL, *pend = NULL;
    double *val = NULL;
    /* Registers of node v are numbered in order; regid(v, r) is a global id assigned on the fly. */
    if ((err = gsp_alloc_array((void **)&val, total * W, sizeof *val, false)) ||
        (err = gsp_alloc_array((void **)&count, n, sizeof *count, false)) ||
        (err = gsp_alloc_array((void **)&base, n + 1, sizeof *base, true)) ||
        (err = gsp_alloc_array((void **)&reg, total, sizeof *reg, false)) ||
        (err = gsp_alloc_array((void **)&pend, s->nsends + 1, sizeof *pend, false)))
        goto done;
    /* Per node capacity: 1 + its combines + its receives; reg[base[v] + r] is the global id. */
    for (int64_t v = 0; v < n; v++) base[v + 1] = 1;
    for (int64_t k = 0; k < s->ncombines; k++) base[s->combines[k].v + 1]++;
    for (int64_t k = 0; k < s->nsends; k++) base[s->sends[k].v + 1]++;
    for (int64_t v = 0; v < n; v++) base[v + 1] += base[v];
    for (int64_t c0 = 0; c0 < n && rep->ok; c0 += W) {
        int64_t next = 0;
        for (int64_t v = 0; v < n; v++) {
            count[v] = 1;
            int64_t id = next++;
            reg[base[v]] = id;
            for (int q = 0; q < W; q++) val[id * W + q] = v == c0 + q ? 1.0 : 0.0;
        }
        for (int64_t r = 0; r <= s->nrounds; r++) {
            int64_t cb = r < (int64_t)s->comb_off.len ? s->comb_off.v[r] : s->ncombines;
            int64_t ce = r < s->nrounds ? s->comb_off.v[r + 1] : s->ncombines;
            for (int64_t k = cb; k < ce; k++) {
                const gsp_combine_t *c = &s->combines[k];
                int64_t id = next++;
                double *f = val + id * W;
                memset(f, 0, W * sizeof *f);
                for (int64_t j = 0; j < c->count; j++) {
                    const double *g = val + reg[base[c->v] + s->terms[c->first + j].r] * W;
                    double co = s->terms[c->first + j].c;
                    for (int q = 0; q < W; q++) f[q] += co * g[q];
                }
                reg[base[c->v] + count[c->v]++] = id;
            }
            if (r == s->nrounds) break;
            int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
            for (int64_t k = b; k < e; k++) pend[k - b] = reg[base[s->sends[k].u] + s->sends[k].x];
            for (int64_t k = b; k < e; k++) reg[base[s->sends[k].v] + count[s->sends[k].v]++] = pend[k - b];
        }
        for (int64_t v = 0; v < n && rep->ok; v++) {
            const double *f = val + reg[base[v] + s->result[v]] * W;
            for (int q = 0; q < W && c0 + q < n; q++)
                if (!(fabs(f[q] - 1) <= 1e-9)) { /* NaN fails too */
                    violation(rep, GSP_RULE_COMPLETE, -1, -1,
                              "node %lld: result register %lld has coefficient %.12g for input %lld, not 1", (long long)v,
                              (long long)s->result[v], f[q], (long long)(c0 + q));
                    break;
                }
        }
    }
done:
    gsp_free(val);
    gsp_free(count);
    gsp_free(base);
    gsp_free(reg);
    gsp_free(pend);
    return err;
}

static gsp_err_t verify_allreduce(const gsp_sched_t *s, const gsp_topo_t *t, uint64_t seed, bool approx, gsp_report_t *rep) {
    gsp_err_t err;
    links_t L;
    regs_t R = {0};
    int64_t n = t->n, *pending = NULL;
    long double exact = 0;
    memset(&L, 0, sizeof L);
    if ((err = links_init(&L, t, &s->model))) goto done;
    R.n = n;
    R.cap = n + s->ncombines + s->nsends;
    if ((err = gsp_alloc_array((void **)&R.regs, n, sizeof *R.regs, true)) ||
        (err = gsp_alloc_array((void **)&R.val, R.cap, sizeof *R.val, false)) ||
        (err = gsp_alloc_array((void **)&pending, s->nsends + 1, sizeof *pending, false)))
        goto done;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    for (int64_t v = 0; v < n; v++) {
        int64_t id = 0;
        if ((err = regs_new(&R, v, &id))) goto done;
        R.val[id] = 1 + gsp_rng_double(&rng);
        exact += R.val[id];
    }
    for (int64_t r = 0; r <= s->nrounds && rep->ok; r++) {
        /* r == nrounds processes the final combines only. */
        int64_t cb = s->comb_off.len > r ? s->comb_off.v[r] : s->ncombines;
        int64_t ce = r < s->nrounds ? s->comb_off.v[r + 1] : s->ncombines;
        for (int64_t k = cb; k < ce; k++) {
            const gsp_combine_t *c = &s->combines[k];
            double acc = 0;
            for (int64_t j = 0; j < c->count; j++) {
                int64_t reg = s->terms[c->first + j].r;
                if (reg >= R.regs[c->v].len) {
                    if (r < s->nrounds)
                        violation(rep, GSP_RULE_REGISTER, r, k - cb,
                                  "round %lld, combine %lld: node %lld has no register %lld (it has %lld)",
                                  (long long)r, (long long)(k - cb), (long long)c->v, (long long)reg,
                                  (long long)R.regs[c->v].len);
                    else
                        violation(rep, GSP_RULE_REGISTER, -1, k - cb,
                                  "final combine %lld: node %lld has no register %lld (it has %lld)",
                                  (long long)(k - cb), (long long)c->v, (long long)reg, (long long)R.regs[c->v].len);
                    goto end;
                }
                acc += s->terms[c->first + j].c * R.val[R.regs[c->v].v[reg]];
            }
            int64_t id = 0;
            if ((err = regs_new(&R, c->v, &id))) goto done;
            R.val[id] = acc;
        }
        if (r == s->nrounds) break;
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *tr = &s->sends[k];
            if (!links_use(&L, rep, r, k - b, tr->u, tr->v)) goto end;
            if (tr->x >= R.regs[tr->u].len) {
                violation(rep, GSP_RULE_REGISTER, r, k - b,
                          "round %lld, transfer %lld: node %lld has no register %lld (it has %lld)",
                          (long long)r, (long long)(k - b), (long long)tr->u, (long long)tr->x,
                          (long long)R.regs[tr->u].len);
                goto end;
            }
            pending[k - b] = R.regs[tr->u].v[tr->x];
        }
        for (int64_t k = b; k < e; k++) {
            int64_t id = 0;
            if ((err = regs_new(&R, s->sends[k].v, &id))) goto done;
            R.val[id] = R.val[pending[k - b]];
        }
        links_reset(&L);
    }
    if (rep->ok) {
        if (!s->result) {
            violation(rep, GSP_RULE_COMPLETE, -1, -1, "the schedule names no result registers");
            goto end;
        }
        for (int64_t v = 0; v < n; v++) {
            int64_t reg = s->result[v];
            if (reg >= R.regs[v].len) {
                violation(rep, GSP_RULE_REGISTER, -1, -1, "result: node %lld has no register %lld (it has %lld)",
                          (long long)v, (long long)reg, (long long)R.regs[v].len);
                break;
            }
            int64_t id = R.regs[v].v[reg];
            /* NaN compares false with everything: a non-finite result is wrong, said so. */
            if (!isfinite(R.val[id])) {
                violation(rep, GSP_RULE_COMPLETE, -1, -1, "result: node %lld's register %lld is %g, not a finite sum", (long long)v,
                          (long long)reg, R.val[id]);
                break;
            }
            double rel = fabs((double)((long double)R.val[id] - exact) / (double)exact);
            if (!(rel <= rep->max_rel_error)) rep->max_rel_error = rel;
        }
        if (rep->ok && approx) {
            /* Estimates of the mean: result / n; relative variance against the inputs'. */
            long double mu = exact / n, num = 0, den = 0;
            for (int64_t v = 0; v < n; v++) {
                long double e = (long double)R.val[R.regs[v].v[s->result[v]]] / n - mu, x = (long double)R.val[R.regs[v].v[0]] - mu;
                num += e * e;
                den += x * x;
            }
            rep->rel_variance = den > 0 ? (double)(num / den) : 0;
            goto end;
        }
        if (rep->ok && n <= GSP_VERIFY_FORMS_MAX) {
            if ((err = forms_check(s, n, rep))) goto done;
            rep->exact_forms = true;
        }
        if (rep->ok && rep->max_rel_error > 1e-9)
            violation(rep, GSP_RULE_COMPLETE, -1, -1, "largest relative error of a result is %.3g (> 1e-9)",
                      rep->max_rel_error);
    }
end:
    links_report(&L, rep);
    err = GSP_OK;
done:
    links_destroy(&L);
    if (R.regs)
        for (int64_t v = 0; v < n; v++) gsp_vec_destroy(&R.regs[v]);
    gsp_free(R.regs);
    gsp_free(R.val);
    gsp_free(pending);
    return err;
}

/* Balanced-sequence check: S_0 = {e}; an entry (t, i, g) needs g in S_t and adds s_i g to
 * S_{t+1}; at most p entries per (t, i) keep every arc within p packets (Lemma 10: node y
 * uses arc i in round t only for origin g^-1 y); S_T must be the whole group. */
static gsp_err_t verify_symmetric(const gsp_sched_t *s, const gsp_topo_t *t, gsp_report_t *rep) {
    gsp_err_t err;
    int64_t n = t->n, d = t->ngens;
    unsigned char *in = NULL, *newly = NULL;
    int64_t *per_gen = NULL, members = 1, pk = gsp_model_resolve(s->model).packets;
    if ((err = gsp_alloc_array((void **)&in, n, 1, true)) || (err = gsp_alloc_array((void **)&newly, n, 1, true)) ||
        (err = gsp_alloc_array((void **)&per_gen, d, sizeof *per_gen, true)))
        goto done;
    in[0] = 1;
    int64_t k = 0, peak = 0;
    for (int64_t r = 0; r < s->nrounds && rep->ok; r++) {
        int64_t b = k;
        memset(per_gen, 0, (size_t)d * sizeof *per_gen);
        int64_t distinct = 0;
        for (; k < s->nsym && s->sym[k].t == r; k++) {
            const gsp_symsend_t *e = &s->sym[k];
            if (e->i >= d) {
                violation(rep, GSP_RULE_ARC, r, k - b, "round %lld, entry %lld: %s has no generator %lld",
                          (long long)r, (long long)(k - b), t->spec, (long long)e->i);
                goto done;
            }
            if (!in[e->g]) {
                violation(rep, GSP_RULE_HELD, r, k - b,
                          "round %lld, entry %lld: element %lld does not hold the packet of e yet (not in S_%lld)",
                          (long long)r, (long long)(k - b), (long long)e->g, (long long)r);
                goto done;
            }
            if (per_gen[e->i]++ == 0) distinct++;
            if (per_gen[e->i] > peak) peak = per_gen[e->i];
            if (pk != GSP_PACKETS_INF && per_gen[e->i] > pk) {
                violation(rep, GSP_RULE_PACKETS, r, k - b,
                          "round %lld, entry %lld: generator %lld used %lld times, so every arc of that "
                          "generator carries %lld packets; the model allows %lld",
                          (long long)r, (long long)(k - b), (long long)e->i, (long long)per_gen[e->i],
                          (long long)per_gen[e->i], (long long)pk);
                goto done;
            }
            if (s->model.one_port && distinct > 1) {
                violation(rep, GSP_RULE_PORTS, r, k - b,
                          "round %lld, entry %lld: two generators in one round make every node send on two arcs",
                          (long long)r, (long long)(k - b));
                goto done;
            }
            if (s->model.half_duplex) {
                int inv = gsp_topo_gen_inverse(t, (int)e->i);
                if (inv == e->i || (inv >= 0 && per_gen[inv] > 0)) {
                    violation(rep, GSP_RULE_DUPLEX, r, k - b,
                              "round %lld, entry %lld: generator %lld and its inverse in one round use every "
                              "edge of that kind in both directions",
                              (long long)r, (long long)(k - b), (long long)e->i);
                    goto done;
                }
            }
            int64_t y = t->adj[e->g * d + e->i];
            if (in[y] || newly[y]) rep->duplicates += n;
            newly[y] = 1;
        }
        for (int64_t j = b; j < k; j++) {
            int64_t y = t->adj[s->sym[j].g * d + s->sym[j].i];
            if (newly[y] && !in[y]) {
                in[y] = 1;
                members++;
            }
            newly[y] = 0;
        }
    }
    if (k < s->nsym) {
        violation(rep, GSP_RULE_SYMMETRIC, s->sym[k].t, -1, "entries are not sorted by round");
        goto done;
    }
    if (rep->ok && members != n) {
        int64_t y = 0;
        while (in[y]) y++;
        violation(rep, GSP_RULE_COMPLETE, -1, -1,
                  "element %lld is never reached from e, so node %lld*h never gets the packet of h", (long long)y,
                  (long long)y);
    }
    rep->sent_min = rep->sent_max = rep->recv_min = rep->recv_max = s->nsym;
    rep->peak_arc_load = peak;
done:
    gsp_free(in);
    gsp_free(newly);
    gsp_free(per_gen);
    return err;
}

gsp_err_t gsp_sched_verify(const gsp_sched_t *s, const gsp_topo_t *t, uint64_t seed, gsp_report_t *rep) {
    return gsp_sched_verify_flags(s, t, seed, 0, rep);
}

gsp_err_t gsp_sched_verify_flags(const gsp_sched_t *s, const gsp_topo_t *t, uint64_t seed, unsigned flags,
                                 gsp_report_t *rep) {
    gsp_err_t err;
    memset(rep, 0, sizeof *rep);
    rep->ok = true;
    rep->round = rep->transfer = -1;
    if (s->nodes != t->n)
        return gsp_error(GSP_ERR_INVAL, "the schedule has %lld nodes but %s has %lld", (long long)s->nodes,
                         t->spec, (long long)t->n);
    if (s->coll == GSP_COLL_BROADCAST && (s->root < 0 || s->root >= t->n))
        return gsp_error(GSP_ERR_RANGE, "broadcast root %lld outside 0..%lld", (long long)s->root,
                         (long long)t->n - 1);
    rep->rounds = s->nrounds;
    rep->transfers = gsp_sched_transfers(s);
    if (s->symmetric) {
        if (!t->group) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: a symmetric schedule needs a Cayley graph", t->spec);
        if (s->coll != GSP_COLL_ALLGATHER)
            return gsp_error(GSP_ERR_NOTAPPLIC, "symmetric schedules are allgather schedules");
        if ((err = verify_symmetric(s, t, rep))) return err;
        /* The cross-check expands only what the symmetric check accepted (an entry naming a
         * generator the graph does not have cannot be expanded). */
        if (rep->ok && t->n <= GSP_VERIFY_EXPAND_MAX && !(flags & GSP_VERIFY_NO_EXPAND)) {
            /* Cross-check: expand by translation and simulate every transfer. */
            gsp_sched_t x;
            gsp_report_t xr = {.ok = true, .round = -1, .transfer = -1};
            if ((err = gsp_sched_expand(s, t, &x))) return err;
            err = verify_dissemination(&x, t, &xr);
            gsp_sched_destroy(&x);
            if (err) return err;
            if (xr.ok != rep->ok || (rep->ok && xr.duplicates != rep->duplicates))
                return gsp_error(GSP_ERR_INTERNAL,
                                 "symmetric check (%s) and expansion (%s) disagree: %s / %s",
                                 rep->ok ? "ok" : "wrong", xr.ok ? "ok" : "wrong", rep->message, xr.message);
            rep->by_expansion = true;
            rep->peak_arc_load = xr.peak_arc_load;
        }
        return GSP_OK;
    }
    if (s->coll == GSP_COLL_REDUCE_SCATTER || (s->coll == GSP_COLL_ALLREDUCE && s->blocks)) return verify_blocks(s, t, rep);
    if (s->coll == GSP_COLL_ALLREDUCE) return verify_allreduce(s, t, seed, (flags & GSP_VERIFY_APPROX) != 0, rep);
    return verify_dissemination(s, t, rep);
}

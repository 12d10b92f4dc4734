/* SPDX-License-Identifier: GPL-3.0-or-later */
/* packets.c — the packet bookkeeping the explicit gossip heuristics share (greedy, matching):
 * which packet a receiver takes on an arc, and the delivery of a round. */
#include "algo_int.h"

int64_t gsp__rarest_missing(const gsp_word_t *hu, const gsp_word_t *hv, const gsp_word_t *taken, int64_t W, const int64_t *holders,
                            int64_t limit, gsp_rng_t *rng) {
    if (limit <= 0) { /* the first one: every missing packet will go, ranking is moot */
        for (int64_t w = 0; w < W; w++) {
            gsp_word_t c = hu[w] & ~hv[w] & ~taken[w];
            if (c) return w * 64 + __builtin_ctzll(c);
        }
        return -1;
    }
    /* Scan from a random word so that ties do not always go to low ids. */
    int64_t start = (int64_t)gsp_rng_below(rng, (uint64_t)W), best = -1, seen = 0;
    for (int64_t k = 0; k < W && seen < limit; k++) {
        int64_t w = (start + k) % W;
        gsp_word_t c = hu[w] & ~hv[w] & ~taken[w];
        while (c && seen < limit) {
            int64_t x = w * 64 + __builtin_ctzll(c);
            c &= c - 1;
            seen++;
            if (best < 0 || holders[x] < holders[best]) best = x;
        }
    }
    return best;
}

gsp_err_t gsp__deliver_round(const gsp_sched_t *out, int64_t b, gsp_word_t *held, int64_t W, int64_t *holders, const char *who,
                             int64_t *complete) {
    int64_t n = out->nodes;
    if (b == out->nsends) return gsp_error(GSP_ERR_INTERNAL, "%s: a round without transfers on %s", who, out->topology);
    /* Packets received this round are usable from the next round on. */
    for (int64_t k = b; k < out->nsends; k++) {
        const gsp_send_t *s = &out->sends[k];
        gsp_word_t *hv = held + s->v * W;
        if (!gsp_bit_get(hv, s->x)) {
            gsp_bit_set(hv, s->x);
            holders[s->x]++;
        }
    }
    *complete = 0;
    for (int64_t v = 0; v < n; v++) *complete += gsp_bits_count(held + v * W, n) == n;
    return GSP_OK;
}

/* bytes as "2.4 GB" or, below a gigabyte, "19.6 MB" (10^9 and 10^6, as topo.c says sizes). */
static void say_bytes(double bytes, char *buf, size_t n) {
    if (bytes >= 1e9) snprintf(buf, n, "%.1f GB", bytes / 1e9);
    else snprintf(buf, n, "%.1f MB", bytes / 1e6);
}

bool gsp__explicit_allgather_fits(const gsp_topo_t *t, char *why, size_t whylen) {
    /* Per arc the greedy keeps three counters and a summary bit per word of a row. */
    int64_t n = t->n, transfers = 0, bytes, bits, per_arc = 3 * 8 + 8 * (int64_t)GSP_WORDS(GSP_WORDS(n)), arcs;
    bool counted = n < 2 || gsp_mul_ok(n, n - 1, &transfers);
    bool ok = n < 2 || (counted && gsp_mul_ok(transfers, (int64_t)sizeof(gsp_send_t), &bytes) &&
                        gsp_mul_ok(n, 2 * (int64_t)GSP_WORDS(n) * (int64_t)sizeof(gsp_word_t), &bits) && gsp_add_ok(bytes, bits, &bytes) &&
                        gsp_mul_ok(t->m, per_arc, &arcs) && gsp_add_ok(bytes, arcs, &bytes));
    if (ok && (n < 2 || bytes <= gsp_memory_limit())) return true;
    /* Said in floating point, which does not overflow: the reader wants to see how far off it is. */
    char need[32], limit[32], count[32];
    say_bytes((double)n * (double)(n - 1) * (double)sizeof(gsp_send_t) + (double)n * (double)n / 4.0 + (double)t->m * (double)per_arc, need,
              sizeof need);
    say_bytes((double)gsp_memory_limit(), limit, sizeof limit);
    if (counted) snprintf(count, sizeof count, "%lld", (long long)transfers);
    else snprintf(count, sizeof count, "%.3g", (double)n * (double)(n - 1));
    snprintf(why, whylen,
             "an explicit schedule of %lld nodes holds N(N-1) = %s transfers, about %s, above the memory limit of %s (GOSSIP_MEMORY_LIMIT)",
             (long long)n, count, need, limit);
    return false;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_cost.c — the cost model: alpha-beta-gamma with hop latency, per-message overhead, beta by
 * message size and a shared-memory variant; predictions of a phase from its per-round
 * statistics, and the choice among candidates. Every rank computes the same numbers. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/runtime.h"
#include "rt_int.h"

gsp_cost_t gsp_cost_default(void) {
    gsp_cost_t c;
    memset(&c, 0, sizeof c);
    c.alpha = 1e-6;
    c.beta = 1e-10;
    c.gamma = 2e-10;
    c.hop = 1e-7;
    c.overhead = 2e-7;
    return c;
}

gsp_cost_t gsp_cost_shared_memory(void) {
    gsp_cost_t c = gsp_cost_default();
    c.alpha = 5e-7;
    c.beta = 1.2e-10;
    c.gamma = 6e-11;
    c.hop = 0;
    c.shared = true;
    return c;
}

gsp_err_t gsp_cost_parse(const char *name, const char *text, double *out) {
    char *end;
    double v = text && *text ? strtod(text, &end) : NAN;
    if (!text || !*text || *end || !isfinite(v) || v < 0)
        return gsp_error(GSP_ERR_PARSE, "%s='%s': expected a non-negative number of seconds (e.g. 1e-6)", name, text ? text : "");
    *out = v;
    return GSP_OK;
}

gsp_err_t gsp_cost_parse_beta(const char *name, const char *text, gsp_cost_t *c) {
    if (text && *text && !strchr(text, ':')) {
        c->nbeta = 0;
        return gsp_cost_parse(name, text, &c->beta);
    }
    gsp_cost_t t = *c;
    t.nbeta = 0;
    const char *p = text ? text : "";
    while (*p) {
        char *end;
        errno = 0;
        long long from = strtoll(p, &end, 10);
        if (end == p || *end != ':' || errno || from < 0 || (t.nbeta == 0 && from != 0) ||
            (t.nbeta > 0 && from <= t.beta_from[t.nbeta - 1]))
            return gsp_error(GSP_ERR_PARSE, "%s='%s': expected seconds per byte, or SIZE:SECONDS,... with sizes increasing from 0",
                             name, text ? text : "");
        if (t.nbeta == GSP_COST_MAX_BETA) return gsp_error(GSP_ERR_PARSE, "%s: at most %d sizes", name, GSP_COST_MAX_BETA);
        p = end + 1;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || v < 0 || (*end && *end != ','))
            return gsp_error(GSP_ERR_PARSE, "%s='%s': expected a non-negative number of seconds after %lld:", name, text, from);
        t.beta_from[t.nbeta] = from;
        t.beta_val[t.nbeta++] = v;
        p = *end ? end + 1 : end;
    }
    if (t.nbeta == 0) return gsp_error(GSP_ERR_PARSE, "%s='': expected seconds per byte", name);
    t.beta = t.beta_val[t.nbeta - 1];
    *c = t;
    return GSP_OK;
}

double gsp_cost_beta(const gsp_cost_t *c, double bytes) {
    double b = c->beta;
    for (int i = 0; i < c->nbeta && (double)c->beta_from[i] <= bytes; i++) b = c->beta_val[i];
    return b;
}

/* A round through one memory: every block moved, and every block combined, passes through it. */
static double shared_work(const gsp_rt_phase_t *ph, int64_t r, double blk, const gsp_cost_t *c) {
    double moved = (double)ph->moved[r] * blk;
    return gsp_cost_beta(c, blk) * moved + (ph->kind == GSP_RT_REDUCE ? c->gamma * moved : 0);
}

/* One round's cost on whole blocks of blk bytes, without alpha: the worst round of the phase. */
static double round_work(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c) {
    double w = 0;
    for (int64_t r = 0; r < ph->nrounds; r++) {
        double seg = c->segment > 0 && (double)c->segment < blk ? (double)c->segment : blk;
        double x = c->shared ? shared_work(ph, r, blk, c)
                             : gsp_cost_beta(c, seg) * (double)ph->maxblk[r] * blk + c->gamma * (double)ph->maxred[r] * blk;
        if (x > w) w = x;
    }
    return w;
}

int64_t gsp_rt_segments(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c) {
    if (!ph->pipelined || blk <= 0) return 1;
    double s;
    if (c->segment > 0) s = ceil(blk / (double)c->segment);
    /* A segment whose transfer takes about one latency: shorter ones pay alpha more often
     * than they save, longer ones lengthen every hop of the pipeline. */
    else s = c->alpha > 0 ? ceil(round_work(ph, blk, c) / c->alpha * (1 - 1e-12)) : GSP_RT_MAX_SEGMENTS;
    if (s > GSP_RT_MAX_SEGMENTS) s = GSP_RT_MAX_SEGMENTS;
    if (s > blk) s = floor(blk);
    return s < 1 ? 1 : (int64_t)s;
}

void gsp_rt_predict(const gsp_rt_algo_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c, gsp_rt_pred_t *p) {
    memset(p, 0, sizeof *p);
    double vec = a->coll == GSP_COLL_REDUCE_SCATTER ? (double)bytes * (double)nodes : (double)bytes;
    for (int k = 0; k < a->nphases; k++) {
        const gsp_rt_phase_t *ph = &a->phase[k];
        double nb = ph->nblocks > 0 ? (double)ph->nblocks : (double)nodes;
        double parts = ph->parts > 1 ? (double)ph->parts : 1;
        double blk = ph->layout == GSP_RT_RANK ? ceil((double)bytes / parts) : ph->layout == GSP_RT_SPLIT ? ceil(vec / (nb * parts)) : vec;
        if (ph->layout == GSP_RT_RANK && a->coll == GSP_COLL_ALLREDUCE) blk = vec;
        p->rounds += ph->nrounds;
        p->transfers += ph->ntransfers;
        p->busiest_bytes += (double)ph->busiest * blk;
        if (ph->pipelined && c->shared) {
            /* One memory carries every round's bytes whatever overlaps: only latencies hide. */
            double R = (double)ph->nrounds;
            for (int64_t r = 0; r < ph->nrounds; r++) p->seconds += shared_work(ph, r, blk, c);
            if (R > 0) p->seconds += c->alpha * R;
            continue;
        }
        if (ph->pipelined) {
            /* S segments stream through R levels: the busiest arc's whole load once, plus
             * one segment's latency and transfer per further level (latencies overlap). */
            double S = (double)gsp_rt_segments(ph, blk, c), R = (double)ph->nrounds, w = round_work(ph, blk, c);
            if (R > 0) p->seconds += c->alpha + w + (R - 1) * (c->alpha + w / S);
            continue;
        }
        for (int64_t r = 0; r < ph->nrounds; r++) {
            double extra = c->overhead * (double)(ph->maxmsg[r] > 1 ? ph->maxmsg[r] - 1 : 0) + c->gamma * (double)ph->maxred[r] * blk;
            if (c->shared)
                p->seconds += c->alpha + shared_work(ph, r, blk, c) + c->overhead * (double)(ph->maxmsg[r] > 1 ? ph->maxmsg[r] - 1 : 0);
            else if (ph->routed) {
                /* A message waits for its route's latency, then shares its first link with the
                 * messages already there: per link, nearest first; the last to finish wins. */
                double last = 0;
                for (int64_t l = 0; l < ph->nlinks; l++) {
                    const int64_t *hist = ph->link_hist + (r * ph->nlinks + l) * (ph->hops + 1);
                    double T = 0;
                    for (int64_t h = 1; h <= ph->hops; h++) {
                        if (!hist[h]) continue;
                        double ready = c->hop * (double)(h - 1);
                        T = (T > ready ? T : ready) + gsp_cost_beta(c, blk) * blk * (double)hist[h];
                    }
                    if (T > last) last = T;
                }
                p->seconds += c->alpha + last + extra;
            } else {
                /* With segments the runtime sends each block in up to GSP_RT_MAX_LANES lanes:
                 * the per-byte cost is that of the lanes' messages. */
                double lanes = c->segment > 0 ? fmin(GSP_RT_MAX_LANES, ceil(blk / (double)c->segment)) : 1;
                double msg = (double)ph->maxblk[r] * blk / (lanes > 1 ? lanes : 1);
                p->seconds += c->alpha + gsp_cost_beta(c, msg) * (double)ph->maxblk[r] * blk + extra;
            }
        }
    }
    /* gather: every rank combines N vectors (through one memory: all of them do, in turn) */
    if (a->local_reduce) p->seconds += c->gamma * (double)(nodes - 1) * vec * (c->shared ? (double)nodes : 1);
}

int gsp_rt_choose(const gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c) {
    int best = -1;
    double bt = 0;
    for (int i = 0; i < a->n; i++) {
        gsp_rt_pred_t p;
        gsp_rt_predict(&a->v[i], nodes, bytes, c, &p);
        if (best < 0 || p.seconds < bt) {
            best = i;
            bt = p.seconds;
        }
    }
    return best;
}

int gsp_rt_find(const gsp_rt_algos_t *a, const char *name) {
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->v[i].name, name)) return i;
    return -1;
}

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

/* Parses "SIZE:SECONDS,..." (sizes increasing from 0) into n/from/val; `what` names the unit. */
static gsp_err_t parse_table(const char *name, const char *text, const char *what, int *n, int64_t *from_out, double *val_out) {
    int k = 0;
    int64_t from_v[GSP_COST_MAX_BETA];
    double val_v[GSP_COST_MAX_BETA];
    const char *p = text ? text : "";
    while (*p) {
        char *end;
        errno = 0;
        long long from = strtoll(p, &end, 10);
        if (end == p || *end != ':' || errno || from < 0 || (k == 0 && from != 0) || (k > 0 && from <= from_v[k - 1]))
            return gsp_error(GSP_ERR_PARSE, "%s='%s': expected %s, or SIZE:SECONDS,... with sizes increasing from 0", name, text ? text : "",
                             what);
        if (k == GSP_COST_MAX_BETA) return gsp_error(GSP_ERR_PARSE, "%s: at most %d sizes", name, GSP_COST_MAX_BETA);
        p = end + 1;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || v < 0 || (*end && *end != ','))
            return gsp_error(GSP_ERR_PARSE, "%s='%s': expected a non-negative number of seconds after %lld:", name, text, from);
        from_v[k] = from;
        val_v[k++] = v;
        p = *end ? end + 1 : end;
    }
    if (k == 0) return gsp_error(GSP_ERR_PARSE, "%s='': expected %s", name, what);
    memcpy(from_out, from_v, (size_t)k * sizeof *from_v);
    memcpy(val_out, val_v, (size_t)k * sizeof *val_v);
    *n = k;
    return GSP_OK;
}

/* One figure or a table by size into *scalar / *n, from, val (unchanged on error); a table
 * sets *scalar to its first (first) or last entry. */
static gsp_err_t parse_figure(const char *name, const char *text, const char *what, bool first, double *scalar, int *n, int64_t *from,
                              double *val) {
    if (text && *text && !strchr(text, ':')) {
        double v;
        gsp_err_t err = gsp_cost_parse(name, text, &v);
        if (err) return err;
        *scalar = v;
        *n = 0;
        return GSP_OK;
    }
    int k = 0;
    int64_t f[GSP_COST_MAX_BETA] = {0};
    double x[GSP_COST_MAX_BETA] = {0};
    gsp_err_t err = parse_table(name, text, what, &k, f, x);
    if (err) return err;
    if (k < 1) return gsp_error(GSP_ERR_PARSE, "%s='': expected %s", name, what); /* parse_table refuses it: for the compiler */
    memcpy(from, f, sizeof f);
    memcpy(val, x, sizeof x);
    *n = k;
    *scalar = first ? x[0] : x[k - 1];
    return GSP_OK;
}

gsp_err_t gsp_cost_parse_beta(const char *name, const char *text, gsp_cost_t *c) {
    return parse_figure(name, text, "seconds per byte", false, &c->beta, &c->nbeta, c->beta_from, c->beta_val);
}

gsp_err_t gsp_cost_parse_alpha(const char *name, const char *text, gsp_cost_t *c) {
    return parse_figure(name, text, "seconds per message", true, &c->alpha, &c->nalpha, c->alpha_from, c->alpha_val);
}

double gsp_cost_alpha(const gsp_cost_t *c, double bytes) {
    double a = c->alpha;
    for (int i = 0; i < c->nalpha && (double)c->alpha_from[i] <= bytes; i++) a = c->alpha_val[i];
    return a;
}

double gsp_cost_beta(const gsp_cost_t *c, double bytes) {
    double b = c->beta;
    for (int i = 0; i < c->nbeta && (double)c->beta_from[i] <= bytes; i++) b = c->beta_val[i];
    return b;
}

bool gsp_cost_band(const gsp_cost_t *c, int64_t *lo, int64_t *hi, double *beta) {
    int best = -1;
    for (int i = 0; i < c->nbeta; i++)
        if (best < 0 || c->beta_val[i] < c->beta_val[best]) best = i;
    if (best < 0 || best + 1 >= c->nbeta || c->beta_val[best] <= 0) return false; /* large messages are cheapest */
    *lo = c->beta_from[best];
    *hi = c->beta_from[best + 1];
    *beta = c->beta_val[best];
    return *hi - *lo >= 2;
}

/* A round through one memory: every block moved, and every block combined, passes through it. */
static double shared_work(const gsp_rt_phase_t *ph, int64_t r, double blk, const gsp_cost_t *c) {
    double moved = (double)ph->moved[r] * blk;
    return gsp_cost_beta(c, blk) * moved + (ph->kind == GSP_RT_REDUCE ? c->gamma * moved : 0);
}

/* One round's cost on whole blocks of blk bytes sent in messages of seg bytes, without alpha:
 * the worst round of the phase. */
static double round_work_seg(const gsp_rt_phase_t *ph, double blk, double seg, const gsp_cost_t *c) {
    double w = 0;
    for (int64_t r = 0; r < ph->nrounds; r++) {
        double x = c->shared ? shared_work(ph, r, blk, c)
                             : gsp_cost_beta(c, seg) * (double)ph->maxblk[r] * blk + c->gamma * (double)ph->maxred[r] * blk;
        if (x > w) w = x;
    }
    return w;
}

/* A pipelined phase of R rounds (levels) in S segments, alpha and beta those of a segment's
 * message, x = w / S one segment's transfer alone (w: the worst round on whole blocks). The
 * engine keeps at most W segments of an arc in flight (GSP_RT_PIPE_WINDOW; a fabric's trees 1,
 * mpi_engine.c), sharing the arc: a segment crosses a level in alpha + min(W, S) x, and an
 * arc's S segments take at least max(1, S / W) alphas besides their w. So
 *   (R - 1)(alpha + min(W, S) x) + max(1, S / W) alpha + w,
 * which is R (alpha + w) for S = 1. Measured under SimGrid SMPI (torus 16x16, 1.25 GB/s, 5 us
 * links, SMPI's default factors as alpha and beta by size): the multitree broadcast of 64 KiB
 * in 8 segments 511.9 us (this 508), in 256 segments 925.8 us (this 918); the form without the
 * window, alpha + w + (R - 1)(alpha + w / S), predicted 298 and 280 and chose the 256. */
static double pipelined_time(const gsp_rt_phase_t *ph, double blk, double S, const gsp_cost_t *c);

/* A fabric's trees (rt_fabric.c): the phase's data M crosses the fabric in T* = M / algbw, its
 * trees' exact algbw in the capacities' unit taken as GB/s (param[4] / param[5]) — not the
 * pairs of ranks as links, which a fabric's ranks are not. In S segments, one segment of an arc
 * in flight at a time (W = 1):
 *   w + (R - 1)(alpha + f w / S) + S alpha,
 * w = T* b(seg) / b(large), alpha and b the cost model's latency and time per byte of a segment's
 * message (one tree's share of a block, cut in S), f the share of the trees' edges whose sender
 * waits for the data (param[6] / param[7]: a relay forwards it as it arrives, a root has it all
 * from the start). Under SimGrid SMPI, dgx:8x2's 64 MiB allgather (two-level trees, f = 7/15;
 * bench/README.md) took, in 1, 2, 3, 4 segments, 367.5, 332.3, 337.8, 352.1 us with SMPI's
 * default factors (alpha 23.3 us: 11.6 latencies of a two-link route), fitted by
 * 219.7 + 122 / S + 25.8 S; with its factors at 1 (alpha 2 us) 257.5 us in 2, 233.2 in 4, 231.5
 * in 6.
 * Deeper trees whose shares are all equal (the shallow trees of multiplicative weights,
 * fabric_mwu.c: hundreds of trees, each root's parts on many) fill once, not once a level:
 *   w + (R - 1) alpha + f w / S + S alpha.
 * While one tree's relay waits for its first segment, its arcs carry other trees' segments at
 * other levels, and the link's max-min share gives every tree of equal share the rate its
 * load was planned at. mi250:2's 12-deep trees, 64 MiB allgather with SMPI's factors at 1
 * (alpha 2 us): 285.0 us in 2 segments, 261.2 in 4, 243.9 in 8, fitted by 237 + 96 / S (the
 * relays' share f = 0.8 of w = 217.6 is 174: a fill a level would be eleven times that),
 * 241.9 in the 10 this chooses. A broadcast's trees (one root: param[1] 0), though of one share
 * (rt_fabric.c), drain once a level: they all leave the root, whose links are the binding cut and
 * busy to the end, so its last segments cross every level after it; they take the first form.
 * mi250:2's 64 MiB broadcast (12 deep, a tree per part) with SMPI's factors at 1: 421.2 us in the
 * 11 segments the one fill chose, 380.8 in 32 (the first form: 374 without its S alpha).
 * Trees of unequal shares that deep keep 2 segments (the optimal
 * packing, 23 deep on mi250:2: 368 us in 9): the link shares every message alike, so a tree
 * of many parts moves slower than its plan and its levels' fills add up. */
/* A fabric phase's parts (blocks of blk bytes: blk is one part) over all roots, and per tree. */
static double fabric_parts(const gsp_rt_phase_t *ph) {
    double n = 0;
    for (int64_t i = 0; i < ph->param[0]; i++) n += (double)ph->tround[3 * i + 1];
    return n;
}
/* The parts of a fabric phase's largest tree: its message (blk bytes a part) is the largest, the
 * one whose latency and bandwidth by size the pipeline waits for (dgx:8x2's broadcast trees
 * carry 4-40 parts each: cut by the mean tree, its 1 MiB broadcast's messages looked below
 * SMPI's 64 KiB rendezvous in 2 segments while its largest tree's paid 11.6 latencies a level:
 * 82.1 us, and 40.5 in the 4 segments the largest tree's size leads to). */
static double fabric_mult(const gsp_rt_phase_t *ph) {
    double m = 1;
    for (int64_t i = 0; i < ph->param[0]; i++)
        if ((double)ph->tround[3 * i + 1] > m) m = (double)ph->tround[3 * i + 1];
    return m;
}

/* Whether every tree carries the same share (multiplicity). */
static bool fabric_equal(const gsp_rt_phase_t *ph) {
    for (int64_t i = 1; i < ph->param[0]; i++)
        if (ph->tround[3 * i + 1] != ph->tround[1]) return false;
    return true;
}

/* Whether the engine runs reduce phase ph cross first (src/mpi/mpi_engine.c): a reduce-scatter's
 * in-trees more than GSP__RT_FILL_LEVELS deep that take turns (the ring trees), every lane's sums
 * with a NIC still to cross before the others, streamed: the allgather backwards, and predicted
 * as it is (fabric_streams; one fill, not one a level). */
static bool cross_first(const gsp_rt_phase_t *ph) {
    return ph->kind == GSP_RT_REDUCE && ph->turn_of && ph->levels > GSP__RT_FILL_LEVELS && ph->param[1] > 0;
}

/* Whether the MPI engine streams a fabric phase's messages in chunks of the cost model's cheapest
 * band (src/mpi/mpi_engine.c: the chunked streams, their deep drain and deep fill), its segment's
 * message seg bytes (the largest tree's): a store or reduce phase on trees more than
 * GSP__RT_FILL_LEVELS deep, whose message moves its bytes
 * GSP_COST_CHUNK_GAIN dearer than the band and cuts into 2 to GSP_COST_CHUNK_MAX chunks of the
 * band, as the engine's chunks_of cuts it. *al: a chunk's latency, *beta its time per byte. (The engine's
 * streams on slow routes need one slow beside the band, a NIC; the deep drain and fill stream on
 * every route, a box of fast links alone too: mi250:1.) */
static bool fabric_streams(const gsp_rt_phase_t *ph, double seg, const gsp_cost_t *c, double *al, double *beta) {
    int64_t lo, hi;
    if ((ph->kind != GSP_RT_STORE && ph->kind != GSP_RT_REDUCE) || ph->levels <= GSP__RT_FILL_LEVELS || ph->param[1] <= 0 || !gsp_cost_band(c, &lo, &hi, beta)) return false;
    double k = ceil(seg / (double)(hi - 1));
    if (gsp_cost_beta(c, seg) < GSP_COST_CHUNK_GAIN * *beta || k < 2 || k > GSP_COST_CHUNK_MAX || seg / k < (double)lo) return false;
    *al = gsp_cost_alpha(c, (double)(hi - 1));
    return true;
}

bool gsp_rt_stream_window(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c, int64_t *window, int64_t *chunk) {
    int64_t lo, hi;
    double beta;
    *window = *chunk = 0;
    if (!ph->streams || !ph->pipelined || ph->nblocks <= 0 || ph->param[4] <= 0 || ph->param[5] <= 0 || c->shared || c->segment > 0 ||
        !gsp_cost_band(c, &lo, &hi, &beta) || hi < 2)
        return false;
    double rate = (double)ph->param[4] * 1e9 / ((double)ph->param[5] * (double)ph->nblocks), k = (double)(hi - 1);
    double w = ceil(rate * gsp_cost_alpha(c, k) / k);
    if (w < GSP_RT_STREAM_WINDOW_MIN || blk < GSP_RT_STREAM_BLOCK_WINDOWS * w * k) return false;
    *window = (int64_t)w;
    *chunk = hi - 1;
    return true;
}

/* A streamed broadcast phase that streams (gsp_rt_stream_window): its trees' load at the band's
 * rate, and a chunk's latency per level, which a relay passing each chunk on as it arrives pays
 * once however many chunks follow. Under SimGrid SMPI's defaults, mi250:1 (13 levels), measured
 * against this: 64 MiB 280 us against 250, 16 MiB 113.4 against 105, 4 MiB 70.4 against 69. */
static double stream_time(const gsp_rt_phase_t *ph, double M, const gsp_cost_t *c, int64_t chunk) {
    int64_t lo, hi;
    double sb, big = gsp_cost_beta(c, 1e18), w = M * (double)ph->param[5] / ((double)ph->param[4] * 1e9);
    if (gsp_cost_band(c, &lo, &hi, &sb) && big > 0) w *= sb / big;
    return w + (double)ph->levels * gsp_cost_alpha(c, (double)chunk);
}

static double fabric_time(const gsp_rt_phase_t *ph, double M, double blk, double S, const gsp_cost_t *c, bool drain, bool whole) {
    double w = M * (double)ph->param[5] / ((double)ph->param[4] * 1e9), R = (double)ph->levels;
    double f = ph->param[7] > 0 ? (double)ph->param[6] / (double)ph->param[7] : 1;
    double seg = ceil(blk * fabric_mult(ph) / S) * 1.01, al = gsp_cost_alpha(c, seg), big = gsp_cost_beta(c, 1e18), sb;
    /* Streamed, every message pays a chunk's latency and moves at the band's rate. */
    if (!(whole && !cross_first(ph) && ph->kind == GSP_RT_REDUCE) && fabric_streams(ph, ceil(blk * fabric_mult(ph) / S), c, &al, &sb)) {
        if (big > 0) w *= sb / big;
        /* Cross first, streamed: the allgather backwards, one fill. */
        if (cross_first(ph)) drain = false;
    } else if (big > 0)
        w *= gsp_cost_beta(c, seg) / big;
    if (R > GSP__RT_FILL_LEVELS && fabric_equal(ph) && ph->param[1] > 0 && !drain) return w + (R - 1) * al + f * w / S + S * al;
    return w + (R - 1) * (al + f * w / S) + S * al;
}

static double pipelined_time(const gsp_rt_phase_t *ph, double blk, double S, const gsp_cost_t *c) {
    /* A segment's alpha and beta are those 1 % above its size: costs by size come in bands
     * whose edges a table gives only roughly, and a segment just below an edge may pay the next
     * band (SimGrid SMPI, 8x8 torus, 4 MiB multitree broadcast: segments of 9368 bytes,
     * 8 below the table's 9376, took 369.9 us, of 9280 bytes 233.1). */
    double seg = ceil(blk / S) * 1.01;
    double R = (double)(ph->levels > 0 ? ph->levels : ph->nrounds), w = round_work_seg(ph, blk, seg, c), al = gsp_cost_alpha(c, seg);
    double W = ph->levels > 0 ? 1 : GSP_RT_PIPE_WINDOW;
    return R > 0 ? (R - 1) * (al + fmin(W, S) * w / S) + fmax(1, S / W) * al + w : 0;
}

/* The segment count whose fabric_time is least (the first on ties). */
static double fabric_segments(const gsp_rt_phase_t *ph, double M, double blk, const gsp_cost_t *c, bool drain, bool whole) {
    double s = 1, bt = fabric_time(ph, M, blk, 1, c, drain, whole);
    for (double k = 2; k <= GSP_RT_MAX_SEGMENTS && k <= blk; k++) {
        double t = fabric_time(ph, M, blk, k, c, drain, whole);
        if (t < bt * (1 - 1e-9)) s = k, bt = t;
    }
    return s;
}

int64_t gsp_rt_segments(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c) {
    if (!ph->pipelined || blk <= 0) return 1;
    double s, band_beta;
    int64_t lo, hi, win, chunk;
    if (c->segment > 0) s = ceil(blk / (double)c->segment);
    /* A streamed broadcast's few wide trees where a cost model with a band has them too short to
     * stream (gsp_rt_stream_window): whole, a level each. They exist to stream: below, a tree per
     * part does better, and so predicted they are not chosen there. mi250:2 (16 trees of a NIC,
     * 9 deep) under SimGrid SMPI's defaults at 1 MiB: 48.7 us in the segments of deeper trees,
     * against 38.9 on the 256 trees of one part (bench/README.md, session 50). */
    else if (ph->streams && !c->shared && gsp_cost_band(c, &lo, &hi, &band_beta) && !gsp_rt_stream_window(ph, blk, c, &win, &chunk)) s = 1;
    /* A fabric's trees (levels set) pipeline already: each tree's parts go on as they arrive,
     * and the parts of a block are many. Two segments, sent one after the other on each arc
     * (mpi_engine.c), let a tree's next level start halfway; more only multiply the messages,
     * each paying its latency: under SMPI, dgx:8x2's 64 MiB allgather took 538 us whole, 486
     * in 2 segments, 505 in 3, 512 in 4 (bench/README.md). Trees one level deep (one box: stars)
     * have no relay to start early, and a second segment only pays a second latency on every
     * arc: dgx:8x1's 64 MiB allgather took 265.1 us in 2 segments, 241.8 whole. */
    else if (ph->levels == 1) s = 1;
    else if ((ph->levels <= GSP__RT_FILL_LEVELS || fabric_equal(ph)) && ph->param[4] > 0 && ph->param[5] > 0 && ph->param[7] > 0) {
        /* Trees two or three levels deep (boxes of GPUs: fabric_boxes.c; dgx:8x2's broadcast
         * trees): the count whose predicted time is least, which the measurements above follow
         * (2 with SMPI's factors, 6-7 at 1); the broadcast's 64 MiB took 753.6 us in 2, 648.3 in
         * 4, 640.6 in the model's choice. Deeper trees of equal shares likewise (fabric_time). */
        double M = blk * fabric_parts(ph);
        s = fabric_segments(ph, M, blk, c, false, true);
        /* A reduce-scatter's in-trees where segments pay (the one fill chose more than one):
         * a relay sends a segment's sum only once all its children's have arrived, so each level
         * waits for a segment, and the drain a level is the form (mi250:2's 64 MiB
         * reduce-scatter with SMPI's factors at 1: 306.0 us in the 10 segments of the one fill,
         * 279.8 in 20, 278.6 in 31; under its defaults 289.0 in 15, 291.4 in 20; at 1 MiB whole
         * (19.1 us) against 21.9 in the 4 the drain form alone would choose). */
        if (s > 1 && ph->kind == GSP_RT_REDUCE) s = fabric_segments(ph, M, blk, c, true, true);
        /* The deep fill (mpi_engine.c): in-trees more than GSP__RT_FILL_LEVELS deep stream their
         * messages where a message makes two chunks of the band or more. Where the count chosen
         * as if they went whole leaves them unstreamed, the count chosen streamed, if it streams:
         * there a lane goes on as chunks, several in flight, where whole it waits for the lane
         * before. Not always, because the streamed form's count is not always the better one:
         * SimGrid SMPI's defaults, mi250:1's reduce-scatter, 4 MiB in 10 lanes whole 48.6 us, in
         * the streamed form's 4 32.2; 64 MiB in 22 lanes (the whole form's, streamed) 217.0, in
         * the streamed form's 15 227.9 (in 32, 40, 48: 224.0, 226.3, 234.0). Not one lane,
         * which an allreduce's phases, fused, then run in: 1 MiB 45.2 -> 69.0 us. */
        double al, sb;
        if (s > 1 && ph->kind == GSP_RT_REDUCE && !cross_first(ph) && !fabric_streams(ph, ceil(blk * fabric_mult(ph) / s), c, &al, &sb)) {
            double s2 = fabric_segments(ph, M, blk, c, false, false);
            if (s2 > 1) s2 = fabric_segments(ph, M, blk, c, true, false);
            if (s2 > 1 && fabric_streams(ph, ceil(blk * fabric_mult(ph) / s2), c, &al, &sb)) s = s2;
        }
    } else if (ph->levels > 0) s = 2;
    else {
        /* The count whose predicted time is least (the first on ties), every count: with costs
         * by message size a segment's size also decides its protocol, and the best size may
         * sit in a narrow band (SimGrid's 5776-9375 bytes: the multitree broadcast of 4 MiB on
         * the 6-cube took 144.8 us in 81 segments of 9000 bytes, 200.3 in 4096-byte ones). */
        double bt = pipelined_time(ph, blk, 1, c);
        s = 1;
        for (double k = 2; k <= GSP_RT_MAX_SEGMENTS && k <= blk; k++) {
            double t = pipelined_time(ph, blk, k, c);
            if (t < bt * (1 - 1e-9)) s = k, bt = t;
        }
    }
    if (s > GSP_RT_MAX_SEGMENTS) s = GSP_RT_MAX_SEGMENTS;
    if (s > blk) s = floor(blk);
    return s < 1 ? 1 : (int64_t)s;
}

/* A non-pipelined phase's rounds on blocks of blk bytes in k lanes, without the combining. */
static double lanes_time(const gsp_rt_phase_t *ph, double blk, double k, const gsp_cost_t *c) {
    double t = 0;
    for (int64_t r = 0; r < ph->nrounds; r++) {
        double m = (double)ph->maxblk[r] * blk, msg = m / k;
        t += gsp_cost_alpha(c, msg) + gsp_cost_beta(c, msg) * m + c->overhead * (k * (double)(ph->maxmsg[r] > 1 ? ph->maxmsg[r] : 1) - 1);
    }
    return t;
}

int64_t gsp_rt_lanes(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c) {
    if (ph->pipelined || blk <= 0) return 1;
    if (c->segment > 0) return (int64_t)fmax(1, fmin(GSP_RT_MAX_LANES, ceil(blk / (double)c->segment)));
    if (c->shared || ph->routed || c->nalpha == 0) return 1;
    int64_t best = 1;
    double bt = lanes_time(ph, blk, 1, c);
    for (int64_t k = 2; k <= GSP_RT_AUTO_LANES && (double)k <= blk; k *= 2) {
        double t = lanes_time(ph, blk, (double)k, c);
        if (t < bt * (1 - 1e-9)) best = k, bt = t;
    }
    return best;
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
        if (ph->pipelined && ph->levels > 0 && ph->param[4] > 0 && ph->param[5] > 0 && !c->shared) {
            double M = ph->layout == GSP_RT_RANK ? (double)bytes * (double)nodes : vec;
            double S = (double)gsp_rt_segments(ph, blk, c);
            bool drain = S > 1 && ph->kind == GSP_RT_REDUCE;
            /* An allreduce's two phases on one forest run at once in the allgather's segments
             * (mpi_coll.c): its reduce-scatter is predicted in them, as before the drain rule. */
            const gsp_rt_phase_t *nx = k + 1 < a->nphases ? &a->phase[k + 1] : NULL;
            if (a->coll == GSP_COLL_ALLREDUCE && ph->kind == GSP_RT_REDUCE && nx && nx->kind == GSP_RT_STORE && nx->pipelined && nx->levels > 0 &&
                nx->layout == ph->layout && nx->parts == ph->parts && nx->nblocks == ph->nblocks)
                S = (double)gsp_rt_segments(nx, blk, c), drain = false;
            int64_t win, chunk;
            if (gsp_rt_stream_window(ph, blk, c, &win, &chunk)) p->seconds += stream_time(ph, M, c, chunk);
            else p->seconds += fabric_time(ph, M, blk, S, c, drain, false);
            continue;
        }
        if (ph->pipelined) {
            /* S segments stream through R levels: the busiest arc's whole load once, plus
             * one segment's latency and transfer per further level (latencies overlap). */
            double S = (double)gsp_rt_segments(ph, blk, c);
            p->seconds += pipelined_time(ph, blk, S, c);
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
                p->seconds += gsp_cost_alpha(c, blk) + last + extra;
            } else {
                /* The runtime sends each block in gsp_rt_lanes lanes: the latency and the
                 * per-byte cost are those of the lanes' messages. */
                double lanes = (double)gsp_rt_lanes(ph, blk, c);
                double msg = (double)ph->maxblk[r] * blk / lanes;
                p->seconds += gsp_cost_alpha(c, msg) + gsp_cost_beta(c, msg) * (double)ph->maxblk[r] * blk + extra +
                              c->overhead * (lanes - 1) * (double)(ph->maxmsg[r] > 1 ? ph->maxmsg[r] : 1);
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

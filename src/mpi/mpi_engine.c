/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_engine.c — the one execution engine: runs a phase of this rank's program (store or reduce,
 * whole blocks, parts, lanes of segments, pipelined trees, exchanges). Each rank extracts its
 * messages from its program: per round, one message per peer listing the blocks it carries.
 * Execution is dataflow: all receives of a phase are posted at once (straight into the user's
 * buffer when a message is one block of a gathered result), and each send is issued as soon as
 * the receives it depends on have completed, so latency overlaps transfers. Received messages
 * are processed strictly in schedule order, so every block's reduction order is fixed by the
 * schedule and every rank ends with the same bits. Buffers and requests grow once and are
 * reused by every call. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/fabric.h"
#include "mpi_rt_int.h"

/* After an error with messages in flight: receives are cancelled, sends left to complete, and
 * every request released, so no stale message of this call waits in the duplicate. */
static void abandon(MPI_Request *req, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (req[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&req[i]);
            MPI_Request_free(&req[i]);
        }
}

/* ---- buffers ---- */

gsp_err_t gsp__mpi_reserve(void **p, size_t *cap, size_t need) {
    if (need <= *cap) return GSP_OK;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need) nc *= 2;
    void *q = gsp_realloc(*p, nc);
    if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory for %zu bytes of message buffers", need);
    *p = q;
    *cap = nc;
    return GSP_OK;
}


static int64_t msg_bytes(const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, const lay_t *l, const dtinfo_t *d, MPI_Comm comm) {
    int64_t b = 0;
    for (int64_t i = 0; i < x->n; i++) {
        int64_t len = blk_len(l, p->items[x->first + i]);
        if (d->plain) b += len * d->size;
        else {
            int ps = 0;
            MPI_Pack_size((int)len, d->dt, comm, &ps);
            b += ps;
        }
    }
    return b;
}

/* A message goes straight from or to the buffer when it is one block and (receives) the block
 * is stored, not combined. */
static inline bool direct(const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, bool recv) {
    /* An exchange phase combines into the very block it sent a round before: its sends are
     * copied out, so the buffer may change while they fly. */
    return x->n == 1 && (recv ? p->kind == GSP_RT_STORE : !p->exchange);
}

/* Where a send reads block b: the caller's send buffer for this rank's own allgather block (so
 * the local copy can wait until the messages are out), else the working buffer. */
static inline char *src_at(const gsp_mpi_ctx_t *c, void *base, const lay_t *l, int64_t b, const dtinfo_t *d) {
    if (c->mine && l->layout == GSP_RT_RANK && b / l->parts == c->rank)
        return (char *)((uintptr_t)c->mine + (uintptr_t)((blk_first(l, b) - base_first(l, c->rank)) * (int64_t)d->ext));
    if (is_fresh(c, l, b)) return at((void *)(uintptr_t)c->in, blk_first(l, b), d);
    return at(base, blk_first(l, b), d);
}

/* Tags keep phases and lanes apart; rounds wrap, which is safe because one lane's messages
 * between two ranks are sent and received in round order (MPI does not overtake). */
static int tag_of(const gsp_mpi_ctx_t *c, int phase, int lane, int32_t round) {
    if (c->tag_wide) return ((phase & 1) << 28) | ((lane & 255) << 20) | (round & 0xfffff);
    return ((phase & 1) << 14) | ((lane & 255) << 6) | (round & 0x3f);
}

/* Whether block b of lane l is still the input's value, and from now on not: its first
 * contribution is being combined with the input (absorb, chain_sum). */
static bool take_fresh(gsp_mpi_ctx_t *c, const lay_t *l, int64_t b) {
    if (!is_fresh(c, l, b)) return false;
    c->fresh[(size_t)l->lane * (size_t)nblk(l) + (size_t)(l->layout == GSP_RT_WHOLE ? 0 : b)] = 0;
    return true;
}

/* Sums len elements at src into the working buffer at element `first`; from_in: the block's
 * first contribution, combined with the caller's input instead of the buffer (no copy of the
 * input first). One helper for absorb's whole receives and chain_sum's ranges of them, so the
 * two sum alike. */
static gsp_err_t sum_into(const gsp_mpi_ctx_t *c, void *base, int64_t first, const void *src, int64_t len, bool from_in, const dtinfo_t *d,
                          MPI_Op op) {
    if (from_in) return gsp_mpi_reduce_local3(src, at((void *)(uintptr_t)c->in, first, d), at(base, first, d), (int)len, d->dt, op);
    return gsp_mpi_reduce_local(src, at(base, first, d), (int)len, d->dt, op);
}

/* Processes lane j's received messages [b, e) in schedule order: unpack or combine. */
static gsp_err_t absorb(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int64_t b, int64_t e, const size_t *soff, void *base, const lay_t *l,
                        const dtinfo_t *d, MPI_Op op) {
    gsp_err_t err;
    for (int64_t q = b; q < e; q++) {
        const gsp_rt_msg_t *x = &p->recv[q];
        if (direct(p, x, true)) continue;
        char *src = c->stage + soff[q];
        int pos = 0, bytes = d->plain ? 0 : (int)msg_bytes(p, x, l, d, c->comm); /* for MPI_Unpack */
        for (int64_t i = 0; i < x->n; i++) {
            int64_t blk = p->items[x->first + i], len = blk_len(l, blk);
            char *dst = at(base, blk_first(l, blk), d);
            if (p->kind == GSP_RT_REDUCE) {
                /* Reduce phases run on plain types only (checked by the callers). */
                if ((err = sum_into(c, base, blk_first(l, blk), src + pos, len, take_fresh(c, l, blk), d, op))) return err;
                pos += (int)(len * d->size);
            } else if (d->plain) {
                memcpy(dst, src + pos, (size_t)(len * d->size));
                pos += (int)(len * d->size);
            } else
                MPI_Unpack(src, bytes, &pos, dst, (int)len, d->dt, c->comm);
        }
    }
    return GSP_OK;
}

/* Staging offsets, lane by lane (c->soff[j * per + q]: receive q, then send q at nR + q):
 * receives that are combined or hold several blocks, then packed sends. *total [out]: bytes. */
static gsp_err_t stage_offsets_at(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const lay_t *l0, const dtinfo_t *d, size_t *soff, size_t start,
                                  size_t *total_out) {
    int K = l0->lanes;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS;
    size_t total = start;
    for (int j = 0; j < K; j++) {
        lay_t l = *l0;
        l.lane = j;
        size_t *so = soff + (size_t)j * (size_t)per;
        for (int64_t q = 0; q < nR; q++) {
            so[q] = total;
            if (!direct(p, &p->recv[q], true)) total += (size_t)msg_bytes(p, &p->recv[q], &l, d, c->comm);
        }
        for (int64_t q = 0; q < nS; q++) {
            so[nR + q] = total;
            if (!direct(p, &p->send[q], false)) {
                int64_t b = msg_bytes(p, &p->send[q], &l, d, c->comm);
                if (b > INT_MAX) return gsp_error(GSP_ERR_TOOBIG, "a message of %lld bytes is more than MPI's int count", (long long)b);
                total += (size_t)b;
            }
        }
    }
    *total_out = total;
    return GSP_OK;
}

static gsp_err_t stage_offsets(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const lay_t *l0, const dtinfo_t *d, size_t *total_out) {
    return stage_offsets_at(c, p, l0, d, c->soff, 0, total_out);
}

/* The staging area for a phase's lanes, and (reduce phases with a separate input) every
 * block of every lane marked "fresh": still the input's value. */
static gsp_err_t stage_and_fresh(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const lay_t *l0, const dtinfo_t *d) {
    gsp_err_t err;
    size_t total = 0, K = (size_t)l0->lanes;
    if ((err = stage_offsets(c, p, l0, d, &total))) return err;
    if ((err = gsp__mpi_reserve((void **)&c->stage, &c->stage_cap, total + 1))) return err;
    if (c->in) {
        if ((err = gsp__mpi_reserve((void **)&c->fresh, &c->fresh_cap, K * (size_t)nblk(l0) + 1))) return err;
        memset(c->fresh, 1, K * (size_t)nblk(l0));
    }
    return GSP_OK;
}

/* Packs send x's blocks of lane l->lane into dst (cap bytes): their bytes one after the other
 * (a plain type), else MPI_Pack'ed. Returns the bytes written. */
static int pack_msg(const gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, void *base, const lay_t *l, const dtinfo_t *d,
                    char *dst, int cap) {
    int pos = 0;
    for (int64_t i = 0; i < x->n; i++) {
        int64_t blk = p->items[x->first + i], len = blk_len(l, blk);
        if (d->plain) {
            memcpy(dst + pos, src_at(c, base, l, blk, d), (size_t)(len * d->size));
            pos += (int)(len * d->size);
        } else
            MPI_Pack(src_at(c, base, l, blk, d), (int)len, d->dt, dst, cap, &pos, c->comm);
    }
    return pos;
}

/* Issues send q of lane l->lane: one block straight from its buffer, or several packed into
 * the lane's staging area (so: the lane's offsets). */
static gsp_err_t issue_send(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, int64_t q, void *base, const lay_t *l, const dtinfo_t *d,
                            const size_t *so, MPI_Request *req, bool sync) {
    const gsp_rt_msg_t *x = &p->send[q];
    int64_t b0 = p->items[x->first];
    int tag = tag_of(c, phase, l->lane, x->round), rc;
    /* sync: synchronous, so that completion means delivered (a window waits for it; an eager
     * send completes as soon as it is copied, while its data is still on the link). A pipelined
     * phase's sends always: its windows, turns and gate count completions as deliveries, packed
     * messages as much as single blocks (a fabric's trees pack a tree's parts: under SMPI every
     * packed message below 64 KiB completed at once, and all of a phase's lanes left together). */
    sync = sync || p->pipelined;
    if (direct(p, x, false) && sync)
        rc = MPI_Issend(src_at(c, base, l, b0, d), (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else if (direct(p, x, false)) rc = MPI_Isend(src_at(c, base, l, b0, d), (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else {
        char *dst = c->stage + so[p->nrecv + q];
        int pos = pack_msg(c, p, x, base, l, d, dst, (int)msg_bytes(p, x, l, d, c->comm));
        /* One block of a plain type (an exchange phase's copy) goes as that type: the receiver
         * posts it so. */
        if (x->n == 1 && d->plain) rc = (sync ? MPI_Issend : MPI_Isend)(dst, (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
        else rc = (sync ? MPI_Issend : MPI_Isend)(dst, pos, MPI_PACKED, x->peer, tag, c->comm, req);
    }
    return rc == MPI_SUCCESS ? GSP_OK : gsp__mpi_fail(c, rc, "MPI_Isend");
}

/* Posts receive q of lane l->lane into the buffer (one stored block) or the staging area. */
static gsp_err_t post_recv(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, int64_t q, void *base, const lay_t *l, const dtinfo_t *d,
                           const size_t *so, MPI_Request *req) {
    const gsp_rt_msg_t *x = &p->recv[q];
    int64_t b0 = p->items[x->first];
    int tag = tag_of(c, phase, l->lane, x->round), rc;
    if (direct(p, x, true)) rc = MPI_Irecv(at(base, blk_first(l, b0), d), (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else if (p->kind == GSP_RT_REDUCE && x->n == 1) rc = MPI_Irecv(c->stage + so[q], (int)blk_len(l, b0), d->dt, x->peer, tag, c->comm, req);
    else rc = MPI_Irecv(c->stage + so[q], (int)msg_bytes(p, x, l, d, c->comm), MPI_PACKED, x->peer, tag, c->comm, req);
    return rc == MPI_SUCCESS ? GSP_OK : gsp__mpi_fail(c, rc, "MPI_Irecv");
}


typedef struct {
    gsp_mpi_ctx_t *c;
    const gsp_rt_prog_t *p;
    int phase;
    void *base;
    const lay_t *l0;
    const dtinfo_t *d;
    int window;
    int *rstate, *sstate;
    MPI_Request *sq;
    int64_t issued;
    const size_t *soff; /* the phase's staging offsets (c->soff, or its part of it when fused) */
    /* Fused (run_fused), the allgather's side: its sends read the working buffer only (not the
     * reduce-scatter's input), and a send with no receive before it (a root's) waits until
     * every block it carries is summed: last0[b] the reduce-scatter's last receive of block b
     * here (-1: none), rstate0 that phase's receive states, nR0 its receives per lane. */
    bool noin;
    const int64_t *last0;
    const int *rstate0;
    int64_t nR0;
    /* Turns (gsp_rt_prog_t: turn): per lane, the FEEDS sends not yet completed; NULL: none. */
    int64_t *feeds;
    /* The gate (lay_t: gate): per key (a send's level + its lane), the sends not yet completed;
     * lo the least key with one; a send goes only while its key is at most lo + GATE_AHEAD.
     * NULL: none. */
    int64_t *gcnt;
    int64_t glo, gkeys;
    /* Chunked streams (below): NULL cs when none. */
    struct chunks *cs;
    /* Cross first (lay_t: cross): per send its arc (the first send to its peer); per arc (at its
     * first send) the FEEDS sends of every lane on it not yet issued, and how few of them left
     * let its ENDS sends go (CROSS_ENDS_LEFT); with the reduce cut-through, whether this rank's
     * first chunk over a slow route is in, which lets them go instead (the ENDS window: ends_rule). */
    bool cross, ends_go;
    int64_t *cross_arc, *cross_left, *cross_at;
    MPI_Op op; /* a reduce phase's (the reduce cut-through sums as chunks arrive) */
} pipe_t;

/* ---- chunked streams ----
 * A message whose size the cost model moves at a worse rate per byte than a smaller size band
 * (SimGrid SMPI's defaults: 0.94 of a link from 64 KiB on, after 11.6 latencies, but 1.087 at
 * 5776-9375 bytes after 2.19), on a route slow enough that a few chunks in flight cover a
 * chunk's latency (a NIC, not an NVLink), goes as a stream of chunks of that band, several
 * in flight per arc and issued in order across its lanes; the receiver absorbs the message once
 * every chunk of it has arrived. The lanes' messages then no longer cross the NIC together and
 * late: dgx:8x2's 64 MiB allgather under SMPI's defaults had its relays' first NIC lane arrive at
 * 130-138 us of 285 (three lanes of 8 trees, all in flight, shared alike: a trace), and 24
 * messages in flight, equal, end together and pay their next latencies with the NIC idle. Chunked
 * (a trace of the first version), the first lane arrived at 76 us, and the NIC had messages
 * moving throughout. A chunk stream in
 * fewer in flight idles: a single pair under SMPI's defaults, 600 chunks of 8300 bytes, 4 in
 * flight 840 us, 8 512, 16 350, 32 267, all 188 (bench/README.md). A rank's streams share its slow
 * link (a GPU's NIC): together about CHUNK_IN_FLIGHT chunks in flight, each stream at least
 * CHUNK_WINDOW_MIN and at most CHUNK_WINDOW_MAX. dgx:8x2's 64 MiB allgather (16 streams a rank),
 * 4 / 6 / 8 / 12 / 16 a stream: 274.7 / 250.6 / 244.0 / 252.9 / 249.7 us; dgx:8x4's (3 streams a
 * rank), 8 / 16 / 32 / 43 / 64: 425.5 / 353.2 / 343.8 / 351.2 / 351.8 (415.2 unchunked). */
#define CHUNK_IN_FLIGHT 128
#define CHUNK_WINDOW_MIN 8
#define CHUNK_WINDOW_MAX 64
/* A route is slow where this many chunks in flight carry a chunk's latency at its capacity. */
#define CHUNK_SLOW_ROUTE 16
/* The deep window: a store phase on deep trees (lay_t: deep) whose binding cut is slow links (the
 * NICs bind: mi250:4) keeps CHUNK_DEEP_WINDOW chunks in flight on each stream of a slow route, not
 * its share of CHUNK_IN_FLIGHT. There the receiver of a NIC's stream passes each lane on round its
 * box's ring only once all the lane's chunks are in, and the NIC, shared alike, moves all its
 * chunks in flight at once: mi250:4's ring trees give a GPU nine NIC streams (three rings to each
 * of three boxes), 15 chunks in flight each, so at 16 MiB every NIC held all the call's NIC chunks
 * from the start, every lane arrived with the last at 50 us, and the rings idled from 20 to 50 us
 * (a trace under SMPI's defaults). Four a stream (36 a NIC, about four times what a chunk's
 * latency carries at its rate): the lanes arrive in order and the rings relay them while the NICs
 * run, 105.0 -> 85.9 us (2 / 6 / 12 a stream: 103.9 / 88.3 / 105.0). Not where fast links bind
 * (mi250:2, its cut xGMI links): there the NICs' slack is what lets them keep up, and the 64 MiB
 * allgather took 219.0 -> 255.3 us with four on the NICs' streams, 304.9 with four on every
 * stream (the twin xGMI links want hundreds in flight). */
#define CHUNK_DEEP_WINDOW 4
/* ... and there the streams on the box's links that carry the box's own blocks (whose root is
 * reached without the slow route) keep CHUNK_DEEP_OWN_WINDOW chunks in flight, the others their
 * share of CHUNK_IN_FLIGHT (15 on mi250:4). Into every card's two GCDs the xGMI links must carry 56
 * of the 62 blocks they lack in 195.7 us at 64 MiB, where the NICs bring the other 6 in 196.6 (the
 * bound): neither has slack (docs/fabrics.md). The box's own blocks are ready from the start, the
 * relayed ones only as the NICs bring them; shared alike, the own blocks took the rings first and
 * the relayed ones queued behind them to the end, where the NICs' last chunks still had 8 hops to
 * go. Fewer own chunks in flight let the relayed ones through as they come. mi250:4's 64 MiB
 * allgather under SimGrid SMPI's defaults: 245.5 -> 236.0 us with 8 (1.25x -> 1.20x the bound);
 * at 16 MiB 84.4 (82.7 -> 87.7 with 4), 4 MiB and 1 MiB as before (bench/README.md, session 54). */
#define CHUNK_DEEP_OWN_WINDOW 8
/* ... but only once the NICs bring something: until this rank's first chunk over a slow route is
 * in, the rings have nothing else to carry, and 8 a stream left them half idle (a log of mi250:4's
 * 16 MiB allgather under SimGrid SMPI's defaults: a GCD's xGMI links delivered 140 GB/s for the
 * first 18 us, when the NICs' first chunks came in, and up to 320 after; 5 of its 15.7 MB still
 * came after the NICs' last chunk, at 54 us of 81). So the own streams keep their full window
 * until then (cs->nic_in): 16 MiB 84.4 -> 83.4 us, 64 MiB 236.0 -> 233.1 (1.20x -> 1.19x the
 * bound), 1 and 4 MiB as before (bench/README.md, sessions 56 and 57). */
/* The deep reduce window, its mirror: a reduce phase on such trees (lay_t: deep) whose binding
 * cut is slow links keeps CHUNK_DEEP_REDUCE_WINDOW chunks in flight on each stream of a fast
 * route (the rings' links inside a box, which carry the sums to the NICs), not the slow streams'
 * share of CHUNK_IN_FLIGHT. A relay sends a lane's sum only once the whole lane is in, and 15
 * chunks a stream put every lane of a ring's sums on its links at once, shared alike, so the
 * lanes arrived together and each hop of the ring waited for the last. mi250:4's 16 MiB
 * reduce-scatter under SimGrid SMPI's defaults: 140.3 -> 101.7 us (2 / 8 a stream: 125.3 /
 * 104.2; four on the NICs' streams as well, 107.9). */
#define CHUNK_DEEP_REDUCE_WINDOW 4
/* ... and each arc at most CHUNK_DEEP_ARC_CAP chunks of its fast streams together, the freed room
 * going to the stream whose next chunk is of the earliest lane (arc_next). Cross first sends the
 * sums bound for a NIC first, but among those every stream kept its four in flight, so a ring's
 * lane-0 sums shared each hop with every other stream's later lanes, the ring's first GCDs'
 * (whose sums need nothing from up the ring) among them, and the NICs started only once most of
 * the FEEDS traffic had moved: a log of mi250:4's 16 MiB reduce-scatter under SimGrid SMPI's
 * defaults had every GCD's first NIC send at 47.4 us of 100.2 (bench/README.md, session 53).
 * Capped, the earliest lanes go first and the NICs start sooner: 16 MiB, a cap of 16 / 32 / 40
 * / 48 / 56 / 64 chunks: 184.7 / 103.2 / 89.1 / 85.2 / 87.2 / 89.4 us (98.6 without; too few
 * starve the 200 GB/s twin links); 4 MiB 52.7 -> 44.9; at 64 MiB no gain (262.9 -> 264.6). Only
 * where the NICs bind (the deep reduce window's phases). */
#define CHUNK_DEEP_ARC_CAP 48
/* Where fast links bind instead (mi250:2: its twin xGMI links), such a reduce phase keeps
 * CHUNK_FAST_WINDOW on each fast stream: the NICs' share of 128 there is 43, so a ring's lanes
 * again crossed its links together, but the twin links need more than four in flight to keep
 * busy. mi250:2's 64 MiB reduce-scatter under SimGrid SMPI's defaults (cross first, its ENDS
 * sends early, the small head), 4 / 6 / 8 / 9 / 10 / 11 / 12 / 14 / 43 a stream: 225.5 / 224.9 /
 * 217.3 / 222.8 / 214.8 / 219.1 / 223.6 / 225.8 / 226.5 us (jagged: the order of events moves it
 * by about 4 %). One box (mi250:1, no NIC) keeps its 8. Not the allgather's store phase (the
 * deep drain): 64 MiB 208.0 -> 201.2 (8: 202.5), but 16 MiB 68.9 -> 71.3. */
#define CHUNK_FAST_WINDOW 10
/* The small head: in a reduce phase on deep trees (lay_t: deep), wherever the cut is, every
 * chunked message's first lane opens with one more chunk, its first a CHUNK_HEAD_SHRINK-th of the
 * others (chunk_at). A relay sums a chunk once its children's are in and only then sends it on,
 * so the ring's first sums cross its 8 hops at the pace of the first chunk's transfer on each: a
 * small one starts every hop sooner. Under SimGrid SMPI's defaults, mi250:4's reduce-scatter (the
 * NICs bind): 4 MiB 52.6 -> 51.0 us, 16 MiB 101.7 -> 98.6; since session 52 where the fast links
 * bind too: mi250:1's 4 MiB 32.2 -> 29.7, 16 MiB 67.5 -> 66.9, 64 MiB 217.0 -> 210.2; mi250:2's
 * 64 MiB (cross first, its ENDS sends early) 228.9 -> 226.5. Not a store phase (the allgather's
 * NIC streams, which pace its rings: 16 MiB 82.7 -> 84.2, 4 MiB 40.9 -> 41.7; a half or an eighth
 * at 4 MiB 42.8, 42.3). */
#define CHUNK_HEAD_SHRINK 4
/* Cut-through: in such a phase (the deep window's) a relay passes a block it receives in chunks
 * on chunk by chunk, each once it is in, instead of once the whole lane's message is. The last
 * lanes to cross the NICs go round their box's ring after them (mi250:4: 8 hops), a lane's
 * message a hop; chunk by chunk, a hop costs about a chunk. mi250:4's allgather under SimGrid
 * SMPI's defaults: 16 MiB 85.9 -> 82.7 us. */
/* The reduce cut-through: in a reduce phase of the deep reduce window (the NICs bind), a relay
 * sums each chunk of a block's receives as it arrives, in the receives' schedule order (the same
 * bits as summing them whole), and passes the sum on chunk by chunk as far as it is summed
 * (chain_sum). Whole, a lane's sum waited at every hop of the ring for the lane's last chunk. Two
 * rules go with it. A lane now counts as issued, for cross first, at its first chunk, so the
 * FEEDS lanes counted out early and let the arcs' ENDS sends in among them: the ENDS sends wait
 * for every FEEDS lane on their arc begun (cross_init; in CHUNK_ENDS_LANES lanes or more, the
 * ENDS window below instead). And a lane no longer costs each hop its
 * whole length, so the lanes may be longer: at most RCUT_LANE_CHUNKS of the band's largest chunks,
 * not CROSS_LANE_CHUNKS (mi250:4: at 16 MiB the cost model's 3 lanes, not 4; at 64 MiB 7, not
 * 13), fewer steps of the arcs' earliest-lane-first order. arc_next passes over a stream whose next
 * chunk is not summed yet, which held the arc's earliest-lane order up (16 MiB 102.1 us before,
 * 85.7 after). mi250:4's reduce-scatter under SimGrid SMPI's defaults (the session 53 rules
 * 4 MiB 44.9 us, 16 MiB 85.2, 64 MiB 264.6), cut through: 4 MiB 41.0, 16 MiB 78.8, 64 MiB 244.1
 * (1.35x -> 1.24x the bound); 1 MiB as before (28.1); its allreduce 4 MiB 85.8 -> 81.0. Cut through alone, the lanes and the ENDS
 * sends as before: 4 MiB 40.7, 16 MiB 85.7, 64 MiB 262.1; 16 MiB with the ENDS sends held 83.6,
 * lanes of 1 / 2 / 3 / 6 chunks 99.7 / 79.4 / 85.7 / 83.5 (2 with the ENDS held: 82.7); a cap of 96
 * 88.0, FEEDS lanes counted at their last chunk 84.0 (bench/README.md, session 55).
 * Tried first in session 40, before the deep reduce window and the arc cap, combined as it came
 * without the rules: 16 MiB 104.2 us against 101.7, 64 MiB 282.8 against 268.8. */
#define RCUT_LANE_CHUNKS 6
/* The ENDS window: with the reduce cut-through, cross first no longer holds an arc's ENDS sends
 * (the box's own sums, no NIC ahead of them) until every FEEDS lane on it has begun. Those lanes
 * begin as fast as the box's links carry them, not as the NICs drain them, so at 64 MiB (7
 * lanes) the ENDS sends, a quarter of what the xGMI links carry, went only late and crossed the
 * ring's 8 hops behind the FEEDS: a log of mi250:4's 64 MiB reduce-scatter under SimGrid SMPI's
 * defaults had every NIC done at 225 us and the call at 247.8, its last 22 us only the box's
 * links moving (bench/README.md, session 60). Now they go once this rank's first chunk over a
 * slow route is in (the NICs have started: the head, whose sums cross the ring first, is past),
 * with the deep reduce window's chunks in flight a stream, and an arc's room goes to them only after
 * every FEEDS stream's (arc_next): they fill what the FEEDS leave while the NICs set the pace.
 * mi250:4's reduce-scatter: 64 MiB 244.1 -> 237.8 us (1.24x -> 1.21x the bound), 16 MiB (3
 * lanes) 78.8 -> 76.0; in fewer lanes it lost (4 MiB 41.0 -> 42.9), hence CHUNK_ENDS_LANES.
 * Released from the start instead, 2 / 1 a stream: 16 MiB 82.3 / 90.7; released with a quarter
 * of the FEEDS lanes still to begin (CROSS_ENDS_LEFT), in lane order with them: 64 MiB 268.3.
 * They first had a window of their own, 3 a stream; 4, the deep reduce window's (session 62):
 * 64 MiB 237.8 -> 233.6 us (1.21x -> 1.19x), 16 MiB 75.96 -> 75.84; 2 a stream 16 MiB 78.6; 6 as
 * 4 (the deep reduce window caps every fast stream), so they keep no window of their own. */
#define CHUNK_ENDS_LANES 3
/* The drain: where a fast link leaves the fabric's allgather binding cut (dgx:8x2: a GPU's
 * NVLink and NIC; not dgx:8x4 or dgx:4x2, whose cut is a box's NICs), the fast links set the
 * phase's time, and its last lanes' messages pay a large message's latency on every hop after
 * the NICs' last chunks (11.6 latencies each under SMPI's defaults, against 2.19 for a chunk):
 * a store phase of every rank's blocks (lay_t: drain) streams its last DRAIN_LANES lanes in
 * chunks on every route. dgx:8x2's 64 MiB allgather under SMPI's defaults, the last 1 / 2 / 3
 * of its 5 lanes: 238.7 / 223.1 / 223.1 us (244.0 without); its allreduce 506.1 -> 485.3 (the
 * reduce-scatter's in-trees: 262.1 -> 275.4 with one, so none); the broadcast 390.3 -> 391.2
 * (its cut is a box's NICs). */
#define DRAIN_LANES 2
/* The wide drain: where the cut is a box's NICs but the box's links carry nearly as much (an
 * allgather's store phase in uneven_lanes' lanes, three boxes and more: on dgx:8x3 a GPU's NVSwitch
 * link must carry 21 of the 24 blocks at 300 GB/s in 195.7 us of the bound's 223.7 at 64 MiB, on
 * dgx:8x4 28 of 32 in 195.7 of 251.7), the lanes from a WIDE_DRAIN_FROM-th of them on stream on
 * every route. Whole, a lane's message over the box's links is 64 KiB or more and pays 11.6
 * latencies (23.3 us) under SMPI's defaults: 16 lanes, 4 in flight a stream put 4.9 MB in flight
 * on a GPU's link, a rate of 120 GB/s of its 300, and the relays' last lanes came 59 us after the
 * NICs' last chunk (a trace of dgx:8x3's 64 MiB allgather: the NICs busy to 220.8 us, the call
 * 279.7). In the band's chunks a message pays 2.19 latencies, and the streams' window keeps the
 * link busy. dgx:8x3's 64 MiB allgather under SimGrid SMPI's defaults, the last 2 / 4 / 8 / 10 /
 * 12 / 14 of its 16 lanes streamed: 281.3 / 273.6 / 259.5 / 260.4 / 242.5 / 242.5 us (279.7 whole,
 * 1.25x -> 1.08x the bound), 32 MiB 185.1 -> 133.4; dgx:8x4's 64 MiB 295.4 -> 270.4 (1.17x ->
 * 1.07x), 32 MiB 178.0 -> 153.3 (bench/README.md, session 57). */
#define WIDE_DRAIN_FROM 4
/* The deep drain: on trees more than GSP__MPI_DEEP_LEVELS deep (lay_t: deep) such a phase streams
 * every lane on every route, wherever the cut is. Each level's message there is a tree's share of
 * a block in a lane (mi250:2's ring trees, 9 deep: a third of a block, 64 KiB or more in the
 * cost model's lanes) and paid a large message's 11.6 latencies a level and lane; in the band's
 * chunks a level costs one chunk's 2.19, and the band moves bytes at 1.087 of a link. mi250:2's
 * 64 MiB allgather on its ring trees under SMPI's defaults, in 11 lanes: 318.9 -> 206.1 us (the
 * shallow trees, 12 deep, whose parts of 1/16 of a block are in the band already: 235.8 ->
 * 235.8); the cost model reads the same (rt_cost.c: fabric_streams), now takes the rings, in 6
 * lanes: 219.0 us, 1.16x the bound, where the shallow trees it chose took 235.8. */
/* The deep fill: a reduce phase on such trees streams every lane on every route too, as the deep
 * drain does a store phase's, whether or not it runs cross first (which streams them already:
 * mi250:2, mi250:4). Whole, a lane's partial sum crossed each of the ring's levels as one message
 * of 64 KiB or more, 11.6 latencies a level under SMPI's defaults, where no NIC's stream had
 * chunked it: the MI250 box alone (mi250:1, 16 GCDs on xGMI links), whose reduce-scatter took
 * 1.85x its bound at 64 MiB where the allgather, streamed, took 1.21x. Streamed, under SimGrid
 * SMPI's defaults: reduce-scatter 16 MiB 123.4 -> 67.5 us, 64 MiB 361.1 -> 217.0 (1.11x the
 * bound 195.7); allreduce 195.9 -> 142.1 and 618.7 -> 471.2 (1.20x); 1 and 4 MiB, whose lanes are
 * in the band already, unchanged. */
/* Uneven chunks: where the cut is slow links (dgx:8x4: a box's NICs), so that the NICs' streams
 * alone set an allgather's time, a store phase of every rank's blocks (lay_t: drain) cuts its
 * messages in chunks of two sizes in turn, UNEVEN_SHORT and UNEVEN_LONG parts of 2 UNEVEN_MEAN. A
 * network that shares a link alike ends equal chunks started together together: a stream's
 * window of equal chunks (a lane's, all ready at once on a root) completed at once and the next
 * window then paid its latency with the NIC idle, once a lane (a trace of dgx:8x4's 64 MiB
 * allgather under SMPI's defaults: each GPU's NIC issued 1.2 MB of chunks at 0, 40, 100, 140 and
 * 200 us and nothing between, and was done at 266 us of 351). Of two sizes, a window's chunks end
 * apart, and later ones overlap the earlier ones' successors' latency: dgx:8x4 allgather 351.2 ->
 * 330.9 us, allreduce 707.1 -> 687.2. Not a reduce phase in box_lanes' lanes (dgx:8x4's
 * reduce-scatter 358.6 -> 442.3, its allreduce's first phase alike; since the fill, 307.0 ->
 * 415.0), only in uneven_lanes' (lay_t: uneven), nor where the fast links set the time
 * (dgx:8x2's allgather, with the drain, 223.1 -> 234.2). A third size (16, 20, 24) changed
 * nothing (330.9). */
#define UNEVEN_SHORT 17
#define UNEVEN_LONG 23
#define UNEVEN_MEAN 20
/* The fill, the drain's mirror: a reduce-scatter's in-trees two levels deep (lay_t: fill) stream
 * every message a relay passes on (a leaf's part of a relay's sum, on the fast links), in every
 * lane: whole, a lane's such messages share the NVLink alike with everything else in flight and
 * arrive together late, so the relay's sum waits, and the NIC, which carries the sums, idles (a
 * trace of dgx:8x2's 64 MiB reduce-scatter under SMPI's defaults: its NICs active from 21.6 to
 * 254.1 us at 21 of their 25 GB/s, the first lane's sums waiting on messages of 64 KiB that pay
 * 23.3 us of latency). Streamed, the relays' parts arrive in lane order and the NICs start at 9.6
 * us (traced): 262.1 -> 230.5 us, 1.35x -> 1.19x the bound; the allreduce 485.3 -> 461.6. Where
 * the cut is slow links too (unlike the drain): dgx:8x4's reduce-scatter 358.6 -> 307.1 (1.42x ->
 * 1.22x). The messages into a tree's root stream too, in every lane but the first (the fill's
 * root streams): whole, each was 64 KiB or more on the box's links (a leaf's own part of its
 * box-mate's block, sent once its parts for the relays are) and paid a large message's 11.6
 * latencies, 23.3 us, where a chunk pays 2.19. Under SimGrid SMPI's defaults, reduce-scatter:
 * dgx:4x2 1 MiB 27.8 -> 19.1 us, 4 MiB 83.7 -> 38.0; dgx:8x3 16 MiB 114.0 -> 88.2; dgx:8x2 64 MiB
 * 230.5 -> 225.4; the allreduce at 16 MiB on dgx:8x3 242.5 -> 215.6, dgx:8x4 282.9 -> 270.4.
 * The first lane's stay whole: streamed in every lane, 64 MiB lost (dgx:4x2 380.0 -> 385.9,
 * dgx:8x3 289.2 -> 296.9), the NICs' sends then posted in batches of 30 to 40 chunks at one
 * instant that each paid its latency with the NIC idle (traced); streamed from the second lane,
 * 380.0 (bench/README.md, session 58). */

struct chunks {
    int64_t lo, hi;           /* the band: chunks of lo .. hi - 1 bytes */
    double beta;              /* its seconds per byte */
    int64_t *left, *total;    /* per send (lane-major): chunks not yet done, chunks */
    int64_t *rleft;           /* per receive (lane-major): chunks not yet arrived */
    int64_t *next_lane, *next_k; /* per send: the stream's next chunk */
    int64_t *slot;            /* per chunked send, window slots: lane * GSP_COST_CHUNK_MAX + chunk, -1 free */
    int64_t *sidx, *ridx;     /* per send / receive: its index among the chunked ones (-1: never chunked) */
    int64_t *rbase;           /* per chunked receive: its first request slot (ahead * its most chunks) */
    int64_t *rmax, *rlane;    /* per chunked receive: its most chunks; per (lane % ahead, receive): the lane */
    int64_t *sq_of, *rq_of;   /* per chunked send / receive: which it is */
    int64_t ns, nr;           /* chunked sends and receives */
    MPI_Request *rq, *sq;     /* their requests: receives' chunks, then sends' slots */
    int ahead, window;       /* receives posted lanes ahead; chunks in flight per stream */
    int drain;               /* lanes from this one on stream on every route (the drain); K: none */
    bool fill;               /* a relay's parts stream on every route (the fill) */
    bool uneven;             /* chunks of two sizes in turn (chunk_at) */
    int64_t nslow;           /* the slow routes' streams: the first nslow */
    int slow_window;         /* their chunks in flight (the deep window), at most window */
    int fast_window;         /* the other streams' (the deep reduce window), at most window */
    int64_t arc_cap;         /* the deep reduce window's chunks in flight on one arc, its fast streams' together (0: no cap) */
    int own_window;          /* the deep window's: chunks in flight on a fast stream of the box's own blocks (0: as the others) */
    int64_t *own;            /* per chunked send: 1 where it carries the box's own blocks (own_window) */
    bool nic_in;             /* a chunk over a slow route has come in (own_window applies from then on) */
    int64_t *arc_busy;       /* per peer: those in flight */
    /* Cut-through (below): per send, whether it passes on its receive's block chunk by chunk;
     * per receive its such sends (dep[dep_off[r] .. dep_off[r + 1])); per (lane, receive) the
     * chunks it was posted in (rtot, 0: whole) and how many of them from the first are in (rpre). */
    int64_t *cut_ok, *dep_off, *dep, *rtot, *rpre;
    /* ... in a reduce phase (rcut): per receive whether its block's receives are summed chunk by
     * chunk (csum); per (lane, receive) how many elements from the first are summed (spre), and
     * for a block's first receive whether it summed into the caller's input (sfresh). */
    bool rcut;
    int64_t *csum, *spre, *sfresh;
    bool head;               /* the small head (above): lane 0 opens with a small chunk */
    int64_t *swin;           /* a streamed broadcast's wide trees: per chunked send, its window */
    int ramp;                /* the ramp (ramp_at): lane 0's first chunks graded, 0: none */
};

/* Whether a route of w GB/s is slow for chunks of `chunk` bytes: CHUNK_SLOW_ROUTE of them in
 * flight carry one's latency at its capacity. */
static bool slow_route(const gsp_mpi_ctx_t *c, double w, double chunk) {
    return gsp_cost_alpha(&c->cost, chunk) * w * 1e9 / chunk <= CHUNK_SLOW_ROUTE;
}

/* Whether message x goes to a relay, which passes it on: its first block is not the receiver's
 * own (to: the receiver). The two ends compute the same. */
static inline bool passed_on(const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, const lay_t *l, int64_t to) {
    return p->items[x->first] / (l->parts > 1 ? l->parts : 1) != to;
}

/* The chunks a message of `bytes` of lane j between this rank and peer (in: from peer) goes in;
 * 1: whole. relay: the message is passed on (passed_on). Both ends compute the same (same sizes,
 * the same route, the same cost model). */
static int64_t chunks_of(const gsp_mpi_ctx_t *c, const struct chunks *cs, int64_t peer, bool in, int64_t bytes, int j, bool relay) {
    if (!cs || !c->width || gsp_cost_beta(&c->cost, (double)bytes) < GSP_COST_CHUNK_GAIN * cs->beta) return 1;
    double w = c->width[(in ? c->size : 0) + peer];
    /* Uneven, the mean chunk is smaller, so that the longer ones stay in the band. */
    int64_t most = cs->uneven ? (cs->hi - 1) * UNEVEN_MEAN / UNEVEN_LONG : cs->hi - 1;
    if (most < 1) most = 1;
    int64_t k = (bytes + most - 1) / most;
    if (w <= 0 || k < 2 || k > GSP_COST_CHUNK_MAX) return 1;
    if ((cs->uneven ? bytes * UNEVEN_SHORT / (k * UNEVEN_MEAN) : bytes / k) < cs->lo) return 1;
    if (j < cs->drain && !(relay && cs->fill) && !slow_route(c, w, (double)bytes / (double)k)) return 1;
    /* The ramp: its R graded chunks carry R / 2 of the others' (ramp_at). */
    if (cs->ramp && j == 0 && k + cs->ramp / 2 <= GSP_COST_CHUNK_MAX) return k + cs->ramp / 2;
    /* The small head: one more chunk, the first (chunk_at). */
    return cs->head && j == 0 && k + 1 <= GSP_COST_CHUNK_MAX ? k + 1 : k;
}

bool gsp__mpi_chunk_streams(const gsp_mpi_ctx_t *c, const lay_t *l, const dtinfo_t *d) {
    int64_t lo, hi;
    double beta, slowest = 0;
    if (!c->is_fabric || !d->plain || l->lanes < 1 || !gsp_cost_band(&c->cost, &lo, &hi, &beta)) return false;
    /* A lane of one rank's block: what one tree's message carries at most. */
    double piece = (double)whole_len(l, 0) * (double)l->parts * (double)d->size / l->lanes;
    if (piece < 2.0 * (double)lo || gsp_cost_beta(&c->cost, piece) < GSP_COST_CHUNK_GAIN * beta) return false;
    /* The fabric's slowest link: the routes that stream cross one. */
    const gsp_topo_t *t = &c->fabric;
    for (int64_t a = 0; a < t->off[t->n]; a++) {
        double w = t->cap ? (double)t->cap[a] / (double)t->cap_scale : 1.0;
        if (a == 0 || w < slowest) slowest = w;
    }
    return slowest > 0 && slow_route(c, slowest, (double)(hi - 1));
}

/* The routes' widths of this rank (c->width), once: the fabric's compute nodes are the ranks. */
static gsp_err_t widths(gsp_mpi_ctx_t *c) {
    if (c->width || !c->is_fabric) return GSP_OK;
    const gsp_topo_t *t = &c->fabric;
    int64_t n = t->n, me = -1, k = 0;
    double *w = NULL, *v = NULL;
    gsp_err_t err;
    for (int64_t x = 0; x < n && me < 0; x++)
        if (!(t->is_switch && t->is_switch[x]) && k++ == c->rank) me = x;
    if (me < 0) return gsp_error(GSP_ERR_INTERNAL, "rank %d is no compute node of the fabric", c->rank);
    if ((err = gsp_alloc_array((void **)&w, 3 * (int64_t)c->size, sizeof *w, true)) || (err = gsp_alloc_array((void **)&v, n, sizeof *v, false)))
        goto out;
    /* w[2 size + r]: 1 where a link joins this rank's node to rank r's (no switch between). */
    for (int64_t x = 0, r = 0; x < n; x++) {
        if (t->is_switch && t->is_switch[x]) continue;
        for (int64_t a = t->off[me]; a < t->off[me + 1]; a++)
            if (t->adj[a] == x) w[2 * (int64_t)c->size + r] = 1;
        r++;
    }
    for (int side = 0; side < 2 && !err; side++) {
        if ((err = gsp_fabric_route_width(t, me, side == 1, v))) break;
        k = 0;
        for (int64_t x = 0; x < n; x++)
            if (!(t->is_switch && t->is_switch[x])) w[side * c->size + k++] = v[x];
    }
    /* The allgather's binding cut S (the same on every rank) and its widest leaving arc. */
    gsp_optimum_t o;
    if (!err && gsp_optimum(t, GSP_COLL_ALLGATHER, -1, &o) == GSP_OK) { /* else no drain */
        memset(v, 0, (size_t)n * sizeof *v);
        c->cut_widest = 0;
        c->cut_compute = 0;
        for (int64_t i = 0; i < o.cut_len; i++) {
            v[o.cut[i]] = 1;
            if (!(t->is_switch && t->is_switch[o.cut[i]])) c->cut_compute++;
        }
        for (int64_t x = 0; x < n; x++)
            for (int64_t a = t->off[x]; v[x] != 0 && a < t->off[x + 1]; a++) {
                double cw = t->cap ? (double)t->cap[a] / (double)t->cap_scale : 1.0;
                if (v[t->adj[a]] == 0 && cw > c->cut_widest) c->cut_widest = cw;
            }
        gsp_optimum_destroy(&o);
    }
out:
    gsp_free(v);
    if (err) gsp_free(w);
    else c->width = w;
    return err;
}

/* Chunk k's first unit of a message of L units in n chunks; head: the small head's (a message of
 * lane 0 where cs->head), whose chunk 0 is a CHUNK_HEAD_SHRINK-th of the n - 1 others' first. */
static inline int64_t chunk_at(int64_t L, int64_t n, int64_t k, bool uneven, bool head) {
    if (head && n > 2) {
        if (k == 0) return 0;
        return k == 1 ? chunk_at(L, n - 1, 1, uneven, false) / CHUNK_HEAD_SHRINK : chunk_at(L, n - 1, k - 1, uneven, false);
    }
    /* Two chunks of weights UNEVEN_SHORT and UNEVEN_LONG (2 UNEVEN_MEAN) before chunk k. */
    if (!uneven) return L * k / n;
    if (k >= n) return L;
    return L * ((k / 2) * 2 * UNEVEN_MEAN + (k % 2 ? UNEVEN_SHORT : 0)) / ((n / 2) * 2 * UNEVEN_MEAN + (n % 2 ? UNEVEN_SHORT : 0));
}

/* The ramp: chunk k's first unit of a lane-0 message of L units in n chunks on a streamed
 * broadcast's wide trees (cs->ramp = R), whose first R chunks are graded, of weights 1 .. R
 * against R + 1 for each of the others (cut as chunk_at cuts them). A stream issues its first
 * window of chunks at once, a network that shares a link alike ends them together, a relay
 * passes them on together, and so every hop of the tree took the whole window's time (a
 * latency and a window of chunks at the link's rate) where a chunk alone takes a latency and one
 * chunk's time: mi250:1's broadcast under SimGrid SMPI's defaults had each lane's first chunk
 * 2.3 us a hop down its trees' 10 levels and the rest of the lane about 5, and its last bytes 64 us
 * after the root's. Graded, the first window ends a chunk at a time, each frees a slot for the
 * next, and the stream stays staggered. Both ends cut alike. */
static inline int64_t ramp_at(int64_t L, int64_t n, int64_t k, int64_t R, bool uneven) {
    if (R < 2 || n <= R + 1) return chunk_at(L, n, k, uneven, false);
    if (k >= n) return L;
    int64_t wr = R * (R + 1) / 2, Lr = L * wr / (wr + (n - R) * (R + 1));
    if (k <= R) return Lr * (k * (k + 1) / 2) / wr;
    return Lr + chunk_at(L - Lr, n - R, k - R, uneven, false);
}

/* Chunk k's first unit of a message of lane j of L units in n chunks: the ramp's cut, the small
 * head's or the plain one. */
static inline int64_t cut_at(const struct chunks *cs, int64_t L, int64_t n, int64_t k, int j) {
    if (cs->ramp && j == 0) return ramp_at(L, n, k, cs->ramp, cs->uneven);
    return chunk_at(L, n, k, cs->uneven, cs->head && j == 0);
}

/* Where send or receive q (recv) of lane j streams from or into: *buf, its units *L of *t
 * (elements of the phase's type when the message is one block, else bytes of the staging area)
 * and *u bytes a unit. Both ends cut it alike (chunk_at). */
static void chunk_buf(const pipe_t *pp, int64_t q, int j, bool recv, char **buf, int64_t *L, MPI_Datatype *t, int64_t *u) {
    const gsp_rt_prog_t *p = pp->p;
    const gsp_rt_msg_t *x = recv ? &p->recv[q] : &p->send[q];
    int64_t per = p->nrecv + p->nsend;
    lay_t l = *pp->l0;
    l.lane = j;
    char *st = pp->c->stage + pp->soff[(size_t)j * (size_t)per + (size_t)(recv ? q : p->nrecv + q)];
    if (x->n == 1) {
        int64_t b0 = p->items[x->first];
        *buf = !direct(p, x, recv) ? st : recv ? at(pp->base, blk_first(&l, b0), pp->d) : src_at(pp->c, pp->base, &l, b0, pp->d);
        *L = blk_len(&l, b0);
        *t = pp->d->dt;
        *u = (int64_t)pp->d->size;
    } else {
        *buf = st;
        *L = msg_bytes(p, x, &l, pp->d, pp->c->comm);
        *t = MPI_BYTE;
        *u = 1;
    }
}

/* How many chunks of receive r of lane j are in, from the first (cut-through): all once it is
 * absorbed. */
static int64_t cut_prefix(const pipe_t *pp, int64_t r, int j) {
    size_t rj = (size_t)j * (size_t)pp->p->nrecv + (size_t)r;
    return pp->rstate[rj] == 2 ? INT64_MAX : pp->cs->rpre[rj];
}

/* A chunk of receive r of lane j, posted in chunks, has arrived: the chunks in from the first. */
static void cut_advance(pipe_t *pp, int64_t r, int j) {
    struct chunks *cs = pp->cs;
    size_t rj = (size_t)j * (size_t)pp->p->nrecv + (size_t)r;
    int64_t i = cs->ridx[r], js = j % cs->ahead;
    const MPI_Request *rq = cs->rq + cs->rbase[i] + js * cs->rmax[i];
    while (cs->rpre[rj] < cs->rtot[rj] && rq[cs->rpre[rj]] == MPI_REQUEST_NULL) cs->rpre[rj]++;
}

static gsp_err_t chunk_pump(pipe_t *pp, int64_t q);

/* The reduce cut-through (rcut): sums what has arrived of the receives of receive r's block in
 * lane j, in their schedule order (the order absorb keeps, so the same bits), each as far as the
 * one before it is summed; marks absorbed those complete and summed whole (*done: some were);
 * and lets the sends that pass the sum on go as far as it is summed. */
static gsp_err_t chain_sum(pipe_t *pp, int64_t r, int j, bool *done) {
    struct chunks *cs = pp->cs;
    const gsp_rt_prog_t *p = pp->p;
    gsp_mpi_ctx_t *c = pp->c;
    const dtinfo_t *d = pp->d;
    int64_t nR = p->nrecv, per = nR + p->nsend, upto = INT64_MAX, last = r;
    lay_t l = *pp->l0;
    l.lane = j;
    gsp_err_t err;
    while (p->recv[r].prev >= 0) r = p->recv[r].prev;
    int64_t b = p->items[p->recv[r].first], L = blk_len(&l, b), f = blk_first(&l, b);
    for (bool first = true; r >= 0; r = p->recv[r].next, first = false) {
        size_t rj = (size_t)j * (size_t)nR + (size_t)r;
        int64_t got = pp->rstate[rj] >= 1 ? L : cs->ridx[r] >= 0 && cs->rtot[rj] > 1 ? cut_at(cs, L, cs->rtot[rj], cs->rpre[rj], j) : 0;
        if (got > upto) got = upto;
        if (got > cs->spre[rj]) {
            int64_t lo = cs->spre[rj];
            const char *src = c->stage + pp->soff[(size_t)j * (size_t)per + (size_t)r] + lo * (int64_t)d->size;
            /* The block's first receive sums from the caller's input where the working buffer
             * does not hold the block yet (fresh): decided at its first range, kept for the rest. */
            if (first && lo == 0) cs->sfresh[rj] = take_fresh(c, &l, b);
            if ((err = sum_into(c, pp->base, f + lo, src, got - lo, first && cs->sfresh[rj], d, pp->op))) return err;
            cs->spre[rj] = got;
        }
        if (pp->rstate[rj] == 1 && cs->spre[rj] == L) pp->rstate[rj] = 2, *done = true;
        upto = cs->spre[rj];
        last = r;
    }
    for (int64_t e = cs->dep_off[last]; e < cs->dep_off[last + 1]; e++)
        if ((err = chunk_pump(pp, cs->dep[e]))) return err;
    return GSP_OK;
}

/* Whether the ENDS window applies (CHUNK_ENDS_LANES): cross first with the reduce cut-through, in
 * CHUNK_ENDS_LANES lanes or more. */
static inline bool ends_rule(const pipe_t *pp) { return pp->cross && pp->cs && pp->cs->rcut && pp->l0->lanes >= CHUNK_ENDS_LANES; }

/* Lane j of cut-through send q, not issued yet: issued now, as try_issue would once its receive
 * is in, when that receive is posted in as many chunks and its first is in. */
static bool cut_start(pipe_t *pp, int64_t q, int j) {
    struct chunks *cs = pp->cs;
    const gsp_rt_prog_t *p = pp->p;
    int64_t r = p->send[q].prev;
    size_t rj = (size_t)j * (size_t)p->nrecv + (size_t)r, sj = (size_t)j * (size_t)p->nsend + (size_t)q;
    if (!cs->cut_ok[q] || pp->gcnt || pp->feeds || pp->last0) return false;
    if (cs->rcut) {
        /* A reduce phase's: once the first elements of the sum are in, and (cross first) once
         * the send may go at all. */
        if (pp->rstate[rj] == 2 || cs->spre[rj] == 0) return false;
        if (pp->cross && p->turn[q] == GSP_RT_TURN_ENDS && pp->cross_left[pp->cross_arc[q]] > pp->cross_at[pp->cross_arc[q]]) return false;
    } else if (pp->cross || pp->rstate[rj] != 0 || cs->rpre[rj] == 0)
        return false;
    lay_t l = *pp->l0;
    l.lane = j;
    int64_t nk = chunks_of(pp->c, cs, p->send[q].peer, false, msg_bytes(p, &p->send[q], &l, pp->d, pp->c->comm), j,
                           passed_on(p, &p->send[q], &l, p->send[q].peer));
    if (cs->rcut ? nk <= 1 : nk != cs->rtot[rj]) return false;
    cs->total[sj] = cs->left[sj] = nk;
    pp->sstate[sj] = 1;
    pp->issued++;
    return true;
}

static gsp_err_t cross_issued(pipe_t *pp, int64_t q);

/* Issues the chunks of send q's stream that may go: in order of lane and chunk, each lane once
 * it is ready (try_issue, or cut_start), while a slot of the arc's window is free. */
static gsp_err_t chunk_pump(pipe_t *pp, int64_t q) {
    struct chunks *cs = pp->cs;
    const gsp_rt_prog_t *p = pp->p;
    int64_t nS = p->nsend, i = cs->sidx[q];
    int K = pp->l0->lanes, started = 0;
    gsp_err_t err;
    if (i < 0) return GSP_OK;
    while (cs->next_lane[q] < K) {
        int j = (int)cs->next_lane[q];
        size_t sj = (size_t)j * (size_t)nS + (size_t)q;
        if (pp->sstate[sj] == 0) {
            if (!cut_start(pp, q, j)) break;
            started++;
        }
        /* Cut-through: a chunk goes once the same chunk of its receive is in; a reduce phase's
         * once the elements it carries are summed. */
        if (cs->cut_ok[q] && cs->rcut) {
            size_t rj = (size_t)j * (size_t)p->nrecv + (size_t)p->send[q].prev;
            lay_t l = *pp->l0;
            l.lane = j;
            if (pp->rstate[rj] != 2 && cs->spre[rj] < cut_at(cs, blk_len(&l, p->items[p->send[q].first]), cs->total[sj], cs->next_k[q] + 1, j)) break;
        } else if (cs->cut_ok[q] && cs->next_k[q] >= cut_prefix(pp, p->send[q].prev, j))
            break;
        if (cs->total[sj] <= 1) { /* this lane went whole */
            cs->next_lane[q]++;
            cs->next_k[q] = 0;
            continue;
        }
        int64_t w = 0, lim = pp->l0->wide ? cs->swin[i] : i < cs->nslow ? cs->slow_window : cs->fast_window;
        if (cs->own_window > 0 && cs->own[i] && cs->nic_in && lim > cs->own_window) lim = cs->own_window;
        while (w < lim && cs->slot[i * cs->window + w] >= 0) w++;
        if (w == lim) break;
        /* The arc's cap (arc_next): a fast stream's chunk waits for room on its arc. */
        bool capped = cs->arc_cap > 0 && i >= cs->nslow;
        if (capped && cs->arc_busy[p->send[q].peer] >= cs->arc_cap) break;
        if (capped) cs->arc_busy[p->send[q].peer]++;
        int64_t k = cs->next_k[q], n = cs->total[sj], L, u;
        char *src;
        MPI_Datatype t;
        chunk_buf(pp, q, j, false, &src, &L, &t, &u);
        int64_t lo = cut_at(cs, L, n, k, j), hi = cut_at(cs, L, n, k + 1, j);
        int rc = MPI_Issend(src + lo * u, (int)(hi - lo), t, p->send[q].peer, tag_of(pp->c, pp->phase, j, p->send[q].round), pp->c->comm,
                            &cs->sq[i * cs->window + w]);
        if (rc != MPI_SUCCESS) return gsp__mpi_fail(pp->c, rc, "MPI_Issend");
        cs->slot[i * cs->window + w] = (int64_t)j * GSP_COST_CHUNK_MAX + k;
        if (++cs->next_k[q] == n) {
            cs->next_k[q] = 0;
            cs->next_lane[q]++;
        }
    }
    /* Lanes begun here count as issued for cross first, as try_issue's do (after the loop: it
     * may pump this stream again). */
    while (started-- > 0)
        if ((err = cross_issued(pp, q))) return err;
    return GSP_OK;
}

/* Room on the arc to peer (the deep reduce window's cap): its fast streams pump, the one whose
 * next chunk is of the earliest lane first, until the arc is full or none can. */
static gsp_err_t arc_next(pipe_t *pp, int peer) {
    struct chunks *cs = pp->cs;
    const gsp_rt_prog_t *p = pp->p;
    int64_t nS = p->nsend, K = pp->l0->lanes, after = -1; /* streams (lane, index) up to after tried in vain */
    while (cs->arc_busy[peer] < cs->arc_cap) {
        int64_t best = -1, bk = INT64_MAX;
        for (int64_t i = cs->nslow; i < cs->ns; i++) {
            int64_t q = cs->sq_of[i], j = cs->next_lane[q], w = 0, key = j * cs->ns + i;
            if (p->turn && p->turn[q] == GSP_RT_TURN_ENDS && ends_rule(pp)) key += K * cs->ns; /* after every FEEDS lane */
            if (p->send[q].peer != peer || j >= K || key >= bk || key <= after) continue;
            size_t sj = (size_t)j * (size_t)nS + (size_t)q;
            if (pp->sstate[sj] != 1 || cs->total[sj] <= 1) continue; /* not begun, or whole */
            while (w < cs->fast_window && cs->slot[i * cs->window + w] >= 0) w++;
            if (w < cs->fast_window) best = q, bk = key;
        }
        int64_t before = cs->arc_busy[peer];
        gsp_err_t err;
        if (best < 0) break;
        if ((err = chunk_pump(pp, best))) return err;
        /* A stream that could send nothing (cut-through: its sum is not in yet) lets the next
         * earliest try. */
        after = cs->arc_busy[peer] == before ? bk : -1;
    }
    /* Whatever room is left, every stream on the arc in turn: none waits for room unasked. */
    for (int64_t i = cs->nslow; i < cs->ns && cs->arc_busy[peer] < cs->arc_cap; i++) {
        gsp_err_t err;
        if (p->send[cs->sq_of[i]].peer == peer && (err = chunk_pump(pp, cs->sq_of[i]))) return err;
    }
    return GSP_OK;
}

/* Packs send q of lane j into its staging area (a plain type: chunked streams need one). */
static void chunk_pack(const pipe_t *pp, int64_t q, int j) {
    const gsp_rt_prog_t *p = pp->p;
    const gsp_rt_msg_t *x = &p->send[q];
    if (direct(p, x, false)) return;
    int64_t per = p->nrecv + p->nsend;
    lay_t l = *pp->l0;
    l.lane = j;
    char *dst = pp->c->stage + pp->soff[(size_t)j * (size_t)per + (size_t)(p->nrecv + q)];
    pack_msg(pp->c, p, x, pp->base, &l, pp->d, dst, (int)msg_bytes(p, x, &l, pp->d, pp->c->comm));
}

/* How far ahead of a rank's least unfinished key its gated sends may go (gsp__mpi_phase_layout). */
#define GATE_AHEAD 3

static inline int64_t gate_key(const pipe_t *pp, int64_t q, int j) { return pp->p->send[q].round / pp->l0->gate + j; }

/* Whether the reduce-scatter has summed every block of send q of lane j (fused phases). */
static bool summed(const pipe_t *pp, int64_t q, int j) {
    const gsp_rt_msg_t *x = &pp->p->send[q];
    for (int64_t i = 0; i < x->n; i++) {
        int64_t r = pp->last0[pp->p->items[x->first + i]];
        if (r >= 0 && pp->rstate0[(size_t)j * (size_t)pp->nR0 + (size_t)r] != 2) return false;
    }
    return true;
}

/* The lanes send q keeps in flight: the program's where it says (a fabric broadcast's edge across
 * its waist: rt_fabric.c), else the phase's. */
static int send_window(const pipe_t *pp, int64_t q) { return pp->p->win && !pp->l0->narrow && pp->p->win[q] ? pp->p->win[q] : pp->window; }

static gsp_err_t try_issue(pipe_t *pp, int j);

/* Send q of some lane is issued: the FEEDS one on its arc that leaves CROSS_ENDS_LEFT of them
 * to go lets the arc's ENDS ones go, in every lane (cross first, below). */
static gsp_err_t cross_issued(pipe_t *pp, int64_t q) {
    gsp_err_t err = GSP_OK;
    if (!pp->cross || pp->p->turn[q] != GSP_RT_TURN_FEEDS) return GSP_OK;
    int64_t a = pp->cross_arc[q];
    if (--pp->cross_left[a] != pp->cross_at[a]) return GSP_OK;
    for (int j = 0; j < pp->l0->lanes && !err; j++) err = try_issue(pp, j);
    return err;
}

/* Issues lane j's sends whose block is absorbed and whose window is free. */
static gsp_err_t try_issue(pipe_t *pp, int j) {
    const gsp_rt_prog_t *p = pp->p;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS;
    lay_t l = *pp->l0;
    l.lane = j;
    for (int64_t q = 0; q < nS; q++) {
        int *st = &pp->sstate[(size_t)j * (size_t)nS + (size_t)q];
        int64_t dep = p->send[q].prev;
        if (*st || (dep >= 0 && pp->rstate[(size_t)j * (size_t)nR + (size_t)dep] != 2)) continue;
        int64_t nk = 1;
        if (pp->cs && pp->cs->sidx[q] >= 0) {
            l.lane = j;
            nk = chunks_of(pp->c, pp->cs, p->send[q].peer, false, msg_bytes(p, &p->send[q], &l, pp->d, pp->c->comm), j,
                           passed_on(p, &p->send[q], &l, p->send[q].peer));
        }
        int w = send_window(pp, q);
        /* A chunked lane joins its arc's stream at once: the stream's window paces it. */
        if (nk == 1 && j >= w && pp->sstate[(size_t)(j - w) * (size_t)nS + (size_t)q] != 2) continue;
        if (pp->last0 && dep < 0 && !summed(pp, q, j)) continue;
        if (pp->feeds && p->turn[q] == GSP_RT_TURN_ENDS && pp->feeds[j] > 0) continue;
        if (pp->gcnt && gate_key(pp, q, j) > pp->glo + GATE_AHEAD) continue;
        if (pp->cross && p->turn[q] == GSP_RT_TURN_ENDS && pp->cross_left[pp->cross_arc[q]] > pp->cross_at[pp->cross_arc[q]]) continue;
        if (p->turn && p->turn[q] == GSP_RT_TURN_ENDS && ends_rule(pp) && !pp->ends_go) continue;
        if (nk > 1) {
            chunk_pack(pp, q, j);
            pp->cs->total[(size_t)j * (size_t)nS + (size_t)q] = pp->cs->left[(size_t)j * (size_t)nS + (size_t)q] = nk;
            *st = 1;
            pp->issued++;
            gsp_err_t err = chunk_pump(pp, q);
            if (!err) err = cross_issued(pp, q);
            if (err) return err;
            continue;
        }
        const void *in = pp->c->in;
        if (pp->noin) pp->c->in = NULL;
        gsp_err_t err = issue_send(pp->c, p, pp->phase, q, pp->base, &l, pp->d, pp->soff + (size_t)j * (size_t)per,
                                   &pp->sq[(size_t)j * (size_t)nS + (size_t)q], false);
        pp->c->in = in;
        if (err) return err;
        *st = 1;
        pp->issued++;
        /* A lane that went whole lets the arc's stream pass it. */
        if (pp->cs && (err = chunk_pump(pp, q))) return err;
        if ((err = cross_issued(pp, q))) return err;
    }
    return GSP_OK;
}

/* Send s (lane-major) has completed: its lane's FEEDS count falls (and the lane's ENDS sends may
 * go once it is 0), and the same send window lanes later may go. */
static gsp_err_t send_done(pipe_t *pp, int64_t s) {
    int64_t nS = pp->p->nsend;
    int j = (int)(s / nS), w = send_window(pp, s % nS), K = pp->l0->lanes;
    gsp_err_t err = GSP_OK;
    pp->sstate[s] = 2;
    if (pp->feeds && pp->p->turn[s % nS] == GSP_RT_TURN_FEEDS && --pp->feeds[j] == 0) err = try_issue(pp, j);
    if (!err && j + w < K) err = try_issue(pp, j + w);
    if (!err && pp->gcnt && --pp->gcnt[gate_key(pp, s % nS, j)] == 0) {
        /* The least unfinished key moves on: the sends it now lets go, in every lane. */
        int64_t lo = pp->glo;
        while (pp->glo < pp->gkeys && pp->gcnt[pp->glo] == 0) pp->glo++;
        for (int jj = 0; !err && pp->glo != lo && jj < K; jj++) err = try_issue(pp, jj);
    }
    return err;
}

/* Turns: every lane's FEEDS count, in turn[0 .. K) (NULL when p orders none). */
static int64_t *feeds_init(const gsp_rt_prog_t *p, const lay_t *l0, int64_t *turn, int K) {
    /* In fewer lanes than turn_lanes the turns only serialize (runtime.h); cross first orders
     * the sends instead. */
    if (!p->turn || K < p->turn_lanes || l0->cross) return NULL;
    for (int j = 0; j < K; j++) turn[j] = p->nfeeds;
    return turn;
}

/* ---- cross first ----
 * A reduce-scatter's in-trees deeper than GSP__MPI_DEEP_LEVELS whose sends take turns (the ring
 * trees: rt_fabric.c, switched_turn) carry two kinds of sums on a box's fast links: those with a
 * NIC still to cross on their way to the root (FEEDS) and those without (ENDS). All of them free
 * at the start, they shared the links alike, and the NICs, the binding cut's, only started once
 * the first sums bound for them had come the whole way round their box at half the links' rate:
 * a trace of mi250:2's 16 MiB reduce-scatter on its ring trees under SimGrid SMPI's defaults had
 * its NICs idle for the first 61 us of 114. The allgather, the same trees forward, has its NICs
 * busy from the start while the boxes' links carry their own blocks, and the other box's after
 * (77 us). Cross first runs the allgather backwards: on each arc (a peer) every lane's FEEDS
 * sends go before any ENDS send, which waits until all of them are issued (not completed: the
 * last of them, a NIC's, would hold the box's own sums until the end); every lane streams on every
 * route (the deep drain's chunks), and neither the gate nor the turns a lane apply. The ENDS
 * sends wait only for issues, and a FEEDS send never waits for an ENDS one (its sum has a NIC
 * still ahead, so do its children's), so no rank waits on itself. mi250:2's 64 MiB
 * reduce-scatter under SMPI's defaults: 282.0 us on the shallow trees (gated), 237.2 on the rings
 * cross first (1.49x -> 1.25x the bound; cross_lanes). Held per rank until all its FEEDS sends
 * were issued, an arc whose own were all out idled while the rank's others waited for sums from
 * up the ring; held per arc, 16 MiB 93.0 -> 87.9 us (64 MiB 237.2 -> 237.1). A lane's ENDS sends
 * held only until the FEEDS of two lanes on were out (interleaved by lane): 93.0 at 16 MiB.
 * Held until the last FEEDS send was out, the arc's ENDS sends all started together once its
 * FEEDS sends had come round the ring, and the box's own sums then crossed the ring's 8 hops
 * with little else to carry: the NICs had finished at 228.9 us, the call at 237.1 (a trace; the
 * 50 GB/s links at 45 % from 112 to 128 us). Released with a quarter of the arc's FEEDS sends
 * still to issue, they fill that gap and end with the NICs: 237.1 -> 228.9 us (a half 239.4, two
 * fifths 240.3, 0.3 / 0.25 / 0.15 all 228.9). */
#define CROSS_ENDS_LEFT 4

/* Whether reduce phase ph (of every rank's blocks, in layout l) runs cross first: deep trees that
 * take turns and stream (gsp__mpi_chunk_streams). */
bool gsp__mpi_cross_first(const gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const lay_t *l, const dtinfo_t *d) {
    return ph->kind == GSP_RT_REDUCE && ph->pipelined && ph->turn_of && l->deep && l->n == c->size && gsp__mpi_chunk_streams(c, l, d);
}

/* Each send's arc and each arc's FEEDS sends of every lane (cross first), which its ENDS sends
 * wait for until a CROSS_ENDS_LEFT-th of them is left; buf holds 3 nsend + the communicator's
 * size. */
static void cross_init(pipe_t *pp, int64_t *buf) {
    const gsp_rt_prog_t *p = pp->p;
    int64_t nS = p->nsend, *first = buf + 3 * nS;
    pp->cross_arc = buf;
    pp->cross_left = buf + nS;
    pp->cross_at = buf + 2 * nS;
    pp->cross = p->turn && p->nfeeds > 0;
    if (!pp->cross) return;
    for (int r = 0; r < pp->c->size; r++) first[r] = -1;
    for (int64_t q = 0; q < nS; q++) {
        int64_t *f = &first[p->send[q].peer];
        if (*f < 0) *f = q;
        pp->cross_arc[q] = *f;
        pp->cross_left[q] = 0;
    }
    for (int64_t q = 0; q < nS; q++)
        if (p->turn[q] == GSP_RT_TURN_FEEDS) pp->cross_left[pp->cross_arc[q]] += pp->l0->lanes;
    /* With the reduce cut-through the ENDS sends wait for this rank's first chunk over a slow
     * route instead (the ENDS window: ends_rule): the count never lets them go. */
    bool rcut = pp->cs && pp->cs->rcut;
    for (int64_t q = 0; q < nS; q++) pp->cross_at[q] = ends_rule(pp) ? pp->cross_left[q] : rcut ? 0 : pp->cross_left[q] / CROSS_ENDS_LEFT;
}

/* Posts receive q of lane j: whole (post_recv), or its chunks. */
static gsp_err_t post_lane_recv(pipe_t *pp, int64_t q, int j, MPI_Request *slot) {
    struct chunks *cs = pp->cs;
    const gsp_rt_prog_t *p = pp->p;
    const gsp_rt_msg_t *x = &p->recv[q];
    int64_t nR = p->nrecv, per = nR + p->nsend;
    const size_t *so = pp->soff + (size_t)j * (size_t)per;
    lay_t l = *pp->l0;
    l.lane = j;
    int64_t nk = cs && cs->ridx[q] >= 0 ? chunks_of(pp->c, cs, x->peer, true, msg_bytes(p, x, &l, pp->d, pp->c->comm), j, passed_on(p, x, &l, pp->c->rank)) : 1;
    if (nk == 1) return post_recv(pp->c, p, pp->phase, q, pp->base, &l, pp->d, so, slot);
    int64_t i = cs->ridx[q], js = j % cs->ahead, L, u;
    char *dst;
    MPI_Datatype t;
    cs->rlane[js * cs->nr + i] = j;
    cs->rleft[(size_t)j * (size_t)nR + (size_t)q] = nk;
    cs->rtot[(size_t)j * (size_t)nR + (size_t)q] = nk;
    chunk_buf(pp, q, j, true, &dst, &L, &t, &u);
    for (int64_t k = 0; k < nk; k++) {
        int64_t lo = cut_at(cs, L, nk, k, j), hi = cut_at(cs, L, nk, k + 1, j);
        int rc = MPI_Irecv(dst + lo * u, (int)(hi - lo), t, x->peer, tag_of(pp->c, pp->phase, j, x->round), pp->c->comm,
                           &cs->rq[cs->rbase[i] + js * cs->rmax[i] + k]);
        if (rc != MPI_SUCCESS) return gsp__mpi_fail(pp->c, rc, "MPI_Irecv");
    }
    return GSP_OK;
}

/* A streamed broadcast's wide trees (wide_lanes): a stream's chunks in flight. The window of
 * gsp_rt_stream_window is a tree's rate over the cost model's latency, which stands for a route
 * through a switch (two links: bench/smpi_costs.sh); it is about twice what a link between the
 * two nodes takes to cross, and twice is what a stream there wants: mi250:1's six trees of 50
 * GB/s, 10 deep, under SimGrid SMPI's defaults at 64 MiB in flight 20 / 24 (the window) / 28 /
 * 32: 302.2 / 277.0 / 275.4 / 280.8 us (bench/README.md). A route through a switch takes twice
 * that: mi250:2's 16 trees of a NIC's 16 GB/s each (fabric_sat_switched.c), every stream at 8
 * (the window) / 12 / 16 / 20 / 24 in flight: 406.5 / 318.2 / 307.2 / 316.9 / 326.8 us, the NICs
 * at 72 % of their capacity with 8. */
static int64_t stream_window(const gsp_mpi_ctx_t *c, int64_t wide, int64_t peer) {
    int64_t w = c->width && c->width[2 * (int64_t)c->size + peer] > 0 ? wide : 2 * wide;
    return w < CHUNK_WINDOW_MAX ? w : CHUNK_WINDOW_MAX;
}

/* Which of the phase's sends and receives stream in chunks in some lane (cs, in c->chunk), and
 * the request slots they need: *extra. cs->ns == cs->nr == 0: none. */
static gsp_err_t chunks_init(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const lay_t *l0, const dtinfo_t *d, int ahead, struct chunks *cs,
                             int64_t *extra) {
    int K = l0->lanes;
    int64_t nR = p->nrecv, nS = p->nsend;
    gsp_err_t err;
    memset(cs, 0, sizeof *cs);
    *extra = 0;
    if (!c->is_fabric || !d->plain || !gsp_cost_band(&c->cost, &cs->lo, &cs->hi, &cs->beta)) return GSP_OK;
    if ((err = widths(c))) return err;
    size_t need = (size_t)(2 * K * nS + K * nR + 2 * nS + nS * CHUNK_WINDOW_MAX + 2 * nS + 5 * nR + (int64_t)ahead * nR + 8 + 2 * K * nR + 4 * nS + nR + 1 + c->size + nR + 2 * K * nR);
    if ((err = gsp__mpi_reserve((void **)&c->chunk, &c->chunk_cap, need * sizeof *c->chunk))) return err;
    int64_t *m = c->chunk;
    cs->left = m, m += K * nS;
    cs->total = m, m += K * nS;
    cs->rleft = m, m += K * nR;
    cs->next_lane = m, m += nS;
    cs->next_k = m, m += nS;
    cs->slot = m, m += nS * CHUNK_WINDOW_MAX;
    cs->sidx = m, m += nS;
    cs->sq_of = m, m += nS;
    cs->ridx = m, m += nR;
    cs->rq_of = m, m += nR;
    cs->rbase = m, m += nR + 1;
    cs->rmax = m, m += nR;
    cs->rtot = m, m += K * nR;
    cs->rpre = m, m += K * nR;
    cs->cut_ok = m, m += nS;
    cs->dep = m, m += nS;
    cs->dep_off = m, m += nR + 1;
    cs->swin = m, m += nS;
    cs->arc_busy = m, m += c->size;
    for (int64_t x = 0; x < c->size; x++) cs->arc_busy[x] = 0;
    cs->own = m, m += nS;
    cs->csum = m, m += nR;
    cs->spre = m, m += K * nR;
    cs->sfresh = m, m += K * nR;
    cs->rlane = m;
    cs->ahead = ahead;
    /* The streams of slow routes (their count sets the window) first, then the drain's (where a
     * fast link leaves the cut) or the fill's. */
    lay_t l = *l0;
    int64_t nslow = 0;
    bool fast_cut = !slow_route(c, c->cut_widest, (double)(cs->hi - 1));
    for (int pass = 0; pass < 2; pass++) {
        /* Not the first lane: it has no drain (with one lane, a fast route streams nothing); on
         * deep trees every lane (the deep drain, above); in the fill's reduce phases every lane
         * but the first (the fill's root streams, above). */
        cs->drain = pass == 0 || !(l0->drain || l0->cross || l0->wide || l0->fill || (l0->deep && p->kind == GSP_RT_REDUCE)) ? K
                    : l0->deep            ? 0
                    : l0->fill            ? 1
                    : !fast_cut           ? (l0->busy_fast ? K / WIDE_DRAIN_FROM : K)
                    : K - DRAIN_LANES > 1 ? K - DRAIN_LANES
                                          : 1;
        cs->fill = pass == 1 && l0->fill;
        cs->uneven = ((l0->drain || l0->uneven) && !fast_cut) || l0->wide;
        for (int64_t q = 0; q < nS; q++) {
            if (pass == 0) cs->sidx[q] = -1;
            cs->next_lane[q] = cs->next_k[q] = 0;
            for (int j = 0; j < K && cs->sidx[q] < 0; j++) {
                l.lane = j;
                if (chunks_of(c, cs, p->send[q].peer, false, msg_bytes(p, &p->send[q], &l, d, c->comm), j, passed_on(p, &p->send[q], &l, p->send[q].peer)) > 1) cs->sidx[q] = cs->ns, cs->sq_of[cs->ns++] = q;
            }
        }
        if (pass == 0) nslow = cs->ns;
    }
    for (int64_t q = 0; q < K * nS; q++) cs->total[q] = cs->left[q] = 0;
    /* The window: a rank's slow streams share its slow link (CHUNK_IN_FLIGHT); the drain's and
     * the fill's streams take the same. */
    cs->nslow = nslow;
    if (nslow == 0) nslow = cs->ns;
    cs->window = CHUNK_WINDOW_MIN;
    if (nslow > 0) cs->window = (int)((CHUNK_IN_FLIGHT + nslow - 1) / nslow);
    if (cs->window < CHUNK_WINDOW_MIN) cs->window = CHUNK_WINDOW_MIN;
    if (cs->window > CHUNK_WINDOW_MAX) cs->window = CHUNK_WINDOW_MAX;
    /* A streamed broadcast's wide trees: their own window (wide_lanes). */
    if (l0->wide) {
        cs->window = l0->wide;
        for (int64_t i = 0; i < cs->ns; i++) {
            cs->swin[i] = stream_window(c, l0->wide, p->send[cs->sq_of[i]].peer);
            if (cs->swin[i] > cs->window) cs->window = (int)cs->swin[i];
        }
    }
    for (int64_t q = 0; q < cs->ns * cs->window; q++) cs->slot[q] = -1;
    /* The deep window's and cut-through's phases. */
    bool deep_slow = l0->deep && p->kind == GSP_RT_STORE && !fast_cut && !l0->wide;
    cs->slow_window = deep_slow && CHUNK_DEEP_WINDOW < cs->window ? CHUNK_DEEP_WINDOW : cs->window;
    bool deep_reduce = l0->deep && p->kind == GSP_RT_REDUCE && !fast_cut;
    int fw = !(l0->deep && p->kind == GSP_RT_REDUCE) ? cs->window : deep_reduce ? CHUNK_DEEP_REDUCE_WINDOW : CHUNK_FAST_WINDOW;
    cs->fast_window = fw < cs->window ? fw : cs->window;
    cs->arc_cap = deep_reduce ? CHUNK_DEEP_ARC_CAP : 0;
    /* The deep window's phases: the box's own blocks at fewer in flight (CHUNK_DEEP_OWN_WINDOW). A
     * block's root is this rank's box-mate where its route is not slow (the route widths). */
    cs->own_window = deep_slow && cs->nslow > 0 ? CHUNK_DEEP_OWN_WINDOW : 0;
    cs->nic_in = false;
    for (int64_t i = 0; i < cs->ns; i++) {
        const gsp_rt_msg_t *x = &p->send[cs->sq_of[i]];
        int64_t root = p->items[x->first] / (l0->parts > 1 ? l0->parts : 1);
        cs->own[i] = cs->own_window > 0 && i >= cs->nslow && root >= 0 && root < c->size &&
                     (root == c->rank || !slow_route(c, c->width[root], (double)(cs->hi - 1)));
    }
    /* Before the receives' most chunks below, which count the head's. Both ends of a message run
     * the same phase, so they agree. */
    cs->head = l0->deep && p->kind == GSP_RT_REDUCE;
    /* The ramp over a window: the wide trees' own (both ends know it; a route through a switch
     * keeps twice as many in flight, but the lanes of 64 chunks at most leave room for no more).
     * mi250:1's broadcast under SimGrid SMPI's defaults, 64 MiB, graded over 8 / 16 / 20 / 24 /
     * 28 / 32 chunks: 276.5 / 268.7 / 272.4 / 267.8 / 272.2 / 273.7 us, 277.0 without. */
    cs->ramp = l0->wide >= 2 ? l0->wide : 0;
    cs->rbase[0] = 0;
    for (int64_t q = 0; q < nR; q++) {
        int64_t most = 1;
        for (int j = 0; j < K; j++) {
            l.lane = j;
            int64_t k = chunks_of(c, cs, p->recv[q].peer, true, msg_bytes(p, &p->recv[q], &l, d, c->comm), j, passed_on(p, &p->recv[q], &l, c->rank));
            if (k > most) most = k;
        }
        cs->ridx[q] = -1;
        if (most > 1) {
            cs->ridx[q] = cs->nr;
            cs->rq_of[cs->nr] = q;
            cs->rmax[cs->nr] = most;
            cs->rbase[cs->nr + 1] = cs->rbase[cs->nr] + ahead * most;
            cs->nr++;
        }
    }
    /* Cut-through (the deep window's phases, a streamed broadcast's wide trees): a send that
     * passes on the one block it received (a store phase's relay), both streamed. rpre serves as
     * each receive's count meanwhile. */
    for (int64_t q = 0; q < K * nR; q++) cs->rtot[q] = cs->rpre[q] = cs->spre[q] = cs->sfresh[q] = 0;
    for (int64_t q = 0; q <= nR; q++) cs->dep_off[q] = 0;
    /* The reduce cut-through (RCUT_LANE_CHUNKS): where every receive of a block carries that
     * block alone, so that they sum element by element. */
    cs->rcut = deep_reduce && !p->exchange && l0->layout != GSP_RT_WHOLE;
    for (int64_t q = 0; q < nR; q++) {
        int64_t r = q;
        while (p->recv[r].prev >= 0) r = p->recv[r].prev;
        for (cs->csum[q] = cs->rcut; r >= 0 && cs->csum[q]; r = p->recv[r].next) cs->csum[q] = p->recv[r].n == 1;
    }
    for (int64_t q = 0; q < nS; q++) {
        const gsp_rt_msg_t *x = &p->send[q];
        int64_t r = x->prev;
        if (cs->rcut)
            cs->cut_ok[q] = x->n == 1 && r >= 0 && cs->sidx[q] >= 0 && cs->csum[r] && p->recv[r].next < 0 && p->items[p->recv[r].first] == p->items[x->first];
        else
            cs->cut_ok[q] = (deep_slow || l0->wide) && !p->exchange && x->n == 1 && r >= 0 && cs->sidx[q] >= 0 && cs->ridx[r] >= 0 && p->recv[r].n == 1 &&
                            p->items[p->recv[r].first] == p->items[x->first];
        if (cs->cut_ok[q]) cs->dep_off[r + 1]++;
    }
    for (int64_t q = 0; q < nR; q++) cs->dep_off[q + 1] += cs->dep_off[q];
    for (int64_t q = 0; q < nS; q++)
        if (cs->cut_ok[q]) cs->dep[cs->dep_off[p->send[q].prev] + cs->rpre[p->send[q].prev]++] = q;
    for (int64_t q = 0; q < nR; q++) cs->rpre[q] = 0;
    *extra = cs->rbase[cs->nr] + cs->ns * cs->window;
    return GSP_OK;
}

/* A pipelined phase (arc-disjoint trees, many lanes): messages are handled in the order they
 * complete, so a node on several trees forwards each tree's segments as they arrive, whatever
 * the other trees do (a fixed order would make a tree wait for another's whole message).
 * Per arc, a lane's send waits until the send GSP_RT_PIPE_WINDOW lanes earlier has completed: networks,
 * and SimGrid, share a link among concurrent messages, and without a window all segments
 * would arrive together at the end and nothing would pipeline. Each lane still absorbs its
 * receives in schedule order, so reductions keep the schedule's order. */
static gsp_err_t run_pipelined(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                               MPI_Op op) {
    gsp_err_t err;
    /* A fabric's trees share every link among many trees' messages: there (gsp__mpi_phase_layout)
     * a lane goes on an arc only once the one before it arrived, so the first lanes reach the
     * next level early instead of every lane arriving late together (bench/README.md: 64 MiB on
     * dgx:8x2 under SMPI, 2 lanes, allgather 538 -> 486 us, broadcast 1003 -> 754 us). But an
     * edge across a broadcast's waist keeps the program's wider window (win: rt_fabric.c), so that arc
     * never idles while a segment's latency runs. */
    int window = l0->window > 0 ? l0->window : GSP_RT_PIPE_WINDOW;
    int K = l0->lanes;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS, all = (int64_t)K * per;
    if (all > INT_MAX / 2) return gsp_error(GSP_ERR_TOOBIG, "too many messages in one phase");
    int wr = !l0->narrow && p->wmax > window ? p->wmax : window, ahead = wr + 2 < K ? wr + 2 : K;
    struct chunks cs;
    int64_t extra = 0;
    if ((err = chunks_init(c, p, l0, d, ahead, &cs, &extra))) return err;
    int64_t total = all + extra, rx = cs.rbase ? cs.rbase[cs.nr] : 0; /* the receives' chunk slots */
    if (total > INT_MAX / 2) return gsp_error(GSP_ERR_TOOBIG, "too many messages in one phase");
    if ((err = gsp__mpi_reserve((void **)&c->req, &c->req_cap, (size_t)(total + 1) * sizeof *c->req)) ||
        (err = gsp__mpi_reserve((void **)&c->soff, &c->soff_cap, (size_t)(all + 1) * sizeof *c->soff)) ||
        (err = gsp__mpi_reserve((void **)&c->idx, &c->idx_cap, (size_t)(all + 1) * sizeof *c->idx)))
        return err;
    /* c->turn: the turns' counts (K), or cross first's arcs (3 nS + size). */
    size_t nturn = l0->cross ? 3 * (size_t)nS + (size_t)c->size : (size_t)K + 1;
    if ((err = gsp__mpi_reserve((void **)&c->turn, &c->turn_cap, nturn * sizeof *c->turn))) return err;
    if ((err = stage_and_fresh(c, p, l0, d))) return err;
    /* req: receives of every lane [0, K nR), then sends [K nR, K per). state: receives 0
     * (posted) / 1 (complete) / 2 (absorbed), sends 0 (not issued) / 1 (in flight) / 2 (done). */
    MPI_Request *rq = c->req, *sq = c->req + (size_t)K * (size_t)nR;
    int *state = c->idx, *sstate = c->idx + (size_t)K * (size_t)nR;
    for (int64_t q = 0; q < all; q++) {
        c->req[q] = MPI_REQUEST_NULL;
        state[q] = 0;
    }
    for (int64_t q = all; q < total; q++) c->req[q] = MPI_REQUEST_NULL;
    c->nreq = (size_t)total;
    cs.rq = c->req + all;
    cs.sq = cs.rq + rx;
    pipe_t pp = {c, p, phase, base, l0, d, window, state, sstate, sq, 0, c->soff, false, NULL, NULL, 0, feeds_init(p, l0, c->turn, K), NULL, 0, 0,
                 cs.ns + cs.nr > 0 ? &cs : NULL, false, false, NULL, NULL, NULL, op};
    c->communicated = true;
    lay_t l = *l0;
    /* A receive of lane j is posted once the same receive of lane j - ahead has arrived: its
     * sender sends lane j only after its lane j - window has completed, so a message that needs
     * its receive (a rendezvous) finds it posted, and one sent eagerly before it waits as MPI's
     * unexpected message (each lane has its tags). A rank keeps nR * ahead receives posted
     * instead of nR * K: SimGrid charges real time per request a rank keeps posted, for every
     * message it completes (mi250:2's 64 MiB allgather in 15 lanes took 409 s for one call with
     * all posted), and the simulated times were the same (285.019 us in 2 lanes, 243.890 in 8). */
    for (int j = 0; j < ahead; j++)
        for (int64_t q = 0; q < nR; q++)
            if ((err = post_lane_recv(&pp, q, j, &rq[(size_t)j * (size_t)nR + (size_t)q]))) return err;
    int64_t rdone = 0, sdone = 0;
    if (l0->gate > 0 && nS > 0 && !pp.feeds) {
        /* Keys run from 0 to the deepest level + K - 1 (gsp_rt_prog_t: rounds below nrounds).
         * Not with turns: a lane's ENDS sends wait for its FEEDS sends, which may be of higher
         * keys, and the two orders together can deadlock (they did: mi250:2's ring trees, 64
         * MiB under SMPI with its factors at 1, every rank waiting). */
        pp.gkeys = (p->nrounds + l0->gate - 1) / l0->gate + K;
        if ((err = gsp__mpi_reserve((void **)&c->gate, &c->gate_cap, (size_t)pp.gkeys * sizeof *c->gate))) return err;
        pp.gcnt = c->gate;
        memset(pp.gcnt, 0, (size_t)pp.gkeys * sizeof *pp.gcnt);
        for (int j = 0; j < K; j++)
            for (int64_t q = 0; q < nS; q++) pp.gcnt[gate_key(&pp, q, j)]++;
        while (pp.glo < pp.gkeys && pp.gcnt[pp.glo] == 0) pp.glo++;
    }
    if (l0->cross) cross_init(&pp, c->turn);
    for (int j = 0; j < K && !err; j++) err = try_issue(&pp, j);
    if (err) return err;
    while (rdone < (int64_t)K * nR || sdone < (int64_t)K * nS) {
        int i;
        int rc = MPI_Waitany((int)total, c->req, &i, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Waitany");
        if (i == MPI_UNDEFINED)
            return gsp_error(GSP_ERR_INTERNAL, "pipelined phase stalled with %lld of %lld sends issued", (long long)pp.issued, (long long)K * nS);
        if (i >= all && i < all + rx) {
            /* A chunk of a receive: the receive is complete with its last chunk. */
            int64_t x = i - all, lo = 0, hi = cs.nr - 1;
            while (lo < hi) {
                int64_t mid = (lo + hi + 1) / 2;
                if (cs.rbase[mid] <= x) lo = mid;
                else hi = mid - 1;
            }
            int64_t q = cs.rq_of[lo], j = cs.rlane[((x - cs.rbase[lo]) / cs.rmax[lo]) * cs.nr + lo];
            if (!cs.nic_in && cs.own_window > 0 && slow_route(c, c->width[c->size + p->recv[q].peer], (double)(cs.hi - 1))) cs.nic_in = true;
            if (!pp.ends_go && ends_rule(&pp) && slow_route(c, c->width[c->size + p->recv[q].peer], (double)(cs.hi - 1))) {
                /* The ENDS sends may go now (the ENDS window: ends_rule), in every lane. */
                pp.ends_go = true;
                for (int jj = 0; jj < K && !err; jj++) err = try_issue(&pp, jj);
                if (err) return err;
            }
            if (cs.csum[q]) { /* the reduce cut-through: sum what is in */
                bool done = false;
                cut_advance(&pp, q, (int)j);
                if ((err = chain_sum(&pp, q, (int)j, &done))) return err;
                if (done && (err = try_issue(&pp, (int)j))) return err;
            } else if (cs.dep_off[q + 1] > cs.dep_off[q]) { /* cut-through sends wait for it */
                cut_advance(&pp, q, (int)j);
                for (int64_t e = cs.dep_off[q]; e < cs.dep_off[q + 1] && !err; e++) err = chunk_pump(&pp, cs.dep[e]);
                if (err) return err;
            }
            if (--cs.rleft[(size_t)j * (size_t)nR + (size_t)q] > 0) continue;
            i = (int)(j * nR + q);
        } else if (i >= all) {
            /* A chunk of a send: its slot is free for the stream's next, and the send is done
             * with its last chunk. */
            int64_t x = i - all - rx, q = cs.sq_of[x / cs.window], j = cs.slot[x] / GSP_COST_CHUNK_MAX;
            cs.slot[x] = -1;
            if (--cs.left[(size_t)j * (size_t)nS + (size_t)q] == 0) {
                sdone++;
                if ((err = send_done(&pp, j * nS + q))) return err;
            }
            if (cs.arc_cap > 0 && x / cs.window >= cs.nslow) {
                cs.arc_busy[p->send[q].peer]--;
                if ((err = arc_next(&pp, p->send[q].peer))) return err;
            }
            if ((err = chunk_pump(&pp, q))) return err;
            continue;
        }
        if (i < K * nR) {
            int j = (int)(i / nR);
            int64_t q = i % nR;
            state[i] = 1;
            rdone++;
            if (j + ahead < K) {
                if ((err = post_lane_recv(&pp, q, j + ahead, &rq[(size_t)(j + ahead) * (size_t)nR + (size_t)q]))) return err;
            }
            if (pp.cs && cs.csum[q]) { /* the reduce cut-through: its sums */
                bool done = false;
                if ((err = chain_sum(&pp, q, j, &done))) return err;
                if (done && (err = try_issue(&pp, j))) return err;
                continue;
            }
            /* Absorb it, and the later receives of its block that were waiting for it. */
            if (p->recv[q].prev >= 0 && state[(size_t)j * (size_t)nR + (size_t)p->recv[q].prev] != 2) continue;
            l.lane = j;
            for (int64_t r = q; r >= 0 && state[(size_t)j * (size_t)nR + (size_t)r] == 1; r = p->recv[r].next) {
                if ((err = absorb(c, p, r, r + 1, c->soff + (size_t)j * (size_t)per, base, &l, d, op))) return err;
                state[(size_t)j * (size_t)nR + (size_t)r] = 2;
            }
            if ((err = try_issue(&pp, j))) return err;
        } else {
            sdone++;
            if ((err = send_done(&pp, i - (int64_t)K * nR))) return err;
        }
    }
    return GSP_OK;
}

/* The allgather's side of fused phases: what posting its receives needs (run_fused). */
typedef struct {
    gsp_mpi_ctx_t *c;
    const gsp_rt_prog_t *p1;
    void *base;
    const lay_t *l0;
    const dtinfo_t *d;
    int K, ahead;
    int64_t nR1, nS0, all0, per1;
    const int64_t *send0; /* per block: the reduce-scatter's send of it here (-1: none) */
    const int *ss0, *st1; /* the reduce-scatter's send states, the allgather's receive states */
    char *posted;
    MPI_Request *rq1;
} fuse_t;

/* Posts the allgather's receives q in [qlo, qhi) of lane j that may be: not yet posted, every
 * block they write no longer read by a reduce-scatter send of this lane (MPI forbids writing a
 * send's buffer before it completes), and the same receive of lane j - ahead arrived (as
 * run_pipelined posts ahead). Called when one of the two conditions may have become true. */
static gsp_err_t post1(const fuse_t *F, int j, int64_t qlo, int64_t qhi) {
    gsp_err_t err = GSP_OK;
    if (j >= F->K) return GSP_OK;
    lay_t l = *F->l0;
    l.lane = j;
    for (int64_t q = qlo; q < qhi && !err; q++) {
        size_t k = (size_t)j * (size_t)F->nR1 + (size_t)q;
        if (F->posted[k] || (j >= F->ahead && F->st1[k - (size_t)F->ahead * (size_t)F->nR1] == 0)) continue;
        bool ok = true;
        for (int64_t i = 0; i < F->p1->recv[q].n && ok; i++) {
            int64_t s = F->send0[F->p1->items[F->p1->recv[q].first + i]];
            ok = s < 0 || F->ss0[(size_t)j * (size_t)F->nS0 + (size_t)s] == 2;
        }
        if (!ok) continue;
        F->posted[k] = 1;
        err = post_recv(F->c, F->p1, 1, q, F->base, &l, F->d, F->c->soff + F->all0 + (size_t)j * (size_t)F->per1, &F->rq1[k]);
    }
    return err;
}

/* Fused phases on a box's trees (box_lanes) keep two lanes in flight per edge, not three. Under
 * SMPI's defaults, dgx:8x2's allreduce in one lane in flight (before box_lanes) / box_lanes' three
 * / two: 64 MiB 641.6 / 581.0 / 542.5 us, 16 MiB 203.9 / 192.2 / 180.1, 4 MiB 57.4 / 48.8 / 51.1;
 * with the factors at 1, 440.2 / 451.1 / 429.8, 126.8 / 124.4 / 117.3, 40.9 / 36.4 / 35.7. Lanes x
 * in flight swept at 64 MiB (defaults): 4 x 2 549.6, 5 x 1 628.5, 5 x 3 581.0, 6 x 2 542.5, 7 x 2
 * 533.9 (but 4 MiB 62.0), 7 x 3 542.8, 8 x 2 603.9, 10 x 2 600.1. Fewer where the layout says
 * (mpi_coll.c, run_algo: one, where a block is one tree's and its lanes are long). */
#define FUSED_WINDOW 2

/* An allreduce on a fabric's one forest (rt_fabric.c): the reduce-scatter p0 (in-trees) and the
 * allgather p1 (the same trees, out) run at once, in the same lanes of the same parts (l), so a
 * part's allgather leaves its root as soon as its sum is complete there, instead of after the
 * whole reduce-scatter: one pipeline's fill and drain fewer. The reduce-scatter runs exactly as
 * alone (run_pipelined: same receives, same order of combining, so the same bits); the
 * allgather's root sends wait for the reduce-scatter's last receive of each block they carry;
 * its receives are posted only once this rank's reduce-scatter send of the same blocks has
 * completed (the receive writes where that send read: MPI forbids touching a send's buffer
 * before it completes), and its sends read the working buffer, never the reduce-scatter's
 * input. Tags differ by phase (0 and 1). Both phases post their receives a few lanes ahead of
 * those that arrived, as run_pipelined does and for its reasons. */
static gsp_err_t run_fused(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p0, const gsp_rt_prog_t *p1, void *base, const lay_t *l0, const dtinfo_t *d,
                           MPI_Op op) {
    gsp_err_t err;
    /* At most FUSED_WINDOW lanes in flight per edge: the layout's are a phase's alone (box_lanes). */
    int window = l0->window > 0 ? l0->window : GSP_RT_PIPE_WINDOW, K = l0->lanes;
    if (window > FUSED_WINDOW) window = FUSED_WINDOW;
    int64_t nR0 = p0->nrecv, nS0 = p0->nsend, per0 = nR0 + nS0, all0 = (int64_t)K * per0;
    int64_t nR1 = p1->nrecv, nS1 = p1->nsend, per1 = nR1 + nS1, all1 = (int64_t)K * per1, all = all0 + all1, nb = nblk(l0);
    if (all > INT_MAX / 2) return gsp_error(GSP_ERR_TOOBIG, "too many messages in one phase");
    if ((err = gsp__mpi_reserve((void **)&c->req, &c->req_cap, (size_t)(all + 1) * sizeof *c->req)) ||
        (err = gsp__mpi_reserve((void **)&c->soff, &c->soff_cap, (size_t)(all + 1) * sizeof *c->soff)) ||
        (err = gsp__mpi_reserve((void **)&c->idx, &c->idx_cap, (size_t)(all + 1) * sizeof *c->idx)))
        return err;
    /* Staging: the reduce-scatter's lanes, then the allgather's; fresh marks for the first. */
    size_t t0 = 0, t1 = 0;
    if ((err = stage_offsets_at(c, p0, l0, d, c->soff, 0, &t0)) || (err = stage_offsets_at(c, p1, l0, d, c->soff + all0, t0, &t1))) return err;
    if ((err = gsp__mpi_reserve((void **)&c->stage, &c->stage_cap, t1 + 1))) return err;
    if (c->in) {
        if ((err = gsp__mpi_reserve((void **)&c->fresh, &c->fresh_cap, (size_t)K * (size_t)nb + 1))) return err;
        memset(c->fresh, 1, (size_t)K * (size_t)nb);
    }
    /* Per block: the reduce-scatter's last receive of it here and its send of it (-1: none). */
    int64_t *last0 = NULL, *send0 = NULL;
    char *posted = NULL;
    if ((err = gsp_alloc_array((void **)&last0, nb + 1, sizeof *last0, false)) || (err = gsp_alloc_array((void **)&send0, nb + 1, sizeof *send0, false)) ||
        (err = gsp_alloc_array((void **)&posted, (int64_t)K * nR1 + 1, 1, true)))
        goto done;
    for (int64_t b = 0; b < nb; b++) last0[b] = send0[b] = -1;
    for (int64_t q = 0; q < nR0; q++)
        for (int64_t i = 0; i < p0->recv[q].n; i++) last0[p0->items[p0->recv[q].first + i]] = q;
    for (int64_t q = 0; q < nS0; q++)
        for (int64_t i = 0; i < p0->send[q].n; i++) send0[p0->items[p0->send[q].first + i]] = q;
    MPI_Request *rq0 = c->req, *sq0 = c->req + (size_t)K * (size_t)nR0, *rq1 = c->req + all0, *sq1 = rq1 + (size_t)K * (size_t)nR1;
    int *st0 = c->idx, *ss0 = st0 + (size_t)K * (size_t)nR0, *st1 = c->idx + all0, *ss1 = st1 + (size_t)K * (size_t)nR1;
    for (int64_t q = 0; q < all; q++) {
        c->req[q] = MPI_REQUEST_NULL;
        c->idx[q] = 0;
    }
    c->nreq = (size_t)all;
    c->communicated = true;
    lay_t l = *l0;
    int wr = p0->wmax > window ? p0->wmax : window;
    if (p1->wmax > wr) wr = p1->wmax;
    int ahead = wr + 2 < K ? wr + 2 : K;
    for (int j = 0; j < ahead && !err; j++) {
        l.lane = j;
        for (int64_t q = 0; q < nR0 && !err; q++) err = post_recv(c, p0, 0, q, base, &l, d, c->soff + (size_t)j * (size_t)per0, &rq0[(size_t)j * (size_t)nR0 + (size_t)q]);
    }
    if (err) goto done;
    /* No turns here: the allgather's sends share the links from the start, and the reduce-scatter's
     * leaves holding back their sends into the roots only delayed the sums the allgather waits
     * for (dgx:8x2's 64 MiB allreduce under SMPI, factors at 1: 440.2 -> 450.8 us). */
    pipe_t pp0 = {c, p0, 0, base, l0, d, window, st0, ss0, sq0, 0, c->soff, false, NULL, NULL, 0, NULL, NULL, 0, 0, NULL, false, false, NULL, NULL, NULL, MPI_OP_NULL};
    pipe_t pp1 = {c, p1, 1, base, l0, d, window, st1, ss1, sq1, 0, c->soff + all0, true, last0, st0, nR0, NULL, NULL, 0, 0, NULL, false, false, NULL, NULL, NULL, MPI_OP_NULL};
    fuse_t F = {c, p1, base, l0, d, K, ahead, nR1, nS0, all0, per1, send0, ss0, st1, posted, rq1};
    for (int j = 0; j < ahead && !err; j++) err = post1(&F, j, 0, nR1);
    for (int j = 0; j < K && !err; j++) err = try_issue(&pp0, j);
    for (int j = 0; j < K && !err; j++) err = try_issue(&pp1, j);
    int64_t done = 0;
    while (!err && done < all) {
        int i;
        int rc = MPI_Waitany((int)all, c->req, &i, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            err = gsp__mpi_fail(c, rc, "MPI_Waitany");
            break;
        }
        if (i == MPI_UNDEFINED) {
            err = gsp_error(GSP_ERR_INTERNAL, "fused phases stalled with %lld of %lld messages done", (long long)done, (long long)all);
            break;
        }
        done++;
        bool one = i >= all0;
        int64_t k = one ? i - all0 : i, nR = one ? nR1 : nR0, nS = one ? nS1 : nS0, per = one ? per1 : per0;
        const gsp_rt_prog_t *p = one ? p1 : p0;
        int *st = one ? st1 : st0;
        pipe_t *pp = one ? &pp1 : &pp0;
        if (k < (int64_t)K * nR) {
            int j = (int)(k / nR);
            int64_t q = k % nR;
            st[k] = 1;
            if (one) err = post1(&F, j + ahead, q, q + 1);
            else if (j + ahead < K) {
                l.lane = j + ahead;
                err = post_recv(c, p0, 0, q, base, &l, d, c->soff + (size_t)(j + ahead) * (size_t)per0, &rq0[(size_t)(j + ahead) * (size_t)nR0 + (size_t)q]);
            }
            if (err) break;
            if (p->recv[q].prev >= 0 && st[(size_t)j * (size_t)nR + (size_t)p->recv[q].prev] != 2) continue;
            l.lane = j;
            const void *in = c->in;
            if (one) c->in = NULL;
            for (int64_t r = q; r >= 0 && st[(size_t)j * (size_t)nR + (size_t)r] == 1 && !err; r = p->recv[r].next) {
                err = absorb(c, p, r, r + 1, c->soff + (one ? all0 : 0) + (size_t)j * (size_t)per, base, &l, d, op);
                st[(size_t)j * (size_t)nR + (size_t)r] = 2;
            }
            c->in = in;
            if (!err) err = try_issue(pp, j);
            /* A sum complete here may let the allgather's root sends go. */
            if (!err && !one) err = try_issue(&pp1, j);
        } else {
            int64_t s2 = k - (int64_t)K * nR;
            err = send_done(pp, s2);
            if (!err && !one) err = post1(&F, (int)(s2 / nS), 0, nR1);
        }
    }
done:
    gsp_free(last0);
    gsp_free(send0);
    gsp_free(posted);
    return err;
}

gsp_err_t gsp__mpi_run_fused(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p0, const gsp_rt_prog_t *p1, void *base, const lay_t *l0, const dtinfo_t *d,
                             MPI_Op op) {
    c->nreq = 0;
    gsp_err_t err = run_fused(c, p0, p1, base, l0, d, op);
    if (err && c->nreq) abandon(c->req, c->nreq);
    c->nreq = 0;
    return err;
}

/* Runs one phase on buffer base, as `lanes` copies of the schedule on segments of the blocks.
 * Dataflow: all receives are posted first; a lane's send goes out as soon as the receives it
 * depends on (that lane's rounds <= need) are complete and processed. Each lane processes its
 * receives in round order and lanes touch disjoint segments, so the reduction order of every
 * element is the schedule's, whatever the timing. */
static gsp_err_t run_rounds(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                            MPI_Op op);

/* ---- small phases: the messages of a round, then the next round ---- */

/* Messages, messages a round each way, and bytes a message up to which a phase runs as small. */
#define SMALL_MSGS 64
#define SMALL_PER_ROUND 8
#define SMALL_BYTES 4096

/* Whether phase p runs as small: one lane of a plain type, not pipelined, at most
 * SMALL_PER_ROUND sends and receives a round, every message at most SMALL_BYTES. Each rank
 * decides alone: the small run's messages are the general one's (types, counts and tags). */
bool gsp__mpi_small_phase(const gsp_rt_prog_t *p, const lay_t *l, const dtinfo_t *d) {
    if (p->pipelined || l->lanes != 1 || !d->plain || p->nsend > SMALL_MSGS || p->nrecv > SMALL_MSGS) return false;
    for (int k = 0; k < 2; k++) {
        const gsp_rt_msg_t *m = k ? p->recv : p->send;
        int64_t n = k ? p->nrecv : p->nsend;
        for (int64_t q = 0; q < n; q++) {
            if (q >= SMALL_PER_ROUND && m[q].round == m[q - SMALL_PER_ROUND].round) return false;
            int64_t b = 0;
            for (int64_t i = 0; i < m[q].n; i++) b += blk_len(l, p->items[m[q].first + i]);
            if (b * d->size > SMALL_BYTES) return false;
        }
    }
    return true;
}

/* Where a small phase's send q reads (*buf, *count of *type): one block as the type itself,
 * straight from the buffer; several packed into area (as the general engine sends them). */
static void small_send(const gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, void *base, const lay_t *l,
                       const dtinfo_t *d, char *area, void **buf, int *count, MPI_Datatype *type) {
    int64_t b0 = p->items[x->first];
    *type = d->dt;
    if (x->n == 1) {
        *buf = src_at(c, base, l, b0, d);
        *count = (int)blk_len(l, b0);
        return;
    }
    int pos = 0;
    for (int64_t i = 0; i < x->n; i++) {
        int64_t blk = p->items[x->first + i], len = blk_len(l, blk);
        memcpy(area + pos, src_at(c, base, l, blk, d), (size_t)(len * d->size));
        pos += (int)(len * d->size);
    }
    *buf = area;
    *count = pos;
    *type = MPI_PACKED;
}

/* Where a small phase's receive lands: one stored block straight into the buffer, else staged
 * at area. */
static void small_recv(const gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, const gsp_rt_msg_t *x, void *base, const lay_t *l,
                       const dtinfo_t *d, char *area, void **buf, int *count, MPI_Datatype *type) {
    int64_t b0 = p->items[x->first];
    *type = d->dt;
    *buf = direct(p, x, true) ? at(base, blk_first(l, b0), d) : area;
    *count = (int)blk_len(l, b0);
    if (x->n > 1) {
        *count = (int)msg_bytes(p, x, l, d, c->comm);
        *type = MPI_PACKED;
    }
}

/* A small phase, round by round: a round's receives posted, its sends made (blocking: small
 * messages go eagerly), its receives completed and absorbed in schedule order; a round of one
 * send and one receive is one MPI_Sendrecv, a lone receive one MPI_Recv. A send needs only earlier rounds' receives, and it
 * has completed before anything is combined into the buffer, so nothing is copied aside (an
 * exchange's block goes straight from the buffer). This is the shape of MPI's own small
 * collectives (Open MPI's recursive doubling: a receive, a send and a wait a step): a call costs
 * its messages, not the general engine's request arrays and dataflow. Deadlock-free: the ranks
 * of the earliest unfinished round have all posted that round's receives before any send. */
static gsp_err_t run_small(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l, const dtinfo_t *d,
                           MPI_Op op) {
    gsp_err_t err;
    int64_t nR = p->nrecv, nS = p->nsend;
    MPI_Request rq[SMALL_PER_ROUND];
    /* Staging: a round's receives at q * SMALL_BYTES, a packed send after them. */
    char *pack;
    if ((err = gsp__mpi_reserve((void **)&c->stage, &c->stage_cap, (SMALL_PER_ROUND + 1) * SMALL_BYTES + 1)) ||
        (err = gsp__mpi_reserve((void **)&c->soff, &c->soff_cap, (size_t)(nR + 1) * sizeof *c->soff)))
        return err;
    pack = c->stage + SMALL_PER_ROUND * SMALL_BYTES;
    if (c->in) {
        if ((err = gsp__mpi_reserve((void **)&c->fresh, &c->fresh_cap, (size_t)nblk(l) + 1))) return err;
        memset(c->fresh, 1, (size_t)nblk(l));
    }
    c->communicated = true;
    for (int64_t s0 = 0, r0 = 0; s0 < nS || r0 < nR;) {
        int64_t round = s0 < nS && (r0 >= nR || p->send[s0].round <= p->recv[r0].round) ? p->send[s0].round : p->recv[r0].round;
        int64_t s1 = s0, r1 = r0;
        while (s1 < nS && p->send[s1].round == round) s1++;
        while (r1 < nR && p->recv[r1].round == round) r1++;
        int tag = tag_of(c, phase, 0, (int32_t)round), rc = MPI_SUCCESS, cnt, scnt;
        void *buf, *sbuf;
        MPI_Datatype type, stype;
        for (int64_t q = r0; q < r1; q++) c->soff[q] = (size_t)(q - r0) * SMALL_BYTES;
        if (s1 - s0 == 1 && r1 - r0 == 1) {
            small_send(c, p, &p->send[s0], base, l, d, pack, &sbuf, &scnt, &stype);
            small_recv(c, p, &p->recv[r0], base, l, d, c->stage, &buf, &cnt, &type);
            rc = MPI_Sendrecv(sbuf, scnt, stype, (int)p->send[s0].peer, tag, buf, cnt, type, (int)p->recv[r0].peer, tag, c->comm,
                              MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Sendrecv");
        } else if (s1 == s0 && r1 - r0 == 1) {
            /* A lone receive (a broadcast's or reduction's leaf): blocking, as MPI's own small
             * collectives receive. An MPI_Irecv and MPI_Waitall pair costs a request's
             * allocation and completion more: 15-20 % of a one-int broadcast on this machine. */
            small_recv(c, p, &p->recv[r0], base, l, d, c->stage, &buf, &cnt, &type);
            rc = MPI_Recv(buf, cnt, type, (int)p->recv[r0].peer, tag, c->comm, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Recv");
        } else {
            int n = 0;
            for (int64_t q = r0; q < r1 && rc == MPI_SUCCESS; q++, n++) {
                small_recv(c, p, &p->recv[q], base, l, d, c->stage + c->soff[q], &buf, &cnt, &type);
                rc = MPI_Irecv(buf, cnt, type, (int)p->recv[q].peer, tag, c->comm, &rq[n]);
            }
            if (rc != MPI_SUCCESS) {
                abandon(rq, (size_t)n - 1);
                return gsp__mpi_fail(c, rc, "MPI_Irecv");
            }
            const char *what = "MPI_Send";
            for (int64_t q = s0; q < s1 && rc == MPI_SUCCESS; q++) {
                small_send(c, p, &p->send[q], base, l, d, pack, &sbuf, &scnt, &stype);
                rc = MPI_Send(sbuf, scnt, stype, (int)p->send[q].peer, tag, c->comm);
            }
            if (rc == MPI_SUCCESS && n) {
                what = "MPI_Waitall";
                rc = MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
            }
            if (rc != MPI_SUCCESS) {
                abandon(rq, (size_t)n);
                return gsp__mpi_fail(c, rc, what);
            }
        }
        if (r1 > r0 && (err = absorb(c, p, r0, r1, c->soff, base, l, d, op))) return err;
        s0 = s1;
        r0 = r1;
    }
    return GSP_OK;
}

bool gsp__mpi_script(const gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, const lay_t *l, const dtinfo_t *d, script_t *s) {
    s->nsteps = 0;
    if (p->kind != GSP_RT_STORE || p->exchange || !gsp__mpi_small_phase(p, l, d)) return false;
    int64_t nR = p->nrecv, nS = p->nsend;
    int k = 0;
    for (int64_t s0 = 0, r0 = 0; s0 < nS || r0 < nR;) {
        int64_t round = s0 < nS && (r0 >= nR || p->send[s0].round <= p->recv[r0].round) ? p->send[s0].round : p->recv[r0].round;
        int64_t s1 = s0, r1 = r0;
        while (s1 < nS && p->send[s1].round == round) s1++;
        while (r1 < nR && p->recv[r1].round == round) r1++;
        /* The shapes run_small makes without requests; one block a message, straight from
         * and into the buffer (as small_send and small_recv then place it). */
        if (r1 - r0 > 1 || (r1 > r0 && s1 - s0 > 1)) return false;
        for (int64_t q = s0; q < s1; q++)
            if (p->send[q].n != 1) return false;
        if (r1 > r0 && !direct(p, &p->recv[r0], true)) return false;
        int tag = tag_of(c, phase, 0, (int32_t)round);
        script_step_t st = {0, -1, -1, tag, 0, 0, 0, 0};
        if (r1 > r0) {
            int64_t b = p->items[p->recv[r0].first];
            st.rpeer = (int)p->recv[r0].peer;
            st.rcount = (int)blk_len(l, b);
            st.roff = blk_first(l, b) * d->size;
        }
        for (int64_t q = s0; q < s1 || (q == s0 && s1 == s0); q++) {
            if (k == SCRIPT_STEPS) return false;
            script_step_t x = st;
            if (q < s1) {
                int64_t b = p->items[p->send[q].first];
                x.speer = (int)p->send[q].peer;
                x.scount = (int)blk_len(l, b);
                x.soff = blk_first(l, b) * d->size;
            }
            x.kind = x.rpeer < 0 ? SCRIPT_SEND : x.speer < 0 ? SCRIPT_RECV : SCRIPT_SENDRECV;
            s->step[k++] = x;
        }
        s0 = s1;
        r0 = r1;
    }
    s->nsteps = k;
    return true;
}

gsp_err_t gsp__mpi_run_script(gsp_mpi_ctx_t *c, const script_t *s, void *base, const dtinfo_t *d) {
    char *b = base;
    c->communicated = true;
    for (int k = 0; k < s->nsteps; k++) {
        const script_step_t *x = &s->step[k];
        int rc;
        if (x->kind == SCRIPT_SEND) rc = MPI_Send(b + x->soff, x->scount, d->dt, x->speer, x->tag, c->comm);
        else if (x->kind == SCRIPT_RECV) rc = MPI_Recv(b + x->roff, x->rcount, d->dt, x->rpeer, x->tag, c->comm, MPI_STATUS_IGNORE);
        else
            rc = MPI_Sendrecv(b + x->soff, x->scount, d->dt, x->speer, x->tag, b + x->roff, x->rcount, d->dt, x->rpeer, x->tag, c->comm,
                              MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, x->kind == SCRIPT_SEND ? "MPI_Send" : x->kind == SCRIPT_RECV ? "MPI_Recv" : "MPI_Sendrecv");
    }
    return GSP_OK;
}

/* Runs a phase; on an error after its first message, its requests are released. */
gsp_err_t gsp__mpi_run_phase(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                           MPI_Op op) {
    c->nreq = 0;
    /* A cached call's layout knows (mpi_coll.c: fast_fill); otherwise look. */
    if (l0->small ? l0->small == 1 : gsp__mpi_small_phase(p, l0, d)) return run_small(c, p, phase, base, l0, d, op);
    gsp_err_t err = p->pipelined ? run_pipelined(c, p, phase, base, l0, d, op) : run_rounds(c, p, phase, base, l0, d, op);
    if (err && c->nreq) abandon(c->req, c->nreq);
    c->nreq = 0;
    return err;
}

/* Rounds of receives posted beyond the one a lane waits for. */
#define RECV_AHEAD 4

/* Under SimGrid SMPI (smpicc's mpi.h defines SMPI_H) the round engine's sends are synchronous
 * and each lane's sends are waited for SIM_REAP rounds after they were issued. SimGrid keeps
 * every eager (detached) message of the whole simulation in one list, and every message a
 * rank has not waited for in another, and walks the list on each completion: with the
 * all-port, many-lane phases' thousands of messages in flight that was most of the real time
 * a simulation took (perf, SimGrid 3.32: 93 % of a 4 MiB allgather's on a 16x16 torus). A
 * synchronous send is in neither list once waited for, and changes no simulated time: the
 * round engine waits for a send only rounds after it went out, when it has arrived, or at the
 * phase's end (measured: every gossip cell of bench/README.md's 16x16 torus the same to the
 * nanosecond; real time of a 4 MiB allgather's call 287.6 -> 45.8 s). On a real network a
 * synchronous send would add a handshake to every small message: only here. */
#ifdef SMPI_H
#define SIM_SYNC true
#define SIM_REAP 2
#else
#define SIM_SYNC false
#define SIM_REAP 0
#endif

/* Posts lane j's receives up to round `upto` + RECV_AHEAD (posted[j]: how many are posted). */
static gsp_err_t post_lane(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, int j, const dtinfo_t *d,
                           int64_t *posted, int32_t upto) {
    int64_t nR = p->nrecv, per = nR + p->nsend;
    lay_t l = *l0;
    l.lane = j;
    MPI_Request *rq = c->req + (size_t)j * (size_t)per;
    const size_t *so = c->soff + (size_t)j * (size_t)per;
    int64_t limit = (int64_t)upto + RECV_AHEAD;
    for (; posted[j] < nR && p->recv[posted[j]].round <= limit; posted[j]++) {
        gsp_err_t err = post_recv(c, p, phase, posted[j], base, &l, d, so, &rq[posted[j]]);
        if (err) return err;
    }
    return GSP_OK;
}

static gsp_err_t post_ahead(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                            int64_t *posted, int32_t upto) {
    for (int j = 0; j < l0->lanes; j++) {
        gsp_err_t err = post_lane(c, p, phase, base, l0, j, d, posted, upto);
        if (err) return err;
    }
    return GSP_OK;
}

static gsp_err_t run_rounds(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d,
                            MPI_Op op) {
    gsp_err_t err;
    int K = l0->lanes;
    int64_t nR = p->nrecv, nS = p->nsend, per = nR + nS;
    if ((err = gsp__mpi_reserve((void **)&c->req, &c->req_cap, (size_t)(K * per + 1) * sizeof *c->req)) ||
        (err = gsp__mpi_reserve((void **)&c->soff, &c->soff_cap, (size_t)(K * per + 1) * sizeof *c->soff)) ||
        (err = gsp__mpi_reserve((void **)&c->lane, &c->lane_cap, (size_t)(3 * K + 1) * sizeof *c->lane)) ||
        (err = gsp__mpi_reserve((void **)&c->idx, &c->idx_cap, (size_t)(2 * nS + c->size + 1) * sizeof *c->idx)))
        return err;
    if ((err = stage_and_fresh(c, p, l0, d))) return err;
    /* A send that waits for no newer receive than the lane's previous send to the same peer
     * (a root scattering its vector: nothing to wait for at all) goes once that one is
     * delivered: issued at once, all of a peer's messages would share the link and arrive
     * together at the end, and the peer could forward none of them early — the round-by-round
     * time the cost model predicts. Measured under SimGrid SMPI (torus 16x16, 10 GB/s links):
     * the rings' broadcast of 1 MiB took 206 us with the root's messages all at once, against a
     * prediction of 124. wait_on[q]: that previous send, or -1; waited[q]: whether a later send
     * waits for q (then q is synchronous). */
    int *wait_on = c->idx, *waited = c->idx + nS, *lastq = c->idx + 2 * nS;
    for (int r = 0; r < c->size; r++) lastq[r] = -1;
    for (int64_t q = 0; q < nS; q++) {
        int prev = lastq[p->send[q].peer];
        wait_on[q] = prev >= 0 && p->send[prev].need >= p->send[q].need ? prev : -1;
        waited[q] = 0;
        if (wait_on[q] >= 0) waited[prev] = 1;
        lastq[p->send[q].peer] = (int)q;
    }
    for (int64_t q = 0; q < K * per; q++) c->req[q] = MPI_REQUEST_NULL; /* not yet posted or issued */
    c->nreq = (size_t)(K * per);
    c->communicated = true;
    /* Receives are posted RECV_AHEAD rounds ahead of the round being waited for, not all at
     * once: a phase of N/d rounds would otherwise hold thousands of receives per rank, and an
     * MPI (SimGrid's, and real ones' matching queues) pays for every outstanding request on
     * each completion. Senders are never blocked by it: eager messages wait in the unexpected
     * queue, rendezvous ones for a receive posted rounds before they are needed. */
    int64_t *posted = c->lane + K; /* per lane: receives posted */
    for (int j = 0; j < K; j++) posted[j] = 0;
    int32_t first_round = nR ? p->recv[0].round : 0;
    if ((err = post_ahead(c, p, phase, base, l0, d, posted, first_round))) return err;
    /* Sends go out in round order, lane by lane within a round; before each, its lane's
     * receives up to the round it needs are waited for (blocking: SMPI charges simulated time
     * for every MPI_Test, and real MPIs spin in them) and processed in order. Every send needs
     * only earlier rounds, so every rank's earlier messages are already on their way. */
    int64_t *done = c->lane; /* per lane: receives processed */
    for (int j = 0; j < K; j++) done[j] = 0, c->lane[2 * K + j] = 0;
    for (int64_t s0 = 0; s0 <= nS;) {
        int64_t s1 = s0;
        while (s1 < nS && p->send[s1].round == p->send[s0].round) s1++;
        for (int j = 0; j < K; j++) {
            lay_t l = *l0;
            l.lane = j;
            MPI_Request *rq = c->req + (size_t)j * (size_t)per, *sq = rq + nR;
            const size_t *so = c->soff + (size_t)j * (size_t)per;
            for (int64_t q = s0; q <= s1; q++) {
                int32_t need = q < nS && s0 < nS ? p->send[q].need : INT32_MAX;
                if (q == s1 && s0 < nS) break;
                while (done[j] < nR && p->recv[done[j]].round <= need) {
                    if (posted[j] <= done[j] && (err = post_lane(c, p, phase, base, l0, j, d, posted, p->recv[done[j]].round)))
                        return err;
                    int64_t e = done[j];
                    while (e < nR && p->recv[e].round == p->recv[done[j]].round) e++;
                    int rc = MPI_Waitall((int)(e - done[j]), rq + done[j], MPI_STATUSES_IGNORE);
                    if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Waitall");
                    if ((err = absorb(c, p, done[j], e, so, base, &l, d, op))) return err;
                    done[j] = e;
                    if (done[j] < nR && (err = post_lane(c, p, phase, base, l0, j, d, posted, p->recv[done[j]].round))) return err;
                }
                if (q >= nS) break;
                if (SIM_REAP > 0) {
                    int64_t *rp = c->lane + 2 * K; /* per lane: sends waited for */
                    for (; rp[j] < q && p->send[rp[j]].round + SIM_REAP <= p->send[q].round; rp[j]++) {
                        int rc = MPI_Wait(&sq[rp[j]], MPI_STATUS_IGNORE);
                        if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Wait");
                    }
                }
                if (wait_on[q] >= 0) {
                    int rc = MPI_Wait(&sq[wait_on[q]], MPI_STATUS_IGNORE);
                    if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Wait");
                }
                if ((err = issue_send(c, p, phase, q, base, &l, d, so, &sq[q], SIM_SYNC || waited[q] != 0))) return err;
            }
        }
        if (s0 == nS) break;
        s0 = s1;
    }
    for (int j = 0; j < K; j++) {
        MPI_Request *sq = c->req + (size_t)j * (size_t)per + nR;
        int rc = MPI_Waitall((int)nS, sq, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Waitall");
    }
    return GSP_OK;
}

/* Lanes for a phase: blocks cut into segments of about cost.segment bytes (none when 0), at most
 * GSP_RT_MAX_LANES, and never an empty segment. */
static int lanes_for(const gsp_mpi_ctx_t *c, const lay_t *l, const dtinfo_t *d) {
    if (c->cost.segment <= 0 || l->count == 0) return 1;
    int64_t shortest = base_len(l, l->n - 1) / l->parts, longest = whole_len(l, 0);
    if (l->layout == GSP_RT_SPLIT && l->count % l->n == 0 && base_len(l, 0) % l->parts == 0) shortest = longest;
    int64_t k = (longest * d->size + c->cost.segment - 1) / c->cost.segment;
    if (k > GSP_RT_MAX_LANES) k = GSP_RT_MAX_LANES; /* enough to pipeline; more only multiplies messages */
    if (k > shortest) k = shortest;
    return k < 1 ? 1 : (int)k;
}

lay_t gsp__mpi_layout(const gsp_mpi_ctx_t *c, gsp_rt_layout_t kind, int64_t count, const dtinfo_t *d) {
    lay_t l = {kind, count, c->size, 1, 0, 1, 0, 0, false, 0, false, false, false, false, false, 0, false, 0, false};
    l.lanes = lanes_for(c, &l, d);
    return l;
}

/* The elements of a pipelined phase's shortest part (the last block's, cut in parts), which its
 * lanes cut again. */
static int64_t least_part(const lay_t *l) { return l->parts > 1 ? base_len(l, l->n - 1) / l->parts : whole_len(l, l->n - 1); }

/* A phase's layout before box_lanes: its own block count and parts, and for a pipelined phase
 * the cost model's segments. */
static lay_t cost_layout(const gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, int64_t count, const dtinfo_t *d) {
    if (!ph->pipelined) {
        lay_t l = {ph->layout, count, c->size, 1, 0, ph->parts > 1 ? ph->parts : 1, 0, 0, false, 0, false, false, false, false, false, 0, false, 0, false};
        if (c->cost.segment > 0 || count == 0) l.lanes = lanes_for(c, &l, d);
        else {
            /* The cost model's lanes (the predictions use the same), never an empty segment. */
            int64_t shortest = base_len(&l, l.n - 1) / l.parts, k = gsp_rt_lanes(ph, (double)whole_len(&l, 0) * d->size, &c->cost);
            if (l.layout == GSP_RT_SPLIT && l.count % l.n == 0 && base_len(&l, 0) % l.parts == 0) shortest = whole_len(&l, 0);
            if (k > shortest) k = shortest;
            l.lanes = k < 1 ? 1 : (int)k;
        }
        return l;
    }
    /* A fabric's trees cut each block into parts (rt_fabric.c); the segments cut the parts. */
    lay_t l = {ph->layout, count, ph->nblocks > 0 ? ph->nblocks : c->size, 1, 0, ph->parts > 1 ? ph->parts : 1, 0, ph->levels > 0 ? 1 : 0, false, 0, false, false, false, false, false, 0, false, 0, false};
    int64_t shortest = least_part(&l), k = gsp_rt_segments(ph, (double)whole_len(&l, 0) * d->size, &c->cost),
            least = (whole_len(&l, 0) * d->size + GSP__MPI_MAX_SEGMENT - 1) / GSP__MPI_MAX_SEGMENT;
    if (k < least) k = least;
    if (k > shortest) k = shortest;
    l.lanes = k < 1 ? 1 : (int)k;
    /* A fabric broadcast's trees, a part each (rt_fabric.c: its blocks are the parts, nblocks), in
     * several lanes: odd parts' lanes half a lane off the even ones' (stagger_cut), where every
     * lane keeps at least one element. Not an allreduce's allgather (its blocks the ranks', cut
     * in parts), whose fused run takes its reduce-scatter's lanes. */
    l.stagger = ph->levels > 0 && ph->kind == GSP_RT_STORE && ph->layout == GSP_RT_SPLIT && ph->nblocks > 0 && l.n > 1 && l.lanes > 1 &&
                shortest >= 2 * (int64_t)l.lanes;
    /* A reduce phase's in-trees deeper than two or three levels (the shallow trees: 12 on
     * mi250:2): every rank is a leaf of many trees, and its leaves' sends, free from the start,
     * would take the links in lane after lane while the sums on their way up waited for them (a
     * trace of mi250:2's 16 MiB reduce-scatter under SMPI: each lane's leaves in one wave, the
     * last of lane 0 at 83.0 us of 113.7, each NIC idle 41 % of the call). Its sends go in the
     * order of the time-reversed allgather: by level (rt_fabric.c: round = level * trees + tree,
     * the deepest senders at level 0) plus lane, at most GATE_AHEAD keys ahead of the rank's
     * least unfinished one. The least unfinished key of all ranks may always go (its children's
     * sends and its own earlier lane are of lower keys), so the gate never deadlocks. Phases that
     * take turns (rt_fabric.c: two-level trees, the ring trees) are not gated (run_pipelined). */
    if (ph->levels > 3 && ph->kind == GSP_RT_REDUCE && ph->nrounds % ph->levels == 0) l.gate = ph->nrounds / ph->levels;
    l.deep = ph->levels > GSP__MPI_DEEP_LEVELS;
    return l;
}

/* The least lanes (a reduce-scatter's where its pieces allow), the lanes in flight per edge, and
 * the least piece of a part in bytes, of a phase on a box's trees (box_lanes). */
#define BOX_LANES 5
#define BOX_REDUCE_LANES 6
#define BOX_WINDOW 3
#define BOX_PIECE 512
/* A reduce-scatter's lanes, a tree's block each, as long as this many latencies go one in flight. */
#define BOX_ONE_LATENCIES 8.0

double gsp__mpi_lane_latencies(const gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const lay_t *l, const dtinfo_t *d) {
    if (ph->levels <= 0 || ph->param[4] <= 0 || ph->param[5] <= 0 || l->lanes < 1 || l->n < 1) return 0;
    /* The phase's data, M (the allgather's output, the reduce-scatter's input: its n blocks,
     * of count elements each where a rank's block is the layout's), crosses the fabric in M /
     * algbw, the algbw in the capacities' unit taken as GB/s (rt_cost.c). */
    double M = (double)l->count * (double)(l->layout == GSP_RT_RANK ? l->n : 1) * d->size, T = M * (double)ph->param[5] / ((double)ph->param[4] * 1e9);
    double piece = M / ((double)l->n * (double)(l->parts > 1 ? l->parts : 1) * l->lanes), al = gsp_cost_alpha(&c->cost, piece);
    return al > 0 ? T / l->lanes / al : 0;
}

/* A store phase with uneven chunks (the cut is slow links, chunk_streams) in lanes of at least
 * UNEVEN_LANE_CHUNKS of the band's mean chunks, at most UNEVEN_LANES_MAX, UNEVEN_WINDOW in flight.
 * The NICs' streams set such a phase's time and the call's tail is the last lane's relay over
 * the box's links after the NICs' last chunks: a shorter last lane, a shorter tail. dgx:8x4's 64
 * MiB allgather under SMPI's defaults (a rank's block 2 MiB), lanes x in flight: 5 x 3 (box_lanes)
 * 330.9 us, 7 x 3 310.5, 8 x 2 311.8, 8 x 3 310.4, 9 x 3 318.8, 10 x 2 336.5, 10 x 3 309.2, 12 x 3
 * 301.2, 12 x 4 300.2, 16 x 3 294.4, 16 x 4 295.4, 16 x 5 295.4, 20 x 4 405.3, 24 x 4 349.5, 24 x 6
 * 294.4: jagged past 16 (2 MiB in 16 lanes: 16 chunks of 8152 bytes a lane). */
#define UNEVEN_LANE_CHUNKS 16
#define UNEVEN_LANES_MAX 16
#define UNEVEN_WINDOW 3
/* The allgather's (a store phase's) lanes in flight there: UNEVEN_STORE_WINDOW. On three boxes
 * (dgx:8x3, a rank's block 2.8 MB at 64 MiB, 16 lanes by the rule above) three in flight fell in
 * a hole of the landscape: 329.3 us (1.47x the bound 223.7); lanes x in flight 9 x 3 274.3, 10 x
 * 3 274.9, 11 x 3 294.0, 12 x 3 293.7, 10 x 2 315.7, 16 x 2 396.7, 10 x 4 275.2, 11 x 4 273.3,
 * 12 x 4 278.6, 16 x 4 279.7 (1.25x), 10 x 5 274.9: four hold from 10 to 16 lanes. dgx:8x4's 16 x
 * 4 295.4 against 16 x 3 294.4 (above). */
#define UNEVEN_STORE_WINDOW 4
/* A reduce-scatter's in-trees there (the fill's, two levels: a box's sums to its NICs, then the
 * other box's), where each GPU's NIC streams to two boxes or more, in uneven chunks too, in lanes
 * of at least UNEVEN_REDUCE_LANE_CHUNKS mean chunks (22 until session 59), UNEVEN_WINDOW in
 * flight, where that gives more lanes than box_lanes'. In box_lanes' six lanes, two in flight,
 * each GPU's NIC streams to the other three boxes of dgx:8x4 went in waves of a lane's chunks
 * started together and ended together, the first only once the first lane's sums had come round
 * the box over NVLink (31 us: a sixth of every block), and each wave paid its latency with the
 * NIC idle (a trace of dgx:8x4's 64 MiB reduce-scatter under SimGrid SMPI's defaults: the NICs'
 * first bytes in at 55.8 us, the call 307.0). dgx:8x4's 64 MiB reduce-scatter, lanes x in
 * flight, equal chunks: 6 x 2 (box_lanes) 307.0 us, 6 x 3 307.0, 8 x 3 351.2, 10 x 3 296.3, 12 x
 * 2 321.5, 12 x 3 285.1, 12 x 4 285.1, 14 x 3 349.8, 16 x 3 352.6; uneven: 6 x 2 415.0, 10 x 3
 * 298.4, 11 x 3 (this rule) 276.0, 12 x 3 277.8, 13 x 3 293.9, 16 x 3 315.4. A jagged landscape
 * again (equal messages on a link end together in SimGrid), whose one plateau, 10 to 13 lanes
 * uneven, is all within 1.2x the bound 251.7; the rule takes its middle (UNEVEN_REDUCE_LANES). Not
 * where the NIC streams to one box (dgx:4x2, the same blocks of 2 MiB at 16 MiB: 109.6 us in
 * box_lanes' lanes, 121.6 in this rule's). Since the fill's root streams (session 58) the rule
 * holds on three boxes too (UNEVEN_BOXES, below), at most 11 lanes: dgx:8x3's 64 MiB
 * reduce-scatter under SMPI's defaults, uneven, three in flight, in 10 / 11 / 12 / 13 lanes 249.7
 * / 248.2 / 261.0 / 248.2 us, against 289.2 in the 7 lanes of equal chunks it took before (1.29x
 * -> 1.11x the bound 223.7); and in lanes of fewer chunks, down to 8, for smaller blocks: dgx:4x3's
 * 16 MiB in 6 / 7 / 8 / 9 / 10 / 11 lanes 139.8 / 130.9 / 126.8 / 126.6 / 126.6 / 126.8 (126.9 in
 * box_lanes'), dgx:8x3's 16 MiB 88.2 -> 84.6 (10 lanes), dgx:8x4's 101.3 -> 97.4 (8), dgx:4x4's
 * 8 MiB 87.8 -> 81.6 (8), 16 MiB 148.8 -> 140.4 (11; bench/README.md, session 59). */
#define UNEVEN_REDUCE_LANE_CHUNKS 8
#define UNEVEN_REDUCE_LANES 11
/* The allgather's rule above only where each GPU's NIC streams to UNEVEN_BOXES boxes or more:
 * where it streams to one (dgx:4x2), its 16 lanes of 16 chunks were far too many (8 MiB: 105.3 us
 * in its 8, 81.7 in box_lanes' 5; 16 MiB: 186.1 in its 16, 124.2 in the 7 that stream, below).
 * The reduce-scatter's alike (until session 59 only where it streamed to three boxes or more: on
 * dgx:8x3, two, its 15 lanes then took the 64 MiB reduce-scatter 300.0 -> 372.6 us, before the
 * fill's root streams; now, in UNEVEN_REDUCE_LANES, 289.2 -> 248.2, above). */
#define UNEVEN_BOXES 2
/* Every such phase (either kind) in lanes enough that each lane's messages stream, at most
 * GSP_COST_CHUNK_MAX chunks each (chunks_of: more go whole, a large message's latency and no
 * stream), a staggered odd block's last lane one and a half lanes long (stagger_cut). dgx:4x2 (two
 * boxes of four GPUs, a rank's block 8 MiB) at 64 MiB under SimGrid SMPI's defaults: its
 * allgather in UNEVEN_LANES_MAX (16) lanes went whole, 543.2 us (1.62x the bound 335.5); in 17,
 * 20, 24, 25 (this rule), 26, 32: 366.1, 365.0, 511.9, 359.3, 359.1, 417.6 (1.07x); its
 * reduce-scatter in box_lanes' six 498.7, in equal chunks x 3 in flight, 14, 15, 21 (this rule),
 * 22: 419.5, 399.6, 380.0, 359.2 (1.13x). */
static int64_t stream_lanes(const lay_t *l, const dtinfo_t *d, int64_t chunk) {
    int64_t most = (int64_t)GSP_COST_CHUNK_MAX * chunk, bytes = least_part(l) * (int64_t)d->size;
    return (3 * bytes + 2 * most - 1) / (2 * most);
}

static void uneven_lanes(lay_t *l, gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const dtinfo_t *d, int64_t shortest) {
    int64_t lo, hi;
    double beta;
    /* The routes' widths and the cut (widths): on failure (memory) no more lanes here, and the
     * phase's chunks_init fails alike and reports it. */
    if ((ph->kind != GSP_RT_STORE && ph->kind != GSP_RT_REDUCE) || !gsp__mpi_chunk_streams(c, l, d) || !gsp_cost_band(&c->cost, &lo, &hi, &beta) ||
        widths(c) || !slow_route(c, c->cut_widest, (double)(hi - 1)))
        return;
    int64_t mean = (hi - 1) * UNEVEN_MEAN / UNEVEN_LONG, k = 0;
    /* The boxes a NIC streams to, from the binding cut (the same on every rank, so that both
     * ends of every message agree): the other boxes on its side S, one box off it (dgx:8x4: 24
     * GPUs and 8, dgx:4x2: 4 and 4). */
    bool boxes = c->cut_compute >= UNEVEN_BOXES * (c->size - c->cut_compute);
    if (boxes && mean > 0) k = shortest * (int64_t)d->size / ((ph->kind == GSP_RT_STORE ? UNEVEN_LANE_CHUNKS : UNEVEN_REDUCE_LANE_CHUNKS) * mean);
    if (ph->kind == GSP_RT_REDUCE && k > UNEVEN_REDUCE_LANES) k = UNEVEN_REDUCE_LANES;
    if (k > UNEVEN_LANES_MAX) k = UNEVEN_LANES_MAX;
    /* A store phase's chunks are uneven wherever the cut is slow (chunks_init), a reduce phase's
     * only with the rule above. */
    int64_t least = stream_lanes(l, d, ph->kind == GSP_RT_STORE || boxes ? mean : hi - 1);
    if (k < least) k = least;
    if (k > shortest) k = shortest;
    if (k <= l->lanes) return;
    l->lanes = (int)k;
    l->stagger = shortest >= 2 * k;
    l->window = ph->kind == GSP_RT_STORE ? UNEVEN_STORE_WINDOW : UNEVEN_WINDOW;
    l->uneven = boxes && ph->kind == GSP_RT_REDUCE;
    l->busy_fast = boxes && ph->kind == GSP_RT_STORE;
}

/* An allgather's or a reduce-scatter's phase on trees two or three levels deep (boxes of GPUs:
 * fabric_boxes.c; not a broadcast's or a reduce's trees, a part each) with the cost model's
 * segments: at least BOX_LANES lanes, odd parts half a lane off (stagger_cut) and BOX_WINDOW
 * lanes in flight per edge, where a part's pieces keep BOX_PIECE bytes (an allreduce's two
 * phases, fused, keep at most FUSED_WINDOW: run_fused). One lane in flight, a NIC's messages of a
 * lane all complete together (they share it alike) and the next lane's then pay their latency
 * with the NIC idle; the last lane's relay over the box's links is the call's tail (a trace of
 * dgx:8x2's 64 MiB allgather under SMPI's defaults: the NIC done at 250 us of 332,
 * bench/README.md). Staggered, the messages on an edge end at different times and, three in
 * flight, one's latency runs while another moves. Under SMPI's defaults, dgx:8x2's allgather: 64
 * MiB 332.3 -> 285.4 us, 16 MiB 105.7 -> 90.5, 4 MiB 33.9 -> 27.1 (2 MiB, pieces of 288 bytes:
 * 19.5 -> 20.2, hence BOX_PIECE); dgx:8x4 64 MiB 428.7 -> 415.2; with the factors at 1, dgx:8x2
 * 64 MiB 230.9 -> 224.6, 16 MiB 79.5 -> 60.9, 4 MiB 22.9 -> 19.1, dgx:8x4 64 MiB 301.4 -> 298.4.
 * Lanes x in flight swept at 64 MiB under the defaults (staggered): 3 x 2 302.6, 4 x 3 289.4, 5 x
 * 2 294.3, 5 x 3 285.4, 5 x 4 302.8, 6 x 3 312.4, 8 x 4 341.2; not staggered, none below 324.5.
 * A reduce-scatter's in-trees take BOX_REDUCE_LANES where a part's pieces keep BOX_PIECE bytes
 * (so two in flight): dgx:8x2 under the defaults 64 MiB 327.0 -> 278.0 us, 16 MiB 107.7 -> 96.2;
 * 4 MiB (five lanes, three in flight) 34.2 -> 25.9; factors at 1, 64 MiB 229.1 -> 228.8, 16 MiB
 * 66.8 -> 61.6, 4 MiB 21.8 -> 19.6. Swept at 64 MiB (defaults): 3 x 3 343.0, 4 x 3 323.9, 4 x 4
 * 344.0, 5 x 2 319.6, 5 x 3 311.0, 5 x 5 345.6, 6 x 2 278.0, 6 x 3 283.9, 7 x 1 353.8, 7 x 2 275.4
 * (but 4 MiB 34.2, 16 MiB 104.7), 7 x 3 298.5, 8 x 2 321.9, 8 x 3 333.2, 10 x 2 317.8, 12 x 2
 * 318.1: a jagged landscape (equal messages on a link end together in SimGrid), whose good points
 * are taken, not explained. */
static void box_lanes(lay_t *l, gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const dtinfo_t *d) {
    if (!ph->pipelined || ph->levels < 2 || ph->levels > 3 || ph->nblocks > 0 || l->gate > 0 || c->cost.segment > 0 || l->n < 2) return;
    int64_t shortest = least_part(l);
    if (shortest < 2 * BOX_LANES || shortest * d->size < BOX_LANES * BOX_PIECE) return;
    /* A reduce-scatter's, in a lane more where its pieces allow (so two in flight, below). */
    int least = ph->kind == GSP_RT_REDUCE && shortest >= 2 * BOX_REDUCE_LANES && shortest * d->size >= BOX_REDUCE_LANES * BOX_PIECE
                    ? BOX_REDUCE_LANES
                    : BOX_LANES;
    if (l->lanes < least) l->lanes = least;
    l->stagger = shortest >= 2 * (int64_t)l->lanes;
    /* In more lanes (the cost model's with SMPI's factors at 1: 6 to 9), two in flight: dgx:8x2
     * 64 MiB 228.3 us with three, 224.6 with two; dgx:8x4 (9 lanes) 326.3 and 298.4. */
    l->window = l->lanes > BOX_LANES ? 2 : BOX_WINDOW;
    /* A reduce-scatter whose blocks are a tree's each (three boxes and more, boxes of 4 GPUs),
     * in lanes of many latencies, one in flight: a relay passes a lane's sum on only once all of
     * it has arrived, and a second lane in flight only shares the NIC and delays it. 64 MiB under
     * SimGrid SMPI with its factors at 1 (9 lanes, each 14 latencies), two in flight / one:
     * dgx:8x4 310.5 / 301.3 us (1.23x / 1.20x the bound 251.7), dgx:8x3 279.1 / 270.0, dgx:4x2
     * 384.3 / 381.3 (dgx:4x4 564.5 / 565.5); 16 MiB (3.5 latencies) alike, 86.9 / 86.5; under its
     * defaults (1.8 latencies) two: dgx:8x4 428.4 / 470.9. */
    if (ph->kind == GSP_RT_REDUCE && l->parts <= 1 && gsp__mpi_lane_latencies(c, ph, l, d) >= BOX_ONE_LATENCIES) l->window = 1;
    uneven_lanes(l, c, ph, d, shortest);
}

/* The lanes that cut layout l's least part into lanes of at most `chunks` of the band's largest
 * chunks (hi - 1 bytes), at most `most` and at most the part's elements. */
static int64_t band_lanes(const lay_t *l, const dtinfo_t *d, int64_t hi, int64_t chunks, int64_t most) {
    int64_t shortest = least_part(l), k = (shortest * (int64_t)d->size + chunks * (hi - 1) - 1) / (chunks * (hi - 1));
    if (k > most) k = most;
    return k > shortest ? shortest : k;
}

/* A phase run cross first (gsp__mpi_cross_first) in lanes of at most CROSS_LANE_CHUNKS of the
 * band's largest chunks, at most CROSS_LANES_MAX: the NICs wait for the first lane's sums to come
 * round their box, and a shorter first lane starts them earlier (the allgather, whose NICs start
 * at once, wants fewer). mi250:2's reduce-scatter on its ring trees under SimGrid SMPI's defaults
 * (its band 5776-9375 bytes, a part of a block 174763 bytes at 16 MiB): 16 MiB in 3 lanes (the
 * cost model's, as the allgather's) 122.9 us, 6 96.4, 7 (this rule) 93.0, 9 89.7, 10 93.8, 12
 * 91.4; 64 MiB in 12 250.0, 24 235.9, 25 (this rule) 237.2, 36 243.6.
 * Holding the ENDS sends until the FEEDS ones completed rather than issued: 16 MiB in 6, 9, 12
 * lanes 100.3, 93.2, 94.5; 64 MiB in 24 240.3. */
#define CROSS_LANE_CHUNKS 3
#define CROSS_LANES_MAX 64
static void cross_lanes(lay_t *l, gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const dtinfo_t *d) {
    int64_t lo, hi;
    double beta;
    /* Segments the user set (GOSSIP_SEGMENT) stay as set. */
    if (c->cost.segment > 0 || !gsp__mpi_cross_first(c, ph, l, d) || !gsp_cost_band(&c->cost, &lo, &hi, &beta)) return;
    /* Where the NICs bind (the reduce cut-through's phases), longer lanes (RCUT_LANE_CHUNKS). */
    bool rcut = !widths(c) && slow_route(c, c->cut_widest, (double)(hi - 1));
    int64_t k = band_lanes(l, d, hi, rcut ? RCUT_LANE_CHUNKS : CROSS_LANE_CHUNKS, CROSS_LANES_MAX);
    if (k <= l->lanes) return;
    lay_t m = *l;
    m.lanes = (int)k;
    /* Still streamed in lanes that short (a lane of a block at least two of the band's least). */
    if (gsp__mpi_cross_first(c, ph, &m, d)) l->lanes = (int)k;
}

/* The deep drain's lanes (above): a store phase of every rank's blocks on deep trees, streamed,
 * where the cut is fast links (mi250:1, mi250:2; not the NICs of mi250:4, whose deep window and
 * cut-through set its pace: forced there, the rule left its 16 MiB allgather at 82.7 us), runs in
 * lanes of at most DEEP_LANE_CHUNKS of the band's largest chunks (as cross first's: cross_lanes),
 * at most DEEP_LANES_MAX. A relay passes a lane on only once all of it is in, so each level of the
 * trees waits a lane, while the next lane's chunks already fly (a stream's window spans its lanes:
 * chunk_pump), so a lane more costs far less than the latency the cost model charges it (rt_cost.c:
 * one fill and a latency a lane), whose count is too few. mi250:1's 64 MiB allgather on its ring
 * trees (8 deep, a part of a block 1398101 bytes) under SimGrid SMPI's defaults, in lanes: 5 245.1
 * us, 6 (the model's) 236.6, 8 221.2, 10 213.4, 12 212.6, 16 208.2, 18 215.7, 20 201.8, 24 205.1,
 * 30 201.8, 32 201.5, 38 201.4, 40 201.8, 50 (this rule) 201.5 (1.21x -> 1.03x the bound); 16 MiB
 * 72.5 -> 59.8 (3 lanes -> 13); 4 MiB 29.9 -> 29.7 (2 -> 4; in 8 the messages fall below two chunks
 * and go whole: 54.8, hence deep_streams). mi250:2's (rings 9 deep), 64 MiB in 6 (the model's),
 * 12, 19, 20, 25 (this rule) lanes: 219.0, 205.5, 211.4, 205.4, 208.0; 16 MiB 77.3 -> 68.9; 4 MiB
 * 36.3 either way. Their allreduces run their allgather phase so (not fused: mpi_coll.c): mi250:1
 * 64 MiB 471.2 -> 440.7 (1.20x -> 1.13x), 16 MiB 142.1 -> 127.3, 4 MiB 62.1 -> 61.9; mi250:2 64 MiB
 * 465.6 -> 451.3 (1.23x -> 1.19x). */
#define DEEP_LANE_CHUNKS 3
#define DEEP_LANES_MAX 64
/* Whether the deep drain streams a lane of layout l's least part (chunks_of's test: at least two
 * of the band's chunks, a byte of it dearer than the band's). */
static bool deep_streams(const gsp_mpi_ctx_t *c, const lay_t *l, const dtinfo_t *d, int64_t lo, int64_t hi, double beta) {
    int64_t bytes = least_part(l) * (int64_t)d->size / l->lanes, k = (bytes + hi - 2) / (hi - 1);
    return gsp_cost_beta(&c->cost, (double)bytes) >= GSP_COST_CHUNK_GAIN * beta && k >= 2 && k <= GSP_COST_CHUNK_MAX && bytes / k >= lo;
}

static void deep_lanes(lay_t *l, gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const dtinfo_t *d) {
    int64_t lo, hi;
    double beta;
    if (c->cost.segment > 0 || !ph->pipelined || ph->kind != GSP_RT_STORE || !l->deep || ph->nblocks > 0 || l->n != c->size ||
        !c->is_fabric || !d->plain || !gsp_cost_band(&c->cost, &lo, &hi, &beta) || widths(c) || slow_route(c, c->cut_widest, (double)(hi - 1)))
        return;
    int64_t k = band_lanes(l, d, hi, DEEP_LANE_CHUNKS, DEEP_LANES_MAX);
    if (k <= l->lanes) return;
    lay_t m = *l;
    m.lanes = (int)k;
    /* Only where its lanes stream, and still in lanes that short. */
    if (deep_streams(c, l, d, lo, hi, beta) && deep_streams(c, &m, d, lo, hi, beta)) {
        l->model_lanes = l->lanes;
        l->lanes = (int)k;
    }
}

/* A streamed broadcast's wide trees (gsp_rt_phase_t: streams; rt_fabric_streams.c), where they
 * stream (gsp_rt_stream_window): every route streams in uneven chunks, a relay passes each chunk
 * on as it arrives (cut-through), each stream keeps the window's chunks in flight, and a lane
 * holds about a window of the band's largest chunks (at least the lanes that stream:
 * stream_lanes). Equal chunks started together on a link end together in SimGrid: a stream's
 * window went in batches that each paid a latency with the link idle, and a tree moved at 33 of
 * its 50 GB/s; of two sizes they drift apart. The window about a latency of the tree's rate: more
 * in flight share the link alike and each chunk's hop takes longer, fewer leave it idle. mi250:1's
 * 64 MiB broadcast (six trees of 50 GB/s, 13 deep) under SimGrid SMPI's defaults: equal chunks,
 * 40 lanes, the rank's share of 128 in flight (21 a stream at the root) 393.3 us; 32 / 40 / 64
 * in flight 364.1 / 360.2 / 368.2; uneven, 16 / 20 / 24 / 28 / 32 / 48 in flight 288.9 / 281.5 /
 * 281.1 / 277.9 / 286.6 / 302.0; 27 in flight, 36 / 43 / 45 / 50 / 52 / 58 / 60 / 86 lanes 280.0
 * / 286.0 / 278.9 / 282.2 / 280.8 / 284.3 / 407.6 / 286.5 (a jagged point at 60, a tree's lane
 * 23 chunks); 16 MiB in 11 / 16 / 22 lanes 113.4 / 114.3 / 113.6; 4 MiB in 3 / 4 / 6 / 8 / 10
 * lanes 79.1 / 70.7 / 72.0 / 70.4 / 73.5. On the trees made 10 deep (fabric_sat_depth.c), 64 MiB,
 * 20 / 24 (this rule) / 26 / 27 / 28 / 32 in flight: 302.2 / 277.0 / 275.6 / 286.2 / 275.4 /
 * 280.8; a stream opening with fewer in flight, one more per chunk done, from 2 / 4 / 8 / 12:
 * 280.8 / 287.5 / 277.9 / 279.6 (not kept). */
static void wide_lanes(lay_t *l, gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const dtinfo_t *d) {
    int64_t win, chunk;
    if (!ph->streams || !c->is_fabric || !d->plain || ph->kind != GSP_RT_STORE || l->parts > 1 ||
        !gsp_rt_stream_window(ph, (double)least_part(l) * (double)d->size, &c->cost, &win, &chunk))
        return;
    /* chunk: the band's largest (gsp_rt_stream_window), whose uneven mean sets the floor. */
    /* A lane holds about the widest stream's window of chunks: twice the window where a route
     * crosses a switch (stream_window). mi250:2's 64 MiB broadcast, the streams there 16 in
     * flight, the others 8: lanes of 8 chunks 336.3 us, of 16 300.0. */
    bool switched = false;
    for (int64_t x = 0; c->fabric.is_switch && x < c->fabric.n && !switched; x++) switched = c->fabric.is_switch[x] != 0;
    int64_t lw = switched ? 2 * win : win;
    int64_t shortest = least_part(l), bytes = shortest * (int64_t)d->size, k = (bytes + lw * chunk - 1) / (lw * chunk),
            least = stream_lanes(l, d, chunk * UNEVEN_MEAN / UNEVEN_LONG);
    if (k < least) k = least;
    if (k > shortest) k = shortest;
    if (win > CHUNK_WINDOW_MAX) win = CHUNK_WINDOW_MAX;
    l->lanes = (int)k;
    l->stagger = l->stagger && shortest >= 2 * k;
    l->wide = (int)win;
}

/* The lane lengths, in latencies, at which a broadcast's waist across a chain of boxes keeps
 * its wider windows (gsp__mpi_phase_layout). */
#define CHAIN_LATENCIES_MIN 1.0
#define CHAIN_LATENCIES_MAX 4.0

/* A phase's layout: its own block count and parts, and for a pipelined phase the cost model's
 * segments (cost_layout), on a box's trees in more lanes (box_lanes). */
lay_t gsp__mpi_phase_layout(gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, int64_t count, const dtinfo_t *d) {
    lay_t l = cost_layout(c, ph, count, d);
    box_lanes(&l, c, ph, d);
    cross_lanes(&l, c, ph, d);
    deep_lanes(&l, c, ph, d);
    wide_lanes(&l, c, ph, d);
    /* A broadcast's wider windows where its trees cross the waist on several edges (a chain of
     * boxes: rt_fabric.c) only where a lane on an arc lasts CHAIN_LATENCIES_MIN to _MAX latencies.
     * Shorter, the call is a few latencies, and a second lane in flight on each crossing only
     * delays the first lane's arrival in the next box; longer, the arc idles little between lanes
     * and the second lane still delays the first at each crossing. dgx:8x4's trees cross on 3
     * edges; under SMPI's defaults its broadcast took, one lane in flight / two: 1 MiB (3 lanes,
     * each 0.54 latencies) 37.1 / 40.5 us, 4 MiB (1.6) 83.1 / 82.2, 16 MiB (1.9) 167.5 / 156.2,
     * 64 MiB (37 lanes, 2.1) 517.7 / 453.1; with the factors at 1, 64 MiB (25 lanes, 6.7) 413.7 /
     * 431.7. Measured points, not a model. A waist crossed once keeps them at any size: there
     * the lower limit lost at 1 MiB (dgx:8x2 24.2 -> 25.3 us, mi250:2 38.9 -> 39.7; with SMPI's
     * factors at 1 mi250:2 23.3 -> 26.3). */
    if (ph->waist_chain) {
        double ll = gsp__mpi_lane_latencies(c, ph, &l, d);
        l.narrow = ll < CHAIN_LATENCIES_MIN || ll > CHAIN_LATENCIES_MAX;
    }
    return l;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_coll.c — the exact collectives' entry points (allgather, allreduce, reduce-scatter,
 * broadcast, reduce): datatypes made comparable across ranks (the bytes of the signature, or the
 * predefined type a reduction's datatype repeats), arguments checked before any message, the
 * phases run by the engine. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_rt_int.h"

bool gsp_mpi_ctx_plain(MPI_Datatype dt) {
    dtinfo_t d;
    gsp__mpi_dt_info(dt, &d);
    return d.plain;
}

/* ---- datatypes: what every rank cuts the same way ---- */

/* The predefined type a datatype repeats and how many of it one element holds: a predefined
 * type, or contiguous and dup types over one (nested). Ranks may describe the same signature
 * with different such types; counted in the predefined type, their cuts agree. */
static bool basic_of(MPI_Datatype dt, MPI_Datatype *bt, int64_t *mult) {
    MPI_Datatype cur = dt;
    bool owned = false, ok = false;
    *mult = 1;
    for (int depth = 0; depth < 32; depth++) {
        int ni, na, nd, comb;
        if (MPI_Type_get_envelope(cur, &ni, &na, &nd, &comb) != MPI_SUCCESS) break;
        if (comb == MPI_COMBINER_NAMED) {
            *bt = cur;
            ok = true;
            break;
        }
        if ((comb != MPI_COMBINER_CONTIGUOUS && comb != MPI_COMBINER_DUP) || ni > 1 || na != 0 || nd != 1) break;
        int ints[1] = {1};
        MPI_Aint addrs[1];
        MPI_Datatype types[1];
        if (MPI_Type_get_contents(cur, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) break;
        if (comb == MPI_COMBINER_CONTIGUOUS) *mult *= ints[0];
        if (owned) MPI_Type_free(&cur);
        cur = types[0];
        int n1, n2, n3, c2;
        owned = MPI_Type_get_envelope(cur, &n1, &n2, &n3, &c2) == MPI_SUCCESS && c2 != MPI_COMBINER_NAMED;
    }
    if (!ok && owned) MPI_Type_free(&cur);
    return ok;
}

/* The standard's groups of predefined types for the predefined reductions (MPI 4.0, 6.9.2). */
enum { K_NONE, K_INT, K_FLOAT, K_COMPLEX, K_BOOL, K_BYTE };

static int kind_of(MPI_Datatype t) {
    static const MPI_Datatype ints[] = {MPI_INT,       MPI_LONG,      MPI_SHORT,    MPI_UNSIGNED_SHORT, MPI_UNSIGNED,
                                        MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
                                        MPI_INT8_T,    MPI_INT16_T,   MPI_INT32_T,  MPI_INT64_T,        MPI_UINT8_T,
                                        MPI_UINT16_T,  MPI_UINT32_T,  MPI_UINT64_T, MPI_AINT,           MPI_OFFSET,
                                        MPI_COUNT};
    static const MPI_Datatype flts[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype cplx[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (t == ints[i]) return K_INT;
    for (size_t i = 0; i < sizeof flts / sizeof *flts; i++)
        if (t == flts[i]) return K_FLOAT;
    for (size_t i = 0; i < sizeof cplx / sizeof *cplx; i++)
        if (t == cplx[i]) return K_COMPLEX;
    if (t == MPI_C_BOOL) return K_BOOL;
    if (t == MPI_BYTE) return K_BYTE;
    return K_NONE;
}

/* Whether op may reduce the predefined type bt: the standard's table for the predefined ops
 * (types it does not list here, such as Fortran's, are left to MPI); any user op. */
static bool op_ok(MPI_Op op, MPI_Datatype bt) {
    int k = kind_of(bt);
    if (op == MPI_MAX || op == MPI_MIN) return k == K_INT || k == K_FLOAT;
    if (op == MPI_SUM || op == MPI_PROD) return k == K_INT || k == K_FLOAT || k == K_COMPLEX;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return k == K_INT || k == K_BOOL;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return k == K_INT || k == K_BYTE;
    if (op == MPI_MAXLOC || op == MPI_MINLOC || op == MPI_REPLACE || op == MPI_NO_OP || op == MPI_OP_NULL) return false;
    return true; /* a user's op */
}

bool gsp_mpi_ctx_reducible(MPI_Datatype dt, MPI_Op op) {
    MPI_Datatype bt;
    int64_t mult;
    /* A predefined type is its own basic type, without holes: no decoding. */
    if (kind_of(dt) != K_NONE) return op_ok(op, dt);
    return gsp_mpi_ctx_plain(dt) && basic_of(dt, &bt, &mult) && op_ok(op, bt);
}

/* ---- small calls served from the cache ---- */

static bool predefined_op(MPI_Op op) {
    return op == MPI_SUM || op == MPI_MAX || op == MPI_MIN || op == MPI_PROD || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR ||
           op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
}

/* The slot of a call whose (collective, datatype, op, count, root) was served before and whose
 * choice still stands (gen), or NULL. */
static inline bool fast_is(const gsp_mpi_ctx_t *c, const fast_t *f, int coll, MPI_Datatype dt, MPI_Op op, int count, int root) {
    return f->gen == c->gen && f->count == count && f->dt == dt && f->op == op && f->coll == coll && f->root == root;
}

static fast_t *fast_find(gsp_mpi_ctx_t *c, int coll, MPI_Datatype dt, MPI_Op op, int count, int root) {
    /* A loop repeats one call: the slot of the last one first. */
    if (fast_is(c, &c->fast[c->fast_last], coll, dt, op, count, root)) return &c->fast[c->fast_last];
    for (int i = 0; i < FAST_SLOTS; i++)
        if (fast_is(c, &c->fast[i], coll, dt, op, count, root)) {
            c->fast_last = i;
            return &c->fast[i];
        }
    return NULL;
}

bool gsp_mpi_ctx_cached(const gsp_mpi_ctx_t *c, gsp_collective_t coll, MPI_Datatype dt, MPI_Op op, int count, int root) {
    if (fast_is(c, &c->fast[c->fast_last], (int)coll, dt, op, count, root)) return true;
    for (int i = 0; i < FAST_SLOTS; i++)
        if (fast_is(c, &c->fast[i], (int)coll, dt, op, count, root)) return true;
    return false;
}

/* Keeps what this call worked out for the next identical one (predefined datatypes and ops
 * only; the oldest slot is replaced). Returns the slot, or NULL when the call is not cached. */
static fast_t *fast_fill(gsp_mpi_ctx_t *c, int coll, MPI_Datatype dt, MPI_Op op, int count, int root, const gsp_rt_algo_t *a,
                         const gsp_rt_prog_t *pg, const dtinfo_t *d, int64_t n) {
    if (kind_of(dt) == K_NONE || (op != MPI_OP_NULL && !predefined_op(op))) return NULL;
    fast_t *f = &c->fast[c->fast_next];
    c->fast_last = c->fast_next;
    c->fast_next = (c->fast_next + 1) % FAST_SLOTS;
    *f = (fast_t){c->gen, coll, count, root, dt, op, a, pg, *d, n, {{0}}, {0, {{0}}}};
    for (int k = 0; k < a->nphases; k++) {
        f->l[k] = a->local_reduce ? gsp__mpi_layout(c, GSP_RT_RANK, n, d) : gsp__mpi_phase_layout(c, &a->phase[k], n, d);
        f->l[k].small = gsp__mpi_small_phase(&pg[k], &f->l[k], d) ? 1 : 2;
    }
    /* A broadcast, or the gather of an allreduce, in one small phase: its MPI calls, compiled
     * once. */
    if ((coll == GSP_COLL_BROADCAST || a->local_reduce) && a->nphases == 1 && f->l[0].small == 1)
        gsp__mpi_script(c, &pg[0], 0, &f->l[0], d, &f->script);
    return f;
}

/* A reduction's datatype as its predefined type: *d [out] of it and *per [out] of them per
 * element. Refused before any message: the caller falls back to MPI, whose error (MPI_ERR_OP
 * for a pair the standard does not allow) then reaches the user's handler. */
static gsp_err_t reduction_type(gsp_mpi_ctx_t *c, MPI_Datatype dt, MPI_Op op, dtinfo_t *d, int64_t *per) {
    MPI_Datatype bt;
    if (!gsp_mpi_ctx_plain(dt) || !basic_of(dt, &bt, per))
        return gsp_error(GSP_ERR_UNSUPPORTED, "reductions run on predefined types and contiguous types of one");
    if (!op_ok(op, bt)) {
        c->mpi_err = MPI_ERR_OP;
        return gsp_error(GSP_ERR_INVAL, "the operation does not apply to this datatype (MPI_ERR_OP)");
    }
    gsp__mpi_dt_info(bt, d);
    return GSP_OK;
}

/* Data movement runs on the bytes of the type signature: equal on every rank whatever datatype
 * each rank describes them with, so the blocks and segments are cut the same everywhere. */
static dtinfo_t bytes_type(void) {
    dtinfo_t b;
    gsp__mpi_dt_info(MPI_BYTE, &b);
    return b;
}

/* Packs count elements of dt at buf into out (bytes of the signature). */
gsp_err_t gsp__mpi_pack(gsp_mpi_ctx_t *c, const void *buf, int count, MPI_Datatype dt, void *out, int64_t bytes) {
    int pos = 0, rc;
    if (bytes > INT_MAX) return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)bytes);
    if ((rc = MPI_Pack(buf, count, dt, out, (int)bytes, &pos, c->comm)) != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Pack");
    if (pos != bytes) return gsp_error(GSP_ERR_UNSUPPORTED, "MPI_Pack gave %d bytes for a signature of %lld", pos, (long long)bytes);
    return GSP_OK;
}

gsp_err_t gsp__mpi_unpack(gsp_mpi_ctx_t *c, const void *in, int64_t bytes, void *buf, int count, MPI_Datatype dt) {
    int pos = 0, rc;
    if ((rc = MPI_Unpack(in, (int)bytes, &pos, buf, count, dt, c->comm)) != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "MPI_Unpack");
    return GSP_OK;
}

/* Placed by host name (mpi_ctx.c): the n blocks of `bytes` bytes at base, in node order (block
 * v is node v's), moved into the user's rank order (block rank_of[v]) — cycle by cycle, one
 * block aside. */
static gsp_err_t blocks_to_ranks(gsp_mpi_ctx_t *c, char *base, int64_t bytes) {
    int n = c->size;
    unsigned char *done = NULL;
    gsp_err_t err;
    if ((err = gsp__mpi_reserve((void **)&c->perm, &c->perm_cap, (size_t)bytes + 1)) ||
        (err = gsp_alloc_array((void **)&done, n, 1, true)))
        return err;
    for (int v = 0; v < n; v++) {
        if (done[v] || c->rank_of[v] == v) continue;
        /* The cycle v -> rank_of[v] -> ...: carry each block to its place, holding the one it
         * displaces. */
        memcpy(c->perm, base + (size_t)v * (size_t)bytes, (size_t)bytes);
        int x = v;
        do {
            int y = c->rank_of[x];
            done[x] = 1;
            char *dst = base + (size_t)y * (size_t)bytes;
            /* swap perm <-> dst: one block in hand, the other placed */
            for (int64_t b = 0; b < bytes; b++) {
                char tmp = dst[b];
                dst[b] = c->perm[b];
                c->perm[b] = tmp;
            }
            x = y;
        } while (x != v);
    }
    gsp_free(done);
    return GSP_OK;
}

gsp_err_t gsp_mpi_ctx_allgather(gsp_mpi_ctx_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t dr, ds, db = bytes_type();
    gsp__mpi_dt_info(recvtype, &dr);
    if (sendbuf != MPI_IN_PLACE) gsp__mpi_dt_info(sendtype, &ds);
    int64_t bytes = (int64_t)recvcount * dr.size, me = c->rank, n = c->size;
    c->mpi_err = 0;
    c->communicated = false;
    if (sendbuf != MPI_IN_PLACE && (int64_t)sendcount * ds.size != bytes)
        return gsp_error(GSP_ERR_INVAL, "the send and receive signatures differ (%lld and %lld bytes)", (long long)sendcount * ds.size,
                         (long long)bytes);
    if (!dr.plain && bytes * n > INT_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)(bytes * n));
    if ((err = gsp__mpi_prepare(c, GSP_COLL_ALLGATHER, 0, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    if (bytes == 0) return GSP_OK;
    char *base = recvbuf;
    bool late_copy = false;
    if (!dr.plain) {
        /* A receive type with holes: the blocks travel packed, unpacked at the end. */
        if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, (size_t)(bytes * n) + 1))) return err;
        base = c->work;
        const void *mine = sendbuf == MPI_IN_PLACE ? at(recvbuf, (int64_t)c->urank * recvcount, &dr) : sendbuf;
        if ((err = gsp__mpi_pack(c, mine, sendbuf == MPI_IN_PLACE ? recvcount : sendcount, sendbuf == MPI_IN_PLACE ? recvtype : sendtype,
                        base + me * bytes, bytes)))
            return err;
    } else if (sendbuf == MPI_IN_PLACE) {
        /* My block is where my rank puts it; the schedule reads it where my node does. */
        if (c->urank != me) memcpy(base + me * bytes, base + (int64_t)c->urank * bytes, (size_t)bytes);
    } else {
        /* A plain send type: sends read my block from sendbuf and the copy into recvbuf waits
         * until the messages are out; otherwise a self message converts it. */
        late_copy = ds.plain;
        if (!late_copy) {
            int rc = MPI_Sendrecv(sendbuf, sendcount, sendtype, (int)me, 0x7ffe, base + me * bytes, (int)bytes, MPI_BYTE, (int)me, 0x7ffe,
                                  c->comm, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return gsp__mpi_fail(c, rc, "the local copy (MPI_Sendrecv)");
        }
    }
    lay_t l = gsp__mpi_phase_layout(c, &a->phase[0], bytes, &db);
    l.drain = a->phase[0].kind == GSP_RT_STORE;
    c->mine = late_copy ? sendbuf : NULL;
    err = gsp__mpi_run_phase(c, &pg[0], 0, base, &l, &db, MPI_OP_NULL);
    c->mine = NULL;
    if (!err && late_copy) memcpy(base + me * bytes, sendbuf, (size_t)bytes);
    if (!err && c->rank_of) err = blocks_to_ranks(c, base, bytes);
    if (!err && !dr.plain) err = gsp__mpi_unpack(c, base, bytes * n, recvbuf, recvcount * (int)n, recvtype);
    return err;
}

/* Whether an allreduce fused on a box's trees (run_fused) keeps one lane in flight per edge
 * rather than FUSED_WINDOW: where a block is one tree's (parts 1: three boxes and more, or boxes
 * of 4 GPUs, fabric_boxes.c), so each edge carries whole blocks' lanes, and where a lane is long,
 * its share of the allgather's time at the fabric's optimum (T* / lanes, ph's algbw) at least
 * 3/2 of a piece's latency: then the other trees' messages keep a NIC busy through one lane's
 * latency, and a second in flight only shares it (the reduce-scatter's and the allgather's, two
 * each, four ways). Under SimGrid SMPI, 64 MiB allreduce, two in flight / one: with SMPI's
 * factors at 1 dgx:8x4 617.3 / 592.4 us, dgx:8x3 569.5 / 534.5, dgx:4x4 1125.7 / 1112.6, dgx:4x2
 * 784.0 / 759.4; under its defaults dgx:8x4 839.6 / 823.9, dgx:8x3 776.2 / 757.7 (dgx:4x4 1365.1 /
 * 1374.7, dgx:4x2 981.5 / 990.7, where the rule also takes one). Short lanes want two: dgx:8x4's
 * 16 MiB under the defaults 314.9 / 345.4, its 1 MiB with the factors at 1 22.3 / 25.4. dgx:8x2
 * (91 parts a block) is faster with two at every size: 64 MiB 542.5 / 628.5 under the defaults. */
#define FUSED_ONE_LATENCIES 1.5
static bool one_in_flight(const gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const lay_t *l, const dtinfo_t *d) {
    return l->parts <= 1 && gsp__mpi_lane_latencies(c, ph, l, d) >= FUSED_ONE_LATENCIES;
}

/* Runs a's phases on work (lays: the phases' layouts, or NULL to compute them). in: the input of a reducing algorithm when it is not work (NULL
 * otherwise): the first phase combines it block by block instead of copying it whole first;
 * what is still the input afterwards and stays with this rank (its own block; with one block,
 * the block) is copied then. */
static gsp_err_t run_algo(gsp_mpi_ctx_t *c, const gsp_rt_algo_t *a, const gsp_rt_prog_t *pg, void *work, const void *in, int64_t count,
                          const dtinfo_t *d, MPI_Op op, const lay_t *lays) {
    gsp_err_t err = GSP_OK;
    for (int k = 0; k < a->nphases && !err; k++) {
        lay_t l = lays ? lays[k] : gsp__mpi_phase_layout(c, &a->phase[k], count, d);
        c->in = k == 0 && a->phase[k].kind == GSP_RT_REDUCE && in != work ? in : NULL;
        /* The blocks that stay here: the one of a tree, this rank's of a reduce-scatter, all
         * of a multitree reduce at its root (elsewhere none). */
        int64_t b0 = 0, b1 = 0;
        if (l.layout == GSP_RT_WHOLE) b1 = 1;
        else if (l.n == c->size) b0 = c->rank * l.parts, b1 = (c->rank + 1) * l.parts;
        else if (a->root == c->rank) b1 = nblk(&l);
        /* An allreduce on a fabric's one forest: both phases at once (mpi_engine.c: run_fused). */
        bool fuse = false;
        if (k == 0 && a->nphases == 2 && a->phase[0].kind == GSP_RT_REDUCE && a->phase[1].kind == GSP_RT_STORE && a->phase[0].pipelined &&
            a->phase[1].pipelined && a->phase[0].levels > 0 && a->phase[1].levels > 0) {
            lay_t l1 = lays ? lays[1] : gsp__mpi_phase_layout(c, &a->phase[1], count, d);
            /* The deep drain's lanes are for the allgather run alone (mpi_engine.c: deep_lanes):
             * fused, or to decide, the cost model's. mi250:1's 4 MiB allreduce ran in turn, in 4
             * and 2 lanes, in 62.1 us; with the allgather's lanes 4 it fused, unstreamed: 96.6. */
            if (l1.model_lanes > 0) l1.lanes = l1.model_lanes, l1.model_lanes = 0;
            fuse = l1.layout == l.layout && l1.count == l.count && l1.n == l.n && l1.parts == l.parts;
            /* Fused, both phases run in the allgather's segments (a reduce-scatter alone may take
             * more: rt_cost.c); the blocks and parts being the same, they fit both. On a box's
             * trees (several lanes in flight: mpi_engine.c, box_lanes) in its lanes, stagger and
             * window too (run_fused keeps fewer in flight); elsewhere only where the two agree
             * (cached calls, lays: where their lanes differ, not fused). */
            if (fuse && (l.window > 1 || l1.window > 1)) {
                l.lanes = l1.lanes, l.stagger = l1.stagger, l.window = l1.window;
                if (one_in_flight(c, &a->phase[1], &l, d)) l.window = 1;
            } else {
                fuse = fuse && l1.window == l.window;
                if (fuse && !lays) l.lanes = l1.lanes;
                fuse = fuse && l1.lanes == l.lanes;
            }
            /* The fused engine sends no chunked streams (mpi_engine.c): where the phases would,
             * they run one after the other, chunked. dgx:8x2's 64 MiB allreduce under SimGrid
             * SMPI's defaults: fused 542.5 us, in turn 519.7 (1 MiB 26.72 and 26.76). */
            if (fuse && gsp__mpi_chunk_streams(c, &l1, d)) {
                fuse = false;
                l = lays ? lays[k] : gsp__mpi_phase_layout(c, &a->phase[k], count, d);
            }
        }
        /* The drain and the fill (mpi_engine.c): an allgather's store phase; in-trees whose
         * leaves take turns, where they are taken (gsp_rt_prog_t: turn_lanes). */
        l.drain = a->root < 0 && a->phase[k].kind == GSP_RT_STORE;
        l.fill = a->root < 0 && a->phase[k].kind == GSP_RT_REDUCE && a->phase[k].pipelined && a->phase[k].turn_of && l.gate == 0 &&
                 l.lanes >= a->phase[k].levels;
        /* Cross first (mpi_engine.c) where it applies: neither the gate nor the fill then. */
        l.cross = a->root < 0 && !fuse && gsp__mpi_cross_first(c, &a->phase[k], &l, d);
        if (l.cross) l.gate = 0, l.fill = false;
        if (!(err = fuse ? gsp__mpi_run_fused(c, &pg[0], &pg[1], work, &l, d, op) : gsp__mpi_run_phase(c, &pg[k], k, work, &l, d, op)) && c->in)
            for (int j = 0; j < l.lanes; j++) {
                l.lane = j;
                for (int64_t b = b0; b < b1; b++)
                    if (is_fresh(c, &l, b))
                        memcpy(at(work, blk_first(&l, b), d), at((void *)(uintptr_t)in, blk_first(&l, b), d), (size_t)(blk_len(&l, b) * d->size));
            }
        c->in = NULL;
        if (fuse) break;
    }
    return err;
}

/* The gather algorithm: every rank's vector to every rank, reduced in rank order. */
static gsp_err_t run_gather(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *pg, const void *in, void *out, int64_t count, const dtinfo_t *d,
                            MPI_Op op, const lay_t *lay, const script_t *script) {
    gsp_err_t err;
    size_t vb = (size_t)(count * d->size);
    if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, vb * (size_t)c->size + 1))) return err;
    memcpy(c->work + vb * (size_t)c->rank, in, vb);
    if (script && script->nsteps) err = gsp__mpi_run_script(c, script, c->work, d);
    else {
        lay_t l = lay ? *lay : gsp__mpi_layout(c, GSP_RT_RANK, count, d);
        err = gsp__mpi_run_phase(c, &pg[0], 0, c->work, &l, d, op);
    }
    if (err) return err;
    /* acc = x_{N-1}; acc = x_k op acc for k = N-2 .. 0: the same order on every rank. */
    char *acc = c->work + vb * (size_t)(c->size - 1);
    for (int k = c->size - 2; k >= 0; k--)
        if ((err = gsp_mpi_reduce_local(c->work + vb * (size_t)k, acc, (int)count, d->dt, op))) return err;
    memcpy(out, acc, vb);
    return GSP_OK;
}

/* The allreduce of n elements of d once the algorithm is known (lays: its layouts, or NULL). */
static gsp_err_t allreduce_run(gsp_mpi_ctx_t *c, const gsp_rt_algo_t *a, const gsp_rt_prog_t *pg, const lay_t *lays, const script_t *script,
                               const void *in, void *out, int64_t n, const dtinfo_t *d, MPI_Op op) {
    if (n == 0) return GSP_OK;
    if (a->local_reduce) return run_gather(c, pg, in, out, n, d, op, lays, script);
    return run_algo(c, a, pg, out, in, n, d, op, lays);
}

gsp_err_t gsp_mpi_ctx_allreduce(gsp_mpi_ctx_t *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d;
    int64_t per;
    c->mpi_err = 0;
    c->communicated = false;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    /* Served before: a lookup, then the messages. */
    fast_t *f = fast_find(c, GSP_COLL_ALLREDUCE, dt, op, count, 0);
    if (f) {
        c->last = f->a->name;
        return allreduce_run(c, f->a, f->pg, f->l, &f->script, in, recvbuf, f->n, &f->d, op);
    }
    if ((err = reduction_type(c, dt, op, &d, &per))) return err;
    int64_t n = (int64_t)count * per, bytes = n * d.size;
    if ((err = gsp__mpi_prepare(c, GSP_COLL_ALLREDUCE, 0, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    f = fast_fill(c, GSP_COLL_ALLREDUCE, dt, op, count, 0, a, pg, &d, n);
    return allreduce_run(c, a, pg, f ? f->l : NULL, f ? &f->script : NULL, in, recvbuf, n, &d, op);
}

gsp_err_t gsp_mpi_ctx_reduce_scatter_block(gsp_mpi_ctx_t *c, const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                                           MPI_Op op) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d;
    int64_t per;
    c->mpi_err = 0;
    c->communicated = false;
    if ((err = reduction_type(c, dt, op, &d, &per))) return err;
    int64_t blk = (int64_t)recvcount * per, bytes = blk * d.size, count = blk * c->size;
    if ((err = gsp__mpi_prepare(c, GSP_COLL_REDUCE_SCATTER, 0, bytes, (double)bytes * c->size, (double)bytes, &a, &pg))) return err;
    if (blk == 0) return GSP_OK;
    size_t vb = (size_t)(count * d.size);
    char *w;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (sendbuf == MPI_IN_PLACE && !c->rank_of) w = recvbuf;
    else {
        if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, vb + 1))) return err;
        w = c->work;
    }
    if (c->rank_of) {
        /* Placed by host name: block v of the schedule is the one for node v, at its rank's
         * place in the user's vector. */
        for (int v = 0; v < c->size; v++)
            memcpy(w + (size_t)v * (size_t)bytes, (const char *)in + (size_t)c->rank_of[v] * (size_t)bytes, (size_t)bytes);
        in = w;
    }
    if ((err = run_algo(c, a, pg, w, in, count, &d, op, NULL))) return err;
    lay_t l = gsp__mpi_layout(c, GSP_RT_SPLIT, count, &d);
    memmove(recvbuf, w + (size_t)whole_first(&l, c->rank) * (size_t)d.size, (size_t)bytes);
    return GSP_OK;
}

gsp_err_t gsp_mpi_ctx_bcast(gsp_mpi_ctx_t *c, void *buf, int count, MPI_Datatype dt, int root) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d, db;
    c->mpi_err = 0;
    c->communicated = false;
    /* Served before (a predefined type: plain bytes): a lookup, then the messages. */
    fast_t *f = fast_find(c, GSP_COLL_BROADCAST, dt, MPI_OP_NULL, count, root);
    if (f) {
        c->last = f->a->name;
        if (f->script.nsteps) return gsp__mpi_run_script(c, &f->script, buf, &f->d);
        return f->n ? run_algo(c, f->a, f->pg, buf, buf, f->n, &f->d, MPI_OP_NULL, f->l) : GSP_OK;
    }
    int uroot = root;
    db = bytes_type();
    gsp__mpi_dt_info(dt, &d);
    int64_t bytes = (int64_t)count * d.size;
    root = (int)gsp_mpi_ctx_node(c, root); /* the root's node: the schedule's numbering */
    if (!d.plain && bytes > INT_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)bytes);
    if ((err = gsp__mpi_prepare(c, GSP_COLL_BROADCAST, root, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    f = fast_fill(c, GSP_COLL_BROADCAST, dt, MPI_OP_NULL, count, uroot, a, pg, &db, bytes);
    if (bytes == 0) return GSP_OK;
    if (d.plain) return run_algo(c, a, pg, buf, buf, bytes, &db, MPI_OP_NULL, f ? f->l : NULL);
    /* Holes: the root's buffer travels packed and is unpacked everywhere else. */
    if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, (size_t)bytes + 1))) return err;
    if (c->rank == root && (err = gsp__mpi_pack(c, buf, count, dt, c->work, bytes))) return err;
    if ((err = run_algo(c, a, pg, c->work, c->work, bytes, &db, MPI_OP_NULL, NULL))) return err;
    return c->rank == root ? GSP_OK : gsp__mpi_unpack(c, c->work, bytes, buf, count, dt);
}

gsp_err_t gsp_mpi_ctx_reduce(gsp_mpi_ctx_t *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d;
    int64_t per;
    c->mpi_err = 0;
    c->communicated = false;
    if ((err = reduction_type(c, dt, op, &d, &per))) return err;
    root = (int)gsp_mpi_ctx_node(c, root); /* the root's node: the schedule's numbering */
    int64_t n = (int64_t)count * per, bytes = n * d.size;
    if ((err = gsp__mpi_prepare(c, GSP_COLL_REDUCE, root, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
    if (n == 0) return GSP_OK;
    size_t vb = (size_t)bytes;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    char *w;
    /* A leaf of a reduction tree only sends its input: straight from the caller's buffer, which
     * nothing writes (no receives, one phase). */
    if (c->rank != root && a->nphases == 1 && pg[0].nrecv == 0) return run_algo(c, a, pg, (void *)(uintptr_t)in, in, n, &d, op, NULL);
    if (c->rank == root) w = recvbuf;
    else {
        if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, vb + 1))) return err;
        w = c->work;
    }
    return run_algo(c, a, pg, w, in, n, &d, op, NULL);
}

/* Everything a first call does but move data: the same bytes as the call computes them, the
 * same plan, choice and agreement (gsp__mpi_prepare's allreduces), and for the calls the cache
 * serves (allreduce, broadcast) the same slot. */
gsp_err_t gsp_mpi_ctx_prepare(gsp_mpi_ctx_t *c, gsp_collective_t coll, int count, MPI_Datatype dt, MPI_Op op, int root) {
    gsp_err_t err;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d;
    int64_t per, bytes;
    c->mpi_err = 0;
    c->communicated = false;
    if (count < 0) return gsp_error(GSP_ERR_INVAL, "a negative count (%d)", count);
    if ((coll == GSP_COLL_BROADCAST || coll == GSP_COLL_REDUCE) && (root < 0 || root >= c->size))
        return gsp_error(GSP_ERR_INVAL, "root %d is not a rank of the communicator (%d ranks)", root, c->size);
    switch (coll) {
    case GSP_COLL_ALLGATHER:
    case GSP_COLL_BROADCAST: {
        gsp__mpi_dt_info(dt, &d);
        bytes = (int64_t)count * d.size;
        int64_t whole = coll == GSP_COLL_ALLGATHER ? bytes * c->size : bytes;
        if (!d.plain && whole > INT_MAX)
            return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)whole);
        if (coll == GSP_COLL_ALLGATHER) return gsp__mpi_prepare(c, coll, 0, bytes, (double)bytes, (double)bytes, &a, &pg);
        int node = (int)gsp_mpi_ctx_node(c, root);
        if ((err = gsp__mpi_prepare(c, coll, node, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
        dtinfo_t db = bytes_type();
        fast_fill(c, GSP_COLL_BROADCAST, dt, MPI_OP_NULL, count, root, a, pg, &db, bytes);
        return GSP_OK;
    }
    case GSP_COLL_ALLREDUCE:
    case GSP_COLL_REDUCE_SCATTER:
    case GSP_COLL_REDUCE:
        if ((err = reduction_type(c, dt, op, &d, &per))) return err;
        bytes = (int64_t)count * per * d.size;
        if (coll == GSP_COLL_REDUCE_SCATTER) return gsp__mpi_prepare(c, coll, 0, bytes, (double)bytes * c->size, (double)bytes, &a, &pg);
        if (coll == GSP_COLL_REDUCE)
            return gsp__mpi_prepare(c, coll, (int)gsp_mpi_ctx_node(c, root), bytes, (double)bytes, (double)bytes, &a, &pg);
        if ((err = gsp__mpi_prepare(c, coll, 0, bytes, (double)bytes, (double)bytes, &a, &pg))) return err;
        fast_fill(c, GSP_COLL_ALLREDUCE, dt, op, count, 0, a, pg, &d, (int64_t)count * per);
        return GSP_OK;
    }
    return gsp_error(GSP_ERR_INVAL, "no such collective (%d)", (int)coll);
}

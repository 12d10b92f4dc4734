/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_exec.c — running a schedule's plan (mpi_plan.c) through the runtime's one engine
 * (mpi_engine.c): allgather, broadcast, allreduce (registers: each round's combines, then that
 * round's program on the register file; or gather + local reduction in rank order for any
 * predefined op), and the local reduction itself, written here
 * so that 8- and 16-bit integer sums wrap around as the MPI standard says (Open MPI 4.1's AVX op
 * component saturates them). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"
#include "mpi_int.h"
#include "mpi_rt_int.h"

/* A plan's run: the engine moves bytes (MPI_BYTE blocks of the signature's size); a datatype
 * with holes or an offset travels packed in the context's work area. */
static dtinfo_t bytes_info(void) {
    dtinfo_t b;
    gsp__mpi_dt_info(MPI_BYTE, &b);
    return b;
}

/* Messages and bytes this rank sends in a run of block size `bytes`. */
static void count_sent(gsp_mpi_plan_t *p, int64_t bytes) {
    p->stat_msgs = p->sent_msgs;
    p->stat_bytes = p->sent_blocks * bytes;
}

/* Runs program k of the plan as a store phase on base: n blocks of `bytes` bytes (WHOLE: every
 * transfer carries the `bytes` at base). */
static gsp_err_t run(gsp_mpi_plan_t *p, int64_t k, void *base, gsp_rt_layout_t layout, int64_t n, int64_t bytes) {
    dtinfo_t db = bytes_info();
    lay_t l = {layout, bytes, n, 1, 0, 1, 0, 0, false, 0, false, false, false, false, false, 0, false, 0, false}; /* small: decided by the engine on each run */
    gsp_mpi_ctx_t *c = p->ctx;
    c->mpi_err = 0;
    c->communicated = false;
    /* Consecutive programs alternate the phase bit of the tags: a register round's messages
     * never match the next round's. */
    return gsp__mpi_run_phase(c, &p->prog[k], (int)(k & 1), base, &l, &db, MPI_OP_NULL);
}

gsp_err_t gsp_mpi_allgather(gsp_mpi_plan_t *p, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt) {
    gsp_err_t err;
    dtinfo_t d;
    if (p->coll != GSP_COLL_ALLGATHER) return gsp_error(GSP_ERR_INVAL, "the plan is not an allgather");
    gsp__mpi_dt_info(dt, &d);
    int64_t bytes = (int64_t)count * d.size, n = p->size, me = p->rank;
    p->stat_msgs = p->stat_bytes = 0;
    if (bytes == 0) return GSP_OK;
    gsp_mpi_ctx_t *c = p->ctx;
    if (d.plain) {
        char *base = recvbuf;
        if (sendbuf != MPI_IN_PLACE) memcpy(base + me * bytes, sendbuf, (size_t)bytes);
        if ((err = run(p, 0, base, GSP_RT_RANK, n, bytes))) return err;
    } else {
        if (bytes * n > INT_MAX) return gsp_error(GSP_ERR_TOOBIG, "%lld bytes of a datatype with holes: more than MPI_Pack's int", (long long)(bytes * n));
        if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, (size_t)(bytes * n) + 1))) return err;
        const void *mine = sendbuf == MPI_IN_PLACE ? at(recvbuf, me * count, &d) : sendbuf;
        if ((err = gsp__mpi_pack(c, mine, count, dt, c->work + me * bytes, bytes)) || (err = run(p, 0, c->work, GSP_RT_RANK, n, bytes)) ||
            (err = gsp__mpi_unpack(c, c->work, bytes * n, recvbuf, count * (int)n, dt)))
            return err;
    }
    count_sent(p, bytes);
    return GSP_OK;
}

gsp_err_t gsp_mpi_bcast(gsp_mpi_plan_t *p, void *buf, int count, MPI_Datatype dt) {
    gsp_err_t err;
    dtinfo_t d;
    if (p->coll != GSP_COLL_BROADCAST) return gsp_error(GSP_ERR_INVAL, "the plan is not a broadcast");
    gsp__mpi_dt_info(dt, &d);
    int64_t bytes = (int64_t)count * d.size;
    p->stat_msgs = p->stat_bytes = 0;
    if (bytes == 0) return GSP_OK;
    gsp_mpi_ctx_t *c = p->ctx;
    if (d.plain) {
        if ((err = run(p, 0, buf, GSP_RT_WHOLE, p->size, bytes))) return err;
    } else {
        if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, (size_t)bytes + 1))) return err;
        if (p->rank == p->root && (err = gsp__mpi_pack(c, buf, count, dt, c->work, bytes))) return err;
        if ((err = run(p, 0, c->work, GSP_RT_WHOLE, p->size, bytes))) return err;
        if (p->rank != p->root && (err = gsp__mpi_unpack(c, c->work, bytes, buf, count, dt))) return err;
    }
    count_sent(p, bytes);
    return GSP_OK;
}

/* ---- local reduction with the standard's semantics ---- */

#define RED_LOOP(T, EXPR)                                   \
    do {                                                    \
        const T *a = (const T *)in, *b = (const T *)in2;    \
        T *o = (T *)out;                                    \
        for (int i = 0; i < count; i++) o[i] = (T)(EXPR);   \
    } while (0)

#define RED_INT(T, UT)                                                                        \
    do {                                                                                      \
        if (op == MPI_SUM) RED_LOOP(T, (UT)a[i] + (UT)b[i]);                                  \
        else if (op == MPI_PROD) RED_LOOP(T, (UT)a[i] * (UT)b[i]);                            \
        else if (op == MPI_MAX) RED_LOOP(T, a[i] > b[i] ? a[i] : b[i]);                       \
        else if (op == MPI_MIN) RED_LOOP(T, a[i] < b[i] ? a[i] : b[i]);                       \
        else if (op == MPI_BAND) RED_LOOP(T, a[i] & b[i]);                                    \
        else if (op == MPI_BOR) RED_LOOP(T, a[i] | b[i]);                                     \
        else if (op == MPI_BXOR) RED_LOOP(T, a[i] ^ b[i]);                                    \
        else if (op == MPI_LAND) RED_LOOP(T, a[i] && b[i]);                                   \
        else if (op == MPI_LOR) RED_LOOP(T, a[i] || b[i]);                                    \
        else if (op == MPI_LXOR) RED_LOOP(T, !a[i] != !b[i]);                                 \
        else return false;                                                                    \
        return true;                                                                          \
    } while (0)

#define RED_FLT(T)                                                      \
    do {                                                                \
        if (op == MPI_SUM) RED_LOOP(T, a[i] + b[i]);                    \
        else if (op == MPI_PROD) RED_LOOP(T, a[i] * b[i]);              \
        else if (op == MPI_MAX) RED_LOOP(T, a[i] > b[i] ? a[i] : b[i]); \
        else if (op == MPI_MIN) RED_LOOP(T, a[i] < b[i] ? a[i] : b[i]); \
        else return false;                                              \
        return true;                                                    \
    } while (0)

/* out = in op in2 (out may be in2) for the predefined ops on the basic types; false if not
 * covered. Unsigned arithmetic makes signed sums and products wrap (two's complement) instead
 * of saturating. */
static bool reduce_builtin(const void *in, const void *in2, void *out, int count, MPI_Datatype dt, MPI_Op op) {
    if (dt == MPI_DOUBLE && op == MPI_SUM) { /* the commonest first */
        RED_LOOP(double, a[i] + b[i]);
        return true;
    }
    if (dt == MPI_SIGNED_CHAR || dt == MPI_INT8_T) RED_INT(int8_t, uint8_t);
    if (dt == MPI_UNSIGNED_CHAR || dt == MPI_UINT8_T) RED_INT(uint8_t, uint8_t);
    if (dt == MPI_SHORT || dt == MPI_INT16_T) RED_INT(int16_t, uint16_t);
    if (dt == MPI_UNSIGNED_SHORT || dt == MPI_UINT16_T) RED_INT(uint16_t, uint16_t);
    if (dt == MPI_INT || dt == MPI_INT32_T) RED_INT(int32_t, uint32_t);
    if (dt == MPI_UNSIGNED || dt == MPI_UINT32_T) RED_INT(uint32_t, uint32_t);
    if (dt == MPI_LONG || dt == MPI_LONG_LONG || dt == MPI_INT64_T) RED_INT(int64_t, uint64_t);
    if (dt == MPI_UNSIGNED_LONG || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_UINT64_T) RED_INT(uint64_t, uint64_t);
    if (dt == MPI_FLOAT) RED_FLT(float);
    if (dt == MPI_DOUBLE) RED_FLT(double);
    if (dt == MPI_LONG_DOUBLE) RED_FLT(long double);
    return false;
}

gsp_err_t gsp_mpi_reduce_local(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op) {
    if (reduce_builtin(in, inout, inout, count, dt, op)) return GSP_OK;
    if (MPI_Reduce_local(in, inout, count, dt, op) != MPI_SUCCESS) return gsp_error(GSP_ERR_INTERNAL, "MPI_Reduce_local failed");
    return GSP_OK;
}

gsp_err_t gsp_mpi_reduce_local3(const void *in, const void *in2, void *out, int count, MPI_Datatype dt, MPI_Op op) {
    if (reduce_builtin(in, in2, out, count, dt, op)) return GSP_OK;
    /* Other ops and types: through the output (plain types only, as the runtime's reductions). */
    int size;
    MPI_Type_size(dt, &size);
    if (out != in2) memcpy(out, in2, (size_t)count * (size_t)size);
    return gsp_mpi_reduce_local(in, out, count, dt, op);
}

#define COMBINE(T)                                                             \
    do {                                                                       \
        T *o = (T *)(regs + cb->v * bytes);                                    \
        for (int i = 0; i < count; i++) o[i] = 0;                              \
        for (int64_t j = 0; j < cb->count; j++) {                              \
            const T *g = (const T *)(regs + p->terms[cb->first + j].r * bytes); \
            T co = (T)p->terms[cb->first + j].c;                               \
            for (int i = 0; i < count; i++) o[i] += co * g[i];                 \
        }                                                                      \
    } while (0)

gsp_err_t gsp_mpi_allreduce(gsp_mpi_plan_t *p, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op) {
    gsp_err_t err = GSP_OK;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(dt, &lb, &ext);
    p->stat_msgs = p->stat_bytes = 0;
    if (count == 0) return GSP_OK;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    gsp_mpi_ctx_t *c = p->ctx;
    if (p->coll == GSP_COLL_ALLGATHER) {
        /* Gather every block, then reduce in rank order: the same bits at every rank. */
        char *all = malloc((size_t)(ext * count) * (size_t)p->size + 1);
        if (!all) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        if (!(err = gsp_mpi_allgather(p, in, all, count, dt))) {
            char *acc = all + (size_t)(ext * count) * (size_t)(p->size - 1);
            for (int x = p->size - 2; x >= 0 && !err; x--) err = gsp_mpi_reduce_local(all + (size_t)(ext * count) * (size_t)x, acc, count, dt, op);
            if (!err) {
                /* One block of dt, any layout: through MPI's own copy. */
                int rc = MPI_Sendrecv(acc, count, dt, p->rank, 0x7ffe, recvbuf, count, dt, p->rank, 0x7ffe, c->comm, MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS) err = gsp__mpi_fail(c, rc, "the local copy (MPI_Sendrecv)");
            }
        }
        free(all);
        return err;
    }
    if (p->coll != GSP_COLL_ALLREDUCE) return gsp_error(GSP_ERR_INVAL, "the plan is not an allreduce or allgather");
    if (op != MPI_SUM || (dt != MPI_DOUBLE && dt != MPI_FLOAT && dt != MPI_LONG_DOUBLE))
        return gsp_error(GSP_ERR_UNSUPPORTED, "register schedules compute MPI_SUM on floating types only");
    /* The register file: register k is the vector at regs + k * bytes (a block of the engine's
     * layout), register 0 my input. */
    int64_t bytes = (int64_t)ext * count;
    if ((err = gsp__mpi_reserve((void **)&c->work, &c->work_cap, (size_t)(bytes * p->nregs) + 1))) return err;
    char *regs = c->work;
    memcpy(regs, in, (size_t)bytes);
    for (int64_t r = 0; r <= p->nrounds; r++) {
        for (int64_t k = p->comb_off.v[r]; k < p->comb_off.v[r + 1]; k++) {
            const gsp_combine_t *cb = &p->comb[k];
            if (dt == MPI_DOUBLE) COMBINE(double);
            else if (dt == MPI_FLOAT) COMBINE(float);
            else COMBINE(long double);
        }
        if (r == p->nrounds) break;
        if ((err = run(p, r, regs, GSP_RT_RANK, p->nregs, bytes))) return err;
    }
    memcpy(recvbuf, regs + p->result * bytes, (size_t)bytes);
    count_sent(p, bytes);
    return GSP_OK;
}


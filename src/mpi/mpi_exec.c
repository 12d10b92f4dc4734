/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_exec.c — running a plan: allgather, broadcast, allreduce (registers, or gather + local
 * reduction in rank order for any predefined op), and the local reduction itself, written here
 * so that 8- and 16-bit integer sums wrap around as the MPI standard says (Open MPI 4.1's AVX op
 * component saturates them). */
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"
#include "mpi_int.h"

/* One round: pack each outgoing message's blocks, post receives and sends, wait, unpack.
 * block(x) gives the address of packet x's block (count elements of dt). */
typedef void *(*block_fn)(void *ctx, int64_t x);

static gsp_err_t exchange(gsp_mpi_plan_t *p, int64_t r, int count, MPI_Datatype dt, block_fn sblock, block_fn rblock,
                          void *ctx) {
    gsp_err_t err = GSP_OK;
    int psize;
    MPI_Pack_size(count, dt, p->comm, &psize);
    int64_t sb = p->send.off.v[r], se = p->send.off.v[r + 1], rb = p->recv.off.v[r], re = p->recv.off.v[r + 1];
    int64_t nreq = (se - sb) + (re - rb), sbytes = 0, rbytes = 0;
    for (int64_t k = sb; k < se; k++) sbytes += p->send.msg[k].count * psize;
    for (int64_t k = rb; k < re; k++) rbytes += p->recv.msg[k].count * psize;
    char *sbuf = malloc((size_t)sbytes + 1), *rbuf = malloc((size_t)rbytes + 1);
    MPI_Request *req = malloc(sizeof *req * (size_t)(nreq + 1));
    if (!sbuf || !rbuf || !req) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory for message buffers");
        goto done;
    }
    int64_t q = 0, at = 0;
    for (int64_t k = rb; k < re; k++) {
        const gsp__msg_t *m = &p->recv.msg[k];
        MPI_Irecv(rbuf + at, (int)(m->count * psize), MPI_PACKED, m->peer, (int)(r & 0x7fff), p->comm, &req[q++]);
        at += m->count * psize;
    }
    at = 0;
    for (int64_t k = sb; k < se; k++) {
        const gsp__msg_t *m = &p->send.msg[k];
        int pos = 0;
        for (int64_t i = 0; i < m->count; i++) MPI_Pack(sblock(ctx, m->items[i]), count, dt, sbuf + at, (int)(m->count * psize), &pos, p->comm);
        MPI_Isend(sbuf + at, pos, MPI_PACKED, m->peer, (int)(r & 0x7fff), p->comm, &req[q++]);
        at += m->count * psize;
        p->stat_msgs++;
        p->stat_bytes += pos;
    }
    if (MPI_Waitall((int)q, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
        err = gsp_error(GSP_ERR_INTERNAL, "MPI_Waitall failed in round %lld", (long long)r);
        goto done;
    }
    at = 0;
    for (int64_t k = rb; k < re; k++) {
        const gsp__msg_t *m = &p->recv.msg[k];
        int pos = 0;
        for (int64_t i = 0; i < m->count; i++) MPI_Unpack(rbuf + at, (int)(m->count * psize), &pos, rblock(ctx, m->items[i]), count, dt, p->comm);
        at += m->count * psize;
    }
done:
    free(sbuf);
    free(rbuf);
    free(req);
    return err;
}

typedef struct {
    char *base;
    MPI_Aint stride; /* bytes between blocks */
} blocks_t;

static void *block_at(void *ctx, int64_t x) {
    blocks_t *b = ctx;
    return b->base + x * b->stride;
}

/* Copies count elements of dt from src to dst (any datatype: through a pack buffer). */
static gsp_err_t copy_block(const void *src, void *dst, int count, MPI_Datatype dt, MPI_Comm comm) {
    int psize, pos = 0;
    MPI_Pack_size(count, dt, comm, &psize);
    char *tmp = malloc((size_t)psize + 1);
    if (!tmp) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    MPI_Pack(src, count, dt, tmp, psize, &pos, comm);
    pos = 0;
    MPI_Unpack(tmp, psize, &pos, dst, count, dt, comm);
    free(tmp);
    return GSP_OK;
}

gsp_err_t gsp_mpi_allgather(gsp_mpi_plan_t *p, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt) {
    gsp_err_t err;
    MPI_Aint lb, ext;
    if (p->coll != GSP_COLL_ALLGATHER) return gsp_error(GSP_ERR_INVAL, "the plan is not an allgather");
    MPI_Type_get_extent(dt, &lb, &ext);
    blocks_t b = {recvbuf, ext * count};
    p->stat_msgs = p->stat_bytes = 0;
    if (count == 0) return GSP_OK;
    if (sendbuf != MPI_IN_PLACE && (err = copy_block(sendbuf, block_at(&b, p->rank), count, dt, p->comm))) return err;
    for (int64_t r = 0; r < p->nrounds; r++)
        if ((err = exchange(p, r, count, dt, block_at, block_at, &b))) return err;
    return GSP_OK;
}

static void *bcast_block(void *ctx, int64_t x) {
    (void)x;
    return ctx;
}

gsp_err_t gsp_mpi_bcast(gsp_mpi_plan_t *p, void *buf, int count, MPI_Datatype dt) {
    gsp_err_t err;
    if (p->coll != GSP_COLL_BROADCAST) return gsp_error(GSP_ERR_INVAL, "the plan is not a broadcast");
    p->stat_msgs = p->stat_bytes = 0;
    if (count == 0) return GSP_OK;
    for (int64_t r = 0; r < p->nrounds; r++)
        if ((err = exchange(p, r, count, dt, bcast_block, bcast_block, buf))) return err;
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

typedef struct {
    char **reg;
    MPI_Aint bytes;
} regs_t;

static void *reg_at(void *ctx, int64_t x) { return ((regs_t *)ctx)->reg[x]; }

#define COMBINE(T)                                                           \
    do {                                                                     \
        T *o = (T *)R.reg[c->v];                                             \
        for (int i = 0; i < count; i++) o[i] = 0;                            \
        for (int64_t j = 0; j < c->count; j++) {                             \
            const T *g = (const T *)R.reg[p->terms[c->first + j].r];         \
            T co = (T)p->terms[c->first + j].c;                              \
            for (int i = 0; i < count; i++) o[i] += co * g[i];               \
        }                                                                    \
    } while (0)

gsp_err_t gsp_mpi_allreduce(gsp_mpi_plan_t *p, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op) {
    gsp_err_t err = GSP_OK;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(dt, &lb, &ext);
    p->stat_msgs = p->stat_bytes = 0;
    if (count == 0) return GSP_OK;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (p->coll == GSP_COLL_ALLGATHER) {
        /* Gather every block, then reduce in rank order: the same bits at every rank. */
        char *all = malloc((size_t)(ext * count) * (size_t)p->size + 1);
        if (!all) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        if (!(err = gsp_mpi_allgather(p, in, all, count, dt))) {
            char *acc = all + (size_t)(ext * count) * (size_t)(p->size - 1);
            for (int x = p->size - 2; x >= 0 && !err; x--) err = gsp_mpi_reduce_local(all + (size_t)(ext * count) * (size_t)x, acc, count, dt, op);
            if (!err) err = copy_block(acc, recvbuf, count, dt, p->comm);
        }
        free(all);
        return err;
    }
    if (p->coll != GSP_COLL_ALLREDUCE) return gsp_error(GSP_ERR_INVAL, "the plan is not an allreduce or allgather");
    if (op != MPI_SUM || (dt != MPI_DOUBLE && dt != MPI_FLOAT && dt != MPI_LONG_DOUBLE))
        return gsp_error(GSP_ERR_UNSUPPORTED, "register schedules compute MPI_SUM on floating types only");
    regs_t R = {NULL, ext * count};
    if (!(R.reg = calloc((size_t)p->nregs + 1, sizeof *R.reg))) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    for (int64_t k = 0; k < p->nregs; k++)
        if (!(R.reg[k] = malloc((size_t)R.bytes))) {
            err = gsp_error(GSP_ERR_NOMEM, "out of memory for %lld registers", (long long)p->nregs);
            goto done;
        }
    memcpy(R.reg[0], in, (size_t)R.bytes);
    for (int64_t r = 0; r <= p->nrounds; r++) {
        for (int64_t k = p->comb_off.v[r]; k < p->comb_off.v[r + 1]; k++) {
            const gsp_combine_t *c = &p->comb[k];
            if (dt == MPI_DOUBLE) COMBINE(double);
            else if (dt == MPI_FLOAT) COMBINE(float);
            else COMBINE(long double);
        }
        if (r == p->nrounds) break;
        if ((err = exchange(p, r, count, dt, reg_at, reg_at, &R))) goto done;
    }
    memcpy(recvbuf, R.reg[p->result], (size_t)R.bytes);
done:
    for (int64_t k = 0; k < p->nregs; k++) free(R.reg[k]);
    free(R.reg);
    return err;
}

gsp_err_t gsp_mpi_plan_spec(const char *spec, gsp_collective_t c, const char *method, int64_t root, MPI_Comm comm,
                            gsp_mpi_plan_t **plan) {
    gsp_err_t err;
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_vt_t vt;
    gsp_plan_t pl;
    *plan = NULL;
    if ((err = gsp_topo_from_spec(&t, spec))) return err;
    memset(&d, 0, sizeof d);
    memset(&pl, 0, sizeof pl);
    if ((err = gsp_vertex_transitive(&t, &vt)) || (err = gsp_distances(&t, gsp_vt_yes(vt), &d, NULL, NULL))) goto done;
    if (!d.connected) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not connected", spec);
        goto done;
    }
    gsp_plan_in_t in = {&t, &d, gsp_model_default(), root, 1, NULL, NULL, 0, 0};
    if ((err = gsp_plan(&in, c, method ? method : "auto", &pl))) goto done;
    err = gsp_mpi_plan_create(&pl.sched, &t, comm, plan);
done:
    gsp_plan_destroy(&pl);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    return err;
}

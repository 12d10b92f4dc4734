/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_calibrate.c — measures the running system for the cost model (`gossip-mpi calibrate`).
 *
 * Rank 0 drives: it sends each other rank a command (a ping-pong of so many bytes, or a burst
 * of small messages, so many times) and times its side; the others serve commands until told
 * to stop. Every timed loop starts after one untimed round trip (the peer is then waiting), and
 * the cost of reading the clock is subtracted. Each figure is the minimum over repetitions (the
 * machine's noise only ever adds), and the spread (median - minimum) says how noisy it was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"

enum { CMD_STOP, CMD_PINGPONG, CMD_BURST };
enum { TAG_CMD = 0x6a1, TAG_DATA = 0x6a2 };

typedef struct {
    MPI_Comm comm;
    int rank, size;
    char *buf, *buf2;
    size_t cap;
    double wtime; /* cost of one MPI_Wtime pair */
    int reps;
    double target;
} cal_t;

static gsp_err_t grow(cal_t *c, size_t bytes) {
    if (bytes <= c->cap) return GSP_OK;
    char *a = realloc(c->buf, bytes), *b = a ? realloc(c->buf2, bytes) : NULL;
    if (a) c->buf = a;
    if (b) c->buf2 = b;
    if (!a || !b) return gsp_error(GSP_ERR_NOMEM, "out of memory for %zu bytes of ping-pong buffers", bytes);
    memset(c->buf, 1, bytes);
    memset(c->buf2, 2, bytes);
    c->cap = bytes;
    return GSP_OK;
}

/* A rank other than 0: serves rank 0's commands until CMD_STOP. cmd = {op, count, bytes, iters}. */
static gsp_err_t serve(cal_t *c) {
    MPI_Request req[2 * 64];
    for (;;) {
        int64_t cmd[4];
        MPI_Recv(cmd, 4, MPI_INT64_T, 0, TAG_CMD, c->comm, MPI_STATUS_IGNORE);
        if (cmd[0] == CMD_STOP) return GSP_OK;
        int k = (int)cmd[1];
        int bytes = (int)cmd[2];
        /* Allocated before the first command (the sizes are known): never fails here. */
        if (grow(c, (size_t)bytes * (size_t)k + 1)) MPI_Abort(c->comm, 3);
        for (int64_t it = 0; it <= cmd[3]; it++) {
            if (cmd[0] == CMD_PINGPONG) {
                MPI_Recv(c->buf, bytes, MPI_BYTE, 0, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
                MPI_Send(c->buf, bytes, MPI_BYTE, 0, TAG_DATA, c->comm);
                continue;
            }
            for (int j = 0; j < k; j++) MPI_Irecv(c->buf + (size_t)j * (size_t)bytes, bytes, MPI_BYTE, 0, TAG_DATA, c->comm, &req[j]);
            MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
            for (int j = 0; j < k; j++) MPI_Isend(c->buf + (size_t)j * (size_t)bytes, bytes, MPI_BYTE, 0, TAG_DATA, c->comm, &req[j]);
            MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        }
    }
}

static void command(cal_t *c, int peer, int op, int64_t count, int64_t bytes, int64_t iters) {
    int64_t cmd[4] = {op, count, bytes, iters};
    MPI_Send(cmd, 4, MPI_INT64_T, peer, TAG_CMD, c->comm);
}

/* Rank 0: one ping-pong of iters round trips with peer, after an untimed one; seconds per
 * message (half a round trip). */
static double pingpong(cal_t *c, int peer, int64_t bytes, int64_t iters) {
    command(c, peer, CMD_PINGPONG, 1, bytes, iters);
    double t0 = 0;
    for (int64_t it = 0; it <= iters; it++) {
        if (it == 1) t0 = MPI_Wtime();
        MPI_Send(c->buf, (int)bytes, MPI_BYTE, peer, TAG_DATA, c->comm);
        MPI_Recv(c->buf2, (int)bytes, MPI_BYTE, peer, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
    }
    double t = MPI_Wtime() - t0 - c->wtime;
    return fmax(t, 0) / (double)iters / 2;
}

/* Rank 0: k messages of 8 bytes sent at once to peers[0..k-1] (repeats allowed), each answered;
 * seconds per direction (half a round trip). */
static double burst(cal_t *c, const int *peers, int k, int64_t iters) {
    MPI_Request req[2 * 64];
    for (int j = 0; j < k; j++) {
        bool seen = false;
        for (int i = 0; i < j; i++) seen |= peers[i] == peers[j];
        if (seen) continue;
        int cnt = 0;
        for (int i = 0; i < k; i++) cnt += peers[i] == peers[j];
        command(c, peers[j], CMD_BURST, cnt, 8, iters);
    }
    double t0 = 0;
    for (int64_t it = 0; it <= iters; it++) {
        if (it == 1) t0 = MPI_Wtime();
        for (int j = 0; j < k; j++) MPI_Irecv(c->buf2 + 8 * j, 8, MPI_BYTE, peers[j], TAG_DATA, c->comm, &req[k + j]);
        for (int j = 0; j < k; j++) MPI_Isend(c->buf + 8 * j, 8, MPI_BYTE, peers[j], TAG_DATA, c->comm, &req[j]);
        MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
    }
    double t = MPI_Wtime() - t0 - c->wtime;
    return fmax(t, 0) / (double)iters / 2;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Repetitions of a measurement: iterations sized so one lasts about c->target; the minimum
 * and the spread (median - minimum). kind 0: ping-pong of bytes with peer; 1: burst. */
static double measure(cal_t *c, int kind, int peer, int64_t bytes, const int *peers, int k, double *spread) {
    double one = kind == 0 ? pingpong(c, peer, bytes, 1) : burst(c, peers, k, 1);
    double per = fmax(2 * one, 1e-9);
    int64_t iters = (int64_t)ceil(c->target / per);
    if (iters < 1) iters = 1;
    if (iters > 10000) iters = 10000;
    double t[64];
    int reps = c->reps < 64 ? c->reps : 64;
    for (int r = 0; r < reps; r++) t[r] = kind == 0 ? pingpong(c, peer, bytes, iters) : burst(c, peers, k, iters);
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    if (spread) *spread = t[reps / 2] - t[0];
    return t[0];
}

/* Distances from node 0 of t by BFS; *far [out]: a farthest node, *near: 0's first neighbour. */
/* gsp_cost_refine's measurement: a ping-pong with the peer. */
typedef struct {
    cal_t *c;
    int peer;
} probe_t;

static double probe(void *arg, int64_t bytes, double *noise) {
    probe_t *p = arg;
    return measure(p->c, 0, p->peer, bytes, NULL, 0, noise);
}

static gsp_err_t from_zero(const gsp_topo_t *t, int64_t *far, int64_t *hops, int64_t *near) {
    int64_t *d = malloc(sizeof *d * (size_t)t->n), *q = malloc(sizeof *q * (size_t)t->n);
    if (!d || !q) {
        free(d);
        free(q);
        return gsp_error(GSP_ERR_NOMEM, "out of memory");
    }
    for (int64_t v = 0; v < t->n; v++) d[v] = -1;
    int64_t h = 0, e = 0;
    d[0] = 0;
    q[e++] = 0;
    *far = 0;
    while (h < e) {
        int64_t u = q[h++];
        if (d[u] > d[*far]) *far = u;
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++)
            if (d[t->adj[a]] < 0) d[t->adj[a]] = d[u] + 1, q[e++] = t->adj[a];
    }
    *hops = d[*far];
    *near = t->off[1] > t->off[0] ? t->adj[t->off[0]] : -1;
    bool connected = e == t->n;
    free(d);
    free(q);
    return connected ? GSP_OK : gsp_error(GSP_ERR_NOTAPPLIC, "%s is not connected", t->spec);
}

gsp_err_t gsp_mpi_calibrate(MPI_Comm comm, const gsp_calib_opts_t *opts, gsp_calib_t *out) {
    gsp_calib_opts_t o = opts ? *opts : (gsp_calib_opts_t){0};
    cal_t c;
    memset(&c, 0, sizeof c);
    memset(out, 0, sizeof *out);
    c.reps = o.reps > 0 ? o.reps : 5;
    c.target = o.target > 0 ? o.target : 2e-4;
    int64_t maxb = o.max_bytes > 0 ? o.max_bytes : (int64_t)1 << 24;
    if (maxb > INT32_MAX / 2) maxb = INT32_MAX / 2;
    gsp_err_t err = GSP_OK;
    if (MPI_Comm_dup(comm, &c.comm) != MPI_SUCCESS) return gsp_error(GSP_ERR_INTERNAL, "MPI_Comm_dup failed");
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.size);
    double start = MPI_Wtime();
    /* Where the peers are: rank 1, or with a topology rank 0's first neighbour, its farthest rank
     * and its neighbours (every rank parses the same spec: the same answer, or the same error). */
    int64_t near = 1, far = -1, hops = 0, deg = 0, nb[64];
    if (c.size < 2) err = gsp_error(GSP_ERR_INVAL, "calibrate needs at least 2 ranks (mpirun -n 2 or more)");
    if (!err && o.topology) {
        gsp_topo_t t;
        if (!(err = gsp_topo_from_spec(&t, o.topology))) {
            if (t.n != c.size)
                err = gsp_error(GSP_ERR_INVAL, "%s has %lld nodes but there are %d ranks", o.topology, (long long)t.n, c.size);
            else if (!(err = from_zero(&t, &far, &hops, &near)))
                for (int64_t a = t.off[0]; a < t.off[1] && deg < 64; a++) nb[deg++] = t.adj[a];
            gsp_topo_destroy(&t);
        }
    }
    if (err) {
        MPI_Comm_free(&c.comm);
        return err;
    }
    /* Every rank on one node: the shared-memory model. */
    MPI_Comm node;
    if (MPI_Comm_split_type(c.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        int ns = 0;
        MPI_Comm_size(node, &ns);
        out->cost.shared = ns == c.size;
        MPI_Comm_free(&node);
    }
    out->cost = out->cost.shared ? gsp_cost_shared_memory() : gsp_cost_default();
    /* Buffers: rank 0 and the ping-pong's peer up to max_bytes, the others a burst's. */
    int ok = !grow(&c, c.rank == 0 || c.rank == near ? (size_t)maxb + 64 * 8 : 64 * 8), all = 1;
    if (c.rank == 0) {
        double w = 1e9;
        for (int i = 0; i < 20; i++) {
            double a = MPI_Wtime(), b = MPI_Wtime();
            if (b - a < w) w = b - a;
        }
        c.wtime = w;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c.comm);
    if (!all) {
        free(c.buf);
        free(c.buf2);
        MPI_Comm_free(&c.comm);
        return gsp_error(GSP_ERR_NOMEM, "out of memory for %lld bytes of ping-pong buffers", (long long)maxb);
    }
    if (c.rank != 0) err = serve(&c);
    else {
        /* Ping-pong: 0 bytes, then 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, ...: four sizes an octave. */
        int n = 0;
        out->size[n++] = 0;
        for (int k = 0; k < 40 && n < GSP_CALIB_MAX_SIZES; k++)
            for (int q = 4; q < 8 && n < GSP_CALIB_MAX_SIZES; q++) {
                int64_t s = ((int64_t)q << k) / 4;
                if (s > maxb) break;
                if (s > out->size[n - 1]) out->size[n++] = s;
            }
        out->nsizes = n;
        out->near = (int)near;
        for (int i = 0; i < n; i++) out->time[i] = measure(&c, 0, (int)near, out->size[i], NULL, 0, &out->spread[i]);
        gsp_cost_fit(n, out->size, out->time, out->spread, &out->cost, &out->fit);
        probe_t pr = {&c, (int)near};
        out->refine_probes = gsp_cost_refine(&out->cost, &out->fit, n, out->size, out->time, out->spread, probe, &pr, &out->refined);
        /* Hop latency: 0 bytes to the farthest rank and to a neighbour. */
        if (far >= 0 && hops >= 2) {
            out->have_hop = true;
            out->far = (int)far;
            out->far_hops = hops;
            out->t_near = measure(&c, 0, (int)near, 0, NULL, 0, NULL);
            out->t_far = measure(&c, 0, (int)far, 0, NULL, 0, NULL);
            out->cost.hop = fmax(0, (out->t_far - out->t_near) / (double)(hops - 1));
        }
        /* Overhead: k messages at once against one — to k neighbours, else k other ranks,
         * else (2 ranks) k to the one peer. */
        int peers[64], k = 0;
        if (deg >= 2) {
            for (int i = 0; i < deg; i++) peers[k++] = (int)nb[i];
            out->burst_peers = k;
        } else if (c.size > 2) {
            for (int r = 1; r < c.size && k < 8; r++) peers[k++] = r;
            out->burst_peers = k;
        } else {
            for (; k < 4; k++) peers[k] = 1;
            out->burst_peers = 1;
        }
        out->burst = k;
        out->t_one = measure(&c, 1, 0, 0, peers, 1, NULL);
        out->t_burst = measure(&c, 1, 0, 0, peers, k, NULL);
        /* The whole round trip's difference: the answers come back spaced as the sends left,
         * so one side's serialization shows (the larger of sending and receiving a message),
         * as the model charges a round for its busiest sender or receiver. */
        out->cost.overhead = fmax(0, 2 * (out->t_burst - out->t_one) / (double)(k - 1));
        for (int r = 1; r < c.size; r++) command(&c, r, CMD_STOP, 0, 0, 0);
    }
    /* gamma: MPI_SUM over doubles, by the runtime's own reduction; on one node every rank at
     * once (the model's one memory), else rank 0 alone. */
    int64_t gbytes = (int64_t)1 << 23, count = gbytes / 8;
    int shared = out->cost.shared;
    MPI_Bcast(&shared, 1, MPI_INT, 0, c.comm);
    bool mine = shared || c.rank == 0;
    double tg = 0;
    if (mine && grow(&c, (size_t)gbytes)) mine = false, tg = NAN;
    MPI_Barrier(c.comm);
    if (mine) {
        double best = 1e30;
        for (int r = -1; r < c.reps; r++) {
            double t0 = MPI_Wtime();
            gsp_mpi_reduce_local(c.buf, c.buf2, (int)count, MPI_DOUBLE, MPI_SUM);
            double t = MPI_Wtime() - t0 - c.wtime;
            if (r >= 0 && t < best) best = t;
        }
        tg = fmax(best, 0);
    }
    double tmax = 0;
    MPI_Reduce(&tg, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, c.comm);
    if (c.rank == 0) {
        out->gamma_bytes = gbytes;
        out->gamma_ranks = shared ? c.size : 1;
        out->t_gamma = tmax;
        out->cost.gamma = tmax / (double)gbytes / (double)out->gamma_ranks;
        out->seconds = MPI_Wtime() - start;
        if (!isfinite(out->cost.gamma)) err = gsp_error(GSP_ERR_NOMEM, "out of memory for the reduction's buffers");
    }
    int e = err;
    MPI_Bcast(&e, 1, MPI_INT, 0, c.comm);
    MPI_Bcast(out, (int)sizeof *out, MPI_BYTE, 0, c.comm);
    free(c.buf);
    free(c.buf2);
    MPI_Comm_free(&c.comm);
    if (e && !err) err = gsp_error((gsp_err_t)e, "rank 0 failed to calibrate");
    return err;
}

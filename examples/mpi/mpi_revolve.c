/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_revolve.c — the revolving hierarchy's two applications run for real under mpirun (2^n
 * ranks, the bcnext message sequence): `bnb` — distributed branch-and-bound on a knapsack sharing
 * the global bound; `jacobi` — an asynchronous Jacobi iteration with fixed-point detection. At
 * every step each rank sends at most one message (to msg(rank, t)) and receives at most one,
 * carrying its values for the computations in flight. Rank 0 checks the answer against a
 * sequential solver; every rank's send and receive counts are reported and must be equal.
 * Usage: mpirun -n 16 mpi_revolve bnb [items] [seed] | jacobi [rows per rank] [seed] */
#include <lapacke.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"

static gsp_revolve_t R;
static int64_t N, depth, W, *rec; /* rec[label]: the label that sends to it, or -1 */
static int rank;
static int64_t nsent, nrecv;

/* One step of the hierarchy: send my W values (plus extra) to msg(rank, t), receive from the one
 * sender of this step, and merge by maximum. */
static void step(int64_t t, double *vals, int nv) {
    int64_t to = gsp_revolve_msg(&R, rank, t);
    int64_t pos = ((rank + t) % N + N) % N, from_label = rec[pos];
    int64_t from = from_label < 0 ? -1 : ((from_label - t) % N + N) % N;
    double *in = malloc(sizeof *in * (size_t)nv);
    MPI_Request req[2];
    int nr = 0;
    if (from >= 0) MPI_Irecv(in, nv, MPI_DOUBLE, (int)from, (int)(t & 0x7fff), MPI_COMM_WORLD, &req[nr++]);
    if (to >= 0) MPI_Isend(vals, nv, MPI_DOUBLE, (int)to, (int)(t & 0x7fff), MPI_COMM_WORLD, &req[nr++]);
    MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
    if (to >= 0) nsent++;
    if (from >= 0) {
        nrecv++;
        for (int i = 0; i < nv; i++) vals[i] = vals[i] > in[i] ? vals[i] : in[i];
    }
    free(in);
}

/* The hierarchy runs in revolutions of N steps, over which every rank sends and receives the
 * same number of messages: after the answer, complete the current revolution. */
static void finish_revolution(int64_t t, double *vals, int nv) {
    for (t++; t % N; t++) step(t, vals, nv);
}

/* ---- branch and bound ---- */
static int M;
static long *w, *v, C;

static double bound(int i, long weight, long value) {
    double b = (double)value;
    long room = C - weight;
    for (; i < M && room > 0; i++) {
        if (w[i] <= room) room -= w[i], b += (double)v[i];
        else b += (double)v[i] * (double)room / (double)w[i], room = 0;
    }
    return b;
}

static int by_density(const void *a, const void *b) {
    const long *x = a, *y = b;
    double dx = (double)x[1] / (double)x[0], dy = (double)y[1] / (double)y[0];
    return (dx < dy) - (dx > dy);
}

static int bnb(int argc, char **argv) {
    M = argc > 2 ? atoi(argv[2]) : 40;
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    long(*items)[2] = malloc(sizeof *items * (size_t)M), total = 0;
    for (int i = 0; i < M; i++) {
        items[i][0] = 10 + (long)gsp_rng_below(&rng, 90);
        items[i][1] = items[i][0] + (long)gsp_rng_below(&rng, 30);
        total += items[i][0];
    }
    C = total / 2;
    qsort(items, (size_t)M, sizeof *items, by_density);
    w = malloc(sizeof *w * (size_t)M), v = malloc(sizeof *v * (size_t)M);
    for (int i = 0; i < M; i++) w[i] = items[i][0], v[i] = items[i][1];
    typedef struct {
        int item;
        long weight, value;
    } node_t;
    int64_t cap = 1024, sp = 0;
    node_t *stack = malloc(sizeof *stack * (size_t)cap);
    long wt = 0, val = 0, best = 0, known = 0;
    for (int i = 0; i < R.n; i++)
        if (rank >> i & 1) wt += w[i], val += v[i];
    if (wt <= C) stack[sp++] = (node_t){R.n, wt, val};
    /* vals: [known bound, then per computation in flight: its best, its busy flag]. */
    int nv = 1 + 2 * (int)W;
    double *vals = malloc(sizeof *vals * (size_t)nv);
    for (int i = 0; i < nv; i++) vals[i] = 0;
    long answer = -1;
    int64_t t = 0;
    for (; t < 1000000; t++) {
        for (int k = 0; k < 8 && sp > 0; k++) {
            node_t nd = stack[--sp];
            if (nd.value > best) best = nd.value;
            if (best > known) known = best;
            if (nd.item == M || bound(nd.item, nd.weight, nd.value) <= (double)known) continue;
            if (sp + 2 > cap) stack = realloc(stack, sizeof *stack * (size_t)(cap *= 2));
            stack[sp++] = (node_t){nd.item + 1, nd.weight, nd.value};
            if (nd.weight + w[nd.item] <= C) stack[sp++] = (node_t){nd.item + 1, nd.weight + w[nd.item], nd.value + v[nd.item]};
        }
        vals[0] = (double)known;
        vals[1 + 2 * (t % W)] = (double)best;
        vals[2 + 2 * (t % W)] = sp > 0;
        step(t, vals, nv);
        if ((long)vals[0] > known) known = (long)vals[0];
        /* The holder of computation c learns whether anyone was busy at step c; it tells everyone
         * through a broadcast on the world (a result of the hierarchy, decided at one rank). */
        int64_t c = t - depth + 1;
        int stop = 0;
        double ans = 0;
        if (c >= 0 && gsp_revolve_holder(&R, true, c) == rank && vals[2 + 2 * (c % W)] == 0) {
            stop = 1;
            ans = vals[1 + 2 * (c % W)];
        }
        double pair[2] = {stop, ans}, all[2];
        MPI_Allreduce(pair, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (all[0] > 0) {
            answer = (long)all[1];
            finish_revolution(t, vals, nv);
            break;
        }
        /* The computation slot is reused W steps later: clear it. */
        vals[1 + 2 * ((t + 1) % W)] = 0;
        vals[2 + 2 * ((t + 1) % W)] = 0;
    }
    long truth = 0;
    if (rank == 0) {
        long *dp = calloc((size_t)C + 1, sizeof *dp);
        for (int i = 0; i < M; i++)
            for (long c2 = C; c2 >= w[i]; c2--)
                if (dp[c2 - w[i]] + v[i] > dp[c2]) dp[c2] = dp[c2 - w[i]] + v[i];
        truth = dp[C];
        free(dp);
    }
    MPI_Bcast(&truth, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    free(stack), free(vals), free(items), free(w), free(v);
    if (rank == 0)
        printf("mpi_revolve bnb: %d items, %lld ranks: optimum %ld after %lld steps; dynamic programming says %ld: %s\n", M,
               (long long)N, answer, (long long)t, truth, answer == truth ? "equal" : "DIFFERENT");
    return answer == truth ? 0 : 1;
}

/* ---- asynchronous Jacobi ---- */
static int jacobi(int argc, char **argv) {
    int rows = argc > 2 ? atoi(argv[2]) : 16;
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
    int64_t m = N * rows;
    double *A = calloc((size_t)(m * m), sizeof *A), *b = malloc(sizeof *b * (size_t)m);
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed); /* every rank builds the same system */
    for (int64_t i = 0; i < m; i++) {
        double off = 0;
        for (int64_t j = 0; j < m; j++)
            if (j != i && gsp_rng_double(&rng) < 0.05) off += fabs(A[i * m + j] = gsp_rng_double(&rng) - 0.5);
        A[i * m + i] = 1.5 * off + 1;
        b[i] = gsp_rng_double(&rng) * 10 - 5;
    }
    double *x = calloc((size_t)m, sizeof *x), *mine = malloc(sizeof *mine * (size_t)rows);
    int nv = (int)W;
    double *vals = malloc(sizeof *vals * (size_t)nv);
    for (int i = 0; i < nv; i++) vals[i] = 0;
    int64_t t = 0, stopped = -1;
    for (; t < 100000; t++) {
        /* Update my block from the values of the last exchange (asynchronous: others' blocks are a
         * step old), then share the blocks. */
        double res = 0;
        for (int64_t i = (int64_t)rank * rows, k = 0; k < rows; i++, k++) {
            double s = b[i];
            for (int64_t j = 0; j < m; j++)
                if (j != i) s -= A[i * m + j] * x[j];
            mine[k] = s / A[i * m + i];
            res = fmax(res, fabs(mine[k] - x[i]));
        }
        MPI_Allgather(mine, rows, MPI_DOUBLE, x, rows, MPI_DOUBLE, MPI_COMM_WORLD);
        vals[t % W] = res;
        step(t, vals, nv);
        int64_t c = t - depth + 1;
        int stop = c >= 0 && gsp_revolve_holder(&R, true, c) == rank && vals[c % W] < 1e-12, any;
        MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        vals[(t + 1) % W] = 0;
        if (any) {
            stopped = c;
            finish_revolution(t, vals, nv);
            break;
        }
    }
    int ok = 1;
    if (rank == 0) {
        double *LU = malloc(sizeof *LU * (size_t)(m * m)), *xs = malloc(sizeof *xs * (size_t)m), err = 0;
        lapack_int *piv = malloc(sizeof *piv * (size_t)m);
        memcpy(LU, A, sizeof *LU * (size_t)(m * m));
        memcpy(xs, b, sizeof *xs * (size_t)m);
        LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)m, 1, LU, (lapack_int)m, piv, xs, 1);
        for (int64_t i = 0; i < m; i++) err = fmax(err, fabs(x[i] - xs[i]));
        ok = stopped >= 0 && err < 1e-9;
        printf("mpi_revolve jacobi: %lld unknowns on %lld ranks: fixed point detected at step %lld; max |x - x_LAPACK| = %.3g: %s\n",
               (long long)m, (long long)N, (long long)stopped, err, ok ? "converged" : "NOT CONVERGED");
        free(LU), free(xs), free(piv);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(A), free(b), free(x), free(mine), free(vals);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = 0;
    while ((1 << n) < size) n++;
    if ((1 << n) != size || n < 1 || argc < 2) {
        if (rank == 0) fprintf(stderr, "mpi_revolve: error: run on 2^n ranks with 'bnb' or 'jacobi'\n");
        MPI_Finalize();
        return 2;
    }
    if (gsp_revolve_build_list(n, GSP_REVOLVE_BCNEXT, &R)) {
        if (rank == 0) fprintf(stderr, "mpi_revolve: error: %s\n", gsp_errmsg());
        MPI_Finalize();
        return 3;
    }
    N = R.N;
    depth = gsp_revolve_depth(&R, true);
    W = depth + 1;
    rec = malloc(sizeof *rec * (size_t)N);
    for (int64_t j = 0; j < N; j++) rec[j] = -1;
    for (int64_t j = 0; j < N; j++)
        if (R.leaf[j]) rec[R.parent[j]] = j;
    int rc = !strcmp(argv[1], "bnb") ? bnb(argc, argv) : jacobi(argc, argv);
    /* Equal load: every rank sent and received the same number of hierarchy messages. */
    long long mine[2] = {nsent, nrecv}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_revolve: hierarchy messages per rank: sent %lld..%lld, received %lld..%lld\n", lo[0], hi[0], lo[1], hi[1]);
    if (hi[0] != lo[0] || hi[1] != lo[1] || lo[0] != lo[1]) rc = rc ? rc : 1;
    free(rec);
    gsp_revolve_destroy(&R);
    MPI_Finalize();
    return rc;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* api_mpi.c — the C API of libgossip_mpi called directly (not through the drop-in), each result
 * against MPI's own or against arithmetic done here: a plan built from a schedule runs the
 * allgather and the broadcast as MPI_Allgather and MPI_Bcast would, and counts the messages and
 * bytes the schedule gives this rank; the three-operand local reduction; a context's placement,
 * its choice of algorithm, the datatype and operation checks, and a refused reduction
 * (MPI_BAND on doubles: MPI_ERR_OP by the standard) that no rank communicated for; collectives
 * planned ahead (gsp_mpi_ctx_prepare) chosen before their calls; a pipelined
 * phase sends synchronously only (its windows count completions as deliveries).
 * Usage: mpirun -n N api_mpi SPEC (SPEC a topology of N nodes), or api_mpi --prepared FABRIC (N
 * compute nodes; the planned-ahead calls only). Prints "api_mpi: ok" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"
#include "gossip/mpi.h"

static int failures;
static int rank;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "api_mpi: rank %d: %s:%d: %s (%s)\n", rank, __FILE__, __LINE__, #cond, gsp_errmsg());       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* Sends node me makes in schedule s (explicit): transfers and distinct (round, receiver) pairs. */
static void sends_of(const gsp_sched_t *s, int64_t me, int64_t *transfers, int64_t *messages) {
    *transfers = *messages = 0;
    for (int64_t r = 0; r < s->nrounds; r++)
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            if (s->sends[k].u != me) continue;
            (*transfers)++;
            bool seen = false;
            for (int64_t j = s->send_off.v[r]; j < k; j++) seen |= s->sends[j].u == me && s->sends[j].v == s->sends[k].v;
            if (!seen) (*messages)++;
        }
}

/* Allgather and broadcast through a plan of a schedule, against MPI_Allgather and MPI_Bcast. */
static void plans(const char *spec, int size) {
    enum { COUNT = 50 };
    gsp_topo_t t;
    gsp_plan_t pl;
    gsp_mpi_plan_t *mp = NULL;
    CHECK(gsp_topo_from_spec(&t, spec) == GSP_OK);
    CHECK(gsp_plan_spec(spec, GSP_COLL_ALLGATHER, NULL, &pl) == GSP_OK);
    CHECK(gsp_mpi_plan_create(&pl.sched, &t, MPI_COMM_WORLD, &mp) == GSP_OK);
    if (!mp) return; /* every rank alike: the spec is not of this size */
    CHECK(gsp_mpi_plan_collective(mp) == GSP_COLL_ALLGATHER);
    int mine[COUNT], *got = malloc(sizeof(int) * COUNT * (size_t)size), *want = malloc(sizeof(int) * COUNT * (size_t)size);
    for (int i = 0; i < COUNT; i++) mine[i] = rank * 1000 + i * 7 - 3;
    CHECK(gsp_mpi_allgather(mp, mine, got, COUNT, MPI_INT) == GSP_OK);
    MPI_Allgather(mine, COUNT, MPI_INT, want, COUNT, MPI_INT, MPI_COMM_WORLD);
    CHECK(!memcmp(got, want, sizeof(int) * COUNT * (size_t)size));
    gsp_sched_t ex;
    const gsp_sched_t *s = &pl.sched;
    memset(&ex, 0, sizeof ex);
    if (s->symmetric) {
        CHECK(gsp_sched_expand(s, &t, &ex) == GSP_OK);
        s = &ex;
    }
    int64_t transfers, messages, m = -1, b = -1;
    sends_of(s, rank, &transfers, &messages);
    int block;
    MPI_Pack_size(COUNT, MPI_INT, MPI_COMM_WORLD, &block);
    gsp_mpi_plan_stats(mp, &m, &b);
    CHECK(m == messages);
    CHECK(b == transfers * block);
    CHECK(transfers >= 1 && messages >= 1);
    gsp_sched_destroy(&ex);
    gsp_mpi_plan_free(mp);
    gsp_plan_destroy(&pl);

    int root = size - 1;
    CHECK(gsp_plan_spec(spec, GSP_COLL_BROADCAST, &(gsp_plan_opts_t){.root = root}, &pl) == GSP_OK);
    CHECK(gsp_mpi_plan_create(&pl.sched, &t, MPI_COMM_WORLD, &mp) == GSP_OK);
    if (!mp) return;
    CHECK(gsp_mpi_plan_collective(mp) == GSP_COLL_BROADCAST);
    double buf[COUNT], ref[COUNT];
    for (int i = 0; i < COUNT; i++) buf[i] = ref[i] = rank == root ? 0.5 * i - 11 : -1;
    CHECK(gsp_mpi_bcast(mp, buf, COUNT, MPI_DOUBLE) == GSP_OK);
    MPI_Bcast(ref, COUNT, MPI_DOUBLE, root, MPI_COMM_WORLD);
    CHECK(!memcmp(buf, ref, sizeof buf));
    gsp_mpi_plan_free(mp);
    gsp_plan_destroy(&pl);
    gsp_topo_destroy(&t);
    free(got);
    free(want);
}

/* out = in op in2, by hand; out may be in2. */
static void reduce_local3(void) {
    int a[3] = {1, -2, 3}, b[3] = {10, 20, -30}, c[3];
    CHECK(gsp_mpi_reduce_local3(a, b, c, 3, MPI_INT, MPI_SUM) == GSP_OK);
    CHECK(c[0] == 11 && c[1] == 18 && c[2] == -27);
    double x[2] = {1.5, -4}, y[2] = {-2, 7};
    CHECK(gsp_mpi_reduce_local3(x, y, y, 2, MPI_DOUBLE, MPI_MAX) == GSP_OK);
    CHECK(y[0] == 1.5 && y[1] == 7);
}

/* A context: rank r runs node r (the spec names no hosts); the algorithm it reports for a size
 * it ran is the one it ran; plain and reducible datatypes; a refused reduction. */
static void context(const char *spec, int size) {
    gsp_mpi_ctx_t *ctx = NULL;
    CHECK(gsp_mpi_ctx_create(spec, MPI_COMM_WORLD, &ctx) == GSP_OK);
    if (!ctx) return;
    for (int r = 0; r < size; r++) CHECK(gsp_mpi_ctx_node(ctx, r) == r);
    enum { COUNT = 1000 };
    double in[COUNT], out[COUNT], ref[COUNT];
    for (int i = 0; i < COUNT; i++) in[i] = rank + i; /* small integers: every order sums exactly */
    /* The call cache: a call is served from it once the same call (collective, predefined type
     * and op, count, root) was served; another count, op or collective is not. */
    CHECK(!gsp_mpi_ctx_cached(ctx, GSP_COLL_ALLREDUCE, MPI_DOUBLE, MPI_SUM, COUNT, 0));
    CHECK(gsp_mpi_ctx_allreduce(ctx, in, out, COUNT, MPI_DOUBLE, MPI_SUM) == GSP_OK);
    CHECK(gsp_mpi_ctx_cached(ctx, GSP_COLL_ALLREDUCE, MPI_DOUBLE, MPI_SUM, COUNT, 0));
    CHECK(!gsp_mpi_ctx_cached(ctx, GSP_COLL_ALLREDUCE, MPI_DOUBLE, MPI_SUM, COUNT - 1, 0));
    CHECK(!gsp_mpi_ctx_cached(ctx, GSP_COLL_ALLREDUCE, MPI_DOUBLE, MPI_MAX, COUNT, 0));
    CHECK(!gsp_mpi_ctx_cached(ctx, GSP_COLL_BROADCAST, MPI_DOUBLE, MPI_OP_NULL, COUNT, 0));
    MPI_Allreduce(in, ref, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, sizeof out));
    const gsp_rt_algo_t *a = gsp_mpi_ctx_choice(ctx, GSP_COLL_ALLREDUCE, 0, (int64_t)sizeof in);
    CHECK(a && !strcmp(a->name, gsp_mpi_ctx_last(ctx)));
    MPI_Datatype strided;
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    CHECK(gsp_mpi_ctx_plain(MPI_DOUBLE));
    CHECK(!gsp_mpi_ctx_plain(strided));
    CHECK(gsp_mpi_ctx_reducible(MPI_DOUBLE, MPI_SUM));
    CHECK(gsp_mpi_ctx_reducible(MPI_INT, MPI_BAND));
    CHECK(!gsp_mpi_ctx_reducible(MPI_DOUBLE, MPI_BAND));
    MPI_Type_free(&strided);
    CHECK(gsp_mpi_ctx_allreduce(ctx, in, out, COUNT, MPI_DOUBLE, MPI_BAND) != GSP_OK);
    CHECK(!gsp_mpi_ctx_communicated(ctx));
    CHECK(gsp_mpi_ctx_mpi_error(ctx) == MPI_ERR_OP);
    gsp_mpi_ctx_free(ctx);
}

/* Small calls repeated (the cache's compiled broadcasts and gathers: mpi_engine.c
 * gsp__mpi_script) give MPI's answer, from every root, and their messages match those of a rank
 * that runs the engine for the same call: rank 1 describes the broadcast's ints as one
 * contiguous type, which is never cached. */
static void repeated(const char *spec, int size) {
    gsp_mpi_ctx_t *ctx = NULL;
    CHECK(gsp_mpi_ctx_create(spec, MPI_COMM_WORLD, &ctx) == GSP_OK);
    if (!ctx) return;
    const int counts[] = {1, 3, 64};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        MPI_Datatype block;
        MPI_Type_contiguous(n, MPI_INT, &block);
        MPI_Type_commit(&block);
        for (int call = 0; call < 3 * size; call++) {
            int root = call / 3, buf[64], ref[64]; /* each root three times: the second and third are cached */
            for (int i = 0; i < n; i++) buf[i] = ref[i] = rank == root ? 1000 * call + 7 * i - rank : -1;
            CHECK(rank == 1 ? gsp_mpi_ctx_bcast(ctx, buf, 1, block, root) == GSP_OK : gsp_mpi_ctx_bcast(ctx, buf, n, MPI_INT, root) == GSP_OK);
            MPI_Bcast(ref, n, MPI_INT, root, MPI_COMM_WORLD);
            CHECK(!memcmp(buf, ref, (size_t)n * sizeof *buf));
            /* A sum whose order matters in floating point: every rank the same bits. */
            double x[64], y[64], first[64];
            for (int i = 0; i < n; i++) x[i] = 1.0 / (rank + 3 + i) + call * 1e-9;
            CHECK(gsp_mpi_ctx_allreduce(ctx, x, y, n, MPI_DOUBLE, MPI_SUM) == GSP_OK);
            memcpy(first, y, (size_t)n * sizeof *y);
            MPI_Bcast(first, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            CHECK(!memcmp(first, y, (size_t)n * sizeof *y));
            double want[64];
            MPI_Allreduce(x, want, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) CHECK(y[i] > want[i] - 1e-12 && y[i] < want[i] + 1e-12);
        }
        CHECK(gsp_mpi_ctx_cached(ctx, GSP_COLL_ALLREDUCE, MPI_DOUBLE, MPI_SUM, n, 0));
        CHECK(rank == 1 || gsp_mpi_ctx_cached(ctx, GSP_COLL_BROADCAST, MPI_INT, MPI_OP_NULL, n, size - 1)); /* the last call's */
        MPI_Type_free(&block);
    }
    gsp_mpi_ctx_free(ctx);
}

/* gsp_mpi_ctx_prepare: each collective planned ahead at a size is chosen at that size before
 * any call (gsp_mpi_ctx_choice), the allreduce and broadcast already served from the call
 * cache, and each call afterwards gives MPI's own answer and runs the algorithm chosen; bad
 * arguments are refused before any message, on every rank alike. */
static void prepared(const char *spec, int size) {
    gsp_mpi_ctx_t *ctx = NULL;
    CHECK(gsp_mpi_ctx_create(spec, MPI_COMM_WORLD, &ctx) == GSP_OK);
    if (!ctx) return;
    enum { COUNT = 20000 };
    int64_t bytes = (int64_t)COUNT * (int64_t)sizeof(int);
    const gsp_collective_t colls[] = {GSP_COLL_ALLGATHER, GSP_COLL_REDUCE_SCATTER, GSP_COLL_ALLREDUCE, GSP_COLL_BROADCAST, GSP_COLL_REDUCE};
    int root = size - 1;
    bool no_reduce = false;
    for (size_t k = 0; k < sizeof colls / sizeof *colls; k++) {
        gsp_collective_t cc = colls[k];
        bool red = cc != GSP_COLL_ALLGATHER && cc != GSP_COLL_BROADCAST, rooted = cc == GSP_COLL_BROADCAST || cc == GSP_COLL_REDUCE;
        int r = rooted ? root : 0;
        CHECK(gsp_mpi_ctx_choice(ctx, cc, r, bytes) == NULL);
        gsp_err_t e = gsp_mpi_ctx_prepare(ctx, cc, COUNT, MPI_INT, red ? MPI_SUM : MPI_OP_NULL, r);
        /* A fabric has no reduce to a root: refused as the call is, so that it falls back. */
        if (cc == GSP_COLL_REDUCE && e == GSP_ERR_NOTAPPLIC && !strncmp(spec, "dgx:", 4)) {
            no_reduce = true;
            continue;
        }
        CHECK(e == GSP_OK);
        const gsp_rt_algo_t *a = gsp_mpi_ctx_choice(ctx, cc, r, bytes);
        CHECK(a != NULL);
        if (cc == GSP_COLL_ALLREDUCE) CHECK(gsp_mpi_ctx_cached(ctx, cc, MPI_INT, MPI_SUM, COUNT, 0));
        if (cc == GSP_COLL_BROADCAST) CHECK(gsp_mpi_ctx_cached(ctx, cc, MPI_INT, MPI_OP_NULL, COUNT, root));
    }
    int *in = malloc(sizeof(int) * COUNT * (size_t)size), *out = malloc(sizeof(int) * COUNT * (size_t)size),
        *ref = malloc(sizeof(int) * COUNT * (size_t)size);
    for (int i = 0; i < COUNT * size; i++) in[i] = rank * 31 + i % 1013;
    CHECK(gsp_mpi_ctx_allgather(ctx, in, COUNT, MPI_INT, out, COUNT, MPI_INT) == GSP_OK);
    MPI_Allgather(in, COUNT, MPI_INT, ref, COUNT, MPI_INT, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, sizeof(int) * COUNT * (size_t)size));
    CHECK(!strcmp(gsp_mpi_ctx_choice(ctx, GSP_COLL_ALLGATHER, 0, bytes)->name, gsp_mpi_ctx_last(ctx)));
    CHECK(gsp_mpi_ctx_reduce_scatter_block(ctx, in, out, COUNT, MPI_INT, MPI_SUM) == GSP_OK);
    MPI_Reduce_scatter_block(in, ref, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, sizeof(int) * COUNT));
    CHECK(!strcmp(gsp_mpi_ctx_choice(ctx, GSP_COLL_REDUCE_SCATTER, 0, bytes)->name, gsp_mpi_ctx_last(ctx)));
    CHECK(gsp_mpi_ctx_allreduce(ctx, in, out, COUNT, MPI_INT, MPI_SUM) == GSP_OK);
    MPI_Allreduce(in, ref, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, sizeof(int) * COUNT));
    memcpy(out, in, sizeof(int) * COUNT);
    memcpy(ref, in, sizeof(int) * COUNT);
    CHECK(gsp_mpi_ctx_bcast(ctx, out, COUNT, MPI_INT, root) == GSP_OK);
    MPI_Bcast(ref, COUNT, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, sizeof(int) * COUNT));
    if (no_reduce) CHECK(gsp_mpi_ctx_reduce(ctx, in, out, COUNT, MPI_INT, MPI_SUM, root) == GSP_ERR_NOTAPPLIC);
    else {
        CHECK(gsp_mpi_ctx_reduce(ctx, in, out, COUNT, MPI_INT, MPI_SUM, root) == GSP_OK);
        MPI_Reduce(in, ref, COUNT, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        CHECK(rank != root || !memcmp(out, ref, sizeof(int) * COUNT));
    }
    /* Refused alike on every rank, before any message. */
    CHECK(gsp_mpi_ctx_prepare(ctx, GSP_COLL_ALLGATHER, -1, MPI_INT, MPI_OP_NULL, 0) == GSP_ERR_INVAL);
    CHECK(gsp_mpi_ctx_prepare(ctx, GSP_COLL_BROADCAST, COUNT, MPI_INT, MPI_OP_NULL, size) == GSP_ERR_INVAL);
    CHECK(gsp_mpi_ctx_prepare(ctx, GSP_COLL_ALLREDUCE, COUNT, MPI_DOUBLE, MPI_BAND, 0) != GSP_OK);
    CHECK(!gsp_mpi_ctx_communicated(ctx) && gsp_mpi_ctx_mpi_error(ctx) == MPI_ERR_OP);
    CHECK(gsp_mpi_ctx_prepare(ctx, (gsp_collective_t)99, COUNT, MPI_INT, MPI_OP_NULL, 0) == GSP_ERR_INVAL);
    free(in);
    free(out);
    free(ref);
    gsp_mpi_ctx_free(ctx);
}

/* The sends libgossip_mpi makes (a static library: these definitions take its calls), by kind. */
static long isends, issends;
int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
    isends++;
    return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
}
int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
    issends++;
    return PMPI_Issend(buf, count, dt, dest, tag, comm, req);
}

/* A pipelined phase's sends are all synchronous: its windows count a completed send as one
 * delivered, which an eager send is not (it completes once copied). A fabric's trees pack a
 * tree's parts into one message per edge (rt_fabric.c): cycle:8@1's allgather, two parts a
 * message, one pipelined phase; before, its packed messages went by MPI_Isend. */
static void pipelined_sync(int size) {
    if (size != 8) return;
    gsp_mpi_ctx_t *ctx = NULL;
    CHECK(gsp_mpi_ctx_create("cycle:8@1", MPI_COMM_WORLD, &ctx) == GSP_OK);
    if (!ctx) return;
    CHECK(gsp_mpi_ctx_force(ctx, GSP_COLL_ALLGATHER, "fabric-trees") == GSP_OK);
    enum { COUNT = 5000 };
    static double in[COUNT], out[8 * COUNT], ref[8 * COUNT];
    for (int i = 0; i < COUNT; i++) in[i] = rank * 1e6 + i;
    isends = issends = 0;
    CHECK(gsp_mpi_ctx_allgather(ctx, in, COUNT, MPI_DOUBLE, out, COUNT, MPI_DOUBLE) == GSP_OK);
    CHECK(!strcmp(gsp_mpi_ctx_last(ctx), "fabric-trees"));
    CHECK(isends == 0 && issends > 0);
    MPI_Allgather(in, COUNT, MPI_DOUBLE, ref, COUNT, MPI_DOUBLE, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, sizeof out));
    gsp_mpi_ctx_free(ctx);
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 && !(argc == 3 && !strcmp(argv[1], "--prepared"))) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -n N api_mpi [--prepared] SPEC\n");
        MPI_Finalize();
        return 2;
    }
    if (argc == 3) prepared(argv[2], size); /* a fabric: its contexts only */
    else {
        plans(argv[1], size);
        reduce_local3();
        context(argv[1], size);
        repeated(argv[1], size);
        prepared(argv[1], size);
        pipelined_sync(size);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(total ? "api_mpi: %d failures\n" : "api_mpi: ok\n", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

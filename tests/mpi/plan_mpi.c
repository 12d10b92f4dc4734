/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan_mpi.c — a schedule's plan (gsp_mpi_plan_*: one schedule, this rank's programs, run by the
 * runtime's one engine) against MPI's own collectives: allgather and broadcast plans of the
 * symmetric and the explicit kind, with a plain datatype and one with holes (a strided vector);
 * an allreduce on an allgather plan (any op, bit-exact, the same bits on every rank); a register
 * allreduce (approximate: within 1e-9 of MPI's sum); and the messages and bytes each rank reports,
 * summed over the ranks, against the schedule's own transfer count (each carries one block).
 * Usage: mpirun -n N plan_mpi SPEC [METHOD-OF-THE-REGISTER-ALLREDUCE]. Exit 0 when every check
 * passes on every rank. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"
#include "gossip/mpi.h"

static int bad = 0, rank = 0, size = 0;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "plan_mpi rank %d: FAIL %s\n", rank, what);
        bad = 1;
    }
}

/* Plans collective c on spec with method (one packet per arc per round), as every rank does. */
static gsp_err_t plan(const char *spec, gsp_collective_t c, const char *method, int64_t root, gsp_plan_t *pl, gsp_topo_t *t) {
    gsp_distances_t d = {0};
    gsp_vt_t vt;
    gsp_err_t err;
    if ((err = gsp_topo_from_spec(t, spec)) || (err = gsp_vertex_transitive(t, &vt)) || (err = gsp_distances(t, gsp_vt_yes(vt), &d, NULL, NULL)))
        return err;
    gsp_plan_in_t in = {t, &d, gsp_model_default(), root, 1, NULL, NULL, 0, 0};
    err = gsp_plan(&in, c, method, pl);
    gsp_distances_destroy(&d);
    return err;
}

/* The sums over the ranks of the messages and bytes this rank sent, against the schedule's
 * transfers of `bytes` each: every transfer of an explicit or symmetric schedule is one block. */
static void check_stats(gsp_mpi_plan_t *p, const gsp_sched_t *s, int64_t bytes, const char *what) {
    int64_t m, b, tot[2], mine[2];
    gsp_mpi_plan_stats(p, &m, &b);
    mine[0] = m, mine[1] = b;
    MPI_Allreduce(mine, tot, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    char w[160];
    snprintf(w, sizeof w, "%s: %lld bytes sent in all, want %lld transfers x %lld bytes", what, (long long)tot[1],
             (long long)gsp_sched_transfers(s), (long long)bytes);
    check(tot[1] == gsp_sched_transfers(s) * bytes, w);
    check(tot[0] > 0 && tot[0] <= gsp_sched_transfers(s), "messages sent: one or more blocks each");
}

static void dissemination(const char *spec, const char *method) {
    gsp_topo_t t = {0};
    gsp_plan_t pl = {0};
    gsp_mpi_plan_t *p = NULL;
    char w[128];
    int count = 37;
    if (plan(spec, GSP_COLL_ALLGATHER, method, 0, &pl, &t) || gsp_mpi_plan_create(&pl.sched, &t, MPI_COMM_WORLD, &p)) {
        fprintf(stderr, "plan_mpi: %s\n", gsp_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(w, sizeof w, "allgather %s (%s, %s)", spec, method, pl.sched.symmetric ? "symmetric" : "explicit");
    check(gsp_mpi_plan_collective(p) == GSP_COLL_ALLGATHER, "the plan's collective");
    int *mine = malloc(sizeof *mine * (size_t)count), *got = malloc(sizeof *got * (size_t)count * (size_t)size),
        *want = malloc(sizeof *want * (size_t)count * (size_t)size);
    for (int i = 0; i < count; i++) mine[i] = rank * 1000 + i * 7 - 3;
    MPI_Allgather(mine, count, MPI_INT, want, count, MPI_INT, MPI_COMM_WORLD);
    memset(got, 0, sizeof *got * (size_t)count * (size_t)size);
    check(gsp_mpi_allgather(p, mine, got, count, MPI_INT) == GSP_OK, w);
    check(!memcmp(got, want, sizeof *got * (size_t)count * (size_t)size), w);
    check_stats(p, &pl.sched, (int64_t)count * (int64_t)sizeof(int), w);
    /* In place. */
    memset(got, 0, sizeof *got * (size_t)count * (size_t)size);
    memcpy(got + (size_t)rank * (size_t)count, mine, sizeof *mine * (size_t)count);
    check(gsp_mpi_allgather(p, MPI_IN_PLACE, got, count, MPI_INT) == GSP_OK && !memcmp(got, want, sizeof *got * (size_t)count * (size_t)size),
          "allgather in place");
    /* A datatype with holes: every other int of a block of 2 * count; the holes stay as they were. */
    MPI_Datatype vec, rvec;
    MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * count * (int)sizeof(int)), &rvec);
    MPI_Type_commit(&rvec);
    int *wide = malloc(sizeof *wide * 2 * (size_t)count), *wall = malloc(sizeof *wall * 2 * (size_t)count * (size_t)size);
    for (int i = 0; i < 2 * count; i++) wide[i] = i % 2 ? -1 : mine[i / 2];
    for (int i = 0; i < 2 * count * size; i++) wall[i] = -2;
    check(gsp_mpi_allgather(p, wide, wall, 1, rvec) == GSP_OK, "allgather of a strided type");
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 2 * count; i++)
            check(wall[r * 2 * count + i] == (i % 2 ? -2 : want[r * count + i / 2]), "allgather of a strided type: blocks and holes");
    /* Allreduce on the allgather plan: gathered, reduced in rank order, the same bits everywhere. */
    double *x = malloc(sizeof *x * (size_t)count), *y = malloc(sizeof *y * (size_t)count), *y0 = malloc(sizeof *y0 * (size_t)count);
    for (int i = 0; i < count; i++) x[i] = 1.0 / (rank + 3) + i * 1e-3;
    check(gsp_mpi_allreduce(p, x, y, count, MPI_DOUBLE, MPI_SUM) == GSP_OK, "allreduce on an allgather plan");
    memcpy(y0, y, sizeof *y * (size_t)count);
    MPI_Bcast(y0, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    check(!memcmp(y, y0, sizeof *y * (size_t)count), "allreduce on an allgather plan: the same bits on every rank");
    int imax[37], imax_want[37];
    MPI_Allreduce(mine, imax_want, count, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check(gsp_mpi_allreduce(p, mine, imax, count, MPI_INT, MPI_MAX) == GSP_OK && !memcmp(imax, imax_want, sizeof imax), "MPI_MAX on an allgather plan");
    check(gsp_mpi_bcast(p, mine, count, MPI_INT) == GSP_ERR_INVAL, "an allgather plan is not a broadcast");
    gsp_mpi_plan_free(p);
    gsp_plan_destroy(&pl);
    gsp_topo_destroy(&t);

    /* Broadcast from the last rank. */
    memset(&pl, 0, sizeof pl);
    if (plan(spec, GSP_COLL_BROADCAST, "auto", size - 1, &pl, &t) || gsp_mpi_plan_create(&pl.sched, &t, MPI_COMM_WORLD, &p)) {
        fprintf(stderr, "plan_mpi: %s\n", gsp_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *b = malloc(sizeof *b * (size_t)count);
    for (int i = 0; i < count; i++) b[i] = rank == size - 1 ? 5000 + i : -7;
    check(gsp_mpi_bcast(p, b, count, MPI_INT) == GSP_OK, "broadcast");
    for (int i = 0; i < count; i++) check(b[i] == 5000 + i, "broadcast: the root's block everywhere");
    check_stats(p, &pl.sched, (int64_t)count * (int64_t)sizeof(int), "broadcast");
    for (int i = 0; i < 2 * count; i++) wide[i] = rank == size - 1 ? (i % 2 ? -1 : 9000 + i) : -5;
    check(gsp_mpi_bcast(p, wide, 1, rvec) == GSP_OK, "broadcast of a strided type");
    for (int i = 0; i < 2 * count; i++)
        check(wide[i] == (i % 2 ? (rank == size - 1 ? -1 : -5) : 9000 + i), "broadcast of a strided type: blocks and holes");
    gsp_mpi_plan_free(p);
    gsp_plan_destroy(&pl);
    gsp_topo_destroy(&t);
    MPI_Type_free(&rvec);
    MPI_Type_free(&vec);
    free(mine), free(got), free(want), free(wide), free(wall), free(x), free(y), free(y0), free(b);
}

static void registers(const char *spec, const char *method) {
    gsp_topo_t t = {0};
    gsp_plan_t pl = {0};
    gsp_mpi_plan_t *p = NULL;
    if (plan(spec, GSP_COLL_ALLREDUCE, method, -1, &pl, &t) || gsp_mpi_plan_create(&pl.sched, &t, MPI_COMM_WORLD, &p)) {
        fprintf(stderr, "plan_mpi: %s\n", gsp_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int count = 1000;
    double *x = malloc(sizeof *x * (size_t)count), *y = malloc(sizeof *y * (size_t)count), *want = malloc(sizeof *want * (size_t)count);
    for (int i = 0; i < count; i++) x[i] = sin(rank * 0.37 + i) * 10;
    MPI_Allreduce(x, want, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int rep = 0; rep < 2; rep++) { /* a plan runs many times */
        check(gsp_mpi_allreduce(p, x, y, count, MPI_DOUBLE, MPI_SUM) == GSP_OK, "register allreduce");
        for (int i = 0; i < count; i++) check(fabs(y[i] - want[i]) <= 1e-9 * (1 + fabs(want[i])), "register allreduce: MPI's sum to rounding");
    }
    check_stats(p, &pl.sched, (int64_t)count * (int64_t)sizeof(double), "register allreduce");
    check(gsp_mpi_allreduce(p, x, y, count, MPI_INT, MPI_SUM) == GSP_ERR_UNSUPPORTED, "register allreduce refuses ints");
    gsp_mpi_plan_free(p);
    gsp_plan_destroy(&pl);
    gsp_topo_destroy(&t);
    free(x), free(y), free(want);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -n N plan_mpi SPEC [REGISTER-METHOD]\n");
        MPI_Finalize();
        return 2;
    }
    dissemination(argv[1], "auto");
    dissemination(argv[1], "greedy"); /* explicit rounds */
    if (argc > 2) registers(argv[1], argv[2]);
    int all;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("plan_mpi %s: %s\n", argv[1], all ? "FAIL" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}

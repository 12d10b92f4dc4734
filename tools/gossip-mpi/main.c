/* gossip-mpi — run gossip's schedules for real: `mpirun -n P gossip-mpi run COLLECTIVE SPEC`
 * executes the collective with gossip's plan and with MPI's own, checks that every rank got the
 * same result, and reports time, messages and bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"

static int usage(int rank, const char *msg) {
    if (rank == 0) {
        if (msg) fprintf(stderr, "gossip-mpi: error: %s\n", msg);
        else
            fputs("usage: mpirun -n P gossip-mpi run COLLECTIVE SPEC [--count C] [--type double|float|int|int16|int8]\n"
                  "                                    [--op sum|max|prod] [--method M] [--root R] [--reps K]\n"
                  "       mpirun -n P gossip-mpi bench COLLECTIVE SPEC [--type T] [--reps K] [--max-bytes B]\n"
                  "bench repeats run for 8 B to B (default 1 MiB) per rank, x4 each step, one line per size.\n"
                  "Runs COLLECTIVE (broadcast, allgather, allreduce) with gossip's schedule for the topology\n"
                  "SPEC (its node count must be P) and with MPI's own, checks both give the same result on\n"
                  "every rank, and prints the median time of the slowest rank, messages and bytes per rank.\n",
                  stdout);
    }
    return msg ? 2 : 0;
}

static MPI_Datatype type_of(const char *s) {
    if (!strcmp(s, "double")) return MPI_DOUBLE;
    if (!strcmp(s, "float")) return MPI_FLOAT;
    if (!strcmp(s, "int")) return MPI_INT;
    if (!strcmp(s, "int16")) return MPI_INT16_T;
    if (!strcmp(s, "int8")) return MPI_INT8_T;
    return MPI_DATATYPE_NULL;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        rc = usage(rank, argc < 2 ? "missing command (see --help)" : NULL);
        MPI_Finalize();
        return rc;
    }
    bool bench = !strcmp(argv[1], "bench");
    if ((strcmp(argv[1], "run") && !bench) || argc < 4) {
        rc = usage(rank, "expected: run|bench COLLECTIVE SPEC");
        MPI_Finalize();
        return rc;
    }
    gsp_collective_t coll;
    const char *spec = argv[3], *method = "auto";
    int count = 1024, reps = 5;
    long max_bytes = 1 << 20;
    int64_t root = 0;
    MPI_Datatype dt = MPI_DOUBLE;
    MPI_Op op = MPI_SUM;
    if (!gsp_collective_parse(argv[2], &coll)) {
        rc = usage(rank, "unknown collective");
        MPI_Finalize();
        return rc;
    }
    for (int i = 4; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--count")) count = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--type")) dt = type_of(argv[i + 1]);
        else if (!strcmp(argv[i], "--method")) method = argv[i + 1];
        else if (!strcmp(argv[i], "--root")) root = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-bytes")) max_bytes = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--op")) op = !strcmp(argv[i + 1], "max") ? MPI_MAX : !strcmp(argv[i + 1], "prod") ? MPI_PROD : MPI_SUM;
        else {
            rc = usage(rank, "unknown option");
            MPI_Finalize();
            return rc;
        }
    }
    if (dt == MPI_DATATYPE_NULL || count < 0 || reps < 1 || root < 0 || root >= size) {
        rc = usage(rank, "bad --type, --count, --reps or --root");
        MPI_Finalize();
        return rc;
    }
    /* A sum of floats uses a register schedule; other reductions gather and reduce. */
    gsp_collective_t pc = coll == GSP_COLL_ALLREDUCE && !(op == MPI_SUM && (dt == MPI_DOUBLE || dt == MPI_FLOAT)) ? GSP_COLL_ALLGATHER : coll;
    gsp_mpi_plan_t *plan;
    if (gsp_mpi_plan_spec(spec, pc, method, root, MPI_COMM_WORLD, &plan)) {
        if (rank == 0) fprintf(stderr, "gossip-mpi: error: %s\n", gsp_errmsg());
        MPI_Finalize();
        return 2;
    }
    int tsize;
    MPI_Type_size(dt, &tsize);
    if (bench && rank == 0)
        printf("# %s on %s, %d ranks, median of %d interleaved repetitions, time of the slowest rank\n"
               "# bytes_per_rank gossip_us mpi_us gossip_messages_rank0 gossip_bytes_rank0\n",
               gsp_collective_name(coll), spec, size, reps);
    int first_count = bench ? (8 + tsize - 1) / tsize : count;
    for (count = first_count; !bench || (long)count * tsize <= max_bytes;
         count = (long)count * 4 * tsize > max_bytes && (long)count * tsize < max_bytes ? (int)(max_bytes / tsize) : count * 4) {
    size_t blk = (size_t)count * (size_t)tsize, all = blk * (size_t)size;
    char *in = malloc(blk + 1), *a = malloc(all + 1), *b = malloc(all + 1);
    /* Small integer values: sums are exact in every type, so results must match bit for bit. */
    for (int i = 0; i < count; i++) {
        int v = (rank * 7 + i * 3) % 11 + 1;
        if (dt == MPI_DOUBLE) ((double *)in)[i] = v;
        else if (dt == MPI_FLOAT) ((float *)in)[i] = (float)v;
        else if (dt == MPI_INT) ((int *)in)[i] = v;
        else if (dt == MPI_INT16_T) ((int16_t *)in)[i] = (int16_t)(v * 1000);
        else ((int8_t *)in)[i] = (int8_t)(v * 12);
    }
    double *tg = malloc(sizeof *tg * (size_t)reps), *tm = malloc(sizeof *tm * (size_t)reps);
    int64_t msgs = 0, bytes = 0;
    for (int r = 0; r < reps; r++) {
        /* Interleaved repetitions; each timed to the slowest rank. */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        gsp_err_t err = GSP_OK;
        if (coll == GSP_COLL_ALLGATHER) err = gsp_mpi_allgather(plan, in, a, count, dt);
        else if (coll == GSP_COLL_ALLREDUCE) err = gsp_mpi_allreduce(plan, in, a, count, dt, op);
        else {
            memcpy(a, in, blk);
            err = gsp_mpi_bcast(plan, a, count, dt);
        }
        double t1 = MPI_Wtime() - t0;
        if (err) {
            fprintf(stderr, "gossip-mpi: rank %d: %s\n", rank, gsp_errmsg());
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        gsp_mpi_plan_stats(plan, &msgs, &bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (coll == GSP_COLL_ALLGATHER) PMPI_Allgather(in, count, dt, b, count, dt, MPI_COMM_WORLD);
        else if (coll == GSP_COLL_ALLREDUCE) PMPI_Allreduce(in, b, count, dt, op, MPI_COMM_WORLD);
        else {
            memcpy(b, in, blk);
            PMPI_Bcast(b, count, dt, (int)root, MPI_COMM_WORLD);
        }
        double t2 = MPI_Wtime() - t0;
        MPI_Allreduce(&t1, &tg[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&t2, &tm[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    size_t cmp = coll == GSP_COLL_ALLGATHER ? all : blk;
    int same, all_same, mpi_std = 1;
    if (coll == GSP_COLL_ALLREDUCE) {
        /* The standard's result: every block, reduced in rank order with wrap-around integers. */
        char *g = malloc(all + 1), *ref = malloc(blk + 1);
        PMPI_Allgather(in, count, dt, g, count, dt, MPI_COMM_WORLD);
        memcpy(ref, g + blk * (size_t)(size - 1), blk);
        for (int x = size - 2; x >= 0; x--) gsp_mpi_reduce_local(g + blk * (size_t)x, ref, count, dt, op);
        same = 1;
        for (int i = 0; i < count; i++) {
            double u, v;
            if (dt == MPI_DOUBLE) u = ((double *)a)[i], v = ((double *)ref)[i];
            else if (dt == MPI_FLOAT) u = ((float *)a)[i], v = ((float *)ref)[i];
            else if (dt == MPI_INT) u = ((int *)a)[i], v = ((int *)ref)[i];
            else if (dt == MPI_INT16_T) u = ((int16_t *)a)[i], v = ((int16_t *)ref)[i];
            else u = ((int8_t *)a)[i], v = ((int8_t *)ref)[i];
            /* Register schedules scale by non-integers: floats agree to rounding. */
            double tol = dt == MPI_DOUBLE ? 1e-12 : dt == MPI_FLOAT ? 1e-5 : 0;
            if (u != v && !(tol > 0 && (u - v) / (v ? v : 1) < tol && (v - u) / (v ? v : 1) < tol)) same = 0;
        }
        mpi_std = memcmp(b, ref, blk) == 0;
        free(g);
        free(ref);
    } else {
        same = memcmp(a, b, cmp) == 0;
    }
    int all_std;
    MPI_Allreduce(&mpi_std, &all_std, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    qsort(tg, (size_t)reps, sizeof *tg, cmp_d);
    qsort(tm, (size_t)reps, sizeof *tm, cmp_d);
    if (rank == 0 && !bench)
        printf("%s on %s, %d ranks, %d elements: %s%s; gossip %.1f us (%lld messages, %lld bytes from rank 0), MPI %.1f us\n",
               gsp_collective_name(coll), spec, size, count,
               all_same ? (coll == GSP_COLL_ALLREDUCE ? "results equal the standard's" : "results identical to MPI's") : "RESULTS DIFFER",
               all_std ? "" : " (MPI's own differs from the standard: Open MPI saturates small-integer sums)",
               tg[reps / 2] * 1e6, (long long)msgs, (long long)bytes, tm[reps / 2] * 1e6);
    if (!all_same) rc = 1;
    if (bench && rank == 0)
        printf("%ld %.1f %.1f %lld %lld\n", (long)count * tsize, tg[reps / 2] * 1e6, tm[reps / 2] * 1e6, (long long)msgs, (long long)bytes);
    free(in);
    free(a);
    free(b);
    free(tg);
    free(tm);
    if (!bench) break;
    }
    gsp_mpi_plan_free(plan);
    MPI_Finalize();
    return rc;
}

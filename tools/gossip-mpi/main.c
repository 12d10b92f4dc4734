/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gossip-mpi — run gossip's schedules for real: `mpirun -n P gossip-mpi run COLLECTIVE SPEC`
 * executes the collective with gossip's plan and with MPI's own, checks that every rank got the
 * same result, and reports time, messages and bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "gossip/mpi.h"

static int usage(int rank, const char *msg) {
    if (rank == 0) {
        if (msg) fprintf(stderr, "gossip-mpi: error: %s\n", msg);
        else
            fputs("usage: mpirun -n P gossip-mpi run COLLECTIVE SPEC [--count C] [--type double|float|int|int16|int8]\n"
                  "                    [--op sum|max|prod] [--method M] [--algorithm A] [--root R] [--reps K]\n"
                  "                    [--alpha S] [--beta S] [--gamma S] [--hop S] [--overhead S] [--segment B]\n"
                  "                    [--shared-memory|--no-shared-memory] [--tuning FILE|none] [--approximate]\n"
                  "       mpirun -n P gossip-mpi bench COLLECTIVE SPEC [same options] [--max-bytes B]\n"
                  "       mpirun -n P gossip-mpi calibrate [-o FILE] [--topology SPEC] (see calibrate --help)\n"
                  "Runs COLLECTIVE (broadcast, allgather, allreduce, reduce-scatter, reduce) with gossip's exact\n"
                  "runtime for the topology SPEC (its node count must be P) and with MPI's own, checks that\n"
                  "every rank got the same bits as every other and the closed-form answer, and prints the\n"
                  "median time of the slowest rank and the algorithm the cost model chose (--algorithm forces\n"
                  "one: packet, flood, rs-ag, rs-ag-flood, gather, tree, flat, dims, scatter-allgather,\n"
                  "rs-gather, multitree; --method names the allgather or broadcast construction; --segment\n"
                  "cuts blocks into pipelined segments of about B bytes). The cost model: --alpha (seconds\n"
                  "per message), --beta (per byte on a link, or by size: 0:3e-10,65536:1e-10), --gamma (per\n"
                  "byte combined), --hop (per further link of a routed message), --overhead (per further\n"
                  "message of a node in a round), --shared-memory (the model of ranks sharing one memory: a\n"
                  "round costs the busiest rank's bytes in and out; the default when every rank is on one\n"
                  "node) or --no-shared-memory (links); see docs/runtime.md. The model starts from the tuning\n"
                  "file (--tuning, else $GOSSIP_TUNING, else ~/.config/gossip/tuning.json when there: what\n"
                  "calibrate measures and writes; the options apply over it). bench repeats run for 8 B to B\n"
                  "(default 1 MiB) per rank, x4 each step. --approximate runs an allreduce schedule of the\n"
                  "register form (spectral, product, ...: real coefficients) and labels it approximate.\n",
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

static void fill(char *in, int count, MPI_Datatype dt, int rank, int stride) {
    /* Small integers: sums are exact in every type and any order, so results compare bit for bit. */
    for (int i = 0; i < count; i++) {
        int v = (rank * 7 + i * 3 + stride) % 11 + 1;
        if (dt == MPI_DOUBLE) ((double *)in)[i] = v;
        else if (dt == MPI_FLOAT) ((float *)in)[i] = (float)v;
        else if (dt == MPI_INT) ((int *)in)[i] = v;
        else if (dt == MPI_INT16_T) ((int16_t *)in)[i] = (int16_t)(v * 1000);
        else ((int8_t *)in)[i] = (int8_t)(v * 12);
    }
}

static gsp_err_t set_cost(gsp_cost_t *c, const char *o, const char *v) {
    double *t = o[2] == 'a' ? &c->alpha : o[2] == 'b' ? &c->beta : o[2] == 'g' ? &c->gamma : o[2] == 'h' ? &c->hop : &c->overhead;
    return t == &c->beta ? gsp_cost_parse_beta(o, v, c) : t == &c->alpha ? gsp_cost_parse_alpha(o, v, c) : gsp_cost_parse(o, v, t);
}

static int fail(int rank, const char *msg) {
    if (rank == 0) fprintf(stderr, "gossip-mpi: error: %s\n", msg);
    MPI_Finalize();
    return 2;
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
    if (!strcmp(argv[1], "calibrate")) {
        rc = gm_calibrate(argc, argv, rank, size);
        MPI_Finalize();
        return rc;
    }
    bool bench = !strcmp(argv[1], "bench");
    if ((strcmp(argv[1], "run") && !bench) || argc < 4) return fail(rank, "expected: run|bench COLLECTIVE SPEC, or calibrate (see --help)");
    gsp_collective_t coll;
    const char *spec = argv[3], *method = NULL, *algorithm = NULL, *tuning = NULL;
    int count = 1024, reps = 5;
    long max_bytes = 1 << 20;
    int64_t root = 0;
    bool approximate = false;
    MPI_Datatype dt = MPI_DOUBLE;
    MPI_Op op = MPI_SUM;
    gsp_cost_t cost = gsp_cost_default();
    const char *copt[16], *cval[16];
    int ncopt = 0, shared = -1; /* -1: as the context detects */
    bool seg_given = false;
    if (!gsp_collective_parse(argv[2], &coll)) return fail(rank, "unknown collective (broadcast, allgather, allreduce, reduce-scatter, reduce)");
    for (int i = 4; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(o, "--approximate")) {
            approximate = true;
            continue;
        }
        if (!strcmp(o, "--shared-memory") || !strcmp(o, "--no-shared-memory")) {
            shared = o[2] == 's';
            continue;
        }
        if (!v) {
            char m[128];
            snprintf(m, sizeof m, "option %s needs a value", o);
            return fail(rank, m);
        }
        i++;
        if (!strcmp(o, "--count")) count = (int)strtol(v, &end, 10);
        else if (!strcmp(o, "--type")) dt = type_of(v);
        else if (!strcmp(o, "--method")) method = v;
        else if (!strcmp(o, "--algorithm")) algorithm = v;
        else if (!strcmp(o, "--tuning")) tuning = v;
        else if (!strcmp(o, "--root")) root = strtoll(v, &end, 10);
        else if (!strcmp(o, "--reps")) reps = (int)strtol(v, &end, 10);
        else if (!strcmp(o, "--max-bytes")) max_bytes = strtol(v, &end, 10);
        else if (!strcmp(o, "--segment")) {
            cost.segment = strtoll(v, &end, 10);
            seg_given = true;
            if (cost.segment < 0) return fail(rank, "--segment: expected a number of bytes >= 0");
        }
        else if (!strcmp(o, "--op")) {
            if (!strcmp(v, "max")) op = MPI_MAX;
            else if (!strcmp(v, "prod")) op = MPI_PROD;
            else if (!strcmp(v, "sum")) op = MPI_SUM;
            else return fail(rank, "--op is sum, max or prod");
        } else if (!strcmp(o, "--alpha") || !strcmp(o, "--beta") || !strcmp(o, "--gamma") || !strcmp(o, "--hop") || !strcmp(o, "--overhead")) {
            /* Checked now, applied over the context's model once it exists (any order). */
            if (set_cost(&cost, o, v)) return fail(rank, gsp_errmsg());
            if (ncopt < 16) {
                copt[ncopt] = o;
                cval[ncopt++] = v;
            }
        } else {
            char m[128];
            snprintf(m, sizeof m, "unknown option %s (see --help)", o);
            return fail(rank, m);
        }
        if (end && *end) {
            char m[128];
            snprintf(m, sizeof m, "%s %s: not a number", o, v);
            return fail(rank, m);
        }
    }
    if (dt == MPI_DATATYPE_NULL || count < 0 || reps < 1 || root < 0 || root >= size || max_bytes < 8)
        return fail(rank, "bad --type, --count, --reps, --root or --max-bytes");
    if (approximate && (coll != GSP_COLL_ALLREDUCE || op != MPI_SUM || (dt != MPI_DOUBLE && dt != MPI_FLOAT)))
        return fail(rank, "--approximate runs register allreduce schedules: allreduce, --op sum, --type double or float");
    if (approximate && (ncopt || shared >= 0 || cost.segment || tuning))
        return fail(rank, "the cost model's options choose among the exact runtime algorithms, not with --approximate");
    if (approximate && algorithm) return fail(rank, "--algorithm chooses among the exact runtime algorithms, not with --approximate");
    gsp_mpi_plan_t *plan = NULL;
    gsp_mpi_ctx_t *ctx = NULL;
    if (approximate) {
        if (gsp_mpi_plan_spec(spec, GSP_COLL_ALLREDUCE, method, -1, MPI_COMM_WORLD, &plan)) return fail(rank, gsp_errmsg());
    } else if (gsp_mpi_ctx_create(spec, MPI_COMM_WORLD, &ctx) || (method && gsp_mpi_ctx_set_method(ctx, method)) ||
               gsp_mpi_ctx_force(ctx, coll, algorithm)) {
        char m[512];
        snprintf(m, sizeof m, "%s", gsp_errmsg());
        gsp_mpi_ctx_free(ctx);
        return fail(rank, m);
    }
    if (ctx) {
        /* Layers: the preset for where the ranks run, the tuning file, the options. */
        int64_t segment = cost.segment;
        cost = shared < 0 ? *gsp_mpi_ctx_cost(ctx) : shared ? gsp_cost_shared_memory() : gsp_cost_default();
        char note[1024];
        gsp_tuning_status_t ts = gsp_mpi_tuning(MPI_COMM_WORLD, tuning, &cost, note, sizeof note);
        if (ts == GSP_TUNING_ERROR) {
            gsp_mpi_ctx_free(ctx);
            return fail(rank, note);
        }
        const char *v = getenv("GOSSIP_VERBOSE");
        if (rank == 0 && ((v && *v && strcmp(v, "0")) || (tuning && ts != GSP_TUNING_LOADED && strcmp(tuning, "none"))))
            fprintf(stderr, "gossip: %s\n", note);
        if (seg_given) cost.segment = segment;
        for (int k = 0; k < ncopt; k++) set_cost(&cost, copt[k], cval[k]);
        gsp_mpi_ctx_set_cost(ctx, &cost);
        if (bench && rank == 0)
            printf("# cost model: %s (alpha %g s, beta %g s/B, gamma %g s/B; %s)\n", cost.shared ? "shared memory" : "network links",
                   cost.alpha, cost.beta, cost.gamma, ts == GSP_TUNING_LOADED ? note : "no tuning file");
    }
    int tsize;
    MPI_Type_size(dt, &tsize);
    if (bench && rank == 0)
        printf("# %s on %s, %d ranks, median of %d interleaved repetitions, time of the slowest rank\n"
               "# bytes_per_rank gossip_us mpi_us algorithm\n",
               gsp_collective_name(coll), spec, size, reps);
    int first_count = bench ? (8 + tsize - 1) / tsize : count;
    for (count = first_count; !bench || (long)count * tsize <= max_bytes;
         count = (long)count * 4 * tsize > max_bytes && (long)count * tsize < max_bytes ? (int)(max_bytes / tsize) : count * 4) {
        /* Buffers: the input (reduce-scatter: N blocks), gossip's and MPI's outputs. */
        size_t blk = (size_t)count * (size_t)tsize, all = blk * (size_t)size;
        size_t inb = coll == GSP_COLL_REDUCE_SCATTER ? all : blk;
        char *in = malloc(inb + 1), *a = malloc(all + 1), *b = malloc(all + 1);
        int incount = coll == GSP_COLL_REDUCE_SCATTER ? count * size : count;
        fill(in, incount, dt, rank, 0);
        double *tg = malloc(sizeof *tg * (size_t)reps), *tm = malloc(sizeof *tm * (size_t)reps);
        /* Two untimed repetitions first (as the OSU benchmarks skip their first iterations):
         * the first call of a size class builds and chooses the plan, and both sides' first
         * messages of a size set up their transport's buffers. */
        for (int r = -2; r < reps; r++) {
            /* Interleaved repetitions; each timed to the slowest rank. */
            memcpy(a, in, inb);
            memcpy(b, in, inb);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            gsp_err_t err = GSP_OK;
            switch (coll) {
            case GSP_COLL_ALLGATHER: err = gsp_mpi_ctx_allgather(ctx, in, count, dt, a, count, dt); break;
            case GSP_COLL_ALLREDUCE:
                err = plan ? gsp_mpi_allreduce(plan, in, a, count, dt, op) : gsp_mpi_ctx_allreduce(ctx, in, a, count, dt, op);
                break;
            case GSP_COLL_REDUCE_SCATTER: err = gsp_mpi_ctx_reduce_scatter_block(ctx, in, a, count, dt, op); break;
            case GSP_COLL_REDUCE: err = gsp_mpi_ctx_reduce(ctx, in, a, count, dt, op, (int)root); break;
            case GSP_COLL_BROADCAST: err = gsp_mpi_ctx_bcast(ctx, a, count, dt, (int)root); break;
            }
            double t1 = MPI_Wtime() - t0;
            if (err) {
                fprintf(stderr, "gossip-mpi: rank %d: %s\n", rank, gsp_errmsg());
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            switch (coll) {
            case GSP_COLL_ALLGATHER: PMPI_Allgather(in, count, dt, b, count, dt, MPI_COMM_WORLD); break;
            case GSP_COLL_ALLREDUCE: PMPI_Allreduce(in, b, count, dt, op, MPI_COMM_WORLD); break;
            case GSP_COLL_REDUCE_SCATTER: PMPI_Reduce_scatter_block(in, b, count, dt, op, MPI_COMM_WORLD); break;
            case GSP_COLL_REDUCE: PMPI_Reduce(in, b, count, dt, op, (int)root, MPI_COMM_WORLD); break;
            case GSP_COLL_BROADCAST: PMPI_Bcast(b, count, dt, (int)root, MPI_COMM_WORLD); break;
            }
            double t2 = MPI_Wtime() - t0;
            double t[2] = {t1, t2}, tmax[2];
            PMPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r >= 0) {
                tg[r] = tmax[0];
                tm[r] = tmax[1];
            }
        }
        /* What to compare: the result every rank holds. */
        size_t cmp = coll == GSP_COLL_ALLGATHER ? all : blk;
        bool has = coll != GSP_COLL_REDUCE || rank == root;
        int same = 1, mpi_std = 1, ident = 1;
        if (coll == GSP_COLL_ALLREDUCE || coll == GSP_COLL_REDUCE || coll == GSP_COLL_REDUCE_SCATTER) {
            /* The standard's result: every input reduced in rank order, integers wrapping. */
            char *g = malloc(inb * (size_t)size + 1), *ref = malloc(inb + 1);
            PMPI_Allgather(in, incount, dt, g, incount, dt, MPI_COMM_WORLD);
            memcpy(ref, g + inb * (size_t)(size - 1), inb);
            for (int x = size - 2; x >= 0; x--) gsp_mpi_reduce_local(g + inb * (size_t)x, ref, incount, dt, op);
            const char *want = coll == GSP_COLL_REDUCE_SCATTER ? ref + blk * (size_t)rank : ref;
            if (has) {
                if (plan) {
                    /* Register schedules scale by real coefficients: they agree to rounding only. */
                    for (int i = 0; i < count; i++) {
                        double u = dt == MPI_DOUBLE ? ((double *)a)[i] : ((float *)a)[i];
                        double v = dt == MPI_DOUBLE ? ((const double *)want)[i] : ((const float *)want)[i];
                        if (!(u - v <= 1e-5 * (v < 0 ? -v : v + 1) && v - u <= 1e-5 * (v < 0 ? -v : v + 1))) same = 0;
                    }
                } else
                    same = memcmp(a, want, blk) == 0;
                mpi_std = memcmp(b, want, blk) == 0;
            }
            free(g);
            free(ref);
        } else if (has)
            same = memcmp(a, b, cmp) == 0;
        if (coll != GSP_COLL_REDUCE && coll != GSP_COLL_REDUCE_SCATTER && cmp > 0) {
            /* The same bits on every rank. */
            char *g = malloc(cmp * (size_t)size + 1);
            PMPI_Allgather(a, (int)cmp, MPI_BYTE, g, (int)cmp, MPI_BYTE, MPI_COMM_WORLD);
            for (int x = 1; x < size; x++) ident &= memcmp(g, g + cmp * (size_t)x, cmp) == 0;
            free(g);
        }
        int all_std, all_same, all_ident;
        PMPI_Allreduce(&mpi_std, &all_std, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        PMPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        PMPI_Allreduce(&ident, &all_ident, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        qsort(tg, (size_t)reps, sizeof *tg, cmp_d);
        qsort(tm, (size_t)reps, sizeof *tm, cmp_d);
        const char *algo = plan ? "approximate register schedule" : gsp_mpi_ctx_last(ctx);
        bool red = coll != GSP_COLL_ALLGATHER && coll != GSP_COLL_BROADCAST;
        if (rank == 0 && !bench)
            printf("%s on %s, %d ranks, %d elements, %s: %s%s%s; gossip %.1f us, MPI %.1f us\n", gsp_collective_name(coll), spec, size,
                   count, algo,
                   all_same ? (red ? (plan ? "results equal the standard's to rounding (approximate)" : "results equal the standard's")
                                   : "results identical to MPI's")
                            : "RESULTS DIFFER",
                   all_ident ? "" : ", RANKS DISAGREE",
                   all_std ? "" : " (MPI's own differs from the standard: Open MPI saturates small-integer sums)", tg[reps / 2] * 1e6,
                   tm[reps / 2] * 1e6);
        if (!all_same || (!all_ident && !plan)) rc = 1; /* approximate results may differ by rank */
        if (bench && rank == 0) printf("%ld %.2f %.2f %s\n", (long)count * tsize, tg[reps / 2] * 1e6, tm[reps / 2] * 1e6, algo);
        free(in);
        free(a);
        free(b);
        free(tg);
        free(tm);
        if (!bench) break;
    }
    gsp_mpi_plan_free(plan);
    gsp_mpi_ctx_free(ctx);
    MPI_Finalize();
    return rc;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gossip-mpi — run gossip's schedules for real: `mpirun -n P gossip-mpi run COLLECTIVE SPEC`
 * executes the collective with gossip's plan and with MPI's own, checks that every rank got the
 * same result, and reports time, messages and bytes. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cli.h"
#include "gossip/mpi.h"

static const char usage_text[] =
    "usage: mpirun -n P gossip-mpi run COLLECTIVE SPEC [--count C] [--type double|float|int|int16|int8]\n"
    "                    [--op sum|max|prod] [--method M] [--algorithm A|auto] [--root R] [--reps K]\n"
    "                    [--alpha S] [--beta S] [--gamma S] [--hop S] [--overhead S] [--segment B]\n"
    "                    [--shared-memory|--no-shared-memory] [--tuning FILE|none] [--approximate]\n"
    "       mpirun -n P gossip-mpi bench COLLECTIVE SPEC [the options of run but --count] [--max-bytes B]\n"
    "       mpirun -n P gossip-mpi calibrate [-o FILE] [--topology SPEC] [--max-bytes B] [--reps K]\n"
    "       gossip-mpi --version | --help | help [run|bench|calibrate]\n"
    "\n"
    "Runs COLLECTIVE (broadcast, allgather, allreduce, reduce-scatter, reduce) with gossip's exact\n"
    "runtime for the topology SPEC (its node count must be P; a fabric's compute nodes are its\n"
    "ranks) and with MPI's own, checks that every rank got the same bits as every other and the\n"
    "closed-form answer, and prints the median time of the slowest rank and the algorithm the cost\n"
    "model chose. bench repeats run for 8 B to B per rank, x4 each step. calibrate measures the\n"
    "cost model (calibrate --help).\n"
    "\n"
    "  --count C      elements per rank (default 1024; allgather: one rank's block, reduce-scatter:\n"
    "                 one rank's result block): 1000, 64K, 1e6 (K, M, G, T: powers of 1024), at\n"
    "                 most 2^31 - 1 (MPI's int count) and what the checks' int counts allow; run only\n"
    "  --type T       double (default), float, int, int16 or int8\n"
    "  --op O         sum (default), max or prod: the reductions (allreduce, reduce-scatter, reduce)\n"
    "  --method M     the allgather or broadcast construction the runtime's algorithms use ('gossip\n"
    "                 list'); with --approximate, the register allreduce schedule's method\n"
    "  --algorithm A  force a runtime algorithm ('gossip list --runtime': packet, flood, rs-ag,\n"
    "                 rs-ag-flood, gather, tree, flat, dims, scatter-allgather, rs-gather,\n"
    "                 multitree, ...), as GOSSIP_ALGORITHM does; auto: the cost model's choice\n"
    "  --root R       broadcast and reduce: the root rank (default 0)\n"
    "  --reps K       timed repetitions, after two untimed ones; the median is reported (default 5)\n"
    "  --segment B    cut blocks into pipelined segments of about B bytes, as GOSSIP_SEGMENT (a\n"
    "                 size: 64K; 0: whole blocks)\n"
    "  --max-bytes B  bench: the largest size per rank (default 1MiB, at most 2GiB - 1)\n"
    "  --alpha S      the cost model: seconds per message\n"
    "  --beta S       seconds per byte on a link, or by size: 0:3e-10,65536:1e-10\n"
    "  --gamma S      seconds per byte combined\n"
    "  --hop S        seconds per further link of a routed message\n"
    "  --overhead S   seconds per further message of a node in a round\n"
    "  --shared-memory  the model of ranks sharing one memory: a round costs the busiest rank's\n"
    "                 bytes in and out (the default when every rank is on one node)\n"
    "  --no-shared-memory  the model of network links\n"
    "  --tuning FILE  the tuning file the model starts from (else $GOSSIP_TUNING, else\n"
    "                 ~/.config/gossip/tuning.json when there: what calibrate writes; the options\n"
    "                 above apply over it); none: no file. See docs/runtime.md\n"
    "  --approximate  allreduce: run a register schedule (spectral, product, ...: real\n"
    "                 coefficients) and label it approximate\n"
    "\n"
    "A SPEC file:PATH whose nodes are host names places ranks by host: rank r runs the node named\n"
    "by its MPI_Get_processor_name (the k-th rank of host H: node H:k), not node r; a host the file\n"
    "does not name is an error. GOSSIP_HOSTNAME overrides the name (tests, containers);\n"
    "GOSSIP_PLACEMENT=order keeps rank r on node r; GOSSIP_VERBOSE=1 prints the placement.\n"
    "\n"
    "Options take --opt value or --opt=value, any unambiguous prefix, in any order with the\n"
    "operands. Exit codes: 0 ok, 1 results differ, 2 usage or input error, 3 runtime error.\n"
    "example:\n"
    "  mpirun -n 16 gossip-mpi run allreduce torus:4x4 --count 64K --algorithm rs-ag\n";

/* The rank of this process in its launch, before MPI_Init (help and --version need no MPI):
 * what the launchers set, 0 when run alone. */
static bool launch_rank0(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return !strcmp(v, "0");
    }
    return true;
}

static bool is_command(const char *s) { return !strcmp(s, "run") || !strcmp(s, "bench") || !strcmp(s, "calibrate"); }

/* --help, --version, help [CMD], CMD --help: answered without MPI; -1 when argv asks none. */
static int early(int argc, char **argv) {
    const char *a = argc > 1 ? argv[1] : "", *b = argc > 2 ? argv[2] : NULL;
    const char *text = NULL;
    if (!strcmp(a, "--version") || !strcmp(a, "-V") || !strcmp(a, "version")) {
        if (launch_rank0())
            printf("gossip-mpi %s\n"
                   "License %s: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
                   "This is free software: you are free to change and redistribute it.\n"
                   "There is NO WARRANTY, to the extent permitted by law.\n",
                   gsp_version(), GSP_LICENSE);
        return 0;
    }
    if (cli_is_help(a) || (!strcmp(a, "help") && (!b || !strcmp(b, "run") || !strcmp(b, "bench") || !strcmp(b, "help"))))
        text = usage_text;
    else if (!strcmp(a, "help") && !strcmp(b, "calibrate"))
        text = gm_calibrate_usage;
    else if (!strcmp(a, "help")) {
        if (launch_rank0()) cli_usage_error("help: unknown command '%s' (run, bench, calibrate)", b);
        return 2;
    } else if (is_command(a) && b && cli_is_help(b))
        text = strcmp(a, "calibrate") ? usage_text : gm_calibrate_usage;
    if (!text) return -1;
    if (launch_rank0()) fputs(text, stdout);
    return 0;
}

static int finish(int rc) {
    MPI_Finalize();
    return rc;
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

/* Rank RANK's input from element FIRST on: a closed form, so the checks can regenerate any
 * rank's input locally instead of gathering N inputs (N^2 blocks a rank at scale). */
static void fill(char *in, int count, MPI_Datatype dt, int rank, long long first) {
    /* Small integers: sums are exact in every type and any order, so results compare bit for bit. */
    for (int i = 0; i < count; i++) {
        int v = (int)(((long long)rank * 7 + (first + i) * 3) % 11) + 1;
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
    (void)rank;
    cli_usage_error("%s", msg);
    MPI_Finalize();
    return 2;
}

int main(int argc, char **argv) {
    cli_program = "gossip-mpi";
    int rc = early(argc, argv);
    if (rc >= 0) return rc;
    rc = 0;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cli_quiet = rank != 0; /* every rank parses the same arguments; rank 0 says what is wrong */
    if (argc < 2) return finish(cli_usage_error("missing command: run, bench or calibrate (see 'gossip-mpi --help')"));
    if (!strcmp(argv[1], "calibrate")) return finish(gm_calibrate(argc, argv, rank, size));
    bool bench = !strcmp(argv[1], "bench");
    if (strcmp(argv[1], "run") && !bench) {
        const char *names[] = {"run", "bench", "calibrate", "help", "version"};
        const char *near = gsp_nearest(argv[1], strlen(argv[1]), names, 5);
        if (argv[1][0] == '-') return finish(cli_usage_error("unknown option '%s' before the command (see 'gossip-mpi --help')", argv[1]));
        if (near) return finish(cli_usage_error("unknown command '%s'; did you mean '%s'? (see 'gossip-mpi --help')", argv[1], near));
        return finish(cli_usage_error("unknown command '%s': run, bench or calibrate (see 'gossip-mpi --help')", argv[1]));
    }
    const char *cmd = argv[1];
    gsp_collective_t coll;
    const char *coll_s = NULL, *spec = NULL, *method = NULL, *algorithm = NULL, *tuning = NULL;
    int count = 1024, reps = 5;
    long max_bytes = 1 << 20;
    int64_t root = 0, num;
    bool approximate = false;
    MPI_Datatype dt = MPI_DOUBLE;
    MPI_Op op = MPI_SUM;
    gsp_cost_t cost = gsp_cost_default();
    const char *copt[16], *cval[16];
    int ncopt = 0, shared = -1; /* -1: as the context detects */
    bool seg_given = false;
    /* The option helper gossip uses (tools/gossip/cli.c): getopt_long's forms and prefixes, did
     * you mean, sizes through gsp_parse_size; what applies is decided by presence. */
    static const cli_optdef_t defs[] = {
        {"count", true},  {"type", true},     {"op", true},       {"method", true},       {"algorithm", true},
        {"root", true},   {"reps", true},     {"max-bytes", true}, {"segment", true},     {"alpha", true},
        {"beta", true},   {"gamma", true},    {"hop", true},      {"overhead", true},     {"tuning", true},
        {"approximate", false}, {"shared-memory", false}, {"no-shared-memory", false}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, cmd, usage_text, defs, argc - 1, argv + 1);
    const char *o, *val;
    int pr;
    while ((pr = cli_args_next(&ps, &o, &val)) > 0) {
        if (!o) {
            if (!coll_s) coll_s = val;
            else if (!spec) spec = val;
            else return finish(cli_usage_error("%s: unexpected argument '%s'", cmd, val));
            continue;
        }
        if (!strcmp(o, "--help")) {
            if (rank == 0) fputs(usage_text, stdout);
            return finish(0);
        }
        if (!strcmp(o, "--approximate")) approximate = true;
        else if (!strcmp(o, "--shared-memory") || !strcmp(o, "--no-shared-memory")) shared = o[2] == 's';
        else if (!strcmp(o, "--count")) {
            if (!cli_parse_size(val, 0, INT_MAX, "--count", &num)) return finish(EXIT_USAGE);
            count = (int)num;
        } else if (!strcmp(o, "--type")) {
            if ((dt = type_of(val)) == MPI_DATATYPE_NULL)
                return finish(cli_usage_error("--type must be double, float, int, int16 or int8, not '%s'", val));
        } else if (!strcmp(o, "--method")) method = val;
        else if (!strcmp(o, "--algorithm")) algorithm = val;
        else if (!strcmp(o, "--tuning")) tuning = val;
        else if (!strcmp(o, "--root")) {
            if (!cli_parse_int(val, 0, INT64_MAX, "--root", &root)) return finish(EXIT_USAGE);
        } else if (!strcmp(o, "--reps")) {
            if (!cli_parse_size(val, 1, 1000000, "--reps", &num)) return finish(EXIT_USAGE);
            reps = (int)num;
        } else if (!strcmp(o, "--max-bytes")) {
            if (!cli_parse_size(val, 8, INT_MAX, "--max-bytes", &num)) return finish(EXIT_USAGE);
            max_bytes = (long)num;
        } else if (!strcmp(o, "--segment")) {
            if (!cli_parse_size(val, 0, INT64_C(1) << 40, "--segment", &cost.segment)) return finish(EXIT_USAGE);
            seg_given = true;
        } else if (!strcmp(o, "--op")) {
            if (!strcmp(val, "max")) op = MPI_MAX;
            else if (!strcmp(val, "prod")) op = MPI_PROD;
            else if (!strcmp(val, "sum")) op = MPI_SUM;
            else return finish(cli_usage_error("--op must be sum, max or prod, not '%s'", val));
        } else {
            /* --alpha, --beta, --gamma, --hop, --overhead: checked now, applied over the
             * context's model once it exists (any order). */
            if (set_cost(&cost, o, val)) return finish(cli_usage_error("%s", gsp_errmsg()));
            if (ncopt == 16) return finish(cli_usage_error("%s: too many cost options", cmd));
            copt[ncopt] = o;
            cval[ncopt++] = val;
        }
    }
    if (pr < 0) return finish(EXIT_USAGE);
    if (!coll_s || !spec) return finish(cli_usage_error("%s: expected COLLECTIVE and SPEC (see 'gossip-mpi --help')", cmd));
    if (!gsp_collective_parse(coll_s, &coll))
        return finish(cli_usage_error("%s: unknown collective '%s' (broadcast, allgather, allreduce, reduce-scatter, reduce)", cmd, coll_s));
    /* What does not apply is refused when given, whatever its value. */
    bool reduction = coll == GSP_COLL_ALLREDUCE || coll == GSP_COLL_REDUCE || coll == GSP_COLL_REDUCE_SCATTER;
    if (bench && cli_args_given(&ps, "--count"))
        return finish(cli_usage_error("bench: --count does not apply (bench runs 8 B to --max-bytes per rank)"));
    if (!bench && cli_args_given(&ps, "--max-bytes")) return finish(cli_usage_error("run: --max-bytes applies to bench (run takes --count)"));
    if (cli_args_given(&ps, "--root") && coll != GSP_COLL_BROADCAST && coll != GSP_COLL_REDUCE)
        return finish(cli_usage_error("%s: --root applies to broadcast and reduce, not %s", cmd, gsp_collective_name(coll)));
    if (cli_args_given(&ps, "--op") && !reduction)
        return finish(cli_usage_error("%s: --op applies to the reductions (allreduce, reduce-scatter, reduce), not %s", cmd, gsp_collective_name(coll)));
    if (root >= size) return finish(cli_usage_error("%s: --root %lld is not a rank (0..%d)", cmd, (long long)root, size - 1));
    if (approximate) {
        static const char *const model_opts[] = {"--alpha", "--beta", "--gamma", "--hop", "--overhead", "--segment", "--shared-memory",
                                                 "--no-shared-memory", "--tuning", NULL};
        const char *given = cli_args_any(&ps, model_opts);
        if (coll != GSP_COLL_ALLREDUCE || op != MPI_SUM || (dt != MPI_DOUBLE && dt != MPI_FLOAT))
            return finish(cli_usage_error("--approximate runs register allreduce schedules: allreduce, --op sum, --type double or float"));
        if (given)
            return finish(cli_usage_error("%s: %s chooses among the exact runtime algorithms, not with --approximate", cmd, given));
        if (algorithm) return finish(cli_usage_error("%s: --algorithm chooses among the exact runtime algorithms, not with --approximate", cmd));
    } else {
        if (method && !cli_check_rt_method(cmd, method)) return finish(EXIT_USAGE);
        if (algorithm && !cli_check_algorithm(cmd, coll, algorithm)) return finish(EXIT_USAGE);
    }
    /* MPI counts are int: the largest count this run uses must fit in every call it makes — the
     * collective (reduce-scatter: count * P elements in), and the checks, which gather every
     * rank's result as bytes (allgather: P blocks). Refused here rather than truncated. */
    {
        int tsize0;
        MPI_Type_size(dt, &tsize0);
        int64_t lim = INT_MAX / (coll == GSP_COLL_REDUCE_SCATTER ? size : 1);
        int64_t lim_bytes = INT_MAX / ((int64_t)tsize0 * (coll == GSP_COLL_ALLGATHER ? size : 1));
        if (lim_bytes < lim) lim = lim_bytes;
        if (!bench && count > lim)
            return finish(cli_usage_error("run: --count %d: %s of %s on %d ranks would pass MPI an int count above 2^31 - 1; at most %lld elements",
                                          count, gsp_collective_name(coll), cli_args_given(&ps, "--type") ? "this type" : "double", size, (long long)lim));
        if (bench && max_bytes / tsize0 > lim)
            return finish(cli_usage_error("bench: --max-bytes %ld: %s on %d ranks would pass MPI an int count above 2^31 - 1; at most %lld bytes",
                                          max_bytes, gsp_collective_name(coll), size, (long long)(lim * tsize0)));
    }
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
        /* A file that names hosts: which rank runs which node (docs/runtime.md). */
        if (rank == 0 && v && *v && strcmp(v, "0") && gsp_mpi_ctx_placement(ctx)) fprintf(stderr, "gossip: %s\n", gsp_mpi_ctx_placement(ctx));
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
    /* bench: x4 each step, then max_bytes itself (the step is computed at the end of the body,
     * in long: a count near INT_MAX times 4 ends the loop rather than wrapping). */
    for (count = first_count;;) {
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
            /* The standard's result: every input reduced in rank order, integers wrapping; each
             * rank's input regenerated here, one block at a time (memory O(block), not N^2). */
            char *x_in = malloc(blk + 1), *want = malloc(blk + 1);
            long long first = coll == GSP_COLL_REDUCE_SCATTER ? (long long)count * rank : 0;
            fill(want, count, dt, size - 1, first);
            for (int x = size - 2; x >= 0; x--) {
                fill(x_in, count, dt, x, first);
                gsp_mpi_reduce_local(x_in, want, count, dt, op);
            }
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
            free(x_in);
            free(want);
        } else if (has)
            same = memcmp(a, b, cmp) == 0;
        if (coll != GSP_COLL_REDUCE && coll != GSP_COLL_REDUCE_SCATTER && cmp > 0) {
            /* The same bits on every rank: rank 0's result broadcast in pieces of at most 16 MiB
             * and compared (memory O(piece), where gathering every rank's would be N results). */
            size_t piece = cmp < ((size_t)1 << 24) ? cmp : (size_t)1 << 24;
            char *g = malloc(piece);
            for (size_t off = 0; off < cmp; off += piece) {
                size_t n = cmp - off < piece ? cmp - off : piece;
                if (rank == 0) memcpy(g, a + off, n);
                PMPI_Bcast(g, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
                ident &= memcmp(g, a + off, n) == 0;
            }
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
        if (!bench || (long)count * tsize >= max_bytes) break;
        long next = (long)count * 4;
        if (next * tsize > max_bytes) next = max_bytes / tsize;
        if (next <= count) break; /* max_bytes is not a whole number of elements beyond count */
        count = (int)next;
    }
    gsp_mpi_plan_free(plan);
    gsp_mpi_ctx_free(ctx);
    MPI_Finalize();
    return rc;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* smpi_bench.c — one collective, timed in SimGrid SMPI's simulated time, with gossip's exact
 * runtime or with MPI's own (whatever --cfg=smpi/<collective>:<algorithm> selects), on doubles
 * of integer value so every result is checked exactly against its closed form on every rank.
 * Usage (under smpirun): smpi_bench COLLECTIVE SPEC gossip|mpi|swing [BYTES ...]
 * (swing: the MPI calls, in a binary linked with Swing's libswing.o, which defines MPI_Allreduce:
 * printed as mode "swing"; the benchmark's own synchronisation calls PMPI_ directly.)
 * BYTES is one rank's block for allgather (the whole output under SMPI_BENCH_AG_TOTAL=1) and the
 * vector for the others (reduce-scatter: each rank contributes BYTES and gets BYTES/N). Prints "COLLECTIVE MODE BYTES MICROSECONDS ok|WRONG
 * [ALGORITHM]" per size; every rank starts at the same simulated instant (a barrier, then each
 * sleeps until a common time), and the time runs to the last rank's return, after one untimed
 * warm-up call (gossip plans on first use). Allgather of 4 MiB and more per rank (SMPI_BENCH_SHARED_FROM
 * bytes) uses SMPI_SHARED_MALLOC for its N blocks of output (timing only, "unchecked"): the same
 * code is checked at every smaller size. SMPI_BENCH_REPS=1: one call per size, no warm-up (the
 * time is the first call's); SMPI_BENCH_WARMUP=class: a smaller warm-up call (see below, and
 * warmup_bytes=); SMPI_BENCH_WARMUP=plan: none, gossip plans the size first
 * (gsp_mpi_ctx_prepare) and the one call is timed (warmup=plan). Each line ends with first= (the first call's simulated
 * microseconds) and real-time and memory figures: wall1= / wall2= real seconds the simulation
 * spent on the first (gossip: planning included) and second call, from the first rank's entry to
 * the last rank's return; gossip also plan_s= (real
 * seconds inside planning functions, summed over ranks, this size's calls), plan_peak= /
 * plan_held= (bytes the library held at most while planning / when planning ended, largest rank),
 * plan_mean= (plan_held averaged over ranks) and heap_peak= (the library's most bytes at once,
 * message buffers included, largest rank); see planmem.c. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gossip/mpi.h"

static int rank, size;

/* planmem.c: the library's allocations and planning time on this rank, and the real clock. */
void planmem_get(int64_t *live, int64_t *peak, int64_t *plan_peak, int64_t *plan_held, double *plan_sec);
double planmem_real_now(void);

static double value(int r, long i) { return (double)(r + (i % 7)); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (!rank) fprintf(stderr, "usage: smpi_bench allgather|allreduce|reduce-scatter|bcast SPEC gossip|mpi|swing [BYTES ...]\n");
        MPI_Finalize();
        return 2;
    }
    const char *coll = argv[1], *spec = argv[2];
    int gossip = !strcmp(argv[3], "gossip");
    const char *mode = gossip ? "gossip" : !strcmp(argv[3], "swing") ? "swing" : "mpi";
    /* Calls per size: the first (gossip plans in it) and, with 2, one more; the time is the last
     * call's (simulated time is deterministic and planning is not simulated: both agree). */
    const char *rs_ = getenv("SMPI_BENCH_REPS");
    int reps = rs_ && atoi(rs_) == 1 ? 1 : 2;
    gsp_mpi_ctx_t *ctx = NULL;
    if (gossip && gsp_mpi_ctx_create(spec, MPI_COMM_WORLD, &ctx)) {
        if (!rank) fprintf(stderr, "smpi_bench: %s\n", gsp_errmsg());
        MPI_Finalize();
        return 2;
    }
    if (ctx) {
        /* The cost model's parameters come from the environment, as in the drop-in. */
        gsp_cost_t c = gsp_cost_default();
        const char *a = getenv("GOSSIP_ALPHA"), *b = getenv("GOSSIP_BETA"), *g = getenv("GOSSIP_GAMMA"), *h = getenv("GOSSIP_HOP"),
                   *o = getenv("GOSSIP_OVERHEAD");
        if ((a && gsp_cost_parse_alpha("GOSSIP_ALPHA", a, &c)) || (b && gsp_cost_parse_beta("GOSSIP_BETA", b, &c)) ||
            (g && gsp_cost_parse("GOSSIP_GAMMA", g, &c.gamma)) || (h && gsp_cost_parse("GOSSIP_HOP", h, &c.hop)) ||
            (o && gsp_cost_parse("GOSSIP_OVERHEAD", o, &c.overhead))) {
            if (!rank) fprintf(stderr, "smpi_bench: %s\n", gsp_errmsg());
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        const char *seg = getenv("GOSSIP_SEGMENT");
        if (seg) c.segment = atol(seg);
        gsp_mpi_ctx_set_cost(ctx, &c);
        const char *f = getenv("GOSSIP_ALGORITHM");
        gsp_collective_t cc;
        if (f && *f && gsp_collective_parse(coll, &cc)) gsp_mpi_ctx_force(ctx, cc, f);
    }
    long sizes[16] = {8, 1024, 65536, 1048576, 4194304};
    int ns = 5;
    if (argc > 4) {
        ns = 0;
        for (int i = 4; i < argc && ns < 16; i++) sizes[ns++] = atol(argv[i]);
    }
    double ps_before = 0;
    for (int s = 0; s < ns; s++) {
        long n = size;
        int ag = !strcmp(coll, "allgather"), rs = !strcmp(coll, "reduce-scatter"), bc = !strcmp(coll, "bcast");
        long count = sizes[s] / 8 > 0 ? sizes[s] / 8 : 1;
        /* reduce-scatter, and allgather under SMPI_BENCH_AG_TOTAL=1 (the benches at scale, where
         * N blocks of BYTES each would not fit): BYTES is the whole vector, one rank's block N
         * times smaller. */
        const char *agt = getenv("SMPI_BENCH_AG_TOTAL");
        if (rs || (ag && agt && !strcmp(agt, "1"))) count = count / n > 0 ? count / n : 1; /* the result block */
        long inc = rs ? count * n : count, outc = ag ? count * n : count;
        const char *sf = getenv("SMPI_BENCH_SHARED_FROM");
        int shared = ag && sizes[s] >= (sf ? atol(sf) : 4194304);
        double *in = malloc(sizeof *in * (size_t)inc);
        double *out = shared ? SMPI_SHARED_MALLOC(sizeof *out * (size_t)outc) : malloc(sizeof *out * (size_t)(outc > inc ? outc : inc));
        int *rc = malloc(sizeof *rc * (size_t)n);
        for (long i = 0; i < n; i++) rc[i] = (int)count;
        double best = 1e30, first = 0, wall[2] = {0, 0};
        int ok = 1;
        double ps1;
        /* SMPI_BENCH_WARMUP=class: the warm-up call moves a little over half the elements, the
         * least of gossip's size class (a power of two of bytes: it chooses the algorithm at the
         * class's top and keeps it for the class), so it plans exactly what the timed call runs
         * at a fraction of the simulation's cost. */
        const char *wu = getenv("SMPI_BENCH_WARMUP");
        long wcount = reps > 1 && wu && !strcmp(wu, "class") && count > 2 ? count / 2 + 1 : count;
        /* SMPI_BENCH_WARMUP=plan: no warm-up call; gossip plans the size with
         * gsp_mpi_ctx_prepare (its agreement the only messages), and the one call is timed:
         * simulated time is deterministic, so it is the time of any later call, at half the
         * simulation's cost of a warm-up call. MPI's own algorithms have nothing to plan. */
        int plan_first = reps > 1 && wu && !strcmp(wu, "plan");
        int reps_here = plan_first ? 1 : reps;
        if (plan_first && gossip) {
            gsp_collective_t cc = ag ? GSP_COLL_ALLGATHER : rs ? GSP_COLL_REDUCE_SCATTER : bc ? GSP_COLL_BROADCAST : GSP_COLL_ALLREDUCE;
            if (gsp_mpi_ctx_prepare(ctx, cc, (int)count, MPI_DOUBLE, ag || bc ? MPI_OP_NULL : MPI_SUM, 0)) {
                fprintf(stderr, "smpi_bench: rank %d: preparing: %s\n", rank, gsp_errmsg());
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        for (int rep = 0; rep < reps_here; rep++) { /* rep 0 warms up (plans); simulated time is deterministic */
            long cnt = rep == 0 ? wcount : count, incr = rs ? cnt * n : cnt, outcr = ag ? cnt * n : cnt;
            for (long i = 0; i < n; i++) rc[i] = (int)cnt;
            for (long i = 0; i < incr; i++) in[i] = value(rank, i);
            if (bc) memcpy(out, in, sizeof *in * (size_t)cnt);
            /* A common start: ranks leave a barrier at different simulated times. */
            MPI_Barrier(MPI_COMM_WORLD);
            double now = MPI_Wtime(), latest;
            PMPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            double wait = latest + 10e-3 - MPI_Wtime(); /* far beyond the allreduce's spread on slow links */
            struct timespec ts = {0, wait > 0 ? (long)(wait * 1e9) : 0};
            nanosleep(&ts, NULL);
            double t0 = MPI_Wtime(), rt0 = planmem_real_now();
            int err = 0;
            if (ag) err = gossip ? (int)gsp_mpi_ctx_allgather(ctx, in, (int)cnt, MPI_DOUBLE, out, (int)cnt, MPI_DOUBLE)
                                 : MPI_Allgather(in, (int)cnt, MPI_DOUBLE, out, (int)cnt, MPI_DOUBLE, MPI_COMM_WORLD);
            else if (rs) err = gossip ? (int)gsp_mpi_ctx_reduce_scatter_block(ctx, in, out, (int)cnt, MPI_DOUBLE, MPI_SUM)
                                      : MPI_Reduce_scatter(in, out, rc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else if (bc) err = gossip ? (int)gsp_mpi_ctx_bcast(ctx, out, (int)cnt, MPI_DOUBLE, 0)
                                      : MPI_Bcast(out, (int)cnt, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            else err = gossip ? (int)gsp_mpi_ctx_allreduce(ctx, in, out, (int)cnt, MPI_DOUBLE, MPI_SUM)
                              : MPI_Allreduce(in, out, (int)cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            double t1 = MPI_Wtime(), rt1 = planmem_real_now(), t0min, t1max, rt0min, rt1max;
            if (err) {
                fprintf(stderr, "smpi_bench: rank %d: error %d%s%s\n", rank, err, gossip ? ": " : "", gossip ? gsp_errmsg() : "");
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            MPI_Reduce(&t0, &t0min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
            if (getenv("SMPI_BENCH_DEBUG")) { double t0max; MPI_Reduce(&t0, &t0max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD); if (!rank) fprintf(stderr, "t0 %.9f..%.9f latest %.9f\n", t0min, t0max, latest); }
            MPI_Reduce(&t1, &t1max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&rt0, &rt0min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
            MPI_Reduce(&rt1, &rt1max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            wall[rep] = rt1max - rt0min;
            /* Progress, for runs cut off by a time limit. */
            if (!rank) fprintf(stderr, "smpi_bench: call %d sim_us=%.3f wall=%.3f\n", rep + 1, (t1max - t0min) * 1e6, wall[rep]);
            if (rep == 0) first = t1max - t0min;
            if (rep == reps_here - 1 && t1max - t0min < best) best = t1max - t0min;
            /* Check against the closed form. */
            for (long i = 0; i < outcr && ok && !shared; i++) {
                double want;
                if (ag) want = value((int)(i / cnt), i % cnt);
                else if (bc) want = value(0, i);
                else {
                    long g = rs ? (long)rank * cnt + i : i;
                    want = (double)n * (double)(n - 1) / 2 + (double)n * (double)(g % 7);
                }
                ok = out[i] == want;
            }
        }
        int allok;
        MPI_Reduce(&ok, &allok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
        int64_t m[4], mmax[4];
        planmem_get(&m[0], &m[1], &m[2], &m[3], &ps1);
        double ps = ps1 - ps_before, pssum, held = (double)m[3], heldsum;
        MPI_Reduce(m, mmax, 4, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&ps, &pssum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&held, &heldsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (!rank) {
            printf("%s %s %ld %.3f %s%s%s first=%.3f wall1=%.3f", coll, mode, sizes[s], best * 1e6, shared ? "unchecked" : allok ? "ok" : "WRONG",
                   gossip ? " " : "", gossip ? gsp_mpi_ctx_last(ctx) : "", first * 1e6, wall[0]);
            if (wcount != count) printf(" warmup_bytes=%ld", wcount * 8 * (rs || (ag && agt && !strcmp(agt, "1")) ? n : 1));
            if (plan_first) printf(" warmup=plan");
            else if (reps > 1) printf(" wall2=%.3f", wall[1]);
            if (gossip)
                printf(" plan_s=%.3f plan_peak=%lld plan_held=%lld plan_mean=%.0f heap_peak=%lld", pssum, (long long)mmax[2],
                       (long long)mmax[3], heldsum / size, (long long)mmax[1]);
            printf("\n");
            fflush(stdout);
        }
        ps_before = ps1; /* the first size's plan_s includes gsp_mpi_ctx_create's planning */
        free(in);
        if (shared) SMPI_SHARED_FREE(out);
        else free(out);
        free(rc);
    }
    gsp_mpi_ctx_free(ctx);
    MPI_Finalize();
    return 0;
}

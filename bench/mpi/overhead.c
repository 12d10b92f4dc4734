/* SPDX-License-Identifier: GPL-3.0-or-later */
/* overhead.c — the cost of one small collective call: CALLS MPI_Allreduce of one double (and
 * MPI_Bcast of one int) in a loop, timed on every rank, the slowest rank's time per call
 * printed. Run once plain and once with the drop-in preloaded (bench/ompi_overhead.sh); the
 * ratio is what gossip adds to a call served from its cache: a lookup and the messages.
 * With --interleave, one process measures both: blocks of 1000 calls through MPI_ (the drop-in,
 * when preloaded) and through PMPI_ (Open MPI's own, which no drop-in intercepts) alternate,
 * ABBA, so that the machine's other load falls on both alike; prints each side's time per call
 * (sums over the blocks of the slowest rank's time) and the median of the blocks' ratios.
 * Usage: overhead [CALLS] [--interleave] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = argc > 1 ? atol(argv[1]) : 100000;
    double x = rank + 1, y = 0, t[2];
    int v = 7;
    for (int warm = 0; warm < 1000; warm++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int interleave = argc > 2 && !strcmp(argv[2], "--interleave");
    for (int k = 0; k < 2 && !interleave; k++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < calls; i++) {
            if (k == 0) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
        double mine = MPI_Wtime() - t0;
        PMPI_Reduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (interleave) {
        /* k = 0: allreduce, 1: bcast; side 0: MPI_ (the drop-in), 1: PMPI_ (Open MPI's own). */
        long block = 1000, nb = calls / block;
        double sum[2][2] = {{0, 0}, {0, 0}}, *ratio = malloc(sizeof *ratio * 2 * (size_t)(nb + 1));
        for (long b = 0; b < nb; b++)
            for (int k = 0; k < 2; k++) {
                double mine[2], worst[2];
                for (int h = 0; h < 2; h++) {
                    int side = (int)(b & 1) ^ h;
                    PMPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    for (long i = 0; i < block; i++) {
                        if (k == 0) (side ? PMPI_Allreduce : MPI_Allreduce)(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                        else (side ? PMPI_Bcast : MPI_Bcast)(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
                    }
                    mine[side] = MPI_Wtime() - t0;
                }
                PMPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                sum[k][0] += worst[0];
                sum[k][1] += worst[1];
                ratio[k * nb + b] = worst[0] / worst[1];
            }
        qsort(ratio, (size_t)nb, sizeof *ratio, cmp);
        qsort(ratio + nb, (size_t)nb, sizeof *ratio, cmp);
        if (rank == 0)
            printf("interleaved %ld allreduce drop-in %.3f us mpi %.3f us ratio %.3f median %.3f bcast drop-in %.3f us mpi %.3f us ratio %.3f "
                   "median %.3f\n",
                   nb * block, sum[0][0] / (double)(nb * block) * 1e6, sum[0][1] / (double)(nb * block) * 1e6, sum[0][0] / sum[0][1],
                   ratio[nb / 2], sum[1][0] / (double)(nb * block) * 1e6, sum[1][1] / (double)(nb * block) * 1e6, sum[1][0] / sum[1][1],
                   ratio[nb + nb / 2]);
        free(ratio);
    }
    if (y != size * (size + 1) / 2.0) fprintf(stderr, "rank %d: wrong sum %g\n", rank, y);
    if (rank == 0 && !interleave) printf("allreduce %.3f us bcast %.3f us\n", t[0] / (double)calls * 1e6, t[1] / (double)calls * 1e6);
    MPI_Finalize();
    return 0;
}

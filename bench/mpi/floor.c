/* SPDX-License-Identifier: GPL-3.0-or-later */
/* floor.c — the yardstick under bench/ompi_overhead.sh: recursive doubling of one double written
 * by hand with PMPI_Sendrecv (MPI's public API, as any layer above MPI must call it) against
 * Open MPI's own MPI_Allreduce, and a flat broadcast of one int by hand (PMPI_Send from the root,
 * PMPI_Recv elsewhere) against MPI_Bcast, in alternating blocks of 1000 calls in one process
 * (ABBA, the slowest rank's time per block); prints the median of the 100 blocks' ratios. A
 * drop-in that costs more than this ratio spends the difference in its own code. Ranks: a power
 * of two.
 * Usage: mpicc -O2 bench/mpi/floor.c -o floor && mpirun -n 4 ./floor */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup; MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double x = rank + 1, y, t;
    long nb = 100, block = 1000; double r[100], rb[100];
    int v = 7;
    for (long b = 0; b < nb; b++) {
        double mine[2], worst[2];
        for (int h = 0; h < 2; h++) {
            int side = (b & 1) ^ h;
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < block; i++) {
                if (side) PMPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
                else if (rank == 0)
                    for (int p = 1; p < size; p++) PMPI_Send(&v, 1, MPI_INT, p, 2, dup);
                else PMPI_Recv(&v, 1, MPI_INT, 0, 2, dup, MPI_STATUS_IGNORE);
            }
            mine[side] = MPI_Wtime() - t0;
        }
        PMPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        rb[b] = worst[0] / worst[1];
    }
    for (long b = 0; b < nb; b++) {
        double mine[2], worst[2];
        for (int h = 0; h < 2; h++) {
            int side = (b & 1) ^ h;
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < block; i++) {
                if (side) PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                else { /* recursive doubling by hand through the public API */
                    double acc = x;
                    for (int m = 1; m < size; m <<= 1) {
                        PMPI_Sendrecv(&acc, 1, MPI_DOUBLE, rank ^ m, 1, &t, 1, MPI_DOUBLE, rank ^ m, 1, dup, MPI_STATUS_IGNORE);
                        acc += t;
                    }
                    y = acc;
                }
            }
            mine[side] = MPI_Wtime() - t0;
        }
        PMPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        r[b] = worst[0] / worst[1];
    }
    qsort(r, nb, sizeof *r, cmp);
    qsort(rb, nb, sizeof *rb, cmp);
    if (rank == 0) printf("hand-written Sendrecv doubling / Open MPI allreduce: median block ratio %.3f\n", r[nb / 2]);
    if (rank == 0) printf("hand-written flat Send/Recv broadcast / Open MPI bcast: median block ratio %.3f\n", rb[nb / 2]);
    MPI_Finalize();
}

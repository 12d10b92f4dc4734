/* SPDX-License-Identifier: GPL-3.0-or-later */
/* overhead.c — the cost of one small collective call: CALLS MPI_Allreduce of one double (and
 * MPI_Bcast of one int) in a loop, timed on every rank, the slowest rank's time per call
 * printed. Run once plain and once with the drop-in preloaded (bench/ompi_overhead.sh); the
 * ratio is what gossip adds to a call served from its cache: a lookup and the messages.
 * Usage: overhead [CALLS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = argc > 1 ? atol(argv[1]) : 100000;
    double x = rank + 1, y = 0, t[2];
    int v = 7;
    for (int warm = 0; warm < 1000; warm++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < calls; i++) {
            if (k == 0) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
        double mine = MPI_Wtime() - t0;
        PMPI_Reduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (y != size * (size + 1) / 2.0) fprintf(stderr, "rank %d: wrong sum %g\n", rank, y);
    if (rank == 0) printf("allreduce %.3f us bcast %.3f us\n", t[0] / (double)calls * 1e6, t[1] / (double)calls * 1e6);
    MPI_Finalize();
    return 0;
}

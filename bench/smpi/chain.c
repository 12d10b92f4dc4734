/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chain.c — what one pipelined path costs in SMPI's network model: rank 0 streams NSEG segments
 * of S bytes along the chain 0 -> 1 -> ... -> H (ranks in one row of the simulated torus, one
 * link apart); each rank forwards a segment as soon as it has it. Flow control, as the
 * `multitree` broadcast must do it to pipeline at all:
 *   sync W  synchronous sends (MPI_Issend), at most W in flight per link (the runtime's way);
 *   recv W  eager sends, the receiver keeps W receives posted (SMPI starts a small message's
 *           transfer only once it is matched).
 * Prints the time of the last arrival. Usage: chain H NSEG S sync|recv W */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 6) {
        if (!rank) fprintf(stderr, "usage: chain H NSEG S sync|recv W\n");
        MPI_Finalize();
        return 2;
    }
    int H = atoi(argv[1]), NSEG = atoi(argv[2]), S = atoi(argv[3]), W = atoi(argv[5]);
    int sync = !strcmp(argv[4], "sync");
    char *buf = malloc((size_t)NSEG * (size_t)S);
    MPI_Request *rr = malloc(sizeof *rr * (size_t)NSEG), *sr = malloc(sizeof *sr * (size_t)NSEG);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank <= H) {
        int posted = 0;
        /* sync: every receive posted up front; recv: W at a time. */
        int ahead = sync ? NSEG : W;
        if (rank > 0)
            for (; posted < ahead && posted < NSEG; posted++)
                MPI_Irecv(buf + (size_t)posted * (size_t)S, S, MPI_BYTE, rank - 1, posted, MPI_COMM_WORLD, &rr[posted]);
        for (int j = 0; j < NSEG; j++) {
            if (rank > 0) {
                MPI_Wait(&rr[j], MPI_STATUS_IGNORE);
                if (posted < NSEG) {
                    MPI_Irecv(buf + (size_t)posted * (size_t)S, S, MPI_BYTE, rank - 1, posted, MPI_COMM_WORLD, &rr[posted]);
                    posted++;
                }
            }
            if (rank == H) continue;
            if (sync) {
                if (j >= W) MPI_Wait(&sr[j - W], MPI_STATUS_IGNORE);
                MPI_Issend(buf + (size_t)j * (size_t)S, S, MPI_BYTE, rank + 1, j, MPI_COMM_WORLD, &sr[j]);
            } else
                MPI_Isend(buf + (size_t)j * (size_t)S, S, MPI_BYTE, rank + 1, j, MPI_COMM_WORLD, &sr[j]);
        }
        if (rank < H) {
            if (sync) MPI_Waitall(NSEG < W ? NSEG : W, sr + (NSEG < W ? 0 : NSEG - W), MPI_STATUSES_IGNORE);
            else MPI_Waitall(NSEG, sr, MPI_STATUSES_IGNORE);
        }
    }
    double t = MPI_Wtime() - t0, mx;
    MPI_Reduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!rank) printf("%d %d %d %s %d %.1f\n", H, NSEG, S, argv[4], W, mx * 1e6);
    free(buf);
    free(rr);
    free(sr);
    MPI_Finalize();
    return 0;
}

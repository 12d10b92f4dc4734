/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stream_bench.c — one stream of equal messages between two ranks under SimGrid SMPI, W in
 * flight: rank 0 sends N messages of B bytes (synchronous sends, each slot reused once its send
 * has completed), rank P (default 8: another box of bench/fabric_platform's dgx:8x2) posts all N
 * receives at once. With GRADE=1 the first W messages are 1/W, 2/W, ..., W/W of B, so that they
 * do not end together; with VARY=P every message i is B less P % of B times the fractional part of
 * i times the golden ratio (sizes spread evenly over the top P % of B, never two alike in a row),
 * so that no window of them ends together. Prints the simulated time and the stream's rate. Why
 * the runtime's chunked streams keep many chunks in flight (src/mpi/mpi_engine.c; bench/README.md):
 *   smpicc -O2 bench/smpi/stream_bench.c -o build-smpi/stream_bench
 *   smpirun -np 16 -platform build-smpi/dgx-8x2.xml -hostfile build-smpi/hosts-dgx-8x2 \
 *       --cfg=smpi/simulate-computation:no build-smpi/stream_bench N B W */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: stream_bench N BYTES IN_FLIGHT [PEER]\n");
        MPI_Finalize();
        return 2;
    }
    long n = atol(argv[1]), b = atol(argv[2]), w = atol(argv[3]), peer = argc > 4 ? atol(argv[4]) : 8;
    int grade = getenv("GRADE") && atoi(getenv("GRADE")) == 1;
    int vary = getenv("VARY") ? atoi(getenv("VARY")) : 0;
    if (n < 1 || b < 1 || w < 1 || peer < 1 || peer >= size || vary < 0 || vary > 99) {
        if (rank == 0) fprintf(stderr, "stream_bench: N, BYTES and IN_FLIGHT at least 1, PEER a rank other than 0, VARY 0 to 99\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc((size_t)(rank == 0 ? w : n), (size_t)b);
    MPI_Request *r = malloc(sizeof *r * (size_t)(rank == 0 ? w : n));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), total = 0;
    for (long i = 0; rank == 0 && i < w; i++) r[i] = MPI_REQUEST_NULL;
    for (long i = 0; i < n; i++) {
        int len = (int)(grade && i < w ? b * (i + 1) / w : b);
        if (vary > 0) {
            double g = (double)i * 0.6180339887498949;
            len = (int)(b - (double)b * vary / 100.0 * (g - (double)(long)g));
        }
        total += len;
        if (rank == 0) {
            long s = i % w;
            if (r[s] != MPI_REQUEST_NULL) MPI_Wait(&r[s], MPI_STATUS_IGNORE);
            MPI_Issend(buf + (size_t)s * (size_t)b, len, MPI_BYTE, (int)peer, 0, MPI_COMM_WORLD, &r[s]);
        } else if (rank == peer)
            MPI_Irecv(buf + (size_t)i * (size_t)b, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r[i]);
    }
    if (rank == 0) MPI_Waitall((int)w, r, MPI_STATUSES_IGNORE);
    if (rank == peer) {
        MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
        double t = MPI_Wtime() - t0;
        printf("stream: %ld messages of %s%ld bytes, %ld in flight%s: %.2f us, %.2f GB/s\n", n, vary ? "up to " : "", b, w, grade ? " (graded start)" : "",
               t * 1e6, total / t / 1e9);
    }
    free(buf);
    free(r);
    MPI_Finalize();
    return 0;
}

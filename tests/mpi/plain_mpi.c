/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plain_mpi.c — an ordinary MPI program that knows nothing of gossip: MPI_Allgather (also in
 * place), MPI_Allreduce (sum of doubles, max of ints, in place) and MPI_Bcast, each checked
 * against the closed-form answer. Run under LD_PRELOAD=libgossip_pmpi.so it gets gossip's
 * collectives without knowing it. Exit 0 when every check passes on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0, count = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mine = malloc(sizeof *mine * (size_t)(count + 1)), *all = malloc(sizeof *all * (size_t)(count * size + 1));
    for (int i = 0; i < count; i++) mine[i] = rank * 1000 + i;
    MPI_Allgather(mine, count, MPI_INT, all, count, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++) bad |= all[r * count + i] != r * 1000 + i;
    for (int i = 0; i < count * size; i++) all[i] = -1;
    for (int i = 0; i < count; i++) all[rank * count + i] = mine[i];
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, count, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++) bad |= all[r * count + i] != r * 1000 + i;
    double *x = malloc(sizeof *x * (size_t)(count + 1)), *s = malloc(sizeof *s * (size_t)(count + 1));
    for (int i = 0; i < count; i++) x[i] = rank + i;
    MPI_Allreduce(x, s, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++) {
        double want = (double)size * (size - 1) / 2 + (double)size * i;
        bad |= s[i] < want - 1e-9 * want || s[i] > want + 1e-9 * want;
    }
    for (int i = 0; i < count; i++) mine[i] = (rank * 7919 + i) % 1009;
    int *mx = malloc(sizeof *mx * (size_t)(count + 1));
    for (int i = 0; i < count; i++) mx[i] = mine[i];
    MPI_Allreduce(MPI_IN_PLACE, mx, count, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++) {
        int want = 0;
        for (int r = 0; r < size; r++) want = (r * 7919 + i) % 1009 > want ? (r * 7919 + i) % 1009 : want;
        bad |= mx[i] != want;
    }
    int root = size - 1;
    for (int i = 0; i < count; i++) mine[i] = rank == root ? 42 + i : -1;
    MPI_Bcast(mine, count, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++) bad |= mine[i] != 42 + i;
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) printf("plain_mpi: %d ranks, count %d: %s\n", size, count, anybad ? "WRONG RESULTS" : "all results correct");
    free(mine);
    free(all);
    free(x);
    free(s);
    free(mx);
    MPI_Finalize();
    return anybad ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dropin_mpi.c — an ordinary MPI program (it knows nothing of gossip) doing what real programs
 * do to their collectives, run under the drop-in by the MPI tier:
 *  1. the same bytes described by different datatypes on different ranks: a broadcast whose root
 *     sends one contiguous(K, MPI_INT) while the others receive K MPI_INT (some of them through a
 *     strided type with holes), and an allgather where one rank sends one contiguous(K), another
 *     receives one contiguous(K) per rank, the rest K MPI_INT — results checked element by
 *     element against the closed form;
 *  2. every predefined reduction op on every predefined type of the standard's table, on a
 *     duplicate of MPI_COMM_WORLD with an error handler of its own: where MPI itself (PMPI, on a
 *     communicator returning errors) rejects the pair (MPI_BAND on MPI_DOUBLE: MPI_ERR_OP) the
 *     call must return MPI's class on every rank, MPI_Reduce too, and the next valid collective
 *     on that communicator must complete with the right result; where MPI accepts it, the
 *     result must be MPI's own, bit for bit;
 *  3. the error handler of the user's communicator is the one that is called.
 * Prints one line per failed check; exit 0 when every check passes. Usage: dropin_mpi [K] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bad;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            bad = 1;                                       \
            fprintf(stderr, "rank %d: FAIL: ", rank);      \
            fprintf(stderr, __VA_ARGS__);                  \
            fputc('\n', stderr);                           \
        }                                                  \
    } while (0)

static int value(int r, int i) { return r * 1000003 + i * 7 + 1; }

static void mixed_bcast(int K, int root) {
    int *buf = calloc((size_t)K * 2 + 2, sizeof *buf);
    MPI_Datatype contig, strided;
    MPI_Type_contiguous(K, MPI_INT, &contig);
    MPI_Type_commit(&contig);
    MPI_Type_vector(K, 1, 2, MPI_INT, &strided); /* every other int: holes */
    MPI_Type_commit(&strided);
    int rc;
    if (rank == root) {
        for (int i = 0; i < K; i++) buf[i] = value(root, i);
        rc = MPI_Bcast(buf, 1, contig, root, MPI_COMM_WORLD);
    } else if (rank % 3 == 1) {
        rc = MPI_Bcast(buf, 1, strided, root, MPI_COMM_WORLD);
    } else
        rc = MPI_Bcast(buf, K, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "mixed bcast K=%d root %d: rc %d", K, root, rc);
    int step = rank != root && rank % 3 == 1 ? 2 : 1, wrong = 0;
    for (int i = 0; i < K; i++) wrong += buf[i * step] != value(root, i);
    CHECK(!wrong, "mixed bcast K=%d root %d: %d wrong elements", K, root, wrong);
    MPI_Type_free(&contig);
    MPI_Type_free(&strided);
    free(buf);
}

static void mixed_allgather(int K) {
    int *send = malloc((size_t)K * sizeof *send), *recv = calloc((size_t)K * (size_t)size + 1, sizeof *recv);
    for (int i = 0; i < K; i++) send[i] = value(rank, i);
    MPI_Datatype contig;
    MPI_Type_contiguous(K, MPI_INT, &contig);
    MPI_Type_commit(&contig);
    int rc;
    if (rank == 0) rc = MPI_Allgather(send, 1, contig, recv, K, MPI_INT, MPI_COMM_WORLD);
    else if (rank == 1) rc = MPI_Allgather(send, K, MPI_INT, recv, 1, contig, MPI_COMM_WORLD);
    else rc = MPI_Allgather(send, K, MPI_INT, recv, K, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "mixed allgather K=%d: rc %d", K, rc);
    int wrong = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < K; i++) wrong += recv[(size_t)r * (size_t)K + (size_t)i] != value(r, i);
    CHECK(!wrong, "mixed allgather K=%d: %d wrong elements", K, wrong);
    MPI_Type_free(&contig);
    free(send);
    free(recv);
}

/* The standard's table (MPI 4.0, 6.9.2) for the C types listed here. */
enum { INT, FLT, CPLX, BOOL, BYTE };

static int allowed(MPI_Op op, int kind) {
    if (op == MPI_MAX || op == MPI_MIN) return kind == INT || kind == FLT;
    if (op == MPI_SUM || op == MPI_PROD) return kind == INT || kind == FLT || kind == CPLX;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return kind == INT || kind == BOOL;
    return kind == INT || kind == BYTE; /* BAND, BOR, BXOR */
}

static void valid_sum(MPI_Comm comm, const char *after) {
    int x = rank + 1, y = -1;
    int rc = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm);
    CHECK(rc == MPI_SUCCESS && y == size * (size + 1) / 2, "the allreduce after %s: rc %d, %d instead of %d", after, rc, y,
          size * (size + 1) / 2);
    int v[64], w[64];
    for (int i = 0; i < 64; i++) v[i] = rank * 64 + i;
    rc = MPI_Reduce(v, w, 64, MPI_INT, MPI_MAX, size - 1, comm);
    CHECK(rc == MPI_SUCCESS && (rank != size - 1 || w[63] == (size - 1) * 64 + 63), "the reduce after %s: rc %d", after, rc);
}

static int handler_calls;
static void count_errors(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    (void)code;
    handler_calls++;
}

static void op_type_pairs(void) {
    static const struct {
        MPI_Datatype t;
        const char *name;
        int kind;
        int size;
    } types[] = {{MPI_INT, "MPI_INT", INT, sizeof(int)},
                 {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", INT, sizeof(unsigned long)},
                 {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", INT, 1},
                 {MPI_INT64_T, "MPI_INT64_T", INT, 8},
                 {MPI_FLOAT, "MPI_FLOAT", FLT, sizeof(float)},
                 {MPI_DOUBLE, "MPI_DOUBLE", FLT, sizeof(double)},
                 {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", CPLX, 2 * sizeof(double)},
                 {MPI_C_BOOL, "MPI_C_BOOL", BOOL, 1},
                 {MPI_BYTE, "MPI_BYTE", BYTE, 1}};
    static const struct {
        MPI_Op op;
        const char *name;
    } ops[] = {{MPI_MAX, "MPI_MAX"},   {MPI_MIN, "MPI_MIN"}, {MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"},
               {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"},
               {MPI_BOR, "MPI_BOR"},   {MPI_BXOR, "MPI_BXOR"}};
    MPI_Comm comm, plain;
    int rejected = 0, lenient = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Comm_set_errhandler(plain, MPI_ERRORS_RETURN);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    unsigned char in[4 * 16 * 8], out[4 * 16 * 8], ref[4 * 16 * 8];
    for (size_t t = 0; t < sizeof types / sizeof *types; t++)
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            int n = 4 * 16 * 8 / types[t].size / 2, ok = allowed(ops[o].op, types[t].kind);
            memset(in, 0, sizeof in);
            for (int i = 0; i < n * types[t].size; i++) in[i] = (unsigned char)((rank + i) % 2); /* 0/1: valid booleans */
            /* MPI's own answer first (PMPI, on a communicator that returns errors). */
            int prc = PMPI_Allreduce(in, ref, n, types[t].t, ops[o].op, plain), pcls = MPI_SUCCESS;
            if (prc != MPI_SUCCESS) MPI_Error_class(prc, &pcls);
            if (pcls == MPI_ERR_OP) rejected++;
            if (pcls == MPI_SUCCESS && !ok) lenient++;
            int calls = handler_calls;
            int rc = MPI_Allreduce(in, out, n, types[t].t, ops[o].op, comm), cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            char what[96];
            snprintf(what, sizeof what, "MPI_Allreduce(%s, %s)", ops[o].name, types[t].name);
            if (pcls == MPI_SUCCESS) {
                CHECK(rc == MPI_SUCCESS, "%s: rc %d where MPI succeeds", what, rc);
                /* Integers: MPI's result exactly. Floating point: one fixed order, so the same
                 * bits on every rank (MPI's own order may differ in the last bits). */
                if (types[t].kind == FLT || types[t].kind == CPLX) {
                    int nb = n * types[t].size, same = 1;
                    unsigned char *all = malloc((size_t)nb * (size_t)size);
                    PMPI_Allgather(out, nb, MPI_BYTE, all, nb, MPI_BYTE, MPI_COMM_WORLD);
                    for (int r = 1; r < size; r++) same &= !memcmp(all, all + (size_t)r * (size_t)nb, (size_t)nb);
                    free(all);
                    CHECK(rc != MPI_SUCCESS || same, "%s: not the same bits on every rank", what);
                } else
                    CHECK(rc != MPI_SUCCESS || !memcmp(out, ref, (size_t)n * (size_t)types[t].size), "%s: not MPI's result", what);
            } else {
                CHECK(cls == pcls, "%s: class %d, MPI's is %d", what, cls, pcls);
                CHECK(handler_calls == calls + 1, "%s: the communicator's handler was called %d times", what, handler_calls - calls);
                prc = PMPI_Reduce(in, ref, n, types[t].t, ops[o].op, 0, plain);
                pcls = MPI_SUCCESS;
                if (prc != MPI_SUCCESS) MPI_Error_class(prc, &pcls);
                rc = MPI_Reduce(in, out, n, types[t].t, ops[o].op, 0, comm);
                cls = MPI_SUCCESS;
                if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
                CHECK(cls == pcls, "MPI_Reduce(%s, %s): class %d, MPI's is %d", ops[o].name, types[t].name, cls, pcls);
                valid_sum(comm, what);
            }
        }
    /* The standard rejects MPI_BAND on MPI_DOUBLE and so does every MPI: the errors were tested. */
    CHECK(rejected > 0, "no pair was rejected by MPI: the error path was not tested");
    if (rank == 0 && lenient) printf("# %d pairs outside the standard's table are accepted by this MPI (and by gossip through it)\n", lenient);
    MPI_Comm_free(&plain);
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&eh);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int K = argc > 1 ? atoi(argv[1]) : 5000;
    for (int root = 0; root < size; root += size / 3 + 1) mixed_bcast(K, root);
    mixed_bcast(1, size - 1);
    mixed_allgather(K);
    mixed_allgather(3);
    op_type_pairs();
    valid_sum(MPI_COMM_WORLD, "every pair");
    int all = 0;
    PMPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("%s\n", all ? "some check failed" : "every check passed");
    MPI_Finalize();
    return all ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* exact_mpi.c — an ordinary MPI program (it knows nothing of gossip) that checks what an MPI
 * user relies on, against closed forms and against the other ranks: integer-valued doubles
 * summed exactly; random doubles bit-identical on every rank (compared through PMPI_Allgather,
 * which no drop-in intercepts); every predefined op; a commutative user op; +inf and -0.0;
 * MPI_Reduce_scatter_block and MPI_Reduce with MPI_IN_PLACE; allgather with different but
 * matching send and receive types on one rank; datatypes with a non-zero lower bound and
 * MPI_BOTTOM; an intercommunicator; small calls repeated as loops make them (a drop-in's cache),
 * exact; MPI_COMM_NULL and invalid arguments returning errors of the right class; repeated calls
 * without memory growth. Prints one line per failed check; exit 0 when every check passes on
 * every rank. Usage: exact_mpi [COUNT] [--big] [--no-growth] (--no-growth: not the repeated
 * calls of section 12, 2,400 to 5,400 calls of COUNT elements, most of a run's time where COUNT
 * is large or a fabric's trees send many messages a call; the tier keeps them elsewhere) */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
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

/* Every rank holds the same n bytes? (through PMPI, never intercepted) */
static int same_everywhere(const void *buf, int n) {
    char *all = malloc((size_t)n * (size_t)size + 1);
    PMPI_Allgather(buf, n, MPI_BYTE, all, n, MPI_BYTE, MPI_COMM_WORLD);
    int same = 1;
    for (int r = 1; r < size; r++) same &= memcmp(all, all + (size_t)r * (size_t)n, (size_t)n) == 0;
    free(all);
    return same;
}

static uint64_t rng = 88172645463325252ull;
static double urand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) ((long long *)inout)[i] += ((long long *)in)[i];
}

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return res * 4;
}

/* Element i of a buffer of one of the small test's types, as and from a long long. */
static void put_ll(MPI_Datatype t, void *b, int i, long long v) {
    if (t == MPI_DOUBLE) ((double *)b)[i] = (double)v;
    else if (t == MPI_FLOAT) ((float *)b)[i] = (float)v;
    else if (t == MPI_INT) ((int *)b)[i] = (int)v;
    else if (t == MPI_LONG) ((long *)b)[i] = (long)v;
    else ((short *)b)[i] = (short)v;
}

static long long get_ll(MPI_Datatype t, const void *b, int i) {
    if (t == MPI_DOUBLE) return (long long)((const double *)b)[i];
    if (t == MPI_FLOAT) return (long long)((const float *)b)[i];
    if (t == MPI_INT) return ((const int *)b)[i];
    if (t == MPI_LONG) return ((const long *)b)[i];
    return ((const short *)b)[i];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int count = argc > 1 ? atoi(argv[1]) : 1000;
    int big = 0, growth = 1;
    for (int a = 2; a < argc; a++) {
        if (!strcmp(argv[a], "--big")) big = 1;
        else if (!strcmp(argv[a], "--no-growth")) growth = 0;
        else {
            if (rank == 0) fprintf(stderr, "exact_mpi: unknown option %s (usage: exact_mpi [COUNT] [--big] [--no-growth])\n", argv[a]);
            MPI_Finalize();
            return 2;
        }
    }
    double *x = malloc(sizeof *x * (size_t)count * (size_t)size + 8), *y = malloc(sizeof *y * (size_t)count * (size_t)size + 8);

    /* 1. Integer-valued doubles: exact. */
    for (int i = 0; i < count; i++) x[i] = (double)(rank * 1000003 + i);
    MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++) {
        double want = 1000003.0 * size * (size - 1) / 2 + (double)size * i;
        if (y[i] != want) {
            CHECK(0, "allreduce of integer-valued doubles: element %d is %.17g, the sum is %.17g", i, y[i], want);
            break;
        }
    }
    /* 2. Random doubles of mixed magnitude: the same bits on every rank. */
    rng += (uint64_t)rank * 7919;
    for (int i = 0; i < count; i++) x[i] = (urand() - 0.5) * pow(10, (int)(urand() * 12) - 6);
    MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(same_everywhere(y, count * (int)sizeof *y), "allreduce of random doubles differs between ranks");
    float *fx = malloc(sizeof *fx * (size_t)count + 4), *fy = malloc(sizeof *fy * (size_t)count + 4);
    for (int i = 0; i < count; i++) fx[i] = (float)x[i];
    MPI_Allreduce(fx, fy, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(same_everywhere(fy, count * (int)sizeof *fy), "allreduce of random floats differs between ranks");
    MPI_Allreduce(MPI_IN_PLACE, x, count, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
    CHECK(same_everywhere(x, count * (int)sizeof *x), "in-place product of doubles differs between ranks");

    /* 3. Every predefined op on integers, against the closed form. */
    int *ia = malloc(sizeof *ia * (size_t)count + 4), *ib = malloc(sizeof *ib * (size_t)count + 4);
    MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    const char *names[] = {"sum", "prod", "max", "min", "land", "lor", "lxor", "band", "bor", "bxor"};
    for (int o = 0; o < 10; o++) {
        for (int i = 0; i < count; i++) ia[i] = (rank * 37 + i * 11) % 5 + (o == 1 ? 1 : 0) - (o >= 4 && o <= 6 ? 2 : 0);
        MPI_Allreduce(ia, ib, count, MPI_INT, ops[o], MPI_COMM_WORLD);
        for (int i = 0; i < count; i++) {
            unsigned acc = 0;
            for (int r = 0; r < size; r++) {
                int v = (r * 37 + i * 11) % 5 + (o == 1 ? 1 : 0) - (o >= 4 && o <= 6 ? 2 : 0);
                if (r == 0) acc = (unsigned)(o >= 4 && o <= 6 ? (v != 0) : v);
                else if (o == 0) acc += (unsigned)v;
                else if (o == 1) acc *= (unsigned)v;
                else if (o == 2) acc = (unsigned)((int)acc > v ? (int)acc : v);
                else if (o == 3) acc = (unsigned)((int)acc < v ? (int)acc : v);
                else if (o == 4) acc = acc && v;
                else if (o == 5) acc = acc || v;
                else if (o == 6) acc = (acc != 0) != (v != 0);
                else if (o == 7) acc &= (unsigned)v;
                else if (o == 8) acc |= (unsigned)v;
                else acc ^= (unsigned)v;
            }
            if (ib[i] != (int)acc) {
                CHECK(0, "allreduce %s of ints: element %d is %d, want %d", names[o], i, ib[i], (int)acc);
                break;
            }
        }
    }
    /* MAXLOC on pairs (a datatype with a hole: MPI's own runs it, correctly). */
    struct { double v; int i; } pin = {(double)(rank % 3), rank}, pout;
    MPI_Allreduce(&pin, &pout, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(pout.v == (size > 2 ? 2.0 : (double)(size - 1)) && pout.i == (size > 2 ? 2 : size - 1), "maxloc gives (%g, %d)", pout.v, pout.i);

    /* 4. A commutative user op. */
    long long *la = malloc(sizeof *la * (size_t)count + 8), *lb = malloc(sizeof *lb * (size_t)count + 8);
    MPI_Op mine;
    MPI_Op_create(my_sum, 1, &mine);
    for (int i = 0; i < count; i++) la[i] = (long long)rank << 33 | i;
    MPI_Allreduce(la, lb, count, MPI_LONG_LONG, mine, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
        if (lb[i] != ((long long)size * (size - 1) / 2 << 33) + (long long)size * i) {
            CHECK(0, "user op sum: element %d is %lld", i, lb[i]);
            break;
        }
    MPI_Op_free(&mine);

    /* 5. +inf and -0.0. */
    double in2[2] = {rank == size / 2 ? INFINITY : 1.0, -0.0}, out2[2];
    MPI_Allreduce(in2, out2, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(isinf(out2[0]) && out2[0] > 0, "a sum with one +inf is %g", out2[0]);
    CHECK(out2[1] == 0 && signbit(out2[1]), "a sum of -0.0 is %s0.0", signbit(out2[1]) ? "-" : "+");

    /* 6. Reduce_scatter_block, also in place, with uneven values. */
    for (int i = 0; i < count * size; i++) ia[i % count] = 0; /* touch */
    int *rs_in = malloc(sizeof *rs_in * (size_t)count * (size_t)size + 4), *rs_out = malloc(sizeof *rs_out * (size_t)count + 4);
    for (int i = 0; i < count * size; i++) rs_in[i] = rank + 3 * i;
    MPI_Reduce_scatter_block(rs_in, rs_out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
        if (rs_out[i] != size * (size - 1) / 2 + 3 * (rank * count + i) * size) {
            CHECK(0, "reduce_scatter_block: element %d is %d", i, rs_out[i]);
            break;
        }
    MPI_Reduce_scatter_block(MPI_IN_PLACE, rs_in, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
        if (rs_in[i] != size * (size - 1) / 2 + 3 * (rank * count + i) * size) {
            CHECK(0, "reduce_scatter_block in place: element %d is %d", i, rs_in[i]);
            break;
        }
    /* 7. Reduce to every root, also in place at the root. */
    for (int root = 0; root < size; root += (size > 4 ? size / 3 : 1)) {
        for (int i = 0; i < count; i++) ia[i] = rank * i;
        if (rank == root) MPI_Reduce(MPI_IN_PLACE, ia, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        else MPI_Reduce(ia, NULL, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int i = 0; i < count; i++)
                if (ia[i] != size * (size - 1) / 2 * i) {
                    CHECK(0, "reduce to %d: element %d is %d", root, i, ia[i]);
                    break;
                }
    }
    /* 8. Allgather whose send type differs from the receive type on one rank only. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int sb[2] = {rank, -rank}, *gb = malloc(sizeof *gb * 2 * (size_t)size);
    if (rank == 0) MPI_Allgather(sb, 1, pair, gb, 2, MPI_INT, MPI_COMM_WORLD);
    else MPI_Allgather(sb, 2, MPI_INT, gb, 2, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) CHECK(gb[2 * r] == r && gb[2 * r + 1] == -r, "allgather with mixed types: block %d", r);
    /* 9. A datatype with a non-zero lower bound, and MPI_BOTTOM with absolute addresses. */
    MPI_Datatype shifted;
    MPI_Type_create_resized(MPI_INT, -(MPI_Aint)sizeof(int), 2 * sizeof(int), &shifted);
    MPI_Type_commit(&shifted);
    int *sh = calloc(2 * (size_t)size + 2, sizeof *sh);
    int v1 = rank + 100;
    MPI_Allgather(&v1, 1, MPI_INT, sh + 1, 1, shifted, MPI_COMM_WORLD);
    /* Block r starts at recvbuf + r * extent; the int sits at displacement 0 from there. */
    for (int r = 0; r < size; r++) CHECK(sh[2 * r + 1] == r + 100, "allgather with lb -4: block %d is %d", r, sh[2 * r + 1]);
    MPI_Aint addr;
    int bval[3] = {rank == 0 ? 7 : 0, rank == 0 ? 8 : 0, rank == 0 ? 9 : 0};
    MPI_Get_address(bval, &addr);
    MPI_Datatype abs3;
    int bl = 3;
    MPI_Type_create_hindexed(1, &bl, &addr, MPI_INT, &abs3);
    MPI_Type_commit(&abs3);
    MPI_Bcast(MPI_BOTTOM, 1, abs3, 0, MPI_COMM_WORLD);
    CHECK(bval[0] == 7 && bval[1] == 8 && bval[2] == 9, "bcast from MPI_BOTTOM");
    MPI_Type_free(&abs3);
    MPI_Type_free(&shifted);
    MPI_Type_free(&pair);
    /* 10. An intercommunicator between the two halves: MPI's semantics (sum of the other group). */
    if (size >= 2) {
        MPI_Comm half, inter;
        int color = rank < size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? size / 2 : 0, 99, &inter);
        int one = 1, got = 0, want = color ? size - size / 2 : size / 2;
        MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, inter);
        CHECK(got == want, "allreduce on an intercommunicator gives %d, want %d", got, want);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* 10b. Small calls as a loop makes them (a drop-in serves repeats from a cache): more
     * (type, op, count) combinations than such a cache needs to hold, in turn, in place and not,
     * with new values every call; each result exact and the same on every rank. Then one-element
     * broadcasts from every root in turn. */
    {
        MPI_Datatype ts[] = {MPI_DOUBLE, MPI_FLOAT, MPI_INT, MPI_LONG, MPI_SHORT};
        const char *tn[] = {"double", "float", "int", "long", "short"};
        MPI_Op os[] = {MPI_SUM, MPI_MAX, MPI_MIN};
        long long sbuf[3], rbuf[3]; /* room for 3 elements of any of the types */
        for (int k = 0; k < 540; k++) {
            int t = k % 5, o = (k / 5) % 3, n = 1 + (k / 15) % 3, inplace = (k / 45) % 2;
            long long want[3];
            for (int i = 0; i < n; i++) {
                for (int r = 0; r < size; r++) {
                    long long v = (r * 7 + k * 3 + i * 5) % 11 - 5;
                    if (r == 0) want[i] = v;
                    else want[i] = o == 0 ? want[i] + v : o == 1 ? (v > want[i] ? v : want[i]) : (v < want[i] ? v : want[i]);
                }
                put_ll(ts[t], inplace ? rbuf : sbuf, i, (rank * 7 + k * 3 + i * 5) % 11 - 5);
            }
            MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, n, ts[t], os[o], MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(get_ll(ts[t], rbuf, i) == want[i], "small allreduce %d: %d %s, op %d%s: element %d is %lld, want %lld", k, n, tn[t], o,
                      inplace ? " in place" : "", i, get_ll(ts[t], rbuf, i), want[i]);
        }
        for (int k = 0; k < 3 * size; k++) {
            int root = (k * 5) % size, v = rank == root ? 1000 * k + root : -1;
            double dv = rank == root ? 0.5 * k : -1;
            MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
            MPI_Bcast(&dv, 1, MPI_DOUBLE, root, MPI_COMM_WORLD);
            CHECK(v == 1000 * k + root && dv == 0.5 * k, "one-element broadcast %d from root %d: %d and %g", k, root, v, dv);
        }
    }
    /* 11. Errors: through the error handler, with the right class. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int e, cls;
    e = MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_NULL);
    MPI_Error_class(e, &cls);
    CHECK(e != MPI_SUCCESS && cls == MPI_ERR_COMM, "allreduce on MPI_COMM_NULL returns class %d", cls);
    e = MPI_Allreduce(x, y, -1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_COUNT, "count -1 returns class %d", cls);
    e = MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_OP_NULL, MPI_COMM_WORLD);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_OP, "MPI_OP_NULL returns class %d", cls);
    e = MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_TYPE, "bcast of MPI_DATATYPE_NULL returns class %d", cls);
    e = MPI_Allgather(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_TYPE, "allgather of MPI_DATATYPE_NULL returns class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* 12. Repeated calls: no growth (measured: 0 KiB, at most 64 on a rank, per 1500 calls). A
     * leak of 128 bytes a call fails; an injected 1 KiB-per-call leak grew 508 KiB a window. */
    for (int k = 0; growth && k < 300; k++) {
        MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allgather(x, count / size + 1, MPI_DOUBLE, y, count / size + 1, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Bcast(x, count, MPI_DOUBLE, k % size, MPI_COMM_WORLD);
    }
    /* A leak grows in every window; MPI growing a pool once (seen under heavy load) does not:
     * the smallest growth of three windows of 1500 calls must stay under 192 KiB. */
    long least = growth ? -1 : 0;
    for (int w = 0; growth && w < 3; w++) {
        long before = rss_kb();
        for (int k = 0; k < 500; k++) {
            MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allgather(x, count / size + 1, MPI_DOUBLE, y, count / size + 1, MPI_DOUBLE, MPI_COMM_WORLD);
            MPI_Bcast(x, count, MPI_DOUBLE, k % size, MPI_COMM_WORLD);
        }
        long g = rss_kb() - before;
        if (least < 0 || g < least) least = g;
        /* Every rank runs the same number of windows (the calls are collective). */
        long worst;
        PMPI_Allreduce(&least, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (worst == 0) break;
    }
    CHECK(least < 192, "memory grew by %ld KiB over 1500 calls, in each of three windows after a warm-up", least);
    /* 13. A broadcast of more than 2 GiB (only with --big). */
    if (big) {
        size_t n = ((size_t)1 << 28) + 16; /* doubles: 2 GiB + 128 B */
        double *g = malloc(n * sizeof *g);
        if (g) {
            for (size_t i = 0; i < n; i += 4096) g[i] = rank == 0 ? (double)i : -1;
            g[n - 1] = rank == 0 ? 12345 : -1;
            MPI_Bcast(g, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            int okb = g[n - 1] == 12345;
            for (size_t i = 0; i < n; i += 4096) okb &= g[i] == (double)i;
            CHECK(okb, "a 2 GiB broadcast left the buffer unfilled");
            free(g);
        }
    }
    int anybad;
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) printf("exact_mpi: %d ranks, count %d: %s\n", size, count, anybad ? "FAILED" : "every check passed");
    MPI_Finalize();
    return anybad ? 1 : 0;
}

/* pmpi.c — libgossip_pmpi.so: MPI_Allgather, MPI_Allreduce and MPI_Bcast served by gossip's
 * schedules through the MPI profiling interface. With LD_PRELOAD=libgossip_pmpi.so and
 * GOSSIP_TOPOLOGY=torus:4x4 (optionally GOSSIP_METHOD), an unmodified program gets gossip's
 * collectives; plans are built on first use and cached on the communicator. What gossip cannot
 * serve — no or a mismatched topology, a non-commutative user op, send and receive types that
 * differ — goes to the PMPI_ call, with a one-line note on stderr when GOSSIP_VERBOSE=1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"

typedef struct {
    gsp_mpi_plan_t *allgather, *allreduce; /* allreduce: a register schedule (sums of floats) */
    gsp_mpi_plan_t **bcast;                /* per root, built on demand */
    int size;
    bool unusable;                         /* topology missing or wrong size: always fall through */
    char why[256];
} cache_t;

static int keyval = MPI_KEYVAL_INVALID;
static bool noted[3];

static bool verbose(void) {
    const char *v = getenv("GOSSIP_VERBOSE");
    return v && *v && strcmp(v, "0");
}

static void note(int which, const char *fmt, const char *a, const char *b) {
    if (!verbose() || noted[which]) return;
    noted[which] = true;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    fprintf(stderr, "gossip: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

static int delete_cache(MPI_Comm comm, int key, void *val, void *extra) {
    (void)comm;
    (void)key;
    (void)extra;
    cache_t *c = val;
    gsp_mpi_plan_free(c->allgather);
    gsp_mpi_plan_free(c->allreduce);
    if (c->bcast)
        for (int r = 0; r < c->size; r++) gsp_mpi_plan_free(c->bcast[r]);
    free(c->bcast);
    free(c);
    return MPI_SUCCESS;
}

static cache_t *get_cache(MPI_Comm comm) {
    int flag;
    cache_t *c;
    if (keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cache, &keyval, NULL);
    PMPI_Comm_get_attr(comm, keyval, &c, &flag);
    if (flag) return c;
    c = calloc(1, sizeof *c);
    if (!c) return NULL;
    PMPI_Comm_size(comm, &c->size);
    const char *spec = getenv("GOSSIP_TOPOLOGY");
    if (!spec || !*spec) {
        c->unusable = true;
        snprintf(c->why, sizeof c->why, "GOSSIP_TOPOLOGY is not set");
    } else {
        gsp_topo_t t;
        if (gsp_topo_from_spec(&t, spec)) {
            c->unusable = true;
            snprintf(c->why, sizeof c->why, "GOSSIP_TOPOLOGY=%s: %s", spec, gsp_errmsg());
        } else {
            if (t.n != c->size) {
                c->unusable = true;
                snprintf(c->why, sizeof c->why, "%s has %lld nodes, the communicator %d ranks", spec, (long long)t.n, c->size);
            }
            gsp_topo_destroy(&t);
        }
    }
    PMPI_Comm_set_attr(comm, keyval, c);
    return c;
}

static const char *method(void) {
    const char *m = getenv("GOSSIP_METHOD");
    return m && *m ? m : "auto";
}

static bool is_float(MPI_Datatype dt) { return dt == MPI_DOUBLE || dt == MPI_FLOAT || dt == MPI_LONG_DOUBLE; }

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
    cache_t *c = get_cache(comm);
    if (!c || c->unusable || (sendbuf != MPI_IN_PLACE && (sendtype != recvtype || sendcount != recvcount))) {
        note(0, "MPI_Allgather falls through to PMPI: %s%s", c && c->unusable ? c->why : "send and receive types differ", "");
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (!c->allgather && gsp_mpi_plan_spec(getenv("GOSSIP_TOPOLOGY"), GSP_COLL_ALLGATHER, method(), -1, comm, &c->allgather)) {
        note(0, "MPI_Allgather falls through to PMPI: %s%s", gsp_errmsg(), "");
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    note(0, "MPI_Allgather by gossip's schedule on %s%s", getenv("GOSSIP_TOPOLOGY"), "");
    return gsp_mpi_allgather(c->allgather, sendbuf, recvbuf, recvcount, recvtype) ? MPI_ERR_INTERN : MPI_SUCCESS;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    cache_t *c = get_cache(comm);
    int commute = 1;
    MPI_Op_commutative(op, &commute);
    if (!c || c->unusable || !commute) {
        note(1, "MPI_Allreduce falls through to PMPI: %s%s", c && c->unusable ? c->why : "the op is not commutative", "");
        return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
    }
    /* Sums of floats use a register schedule (D..2D rounds); anything else gathers with the
     * allgather schedule and reduces in rank order. */
    gsp_mpi_plan_t **slot = op == MPI_SUM && is_float(dt) ? &c->allreduce : &c->allgather;
    gsp_collective_t coll = slot == &c->allreduce ? GSP_COLL_ALLREDUCE : GSP_COLL_ALLGATHER;
    if (!*slot && gsp_mpi_plan_spec(getenv("GOSSIP_TOPOLOGY"), coll, coll == GSP_COLL_ALLREDUCE ? "auto" : method(), -1, comm, slot)) {
        note(1, "MPI_Allreduce falls through to PMPI: %s%s", gsp_errmsg(), "");
        return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
    }
    note(1, "MPI_Allreduce by gossip's schedule on %s%s", getenv("GOSSIP_TOPOLOGY"), "");
    return gsp_mpi_allreduce(*slot, sendbuf, recvbuf, count, dt, op) ? MPI_ERR_INTERN : MPI_SUCCESS;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
    cache_t *c = get_cache(comm);
    if (!c || c->unusable || root < 0 || root >= c->size) {
        note(2, "MPI_Bcast falls through to PMPI: %s%s", c && c->unusable ? c->why : "bad root", "");
        return PMPI_Bcast(buf, count, dt, root, comm);
    }
    if (!c->bcast && !(c->bcast = calloc((size_t)c->size, sizeof *c->bcast))) return PMPI_Bcast(buf, count, dt, root, comm);
    if (!c->bcast[root] && gsp_mpi_plan_spec(getenv("GOSSIP_TOPOLOGY"), GSP_COLL_BROADCAST, "auto", root, comm, &c->bcast[root])) {
        note(2, "MPI_Bcast falls through to PMPI: %s%s", gsp_errmsg(), "");
        return PMPI_Bcast(buf, count, dt, root, comm);
    }
    note(2, "MPI_Bcast by gossip's schedule on %s%s", getenv("GOSSIP_TOPOLOGY"), "");
    return gsp_mpi_bcast(c->bcast[root], buf, count, dt) ? MPI_ERR_INTERN : MPI_SUCCESS;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pmpi.c — libgossip_pmpi.so: MPI_Allgather, MPI_Allreduce, MPI_Reduce_scatter_block,
 * MPI_Bcast and MPI_Reduce served by gossip's exact runtime through the MPI profiling
 * interface. With LD_PRELOAD=libgossip_pmpi.so and GOSSIP_TOPOLOGY=torus:4x4, an unmodified
 * program gets gossip's collectives; the context is built on first use and cached on the
 * communicator. Anything gossip does not serve goes to the PMPI_ call, and every such decision
 * depends only on arguments that are equal on every rank, so all ranks take the same path:
 * intercommunicators, invalid arguments (MPI's own call then reports them through the
 * communicator's error handler), non-commutative ops, reductions on datatypes with holes.
 *
 * Environment: GOSSIP_TOPOLOGY (the spec; unusable: one line on stderr, then MPI's own),
 * GOSSIP_METHOD (the allgather or broadcast construction), GOSSIP_ALGORITHM (e.g.
 * "allreduce=rs-ag,bcast=tree"), GOSSIP_ALPHA, GOSSIP_BETA, GOSSIP_GAMMA, GOSSIP_HOP, GOSSIP_OVERHEAD (the cost model,
 * over gsp_cost_shared_memory() when every rank shares one node, else gsp_cost_default();
 * GOSSIP_SHARED_MEMORY=1 or 0 forces the one or the other; the tuning file measured for that
 * setting replaces it — GOSSIP_TUNING, else ~/.config/gossip/tuning.json — and the variables
 * apply over that), GOSSIP_SEGMENT (bytes per pipelined segment, a size such as 64K; default 0: whole blocks),
 * GOSSIP_VERBOSE=1 (the tuning file, or how to make one; a line per collective and algorithm on
 * first use; which rank runs which node when the file names hosts; without GOSSIP_TOPOLOGY, one
 * line at MPI_Init that the drop-in is loaded and idle), GOSSIP_VERBOSE=2 (also every
 * candidate's predicted time at each new choice), GOSSIP_HOSTNAME (this process's host name for
 * the placement, instead of MPI_Get_processor_name: for tests and containers),
 * GOSSIP_PLACEMENT=order (rank r runs node r even when the file names hosts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"

typedef struct {
    gsp_mpi_ctx_t *ctx;
    bool unusable;
} cache_t;

static int keyval = MPI_KEYVAL_INVALID;

/* The communicator of the last call and its cache, so that a loop of calls on one communicator
 * costs a comparison, not an attribute lookup; cleared when that cache is deleted (so a handle
 * reused for a new communicator is looked up afresh). Used only below MPI_THREAD_MULTIPLE,
 * where no other thread can free a communicator between the comparison and the use. */
static MPI_Comm last_comm = MPI_COMM_NULL;
static cache_t *last_cache;
static int single_thread = -1;

/* The environment is read once: every call after the first pays a lookup, not a getenv. */
static bool verbose(void) {
    static int cached = -1;
    if (cached < 0) {
        const char *v = getenv("GOSSIP_VERBOSE");
        cached = v && *v && strcmp(v, "0");
    }
    return cached;
}

static const char *topology_env(void) {
    static bool read;
    static const char *spec;
    if (!read) {
        spec = getenv("GOSSIP_TOPOLOGY");
        read = true;
    }
    return spec;
}

/* One line on stderr from rank 0 of comm, once per process and kind. */
static void say(MPI_Comm comm, int kind, bool always, const char *fmt, const char *a, const char *b) {
    static bool said[32];
    if (said[kind] || (!always && !verbose())) return;
    said[kind] = true;
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
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
    if (c == last_cache) {
        last_cache = NULL;
        last_comm = MPI_COMM_NULL;
    }
    gsp_mpi_ctx_free(c->ctx);
    free(c);
    return MPI_SUCCESS;
}

static void configure(MPI_Comm comm, gsp_mpi_ctx_t *ctx) {
    const char *m = getenv("GOSSIP_METHOD");
    if (m && *m && gsp_mpi_ctx_set_method(ctx, m)) say(comm, 1, true, "GOSSIP_METHOD ignored: %s%s", gsp_errmsg(), "");
    gsp_cost_t cost = *gsp_mpi_ctx_cost(ctx);
    const char *sh = getenv("GOSSIP_SHARED_MEMORY");
    if (sh && *sh) {
        if (!strcmp(sh, "1")) cost = gsp_cost_shared_memory();
        else if (!strcmp(sh, "0")) cost = gsp_cost_default();
        else say(comm, 16, true, "GOSSIP_SHARED_MEMORY=%s: expected 1 or 0; the model is chosen by where the ranks run%s", sh, "");
    }
    /* The tuning file measured for this setting, if any (collective: rank 0 reads it); a bad
     * one is said always, its absence with GOSSIP_VERBOSE, with how to calibrate. */
    char note[1024];
    gsp_tuning_status_t ts = gsp_mpi_tuning(comm, NULL, &cost, note, sizeof note);
    say(comm, ts == GSP_TUNING_ERROR ? 17 : 18, ts == GSP_TUNING_ERROR, "%s%s", note, "");
    const char *names[5] = {"GOSSIP_ALPHA", "GOSSIP_BETA", "GOSSIP_GAMMA", "GOSSIP_HOP", "GOSSIP_OVERHEAD"};
    double *vals[5] = {&cost.alpha, &cost.beta, &cost.gamma, &cost.hop, &cost.overhead};
    int kinds[5] = {2, 3, 4, 13, 14};
    for (int i = 0; i < 5; i++) {
        const char *v = getenv(names[i]);
        if (v && (i == 0   ? gsp_cost_parse_alpha(names[i], v, &cost)
                  : i == 1 ? gsp_cost_parse_beta(names[i], v, &cost)
                           : gsp_cost_parse(names[i], v, vals[i]))) say(comm, kinds[i], true, "%s; the default is used%s", gsp_errmsg(), "");
    }
    const char *seg = getenv("GOSSIP_SEGMENT");
    if (seg && *seg) {
        /* A size as every option takes one (gsp_parse_size): 65536, 64K, 64KiB. */
        uint64_t v;
        if (gsp_parse_size("GOSSIP_SEGMENT", seg, 0, UINT64_C(1) << 40, &v)) say(comm, 15, true, "%s; none is used%s", gsp_errmsg(), "");
        else cost.segment = (int64_t)v;
    }
    gsp_mpi_ctx_set_cost(ctx, &cost);
    const char *f = getenv("GOSSIP_ALGORITHM");
    if (f && *f) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", f);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            char *eq = strchr(tok, '=');
            gsp_collective_t coll;
            if (!eq) {
                say(comm, 5, true, "GOSSIP_ALGORITHM: '%s' is not COLLECTIVE=ALGORITHM%s", tok, "");
                continue;
            }
            *eq = 0;
            if (!gsp_collective_parse(tok, &coll)) say(comm, 6, true, "GOSSIP_ALGORITHM: unknown collective '%s'%s", tok, "");
            else gsp_mpi_ctx_force(ctx, coll, eq + 1);
        }
    }
}

/* The context for comm, or NULL when gossip does not serve it (the same answer on every rank). */
static gsp_mpi_ctx_t *usable(MPI_Comm comm) {
    int flag = 0, inter = 0;
    cache_t *c;
    if (comm == MPI_COMM_NULL) return NULL;
    if (comm == last_comm && last_cache) return last_cache->unusable ? NULL : last_cache->ctx;
    const char *spec = topology_env();
    if (!spec || !*spec) return NULL;
    if (single_thread < 0) {
        int level = MPI_THREAD_MULTIPLE;
        PMPI_Query_thread(&level);
        single_thread = level != MPI_THREAD_MULTIPLE;
    }
    /* Every call after a communicator's first: one attribute lookup (only intracommunicators
     * get the attribute), or none when it is the last call's communicator. */
    if (keyval != MPI_KEYVAL_INVALID) {
        PMPI_Comm_get_attr(comm, keyval, &c, &flag);
        if (flag) {
            if (single_thread) {
                last_comm = comm;
                last_cache = c;
            }
            return c->unusable ? NULL : c->ctx;
        }
    }
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return NULL;
    if (keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cache, &keyval, NULL);
    c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (gsp_mpi_ctx_create(spec, comm, &c->ctx)) {
        /* Said once by default: the user asked for gossip and is not getting it. Every rank
         * parses the same spec against the same size, so all ranks agree. */
        c->unusable = true;
        say(comm, 0, true, "GOSSIP_TOPOLOGY=%s is not usable here (%s); MPI's own collectives run instead", spec, gsp_errmsg());
    } else {
        configure(comm, c->ctx);
        /* Which rank runs which node, when the file names hosts (GOSSIP_VERBOSE). */
        const char *pl = gsp_mpi_ctx_placement(c->ctx);
        if (pl) say(comm, 19, false, "%s%s", pl, "");
    }
    PMPI_Comm_set_attr(comm, keyval, c);
    if (single_thread) {
        last_comm = comm;
        last_cache = c;
    }
    return c->unusable ? NULL : c->ctx;
}

/* With GOSSIP_VERBOSE, a drop-in without GOSSIP_TOPOLOGY says that it is there and does
 * nothing: otherwise a typo in the variable's name looks like gossip running. */
static void idle_note(void) {
    const char *spec = topology_env();
    if (verbose() && (!spec || !*spec))
        say(MPI_COMM_WORLD, 20, false, "libgossip_pmpi is loaded but idle: GOSSIP_TOPOLOGY is not set, so MPI's own collectives run%s%s",
            "", "");
}

int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) idle_note();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) idle_note();
    return rc;
}

static bool valid_type(MPI_Datatype dt) { return dt != MPI_DATATYPE_NULL; }

static bool commutative(MPI_Op op) {
    int commute = 0;
    /* The predefined reductions are commutative: no call for them. */
    if (op == MPI_SUM || op == MPI_MAX || op == MPI_MIN || op == MPI_PROD || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR ||
        op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return true;
    return op != MPI_OP_NULL && PMPI_Op_commutative(op, &commute) == MPI_SUCCESS && commute;
}

/* After gossip's call: success, or (nothing sent yet) fall back, or the error handler. */
static bool fell(gsp_mpi_ctx_t *ctx, gsp_err_t err, MPI_Comm comm, int kind, const char *what, int *rc) {
    if (!err) {
        if (verbose()) say(comm, 8 + kind, false, "%s by gossip's %s", what, gsp_mpi_ctx_last(ctx));
        *rc = MPI_SUCCESS;
        return false;
    }
    if (!gsp_mpi_ctx_communicated(ctx)) {
        say(comm, 7, verbose(), "%s falls back on MPI's own: %s", what, gsp_errmsg());
        return true;
    }
    /* Messages are out: no falling back. The error is raised on the user's communicator,
     * through its handler, with MPI's class. */
    *rc = gsp_mpi_ctx_mpi_error(ctx);
    PMPI_Comm_call_errhandler(comm, *rc);
    return false;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
    gsp_mpi_ctx_t *ctx = usable(comm);
    int rc, ss = 0, rs = 0;
    if (ctx && recvcount >= 0 && valid_type(recvtype) && (sendbuf == MPI_IN_PLACE || (sendcount >= 0 && valid_type(sendtype)))) {
        PMPI_Type_size(recvtype, &rs);
        if (sendbuf != MPI_IN_PLACE) PMPI_Type_size(sendtype, &ss);
        if (sendbuf == MPI_IN_PLACE || (long long)ss * sendcount == (long long)rs * recvcount) {
            gsp_err_t err = gsp_mpi_ctx_allgather(ctx, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
            if (!fell(ctx, err, comm, 0, "MPI_Allgather", &rc)) return rc;
        }
    }
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    gsp_mpi_ctx_t *ctx = usable(comm);
    int rc;
    /* A call served before was checked then: the cache first. */
    if (ctx && (gsp_mpi_ctx_cached(ctx, GSP_COLL_ALLREDUCE, dt, op, count, 0) ||
                (count >= 0 && valid_type(dt) && commutative(op) && gsp_mpi_ctx_reducible(dt, op)))) {
        if (!fell(ctx, gsp_mpi_ctx_allreduce(ctx, sendbuf, recvbuf, count, dt, op), comm, 1, "MPI_Allreduce", &rc)) return rc;
    }
    return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    gsp_mpi_ctx_t *ctx = usable(comm);
    int rc;
    if (ctx && recvcount >= 0 && valid_type(dt) && commutative(op) && gsp_mpi_ctx_reducible(dt, op)) {
        if (!fell(ctx, gsp_mpi_ctx_reduce_scatter_block(ctx, sendbuf, recvbuf, recvcount, dt, op), comm, 2, "MPI_Reduce_scatter_block", &rc))
            return rc;
    }
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
    gsp_mpi_ctx_t *ctx = usable(comm);
    int rc, size = 0;
    /* A call served before was checked then; a new one's root against the size. */
    bool ok = ctx && gsp_mpi_ctx_cached(ctx, GSP_COLL_BROADCAST, dt, MPI_OP_NULL, count, root);
    if (ctx && !ok) {
        PMPI_Comm_size(comm, &size);
        ok = count >= 0 && valid_type(dt) && root >= 0 && root < size;
    }
    if (ok) {
        if (!fell(ctx, gsp_mpi_ctx_bcast(ctx, buf, count, dt, root), comm, 3, "MPI_Bcast", &rc)) return rc;
    }
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
    gsp_mpi_ctx_t *ctx = usable(comm);
    int rc, size = 0;
    if (ctx) PMPI_Comm_size(comm, &size);
    if (ctx && count >= 0 && valid_type(dt) && commutative(op) && gsp_mpi_ctx_reducible(dt, op) && root >= 0 && root < size) {
        if (!fell(ctx, gsp_mpi_ctx_reduce(ctx, sendbuf, recvbuf, count, dt, op, root), comm, 4, "MPI_Reduce", &rc)) return rc;
    }
    return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
}

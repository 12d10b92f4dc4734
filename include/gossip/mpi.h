/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi.h — running gossip's schedules over MPI (libgossip_mpi). The only public header that
 * includes <mpi.h>; the core library needs no MPI. */
#ifndef GOSSIP_MPI_H
#define GOSSIP_MPI_H

#include <mpi.h>

#include "gossip/algo.h"
#include "gossip/runtime.h"
#include "gossip/sched.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One rank's share of a schedule, as programs of the runtime (gsp_rt_prog_t) that its one
 * engine runs, the engine of the exact collectives below: per round, the peers it sends to and
 * receives from and the packets (origins, or registers for a register allreduce) on each
 * message — one message per (src, dst) pair and round, carrying all its packets. Built once,
 * run many times. */
typedef struct gsp_mpi_plan gsp_mpi_plan_t;

/** Builds rank's plan from schedule s on topology t [in] (symmetric schedules are translated for
 * this rank only, without expanding the others; explicit ones scanned for this rank's
 * transfers). comm [in] is duplicated, so the plan's messages never match the caller's. s is an
 * allgather, a broadcast or an allreduce in register form. Errors: GSP_ERR_INVAL when s->nodes
 * differs from comm's size, GSP_ERR_UNSUPPORTED for other schedules (block-form reduce-scatter
 * and allreduce run as the runtime's algorithms: gsp_mpi_ctx_*). */
GSP_API gsp_err_t gsp_mpi_plan_create(const gsp_sched_t *s, const gsp_topo_t *t, MPI_Comm comm, gsp_mpi_plan_t **plan);
/** Releases plan (and its duplicated communicator); NULL is a no-op. Collective. */
GSP_API void gsp_mpi_plan_free(gsp_mpi_plan_t *plan);
/** The collective plan runs. */
GSP_API gsp_collective_t gsp_mpi_plan_collective(const gsp_mpi_plan_t *plan);
/** Messages and bytes this rank sent in the last run. */
GSP_API void gsp_mpi_plan_stats(const gsp_mpi_plan_t *plan, int64_t *messages, int64_t *bytes);

/** Allgather: every rank's block of count elements of dt ends in recvbuf at its rank's place.
 * sendbuf may be MPI_IN_PLACE (the block is already in recvbuf). */
GSP_API gsp_err_t gsp_mpi_allgather(gsp_mpi_plan_t *p, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt);
/** Broadcast of count elements from the schedule's root. */
GSP_API gsp_err_t gsp_mpi_bcast(gsp_mpi_plan_t *p, void *buf, int count, MPI_Datatype dt);
/** Allreduce. With a register (allreduce) schedule: MPI_SUM on MPI_FLOAT, MPI_DOUBLE or
 * MPI_LONG_DOUBLE. With an allgather schedule: any predefined op and datatype — the blocks are
 * gathered and reduced locally in rank order (MPI_Reduce_local), so every rank gets the same
 * bits. sendbuf may be MPI_IN_PLACE. */
GSP_API gsp_err_t gsp_mpi_allreduce(gsp_mpi_plan_t *p, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op);

/** inout = in op inout with the MPI standard's semantics for the predefined ops on the basic
 * integer and floating types (signed sums and products wrap around), else MPI_Reduce_local. */
GSP_API gsp_err_t gsp_mpi_reduce_local(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op);
/** out = in op in2 in one pass (out may be in2; plain datatypes). */
GSP_API gsp_err_t gsp_mpi_reduce_local3(const void *in, const void *in2, void *out, int count, MPI_Datatype dt, MPI_Op op);

/** Plans collective c on the topology spec for comm (every rank computes the same plan; no
 * communication) with method (NULL or "auto"), then gsp_mpi_plan_create. */
GSP_API gsp_err_t gsp_mpi_plan_spec(const char *spec, gsp_collective_t c, const char *method, int64_t root, MPI_Comm comm,
                            gsp_mpi_plan_t **plan);

/* ---- exact collectives: the runtime (what libgossip_pmpi.so serves) ----
 *
 * A context holds a topology for a communicator and, per collective, the runtime algorithms
 * (runtime.h) with this rank's share of each, built on first use and chosen per message size by
 * the cost model. Every result is exact in the MPI sense: each block reduced once, at one rank,
 * in an order fixed by the schedule, then copied — the same bits on every rank. Reductions need
 * a commutative op and a datatype without holes or offsets (GSP_ERR_UNSUPPORTED otherwise, to
 * fall back on MPI's own). Every call is collective over the communicator. */
typedef struct gsp_mpi_ctx gsp_mpi_ctx_t;

/** Context for topology spec on comm [in] (duplicated; N must equal comm's size). When the
 * topology names its nodes (an edge list or GraphML with host names, not integer ids), ranks
 * are placed by host name: every rank's processor name (MPI_Get_processor_name, or the
 * environment's GOSSIP_HOSTNAME, for tests and containers) is gathered once, and the rank whose
 * host is node v's name runs node v; the k-th rank (in rank order) of a host H with several
 * ranks runs the node named "H:k". A host that is no node's name (or several ranks on a host
 * the file names once) is GSP_ERR_NOTAPPLIC naming the first such host, on every rank alike.
 * GOSSIP_PLACEMENT=order keeps rank r on node r (the file's order). Collective. */
GSP_API gsp_err_t gsp_mpi_ctx_create(const char *spec, MPI_Comm comm, gsp_mpi_ctx_t **ctx);
/** How ctx placed the ranks: NULL when rank r runs node r because the topology has no names;
 * else one line (which node each rank runs, and whether that is the file's order) for
 * diagnostics. Borrowed from ctx. */
GSP_API const char *gsp_mpi_ctx_placement(const gsp_mpi_ctx_t *ctx);
/** The node rank r of ctx's communicator runs (r itself unless placed by host name). */
GSP_API int64_t gsp_mpi_ctx_node(const gsp_mpi_ctx_t *ctx, int r);
/** Releases ctx and its duplicated communicator; NULL is a no-op. Collective. */
GSP_API void gsp_mpi_ctx_free(gsp_mpi_ctx_t *ctx);
/** The cost model ctx chooses with: gsp_cost_shared_memory() when every rank of the
 * communicator shares one node (MPI_COMM_TYPE_SHARED), else gsp_cost_default(), until
 * gsp_mpi_ctx_set_cost. */
GSP_API const gsp_cost_t *gsp_mpi_ctx_cost(const gsp_mpi_ctx_t *ctx);
/** Sets the cost model's parameters. */
GSP_API void gsp_mpi_ctx_set_cost(gsp_mpi_ctx_t *ctx, const gsp_cost_t *cost);
/** The allgather construction (or broadcast tree method) the algorithms are built on; before
 * the first collective. Coefficient methods (spectral, ...) are refused: they are not exact. */
GSP_API gsp_err_t gsp_mpi_ctx_set_method(gsp_mpi_ctx_t *ctx, const char *method);
/** Forces the runtime algorithm for coll by name ("rs-ag", "gather", "tree", ...; NULL or
 * "auto": the cost model chooses). */
GSP_API gsp_err_t gsp_mpi_ctx_force(gsp_mpi_ctx_t *ctx, gsp_collective_t coll, const char *algo);
/** Name of the algorithm the last call ran. */
GSP_API const char *gsp_mpi_ctx_last(const gsp_mpi_ctx_t *ctx);
/** The algorithm chosen for coll at bytes (after a call of that size), or NULL. */
GSP_API const gsp_rt_algo_t *gsp_mpi_ctx_choice(gsp_mpi_ctx_t *ctx, gsp_collective_t coll, int root, int64_t bytes);
/** After a failed call: false when no rank communicated yet (every rank failed in the same
 * way, so the caller may fall back on MPI's own collective), true otherwise. */
GSP_API bool gsp_mpi_ctx_communicated(const gsp_mpi_ctx_t *ctx);
/** Whether the runtime reduces dt with op: dt plain, a predefined type or contiguous types of
 * one, and op a user's op or a predefined op the standard allows on that type (MPI_BAND on
 * MPI_DOUBLE is not: MPI's own collective then raises MPI_ERR_OP). */
GSP_API bool gsp_mpi_ctx_reducible(MPI_Datatype dt, MPI_Op op);
/** Whether ctx serves the call (coll, dt, op, count, root) from its cache: the same call with a
 * predefined dt and op (MPI_OP_NULL for a broadcast) was served before and its choice stands.
 * Such a call's arguments were checked then; the drop-in asks this first. O(1). */
GSP_API bool gsp_mpi_ctx_cached(const gsp_mpi_ctx_t *ctx, gsp_collective_t coll, MPI_Datatype dt, MPI_Op op, int count, int root);
/** The MPI error class of the last failed MPI call inside ctx's collectives (MPI_ERR_INTERN when
 * the failure was not an MPI call's): what the drop-in raises on the user's communicator. */
GSP_API int gsp_mpi_ctx_mpi_error(const gsp_mpi_ctx_t *ctx);
/** True when dt has no holes and no offset (what the reductions need). */
GSP_API bool gsp_mpi_ctx_plain(MPI_Datatype dt);

/** Plans collective coll now, as its first call would: for allgather count is the call's
 * recvcount, for reduce-scatter its recvcount (a block), for the others its count; op only for
 * reductions (MPI_OP_NULL otherwise), root only for broadcast and reduce (a rank). Builds this
 * rank's share of the algorithm the cost model chooses for that size and agrees on it with the
 * other ranks, moving no data, so that the call itself then only runs (what a first call costs
 * beyond a later one: MPI-4's persistent collectives' _init). Collective; errors as the call's. */
GSP_API gsp_err_t gsp_mpi_ctx_prepare(gsp_mpi_ctx_t *ctx, gsp_collective_t coll, int count, MPI_Datatype dt, MPI_Op op, int root);

/** MPI_Allgather's semantics (sendbuf may be MPI_IN_PLACE; types may differ with equal
 * signatures). */
GSP_API gsp_err_t gsp_mpi_ctx_allgather(gsp_mpi_ctx_t *ctx, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype);
/** MPI_Allreduce's semantics (sendbuf may be MPI_IN_PLACE), exact: one fixed reduction order. */
GSP_API gsp_err_t gsp_mpi_ctx_allreduce(gsp_mpi_ctx_t *ctx, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op);
/** MPI_Reduce_scatter_block's semantics (sendbuf may be MPI_IN_PLACE), exact. */
GSP_API gsp_err_t gsp_mpi_ctx_reduce_scatter_block(gsp_mpi_ctx_t *ctx, const void *sendbuf, void *recvbuf, int recvcount,
                                           MPI_Datatype dt, MPI_Op op);
/** MPI_Bcast's semantics. */
GSP_API gsp_err_t gsp_mpi_ctx_bcast(gsp_mpi_ctx_t *ctx, void *buf, int count, MPI_Datatype dt, int root);
/** MPI_Reduce's semantics (MPI_IN_PLACE at the root), exact: one fixed reduction order. */
GSP_API gsp_err_t gsp_mpi_ctx_reduce(gsp_mpi_ctx_t *ctx, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                             int root);

/* ---- calibration: the cost model measured on the running system (docs/runtime.md) ---- */

/** What gsp_mpi_tuning found. */
typedef enum {
    GSP_TUNING_NONE = 0,      /* no tuning file: the model in force stays */
    GSP_TUNING_LOADED,        /* the file's model replaced it */
    GSP_TUNING_OTHER_SETTING, /* the file was measured with the ranks on one node and these span
                               * nodes, or the reverse: the model in force stays */
    GSP_TUNING_ERROR          /* unreadable or malformed: the model in force stays */
} gsp_tuning_status_t;

/** Applies the tuning file to the cost model of comm's ranks. Collective over comm: rank 0 reads
 * the file and broadcasts it (PMPI_Bcast), so every rank chooses from the same model. path [in,
 * may be NULL]: the file, "none" for none (NULL: gsp_cost_tuning_path's: $GOSSIP_TUNING, else
 * the default location). cost [in,out]: the model in force for where the ranks run (the preset,
 * cost->shared telling which); the file's replaces it when the file was measured in the same
 * setting (its shared_memory equal to cost->shared). note [out, may be NULL, n bytes]: one
 * sentence for the user — the file loaded, or why not and how to calibrate. Returns the status,
 * the same on every rank. */
GSP_API gsp_tuning_status_t gsp_mpi_tuning(MPI_Comm comm, const char *path, gsp_cost_t *cost, char *note, size_t n);

/** Options of gsp_mpi_calibrate (zeroed: the defaults). */
typedef struct {
    const char *topology; /* a spec whose node r is rank r (ranks placed on its nodes): the hop
                           * latency is measured from rank 0 to its farthest rank; NULL: not */
    int64_t max_bytes;    /* largest ping-pong (0: 16 MiB) */
    int reps;             /* repetitions of each measurement, the minimum kept (0: 5) */
    double target;        /* seconds one repetition lasts at least (0: 2e-4) */
} gsp_calib_opts_t;

#define GSP_CALIB_MAX_SIZES 128

/** What gsp_mpi_calibrate measured (every rank gets rank 0's figures). Times are one message's:
 * half a round trip, the minimum over the repetitions; spread: median - minimum. */
typedef struct {
    gsp_cost_t cost;            /* the measured model: alpha, beta (by size), gamma, hop,
                                 * overhead, shared (every rank on one node) */
    gsp_cost_fit_t fit;         /* the regimes of the ping-pong */
    int refined, refine_probes; /* changes of regime moved to the byte (gsp_cost_refine), and
                                 * the sizes it measured for it */
    int nsizes;
    int64_t size[GSP_CALIB_MAX_SIZES];
    double time[GSP_CALIB_MAX_SIZES], spread[GSP_CALIB_MAX_SIZES];
    int near;                   /* the ping-pong's peer: rank 1, or rank 0's first neighbour */
    bool have_hop;              /* hop measured: a topology whose diameter from 0 is >= 2 */
    int far;                    /* rank 0's farthest rank, far_hops links away */
    int64_t far_hops;
    double t_near, t_far;       /* 0-byte messages to near and far */
    int burst;                  /* messages sent at once for the overhead ... */
    int burst_peers;            /* ... to this many distinct ranks */
    double t_one, t_burst;      /* round trips (halved) of one message and of the burst */
    int64_t gamma_bytes;        /* bytes combined per rank (MPI_SUM on doubles) */
    int gamma_ranks;            /* ranks combining at once (all on shared memory, else 1) */
    double t_gamma;             /* seconds it took (the slowest rank) */
    double seconds;             /* the whole calibration */
} gsp_calib_t;

/** Measures the running system for the cost model (collective over comm, at least 2 ranks): a
 * ping-pong between rank 0 and its peer at 0 bytes and 4 sizes an octave up to max_bytes gives
 * alpha (0 bytes) and beta by size (gsp_cost_fit, each change of regime then bisected to the
 * byte: gsp_cost_refine); with a topology, 0-byte messages to the
 * farthest rank and to a neighbour give hop = (t_far - t_near) / (hops - 1); k messages sent at
 * once and answered (to k neighbours, or k other ranks, or one rank k times) against one give
 * overhead = (round trip_k - round trip_1) / (k - 1); gsp_mpi_reduce_local (MPI_SUM, doubles) over 8 MiB gives gamma (all
 * ranks at once when they share one node: the model's one memory). out [out]. */
GSP_API gsp_err_t gsp_mpi_calibrate(MPI_Comm comm, const gsp_calib_opts_t *opts, gsp_calib_t *out);

#ifdef __cplusplus
}
#endif
#endif

/* runtime.h — the algorithms the MPI runtime runs, built from proved schedules, and the cost
 * model that chooses among them. Everything here is exact: every result block is reduced once,
 * at one node, in an order fixed by the schedule, then copied, so every rank gets the same bits
 * (the papers' coefficient protocols are not runtime algorithms). No MPI here: `gossip plan
 * COLLECTIVE SPEC --bytes B` and libgossip_mpi read the same candidates and predictions. */
#ifndef GOSSIP_RUNTIME_H
#define GOSSIP_RUNTIME_H

#include "gossip/algo.h"
#include "gossip/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a received block does: overwrite the receiver's copy, or be combined into it. */
typedef enum { GSP_RT_STORE = 1, GSP_RT_REDUCE } gsp_rt_kind_t;

/** How block x of a phase maps onto the buffer: rank x's block of the allgather layout (N
 * blocks of the per-rank size), block x of the vector cut into N near-equal pieces, or the
 * whole vector (tree phases: every transfer carries everything). */
typedef enum { GSP_RT_RANK = 1, GSP_RT_SPLIT, GSP_RT_WHOLE } gsp_rt_layout_t;

typedef struct {
    gsp_rt_kind_t kind;
    gsp_rt_layout_t layout;
    gsp_sched_t sched;  /* explicit, no duplicate deliveries; transfer (u, v, x) moves block x */
    int64_t *maxblk;    /* per round: most blocks on one arc */
    int64_t *maxred;    /* per round: most blocks combined at one node (reduce phases) */
    int64_t *maxmsg;    /* per round: most messages one node sends, or receives */
    int64_t *moved;     /* per round: blocks moved by all nodes together (one memory's load) */
    int64_t busiest;    /* most blocks one arc carries over the whole phase */
    int64_t nblocks;    /* SPLIT: the vector is cut into this many blocks (0: one per node) */
    bool pipelined;     /* run in many segments, each flowing on as soon as it arrives */
    /* Routed: the transfers join ranks that need not be neighbours (the network routes them,
     * up to `hops` links). link_hist[(r * nlinks + a) * (hops + 1) + h]: in round r, messages
     * going h links whose route may start on a sender's link a — the load a dimension-order
     * router puts on its busiest links; maxblk counts the busiest link's messages. */
    bool routed;
    int64_t hops, nlinks;
    int64_t *link_hist;
} gsp_rt_phase_t;

/** A runtime algorithm: one or two phases run back to back on one buffer. */
typedef struct {
    char name[32];          /* "packet", "flood", "rs-ag", "gather", "tree", "flat", "dims", "multitree", ... */
    char built_from[128];   /* the construction methods of its schedules */
    gsp_collective_t coll;
    int64_t root;           /* broadcast and reduce, else -1 */
    bool local_reduce;      /* gather: every rank reduces the N gathered vectors in rank order */
    int nphases;
    gsp_rt_phase_t phase[2];
} gsp_rt_algo_t;

typedef struct {
    gsp_rt_algo_t *v;
    int n;
} gsp_rt_algos_t;

/** Builds every runtime algorithm for collective c on t [in] with distances d [in] (root for
 * broadcast and reduce). method [in] (NULL or "auto") names the allgather construction the
 * bandwidth algorithms use, or a broadcast method for the trees. Methods that do not apply
 * are left out; GSP_ERR_NOTAPPLIC when none applies. out [out]: release with
 * gsp_rt_algos_destroy. Cost: one schedule per construction, O(N^2 d) transfers explicit. */
gsp_err_t gsp_rt_algos(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t root, const char *method,
                       gsp_rt_algos_t *out);
/** Releases every algorithm and its schedules; a zeroed set is a no-op. */
void gsp_rt_algos_destroy(gsp_rt_algos_t *a);

/** Arc-disjoint spanning out-trees of t rooted at root, as many as t allows — the fewest
 * arc-disjoint paths from root to any node (Edmonds' branching theorem), at most kmax (0: no
 * cap). *k [out]: their number; parent [out]: k * n entries, parent[i * n + v] the parent of v
 * in tree i (-1 at the root); depth [out] (may be NULL): likewise each node's depth. Built by
 * Lovász's constructive proof, shallowest arcs first; one max flow per arc tried, about
 * O(k^2 n (k n + m)) in all. Release both with gsp_free. */
gsp_err_t gsp_arborescences(const gsp_topo_t *t, int64_t root, int64_t kmax, int64_t *k, int64_t **parent, int64_t **depth);

/** The cost model: alpha seconds per message (its latency to a neighbour, per round on the
 * critical path), beta seconds per byte on one link, gamma seconds per byte combined; hop
 * seconds per further link a routed message crosses (cut-through: the data is not stored at
 * each hop), overhead seconds per further message one node sends or receives in a round (the
 * CPU cost of a message, which latencies do not hide). */
#define GSP_COST_MAX_BETA 16

typedef struct {
    double alpha, beta, gamma;
    /* Pipelining: the runtime cuts blocks into segments of about this many bytes and runs the
     * schedule once per segment, all at once (0: whole blocks). Not in the predictions. */
    int64_t segment;
    double hop, overhead;
    /* beta by message size (networks switch protocols and packetise): a message of b bytes
     * pays beta_val[i] per byte for the last i with beta_from[i] <= b; nbeta 0: beta alone. */
    int nbeta;
    int64_t beta_from[GSP_COST_MAX_BETA];
    double beta_val[GSP_COST_MAX_BETA];
    /* One memory instead of a network (every rank on one node): every message is a copy and
     * every sum a pass through the same memory, so a round costs all the bytes the ranks move
     * (beta) and combine (gamma) in it, not the busiest link's; routes have no hops. */
    bool shared;
} gsp_cost_t;

/** Defaults: alpha 1 us, beta 1e-10 s/B (10 GB/s links), gamma 2e-10 s/B (5 GB/s sums),
 * no segments, hop 1e-7 s (a router's cut-through latency), overhead 2e-7 s per message. */
gsp_cost_t gsp_cost_default(void);
/** The model of ranks that share one node's memory (shared = true): alpha 5e-7 s, beta
 * 1.2e-10 s/B, gamma 6e-11 s/B, hop 0, overhead 2e-7 s — measured with Open MPI's
 * shared-memory transport on a 2-core machine (docs/runtime.md). The MPI runtime starts from
 * it when every rank of the communicator shares one node. */
gsp_cost_t gsp_cost_shared_memory(void);
/** Parses a non-negative finite number of seconds (e.g. "1e-6") into *out; GSP_ERR_PARSE with
 * name in the message otherwise. */
gsp_err_t gsp_cost_parse(const char *name, const char *text, double *out);
/** Parses beta into c: one number of seconds per byte, or a table by message size,
 * "0:3e-10,5776:1e-10,65472:1.1e-10" (sizes in bytes, increasing, the first 0; at most
 * GSP_COST_MAX_BETA entries) — c->beta becomes the last entry's. GSP_ERR_PARSE otherwise. */
gsp_err_t gsp_cost_parse_beta(const char *name, const char *text, gsp_cost_t *c);
/** Seconds per byte for a message of `bytes` bytes under c. */
double gsp_cost_beta(const gsp_cost_t *c, double bytes);

typedef struct {
    int64_t rounds, transfers;
    double busiest_bytes; /* bytes on the busiest link over the whole collective */
    double seconds;       /* predicted time */
} gsp_rt_pred_t;

/** Predicts a's time for `bytes` with MPI's meaning (allgather: one rank's block; reduce-scatter:
 * one rank's result block; the others: the vector) on `nodes` ranks. Rounds are synchronous
 * in the model: sum over rounds of alpha + beta * (bytes on the busiest arc) + gamma * (bytes
 * combined at the busiest node) + overhead * (messages of the busiest sender or receiver - 1), plus the
 * local reduction of `gather`; pipelined phases as gsp_rt_segments says. A routed round's
 * messages wait for their route's latency, then share the sender's link: per link, nearest
 * first, T = max(T, hop * (h - 1)) + (messages going h links) * beta * block; the round costs
 * alpha + the largest T, plus the overhead and combining terms. */
void gsp_rt_predict(const gsp_rt_algo_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c, gsp_rt_pred_t *p);
/** Index of the algorithm with the least predicted time (the first on ties). */
int gsp_rt_choose(const gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c);
/** Segments a pipelined phase runs in for blocks of blk bytes: about blk / c->segment when the
 * segment is set, else segments whose transfer takes about alpha (w / alpha, w the time of
 * the phase's worst round on whole blocks); between 1 and GSP_RT_MAX_SEGMENTS. 1 for other
 * phases. A pipelined phase of R rounds is predicted at alpha + w + (R - 1)(alpha + w / S). */
int64_t gsp_rt_segments(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c);
#define GSP_RT_MAX_SEGMENTS 256
/** Lanes a non-pipelined phase is cut into at most when segments are set (the executor and the
 * predictions share it). */
#define GSP_RT_MAX_LANES 16

/** The algorithm called name, or -1. */
int gsp_rt_find(const gsp_rt_algos_t *a, const char *name);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
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

/** Where a phase's transfers come from. Only EXPLICIT holds every rank's transfers; the
 * others give each rank its own program directly (gsp_rt_program), in time and memory linear
 * in what that rank sends and receives (plus O(N) for the compact form, shared by all roots). */
typedef enum {
    GSP_RT_SRC_EXPLICIT = 0, /* sched: explicit rounds (graphs without a group; small routed phases) */
    GSP_RT_SRC_SYMMETRIC,    /* sched: the compact symmetric form of a Cayley graph's allgather,
                              * first deliveries only; reversed = a reduce-scatter */
    GSP_RT_SRC_TREE,         /* a tree of a Cayley graph rooted at the identity, translated to the
                              * root by right multiplication (an automorphism); reversed = a reduce */
    GSP_RT_SRC_RULE          /* a closed form: each rank's transfers computed by a rule */
} gsp_rt_source_t;

struct gsp_cost;
struct gsp_rt_phase;

/** One rank's transfers of a phase before they are grouped into messages. */
typedef struct {
    int64_t round, peer, block;
} gsp_rt_xfer_t;

typedef struct gsp_rt_xfers {
    gsp_rt_xfer_t *send, *recv;
    int64_t nsend, nrecv, capsend, caprecv;
} gsp_rt_xfers_t;

/** Appends a send (recv false) or a receive to x [in,out]; transfers are appended in round order
 * and, within a round, in the order the schedule gives them. */
GSP_API gsp_err_t gsp_rt_xfers_add(gsp_rt_xfers_t *x, bool recv, int64_t round, int64_t peer, int64_t block);
/** Releases x's arrays; a zeroed set is a no-op. */
GSP_API void gsp_rt_xfers_destroy(gsp_rt_xfers_t *x);
/** A closed-form phase's rule: appends rank's transfers (sends and receives in round order) to
 * out. t [in] is the topology the phase was built on. */
typedef gsp_err_t (*gsp_rt_rule_fn)(const struct gsp_rt_phase *ph, const gsp_topo_t *t, int64_t rank, struct gsp_rt_xfers *out);

typedef struct gsp_rt_phase {
    gsp_rt_kind_t kind;
    gsp_rt_layout_t layout;
    gsp_rt_source_t source;
    bool reversed;      /* SYMMETRIC, TREE: run backwards in time and direction */
    int64_t nrounds;    /* rounds of the phase */
    int64_t ntransfers; /* transfers of all ranks together (block moves) */
    gsp_sched_t sched;  /* EXPLICIT: no duplicate deliveries, transfer (u, v, x) moves block x;
                         * SYMMETRIC: the entries of the allgather's first deliveries */
    /* TREE: the tree of the identity (node 0): tparent[v] (-1 at 0) and the round v receives in
     * (forward), children of v at tchild[tchild_off[v] .. tchild_off[v + 1]); troot: the root
     * it is translated to (node v plays the tree's node v * troot^-1). */
    int64_t *tparent, *tround, *tchild_off, *tchild;
    int64_t troot;
    /* RULE: the rule and its parameters. */
    gsp_rt_rule_fn rule;
    int64_t param[8];
    int64_t *maxblk;    /* per round: most blocks on one arc */
    int64_t *maxred;    /* per round: most blocks combined at one node (reduce phases) */
    int64_t *maxmsg;    /* per round: most messages one node sends, or receives */
    int64_t *moved;     /* per round: blocks moved by all nodes together (one memory's load) */
    int64_t busiest;    /* most blocks one arc carries over the whole phase */
    int64_t nblocks;    /* SPLIT: the vector is cut into this many blocks (0: one per node) */
    int64_t parts;      /* RANK, SPLIT: each block cut again into this many parts (0 or 1: none);
                         * block x * parts + q is part q of block x */
    bool pipelined;     /* run in many segments, each flowing on as soon as it arrives */
    /* REDUCE: every node keeps combining what it receives into what it sends next, and every
     * node ends with the whole (recursive doubling); its sends are copied out, as the buffer
     * changes while they fly. */
    bool exchange;
    /* Routed: the transfers join ranks that need not be neighbours (the network routes them,
     * up to `hops` links). link_hist[(r * nlinks + a) * (hops + 1) + h]: in round r, messages
     * going h links whose route may start on a sender's link a — the load a dimension-order
     * router puts on its busiest links; maxblk counts the busiest link's messages. */
    bool routed;
    int64_t hops, nlinks;
    int64_t *link_hist;
    /* Pipelined: the levels a segment crosses, when the rounds number more than that (a
     * fabric's trees: a round per level and tree); 0: nrounds. */
    int64_t levels;
    /* Pipelined, RULE: the lanes a message between rank and peer in round `round` keeps in flight
     * on its arc where that differs from the phase's window (NULL, or 0 returned: the phase's);
     * recv: rank receives it. A fabric broadcast's trees give their edges across its waist 2
     * (rt_fabric.c), from twin: per tree edge, its window (0: the phase's). */
    int (*window_of)(const struct gsp_rt_phase *ph, int64_t rank, int64_t round, int64_t peer, bool recv);
    int64_t *twin;
    /* Pipelined, RULE: the turn (GSP_RT_TURN_*) rank's send to peer in round `round` takes within
     * its lane, where the phase orders them (NULL: none does). A fabric reduce-scatter's in-trees
     * two levels deep (rt_fabric.c): a leaf's sends that its receiver passes on go first, its
     * sends straight into a tree's root after them. */
    int (*turn_of)(const struct gsp_rt_phase *ph, int64_t rank, int64_t round, int64_t peer);
    /* Pipelined, a fabric broadcast with a waist (window_of): its trees cross the waist on more
     * than one edge each (its cut arcs all links to switches: a chain of boxes), so a second lane
     * in flight delays every crossing: the runtime takes the wider windows only where a lane
     * lasts 1 to 4 latencies (mpi_engine.c). */
    bool waist_chain;
    /* Pipelined, a fabric broadcast's few trees each at least as wide as the fabric's slowest
     * link (fabric-streams: rt_fabric_streams.c): the runtime may stream every tree edge in
     * chunks, a relay passing each chunk on as it arrives (mpi_engine.c), and the cost model
     * predicts it so (rt_cost.c). */
    bool streams;
} gsp_rt_phase_t;

/** A send's turn within its lane (gsp_rt_phase_t: turn_of; gsp_rt_prog_t: turn): any time
 * (the default); FEEDS: one the receiver passes on; ENDS: issued only once every FEEDS send of
 * this rank in the same lane has completed. */
#define GSP_RT_TURN_ANY 0
#define GSP_RT_TURN_FEEDS 1
#define GSP_RT_TURN_ENDS 2

/** Phases of a runtime algorithm at most. */
#define GSP_RT_MAX_PHASES 4

/** A runtime algorithm: one to GSP_RT_MAX_PHASES phases run back to back on one buffer. */
typedef struct {
    char name[32];          /* "packet", "flood", "rs-ag", "gather", "tree", "flat", "dims", "multitree", ... */
    char built_from[128];   /* the construction methods of its schedules */
    gsp_collective_t coll;
    int64_t root;           /* broadcast and reduce, else -1 */
    bool local_reduce;      /* gather: every rank reduces the N gathered vectors in rank order */
    /* Not built yet: the phases hold a lower bound of the statistics (the fewest rounds any
     * schedule of this kind can have, one block per round), so predictions are lower bounds;
     * gsp_rt_realize builds it when the cost model would choose it. */
    bool pending;
    int nphases;
    gsp_rt_phase_t phase[GSP_RT_MAX_PHASES];
} gsp_rt_algo_t;

typedef struct {
    gsp_rt_algo_t *v;
    int n;
    /* Borrowed for the life of the set (gsp_rt_realize builds from them). */
    const gsp_topo_t *topo;
    const gsp_distances_t *dist;
    char method[64];
    /* The p = 1 allgather's first deliveries, planned once for every algorithm built on it. */
    gsp_sched_t ag1;
    bool have_ag1, tried_ag1;
    char ag1_from[32];
} gsp_rt_algos_t;

/** One message of a rank's program: in round `round`, to or from `peer`, blocks
 * items[first .. first + n). need (sends): receives of rounds <= need must be complete first
 * (-1: none). Pipelined phases (one block a message): a receive's prev/next receive of the same
 * block; a send's prev: the last receive of its block before it (-1: none). */
typedef struct {
    int64_t peer, round, need, first, n, prev, next;
} gsp_rt_msg_t;

/** One rank's program for one phase: its sends and receives, each in round order; within a
 * round one message per peer, in the order the schedule names them. */
typedef struct {
    gsp_rt_kind_t kind;
    gsp_rt_layout_t layout;
    bool pipelined;
    bool exchange; /* the phase's exchange flag: sends are copied, not read from the buffer */
    int64_t nrounds;
    gsp_rt_msg_t *send, *recv;
    int64_t nsend, nrecv;
    int64_t *items;
    int64_t nitems;
    /* Pipelined: per send, the lanes it keeps in flight on its arc where the phase says (0: the
     * engine's window); NULL when none does. wmax: the most any of this rank's sends or
     * receives keeps (0: none says), for how far ahead receives are posted. */
    unsigned char *win;
    int wmax;
    /* Pipelined: per send, its turn within its lane (GSP_RT_TURN_*); NULL when the phase orders
     * none. nfeeds: the sends whose turn is GSP_RT_TURN_FEEDS. turn_lanes: the turns are taken
     * only in a run of at least that many lanes (the phase's levels): in fewer, holding a lane's
     * ENDS sends until its FEEDS sends complete puts the two one after the other on every level,
     * where more lanes overlap them (mi250:2's 1 MiB reduce-scatter in 6 lanes, 9 levels: 18.1 us
     * without turns, 26.1 with). */
    unsigned char *turn;
    int64_t nfeeds;
    int64_t turn_lanes;
} gsp_rt_prog_t;

/** Rank's program [out] for phase k of a [in] (built, not pending) on t [in], the topology a
 * was built on. Computed from the phase's compact form: O(what rank moves) plus O(N) scratch.
 * Release with gsp_rt_prog_destroy. */
GSP_API gsp_err_t gsp_rt_program(const gsp_rt_algo_t *a, int k, const gsp_topo_t *t, int64_t rank, gsp_rt_prog_t *out);
/** Releases a program; a zeroed one is a no-op. */
GSP_API void gsp_rt_prog_destroy(gsp_rt_prog_t *p);
/** Assembles every rank's program of phase k into one explicit schedule [out] (collective c:
 * allgather for store phases, reduce-scatter for reduce phases) — what tests verify. Checks that
 * every send has its matching receive at the peer (same round, same blocks, same order);
 * GSP_ERR_INTERNAL naming the first mismatch otherwise. O(N) programs: small instances. */
GSP_API gsp_err_t gsp_rt_assemble(const gsp_rt_algo_t *a, int k, const gsp_topo_t *t, gsp_sched_t *out);

/** Builds every runtime algorithm for collective c on t [in, borrowed for the life of out] with
 * distances d [in, borrowed likewise] (root for broadcast and reduce). method [in] (NULL or
 * "auto") names the allgather construction the bandwidth algorithms use, or a broadcast method
 * for the trees. Cheap algorithms (compact forms: O(N) each) are built; those whose schedules
 * cost more (the p = 1 packet schedules, arborescences, explicit forms) are left pending with
 * lower-bound statistics (gsp_rt_realize). Methods that do not apply are left out;
 * GSP_ERR_NOTAPPLIC when none applies. out [out]: release with gsp_rt_algos_destroy. */
GSP_API gsp_err_t gsp_rt_algos(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t root, const char *method,
                       gsp_rt_algos_t *out);
/** Releases every algorithm and its schedules; a zeroed set is a no-op. */
GSP_API void gsp_rt_algos_destroy(gsp_rt_algos_t *a);
/** The runtime algorithm for collective c (allgather, reduce-scatter, allreduce, broadcast from
 * rank root) on fabric [in] (link capacities, switches: gossip/fabric.h), whose ranks are its
 * compute nodes in vertex order: `fabric-trees`, the spanning trees that reach the throughput
 * optimum (gsp_fabric_trees), pipelined. Its phases and programs are on ranks [in, borrowed for
 * the life of out]: the complete graph on the compute nodes (every pair of ranks can talk
 * through the fabric), with distances d [in, borrowed likewise]. Errors: GSP_ERR_INVAL (ranks
 * has another number of nodes), GSP_ERR_NOTAPPLIC (reduce, or what gsp_fabric_trees refuses),
 * GSP_ERR_RANGE (root), GSP_ERR_TOOBIG (more than 2^20 rounds), GSP_ERR_NOMEM. */
GSP_API gsp_err_t gsp_rt_fabric_algos(const gsp_topo_t *fabric, const gsp_topo_t *ranks, const gsp_distances_t *d, gsp_collective_t c,
                                      int64_t root, gsp_rt_algos_t *out);
/** Builds pending algorithm i of a [in,out]. When its schedule cannot be built (the method does
 * not apply) the algorithm is removed from a and *removed [out] is set; indices after i shift.
 * GSP_OK when already built. */
GSP_API gsp_err_t gsp_rt_realize(gsp_rt_algos_t *a, int i, bool *removed);
/** The cost model's choice for `bytes` on `nodes` ranks: predicts every algorithm, and builds
 * pending ones only while their lower bound beats the best built one. *idx [out]; skip [in,
 * may be NULL]: algorithms to leave out (skip(a->v[i], ctx) true). Every rank computes the same. */
GSP_API gsp_err_t gsp_rt_choose_build(gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const struct gsp_cost *c,
                              bool (*skip)(const gsp_rt_algo_t *, void *), void *ctx, int *idx);
/** What the registry says of one runtime algorithm (for listings and docs). collectives: bit
 * (1 << c) for each collective c it serves; where, rounds, what: one line each. */
typedef struct {
    const char *name;
    unsigned collectives;
    const char *where, *rounds, *what;
} gsp_rt_info_t;

/** Number of runtime algorithms in the registry. */
GSP_API int gsp_rt_registry_size(void);
/** Entry i of the registry [out]; false when i is out of range. */
GSP_API bool gsp_rt_registry_entry(int i, gsp_rt_info_t *out);

/** Arc-disjoint spanning out-trees of t rooted at root, as many as t allows — the fewest
 * arc-disjoint paths from root to any node (Edmonds' branching theorem), at most kmax (0: no
 * cap). *k [out]: their number; parent [out]: k * n entries, parent[i * n + v] the parent of v
 * in tree i (-1 at the root); depth [out] (may be NULL): likewise each node's depth. Built by
 * Lovász's constructive proof, shallowest arcs first; one max flow per arc tried, about
 * O(k^2 n (k n + m)) in all. Release both with gsp_free. */
GSP_API gsp_err_t gsp_arborescences(const gsp_topo_t *t, int64_t root, int64_t kmax, int64_t *k, int64_t **parent, int64_t **depth);

/** The cost model: alpha seconds per message (its latency to a neighbour, per round on the
 * critical path), beta seconds per byte on one link, gamma seconds per byte combined; hop
 * seconds per further link a routed message crosses (cut-through: the data is not stored at
 * each hop), overhead seconds per further message one node sends or receives in a round (the
 * CPU cost of a message, which latencies do not hide). */
#define GSP_COST_MAX_BETA 16

typedef struct gsp_cost {
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
    /* alpha by message size (protocols differ in latency: a rendezvous pays a round trip
     * before the bytes move): a message of b bytes pays alpha_val[i] for the last i with
     * alpha_from[i] <= b; nalpha 0: alpha alone. With a table, alpha is its first entry. */
    int nalpha;
    int64_t alpha_from[GSP_COST_MAX_BETA];
    double alpha_val[GSP_COST_MAX_BETA];
} gsp_cost_t;

/** Defaults: alpha 1 us, beta 1e-10 s/B (10 GB/s links), gamma 2e-10 s/B (5 GB/s sums),
 * no segments, hop 1e-7 s (a router's cut-through latency), overhead 2e-7 s per message. */
GSP_API gsp_cost_t gsp_cost_default(void);
/** The model of ranks that share one node's memory (shared = true): alpha 5e-7 s, beta
 * 1.2e-10 s/B, gamma 6e-11 s/B, hop 0, overhead 2e-7 s — measured with Open MPI's
 * shared-memory transport on a 2-core machine (docs/runtime.md). The MPI runtime starts from
 * it when every rank of the communicator shares one node. */
GSP_API gsp_cost_t gsp_cost_shared_memory(void);
/** Parses a non-negative finite number of seconds (e.g. "1e-6") into *out; GSP_ERR_PARSE with
 * name in the message otherwise. */
GSP_API gsp_err_t gsp_cost_parse(const char *name, const char *text, double *out);
/** Parses beta into c: one number of seconds per byte, or a table by message size,
 * "0:3e-10,5776:1e-10,65472:1.1e-10" (sizes in bytes, increasing, the first 0; at most
 * GSP_COST_MAX_BETA entries) — c->beta becomes the last entry's. GSP_ERR_PARSE otherwise. */
GSP_API gsp_err_t gsp_cost_parse_beta(const char *name, const char *text, gsp_cost_t *c);
/** Seconds per byte for a message of `bytes` bytes under c. */
GSP_API double gsp_cost_beta(const gsp_cost_t *c, double bytes);
/** Parses alpha into c: one number of seconds per message, or a table by message size as for
 * beta, "0:2e-6,15424:3.5e-6,65472:1.16e-5" — c->alpha becomes the first entry's (the
 * latency of the smallest messages). GSP_ERR_PARSE otherwise. */
GSP_API gsp_err_t gsp_cost_parse_alpha(const char *name, const char *text, gsp_cost_t *c);
/** Seconds of latency for a message of `bytes` bytes under c. */
GSP_API double gsp_cost_alpha(const gsp_cost_t *c, double bytes);
/** The band of message sizes whose bytes c moves cheapest, where it is a bounded one (a table
 * whose cheapest entry is not its last: SimGrid SMPI's defaults, 5776 to 9375 bytes): true and
 * *lo, *hi (messages of lo .. hi - 1 bytes) and *beta (its seconds per byte); false where the
 * largest messages are cheapest or the band holds fewer than two sizes. */
GSP_API bool gsp_cost_band(const gsp_cost_t *c, int64_t *lo, int64_t *hi, double *beta);

/** Streams of chunks of that band (the MPI runtime's, and the cost model's prediction of them):
 * a message is cut into at most GSP_COST_CHUNK_MAX chunks, and only where the band moves a byte
 * at least GSP_COST_CHUNK_GAIN times cheaper than the message's own size does. */
#define GSP_COST_CHUNK_MAX 64
#define GSP_COST_CHUNK_GAIN 1.05

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
GSP_API void gsp_rt_predict(const gsp_rt_algo_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c, gsp_rt_pred_t *p);
/** Index of the algorithm with the least predicted time (the first on ties); pending algorithms
 * are predicted by their lower bound. */
GSP_API int gsp_rt_choose(const gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c);
/** Segments a pipelined phase runs in for blocks of blk bytes: about blk / c->segment when the
 * segment is set; on a fabric's trees the count whose prediction is least when they are two or
 * three levels deep or all of one share, 1 when one level deep, else 2; else the count (at most GSP_RT_MAX_SEGMENTS and blk)
 * whose prediction is least; 1 for other phases. A pipelined phase of R rounds (levels) in
 * S segments is predicted at (R - 1)(alpha + min(W, S) w / S) + max(1, S / W) alpha + w: w the
 * time of the phase's worst round on whole blocks, alpha and beta a segment's, W the segments
 * of one arc in flight at once (GSP_RT_PIPE_WINDOW; 1 on a fabric's trees). */
GSP_API int64_t gsp_rt_segments(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c);
#define GSP_RT_MAX_SEGMENTS 256
/** Whether a streamed broadcast phase (gsp_rt_phase_t: streams) on blocks of blk bytes streams
 * under cost model c, and then each tree edge's chunks in flight (*window: its tree's rate, the
 * phase's algbw over its blocks taken as GB/s, times the latency of a chunk of the cheapest band,
 * in such chunks, at least GSP_RT_STREAM_WINDOW_MIN) and the band's largest chunk (*chunk,
 * bytes): where the band exists (gsp_cost_band), the window is that large and a block holds
 * GSP_RT_STREAM_BLOCK_WINDOWS windows of chunks. The MPI runtime streams it so and the
 * predictions (gsp_rt_predict) charge it the band's rate and a chunk's latency per level. */
GSP_API bool gsp_rt_stream_window(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c, int64_t *window, int64_t *chunk);
#define GSP_RT_STREAM_WINDOW_MIN 8
#define GSP_RT_STREAM_BLOCK_WINDOWS 2
/** Segments of one arc in flight at once in a pipelined phase (the executor and the predictions
 * share it): each waits for the one GSP_RT_PIPE_WINDOW before it to arrive. */
#define GSP_RT_PIPE_WINDOW 4
/** Segments in flight on a fabric broadcast's edge across its waist, the arcs of its binding
 * cuts where every tree crosses them once (the others keep one: rt_fabric.c). */
#define GSP_RT_WIDE_WINDOW 2
/** Lanes a non-pipelined phase is cut into at most (the executor and the predictions share it). */
#define GSP_RT_MAX_LANES 16
/** Lanes the cost model chooses at most (gsp_rt_lanes): GSP_RT_MAX_LANES. */
#define GSP_RT_AUTO_LANES 16
/** Lanes a non-pipelined phase runs in for blocks of blk bytes: each lane is the phase's
 * schedule on one segment of every block, all lanes at once, so a round's message of m bytes
 * on an arc becomes k messages of m / k. With c->segment set: ceil(blk / segment), at most
 * GSP_RT_MAX_LANES. Otherwise, when c has alpha by size, the k in 1, 2, 4, ..., GSP_RT_AUTO_LANES
 * that minimises the phase's predicted time, sum over rounds of alpha(m/k) + beta(m/k) m +
 * overhead (k maxmsg - 1) (the first on ties): smaller messages may take a cheaper protocol.
 * SimGrid's default model, like eager against rendezvous, charges a 64 KiB message 11.6 link
 * latencies and an 8 KiB one 2.2, at a better bandwidth factor: measured one 64 KiB transfer
 * to a neighbour 18.6 us, as 8 concurrent 8 KiB messages 8.2 us, as the model predicts. Every
 * lane multiplies the messages a rank handles, so the per-message overhead of a calibrated
 * model is what keeps k small where messages cost more than the latency they hide. 1 for
 * pipelined and routed phases, the shared-memory model, and a plain alpha. */
GSP_API int64_t gsp_rt_lanes(const gsp_rt_phase_t *ph, double blk, const gsp_cost_t *c);

/** The algorithm called name, or -1. */
GSP_API int gsp_rt_find(const gsp_rt_algos_t *a, const char *name);

/* ---- tuning files: the cost model measured on a machine (docs/runtime.md, "Calibration") ---- */

/** Where and how a tuning file was measured (empty strings and 0: not recorded). */
typedef struct {
    char host[128];     /* the machine (MPI_Get_processor_name of rank 0) */
    char date[32];      /* UTC, ISO 8601 */
    char mpi[256];      /* the MPI library (first line of MPI_Get_library_version) */
    char topology[128]; /* the spec the ranks were placed on, if any */
    int64_t ranks;
} gsp_cost_origin_t;

/** Writes c [in] as a tuning file at path (JSON: alpha, beta, beta_by_size when c has a table,
 * gamma, hop, overhead, segment when set, shared_memory, and origin [in, may be NULL] as
 * "measured"), as every file gossip writes: "-" is standard output, a device or FIFO is written
 * in place, a regular file atomically (a temporary file renamed over it). GSP_ERR_IO;
 * GSP_ERR_INVAL for a negative or non-finite figure, which no file may hold. */
GSP_API gsp_err_t gsp_cost_save(const char *path, const gsp_cost_t *c, const gsp_cost_origin_t *origin);
/** Reads the tuning file at path into c [in,out]: alpha and beta (or beta_by_size) must be
 * there; gamma, hop, overhead, segment and shared_memory replace c's when present. origin [out,
 * may be NULL]: its "measured" object. A missing or unreadable file is GSP_ERR_IO; malformed
 * JSON, an unknown key or a bad value GSP_ERR_PARSE with one line naming the file and the key;
 * c is unchanged on error. */
GSP_API gsp_err_t gsp_cost_load(const char *path, gsp_cost_t *c, gsp_cost_origin_t *origin);
/** Where the tuning file is: $GOSSIP_TUNING when set ("none": nowhere), else
 * $XDG_CONFIG_HOME/gossip/tuning.json, or ~/.config/gossip/tuning.json when XDG_CONFIG_HOME is
 * unset or not absolute. Writes the path into buf [out, n bytes]; returns 1 when GOSSIP_TUNING
 * names it (it must then exist), 0 for the default location when a file is there, -1 for none. */
GSP_API int gsp_cost_tuning_path(char *buf, size_t n);
/** Why the cost model chose: one line per candidate of a (prefix, '*' on `chosen`, the name,
 * the predicted time for `bytes` on `nodes` ranks under c, the rounds, and what it is built from
 * or why it was left out), to f. Pending candidates are marked '>=' (a lower bound); skip [may be
 * NULL] marks the candidates the choice left out. What GOSSIP_VERBOSE=2 prints. */
GSP_API void gsp_rt_explain(FILE *f, const char *prefix, const gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c,
                            int chosen, bool (*skip)(const gsp_rt_algo_t *, void *), void *ctx);

/** The regimes gsp_cost_fit found: sizes from[r]..to[r] where a message costs about
 * latency[r] + beta[r] * bytes (a protocol of the network: eager, rendezvous, ...). */
#define GSP_COST_FIT_MAX 64
#define GSP_COST_FIT_TOLERANCE 0.1
/** Neighbouring entries of gsp_cost_fit's tables (latency and per-byte cost by size) closer than
 * this are one entry. */
#define GSP_COST_ALPHA_TOLERANCE 0.01
typedef struct {
    int nregimes;
    int64_t from[GSP_COST_FIT_MAX], to[GSP_COST_FIT_MAX];
    double beta[GSP_COST_FIT_MAX], latency[GSP_COST_FIT_MAX];
} gsp_cost_fit_t;

/** Fits alpha and beta by message size to the times of one message of size[i] bytes
 * (seconds[i], a half round trip; noise[i] [may be NULL]: its uncertainty), sizes increasing
 * from 0, into c [in,out]: alpha = seconds[0]; beta = the slope of each regime, a run of at
 * least two consecutive segments whose slopes (seconds per further byte) agree within
 * GSP_COST_FIT_TOLERANCE (a lone segment may straddle a change of protocol, and one whose time
 * difference is below 10 times the noise is not counted), neighbouring regimes within
 * GSP_COST_ALPHA_TOLERANCE merged, each from its first size (the first from 0), at most GSP_COST_MAX_BETA; a
 * single regime (or none: the overall slope) gives a plain beta. Latency by size: per entry of
 * the beta table, the median of t - beta s over its sizes (the first entry: alpha); when one
 * differs from alpha by more than GSP_COST_ALPHA_TOLERANCE (a rendezvous' extra round trip, or a
 * network's latency bands), c gets that table (neighbours within GSP_COST_ALPHA_TOLERANCE merged),
 * else a plain alpha. fit [out, may be NULL]: the
 * regimes. */
GSP_API gsp_err_t gsp_cost_fit(int n, const int64_t *size, const double *seconds, const double *noise, gsp_cost_t *c, gsp_cost_fit_t *fit);

/** Measures one message of `bytes` bytes for gsp_cost_refine: seconds (half a round trip);
 * *noise [out]: its uncertainty (0 when exact). */
typedef double (*gsp_cost_probe_fn)(void *arg, int64_t bytes, double *noise);

/** Moves each size where c's alpha or beta table (from gsp_cost_fit on the same size, seconds,
 * noise) changes entry to the first byte of the new regime: gsp_cost_fit can only put it at a
 * measured size, and a quarter octave of messages then costs what the other regime charges
 * (SimGrid SMPI's 5776..9375-byte band, 1.09 of the bandwidth, came out as 5120..10239, and the
 * runtime's lanes chose segments in the part that is not). fit: the regimes gsp_cost_fit
 * found. Between the last measured size on the old regime's line and the first on the new one
 * it bisects, measuring with probe: a size belongs to the regime whose line (its latency + its
 * beta * size) is nearer its time. A change whose two lines
 * differ by less than 10 times the noise there is left where it is. Returns the sizes probed;
 * *moved [out, may be NULL]: the changes moved. */
GSP_API int gsp_cost_refine(gsp_cost_t *c, const gsp_cost_fit_t *fit, int n, const int64_t *size, const double *seconds, const double *noise, gsp_cost_probe_fn probe,
                            void *arg, int *moved);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sched.h — schedules (the round model and file format of docs/schedule-format.md), the exact
 * simulator/verifier, and the JSON reader and streaming writer. */
#ifndef GOSSIP_SCHED_H
#define GOSSIP_SCHED_H

#include "gossip/analysis.h"
#include "gossip/core.h"
#include "gossip/model.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One transfer: in its round, u sends to v along arc (u, v) the packet of origin x
 * (broadcast, allgather), its register x (allreduce), or block x (reduce-scatter and the block
 * form of allreduce: its partial sum of block x in a reduce round, the finished block after). */
typedef struct {
    int64_t u, v, x;
} gsp_send_t;

/** One term c * reg[r] of a combine. */
typedef struct {
    int64_t r;
    double c;
} gsp_term_t;

/** A combine at node v: appends register sum of terms[first .. first+count-1]. */
typedef struct {
    int64_t v;
    int64_t first, count;
} gsp_combine_t;

/** Compact symmetric entry: in round t, for every origin h, node g*h sends h's packet along
 * generator i (to s_i*g*h). */
typedef struct {
    int64_t t;
    int64_t i;
    int64_t g;
} gsp_symsend_t;

typedef struct {
    gsp_collective_t coll;
    char *topology;   /* spec string */
    int64_t nodes;
    gsp_model_t model;
    int64_t root;     /* broadcast only, else -1 */
    char *method;
    int64_t nrounds;
    /* Explicit form: sends of round t are sends[send_off[t] .. send_off[t+1]). */
    gsp_vec_t send_off;    /* nrounds + 1 entries once finished */
    gsp_send_t *sends;
    int64_t nsends, cap_sends;
    /* Allreduce: combines of round t are combines[comb_off[t] .. comb_off[t+1]); the final
     * combines are those after comb_off[nrounds]. */
    gsp_vec_t comb_off;
    gsp_combine_t *combines;
    int64_t ncombines, cap_combines;
    gsp_term_t *terms;
    int64_t nterms, cap_terms;
    int64_t *result;       /* nodes entries, or NULL */
    /* Block form: reduce-scatter (every round a reduce round: reduce_rounds = nrounds) and
     * allreduce with blocks = true (rounds < reduce_rounds reduce, later rounds gather). The
     * file says "form": "blocks" and "reduce_rounds" for the allreduce. */
    bool blocks;
    int64_t reduce_rounds;
    /* Symmetric form (Cayley graphs): used instead of the explicit rounds when symmetric. */
    bool symmetric;
    gsp_symsend_t *sym;
    int64_t nsym, cap_sym;
    /* Borrowed, may be NULL: the topology's node names (host names of an edge-list file),
     * written as "names" so that a reader of the file can map indices back to hosts. */
    const char *const *names;
    /* The graph of a topology read from a file (a spec with file:PATH), written as "graph" so
     * that the schedule can be checked where the file is not (docs/schedule-format.md). For a
     * writer: borrowed, the planned-on topology (ignored unless the spec names a file). After
     * gsp_sched_load/read: owned (graph_owned), built from the file's "graph" object and already
     * checked against its hash; NULL when the file has none (the spec alone names the graph). */
    gsp_topo_t *graph;
    bool graph_owned;
    /* Fabrics (docs/fabrics.md, "The round form"). chunks > 1: each origin's data is `chunks`
     * packets, packet x = origin * chunks + chunk (file key "chunks"). cap_factor > 0: arc a
     * carries at most cap_factor * cap(a) packets a round, cap the fabric's integer capacities,
     * in place of the model's packets (file key model.capacity). Switches start with no packet
     * and need not end with any. 0 (both): the round model as before. */
    int64_t chunks, cap_factor;
} gsp_sched_t;

/** Starts an empty schedule [out] in caller storage. root is ignored unless broadcast. */
GSP_API gsp_err_t gsp_sched_init(gsp_sched_t *s, gsp_collective_t coll, const char *topology,
                         int64_t nodes, const gsp_model_t *model, int64_t root,
                         const char *method);
/** Releases the schedule's arrays; a zeroed schedule is a no-op. */
GSP_API void gsp_sched_destroy(gsp_sched_t *s);
/** Opens the next round (explicit form). */
GSP_API gsp_err_t gsp_sched_round(gsp_sched_t *s);
/** Appends a transfer to the current round. */
GSP_API gsp_err_t gsp_sched_send(gsp_sched_t *s, int64_t u, int64_t v, int64_t x);
/** Appends a combine at v to the current round (or to "final" after gsp_sched_final). */
GSP_API gsp_err_t gsp_sched_combine(gsp_sched_t *s, int64_t v, const gsp_term_t *terms, int64_t n);
/** Closes the rounds; combines added afterwards are the "final" ones. */
GSP_API gsp_err_t gsp_sched_final(gsp_sched_t *s);
/** Sets the result register of every node (allreduce) [in, copied]. */
GSP_API gsp_err_t gsp_sched_set_result(gsp_sched_t *s, const int64_t *result);
/** Appends a symmetric entry and marks the schedule symmetric. */
GSP_API gsp_err_t gsp_sched_sym(gsp_sched_t *s, int64_t t, int64_t i, int64_t g);
/** Finishes building: closes the last round, sorts the sends of every dissemination round
 * (allreduce sends keep their order: it numbers the registers) and the symmetric entries. */
GSP_API gsp_err_t gsp_sched_finish(gsp_sched_t *s);
/** Expands a symmetric schedule on t [in] into explicit rounds in *out [out]. */
GSP_API gsp_err_t gsp_sched_expand(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out);
/** The allgather (or broadcast) s [in] on t [in] without duplicate deliveries: every node keeps
 * only the first delivery of each packet (the first in the round's list), so every packet
 * travels on a spanning tree. Symmetric schedules are expanded. out [out] is explicit. */
GSP_API gsp_err_t gsp_sched_first_deliveries(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out);
/** Reverses an allgather s [in] on an undirected t [in] in time and direction: the first
 * delivery (u, v, x) in round r becomes, in round R-1-r, v sending its partial sum of block x
 * to u. Every packet's broadcast tree becomes a reduction tree into its origin, with the same
 * rounds and the same load per arc and round: a reduce-scatter [out]. */
GSP_API gsp_err_t gsp_sched_reverse(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out);
/** Allreduce in block form [out]: the reduce-scatter reversed from allgather s [in] on t [in],
 * then s's first deliveries carrying the finished blocks: 2R rounds, N blocks of the vector,
 * every arc loaded as in s. */
GSP_API gsp_err_t gsp_sched_allreduce_blocks(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *out);
/** Largest N for the exact check of reduce rounds (N^2 bits of contributions per block). */
#define GSP_VERIFY_REDUCE_MAX 8192

/** Number of transfers (for a symmetric schedule: entries times nodes). */
GSP_API int64_t gsp_sched_transfers(const gsp_sched_t *s);

/** Writes the schedule as JSON (format gossip-schedule, version 1) to f. */
GSP_API gsp_err_t gsp_sched_write(const gsp_sched_t *s, FILE *f);
/** Writes the schedule to path: "-" is standard output; a device, a FIFO or a socket (or a
 * symbolic link to one, /dev/stdout) is written in place; a regular file or a new name
 * atomically, through a temporary file in its directory renamed over it at the end (a symbolic
 * link is followed and stays a link): never a half file. A failed write (a full disk, a closed
 * pipe) is GSP_ERR_IO with the path and the system's reason; nothing is renamed then. */
GSP_API gsp_err_t gsp_sched_save(const gsp_sched_t *s, const char *path);
/** Reads a schedule file; path "-" reads standard input. Structural errors (malformed JSON,
 * wrong types, an index out of range) are GSP_ERR_PARSE or GSP_ERR_RANGE with the round, the
 * transfer and the rule named. */
GSP_API gsp_err_t gsp_sched_load(gsp_sched_t *s, const char *path);
/** Reads a schedule from the stream f [in] to its end (name [in] for messages), as
 * gsp_sched_load; GSP_ERR_IO on a read error. */
GSP_API gsp_err_t gsp_sched_read(gsp_sched_t *s, FILE *f, const char *name);

/** Where gsp_sched_topology found the graph, and what it found beside it. */
typedef struct {
    bool embedded;        /* built from the schedule's own graph ("graph" in the file) */
    bool file_read;       /* embedded, and the spec's file(s) could be read here too ... */
    bool file_differs;    /* ... and hold another graph than the embedded one */
    char hash[GSP_TOPO_HASH_LEN];      /* the embedded graph's hash ("" when not embedded) */
    char file_hash[GSP_TOPO_HASH_LEN]; /* the file's graph's hash (when file_read) */
} gsp_sched_graph_t;

/** Builds into t [out] the topology schedule s [in] was planned on: a copy of its embedded
 * graph when it has one (then the spec's file is not needed; when it can be read, it is built
 * too and compared: check->file_differs), else the topology of its spec. An older schedule of a
 * file: spec whose file cannot be opened is GSP_ERR_IO with a message naming the path and what
 * to do. check [out, may be NULL] says which. O(n + m), plus reading the file. */
GSP_API gsp_err_t gsp_sched_topology(const gsp_sched_t *s, gsp_topo_t *t, gsp_sched_graph_t *check);

typedef enum {
    GSP_RULE_NONE = 0,
    GSP_RULE_ARC,        /* (u, v) is not an arc of the topology */
    GSP_RULE_HELD,       /* the sender does not hold the packet or register yet */
    GSP_RULE_PACKETS,    /* more than p transfers on an arc in a round */
    GSP_RULE_PORTS,      /* one-port: a second arc out of or into a node in a round */
    GSP_RULE_DUPLEX,     /* half duplex: both directions of an edge in a round */
    GSP_RULE_PAYLOAD,    /* broadcast: a packet other than the root's */
    GSP_RULE_COMPLETE,   /* a node never gets a packet / a result is not the sum */
    GSP_RULE_REGISTER,   /* a register that does not exist */
    GSP_RULE_SYMMETRIC,  /* a symmetric entry breaks the balanced-sequence conditions */
    GSP_RULE_TWICE       /* reduce: a block's owner counts some node's contribution twice */
} gsp_rule_t;

/** The rule's name as reports print it ("packets", "ports", ...). */
GSP_API const char *gsp_rule_name(gsp_rule_t r);

typedef struct {
    bool ok;
    gsp_rule_t rule;
    int64_t round, transfer; /* where the first violation is (-1 when not in a round) */
    char message[256];
    int64_t rounds, transfers, duplicates;
    int64_t sent_min, sent_max, recv_min, recv_max;
    int64_t peak_arc_load;   /* most transfers on one arc in one round */
    double max_rel_error;    /* allreduce: largest relative error of a result (numeric run) */
    double rel_variance;     /* approximate allreduce: sum (est_i - mean)^2 / sum (x_i - mean)^2 */
    bool exact_forms;        /* allreduce: checked as linear forms over the inputs */
    bool by_expansion;       /* symmetric: also expanded and checked explicitly */
} gsp_report_t;

/** Largest N for which allreduce registers are tracked as exact linear forms. */
#define GSP_VERIFY_FORMS_MAX 2048
/** Largest N for which a symmetric schedule is also expanded and checked explicitly. */
#define GSP_VERIFY_EXPAND_MAX 4096
/** Largest N for explicit allgather verification (N^2 bits of held packets). */
#define GSP_VERIFY_ALLGATHER_MAX 65536

/** Simulates s on t and checks every rule of the model. A wrong schedule is a result, not an
 * error: returns GSP_OK with report->ok = false and the first violation. Errors only for
 * schedules that do not fit t (node count) or sizes above the limits. seed drives the random
 * inputs of the numeric allreduce run. */
GSP_API gsp_err_t gsp_sched_verify(const gsp_sched_t *s, const gsp_topo_t *t, uint64_t seed,
                           gsp_report_t *report);

/** Skip the cross-check of a symmetric schedule by expansion (the O(N d) balanced-sequence
 * check alone is a proof by Lemma 10; the expansion is a second, independent one). */
#define GSP_VERIFY_NO_EXPAND 1u
/** Approximate allreduce (results are estimates of the sum): check every rule but the exact
 * result, and measure the relative variance of the estimates instead. */
#define GSP_VERIFY_APPROX 2u
/** gsp_sched_verify with flags (GSP_VERIFY_*). */
GSP_API gsp_err_t gsp_sched_verify_flags(const gsp_sched_t *s, const gsp_topo_t *t, uint64_t seed,
                                 unsigned flags, gsp_report_t *report);

/** Draws, as SVG, the broadcast tree of the packet of node 0 in a dissemination schedule
 * (explicit or symmetric) on t: every node labelled with the round in which it is reached,
 * arcs coloured by generator (arc index). 2-D abelian Cayley graphs are laid out on their
 * grid centred on node 0; circulants with two jumps on the lattice of relative addresses
 * (the rhombus of the circulant paper); other graphs on a circle (N <= 400). s may be NULL
 * to draw the topology alone. */
GSP_API gsp_err_t gsp_draw_svg(const gsp_sched_t *s, const gsp_topo_t *t, FILE *f);

/** Largest schedule exported to the GPU runtimes' formats. */
#define GSP_EXPORT_MAX 1024

typedef struct {
    int64_t min_bytes, max_bytes; /* MSCCL XML: message sizes the algorithm is chosen for */
    const char *name;             /* algorithm name; NULL = "gossip-<method>-<topology>" */
} gsp_export_opts_t;

/** Writes an allgather schedule (explicit, or symmetric expanded on t [in]) as msccl-tools'
 * algorithm JSON: steps[{rounds, sends: [[chunk, src, dst]]}], input_map, output_map,
 * collective, topology, instance. One chunk per rank; chunk x is rank x's block. A fabric's
 * round form (chunks, capacities or switches; docs/fabrics.md "Exporting to executors"): the
 * compute nodes are the ranks (listed in "ranks"), a route through switches one send, C chunks
 * per rank (chunk r*C + c), a step per round in which routes end. */
GSP_API gsp_err_t gsp_export_msccl_json(const gsp_sched_t *s, const gsp_topo_t *t, const gsp_export_opts_t *o, FILE *f);
/** Writes MSCCL's XML (<algo> with outofplace, minBytes, maxBytes; <gpu>, <tb>, <step>): per
 * rank one threadblock per out-neighbour (sends) and per in-neighbour (receives), a send of a
 * received chunk depending on its receive step. A fabric's round form (allgather,
 * reduce-scatter, allreduce, broadcast): ranks the compute nodes, a route through switches one send
 * between GPUs, C chunks per rank, consecutive chunks moving together one step, a channel per
 * NIC rail between boxes and one inside a box. Beyond the executor's limits (256 steps per
 * threadblock, 32 per channel, 32 channels, 216 per rank): GSP_ERR_TOOBIG naming the limit. */
GSP_API gsp_err_t gsp_export_msccl_xml(const gsp_sched_t *s, const gsp_topo_t *t, const gsp_export_opts_t *o, FILE *f);
/** Reads msccl-tools' algorithm JSON back into an allgather schedule on `topology` [in]
 * (its steps become rounds; p = the largest step "rounds"); path "-" reads standard input. */
GSP_API gsp_err_t gsp_import_msccl_json(gsp_sched_t *s, const char *path, const char *topology);
/** As gsp_import_msccl_json, from the stream f [in] to its end (name [in] for messages). */
GSP_API gsp_err_t gsp_import_msccl_read(gsp_sched_t *s, FILE *f, const char *name, const char *topology);

#ifdef __cplusplus
}
#endif
#endif

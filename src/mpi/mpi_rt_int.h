/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_rt_int.h — the exact runtime's context, buffers and layouts, shared by its files: the
 * context (mpi_ctx.c), the choice and each rank's programs (mpi_choose.c), the execution engine
 * (mpi_engine.c) and the collectives' entry points (mpi_coll.c). */
#ifndef GOSSIP_MPI_RT_INT_H
#define GOSSIP_MPI_RT_INT_H

#include <stdint.h>
#include <string.h>

#include "gossip/mpi.h"
#include "mpi_int.h"

typedef struct {
    char name[32];
    gsp_rt_prog_t prog[GSP_RT_MAX_PHASES];
} progs_t;

typedef struct {
    gsp_rt_algos_t algos;
    progs_t *progs;     /* the algorithms run so far */
    int nprogs;
    int64_t *choice;    /* per size class (log2 of bytes): algorithm index, -1 = not chosen yet */
    bool ready;
} entry_t;

#define SIZE_CLASSES 64

typedef struct {
    gsp_rt_layout_t layout;
    int64_t count, n; /* RANK: count per block; SPLIT: the vector's count over n blocks */
    int lanes, lane;  /* the schedule runs once per lane on a 1/lanes segment of every block */
    int64_t parts;    /* each of the n blocks cut into this many parts: block x * parts + q */
    int small;        /* the phase runs as small (mpi_engine.c): 0 not known yet, 1 yes, 2 no */
    int window;       /* pipelined: lanes in flight on one arc at once (0: the engine's default) */
    bool stagger;     /* odd blocks' lanes shifted by half a lane (stagger_cut) */
    int64_t gate;     /* pipelined, deep in-trees: the trees (a send's level is its round / gate),
                       * whose sends then go in order of level + lane (mpi_engine.c); 0: none */
    bool drain;       /* a store phase of every rank's blocks (an allgather's, an allreduce's):
                       * its last lanes may stream on fast routes too (mpi_engine.c: chunks_init) */
    bool fill;        /* a reduce phase of every rank's blocks on in-trees that take turns: what a
                       * relay passes on may stream on fast routes too (mpi_engine.c: chunks_init) */
    bool narrow;      /* pipelined: the program's wider windows not taken (gsp__mpi_phase_layout) */
    bool deep;        /* pipelined on trees more than GSP__MPI_DEEP_LEVELS deep: a store phase of
                       * every rank's blocks streams every lane on every route (chunks_init) */
    bool cross;       /* a reduce phase of every rank's blocks on deep trees that take turns: on each
                       * arc every lane's FEEDS sends go before any ENDS send, every lane streamed
                       * (cross first) */
    int model_lanes;  /* the lanes before the deep drain's (deep_lanes, mpi_engine.c), which an
                       * allreduce's phases run in when fused (mpi_coll.c); 0: not changed */
    bool uneven;      /* a reduce phase's chunks of two sizes in turn, as a store phase's where the
                       * cut is slow links (mpi_engine.c: uneven_lanes) */
    int wide;         /* a streamed broadcast's wide trees (mpi_engine.c: wide_lanes): each stream's
                       * chunks in flight, every route streamed in uneven chunks, relays cutting
                       * through; 0: not so */
    bool busy_fast;   /* a store phase in uneven_lanes' lanes (three boxes and more, where the box's
                       * links carry most of the bound as well): its lanes from a quarter on stream
                       * on fast routes too (mpi_engine.c: the wide drain) */
} lay_t;

/* Trees deeper than this (rt_int.h: GSP__RT_FILL_LEVELS, which the cost model reads the same) are
 * deep (lay_t: deep). */
#define GSP__MPI_DEEP_LEVELS 3

/* A pipelined phase's segments are at most this many bytes, whatever the cost model says: its
 * messages then stay within MPI's int count (mpi_choose.c counts on it). */
#define GSP__MPI_MAX_SEGMENT ((int64_t)1 << 30)

static inline int64_t base_first(const lay_t *l, int64_t x) {
    if (l->layout == GSP_RT_RANK) return x * l->count;
    if (l->layout == GSP_RT_WHOLE) return 0;
    int64_t q = l->count / l->n, r = l->count % l->n;
    return x * q + (x < r ? x : r);
}

static inline int64_t base_len(const lay_t *l, int64_t x) {
    if (l->layout == GSP_RT_RANK || l->layout == GSP_RT_WHOLE) return l->count;
    int64_t q = l->count / l->n, r = l->count % l->n;
    return q + (x < r);
}

/* A datatype the runtime may treat as plain bytes: no holes, no offset. */
typedef struct {
    MPI_Datatype dt;
    MPI_Aint ext;
    int size;
    bool plain;
} dtinfo_t;

/* A small call served from the cache (mpi_coll.c): what the first such call worked out — the
 * datatype decoded, the algorithm, this rank's programs and the phases' layouts — kept per
 * (collective, datatype, op, count, root) for predefined datatypes and ops only (their handles
 * are constants, never reused for another type). Valid while gen equals the context's, which
 * every change of the choices, programs or cost model advances. */
#define FAST_SLOTS 8

/* A small store phase compiled at its first call to the MPI calls it makes (mpi_engine.c:
 * gsp__mpi_script): each step one MPI_Send, MPI_Recv or MPI_Sendrecv at byte offsets of the
 * buffer, exactly the messages (peers, tags, counts, types) the engine's small path makes. A
 * one-int broadcast costs ~0.16 us in Open MPI on this machine: walking the program, the
 * layout and the staging each call was a quarter of that again. */
#define SCRIPT_STEPS 8

typedef struct {
    int kind;           /* SCRIPT_SEND, SCRIPT_RECV or SCRIPT_SENDRECV */
    int speer, rpeer, tag;
    int scount, rcount; /* elements of the phase's type */
    int64_t soff, roff; /* bytes from the buffer */
} script_step_t;

enum { SCRIPT_SEND, SCRIPT_RECV, SCRIPT_SENDRECV };

typedef struct {
    int nsteps; /* 0: not compiled (the engine runs the phase) */
    script_step_t step[SCRIPT_STEPS];
} script_t;

typedef struct {
    uint64_t gen; /* the context's gen when filled (0: empty) */
    int coll, count, root;
    MPI_Datatype dt;
    MPI_Op op;
    const gsp_rt_algo_t *a;
    const gsp_rt_prog_t *pg;
    dtinfo_t d; /* what the phases move: the reduction's predefined type, or bytes */
    int64_t n;  /* elements of d */
    lay_t l[GSP_RT_MAX_PHASES]; /* the layout of each phase */
    script_t script; /* a one-phase broadcast, compiled (nsteps 0: not) */
} fast_t;

struct gsp_mpi_ctx {
    /* comm is the user's communicator reordered so that rank v runs node v: rank is this
     * process's node. When the topology names its nodes by host (mpi_ctx.c: place), node v may
     * run on another rank of the user's communicator: rank_of[v] is that rank, node_of its
     * inverse, urank this process's rank there (both NULL: rank r runs node r). The user's
     * buffers are laid out by user rank; the entry points translate (mpi_coll.c). */
    MPI_Comm comm;
    int rank, size, urank;
    int *rank_of, *node_of;
    char *placement;      /* one line on how ranks were placed, for GOSSIP_VERBOSE (or NULL) */
    char *perm;           /* one block, for reordering blocks between node and rank order */
    size_t perm_cap;
    gsp_topo_t topo;
    gsp_distances_t dist;
    gsp_cost_t cost;
    char *method;
    char *force[GSP_COLL_REDUCE + 1]; /* forced algorithm per collective, or NULL */
    entry_t fixed[GSP_COLL_REDUCE + 1]; /* allgather, allreduce, reduce-scatter */
    entry_t *rooted[2];                 /* broadcast, reduce: one entry per root */
    /* Reused storage. */
    char *stage;
    size_t stage_cap;
    char *work;
    size_t work_cap;
    MPI_Request *req;
    size_t req_cap;
    size_t *soff;
    size_t soff_cap;
    int64_t *lane;
    size_t lane_cap;
    int *idx;
    size_t idx_cap;
    int64_t *turn; /* pipelined phases' per-lane counts of FEEDS sends, or cross first's arcs (mpi_engine.c) */
    size_t turn_cap;
    int64_t *gate; /* gated pipelined phases' unfinished sends per level + lane (mpi_engine.c) */
    size_t gate_cap;
    const char *last;
    bool communicated; /* the current call has posted a message (no falling back after that) */
    size_t nreq;       /* request slots of the running phase (released on an error) */
    int mpi_err;       /* the MPI error class of the last failed MPI call (0: none) */
    const void *mine;  /* allgather: this rank's block is read from here (the send buffer) */
    /* Reduce phases: the input, when it is not the working buffer. A block (per lane) stays
     * "fresh" — its value still the input's — until its first contribution arrives, which is
     * combined with the input straight into the working buffer: no copy of the whole vector. */
    const void *in;
    unsigned char *fresh;
    size_t fresh_cap;
    /* Small calls served from the cache; gen advances whenever a choice, a program or the cost
     * model changes (the slots hold pointers into the entries). */
    uint64_t gen;
    fast_t fast[FAST_SLOTS];
    int fast_next, fast_last; /* the slot to fill next; the one last hit or filled */
    /* MPI_TAG_UB holds 29 bits (Open MPI, MPICH, SMPI): a message's tag carries 20 bits of its
     * round instead of 6, so the rounds of a phase with many (a fabric's trees) stay apart. */
    bool tag_wide;
    /* A fabric (switches, capacities): its ranks are its compute nodes, and topo is their
     * complete graph (any two talk through the fabric); is_fabric false: no fabric. */
    bool is_fabric;
    gsp_topo_t fabric;
    /* A fabric's routes (mpi_engine.c: chunked streams): width[v] the bottleneck capacity of the
     * widest route from this rank to rank v, width[size + v] from v to this rank (NULL: not yet
     * computed); width[2 size + v] 1 where a link joins the two nodes, no switch between (0
     * otherwise). chunk: the chunked streams' bookkeeping, reused by every call. */
    double *width;
    /* The widest arc leaving the fabric's allgather binding cut (GB/s), with width; 0: none. */
    double cut_widest;
    /* The compute nodes in that cut (its side S), with cut_widest. */
    int64_t cut_compute;
    int64_t *chunk;
    size_t chunk_cap;
};

/* Blocks of the layout (what the programs number). */
static inline int64_t nblk(const lay_t *l) { return l->n * l->parts; }

static inline int64_t whole_first(const lay_t *l, int64_t b) {
    if (l->parts <= 1 || l->layout == GSP_RT_WHOLE) return base_first(l, b);
    int64_t x = b / l->parts, q = b % l->parts;
    return base_first(l, x) + base_len(l, x) * q / l->parts;
}

static inline int64_t whole_len(const lay_t *l, int64_t b) {
    if (l->parts <= 1 || l->layout == GSP_RT_WHOLE) return base_len(l, b);
    int64_t x = b / l->parts, q = b % l->parts, L = base_len(l, x);
    return L * (q + 1) / l->parts - L * q / l->parts;
}

/* Where lane j of a staggered odd block of length L starts: half a lane earlier than an even
 * block's, so its first lane is half a lane and its last one and a half (lanes K: the cut
 * floor(L (2j - 1) / 2K), computed without overflow). Staggered (gsp__mpi_phase_layout: a fabric
 * broadcast's trees, a part each), the messages of odd and even trees that share an arc are half
 * a segment apart: a network that shares a link alike among its messages (SimGrid's max-min, a
 * switch's arbitration) ends equal messages started together together, and then every tree's
 * next segment runs its latency at once while the link idles. mi250:2's 64 MiB broadcast under
 * SimGrid SMPI (factors at 1): box 0's NICs, each with 32 segments of 16 trees in flight, finished
 * them all within 2 ns and idled 2.3 us of every 15.1 (85 %); staggered, 329.6 -> 312.5 us. */
static inline int64_t stagger_cut(const lay_t *l, int64_t L, int j) {
    int64_t K2 = 2 * (int64_t)l->lanes;
    if (j <= 0) return 0;
    if (j >= l->lanes) return L;
    return (L / K2) * (2 * j - 1) + (L % K2) * (2 * j - 1) / K2;
}

/* One lane (the usual case, and every small call) needs no division. */
static inline int64_t blk_first(const lay_t *l, int64_t x) {
    if (l->lanes == 1) return whole_first(l, x);
    if (l->stagger && (x & 1)) return whole_first(l, x) + stagger_cut(l, whole_len(l, x), l->lane);
    return whole_first(l, x) + whole_len(l, x) * l->lane / l->lanes;
}

static inline int64_t blk_len(const lay_t *l, int64_t x) {
    int64_t L = whole_len(l, x);
    if (l->lanes == 1) return L;
    if (l->stagger && (x & 1)) return stagger_cut(l, L, l->lane + 1) - stagger_cut(l, L, l->lane);
    return L * (l->lane + 1) / l->lanes - L * l->lane / l->lanes;
}

static inline void gsp__mpi_dt_info(MPI_Datatype dt, dtinfo_t *d) {
    MPI_Aint lb, tlb, text;
    d->dt = dt;
    MPI_Type_get_extent(dt, &lb, &d->ext);
    MPI_Type_get_true_extent(dt, &tlb, &text);
    MPI_Type_size(dt, &d->size);
    d->plain = lb == 0 && tlb == 0 && text == d->ext && (MPI_Aint)d->size == d->ext;
}

static inline char *at(void *base, int64_t first, const dtinfo_t *d) {
    /* Integer arithmetic: base may be MPI_BOTTOM with absolute displacements in the type. */
    return (char *)((uintptr_t)base + (uintptr_t)(first * (int64_t)d->ext));
}


/* Whether block b of the lane is still the input's value (a reduce phase with a separate
 * input combines it on its first contribution instead of copying the input first). */
static inline bool is_fresh(const gsp_mpi_ctx_t *c, const lay_t *l, int64_t b) {
    return c->in && c->fresh[(size_t)l->lane * (size_t)nblk(l) + (size_t)(l->layout == GSP_RT_WHOLE ? 0 : b)];
}


/* Packs count elements of dt at buf into out, the `bytes` bytes of its type signature. */
gsp_err_t gsp__mpi_pack(gsp_mpi_ctx_t *c, const void *buf, int count, MPI_Datatype dt, void *out, int64_t bytes);
/* Unpacks `bytes` packed bytes at in into count elements of dt at buf. */
gsp_err_t gsp__mpi_unpack(gsp_mpi_ctx_t *c, const void *in, int64_t bytes, void *buf, int count, MPI_Datatype dt);
/* A context with no topology, for running programs made elsewhere (a schedule's plan,
 * mpi_plan.c): comm duplicated with MPI_ERRORS_RETURN, rank r is node r, one lane. */
gsp_err_t gsp__mpi_ctx_bare(MPI_Comm comm, gsp_mpi_ctx_t **out);

/* The context's entry for a collective (and root), freed. */
void gsp__mpi_entry_free(entry_t *e);
/* A failed MPI call: its class kept for the user's communicator; the detail message set. */
gsp_err_t gsp__mpi_fail(gsp_mpi_ctx_t *c, int rc, const char *what);
/* Grows *p to at least need bytes (kept for later calls). */
gsp_err_t gsp__mpi_reserve(void **p, size_t *cap, size_t need);
/* Runs one phase of this rank's program on buffer base (op: the reduction; MPI_OP_NULL for
 * store phases); on an error after its first message its requests are released. */
gsp_err_t gsp__mpi_run_phase(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, void *base, const lay_t *l0, const dtinfo_t *d, MPI_Op op);
/* Whether phase p of layout l (one of this rank's programs) runs as small (mpi_engine.c). */
bool gsp__mpi_small_phase(const gsp_rt_prog_t *p, const lay_t *l, const dtinfo_t *d);
/* Compiles small store phase p (layout l, type d, phase number `phase`) into s [out]: true when
 * every round is sends only, one lone receive, or one send and one receive, and every message one
 * block straight from or into the buffer; false (s->nsteps 0) otherwise. */
bool gsp__mpi_script(const gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p, int phase, const lay_t *l, const dtinfo_t *d, script_t *s);
/* Runs an allreduce's reduce-scatter p0 and allgather p1 (a fabric's one forest, the same layout
 * l0 for both) at once: each part's allgather starts when its sum is complete. */
gsp_err_t gsp__mpi_run_fused(gsp_mpi_ctx_t *c, const gsp_rt_prog_t *p0, const gsp_rt_prog_t *p1, void *base, const lay_t *l0, const dtinfo_t *d,
                             MPI_Op op);
/* Runs compiled script s on buffer base with type d. */
gsp_err_t gsp__mpi_run_script(gsp_mpi_ctx_t *c, const script_t *s, void *base, const dtinfo_t *d);
/* The layout of count elements in blocks of the given kind (the context's segments as lanes). */
lay_t gsp__mpi_layout(const gsp_mpi_ctx_t *c, gsp_rt_layout_t kind, int64_t count, const dtinfo_t *d);
/* A phase's layout: its blocks and parts, and for a pipelined phase the cost model's segments (on
 * a box's trees more: mpi_engine.c, box_lanes). */
lay_t gsp__mpi_phase_layout(gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, int64_t count, const dtinfo_t *d);
/* A lane of fabric phase ph in layout l: its share of the phase's time at the fabric's optimum
 * (T* / lanes, from ph's algbw) in latencies of one of its pieces (the cost model's); 0 where
 * the phase has no algbw. */
/* Whether a phase in layout l may send chunked streams (mpi_engine.c), decided alike on every
 * rank: a fabric, a cost model whose cheapest band is a bounded one and cheaper than a lane of a
 * block, and a link of the fabric slow enough to stream. */
bool gsp__mpi_chunk_streams(const gsp_mpi_ctx_t *c, const lay_t *l, const dtinfo_t *d);
/* Whether reduce phase ph in layout l runs cross first (mpi_engine.c), decided alike on every rank. */
bool gsp__mpi_cross_first(const gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const lay_t *l, const dtinfo_t *d);
double gsp__mpi_lane_latencies(const gsp_mpi_ctx_t *c, const gsp_rt_phase_t *ph, const lay_t *l, const dtinfo_t *d);
/* The algorithm for coll on bytes and this rank's programs of it, built on first use, agreed
 * on by every rank (vec: the vector's bytes; per_rank: one rank's block). */
gsp_err_t gsp__mpi_prepare(gsp_mpi_ctx_t *c, gsp_collective_t coll, int root, int64_t bytes, double vec, double per_rank,
                           const gsp_rt_algo_t **algo, const gsp_rt_prog_t **progs);

#endif

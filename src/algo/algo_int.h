/* SPDX-License-Identifier: GPL-3.0-or-later */
/* algo_int.h — internals of the methods (not installed): helpers shared by methods, the
 * one-port broadcast tree, and the balanced-sequence engine shared by the packet-gossip methods (rotation,
 * balanced-search): a set S_t of elements that hold the packet of e, grown round by round with
 * at most p new elements per generator (Def. 9 of the packet-gossip paper), written out as the
 * compact symmetric schedule that Lemma 10 translates to every origin. */
#ifndef GOSSIP_ALGO_INT_H
#define GOSSIP_ALGO_INT_H

#include "gossip/algo.h"
#include "gossip/problemb.h"
#include "gossip/sat.h"

/* The packets per arc per round of in's model: 0 (a zero-initialised model) reads as 1. Methods
 * read the model's packets through this, never in->model.packets directly. */
static inline int64_t gsp__packets(const gsp_plan_in_t *in) { return gsp_model_resolve(in->model).packets; }

/* Sets s's method to "method(from)": a method built on another's schedule says so. */
gsp_err_t gsp__sched_rename(gsp_sched_t *s, const char *method, const char *from);

/* True when some exact method for c applies to in; otherwise why [out] says so. */
bool gsp__some_method_applies(const gsp_plan_in_t *in, gsp_collective_t c, char *why, size_t whylen);

/* The needs of a method built on the best allgather run backwards (rs-ag, reverse): partial
 * sums travel the allgather's arcs backwards, and the exact reduce check bounds the size; its
 * applies() is gsp__some_method_applies for the allgather. */
#define GSP__REVERSAL_NEEDS                                                                                            \
    {.undirected = true, .graph_why = "partial sums travel the allgather's arcs backwards",                          \
     .max_nodes = GSP_VERIFY_REDUCE_MAX, .size_why = "the exact reduce check"}

/* Builds the best allgather for in and turns it into out with transform (reversal, block
 * allreduce); out's method is named "name(allgather method)". */
gsp_err_t gsp__build_from_allgather(const gsp_plan_in_t *in, gsp_err_t (*transform)(const gsp_sched_t *, const gsp_topo_t *, gsp_sched_t *),
                                    const char *name, gsp_sched_t *out);

/* BFS tree helper shared by methods: parent (and the arc index into each node) of a BFS tree
 * from root, nodes in BFS order. Arrays of n entries [out], allocated here. */
gsp_err_t gsp__bfs_tree(const gsp_topo_t *t, int64_t root, int64_t **parent, int32_t **dist,
                        int64_t **order);

/** Of the packets hu holds and hv lacks, not yet in taken: the one held by the fewest nodes
 * (holders) among the first `limit` found from a random word, or with limit <= 0 simply the
 * first; -1 when there is none. Shared by the greedy and matching allgathers. */
int64_t gsp__rarest_missing(const gsp_word_t *hu, const gsp_word_t *hv, const gsp_word_t *taken, int64_t W, const int64_t *holders,
                            int64_t limit, gsp_rng_t *rng);
/** Delivers out's sends [b, nsends) of the current round into held (nodes x W words) and
 * holders, and counts the nodes that hold every packet (*complete). GSP_ERR_INTERNAL, naming
 * who, when the round has no transfer (a heuristic that stopped making progress). */
gsp_err_t gsp__deliver_round(const gsp_sched_t *out, int64_t b, gsp_word_t *held, int64_t W, int64_t *holders, const char *who,
                             int64_t *complete);

/** Whether an explicit allgather on t (N(N-1) transfers of gsp_send_t, the N^2 bits of held
 * packets that the builder and the verifier each keep, the greedy's per-arc counters) fits under
 * gsp_memory_limit(); when not,
 * why [out] says how much it would take, the limit, and what to use instead. */
bool gsp__explicit_allgather_fits(const gsp_topo_t *t, char *why, size_t whylen);

/** One-port (telephone) broadcast from root on t: who informs whom (parent [out], -1 at the
 * root) and in which round (when [out], -1 at the root); *rounds [out]. Release with gsp_free.
 * Shared by the matching-tree broadcast and allreduce. */
gsp_err_t gsp__telephone_tree(const gsp_topo_t *t, int64_t root, uint64_t seed, int64_t **parent, int64_t **when,
                              int64_t *rounds);

/* A SAT search of several solves (method sat, gsp_plan_prove) under one time limit: every solve
 * gets the time left, so the limit bounds the whole search rather than each solve, and the
 * progress it reports is the share of that whole limit used, named by the round count tried. */
typedef struct {
    double started, deadline; /* CLOCK_MONOTONIC seconds; deadline 0: none */
    double seconds;           /* the limit, for messages */
    gsp_progress_fn progress;
    void *progress_ctx;
} gsp__sat_search_t;
/* Starts the clock of a search of at most seconds (0: no limit). */
void gsp__sat_search_begin(gsp__sat_search_t *s, double seconds, gsp_progress_fn progress, void *progress_ctx);
/* gsp_sat_allgather within the search's time left; GSP_SAT_UNKNOWN at once when none is. */
gsp_err_t gsp__sat_search_solve(gsp__sat_search_t *s, const gsp_topo_t *t, const gsp_model_t *m, int64_t rounds, gsp_sat_form_t form,
                                gsp_sat_answer_t *ans, gsp_sched_t *out, gsp_sat_stats_t *st);

typedef struct {
    int64_t y; /* element added */
    int i;     /* generator it arrives by: y = s_i * g with g in S_t */
} gsp__pick_t;

typedef struct {
    const gsp_topo_t *t;
    gsp_sched_t *out;
    int64_t n, p, round, members;
    int d;
    int *inv;              /* inverse generator of each generator */
    unsigned char *in;     /* in S_t (as of the start of the current round) */
    unsigned char *taken;  /* picked in the current round */
    int64_t *used;         /* slots used per generator in the current round */
    gsp__pick_t *picks;    /* the current round's picks */
    int64_t npicks;
    /* Kuhn matching scratch */
    int64_t *owner;        /* for generator slot (i, c): index into cand of its element, -1 */
    int64_t *cand_gen;     /* per candidate: matched slot or -1 */
    unsigned char *visit;
} gsp__bal_t;

gsp_err_t gsp__bal_init(gsp__bal_t *b, const gsp_topo_t *t, int64_t p, gsp_sched_t *out);
void gsp__bal_destroy(gsp__bal_t *b);
/** Element s_i^-1 * y: y's predecessor along generator i. */
static inline int64_t gsp__bal_pred(const gsp__bal_t *b, int64_t y, int i) {
    return b->t->adj[y * b->d + b->inv[i]];
}
/** Picks y by generator i in the current round (caller checked the slot and S membership). */
void gsp__bal_pick(gsp__bal_t *b, int64_t y, int i);
/** Max matching of candidates (in priority order) to free generator slots; picks the matched
 * ones. Candidates already in S or taken are skipped. Returns the number picked. */
gsp_err_t gsp__bal_match(gsp__bal_t *b, const int64_t *cand, int64_t ncand, int64_t *picked);
/** Ends the round: writes its entries, adds its picks to S. */
gsp_err_t gsp__bal_commit(gsp__bal_t *b);

#endif

/* ---- polynomial register schedules (allreduce) ----
 * Round t sends every node's current register along every arc; then node v's next register is
 * (alpha_t + gamma_t deg_in(v)) y_t(v) + beta_t * (sum of what its in-neighbours sent). After m
 * rounds a final combine multiplies by `scale`. This is y <- (alpha + gamma D + beta A) y, which
 * covers Theorem 1 (A - lambda I) and its Laplacian form (D - A - mu I). */
typedef struct {
    double alpha, beta, gamma;
} gsp__poly_step_t;

gsp_err_t gsp__poly_schedule(const gsp_topo_t *t, const gsp_model_t *model, const char *method,
                             const gsp__poly_step_t *steps, int64_t m, double scale, gsp_sched_t *out);
/** Distinct values of a sorted spectrum (clusters within tol, each replaced by its mean; snapped
 * to the nearest integer when within 1e-8 of one). *vals [out, *nv entries, gsp_free]. */
gsp_err_t gsp__distinct_values(const double *eig, int64_t n, double tol, double **vals, int64_t *nv);
/** Leja ordering of v[0..n-1] in place: each next value maximises the product of distances to
 * those already taken, which keeps the running product of (A - v_t I) well scaled. */
void gsp__leja(double *v, int64_t n);

/** Register schedule of m rounds of y <- W_t y with explicit weights: diag[t * n + v] for v's own
 * value and arcw[t * arcs + a] for the value arriving on arc a (CSR index, a = u -> v); the last
 * combine is multiplied by scale. */
gsp_err_t gsp__weighted_schedule(const gsp_topo_t *t, const gsp_model_t *model, const char *method, int64_t m,
                                 const double *diag, const double *arcw, double scale, gsp_sched_t *out);

/* ---- optimal circulants G(N; s, s+1) (broadcast_circulant.c, allgather_circulant.c) ---- */
/** s when t is optcirc:N (G(N; s, s+1) with the optimal s), else -1. */
int64_t gsp__circ_s(const gsp_topo_t *t);
/** Is (x, y) the canonical relative address of the node it reaches from 0? */
bool gsp__circ_canonical(int64_t N, int64_t s, int64_t x, int64_t y);
/** The quadrant tree's parent of lattice point (x, y) != (0, 0) and the arc that leaves it. */
void gsp__circ_parent(int64_t x, int64_t y, int64_t *px, int64_t *py, int *arc);

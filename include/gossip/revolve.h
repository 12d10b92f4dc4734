/* SPDX-License-Identifier: GPL-3.0-or-later */
/* revolve.h — the revolving hierarchy of Garg and Ghosh: repeated computation of a global
 * function with one result per step and an equal load on every process. Processes move through
 * the positions of a logical tree by a primitive permutation `next`; at every step the leaves
 * send to their parents, and each message serves several overlapping gather trees. */
#ifndef GOSSIP_REVOLVE_H
#define GOSSIP_REVOLVE_H

#include "gossip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSP_REVOLVE_MAX_N 30 /* levels: N = 2^n - 1 up to 2^30 - 1 */

/** next(x) on in-order labels 1..N = 2^n - 1 (Section III: Type I x/2 for even x; Type II
 * x * 2^lead0(x) + 1 for odd x < 2^(n-1); Type III x + 1, or the root after N). */
GSP_API int64_t gsp_revolve_next_inorder(int n, int64_t x);
/** Parent of in-order node x (0 for the root). */
GSP_API int64_t gsp_revolve_parent_inorder(int n, int64_t x);

typedef struct {
    int n;              /* levels of the tree (tree variants) or log2 N (list variants) */
    int64_t N;          /* positions (processes, including virtual ones) */
    int k;              /* arity of the tree (2 for next) */
    int64_t nreal;      /* real processes: position labels >= nreal are virtual nodes, hosted by
                           real process (label - nreal) mod nreal */
    int64_t *inorder;   /* inorder[j]: the in-order node that carries new label j (j = 0..N-1) */
    int64_t *label;     /* label[x]: the new label of in-order node x (x = 1..N; label[0] unused) */
    int64_t *parent;    /* parent[j]: new_parent(j), -1 for the root */
    unsigned char *leaf;/* leaf[j]: new label j is a leaf */
    gsp_vec_t cds;      /* communication distance set, sorted, as signed residues in (-N/2, N/2] */
} gsp_revolve_t;

/** The relabelled hierarchy of Section IV for N = 2^n - 1: new labels run along the cycle of
 * next from the leftmost leaf (in-order 1), so new_next(j) = j + 1 (mod N). Checks in code that
 * next is a primitive permutation satisfying the gather-tree constraint (GSP_ERR_INTERNAL if
 * not). Release with gsp_revolve_destroy. */
GSP_API gsp_err_t gsp_revolve_build(int n, gsp_revolve_t *r);
/** Releases r's arrays; a zeroed hierarchy is a no-op. */
GSP_API void gsp_revolve_destroy(gsp_revolve_t *r);
/** snext(x) on list positions 0..N-1, N = 2^n (Section V, one message received per step): S1
 * x >> 1 for odd x (winners move left, the tournament); S2 x + N/2 for even x in the left half;
 * S3 for even x in the right half: LS1^m(t) with t = (x + 2) mod N/2 and m its leading zeros in n
 * bits (LS1 shifts left bringing in a 1). The transcribed "LS1^{l+1}(x) + 2" is defective; this
 * reading is the one that reproduces eq. (7) and Fig. 6, and it is proved primitive in code. */
GSP_API int64_t gsp_revolve_snext(int n, int64_t x);
/** The list variants: labels along the cycle of snext or bcnext from position N - 1 (eq. 7,
 * Fig. 7), or the n_snext2 labelling (eq. 11: CDS {2^i - 1}, Theorem 4). bcnext also checks the
 * broadcast constraints (13). In r, inorder[j] is the list position
 * of label j, label[p] the label of position p, leaf[j] whether label j sends (an even position)
 * and parent[j] = dest(j), the label of the next odd position. */
typedef enum { GSP_REVOLVE_SNEXT = 0, GSP_REVOLVE_SNEXT2, GSP_REVOLVE_BCNEXT } gsp_revolve_list_t;
/** Builds the list variant `variant` for N = 2^n into r [out]; release with gsp_revolve_destroy. */
GSP_API gsp_err_t gsp_revolve_build_list(int n, gsp_revolve_list_t variant, gsp_revolve_t *r);
/** bcnext(x) (Section V-A: gather and broadcast on the same messages): S1 x >> 1 for odd x; S2
 * RS1(x) (shift right bringing in a 1) when b1 = b0 = 0; S3 when b1 = 1, b0 = 0:
 * LS1^a(t) with t = (LS0^b(x) + 2) mod 2^(n-1), b the leading ones of x and a the leading zeros of
 * t — the reading of the transcription that reproduces Fig. 7. */
GSP_API int64_t gsp_revolve_bcnext(int n, int64_t x);

/** Repeated computation of a global maximum on the revolving messages: each process holds, for
 * every computation still in flight, the largest value it has heard of; a message carries the
 * sender's values for all of them (at most `window` numbers). Computation c starts at step c with
 * the values v(ctx, x, c); its result is at a known process after `depth` more steps: the root of
 * gather tree T_c (next) or the tournament winner (list variants). */
typedef double (*gsp_revolve_value_fn)(void *ctx, int64_t process, int64_t computation);

typedef struct {
    int64_t *done_step; /* step at whose end computation c's result is complete, per computation */
    int64_t *holder;    /* the process holding it */
    double *result;     /* its value */
    int64_t computations, messages, values_sent;
} gsp_revolve_run_t;

/** Simulates `steps` steps (list: true for the snext family). Results for every computation that
 * completes within them. Release with gsp_revolve_run_destroy. */
GSP_API gsp_err_t gsp_revolve_simulate(const gsp_revolve_t *r, bool list, int64_t steps, gsp_revolve_value_fn v, void *ctx,
                               gsp_revolve_run_t *out);
/** Releases run's results; a zeroed run is a no-op. */
GSP_API void gsp_revolve_run_destroy(gsp_revolve_run_t *run);
/** The asynchronous variant: messages take a random time in [1, max_delay] (seeded), and a process
 * ends step t only when every message addressed to it at step t has arrived — it knows which from
 * msg(., t), so it waits exactly for what it needs. The messages and results are those of the
 * synchronous run (checked by the caller); *finish [out, steps entries, gsp_free] is the time at
 * which the last process ends each step. */
GSP_API gsp_err_t gsp_revolve_simulate_async(const gsp_revolve_t *r, bool list, int64_t steps, gsp_revolve_value_fn v, void *ctx,
                                     uint64_t seed, int64_t max_delay, gsp_revolve_run_t *out, double **finish);
/** Steps from the start of a computation to its result: n - 1 (tree) or n (list). */
GSP_API int64_t gsp_revolve_depth(const gsp_revolve_t *r, bool list);
/** The process that holds computation c's result at the end of step c + depth - 1. */
GSP_API int64_t gsp_revolve_holder(const gsp_revolve_t *r, bool list, int64_t c);

/** The k-ary revolving hierarchy for any number of processes (Section VI): the smallest complete
 * k-ary tree with M >= nreal positions, M - nreal of them virtual nodes hosted by real processes
 * (at most k - 1 each). next keeps the gather-tree constraint (the interior nodes move one level
 * down into the subtree of the root's first child, parent-child kept) and sends the leaves to the
 * root and the other subtrees; the leaves' images are then permuted until next is one cycle
 * (swapping the images of two leaves in different cycles merges them; every cycle holds a leaf).
 * Positions are labelled along that cycle, so new_next(x) = x + 1 as in Section IV. */
GSP_API gsp_err_t gsp_revolve_build_kary(int k, int64_t nreal, gsp_revolve_t *r);

/** msg(x, t) of eq. (3)/(9): the process x sends to at step t, or -1 (nil). */
GSP_API int64_t gsp_revolve_msg(const gsp_revolve_t *r, int64_t x, int64_t t);

#ifdef __cplusplus
}
#endif
#endif

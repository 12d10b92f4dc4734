/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scatter.h — random scattering (Drezner and Barak, 1984): every node sends, each step, one
 * message to a uniformly random other node; a colored node's messages carry the color. The
 * exact distribution of the time to color all n nodes (Lemmas 1–2, Theorem 1), Monte-Carlo
 * simulation of the paper's model and of others, and the asymptotics (Theorems 2–3). */
#ifndef GOSSIP_SCATTER_H
#define GOSSIP_SCATTER_H

#include "gossip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest n for the exact distribution (O(n^3/8) work, O(n^2/4) memory). */
#define GSP_SCATTER_EXACT_MAX 10000

/** p(j, n) for j = 0, 1, ...: the probability that all n nodes are colored after j steps,
 * starting from one colored node (Theorem 1). Stops after max_rounds steps, or when max_rounds
 * is 0 once p exceeds 1 - 1e-12. *p [out, *len entries, free with gsp_free]; *mean [out] is
 * E[T] = sum_j (1 - p(j, n)) (the tail beyond the last step is added with the chain's own
 * geometric decay). Errors: GSP_ERR_RANGE for n < 2 or n > GSP_SCATTER_EXACT_MAX. */
GSP_API gsp_err_t gsp_scatter_exact(int64_t n, int64_t max_rounds, double **p, int64_t *len, double *mean,
                            gsp_progress_fn progress, void *ctx);

typedef enum {
    GSP_SCATTER_PUSH = 0,   /* the paper's model: a node sends what it held at the start of the step */
    GSP_SCATTER_PUSH_ASYNC, /* Theorem 3: nodes send in a random order, forwarding what they got earlier in the step */
    GSP_SCATTER_PULL,       /* every uncolored node asks a random other node; colored answers color it */
    GSP_SCATTER_PUSHPULL    /* both, as in the push-pull literature */
} gsp_scatter_variant_t;

/** Name and parse of the variants ("push", "push-async", "pull", "push-pull"). */
GSP_API const char *gsp_scatter_variant_name(gsp_scatter_variant_t v);
/** Parses a variant name into *v; false for an unknown name. */
GSP_API bool gsp_scatter_variant_parse(const char *s, gsp_scatter_variant_t *v);

/** Runs `trials` independent scatterings on n nodes (seeded by seed; trial t uses its own
 * stream, so results do not depend on anything else). steps [out, trials entries]: the steps
 * each took; *sends [out]: messages sent in total (n per step, as S = n in the paper). */
GSP_API gsp_err_t gsp_scatter_simulate(int64_t n, gsp_scatter_variant_t v, int64_t trials, uint64_t seed, int64_t *steps,
                               int64_t *sends, gsp_progress_fn progress, void *ctx);

/** T_n(alpha): steps until the mean-field recursion p_{j+1} = 1 - e^{-p_j}(1 - p_j), p_0 = 1/n
 * (eq. 3.2), reaches n - alpha expected colored nodes (Lemma 3: an upper bound for coloring all
 * with probability 1 - alpha). */
GSP_API int64_t gsp_scatter_meanfield(int64_t n, double alpha);
/** Theorem 2: (1 + ln 2) log2 n. */
GSP_API double gsp_scatter_theorem2(int64_t n);
/** Theorem 3: 2 ln 2 log2 n (the asynchronous model), and its exact form ln((n-1)(n-alpha)/alpha). */
GSP_API double gsp_scatter_theorem3(int64_t n);
/** Theorem 3's exact form ln((n - 1)(n - alpha) / alpha). */
GSP_API double gsp_scatter_theorem3_alpha(int64_t n, double alpha);

#ifdef __cplusplus
}
#endif
#endif

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
int64_t gsp_revolve_next_inorder(int n, int64_t x);
/** Parent of in-order node x (0 for the root). */
int64_t gsp_revolve_parent_inorder(int n, int64_t x);

typedef struct {
    int n;
    int64_t N;
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
gsp_err_t gsp_revolve_build(int n, gsp_revolve_t *r);
void gsp_revolve_destroy(gsp_revolve_t *r);
/** msg(x, t) of eq. (3): the process x sends to at step t, or -1 (nil). */
int64_t gsp_revolve_msg(const gsp_revolve_t *r, int64_t x, int64_t t);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* broadcast_circulant.c — broadcast without duplicate copies in the optimal circulants
 * G(N; s, s+1) (Monakhova–Monakhov, Programs 1–2 and Prop. 7).
 *
 * Applies to optcirc:N (and circulant:N:s,s+1 with that s), any root, all ports. The message
 * carries the receiver's position (x, y) in the rhombus of relative addresses from the root (the
 * programs' fields: the direction it travels and the distances left). The rhombus is cut into four
 * quadrants, each the image of the first under a quarter turn (the four poles of Fig. 1b): in the
 * first, x > 0 and y >= 0, a message runs along +x on the axis and turns into +y columns; in the
 * second (x <= 0, y > 0) along +y then -x; in the third along -x then -y; in the fourth along -y
 * then +x. A copy goes to lattice point (x', y') only if (x', y') is that node's canonical relative
 * address (gsp_circ_address, O(1)), so every node is reached exactly once, at its distance. At
 * distance t + 1 each generator carries at most t + 1 copies, which is why superposing the N
 * translated trees gossips with p = D* packets in D* rounds (Prop. 8, method circulant-gossip). Rounds: D* = ceil((sqrt(2N-1)-1)/2), the broadcast bound; the
 * verifier's duplicate count is 0 (tested for every N from 5 to 5000). The transcription of the
 * programs is ambiguous in places; this is the reading above (axis first, then columns), which
 * matches Fig. 1a's rhombus and Prop. 7's claim of D* rounds and no excess copies. */
#include <stdlib.h>
#include <string.h>

#include "algo_int.h"
#include "gossip/circulant.h"

int64_t gsp__optcirc_s(int64_t N);

int64_t gsp__circ_s(const gsp_topo_t *t) {
    if (!t->group || t->group->kind != GSP_GROUP_ABELIAN || t->group->k != 1 || t->ngens != 4) return -1;
    int64_t N = t->n, s = t->gens[0];
    if (N < 5 || s != gsp__optcirc_s(N) || t->gens[1] != (s + 1) % N) return -1;
    return s;
}

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (gsp__circ_s(in->topo) < 0) {
        snprintf(why, n, "needs an optimal circulant G(N; s, s+1) (optcirc:N)");
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return in->dist->diameter; }

/* The node at lattice point (x, y) from the root. */
static int64_t node_at(int64_t N, int64_t s, int64_t root, int64_t x, int64_t y) {
    return (((root + x * s + y * (s + 1)) % N) + N) % N;
}

/* The quadrant tree's parent of lattice point (x, y) != (0, 0), and the arc (0: +s, 1: +(s+1),
 * 2: -s, 3: -(s+1)) that reaches (x, y) from it. */
void gsp__circ_parent(int64_t x, int64_t y, int64_t *px, int64_t *py, int *arc) {
    int a;
    if (x > 0 && y >= 0) { /* +x axis, +y columns */
        if (y == 0) *px = x - 1, *py = 0, a = 0;
        else *px = x, *py = y - 1, a = 1;
    } else if (x <= 0 && y > 0) { /* +y axis, -x columns */
        if (x == 0) *px = 0, *py = y - 1, a = 1;
        else *px = x + 1, *py = y, a = 2;
    } else if (x < 0 && y <= 0) { /* -x axis, -y columns */
        if (y == 0) *px = x + 1, *py = 0, a = 2;
        else *px = x, *py = y + 1, a = 3;
    } else { /* x >= 0, y < 0: -y axis, +x columns */
        if (x == 0) *px = 0, *py = y + 1, a = 3;
        else *px = x - 1, *py = y, a = 0;
    }
    if (arc) *arc = a;
}

bool gsp__circ_canonical(int64_t N, int64_t s, int64_t x, int64_t y) {
    gsp_caddr_t a = gsp_circ_address(N, s, ((x * s + y * (s + 1)) % N + N) % N);
    return a.x == x && a.y == y;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t N = t->n, s = gsp__circ_s(t), root = in->root >= 0 ? in->root : 0, D = in->dist->diameter;
    if ((err = gsp_sched_init(out, GSP_COLL_BROADCAST, t->spec, N, &in->model, root, "circulant-tree"))) return err;
    /* Round r reaches the canonical points at distance r + 1, each from its quadrant parent when
     * that parent is canonical too (it then holds the message, reached the round before). */
    for (int64_t r = 0; r < D; r++) {
        if ((err = gsp_sched_round(out))) goto fail;
        int64_t dd = r + 1;
        for (int64_t x = -dd; x <= dd; x++) {
            int64_t ay = dd - (x < 0 ? -x : x);
            for (int64_t sg = -1; sg <= 1; sg += 2) {
                int64_t y = sg * ay;
                if (ay == 0 && sg > 0) continue; /* y = 0 once */
                if (!gsp__circ_canonical(N, s, x, y)) continue;
                int64_t px, py;
                gsp__circ_parent(x, y, &px, &py, NULL);
                if (!gsp__circ_canonical(N, s, px, py)) continue;
                if ((err = gsp_sched_send(out, node_at(N, s, root, px, py), node_at(N, s, root, x, y), root))) goto fail;
            }
        }
    }
    return gsp_sched_finish(out);
fail:
    gsp_sched_destroy(out);
    return err;
}

const gsp_method_t gsp__method_broadcast_circulant = {
    "circulant-tree", GSP_COLL_BROADCAST, "optimal circulants G(N; s, s+1): D* rounds, no duplicate copies",
    "circulant paper, Programs 1-2 and Prop. 7", applies, rounds, build, false, NULL, false, NULL, .needs = {.ports = GSP_NEED_PORTS_ALL, .ports_why = "the root sends in four directions at once"}};

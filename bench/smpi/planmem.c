/* SPDX-License-Identifier: GPL-3.0-or-later */
/* planmem.c — what one rank's planning costs, in memory and real time, under SMPI. Linked into
 * smpi_bench with -Wl,--wrap for the library's allocators (gsp_malloc and friends, through which
 * everything in libgossip allocates) and for the planning functions the MPI runtime calls
 * (topology, vertex-transitivity, distances, the candidate algorithms, the cost model's choice,
 * realizing a pending algorithm, the rank's program). No library source changes: a call from
 * another object file reaches __wrap_X, which counts and calls __real_X. SMPI privatizes the
 * binary's globals per rank, so these counters are per rank.
 *   live        bytes the library holds now (malloc_usable_size of each block)
 *   peak        the most it held at once (plan, message buffers and requests)
 *   plan_peak   the most it held while a planning function ran
 *   plan_held   what it held when the last planning function returned (the plan kept)
 *   plan_sec    real seconds spent inside planning functions (they make no MPI calls, so no
 *               other rank runs meanwhile: summed over ranks, the planning part of the
 *               simulation's real time)
 * Allocations made inside alloc.c itself (gsp_strdup, gsp_alloc_array calling gsp_malloc) are
 * not wrapped; the wrappers of gsp_strdup and gsp_alloc_array count them instead. */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "gossip/analysis.h"
#include "gossip/core.h"
#include "gossip/runtime.h"
#include "gossip/topo.h"

/* Compiled with cc, not smpicc (which maps clock_gettime to simulated time and malloc to its
 * shared-malloc interceptor): this is the real clock. */

static int64_t live, peak, plan_peak, plan_held;
static int depth;
static double plan_sec;

static void add(void *p) {
    if (!p) return;
    live += (int64_t)malloc_usable_size(p);
    if (live > peak) peak = live;
    if (depth > 0 && live > plan_peak) plan_peak = live;
}
static void sub(void *p) {
    if (p) live -= (int64_t)malloc_usable_size(p);
}

void *__real_gsp_malloc(size_t);
void *__real_gsp_calloc(size_t, size_t);
void *__real_gsp_realloc(void *, size_t);
void __real_gsp_free(void *);
char *__real_gsp_strdup(const char *);
gsp_err_t __real_gsp_alloc_array(void **, int64_t, size_t, bool);

void *__wrap_gsp_malloc(size_t n) {
    void *p = __real_gsp_malloc(n);
    add(p);
    return p;
}
void *__wrap_gsp_calloc(size_t c, size_t n) {
    void *p = __real_gsp_calloc(c, n);
    add(p);
    return p;
}
void *__wrap_gsp_realloc(void *old, size_t n) {
    int64_t was = old ? (int64_t)malloc_usable_size(old) : 0;
    void *p = __real_gsp_realloc(old, n);
    if (p) {
        live -= was;
        add(p);
    }
    return p;
}
void __wrap_gsp_free(void *p) {
    sub(p);
    __real_gsp_free(p);
}
char *__wrap_gsp_strdup(const char *s) {
    char *p = __real_gsp_strdup(s);
    add(p);
    return p;
}
gsp_err_t __wrap_gsp_alloc_array(void **out, int64_t count, size_t size, bool zero) {
    gsp_err_t e = __real_gsp_alloc_array(out, count, size, zero);
    if (!e) add(*out);
    return e;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double enter(void) {
    depth++;
    if (live > plan_peak) plan_peak = live;
    return now();
}
static gsp_err_t leave(double t0, gsp_err_t e) {
    if (--depth == 0) {
        plan_sec += now() - t0;
        plan_held = live;
    }
    return e;
}

#define PLAN_WRAP(name, params, args)        \
    gsp_err_t __real_##name params;          \
    gsp_err_t __wrap_##name params {         \
        double t0 = enter();                 \
        return leave(t0, __real_##name args); \
    }

PLAN_WRAP(gsp_topo_from_spec, (gsp_topo_t * t, const char *spec), (t, spec))
PLAN_WRAP(gsp_vertex_transitive, (const gsp_topo_t *t, gsp_vt_t *out), (t, out))
PLAN_WRAP(gsp_distances, (const gsp_topo_t *t, bool vt, gsp_distances_t *out, gsp_progress_fn progress, void *ctx),
          (t, vt, out, progress, ctx))
PLAN_WRAP(gsp_rt_algos, (const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t root, const char *method, gsp_rt_algos_t *out),
          (t, d, c, root, method, out))
PLAN_WRAP(gsp_rt_choose_build,
          (gsp_rt_algos_t * a, int64_t nodes, int64_t bytes, const struct gsp_cost *c, bool (*skip)(const gsp_rt_algo_t *, void *), void *ctx, int *idx),
          (a, nodes, bytes, c, skip, ctx, idx))
PLAN_WRAP(gsp_rt_realize, (gsp_rt_algos_t * a, int i, bool *removed), (a, i, removed))
PLAN_WRAP(gsp_rt_program, (const gsp_rt_algo_t *a, int k, const gsp_topo_t *t, int64_t rank, gsp_rt_prog_t *out), (a, k, t, rank, out))

void planmem_get(int64_t *live_out, int64_t *peak_out, int64_t *plan_peak_out, int64_t *plan_held_out, double *plan_sec_out) {
    *live_out = live;
    *peak_out = peak;
    *plan_peak_out = plan_peak;
    *plan_held_out = plan_held;
    *plan_sec_out = plan_sec;
}

/* The real clock, for smpi_bench (which sees clock_gettime mapped to simulated time). */
double planmem_real_now(void) { return now(); }

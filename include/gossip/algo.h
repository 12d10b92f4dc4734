/* SPDX-License-Identifier: GPL-3.0-or-later */
/* algo.h — construction methods and the one registry that lists them. The CLI's `list`, the
 * `auto` choice, the docs table and the exhaustive test matrix all read gsp_methods(). */
#ifndef GOSSIP_ALGO_H
#define GOSSIP_ALGO_H

#include "gossip/analysis.h"
#include "gossip/bounds.h"
#include "gossip/model.h"
#include "gossip/sched.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a method is given. All pointers are borrowed for the call. Zero-initialised fields are
 * defaults: the model {0} is one packet, all ports, full duplex; root 0 is node 0. */
typedef struct {
    const gsp_topo_t *topo;
    const gsp_distances_t *dist; /* distances of topo (connected) */
    gsp_model_t model;           /* {0}: the default model (gsp_model_default) */
    int64_t root;                /* broadcast root; -1 = method's choice (node 0) */
    uint64_t seed;
    gsp_progress_fn progress;    /* may be NULL */
    void *progress_ctx;
    int64_t degree;              /* approx: polynomial degree (rounds); 0 = D - 1 */
    double time_limit;           /* sat: seconds for the whole search, every solve (0: 60) */
} gsp_plan_in_t;

/** What a method's packets per arc and round must be (gsp_method_needs_t.packets). */
typedef enum {
    GSP_NEED_PACKETS_ANY = 0,
    GSP_NEED_PACKETS_FINITE, /* p >= 1 */
    GSP_NEED_PACKETS_INF     /* GSP_PACKETS_INF: messages concatenate */
} gsp_need_packets_t;

/** What a method's ports and duplex must be (gsp_method_needs_t.ports). */
typedef enum {
    GSP_NEED_PORTS_ANY = 0,
    GSP_NEED_PORTS_ALL,       /* every arc of a node in the same round */
    GSP_NEED_PORTS_ONE,       /* one port */
    GSP_NEED_PORTS_RESTRICTED /* one port, half duplex or both: not the all-port full-duplex model */
} gsp_need_ports_t;

/** Where a method applies, as data: what it needs of the model and of the graph. The registry
 * checks it in one place (gsp_method_applies), before the method's own applies(), and says
 * which need the input does not meet. Zero-initialised: no need. The notes say why the method
 * needs it (for the message); NULL adds nothing. */
typedef struct {
    gsp_need_packets_t packets;
    gsp_need_ports_t ports;
    bool full_duplex;      /* an edge carries both directions in a round */
    bool undirected;       /* every arc has its reverse */
    bool cayley;           /* the topology's group is known (a Cayley spec, not a file) */
    int64_t min_nodes;     /* 0: no bound */
    int64_t max_nodes;     /* 0: no bound */
    const char *packets_why; /* why the packets need */
    const char *ports_why;   /* why the ports and duplex needs */
    const char *graph_why; /* why an undirected graph */
    const char *size_why;  /* why the bounds on the nodes */
} gsp_method_needs_t;

typedef struct gsp_method {
    const char *name;
    gsp_collective_t coll;
    const char *where;  /* where it applies, for `gossip list` */
    const char *source; /* the paper and result it follows, or "baseline" */
    /** The method's own conditions beyond `needs` (the graph's family, a search that must
     * succeed), asked only when `needs` are met; NULL: none. True when they hold; otherwise
     * why [out] says why not. Callers ask gsp_method_applies, which checks both. */
    bool (*applies)(const gsp_plan_in_t *in, char *why, size_t whylen);
    /** Rounds the method promises on this input, or -1 when only the verifier knows. */
    int64_t (*rounds)(const gsp_plan_in_t *in);
    /** Builds the schedule into out [out]. */
    gsp_err_t (*build)(const gsp_plan_in_t *in, gsp_sched_t *out);
    /** Results are estimates (never chosen by auto; verified with GSP_VERIFY_APPROX). */
    bool approximate;
    /** For approximate methods: the proven bound on the relative variance, or -1. */
    double (*variance_bound)(const gsp_plan_in_t *in);
    /** Run only when named (an exact search that may take long): auto leaves it out. */
    bool on_request;
    /** The fewest rounds the method can build on this input, known without building (its
     * promise when that is cheap, or a lower bound of its own), or -1; NULL: unknown. Auto
     * skips a method that cannot beat the best schedule so far. */
    int64_t (*least_rounds)(const gsp_plan_in_t *in);
    /** What the method needs of the model and the graph, checked by gsp_method_applies. */
    gsp_method_needs_t needs;
} gsp_method_t;

/** The registry: every method, in the order `list` shows them. */
GSP_API const gsp_method_t *const *gsp_methods(int *count);
/** The method called name for collective c, or NULL. */
GSP_API const gsp_method_t *gsp_method_find(const char *name, gsp_collective_t c);
/** Does method m apply to in [in] (its topology, distances and model; a zero model is the
 * default one)? Checks m->needs, then m->applies. True when it does; otherwise why [out, whylen
 * bytes] says which needs are not met, e.g. "needs all ports and full duplex" (only those the model misses) or
 * "limited to 2048 nodes (explicit rounds)". What `gossip list --topology` and auto ask. */
GSP_API bool gsp_method_applies(const gsp_method_t *m, const gsp_plan_in_t *in, char *why, size_t whylen);

/** How a plan's rounds are known to be the fewest: the lower bound is met; a SAT solver showed
 * that no schedule has one round fewer (among all schedules, or among the symmetric ones of a
 * Cayley graph); or not known. */
typedef enum { GSP_OPT_OPEN = 0, GSP_OPT_BOUND, GSP_OPT_PROVED, GSP_OPT_PROVED_SYMMETRIC } gsp_optimality_t;

/** What auto did with one method of the collective (gsp_plan_t.attempts). */
typedef enum {
    GSP_TRIED_BUILT = 1,      /* built and verified: rounds */
    GSP_TRIED_SKIPPED,        /* not built: it cannot beat the best so far (the lower bound is met, or
                                 its own fewest rounds are no better), or auto leaves it out (an
                                 estimate, or run on request only) */
    GSP_TRIED_NOT_APPLICABLE, /* does not apply to this input and model */
    GSP_TRIED_GAVE_UP         /* applies, but found while building that it cannot help (a search
                                 that found nothing, numerics too poor) */
} gsp_tried_kind_t;

typedef struct {
    const gsp_method_t *method;
    gsp_tried_kind_t kind;
    int64_t rounds; /* BUILT: its rounds; SKIPPED for its own bound: the fewest it can build; else -1 */
    char why[192];  /* all but BUILT: why, without the method's name ("needs packets = inf ...") */
} gsp_tried_t;

/** Room for every method of one collective in gsp_plan_t.attempts. */
#define GSP_MAX_TRIED 24

typedef struct {
    const gsp_method_t *method;
    gsp_sched_t sched;
    gsp_report_t report;
    gsp_bounds_t bounds;
    int64_t lower_bound;
    bool optimal; /* rounds == lower bound, or proved (GSP_OPT_PROVED) */
    gsp_optimality_t optimality;
    char proof[192]; /* gsp_plan_prove: what the solver answered, e.g. "no schedule of 11 rounds" */
    /* auto, for people: the methods built, in registry order, with their rounds, and those
     * skipped or given up while building, with why ("tree 18; rs-ag skipped (at least 1680
     * rounds)", "tree 6; spectral 5; product 3 (the bound: the rest not tried)"); "" otherwise.
     * The methods that do not apply are in attempts only. */
    char tried[1024];
    /* auto, for programs: every method of the collective, in registry order, once, with what
     * became of it; ntried is 0 when a method was named. */
    int ntried;
    gsp_tried_t attempts[GSP_MAX_TRIED];
} gsp_plan_t;

/** Plans collective c on in->topo with the named method ("auto": the valid schedule with the
 * fewest rounds among the applicable methods) and verifies it. plan [out] owns the schedule;
 * release with gsp_plan_destroy. GSP_ERR_NOTAPPLIC when the method does not apply (the
 * detail says why), GSP_ERR_INTERNAL when a method's schedule fails verification. */
GSP_API gsp_err_t gsp_plan(const gsp_plan_in_t *in, gsp_collective_t c, const char *method, gsp_plan_t *plan);
/** Releases plan's schedule; a zeroed plan is a no-op. */
GSP_API void gsp_plan_destroy(gsp_plan_t *plan);

/* Options of gsp_plan_spec. Zero-initialised (or a designated initializer that names only what
 * it changes) is the default: the papers' model (one packet, all ports, full duplex), method
 * auto, a broadcast from node 0, seed 1 (the CLI's defaults). */
typedef struct {
    gsp_model_t model;  /* {0}: one packet, all ports, full duplex */
    const char *method; /* NULL: "auto" (the fewest rounds) */
    int64_t root;       /* broadcast root (node 0 by default) */
    uint64_t seed;      /* randomized methods; 0: 1 */
} gsp_plan_opts_t;

/** One call from a spec to a verified plan: parses spec (gossip/topo.h), computes its distances
 * (one BFS on a vertex-transitive graph), plans collective c with opts (NULL: the defaults
 * above) and verifies the schedule, as `gossip plan COLLECTIVE SPEC` does. The topology is
 * released before returning; plan [out] owns its schedule (gsp_plan_destroy), which names the
 * topology by its spec. Errors: those of gsp_topo_from_spec and gsp_plan; GSP_ERR_RANGE for a
 * root outside the graph; GSP_ERR_NOTAPPLIC when the graph is not connected. Example:
 *   gsp_plan_t p;
 *   gsp_plan_spec("torus:8x8", GSP_COLL_ALLGATHER, &(gsp_plan_opts_t){.model.packets = 2}, &p); */
GSP_API gsp_err_t gsp_plan_spec(const char *spec, gsp_collective_t c, const gsp_plan_opts_t *opts, gsp_plan_t *plan);

/** Settles an allgather plan's optimality with the SAT solver (gossip/sat.h): asks for a
 * schedule of one round fewer, again and again, until the solver says none exists (optimality
 * GSP_OPT_PROVED; GSP_OPT_PROVED_SYMMETRIC when only symmetric schedules were searched), the
 * lower bound is reached (GSP_OPT_BOUND), or the search runs out of `seconds`, which bound all
 * its solves together (GSP_OPT_OPEN).
 * Each shorter schedule found replaces plan's, verified. The explicit form is used up to
 * GSP_PROVE_EXPLICIT_MAX nodes, the symmetric form on larger Cayley graphs; other graphs are
 * GSP_ERR_NOTAPPLIC. plan->proof says what was decided and how long it took. */
GSP_API gsp_err_t gsp_plan_prove(const gsp_plan_in_t *in, gsp_plan_t *plan, double seconds);
#define GSP_PROVE_EXPLICIT_MAX 64

#ifdef __cplusplus
}
#endif
#endif

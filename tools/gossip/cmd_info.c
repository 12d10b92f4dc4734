/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_info.c — `gossip info SPEC`: invariants, spectrum summary, complete rotation and lower
 * bounds of a topology. Symmetry first: one BFS for a vertex-transitive graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip info SPEC [--json] [--no-spectrum] [--no-rotation] [--root NAME] [--no-optimum] [--progress]\n"
    "\n"
    "Prints the invariants of a topology: nodes, arcs, degrees, diameter, average distance,\n"
    "the number of nodes at each distance, the adjacency spectrum (distinct eigenvalues),\n"
    "vertex-transitivity, a complete rotation (packet-gossip paper, Def. 12) with its fixed\n"
    "points, and the lower bounds on gossip rounds with one packet per arc per round.\n"
    "\n"
    "  --progress      progress on stderr even when it is not a terminal: plain lines, one when a\n"
    "                  stage starts and then every 10 % or 10 s (GOSSIP_PROGRESS=1; 0 silences it)\n"
    "  --json          one JSON object on stdout (keys: nodes, arcs, degree, diameter,\n"
    "                  average_distance, distance_counts, distinct_eigenvalues,\n"
    "                  vertex_transitive, complete_rotation, bounds, ...)\n"
    "  --no-spectrum   skip the spectrum\n"
    "  --no-rotation   skip the complete-rotation search\n"
    "  --root NAME     the broadcast root of the throughput optimum (default: the first\n"
    "                  compute node)\n"
    "  --no-optimum    skip the throughput optimum\n"
    "\n"
    "A fabric (docs/fabrics.md: link capacities, switches; file lines 'A B 25', 'A > B 25',\n"
    "'switch S', or the dgx, mi250, fattree and dragonfly specs) also gets its compute nodes,\n"
    "switches, capacities and the throughput optimum: the largest algorithmic bandwidth of\n"
    "allgather, reduce-scatter, allreduce and broadcast as an exact fraction, with the binding\n"
    "cut (--json: key optimum; on other graphs too, where N max-flows are cheap).\n"
    "\n"
    "A vertex-transitive graph (any Cayley graph, or a file graph nauty finds transitive) needs\n"
    "one BFS; other graphs need one per node. distance_counts are per node for the former and\n"
    "over ordered pairs for the latter (distance_counts_scope says which). When one BFS per node\n"
    "is too much (N (N + arcs) above 10^9), an undirected graph gets its exact diameter from a\n"
    "few BFS (iFUB), an exact average distance when it is a tree (from subtree sizes) and\n"
    "otherwise an estimate with its standard error (average_distance_exact, _stderr), and\n"
    "distance counts over the pairs of 64 random nodes (scope sampled_sources).\n"
    "\n"
    "example:\n"
    "  $ gossip info torus:6x6\n"
    "  topology            torus:6x6\n"
    "  nodes               36\n"
    "  arcs                144\n"
    "  degree              4 (regular)\n"
    "  group               Cayley graph, 4 generators, abelian\n"
    "  vertex-transitive   yes (Cayley graph)\n"
    "  diameter            6\n"
    "  average distance    3.08571\n"
    "  nodes at distance   1 4 8 10 8 4 1\n"
    "  spectrum            abelian formula: 9 distinct eigenvalues in [-4, 4] (tolerance 4e-09)\n"
    "  complete rotation   yes: generator order 0 1 2 3, 3 fixed points\n"
    "  lower bounds        allgather (1 packet/arc): diameter 6, degree 9, layered 9, cut 2 (binding: degree 9)\n";

#define INFO_SAMPLES 64 /* BFS from random nodes for the average distance of a large graph */

static const char *vt_name(gsp_vt_t v) {
    switch (v) {
    case GSP_VT_YES_CAYLEY: return "Cayley graph";
    case GSP_VT_YES_NAUTY: return "nauty: one orbit";
    case GSP_VT_NO_DEGREE: return "degrees differ";
    case GSP_VT_NO_NAUTY: return "nauty: several orbits";
    case GSP_VT_NO_DISTANCES: return "distance counts differ between nodes";
    default: return "not decided (too large for nauty)";
    }
}

static const char *spectrum_how_name(gsp_spectrum_how_t h) {
    switch (h) {
    case GSP_SPECTRUM_ABELIAN: return "abelian formula";
    case GSP_SPECTRUM_PRODUCT: return "product of factors";
    case GSP_SPECTRUM_DENSE: return "LAPACKE dsyevd";
    }
    return "?";
}

/* Names of a vertex set, at most `most` of them (all when most < 0), into a JSON array or a line. */
static void json_set(gsp_jw_t *w, const gsp_topo_t *t, const int64_t *set, int64_t len) {
    char b[24];
    gsp_jw_arr_begin(w);
    for (int64_t i = 0; i < len; i++) gsp_jw_str(w, gsp_topo_node_name(t, set[i], b));
    gsp_jw_arr_end(w);
}

static void print_set(const gsp_topo_t *t, const int64_t *set, int64_t len) {
    char b[24];
    if (2 * len > t->n) { /* a large S by what it leaves out */
        printf("S = every vertex but {");
        int64_t shown = 0, k = 0;
        for (int64_t x = 0; x < t->n; x++) {
            while (k < len && set[k] < x) k++;
            if (k < len && set[k] == x) continue;
            if (shown < 6) printf("%s%s", shown ? " " : "", gsp_topo_node_name(t, x, b));
            shown++;
        }
        if (shown > 6) printf(" ... %lld vertices in all", (long long)shown);
        printf("}");
        return;
    }
    printf("S = {");
    for (int64_t i = 0; i < len && i < 6; i++) printf("%s%s", i ? " " : "", gsp_topo_node_name(t, set[i], b));
    if (len > 6) printf(" ... %lld vertices in all", (long long)len);
    printf("}");
}

/* A capacity c / cap_scale in the file's unit, exactly: a decimal when it has one, else a
 * fraction (a fat tree's uplinks may carry 4/3). */
static void cap_text(const gsp_topo_t *t, int64_t c, char *out, size_t size) {
    int64_t num = c, den = t->cap_scale > 0 ? t->cap_scale : 1, a = num, b = den;
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    num /= a, den /= a;
    int64_t d = den, p10 = 1;
    int dec = 0;
    while (d % 10 == 0 || d % 2 == 0 || d % 5 == 0) {
        if (d % 10 == 0) d /= 10;
        else if (d % 2 == 0) d /= 2;
        else d /= 5;
    }
    if (d != 1 || den > 1000000000000LL) {
        snprintf(out, size, "%lld/%lld", (long long)num, (long long)den);
        return;
    }
    while (p10 % den) p10 *= 10, dec++;
    int64_t scaled = num * (p10 / den);
    if (dec == 0) snprintf(out, size, "%lld", (long long)num);
    else snprintf(out, size, "%lld.%0*lld", (long long)(scaled / p10), dec & 15, (long long)(scaled % p10));
}

/* Work of the optimum: about N maximum flows, each at worst a few passes over the m arcs (a
 * hub's). Plain graphs above the first limit get no optimum in --json; fabrics above the second
 * (minutes) get none, and say so. */
#define INFO_OPTIMUM_WORK 200000000LL
#define INFO_OPTIMUM_WORK_FABRIC 20000000000LL

static int run(int argc, char **argv) {
    const char *spec = NULL;
    const char *root_name = NULL;
    bool json = false, want_spectrum = true, want_rotation = true, want_optimum = true;
    static const cli_optdef_t defs[] = {{"json", false}, {"no-spectrum", false}, {"no-rotation", false}, {"root", true}, {"no-optimum", false}, {"progress", false}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "info", usage_text, defs, argc, argv);
    const char *a, *v;
    int r;
    while ((r = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) {
            if (spec) return cli_usage_error("info: more than one SPEC ('%s' and '%s')", spec, v);
            spec = v;
        } else if (!strcmp(a, "--help")) return cli_help(&cmd_info);
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--progress")) cli_progress_force();
        else if (!strcmp(a, "--no-spectrum")) want_spectrum = false;
        else if (!strcmp(a, "--root")) root_name = v;
        else if (!strcmp(a, "--no-optimum")) want_optimum = false;
        else want_rotation = false; /* --no-rotation */
    }
    if (r < 0) return EXIT_USAGE;
    if (!spec) return cli_usage_error("info: missing SPEC (see 'gossip info --help')");

    int rc = EXIT_OK;
    gsp_err_t err;
    gsp_topo_t t;
    gsp_distances_t dist = {0};
    gsp_rotation_t rot = {0};
    gsp_bounds_t bounds = {0};
    double *eig = NULL;
    gsp_spectrum_how_t how = 0;
    gsp_err_t spec_err = GSP_OK;
    char spec_msg[512] = "";
    char *iso = NULL; /* a known Cayley spec the graph is isomorphic to */
    gsp_vt_t vt;
    bool have_rot = false;
    gsp_optimum_t opt[4] = {{0}};
    static const gsp_collective_t opt_coll[4] = {GSP_COLL_ALLGATHER, GSP_COLL_REDUCE_SCATTER, GSP_COLL_ALLREDUCE, GSP_COLL_BROADCAST};
    static const char *const opt_key[4] = {"allgather", "reduce_scatter", "allreduce", "broadcast"};
    bool have_opt = false;
    int64_t root = -1;
    double t0 = cli_now();

    if ((err = gsp_topo_from_spec(&t, spec))) return cli_lib_error(err);
    bool fabric = gsp_topo_is_fabric(&t);
    int64_t ncompute = gsp_topo_compute_count(&t);
    if (root_name) {
        char b[24];
        for (int64_t x = 0; x < t.n && root < 0; x++)
            if (!strcmp(gsp_topo_node_name(&t, x, b), root_name)) root = x;
        if (root < 0) {
            gsp_topo_destroy(&t);
            return cli_usage_error("info: --root %s is not a vertex of %s", root_name, spec);
        }
        if (t.is_switch && t.is_switch[root]) {
            gsp_topo_destroy(&t);
            return cli_usage_error("info: --root %s is a switch; a broadcast starts at a compute node", root_name);
        }
    }
    for (int64_t x = 0; x < t.n && root < 0; x++)
        if (!t.is_switch || !t.is_switch[x]) root = x;
    if (root_name && (!want_optimum || (!fabric && !json))) {
        gsp_topo_destroy(&t);
        return cli_usage_error("info: --root applies to the throughput optimum (on a fabric, or with --json)");
    }
    /* The optimum: always on a fabric, on other graphs where N max-flows are cheap. */
    double opt_work = (double)ncompute * (double)(t.m + t.n);
    bool opt_skipped = want_optimum && fabric && opt_work > (double)INFO_OPTIMUM_WORK_FABRIC;
    if (want_optimum && !opt_skipped && (fabric || (json && opt_work <= (double)INFO_OPTIMUM_WORK))) {
        if ((err = gsp_optimum_all(&t, root, opt))) goto fail;
        have_opt = true;
    }
    if ((err = gsp_vertex_transitive(&t, &vt))) goto fail;
    /* A vertex-transitive file graph may be a known Cayley graph relabelled (nauty). */
    int64_t *iso_map = NULL;
    if (!fabric && !t.group && vt == GSP_VT_YES_NAUTY && (err = gsp_cayley_match(&t, &iso, &iso_map))) goto fail;
    gsp_free(iso_map);
    /* And whether any group fits: a regular subgroup of Aut (nauty's generators, listed). */
    int cayley = t.group ? 1 : vt == GSP_VT_YES_NAUTY ? -1 : 0;
    double aut_order = 0;
    if (!fabric && !t.group && vt == GSP_VT_YES_NAUTY && !iso && (err = gsp_cayley_regular(&t, &cayley, &aut_order, NULL))) goto fail;
    if (iso) cayley = 1;
    /* Exact everywhere the cost allows; on a large graph that is not vertex-transitive the
     * diameter by iFUB and the average distance exact for a tree, else estimated (seed 1). */
    if ((err = gsp_distances_large(&t, gsp_vt_yes(vt), &(gsp_distances_opts_t){.samples = INFO_SAMPLES, .seed = 1}, &dist, cli_progress,
                                   NULL)))
        goto fail;
    cli_progress_done();
    if (want_spectrum) {
        spec_err = gsp_spectrum(&t, &eig, &how);
        if (spec_err == GSP_ERR_NOMEM) {
            err = spec_err;
            goto fail;
        }
        if (spec_err) snprintf(spec_msg, sizeof spec_msg, "%s", gsp_errmsg());
    }
    if (want_rotation && t.group) {
        if ((err = gsp_rotation_find(&t, 0, &rot))) goto fail;
        have_rot = true;
    }
    gsp_model_t model = gsp_model_default();
    /* The round bounds count every vertex a rank with unit links: not a fabric's. */
    bool have_bounds = dist.connected && !fabric;
    if (have_bounds && (err = gsp_bounds_compute(&t, &dist, GSP_COLL_ALLGATHER, &model, -1, &bounds)))
        goto fail;

    double tol = eig ? gsp_spectrum_tolerance(eig, t.n) : 0;
    int64_t distinct = eig ? gsp_spectrum_distinct(eig, t.n, tol) : -1;
    double seconds = cli_now() - t0;

    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "topology"); gsp_jw_str(&w, t.spec);
        gsp_jw_key(&w, "nodes"); gsp_jw_int(&w, t.n);
        gsp_jw_key(&w, "names");
        if (t.names) {
            gsp_jw_arr_begin(&w);
            for (int64_t x = 0; x < t.n; x++) gsp_jw_str(&w, t.names[x]);
            gsp_jw_arr_end(&w);
        } else
            gsp_jw_null(&w);
        gsp_jw_key(&w, "arcs"); gsp_jw_int(&w, t.m);
        gsp_jw_key(&w, "directed"); gsp_jw_bool(&w, t.directed);
        gsp_jw_key(&w, "degree");
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "min"); gsp_jw_int(&w, t.dmin);
        gsp_jw_key(&w, "max"); gsp_jw_int(&w, t.dmax);
        if (t.directed) {
            gsp_jw_key(&w, "in_min"); gsp_jw_int(&w, t.in_dmin);
            gsp_jw_key(&w, "in_max"); gsp_jw_int(&w, t.in_dmax);
        }
        gsp_jw_obj_end(&w);
        gsp_jw_key(&w, "cayley"); gsp_jw_bool(&w, t.group != NULL);
        if (t.group) {
            gsp_jw_key(&w, "generators"); gsp_jw_int(&w, t.ngens);
            gsp_jw_key(&w, "abelian"); gsp_jw_bool(&w, gsp_group_is_abelian(t.group));
        }
        gsp_jw_key(&w, "connected"); gsp_jw_bool(&w, dist.connected);
        gsp_jw_key(&w, "diameter");
        if (dist.connected) gsp_jw_int(&w, dist.diameter); else gsp_jw_null(&w);
        gsp_jw_key(&w, "diameter_method"); gsp_jw_str(&w, dist.diameter_how);
        gsp_jw_key(&w, "average_distance"); gsp_jw_num(&w, dist.average_distance);
        gsp_jw_key(&w, "average_distance_exact"); gsp_jw_bool(&w, dist.average_exact);
        gsp_jw_key(&w, "average_distance_stderr"); gsp_jw_num(&w, dist.average_stderr);
        gsp_jw_key(&w, "average_distance_method"); gsp_jw_str(&w, dist.average_how);
        gsp_jw_key(&w, "distance_counts");
        gsp_jw_arr_begin(&w);
        for (int64_t i = 0; i < dist.counts.len; i++) gsp_jw_int(&w, dist.counts.v[i]);
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "distance_counts_scope");
        gsp_jw_str(&w, dist.per_node ? "per_node" : dist.sampled ? "sampled_sources" : "all_pairs");
        gsp_jw_key(&w, "distance_counts_sources"); gsp_jw_int(&w, dist.per_node ? 1 : dist.sampled ? dist.sampled : t.n);
        gsp_jw_key(&w, "bfs_runs"); gsp_jw_int(&w, dist.sources);
        gsp_jw_key(&w, "distinct_eigenvalues");
        if (eig) gsp_jw_int(&w, distinct); else gsp_jw_null(&w);
        gsp_jw_key(&w, "spectrum");
        if (eig) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "method"); gsp_jw_str(&w, spectrum_how_name(how));
            gsp_jw_key(&w, "min"); gsp_jw_num(&w, eig[0]);
            gsp_jw_key(&w, "max"); gsp_jw_num(&w, eig[t.n - 1]);
            gsp_jw_key(&w, "tolerance"); gsp_jw_num(&w, tol);
            if (distinct <= 64) {
                /* Distinct values with multiplicities, largest first. */
                gsp_jw_key(&w, "values");
                gsp_jw_arr_begin(&w);
                int64_t i = t.n - 1;
                while (i >= 0) {
                    int64_t j = i;
                    while (j > 0 && eig[j] - eig[j - 1] <= tol) j--;
                    gsp_jw_arr_begin(&w);
                    gsp_jw_num(&w, eig[i]);
                    gsp_jw_int(&w, i - j + 1);
                    gsp_jw_arr_end(&w);
                    i = j - 1;
                }
                gsp_jw_arr_end(&w);
            }
            gsp_jw_obj_end(&w);
        } else if (want_spectrum) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "error"); gsp_jw_str(&w, spec_msg);
            gsp_jw_obj_end(&w);
        } else {
            gsp_jw_null(&w);
        }
        gsp_jw_key(&w, "vertex_transitive");
        if (vt == GSP_VT_UNKNOWN) gsp_jw_null(&w); else gsp_jw_bool(&w, gsp_vt_yes(vt));
        gsp_jw_key(&w, "vertex_transitive_by"); gsp_jw_str(&w, vt_name(vt));
        gsp_jw_key(&w, "isomorphic_to");
        if (iso) gsp_jw_str(&w, iso); else gsp_jw_null(&w);
        gsp_jw_key(&w, "cayley_graph");
        if (cayley < 0) gsp_jw_null(&w); else gsp_jw_bool(&w, cayley == 1);
        gsp_jw_key(&w, "complete_rotation");
        if (have_rot) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "found"); gsp_jw_bool(&w, rot.found);
            if (rot.found) {
                gsp_jw_key(&w, "order");
                gsp_jw_arr_begin(&w);
                for (int i = 0; i < rot.d; i++) gsp_jw_int(&w, rot.order[i]);
                gsp_jw_arr_end(&w);
                gsp_jw_key(&w, "fixed_points"); gsp_jw_int(&w, rot.fixed_points);
            }
            gsp_jw_key(&w, "exhaustive"); gsp_jw_bool(&w, rot.found || rot.exhaustive);
            gsp_jw_key(&w, "orders_checked"); gsp_jw_int(&w, rot.candidates);
            gsp_jw_obj_end(&w);
        } else {
            gsp_jw_null(&w);
        }
        gsp_jw_key(&w, "bounds");
        gsp_jw_obj_begin(&w);
        for (int i = 0; i < bounds.count; i++) {
            gsp_jw_key(&w, bounds.b[i].name);
            gsp_jw_int(&w, bounds.b[i].value);
        }
        gsp_jw_obj_end(&w);
        gsp_jw_key(&w, "lower_bound");
        if (have_bounds) gsp_jw_int(&w, gsp_bounds_value(&bounds)); else gsp_jw_null(&w);
        gsp_jw_key(&w, "bounds_for"); gsp_jw_str(&w, "allgather, 1 packet per arc per round, all ports, full duplex");
        gsp_jw_key(&w, "compute_nodes"); gsp_jw_int(&w, ncompute);
        gsp_jw_key(&w, "switches");
        gsp_jw_arr_begin(&w);
        for (int64_t x = 0; x < t.n && t.is_switch; x++) {
            char b[24];
            if (t.is_switch[x]) gsp_jw_str(&w, gsp_topo_node_name(&t, x, b));
        }
        gsp_jw_arr_end(&w);
        if (t.nswitch) { /* rank r is the r-th vertex that is not a switch */
            gsp_jw_key(&w, "ranks");
            gsp_jw_arr_begin(&w);
            for (int64_t x = 0; x < t.n; x++) {
                char b[24];
                if (!t.is_switch[x]) gsp_jw_str(&w, gsp_topo_node_name(&t, x, b));
            }
            gsp_jw_arr_end(&w);
        }
        gsp_jw_key(&w, "capacities");
        if (t.cap) {
            int64_t lo = INT64_MAX, hi = 0;
            for (int64_t e = 0; e < t.m; e++) lo = t.cap[e] < lo ? t.cap[e] : lo, hi = t.cap[e] > hi ? t.cap[e] : hi;
            char b[48];
            double sc = (double)t.cap_scale;
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "min"); gsp_jw_num(&w, (double)lo / sc);
            gsp_jw_key(&w, "max"); gsp_jw_num(&w, (double)hi / sc);
            cap_text(&t, lo, b, sizeof b);
            gsp_jw_key(&w, "min_exact"); gsp_jw_str(&w, b);
            cap_text(&t, hi, b, sizeof b);
            gsp_jw_key(&w, "max_exact"); gsp_jw_str(&w, b);
            gsp_jw_obj_end(&w);
        } else
            gsp_jw_null(&w);
        gsp_jw_key(&w, "optimum");
        if (have_opt) {
            gsp_jw_obj_begin(&w);
            for (int i = 0; i < 4; i++) {
                gsp_jw_key(&w, opt_key[i]);
                if (!opt[i].defined) {
                    gsp_jw_null(&w);
                    continue;
                }
                char frac[64];
                if (opt[i].den == 1) snprintf(frac, sizeof frac, "%lld", (long long)opt[i].num);
                else snprintf(frac, sizeof frac, "%lld/%lld", (long long)opt[i].num, (long long)opt[i].den);
                gsp_jw_obj_begin(&w);
                gsp_jw_key(&w, "algbw"); gsp_jw_str(&w, frac);
                gsp_jw_key(&w, "algbw_value"); gsp_jw_num(&w, opt[i].value);
                gsp_jw_key(&w, "binding_cut"); json_set(&w, &t, opt[i].cut, opt[i].cut_len);
                if (opt[i].cut2) {
                    gsp_jw_key(&w, "binding_cut_reduce_scatter"); json_set(&w, &t, opt[i].cut2, opt[i].cut2_len);
                }
                if (opt_coll[i] == GSP_COLL_BROADCAST) {
                    char b[24];
                    gsp_jw_key(&w, "root"); gsp_jw_str(&w, gsp_topo_node_name(&t, root, b));
                }
                gsp_jw_key(&w, "max_flows"); gsp_jw_int(&w, opt[i].flows);
                gsp_jw_obj_end(&w);
            }
            gsp_jw_obj_end(&w);
        } else
            gsp_jw_null(&w);
        gsp_jw_key(&w, "seconds"); gsp_jw_num(&w, seconds);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w); /* a failed write of stdout is reported by main: exit 3 with the reason */
    } else {
        printf("%-19s %s\n", "topology", t.spec);
        printf("%-19s %lld\n", "nodes", (long long)t.n);
        bool one_based = t.names != NULL;
        for (int64_t x = 0; one_based && x < t.n; x++) {
            char num[24];
            snprintf(num, sizeof num, "%lld", (long long)x + 1);
            one_based = !strcmp(t.names[x], num);
        }
        if (one_based) printf("%-19s file ids 1..%lld read as nodes 0..%lld (the file is 1-based)\n", "names", (long long)t.n, (long long)t.n - 1);
        else if (t.names) {
            /* The index every schedule uses, and the name the file gives. */
            printf("%-19s", "names");
            for (int64_t x = 0; x < t.n && x < 8; x++) printf(" %lld=%s", (long long)x, t.names[x]);
            printf("%s\n", t.n > 8 ? " ... (all of them in --json)" : "");
        }
        printf("%-19s %lld%s\n", "arcs", (long long)t.m, t.directed ? " (directed)" : "");
        if (t.dmin == t.dmax) printf("%-19s %lld (regular)\n", "degree", (long long)t.dmin);
        else printf("%-19s %lld..%lld\n", "degree", (long long)t.dmin, (long long)t.dmax);
        if (t.group)
            printf("%-19s Cayley graph, %d generators, %s\n", "group", t.ngens,
                   gsp_group_is_abelian(t.group) ? "abelian" : "non-abelian");
        printf("%-19s %s (%s)\n", "vertex-transitive",
               vt == GSP_VT_UNKNOWN ? "unknown" : gsp_vt_yes(vt) ? "yes" : "no", vt_name(vt));
        if (iso) printf("%-19s %s (nauty's canonical forms; plan allgather uses its group)\n", "isomorphic to", iso);
        else if (!fabric && !t.group && vt == GSP_VT_YES_NAUTY) {
            /* On a fabric neither search runs (docs/fabrics.md): a capacity or a switch is no
             * group's, and "none" or an order of 0 would be false. */
            printf("%-19s none of the known Cayley families (tori, hypercubes, star graphs, complete graphs, circulants C(N; 1, b))\n",
                   "isomorphic to");
            if (cayley == 1) printf("%-19s yes: Aut (order %.0f) has a regular subgroup, of no known family\n", "Cayley graph", aut_order);
            else if (cayley == 0)
                printf("%-19s no: Aut (order %.0f) has no regular subgroup (exhaustive search), so no group fits\n", "Cayley graph", aut_order);
            else printf("%-19s unknown (Aut of order %g is too large to search)\n", "Cayley graph", aut_order);
        }
        /* Small graphs as always; a large one says how its figures were found. */
        bool large = dist.sampled > 0;
        if (dist.connected) printf("%-19s %lld%s\n", "diameter", (long long)dist.diameter, large ? " (exact: iFUB, a few BFS)" : "");
        else printf("%-19s infinite (not %sconnected)\n", "diameter", t.directed ? "strongly " : "");
        char avg_how[160] = "";
        if (large && dist.average_exact) snprintf(avg_how, sizeof avg_how, " (exact: %s)", dist.average_how);
        else if (large)
            snprintf(avg_how, sizeof avg_how, " +- %.2g (estimate: BFS from %lld random nodes; +- one standard error)", dist.average_stderr,
                     (long long)dist.sampled);
        if (dist.connected) printf("%-19s %g%s\n", "average distance", dist.average_distance, avg_how);
        else printf("%-19s %g%s (over the ordered pairs that are connected only)\n", "average distance", dist.average_distance, avg_how);
        printf("%-19s", dist.per_node ? "nodes at distance" : "pairs at distance");
        /* Long distributions are elided in the middle; --json has them whole. */
        for (int64_t i = 0; i < dist.counts.len; i++) {
            if (dist.counts.len > 32 && i == 16) {
                printf(" ...");
                i = dist.counts.len - 9;
                continue;
            }
            printf(" %lld", (long long)dist.counts.v[i]);
        }
        if (large) printf(" (from %lld random nodes)", (long long)dist.sampled);
        putchar('\n');
        if (eig)
            printf("%-19s %s: %lld distinct eigenvalues in [%.6g, %.6g] (tolerance %.3g)\n",
                   "spectrum", spectrum_how_name(how), (long long)distinct, eig[0], eig[t.n - 1], tol);
        else if (want_spectrum)
            printf("%-19s not computed: %s\n", "spectrum", spec_msg);
        if (have_rot) {
            if (rot.found) {
                printf("%-19s yes: generator order", "complete rotation");
                for (int i = 0; i < rot.d; i++) printf(" %d", rot.order[i]);
                printf(", %lld fixed points\n", (long long)rot.fixed_points);
            } else {
                printf("%-19s %s (%lld orders checked)\n", "complete rotation",
                       rot.exhaustive ? "none" : "none found, search cut short",
                       (long long)rot.candidates);
            }
        } else if (want_rotation) {
            printf("%-19s not applicable (no group given%s%s)\n", "complete rotation", iso ? "; see " : "", iso ? iso : "");
        }
        if (fabric) {
            if (t.nswitch)
                printf("%-19s %lld (the ranks; the other %lld %s)\n", "compute nodes", (long long)ncompute, (long long)t.nswitch,
                       t.nswitch == 1 ? "vertex is a switch" : "vertices are switches");
            else printf("%-19s %lld (every vertex is a rank)\n", "compute nodes", (long long)ncompute);
            if (t.nswitch) {
                char b[24];
                int64_t shown = 0;
                printf("%-19s %lld:", "switches", (long long)t.nswitch);
                for (int64_t x = 0; x < t.n && shown < 8; x++)
                    if (t.is_switch[x]) printf(" %s", gsp_topo_node_name(&t, x, b)), shown++;
                printf("%s\n", t.nswitch > shown ? " ... (all of them in --json)" : "");
            }
            if (t.cap) {
                /* Arcs by capacity, fewest distinct values first listed in increasing order. */
                int64_t shown = 0, prev = 0;
                printf("%-19s", "capacities");
                for (;;) {
                    int64_t next = INT64_MAX, count = 0;
                    for (int64_t e = 0; e < t.m; e++)
                        if (t.cap[e] > prev && t.cap[e] < next) next = t.cap[e];
                    if (next == INT64_MAX) break;
                    for (int64_t e = 0; e < t.m; e++) count += t.cap[e] == next;
                    char b[48];
                    cap_text(&t, next, b, sizeof b);
                    if (shown++ < 8) printf(" %s (%lld arcs)", b, (long long)count);
                    prev = next;
                }
                printf("%s\n", shown > 8 ? " ..." : "");
            }
        }
        if (opt_skipped)
            printf("%-19s not computed: %lld compute nodes x %lld vertices and arcs is above %.0e (N max-flows)\n", "optimum", (long long)ncompute,
                   (long long)(t.m + t.n), (double)INFO_OPTIMUM_WORK_FABRIC);
        if (have_opt) {
            static const char *const label[4] = {"  allgather", "  reduce-scatter", "  allreduce", "  broadcast"};
            printf("%-19s algbw = M / T*, exact, in the capacities' unit%s\n", "optimum", t.cap ? "" : " (1 per arc)");
            for (int i = 0; i < 4; i++) {
                if (!opt[i].defined) {
                    printf("%-19s none (fewer than two compute nodes)\n", label[i]);
                    continue;
                }
                char frac[64];
                if (opt[i].den == 1) snprintf(frac, sizeof frac, "%lld", (long long)opt[i].num);
                else snprintf(frac, sizeof frac, "%lld/%lld = %.6g", (long long)opt[i].num, (long long)opt[i].den, opt[i].value);
                printf("%-19s %s", label[i], frac);
                if (opt_coll[i] == GSP_COLL_BROADCAST) {
                    char b[24];
                    printf(" from %s", gsp_topo_node_name(&t, root, b));
                }
                if (opt_coll[i] == GSP_COLL_ALLREDUCE) printf(" (= 1 / (1/reduce-scatter + 1/allgather))\n");
                else {
                    printf(", binding cut ");
                    print_set(&t, opt[i].cut, opt[i].cut_len);
                    putchar('\n');
                }
            }
        }
        if (have_bounds) {
            printf("%-19s allgather (1 packet/arc):", "lower bounds");
            for (int i = 0; i < bounds.count; i++)
                printf("%s %s %lld", i ? "," : "", bounds.b[i].name, (long long)bounds.b[i].value);
            printf(" (binding: %s %lld)\n", bounds.b[bounds.binding].name,
                   (long long)bounds.b[bounds.binding].value);
        }
    }
    goto done;
fail:
    rc = cli_lib_error(err);
done:
    for (int i = 0; i < 4; i++) gsp_optimum_destroy(&opt[i]);
    gsp_free(eig);
    gsp_free(iso);
    gsp_rotation_destroy(&rot);
    gsp_distances_destroy(&dist);
    gsp_topo_destroy(&t);
    return rc;
}

const cli_command_t cmd_info = {"info", "invariants, spectrum, rotations and lower bounds of a topology",
                                run, usage_text};

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_info.c — `gossip info SPEC`: invariants, spectrum summary, complete rotation and lower
 * bounds of a topology. Symmetry first: one BFS for a vertex-transitive graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip info SPEC [--json] [--no-spectrum] [--no-rotation]\n"
    "\n"
    "Prints the invariants of a topology: nodes, arcs, degrees, diameter, average distance,\n"
    "the number of nodes at each distance, the adjacency spectrum (distinct eigenvalues),\n"
    "vertex-transitivity, a complete rotation (packet-gossip paper, Def. 12) with its fixed\n"
    "points, and the lower bounds on gossip rounds with one packet per arc per round.\n"
    "\n"
    "  --json          one JSON object on stdout (keys: nodes, arcs, degree, diameter,\n"
    "                  average_distance, distance_counts, distinct_eigenvalues,\n"
    "                  vertex_transitive, complete_rotation, bounds, ...)\n"
    "  --no-spectrum   skip the spectrum\n"
    "  --no-rotation   skip the complete-rotation search\n"
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

static int run(int argc, char **argv) {
    const char *spec = NULL;
    bool json = false, want_spectrum = true, want_rotation = true;
    static const cli_optdef_t defs[] = {{"json", false}, {"no-spectrum", false}, {"no-rotation", false}, {NULL, false}};
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
        else if (!strcmp(a, "--no-spectrum")) want_spectrum = false;
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
    double t0 = cli_now();

    if ((err = gsp_topo_from_spec(&t, spec))) return cli_lib_error(err);
    if ((err = gsp_vertex_transitive(&t, &vt))) goto fail;
    /* A vertex-transitive file graph may be a known Cayley graph relabelled (nauty). */
    int64_t *iso_map = NULL;
    if (!t.group && vt == GSP_VT_YES_NAUTY && (err = gsp_cayley_match(&t, &iso, &iso_map))) goto fail;
    gsp_free(iso_map);
    /* And whether any group fits: a regular subgroup of Aut (nauty's generators, listed). */
    int cayley = t.group ? 1 : vt == GSP_VT_YES_NAUTY ? -1 : 0;
    double aut_order = 0;
    if (!t.group && vt == GSP_VT_YES_NAUTY && !iso && (err = gsp_cayley_regular(&t, &cayley, &aut_order, NULL))) goto fail;
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
    bool have_bounds = dist.connected;
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
        else if (!t.group && vt == GSP_VT_YES_NAUTY) {
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
    gsp_free(eig);
    gsp_free(iso);
    gsp_rotation_destroy(&rot);
    gsp_distances_destroy(&dist);
    gsp_topo_destroy(&t);
    return rc;
}

const cli_command_t cmd_info = {"info", "invariants, spectrum, rotations and lower bounds of a topology",
                                run, usage_text};

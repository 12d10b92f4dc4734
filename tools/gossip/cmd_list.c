/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_list.c — `gossip list`: the method registry, optionally filtered by collective and by
 * whether a method applies to a topology. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gossip/runtime.h"
#include "gossip/algo.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip list [--collective C] [--topology SPEC [--packets P|inf] [--ports all|1]\n"
    "                   [--duplex full|half]] [--json]\n"
    "       gossip list --runtime [--collective C] [--json]\n"
    "\n"
    "Lists the construction methods: name, collective, where each applies, and its source.\n"
    "With --topology, says for each method whether it applies there and, if not, why.\n"
    "With --runtime, lists instead the MPI runtime's exact algorithms (the registry 'gossip plan\n"
    "COLLECTIVE SPEC --bytes B' chooses from), as a markdown table.\n"
    "\n"
    "  --collective C   only C's methods: broadcast, allgather, allreduce, reduce-scatter (with\n"
    "                   --runtime also reduce)\n"
    "  --topology SPEC  whether each method applies to SPEC and, if not, why\n"
    "  --packets P      with --topology: packets per arc per round (default 1), or inf\n"
    "  --ports          with --topology: all (default) or 1\n"
    "  --duplex         with --topology: full (default) or half\n"
    "  --runtime        the runtime's algorithms instead of the construction methods\n"
    "  --json           one JSON object: methods [{name, collective, where, source; with\n"
    "                   --topology applies, why_not}], or with --runtime algorithms\n"
    "\n"
    "example:\n"
    "  $ gossip list --collective broadcast --topology hypercube:4 --ports 1\n";



/* The runtime's registry: one row per algorithm (the table of docs/runtime.md). */
static int run_runtime(gsp_collective_t coll, bool json) {
    gsp_jw_t w;
    if (json) {
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "algorithms");
        gsp_jw_arr_begin(&w);
    } else {
        printf("| algorithm | collectives | where | what it runs | rounds |\n");
        printf("|---|---|---|---|---|\n");
    }
    for (int i = 0; i < gsp_rt_registry_size(); i++) {
        gsp_rt_info_t e;
        gsp_rt_registry_entry(i, &e);
        if (coll && !(e.collectives & (1u << coll))) continue;
        char cs[128] = "";
        size_t used = 0;
        for (int c = GSP_COLL_BROADCAST; c <= GSP_COLL_REDUCE; c++)
            if (e.collectives & (1u << c))
                used += (size_t)snprintf(cs + used, sizeof cs - used, "%s%s", used ? ", " : "", gsp_collective_name((gsp_collective_t)c));
        if (json) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "name"); gsp_jw_str(&w, e.name);
            gsp_jw_key(&w, "collectives");
            gsp_jw_arr_begin(&w);
            for (int c = GSP_COLL_BROADCAST; c <= GSP_COLL_REDUCE; c++)
                if (e.collectives & (1u << c)) gsp_jw_str(&w, gsp_collective_name((gsp_collective_t)c));
            gsp_jw_arr_end(&w);
            gsp_jw_key(&w, "where"); gsp_jw_str(&w, e.where);
            gsp_jw_key(&w, "what"); gsp_jw_str(&w, e.what);
            gsp_jw_key(&w, "rounds"); gsp_jw_str(&w, e.rounds);
            gsp_jw_obj_end(&w);
        } else
            printf("| `%s` | %s | %s | %s | %s |\n", e.name, cs, e.where, e.what, e.rounds);
    }
    if (json) {
        gsp_jw_arr_end(&w);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    }
    return EXIT_OK;
}

static int run(int argc, char **argv) {
    const char *coll_s = NULL, *spec = NULL;
    bool json = false, runtime = false, model_given = false;
    gsp_model_t model = gsp_model_default();
    static const cli_optdef_t defs[] = {{"json", false}, {"collective", true}, {"topology", true}, {"packets", true},
                                        {"ports", true},  {"duplex", true},     {"runtime", false}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "list", usage_text, defs, argc, argv);
    const char *a, *v;
    int r;
    while ((r = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) return cli_usage_error("list: unexpected argument '%s'", v);
        if (!strcmp(a, "--help")) return cli_help(&cmd_list);
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--runtime")) runtime = true;
        else if (!strcmp(a, "--collective")) coll_s = v;
        else if (!strcmp(a, "--topology")) spec = v;
        else if (!cli_parse_model(a, v, &model)) return EXIT_USAGE;
        else model_given = true;
    }
    if (r < 0) return EXIT_USAGE;
    gsp_collective_t coll = 0;
    if (coll_s && !gsp_collective_parse(coll_s, &coll))
        return cli_usage_error("list: unknown collective '%s'", coll_s);
    if (runtime && (spec || model_given))
        return cli_usage_error("list: --runtime lists the runtime's algorithms; --topology and the model options do not apply");
    if (runtime) return run_runtime(coll, json);
    if (coll == GSP_COLL_REDUCE) /* an empty table would look like "nothing applies" */
        return cli_usage_error("list: reduce has no construction methods, only runtime algorithms (gossip list --runtime --collective reduce)");
    if (model_given && !spec)
        return cli_usage_error("list: --packets, --ports and --duplex apply with --topology (whether each method applies there)");
    gsp_topo_t t = {0};
    gsp_distances_t dist = {0};
    gsp_err_t err;
    if (spec) {
        gsp_vt_t vt;
        if ((err = gsp_topo_from_spec(&t, spec))) return cli_lib_error(err);
        if ((err = gsp_vertex_transitive(&t, &vt)) || (err = gsp_distances(&t, gsp_vt_yes(vt), &dist, NULL, NULL))) {
            gsp_topo_destroy(&t);
            return cli_lib_error(err);
        }
    }
    gsp_plan_in_t in = {&t, &dist, model, -1, 1, NULL, NULL, 0, 0};
    int count;
    const gsp_method_t *const *ms = gsp_methods(&count);
    gsp_jw_t w;
    if (json) {
        /* One object, like every --json: the methods under "methods". */
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "topology");
        if (spec) gsp_jw_str(&w, spec); else gsp_jw_null(&w);
        gsp_jw_key(&w, "methods");
        gsp_jw_arr_begin(&w);
    } else {
        printf("%-16s %-14s %s\n", "method", "collective", spec ? "applies" : "where / source");
    }
    for (int i = 0; i < count; i++) {
        const gsp_method_t *m = ms[i];
        if (coll && m->coll != coll) continue;
        char why[256] = "";
        bool ok = spec ? gsp_method_applies(m, &in, why, sizeof why) : true;
        /* The row names the method and the command the topology: neither is repeated. */
        const char *why_not = spec ? gsp__unprefixed(gsp__unprefixed(why, m->name), t.spec) : why;
        if (json) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "name"); gsp_jw_str(&w, m->name);
            gsp_jw_key(&w, "collective"); gsp_jw_str(&w, gsp_collective_name(m->coll));
            gsp_jw_key(&w, "where"); gsp_jw_str(&w, m->where);
            gsp_jw_key(&w, "source"); gsp_jw_str(&w, m->source);
            gsp_jw_key(&w, "applies");
            if (spec) gsp_jw_bool(&w, ok); else gsp_jw_null(&w);
            gsp_jw_key(&w, "why_not");
            if (spec && !ok) gsp_jw_str(&w, why_not); else gsp_jw_null(&w);
            gsp_jw_obj_end(&w);
        } else if (spec) {
            printf("%-16s %-14s %s%s\n", m->name, gsp_collective_name(m->coll), ok ? "yes" : "no: ", why_not);
        } else {
            printf("%-16s %-14s %s [%s]\n", m->name, gsp_collective_name(m->coll), m->where, m->source);
        }
    }
    if (json) {
        gsp_jw_arr_end(&w);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    }
    gsp_distances_destroy(&dist);
    gsp_topo_destroy(&t);
    return EXIT_OK;
}

const cli_command_t cmd_list = {"list", "the construction methods and where they apply", run, usage_text};

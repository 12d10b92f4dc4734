/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_draw.c — `gossip draw (SPEC | FILE) -o OUT.svg`: the broadcast tree of an optimal
 * allgather on a topology (planned with auto), or of a schedule file; with --topology-only the
 * topology alone (circulants on the rhombus of relative addresses). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip draw (SPEC | FILE) -o OUT.svg [--packets P] [--method M] [--topology-only]\n"
    "       gossip draw FABRIC -o OUT.svg [--root NAME]\n"
    "\n"
    "Draws the broadcast tree of node 0's packet: every node labelled with the round in which\n"
    "it is reached, arcs coloured by generator (as Fig. 3-6 of the packet-gossip paper).\n"
    "With a SPEC an allgather is planned first (--method, default auto); with a schedule FILE\n"
    "(.json) its own tree is drawn. 2-D tori are centred on node 0; circulants with two jumps\n"
    "are placed by their relative address (the rhombus of the circulant paper, Fig. 1a); any\n"
    "other graph up to 400 nodes (hypercubes, star graphs, files) by igraph's Kamada-Kawai\n"
    "layout, which puts neighbours together. Arcs that wrap around are short dashed stubs.\n"
    "The legend says what each generator does: a vector added ((1,0), (-1,0), ...) or the\n"
    "positions a permutation swaps. On a fabric (switches or capacities, docs/fabrics.md) it\n"
    "draws the allgather trees of one compute node (--root NAME, default the first) that reach\n"
    "the throughput optimum: a panel per tree, routes through the switches coloured by level.\n"
    "--topology-only draws the graph alone: labels are node\n"
    "numbers, edges coloured by generator (with its inverse), host names of files below.\n"
    "OUT.svg is written whole or not at all (a temporary file renamed over it); '-' is standard\n"
    "output, and a device or a FIFO is written in place. FILE '-' reads a schedule from standard\n"
    "input.\n"
    "\n"
    "  -o OUT.svg       the picture ('-': standard output)\n"
    "  --method M       with a SPEC: the allgather construction drawn (default auto)\n"
    "  --packets P      with a SPEC: packets per arc per round of that allgather (default 1)\n"
    "  --topology-only  the graph alone, without a schedule\n"
    "  --root NAME      on a fabric: the compute node whose trees are drawn (default the first)\n"
    "\n"
    "example:\n"
    "  $ gossip draw torus:5x5 -o torus5.svg\n"
    "  $ gossip draw optcirc:25 --topology-only -o rhombus.svg\n";

/* A fabric's allgather trees of one root, drawn by gsp_forest_svg. */
static int draw_fabric(const gsp_topo_t *t, const char *root_name, const char *outpath) {
    gsp_forest_t f = {0};
    gsp_err_t err;
    int64_t root = -1;
    char b[24];
    int rc = EXIT_OK;
    for (int64_t x = 0; x < t->n && root < 0; x++)
        if (root_name ? !strcmp(gsp_topo_node_name(t, x, b), root_name) : !t->is_switch || !t->is_switch[x]) root = x;
    if (root < 0) return cli_usage_error("draw: --root %s is not a vertex of %s", root_name, t->spec);
    if (t->is_switch && t->is_switch[root]) return cli_usage_error("draw: --root %s is a switch; trees start at compute nodes", root_name);
    if ((err = gsp_fabric_trees(t, GSP_COLL_ALLGATHER, -1, &f))) return cli_lib_error(err);
    gsp_out_t out;
    if ((err = gsp_out_open(&out, outpath))) rc = cli_lib_error(err);
    else if ((err = gsp_out_close(&out, gsp_forest_svg(t, &f, root, out.f)))) rc = cli_write_error(err);
    gsp_forest_destroy(&f);
    return rc;
}

static int run(int argc, char **argv) {
    const char *what = NULL, *outpath = NULL, *method = "auto";
    bool topo_only = false;
    gsp_model_t model = gsp_model_default();
    const char *root_name = NULL;
    static const cli_optdef_t defs[] = {{"o", true}, {"method", true}, {"packets", true}, {"topology-only", false}, {"root", true}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "draw", usage_text, defs, argc, argv);
    const char *a, *v;
    int r;
    while ((r = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) {
            if (what) return cli_usage_error("draw: more than one SPEC or FILE");
            what = v;
        } else if (!strcmp(a, "--help")) return cli_help(&cmd_draw);
        else if (!strcmp(a, "--topology-only")) topo_only = true;
        else if (!strcmp(a, "-o")) outpath = v;
        else if (!strcmp(a, "--method")) method = v;
        else if (!strcmp(a, "--root")) root_name = v;
        else if (!cli_parse_model(a, v, &model)) return EXIT_USAGE; /* --packets */
    }
    if (r < 0) return EXIT_USAGE;
    if (!what || !outpath) return cli_usage_error("draw: expected SPEC or FILE and -o OUT.svg");
    /* The drawing is SVG: a file named otherwise would hold something it does not say (a
     * stream has no such name: "-", a FIFO, a device). */
    size_t olen = strlen(outpath);
    if ((olen < 4 || strcasecmp(outpath + olen - 4, ".svg")) && !gsp_out_in_place(outpath))
        return cli_usage_error("draw: writes SVG only: name the output *.svg (for a PNG, convert it: rsvg-convert OUT.svg -o OUT.png)");
    size_t len = strlen(what);
    bool file = (len > 5 && !strcmp(what + len - 5, ".json")) || !strcmp(what, "-");
    static const char *const plan_opts[] = {"--method", "--packets", NULL};
    const char *given = cli_args_any(&ps, plan_opts);
    if (given && file) return cli_usage_error("draw: %s applies to a SPEC (planned first), not to a schedule FILE", given);
    if (given && topo_only) return cli_usage_error("draw: %s plans a schedule; --topology-only draws none", given);
    gsp_topo_t t = {0};
    gsp_sched_t s = {0};
    gsp_plan_t plan = {0};
    gsp_distances_t dist = {0};
    gsp_err_t err;
    int rc = EXIT_OK;
    const gsp_sched_t *sp = NULL;
    if (file) {
        if ((err = gsp_sched_load(&s, what)) || (err = cli_sched_topology(&s, &t))) goto fail;
        gsp_report_t rep;
        if ((err = gsp_sched_verify_flags(&s, &t, 1, GSP_VERIFY_NO_EXPAND, &rep))) goto fail;
        if (!rep.ok) {
            rc = cli_usage_error("draw: the schedule is incorrect (rule %s: %s)", gsp_rule_name(rep.rule), rep.message);
            goto done;
        }
        if (s.coll == GSP_COLL_ALLREDUCE) {
            rc = cli_usage_error("draw: allreduce schedules have no broadcast tree to draw");
            goto done;
        }
        sp = &s;
    } else {
        gsp_vt_t vt;
        if ((err = gsp_topo_from_spec(&t, what))) goto fail;
        if (root_name && (!gsp_topo_is_fabric(&t) || topo_only)) {
            rc = cli_usage_error("draw: --root picks whose trees are drawn on a fabric; %s", topo_only ? "--topology-only draws none" : "not a fabric");
            goto done;
        }
        if (gsp_topo_is_fabric(&t) && !topo_only) {
            if (given) {
                rc = cli_usage_error("draw: %s does not apply on a fabric (its trees reach the throughput optimum)", given);
                goto done;
            }
            rc = draw_fabric(&t, root_name, outpath);
            goto done;
        }
        if (!topo_only) {
            if ((err = gsp_vertex_transitive(&t, &vt)) || (err = gsp_distances(&t, gsp_vt_yes(vt), &dist, NULL, NULL))) goto fail;
            if (!dist.connected) {
                rc = cli_usage_error("draw: %s is not connected", what);
                goto done;
            }
            gsp_plan_in_t in = {&t, &dist, model, -1, 1, NULL, NULL, 0, 0};
            if ((err = gsp_plan(&in, GSP_COLL_ALLGATHER, method, &plan))) goto fail;
            sp = &plan.sched;
        }
    }
    {
        gsp_out_t out;
        if ((err = gsp_out_open(&out, outpath))) goto fail;
        if ((err = gsp_out_close(&out, gsp_draw_svg(sp, &t, out.f)))) {
            rc = cli_write_error(err);
            goto done;
        }
    }
    goto done;
fail:
    rc = cli_lib_error(err);
done:
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&dist);
    gsp_sched_destroy(&s);
    gsp_topo_destroy(&t);
    return rc;
}

const cli_command_t cmd_draw = {"draw", "SVG pictures: broadcast trees by round, circulant rhombus", run, usage_text};

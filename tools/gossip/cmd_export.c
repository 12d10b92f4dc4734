/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_export.c — `gossip export FILE --format msccl-json|msccl-xml`: a schedule in the formats
 * GPU collective runtimes read. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip export FILE --format msccl-json|msccl-xml [-o OUT] [--min-bytes B] [--max-bytes B]\n"
    "                    [--name NAME]\n"
    "\n"
    "Writes an allgather schedule (up to 1024 nodes; a symmetric schedule is expanded first) as\n"
    "  msccl-json  msccl-tools' algorithm JSON: steps[{rounds, sends: [[chunk, src, dst]]}],\n"
    "              input_map, output_map, collective, topology, instance\n"
    "  msccl-xml   MSCCL's <algo> XML with outofplace, minBytes and maxBytes (executors skip\n"
    "              files without them), one threadblock per peer and direction, a forwarded\n"
    "              chunk's send depending on its receive; within the executor's limits: an\n"
    "              arc's steps beyond 256 go on in another threadblock on another channel,\n"
    "              at most 32 threadblocks of a rank per channel (more channels then), 216\n"
    "              per rank (beyond: refused with the reason)\n"
    "and as msccl-xml only: a broadcast (one chunk per loop, the root's data from i to o; the\n"
    "file is for calls with the schedule's root), a reduce-scatter or a block-form allreduce\n"
    "(gossip plan allreduce --method rs-ag): receive-reduce-copy steps chained per chunk.\n"
    "A plan on a fabric (gossip plan COLLECTIVE FABRIC -o FILE) has the compute nodes as ranks, in\n"
    "index order (a route through switches is one send between two of them), and C chunks per\n"
    "rank: msccl-xml for allgather, reduce-scatter, allreduce and broadcast, a channel per NIC\n"
    "rail for what crosses between boxes (the sender's index in its box) and one more for what\n"
    "stays inside; msccl-json for the same four, a reduction's sends carrying partial sums\n"
    "(docs/fabrics.md, \"Exporting to executors\").\n"
    "The schedule is verified before it is exported. OUT (default: standard output, also '-') is\n"
    "written whole or not at all: a temporary file renamed over it; a device or a FIFO is written\n"
    "in place; 'written OUT' is printed as plan -o does (on stderr when OUT is standard output).\n"
    "FILE '-' reads the schedule from standard input.\n"
    "\n"
    "  --format F     msccl-json or msccl-xml\n"
    "  -o OUT         the output file (default: standard output)\n"
    "  --min-bytes B  msccl-xml: minBytes, the smallest message the executor uses the file for\n"
    "                 (default 0)\n"
    "  --max-bytes B  msccl-xml: maxBytes, above --min-bytes (default 1T)\n"
    "  --name NAME    the algorithm's name in the file (default gossip-METHOD-TOPOLOGY)\n"
    "\n"
    "example:\n"
    "  $ gossip plan allgather torus:4x4 -o t.json >/dev/null\n"
    "  $ gossip export t.json --format msccl-xml -o t.xml\n";

static int run(int argc, char **argv) {
    const char *path = NULL, *format = NULL, *outpath = NULL, *name = NULL;
    int64_t minb = 0, maxb = 0;
    static const cli_optdef_t defs[] = {{"format", true}, {"o", true}, {"name", true}, {"min-bytes", true}, {"max-bytes", true}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "export", usage_text, defs, argc, argv);
    const char *a, *v;
    int r;
    while ((r = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) {
            if (path) return cli_usage_error("export: more than one FILE");
            path = v;
        } else if (!strcmp(a, "--help")) return cli_help(&cmd_export);
        else if (!strcmp(a, "--format")) format = v;
        else if (!strcmp(a, "-o")) outpath = v;
        else if (!strcmp(a, "--name")) name = v;
        else if (!strcmp(a, "--min-bytes")) {
            if (!cli_parse_size(v, 0, INT64_MAX, "--min-bytes", &minb)) return EXIT_USAGE;
        } else if (!cli_parse_size(v, 1, INT64_MAX, "--max-bytes", &maxb)) return EXIT_USAGE;
    }
    if (r < 0) return EXIT_USAGE;
    if (!path) return cli_usage_error("export: missing FILE (see 'gossip export --help')");
    if (!format) return cli_usage_error("export: missing --format msccl-json|msccl-xml");
    bool xml = !strcmp(format, "msccl-xml");
    if (!xml && strcmp(format, "msccl-json")) return cli_usage_error("export: unknown format '%s'", format);
    static const char *const xml_only[] = {"--min-bytes", "--max-bytes", NULL};
    const char *given = cli_args_any(&ps, xml_only);
    if (given && !xml) return cli_usage_error("export: %s applies to msccl-xml (the sizes MSCCL chooses the algorithm for)", given);
    if (maxb && maxb <= minb) return cli_usage_error("export: --max-bytes must be above --min-bytes");

    gsp_sched_t s;
    gsp_topo_t t = {0};
    gsp_report_t rep;
    gsp_err_t err;
    int rc = EXIT_OK;
    if ((err = gsp_sched_load(&s, path))) return cli_lib_error(err);
    if ((err = cli_sched_topology(&s, &t)) || (err = gsp_sched_verify_flags(&s, &t, 1, GSP_VERIFY_NO_EXPAND, &rep))) {
        rc = cli_lib_error(err);
        goto done;
    }
    if (!rep.ok) {
        rc = cli_usage_error("export: the schedule is incorrect (rule %s: %s)", gsp_rule_name(rep.rule), rep.message);
        goto done;
    }
    gsp_out_t out;
    if ((err = gsp_out_open(&out, outpath ? outpath : "-"))) {
        rc = cli_lib_error(err);
        goto done;
    }
    gsp_export_opts_t o = {minb, maxb, name};
    err = xml ? gsp_export_msccl_xml(&s, &t, &o, out.f) : gsp_export_msccl_json(&s, &t, &o, out.f);
    if ((err = gsp_out_close(&out, err))) rc = cli_write_error(err);
    else if (outpath) /* as plan -o says: on stderr when the file is standard output */
        fprintf(cli_output_is_stdout(outpath) ? stderr : stdout, "%-12s %s\n", "written", strcmp(outpath, "-") ? outpath : "standard output");
done:
    gsp_sched_destroy(&s);
    gsp_topo_destroy(&t);
    return rc;
}

const cli_command_t cmd_export = {"export", "write a schedule as msccl-tools JSON or MSCCL XML", run, usage_text};

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_verify.c — `gossip verify FILE`: simulate a schedule file on its topology and check
 * every rule of the round model. Exit 0 correct, 1 incorrect (first violation named), 2 bad
 * input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gossip/sched.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip verify FILE [--seed S] [--json]\n"
    "       gossip verify MSCCL.json --topology SPEC [--seed S] [--json]\n"
    "\n"
    "Simulates the schedule in FILE (docs/schedule-format.md, version 1) on the topology it names\n"
    "and checks every rule of its model: transfers on arcs, packets held before they are sent,\n"
    "at most p transfers per arc per round, ports, duplex, and that every node ends with every\n"
    "packet (allgather), the root's packet (broadcast) or the sum (allreduce, checked as exact\n"
    "linear forms up to 2048 nodes and numerically with random inputs).\n"
    "An msccl-tools algorithm JSON (gossip export --format msccl-json, or msccl-tools' own) is read\n"
    "through the importer and checked as an allgather on the topology given by --topology.\n"
    "FILE '-' reads standard input (gossip plan ... -o - | gossip verify -).\n"
    "A schedule planned on file:PATH carries its graph and is checked on it, wherever the file is\n"
    "(a file at PATH that holds another graph is one warning line).\n"
    "Exit 0 when correct, 1 when incorrect (the first violation is named), 2 for bad input.\n"
    "\n"
    "  --topology SPEC  an msccl-tools JSON: the topology it is checked on\n"
    "  --seed S  the seed of the random inputs of the numeric allreduce check (default 1)\n"
    "  --json   one JSON object: ok, rule, round, transfer, message, rounds, transfers,\n"
    "           duplicates, sent, received ({min, max}), peak_arc_load, max_rel_error\n"
    "\n"
    "example:\n"
    "  $ gossip plan allgather torus:5x5 -o t.json >/dev/null && gossip verify t.json\n"
    "  correct: allgather on torus:5x5, 6 rounds, 600 transfers, 0 duplicates\n";

/* The whole of f, NUL-terminated (*len: its length), or NULL on a read error or no memory. */
static char *read_all(FILE *f, size_t *len) {
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (ferror(f)) break;
        if (feof(f)) {
            buf[n] = 0;
            *len = n;
            return buf;
        }
        char *b = cap <= SIZE_MAX / 2 ? realloc(buf, cap *= 2) : NULL;
        if (!b) break;
        buf = b;
    }
    free(buf);
    return NULL;
}

static int run(int argc, char **argv) {
    const char *path = NULL;
    bool json = false;
    int64_t seed = 1;
    const char *topology = NULL;
    static const cli_optdef_t defs[] = {{"json", false}, {"topology", true}, {"seed", true}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "verify", usage_text, defs, argc, argv);
    const char *a, *v;
    int r;
    while ((r = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) {
            if (path) return cli_usage_error("verify: more than one FILE");
            path = v;
        } else if (!strcmp(a, "--help")) return cli_help(&cmd_verify);
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--topology")) topology = v;
        else if (!cli_parse_int(v, 0, INT64_MAX, "--seed", &seed)) return EXIT_USAGE;
    }
    if (r < 0) return EXIT_USAGE;
    if (!path) return cli_usage_error("verify: missing FILE (see 'gossip verify --help')");
    gsp_sched_t s;
    gsp_topo_t t = {0};
    gsp_report_t rep;
    gsp_err_t err;
    int rc;
    /* msccl-tools JSON says so in its first bytes ("msccl_type"). Standard input ("-") is read
     * whole first, to look at its head and then parse it. */
    bool msccl = false, std = !strcmp(path, "-");
    char head[4097], *in = NULL;
    size_t n = 0, inlen = 0;
    if (std) {
        if (!(in = read_all(stdin, &inlen))) return cli_lib_error(gsp_error(GSP_ERR_IO, "verify: cannot read standard input"));
        if (!inlen) {
            free(in);
            return cli_usage_error("verify: standard input is empty (expected a schedule)");
        }
        n = inlen < 4096 ? inlen : 4096;
        memcpy(head, in, n);
    } else {
        FILE *f = fopen(path, "r");
        if (f) {
            n = fread(head, 1, 4096, f);
            fclose(f);
        }
    }
    head[n] = 0;
    msccl = strstr(head, "\"msccl_type\"") != NULL;
    const char *name = std ? "standard input" : path;
    /* MSCCL XML (gossip export --format msccl-xml) starts with <algo: written, not read back. */
    if (head[strspn(head, " \t\r\n")] == '<' && strstr(head, "<algo")) {
        free(in);
        return cli_usage_error("verify: %s is MSCCL XML, which gossip writes but does not read; verify the schedule it was "
                               "exported from, or export that with --format msccl-json and verify the result with --topology SPEC",
                               name);
    }
    if (msccl && !topology) {
        free(in);
        return cli_usage_error("verify: %s is msccl-tools JSON: give the topology it runs on (--topology SPEC)", name);
    }
    if (!msccl && topology) {
        free(in);
        return cli_usage_error("verify: --topology applies to msccl-tools JSON; a gossip schedule names its topology");
    }
    if (std) {
        FILE *m = fmemopen(in, inlen, "r");
        if (!m) err = gsp_error(GSP_ERR_NOMEM, "verify: out of memory");
        else {
            err = msccl ? gsp_import_msccl_read(&s, m, "(standard input)", topology) : gsp_sched_read(&s, m, "(standard input)");
            fclose(m);
        }
        free(in);
    } else
        err = msccl ? gsp_import_msccl_json(&s, path, topology) : gsp_sched_load(&s, path);
    if (err) return cli_lib_error(err);
    if ((err = cli_sched_topology(&s, &t)) || (err = gsp_sched_verify(&s, &t, (uint64_t)seed, &rep))) {
        rc = cli_lib_error(err);
        goto done;
    }
    rc = rep.ok ? EXIT_OK : EXIT_NO;
    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "ok"); gsp_jw_bool(&w, rep.ok);
        gsp_jw_key(&w, "collective"); gsp_jw_str(&w, gsp_collective_name(s.coll));
        gsp_jw_key(&w, "topology"); gsp_jw_str(&w, s.topology);
        gsp_jw_key(&w, "nodes"); gsp_jw_int(&w, s.nodes);
        /* The same keys whatever the verdict: null where there is no violation. */
        gsp_jw_key(&w, "rule");
        if (!rep.ok) gsp_jw_str(&w, gsp_rule_name(rep.rule)); else gsp_jw_null(&w);
        gsp_jw_key(&w, "round");
        if (!rep.ok && rep.round >= 0) gsp_jw_int(&w, rep.round); else gsp_jw_null(&w);
        gsp_jw_key(&w, "transfer");
        if (!rep.ok && rep.transfer >= 0) gsp_jw_int(&w, rep.transfer); else gsp_jw_null(&w);
        gsp_jw_key(&w, "message");
        if (!rep.ok) gsp_jw_str(&w, rep.message); else gsp_jw_null(&w);
        gsp_jw_key(&w, "rounds"); gsp_jw_int(&w, rep.rounds);
        gsp_jw_key(&w, "transfers"); gsp_jw_int(&w, rep.transfers);
        gsp_jw_key(&w, "duplicates"); gsp_jw_int(&w, rep.duplicates);
        gsp_jw_key(&w, "sent");
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "min"); gsp_jw_int(&w, rep.sent_min);
        gsp_jw_key(&w, "max"); gsp_jw_int(&w, rep.sent_max);
        gsp_jw_obj_end(&w);
        gsp_jw_key(&w, "received");
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "min"); gsp_jw_int(&w, rep.recv_min);
        gsp_jw_key(&w, "max"); gsp_jw_int(&w, rep.recv_max);
        gsp_jw_obj_end(&w);
        gsp_jw_key(&w, "peak_arc_load"); gsp_jw_int(&w, rep.peak_arc_load);
        if (s.coll == GSP_COLL_ALLREDUCE || s.coll == GSP_COLL_REDUCE_SCATTER) {
            gsp_jw_key(&w, "form"); gsp_jw_str(&w, s.blocks ? "blocks" : "registers");
            if (!s.blocks) { gsp_jw_key(&w, "max_rel_error"); gsp_jw_num(&w, rep.max_rel_error); }
            gsp_jw_key(&w, "exact_forms"); gsp_jw_bool(&w, rep.exact_forms);
        }
        if (s.symmetric) { gsp_jw_key(&w, "checked_by_expansion"); gsp_jw_bool(&w, rep.by_expansion); }
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    } else if (rep.ok) {
        printf("correct: %s on %s, %lld rounds, %lld transfers, %lld duplicates%s\n", gsp_collective_name(s.coll),
               s.topology, (long long)rep.rounds, (long long)rep.transfers, (long long)rep.duplicates,
               s.blocks ? "; every contribution counted exactly once at its owner" : "");
    } else {
        printf("incorrect: rule %s: %s\n", gsp_rule_name(rep.rule), rep.message);
    }
done:
    gsp_sched_destroy(&s);
    gsp_topo_destroy(&t);
    return rc;
}

const cli_command_t cmd_verify = {"verify", "check a schedule file against the round model", run, usage_text};

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_revolve.c — `gossip revolve N`: the revolving hierarchy (Garg and Ghosh) for N = 2^n - 1
 * processes: labels, messages per step, the communication distance set, and per-process load. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip revolve N [--variant next|snext|snext2|bcnext] [--arity K] [--steps T] [--simulate S [--async D]] [--json]\n"
    "\n"
    "The revolving hierarchy for N = 2^n - 1 processes on a complete binary tree: at each step the\n"
    "processes move to new positions by the primitive permutation next (Section III), every leaf\n"
    "sends to its parent, and one global result is completed per step after ceil(log N) - 1 steps.\n"
    "Prints the labels (Fig. 4: the new label of each in-order position), the messages of steps\n"
    "0..T-1 (eq. 3: msg(x, t) = new_parent(x + t) - t when x + t is a leaf), the communication\n"
    "distance set (Theorem 2: {2^i - 1, -2^(i-1)}, 2(n - 1) elements), and what each process sends\n"
    "and receives over N consecutive steps (equal for all: the fairness constraint).\n"
    "  --variant snext|snext2   N = 2^n processes in a list, one message received per step\n"
    "              (Section V, the knockout tournament): snext labels as eq. (7), snext2 as eq. (11)\n"
    "              with the CDS {2^i - 1} of Theorem 4 (shown as residues mod N in (-N/2, N/2])\n"
    "  --variant bcnext   the list variant whose messages also broadcast each result to all N\n"
    "              processes in log N steps (Fig. 7, Theorems 5-6)\n"
    "\n"
    "  --arity K   any N on a complete K-ary tree (Section VI): the smallest tree with at least N\n"
    "              positions, the rest virtual nodes hosted by real processes (at most K - 1 each);\n"
    "              prints the per-process load counting the hosted nodes' work\n"
    "  --steps T   message steps to print (default 4)\n"
    "  --simulate S   run S steps of repeated computation of a global maximum (random values per\n"
    "              process and step) and check every result against the true maximum\n"
    "  --async D   with --simulate: asynchronous messages taking 1..D time units; each process waits\n"
    "              for the messages it expects at a step (it knows them from msg) before moving on\n"
    "  --json      one object: n, N, variant, labels, messages, cds, sent, received; with\n"
    "              --simulate: N, variant, steps, results, first_result_step, wrong_results,\n"
    "              messages, messages_per_result, static_hierarchy_messages, async_delay_max,\n"
    "              time_units\n"
    "\n"
    "example:\n"
    "  $ gossip revolve 7 --steps 2\n"
    "  N 7 (n = 3), variant next: a primitive permutation, gather-tree constraint holds\n"
    "  next (in-order)   1->5 2->1 3->7 4->2 5->6 6->3 7->4\n"
    "  labels            1:0 2:6 3:3 4:5 5:1 6:2 7:4\n"
    "  step 0            0->6 1->2 3->6 4->2\n"
    "  step 1            0->1 2->5 3->1 6->5\n"
    "  CDS               -2 -1 1 3 (4 elements)\n"
    "  load over N steps every process sends 4 and receives 4 messages\n";

/* Pseudo-random values for the simulation: the same for every run. */
static double sim_value(void *ctx, int64_t x, int64_t c) {
    (void)ctx;
    uint64_t h = (uint64_t)x * 0x9e3779b97f4a7c15ull ^ (uint64_t)c * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    return (double)(h >> 11);
}

/* The keys both forms print: labels (of positions off .. off + M - 1), the messages of steps
 * 0..steps-1, the CDS, and per real process the sent and received counts (when counted). */
static void json_body(gsp_jw_t *w, const gsp_revolve_t *r, int64_t off, int64_t steps, const int64_t *sent,
                      const int64_t *recv, int64_t nreal, bool counted) {
    int64_t M = r->N;
    gsp_jw_key(w, "labels");
    gsp_jw_arr_begin(w);
    for (int64_t x = off; x < M + off; x++) gsp_jw_int(w, r->label[x]);
    gsp_jw_arr_end(w);
    gsp_jw_key(w, "messages");
    gsp_jw_arr_begin(w);
    for (int64_t t = 0; t < steps; t++) {
        gsp_jw_arr_begin(w);
        for (int64_t x = 0; x < M; x++) {
            int64_t y = gsp_revolve_msg(r, x, t);
            if (y < 0) continue;
            gsp_jw_arr_begin(w);
            gsp_jw_int(w, x);
            gsp_jw_int(w, y);
            gsp_jw_arr_end(w);
        }
        gsp_jw_arr_end(w);
    }
    gsp_jw_arr_end(w);
    gsp_jw_key(w, "cds");
    gsp_jw_arr_begin(w);
    for (int64_t i = 0; i < r->cds.len; i++) gsp_jw_int(w, r->cds.v[i]);
    gsp_jw_arr_end(w);
    gsp_jw_key(w, "sent");
    gsp_jw_arr_begin(w);
    for (int64_t p = 0; counted && p < nreal; p++) gsp_jw_int(w, sent[p]);
    gsp_jw_arr_end(w);
    gsp_jw_key(w, "received");
    gsp_jw_arr_begin(w);
    for (int64_t p = 0; counted && p < nreal; p++) gsp_jw_int(w, recv[p]);
    gsp_jw_arr_end(w);
}

/* Any N on a k-ary tree with virtual nodes: loads per real process (own + hosted positions). */
static int run_kary(int k, int64_t N, int64_t steps, bool json) {
    gsp_revolve_t r;
    gsp_err_t err = gsp_revolve_build_kary(k, N, &r);
    if (err) return cli_lib_error(err);
    int64_t M = r.N, *sent = gsp_calloc((size_t)N, sizeof *sent), *recv = gsp_calloc((size_t)N, sizeof *recv);
    int64_t *hosted = gsp_calloc((size_t)N, sizeof *hosted);
    if (!sent || !recv || !hosted) {
        gsp_free(sent), gsp_free(recv), gsp_free(hosted);
        gsp_revolve_destroy(&r);
        return cli_lib_error(gsp_error(GSP_ERR_NOMEM, "out of memory"));
    }
    for (int64_t x = N; x < M; x++) hosted[(x - N) % N]++;
    bool counted = M <= 1 << 13;
    for (int64_t t = 0; counted && t < M; t++)
        for (int64_t x = 0; x < M; x++) {
            int64_t y = gsp_revolve_msg(&r, x, t);
            if (y < 0) continue;
            int64_t hx = x < N ? x : (x - N) % N, hy = y < N ? y : (y - N) % N;
            sent[hx]++;
            recv[hy]++;
        }
    int64_t smin = INT64_MAX, smax = 0, hmax = 0;
    for (int64_t p = 0; p < N; p++) {
        smin = sent[p] < smin ? sent[p] : smin;
        smax = sent[p] > smax ? sent[p] : smax;
        hmax = hosted[p] > hmax ? hosted[p] : hmax;
    }
    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "N"); gsp_jw_int(&w, N);
        gsp_jw_key(&w, "arity"); gsp_jw_int(&w, k);
        gsp_jw_key(&w, "positions"); gsp_jw_int(&w, M);
        gsp_jw_key(&w, "virtual"); gsp_jw_int(&w, M - N);
        gsp_jw_key(&w, "max_hosted"); gsp_jw_int(&w, hmax);
        json_body(&w, &r, 0, steps, sent, recv, N, counted);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    } else {
        printf("N %lld on a complete %d-ary tree of %lld positions (%d levels): %lld virtual nodes, at most %lld per "
               "real process (limit %d)\n",
               (long long)N, k, (long long)M, r.n, (long long)(M - N), (long long)hmax, k - 1);
        printf("CDS               %lld elements\n", (long long)r.cds.len);
        if (counted)
            printf("load over %lld steps each real process sends %lld..%lld messages (its own position and the virtual "
                   "nodes it hosts; every position sends the same)\n",
                   (long long)M, (long long)smin, (long long)smax);
    }
    int rc = hmax <= k - 1 ? EXIT_OK : EXIT_NO;
    gsp_free(sent), gsp_free(recv), gsp_free(hosted);
    gsp_revolve_destroy(&r);
    return rc;
}

static int run(int argc, char **argv) {
    int64_t N = -1, steps = 4, simulate = 0, arity = 0, async = 0;
    bool json = false;
    const char *variant = "next";
    static const cli_optdef_t defs[] = {{"json", false},    {"variant", true}, {"async", true}, {"arity", true},
                                        {"simulate", true}, {"steps", true},   {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "revolve", usage_text, defs, argc, argv);
    const char *a, *v;
    int pr;
    while ((pr = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) {
            if (N >= 0) return cli_usage_error("revolve: more than one N");
            if (!cli_parse_int(v, 3, ((int64_t)1 << GSP_REVOLVE_MAX_N) - 1, "N", &N)) return EXIT_USAGE;
        } else if (!strcmp(a, "--help")) return cli_help(&cmd_revolve);
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--variant")) {
            variant = v;
            if (strcmp(variant, "next") && strcmp(variant, "snext") && strcmp(variant, "snext2") && strcmp(variant, "bcnext"))
                return cli_usage_error("revolve: unknown variant '%s' (next, snext, snext2, bcnext)", variant);
        } else if (!strcmp(a, "--async")) {
            if (!cli_parse_int(v, 1, 1000000, "--async", &async)) return EXIT_USAGE;
        } else if (!strcmp(a, "--arity")) {
            if (!cli_parse_int(v, 2, 64, "--arity", &arity)) return EXIT_USAGE;
        } else if (!strcmp(a, "--simulate")) {
            if (!cli_parse_size(v, 1, 10000000, "--simulate", &simulate)) return EXIT_USAGE;
        } else if (!cli_parse_int(v, 0, 1000000, "--steps", &steps)) return EXIT_USAGE;
    }
    if (pr < 0) return EXIT_USAGE;
    if (N < 0) return cli_usage_error("revolve: missing N (see 'gossip revolve --help')");
    if (simulate && cli_args_given(&ps, "--steps"))
        return cli_usage_error("revolve: --steps prints message steps; --simulate runs its own number of steps");
    if (async && !simulate) return cli_usage_error("revolve: --async applies to --simulate only");
    if (arity && simulate) return cli_usage_error("revolve: --simulate runs the binary variants, not --arity");
    bool list = strcmp(variant, "next") != 0;
    if (arity) {
        if (list) return cli_usage_error("revolve: --arity applies to the tree variant next");
        return run_kary((int)arity, N, steps, json);
    }
    int n = 0;
    int64_t off = list ? 0 : 1;
    while ((((int64_t)1 << n) - off) < N) n++;
    if ((((int64_t)1 << n) - off) != N)
        return cli_usage_error(list ? "revolve: N = %lld is not a power of two (the list variants need N = 2^n)"
                                    : "revolve: N = %lld is not of the form 2^n - 1 (the next variant needs a complete binary tree)",
                               (long long)N);
    gsp_revolve_t r;
    gsp_err_t err = list ? gsp_revolve_build_list(n, !strcmp(variant, "snext2") ? GSP_REVOLVE_SNEXT2 : !strcmp(variant, "bcnext") ? GSP_REVOLVE_BCNEXT : GSP_REVOLVE_SNEXT, &r) : gsp_revolve_build(n, &r);
    if (err) return cli_lib_error(err);
    /* Load over N consecutive steps, counted from msg(x, t) (up to 2^14 processes). */
    int64_t *s = gsp_calloc((size_t)N, sizeof *s), *q = gsp_calloc((size_t)N, sizeof *q);
    bool counted = N <= 1 << 14;
    if (!s || !q) {
        gsp_free(s);
        gsp_free(q);
        gsp_revolve_destroy(&r);
        return cli_lib_error(gsp_error(GSP_ERR_NOMEM, "out of memory"));
    }
    for (int64_t t = 0; counted && t < N; t++)
        for (int64_t x = 0; x < N; x++) {
            int64_t y = gsp_revolve_msg(&r, x, t);
            if (y >= 0) s[x]++, q[y]++;
        }
    int64_t smin = INT64_MAX, smax = 0, qmin = INT64_MAX, qmax = 0;
    for (int64_t x = 0; counted && x < N; x++) {
        smin = s[x] < smin ? s[x] : smin, smax = s[x] > smax ? s[x] : smax;
        qmin = q[x] < qmin ? q[x] : qmin, qmax = q[x] > qmax ? q[x] : qmax;
    }
    if (simulate) {
        gsp_revolve_run_t run;
        double *fin = NULL;
        if ((err = async ? gsp_revolve_simulate_async(&r, list, simulate, sim_value, NULL, 1, async, &run, &fin)
                         : gsp_revolve_simulate(&r, list, simulate, sim_value, NULL, &run))) {
            gsp_free(s);
            gsp_free(q);
            gsp_revolve_destroy(&r);
            return cli_lib_error(err);
        }
        int64_t bad = 0;
        for (int64_t c = 0; c < run.computations; c++) {
            double m = -1;
            for (int64_t x = 0; x < N; x++) m = sim_value(NULL, x, c) > m ? sim_value(NULL, x, c) : m;
            bad += run.result[c] != m;
        }
        if (json) {
            gsp_jw_t w;
            gsp_jw_init(&w, stdout);
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "N"); gsp_jw_int(&w, N);
            gsp_jw_key(&w, "variant"); gsp_jw_str(&w, variant);
            gsp_jw_key(&w, "steps"); gsp_jw_int(&w, simulate);
            gsp_jw_key(&w, "results"); gsp_jw_int(&w, run.computations);
            gsp_jw_key(&w, "first_result_step"); gsp_jw_int(&w, gsp_revolve_depth(&r, list) - 1);
            gsp_jw_key(&w, "wrong_results"); gsp_jw_int(&w, bad);
            gsp_jw_key(&w, "messages"); gsp_jw_int(&w, run.messages);
            gsp_jw_key(&w, "messages_per_result"); gsp_jw_num(&w, run.computations ? (double)run.messages / (double)simulate : 0.0);
            gsp_jw_key(&w, "static_hierarchy_messages"); gsp_jw_int(&w, 2 * (N - 1));
            gsp_jw_key(&w, "async_delay_max"); gsp_jw_int(&w, async);
            gsp_jw_key(&w, "time_units");
            if (fin) gsp_jw_num(&w, fin[simulate - 1]);
            else gsp_jw_int(&w, simulate);
            gsp_jw_obj_end(&w);
            fputc('\n', stdout);
            gsp_jw_finish(&w);
        } else {
        printf("simulated %lld steps of a repeated global maximum on %s (N = %lld)\n", (long long)simulate, variant, (long long)N);
        printf("results           %lld, one per step from step %lld on; %s\n", (long long)run.computations,
               (long long)(gsp_revolve_depth(&r, list) - 1), bad ? "SOME WRONG" : "all equal the true maximum");
        printf("messages          %.2f per result (N/2); a static hierarchy needs 2(N - 1) = %lld\n",
               run.computations ? (double)run.messages / (double)simulate : 0.0, (long long)(2 * (N - 1)));
        printf("values per message at most %lld (the computations in flight)\n", (long long)gsp_revolve_depth(&r, list));
        if (fin)
            printf("asynchronous      delays 1..%lld: %lld steps took %.0f time units (%.2f per step; a synchronous step "
                   "would wait %lld)\n",
                   (long long)async, (long long)simulate, fin[simulate - 1], fin[simulate - 1] / (double)simulate,
                   (long long)async + 1);
        }
        gsp_free(fin);
        gsp_revolve_run_destroy(&run);
        gsp_free(s);
        gsp_free(q);
        gsp_revolve_destroy(&r);
        return bad ? EXIT_NO : EXIT_OK;
    }
    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "n"); gsp_jw_int(&w, n);
        gsp_jw_key(&w, "N"); gsp_jw_int(&w, N);
        gsp_jw_key(&w, "variant"); gsp_jw_str(&w, variant);
        json_body(&w, &r, off, steps, s, q, N, counted);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    } else {
        printf("N %lld (n = %d), variant %s: a primitive permutation, %s constraint holds\n", (long long)N, n, variant,
               list ? "tournament" : "gather-tree");
        if (N <= 64) {
            printf("%-17s", list ? "snext (positions)" : "next (in-order)");
            for (int64_t x = off; x < N + off; x++)
                printf(" %lld->%lld", (long long)x,
                       (long long)(list ? r.inorder[(r.label[x] + 1) % N] : gsp_revolve_next_inorder(n, x)));
            printf("\n%-17s", "labels");
            for (int64_t x = off; x < N + off; x++) printf(" %lld:%lld", (long long)x, (long long)r.label[x]);
            putchar('\n');
        }
        for (int64_t t = 0; t < steps; t++) {
            char h[32];
            snprintf(h, sizeof h, "step %lld", (long long)t);
            printf("%-17s", h);
            int64_t shown = 0;
            for (int64_t x = 0; x < N && shown < 32; x++) {
                int64_t y = gsp_revolve_msg(&r, x, t);
                if (y >= 0) printf(" %lld->%lld", (long long)x, (long long)y), shown++;
            }
            printf("%s\n", shown == 32 ? " ..." : "");
        }
        printf("%-17s", "CDS");
        for (int64_t k = 0; k < r.cds.len; k++) printf(" %lld", (long long)r.cds.v[k]);
        printf(" (%lld elements)\n", (long long)r.cds.len);
        if (counted && smin == smax && qmin == qmax)
            printf("load over N steps every process sends %lld and receives %lld messages\n", (long long)smin, (long long)qmin);
        else if (counted)
            printf("load over N steps sent %lld..%lld, received %lld..%lld (UNEQUAL)\n", (long long)smin, (long long)smax,
                   (long long)qmin, (long long)qmax);
        else
            printf("load over N steps not counted above 2^14 processes\n");
    }
    gsp_free(s);
    gsp_free(q);
    gsp_revolve_destroy(&r);
    return EXIT_OK;
}

const cli_command_t cmd_revolve = {"revolve", "revolving hierarchy: one global result per step, equal load", run, usage_text};

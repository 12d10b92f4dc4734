/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_plan.c — `gossip plan COLLECTIVE SPEC`: build a schedule with a method from the registry
 * (or the shortest one, `auto`), verify it with the simulator, compare with the lower bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gossip/algo.h"
#include "gossip/runtime.h"
#include "core/core_int.h"
#include "plan_int.h"

static const char usage_text[] =
    "usage: gossip plan COLLECTIVE SPEC [--packets P|inf] [--ports all|1] [--duplex full|half]\n"
    "                   [--method NAME|auto] [--root R] [--seed S] [--degree M] [--prove] [--time-limit S] [-o FILE] [--json] [--progress]\n"
    "       gossip plan COLLECTIVE FABRIC [--root NAME] [--batches B] [-o FILE] [--json]\n"
    "       gossip plan COLLECTIVE SPEC --bytes B [--algorithm A|auto] [--tuning FILE] [--alpha S] [--beta S] [--gamma S]\n"
    "                   [--hop S] [--overhead S] [--segment B] [--shared-memory] [--method M] [--root R] [--rank R] [--json]\n"
    "       gossip plan COLLECTIVE SPEC --bytes LO:HI[:F] [--svg FILE] [--tuning FILE] [--alpha S] [--beta S] [--gamma S]\n"
    "                   [--hop S] [--overhead S] [--segment B] [--shared-memory] [--method M] [--root R] [--json]\n"
    "\n"
    "Builds a schedule for COLLECTIVE (broadcast, allgather, allreduce, reduce-scatter) on the\n"
    "topology SPEC, verifies it with the exact simulator, and prints its rounds beside the binding\n"
    "lower bound. With --bytes, shows instead every exact algorithm the MPI runtime can run for\n"
    "COLLECTIVE (also reduce) on B bytes (allgather and reduce-scatter: one rank's block; the\n"
    "others: the vector): rounds, transfers, bytes on the busiest link and the cost model's\n"
    "predicted time, and marks the one the runtime chooses. With --bytes LO:HI, a sweep: every\n"
    "candidate's predicted time at each size from LO to HI, the choice at each, and the sizes where\n"
    "the choice changes.\n"
    "\n"
    "On a fabric (switches or link capacities, docs/fabrics.md) the plan is spanning trees that\n"
    "reach the throughput optimum, checked by recounting their link loads; algbw beside the optimum.\n"
    "\n"
    "  --batches B   on a fabric: the round form sends each tree's share in B pipelined batches:\n"
    "                B + depth - 1 rounds against the bound B (default 1); allreduce: reduce-scatter's\n"
    "                rounds then allgather's, against the sum of their bounds\n"
    "  --packets P   packets per arc per round (default 1), or inf\n"
    "  --ports       all (default) or 1 (one send and one receive per node per round)\n"
    "  --duplex      full (default) or half\n"
    "  --method M    a construction method from 'gossip list', or auto (default): the fewest rounds;\n"
    "                with --bytes, the allgather or broadcast construction the runtime's algorithms use\n"
    "  --root R      broadcast (and with --bytes reduce) root (default 0)\n"
    "  --seed S      seed for randomized methods and the numeric allreduce check (default 1)\n"
    "  --degree M    approx: rounds (polynomial degree) of the estimate (default D - 1)\n"
    "  --prove       allgather: settle optimality with a SAT solver (CaDiCaL): ask for one round\n"
    "                fewer until none exists (optimal: proved), the bound is met, or time runs out\n"
    "  --time-limit S  seconds for the whole SAT search, every solve together: --method sat and\n"
    "                --prove (default 60); a search that runs out says at which round count\n"
    "  --progress    progress on stderr even when it is not a terminal: plain lines, one when a stage\n"
    "                starts (the SAT solver's names the round count tried) and then every 10 % or\n"
    "                10 s (GOSSIP_PROGRESS=1; GOSSIP_PROGRESS=0 silences it)\n"
    "  -o FILE       write the schedule (JSON, docs/schedule-format.md, version 1): whole or not at\n"
    "                all (a temporary file renamed over FILE); '-' is standard output (the report\n"
    "                then goes to stderr), a device or a FIFO is written in place\n"
    "  --bytes B     the runtime's candidates for B bytes (see above): a size, 4096, 64K, 1MiB, 1e6 (K, M,\n"
    "                G, T are powers of 1024); a candidate marked '>' is\n"
    "                not built: its lower bound (the fewest rounds it can have) cannot beat the choice\n"
    "  --bytes LO:HI[:F]  a sweep over the sizes LO, LO*F, LO*F^2, ... below HI, and HI (F a number\n"
    "                above 1, default 2: powers of two; at most 1000 sizes; LO at least 1): a table\n"
    "                with a row per size and a column per algorithm ('*' the choice, '>' a lower\n"
    "                bound), then the sizes where the choice changes, to the byte (\"from 32321 B\n"
    "                (31.6 KiB): rings\"); each algorithm is built once, when the cost model first\n"
    "                needs it at some size\n"
    "  --svg FILE    with a sweep: the picture, predicted time against size on log-log axes, one\n"
    "                line per algorithm (dashed: a lower bound), the choice marked at each size, the\n"
    "                crossovers dotted; written whole or not at all as -o; '-' is standard output\n"
    "                (the table then goes to stderr), a device or a FIFO is written in place\n"
    "  --algorithm A with --bytes: the runtime algorithm to run ('gossip list --runtime'), as\n"
    "                gossip-mpi --algorithm and GOSSIP_ALGORITHM=COLLECTIVE=A force it; auto: the cost\n"
    "                model's choice (default)\n"
    "  --rank R      with --bytes: rank R's program of the chosen algorithm (what it sends and\n"
    "                receives in each round, which blocks), computed for that rank alone\n"
    "  --tuning FILE the cost model of a tuning file ('gossip-mpi calibrate -o FILE' measures one;\n"
    "                docs/runtime.md); the options below apply over it\n"
    "  --alpha S     cost model: seconds per message (default 1e-6; GOSSIP_ALPHA in the runtime), or\n"
    "                by message size as for --beta: 0:2e-6,65472:1.2e-5\n"
    "  --beta S      seconds per byte on a link (default 1e-10: 10 GB/s; GOSSIP_BETA), or by message\n"
    "                size: 0:3e-10,65536:1e-10 (messages of 65536 bytes and more pay 1e-10)\n"
    "  --gamma S     seconds per byte combined (default 2e-10; GOSSIP_GAMMA)\n"
    "  --hop S       seconds per further link a routed message crosses (default 1e-7; GOSSIP_HOP)\n"
    "  --overhead S  seconds per further message a node sends or receives in a round (default 2e-7;\n"
    "                GOSSIP_OVERHEAD)\n"
    "  --segment B   bytes per pipelined segment, as GOSSIP_SEGMENT (default 0: whole blocks)\n"
    "  --shared-memory  the model of ranks on one node (GOSSIP_SHARED_MEMORY=1; the runtime's\n"
    "                default there): a round costs the bytes the busiest rank sends and receives,\n"
    "                with alpha 5e-7, beta and gamma 1.2e-10, hop 0 unless given\n"
    "  --json        one JSON object on stdout: collective, topology, nodes, method, tried (auto:\n"
    "                [{method, rounds | skipped | not_applicable}]), rounds, lower_bound, bounds,\n"
    "                binding_bound, optimal, optimality, verified, transfers, seconds; with --bytes and\n"
    "                a sweep: sizes [{bytes, choice, candidates [{algorithm, predicted_seconds, built,\n"
    "                chosen}]}], crossovers [{bytes, from, to}] (docs/cli.md)\n"
    "\n"
    "example:\n"
    "  $ gossip plan allgather torus:5x5 --packets inf\n"
    "  collective   allgather on torus:5x5 (25 nodes), packets inf, all ports, full duplex\n"
    "  method       flood\n"
    "  rounds       4\n"
    "  lower bound  4 (diameter: packet-gossip paper, Prop. 6)\n"
    "  optimal      yes: the lower bound is met\n"
    "  verified     yes: 600 transfers, 0 duplicate deliveries, peak 4 packets on an arc in a round\n"
    "  time         0.02 ms\n"
    "  $ gossip plan allreduce torus:8x8 --bytes 8:16MiB --svg allreduce-8x8.svg\n";


static const char *optimality_name(gsp_optimality_t o) {
    switch (o) {
    case GSP_OPT_BOUND: return "bound met";
    case GSP_OPT_PROVED: return "proved";
    case GSP_OPT_PROVED_SYMMETRIC: return "proved among symmetric schedules";
    default: return "open";
    }
}

static void describe_model(const gsp_model_t *m, char *buf, size_t n) {
    char p[32];
    if (m->packets == GSP_PACKETS_INF) snprintf(p, sizeof p, "inf");
    else snprintf(p, sizeof p, "%lld", (long long)m->packets);
    snprintf(buf, n, "packets %s, %s, %s duplex", p, m->one_port ? "one port" : "all ports",
             m->half_duplex ? "half" : "full");
}

/* `plan COLLECTIVE SPEC --bytes B`: the runtime's exact algorithms and the cost model's choice. */
/* One rank's program of every phase of a, as text or JSON. */
static gsp_err_t show_program(const gsp_rt_algo_t *a, const gsp_topo_t *t, int64_t rank, bool json, gsp_jw_t *w) {
    static const char *const kinds[] = {"", "store", "reduce"}, *const lays[] = {"", "rank", "split", "whole"};
    gsp_err_t err = GSP_OK;
    if (json) {
        gsp_jw_key(w, "rank"); gsp_jw_int(w, rank);
        gsp_jw_key(w, "program");
        gsp_jw_arr_begin(w);
    } else
        printf("rank %lld's program (%s):\n", (long long)rank, a->name);
    for (int k = 0; k < a->nphases && !err; k++) {
        gsp_rt_prog_t p;
        if ((err = gsp_rt_program(a, k, t, rank, &p))) break;
        if (json) {
            gsp_jw_obj_begin(w);
            gsp_jw_key(w, "phase"); gsp_jw_int(w, k);
            gsp_jw_key(w, "kind"); gsp_jw_str(w, kinds[p.kind]);
            gsp_jw_key(w, "blocks"); gsp_jw_str(w, lays[p.layout]);
            gsp_jw_key(w, "rounds"); gsp_jw_int(w, p.nrounds);
            for (int dir = 0; dir < 2; dir++) {
                gsp_jw_key(w, dir ? "receives" : "sends");
                gsp_jw_arr_begin(w);
                const gsp_rt_msg_t *m = dir ? p.recv : p.send;
                int64_t nm = dir ? p.nrecv : p.nsend;
                for (int64_t q = 0; q < nm; q++) {
                    gsp_jw_obj_begin(w);
                    gsp_jw_key(w, "round"); gsp_jw_int(w, m[q].round);
                    gsp_jw_key(w, "peer"); gsp_jw_int(w, m[q].peer);
                    gsp_jw_key(w, "blocks");
                    gsp_jw_arr_begin(w);
                    for (int64_t i = 0; i < m[q].n; i++) gsp_jw_int(w, p.items[m[q].first + i]);
                    gsp_jw_arr_end(w);
                    gsp_jw_obj_end(w);
                }
                gsp_jw_arr_end(w);
            }
            gsp_jw_obj_end(w);
        } else {
            printf("phase %d: %s, blocks of the %s, %lld rounds, %lld messages sent, %lld received\n", k, kinds[p.kind],
                   p.layout == GSP_RT_RANK ? "ranks' layout" : p.layout == GSP_RT_SPLIT ? "split vector" : "whole vector",
                   (long long)p.nrounds, (long long)p.nsend, (long long)p.nrecv);
            int64_t s = 0, r = 0;
            while (s < p.nsend || r < p.nrecv) {
                int64_t round = INT64_MAX;
                if (s < p.nsend) round = p.send[s].round;
                if (r < p.nrecv && p.recv[r].round < round) round = p.recv[r].round;
                printf("  round %lld:", (long long)round);
                for (int dir = 0; dir < 2; dir++) {
                    const gsp_rt_msg_t *m = dir ? p.recv : p.send;
                    int64_t nm = dir ? p.nrecv : p.nsend, *at = dir ? &r : &s;
                    for (; *at < nm && m[*at].round == round; (*at)++) {
                        printf(" %s %lld [", dir ? "from" : "to", (long long)m[*at].peer);
                        for (int64_t i = 0; i < m[*at].n; i++) {
                            if (i) putchar(' ');
                            gsp_fput_int(stdout, p.items[m[*at].first + i]);
                        }
                        printf("]");
                    }
                }
                printf("\n");
            }
        }
        gsp_rt_prog_destroy(&p);
    }
    if (json && !err) gsp_jw_arr_end(w);
    return err;
}

/* A cost figure by message size as JSON ([[bytes, seconds], ...] under key; nothing when n is 0)
 * and as text ("S:V,..." or the plain figure and its unit). */
static void json_table(gsp_jw_t *w, const char *key, int n, const int64_t *from, const double *val) {
    if (!n) return;
    gsp_jw_key(w, key);
    gsp_jw_arr_begin(w);
    for (int i = 0; i < n; i++) {
        gsp_jw_arr_begin(w);
        gsp_jw_int(w, from[i]);
        gsp_jw_num(w, val[i]);
        gsp_jw_arr_end(w);
    }
    gsp_jw_arr_end(w);
}

static void text_table(char *buf, size_t size, double plain, const char *unit, int n, const int64_t *from, const double *val) {
    size_t used = 0;
    if (!n) snprintf(buf, size, "%g %s", plain, unit);
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld:%g", i ? "," : "", (long long)from[i], val[i]);
}

void cli_cost_json(gsp_jw_t *w, const gsp_cost_t *cost) {
    gsp_jw_key(w, "cost");
    gsp_jw_obj_begin(w);
    gsp_jw_key(w, "alpha"); gsp_jw_num(w, cost->alpha);
    json_table(w, "alpha_by_size", cost->nalpha, cost->alpha_from, cost->alpha_val);
    gsp_jw_key(w, "beta"); gsp_jw_num(w, cost->beta);
    json_table(w, "beta_by_size", cost->nbeta, cost->beta_from, cost->beta_val);
    gsp_jw_key(w, "gamma"); gsp_jw_num(w, cost->gamma);
    gsp_jw_key(w, "hop"); gsp_jw_num(w, cost->hop);
    gsp_jw_key(w, "overhead"); gsp_jw_num(w, cost->overhead);
    gsp_jw_key(w, "segment"); gsp_jw_int(w, cost->segment);
    gsp_jw_key(w, "shared_memory"); gsp_jw_bool(w, cost->shared);
    gsp_jw_obj_end(w);
}

void cli_cost_text(char *buf, size_t size, const gsp_cost_t *cost) {
    char beta[GSP_COST_MAX_BETA * 40 + 32], alpha[GSP_COST_MAX_BETA * 40 + 32];
    text_table(beta, sizeof beta, cost->beta, "s/B", cost->nbeta, cost->beta_from, cost->beta_val);
    text_table(alpha, sizeof alpha, cost->alpha, "s", cost->nalpha, cost->alpha_from, cost->alpha_val);
    snprintf(buf, size, "cost model%s alpha %s, beta %s, gamma %g s/B, hop %g s, overhead %g s", cost->shared ? " (shared memory)" : "", alpha,
             beta, cost->gamma, cost->hop, cost->overhead);
}

static int run_bytes(gsp_collective_t coll, const char *spec, const char *method, const char *algorithm, int64_t root, int64_t bytes,
                     const gsp_cost_t *cost, bool json, int64_t rank, const cli_sweep_t *sweep, const char *svgpath) {
    gsp_err_t err;
    gsp_topo_t t;
    gsp_distances_t dist = {0};
    gsp_rt_algos_t al = {0};
    gsp_vt_t vt;
    gsp_topo_t fab = {0};
    bool is_fab = false;
    int rc = EXIT_OK;
    if ((err = gsp_topo_from_spec(&t, spec))) return cli_lib_error(err);
    if (gsp_topo_is_fabric(&t)) {
        /* The runtime on a fabric: its ranks are the compute nodes (in vertex order), which all
         * talk to each other through it; the algorithm is planned from the fabric. */
        char ks[48];
        fab = t;
        is_fab = true;
        snprintf(ks, sizeof ks, "complete:%lld", (long long)gsp_topo_compute_count(&fab));
        if ((err = gsp_topo_from_spec(&t, ks))) {
            gsp_topo_destroy(&fab);
            return cli_lib_error(err);
        }
    }
    const char *shown = is_fab ? fab.spec : t.spec;
    if (root >= t.n) {
        int64_t n = t.n;
        gsp_topo_destroy(&fab);
        gsp_topo_destroy(&t);
        return cli_usage_error("plan: --root %lld is not a %s of %s (0..%lld)", (long long)root, is_fab ? "rank (compute node)" : "node", spec,
                               (long long)n - 1);
    }
    if ((err = gsp_vertex_transitive(&t, &vt)) || (err = gsp_distances(&t, gsp_vt_yes(vt), &dist, cli_progress, NULL))) goto fail;
    cli_progress_done();
    if (!dist.connected) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not connected", spec);
        goto fail;
    }
    if (rank >= t.n) {
        err = gsp_error(GSP_ERR_RANGE, "--rank %lld is not a node of %s (0..%lld)", (long long)rank, spec, (long long)t.n - 1);
        goto fail;
    }
    if (is_fab && method && strcmp(method, "auto")) {
        err = gsp_error(GSP_ERR_INVAL, "--method does not apply on a fabric (its runtime runs the trees at the throughput optimum)");
        goto fail;
    }
    if ((err = is_fab ? gsp_rt_fabric_algos(&fab, &t, &dist, coll, root < 0 ? 0 : root, &al)
                      : gsp_rt_algos(&t, &dist, coll, root < 0 ? 0 : root, method, &al)))
        goto fail;
    if (sweep) {
        rc = cli_plan_sweep(&al, &t, coll, sweep, cost, json, svgpath);
        goto done;
    }
    int choice;
    /* --algorithm forces one, as gossip-mpi --algorithm and GOSSIP_ALGORITHM do: the runtime
     * runs it whatever the cost model predicts (its name was checked against the registry). */
    bool forced = algorithm && strcmp(algorithm, "auto");
    if (forced) {
        choice = gsp_rt_find(&al, algorithm);
        bool removed = false;
        if (choice >= 0 && al.v[choice].pending && (err = gsp_rt_realize(&al, choice, &removed))) goto fail;
        if (choice < 0 || removed) {
            err = gsp_error(GSP_ERR_NOTAPPLIC, "plan: --algorithm %s does not apply to %s on %s (the candidates here: see 'gossip plan %s %s --bytes %lld')",
                            algorithm, gsp_collective_name(coll), spec, gsp_collective_name(coll), spec, (long long)bytes);
            goto fail;
        }
    } else if ((err = gsp_rt_choose_build(&al, t.n, bytes, cost, NULL, NULL, &choice))) goto fail;
    gsp_jw_t w;
    if (json) {
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "collective"); gsp_jw_str(&w, gsp_collective_name(coll));
        gsp_jw_key(&w, "topology"); gsp_jw_str(&w, shown);
        gsp_jw_key(&w, "nodes"); gsp_jw_int(&w, t.n);
        gsp_jw_key(&w, "bytes"); gsp_jw_int(&w, bytes);
        cli_cost_json(&w, cost);
        gsp_jw_key(&w, "choice"); gsp_jw_str(&w, al.v[choice].name);
        gsp_jw_key(&w, "forced"); gsp_jw_bool(&w, forced);
        gsp_jw_key(&w, "candidates");
        gsp_jw_arr_begin(&w);
    } else {
        char head[2 * GSP_COST_MAX_BETA * 40 + 256];
        cli_cost_text(head, sizeof head, cost);
        printf("%s on %s (%lld %s), %lld bytes; %s\n", gsp_collective_name(coll), shown, (long long)t.n, is_fab ? "ranks: its compute nodes" : "nodes",
               (long long)bytes, head);
        printf("  %-18s %7s %9s %14s %12s  %s\n", "algorithm", "rounds", "transfers", "busiest link B", "predicted", "built from");
    }
    for (int i = 0; i < al.n; i++) {
        gsp_rt_pred_t p;
        gsp_rt_predict(&al.v[i], t.n, bytes, cost, &p);
        if (json) {
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "algorithm"); gsp_jw_str(&w, al.v[i].name);
            gsp_jw_key(&w, "built_from"); gsp_jw_str(&w, al.v[i].built_from);
            gsp_jw_key(&w, "rounds"); gsp_jw_int(&w, p.rounds);
            gsp_jw_key(&w, "transfers"); gsp_jw_int(&w, p.transfers);
            gsp_jw_key(&w, "busiest_link_bytes"); gsp_jw_num(&w, p.busiest_bytes);
            gsp_jw_key(&w, "predicted_seconds"); gsp_jw_num(&w, p.seconds);
            gsp_jw_key(&w, "built"); gsp_jw_bool(&w, !al.v[i].pending);
            gsp_jw_key(&w, "chosen"); gsp_jw_bool(&w, i == choice);
            gsp_jw_obj_end(&w);
        } else
            printf("%s %-18s %s%6lld %9lld %14.0f %s%8.1f us  %s\n", i == choice ? "*" : " ", al.v[i].name, al.v[i].pending ? ">" : " ",
                   (long long)p.rounds, (long long)p.transfers, p.busiest_bytes, al.v[i].pending ? ">" : " ", p.seconds * 1e6,
                   al.v[i].pending ? (forced ? "not built: predicted by its lower bound" : "not built: its lower bound cannot beat the choice")
                                   : al.v[i].built_from);
    }
    if (json) {
        gsp_jw_arr_end(&w);
        if (rank >= 0 && (err = show_program(&al.v[choice], &t, rank, true, &w))) goto fail;
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w); /* a failed write of stdout is reported by main: exit 3 with the reason */
    } else {
        if (forced) printf("* forced by --algorithm (the cost model is not asked; exact: the same bits on every rank)\n");
        else printf("* the runtime's choice (exact: the same bits on every rank)\n");
        if (is_fab) {
            /* The fabric-trees prediction runs the trees' pipeline at their exact algbw (the
             * capacities taken as GB/s, rt_cost.c); say what the fabric allows beside it. */
            gsp_optimum_t o;
            memset(&o, 0, sizeof o);
            gsp_collective_t oc = coll;
            int64_t rv = -1, k = 0;
            for (int64_t v = 0; v < fab.n && rv < 0; v++)
                if (!(fab.is_switch && fab.is_switch[v]) && k++ == (root < 0 ? 0 : root)) rv = v;
            if (!gsp_optimum(&fab, oc, coll == GSP_COLL_BROADCAST ? rv : -1, &o) && o.defined && o.num > 0) {
                /* M: the allreduce vector, the broadcast's buffer, the allgather's whole output and
                 * the reduce-scatter's whole input (--bytes is one rank's block for those two). */
                double m = coll == GSP_COLL_REDUCE_SCATTER || coll == GSP_COLL_ALLGATHER ? (double)bytes * (double)t.n : (double)bytes;
                printf("on a fabric the prediction is the trees' pipeline at their algbw, the capacities taken as GB/s; the fabric allows %lld "
                       "bytes in %.1f us at best (M / algbw*, "
                       "algbw* = %lld/%lld in its capacities' unit, taken as GB/s)\n",
                       (long long)m, m / (o.value * 1e9) * 1e6, (long long)o.num, (long long)o.den);
            }
            gsp_optimum_destroy(&o);
        }
        for (int i = 0; i < al.n; i++)
            if (al.v[i].pending) {
                printf(forced ? "> a lower bound: not built\n" : "> a lower bound: not built, as it cannot beat the choice\n");
                break;
            }
        if (rank >= 0 && (err = show_program(&al.v[choice], &t, rank, false, NULL))) goto fail;
    }
    goto done;
fail:
    rc = cli_lib_error(err);
done:
    gsp_rt_algos_destroy(&al);
    gsp_distances_destroy(&dist);
    gsp_topo_destroy(&t);
    gsp_topo_destroy(&fab);
    return rc;
}

static int run(int argc, char **argv) {
    const char *coll_s = NULL, *spec = NULL, *method = "auto", *outpath = NULL, *algorithm = NULL;
    const char *tuning = NULL, *svgpath = NULL;
    int64_t bytes = -1, segment = -1;
    cli_sweep_t sweep = {0};
    gsp_cost_t cost = gsp_cost_default();
    bool json = false;
    int64_t root = -1, seed = 1, degree = 0, rank = -1;
    const char *root_name = NULL;
    int64_t batches = 1;
    double time_limit = 0;
    bool prove = false;
    gsp_model_t model = gsp_model_default();
    bool shared = false;
    /* Cost options are applied after the loop, over the shared-memory preset when it is
     * asked for, so that their order does not matter. */
    const char *copt[16], *cval[16];
    int ncost = 0;
    static const cli_optdef_t defs[] = {
        {"shared-memory", false}, {"json", false}, {"prove", false}, {"packets", true}, {"ports", true},     {"duplex", true},
        {"bytes", true},          {"alpha", true}, {"beta", true},   {"gamma", true},   {"hop", true},       {"overhead", true},
        {"method", true},         {"segment", true}, {"time-limit", true}, {"root", true}, {"degree", true}, {"seed", true},
        {"rank", true},           {"o", true},       {"batches", true},       {"tuning", true}, {"algorithm", true}, {"svg", true}, {"progress", false}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "plan", usage_text, defs, argc, argv);
    const char *a, *v;
    int pr;
    while ((pr = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) {
            if (!coll_s) coll_s = v;
            else if (!spec) spec = v;
            else return cli_usage_error("plan: unexpected argument '%s'", v);
            continue;
        }
        if (!strcmp(a, "--help")) return cli_help(&cmd_plan);
        if (!strcmp(a, "--shared-memory")) shared = true;
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--progress")) cli_progress_force();
        else if (!strcmp(a, "--prove")) prove = true;
        else if (!strcmp(a, "--packets") || !strcmp(a, "--ports") || !strcmp(a, "--duplex")) {
            if (!cli_parse_model(a, v, &model)) return EXIT_USAGE;
        } else if (!strcmp(a, "--bytes")) {
            /* LO:HI[:FACTOR] is a sweep; the last --bytes given counts, as for any option. */
            sweep.n = 0;
            if (strchr(v, ':') ? !cli_sweep_parse(v, &sweep) : !cli_parse_size(v, 0, INT64_C(1) << 40, "--bytes", &bytes)) return EXIT_USAGE;
            if (sweep.n) bytes = sweep.lo;
        } else if (!strcmp(a, "--alpha") || !strcmp(a, "--beta") || !strcmp(a, "--gamma") || !strcmp(a, "--hop") ||
                   !strcmp(a, "--overhead")) {
            if (ncost == 16) return cli_usage_error("plan: too many cost options");
            copt[ncost] = a;
            cval[ncost++] = v;
        } else if (!strcmp(a, "--method")) method = v;
        else if (!strcmp(a, "--algorithm")) algorithm = v;
        else if (!strcmp(a, "--tuning")) tuning = v;
        else if (!strcmp(a, "--segment")) {
            if (!cli_parse_size(v, 0, INT64_C(1) << 40, "--segment", &segment)) return EXIT_USAGE;
        } else if (!strcmp(a, "--time-limit")) {
            char *end;
            time_limit = strtod(v, &end);
            if (end == v || *end || !(time_limit > 0) || time_limit > 1e7)
                return cli_usage_error("plan: --time-limit '%s': expected seconds, more than 0", v);
        } else if (!strcmp(a, "--root")) {
            /* A fabric's root may be a vertex name (b0.gpu3): read once the spec is known. */
            root_name = v;
            if (strspn(v, "0123456789") == strlen(v) && !cli_parse_int(v, 0, INT64_MAX, "--root", &root)) return EXIT_USAGE;
        } else if (!strcmp(a, "--rank")) {
            if (!cli_parse_int(v, 0, INT64_MAX, "--rank", &rank)) return EXIT_USAGE;
        } else if (!strcmp(a, "--batches")) {
            if (!cli_parse_int(v, 1, INT64_C(1) << 20, "--batches", &batches)) return EXIT_USAGE;
        } else if (!strcmp(a, "--degree")) {
            if (!cli_parse_int(v, 1, 100000, "--degree", &degree)) return EXIT_USAGE;
        } else if (!strcmp(a, "--seed")) {
            if (!cli_parse_int(v, 0, INT64_MAX, "--seed", &seed)) return EXIT_USAGE;
        } else if (!strcmp(a, "-o")) outpath = v;
        else if (!strcmp(a, "--svg")) svgpath = v;
    }
    if (pr < 0) return EXIT_USAGE;
    if (!coll_s || !spec) return cli_usage_error("plan: expected COLLECTIVE and SPEC (see 'gossip plan --help')");
    gsp_collective_t coll;
    if (!gsp_collective_parse(coll_s, &coll))
        return cli_usage_error("plan: unknown collective '%s' (broadcast, allgather, allreduce, reduce-scatter, reduce)", coll_s);
    /* What applies is decided by which options were given, never by comparing their values with
     * the defaults: "--alpha 1e-6" without --bytes is refused like any other alpha. */
    const char *given;
    if (cli_args_given(&ps, "--root") && coll != GSP_COLL_BROADCAST && coll != GSP_COLL_REDUCE)
        return cli_usage_error("plan: --root applies to broadcast and reduce (the root of the collective), not %s", gsp_collective_name(coll));
    if (bytes >= 0 && root_name && root < 0 && !cli_parse_int(root_name, 0, INT64_MAX, "--root", &root)) return EXIT_USAGE;
    if (bytes >= 0) {
        /* The runtime's algorithms use the default model (1 packet, all ports, full duplex). */
        if (sweep.n) {
            /* A sweep compares the cost model's choices across sizes: what concerns one size
             * or overrides the choice has no meaning there. */
            if (cli_args_given(&ps, "-o"))
                return cli_usage_error("plan: -o writes a schedule; a sweep's picture is --svg FILE (--bytes LO:HI)");
            if (cli_args_given(&ps, "--rank"))
                return cli_usage_error("plan: --rank shows one size's program, not a sweep's: give one size (--bytes B)");
            if (cli_args_given(&ps, "--algorithm"))
                return cli_usage_error("plan: --algorithm forces one algorithm at every size; a sweep (--bytes LO:HI) shows the cost model's choice");
            if (svgpath && json && cli_output_is_stdout(svgpath))
                return cli_usage_error("plan: --svg %s and --json would both write standard output (write the picture to a file)", svgpath);
        } else if (svgpath)
            return cli_usage_error("plan: --svg draws a sweep: give a range of sizes, --bytes LO:HI (8:16MiB)");
        static const char *const not_with_bytes[] = {"--packets", "--ports", "--duplex", "--prove", "--time-limit", "--degree", "--seed", "-o", "--batches", NULL};
        if ((given = cli_args_any(&ps, not_with_bytes)))
            return cli_usage_error("plan: %s does not apply with --bytes (the runtime's algorithms)", given);
        if (!cli_check_rt_method("plan", method)) return EXIT_USAGE;
        if (algorithm && !cli_check_algorithm("plan", coll, algorithm)) return EXIT_USAGE;
        /* Layers: the defaults (or the shared-memory preset), the tuning file, explicit options. */
        if (shared) cost = gsp_cost_shared_memory();
        if (tuning) {
            gsp_err_t terr = gsp_cost_load(tuning, &cost, NULL);
            if (terr) return cli_lib_error(terr);
        }
        if (segment >= 0) cost.segment = segment;
        for (int k = 0; k < ncost; k++) {
            const char *o = copt[k];
            double *t = o[2] == 'a' ? &cost.alpha : o[2] == 'b' ? &cost.beta : o[2] == 'g' ? &cost.gamma : o[2] == 'h' ? &cost.hop : &cost.overhead;
            if (t == &cost.beta ? gsp_cost_parse_beta(o, cval[k], &cost)
                : t == &cost.alpha ? gsp_cost_parse_alpha(o, cval[k], &cost)
                                   : gsp_cost_parse(o, cval[k], t))
                return cli_usage_error("plan: %s", gsp_errmsg());
        }
        return run_bytes(coll, spec, method, algorithm, root, bytes, &cost, json, rank, sweep.n ? &sweep : NULL, svgpath);
    }
    static const char *const bytes_only[] = {"--rank", "--shared-memory", "--tuning", "--alpha", "--beta", "--gamma", "--hop", "--overhead", "--segment", "--algorithm", "--svg", NULL};
    if ((given = cli_args_any(&ps, bytes_only))) {
        if (!strcmp(given, "--algorithm"))
            return cli_usage_error("plan: --algorithm chooses among the runtime's algorithms and applies with --bytes only; a schedule's construction is --method");
        return cli_usage_error("plan: %s applies with --bytes only (the runtime's algorithms and their cost model)", given);
    }
    if (coll == GSP_COLL_REDUCE)
        return cli_usage_error("plan: reduce has no schedule of its own; 'gossip plan reduce SPEC --bytes B' shows the runtime's algorithms");
    if (coll == GSP_COLL_BROADCAST && root < 0 && !root_name) root = 0;
    /* The schedule on standard output: the report goes to stderr, never mixed into the data. */
    bool sched_stdout = outpath && cli_output_is_stdout(outpath);
    if (sched_stdout && json)
        return cli_usage_error("plan: -o %s and --json would both write standard output (write the schedule to a file)", outpath);
    FILE *rep = sched_stdout ? stderr : stdout;
    if (prove && coll != GSP_COLL_ALLGATHER) return cli_usage_error("plan: --prove applies to allgather (SAT proofs of allgather schedules)");
    if (cli_args_given(&ps, "--time-limit") && !prove && strcmp(method, "sat"))
        return cli_usage_error("plan: --time-limit applies with --prove or --method sat (the SAT solver's time per solve)");
    if (cli_args_given(&ps, "--degree") && (coll != GSP_COLL_ALLREDUCE || strcmp(method, "approx")))
        return cli_usage_error("plan: --degree applies to 'plan allreduce SPEC --method approx' only");

    int rc = EXIT_OK;
    gsp_err_t err;
    gsp_topo_t t;
    gsp_distances_t dist = {0};
    gsp_plan_t plan = {0};
    gsp_vt_t vt;
    double t0 = cli_now();
    if ((err = gsp_topo_from_spec(&t, spec))) return cli_lib_error(err);
    if (gsp_topo_is_fabric(&t)) {
        static const char *const not_fabric[] = {"--packets", "--ports", "--duplex", "--method", "--prove", "--time-limit", "--degree", "--seed", NULL};
        if ((given = cli_args_any(&ps, not_fabric))) {
            gsp_topo_destroy(&t);
            return cli_usage_error("plan: %s: %s does not apply on a fabric (its plan is spanning trees at the throughput optimum)", spec, given);
        }
        rc = cli_plan_fabric(coll, &t, root_name, json, t0, batches, outpath, rep);
        gsp_topo_destroy(&t);
        return rc;
    }
    if (cli_args_given(&ps, "--batches")) {
        gsp_topo_destroy(&t);
        return cli_usage_error("plan: --batches applies on a fabric (the pipelined round form of its trees); %s is not one", spec);
    }
    if (root_name && root < 0 && !cli_parse_int(root_name, 0, INT64_MAX, "--root", &root)) {
        gsp_topo_destroy(&t);
        return EXIT_USAGE;
    }
    if (root >= t.n) {
        int64_t n = t.n;
        gsp_topo_destroy(&t);
        return cli_usage_error("plan: --root %lld is not a node of %s (0..%lld)", (long long)root, spec, (long long)n - 1);
    }
    if ((err = gsp_vertex_transitive(&t, &vt)) || (err = gsp_distances(&t, gsp_vt_yes(vt), &dist, cli_progress, NULL)))
        goto fail;
    cli_progress_done();
    if (!dist.connected) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s is not %sconnected: no schedule can reach every node", spec,
                        t.directed ? "strongly " : "");
        goto fail;
    }
    if (degree >= dist.diameter && coll == GSP_COLL_ALLREDUCE)
        fprintf(stderr, "gossip: note: --degree %lld >= the diameter %lld: an exact sum in %lld rounds exists (method auto)\n",
                (long long)degree, (long long)dist.diameter, (long long)dist.diameter);
    gsp_plan_in_t in = {&t, &dist, model, root, (uint64_t)seed, cli_progress, NULL, degree, time_limit};
    /* --time-limit bounds the whole SAT search: --method sat and --prove share it. */
    double limit = time_limit > 0 ? time_limit : 60, sat_start = cli_now();
    if ((err = gsp_plan(&in, coll, method, &plan))) goto fail;
    cli_progress_done();
    double left = strcmp(method, "sat") ? limit : limit - (cli_now() - sat_start);
    if (prove && (err = gsp_plan_prove(&in, &plan, left > 1e-3 ? left : 1e-3))) goto fail;
    cli_progress_done();
    double seconds = cli_now() - t0;
    plan.sched.names = (const char *const *)t.names; /* host names travel with the schedule */
    plan.sched.graph = &t;                          /* and a file's graph (docs/schedule-format.md) */
    if (outpath) {
        gsp_out_t out;
        if ((err = gsp_out_open(&out, outpath))) goto fail;
        if ((err = gsp_out_close(&out, gsp_sched_write(&plan.sched, out.f)))) {
            rc = cli_write_error(err);
            goto done;
        }
    }

    const gsp_bound_t *bind = &plan.bounds.b[plan.bounds.binding];
    char mdesc[96];
    describe_model(&model, mdesc, sizeof mdesc);
    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "collective"); gsp_jw_str(&w, gsp_collective_name(coll));
        gsp_jw_key(&w, "topology"); gsp_jw_str(&w, t.spec);
        gsp_jw_key(&w, "nodes"); gsp_jw_int(&w, t.n);
        gsp_jw_key(&w, "model");
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "packets");
        if (model.packets == GSP_PACKETS_INF) gsp_jw_str(&w, "inf"); else gsp_jw_int(&w, model.packets);
        gsp_jw_key(&w, "ports"); gsp_jw_str(&w, model.one_port ? "1" : "all");
        gsp_jw_key(&w, "duplex"); gsp_jw_str(&w, model.half_duplex ? "half" : "full");
        gsp_jw_obj_end(&w);
        if (coll == GSP_COLL_BROADCAST) { gsp_jw_key(&w, "root"); gsp_jw_int(&w, plan.sched.root); }
        gsp_jw_key(&w, "method"); gsp_jw_str(&w, plan.method->name);
        /* auto: every method of the collective once, in registry order, with its rounds or
         * why it was skipped or does not apply; [] when a method was named. */
        gsp_jw_key(&w, "tried");
        gsp_jw_arr_begin(&w);
        for (int i = 0; i < plan.ntried; i++) {
            const gsp_tried_t *tr = &plan.attempts[i];
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "method"); gsp_jw_str(&w, tr->method->name);
            if (tr->kind == GSP_TRIED_BUILT) {
                gsp_jw_key(&w, "rounds"); gsp_jw_int(&w, tr->rounds);
            } else if (tr->kind == GSP_TRIED_SKIPPED) {
                gsp_jw_key(&w, "skipped"); gsp_jw_str(&w, tr->why);
                if (tr->rounds >= 0) { gsp_jw_key(&w, "at_least"); gsp_jw_int(&w, tr->rounds); }
            } else {
                gsp_jw_key(&w, "not_applicable"); gsp_jw_str(&w, tr->why);
            }
            gsp_jw_obj_end(&w);
        }
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "rounds"); gsp_jw_int(&w, plan.sched.nrounds);
        gsp_jw_key(&w, "lower_bound"); gsp_jw_int(&w, plan.lower_bound);
        gsp_jw_key(&w, "bounds");
        gsp_jw_obj_begin(&w);
        for (int i = 0; i < plan.bounds.count; i++) {
            gsp_jw_key(&w, plan.bounds.b[i].name);
            gsp_jw_int(&w, plan.bounds.b[i].value);
        }
        gsp_jw_obj_end(&w);
        gsp_jw_key(&w, "binding_bound"); gsp_jw_str(&w, bind->name);
        gsp_jw_key(&w, "binding_source"); gsp_jw_str(&w, bind->source);
        gsp_jw_key(&w, "optimal"); gsp_jw_bool(&w, plan.optimal);
        gsp_jw_key(&w, "optimality"); gsp_jw_str(&w, plan.method->approximate ? "n/a" : optimality_name(plan.optimality));
        if (plan.proof[0]) { gsp_jw_key(&w, "proof"); gsp_jw_str(&w, plan.proof); }
        gsp_jw_key(&w, "gap"); gsp_jw_int(&w, plan.sched.nrounds - plan.lower_bound);
        gsp_jw_key(&w, "verified"); gsp_jw_bool(&w, plan.report.ok);
        gsp_jw_key(&w, "symmetric"); gsp_jw_bool(&w, plan.sched.symmetric);
        gsp_jw_key(&w, "transfers"); gsp_jw_int(&w, plan.report.transfers);
        gsp_jw_key(&w, "duplicates"); gsp_jw_int(&w, plan.report.duplicates);
        gsp_jw_key(&w, "peak_arc_load"); gsp_jw_int(&w, plan.report.peak_arc_load);
        if (coll == GSP_COLL_ALLREDUCE || coll == GSP_COLL_REDUCE_SCATTER) {
            gsp_jw_key(&w, "form"); gsp_jw_str(&w, plan.sched.blocks ? "blocks" : "registers");
            gsp_jw_key(&w, "exact_forms"); gsp_jw_bool(&w, plan.report.exact_forms);
        }
        if (coll == GSP_COLL_ALLREDUCE) {
            gsp_jw_key(&w, "max_rel_error"); gsp_jw_num(&w, plan.report.max_rel_error);
            gsp_jw_key(&w, "diameter"); gsp_jw_int(&w, dist.diameter);
            gsp_jw_key(&w, "sum_optimal"); gsp_jw_bool(&w, !plan.method->approximate && plan.sched.nrounds == dist.diameter);
            gsp_jw_key(&w, "approximate"); gsp_jw_bool(&w, plan.method->approximate);
            if (plan.method->approximate) {
                gsp_jw_key(&w, "rel_variance"); gsp_jw_num(&w, plan.report.rel_variance);
                gsp_jw_key(&w, "rel_variance_bound"); gsp_jw_num(&w, plan.method->variance_bound(&in));
            }
        }
        if (outpath) { gsp_jw_key(&w, "output"); gsp_jw_str(&w, outpath); }
        gsp_jw_key(&w, "seconds"); gsp_jw_num(&w, seconds);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w); /* a failed write of stdout is reported by main: exit 3 with the reason */
    } else {
        fprintf(rep, "%-12s %s on %s (%lld nodes), %s\n", "collective", gsp_collective_name(coll), t.spec,
               (long long)t.n, mdesc);
        /* A method that plans through another topology says which (isomorphic: torus:8x8 by rotation). */
        fprintf(rep, "%-12s %s\n", "method", plan.sched.method && !strncmp(plan.sched.method, plan.method->name, strlen(plan.method->name)) &&
                                                     plan.sched.method[strlen(plan.method->name)] == ':'
                                                 ? plan.sched.method
                                                 : plan.method->name);
        if (plan.tried[0]) fprintf(rep, "%-12s %s\n", "tried", plan.tried);
        fprintf(rep, "%-12s %lld\n", "rounds", (long long)plan.sched.nrounds);
        fprintf(rep, "%-12s %lld (%s: %s)\n", "lower bound", (long long)plan.lower_bound, bind->name, bind->source);
        if (plan.method->approximate) fprintf(rep, "%-12s n/a: an estimate (the bound is for exact results)\n", "optimal");
        else if (plan.optimality == GSP_OPT_BOUND) fprintf(rep, "%-12s yes: the lower bound is met%s%s%s\n", "optimal", plan.proof[0] ? " (" : "", plan.proof, plan.proof[0] ? ")" : "");
        else if (plan.optimality == GSP_OPT_PROVED) fprintf(rep, "%-12s yes, proved: %s\n", "optimal", plan.proof);
        else if (plan.optimality == GSP_OPT_PROVED_SYMMETRIC)
            fprintf(rep, "%-12s among symmetric schedules: %s; %lld above the lower bound\n", "optimal", plan.proof,
                   (long long)(plan.sched.nrounds - plan.lower_bound));
        else {
            /* --prove is advised only where it runs: allgather on at most GSP_PROVE_EXPLICIT_MAX
             * nodes or on a Cayley graph (gsp_plan_prove). */
            bool provable = coll == GSP_COLL_ALLGATHER && (t.n <= GSP_PROVE_EXPLICIT_MAX || t.group);
            fprintf(rep, "%-12s open: %lld above the lower bound%s%s\n", "optimal", (long long)(plan.sched.nrounds - plan.lower_bound),
                   plan.proof[0] ? "; " : provable ? " (--prove asks a SAT solver)" : "", plan.proof);
        }
        fprintf(rep, "%-12s yes: %lld transfers, %lld duplicate deliveries, peak %lld packets on an arc in a round\n",
               "verified", (long long)plan.report.transfers, (long long)plan.report.duplicates,
               (long long)plan.report.peak_arc_load);
        if (plan.sched.blocks)
            fprintf(rep, "%-12s every contribution counted exactly once at its owner (block form)\n", "exact");
        if (coll == GSP_COLL_ALLREDUCE && !plan.sched.blocks)
            fprintf(rep, "%-12s %.3g on random inputs%s\n", "rel. error", plan.report.max_rel_error,
                   plan.report.exact_forms ? "; exact linear forms checked" : "");
        if (coll == GSP_COLL_ALLREDUCE) {
            if (plan.method->approximate)
                fprintf(rep, "%-12s estimate after %lld rounds (D = %lld): relative variance %.3g measured, %.3g bound (Theorem 5)\n",
                       "global sum", (long long)plan.sched.nrounds, (long long)dist.diameter, plan.report.rel_variance,
                       plan.method->variance_bound(&in));
            else if (plan.sched.nrounds == dist.diameter)
                fprintf(rep, "%-12s sum-optimal: rounds = D = %lld, proved by the %s construction\n", "global sum",
                       (long long)dist.diameter, plan.sched.method);
            else
                fprintf(rep, "%-12s %lld rounds against D = %lld\n", "global sum", (long long)plan.sched.nrounds,
                       (long long)dist.diameter);
        }
        if (outpath) fprintf(rep, "%-12s %s\n", "written", strcmp(outpath, "-") ? outpath : "standard output");
        if (seconds < 1) fprintf(rep, "%-12s %.2f ms\n", "time", seconds * 1e3);
        else fprintf(rep, "%-12s %.2f s\n", "time", seconds);
    }
    goto done;
fail:
    rc = cli_lib_error(err);
done:
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&dist);
    gsp_topo_destroy(&t);
    return rc;
}

const cli_command_t cmd_plan = {"plan", "build, verify and bound a schedule for a collective", run, usage_text};

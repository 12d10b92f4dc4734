/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan_fabric.c — `gossip plan COLLECTIVE FABRIC`: spanning trees that reach the fabric's
 * throughput optimum (gsp_fabric_trees), reported beside the optimum (docs/fabrics.md,
 * "Plans on fabrics"). Allreduce is reduce-scatter's trees then allgather's. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gossip/fabric.h"
#include "plan_int.h"

static void frac(char *buf, size_t size, int64_t num, int64_t den) {
    if (den == 1) snprintf(buf, size, "%lld", (long long)num);
    else snprintf(buf, size, "%lld/%lld", (long long)num, (long long)den);
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a ? a : 1;
}

/* 1 / (1/a + 1/b) for allreduce, reduced; false when it leaves 64 bits. */
static bool harmonic(int64_t an, int64_t ad, int64_t bn, int64_t bd, int64_t *num, int64_t *den) {
    __int128 n = (__int128)an * bn, d = (__int128)an * bd + (__int128)bn * ad;
    __int128 g = n, h = d;
    while (h) {
        __int128 r = g % h;
        g = h;
        h = r;
    }
    if (g == 0) g = 1;
    n /= g;
    d /= g;
    if (n > INT64_MAX || d > INT64_MAX) return false;
    *num = (int64_t)n;
    *den = (int64_t)d;
    return true;
}

static void phase_json(gsp_jw_t *w, const gsp_forest_t *f) {
    char b[64];
    gsp_jw_obj_begin(w);
    frac(b, sizeof b, f->num, f->den);
    gsp_jw_key(w, "algbw"); gsp_jw_str(w, b);
    gsp_jw_key(w, "algbw_value"); gsp_jw_num(w, f->value);
    gsp_jw_key(w, "trees"); gsp_jw_int(w, f->ntrees);
    gsp_jw_key(w, "depth"); gsp_jw_int(w, f->depth);
    gsp_jw_key(w, "hop_depth"); gsp_jw_int(w, f->hop_depth);
    gsp_jw_key(w, "share"); gsp_jw_int(w, f->share);
    gsp_jw_key(w, "max_flows"); gsp_jw_int(w, f->flows);
    gsp_jw_obj_end(w);
}

int cli_plan_fabric(gsp_collective_t coll, gsp_topo_t *t, const char *root_name, bool json, double t0, int64_t batches, const char *outpath,
                    FILE *rep) {
    gsp_err_t err = GSP_OK;
    gsp_sched_t sched = {0};
    gsp_report_t vrep = {0};
    bool have_rounds = true, too_big = false;
    int rc = EXIT_OK;
    gsp_forest_t f[2] = {{0}, {0}};
    gsp_optimum_t opt = {0};
    int64_t root = -1, nf = 1, N = gsp_topo_compute_count(t), bound = batches;
    char b[24];
    if (coll == GSP_COLL_BROADCAST) {
        for (int64_t x = 0; x < t->n && root < 0 && root_name; x++)
            if (!strcmp(gsp_topo_node_name(t, x, b), root_name)) root = x;
        if (root_name && root < 0) return cli_usage_error("plan: --root %s is not a vertex of %s", root_name, t->spec);
        if (root >= 0 && t->is_switch && t->is_switch[root])
            return cli_usage_error("plan: --root %s is a switch; a broadcast starts at a compute node", root_name);
        for (int64_t x = 0; x < t->n && root < 0; x++)
            if (!t->is_switch || !t->is_switch[x]) root = x;
    }
    if (coll == GSP_COLL_ALLREDUCE) {
        nf = 2;
        if ((err = gsp_fabric_trees(t, GSP_COLL_REDUCE_SCATTER, -1, &f[0])) || (err = gsp_fabric_trees(t, GSP_COLL_ALLGATHER, -1, &f[1]))) goto fail;
    } else if ((err = gsp_fabric_trees(t, coll, root, &f[0])))
        goto fail;
    if ((err = gsp_optimum(t, coll, root, &opt))) goto fail;
    /* Wall time since the command started, and this process's CPU time (what a shared,
     * loaded machine does not inflate; ForestColl's times in docs/fabrics.md are CPU times). */
    double seconds = cli_now() - t0, t1 = cli_now(), cpu = (double)clock() / CLOCKS_PER_SEC;
    /* The round form, checked by the simulator under the capacities (allreduce: reduce-scatter's
     * rounds, then allgather's, against the sum of their throughput bounds). */
    if (have_rounds) {
        err = nf > 1 ? gsp_forest_sched_allreduce(t, &f[0], &f[1], batches, &sched, &bound) : gsp_forest_sched(t, &f[0], batches, &sched);
        if (err || (err = gsp_sched_verify(&sched, t, 1, &vrep))) {
            /* Too large to write or check: the trees stand without their round form, unless
             * -o asked for it. */
            if (err != GSP_ERR_TOOBIG || outpath) goto fail;
            err = GSP_OK;
            have_rounds = false;
            too_big = true;
            gsp_sched_destroy(&sched);
            memset(&sched, 0, sizeof sched);
        }
    }
    if (have_rounds) {
        if (!vrep.ok) {
            err = gsp_error(GSP_ERR_INTERNAL, "the round form of the trees fails the verifier: %s", vrep.message);
            goto fail;
        }
        if (outpath) {
            gsp_out_t out;
            sched.names = (const char *const *)t->names;
            sched.graph = t;
            if ((err = gsp_out_open(&out, outpath))) goto fail;
            if ((err = gsp_out_close(&out, gsp_sched_write(&sched, out.f)))) {
                rc = cli_write_error(err);
                err = GSP_OK;
                goto fail;
            }
        }
    }
    int64_t num = f[0].num, den = f[0].den, ntrees = f[0].ntrees + (nf > 1 ? f[1].ntrees : 0), depth = f[0].depth, hdepth = f[0].hop_depth;
    if (nf > 1) {
        if (!harmonic(f[0].num, f[0].den, f[1].num, f[1].den, &num, &den)) {
            err = gsp_error(GSP_ERR_OVERFLOW, "the allreduce algbw leaves 64 bits");
            goto fail;
        }
        if (f[1].depth > depth) depth = f[1].depth;
        if (f[1].hop_depth > hdepth) hdepth = f[1].hop_depth;
    }
    int64_t g = gcd64(num, den);
    num /= g, den /= g;
    bool optimal = num == opt.num && den == opt.den;
    double round_seconds = cli_now() - t1;
    char a[64], o[64];
    frac(a, sizeof a, num, den);
    frac(o, sizeof o, opt.num, opt.den);
    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "collective"); gsp_jw_str(&w, gsp_collective_name(coll));
        gsp_jw_key(&w, "topology"); gsp_jw_str(&w, t->spec);
        gsp_jw_key(&w, "nodes"); gsp_jw_int(&w, N);
        gsp_jw_key(&w, "vertices"); gsp_jw_int(&w, t->n);
        gsp_jw_key(&w, "switches"); gsp_jw_int(&w, t->nswitch);
        gsp_jw_key(&w, "method"); gsp_jw_str(&w, "fabric-trees");
        if (coll == GSP_COLL_BROADCAST) {
            gsp_jw_key(&w, "root"); gsp_jw_str(&w, gsp_topo_node_name(t, root, b));
        }
        /* Rounds of the round form (an arc of capacity c carries cap_factor c packets a round)
         * against the throughput bound, `batches` rounds; null where no round form is built. */
        gsp_jw_key(&w, "rounds");
        if (have_rounds) gsp_jw_int(&w, sched.nrounds);
        else gsp_jw_null(&w);
        gsp_jw_key(&w, "lower_bound");
        if (have_rounds) gsp_jw_int(&w, bound);
        else gsp_jw_null(&w);
        gsp_jw_key(&w, "bounds");
        gsp_jw_obj_begin(&w);
        if (have_rounds) {
            gsp_jw_key(&w, "throughput"); gsp_jw_int(&w, bound);
        }
        gsp_jw_obj_end(&w);
        if (have_rounds) {
            gsp_jw_key(&w, "batches"); gsp_jw_int(&w, batches);
            gsp_jw_key(&w, "chunks"); gsp_jw_int(&w, sched.chunks);
            gsp_jw_key(&w, "capacity_factor"); gsp_jw_int(&w, sched.cap_factor);
            gsp_jw_key(&w, "transfers"); gsp_jw_int(&w, sched.nsends);
            gsp_jw_key(&w, "verified"); gsp_jw_bool(&w, vrep.ok);
        }
        if (outpath) { gsp_jw_key(&w, "output"); gsp_jw_str(&w, outpath); }
        gsp_jw_key(&w, "algbw"); gsp_jw_str(&w, a);
        gsp_jw_key(&w, "algbw_value"); gsp_jw_num(&w, (double)num / (double)den);
        gsp_jw_key(&w, "optimum");
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "algbw"); gsp_jw_str(&w, o);
        gsp_jw_key(&w, "algbw_value"); gsp_jw_num(&w, opt.value);
        gsp_jw_obj_end(&w);
        gsp_jw_key(&w, "optimal"); gsp_jw_bool(&w, optimal);
        gsp_jw_key(&w, "trees"); gsp_jw_int(&w, ntrees);
        gsp_jw_key(&w, "depth"); gsp_jw_int(&w, depth);
        gsp_jw_key(&w, "hop_depth"); gsp_jw_int(&w, hdepth);
        if (nf > 1) {
            gsp_jw_key(&w, "phases");
            gsp_jw_obj_begin(&w);
            gsp_jw_key(&w, "reduce_scatter"); phase_json(&w, &f[0]);
            gsp_jw_key(&w, "allgather"); phase_json(&w, &f[1]);
            gsp_jw_obj_end(&w);
        } else {
            gsp_jw_key(&w, "share"); gsp_jw_int(&w, f[0].share);
        }
        gsp_jw_key(&w, "max_flows"); gsp_jw_int(&w, f[0].flows + (nf > 1 ? f[1].flows : 0));
        gsp_jw_key(&w, "seconds"); gsp_jw_num(&w, seconds);
        gsp_jw_key(&w, "cpu_seconds"); gsp_jw_num(&w, cpu);
        gsp_jw_key(&w, "round_form_seconds"); gsp_jw_num(&w, round_seconds);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    } else {
        fprintf(rep, "%-19s %s\n", "collective", gsp_collective_name(coll));
        fprintf(rep, "%-19s %s\n", "topology", t->spec);
        fprintf(rep, "%-19s %lld compute nodes, %lld switches\n", "nodes", (long long)N, (long long)t->nswitch);
        fprintf(rep, "%-19s fabric-trees\n", "method");
        if (coll == GSP_COLL_BROADCAST) fprintf(rep, "%-19s %s\n", "root", gsp_topo_node_name(t, root, b));
        fprintf(rep, "%-19s %s = %.6g (optimum %s = %.6g: %s)\n", "algbw", a, (double)num / (double)den, o, opt.value, optimal ? "reached" : "NOT reached");
        fprintf(rep, "%-19s %lld, deepest %lld edges (%lld fabric hops)\n", "trees", (long long)ntrees, (long long)depth, (long long)hdepth);
        if (have_rounds)
            fprintf(rep, "%-19s %lld (bound %lld, the batches%s; %lld chunks per node, an arc carries %lld x its capacity a round), verified\n",
                    "rounds", (long long)sched.nrounds, (long long)bound, nf > 1 ? " of both phases" : "", (long long)sched.chunks,
                    (long long)sched.cap_factor);
        if (too_big) fprintf(rep, "%-19s not built: too large to write or verify (fewer --batches)\n", "rounds");
        if (outpath) fprintf(rep, "%-19s %s\n", "written", strcmp(outpath, "-") ? outpath : "standard output");
        fprintf(rep, "%-19s %.3f s (the round form and its verification %.3f s more)\n", "time", seconds, round_seconds);
    }
fail:
    for (int i = 0; i < 2; i++) gsp_forest_destroy(&f[i]);
    gsp_optimum_destroy(&opt);
    gsp_sched_destroy(&sched);
    return err ? cli_lib_error(err) : rc;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan_verify.c — libgossip from a program: plan an optimal all-gather on a topology, prove it
 * with the verifier, and write the schedule file. Built against the installed library by
 * `pkg-config --cflags --libs gossip` or `find_package(gossip)` (tests/install/), and in the
 * build tree by the tests.
 *
 *   plan_verify [SPEC [FILE]]     default: torus:4x4, no file
 *
 * Prints the library version, the method, its rounds beside the lower bound, and the
 * verifier's verdict; exit 0 when the schedule is valid. */
#include <stdio.h>
#include <string.h>

#include <gossip/gossip.h>

int main(int argc, char **argv) {
    const char *spec = argc > 1 ? argv[1] : "torus:4x4";
    gsp_topo_t t;
    gsp_vt_t vt;
    gsp_distances_t d;
    gsp_plan_t plan;
    gsp_report_t rep;
    if (strcmp(gsp_version(), GSP_VERSION_STRING)) {
        fprintf(stderr, "plan_verify: headers %s, library %s\n", GSP_VERSION_STRING, gsp_version());
        return 1;
    }
    printf("libgossip %s\n", gsp_version());
    if (gsp_topo_from_spec(&t, spec)) goto fail;
    /* Distances: one BFS when the graph is vertex-transitive, else one per node. */
    if (gsp_vertex_transitive(&t, &vt) || gsp_distances(&t, gsp_vt_yes(vt), &d, NULL, NULL)) goto fail;
    gsp_plan_in_t in = {&t, &d, gsp_model_default(), -1, 1, NULL, NULL, 0, 0};
    if (gsp_plan(&in, GSP_COLL_ALLGATHER, "auto", &plan)) goto fail;
    printf("allgather on %s: %s, %lld rounds, lower bound %lld%s\n", spec, plan.method->name, (long long)plan.sched.nrounds,
           (long long)plan.lower_bound, plan.optimal ? " (optimal)" : "");
    /* gsp_plan verified it already; an independent check costs one more simulation. */
    if (gsp_sched_verify(&plan.sched, &t, 1, &rep)) goto fail;
    printf("verifier: %s\n", rep.ok ? "valid" : rep.message);
    if (argc > 2 && gsp_sched_save(&plan.sched, argv[2])) goto fail;
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    return rep.ok ? 0 : 1;
fail:
    fprintf(stderr, "plan_verify: %s\n", gsp_errmsg());
    return 2;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan_verify.c — libgossip from a program: plan an optimal all-gather on a topology, prove it
 * with the verifier, and write the schedule file. Built against the installed library by
 * `pkg-config --cflags --libs gossip` or `find_package(gossip)` (tests/install/), and in the
 * build tree by the tests.
 *
 *   plan_verify [SPEC [FILE]]     default: torus:4x4, no file
 *
 * Prints the library version, the method, its rounds beside the lower bound, and the
 * verifier's verdict; exit 0 when the schedule is valid.
 *
 * Options are designated initializers: what is left out is the default, so the model below
 * (left out) is the papers' one — one packet per arc per round, all ports, full duplex. Name
 * only what changes, e.g. {.model.packets = 2} or {.model = {.packets = GSP_PACKETS_INF}}. */
#include <stdio.h>
#include <string.h>

#include <gossip/gossip.h>

int main(int argc, char **argv) {
    const char *spec = argc > 1 ? argv[1] : "torus:4x4";
    gsp_plan_t plan;
    gsp_topo_t t;
    gsp_report_t rep;
    if (strcmp(gsp_version(), GSP_VERSION_STRING)) {
        fprintf(stderr, "plan_verify: headers %s, library %s\n", GSP_VERSION_STRING, gsp_version());
        return 1;
    }
    printf("libgossip %s\n", gsp_version());
    /* One call: parse the spec, compute its distances, plan (method auto) and verify. */
    const gsp_plan_opts_t opts = {.method = "auto", .seed = 1};
    if (gsp_plan_spec(spec, GSP_COLL_ALLGATHER, &opts, &plan)) goto fail;
    printf("allgather on %s: %s, %lld rounds, lower bound %lld%s, %lld packet%s per arc per round\n", spec, plan.method->name,
           (long long)plan.sched.nrounds, (long long)plan.lower_bound, plan.optimal ? " (optimal)" : "",
           (long long)plan.sched.model.packets, plan.sched.model.packets == 1 ? "" : "s");
    /* gsp_plan_spec verified it already; an independent check, on the topology parsed anew,
     * costs one more simulation. */
    if (gsp_topo_from_spec(&t, spec)) goto fail;
    if (gsp_sched_verify(&plan.sched, &t, 1, &rep)) goto fail;
    printf("verifier: %s\n", rep.ok ? "valid" : rep.message);
    if (argc > 2 && gsp_sched_save(&plan.sched, argv[2])) goto fail;
    gsp_plan_destroy(&plan);
    gsp_topo_destroy(&t);
    return rep.ok ? 0 : 1;
fail:
    fprintf(stderr, "plan_verify: %s\n", gsp_errmsg());
    return 2;
}

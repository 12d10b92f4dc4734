/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_sched.c — the schedule reader followed by the verifier: any file is either refused
 * with one error or loaded and judged; a schedule on a small topology is verified. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_limits();
    gsp_sched_t s;
    if (gsp_sched_load(&s, fuzz_file(data, size, ".json")) != GSP_OK) return 0;
    gsp_topo_t t;
    if (s.topology && gsp_sched_topology(&s, &t, NULL) == GSP_OK) {
        if (t.n <= 512) {
            gsp_report_t rep;
            gsp_sched_verify(&s, &t, 1, &rep);
        }
        gsp_topo_destroy(&t);
    }
    gsp_sched_destroy(&s);
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_msccl.c — the msccl-tools JSON importer, onto the 3x3 torus, then the verifier. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_limits();
    gsp_sched_t s;
    if (gsp_import_msccl_json(&s, fuzz_file(data, size, ".msccl.json"), "torus:3x3") != GSP_OK) return 0;
    gsp_topo_t t;
    if (gsp_topo_from_spec(&t, "torus:3x3") == GSP_OK) {
        gsp_report_t rep;
        gsp_sched_verify(&s, &t, 1, &rep);
        gsp_topo_destroy(&t);
    }
    gsp_sched_destroy(&s);
    return 0;
}

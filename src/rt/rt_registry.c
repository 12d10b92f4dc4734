/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_registry.c — the one table of the runtime's algorithms. The choice, `gossip plan --bytes`,
 * `gossip list --runtime` (and with it the docs table) and the tests all read it; each entry
 * lives in its own file, whose header comment gives its cost and where it applies. The order is
 * the order candidates are listed in and ties are broken by. */
#include <string.h>

#include "rt_int.h"

extern const gsp__rt_method_t gsp__rt_packet, gsp__rt_rs_ag, gsp__rt_flood, gsp__rt_rs_ag_flood, gsp__rt_gather, gsp__rt_rings,
    gsp__rt_tree, gsp__rt_flat, gsp__rt_doubling, gsp__rt_swing, gsp__rt_dims, gsp__rt_scatter_allgather, gsp__rt_rs_gather, gsp__rt_multitree, gsp__rt_fabric,
    gsp__rt_fabric_shallow, gsp__rt_fabric_rings, gsp__rt_fabric_streams;

const gsp__rt_method_t *const gsp__rt_methods[] = {&gsp__rt_packet, &gsp__rt_rs_ag,  &gsp__rt_flood, &gsp__rt_rs_ag_flood,
                                                   &gsp__rt_gather, &gsp__rt_rings, &gsp__rt_doubling, &gsp__rt_swing, &gsp__rt_tree,  &gsp__rt_flat,
                                                   &gsp__rt_dims,   &gsp__rt_scatter_allgather, &gsp__rt_rs_gather, &gsp__rt_multitree,
                                                   &gsp__rt_fabric, &gsp__rt_fabric_shallow, &gsp__rt_fabric_rings, &gsp__rt_fabric_streams};
const int gsp__rt_nmethods = (int)(sizeof gsp__rt_methods / sizeof *gsp__rt_methods);

const gsp__rt_method_t *gsp__rt_method_find(const char *name) {
    for (int i = 0; i < gsp__rt_nmethods; i++)
        if (!strcmp(gsp__rt_methods[i]->name, name)) return gsp__rt_methods[i];
    return NULL;
}

int gsp_rt_registry_size(void) { return gsp__rt_nmethods; }

bool gsp_rt_registry_entry(int i, gsp_rt_info_t *out) {
    if (i < 0 || i >= gsp__rt_nmethods) return false;
    const gsp__rt_method_t *m = gsp__rt_methods[i];
    out->name = m->name;
    out->collectives = m->colls;
    out->where = m->where;
    out->rounds = m->rounds;
    out->what = m->what;
    return true;
}

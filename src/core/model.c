/* SPDX-License-Identifier: GPL-3.0-or-later */
/* model.c — names of collectives. */
#include <string.h>

#include "gossip/model.h"

const char *gsp_collective_name(gsp_collective_t c) {
    switch (c) {
    case GSP_COLL_BROADCAST: return "broadcast";
    case GSP_COLL_ALLGATHER: return "allgather";
    case GSP_COLL_ALLREDUCE: return "allreduce";
    case GSP_COLL_REDUCE_SCATTER: return "reduce-scatter";
    case GSP_COLL_REDUCE: return "reduce";
    }
    return "unknown";
}

bool gsp_collective_parse(const char *s, gsp_collective_t *out) {
    if (!strcmp(s, "broadcast") || !strcmp(s, "bcast")) *out = GSP_COLL_BROADCAST;
    else if (!strcmp(s, "allgather") || !strcmp(s, "gossip")) *out = GSP_COLL_ALLGATHER;
    else if (!strcmp(s, "allreduce") || !strcmp(s, "sum")) *out = GSP_COLL_ALLREDUCE;
    else if (!strcmp(s, "reduce-scatter") || !strcmp(s, "reduce_scatter")) *out = GSP_COLL_REDUCE_SCATTER;
    else if (!strcmp(s, "reduce")) *out = GSP_COLL_REDUCE;
    else return false;
    return true;
}

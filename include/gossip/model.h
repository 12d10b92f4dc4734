/* SPDX-License-Identifier: GPL-3.0-or-later */
/* model.h — the collectives and the round model of docs/schedule-format.md (packets per arc per round,
 * ports, duplex). Shared by bounds, schedules and methods. */
#ifndef GOSSIP_MODEL_H
#define GOSSIP_MODEL_H

#include "gossip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GSP_COLL_BROADCAST = 1,
    GSP_COLL_ALLGATHER,
    GSP_COLL_ALLREDUCE,
    /* Node x ends with block x of the sum of every node's vector (N blocks): the time-reversal
     * of an allgather, partial sums travelling towards each block's owner. */
    GSP_COLL_REDUCE_SCATTER,
    /* The sum at one root (the runtime's MPI_Reduce; no schedule method of its own). */
    GSP_COLL_REDUCE
} gsp_collective_t;

/** "broadcast", "allgather", "allreduce", "reduce-scatter", "reduce". */
GSP_API const char *gsp_collective_name(gsp_collective_t c);
/** Parses a collective name (also "bcast", "gossip" = allgather, "sum" = allreduce,
 * "reduce_scatter"); false if unknown. */
GSP_API bool gsp_collective_parse(const char *s, gsp_collective_t *out);

/* Any number of packets per arc per round (flooding). Not 0: a zero-initialised model is the
 * papers' default (one packet, all ports, full duplex); before 0.2 this was 0. */
#define GSP_PACKETS_INF (-1)

/* Zero-initialised ({0}, or a designated initializer that leaves it out) is the default model:
 * packets 0 reads as 1. */
typedef struct {
    int64_t packets; /* p >= 1, or GSP_PACKETS_INF; 0 means 1 */
    bool one_port;   /* ports "1": one send and one receive per node per round */
    bool half_duplex; /* an edge carries one direction per round */
} gsp_model_t;

/** The default model: 1 packet, all ports, full duplex (Bermond's F*); the same as a
 * zero-initialised gsp_model_t. */
static inline gsp_model_t gsp_model_default(void) {
    gsp_model_t m = {1, false, false};
    return m;
}

/** m as the library reads it: packets 0 (a zero-initialised model) becomes 1; anything else,
 * GSP_PACKETS_INF included, is kept. Every function that takes a model applies it. */
static inline gsp_model_t gsp_model_resolve(gsp_model_t m) {
    if (m.packets == 0) m.packets = 1;
    return m;
}

#ifdef __cplusplus
}
#endif
#endif

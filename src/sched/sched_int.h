/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sched_int.h — internals shared by the schedule reader/writer (sched_io.c) and the embedded
 * graph of file topologies (sched_graph.c). */
#ifndef GOSSIP_SCHED_INT_H
#define GOSSIP_SCHED_INT_H

#include <jansson.h>
#include <stdio.h>

#include "gossip/sched.h"

/** True when the writer embeds s->graph: a graph is given, fits the schedule, and the spec
 * reads a file (the one kind of topology a spec alone cannot rebuild elsewhere). */
bool gsp__sched_embeds(const gsp_sched_t *s);
/** Writes `,\n"graph":{...}` for s->graph to f. */
void gsp__sched_write_graph(const gsp_sched_t *s, FILE *f);
/** Builds s->graph (owned) from the file's "graph" object g [in] and its top-level "names"
 * [in, may be NULL], and checks it against the hash g holds. Errors name path [in]. */
gsp_err_t gsp__sched_read_graph(gsp_sched_t *s, json_t *g, json_t *names, const char *path);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sched_int.h — internals shared by the schedule reader/writer (sched_io.c) and the embedded
 * graph of file topologies (sched_graph.c), and by the two MSCCL exporters (export.c,
 * export_fabric.c). */
#ifndef GOSSIP_SCHED_INT_H
#define GOSSIP_SCHED_INT_H

#include <jansson.h>
#include <stdio.h>

#include "gossip/sched.h"
#include "core/core_int.h"

/** True when the writer embeds s->graph: a graph is given, fits the schedule, and the spec
 * reads a file (the one kind of topology a spec alone cannot rebuild elsewhere). */
bool gsp__sched_embeds(const gsp_sched_t *s);
/** Writes `,\n"graph":{...}` for s->graph to f. */
void gsp__sched_write_graph(const gsp_sched_t *s, FILE *f);
/** Builds s->graph (owned) from the file's "graph" object g [in] and its top-level "names"
 * [in, may be NULL], and checks it against the hash g holds. Errors name path [in]. */
gsp_err_t gsp__sched_read_graph(gsp_sched_t *s, json_t *g, json_t *names, const char *path);

/* MSCCL's executor runs at most 256 steps per threadblock, 32 threadblocks per channel, 32
 * channels and 216 threadblocks per GPU (MSCCL_MAX_NUM_THREAD_BLOCKS): both exporters keep
 * within them. */
#define GSP__MSCCL_MAX_TB 32
#define GSP__MSCCL_MAX_STEPS 256
#define GSP__MSCCL_MAX_CHANNELS 32
#define GSP__MSCCL_MAX_TB_TOTAL 216

/** A fabric's schedule s [in] on t [in] (chunks, capacities, switches: export_fabric.c) as
 * MSCCL XML to f, the algorithm named name [in], for message sizes minb..maxb. Errors:
 * GSP_ERR_UNSUPPORTED (a switch that copies or combines), GSP_ERR_TOOBIG (beyond
 * the executor's limits, named), GSP_ERR_INVAL, GSP_ERR_IO, GSP_ERR_NOMEM. */
gsp_err_t gsp__export_fabric_xml(const gsp_sched_t *s, const gsp_topo_t *t, const char *name, int64_t minb, int64_t maxb, FILE *f);
/* msccl-tools JSON's input_map and output_map of collective coll (allgather, broadcast from rank
 * root, reduce-scatter, allreduce) on n ranks of C chunks each (w an open object; export.c). */
/* Opens msccl-tools' algorithm object (named name) and writes its instance: steps, chunks per
 * address; the caller goes on with the object's other keys and closes it. */
void gsp__msccl_json_head(gsp_jw_t *w, const char *name, int64_t steps, int64_t chunks);
void gsp__msccl_json_maps(gsp_jw_t *w, gsp_collective_t coll, int64_t n, int64_t C, int64_t root);
/* Its "collective" object: the chunks, where each starts and ends, at which address (export.c). */
void gsp__msccl_json_collective(gsp_jw_t *w, gsp_collective_t coll, int64_t n, int64_t C, int64_t root);
/** The same plan as msccl-tools JSON (ranks the compute nodes, chunks rank * C + c; for a
 * reduction a send carries the sender's partial sum, added at the receiver). Errors as
 * gsp__export_fabric_xml. */
gsp_err_t gsp__export_fabric_json(const gsp_sched_t *s, const gsp_topo_t *t, const char *name, FILE *f);

#endif

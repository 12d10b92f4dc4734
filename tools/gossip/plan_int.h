/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan_int.h — what cmd_plan.c and plan_sweep.c share: the size sweep of `plan --bytes LO:HI`
 * and the cost model's description, so that a sweep and a single size print it alike. */
#ifndef GOSSIP_PLAN_INT_H
#define GOSSIP_PLAN_INT_H

#include "cli.h"
#include "core/core_int.h"

/* Enough for any useful picture or table; a finer sweep is a typo (a factor of 1.0001). */
#define CLI_SWEEP_MAX_SIZES 1000

/** The sizes of a sweep: lo, lo f, lo f^2, ... below hi, then hi (strictly increasing). */
typedef struct {
    int64_t lo, hi;
    double factor;
    int64_t sizes[CLI_SWEEP_MAX_SIZES];
    int n; /* 0: no sweep */
} cli_sweep_t;

/** Parses --bytes LO:HI[:FACTOR] (sizes as gsp_parse_size; FACTOR a number above 1, default
 * 2) into sw [out]; prints one error line and returns false on a bad range. */
bool cli_sweep_parse(const char *text, cli_sweep_t *sw);
/** Prints the sweep of al [in,out] (pending candidates are built when the cost model would
 * choose them) on t [in] as a table (to stderr when svgpath names standard output) or JSON,
 * and writes the SVG picture to svgpath [may be NULL]. Returns the exit code. */
int cli_plan_sweep(gsp_rt_algos_t *al, const gsp_topo_t *t, gsp_collective_t coll, const cli_sweep_t *sw, const gsp_cost_t *cost, bool json,
                   const char *svgpath);
/** The cost model under key "cost" of the object w [in,out] is writing. */
void cli_cost_json(gsp_jw_t *w, const gsp_cost_t *cost);
/** "cost model alpha ..., beta ..., gamma ..., hop ..., overhead ..." into buf [out]. */
void cli_cost_text(char *buf, size_t size, const gsp_cost_t *cost);

/** Plans collective coll on fabric t [in] as spanning trees (gsp_fabric_trees) and prints the
 * algbw they reach beside the optimum, as text or JSON; root_name [may be NULL] names the
 * broadcast's root; t0 is when the command started. The round form of allgather and broadcast
 * (batches pipelined batches) is verified, and written to outpath [may be NULL]; the text
 * report goes to rep. Returns the exit code. */
int cli_plan_fabric(gsp_collective_t coll, gsp_topo_t *t, const char *root_name, bool json, double t0, int64_t batches, const char *outpath,
                    FILE *rep);

#endif

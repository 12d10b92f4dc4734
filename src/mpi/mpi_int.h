/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_int.h — a schedule's plan (gsp_mpi_plan_t): this rank's programs of one schedule, run by
 * the runtime's one engine (mpi_engine.c) on a context of its own; shared by mpi_plan.c (the
 * programs) and mpi_exec.c (the collectives). */
#ifndef GOSSIP_MPI_INT_H
#define GOSSIP_MPI_INT_H

#include "gossip/mpi.h"

struct gsp_mpi_plan {
    gsp_mpi_ctx_t *ctx; /* a bare context: the duplicated communicator, the engine's buffers */
    int rank, size;
    gsp_collective_t coll;
    int64_t root, nrounds;
    /* Dissemination (allgather, broadcast): one store program over all rounds, blocks = origins.
     * Register allreduce: one store program per round over the register file, blocks =
     * registers (a whole vector each): the combines of round r run before its program. */
    gsp_rt_prog_t *prog;
    int64_t nprog;
    /* Register allreduce: my combines by round (comb_off has nrounds + 2 entries: the last range
     * is the final combines); comb[k].v is the register it creates. */
    gsp_combine_t *comb;
    gsp_term_t *terms;
    int64_t ncomb, capcomb, nterms, capterms, nregs, result;
    gsp_vec_t comb_off;
    /* Per run, from the programs: messages and blocks this rank sends. */
    int64_t sent_msgs, sent_blocks;
    int64_t stat_msgs, stat_bytes;
};

#endif

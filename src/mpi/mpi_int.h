/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_int.h — the plan's layout, shared by mpi_plan.c, mpi_exec.c and pmpi.c. */
#ifndef GOSSIP_MPI_INT_H
#define GOSSIP_MPI_INT_H

#include "gossip/mpi.h"

typedef struct {
    int peer;
    int64_t count, cap;
    int64_t *items; /* origins (dissemination) or register indices (allreduce) */
} gsp__msg_t;

typedef struct {
    gsp__msg_t *msg;
    int64_t nmsg, capmsg, round_first;
    gsp_vec_t off; /* messages of round r: off.v[r] .. off.v[r + 1] */
} gsp__msgs_t;

struct gsp_mpi_plan {
    MPI_Comm comm;
    int rank, size;
    gsp_collective_t coll;
    int64_t root, nrounds;
    gsp__msgs_t send, recv;
    /* allreduce registers: my combines by round (comb_off has nrounds + 2 entries: the last
     * range is the final combines); comb[k].v is the register it creates. */
    gsp_combine_t *comb;
    gsp_term_t *terms;
    int64_t ncomb, capcomb, nterms, capterms, nregs, result;
    gsp_vec_t comb_off;
    int64_t stat_msgs, stat_bytes;
};

gsp_err_t gsp__plan_add_combine(gsp_mpi_plan_t *p, const gsp_sched_t *s, int64_t c, int64_t *nreg);

#endif

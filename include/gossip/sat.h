/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sat.h — exact decisions with a SAT solver (CaDiCaL): does an allgather of R rounds exist on
 * a graph under a model? For Cayley graphs over the compact symmetric form (Lemma 10 of the
 * packet-gossip paper: one broadcast from e, at most p entries per round and generator), and
 * explicitly (every node, packet and arc) for small graphs. A "yes" comes with the schedule;
 * a "no" is a proof that none exists (among symmetric schedules, for the symmetric form). */
#ifndef GOSSIP_SAT_H
#define GOSSIP_SAT_H

#include "gossip/sched.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { GSP_SAT_NO = 0, GSP_SAT_YES = 1, GSP_SAT_UNKNOWN = 2 } gsp_sat_answer_t;
typedef enum { GSP_SAT_SYMMETRIC = 1, GSP_SAT_EXPLICIT = 2 } gsp_sat_form_t;

typedef struct {
    int64_t vars, clauses;
    double seconds;
} gsp_sat_stats_t;

/** Decides whether an allgather of `rounds` rounds exists on t [in] under m [in], in the
 * given form, within `seconds` (0: no limit; then *ans may be GSP_SAT_UNKNOWN). On
 * GSP_SAT_YES, out [out] holds the schedule (method "sat"; release with gsp_sched_destroy);
 * otherwise out is empty. progress (may be NULL) is called while encoding and during the
 * search, named by the round count ("SAT solver, trying 7 rounds ..."), with the fraction of
 * the time limit used (0 without one). A deadline passed while encoding is GSP_SAT_UNKNOWN
 * without a search. st [out] (may be NULL): the encoding's size and the time.
 * Errors: GSP_ERR_NOTAPPLIC (symmetric form on a non-Cayley or disconnected graph),
 * GSP_ERR_TOOBIG (the encoding would exceed 5e7 variables symmetric, 2e7 explicit). */
GSP_API gsp_err_t gsp_sat_allgather(const gsp_topo_t *t, const gsp_model_t *m, int64_t rounds, gsp_sat_form_t form, double seconds,
                            gsp_progress_fn progress, void *progress_ctx, gsp_sat_answer_t *ans, gsp_sched_t *out,
                            gsp_sat_stats_t *st);

#ifdef __cplusplus
}
#endif
#endif

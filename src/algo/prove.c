/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prove.c — settling a plan's optimality with the SAT solver: ask for one round fewer until
 * the answer is no (a proof), the lower bound is reached, or the time runs out. Every shorter
 * schedule the solver finds is verified before it replaces the plan's. */
#include <stdio.h>
#include <string.h>

#include "algo_int.h"
#include "gossip/sat.h"

gsp_err_t gsp_plan_prove(const gsp_plan_in_t *in, gsp_plan_t *plan, double seconds) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    if (!plan->method) return gsp_error(GSP_ERR_INVAL, "gsp_plan_prove: no plan");
    if (plan->sched.coll != GSP_COLL_ALLGATHER) return gsp_error(GSP_ERR_NOTAPPLIC, "SAT proofs cover allgather schedules");
    if (plan->method->approximate) return gsp_error(GSP_ERR_NOTAPPLIC, "an approximate plan has no optimality to prove");
    bool expl = t->n <= GSP_PROVE_EXPLICIT_MAX;
    if (!expl && !t->group)
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: SAT proofs need at most %d nodes, or a Cayley graph (symmetric schedules)", t->spec,
                         GSP_PROVE_EXPLICIT_MAX);
    gsp_sat_form_t form = expl ? GSP_SAT_EXPLICIT : GSP_SAT_SYMMETRIC;
    /* Symmetric half duplex cannot use an involution (each of its edges would carry both
     * directions in the round): a "no" there would only say so. */
    if (!expl && in->model.half_duplex)
        for (int i = 0; i < t->ngens; i++)
            if (gsp_topo_gen_inverse(t, i) == i) {
                plan->optimality = plan->sched.nrounds <= plan->lower_bound ? GSP_OPT_BOUND : GSP_OPT_OPEN;
                snprintf(plan->proof, sizeof plan->proof,
                         "not decided: symmetric half-duplex schedules cannot use %s's involutions, and the explicit form takes at most "
                         "%d nodes",
                         t->spec, GSP_PROVE_EXPLICIT_MAX);
                return GSP_OK;
            }
    const char *scope = expl ? "" : " symmetric";
    double total = 0;
    int64_t vars = 0, clauses = 0;
    if (plan->sched.nrounds <= plan->lower_bound) {
        plan->optimality = GSP_OPT_BOUND;
        plan->optimal = true;
        plan->proof[0] = 0; /* nothing to prove */
        return GSP_OK;
    }
    /* seconds bounds the whole proof: every solve gets what is left of it. */
    gsp__sat_search_t search;
    gsp__sat_search_begin(&search, seconds, in->progress, in->progress_ctx);
    for (int64_t R = plan->sched.nrounds - 1;; R--) {
        gsp_sat_answer_t ans;
        gsp_sched_t s;
        gsp_sat_stats_t st;
        if ((err = gsp__sat_search_solve(&search, t, &in->model, R, form, &ans, &s, &st))) return err;
        total += st.seconds;
        vars = st.vars;
        clauses = st.clauses;
        if (ans == GSP_SAT_UNKNOWN) {
            plan->optimality = GSP_OPT_OPEN;
            /* The limit is the whole search's: "within 20 s" counts every solve before. */
            if (st.vars)
                snprintf(plan->proof, sizeof plan->proof, "no answer for%s schedules of %lld round%s within %g s (%lld variables, %lld clauses)",
                         scope, (long long)R, R == 1 ? "" : "s", seconds, (long long)vars, (long long)clauses);
            else
                snprintf(plan->proof, sizeof plan->proof, "no answer for%s schedules of %lld round%s: the search's %g s were spent", scope,
                         (long long)R, R == 1 ? "" : "s", seconds);
            return GSP_OK;
        }
        if (ans == GSP_SAT_NO) {
            plan->optimality = expl ? GSP_OPT_PROVED : GSP_OPT_PROVED_SYMMETRIC;
            plan->optimal = expl;
            snprintf(plan->proof, sizeof plan->proof, "no%s schedule of %lld round%s exists (SAT, %s form: %lld variables, %lld clauses, %.2f s)",
                     scope, (long long)R, R == 1 ? "" : "s", expl ? "explicit" : "symmetric", (long long)vars, (long long)clauses, total);
            return GSP_OK;
        }
        /* A shorter schedule: verified, it replaces the plan's. */
        gsp_report_t rep;
        if ((err = gsp_sched_verify(&s, t, in->seed, &rep))) {
            gsp_sched_destroy(&s);
            return err;
        }
        if (!rep.ok) {
            gsp_sched_destroy(&s);
            return gsp_error(GSP_ERR_INTERNAL, "the SAT solver's schedule of %lld rounds on %s fails verification: %s", (long long)R, t->spec,
                             rep.message);
        }
        gsp_sched_destroy(&plan->sched);
        plan->sched = s;
        plan->report = rep;
        plan->method = gsp_method_find("sat", GSP_COLL_ALLGATHER);
        if (R <= plan->lower_bound) {
            plan->optimality = GSP_OPT_BOUND;
            plan->optimal = true;
            snprintf(plan->proof, sizeof plan->proof, "the SAT solver's schedule, %.2f s", total);
            return GSP_OK;
        }
    }
}

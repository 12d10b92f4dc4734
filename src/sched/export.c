/* export.c — schedules in the formats GPU runtimes read: msccl-tools' algorithm JSON and
 * MSCCL's XML, and the JSON read back (so a test can verify what was exported). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/sched.h"
#include "core/core_int.h"

/* An explicit allgather view of s: s itself, or its expansion on t. */
static gsp_err_t explicit_view(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *tmp, const gsp_sched_t **out) {
    if (s->coll != GSP_COLL_ALLGATHER && !s->blocks)
        return gsp_error(GSP_ERR_UNSUPPORTED, "export: allgather schedules, and reduce-scatter and allreduce in block form, only "
                         "(this one is %s%s)", gsp_collective_name(s->coll), s->coll == GSP_COLL_ALLREDUCE ? " in register form" : "");
    if (s->nodes > GSP_EXPORT_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "export: %lld nodes is above the limit of %d", (long long)s->nodes, GSP_EXPORT_MAX);
    if (s->nodes != t->n)
        return gsp_error(GSP_ERR_INVAL, "export: the schedule has %lld nodes, %s has %lld", (long long)s->nodes, t->spec, (long long)t->n);
    if (!s->symmetric) {
        *out = s;
        return GSP_OK;
    }
    gsp_err_t err = gsp_sched_expand(s, t, tmp);
    if (!err) *out = tmp;
    return err;
}

/* The algorithm's name; with xml, the characters XML reserves in attributes are replaced. */
static void name_of(const gsp_sched_t *s, const gsp_export_opts_t *o, char *buf, size_t n, bool xml) {
    if (o && o->name) snprintf(buf, n, "%s", o->name);
    else snprintf(buf, n, "gossip-%s-%s", s->method[0] ? s->method : "schedule", s->topology);
    if (xml)
        for (char *c = buf; *c; c++)
            if (*c == '"' || *c == '<' || *c == '>' || *c == '&' || *c == '\'') *c = '_';
}

/* Most transfers on one arc in round r (the step's "rounds" in msccl-tools' terms). */
static int64_t round_width(const gsp_sched_t *s, int64_t r) {
    int64_t best = 0, run = 0;
    for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
        const gsp_send_t *a = &s->sends[k];
        bool same = k > s->send_off.v[r] && a->u == s->sends[k - 1].u && a->v == s->sends[k - 1].v;
        run = same ? run + 1 : 1;
        if (run > best) best = run;
    }
    return best ? best : 1;
}

gsp_err_t gsp_export_msccl_json(const gsp_sched_t *s0, const gsp_topo_t *t, const gsp_export_opts_t *o, FILE *f) {
    gsp_sched_t tmp;
    const gsp_sched_t *s;
    memset(&tmp, 0, sizeof tmp);
    if (s0->blocks)
        return gsp_error(GSP_ERR_UNSUPPORTED, "export: msccl-tools JSON describes non-combining collectives; "
                         "export the %s as msccl-xml", gsp_collective_name(s0->coll));
    gsp_err_t err = explicit_view(s0, t, &tmp, &s);
    if (err) return err;
    char name[512];
    name_of(s, o, name, sizeof name, false);
    int64_t n = s->nodes;
    gsp_jw_t w;
    gsp_jw_init(&w, f);
    gsp_jw_obj_begin(&w);
    gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "algorithm");
    gsp_jw_key(&w, "name"); gsp_jw_str(&w, name);
    gsp_jw_key(&w, "instance");
    gsp_jw_obj_begin(&w);
    gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "instance");
    gsp_jw_key(&w, "steps"); gsp_jw_int(&w, s->nrounds);
    gsp_jw_key(&w, "extra_rounds"); gsp_jw_int(&w, 0);
    gsp_jw_key(&w, "chunks"); gsp_jw_int(&w, 1);
    gsp_jw_key(&w, "pipeline"); gsp_jw_null(&w);
    gsp_jw_key(&w, "extra_memory"); gsp_jw_null(&w);
    gsp_jw_key(&w, "allow_exchange"); gsp_jw_bool(&w, false);
    gsp_jw_obj_end(&w);
    char key[32];
    gsp_jw_key(&w, "input_map");
    gsp_jw_obj_begin(&w);
    for (int64_t r = 0; r < n; r++) {
        snprintf(key, sizeof key, "%lld", (long long)r);
        gsp_jw_key(&w, key);
        gsp_jw_arr_begin(&w);
        gsp_jw_int(&w, r);
        gsp_jw_arr_end(&w);
    }
    gsp_jw_obj_end(&w);
    gsp_jw_key(&w, "output_map");
    gsp_jw_obj_begin(&w);
    for (int64_t r = 0; r < n; r++) {
        snprintf(key, sizeof key, "%lld", (long long)r);
        gsp_jw_key(&w, key);
        gsp_jw_arr_begin(&w);
        for (int64_t c = 0; c < n; c++) gsp_jw_int(&w, c);
        gsp_jw_arr_end(&w);
    }
    gsp_jw_obj_end(&w);
    gsp_jw_key(&w, "steps");
    gsp_jw_arr_begin(&w);
    for (int64_t r = 0; r < s->nrounds; r++) {
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "step");
        gsp_jw_key(&w, "rounds"); gsp_jw_int(&w, round_width(s, r));
        gsp_jw_key(&w, "sends");
        gsp_jw_arr_begin(&w);
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            gsp_jw_arr_begin(&w);
            gsp_jw_int(&w, s->sends[k].x);
            gsp_jw_int(&w, s->sends[k].u);
            gsp_jw_int(&w, s->sends[k].v);
            gsp_jw_arr_end(&w);
        }
        gsp_jw_arr_end(&w);
        gsp_jw_obj_end(&w);
    }
    gsp_jw_arr_end(&w);
    gsp_jw_key(&w, "collective");
    gsp_jw_obj_begin(&w);
    gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "collective");
    gsp_jw_key(&w, "name"); gsp_jw_str(&w, "Allgather");
    gsp_jw_key(&w, "nodes"); gsp_jw_int(&w, n);
    gsp_jw_key(&w, "chunks");
    gsp_jw_arr_begin(&w);
    for (int64_t c = 0; c < n; c++) {
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "chunk");
        gsp_jw_key(&w, "pre");
        gsp_jw_arr_begin(&w);
        gsp_jw_int(&w, c);
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "post");
        gsp_jw_arr_begin(&w);
        for (int64_t r = 0; r < n; r++) gsp_jw_int(&w, r);
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "addr"); gsp_jw_int(&w, c);
        gsp_jw_obj_end(&w);
    }
    gsp_jw_arr_end(&w);
    gsp_jw_key(&w, "triggers"); gsp_jw_obj_begin(&w); gsp_jw_obj_end(&w);
    gsp_jw_key(&w, "runtime_name"); gsp_jw_str(&w, "allgather");
    gsp_jw_obj_end(&w);
    gsp_jw_key(&w, "topology");
    gsp_jw_obj_begin(&w);
    gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "topology");
    gsp_jw_key(&w, "name"); gsp_jw_str(&w, t->spec);
    /* links[dst][src]: chunks an arc carries per round. */
    int64_t bw = s->model.packets == GSP_PACKETS_INF ? n : s->model.packets;
    gsp_jw_key(&w, "links");
    gsp_jw_arr_begin(&w);
    for (int64_t v = 0; v < n; v++) {
        gsp_jw_arr_begin(&w);
        for (int64_t u = 0; u < n; u++) gsp_jw_int(&w, gsp_topo_arc_index(t, u, v) >= 0 ? bw : 0);
        gsp_jw_arr_end(&w);
    }
    gsp_jw_arr_end(&w);
    gsp_jw_key(&w, "switches"); gsp_jw_arr_begin(&w); gsp_jw_arr_end(&w);
    gsp_jw_obj_end(&w);
    gsp_jw_obj_end(&w);
    fputc('\n', f);
    err = gsp_jw_finish(&w);
    gsp_sched_destroy(&tmp);
    return err;
}

typedef struct {
    int64_t peer;       /* the other end */
    bool send;          /* a send threadblock (else receive) */
    gsp_vec_t ops;      /* packed (round << 20 | chunk) in round order */
} tb_t;

/* Threadblocks of every rank: one per out-arc (sends), then one per in-arc (receives). */
static gsp_err_t tbs_create(const gsp_topo_t *t, int64_t n, tb_t ***tbs, int64_t **ntb) {
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)tbs, n, sizeof **tbs, true)) || (err = gsp_alloc_array((void **)ntb, n, sizeof **ntb, true)))
        return err;
    for (int64_t v = 0; v < n; v++) {
        int64_t deg = t->off[v + 1] - t->off[v];
        if ((err = gsp_alloc_array((void **)&(*tbs)[v], 2 * deg + 2 * (t->in_dmax + 1), sizeof *(*tbs)[v], true))) return err;
        for (int64_t a = t->off[v]; a < t->off[v + 1]; a++) (*tbs)[v][(*ntb)[v]++] = (tb_t){t->adj[a], true, {0}};
    }
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) (*tbs)[t->adj[a]][(*ntb)[t->adj[a]]++] = (tb_t){u, false, {0}};
    return GSP_OK;
}

static void tbs_free(tb_t **tbs, int64_t *ntb, int64_t n) {
    if (tbs)
        for (int64_t v = 0; v < n; v++) {
            for (int64_t j = 0; tbs[v] && j < ntb[v]; j++) gsp_vec_destroy(&tbs[v][j].ops);
            gsp_free(tbs[v]);
        }
    gsp_free(tbs);
    gsp_free(ntb);
}

/* MSCCL's executor runs at most 32 threadblocks per channel and 256 steps per threadblock;
 * this writer uses one channel with a send and a receive threadblock per arc. A schedule beyond
 * that is refused with the reason instead of written as a file the executor rejects. */
#define MSCCL_MAX_TB 32
#define MSCCL_MAX_STEPS 256
static gsp_err_t tbs_check_limits(tb_t **tbs, const int64_t *ntb, int64_t n) {
    for (int64_t u = 0; u < n; u++) {
        if (ntb[u] > MSCCL_MAX_TB)
            return gsp_error(GSP_ERR_TOOBIG,
                             "MSCCL XML: rank %lld needs %lld threadblocks (one per arc and direction; the executor runs at most %d "
                             "per channel): export to msccl-json instead",
                             (long long)u, (long long)ntb[u], MSCCL_MAX_TB);
        for (int64_t j = 0; j < ntb[u]; j++)
            if (tbs[u][j].ops.len > MSCCL_MAX_STEPS)
                return gsp_error(GSP_ERR_TOOBIG,
                                 "MSCCL XML: rank %lld's threadblock %s rank %lld has %lld steps (the executor's limit is %d per "
                                 "threadblock): use more packets per round (--packets) or msccl-json",
                                 (long long)u, tbs[u][j].send ? "to" : "from", (long long)tbs[u][j].peer, (long long)tbs[u][j].ops.len,
                                 MSCCL_MAX_STEPS);
    }
    return GSP_OK;
}

/* The send threadblock of u towards v and the receive threadblock of v from u. */
static gsp_err_t tbs_find(tb_t **tbs, const int64_t *ntb, const gsp_topo_t *t, int64_t u, int64_t v, int64_t *su, int64_t *rv) {
    *su = *rv = -1;
    for (int64_t j = 0; j < ntb[u]; j++)
        if (tbs[u][j].send && tbs[u][j].peer == v) *su = j;
    for (int64_t j = 0; j < ntb[v]; j++)
        if (!tbs[v][j].send && tbs[v][j].peer == u) *rv = j;
    if (*su < 0 || *rv < 0) return gsp_error(GSP_ERR_INVAL, "export: (%lld, %lld) is not an arc of %s", (long long)u, (long long)v, t->spec);
    return GSP_OK;
}

/* Block forms (reduce-scatter, allreduce as reduce-scatter + allgather) as MSCCL XML. Chunk x
 * of buffer i is block x. A reduce round's transfer is a send "s" of i[x] and, at the receiver,
 * a receive-reduce-copy "rrc" into i[x]; a gather round's is "s" and "r". Each step depends on
 * the last step that wrote the chunk it reads at its rank (the previous rrc of the chunk, or the
 * receive of the finished block), so writes of a chunk form one chain and a send waits for
 * every contribution its partial sum must hold. Reduce-scatter ends with a copy of i[rank] to
 * o[0]; the allreduce is in place. */
static gsp_err_t export_xml_blocks(const gsp_sched_t *s, const gsp_topo_t *t, const char *name, int64_t minb, int64_t maxb,
                                   FILE *f) {
    gsp_err_t err;
    int64_t n = s->nodes, K = s->reduce_rounds;
    bool rs = s->coll == GSP_COLL_REDUCE_SCATTER;
    tb_t **tbs = NULL;
    int64_t *ntb = NULL, *last_tb = NULL, *last_step = NULL;
    unsigned char *hasdep = NULL;
    int64_t nops = s->nsends * 2;
    /* Per transfer k: the step its send depends on (sender side) and the one its receive
     * depends on (receiver side, rrc chains); hasdep per (rank, tb, step) is set through
     * marks keyed by the op's index. */
    int64_t *sdep_tb = NULL, *sdep_step = NULL, *rdep_tb = NULL, *rdep_step = NULL, *rtb = NULL, *rstep = NULL, *stb = NULL,
            *sstep = NULL;
    if ((err = tbs_create(t, n, &tbs, &ntb)) || (err = gsp_alloc_array((void **)&last_tb, n * n, sizeof *last_tb, false)) ||
        (err = gsp_alloc_array((void **)&last_step, n * n, sizeof *last_step, false)) ||
        (err = gsp_alloc_array((void **)&sdep_tb, s->nsends + 1, sizeof *sdep_tb, false)) ||
        (err = gsp_alloc_array((void **)&sdep_step, s->nsends + 1, sizeof *sdep_step, false)) ||
        (err = gsp_alloc_array((void **)&rdep_tb, s->nsends + 1, sizeof *rdep_tb, false)) ||
        (err = gsp_alloc_array((void **)&rdep_step, s->nsends + 1, sizeof *rdep_step, false)) ||
        (err = gsp_alloc_array((void **)&stb, s->nsends + 1, sizeof *stb, false)) ||
        (err = gsp_alloc_array((void **)&sstep, s->nsends + 1, sizeof *sstep, false)) ||
        (err = gsp_alloc_array((void **)&rtb, s->nsends + 1, sizeof *rtb, false)) ||
        (err = gsp_alloc_array((void **)&rstep, s->nsends + 1, sizeof *rstep, false)) ||
        (err = gsp_alloc_array((void **)&hasdep, nops + 1, 1, true)))
        goto done;
    memset(last_tb, 0xff, (size_t)(n * n) * sizeof *last_tb);
    for (int64_t r = 0; r < s->nrounds; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        /* Sends read the state at the start of the round: dependencies first, then the writes. */
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *x = &s->sends[k];
            int64_t su, rv;
            if ((err = tbs_find(tbs, ntb, t, x->u, x->v, &su, &rv))) goto done;
            stb[k] = su;
            rtb[k] = rv;
            sdep_tb[k] = last_tb[x->u * n + x->x];
            sdep_step[k] = last_step[x->u * n + x->x];
            if ((err = gsp_vec_push(&tbs[x->u][su].ops, k)) || (err = gsp_vec_push(&tbs[x->v][rv].ops, k))) goto done;
            sstep[k] = tbs[x->u][su].ops.len - 1;
            rstep[k] = tbs[x->v][rv].ops.len - 1;
        }
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *x = &s->sends[k];
            /* A reduce receive chains after the chunk's previous writer; a gather receive writes
             * a chunk nobody else writes then. */
            rdep_tb[k] = r < K ? last_tb[x->v * n + x->x] : -1;
            rdep_step[k] = r < K ? last_step[x->v * n + x->x] : -1;
            last_tb[x->v * n + x->x] = rtb[k];
            last_step[x->v * n + x->x] = rstep[k];
        }
    }
    /* hasdep: mark the receive steps some other step depends on (by transfer id). */
    for (int64_t k = 0; k < s->nsends; k++) {
        const gsp_send_t *x = &s->sends[k];
        int64_t pairs[2][3] = {{x->u, sdep_tb[k], sdep_step[k]}, {x->v, rdep_tb[k], rdep_step[k]}};
        for (int q = 0; q < 2; q++) {
            if (pairs[q][1] < 0) continue;
            int64_t id = tbs[pairs[q][0]][pairs[q][1]].ops.v[pairs[q][2]];
            hasdep[id] = 1;
        }
    }
    if ((err = tbs_check_limits(tbs, ntb, n))) goto done;
    fprintf(f, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"%lld\" ngpus=\"%lld\" "
               "coll=\"%s\" inplace=\"%d\" outofplace=\"%d\" minBytes=\"%lld\" maxBytes=\"%lld\">\n",
            name, (long long)n, (long long)n, rs ? "reduce_scatter" : "allreduce", rs ? 0 : 1, rs ? 1 : 0, (long long)minb,
            (long long)maxb);
    for (int64_t u = 0; u < n; u++) {
        fprintf(f, "  <gpu id=\"%lld\" i_chunks=\"%lld\" o_chunks=\"%lld\" s_chunks=\"0\">\n", (long long)u, (long long)n,
                (long long)(rs ? 1 : n));
        for (int64_t j = 0; j < ntb[u]; j++) {
            const tb_t *tb = &tbs[u][j];
            fprintf(f, "    <tb id=\"%lld\" send=\"%lld\" recv=\"%lld\" chan=\"0\">\n", (long long)j,
                    (long long)(tb->send ? tb->peer : -1), (long long)(tb->send ? -1 : tb->peer));
            for (int64_t q = 0; q < tb->ops.len; q++) {
                int64_t k = tb->ops.v[q], c = s->sends[k].x;
                bool reduce = k < (K ? s->send_off.v[K] : 0);
                const char *type = tb->send ? "s" : reduce ? "rrc" : "r";
                int64_t depid = tb->send ? sdep_tb[k] : rdep_tb[k], deps = tb->send ? sdep_step[k] : rdep_step[k];
                fprintf(f, "      <step s=\"%lld\" type=\"%s\" srcbuf=\"i\" srcoff=\"%lld\" dstbuf=\"i\" dstoff=\"%lld\" "
                           "cnt=\"1\" depid=\"%lld\" deps=\"%lld\" hasdep=\"%d\"/>\n",
                        (long long)q, type, (long long)c, (long long)c, (long long)depid, (long long)(depid < 0 ? -1 : deps),
                        !tb->send && hasdep[k] ? 1 : 0);
            }
            fputs("    </tb>\n", f);
        }
        if (rs) {
            /* The finished block to the output, after its last contribution. */
            fprintf(f, "    <tb id=\"%lld\" send=\"-1\" recv=\"-1\" chan=\"0\">\n", (long long)ntb[u]);
            fprintf(f, "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"%lld\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
                       "depid=\"%lld\" deps=\"%lld\" hasdep=\"0\"/>\n    </tb>\n",
                    (long long)u, (long long)last_tb[u * n + u], (long long)last_step[u * n + u]);
        }
        fputs("  </gpu>\n", f);
    }
    fputs("</algo>\n", f);
    if (fflush(f) != 0 || ferror(f)) err = gsp_error(GSP_ERR_IO, "export: write failed");
done:
    tbs_free(tbs, ntb, n);
    gsp_free(last_tb);
    gsp_free(last_step);
    gsp_free(sdep_tb);
    gsp_free(sdep_step);
    gsp_free(rdep_tb);
    gsp_free(rdep_step);
    gsp_free(stb);
    gsp_free(sstep);
    gsp_free(rtb);
    gsp_free(rstep);
    gsp_free(hasdep);
    return err;
}

gsp_err_t gsp_export_msccl_xml(const gsp_sched_t *s0, const gsp_topo_t *t, const gsp_export_opts_t *o, FILE *f) {
    gsp_sched_t tmp;
    const gsp_sched_t *s;
    memset(&tmp, 0, sizeof tmp);
    gsp_err_t err = explicit_view(s0, t, &tmp, &s);
    if (err) return err;
    if (s->blocks) {
        char bname[512];
        name_of(s, o, bname, sizeof bname, true);
        err = export_xml_blocks(s, t, bname, o ? o->min_bytes : 0, o && o->max_bytes ? o->max_bytes : (int64_t)1 << 40, f);
        gsp_sched_destroy(&tmp);
        return err;
    }
    char name[512];
    name_of(s, o, name, sizeof name, true);
    int64_t n = s->nodes;
    int64_t minb = o ? o->min_bytes : 0, maxb = o && o->max_bytes ? o->max_bytes : (int64_t)1 << 40;
    /* Per rank: threadblock of each (peer, direction); recv_at[(v, x)] = (tb, step) where v
     * receives chunk x, for the send that forwards it to depend on. */
    tb_t **tbs = NULL;
    int64_t *ntb = NULL, *recv_tb = NULL, *recv_step = NULL;
    unsigned char *hasdep = NULL;
    if ((err = tbs_create(t, n, &tbs, &ntb)) || (err = gsp_alloc_array((void **)&recv_tb, n * n, sizeof *recv_tb, false)) ||
        (err = gsp_alloc_array((void **)&recv_step, n * n, sizeof *recv_step, false)) ||
        (err = gsp_alloc_array((void **)&hasdep, n * n, 1, true)))
        goto done;
    memset(recv_tb, 0xff, (size_t)(n * n) * sizeof *recv_tb);
    for (int64_t r = 0; r < s->nrounds; r++)
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            const gsp_send_t *x = &s->sends[k];
            int64_t su, rv;
            if ((err = tbs_find(tbs, ntb, t, x->u, x->v, &su, &rv))) goto done;
            if ((err = gsp_vec_push(&tbs[x->u][su].ops, r << 20 | x->x)) ||
                (err = gsp_vec_push(&tbs[x->v][rv].ops, r << 20 | x->x)))
                goto done;
            if (recv_tb[x->v * n + x->x] < 0) {
                recv_tb[x->v * n + x->x] = rv;
                recv_step[x->v * n + x->x] = tbs[x->v][rv].ops.len - 1;
            }
        }
    for (int64_t u = 0; u < n; u++)
        for (int64_t j = 0; j < ntb[u]; j++)
            if (tbs[u][j].send)
                for (int64_t q = 0; q < tbs[u][j].ops.len; q++) {
                    int64_t c = tbs[u][j].ops.v[q] & ((1 << 20) - 1);
                    if (c != u) hasdep[u * n + c] = 1;
                }
    if ((err = tbs_check_limits(tbs, ntb, n))) goto done;
    fprintf(f, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"%lld\" ngpus=\"%lld\" "
               "coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"%lld\" maxBytes=\"%lld\">\n",
            name, (long long)n, (long long)n, (long long)minb, (long long)maxb);
    for (int64_t u = 0; u < n; u++) {
        fprintf(f, "  <gpu id=\"%lld\" i_chunks=\"1\" o_chunks=\"%lld\" s_chunks=\"0\">\n", (long long)u, (long long)n);
        for (int64_t j = 0; j < ntb[u]; j++) {
            const tb_t *b = &tbs[u][j];
            fprintf(f, "    <tb id=\"%lld\" send=\"%lld\" recv=\"%lld\" chan=\"0\">\n", (long long)j,
                    (long long)(b->send ? b->peer : -1), (long long)(b->send ? -1 : b->peer));
            for (int64_t q = 0; q < b->ops.len; q++) {
                int64_t c = b->ops.v[q] & ((1 << 20) - 1);
                if (b->send) {
                    bool own = c == u;
                    int64_t depid = own ? -1 : recv_tb[u * n + c], deps = own ? -1 : recv_step[u * n + c];
                    fprintf(f, "      <step s=\"%lld\" type=\"s\" srcbuf=\"%s\" srcoff=\"%lld\" dstbuf=\"o\" dstoff=\"%lld\" "
                               "cnt=\"1\" depid=\"%lld\" deps=\"%lld\" hasdep=\"0\"/>\n",
                            (long long)q, own ? "i" : "o", (long long)(own ? 0 : c), (long long)c, (long long)depid,
                            (long long)deps);
                } else {
                    bool dep = recv_tb[u * n + c] == j && recv_step[u * n + c] == q && hasdep[u * n + c];
                    fprintf(f, "      <step s=\"%lld\" type=\"r\" srcbuf=\"o\" srcoff=\"%lld\" dstbuf=\"o\" dstoff=\"%lld\" "
                               "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"%d\"/>\n",
                            (long long)q, (long long)c, (long long)c, dep ? 1 : 0);
                }
            }
            fputs("    </tb>\n", f);
        }
        /* The rank's own block: input to its place in the output. */
        fprintf(f, "    <tb id=\"%lld\" send=\"-1\" recv=\"-1\" chan=\"0\">\n", (long long)ntb[u]);
        fprintf(f, "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"%lld\" cnt=\"1\" "
                   "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n    </tb>\n",
                (long long)u);
        fputs("  </gpu>\n", f);
    }
    fputs("</algo>\n", f);
    if (fflush(f) != 0 || ferror(f)) err = gsp_error(GSP_ERR_IO, "export: write failed");
done:
    tbs_free(tbs, ntb, n);
    gsp_free(recv_tb);
    gsp_free(recv_step);
    gsp_free(hasdep);
    gsp_sched_destroy(&tmp);
    return err;
}

gsp_err_t gsp_import_msccl_json(gsp_sched_t *s, const char *path, const char *topology) {
    json_error_t jerr;
    gsp_err_t err;
    memset(s, 0, sizeof s[0]);
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) return gsp_error(GSP_ERR_PARSE, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column, jerr.text);
    json_t *coll = json_object_get(root, "collective"), *steps = json_object_get(root, "steps");
    json_t *nodes = json_object_get(coll, "nodes");
    const char *type = json_string_value(json_object_get(root, "msccl_type"));
    if (!type || strcmp(type, "algorithm") || !json_is_integer(nodes) || !json_is_array(steps)) {
        json_decref(root);
        return gsp_error(GSP_ERR_PARSE, "%s: not an msccl-tools algorithm (msccl_type, collective.nodes, steps)", path);
    }
    int64_t n = json_integer_value(nodes), width = 1;
    size_t r;
    json_t *st;
    json_array_foreach(steps, r, st) {
        json_t *w = json_object_get(st, "rounds");
        if (json_is_integer(w) && json_integer_value(w) > width) width = json_integer_value(w);
    }
    gsp_model_t m = {width, false, false};
    if ((err = gsp_sched_init(s, GSP_COLL_ALLGATHER, topology, n, &m, -1, "msccl-import"))) goto done;
    json_array_foreach(steps, r, st) {
        json_t *sends = json_object_get(st, "sends"), *x;
        size_t k;
        if ((err = gsp_sched_round(s))) goto done;
        if (!json_is_array(sends)) {
            err = gsp_error(GSP_ERR_PARSE, "%s: step %zu has no sends list", path, r);
            goto done;
        }
        json_array_foreach(sends, k, x) {
            json_t *c = json_array_get(x, 0), *a = json_array_get(x, 1), *b = json_array_get(x, 2);
            if (!json_is_integer(c) || !json_is_integer(a) || !json_is_integer(b) || json_integer_value(a) < 0 ||
                json_integer_value(a) >= n || json_integer_value(b) < 0 || json_integer_value(b) >= n ||
                json_integer_value(c) < 0 || json_integer_value(c) >= n) {
                err = gsp_error(GSP_ERR_PARSE, "%s: step %zu, send %zu: expected [chunk, src, dst] in 0..%lld", path, r, k,
                                (long long)n - 1);
                goto done;
            }
            if ((err = gsp_sched_send(s, json_integer_value(a), json_integer_value(b), json_integer_value(c)))) goto done;
        }
    }
    err = gsp_sched_finish(s);
done:
    json_decref(root);
    if (err) gsp_sched_destroy(s);
    return err;
}

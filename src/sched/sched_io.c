/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sched_io.c — the schedule file (docs/schedule-format.md, JSON version 1): a streaming writer that emits
 * one round per line, and a reader on jansson that names the round, the transfer and the rule
 * of the first thing it rejects. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched/sched_int.h"
#include "core/core_int.h"

static void put_str(FILE *f, const char *s) {
    gsp_jw_t w;
    gsp_jw_init(&w, f);
    gsp_jw_str(&w, s);
}

static void put_num(FILE *f, double x) {
    gsp_jw_t w;
    gsp_jw_init(&w, f);
    gsp_jw_num(&w, x);
}

static void put_combines(FILE *f, const gsp_sched_t *s, int64_t b, int64_t e) {
    fputc('[', f);
    for (int64_t k = b; k < e; k++) {
        const gsp_combine_t *c = &s->combines[k];
        fprintf(f, "%s[%lld,[", k > b ? "," : "", (long long)c->v);
        for (int64_t j = 0; j < c->count; j++) {
            fprintf(f, "%s[%lld,", j ? "," : "", (long long)s->terms[c->first + j].r);
            put_num(f, s->terms[c->first + j].c);
            fputc(']', f);
        }
        fputs("]]", f);
    }
    fputc(']', f);
}

gsp_err_t gsp_sched_write(const gsp_sched_t *s, FILE *f) {
    fputs("{\"format\":\"gossip-schedule\",\"version\":1,\"collective\":", f);
    put_str(f, gsp_collective_name(s->coll));
    fputs(",\"topology\":", f);
    put_str(f, s->topology);
    fprintf(f, ",\"nodes\":%lld,", (long long)s->nodes);
    /* A loaded schedule keeps its names in its graph: they are written back from there. */
    const char *const *names = s->names ? s->names : gsp__sched_embeds(s) ? (const char *const *)s->graph->names : NULL;
    if (names) {
        fputs("\n\"names\":[", f);
        for (int64_t v = 0; v < s->nodes; v++) {
            if (v) fputc(',', f);
            put_str(f, names[v]);
        }
        fputs("],", f);
    }
    fputs("\n\"model\":{\"packets\":", f);
    gsp_model_t model = gsp_model_resolve(s->model);
    if (model.packets == GSP_PACKETS_INF) fputs("\"inf\"", f);
    else fprintf(f, "%lld", (long long)model.packets);
    fprintf(f, ",\"ports\":%s,\"duplex\":%s", s->model.one_port ? "\"1\"" : "\"all\"",
            s->model.half_duplex ? "\"half\"" : "\"full\"");
    if (s->cap_factor > 0) fprintf(f, ",\"capacity\":%lld", (long long)s->cap_factor);
    fputc('}', f);
    if (s->chunks > 1) fprintf(f, ",\"chunks\":%lld", (long long)s->chunks);
    if (s->coll == GSP_COLL_BROADCAST) fprintf(f, ",\"root\":%lld", (long long)s->root);
    if (s->coll == GSP_COLL_ALLREDUCE && s->blocks)
        fprintf(f, ",\"form\":\"blocks\",\"reduce_rounds\":%lld", (long long)s->reduce_rounds);
    fputs(",\"method\":", f);
    put_str(f, s->method);
    if (s->symmetric) {
        fprintf(f, ",\"round_count\":%lld,\n\"symmetric\":[", (long long)s->nrounds);
        for (int64_t k = 0; k < s->nsym; k++)
            fprintf(f, "%s[%lld,%lld,%lld]", k ? (k % 16 ? "," : ",\n") : "", (long long)s->sym[k].t,
                    (long long)s->sym[k].i, (long long)s->sym[k].g);
        fputc(']', f);
    } else {
        fputs(",\n\"rounds\":[\n", f);
        for (int64_t t = 0; t < s->nrounds; t++) {
            fputc('{', f);
            if (s->coll == GSP_COLL_ALLREDUCE && !s->blocks) {
                fputs("\"combine\":", f);
                put_combines(f, s, s->comb_off.v[t], s->comb_off.v[t + 1]);
                fputc(',', f);
            }
            fputs("\"send\":[", f);
            for (int64_t k = s->send_off.v[t]; k < s->send_off.v[t + 1]; k++)
                fprintf(f, "%s[%lld,%lld,%lld]", k > s->send_off.v[t] ? "," : "",
                        (long long)s->sends[k].u, (long long)s->sends[k].v, (long long)s->sends[k].x);
            fprintf(f, "]}%s\n", t + 1 < s->nrounds ? "," : "");
        }
        fputc(']', f);
        if (s->coll == GSP_COLL_ALLREDUCE && !s->blocks) {
            int64_t b = s->nrounds ? s->comb_off.v[s->nrounds] : 0;
            if (s->ncombines > b) {
                fputs(",\n\"final\":", f);
                put_combines(f, s, b, s->ncombines);
            }
            if (s->result) {
                fputs(",\n\"result\":[", f);
                for (int64_t v = 0; v < s->nodes; v++)
                    fprintf(f, "%s%lld", v ? "," : "", (long long)s->result[v]);
                fputc(']', f);
            }
        }
    }
    /* Last, after the rounds: a large graph does not push the header out of sight. */
    if (gsp__sched_embeds(s)) gsp__sched_write_graph(s, f);
    fputs("}\n", f);
    if (fflush(f) != 0 || ferror(f)) return gsp_error(GSP_ERR_IO, "writing the schedule failed");
    return GSP_OK;
}

gsp_err_t gsp_sched_save(const gsp_sched_t *s, const char *path) {
    gsp_out_t o;
    gsp_err_t err = gsp_out_open(&o, path);
    if (err) return err;
    return gsp_out_close(&o, gsp_sched_write(s, o.f));
}

/* ---- reader ---- */

static bool get_int(json_t *j, int64_t *out) {
    if (!json_is_integer(j)) return false;
    *out = json_integer_value(j);
    return true;
}

/* Reads [a, b, c] of integers. */
static bool triple(json_t *j, int64_t *a, int64_t *b, int64_t *c) {
    return json_is_array(j) && json_array_size(j) == 3 && get_int(json_array_get(j, 0), a) &&
           get_int(json_array_get(j, 1), b) && get_int(json_array_get(j, 2), c);
}

static gsp_err_t read_combines(gsp_sched_t *s, json_t *arr, const char *where) {
    gsp_err_t err;
    if (!json_is_array(arr))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: combine must be a list", where);
    size_t k;
    json_t *c;
    json_array_foreach(arr, k, c) {
        int64_t v;
        json_t *terms = json_array_get(c, 1);
        if (!json_is_array(c) || json_array_size(c) != 2 || !get_int(json_array_get(c, 0), &v) ||
            !json_is_array(terms))
            return gsp_error(GSP_ERR_PARSE, "%s, combine %zu: rule format: expected [v, [[r, c], ...]]",
                             where, k);
        if (v < 0 || v >= s->nodes)
            return gsp_error(GSP_ERR_RANGE, "%s, combine %zu: rule range: node %lld outside 0..%lld",
                             where, k, (long long)v, (long long)s->nodes - 1);
        size_t n = json_array_size(terms), j;
        gsp_term_t *tt = gsp_malloc(sizeof *tt * (n ? n : 1));
        if (!tt) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        json_t *term;
        json_array_foreach(terms, j, term) {
            json_t *r = json_array_get(term, 0), *cc = json_array_get(term, 1);
            if (!json_is_array(term) || json_array_size(term) != 2 || !json_is_integer(r) ||
                !json_is_number(cc) || json_integer_value(r) < 0) {
                gsp_free(tt);
                return gsp_error(GSP_ERR_PARSE,
                                 "%s, combine %zu, term %zu: rule format: expected [r, c] with r >= 0",
                                 where, k, j);
            }
            tt[j].r = json_integer_value(r);
            tt[j].c = json_number_value(cc);
        }
        err = gsp_sched_combine(s, v, tt, (int64_t)n);
        gsp_free(tt);
        if (err) return err;
    }
    return GSP_OK;
}

static gsp_err_t parse(gsp_sched_t *s, json_t *root, const char *path) {
    gsp_err_t err;
    json_t *j;
    const char *fmt = json_string_value(json_object_get(root, "format"));
    if (!json_is_object(root) || !fmt || strcmp(fmt, "gossip-schedule"))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: not a gossip-schedule file", path);
    int64_t version, nodes;
    if (!get_int(json_object_get(root, "version"), &version) || version != 1)
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: version must be 1", path);
    gsp_collective_t coll;
    const char *cs = json_string_value(json_object_get(root, "collective"));
    if (!cs || !gsp_collective_parse(cs, &coll))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: collective must be broadcast, allgather, allreduce or reduce-scatter", path);
    const char *topo = json_string_value(json_object_get(root, "topology"));
    if (!topo) return gsp_error(GSP_ERR_PARSE, "%s: rule format: topology must be a spec string", path);
    if (!get_int(json_object_get(root, "nodes"), &nodes) || nodes < 1 || nodes > GSP_MAX_ARCS)
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: nodes must be an integer in 1..%lld", path,
                         (long long)GSP_MAX_ARCS);
    gsp_model_t m = gsp_model_default();
    int64_t cap_factor = 0, chunks = 0;
    json_t *model = json_object_get(root, "model");
    if (model) {
        if (!json_is_object(model)) return gsp_error(GSP_ERR_PARSE, "%s: rule format: model must be an object", path);
        j = json_object_get(model, "packets");
        if (json_is_string(j) && !strcmp(json_string_value(j), "inf")) m.packets = GSP_PACKETS_INF;
        else if (j && (!get_int(j, &m.packets) || m.packets < 1))
            return gsp_error(GSP_ERR_PARSE, "%s: rule format: model.packets must be >= 1 or \"inf\"", path);
        j = json_object_get(model, "ports");
        if (j) {
            const char *p = json_string_value(j);
            if (p && !strcmp(p, "all")) m.one_port = false;
            else if ((p && !strcmp(p, "1")) || (json_is_integer(j) && json_integer_value(j) == 1)) m.one_port = true;
            else return gsp_error(GSP_ERR_PARSE, "%s: rule format: model.ports must be \"all\" or 1", path);
        }
        j = json_object_get(model, "capacity");
        if (j && (!get_int(j, &cap_factor) || cap_factor < 1))
            return gsp_error(GSP_ERR_PARSE, "%s: rule format: model.capacity must be an integer >= 1 (packets a round per unit of capacity)", path);
        j = json_object_get(model, "duplex");
        if (j) {
            const char *p = json_string_value(j);
            if (p && !strcmp(p, "full")) m.half_duplex = false;
            else if (p && !strcmp(p, "half")) m.half_duplex = true;
            else return gsp_error(GSP_ERR_PARSE, "%s: rule format: model.duplex must be \"full\" or \"half\"", path);
        }
    }
    if ((j = json_object_get(root, "chunks")) &&
        (!get_int(j, &chunks) || chunks < 1 || chunks > GSP_MAX_ARCS / nodes ||
         (coll == GSP_COLL_ALLREDUCE && !(json_is_string(json_object_get(root, "form")) &&
                                          !strcmp(json_string_value(json_object_get(root, "form")), "blocks")))))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: chunks must be an integer in 1..%lld, and an allreduce's in block form", path,
                         (long long)(GSP_MAX_ARCS / nodes));
    int64_t rootnode = -1;
    if (coll == GSP_COLL_BROADCAST) {
        if (!get_int(json_object_get(root, "root"), &rootnode) || rootnode < 0 || rootnode >= nodes)
            return gsp_error(GSP_ERR_PARSE, "%s: rule format: broadcast needs a root in 0..%lld", path,
                             (long long)nodes - 1);
    }
    const char *method = json_string_value(json_object_get(root, "method"));
    /* Block form: reduce-scatter always, allreduce when "form" says so. */
    bool blocks = coll == GSP_COLL_REDUCE_SCATTER;
    int64_t reduce_rounds = 0;
    const char *form = json_string_value(json_object_get(root, "form"));
    if (json_object_get(root, "form") && (coll != GSP_COLL_ALLREDUCE || !form || (strcmp(form, "blocks") && strcmp(form, "registers"))))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: form is \"blocks\" or \"registers\", and only for allreduce", path);
    if (form && !strcmp(form, "blocks")) {
        blocks = true;
        if (!get_int(json_object_get(root, "reduce_rounds"), &reduce_rounds) || reduce_rounds < 0)
            return gsp_error(GSP_ERR_PARSE, "%s: rule format: the block form needs reduce_rounds >= 0", path);
    } else if (json_object_get(root, "reduce_rounds"))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: reduce_rounds only with \"form\": \"blocks\"", path);
    if ((err = gsp_sched_init(s, coll, topo, nodes, &m, rootnode, method ? method : ""))) return err;
    s->blocks = blocks;
    s->chunks = chunks;
    s->cap_factor = cap_factor;
    json_t *graph = json_object_get(root, "graph");
    if (graph && (err = gsp__sched_read_graph(s, graph, json_object_get(root, "names"), path))) return err;

    json_t *sym = json_object_get(root, "symmetric");
    if (sym) {
        if (coll != GSP_COLL_ALLGATHER || !json_is_array(sym))
            return gsp_error(GSP_ERR_PARSE, "%s: rule format: symmetric must be a list of [t, i, g] (allgather only)", path);
        size_t k;
        json_array_foreach(sym, k, j) {
            int64_t t, i, g;
            if (!triple(j, &t, &i, &g))
                return gsp_error(GSP_ERR_PARSE, "%s: symmetric entry %zu: rule format: expected [t, i, g]", path, k);
            if (t < 0 || t > 100000000 || i < 0 || i > 4096 || g < 0 || g >= nodes)
                return gsp_error(GSP_ERR_RANGE, "%s: symmetric entry %zu: rule range: [%lld, %lld, %lld] out of range",
                                 path, k, (long long)t, (long long)i, (long long)g);
            if ((err = gsp_sched_sym(s, t, i, g))) return err;
        }
        return gsp_sched_finish(s);
    }
    json_t *rounds = json_object_get(root, "rounds");
    if (!json_is_array(rounds)) return gsp_error(GSP_ERR_PARSE, "%s: rule format: rounds must be a list", path);
    size_t t;
    json_t *r;
    json_array_foreach(rounds, t, r) {
        char where[128];
        snprintf(where, sizeof where, "%s: round %zu", path, t);
        if ((err = gsp_sched_round(s))) return err;
        if (!json_is_object(r)) return gsp_error(GSP_ERR_PARSE, "%s: rule format: a round must be an object", where);
        json_t *comb = json_object_get(r, "combine");
        if (comb) {
            if (coll != GSP_COLL_ALLREDUCE || blocks)
                return gsp_error(GSP_ERR_PARSE, "%s: rule format: combine only in allreduce schedules of the register form", where);
            if ((err = read_combines(s, comb, where))) return err;
        }
        json_t *send = json_object_get(r, "send");
        if (!send) continue;
        if (!json_is_array(send)) return gsp_error(GSP_ERR_PARSE, "%s: rule format: send must be a list", where);
        size_t k;
        json_array_foreach(send, k, j) {
            int64_t u, v, x;
            if (!triple(j, &u, &v, &x))
                return gsp_error(GSP_ERR_PARSE, "%s, transfer %zu: rule format: expected [u, v, x] with integers", where, k);
            int64_t xmax = coll == GSP_COLL_ALLREDUCE && !blocks ? INT64_MAX : nodes * (chunks > 1 ? chunks : 1) - 1;
            if (u < 0 || u >= nodes || v < 0 || v >= nodes || x < 0 || x > xmax)
                return gsp_error(GSP_ERR_RANGE, "%s, transfer %zu: rule range: [%lld, %lld, %lld] has an index outside 0..%lld",
                                 where, k, (long long)u, (long long)v, (long long)x, (long long)nodes - 1);
            if ((err = gsp_sched_send(s, u, v, x))) return err;
        }
    }
    if ((err = gsp_sched_final(s))) return err;
    if (coll == GSP_COLL_REDUCE_SCATTER) s->reduce_rounds = s->nrounds;
    if (blocks && coll == GSP_COLL_ALLREDUCE) {
        if (reduce_rounds > s->nrounds)
            return gsp_error(GSP_ERR_RANGE, "%s: rule range: reduce_rounds %lld is more than the %lld rounds", path,
                             (long long)reduce_rounds, (long long)s->nrounds);
        s->reduce_rounds = reduce_rounds;
    }
    if (coll == GSP_COLL_ALLREDUCE && !blocks) {
        json_t *fin = json_object_get(root, "final");
        if (fin && (err = read_combines(s, fin, "final"))) return err;
        json_t *res = json_object_get(root, "result");
        if (!json_is_array(res) || (int64_t)json_array_size(res) != nodes)
            return gsp_error(GSP_ERR_PARSE, "%s: rule format: allreduce needs a result list of %lld registers", path,
                             (long long)nodes);
        if ((err = gsp_alloc_array((void **)&s->result, nodes, sizeof *s->result, false))) return err;
        size_t v;
        json_array_foreach(res, v, j) {
            if (!get_int(j, &s->result[v]) || s->result[v] < 0)
                return gsp_error(GSP_ERR_PARSE, "%s: result %zu: rule format: expected a register index >= 0", path, v);
        }
    }
    return GSP_OK;
}

gsp_err_t gsp_sched_read(gsp_sched_t *s, FILE *f, const char *name) {
    json_error_t jerr;
    memset(s, 0, sizeof *s);
    /* An XML file (an MSCCL export, an SVG) is said to be one, not "malformed JSON". */
    int c = getc(f);
    if (c == '<')
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: XML, not a gossip schedule: gossip writes XML (MSCCL exports, SVG) "
                         "but reads schedules only as JSON (docs/schedule-format.md); give the schedule the file was made from",
                         name);
    if (c != EOF) ungetc(c, f);
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (ferror(f)) return gsp_error(GSP_ERR_IO, "%s: read error", name);
        return gsp_error(GSP_ERR_PARSE, "%s:%d:%d: rule format: malformed JSON: %s", name, jerr.line, jerr.column, jerr.text);
    }
    gsp_err_t err = parse(s, root, name);
    json_decref(root);
    if (err) gsp_sched_destroy(s);
    return err;
}

gsp_err_t gsp_sched_load(gsp_sched_t *s, const char *path) {
    memset(s, 0, sizeof *s);
    if (!strcmp(path, "-")) return gsp_sched_read(s, stdin, "(standard input)");
    FILE *f = fopen(path, "r");
    if (!f) return gsp_error(GSP_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    /* A JSON tree takes about 16 times its text: refuse up front what would not fit (a
     * device or a pipe has no size: the reader's own allocations decide there). */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (double)st.st_size * 16 > (double)gsp_memory_limit()) {
        fclose(f);
        return gsp_error(GSP_ERR_TOOBIG,
                         "%s: %.1f MB of JSON would need about %.1f GB to read, above the memory limit of %.1f GB (GOSSIP_MEMORY_LIMIT)",
                         path, (double)st.st_size / 1e6, (double)st.st_size * 16 / 1e9, (double)gsp_memory_limit() / 1e9);
    }
    gsp_err_t err = gsp_sched_read(s, f, path);
    fclose(f);
    return err;
}

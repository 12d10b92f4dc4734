/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sched_graph.c — the graph a schedule of a file topology carries ("graph" in the schedule
 * file, docs/schedule-format.md): written beside the rounds, read back and checked against its
 * hash, and used instead of the file, so that a schedule planned on file:cluster.txt verifies
 * and exports from any directory and after the file is gone (issue 25, item 6). */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_int.h"
#include "core/core_int.h"

bool gsp__sched_embeds(const gsp_sched_t *s) {
    return s->graph && s->graph->n == s->nodes && s->topology && strstr(s->topology, "file:");
}

/* True when every node's neighbours are ascending (file graphs always are): arcs are then
 * found by bisection. */
static bool adj_sorted(const gsp_topo_t *t) {
    for (int64_t x = 0; x < t->n; x++)
        for (int64_t a = t->off[x] + 1; a < t->off[x + 1]; a++)
            if (t->adj[a - 1] >= t->adj[a]) return false;
    return true;
}

static int64_t find_arc(const gsp_topo_t *t, bool sorted, int64_t x, int64_t y) {
    if (!sorted) return gsp_topo_arc_index(t, x, y);
    int64_t lo = t->off[x], hi = t->off[x + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (t->adj[mid] < y) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->off[x + 1] && t->adj[lo] == y ? lo : -1;
}

void gsp__sched_write_graph(const gsp_sched_t *s, FILE *f) {
    const gsp_topo_t *t = s->graph;
    bool fabric = gsp_topo_is_fabric(t), sorted = adj_sorted(t), edges = true;
    /* An undirected graph (every arc has its reverse, of the same capacity) is written as an
     * edge list, each edge once, as its file has it; anything else arc by arc. */
    for (int64_t x = 0; x < t->n && edges; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1] && edges; a++) {
            int64_t r = find_arc(t, sorted, t->adj[a], x);
            edges = r >= 0 && (!t->cap || t->cap[r] == t->cap[a]);
        }
    fprintf(f, ",\n\"graph\":{\"nodes\":%lld,", (long long)t->n);
    if (fabric) fprintf(f, "\"capacity_scale\":%lld,", (long long)(t->cap ? t->cap_scale : 1));
    if (t->nswitch) {
        fputs("\"switches\":[", f);
        for (int64_t x = 0, k = 0; x < t->n; x++)
            if (t->is_switch[x]) fprintf(f, "%s%lld", k++ ? "," : "", (long long)x);
        fputs("],", f);
    }
    fprintf(f, "\"%s\":[\n", edges ? "edges" : "arcs");
    int64_t k = 0;
    for (int64_t x = 0; x < t->n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t y = t->adj[a];
            if (edges && y < x) continue;
            fprintf(f, "%s[%lld,%lld", k ? (k % 16 ? "," : ",\n") : "", (long long)x, (long long)y);
            if (fabric) fprintf(f, ",%lld", (long long)(t->cap ? t->cap[a] : 1));
            fputc(']', f);
            k++;
        }
    char hash[GSP_TOPO_HASH_LEN];
    gsp_topo_hash(t, hash);
    fprintf(f, "],\n\"hash\":\"%s\"}", hash);
}

/* The topology of n nodes and narcs arcs (arcs[2a] -> arcs[2a+1]) [in]: a plain graph when
 * scale is 0 (cap unused), else a fabric with capacities cap [in] in 1/scale units and
 * switches sw [in, may be NULL]. names [in, may be NULL] are copied. */
static gsp_err_t build(gsp_topo_t *t, int64_t n, const int64_t *arcs, const int64_t *cap, int64_t narcs, int64_t scale,
                       const uint8_t *sw, const char *const *names, const char *spec) {
    if (scale) return gsp_topo_from_arcs(t, n, arcs, cap, narcs, scale, sw, names, spec);
    gsp_err_t err = gsp_topo_from_edges(t, n, arcs, narcs, true, spec);
    if (err || !names) return err;
    if ((err = gsp_alloc_array((void **)&t->names, n, sizeof *t->names, true))) goto fail;
    for (int64_t x = 0; x < n; x++)
        if (names[x] && !(t->names[x] = gsp_strdup(names[x]))) {
            err = gsp_error(GSP_ERR_NOMEM, "out of memory");
            goto fail;
        }
    return GSP_OK;
fail:
    gsp_topo_destroy(t);
    return err;
}

/* A copy of t [in] (its arc table, names, capacities and switches: what a file gives). */
static gsp_err_t copy_topo(const gsp_topo_t *t, gsp_topo_t *out) {
    int64_t *arcs = NULL;
    gsp_err_t err = gsp_alloc_array((void **)&arcs, 2 * t->m + 2, sizeof *arcs, false);
    if (err) return err;
    for (int64_t x = 0; x < t->n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) arcs[2 * a] = x, arcs[2 * a + 1] = t->adj[a];
    bool fabric = gsp_topo_is_fabric(t);
    err = build(out, t->n, arcs, t->cap, t->m, fabric ? (t->cap ? t->cap_scale : 1) : 0, t->is_switch,
                (const char *const *)t->names, t->spec ? t->spec : "");
    gsp_free(arcs);
    return err;
}

static bool get_i64(json_t *j, int64_t *out) {
    if (!json_is_integer(j)) return false;
    *out = json_integer_value(j);
    return true;
}

gsp_err_t gsp__sched_read_graph(gsp_sched_t *s, json_t *g, json_t *jnames, const char *path) {
    gsp_err_t err = GSP_OK;
    int64_t n, scale = 0, *arcs = NULL, *cap = NULL;
    uint8_t *sw = NULL;
    const char **names = NULL;
    gsp_topo_t *t = NULL;
    if (!json_is_object(g)) return gsp_error(GSP_ERR_PARSE, "%s: rule format: graph must be an object", path);
    if (!get_i64(json_object_get(g, "nodes"), &n) || n != s->nodes)
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: graph.nodes must be the schedule's %lld nodes", path, (long long)s->nodes);
    json_t *je = json_object_get(g, "edges"), *ja = json_object_get(g, "arcs"), *list = je ? je : ja;
    if (!json_is_array(list) || (je && ja))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: graph needs one list, \"edges\" or \"arcs\"", path);
    const char *want = json_string_value(json_object_get(g, "hash"));
    if (!want) return gsp_error(GSP_ERR_PARSE, "%s: rule format: graph needs its \"hash\"", path);
    json_t *js = json_object_get(g, "capacity_scale");
    if (js && (!get_i64(js, &scale) || scale < 1))
        return gsp_error(GSP_ERR_PARSE, "%s: rule format: graph.capacity_scale must be an integer >= 1", path);
    size_t len = json_array_size(list), k;
    int64_t per = je ? 2 : 1, narcs = (int64_t)len * per;
    json_t *e;
    if ((err = gsp_alloc_array((void **)&arcs, 2 * narcs + 2, sizeof *arcs, false)) ||
        (err = gsp_alloc_array((void **)&cap, narcs + 1, sizeof *cap, false)))
        goto done;
    /* Entries are [u, v] in a plain graph and [u, v, c] in a fabric (capacity_scale given);
     * node ranges are the builders' to check. */
    json_array_foreach(list, k, e) {
        int64_t u, v, c = 1;
        size_t want_len = scale ? 3 : 2;
        if (!json_is_array(e) || json_array_size(e) != want_len || !get_i64(json_array_get(e, 0), &u) ||
            !get_i64(json_array_get(e, 1), &v) || (scale && !get_i64(json_array_get(e, 2), &c))) {
            err = gsp_error(GSP_ERR_PARSE, "%s: graph entry %zu: rule format: expected [u, v%s] of integers", path, k,
                            scale ? ", capacity" : "");
            goto done;
        }
        int64_t a = (int64_t)k * per;
        arcs[2 * a] = u, arcs[2 * a + 1] = v, cap[a] = c;
        if (je) arcs[2 * a + 2] = v, arcs[2 * a + 3] = u, cap[a + 1] = c;
    }
    json_t *jsw = json_object_get(g, "switches");
    if (jsw) {
        if (!scale || !json_is_array(jsw)) {
            err = gsp_error(GSP_ERR_PARSE, "%s: rule format: graph.switches must be a list of nodes, with capacity_scale", path);
            goto done;
        }
        if ((err = gsp_alloc_array((void **)&sw, n, 1, true))) goto done;
        json_array_foreach(jsw, k, e) {
            int64_t x;
            if (!get_i64(e, &x) || x < 0 || x >= n) {
                err = gsp_error(GSP_ERR_RANGE, "%s: graph switch %zu: rule range: not a node in 0..%lld", path, k, (long long)n - 1);
                goto done;
            }
            sw[x] = 1;
        }
    }
    if (jnames) {
        if (!json_is_array(jnames) || (int64_t)json_array_size(jnames) != n) {
            err = gsp_error(GSP_ERR_PARSE, "%s: rule format: names must be a list of %lld strings", path, (long long)n);
            goto done;
        }
        if ((err = gsp_alloc_array((void **)&names, n, sizeof *names, true))) goto done;
        json_array_foreach(jnames, k, e) {
            if (!(names[k] = json_string_value(e))) {
                err = gsp_error(GSP_ERR_PARSE, "%s: name %zu: rule format: expected a string", path, k);
                goto done;
            }
        }
    }
    if (!(t = gsp_malloc(sizeof *t))) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((err = build(t, n, arcs, cap, narcs, scale, sw, names, s->topology))) {
        err = gsp_error(err, "%s: graph: %s", path, gsp_errmsg());
        gsp_free(t);
        t = NULL;
        goto done;
    }
    char got[GSP_TOPO_HASH_LEN];
    gsp_topo_hash(t, got);
    if (strcmp(got, want)) {
        err = gsp_error(GSP_ERR_PARSE,
                        "%s: rule format: the embedded graph does not match its hash (the file says %.40s, the graph is %s): "
                        "the schedule file was edited or damaged; plan it again",
                        path, want, got);
        gsp_topo_destroy(t);
        gsp_free(t);
        t = NULL;
        goto done;
    }
    s->graph = t;
    s->graph_owned = true;
done:
    gsp_free(arcs);
    gsp_free(cap);
    gsp_free(sw);
    gsp_free(names);
    return err;
}

gsp_err_t gsp_sched_topology(const gsp_sched_t *s, gsp_topo_t *t, gsp_sched_graph_t *check) {
    gsp_sched_graph_t none;
    if (!check) check = &none;
    memset(check, 0, sizeof *check);
    memset(t, 0, sizeof *t);
    if (s->graph && gsp__sched_embeds(s)) {
        gsp_err_t err = copy_topo(s->graph, t);
        if (err) return err;
        check->embedded = true;
        gsp_topo_hash(t, check->hash);
        /* The file is optional now; when it is there, a different graph in it is worth saying
         * (the caller says it): the schedule is checked on the graph it was planned on. */
        gsp_topo_t ft;
        if (gsp_topo_from_spec(&ft, s->topology) == GSP_OK) {
            check->file_read = true;
            gsp_topo_hash(&ft, check->file_hash);
            check->file_differs = strcmp(check->hash, check->file_hash) != 0;
            gsp_topo_destroy(&ft);
        }
        gsp_error_clear();
        return GSP_OK;
    }
    gsp_err_t err = gsp_topo_from_spec(t, s->topology);
    if (err == GSP_ERR_IO && strstr(s->topology, "file:"))
        return gsp_error(err,
                         "%s; this schedule carries no copy of its graph (written before schedules embedded it), so the path "
                         "must resolve from here (it is relative to where you run gossip, not to the schedule): run from the "
                         "directory it was planned in, or plan it again to embed the graph",
                         gsp_errmsg());
    return err;
}

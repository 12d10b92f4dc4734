/* SPDX-License-Identifier: GPL-3.0-or-later */
/* graphml.c — `file:PATH.graphml`: GraphML, the XML graph format of yEd, Gephi, NetworkX and
 * igraph, read through igraph's reader (Debian libigraph-dev; its libxml2 parser), not ours.
 * Nodes are numbered in document order; each node's GraphML id becomes its name (t->names),
 * as host names of an edge list do, so schedules keep them. Parallel edges are merged,
 * self-loops refused, as for edge lists; the <graph edgedefault="directed"> of a file makes a
 * directed graph.
 *
 * Fabrics (docs/fabrics.md): an edge attribute "capacity" (a number, or a decimal string; missing
 * values are 1) gives each edge its capacity, in both directions unless the graph is directed,
 * parallel edges adding up; a node attribute "switch" (boolean, number or "true") marks the
 * vertices that forward but never compute.
 *
 * igraph reports errors through a process-wide handler, which by default aborts: the reader
 * installs its own for the duration of the call (and restores the caller's), so a malformed
 * file is one error, never an exit. */
#include <errno.h>
#include <igraph/igraph.h>
#include <stdio.h>
#include <string.h>

#include "topo/topo_int.h"

gsp_err_t gsp__topo_from_graphml(gsp_topo_t *t, const char *spec, const char *path);

static char graphml_reason[256];

static void on_error(const char *reason, const char *file, int line, igraph_error_t code) {
    (void)file;
    (void)line;
    (void)code;
    snprintf(graphml_reason, sizeof graphml_reason, "%s", reason ? reason : "unknown error");
    IGRAPH_FINALLY_FREE();
}

/* The type of attribute name of elements elem (vertex or edge), or -1 when absent. */
static int attr_type(const igraph_t *g, bool edge, const char *name) {
    igraph_strvector_t gn, vn, en;
    igraph_vector_int_t gt, vt, et;
    int type = -1;
    if (igraph_strvector_init(&gn, 0) || igraph_strvector_init(&vn, 0) || igraph_strvector_init(&en, 0)) return -1;
    igraph_vector_int_init(&gt, 0);
    igraph_vector_int_init(&vt, 0);
    igraph_vector_int_init(&et, 0);
    if (igraph_cattribute_list(g, &gn, &gt, &vn, &vt, &en, &et) == IGRAPH_SUCCESS) {
        igraph_strvector_t *names = edge ? &en : &vn;
        igraph_vector_int_t *types = edge ? &et : &vt;
        for (igraph_integer_t i = 0; i < igraph_strvector_size(names); i++)
            if (!strcmp(igraph_strvector_get(names, i), name)) type = (int)VECTOR(*types)[i];
    }
    igraph_strvector_destroy(&gn);
    igraph_strvector_destroy(&vn);
    igraph_strvector_destroy(&en);
    igraph_vector_int_destroy(&gt);
    igraph_vector_int_destroy(&vt);
    igraph_vector_int_destroy(&et);
    return type;
}

/* Edge e's capacity in millionths (1 when the attribute is missing there). */
static gsp_err_t edge_capacity(const igraph_t *g, int type, int64_t e, const char *path, int64_t *out) {
    char text[64];
    if (type == IGRAPH_ATTRIBUTE_NUMERIC) {
        double c = igraph_cattribute_EAN(g, "capacity", (igraph_integer_t)e);
        if (c != c) { /* NaN: no value for this edge */
            *out = GSP__CAP_UNIT;
            return GSP_OK;
        }
        snprintf(text, sizeof text, "%.6f", c);
    } else {
        const char *s = igraph_cattribute_EAS(g, "capacity", (igraph_integer_t)e);
        if (!s || !*s) {
            *out = GSP__CAP_UNIT;
            return GSP_OK;
        }
        snprintf(text, sizeof text, "%s", s);
    }
    gsp_err_t err = gsp__topo_parse_capacity(text, out);
    if (err) return gsp_error(err, "%s: edge %lld: %s", path, (long long)e + 1, gsp_errmsg());
    return GSP_OK;
}

static bool vertex_switch(const igraph_t *g, int type, int64_t v) {
    if (type == IGRAPH_ATTRIBUTE_BOOLEAN) return igraph_cattribute_VAB(g, "switch", (igraph_integer_t)v);
    if (type == IGRAPH_ATTRIBUTE_NUMERIC) {
        double x = igraph_cattribute_VAN(g, "switch", (igraph_integer_t)v);
        return x == x && x != 0;
    }
    const char *s = igraph_cattribute_VAS(g, "switch", (igraph_integer_t)v);
    return s && (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "yes"));
}

gsp_err_t gsp__topo_from_graphml(gsp_topo_t *t, const char *spec, const char *path) {
    gsp_err_t err = GSP_OK;
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return gsp_error(GSP_ERR_IO, "%s: cannot open '%s': %s", spec, path, strerror(errno));
    /* The whole document is parsed into memory by libxml2 and igraph: bound it first. */
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size > 0 && (int64_t)size * 16 > gsp_memory_limit()) {
            fclose(f);
            return gsp_error(GSP_ERR_TOOBIG, "%s: %ld bytes of GraphML: above the memory limit (GOSSIP_MEMORY_LIMIT)", path, size);
        }
        rewind(f);
    }
    igraph_error_handler_t *old_err = igraph_set_error_handler(on_error);
    igraph_warning_handler_t *old_warn = igraph_set_warning_handler(igraph_warning_handler_ignore);
    igraph_attribute_table_t *old_attr = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t g;
    igraph_vector_int_t el;
    bool have_g = false, have_el = false;
    int64_t *edges = NULL;
    char **names = NULL;
    graphml_reason[0] = 0;
    if (igraph_read_graph_graphml(&g, f, 0) != IGRAPH_SUCCESS) {
        err = gsp_error(GSP_ERR_PARSE, "%s: not a GraphML graph igraph can read: %s", path, graphml_reason);
        goto done;
    }
    have_g = true;
    int64_t n = igraph_vcount(&g), m = igraph_ecount(&g);
    if (n < 1) {
        err = gsp_error(GSP_ERR_PARSE, "%s: the GraphML graph has no nodes", path);
        goto done;
    }
    if (igraph_vector_int_init(&el, 0) != IGRAPH_SUCCESS) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto done;
    }
    have_el = true;
    if (igraph_get_edgelist(&g, &el, 0) != IGRAPH_SUCCESS) {
        err = gsp_error(GSP_ERR_NOMEM, "%s: %s", path, graphml_reason);
        goto done;
    }
    if ((err = gsp_alloc_array((void **)&edges, 2 * m + 1, sizeof *edges, false))) goto done;
    for (int64_t e = 0; e < 2 * m; e++) edges[e] = VECTOR(el)[e];
    for (int64_t e = 0; e < m; e++)
        if (edges[2 * e] == edges[2 * e + 1]) {
            bool named = igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "id");
            err = gsp_error(GSP_ERR_RANGE, "%s: self-loop at node %s", path,
                            named ? igraph_cattribute_VAS(&g, "id", (igraph_integer_t)edges[2 * e]) : "?");
            goto done;
        }
    int cap_type = attr_type(&g, true, "capacity"), sw_type = attr_type(&g, false, "switch");
    if (cap_type >= 0 || sw_type >= 0) {
        /* A fabric: arcs with capacities (both ways on an undirected graph), switches. */
        bool dir = igraph_is_directed(&g);
        int64_t *arcs = NULL, *cap = NULL, na = 0, div = GSP__CAP_UNIT;
        uint8_t *sw = NULL;
        if ((err = gsp_alloc_array((void **)&arcs, 4 * m + 2, sizeof *arcs, false)) || (err = gsp_alloc_array((void **)&cap, 2 * m + 1, sizeof *cap, false)) ||
            (err = gsp_alloc_array((void **)&sw, n, 1, true)))
            goto fabric_done;
        for (int64_t e = 0; e < m; e++) {
            int64_t c = GSP__CAP_UNIT;
            if (cap_type >= 0 && (err = edge_capacity(&g, cap_type, e, path, &c))) goto fabric_done;
            arcs[2 * na] = edges[2 * e], arcs[2 * na + 1] = edges[2 * e + 1], cap[na++] = c;
            if (!dir) arcs[2 * na] = edges[2 * e + 1], arcs[2 * na + 1] = edges[2 * e], cap[na++] = c;
        }
        for (int64_t a = 0; a < na; a++)
            while (div > 1 && cap[a] % div) div /= 10;
        for (int64_t a = 0; a < na; a++) cap[a] /= div;
        for (int64_t v = 0; v < n && sw_type >= 0; v++) sw[v] = vertex_switch(&g, sw_type, v);
        err = gsp_topo_from_arcs(t, n, arcs, cap, na, GSP__CAP_UNIT / div, sw, NULL, spec);
    fabric_done:
        gsp_free(arcs);
        gsp_free(cap);
        gsp_free(sw);
        if (err) goto done;
    } else if ((err = gsp_topo_from_edges(t, n, edges, m, igraph_is_directed(&g), spec))) goto done;
    if (igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "id")) {
        if ((err = gsp_alloc_array((void **)&names, n, sizeof *names, true))) goto done;
        for (int64_t v = 0; v < n && !err; v++)
            if (!(names[v] = gsp_strdup(igraph_cattribute_VAS(&g, "id", (igraph_integer_t)v)))) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        if (err) {
            for (int64_t v = 0; v < n; v++) gsp_free(names[v]);
            gsp_free(names);
            goto done;
        }
        t->names = names;
    }
done:
    if (err) gsp_topo_destroy(t);
    if (have_el) igraph_vector_int_destroy(&el);
    if (have_g) igraph_destroy(&g);
    gsp_free(edges);
    igraph_set_attribute_table(old_attr);
    igraph_set_warning_handler(old_warn);
    igraph_set_error_handler(old_err);
    fclose(f);
    return err;
}

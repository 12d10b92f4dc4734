/* SPDX-License-Identifier: GPL-3.0-or-later */
/* graphml.c — `file:PATH.graphml`: GraphML, the XML graph format of yEd, Gephi, NetworkX and
 * igraph, read through igraph's reader (Debian libigraph-dev; its libxml2 parser), not ours.
 * Nodes are numbered in document order; each node's GraphML id becomes its name (t->names),
 * as host names of an edge list do, so schedules keep them. Parallel edges are merged,
 * self-loops refused, as for edge lists; the <graph edgedefault="directed"> of a file makes a
 * directed graph.
 *
 * igraph reports errors through a process-wide handler, which by default aborts: the reader
 * installs its own for the duration of the call (and restores the caller's), so a malformed
 * file is one error, never an exit. */
#include <errno.h>
#include <igraph/igraph.h>
#include <stdio.h>
#include <string.h>

#include "gossip/topo.h"

gsp_err_t gsp__topo_from_graphml(gsp_topo_t *t, const char *spec, const char *path);

static char graphml_reason[256];

static void on_error(const char *reason, const char *file, int line, igraph_error_t code) {
    (void)file;
    (void)line;
    (void)code;
    snprintf(graphml_reason, sizeof graphml_reason, "%s", reason ? reason : "unknown error");
    IGRAPH_FINALLY_FREE();
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
    if ((err = gsp_topo_from_edges(t, n, edges, m, igraph_is_directed(&g), spec))) goto done;
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

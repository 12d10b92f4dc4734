/* file_graph.c — the edge-list format of `file:PATH`: one "u v" per line, '#' comments,
 * optional header lines "directed" and "nodes N" before the first edge. Node ids are
 * 0-based; without a "nodes" line the graph has max id + 1 nodes. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/topo.h"

/* Reads one signed integer, skipping blanks; false if there is none or it overflows. */
static bool read_int(char **p, int64_t *out) {
    while (**p == ' ' || **p == '\t' || **p == ',') (*p)++;
    if (!isdigit((unsigned char)**p) && **p != '-' && **p != '+') return false;
    errno = 0;
    char *end;
    long long v = strtoll(*p, &end, 10);
    if (end == *p || errno == ERANGE) return false;
    *p = end;
    *out = v;
    return true;
}

/* Longest line read: edge lists have short lines, and a file without newlines (/dev/zero, a
 * binary) must not grow a buffer without bound. */
#define LINE_MAX_BYTES 4096

/* Reads one line into buf (without its newline): 1 a line, 0 end of file, -1 too long, -2 a
 * NUL byte. */
static int read_line(FILE *f, char *buf, size_t *len) {
    size_t k = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == 0) return -2;
        if (k + 1 >= LINE_MAX_BYTES) return -1;
        buf[k++] = (char)c;
    }
    buf[k] = 0;
    *len = k;
    return c == EOF && k == 0 ? 0 : 1;
}

/* Text for a message: at most 40 characters, control characters as '?'. */
static void excerpt(const char *p, char *out, size_t cap) {
    size_t k = 0;
    for (; *p && k + 4 < cap && k < 40; p++) out[k++] = isprint((unsigned char)*p) ? *p : '?';
    if (*p) out[k++] = '.', out[k++] = '.', out[k++] = '.';
    out[k] = 0;
}

gsp_err_t gsp__topo_from_file(gsp_topo_t *t, const char *spec, const char *path) {
    gsp_err_t err = GSP_OK;
    gsp_vec_t edges = {0};
    bool directed = false, seen_edge = false;
    int64_t n = -1, maxid = -1, line = 0, nodes_line = 0;
    char buf[LINE_MAX_BYTES], what[64];
    size_t len;
    /* Edges are held until the graph is built: bound them by the memory limit too. */
    int64_t max_edges = gsp_memory_limit() / 64;
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return gsp_error(GSP_ERR_IO, "%s: cannot open '%s': %s", spec, path, strerror(errno));
    int rc;
    while ((rc = read_line(f, buf, &len)) != 0) {
        line++;
        if (rc == -1) {
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: line longer than %d bytes (not an edge list?)", path, (long long)line, LINE_MAX_BYTES);
            goto fail;
        }
        if (rc == -2) {
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: a NUL byte (not a text file?)", path, (long long)line);
            goto fail;
        }
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        char *p = buf;
        while (isspace((unsigned char)*p)) p++;
        if (*p == 0) continue;
        if (strncmp(p, "directed", 8) == 0 && (p[8] == 0 || isspace((unsigned char)p[8]))) {
            if (seen_edge) {
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: 'directed' must come before the edges",
                                path, (long long)line);
                goto fail;
            }
            for (p += 8; isspace((unsigned char)*p); p++) {}
            if (*p) {
                excerpt(p, what, sizeof what);
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: unexpected text after 'directed': '%s'", path, (long long)line, what);
                goto fail;
            }
            directed = true;
            continue;
        }
        if (strncmp(p, "nodes", 5) == 0 && isspace((unsigned char)p[5])) {
            p += 5;
            if (nodes_line) {
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: a second 'nodes' line (the first is line %lld)", path, (long long)line,
                                (long long)nodes_line);
                goto fail;
            }
            if (seen_edge || !read_int(&p, &n) || n < 1 || n > GSP_MAX_ARCS) {
                err = gsp_error(GSP_ERR_PARSE,
                                "%s:%lld: expected 'nodes N' (1 <= N <= %lld) before the edges",
                                path, (long long)line, (long long)GSP_MAX_ARCS);
                goto fail;
            }
            while (isspace((unsigned char)*p)) p++;
            if (*p) {
                excerpt(p, what, sizeof what);
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: unexpected text after 'nodes %lld': '%s'", path, (long long)line, (long long)n,
                                what);
                goto fail;
            }
            nodes_line = line;
            continue;
        }
        int64_t u, v;
        if (!read_int(&p, &u) || !read_int(&p, &v)) {
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: expected an edge 'u v' with integer ids",
                            path, (long long)line);
            goto fail;
        }
        while (isspace((unsigned char)*p)) p++;
        if (*p) {
            excerpt(p, what, sizeof what);
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: unexpected text after the edge: '%s'", path,
                            (long long)line, what);
            goto fail;
        }
        int64_t hi = n > 0 ? n - 1 : GSP_MAX_ARCS - 1;
        if (u < 0 || v < 0 || u > hi || v > hi) {
            err = gsp_error(GSP_ERR_RANGE, "%s:%lld: node id out of range 0..%lld", path,
                            (long long)line, (long long)hi);
            goto fail;
        }
        if (u == v) {
            err = gsp_error(GSP_ERR_RANGE, "%s:%lld: self-loop at node %lld", path,
                            (long long)line, (long long)u);
            goto fail;
        }
        if (edges.len / 2 >= max_edges) {
            err = gsp_error(GSP_ERR_TOOBIG, "%s:%lld: more than %lld edges: above the memory limit (GOSSIP_MEMORY_LIMIT)", path,
                            (long long)line, (long long)max_edges);
            goto fail;
        }
        seen_edge = true;
        if (u > maxid) maxid = u;
        if (v > maxid) maxid = v;
        if ((err = gsp_vec_push(&edges, u)) || (err = gsp_vec_push(&edges, v))) goto fail;
    }
    if (ferror(f)) {
        err = gsp_error(GSP_ERR_IO, "%s: read error on '%s'", spec, path);
        goto fail;
    }
    if (n < 0) n = maxid + 1;
    if (n < 1) {
        err = gsp_error(GSP_ERR_PARSE, "%s: '%s' has no edges and no 'nodes N' line", spec, path);
        goto fail;
    }
    err = gsp_topo_from_edges(t, n, edges.v, edges.len / 2, directed, spec);
fail:
    fclose(f);
    gsp_vec_destroy(&edges);
    return err;
}

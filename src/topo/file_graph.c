/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_graph.c — the edge-list format of `file:PATH` (GraphML goes to graphml.c): one "u v" per
 * line, '#' comments,
 * optional header lines "directed" and "nodes N" before the first edge. Nodes are integer ids
 * from 0 (without a "nodes" line the graph has max id + 1 nodes), or names — host names as a
 * cluster's files have them — numbered in order of first appearance. A file whose integer ids
 * start at 1 (no 0 anywhere, no "nodes" line) is read as 1-based: id i is node i - 1. In both
 * cases the topology keeps each node's name as the file writes it (t->names). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Node names: an open-addressing hash table from name to index (first appearance order). */
typedef struct {
    char **name;      /* by index */
    int64_t count, cap;
    int64_t *slot;    /* hash slots: index + 1, 0 = empty */
    int64_t nslot;
} names_t;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void names_free(names_t *nm) {
    for (int64_t i = 0; i < nm->count; i++) gsp_free(nm->name[i]);
    gsp_free(nm->name);
    gsp_free(nm->slot);
    memset(nm, 0, sizeof *nm);
}

/* The index of name, adding it when new. */
static gsp_err_t names_id(names_t *nm, const char *name, int64_t *id) {
    gsp_err_t err;
    if (2 * (nm->count + 1) > nm->nslot) { /* grow and rehash at half load */
        int64_t ns = nm->nslot ? 2 * nm->nslot : 1024, *sl = NULL;
        if ((err = gsp_alloc_array((void **)&sl, ns, sizeof *sl, true))) return err;
        for (int64_t i = 0; i < nm->count; i++) {
            uint64_t h = hash_str(nm->name[i]) & (uint64_t)(ns - 1);
            while (sl[h]) h = (h + 1) & (uint64_t)(ns - 1);
            sl[h] = i + 1;
        }
        gsp_free(nm->slot);
        nm->slot = sl;
        nm->nslot = ns;
    }
    uint64_t h = hash_str(name) & (uint64_t)(nm->nslot - 1);
    while (nm->slot[h]) {
        if (!strcmp(nm->name[nm->slot[h] - 1], name)) {
            *id = nm->slot[h] - 1;
            return GSP_OK;
        }
        h = (h + 1) & (uint64_t)(nm->nslot - 1);
    }
    if (nm->count == nm->cap) {
        int64_t nc = nm->cap ? 2 * nm->cap : 256;
        void *q = gsp_realloc(nm->name, (size_t)nc * sizeof *nm->name);
        if (!q) return gsp_error(GSP_ERR_NOMEM, "out of memory");
        nm->name = q;
        nm->cap = nc;
    }
    if (!(nm->name[nm->count] = gsp_strdup(name))) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    nm->slot[h] = nm->count + 1;
    *id = nm->count++;
    return GSP_OK;
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

gsp_err_t gsp__topo_from_graphml(gsp_topo_t *t, const char *spec, const char *path);

/* GraphML: named *.graphml, or an XML document ('<' first). */
static bool is_graphml(const char *path) {
    size_t len = strlen(path);
    if (len >= 8 && !strcasecmp(path + len - 8, ".graphml")) return true;
    FILE *f = fopen(path, "r");
    if (!f) return false;
    int c;
    while ((c = fgetc(f)) != EOF && isspace(c)) {}
    fclose(f);
    return c == '<';
}

gsp_err_t gsp__topo_from_file(gsp_topo_t *t, const char *spec, const char *path) {
    if (is_graphml(path)) return gsp__topo_from_graphml(t, spec, path);
    gsp_err_t err = GSP_OK;
    gsp_vec_t edges = {0};
    bool directed = false, seen_edge = false;
    int64_t n = -1, maxid = -1, line = 0, nodes_line = 0, minid = INT64_MAX;
    bool named = false, saw_int = false;
    names_t nm;
    memset(&nm, 0, sizeof nm);
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
        /* Two tokens: integer ids or names (letters, digits, '.', '-', '_', ':'). */
        char *tok[2];
        size_t tl[2];
        for (int k = 0; k < 2; k++) {
            while (*p == ' ' || *p == '\t' || *p == ',') p++;
            tok[k] = p;
            while (*p && !isspace((unsigned char)*p) && *p != ',') p++;
            tl[k] = (size_t)(p - tok[k]);
        }
        while (isspace((unsigned char)*p) || *p == ',') p++;
        if (tl[0] == 0 || tl[1] == 0) {
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: expected an edge 'u v' (two node ids or names)", path, (long long)line);
            goto fail;
        }
        if (*p) {
            excerpt(p, what, sizeof what);
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: unexpected text after the edge: '%s'", path,
                            (long long)line, what);
            goto fail;
        }
        int64_t id[2];
        for (int k = 0; k < 2; k++) {
            char save = tok[k][tl[k]];
            tok[k][tl[k]] = 0;
            char *q = tok[k];
            bool integer = read_int(&q, &id[k]) && *q == 0;
            /* Integer ids or names, not both: a stray word among ids is a typo, not a host. */
            if (integer ? named : saw_int) {
                excerpt(tok[k], what, sizeof what);
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: '%s' %s; use integer ids or names throughout", path, (long long)line, what,
                                integer ? "is an integer id, but earlier lines name their nodes" : "is a name, but earlier lines use integer ids");
                goto fail;
            }
            saw_int |= integer;
            if (!integer) {
                for (const char *c = tok[k]; *c; c++)
                    if (!isalnum((unsigned char)*c) && !strchr("._-:@/[]", *c)) {
                        excerpt(tok[k], what, sizeof what);
                        err = gsp_error(GSP_ERR_PARSE, "%s:%lld: '%s' is neither an integer id nor a node name", path, (long long)line, what);
                        goto fail;
                    }
                if (n > 0) {
                    err = gsp_error(GSP_ERR_PARSE, "%s:%lld: node name '%s' with a 'nodes' line (which numbers nodes 0..N-1)", path,
                                    (long long)line, tok[k]);
                    goto fail;
                }
                named = true;
                if ((err = names_id(&nm, tok[k], &id[k]))) goto fail;
                id[k] = -1 - id[k]; /* names are negative until the end */
            } else if (id[k] < 0) {
                err = gsp_error(GSP_ERR_RANGE, "%s:%lld: negative node id %lld", path, (long long)line, (long long)id[k]);
                goto fail;
            }
            tok[k][tl[k]] = save;
        }
        int64_t u = id[0], v = id[1];
        int64_t hi = n > 0 ? n - 1 : GSP_MAX_ARCS - 1;
        if (u > hi || v > hi) {
            err = gsp_error(GSP_ERR_RANGE, "%s:%lld: node id out of range 0..%lld", path,
                            (long long)line, (long long)hi);
            goto fail;
        }
        if (u == v) {
            err = gsp_error(GSP_ERR_RANGE, "%s:%lld: self-loop at node %s", path, (long long)line, tok[0]);
            goto fail;
        }
        if (edges.len / 2 >= max_edges) {
            err = gsp_error(GSP_ERR_TOOBIG, "%s:%lld: more than %lld edges: above the memory limit (GOSSIP_MEMORY_LIMIT)", path,
                            (long long)line, (long long)max_edges);
            goto fail;
        }
        if (u >= 0 && u < minid) minid = u;
        if (v >= 0 && v < minid) minid = v;
        seen_edge = true;
        if (u > maxid) maxid = u;
        if (v > maxid) maxid = v;
        if ((err = gsp_vec_push(&edges, u)) || (err = gsp_vec_push(&edges, v))) goto fail;
    }
    if (ferror(f)) {
        err = gsp_error(GSP_ERR_IO, "%s: read error on '%s'", spec, path);
        goto fail;
    }
    /* Integer ids that never use 0 (and no "nodes" line): 1-based, as many tools write them. */
    bool one_based = !named && n < 0 && minid >= 1 && minid != INT64_MAX;
    if (named) {
        /* (A named file has no integer ids: every entry is a name's index.) */
        for (int64_t e = 0; e < edges.len; e++)
            if (edges.v[e] >= 0) {
                char num[24];
                snprintf(num, sizeof num, "%lld", (long long)edges.v[e]);
                int64_t k;
                if ((err = names_id(&nm, num, &k))) goto fail;
                edges.v[e] = -1 - k;
            }
        for (int64_t e = 0; e < edges.len; e++) edges.v[e] = -1 - edges.v[e];
        n = nm.count;
    } else if (one_based) {
        for (int64_t e = 0; e < edges.len; e++) edges.v[e]--;
        n = maxid;
    }
    if (n < 0) n = maxid + 1;
    if (n < 1) {
        err = gsp_error(GSP_ERR_PARSE, "%s: '%s' has no edges and no 'nodes N' line", spec, path);
        goto fail;
    }
    err = gsp_topo_from_edges(t, n, edges.v, edges.len / 2, directed, spec);
    if (!err && (named || one_based)) {
        if ((err = gsp_alloc_array((void **)&t->names, n, sizeof *t->names, true))) goto fail;
        for (int64_t x = 0; x < n && !err; x++) {
            char num[24];
            if (one_based) snprintf(num, sizeof num, "%lld", (long long)x + 1);
            if (!(t->names[x] = gsp_strdup(one_based ? num : nm.name[x]))) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        }
        if (err) gsp_topo_destroy(t);
    }
fail:
    fclose(f);
    gsp_vec_destroy(&edges);
    names_free(&nm);
    return err;
}

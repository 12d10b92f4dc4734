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

#include "topo/topo_int.h"

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

/* Fabric lines: "u v C" (a link of capacity C each way), "u > v [C]" (one way), "switch NAME...".
 * Capacities are read exactly, in millionths of the unit, then scaled by the smallest power of
 * ten that keeps them integers (cap_scale). */
#define MAX_TOKENS 4
#define CAP_DECIMALS GSP__CAP_DECIMALS
#define CAP_UNIT GSP__CAP_UNIT /* 10^CAP_DECIMALS: capacity 1 */
#define CAP_MAX GSP__CAP_MAX   /* largest capacity of one line */

/* A positive decimal number ("25", "12.5", "0.125") in millionths. */
gsp_err_t gsp__topo_parse_capacity(const char *s, int64_t *out) {
    char what[64];
    const char *p = s;
    int64_t whole = 0, frac = 0;
    int digits = 0, decimals = 0;
    for (; isdigit((unsigned char)*p); p++, digits++)
        if (whole <= CAP_MAX) whole = whole * 10 + (*p - '0');
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++, decimals++) {
            if (decimals < CAP_DECIMALS) {
                frac = frac * 10 + (*p - '0');
            } else if (*p != '0') {
                excerpt(s, what, sizeof what);
                return gsp_error(GSP_ERR_PARSE, "capacity '%s' has more than %d decimals", what, CAP_DECIMALS);
            }
        }
    }
    excerpt(s, what, sizeof what);
    if (*s == '-' && isdigit((unsigned char)s[1])) return gsp_error(GSP_ERR_RANGE, "capacity '%s' is negative", what);
    if (*p || digits + decimals == 0 || (*s == '.' && digits == 0 && decimals == 0))
        return gsp_error(GSP_ERR_PARSE, "'%s' is not a capacity (a positive number such as 25 or 12.5, in GB/s or any one unit)", what);
    if (whole > CAP_MAX) return gsp_error(GSP_ERR_RANGE, "capacity '%s' is above %lld", what, (long long)CAP_MAX);
    for (int k = decimals; k < CAP_DECIMALS; k++) frac *= 10;
    int64_t v = whole * CAP_UNIT + frac;
    if (v <= 0) return gsp_error(GSP_ERR_RANGE, "capacity '%s' is not positive (a link of no capacity is no link: leave it out)", what);
    *out = v;
    return GSP_OK;
}

/* The state of the node-name resolution of one file. */
typedef struct {
    const char *path;
    int64_t line, n, minid, maxid;
    bool named, saw_int;
    names_t nm;
} reader_t;

/* The id of a token: an integer id (>= 0) or, for a name, -1 - its index. */
static gsp_err_t resolve(reader_t *r, const char *tok, int64_t *id) {
    char what[64];
    const char *q = tok;
    char *end;
    bool integer = false;
    if (isdigit((unsigned char)*q) || *q == '-' || *q == '+') {
        errno = 0;
        long long v = strtoll(q, &end, 10);
        integer = end != q && *end == 0 && errno != ERANGE;
        *id = v;
    }
    /* Integer ids or names, not both: a stray word among ids is a typo, not a host. */
    if (integer ? r->named : r->saw_int) {
        excerpt(tok, what, sizeof what);
        return gsp_error(GSP_ERR_PARSE, "%s:%lld: '%s' %s; use integer ids or names throughout", r->path, (long long)r->line, what,
                         integer ? "is an integer id, but earlier lines name their nodes" : "is a name, but earlier lines use integer ids");
    }
    r->saw_int |= integer;
    if (!integer) {
        for (const char *c = tok; *c; c++)
            if (!isalnum((unsigned char)*c) && !strchr("._-:@/[]", *c)) {
                excerpt(tok, what, sizeof what);
                return gsp_error(GSP_ERR_PARSE, "%s:%lld: '%s' is neither an integer id nor a node name", r->path, (long long)r->line, what);
            }
        if (r->n > 0) {
            excerpt(tok, what, sizeof what);
            return gsp_error(GSP_ERR_PARSE, "%s:%lld: node name '%s' with a 'nodes' line (which numbers nodes 0..N-1)", r->path,
                             (long long)r->line, what);
        }
        r->named = true;
        gsp_err_t err = names_id(&r->nm, tok, id);
        if (err) return err;
        *id = -1 - *id; /* names are negative until the end */
        return GSP_OK;
    }
    if (*id < 0) return gsp_error(GSP_ERR_RANGE, "%s:%lld: negative node id %lld", r->path, (long long)r->line, (long long)*id);
    int64_t hi = r->n > 0 ? r->n - 1 : GSP_MAX_ARCS - 1;
    if (*id > hi) return gsp_error(GSP_ERR_RANGE, "%s:%lld: node id out of range 0..%lld", r->path, (long long)r->line, (long long)hi);
    if (*id < r->minid) r->minid = *id;
    if (*id > r->maxid) r->maxid = *id;
    return GSP_OK;
}

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
    gsp_vec_t edges = {0}, caps = {0}, oneway = {0}, switches = {0}, switch_lines = {0};
    bool directed = false, seen_edge = false, fabric = false;
    int64_t n = -1, line = 0, nodes_line = 0;
    reader_t rs;
    memset(&rs, 0, sizeof rs);
    rs.path = path;
    rs.n = -1;
    rs.maxid = -1;
    rs.minid = INT64_MAX;
    int64_t *arcs = NULL, *acap = NULL;
    uint8_t *sw = NULL;
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
        rs.line = line;
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
            rs.n = n;
            continue;
        }
        if (strncmp(p, "switch", 6) == 0 && (p[6] == 0 || isspace((unsigned char)p[6]))) {
            int names_here = 0;
            for (p += 6;;) {
                /* Every character the name loop stops at is skipped here (isspace has \f and \v
                 * too): otherwise an empty name would be read at the same place forever. */
                while (isspace((unsigned char)*p) || *p == ',') p++;
                if (!*p) break;
                char *name = p;
                while (*p && !isspace((unsigned char)*p) && *p != ',') p++;
                char save = *p;
                *p = 0;
                int64_t id;
                if ((err = resolve(&rs, name, &id))) goto fail;
                if ((err = gsp_vec_push(&switches, id)) || (err = gsp_vec_push(&switch_lines, line))) goto fail;
                *p = save;
                names_here++;
            }
            if (!names_here) {
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: 'switch' names no node (switch NAME [NAME ...])", path, (long long)line);
                goto fail;
            }
            fabric = true;
            continue;
        }
        /* Tokens: "u v", "u v C", "u > v" or "u > v C": integer ids or
         * names (letters, digits, '.', '-', '_', ':', '@', '/', '[', ']'). */
        char *tok[MAX_TOKENS];
        size_t tl[MAX_TOKENS];
        int ntok = 0;
        for (;;) {
            while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r') p++;
            if (!*p) break;
            if (ntok == MAX_TOKENS) {
                excerpt(p, what, sizeof what);
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: unexpected text after the edge: '%s'", path, (long long)line, what);
                goto fail;
            }
            tok[ntok] = p;
            while (*p && !isspace((unsigned char)*p) && *p != ',') p++;
            tl[ntok] = (size_t)(p - tok[ntok]);
            ntok++;
        }
        for (int k = 0; k < ntok; k++) tok[k][tl[k]] = 0;
        bool arrow = ntok >= 3 && !strcmp(tok[1], ">");
        int iu = 0, iv = arrow ? 2 : 1, ic = iv + 1;
        for (int k = 0; k < ntok; k++)
            if (!strcmp(tok[k], ">") && !(arrow && k == 1)) {
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: expected a one-way link 'u > v' or 'u > v C'", path, (long long)line);
                goto fail;
            }
        if (ntok < 2 || (arrow && ntok < 3)) {
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: expected an edge 'u v' (two node ids or names)", path, (long long)line);
            goto fail;
        }
        if (ntok > ic + 1) {
            excerpt(tok[ic + 1], what, sizeof what);
            err = gsp_error(GSP_ERR_PARSE, "%s:%lld: unexpected text after the edge: '%s'", path, (long long)line, what);
            goto fail;
        }
        int64_t c = CAP_UNIT;
        if (ntok == ic + 1) {
            /* A word where a capacity could be is still what it was before capacities: stray text. */
            if (!strchr("0123456789.-+", tok[ic][0])) {
                excerpt(tok[ic], what, sizeof what);
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: unexpected text after the edge: '%s'", path, (long long)line, what);
                goto fail;
            }
            if ((err = gsp__topo_parse_capacity(tok[ic], &c))) {
                err = gsp_error(err, "%s:%lld: %s", path, (long long)line, gsp_errmsg());
                goto fail;
            }
            fabric = true;
        }
        if (arrow) fabric = true;
        int64_t id[2];
        if ((err = resolve(&rs, tok[iu], &id[0])) || (err = resolve(&rs, tok[iv], &id[1]))) goto fail;
        int64_t u = id[0], v = id[1];
        if (u == v) {
            err = gsp_error(GSP_ERR_RANGE, "%s:%lld: self-loop at node %s", path, (long long)line, tok[iu]);
            goto fail;
        }
        if (edges.len / 2 >= max_edges) {
            err = gsp_error(GSP_ERR_TOOBIG, "%s:%lld: more than %lld edges: above the memory limit (GOSSIP_MEMORY_LIMIT)", path,
                            (long long)line, (long long)max_edges);
            goto fail;
        }
        seen_edge = true;
        if ((err = gsp_vec_push(&edges, u)) || (err = gsp_vec_push(&edges, v))) goto fail;
        if ((err = gsp_vec_push(&caps, c)) || (err = gsp_vec_push(&oneway, arrow))) goto fail;
    }
    if (ferror(f)) {
        err = gsp_error(GSP_ERR_IO, "%s: read error on '%s'", spec, path);
        goto fail;
    }
    /* Integer ids that never use 0 (and no "nodes" line): 1-based, as many tools write them. */
    bool one_based = !rs.named && n < 0 && rs.minid >= 1 && rs.minid != INT64_MAX;
    if (rs.named) {
        for (int64_t e = 0; e < edges.len; e++) edges.v[e] = -1 - edges.v[e];
        for (int64_t e = 0; e < switches.len; e++) switches.v[e] = -1 - switches.v[e];
        n = rs.nm.count;
    } else if (one_based) {
        for (int64_t e = 0; e < edges.len; e++) edges.v[e]--;
        for (int64_t e = 0; e < switches.len; e++) switches.v[e]--;
        n = rs.maxid;
    }
    if (n < 0) n = rs.maxid + 1;
    if (n < 1) {
        err = gsp_error(GSP_ERR_PARSE, "%s: '%s' has no edges and no 'nodes N' line", spec, path);
        goto fail;
    }
    /* A switch line before the 'nodes' line was read with no bound on its ids (found by
     * fuzz_edges: "switch 3431", then "nodes 3"). */
    for (int64_t k = 0; k < switches.len; k++)
        if (switches.v[k] < 0 || switches.v[k] >= n) {
            err = gsp_error(GSP_ERR_RANGE, "%s:%lld: switch id %lld out of range 0..%lld (the 'nodes' line)", path,
                            (long long)switch_lines.v[k], (long long)switches.v[k], (long long)n - 1);
            goto fail;
        }
    char **names = NULL;
    /* Nodes are sized before anything is built: a 1-based file whose largest id is 5*10^7 would
     * otherwise allocate a name for every node below it (about 32 bytes each) before the graph's
     * own check could say no. */
    if ((double)n * 32 > (double)gsp_memory_limit()) {
        err = gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes (its largest id) are above the memory limit of %lld bytes (GOSSIP_MEMORY_LIMIT)",
                        spec, (long long)n, (long long)gsp_memory_limit());
        goto fail;
    }
    if (rs.named || one_based) {
        if ((err = gsp_alloc_array((void **)&names, n, sizeof *names, true))) goto fail;
        for (int64_t x = 0; x < n && !err; x++) {
            char num[24];
            if (one_based) snprintf(num, sizeof num, "%lld", (long long)x + 1);
            if (!(names[x] = gsp_strdup(one_based ? num : rs.nm.name[x]))) err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        }
    }
    if (!err && !fabric) { /* a plain edge list, as before fabrics: repeated edges merge */
        err = gsp_topo_from_edges(t, n, edges.v, edges.len / 2, directed, spec);
        if (!err) t->names = names, names = NULL;
    } else if (!err) {
        /* A fabric: every line a link (both ways unless one-way), repeated links adding up;
         * capacities in the coarsest power-of-ten unit that keeps them integers. */
        int64_t narcs = 0, div = CAP_UNIT, scale;
        for (int64_t e = 0; e < caps.len; e++)
            while (div > 1 && caps.v[e] % div) div /= 10;
        scale = CAP_UNIT / div;
        if ((err = gsp_alloc_array((void **)&arcs, 4 * caps.len + 2, sizeof *arcs, false)) ||
            (err = gsp_alloc_array((void **)&acap, 2 * caps.len + 1, sizeof *acap, false)) || (err = gsp_alloc_array((void **)&sw, n, 1, true)))
            goto names_fail;
        for (int64_t e = 0; e < caps.len; e++) {
            int64_t u = edges.v[2 * e], v = edges.v[2 * e + 1];
            arcs[2 * narcs] = u, arcs[2 * narcs + 1] = v, acap[narcs++] = caps.v[e] / div;
            if (!directed && !oneway.v[e]) arcs[2 * narcs] = v, arcs[2 * narcs + 1] = u, acap[narcs++] = caps.v[e] / div;
        }
        for (int64_t k = 0; k < switches.len; k++) sw[switches.v[k]] = 1;
        err = gsp_topo_from_arcs(t, n, arcs, acap, narcs, scale, sw, (const char *const *)names, spec);
        /* A switch on no link is a typo (or a leftover): say which. */
        memset(sw, 0, (size_t)n); /* now: on some link */
        for (int64_t a = 0; !err && a < 2 * narcs; a++) sw[arcs[a]] = 1;
        for (int64_t k = 0; !err && k < switches.len; k++) {
            int64_t x = switches.v[k];
            if (!sw[x]) {
                char b[24];
                err = gsp_error(GSP_ERR_PARSE, "%s:%lld: switch '%s' is on no link", path, (long long)switch_lines.v[k],
                                gsp_topo_node_name(t, x, b));
                gsp_topo_destroy(t);
            }
        }
    }
names_fail:
    if (names) {
        for (int64_t x = 0; x < n; x++) gsp_free(names[x]);
        gsp_free(names);
    }
fail:
    fclose(f);
    gsp_vec_destroy(&edges);
    gsp_vec_destroy(&caps);
    gsp_vec_destroy(&oneway);
    gsp_vec_destroy(&switches);
    gsp_vec_destroy(&switch_lines);
    gsp_free(arcs);
    gsp_free(acap);
    gsp_free(sw);
    names_free(&rs.nm);
    return err;
}

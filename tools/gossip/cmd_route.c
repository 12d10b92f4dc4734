/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_route.c — `gossip route SPEC SRC DST`: table-free routing in an optimal circulant by
 * relative addresses, adapting to failed nodes and links. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip route SPEC SRC DST [--fail-node V]... [--fail-link U-V]... [--json]\n"
    "\n"
    "Routes a message from SRC to DST in an optimal circulant G(N; s, s+1) (optcirc:N, or\n"
    "circulant:N:s,s+1) without routing tables: every node computes the relative address to DST in\n"
    "O(1) (Prop. 1-2 of the circulant paper) and forwards along a shortest direction whose link and\n"
    "next node are alive, the least loaded first; with faults it takes another live direction and\n"
    "recomputes the address, stepping back when stuck, so the message arrives whenever a path exists.\n"
    "Exit 0 when delivered, 1 when DST is unreachable.\n"
    "\n"
    "  --fail-node V    node V is down (repeat for more)\n"
    "  --fail-link U-V  the link between U and V is down, both ways (repeat for more)\n"
    "  --json           one JSON object: topology, address, distance, delivered, hops, path,\n"
    "                   detours\n"
    "\n"
    "example:\n"
    "  $ gossip route optcirc:35 0 17\n"
    "  address     A(0,17) = (3, 1): 4 hops (the distance)\n"
    "  path        0 -> 4 -> 8 -> 12 -> 17  (4 hops, fault-free distance 4)\n";

int64_t gsp__optcirc_s(int64_t N);

static int run(int argc, char **argv) {
    const char *spec = NULL;
    int64_t src = -1, dst = -1;
    bool json = false;
    int nargs = 0;
    const char *fails_n[256], *fails_l[256];
    int nfn = 0, nfl = 0;
    static const cli_optdef_t defs[] = {{"json", false}, {"fail-node", true}, {"fail-link", true}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "route", usage_text, defs, argc, argv);
    const char *o, *arg;
    int pr;
    while ((pr = cli_args_next(&ps, &o, &arg)) > 0) {
        const char *a = arg;
        if (o && !strcmp(o, "--help")) return cli_help(&cmd_route);
        if (o && !strcmp(o, "--json")) json = true;
        else if (o) {
            if (nfn + nfl >= 256) return cli_usage_error("route: too many faults");
            if (o[7] == 'n') fails_n[nfn++] = a;
            else fails_l[nfl++] = a;
        } else if (nargs == 0) spec = a, nargs++;
        else if (nargs == 1) {
            if (!cli_parse_int(a, 0, INT64_MAX, "SRC", &src)) return EXIT_USAGE;
            nargs++;
        } else if (nargs == 2) {
            if (!cli_parse_int(a, 0, INT64_MAX, "DST", &dst)) return EXIT_USAGE;
            nargs++;
        } else return cli_usage_error("route: unexpected argument '%s'", a);
    }
    if (pr < 0) return EXIT_USAGE;
    if (nargs < 3) return cli_usage_error("route: expected SPEC SRC DST (see 'gossip route --help')");
    gsp_topo_t t;
    gsp_err_t err = gsp_topo_from_spec(&t, spec);
    if (err) return cli_lib_error(err);
    int rc = EXIT_OK;
    unsigned char *dn = NULL, *dl = NULL;
    gsp_route_t r = {0};
    int64_t N = t.n, s = t.group && t.ngens == 4 ? t.gens[0] : -1;
    if (s < 0 || t.group->kind != GSP_GROUP_ABELIAN || t.group->k != 1 || t.gens[1] != (s + 1) % N) {
        rc = cli_usage_error("route: %s is not an optimal circulant G(N; s, s+1) with 4 arcs", spec);
        goto done;
    }
    if (src >= N || dst >= N) {
        rc = cli_usage_error("route: SRC and DST must be nodes 0..%lld", (long long)N - 1);
        goto done;
    }
    dn = calloc((size_t)N, 1);
    dl = calloc((size_t)t.m, 1);
    for (int i = 0; i < nfn; i++) {
        int64_t v;
        if (!cli_parse_int(fails_n[i], 0, N - 1, "--fail-node", &v)) {
            rc = EXIT_USAGE;
            goto done;
        }
        dn[v] = 1;
    }
    for (int i = 0; i < nfl; i++) {
        long long u, v;
        char extra;
        if (sscanf(fails_l[i], "%lld-%lld%c", &u, &v, &extra) != 2 || u < 0 || v < 0 || u >= N || v >= N) {
            rc = cli_usage_error("route: --fail-link expects U-V with nodes in 0..%lld, not '%s'", (long long)N - 1, fails_l[i]);
            goto done;
        }
        int64_t a = gsp_topo_arc_index(&t, u, v), b = gsp_topo_arc_index(&t, v, u);
        if (a < 0) {
            rc = cli_usage_error("route: %lld-%lld is not a link of %s", u, v, spec);
            goto done;
        }
        dl[u * 4 + a] = dl[v * 4 + b] = 1; /* a failed link is dead both ways */
    }
    gsp_caddr_t ad = gsp_circ_address(N, s, dst - src);
    int64_t dist = llabs(ad.x) + llabs(ad.y);
    if ((err = gsp_circ_route(&t, s, src, dst, dn, dl, NULL, &r))) {
        rc = cli_lib_error(err);
        goto done;
    }
    if (json) {
        gsp_jw_t w;
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "topology"); gsp_jw_str(&w, t.spec);
        gsp_jw_key(&w, "address"); gsp_jw_arr_begin(&w); gsp_jw_int(&w, ad.x); gsp_jw_int(&w, ad.y); gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "distance"); gsp_jw_int(&w, dist);
        gsp_jw_key(&w, "delivered"); gsp_jw_bool(&w, r.delivered);
        gsp_jw_key(&w, "hops"); gsp_jw_int(&w, r.delivered ? r.len : -1);
        gsp_jw_key(&w, "path");
        gsp_jw_arr_begin(&w);
        for (int64_t i = 0; r.delivered && i <= r.len; i++) gsp_jw_int(&w, r.path[i]);
        gsp_jw_arr_end(&w);
        gsp_jw_key(&w, "detours"); gsp_jw_int(&w, r.recomputed);
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    } else {
        printf("%-11s A(%lld,%lld) = (%lld, %lld): %lld hops (the distance)\n", "address", (long long)src, (long long)dst,
               (long long)ad.x, (long long)ad.y, (long long)dist);
        if (r.delivered) {
            printf("%-11s", "path");
            for (int64_t i = 0; i <= r.len; i++) printf("%s%lld", i ? " -> " : " ", (long long)r.path[i]);
            printf("  (%lld hops, fault-free distance %lld%s)\n", (long long)r.len, (long long)dist,
                   r.recomputed ? ", detoured" : "");
        } else {
            printf("%-11s none: %lld is unreachable from %lld with these faults\n", "path", (long long)dst, (long long)src);
        }
    }
    if (!r.delivered) rc = EXIT_NO;
done:
    free(dn);
    free(dl);
    gsp_route_destroy(&r);
    gsp_topo_destroy(&t);
    return rc;
}

const cli_command_t cmd_route = {"route", "table-free routing in optimal circulants, adapting to faults", run, usage_text};

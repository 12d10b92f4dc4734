/* SPDX-License-Identifier: GPL-3.0-or-later */
/* calibrate.c — `mpirun -n P gossip-mpi calibrate [-o FILE] [--topology SPEC]`: measures the
 * running system for the cost model (gsp_mpi_calibrate), prints the figures and how they were
 * obtained, and writes the tuning file the drop-in, gossip-mpi and `gossip plan --tuning` read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "calibrate.h"
#include "cli.h"
#include "gossip/mpi.h"

const char gm_calibrate_usage[] =
    "usage: mpirun -n P gossip-mpi calibrate [-o FILE] [--topology SPEC] [--max-bytes B] [--reps K]\n"
    "\n"
    "Measures the cost model's parameters on the running system and writes them as a tuning file:\n"
    "  alpha     a 0-byte message from rank 0 to its peer (half a round trip)\n"
    "  beta      seconds per byte by message size: a ping-pong at 0 bytes and 4 sizes an octave\n"
    "            up to B (default 16 MiB), fitted by regimes (sizes whose cost per further byte\n"
    "            agrees within 10%: a protocol of the network), at most 16 sizes; where\n"
    "            the regime changes, sizes between are measured until the change is found\n"
    "            to the byte\n"
    "  hop       with --topology SPEC (rank r on node r; P must be its node count): a 0-byte\n"
    "            message to rank 0's farthest rank against one to a neighbour, per further link\n"
    "  overhead  k messages sent at once and answered (to k neighbours, or k other ranks, or k\n"
    "            to the one peer) against one: the round trips' difference per further message\n"
    "  gamma     gossip's MPI_SUM over 8 MiB of doubles, per byte (on one node: every rank at\n"
    "            once, as the shared-memory model counts one memory)\n"
    "Each figure is the minimum of K repetitions (default 5). Where the ranks run decides the\n"
    "model: every rank on one node gives a shared-memory file, applied to communicators on one\n"
    "node; ranks on different nodes (mpirun --map-by node) give a network file. Without -o the\n"
    "figures are printed only. The drop-in and gossip-mpi read $GOSSIP_TUNING, else\n"
    "$XDG_CONFIG_HOME/gossip/tuning.json (default ~/.config/gossip/tuning.json); explicit\n"
    "GOSSIP_ALPHA etc. apply over it. See docs/runtime.md, \"Calibration\".\n"
    "\n"
    "  -o FILE          write the tuning file (its directory is made when missing)\n"
    "  --topology SPEC  measure hop over SPEC's links (P must be its node count)\n"
    "  --max-bytes B    the largest ping-pong (default 16MiB)\n"
    "  --reps K         repetitions of each measurement, the minimum kept (default 5)\n"
    "\n"
    "example:\n"
    "  mpirun -n 2 gossip-mpi calibrate -o ~/.config/gossip/tuning.json\n";

static int say_error(int rank, const char *msg) {
    if (rank == 0) fprintf(stderr, "gossip-mpi: error: %s\n", msg);
    return 2;
}

/* Creates the directories above path that do not exist (as mkdir -p would). */
static void make_parents(const char *path) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
}

static const char *human(double bytes, char *buf, size_t n) {
    if (bytes >= 1 << 20 && fmod(bytes, 1 << 20) == 0) snprintf(buf, n, "%g MiB", bytes / (1 << 20));
    else if (bytes >= 1024 && fmod(bytes, 1024) == 0) snprintf(buf, n, "%g KiB", bytes / 1024);
    else snprintf(buf, n, "%g B", bytes);
    return buf;
}

/* x to 4 significant digits: what a measurement holds (the file stays readable). */
static double sig4(double x) {
    char b[32];
    snprintf(b, sizeof b, "%.4g", x);
    return strtod(b, NULL);
}

int gm_calibrate(int argc, char **argv, int rank, int size) {
    gsp_calib_opts_t o;
    memset(&o, 0, sizeof o);
    const char *out = NULL;
    /* The option helper gossip uses (tools/gossip/cli.c): --opt value, --opt=value, prefixes,
     * did you mean; errors are printed by rank 0 only (cli_quiet elsewhere). */
    static const cli_optdef_t defs[] = {{"o", true}, {"topology", true}, {"max-bytes", true}, {"reps", true}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "calibrate", gm_calibrate_usage, defs, argc - 1, argv + 1);
    const char *a, *v;
    int pr;
    int64_t x;
    while ((pr = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) return cli_usage_error("calibrate: unexpected argument '%s' (see 'gossip-mpi calibrate --help')", v);
        if (!strcmp(a, "--help")) {
            if (rank == 0) fputs(gm_calibrate_usage, stdout);
            return 0;
        }
        if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "--topology")) o.topology = v;
        else if (!strcmp(a, "--max-bytes")) {
            if (!cli_parse_size(v, 1024, INT64_C(1) << 30, "--max-bytes", &x)) return EXIT_USAGE;
            o.max_bytes = x;
        } else if (!strcmp(a, "--reps")) {
            if (!cli_parse_size(v, 1, 64, "--reps", &x)) return EXIT_USAGE;
            o.reps = (int)x;
        }
    }
    if (pr < 0) return EXIT_USAGE;
    if (size < 2) return say_error(rank, "calibrate needs at least 2 ranks: mpirun -n 2 gossip-mpi calibrate");
    gsp_calib_t *c = malloc(sizeof *c);
    if (!c) return say_error(rank, "out of memory");
    if (gsp_mpi_calibrate(MPI_COMM_WORLD, &o, c)) {
        char m[512];
        snprintf(m, sizeof m, "calibrate: %s", gsp_errmsg());
        free(c);
        return say_error(rank, m);
    }
    gsp_cost_origin_t org;
    memset(&org, 0, sizeof org);
    int len = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_processor_name(org.host, &len);
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = 0;
    snprintf(org.mpi, sizeof org.mpi, "%s", lib);
    time_t now = time(NULL);
    strftime(org.date, sizeof org.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (o.topology) snprintf(org.topology, sizeof org.topology, "%s", o.topology);
    org.ranks = size;
    int rc = 0;
    gsp_cost_t *m = &c->cost;
    m->alpha = sig4(m->alpha), m->beta = sig4(m->beta), m->gamma = sig4(m->gamma), m->hop = sig4(m->hop), m->overhead = sig4(m->overhead);
    for (int i = 0; i < m->nbeta; i++) m->beta_val[i] = sig4(m->beta_val[i]);
    for (int i = 0; i < m->nalpha; i++) m->alpha_val[i] = i ? sig4(m->alpha_val[i]) : m->alpha; /* the table starts at alpha */
    if (rank == 0) {
        char h1[32], h2[32];
        printf("calibration: %d ranks, %s (%s), %s; %.1f s\n", size, org.host, org.mpi,
               m->shared ? "every rank on one node: the shared-memory model" : "ranks on different nodes: the network model", c->seconds);
        printf("ping-pong rank 0 <-> %d: one message (half a round trip), minimum of %d\n", c->near, o.reps > 0 ? o.reps : 5);
        printf("  %10s %12s %10s %14s\n", "bytes", "time us", "spread us", "(t-alpha)/B s/B");
        for (int i = 0; i < c->nsizes; i++) {
            int64_t s = c->size[i];
            if (s & (s - 1)) continue; /* the powers of two (the fit used all sizes) */
            if (s) printf("  %10lld %12.3f %10.3f %14.4g\n", (long long)s, c->time[i] * 1e6, c->spread[i] * 1e6, (c->time[i] - m->alpha) / (double)s);
            else printf("  %10lld %12.3f %10.3f %14s\n", 0LL, c->time[i] * 1e6, c->spread[i] * 1e6, "");
        }
        printf("regimes: sizes whose cost per further byte agrees within %g%% (latency: the time at 0 bytes a regime's line gives)\n",
               GSP_COST_FIT_TOLERANCE * 100);
        for (int r = 0; r < c->fit.nregimes; r++)
            printf("  %10s .. %-10s %11.4g s/B (%6.3g GB/s), latency %8.3f us\n", human((double)c->fit.from[r], h1, sizeof h1),
                   human((double)c->fit.to[r], h2, sizeof h2), c->fit.beta[r], c->fit.beta[r] > 0 ? 1e-9 / c->fit.beta[r] : INFINITY,
                   c->fit.latency[r] * 1e6);
        if (c->refine_probes)
            printf("changes of regime: %d moved to the byte between the measured sizes (%d more sizes measured)\n", c->refined, c->refine_probes);
        printf("alpha     %-11.4g s    a 0-byte message\n", m->alpha);
        if (m->nalpha) {
            printf("          by size: ");
            for (int i = 0; i < m->nalpha; i++) printf("%s%lld:%.4g", i ? "," : "", (long long)m->alpha_from[i], m->alpha_val[i]);
            printf(" (s from each size on: t - beta B of the sizes of each beta entry, their median)\n");
        }
        if (m->nbeta) {
            printf("beta      by size: ");
            for (int i = 0; i < m->nbeta; i++) printf("%s%lld:%.4g", i ? "," : "", (long long)m->beta_from[i], m->beta_val[i]);
            printf(" (s/B from each size on)\n");
        } else
            printf("beta      %-11.4g s/B  (%.3g GB/s)\n", m->beta, m->beta > 0 ? 1e-9 / m->beta : INFINITY);
        if (c->have_hop)
            printf("hop       %-11.4g s    rank 0 to %d, %lld links: %.3f us; to %d, one link: %.3f us\n", m->hop, c->far, (long long)c->far_hops,
                   c->t_far * 1e6, c->near, c->t_near * 1e6);
        else
            printf("hop       %-11.4g s    not measured (%s): the default\n", m->hop,
                   o.topology ? "the topology's diameter from rank 0 is 1" : "give --topology SPEC, the ranks on its nodes");
        printf("overhead  %-11.4g s    %d messages at once to %d rank%s and back: %.3f us; one: %.3f us\n", m->overhead, c->burst,
               c->burst_peers, c->burst_peers > 1 ? "s" : "", 2 * c->t_burst * 1e6, 2 * c->t_one * 1e6);
        printf("gamma     %-11.4g s/B  MPI_SUM of %s of doubles on %d rank%s at once: %.1f us\n", m->gamma,
               human((double)c->gamma_bytes, h1, sizeof h1), c->gamma_ranks, c->gamma_ranks > 1 ? "s" : "", c->t_gamma * 1e6);
        if (out) {
            make_parents(out);
            if (gsp_cost_save(out, m, &org)) {
                fprintf(stderr, "gossip-mpi: error: %s\n", gsp_errmsg());
                rc = 3;
            } else
                printf("written   %s\n", out);
        } else
            printf("not written: give -o FILE (the default location is ~/.config/gossip/tuning.json)\n");
    }
    free(c);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}
